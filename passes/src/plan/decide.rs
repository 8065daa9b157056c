//! The scheduling stage's decision on one modelled region, for the machine the code is
//! compiled for: cheap refusals first (a shape new code cannot replace, as detection found, a
//! problem too large to schedule, nothing to gain, assumptions that exclude real problem
//! sizes), then the dependences, and then the imported schedule, matrix-vector passes
//! fused by blocks of rows (`transform::row_blocks`) or, once the chain rule judged
//! whether a chain's rows may be interleaved (`transform::schedule::judge_chains`),
//! the transformation stage's choice (`transform::schedule::decide`); a region that
//! stage keeps (or refuses early as having nothing to tile or reorder) may still get
//! its independent recurrences interleaved (`transform::sweeps`).

use crate::deps::{Dependences, DepsOptions, DEPS_SHARE};
use crate::llvm::{CacheLevel, FunctionAnalyses, Stage};
use crate::model::Scop;
use crate::options::Tiling;
use crate::transform::hardware::{
    read_host_caches, ExplicitHardware, Hardware, TargetHardware, HOST_CACHE_DIR,
};
use crate::transform::schedule::{
    self, ChainCost, ChainRows, Decision, Prospect, ScheduleSettings,
};
use crate::transform::{self, Subject};

use super::PlanSettings;

/// The decision on `scop` (the region's model, or propagation's rewrite of it), whose
/// schedule was imported (`-polyrust-import`) when `imported`; an error says why no
/// schedule could be computed.
pub fn decide(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    imported: bool,
    settings: &PlanSettings,
    schedule: &ScheduleSettings,
) -> Result<Decision, String> {
    let fa = subject.fa;
    if let Err(e) = subject.region.replaceable() {
        return Ok(Decision::Keep(e.to_string()));
    }
    let hardware = hardware(fa, &settings.hardware);
    let locality = if imported {
        None
    } else {
        // The cheap refusals belong to the scheduling stage's decision.
        let _time = fa.time(Stage::Schedule);
        match schedule::refuse_early(scop, schedule, &hardware).map_err(|e| e.to_string())? {
            // A region with nothing to tile or reorder may still hold recurrences to
            // interleave (`sweeps`), unless it is too large to schedule at all.
            Prospect::Refused(reason)
                if interleaves(settings, schedule)
                    && transform::sweeps::may_interleave(scop)
                    && schedule::refuse_by_size(&subject.region.spec).is_none() =>
            {
                Some(Err(reason))
            }
            Prospect::Refused(reason) => return Ok(Decision::Keep(reason)),
            Prospect::Worth(locality) => Some(Ok(locality)),
        }
    };
    let deps_options = DepsOptions::for_region(&subject.region.spec, settings.allow_reassociation);
    let deps = {
        let _time = fa.time(Stage::Deps);
        scop.context
            .ctx()
            .within_share(DEPS_SHARE, || Dependences::compute(scop, &deps_options))
            .map_err(|e| e.to_string())?
    };
    let Some(locality) = locality else {
        return imported_schedule(scop, &deps);
    };
    let _time = fa.time(Stage::Schedule);
    let locality = match locality {
        Ok(locality) => locality,
        Err(reason) => return Ok(sweeps(scop, &deps)?.unwrap_or(Decision::Keep(reason))),
    };
    if let Some(fused) = row_blocks(scop, &deps, settings, schedule)? {
        return Ok(fused);
    }
    let cost = || ChainCost {
        fused_multiply_add: fuses_multiply_add(fa),
        reruns_over_its_arrays: subject.region.ir.reruns_over_its_arrays(fa),
    };
    let interleave_rows = match schedule::judge_chains(scop, &locality, schedule, cost) {
        ChainRows::Interleaved => true,
        ChainRows::InOrder => false,
        ChainRows::Kept(reason) => return Ok(Decision::Keep(reason)),
    };
    let schedule = &ScheduleSettings {
        interleave_rows,
        ..schedule.clone()
    };
    let decision =
        schedule::decide(scop, &deps, schedule, &hardware, &locality).map_err(|e| e.to_string())?;
    match decision {
        Decision::Keep(reason) if interleaves(settings, schedule) => {
            Ok(sweeps(scop, &deps)?.unwrap_or(Decision::Keep(reason)))
        }
        decision => Ok(decision),
    }
}

