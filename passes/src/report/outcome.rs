//! The report stage of a region: what the pass says once a region's plan is made and
//! carried out (`-Rpass=polyrust` for new code, `-Rpass-missed=polyrust` for a region
//! left as it was, with why).

use crate::codegen::outline::{Forks, Schedule};
use crate::detect::DetectedRegion;
use crate::isl::ast::AstNode;
use crate::llvm::{FunctionAnalyses, RemarkAt, RemarkKind};
use crate::plan::KeepReason;
use crate::speculate;

use super::left_unchanged;

/// Says why `region` stays as it is, where that is said now (see `KeepReason::remark`).
pub fn kept(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    at: RemarkAt<'_>,
    reason: &KeepReason,
) {
    if let Some((name, why)) = reason.remark() {
        fa.remark(RemarkKind::Missed, name, at, &left_unchanged(region, why));
    }
}

/// Says that `region` was replaced by new code (`description`: what was done).
pub fn generated(
    fa: &FunctionAnalyses<'_>,
    speculation: &speculate::State,
    region: &DetectedRegion<'_>,
    at: RemarkAt<'_>,
    description: &str,
) {
    fa.remark(
        RemarkKind::Passed,
        "Generated",
        at,
        &format!(
            "{} optimized ({description}), behind a run-time check{}",
            region.spec.title(),
            speculated_values(fa, speculation, region)
        ),
    );
}

/// `, which also compares n = 1024, ...` for a region speculated on values.
fn speculated_values(
    fa: &FunctionAnalyses<'_>,
    speculation: &speculate::State,
    region: &DetectedRegion<'_>,
) -> String {
    if region.ir.speculated.is_empty() {
        return String::new();
    }
    let values: Vec<String> = region
        .ir
        .speculated
        .iter()
        .map(|(v, c)| speculate::speculated_text(fa, speculation, *v, *c))
        .collect();
    format!(
        " that also compares {} (from the profile)",
        values.join(", ")
    )
}

/// Says whether the rows of `region`'s matrix product run on OpenMP threads (its one
/// site in `forks`, counted in blocks of `MICRO_ROWS` rows) or stay on one thread, and
/// why.
pub fn product_threads(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    at: RemarkAt<'_>,
    forks: &Forks,
) {
    let title = region.spec.title();
    let rows = crate::transform::product::MICRO_ROWS;
    for (_, min_blocks, schedule) in &forks.parallel {
        let min_rows = u64::try_from(*min_blocks).unwrap_or(0).saturating_mul(rows);
        let cut = match schedule {
            Schedule::Triangle => {
                ", the rows cut so that each thread has as many elements of C's lower triangle"
            }
            Schedule::Blocks | Schedule::Serpentine | Schedule::Partials => "",
        };
        fa.remark(
            RemarkKind::Passed,
            "Parallel",
            at,
            &format!(
                "{title}: the product runs in parallel on OpenMP threads, each on its own \
                 rows of C in blocks of {rows} (when C has {min_rows} rows or more and the \
                 product is not called from a parallel region){cut}"
            ),
        );
    }
    for (_, why) in &forks.serial {
        fa.remark(
            RemarkKind::Missed,
            "NotParallel",
            at,
            &format!("{title}: the product stays on one thread: {why}"),
        );
    }
}

/// Says which loops of `region`'s new code run on OpenMP threads, which parallel loops
/// stay on the calling thread and why, and, when the loop AST `root` has no parallel
/// loop, that every loop carries a dependence.
pub fn threads(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    at: RemarkAt<'_>,
    forks: &Forks,
    root: &AstNode,
) {
    let title = region.spec.title();
    for (iterator, min_trips, schedule) in &forks.parallel {
        let shares = match schedule {
            Schedule::Serpentine => {
                ", its iterations in chunks dealt to the threads back and forth, \
                 so that inner loops bounded by it weigh the same on every thread"
            }
            Schedule::Partials => {
                ", one block of iterations per thread, each thread adding into a partial \
                 result of its own, the partials combined in thread order after the threads \
                 join (-polyrust-allow-reassociation: a thread count always gives the same \
                 result)"
            }
            Schedule::Blocks | Schedule::Triangle => "",
        };
        fa.remark(
            RemarkKind::Passed,
            "Parallel",
            at,
            &format!(
                "{title}: loop over {iterator} runs in parallel on OpenMP threads (when it \
                 has {min_trips} iterations or more and is not called from a parallel \
                 region){shares}"
            ),
        );
    }
    for (iterator, why) in &forks.serial {
        fa.remark(
            RemarkKind::Missed,
            "NotParallel",
            at,
            &format!("{title}: loop over {iterator} stays on one thread: {why}"),
        );
    }
    if forks.parallel.is_empty() && forks.serial.is_empty() && !root.has_parallel_loop() {
        fa.remark(
            RemarkKind::Missed,
            "NotParallel",
            at,
            &format!(
                "{title}: no loop runs on OpenMP threads: every loop carries a dependence \
                 (a reduction's updates stay in their order, on one thread)"
            ),
        );
    }
}
