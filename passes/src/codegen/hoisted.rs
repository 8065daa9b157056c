//! The part of the run-time check a versioned nest (`detect::hoisted`) adds: each field
//! hoisted in front of it lies outside every array the region writes, so the values
//! loaded once are the values the original nest reads in every iteration.

use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};

use crate::llvm::builder::Value;
use crate::llvm::LLVMValueRef;

use super::check::ArrayRange;
use super::emit::Emitter;
use super::{address_range, CodegenError};

/// `ok` and, for each hoisted field (address, bytes) and each array the region writes
/// (of `ranges`), the field ends before the array's first byte or starts after its last.
pub(super) fn fields_apart(
    em: &Emitter<'_, '_>,
    fields: &[(LLVMValueRef, u64)],
    ranges: &[ArrayRange],
    mut ok: Value,
) -> Result<Value, CodegenError> {
    let b = em.b;
    for range in ranges.iter().filter(|r| r.written) {
        let (low, high) = address_range(em, range)?;
        for (address, bytes) in fields {
            let start = b.ptr_to_int(*address);
            let size = i64::try_from(*bytes)
                .map_err(|_| CodegenError::Unsupported("a hoisted field too large".into()))?;
            let end = b.binary(LLVMOpcode::LLVMAdd, start, b.const_i64(size));
            let before = b.icmp(LLVMIntPredicate::LLVMIntSLE, end, low);
            let after = b.icmp(LLVMIntPredicate::LLVMIntSLE, high, start);
            let apart = b.binary(LLVMOpcode::LLVMOr, before, after);
            ok = b.binary(LLVMOpcode::LLVMAnd, ok, apart);
        }
    }
    Ok(ok)
}
