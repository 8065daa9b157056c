//! Linking polyrust's own kernels (LLVM bitcode built with the plugin, see `passes/build.rs`)
//! into the module of a function that calls them: parsed in the module's context, given
//! the module's triple and data layout and the calling function's target attributes
//! (with features added when the call is guarded by a test of the CPU), linked once per
//! module with internal linkage, and marked so that polyrust leaves the kernel's own
//! loops alone. A kernel whose features exceed its caller's is never inlined into it
//! (LLVM's inliner refuses callees with features the caller lacks).
//!
//! On x86-64 ELF targets a kernel is not linked as IR but put in the module's inline
//! assembly, compiled once when the plugin was built (`passes/build.rs` makes it local to
//! the object), and declared with the type its bitcode gives: the module then only
//! assembles it, where optimizing and compiling the IR again cost a small file most of
//! its compile time. Both forms come from the same IR, built for AVX2 and FMA with
//! contraction off, so they compute the same bits.

use std::ffi::CString;

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMAttributeFunctionIndex, LLVMLinkage};
use inkwell::values::{AsValueRef, FunctionValue};

/// The function attribute that marks a kernel polyrust linked in: the pass does not
/// optimize such a function (`entry`).
pub const KERNEL_ATTRIBUTE: &str = "polyrust-kernel";

/// The function attribute of the functions `codegen::outline` makes (a loop run on
/// OpenMP threads, its microtask and its dispatcher): the pass leaves them alone but
/// for its clean-up pipeline.
pub const OUTLINED_ATTRIBUTE: &str = "polyrust-outlined";

/// The target attributes a kernel takes from the function that calls it.
const TARGET_ATTRIBUTES: [&str; 3] = ["target-cpu", "target-features", "tune-cpu"];

