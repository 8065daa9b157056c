//! Where tiling can pay: reuse that a loop carries across more data than the cache
//! holds.
//!
//! Tiling only shortens the distance between two uses of an element, so it gains only
//! where that distance, counted in bytes touched in between, exceeds the cache: the
//! element has been evicted before it is used again. For each statement and each loop
//! `l` around it:
//!
//! - *reuse at `l`*: an access that stays on one element while `l` advances but moves in
//!   a deeper loop (`B[k][j]` in loop `i` of `i, j, k`), or two accesses of one group
//!   (below) whose offsets differ by a whole number of steps of `l` (`u[j + 1][i]` and
//!   `u[j - 1][i]` in loop `j`). Only statements inside `l` count, from one statement or
//!   another.
//! - *footprint of one iteration of `l`*: over every statement inside `l`, over each
//!   group of its accesses (one array, one linear part: `u[j + 1][i]` and `u[j - 1][i]`
//!   are one group), the element size times the trip counts of the loops deeper than
//!   `l` the group moves in. A trip count not known at compile time (a parameter)
//!   counts as unbounded, unless the model's assumptions bound it (a loop over a
//!   fixed-size array's rows, up to a loaded bound). Elements are counted, not cache
//!   lines, and groups of different statements are counted separately: both err
//!   towards a larger footprint, so towards letting a region through.
//!
//! Reuse at `l` is *lost* when the footprint exceeds `CACHE_SHARE` of L2. A region
//! where no reuse is lost cannot gain from tiling; the scheduling stage asks this before
//! it computes dependences (the costliest stage on real programs, where most loop nests
//! are stencils whose reuse spans a few rows).
//!
//! Relies on the model's domains, access relations and textual positions (isl).

use crate::isl::{IslError, Set};
use crate::model::spec::AccessKind;
use crate::model::{Scop, Statement};

use super::cost::constant_vector;
use super::hardware::format_bytes;

/// The share of L2 that reuse may span and still hit in cache (the rest goes to other
/// data and to conflicts): the same share SICA fills with its L2 tiles.
pub const CACHE_SHARE: f64 = super::sica::L2_SHARE;

/// Reuse a loop carries across more data than the cache holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostReuse {
    /// The statement that loses reuse.
    pub statement: String,
    /// The outermost loop carrying it (0 = the statement's outermost).
    pub level: usize,
    /// Bytes one iteration of that loop touches; `None` when unbounded (parametric).
    pub footprint: Option<u64>,
    /// Every loop that carries lost reuse, outermost first (`level` among them): a tile
    /// band gains only if it holds one of them.
    pub levels: Vec<usize>,
}

/// What the analysis found for a region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reuse {
    /// Some reuse is lost: tiling can pay. Per statement that loses some, its outermost
    /// loop that does, in program order (never empty).
    Lost(Vec<LostReuse>),
    /// All reuse fits: the largest footprint between two uses of an element (`None`
    /// when no element is used twice).
    Kept {
        /// The largest footprint between two uses of an element.
        largest: Option<u64>,
        /// The bytes the footprints were held against (the cache size).
        budget: u64,
    },
}

impl Reuse {
    /// Whether `statement` loses reuse in some loop.
    pub fn lost_by(&self, statement: &str) -> bool {
        matches!(self, Reuse::Lost(lost) if lost.iter().any(|l| l.statement == statement))
    }

    /// For remarks: why tiling cannot pay (`None` when it can).
    pub fn why_not(&self) -> Option<String> {
        match self {
            Reuse::Lost(_) => None,
            Reuse::Kept {
                largest: None,
                budget: _,
            } => Some("no loop carries reuse of an element".into()),
            Reuse::Kept {
                largest: Some(bytes),
                budget,
            } => Some(format!(
                "every reuse of an element spans at most {} of data, which stays in cache (half of L2: {})",
                format_bytes(*bytes),
                format_bytes(*budget)
            )),
        }
    }
}

/// Loops of `a` that `b` shares (loop `k` is shared where the textual positions up to
/// it agree).
fn shared_loops(a: &Statement, b: &Statement) -> usize {
    let depth = a.depth().min(b.depth());
    (0..depth)
        .take_while(|&k| a.textual_positions[..=k] == b.textual_positions[..=k])
        .count()
}

/// Whether no other statement lies inside the innermost loop of `statement`.
pub(super) fn in_innermost_loop(statement: &Statement, all: &[Statement]) -> bool {
    let depth = statement.depth();
    depth == 0
        || !all
            .iter()
            .any(|other| other.depth() > depth && shared_loops(statement, other) == depth)
}

/// Whether two statements sit in different loops under the loops they share.
fn has_sibling_nests(all: &[Statement]) -> bool {
    all.iter().enumerate().any(|(k, a)| {
        all[k + 1..]
            .iter()
            .any(|b| shared_loops(a, b) < a.depth().min(b.depth()))
    })
}

