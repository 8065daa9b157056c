//! Code generation: replaces a region by the loop nest isl generates for a schedule,
//! behind a run-time check. The check block evaluates the model's assumptions, the
//! values speculated on (profile-guided speculation) and the alias-group ranges; when
//! they hold the new code runs, otherwise the original region runs unchanged. Input: a
//! detected region, its model and the schedule to generate. Output: the function with
//! `polyrust.check` in front of the region, or, when
//! generation cannot be completed, the function exactly as it was. Generated loops and
//! the original ones kept as fallback carry `polyrust.handled` in their loop ID (so no
//! later run rewrites them again); generated loops that carry no dependence also carry
//! `llvm.loop.parallel_accesses` over an access group holding their statements' memory
//! accesses (the run-time check guarantees the arrays do not overlap). Temporaries
//! stored folded (`fold`, QUOV) get a buffer of their folded size, made in the check
//! block and freed on both ways out.
//!
//! Everything that can fail is computed before the IR changes (AST, run-time check,
//! shape of the region's entry and exit); a failure after that (a value that cannot
//! be recomputed) deletes what was made and restores the original edges.

mod check;
pub mod closure;
mod cpu;
mod emit;
mod fold;
mod fork;
mod hoisted;
pub mod outline;
mod partials;
pub mod product;
pub mod propagate;
mod rows;

use std::collections::HashMap;
use std::fmt;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::detect::replaceable::{self, Entering, LiveOut, LiveOuts};
use crate::detect::translate::ParamValue;
use crate::detect::{ArrayIr, DetectedRegion, RegionIr, HANDLED};
use crate::isl::{ast, IslError};
use crate::llvm::builder::{phis_of, IrBuilder, Value};
use crate::llvm::host::AliasScope;
use crate::llvm::ir::{
    as_instruction, basic_value, phi_incoming, pointer_operand, predecessors, successors, type_of,
    users,
};
use crate::llvm::source_terms::describe_value;
use crate::llvm::FunctionAnalyses;
use crate::model::Scop;
use crate::speculate::{self, Recording};

use check::RuntimeCheck;
use emit::{Emitter, Slot};

/// Why a region was not generated. Callers tell the cases apart by variant (and
/// `is_operation_limit`), never by the message.
#[derive(Debug)]
pub enum CodegenError {
    /// Something this version of code generation does not handle; the region stays.
    Unsupported(String),
    /// isl failed, or reached the operation bound, computing the AST or the checks.
    Isl(IslError),
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodegenError::Unsupported(what) => write!(f, "{what}"),
            CodegenError::Isl(e) => write!(f, "{e}"),
        }
    }
}

impl CodegenError {
    /// True when isl stopped because the operation bound was reached (the region may
    /// generate with a cheaper plan, e.g. without register tiles).
    pub fn is_operation_limit(&self) -> bool {
        matches!(self, CodegenError::Isl(error) if error.is_operation_limit())
    }
}

impl std::error::Error for CodegenError {}

/// What `generate` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Generated {
    /// The region is replaced by the new code behind its check; which of its parallel
    /// loops run on OpenMP threads.
    Region(outline::Forks),
    /// The region had no single block in front of it to put the check in (it started
    /// the function, or several blocks entered it): it got one (a new entry block of
    /// the function, or a block those edges now go through), and is to be generated
    /// again with fresh analyses.
    EntrySplit,
}

/// What the new code of a region is: the loop AST to generate (with its parallel loops
/// marked) and the temporaries' reads it recomputes (expression propagation).
pub struct NewCode<'a> {
    pub recomputed: &'a [crate::transform::exprprop::Recompute],
    /// Temporaries stored folded (QUOV storage allocation).
    pub folds: &'a [crate::transform::quov::Folding],
    /// The loop AST of the new schedule, with its parallel loops marked from the
    /// dependences (built by the planner, under the whole operation bound counted afresh).
    pub ast: &'a ast::Ast,
    /// The region's model as detection built it, before expression propagation: its
    /// accesses are the IR's loads and stores, one for one.
    pub written: &'a Scop,
    /// The outermost parallel loops run on OpenMP threads (`fork`) when the work of
    /// one (statement instances, estimated) reaches this.
    pub threads: Option<u64>,
    /// The scalar reductions whose updates the threads of a forked loop split.
    pub reductions: &'a [crate::plan::reductions::ScalarReduction],
}

