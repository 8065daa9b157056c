//! When each block of a region runs: the iteration bounds of its loops and the branch
//! conditions on the way to it, as affine conditions. Blocks are visited in program
//! order; a block's condition is the disjunction, over its forward predecessors, of
//! the predecessor's condition and the edge's. Leaving a loop (only possible at its
//! latch, see `region`) happens exactly when the loop was entered.
//!
//! A block that runs whenever its immediate dominator runs, in the same iteration (it
//! post-dominates it and lies directly in the same loop), takes the dominator's
//! condition as it is: the disjunction over its predecessors would only restate it, at
//! twice the size for every `if` in between, so a chain of n `if`s would cost 2^n.
//! Conditions still larger than `MAX_CONDITION_COMPARISONS` reject the region.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::values::InstructionOpcode;

use super::affine::{Affine, Cond};
use super::region::RegionShape;
use super::reject::{RejectReason, Rejection};
use super::translate::condition::{condition_of, condition_with_phis, exited_loop, PhiConditions};
use super::translate::{Assumed, Translator};
use crate::llvm::ir::{as_instruction, operand, successors};
use crate::llvm::source_terms::{describe_block, describe_branch, describe_loop};
use crate::llvm::{Loop, ScevKind};

/// Largest condition, in comparisons, a block or a branch may have (conditions larger
/// reject the region, `RejectReason::ComplexCondition`). Defined where conditions are
/// translated, which stops at it too; raise it there.
pub use super::translate::condition::MAX_CONDITION_COMPARISONS;

/// Iteration bounds of one loop: `0 <= counter <= backedge-taken count`.
pub struct LoopBounds {
    pub depth: usize,
    pub upper: Affine,
    pub assumed: Vec<Assumed>,
}

