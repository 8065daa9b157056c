//! Recording one site's address stream as a compressed trace while the program runs
//! (`POLYRUST_TRACE=DIR`): addresses are buffered in chunks, and a full chunk is
//! modelled by [`synthesize`](super::synthesize) at once; only its pieces are kept.
//! Adjacent literal pieces of two chunks are joined; nests are not (a nest cut by a
//! chunk boundary stays two pieces: merging them would need the search to resume
//! from a finished nest).
//!
//! Memory is bounded whatever the trace length: every site of the process draws on
//! one pool ([`PROCESS_TRACE_BYTES`], capped by [`trace_budget`]) for its buffer and
//! for the pieces it keeps. A buffer grows (doubling, up to a chunk) only while the
//! pool allows; otherwise the site models what its buffer holds and reuses it. Once
//! the pieces kept take the pool past its cap (streams without structure keep their
//! addresses as literals), a site records nothing more: its trace is the exact prefix
//! of its stream it recorded, marked truncated, with the number of addresses dropped.
//!
//! Measured (2 shared cores): recording and modelling run at 146 M accesses/s on a
//! matmul's `B[k][j]` (n = 256: 17 chunks, 17 nests, 1.6 KB) and 50 M/s on a matmul
//! tiled by 32 (`A[i][k]`, n = 250: 16 nests, 4.4 KB), by `cargo test --release -p
//! polyrust-runtime --lib recording_rate -- --ignored --nocapture`; whole runs with
//! `scripts/trace-record-bench` (matmul, Cholesky, a 2-D stencil, the tiled matmul):
//! models 340 to 5500 times smaller than `gzip -9` of the text traces and 28 to 109
//! times smaller than `xz -9`, a traced run 0.99 to 1.39 times the accesses-only one.
//!
//! Relies on being fed by one thread (the ABI keeps one record per nest and thread,
//! under its lock); modelling a chunk runs in the thread whose access filled it, while
//! that lock is held.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{synthesize, Limits, Piece};

/// Addresses per chunk unless `POLYRUST_TRACE_CHUNK` says otherwise: 8 MiB of buffer
/// per busy site, and a chunk long enough that its pieces are few.
pub const DEFAULT_CHUNK: usize = 1 << 20;
/// Smallest chunk `POLYRUST_TRACE_CHUNK` may ask for.
pub const MIN_CHUNK: usize = 1 << 6;
/// Default of `POLYRUST_TRACE_MB`.
pub const DEFAULT_TRACE_MB: usize = 256;
/// First capacity of a buffer (addresses).
const FIRST_CAPACITY: usize = 1 << 10;

/// Bytes of buffers and kept pieces of every recorded site of the process.
pub static PROCESS_TRACE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The folder `POLYRUST_TRACE` names, if set and not empty: traces are recorded.
pub fn trace_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("POLYRUST_TRACE")
        .filter(|dir| !dir.is_empty())
        .map(std::path::PathBuf::from)
}

/// Bytes all traces of the process may take: `POLYRUST_TRACE_MB` (MiB) if set to a
/// number, else [`DEFAULT_TRACE_MB`].
pub fn trace_budget() -> usize {
    std::env::var("POLYRUST_TRACE_MB")
        .ok()
        .and_then(|mb| mb.trim().parse::<usize>().ok())
        .unwrap_or(DEFAULT_TRACE_MB)
        .saturating_mul(1 << 20)
}

/// Addresses per chunk: `POLYRUST_TRACE_CHUNK` if set to a number (at least
/// [`MIN_CHUNK`]), else [`DEFAULT_CHUNK`].
pub fn trace_chunk() -> usize {
    std::env::var("POLYRUST_TRACE_CHUNK")
        .ok()
        .and_then(|n| n.trim().parse::<usize>().ok())
        .map_or(DEFAULT_CHUNK, |n| n.max(MIN_CHUNK))
}

