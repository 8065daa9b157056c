//! Time tiling of iterated stencils: `for t { sweep 1; sweep 2; ... }` whose sweeps read
//! their neighbours' values of the previous step. Within one time step nothing is
//! reused once a sweep has passed, so when a step's arrays do not fit in L2 every step
//! streams them from memory again; tiles that run several time steps over a block of
//! rows before moving on keep those rows in cache. Such tiles need the row loops skewed
//! by the time loop (`y = s * t + i + c`): a dependence one row back in the next step
//! goes backwards in `i` and forward again in `y`.
//!
//! Each statement first gets a place in the stencil's space, `[t, x1, ..., x(d-1)]`
//! (`coordinates`): its own loops, or for a statement outside the row loops the place
//! of the element it writes (FDTD's boundary row, a point source). The schedule built
//! here: band `[t, s1*t + x1 + c1, ..., s(d-2)*t + x(d-2) + c(d-2)]` over every space
//! dimension but the innermost, then the statements' order and innermost loops as
//! written. Innermost loops stay whole and unchanged (each sweep's own contiguous,
//! vectorizable row loop, with no condition inside), only which rows of which steps run
//! together changes. A 1-D stencil's one space loop is cut into strips that play the
//! rows. Skews `s` and the statements' shifts `c` are the smallest that make every
//! dependence go forward (or stay) in every member of the band, which makes the band
//! tilable: per dimension, shifts are a difference-constraint problem over the smallest
//! `s * dt + dx` of each pair of statements (`permutable::shifts`). Scalars that only
//! carry a value along one row are private to it (`deps::private`).
//!
//! Relies on `deps` for the dependences (and the private scalars' ones), on `reuse` for
//! whether a time step's data leaves the cache, and on the caller to check the schedule
//! against the dependences.

use std::collections::BTreeMap;

use crate::deps::{Dependences, DepsError, PairDeltas, PrivateScalars};
use crate::isl::scheduler;
use crate::isl::{AffineExpr, IslError, Map, Schedule, Set, Tuple, UnionMap, UnionSet};
use crate::model::{AccessKind, Scop, Statement};

use super::permutable::shifts;
use super::reuse::Reuse;

/// Largest skew tried for a loop: stencils of radius r need 2r (a sweep and its
/// copy-back, or two sweeps) or r (one sweep in place).
const MAX_SKEW: i64 = 4;

/// Time steps per tile and rows (skewed) per tile. Measured on a 2-D Jacobi sweep with
/// copy-back (100 steps, one core, rows whole): 8x8 tiles gave 1.5x at n = 500, 1.75x
/// at 1000 and 2.5x at 2048 over -O3; 16x16 tiles 2.8x at 2048, 4x4 tiles less
/// everywhere.
pub const TIME_TILE: i64 = 8;
pub const ROW_TILE: i64 = 16;

/// Elements per strip of a 1-D stencil, and strips per tile. Measured on a 1-D 3-point
/// sweep pair (1.5 M doubles, 200 steps, one core): strips of 512 by 8 steps and 8
/// strips ran 2.5x faster than -O3; strips of 256 to 2048 within 7% of that.
pub const STRIP: i64 = 512;
pub const STRIP_TILE: i64 = 8;

/// A time-tiled schedule, before tiling, and what it does.
pub struct TimeTiling {
    /// The time loop's skewed schedule: the band to tile first, the statements' order
    /// below it (the region's other loops are not in it: see `untiled`).
    pub schedule: Schedule,
    /// Members of the band to tile (the time loop and the skewed loops).
    pub band_members: usize,
    /// Whether the skewed loop is cut into strips (a 1-D stencil).
    pub strips: bool,
    /// The skew of each skewed loop, per time step.
    pub skews: Vec<i64>,
    /// For remarks: the loops skewed and how.
    pub description: String,
    /// What the schedule must respect: the dependences, with those of the scalars
    /// private to the band's points (`private`) between points left out.
    pub validity: UnionMap,
    /// Scalars private to the band's points, whose last write must stay the last.
    pub private: Vec<String>,
    /// Whether the statements of each innermost loop got the same shifts: each
    /// innermost loop then runs at one band point exactly as it ran in one iteration of
    /// the loops around it, so it gets no condition the original did not have.
    pub innermost_loops_kept: bool,
    /// The original schedule (flattened) of the region's loops before the time loop and
    /// after it, which run before and after its tiles as they did (`None`: none).
    before: Option<UnionMap>,
    after: Option<UnionMap>,
}

impl TimeTiling {
    /// The whole region's schedule with the time loop's `nest` schedule (`schedule`,
    /// tiled or not) between the loops before it and after it.
    pub fn region_schedule(&self, nest: Schedule) -> Result<Schedule, IslError> {
        let original = |partial: &UnionMap| {
            Schedule::from_domain(partial.copy()?.domain()?)?.insert_band(partial.copy()?)
        };
        let mut out = match &self.before {
            Some(before) => original(before)?.sequence(nest)?,
            None => nest,
        };
        if let Some(after) = &self.after {
            out = out.sequence(original(after)?)?;
        }
        Ok(out)
    }

    /// The region's schedule with the time loop untiled.
    pub fn untiled(&self) -> Result<Schedule, IslError> {
        self.region_schedule(self.schedule.copy()?)
    }

    /// The region's schedule with the time loop's band tiled with `sizes`.
    pub fn tiled(&self, sizes: &[i64]) -> Result<Schedule, IslError> {
        self.region_schedule(tile(&self.schedule, sizes)?)
    }
}

/// What time tiling makes of a region.
pub enum Outcome {
    /// The region is no time-iterated stencil losing reuse in its time loop.
    NotApplicable,
    /// It is one, but time tiles are refused, and why.
    Refused(String),
    /// The skewed schedule to tile.
    Tile(TimeTiling),
}

