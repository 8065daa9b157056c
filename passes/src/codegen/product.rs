//! Code generation for a recognised matrix product (`transform::product`): behind the
//! region's run-time check (its assumptions and the arrays' ranges apart, as for loop
//! code), one call of the packed kernel, put into the module once
//! (`llvm::link::kernel`: its assembly, or its IR with the calling function's target
//! attributes); its sizes,
//! base pointers and strides evaluated from the region's parameters in the check
//! block. The original loops stay as the fallback when the check fails. A kernel built
//! for AVX2 and FMA the caller's target lacks (`KernelTarget::CpuTest`) gets them as
//! its own target features, and the check also tests the CPU (`cpu`).
//!
//! When the region's parallel loops run on OpenMP threads, the rows of C are split:
//! the call sits in a loop over blocks of `MICRO_ROWS` rows that `fork` and `outline`
//! fork like any parallel loop, each thread calling the kernel once on its contiguous
//! rows (A and C offset by the first row times their row strides); a lower triangle's
//! rows are cut so that every thread has as many of its elements. A batched product's
//! R * Q rows (r major) are split the same way, the kernel told its first and last
//! rows (it offsets A itself, its rows of successive r apart or not); no thread's call
//! leaves `sum`: one more call after the join, on no rows (first and last both R * Q),
//! copies the last row into it, so that a thread that had to make its rows through
//! `sum` for want of memory cannot leave it wrong. Relies on the
//! kernel computing each element of C from its row of A and all of B alone, in the
//! same operations whatever rows it is given (so any thread count prints the same
//! bytes), and on its buffers being its own per call (`malloc`; the batched kernel's
//! calls that find no memory take turns with `sum` through one flag).

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::values::InstructionValue;

use crate::detect::replaceable::{LiveOut, LiveOuts};
use crate::detect::DetectedRegion;
use crate::isl::ast::AstExpr;
use crate::llvm::builder::{IrBuilder, Value};
use crate::llvm::ir::as_instruction;
use crate::llvm::{link, FunctionAnalyses};
use crate::model::Scop;
use crate::transform::product::{
    Accumulator, Factor, KernelTarget, Operand, Precision, Product, Scaling, Start, MICRO_ROWS,
};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};

use super::emit::Emitter;
use super::outline::{self, ForkSite, Schedule};
use super::{
    branch_on_check, check, check_condition, conclude, emitter, evaluate_parameters, fold,
    leave_to_exit, open_check, structure, Check, CodegenError, Generated,
};

/// One build of the kernel, named by its stem in `passes/build.rs`.
macro_rules! kernel_build {
    ($stem:literal) => {
        link::KernelBuild {
            bitcode: include_bytes!(concat!(env!("OUT_DIR"), "/", $stem, ".bc")),
            assembly: include_str!(concat!(env!("OUT_DIR"), "/", $stem, ".s")),
        }
    };
}

/// The kernel, built from `passes/kernels/products.c` by `passes/build.rs`, for doubles:
/// the dot-product kernel; its variant whose sums start at C's elements and are stored
/// into C; the one with two products per step (syr2k); the one whose sums start at C,
/// C * beta or +0.0, with A scaled by alpha; the dot-product kernel with A scaled by
/// alpha; the batched one, written back into A (doitgen); the symmetric one (symm).
const KERNELS_F64: [link::KernelBuild; 7] = [
    kernel_build!("products"),
    kernel_build!("products_from_c"),
    kernel_build!("products_two_terms"),
    kernel_build!("products_scaled"),
    kernel_build!("products_alpha"),
    kernel_build!("products_batched"),
    kernel_build!("products_symm"),
];
/// The same seven, built for floats (in the same order).
const KERNELS_F32: [link::KernelBuild; 7] = [
    kernel_build!("products_f32"),
    kernel_build!("products_from_c_f32"),
    kernel_build!("products_two_terms_f32"),
    kernel_build!("products_scaled_f32"),
    kernel_build!("products_alpha_f32"),
    kernel_build!("products_batched_f32"),
    kernel_build!("products_symm_f32"),
];