/// One access as the analysis sees it.
struct Shape {
    array: String,
    bytes: u32,
    /// Subscripts per access.
    rank: usize,
    /// Per loop of the statement: how the element moves when that loop advances by one
    /// (`None`: not by a constant, the access is not affine in it).
    steps: Vec<Option<Vec<i64>>>,
    /// The element at the origin of the iteration space with every parameter 0, if it
    /// is one point: offsets of one group differ by constants whatever the parameters.
    offset: Option<Vec<i64>>,
}

impl Shape {
    fn still_in(&self, level: usize) -> bool {
        matches!(&self.steps[level], Some(v) if v.iter().all(|x| *x == 0))
    }

    /// Strided in the innermost loop, invariant or contiguous in another one: a loop
    /// order exists that walks it better. `u[i][j][k][0..4]` in loops `i, j, k` (the
    /// loop over the last dimension unrolled) has none.
    fn reorderable(&self) -> bool {
        let Some((innermost, outer)) = self.steps.split_last() else {
            return false;
        };
        let walks_well = |step: &Option<Vec<i64>>| match step.as_deref() {
            Some([before @ .., last]) => before.iter().all(|x| *x == 0) && last.abs() <= 1,
            Some([]) => true,
            None => false,
        };
        !walks_well(innermost) && outer.iter().any(walks_well)
    }

    fn same_group(&self, other: &Shape) -> bool {
        self.array == other.array
            && self.steps.iter().all(Option::is_some)
            && self.steps == other.steps
    }
}

/// A group of accesses of one statement: one array, one linear part.
struct Group {
    bytes: u32,
    /// Per loop: whether the group's element moves when it advances.
    moves: Vec<bool>,
    /// Per loop: the element's step, when constant.
    steps: Vec<Option<Vec<i64>>>,
    offsets: Vec<Vec<i64>>,
}

impl Group {
    /// Self reuse (still in `level`, moving deeper) or group reuse (two offsets a whole
    /// number of `level` steps apart).
    fn reuses_at(&self, level: usize) -> bool {
        if !self.moves[level] && self.moves[level + 1..].iter().any(|m| *m) {
            return true;
        }
        let Some(step) = self.steps[level]
            .as_ref()
            .filter(|s| s.iter().any(|x| *x != 0))
        else {
            return false;
        };
        self.offsets.iter().enumerate().any(|(k, a)| {
            self.offsets[k + 1..]
                .iter()
                .any(|b| multiple_of(step, a, b))
        })
    }
}

/// Whether `b - a` is a non-zero whole multiple of `step`.
fn multiple_of(step: &[i64], a: &[i64], b: &[i64]) -> bool {
    let delta: Vec<i64> = b.iter().zip(a).map(|(x, y)| x - y).collect();
    let Some(k) = step.iter().position(|x| *x != 0) else {
        return false;
    };
    if delta[k] == 0 || delta[k] % step[k] != 0 {
        return false;
    }
    let times = delta[k] / step[k];
    step.iter().zip(&delta).all(|(s, d)| s * times == *d)
}

/// A statement's groups and loop trip counts.
struct Nest<'a> {
    statement: &'a Statement,
    groups: Vec<Group>,
    /// An array whose access moves by a stride in the innermost loop and would not in
    /// another one, if the statement has one.
    reorderable: Option<String>,
    /// Per loop: its trip count, `None` when not bounded by a constant.
    extents: Vec<Option<u64>>,
    /// Whether the statement accumulates into one floating-point element along its
    /// innermost loop, a different one in each iteration of the loop outside (see
    /// `Locality::chain`).
    accumulates: bool,
}

impl Nest<'_> {
    /// Bytes one iteration of loop `level` touches (`None`: unbounded).
    fn footprint(&self, level: usize) -> Option<u64> {
        let mut total: u64 = 0;
        for group in &self.groups {
            let mut bytes = u64::from(group.bytes);
            for (deeper, moves) in group.moves.iter().enumerate().skip(level + 1) {
                if *moves {
                    bytes = bytes.checked_mul(self.extents[deeper]?)?;
                }
            }
            total = total.checked_add(bytes)?;
        }
        Some(total)
    }

    /// Whether this statement is inside loop `level` of `other`.
    fn shares_loop(&self, other: &Nest<'_>, level: usize) -> bool {
        let (a, b) = (
            &self.statement.textual_positions,
            &other.statement.textual_positions,
        );
        a.len() > level + 1 && b.len() > level + 1 && a[..=level] == b[..=level]
    }
}

