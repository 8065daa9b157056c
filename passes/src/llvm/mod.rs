//! The bridge to LLVM: the C ABI shared with the shim (`abi`), safe wrappers over the
//! analyses it hands over (`host`), Rust's own reading of SCEV trees (`scev_text`), and
//! values, accesses and loops in the source's terms for remarks (`source_terms`).

pub mod abi;
pub(crate) mod builder;
mod counters;
pub(crate) mod host;
pub(crate) mod ir;
pub(crate) mod link;
mod metadata;
pub(crate) mod scev_text;
pub(crate) mod source_terms;

pub(crate) use host::{
    AliasResult, CacheLevel, Delinearized, FunctionAnalyses, FunctionPass, FunctionRun, Loop,
    MemoryEffect, RemarkAt, RemarkKind, Scev, ScevKind, Severity, Stage,
};
pub use inkwell::llvm_sys::prelude::LLVMValueRef;
pub(crate) use metadata::move_loop_id;