/// Generates `code` for `region`; the original code stays behind the check.
pub fn generate<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
    scop: &Scop,
    code: &NewCode<'_>,
    recording: Option<&Recording>,
) -> Result<Generated, CodegenError> {
    let recomputed = propagate::plan(region, code.recomputed).map_err(CodegenError::Unsupported)?;
    // What can fail, before anything changes.
    let (entering, live) = structure(fa, region)?;
    let Some(entering) = one_entering_block(fa, region, entering)? else {
        return Ok(Generated::EntrySplit);
    };
    let Prepared { runtime, folds } = prepare(region, scop, code)?;
    let guard = versioning(fa, region, entering)?;
    let ranges = match &guard {
        Some(_) => check::memory_ranges(&region.spec, code.written)?,
        None => Vec::new(),
    };
    let rows = match &guard {
        Some(guard) => rows::tables_of(guard)?,
        None => Vec::new(),
    };

    let b = IrBuilder::new(fa.function());
    let mut em = emitter(fa, &b, region, entering, recomputed, folds);
    em.threads = code.threads;
    em.reductions = code.reductions.to_vec();
    let mut check = open_check(&mut em, entering, &runtime, recording);
    if let Some(guard) = &guard {
        check.hoisted = (guard.fields.clone(), ranges);
        check.rows = rows;
    }
    let built = build(&mut em, &check, code.ast, &live);
    conclude(&em, check.block, built)?;
    if let Some(guard) = &guard {
        let entry = region.ir.entry;
        let failing = crate::llvm::ir::predecessors(entry)
            .into_iter()
            .find(|p| *p == check.block || em.created.contains(p))
            .ok_or_else(|| CodegenError::Unsupported("no way into the original code".into()))?;
        crate::detect::hoisted::resolve(&b, fa, guard, failing, entry);
    }
    let mut forks = std::mem::take(&mut em.forks);
    outline::outline(fa, std::mem::take(&mut em.fork_sites), &mut forks);
    Ok(Generated::Region(forks))
}

/// The versioning of a nest whose copy `entering` enters (`detect::hoisted`): its
/// hoisted fields join the check, and a failing check runs the original nest. Only for
/// a region that is the whole copy.
fn versioning<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
    entering: BasicBlock<'f>,
) -> Result<Option<crate::detect::hoisted::Guard<'f>>, CodegenError> {
    let Some(guard) = crate::detect::hoisted::guard_of(fa, entering, region.ir.entry) else {
        return Ok(None);
    };

    let whole = fa.loop_for_block(region.ir.entry).is_some_and(|root| {
        root.header() == region.ir.entry
            && root.blocks().iter().all(|b| region.ir.blocks.contains(b))
            && region.ir.blocks.iter().all(|b| root.contains_block(*b))
    });
    if whole {
        Ok(Some(guard))
    } else {
        Err(CodegenError::Unsupported(
            "the region is not the whole copy of a versioned nest".into(),
        ))
    }
}

/// The one block in front of the region; `None` when there was none and one was made
/// (a new entry block of the function, or a block the entering edges now go through):
/// the analyses no longer describe the function then, and the pass runs again.
fn one_entering_block<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
    entering: Entering<'f>,
) -> Result<Option<BasicBlock<'f>>, CodegenError> {
    match entering {
        Entering::One(block) => Ok(Some(block)),
        Entering::FunctionEntry => {
            IrBuilder::new(fa.function())
                .split_function_entry()
                .ok_or_else(|| CodegenError::Unsupported("a function without blocks".into()))?;
            Ok(None)
        }
        Entering::Several(blocks) => {
            IrBuilder::new(fa.function())
                .route_edges_through(region.ir.entry, &blocks, "polyrust.enter")
                .ok_or_else(|| {
                    CodegenError::Unsupported("no block for the region's entry".into())
                })?;
            Ok(None)
        }
    }
}

/// What code generation computes before the IR changes (the loop AST comes with the
/// plan): the run-time check and the layout of the folded temporaries.
struct Prepared {
    runtime: RuntimeCheck,
    folds: fold::FoldPlan,
}

fn prepare(
    region: &DetectedRegion<'_>,
    scop: &Scop,
    code: &NewCode<'_>,
) -> Result<Prepared, CodegenError> {
    let runtime = check::runtime_check(&region.spec, scop)?;
    let folds = fold::plan(region, scop, code.written, code.folds)?;
    Ok(Prepared { runtime, folds })
}

