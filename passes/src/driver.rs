//! The path of one function through the optimizer: detect → model → deps → transform
//! → codegen. Stages are added here as they land; today detection runs, each region
//! is modelled with isl (and exported or given an imported schedule on request), and
//! both report what they found.

use std::path::{Path, PathBuf};

use crate::codegen;
use crate::deps::{Dependences, DepsOptions, ReductionCandidate};
use crate::detect::{self, DetectedRegion, Detection};
use crate::isl::IslCtx;
use crate::llvm::CacheLevel;
use crate::llvm::{FunctionAnalyses, RemarkAt, RemarkKind, Severity, Stage};
use crate::model::{json, Scop};
use crate::options::{Instrumentation, Options};
use crate::speculate;
use crate::transform::exprprop;
use crate::transform::hardware::{
    read_host_caches, ExplicitHardware, Hardware, TargetHardware, HOST_CACHE_DIR,
};
use crate::transform::schedule::{self, Decision, Prospect};

/// Runs the optimizer on one function; returns whether the IR changed.
pub fn run(analyses: &FunctionAnalyses<'_>, options: &Options) -> bool {
    if options.round == 0 {
        crate::llvm::host::forget_remarks();
        if options.profile_generate.is_some() || options.profile_use.is_some() {
            speculate::start_function(analyses);
        }
    }
    let mut detection = {
        let _time = analyses.time(Stage::Detect);
        detect::detect(analyses)
    };
    if options.round == 0 {
        REMARKS_DUE.with(|due| due.set(0));
    }
    // A region that could grow over a guard but for the work the guard does before its
    // branch (the `malloc` in front of `if (n > 0)`): that work gets a block of its own,
    // and the function is looked at again (remarks wait for that round).
    // (Not when every nest is instrumented for accesses, in the first round only: those
    // nests are not optimized in that compile.)
    let instrumenting_accesses = options.profile_generate.is_some()
        && matches!(options.instrument, Instrumentation::Accesses);
    if (options.codegen || options.force_codegen)
        && !instrumenting_accesses
        && split_guards(analyses, &detection)
    {
        REMARKS_DUE.with(|due| due.set(options.round + 1));
        return true;
    }
    // Loads LLVM carries in phis across iterations, in regions whose temporaries
    // propagation could remove, become loads again, and the function is looked at again
    // (a producer that reads such a phi could not be recomputed; see `detect::rotated`).
    if options.codegen
        && options.exprprop
        && !instrumenting_accesses
        && unrotate_loads(analyses, &detection)
    {
        REMARKS_DUE.with(|due| due.set(options.round + 1));
        return true;
    }
    // Later rounds see the same loops again (minus those rewritten): say it once.
    if REMARKS_DUE.with(|due| due.get()) == options.round {
        detect::emit_remarks(analyses, &detection);
    }
    if let Some(path) = &options.profile_use {
        let _time = analyses.time(Stage::Detect);
        let source = speculate::ProfileSource { path };
        speculate::specialize(analyses, &mut detection, &source);
        // A nest prepared for a speculated bound ends the round: the next one, with
        // fresh analyses, models it. Not while instrumenting accesses, which happens in
        // the first round only and would then be skipped.
        let instrumenting_accesses = options.profile_generate.is_some()
            && matches!(options.instrument, Instrumentation::Accesses);
        if !instrumenting_accesses && speculate::speculate_bounds(analyses, &mut detection, &source)
        {
            return true;
        }
    }
    if let Some(path) = &options.profile_generate {
        let changed = match options.instrument {
            Instrumentation::Values => instrument(analyses, &detection, path),
            // Every nest at once, in the first round: nests left alone then (no
            // preheader) would be refused again in every later round.
            Instrumentation::Accesses => {
                options.round == 0 && speculate::instrument_accesses(analyses, &detection, path)
            }
        };
        if changed {
            // The analyses still hold, but rerunning keeps one path through the pass.
            return true;
        }
    }
    let Some(ctx) = isl_context(analyses, &detection, options) else {
        return false;
    };
    if options.round == 0 {
        DECIDED.with(|d| d.borrow_mut().clear());
    }
    // Each region is modelled when its turn comes, not all up front: a rewrite ends the
    // round, and the next round (fresh analyses) would model the remaining ones again.
    for region in &detection.regions {
        let identity = region_identity(region);
        if DECIDED.with(|d| !d.borrow_mut().insert(identity)) {
            continue;
        }
        let at = region
            .top
            .first()
            .map_or_else(RemarkAt::default, |l| RemarkAt::loop_start(*l));
        // What `decide` would refuse before looking at the model is refused before the
        // model is built, unless the model itself is asked for.
        let model_wanted = options.export_dir.is_some() || options.import_dir.is_some();
        if options.codegen && !options.force_codegen && !model_wanted {
            if let Some(reason) = refuse_unmodelled(analyses, region) {
                left_unchanged(analyses, region, at, "Unchanged", &reason);
                continue;
            }
        }
        if let Some(path) = &options.profile_use {
            let source = speculate::ProfileSource { path };
            if let Some(reason) = speculate::failing_check(analyses, region, &source) {
                left_unchanged(analyses, region, at, "CheckFailed", &reason);
                continue;
            }
        }
        let modelled = model_region(analyses, &ctx, region, options);
        if !options.codegen && !options.force_codegen {
            continue;
        }
        let Some(scop) = &modelled.scop else {
            continue;
        };
        ctx.start_region();
        // Register tiles multiply the loop AST; if isl's bound stops its generation,
        // the region is decided again without them. Expression propagation that code
        // generation cannot carry out is dropped the same way.
        let mut deciding = options.clone();
        let (generated, description) = loop {
            let (propagation, fused_instead) = if deciding.exprprop {
                match propagate(analyses, &ctx, region, scop, at, &deciding) {
                    Propagated::Rewritten(p) => (Some(*p), None),
                    Propagated::FusedInstead(decision, folded) => (None, Some((decision, folded))),
                    Propagated::Nothing => (None, None),
                }
            } else {
                report_propagation(analyses, region, scop, at);
                (None, None)
            };
            let (propagated, recomputed, propagated_text) = match propagation {
                Some(p) => (
                    Some(Modelled {
                        region,
                        scop: Some(p.scop),
                        imported: modelled.imported,
                    }),
                    p.recomputed,
                    format!("{}; ", p.description),
                ),
                None => (None, Vec::new(), String::new()),
            };
            let modelled_now = propagated.as_ref().unwrap_or(&modelled);
            let Some(scop_now) = modelled_now.scop.as_ref() else {
                break (None, String::new());
            };
            // Fusion chosen over recomputation is decided already, with its folds.
            let (decision, in_order_folds) = match fused_instead {
                Some((decision, folded)) => (Ok(decision), Some(folded)),
                None => {
                    let decision = decide(analyses, modelled_now, &deciding);
                    // With the loops kept in order, folding alone can pay: which
                    // temporaries fold under the original schedule (decided once, used
                    // below).
                    let in_order_folds = match (&decision, deciding.quov) {
                        (Ok(Decision::Keep(_)), true) => {
                            scop_now.schedule.copy().ok().map(|original| {
                                fold_temporaries(analyses, &ctx, region, scop_now, &original, None)
                            })
                        }
                        _ => None,
                    };
                    (decision, in_order_folds)
                }
            };
            // Stages that keep a temporary whole in program order may store it in a few
            // rows once fused (see `transform::fusion`).
            let (decision, in_order_folds) = match (decision, in_order_folds) {
                (Ok(Decision::Keep(reason)), Some(in_order))
                    if deciding.fusion && !in_order.kept.is_empty() =>
                {
                    match fuse_for_folding(analyses, &ctx, region, scop_now, &deciding, &in_order) {
                        Some((decision, folded)) => (Ok(decision), Some(folded)),
                        None => (Ok(Decision::Keep(reason)), Some(in_order)),
                    }
                }
                other => other,
            };
            let folds_in_order = in_order_folds.as_ref().is_some_and(|f| !f.folds.is_empty());
            let transformed = matches!(decision, Ok(Decision::Transform { .. }));
            let (mut schedule, mut description, dependences) = match decision {
                Ok(Decision::Transform {
                    schedule,
                    description,
                    dependences,
                }) => (
                    schedule,
                    format!("{propagated_text}{description}"),
                    Some(dependences),
                ),
                // Propagation or folding alone pays: the temporary's stores or most of
                // its memory go.
                Ok(Decision::Keep(_)) if !recomputed.is_empty() || folds_in_order => {
                    match scop_now.schedule.copy() {
                        Ok(original) => (
                            original,
                            format!("{propagated_text}loops in their original order"),
                            None,
                        ),
                        Err(_) => break (None, String::new()),
                    }
                }
                // Both are missed optimizations: -Rpass-missed shows every region left
                // alone.
                Ok(Decision::Keep(reason)) if !options.force_codegen => {
                    if let Some(folded) = &in_order_folds {
                        folded.remark_kept(analyses, at);
                    }
                    left_unchanged(analyses, region, at, "Unchanged", &reason);
                    break (None, String::new());
                }
                Err(reason) if !options.force_codegen => {
                    left_unchanged(analyses, region, at, "NoSchedule", &reason);
                    break (None, String::new());
                }
                _ => match scop_now.schedule.copy() {
                    Ok(original) => (
                        original,
                        format!("{propagated_text}original schedule (forced)"),
                        None,
                    ),
                    Err(_) => break (None, String::new()),
                },
            };
            let recording = options
                .profile_generate
                .as_deref()
                .and_then(|path| speculate::recording(analyses, region, path));
            let mut folded = match in_order_folds {
                Some(folded) => folded,
                None if deciding.quov => {
                    fold_temporaries(analyses, &ctx, region, scop_now, &schedule, dependences)
                }
                None => Folded::nothing(dependences),
            };
            // A new schedule that keeps whole a temporary the original order folds (time
            // tiles whose boundary statements overwrite the rotating copies too early, say)
            // gives way: the temporary's memory is what the region moves most of.
            if transformed && !folded.kept.is_empty() {
                if let Ok(original) = scop_now.schedule.copy() {
                    let in_order =
                        fold_temporaries(analyses, &ctx, region, scop_now, &original, None);
                    if in_order.folds.len() > folded.folds.len() {
                        let whole: Vec<&str> =
                            folded.kept.iter().map(|(name, _)| name.as_str()).collect();
                        analyses.remark(
                            RemarkKind::Analysis,
                            "ScheduleForFolding",
                            at,
                            &format!(
                                "loops kept in their original order: the new schedule ({description}) would keep temporary {} whole, which the original order stores folded",
                                whole.join(", ")
                            ),
                        );
                        schedule = original;
                        description = format!("{propagated_text}loops in their original order");
                        folded = in_order;
                    }
                }
            }
            folded.remark_kept(analyses, at);
            let Folded {
                folds, dependences, ..
            } = folded;
            let description = match folds.is_empty() {
                true => description,
                false => format!(
                    "{description}; {}",
                    describe_folds(analyses, region, &folds)
                ),
            };
            let generated = {
                let _time = analyses.time(Stage::Codegen);
                codegen::generate(
                    analyses,
                    &ctx,
                    region,
                    scop_now,
                    &codegen::NewCode {
                        schedule: &schedule,
                        dependences: dependences.as_ref(),
                        recomputed: &recomputed,
                        folds: &folds,
                    },
                    recording.as_ref(),
                )
            };
            let ast_too_large = matches!(
                &generated,
                Err(codegen::CodegenError::Isl(e)) if e.is_operation_limit()
            );
            if ast_too_large && deciding.register_tiling && description.contains("register tiles") {
                deciding.register_tiling = false;
                ctx.start_region();
                continue;
            }
            if let (Err(e), false) = (&generated, folds.is_empty()) {
                analyses.remark(
                    RemarkKind::Analysis,
                    "FoldingDropped",
                    at,
                    &format!("folded storage dropped: code generation failed ({e})"),
                );
                deciding.quov = false;
                ctx.start_region();
                continue;
            }
            if let (Err(e), false) = (&generated, recomputed.is_empty()) {
                remark_dropped(analyses, at, &format!("code generation failed ({e})"));
                deciding.exprprop = false;
                ctx.start_region();
                continue;
            }
            break (Some(generated), description);
        };
        let Some(generated) = generated else {
            continue;
        };
        match generated {
            // Not generated yet: the region is decided again in the next round, with
            // analyses of the function as it now is.
            Ok(codegen::Generated::EntrySplit) => {
                DECIDED.with(|d| d.borrow_mut().remove(&region_identity(region)));
                return true;
            }
            Ok(codegen::Generated::Region) => {
                speculate::generated(region);
                analyses.remark(
                    RemarkKind::Passed,
                    "Generated",
                    at,
                    &format!(
                        "{} optimized ({description}), behind a run-time check{}",
                        region.spec.title(),
                        speculated_values(analyses, region)
                    ),
                );
                // The analyses now describe a function that is gone: the shim runs the
                // pass again, with fresh ones, for the other regions.
                return true;
            }
            Err(e) => analyses.remark(
                RemarkKind::Missed,
                "CodegenFailed",
                at,
                &unchanged(region, &e.to_string()),
            ),
        }
    }
    false
}

