//! Values, addresses, accesses and loops as the source names them, for remarks: the
//! variable names come from debug info (else from IR names that are not numbers),
//! subscripts are rebuilt from the address computation (`A[i][k + 1]`) or, where that
//! fails, from the ScalarEvolution expression of the address. The `describe_*`
//! functions add LLVM's own text when `-polyrust-debug-remarks` asks for it.

use std::ffi::CStr;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use super::host::{FunctionAnalyses, Loop, Scev, ScevKind};
use super::ir::{
    as_instruction, called_function_name, instruction_text, is_constant_int, memory_transfer,
    operand, pointer_operand,
};

/// Deepest nesting rendered: beyond it an expression is shown as `...`, so a remark
/// stays one readable line however tangled the IR is.
const MAX_DEPTH: usize = 6;

/// `text`, followed by LLVM's text under `-polyrust-debug-remarks`.
pub fn with_ir(fa: &FunctionAnalyses<'_>, text: String, ir: impl FnOnce() -> String) -> String {
    if fa.debug_remarks() {
        format!("{text} [IR: {}]", ir())
    } else {
        text
    }
}

/// An expression in source terms (`n * n`, `i + 1`).
pub fn describe_scev(fa: &FunctionAnalyses<'_>, scev: Scev<'_>) -> String {
    with_ir(fa, scev_sum(fa, scev, 0).text(), || scev.llvm_text())
}

/// A value in source terms.
pub fn describe_value(fa: &FunctionAnalyses<'_>, value: LLVMValueRef) -> String {
    with_ir(fa, value_sum(fa, value, 0).text(), || {
        fa.raw_operand_name(value)
    })
}

/// What an instruction does to memory, in source terms: `read of A[i][k + 1]`,
/// `write of *p`, `copy from B[i] to A[i]`, `call to f`.
pub fn describe_access(fa: &FunctionAnalyses<'_>, inst: InstructionValue<'_>) -> String {
    with_ir(fa, access_text(fa, inst), || instruction_text(inst))
}

/// `loop at line 12`, else `loop over i`, else the header block's name.
pub fn describe_loop(fa: &FunctionAnalyses<'_>, l: Loop<'_>) -> String {
    let text = match fa.loop_location(l).as_deref().and_then(line_of) {
        Some(line) => format!("loop at line {line}"),
        None => match counter(fa, l) {
            Some(c) => format!("loop over {}", c.name),
            None => format!("loop {}", l.header_name()),
        },
    };
    with_ir(fa, text, || l.header_name())
}

/// `branch at line 12`, else the name of its block.
pub fn describe_branch(fa: &FunctionAnalyses<'_>, block: BasicBlock<'_>) -> String {
    let line = block
        .get_terminator()
        .and_then(|t| fa.instruction_location(t))
        .as_deref()
        .and_then(line_of);
    let text = match line {
        Some(line) => format!("branch at line {line}"),
        None => format!("branch in {}", fa.block_name(block)),
    };
    with_ir(fa, text, || fa.block_name(block))
}

/// `code at line 12` (the block's first located instruction), else the block's name.
pub fn describe_block(fa: &FunctionAnalyses<'_>, block: BasicBlock<'_>) -> String {
    let line = block
        .get_instructions()
        .find_map(|i| fa.instruction_location(i).as_deref().and_then(line_of));
    let text = match line {
        Some(line) => format!("code at line {line}"),
        None => format!("block {}", fa.block_name(block)),
    };
    with_ir(fa, text, || fa.block_name(block))
}

/// `file:line` of a `file:line:col` location.
#[cfg(test)]
pub fn file_line(location: &str) -> String {
    let mut parts = location.rsplitn(2, ':');
    let _col = parts.next();
    parts.next().unwrap_or(location).to_string()
}

/// The file, line and column of a `file:line:col` location (as `loop_location` and
/// `instruction_location` give them).
pub fn split_location(location: &str) -> Option<(&str, u32, u32)> {
    let mut parts = location.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?, line, col))
}

