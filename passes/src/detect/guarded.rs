//! The conditions of data-dependent branches around loops (`control::Guard`). The
//! statements under such a branch keep their own domains and loops and may or may not
//! run (their writes are may-writes); code generation tests the branch's condition
//! again in each of their instances, so the condition must give there the value it
//! gave where the branch was: it is recomputed from arrays no access of the region
//! writes, with side-effect-free instructions (as `forward` recomputes values), its
//! operands from outside the tree recomputable from the loop counters. The elements
//! it loads become reads of each statement under it, so that alias checks and
//! dependences see them.
//!
//! Relies on `control` (the guards), `access` (the accesses, arrays marked written)
//! and `forward` (what may be recomputed).

use std::collections::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use super::access::{synthesizable, Access, Accesses};
use super::control::BlockConditions;
use super::forward::recomputable_instruction;
use super::reject::{RejectReason, Rejection};
use super::translate::Translator;
use crate::llvm::ir::{as_instruction, basic_value, operand, users};
use crate::llvm::source_terms::{describe_access, describe_branch, describe_value};
use crate::model::spec::AccessKind;

/// Most instructions in one condition: each is recomputed in every instance of every
/// statement under the branch.
const MAX_CONDITION_TREE: usize = 12;

/// The instructions of each guard's condition (the condition first), which code
/// generation recomputes; the condition's loads are added as reads to the statements
/// under the branch, and reads only recomputed values needed go (see
/// `drop_recomputed_reads`). A condition that cannot be recomputed rejects the region.
/// Nothing changes in a region without guards.
pub fn conditions<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    accesses: &mut Accesses<'f>,
    forwarded: &[Vec<LLVMValueRef>],
) -> Result<Vec<Vec<LLVMValueRef>>, Vec<Rejection>> {
    let mut branches: Vec<BasicBlock<'f>> = conditions
        .guards
        .values()
        .flatten()
        .map(|g| g.branch)
        .collect();
    branches.sort_by_key(|b| tr.shape().position(*b));
    branches.dedup();
    if branches.is_empty() {
        return Ok(Vec::new());
    }
    let mut trees = Vec::new();
    let mut problems = Vec::new();
    for branch in &branches {
        match condition_tree(tr, accesses, *branch) {
            Ok(tree) => trees.push(tree),
            Err(why) => problems.push(Rejection::new(
                RejectReason::NonAffineCondition,
                format!("{}: {why}", describe_branch(tr.fa(), *branch)),
            )),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut recomputed: HashSet<LLVMValueRef> = forwarded.iter().flatten().copied().collect();
    recomputed.extend(trees.iter().flatten().map(|i| i.as_value_ref()));
    let guard_branches: HashSet<LLVMValueRef> = branches
        .iter()
        .filter_map(|b| b.get_terminator())
        .map(|t| t.as_value_ref())
        .collect();
    // The condition's loads, taken before their own accesses may go. Their copies hold
    // array indices, so no array is dropped (and the others renumbered) before the
    // copies are in: a load whose own access went (every use of it recomputed) would
    // otherwise name the next array, and its own array would miss the alias checks.
    let loads: Vec<_> = trees.iter().map(|t| condition_loads(accesses, t)).collect();
    drop_recomputed_reads(tr, conditions, accesses, &recomputed, &guard_branches);
    for (branch, loads) in branches.iter().zip(&loads) {
        add_reads(conditions, accesses, *branch, loads);
    }
    accesses.drop_unused_arrays();
    Ok(trees
        .into_iter()
        .filter(|t| !t.is_empty())
        .map(|t| t.iter().map(|i| i.as_value_ref()).collect())
        .collect())
}

/// Why the condition's instruction `inst` cannot be computed again where the
/// statements under the branch run.
fn not_recomputable<'f>(
    tr: &Translator<'_, 'f>,
    accesses: &Accesses<'f>,
    inst: InstructionValue<'f>,
) -> String {
    let written = accesses
        .accesses
        .iter()
        .any(|x| x.inst == Some(inst) && accesses.arrays[x.array].written);
    match written {
        true => format!(
            "the condition around a loop needs the {}, an array the region writes, so \
             it cannot be tested again where the statements under it run",
            describe_access(tr.fa(), inst)
        ),
        false => format!(
            "the condition around a loop needs {}, which cannot be computed again where \
             the statements under it run (loads from arrays the region does not write \
             and arithmetic can)",
            describe_value(tr.fa(), inst.as_value_ref())
        ),
    }
}

/// Drops the reads no instance needs once the conditions and forwarded values are
/// recomputed where they are read: a scalar's reads by a statement whose every use of
/// it is recomputed (and then the scalar, when nothing reads it and nothing after the
/// region does), and a load's own access where every use of it is recomputed. Without
/// them the test of BLAS's `b[l + j*ldb]` and the `temp` computed from it are no
/// statements of their own, whose scalar would keep the loops in their order.
fn drop_recomputed_reads<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    accesses: &mut Accesses<'f>,
    recomputed: &HashSet<LLVMValueRef>,
    guard_branches: &HashSet<LLVMValueRef>,
) {
    let shape = tr.shape();
    let needless = |user: &InstructionValue<'f>| {
        recomputed.contains(&user.as_value_ref()) || guard_branches.contains(&user.as_value_ref())
    };
    // Whether every use of `value` in statement `block` is recomputed; `None` when
    // `value` is used after the region.
    let unused_in = |value: LLVMValueRef, block: BasicBlock<'f>| -> Option<bool> {
        let mut all = true;
        for user in users(&basic_value(value)) {
            let user_block = user.get_parent()?;
            if !shape.contains_block(user_block) {
                return None;
            }
            if conditions.statement_block(user_block) == block && !needless(&user) {
                all = false;
            }
        }
        Some(all)
    };
    let recomputed_scalar = |a: usize| {
        let array = &accesses.arrays[a];
        array
            .value
            .filter(|v| array.is_scalar && recomputed.contains(v))
    };
    let mut dropped_reads = vec![false; accesses.arrays.len()];
    let kept: Vec<bool> = accesses
        .accesses
        .iter()
        .map(|x| {
            if x.kind != AccessKind::Read {
                return true;
            }
            if let Some(value) = recomputed_scalar(x.array) {
                let drop = unused_in(value, x.block) == Some(true);
                dropped_reads[x.array] |= drop;
                return !drop;
            }
            let own_load = x.inst.filter(|i| {
                recomputed.contains(&i.as_value_ref())
                    && i.get_parent()
                        .is_some_and(|b| conditions.statement_block(b) == x.block)
            });
            // Users in other statements read a recomputed copy, which they hold an
            // access for (forwarded values' and conditions' loads are copied).
            let copied_to = |b: BasicBlock<'f>| {
                accesses
                    .accesses
                    .iter()
                    .any(|y| y.block == b && y.inst == x.inst && y.kind == AccessKind::Read)
            };
            !own_load.is_some_and(|load| {
                users(&load).iter().all(|u| {
                    u.get_parent().is_some_and(|b| {
                        let statement = conditions.statement_block(b);
                        shape.contains_block(b)
                            && (needless(u) || (statement != x.block && copied_to(statement)))
                    })
                })
            })
        })
        .collect();
    let mut keep = kept.into_iter();
    accesses.accesses.retain(|_| keep.next().unwrap_or(true));
    // A scalar no statement reads any more (and nothing after the region) goes.
    let unread: HashSet<usize> = (0..accesses.arrays.len())
        .filter(|a| dropped_reads[*a])
        .filter(|a| {
            let value = recomputed_scalar(*a);
            value.is_some_and(|v| {
                users(&basic_value(v))
                    .iter()
                    .all(|u| u.get_parent().is_some_and(|b| shape.contains_block(b)))
            })
        })
        .filter(|a| {
            !accesses
                .accesses
                .iter()
                .any(|x| x.array == *a && x.kind == AccessKind::Read)
        })
        .collect();
    accesses.accesses.retain(|x| !unread.contains(&x.array));
    drop_idle_statements(conditions, accesses, guard_branches);
}

