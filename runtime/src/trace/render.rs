//! Text forms of a trace model: C-like loops for people, and a self-contained C
//! program that prints the modelled trace one decimal address per line (so that
//! `./a.out | cmp - trace` checks a model). Relies on the nests' face limits: bounds
//! fit in `long long`; addresses are computed in `uint64_t`, wrapping like the model.

use std::fmt::Write as _;

use super::{Face, Model, Nest, Piece};

/// `0x…` of the two's complement bits: a C literal with no sign or range trouble.
fn u64_literal(value: i64) -> String {
    format!("UINT64_C(0x{:x})", value as u64)
}

/// `29 - i0 + 2*i1`: an affine expression over counters, constant first.
fn affine(constant: i64, terms: &[(i64, usize)]) -> String {
    let mut text = String::new();
    for &(coeff, counter) in terms.iter().filter(|(c, _)| *c != 0) {
        let magnitude = coeff.unsigned_abs();
        let term = if magnitude == 1 {
            format!("i{counter}")
        } else {
            format!("{magnitude}*i{counter}")
        };
        if text.is_empty() {
            text = if coeff < 0 { format!("-{term}") } else { term };
        } else {
            let _ = write!(text, " {} {term}", if coeff < 0 { '-' } else { '+' });
        }
    }
    if text.is_empty() {
        return constant.to_string();
    }
    if constant == 0 {
        return text;
    }
    // `29 - i0` and `i0 - 10`: the constant goes first only before a minus.
    match text.strip_prefix('-') {
        Some(negated) => format!("{constant} - {negated}"),
        None if constant < 0 => format!("{text} - {}", constant.unsigned_abs()),
        None => format!("{text} + {constant}"),
    }
}

fn face_bounds(faces: &[Face], level: usize) -> Vec<String> {
    faces
        .iter()
        .map(|face| {
            let terms: Vec<(i64, usize)> = (0..level).map(|m| (face.slope(m), m)).collect();
            affine(face.constant_term(), &terms)
        })
        .collect()
}

fn upper_bound(nest: &Nest, level: usize) -> String {
    let bounds = face_bounds(nest.faces(level), level);
    if bounds.len() == 1 {
        bounds[0].clone()
    } else {
        format!("min({})", bounds.join(", "))
    }
}

fn lower_bound(nest: &Nest, level: usize) -> String {
    let mut bounds = vec!["0".to_string()];
    bounds.extend(face_bounds(nest.lower_faces(level), level));
    if bounds.len() == 1 {
        bounds.remove(0)
    } else {
        format!("max({})", bounds.join(", "))
    }
}

/// The access as text, base first: `31642944 + 256*i0 + 8*i2`.
fn access(nest: &Nest) -> String {
    let terms: Vec<(i64, usize)> = nest.coeffs().iter().copied().zip(0..).collect();
    let counters = affine(0, &terms);
    if counters == "0" {
        return nest.base().to_string();
    }
    match counters.strip_prefix('-') {
        Some(negated) => format!("{} - {negated}", nest.base()),
        None => format!("{} + {counters}", nest.base()),
    }
}

/// Whether the nest stops before its domain ends.
fn stops_early(nest: &Nest) -> bool {
    nest.domain_size(nest.count()).is_none()
}

/// The model as C-like loops, one block per piece.
pub fn readable(model: &Model) -> String {
    let mut text = String::new();
    let total = model.pieces.len();
    for (index, piece) in model.pieces.iter().enumerate() {
        match piece {
            Piece::Nest(nest) => {
                let _ = writeln!(
                    text,
                    "piece {} of {total}: loop nest of depth {}, {} accesses",
                    index + 1,
                    nest.depth(),
                    nest.count()
                );
                for level in 0..nest.depth() {
                    let _ = writeln!(
                        text,
                        "{:indent$}for (i{level} = {}; i{level} <= {}; i{level}++)",
                        "",
                        lower_bound(nest, level),
                        upper_bound(nest, level),
                        indent = 2 + 2 * level
                    );
                }
                let _ = writeln!(
                    text,
                    "{:indent$}access {}",
                    "",
                    access(nest),
                    indent = 2 + 2 * nest.depth()
                );
                if stops_early(nest) {
                    let _ = writeln!(text, "  (stops after {} accesses)", nest.count());
                }
            }
            Piece::Literal(addresses) => {
                let shown: Vec<String> = addresses.iter().take(8).map(i64::to_string).collect();
                let more = if addresses.len() > 8 { ", …" } else { "" };
                let _ = writeln!(
                    text,
                    "piece {} of {total}: {} literal addresses: {}{more}",
                    index + 1,
                    addresses.len(),
                    shown.join(", ")
                );
            }
        }
    }
    text
}

