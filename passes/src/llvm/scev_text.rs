//! Renders a SCEV by walking its tree in Rust, in the notation LLVM prints, so tests can
//! compare Rust's reading of an expression with LLVM's own (`print<polyrust-loops>`).

use super::host::{Scev, ScevKind};

/// `scev` in LLVM's notation, built from the tree alone.
pub fn render(scev: Scev<'_>) -> String {
    let mut out = String::new();
    write_scev(scev, &mut out);
    out
}

fn write_scev(scev: Scev<'_>, out: &mut String) {
    let operands = scev.operands();
    match scev.kind() {
        ScevKind::Constant => match (scev.constant(), scev.bit_width()) {
            (Some(0), Some(1)) => out.push_str("false"),
            (Some(_), Some(1)) => out.push_str("true"),
            (Some(value), _) => out.push_str(&value.to_string()),
            // Wider than 64 bits: rare enough to take LLVM's word for it.
            (None, _) => out.push_str(&scev.llvm_text()),
        },
        ScevKind::VScale => out.push_str("vscale"),
        ScevKind::Truncate | ScevKind::ZeroExtend | ScevKind::SignExtend | ScevKind::PtrToInt => {
            write_cast(scev, operands[0], out)
        }
        ScevKind::AddRec => write_add_rec(scev, &operands, out),
        ScevKind::Add
        | ScevKind::Mul
        | ScevKind::UMax
        | ScevKind::SMax
        | ScevKind::UMin
        | ScevKind::SMin
        | ScevKind::SequentialUMin => write_n_ary(scev, &operands, out),
        ScevKind::UDiv => {
            out.push('(');
            write_scev(operands[0], out);
            out.push_str(" /u ");
            write_scev(operands[1], out);
            out.push(')');
        }
        ScevKind::Unknown => out.push_str(&scev.unknown_name().unwrap_or_default()),
        ScevKind::CouldNotCompute => out.push_str("***COULDNOTCOMPUTE***"),
    }
}

/// `(zext i32 %n to i64)` and the other casts of `inner`.
fn write_cast(scev: Scev<'_>, inner: Scev<'_>, out: &mut String) {
    let op = match scev.kind() {
        ScevKind::Truncate => "trunc",
        ScevKind::ZeroExtend => "zext",
        ScevKind::SignExtend => "sext",
        _ => "ptrtoint",
    };
    out.push('(');
    out.push_str(op);
    out.push(' ');
    out.push_str(&inner.type_name());
    out.push(' ');
    write_scev(inner, out);
    out.push_str(" to ");
    out.push_str(&scev.type_name());
    out.push(')');
}

/// `{start,+,step}<nuw><nsw><%loop>`.
fn write_add_rec(scev: Scev<'_>, operands: &[Scev<'_>], out: &mut String) {
    out.push('{');
    for (i, op) in operands.iter().enumerate() {
        if i > 0 {
            out.push_str(",+,");
        }
        write_scev(*op, out);
    }
    out.push_str("}<");
    if scev.has_no_unsigned_wrap() {
        out.push_str("nuw><");
    }
    if scev.has_no_signed_wrap() {
        out.push_str("nsw><");
    }
    if scev.has_no_self_wrap() && !scev.has_no_unsigned_wrap() && !scev.has_no_signed_wrap() {
        out.push_str("nw><");
    }
    if let Some(l) = scev.add_rec_loop() {
        out.push_str(&l.header_name());
    }
    out.push('>');
}

/// `(a + b)<nsw>`, `(a smax b)` and the other operators over several operands.
fn write_n_ary(scev: Scev<'_>, operands: &[Scev<'_>], out: &mut String) {
    let separator = match scev.kind() {
        ScevKind::Add => " + ",
        ScevKind::Mul => " * ",
        ScevKind::UMax => " umax ",
        ScevKind::SMax => " smax ",
        ScevKind::UMin => " umin ",
        ScevKind::SMin => " smin ",
        _ => " umin_seq ",
    };
    out.push('(');
    for (i, op) in operands.iter().enumerate() {
        if i > 0 {
            out.push_str(separator);
        }
        write_scev(*op, out);
    }
    out.push(')');
    if matches!(scev.kind(), ScevKind::Add | ScevKind::Mul) {
        if scev.has_no_unsigned_wrap() {
            out.push_str("<nuw>");
        }
        if scev.has_no_signed_wrap() {
            out.push_str("<nsw>");
        }
    }
}
