//! Whether the reuse a region loses can be reached by tiling without skewing: a band of
//! loops can be tiled when, after reordering its loops and shifting statements against
//! each other by constants, every dependence inside it goes forward (or stays) in each
//! of its loops. polyrust accepts permutations and shifts but not skews, so when no
//! band of enough loops around a statement that loses reuse can be made permutable that
//! way, isl's scheduler (the costliest step, and on time-iterated stencils a skewing
//! one) has nothing to offer that the cost model would take.
//!
//! Per loop of a candidate band, shifts exist exactly when the difference constraints
//! `shift(sink) - shift(source) >= -distance` have no negative cycle (Bellman-Ford over
//! the statements). The check is an over-approximation of what could be tiled: a loop
//! moved outside the band to carry dependences away is not considered, so it can only
//! say "maybe" too often, never "no" for a band isl could tile with permutations and
//! shifts.
//!
//! Relies on `deps` for the smallest distances per statement pair inside a loop, and on
//! `reuse` for where reuse is lost.

use std::collections::BTreeMap;

use crate::deps::{Dependences, PairDistances};
use crate::isl::IslError;
use crate::model::Scop;

use super::reuse::LostReuse;

/// Why no band that could gain from tiling can be tiled without skewing, or `None` when
/// one may be: for each statement in `lost`, every band of at least `min_loops` of its
/// loops that holds a loop losing reuse.
pub fn tiling_needs_skewing(
    scop: &Scop,
    deps: &Dependences,
    lost: &[LostReuse],
    min_loops: usize,
) -> Result<Option<String>, IslError> {
    let depth_of: BTreeMap<&str, usize> = scop
        .statements
        .iter()
        .map(|s| (s.name.as_str(), s.depth()))
        .collect();
    let mut within: BTreeMap<Vec<u32>, Vec<PairDistances>> = BTreeMap::new();
    for reuse in lost {
        let Some(statement) = scop.statements.iter().find(|s| s.name == reuse.statement) else {
            continue;
        };
        let depth = statement.depth();
        for start in 0..depth {
            let prefix = &statement.textual_positions[..=start];
            if !within.contains_key(prefix) {
                within.insert(prefix.to_vec(), deps.distances_within_loop(prefix)?);
            }
            let pairs = &within[prefix];
            let tilable: Vec<usize> = (start..depth)
                .filter(|&level| shiftable(pairs, level, &depth_of))
                .collect();
            if tilable.len() >= min_loops && tilable.iter().any(|l| reuse.levels.contains(l)) {
                return Ok(None);
            }
        }
    }
    let Some(first) = lost.first() else {
        return Ok(None);
    };
    Ok(Some(format!(
        "{} loses reuse in loop {}, but no band of {min_loops} of its loops can be tiled without skewing: in each, a dependence goes backwards in some loop whatever their order and the statements' shifts (polyrust skews loops only to tile the time loop of iterated stencils)",
        first.statement,
        first.level + 1
    )))
}

/// Whether constant shifts of the statements make every distance in the loop at
/// `level` non-negative, for the statements at least `level + 1` loops deep.
fn shiftable(pairs: &[PairDistances], level: usize, depth_of: &BTreeMap<&str, usize>) -> bool {
    let deep = |name: &str| depth_of.get(name).is_some_and(|d| *d > level);
    // Edge sink -> source of weight `distance`: shift(source) <= shift(sink) + distance.
    let mut edges = Vec::new();
    for pair in pairs.iter().filter(|p| deep(&p.source) && deep(&p.sink)) {
        match pair.lower.get(level).copied().flatten() {
            Some(distance) => edges.push((pair.sink.as_str(), pair.source.as_str(), distance)),
            None => return false,
        }
    }
    shifts(&edges).is_some()
}

/// Shifts that satisfy every edge `(sink, source, distance)`, i.e. `shift(source) <=
/// shift(sink) + distance` (each shift 0 or below), or `None` when the constraints
/// have a negative cycle. Statements on no edge get no shift.
pub(super) fn shifts<'a>(edges: &[(&'a str, &'a str, i64)]) -> Option<BTreeMap<&'a str, i64>> {
    let mut shift: BTreeMap<&str, i64> = BTreeMap::new();
    for (from, to, _) in edges {
        shift.insert(from, 0);
        shift.insert(to, 0);
    }
    // Bellman-Ford from a virtual source at distance 0 to every statement: a relaxation
    // still possible after |statements| rounds means a negative cycle.
    for _ in 0..=shift.len() {
        let mut changed = false;
        for (from, to, weight) in edges {
            let candidate = shift[from].saturating_add(*weight);
            if candidate < shift[to] {
                shift.insert(to, candidate);
                changed = true;
            }
        }
        if !changed {
            return Some(shift);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(source: &str, sink: &str, lower: &[Option<i64>]) -> PairDistances {
        PairDistances {
            source: source.into(),
            sink: sink.into(),
            lower: lower.to_vec(),
        }
    }

    fn depths(names: &[(&'static str, usize)]) -> BTreeMap<&'static str, usize> {
        names.iter().copied().collect()
    }

    #[test]
    fn a_self_dependence_going_backwards_cannot_be_shifted() {
        let d = depths(&[("S0", 3)]);
        let pairs = [pair("S0", "S0", &[Some(1), Some(-1), Some(0)])];
        assert!(shiftable(&pairs, 0, &d));
        assert!(!shiftable(&pairs, 1, &d));
        assert!(shiftable(&pairs, 2, &d));
    }

    #[test]
    fn a_one_sided_distance_between_two_statements_is_shifted_away() {
        let d = depths(&[("S0", 2), ("S1", 2)]);
        // S1 reads what S0 wrote one column later: shifting S1 by one fixes it.
        let pairs = [pair("S0", "S1", &[Some(0), Some(-1)])];
        assert!(shiftable(&pairs, 1, &d));
    }

    #[test]
    fn a_cycle_whose_distances_sum_below_zero_cannot_be_shifted() {
        let d = depths(&[("S0", 3), ("S1", 3)]);
        // Jacobi with a copy-back: S0 -> S1 in the same step (distance 0), S1 -> S0 in
        // the next step at -1..1.
        let pairs = [
            pair("S0", "S1", &[Some(0), Some(0), Some(0)]),
            pair("S1", "S0", &[Some(1), Some(-1), Some(-1)]),
        ];
        assert!(shiftable(&pairs, 0, &d));
        assert!(!shiftable(&pairs, 1, &d));
        assert!(!shiftable(&pairs, 2, &d));
    }

    #[test]
    fn an_unbounded_backward_distance_cannot_be_shifted() {
        let d = depths(&[("S0", 2)]);
        let pairs = [pair("S0", "S0", &[Some(1), None])];
        assert!(!shiftable(&pairs, 1, &d));
    }

    #[test]
    fn statements_outside_the_loop_do_not_constrain_it() {
        let d = depths(&[("S0", 2), ("S1", 1)]);
        let pairs = [pair("S0", "S1", &[Some(0), Some(-5)])];
        assert!(shiftable(&pairs, 1, &d));
    }
}
