//! The shape of a candidate region: a single-entry single-exit part of the CFG made of
//! one or more consecutive sibling loop nests and the straight-line code between them,
//! with every loop in canonical form (one latch, left only from the latch) and its
//! blocks in program order. Everything later stages assume about control flow is
//! established here.

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;

use super::reject::{RejectReason, Rejection};
use crate::llvm::ir::{predecessors, successors};
use crate::llvm::source_terms::{describe_block, describe_loop};
use crate::llvm::{FunctionAnalyses, Loop};

pub struct RegionShape<'f> {
    /// The first block: every path into the region enters here.
    pub entry: BasicBlock<'f>,
    /// The block after the region: every path out of the region goes here.
    pub exit: BasicBlock<'f>,
    /// The outermost loops of the region, in program order.
    pub top: Vec<Loop<'f>>,
    /// Every loop of the region, outermost first (preorder).
    pub loops: Vec<Loop<'f>>,
    /// Blocks in program order: reverse post-order ignoring back edges.
    pub blocks: Vec<BasicBlock<'f>>,
    order: HashMap<BasicBlock<'f>, usize>,
    /// Loop depth of the outermost loops.
    base_depth: u32,
    /// The entry, when it is a guard that does other work before its branch.
    pub guard_with_work: Option<BasicBlock<'f>>,
}

impl<'f> RegionShape<'f> {
    pub fn contains_block(&self, block: BasicBlock<'f>) -> bool {
        self.order.contains_key(&block)
    }

    pub fn contains_loop(&self, l: Loop<'f>) -> bool {
        self.loops.contains(&l)
    }

    /// Depth of a loop of the region, 0 for the outermost ones.
    pub fn relative_depth(&self, l: Loop<'f>) -> usize {
        l.depth().saturating_sub(self.base_depth) as usize
    }

    /// Position of a block in program order.
    pub fn position(&self, block: BasicBlock<'f>) -> Option<usize> {
        self.order.get(&block).copied()
    }

    /// The loops of the region around `block`, outermost first.
    pub fn loops_around(&self, fa: &FunctionAnalyses<'f>, block: BasicBlock<'f>) -> Vec<Loop<'f>> {
        let mut chain = Vec::new();
        let mut current = fa.loop_for_block(block);
        while let Some(l) = current {
            if !self.contains_loop(l) {
                break;
            }
            chain.push(l);
            current = l.parent();
        }
        chain.reverse();
        chain
    }

    /// The d+1 textual positions of a block (the b's of its 2d+1 schedule): at the top
    /// of the region and then in each loop around it, the index of the block (or the
    /// loop holding it) among the items at that level, in program order.
    pub fn textual_positions(&self, fa: &FunctionAnalyses<'f>, block: BasicBlock<'f>) -> Vec<u32> {
        let chain = self.loops_around(fa, block);
        let mut positions = Vec::new();
        let first = chain.first().map_or(block, |l| l.header());
        positions.push(self.index_among(self.top_items(fa), first));
        for (level, l) in chain.iter().enumerate() {
            let item = chain.get(level + 1).map_or(block, |inner| inner.header());
            positions.push(self.index_among(self.body_items(fa, *l), item));
        }
        positions
    }

    /// Blocks outside every loop and headers of the outermost loops.
    fn top_items(&self, fa: &FunctionAnalyses<'f>) -> Vec<BasicBlock<'f>> {
        self.blocks
            .iter()
            .copied()
            .filter(|b| match fa.loop_for_block(*b) {
                Some(l) if self.contains_loop(l) => self.top.iter().any(|t| t.header() == *b),
                _ => true,
            })
            .collect()
    }

    /// Blocks directly in `l` and headers of loops directly in `l`.
    fn body_items(&self, fa: &FunctionAnalyses<'f>, l: Loop<'f>) -> Vec<BasicBlock<'f>> {
        let mut items: Vec<BasicBlock<'f>> = l
            .blocks()
            .into_iter()
            .filter(|b| fa.loop_for_block(*b) == Some(l))
            .collect();
        items.extend(l.subloops().iter().map(|s| s.header()));
        items
    }

    fn index_among(&self, mut items: Vec<BasicBlock<'f>>, item: BasicBlock<'f>) -> u32 {
        items.sort_by_key(|b| self.position(*b));
        items.iter().position(|b| *b == item).unwrap_or(0) as u32
    }
}

