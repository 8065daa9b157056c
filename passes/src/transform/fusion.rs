//! Stage fusion: the loop nests of a region that run one after another (the stages of
//! an image pipeline or a stencil chain) fused into one loop over their outermost
//! counters, each stage shifted by as many iterations as its reads reach ahead of it.
//! A separable blur's vertical pass, reading rows `y - 2 .. y + 2` of the horizontal
//! pass's temporary, then computes row `y` right after the horizontal pass has written
//! row `y + 2`: the temporary is read while its rows are in cache, and QUOV storage
//! (`quov::fold`) can keep the five rows alive instead of the whole image. This is
//! Halide's `compute_at` with a sliding window, and PolyMage's overlapped groups without
//! the redundant computation, decided from the dependences.
//!
//! Works on the 2d+1 time stamps of the original schedule (`[b0, i0, b1, i1, .., bd]`):
//! below the `k` loops all statements share, the nests differ by their position `bk`;
//! the fused stamp puts the nest's counter `ik` (plus the nest's shift) before `bk`,
//! so that the nests become the body of one loop and keep their order inside it. The
//! shift of each nest is the smallest that keeps every dependence from an earlier nest
//! forward (from the dependences' smallest distance along `ik`); a distance unbounded
//! below (a stage reading its producer's rows in another order: a transpose, a
//! downsampling by two) leaves the region unfused. Statements between the nests with no
//! loop of their own there (the flags jump threading leaves between loops) run before
//! the fused loop when nothing in the nests feeds them, after it when they feed nothing
//! in the nests; otherwise the region stays unfused. The result is checked against the
//! dependences.
//!
//! Relies on the statements' textual positions and domains, and on
//! `Dependences::deltas_within_loop`.

pub mod choice;

use crate::deps::{Dependences, PairDeltas};
use crate::isl::{AffineExpr, IslError, Map, Schedule, Set, Tuple, UnionMap};
use crate::model::{Scop, Statement};

/// Largest shift of a nest, in iterations of the fused loop: a stencil reaching 16 rows
/// ahead. A larger smallest distance comes from parameter bounds (a stage reading its
/// producer transposed, `tmp[x][y]`, in a region whose sizes are at most 1000), where
/// nothing stays in cache between the stages.
const MAX_SHIFT: i64 = 16;

/// The stages of a region fused, with the schedule and what it did.
pub struct Fused {
    pub schedule: Schedule,
    /// The flattened schedule (one band), for checks.
    #[cfg(test)]
    pub map: UnionMap,
    /// How many nests were fused.
    pub nests: usize,
    /// How many loops all statements share (the fused loop is the next one).
    pub shared: usize,
    /// The first statement of each shifted nest, with its shift.
    pub behind: Vec<(String, i64)>,
}

impl Fused {
    /// `2 loop nests fused into one outer loop (S1 2 iterations behind)`, each shifted
    /// nest named by `name` from its first statement.
    pub fn describe(&self, name: &dyn Fn(&str) -> String) -> String {
        let behind: Vec<String> = self
            .behind
            .iter()
            .map(|(statement, shift)| {
                let unit = if *shift == 1 {
                    "iteration"
                } else {
                    "iterations"
                };
                format!("{} {shift} {unit} behind", name(statement))
            })
            .collect();
        let into = match self.shared {
            0 => "one outer loop".to_string(),
            k => format!("one loop at depth {}", k + 1),
        };
        match behind.is_empty() {
            true => format!("{} loop nests fused into {into}", self.nests),
            false => format!(
                "{} loop nests fused into {into} ({})",
                self.nests,
                behind.join(", ")
            ),
        }
    }
}

