//! SCEV → quasi-affine expressions over the region's loop counters and parameters.
//! An add recurrence of a region loop becomes `start + step * counter`; a value fixed
//! while the region runs (an argument, a value computed before it, the counter of an
//! enclosing loop outside it) becomes a parameter. Casts and unsigned operations are
//! accepted where their value provably equals the mathematical one, or under an
//! assumption that is recorded for the run-time check.
//!
//! Under profile-guided speculation some region-invariant values are taken to be
//! constants (the run-time check compares them); the translator also notes the
//! region-invariant values whose products with counters or with each other made an
//! expression non-affine, which are what speculation could fix.
//!
//! Branch conditions (`condition`) and offsets in rows of a parametric-size array
//! (`rows`) are translated in files of their own.

pub mod condition;
mod rows;

use std::cell::RefCell;

use super::affine::{Affine, Atom, CmpOp, Cond};
use super::region::RegionShape;
use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::llvm::ir::{
    accessed_value, as_instruction, basic_value, int_width, memory_transfer, pointer_operand,
};
use crate::llvm::source_terms::describe_scev;
use crate::llvm::LLVMValueRef;
use crate::llvm::{AliasResult, FunctionAnalyses, Loop, Scev, ScevKind};

/// A region-invariant value used as a symbolic constant.
pub struct Param<'f> {
    pub name: String,
    pub value: ParamValue<'f>,
    /// Bit width of its type, for the context.
    pub bits: u32,
}

/// What a parameter stands for, so code generation can compute it at the region entry.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ParamValue<'f> {
    /// An expression ScalarEvolution can expand before the region.
    Scev(Scev<'f>),
    /// The iteration number of an enclosing loop outside the region.
    OuterCounter(Loop<'f>),
    /// A load inside the region that no store of the region can change: its value is
    /// the same in every iteration, so it can be loaded once before the region.
    InvariantLoad(InstructionValue<'f>),
}

/// The values a phi or select merges, each with the condition under which it is the
/// one (`None` for the last: when no other is).
pub type Merged<'f> = Vec<(Option<Cond>, Scev<'f>)>;

/// A condition the translation relies on, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assumed {
    pub cond: Cond,
    pub reason: String,
}

pub struct Translator<'a, 'f> {
    fa: &'a FunctionAnalyses<'f>,
    shape: &'a RegionShape<'f>,
    params: RefCell<Vec<Param<'f>>>,
    assumed: RefCell<Vec<Assumed>>,
    invariant_loads: RefCell<Vec<InstructionValue<'f>>>,
    /// Values taken to be constants, with their constants.
    speculated: &'a [(LLVMValueRef, i64)],
    /// The speculated values a translation relied on, in order of first use.
    used_speculation: RefCell<Vec<LLVMValueRef>>,
    /// Region-invariant values that made an expression non-affine.
    offending: RefCell<Vec<LLVMValueRef>>,
}

impl<'a, 'f> Translator<'a, 'f> {
    /// A translator that takes each value of `speculated` to be its constant.
    pub fn speculating(
        fa: &'a FunctionAnalyses<'f>,
        shape: &'a RegionShape<'f>,
        speculated: &'a [(LLVMValueRef, i64)],
    ) -> Self {
        Translator {
            fa,
            shape,
            params: RefCell::new(Vec::new()),
            assumed: RefCell::new(Vec::new()),
            invariant_loads: RefCell::new(Vec::new()),
            speculated,
            used_speculation: RefCell::new(Vec::new()),
            offending: RefCell::new(Vec::new()),
        }
    }

    /// The speculated values the translations relied on, with their constants.
    pub fn used_speculation(&self) -> Vec<(LLVMValueRef, i64)> {
        self.used_speculation
            .borrow()
            .iter()
            .filter_map(|v| self.speculated.iter().find(|(s, _)| s == v).copied())
            .collect()
    }

    /// Region-invariant values whose products made some expression non-affine.
    pub fn offending(&self) -> Vec<LLVMValueRef> {
        self.offending.borrow().clone()
    }

