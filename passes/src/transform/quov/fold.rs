//! QUOV storage allocation, the folding half: which dimensions of a temporary the final
//! schedule lets share storage, so that `U[t][i]` lives in `U[t mod 2][i]` and a value
//! read at once lives in one cell.
//!
//! The shortest QUOV of the array's writer (`super::quov`, over the flow vectors in its
//! iteration space) proposes a fold; folds along one dimension (`mod 1`: the dimension
//! goes; `mod g`: `g` rotating copies) follow, cheapest first. Each is checked exactly
//! against the schedule that will run, tiles and all (isl's flattened schedule map):
//! every read must still find the write it read in the original program, which must
//! run before it, with no other write to that write's folded cell in between
//! (`values_survive`). Since tile sizes are fixed before this runs, the check is for exactly the
//! code generated. The folded storage's own dependences (flow, anti, output) are
//! returned: code generation marks a loop parallel only if they do not cross it either,
//! and a fold that would make a parallel loop sequential is refused (the memory it
//! saves would cost the vectorizer).
//!
//! Relies on: the model's access relations (every access of the array single-valued, no
//! may-write, every value read written in the region), isl's dataflow in the original
//! order, and the schedule tree's flattened map. Which arrays are the function's own
//! memory (so that their layout can change) is the caller's question.

use crate::deps::original_schedule;
use crate::isl::{AffineExpr, IslError, Map, Schedule, Set, Tuple, UnionAccessInfo, UnionMap};
use crate::model::spec::AccessKind;
use crate::model::Scop;

use super::{quov, Dim};

/// Largest number of rotating copies a fold along one dimension tries: enough for the
/// rows a 9-tap vertical stencil reads from a temporary fused with its producer
/// (`fusion`), which are alive together.
const MAX_COPIES: i64 = 9;

/// How one dimension of a folded array is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fold {
    /// As before (its accessed range, from its least accessed index).
    Keep,
    /// `index mod g`: `g` rotating copies; with `g = 1` the dimension is gone.
    Modulo(i64),
    /// Index-set splitting: the index `boundary` (a row written once, by a statement of
    /// its own, and read throughout) keeps a copy of its own, number `copies`; every
    /// other index rotates through `copies` copies (`index mod copies`).
    Split { copies: i64, boundary: i64 },
}

impl Fold {
    /// Copies this dimension keeps (`None`: its whole accessed range).
    fn copies(&self) -> Option<i64> {
        match self {
            Fold::Keep => None,
            Fold::Modulo(g) => Some(*g),
            Fold::Split { copies, .. } => Some(copies + 1),
        }
    }
}

/// A fold of one array that the schedule allows.
#[derive(Debug)]
pub struct Folding {
    pub array: String,
    /// Per dimension of the array, outermost first.
    pub dims: Vec<Fold>,
    /// The shortest QUOV of the array's writer in its iteration space, when its flows
    /// are uniform (for remarks: the fold chosen may be another one, see the module).
    pub quov: Option<Vec<i64>>,
    /// The folded storage's dependences, ordered by the schedule (instance to instance).
    pub dependences: UnionMap,
    /// Per dimension, how many indices the region accesses, when that is a constant.
    pub extents: Vec<Option<i64>>,
    /// Bytes per element.
    pub element_size: u32,
    /// The parameter values for which the fold holds (every value read is written in
    /// the region): part of the run-time check.
    pub condition: Set,
}

impl Folding {
    /// `U[i0 mod 2][i1]`, for remarks.
    pub fn describe(&self, name: &str) -> String {
        let dims: Vec<String> = self
            .dims
            .iter()
            .enumerate()
            .filter_map(|(k, f)| match f {
                Fold::Keep => Some(format!("[i{k}]")),
                Fold::Modulo(1) => None,
                Fold::Modulo(g) => Some(format!("[i{k} mod {g}]")),
                Fold::Split {
                    copies: 1,
                    boundary,
                } => Some(format!("[i{k} == {boundary} ? 1 : 0]")),
                Fold::Split { copies, boundary } => Some(format!(
                    "[i{k} == {boundary} ? {copies} : i{k} mod {copies}]"
                )),
            })
            .collect();
        if dims.is_empty() {
            format!("one {name} element")
        } else {
            format!("{name}{}", dims.concat())
        }
    }

    /// Whether the fold is the QUOV's own (a vector along one dimension).
    pub fn follows_quov(&self) -> bool {
        let Some(u) = &self.quov else {
            return false;
        };
        u.len() == self.dims.len()
            && u.iter().zip(&self.dims).all(|(x, f)| match f {
                Fold::Keep => *x == 0,
                Fold::Modulo(g) => x.abs() == *g,
                Fold::Split { .. } => false,
            })
    }

    /// `2 of 129 indices of dimension 0`, per folded dimension, for remarks: the share
    /// of the array's memory the folded storage keeps.
    pub fn savings(&self) -> String {
        let kept: Vec<String> = self
            .dims
            .iter()
            .zip(&self.extents)
            .enumerate()
            .filter_map(|(k, (fold, extent))| match (fold.copies()?, extent) {
                (g, Some(e)) => Some(format!("{g} of {e} indices of dimension {k}")),
                (1, None) => Some(format!("1 index of dimension {k}")),
                (g, None) => Some(format!("{g} indices of dimension {k}")),
            })
            .collect();
        let ratio: Option<f64> = self
            .dims
            .iter()
            .zip(&self.extents)
            .map(|(fold, extent)| match fold.copies() {
                None => Some(1.0),
                Some(g) => extent.map(|e| g as f64 / e as f64),
            })
            .product();
        // The accessed cells before and after, when every extent is a constant.
        let cells: Option<i64> = self.extents.iter().copied().product();
        let folded: Option<i64> = self
            .dims
            .iter()
            .zip(&self.extents)
            .map(|(fold, extent)| fold.copies().or(*extent))
            .product();
        let size = i64::from(self.element_size);
        match (ratio, cells.zip(folded)) {
            (Some(r), Some((before, after))) => format!(
                "{}, {:.1}% of its memory ({} instead of {})",
                kept.join(", "),
                r * 100.0,
                bytes(after.saturating_mul(size)),
                bytes(before.saturating_mul(size))
            ),
            (Some(r), None) => format!("{}, {:.1}% of its memory", kept.join(", "), r * 100.0),
            (None, _) => kept.join(", "),
        }
    }
}