/// Replaces `region` (modelled as `scop`) by a call of the packed product, behind the
/// run-time check; with `threads` (the fork threshold in work, as for loops), its rows
/// run on OpenMP threads. Under `-polyrust-profile-generate` the check records into
/// `recording` as loop code's does (before the test of the CPU, which no profile
/// decides on).
pub fn generate<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
    scop: &Scop,
    (product, threads): (&Product, Option<u64>),
    recording: Option<&crate::speculate::Recording>,
) -> Result<Generated, CodegenError> {
    let Some(CallSite {
        entering,
        live,
        runtime,
    }) = call_site(fa, region, scop, "the product")?
    else {
        return Ok(Generated::EntrySplit);
    };
    let folds = fold::FoldPlan::default();
    let variant = match (product.accumulator, &product.second) {
        _ if product.batch.is_some() => 5,
        _ if product.symmetric.is_some() => 6,
        (_, Some(_)) => 2,
        (Accumulator::Sum, None) => 0,
        (Accumulator::C, None) => 1,
        (Accumulator::Scaled(_), None) => 3,
        (Accumulator::ScaledSum(_), None) => 4,
    };
    let build = match product.precision {
        Precision::Double => KERNELS_F64[variant],
        Precision::Single => KERNELS_F32[variant],
    };
    let added = match product.target {
        KernelTarget::Caller => None,
        KernelTarget::CpuTest => Some(KernelTarget::CPU_TEST_FEATURES),
    };
    let (kernel, ty) = link::kernel(fa.function(), build, product.kernel(), added)
        .map_err(CodegenError::Unsupported)?;
    let b = IrBuilder::new(fa.function());
    let mut em = emitter(fa, &b, region, entering, HashMap::new(), folds);
    em.threads = threads;
    let check = open_check(&mut em, entering, &runtime, recording);
    let built = build_call(&mut em, &check, product, (kernel, ty), &live);
    conclude(&em, check.block, built)?;
    let mut forks = std::mem::take(&mut em.forks);
    outline::outline(fa, std::mem::take(&mut em.fork_sites), &mut forks);
    Ok(Generated::Region(forks))
}

/// Whether a value the region leaves behind would need the scalars' stack slots, which
/// the call does not fill.
/// Where a kernel's call replaces a region: the block entering it, the values live
/// after it and the region's run-time check.
pub(super) struct CallSite<'f> {
    pub entering: BasicBlock<'f>,
    pub live: LiveOuts,
    pub runtime: check::RuntimeCheck,
}

/// The place of `what`'s call (a kernel: "the product", "the closure") in `region`, or
/// `None` when the region's entry had to be split first (generate again). Refused: a
/// region that leaves a scalar behind (the kernel computes none), and the copy of a
/// versioned nest (the kernel's check has no place for its hoisted fields).
pub(super) fn call_site<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
    scop: &Scop,
    what: &str,
) -> Result<Option<CallSite<'f>>, CodegenError> {
    let (entering, live) = structure(fa, region)?;
    if leaves_scalars(&live) {
        return Err(CodegenError::Unsupported(format!(
            "{what} leaves a scalar behind"
        )));
    }
    let Some(entering) = super::one_entering_block(fa, region, entering)? else {
        return Ok(None);
    };
    if crate::detect::hoisted::guard_of(fa, entering, region.ir.entry).is_some() {
        return Err(CodegenError::Unsupported(format!(
            "{what} is the copy of a versioned nest"
        )));
    }
    let runtime = check::runtime_check(&region.spec, scop)?;
    Ok(Some(CallSite {
        entering,
        live,
        runtime,
    }))
}

