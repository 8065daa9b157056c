//! What the runtime keeps for one loop nest instrumented with
//! `-polyrust-instrument=accesses`: one folding [`Stream`] per site (label: the byte
//! address; none for loop headers), a [`Shadow`] of the last writer of each address,
//! and one folding stream per data-flow dependence (source site → sink site, and
//! whether the write was in an earlier entry of the nest), whose points are the
//! sink's IVs and labels the source's. IVs get the entry number as position 0.
//!
//! Relies on the descriptor having been checked ([`NestIdentity`] comes from
//! `abi::nest_descriptor`) and on being fed by one thread (the ABI layer keeps one
//! record per nest and thread): IVs of a site must increase, or its stream gives up to
//! a box. Allocation-free on the hot
//! path except when a piece or a dependence appears, or a shadow page is first used.
//!
//! With `POLYRUST_TRACE=DIR`, the record also keeps each load and store site's
//! address stream, all entries (not only the folded ones), as a compressed trace
//! (`trace::recorder`); without it, the only cost on the hot path is one test of an
//! `Option` that is always `None`.
//!
//! The paper drops the dependences of induction variables (integer instructions with
//! affine values). This ABI records no values and no register dependences: loop
//! counters are the pass's own header phis, so there is nothing of that kind to drop;
//! every memory data-flow dependence is kept. Anti and output dependences are not
//! recorded (as in the paper): renaming or privatization can remove them.

mod hasher;
mod shadow;

use crate::fold::{FoldConfig, Stream};
use crate::profile::nest::{
    distance_vector, DependenceProfile, FoldedStream, NestProfile, SiteKind, SiteProfile, MAX_DEPTH,
};
use crate::profile::static_model::{LoopFact, StaticNest};
use crate::trace::file::{
    CompressedTrace, SiteTrace, StoredPiece, TRACE_FORMAT, TRACE_FORMAT_VERSION,
};
use crate::trace::recorder::{SiteRecorder, TraceConfig};
pub use hasher::{WordHasher, WordMap};
pub use shadow::{shadow_budget, Shadow, PROCESS_SHADOW_BYTES};

/// Most dependence streams per nest; events of further ones are only counted.
pub const MAX_DEPENDENCE_STREAMS: usize = 4096;
/// Entries of a nest folded by default; later entries are only counted (they cost a
/// thread-local increment per access), which bounds the overhead of nests entered very
/// often: a k-means step entered 226 times ran about 200 times slower than plain with
/// 64 entries folded, 30 to 55 times with 8.
pub const DEFAULT_FOLD_ENTRIES: u64 = 8;
/// Events (loop iterations, loads, stores) of a nest folded by default before its
/// entries stop being folded: the first entry is always folded, until this many
/// events and two iterations of its outermost loop; a nest instrumented with a plain
/// copy (`polyrust_rt_nest_begin`) then runs the rest of the entry, and later entries,
/// in that copy. Folding costs 100 to 300 ns an event on real programs: this bounds a
/// nest's folding to about a tenth of a second however long it runs.
pub const DEFAULT_FOLD_EVENTS: u64 = 1 << 19;

/// Events folded per nest: `POLYRUST_FOLD_EVENTS` if set to a number, else
/// [`DEFAULT_FOLD_EVENTS`].
pub fn fold_events() -> u64 {
    std::env::var("POLYRUST_FOLD_EVENTS")
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(DEFAULT_FOLD_EVENTS)
}

/// Entries folded per nest: `POLYRUST_FOLD_ENTRIES` if set to a number, else
/// [`DEFAULT_FOLD_ENTRIES`].
pub fn fold_entries() -> u64 {
    std::env::var("POLYRUST_FOLD_ENTRIES")
        .ok()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(DEFAULT_FOLD_ENTRIES)
}

/// One site as its descriptor describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteInfo {
    pub kind: SiteKind,
    pub depth: u32,
    pub size: u32,
    pub line: u32,
    pub column: u32,
    pub parent_loop: Option<u32>,
    pub name: String,
}

