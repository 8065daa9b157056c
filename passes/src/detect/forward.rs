//! Operand-tree forwarding: a value computed in one statement from arrays the region
//! never writes (`ax = alpha[k] * X[k*n + i]` in front of a `j` loop that reads `ax`)
//! is recomputed where it is read instead of being handed over in a scalar. The scalar's
//! dependences (each instance of the `j` loop's statement reads the value of the last
//! `(k, i)`, and the next `(k, i)` overwrites it) are what keep the loops around it from
//! being interchanged or tiled; without the scalar, the reader only reads the arrays
//! the value came from, which nothing in the region changes, so it reads the same
//! elements whenever it runs. Code generation clones the value's instructions into each
//! reader instance (`codegen::emit`), so the result is bit-exact.
//!
//! A value is forwarded when: it is not a phi; every instruction of its tree (the value
//! and, recursively, its operands in the same block) is a load from an array no access
//! of the region writes, or an instruction without side effects (arithmetic, casts,
//! comparisons, `select`, address computations, a few pure intrinsics); operands from
//! other blocks are recomputable from the loop counters (never another scalar); and
//! every use of the value is an ordinary instruction (no phi) of another statement in
//! the region. SSA dominance then makes the reader run in the same iteration of the
//! defining block's loops, after it, so the loads' subscripts mean the same elements.
//!
//! Relies on the accesses of `access` (scalars as zero-dimensional arrays with their SSA
//! value, memory accesses with their load).

use std::collections::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use super::access::{synthesizable, Accesses};
use super::control::BlockConditions;
use super::translate::Translator;
use crate::llvm::ir::{as_instruction, called_function_name, operand, users};
use crate::model::spec::AccessKind;

/// Most instructions in one forwarded tree: each is recomputed in every instance of
/// every reader, so large trees cost more than the scalar's dependences.
const MAX_TREE: usize = 8;

/// Intrinsics without side effects that may be recomputed.
const PURE_INTRINSICS: &[&str] = &[
    "llvm.fmuladd.",
    "llvm.fma.",
    "llvm.fabs.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.smax.",
    "llvm.smin.",
    "llvm.umax.",
    "llvm.umin.",
    "llvm.abs.",
];

/// Forwards every value that qualifies (see the module's description): its scalar's
/// reads become reads of the arrays its loads read, its scalar goes, and so do the loads'
/// own accesses where nothing else uses them. Returns, per forwarded value, the
/// instructions code generation recomputes in its readers (the value first).
pub fn recompute<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    accesses: &mut Accesses<'f>,
) -> Vec<Vec<LLVMValueRef>> {
    let mut forwarded = Vec::new();
    for a in 0..accesses.arrays.len() {
        if !accesses.arrays[a].is_scalar {
            continue;
        }
        let Some(value) = accesses.arrays[a].value.and_then(as_instruction) else {
            continue;
        };
        let Some(tree) = Tree::find(tr, conditions, accesses, value) else {
            continue;
        };
        rewrite(accesses, a, &tree);
        forwarded.push(tree.instructions.iter().map(|i| i.as_value_ref()).collect());
    }
    if !forwarded.is_empty() {
        accesses.dedupe();
        accesses.drop_unused_arrays();
    }
    forwarded
}

/// A value's tree: its instructions (the value first) and the loads among them.
struct Tree<'f> {
    block: BasicBlock<'f>,
    instructions: Vec<InstructionValue<'f>>,
    loads: Vec<InstructionValue<'f>>,
}

