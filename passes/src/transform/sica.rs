//! SICA tile sizes (Feld, Soddemann, Jünger, Mallach, IMPACT 2013): tile only the
//! vectorized (innermost, dependence-free) loop of a band, by `q_l1` iterations whose new
//! data fill a share `rho` of L1, rounded down to whole SIMD registers; and, when that loop
//! is tiled, the outermost loop of the band by `q_l2 = floor(CL2 / CL1)`, so that `q_l2`
//! L1 blocks stream out of L2. Every other loop stays untiled.
//!
//! `q_l1 = floor(rho * CL1 / (B * ElPeRe)) * ElPeRe`, where `B` is the number of bytes one
//! iteration of the vectorized loop newly loads and `ElPeRe = R / (8 D)` the elements of
//! size `D` in an `R`-bit register. With `E` elements of one size, `B = E * D` and this is
//! the paper's `floor(rho * CL1_KB * 8192 / (R * E)) * R / (8 D)`. Mixed element sizes are
//! combined in bytes, and `D` is the smallest of them: a multiple of its (larger) register
//! count is a multiple of every other one, whichever vectorization factor LLVM picks.
//! Clamps: `q_l1 >= ElPeRe` (one register); no new element (`E = 0`) or a vectorized loop
//! that runs at most `q_l1` times means no tiling; `q_l2 < 2` or an outermost loop that
//! runs at most `q_l2` times leaves the outermost loop untiled.
//!
//! `E` is counted from the access relations of one statement block over the loops of the
//! band: accesses invariant in the vectorized loop count 0 (a scalar, `A[i][k]` with `j`
//! vectorized); accesses that reach the same element count once (a read and a write of
//! `C[i][j]`), and so do accesses that reach it a few iterations of the vectorized loop
//! apart (`A[j]` and `A[j + 1]`: each iteration loads one new element between them).
//!
//! Input: plain numbers for the machine (see `hardware`) and isl maps for the accesses.
//! Output: a `SicaDecision` saying what to tile by how much, or why not, for remarks.
//! Relies on the `isl` layer (maps, deltas, inclusion tests).

use std::fmt;

use crate::isl::{IslCtx, IslError, Map, Set, Tuple};

/// The machine SICA sizes tiles for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SicaMachine {
    /// SIMD register width `R` in bits.
    pub simd_bits: u32,
    /// L1 data cache size `CL1` in bytes.
    pub l1_bytes: u64,
    /// L2 cache size `CL2` in bytes.
    pub l2_bytes: u64,
}

/// What one iteration of the vectorized loop newly loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewElements {
    /// `E`: distinct elements (groups of accesses), invariant ones not counted.
    pub elements: u32,
    /// Their total size in bytes.
    pub bytes: u64,
    /// `D`: the smallest element size among them in bytes (0 when `elements` is 0).
    pub element_bytes: u32,
}

impl NewElements {
    /// `elements` new elements of `element_bytes` bytes each (the paper's `E` and `D`).
    pub fn uniform(elements: u32, element_bytes: u32) -> NewElements {
        NewElements {
            elements,
            bytes: u64::from(elements) * u64::from(element_bytes),
            element_bytes: if elements == 0 { 0 } else { element_bytes },
        }
    }
}

/// The loops SICA looks at in a band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SicaBand {
    /// Loops in the band; the vectorized loop is the innermost, the outermost is the one
    /// `q_l2` tiles (the same loop when there is only one).
    pub loops: usize,
    /// Iterations of the vectorized loop, when known at compile time.
    pub vector_trip_count: Option<u64>,
    /// Iterations of the outermost loop of the band, when known at compile time.
    pub outer_trip_count: Option<u64>,
}

/// What SICA does with a band, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SicaDecision {
    /// Tile the vectorized loop by `q_l1` (a multiple of the SIMD register's element
    /// count) and the outermost loop as `outer` says.
    Tile { q_l1: u64, outer: OuterTile },
    /// Every access is invariant in the vectorized loop: nothing streams through L1.
    NoNewElements,
    /// The vectorized loop runs `trip_count <= q_l1` times: it is one L1 block already.
    TripCountFits { trip_count: u64, q_l1: u64 },
    /// The innermost loop carries a dependence (a reduction into one element, as
    /// `P[i][j] += G[i][k] * X[j][k]` in `k`), so it is not vectorized: it is tiled by
    /// `chain` iterations (see `DEPENDENT_CHAIN`), and the outermost loop as `outer` says.
    Chain { chain: u64, outer: OuterTile },
}

/// Iterations of an innermost loop that carries a dependence in one tile. Such a loop
/// is not vectorized and its iterations wait on each other (each `fma` on the previous
/// one's result), so SICA's L1 tile of the vectorized loop does not apply; a short tile
/// gives the processor, between two iterations of the loop outside, a chain short
/// enough that its out-of-order window overlaps it with the next (independent) one.
/// Measured on gram_restrict's `P[i][j] += G[i][k] * X[j][k]` (n = 1200, m = 601, i
/// by 21, j by 23): k tiled by 8, 16 or 32 runs in 0.107-0.117 s, by 64 in 0.137 s, by
/// 128 in 0.198 s, untiled (SICA's 2760) in 0.35 s like -O3, whose loop is the same.
/// 16 stays within 10% of the best with more work per iteration or a smaller window.
pub const DEPENDENT_CHAIN: u64 = 16;

/// Rows a band of two loops interleaves around its chained innermost loop: its outer
/// loop's tile, so that many chains of `DEPENDENT_CHAIN` iterations are in flight at
/// once. Enough to keep the floating-point adders busy (latency times throughput: 3-4
/// cycles times 2 pipes), no more: each further row is one more stream of the band's
/// data walked in lockstep, one cache line per row and chain tile. Rows shorter than a
/// page read from memory then defeat the prefetcher (L2's q_l2 = 32 rows made the
/// matrix-vector product `val += w[i * n + j] * x[j]` at n = 288, 32000 rows, 2.8x
/// slower than -O3 in floats, 1.7x in doubles; 8 rows: 1.1x and 1.2x slower, while 4096
/// x 4096 went from 1.4x faster in floats and 1.1x slower in doubles to 1.8x and 2.0x
/// faster, and 288 x 288 stays 2x faster).
pub const OVERLAPPED_CHAINS: u64 = 8;

