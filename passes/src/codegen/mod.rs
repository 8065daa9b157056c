//! Code generation: replaces a region by the loop nest isl generates for a schedule,
//! behind a run-time check. The check block evaluates the model's assumptions and the
//! alias-group ranges; when they hold the new code runs, otherwise the original region
//! runs unchanged. Input: a detected region, its model and the schedule to generate.
//! Output: the function with `polyrust.check` in front of the region, or, when
//! generation cannot be completed, the function exactly as it was. Generated loops and
//! the original ones kept as fallback carry `polyrust.handled` in their loop ID (so no
//! later run rewrites them again); generated loops that carry no dependence also carry
//! `llvm.loop.parallel_accesses` over an access group holding their statements' memory
//! accesses (the run-time check guarantees the arrays do not overlap).
//!
//! Everything that can fail is computed before the IR changes (AST, run-time check,
//! shape of the region's entry and exit); a failure after that (a value that cannot
//! be recomputed) deletes what was made and restores the original edges.

mod check;
mod emit;

use std::collections::HashMap;
use std::fmt;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::{AsValueRef, InstructionOpcode};

use crate::detect::translate::ParamValue;
use crate::detect::{ArrayIr, DetectedRegion, HANDLED};
use crate::isl::{ast, IslCtx, IslError, Schedule, UnionMap};
use crate::llvm::builder::{phis_of, IrBuilder, Value};
use crate::llvm::ir::{
    as_instruction, basic_value, phi_incoming, pointer_operand, predecessors, successors, type_of,
    users,
};
use crate::llvm::source_terms::describe_value;
use crate::llvm::FunctionAnalyses;
use crate::model::Scop;

use check::RuntimeCheck;
use emit::{Emitter, Slot};

#[derive(Debug)]
pub enum CodegenError {
    /// Something this version of code generation does not handle; the region stays.
    Unsupported(String),
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

impl std::error::Error for CodegenError {}

/// What `generate` did.
#[derive(Debug, PartialEq, Eq)]
pub enum Generated {
    /// The region is replaced by the new code behind its check.
    Region,
    /// The region started at the function's entry block, which can have no check in
    /// front of it: the function got a new entry block, and the region is to be
    /// generated again with fresh analyses.
    EntrySplit,
}

/// Generates `schedule` for `region`; the original code stays behind the check.
pub fn generate<'f>(
    fa: &FunctionAnalyses<'f>,
    ctx: &IslCtx,
    region: &DetectedRegion<'f>,
    scop: &Scop,
    schedule: &Schedule,
    dependences: Option<&UnionMap>,
) -> Result<Generated, CodegenError> {
    let ir = &region.ir;
    // What can fail, before anything changes.
    let (entering, exit_values) = structure(fa, region)?;
    let Some(entering) = entering else {
        // The region starts the function: give it an entry block to put the check in.
        // The analyses no longer describe the function; the pass runs again.
        IrBuilder::new(fa.function())
            .split_function_entry()
            .ok_or_else(|| CodegenError::Unsupported("a function without blocks".into()))?;
        return Ok(Generated::EntrySplit);
    };
    let entering = &entering;
    let ast = ast::generate_checking_parallelism(&scop.assumed_context, schedule, dependences)
        .map_err(CodegenError::Isl)?;
    let runtime = check::runtime_check(ctx, &region.spec, scop)?;

    let b = IrBuilder::new(fa.function());
    let mut em = Emitter {
        fa,
        b: &b,
        region,
        ids: HashMap::new(),
        slots: HashMap::new(),
        homes: ir
            .promotions
            .iter()
            .flat_map(|p| p.values.iter().map(|v| (*v, p.pointer)))
            .collect(),
        hoisted: HashMap::new(),
        created: Vec::new(),
        parent_loop: fa
            .loop_for_block(*entering)
            .filter(|l| !ir.loops.contains(l)),
        groups: Vec::new(),
    };
    let check_block = em.block("polyrust.check", *entering);
    let start = em.block("polyrust.start", check_block);
    b.position_at_end(check_block);
    let placeholder = b.br(ir.entry);
    redirect(&b, *entering, ir.entry, check_block);
    fa.replace_phi_incoming_block(ir.entry, *entering, check_block);

    match build(
        &mut em,
        check_block,
        start,
        placeholder,
        &runtime,
        &ast,
        &exit_values,
    ) {
        Ok(()) => {
            if fa.function().verify(true) {
                // The fallback is the original code: no later run may rewrite it again.
                for l in &ir.loops {
                    l.tag(HANDLED);
                }
                Ok(Generated::Region)
            } else {
                undo(&em, check_block, ir.entry);
                Err(CodegenError::Unsupported(
                    "the generated code did not verify; the region is left as it was".into(),
                ))
            }
        }
        Err(e) => {
            undo(&em, check_block, ir.entry);
            Err(e)
        }
    }
}

