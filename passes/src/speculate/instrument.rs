//! Run 1 of profile-guided speculation: in front of a candidate loop nest, a call
//! `polyrust_rt_enter(&descriptor, values, NULL)` that hands the runtime the values a
//! specialization would take as constants. The descriptor is a private constant
//! (`struct polyrust_rt_region` of the runtime's C ABI, version 1): the candidate's id,
//! function, file, line, the module's hash, the values' names, and the profile path of
//! the compile option. The nest itself is not changed; it is tagged `INSTRUMENTED`.
//! Input: a candidate whose nest has a preheader. Output: the call before the
//! preheader's terminator, the values stored to a stack array made in the entry block.

use crate::llvm::builder::{IrBuilder, Value};
use crate::llvm::source_terms::split_location;
use crate::llvm::FunctionAnalyses;

use super::{module_hash, value_name, Candidate, INSTRUMENTED};

/// Version of the descriptor layout, the runtime's `abi_version`.
const ABI_VERSION: i64 = 1;

/// The runtime's entry point.
const ENTER: &str = "polyrust_rt_enter";

/// Adds the call for `candidate`; `profile_path` is where the program writes its
/// profile unless `POLYRUST_PROFILE_FILE` says otherwise (empty: the runtime's default).
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
    let entry = fa
        .function()
        .get_first_basic_block()
        .and_then(|b| b.get_first_instruction())
        .ok_or("the function has no entry block")?;

    let b = IrBuilder::new(fa.function());
    let function = fa.function().get_name().to_string_lossy().into_owned();
    let file = fa
        .loop_location(root)
        .and_then(|loc| split_location(&loc).map(|(file, _, _)| file.to_string()))
        .unwrap_or_else(|| crate::llvm::ir::module_source_file(fa.function()));
    let names: Vec<Value> = candidate
        .values
        .iter()
        .map(|v| b.global_string(&value_name(fa, *v), "polyrust.value"))
        .collect();
    let names = b.private_constant(b.const_pointer_array(&names), "polyrust.values");
    let count = candidate.values.len() as i64;
    let default_path = if profile_path.is_empty() {
        b.null_ptr()
    } else {
        b.global_string(profile_path, "polyrust.profile")
    };
    let i32_type = b.i32_type();
    let descriptor = b.const_struct(&[
        b.const_int(i32_type, ABI_VERSION),
        b.const_int(i32_type, count),
        b.const_int(i32_type, 0),
        b.const_int(i32_type, i64::from(candidate.line)),
        b.global_string(&candidate.id, "polyrust.id"),
        b.global_string(&function, "polyrust.function"),
        b.global_string(&file, "polyrust.file"),
        b.global_string(&module_hash(fa), "polyrust.module"),
        names,
        b.null_ptr(),
        default_path,
    ]);
    let descriptor = b.private_constant(descriptor, "polyrust.region");

    let i64_type = b.i64_type();
    b.position_before(entry);
    let slots = b.alloca(
        b.array_type(i64_type, candidate.values.len() as u64),
        "polyrust.recorded",
    );
    b.position_before(terminator);
    for (index, value) in candidate.values.iter().enumerate() {
        let slot = b.element_address(i64_type, slots, index as u64);
        b.store(b.to_i64(*value), slot);
    }
    let (enter, ty) = b.void_function(ENTER, 3);
    b.call(enter, ty, &[descriptor, slots, b.null_ptr()]);
    root.tag(INSTRUMENTED);
    Ok(())
}
