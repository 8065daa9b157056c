//! SCoP detection: which loop nests of a function can be modelled exactly, and why the
//! others cannot. A candidate is a loop nest; when the outermost loop fails, its inner
//! loops are tried in turn. Every reason a nest fails is recorded (see `reject`).
//!
//! Steps, each in its own file: `instructions` (calls, volatile, allocas),
//! `region` (single entry and exit, canonical loops, program order), `control`
//! (loop bounds and block conditions as affine constraints), `access` (arrays,
//! subscripts, scalar accesses), `promoted`, `stored` and `forward` (scalars kept in memory or
//! recomputed where read), `build` (the `ScopSpec` handed to the model).
//! `translate` turns SCEVs and branch conditions into the affine forms of `affine`.

pub mod access;
pub mod affine;
pub mod build;
pub mod control;
pub mod forward;
pub mod guarded;
pub mod hoisted;
pub mod instructions;
pub mod promoted;
pub mod reduction;
pub mod region;
pub mod reject;
pub mod replaceable;
pub mod rotated;
pub mod rows;
pub mod stored;
pub mod translate;

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::llvm::{FunctionAnalyses, Loop, RemarkAt, RemarkKind};
use crate::model::spec::ScopSpec;
use reject::Rejection;
use translate::Translator;

/// A region detection accepted: one or more consecutive loop nests.
pub struct DetectedRegion<'f> {
    /// The outermost loops, in program order.
    pub top: Vec<Loop<'f>>,
    pub spec: ScopSpec,
    /// The instruction that comes last in the source, for "SCoP ends here.".
    pub last: Option<InstructionValue<'f>>,
    /// What code generation needs of the IR behind the spec.
    pub ir: RegionIr<'f>,
    /// Why new code cannot replace the region, if it cannot (see `replaceable`).
    pub not_replaceable: Option<Rejection>,
}

impl<'f> DetectedRegion<'f> {
    /// Whether new code can replace the region; else what keeps it as it is.
    pub fn replaceable(&self) -> Result<(), &str> {
        match &self.not_replaceable {
            Some(rejection) => Err(&rejection.detail),
            None => Ok(()),
        }
    }

    /// Checks, once the region is settled, whether new code can replace it.
    fn check_replaceable(&mut self, fa: &FunctionAnalyses<'f>) {
        self.not_replaceable = replaceable::boundary(fa, &self.ir).err();
    }
}

/// The IR side of a region: where it is, which blocks and loops each statement comes
/// from, what each parameter and array stands for.
pub struct RegionIr<'f> {
    pub entry: BasicBlock<'f>,
    pub exit: BasicBlock<'f>,
    /// In program order.
    pub blocks: Vec<BasicBlock<'f>>,
    pub loops: Vec<Loop<'f>>,
    /// In the order of the spec's statements.
    pub statements: Vec<StatementIr<'f>>,
    /// In the order of the spec's parameters.
    pub params: Vec<translate::Param<'f>>,
    /// By the spec's array names.
    pub arrays: Vec<(String, ArrayIr)>,
    /// Scalars the model keeps in an array element (see `promoted`).
    pub promotions: Vec<promoted::Promotion>,
    /// Values recomputed where they are read, each with the instructions that compute
    /// it, the value first (see `forward`).
    pub forwarded: Vec<Vec<inkwell::llvm_sys::prelude::LLVMValueRef>>,
    /// Region-invariant values the model takes to be these constants (profile-guided
    /// speculation): the run-time check compares each.
    pub speculated: Vec<(inkwell::llvm_sys::prelude::LLVMValueRef, i64)>,
    /// Whether the original loops kept as fallback stay open to a later round (another
    /// specialized version for other speculated values) instead of being marked handled.
    pub fallback_open: bool,
    /// The memory array (a name of `arrays`) each load and store of the statements
    /// accesses, for the scoped no-alias metadata of the generated copies.
    pub memory_arrays: HashMap<inkwell::llvm_sys::prelude::LLVMValueRef, String>,
}

