//! Run 2 of profile-guided speculation: a candidate whose profile shows one tuple of
//! values in at least `MIN_SHARE` of its entries (else: values each seen that often on
//! their own) becomes a region with those values as constants, fewest first: the values are dropped one by one, largest first, as long
//! as the rest still make the nest a region (a unit stride is what makes a view
//! affine; its row length need not be fixed), so the specialized code also serves
//! other sizes. Code generation compares the values in the run-time check.
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

use super::{candidates, module_hash, value_name, Candidate};

/// Least share of a candidate's entries its most frequent values must cover.
const MIN_SHARE: f64 = 0.5;

/// Where the profile comes from (`-polyrust-profile-use`).
pub struct ProfileSource<'p> {
    pub path: &'p Path,
}

thread_local! {
    /// Profiles read in this compilation, by path (`None`: unusable, already said).
    static LOADED: RefCell<HashMap<PathBuf, Option<Rc<Profile>>>> = RefCell::default();
    /// Warnings already given, so each is said once per compilation.
    static WARNED: RefCell<HashSet<String>> = RefCell::default();
}

fn warn_once(fa: &FunctionAnalyses<'_>, message: String) {
    if WARNED.with(|w| w.borrow_mut().insert(message.clone())) {
        fa.diagnose(Severity::Warning, &message);
    }
}

fn load(fa: &FunctionAnalyses<'_>, path: &Path) -> Option<Rc<Profile>> {
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
    detection: &mut Detection<'f>,
    source: &ProfileSource<'_>,
) {
    let found = candidates(fa, detection);
    if found.is_empty() {
        return;
    }
    let Some(profile) = load(fa, source.path) else {
        return;
    };
    let module = module_hash(fa);
    let shown = source.path.display().to_string();
    for candidate in &found {
        let at = RemarkAt::loop_start(candidate.root);
        let names = || {
            candidate
                .values
                .iter()
                .map(|v| value_name(fa, *v))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some(recorded) = profile.regions.iter().find(|r| r.id == candidate.id) else {
            fa.remark(
                RemarkKind::Missed,
                "NotProfiled",
                at,
                &format!(
                    "loop nest not specialized: it depends on {} but {shown} has no record of it (was the instrumented program run through it?)",
                    names()
                ),
            );
            continue;
        };
        if recorded.module_hash != module || recorded.values.len() != candidate.values.len() {
            warn_once(
                fa,
                format!(
                    "-polyrust-profile-use: {shown} was recorded from another version of {}; regenerate it (build with -polyrust-profile-generate, run, merge); loop nests of this file are compiled without speculation",
                    recorded.file
                ),
            );
            continue;
        }
        match specialized(fa, candidate, recorded) {
            Ok((region, described)) => {
                fa.remark(
                    RemarkKind::Analysis,
                    "Speculated",
                    at,
                    &format!(
                        "loop nest specialized for {described} ({shown}); other values run the original loops"
                    ),
                );
                let root = candidate.root;
                detection
                    .regions
                    .retain(|r| !r.top.iter().any(|l| root.contains_block(l.header())));
                detection.regions.push(region);
            }
            Err(why) => fa.remark(
                RemarkKind::Missed,
                "NotSpecialized",
                at,
                &format!("loop nest not specialized on {}: {why}", names()),
            ),
        }
    }
}

/// The region `candidate` becomes with the fewest of its most frequent values as
/// constants, and those values in words.
fn specialized<'f>(
    fa: &FunctionAnalyses<'f>,
    candidate: &Candidate<'f>,
    recorded: &RegionProfile,
) -> Result<(DetectedRegion<'f>, String), String> {
    // The most frequent tuple when one is frequent enough; else each value that is
    // frequent on its own (an outer counter may vary while the size stays fixed).
    let (chosen, count): (Vec<(LLVMValueRef, i64)>, u64) =
        match recorded.hot_tuples(MIN_SHARE).into_iter().next() {
            Some(hot) if hot.values.len() == candidate.values.len() => (
                candidate
                    .values
                    .iter()
                    .copied()
                    .zip(hot.values.iter().copied())
                    .collect(),
                hot.count,
            ),
            Some(_) => return Err("the profile's record of it is malformed".into()),
            None => {
                let hot: Vec<(LLVMValueRef, i64, u64)> = candidate
                    .values
                    .iter()
                    .zip(&recorded.values)
                    .filter_map(|(v, seen)| {
                        let top = seen.histogram.first()?;
                        (top.count as f64 >= MIN_SHARE * recorded.entries as f64)
                            .then_some((*v, top.value, top.count))
                    })
                    .collect();
                let count = hot.iter().map(|h| h.2).min().unwrap_or(0);
                (hot.into_iter().map(|(v, c, _)| (v, c)).collect(), count)
            }
        };
    if chosen.is_empty() {
        return Err(format!(
            "no value recurs in {:.0}% of its {} entries",
            MIN_SHARE * 100.0,
            recorded.entries
        ));
    }
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
    let region = analyse_speculating(fa, candidate.root, &kept(&keep))
        .map_err(|_| "its most frequent values do not make it a region".to_string())?;
    let share = if recorded.entries == 0 {
        0.0
    } else {
        count as f64 * 100.0 / recorded.entries as f64
    };
    let values: Vec<String> = region
        .ir
        .speculated
        .iter()
        .map(|(v, c)| format!("{} = {c}", value_name(fa, *v)))
        .collect();
    Ok((
        region,
        format!(
            "{}, the values of {share:.0}% of its {} profiled entries",
            values.join(", "),
            recorded.entries
        ),
    ))
}
