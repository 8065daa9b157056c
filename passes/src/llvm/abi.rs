//! The C ABI of `plugin/shim/polyrust_host.h`, declared for Rust. Keep the two in step:
//! field order is the contract. Only `llvm::host` uses these raw types.

use std::ffi::c_char;

use inkwell::llvm_sys::prelude::{
    LLVMBasicBlockRef, LLVMContextRef, LLVMMetadataRef, LLVMTypeRef, LLVMValueRef,
};

pub(crate) const PR_HOST_API_VERSION: u32 = 7;

/// The host's state for one run of the pass on one function (opaque to Rust).
#[repr(C)]
pub struct PrFunctionRun {
    _opaque: [u8; 0],
}
#[repr(C)]
pub(crate) struct PrFunctionCtx {
    _opaque: [u8; 0],
}
#[repr(C)]
pub(crate) struct PrLoop {
    _opaque: [u8; 0],
}
#[repr(C)]
pub(crate) struct PrScev {
    _opaque: [u8; 0],
}

/// `llvm::SCEVTypes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(
    dead_code,
    reason = "mirrors polyrust_host.h; some variants only the shim makes"
)]
pub(crate) enum PrScevKind {
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

pub(crate) const PR_SCEV_FLAG_NW: u32 = 1;
pub(crate) const PR_SCEV_FLAG_NUW: u32 = 2;
pub(crate) const PR_SCEV_FLAG_NSW: u32 = 4;

/// `llvm::AliasResult`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(
    dead_code,
    clippy::enum_variant_names,
    reason = "mirrors polyrust_host.h (llvm::AliasResult's names); some variants only the shim makes"
)]
pub(crate) enum PrAliasResult {
    NoAlias = 0,
    MayAlias = 1,
    PartialAlias = 2,
    MustAlias = 3,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrRemarkKind {
    Passed = 0,
    Missed = 1,
    Analysis = 2,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(
    dead_code,
    reason = "mirrors polyrust_host.h; some variants only the shim makes"
)]
pub(crate) enum PrSeverity {
    Error = 0,
    Warning = 1,
    Note = 2,
}

/// The kinds of `-polyrust-*` option, as LLVM parses them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrOptionKind {
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
pub(crate) struct PrOptionChoice {
    pub(crate) name: *const c_char,
    pub(crate) help: *const c_char,
}

/// One option's declaration as the shim reads it; the strings are static.
#[repr(C)]
pub struct PrOptionDeclaration {
    pub(crate) name: *const c_char,
    pub(crate) help: *const c_char,
    pub(crate) value_name: *const c_char,
    pub(crate) kind: PrOptionKind,
    pub(crate) hidden: i32,
    pub(crate) value_optional: i32,
    pub(crate) default_integer: u64,
    pub(crate) default_number: f64,
    pub(crate) default_text: *const c_char,
    pub(crate) choices: *const PrOptionChoice,
    pub(crate) choice_count: usize,
}

/// One option's value as LLVM parsed it.
#[repr(C)]
pub struct PrOptionValue {
    pub(crate) given: i32,
    pub(crate) integer: u64,
    pub(crate) number: f64,
    pub(crate) text: *const c_char,
    pub(crate) list: *const u32,
    pub(crate) list_len: usize,
}

/// The passes the host runs on a function for the rounds.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PrFunctionPass {
    LoopSimplify = 0,
    Lcssa = 1,
    SroaModifyCfg = 2,
    InstCombine = 3,
    EarlyCseMemorySsa = 4,
    Dse = 5,
    RotateAndLicm = 6,
    LicmAndIndVars = 7,
}

/// Where the host lists expressions, one `push` each.
#[repr(C)]
pub(crate) struct PrScevList {
    pub(crate) list: *mut std::ffi::c_void,
    pub(crate) push: unsafe extern "C" fn(*mut std::ffi::c_void, *const PrScev),
}

/// The printer passes (`print<polyrust-...>`), each showing one stage's result.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrPrinter {
    /// The loop nests the pass sees.
    Loops = 0,
    /// The regions detection accepts, and why others are rejected.
    Detect = 1,
    /// The polyhedral model of each region.
    Scops = 2,
    /// The loop AST generated for each region.
    Ast = 3,
    /// The dependences of each region.
    Deps = 4,
    /// The floating-point operations and compulsory memory traffic of each region.
    Roofline = 5,
}

