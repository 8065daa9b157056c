//! Run 2 of folded-profile speculation: a loop nest detection rejects because an inner
//! loop's trip count comes from a load inside the nest (`for (j = 0; j < len[i]; j++)`)
//! becomes a region when the profile (`-polyrust-instrument=accesses`, format 2) shows
//! that loop ran the same number of iterations for every outer iteration.
//!
//! The speculation is not on the profiled constant but on "the loaded bound does not
//! change along the outer loop", so it also holds for other inputs with another
//! constant. Round r: in front of the nest, `p0` is loaded from where the first outer
//! iteration loads the bound, and a check loop (one load per outer iteration, cheaper
//! than the nest) sets `ok` when every outer iteration loads `p0`; inside the nest the
//! loaded bound becomes `select ok, p0, bound`, which equals the bound whatever `ok`
//! is, so the IR computes what it did. Round r + 1 (fresh analyses): detection takes
//! `ok` to be 1 (`Translator::speculated_select`), so the bound is the parameter `p0`;
//! the region's run-time check compares `ok` with 1 like any speculated value, and the
//! original loops are the fallback. They stay open to later rounds: there the select
//! is undone and the loops get a preheader again, so the regions inside them are
//! optimized as without speculation. If the nest is not a region even with `ok` = 1,
//! the select is undone and the check loop, now unused, is deleted by LLVM.
//!
//! The same way, an access whose address depends on a value loaded at the outer
//! loop's level (`C[idx[i]][j]`) whose folded address moved by one stride along the
//! outer loop in every piece: the value is speculated to be `p0 + step * i` (the stride
//! over what one unit of the value moves the address), the check loop compares each
//! outer iteration's value with that, and the subscript is affine in the model.
//!
//! Conclusive: the check loads exactly the addresses the nest loads the value from (the
//! load is on every path from the outer loop's header to its latch, its only exit, so
//! it runs once in each of the outer loop's iterations), and no store of the nest
//! writes the value's array (a different base pointer; the region's check keeps arrays
//! apart at run time). Only outermost nests, with the value loaded at the outer loop's
//! level, one speculation per nest.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::prelude::LLVMTypeRef;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use polyrust_rt::profile::nest::SiteKind;
use polyrust_rt::profile::NestProfile;

use crate::detect::reject::RejectReason;
use crate::detect::{analyse_speculating, Detection, HANDLED};
use crate::llvm::builder::IrBuilder;
use crate::llvm::ir::{as_instruction, basic_value, int_width, operand, predecessors, successors};
use crate::llvm::source_terms::describe_loop;
use crate::llvm::{FunctionAnalyses, LLVMValueRef, Loop, RemarkAt, RemarkKind, Scev, ScevKind};

use super::specialize::{load, warn_once, ProfileSource};
use super::{identify_marked, module_hash, value_name, State};

/// What the folded profile says of how often one inner loop ran per outer iteration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SteadyTrips {
    /// The fewest and most iterations per outer iteration over the entries (equal when
    /// every entry ran the same).
    pub low: i64,
    pub high: i64,
    /// Loop-header events folded.
    pub events: u64,
}

/// Whether the loop-header site `site` (depth `depth`) of the folded `nests` (one per
/// thread that ran the nest) ran the same number of iterations in every outer
/// iteration of each entry: every piece is an exact, full box (its events are its
/// volume, so no outer iteration ran fewer) starting at iteration 0, and pieces of
/// the same entries agree on the count. The one place that reads nest profiles, so a
/// change of their types stays here.
pub(crate) fn steady_trips(
    nests: &[&NestProfile],
    site: usize,
    depth: usize,
) -> Result<SteadyTrips, String> {
    let mut seen: Vec<(i64, i64, i64)> = Vec::new(); // (first entry, last entry, count)
    let mut events = 0u64;
    for nest in nests {
        let s = nest
            .sites
            .get(site)
            .ok_or("the profile's nest has fewer sites than the loop nest")?;
        if s.kind != SiteKind::Loop || s.depth as usize != depth {
            return Err("the profile's sites do not match the loop nest".into());
        }
        if s.stream.gave_up {
            return Err("the profile gave up folding its iterations".into());
        }
        for piece in &s.stream.pieces {
            if !piece.is_affine()
                || piece.lower.len() != depth + 1
                || piece.upper.len() != depth + 1
            {
                return Err("its iterations are not an affine piece of the profile".into());
            }
            let mut volume: u128 = 1;
            for (lo, hi) in piece.lower.iter().zip(&piece.upper) {
                let extent = i128::from(*hi) - i128::from(*lo) + 1;
                volume = volume.saturating_mul(u128::try_from(extent).unwrap_or(0));
            }
            if volume == 0 || volume != u128::from(piece.events) {
                return Err(
                    "its iteration count changed from one outer iteration to another".into(),
                );
            }
            if piece.lower[depth] != 0 {
                return Err("its iterations do not start at 0 in the profile".into());
            }
            let count = piece.upper[depth].saturating_add(1);
            let entries = (piece.lower[0], piece.upper[0]);
            if seen
                .iter()
                .any(|(lo, hi, c)| *lo <= entries.1 && entries.0 <= *hi && *c != count)
            {
                return Err(
                    "its iteration count changed from one outer iteration to another".into(),
                );
            }
            seen.push((entries.0, entries.1, count));
            events = events.saturating_add(piece.events);
        }
    }
    let low = seen
        .iter()
        .map(|s| s.2)
        .min()
        .ok_or("it never ran in the profiled run")?;
    let high = seen.iter().map(|s| s.2).max().unwrap_or(low);
    Ok(SteadyTrips { low, high, events })
}

