//! Concurrent-start (diamond) tiles for a time-tiled stencil on OpenMP threads
//! (Bandishti, Pananilath and Bondhugula, SC'12). The time tiles of a skewed band
//! `[t, y, ...]` (`y = s * t + i + c`, see `time_tiling`) are parallelograms: along a
//! wavefront only the tile at the first rows can start, the next one once it is done,
//! and so on. When every dependence also runs forward (or stays) along a second
//! hyperplane `h = a * t - y + c(S)`, the band is tiled along `y` and `h` instead:
//! `y + h` depends on `t` alone, so the tiles that hold the first time steps form the
//! first diagonal of the wavefront and all start at once. That is Jacobi's case (a
//! sweep into a second array, or expanded in time): its dependences lie in the cone of
//! both `t + i` and `t - i`. Gauss-Seidel in place is not: within one time step a point
//! reads the row before it, new, so `y` grows where `t` stays, which no `h` orders.
//!
//! The choice (`hyperplane`) solves, for the smallest `a` up to `MAX_FACTOR`, the
//! statements' constants `c` as a difference-constraint problem (`permutable::shifts`),
//! as time tiling solves its skews. The tiles (`tiles`) then replace the band's tile
//! loops by `[B * floor(y / B), B * floor(h / B), (the other tile loops)]` and its
//! point loops by the band's own members (unshifted: a diamond holds points of several
//! parallelogram tiles), and are checked against the dependences with isl: every
//! distance non-negative in the new tile loops and in the point loops; the band is
//! left as it was otherwise. Points run in the same order as before within a tile, and
//! each statement instance computes exactly what it did: only the order of tiles
//! changes.
//!
//! Relies on the `isl` layer (`scheduler::replace_band`, `Set::stride`) and on
//! `wavefront`, which finds the band and runs the diamonds along a wavefront.

use std::collections::BTreeMap;

use crate::isl::scheduler::{self, BandInfo};
use crate::isl::{AffineExpr, IslError, Map, Schedule, Set, Tuple, UnionMap};

use super::permutable::shifts;

/// Largest time factor `a` of the second hyperplane tried: a stencil of radius `r`
/// swept in `k` statements per time step needs about `2 * k * r`.
const MAX_FACTOR: i64 = 8;

/// The second tiling hyperplane of a diamond over a band's points `[t, y, ...]`:
/// `factor * t - y + shift(S)` for each statement `S`.
#[derive(Debug)]
pub struct Hyperplane {
    /// The time factor `a`.
    pub factor: i64,
    /// Each statement's constant.
    pub shifts: BTreeMap<String, i64>,
}

/// Why a band keeps its pipelined start.
#[derive(Debug, PartialEq)]
pub enum Pipelined {
    /// The band's members are not a time step and the rows it skews (no band of tile
    /// and point loops with two members or more).
    NotApplicable,
    /// No `a * t - y + c` up to `MAX_FACTOR` has every dependence forward: one runs
    /// forward in `y` within a time step (Gauss-Seidel in place).
    OutsideCone,
    /// The diamond tiles failed the check against the dependences.
    Unchecked,
}

/// A band tiled in diamonds, not yet along a wavefront.
pub struct Diamond {
    /// The schedule with the band's tile and point loops replaced.
    pub schedule: Schedule,
    /// The second hyperplane.
    pub hyperplane: Hyperplane,
    /// The diamonds' size along `y` and along the second hyperplane.
    pub size: i64,
    /// The time tiles' sizes they replace (time steps, rows).
    pub time_tiles: (i64, i64),
}

impl Diamond {
    /// For remarks: the hyperplanes.
    pub fn describe(&self) -> String {
        format!(
            "tiled in diamonds along (y, {}t - y), y the skewed loop 2, {}x{} (as many points as the {}x{} time tiles): concurrent start, the tiles of the first time steps start at once",
            self.hyperplane.factor, self.size, self.size, self.time_tiles.0, self.time_tiles.1
        )
    }
}