/// The line of a `file:line:col` location.
fn line_of(location: &str) -> Option<u32> {
    split_location(location).map(|(_, line, _)| line)
}

pub fn access_text(fa: &FunctionAnalyses<'_>, inst: InstructionValue<'_>) -> String {
    let place = |p: LLVMValueRef| place(fa, p, 0).text();
    match inst.get_opcode() {
        InstructionOpcode::Load => match pointer_operand(inst) {
            Some(p) => format!("read of {}", place(p)),
            None => "read".into(),
        },
        InstructionOpcode::Store => match pointer_operand(inst) {
            Some(p) => format!("write of {}", place(p)),
            None => "write".into(),
        },
        InstructionOpcode::AtomicRMW | InstructionOpcode::AtomicCmpXchg => match operand(inst, 0) {
            Some(p) => format!("atomic update of {}", place(p)),
            None => "atomic update".into(),
        },
        InstructionOpcode::Fence => "fence".into(),
        InstructionOpcode::Alloca => match value_name(fa, inst.as_value_ref()) {
            Some(name) => format!("variable {name}"),
            None => "an unnamed variable".into(),
        },
        InstructionOpcode::Call | InstructionOpcode::Invoke => {
            match (memory_transfer(inst), called_function_name(inst)) {
                (Some((dst, Some(src), _)), _) => {
                    format!("copy from {} to {}", place(src), place(dst))
                }
                (Some((dst, None, _)), _) => format!("memset of {}", place(dst)),
                (None, Some(name)) => format!("call to {name}"),
                (None, None) => "indirect call".into(),
            }
        }
        InstructionOpcode::VAArg => "va_arg".into(),
        other => format!("{other:?} instruction").to_lowercase(),
    }
}

/// A sum of terms: what most subscripts and bounds are, kept as terms so that
/// `{8,+,8}<L>` over an 8-byte element reads `i + 1`, not `8 + 8 * i`.
#[derive(Clone, Debug, Default, PartialEq)]
struct Sum {
    /// (coefficient, rendered factor), in the order they first appear.
    terms: Vec<(i128, String)>,
    constant: i128,
}

impl Sum {
    fn atom(text: impl Into<String>) -> Sum {
        Sum {
            terms: vec![(1, text.into())],
            constant: 0,
        }
    }

    fn constant(value: i128) -> Sum {
        Sum {
            terms: Vec::new(),
            constant: value,
        }
    }

    fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    fn add(mut self, other: Sum) -> Sum {
        for (k, t) in other.terms {
            match self.terms.iter_mut().find(|(_, u)| *u == t) {
                Some((j, _)) => *j = j.saturating_add(k),
                None => self.terms.push((k, t)),
            }
        }
        self.terms.retain(|(k, _)| *k != 0);
        self.constant = self.constant.saturating_add(other.constant);
        self
    }

    fn scale(mut self, factor: i128) -> Sum {
        if factor == 0 {
            return Sum::constant(0);
        }
        for (k, _) in &mut self.terms {
            *k = k.saturating_mul(factor);
        }
        self.constant = self.constant.saturating_mul(factor);
        self
    }

    /// Divides every coefficient exactly, or says it cannot.
    fn divide(&self, divisor: i128) -> Option<Sum> {
        if divisor == 0
            || self.constant % divisor != 0
            || self.terms.iter().any(|(k, _)| k % divisor != 0)
        {
            return None;
        }
        Some(Sum {
            terms: self
                .terms
                .iter()
                .map(|(k, t)| (k / divisor, t.clone()))
                .collect(),
            constant: self.constant / divisor,
        })
    }