/// The nests of the function being compiled speculated on their loaded bounds, from
/// one round to the next (part of `super::State`).
#[derive(Default)]
pub(super) struct LoadedBounds {
    /// Nests prepared in an earlier round: root header → (the check's blocks, the
    /// profile's word on the loop for the remark).
    prepared: HashMap<usize, (CheckBlocks, Said)>,
    /// The `ok` of each check loop of a region handed to the optimizer, with what it
    /// verifies in words (for the remark on the region's run-time check).
    checked: HashMap<usize, String>,
    /// Root headers of nests speculated on (or tried): their original loops stay as
    /// fallback, and are not prepared again.
    finished: HashMap<usize, CheckBlocks>,
}

impl LoadedBounds {
    /// What the check loop whose result is `ok` verified, if `ok` is one.
    pub(super) fn checked_text(&self, ok: LLVMValueRef) -> Option<String> {
        self.checked.get(&(ok as usize)).cloned()
    }

    /// Keeps, for the next round, the check blocks of the nest of `root` and what the
    /// remarks say of its speculation and check.
    fn remember_prepared(
        &mut self,
        root: Loop<'_>,
        blocks: CheckBlocks,
        said: String,
        checked: String,
    ) {
        self.prepared.insert(
            root.header().as_mut_ptr() as usize,
            (blocks, (said, checked)),
        );
    }
}

/// See the module's doc. Returns whether the IR changed (a nest was prepared: the
/// round ends, and the next one models it).
pub fn speculate_bounds<'f>(
    fa: &FunctionAnalyses<'f>,
    state: &mut State,
    detection: &mut Detection<'f>,
    source: &ProfileSource<'_>,
) -> bool {
    let roots: Vec<Loop<'f>> = detection
        .rejected
        .iter()
        .filter(|n| {
            n.root.parent().is_none()
                && !n.root.has_tag(HANDLED)
                && n.reasons.iter().any(|(r, _)| {
                    matches!(
                        r.reason,
                        RejectReason::NonAffineLoopBound | RejectReason::NonAffineSubscript
                    )
                })
        })
        .map(|n| n.root)
        .collect();
    for root in roots {
        let key = root.header().as_mut_ptr() as usize;
        let bounds = &mut state.bounds;
        if let Some((blocks, said)) = bounds.prepared.remove(&key) {
            bounds.finished.insert(key, blocks);
            if finish(fa, bounds, detection, root, blocks, &said) {
                return true;
            }
            continue;
        }
        if let Some(blocks) = bounds.finished.get(&key).copied() {
            // The nest's region was generated (or not): in the original loops, now its
            // fallback, the select goes, so the regions inside them are modelled with
            // the bound each row loads, as without speculation.
            let undone = undo_selects(fa, root, blocks);
            if undone | give_preheader(fa, root) {
                return true;
            }
            continue;
        }
        if prepare(fa, state, root, source) {
            return true;
        }
    }
    false
}

/// The blocks of a check loop where its result may be defined (the comparison's block,
/// or the exit block's phi, which instcombine may fold away between rounds).
type CheckBlocks = [usize; 2];

/// The remark on a speculated nest, and what its check loop verifies.
type Said = (String, String);

