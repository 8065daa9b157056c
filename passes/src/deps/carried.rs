//! Which loops of the original schedule carry dependences, and distance vectors.
//!
//! A dependence `a -> b` is carried by the loop at depth ℓ when, under the original 2d+1
//! schedule, a and b have the same time stamp up to the loop's iterator (dimension 2ℓ+1)
//! and b runs in a later iteration of it; then both lie in that loop, the same loop for
//! every statement whose positions start with the same `b0..bℓ`. A loop that carries no
//! dependence is parallel. Relies on every dependence going forward in the original order
//! (as dataflow analysis guarantees) and on all time stamps having the same width.

use std::collections::BTreeMap;

use crate::isl::{IslCtx, IslError, Set, UnionMap, UnionSet};
use crate::model::Scop;

use super::program_order::{carried_by_loop, width, within_loop};
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

/// What finding the loops that carry dependences needs of the region's statements:
/// `Dependences` keeps it and finds them only when asked (only the printer and the
/// tests ask; on the kernel corpus it was a sixth of the dependence stage).
#[derive(Debug)]
pub(super) struct LoopNests {
    /// Per statement in program order: its name, textual positions and iterator names.
    statements: Vec<(String, Vec<u32>, Vec<String>)>,
    width: usize,
}

impl LoopNests {
    pub(super) fn of(scop: &Scop) -> LoopNests {
        LoopNests {
            statements: scop
                .statements
                .iter()
                .map(|s| {
                    let iterators = (0..s.depth())
                        .map(|level| {
                            s.domain
                                .dim_name(level)
                                .unwrap_or_else(|| format!("i{level}"))
                        })
                        .collect();
                    (s.name.clone(), s.textual_positions.clone(), iterators)
                })
                .collect(),
            width: width(scop),
        }
    }
}

/// For every statement and every loop around it, the kinds in `kinds` whose dependences
/// the loop carries.
pub(super) fn loop_carries(
    ctx: &IslCtx,
    nests: &LoopNests,
    original_schedule: &UnionMap,
    kinds: &[(DependenceKind, UnionMap)],
) -> Result<Vec<LoopCarry>, IslError> {
    // The loops, each once, by the positions that identify them.
    let mut loops: BTreeMap<&[u32], Vec<DependenceKind>> = BTreeMap::new();
    for (_, positions, iterators) in &nests.statements {
        for level in 0..iterators.len() {
            loops.insert(&positions[..=level], Vec::new());
        }
    }
    for (kind, deps) in kinds {
        if deps.is_empty()? {
            continue;
        }
        let pairs = time_pairs(deps, original_schedule)?;
        for (prefix, carried_by) in loops.iter_mut() {
            if carries(ctx, &pairs, prefix, nests.width)? {
                carried_by.push(*kind);
            }
        }
    }
    let mut carries = Vec::new();
    for (name, positions, iterators) in &nests.statements {
        for (level, iterator) in iterators.iter().enumerate() {
            let mut carried_by = loops.get(&positions[..=level]).cloned().unwrap_or_default();
            carried_by.sort();
            carried_by.dedup();
            carries.push(LoopCarry {
                statement: name.clone(),
                level: level + 1,
                iterator: iterator.clone(),
                carried_by,
            });
        }
    }
    Ok(carries)
}

/// True when some pair of `pairs` is carried by the loop at `prefix`.
fn carries(ctx: &IslCtx, pairs: &UnionMap, prefix: &[u32], width: usize) -> Result<bool, IslError> {
    let carried = carried_by_loop(ctx, prefix, width)?.to_union_map()?;
    Ok(!pairs.copy()?.intersect(carried)?.is_empty()?)
}

/// How far apart, at least, the two ends of the dependences from one statement to
/// another lie in each loop, for the dependences inside one loop (see
/// `Dependences::distances_within_loop`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairDistances {
    /// The statement the dependences start at.
    pub source: String,
    /// The statement they end at.
    pub sink: String,
    /// Per loop depth of the time stamp (time dimension 2k+1), the smallest distance
    /// `sink - source`; `None` when it is unbounded below (or does not fit an `i64`).
    pub lower: Vec<Option<i64>>,
}

/// The distance vectors `time(sink) - time(source)` of the dependences from one
/// statement to another, in the original time space (see
/// `Dependences::deltas_within_loop`).
pub struct PairDeltas {
    /// The statement the dependences start at.
    pub source: String,
    /// The statement they end at.
    pub sink: String,
    /// `{ [d0, ..., d(w-1)] }`, one dimension per time dimension (iterators at 2k+1).
    pub deltas: Set,
}

/// The lower bounds of `deps` between each pair of statements, for the pairs of instances
/// inside the loop at `prefix` in one iteration of the loops around it, under
/// `original_schedule` (one map per statement, all of one width).
pub(super) fn distances_within_loop(
    deps: &UnionMap,
    original_schedule: &UnionMap,
    prefix: &[u32],
) -> Result<Vec<PairDistances>, IslError> {
    deltas_within_loop(deps, original_schedule, prefix)?
        .into_iter()
        .map(|pair| {
            let width = pair.deltas.n_dims()?;
            let lower = (0..width / 2)
                .map(|depth| pair.deltas.dim_lower_bound(2 * depth + 1))
                .collect::<Result<_, _>>()?;
            Ok(PairDistances {
                source: pair.source,
                sink: pair.sink,
                lower,
            })
        })
        .collect()
}

/// The distance vectors of `deps` between each pair of statements (non-empty ones
/// only), for the pairs of instances inside the loop at `prefix` in one iteration of
/// the loops around it, under `original_schedule`.
pub(super) fn deltas_within_loop(
    deps: &UnionMap,
    original_schedule: &UnionMap,
    prefix: &[u32],
) -> Result<Vec<PairDeltas>, IslError> {
    let schedules = original_schedule.maps()?;
    let Some(width) = schedules.first().map(|m| m.n_out()).transpose()? else {
        return Ok(Vec::new());
    };
    let schedule_of = |name: &Option<String>| {
        schedules
            .iter()
            .find(|s| s.domain_name() == *name)
            .map(|s| s.copy())
            .transpose()
    };
    let within = within_loop(&deps.ctx(), prefix, width)?;
    let mut out = Vec::new();
    for dep in deps.maps()? {
        let (source, sink) = (dep.domain_name(), dep.range_name());
        let (Some(from), Some(to)) = (schedule_of(&source)?, schedule_of(&sink)?) else {
            continue;
        };
        let deltas = from
            .reverse()?
            .apply_range(dep)?
            .apply_range(to)?
            .intersect(within.copy()?)?
            .deltas()?;
        if deltas.is_empty()? {
            continue;
        }
        out.push(PairDeltas {
            source: source.unwrap_or_default(),
            sink: sink.unwrap_or_default(),
            deltas,
        });
    }
    Ok(out)
}