/// The emitter of the new code of `region`, which `entering` enters.
fn emitter<'a, 'f>(
    fa: &'a FunctionAnalyses<'f>,
    b: &'a IrBuilder<'f>,
    region: &'a DetectedRegion<'f>,
    entering: BasicBlock<'f>,
    recomputed: HashMap<Value, propagate::Recomputation<'a, 'f>>,
    folds: fold::FoldPlan,
) -> Emitter<'a, 'f> {
    let ir = &region.ir;
    Emitter {
        fa,
        b,
        region,
        ids: HashMap::new(),
        slots: HashMap::new(),
        homes: ir
            .promotions
            .iter()
            .flat_map(|p| p.values.iter().map(|v| (*v, p.pointer)))
            .collect(),
        hoisted: HashMap::new(),
        forwarded: ir.forwarded.iter().flatten().copied().collect(),
        created: Vec::new(),
        parent_loop: fa
            .loop_for_block(entering)
            .filter(|l| !ir.loops.contains(l)),
        groups: Vec::new(),
        scopes: AliasScopes::new(fa, ir),
        recomputed,
        folds,
        storage: Vec::new(),
        threads: None,
        forking: false,
        tested: Vec::new(),
        slot_stores: std::cell::RefCell::new(Vec::new()),
        reductions: Vec::new(),
        fork_sites: Vec::new(),
        forks: outline::Forks::default(),
    }
}

/// Puts the check block on the edge from `entering` into the region, going on to the
/// original code until its condition is known, and makes the block the new code
/// starts in.
fn open_check<'a, 'f>(
    em: &mut Emitter<'_, 'f>,
    entering: BasicBlock<'f>,
    runtime: &'a RuntimeCheck,
    recording: Option<&'a Recording>,
) -> Check<'a, 'f> {
    let (fa, b, entry) = (em.fa, em.b, em.region.ir.entry);
    let check_block = em.block("polyrust.check", entering);
    let start = em.block("polyrust.start", check_block);
    b.position_at_end(check_block);
    let placeholder = b.br(entry);
    redirect(b, entering, entry, check_block);
    fa.replace_phi_incoming_block(entry, entering, check_block);
    Check {
        block: check_block,
        start,
        placeholder,
        runtime,
        recording,
        hoisted: (Vec::new(), Vec::new()),
        rows: Vec::new(),
    }
}

/// Keeps the new code when it was built and the function verifies; otherwise the
/// check goes straight to the original code.
fn conclude<'f>(
    em: &Emitter<'_, 'f>,
    check_block: BasicBlock<'f>,
    built: Result<(), CodegenError>,
) -> Result<(), CodegenError> {
    let ir = &em.region.ir;
    match built {
        Ok(()) => {
            if em.fa.function().verify(true) {
                // The fallback is the original code: no later run may rewrite it again,
                // unless it is to get another specialized version in front of it.
                if !ir.fallback_open {
                    for l in &ir.loops {
                        l.tag(HANDLED);
                    }
                }
                Ok(())
            } else {
                undo(em, check_block, ir.entry);
                Err(CodegenError::Unsupported(
                    "the generated code did not verify; the region is left as it was".into(),
                ))
            }
        }
        Err(e) => {
            undo(em, check_block, ir.entry);
            Err(e)
        }
    }
}

/// The block that enters the region and the values the region leaves behind (what
/// detection checked: see `detect::replaceable`).
fn structure<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
) -> Result<(Entering<'f>, LiveOuts), CodegenError> {
    let boundary = replaceable::boundary(fa, &region.ir)
        .map_err(|rejection| CodegenError::Unsupported(rejection.detail))?;
    Ok((boundary.entering, boundary.live_outs))
}

/// Makes the check jump straight to the original code and cuts the other new blocks
/// out of the CFG; later passes delete them (deleting them here could leave uses of
/// their values behind).
fn undo<'f>(em: &Emitter<'_, 'f>, check_block: BasicBlock<'f>, entry: BasicBlock<'f>) {
    if let Some(term) = check_block.get_terminator() {
        term.erase_from_basic_block();
    }
    em.b.position_at_end(check_block);
    em.b.br(entry);
    let made: Vec<BasicBlock<'f>> = em
        .created
        .iter()
        .copied()
        .filter(|b| *b != check_block)
        .collect();
    em.fa.abandon_blocks(&made);
}

