//! Run 2 of profile-guided speculation: a candidate whose profile shows a few tuples of
//! values covering at least `MIN_SHARE` of its entries (else: values each seen that
//! often on their own) becomes a region with those values as constants, one version
//! per hot tuple (at most `MAX_VERSIONS`, most frequent first). Each version keeps the
//! fewest values it can: they are dropped one by one, largest first, as long as the
//! rest still make the nest a region (a unit stride is what makes a view affine; its
//! row length need not be fixed), so the specialized code also serves other sizes.
//! Code generation compares the values in the run-time check; the original loops, the
//! fallback, stay open to the next version, which is generated in a later round of
//! the pass with its own check in front of them: a chain of checks dispatches on the
//! values, and anything else runs the original loops.
//!
//! A profile that cannot be used (missing, unreadable, not a profile, another version,
//! recorded from another version of the source) gives one warning naming the file and
//! what to do, and compilation goes on without speculation.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use polyrust_rt::profile::{Profile, RegionProfile};

use crate::detect::{analyse_speculating, DetectedRegion, Detection};
use crate::llvm::{FunctionAnalyses, LLVMValueRef, RemarkAt, RemarkKind, Severity};

use super::{candidates, module_hash, value_name, Candidate, State};

/// Least share of a candidate's entries its specialized versions must cover together.
const MIN_SHARE: f64 = 0.5;
/// Least share of the entries a tuple of values needs to get a version of its own.
const MIN_VERSION_SHARE: f64 = 0.1;
/// Most specialized versions of one loop nest: each adds a check and a copy of the
/// nest's code.
pub const MAX_VERSIONS: usize = 3;

/// Where the profile comes from (`-polyrust-profile-use`).
pub struct ProfileSource<'p> {
    pub path: &'p Path,
}

// Caches of the whole compilation, not of one function: every function of the module
// reads the same profile (read and checked once), and a profile that cannot be used is
// one warning for the module, not one per function. LLVM hands the plugin one function
// at a time and no value of the plugin's lasts from one to the next, hence thread-locals:
// LLVM runs the function passes of one module on one thread (compilations on other
// threads, as ThinLTO's backends, keep their own).
thread_local! {
    /// Profiles read in this compilation, by path (`None`: unusable, already said).
    static LOADED: RefCell<HashMap<PathBuf, Option<Rc<Profile>>>> = RefCell::default();
    /// Warnings already given, so each is said once per compilation.
    static WARNED: RefCell<HashSet<String>> = RefCell::default();
}

/// The specialized versions of the function being compiled (part of `super::State`).
#[derive(Default)]
pub(super) struct Versions {
    /// Versions generated so far per candidate id.
    made: HashMap<String, usize>,
    /// The candidate id of each specialized region handed to the optimizer, by entry
    /// block, until it is generated.
    pending: HashMap<usize, String>,
}

impl Versions {
    /// Takes note that `region` was generated: if it is a specialized version, the next
    /// round specializes its fallback for the next hot values.
    pub(super) fn generated(&mut self, region: &DetectedRegion<'_>) {
        let entry = region.ir.entry.as_mut_ptr() as usize;
        if let Some(id) = self.pending.remove(&entry) {
            *self.made.entry(id).or_default() += 1;
        }
    }
}

pub(super) fn warn_once(fa: &FunctionAnalyses<'_>, message: String) {
    if WARNED.with(|w| w.borrow_mut().insert(message.clone())) {
        fa.diagnose(Severity::Warning, &message);
    }
}

pub(super) fn load(fa: &FunctionAnalyses<'_>, path: &Path) -> Option<Rc<Profile>> {
    if let Some(loaded) = LOADED.with(|l| l.borrow().get(path).cloned()) {
        return loaded;
    }
    let loaded = match Profile::read(path) {
        Ok(profile) => Some(Rc::new(profile)),
        Err(e) => {
            warn_once(
                fa,
                format!("-polyrust-profile-use: {e}; compiling without speculation"),
            );
            None
        }
    };
    LOADED.with(|l| l.borrow_mut().insert(path.to_path_buf(), loaded.clone()));
    loaded
}

/// Turns the candidates of `detection` the profile supports into regions (replacing
/// any regions detected inside them), with a remark for each candidate saying what
/// was done and why.
pub fn specialize<'f>(
    fa: &FunctionAnalyses<'f>,
    state: &mut State,
    detection: &mut Detection<'f>,
    source: &ProfileSource<'_>,
) {
    let found = candidates(fa, state, detection);
    if found.is_empty() {
        return;
    }
    let Some(profile) = load(fa, source.path) else {
        return;
    };
    let using = ProfileUse {
        profile: &profile,
        module: module_hash(fa),
        shown: source.path.display().to_string(),
    };
    for candidate in &found {
        specialize_candidate(fa, &mut state.versions, detection, candidate, &using);
    }
}