/// Drops the statements under a guard (and the guards' own blocks) that write nothing:
/// what is left of them is reads for values computed again elsewhere, and they do
/// nothing.
fn drop_idle_statements<'f>(
    conditions: &BlockConditions<'f>,
    accesses: &mut Accesses<'f>,
    guard_branches: &HashSet<LLVMValueRef>,
) {
    let writers: HashSet<BasicBlock<'f>> = accesses
        .accesses
        .iter()
        .filter(|x| x.kind != AccessKind::Read)
        .map(|x| x.block)
        .collect();
    let guarded_or_test = |b: BasicBlock<'f>| {
        conditions.guards.contains_key(&b)
            || b.get_terminator()
                .is_some_and(|t| guard_branches.contains(&t.as_value_ref()))
    };
    accesses
        .accesses
        .retain(|x| writers.contains(&x.block) || !guarded_or_test(x.block));
}

/// The instructions of the region that compute `branch`'s condition, the condition
/// first, or why it cannot be recomputed.
fn condition_tree<'f>(
    tr: &Translator<'_, 'f>,
    accesses: &Accesses<'f>,
    branch: BasicBlock<'f>,
) -> Result<Vec<InstructionValue<'f>>, String> {
    let shape = tr.shape();
    let term = branch
        .get_terminator()
        .ok_or("a block without terminator")?;
    let condition = operand(term, 0).ok_or("a branch without condition")?;
    let mut tree = Vec::new();
    let mut pending: Vec<InstructionValue<'f>> = as_instruction(condition).into_iter().collect();
    let mut seen = HashSet::new();
    while let Some(inst) = pending.pop() {
        if !seen.insert(inst) {
            continue;
        }
        let inside = inst.get_parent().is_some_and(|b| shape.contains_block(b));
        if !inside || synthesizable(tr, inst) {
            continue;
        }
        if !recomputable_instruction(accesses, inst) {
            return Err(not_recomputable(tr, accesses, inst));
        }
        if tree.len() == MAX_CONDITION_TREE {
            return Err(format!(
                "the condition around a loop takes more than {MAX_CONDITION_TREE} instructions"
            ));
        }
        tree.push(inst);
        pending.extend(
            (0..inst.get_num_operands())
                .filter_map(|k| operand(inst, k))
                .filter_map(as_instruction),
        );
    }
    Ok(tree)
}

