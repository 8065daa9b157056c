//! The boundary with the shim. Turns its raw pointers into safe values, validates the
//! options, and guarantees that no panic unwinds into LLVM: an internal error becomes a
//! warning and the function is reported as unchanged.

use std::any::Any;
use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use crate::driver;
use crate::llvm::abi::{PrFunctionCtx, PrHostApi, PrOptions, PrPrinter};
use crate::llvm::{FunctionAnalyses, LLVMValueRef, Severity};
use crate::options::{Options, RawOptions};
use crate::report;

/// Optimizes one function; returns 1 if its IR changed.
///
/// # Safety
/// The arguments come from the shim and are valid for the duration of the call.
pub unsafe fn run_function(
    api: *const PrHostApi,
    ctx: *mut PrFunctionCtx,
    function: LLVMValueRef,
    options: *const PrOptions,
) -> i32 {
    let Some(analyses) = FunctionAnalyses::from_raw(api, ctx, function) else {
        return 0;
    };
    let Some(options) = validated_options(&analyses, options) else {
        return 0;
    };
    analyses.set_debug_remarks(options.debug_remarks);
    let outcome = catch_unwind(AssertUnwindSafe(|| driver::run(&analyses, &options)));
    match outcome {
        Ok(changed) => i32::from(changed),
        Err(panic) => {
            report_internal_error(&analyses, panic.as_ref());
            0
        }
    }
}

/// Renders a printer pass's text for one function.
///
/// # Safety
/// As for `run_function`.
pub unsafe fn print_function(
    api: *const PrHostApi,
    ctx: *mut PrFunctionCtx,
    function: LLVMValueRef,
    options: *const PrOptions,
    printer: PrPrinter,
) -> *mut c_char {
    let Some(analyses) = FunctionAnalyses::from_raw(api, ctx, function) else {
        return std::ptr::null_mut();
    };
    let Some(options) = validated_options(&analyses, options) else {
        return std::ptr::null_mut();
    };
    analyses.set_debug_remarks(options.debug_remarks);
    let outcome = catch_unwind(AssertUnwindSafe(|| match printer {
        PrPrinter::Loops => report::loops::print(&analyses),
        PrPrinter::Detect | PrPrinter::Scops | PrPrinter::Ast | PrPrinter::Deps => {
            report::regions::print(&analyses, printer, &options)
        }
    }));
    match outcome {
        Ok(text) => CString::new(text.replace('\0', " "))
            .map(CString::into_raw)
            .unwrap_or(std::ptr::null_mut()),
        Err(panic) => {
            report_internal_error(&analyses, panic.as_ref());
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// `text` comes from `print_function` and is freed once.
pub unsafe fn free_string(text: *mut c_char) {
    if !text.is_null() {
        drop(CString::from_raw(text));
    }
}

unsafe fn validated_options(
    analyses: &FunctionAnalyses<'_>,
    raw: *const PrOptions,
) -> Option<Options> {
    let raw = RawOptions::from_abi(raw.as_ref()?);
    match Options::validate(&raw) {
        Ok(options) => {
            // Said once per process, as errors are (each round of the pass on a
            // function sees the same command line under another round number).
            static WARNED: Mutex<Option<RawOptions>> = Mutex::new(None);
            let warnings = options.warnings();
            if !warnings.is_empty() {
                let key = RawOptions { round: 0, ..raw };
                let mut warned = WARNED.lock().unwrap_or_else(|poison| poison.into_inner());
                if warned.as_ref() != Some(&key) {
                    for warning in &warnings {
                        analyses.diagnose(Severity::Warning, warning);
                    }
                    *warned = Some(key);
                }
            }
            Some(options)
        }
        Err(e) => {
            // Said once per process, not once per function: the command line is the same
            // for every function of the module.
            static REPORTED: Mutex<Option<RawOptions>> = Mutex::new(None);
            let mut reported = REPORTED.lock().unwrap_or_else(|poison| poison.into_inner());
            if reported.as_ref() != Some(&raw) {
                analyses.diagnose(Severity::Error, &e.to_string());
                *reported = Some(raw);
            }
            None
        }
    }
}

fn report_internal_error(analyses: &FunctionAnalyses<'_>, panic: &(dyn Any + Send)) {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    analyses.diagnose(
        Severity::Warning,
        &format!(
            "internal error while optimizing '{name}' ({what}); the function is left as it was. Please report this with the input IR."
        ),
    );
}