/// `528 KiB`, `66 MiB`: a size for remarks.
fn bytes(n: i64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The cheapest fold of `array` that `schedule` allows without making a loop that
/// `dependences` leaves parallel sequential; `Ok(Err(reason))` when there is none.
pub fn fold(
    scop: &Scop,
    schedule: &Schedule,
    dependences: Option<&UnionMap>,
    array: &str,
) -> Result<Result<Folding, String>, IslError> {
    let Some(info) = scop.arrays.iter().find(|a| a.name == array) else {
        return Ok(Err(format!("no array {array}")));
    };
    let rank = info.rank();
    if info.is_scalar || rank == 0 {
        return Ok(Err(format!("{array} is a scalar")));
    }
    let accesses = match ArrayAccesses::of(scop, array)? {
        Ok(accesses) => accesses,
        Err(reason) => return Ok(Err(reason)),
    };
    if accesses.writes.is_empty()? {
        return Ok(Err(format!("nothing in the region writes {array}")));
    }
    let original = original_schedule(scop)?;
    let original = original
        .copy()?
        .union(accesses.tags.copy()?.apply_range(original)?)?;
    let flow = UnionAccessInfo::from_sink(accesses.reads.copy()?)?
        .set_must_source(accesses.tagged_writes.copy()?)?
        .set_schedule_map(original)?
        .compute_flow()?;
    let Some(condition) = written_in_region(scop, &flow.must_no_source()?)? else {
        return Ok(Err(format!(
            "some values of {array} read in the region are written before it"
        )));
    };
    let flows = flow.must_dependence()?;
    let Some(time) = flat_schedule(schedule, scop)? else {
        return Ok(Err(
            "the schedule's statements have no common time space".into()
        ));
    };
    let tagged_time = time
        .copy()?
        .union(accesses.tags.copy()?.apply_range(time.copy()?)?)?;
    let flows = flows.intersect_params(condition.copy()?)?;
    let quov = writer_quov(&flows)?;
    let loops = loop_levels(&time)?;
    let kept_parallel = parallel_levels(scop, &time, dependences)?;
    let extents = accessed_extents(&accesses, rank)?;
    let timing = Timing {
        flows: &flows,
        time: &time,
        tagged_time: &tagged_time,
        loops: &loops,
        kept_parallel: &kept_parallel,
    };
    let boundaries = boundary_rows(&accesses.tagged_writes, rank)?;
    let folded = cheapest_fold(
        scop,
        array,
        &accesses,
        &timing,
        candidates(rank, quov.as_deref(), &boundaries),
        &extents,
    )?;
    Ok(folded.map(|(dims, dependences)| Folding {
        array: array.to_string(),
        dims,
        quov,
        dependences,
        extents,
        element_size: info.element_size,
        condition,
    }))
}

/// The accesses of one array in a region, each restricted to its statement's domain.
struct ArrayAccesses {
    reads: UnionMap,
    writes: UnionMap,
    /// Each write on its own (`S0__w1[i]` for the second write of `S0`): a statement
    /// writing two cells has two values, each with its own readers and its own
    /// overwriting.
    tagged_writes: UnionMap,
    /// `S0__w1[i] -> S0[i]`... as identities from the tags to their statements' spaces.
    tags: UnionMap,
    /// Statements writing the array more than once: their writes, pairwise, must not
    /// meet in one folded cell within an instance (see `same_instance_clash`).
    multiple_writes: Vec<Vec<crate::isl::Map>>,
}

impl ArrayAccesses {
    /// The accesses of `array`; `Ok(Err(reason))` when one is not a function or may
    /// write.
    fn of(scop: &Scop, array: &str) -> Result<Result<ArrayAccesses, String>, IslError> {
        let ctx = scop.context.ctx();
        let mut out = ArrayAccesses {
            reads: UnionMap::empty(&ctx)?,
            writes: UnionMap::empty(&ctx)?,
            tagged_writes: UnionMap::empty(&ctx)?,
            tags: UnionMap::empty(&ctx)?,
            multiple_writes: Vec::new(),
        };
        for statement in &scop.statements {
            let mut own_writes = Vec::new();
            for access in statement.accesses.iter().filter(|a| a.array == array) {
                if !access.relation.is_single_valued()? {
                    return Ok(Err(format!(
                        "{} accesses a range of {array}",
                        statement.name
                    )));
                }
                let relation = access
                    .relation
                    .copy()?
                    .intersect_domain(statement.domain.copy()?)?
                    .to_union_map()?;
                match access.kind {
                    AccessKind::Read => out.reads = out.reads.union(relation)?,
                    AccessKind::MustWrite => {
                        let restricted = access
                            .relation
                            .copy()?
                            .intersect_domain(statement.domain.copy()?)?;
                        let tag = format!("{}__w{}", statement.name, own_writes.len());
                        out.tagged_writes = out
                            .tagged_writes
                            .add_map(restricted.copy()?.set_domain_name(&tag)?)?;
                        let instances =
                            statement.domain.copy()?.identity()?.set_domain_name(&tag)?;
                        out.tags = out.tags.add_map(instances)?;
                        own_writes.push(restricted);
                        out.writes = out.writes.union(relation)?;
                    }
                    AccessKind::MayWrite => {
                        return Ok(Err(format!("{} may write {array}", statement.name)))
                    }
                }
            }
            if own_writes.len() > 1 {
                out.multiple_writes.push(own_writes);
            }
        }
        Ok(Ok(out))
    }
}

/// The parameter values (within the assumed context) for which every read of the
/// array finds its value written in the region, or `None` when the region then never
/// runs. Reads of values written before the region (live-in values) would find the
/// folded storage empty: the fold holds only where there are none, which the run-time
/// check confirms (a negative step count reading a row never written, say).
fn written_in_region(scop: &Scop, no_source: &UnionMap) -> Result<Option<Set>, IslError> {
    let unwritten = no_source
        .copy()?
        .intersect_params(scop.assumed_context.copy()?)?;
    let mut condition = scop.assumed_context.copy()?;
    for set in unwritten.domain()?.sets()? {
        condition = condition.subtract(set.params()?)?;
    }
    let runs = !scop
        .domains
        .copy()?
        .intersect_params(condition.copy()?)?
        .is_empty()?;
    Ok(runs.then_some(condition))
}

/// The loops that may run in parallel now: those the dependences code generation is
/// given leave free, or, without them (the original loops kept), those the region's
/// storage leaves free (LLVM's vectorizer finds those).
fn parallel_levels(
    scop: &Scop,
    time: &UnionMap,
    dependences: Option<&UnionMap>,
) -> Result<Vec<bool>, IslError> {
    match dependences {
        Some(d) => carried_levels(time, d),
        None => {
            let all_writes = scop.must_writes.copy()?.union(scop.may_writes.copy()?)?;
            let all = storage_dependences(&all_writes, &scop.reads)?;
            carried_levels(time, &all)
        }
    }
}

/// Per dimension of the array, how many indices the region accesses when constants
/// bound them (a fold gains only where that is more than its copies).
fn accessed_extents(accesses: &ArrayAccesses, rank: usize) -> Result<Vec<Option<i64>>, IslError> {
    let touched = accesses
        .reads
        .copy()?
        .union(accesses.writes.copy()?)?
        .range()?;
    let mut extents = Vec::with_capacity(rank);
    for set in touched.sets()? {
        for k in 0..rank {
            let range = set.copy()?.project_onto(k)?.dim_value_range(0)?;
            let extent = range.map(|(lo, hi)| hi - lo + 1);
            match extents.get_mut(k) {
                Some(e) => *e = extent.zip(*e).map(|(a, b): (i64, i64)| a.max(b)),
                None => extents.push(extent),
            }
        }
    }
    Ok(extents)
}

/// The order the schedule gives the array's accesses, which a fold must keep.
struct Timing<'a> {
    /// The flows of values through the array, from tagged writes to reads.
    flows: &'a UnionMap,
    /// The flat schedule, and the same with the tagged writes' time.
    time: &'a UnionMap,
    tagged_time: &'a UnionMap,
    /// Per time dimension, whether it is a loop, and whether it may run in parallel.
    loops: &'a [bool],
    kept_parallel: &'a [bool],
}

