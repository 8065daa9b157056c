//! Parallel loops for OpenMP threads, as they are emitted: the outermost parallel loop
//! on each path from the root of the loop AST (never one inside a loop already forked)
//! counts its iterations from a placeholder `first` to a placeholder `end`, in blocks
//! that `outline` moves into a function of their own once the region's new code
//! verifies. Only loops whose counter rises by a constant step to an upper bound
//! (`c <= e`, `c < e`) are forked; the fork threshold weighs the trip count by the loops
//! nested in the body. The threads take the iterations in serpentine chunks
//! (`outline::Schedule`): the inner loops' bounds may depend on the forked counter
//! (a triangular nest), and the chunks even the work out.
//!
//! Relies on: the loop being parallel in the plan's sense (no dependence carried,
//! reductions included, so no thread adds into another's element, but for the scalar
//! reductions `plan::reductions` relaxes); the scalars' stack slots being only read in
//! the loop but for those reductions' slots, which the threads update in partials of
//! their own (`partials`; a loop that stores into another slot stays serial).

use super::emit::Emitter;
use super::outline::{ForkSite, Schedule};
use super::partials::partials_for;
use super::CodegenError;
use crate::isl::ast::{AstExpr, AstNode, AstOp};
use crate::llvm::builder::Value;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};

/// Iterations assumed of each loop inside a forked loop when weighing its work (the
/// inner loops' trip counts may depend on the forked loop's counter).
const ASSUMED_INNER_TRIPS: i64 = 64;

/// The inclusive upper bound of a loop's counter and its constant positive step, when
/// the loop's condition is `iterator <= e` or `iterator < e`.
fn upper_bound<'e>(
    iterator: &str,
    cond: &'e AstExpr,
    inc: &AstExpr,
) -> Option<(&'e AstExpr, bool, i64)> {
    let AstExpr::Int(step) = inc else {
        return None;
    };
    if *step <= 0 {
        return None;
    }
    match cond {
        AstExpr::Op(op @ (AstOp::Le | AstOp::Lt), args) => match args.as_slice() {
            [AstExpr::Id(name), bound] if name == iterator => {
                Some((bound, *op == AstOp::Lt, *step))
            }
            _ => None,
        },
        _ => None,
    }
}

/// How deeply loops nest inside `node` (degenerate loops do not count).
fn loop_depth(node: &AstNode) -> u32 {
    match node {
        AstNode::Block(children) => children.iter().map(loop_depth).max().unwrap_or(0),
        AstNode::Mark(inner) => loop_depth(inner),
        AstNode::If {
            then, otherwise, ..
        } => loop_depth(then).max(otherwise.as_deref().map_or(0, loop_depth)),
        AstNode::For {
            body, degenerate, ..
        } => loop_depth(body) + u32::from(!*degenerate),
        AstNode::User { .. } => 0,
    }
}

/// The trip count below which a loop whose body nests `depth` loops runs serially,
/// for a fork from `min_work` statement instances on (never below 2: one iteration
/// has nothing to share).
pub(super) fn min_trips(depth: u32, min_work: u64) -> i64 {
    let per_iteration = ASSUMED_INNER_TRIPS.saturating_pow(depth).max(1);
    let min_work = i64::try_from(min_work).unwrap_or(i64::MAX);
    (min_work / per_iteration + i64::from(min_work % per_iteration != 0)).max(2)
}

