//! The part of the run-time check a nest versioned for its row pointers
//! (`detect::rows`) adds. The copy computes row `k` of a table as `base + k * 8u`
//! bytes, `base` the pointer in the table's entry of the first row and `u` the stride
//! found in front of the nest; what makes that the original's row is checked here, over
//! the rows the region accesses (from the address range of the array at `base`, which
//! the model keeps to whole rows through its in-bounds assumption):
//! - the stride is positive (and not absurdly large: the products below do not wrap);
//! - every table entry of those rows holds exactly the computed pointer (a loop of
//!   O(rows) in `polyrust.rows_at_stride`, run only when the rest of the check holds);
//! - those entries lie apart from every array the region writes, so the table keeps
//!   its pointers while the nest runs.

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMTypeRef;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode};
use inkwell::values::FunctionValue;

use crate::detect::rows::RowTable;
use crate::llvm::builder::{IrBuilder, Value};
use crate::llvm::ir::type_of;

use super::check::ArrayRange;
use super::emit::Emitter;
use super::{address_range, CodegenError};

/// The largest stride (8-byte units) the check accepts: `k * 8u` for any row of a
/// table in memory stays far from wrapping.
const MAX_STRIDE: i64 = 1 << 40;

/// The checking function's name (one per module, internal).
const CHECK_FUNCTION: &str = "polyrust.rows_at_stride";

/// The row tables the versioning of `guard` prepared (none for hoisted fields alone).
pub(super) fn tables_of(
    guard: &crate::detect::hoisted::Guard<'_>,
) -> Result<Vec<RowTable>, CodegenError> {
    let block = guard
        .branch
        .get_parent()
        .ok_or_else(|| CodegenError::Unsupported("a versioning branch without block".into()))?;
    crate::detect::rows::tables_of(block).ok_or_else(|| {
        CodegenError::Unsupported("the versioning block's row tables are incomplete".into())
    })
}

/// `ok` and, for each table whose rows the region accesses, the rows at their stride
/// and the table apart from every written array of `ranges`.
pub(super) fn rows_at_stride(
    em: &Emitter<'_, '_>,
    tables: &[RowTable],
    ranges: &[ArrayRange],
    mut ok: Value,
) -> Result<Value, CodegenError> {
    let b = em.b;
    for table in tables {
        let Some(range) = ranges
            .iter()
            .find(|r| em.region.ir.memory_base(&r.array) == Some(table.base))
        else {
            continue;
        };
        let (low, high) = address_range(em, range)?;
        let base = b.ptr_to_int(table.base);
        let stride = table.stride;
        let positive = b.binary(
            LLVMOpcode::LLVMAnd,
            b.icmp(LLVMIntPredicate::LLVMIntSGT, stride, b.const_i64(0)),
            b.icmp(
                LLVMIntPredicate::LLVMIntSLT,
                stride,
                b.const_i64(MAX_STRIDE),
            ),
        );
        ok = b.binary(LLVMOpcode::LLVMAnd, ok, positive);
        let row_bytes = b.binary(LLVMOpcode::LLVMMul, stride, b.const_i64(8));
        let divisor = b.select(positive, row_bytes, b.const_i64(1));
        let first = floor_div(b, b.binary(LLVMOpcode::LLVMSub, low, base), divisor);
        let last_byte = b.binary(LLVMOpcode::LLVMSub, high, b.const_i64(1));
        let last = floor_div(b, b.binary(LLVMOpcode::LLVMSub, last_byte, base), divisor);
        ok = table_apart(em, table, (first, last), ranges, ok)?;
        let (function, ty) = check_function(b);
        let call = b.call(
            function,
            ty,
            &[ok, table.first, first, last, table.base, row_bytes],
        );
        b.locate_call(call);
        ok = call;
    }
    Ok(ok)
}