/// The first of `candidates` that gains memory, keeps every value until its reads and
/// keeps every parallel loop parallel, with its storage's dependences;
/// `Err(reason)` when none does.
fn cheapest_fold(
    scop: &Scop,
    array: &str,
    accesses: &ArrayAccesses,
    timing: &Timing<'_>,
    candidates: Vec<Vec<Fold>>,
    extents: &[Option<i64>],
) -> Result<Result<(Vec<Fold>, UnionMap), String>, IslError> {
    let gains = |dims: &[Fold]| {
        dims.iter()
            .zip(extents)
            .any(|(f, e)| match (f.copies(), e) {
                (Some(g), Some(extent)) => *extent > g,
                (Some(_), None) => true,
                (None, _) => false,
            })
    };
    let mut serializing = None;
    for dims in candidates {
        if !gains(&dims) {
            continue;
        }
        let location = fold_map(scop, array, &dims)?;
        if same_instance_clash(&accesses.multiple_writes, &location)? {
            continue;
        }
        let new_writes = accesses.writes.copy()?.apply_range(location.copy()?)?;
        let new_reads = accesses.reads.copy()?.apply_range(location.copy()?)?;
        // Each read must still find the value of its source: the last write to its
        // folded cell before it, in the schedule that will run, must be the write it
        // read before.
        let new_tagged = accesses
            .tagged_writes
            .copy()?
            .apply_range(location.copy()?)?;
        if !values_survive(timing.flows, &new_tagged, &new_reads, timing.tagged_time)? {
            continue;
        }
        let folded = storage_dependences(&new_writes, &new_reads)?;
        let carried = carried_levels(timing.time, &folded)?;
        let serializes = carried
            .iter()
            .zip(timing.kept_parallel)
            .zip(timing.loops)
            .any(|((now, before), is_loop)| *now && !*before && *is_loop);
        if serializes {
            serializing.get_or_insert(dims);
            continue;
        }
        return Ok(Ok((dims, folded)));
    }
    Ok(Err(match serializing {
        Some(_) => format!("folding {array} would make a parallel loop sequential"),
        None => format!("no fold of {array} saves memory under this schedule"),
    }))
}

