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

/// Whether `value` is `old op y` (or `y op old`, or `fmuladd(a, b, old)`) with an
/// associative, commutative `op`, and `old` feeds nothing else.
fn updates(value: Value, old: Value) -> bool {
    let Some(inst) = as_instruction(value) else {
        return false;
    };
    let uses_old_only_here = || {
        let users: Vec<InstructionValue<'_>> = users(&basic_value(old));
        users.len() == 1 && users[0].as_value_ref() == value
    };
    match inst.get_opcode() {
        InstructionOpcode::FAdd
        | InstructionOpcode::FMul
        | InstructionOpcode::Add
        | InstructionOpcode::Mul
        | InstructionOpcode::And
        | InstructionOpcode::Or
        | InstructionOpcode::Xor => {
            (operand(inst, 0) == Some(old) || operand(inst, 1) == Some(old)) && uses_old_only_here()
        }
        InstructionOpcode::Call => {
            called_function_name(inst).is_some_and(|n| n.starts_with("llvm.fmuladd."))
                && operand(inst, 2) == Some(old)
                && uses_old_only_here()
        }
        _ => false,
    }
}
