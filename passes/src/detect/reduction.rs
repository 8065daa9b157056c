//! Reductions: statements that update one element with an associative, commutative
//! operator (`x = x op y` with +, *, &, |, ^, or fmuladd's accumulator), found on the
//! IR so the dependence analysis may relax their self-dependences when the user allows
//! reassociation. The element is read once and written once in the statement, and the
//! value read feeds nothing but the update.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use super::access::Accesses;
use crate::llvm::builder::Value;
use crate::llvm::ir::{
    as_instruction, basic_value, called_function_name, operand, phi_incoming, users,
};
use crate::model::spec::AccessKind;

/// For each statement block, the arrays (by index) it reduces into.
pub fn find<'f>(accesses: &Accesses<'f>) -> HashMap<BasicBlock<'f>, Vec<usize>> {
    let mut out: HashMap<BasicBlock<'f>, Vec<usize>> = HashMap::new();
    let mut by_block: HashMap<(BasicBlock<'f>, usize), Vec<usize>> = HashMap::new();
    for (i, access) in accesses.accesses.iter().enumerate() {
        by_block
            .entry((access.block, access.array))
            .or_default()
            .push(i);
    }
    for ((block, array), list) in by_block {
        let [a, b] = list.as_slice() else {
            continue;
        };
        let (read, write) = match (&accesses.accesses[*a], &accesses.accesses[*b]) {
            (r, w) if r.kind == AccessKind::Read && w.kind == AccessKind::MustWrite => (r, w),
            (w, r) if r.kind == AccessKind::Read && w.kind == AccessKind::MustWrite => (r, w),
            _ => continue,
        };
        if read.subscripts != write.subscripts || read.extent.is_some() || write.extent.is_some() {
            continue;
        }
        let info = &accesses.arrays[array];
        let is_reduction = match (info.value, read.inst, write.inst) {
            // A scalar carried by a phi: the phi is read, its value on this block's edge
            // is written.
            (Some(phi), _, _) => as_instruction(phi)
                .filter(|p| p.get_opcode() == InstructionOpcode::Phi)
                .and_then(|p| {
                    let next = phi_incoming(p)
                        .into_iter()
                        .find(|(_, from)| *from == block)?
                        .0;
                    Some(updates(next, phi))
                })
                .unwrap_or(false),
            // Memory: the store's value updates the load.
            (None, Some(load), Some(store)) => {
                load.get_opcode() == InstructionOpcode::Load
                    && store.get_opcode() == InstructionOpcode::Store
                    && operand(store, 0).is_some_and(|v| updates(v, load.as_value_ref()))
            }
            _ => false,
        };
        if is_reduction {
            out.entry(block).or_default().push(array);
        }
    }
    for arrays in out.values_mut() {
        arrays.sort_unstable();
    }
    out
}

/// The operator of a reduction, as threads combine their partial results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// `fadd`, or `llvm.fmuladd`'s accumulator.
    FAdd,
    FMul,
    Add,
    Mul,
    And,
    Or,
    Xor,
}

impl Operator {
    fn of(inst: InstructionValue<'_>) -> Option<Operator> {
        Some(match inst.get_opcode() {
            InstructionOpcode::FAdd => Operator::FAdd,
            InstructionOpcode::FMul => Operator::FMul,
            InstructionOpcode::Add => Operator::Add,
            InstructionOpcode::Mul => Operator::Mul,
            InstructionOpcode::And => Operator::And,
            InstructionOpcode::Or => Operator::Or,
            InstructionOpcode::Xor => Operator::Xor,
            InstructionOpcode::Call
                if called_function_name(inst).is_some_and(|n| n.starts_with("llvm.fmuladd.")) =>
            {
                Operator::FAdd
            }
            _ => return None,
        })
    }
}

/// Longest chain of updates followed back to the old value (an unrolled loop's
/// `((s + a0) + a1) + a2` is a chain of three).
const MAX_CHAIN: usize = 64;

/// The operator of the scalar reduction carried by `phi`: the operator of the value
/// it takes back from its loop, when that value updates it (see `updates`).
pub fn scalar_operator(phi: Value) -> Option<Operator> {
    let phi_inst = as_instruction(phi).filter(|p| p.get_opcode() == InstructionOpcode::Phi)?;
    phi_incoming(phi_inst)
        .into_iter()
        .find_map(|(value, _)| update_operator(value, phi))
}

/// Whether `value` is `old op y` (or `y op old`, or `fmuladd(a, b, old)`) with an
/// associative, commutative `op`, and `old` feeds nothing else.
pub fn updates(value: Value, old: Value) -> bool {
    update_operator(value, old).is_some()
}

/// The operator of `value` when it updates `old` (see `updates`), directly or through a
/// chain of updates with the same operator whose links feed nothing else.
fn update_operator(value: Value, old: Value) -> Option<Operator> {
    let inst = as_instruction(value)?;
    let op = Operator::of(inst)?;
    let mut link = inst;
    for _ in 0..MAX_CHAIN {
        let accumulators: &[u32] = if link.get_opcode() == InstructionOpcode::Call {
            &[2]
        } else {
            &[0, 1]
        };
        let sole_use = |v: Value| {
            let users: Vec<InstructionValue<'_>> = users(&basic_value(v));
            users.len() == 1 && users[0].as_value_ref() == link.as_value_ref()
        };
        if accumulators.iter().any(|k| operand(link, *k) == Some(old)) {
            return sole_use(old).then_some(op);
        }
        // Follow the accumulator that is itself an update with the same operator.
        let next = accumulators.iter().find_map(|k| {
            let v = operand(link, *k)?;
            let inner = as_instruction(v)?;
            (Operator::of(inner) == Some(op) && sole_use(v)).then_some(inner)
        })?;
        link = next;
    }
    None
}
