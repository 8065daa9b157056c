//! Preparing a round of the pass on a function, before any region is modelled: the IR
//! reshaped so that regions can form (guards split, rotated loads unrotated), the
//! detection remarks said once, and the profile's work (specialized nests, speculated
//! bounds, instrumentation). Each change to the IR ends the round: the next one starts
//! over with fresh analyses.

use crate::detect::rotated::Carried;
use crate::detect::{self, Detection};
use crate::llvm::{FunctionAnalyses, RemarkAt, RemarkKind, Stage};
use crate::options::{Instrumentation, Options, Tiling};
use crate::speculate;

use super::session::Session;

/// Prepares the round; whether the IR changed (the round ends).
pub fn prepare<'f>(
    fa: &FunctionAnalyses<'f>,
    detection: &mut Detection<'f>,
    options: &Options,
    session: &mut Session,
) -> bool {
    if reshape(fa, detection, options) {
        // Remarks wait for the round that sees the reshaped function.
        session.remarks_due = options.round + 1;
        return true;
    }
    // Later rounds see the same loops again (minus those rewritten): say it once.
    if session.remarks_due == options.round {
        detect::emit_remarks(fa, detection);
    }
    let speculation = &mut session.speculation;
    use_profile(fa, speculation, detection, options)
        || instrument_for_profile(fa, speculation, detection, options)
}

/// Whether every nest is instrumented for accesses in this compile (the first round
/// does it; those nests are not optimized in that compile).
fn instrumenting_accesses(options: &Options) -> bool {
    options.profile_generate.is_some() && matches!(options.instrument, Instrumentation::Accesses)
}

/// Reshapes the IR where that lets a region form or lose a temporary; whether it did.
fn reshape(fa: &FunctionAnalyses<'_>, detection: &Detection<'_>, options: &Options) -> bool {
    if instrumenting_accesses(options) {
        return false;
    }
    // A region that could grow over a guard but for the work the guard does before its
    // branch (the `malloc` in front of `if (n > 0)`): that work gets a block of its own.
    if (options.codegen || options.force_codegen) && split_guards(fa, detection) {
        return true;
    }
    // Loads LLVM carries in phis across iterations, in regions whose temporaries
    // propagation could remove, become loads again (a producer that reads such a phi
    // could not be recomputed; see `detect::rotated`); so do the values an in-place
    // sweep carries along its rows, whose rows can then be reordered.
    if options.codegen && unrotate_loads(fa, detection, options) {
        return true;
    }
    // Nests that re-read their sizes and base pointers from memory they may write get a
    // copy that reads them once, in front of it (`detect::hoisted`); nests that load
    // their rows' pointers from a table, a copy that computes them at a fixed stride
    // (`detect::rows`).
    options.codegen
        && options.profile_use.is_none()
        && (detect::hoisted::version_nests(fa, detection)
            || detect::rows::version_nests(fa, detection))
}

/// Moves the work of each guard detection names (`Detection::splits`) into a block of
/// its own; whether any moved.
fn split_guards(fa: &FunctionAnalyses<'_>, detection: &Detection<'_>) -> bool {
    let b = crate::llvm::builder::IrBuilder::new(fa.function());
    let mut split = false;
    for guard in &detection.splits {
        split |= b.split_off_prefix(*guard).is_some();
    }
    split
}

/// Turns the rotated loads (see `detect::rotated`) of each region that writes a
/// temporary the function owns (with expression propagation on) back into loads, and
/// the values the innermost loops of in-place sweeps carry in phis (with tiling on:
/// `transform::row_wavefront` reorders their rows); whether any was.
fn unrotate_loads(fa: &FunctionAnalyses<'_>, detection: &Detection<'_>, options: &Options) -> bool {
    let mut changed = false;
    for region in &detection.regions {
        let owns_temporary = region
            .spec
            .arrays
            .iter()
            .any(|a| crate::codegen::propagate::removable(region, &a.name));
        let mut rotated = Vec::new();
        if options.exprprop && owns_temporary {
            rotated = detect::rotated::find(fa, &region.ir.loops, Carried::Loads);
        }
        if options.tiling != Tiling::None {
            let swept = detect::rotated::find(fa, &region.ir.loops, Carried::InPlace);
            let swept: Vec<_> = swept
                .into_iter()
                .filter(|s| rotated.iter().all(|r| r.phi != s.phi))
                .collect();
            rotated.extend(swept);
        }
        changed |= detect::rotated::unrotate(fa, &rotated);
    }
    changed
}

/// Specializes nests on the profile's values (`-polyrust-profile-use`); whether a nest
/// was prepared for a speculated bound (the next round, with fresh analyses, models it).
fn use_profile<'f>(
    fa: &FunctionAnalyses<'f>,
    speculation: &mut speculate::State,
    detection: &mut Detection<'f>,
    options: &Options,
) -> bool {
    let Some(path) = &options.profile_use else {
        return false;
    };
    let _time = fa.time(Stage::Detect);
    let source = speculate::ProfileSource { path };
    speculate::specialize(fa, speculation, detection, &source);
    // Not while instrumenting accesses, which happens in the first round only and
    // would then be skipped.
    !instrumenting_accesses(options)
        && speculate::speculate_bounds(fa, speculation, detection, &source)
}

/// Instruments nests for the profile (`-polyrust-profile-generate`); whether any was.
fn instrument_for_profile(
    fa: &FunctionAnalyses<'_>,
    speculation: &speculate::State,
    detection: &Detection<'_>,
    options: &Options,
) -> bool {
    let Some(path) = &options.profile_generate else {
        return false;
    };
    // The analyses still hold after instrumenting, but rerunning keeps one path through
    // the pass.
    match options.instrument {
        Instrumentation::Values => instrument(fa, speculation, detection, path),
        // Every nest at once, in the first round: nests left alone then (no preheader)
        // would be refused again in every later round.
        Instrumentation::Accesses => {
            options.round == 0 && speculate::instrument_accesses(fa, speculation, detection, path)
        }
    }
}

/// Gives each speculation candidate of `detection` its call into the runtime, with a
/// remark, unless a profile made it a region already; whether any was given one.
fn instrument(
    fa: &FunctionAnalyses<'_>,
    speculation: &speculate::State,
    detection: &Detection<'_>,
    path: &str,
) -> bool {
    let mut changed = false;
    for candidate in speculate::candidates(fa, speculation, detection) {
        if detection
            .regions
            .iter()
            .any(|r| r.top.first() == Some(&candidate.root))
        {
            continue;
        }
        let at = RemarkAt::loop_start(candidate.root);
        match speculate::instrument(fa, &candidate, path) {
            Ok(()) => {
                changed = true;
                let names: Vec<String> = candidate
                    .values
                    .iter()
                    .map(|v| speculate::value_name(fa, *v))
                    .collect();
                fa.remark(
                    RemarkKind::Analysis,
                    "Instrumented",
                    at,
                    &format!(
                        "loop nest instrumented: each entry records {} for profile-guided specialization (region {})",
                        names.join(", "),
                        candidate.id
                    ),
                );
            }
            Err(why) => fa.remark(
                RemarkKind::Missed,
                "NotInstrumented",
                at,
                &format!("loop nest not instrumented: {why}"),
            ),
        }
    }
    changed
}