/// Fills the check block of a kernel's call: the parameters, the region's condition
/// (recorded under `-polyrust-profile-generate`, before the CPU test no profile decides
/// on) and, for a kernel built with AVX2 and FMA for a target without them, the CPU
/// test; the builder is left in the check block, before its branch.
pub(super) fn kernel_condition<'f>(
    em: &mut Emitter<'_, 'f>,
    check: &Check<'_, 'f>,
    target: KernelTarget,
) -> Result<Value, CodegenError> {
    let before: InstructionValue<'f> = as_instruction(check.placeholder)
        .ok_or_else(|| CodegenError::Unsupported("check block without terminator".into()))?;
    em.b.position_before(before);
    evaluate_parameters(em, before)?;
    let (ok, ranges) = check_condition(em, check.runtime)?;
    if let Some(recording) = check.recording {
        super::record_check(em, recording, ok, &ranges, before)?;
    }
    Ok(match target {
        KernelTarget::Caller => ok,
        KernelTarget::CpuTest => super::cpu::and_has_avx2_and_fma(em.b, ok),
    })
}

fn leaves_scalars(live: &LiveOuts) -> bool {
    let slot = |kind: &LiveOut| matches!(kind, LiveOut::Slot);
    live.exit_phis.iter().any(|(_, _, kind)| slot(kind))
        || live.escaping.iter().any(|(_, kind)| slot(kind))
}

/// Fills the check block (parameters, condition) and makes the new code: the call,
/// then the way into the exit block.
fn build_call<'f>(
    em: &mut Emitter<'_, 'f>,
    check: &Check<'_, 'f>,
    product: &Product,
    (kernel, ty): (Value, inkwell::llvm_sys::prelude::LLVMTypeRef),
    live: &LiveOuts,
) -> Result<(), CodegenError> {
    let ok = kernel_condition(em, check, product.target)?;
    if let Some(batch) = &product.batch {
        let (args, rows) = batched_arguments(em, product, batch)?;
        return call_batched(em, check, ok, (kernel, ty, args, rows), live);
    }
    if let Some(symmetric) = product.symmetric {
        let args = symmetric_arguments(em, product, symmetric)?;
        // Its rows are not independent (each takes updates from the rows below it):
        // one call, on one thread.
        branch_on_check(em, check, ok);
        em.b.position_at_end(check.start);
        let call = em.b.call(kernel, ty, &args);
        em.b.locate_call(call);
        return leave_to_exit(em, live);
    }
    let [m, n, k] = [
        em.expr(&product.trips[0])?,
        em.expr(&product.trips[1])?,
        em.expr(&product.trips[2])?,
    ];
    let mut args = vec![m, n, k];
    // The operands indexed by i (A's, C): where their base and row stride go.
    let mut rows = Vec::new();
    let mut operands = vec![(&product.a, true), (&product.b, false)];
    if let Some(second) = &product.second {
        operands.extend([(&second.a, true), (&second.b, false)]);
    }
    operands.push((&product.c, true));
    for (op, by_rows) in operands {
        if by_rows {
            rows.push(args.len());
        }
        args.extend(operand_arguments(em, op)?);
    }
    args.extend(blocking_arguments(em, product)?);
    match (product.accumulator, &product.second) {
        (Accumulator::Scaled(scaling), None) => {
            args.extend(scaling_arguments(em, scaling, product.precision)?)
        }
        (Accumulator::Scaled(scaling), Some(second)) => args.extend(two_terms_arguments(
            em,
            scaling,
            second.scaled_bits(),
            product.precision,
        )?),
        (Accumulator::ScaledSum(alpha), None) => args.push(available_base(em, alpha)?),
        _ => {}
    }
    branch_on_check(em, check, ok);
    em.b.position_at_end(check.start);
    match em.threads {
        Some(min_work) => {
            let rows = RowOperands {
                positions: &rows,
                element_bytes: product.precision.bytes(),
                lower: lower_triangle(product),
                range: None,
            };
            call_by_rows(em, check, (kernel, ty), (args, rows), min_work)
        }
        None => {
            let call = em.b.call(kernel, ty, &args);
            em.b.locate_call(call);
        }
    }
    leave_to_exit(em, live)
}