/// Bounds of every loop of the region, by loop.
pub fn loop_bounds<'f>(
    tr: &Translator<'_, 'f>,
) -> Result<Vec<(Loop<'f>, LoopBounds)>, Vec<Rejection>> {
    let fa = tr.fa();
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for l in &tr.shape().loops {
        let taken = fa.backedge_taken_count(*l);
        if taken.kind() == ScevKind::CouldNotCompute {
            problems.push(Rejection::new(
                RejectReason::UnknownTripCount,
                describe_loop(fa, *l),
            ));
            continue;
        }
        // Seen from inside the parent loop (in the region or around it): the counters
        // of enclosing loops stay symbolic rather than being replaced by exit values.
        let taken = fa.scev_at_scope(taken, l.parent());
        match tr.affine(taken) {
            Ok(upper) => out.push((
                *l,
                LoopBounds {
                    depth: tr.shape().relative_depth(*l),
                    upper,
                    assumed: tr.take_assumed(),
                },
            )),
            Err(why) => {
                tr.take_assumed();
                problems.push(Rejection::new(
                    RejectReason::NonAffineLoopBound,
                    format!("{}: {why}", describe_loop(fa, *l)),
                ))
            }
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// The condition under which each block runs, relative to its loops' iterations, and
/// the assumptions each condition needed.
pub struct BlockConditions<'f> {
    pub conds: HashMap<BasicBlock<'f>, Cond>,
    pub assumed: HashMap<BasicBlock<'f>, Vec<Assumed>>,
    /// Blocks under a data-dependent branch, mapped to the block holding that branch:
    /// together they form one statement whose writes may or may not happen.
    pub absorbed: HashMap<BasicBlock<'f>, BasicBlock<'f>>,
    /// Blocks under a data-dependent branch whose subregion holds loops (the reference
    /// BLAS `if (b[l + j*ldb] != 0.) for (i) ...`): each keeps its own statements and
    /// loops, which may or may not run; code generation tests the branch's condition
    /// again in each instance (outermost guard first).
    pub guards: HashMap<BasicBlock<'f>, Vec<Guard<'f>>>,
}

/// A data-dependent branch a block runs under: the block runs only when the branch in
/// `branch` goes the `taken` way (`true`: its first successor).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard<'f> {
    pub branch: BasicBlock<'f>,
    pub taken: bool,
}

impl<'f> BlockConditions<'f> {
    /// The block whose statement `block` belongs to.
    pub fn statement_block(&self, block: BasicBlock<'f>) -> BasicBlock<'f> {
        self.absorbed.get(&block).copied().unwrap_or(block)
    }
}

pub fn block_conditions<'f>(
    tr: &Translator<'_, 'f>,
) -> Result<BlockConditions<'f>, Vec<Rejection>> {
    let fa = tr.fa();
    let shape = tr.shape();
    let mut conds: HashMap<BasicBlock<'f>, Cond> = HashMap::new();
    let mut assumed: HashMap<BasicBlock<'f>, Vec<Assumed>> = HashMap::new();
    let mut problems = Vec::new();
    // Edge conditions of each branch, computed once per branching block.
    let mut edges: HashMap<(BasicBlock<'f>, BasicBlock<'f>), Cond> = HashMap::new();
    let mut absorbed: HashMap<BasicBlock<'f>, BasicBlock<'f>> = HashMap::new();
    let mut guards: HashMap<BasicBlock<'f>, Vec<Guard<'f>>> = HashMap::new();
    // Branches on `i1` phis, translated once the blocks before them have conditions.
    let mut deferred: Vec<BasicBlock<'f>> = Vec::new();
    for block in &shape.blocks {
        if absorbed.contains_key(block) {
            continue;
        }
        let Some(term) = block.get_terminator() else {
            continue;
        };
        // Other terminators are rejected by `instructions`.
        if term.get_opcode() != InstructionOpcode::Br {
            continue;
        }
        let succs = successors(*block);
        if succs.len() != 2 || succs[0] == succs[1] {
            continue;
        }
        // A latch's branch is the loop's exit test, already in the loop's bounds.
        // The innermost loop around the branch, in the region or around it: values are
        // read inside it, so enclosing loops' counters stay symbolic.
        let own_loop = fa.loop_for_block(*block);
        if own_loop.is_some_and(|l| shape.contains_loop(l) && l.latch() == Some(*block)) {
            continue;
        }
        let Some(condition) = operand(term, 0) else {
            continue;
        };
        // A condition that is affine only if a value of the loops does not wrap cannot
        // be used: the model checks a statement's assumptions on its domain, which
        // already leaves out the iterations where the (mistranslated) condition is
        // false, so the wrap would go unnoticed (fuzz seed 2049: `j % 2 == 0` became
        // the i1 recurrence {true,+,true}, and the guarded statement never ran).
        // Assumptions on the parameters alone are kept: they become parameter
        // assumptions, checked whatever the domain.
        let translated = condition_of(tr, condition, own_loop, 0).and_then(|c| {
            let taken = tr.take_assumed();
            match taken.iter().find(|a| a.cond.max_counter().is_some()) {
                None => Ok((c, taken)),
                Some(a) => Err(format!(
                    "the condition is affine only if {}, which cannot be checked where the branch is not taken",
                    a.reason
                )),
            }
        });
        match translated {
            Ok((c, taken)) => {
                assumed.entry(*block).or_default().extend(taken);
                // LLVM's successor order is (true, false).
                edges.insert((*block, succs[0]), c.clone());
                edges.insert((*block, succs[1]), c.negate());
            }
            Err(_) if reads_phi(condition, 0) => {
                tr.take_assumed();
                deferred.push(*block);
            }
            Err(why) => {
                tr.take_assumed();
                // A data-dependent if/else without loops inside becomes part of one
                // statement (its edges stay unconstrained); anything else is rejected.
                // One whose subregion holds loops keeps its statements, which may or
                // may not run (`guarded_subregion`).
                if let Some(members) = conditional_subregion(tr, *block) {
                    for m in members {
                        absorbed.insert(m, *block);
                    }
                } else if let Some(members) = guarded_subregion(tr, *block) {
                    // Both edges stay unconstrained: the blocks under them run at most
                    // when the branch does.
                    edges.insert((*block, succs[0]), Cond::True);
                    edges.insert((*block, succs[1]), Cond::True);
                    for (m, taken) in members {
                        guards.entry(m).or_default().push(Guard {
                            branch: *block,
                            taken,
                        });
                    }
                } else {
                    problems.push(Rejection::new(
                        RejectReason::NonAffineCondition,
                        format!("{}: {why}", describe_branch(fa, *block)),
                    ))
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }

    let predecessors = forward_predecessors(tr);
    let dominators = immediate_dominators(&predecessor_positions(shape, &predecessors));
    let mut entry: HashMap<BasicBlock<'f>, Cond> = HashMap::new();
    for (position, block) in shape.blocks.iter().enumerate() {
        // The dominator it runs with, if any (see the module comment).
        let equivalent = dominators
            .get(position)
            .copied()
            .flatten()
            .and_then(|d| shape.blocks.get(d).copied())
            .filter(|d| runs_with(tr, *block, *d));
        // A loop header runs, for each iteration, when the loop is entered: that is the
        // condition of its forward (entering) edges. Leaving a loop happens once the
        // loop was entered, so an exit edge carries the loop's entry condition.
        let cond = if *block == shape.entry {
            Cond::True
        } else if let Some(c) = equivalent.and_then(|d| conds.get(&d)) {
            c.clone()
        } else {
            let mut c = Cond::False;
            for pred in predecessors.get(block).into_iter().flatten() {
                let incoming = match exited_loop(tr, *pred, *block) {
                    Some(l) => entry.get(&l.header()).cloned(),
                    None => conds.get(pred).cloned().map(|pc| {
                        pc.and(edges.get(&(*pred, *block)).cloned().unwrap_or(Cond::True))
                    }),
                };
                c = c.or(incoming.unwrap_or(Cond::False));
            }
            c
        };
        let size = cond.comparisons();
        if size > MAX_CONDITION_COMPARISONS {
            return Err(vec![Rejection::new(
                RejectReason::ComplexCondition,
                format!(
                    "{} runs under a condition of {size} comparisons, more than the {} \
                     detection accepts (the bound is MAX_CONDITION_COMPARISONS in \
                     passes/src/detect/control.rs; raise it and rebuild to model this nest)",
                    describe_block(fa, *block),
                    MAX_CONDITION_COMPARISONS
                ),
            )]);
        }
        if fa
            .loop_for_block(*block)
            .is_some_and(|l| l.header() == *block)
        {
            entry.insert(*block, cond.clone());
        }
        // Inherit the assumptions of the conditions this block depends on, each once:
        // where paths merge, both sides carry the assumptions from before they split,
        // and copying them all doubled the list at every merge (a chain of if/else
        // blocks in a csmith program took gigabytes).
        let mut inherited: Vec<Assumed> = assumed.get(block).cloned().unwrap_or_default();
        for pred in predecessors.get(block).into_iter().flatten() {
            for a in assumed.get(pred).into_iter().flatten() {
                if !inherited.contains(a) {
                    inherited.push(a.clone());
                }
            }
        }
        if !inherited.is_empty() {
            assumed.insert(*block, inherited);
        }
        conds.insert(*block, cond);
        if deferred.contains(block) {
            let translated = branch_on_phis(
                tr,
                *block,
                &PhiConditions {
                    conds: &conds,
                    edges: &edges,
                    entry: &entry,
                },
            );
            match translated {
                Ok((c, taken)) => {
                    let succs = successors(*block);
                    assumed.entry(*block).or_default().extend(taken);
                    edges.insert((*block, succs[0]), c.clone());
                    edges.insert((*block, succs[1]), c.negate());
                }
                // Data-dependent after all: as any other such branch, one statement
                // with its if/else, or rejected.
                Err(why) => match conditional_subregion(tr, *block) {
                    Some(members) => {
                        for m in members {
                            absorbed.insert(m, *block);
                        }
                    }
                    None => {
                        return Err(vec![Rejection::new(
                            RejectReason::NonAffineCondition,
                            format!("{}: {why}", describe_branch(fa, *block)),
                        )])
                    }
                },
            }
        }
    }
    Ok(BlockConditions {
        conds,
        assumed,
        absorbed,
        guards,
    })
}

/// The condition of `block`'s branch, which reads `i1` phis, with the assumptions it
/// needed (none may depend on the loops' counters, as for any branch).
fn branch_on_phis<'f>(
    tr: &Translator<'_, 'f>,
    block: BasicBlock<'f>,
    phis: &PhiConditions<'_, 'f>,
) -> Result<(Cond, Vec<Assumed>), String> {
    let term = block.get_terminator().ok_or("a block without terminator")?;
    let condition = operand(term, 0).ok_or("a branch without condition")?;
    let own_loop = tr.fa().loop_for_block(block);
    let translated = condition_with_phis(tr, condition, own_loop, 0, Some(phis));
    let taken = tr.take_assumed();
    let c = translated?;
    if c.comparisons() > MAX_CONDITION_COMPARISONS {
        return Err(format!(
            "condition of more than {MAX_CONDITION_COMPARISONS} comparisons (MAX_CONDITION_COMPARISONS in passes/src/detect/control.rs)"
        ));
    }
    match taken.iter().find(|a| a.cond.max_counter().is_some()) {
        None => Ok((c, taken)),
        Some(a) => Err(format!(
            "the condition is affine only if {}, which cannot be checked where the branch is not taken",
            a.reason
        )),
    }
}

/// Whether the boolean expression `value` reads a phi (through `and`, `or`, `xor`,
/// `select`).
fn reads_phi(value: inkwell::llvm_sys::prelude::LLVMValueRef, depth: u32) -> bool {
    let Some(inst) = as_instruction(value) else {
        return false;
    };
    match inst.get_opcode() {
        InstructionOpcode::Phi => true,
        InstructionOpcode::And
        | InstructionOpcode::Or
        | InstructionOpcode::Xor
        | InstructionOpcode::Select
            if depth < 16 =>
        {
            (0..inst.get_num_operands())
                .filter_map(|i| operand(inst, i))
                .any(|v| reads_phi(v, depth + 1))
        }
        _ => false,
    }
}

/// Whether `block` runs exactly when `dominator`, which dominates it, runs, in the same
/// iteration of the loops around both: `block` post-dominates `dominator` and lies
/// directly in the same loop (loops are left only from their latch, so a path from
/// `dominator` that skips `block` could leave the loop, which post-dominance excludes).
fn runs_with<'f>(
    tr: &Translator<'_, 'f>,
    block: BasicBlock<'f>,
    dominator: BasicBlock<'f>,
) -> bool {
    let fa = tr.fa();
    fa.loop_for_block(block) == fa.loop_for_block(dominator) && fa.post_dominates(block, dominator)
}

/// The forward predecessors of each block of the region, by position in program order.
fn predecessor_positions<'f>(
    shape: &RegionShape<'f>,
    predecessors: &HashMap<BasicBlock<'f>, Vec<BasicBlock<'f>>>,
) -> Vec<Vec<usize>> {
    shape
        .blocks
        .iter()
        .map(|b| {
            predecessors
                .get(b)
                .into_iter()
                .flatten()
                .filter_map(|p| shape.position(*p))
                .collect()
        })
        .collect()
}