    fn text(&self) -> String {
        let mut out = String::new();
        for (k, t) in &self.terms {
            let magnitude = k.unsigned_abs();
            let factor = if magnitude == 1 {
                t.clone()
            } else if t.contains(' ') && !t.ends_with(')') {
                format!("{magnitude} * ({t})")
            } else {
                format!("{magnitude} * {t}")
            };
            match (out.is_empty(), *k < 0) {
                (true, false) => out.push_str(&factor),
                (true, true) => out.push_str(&format!("-{factor}")),
                (false, false) => out.push_str(&format!(" + {factor}")),
                (false, true) => out.push_str(&format!(" - {factor}")),
            }
        }
        match (out.is_empty(), self.constant) {
            (true, c) => c.to_string(),
            (false, 0) => out,
            (false, c) if c < 0 => format!("{out} - {}", c.unsigned_abs()),
            (false, c) => format!("{out} + {c}"),
        }
    }

    /// The text as one factor of a product.
    fn factor_text(&self) -> String {
        let text = self.text();
        if self.terms.len() + usize::from(self.constant != 0 && !self.terms.is_empty()) > 1
            || (self.terms.len() == 1 && self.terms[0].0 != 1)
        {
            format!("({text})")
        } else {
            text
        }
    }
}

/// The source name of the array or pointer an address is computed from (`A` for the
/// address of `A[i][j]`), through any address computations; `None` when unknown.
pub fn array_name(fa: &FunctionAnalyses<'_>, pointer: LLVMValueRef) -> Option<String> {
    let mut base = pointer;
    // Bounded: constant GEP expressions may nest, but not without end.
    for _ in 0..4 * MAX_DEPTH {
        if !is_gep(base) {
            break;
        }
        // SAFETY: a GEP has its base as operand 0.
        base = unsafe { c::LLVMGetOperand(base, 0) };
    }
    value_name(fa, base)
}

/// The source name of a loop's counter (`i`), when its header has a named phi that
/// steps by a constant.
pub fn counter_name(fa: &FunctionAnalyses<'_>, l: Loop<'_>) -> Option<String> {
    counter(fa, l).map(|c| c.name)
}

/// A loop's counter as the source names it: the header phi that has a name, with the
/// start and step of its recurrence.
struct Counter {
    name: String,
    start: i128,
    step: i128,
}

fn counter(fa: &FunctionAnalyses<'_>, l: Loop<'_>) -> Option<Counter> {
    let header = l.header();
    let mut inst = header.get_first_instruction();
    while let Some(phi) = inst.filter(|i| i.get_opcode() == InstructionOpcode::Phi) {
        inst = phi.get_next_instruction();
        let Some(name) = value_name(fa, phi.as_value_ref()) else {
            continue;
        };
        if !fa.is_scevable(&phi) {
            continue;
        }
        let scev = fa.scev(&phi);
        let ops = scev.operands();
        if scev.kind() != ScevKind::AddRec || scev.add_rec_loop() != Some(l) || ops.len() != 2 {
            continue;
        }
        if let (Some(start), Some(step)) = (ops[0].constant(), ops[1].constant()) {
            if step != 0 {
                return Some(Counter {
                    name,
                    start: start.into(),
                    step: step.into(),
                });
            }
        }
    }
    None
}

/// The name a user knows a value by: its source variable, else its IR name when that
/// is a word (hand-written IR, or clang with -fno-discard-value-names).
fn value_name(fa: &FunctionAnalyses<'_>, value: LLVMValueRef) -> Option<String> {
    if let Some(name) = fa.source_name(value) {
        return Some(name);
    }
    let mut len = 0usize;
    // SAFETY: LLVMGetValueName2 returns the value's own name (never null) and its length.
    let name = unsafe {
        let raw = c::LLVMGetValueName2(value, &mut len);
        if raw.is_null() {
            return None;
        }
        CStr::from_ptr(raw).to_string_lossy().into_owned()
    };
    let word = name
        .chars()
        .next()
        .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_');
    // `indvars.iv`, `arrayidx5`: LLVM's own names say nothing about the source.
    let generated = [
        "indvars", "arrayidx", "idxprom", "add", "mul", "sub", "conv", "tmp",
    ]
    .iter()
    .any(|p| name.starts_with(p) && name.len() > p.len());
    (word && !generated).then_some(name)
}