/// Who a nest is, as its (checked) descriptor names it.
#[derive(Debug, Clone, PartialEq)]
pub struct NestIdentity {
    pub id: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub module_hash: String,
    pub modelled: bool,
    /// The thread whose executions these are (threads are numbered from 0 in the order
    /// of their first instrumented call).
    pub thread: u64,
    pub sites: Vec<SiteInfo>,
    /// What the compiler saw of the nest's loops (its descriptor's facts).
    pub facts: Vec<LoopFact>,
}

/// A dependence stream and its key.
struct DependenceRecord {
    source: u32,
    sink: u32,
    across_entries: bool,
    stream: Stream,
}

/// Everything recorded for one nest.
pub struct NestRecord {
    identity: NestIdentity,
    entries: u64,
    /// Entries past this many are only counted.
    fold_entries: u64,
    /// Past this many folded events, no new entry is folded (see [`DEFAULT_FOLD_EVENTS`]).
    fold_events: u64,
    /// Whether the current entry's events are folded.
    folding: bool,
    /// Entries folded (all or their first iterations): the first ones.
    folded_entry_count: u64,
    /// Events folded, loop iterations included.
    folded_events: u64,
    /// Loads and stores folded.
    folded_accesses: u64,
    /// Iterations of the outermost loop folded, in the current entry and in all.
    entry_outer: u64,
    outer_folded: u64,
    /// Iterations of the outermost loop the plain copy ran: their accesses are
    /// estimated from the folded ones.
    plain_outer: u64,
    unfolded_accesses: u64,
    streams: Vec<Stream>,
    shadow: Shadow,
    dependences: Vec<DependenceRecord>,
    dependence_index: WordMap<(u32, u32, bool), usize>,
    /// Per sink site, the (source, across entries, index) of its last dependence: a
    /// load mostly reads what the same store wrote.
    last_dependence: Vec<Option<(u32, bool, usize)>>,
    dependences_dropped: u64,
    /// Accesses ignored (site out of range, NULL IV).
    ignored: u64,
    /// Per site (loops included, never fed), its compressed trace, if traces are on.
    trace: Option<Vec<SiteRecorder>>,
    /// The chunk length the traces use.
    trace_chunk: usize,
}

/// Longest IV: the entry and [`MAX_DEPTH`] loops.
const MAX_POSITIONS: usize = MAX_DEPTH + 1;

impl NestRecord {
    /// A record folding the first `fold_entries` entries of the nest.
    pub fn new(
        identity: NestIdentity,
        config: FoldConfig,
        shadow: Shadow,
        fold_entries: u64,
    ) -> NestRecord {
        let identity_sites = identity.sites.len();
        let streams = identity
            .sites
            .iter()
            .map(|site| {
                let outputs = usize::from(site.kind != SiteKind::Loop);
                Stream::new(site.depth as usize + 1, outputs, config)
            })
            .collect();
        NestRecord {
            identity,
            entries: 0,
            fold_entries,
            fold_events: DEFAULT_FOLD_EVENTS,
            folding: false,
            folded_entry_count: 0,
            folded_events: 0,
            folded_accesses: 0,
            entry_outer: 0,
            outer_folded: 0,
            plain_outer: 0,
            unfolded_accesses: 0,
            streams,
            shadow,
            dependences: Vec::new(),
            dependence_index: WordMap::default(),
            last_dependence: vec![None; identity_sites],
            dependences_dropped: 0,
            ignored: 0,
            trace: None,
            trace_chunk: 0,
        }
    }

    /// The same record, folding no new entry past `events` folded events.
    pub fn with_fold_events(mut self, events: u64) -> NestRecord {
        self.fold_events = events;
        self
    }

    /// The same record, also keeping the compressed trace of every load and store.
    pub fn with_trace(mut self, config: TraceConfig) -> NestRecord {
        self.trace = Some(
            self.identity
                .sites
                .iter()
                .map(|_| SiteRecorder::new(config))
                .collect(),
        );
        self.trace_chunk = config.chunk;
        self
    }

