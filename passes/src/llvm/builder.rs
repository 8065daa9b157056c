//! A thin IR builder for code generation over LLVM's C API: i64 arithmetic, branches,
//! phis, allocas, loads and stores, cloning instructions with remapped operands, and
//! the constant globals and calls of instrumentation.
//! Values are plain `LLVMValueRef` handles of the function being generated into; the
//! builder is disposed of when dropped.

// Handles given to the builder come from the function being generated into, which
// LLVM keeps alive for the whole call from the shim.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::CString;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMBuilderRef, LLVMContextRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::{AsValueRef, FunctionValue, InstructionValue};

pub type Value = LLVMValueRef;

use inkwell::llvm_sys::LLVMAttributeFunctionIndex as FUNCTION_INDEX;

pub struct IrBuilder<'f> {
    builder: LLVMBuilderRef,
    context: LLVMContextRef,
    function: FunctionValue<'f>,
}

fn name(text: &str) -> CString {
    CString::new(text.replace('\0', "_")).unwrap_or_default()
}

impl<'f> IrBuilder<'f> {
    pub fn new(function: FunctionValue<'f>) -> Self {
        // SAFETY: the function is live; the builder is disposed of in Drop.
        unsafe {
            let context = c::LLVMGetTypeContext(c::LLVMTypeOf(function.as_value_ref()));
            IrBuilder {
                builder: c::LLVMCreateBuilderInContext(context),
                context,
                function,
            }
        }
    }

    pub fn i64_type(&self) -> LLVMTypeRef {
        unsafe { c::LLVMInt64TypeInContext(self.context) }
    }

    pub fn const_i64(&self, value: i64) -> Value {
        unsafe { c::LLVMConstInt(self.i64_type(), value as u64, 1) }
    }

    /// `value` as a `double` constant.
    pub fn const_f64(&self, value: f64) -> Value {
        unsafe { c::LLVMConstReal(c::LLVMDoubleTypeInContext(self.context), value) }
    }

    /// `value` as a float constant (exact for the values polyrust makes: 1.0).
    pub fn const_f32(&self, value: f64) -> Value {
        unsafe { c::LLVMConstReal(c::LLVMFloatTypeInContext(self.context), value) }
    }

    /// `value` as a constant of the integer type `ty` (truncated to its width).
    pub fn const_int(&self, ty: LLVMTypeRef, value: i64) -> Value {
        unsafe { c::LLVMConstInt(ty, value as u64, 1) }
    }

