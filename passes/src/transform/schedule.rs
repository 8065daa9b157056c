//! The scheduling stage: a new schedule for a region from its dependences (isl's
//! scheduler: validity from all dependences, proximity for locality; no coincidence, the
//! code is sequential), its permutable bands tiled (SICA or fixed sizes), and the decision
//! whether the result is worth generating code for. Cheaper answers come first: the
//! refusals from the model alone (`refuse_early`), then, where the reuse that tiling
//! would reach needs skewing (`permutable`), the interchanges alone.
//!
//! Input: the region's model and dependences. Output: `Decision::Transform` with a
//! schedule checked against the dependences, or `Decision::Keep` with the reason.
//! Relies on `isl::scheduler` for the scheduler and tiling, on `sica` for sizes, and on
//! `reuse`, `permutable` and `interchange` for the cheaper answers.

use std::cell::OnceCell;

use crate::deps::Dependences;
use crate::isl::ast;
use crate::isl::scheduler::{self, BandInfo};
use crate::isl::{IslError, Map, Schedule, Set, Tuple, UnionMap};
use crate::model::assumptions::describe;
use crate::model::{Scop, ScopSpec};
use crate::options::{Options, Tiling};

use super::cost::{self, Assessment, StatementView};
use super::hardware::Hardware;
use super::interchange;
use super::permutable;
use super::register_tiling;
use super::reuse::{self, Locality, Reuse};
use super::row_wavefront;
use super::sica::{self, BlockAccess, NewElements, SicaBand, SicaDecision};
use super::time_tiling;
use super::traffic;

/// What to do with a region.
pub enum Decision {
    /// Leave it as it is, and why.
    Keep(String),
    /// Generate this schedule; the text says what changed.
    Transform {
        /// The new schedule.
        schedule: Schedule,
        /// What changed, as the remark says it.
        description: String,
        /// Point loops of a tiled band are unrolled and jammed into register tiles (the
        /// loop AST is larger: see `plan::fallbacks`).
        register_tiles: bool,
        /// Every dependence (flow, anti, output; reductions included), for marking
        /// the generated loops that carry none as parallel.
        dependences: UnionMap,
    },
}

/// Tile size of a band member SICA does not tile: large enough to never split a loop.
const UNTILED: i64 = 1 << 30;
/// Bands of fewer loops are not tiled: with two loops, -O3's code already streams
/// through cache lines, and the tile loops' bounds cost more than the reuse gives
/// (measured on the corpus: stencils and rank-1 updates slowed by up to 20%).
const MIN_TILED_LOOPS: usize = 3;
/// Estimated memory traffic (see `traffic`) a band's SICA tiles must divide by for the
/// band to be tiled: tile loops cost up to 20% where they gain nothing (measured on
/// stencils and rank-1 updates, see `MIN_TILED_LOOPS`), and the estimate is rough.
/// The tiles taken on the corpus are estimated 4.6x (rank2_sym_vla, measured 8.0x with
/// register tiles) to 39x (rank1_seq, measured 10.6x); the one refused, 1.0x, is
/// gram's `G[a][b] += X[i][a] * X[i][b]` distributed and tiled, where the interchange
/// alone is what gains.
const MIN_TRAFFIC_GAIN: f64 = 1.5;
/// Fixed tile size for members `-polyrust-tile-sizes` does not cover.
const DEFAULT_TILE: i64 = 32;

/// What the scheduling stage decides with: the tiling options (`-polyrust-tiling`,
/// `-polyrust-tile-sizes`, `-polyrust-time-tiling`, `-polyrust-sica-rho`) and whether
/// register tiles may be made (`-polyrust-register-tiling`, unless a fallback of the
/// plan took them away).
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleSettings {
    /// How tile sizes are chosen.
    pub tiling: Tiling,
    /// Time-iterated stencils may be tiled with their time loop (skewed).
    pub time_tiling: bool,
    /// Bands may be register tiled (unrolled and jammed).
    pub register_tiling: bool,
    /// The share of L1 that SICA's tiles fill, in (0, 1].
    pub sica_rho: f64,
    /// The rows of a two-loop chain band may be interleaved (see `chain_band`): the
    /// chain rule's cost judgement on the region (`judge_chains`); true until the
    /// region is known.
    pub interleave_rows: bool,
}

impl ScheduleSettings {
    /// The settings `options` give.
    pub fn new(options: &Options) -> Self {
        ScheduleSettings {
            tiling: options.tiling.clone(),
            time_tiling: options.time_tiling,
            register_tiling: options.register_tiling,
            sica_rho: options.sica_rho,
            interleave_rows: true,
        }
    }
}

/// What the chain rule's cost depends on beyond the model: facts about the function
/// and its target (see `judge_chains`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChainCost {
    /// The target fuses multiply-adds, whose longer steps make -O3's row after row
    /// slower than streaming the rows from memory.
    pub fused_multiply_add: bool,
    /// The region runs again over the same arrays in a loop of its function
    /// (`RegionIr::reruns_over_its_arrays`), so its rows may come from cache.
    pub reruns_over_its_arrays: bool,
}

/// The chain rule's judgement on a region (`judge_chains`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainRows {
    /// Two-loop chain bands interleave their rows (or the region has no chain).
    Interleaved,
    /// The rows stay in order; tiling or a new loop order may still gain.
    InOrder,
    /// The rows stay in order and nothing else gains: the region is kept, for this
    /// reason.
    Kept(String),
}

/// The chain rule's cost judgement, made once for a region whose `locality` (from
/// `refuse_early`, which lets every chain through) says a statement accumulates along
/// its innermost loop, and after blocks of rows (`transform::row_blocks`) had their
/// chance: its rows are interleaved where the target fuses multiply-adds, where they
/// may come from cache (`cost`), or where a statement writes several arrays (bicg's
/// `s[j] += r[i] * A[i][j]; q[i] += A[i][j] * p[j]`: interleaved rows share the row
/// update's elements as well as overlapping the chains, whatever the target;
/// PolyBench bicg at the default target: 4.9x of -O3 interleaved, 1.0x without).
/// Elsewhere the rows may stream from memory (`CHAINS_FROM_MEMORY`), and the region
/// is kept unless something else gains. `cost` is asked only of a region with a chain.
pub fn judge_chains(
    scop: &Scop,
    locality: &Locality,
    settings: &ScheduleSettings,
    cost: impl FnOnce() -> ChainCost,
) -> ChainRows {
    if locality.chain.is_none() || updates_several_arrays(scop) {
        return ChainRows::Interleaved;
    }
    let cost = cost();
    if cost.fused_multiply_add || cost.reruns_over_its_arrays {
        return ChainRows::Interleaved;
    }
    let min_loops = min_tiled_loops(settings);
    let deep = scop.statements.iter().any(|s| s.depth() >= min_loops);
    match why_nothing_to_gain(locality, settings, deep, min_loops, false) {
        Some(reason) => ChainRows::Kept(reason),
        None => ChainRows::InOrder,
    }
}

/// Whether a statement writes more than one array (see `judge_chains`).
fn updates_several_arrays(scop: &Scop) -> bool {
    scop.statements.iter().any(|s| {
        let mut written = s
            .accesses
            .iter()
            .filter(|a| a.kind != crate::model::spec::AccessKind::Read)
            .map(|a| a.array.as_str());
        written
            .next()
            .is_some_and(|first| written.any(|a| a != first))
    })
}

/// The decision on a region worth scheduling (see `refuse_early`), whose model is
/// `scop`, with `locality` from `refuse_early`.
pub fn decide(
    scop: &Scop,
    deps: &Dependences,
    settings: &ScheduleSettings,
    hardware: &Hardware,
    locality: &Locality,
) -> Result<Decision, IslError> {
    let original = Original::new(scop);
    if let Some(decision) = row_wavefront(scop, deps, settings)? {
        return Ok(decision);
    }
    let time_tiles = match time_tiled(&original, deps, settings, locality)? {
        TimeTiled::Decided(decision) => return Ok(decision),
        TimeTiled::Refused(reason) => Some(reason),
        TimeTiled::NotApplicable => None,
    };
    if let Some(reason) = beyond_permutations(scop, deps, settings, locality)? {
        // A time-iterated stencil says why time tiles do not apply.
        let reason = time_tiles.unwrap_or(reason);
        // Only a loop order can gain, which the interchanges find at a fraction of the
        // scheduler's cost; isl's scheduler is still asked when they find none and
        // some access could become contiguous (it also fuses and distributes).
        if let Some(interchange) = interchanged(&original, deps)? {
            return Ok(interchange);
        }
        if locality.reorderable.is_none() {
            return Ok(Decision::Keep(reason));
        }
        return from_isl(&original, deps, settings, hardware, locality);
    }
    match from_isl(&original, deps, settings, hardware, locality)? {
        Decision::Keep(reason) => {
            Ok(interchanged(&original, deps)?.unwrap_or(Decision::Keep(reason)))
        }
        transform => Ok(transform),
    }
}

