//! Small queries on IR values that inkwell makes awkward: where an instruction lives,
//! who uses a value, the successors of a block, what a call calls. Everything here
//! only reads the IR.

// The handles passed in here all come from the function being processed, which LLVM keeps
// alive for the whole call from the shim: this module is the boundary that trusts them.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::CStr;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{AnyValue, AsValueRef, InstructionOpcode, InstructionValue};

/// The instruction behind a value, if it is one.
pub fn as_instruction<'f>(value: LLVMValueRef) -> Option<InstructionValue<'f>> {
    // SAFETY: LLVMIsAInstruction accepts any value and answers null if it is not one.
    unsafe {
        let inst = c::LLVMIsAInstruction(value);
        (!inst.is_null()).then(|| InstructionValue::new(inst))
    }
}

/// Instructions that use `value`.
pub fn users<'f>(value: &impl AsValueRef) -> Vec<InstructionValue<'f>> {
    let mut out = Vec::new();
    // SAFETY: walking the use list of a live value.
    unsafe {
        let mut u = c::LLVMGetFirstUse(value.as_value_ref());
        while !u.is_null() {
            if let Some(i) = as_instruction(c::LLVMGetUser(u)) {
                out.push(i);
            }
            u = c::LLVMGetNextUse(u);
        }
    }
    out
}

pub fn successors<'f>(block: BasicBlock<'f>) -> Vec<BasicBlock<'f>> {
    let Some(term) = block.get_terminator() else {
        return Vec::new();
    };
    // SAFETY: the terminator is a live instruction; indices stay below the count.
    unsafe {
        let n = c::LLVMGetNumSuccessors(term.as_value_ref());
        (0..n)
            .filter_map(|i| BasicBlock::new(c::LLVMGetSuccessor(term.as_value_ref(), i)))
            .collect()
    }
}

/// Operand `index` of an instruction as a raw value (blocks included).
pub fn operand(inst: InstructionValue<'_>, index: u32) -> Option<LLVMValueRef> {
    // SAFETY: bounds are checked against the operand count first.
    unsafe {
        let v = inst.as_value_ref();
        (index < c::LLVMGetNumOperands(v) as u32).then(|| c::LLVMGetOperand(v, index))
    }
}

/// Bit width of an integer-typed value; `None` for other types.
pub fn int_width(value: LLVMValueRef) -> Option<u32> {
    // SAFETY: type queries on a live value.
    unsafe {
        let ty = c::LLVMTypeOf(value);
        (c::LLVMGetTypeKind(ty) == inkwell::llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind)
            .then(|| c::LLVMGetIntTypeWidth(ty))
    }
}

/// Whether a value is a pointer.
pub fn is_pointer(value: LLVMValueRef) -> bool {
    // SAFETY: type queries on a live value.
    unsafe {
        c::LLVMGetTypeKind(c::LLVMTypeOf(value))
            == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind
    }
}

/// The type of a value, for size queries.
pub fn type_of(value: LLVMValueRef) -> inkwell::llvm_sys::prelude::LLVMTypeRef {
    // SAFETY: any value has a type.
    unsafe { c::LLVMTypeOf(value) }
}

pub fn is_constant_int(value: LLVMValueRef) -> Option<i64> {
    // SAFETY: LLVMIsAConstantInt answers null for other values.
    unsafe {
        let k = c::LLVMIsAConstantInt(value);
        (!k.is_null()).then(|| c::LLVMConstIntGetSExtValue(k))
    }
}

/// Name of the function a call calls directly; `None` for indirect calls and for
/// instructions that are not calls.
pub fn called_function_name(call: InstructionValue<'_>) -> Option<String> {
    // LLVMGetCalledValue reads the last operand of whatever it is given: of a phi or an
    // instruction without operands, memory that is not one (a crash when expression
    // propagation cloned a producer's phi).
    if !matches!(
        call.get_opcode(),
        InstructionOpcode::Call | InstructionOpcode::Invoke | InstructionOpcode::CallBr
    ) {
        return None;
    }
    // SAFETY: the callee of a call instruction is its last operand.
    unsafe {
        let callee = c::LLVMGetCalledValue(call.as_value_ref());
        if callee.is_null() || c::LLVMIsAFunction(callee).is_null() {
            return None;
        }
        let mut len = 0usize;
        let name = c::LLVMGetValueName2(callee, &mut len);
        Some(CStr::from_ptr(name).to_string_lossy().into_owned())
    }
}