/// The region's nests fused along their outermost unshared loop, or `None` when there
/// is only one nest there, a statement between the nests can run neither before nor
/// after them, or some dependence cannot be kept forward by shifts.
pub fn fuse(scop: &Scop, deps: &Dependences) -> Result<Option<Fused>, IslError> {
    let Some(shared) = shared_loops(scop) else {
        return Ok(None);
    };
    let in_nest = |s: &Statement| s.depth() > shared;
    let nests = nest_positions(scop, shared);
    if nests.len() < 2 || !nests.windows(2).all(|w| w[0] < w[1]) {
        return Ok(None);
    }
    let statement = |name: &str| scop.statements.iter().find(|s| s.name == name);
    let nest_of = |name: &str| {
        statement(name)
            .filter(|s| in_nest(s))
            .and_then(|s| nests.iter().position(|b| *b == s.textual_positions[shared]))
    };
    let Some(phases) = loose_phases(scop, deps, shared, &nest_of)? else {
        return Ok(None);
    };
    let prefix: Vec<u32> = scop.statements[0].textual_positions[..shared].to_vec();
    let pairs = deps.deltas_within_loop(deps.validity(), &prefix)?;
    let ctx = scop.context.ctx();
    // The pairs in one iteration of every shared loop (`deltas_within_loop` leaves
    // the innermost shared one free).
    let same_iteration = match shared {
        0 => None,
        k => {
            let width = pairs.first().map(|p| p.deltas.n_dims()).transpose()?;
            width
                .map(|w| {
                    Set::universe(&ctx, &[], &Tuple::counters(None, "d", w))?.fix_dim(2 * k - 1, 0)
                })
                .transpose()?
        }
    };
    let Some(shifts) = nest_shifts(pairs, &nest_of, same_iteration, shared, nests.len())? else {
        return Ok(None);
    };
    let map = fused_map(scop, shared, &nests, &shifts, &phases)?;
    if !deps.respects(&map).map_err(|e| IslError::Other {
        context: "checking fused stages against the dependences".into(),
        message: e.to_string(),
    })? {
        return Ok(None);
    }
    let schedule = Schedule::from_domain(scop.domains.copy()?)?.insert_band(map.copy()?)?;
    let behind: Vec<(String, i64)> = nests
        .iter()
        .zip(&shifts)
        .filter(|(_, s)| **s != 0)
        .filter_map(|(b, s)| {
            let first = scop
                .statements
                .iter()
                .find(|st| st.depth() > shared && st.textual_positions[shared] == *b)?;
            Some((first.name.clone(), *s))
        })
        .collect();
    Ok(Some(Fused {
        schedule,
        #[cfg(test)]
        map,
        nests: nests.len(),
        shared,
        behind,
    }))
}

/// How many iterations each of `nests` nests runs behind in the fused loop (the first
/// none) so that every pair of `pairs` (distances in the flat time space, within
/// `same_iteration` of the shared loops) between two nests goes forward; `None` when a
/// pair goes from a later nest to an earlier one, is unbounded, or needs a shift
/// beyond `MAX_SHIFT`.
fn nest_shifts(
    pairs: Vec<PairDeltas>,
    nest_of: &dyn Fn(&str) -> Option<usize>,
    same_iteration: Option<Set>,
    shared: usize,
    nests: usize,
) -> Result<Option<Vec<i64>>, IslError> {
    let counter = 2 * shared + 1;
    let mut shifts = vec![0_i64; nests];
    // Nests in program order: each one's shift follows from those before it.
    let mut needed: Vec<Vec<(usize, i64)>> = vec![Vec::new(); nests];
    for pair in pairs {
        let (Some(from), Some(to)) = (nest_of(&pair.source), nest_of(&pair.sink)) else {
            // A statement outside the nests: `loose_phases` placed it.
            continue;
        };
        if from == to {
            continue;
        }
        let deltas = match &same_iteration {
            Some(set) => {
                let set = set.copy()?.align_params(&pair.deltas)?;
                pair.deltas.intersect(set)?
            }
            None => pair.deltas,
        };
        if deltas.is_empty()? {
            continue;
        }
        if from > to {
            return Ok(None);
        }
        let Some(lowest) = deltas.dim_lower_bound(counter)? else {
            return Ok(None);
        };
        if lowest < -MAX_SHIFT {
            return Ok(None);
        }
        needed[to].push((from, lowest));
    }
    for to in 0..nests {
        for &(from, lowest) in &needed[to] {
            shifts[to] = shifts[to].max(shifts[from] - lowest);
        }
    }
    Ok(Some(shifts))
}

/// Whether the region has two loop nests or more below the loops all its statements
/// share: asked before the dependences are computed for `fuse`.
pub fn has_stages(scop: &Scop) -> bool {
    shared_loops(scop).is_some_and(|shared| nest_positions(scop, shared).len() >= 2)
}

/// The nests below `shared` loops, by their position there, in program order (a
/// position once for each run of statements at it).
fn nest_positions(scop: &Scop, shared: usize) -> Vec<u32> {
    let mut nests: Vec<u32> = scop
        .statements
        .iter()
        .filter(|s| s.depth() > shared)
        .map(|s| s.textual_positions[shared])
        .collect();
    nests.dedup();
    nests
}