/// The skewed schedule of a time-iterated stencil region, if the region is one whose
/// time steps lose reuse and whose dependences allow the band.
/// Scalars carried along a row (LLVM keeps the previous column's value in a phi) are
/// private to the band's points (`deps::private`): their order between rows does not
/// constrain the skew.
pub fn candidate(scop: &Scop, deps: &Dependences, reuse: &Reuse) -> Result<Outcome, DepsError> {
    let nests = Nest::all(scop).map_err(|error| DepsError::Isl {
        region: scop.name.clone(),
        step: "finding the region's loop nests".into(),
        error,
    })?;
    let mut refused = None;
    for nest in &nests {
        match candidate_in(scop, nest, deps, reuse)? {
            Outcome::Tile(tiling) => return Ok(Outcome::Tile(tiling)),
            Outcome::Refused(reason) => {
                refused.get_or_insert(reason);
            }
            Outcome::NotApplicable => {}
        }
    }
    Ok(refused.map_or(Outcome::NotApplicable, Outcome::Refused))
}

/// One outermost loop of the region with the statements in it, and the statements of
/// the loops before and after it, which keep their order around its tiles.
struct Nest<'s> {
    statements: Vec<&'s Statement>,
    domains: UnionSet,
    /// The original schedule of the statements before the nest and after it,
    /// flattened (`None`: there are none).
    before: Option<UnionMap>,
    after: Option<UnionMap>,
}