/// The batched call with `args` when `ok`: its rows `first` to `last` (its last two
/// arguments) all `rows` of the batch (R * Q, r major) on one thread, or split into
/// blocks of `MICRO_ROWS` by `call_by_rows` under OpenMP.
fn call_batched<'f>(
    em: &mut Emitter<'_, 'f>,
    check: &Check<'_, 'f>,
    ok: Value,
    (kernel, ty, mut args, rows): (
        Value,
        inkwell::llvm_sys::prelude::LLVMTypeRef,
        Vec<Value>,
        Value,
    ),
    live: &LiveOuts,
) -> Result<(), CodegenError> {
    branch_on_check(em, check, ok);
    em.b.position_at_end(check.start);
    match em.threads {
        Some(min_work) => {
            let at = args.len() - 2;
            let split = RowOperands {
                positions: &[],
                element_bytes: 0,
                lower: false,
                range: Some((rows, at)),
            };
            call_by_rows(em, check, (kernel, ty), (args, split), min_work);
        }
        None => {
            let n = args.len();
            args[n - 2] = em.b.const_i64(0);
            args[n - 1] = rows;
            let call = em.b.call(kernel, ty, &args);
            em.b.locate_call(call);
        }
    }
    leave_to_exit(em, live)
}

/// The batched kernel's arguments: R, Q, N, K, A (base, r, q and column strides), B,
/// sum (base, stride 1), mc, kc, fused, and two places for its first and last rows;
/// with the number of rows, R * Q.
fn batched_arguments(
    em: &Emitter<'_, '_>,
    product: &Product,
    batch: &crate::transform::product::batched::Batch,
) -> Result<(Vec<Value>, Value), CodegenError> {
    let [q, n, k] = &product.trips;
    let mut args = vec![
        em.expr(&batch.batches)?,
        em.expr(q)?,
        em.expr(n)?,
        em.expr(k)?,
    ];
    let [a, rsq, csa] = operand_arguments(em, &product.a)?;
    args.extend([a, em.expr(&batch.batch_stride)?, rsq, csa]);
    args.extend(operand_arguments(em, &product.b)?);
    let sum =
        em.region.ir.memory_base(&batch.sum).ok_or_else(|| {
            CodegenError::Unsupported(format!("no base pointer for {}", batch.sum))
        })?;
    args.extend([available_base(em, sum)?, em.b.const_i64(1)]);
    args.extend(blocking_arguments(em, product)?);
    let rows = em.b.binary(LLVMOpcode::LLVMMul, args[0], args[1]);
    args.extend([em.b.const_i64(0), rows]);
    Ok((args, rows))
}

/// The kernel's blocking arguments, the same in every variant: mc, kc and fused.
fn blocking_arguments(em: &Emitter<'_, '_>, product: &Product) -> Result<Vec<Value>, CodegenError> {
    let constants = [
        product.blocking.mc,
        product.blocking.kc,
        u64::from(product.fused),
    ];
    constants
        .into_iter()
        .map(|size| {
            i64::try_from(size)
                .map(|size| em.b.const_i64(size))
                .map_err(|_| CodegenError::Unsupported("a kernel argument out of range".into()))
        })
        .collect()
}

/// The symmetric kernel's arguments: M, N, A, B, C (base, row and column strides),
/// mc, kc, fused, alpha and beta.
fn symmetric_arguments(
    em: &Emitter<'_, '_>,
    product: &Product,
    symmetric: crate::transform::product::symmetric::Symmetric,
) -> Result<Vec<Value>, CodegenError> {
    let mut args = vec![em.expr(&product.trips[0])?, em.expr(&product.trips[1])?];
    for op in [&product.a, &product.b, &product.c] {
        args.extend(operand_arguments(em, op)?);
    }
    args.extend(blocking_arguments(em, product)?);
    args.push(available_base(em, symmetric.alpha)?);
    args.push(available_base(em, symmetric.beta)?);
    Ok(args)
}

