//! Interchange with distribution: the candidate schedule "the original program order,
//! with one statement's loops reordered so that its innermost loop is contiguous",
//! where isl's scheduler gives nothing better. To reorder a statement's loops from
//! some depth on, the statements sharing those loops with it are distributed into
//! loops of their own before and after it: covariance's `for a, b: { s = 0; for i:
//! s += X[i][a] * X[i][b]; cov[a][b] = s }` (with `s` kept in `cov[a][b]`, see
//! `detect::promoted`) becomes `for a: { for b: init; for i: for b: update; for b:
//! store }`, whose innermost loop walks rows of X and cov.
//!
//! Works on the 2d+1 time stamps `[b0, i0, b1, i1, ..., bd]` of the original schedule:
//! at the depth where the statement's loops start to differ, its textual position and
//! those of the statements sharing that loop are split three ways (before it, it,
//! after it). Each candidate is checked against the dependences and the cost model's
//! strides; the first statement order that gains is kept, and the search goes on from
//! there.
//!
//! Relies on the statements' textual positions and domains from the model, and on
//! `cost` for strides.

use crate::isl::{AffineExpr, IslError, Map, Schedule, Tuple, UnionMap};
use crate::model::Scop;

use super::cost::{self, Assessment, StatementView};
use super::reuse;

/// One statement's place in a candidate: its textual positions and the order of its
/// loops (`order[k]` is the original loop at depth `k`).
#[derive(Clone)]
struct Place {
    positions: Vec<i64>,
    order: Vec<usize>,
}

/// The best interchange found, as a schedule with what changed, or `None` when no
/// statement's innermost loop gets fewer strided accesses. `valid` checks a candidate
/// map against the dependences.
///
/// An interchange changes the loop order of one statement only (the others' positions
/// move, their loops and strides do not), so each candidate is assessed on that
/// statement alone, and a permutation of loops needs no check that it is one.
pub fn candidate(
    scop: &Scop,
    valid: &mut dyn FnMut(&UnionMap) -> Result<bool, IslError>,
) -> Result<Option<(Schedule, Assessment, Vec<String>)>, IslError> {
    let statements = StatementView::all(scop);
    let mut places: Vec<Place> = scop
        .statements
        .iter()
        .map(|s| Place {
            positions: s.textual_positions.iter().map(|p| i64::from(*p)).collect(),
            order: (0..s.textual_positions.len().saturating_sub(1)).collect(),
        })
        .collect();
    let width = places.iter().map(|p| p.order.len()).max().unwrap_or(0) * 2 + 1;
    let original = scop
        .statements
        .iter()
        .zip(&statements)
        .map(|(s, view)| cost::strided_count(view, &s.schedule))
        .collect::<Result<Vec<usize>, _>>()?;
    let mut current = original.clone();
    let mut best: Option<UnionMap> = None;
    let mut described = Vec::new();
    for s in 0..places.len() {
        // Only a statement with a strided access in its innermost loop can gain; and
        // only one in an innermost loop: one between loops runs once per row, and
        // distributing its loops from the nest inside costs more than its stride
        // gains (matchain_dp's `best = INT_MAX` before the loop over k, kept in
        // `Cost[i][j]`: 0.222 s -> 0.236 s with its loops interchanged, -O3 0.219 s).
        if original[s] == 0 || !reuse::in_innermost_loop(&scop.statements[s], &scop.statements) {
            continue;
        }
        let depth = places[s].order.len();
        for loop_ in 0..depth.saturating_sub(1) {
            let trial = move_innermost(&places, s, loop_);
            let own = time_stamps(scop, &scop.statements[s].name, &trial[s], width)?;
            let strided = cost::strided_count(&statements[s], &own)?;
            if strided >= current[s] {
                continue;
            }
            let map = flat_map(scop, &trial)?;
            if valid(&map)? {
                described.push(format!(
                    "loop {} of {} moved innermost",
                    loop_ + 1,
                    scop.statements[s].name
                ));
                places = trial;
                current[s] = strided;
                best = Some(map);
                break;
            }
        }
    }
    let Some(map) = best else {
        return Ok(None);
    };
    let assessment = Assessment {
        not_a_permutation: None,
        worse_stride: None,
        strided_before: original.iter().sum(),
        strided_after: current.iter().sum(),
    };
    let schedule = Schedule::from_domain(scop.domains.copy()?)?.insert_band(map)?;
    Ok(Some((schedule, assessment, described)))
}

/// `places` with loop `loop_` of statement `s` moved innermost and `s` distributed from
/// the statements sharing that loop.
fn move_innermost(places: &[Place], s: usize, loop_: usize) -> Vec<Place> {
    let mut out = places.to_vec();
    // Split position `loop_` (the position of the loop at that depth) three ways for
    // the statements that share loops 0..=loop_ with `s`; every other statement with a
    // position there keeps its order by taking the middle slot.
    let prefix = places[s].positions[..=loop_].to_vec();
    for (k, place) in out.iter_mut().enumerate() {
        if place.positions.len() <= loop_ {
            continue;
        }
        let shares = place.positions.len() > loop_ + 1 && place.positions[..=loop_] == prefix[..];
        let slot = match (shares, k.cmp(&s)) {
            (true, std::cmp::Ordering::Less) => 0,
            (true, std::cmp::Ordering::Greater) => 2,
            _ => 1,
        };
        place.positions[loop_] = place.positions[loop_] * 3 + slot;
    }
    let order = &mut out[s].order;
    let moved = order.remove(loop_);
    order.push(moved);
    out
}

/// The flattened schedule of `places`: `{ S[i0, i1] -> [b0, i0, b1, i1, b2, 0, 0] }`
/// padded to the deepest statement.
fn flat_map(scop: &Scop, places: &[Place]) -> Result<UnionMap, IslError> {
    let width = places.iter().map(|p| p.order.len()).max().unwrap_or(0) * 2 + 1;
    let pieces = scop
        .statements
        .iter()
        .zip(places)
        .map(|(statement, place)| time_stamps(scop, &statement.name, place, width))
        .collect::<Result<Vec<Map>, IslError>>()?;
    UnionMap::from_maps(&scop.context.ctx(), pieces)
}

/// One statement's part of the flattened schedule, `width` time dimensions wide.
fn time_stamps(scop: &Scop, name: &str, place: &Place, width: usize) -> Result<Map, IslError> {
    let mut time = Vec::with_capacity(width);
    for (k, position) in place.positions.iter().enumerate() {
        time.push(AffineExpr::Constant(*position));
        if let Some(original) = place.order.get(k) {
            time.push(AffineExpr::Input(*original));
        }
    }
    time.resize(width, AffineExpr::Constant(0));
    let counters = Tuple::counters(Some(name), "i", place.order.len());
    Map::from_affine(&scop.context.ctx(), &scop.params, &counters, None, &time)
}
