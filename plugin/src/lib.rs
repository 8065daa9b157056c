//! libpolyrust.so: the LLVM pass plugin. LLVM finds `llvmGetPassPluginInfo` here, the
//! C++ shim (`shim/`) registers the passes and the options declared in `passes`, and
//! calls back into the entry points below, which hand each function to the optimizer.
//! Nothing here decides anything: this crate only crosses the language boundary.

use std::ffi::{c_char, c_void};

use passes::llvm::abi::{PrFunctionRun, PrHostApi, PrOptionDeclaration, PrOptionValue, PrPrinter};
use passes::llvm::LLVMValueRef;

extern "C" {
    /// In `shim/shim.cpp`; takes an `llvm::PassBuilder *`.
    fn polyrust_register_pass_builder_callbacks(builder: *mut c_void);
}

/// `llvm::PassPluginLibraryInfo` of `llvm/Plugins/PassPlugin.h` (plugin API version 2).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    pre_codegen_callback: Option<unsafe extern "C" fn()>,
}

const LLVM_PLUGIN_API_VERSION: u32 = 2;

/// Called by `opt -load-pass-plugin` and `clang -fpass-plugin` when they load the library.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: LLVM_PLUGIN_API_VERSION,
        plugin_name: c"polyrust".as_ptr(),
        plugin_version: concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast(),
        register_pass_builder_callbacks: Some(polyrust_register_pass_builder_callbacks),
        pre_codegen_callback: None,
    }
}

/// The profile format version this plugin reads (`-polyrust-profile-use`); equal to the
/// one `polyrust_rt_profile_format_version()` of the runtime reports, which a test checks.
#[no_mangle]
pub extern "C" fn polyrust_profile_format_version() -> u32 {
    polyrust_rt::PROFILE_FORMAT_VERSION
}

/// The declaration of option `index` (0 past the last one), for the shim to make the
/// option when the plugin is loaded.
///
/// # Safety
/// `out` must be valid for writing.
#[no_mangle]
pub unsafe extern "C" fn polyrust_option_declaration(
    index: usize,
    out: *mut PrOptionDeclaration,
) -> i32 {
    passes::entry::option_declaration(index, out)
}

/// Whether the pass joins LLVM's pipeline at this optimization level.
///
/// # Safety
/// `values` must hold `count` option values valid for the call.
#[no_mangle]
pub unsafe extern "C" fn polyrust_joins_pipeline(
    values: *const PrOptionValue,
    count: usize,
    speedup_level: u32,
    size_level: u32,
) -> i32 {
    passes::entry::joins_pipeline(values, count, speedup_level, size_level)
}

/// Runs the rounds of the optimizer on one function; returns 1 if the IR changed.
///
/// # Safety
/// Called by the shim with a valid host table, run, function and option values for the
/// duration of the call.
#[no_mangle]
pub unsafe extern "C" fn polyrust_optimize_function(
    api: *const PrHostApi,
    run: *mut PrFunctionRun,
    function: LLVMValueRef,
    values: *const PrOptionValue,
    count: usize,
) -> i32 {
    passes::entry::optimize_function(api, run, function, values, count)
}

/// The printer pass a pipeline element names (`print<polyrust-loops>`), -1 if none.
///
/// # Safety
/// `name` must point to `length` readable bytes (or be null).
#[no_mangle]
pub unsafe extern "C" fn polyrust_printer_named(name: *const c_char, length: usize) -> i32 {
    if name.is_null() {
        return -1;
    }
    let name = std::slice::from_raw_parts(name.cast::<u8>(), length);
    PrPrinter::named(name).map_or(-1, |printer| printer as i32)
}

/// Renders one of the printer passes for one function; the shim frees the text with
/// `polyrust_free_string`.
///
/// # Safety
/// As for `polyrust_optimize_function`.
#[no_mangle]
pub unsafe extern "C" fn polyrust_print_function(
    api: *const PrHostApi,
    run: *mut PrFunctionRun,
    function: LLVMValueRef,
    values: *const PrOptionValue,
    count: usize,
    printer: PrPrinter,
) -> *mut c_char {
    passes::entry::print_function(api, run, function, values, count, printer)
}

/// # Safety
/// `text` must come from `polyrust_print_function` and be freed once.
#[no_mangle]
pub unsafe extern "C" fn polyrust_free_string(text: *mut c_char) {
    passes::entry::free_string(text)
}
