//! Reductions: checking what detection hands in, and the validity relation in which
//! reductions may be reordered.
//!
//! A reduction is a statement S whose only accesses to an array are one read and one
//! must-write of the same single element per instance (`s = s + A[i]`); the caller vouches
//! for the operator being associative and commutative. Its self-dependences through that
//! element (flow, anti and output from S to S) only say in which order the updates are
//! summed; with reassociation allowed they are dropped from the validity relation.
//!
//! Dropping them alone would let another statement that reads or writes the element slip
//! between the updates (or the final value be read before the last update). So each other
//! dependence on the element is extended over the reduction's chain: the updates of one
//! element, in program order (`S[i] -> S[j]`: same element, S[i] before S[j]). A
//! dependence `X -> S[i]` also orders X before every later update of the chain, and
//! `S[i] -> Y` orders every earlier update before Y. The chain may link updates that
//! another write separates; that only adds constraints the original order satisfies.

use crate::isl::{IslError, Set, Tuple, UnionMap, UnionSet};
use crate::model::{AccessKind, Scop, Statement};

use super::ReductionCandidate;

/// Why a candidate is not a reduction, in words for the error message.
pub(super) enum Rejection {
    Isl(IslError),
    Problem(String),
}

impl From<IslError> for Rejection {
    fn from(error: IslError) -> Rejection {
        Rejection::Isl(error)
    }
}

/// The statement of `candidate` and its write to the element (restricted to the
/// statement's domain), once checked.
pub(super) fn check_candidate<'s>(
    scop: &'s Scop,
    candidate: &ReductionCandidate,
) -> Result<(&'s Statement, UnionMap), Rejection> {
    let Some(statement) = scop
        .statements
        .iter()
        .find(|s| s.name == candidate.statement)
    else {
        return Err(Rejection::Problem(
            "the region has no such statement".into(),
        ));
    };
    if !scop.arrays.iter().any(|a| a.name == candidate.array) {
        return Err(Rejection::Problem("the region has no such array".into()));
    }
    let on_array: Vec<_> = statement
        .accesses
        .iter()
        .filter(|a| a.array == candidate.array)
        .collect();
    let count = |kind: AccessKind| on_array.iter().filter(|a| a.kind == kind).count();
    let (reads, must_writes, may_writes) = (
        count(AccessKind::Read),
        count(AccessKind::MustWrite),
        count(AccessKind::MayWrite),
    );
    if reads != 1 || must_writes != 1 || may_writes != 0 {
        return Err(Rejection::Problem(format!(
            "it has {reads} read(s), {must_writes} must-write(s) and {may_writes} \
             may-write(s) of the array; a reduction has exactly one read and one must-write"
        )));
    }
    let find = |kind: AccessKind| on_array.iter().find(|a| a.kind == kind);
    let (Some(read), Some(write)) = (find(AccessKind::Read), find(AccessKind::MustWrite)) else {
        return Err(Rejection::Problem(
            "its read or its must-write of the array is missing".into(),
        ));
    };
    let restricted = |relation: &crate::isl::Map| -> Result<UnionMap, IslError> {
        relation
            .copy()?
            .intersect_domain(statement.domain.copy()?)?
            .to_union_map()
    };
    let read = restricted(&read.relation)?;
    let write = restricted(&write.relation)?;
    if !read.is_equal(&write)? {
        return Err(Rejection::Problem(format!(
            "it reads {read:?} but writes {write:?}; a reduction reads and writes the same \
             element"
        )));
    }
    if !write.is_single_valued()? {
        return Err(Rejection::Problem(format!(
            "its access {write:?} touches several elements per instance; a reduction \
             updates one"
        )));
    }
    Ok((statement, write))
}

/// Every element of `array` (`{ A[x0, x1] }`, `{ s[] }` for a scalar).
pub(super) fn array_elements(scop: &Scop, array: &str) -> Result<UnionSet, IslError> {
    let rank = scop
        .arrays
        .iter()
        .find(|a| a.name == array)
        .map_or(0, |a| a.rank());
    let elements = Tuple::counters(Some(array), "x", rank);
    Set::universe(&scop.context.ctx(), &[], &elements)?.to_union_set()
}

/// `{ S[i] -> S[j] : S[i] and S[j] update the same element, S[i] first }` for the
/// reduction whose (domain-restricted) write is `write`.
pub(super) fn chain(
    statement: &Statement,
    write: &UnionMap,
    original_schedule: &UnionMap,
) -> Result<UnionMap, IslError> {
    let same_element = write.copy()?.apply_range(write.copy()?.reverse()?)?;
    let order = original_schedule
        .copy()?
        .intersect_domain(statement.domain.copy()?.to_union_set()?)?;
    let before = order.copy()?.lex_lt_union_map(order)?;
    same_element.intersect(before)
}

/// The validity relation with the reductions' own dependences dropped: `others` (every
/// dependence that is no reduction's, all arrays) with the dependences on the reductions'
/// arrays `on_reduction_arrays` extended over the `chains`.
pub(super) fn relaxed_validity(
    others: UnionMap,
    on_reduction_arrays: &UnionMap,
    chains: &UnionMap,
) -> Result<UnionMap, IslError> {
    let into_chain = on_reduction_arrays.copy()?.apply_range(chains.copy()?)?;
    let out_of_chain = chains.copy()?.apply_range(on_reduction_arrays.copy()?)?;
    others.union(into_chain)?.union(out_of_chain)?.coalesce()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_union_set, IslCtx};

    #[test]
    fn an_array_s_elements_are_the_universe_of_its_tuple() {
        let ctx = IslCtx::new(None).unwrap();
        for (rank, text) in [(0, "{ s[] }"), (2, "{ A[x0, x1] }")] {
            let name = if rank == 0 { "s" } else { "A" };
            let elements = Tuple::counters(Some(name), "x", rank);
            let built = Set::universe(&ctx, &[], &elements)
                .unwrap()
                .to_union_set()
                .unwrap();
            let parsed = parse_union_set(&ctx, text, "expected").unwrap();
            assert!(built.is_equal(&parsed).unwrap(), "{built:?} vs {text}");
            assert_eq!(format!("{built:?}"), format!("{parsed:?}"));
        }
    }
}