impl<'f> RegionIr<'f> {
    /// The IR of the statement `name` of the region's model.
    pub fn statement(&self, name: &str) -> Result<&StatementIr<'f>, String> {
        self.statements
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("no IR for statement {name}"))
    }

    /// Whether the region runs again over the same arrays: it lies in a loop of its
    /// function (outside its own loops) that computes none of its memory arrays' base
    /// pointers, so what one run reads the next may find in cache. A region alone in
    /// its function (a library's `matmul` called with another matrix each time), or one
    /// whose arrays move with the loop around it, cannot be told to read from cache.
    pub fn reruns_over_its_arrays(&self, fa: &FunctionAnalyses<'f>) -> bool {
        let mut enclosing = fa.loop_for_block(self.entry);
        while let Some(own) = enclosing.filter(|l| self.loops.contains(l)) {
            enclosing = own.parent();
        }
        let Some(enclosing) = enclosing else {
            return false;
        };
        let blocks: Vec<_> = enclosing.blocks().iter().map(|b| b.as_mut_ptr()).collect();
        self.arrays.iter().all(|(_, array)| match array {
            ArrayIr::Memory { base } => {
                use inkwell::llvm_sys::core::{LLVMGetInstructionParent, LLVMIsAInstruction};
                // SAFETY: `base` is a live value of the function being optimized.
                let defined_in = unsafe {
                    (!LLVMIsAInstruction(*base).is_null()).then(|| LLVMGetInstructionParent(*base))
                };
                defined_in.is_none_or(|block| !blocks.contains(&block))
            }
            ArrayIr::Scalar { .. } => true,
        })
    }

    /// The base pointer of the memory array named `array` in the model (`None` for a
    /// scalar or an unknown name).
    pub fn memory_base(&self, array: &str) -> Option<inkwell::llvm_sys::prelude::LLVMValueRef> {
        self.arrays.iter().find_map(|(name, a)| match a {
            ArrayIr::Memory { base } if name == array => Some(*base),
            _ => None,
        })
    }
}

pub struct StatementIr<'f> {
    pub name: String,
    /// The statement's block, then the blocks under its data-dependent branch.
    pub blocks: Vec<BasicBlock<'f>>,
    /// The region's loops around it, outermost first (its iterators i0, i1, ...).
    pub loops: Vec<Loop<'f>>,
    /// Values of promoted scalars the statement writes to their element.
    pub promoted_writes: Vec<promoted::PromotedWrite>,
    /// The data-dependent branches around loops it runs under, outermost first: each
    /// instance runs only where their conditions (recomputed, see `guarded`) hold.
    pub guards: Vec<control::Guard<'f>>,
    /// How many of its counters, outermost first, the conditions of `guards` read
    /// (the loops around the innermost guard's branch).
    pub guard_depth: usize,
}

#[derive(Clone, Copy)]
pub enum ArrayIr {
    /// Memory at a base pointer.
    Memory {
        base: inkwell::llvm_sys::prelude::LLVMValueRef,
    },
    /// An SSA value: a phi, or an instruction whose value crosses statements.
    Scalar {
        value: inkwell::llvm_sys::prelude::LLVMValueRef,
    },
}

/// A loop nest detection left alone, with every reason.
pub struct RejectedNest<'f> {
    pub root: Loop<'f>,
    pub reasons: Vec<(Rejection, Option<InstructionValue<'f>>)>,
    /// Region-invariant values whose products made an expression of the nest
    /// non-affine: what speculation on their values could settle.
    pub offending: Vec<inkwell::llvm_sys::prelude::LLVMValueRef>,
}

/// A loop nest right after a region that the region could not take in, and why (the
/// reasons of the region grown over it).
pub struct RegionStop<'f> {
    pub next: Loop<'f>,
    pub reasons: Vec<(Rejection, Option<InstructionValue<'f>>)>,
}

#[derive(Default)]
pub struct Detection<'f> {
    pub regions: Vec<DetectedRegion<'f>>,
    pub rejected: Vec<RejectedNest<'f>>,
    /// Where regions stop short of the next nest, and why.
    pub stops: Vec<RegionStop<'f>>,
    /// Guards whose work before their branch kept a region from growing over them
    /// (see `region::ShapeError`): once that work has a block of its own, the region
    /// may form in the next round.
    pub splits: Vec<BasicBlock<'f>>,
}