/// How the sites of a process record: chunk length and the shared memory pool.
#[derive(Clone, Copy, Debug)]
pub struct TraceConfig {
    pub chunk: usize,
    /// Cap of `pool`, in bytes.
    pub budget: usize,
    pub pool: &'static AtomicUsize,
    pub limits: Limits,
}

impl TraceConfig {
    /// The configuration the environment asks for, on [`PROCESS_TRACE_BYTES`].
    pub fn from_environment() -> TraceConfig {
        TraceConfig {
            chunk: trace_chunk(),
            budget: trace_budget(),
            pool: &PROCESS_TRACE_BYTES,
            limits: Limits::default(),
        }
    }

    /// Takes `bytes` from the pool if that keeps it within the cap.
    fn reserve(&self, bytes: usize) -> bool {
        let mut used = self.pool.load(Ordering::Relaxed);
        loop {
            let Some(after) = used
                .checked_add(bytes)
                .filter(|&after| after <= self.budget)
            else {
                return false;
            };
            match self
                .pool
                .compare_exchange_weak(used, after, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => used = now,
            }
        }
    }

    /// Takes `bytes` from the pool whatever the cap; returns whether the pool is still
    /// within it.
    fn charge(&self, bytes: usize) -> bool {
        self.pool.fetch_add(bytes, Ordering::Relaxed) + bytes <= self.budget
    }

    fn release(&self, bytes: usize) {
        self.pool.fetch_sub(bytes, Ordering::Relaxed);
    }
}

/// Memory a kept piece takes (what is charged to the pool for it).
fn piece_bytes(piece: &Piece) -> usize {
    match piece {
        Piece::Nest(nest) => {
            let faces: usize = (0..nest.depth())
                .map(|level| nest.faces(level).len() + nest.lower_faces(level).len() + 1)
                .sum();
            std::mem::size_of::<Piece>() + faces * std::mem::size_of::<super::Face>()
        }
        Piece::Literal(addresses) => std::mem::size_of::<Piece>() + 8 * addresses.len(),
    }
}

/// How many addresses at the end of a chunk's model to model again with the next
/// chunk, at most `limit`; the last piece is cut (or dropped) accordingly.
///
/// A chunk boundary falls anywhere in a loop nest, and a search that starts in the
/// middle of a tile is slow and needs extra pieces (matmul tiled by 32 with n = 250:
/// 0.8 M accesses/s and two literal pieces without this). So the last nest stops at the
/// start of the last iteration of its outermost level whose last iteration holds at
/// most `limit` addresses, and the next chunk starts there, at the beginning of an
/// iteration. A last literal piece of at most `limit` addresses goes back whole. At
/// least half of each chunk is kept, so each address is modelled at most twice.
fn carried(pieces: &mut Vec<Piece>, limit: usize) -> usize {
    let several = pieces.len() > 1;
    match pieces.last_mut() {
        Some(Piece::Literal(addresses)) if addresses.len() <= limit && several => {
            let carried = addresses.len();
            pieces.pop();
            carried
        }
        Some(Piece::Nest(nest)) => {
            let starts = nest.last_iteration_starts();
            let count = nest.count();
            let cut = starts[..nest.depth()]
                .iter()
                .copied()
                .find(|&start| start > 0 && count - start <= limit as u64);
            match cut {
                Some(start) => {
                    nest.count = start;
                    (count - start) as usize
                }
                None => 0,
            }
        }
        _ => 0,
    }
}

/// The compressed trace of one site being recorded.
pub struct SiteRecorder {
    config: TraceConfig,
    buffer: Vec<i64>,
    pieces: Vec<Piece>,
    /// Addresses recorded (modelled or buffered).
    recorded: u64,
    /// Addresses not recorded once the pool was exhausted.
    dropped: u64,
    truncated: bool,
    /// Some chunk's search ran out of budget (a shallower nest may exist).
    search_budget_hit: bool,
    chunks: u64,
    /// Bytes charged to the pool for the buffer, and for the pieces.
    buffer_bytes: usize,
    pieces_bytes: usize,
}