    /// Positions a shadow needs for this nest's IVs.
    pub fn positions(identity: &NestIdentity) -> usize {
        1 + identity
            .sites
            .iter()
            .map(|s| s.depth as usize)
            .max()
            .unwrap_or(0)
    }

    pub fn identity(&self) -> &NestIdentity {
        &self.identity
    }

    pub fn enter(&mut self) {
        self.entries = self.entries.saturating_add(1);
        self.folding = self.trace.is_some()
            || (self.entries <= self.fold_entries
                && (self.entries == 1 || self.folded_events < self.fold_events));
        if self.folding {
            self.folded_entry_count += 1;
        }
        self.entry_outer = 0;
    }

    /// Whether the current entry's accesses are folded (or traced): if not, they are
    /// only counted, which the ABI layer does without the lock ([`Self::count_unfolded`]),
    /// or not even seen (the plain copy runs them).
    pub fn records_current_entry(&self) -> bool {
        self.folding
    }

    /// Whether the rest of the current entry, from the next iteration of the outermost
    /// loop, is to run in the nest's plain copy: the nest has folded its budget of
    /// events, and at least two outermost iterations of this entry (so that a
    /// dependence the outermost loop carries to the next iteration is seen). Stops
    /// the folding if so. Never while traces are recorded (they keep every access).
    pub fn leaves_for_plain(&mut self) -> bool {
        if self.trace.is_some() || !self.folding {
            return false;
        }
        if self.folded_events >= self.fold_events && self.entry_outer >= 2 {
            self.folding = false;
            return true;
        }
        false
    }

    /// Adds `iterations` iterations of the outermost loop the plain copy ran.
    pub fn count_plain(&mut self, iterations: u64) {
        self.plain_outer = self.plain_outer.saturating_add(iterations);
    }

    /// The loads and stores of the plain copy's iterations, at the folded ones' mean.
    fn estimated_plain_accesses(&self) -> u64 {
        if self.outer_folded == 0 {
            return 0;
        }
        let estimate = u128::from(self.plain_outer) * u128::from(self.folded_accesses)
            / u128::from(self.outer_folded);
        u64::try_from(estimate).unwrap_or(u64::MAX)
    }

    /// Adds `accesses` loads and stores of entries that are not folded.
    pub fn count_unfolded(&mut self, accesses: u64) {
        self.unfolded_accesses = self.unfolded_accesses.saturating_add(accesses);
    }

    /// Records one execution of `site` at loop counters `iv` (the site's depth of them)
    /// touching `address`.
    pub fn access(&mut self, site: u32, iv: &[i64], address: u64) {
        let Some(info) = self.identity.sites.get(site as usize) else {
            self.ignored += 1;
            return;
        };
        if let Some(trace) = self.trace.as_mut() {
            if info.kind != SiteKind::Loop {
                trace[site as usize].push(address as i64);
            }
        }
        if !self.folding {
            if info.kind != SiteKind::Loop {
                self.unfolded_accesses = self.unfolded_accesses.saturating_add(1);
            }
            return;
        }
        let depth = info.depth as usize;
        if iv.len() != depth {
            self.ignored += 1;
            return;
        }
        let mut point = [0i64; MAX_POSITIONS];
        point[0] = self.entries.saturating_sub(1) as i64;
        point[1..=depth].copy_from_slice(iv);
        let point = &point[..=depth];
        let (kind, size) = (info.kind, info.size);
        self.folded_events += 1;
        if kind != SiteKind::Loop {
            self.folded_accesses += 1;
        } else if depth == 1 {
            self.entry_outer += 1;
            self.outer_folded += 1;
        }
        match kind {
            SiteKind::Loop => self.streams[site as usize].push(point, &[]),
            SiteKind::Load => {
                self.streams[site as usize].push(point, &[i128::from(address)]);
                self.record_reads(site, point, address, size);
            }
            SiteKind::Store => {
                self.streams[site as usize].push(point, &[i128::from(address)]);
                self.shadow.store(address, size, site, point);
            }
        }
    }