/// What a new loop order or tiling could gain in a region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Locality {
    /// Temporal reuse (from statements at least `min_depth` loops deep, which tiling
    /// needs).
    pub temporal: Reuse,
    /// A statement and array whose innermost access is strided while another loop of the
    /// statement would walk it contiguously (or stay on one element), if there is one.
    pub reorderable: Option<(String, String)>,
    /// A statement fewer than `min_depth` loops deep (but two or more) that accumulates
    /// into one floating-point element along its innermost loop (`s -= A[i][k] *
    /// A[j][k]` with `s` kept in `A[i][j]`), a different element in each iteration of
    /// the loop outside, if there is one. Such a loop is not vectorized and each of its
    /// iterations waits on the previous one; tiling the two loops
    /// (`sica::DEPENDENT_CHAIN`) overlaps the chains of neighbouring elements whatever
    /// the cache does.
    pub chain: Option<String>,
}

/// The region's locality: where its reuse is lost, if anywhere, for statements at least
/// `min_depth` loops deep, with `cache_bytes` of L2; and whether reordering loops could
/// make an innermost access contiguous.
pub fn analyse(scop: &Scop, min_depth: usize, cache_bytes: u64) -> Result<Locality, IslError> {
    let nests = scop
        .statements
        .iter()
        .map(|s| nest(scop, s))
        .collect::<Result<Vec<_>, _>>()?;
    // A statement between loops (the loads LLVM's PRE leaves in front of a row loop)
    // runs once per row: walking it better pays only as part of a fusion of sibling
    // loop nests (a sweep and its copy-back), which isl's scheduler may find.
    let siblings = has_sibling_nests(&scop.statements);
    let reorderable = nests
        .iter()
        .filter(|n| siblings || in_innermost_loop(n.statement, &scop.statements))
        .find_map(|n| {
            n.reorderable
                .as_ref()
                .map(|array| (n.statement.name.clone(), array.clone()))
        });
    let chain = nests
        .iter()
        .find(|n| n.accumulates && n.statement.depth() < min_depth)
        .map(|n| n.statement.name.clone());
    Ok(Locality {
        temporal: temporal(&nests, min_depth, cache_bytes),
        reorderable,
        chain,
    })
}

/// Where reuse is lost, if anywhere (see the module's description).
fn temporal(nests: &[Nest<'_>], min_depth: usize, cache_bytes: u64) -> Reuse {
    let budget = (CACHE_SHARE * cache_bytes as f64) as u64;
    let mut largest: Option<u64> = None;
    let mut lost = Vec::new();
    for nest in nests.iter().filter(|n| n.statement.depth() >= min_depth) {
        let mut levels = Vec::new();
        let mut outermost = None;
        for level in 0..nest.statement.depth() {
            let inside: Vec<&Nest<'_>> = nests
                .iter()
                .filter(|other| nest.shares_loop(other, level))
                .collect();
            if !inside
                .iter()
                .any(|n| n.groups.iter().any(|g| g.reuses_at(level)))
            {
                continue;
            }
            let footprint = inside
                .iter()
                .try_fold(0u64, |sum, n| sum.checked_add(n.footprint(level)?));
            match footprint {
                Some(bytes) if bytes <= budget => {
                    largest = Some(largest.map_or(bytes, |l| l.max(bytes)));
                }
                footprint => {
                    outermost.get_or_insert((level, footprint));
                    levels.push(level);
                }
            }
        }
        if let Some((level, footprint)) = outermost {
            lost.push(LostReuse {
                statement: nest.statement.name.clone(),
                level,
                footprint,
                levels,
            });
        }
    }
    if lost.is_empty() {
        Reuse::Kept { largest, budget }
    } else {
        Reuse::Lost(lost)
    }
}

fn nest<'a>(scop: &Scop, statement: &'a Statement) -> Result<Nest<'a>, IslError> {
    let depth = statement.depth();
    let extents = loop_extents(scop, statement)?;
    // The element at the origin and at each unit point, with the parameters set to 0
    // (`A[i][k]` with `k` fixed outside the region): for an affine access these give
    // its offset and the column of each loop. Single points with fixed parameters are
    // cheap for isl; composing the relations made this check a tenth of a second on
    // NPB's largest regions.
    let points = std::iter::once(None)
        .chain((0..depth).map(Some))
        .map(|unit| point(statement, unit))
        .collect::<Result<Vec<_>, _>>()?;
    let mut shapes = Vec::new();
    // (array, steps, offset) of the floating-point elements the statement reads, and
    // of those it writes.
    let mut read = Vec::new();
    let mut written = Vec::new();
    for access in &statement.accesses {
        let Some(array) = scop
            .arrays
            .iter()
            .find(|a| a.name == access.array && !a.is_scalar)
        else {
            continue;
        };
        let mut elements = Vec::with_capacity(points.len());
        for point in &points {
            elements.push(single_element(
                point.copy()?.apply(access.relation.copy()?)?,
            )?);
        }
        let offset = elements[0].clone();
        let steps: Vec<Option<Vec<i64>>> = elements[1..]
            .iter()
            .map(|element| {
                let (Some(at), Some(origin)) = (element, &offset) else {
                    return None;
                };
                Some(at.iter().zip(origin).map(|(a, o)| a - o).collect())
            })
            .collect();
        if is_floating(&array.element_type) {
            let key = (array.name.clone(), steps.clone(), offset.clone());
            match access.kind {
                AccessKind::Read => read.push(key),
                AccessKind::MustWrite => written.push(key),
                AccessKind::MayWrite => {}
            }
        }
        shapes.push(Shape {
            array: array.name.clone(),
            bytes: array.element_size,
            rank: array.rank(),
            steps,
            offset,
        });
    }
    let accumulates = accumulates(depth, &read, &written);
    let reorderable = shapes
        .iter()
        .find(|shape| shape.reorderable())
        .map(|shape| shape.array.clone());
    Ok(Nest {
        statement,
        reorderable,
        groups: group(shapes),
        extents,
        accumulates,
    })
}