impl SiteRecorder {
    pub fn new(config: TraceConfig) -> SiteRecorder {
        SiteRecorder {
            config,
            buffer: Vec::new(),
            pieces: Vec::new(),
            recorded: 0,
            dropped: 0,
            truncated: false,
            search_budget_hit: false,
            chunks: 0,
            buffer_bytes: 0,
            pieces_bytes: 0,
        }
    }

    /// Records the next address of the stream.
    #[inline]
    pub fn push(&mut self, address: i64) {
        if self.buffer.len() < self.buffer.capacity() {
            self.buffer.push(address);
            self.recorded += 1;
        } else {
            self.push_into_full_buffer(address);
        }
    }

    #[cold]
    fn push_into_full_buffer(&mut self, address: i64) {
        if self.truncated {
            self.dropped += 1;
            return;
        }
        let capacity = self.buffer.capacity();
        let wanted = if capacity == 0 {
            FIRST_CAPACITY.min(self.config.chunk)
        } else {
            (2 * capacity).min(self.config.chunk)
        };
        let grow = wanted > capacity && self.config.reserve(8 * (wanted - capacity));
        if grow {
            // `reserve_exact` makes the capacity exactly `wanted`, what was charged.
            self.buffer.reserve_exact(wanted - self.buffer.len());
            self.buffer_bytes += 8 * (wanted - capacity);
        } else if !self.buffer.is_empty() {
            self.model_buffer(true);
        }
        if self.truncated || self.buffer.len() == self.buffer.capacity() {
            // No buffer at all (the pool was exhausted before this site's first
            // address), or the pieces just kept exhausted it.
            self.truncate();
            self.dropped += 1;
            return;
        }
        self.buffer.push(address);
        self.recorded += 1;
    }

    /// Models the buffered addresses and keeps their pieces. With `carry` (a full
    /// chunk, more addresses to come), the end of the last piece goes back into the
    /// buffer, to be modelled with what follows (see [`carried`]); else the buffer is
    /// then empty.
    fn model_buffer(&mut self, carry: bool) {
        let Ok(mut model) = synthesize(&self.buffer, &self.config.limits) else {
            return;
        };
        let carried = if carry {
            carried(&mut model.pieces, self.buffer.len() / 2)
        } else {
            0
        };
        let kept = self.buffer.len() - carried;
        self.buffer.drain(..kept);
        self.chunks += 1;
        self.search_budget_hit |= model.budget_hit;
        let mut within = true;
        for piece in model.pieces {
            let bytes = piece_bytes(&piece);
            self.pieces_bytes += bytes;
            within &= self.config.charge(bytes);
            match (self.pieces.last_mut(), piece) {
                (Some(Piece::Literal(kept)), Piece::Literal(more)) => kept.extend(more),
                (_, piece) => self.pieces.push(piece),
            }
        }
        if !within {
            self.truncate();
        }
    }

    /// Stops recording: frees the buffer (already modelled) and drops what follows.
    fn truncate(&mut self) {
        self.truncated = true;
        self.free_buffer();
    }

    fn free_buffer(&mut self) {
        self.config.release(self.buffer_bytes);
        self.buffer_bytes = 0;
        self.buffer = Vec::new();
    }

    /// Models what the buffer holds now, so that [`SiteRecorder::pieces`] covers every
    /// address recorded; recording may go on afterwards (in a fresh chunk).
    pub fn flush(&mut self) {
        if !self.buffer.is_empty() {
            self.model_buffer(false);
        }
    }

    /// The pieces kept so far (call [`SiteRecorder::flush`] first for all of them).
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    pub fn recorded(&self) -> u64 {
        self.recorded
    }

    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Whether addresses were dropped past the memory cap (the trace is a prefix).
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    pub fn search_budget_hit(&self) -> bool {
        self.search_budget_hit
    }

    /// Chunks modelled so far.
    pub fn chunks(&self) -> u64 {
        self.chunks
    }
}