/// The check block in front of the new code, and what goes into it.
struct Check<'a, 'f> {
    block: BasicBlock<'f>,
    /// Where the new code starts.
    start: BasicBlock<'f>,
    /// The check block's terminator until the condition is known.
    placeholder: Value,
    runtime: &'a RuntimeCheck,
    /// What the check records in the profile, under `-polyrust-profile-generate`.
    recording: Option<&'a Recording>,
    /// The fields a versioned nest hoisted (address, bytes) and the ranges of the
    /// arrays the region accesses: those it writes must not cover them.
    hoisted: (
        Vec<(crate::llvm::LLVMValueRef, u64)>,
        Vec<check::ArrayRange>,
    ),
    /// The row-pointer tables whose rows the region computes, each checked to hold its
    /// rows at their stride (`detect::rows`).
    rows: Vec<crate::detect::rows::RowTable>,
}

/// Fills the check block and builds the new code: the parameters, the run-time
/// condition, the folded temporaries' buffers, the scalars' stack slots, the loops,
/// and the way into the exit block with the values the region leaves behind.
fn build<'f>(
    em: &mut Emitter<'_, 'f>,
    check: &Check<'_, 'f>,
    ast: &ast::Ast,
    live: &LiveOuts,
) -> Result<(), CodegenError> {
    let before = as_instruction(check.placeholder)
        .ok_or_else(|| CodegenError::Unsupported("check block without terminator".into()))?;
    em.b.position_before(before);
    evaluate_parameters(em, before)?;
    let (ok, ranges) = check_condition(em, check.runtime)?;
    let ok = hoisted::fields_apart(em, &check.hoisted.0, &check.hoisted.1, ok)?;
    let ok = rows::rows_at_stride(em, &check.rows, &check.hoisted.1, ok)?;
    if let Some(recording) = check.recording {
        record_check(em, recording, ok, &ranges, before)?;
    }
    let ok = allocate_folds(em, ok)?;
    let entering_original = branch_on_check(em, check, ok);
    make_slots(em)?;
    enter_new_code(em, check.start, entering_original);
    em.node(&ast.root)?;
    leave_to_exit(em, live)
}

/// The region's parameters, evaluated once before `before` in the check block, as the
/// AST's names for them; invariant loads used as parameters are hoisted there.
fn evaluate_parameters<'f>(
    em: &mut Emitter<'_, 'f>,
    before: InstructionValue<'f>,
) -> Result<(), CodegenError> {
    let (fa, b, region) = (em.fa, em.b, em.region);
    for param in &region.ir.params {
        let value = match param.value {
            ParamValue::Scev(scev) => {
                let raw = fa
                    .expand_with_counters(scev, &[], &[], scev_type(fa, scev)?, before)
                    .ok_or_else(|| {
                        CodegenError::Unsupported(format!(
                            "cannot compute parameter {}",
                            param.name
                        ))
                    })?;
                b.to_i64(raw)
            }
            ParamValue::OuterCounter(l) => fa.expand_loop_counter(l, before).ok_or_else(|| {
                CodegenError::Unsupported(format!("cannot compute parameter {}", param.name))
            })?,
            ParamValue::InvariantLoad(load) => {
                let pointer = pointer_operand(load).ok_or_else(|| {
                    CodegenError::Unsupported("invariant load without pointer".into())
                })?;
                let scev = fa.scev(&basic_value(pointer));
                let address = fa
                    .expand_with_counters(scev, &[], &[], type_of(pointer), before)
                    .ok_or_else(|| {
                        CodegenError::Unsupported(format!("cannot load parameter {}", param.name))
                    })?;
                let loaded = b.clone_with(load, |op| if op == pointer { address } else { op });
                em.hoisted.insert(load.as_value_ref(), loaded);
                b.to_i64(loaded)
            }
        };
        em.ids.insert(param.name.clone(), value);
    }
    Ok(())
}

/// The addresses an array's accesses span at run time: its first accessed byte and
/// one past its last.
struct AddressRange {
    array: String,
    low: Value,
    high: Value,
}