/// The second hyperplane of diamonds over `points` (`{ S[..] -> [t, y, ...] }`, one
/// map per statement), when every dependence of `deps` between their instances runs
/// forward or stays in `y` and in some `a * t - y + c(S)`; the smallest `a`.
pub fn hyperplane(points: &UnionMap, deps: &UnionMap) -> Result<Option<Hyperplane>, IslError> {
    let places = per_statement(points)?;
    let pairs = statement_distances(&places, deps)?;
    let ctx = points.ctx();
    let dims = match places.values().next() {
        Some(place) => place.n_out()?,
        None => return Ok(None),
    };
    if dims < 2 {
        return Ok(None);
    }
    let counters = Tuple::counters(None, "d", dims);
    let along_y = Map::from_affine(&ctx, &[], &counters, None, &[AffineExpr::Input(1)])?;
    for (_, _, distances) in &pairs {
        match distances
            .copy()?
            .apply(along_y.copy()?)?
            .dim_lower_bound(0)?
        {
            Some(low) if low >= 0 => {}
            _ => return Ok(None),
        }
    }
    'factor: for factor in 1..=MAX_FACTOR {
        let second = AffineExpr::Input(0)
            .times(factor)
            .minus(AffineExpr::Input(1));
        let along = Map::from_affine(&ctx, &[], &counters, None, &[second])?;
        let mut edges = Vec::with_capacity(pairs.len());
        for (source, sink, distances) in &pairs {
            match distances.copy()?.apply(along.copy()?)?.dim_lower_bound(0)? {
                Some(low) => edges.push((sink.as_str(), source.as_str(), low)),
                None => continue 'factor,
            }
        }
        if let Some(found) = shifts(&edges) {
            return Ok(Some(Hyperplane {
                factor,
                shifts: found
                    .into_iter()
                    .map(|(name, shift)| (name.to_string(), shift))
                    .collect(),
            }));
        }
    }
    Ok(None)
}

/// The band at `index` of `schedule` (its tile loops, `bands[index]`, with its point
/// loops as the next band) tiled in diamonds, when the dependences allow it.
pub fn tiles(
    schedule: &Schedule,
    bands: &[BandInfo],
    index: usize,
    deps: &UnionMap,
) -> Result<Result<Diamond, Pipelined>, IslError> {
    let (Some(tile), Some(point)) = (bands.get(index), bands.get(index + 1)) else {
        return Ok(Err(Pipelined::NotApplicable));
    };
    let members = tile.coincident.len();
    let (Some(tile_partial), Some(point_partial)) = (&tile.partial, &point.partial) else {
        return Ok(Err(Pipelined::NotApplicable));
    };
    if members < 2 || point.coincident.len() != members || point.depth != members {
        return Ok(Err(Pipelined::NotApplicable));
    }
    let Some(strides) = strides(tile_partial, members)? else {
        return Ok(Err(Pipelined::NotApplicable));
    };
    let points = unshifted(tile_partial, point_partial, members)?;
    let Some(hyperplane) = hyperplane(&points, deps)? else {
        return Ok(Err(Pipelined::OutsideCone));
    };
    let size = diamond_size(strides[0], strides[1], hyperplane.factor);
    let mut sizes = strides.clone();
    sizes[1] = size;
    let diamonds = diamond_tile_loops(&points, &hyperplane, &sizes)?;
    if !forward_in_every_member(&diamonds, deps)? || !forward_in_every_member(&points, deps)? {
        return Ok(Err(Pipelined::Unchecked));
    }
    let schedule = scheduler::replace_band(schedule, index, &diamonds)?;
    let schedule = scheduler::replace_band(&schedule, index + 1, &points)?;
    Ok(Ok(Diamond {
        schedule,
        hyperplane,
        size,
        time_tiles: (strides[0], strides[1]),
    }))
}

/// The diamonds' size along `y` and `h`: as many band points `(t, y)` as the time
/// tiles of `steps` x `rows` held (a diamond of `B x B` holds `B * B / factor`), so
/// that each tile reuses its rows as often.
fn diamond_size(steps: i64, rows: i64, factor: i64) -> i64 {
    let points = steps * rows * factor;
    let mut size = rows;
    while size * size < points {
        size += 1;
    }
    size
}