/// The region as written, with what the candidates are compared against computed once.
struct Original<'s> {
    scop: &'s Scop,
    guards: OnceCell<usize>,
}

impl<'s> Original<'s> {
    fn new(scop: &'s Scop) -> Self {
        Original {
            scop,
            guards: OnceCell::new(),
        }
    }

    /// Whether `schedule` puts more conditions inside innermost loops than the original.
    fn adds_guards(&self, schedule: &Schedule) -> Result<bool, IslError> {
        // The original's AST is generated only when it matters: a schedule without such
        // conditions (most that are accepted) adds none.
        let guards = innermost_guards(self.scop, schedule)?;
        if guards == 0 {
            return Ok(false);
        }
        let original = match self.guards.get() {
            Some(guards) => *guards,
            None => {
                let guards = innermost_guards(self.scop, &self.scop.schedule)?;
                *self.guards.get_or_init(|| guards)
            }
        };
        Ok(guards > original)
    }
}

/// Why no tiling the cost model would take can come of isl's scheduler, if that is sure
/// before running it: SICA tiles only where reuse is lost, and that reuse cannot be
/// reached by a permutable band without skewing (time-iterated stencils). Fixed tile
/// sizes are the user's wish and go through.
fn beyond_permutations(
    scop: &Scop,
    deps: &Dependences,
    settings: &ScheduleSettings,
    locality: &Locality,
) -> Result<Option<String>, IslError> {
    let (Tiling::Sica, Reuse::Lost(lost)) = (&settings.tiling, &locality.temporal) else {
        return Ok(None);
    };
    permutable::tiling_needs_skewing(scop, deps, lost, min_tiled_loops(settings))
}

/// The rows of an in-place sweep interleaved along a wavefront (see `row_wavefront`),
/// when its innermost loop waits for its own previous iteration and the skewed
/// schedule respects the dependences: what else the region could get (time tiles,
/// tiles) keeps that chain, whose latency bounds it whatever the cache holds.
fn row_wavefront(
    scop: &Scop,
    deps: &Dependences,
    settings: &ScheduleSettings,
) -> Result<Option<Decision>, IslError> {
    if settings.tiling == Tiling::None {
        return Ok(None);
    }
    let Some(candidate) = row_wavefront::candidate(scop, deps)? else {
        return Ok(None);
    };
    if !respects(deps, &candidate.schedule.get_map()?)? {
        return Ok(None);
    }
    Ok(Some(Decision::Transform {
        schedule: candidate.schedule,
        description: candidate.description,
        register_tiles: false,
        dependences: deps.all()?,
    }))
}

/// What time tiling decided for a region.
enum TimeTiled {
    NotApplicable,
    Refused(String),
    Decided(Decision),
}

/// The region's time steps tiled together (see `time_tiling`), when it is an iterated
/// stencil whose steps lose reuse and the skewed schedule respects the dependences.
fn time_tiled(
    original: &Original<'_>,
    deps: &Dependences,
    settings: &ScheduleSettings,
    locality: &Locality,
) -> Result<TimeTiled, IslError> {
    if settings.tiling == Tiling::None || !settings.time_tiling {
        return Ok(TimeTiled::NotApplicable);
    }
    let scop = original.scop;
    let candidate =
        match time_tiling::candidate(scop, deps, &locality.temporal).map_err(isl_error)? {
            time_tiling::Outcome::NotApplicable => return Ok(TimeTiled::NotApplicable),
            time_tiling::Outcome::Refused(reason) => return Ok(TimeTiled::Refused(reason)),
            time_tiling::Outcome::Tile(candidate) => candidate,
        };
    let whole = candidate.untiled()?;
    let untiled = whole.get_map()?;
    if !crate::deps::respects(&candidate.validity, &untiled)? {
        return Ok(TimeTiled::Refused(
            "the time-tiled schedule does not respect the dependences".into(),
        ));
    }
    // Skewed loops over many statements can make the loop AST costly: beyond the
    // bound, time tiles are refused and the other candidates still get their turn.
    let guards = if candidate.innermost_loops_kept {
        Ok(false)
    } else {
        original.adds_guards(&whole)
    };
    match guards {
        Ok(false) => {}
        Ok(true) => {
            return Ok(TimeTiled::Refused(
                "the time-tiled schedule puts conditions inside innermost loops".into(),
            ))
        }
        Err(e) if e.is_operation_limit() => {
            return Ok(TimeTiled::Refused(
                "the time-tiled loops are too costly to generate (isl's operation bound)".into(),
            ))
        }
        Err(e) => return Err(e),
    }
    let members = candidate.band_members;
    let sizes: Vec<i64> = match &settings.tiling {
        Tiling::Fixed(sizes) => (0..members)
            .map(|i| sizes.get(i).map_or(DEFAULT_TILE, |s| i64::from(*s)))
            .collect(),
        _ => time_tiling::tile_sizes(members, candidate.strips),
    };
    let schedule = candidate.tiled(&sizes)?;
    if !candidate.private.is_empty()
        && !deps
            .last_writes_unchanged(scop, &candidate.private, &schedule.get_map()?)
            .map_err(isl_error)?
    {
        return Ok(TimeTiled::Refused(format!(
            "time tiles would change which write of {} runs last",
            candidate.private.join(", ")
        )));
    }
    let shown: Vec<String> = sizes.iter().map(i64::to_string).collect();
    Ok(TimeTiled::Decided(Decision::Transform {
        schedule,
        description: format!(
            "time-tiled: {}; tiles of {} (time steps first), innermost loops whole: memory traffic estimated {:.1}x lower",
            candidate.description,
            shown.join("x"),
            time_tiling::traffic_ratio(&candidate.skews, &sizes)
        ),
        register_tiles: false,
        dependences: deps.all()?,
    }))
}

/// isl's schedule, permuted within its bands and tiled, if the cost model takes it.
fn from_isl(
    original: &Original<'_>,
    deps: &Dependences,
    settings: &ScheduleSettings,
    hardware: &Hardware,
    locality: &Locality,
) -> Result<Decision, IslError> {
    let (fused, tiled) = from_isl_with(original, deps, settings, hardware, locality, false)?;
    // A statement deeper than its neighbours (gemm's `C[i][j] += A[i][k] * B[k][j]`
    // after `C[i][j] *= beta` in the same i loop) shares a band with them in isl's
    // fused schedule: the band falls short of its loops, or, tiled, puts the shallower
    // statement under a condition inside the innermost loop. Distributed, it gets a
    // band of all its loops (PolyBench LARGE: gemm 0.096 s at -O3, 0.037 s so; 2mm,
    // whose fused schedule was only reordered, 1.45 s at -O3, 0.80 s reordered, 0.048 s
    // distributed and tiled).
    if tiled || !deep_statement_loses_reuse(original.scop, locality, min_tiled_loops(settings)) {
        return Ok(fused);
    }
    match from_isl_with(original, deps, settings, hardware, locality, true)? {
        (
            Decision::Transform {
                schedule,
                description,
                register_tiles,
                dependences,
            },
            _,
        ) => Ok(Decision::Transform {
            schedule,
            description: format!(
                "statements distributed into loop nests of their own; {description}"
            ),
            register_tiles,
            dependences,
        }),
        (Decision::Keep(_), _) => Ok(fused),
    }
}