/// Folds to try, least memory first: one cell; the QUOV's, when it lies along one
/// dimension; then each dimension dropped, then in 2, 3, .. rotating copies, each
/// followed by the folds as large that split one of `boundaries` (dimension, index)
/// off into a copy of its own.
fn candidates(rank: usize, quov: Option<&[i64]>, boundaries: &[(usize, i64)]) -> Vec<Vec<Fold>> {
    let mut out = vec![vec![Fold::Modulo(1); rank]];
    if let Some(u) = quov {
        let nonzero: Vec<usize> = (0..u.len()).filter(|k| u[*k] != 0).collect();
        if let ([k], true) = (nonzero.as_slice(), u.len() == rank) {
            let mut dims = vec![Fold::Keep; rank];
            dims[*k] = Fold::Modulo(u[*k].abs());
            out.push(dims);
        }
    }
    // By the copies kept: a boundary split off with g - 1 rotating copies keeps g.
    for g in 1..=MAX_COPIES + 1 {
        if g <= MAX_COPIES {
            for k in 0..rank {
                let mut dims = vec![Fold::Keep; rank];
                dims[k] = Fold::Modulo(g);
                if !out.contains(&dims) {
                    out.push(dims);
                }
            }
        }
        if g >= 2 {
            for &(k, boundary) in boundaries {
                let mut dims = vec![Fold::Keep; rank];
                dims[k] = Fold::Split {
                    copies: g - 1,
                    boundary,
                };
                out.push(dims);
            }
        }
    }
    out
}

/// Index-set splitting's candidates, the array-level form of the QUOV paper's
/// Algorithm 1: a write whose elements all have one constant index in some dimension
/// (a first row copied in, a boundary row) is a boundary piece. Its values may be read
/// far later (every time step reading the initial row) and keep a whole dimension from
/// folding; split off into a copy of their own, they leave the rest free to rotate. Per
/// dimension and index, in order.
fn boundary_rows(tagged_writes: &UnionMap, rank: usize) -> Result<Vec<(usize, i64)>, IslError> {
    let mut out = Vec::new();
    for write in tagged_writes.maps()? {
        let written = write.range()?;
        for k in 0..rank {
            if let Some((low, high)) = written.copy()?.project_onto(k)?.dim_value_range(0)? {
                if low == high && !out.contains(&(k, low)) {
                    out.push((k, low));
                }
            }
        }
    }
    Ok(out)
}

/// `{ A[c0, c1] -> A[o0, c1] : o0 = c0 mod 2 }` for the fold `dims`.
fn fold_map(scop: &Scop, array: &str, dims: &[Fold]) -> Result<UnionMap, IslError> {
    let ctx = scop.context.ctx();
    let cells = Tuple::counters(Some(array), "c", dims.len());
    // One piece, or two where a dimension splits a boundary index off.
    let split = dims.iter().enumerate().find_map(|(k, f)| match f {
        Fold::Split { copies, boundary } => Some((k, *copies, *boundary)),
        _ => None,
    });
    let modulo = |k: usize, g: i64| -> Result<AffineExpr, IslError> {
        let g = u32::try_from(g).ok().filter(|g| *g > 0);
        let g = g.ok_or_else(|| IslError::Other {
            context: "folding storage".into(),
            message: format!("{} copies of dimension {k}", g.unwrap_or(0)),
        })?;
        Ok(AffineExpr::Input(k).modulo(g))
    };
    let piece = |boundary: bool| -> Result<Map, IslError> {
        let to = dims
            .iter()
            .enumerate()
            .map(|(k, f)| match f {
                Fold::Keep => Ok(AffineExpr::Input(k)),
                Fold::Modulo(g) => modulo(k, *g),
                Fold::Split { copies, .. } if boundary => Ok(AffineExpr::Constant(*copies)),
                Fold::Split { copies, .. } => modulo(k, *copies),
            })
            .collect::<Result<Vec<_>, IslError>>()?;
        Map::from_affine(&ctx, &[], &cells, Some(array), &to)
    };
    let Some((k, _, b)) = split else {
        return piece(false)?.to_union_map();
    };
    // `c(k) = b` to the boundary's copy, `c(k) < b or c(k) > b` rotating.
    let universe = || Set::universe(&ctx, &[], &cells);
    let on = universe()?.fix_dim(k, b)?;
    let off = universe()?
        .upper_bound_dim(k, b - 1)?
        .union(universe()?.lower_bound_dim(k, b + 1)?)?;
    let boundary = piece(true)?.intersect_domain(on)?;
    boundary
        .union(piece(false)?.intersect_domain(off)?)?
        .to_union_map()
}

/// The pairs of instances that access one cell of the storage written by `writes` and
/// read by `reads`, at least one of them writing it, in both orders: the dependences of
/// that storage, whichever instance runs first (which loops carry them is what counts).
fn storage_dependences(writes: &UnionMap, reads: &UnionMap) -> Result<UnionMap, IslError> {
    let output = writes.copy()?.apply_range(writes.copy()?.reverse()?)?;
    let anti = reads.copy()?.apply_range(writes.copy()?.reverse()?)?;
    let flow = writes.copy()?.apply_range(reads.copy()?.reverse()?)?;
    output.union(anti)?.union(flow)
}

/// Whether every read of `flows` (tagged write -> read, the original program's
/// dataflow) still finds its source's value in the folded storage under `time`: the
/// source runs before the read, and no other write to the source's folded cell runs
/// between them. The same answer as isl's dataflow on the folded cells compared with
/// `flows`, for reads that have a source (live-in reads are excluded by the fold's
/// condition), at a fraction of its cost under tiled schedules: no last writer is
/// computed, only order relations and compositions. The overwrite is matched against
/// the source's cell, not the reader's: a reader of several cells (a stencil's
/// neighbours) meets writes of its other cells, which do not touch this value.
fn values_survive(
    flows: &UnionMap,
    new_writes: &UnionMap,
    new_reads: &UnionMap,
    time: &UnionMap,
) -> Result<bool, IslError> {
    let write_time = time
        .copy()?
        .intersect_domain(new_writes.copy()?.domain()?)?;
    let read_time = time.copy()?.intersect_domain(new_reads.copy()?.domain()?)?;
    let write_then_read = write_time.copy()?.lex_lt_union_map(read_time)?;
    if !flows.is_subset(&write_then_read)? {
        return Ok(false);
    }
    // Pairs of writes to one folded cell, in the order they run.
    let overwrites = new_writes
        .copy()?
        .apply_range(new_writes.copy()?.reverse()?)?
        .intersect(write_time.copy()?.lex_lt_union_map(write_time)?)?;
    let overwritten = overwrites
        .apply_range(write_then_read)?
        .intersect(flows.copy()?)?;
    overwritten.is_empty()
}

