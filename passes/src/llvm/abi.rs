//! The C ABI of `plugin/shim/polyrust_host.h`, declared for Rust. Keep the two in step:
//! field order is the contract. Only `llvm::host` uses these raw types.

use std::ffi::{c_char, c_int};

use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMMetadataRef, LLVMTypeRef, LLVMValueRef};

pub const PR_HOST_API_VERSION: u32 = 4;

#[repr(C)]
pub struct PrFunctionCtx {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct PrLoop {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct PrScev {
    _opaque: [u8; 0],
}

/// `llvm::SCEVTypes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrScevKind {
    Constant = 0,
    VScale,
    Truncate,
    ZeroExtend,
    SignExtend,
    Add,
    Mul,
    UDiv,
    AddRec,
    UMax,
    SMax,
    UMin,
    SMin,
    SequentialUMin,
    PtrToInt,
    Unknown,
    CouldNotCompute,
}

pub const PR_SCEV_FLAG_NW: u32 = 1;
pub const PR_SCEV_FLAG_NUW: u32 = 2;
pub const PR_SCEV_FLAG_NSW: u32 = 4;

/// `llvm::AliasResult`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrAliasResult {
    NoAlias = 0,
    MayAlias = 1,
    PartialAlias = 2,
    MustAlias = 3,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrMemoryEffect {
    None = 0,
    Read = 1,
    Write = 2,
    ReadWrite = 3,
    /// Writes errno and nothing else (libm functions under `-fmath-errno`).
    ErrnoWrite = 4,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrRemarkKind {
    Passed = 0,
    Missed = 1,
    Analysis = 2,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrSeverity {
    Error = 0,
    Warning = 1,
    Note = 2,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrTiling {
    Sica = 0,
    Fixed = 1,
    None = 2,
}

#[repr(C)]
pub struct PrOptions {
    pub max_operations: u64,
    pub tiling: PrTiling,
    pub tiling_given: i32,
    pub tile_sizes: *const u32,
    pub tile_sizes_len: usize,
    pub sica_rho: f64,
    pub export_dir: *const c_char,
    pub import_dir: *const c_char,
    pub l1_cache: *const c_char,
    pub l2_cache: *const c_char,
    pub simd_width: u32,
    pub codegen: i32,
    pub force_codegen: i32,
    pub allow_reassociation: i32,
    pub debug_remarks: i32,
    pub profile_generate: i32,
    pub profile_generate_path: *const c_char,
    pub profile_use: *const c_char,
    pub round: u32,
    pub time_tiling: i32,
    pub register_tiling: i32,
    pub exprprop: i32,
    pub quov: i32,
    pub fusion: i32,
    pub instrument: *const c_char,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrPrinter {
    Loops = 0,
    Detect = 1,
    Scops = 2,
    Ast = 3,
    Deps = 4,
}

type Ctx = *mut PrFunctionCtx;
type Lp = *mut PrLoop;
type Sc = *const PrScev;
type Bb = LLVMBasicBlockRef;

#[repr(C)]
pub struct PrHostApi {
    pub version: u32,

    pub top_level_loop_count: unsafe extern "C" fn(Ctx) -> usize,
    pub top_level_loop: unsafe extern "C" fn(Ctx, usize) -> Lp,
    pub subloop_count: unsafe extern "C" fn(Lp) -> usize,
    pub subloop: unsafe extern "C" fn(Lp, usize) -> Lp,
    pub parent_loop: unsafe extern "C" fn(Lp) -> Lp,
    pub loop_depth: unsafe extern "C" fn(Lp) -> u32,
    pub loop_header: unsafe extern "C" fn(Lp) -> Bb,
    pub loop_preheader: unsafe extern "C" fn(Lp) -> Bb,
    pub loop_latch: unsafe extern "C" fn(Lp) -> Bb,
    pub loop_block_count: unsafe extern "C" fn(Lp) -> usize,
    pub loop_block: unsafe extern "C" fn(Lp, usize) -> Bb,
    pub loop_exit_block_count: unsafe extern "C" fn(Lp) -> usize,
    pub loop_exit_block: unsafe extern "C" fn(Lp, usize) -> Bb,
    pub loop_for_block: unsafe extern "C" fn(Ctx, Bb) -> Lp,

    pub dominates: unsafe extern "C" fn(Ctx, Bb, Bb) -> i32,
    pub post_dominates: unsafe extern "C" fn(Ctx, Bb, Bb) -> i32,

    pub is_scevable: unsafe extern "C" fn(Ctx, LLVMValueRef) -> i32,
    pub scev_of: unsafe extern "C" fn(Ctx, LLVMValueRef) -> Sc,
    pub scev_at_scope: unsafe extern "C" fn(Ctx, Sc, Lp) -> Sc,
    pub scev_substitute:
        unsafe extern "C" fn(Ctx, Sc, *const LLVMValueRef, *const i64, usize) -> Sc,
    pub backedge_taken_count: unsafe extern "C" fn(Ctx, Lp) -> Sc,
    pub constant_max_backedge_taken_count: unsafe extern "C" fn(Ctx, Lp) -> Sc,
    pub trip_count: unsafe extern "C" fn(Ctx, Lp) -> Sc,
    pub scev_kind: unsafe extern "C" fn(Sc) -> PrScevKind,
    pub scev_operand_count: unsafe extern "C" fn(Sc) -> usize,
    pub scev_operand: unsafe extern "C" fn(Sc, usize) -> Sc,
    pub scev_flags: unsafe extern "C" fn(Sc) -> u32,
    pub scev_bit_width: unsafe extern "C" fn(Sc) -> u32,
    pub scev_type: unsafe extern "C" fn(Sc) -> LLVMTypeRef,
    pub scev_constant_i64: unsafe extern "C" fn(Sc, *mut i64) -> i32,
    pub scev_unknown_value: unsafe extern "C" fn(Sc) -> LLVMValueRef,
    pub scev_add_rec_loop: unsafe extern "C" fn(Sc) -> Lp,
    pub scev_to_string: unsafe extern "C" fn(Sc) -> *mut c_char,
    pub scev_expand: unsafe extern "C" fn(Ctx, Sc, LLVMTypeRef, LLVMValueRef) -> LLVMValueRef,

    pub scev_minus: unsafe extern "C" fn(Ctx, Sc, Sc) -> Sc,
    pub pointer_base: unsafe extern "C" fn(Ctx, Sc) -> Sc,
    pub known_non_negative: unsafe extern "C" fn(Ctx, Sc) -> i32,
    pub known_positive: unsafe extern "C" fn(Ctx, Sc) -> i32,
    pub delinearize_parametric:
        unsafe extern "C" fn(Ctx, *const Sc, usize, u64, *mut Sc, *mut Sc, usize) -> usize,
    pub delinearize_fixed: unsafe extern "C" fn(Ctx, Sc, u64, *mut Sc, *mut Sc, usize) -> usize,
    pub type_store_size: unsafe extern "C" fn(Ctx, LLVMTypeRef) -> u64,
    pub expand_with_counters: unsafe extern "C" fn(
        Ctx,
        Sc,
        *const Lp,
        *const LLVMValueRef,
        usize,
        LLVMTypeRef,
        LLVMValueRef,
    ) -> LLVMValueRef,
    pub expand_loop_counter: unsafe extern "C" fn(Ctx, Lp, LLVMValueRef) -> LLVMValueRef,
    pub replace_phi_incoming_block: unsafe extern "C" fn(Bb, Bb, Bb),
    pub add_block_to_loop: unsafe extern "C" fn(Ctx, Bb, Lp),
    pub abandon_blocks: unsafe extern "C" fn(*const Bb, usize),
    pub add_block_to_dominators: unsafe extern "C" fn(Ctx, Bb, Bb),
    pub loop_has_tag: unsafe extern "C" fn(Lp, *const c_char) -> c_int,
    pub tag_loop: unsafe extern "C" fn(Lp, *const c_char),
    pub tag_latch: unsafe extern "C" fn(LLVMValueRef, *const c_char, LLVMMetadataRef),
    pub new_access_group: unsafe extern "C" fn(LLVMValueRef) -> LLVMMetadataRef,
    pub add_access_group: unsafe extern "C" fn(LLVMValueRef, LLVMMetadataRef),
    pub new_alias_scopes: unsafe extern "C" fn(LLVMValueRef, usize, *mut LLVMMetadataRef),
    pub add_alias_scopes:
        unsafe extern "C" fn(LLVMValueRef, LLVMMetadataRef, *const LLVMMetadataRef, usize),

    pub alias: unsafe extern "C" fn(Ctx, LLVMValueRef, u64, LLVMValueRef, u64) -> PrAliasResult,
    pub call_memory_effect: unsafe extern "C" fn(Ctx, LLVMValueRef) -> PrMemoryEffect,

    pub vector_register_bits: unsafe extern "C" fn(Ctx) -> u32,
    pub cache_size_bytes: unsafe extern "C" fn(Ctx, u32) -> u32,
    pub vector_registers: unsafe extern "C" fn(Ctx) -> u32,

    pub source_location: unsafe extern "C" fn(LLVMValueRef, Lp) -> *mut c_char,
    pub value_as_operand: unsafe extern "C" fn(LLVMValueRef) -> *mut c_char,
    pub value_text: unsafe extern "C" fn(LLVMValueRef) -> *mut c_char,
    pub source_name: unsafe extern "C" fn(LLVMValueRef) -> *mut c_char,
    pub remark:
        unsafe extern "C" fn(Ctx, PrRemarkKind, *const c_char, LLVMValueRef, Lp, Bb, *const c_char),
    pub diagnose: unsafe extern "C" fn(Ctx, PrSeverity, *const c_char),
    pub free_string: unsafe extern "C" fn(*mut c_char),

    pub timer_start: unsafe extern "C" fn(*const c_char) -> *mut std::ffi::c_void,
    pub timer_stop: unsafe extern "C" fn(*mut std::ffi::c_void),
}