    /// One dependence event per distinct last writer of the bytes read.
    fn record_reads(&mut self, sink: u32, point: &[i64], address: u64, size: u32) {
        let NestRecord {
            identity,
            shadow,
            dependences,
            dependence_index,
            last_dependence,
            dependences_dropped,
            ..
        } = self;
        shadow.load(address, size, |writer| {
            let Some(source) = identity.sites.get(writer.site as usize) else {
                return;
            };
            let positions = source.depth as usize + 1;
            let mut labels = [0i128; MAX_POSITIONS];
            for (label, &x) in labels.iter_mut().zip(&writer.iv[..positions]) {
                *label = i128::from(x);
            }
            let across_entries = writer.iv[0] != point[0];
            let cached = last_dependence.get(sink as usize).copied().flatten();
            let key = (writer.site, sink, across_entries);
            let index = match cached {
                Some((source, across, index))
                    if (source, across) == (writer.site, across_entries) =>
                {
                    index
                }
                _ => match dependence_index.get(&key) {
                    Some(&index) => index,
                    None if dependences.len() < MAX_DEPENDENCE_STREAMS => {
                        dependences.push(DependenceRecord {
                            source: writer.site,
                            sink,
                            across_entries,
                            stream: Stream::new(point.len(), positions, FoldConfig::default())
                                .tracking_offsets(),
                        });
                        dependence_index.insert(key, dependences.len() - 1);
                        dependences.len() - 1
                    }
                    None => {
                        *dependences_dropped += 1;
                        return;
                    }
                },
            };
            if let Some(slot) = last_dependence.get_mut(sink as usize) {
                *slot = Some((writer.site, across_entries, index));
            }
            dependences[index].stream.push(point, &labels[..positions]);
        });
    }

    /// Number of IV positions two sites share: the entry and their common loops.
    fn common_positions(&self, profile: &NestProfile, a: u32, b: u32) -> usize {
        let (a, b) = (
            profile.loops_around(a as usize),
            profile.loops_around(b as usize),
        );
        1 + a.iter().zip(&b).take_while(|(x, y)| x == y).count()
    }

    /// The compressed trace of every load and store site, if traces are on. Models
    /// what the chunks hold now; recording may go on afterwards.
    pub fn compressed_trace(&mut self) -> Option<CompressedTrace> {
        let recorders = self.trace.as_mut()?;
        let identity = &self.identity;
        let sites = identity
            .sites
            .iter()
            .zip(recorders.iter_mut())
            .enumerate()
            .filter(|(_, (info, _))| info.kind != SiteKind::Loop)
            .map(|(index, (info, recorder))| {
                recorder.flush();
                SiteTrace {
                    site: index as u32,
                    kind: info.kind,
                    size: info.size,
                    line: info.line,
                    column: info.column,
                    name: info.name.clone(),
                    accesses: recorder.recorded(),
                    dropped: recorder.dropped(),
                    truncated: recorder.is_truncated(),
                    search_budget_hit: recorder.search_budget_hit(),
                    chunks: recorder.chunks(),
                    pieces: recorder
                        .pieces()
                        .iter()
                        .map(StoredPiece::from_piece)
                        .collect(),
                }
            })
            .collect();
        Some(CompressedTrace {
            format: TRACE_FORMAT.into(),
            version: TRACE_FORMAT_VERSION,
            nest: identity.id.clone(),
            function: identity.function.clone(),
            file: identity.file.clone(),
            line: identity.line,
            module_hash: identity.module_hash.clone(),
            modelled: identity.modelled,
            thread: identity.thread,
            entries: self.entries,
            chunk: self.trace_chunk as u64,
            sites,
        })
    }

    /// The compiler's facts about the nest's loops, for the profile's static section
    /// (`None` without any).
    pub fn static_nest(&self) -> Option<StaticNest> {
        let identity = &self.identity;
        (!identity.facts.is_empty()).then(|| StaticNest {
            id: identity.id.clone(),
            module_hash: identity.module_hash.clone(),
            facts: identity.facts.clone(),
        })
    }