/// Whether code generation handles the shape of `region` (checked before any isl work,
/// so a region it cannot generate costs nothing more): every statement one block, one
/// block entering the region, values leaving it only through the exit's phis.
pub fn supported(
    fa: &FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
) -> Result<(), CodegenError> {
    structure(fa, region).map(|_| ())
}

/// The block that enters the region and the values its exit phis take from it.
#[allow(clippy::type_complexity)]
fn structure<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
) -> Result<(Option<BasicBlock<'f>>, Vec<(Value, Value)>), CodegenError> {
    let ir = &region.ir;
    if let Some(st) = ir.statements.iter().find(|s| s.blocks.len() != 1) {
        return Err(CodegenError::Unsupported(format!(
            "statement {} has a data-dependent branch inside, which code generation does not handle yet",
            st.name
        )));
    }
    let outside: Vec<BasicBlock<'f>> = predecessors(ir.entry)
        .into_iter()
        .filter(|p| !ir.blocks.contains(p))
        .collect();
    let entering = match outside.as_slice() {
        [entering] => Some(*entering),
        // At the function's entry: `generate` gives the function a new entry first.
        [] if fa.function().get_first_basic_block() == Some(ir.entry) => None,
        _ => {
            return Err(CodegenError::Unsupported(format!(
                "the region is entered from {} blocks, which code generation does not handle yet",
                outside.len()
            )))
        }
    };
    Ok((entering, exit_phi_values(fa, region)?))
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

fn build<'f>(
    em: &mut Emitter<'_, 'f>,
    check_block: BasicBlock<'f>,
    start: BasicBlock<'f>,
    placeholder: Value,
    runtime: &RuntimeCheck,
    ast: &ast::Ast,
    exit_values: &[(Value, Value)],
) -> Result<(), CodegenError> {
    let fa = em.fa;
    let b = em.b;
    let ir = &em.region.ir;
    let before = as_instruction(placeholder)
        .ok_or_else(|| CodegenError::Unsupported("check block without terminator".into()))?;

    // Parameters, evaluated once in the check block.
    b.position_before(before);
    for param in &ir.params {
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

    // The run-time condition.
    let mut ok = em.condition(&runtime.assumptions)?;
    for (x, y) in &runtime.disjoint {
        let range = |r: &check::ArrayRange| -> Result<(Value, Value), CodegenError> {
            let base = ir
                .arrays
                .iter()
                .find_map(|(n, a)| match a {
                    ArrayIr::Memory { base } if *n == r.array => Some(*base),
                    _ => None,
                })
                .ok_or_else(|| {
                    CodegenError::Unsupported(format!("no base pointer for {}", r.array))
                })?;
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
        };
        let (x_low, x_high) = range(x)?;
        let (y_low, y_high) = range(y)?;
        let x_before_y = b.icmp(LLVMIntPredicate::LLVMIntSLE, x_high, y_low);
        let y_before_x = b.icmp(LLVMIntPredicate::LLVMIntSLE, y_high, x_low);
        let apart = b.binary(LLVMOpcode::LLVMOr, x_before_y, y_before_x);
        ok = b.binary(LLVMOpcode::LLVMAnd, ok, apart);
    }
    b.erase(placeholder);
    b.position_at_end(check_block);
    b.cond_br(ok, start, ir.entry);

    // Stack slots for the scalars, at the top of the function.
    let entry_block = fa
        .function()
        .get_first_basic_block()
        .ok_or_else(|| CodegenError::Unsupported("function without blocks".into()))?;
    if let Some(first) = entry_block.get_first_instruction() {
        b.position_before(first);
    }
    for (name, array) in &ir.arrays {
        if let ArrayIr::Scalar { value } = array {
            let ty = type_of(*value);
            let pointer = b.alloca(ty, &format!("polyrust.{name}"));
            em.slots.insert(*value, Slot { pointer, ty });
        }
    }

    // The new code: initial values of the entry's phis, then the loops.
    b.position_at_end(start);
    for phi in phis_of(ir.entry) {
        if let Some(slot) = em.slots.get(&phi.as_value_ref()).copied() {
            if let Some((value, _)) = phi_incoming(phi)
                .into_iter()
                .find(|(_, from)| *from == check_block)
            {
                b.store(value, slot.pointer);
            }
        }
    }
    em.node(&ast.root)?;

    // Into the exit block, with the values the region leaves behind.
    let end = b
        .current_block()
        .ok_or_else(|| CodegenError::Unsupported("no block at the end".into()))?;
    for (phi, value) in exit_values {
        let value = match em.slots.get(value).copied() {
            Some(slot) => b.load(slot.ty, slot.pointer, "polyrust.out"),
            None => *value,
        };
        b.add_incoming(*phi, value, end);
    }
    b.br(ir.exit);
    Ok(())
}

/// The type of a SCEV, for expansion.
fn scev_type<'f>(
    _fa: &FunctionAnalyses<'f>,
    scev: crate::llvm::Scev<'f>,
) -> Result<inkwell::llvm_sys::prelude::LLVMTypeRef, CodegenError> {
    scev.raw_type()
        .ok_or_else(|| CodegenError::Unsupported("expression without a type".into()))
}