/// What happens to the outermost loop of a band whose vectorized loop is tiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OuterTile {
    /// Tile it by `q_l2` iterations.
    Tiled(u64),
    /// The band has one loop: the vectorized loop is also the outermost.
    SingleLoop,
    /// L2 holds fewer than two L1 blocks (`q_l2 = floor(CL2 / CL1) < 2`).
    L2TooSmall { q_l2: u64 },
    /// The outermost loop runs `trip_count <= q_l2` times.
    TripCountFits { trip_count: u64, q_l2: u64 },
    /// The band has two loops around a chained innermost one: the outer loop is tiled
    /// by the chains that overlap (`OVERLAPPED_CHAINS`), not for L2.
    Chains(u64),
}

impl SicaDecision {
    /// The tile sizes, outermost first: `[q_l2, q_l1]`, `[q_l1]`, or none.
    pub fn tile_sizes(&self) -> Vec<u64> {
        match self {
            SicaDecision::Tile {
                q_l1,
                outer: OuterTile::Tiled(q_l2),
            } => vec![*q_l2, *q_l1],
            SicaDecision::Tile { q_l1, .. } => vec![*q_l1],
            SicaDecision::Chain {
                chain,
                outer: OuterTile::Tiled(outer) | OuterTile::Chains(outer),
            } => vec![*outer, *chain],
            SicaDecision::Chain { chain, .. } => vec![*chain],
            SicaDecision::NoNewElements | SicaDecision::TripCountFits { .. } => Vec::new(),
        }
    }
}

impl fmt::Display for OuterTile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OuterTile::Tiled(q_l2) => write!(f, ", outermost loop by {q_l2}"),
            OuterTile::SingleLoop => Ok(()),
            OuterTile::Chains(rows) => {
                write!(f, ", outermost loop by {rows} (the chains that overlap)")
            }
            OuterTile::L2TooSmall { q_l2 } => write!(
                f,
                "; outermost loop not tiled: L2 holds {q_l2} L1 block(s), fewer than 2"
            ),
            OuterTile::TripCountFits { trip_count, q_l2 } => write!(
                f,
                "; outermost loop not tiled: it runs {trip_count} times, \
                 no more than one L2 tile ({q_l2})"
            ),
        }
    }
}

impl fmt::Display for SicaDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SicaDecision::Tile { q_l1, outer } => {
                write!(f, "vectorized loop tiled by {q_l1}{outer}")
            }
            SicaDecision::Chain { chain, outer } => write!(
                f,
                "innermost loop tiled by {chain} (it carries a dependence: short chains of \
                 dependent iterations overlap){outer}"
            ),
            SicaDecision::NoNewElements => write!(
                f,
                "not tiled: every access is invariant in the vectorized loop, \
                 so it loads nothing new per iteration"
            ),
            SicaDecision::TripCountFits { trip_count, q_l1 } => write!(
                f,
                "not tiled: the vectorized loop runs {trip_count} times, \
                 no more than one L1 tile ({q_l1} iterations)"
            ),
        }
    }
}

/// `ElPeRe`: elements of `element_bytes` bytes in one `simd_bits`-bit register, at least
/// 1 (an element wider than the register is one "register" by itself).
pub fn elements_per_register(simd_bits: u32, element_bytes: u32) -> u64 {
    match u64::from(simd_bits / 8).checked_div(u64::from(element_bytes)) {
        Some(n) if n >= 1 => n,
        _ => 1,
    }
}

/// `q_l1`: iterations of the vectorized loop whose new data fill `rho` of L1, rounded down
/// to whole registers and at least one register. `None` when nothing new is loaded.
/// A `rho` that is not a positive number gives one register.
pub fn q_l1(machine: &SicaMachine, new: &NewElements, rho: f64) -> Option<u64> {
    if new.elements == 0 || new.bytes == 0 {
        return None;
    }
    let per_register = elements_per_register(machine.simd_bits, new.element_bytes);
    let register_bytes = new.bytes.saturating_mul(per_register) as f64;
    let registers = rho * machine.l1_bytes as f64 / register_bytes;
    // The relative nudge keeps an exact quotient (rho = 1, 4096.0) from flooring to one
    // less through rounding in `rho`; it is far below one register for any real cache.
    let registers = (registers * (1.0 + 1e-12)).floor();
    let registers = if registers.is_finite() && registers >= 1.0 {
        registers as u64
    } else {
        1
    };
    Some(registers.saturating_mul(per_register))
}

/// `q_l2 = floor(CL2 / CL1)`: L1 blocks that fit in L2 (0 for an L1 size of 0).
pub fn q_l2(machine: &SicaMachine) -> u64 {
    machine
        .l2_bytes
        .checked_div(machine.l1_bytes)
        .unwrap_or_default()
}

/// SICA's decision for `band`, whose vectorized loop newly loads `new` per iteration,
/// filling `rho` of L1.
pub fn tile_sizes_sica(
    machine: &SicaMachine,
    new: &NewElements,
    rho: f64,
    band: &SicaBand,
) -> SicaDecision {
    let Some(q_l1) = q_l1(machine, new, rho) else {
        return SicaDecision::NoNewElements;
    };
    if let Some(trip_count) = band.vector_trip_count {
        if trip_count <= q_l1 {
            // The whole vectorized loop is one L1 block; with loops around it that
            // reuse its data from L2, those are still tiled (gemm at fixed sizes, 1000
            // x 1100 x 1200: the rows of B reused by every row of C).
            if band.loops >= MIN_L2_LOOPS {
                return SicaDecision::Tile {
                    q_l1: trip_count,
                    outer: outer_tile(machine, band),
                };
            }
            return SicaDecision::TripCountFits { trip_count, q_l1 };
        }
    }
    SicaDecision::Tile {
        q_l1,
        outer: outer_tile(machine, band),
    }
}

/// Loops a band needs for its outer loops to be tiled for L2 when its vectorized loop
/// is one L1 block already: one to reuse the block from L2, one to walk it.
const MIN_L2_LOOPS: usize = 3;

