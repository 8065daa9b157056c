//! The C ABI of `plugin/shim/polyrust_host.h`, declared for Rust. Keep the two in step:
//! field order is the contract. Only `llvm::host` uses these raw types.

use std::ffi::c_char;

use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMMetadataRef, LLVMTypeRef, LLVMValueRef};

pub const PR_HOST_API_VERSION: u32 = 5;

#[repr(C)]
pub struct PrFunctionRun {
    _opaque: [u8; 0],
}
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

/// The kinds of `-polyrust-*` option, as LLVM parses them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrOptionKind {
    Flag = 0,
    Uint64 = 1,
    Uint = 2,
    Number = 3,
    Text = 4,
    UintList = 5,
    Choice = 6,
}

/// One value of a choice option.
#[repr(C)]
#[derive(Debug)]
pub struct PrOptionChoice {
    pub name: *const c_char,
    pub help: *const c_char,
}

/// One option's declaration as the shim reads it; the strings are static.
#[repr(C)]
pub struct PrOptionDeclaration {
    pub name: *const c_char,
    pub help: *const c_char,
    pub value_name: *const c_char,
    pub kind: PrOptionKind,
    pub hidden: i32,
    pub value_optional: i32,
    pub default_integer: u64,
    pub default_number: f64,
    pub default_text: *const c_char,
    pub choices: *const PrOptionChoice,
    pub choice_count: usize,
}

/// One option's value as LLVM parsed it.
#[repr(C)]
pub struct PrOptionValue {
    pub given: i32,
    pub integer: u64,
    pub number: f64,
    pub text: *const c_char,
    pub list: *const u32,
    pub list_len: usize,
}

/// The passes the host runs on a function for the rounds.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrFunctionPass {
    LoopSimplify = 0,
    Lcssa = 1,
    SroaModifyCfg = 2,
    InstCombine = 3,
    EarlyCseMemorySsa = 4,
    Dse = 5,
    RotateAndLicm = 6,
}

/// Where the host lists expressions, one `push` each.
#[repr(C)]
pub struct PrScevList {
    pub list: *mut std::ffi::c_void,
    pub push: unsafe extern "C" fn(*mut std::ffi::c_void, *const PrScev),
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

    pub analyses_begin: unsafe extern "C" fn(*mut PrFunctionRun) -> Ctx,
    pub analyses_end: unsafe extern "C" fn(Ctx),
    pub run_pass: unsafe extern "C" fn(*mut PrFunctionRun, PrFunctionPass) -> i32,
    pub invalidate_analyses: unsafe extern "C" fn(*mut PrFunctionRun),

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
    pub trip_count_from_taken: unsafe extern "C" fn(Ctx, Sc, Lp, i32) -> Sc,
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
    pub scev_expand: unsafe extern "C" fn(Ctx, Sc, LLVMTypeRef, LLVMValueRef, i32) -> LLVMValueRef,

    pub scev_minus: unsafe extern "C" fn(Ctx, Sc, Sc) -> Sc,
    pub pointer_base: unsafe extern "C" fn(Ctx, Sc) -> Sc,
    pub known_non_negative: unsafe extern "C" fn(Ctx, Sc) -> i32,
    pub known_positive: unsafe extern "C" fn(Ctx, Sc) -> i32,
    pub scev_constant: unsafe extern "C" fn(Ctx, Sc, u64) -> Sc,
    pub scev_unknown: unsafe extern "C" fn(Ctx, LLVMValueRef) -> Sc,
    pub scev_add: unsafe extern "C" fn(Ctx, Sc, Sc) -> Sc,
    pub scev_mul: unsafe extern "C" fn(Ctx, Sc, Sc) -> Sc,
    pub scev_truncate_or_sign_extend: unsafe extern "C" fn(Ctx, Sc, LLVMTypeRef) -> Sc,
    pub scev_with_operands: unsafe extern "C" fn(Ctx, Sc, *const Sc, usize) -> Sc,
    pub parametric_terms: unsafe extern "C" fn(Ctx, *const Sc, usize, *mut PrScevList),
    pub array_dimensions: unsafe extern "C" fn(Ctx, *const Sc, usize, Sc, *mut PrScevList),
    pub access_functions: unsafe extern "C" fn(Ctx, Sc, *const Sc, usize, *mut PrScevList),
    pub delinearize_fixed:
        unsafe extern "C" fn(Ctx, Sc, Sc, *mut PrScevList, *mut PrScevList) -> i32,
    pub type_store_size: unsafe extern "C" fn(Ctx, LLVMTypeRef) -> u64,
    pub expand_loop_counter: unsafe extern "C" fn(Ctx, Lp, LLVMValueRef) -> LLVMValueRef,
    pub replace_phi_incoming_block: unsafe extern "C" fn(Bb, Bb, Bb),
    pub add_block_to_loop: unsafe extern "C" fn(Ctx, Bb, Lp),
    pub remove_phi_incoming: unsafe extern "C" fn(LLVMValueRef, Bb),
    pub add_block_to_dominators: unsafe extern "C" fn(Ctx, Bb, Bb),
    pub loop_id: unsafe extern "C" fn(Lp) -> LLVMMetadataRef,
    pub set_loop_id: unsafe extern "C" fn(Lp, LLVMMetadataRef),
    pub distinct_node:
        unsafe extern "C" fn(LLVMValueRef, *const LLVMMetadataRef, usize, i32) -> LLVMMetadataRef,
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