/// Intrinsics that only carry information for other passes: they neither read nor
/// write program memory, and a transformed loop may drop or keep them freely.
pub fn is_annotation_intrinsic(call: InstructionValue<'_>) -> bool {
    called_function_name(call).is_some_and(|n| {
        n.starts_with("llvm.lifetime.")
            || n.starts_with("llvm.assume")
            || n.starts_with("llvm.experimental.noalias.scope.decl")
            || n.starts_with("llvm.dbg.")
            || n.starts_with("llvm.pseudoprobe")
    })
}

/// The address operand of a load or store.
pub fn pointer_operand(inst: InstructionValue<'_>) -> Option<LLVMValueRef> {
    match inst.get_opcode() {
        InstructionOpcode::Load => operand(inst, 0),
        InstructionOpcode::Store => operand(inst, 1),
        _ => None,
    }
}

/// The value loaded or stored (its type is the element type of the access).
pub fn accessed_value(inst: InstructionValue<'_>) -> Option<LLVMValueRef> {
    match inst.get_opcode() {
        InstructionOpcode::Load => Some(inst.as_value_ref()),
        InstructionOpcode::Store => operand(inst, 0),
        _ => None,
    }
}

/// The block an incoming value of a phi comes from.
pub fn phi_incoming<'f>(phi: InstructionValue<'f>) -> Vec<(LLVMValueRef, BasicBlock<'f>)> {
    // SAFETY: phi queries on a phi instruction.
    unsafe {
        let v = phi.as_value_ref();
        let n = c::LLVMCountIncoming(v);
        (0..n)
            .filter_map(|i| {
                let block = BasicBlock::new(c::LLVMGetIncomingBlock(v, i))?;
                Some((c::LLVMGetIncomingValue(v, i), block))
            })
            .collect()
    }
}

/// How LLVM prints the instruction (`%v = load double, ptr %p`), trimmed.
pub fn instruction_text(inst: InstructionValue<'_>) -> String {
    inst.print_to_string().to_string().trim().to_string()
}

/// A raw value handle as inkwell's value enum (for the analyses' `&impl AsValueRef`).
pub fn basic_value<'f>(value: LLVMValueRef) -> inkwell::values::BasicValueEnum<'f> {
    // SAFETY: handles given to this module come from the IR being processed.
    unsafe { inkwell::values::BasicValueEnum::new(value) }
}

/// A `llvm.memcpy`, `llvm.memmove` or `llvm.memset` call that is not volatile:
/// (destination, source if any, length in bytes).
pub fn memory_transfer(
    call: InstructionValue<'_>,
) -> Option<(LLVMValueRef, Option<LLVMValueRef>, LLVMValueRef)> {
    if call.get_opcode() != InstructionOpcode::Call {
        return None;
    }
    let name = called_function_name(call)?;
    let copies = name.starts_with("llvm.memcpy.") || name.starts_with("llvm.memmove.");
    let sets = name.starts_with("llvm.memset.");
    if !(copies || sets) || name.contains("inline") || name.contains("element.unordered") {
        return None;
    }
    // Operands: dst, src-or-value, length, isvolatile, callee.
    let volatile = operand(call, 3).and_then(is_constant_int)?;
    if volatile != 0 {
        return None;
    }
    let dst = operand(call, 0)?;
    let src = if copies {
        Some(operand(call, 1)?)
    } else {
        None
    };
    Some((dst, src, operand(call, 2)?))
}

