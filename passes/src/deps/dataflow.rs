//! The three value-based analyses on one set of accesses, each one call of isl's dataflow
//! analysis in the original order:
//! - flow: sinks = reads, must-sources = must-writes, may-sources = may-writes;
//! - anti: sinks = all writes, may-sources = reads, kills = must-writes, so a write
//!   depends only on the reads since the last write that definitely happened before it;
//! - output: sinks = all writes, must-sources = must-writes, may-sources = may-writes.
//!
//! Each takes isl's may-dependences (which include the must ones), restricted to the
//! parameter values of the region's context. Accesses with quasi-affine subscripts get
//! memory-based dependences instead (a superset, much cheaper to compute). Accesses of one statement instance are not
//! ordered with each other, so no instance depends on itself.

use crate::isl::{IslError, Schedule, Set, UnionAccessInfo, UnionMap, UnionSet};

/// The accesses of (part of) a region, each restricted to its statement's domain.
pub(super) struct Accesses {
    pub reads: UnionMap,
    pub must_writes: UnionMap,
    pub may_writes: UnionMap,
}

impl Accesses {
    /// A copy with only the accesses to elements in `elements`.
    pub fn restricted_to(&self, elements: &UnionSet) -> Result<Accesses, IslError> {
        let keep = |accesses: &UnionMap| accesses.copy()?.intersect_range(elements.copy()?);
        Ok(Accesses {
            reads: keep(&self.reads)?,
            must_writes: keep(&self.must_writes)?,
            may_writes: keep(&self.may_writes)?,
        })
    }

    /// A copy without the accesses to elements in `elements`.
    pub fn without(&self, elements: &UnionSet) -> Result<Accesses, IslError> {
        let drop = |accesses: &UnionMap| accesses.copy()?.subtract_range(elements.copy()?);
        Ok(Accesses {
            reads: drop(&self.reads)?,
            must_writes: drop(&self.must_writes)?,
            may_writes: drop(&self.may_writes)?,
        })
    }

    fn all_writes(&self) -> Result<UnionMap, IslError> {
        self.must_writes.copy()?.union(self.may_writes.copy()?)
    }

    /// Whether some access needs integer divisions (a quasi-affine subscript).
    fn involve_divisions(&self) -> Result<bool, IslError> {
        Ok(self.reads.involves_divisions()?
            || self.must_writes.involves_divisions()?
            || self.may_writes.involves_divisions()?)
    }
}

/// Flow, anti and output dependences of one set of accesses.
pub(super) struct KindDeps {
    pub flow: UnionMap,
    pub anti: UnionMap,
    pub output: UnionMap,
}

impl KindDeps {
    /// All three kinds together.
    pub fn all(&self) -> Result<UnionMap, IslError> {
        self.flow
            .copy()?
            .union(self.anti.copy()?)?
            .union(self.output.copy()?)
    }

    /// The three kinds, each without the pairs in `pairs`.
    pub fn without(&self, pairs: &UnionMap) -> Result<KindDeps, IslError> {
        Ok(KindDeps {
            flow: self.flow.copy()?.subtract(pairs.copy()?)?,
            anti: self.anti.copy()?.subtract(pairs.copy()?)?,
            output: self.output.copy()?.subtract(pairs.copy()?)?,
        })
    }

    /// Kind by kind union.
    pub fn union(self, other: KindDeps) -> Result<KindDeps, IslError> {
        Ok(KindDeps {
            flow: self.flow.union(other.flow)?,
            anti: self.anti.union(other.anti)?,
            output: self.output.union(other.output)?,
        })
    }

    pub fn copy(&self) -> Result<KindDeps, IslError> {
        Ok(KindDeps {
            flow: self.flow.copy()?,
            anti: self.anti.copy()?,
            output: self.output.copy()?,
        })
    }
}

/// Which analysis failed, for the error message.
#[derive(Clone, Copy, Debug)]
pub(super) enum Analysis {
    Flow,
    Anti,
    Output,
}

impl Analysis {
    pub fn step(self) -> &'static str {
        match self {
            Analysis::Flow => "computing the flow dependences",
            Analysis::Anti => "computing the anti dependences",
            Analysis::Output => "computing the output dependences",
        }
    }
}

/// The original order of execution, in the two forms the analyses use.
pub(super) struct Order<'a> {
    /// The flattened 2d+1 time stamps.
    pub map: &'a UnionMap,
    /// The same order as a schedule tree: isl's dataflow analysis splits the accesses
    /// along its sequence nodes, which is about twice as fast as comparing time stamps
    /// on NPB's regions, with the same dependences.
    pub tree: &'a Schedule,
}

/// The three analyses of `accesses` in the original `order`, for the parameter values in
/// `context`.
pub(super) fn analyse(
    accesses: &Accesses,
    order: &Order<'_>,
    context: &Set,
) -> Result<KindDeps, (Analysis, IslError)> {
    let run = |analysis: Analysis| {
        one_analysis(analysis, accesses, order, context).map_err(|e| (analysis, e))
    };
    Ok(KindDeps {
        flow: run(Analysis::Flow)?,
        anti: run(Analysis::Anti)?,
        output: run(Analysis::Output)?,
    })
}

pub(super) fn one_analysis(
    analysis: Analysis,
    accesses: &Accesses,
    order: &Order<'_>,
    context: &Set,
) -> Result<UnionMap, IslError> {
    if accesses.involve_divisions()? {
        return memory_based(analysis, accesses, order.map, context);
    }
    let question = match analysis {
        Analysis::Flow => UnionAccessInfo::from_sink(accesses.reads.copy()?)?
            .set_must_source(accesses.must_writes.copy()?)?
            .set_may_source(accesses.may_writes.copy()?)?,
        Analysis::Anti => UnionAccessInfo::from_sink(accesses.all_writes()?)?
            .set_may_source(accesses.reads.copy()?)?
            .set_kill(accesses.must_writes.copy()?)?,
        Analysis::Output => UnionAccessInfo::from_sink(accesses.all_writes()?)?
            .set_must_source(accesses.must_writes.copy()?)?
            .set_may_source(accesses.may_writes.copy()?)?,
    };
    question
        .set_schedule(order.tree.copy()?)?
        .compute_flow()?
        .may_dependence()?
        .intersect_params(context.copy()?)?
        .coalesce()
}

/// The memory-based dependences of one kind: every pair of instances touching the same
/// element in that order (sources before sinks), whether or not a write in between
/// kills the value. A superset of the value-based ones, so every use stays sound; used
/// for accesses with quasi-affine subscripts, on which isl's dataflow analysis can take
/// tens of seconds (`(j + k) / 2` in a 3-D nest: 23 s) without reaching the operation
/// bound.
fn memory_based(
    analysis: Analysis,
    accesses: &Accesses,
    original_schedule: &UnionMap,
    context: &Set,
) -> Result<UnionMap, IslError> {
    let (sources, sinks) = match analysis {
        Analysis::Flow => (accesses.all_writes()?, accesses.reads.copy()?),
        Analysis::Anti => (accesses.reads.copy()?, accesses.all_writes()?),
        Analysis::Output => (accesses.all_writes()?, accesses.all_writes()?),
    };
    let before = original_schedule
        .copy()?
        .lex_lt_union_map(original_schedule.copy()?)?;
    sources
        .apply_range(sinks.reverse()?)?
        .intersect(before)?
        .intersect_params(context.copy()?)?
        .coalesce()
}
