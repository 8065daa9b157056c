//! The plan of one region: what runs (its schedule with tiles and register tiles, the
//! temporaries recomputed where they are read, the stages fused, the temporaries stored
//! folded, the loop AST), or why nothing does (`KeepReason`). One function,
//! `plan_region`, makes it from the modelled region; code generation carries it out,
//! and the printers print it, so what a user reads is what runs.
//!
//! A plan is made in steps, each the choice of one transformation's module: first,
//! whether the region is a matrix product the packed product computes bit for bit
//! (`transform::product`; then that is the plan), then
//! propagation (`transform::exprprop::choice`), the order (`order`: the scheduling
//! decision, fusion for folding, the original order where folding alone pays), the
//! storage (`transform::quov::storage`), and the loop AST. Where the AST cannot be
//! built, the plan steps back (`fallbacks`) and is made again. Everything the steps
//! have to say is kept in the plan's notes, which only the pass says.

mod decide;
pub mod fallbacks;
mod order;
pub mod print;
pub mod reductions;

use crate::codegen::CodegenError;
use crate::deps::DepsOptions;
use crate::isl::ast::{self, Ast};
use crate::llvm::Stage;
use crate::model::Scop;
use crate::options::{Options, Parallel};
use crate::report::Notes;
use crate::transform::closure::Closure;
use crate::transform::exprprop::choice::{self, Propagation, PropagationSettings, Proposal};
use crate::transform::exprprop::Recompute;
use crate::transform::hardware::ExplicitHardware;
use crate::transform::product::recognise::recognise;
use crate::transform::product::Product;
use crate::transform::quov::storage::describe_folds;
use crate::transform::quov::Folding;
use crate::transform::schedule::ScheduleSettings;
use crate::transform::Subject;

use fallbacks::{Enabled, Fallback, NewCodeShape};
use order::{Order, OrderInputs};

/// What a plan is made with: the options its steps use, taken once from `Options`.
#[derive(Clone, Debug)]
pub struct PlanSettings {
    /// The scheduling stage's settings, before any fallback.
    pub schedule: ScheduleSettings,
    /// The cache sizes and SIMD width given on the command line.
    pub hardware: ExplicitHardware,
    /// Reductions may be reordered (`-polyrust-allow-reassociation`).
    pub allow_reassociation: bool,
    /// New code even where nothing is expected to gain (`-polyrust-force-codegen`).
    pub force_codegen: bool,
    /// Parallel loops run on OpenMP threads (`-polyrust-parallel`, `-fopenmp`): a
    /// region with one gets new code even in its original order.
    pub threads: bool,
    /// The transformations the options enable, before any fallback.
    pub enabled: Enabled,
}

impl PlanSettings {
    /// The settings `options` give.
    pub fn new(options: &Options) -> Self {
        PlanSettings {
            schedule: ScheduleSettings::new(options),
            hardware: ExplicitHardware::from_options(options),
            allow_reassociation: options.allow_reassociation,
            force_codegen: options.force_codegen,
            threads: false,
            enabled: Enabled::from_options(options),
        }
    }
}

/// Whether the parallel loops of `function` run on OpenMP threads
/// (`-polyrust-parallel=true`, or by default when the module was compiled with
/// `-fopenmp`: clang's `openmp` module flag), and from how much work on.
pub fn threads(function: inkwell::values::FunctionValue<'_>, options: &Options) -> Option<u64> {
    let on = match options.parallel {
        Parallel::On => true,
        Parallel::Off => false,
        Parallel::Auto => crate::llvm::link::compiled_with_openmp(function),
    };
    on.then_some(options.parallel_min_work)
}

/// What happens to one region, with what the steps that decided it have to say.
pub struct Plan {
    /// New code, or why the region stays as it is.
    pub outcome: Outcome,
    /// The remarks due, in the order they were made.
    pub notes: Notes,
}

/// New code for a region, or why it stays as it is.
pub enum Outcome {
    /// The region stays as it is.
    Keep(KeepReason),
    /// The region is replaced by new code behind a run-time check.
    Generate(Box<NewRegion>),
    /// The region is a matrix product, replaced by a call of the packed product behind
    /// a run-time check (`transform::product`).
    Product(Box<Product>),
    /// The region is the in-place all-pairs shortest-path nest, replaced by a call of
    /// the blocked min-plus closure behind a run-time check (`transform::closure`).
    Closure(Box<Closure>),
}

/// Why a region stays as it is.
#[derive(Clone, Debug, PartialEq)]
pub enum KeepReason {
    /// A refusal before the model: a shape code generation does not handle, a region too
    /// large to schedule.
    Refused(String),
    /// A check the profile shows failing (`-polyrust-profile-use`).
    CheckFailed(String),
    /// The scheduling stage finds nothing to gain.
    NothingToGain(String),
    /// No schedule could be computed (isl's bound, an error).
    NoSchedule(String),
    /// Code generation cannot carry out the plan, and no step back is left.
    CannotGenerate(String),
    /// isl failed copying the original schedule (nothing is said).
    IslFailure(String),
}