/// Round r + 1: the nest as a region with `ok` = 1, or the select undone (then the IR
/// changed: true, the round ends).
fn finish<'f>(
    fa: &FunctionAnalyses<'f>,
    bounds: &mut LoadedBounds,
    detection: &mut Detection<'f>,
    root: Loop<'f>,
    blocks: CheckBlocks,
    said: &Said,
) -> bool {
    let at = RemarkAt::loop_start(root);
    let selects = prepared_selects(root, blocks);
    let Some(ok) = selects.first().and_then(|s| operand(*s, 0)) else {
        return false;
    };
    match analyse_speculating(fa, root, &[(ok, 1)]) {
        Ok(mut region) => {
            // The original loops, the fallback, stay open to later rounds: the regions
            // inside them (the inner loops, the bound a parameter of each row) are
            // optimized there, so a failing check costs little.
            region.ir.fallback_open = true;
            fa.remark(RemarkKind::Analysis, "SpeculatedBound", at, &said.0);
            bounds.checked.insert(ok as usize, said.1.clone());
            // The whole nest replaces the regions found inside it.
            detection
                .regions
                .retain(|r| !r.top.iter().any(|l| root.contains_block(l.header())));
            detection.regions.push(region);
            false
        }
        Err(rejected) => {
            undo_selects(fa, root, blocks);
            let why = rejected.reasons.first().map_or_else(
                || "detection refused it".to_string(),
                |(r, _)| r.to_string(),
            );
            fa.remark(
                RemarkKind::Analysis,
                "BoundNotSpeculated",
                at,
                &format!(
                    "loop nest not speculated on its loaded bound: with the bound fixed, {why}"
                ),
            );
            true
        }
    }
}

/// Puts the loaded bound back in place of the selects of `root`; returns whether there
/// were any.
fn undo_selects(fa: &FunctionAnalyses<'_>, root: Loop<'_>, blocks: CheckBlocks) -> bool {
    let selects = prepared_selects(root, blocks);
    let b = IrBuilder::new(fa.function());
    for select in &selects {
        if let Some(original) = operand(*select, 2) {
            // SAFETY: both are live values of the same type (the select's false arm).
            unsafe {
                inkwell::llvm_sys::core::LLVMReplaceAllUsesWith(select.as_value_ref(), original)
            };
            b.erase(select.as_value_ref());
        }
    }
    !selects.is_empty()
}

/// Tries the nest's accesses whose address depends on one value loaded at the outer
/// loop's level (`A[idx[i]]`): when the profile saw that address move by the same
/// multiple of the access's size per outer iteration in every piece, the loaded value
/// is speculated to be `idx[i0] + step * i`. Ok(true): the nest was prepared; Err: why
/// not, for the remark (Ok(false): no such access).
fn speculate_subscript<'f>(
    fa: &FunctionAnalyses<'f>,
    bounds: &mut LoadedBounds,
    profiled: &ProfiledNest<'_, 'f>,
) -> Result<bool, String> {
    let (root, nests, shown) = (profiled.root, &profiled.nests, &profiled.shown);
    let mut why_not = Vec::new();
    for (site, inst, pointer, _) in super::accesses::access_sites(fa, root)? {
        let address = fa.scev(&basic_value(pointer));
        let Ok(index) = loaded_bound(fa, root, address) else {
            continue;
        };
        let what = crate::llvm::source_terms::access_text(fa, inst);
        // Bytes the address moves per unit of the loaded value (a row's length for
        // `C[idx[i]][j]`): the address with the value 1 minus with the value 0.
        let at = |v: i64| fa.scev_substitute(address, &[(index.as_value_ref(), v)]);
        let unit = fa.minus(at(1), at(0)).constant().filter(|u| *u != 0);
        let step = match (subscript_stride(nests, site), unit) {
            (Ok(bytes), Some(unit)) if bytes % unit == 0 => bytes / unit,
            (Ok(bytes), _) => {
                why_not.push(format!(
                    "{what} moved by {bytes} bytes per outer iteration, not a multiple of what one unit of {} moves it",
                    value_name(fa, index.as_value_ref())
                ));
                continue;
            }
            (Err(why), _) => {
                why_not.push(format!("{what}: {why}"));
                continue;
            }
        };
        let name = value_name(fa, index.as_value_ref());
        let counter = crate::llvm::source_terms::counter_name(fa, root)
            .unwrap_or_else(|| "the outer counter".into());
        let said = format!(
            "loop nest speculated on an indirect subscript: in the profiled run ({shown}) the address of the {what} moved by the same stride per outer iteration in every piece, so {name} is taken to be its first value + {step} * {counter}; a check loop in front of the nest compares {name} in every outer iteration, and the original loops run if one differs"
        );
        let checked =
            format!("{name} in every outer iteration with its first value + {step} * {counter}");
        match rewrite(fa, root, index, Some(step)) {
            Ok(blocks) => {
                bounds.remember_prepared(root, blocks, said, checked);
                return Ok(true);
            }
            Err(why) => why_not.push(format!("{what}: {why}")),
        }
    }
    if why_not.is_empty() {
        Ok(false)
    } else {
        Err(why_not.join("; "))
    }
}