/// `ok` and the table's entries of rows `first..=last` apart from every written array.
fn table_apart(
    em: &Emitter<'_, '_>,
    table: &RowTable,
    (first, last): (Value, Value),
    ranges: &[ArrayRange],
    mut ok: Value,
) -> Result<Value, CodegenError> {
    let b = em.b;
    let entries = b.ptr_to_int(table.first);
    let entry_bytes = b.const_i64(8);
    let start = b.binary(
        LLVMOpcode::LLVMAdd,
        entries,
        b.binary(LLVMOpcode::LLVMMul, first, entry_bytes),
    );
    let after_last = b.binary(LLVMOpcode::LLVMAdd, last, b.const_i64(1));
    let end = b.binary(
        LLVMOpcode::LLVMAdd,
        entries,
        b.binary(LLVMOpcode::LLVMMul, after_last, entry_bytes),
    );
    for range in ranges.iter().filter(|r| r.written) {
        let (low, high) = address_range(em, range)?;
        let before = b.icmp(LLVMIntPredicate::LLVMIntSLE, end, low);
        let after = b.icmp(LLVMIntPredicate::LLVMIntSLE, high, start);
        let apart = b.binary(LLVMOpcode::LLVMOr, before, after);
        ok = b.binary(LLVMOpcode::LLVMAnd, ok, apart);
    }
    Ok(ok)
}

/// `floor(a / d)` for `d > 0`.
fn floor_div(b: &IrBuilder<'_>, a: Value, d: Value) -> Value {
    let quotient = b.binary(LLVMOpcode::LLVMSDiv, a, d);
    let remainder = b.binary(LLVMOpcode::LLVMSRem, a, d);
    let below = b.icmp(LLVMIntPredicate::LLVMIntSLT, remainder, b.const_i64(0));
    b.binary(LLVMOpcode::LLVMSub, quotient, b.zext_i64(below))
}

/// `i1 polyrust.rows_at_stride(i1 ok, ptr entries, i64 first, i64 last, ptr base,
/// i64 row_bytes)`: `ok`, and when it holds, whether `entries[k] == base + k * row_bytes`
/// for every `k` in `first..=last`. Made once per module.
fn check_function(b: &IrBuilder<'_>) -> (Value, LLVMTypeRef) {
    let (i1, i64, ptr) = (type_of(b.const_bool(true)), b.i64_type(), b.ptr_type());
    let (function, ty) = b.function_of(CHECK_FUNCTION, i1, &[i1, ptr, i64, i64, ptr, i64], false);
    if b.is_declaration(function) {
        // SAFETY: `function` is a live function of the module without a body yet.
        if let Some(f) = unsafe { FunctionValue::new(function) } {
            define_check(f, function);
            unsafe { c::LLVMSetLinkage(function, LLVMLinkage::LLVMInternalLinkage) };
            b.add_string_attribute(function, crate::llvm::link::KERNEL_ATTRIBUTE, "");
        }
    }
    (function, ty)
}

/// The body of `polyrust.rows_at_stride`.
fn define_check(function: FunctionValue<'_>, raw: Value) {
    let b = IrBuilder::new(function);
    // SAFETY: the function has the six parameters of its type.
    let [ok, entries, first, last, base, row_bytes] =
        std::array::from_fn(|i| unsafe { c::LLVMGetParam(raw, i as u32) });
    let (entry, rows, row, yes, no) = (
        b.new_block("entry"),
        b.new_block("rows"),
        b.new_block("row"),
        b.new_block("at.stride"),
        b.new_block("elsewhere"),
    );
    b.position_at_end(entry);
    b.cond_br(ok, rows, no);
    b.position_at_end(rows);
    let empty = b.icmp(LLVMIntPredicate::LLVMIntSGT, first, last);
    b.cond_br(empty, yes, row);
    b.position_at_end(row);
    let k = b.phi_i64("k");
    b.add_incoming(k, first, rows);
    let entry_address =
        b.wrapping_byte_address(entries, b.binary(LLVMOpcode::LLVMMul, k, b.const_i64(8)));
    let found = b.load(b.ptr_type(), entry_address, "row");
    let expected = b.wrapping_byte_address(base, b.binary(LLVMOpcode::LLVMMul, k, row_bytes));
    let same = b.icmp(LLVMIntPredicate::LLVMIntEQ, found, expected);
    let next = b.binary(LLVMOpcode::LLVMAdd, k, b.const_i64(1));
    b.add_incoming(k, next, row);
    let more = b.icmp(LLVMIntPredicate::LLVMIntSLE, next, last);
    let go_on = b.binary(LLVMOpcode::LLVMAnd, same, more);
    let after = b.new_block("next");
    b.cond_br(go_on, row, after);
    b.position_at_end(after);
    b.cond_br(same, yes, no);
    b.position_at_end(yes);
    b.ret(b.const_bool(true));
    b.position_at_end(no);
    b.ret(b.const_bool(false));
}
