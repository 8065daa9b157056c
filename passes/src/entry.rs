//! The boundary with the shim. Turns its raw pointers into safe values, validates the
//! options, and guarantees that no panic unwinds into LLVM: an internal error becomes a
//! warning and the function is reported as unchanged.

use std::any::Any;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use crate::driver;
use crate::llvm::abi::{
    PrFunctionRun, PrHostApi, PrOptionDeclaration, PrOptionKind, PrOptionValue, PrPrinter,
};
use crate::llvm::{FunctionAnalyses, FunctionRun, LLVMValueRef, Severity};
use crate::options::{
    GivenValue, OptionDeclaration, OptionKind, Options, RawOptions, DECLARATIONS,
};
use crate::report;
use crate::rounds;

/// Fills `out` with the declaration of option `index`; 0 past the last one.
///
/// # Safety
/// `out` is valid for writing (or null).
pub unsafe fn option_declaration(index: usize, out: *mut PrOptionDeclaration) -> i32 {
    let (Some(declaration), Some(out)) = (DECLARATIONS.get(index), out.as_mut()) else {
        return 0;
    };
    *out = for_the_shim(declaration);
    1
}

/// A declaration in the shim's terms; its strings are static.
fn for_the_shim(declaration: &OptionDeclaration) -> PrOptionDeclaration {
    let mut out = PrOptionDeclaration {
        name: declaration.name.as_ptr(),
        help: declaration.help.as_ptr(),
        value_name: c"".as_ptr(),
        kind: PrOptionKind::Flag,
        hidden: i32::from(declaration.hidden),
        value_optional: 0,
        default_integer: 0,
        default_number: 0.0,
        default_text: c"".as_ptr(),
        choices: std::ptr::null(),
        choice_count: 0,
    };
    match declaration.kind {
        OptionKind::Flag(on) => out.default_integer = u64::from(on),
        OptionKind::Uint64(n) => (out.kind, out.default_integer) = (PrOptionKind::Uint64, n),
        OptionKind::Uint(n) => (out.kind, out.default_integer) = (PrOptionKind::Uint, n.into()),
        OptionKind::Number(x) => (out.kind, out.default_number) = (PrOptionKind::Number, x),
        OptionKind::Text {
            value_name,
            default,
            value_optional,
        } => {
            out.kind = PrOptionKind::Text;
            out.value_name = value_name.as_ptr();
            out.default_text = default.as_ptr();
            out.value_optional = i32::from(value_optional);
        }
        OptionKind::UintList => out.kind = PrOptionKind::UintList,
        OptionKind::Choice { choices, default } => {
            out.kind = PrOptionKind::Choice;
            out.choices = choices.as_ptr();
            out.choice_count = choices.len();
            out.default_integer = default as u64;
        }
    }
    out
}

/// The options as the shim read them: one value per declaration.
///
/// # Safety
/// `values` points to `count` values whose strings and lists are valid for the call.
unsafe fn raw_options(values: *const PrOptionValue, count: usize) -> Option<RawOptions> {
    if values.is_null() || count != DECLARATIONS.len() {
        return None;
    }
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    let given: Vec<GivenValue> = std::slice::from_raw_parts(values, count)
        .iter()
        .map(|v| GivenValue {
            given: v.given != 0,
            integer: v.integer,
            number: v.number,
            text: text(v.text),
            list: if v.list.is_null() {
                Vec::new()
            } else {
                std::slice::from_raw_parts(v.list, v.list_len).to_vec()
            },
        })
        .collect();
    Some(RawOptions::from_values(&given))
}

/// Whether the pass joins LLVM's pipeline at this optimization level.
///
/// # Safety
/// As for `raw_options`.
pub unsafe fn joins_pipeline(
    values: *const PrOptionValue,
    count: usize,
    speedup_level: u32,
    size_level: u32,
) -> i32 {
    let enable = raw_options(values, count).is_some_and(|raw| raw.enable);
    i32::from(rounds::joins_pipeline(enable, speedup_level, size_level))
}