/// The byte stride along the outer loop (IV position 1) of access site `site` in the
/// folded `nests`, when every piece is affine and every thread agrees on it.
pub(crate) fn subscript_stride(nests: &[&NestProfile], site: usize) -> Result<i64, String> {
    let mut seen: Option<i64> = None;
    for nest in nests {
        let s = nest
            .sites
            .get(site)
            .ok_or("the profile's nest has fewer sites than the loop nest")?;
        if s.kind == SiteKind::Loop {
            return Err("the profile's sites do not match the loop nest".into());
        }
        if s.stream.gave_up
            || s.stream.pieces.is_empty()
            || !s.stream.pieces.iter().all(|p| p.is_affine())
        {
            return Err("its addresses were not affine in the profiled run".into());
        }
        let stride = s
            .strides
            .get(1)
            .copied()
            .flatten()
            .ok_or("its address did not move by one stride along the outer loop")?;
        if seen.is_some_and(|x| x != stride) {
            return Err("its stride differed between threads".into());
        }
        seen = Some(stride);
    }
    seen.ok_or_else(|| "it never ran in the profiled run".into())
}

/// Gives `root` a block of its own in front of it if it has none: the region's check
/// branches straight to the original loops, and the expander (code generation of the
/// regions inside them) wants a preheader. Returns whether the IR changed.
fn give_preheader(fa: &FunctionAnalyses<'_>, root: Loop<'_>) -> bool {
    if root.preheader().is_some() {
        return false;
    }
    let header = root.header();
    let outside: Vec<_> = predecessors(header)
        .into_iter()
        .filter(|b| !root.contains_block(*b))
        .collect();
    if outside.is_empty() {
        return false;
    }
    IrBuilder::new(fa.function())
        .route_edges_through(header, &outside, "polyrust.bound.fallback")
        .is_some()
}

/// The selects of `root` whose condition comes from the check ending at block `done`.
fn prepared_selects<'f>(root: Loop<'f>, blocks: CheckBlocks) -> Vec<InstructionValue<'f>> {
    let mut found = Vec::new();
    for block in root.blocks() {
        for inst in block.get_instructions() {
            if inst.get_opcode() != InstructionOpcode::Select {
                continue;
            }
            let from_check = operand(inst, 0)
                .and_then(as_instruction)
                .and_then(|c| c.get_parent())
                .is_some_and(|b| blocks.contains(&(b.as_mut_ptr() as usize)));
            if from_check {
                found.push(inst);
            }
        }
    }
    found
}

/// The load a loop's trip count comes from: the single value of `scev` computed inside
/// `root`, if that is a load of an integer in a block of `root` itself.
fn loaded_bound<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    scev: Scev<'f>,
) -> Result<InstructionValue<'f>, String> {
    let mut inside = Vec::new();
    let mut stack = vec![(scev, 0u32)];
    while let Some((s, depth)) = stack.pop() {
        if depth > 32 {
            return Err("its expression is too deep".into());
        }
        if s.kind() == ScevKind::Unknown {
            if let Some(inst) = s.unknown_value().and_then(as_instruction) {
                if inst.get_parent().is_some_and(|b| root.contains_block(b))
                    && !inside.contains(&inst)
                {
                    inside.push(inst);
                }
            }
            continue;
        }
        stack.extend(s.operands().into_iter().map(|o| (o, depth + 1)));
    }
    let [bound] = inside[..] else {
        return Err(format!(
            "it depends on {} values computed inside the nest",
            inside.len()
        ));
    };
    if bound.get_opcode() != InstructionOpcode::Load
        || bound.get_volatile().unwrap_or(true)
        || int_width(bound.as_value_ref()).is_none()
    {
        return Err("it depends on a value that is not loaded from memory".into());
    }
    if bound.get_parent().and_then(|b| fa.loop_for_block(b)) != Some(root) {
        return Err("it depends on a value loaded inside an inner loop".into());
    }
    Ok(bound)
}