/// The scaled kernel's `start`, `beta`, `scale_a`, `alpha` (1.0 of the elements' type
/// where unused) and `lower`.
fn scaling_arguments(
    em: &Emitter<'_, '_>,
    scaling: Scaling,
    precision: Precision,
) -> Result<[Value; 5], CodegenError> {
    let factor = |f: Option<Factor>| match (f, precision) {
        (Some(value), _) => available_base(em, value),
        (None, Precision::Double) => Ok(em.b.const_f64(1.0)),
        (None, Precision::Single) => Ok(em.b.const_f32(1.0)),
    };
    let beta = match scaling.start {
        Start::ScaledC(beta) => Some(beta),
        Start::C | Start::Zero => None,
    };
    let code = |v: u64| i64::try_from(v).map(|v| em.b.const_i64(v));
    let start = code(scaling.start.code())
        .map_err(|_| CodegenError::Unsupported("a kernel argument out of range".into()))?;
    let scale_a = em.b.const_i64(i64::from(scaling.alpha.is_some()));
    let lower = em.b.const_i64(i64::from(scaling.lower));
    Ok([start, factor(beta)?, scale_a, factor(scaling.alpha)?, lower])
}

/// The two-term kernel's `start`, `beta`, `alpha` (1.0 where unused), `scaled` and
/// `lower`.
fn two_terms_arguments(
    em: &Emitter<'_, '_>,
    scaling: Scaling,
    scaled: u64,
    precision: Precision,
) -> Result<[Value; 5], CodegenError> {
    let [start, beta, _, alpha, lower] = scaling_arguments(em, scaling, precision)?;
    let scaled = i64::try_from(scaled)
        .map_err(|_| CodegenError::Unsupported("a kernel argument out of range".into()))?;
    Ok([start, beta, alpha, em.b.const_i64(scaled), lower])
}

/// The call on blocks of `MICRO_ROWS` rows, from a placeholder `first` block to a
/// placeholder `end` (see `fork`), left as a site for `outline`: the kernel gets
/// `min(end * MICRO_ROWS, M) - first * MICRO_ROWS` rows (none or less: it returns), the
/// operands indexed by i (`rows`) from the first of them (the batched kernel: its first
/// and last rows as two arguments). The blocks of rows are weighed
/// as a loop with the j and k loops inside. For a lower triangle, the kernel's `lower`
/// (its last argument) says which row of C its first is, its columns end at its last
/// row, and the threads get blocks of equal work (`Schedule::Triangle`); else blocks of
/// equal rows.
fn call_by_rows<'f>(
    em: &mut Emitter<'_, 'f>,
    check: &Check<'_, 'f>,
    (kernel, ty): (Value, inkwell::llvm_sys::prelude::LLVMTypeRef),
    (mut args, rows): (Vec<Value>, RowOperands<'_>),
    min_work: u64,
) {
    let b = em.b;
    let unit = b.const_i64(MICRO_ROWS as i64);
    let m = rows.range.map_or(args[0], |(total, _)| total);
    let rounded = b.binary(LLVMOpcode::LLVMAdd, m, b.const_i64(MICRO_ROWS as i64 - 1));
    let blocks = b.binary(LLVMOpcode::LLVMSDiv, rounded, unit);
    let none = b.icmp(LLVMIntPredicate::LLVMIntSLT, m, b.const_i64(1));
    let trips = b.select(none, b.const_i64(0), blocks);
    // The batched kernel's call after the join, on no rows: it leaves `sum`.
    let finish = rows.range.map(|(total, at)| {
        let mut finish = args.clone();
        finish[at] = total;
        finish[at + 1] = total;
        finish
    });
    let first = b.opaque_i64("polyrust.first");
    let end = b.opaque_i64("polyrust.end");
    let entry = em.block("polyrust.fork", check.start);
    b.br(entry);
    b.position_at_end(entry);
    let row = b.binary(LLVMOpcode::LLVMMul, first, unit);
    let after = b.binary(LLVMOpcode::LLVMMul, end, unit);
    let past = b.icmp(LLVMIntPredicate::LLVMIntSLT, m, after);
    let last = b.select(past, m, after);
    if let Some((_, at)) = rows.range {
        args[at] = row;
        args[at + 1] = last;
    } else {
        args[0] = b.binary(LLVMOpcode::LLVMSub, last, row);
    }
    // Each operand indexed by i: its base, then its row stride in elements.
    let element_bytes = b.const_i64(rows.element_bytes as i64);
    for &base in rows.positions {
        let elements = b.binary(LLVMOpcode::LLVMMul, row, args[base + 1]);
        let bytes = b.binary(LLVMOpcode::LLVMMul, elements, element_bytes);
        args[base] = b.byte_address(args[base], bytes);
    }
    if rows.lower {
        if let Some(lower) = args.last_mut() {
            *lower = b.binary(LLVMOpcode::LLVMAdd, row, b.const_i64(1));
        }
        // j <= i < last: the columns past the block's last row are none of its own.
        let n = args[1];
        let wide = b.icmp(LLVMIntPredicate::LLVMIntSLT, last, n);
        args[1] = b.select(wide, last, n);
    }
    let call = b.call(kernel, ty, &args);
    b.locate_call(call);
    let joined = em.block("polyrust.joined", entry);
    b.br(joined);
    b.position_at_end(joined);
    if let Some(finish) = finish {
        // Once every thread's rows are made: no thread's call leaves `sum`, and one
        // without memory for a buffer may have used it meanwhile.
        let call = b.call(kernel, ty, &finish);
        b.locate_call(call);
    }
    em.fork_sites.push(ForkSite {
        blocks: vec![entry],
        first,
        end,
        trips,
        min_trips: super::fork::min_trips(2, min_work),
        iterator: "i".into(),
        schedule: if rows.lower {
            Schedule::Triangle
        } else {
            Schedule::Blocks
        },
        partials: Vec::new(),
    });
}