/// For each phi of the exit block, the one value the region gives it (a value from
/// before the region, or one a statement stores in its scalar slot).
fn exit_phi_values<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
) -> Result<Vec<(Value, Value)>, CodegenError> {
    let ir = &region.ir;
    let mut out = Vec::new();
    for phi in phis_of(ir.exit) {
        let from_region: Vec<Value> = phi_incoming(phi)
            .into_iter()
            .filter(|(_, from)| ir.blocks.contains(from))
            .map(|(v, _)| v)
            .collect();
        let Some(first) = from_region.first().copied() else {
            continue;
        };
        if from_region.iter().any(|v| *v != first) {
            return Err(CodegenError::Unsupported(format!(
                "{} takes different values depending on the path out of the region",
                fa.operand_name(&phi)
            )));
        }
        let defined_inside = as_instruction(first)
            .and_then(|i| i.get_parent())
            .is_some_and(|b| ir.blocks.contains(&b));
        let is_scalar = ir
            .arrays
            .iter()
            .any(|(_, a)| matches!(a, ArrayIr::Scalar { value } if *value == first));
        if defined_inside && !is_scalar {
            return Err(CodegenError::Unsupported(format!(
                "{} is computed in the region and used after it, which code generation does not handle yet",
                describe_value(fa, first)
            )));
        }
        out.push((phi.as_value_ref(), first));
    }
    // Any other use after the region of a value made inside it is not handled yet.
    for block in &ir.blocks {
        for inst in block.get_instructions() {
            for user in users(&inst) {
                let outside = user.get_parent().is_some_and(|b| !ir.blocks.contains(&b));
                let exit_phi = user.get_opcode() == InstructionOpcode::Phi
                    && user.get_parent() == Some(ir.exit);
                if outside && !exit_phi {
                    return Err(CodegenError::Unsupported(format!(
                        "{} is computed in the region and used after it, which code generation does not handle yet",
                        describe_value(fa, inst.as_value_ref())
                    )));
                }
            }
        }
    }
    Ok(out)
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