/// The `!llvm.loop` property code generation puts on the loops it generates and on
/// the original loops it keeps as fallback: detection leaves such loops alone, so a
/// rewritten region is not rewritten again by a later run of the pass.
pub const HANDLED: &str = "polyrust.handled";

pub fn detect<'f>(fa: &FunctionAnalyses<'f>) -> Detection<'f> {
    let mut out = Detection::default();
    detect_level(fa, &fa.top_level_loops(), &mut out);
    // Once every region is found: the growth of a region tries many candidates, and
    // only the regions settled on are ever replaced.
    for region in &mut out.regions {
        region.check_replaceable(fa);
    }
    out
}

/// Most statements a region grows to by taking in following sibling nests. Each step of
/// the growth analyses the whole run again, so without a bound a function of a hundred
/// sibling nests (NPB's BT after inlining) costs seconds of detection alone; and the
/// scheduler is not asked about larger regions anyway.
pub const MAX_REGION_STATEMENTS: usize = 40;

/// How many following siblings a region looks past when taking them in fails only for
/// the shape of the control flow. Interior-only stages (`for (y = 1; y < h - 1; y++)`)
/// each have a zero-trip guard that LLVM jump-threads to the block after the last
/// stage: the first stages alone then have no single exit (their guards leave to that
/// far block), and only the run of stages up to that block is a region.
pub const MAX_SHAPE_LOOKAHEAD: usize = 16;

/// Sibling loop nests, in program order: each valid nest is grown into the longest run
/// of following siblings that still forms a valid region (of at most
/// `MAX_REGION_STATEMENTS` statements); a nest that is not valid is reported and its
/// inner loops are tried instead. A run that fails only for its shape (see
/// `Rejected::shape_only`) does not end the growth: up to `MAX_SHAPE_LOOKAHEAD` longer
/// runs are tried after it, as a longer run may end where the guards of all its nests
/// lead. Any other failure ends it, as taking in more nests cannot undo it.
fn detect_level<'f>(fa: &FunctionAnalyses<'f>, siblings: &[Loop<'f>], out: &mut Detection<'f>) {
    let mut i = 0;
    while i < siblings.len() {
        let nest = siblings[i];
        if nest.has_tag(HANDLED) {
            i += 1;
            continue;
        }
        match analyse(fa, &siblings[i..=i], &[]) {
            Ok(mut region) => {
                // `end` is one past the last nest of `region`, `next` the last nest of
                // the run being tried.
                let mut end = i + 1;
                let mut next = i + 1;
                while next < siblings.len()
                    && next - end < MAX_SHAPE_LOOKAHEAD
                    && !siblings[next].has_tag(HANDLED)
                    && region.spec.statements.len() < MAX_REGION_STATEMENTS
                {
                    match analyse(fa, &siblings[i..=next], &[]) {
                        // Every nest taken in must be on the region's path: a nest on
                        // another branch (the rest of a function that returned early
                        // after the first, the other version of an unswitched loop
                        // before the region's entry grows over their branch) would be
                        // counted but neither modelled nor ever looked at again. Like
                        // a shape that fails, such a run is looked past.
                        Ok(bigger)
                            if !siblings[i..=next]
                                .iter()
                                .all(|l| bigger.ir.blocks.contains(&l.header())) => {}
                        Ok(bigger) if bigger.spec.statements.len() <= MAX_REGION_STATEMENTS => {
                            region = bigger;
                            end = next + 1;
                        }
                        Err(rejected) if rejected.shape_only => {}
                        Err(Rejected {
                            split: Some(block), ..
                        }) => {
                            if !out.splits.contains(&block) {
                                out.splits.push(block);
                            }
                            break;
                        }
                        // Said, so that a user sees why the stages of a pipeline are
                        // regions of their own (then they cannot fuse).
                        Err(Rejected { reasons, .. }) => {
                            out.stops.push(RegionStop {
                                next: siblings[next],
                                reasons,
                            });
                            break;
                        }
                        Ok(_) => break,
                    }
                    next += 1;
                }
                out.regions.push(region);
                i = end;
            }
            Err(Rejected {
                reasons, offending, ..
            }) => {
                out.rejected.push(RejectedNest {
                    root: nest,
                    reasons,
                    offending,
                });
                detect_level(fa, &nest.subloops(), out);
                i += 1;
            }
        }
    }
}

