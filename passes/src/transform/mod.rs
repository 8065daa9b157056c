//! Transformations of a region's polyhedral model, in pipeline order: expression
//! propagation, scheduling, QUOV storage remapping, tile sizes, tiling. Each stage is a
//! module of its own; so far:
//!
//! - `exprprop`: expression propagation, so far which temporaries' values could be
//!   recomputed where they are read (legality: exact single sources, the reload test);
//! - `fusion`: a pipeline's stages fused into one loop over rows, each shifted behind
//!   what it reads, so that temporaries stay in cache and fold to a few rows;
//! - `schedule`: the decision per region: isl's scheduler, the cost model's choice of the
//!   innermost loop of each permutable band, tiling, or keeping the original code;
//! - `cost`: the cost model (no skewing; no innermost loop with more strided accesses;
//!   the stride counts that make a loop order better);
//! - `sica`: SICA's tile sizes (Feld et al., IMPACT 2013): how many iterations of the
//!   vectorized loop fill a share of L1 (`q_l1`, a multiple of the SIMD width) and how many
//!   L1 blocks the outermost loop of the band groups into L2 (`q_l2`), from the number of
//!   new elements one iteration of the vectorized loop loads (counted from the access
//!   relations).
//! - `reuse`: where reuse is lost (footprints against L2) and which innermost accesses
//!   another loop order would make contiguous: whether tiling or reordering can gain;
//! - `permutable`: whether the loops that lose reuse can form a permutable band with
//!   permutations and shifts alone (no skewing), before isl's scheduler is asked;
//! - `interchange`: the original order with loops interchanged, when isl's schedule
//!   does not gain;
//! - `row_blocks`: matrix-vector passes over the same rows fused by blocks of rows, so
//!   that each block streams from memory once (dot products' chains interleaved);
//! - `row_wavefront`: an in-place sweep whose innermost loop waits for its own previous
//!   iteration (Gauss-Seidel) runs several rows' chains interleaved along a wavefront;
//! - `sweeps`: independent recurrences (a sweep along each row) interleaved, the
//!   independent loop strip-mined and its point loop innermost, so the chains overlap;
//! - `time_tiling`: iterated stencils' time steps tiled together over skewed row loops
//!   (innermost loops kept whole), where a time step's data leaves the cache;
//! - `wavefront`: under OpenMP threads, a tiled band without a parallel tile loop runs
//!   its tiles along diagonals, the tiles of one diagonal on threads;
//! - `diamond`: the wavefront's time tiles as diamonds (concurrent start) where every
//!   dependence allows a second hyperplane `a * t - y + c` (Jacobi, not Gauss-Seidel);
//! - `quov`: QUOV storage allocation: the vectors and modular mappings (the paper's rules
//!   and worked examples), and which folds of a temporary's dimensions the final
//!   schedule allows (`quov::fold`, checked exactly against it);
//! - `register_tiling`: which point loops of a tiled band are unrolled and jammed into
//!   its innermost loop, and by how much (from the target's vector registers);
//! - `traffic`: the memory traffic of a loop nest, estimated from footprints against the
//!   cache, for the original order and a tiled one (what the remarks say tiling gains);
//! - `product`: matrix products written as a dot product per element, recognised in the
//!   model and IR and replaced by the packed product (bit-exact);
//! - `closure`: the in-place all-pairs shortest-path nest (Floyd-Warshall) on ints,
//!   replaced by a blocked kernel that checks, per block of steps, that no negative
//!   cycle makes the blocking change the result;
//! - `hardware`: the machine description SICA needs (L1 and L2 data cache sizes, SIMD
//!   register width), taken from the options, the host's sysfs, the target or documented
//!   defaults, remembering where each value came from for remarks.
//!
//! Relies on the `isl` layer for everything polyhedral; no LLVM type appears here.

pub(crate) mod closure;
pub(crate) mod cost;
pub(crate) mod diamond;
pub(crate) mod exprprop;
pub(crate) mod fusion;
pub mod hardware;
pub(crate) mod interchange;
pub(crate) mod permutable;
pub(crate) mod product;
pub(crate) mod quov;
pub(crate) mod register_tiling;
pub mod reuse;
pub(crate) mod row_blocks;
pub(crate) mod row_wavefront;
pub mod schedule;
pub(crate) mod sica;
mod subject;
pub(crate) mod sweeps;
pub(crate) mod time_tiling;
pub(crate) mod traffic;
pub(crate) mod wavefront;

pub(crate) use subject::Subject;