    /// `scev` with the speculated values replaced by their constants, so that
    /// delinearization sees `i * sa0 + k` rather than `i * sa0 + k * sa1`; the values
    /// replaced count as relied on.
    pub fn speculated_scev(&self, scev: Scev<'f>) -> Scev<'f> {
        if self.speculated.is_empty() {
            return scev;
        }
        let mut found = Vec::new();
        if !self.speculated_in(scev, &mut found, 0) {
            // Too deep to tell which were replaced: the check compares them all.
            found = self.speculated.iter().map(|(v, _)| *v).collect();
        }
        if found.is_empty() {
            return scev;
        }
        let mut used = self.used_speculation.borrow_mut();
        for value in found {
            if !used.contains(&value) {
                used.push(value);
            }
        }
        self.fa.scev_substitute(scev, self.speculated)
    }

    /// The arm of `select cond, a, b` the speculated constant of `cond` picks (noting
    /// that the translation relied on it), if `inst` is such a select.
    fn speculated_select(&self, inst: InstructionValue<'f>) -> Option<LLVMValueRef> {
        if inst.get_opcode() != InstructionOpcode::Select || self.speculated.is_empty() {
            return None;
        }
        let cond = crate::llvm::ir::operand(inst, 0)?;
        let (_, constant) = self.speculated.iter().find(|(v, _)| *v == cond)?;
        let chosen = crate::llvm::ir::operand(inst, if *constant != 0 { 1 } else { 2 })?;
        let mut used = self.used_speculation.borrow_mut();
        if !used.contains(&cond) {
            used.push(cond);
        }
        Some(chosen)
    }

    /// Adds the speculated values in `scev` to `found`; false when the expression was
    /// too deep to walk whole.
    fn speculated_in(&self, scev: Scev<'f>, found: &mut Vec<LLVMValueRef>, depth: u32) -> bool {
        if depth > 32 {
            return false;
        }
        if let Some(value) = scev
            .unknown_value()
            .filter(|_| scev.kind() == ScevKind::Unknown)
        {
            if self.speculated.iter().any(|(v, _)| *v == value) && !found.contains(&value) {
                found.push(value);
            }
            return true;
        }
        scev.operands()
            .into_iter()
            .all(|op| self.speculated_in(op, found, depth + 1))
    }

    /// Notes, without translating `scev`, the values of its products of non-constants
    /// and of its recurrences' non-constant steps (a step is itself such a product).
    fn note_non_affine(&self, scev: Scev<'f>, depth: u32) {
        if depth > 16 {
            return;
        }
        let ops = scev.operands();
        let variable = |s: &Scev<'f>| s.kind() != ScevKind::Constant;
        match scev.kind() {
            ScevKind::Mul if ops.iter().filter(|o| variable(o)).count() > 1 => {
                self.note_offending(scev, 0)
            }
            ScevKind::AddRec if ops.len() == 2 && variable(&ops[1]) => {
                self.note_offending(ops[1], 0);
                self.note_non_affine(ops[0], depth + 1);
            }
            _ => {
                for op in ops {
                    self.note_non_affine(op, depth + 1);
                }
            }
        }
    }

    /// Notes the region-invariant integer values `scev` is built from.
    fn note_offending(&self, scev: Scev<'f>, depth: u32) {
        if depth > 16 {
            return;
        }
        match scev.kind() {
            ScevKind::Unknown => {
                let Some(value) = scev.unknown_value() else {
                    return;
                };
                let inside = as_instruction(value)
                    .and_then(|i| i.get_parent())
                    .is_some_and(|b| self.shape.contains_block(b));
                let mut offending = self.offending.borrow_mut();
                if !inside && int_width(value).is_some() && !offending.contains(&value) {
                    offending.push(value);
                }
            }
            _ => {
                for op in scev.operands() {
                    self.note_offending(op, depth + 1);
                }
            }
        }
    }

    pub fn fa(&self) -> &'a FunctionAnalyses<'f> {
        self.fa
    }

    pub fn shape(&self) -> &'a RegionShape<'f> {
        self.shape
    }

    pub fn into_params(self) -> Vec<Param<'f>> {
        self.params.into_inner()
    }