impl<'f> Emitter<'_, 'f> {
    /// Emits a parallel loop for threads (see the module's comment); `false` when its
    /// bounds are not a counter below an upper bound with a constant step (the caller
    /// then emits it as any loop).
    pub(super) fn forked_loop(
        &mut self,
        iterator: &str,
        init: &AstExpr,
        cond: &AstExpr,
        inc: &AstExpr,
        body: &AstNode,
    ) -> Result<bool, CodegenError> {
        let Some((bound, strict, step)) = upper_bound(iterator, cond, inc) else {
            return Ok(false);
        };
        let b = self.b;
        let start = self.expr(init)?;
        let mut last = self.expr(bound)?;
        if strict {
            last = b.binary(LLVMOpcode::LLVMSub, last, b.const_i64(1));
        }
        let span = b.binary(LLVMOpcode::LLVMSub, last, start);
        let steps = b.binary(LLVMOpcode::LLVMSDiv, span, b.const_i64(step));
        let count = b.binary(LLVMOpcode::LLVMAdd, steps, b.const_i64(1));
        let empty = b.icmp(LLVMIntPredicate::LLVMIntSLT, span, b.const_i64(0));
        let trips = b.select(empty, b.const_i64(0), count);
        let first = b.opaque_i64("polyrust.first");
        let end = b.opaque_i64("polyrust.end");
        let before = self.current()?;
        let entry = self.block("polyrust.fork", before);
        b.br(entry);
        b.position_at_end(entry);
        let scaled = |k: Value| {
            let offset = b.binary(LLVMOpcode::LLVMMul, k, b.const_i64(step));
            b.binary(LLVMOpcode::LLVMAdd, start, offset)
        };
        let (from, to) = (scaled(first), scaled(end));
        let made = self.created.len();
        let stores = self.slot_stores.borrow().len();
        self.forking = true;
        let built = self.counted_loop(iterator, from, Some(to), cond, inc, body, true);
        self.forking = false;
        built?;
        let exit = self.current()?;
        let mut blocks = vec![entry];
        blocks.extend(self.created[made..].iter().copied().filter(|b| *b != exit));
        let stored = self.slot_stores.borrow()[stores..].to_vec();
        let slot = |v| self.slots.get(&v).map(|s| (s.pointer, s.ty));
        let partials = partials_for(self.region, slot, &self.reductions, &stored);
        let schedule = match &partials {
            Some(p) if !p.is_empty() => Schedule::Partials,
            _ => Schedule::Serpentine,
        };
        let site = ForkSite {
            blocks,
            first,
            end,
            trips,
            min_trips: min_trips(loop_depth(body), self.threads.unwrap_or(0)),
            iterator: iterator.to_string(),
            schedule,
            partials: partials.clone().unwrap_or_default(),
        };
        if partials.is_none() {
            site.stay_serial(b);
            self.forks.serial.push((
                iterator.to_string(),
                "it writes a scalar every thread would share".into(),
            ));
        } else {
            self.fork_sites.push(site);
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(name: &str) -> AstExpr {
        AstExpr::Id(name.into())
    }

    #[test]
    fn a_counter_below_a_bound_with_a_positive_step_has_an_upper_bound() {
        let cond = AstExpr::Op(AstOp::Le, vec![id("c0"), id("n")]);
        assert_eq!(
            upper_bound("c0", &cond, &AstExpr::Int(32)),
            Some((&id("n"), false, 32))
        );
        let strict = AstExpr::Op(AstOp::Lt, vec![id("c0"), id("n")]);
        assert_eq!(
            upper_bound("c0", &strict, &AstExpr::Int(1)),
            Some((&id("n"), true, 1))
        );
    }

    #[test]
    fn other_conditions_and_steps_are_not_forked() {
        let cond = AstExpr::Op(AstOp::Ge, vec![id("c0"), id("n")]);
        assert_eq!(upper_bound("c0", &cond, &AstExpr::Int(1)), None);
        let other = AstExpr::Op(AstOp::Le, vec![id("c1"), id("n")]);
        assert_eq!(upper_bound("c0", &other, &AstExpr::Int(1)), None);
        let le = AstExpr::Op(AstOp::Le, vec![id("c0"), id("n")]);
        assert_eq!(upper_bound("c0", &le, &id("s")), None);
        assert_eq!(upper_bound("c0", &le, &AstExpr::Int(-1)), None);
    }

    #[test]
    fn deeper_bodies_fork_at_fewer_iterations() {
        assert_eq!(min_trips(0, 32768), 32768);
        assert_eq!(min_trips(1, 32768), 512);
        assert_eq!(
            min_trips(3, 32768),
            2,
            "at least two iterations, one per thread"
        );
        assert_eq!(min_trips(0, 0), 2);
    }
}