/// Checks the loops of a candidate (consecutive sibling nests `top`) and lays out the
/// region from the first loop's header to `exit`; all problems found are returned.
pub fn shape<'f>(
    fa: &FunctionAnalyses<'f>,
    top: &[Loop<'f>],
    exit: BasicBlock<'f>,
) -> Result<RegionShape<'f>, ShapeError> {
    let Some(first) = top.first() else {
        return Err(ShapeError {
            problems: vec![Rejection::new(RejectReason::LoopShape, "no loop")],
        });
    };
    let loops: Vec<Loop<'f>> = top.iter().flat_map(|l| l.preorder()).collect();
    let problems = loop_problems(fa, &loops);
    if !problems.is_empty() {
        return Err(ShapeError { problems });
    }
    // The entry is the first loop's header, or, when a guard in front of it skips
    // ahead into the region (if (n > 0) before the first loop), the guard: the region
    // grows backwards over single predecessors until it has a single entry. A guard
    // that does other work before its branch (the `malloc` of the array the loops
    // fill) is remembered (`RegionShape::guard_with_work`): if that work is what the
    // region cannot hold, the pass moves it into a block of its own.
    let level = first.parent();
    let mut entry = first.header();
    let mut outcome = layout(fa, &loops, first.depth(), entry, exit);
    let mut guard = None;
    for _ in 0..3 {
        if outcome.is_ok() {
            break;
        }
        let preds: Vec<_> = predecessors(entry)
            .into_iter()
            .filter(|p| !loops.iter().any(|l| l.contains_block(*p)))
            .collect();
        let [pred] = preds.as_slice() else {
            break;
        };
        if fa.loop_for_block(*pred) != level || loops.iter().any(|l| l.contains_block(*pred)) {
            break;
        }
        entry = *pred;
        guard = guard_with_work(entry).then_some(entry);
        outcome = layout(fa, &loops, first.depth(), entry, exit);
    }
    let order = outcome.map_err(|problems| ShapeError { problems })?;
    let index = order.iter().enumerate().map(|(i, b)| (*b, i)).collect();
    Ok(RegionShape {
        entry,
        exit,
        top: top.to_vec(),
        loops,
        blocks: order,
        order: index,
        base_depth: first.depth(),
        guard_with_work: guard,
    })
}

/// What keeps loops from the canonical shape: several latches, or an exit other than
/// the latch's.
fn loop_problems<'f>(fa: &FunctionAnalyses<'f>, loops: &[Loop<'f>]) -> Vec<Rejection> {
    let mut problems = Vec::new();
    for l in loops {
        if l.latch().is_none() {
            problems.push(Rejection::new(
                RejectReason::LoopShape,
                format!("{} has several latches", describe_loop(fa, *l)),
            ));
            continue;
        }
        let exiting: Vec<_> = l
            .blocks()
            .into_iter()
            .filter(|b| successors(*b).iter().any(|s| !l.contains_block(*s)))
            .collect();
        if l.exit_blocks().len() != 1 || exiting.len() != 1 || Some(exiting[0]) != l.latch() {
            problems.push(Rejection::new(
                RejectReason::MultipleExits,
                if exiting.len() > 1 {
                    format!(
                        "{} is left from {} places",
                        describe_loop(fa, *l),
                        exiting.len()
                    )
                } else {
                    format!(
                        "{} is not left at the end of its body (the exit test comes first)",
                        describe_loop(fa, *l)
                    )
                },
            ));
        }
    }
    problems
}

/// Why a candidate has no region shape.
pub struct ShapeError {
    pub problems: Vec<Rejection>,
}