    /// What this nest has recorded, folded as if the run ended now.
    pub fn profile(&self) -> NestProfile {
        let identity = &self.identity;
        let sites = identity
            .sites
            .iter()
            .zip(&self.streams)
            .map(|(site, stream)| {
                let stream = FoldedStream::from_folded(&stream.folded());
                let strides = if site.kind == SiteKind::Loop {
                    Vec::new()
                } else {
                    stream.common_coefficients(0, site.depth as usize + 1)
                };
                SiteProfile {
                    kind: site.kind,
                    depth: site.depth,
                    size: site.size,
                    line: site.line,
                    column: site.column,
                    parent_loop: site.parent_loop,
                    name: site.name.clone(),
                    stream,
                    strides,
                }
            })
            .collect();
        let mut profile = NestProfile {
            id: identity.id.clone(),
            function: identity.function.clone(),
            file: identity.file.clone(),
            line: identity.line,
            module_hash: identity.module_hash.clone(),
            modelled: identity.modelled,
            thread: identity.thread,
            entries: self.entries,
            folded_entries: self.folded_entry_count,
            unfolded_accesses: self
                .unfolded_accesses
                .saturating_add(self.estimated_plain_accesses()),
            plain_iterations: self.plain_outer,
            sites,
            dependences: Vec::new(),
            shadow_full: self.shadow.is_full(),
            dependences_dropped: self.dependences_dropped,
        };
        let mut dependences: Vec<DependenceProfile> = self
            .dependences
            .iter()
            .map(|dependence| {
                let common = self.common_positions(&profile, dependence.source, dependence.sink);
                let folded = dependence.stream.folded();
                let stream = FoldedStream::from_folded(&folded);
                // A component the same on every point is exact in every piece, even one
                // whose labels were widened to ⊤ or the box of a stream that gave up.
                let exact = |q: usize| {
                    folded
                        .offsets
                        .get(q)
                        .copied()
                        .flatten()
                        .and_then(|d| i64::try_from(d).ok())
                };
                let distances = stream
                    .pieces
                    .iter()
                    .map(|piece| {
                        let mut distance = distance_vector(piece, common);
                        for (q, component) in distance.iter_mut().enumerate() {
                            *component = component.or_else(|| exact(q));
                        }
                        distance
                    })
                    .collect();
                DependenceProfile {
                    source: dependence.source,
                    sink: dependence.sink,
                    across_entries: dependence.across_entries,
                    common: common as u32,
                    stream,
                    distances,
                }
            })
            .collect();
        dependences.sort_by_key(|d| (d.source, d.sink, d.across_entries));
        profile.dependences = dependences;
        profile
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn site(kind: SiteKind, depth: u32, parent_loop: Option<u32>, name: &str) -> SiteInfo {
        SiteInfo {
            kind,
            depth,
            size: 8,
            line: 0,
            column: 0,
            parent_loop,
            name: name.into(),
        }
    }

    /// A nest record of `function` (file r.c, line 1) with these sites, folding its
    /// first `folded` entries, its shadow memory counted in `pool`.
    fn test_nest(
        function: &str,
        sites: Vec<SiteInfo>,
        folded: u64,
        pool: &'static AtomicUsize,
    ) -> NestRecord {
        let identity = NestIdentity {
            id: format!("{function}:1:ab"),
            function: function.into(),
            file: "r.c".into(),
            line: 1,
            module_hash: "ab".into(),
            modelled: false,
            thread: 0,
            sites,
            facts: Vec::new(),
        };
        let positions = NestRecord::positions(&identity);
        NestRecord::new(
            identity,
            FoldConfig::default(),
            Shadow::new(positions, usize::MAX, pool),
            folded,
        )
    }

    /// `for i < 4: for k < 5: s[i] += a[i][k]`, sites: loops i, k; load s, load a,
    /// store s.
    #[test]
    fn a_row_sum_has_a_dependence_carried_by_k_with_distance_1() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let mut nest = test_nest(
            "rowsum",
            vec![
                site(SiteKind::Loop, 1, None, "i"),
                site(SiteKind::Loop, 2, Some(0), "k"),
                site(SiteKind::Load, 2, Some(1), "s"),
                site(SiteKind::Load, 2, Some(1), "a"),
                site(SiteKind::Store, 2, Some(1), "s"),
            ],
            2,
            &POOL,
        );
        let (s, a) = (0x1000u64, 0x8000u64);
        // Three entries, two folded: the third is only counted.
        for _ in 0..3 {
            nest.enter();
            for i in 0..4i64 {
                nest.access(0, &[i], 0);
                for k in 0..5i64 {
                    nest.access(1, &[i, k], 0);
                    nest.access(2, &[i, k], s + 8 * i as u64);
                    nest.access(3, &[i, k], a + 40 * i as u64 + 8 * k as u64);
                    nest.access(4, &[i, k], s + 8 * i as u64);
                }
            }
        }
        let profile = nest.profile();
        assert_eq!((profile.entries, profile.folded_entries), (3, 2));
        assert_eq!(profile.unfolded_accesses, 4 * 5 * 3);
        assert_eq!(profile.access_events(), 3 * 4 * 5 * 3);
        let load_a = &profile.sites[3];
        assert_eq!(load_a.stream.pieces.len(), 1);
        assert_eq!(load_a.strides, vec![Some(0), Some(40), Some(8)]);
        let within: Vec<_> = profile
            .dependences
            .iter()
            .filter(|d| !d.across_entries)
            .collect();
        assert_eq!(within.len(), 1);
        assert_eq!(
            (within[0].source, within[0].sink, within[0].common),
            (4, 2, 3)
        );
        assert_eq!(within[0].distances, vec![vec![Some(0), Some(0), Some(1)]]);
        assert_eq!(within[0].stream.events, 2 * 4 * 4);
        // k = 0 of the second entry reads what the first entry wrote last.
        let across: Vec<_> = profile
            .dependences
            .iter()
            .filter(|d| d.across_entries)
            .collect();
        assert_eq!(across.len(), 1);
        assert_eq!(across[0].stream.events, 4);
        assert_eq!(across[0].distances[0][0], Some(1));
        assert_eq!(profile.validate(), Ok(()));
    }