/// Round r: finds an inner loop of `root` to speculate on and prepares the nest; says
/// why not when the profile has the nest but nothing can be speculated.
fn prepare<'f>(
    fa: &FunctionAnalyses<'f>,
    state: &mut State,
    root: Loop<'f>,
    source: &ProfileSource<'_>,
) -> bool {
    let Some(profile) = load(fa, source.path) else {
        return false;
    };
    let (id, _) = identify_marked(fa, &state.positions, root, &[], "accesses;");
    let nests: Vec<&NestProfile> = profile.nests.iter().filter(|n| n.id == id).collect();
    if nests.is_empty() {
        return false;
    }
    let shown = source.path.display().to_string();
    let module = module_hash(fa);
    if nests.iter().any(|n| n.module_hash != module) {
        warn_once(
            fa,
            format!(
                "-polyrust-profile-use: {shown} was recorded from another version of {}; regenerate it (build with -polyrust-profile-generate -polyrust-instrument=accesses, run); loop nests of this file are compiled without speculation",
                nests[0].file
            ),
        );
        return false;
    }
    let at = RemarkAt::loop_start(root);
    let profiled = ProfiledNest { root, nests, shown };
    let mut why_not = Vec::new();
    for (site, l) in root.preorder().into_iter().enumerate() {
        if l.parent() != Some(root) {
            continue;
        }
        match speculate_inner_bound(fa, &mut state.bounds, &profiled, l, site) {
            Ok(()) => return true,
            Err(why) => why_not.push(why),
        }
    }
    match speculate_subscript(fa, &mut state.bounds, &profiled) {
        Ok(true) => return true,
        Ok(false) => {}
        Err(why) => why_not.push(why),
    }
    if !why_not.is_empty() {
        fa.remark(
            RemarkKind::Analysis,
            "BoundNotSpeculated",
            at,
            &format!(
                "loop nest not speculated from the folded profile ({}): {}",
                profiled.shown,
                why_not.join("; ")
            ),
        );
    }
    false
}

/// A loop nest the folded profile has: its outermost loop, its folded records (one per
/// thread that ran it) and the profile's path as remarks show it.
struct ProfiledNest<'a, 'f> {
    root: Loop<'f>,
    nests: Vec<&'a NestProfile>,
    shown: String,
}

/// Speculates on the loaded bound of `l`, an inner loop of the nest (its header is
/// site `site` of the folded records): the nest is rewritten and what to say of it
/// kept for the next round; or why not.
fn speculate_inner_bound<'f>(
    fa: &FunctionAnalyses<'f>,
    bounds: &mut LoadedBounds,
    profiled: &ProfiledNest<'_, 'f>,
    l: Loop<'f>,
    site: usize,
) -> Result<(), String> {
    let (root, nests, shown) = (profiled.root, &profiled.nests, &profiled.shown);
    let what = describe_loop(fa, l);
    let trips = fa.backedge_taken_count(l);
    if trips.is_could_not_compute() {
        return Err(format!("the {what} has no computable trip count"));
    }
    let plan = loaded_bound(fa, root, trips).and_then(|bound| {
        let steady = steady_trips(nests, site, 2)?;
        Ok((bound, steady))
    });
    let (bound, steady) = plan.map_err(|why| format!("the {what}: {why}"))?;
    let name = value_name(fa, bound.as_value_ref());
    let count = if steady.low == steady.high {
        format!("{} iterations", steady.low)
    } else {
        format!("{} to {} iterations (by entry)", steady.low, steady.high)
    };
    let said = format!(
        "loop nest speculated on its loaded bound: in the profiled run ({shown}) the {what} ran {count} in every outer iteration, so {name} is taken to be the value the first outer iteration loads; a check loop in front of the nest compares {name} in every outer iteration, and the original loops run if one differs"
    );
    let checked = format!("{name} in every outer iteration with its first value");
    let blocks = rewrite(fa, root, bound, None).map_err(|why| format!("the {what}: {why}"))?;
    bounds.remember_prepared(root, blocks, said, checked);
    Ok(())
}

/// Puts the check loop in front of `root` and the select in place of `bound` (see the
/// module's doc); returns the check's blocks. Everything that can fail is looked at
/// before the control flow changes (an expansion that fails leaves dead code only).
fn rewrite<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    bound: InstructionValue<'f>,
    step: Option<i64>,
) -> Result<CheckBlocks, String> {
    let nest = BoundNest::of(fa, root, bound)?;
    // An indirect subscript is `p0 + step * i` in the nest: the outer counter there.
    let counter = match step {
        Some(_) => Some(
            fa.expand_loop_counter(root, nest.after)
                .ok_or("the outer loop's counter cannot be computed")?,
        ),
        None => None,
    };
    let b = IrBuilder::new(fa.function());
    let trips_value = fa
        .expand_with_counters(nest.trips, &[], &[], nest.trips_type, nest.enter)
        .ok_or("the outer trip count cannot be computed in front of the nest")?;
    let first = fa
        .expand_with_counters(
            nest.address,
            &[root],
            &[b.const_i64(0)],
            nest.pointer_type(),
            nest.enter,
        )
        .ok_or("the bound's address cannot be computed in front of the nest")?;
    b.position_before(nest.enter);
    let p0 = b.clone_with(bound, |op| if op == nest.pointer { first } else { op });
    let (ok, blocks) = check_loop(fa, &b, &nest, p0, trips_value, step)?;
    select_in_nest(&b, &nest, p0, ok, step.zip(counter));
    Ok(blocks)
}

