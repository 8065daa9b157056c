//! Rows along a wavefront: an in-place sweep whose innermost loop waits for its own
//! previous iteration (Gauss-Seidel's `u[i][j] = f(.., u[i][j - 1], ..)`) runs at the
//! latency of that chain (a 9-point average: six additions and a division per element),
//! whatever the cache holds. The points of neighbouring rows `k` columns apart are
//! independent of each other; skewing the innermost loop by its row loop,
//! `w = k * i + j`, puts them at one `w`, and the schedule
//! `[outer loops, floor(i / ROWS), k * i + j, i]` runs `ROWS` rows' chains interleaved:
//! consecutive iterations of the new innermost loop (over rows) depend on nothing the
//! other just computed, and the core overlaps them. Each statement instance computes
//! its own expression as written, so results are bit for bit those of the original.
//!
//! Relies on `deps` for the dependences (the skew `k` is the smallest that makes every
//! dependence between two iterations of the row loop go forward in `w`), on the region
//! reading its carried values from memory (`detect::rotated` turns the values LLVM keeps
//! in phis back into loads) and on the caller to check the schedule against the
//! dependences.

use crate::deps::Dependences;
use crate::isl::{AffineExpr, IslCtx, IslError, Map, Schedule, Set, Tuple, UnionMap, UnionSet};
use crate::model::{AccessKind, Scop, Statement};

/// Rows whose chains run interleaved. Measured on PolyBench's seidel-2d (n = 2000, one
/// core, 20 steps): -O3 2.2 s; 4 rows 0.79 s, 8 rows 0.52 s, 16 rows 0.47 s, 32 rows
/// 0.63 s (the rows' lines leave L1).
pub const ROWS: i64 = 16;

/// Largest skew tried: a stencil of radius r needs r + 1.
const MAX_SKEW: i64 = 4;

/// The wavefront schedule of a region and what it does.
pub struct RowWavefront {
    /// `[outer loops, floor(i / ROWS), k * i + j, i]`.
    pub schedule: Schedule,
    /// For remarks: the skew and the rows interleaved.
    pub description: String,
}

/// The wavefront schedule of `scop`, when the region is one statement at least three
/// loops deep (an iterated sweep) whose innermost loop carries a flow dependence
/// through memory from the element it wrote before (`may_apply`), and some skew up to `MAX_SKEW` makes every dependence within one
/// iteration of the outer loops go forward in `w`.
pub fn candidate(scop: &Scop, deps: &Dependences) -> Result<Option<RowWavefront>, IslError> {
    let [statement] = &scop.statements[..] else {
        return Ok(None);
    };
    let depth = statement.depth();
    if !may_apply(scop)? || !innermost_carries(&deps.flow, statement, depth)? {
        return Ok(None);
    }
    let Some(within_rows) = self_deltas(deps.validity(), statement, depth)? else {
        return Ok(None);
    };
    let Some(skew) = smallest_skew(&scop.context.ctx(), &within_rows, depth)? else {
        return Ok(None);
    };
    let schedule = schedule(scop, statement, depth, skew)?;
    Ok(Some(RowWavefront {
        schedule,
        description: format!(
            "rows interleaved: loop {depth}, which waits for its own previous iteration, skewed by {skew} per row of loop {}, {ROWS} rows' chains at a time",
            depth - 1
        ),
    }))
}

