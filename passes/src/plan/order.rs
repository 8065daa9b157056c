//! The order a planned region's statements run in, with its temporaries' storage: the
//! scheduling stage's decision, or the stages fused where that folds more temporaries
//! than program order, or the original order where folding or propagation alone pays
//! (or a new schedule would keep whole a temporary the original order folds).

use crate::deps::{Dependences, DepsOptions, DEPS_SHARE};
use crate::isl::{Schedule, UnionMap};
use crate::model::Scop;
use crate::report::Notes;
use crate::transform::fusion::choice::{fuse_for_folding, FusedStages};
use crate::transform::quov::storage::{fold_temporaries, Folded};
use crate::transform::schedule::{Decision, ScheduleSettings};
use crate::transform::wavefront;
use crate::transform::Subject;

use super::fallbacks::Enabled;
use super::reductions::ScalarReduction;
use super::{KeepReason, PlanSettings};

/// The order chosen, with the temporaries' storage under it.
pub struct Order {
    /// The schedule to generate.
    pub schedule: Schedule,
    /// What the order is, for remarks, after what propagation did.
    pub description: String,
    /// The scheduling stage tiled loops into register tiles.
    pub register_tiled: bool,
    /// The temporaries' storage: folds, the dependences that mark parallel loops
    /// (`None`: none is marked), and what keeps its memory.
    pub folded: Folded,
    /// The order is the original one, new code only for its parallel loops to run on
    /// OpenMP threads: why the region would stay as it is otherwise.
    pub for_threads: Option<String>,
    /// The scalar reductions whose updates threads may split (see `reductions`).
    pub reductions: Vec<ScalarReduction>,
    /// Why the scalar reductions keep their loops serial (reassociation not allowed).
    pub serial_reductions: Option<String>,
}

/// What the order is chosen from besides the region.
pub struct OrderInputs<'a> {
    /// The model the code comes from (propagation's rewrite, or the region's own).
    pub scop: &'a Scop,
    /// Its schedule came from `-polyrust-import`.
    pub imported: bool,
    /// What the plan is made with.
    pub settings: &'a PlanSettings,
    /// The scheduling stage's settings, with what is still enabled.
    pub schedule: ScheduleSettings,
    /// What the plan may still use.
    pub enabled: Enabled,
    /// The stages fused already, chosen over recomputation.
    pub fused_instead: Option<FusedStages>,
    /// Reads recompute a temporary (expression propagation took place).
    pub recomputes: bool,
    /// What propagation did, `...; ` (or nothing), the start of every description.
    pub propagated: &'a str,
    /// The dependences' settings, for fusion.
    pub deps_options: &'a DepsOptions,
}

/// The order of the region's statements and its temporaries' storage, or why the region
/// stays as it is.
pub fn choose(
    subject: &Subject<'_, '_>,
    mut inputs: OrderInputs<'_>,
    notes: &mut Notes,
) -> Result<Order, KeepReason> {
    let (decision, in_order) = match inputs.fused_instead.take() {
        Some(fused) => (Ok(fused.decision), Some(fused.folded)),
        None => decided(subject, &inputs),
    };
    let (decision, in_order) = fused_for_folding(subject, &inputs, decision, in_order);
    let folds_in_order = in_order.as_ref().is_some_and(|f| !f.folds.is_empty());
    if let Ok(Decision::Keep(reason)) = &decision {
        if !inputs.recomputes && !folds_in_order {
            if let Some(order) = for_threads(subject, &inputs, reason) {
                return Ok(order);
            }
        }
    }
    let transformed = matches!(decision, Ok(Decision::Transform { .. }));
    let register_tiled = matches!(
        decision,
        Ok(Decision::Transform {
            register_tiles: true,
            ..
        })
    );
    let (mut schedule, mut description, dependences) =
        selected(&inputs, decision, in_order.as_ref(), notes)?;
    if transformed && inputs.settings.threads {
        if let Some(front) = dependences
            .as_ref()
            .and_then(|deps| wavefront::choose(&schedule, deps, notes))
        {
            schedule = front.schedule;
            description = format!("{description}; {}", front.description);
        }
    }
    let folded = match in_order {
        Some(folded) => folded,
        None if inputs.enabled.quov => {
            fold_temporaries(subject, inputs.scop, &schedule, dependences)
        }
        None => Folded::nothing(dependences),
    };
    let mut order = Order {
        schedule,
        description,
        register_tiled,
        folded,
        for_threads: None,
        reductions: Vec::new(),
        serial_reductions: None,
    };
    if transformed && !order.folded.kept.is_empty() {
        keep_original_if_it_folds_more(subject, &inputs, &mut order, notes);
    }
    Ok(order)
}