/// The string attribute `name` of a function, if it has one.
pub fn string_attribute(function: LLVMValueRef, name: &str) -> Option<String> {
    // SAFETY: reading an attribute of a live function; the text is copied.
    unsafe {
        let attribute = c::LLVMGetStringAttributeAtIndex(
            function,
            LLVMAttributeFunctionIndex,
            name.as_ptr().cast(),
            name.len() as u32,
        );
        if attribute.is_null() {
            return None;
        }
        let mut len = 0u32;
        let text = c::LLVMGetStringAttributeValue(attribute, &mut len);
        if text.is_null() {
            return Some(String::new());
        }
        let bytes = std::slice::from_raw_parts(text.cast::<u8>(), len as usize);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The function's `target-features` attribute (`+avx2,+fma,...`).
pub fn target_features(function: FunctionValue<'_>) -> Option<String> {
    string_attribute(function.as_value_ref(), "target-features")
}

/// Whether a function is a kernel polyrust linked in.
pub fn is_kernel(function: LLVMValueRef) -> bool {
    string_attribute(function, KERNEL_ATTRIBUTE).is_some()
}

/// Whether a function is one polyrust outlined to run on OpenMP threads, or one of its
/// wrappers (`codegen::outline`).
pub fn is_outlined(function: LLVMValueRef) -> bool {
    string_attribute(function, OUTLINED_ATTRIBUTE).is_some()
}

/// Whether the module of `function` was compiled with `-fopenmp`: clang then sets the
/// module flag `openmp` (to the OpenMP version).
pub fn compiled_with_openmp(function: FunctionValue<'_>) -> bool {
    const FLAG: &str = "openmp";
    // SAFETY: reading a module flag of the live module.
    unsafe {
        let module = c::LLVMGetGlobalParent(function.as_value_ref());
        !c::LLVMGetModuleFlag(module, FLAG.as_ptr().cast(), FLAG.len()).is_null()
    }
}

/// One kernel as the plugin carries it (both built from the same source and flags).
#[derive(Clone, Copy)]
pub struct KernelBuild {
    /// Its LLVM bitcode.
    pub bitcode: &'static [u8],
    /// Its x86-64 ELF assembly, local to the object it is assembled into.
    pub assembly: &'static str,
}

/// The kernel `symbol` of `build`, in the module of `caller`, with its function type:
/// assembled or linked in now unless an earlier call did (linked IR must have been made
/// for the same target attributes). `added_features` (`+avx2,+fma`), if any, are
/// appended to the caller's `target-features` of linked IR.
pub fn kernel(
    caller: FunctionValue<'_>,
    build: KernelBuild,
    symbol: &str,
    added_features: Option<&str>,
) -> Result<(LLVMValueRef, LLVMTypeRef), String> {
    let caller = caller.as_value_ref();
    let attributes = kernel_target_attributes(caller, added_features);
    let name = CString::new(symbol).map_err(|_| "a kernel name with NUL".to_string())?;
    // SAFETY: the module and context are the caller's, alive for the whole pass; the
    // parsed module is handed to the linker, which destroys it.
    unsafe {
        let module = c::LLVMGetGlobalParent(caller);
        if takes_assembly(module) {
            return assembled(module, build, &name, symbol);
        }
        let bitcode = build.bitcode;
        let existing = c::LLVMGetNamedFunction(module, name.as_ptr());
        if !existing.is_null() {
            return reuse(existing, &attributes, symbol);
        }
        let parsed = parse(module, bitcode)?;
        for function in defined_functions(parsed) {
            take_target_attributes(function, &attributes);
        }
        c::LLVMSetTarget(parsed, c::LLVMGetTarget(module));
        c::LLVMSetDataLayout(parsed, c::LLVMGetDataLayoutStr(module));
        if inkwell::llvm_sys::linker::LLVMLinkModules2(module, parsed) != 0 {
            return Err(format!("linking the kernel {symbol} failed"));
        }
        let function = c::LLVMGetNamedFunction(module, name.as_ptr());
        if function.is_null() || c::LLVMIsDeclaration(function) != 0 {
            return Err(format!("the kernel {symbol} is missing after linking"));
        }
        c::LLVMSetLinkage(function, LLVMLinkage::LLVMInternalLinkage);
        Ok((function, c::LLVMGlobalGetValueType(function)))
    }
}

/// Whether `module` is for x86-64 ELF with 64-bit pointers, where the kernel's
/// assembly fits.
///
/// # Safety
/// `module` is a live module.
unsafe fn takes_assembly(module: LLVMModuleRef) -> bool {
    let triple = c::LLVMGetTarget(module);
    if triple.is_null() {
        return false;
    }
    let triple = std::ffi::CStr::from_ptr(triple).to_string_lossy();
    triple.starts_with("x86_64-") && triple.contains("-linux") && !triple.ends_with("x32")
}

/// The kernel `symbol` declared in `module` (hidden: the definition is the module's
/// own) with the type its bitcode gives, and its assembly appended to the module's
/// inline assembly, unless an earlier call did both.
///
/// # Safety
/// `module` is a live module.
unsafe fn assembled(
    module: LLVMModuleRef,
    build: KernelBuild,
    name: &CString,
    symbol: &str,
) -> Result<(LLVMValueRef, LLVMTypeRef), String> {
    let label = format!("\n{symbol}:");
    let existing = c::LLVMGetNamedFunction(module, name.as_ptr());
    if !existing.is_null() {
        let mut len = 0usize;
        let text = c::LLVMGetModuleInlineAsm(module, &mut len);
        let own = !text.is_null()
            && c::LLVMIsDeclaration(existing) != 0
            && String::from_utf8_lossy(std::slice::from_raw_parts(text.cast::<u8>(), len))
                .contains(&label);
        if !own {
            return Err(format!("the module has its own {symbol}"));
        }
        return Ok((existing, c::LLVMGlobalGetValueType(existing)));
    }
    if !build.assembly.contains(&label) {
        return Err(format!("the kernel's assembly does not define {symbol}"));
    }
    let parsed = parse(module, build.bitcode)?;
    let defined = c::LLVMGetNamedFunction(parsed, name.as_ptr());
    // The type belongs to the context, which outlives the parsed module.
    let ty = (!defined.is_null()).then(|| c::LLVMGlobalGetValueType(defined));
    c::LLVMDisposeModule(parsed);
    let ty = ty.ok_or_else(|| format!("the kernel's bitcode does not define {symbol}"))?;
    let declared = c::LLVMAddFunction(module, name.as_ptr(), ty);
    c::LLVMSetVisibility(
        declared,
        inkwell::llvm_sys::LLVMVisibility::LLVMHiddenVisibility,
    );
    c::LLVMAppendModuleInlineAsm(module, build.assembly.as_ptr().cast(), build.assembly.len());
    Ok((declared, ty))
}

/// The value of each of `TARGET_ATTRIBUTES` a kernel called from `caller` takes:
/// the caller's, with `added_features` after its `target-features` (later entries win).
fn kernel_target_attributes(
    caller: LLVMValueRef,
    added_features: Option<&str>,
) -> [Option<String>; 3] {
    TARGET_ATTRIBUTES.map(|name| {
        let own = string_attribute(caller, name);
        match (name, own, added_features) {
            ("target-features", Some(own), Some(added)) if !own.is_empty() => {
                Some(format!("{own},{added}"))
            }
            ("target-features", _, Some(added)) => Some(added.to_string()),
            (_, own, _) => own,
        }
    })
}

/// A kernel an earlier call linked in, if its target attributes are `attributes`.
fn reuse(
    existing: LLVMValueRef,
    attributes: &[Option<String>; 3],
    symbol: &str,
) -> Result<(LLVMValueRef, LLVMTypeRef), String> {
    let same = TARGET_ATTRIBUTES
        .iter()
        .zip(attributes)
        .all(|(a, wanted)| string_attribute(existing, a) == *wanted);
    // SAFETY: reading the kind and type of a live function.
    unsafe {
        if !is_kernel(existing) || c::LLVMIsDeclaration(existing) != 0 {
            return Err(format!("the module has its own {symbol}"));
        }
        if !same {
            return Err(format!("{symbol} was linked in for another target"));
        }
        Ok((existing, c::LLVMGlobalGetValueType(existing)))
    }
}

/// The kernel's bitcode, parsed in the context of `module`.
///
/// # Safety
/// `module` is a live module.
unsafe fn parse(module: LLVMModuleRef, bitcode: &[u8]) -> Result<LLVMModuleRef, String> {
    let context = c::LLVMGetModuleContext(module);
    let buffer = c::LLVMCreateMemoryBufferWithMemoryRangeCopy(
        bitcode.as_ptr().cast(),
        bitcode.len(),
        c"polyrust-kernel".as_ptr(),
    );
    let mut parsed = std::ptr::null_mut();
    // The reader leaves the buffer to its owner, and reads it whole.
    let failed =
        inkwell::llvm_sys::bit_reader::LLVMParseBitcodeInContext2(context, buffer, &mut parsed);
    c::LLVMDisposeMemoryBuffer(buffer);
    if failed != 0 || parsed.is_null() {
        return Err("the kernel's bitcode does not read".into());
    }
    Ok(parsed)
}

/// The functions `module` defines.
///
/// # Safety
/// `module` is a live module.
unsafe fn defined_functions(module: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut function = c::LLVMGetFirstFunction(module);
    while !function.is_null() {
        if c::LLVMIsDeclaration(function) == 0 {
            out.push(function);
        }
        function = c::LLVMGetNextFunction(function);
    }
    out
}

/// Gives `function` the target attributes `attributes` (removing those without a
/// value) and the kernel mark.
///
/// # Safety
/// `function` is a live function.
unsafe fn take_target_attributes(function: LLVMValueRef, attributes: &[Option<String>; 3]) {
    let context = c::LLVMGetTypeContext(c::LLVMTypeOf(function));
    let set = |name: &str, value: &str| {
        let attribute = c::LLVMCreateStringAttribute(
            context,
            name.as_ptr().cast(),
            name.len() as u32,
            value.as_ptr().cast(),
            value.len() as u32,
        );
        c::LLVMAddAttributeAtIndex(function, LLVMAttributeFunctionIndex, attribute);
    };
    for (name, value) in TARGET_ATTRIBUTES.iter().zip(attributes) {
        c::LLVMRemoveStringAttributeAtIndex(
            function,
            LLVMAttributeFunctionIndex,
            name.as_ptr().cast(),
            name.len() as u32,
        );
        if let Some(value) = value {
            set(name, value);
        }
    }
    set(KERNEL_ATTRIBUTE, "");
}