type Reasons<'f> = Vec<(Rejection, Option<InstructionValue<'f>>)>;

/// Why `analyse` refused a candidate.
pub struct Rejected<'f> {
    pub reasons: Reasons<'f>,
    /// See `RejectedNest::offending`.
    pub offending: Vec<inkwell::llvm_sys::prelude::LLVMValueRef>,
    /// The candidate failed only for the shape of its control flow (no single exit,
    /// loops partly inside), before anything was translated.
    pub shape_only: bool,
    /// See `region::ShapeError::split`.
    pub split: Option<BasicBlock<'f>>,
}

impl<'f> From<Reasons<'f>> for Rejected<'f> {
    fn from(reasons: Reasons<'f>) -> Self {
        Rejected {
            reasons,
            offending: Vec::new(),
            shape_only: false,
            split: None,
        }
    }
}

/// The loop nest `root` as a region when each value of `speculated` is taken to be its
/// constant (see `speculate`).
pub fn analyse_speculating<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    speculated: &[(inkwell::llvm_sys::prelude::LLVMValueRef, i64)],
) -> Result<DetectedRegion<'f>, Rejected<'f>> {
    let mut region = analyse(fa, &[root], speculated)?;
    region.check_replaceable(fa);
    Ok(region)
}

/// The block that ends a region made of the nests `top`: the exit of the last nest if
/// every path from the first nest reaches it, else the first later block that does
/// (past a guard that skips the last nest).
fn region_exit<'f>(fa: &FunctionAnalyses<'f>, top: &[Loop<'f>]) -> Option<BasicBlock<'f>> {
    let (first, last) = (top.first()?, top.last()?);
    let start = *last.exit_blocks().first()?;
    if fa.post_dominates(start, first.header()) {
        return Some(start);
    }
    let level = last.parent();
    // Where the region may start: the first header, or a block in front of it that the
    // region grows back to (its preheader, the guard that skips the loops), as
    // `region::shape` does; the exit must be dominated by one of them.
    let mut starts = vec![first.header()];
    for _ in 0..3 {
        let Some(at) = starts.last().copied() else {
            break;
        };
        let outside: Vec<_> = crate::llvm::ir::predecessors(at)
            .into_iter()
            .filter(|p| !top.iter().any(|l| l.contains_block(*p)))
            .collect();
        match outside.as_slice() {
            [pred] if fa.loop_for_block(*pred) == level => starts.push(*pred),
            _ => break,
        }
    }
    let blocks = fa.function().get_basic_blocks();
    let from = blocks.iter().position(|b| *b == start)?;
    blocks
        .iter()
        .skip(from + 1)
        .take(64)
        .find(|b| {
            fa.loop_for_block(**b) == level
                && fa.post_dominates(**b, first.header())
                && starts.iter().any(|s| fa.dominates(*s, **b))
        })
        .copied()
}

/// A rejection for the region's shape: shape-only when no instruction of the nests
/// was refused either (those problems stay whatever nests are added).
fn shape_failure(reasons: Reasons<'_>) -> Rejected<'_> {
    let shape_only = reasons.iter().all(|(r, _)| {
        matches!(
            r.reason,
            reject::RejectReason::MultipleExits | reject::RejectReason::IrreducibleControlFlow
        )
    });
    Rejected {
        reasons,
        offending: Vec::new(),
        shape_only,
        split: None,
    }
}

fn analyse<'f>(
    fa: &FunctionAnalyses<'f>,
    top: &[Loop<'f>],
    speculated: &[(inkwell::llvm_sys::prelude::LLVMValueRef, i64)],
) -> Result<DetectedRegion<'f>, Rejected<'f>> {
    let shape = candidate_shape(fa, top)?;
    let reasons = located(fa, &shape.blocks);
    let tr = Translator::speculating(fa, &shape, speculated);
    let bounds = control::loop_bounds(&tr);
    let conditions = control::block_conditions(&tr);
    let memory = match &conditions {
        Ok(c) => memory(&tr, c, bounds.as_deref().ok()),
        Err(_) => Ok(Memory::default()),
    };
    match (bounds, conditions, memory) {
        (Ok(bounds), Ok(conditions), Ok(memory)) if reasons.is_empty() => {
            let found = Found {
                shape: &shape,
                bounds: &bounds,
                conditions: &conditions,
                memory: &memory,
            };
            Ok(region(fa, top, &found, tr))
        }
        (bounds, conditions, memory) => {
            let mut reasons = reasons;
            let none = |v: Vec<Rejection>| v.into_iter().map(|r| (r, None));
            if let Err(e) = bounds {
                reasons.extend(none(e));
            }
            if let Err(e) = conditions {
                reasons.extend(none(e));
            }
            if let Err(e) = memory {
                reasons.extend(none(e));
            }
            Err(refusal(&shape, &tr, reasons))
        }
    }
}

/// The instructions of `blocks` detection refuses, each where it is.
fn located<'f>(fa: &FunctionAnalyses<'f>, blocks: &[BasicBlock<'f>]) -> Reasons<'f> {
    instructions::check(fa, blocks)
        .into_iter()
        .map(|l| (l.rejection, Some(l.at)))
        .collect()
}

/// The region shape of the nests `top`, or why they have none (with the instructions
/// of their loops that would be refused as well).
fn candidate_shape<'f>(
    fa: &FunctionAnalyses<'f>,
    top: &[Loop<'f>],
) -> Result<region::RegionShape<'f>, Rejected<'f>> {
    let loop_blocks = || top.iter().flat_map(|l| l.blocks()).collect::<Vec<_>>();
    let Some(exit) = region_exit(fa, top) else {
        let mut reasons = located(fa, &loop_blocks());
        reasons.push((
            Rejection::new(reject::RejectReason::MultipleExits, "no single exit"),
            None,
        ));
        return Err(shape_failure(reasons));
    };
    region::shape(fa, top, exit).map_err(|region::ShapeError { problems }| {
        let mut reasons = located(fa, &loop_blocks());
        reasons.extend(problems.into_iter().map(|r| (r, None)));
        shape_failure(reasons)
    })
}

/// The memory a region touches: its accesses, once the scalars it keeps in an array
/// element (`promoted`) and the values it recomputes where they are read (`forward`)
/// are accesses to those arrays.
#[derive(Default)]
struct Memory<'f> {
    accesses: access::Accesses<'f>,
    /// Each promoted chain with the statements (by block) that write it.
    promotions: Vec<(
        promoted::Promotion,
        Vec<(BasicBlock<'f>, promoted::PromotedWrite)>,
    )>,
    /// See `RegionIr::forwarded`.
    forwarded: Vec<Vec<inkwell::llvm_sys::prelude::LLVMValueRef>>,
}

fn memory<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &control::BlockConditions<'f>,
    bounds: Option<&[(Loop<'f>, control::LoopBounds)]>,
) -> Result<Memory<'f>, Vec<Rejection>> {
    let mut accesses = access::collect(tr, conditions, bounds)?;
    let mut promotions = promoted::to_memory(tr, conditions, bounds, &mut accesses);
    promotions.extend(stored::to_memory(tr, conditions, &mut accesses));
    let mut forwarded = forward::recompute(tr, conditions, &mut accesses);
    let conditions_recomputed = guarded::conditions(tr, conditions, &mut accesses, &forwarded)?;
    forwarded.extend(conditions_recomputed);
    Ok(Memory {
        accesses,
        promotions,
        forwarded,
    })
}

/// What the steps of detection found in an accepted candidate.
struct Found<'a, 'f> {
    shape: &'a region::RegionShape<'f>,
    bounds: &'a [(Loop<'f>, control::LoopBounds)],
    conditions: &'a control::BlockConditions<'f>,
    memory: &'a Memory<'f>,
}

/// The detected region of the nests `top`: its spec and the IR behind it.
fn region<'f>(
    fa: &FunctionAnalyses<'f>,
    top: &[Loop<'f>],
    found: &Found<'_, 'f>,
    tr: Translator<'_, 'f>,
) -> DetectedRegion<'f> {
    let Found {
        shape,
        bounds,
        conditions,
        memory,
    } = *found;
    let accesses = &memory.accesses;
    let invariant_loads = tr.invariant_loads();
    let speculated = tr.used_speculation();
    let params = tr.into_params();
    let (mut spec, statement_blocks) = build::scop_spec(&build::Inputs {
        fa,
        shape,
        params: &params,
        bounds,
        conditions,
        accesses,
    });
    build::record_invariant_loads(fa, &mut spec, &invariant_loads);
    let ir = RegionIr {
        entry: shape.entry,
        exit: shape.exit,
        blocks: shape.blocks.clone(),
        loops: shape.loops.clone(),
        statements: statement_irs(fa, found, &spec, &statement_blocks),
        params,
        arrays: array_irs(accesses),
        promotions: memory.promotions.iter().map(|(p, _)| p.clone()).collect(),
        forwarded: memory.forwarded.clone(),
        speculated,
        fallback_open: false,
        memory_arrays: memory_arrays(accesses),
    };
    DetectedRegion {
        top: top.to_vec(),
        spec,
        last: last_located_instruction(fa, &shape.blocks),
        ir,
        not_replaceable: None,
    }
}

