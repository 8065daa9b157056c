//! The run-time test of the CPU that guards a kernel built for more than the calling
//! function's target (`KernelTarget::CpuTest`): what `__builtin_cpu_init();
//! __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")` compiles to with
//! clang, a call of `__cpu_indicator_init` (libgcc's and compiler-rt's, which returns at
//! once after the first time; both run it as a constructor too) and a test of the
//! feature bits it leaves in `__cpu_model`. Both runtimes set the AVX2 bit only when the
//! operating system saves the 256-bit registers, so the test also says the kernel's
//! registers are usable.

use inkwell::llvm_sys::LLVMOpcode;

use crate::llvm::builder::{IrBuilder, Value};

/// libgcc's and compiler-rt's `struct __processor_model` (vendor, type, subtype, the
/// first 32 feature bits).
const CPU_MODEL: &str = "__cpu_model";
/// The function that fills it.
const CPU_INIT: &str = "__cpu_indicator_init";
/// The byte offset of the feature bits in `__cpu_model`.
const FEATURES_OFFSET: i64 = 12;
/// The bits of AVX2 (`FEATURE_AVX2`, 10) and FMA (`FEATURE_FMA`, 14) in them, as both
/// runtimes number the features.
const AVX2_AND_FMA: i64 = (1 << 10) | (1 << 14);

/// Whether the CPU running the program has AVX2 and FMA, as an `i1` at the builder's
/// insertion point.
pub fn has_avx2_and_fma(b: &IrBuilder<'_>) -> Value {
    let (init, ty) = b.void_function_of(CPU_INIT, &[]);
    let call = b.call(init, ty, &[]);
    b.locate_call(call);
    let i32_ty = b.i32_type();
    let words = b.array_type(i32_ty, 1);
    let model_ty = b.struct_type(&[i32_ty, i32_ty, i32_ty, words]);
    let model = b.external_global(CPU_MODEL, model_ty);
    let features = b.byte_address(model, b.const_i64(FEATURES_OFFSET));
    let bits = b.load(i32_ty, features, "polyrust.cpu.features");
    b.has_bits(i32_ty, bits, AVX2_AND_FMA)
}

/// `ok && the CPU has AVX2 and FMA`.
pub fn and_has_avx2_and_fma(b: &IrBuilder<'_>, ok: Value) -> Value {
    let cpu = has_avx2_and_fma(b);
    b.binary(LLVMOpcode::LLVMAnd, ok, cpu)
}