/// The decision for a band whose innermost loop carries a dependence (so is not
/// vectorized): that loop tiled by `DEPENDENT_CHAIN` iterations, unless it runs no more
/// than that (then the band is left to the L1 reasoning, which has nothing to tile) or
/// loads nothing; the outermost loop of a band of two (the loop whose iterations are
/// the chains) by `OVERLAPPED_CHAINS` unless it is known to fit one L2 tile, of a deeper
/// band by `q_l2` as for a vectorized band (its chains are the middle loop's, tiled for
/// L2 by the caller).
pub fn tile_sizes_chain(machine: &SicaMachine, new: &NewElements, band: &SicaBand) -> SicaDecision {
    if new.elements == 0 || new.bytes == 0 {
        return SicaDecision::NoNewElements;
    }
    if let Some(trip_count) = band.vector_trip_count {
        if trip_count <= DEPENDENT_CHAIN {
            return SicaDecision::TripCountFits {
                trip_count,
                q_l1: DEPENDENT_CHAIN,
            };
        }
    }
    // A loop known to run no more than `q_l2` times stays whole, as for a vectorized
    // band: all its chains overlap and the operand they share is read once per tile
    // (dot_norms' 24 vectors of 1M doubles, `V[a][i]` shared: 2.0x faster than -O3 with
    // 24 rows, 1.7x with 8, as `V[a]` is read from memory three times).
    let outer = match outer_tile(machine, band) {
        fits @ OuterTile::TripCountFits { .. } => fits,
        _ if band.loops == 2 => OuterTile::Chains(OVERLAPPED_CHAINS),
        other => other,
    };
    SicaDecision::Chain {
        chain: DEPENDENT_CHAIN,
        outer,
    }
}

/// What happens to the outermost loop of a band whose innermost loop is tiled.
fn outer_tile(machine: &SicaMachine, band: &SicaBand) -> OuterTile {
    let q_l2 = q_l2(machine);
    match band.outer_trip_count {
        _ if band.loops <= 1 => OuterTile::SingleLoop,
        _ if q_l2 < 2 => OuterTile::L2TooSmall { q_l2 },
        Some(trip_count) if trip_count <= q_l2 => OuterTile::TripCountFits { trip_count, q_l2 },
        _ => OuterTile::Tiled(q_l2),
    }
}

/// Why `E` could not be counted.
#[derive(Clone, Debug, PartialEq)]
pub enum SicaError {
    /// The vectorized loop's dimension is not among the access's loops.
    NoSuchLoop {
        vector_dim: usize,
        loops: usize,
        access: String,
    },
    /// Accesses of one block must be over the same loops (pass them in the band's space).
    LoopsDiffer {
        expected: usize,
        found: usize,
        access: String,
    },
    /// An access to elements of size 0 (no load can stream through the cache).
    ZeroElementSize {
        access: String,
    },
    Isl(IslError),
}

impl From<IslError> for SicaError {
    fn from(error: IslError) -> Self {
        SicaError::Isl(error)
    }
}

impl SicaError {
    pub fn is_operation_limit(&self) -> bool {
        matches!(self, SicaError::Isl(error) if error.is_operation_limit())
    }
}

impl fmt::Display for SicaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SicaError::NoSuchLoop {
                vector_dim,
                loops,
                access,
            } => write!(
                f,
                "SICA: the vectorized loop is dimension {vector_dim}, but access {access} \
                 has {loops} loop dimension(s)"
            ),
            SicaError::LoopsDiffer {
                expected,
                found,
                access,
            } => write!(
                f,
                "SICA: access {access} has {found} loop dimension(s) where the block's \
                 first access has {expected}; give all accesses of a block over the band's loops"
            ),
            SicaError::ZeroElementSize { access } => {
                write!(f, "SICA: access {access} has elements of size 0")
            }
            SicaError::Isl(error) => write!(f, "SICA: {error}"),
        }
    }
}

impl std::error::Error for SicaError {}

/// One access of a statement block: its relation from the loops of the band to an array
/// element, and the element size in bytes.
#[derive(Clone, Copy, Debug)]
pub struct BlockAccess<'a> {
    pub relation: &'a Map,
    pub element_bytes: u32,
}