impl PrPrinter {
    /// The printer a pipeline element names (`print<polyrust-loops>`).
    pub fn named(name: &[u8]) -> Option<PrPrinter> {
        Some(match name {
            b"print<polyrust-loops>" => PrPrinter::Loops,
            b"print<polyrust-detect>" => PrPrinter::Detect,
            b"print<polyrust-scops>" => PrPrinter::Scops,
            b"print<polyrust-ast>" => PrPrinter::Ast,
            b"print<polyrust-deps>" => PrPrinter::Deps,
            b"print<polyrust-roofline>" => PrPrinter::Roofline,
            _ => return None,
        })
    }
}

type Ctx = *mut PrFunctionCtx;
type Lp = *mut PrLoop;
type Sc = *const PrScev;
type Bb = LLVMBasicBlockRef;

/// The table of host functions (LLVM's analyses and IR updates) the shim hands to
/// the optimizer; `version` must equal `PR_HOST_API_VERSION`.
#[repr(C)]
pub struct PrHostApi {
    pub(crate) version: u32,

    pub(crate) analyses_begin: unsafe extern "C" fn(*mut PrFunctionRun) -> Ctx,
    pub(crate) analyses_end: unsafe extern "C" fn(Ctx),
    pub(crate) run_pass: unsafe extern "C" fn(*mut PrFunctionRun, PrFunctionPass) -> i32,
    pub(crate) invalidate_analyses: unsafe extern "C" fn(*mut PrFunctionRun),

    pub(crate) top_level_loop_count: unsafe extern "C" fn(Ctx) -> usize,
    pub(crate) top_level_loop: unsafe extern "C" fn(Ctx, usize) -> Lp,
    pub(crate) subloop_count: unsafe extern "C" fn(Lp) -> usize,
    pub(crate) subloop: unsafe extern "C" fn(Lp, usize) -> Lp,
    pub(crate) parent_loop: unsafe extern "C" fn(Lp) -> Lp,
    pub(crate) loop_preheader: unsafe extern "C" fn(Lp) -> Bb,
    pub(crate) loop_latch: unsafe extern "C" fn(Lp) -> Bb,
    pub(crate) loop_block_count: unsafe extern "C" fn(Lp) -> usize,
    pub(crate) loop_block: unsafe extern "C" fn(Lp, usize) -> Bb,
    pub(crate) loop_for_block: unsafe extern "C" fn(Ctx, Bb) -> Lp,
    pub(crate) loop_start_location: unsafe extern "C" fn(Lp) -> LLVMMetadataRef,

    pub(crate) dominates: unsafe extern "C" fn(Ctx, Bb, Bb) -> i32,
    pub(crate) post_dominates: unsafe extern "C" fn(Ctx, Bb, Bb) -> i32,

    pub(crate) scev_of: unsafe extern "C" fn(Ctx, LLVMValueRef) -> Sc,
    pub(crate) scev_at_scope: unsafe extern "C" fn(Ctx, Sc, Lp) -> Sc,
    pub(crate) backedge_taken_count: unsafe extern "C" fn(Ctx, Lp) -> Sc,
    pub(crate) constant_max_backedge_taken_count: unsafe extern "C" fn(Ctx, Lp) -> Sc,
    pub(crate) trip_count_from_taken: unsafe extern "C" fn(Ctx, Sc, Lp, i32) -> Sc,
    pub(crate) scev_kind: unsafe extern "C" fn(Sc) -> PrScevKind,
    pub(crate) scev_operand_count: unsafe extern "C" fn(Sc) -> usize,
    pub(crate) scev_operand: unsafe extern "C" fn(Sc, usize) -> Sc,
    pub(crate) scev_flags: unsafe extern "C" fn(Sc) -> u32,
    pub(crate) scev_type: unsafe extern "C" fn(Sc) -> LLVMTypeRef,
    pub(crate) scev_value: unsafe extern "C" fn(Sc) -> LLVMValueRef,
    pub(crate) scev_add_rec_loop: unsafe extern "C" fn(Sc) -> Lp,
    pub(crate) scev_to_string: unsafe extern "C" fn(Sc) -> *mut c_char,
    pub(crate) scev_expand:
        unsafe extern "C" fn(Ctx, Sc, LLVMTypeRef, LLVMValueRef, i32) -> LLVMValueRef,

