//! Branch conditions as affine conditions: an `i1` value (comparisons combined with
//! `and`, `or`, `not` and `select`) translated over the region's counters and
//! parameters. Expressions and conditions translate each other (a `select` or a phi of
//! a clamp inside an expression has a condition; a comparison has expressions), so both
//! belong to the translator. Relies on `Translator::affine` for the compared values;
//! `control` supplies, for phis of `i1` values, how control reached each block.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{InstructionOpcode, InstructionValue};
use inkwell::IntPredicate;

use super::Translator;
use crate::detect::affine::{CmpOp, Cond};
use crate::llvm::ir::{as_instruction, basic_value, is_constant_int, operand};
use crate::llvm::source_terms::describe_scev;
use crate::llvm::Loop;

/// Largest condition, in comparisons, a block or a branch may have. Conditions are
/// written out for isl, which may expand them to disjunctive normal form, so far smaller
/// conditions already cost more than the region is worth; larger ones reject the region
/// (`RejectReason::ComplexCondition`). A compile-time constant: raise it here.
pub const MAX_CONDITION_COMPARISONS: usize = 1000;

/// Translates an `i1` value into a condition. `depth` bounds the recursion on
/// pathological chains of boolean operations.
pub fn condition_of<'f>(
    tr: &Translator<'_, 'f>,
    value: inkwell::llvm_sys::prelude::LLVMValueRef,
    scope: Option<Loop<'f>>,
    depth: u32,
) -> Result<Cond, String> {
    condition_with_phis(tr, value, scope, depth, None)
}

/// How control reached each block of the region so far, for the `i1` phis that
/// jump-threading leaves in branch conditions (`%c = phi i1 [false, %skip], [true,
/// %done]`): such a phi is the disjunction, over its incoming edges, of the edge's
/// condition and the incoming value's.
pub struct PhiConditions<'a, 'f> {
    pub conds: &'a HashMap<BasicBlock<'f>, Cond>,
    pub edges: &'a HashMap<(BasicBlock<'f>, BasicBlock<'f>), Cond>,
    /// Conditions of loop headers on entry (what an exit edge of the loop carries).
    pub entry: &'a HashMap<BasicBlock<'f>, Cond>,
}

impl<'f> PhiConditions<'_, 'f> {
    fn phi(
        &self,
        tr: &Translator<'_, 'f>,
        phi: InstructionValue<'f>,
        scope: Option<Loop<'f>>,
        depth: u32,
    ) -> Result<Cond, String> {
        let block = phi.get_parent().ok_or("a phi outside any block")?;
        if !tr.shape().contains_block(block)
            || tr
                .fa()
                .loop_for_block(block)
                .is_some_and(|l| l.header() == block)
        {
            return Err("the condition merges values of several iterations (a phi)".into());
        }
        let mut cond = Cond::False;
        for (value, from) in crate::llvm::ir::phi_incoming(phi) {
            let came = match exited_loop(tr, from, block) {
                Some(l) => self.entry.get(&l.header()).cloned(),
                None => self.conds.get(&from).map(|c| {
                    c.clone().and(
                        self.edges
                            .get(&(from, block))
                            .cloned()
                            .unwrap_or(Cond::True),
                    )
                }),
            }
            .ok_or("the condition merges values of paths from outside the region (a phi)")?;
            let value = condition_with_phis(tr, value, scope, depth + 1, Some(self))?;
            cond = cond.or(came.and(value));
        }
        Ok(cond)
    }
}