impl<'f> Tree<'f> {
    fn find(
        tr: &Translator<'_, 'f>,
        conditions: &BlockConditions<'f>,
        accesses: &Accesses<'f>,
        value: InstructionValue<'f>,
    ) -> Option<Tree<'f>> {
        let shape = tr.shape();
        let block = value.get_parent()?;
        let statement = conditions.statement_block(block);
        // Only a statement of its own block: the copy of a branch's blocks is made by
        // the statement that owns them.
        if statement != block {
            return None;
        }
        for user in users(&value) {
            let user_block = user.get_parent()?;
            if user.get_opcode() == InstructionOpcode::Phi
                || !shape.contains_block(user_block)
                || (conditions.statement_block(user_block) == statement
                    && !tests_guard(conditions, user))
            {
                return None;
            }
        }
        let mut tree = Tree {
            block,
            instructions: Vec::new(),
            loads: Vec::new(),
        };
        let mut pending = vec![value];
        let mut seen = HashSet::new();
        while let Some(inst) = pending.pop() {
            if !seen.insert(inst) {
                continue;
            }
            if tree.instructions.len() == MAX_TREE || !Tree::admits(accesses, inst) {
                return None;
            }
            tree.instructions.push(inst);
            for index in 0..inst.get_num_operands() {
                let Some(op) = operand(inst, index).and_then(as_instruction) else {
                    continue;
                };
                let Some(op_block) = op.get_parent() else {
                    continue;
                };
                if !shape.contains_block(op_block) || synthesizable(tr, op) {
                    // Code generation recomputes it from the loop counters.
                    continue;
                }
                // Another statement's value would be read from its scalar, which the
                // reader may run after the next write to. Under a data-dependent
                // branch around loops (`control::Guard`) it is recomputed with the
                // tree instead, from the block that dominates this one (BLAS's
                // `temp = alpha*b[l + j*ldb]` after the test of the same element):
                // the scalar's may-write would keep the loops around the reader in
                // their order.
                if op_block != block && !conditions.guards.contains_key(&block) {
                    return None;
                }
                pending.push(op);
            }
        }
        tree.loads = tree
            .instructions
            .iter()
            .filter(|i| i.get_opcode() == InstructionOpcode::Load)
            .copied()
            .collect();
        Some(tree)
    }

    /// Whether `inst` may be recomputed elsewhere.
    fn admits(accesses: &Accesses<'f>, inst: InstructionValue<'f>) -> bool {
        use InstructionOpcode as Op;
        match inst.get_opcode() {
            Op::Load => {
                let mut reads = accesses
                    .accesses
                    .iter()
                    .filter(|x| x.inst == Some(inst))
                    .peekable();
                reads.peek().is_some()
                    && reads.all(|x| {
                        x.kind == AccessKind::Read
                            && x.extent.is_none()
                            && !accesses.arrays[x.array].is_scalar
                            && !accesses.arrays[x.array].written
                    })
            }
            Op::Call => called_function_name(inst)
                .is_some_and(|name| PURE_INTRINSICS.iter().any(|p| name.starts_with(p))),
            Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::FNeg
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::And
            | Op::Or
            | Op::Xor
            | Op::Shl
            | Op::LShr
            | Op::AShr
            | Op::GetElementPtr
            | Op::SExt
            | Op::ZExt
            | Op::Trunc
            | Op::FPExt
            | Op::FPTrunc
            | Op::SIToFP
            | Op::UIToFP
            | Op::FPToSI
            | Op::FPToUI
            | Op::ICmp
            | Op::FCmp
            | Op::Select => true,
            _ => false,
        }
    }
}

/// Whether `user` is the condition of a data-dependent branch around loops
/// (`control::Guard`), used by nothing else: it is computed again where the statements
/// under the branch run (`guarded`), so it needs no value of its block (the weight in
/// `if (w[i] > 0.) for (j) y[i][j] += w[i] * z[j][i]`).
fn tests_guard<'f>(conditions: &BlockConditions<'f>, user: InstructionValue<'f>) -> bool {
    let Some(block) = user.get_parent() else {
        return false;
    };
    let is_guard = conditions
        .guards
        .values()
        .flatten()
        .any(|g| g.branch == block);
    let only_branch = users(&user)
        .iter()
        .all(|u| Some(*u) == block.get_terminator());
    is_guard && only_branch
}

/// Whether `inst` may be recomputed elsewhere: a load from an array no access of the
/// region writes, or an instruction without side effects.
pub(super) fn recomputable_instruction<'f>(
    accesses: &Accesses<'f>,
    inst: InstructionValue<'f>,
) -> bool {
    Tree::admits(accesses, inst)
}

/// Replaces the reads of scalar `a` by reads of what its tree loads, and drops its
/// write, and the loads' own accesses where only the tree uses them.
fn rewrite(accesses: &mut Accesses<'_>, a: usize, tree: &Tree<'_>) {
    let loaded: Vec<_> = accesses
        .accesses
        .iter()
        .filter(|x| x.inst.is_some_and(|i| tree.loads.contains(&i)))
        .cloned()
        .collect();
    let only_tree: HashSet<_> = tree
        .loads
        .iter()
        .filter(|load| {
            users(*load)
                .iter()
                .all(|user| tree.instructions.contains(user))
        })
        .copied()
        .collect();
    let mut out = Vec::with_capacity(accesses.accesses.len() + loaded.len());
    for access in accesses.accesses.drain(..) {
        if access.array == a {
            if access.kind == AccessKind::Read {
                out.extend(loaded.iter().cloned().map(|mut copy| {
                    copy.block = access.block;
                    copy
                }));
            }
            continue;
        }
        let own_load =
            access.block == tree.block && access.inst.is_some_and(|i| only_tree.contains(&i));
        if !own_load {
            out.push(access);
        }
    }
    accesses.accesses = out;
}