    /// `for i < 10: for k < 5: load a[i][k]` entered twice, with a budget of 20
    /// events: the first entry is folded for two outermost iterations (22 events),
    /// then goes to the plain copy; the second runs there whole. The accesses of the
    /// plain copy's 18 iterations are estimated at the folded ones' 5 per iteration.
    #[test]
    fn past_its_budget_a_nest_runs_its_plain_copy_and_its_accesses_are_estimated() {
        static POOL: AtomicUsize = AtomicUsize::new(0);
        let mut nest = test_nest(
            "rows",
            vec![
                site(SiteKind::Loop, 1, None, "i"),
                site(SiteKind::Loop, 2, Some(0), "k"),
                site(SiteKind::Load, 2, Some(1), "a"),
            ],
            8,
            &POOL,
        )
        .with_fold_events(20);
        nest.enter();
        assert!(nest.records_current_entry());
        let mut folded_rows = 0;
        for i in 0..10i64 {
            if i > 0 && nest.leaves_for_plain() {
                nest.count_plain(10 - i as u64);
                break;
            }
            folded_rows += 1;
            nest.access(0, &[i], 0);
            for k in 0..5i64 {
                nest.access(1, &[i, k], 0);
                nest.access(2, &[i, k], 0x8000 + 40 * i as u64 + 8 * k as u64);
            }
        }
        assert_eq!(folded_rows, 2);
        // Once it has left, the entry stays in the plain copy.
        assert!(!nest.leaves_for_plain());
        nest.enter();
        assert!(!nest.records_current_entry());
        nest.count_plain(10);
        let profile = nest.profile();
        assert_eq!((profile.entries, profile.folded_entries), (2, 1));
        assert_eq!(profile.sites[2].stream.events, 10);
        assert_eq!(
            (profile.unfolded_accesses, profile.plain_iterations),
            (90, 18)
        );
        assert_eq!(profile.validate(), Ok(()));
    }
}