/// Immediate dominators of an acyclic graph whose nodes are numbered in a topological
/// order, node 0 the entry, given each node's predecessors: Cooper, Harvey and
/// Kennedy's algorithm, which needs a single pass in that order. `None` for the entry
/// and for nodes not reached from it; predecessors not before their node are ignored.
pub(crate) fn immediate_dominators(predecessors: &[Vec<usize>]) -> Vec<Option<usize>> {
    let mut idom: Vec<Option<usize>> = vec![None; predecessors.len()];
    for node in 1..predecessors.len() {
        let mut found: Option<usize> = None;
        for &p in &predecessors[node] {
            if p >= node || (p != 0 && idom[p].is_none()) {
                continue;
            }
            found = Some(match found {
                None => p,
                Some(q) => common_dominator(&idom, p, q),
            });
        }
        idom[node] = found;
    }
    idom
}

/// The nearest node dominating both `a` and `b`: walk the deeper one up the tree.
fn common_dominator(idom: &[Option<usize>], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while a > b {
            a = idom[a].unwrap_or(0);
        }
        while b > a {
            b = idom[b].unwrap_or(0);
        }
    }
    a
}

/// The blocks strictly between `branch` and the first later block of the same loop
/// that every path from `branch` reaches, if none of them is a loop header or lies in
/// another loop.
fn conditional_subregion<'f>(
    tr: &Translator<'_, 'f>,
    branch: BasicBlock<'f>,
) -> Option<Vec<BasicBlock<'f>>> {
    let fa = tr.fa();
    let shape = tr.shape();
    let level = fa.loop_for_block(branch);
    let start = shape.position(branch)?;
    let merge = *shape.blocks[start + 1..]
        .iter()
        .find(|b| fa.loop_for_block(**b) == level && fa.post_dominates(**b, branch))?;
    let mut members = Vec::new();
    let mut stack: Vec<_> = successors(branch);
    while let Some(b) = stack.pop() {
        if b == merge || members.contains(&b) {
            continue;
        }
        let is_header = fa.loop_for_block(b).is_some_and(|l| l.header() == b);
        if !shape.contains_block(b) || fa.loop_for_block(b) != level || is_header {
            return None;
        }
        members.push(b);
        stack.extend(successors(b));
        if members.len() > 1000 {
            return None;
        }
    }
    Some(members)
}

