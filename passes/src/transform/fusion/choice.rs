//! When a region's stages fuse: only where QUOV then stores more of its temporaries
//! folded than program order does (`tmp[y mod 5][x]`: the rows alive at once), or,
//! chosen over expression propagation, where every temporary propagation would recompute
//! folds. The fused schedule is the transformation's (`super::fuse`); this module weighs
//! it.
//!
//! Relies on the dependences (the region's costliest analysis: computed only for a
//! region of two loop nests or more) and on `quov::storage` for what folds.

use crate::deps::{Dependences, DepsOptions, DEPS_SHARE};
use crate::llvm::Stage;
use crate::model::Scop;
use crate::transform::quov::storage::{fold_temporaries, Folded};
use crate::transform::schedule::Decision;
use crate::transform::Subject;

/// A region's stages fused, with what folds under the fused schedule.
pub struct FusedStages {
    /// The fused schedule, as the scheduling stage's decision.
    pub decision: Decision,
    /// The temporaries' storage under it.
    pub folded: Folded,
}

/// The region's stages fused, when that folds more of its temporaries than program
/// order (`in_order`).
pub fn fuse_for_folding(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    deps_options: &DepsOptions,
    in_order: &Folded,
) -> Option<FusedStages> {
    let fused = fused_and_folded(subject, scop, deps_options)?;
    (fused.folded.folds.len() > in_order.folds.len()).then_some(fused)
}

/// The region's stages fused, with the source names of `arrays`, when every one of them
/// folds under the fused schedule.
pub fn fusion_folds_all(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    deps_options: &DepsOptions,
    arrays: &[&str],
) -> Option<(FusedStages, Vec<String>)> {
    let fused = fused_and_folded(subject, scop, deps_options)?;
    let mut names = Vec::new();
    for array in arrays {
        if !fused.folded.folds.iter().any(|f| f.array == *array) {
            return None;
        }
        names.push(subject.source_name(array));
    }
    Some((fused, names))
}

/// The region's stages fused, as a decision, and what folds under the fused schedule.
fn fused_and_folded(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    deps_options: &DepsOptions,
) -> Option<FusedStages> {
    // The dependences are the costliest stage: not for a region of one nest.
    if !super::has_stages(scop) {
        return None;
    }
    let (fa, ctx) = (subject.fa, subject.ctx);
    let deps = {
        let _time = fa.time(Stage::Deps);
        ctx.within_share(DEPS_SHARE, || Dependences::compute(scop, deps_options))
            .ok()?
    };
    let fused = {
        let _time = fa.time(Stage::Schedule);
        ctx.within_share(DEPS_SHARE, || super::fuse(scop, &deps))
            .ok()??
    };
    let all = deps.all().ok()?;
    let folded = fold_temporaries(subject, scop, &fused.schedule, Some(all.copy().ok()?));
    let description = fused.describe(&|statement| nest_name(subject, statement, fused.shared));
    let decision = Decision::Transform {
        schedule: fused.schedule,
        description,
        register_tiles: false,
        dependences: all,
    };
    Some(FusedStages { decision, folded })
}

/// How a remark names the loop nest of `statement` fused along the loop below `shared`
/// shared ones: `the loop at blur.c:46`, else the statement's name.
fn nest_name(subject: &Subject<'_, '_>, statement: &str, shared: usize) -> String {
    let location = subject
        .region
        .ir
        .statements
        .iter()
        .find(|s| s.name == statement)
        .and_then(|s| s.loops.get(shared).copied())
        .and_then(|l| subject.fa.loop_location(l));
    match location {
        Some(location) => format!("the loop at {}", crate::model::spec::file_line(&location)),
        None => statement.to_string(),
    }
}