/// The number of iterations of each loop around `statement`, when constants bound it
/// within the assumptions: in-bounds subscripts of fixed-size arrays bound loops whose
/// bounds are loaded values (`i <= grid_points[0] - 2` over `u[..][37]`).
fn loop_extents(scop: &Scop, statement: &Statement) -> Result<Vec<Option<u64>>, IslError> {
    let depth = statement.depth();
    let domain = statement
        .domain
        .copy()?
        .intersect_params(scop.assumed_context.copy()?)?;
    let mut extents = Vec::with_capacity(depth);
    for level in 0..depth {
        extents.push(
            domain
                .dim_value_range(level)?
                .and_then(|(lo, hi)| u64::try_from(hi - lo + 1).ok()),
        );
    }
    Ok(extents)
}

/// (array, steps per loop, offset) of one floating-point element an access reaches.
type ElementKey = (String, Vec<Option<Vec<i64>>>, Option<Vec<i64>>);

/// Whether a statement `depth` loops deep accumulates into an element: it reads and
/// writes one element that stays put in the innermost loop and moves in the one
/// outside it.
fn accumulates(depth: usize, read: &[ElementKey], written: &[ElementKey]) -> bool {
    depth >= 2
        && written.iter().any(|key| {
            let (_, steps, offset) = key;
            let still =
                |step: &Option<Vec<i64>>| step.as_ref().is_some_and(|v| v.iter().all(|x| *x == 0));
            offset.is_some()
                && still(&steps[depth - 1])
                && steps[depth - 2].is_some()
                && !still(&steps[depth - 2])
                && read.contains(key)
        })
}

/// Whether LLVM's type `name` is a floating-point one: its reductions are not
/// reassociated (so not vectorized) without fast-math flags, which integers' are.
pub(crate) fn is_floating(name: &str) -> bool {
    matches!(
        name,
        "half" | "bfloat" | "float" | "double" | "x86_fp80" | "fp128" | "ppc_fp128"
    )
}

/// Accesses with one array and one (constant) linear part form one group; any other
/// access is a group of its own.
fn group(shapes: Vec<Shape>) -> Vec<Group> {
    let mut groups: Vec<(Shape, Group)> = Vec::new();
    for shape in shapes {
        if let Some((first, group)) = groups
            .iter_mut()
            .find(|(first, _)| first.same_group(&shape))
        {
            // Offsets relative to the group's first access.
            if let (Some(base), Some(offset)) = (&first.offset, &shape.offset) {
                group
                    .offsets
                    .push(offset.iter().zip(base).map(|(o, b)| o - b).collect());
            }
            continue;
        }
        let group = Group {
            bytes: shape.bytes,
            moves: (0..shape.steps.len()).map(|l| !shape.still_in(l)).collect(),
            steps: shape.steps.clone(),
            offsets: vec![vec![0; shape.rank]],
        };
        groups.push((shape, group));
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// The one element of `set` (an access applied to a point), `None` when it has none or
/// several. Plainly fixed dimensions are read as they are; the rest are solved for.
fn single_element(set: Set) -> Result<Option<Vec<i64>>, IslError> {
    let mut out = Vec::new();
    for k in 0..set.n_dims()? {
        match set.plain_fixed_value(k)? {
            Some(v) => out.push(v),
            None => return constant_vector(&set),
        }
    }
    Ok(Some(out))
}

/// `{ S[0, .., 0] }`, or with a 1 at `unit`, in the statement's space, with every
/// parameter 0.
fn point(statement: &Statement, unit: Option<usize>) -> Result<Set, IslError> {
    let coordinates: Vec<i32> = (0..statement.depth())
        .map(|k| i32::from(Some(k) == unit))
        .collect();
    statement.domain.point_of_space(&coordinates, 0)
}

#[cfg(test)]
mod tests;