/// Whether the region may get the wavefront, from its model alone (before its
/// dependences; the cache gives no reason to refuse it, as the chain's latency bounds
/// it whatever the cache holds): one statement at least three loops deep that reads
/// the element it wrote one iteration of its innermost loop before, another than the
/// one it writes.
pub fn may_apply(scop: &Scop) -> Result<bool, IslError> {
    let [statement] = &scop.statements[..] else {
        return Ok(false);
    };
    let depth = statement.depth();
    if depth < 3 {
        return Ok(false);
    }
    let mut previous: Vec<AffineExpr> = (0..depth).map(AffineExpr::Input).collect();
    previous[depth - 1] = AffineExpr::Input(depth - 1).offset(-1);
    let counters = Tuple::counters(Some(&statement.name), "i", depth);
    let ctx = scop.context.ctx();
    let back = Map::from_affine(
        &ctx,
        &scop.params,
        &counters,
        Some(&statement.name),
        &previous,
    )?;
    let accesses = &statement.accesses;
    for write in accesses.iter().filter(|a| a.kind == AccessKind::MustWrite) {
        let written_before = back.copy()?.apply_range(write.relation.copy()?)?;
        // An accumulation (`C[i][j] += ..` over k) reads the element it writes: its
        // chain is a reduction's, which tiles take.
        if written_before.is_equal(&write.relation)? {
            continue;
        }
        for read in accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Read && a.array == write.array)
        {
            if read.relation.is_equal(&written_before)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// Whether `relation` holds a dependence of `statement` on itself carried by its
/// innermost loop alone (distance `[0, .., 0, d]`, `d > 0`).
fn innermost_carries(
    relation: &UnionMap,
    statement: &Statement,
    depth: usize,
) -> Result<bool, IslError> {
    let Some(deltas) = self_deltas(relation, statement, depth)? else {
        return Ok(false);
    };
    let carried = deltas
        .fix_dim(depth - 2, 0)?
        .lower_bound_dim(depth - 1, 1)?;
    Ok(!carried.is_empty()?)
}

/// The distances of `relation`'s pairs of `statement` instances in one iteration of
/// the loops around its two innermost (the outer distances zero); `None` when there
/// are none.
fn self_deltas(
    relation: &UnionMap,
    statement: &Statement,
    depth: usize,
) -> Result<Option<Set>, IslError> {
    let mut within: Option<Set> = None;
    for map in relation.maps()? {
        let name = Some(statement.name.clone());
        if map.domain_name() != name || map.range_name() != name {
            continue;
        }
        let mut deltas = map.deltas()?;
        for level in 0..depth - 2 {
            deltas = deltas.fix_dim(level, 0)?;
        }
        within = Some(match within {
            Some(set) => set.union(deltas)?,
            None => deltas,
        });
    }
    match within {
        Some(set) if !set.is_empty()? => Ok(Some(set)),
        _ => Ok(None),
    }
}

/// The smallest `k` with `k * di + dj >= 1` for every distance `[.., di, dj]` of
/// `deltas`: every dependence between two points of the wavefront's rows then runs
/// forward in `w`, so none is carried by the loop over rows inside one `w`.
fn smallest_skew(ctx: &IslCtx, deltas: &Set, depth: usize) -> Result<Option<i64>, IslError> {
    // isl names the distances' tuple after the statement.
    let dims = Tuple::counters(deltas.tuple_name().as_deref(), "d", depth);
    for skew in 0..=MAX_SKEW {
        let along = AffineExpr::Input(depth - 2)
            .times(skew)
            .plus(AffineExpr::Input(depth - 1));
        let map = Map::from_affine(ctx, &deltas.param_names()?, &dims, None, &[along])?;
        let skewed = deltas.copy()?.apply(map)?;
        if skewed.dim_lower_bound(0)?.is_some_and(|least| least >= 1) {
            return Ok(Some(skew));
        }
    }
    Ok(None)
}

/// `{ S[i0, .., i, j] -> [i0, .., floor(i / ROWS), skew * i + j, i] }` as one band.
fn schedule(
    scop: &Scop,
    statement: &Statement,
    depth: usize,
    skew: i64,
) -> Result<Schedule, IslError> {
    let (row, column) = (AffineExpr::Input(depth - 2), AffineExpr::Input(depth - 1));
    let rows = u32::try_from(ROWS).map_err(|_| IslError::Other {
        context: "building the wavefront schedule".into(),
        message: "rows per wavefront out of range".into(),
    })?;
    let mut members: Vec<AffineExpr> = (0..depth - 2).map(AffineExpr::Input).collect();
    members.push(row.clone().floor_div(rows));
    members.push(row.clone().times(skew).plus(column));
    members.push(row);
    let counters = Tuple::counters(Some(&statement.name), "i", depth);
    let ctx = scop.context.ctx();
    let band = Map::from_affine(&ctx, &scop.params, &counters, None, &members)?;
    let domain = UnionSet::empty(&ctx)?.add_set(statement.domain.copy()?)?;
    Schedule::from_domain(domain)?.insert_band(UnionMap::empty(&ctx)?.add_map(band)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::parse_set;

    fn deltas(ctx: &IslCtx, text: &str) -> Set {
        parse_set(ctx, text, "distances").expect("set")
    }

    #[test]
    fn gauss_seidel_nine_points_needs_a_skew_of_two() {
        // Within one time step: the row above (0, 1, -1..1) and the left neighbour
        // (0, 0, 1); the skew w = 2i + j puts (i, j) and (i + 1, j - 2) together. isl
        // names the distances of a statement's dependences after it.
        let ctx = IslCtx::new(None).expect("ctx");
        let within = deltas(
            &ctx,
            "{ S1[0, 1, -1]; S1[0, 1, 0]; S1[0, 1, 1]; S1[0, 0, 1] }",
        );
        assert_eq!(smallest_skew(&ctx, &within, 3).expect("skew"), Some(2));
    }

    #[test]
    fn five_points_need_a_skew_of_one() {
        let ctx = IslCtx::new(None).expect("ctx");
        let within = deltas(&ctx, "{ [0, 1, 0]; [0, 0, 1] }");
        assert_eq!(smallest_skew(&ctx, &within, 3).expect("skew"), Some(1));
    }

    #[test]
    fn a_dependence_reaching_arbitrarily_far_back_has_no_skew() {
        let ctx = IslCtx::new(None).expect("ctx");
        let within = deltas(&ctx, "{ [0, 1, d] : d <= 0; [0, 0, 1] }");
        assert_eq!(smallest_skew(&ctx, &within, 3).expect("skew"), None);
    }
}