/// The run-time condition: the model's assumptions, the values speculated on, and the
/// arrays apart; with the address range of each array it compares.
fn check_condition(
    em: &Emitter<'_, '_>,
    runtime: &RuntimeCheck,
) -> Result<(Value, Vec<AddressRange>), CodegenError> {
    let b = em.b;
    let mut ok = em.condition(&runtime.assumptions)?;
    for (value, constant) in &em.region.ir.speculated {
        let expected = b.const_int(type_of(*value), *constant);
        let holds = b.icmp(LLVMIntPredicate::LLVMIntEQ, *value, expected);
        ok = b.binary(LLVMOpcode::LLVMAnd, ok, holds);
    }
    // Each array's range, computed once however many pairs it is in.
    let mut ranges: Vec<AddressRange> = Vec::new();
    let mut computed = |r: &check::ArrayRange| -> Result<(Value, Value), CodegenError> {
        if let Some(known) = ranges.iter().find(|known| known.array == r.array) {
            return Ok((known.low, known.high));
        }
        let (low, high) = address_range(em, r)?;
        ranges.push(AddressRange {
            array: r.array.clone(),
            low,
            high,
        });
        Ok((low, high))
    };
    for (x, y) in &runtime.disjoint {
        let (x_low, x_high) = computed(x)?;
        let (y_low, y_high) = computed(y)?;
        let x_before_y = b.icmp(LLVMIntPredicate::LLVMIntSLE, x_high, y_low);
        let y_before_x = b.icmp(LLVMIntPredicate::LLVMIntSLE, y_high, x_low);
        let apart = b.binary(LLVMOpcode::LLVMOr, x_before_y, y_before_x);
        ok = b.binary(LLVMOpcode::LLVMAnd, ok, apart);
    }
    Ok((ok, ranges))
}

/// The first accessed byte of the array of `r` and one past its last.
fn address_range(
    em: &Emitter<'_, '_>,
    r: &check::ArrayRange,
) -> Result<(Value, Value), CodegenError> {
    let b = em.b;
    let base = em
        .region
        .ir
        .memory_base(&r.array)
        .ok_or_else(|| CodegenError::Unsupported(format!("no base pointer for {}", r.array)))?;
    let address = b.ptr_to_int(base);
    let size = b.const_i64(i64::from(r.element_size));
    // Element offsets of the first and one past the last element touched.
    let mut low = b.const_i64(0);
    let mut high = b.const_i64(1);
    for ((lo, hi), stride) in r.low.iter().zip(&r.high).zip(&r.stride) {
        let stride = em.expr(stride)?;
        let lo = b.binary(LLVMOpcode::LLVMMul, em.expr(lo)?, stride);
        let hi = b.binary(LLVMOpcode::LLVMMul, em.expr(hi)?, stride);
        low = b.binary(LLVMOpcode::LLVMAdd, low, lo);
        high = b.binary(LLVMOpcode::LLVMAdd, high, hi);
    }
    let low = b.binary(LLVMOpcode::LLVMMul, low, size);
    let high = b.binary(LLVMOpcode::LLVMMul, high, size);
    Ok((
        b.binary(LLVMOpcode::LLVMAdd, address, low),
        b.binary(LLVMOpcode::LLVMAdd, address, high),
    ))
}

/// Records in the profile whether the check passed and the ranges it compared
/// (`-polyrust-profile-generate`).
fn record_check<'f>(
    em: &Emitter<'_, 'f>,
    recording: &Recording,
    ok: Value,
    ranges: &[AddressRange],
    before: InstructionValue<'f>,
) -> Result<(), CodegenError> {
    let (fa, b, ir) = (em.fa, em.b, &em.region.ir);
    // Arrays by their source names, as remarks show them.
    let names: Vec<String> = ranges
        .iter()
        .map(|range| {
            ir.arrays
                .iter()
                .find_map(|(n, a)| match a {
                    ArrayIr::Memory { base } if *n == range.array => {
                        Some(speculate::value_name(fa, *base))
                    }
                    _ => None,
                })
                .unwrap_or_else(|| range.array.clone())
        })
        .collect();
    let descriptor = speculate::descriptor(
        fa,
        b,
        recording,
        vec![speculate::CHECK_PASSED.to_string()],
        names,
    );
    let passed = b.select(ok, b.const_i64(1), b.const_i64(0));
    let bounds: Vec<Value> = ranges.iter().flat_map(|r| [r.low, r.high]).collect();
    speculate::record(fa, b, before, descriptor, &[passed], &bounds)
        .map_err(CodegenError::Unsupported)
}

/// The folded temporaries' buffers, made in the check block: a failed allocation runs
/// the original code, and so does a fold's own condition (no value read that the
/// region does not write) failing. The condition `ok` with those added.
fn allocate_folds(em: &mut Emitter<'_, '_>, mut ok: Value) -> Result<Value, CodegenError> {
    let b = em.b;
    for array in &em.folds.arrays {
        let storage = allocate(em, array)?;
        let made = b.icmp(LLVMIntPredicate::LLVMIntNE, storage.buffer, b.null_ptr());
        let holds = em.condition(&array.condition)?;
        ok = b.binary(LLVMOpcode::LLVMAnd, ok, made);
        ok = b.binary(LLVMOpcode::LLVMAnd, ok, holds);
        em.storage.push(storage);
    }
    Ok(ok)
}

