//! Calls into `polyrust_rt`: `polyrust_rt_enter(&descriptor, values, ranges)` records
//! one entry of a loop nest. The descriptor is a private constant (`struct
//! polyrust_rt_region` of the runtime's C ABI, version 1): the region's id, function,
//! file, line, the module's hash, the names of the values and ranges, and the profile
//! path of the compile option. Two kinds of entries are recorded under
//! `-polyrust-profile-generate`:
//! - in front of a candidate loop nest (run 1), the values a specialization would take
//!   as constants, and in a companion record how many iterations its outermost loop
//!   runs; the nest itself is not changed, it is tagged `INSTRUMENTED`;
//! - in the check block of generated code (`Recording`), whether the check passed and
//!   the address range of each array it keeps apart: how often the fallback ran, and
//!   why, for the next compile and for people (`polyrust-prof show`).
//!
//! Values and ranges are stored to stack arrays made in the entry block.

use inkwell::values::InstructionValue;

use crate::llvm::builder::{IrBuilder, Value};
use crate::llvm::source_terms::split_location;
use crate::llvm::{FunctionAnalyses, Loop};

use polyrust_rt::profile::TRIP_COUNTS_SUFFIX;

use super::{module_hash, value_name, Candidate, INSTRUMENTED};

/// Version of the descriptor layout, the runtime's `abi_version`.
const ABI_VERSION: i64 = 1;

/// The runtime's entry point.
const ENTER: &str = "polyrust_rt_enter";

/// The region a check block records its entries under (see `super::recording`).
pub struct Recording {
    pub id: String,
    /// Source line of the nest, 0 if unknown.
    pub line: u32,
    pub file: String,
    /// Where the program writes its profile unless `POLYRUST_PROFILE_FILE` says
    /// otherwise (empty: the runtime's default).
    pub profile_path: String,
}

/// Adds the call for `candidate` in its preheader; `profile_path` as in `Recording`.
pub fn instrument<'f>(
    fa: &FunctionAnalyses<'f>,
    candidate: &Candidate<'f>,
    profile_path: &str,
) -> Result<(), String> {
    let root = candidate.root;
    let preheader = root
        .preheader()
        .ok_or("the loop nest has no single block in front of it to record its values in")?;
    let terminator = preheader
        .get_terminator()
        .ok_or("the block in front of the loop nest has no terminator")?;
    let b = IrBuilder::new(fa.function());
    let file = source_file(fa, Some(root));
    let names = candidate
        .values
        .iter()
        .map(|v| value_name(fa, *v))
        .collect();
    let descriptor = descriptor(
        fa,
        &b,
        &Recording {
            id: candidate.id.clone(),
            line: candidate.line,
            file: file.clone(),
            profile_path: profile_path.to_string(),
        },
        names,
        Vec::new(),
    );
    b.position_before(terminator);
    let values: Vec<Value> = candidate.values.iter().map(|v| b.to_i64(*v)).collect();
    record(fa, &b, terminator, descriptor, &values, &[])?;
    record_trip_count(fa, &b, candidate, &file, profile_path, terminator);
    root.tag(INSTRUMENTED);
    Ok(())
}

/// In the companion record of `candidate` (`TRIP_COUNTS_SUFFIX`), how many iterations
/// its outermost loop runs at this entry, when ScalarEvolution can say before the loop;
/// nothing otherwise.
fn record_trip_count<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    candidate: &Candidate<'f>,
    file: &str,
    profile_path: &str,
    before: InstructionValue<'f>,
) {
    let taken = fa.backedge_taken_count(candidate.root);
    if taken.is_could_not_compute() {
        return;
    }
    let Some(ty) = taken.raw_type() else {
        return;
    };
    let Some(taken) = fa.expand_with_counters(taken, &[], &[], ty, before) else {
        return;
    };
    b.position_before(before);
    let iterations = b.binary(
        inkwell::llvm_sys::LLVMOpcode::LLVMAdd,
        b.to_i64(taken),
        b.const_i64(1),
    );
    let descriptor = descriptor(
        fa,
        b,
        &Recording {
            id: format!("{}{TRIP_COUNTS_SUFFIX}", candidate.id),
            line: candidate.line,
            file: file.to_string(),
            profile_path: profile_path.to_string(),
        },
        vec!["iterations of the outermost loop".to_string()],
        Vec::new(),
    );
    // A failure here leaves the values recorded, which is all specialization needs.
    let _ = record(fa, b, before, descriptor, &[iterations], &[]);
}

/// The file a region's entries are reported under: its loop's, else the module's.
pub fn source_file(fa: &FunctionAnalyses<'_>, root: Option<Loop<'_>>) -> String {
    root.and_then(|l| fa.loop_location(l))
        .and_then(|loc| split_location(&loc).map(|(file, _, _)| file.to_string()))
        .unwrap_or_else(|| crate::llvm::ir::module_source_file(fa.function()))
}

/// The private descriptor of one recorded region.
pub fn descriptor(
    fa: &FunctionAnalyses<'_>,
    b: &IrBuilder<'_>,
    region: &Recording,
    value_names: Vec<String>,
    range_names: Vec<String>,
) -> Value {
    let names = |names: &[String], what: &str| {
        if names.is_empty() {
            return b.null_ptr();
        }
        let strings: Vec<Value> = names
            .iter()
            .map(|n| b.global_string(n, &format!("polyrust.{what}")))
            .collect();
        b.private_constant(
            b.const_pointer_array(&strings),
            &format!("polyrust.{what}s"),
        )
    };
    let function = fa.function().get_name().to_string_lossy().into_owned();
    let default_path = if region.profile_path.is_empty() {
        b.null_ptr()
    } else {
        b.global_string(&region.profile_path, "polyrust.profile")
    };
    let i32_type = b.i32_type();
    let descriptor = b.const_struct(&[
        b.const_int(i32_type, ABI_VERSION),
        b.const_int(i32_type, value_names.len() as i64),
        b.const_int(i32_type, range_names.len() as i64),
        b.const_int(i32_type, i64::from(region.line)),
        b.global_string(&region.id, "polyrust.id"),
        b.global_string(&function, "polyrust.function"),
        b.global_string(&region.file, "polyrust.file"),
        b.global_string(&module_hash(fa), "polyrust.module"),
        names(&value_names, "value"),
        names(&range_names, "range"),
        default_path,
    ]);
    b.private_constant(descriptor, "polyrust.region")
}

/// Before `here`: stores `values` (i64) and `ranges` (i64 addresses, low and high per
/// range) to stack arrays and calls the runtime with `descriptor`.
pub fn record<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    here: InstructionValue<'f>,
    descriptor: Value,
    values: &[Value],
    ranges: &[Value],
) -> Result<(), String> {
    let entry = fa
        .function()
        .get_first_basic_block()
        .and_then(|b| b.get_first_instruction())
        .ok_or("the function has no entry block")?;
    let i64_type = b.i64_type();
    let mut arrays = Vec::new();
    for (items, name) in [(values, "polyrust.recorded"), (ranges, "polyrust.ranges")] {
        if items.is_empty() {
            arrays.push(b.null_ptr());
            continue;
        }
        b.position_before(entry);
        let slots = b.alloca(b.array_type(i64_type, items.len() as u64), name);
        b.position_before(here);
        for (index, value) in items.iter().enumerate() {
            let slot = b.element_address(i64_type, slots, index as u64);
            b.store(*value, slot);
        }
        arrays.push(slots);
    }
    b.position_before(here);
    let (enter, ty) = b.void_function(ENTER, 3);
    b.call(enter, ty, &[descriptor, arrays[0], arrays[1]]);
    Ok(())
}