/// Whether independent recurrences may be interleaved (`transform::sweeps`): with SICA
/// tiling (the default; it strip-mines a loop), and not under OpenMP threads, where the
/// independent loop runs on the threads whole.
fn interleaves(settings: &PlanSettings, schedule: &ScheduleSettings) -> bool {
    schedule.tiling == Tiling::Sica && !settings.threads
}

/// The last choice of the order, for a region the scheduling stage keeps: its
/// independent recurrences interleaved (`transform::sweeps`).
fn sweeps(scop: &Scop, deps: &Dependences) -> Result<Option<Decision>, String> {
    let Some(interleaved) = transform::sweeps::choose(scop, deps).map_err(|e| e.to_string())?
    else {
        return Ok(None);
    };
    Ok(Some(Decision::Transform {
        schedule: interleaved.schedule,
        description: interleaved.description,
        register_tiles: false,
        dependences: deps.all().map_err(|e| e.to_string())?,
    }))
}

/// The first choice of the order: matrix-vector passes fused by blocks of rows
/// (`transform::row_blocks`), where the region has their shape; SICA tiling
/// (`-polyrust-tiling=sica`, the default) enables it, as it is a tiling of the rows.
/// Not under OpenMP threads: the passes' own loops over rows (or, interchanged, over
/// columns) run on the threads whole, where a block of 8 rows would fork its inner
/// loops once per row.
fn row_blocks(
    scop: &Scop,
    deps: &Dependences,
    settings: &PlanSettings,
    schedule: &ScheduleSettings,
) -> Result<Option<Decision>, String> {
    if schedule.tiling != Tiling::Sica || settings.threads {
        return Ok(None);
    }
    let Some(fused) = transform::row_blocks::choose(scop, deps).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    Ok(Some(Decision::Transform {
        schedule: fused.schedule,
        description: fused.description,
        register_tiles: false,
        dependences: deps.all().map_err(|e| e.to_string())?,
    }))
}

/// The machine the code is optimized for: options first, then the host's caches when
/// compiling for the host, then the target's description.
pub(super) fn hardware(fa: &FunctionAnalyses<'_>, given: &ExplicitHardware) -> Hardware {
    let target = TargetHardware {
        simd_bits: fa.vector_register_bits(),
        vector_registers: fa.vector_registers(),
        l1_bytes: fa.cache_size(CacheLevel::L1Data).map(u64::from),
        l2_bytes: fa.cache_size(CacheLevel::L2Data).map(u64::from),
    };
    // The host's caches describe the target when the code is compiled for this machine.
    let host =
        compiling_for_host(fa).then(|| read_host_caches(std::path::Path::new(HOST_CACHE_DIR)));
    Hardware::resolve(given, host.as_ref(), &target)
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
        register_tiles: false,
        dependences: deps.all().map_err(|e| e.to_string())?,
    })
}

/// Whether the function is compiled with fused multiply-adds (x86's `+fma`; other
/// targets are not told apart and count as without).
fn fuses_multiply_add(fa: &FunctionAnalyses<'_>) -> bool {
    crate::llvm::link::target_features(fa.function())
        .is_some_and(|features| features.split(',').any(|f| f == "+fma"))
}

/// Whether the module targets the architecture polyrust runs on.
fn compiling_for_host(fa: &FunctionAnalyses<'_>) -> bool {
    let target = crate::llvm::ir::module_triple(fa.function());
    let host = inkwell::targets::TargetMachine::get_default_triple();
    let host = host.as_str().to_string_lossy();
    let arch = |t: &str| t.split('-').next().unwrap_or_default().to_string();
    !target.is_empty() && arch(&target) == arch(&host)
}