/// Ends the check block in the branch on `ok`, to the new code or (through a block
/// freeing the folded buffers, if any) to the original. The block the original code
/// is entered from, whose incoming values of the entry's phis are the scalars' initial
/// values.
fn branch_on_check<'f>(
    em: &mut Emitter<'_, 'f>,
    check: &Check<'_, 'f>,
    ok: Value,
) -> BasicBlock<'f> {
    let (fa, b, entry) = (em.fa, em.b, em.region.ir.entry);
    b.erase(check.placeholder);
    b.position_at_end(check.block);
    if em.storage.is_empty() {
        b.cond_br(ok, check.start, entry);
        return check.block;
    }
    let fallback = em.block("polyrust.fallback", check.block);
    b.cond_br(ok, check.start, fallback);
    b.position_at_end(fallback);
    for storage in &em.storage {
        b.free(storage.buffer);
    }
    b.br(entry);
    fa.replace_phi_incoming_block(entry, check.block, fallback);
    fallback
}

/// Stack slots for the scalars, at the top of the function.
fn make_slots(em: &mut Emitter<'_, '_>) -> Result<(), CodegenError> {
    let b = em.b;
    let entry_block = em
        .fa
        .function()
        .get_first_basic_block()
        .ok_or_else(|| CodegenError::Unsupported("function without blocks".into()))?;
    if let Some(first) = entry_block.get_first_instruction() {
        b.position_before(first);
    }
    for (name, array) in &em.region.ir.arrays {
        if let ArrayIr::Scalar { value } = array {
            let ty = type_of(*value);
            let pointer = b.alloca(ty, &format!("polyrust.{name}"));
            em.slots.insert(*value, Slot { pointer, ty });
        }
    }
    Ok(())
}

/// Starts the new code in `start`: the scalars' slots get the initial values of the
/// entry's phis (those coming from `entering_original`).
fn enter_new_code<'f>(
    em: &Emitter<'_, 'f>,
    start: BasicBlock<'f>,
    entering_original: BasicBlock<'f>,
) {
    let b = em.b;
    b.position_at_end(start);
    for phi in phis_of(em.region.ir.entry) {
        if let Some(slot) = em.slots.get(&phi.as_value_ref()).copied() {
            if let Some((value, _)) = phi_incoming(phi)
                .into_iter()
                .find(|(_, from)| *from == entering_original)
            {
                b.store(value, slot.pointer);
            }
        }
    }
}

/// From the end of the new code into the exit block, with the values the region
/// leaves behind: the exit's phis get them from the new code, and the values used
/// after the region come from new phis of the exit block.
fn leave_to_exit(em: &Emitter<'_, '_>, live: &LiveOuts) -> Result<(), CodegenError> {
    let (b, ir) = (em.b, &em.region.ir);
    let end = b
        .current_block()
        .ok_or_else(|| CodegenError::Unsupported("no block at the end".into()))?;
    for storage in &em.storage {
        b.free(storage.buffer);
    }
    let jump = b.br(ir.exit);
    let jump = as_instruction(jump)
        .ok_or_else(|| CodegenError::Unsupported("branch is not an instruction".into()))?;
    b.position_before(jump);
    let mut incoming = Vec::new();
    for (phi, value, kind) in &live.exit_phis {
        incoming.push((*phi, value_after(em, *value, *kind, jump)?));
    }
    let mut merges = Vec::new();
    for (value, kind) in &live.escaping {
        merges.push((*value, value_after(em, *value, *kind, jump)?));
    }
    // Nothing below can fail: the IR outside the new blocks changes only now.
    for (phi, value) in incoming {
        b.add_incoming(phi, value, end);
    }
    merge_escaping(em, &merges, end)
}