/// What each candidate of a function is looked up in: the profile, the hash of the
/// module being compiled, and the profile's path as messages show it.
struct ProfileUse<'p> {
    profile: &'p Profile,
    module: String,
    shown: String,
}

/// Specializes one candidate for its next hot values, if the profile has them; a
/// remark or warning says why not.
fn specialize_candidate<'f>(
    fa: &FunctionAnalyses<'f>,
    versions_made: &mut Versions,
    detection: &mut Detection<'f>,
    candidate: &Candidate<'f>,
    using: &ProfileUse<'_>,
) {
    let shown = &using.shown;
    let at = RemarkAt::loop_start(candidate.root);
    let names = || {
        candidate
            .values
            .iter()
            .map(|v| value_name(fa, *v))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Some(recorded) = using.profile.regions.iter().find(|r| r.id == candidate.id) else {
        fa.remark(
            RemarkKind::Missed,
            "NotProfiled",
            at,
            &format!(
                "loop nest not specialized: it depends on {} but {shown} has no record of it (was the instrumented program run through it?)",
                names()
            ),
        );
        return;
    };
    if recorded.module_hash != using.module || recorded.values.len() != candidate.values.len() {
        warn_once(
            fa,
            format!(
                "-polyrust-profile-use: {shown} was recorded from another version of {}; regenerate it (build with -polyrust-profile-generate, run, merge); loop nests of this file are compiled without speculation",
                recorded.file
            ),
        );
        return;
    }
    let made = versions_made.made.get(&candidate.id).copied().unwrap_or(0);
    match versions(fa, candidate, recorded) {
        Ok(versions) => adopt_version(
            fa,
            versions_made,
            detection,
            candidate,
            versions,
            made,
            shown,
        ),
        Err(why) if made == 0 => fa.remark(
            RemarkKind::Missed,
            "NotSpecialized",
            at,
            &format!("loop nest not specialized on {}: {why}", names()),
        ),
        Err(_) => {}
    }
}

/// Makes the candidate's next version (the first `made` are generated already) a
/// region in place of the regions inside its nest, and says so; the original loops
/// stay open to the versions after it.
fn adopt_version<'f>(
    fa: &FunctionAnalyses<'f>,
    versions_made: &mut Versions,
    detection: &mut Detection<'f>,
    candidate: &Candidate<'f>,
    mut versions: Vec<Version<'f>>,
    made: usize,
    shown: &str,
) {
    let total = versions.len();
    if made >= total {
        return;
    }
    let Version {
        mut region,
        described,
    } = versions.swap_remove(made);
    let which = if total > 1 {
        format!(" (version {} of {total})", made + 1)
    } else {
        String::new()
    };
    let others = if made + 1 < total {
        "other values run the other versions or the original loops"
    } else {
        "other values run the original loops"
    };
    fa.remark(
        RemarkKind::Analysis,
        "Speculated",
        RemarkAt::loop_start(candidate.root),
        &format!("loop nest specialized for {described}{which} ({shown}); {others}"),
    );
    region.ir.fallback_open = made + 1 < total;
    versions_made
        .pending
        .insert(region.ir.entry.as_mut_ptr() as usize, candidate.id.clone());
    let root = candidate.root;
    detection
        .regions
        .retain(|r| !r.top.iter().any(|l| root.contains_block(l.header())));
    detection.regions.push(region);
}

/// One specialized version of a candidate, and its values in words.
struct Version<'f> {
    region: DetectedRegion<'f>,
    described: String,
}

/// The versions `candidate` gets, most frequent values first: one per hot tuple, each
/// with the fewest of its values as constants (tuples that come down to the same
/// constants share a version).
fn versions<'f>(
    fa: &FunctionAnalyses<'f>,
    candidate: &Candidate<'f>,
    recorded: &RegionProfile,
) -> Result<Vec<Version<'f>>, String> {
    let hot = hot_values(candidate, recorded)?;
    let mut versions: Vec<(DetectedRegion<'f>, u64)> = Vec::new();
    for (chosen, count) in hot {
        let Some(region) = fewest(fa, candidate, &chosen) else {
            continue;
        };
        let full = versions.len() >= MAX_VERSIONS;
        match versions
            .iter_mut()
            .find(|(r, _)| r.ir.speculated == region.ir.speculated)
        {
            Some((_, total)) => *total = total.saturating_add(count),
            None if !full => versions.push((region, count)),
            None => {}
        }
    }
    if versions.is_empty() {
        return Err("its most frequent values do not make it a region".into());
    }
    let entries = recorded.entries.max(1) as f64;
    Ok(versions
        .into_iter()
        .map(|(region, count)| {
            let values: Vec<String> = region
                .ir
                .speculated
                .iter()
                .map(|(v, c)| format!("{} = {c}", value_name(fa, *v)))
                .collect();
            let described = format!(
                "{}, the values of {:.0}% of its {} profiled entries",
                values.join(", "),
                count as f64 * 100.0 / entries,
                recorded.entries
            );
            Version { region, described }
        })
        .collect())
}