/// `condition_of`, where `i1` phis read in the condition are translated with `phis`.
pub fn condition_with_phis<'f>(
    tr: &Translator<'_, 'f>,
    value: inkwell::llvm_sys::prelude::LLVMValueRef,
    scope: Option<Loop<'f>>,
    depth: u32,
    phis: Option<&PhiConditions<'_, 'f>>,
) -> Result<Cond, String> {
    if depth > 64 {
        return Err("condition too deeply nested".into());
    }
    if let Some(k) = is_constant_int(value) {
        return Ok(if k != 0 { Cond::True } else { Cond::False });
    }
    let Some(inst) = as_instruction(value) else {
        return Err("condition is not computed by an instruction".into());
    };
    let sub = |i: u32| -> Result<Cond, String> {
        let v = operand(inst, i).ok_or("missing operand")?;
        condition_with_phis(tr, v, scope, depth + 1, phis)
    };
    let cond = match inst.get_opcode() {
        InstructionOpcode::ICmp => comparison(tr, inst, scope),
        InstructionOpcode::FCmp => Err("data-dependent floating-point comparison".into()),
        InstructionOpcode::And => Ok(sub(0)?.and(sub(1)?)),
        InstructionOpcode::Or => Ok(sub(0)?.or(sub(1)?)),
        InstructionOpcode::Xor => {
            // `xor c, true` is `not c`.
            match operand(inst, 1).and_then(is_constant_int) {
                Some(k) if k != 0 => Ok(sub(0)?.negate()),
                _ => Err("xor of conditions".into()),
            }
        }
        InstructionOpcode::Select => {
            // `c ? x : false` is `c and x`; `c ? true : y` is `c or y` (clang's && and ||).
            let t = operand(inst, 1).and_then(is_constant_int);
            let f = operand(inst, 2).and_then(is_constant_int);
            match (t, f) {
                (_, Some(0)) => Ok(sub(0)?.and(sub(1)?)),
                (Some(k), _) if k != 0 => Ok(sub(0)?.or(sub(2)?)),
                _ => {
                    let c = sub(0)?;
                    Ok(c.clone().and(sub(1)?).or(c.negate().and(sub(2)?)))
                }
            }
        }
        InstructionOpcode::Phi => match phis {
            Some(phis) => phis.phi(tr, inst, scope, depth),
            None => {
                Err("the condition merges values of several paths (a phi), not a comparison".into())
            }
        },
        InstructionOpcode::Load => Err("the condition is read from memory".into()),
        InstructionOpcode::Call => Err("the condition is the result of a call".into()),
        op => Err(format!(
            "the condition is computed by a {} instruction, not a comparison",
            format!("{op:?}").to_lowercase()
        )),
    }?;
    // Operands shared between boolean operations are translated once per use: the
    // bound stops a DAG of them from growing exponentially.
    if cond.comparisons() > MAX_CONDITION_COMPARISONS {
        return Err(format!(
            "condition of more than {MAX_CONDITION_COMPARISONS} comparisons (MAX_CONDITION_COMPARISONS in passes/src/detect/control.rs)"
        ));
    }
    Ok(cond)
}

fn comparison<'f>(
    tr: &Translator<'_, 'f>,
    icmp: InstructionValue<'f>,
    scope: Option<Loop<'f>>,
) -> Result<Cond, String> {
    let fa = tr.fa();
    let (Some(a), Some(b)) = (operand(icmp, 0), operand(icmp, 1)) else {
        return Err("malformed comparison".into());
    };
    let pred = icmp
        .get_icmp_predicate()
        .ok_or("not an integer comparison")?;
    let (va, vb) = (basic_value(a), basic_value(b));
    if !fa.is_scevable(&va) || !fa.is_scevable(&vb) {
        return Err("comparison of non-integers".into());
    }
    if va.is_pointer_value() {
        return Err("comparison of pointers".into());
    }
    let sa = fa.scev_at_scope(fa.scev(&va), scope);
    let sb = fa.scev_at_scope(fa.scev(&vb), scope);
    let ea = tr.affine(sa)?;
    let eb = tr.affine(sb)?;
    let unsigned = matches!(
        pred,
        IntPredicate::UGT | IntPredicate::UGE | IntPredicate::ULT | IntPredicate::ULE
    );
    // `icmp samesign` (LLVM 22 writes `a > 4` as `icmp samesign ugt`) is poison when
    // its operands' signs differ, and so is every condition computed from it that it
    // decides (and, or, xor and the chosen operand of a select pass poison on); a
    // branch on poison is undefined behaviour. Wherever the branch is taken in a
    // defined run, the signs agree, and then unsigned and signed order are the same.
    // (Only branch conditions come here: a poison select would not be undefined.)
    let same_sign = icmp.get_same_sign_flag().unwrap_or(false);
    if unsigned && !same_sign && !(fa.known_non_negative(sa) && fa.known_non_negative(sb)) {
        return Err(format!(
            "unsigned comparison of {} and {}, which may be negative",
            describe_scev(fa, sa),
            describe_scev(fa, sb)
        ));
    }
    let op = match pred {
        IntPredicate::EQ => CmpOp::Eq,
        IntPredicate::NE => CmpOp::Ne,
        IntPredicate::SGT | IntPredicate::UGT => CmpOp::Gt,
        IntPredicate::SGE | IntPredicate::UGE => CmpOp::Ge,
        IntPredicate::SLT | IntPredicate::ULT => CmpOp::Lt,
        IntPredicate::SLE | IntPredicate::ULE => CmpOp::Le,
    };
    Ok(Cond::Cmp(ea, op, eb))
}

/// The outermost loop that the edge `from → to` leaves, if it leaves one.
pub fn exited_loop<'f>(
    tr: &Translator<'_, 'f>,
    from: BasicBlock<'f>,
    to: BasicBlock<'f>,
) -> Option<Loop<'f>> {
    let mut current = tr.fa().loop_for_block(from);
    let mut exited = None;
    while let Some(l) = current {
        if l.contains_block(to) {
            break;
        }
        exited = Some(l);
        current = l.parent();
    }
    exited
}
