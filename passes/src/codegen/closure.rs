//! Code generation for a recognised min-plus closure (`transform::closure`): behind the
//! region's run-time check (its assumptions and the array's range, as for loop code),
//! one call of the blocked kernel (`passes/kernels/closure.c`, put into the module once
//! by `llvm::link::kernel`) with n, the array's base and its row stride evaluated from
//! the region's parameters in the check block. The original loops stay as the fallback
//! when the check fails; the kernel's own check per block of steps (no negative cycle)
//! falls back to the loops' order inside the kernel. One call on one thread: every
//! block of steps depends on the one before.

use std::collections::HashMap;

use crate::detect::DetectedRegion;
use crate::llvm::builder::{IrBuilder, Value};
use crate::llvm::{link, FunctionAnalyses};
use crate::model::Scop;
use crate::transform::closure::{Closure, KERNEL};
use crate::transform::product::KernelTarget;

use super::emit::Emitter;
use super::product::{call_site, CallSite};
use super::{
    branch_on_check, conclude, emitter, fold, leave_to_exit, open_check, Check, CodegenError,
    Generated,
};

/// The kernel, built from `passes/kernels/closure.c` by `passes/build.rs`.
const KERNEL_BUILD: link::KernelBuild = link::KernelBuild {
    bitcode: include_bytes!(concat!(env!("OUT_DIR"), "/closure.bc")),
    assembly: include_str!(concat!(env!("OUT_DIR"), "/closure.s")),
};

/// Replaces `region` (modelled as `scop`) by a call of the blocked closure, behind the
/// run-time check. Under `-polyrust-profile-generate` the check records into
/// `recording` as loop code's does (before the test of the CPU).
pub fn generate<'f>(
    fa: &FunctionAnalyses<'f>,
    region: &DetectedRegion<'f>,
    scop: &Scop,
    closure: &Closure,
    recording: Option<&crate::speculate::Recording>,
) -> Result<Generated, CodegenError> {
    let Some(CallSite {
        entering,
        live,
        runtime,
    }) = call_site(fa, region, scop, "the closure")?
    else {
        return Ok(Generated::EntrySplit);
    };
    let folds = fold::FoldPlan::default();
    let added = match closure.target {
        KernelTarget::Caller => None,
        KernelTarget::CpuTest => Some(KernelTarget::CPU_TEST_FEATURES),
    };
    let (kernel, ty) = link::kernel(fa.function(), KERNEL_BUILD, KERNEL, added)
        .map_err(CodegenError::Unsupported)?;
    let b = IrBuilder::new(fa.function());
    let mut em = emitter(fa, &b, region, entering, HashMap::new(), folds);
    let check = open_check(&mut em, entering, &runtime, recording);
    let built =
        build_call(&mut em, &check, closure, (kernel, ty)).and_then(|()| leave_to_exit(&em, &live));
    conclude(&em, check.block, built)?;
    Ok(Generated::Region(super::outline::Forks::default()))
}

/// Fills the check block (parameters, condition) and makes the call on the new path.
fn build_call<'f>(
    em: &mut Emitter<'_, 'f>,
    check: &Check<'_, 'f>,
    closure: &Closure,
    (kernel, ty): (Value, inkwell::llvm_sys::prelude::LLVMTypeRef),
) -> Result<(), CodegenError> {
    let ok = super::product::kernel_condition(em, check, closure.target)?;
    let base = em.region.ir.memory_base(&closure.array).ok_or_else(|| {
        CodegenError::Unsupported(format!("no base pointer for {}", closure.array))
    })?;
    let base = super::product::available_base(em, base)?;
    let args = [em.expr(&closure.size)?, base, em.expr(&closure.row_stride)?];
    branch_on_check(em, check, ok);
    em.b.position_at_end(check.start);
    let call = em.b.call(kernel, ty, &args);
    em.b.locate_call(call);
    Ok(())
}