/// The kernel's arguments that are operands indexed by i (each a base pointer followed
/// by its row stride), the bytes of their elements, and whether only C's lower triangle
/// is computed; or, for the batched kernel, the number of rows and where its first and
/// last rows go (it offsets its operands itself, the rows of successive r apart).
struct RowOperands<'a> {
    positions: &'a [usize],
    element_bytes: u64,
    lower: bool,
    range: Option<(Value, usize)>,
}

/// Whether only C's lower triangle is the product's (`j <= i`, i counted by the kernel
/// from the row its `lower` argument names).
fn lower_triangle(product: &Product) -> bool {
    matches!(product.accumulator, Accumulator::Scaled(scaling) if scaling.lower)
}

/// An operand's base pointer and strides, in the check block.
fn operand_arguments(em: &Emitter<'_, '_>, op: &Operand) -> Result<[Value; 3], CodegenError> {
    let base =
        em.region.ir.memory_base(&op.array).ok_or_else(|| {
            CodegenError::Unsupported(format!("no base pointer for {}", op.array))
        })?;
    let base = available_base(em, base)?;
    let stride = |e: &AstExpr| em.expr(e);
    Ok([base, stride(&op.first_stride)?, stride(&op.second_stride)?])
}

/// The base pointer (or a scaled product's factor) as the check block can use it:
/// hoisted if it is an invariant load, itself if it is made before the region.
pub(super) fn available_base(em: &Emitter<'_, '_>, base: Value) -> Result<Value, CodegenError> {
    if let Some(hoisted) = em.hoisted.get(&base) {
        return Ok(*hoisted);
    }
    let inside = as_instruction(base)
        .and_then(|i| i.get_parent())
        .is_some_and(|block| em.region.ir.blocks.contains(&block));
    if inside {
        return Err(CodegenError::Unsupported(
            "a base pointer made inside the region".into(),
        ));
    }
    Ok(base)
}
