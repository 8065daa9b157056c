//! The stages of one region in a round: admit (refusals before the model), model, plan,
//! generate, report. Code generation that fails on a plan asks the planner again with
//! one more step back (`plan::fallbacks`), as long as one is left.

use crate::codegen::{self, CodegenError, Generated, NewCode};
use crate::detect::DetectedRegion;
use crate::isl::IslCtx;
use crate::llvm::{FunctionAnalyses, RemarkAt, Stage};
use crate::model::region::{model_region, region_place, ModelSettings};
use crate::model::Scop;
use crate::options::Options;
use crate::plan::fallbacks::{Enabled, Fallback};
use crate::plan::{self, KeepReason, NewRegion, Outcome, PlanSettings};
use crate::report::{outcome, Notes};
use crate::speculate;
use crate::transform::{schedule, Subject};

use super::session::Session;

/// Runs the region's stages; whether the IR changed (the round ends).
pub fn optimize(
    fa: &FunctionAnalyses<'_>,
    ctx: &IslCtx,
    region: &DetectedRegion<'_>,
    options: &Options,
    session: &mut Session,
) -> bool {
    if !session.first_decision(region) {
        return false;
    }
    let at = region_place(region);
    if let Err(reason) = admit(fa, &session.speculation, region, options) {
        outcome::kept(fa, region, at, &reason);
        return false;
    }
    let modelled = model_region(fa, ctx, region, ModelSettings::new(options));
    if !options.codegen && !options.force_codegen {
        return false;
    }
    let Some(scop) = &modelled.scop else {
        return false;
    };
    let subject = Subject { fa, ctx, region };
    let mut settings = PlanSettings::new(options);
    settings.threads = plan::threads(fa.function(), options).is_some();
    let mut plan = plan::plan_region(&subject, scop, modelled.imported, &settings, Vec::new());
    loop {
        plan.notes.say(fa, at);
        let new = match plan.outcome {
            Outcome::Keep(reason) => {
                outcome::kept(fa, region, at, &reason);
                return false;
            }
            Outcome::Generate(new) => new,
            call => match generate_call(fa, region, scop, call, options, session, at) {
                Ok(changed) => return changed,
                Err(fallbacks) => {
                    plan =
                        plan::plan_region(&subject, scop, modelled.imported, &settings, fallbacks);
                    continue;
                }
            },
        };
        let error = match generate(fa, region, scop, &new, options, &session.speculation) {
            // Not generated yet: the region is decided again in the next round, with
            // analyses of the function as it now is.
            Ok(Generated::EntrySplit) => {
                session.undecide(region);
                return true;
            }
            Ok(Generated::Region(forks)) => {
                session.speculation.generated(region);
                outcome::generated(fa, &session.speculation, region, at, &new.description);
                if plan::threads(fa.function(), options).is_some() {
                    outcome::threads(fa, region, at, &forks, &new.ast.root);
                }
                // The analyses now describe a function that is gone: the pass runs
                // again, with fresh ones, for the other regions.
                return true;
            }
            Err(error) => error,
        };
        match step_back(fa, at, &new, &error, settings.enabled) {
            Some(fallbacks) => {
                plan = plan::plan_region(&subject, scop, modelled.imported, &settings, fallbacks);
            }
            None => {
                let reason = KeepReason::CannotGenerate(error.to_string());
                outcome::kept(fa, region, at, &reason);
                return false;
            }
        }
    }
}