/// Whether two writes of one statement instance land in the same folded cell (the
/// order check compares instances, not the stores inside one).
fn same_instance_clash(
    multiple_writes: &[Vec<crate::isl::Map>],
    location: &UnionMap,
) -> Result<bool, IslError> {
    for own in multiple_writes {
        let original: Vec<UnionMap> = own
            .iter()
            .map(|w| w.copy()?.to_union_map())
            .collect::<Result<_, _>>()?;
        let folded: Vec<UnionMap> = original
            .iter()
            .map(|w| w.copy()?.apply_range(location.copy()?))
            .collect::<Result<_, _>>()?;
        for (k, a) in folded.iter().enumerate() {
            for (j, b) in folded.iter().enumerate().skip(k + 1) {
                // Writes of the same element meet in the original too: no change.
                let same_element = original[k]
                    .copy()?
                    .apply_range(original[j].copy()?.reverse()?)?;
                let meeting = a
                    .copy()?
                    .apply_range(b.copy()?.reverse()?)?
                    .subtract(same_element)?;
                for map in meeting.maps()? {
                    let n = map.n_in()?;
                    let mut zero = Set::universe(&map.ctx(), &[], &Tuple::unnamed(None, n))?;
                    for k in 0..n {
                        zero = zero.fix_dim(k, 0)?;
                    }
                    let deltas = map.drop_domain_name()?.drop_range_name()?.deltas()?;
                    if !deltas.intersect(zero)?.is_empty()? {
                        return Ok(true);
                    }
                }
            }
        }
    }
    Ok(false)
}

/// The schedule's map from instances to time, every statement padded to the same
/// number of time dimensions; `None` when there is no statement.
fn flat_schedule(schedule: &Schedule, scop: &Scop) -> Result<Option<UnionMap>, IslError> {
    let map = schedule.get_map()?.intersect_domain(scop.domains.copy()?)?;
    let maps = map.maps()?;
    let Some(width) = maps
        .iter()
        .map(|m| m.n_out())
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .max()
    else {
        return Ok(None);
    };
    let mut padded = UnionMap::empty(&scop.context.ctx())?;
    for m in maps {
        let missing = width - m.n_out()?;
        padded = padded.add_map(m.drop_range_name()?.pad_range(missing)?)?;
    }
    Ok(Some(padded))
}

/// Per time dimension, whether it is a loop for some statement (takes several values)
/// rather than a position in a sequence.
fn loop_levels(time: &UnionMap) -> Result<Vec<bool>, IslError> {
    let maps = time.maps()?;
    let width = match maps.first() {
        Some(m) => m.n_out()?,
        None => return Ok(Vec::new()),
    };
    let mut levels = vec![false; width];
    for map in maps {
        let range = map.range()?;
        for (level, is_loop) in levels.iter_mut().enumerate() {
            if !*is_loop {
                *is_loop = !range.copy()?.project_onto(level)?.is_singleton()?;
            }
        }
    }
    Ok(levels)
}

/// Per time dimension, whether some pair of `dependences` is carried there (same time
/// before it, later at it): the loops the pairs keep from running in parallel.
fn carried_levels(time: &UnionMap, dependences: &UnionMap) -> Result<Vec<bool>, IslError> {
    let Some(first) = time.maps()?.into_iter().next() else {
        return Ok(Vec::new());
    };
    let width = first.n_out()?;
    let in_time = time
        .copy()?
        .reverse()?
        .apply_range(dependences.copy()?)?
        .apply_range(time.copy()?)?;
    let (t, u) = (
        Tuple::counters(None, "t", width),
        Tuple::counters(None, "u", width),
    );
    let mut carried = Vec::with_capacity(width);
    // `{ [t] -> [u] : t0 = u0 and .. and t(level) < u(level) }`, level by level.
    let mut same_before = Map::universe_between(&time.ctx(), &[], &t, &u)?;
    for level in 0..width {
        let at_level = same_before.copy()?.order(level, true)?.to_union_map()?;
        carried.push(!in_time.copy()?.intersect(at_level)?.is_empty()?);
        same_before = same_before.equate(level)?;
    }
    Ok(carried)
}

/// The shortest QUOV (sequential scan of the loops, the order the schedule keeps inside
/// a tile) of the flows from statements into themselves, in their iteration space, when
/// every such flow vector is a constant; `None` otherwise.
fn writer_quov(flows: &UnionMap) -> Result<Option<Vec<i64>>, IslError> {
    // Per writing statement, its flows into itself; the deepest statement speaks for
    // the array (its vectors span every dimension of the folded storage).
    let mut by_writer: Vec<(String, usize, Vec<Vec<i64>>)> = Vec::new();
    for map in flows.maps()? {
        // Writes are tagged `S__wk` (see `fold`).
        let tagged = map.domain_name().unwrap_or_default();
        let writer = tagged.split_once("__w").map_or(tagged.as_str(), |(s, _)| s);
        if map.range_name().as_deref() != Some(writer) {
            continue;
        }
        let width = map.n_in()?;
        if width == 0 {
            continue;
        }
        let deltas = map.drop_domain_name()?.drop_range_name()?.deltas()?;
        let Some(found) = constant_vectors(deltas.for_some_params()?, 16)? else {
            return Ok(None);
        };
        match by_writer.iter_mut().find(|(w, _, _)| w == writer) {
            Some((_, _, vectors)) => vectors.extend(found),
            None => by_writer.push((writer.to_string(), width, found)),
        }
    }
    let Some((_, width, vectors)) = by_writer.into_iter().max_by_key(|(_, width, _)| *width) else {
        return Ok(None);
    };
    Ok(quov(&vectors, &vec![Dim::Sequential; width]))
}

