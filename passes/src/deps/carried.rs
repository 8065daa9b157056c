//! Which loops of the original schedule carry dependences, and distance vectors.
//!
//! A dependence `a -> b` is carried by the loop at depth ℓ when, under the original 2d+1
//! schedule, a and b have the same time stamp up to the loop's iterator (dimension 2ℓ+1)
//! and b runs in a later iteration of it; then both lie in that loop, the same loop for
//! every statement whose positions start with the same `b0..bℓ`. A loop that carries no
//! dependence is parallel. Relies on every dependence going forward in the original order
//! (as dataflow analysis guarantees) and on all time stamps having the same width.

use std::collections::BTreeMap;

use crate::isl::{parse_union_map, IslCtx, IslError, UnionMap, UnionSet};
use crate::model::Scop;

use super::program_order::{carried_by_loop_text, width};
use super::{DependenceKind, LoopCarry};

/// `{ time(a) -> time(b) : a -> b in deps }` under `original_schedule`.
pub(super) fn time_pairs(
    deps: &UnionMap,
    original_schedule: &UnionMap,
) -> Result<UnionMap, IslError> {
    deps.copy()?
        .apply_domain(original_schedule.copy()?)?
        .apply_range(original_schedule.copy()?)
}

/// The distance vectors of `deps` in the original time space (`time(b) - time(a)`).
pub(super) fn distances(
    deps: &UnionMap,
    original_schedule: &UnionMap,
) -> Result<UnionSet, IslError> {
    time_pairs(deps, original_schedule)?.deltas()?.coalesce()
}

/// For every statement and every loop around it, the kinds in `kinds` whose dependences
/// the loop carries.
pub(super) fn loop_carries(
    scop: &Scop,
    original_schedule: &UnionMap,
    kinds: &[(DependenceKind, &UnionMap)],
) -> Result<Vec<LoopCarry>, IslError> {
    let ctx = scop.context.ctx();
    let width = width(scop);
    // The loops, each once, by the positions that identify them.
    let mut loops: BTreeMap<&[u32], Vec<DependenceKind>> = BTreeMap::new();
    for statement in &scop.statements {
        for level in 0..statement.depth() {
            loops.insert(&statement.textual_positions[..=level], Vec::new());
        }
    }
    for &(kind, deps) in kinds {
        if deps.is_empty()? {
            continue;
        }
        let pairs = time_pairs(deps, original_schedule)?;
        for (prefix, carried_by) in loops.iter_mut() {
            if carries(&ctx, &pairs, prefix, width)? {
                carried_by.push(kind);
            }
        }
    }
    let mut carries = Vec::new();
    for statement in &scop.statements {
        for level in 0..statement.depth() {
            let mut carried_by = loops
                .get(&statement.textual_positions[..=level])
                .cloned()
                .unwrap_or_default();
            carried_by.sort();
            carried_by.dedup();
            carries.push(LoopCarry {
                statement: statement.name.clone(),
                level: level + 1,
                iterator: statement
                    .domain
                    .dim_name(level)
                    .unwrap_or_else(|| format!("i{level}")),
                carried_by,
            });
        }
    }
    Ok(carries)
}

/// True when some pair of `pairs` is carried by the loop at `prefix`.
fn carries(ctx: &IslCtx, pairs: &UnionMap, prefix: &[u32], width: usize) -> Result<bool, IslError> {
    let text = carried_by_loop_text(prefix, width);
    let carried = parse_union_map(ctx, &text, "the pairs a loop carries")?;
    Ok(!pairs.copy()?.intersect(carried)?.is_empty()?)
}