/// The band's own members, `[t, y, ...]`: isl's point loops count from their tile's
/// start (`t - T`), the tile loops give that start (`T`).
fn unshifted(tiles: &UnionMap, points: &UnionMap, members: usize) -> Result<UnionMap, IslError> {
    let counters = Tuple::counters(None, "m", 2 * members);
    let sums: Vec<AffineExpr> = (0..members)
        .map(|k| AffineExpr::Input(k).plus(AffineExpr::Input(members + k)))
        .collect();
    let sum = Map::from_affine(&tiles.ctx(), &[], &counters, None, &sums)?;
    tiles
        .copy()?
        .flat_range_product(points.copy()?)?
        .apply_range(sum.to_union_map()?)
}

/// The strides of the tile loops (their tile sizes), each above 1.
fn strides(tiles: &UnionMap, members: usize) -> Result<Option<Vec<i64>>, IslError> {
    let values = tiles.copy()?.range()?.sets()?;
    let [values] = values.as_slice() else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(members);
    for k in 0..members {
        match values.stride(k)? {
            Some(stride) if stride > 1 => out.push(stride),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// The diamonds' tile loops over `points`: `[B1 * floor(y / B1), B1 * floor(h / B1),
/// Bk * floor(xk / Bk) ...]`, `h` the second hyperplane (`sizes[0]` is not used: the
/// diamonds replace the time tiles).
fn diamond_tile_loops(
    points: &UnionMap,
    hyperplane: &Hyperplane,
    strides: &[i64],
) -> Result<UnionMap, IslError> {
    let ctx = points.ctx();
    let tile = |expr: AffineExpr, size: i64| -> Result<AffineExpr, IslError> {
        let divisor = u32::try_from(size).map_err(|_| IslError::Other {
            context: "diamond tiles".into(),
            message: format!("tile size {size} out of range"),
        })?;
        Ok(expr.floor_div(divisor).times(size))
    };
    let mut out = UnionMap::empty(&ctx)?;
    for (name, place) in per_statement(points)? {
        let shift = hyperplane.shifts.get(&name).copied().unwrap_or(0);
        let second = AffineExpr::Input(0)
            .times(hyperplane.factor)
            .minus(AffineExpr::Input(1))
            .offset(shift);
        let mut members = vec![
            tile(AffineExpr::Input(1), strides[1])?,
            tile(second, strides[1])?,
        ];
        for (k, size) in strides.iter().enumerate().skip(2) {
            members.push(tile(AffineExpr::Input(k), *size)?);
        }
        let counters = Tuple::counters(None, "p", strides.len());
        let loops = Map::from_affine(&ctx, &[], &counters, None, &members)?;
        out = out.add_map(place.apply_range(loops)?)?;
    }
    Ok(out)
}

/// `partial`'s map of each statement, by name.
fn per_statement(partial: &UnionMap) -> Result<BTreeMap<String, Map>, IslError> {
    let mut out = BTreeMap::new();
    for map in partial.maps()? {
        if let Some(name) = map.domain_name() {
            out.insert(name, map);
        }
    }
    Ok(out)
}

/// The distances in `places` of the dependences between their statements' instances,
/// per pair `(source, sink)`.
fn statement_distances(
    places: &BTreeMap<String, Map>,
    deps: &UnionMap,
) -> Result<Vec<(String, String, Set)>, IslError> {
    let mut out = Vec::new();
    for dep in deps.maps()? {
        let (Some(source), Some(sink)) = (dep.domain_name(), dep.range_name()) else {
            continue;
        };
        let (Some(from), Some(to)) = (places.get(&source), places.get(&sink)) else {
            continue;
        };
        let distances = from
            .copy()?
            .reverse()?
            .apply_range(dep)?
            .apply_range(to.copy()?)?
            .deltas()?;
        if !distances.is_empty()? {
            out.push((source, sink, distances));
        }
    }
    Ok(out)
}

/// Whether every dependence between instances `partial` schedules has a non-negative
/// distance in each of its members.
fn forward_in_every_member(partial: &UnionMap, deps: &UnionMap) -> Result<bool, IslError> {
    for (_, _, distances) in statement_distances(&per_statement(partial)?, deps)? {
        for k in 0..distances.n_dims()? {
            match distances.dim_lower_bound(k)? {
                Some(low) if low >= 0 => {}
                _ => return Ok(false),
            }
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_set, parse_union_map, parse_union_set, IslCtx};
    use crate::transform::time_tiling;
    use crate::transform::wavefront::{self, Outcome, Start};

    /// PolyBench's 1-D Jacobi: `B[i] = f(A[i-1..i+1])` (S0), then `A[i] = f(B[i-1..i+1])`
    /// (S1), every time step; time-tiled as `y = 2t + i`, S1 shifted by one.
    const JACOBI_POINTS: &str =
        "[T, n] -> { S0[t, i] -> [t, 2t + i]; S1[t, i] -> [t, 2t + i + 1] }";
    const JACOBI_DEPS: &str = "[T, n] -> { \
        S0[t, i] -> S1[t, k] : -1 <= k - i <= 1 and 0 <= t < T and 1 <= i, k < n - 1; \
        S1[t, i] -> S0[t + 1, k] : -1 <= k - i <= 1 and 0 <= t < T - 1 and 1 <= i, k < n - 1; \
        S0[t, i] -> S0[t + 1, i] : 0 <= t < T - 1 and 1 <= i < n - 1; \
        S1[t, i] -> S1[t + 1, i] : 0 <= t < T - 1 and 1 <= i < n - 1 }";

    #[test]
    fn jacobi_ping_pong_takes_the_second_hyperplane_four_t_minus_y() {
        let ctx = IslCtx::new(None).unwrap();
        let points = parse_union_map(&ctx, JACOBI_POINTS, "points").unwrap();
        let deps = parse_union_map(&ctx, JACOBI_DEPS, "deps").unwrap();
        let found = hyperplane(&points, &deps).unwrap().expect("a hyperplane");
        // S0 -> S1 reaches two columns of y ahead within a step: S1's constant is two
        // more; S1 -> S0 of the next step then needs 4 per step (2t - i over (t, i)).
        assert_eq!(found.factor, 4);
        assert_eq!(found.shifts["S1"] - found.shifts["S0"], 2, "{found:?}");
    }

    #[test]
    fn diamonds_hold_as_many_points_as_the_time_tiles() {
        // 8 steps x 16 rows = 128 points; a 23x23 diamond over 4t - y holds 132.
        assert_eq!(diamond_size(8, 16, 4), 23);
        assert_eq!(diamond_size(8, 16, 2), 16);
        assert_eq!(diamond_size(8, 8, 2), 12);
        assert_eq!(diamond_size(4, 8, 2), 8);
    }

    #[test]
    fn gauss_seidel_in_place_has_no_second_hyperplane() {
        let ctx = IslCtx::new(None).unwrap();
        // `A[i] = f(A[i-1], A[i], A[i+1])` in place, `y = t + i`: the new left
        // neighbour is read within the step, one column of y ahead at the same t.
        let points =
            parse_union_map(&ctx, "[T, n] -> { S[t, i] -> [t, t + i] }", "points").unwrap();
        let deps = parse_union_map(
            &ctx,
            "[T, n] -> { S[t, i] -> S[t, i + 1] : 0 <= t < T and 1 <= i < n - 2; \
             S[t, i] -> S[t + 1, k] : -1 <= k - i <= 1 and 0 <= t < T - 1 and 1 <= i, k < n - 1 }",
            "deps",
        )
        .unwrap();
        assert!(hyperplane(&points, &deps).unwrap().is_none());
    }

    #[test]
    fn a_dependence_backwards_in_y_has_no_diamond() {
        let ctx = IslCtx::new(None).unwrap();
        let points = parse_union_map(&ctx, "[T, n] -> { S[t, i] -> [t, i] }", "points").unwrap();
        let deps = parse_union_map(
            &ctx,
            "[T, n] -> { S[t, i] -> S[t + 1, i - 1] : 0 <= t < T - 1 and 1 <= i < n }",
            "deps",
        )
        .unwrap();
        assert!(hyperplane(&points, &deps).unwrap().is_none());
    }

    /// A 2-D Jacobi sweep expanded in time, `A[t+1][i][j] = f(A[t][i-1..i+1][j])`,
    /// time-tiled over `[t, t + i]` (tiles 4x8), rows `j` whole inside.
    fn time_tiled(ctx: &IslCtx, deps: &str) -> (Schedule, UnionMap) {
        let domain = parse_union_set(
            ctx,
            "[T, n] -> { S[t, i, j] : 0 <= t < T and 1 <= i < n - 1 and 0 <= j < n }",
            "domain",
        )
        .unwrap();
        let schedule = Schedule::from_domain(domain)
            .unwrap()
            .insert_band(parse_union_map(ctx, "{ S[t, i, j] -> [j] }", "inner").unwrap())
            .unwrap()
            .insert_band(parse_union_map(ctx, "{ S[t, i, j] -> [t, t + i] }", "band").unwrap())
            .unwrap();
        let tiled = time_tiling::tile(&schedule, &[4, 8]).unwrap();
        (tiled, parse_union_map(ctx, deps, "deps").unwrap())
    }

    const EXPANDED: &str = "[T, n] -> { S[t, i, j] -> S[t + 1, k, j] : -1 <= k - i <= 1 and 0 <= t < T - 1 and 1 <= i < n - 1 and 1 <= k < n - 1 and 0 <= j < n }";

    /// The values of the wavefront loop (the schedule's first member) over the
    /// instances of the first time step, for T = 40, n = 200.
    fn first_step_fronts(schedule: &Schedule) -> (i64, i64) {
        let ctx = schedule.ctx();
        let fixed = parse_set(&ctx, "[T, n] -> { : T = 40 and n = 200 }", "params").unwrap();
        let first = parse_union_set(
            &ctx,
            "[T, n] -> { S[t, i, j] : t = 0 and 1 <= i < n - 1 and 0 <= j < n }",
            "first",
        )
        .unwrap();
        let fronts = schedule
            .get_map()
            .unwrap()
            .intersect_params(fixed)
            .unwrap()
            .intersect_domain(first)
            .unwrap()
            .range()
            .unwrap()
            .sets()
            .unwrap();
        fronts[0].dim_value_range(0).unwrap().expect("bounded")
    }

    #[test]
    fn jacobi_time_tiles_become_diamonds_that_start_together() {
        let ctx = IslCtx::new(None).unwrap();
        let (tiled, deps) = time_tiled(&ctx, EXPANDED);
        let Outcome::Front(front) = wavefront::wavefront(&tiled, &deps).unwrap() else {
            panic!("no wavefront");
        };
        assert!(
            matches!(front.start, Start::Concurrent { factor: 2 }),
            "{:?}",
            front.start
        );
        assert!(
            front.description.contains("diamonds along (y, 2t - y)"),
            "{}",
            front.description
        );
        assert!(crate::deps::respects(&deps, &front.schedule.get_map().unwrap()).unwrap());
        // Every tile of the first time step is on the first two diagonals (8 apart),
        // whatever the number of rows.
        let (low, high) = first_step_fronts(&front.schedule);
        assert!(high - low <= 8, "diagonals {low}..{high}");
    }

    #[test]
    fn pipelined_time_tiles_start_one_diagonal_per_tile_of_rows() {
        let ctx = IslCtx::new(None).unwrap();
        let (tiled, deps) = time_tiled(&ctx, EXPANDED);
        let schedule = scheduler::wavefront_band(&tiled, 0, &[2, 1]).unwrap();
        assert!(crate::deps::respects(&deps, &schedule.get_map().unwrap()).unwrap());
        let (low, high) = first_step_fronts(&schedule);
        assert!(high - low >= 190, "diagonals {low}..{high}");
    }

    #[test]
    fn gauss_seidel_time_tiles_keep_the_pipelined_start() {
        let ctx = IslCtx::new(None).unwrap();
        // In place: the next row's new value within the step too.
        let seidel = "[T, n] -> { S[t, i, j] -> S[t + 1, k, j] : -1 <= k - i <= 1 and 0 <= t < T - 1 and 1 <= i < n - 1 and 1 <= k < n - 1 and 0 <= j < n; S[t, i, j] -> S[t, i + 1, j] : 0 <= t < T and 1 <= i < n - 2 and 0 <= j < n }";
        let (tiled, deps) = time_tiled(&ctx, seidel);
        let Outcome::Front(front) = wavefront::wavefront(&tiled, &deps).unwrap() else {
            panic!("no wavefront");
        };
        assert!(
            matches!(front.start, Start::Pipelined(Pipelined::OutsideCone)),
            "{:?}",
            front.start
        );
        assert!(crate::deps::respects(&deps, &front.schedule.get_map().unwrap()).unwrap());
    }
}