/// The IR of each statement of `spec`, whose blocks are `statement_blocks`.
fn statement_irs<'f>(
    fa: &FunctionAnalyses<'f>,
    found: &Found<'_, 'f>,
    spec: &ScopSpec,
    statement_blocks: &[BasicBlock<'f>],
) -> Vec<StatementIr<'f>> {
    spec.statements
        .iter()
        .zip(statement_blocks)
        .map(|(s, rep)| StatementIr {
            name: s.name.clone(),
            blocks: found
                .shape
                .blocks
                .iter()
                .copied()
                .filter(|b| found.conditions.statement_block(*b) == *rep)
                .collect(),
            loops: found.shape.loops_around(fa, *rep),
            promoted_writes: found
                .memory
                .promotions
                .iter()
                .flat_map(|(_, writes)| writes)
                .filter(|(block, _)| block == rep)
                .map(|(_, write)| *write)
                .collect(),
            guards: found
                .conditions
                .guards
                .get(rep)
                .cloned()
                .unwrap_or_default(),
            guard_depth: found
                .conditions
                .guards
                .get(rep)
                .into_iter()
                .flatten()
                .map(|g| found.shape.loops_around(fa, g.branch).len())
                .max()
                .unwrap_or(0),
        })
        .collect()
}

/// What each array of the spec stands for in the IR.
fn array_irs(accesses: &access::Accesses<'_>) -> Vec<(String, ArrayIr)> {
    accesses
        .arrays
        .iter()
        .filter_map(|a| {
            let ir = match (a.base, a.value) {
                (Some(base), _) => ArrayIr::Memory { base },
                (None, Some(value)) => ArrayIr::Scalar { value },
                (None, None) => return None,
            };
            Some((a.name.clone(), ir))
        })
        .collect()
}