impl Drop for SiteRecorder {
    fn drop(&mut self) {
        self.config.release(self.buffer_bytes + self.pieces_bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Model;

    fn config(chunk: usize, budget: usize, pool: &'static AtomicUsize) -> TraceConfig {
        TraceConfig {
            chunk,
            budget,
            pool,
            limits: Limits::default(),
        }
    }

    fn regenerated(recorder: &SiteRecorder) -> Vec<i64> {
        let model = Model {
            pieces: recorder.pieces().to_vec(),
            budget_hit: false,
        };
        model.generate().collect()
    }

    /// `for r < 3: for i < 40: for j <= i: A[i][j]` over a 40×40 array of doubles.
    fn triangle_sweeps() -> Vec<i64> {
        let mut trace = Vec::new();
        for _ in 0..3 {
            for i in 0..40i64 {
                for j in 0..=i {
                    trace.push(0x10000 + 320 * i + 8 * j);
                }
            }
        }
        trace
    }

    #[test]
    fn a_stream_longer_than_a_chunk_regenerates_exactly() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let trace = triangle_sweeps();
        let mut recorder = SiteRecorder::new(config(1000, usize::MAX, &POOL));
        for &address in &trace {
            recorder.push(address);
        }
        recorder.flush();
        assert_eq!(recorder.chunks(), trace.len().div_ceil(1000) as u64);
        assert_eq!(recorder.recorded(), trace.len() as u64);
        assert!(!recorder.is_truncated());
        assert_eq!(regenerated(&recorder), trace);
        assert!(
            recorder
                .pieces()
                .iter()
                .all(|p| matches!(p, Piece::Nest(_))),
            "every chunk of a triangle is nests: {:?}",
            recorder.pieces()
        );
        // A flush in the middle starts a new chunk; recording goes on.
        recorder.push(7);
        recorder.flush();
        assert_eq!(regenerated(&recorder).last(), Some(&7));
    }

    #[test]
    fn one_chunk_holding_the_whole_stream_is_one_nest() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let trace = triangle_sweeps();
        let mut recorder = SiteRecorder::new(config(DEFAULT_CHUNK, usize::MAX, &POOL));
        for &address in &trace {
            recorder.push(address);
        }
        recorder.flush();
        assert_eq!(recorder.chunks(), 1);
        assert_eq!(recorder.pieces().len(), 1);
        assert_eq!(regenerated(&recorder), trace);
    }