/// A C program that prints the modelled trace, one decimal address per line.
pub fn c_program(model: &Model) -> String {
    let mut text = String::from(
        "/* Generated by polyrust-prof trace --emit-c: prints the modelled trace,\n   \
         one decimal address per line. */\n\
         #include <inttypes.h>\n#include <stdint.h>\n#include <stdio.h>\n\n\
         static long long min_ll(long long a, long long b) { return a < b ? a : b; }\n\
         static long long max_ll(long long a, long long b) { return a > b ? a : b; }\n\n",
    );
    for (index, piece) in model.pieces.iter().enumerate() {
        if let Piece::Literal(addresses) = piece {
            let _ = writeln!(
                text,
                "static const uint64_t literal{index}[{}] = {{",
                addresses.len()
            );
            for chunk in addresses.chunks(4) {
                let values: Vec<String> = chunk.iter().map(|&a| u64_literal(a)).collect();
                let _ = writeln!(text, "  {},", values.join(", "));
            }
            text.push_str("};\n\n");
        }
    }
    text.push_str("int main(void) {\n  unsigned long long left;\n  (void)left;\n");
    for (index, piece) in model.pieces.iter().enumerate() {
        match piece {
            Piece::Nest(nest) => {
                let _ = writeln!(text, "  /* piece {}: loop nest */", index + 1);
                let _ = writeln!(text, "  left = {}ULL;", nest.count());
                let counters: Vec<String> = (0..nest.depth()).map(|j| format!("i{j}")).collect();
                let _ = writeln!(text, "  {{\n    long long {};", counters.join(", "));
                for level in 0..nest.depth() {
                    let uppers = face_bounds(nest.faces(level), level);
                    let upper = uppers
                        .iter()
                        .skip(1)
                        .fold(format!("({})", uppers[0]), |acc, b| {
                            format!("min_ll({acc}, ({b}))")
                        });
                    let lower = face_bounds(nest.lower_faces(level), level)
                        .iter()
                        .fold("0".to_string(), |acc, b| format!("max_ll({acc}, ({b}))"));
                    let _ = writeln!(
                        text,
                        "{:indent$}for (i{level} = {lower}; i{level} <= {upper}; i{level}++)",
                        "",
                        indent = 4 + 2 * level
                    );
                }
                let mut address = u64_literal(nest.base());
                for (j, &c) in nest.coeffs().iter().enumerate() {
                    if c != 0 {
                        let _ = write!(address, " + {} * (uint64_t)i{j}", u64_literal(c));
                    }
                }
                let indent = 4 + 2 * nest.depth();
                let _ = writeln!(
                    text,
                    "{:indent$}{{\n{:indent$}  printf(\"%\" PRId64 \"\\n\", (int64_t)({address}));\n\
                     {:indent$}  if (--left == 0) goto done{index};\n{:indent$}}}",
                    "", "", "", ""
                );
                let _ = writeln!(text, "  }}\n  done{index}:;");
            }
            Piece::Literal(addresses) => {
                let _ = writeln!(
                    text,
                    "  /* piece {}: literal */\n  for (unsigned long long x = 0; x < {}ULL; x++)\n    \
                     printf(\"%\" PRId64 \"\\n\", (int64_t)literal{index}[x]);",
                    index + 1,
                    addresses.len()
                );
            }
        }
    }
    text.push_str("  return 0;\n}\n");
    text
}