/// `from_isl`, with isl's schedule distributed (`distribute`) or not; the fused
/// schedule comes first, the distributed one when the fused one has no band to tile.
fn from_isl_with(
    original: &Original<'_>,
    deps: &Dependences,
    settings: &ScheduleSettings,
    hardware: &Hardware,
    locality: &Locality,
    distribute: bool,
) -> Result<(Decision, bool), IslError> {
    let scop = original.scop;
    let Some(new) = compute_with(scop, deps, distribute)? else {
        return Ok((Decision::Keep(UNSCHEDULABLE.into()), false));
    };

    // Checked before tiling: tiling a permutable band keeps every dependence forward,
    // and the tiled map (with its floor divisions) is much costlier to check.
    let map = new.get_map()?;
    if !respects(deps, &map)? {
        return Ok((
            Decision::Keep("the computed schedule does not respect the dependences".into()),
            false,
        ));
    }
    let original_map = scop.schedule.get_map()?;
    let statements = StatementView::all(scop);
    let assessment = cost::assess(&statements, &original_map, &map)?;
    let bands = scheduler::bands(&new)?;
    let min_loops = min_tiled_loops(settings);
    let dependences = deps.all()?;
    let chain = locality.chain.as_deref();
    let tilable = bands.iter().any(|band| {
        worth_tiling(band, min_loops) || chain_band(scop, band, &dependences, settings, chain)
    });
    let (new, assessment) =
        most_contiguous(new, assessment, &bands, deps, &statements, &original_map)?;
    if let Some(reason) = refusal(&assessment, tilable, min_loops) {
        return Ok((Decision::Keep(reason), false));
    }
    let mut described = Vec::new();
    if assessment.improves_strides() {
        described.push(format!(
            "loops reordered: {} strided accesses in innermost loops -> {}",
            assessment.strided_before, assessment.strided_after
        ));
    }
    let Tiled {
        schedule: tiled,
        described: tiles,
        register_tiles,
    } = tile(&new, scop, &dependences, settings, hardware, locality)?;
    let any_tiles = !tiles.is_empty();
    if distribute && !any_tiles {
        // Distribution is only worth it for the bands it lets tiling reach.
        return Ok((
            Decision::Keep("distributed, no band is tiled".into()),
            false,
        ));
    }
    described.extend(tiles);
    if described.is_empty() {
        return Ok((
            Decision::Keep("neither tiling nor a smaller innermost stride applies".into()),
            false,
        ));
    }
    // Last, as it generates two loop ASTs.
    if original.adds_guards(&new)? {
        return Ok((Decision::Keep(
            "the schedule found puts conditions inside innermost loops (it fuses loops of different extents), which keeps them from being vectorized".into(),
        ), false));
    }

    let description = described.join("; ");
    Ok((
        Decision::Transform {
            schedule: tiled,
            description,
            register_tiles,
            dependences,
        },
        any_tiles,
    ))
}

/// Why isl's schedule (its bands reordered) is not taken before any band is tiled: the
/// cost model rejects it, or it has no band to tile and no smaller stride. Judged after
/// the permutations: a band isl ordered with a strided loop innermost (covariance's
/// centring loop, fused with the loop over the means) may be fixed by them.
fn refusal(assessment: &Assessment, tilable: bool, min_loops: usize) -> Option<String> {
    if let Some(reason) = assessment.rejection() {
        return Some(reason);
    }
    (!tilable && !assessment.improves_strides()).then(|| {
        format!(
            "no permutable band of {min_loops} or more loops to tile, and no innermost loop gets a smaller stride"
        )
    })
}