/// A nest whose loaded bound can be speculated on, with what the rewrite needs from
/// it, all looked at before anything changes.
struct BoundNest<'f> {
    root: Loop<'f>,
    bound: InstructionValue<'f>,
    preheader: BasicBlock<'f>,
    /// The preheader's branch into the nest.
    enter: InstructionValue<'f>,
    /// The bound's address, as loaded and as an expression.
    pointer: LLVMValueRef,
    address: Scev<'f>,
    /// The outer loop's trip count and its type.
    trips: Scev<'f>,
    trips_type: LLVMTypeRef,
    /// The instruction after the bound's load.
    after: InstructionValue<'f>,
}

impl<'f> BoundNest<'f> {
    /// The nest of `root` with its bound loaded by `bound`, or why the rewrite cannot
    /// be done.
    fn of(
        fa: &FunctionAnalyses<'f>,
        root: Loop<'f>,
        bound: InstructionValue<'f>,
    ) -> Result<BoundNest<'f>, String> {
        let header = root.header();
        let preheader = root.preheader().ok_or("the nest has no preheader")?;
        let enter = preheader
            .get_terminator()
            .filter(|_| successors(preheader) == vec![header])
            .ok_or("the nest's preheader does not just enter it")?;
        let latch = root.latch().ok_or("the outer loop has no single latch")?;
        // The bound is loaded in every outer iteration, the same number of times as the
        // outer loop's trip count, iff the latch is the only way out and the load's block
        // is on the way to it.
        let exiting: Vec<BasicBlock<'f>> = root
            .blocks()
            .into_iter()
            .filter(|b| successors(*b).iter().any(|s| !root.contains_block(*s)))
            .collect();
        let block = bound.get_parent().ok_or("the bound's load has no block")?;
        if exiting != vec![latch] || !fa.dominates(block, latch) {
            return Err("its bound is not loaded in every outer iteration".into());
        }
        let pointer = operand(bound, 0).ok_or("the bound's load has no address")?;
        let address = fa.scev(&basic_value(pointer));
        if stores_into(fa, root, fa.pointer_base(address)) {
            return Err("the nest stores into the array its bound is loaded from".into());
        }
        let trips = fa.trip_count(root);
        if trips.is_could_not_compute() {
            return Err("the outer loop's trip count is not known before it runs".into());
        }
        if trips.bit_width().is_none_or(|w| w > 64) {
            return Err("the outer trip count does not fit 64 bits".into());
        }
        let trips_type = trips.raw_type().ok_or("the outer trip count has no type")?;
        let after = bound
            .get_next_instruction()
            .ok_or("the load ends its block")?;
        Ok(BoundNest {
            root,
            bound,
            preheader,
            enter,
            pointer,
            address,
            trips,
            trips_type,
            after,
        })
    }

    fn pointer_type(&self) -> LLVMTypeRef {
        // SAFETY: the type of a live value.
        unsafe { inkwell::llvm_sys::core::LLVMTypeOf(self.pointer) }
    }
}

/// Whether a store (or atomic update) of the nest of `root` may write through a
/// pointer with base `base` (one whose base is unknown may).
fn stores_into<'f>(fa: &FunctionAnalyses<'f>, root: Loop<'f>, base: Scev<'f>) -> bool {
    root.blocks().into_iter().any(|b| {
        b.get_instructions().any(|inst| {
            let written = match inst.get_opcode() {
                InstructionOpcode::Store => operand(inst, 1),
                InstructionOpcode::AtomicRMW | InstructionOpcode::AtomicCmpXchg => operand(inst, 0),
                _ => return false,
            };
            written
                .map(|p| fa.pointer_base(fa.scev(&basic_value(p))) == base)
                .unwrap_or(true)
        })
    })
}