/// Whether `block` ends in a conditional branch and does work before it that a region
/// could not hold: a call, an allocation or a memory access.
fn guard_with_work(block: BasicBlock<'_>) -> bool {
    use inkwell::values::InstructionOpcode as Op;
    let Some(terminator) = block.get_terminator() else {
        return false;
    };
    if terminator.get_opcode() != Op::Br || terminator.get_num_operands() != 3 {
        return false;
    }
    let mut next = block.get_first_instruction();
    while let Some(inst) = next {
        if inst == terminator {
            break;
        }
        if matches!(
            inst.get_opcode(),
            Op::Call | Op::Invoke | Op::Alloca | Op::Load | Op::Store
        ) {
            return true;
        }
        next = inst.get_next_instruction();
    }
    false
}

/// Program order of the region from `entry` to `exit`, checked to be single-entry
/// single-exit and to hold whole loops only.
fn layout<'f>(
    fa: &FunctionAnalyses<'f>,
    loops: &[Loop<'f>],
    depth: u32,
    entry: BasicBlock<'f>,
    exit: BasicBlock<'f>,
) -> Result<Vec<BasicBlock<'f>>, Vec<Rejection>> {
    let order = program_order(fa, entry, exit).map_err(|r| vec![r])?;
    let members: HashSet<_> = order.iter().copied().collect();
    for block in &order {
        for succ in successors(*block) {
            if !members.contains(&succ) && succ != exit {
                return Err(vec![Rejection::new(
                    RejectReason::MultipleExits,
                    format!(
                        "{} leaves the region to {}",
                        describe_block(fa, *block),
                        describe_block(fa, succ)
                    ),
                )]);
            }
        }
        if *block != entry && !fa.dominates(entry, *block) {
            return Err(vec![Rejection::new(
                RejectReason::IrreducibleControlFlow,
                format!(
                    "{} is entered from outside the region",
                    describe_block(fa, *block)
                ),
            )]);
        }
        // Every loop with a block in the region must lie inside it.
        if let Some(l) = fa.loop_for_block(*block) {
            if l.depth() >= depth && !loops.contains(&l) {
                return Err(vec![Rejection::new(
                    RejectReason::IrreducibleControlFlow,
                    format!("{} is only partly in the region", describe_loop(fa, l)),
                )]);
            }
        }
    }
    Ok(order)
}

/// Reverse post-order of the blocks reachable from `entry` without passing `exit`,
/// ignoring back edges (edges to the header of a loop that contains their source). A
/// cycle left after removing back edges is irreducible control flow.
fn program_order<'f>(
    fa: &FunctionAnalyses<'f>,
    entry: BasicBlock<'f>,
    exit: BasicBlock<'f>,
) -> Result<Vec<BasicBlock<'f>>, Rejection> {
    let is_back_edge = |from: BasicBlock<'f>, to: BasicBlock<'f>| {
        fa.loop_for_block(to)
            .is_some_and(|l| l.header() == to && l.contains_block(from))
    };
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    let mut marks: HashMap<BasicBlock<'f>, Mark> = HashMap::new();
    let mut post = Vec::new();
    // Iterative DFS: (block, next successor index).
    let mut stack = vec![(entry, 0usize)];
    marks.insert(entry, Mark::Open);
    while let Some((block, next)) = stack.pop() {
        let succs: Vec<_> = successors(block)
            .into_iter()
            .filter(|s| *s != exit && !is_back_edge(block, *s))
            .collect();
        if let Some(&succ) = succs.get(next) {
            stack.push((block, next + 1));
            match marks.get(&succ) {
                None => {
                    marks.insert(succ, Mark::Open);
                    stack.push((succ, 0));
                }
                Some(Mark::Open) => {
                    return Err(Rejection::new(
                        RejectReason::IrreducibleControlFlow,
                        format!(
                            "cycle through {} that is not a loop",
                            describe_block(fa, succ)
                        ),
                    ))
                }
                Some(Mark::Done) => {}
            }
        } else {
            marks.insert(block, Mark::Done);
            post.push(block);
        }
        if post.len() > 100_000 {
            return Err(Rejection::new(
                RejectReason::UnsupportedControlFlow,
                "region too large",
            ));
        }
    }
    post.reverse();
    Ok(post)
}