thread_local! {
    /// The round of the pass on the current function whose detection remarks are said:
    /// the first, or the one after guards were split (see `split_guards`).
    static REMARKS_DUE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
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
/// temporary the function owns back into loads; whether any was.
fn unrotate_loads(fa: &FunctionAnalyses<'_>, detection: &Detection<'_>) -> bool {
    let mut changed = false;
    for region in &detection.regions {
        let owns_temporary = region
            .spec
            .arrays
            .iter()
            .any(|a| codegen::propagate::removable(region, &a.name));
        if owns_temporary {
            let rotated = detect::rotated::find(fa, &region.ir.loops);
            changed |= detect::rotated::unrotate(fa, &rotated);
        }
    }
    changed
}

/// A region's model after expression propagation, with what code generation recomputes.
/// What `propagate` made of a region.
enum Propagated {
    /// Temporaries recomputed where they are read: the rewritten model.
    Rewritten(Box<Propagation>),
    /// None recomputed: the stages fuse instead, with every candidate folded (the
    /// decision and the folds).
    FusedInstead(Decision, Folded),
    Nothing,
}

struct Propagation {
    scop: crate::model::Scop,
    recomputed: Vec<exprprop::Recompute>,
    /// For the remark: what was propagated and removed.
    description: String,
}

/// Most instructions one statement instance may clone to recompute what it reads. A
/// bound on code size and compile time against chains whose recomputation multiplies
/// (each stage reading several of the one before), far above what was measured to pay:
/// stencil_chain2d (three 5-point stages, about 300 instructions per output) ran 5.4x
/// faster than -O3 recomputed, unsharp_pipe 7.2x.
const MAX_RECOMPUTED_INSTRUCTIONS: usize = 4096;

/// Most instructions one statement instance of a region over rows recomputes when
/// several temporaries go together; past it the dearest temporary stays. Measured on
/// the corpus' pipelines: stencil_chain2d (660 per instance) ran 5.4x faster than -O3,
/// unsharp_pipe (277) 5x; harris_pipe with eight of its nine temporaries recomputed
/// (2982 per instance: each box sum recomputed the Sobel gradients of nine pixels, from
/// three rows of the image) ran 0.85x of -O3, and 2.3x with the gray plane kept (the
/// other seven recomputed). Over one dimension the values recomputed lie in a window of
/// a few cache lines: lit ExprProp/expression-propagation.c's five-stage chain (3867
/// per instance) runs 5.3x faster, stencil_chain1d (423) 7x; no bound but
/// `MAX_RECOMPUTED_INSTRUCTIONS` applies there.
const PAYING_RECOMPUTED_INSTRUCTIONS: usize = 1024;

/// Most instructions one statement instance of a region over rows recomputes when its
/// stages could fuse instead, with every candidate temporary folded to the rows alive at
/// once (`fusion_folds_all`). Measured at 4096² against fusion alone: unsharp_pipe (277
/// per instance) 6.1x of -O3 recomputed, 5.5x fused; stencil_chain2d (660) 2.3x
/// recomputed, 3.4x fused; harris_pipe (2982) 4.0x recomputed (with the gray plane
/// kept), 6.0x fused.
const FUSION_OVER_RECOMPUTED_INSTRUCTIONS: usize = 400;

/// Most temporaries propagated in one region.
const MAX_PROPAGATED: usize = 8;

/// Expression propagation of the region's temporaries that the function owns (see
/// `codegen::propagate::removable`): the rewritten model, or the stages fused instead
/// (see `FUSION_OVER_RECOMPUTED_INSTRUCTIONS`), or nothing. Candidates that stay
/// (memory the function does not own) are said in an analysis remark.
///
/// Every candidate is judged on the region as written, and what code generation
/// recomputes comes from there: each recomputed load is a load of the original code,
/// at the counters of the statement it sits in. Several temporaries go together only
/// when every producer reads nothing the region writes but the temporaries themselves
/// (a pipeline over its input): a producer recomputed inside another's recomputation
/// then runs later than the reload test looked, on values nothing changes. The model
/// is rewritten one temporary after the other, each on the model the one before left.
fn propagate(
    fa: &FunctionAnalyses<'_>,
    ctx: &IslCtx,
    region: &DetectedRegion<'_>,
    scop: &crate::model::Scop,
    at: RemarkAt<'_>,
    options: &Options,
) -> Propagated {
    let Ok(verdicts) = scop
        .context
        .ctx()
        .within_share(EXPRPROP_SHARE, || exprprop::analyse(scop))
    else {
        return Propagated::Nothing;
    };
    // Candidates with what their reads recompute, judged on the original model.
    let mut candidates: Vec<(&exprprop::Verdict, Vec<exprprop::Recompute>)> = Vec::new();
    for verdict in &verdicts {
        let array = match verdict {
            exprprop::Verdict::Propagable { array, .. } => array,
            // Said of the temporaries propagation could remove, were it possible.
            exprprop::Verdict::Kept { array, reason } => {
                if codegen::propagate::removable(region, array) {
                    let name = codegen::propagate::source_name(fa, region, array);
                    fa.remark(
                        RemarkKind::Analysis,
                        "NotPropagable",
                        at,
                        &format!(
                            "temporary {name} is not recomputed where it is read: {}",
                            reason.replace(array.as_str(), &name)
                        ),
                    );
                }
                continue;
            }
        };
        if !codegen::propagate::removable(region, array) {
            remark_candidate(
                fa,
                region,
                at,
                verdict,
                "it is not memory the function owns and reads only in the region",
            );
            continue;
        }
        let Ok(Some((_, recomputes))) = exprprop::rewrite(&region.spec, scop, verdict) else {
            remark_candidate(
                fa,
                region,
                at,
                verdict,
                "a read needs the producer at other than a shifted instance",
            );
            continue;
        };
        if let Err(why) = codegen::propagate::plan(region, &recomputes) {
            remark_candidate(fa, region, at, verdict, &why);
            continue;
        }
        match exprprop::loses_constant_strides(scop, verdict) {
            Ok(None) => {}
            Ok(Some(why)) => {
                remark_candidate(fa, region, at, verdict, &why);
                continue;
            }
            Err(_) => {
                remark_candidate(fa, region, at, verdict, "its cost could not be judged");
                continue;
            }
        }
        candidates.push((verdict, recomputes));
    }
    // Cut before the check below, which must see exactly the temporaries that go.
    candidates.truncate(MAX_PROPAGATED);
    if candidates.len() > 1 {
        // Only producers whose operands the region never writes, unless they are the
        // temporaries that go too; dropping one may disqualify another.
        keep_producers_of_inputs(scop, &mut candidates);
        if candidates.is_empty() {
            remark_dropped(
                fa,
                at,
                "each producer reads what the region writes besides the temporaries",
            );
            return Propagated::Nothing;
        }
    }
    // Recomputation that pays: while the temporaries of a region over rows (statements
    // two or more loops deep) together would have a statement recompute more than
    // `PAYING_RECOMPUTED_INSTRUCTIONS`, the one whose recomputation costs most stays (and
    // then whatever no longer qualifies without it).
    let nested = scop
        .statements
        .iter()
        .any(|s| s.textual_positions.len() > 2);
    let cost = |candidates: &[(&exprprop::Verdict, Vec<exprprop::Recompute>)],
                skip: Option<usize>| {
        let recomputes: Vec<exprprop::Recompute> = candidates
            .iter()
            .enumerate()
            .filter(|(k, _)| Some(*k) != skip)
            .flat_map(|(_, (_, r))| r.iter().cloned())
            .collect();
        codegen::propagate::plan(region, &recomputes).map_or(usize::MAX, |plan| {
            codegen::propagate::cloned_instructions(region, &plan)
        })
    };
    // Over rows, stages fused with their temporaries in a few rows beat recomputation
    // that repeats each producer for every cell of a stencil (see
    // `FUSION_OVER_RECOMPUTED_INSTRUCTIONS`).
    if nested && options.fusion && options.quov {
        let all = cost(&candidates, None);
        if all > FUSION_OVER_RECOMPUTED_INSTRUCTIONS {
            if let Some((decision, folded, names)) =
                fusion_folds_all(fa, ctx, region, scop, options, &candidates)
            {
                fa.remark(
                    RemarkKind::Analysis,
                    "FusedInstead",
                    at,
                    &format!(
                        "{} {} not recomputed where {} read (it would take {all} instructions per statement instance): the stages fuse instead, with {} stored in the rows alive at once",
                        names.join(", "),
                        if names.len() == 1 { "is" } else { "are" },
                        if names.len() == 1 { "it is" } else { "they are" },
                        if names.len() == 1 { "it" } else { "them" },
                    ),
                );
                return Propagated::FusedInstead(decision, folded);
            }
        }
    }
    while nested && candidates.len() > 1 {
        let cost = |skip: Option<usize>| cost(&candidates, skip);
        let all = cost(None);
        if all <= PAYING_RECOMPUTED_INSTRUCTIONS {
            break;
        }
        // Ties go to the later temporary: the earlier stages are the cheaper ones.
        let Some(dearest) = (0..candidates.len()).rev().min_by_key(|k| cost(Some(*k))) else {
            break;
        };
        let (verdict, _) = candidates.remove(dearest);
        remark_candidate(
            fa,
            region,
            at,
            verdict,
            &format!(
                "recomputing it with the others would take {all} instructions per statement instance, more than the {PAYING_RECOMPUTED_INSTRUCTIONS} that were measured to pay"
            ),
        );
        keep_producers_of_inputs(scop, &mut candidates);
    }
    if candidates.is_empty() {
        return Propagated::Nothing;
    }
    let mut spec = region.spec.clone();
    let mut current: Option<crate::model::Scop> = None;
    let mut recomputed: Vec<exprprop::Recompute> = Vec::new();
    let mut done: Vec<String> = Vec::new();
    for (original, recomputes) in candidates {
        let model = current.as_ref().unwrap_or(scop);
        let Ok(verdicts) = model
            .context
            .ctx()
            .within_share(EXPRPROP_SHARE, || exprprop::analyse(model))
        else {
            remark_dropped(
                fa,
                at,
                "the analysis of the rewritten region reached isl's operation bound (raise it with -polyrust-max-operations=N)",
            );
            return Propagated::Nothing;
        };
        // Each rewrite leaves the others' temporaries as they were: one that no longer
        // qualifies on the rewritten model stops them all.
        let give_up = |why: &str| {
            let name = codegen::propagate::source_name(fa, region, original.array());
            remark_dropped(fa, at, &format!("{name} {why}"));
        };
        let Some(verdict) = verdicts.iter().find(|v| v.array() == original.array()) else {
            give_up("is no longer written once the others are propagated");
            return Propagated::Nothing;
        };
        if let exprprop::Verdict::Kept { reason, .. } = verdict {
            give_up(&format!(
                "no longer qualifies once the others are propagated: {reason}"
            ));
            return Propagated::Nothing;
        }
        let Ok(Some((rewritten, _))) = exprprop::rewrite(&spec, model, verdict) else {
            give_up("cannot be rewritten once the others are propagated");
            return Propagated::Nothing;
        };
        let Ok(rebuilt) = crate::model::Scop::build(ctx, &rewritten) else {
            give_up("leaves a model that does not build");
            return Propagated::Nothing;
        };
        if let exprprop::Verdict::Propagable {
            array,
            producer,
            reads,
        } = original
        {
            let count = match reads.len() {
                1 => "1 read".to_string(),
                n => format!("{n} reads"),
            };
            done.push(format!(
                "{} recomputed where it is read ({count}), {producer} and its stores removed",
                codegen::propagate::source_name(fa, region, array),
            ));
        }
        spec = rewritten;
        recomputed.extend(recomputes);
        current = Some(rebuilt);
    }
    let Some(scop) = current else {
        return Propagated::Nothing;
    };
    let dropped = |why: &str| remark_dropped(fa, at, why);
    let plan = match codegen::propagate::plan(region, &recomputed) {
        Ok(plan) => plan,
        Err(why) => {
            dropped(&why);
            return Propagated::Nothing;
        }
    };
    let cloned = codegen::propagate::cloned_instructions(region, &plan);
    if cloned > MAX_RECOMPUTED_INSTRUCTIONS {
        dropped(&format!(
            "a statement would recompute {cloned} instructions per instance (at most {MAX_RECOMPUTED_INSTRUCTIONS})"
        ));
        return Propagated::Nothing;
    }
    Propagated::Rewritten(Box::new(Propagation {
        scop,
        recomputed,
        description: format!("expression propagation: {}", done.join("; ")),
    }))
}

/// Keeps the candidates whose producers read only inputs (see
/// `producer_reads_only_inputs`) given the others kept; dropping one may disqualify
/// another, so until nothing changes.
fn keep_producers_of_inputs(
    scop: &crate::model::Scop,
    candidates: &mut Vec<(&exprprop::Verdict, Vec<exprprop::Recompute>)>,
) {
    loop {
        let going: Vec<&str> = candidates.iter().map(|(v, _)| v.array()).collect();
        let before = candidates.len();
        candidates.retain(|(verdict, _)| producer_reads_only_inputs(scop, verdict, &going));
        if candidates.len() == before {
            break;
        }
    }
}

/// Whether the producer of `verdict` reads only arrays that stay unchanged from its own
/// loop nest to the end of the region: the temporaries in `going`, arrays the region
/// does not write, and arrays written only in loop nests before the producer's.
fn producer_reads_only_inputs(
    scop: &crate::model::Scop,
    verdict: &exprprop::Verdict,
    going: &[&str],
) -> bool {
    let exprprop::Verdict::Propagable { producer, .. } = verdict else {
        return false;
    };
    let Some(statement) = scop.statements.iter().find(|s| &s.name == producer) else {
        return false;
    };
    let nest = |s: &crate::model::Statement| s.textual_positions.first().copied();
    let own = nest(statement);
    statement
        .accesses
        .iter()
        .filter(|a| a.kind == crate::model::spec::AccessKind::Read)
        .all(|read| {
            going.contains(&read.array.as_str())
                || scop
                    .statements
                    .iter()
                    .filter(|s| {
                        s.accesses.iter().any(|w| {
                            w.array == read.array && w.kind != crate::model::spec::AccessKind::Read
                        })
                    })
                    .all(|writer| matches!((nest(writer), own), (Some(w), Some(p)) if w < p))
        })
}

/// Share of the operation bound folding may use per array: half (a 3-D time-expanded
/// stencil needs about a fifth of the default bound).
const QUOV_SHARE: u64 = 1;

/// What folding made of a region's temporaries under one schedule.
struct Folded {
    folds: Vec<crate::transform::quov::Folding>,
    /// The dependences that decide which loops are parallel, with the folded storage's
    /// own added (`None`: the loops keep their order).
    dependences: Option<crate::isl::UnionMap>,
    /// The temporaries that keep their storage (source names), each with why.
    kept: Vec<(String, String)>,
}

impl Folded {
    fn nothing(dependences: Option<crate::isl::UnionMap>) -> Folded {
        Folded {
            folds: Vec::new(),
            dependences,
            kept: Vec::new(),
        }
    }

    /// An analysis remark per temporary that keeps its storage.
    fn remark_kept(&self, fa: &FunctionAnalyses<'_>, at: RemarkAt<'_>) {
        for (name, why) in &self.kept {
            fa.remark(
                RemarkKind::Analysis,
                "NotFolded",
                at,
                &format!("temporary {name} keeps its storage: {why}"),
            );
        }
    }
}

/// The temporaries of the region (memory the function owns, nothing after the region
/// reads it) that `schedule` lets be stored folded, and those that stay with why.
fn fold_temporaries(
    fa: &FunctionAnalyses<'_>,
    ctx: &IslCtx,
    region: &DetectedRegion<'_>,
    scop: &Scop,
    schedule: &crate::isl::Schedule,
    dependences: Option<crate::isl::UnionMap>,
) -> Folded {
    let mut out = Folded::nothing(dependences);
    for array in owned_temporaries(region, scop) {
        let name = codegen::propagate::source_name(fa, region, &array);
        let verdict = ctx.within_share(QUOV_SHARE, || {
            crate::transform::quov::fold(scop, schedule, out.dependences.as_ref(), &array)
        });
        match verdict {
            Ok(Ok(folding)) => {
                if let Some(d) = out.dependences.take() {
                    // Without the folded storage's dependences no loop may be called
                    // parallel: then nothing is folded.
                    let Ok(all) = folding.dependences.copy().and_then(|f| d.union(f)) else {
                        return Folded::nothing(None);
                    };
                    out.dependences = Some(all);
                }
                out.folds.push(folding);
            }
            Ok(Err(reason)) => out.kept.push((name.clone(), reason.replace(&array, &name))),
            Err(e) => out.kept.push((name, e.to_string())),
        }
    }
    out
}

/// The region's stages fused (see `transform::fusion`) with what folds under the fused
/// schedule and the source names of the temporaries of `candidates`, when every one of
/// them folds.
fn fusion_folds_all(
    fa: &FunctionAnalyses<'_>,
    ctx: &IslCtx,
    region: &DetectedRegion<'_>,
    scop: &Scop,
    options: &Options,
    candidates: &[(&exprprop::Verdict, Vec<exprprop::Recompute>)],
) -> Option<(Decision, Folded, Vec<String>)> {
    let (decision, folded) = fused_and_folded(fa, ctx, region, scop, options)?;
    let mut names = Vec::new();
    for (verdict, _) in candidates {
        let array = verdict.array();
        if !folded.folds.iter().any(|f| f.array == array) {
            return None;
        }
        names.push(codegen::propagate::source_name(fa, region, array));
    }
    Some((decision, folded, names))
}

/// The region's stages fused (see `transform::fusion`), when that folds more of its
/// temporaries than program order (`in_order`): the decision and the folds.
fn fuse_for_folding(
    fa: &FunctionAnalyses<'_>,
    ctx: &IslCtx,
    region: &DetectedRegion<'_>,
    scop: &Scop,
    options: &Options,
    in_order: &Folded,
) -> Option<(Decision, Folded)> {
    let (decision, folded) = fused_and_folded(fa, ctx, region, scop, options)?;
    if folded.folds.len() <= in_order.folds.len() {
        return None;
    }
    Some((decision, folded))
}

/// How a remark names the loop nest of `statement` fused along the loop below `shared`
/// shared ones: `the loop at blur.c:46`, else the statement's name.
fn nest_name(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    statement: &str,
    shared: usize,
) -> String {
    let location = region
        .ir
        .statements
        .iter()
        .find(|s| s.name == statement)
        .and_then(|s| s.loops.get(shared).copied())
        .and_then(|l| fa.loop_location(l));
    match location {
        Some(location) => format!("the loop at {}", crate::model::spec::file_line(&location)),
        None => statement.to_string(),
    }
}

/// The region's stages fused, as a decision, and what folds under the fused schedule.
fn fused_and_folded(
    fa: &FunctionAnalyses<'_>,
    ctx: &IslCtx,
    region: &DetectedRegion<'_>,
    scop: &Scop,
    options: &Options,
) -> Option<(Decision, Folded)> {
    // The dependences are the costliest stage: not for a region of one nest.
    if !crate::transform::fusion::has_stages(scop) {
        return None;
    }
    let deps = {
        let _time = fa.time(Stage::Deps);
        ctx.within_share(DEPS_SHARE, || {
            Dependences::compute(scop, &deps_options(&region.spec, options))
        })
        .ok()?
    };
    let fused = {
        let _time = fa.time(Stage::Schedule);
        ctx.within_share(DEPS_SHARE, || crate::transform::fusion::fuse(scop, &deps))
            .ok()??
    };
    let all = deps.all().ok()?;
    let folded = fold_temporaries(
        fa,
        ctx,
        region,
        scop,
        &fused.schedule,
        Some(all.copy().ok()?),
    );
    let description = fused.describe(&|statement| nest_name(fa, region, statement, fused.shared));
    let decision = Decision::Transform {
        schedule: fused.schedule,
        description,
        dependences: all,
    };
    Some((decision, folded))
}

/// Arrays of the region that are memory the function owns and that nothing after the
/// region reads, accessed in the model (a temporary expression propagation removed is
/// not), when no scalar of the model is promoted into memory (whose element addresses
/// code generation computes the original way).
fn owned_temporaries(region: &DetectedRegion<'_>, scop: &Scop) -> Vec<String> {
    if !region.ir.promotions.is_empty() {
        return Vec::new();
    }
    scop.arrays
        .iter()
        .filter(|a| !a.is_scalar)
        .filter(|a| {
            scop.statements
                .iter()
                .any(|s| s.accesses.iter().any(|x| x.array == a.name))
        })
        .filter(|a| codegen::propagate::removable(region, &a.name))
        .map(|a| a.name.clone())
        .collect()
}

/// `temporary U stored as U[i0 mod 2][i1] (QUOV [1, 1])`, for every fold.
fn describe_folds(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    folds: &[crate::transform::quov::Folding],
) -> String {
    folds
        .iter()
        .map(|f| {
            let name = codegen::propagate::source_name(fa, region, &f.array);
            let quov = match &f.quov {
                Some(u) if f.follows_quov() => format!(" (shortest QUOV {u:?})"),
                Some(u) => format!(
                    " (its writer's shortest QUOV is {u:?}; the fold follows the array's own dimensions instead)"
                ),
                None => String::new(),
            };
            format!(
                "temporary {name} stored as {}{quov}: {}",
                f.describe(&name),
                f.savings()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// An analysis remark: expression propagation was given up in the region, and why.
fn remark_dropped(fa: &FunctionAnalyses<'_>, at: RemarkAt<'_>, why: &str) {
    fa.remark(
        RemarkKind::Analysis,
        "PropagationDropped",
        at,
        &format!("expression propagation dropped: {why}"),
    );
}

/// An analysis remark for a temporary that could be recomputed but is not, and why.
fn remark_candidate(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    at: RemarkAt<'_>,
    verdict: &exprprop::Verdict,
    why: &str,
) {
    fa.remark(
        RemarkKind::Analysis,
        "Propagable",
        at,
        &format!(
            "{} could be recomputed where it is read, but stays: {why}",
            codegen::propagate::source_name(fa, region, verdict.array())
        ),
    );
}

/// Share of the operation bound the expression propagation analysis may use: half.
/// harris_pipe, one region of ten stages, needs about a quarter for the seven
/// temporaries left once the image's gray plane stays.
const EXPRPROP_SHARE: u64 = 2;

/// Says which temporaries of the region expression propagation could recompute where
/// they are read (`-Rpass-analysis=polyrust`); the propagation itself is still to come.
/// An isl error (the bound reached) only means nothing is said.
fn report_propagation(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    scop: &crate::model::Scop,
    at: RemarkAt<'_>,
) {
    let Ok(verdicts) = scop
        .context
        .ctx()
        .within_share(EXPRPROP_SHARE, || exprprop::analyse(scop))
    else {
        return;
    };
    for verdict in verdicts {
        if let exprprop::Verdict::Propagable {
            array,
            producer,
            reads,
        } = verdict
        {
            let mut consumers: Vec<&str> = reads.iter().map(|r| r.consumer.as_str()).collect();
            consumers.dedup();
            let array = codegen::propagate::source_name(fa, region, &array);
            fa.remark(
                RemarkKind::Analysis,
                "Propagable",
                at,
                &format!(
                    "{array} could be recomputed where it is read ({} reads in {} of the value {producer} writes; its operands stay unchanged in between): a candidate for expression propagation",
                    reads.len(),
                    consumers.join(", ")
                ),
            );
        }
    }
}

/// Gives each speculation candidate of `detection` its call into the runtime, with a
/// remark, unless a profile made it a region already; whether any was given one.
fn instrument(fa: &FunctionAnalyses<'_>, detection: &Detection<'_>, path: &str) -> bool {
    let mut changed = false;
    for candidate in speculate::candidates(fa, detection) {
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

/// `, which also compares n = 1024, ...` for a region speculated on values.
fn speculated_values(fa: &FunctionAnalyses<'_>, region: &DetectedRegion<'_>) -> String {
    if region.ir.speculated.is_empty() {
        return String::new();
    }
    let values: Vec<String> = region
        .ir
        .speculated
        .iter()
        .map(|(v, c)| speculate::speculated_text(fa, *v, *c))
        .collect();
    format!(
        " that also compares {} (from the profile)",
        values.join(", ")
    )
}

/// The missed-optimization remark `name` for a region left as it was.
fn left_unchanged(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    at: RemarkAt,
    name: &str,
    reason: &str,
) {
    fa.remark(RemarkKind::Missed, name, at, &unchanged(region, reason));
}

/// `region in f at file.c:12 left unchanged: <reason>`.
fn unchanged(region: &DetectedRegion<'_>, reason: &str) -> String {
    format!(
        "{} left unchanged: {}",
        region.spec.title(),
        region.spec.strip_name(reason)
    )
}

thread_local! {
    /// The regions of the function at hand already decided in an earlier round (by the
    /// address of their entry block, which rewriting another region leaves in place),
    /// so that each is modelled, decided and reported once. Rewritten regions need no
    /// entry: their loops are tagged and detection skips them.
    static DECIDED: std::cell::RefCell<std::collections::HashSet<RegionIdentity>> =
        std::cell::RefCell::default();
}

/// The entry block's address and the (value address, constant) pairs speculated on.
type RegionIdentity = (usize, Vec<(usize, i64)>);

/// A region by its entry block and, for specialized versions (which share the entry
/// of the loops they specialize), the constants speculated on.
fn region_identity(region: &DetectedRegion<'_>) -> RegionIdentity {
    (
        region.ir.entry.as_mut_ptr() as usize,
        region
            .ir
            .speculated
            .iter()
            .map(|(v, c)| (*v as usize, *c))
            .collect(),
    )
}

/// The fate of one modelled region, decided here for the pass and for every printer:
/// cheap refusals first (a shape code generation does not handle, a problem too large
/// to schedule, nothing to gain, assumptions that exclude real problem sizes), then the
/// dependences,
/// and then the imported schedule or the transformation stage's choice.
pub fn decide(
    fa: &FunctionAnalyses<'_>,
    modelled: &Modelled<'_, '_>,
    options: &Options,
) -> Result<Decision, String> {
    let Some(scop) = &modelled.scop else {
        return Err("it has no model".into());
    };
    let region = modelled.region;
    if let Err(e) = region.replaceable() {
        return Ok(Decision::Keep(e.to_string()));
    }
    let hardware = hardware(fa, options);
    let locality = if modelled.imported {
        None
    } else {
        // The cheap refusals belong to the scheduling stage's decision.
        let _time = fa.time(Stage::Schedule);
        match schedule::refuse_early(scop, options, &hardware).map_err(|e| e.to_string())? {
            Prospect::Refused(reason) => return Ok(Decision::Keep(reason)),
            Prospect::Worth(locality) => Some(locality),
        }
    };
    let deps = {
        let _time = fa.time(Stage::Deps);
        scop.context
            .ctx()
            .within_share(DEPS_SHARE, || {
                Dependences::compute(scop, &deps_options(&region.spec, options))
            })
            .map_err(|e| e.to_string())?
    };
    let Some(locality) = locality else {
        return imported_schedule(scop, &deps);
    };
    let _time = fa.time(Stage::Schedule);
    schedule::decide(scop, &deps, options, &hardware, &locality).map_err(|e| e.to_string())
}

/// The dependences get this share of the region's operation bound, counted afresh.
/// Measured: every region of the kernel corpus fits in a quarter (altdir_sweep needs
/// more than an eighth), while the NPB regions that exhaust the whole bound spent
/// 1.2 to 1.5 s each doing so, for nothing.
const DEPS_SHARE: u64 = 4;

/// The first refusals `decide` makes of a region without an imported schedule, which
/// need the region but not its model: a shape code generation does not handle, a region
/// too large to schedule.
fn refuse_unmodelled(_fa: &FunctionAnalyses<'_>, region: &DetectedRegion<'_>) -> Option<String> {
    if let Err(e) = region.replaceable() {
        return Some(e.to_string());
    }
    schedule::refuse_by_size(&region.spec)
}

/// The machine the code is optimized for: options first, then the host's caches when
/// compiling for the host, then the target's description.
fn hardware(fa: &FunctionAnalyses<'_>, options: &Options) -> Hardware {
    let target = TargetHardware {
        simd_bits: fa.vector_register_bits(),
        vector_registers: fa.vector_registers(),
        l1_bytes: fa.cache_size(CacheLevel::L1Data).map(u64::from),
        l2_bytes: fa.cache_size(CacheLevel::L2Data).map(u64::from),
    };
    // The host's caches describe the target when the code is compiled for this machine.
    let host =
        compiling_for_host(fa).then(|| read_host_caches(std::path::Path::new(HOST_CACHE_DIR)));
    Hardware::resolve(
        &ExplicitHardware::from_options(options),
        host.as_ref(),
        &target,
    )
}

/// The reductions detection found, relaxed only under -polyrust-allow-reassociation.
pub fn deps_options(spec: &crate::model::ScopSpec, options: &Options) -> DepsOptions {
    DepsOptions {
        reductions: spec
            .statements
            .iter()
            .flat_map(|s| {
                s.reductions.iter().map(|array| ReductionCandidate {
                    statement: s.name.clone(),
                    array: array.clone(),
                })
            })
            .collect(),
        allow_reassociation: options.allow_reassociation,
    }
}

/// An imported schedule, used as it is when it respects the dependences.
fn imported_schedule(scop: &Scop, deps: &Dependences) -> Result<Decision, String> {
    let map = scop.schedule.get_map().map_err(|e| e.to_string())?;
    if !deps.respects(&map).map_err(|e| e.to_string())? {
        return Ok(Decision::Keep(
            "the imported schedule does not respect the dependences".into(),
        ));
    }
    let schedule = scop.schedule.copy().map_err(|e| e.to_string())?;
    Ok(Decision::Transform {
        schedule,
        description: "imported schedule".into(),
        dependences: deps.all().map_err(|e| e.to_string())?,
    })
}

/// Whether the module targets the architecture polyrust runs on.
fn compiling_for_host(fa: &FunctionAnalyses<'_>) -> bool {
    let target = crate::llvm::ir::module_triple(fa.function());
    let host = inkwell::targets::TargetMachine::get_default_triple();
    let host = host.as_str().to_string_lossy();
    let arch = |t: &str| t.split('-').next().unwrap_or_default().to_string();
    !target.is_empty() && arch(&target) == arch(&host)
}

/// The isl context for one function's regions, under the operation bound; `None`
/// when there is nothing to model or isl cannot start (said in a warning).
pub fn isl_context(
    fa: &FunctionAnalyses<'_>,
    detection: &Detection<'_>,
    options: &Options,
) -> Option<IslCtx> {
    if detection.regions.is_empty() {
        return None;
    }
    match IslCtx::new(options.max_operations) {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            fa.diagnose(
                Severity::Warning,
                &format!("cannot start isl ({e}); no region is modelled"),
            );
            None
        }
    }
}

/// One region and its model, when it could be built.
pub struct Modelled<'d, 'f> {
    pub region: &'d DetectedRegion<'f>,
    pub scop: Option<Scop>,
    /// The schedule came from -polyrust-import.
    pub imported: bool,
}

/// Builds the isl model of every detected region under the operation bound, exports it
/// and imports schedules when asked. A region whose model cannot be built is left
/// alone with a remark saying why; a bad import file is an error naming the file and
/// field.
pub fn model_regions<'d, 'f>(
    fa: &FunctionAnalyses<'f>,
    ctx: &IslCtx,
    detection: &'d Detection<'f>,
    options: &Options,
) -> Vec<Modelled<'d, 'f>> {
    detection
        .regions
        .iter()
        .map(|region| model_region(fa, ctx, region, options))
        .collect()
}

/// The isl model of one detected region (see `model_regions`).
pub fn model_region<'d, 'f>(
    fa: &FunctionAnalyses<'f>,
    ctx: &IslCtx,
    region: &'d DetectedRegion<'f>,
    options: &Options,
) -> Modelled<'d, 'f> {
    ctx.start_region();
    let at = region
        .top
        .first()
        .map_or_else(RemarkAt::default, |l| RemarkAt::loop_start(*l));
    let built = {
        let _time = fa.time(Stage::Model);
        Scop::build(ctx, &region.spec)
    };
    let scop = match built {
        Ok(scop) => Some(scop),
        Err(e) if e.is_operation_limit() => {
            fa.remark(
                RemarkKind::Missed,
                "OperationLimit",
                at,
                &unchanged(
                    region,
                    &format!(
                        "the polyhedral model needs more than {} isl operations; raise -polyrust-max-operations",
                        options.max_operations.unwrap_or(0)
                    ),
                ),
            );
            None
        }
        Err(e) => {
            fa.remark(
                RemarkKind::Missed,
                "ModelFailed",
                at,
                &unchanged(
                    region,
                    &format!(
                        "its model could not be built: {}",
                        region.spec.strip_name(&e.to_string())
                    ),
                ),
            );
            None
        }
    };
    let mut imported = false;
    let scop = scop.map(|mut scop| {
        if let Some(dir) = &options.import_dir {
            imported = import(fa, &mut scop, &region.spec.name, dir);
        }
        if let Some(dir) = &options.export_dir {
            export(fa, &scop, &region.spec.name, dir);
        }
        scop
    });
    Modelled {
        region,
        scop,
        imported,
    }
}

/// `dir/<function>___<block>.json`: one file per region, named so it is stable across
/// compilations of the same source.
pub fn json_path(dir: &Path, region_name: &str) -> PathBuf {
    let file: String = region_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{file}.json"))
}

fn export(fa: &FunctionAnalyses<'_>, scop: &Scop, name: &str, dir: &Path) {
    let path = json_path(dir, name);
    let written =
        std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, json::export(scop)));
    if let Err(e) = written {
        fa.diagnose(
            Severity::Error,
            &format!("-polyrust-export: cannot write '{}': {e}", path.display()),
        );
    }
}

/// Reads the region's schedule from `dir` if a file for it is there; true if it was.
fn import(fa: &FunctionAnalyses<'_>, scop: &mut Scop, name: &str, dir: &Path) -> bool {
    let path = json_path(dir, name);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        // No file for this region: it keeps its own schedule.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        Err(e) => {
            fa.diagnose(
                Severity::Error,
                &format!("-polyrust-import: cannot read '{}': {e}", path.display()),
            );
            return false;
        }
    };
    match json::import_schedule(scop, &text, &path) {
        Ok(()) => true,
        Err(e) => {
            fa.diagnose(Severity::Error, &format!("-polyrust-import: {e}"));
            false
        }
    }
}