/// What the new code gives for `value` after the region (before `jump`, its branch
/// into the exit block), provided as `kind` says.
fn value_after<'f>(
    em: &Emitter<'_, 'f>,
    value: Value,
    kind: LiveOut,
    jump: InstructionValue<'f>,
) -> Result<Value, CodegenError> {
    let fa = em.fa;
    Ok(match kind {
        LiveOut::Unchanged => value,
        LiveOut::Slot => {
            let slot =
                em.slots.get(&value).copied().ok_or_else(|| {
                    CodegenError::Unsupported("a scalar without a stack slot".into())
                })?;
            em.b.load(slot.ty, slot.pointer, "polyrust.out")
        }
        LiveOut::Hoisted => em.hoisted.get(&value).copied().ok_or_else(|| {
            CodegenError::Unsupported("an invariant load that was not hoisted".into())
        })?,
        LiveOut::Recomputed => {
            let exit = em.region.ir.exit;
            let at_exit = fa.scev_at_scope(fa.scev(&basic_value(value)), fa.loop_for_block(exit));
            fa.expand_with_counters(at_exit, &[], &[], type_of(value), jump)
                .ok_or_else(|| {
                    CodegenError::Unsupported(format!(
                        "cannot recompute {} after the region",
                        describe_value(fa, value)
                    ))
                })?
        }
    })
}

/// Each value used after the region (with its value from the new code, whose last
/// block is `end`) gets a phi of the exit block taking it from both ways in; its uses
/// after the region use the phi.
fn merge_escaping<'f>(
    em: &Emitter<'_, 'f>,
    merges: &[(Value, Value)],
    end: BasicBlock<'f>,
) -> Result<(), CodegenError> {
    let (b, ir) = (em.b, &em.region.ir);
    let region_edges: Vec<BasicBlock<'f>> = predecessors(ir.exit)
        .into_iter()
        .filter(|p| ir.blocks.contains(p))
        .collect();
    for &(value, new) in merges {
        let outside_uses: Vec<_> = users(&as_instruction(value).ok_or_else(|| {
            CodegenError::Unsupported("a live-out value that is not an instruction".into())
        })?)
        .into_iter()
        .filter(|u| {
            let exit_phi =
                u.get_opcode() == InstructionOpcode::Phi && u.get_parent() == Some(ir.exit);
            u.get_parent()
                .is_some_and(|p| !ir.blocks.contains(&p) && !em.created.contains(&p))
                && !exit_phi
        })
        .collect();
        match ir.exit.get_first_instruction() {
            Some(first) => b.position_before(first),
            None => b.position_at_end(ir.exit),
        }
        let merge = b.phi(type_of(value), "polyrust.live");
        for from in &region_edges {
            b.add_incoming(merge, value, *from);
        }
        b.add_incoming(merge, new, end);
        for user in outside_uses {
            for index in 0..user.get_num_operands() {
                if crate::llvm::ir::operand(user, index) == Some(value) {
                    b.set_operand(user.as_value_ref(), index, merge);
                }
            }
        }
    }
    Ok(())
}

/// A folded array's buffer (at the builder's position, in the check block): its extents
/// from the parameters, row-major strides, and `malloc` of the product (at least one
/// element, so that an empty region still gets a pointer to free).
fn allocate(
    em: &Emitter<'_, '_>,
    array: &fold::FoldedArray,
) -> Result<fold::Storage, CodegenError> {
    let b = em.b;
    let mut low = Vec::with_capacity(array.dims.len());
    let mut extent = Vec::with_capacity(array.dims.len());
    for dim in &array.dims {
        match dim {
            fold::FoldedDim::Keep { low: lo, high: hi } => {
                let lo = em.expr(lo)?;
                let hi = em.expr(hi)?;
                let length = b.binary(
                    LLVMOpcode::LLVMAdd,
                    b.binary(LLVMOpcode::LLVMSub, hi, lo),
                    b.const_i64(1),
                );
                let positive = b.icmp(LLVMIntPredicate::LLVMIntSGT, length, b.const_i64(0));
                low.push(Some(lo));
                extent.push(b.select(positive, length, b.const_i64(1)));
            }
            fold::FoldedDim::Modulo(g) => {
                low.push(None);
                extent.push(b.const_i64(*g));
            }
            fold::FoldedDim::Split { copies, .. } => {
                low.push(None);
                extent.push(b.const_i64(copies + 1));
            }
        }
    }
    let mut stride = vec![b.const_i64(1); extent.len()];
    for k in (0..extent.len().saturating_sub(1)).rev() {
        stride[k] = b.binary(LLVMOpcode::LLVMMul, stride[k + 1], extent[k + 1]);
    }
    let elements = match (stride.first(), extent.first()) {
        (Some(s), Some(e)) => b.binary(LLVMOpcode::LLVMMul, *s, *e),
        _ => b.const_i64(1),
    };
    let bytes = b.binary(
        LLVMOpcode::LLVMMul,
        elements,
        b.const_i64(i64::from(array.element_size)),
    );
    let buffer = b.malloc(bytes, &format!("polyrust.folded.{}", array.array));
    Ok(fold::Storage {
        buffer,
        low,
        stride,
    })
}