impl KeepReason {
    /// The missed-optimization remark's name and reason, for the reasons that are said
    /// when the plan is made (not `IslFailure`).
    pub fn remark(&self) -> Option<(&'static str, &str)> {
        match self {
            KeepReason::Refused(why) | KeepReason::NothingToGain(why) => Some(("Unchanged", why)),
            KeepReason::CheckFailed(why) => Some(("CheckFailed", why)),
            KeepReason::NoSchedule(why) => Some(("NoSchedule", why)),
            KeepReason::CannotGenerate(why) => Some(("CodegenFailed", why)),
            KeepReason::IslFailure(_) => None,
        }
    }

    /// The reason as a printer shows it.
    pub fn describe(&self) -> &str {
        match self {
            KeepReason::Refused(why)
            | KeepReason::CheckFailed(why)
            | KeepReason::NothingToGain(why)
            | KeepReason::NoSchedule(why)
            | KeepReason::CannotGenerate(why)
            | KeepReason::IslFailure(why) => why,
        }
    }
}

/// The new code of a region.
pub struct NewRegion {
    /// Expression propagation's rewrite of the model, with the reads recomputed; `None`:
    /// the code comes from the region's own model.
    pub propagation: Option<Propagation>,
    /// Its loops tiled into register tiles.
    pub register_tiled: bool,
    /// What was done, as the remark says (`loops interchanged (...); temporary ...`).
    pub description: String,
    /// The temporaries stored folded.
    pub folds: Vec<Folding>,
    /// The loop AST of the schedule, under the model's assumed context.
    pub ast: Ast,
    /// The steps back taken to get here, in order.
    pub fallbacks: Vec<Fallback>,
    /// The scalar reductions whose updates the threads of a forked loop split, each
    /// thread into a partial of its own (`reductions`).
    pub reductions: Vec<reductions::ScalarReduction>,
}

impl NewRegion {
    /// The model the new code comes from: propagation's rewrite, else `original`.
    pub fn scop<'a>(&'a self, original: &'a Scop) -> &'a Scop {
        self.propagation.as_ref().map_or(original, |p| &p.scop)
    }

    /// The reads recomputed where they are read.
    pub fn recomputed(&self) -> &[Recompute] {
        self.propagation
            .as_ref()
            .map_or(&[], |p| p.recomputed.as_slice())
    }

    /// What a fallback could take away from this code.
    pub fn shape(&self) -> NewCodeShape {
        NewCodeShape {
            register_tiled: self.register_tiled,
            folds: !self.folds.is_empty(),
            recomputes: !self.recomputed().is_empty(),
        }
    }
}

/// The plan of a modelled region (`scop`, whose schedule was imported when
/// `imported`), after the steps back in `fallbacks` (none at first; code generation
/// that fails on a plan asks for it again with one more, see `Fallback::after`).
pub fn plan_region(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    imported: bool,
    settings: &PlanSettings,
    mut fallbacks: Vec<Fallback>,
) -> Plan {
    let mut notes = Notes::default();
    if let Some(product) = product(subject, scop, imported, settings, &fallbacks) {
        return plan(Outcome::Product(Box::new(product)), notes);
    }
    if let Some(closure) = closure(subject, scop, imported, settings, &fallbacks) {
        return plan(Outcome::Closure(Box::new(closure)), notes);
    }
    loop {
        subject.ctx.start_region();
        let mut enabled = settings.enabled.less(&fallbacks);
        // Register tiles put copies of a statement for several values of its outer
        // counters into one innermost loop: under a data-dependent condition
        // (`detect::guarded`) each copy tests its own there, which keeps the loop from
        // vectorizing; without them the test is made once around the innermost loop.
        if subject
            .region
            .ir
            .statements
            .iter()
            .any(|s| !s.guards.is_empty())
        {
            enabled.register_tiling = false;
        }
        let new = match attempt(subject, scop, imported, settings, enabled, &mut notes) {
            Ok(new) => new,
            Err(reason) => return plan(Outcome::Keep(reason), notes),
        };
        let for_threads = new.order.for_threads.clone();
        let serial_reductions = new.order.serial_reductions.clone();
        let built = {
            let _time = subject.fa.time(Stage::Ast);
            with_ast(new, scop, fallbacks.clone())
        };
        match built {
            Ok(new) => {
                if let Some(reason) = for_threads {
                    if !new.ast.root.has_parallel_loop() {
                        let why = serial_reductions.unwrap_or_else(|| {
                            "every loop carries a dependence (a reduction's updates stay in \
                             their order)"
                                .into()
                        });
                        let reason =
                            format!("{reason}; and no loop can run on OpenMP threads: {why}");
                        return plan(Outcome::Keep(KeepReason::NothingToGain(reason)), notes);
                    }
                }
                return plan(Outcome::Generate(Box::new(new)), notes);
            }
            Err((shape, error)) => match Fallback::after(&error, shape, &enabled) {
                Some(fallback) => {
                    fallback.note(&mut notes);
                    fallbacks.push(fallback);
                }
                None => {
                    let reason = KeepReason::CannotGenerate(error.to_string());
                    return plan(Outcome::Keep(reason), notes);
                }
            },
        }
    }
}