/// The check loop in front of the nest: k from 0 while k + 1 < trips and every load of
/// the bound so far equals `p0` (plus `step * k` for a subscript). Its result `ok`, and
/// its blocks.
fn check_loop<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    nest: &BoundNest<'f>,
    p0: LLVMValueRef,
    trips_value: LLVMValueRef,
    step: Option<i64>,
) -> Result<(LLVMValueRef, CheckBlocks), String> {
    let (preheader, trips_type) = (nest.preheader, nest.trips_type);
    // Two blocks: the expander wants the counter defined in a block that properly
    // dominates the one it expands in.
    let check = b.new_block("polyrust.bound.check");
    let body = b.new_block("polyrust.bound.compare");
    let done = b.new_block("polyrust.bound.checked");
    // The expander asks the dominator tree whether the values it uses are available.
    fa.add_block_to_dominators(check, preheader);
    fa.add_block_to_dominators(body, check);
    fa.add_block_to_dominators(done, body);
    b.position_at_end(check);
    let k = b.phi(trips_type, "polyrust.bound.k");
    let k64 = b.zext_i64(k);
    let next = b.binary(LLVMOpcode::LLVMAdd, k, b.const_int(trips_type, 1));
    b.br(body);
    b.position_at_end(body);
    let more = b.icmp(LLVMIntPredicate::LLVMIntULT, next, trips_value);
    let at_k = as_instruction(more).and_then(|before| {
        fa.expand_with_counters(
            nest.address,
            &[nest.root],
            &[k64],
            nest.pointer_type(),
            before,
        )
    });
    let Some(at_k) = at_k else {
        // Nothing enters the new blocks yet: left unreachable, the IR stays valid.
        for block in [body, done] {
            b.position_at_end(block);
            b.unreachable();
        }
        return Err("the bound's address cannot be computed in the check".into());
    };
    b.position_at_end(body);
    let loaded = b.clone_with(nest.bound, |op| if op == nest.pointer { at_k } else { op });
    // In the value's own type, wrapping as the nest computes `p0 + step * i`: equal
    // there, the speculated subscript is the loaded one.
    let expected = match step {
        Some(step) => stepped(b, nest, p0, k, step),
        None => p0,
    };
    let same = b.icmp(LLVMIntPredicate::LLVMIntEQ, loaded, expected);
    let go_on = b.binary(LLVMOpcode::LLVMAnd, same, more);
    let back = b.cond_br(go_on, check, done);
    b.add_incoming(k, b.const_int(trips_type, 0), preheader);
    b.add_incoming(k, next, body);
    if let Some(branch) = as_instruction(back) {
        // Not a loop of the program: no later round models it.
        fa.tag_latch(branch, HANDLED, None);
    }
    b.position_at_end(done);
    let ok = b.phi(b.type_of(same), "polyrust.bound.ok");
    b.add_incoming(ok, same, body);
    b.br(nest.root.header());
    b.set_successor(nest.enter.as_value_ref(), 0, check);
    fa.replace_phi_incoming_block(nest.root.header(), preheader, done);
    Ok((ok, [body.as_mut_ptr() as usize, done.as_mut_ptr() as usize]))
}

/// `p0 + step * i` in the bound's own type, wrapping as the nest computes it.
fn stepped(
    b: &IrBuilder<'_>,
    nest: &BoundNest<'_>,
    p0: LLVMValueRef,
    i: LLVMValueRef,
    step: i64,
) -> LLVMValueRef {
    let value_type = b.type_of(nest.bound.as_value_ref());
    let i = b.int_cast_unsigned(i, value_type);
    let scaled = b.binary(LLVMOpcode::LLVMMul, i, b.const_int(value_type, step));
    b.binary(LLVMOpcode::LLVMAdd, p0, scaled)
}

/// In the nest, the bound becomes `select ok, p0 (+ step * i), bound`: equal to it
/// either way. `stepping`: the step and the outer counter, for a subscript.
fn select_in_nest<'f>(
    b: &IrBuilder<'f>,
    nest: &BoundNest<'f>,
    p0: LLVMValueRef,
    ok: LLVMValueRef,
    stepping: Option<(i64, LLVMValueRef)>,
) {
    let bound = nest.bound.as_value_ref();
    b.position_before(nest.after);
    let speculated = match stepping {
        Some((step, counter)) => stepped(b, nest, p0, counter, step),
        None => p0,
    };
    let select = b.select(ok, speculated, bound);
    let users: Vec<InstructionValue<'f>> = uses_of(bound)
        .into_iter()
        .filter(|u| u.as_value_ref() != select)
        .filter(|u| u.get_parent().is_some_and(|b| nest.root.contains_block(b)))
        .collect();
    for user in users {
        for i in 0..user.get_num_operands() {
            if operand(user, i) == Some(bound) {
                b.set_operand(user.as_value_ref(), i, select);
            }
        }
    }
}

/// The instructions using `value`.
fn uses_of<'f>(value: LLVMValueRef) -> Vec<InstructionValue<'f>> {
    let mut users = Vec::new();
    // SAFETY: walking the use list of a live value without changing it.
    unsafe {
        use inkwell::llvm_sys::core::{LLVMGetNextUse, LLVMGetUser};
        let mut u = inkwell::llvm_sys::core::LLVMGetFirstUse(value);
        while !u.is_null() {
            if let Some(inst) = as_instruction(LLVMGetUser(u)) {
                if !users.contains(&inst) {
                    users.push(inst);
                }
            }
            u = LLVMGetNextUse(u);
        }
    }
    users
}

#[cfg(test)]
mod tests {
    use super::*;
    use polyrust_rt::profile::nest::{FoldedStream, PieceProfile, SiteProfile};

    fn piece(lower: Vec<i64>, upper: Vec<i64>, events: u64) -> PieceProfile {
        PieceProfile {
            events,
            affine: true,
            vertices: vec![lower.clone(), upper.clone()],
            lower,
            upper,
            labels: vec![],
        }
    }