/// The type of a SCEV, for expansion.
fn scev_type<'f>(
    _fa: &FunctionAnalyses<'f>,
    scev: crate::llvm::Scev<'f>,
) -> Result<inkwell::llvm_sys::prelude::LLVMTypeRef, CodegenError> {
    scev.raw_type()
        .ok_or_else(|| CodegenError::Unsupported("expression without a type".into()))
}

/// Points every edge `from → to` at `new` instead.
fn redirect<'f>(b: &IrBuilder<'f>, from: BasicBlock<'f>, to: BasicBlock<'f>, new: BasicBlock<'f>) {
    let Some(term) = from.get_terminator() else {
        return;
    };
    for (i, succ) in successors(from).into_iter().enumerate() {
        if succ == to {
            b.set_successor(term.as_value_ref(), i as u32, new);
        }
    }
}

/// Scoped no-alias metadata for the generated copies of the statements' memory
/// accesses: one scope per memory array, each access disjoint from the other arrays.
/// Sound because the copies only run where every pair of arrays that may alias (one
/// of them written) was checked disjoint at run time, and alias analysis proved the
/// others' objects distinct; pairs of read-only arrays need no claim. It lets LLVM
/// keep values in registers across stores to other arrays (register tiles reuse a
/// loaded vector after the stores of the other rows).
pub struct AliasScopes {
    /// Per original load or store: its array's scope and the other arrays' scopes.
    by_access: HashMap<Value, (AliasScope, Vec<AliasScope>)>,
    /// The same per base pointer, for accesses made from an address (promoted
    /// scalars' elements).
    by_base: HashMap<Value, (AliasScope, Vec<AliasScope>)>,
}

impl AliasScopes {
    fn new<'f>(fa: &FunctionAnalyses<'f>, ir: &RegionIr<'f>) -> AliasScopes {
        let mut names: Vec<&String> = ir.memory_arrays.values().collect();
        names.sort();
        names.dedup();
        let mut scopes = AliasScopes {
            by_access: HashMap::new(),
            by_base: HashMap::new(),
        };
        if names.len() < 2 {
            return scopes;
        }
        let made = fa.new_alias_scopes(names.len());
        let scoped = |name: &String| {
            let k = names.iter().position(|n| *n == name)?;
            let others = (0..names.len())
                .filter(|j| *j != k)
                .map(|j| made[j])
                .collect();
            Some((made[k], others))
        };
        for (inst, name) in &ir.memory_arrays {
            if let Some(entry) = scoped(name) {
                scopes.by_access.insert(*inst, entry);
            }
        }
        for (name, array) in &ir.arrays {
            if let (ArrayIr::Memory { base }, Some(entry)) = (array, scoped(name)) {
                scopes.by_base.insert(*base, entry);
            }
        }
        scopes
    }

    /// The scope of the array the original load or store `access` accesses, and the
    /// scopes it is disjoint from.
    pub fn of_access(&self, access: Value) -> Option<&(AliasScope, Vec<AliasScope>)> {
        self.by_access.get(&access)
    }

    /// The same for the array the original address `address` points into.
    pub fn of_address<'f>(
        &self,
        fa: &FunctionAnalyses<'f>,
        address: Value,
    ) -> Option<&(AliasScope, Vec<AliasScope>)> {
        if !crate::llvm::ir::is_pointer(address) {
            return None;
        }
        let pointer = basic_value(address);
        if !fa.is_scevable(&pointer) {
            return None;
        }
        let base = fa.pointer_base(fa.scev(&pointer)).unknown_value()?;
        self.by_base.get(&base)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_limit_is_told_by_variant_not_by_message() {
        let limit = CodegenError::Isl(IslError::OperationLimit {
            operation: "isl_ast_build_node_from_schedule".into(),
        });
        assert!(limit.is_operation_limit());
        // The same words as something code generation does not handle: not the bound.
        let unsupported = CodegenError::Unsupported(limit.to_string());
        assert!(!unsupported.is_operation_limit());
        assert_eq!(unsupported.to_string(), limit.to_string());
    }
}