impl<'a> BlockAccess<'a> {
    /// One access per `(relation, element bytes)`.
    pub fn all(relations: &'a [(Map, u32)]) -> Vec<BlockAccess<'a>> {
        relations
            .iter()
            .map(|(relation, element_bytes)| BlockAccess {
                relation,
                element_bytes: *element_bytes,
            })
            .collect()
    }
}

/// Accesses that reach the same element this many iterations of the vectorized loop apart
/// or closer count once: the group's footprint over a tile of `q` iterations is
/// `q + distance` elements, and `q_l1` is thousands. Stencil offsets are within it.
pub const MAX_REUSE_DISTANCE: i64 = 16;

/// Counts `E` (and its bytes) for the accesses of one statement block, whose relations all
/// go from the same loops (the domain tuple's name is ignored, so statements of one block
/// can be mixed) with the vectorized loop at dimension `vector_dim`.
pub fn count_new_elements(
    accesses: &[BlockAccess<'_>],
    vector_dim: usize,
) -> Result<NewElements, SicaError> {
    let Some(first) = accesses.first() else {
        return Ok(NewElements::uniform(0, 0));
    };
    let ctx = first.relation.ctx();
    let loops = first.relation.n_in()?;
    let shift = Shift {
        ctx: &ctx,
        loops,
        vector_dim,
    };
    let mut streaming: Vec<Streaming> = Vec::new();
    for access in accesses {
        let shown = || access.relation.to_str().unwrap_or_else(|e| e.to_string());
        let found = access.relation.n_in()?;
        if found != loops {
            return Err(SicaError::LoopsDiffer {
                expected: loops,
                found,
                access: shown(),
            });
        }
        if vector_dim >= loops {
            return Err(SicaError::NoSuchLoop {
                vector_dim,
                loops,
                access: shown(),
            });
        }
        if access.element_bytes == 0 {
            return Err(SicaError::ZeroElementSize { access: shown() });
        }
        let relation = access.relation.copy()?.drop_domain_name()?;
        let candidate = Streaming {
            domain: relation.copy()?.domain()?,
            array: (relation.range_name(), relation.n_out()?),
            relation,
            element_bytes: access.element_bytes,
        };
        // Invariant: what one iteration reaches, the next one reaches too.
        if !shift.reaches_same_element(&candidate, &candidate, 1)? {
            streaming.push(candidate);
        }
    }
    group(&shift, &streaming)
}

/// Share of L2 the data one tile of the two innermost members touches may fill: the
/// rest holds what the outer loops reuse (the output row, the other operand). Measured
/// on the textbook matrix product at n = 1024 (band i, k, j): tiles of k from 16 to 64
/// rows of B (128 to 512 KiB) run within 3% of each other, 2x faster than k untiled.
pub const L2_SHARE: f64 = 0.5;

/// SICA's reasoning one level up, for bands of three members or more: the member just
/// outside the vectorized one (`m`) is tiled so that what a tile of `m` by the
/// vectorized loop's tile touches fills `L2_SHARE` of L2, when some access walked by
/// `m` is invariant in the outermost member (so the outer loop reuses that tile from
/// L2: `B[k][j]` under `i` in `C[i][j] += A[i][k] * B[k][j]`).
///
/// `accesses` are relations from the band's members (in band order) to array elements;
/// `inner_tile` is how many iterations of the vectorized loop one tile covers (its
/// tile size, or its extent when untiled). Returns the tile size of `m`, or `None`
/// when tiling `m` gains nothing (no such reuse, one iteration of `m` already fills
/// the share, or `m` runs no more than one tile).
pub fn l2_tile_size(
    machine: &SicaMachine,
    accesses: &[BlockAccess<'_>],
    members: usize,
    inner_tile: u64,
    middle_extent: Option<u64>,
) -> Result<Option<u64>, SicaError> {
    if members < 3 || inner_tile == 0 {
        return Ok(None);
    }
    let (outer, middle, inner) = (0, members - 2, members - 1);
    let mut reused = false;
    let mut bytes_per_middle: u64 = 0;
    for access in accesses {
        if !varies_with(access, middle)? {
            continue;
        }
        if !varies_with(access, outer)? {
            reused = true;
        }
        let elements = if varies_with(access, inner)? {
            inner_tile
        } else {
            1
        };
        bytes_per_middle = bytes_per_middle
            .saturating_add(elements.saturating_mul(u64::from(access.element_bytes)));
    }
    if !reused || bytes_per_middle == 0 {
        return Ok(None);
    }
    let share = (L2_SHARE * machine.l2_bytes as f64) as u64;
    let size = share / bytes_per_middle;
    if size < 2 || middle_extent.is_some_and(|e| e <= size) {
        return Ok(None);
    }
    Ok(Some(size))
}

/// Per member of a band of `members` loops, per access, whether the access reaches a
/// new element when that member advances.
pub fn moves(accesses: &[BlockAccess<'_>], members: usize) -> Result<Vec<Vec<bool>>, SicaError> {
    (0..members)
        .map(|m| accesses.iter().map(|a| varies_with(a, m)).collect())
        .collect()
}

/// Whether `access` reaches a new element when band member `member` advances.
pub fn varies_with(access: &BlockAccess<'_>, member: usize) -> Result<bool, SicaError> {
    Ok(count_new_elements(std::slice::from_ref(access), member)?.elements > 0)
}

/// An access that is not invariant in the vectorized loop, with an unnamed domain tuple.
struct Streaming {
    relation: Map,
    domain: Set,
    /// Array name and rank: only accesses to the same array can share elements.
    array: (Option<String>, usize),
    element_bytes: u32,
}

/// Relations between iterations that differ only in the vectorized loop.
struct Shift<'a> {
    ctx: &'a IslCtx,
    loops: usize,
    vector_dim: usize,
}

impl Shift<'_> {
    /// `{ [i0, ..] -> [o0, ..] : o_k = i_k for every k except the vectorized loop's }`,
    /// with `o_v = i_v + distance` when a distance is given.
    fn relation(&self, distance: Option<i64>) -> Result<Map, IslError> {
        let mut relation = Map::universe_between(
            self.ctx,
            &[],
            &Tuple::counters(None, "i", self.loops),
            &Tuple::counters(None, "o", self.loops),
        )?;
        for k in (0..self.loops).filter(|&k| k != self.vector_dim) {
            relation = relation.equate(k)?;
        }
        match distance {
            Some(distance) => relation.shifted(self.vector_dim, distance),
            None => Ok(relation),
        }
    }

    /// `{ i -> i' : a(i) and b(i') share an element }`.
    fn shared(a: &Streaming, b: &Streaming) -> Result<Map, IslError> {
        a.relation
            .copy()?
            .apply_range(b.relation.copy()?.reverse()?)
    }

    /// True when, for every iteration `i` of `a` with `i + distance` (along the vectorized
    /// loop) an iteration of `b`, `b` then reaches an element `a` reached at `i`.
    fn reaches_same_element(
        &self,
        a: &Streaming,
        b: &Streaming,
        distance: i64,
    ) -> Result<bool, IslError> {
        let pairs = self
            .relation(Some(distance))?
            .intersect_domain(a.domain.copy()?)?
            .intersect_range(b.domain.copy()?)?;
        pairs.is_subset(&Shift::shared(a, b)?)
    }

    /// True when `b` reaches what `a` reaches a fixed number of iterations of the
    /// vectorized loop later (or earlier, or at once), at most `MAX_REUSE_DISTANCE` apart.
    fn in_one_group(&self, a: &Streaming, b: &Streaming) -> Result<bool, IslError> {
        if a.array != b.array {
            return Ok(false);
        }
        let distances = Shift::shared(a, b)?
            .intersect(self.relation(None)?)?
            .deltas()?;
        let Some((low, high)) = distances.dim_value_range(self.vector_dim)? else {
            return Ok(false);
        };
        for distance in low.max(-MAX_REUSE_DISTANCE)..=high.min(MAX_REUSE_DISTANCE) {
            if self.reaches_same_element(a, b, distance)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Groups accesses that share elements along the vectorized loop; one group is one new
/// element per iteration.
fn group(shift: &Shift<'_>, streaming: &[Streaming]) -> Result<NewElements, SicaError> {
    // Union-find over the accesses; a root stands for its group.
    let mut parent: Vec<usize> = (0..streaming.len()).collect();
    let root = |parent: &[usize], mut index: usize| {
        while parent[index] != index {
            index = parent[index];
        }
        index
    };
    for b in 0..streaming.len() {
        for a in 0..b {
            let (root_a, root_b) = (root(&parent, a), root(&parent, b));
            if root_a != root_b && shift.in_one_group(&streaming[a], &streaming[b])? {
                parent[root_b] = root_a;
            }
        }
    }
    let mut new = NewElements::uniform(0, 0);
    for (index, access) in streaming.iter().enumerate() {
        if root(&parent, index) != index {
            continue;
        }
        new.elements += 1;
        new.bytes += u64::from(access.element_bytes);
        new.element_bytes = match new.element_bytes {
            0 => access.element_bytes,
            smallest => smallest.min(access.element_bytes),
        };
    }
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::parse_map;

    /// Parses each `(relation, element bytes)` and counts `E` as `count_new_elements` does.
    fn count_new_elements_in_strings(
        ctx: &IslCtx,
        accesses: &[(&str, u32)],
        vector_dim: usize,
    ) -> Result<NewElements, SicaError> {
        let relations = accesses
            .iter()
            .map(|(text, _)| parse_map(ctx, text, "access relation of a statement block"))
            .collect::<Result<Vec<Map>, IslError>>()?;
        let block: Vec<BlockAccess<'_>> = relations
            .iter()
            .zip(accesses)
            .map(|(relation, (_, element_bytes))| BlockAccess {
                relation,
                element_bytes: *element_bytes,
            })
            .collect();
        count_new_elements(&block, vector_dim)
    }

    const KIB: u64 = 1024;
    const FLOAT: u32 = 4;
    const DOUBLE: u32 = 8;

    /// The paper's Xeon X5650: SSE (128 bits), L1d 32 KB, L2 256 KB.
    fn xeon_x5650() -> SicaMachine {
        SicaMachine {
            simd_bits: 128,
            l1_bytes: 32 * KIB,
            l2_bytes: 256 * KIB,
        }
    }

    fn floats(elements: u32) -> NewElements {
        NewElements::uniform(elements, FLOAT)
    }

    /// A band of `loops` loops with unknown trip counts.
    fn band(loops: usize) -> SicaBand {
        SicaBand {
            loops,
            vector_trip_count: None,
            outer_trip_count: None,
        }
    }

    fn ctx() -> IslCtx {
        IslCtx::new(None).expect("an isl context")
    }

    fn count(accesses: &[(&str, u32)], vector_dim: usize) -> NewElements {
        count_new_elements_in_strings(&ctx(), accesses, vector_dim).expect("E is counted")
    }

    // The regression facts of the SICA digest (float, R = 128, CL1 = 32 KB, CL2 = 256 KB).

    #[test]
    fn q_l1_of_float_matmul_at_rho_1_is_4096() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(2), 1.0), Some(4096));
    }

    #[test]
    fn q_l1_of_float_matmul_at_rho_0_9_is_3684() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(2), 0.9), Some(3684));
    }

    #[test]
    fn q_l2_of_256_kib_l2_over_32_kib_l1_is_8() {
        assert_eq!(q_l2(&xeon_x5650()), 8);
    }

    #[test]
    fn q_l1_of_float_matmul2_with_three_new_elements_at_rho_1_is_2728() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(3), 1.0), Some(2728));
    }

    #[test]
    fn q_l1_of_float_matmul3_with_four_new_elements_at_rho_1_is_2048() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(4), 1.0), Some(2048));
    }

    #[test]
    fn q_l1_of_correlation_centre_reduce_block_e3_at_rho_0_9_is_2456() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(3), 0.9), Some(2456));
    }

    #[test]
    fn q_l1_of_correlation_symmat_update_e2_at_rho_0_9_is_3684() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(2), 0.9), Some(3684));
    }

    #[test]
    fn q_l1_of_correlation_symmetric_copy_e2_at_rho_0_9_is_3684() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(2), 0.9), Some(3684));
    }

    #[test]
    fn q_l1_of_correlation_zero_init_e1_at_rho_0_9_is_the_formulas_7372_not_the_papers_7368() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(1), 0.9), Some(7372));
    }

    #[test]
    fn q_l1_of_double_on_avx_e2_at_rho_1_is_2048() {
        let avx = SicaMachine {
            simd_bits: 256,
            ..xeon_x5650()
        };
        assert_eq!(
            q_l1(&avx, &NewElements::uniform(2, DOUBLE), 1.0),
            Some(2048)
        );
    }

    #[test]
    fn float_matmul_band_at_rho_0_9_tiles_outer_by_8_and_vector_loop_by_3684() {
        let decision = tile_sizes_sica(&xeon_x5650(), &floats(2), 0.9, &band(3));
        assert_eq!(
            decision,
            SicaDecision::Tile {
                q_l1: 3684,
                outer: OuterTile::Tiled(8)
            }
        );
        assert_eq!(decision.tile_sizes(), vec![8, 3684]);
        assert_eq!(
            decision.to_string(),
            "vectorized loop tiled by 3684, outermost loop by 8"
        );
    }

    // The clamps.

    #[test]
    fn q_l1_is_at_least_one_register_when_l1_is_tiny() {
        // 1 KiB of L1 for 300 new floats per iteration: 0.85 iterations fit.
        let tiny = SicaMachine {
            l1_bytes: KIB,
            ..xeon_x5650()
        };
        assert_eq!(q_l1(&tiny, &floats(300), 1.0), Some(4));
    }

    #[test]
    fn q_l1_is_one_register_for_a_rho_that_is_not_a_positive_number() {
        for rho in [0.0, -1.0, f64::NAN] {
            assert_eq!(q_l1(&xeon_x5650(), &floats(2), rho), Some(4), "{rho}");
        }
    }

    #[test]
    fn q_l1_is_a_multiple_of_the_register_element_count() {
        for elements in 1..=40 {
            for rho in [0.33, 0.5, 0.9, 1.0] {
                let q = q_l1(&xeon_x5650(), &floats(elements), rho).expect("E > 0");
                assert_eq!(q % 4, 0, "E = {elements}, rho = {rho}");
            }
        }
    }

    #[test]
    fn elements_wider_than_the_register_count_one_per_register() {
        // x86_fp80 is stored in 16 bytes; a 64-bit register holds none of them.
        assert_eq!(elements_per_register(64, 16), 1);
        assert_eq!(elements_per_register(128, 16), 1);
        assert_eq!(elements_per_register(512, 4), 16);
        assert_eq!(elements_per_register(128, 0), 1);
    }

    #[test]
    fn no_new_elements_means_no_tiling() {
        assert_eq!(q_l1(&xeon_x5650(), &floats(0), 0.9), None);
        let decision = tile_sizes_sica(&xeon_x5650(), &floats(0), 0.9, &band(3));
        assert_eq!(decision, SicaDecision::NoNewElements);
        assert!(decision.tile_sizes().is_empty());
        assert!(decision.to_string().contains("invariant"), "{decision}");
    }

    #[test]
    fn vector_loop_of_two_running_exactly_q_l1_times_is_not_tiled() {
        let fits = SicaBand {
            vector_trip_count: Some(3684),
            ..band(2)
        };
        let decision = tile_sizes_sica(&xeon_x5650(), &floats(2), 0.9, &fits);
        assert_eq!(
            decision,
            SicaDecision::TripCountFits {
                trip_count: 3684,
                q_l1: 3684
            }
        );
        assert!(
            decision.to_string().contains("runs 3684 times"),
            "{decision}"
        );
    }

    #[test]
    fn a_vector_loop_that_fits_leaves_the_outer_loops_of_three_to_tile_for_l2() {
        let fits = SicaBand {
            vector_trip_count: Some(1100),
            outer_trip_count: Some(1000),
            ..band(3)
        };
        let decision = tile_sizes_sica(&xeon_x5650(), &floats(2), 0.9, &fits);
        let SicaDecision::Tile { q_l1, outer } = decision else {
            panic!("{decision:?}");
        };
        assert_eq!(q_l1, 1100);
        assert!(matches!(outer, OuterTile::Tiled(_)), "{outer:?}");
    }

    #[test]
    fn vector_loop_running_one_more_than_q_l1_is_tiled() {
        let longer = SicaBand {
            vector_trip_count: Some(3685),
            ..band(2)
        };
        let decision = tile_sizes_sica(&xeon_x5650(), &floats(2), 0.9, &longer);
        assert_eq!(decision.tile_sizes(), vec![8, 3684]);
    }

    #[test]
    fn outermost_loop_running_at_most_q_l2_times_is_not_tiled() {
        let short_outer = SicaBand {
            outer_trip_count: Some(8),
            ..band(3)
        };
        let decision = tile_sizes_sica(&xeon_x5650(), &floats(2), 0.9, &short_outer);
        assert_eq!(
            decision,
            SicaDecision::Tile {
                q_l1: 3684,
                outer: OuterTile::TripCountFits {
                    trip_count: 8,
                    q_l2: 8
                }
            }
        );
        assert_eq!(decision.tile_sizes(), vec![3684]);
    }

    #[test]
    fn a_dependent_innermost_loop_is_tiled_by_a_short_chain_whatever_l1_holds() {
        let decision = tile_sizes_chain(&xeon_x5650(), &floats(2), &band(3));
        assert_eq!(
            decision,
            SicaDecision::Chain {
                chain: DEPENDENT_CHAIN,
                outer: OuterTile::Tiled(8)
            }
        );
        assert_eq!(decision.tile_sizes(), vec![8, DEPENDENT_CHAIN]);
        assert_eq!(
            decision.to_string(),
            "innermost loop tiled by 16 (it carries a dependence: short chains of dependent \
             iterations overlap), outermost loop by 8"
        );
    }

    #[test]
    fn two_loops_around_a_chain_interleave_the_overlapped_chains_not_an_l2_tile() {
        // A matrix-vector product's rows: tiled by the chains that cover the adders'
        // latency, whatever L2 holds (q_l2 = 8 here, 32 on a 1M L2).
        let decision = tile_sizes_chain(&xeon_x5650(), &floats(2), &band(2));
        assert_eq!(
            decision,
            SicaDecision::Chain {
                chain: DEPENDENT_CHAIN,
                outer: OuterTile::Chains(OVERLAPPED_CHAINS)
            }
        );
        assert_eq!(
            decision.tile_sizes(),
            vec![OVERLAPPED_CHAINS, DEPENDENT_CHAIN]
        );
        assert_eq!(
            decision.to_string(),
            "innermost loop tiled by 16 (it carries a dependence: short chains of dependent \
             iterations overlap), outermost loop by 8 (the chains that overlap)"
        );
        // Known to fit one L2 tile (q_l2 = 8): all its rows overlap, as before.
        let short_rows = SicaBand {
            outer_trip_count: Some(8),
            ..band(2)
        };
        assert_eq!(
            tile_sizes_chain(&xeon_x5650(), &floats(2), &short_rows).tile_sizes(),
            vec![DEPENDENT_CHAIN]
        );
    }

    #[test]
    fn a_dependent_innermost_loop_no_longer_than_the_chain_or_loading_nothing_is_not_tiled() {
        let short = SicaBand {
            vector_trip_count: Some(DEPENDENT_CHAIN),
            ..band(3)
        };
        assert_eq!(
            tile_sizes_chain(&xeon_x5650(), &floats(2), &short).tile_sizes(),
            Vec::<u64>::new()
        );
        let longer = SicaBand {
            vector_trip_count: Some(DEPENDENT_CHAIN + 1),
            outer_trip_count: Some(8),
            ..band(3)
        };
        assert_eq!(
            tile_sizes_chain(&xeon_x5650(), &floats(2), &longer).tile_sizes(),
            vec![DEPENDENT_CHAIN]
        );
        assert_eq!(
            tile_sizes_chain(&xeon_x5650(), &floats(0), &band(3)),
            SicaDecision::NoNewElements
        );
    }

    #[test]
    fn single_loop_band_tiles_only_the_vector_loop() {
        let decision = tile_sizes_sica(&xeon_x5650(), &floats(2), 0.9, &band(1));
        assert_eq!(
            decision,
            SicaDecision::Tile {
                q_l1: 3684,
                outer: OuterTile::SingleLoop
            }
        );
        assert_eq!(decision.to_string(), "vectorized loop tiled by 3684");
    }

    #[test]
    fn l2_holding_fewer_than_two_l1_blocks_leaves_the_outermost_loop_untiled() {
        for l2_bytes in [32 * KIB, 48 * KIB, 16 * KIB] {
            let flat = SicaMachine {
                l2_bytes,
                ..xeon_x5650()
            };
            let decision = tile_sizes_sica(&flat, &floats(2), 0.9, &band(2));
            assert!(
                matches!(
                    decision,
                    SicaDecision::Tile {
                        outer: OuterTile::L2TooSmall { .. },
                        ..
                    }
                ),
                "{l2_bytes}: {decision:?}"
            );
        }
    }

    #[test]
    fn q_l2_rounds_down_and_survives_a_zero_l1() {
        let host = SicaMachine {
            simd_bits: 256,
            l1_bytes: 48 * KIB,
            l2_bytes: 1280 * KIB,
        };
        assert_eq!(q_l2(&host), 26);
        let broken = SicaMachine {
            l1_bytes: 0,
            ..host
        };
        assert_eq!(q_l2(&broken), 0);
    }

    #[test]
    fn mixed_element_sizes_combine_in_bytes_and_round_to_the_smallest_element() {
        // One new double and one new float: 12 bytes per iteration, rounded to 4 floats.
        let mixed = NewElements {
            elements: 2,
            bytes: 12,
            element_bytes: FLOAT,
        };
        // floor(32768 / (12 * 4)) * 4 = 682 * 4.
        assert_eq!(q_l1(&xeon_x5650(), &mixed, 1.0), Some(2728));
    }

    // Counting E from access relations.

    #[test]
    fn matmul_with_j_vectorized_loads_two_new_elements() {
        // C[i][j] += alpha * A[i][k] * B[k][j]: C read and written once, B streams, A is
        // invariant in j.
        let new = count(
            &[
                ("{ S[i, j, k] -> C[i, j] }", FLOAT),
                ("{ S[i, j, k] -> C[i, j] }", FLOAT),
                ("{ S[i, j, k] -> A[i, k] }", FLOAT),
                ("{ S[i, j, k] -> B[k, j] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(2));
        assert_eq!(q_l1(&xeon_x5650(), &new, 0.9), Some(3684));
    }

    #[test]
    fn matmul_with_parameters_and_domains_loads_two_new_elements() {
        let new = count(
            &[
                ("[n] -> { S[i, j, k] -> C[i, j] : 0 <= i, j, k < n }", FLOAT),
                ("[n] -> { S[i, j, k] -> C[i, j] : 0 <= i, j, k < n }", FLOAT),
                ("[n] -> { S[i, j, k] -> A[i, k] : 0 <= i, j, k < n }", FLOAT),
                (
                    "[m, n] -> { S[i, j, k] -> B[k, j] : 0 <= i, j, k < n }",
                    FLOAT,
                ),
                ("{ S[i, j, k] -> alpha[] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(2));
    }

    #[test]
    fn correlation_centre_block_loads_data_mean_and_stddev() {
        // data[i][j] -= mean[j]; data[i][j] /= sqrt(float_n) * stddev[j]; j vectorized.
        let new = count(
            &[
                ("{ S0[i, j] -> data[i, j] }", FLOAT),
                ("{ S0[i, j] -> mean[j] }", FLOAT),
                ("{ S0[i, j] -> data[i, j] }", FLOAT),
                ("{ S1[i, j] -> data[i, j] }", FLOAT),
                ("{ S1[i, j] -> float_n[] }", FLOAT),
                ("{ S1[i, j] -> stddev[j] }", FLOAT),
                ("{ S1[i, j] -> data[i, j] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(3));
        assert_eq!(q_l1(&xeon_x5650(), &new, 0.9), Some(2456));
    }

    #[test]
    fn correlation_symmat_update_with_j2_vectorized_loads_two_new_elements() {
        // symmat[j1][j2] += data[i][j1] * data[i][j2]: data[i][j1] is invariant in j2.
        let new = count(
            &[
                ("{ S[j1, j2, i] -> symmat[j1, j2] }", FLOAT),
                ("{ S[j1, j2, i] -> data[i, j1] }", FLOAT),
                ("{ S[j1, j2, i] -> data[i, j2] }", FLOAT),
                ("{ S[j1, j2, i] -> symmat[j1, j2] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(2));
    }

    #[test]
    fn correlation_zero_init_loads_one_new_element() {
        let new = count(&[("{ S[j1, j2] -> symmat[j1, j2] }", FLOAT)], 1);
        assert_eq!(new, floats(1));
        assert_eq!(q_l1(&xeon_x5650(), &new, 0.9), Some(7372));
    }

    #[test]
    fn accesses_invariant_in_the_vector_loop_and_scalars_count_zero() {
        let new = count(
            &[
                ("{ S[i, j] -> A[i] }", FLOAT),
                ("{ S[i, j] -> x[] }", FLOAT),
                ("[n] -> { S[i, j] -> B[n, i] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(0));
        let decision = tile_sizes_sica(&xeon_x5650(), &new, 0.9, &band(2));
        assert_eq!(decision, SicaDecision::NoNewElements);
    }

    #[test]
    fn choosing_the_outer_loop_as_vectorized_changes_which_accesses_stream() {
        // With i vectorized, A[i][k] and C[i][j] stream and B[k][j] is invariant.
        let matmul = [
            ("{ S[i, j, k] -> C[i, j] }", FLOAT),
            ("{ S[i, j, k] -> A[i, k] }", FLOAT),
            ("{ S[i, j, k] -> B[k, j] }", FLOAT),
        ];
        assert_eq!(count(&matmul, 0), floats(2));
        // With k vectorized, A and B stream and C is invariant.
        assert_eq!(count(&matmul, 2), floats(2));
    }

    #[test]
    fn stencil_neighbours_along_the_vector_loop_count_once() {
        // A[i][j-1] + A[i][j] + A[i][j+1]: one new element of A per iteration of j, but a
        // new row for A[i+1][j].
        let new = count(
            &[
                ("{ S[i, j] -> A[i, j - 1] }", DOUBLE),
                ("{ S[i, j] -> A[i, j] }", DOUBLE),
                ("{ S[i, j] -> A[i, j + 1] }", DOUBLE),
                ("{ S[i, j] -> A[i + 1, j] }", DOUBLE),
                ("{ S[i, j] -> B[i, j] }", DOUBLE),
            ],
            1,
        );
        assert_eq!(new, NewElements::uniform(3, DOUBLE));
    }

    #[test]
    fn neighbours_further_apart_than_the_reuse_distance_count_twice() {
        let new = count(
            &[
                ("{ S[i, j] -> A[j] }", FLOAT),
                ("{ S[i, j] -> A[j + 17] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(2));
    }

    #[test]
    fn a_transposed_access_meeting_on_the_diagonal_only_counts_separately() {
        // A[i][j] and A[j][i] share elements only where i = j.
        let new = count(
            &[
                ("{ S[i, j] -> A[i, j] }", FLOAT),
                ("{ S[i, j] -> A[j, i] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(2));
    }

    #[test]
    fn strided_accesses_interleaving_without_overlap_count_separately() {
        let new = count(
            &[
                ("{ S[i, j] -> A[2j] }", FLOAT),
                ("{ S[i, j] -> A[2j + 1] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(2));
    }

    #[test]
    fn same_subscripts_in_different_arrays_count_separately() {
        let new = count(
            &[
                ("{ S[i, j] -> A[i, j] }", FLOAT),
                ("{ S[i, j] -> B[i, j] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(2));
    }

    #[test]
    fn parametric_offsets_along_the_vector_loop_count_separately() {
        let new = count(
            &[
                ("[n] -> { S[i, j] -> A[j] }", FLOAT),
                ("[n] -> { S[i, j] -> A[j + n] }", FLOAT),
            ],
            1,
        );
        assert_eq!(new, floats(2));
    }

    #[test]
    fn mixed_element_sizes_are_counted_in_bytes() {
        let new = count(
            &[
                ("{ S[i, j] -> X[i, j] }", DOUBLE),
                ("{ S[i, j] -> Y[j] }", FLOAT),
                ("{ S[i, j] -> Y[j] }", FLOAT),
            ],
            1,
        );
        assert_eq!(
            new,
            NewElements {
                elements: 2,
                bytes: 12,
                element_bytes: FLOAT
            }
        );
    }

    #[test]
    fn an_empty_block_loads_nothing() {
        assert_eq!(count(&[], 0), floats(0));
    }

    #[test]
    fn vector_dimension_beyond_the_loops_is_an_error() {
        let error =
            count_new_elements_in_strings(&ctx(), &[("{ S[i, j] -> A[i, j] }", 4)], 2).unwrap_err();
        assert!(matches!(
            error,
            SicaError::NoSuchLoop {
                vector_dim: 2,
                loops: 2,
                ..
            }
        ));
        assert!(error.to_string().contains("dimension 2"), "{error}");
    }

    #[test]
    fn accesses_over_different_loops_are_an_error() {
        let error = count_new_elements_in_strings(
            &ctx(),
            &[("{ S[i, j] -> A[i, j] }", 4), ("{ T[i] -> A[i, i] }", 4)],
            0,
        )
        .unwrap_err();
        assert!(
            matches!(
                error,
                SicaError::LoopsDiffer {
                    expected: 2,
                    found: 1,
                    ..
                }
            ),
            "{error:?}"
        );
    }

    #[test]
    fn zero_sized_elements_and_bad_text_are_errors_not_panics() {
        let error =
            count_new_elements_in_strings(&ctx(), &[("{ S[i] -> A[i] }", 0)], 0).unwrap_err();
        assert!(
            matches!(error, SicaError::ZeroElementSize { .. }),
            "{error:?}"
        );
        let error =
            count_new_elements_in_strings(&ctx(), &[("{ S[i] -> A[i }", 4)], 0).unwrap_err();
        assert!(
            matches!(error, SicaError::Isl(IslError::Parse { .. })),
            "{error:?}"
        );
    }

    #[test]
    fn counting_under_an_exhausted_operation_bound_reports_the_limit() {
        let ctx = IslCtx::new(Some(1)).expect("an isl context");
        let empty = count_new_elements_in_strings(&ctx, &[], 0);
        assert_eq!(empty, Ok(floats(0)));
        ctx.start_region();
        let error = count_new_elements_in_strings(
            &ctx,
            &[
                ("{ S[i, j, k] -> C[i, j] }", FLOAT),
                ("{ S[i, j, k] -> B[k, j] }", FLOAT),
            ],
            1,
        )
        .unwrap_err();
        assert!(error.is_operation_limit(), "{error:?}");
    }

    /// `l2_tile_size` on relations given as isl strings, in band space.
    fn l2(accesses: &[(&str, u32)], inner_tile: u64, middle_extent: Option<u64>) -> Option<u64> {
        let ctx = ctx();
        let maps: Vec<(Map, u32)> = accesses
            .iter()
            .map(|(text, bytes)| (parse_map(&ctx, text, "access").expect("a map"), *bytes))
            .collect();
        let accesses = BlockAccess::all(&maps);
        let machine = SicaMachine {
            simd_bits: 512,
            l1_bytes: 64 * KIB,
            l2_bytes: 1024 * KIB,
        };
        l2_tile_size(&machine, &accesses, 3, inner_tile, middle_extent).expect("sized")
    }

    const MATMUL_IKJ: [(&str, u32); 4] = [
        ("[n] -> { [i, k, j] -> C[i, j] }", 8),
        ("[n] -> { [i, k, j] -> A[i, k] }", 8),
        ("[n] -> { [i, k, j] -> B[k, j] }", 8),
        ("[n] -> { [i, k, j] -> C[i, j] }", 8),
    ];

    #[test]
    fn matmul_middle_loop_tiles_rows_of_b_into_half_of_l2() {
        // Per k: a row of 1024 doubles of B and one element of A: 8200 bytes, 63 rows
        // in 512 KiB.
        assert_eq!(l2(&MATMUL_IKJ, 1024, None), Some(63));
        assert_eq!(l2(&MATMUL_IKJ, 1024, Some(1000)), Some(63));
    }

    #[test]
    fn middle_loop_that_fits_in_one_tile_stays_whole() {
        assert_eq!(l2(&MATMUL_IKJ, 1024, Some(63)), None);
    }

    #[test]
    fn no_reuse_by_the_outer_loop_means_no_l2_tile() {
        // Every access walked by the middle loop moves with the outer one too.
        let stencil = [
            ("[n] -> { [t, i, j] -> A[t, i, j] }", 8),
            ("[n] -> { [t, i, j] -> A[t, i - 1, j] }", 8),
            ("[n] -> { [t, i, j] -> B[t, i, j] }", 8),
        ];
        assert_eq!(l2(&stencil, 1024, None), None);
    }

    #[test]
    fn one_middle_iteration_over_the_share_means_no_l2_tile() {
        assert_eq!(l2(&MATMUL_IKJ, 1 << 20, None), None);
    }
}