/// The blocks strictly between `branch` and the first later block of the same loop
/// that every path from `branch` reaches, each with the way of the branch it lies
/// under, when that subregion holds loops: each block lies directly in the branch's
/// loop or in a loop entered inside the subregion, none is reached from both ways,
/// and no path goes back to a header of the branch's loops. `None` otherwise.
fn guarded_subregion<'f>(
    tr: &Translator<'_, 'f>,
    branch: BasicBlock<'f>,
) -> Option<Vec<(BasicBlock<'f>, bool)>> {
    let fa = tr.fa();
    let shape = tr.shape();
    let level = fa.loop_for_block(branch);
    let start = shape.position(branch)?;
    let merge = *shape.blocks[start + 1..]
        .iter()
        .find(|b| fa.loop_for_block(**b) == level && fa.post_dominates(**b, branch))?;
    let mut members: Vec<(BasicBlock<'f>, bool)> = Vec::new();
    for (k, first) in successors(branch).into_iter().enumerate() {
        let taken = k == 0;
        let mut stack = vec![first];
        while let Some(b) = stack.pop() {
            if b == merge || members.contains(&(b, taken)) {
                continue;
            }
            if members.iter().any(|(m, _)| *m == b)
                || !shape.contains_block(b)
                || !entered_below(tr, level, branch, b)
            {
                return None;
            }
            members.push((b, taken));
            stack.extend(successors(b));
            if members.len() > 1000 {
                return None;
            }
        }
    }
    let holds_loop = members.iter().any(|(m, _)| fa.loop_for_block(*m) != level);
    holds_loop.then_some(members)
}

/// Whether `block` lies directly in `level` (not at its header) or in a loop nested in
/// `level` whose outermost loop below `level` has its header dominated by `branch`.
fn entered_below<'f>(
    tr: &Translator<'_, 'f>,
    level: Option<Loop<'f>>,
    branch: BasicBlock<'f>,
    block: BasicBlock<'f>,
) -> bool {
    let fa = tr.fa();
    let mut current = fa.loop_for_block(block);
    if current == level {
        return !level.is_some_and(|l| l.header() == block);
    }
    while let Some(l) = current {
        if l.parent() == level {
            return tr.shape().contains_loop(l)
                && l.header() != branch
                && fa.dominates(branch, l.header());
        }
        current = l.parent();
    }
    false
}