/// The memory array each load and store of the region accesses.
fn memory_arrays(
    accesses: &access::Accesses<'_>,
) -> HashMap<inkwell::llvm_sys::prelude::LLVMValueRef, String> {
    accesses
        .accesses
        .iter()
        .filter_map(|access| {
            let inst = access.inst?;
            let array = accesses.arrays.get(access.array)?;
            array.base?;
            matches!(
                inst.get_opcode(),
                InstructionOpcode::Load | InstructionOpcode::Store
            )
            .then(|| (inst.as_value_ref(), array.name.clone()))
        })
        .collect()
}

/// Why a candidate with a region shape is refused: `reasons`, and where its entry is
/// a guard whose work caused some of them, that guard (see `Rejected::split`).
fn refusal<'f>(
    shape: &region::RegionShape<'f>,
    tr: &Translator<'_, 'f>,
    reasons: Reasons<'f>,
) -> Rejected<'f> {
    // Refused for the work of the guard it starts at (the `malloc` in front of
    // `if (n > 0)`): without that work the region may form.
    let in_guard = |inst: &InstructionValue<'f>| {
        shape.guard_with_work.is_some() && inst.get_parent() == shape.guard_with_work
    };
    let split = shape.guard_with_work.filter(|_| {
        reasons
            .iter()
            .any(|(_, at)| at.as_ref().is_some_and(in_guard))
            || tr
                .offending()
                .into_iter()
                .any(|v| crate::llvm::ir::as_instruction(v).is_some_and(|i| in_guard(&i)))
    });
    Rejected {
        reasons,
        offending: tr.offending(),
        shape_only: false,
        split,
    }
}