/// The accesses of the loads of a condition's tree.
fn condition_loads<'f>(accesses: &Accesses<'f>, tree: &[InstructionValue<'f>]) -> Vec<Access<'f>> {
    accesses
        .accesses
        .iter()
        .filter(|x| {
            x.inst
                .is_some_and(|i| i.get_opcode() == InstructionOpcode::Load && tree.contains(&i))
        })
        .cloned()
        .collect()
}

/// Copies of `loads`, the accesses of a condition's loads, as reads of each statement
/// under `branch` (in front of its own accesses).
fn add_reads<'f>(
    conditions: &BlockConditions<'f>,
    accesses: &mut Accesses<'f>,
    branch: BasicBlock<'f>,
    loads: &[Access<'f>],
) {
    let under = |b: BasicBlock<'f>| {
        conditions
            .guards
            .get(&b)
            .is_some_and(|gs| gs.iter().any(|g| g.branch == branch))
    };
    let mut out = Vec::with_capacity(accesses.accesses.len());
    let mut done: HashSet<BasicBlock<'f>> = HashSet::new();
    for access in accesses.accesses.drain(..) {
        if under(access.block) && done.insert(access.block) {
            out.extend(loads.iter().cloned().map(|mut copy| {
                copy.block = access.block;
                copy
            }));
        }
        out.push(access);
    }
    accesses.accesses = out;
    accesses.dedupe();
}