    /// Assumptions recorded since the last call.
    pub fn take_assumed(&self) -> Vec<Assumed> {
        std::mem::take(&mut self.assumed.borrow_mut())
    }

    /// Translates a SCEV; the error says which part is not affine.
    pub fn affine(&self, scev: Scev<'f>) -> Result<Affine, String> {
        let ops = scev.operands();
        match scev.kind() {
            ScevKind::Constant => match scev.constant() {
                Some(c) => Ok(Affine::constant(c as i128)),
                None => self.not_affine(scev),
            },
            ScevKind::Add => self.affine_sum(&ops),
            ScevKind::Mul => self.affine_product(scev, ops),
            ScevKind::AddRec => self.affine_recurrence(scev, &ops),
            ScevKind::SMax | ScevKind::SMin => {
                let list = ops
                    .into_iter()
                    .map(|o| self.affine(o))
                    .collect::<Result<_, _>>()?;
                Ok(Affine::atom(if scev.kind() == ScevKind::SMax {
                    Atom::Max(list)
                } else {
                    Atom::Min(list)
                }))
            }
            ScevKind::UMax | ScevKind::UMin => self.affine_unsigned_extremum(scev, ops),
            ScevKind::UDiv => self.affine_quotient(scev, &ops),
            ScevKind::SignExtend | ScevKind::ZeroExtend => {
                let signed = scev.kind() == ScevKind::SignExtend;
                self.extension(ops[0], signed)
            }
            ScevKind::Unknown => self.affine_unknown(scev),
            ScevKind::Truncate => self.affine_truncation(scev, ops[0]),
            ScevKind::PtrToInt
            | ScevKind::VScale
            | ScevKind::SequentialUMin
            | ScevKind::CouldNotCompute => self.not_affine(scev),
        }
    }

    fn not_affine<T>(&self, scev: Scev<'f>) -> Result<T, String> {
        Err(format!("{} is not affine", describe_scev(self.fa, scev)))
    }

    fn affine_sum(&self, ops: &[Scev<'f>]) -> Result<Affine, String> {
        let mut sum = Affine::constant(0);
        for (i, op) in ops.iter().enumerate() {
            match self.affine(*op) {
                Ok(term) => sum = sum.add(&term).ok_or("overflow")?,
                Err(e) => {
                    // The other terms' offending values too, without translating
                    // them (which would register parameters and assumptions).
                    for rest in &ops[i + 1..] {
                        self.note_non_affine(*rest, 0);
                    }
                    return Err(e);
                }
            }
        }
        Ok(sum)
    }

    /// A product with at most one factor that is not a constant.
    fn affine_product(&self, scev: Scev<'f>, ops: Vec<Scev<'f>>) -> Result<Affine, String> {
        let mut factor: i128 = 1;
        let mut rest: Option<Affine> = None;
        for op in ops {
            let a = self.affine(op)?;
            match a.as_constant() {
                Some(c) => factor = factor.checked_mul(c).ok_or("overflow")?,
                None if rest.is_none() => rest = Some(a),
                None => {
                    self.note_offending(scev, 0);
                    return self.not_affine(scev);
                }
            }
        }
        match rest {
            Some(r) => r.scale(factor).ok_or_else(|| "overflow".into()),
            None => Ok(Affine::constant(factor)),
        }
    }

    /// `start + step * counter`, for a constant step.
    fn affine_recurrence(&self, scev: Scev<'f>, ops: &[Scev<'f>]) -> Result<Affine, String> {
        let Some(l) = scev.add_rec_loop() else {
            return self.not_affine(scev);
        };
        if ops.len() != 2 {
            return self.not_affine(scev);
        }
        let start = match self.affine(ops[0]) {
            Ok(start) => start,
            Err(e) => {
                // A non-constant step is offending whatever the start.
                if ops[1].kind() != ScevKind::Constant {
                    self.note_offending(ops[1], 0);
                }
                return Err(e);
            }
        };
        let Some(step) = self.affine(ops[1])?.as_constant() else {
            self.note_offending(ops[1], 0);
            return self.not_affine(scev);
        };
        start
            .add(&self.counter(l).scale(step).ok_or("overflow")?)
            .ok_or_else(|| "overflow".into())
    }