    /// A new block at the end of the function.
    pub fn new_block(&self, label: &str) -> BasicBlock<'f> {
        let label = name(label);
        // SAFETY: appending to a live function; the result is a live block.
        unsafe {
            let raw = c::LLVMAppendBasicBlockInContext(
                self.context,
                self.function.as_value_ref(),
                label.as_ptr(),
            );
            BasicBlock::new(raw).expect("LLVM returns the block it appended")
        }
    }

    /// Gives the function a new, empty entry block that branches to the old one, with
    /// the old entry's leading allocas moved into it (they stay static allocas): the
    /// old entry gets a predecessor, so code can be put in front of what starts there.
    pub fn split_function_entry(&self) -> Option<BasicBlock<'f>> {
        let old = self.function.get_first_basic_block()?;
        let label = name("polyrust.entry");
        // SAFETY: inserting into a live function; the allocas moved belong to it.
        unsafe {
            let raw =
                c::LLVMInsertBasicBlockInContext(self.context, old.as_mut_ptr(), label.as_ptr());
            let new = BasicBlock::new(raw)?;
            self.position_at_end(new);
            let branch = self.br(old);
            let mut next = old.get_first_instruction();
            while let Some(inst) = next {
                next = inst.get_next_instruction();
                if inst.get_opcode() != inkwell::values::InstructionOpcode::Alloca {
                    break;
                }
                c::LLVMInstructionRemoveFromParent(inst.as_value_ref());
                c::LLVMPositionBuilderBefore(self.builder, branch);
                c::LLVMInsertIntoBuilder(self.builder, inst.as_value_ref());
            }
            Some(new)
        }
    }

    /// Moves the instructions of `block` before its terminator into a new block in front
    /// of it (the function's new entry block if `block` was the entry), so that `block`
    /// holds its branch alone and a region may start there while what came before the
    /// branch (an allocation, a call) stays outside. `None` when `block` has phis (their
    /// users could not move ahead of them) or no terminator.
    pub fn split_off_prefix(&self, block: BasicBlock<'f>) -> Option<BasicBlock<'f>> {
        let terminator = block.get_terminator()?;
        let first = block.get_first_instruction()?;
        if first.get_opcode() == inkwell::values::InstructionOpcode::Phi || first == terminator {
            return None;
        }
        let is_entry = self.function.get_first_basic_block() == Some(block);
        let new = if is_entry {
            let label = name("polyrust.prefix");
            // SAFETY: inserting a block into the live function, in front of its entry.
            let raw = unsafe {
                c::LLVMInsertBasicBlockInContext(self.context, block.as_mut_ptr(), label.as_ptr())
            };
            // SAFETY: the handle was just created in this function.
            let new = unsafe { BasicBlock::new(raw) }?;
            self.position_at_end(new);
            self.br(block);
            new
        } else {
            let preds = super::ir::predecessors(block);
            self.route_edges_through(block, &preds, "polyrust.prefix")?
        };
        let branch = new.get_terminator()?;
        let mut next = Some(first);
        while let Some(inst) = next {
            next = inst.get_next_instruction();
            if inst == terminator {
                break;
            }
            // SAFETY: the instruction moves within its function, ahead of every block it
            // dominated (the new block runs right before `block`).
            unsafe {
                c::LLVMInstructionRemoveFromParent(inst.as_value_ref());
                c::LLVMPositionBuilderBefore(self.builder, branch.as_value_ref());
                c::LLVMInsertIntoBuilder(self.builder, inst.as_value_ref());
            }
        }
        Some(new)
    }

    /// A new block that the edges from `from` into `to` go through instead, so that
    /// `to` has one predecessor among them: each phi of `to` takes the values it had
    /// from those edges through a phi of the new block.
    pub fn route_edges_through(
        &self,
        to: BasicBlock<'f>,
        from: &[BasicBlock<'f>],
        label: &str,
    ) -> Option<BasicBlock<'f>> {
        let label = name(label);
        // SAFETY: every handle belongs to the live function; a phi is erased only after
        // its replacement took over all its uses.
        unsafe {
            let raw =
                c::LLVMInsertBasicBlockInContext(self.context, to.as_mut_ptr(), label.as_ptr());
            let new = BasicBlock::new(raw)?;
            for phi in phis_of(to) {
                let incoming = super::ir::phi_incoming(phi);
                if !incoming.iter().any(|(_, b)| from.contains(b)) {
                    continue;
                }
                let old = phi.as_value_ref();
                let ty = c::LLVMTypeOf(old);
                self.position_at_end(new);
                let routed = self.phi(ty, "polyrust.routed");
                self.position_before(phi);
                let rebuilt = self.phi(ty, "");
                for (value, block) in incoming {
                    if from.contains(&block) {
                        self.add_incoming(routed, value, block);
                    } else {
                        self.add_incoming(rebuilt, value, block);
                    }
                }
                self.add_incoming(rebuilt, routed, new);
                let mut length = 0usize;
                let text = c::LLVMGetValueName2(old, &mut length);
                let kept = if text.is_null() {
                    Vec::new()
                } else {
                    std::slice::from_raw_parts(text.cast::<u8>(), length).to_vec()
                };
                c::LLVMReplaceAllUsesWith(old, rebuilt);
                c::LLVMInstructionEraseFromParent(old);
                c::LLVMSetValueName2(rebuilt, kept.as_ptr().cast(), kept.len());
            }
            self.position_at_end(new);
            self.br(to);
            for block in from {
                let Some(term) = block.get_terminator() else {
                    continue;
                };
                for (k, succ) in super::ir::successors(*block).into_iter().enumerate() {
                    if succ == to {
                        self.set_successor(term.as_value_ref(), k as u32, new);
                    }
                }
            }
            Some(new)
        }
    }

    pub fn position_at_end(&self, block: BasicBlock<'f>) {
        unsafe { c::LLVMPositionBuilderAtEnd(self.builder, block.as_mut_ptr()) }
    }

    pub fn position_before(&self, inst: InstructionValue<'f>) {
        unsafe { c::LLVMPositionBuilderBefore(self.builder, inst.as_value_ref()) }
    }

    /// The block the builder inserts into.
    pub fn current_block(&self) -> Option<BasicBlock<'f>> {
        unsafe { BasicBlock::new(c::LLVMGetInsertBlock(self.builder)) }
    }

    pub fn binary(&self, op: LLVMOpcode, a: Value, b: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildBinOp(self.builder, op, a, b, n.as_ptr()) }
    }

    pub fn neg(&self, a: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildNeg(self.builder, a, n.as_ptr()) }
    }

    pub fn icmp(&self, predicate: LLVMIntPredicate, a: Value, b: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildICmp(self.builder, predicate, a, b, n.as_ptr()) }
    }

    pub fn select(&self, cond: Value, then: Value, otherwise: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildSelect(self.builder, cond, then, otherwise, n.as_ptr()) }
    }

    pub fn phi_i64(&self, label: &str) -> Value {
        self.phi(self.i64_type(), label)
    }

    pub fn phi(&self, ty: LLVMTypeRef, label: &str) -> Value {
        let n = name(label);
        unsafe { c::LLVMBuildPhi(self.builder, ty, n.as_ptr()) }
    }

    pub fn add_incoming(&self, phi: Value, value: Value, block: BasicBlock<'f>) {
        let mut values = [value];
        let mut blocks = [block.as_mut_ptr()];
        unsafe { c::LLVMAddIncoming(phi, values.as_mut_ptr(), blocks.as_mut_ptr(), 1) }
    }

    pub fn br(&self, target: BasicBlock<'f>) -> Value {
        unsafe { c::LLVMBuildBr(self.builder, target.as_mut_ptr()) }
    }

    pub fn cond_br(&self, cond: Value, then: BasicBlock<'f>, otherwise: BasicBlock<'f>) -> Value {
        unsafe {
            c::LLVMBuildCondBr(
                self.builder,
                cond,
                then.as_mut_ptr(),
                otherwise.as_mut_ptr(),
            )
        }
    }

    pub fn unreachable(&self) -> Value {
        unsafe { c::LLVMBuildUnreachable(self.builder) }
    }

    pub fn alloca(&self, ty: LLVMTypeRef, label: &str) -> Value {
        let n = name(label);
        unsafe { c::LLVMBuildAlloca(self.builder, ty, n.as_ptr()) }
    }

    pub fn load(&self, ty: LLVMTypeRef, pointer: Value, label: &str) -> Value {
        let n = name(label);
        unsafe { c::LLVMBuildLoad2(self.builder, ty, pointer, n.as_ptr()) }
    }

    /// Gives `to` the type-based alias information and the debug location of `from`
    /// (a load that stands for `from`).
    pub fn copy_load_metadata(&self, from: InstructionValue<'f>, to: Value) {
        // SAFETY: both are live instructions of the function; metadata of its context.
        unsafe {
            let kind = c::LLVMGetMDKindIDInContext(self.context, c"tbaa".as_ptr(), 4);
            let tbaa = c::LLVMGetMetadata(from.as_value_ref(), kind);
            if !tbaa.is_null() {
                c::LLVMSetMetadata(to, kind, tbaa);
            }
            let location =
                inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(from.as_value_ref());
            if !location.is_null() {
                inkwell::llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(to, location);
            }
        }
    }

    pub fn store(&self, value: Value, pointer: Value) -> Value {
        unsafe { c::LLVMBuildStore(self.builder, value, pointer) }
    }

    pub fn ptr_to_int(&self, pointer: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildPtrToInt(self.builder, pointer, self.i64_type(), n.as_ptr()) }
    }

    /// Zero-extends an integer to i64 (an i64 is returned as it is): for counts, which
    /// are unsigned.
    pub fn zext_i64(&self, value: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildZExtOrBitCast(self.builder, value, self.i64_type(), n.as_ptr()) }
    }

    /// Truncates or zero-extends an integer to `ty`.
    pub fn int_cast_unsigned(&self, value: Value, ty: LLVMTypeRef) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildIntCast2(self.builder, value, ty, 0, n.as_ptr()) }
    }

    /// Sign-extends or truncates an integer to i64.
    pub fn to_i64(&self, value: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildIntCast2(self.builder, value, self.i64_type(), 1, n.as_ptr()) }
    }

    /// A signed integer as a `double` (exact below 2^53).
    pub fn signed_to_f64(&self, value: Value) -> Value {
        let n = name("");
        unsafe {
            let ty = c::LLVMDoubleTypeInContext(self.context);
            c::LLVMBuildSIToFP(self.builder, value, ty, n.as_ptr())
        }
    }

    /// A `double` truncated toward zero to an i64.
    pub fn f64_to_i64(&self, value: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildFPToSI(self.builder, value, self.i64_type(), n.as_ptr()) }
    }

    /// The square root of a `double` (`llvm.sqrt.f64`, correctly rounded).
    pub fn sqrt_f64(&self, value: Value) -> Value {
        // SAFETY: the type is the context's; the intrinsic is declared if missing.
        let double = unsafe { c::LLVMDoubleTypeInContext(self.context) };
        let (sqrt, ty) = self.function_of("llvm.sqrt.f64", double, &[double], false);
        self.call(sqrt, ty, &[value])
    }

    /// A copy of `inst` at the insertion point, with each operand passed through `map`.
    pub fn clone_with(
        &self,
        inst: InstructionValue<'f>,
        mut map: impl FnMut(Value) -> Value,
    ) -> Value {
        // SAFETY: cloning a live instruction; the clone is inserted before its operands
        // are set, so it always belongs to the function.
        unsafe {
            let original = inst.as_value_ref();
            // Operands first: mapping may emit code, which must come before the clone.
            let operands: Vec<(u32, Value, Value)> = (0..c::LLVMGetNumOperands(original).max(0)
                as u32)
                .map(|i| {
                    let operand = c::LLVMGetOperand(original, i);
                    (i, operand, map(operand))
                })
                .collect();
            let clone = c::LLVMInstructionClone(original);
            let label = name("");
            c::LLVMInsertIntoBuilderWithName(self.builder, clone, label.as_ptr());
            for (i, operand, mapped) in operands {
                if mapped != operand {
                    c::LLVMSetOperand(clone, i, mapped);
                }
            }
            clone
        }
    }

    /// Removes an instruction the builder made (a placeholder).
    /// `freeze i64 poison`: a value nothing is known about, as a placeholder.
    pub fn opaque_i64(&self, label: &str) -> Value {
        let n = name(label);
        unsafe { c::LLVMBuildFreeze(self.builder, c::LLVMGetPoison(self.i64_type()), n.as_ptr()) }
    }

    /// `freeze value`: the same value as an instruction of its own (a flag's carrier).
    pub fn freeze(&self, value: Value) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildFreeze(self.builder, value, n.as_ptr()) }
    }

    /// `freeze i1 poison`: a condition nothing is known about, as a placeholder.
    pub fn opaque_bool(&self) -> Value {
        let n = name("");
        unsafe {
            let ty = c::LLVMInt1TypeInContext(self.context);
            c::LLVMBuildFreeze(self.builder, c::LLVMGetPoison(ty), n.as_ptr())
        }
    }

    /// The `i1` constant `value`.
    pub fn const_bool(&self, value: bool) -> Value {
        unsafe { c::LLVMConstInt(c::LLVMInt1TypeInContext(self.context), u64::from(value), 0) }
    }

    /// Replaces operand `index` of `inst` (for a phi: its incoming value `index`).
    pub fn set_operand(&self, inst: Value, index: u32, value: Value) {
        unsafe { c::LLVMSetOperand(inst, index, value) }
    }

    pub fn erase(&self, inst: Value) {
        unsafe { c::LLVMInstructionEraseFromParent(inst) }
    }

    /// Points successor `index` of `terminator` at `target`.
    pub fn set_successor(&self, terminator: Value, index: u32, target: BasicBlock<'f>) {
        unsafe { c::LLVMSetSuccessor(terminator, index, target.as_mut_ptr()) }
    }

    pub fn i32_type(&self) -> LLVMTypeRef {
        unsafe { c::LLVMInt32TypeInContext(self.context) }
    }

    pub fn ptr_type(&self) -> LLVMTypeRef {
        unsafe { c::LLVMPointerTypeInContext(self.context, 0) }
    }

    pub fn null_ptr(&self) -> Value {
        unsafe { c::LLVMConstPointerNull(self.ptr_type()) }
    }

    fn module(&self) -> inkwell::llvm_sys::prelude::LLVMModuleRef {
        unsafe { c::LLVMGetGlobalParent(self.function.as_value_ref()) }
    }

    /// A private constant global of the module holding `initializer`.
    pub fn private_constant(&self, initializer: Value, label: &str) -> Value {
        let n = name(label);
        // SAFETY: the module owns the new global; the initializer is a constant of it.
        unsafe {
            let global = c::LLVMAddGlobal(self.module(), c::LLVMTypeOf(initializer), n.as_ptr());
            c::LLVMSetInitializer(global, initializer);
            c::LLVMSetGlobalConstant(global, 1);
            c::LLVMSetLinkage(global, inkwell::llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
            c::LLVMSetUnnamedAddress(
                global,
                inkwell::llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr,
            );
            global
        }
    }

    /// A private NUL-terminated string constant; its address.
    pub fn global_string(&self, text: &str, label: &str) -> Value {
        let bytes = text.replace('\0', "_");
        // SAFETY: the bytes are copied into the constant.
        let data = unsafe {
            c::LLVMConstStringInContext2(self.context, bytes.as_ptr().cast(), bytes.len(), 0)
        };
        self.private_constant(data, label)
    }

    /// A constant array of pointers (`[n x ptr]`).
    pub fn const_pointer_array(&self, elements: &[Value]) -> Value {
        let mut elements = elements.to_vec();
        unsafe {
            c::LLVMConstArray2(
                self.ptr_type(),
                elements.as_mut_ptr(),
                elements.len() as u64,
            )
        }
    }

    /// A constant of a literal (unpacked) struct type made of `fields`.
    pub fn const_struct(&self, fields: &[Value]) -> Value {
        let mut fields = fields.to_vec();
        unsafe {
            c::LLVMConstStructInContext(self.context, fields.as_mut_ptr(), fields.len() as u32, 0)
        }
    }

    /// The module's declaration of the external `void name(ptr, ...)` taking
    /// `params` pointers, added if missing; with its type.
    pub fn void_function(&self, symbol: &str, params: usize) -> (Value, LLVMTypeRef) {
        let n = name(symbol);
        // SAFETY: looking up or declaring a function in the live module.
        unsafe {
            let mut types = vec![self.ptr_type(); params];
            let ty = c::LLVMFunctionType(
                c::LLVMVoidTypeInContext(self.context),
                types.as_mut_ptr(),
                params as u32,
                0,
            );
            let existing = c::LLVMGetNamedFunction(self.module(), n.as_ptr());
            let function = if existing.is_null() {
                c::LLVMAddFunction(self.module(), n.as_ptr(), ty)
            } else {
                existing
            };
            (function, ty)
        }
    }

    /// The module's declaration of the external `void name(params...)`, added if
    /// missing; with its type (calls use this type even if the module declared the
    /// symbol otherwise).
    pub fn void_function_of(&self, symbol: &str, params: &[LLVMTypeRef]) -> (Value, LLVMTypeRef) {
        let n = name(symbol);
        // SAFETY: looking up or declaring a function in the live module.
        unsafe {
            let mut types = params.to_vec();
            let ty = c::LLVMFunctionType(
                c::LLVMVoidTypeInContext(self.context),
                types.as_mut_ptr(),
                types.len() as u32,
                0,
            );
            let existing = c::LLVMGetNamedFunction(self.module(), n.as_ptr());
            let function = if existing.is_null() {
                c::LLVMAddFunction(self.module(), n.as_ptr(), ty)
            } else {
                existing
            };
            (function, ty)
        }
    }

    /// Adds the enum attribute `attribute` (an LLVM name such as `nounwind` or
    /// `memory`) with the integer payload `value` to a function.
    pub fn add_function_attribute(&self, function: Value, attribute: &str, value: u64) {
        // SAFETY: attribute kinds are looked up by name; an unknown name gives 0, which
        // is skipped.
        unsafe {
            let kind =
                c::LLVMGetEnumAttributeKindForName(attribute.as_ptr().cast(), attribute.len());
            if kind == 0 {
                return;
            }
            let attribute = c::LLVMCreateEnumAttribute(self.context, kind, value);
            c::LLVMAddAttributeAtIndex(function, FUNCTION_INDEX, attribute);
        }
    }

    /// Adds the enum attribute `attribute` to parameter `index` (from 0) of `function`.
    pub fn add_parameter_attribute(&self, function: Value, index: u32, attribute: &str) {
        // SAFETY: as `add_function_attribute`; parameter k is attribute index k + 1.
        unsafe {
            let kind =
                c::LLVMGetEnumAttributeKindForName(attribute.as_ptr().cast(), attribute.len());
            if kind == 0 {
                return;
            }
            let attribute = c::LLVMCreateEnumAttribute(self.context, kind, 0);
            c::LLVMAddAttributeAtIndex(function, index + 1, attribute);
        }
    }

    /// Whether a function is only declared in the module (its body is elsewhere).
    pub fn is_declaration(&self, function: Value) -> bool {
        unsafe { c::LLVMIsDeclaration(function) != 0 }
    }

    /// Removes the enum attribute `attribute` from a function, if it has it.
    pub fn remove_function_attribute(&self, function: Value, attribute: &str) {
        // SAFETY: as for `add_function_attribute`.
        unsafe {
            let kind =
                c::LLVMGetEnumAttributeKindForName(attribute.as_ptr().cast(), attribute.len());
            if kind != 0 {
                c::LLVMRemoveEnumAttributeAtIndex(function, FUNCTION_INDEX, kind);
            }
        }
    }

    /// Removes the enum attribute `attribute` from every parameter of a function.
    pub fn remove_parameter_attribute(&self, function: Value, attribute: &str) {
        // SAFETY: as for `add_function_attribute`; parameter indices start at 1.
        unsafe {
            let kind =
                c::LLVMGetEnumAttributeKindForName(attribute.as_ptr().cast(), attribute.len());
            if kind == 0 {
                return;
            }
            for index in 0..c::LLVMCountParams(function) {
                c::LLVMRemoveEnumAttributeAtIndex(function, index + 1, kind);
            }
        }
    }

    /// A constant array of constants of type `ty` (`[n x ty]`).
    pub fn const_array(&self, ty: LLVMTypeRef, elements: &[Value]) -> Value {
        let mut elements = elements.to_vec();
        unsafe { c::LLVMConstArray2(ty, elements.as_mut_ptr(), elements.len() as u64) }
    }

    /// The type of a value.
    pub fn type_of(&self, value: Value) -> LLVMTypeRef {
        unsafe { c::LLVMTypeOf(value) }
    }

    /// `malloc(bytes)` at the insertion point (declared if the module does not yet).
    pub fn malloc(&self, bytes: Value, label: &str) -> Value {
        let n = name("malloc");
        // SAFETY: looking up or declaring a function in the live module, then calling it.
        unsafe {
            let mut params = [self.i64_type()];
            let ty = c::LLVMFunctionType(self.ptr_type(), params.as_mut_ptr(), 1, 0);
            let existing = c::LLVMGetNamedFunction(self.module(), n.as_ptr());
            let function = if existing.is_null() {
                c::LLVMAddFunction(self.module(), n.as_ptr(), ty)
            } else {
                existing
            };
            let mut args = [bytes];
            let label = name(label);
            c::LLVMBuildCall2(
                self.builder,
                ty,
                function,
                args.as_mut_ptr(),
                1,
                label.as_ptr(),
            )
        }
    }

    /// `free(pointer)` at the insertion point.
    pub fn free(&self, pointer: Value) {
        let (function, ty) = self.void_function("free", 1);
        self.call(function, ty, &[pointer]);
    }

    /// `base + offset` bytes (an in-bounds `getelementptr i8`).
    pub fn byte_address(&self, base: Value, offset: Value) -> Value {
        let mut indices = [offset];
        let n = name("");
        unsafe {
            c::LLVMBuildInBoundsGEP2(
                self.builder,
                c::LLVMInt8TypeInContext(self.context),
                base,
                indices.as_mut_ptr(),
                1,
                n.as_ptr(),
            )
        }
    }

    /// `base + offset` bytes as a plain `getelementptr i8`: the address may lie outside
    /// the object `base` points into (it is compared, or loaded only when checked).
    pub fn wrapping_byte_address(&self, base: Value, offset: Value) -> Value {
        let mut indices = [offset];
        let n = name("");
        unsafe {
            c::LLVMBuildGEP2(
                self.builder,
                c::LLVMInt8TypeInContext(self.context),
                base,
                indices.as_mut_ptr(),
                1,
                n.as_ptr(),
            )
        }
    }

    /// A call at the insertion point.
    pub fn call(&self, function: Value, ty: LLVMTypeRef, args: &[Value]) -> Value {
        let mut args = args.to_vec();
        let n = name("");
        unsafe {
            c::LLVMBuildCall2(
                self.builder,
                ty,
                function,
                args.as_mut_ptr(),
                args.len() as u32,
                n.as_ptr(),
            )
        }
    }

    /// Gives `call` a debug location, line 0 in the function's scope, if it has none and
    /// the function has debug information: a call without one to a function defined
    /// with debug information in the module fails the verifier.
    pub fn locate_call(&self, call: Value) {
        use inkwell::llvm_sys::debuginfo as di;
        // SAFETY: metadata queries and a location made in the function's own context.
        unsafe {
            if !di::LLVMInstructionGetDebugLoc(call).is_null() {
                return;
            }
            let scope = di::LLVMGetSubprogram(self.function.as_value_ref());
            if scope.is_null() {
                return;
            }
            let location = di::LLVMDIBuilderCreateDebugLocation(
                self.context,
                0,
                0,
                scope,
                std::ptr::null_mut(),
            );
            di::LLVMInstructionSetDebugLoc(call, location);
        }
    }

    /// The address of element `index` of the array `[_ x ty]` at `base`.
    pub fn element_address(&self, ty: LLVMTypeRef, base: Value, index: u64) -> Value {
        let mut indices = [self.const_i64(index as i64)];
        let n = name("");
        unsafe {
            c::LLVMBuildInBoundsGEP2(self.builder, ty, base, indices.as_mut_ptr(), 1, n.as_ptr())
        }
    }

    /// Stack space for `count` values of `ty` (`count` an i64 known at run time).
    pub fn array_alloca(&self, ty: LLVMTypeRef, count: Value, label: &str) -> Value {
        let n = name(label);
        unsafe { c::LLVMBuildArrayAlloca(self.builder, ty, count, n.as_ptr()) }
    }

    /// The address of element `index` (an i64 value) of the values of `ty` at `base`.
    pub fn element_at(&self, ty: LLVMTypeRef, base: Value, index: Value) -> Value {
        let mut indices = [index];
        let n = name("");
        unsafe {
            c::LLVMBuildInBoundsGEP2(self.builder, ty, base, indices.as_mut_ptr(), 1, n.as_ptr())
        }
    }

    /// `[count x ty]`.
    pub fn array_type(&self, ty: LLVMTypeRef, count: u64) -> LLVMTypeRef {
        unsafe { c::LLVMArrayType2(ty, count) }
    }

    /// The module's function `symbol` of type `ret (params...)` (`...` too when
    /// `variadic`), declared if missing; with its type (calls use this type even if the
    /// module declared the symbol otherwise).
    pub fn function_of(
        &self,
        symbol: &str,
        ret: LLVMTypeRef,
        params: &[LLVMTypeRef],
        variadic: bool,
    ) -> (Value, LLVMTypeRef) {
        let n = name(symbol);
        // SAFETY: looking up or declaring a function in the live module.
        unsafe {
            let mut types = params.to_vec();
            let ty = c::LLVMFunctionType(
                ret,
                types.as_mut_ptr(),
                types.len() as u32,
                i32::from(variadic),
            );
            let existing = c::LLVMGetNamedFunction(self.module(), n.as_ptr());
            let function = if existing.is_null() {
                c::LLVMAddFunction(self.module(), n.as_ptr(), ty)
            } else {
                existing
            };
            (function, ty)
        }
    }

    /// A new function of the module with internal linkage, `label` its name (LLVM makes
    /// it unique).
    pub fn internal_function(&self, label: &str, ty: LLVMTypeRef) -> Value {
        let n = name(label);
        // SAFETY: adding a function to the live module.
        unsafe {
            let function = c::LLVMAddFunction(self.module(), n.as_ptr(), ty);
            c::LLVMSetLinkage(
                function,
                inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage,
            );
            function
        }
    }

    /// `ret value` at the insertion point.
    pub fn ret(&self, value: Value) -> Value {
        unsafe { c::LLVMBuildRet(self.builder, value) }
    }

    /// `ret void` at the insertion point.
    pub fn ret_void(&self) -> Value {
        unsafe { c::LLVMBuildRetVoid(self.builder) }
    }

    /// The function being generated into.
    pub fn function_ref(&self) -> Value {
        self.function.as_value_ref()
    }

    /// The module's global `symbol`, if it has one.
    pub fn named_global(&self, symbol: &str) -> Option<Value> {
        let n = name(symbol);
        let global = unsafe { c::LLVMGetNamedGlobal(self.module(), n.as_ptr()) };
        (!global.is_null()).then_some(global)
    }

    /// The module's global `symbol`, declared (external, of type `ty`) if missing.
    pub fn external_global(&self, symbol: &str, ty: LLVMTypeRef) -> Value {
        if let Some(global) = self.named_global(symbol) {
            return global;
        }
        let n = name(symbol);
        // SAFETY: declaring a global in the live module.
        unsafe { c::LLVMAddGlobal(self.module(), ty, n.as_ptr()) }
    }

    /// `value & mask == mask` for an integer `value` of `ty`.
    pub fn has_bits(&self, ty: LLVMTypeRef, value: Value, mask: i64) -> Value {
        let mask = self.const_int(ty, mask);
        let masked = self.binary(LLVMOpcode::LLVMAnd, value, mask);
        self.icmp(LLVMIntPredicate::LLVMIntEQ, masked, mask)
    }

    /// `void`.
    pub fn void_type(&self) -> LLVMTypeRef {
        unsafe { c::LLVMVoidTypeInContext(self.context) }
    }

    /// A literal struct type of `fields`.
    pub fn struct_type(&self, fields: &[LLVMTypeRef]) -> LLVMTypeRef {
        let mut fields = fields.to_vec();
        unsafe {
            c::LLVMStructTypeInContext(self.context, fields.as_mut_ptr(), fields.len() as u32, 0)
        }
    }

    /// The address of field `index` of the struct of type `ty` at `base`.
    pub fn field_address(&self, ty: LLVMTypeRef, base: Value, index: u32) -> Value {
        let n = name("");
        unsafe { c::LLVMBuildStructGEP2(self.builder, ty, base, index, n.as_ptr()) }
    }

    /// Adds the string attribute `attribute`=`value` to a function.
    pub fn add_string_attribute(&self, function: Value, attribute: &str, value: &str) {
        // SAFETY: the attribute is made in the function's context and copied by LLVM.
        unsafe {
            let attribute = c::LLVMCreateStringAttribute(
                self.context,
                attribute.as_ptr().cast(),
                attribute.len() as u32,
                value.as_ptr().cast(),
                value.len() as u32,
            );
            c::LLVMAddAttributeAtIndex(function, FUNCTION_INDEX, attribute);
        }
    }
}