/// Runs the rounds of the optimizer on one function; returns 1 if its IR changed.
///
/// # Safety
/// The arguments come from the shim and are valid for the duration of the call.
pub unsafe fn optimize_function(
    api: *const PrHostApi,
    run: *mut PrFunctionRun,
    function: LLVMValueRef,
    values: *const PrOptionValue,
    count: usize,
) -> i32 {
    // The kernels polyrust links in are optimized already, and bit-exact as they are.
    if crate::llvm::link::is_kernel(function) {
        return 0;
    }
    let (Some(run), Some(raw)) = (
        FunctionRun::from_raw(api, run, function),
        raw_options(values, count),
    ) else {
        return 0;
    };
    // A loop polyrust moved into a function of its own to run on threads is its new
    // code already: it only gets the clean-up its caller got.
    if crate::llvm::link::is_outlined(function) {
        return i32::from(rounds::clean_up(&run));
    }
    // Validated in the first round, whose analyses report what is wrong.
    let mut options: Option<Options> = None;
    let mut session = driver::Session::default();
    let changed = rounds::optimize(&run, |analyses, round| {
        if round == 0 {
            options = validated_options(analyses, &raw);
        }
        let Some(options) = options.as_mut() else {
            return false;
        };
        options.round = round;
        analyses.set_debug_remarks(options.debug_remarks);
        match catch_unwind(AssertUnwindSafe(|| {
            driver::run(analyses, options, &mut session)
        })) {
            Ok(changed) => changed,
            Err(panic) => {
                report_internal_error(analyses, panic.as_ref());
                false
            }
        }
    });
    i32::from(changed)
}

/// Renders a printer pass's text for one function.
///
/// # Safety
/// As for `optimize_function`.
pub unsafe fn print_function(
    api: *const PrHostApi,
    run: *mut PrFunctionRun,
    function: LLVMValueRef,
    values: *const PrOptionValue,
    count: usize,
    printer: PrPrinter,
) -> *mut c_char {
    let (Some(run), Some(raw)) = (
        FunctionRun::from_raw(api, run, function),
        raw_options(values, count),
    ) else {
        return std::ptr::null_mut();
    };
    run.with_analyses(|analyses| print_with(analyses, &raw, printer))
        .unwrap_or(std::ptr::null_mut())
}

fn print_with(
    analyses: &FunctionAnalyses<'_>,
    raw: &RawOptions,
    printer: PrPrinter,
) -> *mut c_char {
    let Some(options) = validated_options(analyses, raw) else {
        return std::ptr::null_mut();
    };
    analyses.set_debug_remarks(options.debug_remarks);
    let outcome = catch_unwind(AssertUnwindSafe(|| match printer {
        PrPrinter::Loops => report::loops::print(analyses),
        PrPrinter::Detect
        | PrPrinter::Scops
        | PrPrinter::Ast
        | PrPrinter::Deps
        | PrPrinter::Roofline => report::regions::print(analyses, printer, &options),
    }));
    match outcome {
        Ok(text) => CString::new(text.replace('\0', " "))
            .map(CString::into_raw)
            .unwrap_or(std::ptr::null_mut()),
        Err(panic) => {
            report_internal_error(analyses, panic.as_ref());
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

fn validated_options(analyses: &FunctionAnalyses<'_>, raw: &RawOptions) -> Option<Options> {
    match Options::validate(raw) {
        Ok(options) => {
            // Said once per process, as errors are.
            static WARNED: Mutex<Option<RawOptions>> = Mutex::new(None);
            let warnings = options.warnings();
            if !warnings.is_empty() {
                let key = raw.clone();
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
            if reported.as_ref() != Some(raw) {
                analyses.diagnose(Severity::Error, &e.to_string());
                *reported = Some(raw.clone());
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