    fn nest(pieces: Vec<PieceProfile>) -> NestProfile {
        let site = |kind, depth, pieces| SiteProfile {
            kind,
            depth,
            size: 0,
            line: 0,
            column: 0,
            parent_loop: None,
            name: String::new(),
            stream: FoldedStream {
                events: 0,
                gave_up: false,
                pieces,
            },
            strides: vec![],
        };
        NestProfile {
            id: "f:0:0".into(),
            function: "f".into(),
            file: "f.c".into(),
            line: 1,
            module_hash: String::new(),
            modelled: false,
            thread: 0,
            entries: 1,
            folded_entries: 1,
            unfolded_accesses: 0,
            plain_iterations: 0,
            sites: vec![
                site(SiteKind::Loop, 1, vec![]),
                site(SiteKind::Loop, 2, pieces),
            ],
            dependences: vec![],
            shadow_full: false,
            dependences_dropped: 0,
        }
    }

    #[test]
    fn a_full_box_is_steady() {
        let n = nest(vec![piece(vec![0, 0, 0], vec![0, 9, 6], 70)]);
        assert_eq!(
            steady_trips(&[&n], 1, 2),
            Ok(SteadyTrips {
                low: 7,
                high: 7,
                events: 70
            })
        );
    }

    #[test]
    fn a_triangle_or_a_changing_count_is_not() {
        // Fewer events than the box: some outer iteration ran fewer.
        let n = nest(vec![piece(vec![0, 0, 0], vec![0, 9, 9], 55)]);
        assert!(steady_trips(&[&n], 1, 2).is_err());
        // Two pieces of the same entry with different counts.
        let n = nest(vec![
            piece(vec![0, 0, 0], vec![0, 4, 6], 35),
            piece(vec![0, 5, 0], vec![0, 9, 2], 15),
        ]);
        assert!(steady_trips(&[&n], 1, 2).is_err());
        // Other entries may run another count.
        let n = nest(vec![
            piece(vec![0, 0, 0], vec![0, 4, 6], 35),
            piece(vec![1, 0, 0], vec![1, 4, 2], 15),
        ]);
        let steady = steady_trips(&[&n], 1, 2).map(|s| (s.low, s.high));
        assert_eq!(steady, Ok((3, 7)));
    }

    #[test]
    fn a_subscript_stride_is_read_when_every_piece_is_affine() {
        let mut n = nest(vec![piece(vec![0, 0, 0], vec![0, 9, 6], 70)]);
        n.sites[1].kind = SiteKind::Load;
        n.sites[1].strides = vec![Some(0), Some(2048), Some(8)];
        assert_eq!(subscript_stride(&[&n], 1), Ok(2048));
        // A loop site, a stride not known along the outer loop, a piece with ⊤.
        assert!(subscript_stride(&[&n], 0).is_err());
        let mut unknown = n.clone();
        unknown.sites[1].strides[1] = None;
        assert!(subscript_stride(&[&unknown], 1).is_err());
        let mut top = n.clone();
        top.sites[1].stream.pieces[0].vertices.clear();
        assert!(subscript_stride(&[&top], 1).is_err());
        // Two threads that disagree.
        let mut other = n.clone();
        other.sites[1].strides[1] = Some(1024);
        assert!(subscript_stride(&[&n, &other], 1).is_err());
    }

    #[test]
    fn malformed_pieces_are_refused() {
        // Bounds of different lengths, an empty box, an upper bound below the lower.
        let mut p = piece(vec![0, 0, 0], vec![0, 9, 6], 70);
        p.upper.pop();
        assert!(steady_trips(&[&nest(vec![p])], 1, 2).is_err());
        let n = nest(vec![piece(vec![0, 5, 0], vec![0, 4, 6], 0)]);
        assert!(steady_trips(&[&n], 1, 2).is_err());
        let n = nest(vec![piece(vec![0, 0, 0], vec![0, 9, i64::MIN], 0)]);
        assert!(steady_trips(&[&n], 1, 2).is_err());
    }

    #[test]
    fn sites_that_do_not_match_are_refused() {
        let n = nest(vec![piece(vec![0, 0, 0], vec![0, 9, 6], 70)]);
        assert!(steady_trips(&[&n], 0, 2).is_err());
        assert!(steady_trips(&[&n], 5, 2).is_err());
        assert!(steady_trips(&[&n], 1, 3).is_err());
        let mut n = nest(vec![]);
        assert!(steady_trips(&[&n], 1, 2).is_err());
        n.sites[1].stream.gave_up = true;
        assert!(steady_trips(&[&n], 1, 2).is_err());
    }
}