/// `schedule` with, in each permutable band, the member whose accesses are the most
/// contiguous innermost (isl's scheduler has no notion of strides; within a permutable
/// band any loop may go innermost), with its cost model's assessment.
fn most_contiguous(
    schedule: Schedule,
    assessment: Assessment,
    bands: &[BandInfo],
    deps: &Dependences,
    statements: &[StatementView<'_>],
    original_map: &UnionMap,
) -> Result<(Schedule, Assessment), IslError> {
    let (mut new, mut assessment) = (schedule, assessment);
    for (index, band) in bands.iter().enumerate() {
        let members = band.coincident.len();
        if !band.permutable || members < 2 {
            continue;
        }
        for innermost in 0..members - 1 {
            let order: Vec<usize> = (0..members)
                .filter(|m| *m != innermost)
                .chain([innermost])
                .collect();
            let candidate = scheduler::permute_band(&new, index, &order)?;
            let candidate_map = candidate.get_map()?;
            let verdict = cost::assess(statements, original_map, &candidate_map)?;
            if verdict.rejection().is_none()
                && verdict.strided_after < assessment.strided_after
                && respects(deps, &candidate_map)?
            {
                (new, assessment) = (candidate, verdict);
            }
        }
    }
    Ok((new, assessment))
}

/// Whether a statement at least `min_loops` deep loses reuse (so that a band of all its
/// loops would be tiled).
fn deep_statement_loses_reuse(scop: &Scop, locality: &Locality, min_loops: usize) -> bool {
    scop.statements
        .iter()
        .any(|s| s.depth() >= min_loops && locality.temporal.lost_by(&s.name))
}

/// Conditions inside innermost loops of the AST `schedule` generates for `scop`.
fn innermost_guards(scop: &Scop, schedule: &Schedule) -> Result<usize, IslError> {
    Ok(cost::innermost_guards(
        &ast::generate(&scop.assumed_context, schedule)?.root,
    ))
}

/// The original order with statements' loops interchanged (and distributed from their
/// neighbours) so that innermost loops become contiguous, where isl's schedule does not
/// gain: `None` when no interchange does either, or when it would put conditions
/// inside innermost loops.
fn interchanged(original: &Original<'_>, deps: &Dependences) -> Result<Option<Decision>, IslError> {
    let scop = original.scop;
    let Some((schedule, assessment, moves)) =
        interchange::candidate(scop, &mut |map| respects(deps, map))?
    else {
        return Ok(None);
    };
    if original.adds_guards(&schedule)? {
        return Ok(None);
    }
    Ok(Some(Decision::Transform {
        schedule,
        description: format!(
            "loops interchanged ({}): {} strided accesses in innermost loops -> {}",
            moves.join(", "),
            assessment.strided_before,
            assessment.strided_after
        ),
        register_tiles: false,
        dependences: deps.all()?,
    }))
}

/// isl's scheduler on the region's dependences (validity and proximity alike), under
/// its share of the operation bound.
///
/// Dependences whose pieces have many constraints are simplified against the statements'
/// domains first: the Farkas multiplier elimination in the scheduler then works with
/// ever larger integers (the domains' bounds, constants like 117 or 499 once clang has
/// propagated a kernel's sizes), and on a 3-D heat stencil it never finishes (isl's
/// operation count grows by one per pivot however long the pivot takes). The simplified relation
/// is a superset of the dependences, so every schedule isl finds for it respects them
/// too (`decide` checks the result against the exact ones all the same); it can also
/// rule out schedules (the one-row shift that fuses stencil2d_5pt's copy-back), so
/// dependences with small constants only (parametric sizes) go to isl as they are.
pub fn compute(scop: &Scop, deps: &Dependences) -> Result<Schedule, IslError> {
    compute_with(scop, deps, false)?.ok_or_else(|| IslError::Other {
        context: "computing a schedule".into(),
        message: UNSCHEDULABLE.into(),
    })
}

/// Why a region is kept when isl finds no schedule for its simplified dependences.
const UNSCHEDULABLE: &str = "isl's scheduler finds no schedule for the dependences simplified against the statements' domains; the exact ones are tried only when small enough to schedule at a reasonable cost (at most 16 constraints a piece, 100 in all)";

/// Whether isl's scheduler gets the exact dependences `exact` when the simplified ones
/// allow no schedule: each constraint is a Farkas multiplier the scheduler eliminates,
/// with integers as large as the sizes fixed at compile time. Flat-size.c's
/// specialized elimination has 71 constraints in all (27 ms); PolyBench LARGE's
/// nussinov 142 and cholesky 166, and each took 0.3 to 0.6 s, twice (fused and
/// distributed), for schedules the cost model then refused.
fn exact_retry_affordable(exact: &UnionMap) -> Result<bool, IslError> {
    let (_, constraints) = exact.pieces_and_constraints()?;
    Ok(exact.most_constraints()? <= EXACT_CONSTRAINTS && constraints <= EXACT_RETRY_CONSTRAINTS)
}

/// Most constraints, in all pieces together, of exact dependences the scheduler gets when
/// the simplified ones allow no schedule (see `exact_retry_affordable`).
const EXACT_RETRY_CONSTRAINTS: usize = 100;

/// `compute`, with statements distributed into loop nests of their own where the
/// dependences allow (`distribute`); `None` when isl finds no schedule for the
/// simplified dependences (a superset of the exact ones: one it cannot carry).
fn compute_with(
    scop: &Scop,
    deps: &Dependences,
    distribute: bool,
) -> Result<Option<Schedule>, IslError> {
    let (validity, simplified) = scheduling_constraints(scop, deps)?;
    match schedule_with(scop, &validity, distribute) {
        Ok(schedule) => Ok(Some(schedule)),
        Err(e) if simplified && !e.is_operation_limit() => {
            // Simplified for their large constants alone, the dependences may rule out
            // the schedule the exact ones allow (a nest specialized on a profiled size):
            // the exact ones then get their turn, at the cost the simplification saves.
            let exact = deps.validity().copy()?.gist_params(scop.context.copy()?)?;
            if !exact_retry_affordable(&exact)? {
                return Ok(None);
            }
            match schedule_with(scop, &exact, distribute) {
                Ok(schedule) => Ok(Some(schedule)),
                Err(e) if !e.is_operation_limit() => Ok(None),
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// isl's schedule of the region under the dependences `validity`.
fn schedule_with(scop: &Scop, validity: &UnionMap, distribute: bool) -> Result<Schedule, IslError> {
    scop.context.ctx().within_share(SCHEDULER_SHARE, || {
        // No coincidence relation: polyrust generates sequential code (loops are marked
        // parallel for the vectorizer from the dependences, after scheduling), and
        // isl's search for coincident members took a quarter to a third of the
        // scheduler's time on the corpus's largest regions, for the same schedules
        // (every corpus and NPB object was byte-identical without it).
        let no_coincidence = UnionMap::empty(&scop.context.ctx())?;
        let compute = if distribute {
            scheduler::compute_schedule_distributed
        } else {
            scheduler::compute_schedule
        };
        compute(
            &scop.domains,
            &scop.context,
            validity,
            validity,
            &no_coincidence,
        )
    })
}

/// Most constraints of one piece of the dependences the scheduler gets as they are. Each
/// constraint is a Farkas multiplier the scheduler eliminates, at a cost exponential in
/// their number: the 3-D heat stencil that hung has pieces of 28 constraints (coalesced
/// 7-point neighbourhoods), while FDTD-2D has at most 7 and stencil2d_5pt (whose fused
/// copy-back only the exact dependences allow) 12.
const EXACT_CONSTRAINTS: usize = 16;

/// Largest constant term the scheduler gets as it is. Sizes fixed at compile time
/// (PolyBench's #defines, propagated into the kernel) put bounds like 999 or 2599 into
/// the dependences, and the Farkas constraints built from them make isl's LP solver
/// work with ever larger integers: with -fno-inline, PolyBench LARGE's adi took 1.6 s
/// in the scheduler, correlation 0.67 s, covariance 0.55 s, nussinov 0.63 s, cholesky
/// 0.28 s; simplified against the domains, 3 to 10 ms each, and every PolyBench and
/// TSVC object the same. Parametric sizes keep the constants small.
const EXACT_CONSTANT: u64 = 100;

/// The dependences as the scheduler gets them, and whether they were simplified: without
/// the constraints the domains imply when a piece has too many constraints or a
/// constant too large.
fn scheduling_constraints(scop: &Scop, deps: &Dependences) -> Result<(UnionMap, bool), IslError> {
    // The bounds of the parameters' types (2^31 - 1) are the context's, which the
    // scheduler gets anyway.
    let validity = deps.validity().copy()?.gist_params(scop.context.copy()?)?;
    if validity.most_constraints()? <= EXACT_CONSTRAINTS
        && validity.largest_constant()? <= EXACT_CONSTANT
    {
        return Ok((validity, false));
    }
    let simplified = validity
        .gist_domain(scop.domains.copy()?)?
        .gist_range(scop.domains.copy()?)?
        .coalesce()?;
    Ok((simplified, true))
}

/// Whether a schedule respects the dependences; reaching the operation bound is an
/// error (reported as such), not a "no".
fn respects(deps: &Dependences, map: &UnionMap) -> Result<bool, IslError> {
    deps.respects(map).map_err(isl_error)
}

/// A dependence error as the isl error it is at heart (reaching the operation bound
/// stays recognisable as such).
fn isl_error(error: crate::deps::DepsError) -> IslError {
    match error {
        crate::deps::DepsError::Isl { error, .. } => error,
        other => IslError::Other {
            context: "checking a schedule against the dependences".into(),
            message: other.to_string(),
        },
    }
}

/// Fixed sizes are the user's explicit choice: any band of two loops or more.
fn min_tiled_loops(settings: &ScheduleSettings) -> usize {
    match settings.tiling {
        Tiling::Fixed(_) => 2,
        _ => MIN_TILED_LOOPS,
    }
}

fn worth_tiling(band: &BandInfo, min_loops: usize) -> bool {
    band.permutable && band.coincident.len() >= min_loops
}

/// A permutable band of two loops (fewer than `MIN_TILED_LOOPS`) over `chain`, the
/// statement `reuse` found accumulating into one floating-point element along its
/// innermost loop, whose innermost member carries that dependence: SICA tiles it by
/// the chain rule (`sica::tile_sizes_chain`) whether or not reuse is lost, as its gain
/// is the overlap of dependent chains, not the cache. Measured on chol_factor (n =
/// 1600; `for i: for k < j: s -= A[i][k] * A[j][k]`, `s` in `A[i][j]`): 0.55 s at -O3,
/// 0.22 s with i by 21 and k by 16 (Polly, 32 x 32: 0.26 s); i is now tiled by the
/// chains that overlap (`sica::OVERLAPPED_CHAINS`). Other two-loop bands stay untiled
/// (stencils and rank-1 updates lost up to 20%). Only where the rows may be
/// interleaved (`ScheduleSettings::interleave_rows`): see `CHAINS_FROM_MEMORY`.
fn chain_band(
    scop: &Scop,
    band: &BandInfo,
    dependences: &UnionMap,
    settings: &ScheduleSettings,
    chain: Option<&str>,
) -> bool {
    let Some(chain) = chain else {
        return false;
    };
    settings.tiling == Tiling::Sica
        && settings.interleave_rows
        && band.permutable
        && band.coincident.len() == 2
        && band.coincident.len() < MIN_TILED_LOOPS
        && band_statements(scop, band).any(|s| s == chain)
        // An isl error counts as "carries none": the band is not tiled.
        && innermost_carries(scop, band, dependences).unwrap_or(false)
}

/// Tiles the permutable bands worth it as `-polyrust-tiling` says (SICA sizes, fixed
/// sizes or none); returns the tiled schedule, what was done to each band tiled
/// (nothing when no band was). `dependences` (all of them, reductions included) tell
/// SICA which bands' innermost loops carry one, and so are not vectorized.
pub fn tile(
    schedule: &Schedule,
    scop: &Scop,
    dependences: &UnionMap,
    settings: &ScheduleSettings,
    hardware: &Hardware,
    locality: &Locality,
) -> Result<Tiled, IslError> {
    let min_loops = min_tiled_loops(settings);
    let mut described = Vec::new();
    let mut register_tiles = false;
    let tiled = match &settings.tiling {
        Tiling::None => schedule.copy()?,
        Tiling::Fixed(sizes) => scheduler::tile_bands(schedule, |band| {
            if !worth_tiling(band, min_loops) {
                return None;
            }
            let chosen: Vec<i64> = (0..band.coincident.len())
                .map(|i| sizes.get(i).map_or(DEFAULT_TILE, |s| i64::from(*s)))
                .collect();
            let chosen = keep_short(band, chosen)?;
            let shown: Vec<String> = chosen
                .iter()
                .map(|s| {
                    if *s == UNTILED {
                        "whole".into()
                    } else {
                        s.to_string()
                    }
                })
                .collect();
            described.push(format!("band tiled by [{}]", shown.join(", ")));
            Some(chosen)
        })?,
        Tiling::Sica => {
            let tiler = SicaTiler {
                scop,
                dependences,
                settings,
                hardware,
                locality,
                machine: hardware.sica_machine(),
                new_elements: new_elements(scop)?,
            };
            scheduler::tile_bands_jammed(schedule, |band| {
                let (chosen, jam, text) = tiler.sizes(band)?;
                described.push(text);
                register_tiles |= jam.iter().any(|f| *f > 1);
                Some((chosen, jam))
            })?
        }
    };
    Ok(Tiled {
        schedule: tiled,
        described,
        register_tiles,
    })
}

/// A schedule with its permutable bands tiled (see `tile`).
pub struct Tiled {
    /// The tiled schedule.
    pub schedule: Schedule,
    /// What was done to each band tiled (nothing when no band was).
    pub described: Vec<String>,
    /// Some band got register tiles.
    pub register_tiles: bool,
}

/// `sizes` with each member that cannot fill two tiles left whole (splitting it only
/// adds bounds); `None` when no member is left to tile.
fn keep_short(band: &BandInfo, mut sizes: Vec<i64>) -> Option<Vec<i64>> {
    for (size, extent) in sizes.iter_mut().zip(&band.extents) {
        if extent.is_some_and(|e| e < size.saturating_mul(2)) {
            *size = UNTILED;
        }
    }
    sizes.iter().any(|s| *s != UNTILED).then_some(sizes)
}

/// What SICA's tiling of one schedule sizes each band from.
struct SicaTiler<'a> {
    scop: &'a Scop,
    dependences: &'a UnionMap,
    settings: &'a ScheduleSettings,
    hardware: &'a Hardware,
    locality: &'a Locality,
    machine: sica::SicaMachine,
    new_elements: NewElements,
}

impl SicaTiler<'_> {
    /// The tile sizes and register tile factors of `band`, with what was done to it;
    /// `None` to leave it as it is.
    fn sizes(&self, band: &BandInfo) -> Option<(Vec<i64>, Vec<i64>, String)> {
        let (scop, dependences, settings) = (self.scop, self.dependences, self.settings);
        // Tiles shorten reuse distances: a band whose statements keep all their reuse
        // in cache gains nothing from them (a chain of two loops does).
        let chained = chain_band(
            scop,
            band,
            dependences,
            settings,
            self.locality.chain.as_deref(),
        );
        if !chained
            && (!worth_tiling(band, min_tiled_loops(settings))
                || !band_statements(scop, band).any(|s| self.locality.temporal.lost_by(s)))
        {
            return None;
        }
        // An isl error counts as "carries none": SICA's sizes, as before.
        let carries = innermost_carries(scop, band, dependences).unwrap_or(false);
        let (chosen, mut text) = self.cache_tiles(band, chained || carries)?;
        let mut chosen = keep_short(band, chosen)?;
        // Register tiles only around a vectorized innermost loop.
        let jam = if settings.register_tiling && !chained && !carries {
            self.register_tiles(band)
        } else {
            Vec::new()
        };
        if jam.iter().any(|f| *f > 1) {
            // Tiles a multiple of the copies leave no partial register tile inside.
            for (size, factor) in chosen.iter_mut().zip(&jam) {
                if *size != UNTILED && *size % factor != 0 {
                    *size += factor - *size % factor;
                }
            }
            let shown: Vec<String> = jam.iter().map(i64::to_string).collect();
            text.push_str(&format!(
                "; register tiles of {} copies around the innermost loop ({} vector registers)",
                shown.join("x"),
                self.hardware.vector_registers.value
            ));
        }
        if !chained && !carries {
            if let Some(ratio) = traffic_gain(scop, band, &chosen, self.hardware) {
                if ratio < MIN_TRAFFIC_GAIN {
                    return None;
                }
                text.push_str(&format!(": memory traffic estimated {ratio:.1}x lower"));
            }
        }
        Some((chosen, jam, text))
    }

    /// SICA's tile sizes for `band` (of the chain kind when `chained`), with an L2 tile
    /// for the member outside the vectorized one where it applies, and what they are;
    /// `None` when SICA does not tile the band.
    fn cache_tiles(&self, band: &BandInfo, chained: bool) -> Option<(Vec<i64>, String)> {
        let members = band.coincident.len();
        let sica_band = SicaBand {
            loops: members,
            vector_trip_count: trip_count(band.extents.last()),
            outer_trip_count: trip_count(band.extents.first()),
        };
        let decision = if chained {
            sica::tile_sizes_chain(&self.machine, &self.new_elements, &sica_band)
        } else {
            sica::tile_sizes_sica(
                &self.machine,
                &self.new_elements,
                self.settings.sica_rho,
                &sica_band,
            )
        };
        let (SicaDecision::Tile { .. } | SicaDecision::Chain { .. }) = decision else {
            return None;
        };
        let sizes = decision.tile_sizes();
        // SICA's sizes are for the outermost and the innermost member.
        let mut chosen = vec![UNTILED; members];
        if let Some(q_l1) = sizes.last() {
            chosen[members - 1] = i64::try_from(*q_l1).unwrap_or(UNTILED);
        }
        if sizes.len() == 2 {
            chosen[0] = i64::try_from(sizes[0]).unwrap_or(UNTILED);
        }
        let mut text = decision.to_string();
        if let Some((member, size)) = l2_tile(self.scop, band, &chosen, &self.machine) {
            chosen[member] = size;
            text.push_str(&format!(
                ", loop {} by {size} so that its tiles stay in L2",
                member + 1
            ));
        }
        Some((chosen, text))
    }

    /// The register tile factors of a band over one statement (see
    /// `register_tiling::factors`); an isl error counts as "nothing to jam".
    fn register_tiles(&self, band: &BandInfo) -> Vec<i64> {
        band_accesses(self.scop, band)
            .filter(|(_, statements)| *statements == 1)
            .and_then(|(relations, _)| {
                register_tiling::factors(
                    &BlockAccess::all(&relations),
                    band.coincident.len(),
                    self.hardware.vector_registers.value,
                )
                .ok()
                .flatten()
            })
            .unwrap_or_default()
    }
}

/// Whether the innermost member of `band` carries a dependence: some dependence between
/// statements of the band that run in its innermost loop joins two instances on which
/// the band's other members agree and the innermost one differs. Dependences carried
/// by loops outside the band are not told apart (they could only make this say yes too
/// often, giving a short tile). A statement the innermost member does not iterate (one
/// loop less deep, as C's row zeroed before the loops over k and j) runs outside that
/// loop: its dependences on the loop's statements make no chain in it, and the loop
/// stays vectorized.
fn innermost_carries(
    scop: &Scop,
    band: &BandInfo,
    dependences: &UnionMap,
) -> Result<bool, IslError> {
    let members = band.coincident.len();
    let Some(partial) = band.partial.as_ref() else {
        return Ok(false);
    };
    if members == 0 {
        return Ok(false);
    }
    let ctx = scop.context.ctx();
    let in_band = in_innermost_loop(&ctx, dependences, partial, members - 1)?
        .apply_domain(partial.copy()?)?
        .apply_range(partial.copy()?)?;
    // `{ [i] -> [o] : o0 = i0 and .. and o(last) != i(last) }`.
    let last = members - 1;
    let mut same = Map::universe_between(
        &ctx,
        &[],
        &Tuple::counters(None, "i", members),
        &Tuple::counters(None, "o", members),
    )?;
    for k in 0..last {
        same = same.equate(k)?;
    }
    let innermost = same
        .copy()?
        .order(last, true)?
        .union(same.order(last, false)?)?;
    Ok(!in_band.intersect(innermost.to_union_map()?)?.is_empty()?)
}

/// The dependences between statements that member `last` of the band's schedule
/// `partial` iterates (takes more than one value for).
fn in_innermost_loop(
    ctx: &crate::isl::IslCtx,
    dependences: &UnionMap,
    partial: &UnionMap,
    last: usize,
) -> Result<UnionMap, IslError> {
    let mut outside = Vec::new();
    for schedule in partial.maps()? {
        let name = schedule.domain_name();
        if let Some((low, high)) = schedule.range()?.dim_value_range(last)? {
            if low == high {
                outside.extend(name);
            }
        }
    }
    if outside.is_empty() {
        return dependences.copy();
    }
    let runs_inside = |name: Option<String>| name.is_some_and(|n| !outside.contains(&n));
    let mut kept = UnionMap::empty(ctx)?;
    for dependence in dependences.maps()? {
        if runs_inside(dependence.domain_name()) && runs_inside(dependence.range_name()) {
            kept = kept.add_map(dependence)?;
        }
    }
    Ok(kept)
}

/// The L2 tile of the member outside the vectorized one (see `sica::l2_tile_size`), from
/// the statements' accesses in the band's space; `None` when it does not apply or isl
/// cannot say (the band is then tiled as SICA's paper does).
fn l2_tile(
    scop: &Scop,
    band: &BandInfo,
    chosen: &[i64],
    machine: &sica::SicaMachine,
) -> Option<(usize, i64)> {
    let members = chosen.len();
    if members < 3 {
        return None;
    }
    let inner_tile = match chosen[members - 1] {
        UNTILED => trip_count(band.extents.last())?,
        size => u64::try_from(size).ok()?,
    };
    let (relations, _) = band_accesses(scop, band)?;
    let accesses = BlockAccess::all(&relations);
    let middle = members - 2;
    let size = sica::l2_tile_size(
        machine,
        &accesses,
        members,
        inner_tile,
        trip_count(band.extents.get(middle)),
    )
    .ok()??;
    Some((middle, i64::try_from(size).ok()?))
}

/// How many times less data the band moves tiled by `sizes` than its statement in its
/// original loop order, estimated (see `traffic`) against the share of L2 reuse may
/// span. `None` when the band does not schedule exactly one statement over all its
/// loops, or isl cannot say.
fn traffic_gain(scop: &Scop, band: &BandInfo, sizes: &[i64], hardware: &Hardware) -> Option<f64> {
    let (relations, statements) = band_accesses(scop, band)?;
    let members = band.coincident.len();
    let name = band_statements(scop, band).next()?;
    let statement = scop.statements.iter().find(|s| s.name == name)?;
    if statements != 1 || statement.domain.n_dims().ok()? != members {
        return None;
    }
    let moves_in =
        |relations: &[(Map, u32)]| sica::moves(&BlockAccess::all(relations), members).ok();
    let nominal = |range: Option<(i64, i64)>| {
        range.map_or(traffic::NOMINAL_TRIP, |(lo, hi)| {
            (hi - lo + 1).max(1) as f64
        })
    };
    // The original order: the statement's own loops, outermost first.
    let original: Vec<(Map, u32)> = statement
        .accesses
        .iter()
        .filter_map(|access| {
            let array = scop.arrays.iter().find(|x| x.name == access.array)?;
            (!array.is_scalar).then(|| Some((access.relation.copy().ok()?, array.element_size)))?
        })
        .collect();
    let original_trips: Vec<f64> = (0..members)
        .map(|d| nominal(statement.domain.dim_value_range(d).ok().flatten()))
        .collect();
    let trips: Vec<f64> = (0..members)
        .map(|m| trip_count(band.extents.get(m)).map_or(traffic::NOMINAL_TRIP, |t| t as f64))
        .collect();
    let tiled: Vec<Option<f64>> = sizes
        .iter()
        .map(|s| (*s != UNTILED).then_some(*s as f64))
        .collect();
    let bytes: Vec<u32> = relations.iter().map(|(_, b)| *b).collect();
    let original_bytes: Vec<u32> = original.iter().map(|(_, b)| *b).collect();
    let cache = reuse::CACHE_SHARE * hardware.l2_bytes.value as f64;
    let before = traffic::bytes_per_iteration(
        &traffic::tiled_nest(&original_trips, &vec![None; members], &moves_in(&original)?),
        &original_bytes,
        cache,
    );
    let after = traffic::bytes_per_iteration(
        &traffic::tiled_nest(&trips, &tiled, &moves_in(&relations)?),
        &bytes,
        cache,
    );
    (after > 0.0).then(|| before / after)
}

/// The array accesses of the statements of `band`, as relations from the band's members
/// to elements with the element size, and how many statements the band schedules;
/// `None` when isl cannot say.
fn band_accesses(scop: &Scop, band: &BandInfo) -> Option<(Vec<(Map, u32)>, usize)> {
    let maps = band.partial.as_ref()?.maps().ok()?;
    let mut relations = Vec::new();
    for band_map in &maps {
        let statement = scop
            .statements
            .iter()
            .find(|s| Some(s.name.as_str()) == band_map.domain_name().as_deref())?;
        for access in &statement.accesses {
            let array = scop.arrays.iter().find(|x| x.name == access.array)?;
            if array.is_scalar {
                continue;
            }
            let in_band = band_map
                .copy()
                .ok()?
                .reverse()
                .ok()?
                .apply_range(access.relation.copy().ok()?)
                .ok()?;
            relations.push((in_band, array.element_size));
        }
    }
    Some((relations, maps.len()))
}

/// The statements a band schedules (all of them when isl cannot say).
fn band_statements<'s>(scop: &'s Scop, band: &BandInfo) -> impl Iterator<Item = &'s str> {
    let names: Option<Vec<String>> = band
        .partial
        .as_ref()
        .and_then(|partial| partial.maps().ok()?.iter().map(Map::domain_name).collect());
    scop.statements
        .iter()
        .map(|s| s.name.as_str())
        .filter(move |name| names.as_ref().is_none_or(|n| n.iter().any(|x| x == name)))
}

fn trip_count(extent: Option<&Option<i64>>) -> Option<u64> {
    extent
        .copied()
        .flatten()
        .and_then(|e| u64::try_from(e).ok())
}

/// Most statements, parameters and loops around one statement a region may have for the
/// scheduler to be asked: the scheduler's problem has a variable per coefficient of
/// every statement's schedule, and its cost grows faster than that; regions beyond
/// these sizes (whole inlined solver steps of NPB's BT) are left to -O3 before any
/// dependence is computed. Measured: the largest regions the corpus transforms have 12
/// statements, 2 parameters and 4 loops.
const MAX_STATEMENTS: usize = crate::detect::MAX_REGION_STATEMENTS;
const MAX_PARAMETERS: usize = 12;
const MAX_DEPTH: usize = 8;

/// What a look at a region's model alone (before its dependences are computed) says.
pub enum Prospect {
    /// Not worth the scheduler, and why.
    Refused(String),
    /// Worth it, with where tiling or a new loop order could gain (for `decide`).
    Worth(Locality),
}

/// Whether a region is worth the scheduler, decided from its model alone.
pub fn refuse_early(
    scop: &Scop,
    settings: &ScheduleSettings,
    hardware: &Hardware,
) -> Result<Prospect, IslError> {
    let depths = scop.statements.iter().map(|s| (s.name.as_str(), s.depth()));
    if let Some(reason) = too_large(scop.statements.len(), scop.params.len(), depths) {
        return Ok(Prospect::Refused(reason));
    }
    // Nothing to gain first: a region that gains nothing at any size is told so, not
    // that its assumptions exclude large sizes (NPB's fixed-size arrays of 25 or 33
    // elements run loops bounded by parameters well below 32).
    let prospect = nothing_to_gain(scop, settings, hardware)?;
    if let Prospect::Worth(_) = &prospect {
        if let Some(reason) = only_tiny_problems(scop)? {
            return Ok(Prospect::Refused(reason));
        }
    }
    Ok(prospect)
}

/// The first of `refuse_early`'s reasons, which needs no model: the driver asks it of
/// the region's spec before building the model, which on such regions (26 statements
/// and 14 parameters in NPB's LU) takes a second of its own.
pub fn refuse_by_size(spec: &ScopSpec) -> Option<String> {
    let depths = spec
        .statements
        .iter()
        .map(|s| (s.name.as_str(), s.textual_positions.len().saturating_sub(1)));
    too_large(spec.statements.len(), spec.params.len(), depths)
}

/// Why a region of `statements` statements, `params` parameters and statements
/// `(name, loops around it)` is too large to schedule, if it is.
fn too_large<'s>(
    statements: usize,
    params: usize,
    mut depths: impl Iterator<Item = (&'s str, usize)>,
) -> Option<String> {
    if statements > MAX_STATEMENTS {
        return Some(format!(
            "it has {statements} statements; polyrust schedules regions of at most {MAX_STATEMENTS}"
        ));
    }
    if params > MAX_PARAMETERS {
        return Some(format!(
            "it has {params} parameters; polyrust schedules regions of at most {MAX_PARAMETERS}"
        ));
    }
    depths.find(|(_, depth)| *depth > MAX_DEPTH).map(|(name, depth)| {
        format!("statement {name} is {depth} loops deep; polyrust schedules nests of at most {MAX_DEPTH}")
    })
}

/// A region the cost model would refuse whatever the dependences: it accepts a schedule
/// only for a band of `min_tiled_loops` loops to tile where the band loses reuse (so
/// some statement that deep must lose some, see `reuse`) or for fewer strided accesses
/// in innermost loops (so some must have one now that another loop order walks better).
/// Checked before the dependences, the costliest stage on real programs.
fn nothing_to_gain(
    scop: &Scop,
    settings: &ScheduleSettings,
    hardware: &Hardware,
) -> Result<Prospect, IslError> {
    let min_loops = min_tiled_loops(settings);
    let deep = scop.statements.iter().any(|s| s.depth() >= min_loops);
    let locality = reuse::analyse(scop, min_loops, hardware.l2_bytes.value)?;
    let chain = locality.chain.is_some();
    // Chains are judged later (`judge_chains`), once blocks of rows had their chance.
    let prospect = match why_nothing_to_gain(&locality, settings, deep, min_loops, true) {
        Some(reason) => Prospect::Refused(reason),
        None => Prospect::Worth(locality),
    };
    // A 1-D stencil iterated in time has no third loop but gains from time tiles
    // (asked only of regions nothing else would take: a reduction's rows read other
    // elements than they write too, and their chains are tiled or refused otherwise).
    if matches!(prospect, Prospect::Refused(_))
        && !chain
        && settings.time_tiling
        && settings.tiling != Tiling::None
        && time_tiling::may_be_1d_stencil(scop)?
    {
        let locality = reuse::analyse(scop, 2, hardware.l2_bytes.value)?;
        if time_tiling::loses_reuse_in_time(&locality.temporal) {
            return Ok(Prospect::Worth(locality));
        }
    }
    // An in-place sweep's rows along a wavefront gain whatever the cache holds.
    if matches!(prospect, Prospect::Refused(_))
        && settings.tiling != Tiling::None
        && row_wavefront::may_apply(scop)?
    {
        let locality = reuse::analyse(scop, min_loops, hardware.l2_bytes.value)?;
        return Ok(Prospect::Worth(locality));
    }
    Ok(prospect)
}

/// Why a region has nothing to gain, from its `locality` for tiles of `min_loops` loops
/// (`deep`: some statement is that deep), if it has not; `interleaved`: a chain's rows
/// may be interleaved (see `judge_chains`).
fn why_nothing_to_gain(
    locality: &Locality,
    settings: &ScheduleSettings,
    deep: bool,
    min_loops: usize,
    interleaved: bool,
) -> Option<String> {
    if locality.reorderable.is_some() {
        return None;
    }
    let no_tiling = match &settings.tiling {
        Tiling::None => "tiling is off".to_string(),
        // Sizes the user gave are used wherever a band is deep enough.
        Tiling::Fixed(_) if deep => return None,
        // Two loops whose innermost one accumulates: tiled for the chains' overlap
        // (see `chain_band`) where the rows may be interleaved.
        Tiling::Sica if locality.chain.is_some() && interleaved => return None,
        Tiling::Sica if locality.chain.is_some() && !deep => CHAINS_FROM_MEMORY.to_string(),
        _ if !deep => format!("no statement is {min_loops} or more loops deep (nothing to tile)"),
        _ => match locality.temporal.why_not() {
            None => return None,
            Some(why) => format!("{why} (nothing to gain from tiling)"),
        },
    };
    Some(format!(
        "{no_tiling}, and no loop order would make a strided innermost access contiguous (nothing to reorder)"
    ))
}

/// Why a two-loop nest whose innermost loop accumulates into one element (a
/// matrix-vector product, `val += w[i * n + j] * x[j]`) keeps its order when the
/// region does not run again over its arrays in a loop of its function and the target
/// has no fused multiply-add: its rows may then stream from memory, where -O3's one
/// row after the other (a 3-cycle add a step) keeps up with the memory, and
/// interleaving them (`sica::OVERLAPPED_CHAINS` rows walked in lockstep) prefetches
/// worse; the cost model cannot tell where the rows come from. Measured on llama2.c's
/// `matmul` (floats, 2-core EPYC): without FMA the 32000 x 288 classifier ran at
/// 0.78-0.90x of -O3 interleaved, 288 x 288 and 768 x 288 matrices not in cache at
/// 0.87x and 0.91x (2x faster in cache); with FMA (`-march=native`: a fused step of
/// 4 cycles) 1.3-1.4x faster from memory and 2-3x in cache. chol_factor's `s -= A[i][k]
/// * A[j][k]`, which the loop around it re-reads from cache: 2.5x.
const CHAINS_FROM_MEMORY: &str = "its innermost loop accumulates into one element, and \
     interleaving rows to overlap the chains pays only on rows read from cache or with \
     fused multiply-adds; the region does not run again over the same arrays in a loop \
     of its function, so its rows may stream from memory, where one row after the other \
     is as fast without fused multiply-adds (nothing to tile)";

/// A problem size below which nothing is worth transforming (see `only_tiny_problems`).
const LARGE_PROBLEM: u32 = 32;

/// Assumptions quoted by name in the refusal of `only_tiny_problems`; the rest are
/// counted.
const NAMED_ASSUMPTIONS: usize = 3;

/// Why the region is kept, if the assumptions exclude every problem whose parameters
/// are all large while the context allows some: the generated code would never run
/// where it matters (a subscript of a fixed-size array whose dimension is smaller than
/// the loop, for example). The reason names the assumptions that alone exclude them.
fn only_tiny_problems(scop: &Scop) -> Result<Option<String>, IslError> {
    if scop.params.is_empty() {
        return Ok(None);
    }
    let mut large = Set::params_universe(&scop.context.ctx(), &scop.params)?;
    for k in 0..scop.params.len() {
        large = large.lower_bound_param(k, i64::from(LARGE_PROBLEM))?;
    }
    let possible = !scop.context.copy()?.intersect(large.copy()?)?.is_empty()?;
    let assumed = !scop
        .assumed_context
        .copy()?
        .intersect(large.copy()?)?
        .is_empty()?;
    if !possible || assumed {
        return Ok(None);
    }
    // Scanned until one more than is named fails: each condition costs a projection of
    // the statement's domain, and NPB's regions state hundreds of assumptions.
    let within = scop.context.copy()?.intersect(large)?;
    let mut named = Vec::new();
    let mut more = false;
    for assumption in &scop.assumptions {
        if !scop.fails_within(assumption, &within)? {
            continue;
        }
        if named.len() == NAMED_ASSUMPTIONS {
            more = true;
            break;
        }
        let never_note = if scop.never_holds(assumption)? {
            " (never holds where its statement runs)"
        } else {
            ""
        };
        named.push(format!("{}{never_note}", describe(assumption)));
    }
    if more {
        named.push("more".into());
    }
    let which = if named.is_empty() {
        "no single assumption does, their conjunction does".to_string()
    } else {
        named.join("; ")
    };
    Ok(Some(format!(
        "the model's assumptions fail whenever every parameter is {LARGE_PROBLEM} or more, so the run-time check would send real problem sizes to the original code: {which}"
    )))
}

/// isl's scheduler gets this share of the region's operation bound, counted afresh, so
/// that a region whose scheduling problem is huge is left to -O3 rather than compiled
/// slowly. isl counts few operations inside the scheduler's ILP solver, though: a small
/// problem with hard ILPs (heat7pt_vla: 2 statements, 5 s) stays within the share.
pub const SCHEDULER_SHARE: u64 = 8;

/// New elements per iteration of the innermost loop, over all statements (the largest
/// count, with the smallest element size).
fn new_elements(scop: &Scop) -> Result<NewElements, IslError> {
    let mut most = NewElements::uniform(0, 0);
    for statement in &scop.statements {
        let depth = statement.depth();
        if depth == 0 {
            continue;
        }
        let accesses: Vec<BlockAccess<'_>> = statement
            .accesses
            .iter()
            .filter_map(|a| {
                let array = scop.arrays.iter().find(|x| x.name == a.array)?;
                (!array.is_scalar).then_some(BlockAccess {
                    relation: &a.relation,
                    element_bytes: array.element_size,
                })
            })
            .collect();
        match sica::count_new_elements(&accesses, depth - 1) {
            Ok(n) if n.elements > most.elements => most = n,
            Ok(_) => {}
            Err(e) if e.is_operation_limit() => {
                return Err(IslError::OperationLimit {
                    operation: "counting new elements".into(),
                })
            }
            Err(_) => {}
        }
    }
    Ok(most)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_set, parse_union_map, parse_union_set, IslCtx};
    use crate::model::spec_builders::{array, read, statement};
    use crate::model::{Assumption, AssumptionKind, ScopSpec};

    /// `for i < n: ... A[i][i]` in rows of 25, with the in-bounds assumption on `i`.
    fn diagonal_in_rows_of_25() -> ScopSpec {
        ScopSpec {
            name: "f:for.cond".into(),
            function: "f".into(),
            location: None,
            params: vec!["n".into()],
            context: "[n] -> { : -2147483648 <= n <= 2147483647 }".into(),
            assumptions: vec![Assumption {
                kind: AssumptionKind::InBounds,
                set: "[n] -> { S0[i0] : 0 <= i0 < 25 }".into(),
                statement: Some("S0".into()),
                reason: "subscript of A within its dimension: 0 <= i0 < 25 in A[i0, i0]".into(),
            }],
            arrays: vec![array("A", &["25"])],
            statements: vec![statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![read("A", "{ S0[i0] -> A[i0, i0] }")],
            )],
            alias_groups: vec![],
        }
    }

    /// `for i < size: for j < size: A[i][j+1] = A[i][j] * 0.5`, with `size` a number or the
    /// parameter `n`.
    fn row_recurrence(size: &str) -> ScopSpec {
        let params: Vec<String> = if size == "n" {
            vec!["n".into()]
        } else {
            vec![]
        };
        let prefix = if params.is_empty() {
            String::new()
        } else {
            "[n] -> ".into()
        };
        ScopSpec {
            name: "f:for.cond".into(),
            function: "f".into(),
            location: None,
            params: params.clone(),
            context: format!("{prefix}{{ : }}"),
            assumptions: vec![],
            arrays: vec![array("A", &["4096"])],
            statements: vec![statement(
                "S0",
                &format!("{prefix}{{ S0[i, j] : 0 <= i < {size} and 0 <= j < {size} }}"),
                &[0, 0, 0],
                vec![
                    read("A", "{ S0[i, j] -> A[i, j] }"),
                    crate::model::spec_builders::write("A", "{ S0[i, j] -> A[i, j + 1] }"),
                ],
            )],
            alias_groups: vec![],
        }
    }

    /// `for i < n: for k < n: y[i] += A[i][k] * x[k]` in doubles: a matrix-vector
    /// product, its accumulator kept in `y[i]`.
    fn matrix_vector() -> ScopSpec {
        let mut arrays = vec![array("A", &["n"]), array("x", &[]), array("y", &[])];
        for a in &mut arrays {
            a.element_type = "double".into();
        }
        ScopSpec {
            name: "f:for.cond".into(),
            function: "f".into(),
            location: None,
            params: vec!["n".into()],
            context: "[n] -> { : -2147483648 <= n <= 2147483647 }".into(),
            assumptions: vec![],
            arrays,
            statements: vec![statement(
                "S0",
                "[n] -> { S0[i, k] : 0 <= i, k < n }",
                &[0, 0, 0],
                vec![
                    read("y", "{ S0[i, k] -> y[i] }"),
                    read("A", "{ S0[i, k] -> A[i, k] }"),
                    read("x", "{ S0[i, k] -> x[k] }"),
                    crate::model::spec_builders::write("y", "{ S0[i, k] -> y[i] }"),
                ],
            )],
            alias_groups: vec![],
        }
    }

    #[test]
    fn matrix_vector_rows_are_interleaved_only_where_the_settings_allow() {
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, &matrix_vector()).unwrap();
        let hardware = Hardware::resolve(&Default::default(), None, &Default::default());
        let settings = ScheduleSettings::new(&Options::default());
        let Prospect::Worth(locality) = refuse_early(&scop, &settings, &hardware).unwrap() else {
            panic!("a matrix-vector product was refused before its chains were judged");
        };
        assert_eq!(locality.chain.as_deref(), Some("S0"));
        let fma = ChainCost {
            fused_multiply_add: true,
            ..ChainCost::default()
        };
        let judged = judge_chains(&scop, &locality, &settings, || fma);
        assert_eq!(judged, ChainRows::Interleaved);
        let ChainRows::Kept(reason) = judge_chains(&scop, &locality, &settings, ChainCost::default)
        else {
            panic!("rows that may stream from memory were interleaved");
        };
        assert!(reason.starts_with(CHAINS_FROM_MEMORY), "{reason}");
    }

    #[test]
    fn sizes_fixed_at_compile_time_give_the_scheduler_simplified_dependences() {
        let ctx = IslCtx::new(None).unwrap();
        for (size, simplified) in [("n", false), ("50", false), ("1000", true)] {
            let scop = Scop::build(&ctx, &row_recurrence(size)).unwrap();
            let deps = Dependences::compute(&scop, &crate::deps::DepsOptions::default()).unwrap();
            let (validity, was) = scheduling_constraints(&scop, &deps).unwrap();
            assert_eq!(was, simplified, "size {size}");
            if simplified {
                // The bound 1000 of the domains is gone from the dependences.
                assert!(
                    validity.largest_constant().unwrap() <= EXACT_CONSTANT,
                    "{validity:?}"
                );
            }
            // Either way isl finds a schedule, which respects the exact dependences.
            let schedule = compute_with(&scop, &deps, false)
                .unwrap()
                .expect("a schedule");
            assert!(respects(&deps, &schedule.get_map().unwrap()).unwrap());
        }
    }

    /// Dependences of `statements` statements, each `S<k>[i, j] -> S<k>[i + 1, j]` over a
    /// 2499 x 2499 domain (a bound fixed at compile time).
    fn fixed_size_dependences(ctx: &IslCtx, statements: usize) -> UnionMap {
        let pieces: Vec<String> = (0..statements)
            .map(|k| format!("S{k}[i, j] -> S{k}[i + 1, j] : 0 <= i < 2499 and 0 <= j < 2499"))
            .collect();
        parse_union_map(ctx, &format!("{{ {} }}", pieces.join("; ")), "deps").unwrap()
    }

    #[test]
    fn exact_dependences_get_their_retry_only_under_the_constraint_bound() {
        let ctx = IslCtx::new(None).unwrap();
        // 6 constraints per piece (two equalities, four bounds).
        let few = fixed_size_dependences(&ctx, 4);
        assert_eq!(few.pieces_and_constraints().unwrap(), (4, 24));
        assert!(exact_retry_affordable(&few).unwrap());
        let many = fixed_size_dependences(&ctx, 17);
        assert!(many.pieces_and_constraints().unwrap().1 > EXACT_RETRY_CONSTRAINTS);
        assert!(!exact_retry_affordable(&many).unwrap());
    }

    #[test]
    fn refusal_for_tiny_problems_names_the_assumption_responsible() {
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, &diagonal_in_rows_of_25()).unwrap();
        let reason = only_tiny_problems(&scop).unwrap().expect("refused");
        assert!(
            reason.ends_with(
                "original code: in-bounds of S0: subscript of A within its dimension: \
                 0 <= i0 < 25 in A[i0, i0]"
            ),
            "{reason}"
        );
    }

    #[test]
    fn refusal_for_tiny_problems_says_when_an_assumption_never_holds() {
        let ctx = IslCtx::new(None).unwrap();
        let mut spec = diagonal_in_rows_of_25();
        spec.assumptions[0].set = "[n] -> { S0[i0] : false }".into();
        let scop = Scop::build(&ctx, &spec).unwrap();
        let reason = only_tiny_problems(&scop).unwrap().expect("refused");
        assert!(
            reason.ends_with("(never holds where its statement runs)"),
            "{reason}"
        );
    }

    #[test]
    fn large_problems_that_pass_the_assumptions_are_not_refused() {
        let ctx = IslCtx::new(None).unwrap();
        let mut spec = diagonal_in_rows_of_25();
        spec.assumptions[0].set = "[n] -> { S0[i0] : 0 <= i0 < 4096 }".into();
        let scop = Scop::build(&ctx, &spec).unwrap();
        assert_eq!(only_tiny_problems(&scop).unwrap(), None);
    }

    #[test]
    fn the_scheduler_runs_under_its_share_and_the_bound_comes_back() {
        let ctx = IslCtx::new(Some(8000)).unwrap();
        let domain =
            parse_union_set(&ctx, "[n] -> { S[i, j, k] : 0 <= i, j, k < n }", "d").unwrap();
        let context = parse_set(&ctx, "[n] -> { : n > 0 }", "c").unwrap();
        let deps = parse_union_map(
            &ctx,
            "[n] -> { S[i, j, k] -> S[i, j, k + 1] : 0 <= i, j < n and 0 <= k < n - 1 }",
            "deps",
        )
        .unwrap();
        let result = ctx.within_share(SCHEDULER_SHARE, || {
            scheduler::compute_schedule(&domain, &context, &deps, &deps, &deps)
        });
        assert!(matches!(result, Err(e) if e.is_operation_limit()));
        assert_eq!(ctx.max_operations(), Some(8000));
        // The rest of the region's work has its whole bound again.
        assert!(ctx
            .within_share(SCHEDULER_SHARE, || Ok::<(), IslError>(()))
            .is_ok());
        ctx.set_max_operations(None);
        assert!(ctx
            .within_share(SCHEDULER_SHARE, || {
                scheduler::compute_schedule(&domain, &context, &deps, &deps, &deps)
            })
            .is_ok());
    }

    #[test]
    fn a_region_too_large_to_schedule_is_refused_from_its_spec_as_from_its_model() {
        let mut spec = diagonal_in_rows_of_25();
        assert_eq!(refuse_by_size(&spec), None);
        spec.params = std::iter::once("n".to_string())
            .chain((1..=MAX_PARAMETERS).map(|k| format!("p{k}")))
            .collect();
        spec.context = format!("[{}] -> {{ : }}", spec.params.join(", "));
        let from_spec = refuse_by_size(&spec).expect("too many parameters");
        assert_eq!(
            from_spec,
            format!(
                "it has {} parameters; polyrust schedules regions of at most {MAX_PARAMETERS}",
                MAX_PARAMETERS + 1
            )
        );
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, &spec).unwrap();
        let settings = ScheduleSettings::new(&Options::default());
        let hardware = Hardware::resolve(&Default::default(), None, &Default::default());
        let Prospect::Refused(early) = refuse_early(&scop, &settings, &hardware).unwrap() else {
            panic!("a region too large to schedule was found worth scheduling");
        };
        assert_eq!(early, from_spec);
    }

    #[test]
    fn a_statement_outside_the_innermost_loop_makes_no_chain_in_it() {
        let ctx = IslCtx::new(None).unwrap();
        let union = |text: &str| parse_union_map(&ctx, text, "test").unwrap();
        // C's row zeroed (S0, one loop deep), then C[i][j] += a * B[k][j] in i, k, j.
        let partial = union(
            "[n] -> { S0[i] -> [i, 0, 0] : 0 <= i < n; \
             S1[i, k, j] -> [i, k, j] : 0 <= i, k, j < n }",
        );
        let zeroing = "S0[i] -> S1[i, k, j] : 0 <= i, k, j < n";
        let update = "S1[i, k, j] -> S1[i, k + 1, j] : 0 <= i, j < n and 0 <= k < n - 1";
        let kept = in_innermost_loop(
            &ctx,
            &union(&format!("[n] -> {{ {zeroing}; {update} }}")),
            &partial,
            2,
        )
        .unwrap();
        assert!(kept
            .is_equal(&union(&format!("[n] -> {{ {update} }}")))
            .unwrap());
        // A statement the innermost member iterates keeps its dependences.
        let chain = "S1[i, k, j] -> S1[i, k, j + 1] : 0 <= i, k < n and 0 <= j < n - 1";
        let all = union(&format!("[n] -> {{ {chain}; {update} }}"));
        let kept = in_innermost_loop(&ctx, &all, &partial, 2).unwrap();
        assert!(kept.is_equal(&all).unwrap());
    }
}