/// Predecessors inside the region over forward (non-back) edges.
fn forward_predecessors<'f>(
    tr: &Translator<'_, 'f>,
) -> HashMap<BasicBlock<'f>, Vec<BasicBlock<'f>>> {
    let fa = tr.fa();
    let shape = tr.shape();
    let mut preds: HashMap<BasicBlock<'f>, Vec<BasicBlock<'f>>> = HashMap::new();
    for block in &shape.blocks {
        for succ in successors(*block) {
            if !shape.contains_block(succ) {
                continue;
            }
            let back = fa
                .loop_for_block(succ)
                .is_some_and(|l| l.header() == succ && l.contains_block(*block));
            if !back {
                preds.entry(succ).or_default().push(*block);
            }
        }
    }
    preds
}

#[cfg(test)]
mod tests {
    use super::immediate_dominators;

    #[test]
    fn diamond_merge_is_dominated_by_its_branch() {
        // 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3
        let preds = vec![vec![], vec![0], vec![0], vec![1, 2]];
        assert_eq!(
            immediate_dominators(&preds),
            vec![None, Some(0), Some(0), Some(0)]
        );
    }

    #[test]
    fn each_merge_of_a_chain_of_ifs_is_dominated_by_the_previous_branch() {
        // if-then chains: b0 -> t0 -> b1, b0 -> b1, b1 -> t1 -> b2, ...
        let mut preds = vec![vec![]];
        for k in 0..30 {
            let branch = 2 * k;
            preds.push(vec![branch]);
            preds.push(vec![branch, branch + 1]);
        }
        let idom = immediate_dominators(&preds);
        for k in 0..30 {
            assert_eq!(idom[2 * k + 1], Some(2 * k));
            assert_eq!(idom[2 * k + 2], Some(2 * k));
        }
    }

    #[test]
    fn nested_branches_meet_at_the_outer_one() {
        // 0 -> 1 -> {2, 3} -> 4; 0 -> 5; {4, 5} -> 6
        let preds = vec![
            vec![],
            vec![0],
            vec![1],
            vec![1],
            vec![2, 3],
            vec![0],
            vec![4, 5],
        ];
        let idom = immediate_dominators(&preds);
        assert_eq!(idom[4], Some(1));
        assert_eq!(idom[6], Some(0));
    }

    #[test]
    fn unreached_nodes_and_backward_edges_are_ignored() {
        // 1 is not reached; 2's edge from 3 goes backwards.
        let preds = vec![vec![], vec![], vec![0, 1, 3], vec![2]];
        assert_eq!(
            immediate_dominators(&preds),
            vec![None, None, Some(0), Some(2)]
        );
    }
}
