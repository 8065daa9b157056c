//! The report stage of a region: what the pass says once a region's plan is made and
//! carried out (`-Rpass=polyrust` for new code, `-Rpass-missed=polyrust` for a region
//! left as it was, with why).

use crate::detect::DetectedRegion;
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