impl<'s> Nest<'s> {
    /// The region's outermost loops that may be a stencil's time loop, in program order.
    fn all(scop: &'s Scop) -> Result<Vec<Nest<'s>>, IslError> {
        let mut out = Vec::new();
        for statements in outermost_loops(scop) {
            if stencil_depth(&statements).is_none() {
                continue;
            }
            let position = statements[0]
                .textual_positions
                .first()
                .copied()
                .unwrap_or(0);
            let original = |keep: &dyn Fn(u32) -> bool| -> Result<Option<UnionMap>, IslError> {
                let mut domains = UnionSet::empty(&scop.context.ctx())?;
                let mut any = false;
                for s in &scop.statements {
                    if s.textual_positions.first().is_some_and(|p| keep(*p)) {
                        domains = domains.add_set(s.domain.copy()?)?;
                        any = true;
                    }
                }
                if !any {
                    return Ok(None);
                }
                Ok(Some(scop.schedule.get_map()?.intersect_domain(domains)?))
            };
            let before = original(&|p| p < position)?;
            let after = original(&|p| p > position)?;
            let mut domains = UnionSet::empty(&scop.context.ctx())?;
            for s in &statements {
                domains = domains.add_set(s.domain.copy()?)?;
            }
            out.push(Nest {
                statements,
                domains,
                before,
                after,
            });
        }
        Ok(out)
    }
}

/// Time tiling of one loop nest of the region.
fn candidate_in(
    scop: &Scop,
    nest: &Nest<'_>,
    deps: &Dependences,
    reuse: &Reuse,
) -> Result<Outcome, DepsError> {
    let isl = |error| DepsError::Isl {
        region: scop.name.clone(),
        step: "building a time-tiled schedule".into(),
        error,
    };
    let statements = &nest.statements;
    let Some(depth) = stencil_depth(statements) else {
        return Ok(Outcome::NotApplicable);
    };
    if !time_loop_loses_reuse(reuse, statements) {
        return Ok(Outcome::NotApplicable);
    }
    let Some(first) = statements.first() else {
        return Ok(Outcome::NotApplicable);
    };
    let Some(coordinates) = coordinates(scop, statements, depth).map_err(isl)? else {
        return Ok(Outcome::NotApplicable);
    };
    let strip = (depth == 2).then_some(STRIP);
    let rows = band(scop, &coordinates, &unskewed(depth, strip)).map_err(isl)?;
    let flows = deps.scalar_flows(scop)?;
    let private = match &flows {
        Some(flows) => flows.private_to(&rows)?,
        None => None,
    };
    let relation = shift_constraints(deps, private.as_ref()).map_err(isl)?;
    let time_loop = &first.textual_positions[..1];
    let width = 2 * depth + 1;
    let pairs = space_deltas(&relation, &coordinates).map_err(isl)?;
    let Some(skews) = skews(scop, &pairs, depth, strip).map_err(isl)? else {
        return Ok(Outcome::NotApplicable);
    };
    // Without a skew the band is permutable as it is: ordinary tiling's business.
    if skews.iter().all(|s| s.factor == 0) {
        return Ok(Outcome::NotApplicable);
    }
    let flow = private.as_ref().map_or(&deps.flow, |p| &p.flow);
    if let Some(statement) = innermost_recurrence(deps, flow, time_loop, width).map_err(isl)? {
        return Ok(Outcome::Refused(format!(
            "time tiles would not gain: an innermost loop carries a flow dependence through memory ({statement} reads what an earlier iteration wrote), so its iterations wait for each other whatever the cache holds"
        )));
    }
    let band = band(scop, &coordinates, &skews).map_err(isl)?;
    let (validity, private) = match private {
        None => (deps.validity().copy().map_err(isl)?, Vec::new()),
        Some(before) => match flows
            .as_ref()
            .map(|f| f.private_to(&band))
            .transpose()?
            .flatten()
        {
            Some(after) if after.scalars == before.scalars => (after.validity, after.scalars),
            _ => return Ok(Outcome::NotApplicable),
        },
    };
    let tail = tail(scop, &coordinates, depth).map_err(isl)?;
    let schedule = nest
        .domains
        .copy()
        .and_then(Schedule::from_domain)
        .and_then(|s| s.insert_band(tail))
        .and_then(|s| s.insert_band(band))
        .map_err(isl)?;
    let strips = strip.is_some();
    tiling(nest, depth, (skews, strips), schedule, (validity, private)).map_err(isl)
}

/// The time tiling of `nest` by `skews` (the statements `depth` loops deep at most;
/// `strips` when the skewed loop is cut into strips), with the dependences it must
/// respect and the scalars private to its band points.
fn tiling(
    nest: &Nest<'_>,
    depth: usize,
    (skews, strips): (Vec<Skew>, bool),
    schedule: Schedule,
    (validity, private): (UnionMap, Vec<String>),
) -> Result<Outcome, IslError> {
    Ok(Outcome::Tile(TimeTiling {
        innermost_loops_kept: innermost_loops_kept(&nest.statements, depth, &skews),
        strips,
        skews: skews.iter().map(|s| s.factor).collect(),
        schedule,
        band_members: skews.len() + 1,
        description: describe(&skews),
        validity,
        private,
        before: copied(&nest.before)?,
        after: copied(&nest.after)?,
    }))
}

/// The band's loops as they are (each loop cut into strips of `strip` elements, if
/// given): the rows of the stencil's space.
fn unskewed(depth: usize, strip: Option<i64>) -> Vec<Skew> {
    skewed_levels(depth)
        .map(|_| Skew {
            factor: 0,
            shifts: BTreeMap::new(),
            strip,
        })
        .collect()
}

/// Whether the time loop of the nest loses reuse: only that reuse is what time tiles
/// win back.
fn time_loop_loses_reuse(reuse: &Reuse, statements: &[&Statement]) -> bool {
    let in_nest = |name: &str| statements.iter().any(|s| s.name == name);
    matches!(reuse, Reuse::Lost(lost) if lost.iter().any(|l| l.levels.contains(&0) && in_nest(&l.statement)))
}

/// The dependences the statements' shifts must keep forward. A private scalar's
/// accesses stay in one band point: their pairs constrain the shifts both ways (equal
/// shifts).
fn shift_constraints(
    deps: &Dependences,
    private: Option<&PrivateScalars>,
) -> Result<UnionMap, IslError> {
    match private {
        Some(p) => p.validity.copy()?.union(p.within.copy()?.reverse()?),
        None => deps.validity().copy(),
    }
}

/// Per skewed loop (1 ..= depth - 2): its skew and the statements' shifts; with
/// `strip`, a skew of one strip per time step. `None` when some loop has none (not a
/// stencil's time loop, or one skewed further than polyrust tries: the other
/// transformations say why they do not apply).
fn skews(
    scop: &Scop,
    pairs: &[PairDeltas],
    depth: usize,
    strip: Option<i64>,
) -> Result<Option<Vec<Skew>>, IslError> {
    let mut skews = Vec::new();
    for level in skewed_levels(depth) {
        let Some(found) = skew_for(scop, pairs, depth, level)? else {
            return Ok(None);
        };
        skews.push(match strip {
            // One strip per time step holds a skew of up to a strip's elements, whose
            // dependences reach at most one strip back.
            Some(elements) if found.factor <= elements => Skew {
                factor: i64::from(found.factor > 0),
                strip,
                ..found
            },
            Some(_) => return Ok(None),
            None => found,
        });
    }
    Ok(Some(skews))
}

fn copied(map: &Option<UnionMap>) -> Result<Option<UnionMap>, IslError> {
    map.as_ref().map(UnionMap::copy).transpose()
}

/// The depth of the deepest of a nest's statements when it has the shape time tiling
/// handles: every statement inside one outermost loop (time), the deepest at least
/// three loops deep (time, a row loop to skew, an innermost loop kept whole), the
/// others with a place in the space (`coordinates`: a statement in front of an
/// innermost loop, such as the value LLVM loads before a row loop to carry it along
/// the row, or one that writes a boundary element); or the deepest two loops deep (a
/// 1-D stencil, whose one space loop is cut into strips that play the rows).
fn stencil_depth(statements: &[&Statement]) -> Option<usize> {
    let first = statements.first()?;
    let depth = statements.iter().map(|s| s.depth()).max()?;
    // Shallower statements need a place in the space (`coordinates`).
    let same = statements
        .iter()
        .all(|s| s.depth() >= 1 && s.textual_positions.first() == first.textual_positions.first());
    (same && depth >= 2).then_some(depth)
}

/// Whether the outermost loop loses reuse (what time tiles win back).
pub fn loses_reuse_in_time(reuse: &Reuse) -> bool {
    matches!(reuse, Reuse::Lost(lost) if lost.iter().any(|l| l.levels.contains(&0)))
}

/// Whether the region may be a 1-D stencil iterated in time, from its model alone
/// (before its dependences, which regions of two loops are otherwise refused without):
/// every statement two loops deep inside one outer loop, and an array read at another
/// element than a statement writes (a neighbour). Rank-1 updates, which read and write
/// the same element, are not.
pub fn may_be_1d_stencil(scop: &Scop) -> Result<bool, IslError> {
    for statements in outermost_loops(scop) {
        if stencil_depth(&statements) == Some(2) && reads_a_neighbour(&statements)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The statements of each outermost loop of the region, in program order.
fn outermost_loops(scop: &Scop) -> Vec<Vec<&Statement>> {
    let mut out: Vec<Vec<&Statement>> = Vec::new();
    for s in &scop.statements {
        let position = s.textual_positions.first();
        match out.last_mut() {
            Some(last) if last[0].textual_positions.first() == position => last.push(s),
            _ => out.push(vec![s]),
        }
    }
    out
}

/// Whether one of `statements` reads an array at another element than one of them
/// writes it.
fn reads_a_neighbour(statements: &[&Statement]) -> Result<bool, IslError> {
    let writes: Vec<_> = statements
        .iter()
        .flat_map(|s| s.accesses.iter().filter(|a| a.kind != AccessKind::Read))
        .collect();
    for statement in statements {
        for read in statement
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Read)
        {
            for write in writes.iter().filter(|w| w.array == read.array) {
                let (r, w) = (
                    read.relation.copy()?.drop_domain_name()?,
                    write.relation.copy()?.drop_domain_name()?,
                );
                if !r.is_equal(&w)? {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// Whether an innermost loop carries a flow dependence through memory (Gauss-Seidel's
/// `u[i][j - 1]`, written one iteration before): its iterations then wait for each
/// other whatever the cache holds, and time tiles gain nothing (measured: a 2-D 9-point
/// Gauss-Seidel sweep in place, n = 1200, ran 0.250 s under -O3 and 0.250 s
/// time-tiled).
fn innermost_recurrence(
    deps: &Dependences,
    flow: &UnionMap,
    time_loop: &[u32],
    width: usize,
) -> Result<Option<String>, IslError> {
    // `{ [d0, ..] : d0 = .. = 0 and d(width - 2) > 0 }`.
    let mut carried = Set::universe(&flow.ctx(), &[], &Tuple::counters(None, "d", width))?;
    for k in 0..width - 2 {
        carried = carried.fix_dim(k, 0)?;
    }
    let carried = carried.lower_bound_dim(width - 2, 1)?;
    for pair in deps.deltas_within_loop(flow, time_loop)? {
        if !pair.deltas.intersect(carried.copy()?)?.is_empty()? {
            return Ok(Some(pair.sink));
        }
    }
    Ok(None)
}

/// Whether every two statements of one innermost loop (the deepest statements with
/// the same positions) got the same shift in every skewed loop.
fn innermost_loops_kept(statements: &[&Statement], depth: usize, skews: &[Skew]) -> bool {
    let deepest: Vec<_> = statements.iter().filter(|s| s.depth() == depth).collect();
    deepest.iter().all(|a| {
        deepest.iter().all(|b| {
            a.textual_positions[..depth] != b.textual_positions[..depth]
                || skews
                    .iter()
                    .all(|skew| skew.shifts.get(&a.name) == skew.shifts.get(&b.name))
        })
    })
}

/// The loops skewed: every loop but the innermost, or the one space loop of a 1-D
/// stencil (then cut into strips).
fn skewed_levels(depth: usize) -> std::ops::Range<usize> {
    1..(depth - 1).max(2)
}

/// One skewed loop: `s * t + i + shift(statement)`, or with strips of `strip`
/// elements, `s * t + floor((i + shift) / strip)`.
struct Skew {
    factor: i64,
    shifts: BTreeMap<String, i64>,
    strip: Option<i64>,
}

/// The smallest skew of space dimension `level` (with shifts) that makes every
/// dependence go forward or stay in it, if one up to `MAX_SKEW` does. `pairs` are
/// distances `[dt, dx1, ..., dx(depth - 1)]` in the stencil's space.
fn skew_for(
    scop: &Scop,
    pairs: &[PairDeltas],
    depth: usize,
    level: usize,
) -> Result<Option<Skew>, IslError> {
    let ctx = scop.context.ctx();
    let dims = Tuple::counters(None, "d", depth);
    'factor: for factor in 0..=MAX_SKEW {
        // `{ [d0, ..] -> [factor * d0 + d(level)] }`.
        let skewed = AffineExpr::Input(0)
            .times(factor)
            .plus(AffineExpr::Input(level));
        let along = Map::from_affine(&ctx, &[], &dims, None, &[skewed])?;
        // Edge sink -> source of weight `distance`: shift(source) <= shift(sink) +
        // distance, as `permutable` has it.
        let mut edges = Vec::new();
        for pair in pairs {
            let skewed = pair.deltas.copy()?.apply(along.copy()?)?;
            match skewed.dim_lower_bound(0)? {
                Some(distance) => edges.push((pair.sink.as_str(), pair.source.as_str(), distance)),
                None => continue 'factor,
            }
        }
        if let Some(found) = shifts(&edges) {
            let shifts = found
                .into_iter()
                .map(|(name, shift)| (name.to_string(), shift))
                .collect();
            return Ok(Some(Skew {
                factor,
                shifts,
                strip: None,
            }));
        }
    }
    Ok(None)
}

/// Each statement's place in the stencil's space, `S[i0, ...] -> [t, x1, ...,
/// x(depth - 1)]`: its own loops for the deepest statements; for any shallower
/// statement that writes one element of an array the deepest statements write, that
/// element's place (FDTD's `ey[0][j] = f[t]` at row 0, a point source
/// `Hz[n / 2][n / 3] += p[t]`); a statement that writes nothing, at the first row; for
/// a statement one loop shallower in a row loop of the deepest, its loops as the row
/// loops (the innermost at 0: a value loaded before a row loop); for a statement in a
/// loop of its own, at the first row with that loop innermost. `None` when some
/// statement has no place.
fn coordinates(
    scop: &Scop,
    statements: &[&Statement],
    depth: usize,
) -> Result<Option<BTreeMap<String, Map>>, IslError> {
    let mut out = BTreeMap::new();
    for s in statements {
        let own = s.depth();
        let place = if own == depth {
            Some(statement_map(scop, s, iterators(own))?)
        } else {
            match written_place(scop, statements, s, depth)? {
                Some(place) => Some(place),
                // A statement that writes nothing (a load LLVM hoisted in front of a
                // loop that reads it again) is ordered by its reads alone: any place
                // the dependences allow, the time step's first row here.
                None if s.accesses.iter().all(|a| a.kind == AccessKind::Read) => {
                    let zeros = vec![AffineExpr::Constant(0); depth - 1];
                    Some(statement_map(scop, s, [iterators(1), zeros].concat())?)
                }
                // In a row loop of the deepest statements, in front of their innermost
                // loop, or in a loop of its own over rows (a row copied with memcpy):
                // that row.
                None if own + 1 == depth
                    && (in_a_row_loop(statements, s, depth)
                        || !innermost_loop_walks_columns(scop, s)?) =>
                {
                    let members = [iterators(own), vec![AffineExpr::Constant(0)]].concat();
                    Some(statement_map(scop, s, members)?)
                }
                // A loop of its own over columns (the top and bottom boundary rows
                // copied in one loop): at the first row, its loop as the innermost
                // dimension. Its dependences then place it (shifts).
                None if own == 2 => {
                    let zeros = vec![AffineExpr::Constant(0); depth - 2];
                    let members = [iterators(1), zeros, vec![AffineExpr::Input(1)]].concat();
                    Some(statement_map(scop, s, members)?)
                }
                None => None,
            }
        };
        let Some(place) = place else {
            return Ok(None);
        };
        out.insert(s.name.clone(), place);
    }
    Ok(Some(out))
}

/// Whether the innermost loop of statement `s` walks along the innermost dimension of
/// an array it writes one element of (`u[t + 1][0][x]` in a loop over `x`), rather than
/// along rows (`memcpy(In[i], Out[i], ..)` in a loop over `i`).
fn innermost_loop_walks_columns(scop: &Scop, s: &Statement) -> Result<bool, IslError> {
    let own = s.depth();
    if own == 0 {
        return Ok(false);
    }
    let ctx = scop.context.ctx();
    let mut shifted = iterators(own);
    shifted[own - 1] = AffineExpr::Input(own - 1).offset(1);
    let counters = Tuple::counters(Some(&s.name), "i", own);
    let next = Map::from_affine(&ctx, &[], &counters, Some(&s.name), &shifted)?;
    for write in s.accesses.iter().filter(|a| a.kind != AccessKind::Read) {
        let relation = write.relation.copy()?.intersect_domain(s.domain.copy()?)?;
        let rank = relation.n_out()?;
        if rank == 0 || !relation.is_single_valued()? {
            continue;
        }
        let subscripts = Tuple::counters(Some(&write.array), "c", rank);
        let innermost = [AffineExpr::Input(rank - 1)];
        let last = Map::from_affine(&ctx, &[], &subscripts, None, &innermost)?;
        let column = relation.apply_range(last)?;
        let following = next.copy()?.apply_range(column.copy()?)?;
        let common = column.copy()?.domain()?;
        let following = following.intersect_domain(common.copy()?)?;
        let column = column.intersect_domain(following.copy()?.domain()?)?;
        if !column.is_empty()? && !column.is_equal(&following)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether statement `s`, one loop shallower than the deepest statements, sits in one
/// of their row loops (the same loops around it), rather than in a loop of its own.
fn in_a_row_loop(statements: &[&Statement], s: &Statement, depth: usize) -> bool {
    let own = s.depth();
    statements.iter().any(|d| {
        d.depth() == depth && d.textual_positions.get(..own) == s.textual_positions.get(..own)
    })
}

/// `[params] -> { S[i0, ...] -> [members] }` for statement `s`.
fn statement_map(scop: &Scop, s: &Statement, members: Vec<AffineExpr>) -> Result<Map, IslError> {
    let counters = Tuple::counters(Some(&s.name), "i", s.depth());
    Map::from_affine(&scop.context.ctx(), &scop.params, &counters, None, &members)
}

/// The place of the one element statement `s` writes, where a deepest statement writes
/// the same array with its own space loops as subscripts (plus constants).
fn written_place(
    scop: &Scop,
    statements: &[&Statement],
    s: &Statement,
    depth: usize,
) -> Result<Option<Map>, IslError> {
    let is_array = |name: &str| scop.arrays.iter().any(|a| a.name == name && !a.is_scalar);
    let writes: Vec<_> = s
        .accesses
        .iter()
        .filter(|a| a.kind != AccessKind::Read && is_array(&a.array))
        .collect();
    let [write] = writes[..] else {
        return Ok(None);
    };
    if write.kind != AccessKind::MustWrite || !write.relation.is_single_valued()? {
        return Ok(None);
    }
    for deepest in statements.iter().filter(|r| r.depth() == depth) {
        for theirs in deepest
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::MustWrite && a.array == write.array)
        {
            // Element -> the deepest statement's space loops that write it.
            let loops = (1..depth).map(AffineExpr::Input).collect();
            let space = statement_map(scop, deepest, loops)?;
            let element_place = theirs.relation.copy()?.reverse()?.apply_range(space)?;
            if !element_place.is_single_valued()? {
                continue;
            }
            let place = write.relation.copy()?.apply_range(element_place)?;
            if !place.is_single_valued()? || place.is_empty()? {
                continue;
            }
            let time = statement_map(scop, s, iterators(1))?;
            return Ok(Some(time.flat_range_product(place)?));
        }
    }
    Ok(None)
}

/// The distance vectors of `relation` in the stencil's space (`[dt, dx1, ...]`), per
/// pair of statements.
fn space_deltas(
    relation: &UnionMap,
    coordinates: &BTreeMap<String, Map>,
) -> Result<Vec<PairDeltas>, IslError> {
    let mut out = Vec::new();
    for dep in relation.maps()? {
        let (Some(source), Some(sink)) = (dep.domain_name(), dep.range_name()) else {
            continue;
        };
        let (Some(from), Some(to)) = (coordinates.get(&source), coordinates.get(&sink)) else {
            continue;
        };
        let deltas = from
            .copy()?
            .reverse()?
            .apply_range(dep)?
            .apply_range(to.copy()?)?
            .deltas()?;
        if deltas.is_empty()? {
            continue;
        }
        out.push(PairDeltas {
            source,
            sink,
            deltas,
        });
    }
    Ok(out)
}

/// The band: each statement's place skewed, `[t, s1 * t + x1 + c1, ...]` (or with
/// strips, `s * t + floor((x1 + c) / strip)`).
fn band(
    scop: &Scop,
    coordinates: &BTreeMap<String, Map>,
    skews: &[Skew],
) -> Result<UnionMap, IslError> {
    over_places(scop, coordinates, |s, _| {
        let mut members = vec![AffineExpr::Input(0)];
        for (k, skew) in skews.iter().enumerate() {
            let shift = skew.shifts.get(&s.name).copied().unwrap_or(0);
            let time = AffineExpr::Input(0).times(skew.factor);
            let place = AffineExpr::Input(k + 1).offset(shift);
            members.push(match skew.strip {
                None => time.plus(place),
                Some(strip) => time.plus(place.floor_div(u32::try_from(strip).ok()?)),
            });
        }
        Some(members)
    })
}

/// The order within one point of the band: the statements' positions inside the time
/// loop (0 where a statement has fewer), then their place in the innermost dimension
/// (their innermost loop), then their position in it.
fn tail(
    scop: &Scop,
    coordinates: &BTreeMap<String, Map>,
    depth: usize,
) -> Result<UnionMap, IslError> {
    over_places(scop, coordinates, |s, dims| {
        let position = |k: usize| {
            AffineExpr::Constant(s.textual_positions.get(k).map_or(0, |p| i64::from(*p)))
        };
        let mut members: Vec<AffineExpr> = (1..depth).map(position).collect();
        members.push(AffineExpr::Input(dims - 1));
        members.push(position(depth));
        Some(members)
    })
}

/// The union over the statements of `{ S[...] -> [members] }`, the members (given the
/// statement and the number of its place's dimensions) written over its place
/// `[d0, d1, ...]`.
fn over_places(
    scop: &Scop,
    coordinates: &BTreeMap<String, Map>,
    mut members: impl FnMut(&Statement, usize) -> Option<Vec<AffineExpr>>,
) -> Result<UnionMap, IslError> {
    let ctx = scop.context.ctx();
    let mut out = UnionMap::empty(&ctx)?;
    for s in &scop.statements {
        let Some(place) = coordinates.get(&s.name) else {
            continue;
        };
        let dims = place.n_out()?;
        let members = members(s, dims).ok_or_else(|| IslError::Other {
            context: "time tiling".into(),
            message: format!("no members over the place of {}", s.name),
        })?;
        let over = Tuple::counters(None, "d", dims);
        let map = Map::from_affine(&ctx, &[], &over, None, &members)?;
        out = out.add_map(place.copy()?.apply_range(map)?)?;
    }
    Ok(out)
}

/// The counters `i0, i1, ...` of `depth` loops, as images.
fn iterators(depth: usize) -> Vec<AffineExpr> {
    (0..depth).map(AffineExpr::Input).collect()
}

/// `loop 2 skewed by 2 per time step (statements shifted by -1..0)`, per skewed loop.
fn describe(skews: &[Skew]) -> String {
    let loops: Vec<String> = skews
        .iter()
        .enumerate()
        .map(|(k, skew)| {
            let (low, high) = skew
                .shifts
                .values()
                .fold((0, 0), |(lo, hi), s| (lo.min(*s), hi.max(*s)));
            let shifted = if low == high {
                String::new()
            } else {
                format!(" (statements shifted by {low}..{high})")
            };
            match skew.strip {
                None => format!("loop {} skewed by {} per time step{shifted}", k + 2, skew.factor),
                Some(strip) => format!(
                    "loop {} cut into strips of {strip} and skewed by {} strip per time step{shifted}",
                    k + 2,
                    skew.factor
                ),
            }
        })
        .collect();
    loops.join(", ")
}

/// The members of the time band that tiling splits: all of them.
pub fn tile_sizes(members: usize, strips: bool) -> Vec<i64> {
    let mut sizes = vec![if strips { STRIP_TILE } else { ROW_TILE }; members];
    if let Some(time) = sizes.first_mut() {
        *time = TIME_TILE;
    }
    sizes
}

/// How much less data a time-tiled sweep moves between memory and cache, estimated:
/// without tiles every time step brings each row (strip, plane) in again; a tile of `T`
/// steps and `B` rows per skewed loop brings in its rows and the `s * T` more its skew
/// reaches, once, for `T * B` row-steps.
pub fn traffic_ratio(skews: &[i64], sizes: &[i64]) -> f64 {
    let Some((&steps, rows)) = sizes.split_first() else {
        return 1.0;
    };
    let mut ratio = 1.0;
    let mut first = true;
    for (&skew, &rows) in skews.iter().zip(rows) {
        let reached = (rows + skew.max(0) * steps) as f64;
        // The time steps count once, for the first skewed loop.
        let work = if first {
            (steps * rows) as f64
        } else {
            rows as f64
        };
        first = false;
        ratio *= work / reached;
    }
    ratio
}

/// Tiles the band at the top of `schedule` with `sizes`, its loops atomic (see
/// `scheduler::tile_bands_atomic`).
pub fn tile(schedule: &Schedule, sizes: &[i64]) -> Result<Schedule, IslError> {
    scheduler::tile_bands_atomic(schedule, |band| {
        (band.depth == 0 && band.coincident.len() == sizes.len()).then(|| sizes.to_vec())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deps::DepsOptions;
    use crate::isl::IslCtx;
    use crate::model::spec_builders::{array, read, statement, write};
    use crate::model::{ScopSpec, StatementSpec};
    use crate::transform::reuse::LostReuse;

    fn region(statements: Vec<StatementSpec>) -> ScopSpec {
        ScopSpec {
            name: "f:for.body".into(),
            function: "f".into(),
            location: None,
            params: vec!["T".into(), "n".into()],
            context: "[T, n] -> { : }".into(),
            assumptions: vec![],
            arrays: vec![array("A", &["n"]), array("B", &["n"])],
            statements,
            alias_groups: vec![],
        }
    }

    const DOMAIN: &str =
        "[T, n] -> { S[t, i, j] : 0 <= t < T and 1 <= i < n - 1 and 1 <= j < n - 1 }";

    fn domain(name: &str) -> String {
        DOMAIN.replace("S[", &format!("{name}["))
    }

    /// `for t { for i, j: B[i][j] = A[i-1][j] + A[i+1][j] + A[i][j-1]; for i, j:
    /// A[i][j] = B[i][j] }`.
    fn jacobi() -> ScopSpec {
        region(vec![
            statement(
                "S0",
                &domain("S0"),
                &[0, 0, 0, 0],
                vec![
                    read("A", "{ S0[t, i, j] -> A[i - 1, j] }"),
                    read("A", "{ S0[t, i, j] -> A[i + 1, j] }"),
                    read("A", "{ S0[t, i, j] -> A[i, j - 1] }"),
                    write("B", "{ S0[t, i, j] -> B[i, j] }"),
                ],
            ),
            statement(
                "S1",
                &domain("S1"),
                &[0, 1, 0, 0],
                vec![
                    read("B", "{ S1[t, i, j] -> B[i, j] }"),
                    write("A", "{ S1[t, i, j] -> A[i, j] }"),
                ],
            ),
        ])
    }

    fn outcome(spec: &ScopSpec) -> (Scop, Outcome) {
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, spec).unwrap();
        let deps = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
        let lost = Reuse::Lost(vec![LostReuse {
            statement: "S0".into(),
            level: 0,
            footprint: None,
            levels: vec![0],
        }]);
        let outcome = candidate(&scop, &deps, &lost).unwrap();
        (scop, outcome)
    }

    #[test]
    fn a_sweep_with_its_copy_back_is_skewed_by_two_per_time_step() {
        let (_scop, outcome) = outcome(&jacobi());
        let Outcome::Tile(tiling) = outcome else {
            panic!("not time-tiled");
        };
        assert_eq!(
            tiling.description,
            "loop 2 skewed by 2 per time step (statements shifted by -1..0)"
        );
        assert_eq!(tiling.band_members, 2);
        let map = tiling.schedule.get_map().unwrap();
        assert!(crate::deps::respects(&tiling.validity, &map).unwrap());
        let tiled = tile(&tiling.schedule, &tile_sizes(2, false)).unwrap();
        assert!(crate::deps::respects(&tiling.validity, &tiled.get_map().unwrap()).unwrap());
    }

    #[test]
    fn an_in_place_sweep_whose_row_waits_for_itself_is_refused() {
        let spec = region(vec![statement(
            "S0",
            &domain("S0"),
            &[0, 0, 0, 0],
            vec![
                read("A", "{ S0[t, i, j] -> A[i - 1, j] }"),
                read("A", "{ S0[t, i, j] -> A[i + 1, j] }"),
                read("A", "{ S0[t, i, j] -> A[i, j - 1] }"),
                write("A", "{ S0[t, i, j] -> A[i, j] }"),
            ],
        )]);
        let (_scop, outcome) = outcome(&spec);
        let Outcome::Refused(reason) = outcome else {
            panic!("not refused");
        };
        assert!(
            reason.contains("S0 reads what an earlier iteration wrote"),
            "{reason}"
        );
    }

    #[test]
    fn a_loop_repeating_independent_sweeps_is_not_a_time_loop_to_skew() {
        // Each step reads only its own row of A: nothing goes backwards in i.
        let spec = region(vec![statement(
            "S0",
            &domain("S0"),
            &[0, 0, 0, 0],
            vec![
                read("A", "{ S0[t, i, j] -> A[i, j] }"),
                write("B", "{ S0[t, i, j] -> B[i, j] }"),
            ],
        )]);
        let (_scop, outcome) = outcome(&spec);
        assert!(matches!(outcome, Outcome::NotApplicable));
    }

    /// `for t { for i: B[i] = A[i-1] + A[i+1]; for i: A[i] = B[i-1] + B[i+1] }`, or
    /// with `rank_one`, `for t, i: A[i] = A[i] + B[i]` (no neighbour).
    fn line(rank_one: bool) -> ScopSpec {
        let domain =
            |name: &str| format!("[T, n] -> {{ {name}[t, i] : 0 <= t < T and 1 <= i < n - 1 }}");
        let statements = if rank_one {
            vec![statement(
                "S0",
                &domain("S0"),
                &[0, 0, 0],
                vec![
                    read("A", "{ S0[t, i] -> A[i] }"),
                    read("B", "{ S0[t, i] -> B[i] }"),
                    write("A", "{ S0[t, i] -> A[i] }"),
                ],
            )]
        } else {
            vec![
                statement(
                    "S0",
                    &domain("S0"),
                    &[0, 0, 0],
                    vec![
                        read("A", "{ S0[t, i] -> A[i - 1] }"),
                        read("A", "{ S0[t, i] -> A[i + 1] }"),
                        write("B", "{ S0[t, i] -> B[i] }"),
                    ],
                ),
                statement(
                    "S1",
                    &domain("S1"),
                    &[0, 1, 0],
                    vec![
                        read("B", "{ S1[t, i] -> B[i - 1] }"),
                        read("B", "{ S1[t, i] -> B[i + 1] }"),
                        write("A", "{ S1[t, i] -> A[i] }"),
                    ],
                ),
            ]
        };
        ScopSpec {
            arrays: vec![array("A", &[]), array("B", &[])],
            ..region(statements)
        }
    }

    #[test]
    fn a_1d_stencil_is_cut_into_strips_skewed_by_one_strip_per_step() {
        let ctx = IslCtx::new(None).unwrap();
        assert!(may_be_1d_stencil(&Scop::build(&ctx, &line(false)).unwrap()).unwrap());
        let (_scop, outcome) = outcome(&line(false));
        let Outcome::Tile(tiling) = outcome else {
            panic!("not time-tiled");
        };
        assert!(tiling.strips);
        assert_eq!(
            tiling.description,
            format!("loop 2 cut into strips of {STRIP} and skewed by 1 strip per time step (statements shifted by -1..0)")
        );
        let tiled = tile(&tiling.schedule, &tile_sizes(2, true)).unwrap();
        assert!(crate::deps::respects(&tiling.validity, &tiled.get_map().unwrap()).unwrap());
    }

    #[test]
    fn a_repeated_update_of_each_element_is_no_1d_stencil() {
        let ctx = IslCtx::new(None).unwrap();
        assert!(!may_be_1d_stencil(&Scop::build(&ctx, &line(true)).unwrap()).unwrap());
    }

    /// `for i: A[i] = in[i]; for t { for i: B[i] = A[i-1] + A[i+1]; for i: A[i] =
    /// B[i-1] + B[i+1] }; for i: out[i] = A[i]`.
    fn line_between_copies() -> ScopSpec {
        let spec = line(false);
        let copy = |name: &str, position: u32, access: Vec<crate::model::AccessSpec>| {
            statement(
                name,
                &format!("[T, n] -> {{ {name}[i] : 0 <= i < n }}"),
                &[position, 0],
                access,
            )
        };
        let mut statements = vec![copy(
            "C0",
            0,
            vec![
                read("I", "{ C0[i] -> I[i] }"),
                write("A", "{ C0[i] -> A[i] }"),
            ],
        )];
        for mut s in spec.statements {
            s.textual_positions[0] = 1;
            statements.push(s);
        }
        statements.push(copy(
            "C1",
            2,
            vec![
                read("A", "{ C1[i] -> A[i] }"),
                write("O", "{ C1[i] -> O[i] }"),
            ],
        ));
        ScopSpec {
            arrays: vec![
                array("A", &[]),
                array("B", &[]),
                array("I", &[]),
                array("O", &[]),
            ],
            statements,
            ..spec
        }
    }

    #[test]
    fn the_loops_around_a_time_loop_keep_their_order_around_its_tiles() {
        let ctx = IslCtx::new(None).unwrap();
        let spec = line_between_copies();
        assert!(may_be_1d_stencil(&Scop::build(&ctx, &spec).unwrap()).unwrap());
        let (scop, outcome) = outcome(&spec);
        let Outcome::Tile(tiling) = outcome else {
            panic!("not time-tiled");
        };
        assert!(tiling.strips);
        let deps = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
        for schedule in [tiling.untiled().unwrap(), tiling.tiled(&[3, 5]).unwrap()] {
            let map = schedule.get_map().unwrap();
            assert!(crate::deps::respects(&deps.all().unwrap(), &map).unwrap());
            // Every instance of the copies has a time.
            let timed = map.domain().unwrap();
            assert!(scop.domains.is_subset(&timed).unwrap());
        }
    }

    #[test]
    fn a_boundary_loop_of_its_own_sits_at_the_first_row_with_its_loop_innermost() {
        // for t { for j: A[0][j] = B[0][j], A[n-1][j] = B[n-1][j]; for i, j: A[i][j] =
        // B[i-1][j] + B[i+1][j]; for i, j: B[i][j] = A[i][j] }
        let boundary = statement(
            "S0",
            "[T, n] -> { S0[t, j] : 0 <= t < T and 0 <= j < n }",
            &[0, 0, 0],
            vec![
                read("B", "{ S0[t, j] -> B[0, j] }"),
                write("A", "{ S0[t, j] -> A[0, j] }"),
                read("B", "[n] -> { S0[t, j] -> B[n - 1, j] }"),
                write("A", "[n] -> { S0[t, j] -> A[n - 1, j] }"),
            ],
        );
        let sweep = statement(
            "S1",
            &domain("S1"),
            &[0, 1, 0, 0],
            vec![
                read("B", "{ S1[t, i, j] -> B[i - 1, j] }"),
                read("B", "{ S1[t, i, j] -> B[i + 1, j] }"),
                write("A", "{ S1[t, i, j] -> A[i, j] }"),
            ],
        );
        let back = statement(
            "S2",
            &domain("S2"),
            &[0, 2, 0, 0],
            vec![
                read("A", "{ S2[t, i, j] -> A[i, j] }"),
                write("B", "{ S2[t, i, j] -> B[i, j] }"),
            ],
        );
        let (_scop, outcome) = outcome(&region(vec![boundary, sweep, back]));
        let Outcome::Tile(tiling) = outcome else {
            panic!("not time-tiled");
        };
        // Shifts stay small: the boundary loop is no row loop of its own.
        assert!(
            tiling
                .description
                .starts_with("loop 2 skewed by 2 per time step"),
            "{}",
            tiling.description
        );
        assert!(
            !tiling.description.contains("-214"),
            "{}",
            tiling.description
        );
        let tiled = tiling.tiled(&tile_sizes(2, false)).unwrap();
        assert!(crate::deps::respects(&tiling.validity, &tiled.get_map().unwrap()).unwrap());
    }

    #[test]
    fn traffic_estimate_counts_the_rows_the_skew_reaches() {
        // 8 steps x 16 rows reach 16 + 2 * 8 rows: 128 row-steps for 32 rows.
        assert_eq!(traffic_ratio(&[2], &[8, 16]), 4.0);
        // 3-D: the planes' second skewed loop halves it.
        assert_eq!(traffic_ratio(&[2, 2], &[8, 16, 16]), 2.0);
        assert_eq!(traffic_ratio(&[], &[]), 1.0);
    }
}