/// The refusals made before the model is built (unless the model itself is asked for):
/// a shape code generation does not handle, a region too large to schedule, a check
/// the profile shows failing.
fn admit(
    fa: &FunctionAnalyses<'_>,
    speculation: &speculate::State,
    region: &DetectedRegion<'_>,
    options: &Options,
) -> Result<(), KeepReason> {
    let model_wanted = options.export_dir.is_some() || options.import_dir.is_some();
    if options.codegen && !options.force_codegen && !model_wanted {
        if let Err(e) = region.replaceable() {
            return Err(KeepReason::Refused(e.to_string()));
        }
        if let Some(reason) = schedule::refuse_by_size(&region.spec) {
            return Err(KeepReason::Refused(reason));
        }
    }
    if let Some(path) = &options.profile_use {
        let source = speculate::ProfileSource { path };
        if let Some(reason) = speculate::failing_check(fa, speculation, region, &source) {
            return Err(KeepReason::CheckFailed(reason));
        }
    }
    Ok(())
}

/// Carries out the plan's new code for `region` (whose model is `scop`).
fn generate(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    scop: &Scop,
    new: &NewRegion,
    options: &Options,
    speculation: &speculate::State,
) -> Result<Generated, CodegenError> {
    let recording = options
        .profile_generate
        .as_deref()
        .and_then(|path| speculate::recording(fa, speculation, region, path));
    let _time = fa.time(Stage::Codegen);
    let code = NewCode {
        recomputed: new.recomputed(),
        folds: &new.folds,
        ast: &new.ast,
        written: scop,
        threads: plan::threads(fa.function(), options),
        reductions: &new.reductions,
    };
    codegen::generate(fa, region, new.scop(scop), &code, recording.as_ref())
}

/// Replaces `region` by the call of one of polyrust's kernels (`call`: the packed
/// product or the min-plus closure); whether the IR changed, or, when code generation
/// cannot make the call, the fallbacks to plan with (said at `at`).
fn generate_call(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    scop: &Scop,
    call: Outcome,
    options: &Options,
    session: &mut Session,
    at: RemarkAt<'_>,
) -> Result<bool, Vec<Fallback>> {
    let threads = plan::threads(fa.function(), options);
    let recording = options
        .profile_generate
        .as_deref()
        .and_then(|path| speculate::recording(fa, &session.speculation, region, path));
    let (generated, description, dropped): (_, _, fn(String) -> Fallback) = {
        let _time = fa.time(Stage::Codegen);
        match &call {
            Outcome::Product(product) => (
                codegen::product::generate(
                    fa,
                    region,
                    scop,
                    (product, threads),
                    recording.as_ref(),
                ),
                product.description(),
                Fallback::ProductDropped,
            ),
            Outcome::Closure(closure) => (
                codegen::closure::generate(fa, region, scop, closure, recording.as_ref()),
                closure.description(),
                Fallback::ClosureDropped,
            ),
            _ => return Ok(false),
        }
    };
    match generated {
        Ok(Generated::EntrySplit) => {
            session.undecide(region);
            Ok(true)
        }
        Ok(Generated::Region(forks)) => {
            session.speculation.generated(region);
            outcome::generated(fa, &session.speculation, region, at, &description);
            if threads.is_some() && matches!(call, Outcome::Product(_)) {
                outcome::product_threads(fa, region, at, &forks);
            }
            Ok(true)
        }
        Err(error) => {
            let fallback = dropped(error.to_string());
            let mut notes = Notes::default();
            fallback.note(&mut notes);
            notes.say(fa, at);
            Err(vec![fallback])
        }
    }
}

/// The fallbacks to plan with after code generation failed on `new` with `error` (the
/// plan's own and one more, said at `at`), with what the options `enabled`; `None`
/// when none is left.
fn step_back(
    fa: &FunctionAnalyses<'_>,
    at: RemarkAt<'_>,
    new: &NewRegion,
    error: &CodegenError,
    enabled: Enabled,
) -> Option<Vec<Fallback>> {
    let enabled = enabled.less(&new.fallbacks);
    let fallback = Fallback::after(error, new.shape(), &enabled)?;
    let mut notes = Notes::default();
    fallback.note(&mut notes);
    notes.say(fa, at);
    let mut fallbacks = new.fallbacks.clone();
    fallbacks.push(fallback);
    Some(fallbacks)
}