fn scev_sum(fa: &FunctionAnalyses<'_>, scev: Scev<'_>, depth: usize) -> Sum {
    if depth > MAX_DEPTH {
        return Sum::atom("...");
    }
    let ops = scev.operands();
    let rendered = |op: &Scev<'_>| scev_sum(fa, *op, depth + 1);
    let list = |name: &str| {
        let parts: Vec<String> = ops.iter().map(|o| rendered(o).text()).collect();
        Sum::atom(format!("{name}({})", parts.join(", ")))
    };
    match scev.kind() {
        ScevKind::Constant if scev.bit_width() == Some(1) => {
            Sum::atom(if scev.constant() == Some(0) {
                "false"
            } else {
                "true"
            })
        }
        ScevKind::Constant => scev
            .constant()
            .map_or_else(|| Sum::atom(scev.llvm_text()), |k| Sum::constant(k.into())),
        ScevKind::Truncate | ScevKind::ZeroExtend | ScevKind::SignExtend | ScevKind::PtrToInt => {
            ops.first().map_or_else(|| Sum::atom("?"), rendered)
        }
        ScevKind::Add => ops
            .iter()
            .fold(Sum::constant(0), |acc, op| acc.add(rendered(op))),
        ScevKind::Mul => product(ops.iter().map(rendered)),
        ScevKind::UDiv if ops.len() == 2 => Sum::atom(format!(
            "{} / {}",
            rendered(&ops[0]).factor_text(),
            rendered(&ops[1]).factor_text()
        )),
        ScevKind::SMax | ScevKind::UMax => list("max"),
        ScevKind::SMin | ScevKind::UMin | ScevKind::SequentialUMin => list("min"),
        // `j % 2 == 0` can become the i1 recurrence {true,+,true}: as a sum it would read
        // `-i - 1`, which is true of the bits but not of what the source says.
        ScevKind::AddRec if scev.bit_width() == Some(1) => {
            Sum::atom("a condition that alternates between iterations")
        }
        ScevKind::AddRec if ops.len() == 2 => add_rec(fa, scev, &ops, depth),
        // `{0,+,1,+,2}` is `i * i`: which product it was is lost, its degree is not.
        ScevKind::AddRec => {
            let iteration = scev
                .add_rec_loop()
                .map_or_else(|| "a loop counter".into(), |l| iteration_name(fa, l));
            Sum::atom(format!(
                "a polynomial of degree {} in {iteration}",
                ops.len() - 1
            ))
        }
        ScevKind::Unknown => match scev.unknown_value() {
            Some(v) => value_sum(fa, v, depth + 1),
            None => Sum::atom("?"),
        },
        ScevKind::VScale => Sum::atom("vscale"),
        ScevKind::CouldNotCompute => Sum::atom("an unknown value"),
        _ => Sum::atom(scev.llvm_text()),
    }
}

/// A product: constant factors scale, the others multiply as one factor.
fn product(factors: impl Iterator<Item = Sum>) -> Sum {
    let mut constant: i128 = 1;
    let mut others = Vec::new();
    for f in factors {
        match (f.as_constant(), f.terms.as_slice()) {
            (Some(k), _) => constant = constant.saturating_mul(k),
            // `(8 * n) * i` reads `8 * n * i`.
            (None, [(k, t)]) if f.constant == 0 => {
                constant = constant.saturating_mul(*k);
                others.push(Sum::atom(t.clone()));
            }
            _ => others.push(f),
        }
    }
    match others.len() {
        0 => Sum::constant(constant),
        1 => others.remove(0).scale(constant),
        _ => {
            let parts: Vec<String> = others.iter().map(Sum::factor_text).collect();
            Sum::atom(parts.join(" * ")).scale(constant)
        }
    }
}