    #[test]
    fn the_memory_cap_truncates_a_stream_without_structure() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        // Squares: no nest, so every chunk is kept as literal addresses.
        let trace: Vec<i64> = (0..20_000i64).map(|k| k * k).collect();
        let budget = 64 << 10;
        let mut recorder = SiteRecorder::new(config(1 << 10, budget, &POOL));
        for &address in &trace {
            recorder.push(address);
        }
        recorder.flush();
        assert!(recorder.is_truncated());
        let kept = regenerated(&recorder);
        assert_eq!(kept.len() as u64, recorder.recorded());
        assert_eq!(recorder.recorded() + recorder.dropped(), trace.len() as u64);
        assert_eq!(kept, trace[..kept.len()], "the trace is an exact prefix");
        // The pool went past the cap by at most the chunk that crossed it.
        assert!(POOL.load(Ordering::Relaxed) <= budget + 8 * (1 << 10) + 64);
        assert!(recorder.dropped() > 10_000);
        drop(recorder);
        assert_eq!(
            POOL.load(Ordering::Relaxed),
            0,
            "dropping gives it all back"
        );
    }

    #[test]
    fn an_exhausted_pool_records_nothing_and_says_so() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let mut recorder = SiteRecorder::new(config(1 << 10, 0, &POOL));
        recorder.push(8);
        recorder.push(16);
        recorder.flush();
        assert!(recorder.is_truncated());
        assert_eq!((recorder.recorded(), recorder.dropped()), (0, 2));
        assert!(recorder.pieces().is_empty());
    }

    #[test]
    fn a_small_pool_models_smaller_chunks_instead_of_growing() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let trace = triangle_sweeps();
        // Room for a buffer of 1024 addresses and the nests, not for a larger buffer.
        let mut recorder = SiteRecorder::new(config(1 << 16, 8 * 1024 + 4096, &POOL));
        for &address in &trace {
            recorder.push(address);
        }
        recorder.flush();
        assert!(!recorder.is_truncated());
        assert!(recorder.chunks() >= 2, "{}", recorder.chunks());
        assert_eq!(regenerated(&recorder), trace);
    }

    /// `B[k][j]` of `C += A·B` in i, j, k order, or with `tile`, `A[i][k]` of the
    /// matmul tiled by `tile` in i, j, k (the traces of scripts/trace-bench).
    fn matmul_stream(n: i64, tile: Option<i64>) -> Vec<i64> {
        let mut trace = Vec::with_capacity((n * n * n) as usize);
        let base = 0x7f00_0000_0000i64;
        match tile {
            None => {
                for _i in 0..n {
                    for j in 0..n {
                        for k in 0..n {
                            trace.push(base + 8 * (k * n + j));
                        }
                    }
                }
            }
            Some(t) => {
                for it in (0..n).step_by(t as usize) {
                    for jt in (0..n).step_by(t as usize) {
                        for kt in (0..n).step_by(t as usize) {
                            for i in it..(it + t).min(n) {
                                for _j in jt..(jt + t).min(n) {
                                    for k in kt..(kt + t).min(n) {
                                        trace.push(base + 8 * (i * n + k));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        trace
    }

    #[test]
    fn a_chunk_boundary_inside_a_tile_restarts_at_an_iteration() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        // 64 000 accesses of a matmul tiled by 8 at n = 40, in chunks of 2^13: each
        // boundary falls inside a tile.
        let trace = matmul_stream(40, Some(8));
        let mut recorder = SiteRecorder::new(config(1 << 13, usize::MAX, &POOL));
        for &address in &trace {
            recorder.push(address);
        }
        recorder.flush();
        assert_eq!(regenerated(&recorder), trace);
        assert!(recorder.chunks() >= 8, "{}", recorder.chunks());
        assert!(
            recorder
                .pieces()
                .iter()
                .all(|p| matches!(p, Piece::Nest(_))),
            "{:?}",
            recorder.pieces()
        );
        assert_eq!(
            recorder.pieces().len() as u64,
            recorder.chunks(),
            "a nest per chunk"
        );
    }

    /// The rate of recording and modelling, chunk by chunk as the runtime does.
    #[test]
    #[ignore = "times the recorder; run with --ignored --nocapture"]
    fn recording_rate_of_matmul_streams() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        for (n, tile) in [(256, None), (250, Some(32)), (120, Some(32))] {
            let trace = matmul_stream(n, tile);
            let started = std::time::Instant::now();
            let mut recorder = SiteRecorder::new(config(DEFAULT_CHUNK, usize::MAX, &POOL));
            for &address in &trace {
                recorder.push(address);
            }
            recorder.flush();
            let seconds = started.elapsed().as_secs_f64();
            assert_eq!(regenerated(&recorder), trace);
            let model = Model {
                pieces: recorder.pieces().to_vec(),
                budget_hit: false,
            };
            println!(
                "matmul n = {n}{}: {} accesses in {} chunks, {} pieces ({} nests), model {} bytes \
                 ({:.0}x smaller than 8 bytes per address), {:.1} M accesses/s",
                tile.map_or(String::new(), |t| format!(" tiled by {t}")),
                trace.len(),
                recorder.chunks(),
                model.pieces.len(),
                model.nests().count(),
                model.encoded_len(),
                8.0 * trace.len() as f64 / model.encoded_len() as f64,
                trace.len() as f64 / seconds / 1e6
            );
        }
    }
}