    /// The counter of loop `l`: a loop outside the region is one fixed iteration while
    /// the region runs, so its counter is a parameter.
    fn counter(&self, l: Loop<'f>) -> Affine {
        if self.shape.contains_loop(l) {
            Affine::counter(self.shape.relative_depth(l))
        } else {
            self.param(ParamValue::OuterCounter(l), 64)
        }
    }

    /// Unsigned order equals signed order on non-negative values.
    fn affine_unsigned_extremum(
        &self,
        scev: Scev<'f>,
        ops: Vec<Scev<'f>>,
    ) -> Result<Affine, String> {
        let mut list = Vec::new();
        for op in ops {
            let a = self.affine(op)?;
            if !self.fa.known_non_negative(op) {
                self.assume(
                    Cond::Cmp(a.clone(), CmpOp::Ge, Affine::constant(0)),
                    format!(
                        "{} is not negative (unsigned min/max)",
                        describe_scev(self.fa, op)
                    ),
                );
            }
            list.push(a);
        }
        Ok(Affine::atom(if scev.kind() == ScevKind::UMax {
            Atom::Max(list)
        } else {
            Atom::Min(list)
        }))
    }

    /// An unsigned division by a positive constant.
    fn affine_quotient(&self, scev: Scev<'f>, ops: &[Scev<'f>]) -> Result<Affine, String> {
        let Some(d) = self.affine(ops[1])?.as_constant().filter(|d| *d > 0) else {
            self.note_offending(ops[1], 0);
            return self.not_affine(scev);
        };
        let numerator = self.affine(ops[0])?;
        if !self.fa.known_non_negative(ops[0]) {
            self.assume(
                Cond::Cmp(numerator.clone(), CmpOp::Ge, Affine::constant(0)),
                format!(
                    "{} is not negative (unsigned division)",
                    describe_scev(self.fa, ops[0])
                ),
            );
        }
        Ok(match numerator.divide_exact(d) {
            Some(q) => q,
            None => Affine::atom(Atom::FloorDiv(Box::new(numerator), d)),
        })
    }

    /// The truncated bits are lost; where the value fits in the range that reads the
    /// same signed and unsigned, nothing was lost.
    fn affine_truncation(&self, scev: Scev<'f>, inner: Scev<'f>) -> Result<Affine, String> {
        let a = self.affine(inner)?;
        let bits = scev.bit_width().unwrap_or(64).clamp(1, 127);
        self.assume(
            Cond::Cmp(a.clone(), CmpOp::Ge, Affine::constant(0)).and(Cond::Cmp(
                a.clone(),
                CmpOp::Lt,
                Affine::constant(1i128 << (bits - 1)),
            )),
            format!(
                "{} fits in i{bits} (truncation)",
                describe_scev(self.fa, inner)
            ),
        );
        Ok(a)
    }

    /// A value ScalarEvolution does not see into: a speculated constant, the arm of a
    /// speculated select, a phi or select of affine values, an invariant load, or a
    /// value fixed while the region runs (a parameter).
    fn affine_unknown(&self, scev: Scev<'f>) -> Result<Affine, String> {
        let Some(value) = scev.unknown_value() else {
            return self.not_affine(scev);
        };
        let inst = as_instruction(value);
        let inside = inst
            .and_then(|i| i.get_parent())
            .is_some_and(|b| self.shape.contains_block(b));
        if int_width(value).is_none() {
            return self.not_affine(scev);
        }
        if let Some((_, constant)) = self.speculated.iter().find(|(v, _)| *v == value) {
            let mut used = self.used_speculation.borrow_mut();
            if !used.contains(&value) {
                used.push(value);
            }
            return Ok(Affine::constant(i128::from(*constant)));
        }
        // `select ok, p, v` with `ok` speculated: the arm the check picks (the
        // folded-profile speculation of a loaded bound, `speculate::bounds`,
        // puts the value loaded before the nest in the true arm).
        if let Some(chosen) = inst.and_then(|i| self.speculated_select(i)) {
            return self.affine(self.fa.scev(&basic_value(chosen)));
        }
        // A phi of one expression on every path (`h - 2` computed on both sides
        // of a jump-threaded guard) is that expression.
        if let Some(same) = inst.and_then(|i| self.same_on_every_path(i)) {
            return self.affine(same);
        }
        if let Some(merged) = inst.and_then(|i| self.guard_phi(i)) {
            return self.affine_merge(merged?);
        }
        if inside {
            return match inst.filter(|i| self.invariant_load(*i)) {
                Some(load) => {
                    self.invariant_loads.borrow_mut().push(load);
                    Ok(self.param(
                        ParamValue::InvariantLoad(load),
                        scev.bit_width().unwrap_or(64),
                    ))
                }
                None => Err(format!(
                    "{} is computed inside the loop nest",
                    describe_scev(self.fa, scev)
                )),
            };
        }
        Ok(self.param(ParamValue::Scev(scev), scev.bit_width().unwrap_or(64)))
    }

    /// The values of a phi or select (see `guard_phi`) as nested selects.
    fn affine_merge(&self, merged: Merged<'f>) -> Result<Affine, String> {
        let mut out: Option<Affine> = None;
        for (cond, value) in merged.into_iter().rev() {
            let a = self.affine(value)?;
            out = Some(match (out, cond) {
                (Some(otherwise), Some(cond)) => Affine::atom(Atom::Select(
                    Box::new(cond),
                    Box::new(a),
                    Box::new(otherwise),
                )),
                _ => a,
            });
        }
        out.ok_or_else(|| "a phi without incoming values".into())
    }

    /// The expression every incoming value of `phi` has, if they all have one.
    fn same_on_every_path(&self, phi: InstructionValue<'f>) -> Option<Scev<'f>> {
        if phi.get_opcode() != InstructionOpcode::Phi {
            return None;
        }
        let scope = self.fa.loop_for_block(phi.get_parent()?);
        let mut values = crate::llvm::ir::phi_incoming(phi)
            .into_iter()
            .map(|(v, _)| self.fa.scev_at_scope(self.fa.scev(&basic_value(v)), scope));
        let first = values.next()?;
        // Not the phi itself (a value carried around a loop unchanged).
        if first.unknown_value() == Some(phi.as_value_ref()) {
            return None;
        }
        values
            .all(|v| self.fa.minus(v, first).constant() == Some(0))
            .then_some(first)
    }

    /// A phi that merges the paths of branches inside one iteration of its loop (LLVM's
    /// `y < 2 ? 0 : (y - 2) * w` of a clamp, as a diamond rather than a select): each
    /// incoming value with the condition of its edge, relative to the start of the
    /// iteration (the last one's is left out: it holds when no other does). `None` when
    /// `phi` is no such phi (a loop header's, or one outside the region); an error when
    /// a condition is not affine.
    ///
    /// A `select` of integers inside the region is read the same way: its value if the
    /// condition holds, else the other.
    pub fn guard_phi(&self, phi: InstructionValue<'f>) -> Option<Result<Merged<'f>, String>> {
        let block = phi.get_parent()?;
        if !self.shape.contains_block(block) {
            return None;
        }
        if phi.get_opcode() == InstructionOpcode::Select {
            let scope = self.fa.loop_for_block(block);
            let operands: Option<Vec<_>> =
                (0..3).map(|i| crate::llvm::ir::operand(phi, i)).collect();
            let [cond, then, otherwise] = operands?[..] else {
                return None;
            };
            if !self.fa.is_scevable(&basic_value(then)) {
                return None;
            }
            let at = |v| self.fa.scev_at_scope(self.fa.scev(&basic_value(v)), scope);
            return Some(
                condition::condition_of(self, cond, scope, 0)
                    .map(|c| vec![(Some(c), at(then)), (None, at(otherwise))]),
            );
        }
        if phi.get_opcode() != InstructionOpcode::Phi {
            return None;
        }
        let l = self.fa.loop_for_block(block)?;
        if l.header() == block || !self.shape.contains_loop(l) {
            return None;
        }
        let incoming = crate::llvm::ir::phi_incoming(phi);
        let mut out = Vec::new();
        for (index, (value, from)) in incoming.iter().enumerate() {
            if !self.fa.is_scevable(&basic_value(*value)) {
                return Some(Err("a phi of a value that is not an integer".into()));
            }
            let scev = self
                .fa
                .scev_at_scope(self.fa.scev(&basic_value(*value)), Some(l));
            let cond = if index + 1 == incoming.len() {
                None
            } else {
                match self
                    .reached(l, *from, 0)
                    .and_then(|c| Ok(c.and(self.edge(l, *from, block)?)))
                {
                    Ok(c) => Some(c),
                    Err(e) => return Some(Err(e)),
                }
            };
            out.push((cond, scev));
        }
        Some(Ok(out))
    }

    /// When `block` runs in an iteration of `l` (whose header runs in every one): over
    /// forward edges of blocks directly in `l`.
    fn reached(&self, l: Loop<'f>, block: BasicBlock<'f>, depth: u32) -> Result<Cond, String> {
        if block == l.header() {
            return Ok(Cond::True);
        }
        if depth > 8 || self.fa.loop_for_block(block) != Some(l) {
            return Err("a phi merging paths through loops or long chains of branches".into());
        }
        let mut cond = Cond::False;
        for pred in crate::llvm::ir::predecessors(block) {
            cond = cond.or(self
                .reached(l, pred, depth + 1)?
                .and(self.edge(l, pred, block)?));
        }
        Ok(cond)
    }

    /// When the edge `from → to` is taken, once `from` runs.
    fn edge(&self, l: Loop<'f>, from: BasicBlock<'f>, to: BasicBlock<'f>) -> Result<Cond, String> {
        let term = from.get_terminator().ok_or("a block without terminator")?;
        let targets = crate::llvm::ir::successors(from);
        match targets.as_slice() {
            [only] if *only == to => Ok(Cond::True),
            [then, otherwise] if then != otherwise => {
                let value =
                    crate::llvm::ir::operand(term, 0).ok_or("a branch without condition")?;
                let cond = condition::condition_of(self, value, Some(l), 0)?;
                Ok(if *then == to { cond } else { cond.negate() })
            }
            _ => Err("a phi after a switch".into()),
        }
    }

    /// `sext x` / `zext x` as the mathematical value of `x`. When `x` is built from
    /// ring operations only (+, *, recurrences), its wrapped value equals the
    /// mathematical one exactly when the latter lies in the range of the narrow type,
    /// so that range is assumed (and checked at run time) unless already known.
    fn extension(&self, inner: Scev<'f>, signed: bool) -> Result<Affine, String> {
        let what = if signed { "sign" } else { "zero" };
        let a = self.affine(inner)?;
        let bits = inner.bit_width().unwrap_or(64).min(127);
        let (low, high) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        let leaf = matches!(inner.kind(), ScevKind::Constant | ScevKind::Unknown);
        if leaf && signed {
            return Ok(a);
        }
        // Ring operations over minima and maxima of ring expressions: exact where the
        // whole and each operand of an extremum lie in the signed range (a wrapped
        // operand would change which one the extremum picks), so those are assumed.
        if !leaf && self.wraps_possibly(inner) && !is_ring(inner) {
            let Some(operands) = extremum_operands(inner) else {
                return Err(format!(
                    "{} may wrap before it is {what}-extended",
                    describe_scev(self.fa, inner)
                ));
            };
            self.assume_extrema_in_range(inner, &operands)?;
        }
        self.extension_in_range(inner, a, signed, bits, low, high)
    }

    /// Assumes each operand of an extremum in the narrow expression `inner` that could
    /// wrap lies in the signed range of its type (a wrapped operand would change which
    /// one the extremum picks).
    fn assume_extrema_in_range(
        &self,
        inner: Scev<'f>,
        operands: &[Scev<'f>],
    ) -> Result<(), String> {
        let bits = inner.bit_width().unwrap_or(64).min(127);
        let (signed_low, signed_high) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
        for op in operands {
            if !self.wraps_possibly(*op) {
                continue;
            }
            let b = self.affine(*op)?;
            self.assume(
                Cond::Cmp(b.clone(), CmpOp::Ge, Affine::constant(signed_low)).and(Cond::Cmp(
                    b,
                    CmpOp::Le,
                    Affine::constant(signed_high),
                )),
                format!(
                    "{} does not wrap in i{bits} (under a minimum or maximum)",
                    describe_scev(self.fa, *op)
                ),
            );
        }
        Ok(())
    }

    /// The rest of `extension`: the value `a` of `inner` assumed to lie in the narrow
    /// type's range `[low, high]` where it could leave it.
    fn extension_in_range(
        &self,
        inner: Scev<'f>,
        a: Affine,
        signed: bool,
        bits: u32,
        low: i128,
        high: i128,
    ) -> Result<Affine, String> {
        let what = if signed { "sign" } else { "zero" };
        let leaf = matches!(inner.kind(), ScevKind::Constant | ScevKind::Unknown);
        let known_low = if signed || self.fa.known_non_negative(inner) {
            None
        } else {
            Some(Cond::Cmp(a.clone(), CmpOp::Ge, Affine::constant(low)))
        };
        let needs_high = !leaf && self.wraps_possibly(inner);
        let mut cond = known_low.unwrap_or(Cond::True);
        if needs_high {
            cond = cond
                .and(Cond::Cmp(a.clone(), CmpOp::Ge, Affine::constant(low)))
                .and(Cond::Cmp(a.clone(), CmpOp::Le, Affine::constant(high)));
        }
        if cond != Cond::True {
            self.assume(
                cond,
                format!(
                    "{} does not wrap in i{bits} ({what} extension)",
                    describe_scev(self.fa, inner)
                ),
            );
        }
        Ok(a)
    }

    /// Whether a narrow expression could have wrapped in its own type: leaves cannot,
    /// arithmetic can unless LLVM proved it does not (nsw).
    fn wraps_possibly(&self, scev: Scev<'f>) -> bool {
        match scev.kind() {
            ScevKind::Constant | ScevKind::Unknown => false,
            ScevKind::Add | ScevKind::Mul | ScevKind::AddRec => !scev.has_no_signed_wrap(),
            ScevKind::SMax | ScevKind::SMin => {
                scev.operands().iter().any(|o| self.wraps_possibly(*o))
            }
            _ => true,
        }
    }

    /// A load from an address fixed while the region runs, that no write of the region
    /// may alias.
    fn invariant_load(&self, load: InstructionValue<'f>) -> bool {
        let fa = self.fa;
        if load.get_opcode() != InstructionOpcode::Load || load.get_volatile().unwrap_or(true) {
            return false;
        }
        let Some(ptr) = pointer_operand(load) else {
            return false;
        };
        let address = fa.scev(&basic_value(ptr));
        if !self.fixed_in_region(address, 0) {
            return false;
        }
        let size = fa.value_store_size(load.as_value_ref());
        self.shape.blocks.iter().all(|b| {
            b.get_instructions().all(|i| {
                let written = match i.get_opcode() {
                    InstructionOpcode::Store => pointer_operand(i).map(|p| (p, accessed_value(i))),
                    _ => memory_transfer(i).map(|(dst, _, _)| (dst, None)),
                };
                match written {
                    None => true,
                    Some((p, value)) => {
                        let wsize = value.and_then(|v| fa.value_store_size(v));
                        fa.alias(&basic_value(ptr), size, &basic_value(p), wsize)
                            == AliasResult::NoAlias
                    }
                }
            })
        })
    }

    /// Whether an expression has the same value in every iteration of the region.
    fn fixed_in_region(&self, scev: Scev<'f>, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        match scev.kind() {
            ScevKind::CouldNotCompute => false,
            ScevKind::AddRec => {
                scev.add_rec_loop()
                    .is_some_and(|l| !self.shape.contains_loop(l))
                    && scev
                        .operands()
                        .into_iter()
                        .all(|o| self.fixed_in_region(o, depth + 1))
            }
            ScevKind::Unknown => !scev
                .unknown_value()
                .and_then(as_instruction)
                .and_then(|i| i.get_parent())
                .is_some_and(|b| self.shape.contains_block(b)),
            _ => scev
                .operands()
                .into_iter()
                .all(|o| self.fixed_in_region(o, depth + 1)),
        }
    }

    /// Loads used as parameters, for the record of the invariance they rely on.
    pub fn invariant_loads(&self) -> Vec<InstructionValue<'f>> {
        self.invariant_loads.borrow().clone()
    }

    fn assume(&self, cond: Cond, reason: String) {
        self.assumed.borrow_mut().push(Assumed { cond, reason });
    }

    /// The parameter standing for `value`, registered on first use.
    fn param(&self, value: ParamValue<'f>, bits: u32) -> Affine {
        let mut params = self.params.borrow_mut();
        if let Some(i) = params.iter().position(|p| p.value == value) {
            return Affine::param(i);
        }
        let base = match value {
            ParamValue::Scev(scev) => match scev.unknown_value() {
                Some(v) => sanitize(&self.fa.raw_operand_name(v)),
                None => format!("p{}", params.len()),
            },
            ParamValue::OuterCounter(l) => format!("c_{}", sanitize(&l.header_name())),
            ParamValue::InvariantLoad(load) => sanitize(&self.fa.operand_name(&load)),
        };
        let mut name = base.clone();
        let mut k = 1;
        while params.iter().any(|p| p.name == name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        params.push(Param { name, value, bits });
        Affine::param(params.len() - 1)
    }
}

/// Whether an expression uses only operations whose wrapped result is the
/// mathematical one reduced modulo 2^bits (+, *, recurrences, leaves).
/// Divisions, minima and maxima of leaves count as leaves: their translation is exact
/// on its own (under the non-negativity assumptions it records).
fn is_ring(scev: Scev<'_>) -> bool {
    let leaf = |s: &Scev<'_>| matches!(s.kind(), ScevKind::Constant | ScevKind::Unknown);
    match scev.kind() {
        ScevKind::Constant | ScevKind::Unknown => true,
        ScevKind::Add | ScevKind::Mul | ScevKind::AddRec | ScevKind::Truncate => {
            scev.operands().into_iter().all(is_ring)
        }
        ScevKind::UDiv | ScevKind::SMax | ScevKind::SMin | ScevKind::UMax | ScevKind::UMin => {
            scev.operands().iter().all(leaf)
        }
        _ => false,
    }
}

/// The operands of every minimum and maximum in `scev`, when it is built from ring
/// operations, leaves and extrema of such expressions; `None` otherwise.
fn extremum_operands(scev: Scev<'_>) -> Option<Vec<Scev<'_>>> {
    match scev.kind() {
        ScevKind::Constant | ScevKind::Unknown => Some(Vec::new()),
        ScevKind::Add | ScevKind::Mul | ScevKind::AddRec | ScevKind::Truncate => {
            let mut out = Vec::new();
            for op in scev.operands() {
                out.extend(extremum_operands(op)?);
            }
            Some(out)
        }
        // A quotient is exact where its numerator did not wrap (assumed like an
        // extremum's operand).
        ScevKind::UDiv => {
            let numerator = scev.operands()[0];
            let mut out = extremum_operands(numerator)?;
            out.push(numerator);
            Some(out)
        }
        // Unsigned extrema translate as signed ones of operands assumed non-negative.
        ScevKind::SMax | ScevKind::SMin | ScevKind::UMax | ScevKind::UMin => {
            let mut out = Vec::new();
            for op in scev.operands() {
                out.extend(extremum_operands(op)?);
                out.push(op);
            }
            Some(out)
        }
        _ => None,
    }
}

/// An isl identifier from an IR name: `%n.addr` → `n_addr`, `%0` → `p_0`.
pub fn sanitize(ir_name: &str) -> String {
    let trimmed = ir_name.trim_start_matches(['%', '@']);
    let mut out: String = trimmed
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out = format!("p_{out}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::sanitize;

    #[test]
    fn ir_names_become_isl_identifiers() {
        assert_eq!(sanitize("%n"), "n");
        assert_eq!(sanitize("%n.addr"), "n_addr");
        assert_eq!(sanitize("%0"), "p_0");
        assert_eq!(sanitize("@global"), "global");
        assert_eq!(sanitize("%\"weird name\""), "_weird_name_");
    }
}
