//! All nests of the process instrumented with `-polyrust-instrument=accesses`, keyed by
//! the address of their descriptor (one constant per nest) and the thread running them,
//! with the last one used cached: consecutive accesses almost always belong to the same
//! nest. Each thread's executions of a nest are folded apart (their iteration vectors
//! interleave otherwise), so a nest run by several threads appears once per thread in
//! the profile, and dependences between threads are not seen. A descriptor that breaks
//! the ABI is remembered as refused (checked once per thread, not per access) and
//! reported when the profile is written.

use std::sync::atomic::{AtomicU64, Ordering};

use super::nest_descriptor::NestDescriptor;
use crate::accesses::{
    fold_entries, fold_events, shadow_budget, NestRecord, Shadow, WordMap, PROCESS_SHADOW_BYTES,
};
use crate::fold::FoldConfig;
use crate::profile::static_model::StaticNest;
use crate::profile::{NestProfile, MAX_REGIONS};
use crate::trace::file::trace_file_name;
use crate::trace::recorder::{trace_dir, TraceConfig};

/// Threads are numbered in the order of their first instrumented call.
static NEXT_THREAD: AtomicU64 = AtomicU64::new(0);

thread_local! {
    static THREAD: u64 = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
}

/// This thread's number (`u64::MAX` while the thread is being torn down).
fn thread_number() -> u64 {
    THREAD.try_with(|thread| *thread).unwrap_or(u64::MAX)
}

#[derive(Default)]
pub(crate) struct NestRecorder {
    /// (descriptor address, thread) → index into `nests`, or `None` if refused.
    index: WordMap<(usize, u64), Option<usize>>,
    nests: Vec<NestRecord>,
    /// ((descriptor address, thread), index) of the last nest used.
    last: Option<((usize, u64), usize)>,
    /// Refused descriptors: id (or address) and why.
    refused: Vec<String>,
    default_path: Option<String>,
    budget: Option<usize>,
    fold_entries: Option<u64>,
    fold_events: Option<u64>,
    /// `POLYRUST_TRACE`'s folder and the trace configuration, read at the first nest.
    trace: Option<Option<(std::path::PathBuf, TraceConfig)>>,
}

impl NestRecorder {
    /// The record of `nest`, registering it on first sight; `None` if refused.
    ///
    /// # Safety
    /// `nest` is valid as a [`NestDescriptor`].
    unsafe fn record(&mut self, nest: &NestDescriptor) -> Option<&mut NestRecord> {
        let key = (nest as *const NestDescriptor as usize, thread_number());
        if let Some((last, index)) = self.last {
            if last == key {
                return self.nests.get_mut(index);
            }
        }
        let index = match self.index.get(&key) {
            Some(known) => *known,
            None => {
                let registered = self.register(nest, key.1);
                self.index.insert(key, registered);
                registered
            }
        }?;
        self.last = Some((key, index));
        self.nests.get_mut(index)
    }

    unsafe fn register(&mut self, nest: &NestDescriptor, thread: u64) -> Option<usize> {
        if self.nests.len() >= MAX_REGIONS {
            return None;
        }
        let mut identity = match nest.identity() {
            Ok(identity) => identity,
            Err(reason) => {
                let id = super::descriptor::c_text(nest.id)
                    .unwrap_or_else(|| format!("at {:p}", nest as *const NestDescriptor));
                let refusal = format!("nest '{id}' ignored: {reason}");
                if !self.refused.contains(&refusal) {
                    self.refused.push(refusal);
                }
                return None;
            }
        };
        identity.thread = thread;
        if self.default_path.is_none() {
            self.default_path = nest.default_path();
        }
        let budget = *self.budget.get_or_insert_with(shadow_budget);
        let shadow = Shadow::new(
            NestRecord::positions(&identity),
            budget,
            &PROCESS_SHADOW_BYTES,
        );
        let fold_entries = *self.fold_entries.get_or_insert_with(fold_entries);
        let fold_events = *self.fold_events.get_or_insert_with(fold_events);
        let mut record = NestRecord::new(identity, FoldConfig::default(), shadow, fold_entries)
            .with_fold_events(fold_events);
        let trace = self
            .trace
            .get_or_insert_with(|| trace_dir().map(|dir| (dir, TraceConfig::from_environment())));
        if let Some((_, config)) = trace {
            record = record.with_trace(*config);
        }
        self.nests.push(record);
        Some(self.nests.len() - 1)
    }