/// The points of `set` when it holds at most `limit` of them and they do not depend on
/// the parameters; `None` otherwise.
fn constant_vectors(set: Set, limit: usize) -> Result<Option<Vec<Vec<i64>>>, IslError> {
    let n = set.n_dims()?;
    let mut rest = set;
    let mut points = Vec::new();
    while !rest.is_empty()? {
        if points.len() == limit {
            return Ok(None);
        }
        let least = rest.copy()?.lexmin()?;
        let mut point = Vec::with_capacity(n);
        for pos in 0..n {
            match least.dim_value_range(pos)? {
                Some((lo, hi)) if lo == hi => point.push(lo),
                _ => return Ok(None),
            }
        }
        rest = rest.subtract(least)?;
        points.push(point);
    }
    Ok(Some(points))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_union_map, IslCtx};
    use crate::model::spec_builders::{array, read, statement, write};
    use crate::model::ScopSpec;

    fn region(statements: Vec<crate::model::spec::StatementSpec>) -> ScopSpec {
        ScopSpec {
            name: "f:entry".into(),
            function: "f".into(),
            location: None,
            params: vec!["n".into(), "T".into()],
            context: "[n, T] -> { : 4 <= n <= 1000 and 1 <= T <= 1000 }".into(),
            assumptions: vec![],
            arrays: vec![array("U", &["n"]), array("out", &[]), array("in", &[])],
            statements,
            alias_groups: vec![],
        }
    }

    /// `S0`: `U[0][i] = in[i]` for `0 <= i < n`, at textual positions `positions`.
    fn copy_in(positions: &[u32]) -> crate::model::spec::StatementSpec {
        statement(
            "S0",
            "[n, T] -> { S0[i0] : 0 <= i0 < n }",
            positions,
            vec![
                read("in", "{ S0[i0] -> in[i0] }"),
                write("U", "{ S0[i0] -> U[0, i0] }"),
            ],
        )
    }

    /// `U[0][i] = in[i]; for t: U[t+1][i] = U[t][i-1] + U[t][i] + U[t][i+1]` (inner
    /// points only, borders copied); `out[i] = U[T][i]`.
    fn time_expanded() -> ScopSpec {
        region(vec![
            copy_in(&[0, 0]),
            statement(
                "S1",
                "[n, T] -> { S1[i0, i1] : 0 <= i0 < T and 0 <= i1 < n }",
                &[1, 0, 0],
                vec![
                    read("U", "[n] -> { S1[i0, i1] -> U[i0, max(i1 - 1, 0)] }"),
                    read("U", "{ S1[i0, i1] -> U[i0, i1] }"),
                    read("U", "[n] -> { S1[i0, i1] -> U[i0, min(i1 + 1, n - 1)] }"),
                    write("U", "{ S1[i0, i1] -> U[i0 + 1, i1] }"),
                ],
            ),
            statement(
                "S2",
                "[n, T] -> { S2[i0] : 0 <= i0 < n }",
                &[2, 0],
                vec![
                    read("U", "[T] -> { S2[i0] -> U[T, i0] }"),
                    write("out", "{ S2[i0] -> out[i0] }"),
                ],
            ),
        ])
    }

    /// `t[i] = in[i] * 2` then, in the same iteration, `out[i] = t[i] + 1`, or with
    /// `sequential` `out[i + 1] = out[i] + t[i]` (a recurrence keeps the loop in order).
    fn read_at_once(sequential: bool) -> ScopSpec {
        let consumer = if sequential {
            vec![
                read("U", "{ S1[i0] -> U[0, i0] }"),
                read("out", "{ S1[i0] -> out[i0] }"),
                write("out", "{ S1[i0] -> out[i0 + 1] }"),
            ]
        } else {
            vec![
                read("U", "{ S1[i0] -> U[0, i0] }"),
                write("out", "{ S1[i0] -> out[i0] }"),
            ]
        };
        region(vec![
            copy_in(&[0, 0]),
            statement(
                "S1",
                "[n, T] -> { S1[i0] : 0 <= i0 < n }",
                &[0, 1],
                consumer,
            ),
        ])
    }

    #[test]
    fn a_split_fold_map_gives_the_boundary_its_own_copy() {
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, &read_at_once(false)).unwrap();
        let dims = [
            Fold::Split {
                copies: 2,
                boundary: 0,
            },
            Fold::Modulo(3),
            Fold::Keep,
        ];
        let built = fold_map(&scop, "A", &dims).unwrap();
        let expected = parse_union_map(
            &ctx,
            "{ A[c0, c1, c2] -> A[2, c1 mod 3, c2] : c0 = 0; \
             A[c0, c1, c2] -> A[c0 mod 2, c1 mod 3, c2] : c0 < 0 or c0 > 0 }",
            "expected",
        )
        .unwrap();
        assert!(built.is_equal(&expected).unwrap(), "{built:?}");
        let plain = fold_map(&scop, "A", &[Fold::Modulo(2)]).unwrap();
        let expected = parse_union_map(&ctx, "{ A[c0] -> A[c0 mod 2] }", "e").unwrap();
        assert_eq!(plain.to_str().unwrap(), expected.to_str().unwrap());
        assert!(fold_map(&scop, "A", &[Fold::Modulo(0)]).is_err());
    }

    fn fold_of(spec: &ScopSpec, array: &str) -> Result<Folding, String> {
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, spec).unwrap();
        let schedule = scop.schedule.copy().unwrap();
        fold(&scop, &schedule, None, array).unwrap()
    }

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(bytes(800), "800 bytes");
        assert_eq!(bytes(8 * 1024), "8.0 KiB");
        assert_eq!(bytes(3 * 1024 * 1024 / 2), "1.5 MiB");
    }

    #[test]
    fn a_time_expanded_stencil_keeps_two_time_steps() {
        let folding = fold_of(&time_expanded(), "U").unwrap();
        assert_eq!(folding.dims, vec![Fold::Modulo(2), Fold::Keep]);
        assert_eq!(folding.describe("U"), "U[i0 mod 2][i1]");
        // T + 1 rows for T up to 1000: the extent is not a constant.
        assert_eq!(folding.savings(), "2 indices of dimension 0");
    }

    /// The stencil alone (its first row written in the region too), run in skewed tiles
    /// `tile x tile` of `(t, i + t)`: the schedule the fold is checked against.
    fn tiled_stencil(tile: i64) -> (Scop, Schedule) {
        stencil_in_tiles(tile, false)
    }

    /// `tiled_stencil`, or with `fixed_boundaries` its ends copied from the first row
    /// at every time step (`U[t+1][0] = U[0][0]`).
    fn stencil_in_tiles(tile: i64, fixed_boundaries: bool) -> (Scop, Schedule) {
        let (left, right) = match fixed_boundaries {
            true => ("U[0, 0]", "U[0, n - 1]"),
            false => ("U[i0, 0]", "U[i0, n - 1]"),
        };
        let spec = region(vec![
            copy_in(&[0, 0]),
            statement(
                "S1",
                "[n, T] -> { S1[i0, i1] : 0 <= i0 < T and 1 <= i1 < n - 1 }",
                &[1, 0, 0],
                vec![
                    read("U", "{ S1[i0, i1] -> U[i0, i1 - 1] }"),
                    read("U", "{ S1[i0, i1] -> U[i0, i1] }"),
                    read("U", "{ S1[i0, i1] -> U[i0, i1 + 1] }"),
                    write("U", "{ S1[i0, i1] -> U[i0 + 1, i1] }"),
                ],
            ),
            statement(
                "S2",
                "[n, T] -> { S2[i0] : 0 <= i0 < T }",
                &[1, 1],
                vec![
                    read("U", &format!("{{ S2[i0] -> {left} }}")),
                    write("U", "{ S2[i0] -> U[i0 + 1, 0] }"),
                ],
            ),
            statement(
                "S3",
                "[n, T] -> { S3[i0] : 0 <= i0 < T }",
                &[1, 2],
                vec![
                    read("U", &format!("[n] -> {{ S3[i0] -> {right} }}")),
                    write("U", "[n] -> { S3[i0] -> U[i0 + 1, n - 1] }"),
                ],
            ),
        ]);
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, &spec).unwrap();
        // S0 first; then time steps, each: S1's row skewed, S2 and S3 at its ends.
        let point = "[n, T] -> { S0[i] -> [-1, i, 0]; S1[t, i] -> [t, i + t, 0]; \
             S2[t] -> [t, t, 1]; S3[t] -> [t, n - 1 + t, 2] }";
        let tiles = format!(
            "[n, T] -> {{ S0[i] -> [-1, 0]; S1[t, i] -> [floor(t / {tile}), floor((i + t) / {tile})]; \
             S2[t] -> [floor(t / {tile}), floor(t / {tile})]; S3[t] -> [floor(t / {tile}), floor((n - 1 + t) / {tile})] }}"
        );
        let schedule = Schedule::from_domain(scop.domains.copy().unwrap())
            .unwrap()
            .insert_band(parse_union_map(&ctx, point, "test").unwrap())
            .unwrap()
            .insert_band(parse_union_map(&ctx, &tiles, "test").unwrap())
            .unwrap();
        (scop, schedule)
    }

    #[test]
    fn skewed_tiles_of_any_size_keep_two_time_steps() {
        // The paper's A[t mod 2][i] ([2, 2] in the skewed space): legal for every tile
        // size, those that divide the sizes and those that do not.
        for tile in [1, 3, 4, 7, 64] {
            let (scop, schedule) = tiled_stencil(tile);
            let folding = fold(&scop, &schedule, None, "U").unwrap().unwrap();
            assert_eq!(
                folding.dims,
                vec![Fold::Modulo(2), Fold::Keep],
                "tile {tile}"
            );
        }
    }

    #[test]
    fn a_first_row_read_at_every_step_is_split_off_into_a_copy_of_its_own() {
        // Index-set splitting: U[0] is read until the end, so no number of rotating
        // copies of the rows holds it; split off, the other rows still rotate in two.
        for tile in [1, 3, 64] {
            let (scop, schedule) = stencil_in_tiles(tile, true);
            let folding = fold(&scop, &schedule, None, "U").unwrap().unwrap();
            let split = Fold::Split {
                copies: 2,
                boundary: 0,
            };
            assert_eq!(folding.dims, vec![split, Fold::Keep], "tile {tile}");
            assert_eq!(folding.describe("U"), "U[i0 == 0 ? 2 : i0 mod 2][i1]");
            assert_eq!(folding.savings(), "3 indices of dimension 0");
        }
    }

    #[test]
    fn one_time_step_is_not_enough_in_tiles() {
        // U[i] alone (the row overwritten in place) would be legal only if every read
        // of a cell came before its next write, which tiles break: the check refuses.
        let (scop, schedule) = tiled_stencil(4);
        let folding = fold(&scop, &schedule, None, "U").unwrap().unwrap();
        assert_ne!(folding.dims[0], Fold::Modulo(1));
    }

    #[test]
    fn a_value_read_in_the_same_iteration_takes_one_cell() {
        // t[i] = in[i] * 2; out[i + 1] = out[i] + t[i], in one loop (sequential).
        let spec = read_at_once(true);
        let folding = fold_of(&spec, "U").unwrap();
        assert_eq!(folding.dims, vec![Fold::Modulo(1), Fold::Modulo(1)]);
        assert_eq!(folding.describe("U"), "one U element");
    }

    #[test]
    fn a_loop_left_to_the_vectorizer_is_not_made_sequential() {
        // A temporary read in the iteration that writes it, in a loop nothing keeps
        // from running in parallel, the original order kept (no dependences given):
        // one cell would stop LLVM's vectorizer.
        let spec = read_at_once(false);
        let reason = fold_of(&spec, "U").unwrap_err();
        assert!(reason.contains("parallel loop sequential"), "{reason}");
    }

    #[test]
    fn a_fold_that_would_serialize_a_parallel_loop_is_refused() {
        // The same one-cell temporary, in a loop nothing keeps from running in parallel.
        let spec = read_at_once(false);
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, &spec).unwrap();
        let schedule = scop.schedule.copy().unwrap();
        let flow = parse_union_map(&ctx, "[n] -> { S0[i] -> S1[i] : 0 <= i < n }", "test").unwrap();
        let reason = fold(&scop, &schedule, Some(&flow), "U")
            .unwrap()
            .unwrap_err();
        assert!(reason.contains("parallel loop sequential"), "{reason}");
    }

    #[test]
    fn values_read_after_a_whole_loop_are_not_folded() {
        // Two loops: U[0][i] written in the first, read in reverse in the second.
        let spec = region(vec![
            copy_in(&[0, 0]),
            statement(
                "S1",
                "[n, T] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![
                    read("U", "[n] -> { S1[i0] -> U[0, n - 1 - i0] }"),
                    write("out", "{ S1[i0] -> out[i0] }"),
                ],
            ),
        ]);
        let reason = fold_of(&spec, "U").unwrap_err();
        assert!(reason.contains("no fold of U saves memory"), "{reason}");
    }

    #[test]
    fn a_table_read_two_rows_back_keeps_two_rows() {
        // U[i][j] = U[i-2][j] + U[i-1][j], the first two rows written first.
        let spec = region(vec![
            statement(
                "S0",
                "[n, T] -> { S0[i0, i1] : 0 <= i0 < 2 and 0 <= i1 < n }",
                &[0, 0, 0],
                vec![
                    read("in", "{ S0[i0, i1] -> in[i1] }"),
                    write("U", "{ S0[i0, i1] -> U[i0, i1] }"),
                ],
            ),
            statement(
                "S1",
                "[n, T] -> { S1[i0, i1] : 2 <= i0 < T and 0 <= i1 < n }",
                &[1, 0, 0],
                vec![
                    read("U", "{ S1[i0, i1] -> U[i0 - 2, i1] }"),
                    read("U", "{ S1[i0, i1] -> U[i0 - 1, i1] }"),
                    write("U", "{ S1[i0, i1] -> U[i0, i1] }"),
                ],
            ),
            statement(
                "S2",
                "[n, T] -> { S2[i0] : 0 <= i0 < n }",
                &[2, 0],
                vec![
                    read("U", "[T] -> { S2[i0] -> U[T - 1, i0] }"),
                    write("out", "{ S2[i0] -> out[i0] }"),
                ],
            ),
        ]);
        let folding = fold_of(&spec, "U").unwrap();
        // Row i reads row i - 2 before it writes the same copy: two rows, the QUOV
        // [2, 0] (the sequential corollary: the lexicographic maximum).
        assert_eq!(folding.dims, vec![Fold::Modulo(2), Fold::Keep]);
        assert_eq!(folding.quov, Some(vec![2, 0]));
    }

    #[test]
    fn values_read_before_the_region_are_not_folded() {
        let spec = region(vec![statement(
            "S0",
            "[n, T] -> { S0[i0, i1] : 1 <= i0 < T and 0 <= i1 < n }",
            &[0, 0, 0],
            vec![
                read("U", "{ S0[i0, i1] -> U[i0 - 1, i1] }"),
                write("U", "{ S0[i0, i1] -> U[i0, i1] }"),
            ],
        )]);
        let reason = fold_of(&spec, "U").unwrap_err();
        assert!(reason.contains("written before"), "{reason}");
    }

    #[test]
    fn the_folded_storage_serializes_no_parallel_loop() {
        // With the dependences of the original storage (only the time loop carries
        // one), `U[t mod 2][i]` keeps the row loop parallel; one row would not.
        let spec = time_expanded();
        let ctx = IslCtx::new(None).unwrap();
        let scop = Scop::build(&ctx, &spec).unwrap();
        let schedule = scop.schedule.copy().unwrap();
        let deps = parse_union_map(
            &ctx,
            "[n, T] -> { S1[t, i] -> S1[t + 1, j] : 0 <= t < T - 1 and 0 <= i < n and i - 1 <= j <= i + 1 and 0 <= j < n }",
            "test",
        )
        .unwrap();
        let folding = fold(&scop, &schedule, Some(&deps), "U").unwrap().unwrap();
        assert_eq!(folding.dims, vec![Fold::Modulo(2), Fold::Keep]);
    }
}