/// The instruction of the region that comes last in the source (what Polly's
/// "SCoP ends here." points at), falling back to the last instruction.
fn last_located_instruction<'f>(
    fa: &FunctionAnalyses<'f>,
    blocks: &[inkwell::basic_block::BasicBlock<'f>],
) -> Option<InstructionValue<'f>> {
    let position = |loc: &str| {
        crate::llvm::source_terms::split_location(loc).map(|(_, line, col)| (line, col))
    };
    let mut best: Option<((u32, u32), InstructionValue<'f>)> = None;
    for block in blocks {
        for inst in block.get_instructions() {
            if let Some(p) = fa.instruction_location(inst).as_deref().and_then(position) {
                if p.0 > 0 && best.as_ref().is_none_or(|(q, _)| p > *q) {
                    best = Some((p, inst));
                }
            }
        }
    }
    best.map(|(_, i)| i)
        .or_else(|| blocks.last().and_then(|b| b.get_terminator()))
}

/// The remarks of a detection: `SCoP begins here.` / `SCoP ends here.` for each region
/// (Polly's wording, so scripts read both), and one missed remark per reason.
pub fn emit_remarks<'f>(fa: &FunctionAnalyses<'f>, detection: &Detection<'f>) {
    for region in &detection.regions {
        let Some(first) = region.top.first().copied() else {
            continue;
        };
        fa.remark(
            RemarkKind::Analysis,
            "ScopEntry",
            RemarkAt::loop_start(first),
            "SCoP begins here.",
        );
        let end = match region.last {
            Some(i) => RemarkAt::instruction(i),
            None => RemarkAt::loop_start(first),
        };
        fa.remark(RemarkKind::Analysis, "ScopEnd", end, "SCoP ends here.");
        // What became of the values LLVM keeps in registers, at the value.
        let about_value = |value, key, what: String| {
            let at = crate::llvm::ir::as_instruction(value)
                .map_or(RemarkAt::loop_start(first), RemarkAt::instruction);
            let name = crate::llvm::source_terms::describe_value(fa, value);
            fa.remark(RemarkKind::Analysis, key, at, &format!("{name} {what}"));
        };
        for promotion in &region.ir.promotions {
            if let Some(phi) = promotion.values.first().copied() {
                about_value(
                    phi,
                    "PromotedScalar",
                    format!(
                        "is modelled as the element of {} it is loaded from or stored to, so the loops around it can be reordered",
                        promotion.array
                    ),
                );
            }
        }
        for tree in &region.ir.forwarded {
            if let Some(value) = tree.first().copied() {
                about_value(
                    value,
                    "ForwardedValue",
                    "is recomputed where it is read, from arrays the region does not write, so the loops around it can be reordered".into(),
                );
            }
        }
    }
    for nest in &detection.rejected {
        for (reason, at) in &nest.reasons {
            let at = match at {
                Some(i) if fa.instruction_location(*i).is_some() => RemarkAt::instruction(*i),
                _ => RemarkAt::loop_start(nest.root),
            };
            fa.remark(
                RemarkKind::Missed,
                reason.reason.key(),
                at,
                &format!("loop not modelled: {reason}"),
            );
        }
        inner_regions_remark(fa, detection, nest);
    }
    for stop in &detection.stops {
        if let Some((reason, _)) = stop.reasons.first() {
            fa.remark(
                RemarkKind::Analysis,
                "RegionStops",
                RemarkAt::loop_start(stop.next),
                &format!(
                    "the region before this loop does not extend over it (the loops stay apart, they cannot fuse): {reason}"
                ),
            );
        }
    }
}