    /// Counts one entry of `nest`; returns `None` if the nest is not recorded, else
    /// whether this entry's accesses are recorded (not only counted).
    ///
    /// # Safety
    /// `nest` is valid as a [`NestDescriptor`].
    pub(crate) unsafe fn enter(&mut self, nest: &NestDescriptor) -> Option<bool> {
        let record = self.record(nest)?;
        record.enter();
        Some(record.records_current_entry())
    }

    /// Whether this thread's current entry of `nest` goes on in its plain copy (see
    /// [`NestRecord::leaves_for_plain`]); false for a nest not recorded.
    ///
    /// # Safety
    /// `nest` is valid as a [`NestDescriptor`].
    pub(crate) unsafe fn leaves_for_plain(&mut self, nest: &NestDescriptor) -> bool {
        self.record(nest)
            .is_some_and(|record| record.leaves_for_plain())
    }

    /// Adds `iterations` iterations of the outermost loop this thread ran in the plain
    /// copy of `nest`.
    ///
    /// # Safety
    /// `nest` is valid as a [`NestDescriptor`].
    pub(crate) unsafe fn count_plain(&mut self, nest: &NestDescriptor, iterations: u64) {
        if let Some(record) = self.record(nest) {
            record.count_plain(iterations);
        }
    }

    /// Adds `accesses` loads and stores this thread made in entries of `nest` that are
    /// only counted.
    ///
    /// # Safety
    /// `nest` is valid as a [`NestDescriptor`].
    pub(crate) unsafe fn count_unfolded(&mut self, nest: &NestDescriptor, accesses: u64) {
        if let Some(record) = self.record(nest) {
            record.count_unfolded(accesses);
        }
    }

    /// Records one access.
    ///
    /// # Safety
    /// `nest` is valid as a [`NestDescriptor`]; `iv` is NULL or points to as many
    /// counters as the site's depth.
    pub(crate) unsafe fn access(
        &mut self,
        nest: &NestDescriptor,
        site: u32,
        iv: *const i64,
        address: u64,
    ) {
        let Some(record) = self.record(nest) else {
            return;
        };
        let Some(depth) = record
            .identity()
            .sites
            .get(site as usize)
            .map(|s| s.depth as usize)
        else {
            return;
        };
        let iv: &[i64] = if depth == 0 {
            &[]
        } else if iv.is_null() {
            return;
        } else {
            std::slice::from_raw_parts(iv, depth)
        };
        record.access(site, iv, address);
    }

    /// How many nests (per thread) are recorded.
    pub(crate) fn len(&self) -> usize {
        self.nests.len()
    }

    pub(crate) fn default_path(&self) -> Option<&str> {
        self.default_path.as_deref()
    }

    pub(crate) fn refused(&self) -> &[String] {
        &self.refused
    }

    /// Writes the compressed trace of every nest into `POLYRUST_TRACE`'s folder (if
    /// traces are on), numbering the files from `first_sequence` (threads' recorders
    /// number theirs one after another); returns what went wrong, one message per file.
    pub(crate) fn write_traces(&mut self, first_sequence: usize) -> Vec<String> {
        let Some(Some((dir, _))) = &self.trace else {
            return Vec::new();
        };
        let mut problems = Vec::new();
        if let Err(error) = std::fs::create_dir_all(dir) {
            problems.push(format!(
                "cannot create the trace folder '{}' (POLYRUST_TRACE): {error}",
                dir.display()
            ));
            return problems;
        }
        let pid = std::process::id();
        for (sequence, nest) in self.nests.iter_mut().enumerate() {
            let Some(trace) = nest.compressed_trace() else {
                continue;
            };
            let sequence = first_sequence + sequence;
            let path = dir.join(trace_file_name(&trace.nest, trace.thread, pid, sequence));
            if let Err(error) = trace.write(&path) {
                problems.push(error.to_string());
            }
        }
        problems
    }

    /// Every recorded nest, folded as if the run ended now.
    pub(crate) fn profiles(&self) -> Vec<NestProfile> {
        self.nests.iter().map(NestRecord::profile).collect()
    }

    /// The compiler's facts about every recorded nest that has some (a nest run by
    /// several threads more than once: the profile keeps one).
    pub(crate) fn static_nests(&self) -> Vec<StaticNest> {
        self.nests
            .iter()
            .filter_map(NestRecord::static_nest)
            .collect()
    }
}