    pub(crate) scev_minus: unsafe extern "C" fn(Ctx, Sc, Sc) -> Sc,
    pub(crate) pointer_base: unsafe extern "C" fn(Ctx, Sc) -> Sc,
    pub(crate) known_non_negative: unsafe extern "C" fn(Ctx, Sc) -> i32,
    pub(crate) scev_constant: unsafe extern "C" fn(Ctx, LLVMTypeRef, i64) -> Sc,
    pub(crate) scev_unknown: unsafe extern "C" fn(Ctx, LLVMValueRef) -> Sc,
    pub(crate) scev_add: unsafe extern "C" fn(Ctx, Sc, Sc) -> Sc,
    pub(crate) scev_mul: unsafe extern "C" fn(Ctx, Sc, Sc) -> Sc,
    pub(crate) scev_add_rec: unsafe extern "C" fn(Ctx, Sc, Sc, Lp) -> Sc,
    pub(crate) scev_truncate_or_sign_extend: unsafe extern "C" fn(Ctx, Sc, LLVMTypeRef) -> Sc,
    pub(crate) scev_with_operands: unsafe extern "C" fn(Ctx, Sc, *const Sc, usize) -> Sc,
    pub(crate) parametric_terms: unsafe extern "C" fn(Ctx, *const Sc, usize, *mut PrScevList),
    pub(crate) array_dimensions: unsafe extern "C" fn(Ctx, *const Sc, usize, Sc, *mut PrScevList),
    pub(crate) access_functions: unsafe extern "C" fn(Ctx, Sc, *const Sc, usize, *mut PrScevList),
    pub(crate) delinearize_fixed:
        unsafe extern "C" fn(Ctx, Sc, Sc, *mut PrScevList, *mut PrScevList) -> i32,
    pub(crate) replace_phi_incoming_block: unsafe extern "C" fn(Bb, Bb, Bb),
    pub(crate) add_block_to_loop: unsafe extern "C" fn(Ctx, Bb, Lp),
    pub(crate) remove_phi_incoming: unsafe extern "C" fn(LLVMValueRef, Bb),
    pub(crate) add_block_to_dominators: unsafe extern "C" fn(Ctx, Bb, Bb),
    pub(crate) loop_id: unsafe extern "C" fn(Lp) -> LLVMMetadataRef,
    pub(crate) set_loop_id: unsafe extern "C" fn(Lp, LLVMMetadataRef),
    pub(crate) distinct_node:
        unsafe extern "C" fn(LLVMContextRef, *mut LLVMMetadataRef, usize) -> LLVMMetadataRef,

    pub(crate) alias:
        unsafe extern "C" fn(Ctx, LLVMValueRef, u64, LLVMValueRef, u64) -> PrAliasResult,
    pub(crate) call_memory_effects: unsafe extern "C" fn(Ctx, LLVMValueRef) -> u32,

    pub(crate) vector_register_bits: unsafe extern "C" fn(Ctx) -> u32,
    pub(crate) cache_size_bytes: unsafe extern "C" fn(Ctx, u32) -> u32,
    pub(crate) vector_registers: unsafe extern "C" fn(Ctx) -> u32,

    pub(crate) value_text: unsafe extern "C" fn(LLVMValueRef, LLVMValueRef, i32) -> *mut c_char,
    pub(crate) source_name: unsafe extern "C" fn(LLVMValueRef) -> *mut c_char,
    pub(crate) remark:
        unsafe extern "C" fn(Ctx, PrRemarkKind, *const c_char, LLVMMetadataRef, Bb, *const c_char),
    pub(crate) diagnose: unsafe extern "C" fn(Ctx, PrSeverity, *const c_char),

    pub(crate) timer_start: unsafe extern "C" fn(*const c_char) -> *mut std::ffi::c_void,
    pub(crate) timer_stop: unsafe extern "C" fn(*mut std::ffi::c_void),

    pub(crate) extract_blocks:
        unsafe extern "C" fn(*const Bb, usize, *const c_char) -> LLVMValueRef,
}