/// Values with the constants to specialize them on, and the entries that saw them.
type HotValues = (Vec<(LLVMValueRef, i64)>, u64);

/// The tuples of values to specialize on, each with the entries it covers: the most
/// frequent tuples when together they cover `MIN_SHARE` of the entries; else the
/// values that are that frequent on their own (an outer counter may vary while the
/// size stays fixed).
fn hot_values(
    candidate: &Candidate<'_>,
    recorded: &RegionProfile,
) -> Result<Vec<HotValues>, String> {
    let mut tuples: Vec<HotValues> = Vec::new();
    let mut covered = 0u64;
    for hot in recorded.hot_tuples(MIN_VERSION_SHARE) {
        if hot.values.len() != candidate.values.len() {
            return Err("the profile's record of it is malformed".into());
        }
        if tuples.len() == MAX_VERSIONS {
            break;
        }
        let chosen = candidate
            .values
            .iter()
            .copied()
            .zip(hot.values.iter().copied())
            .collect();
        tuples.push((chosen, hot.count));
        covered = covered.saturating_add(hot.count);
    }
    if !tuples.is_empty() && covered as f64 >= MIN_SHARE * recorded.entries as f64 {
        return Ok(tuples);
    }
    let single: Vec<(LLVMValueRef, i64, u64)> = candidate
        .values
        .iter()
        .zip(&recorded.values)
        .filter_map(|(v, seen)| {
            let top = seen.histogram.first()?;
            (top.count as f64 >= MIN_SHARE * recorded.entries as f64)
                .then_some((*v, top.value, top.count))
        })
        .collect();
    if single.is_empty() {
        return Err(format!(
            "no value recurs in {:.0}% of its {} entries",
            MIN_SHARE * 100.0,
            recorded.entries
        ));
    }
    let count = single.iter().map(|h| h.2).min().unwrap_or(0);
    Ok(vec![(
        single.into_iter().map(|(v, c, _)| (v, c)).collect(),
        count,
    )])
}

/// The region `candidate` becomes with the fewest of the values `chosen` as constants,
/// if any: values are dropped largest first while the rest still make it a region.
fn fewest<'f>(
    fa: &FunctionAnalyses<'f>,
    candidate: &Candidate<'f>,
    chosen: &[(LLVMValueRef, i64)],
) -> Option<DetectedRegion<'f>> {
    let mut keep = vec![true; chosen.len()];
    let mut order: Vec<usize> = (0..chosen.len()).collect();
    order.sort_by_key(|i| std::cmp::Reverse(chosen[*i].1.unsigned_abs()));
    let kept = |keep: &[bool]| -> Vec<(LLVMValueRef, i64)> {
        chosen
            .iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| *c)
            .collect()
    };
    for i in order {
        keep[i] = false;
        if analyse_speculating(fa, candidate.root, &kept(&keep)).is_err() {
            keep[i] = true;
        }
    }
    analyse_speculating(fa, candidate.root, &kept(&keep)).ok()
}

/// Why `region` is better left alone, if its check was recorded (a compile with
/// `-polyrust-profile-generate` that generated it) and passed in fewer than
/// `MIN_VERSION_SHARE` of the entries: the code would be there for the original loops
/// to run (arrays that overlap, sizes the assumptions exclude, other values).
pub fn failing_check(
    fa: &FunctionAnalyses<'_>,
    state: &State,
    region: &DetectedRegion<'_>,
    source: &ProfileSource<'_>,
) -> Option<String> {
    let recording = super::recording(fa, state, region, "")?;
    let profile = load(fa, source.path)?;
    let recorded = profile.regions.iter().find(|r| r.id == recording.id)?;
    if recorded.module_hash != module_hash(fa) || recorded.entries == 0 {
        return None;
    }
    let passed = recorded.check_passed()?;
    if passed as f64 >= MIN_VERSION_SHARE * recorded.entries as f64 {
        return None;
    }
    let overlaps: Vec<String> = recorded
        .overlaps
        .iter()
        .filter_map(|o| {
            let first = &recorded.ranges.get(o.first)?.name;
            let second = &recorded.ranges.get(o.second)?.name;
            Some(format!("{first} and {second} overlapped in {}", o.count))
        })
        .collect();
    let why = if overlaps.is_empty() {
        String::new()
    } else {
        format!(" ({})", overlaps.join(", "))
    };
    Some(format!(
        "its run-time check passed in {passed} of {} entries{why} in the profiled run ({}): the original loops would run",
        recorded.entries,
        source.path.display()
    ))
}