fn plan(outcome: Outcome, notes: Notes) -> Plan {
    Plan { outcome, notes }
}

/// The first step: the matrix product the region computes, when products are enabled
/// (`-polyrust-products`, no step back from one) and the schedule is not imported.
fn product(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    imported: bool,
    settings: &PlanSettings,
    fallbacks: &[Fallback],
) -> Option<Product> {
    if imported || !settings.enabled.less(fallbacks).products {
        return None;
    }
    subject.region.replaceable().ok()?;
    let hardware = decide::hardware(subject.fa, &settings.hardware);
    recognise(subject, scop, &hardware).ok()
}

/// The second step: the min-plus closure the region computes, when closures are
/// enabled (`-polyrust-closures`, no step back from one) and the schedule is not
/// imported.
fn closure(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    imported: bool,
    settings: &PlanSettings,
    fallbacks: &[Fallback],
) -> Option<Closure> {
    if imported || !settings.enabled.less(fallbacks).closures {
        return None;
    }
    subject.region.replaceable().ok()?;
    crate::transform::closure::recognise(subject, scop).ok()
}

/// One try at new code with what `enabled` allows, without its AST yet.
fn attempt(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    imported: bool,
    settings: &PlanSettings,
    enabled: Enabled,
    notes: &mut Notes,
) -> Result<Unbuilt, KeepReason> {
    let deps_options = DepsOptions::for_region(&subject.region.spec, settings.allow_reassociation);
    let proposal = if enabled.exprprop {
        let settings = PropagationSettings {
            fusion_instead: enabled.fusion && enabled.quov,
            deps_options: &deps_options,
        };
        choice::propose(subject, scop, &settings, notes)
    } else {
        choice::note_candidates(subject, scop, notes);
        Proposal::Nothing
    };
    let (propagation, fused_instead) = match proposal {
        Proposal::Rewritten(p) => (Some(*p), None),
        Proposal::FusedInstead(fused) => (None, Some(*fused)),
        Proposal::Nothing => (None, None),
    };
    let propagated = propagation
        .as_ref()
        .map_or(String::new(), |p| format!("{}; ", p.description));
    let inputs = OrderInputs {
        scop: propagation.as_ref().map_or(scop, |p| &p.scop),
        imported,
        settings,
        schedule: enabled.scheduling(&settings.schedule),
        enabled,
        fused_instead,
        recomputes: propagation
            .as_ref()
            .is_some_and(|p| !p.recomputed.is_empty()),
        propagated: &propagated,
        deps_options: &deps_options,
    };
    let order = order::choose(subject, inputs, notes)?;
    order.folded.note_kept(notes);
    Ok(unbuilt(subject, propagation, order))
}

/// New code but for its loop AST.
struct Unbuilt {
    propagation: Option<Propagation>,
    order: Order,
}

fn unbuilt(
    subject: &Subject<'_, '_>,
    propagation: Option<Propagation>,
    mut order: Order,
) -> Unbuilt {
    if !order.folded.folds.is_empty() {
        order.description = format!(
            "{}; {}",
            order.description,
            describe_folds(subject, &order.folded.folds)
        );
    }
    Unbuilt { propagation, order }
}

/// The new code with its loop AST, generated under the whole operation bound counted
/// afresh (the tiled loops cost more to generate than anything the decision looked at);
/// or, when isl cannot build it, what the code holds and the error.
fn with_ast(
    unbuilt: Unbuilt,
    original: &Scop,
    fallbacks: Vec<Fallback>,
) -> Result<NewRegion, (NewCodeShape, CodegenError)> {
    let Unbuilt { propagation, order } = unbuilt;
    let shape = NewCodeShape {
        register_tiled: order.register_tiled,
        folds: !order.folded.folds.is_empty(),
        recomputes: propagation
            .as_ref()
            .is_some_and(|p| !p.recomputed.is_empty()),
    };
    let scop = propagation.as_ref().map_or(original, |p| &p.scop);
    let dependences = order.folded.dependences;
    let built = scop.context.ctx().within_share(1, || {
        ast::generate_checking_parallelism(
            &scop.assumed_context,
            &order.schedule,
            dependences.as_ref(),
        )
    });
    match built {
        Ok(ast) => Ok(NewRegion {
            propagation,
            register_tiled: shape.register_tiled,
            description: order.description,
            folds: order.folded.folds,
            ast,
            fallbacks,
            reductions: order.reductions,
        }),
        Err(e) => Err((shape, CodegenError::Isl(e))),
    }
}