impl Drop for IrBuilder<'_> {
    fn drop(&mut self) {
        unsafe { c::LLVMDisposeBuilder(self.builder) }
    }
}

/// The phis at the start of a block.
pub fn phis_of<'f>(block: BasicBlock<'f>) -> Vec<InstructionValue<'f>> {
    block
        .get_instructions()
        .take_while(|i| i.get_opcode() == inkwell::values::InstructionOpcode::Phi)
        .collect()
}

/// Cuts blocks code generation made and gave up on out of the CFG: their edges go, and
/// with them their entries in the phis of blocks that stay (`remove_incoming(phi, from)`
/// removes every entry of `phi` from `from`); they end in `unreachable`, and their own
/// phis are removed. Later passes delete the blocks; deleting them here could leave uses
/// of their values behind.
pub fn abandon_blocks<'f>(
    function: FunctionValue<'f>,
    blocks: &[BasicBlock<'f>],
    remove_incoming: impl Fn(InstructionValue<'f>, BasicBlock<'f>),
) {
    let mut abandoned: Vec<BasicBlock<'f>> = Vec::with_capacity(blocks.len());
    for block in blocks {
        if !abandoned.contains(block) {
            abandoned.push(*block);
        }
    }
    let b = IrBuilder::new(function);
    for block in &abandoned {
        if let Some(terminator) = block.get_terminator() {
            // A phi may have no value from the block yet (generation stopped before
            // giving it one, as for an LCSSA phi of the exit): each is asked, not assumed
            // to have one.
            let mut kept: Vec<BasicBlock<'f>> = Vec::new();
            for successor in super::ir::successors(*block) {
                if !abandoned.contains(&successor) && !kept.contains(&successor) {
                    kept.push(successor);
                    for phi in phis_of(successor) {
                        remove_incoming(phi, *block);
                    }
                }
            }
            b.erase(terminator.as_value_ref());
        }
        b.position_at_end(*block);
        b.unreachable();
    }
    for block in blocks {
        for phi in phis_of(*block) {
            // SAFETY: the phi is live; poison replaces its uses before it goes.
            unsafe {
                let poison = c::LLVMGetPoison(c::LLVMTypeOf(phi.as_value_ref()));
                c::LLVMReplaceAllUsesWith(phi.as_value_ref(), poison);
            }
            b.erase(phi.as_value_ref());
        }
    }
}