/// The original order with the dependences that mark its parallel loops, when those
/// are to run on OpenMP threads and the region would otherwise stay as it is (for
/// `reason`): whether a loop is parallel is known once its AST is built
/// (`plan_region` keeps the region when none is).
fn for_threads(subject: &Subject<'_, '_>, inputs: &OrderInputs<'_>, reason: &str) -> Option<Order> {
    let settings = inputs.settings;
    if !settings.threads || settings.force_codegen || subject.region.replaceable().is_err() {
        return None;
    }
    let scop = inputs.scop;
    let deps = scop
        .context
        .ctx()
        .within_share(DEPS_SHARE, || {
            Dependences::compute(scop, inputs.deps_options)
        })
        .ok()?;
    let reductions = super::reductions::scalar_reductions(subject, scop, &deps);
    let (relaxed, serial_reductions) = if settings.allow_reassociation {
        (reductions, None)
    } else {
        (
            Vec::new(),
            super::reductions::serial_reason(subject, &reductions),
        )
    };
    let marking = scop
        .context
        .ctx()
        .within_share(DEPS_SHARE, || {
            super::reductions::marking_dependences(scop, &deps, &relaxed)
        })
        .ok()?;
    Some(Order {
        schedule: scop.schedule.copy().ok()?,
        description: format!(
            "{}loops in their original order, for OpenMP threads",
            inputs.propagated
        ),
        register_tiled: false,
        folded: Folded::nothing(Some(marking)),
        for_threads: Some(reason.to_string()),
        reductions: relaxed,
        serial_reductions,
    })
}

/// The scheduling stage's decision, with what folds under the original order when the
/// loops keep it (folding alone can pay then).
fn decided(
    subject: &Subject<'_, '_>,
    inputs: &OrderInputs<'_>,
) -> (Result<Decision, String>, Option<Folded>) {
    let decision = super::decide::decide(
        subject,
        inputs.scop,
        inputs.imported,
        inputs.settings,
        &inputs.schedule,
    );
    let in_order = match (&decision, inputs.enabled.quov) {
        (Ok(Decision::Keep(_)), true) => inputs
            .scop
            .schedule
            .copy()
            .ok()
            .map(|original| fold_temporaries(subject, inputs.scop, &original, None)),
        _ => None,
    };
    (decision, in_order)
}

/// Stages that keep a temporary whole in program order may store it in a few rows once
/// fused (see `transform::fusion`): the fused stages then, with their folds.
fn fused_for_folding(
    subject: &Subject<'_, '_>,
    inputs: &OrderInputs<'_>,
    decision: Result<Decision, String>,
    in_order: Option<Folded>,
) -> (Result<Decision, String>, Option<Folded>) {
    match (decision, in_order) {
        (Ok(Decision::Keep(reason)), Some(in_order))
            if inputs.enabled.fusion && !in_order.kept.is_empty() =>
        {
            match fuse_for_folding(subject, inputs.scop, inputs.deps_options, &in_order) {
                Some(fused) => (Ok(fused.decision), Some(fused.folded)),
                None => (Ok(Decision::Keep(reason)), Some(in_order)),
            }
        }
        other => other,
    }
}

/// The schedule the decision selects, with its description and the dependences that
/// mark parallel loops, or why the region stays: the decision's new schedule; the
/// original order where propagation or folding alone pays; the original order when
/// forced (`-polyrust-force-codegen`).
fn selected(
    inputs: &OrderInputs<'_>,
    decision: Result<Decision, String>,
    in_order: Option<&Folded>,
    notes: &mut Notes,
) -> Result<(Schedule, String, Option<UnionMap>), KeepReason> {
    let propagated = inputs.propagated;
    let folds_in_order = in_order.is_some_and(|f| !f.folds.is_empty());
    let force = inputs.settings.force_codegen;
    let original = || {
        inputs
            .scop
            .schedule
            .copy()
            .map_err(|e| KeepReason::IslFailure(e.to_string()))
    };
    match decision {
        Ok(Decision::Transform {
            schedule,
            description,
            dependences,
            ..
        }) => Ok((
            schedule,
            format!("{propagated}{description}"),
            Some(dependences),
        )),
        // Propagation or folding alone pays: the temporary's stores or most of its
        // memory go.
        Ok(Decision::Keep(_)) if inputs.recomputes || folds_in_order => Ok((
            original()?,
            format!("{propagated}loops in their original order"),
            None,
        )),
        Ok(Decision::Keep(reason)) if !force => {
            if let Some(folded) = in_order {
                folded.note_kept(notes);
            }
            Err(KeepReason::NothingToGain(reason))
        }
        Err(reason) if !force => Err(KeepReason::NoSchedule(reason)),
        _ => Ok((
            original()?,
            format!("{propagated}original schedule (forced)"),
            None,
        )),
    }
}

/// A new schedule that keeps whole a temporary the original order folds (time tiles
/// whose boundary statements overwrite the rotating copies too early, say) gives way:
/// the temporary's memory is what the region moves most of.
fn keep_original_if_it_folds_more(
    subject: &Subject<'_, '_>,
    inputs: &OrderInputs<'_>,
    order: &mut Order,
    notes: &mut Notes,
) {
    let Ok(original) = inputs.scop.schedule.copy() else {
        return;
    };
    let in_order = fold_temporaries(subject, inputs.scop, &original, None);
    if in_order.folds.len() <= order.folded.folds.len() {
        return;
    }
    let whole: Vec<&str> = order
        .folded
        .kept
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    notes.analysis(
        "ScheduleForFolding",
        format!(
            "loops kept in their original order: the new schedule ({}) would keep temporary {} whole, which the original order stores folded",
            order.description,
            whole.join(", ")
        ),
    );
    order.schedule = original;
    order.register_tiled = false;
    order.description = format!("{}loops in their original order", inputs.propagated);
    order.folded = in_order;
}