/// The constant-size array shape a pointer was computed from, read off the GEP types on
/// the way from the pointer to its base: the array's dimension sizes (outermost first)
/// after the dimension the first index steps over, and the size in bytes of its
/// innermost element type. `double A[N][M]` as a global gives `[M]`; a row pointer
/// `double (*A)[M]` gives `[M]`.
pub fn gep_array_shape(
    fa: &crate::llvm::FunctionAnalyses<'_>,
    pointer: LLVMValueRef,
) -> Option<(Vec<u64>, u64)> {
    use inkwell::llvm_sys::LLVMTypeKind;
    let mut current = pointer;
    let mut found = None;
    // SAFETY: GEP and type queries on live values; the walk is bounded.
    unsafe {
        for _ in 0..16 {
            let is_gep = !c::LLVMIsAGetElementPtrInst(current).is_null()
                || (!c::LLVMIsAConstantExpr(current).is_null()
                    && c::LLVMGetConstOpcode(current)
                        == inkwell::llvm_sys::LLVMOpcode::LLVMGetElementPtr);
            if !is_gep {
                break;
            }
            let source = c::LLVMGetGEPSourceElementType(current);
            if c::LLVMGetTypeKind(source) == LLVMTypeKind::LLVMArrayTypeKind {
                found = Some((source, c::LLVMGetOperand(current, 0)));
            }
            current = c::LLVMGetOperand(current, 0);
        }
        let (array, base) = found?;
        let mut dims = Vec::new();
        let mut ty = array;
        while c::LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMArrayTypeKind {
            dims.push(c::LLVMGetArrayLength2(ty));
            ty = c::LLVMGetElementType(ty);
        }
        // A global of exactly this type is indexed [0][i][j]...: its outermost
        // dimension is the one the first index steps over.
        let whole_object =
            !c::LLVMIsAGlobalVariable(base).is_null() && c::LLVMGlobalGetValueType(base) == array;
        if whole_object {
            dims.remove(0);
        }
        let element = crate::llvm::ir::sized_type_bytes(fa, ty)?;
        (!dims.is_empty() && dims.iter().all(|d| *d > 0)).then_some((dims, element))
    }
}

/// The size in bytes of the global variable `value` is, when it is one with a sized,
/// non-empty type (`double rhs[5][37][37][37]`, defined here or declared with its
/// type); `None` for anything else.
pub fn global_object_bytes(
    fa: &crate::llvm::FunctionAnalyses<'_>,
    value: LLVMValueRef,
) -> Option<u64> {
    // SAFETY: type queries on a live value.
    let ty = unsafe {
        if c::LLVMIsAGlobalVariable(value).is_null() {
            return None;
        }
        c::LLVMGlobalGetValueType(value)
    };
    sized_type_bytes(fa, ty).filter(|bytes| *bytes > 0)
}

fn sized_type_bytes(
    fa: &crate::llvm::FunctionAnalyses<'_>,
    ty: inkwell::llvm_sys::prelude::LLVMTypeRef,
) -> Option<u64> {
    fa.type_store_size_raw(ty)
}

/// The target triple of the module a function belongs to ("" if unset).
pub fn module_triple(function: inkwell::values::FunctionValue<'_>) -> String {
    // SAFETY: a live function belongs to a live module; the triple is owned by it.
    unsafe {
        let module = c::LLVMGetGlobalParent(function.as_value_ref());
        if module.is_null() {
            return String::new();
        }
        let triple = c::LLVMGetTarget(module);
        if triple.is_null() {
            return String::new();
        }
        CStr::from_ptr(triple).to_string_lossy().into_owned()
    }
}

/// The source file name of the module a function belongs to ("" if unset).
pub fn module_source_file(function: inkwell::values::FunctionValue<'_>) -> String {
    // SAFETY: as for `module_triple`; the name is copied before returning.
    unsafe {
        let module = c::LLVMGetGlobalParent(function.as_value_ref());
        if module.is_null() {
            return String::new();
        }
        let mut len = 0usize;
        let name = c::LLVMGetSourceFileName(module, &mut len);
        if name.is_null() {
            return String::new();
        }
        let bytes = std::slice::from_raw_parts(name.cast::<u8>(), len);
        String::from_utf8_lossy(bytes).into_owned()
    }
}

/// Blocks of `block`'s function that branch to it.
pub fn predecessors<'f>(block: BasicBlock<'f>) -> Vec<BasicBlock<'f>> {
    let Some(function) = block.get_parent() else {
        return Vec::new();
    };
    function
        .get_basic_blocks()
        .into_iter()
        .filter(|b| successors(*b).contains(&block))
        .collect()
}

/// Marks an instruction with the flag `!name`, which later rounds of the pass find
/// (value names do not survive clang; metadata does).
pub fn mark(inst: LLVMValueRef, name: &str) {
    super::metadata::mark(inst, name)
}

/// Whether `mark(inst, name)` was called on `inst`.
pub fn is_marked(inst: LLVMValueRef, name: &str) -> bool {
    super::metadata::is_marked(inst, name)
}