/// For a nest refused only because it is left from several places (a pivot search's
/// early `return` on a zero pivot, a `break`), what became of the nests inside it that
/// are regions of their own: each run of the outer loop's body is optimized alone with
/// its counter as a parameter, so the iterations of the outer loop keep their order
/// (the work of one run is never moved into another). Nothing is said when no nest
/// inside is a region: the refusal's remark already says why.
fn inner_regions_remark<'f>(
    fa: &FunctionAnalyses<'f>,
    detection: &Detection<'f>,
    nest: &RejectedNest<'f>,
) {
    let exits_only = !nest.reasons.is_empty()
        && nest
            .reasons
            .iter()
            .all(|(r, _)| r.reason == reject::RejectReason::MultipleExits);
    if !exits_only {
        return;
    }
    let inside: Vec<&DetectedRegion<'f>> = detection
        .regions
        .iter()
        .filter(|r| {
            r.top.first().is_some_and(|l| {
                l.depth() > nest.root.depth() && nest.root.contains_block(l.header())
            })
        })
        .collect();
    if inside.is_empty() {
        return;
    }
    let loops: Vec<String> = inside
        .iter()
        .filter_map(|r| r.top.first())
        .map(|l| crate::llvm::source_terms::describe_loop(fa, *l))
        .collect();
    let one = inside.len() == 1;
    let message = format!(
        "the loop nest{} inside it ({}) {} modelled as region{} of {} own, once per iteration of this loop (its counter a parameter): the iterations of this loop keep their order and only the work within one iteration can be reordered",
        if one { "" } else { "s" },
        loops.join("; "),
        if one { "is" } else { "are" },
        if one { "" } else { "s" },
        if one { "its" } else { "their" },
    );
    fa.remark(
        RemarkKind::Analysis,
        "InnerRegions",
        RemarkAt::loop_start(nest.root),
        &message,
    );
}

/// `print<polyrust-detect>`.
pub fn print<'f>(fa: &FunctionAnalyses<'f>, detection: &Detection<'f>) -> String {
    use std::fmt::Write;
    let name = fa.function().get_name().to_string_lossy().into_owned();
    let mut out = format!("polyrust-detect: function '{name}'\n");
    let loc = |l: Loop<'f>| {
        fa.loop_location(l)
            .map(|s| format!(" at {s}"))
            .unwrap_or_default()
    };
    for region in &detection.regions {
        let Some(first) = region.top.first().copied() else {
            continue;
        };
        let loops: Vec<_> = region.top.iter().flat_map(|l| l.preorder()).collect();
        let _ = writeln!(
            out,
            "  region {}{}: {} loop nest{}, {} loop{}, depth {}, {} statement{}",
            region.spec.name,
            loc(first),
            region.top.len(),
            if region.top.len() == 1 { "" } else { "s" },
            loops.len(),
            if loops.len() == 1 { "" } else { "s" },
            loops
                .iter()
                .map(|l| l.depth() - first.depth() + 1)
                .max()
                .unwrap_or(1),
            region.spec.statements.len(),
            if region.spec.statements.len() == 1 {
                ""
            } else {
                "s"
            },
        );
        if let Some(reason) = &region.not_replaceable {
            let _ = writeln!(out, "    left unchanged, {}: {reason}", reason.reason.key());
        }
    }
    for stop in &detection.stops {
        let _ = writeln!(
            out,
            "  region stops before loop {}{}:",
            stop.next.header_name(),
            loc(stop.next)
        );
        for (reason, _) in &stop.reasons {
            let _ = writeln!(out, "    {}: {reason}", reason.reason.key());
        }
    }
    for nest in &detection.rejected {
        let _ = writeln!(
            out,
            "  rejected loop {}{}:",
            nest.root.header_name(),
            loc(nest.root)
        );
        for (reason, _) in &nest.reasons {
            let _ = writeln!(out, "    {}: {reason}", reason.reason.key());
        }
    }
    out
}