/// How many loops all statements share, when some statements have more loops inside
/// them (the nests fused along the next loop); `None` otherwise.
fn shared_loops(scop: &Scop) -> Option<usize> {
    let first = &scop.statements.first()?.textual_positions;
    let mut shared = first.len().saturating_sub(1);
    for s in &scop.statements {
        let common = first
            .iter()
            .zip(&s.textual_positions)
            .take_while(|(a, b)| a == b)
            .count();
        shared = shared.min(common).min(s.depth());
    }
    scop.statements
        .iter()
        .any(|s| s.depth() > shared)
        .then_some(shared)
}

/// Where each statement runs around the fused loop: `Before` or `After` for a statement
/// with no loop of its own below the shared ones, `Fused` for the nests' statements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Before,
    Fused,
    After,
}

impl Phase {
    fn stamp(self) -> u32 {
        match self {
            Phase::Before => 0,
            Phase::Fused => 1,
            Phase::After => 2,
        }
    }
}

/// The phase of every statement (in the model's order), or `None` when a statement
/// outside the nests both depends on a nest and feeds one (it has to stay between them).
fn loose_phases(
    scop: &Scop,
    deps: &Dependences,
    shared: usize,
    nest_of: &dyn Fn(&str) -> Option<usize>,
) -> Result<Option<Vec<Phase>>, IslError> {
    let mut fed = std::collections::HashSet::new();
    let mut feeding = std::collections::HashSet::new();
    for dep in deps.validity().maps()? {
        let (Some(source), Some(sink)) = (dep.domain_name(), dep.range_name()) else {
            continue;
        };
        match (nest_of(&source), nest_of(&sink)) {
            (Some(_), None) => {
                fed.insert(sink);
            }
            (None, Some(_)) => {
                feeding.insert(source);
            }
            _ => {}
        }
    }
    let mut phases = Vec::with_capacity(scop.statements.len());
    for s in &scop.statements {
        let phase = if s.depth() > shared {
            Phase::Fused
        } else if !fed.contains(&s.name) {
            Phase::Before
        } else if !feeding.contains(&s.name) {
            Phase::After
        } else {
            return Ok(None);
        };
        phases.push(phase);
    }
    Ok(Some(phases))
}

/// The fused flattened schedule: `[b0, i0, .., i(k-1), 1, ik + shift, bk, b(k+1), ..]`
/// for the nests' statements below `k` shared loops, `[b0, i0, .., i(k-1), 0 or 2, bk,
/// 0, ..]` for the statements that run before or after the fused loop, all padded to one
/// width.
fn fused_map(
    scop: &Scop,
    shared: usize,
    nests: &[u32],
    shifts: &[i64],
    phases: &[Phase],
) -> Result<UnionMap, IslError> {
    let width = scop.statements.iter().map(|s| s.depth()).max().unwrap_or(0) * 2 + 2;
    let ctx = scop.context.ctx();
    let pieces = scop
        .statements
        .iter()
        .zip(phases)
        .map(|(s, phase)| {
            let positions = &s.textual_positions;
            let shift = nests
                .iter()
                .position(|b| *b == positions[shared])
                .map_or(0, |n| shifts[n]);
            let constant = |value: u32| AffineExpr::Constant(i64::from(value));
            let mut time = Vec::with_capacity(width);
            for (k, position) in positions.iter().enumerate() {
                match k.cmp(&shared) {
                    // The fused loop comes before the nest's position.
                    std::cmp::Ordering::Equal => {
                        time.push(constant(phase.stamp()));
                        if *phase == Phase::Fused {
                            time.push(AffineExpr::Input(shared).offset(shift));
                        }
                        time.push(constant(*position));
                    }
                    _ => {
                        time.push(constant(*position));
                        if k < s.depth() {
                            time.push(AffineExpr::Input(k));
                        }
                    }
                }
            }
            time.resize(width, AffineExpr::Constant(0));
            let counters = Tuple::counters(Some(&s.name), "i", s.depth());
            Map::from_affine(&ctx, &scop.params, &counters, None, &time)
        })
        .collect::<Result<Vec<Map>, IslError>>()?;
    UnionMap::from_maps(&ctx, pieces)
}

#[cfg(test)]
mod tests;