/// `{start,+,step}<L>` in terms of L's counter: with the counter `k` starting at `s`
/// and stepping by `t`, the recurrence is `start + step/t * (k - s)`.
fn add_rec(fa: &FunctionAnalyses<'_>, scev: Scev<'_>, ops: &[Scev<'_>], depth: usize) -> Sum {
    let start = scev_sum(fa, ops[0], depth + 1);
    let step = scev_sum(fa, ops[1], depth + 1);
    let Some(l) = scev.add_rec_loop() else {
        return Sum::atom(scev.llvm_text());
    };
    if let (Some(c), Some(k)) = (counter(fa, l), step.as_constant()) {
        if k % c.step == 0 {
            let times = k / c.step;
            return start
                .add(Sum::atom(c.name.clone()).scale(times))
                .add(Sum::constant(-times.saturating_mul(c.start)));
        }
    }
    let iteration = iteration_name(fa, l);
    let term = match step.as_constant() {
        Some(k) => Sum::atom(iteration).scale(k),
        None => Sum::atom(format!("{} * {iteration}", step.factor_text())),
    };
    start.add(term)
}

/// The iteration number of `l`, named after its counter when that counts from 0 by 1.
fn iteration_name(fa: &FunctionAnalyses<'_>, l: Loop<'_>) -> String {
    match counter(fa, l) {
        Some(c) if c.start == 0 && c.step == 1 => c.name,
        // Not `i1`: that reads as LLVM's type in messages about wrapping in `i1`.
        _ => format!("it{}", l.depth().saturating_sub(1)),
    }
}

fn value_sum(fa: &FunctionAnalyses<'_>, value: LLVMValueRef, depth: usize) -> Sum {
    if let Some(k) = is_constant_int(value) {
        return Sum::constant(k.into());
    }
    if let Some(name) = value_name(fa, value) {
        return Sum::atom(name);
    }
    if depth > MAX_DEPTH {
        return Sum::atom("...");
    }
    let Some(inst) = as_instruction(value) else {
        return Sum::atom(fa.raw_operand_name(value));
    };
    match inst.get_opcode() {
        InstructionOpcode::Add
        | InstructionOpcode::Sub
        | InstructionOpcode::Mul
        | InstructionOpcode::Shl
        | InstructionOpcode::SDiv
        | InstructionOpcode::UDiv
        | InstructionOpcode::SRem
        | InstructionOpcode::URem
        | InstructionOpcode::AShr
        | InstructionOpcode::LShr
        | InstructionOpcode::And
        | InstructionOpcode::Or
        | InstructionOpcode::Xor => arithmetic_sum(fa, inst, depth),
        InstructionOpcode::SExt
        | InstructionOpcode::ZExt
        | InstructionOpcode::Trunc
        | InstructionOpcode::SIToFP
        | InstructionOpcode::UIToFP
        | InstructionOpcode::FPExt
        | InstructionOpcode::FPTrunc
        | InstructionOpcode::Freeze => operand(inst, 0)
            .map(|v| value_sum(fa, v, depth + 1))
            .unwrap_or_else(|| Sum::atom("?")),
        InstructionOpcode::Load => match pointer_operand(inst) {
            Some(p) => Sum::atom(place(fa, p, depth + 1).text()),
            None => Sum::atom(fa.raw_operand_name(value)),
        },
        InstructionOpcode::GetElementPtr => {
            Sum::atom(format!("&{}", place(fa, value, depth + 1).text()))
        }
        InstructionOpcode::Call => match called_function_name(inst) {
            Some(name) => Sum::atom(format!("{name}(...)")),
            None => Sum::atom(fa.raw_operand_name(value)),
        },
        // Counters and selects read best as their recurrence or min/max.
        _ if fa.is_scevable(&inst) => {
            let scev = fa.scev(&inst);
            if scev.kind() == ScevKind::Unknown {
                Sum::atom(fa.raw_operand_name(value))
            } else {
                scev_sum(fa, scev, depth + 1)
            }
        }
        _ => Sum::atom(fa.raw_operand_name(value)),
    }
}

/// An integer operation as a sum: additions, subtractions, products and shifts left by
/// a constant as terms; other operations as one atom in C's notation.
fn arithmetic_sum(fa: &FunctionAnalyses<'_>, inst: InstructionValue<'_>, depth: usize) -> Sum {
    let value = inst.as_value_ref();
    let op = |i: u32| operand(inst, i).map(|v| value_sum(fa, v, depth + 1));
    let binary = |symbol: &str| match (op(0), op(1)) {
        (Some(a), Some(b)) => {
            Sum::atom(format!("{} {symbol} {}", a.factor_text(), b.factor_text()))
        }
        _ => Sum::atom(fa.raw_operand_name(value)),
    };
    match inst.get_opcode() {
        InstructionOpcode::Add => match (op(0), op(1)) {
            (Some(a), Some(b)) => a.add(b),
            _ => Sum::atom(fa.raw_operand_name(value)),
        },
        InstructionOpcode::Sub => match (op(0), op(1)) {
            (Some(a), Some(b)) => a.add(b.scale(-1)),
            _ => Sum::atom(fa.raw_operand_name(value)),
        },
        InstructionOpcode::Mul => match (op(0), op(1)) {
            (Some(a), Some(b)) => product([a, b].into_iter()),
            _ => Sum::atom(fa.raw_operand_name(value)),
        },
        InstructionOpcode::Shl => match (op(0), operand(inst, 1).and_then(is_constant_int)) {
            (Some(a), Some(bits)) if (0..62).contains(&bits) => a.scale(1 << bits),
            _ => binary("<<"),
        },
        InstructionOpcode::SDiv | InstructionOpcode::UDiv => binary("/"),
        InstructionOpcode::SRem | InstructionOpcode::URem => binary("%"),
        // `(x << 32) >> 32` is how LLVM sign-extends the low half of x: it is x.
        InstructionOpcode::AShr | InstructionOpcode::LShr => {
            let shifted = operand(inst, 0)
                .and_then(as_instruction)
                .filter(|s| s.get_opcode() == InstructionOpcode::Shl)
                .filter(|s| {
                    let amount = |i: InstructionValue<'_>| operand(i, 1).and_then(is_constant_int);
                    amount(*s).is_some() && amount(*s) == amount(inst)
                });
            match shifted.and_then(|s| operand(s, 0)) {
                Some(x) => value_sum(fa, x, depth + 1),
                None => binary(">>"),
            }
        }
        InstructionOpcode::And => binary("&"),
        InstructionOpcode::Or => binary("|"),
        _ => binary("^"),
    }
}

/// An address as an array element: the base's name and the subscripts, with the size
/// in bytes of what the last subscript steps over (to fold byte offsets into it).
struct Place {
    base: String,
    subscripts: Vec<Sum>,
    step: Option<u64>,
    /// `base` already says where (`C at byte 8 * n`): no `*` in front.
    described: bool,
}

impl Place {
    /// The place a name says, with no subscripts.
    fn named(base: String) -> Place {
        Place {
            base,
            subscripts: Vec::new(),
            step: None,
            described: false,
        }
    }

    /// A place described in words.
    fn described(base: String) -> Place {
        Place {
            described: true,
            ..Place::named(base)
        }
    }

    fn text(&self) -> String {
        if self.subscripts.is_empty() {
            return if self.described {
                self.base.clone()
            } else {
                format!("*{}", self.base)
            };
        }
        let mut out = self.base.clone();
        for s in &self.subscripts {
            out.push('[');
            out.push_str(&s.text());
            out.push(']');
        }
        out
    }

    fn add_to_last(&mut self, offset: Sum) {
        if let Some(last) = self.subscripts.pop() {
            self.subscripts.push(last.add(offset));
        }
    }
}

fn place(fa: &FunctionAnalyses<'_>, pointer: LLVMValueRef, depth: usize) -> Place {
    if let Some(name) = value_name(fa, pointer) {
        return Place::named(name);
    }
    if fa.raw_operand_name(pointer).starts_with("@.str") {
        return Place::described("a string literal".into());
    }
    if !is_gep(pointer) || depth > MAX_DEPTH {
        return Place::named(value_sum(fa, pointer, depth + 1).factor_text());
    }
    gep_place(fa, pointer, depth)
}

/// The place a GEP points at: its base's, with the GEP's indices as subscripts (or a
/// byte offset folded into the last one).
fn gep_place(fa: &FunctionAnalyses<'_>, pointer: LLVMValueRef, depth: usize) -> Place {
    // SAFETY: a GEP (instruction or constant expression) has a source element type,
    // its base as operand 0 and at least one index.
    let (base, source, count) = unsafe {
        (
            c::LLVMGetOperand(pointer, 0),
            c::LLVMGetGEPSourceElementType(pointer),
            c::LLVMGetNumOperands(pointer).max(1) as u32,
        )
    };
    let mut p = place(fa, base, depth + 1);
    if p.subscripts.is_empty() && !p.described {
        // A global or stack array: subscripts step over its elements.
        p.step = array_element_type(base).and_then(|t| fa.type_store_size_raw(t));
        if p.step.is_some() && is_byte_type(source) {
            p.subscripts.push(Sum::constant(0));
        }
    }
    let size = fa.type_store_size_raw(source);
    let index = |i: u32| {
        // SAFETY: `i` stays below the operand count.
        let v = unsafe { c::LLVMGetOperand(pointer, i) };
        (i < count && !v.is_null()).then(|| value_sum(fa, v, depth + 1))
    };
    let Some(first) = index(1) else {
        return p;
    };
    if is_byte_type(source) {
        // `gep i8, p, 8` on a row of doubles: one element further.
        match p.step.and_then(|s| first.divide(i128::from(s))) {
            Some(elements) if !p.subscripts.is_empty() => p.add_to_last(elements),
            _ => {
                // `A[0]` and `A` are the same address: say the simpler.
                let at = if p.subscripts == [Sum::constant(0)] {
                    p.base.clone()
                } else {
                    p.text()
                };
                let at = at.strip_prefix('*').unwrap_or(&at);
                return Place::described(format!("{at} at byte {}", first.text()));
            }
        }
    } else if p.step.is_some() && p.step == size && !p.subscripts.is_empty() {
        p.add_to_last(first);
    } else if !(first.as_constant() == Some(0) && count > 2) {
        p.subscripts.push(first);
        p.step = size;
    }
    let mut ty = source;
    for i in 2..count {
        // SAFETY: type queries on the GEP's own source type.
        let (kind, element) = unsafe { (c::LLVMGetTypeKind(ty), element_type(ty)) };
        match (kind, index(i)) {
            (LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind, Some(s)) => {
                p.subscripts.push(s);
                ty = element;
                p.step = fa.type_store_size_raw(ty);
            }
            (LLVMTypeKind::LLVMStructTypeKind, Some(field)) => {
                let field = field.as_constant().unwrap_or(0);
                p = Place::named(format!("{}.field{field}", p.text().trim_start_matches('*')));
                // SAFETY: the field index of a valid GEP is in range.
                ty = unsafe { c::LLVMStructGetTypeAtIndex(ty, field as u32) };
            }
            _ => break,
        }
    }
    p
}

/// Whether a pointer is computed by a GEP instruction or a constant GEP expression.
fn is_gep(value: LLVMValueRef) -> bool {
    if let Some(i) = as_instruction(value) {
        return i.get_opcode() == InstructionOpcode::GetElementPtr;
    }
    // SAFETY: LLVMIsAConstantExpr answers null for other values.
    unsafe {
        !c::LLVMIsAConstantExpr(value).is_null()
            && c::LLVMGetConstOpcode(value) == inkwell::llvm_sys::LLVMOpcode::LLVMGetElementPtr
    }
}

/// The element type of a global or stack array (`int g[3]`: `i32`).
fn array_element_type(base: LLVMValueRef) -> Option<LLVMTypeRef> {
    // SAFETY: type queries on a live global or alloca.
    unsafe {
        let ty = if !c::LLVMIsAGlobalVariable(base).is_null() {
            c::LLVMGlobalGetValueType(base)
        } else if !c::LLVMIsAAllocaInst(base).is_null() {
            c::LLVMGetAllocatedType(base)
        } else {
            return None;
        };
        (c::LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMArrayTypeKind)
            .then(|| c::LLVMGetElementType(ty))
    }
}

fn is_byte_type(ty: LLVMTypeRef) -> bool {
    // SAFETY: type queries on a live type.
    unsafe {
        c::LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMIntegerTypeKind
            && c::LLVMGetIntTypeWidth(ty) == 8
    }
}

/// The element type of an array or vector type (the type itself otherwise).
unsafe fn element_type(ty: LLVMTypeRef) -> LLVMTypeRef {
    match c::LLVMGetTypeKind(ty) {
        LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
            c::LLVMGetElementType(ty)
        }
        _ => ty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(terms: &[(i128, &str)], constant: i128) -> Sum {
        Sum {
            terms: terms.iter().map(|(k, t)| (*k, t.to_string())).collect(),
            constant,
        }
    }

    #[test]
    fn sums_read_like_source_subscripts() {
        assert_eq!(sum(&[(1, "i")], 1).text(), "i + 1");
        assert_eq!(sum(&[(1, "i"), (-2, "j")], -3).text(), "i - 2 * j - 3");
        assert_eq!(sum(&[(-1, "k")], 0).text(), "-k");
        assert_eq!(sum(&[], 0).text(), "0");
        assert_eq!(sum(&[(3, "n / 2")], 0).text(), "3 * (n / 2)");
    }

    #[test]
    fn equal_terms_merge_and_cancel() {
        let a = sum(&[(1, "i"), (1, "j")], 4);
        let b = sum(&[(-1, "i")], -4);
        assert_eq!(a.add(b).text(), "j");
    }

    #[test]
    fn byte_offsets_divide_into_elements_only_exactly() {
        assert_eq!(
            sum(&[(8, "i")], 16).divide(8).map(|s| s.text()),
            Some("i + 2".into())
        );
        assert_eq!(sum(&[(8, "i")], 4).divide(8), None);
        assert_eq!(sum(&[(1, "i")], 0).divide(0), None);
    }

    #[test]
    fn products_of_sums_are_parenthesized() {
        let p = product([sum(&[(1, "i")], 1), sum(&[(1, "n")], 0)].into_iter());
        assert_eq!(p.text(), "(i + 1) * n");
        let scaled = product([Sum::constant(4), sum(&[(1, "i")], 0)].into_iter());
        assert_eq!(scaled.text(), "4 * i");
    }

    #[test]
    fn file_line_drops_the_column() {
        assert_eq!(file_line("bt.c:97:12"), "bt.c:97");
        assert_eq!(line_of("dir/bt.c:97:12"), Some(97));
    }

    #[test]
    fn locations_split_into_file_line_and_column() {
        assert_eq!(split_location("dir/bt.c:97:12"), Some(("dir/bt.c", 97, 12)));
        assert_eq!(split_location("C:/x.c:3:1"), Some(("C:/x.c", 3, 1)));
        assert_eq!(split_location("x.c:3"), None);
    }
}
