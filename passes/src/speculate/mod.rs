//! Two-run profile-guided speculation. A loop nest detection rejects only because some
//! region-invariant values (run-time strides, a 32-bit `size` in `i * size`, `n * n`
//! bounds) multiply loop counters or each other is a *candidate*: were those values
//! constants, it would be a region. With `-polyrust-profile-generate` each candidate
//! gets a call into `polyrust_rt` at its entry that records the values, and the check
//! block of each optimized region records whether it passed and where its arrays lay
//! (`instrument`); with `-polyrust-profile-use` a candidate whose profile shows a few
//! tuples of values in most entries gets one version per tuple, a region with those
//! values as constants, which the whole optimizer then handles as any other behind a
//! run-time check that compares the values (a chain of checks; the original loops run
//! for any other values), and a region whose recorded check almost never passed is left
//! alone (`specialize`). Both options together count how often the checks of the
//! specialized build pass.
//!
//! Relies on detection (`analyse_speculating`, the offending values it notes) and on
//! the profile format of `polyrust_rt::profile`. Identifiers of candidates and checks
//! are stable across the two compiles: the function's name, the nest's position among
//! its loops as the pass first saw the function, and a hash of the nest's shape and of
//! what the recorded values are (never pointer values, nor debug information).

mod accesses;
mod bounds;
mod instrument;
mod specialize;

pub use accesses::instrument_accesses;
pub use bounds::speculate_bounds;
pub use instrument::{descriptor, instrument, record, Recording};
pub use specialize::{failing_check, specialize, ProfileSource};

use std::collections::HashMap;

use inkwell::values::AsValueRef;

use crate::detect::reject::RejectReason;
use crate::detect::{analyse_speculating, DetectedRegion, Detection, HANDLED};
use crate::llvm::ir::as_instruction;
use crate::llvm::source_terms::{describe_value, split_location};
use crate::llvm::{FunctionAnalyses, LLVMValueRef, Loop};

/// The loop tag of nests given a call into the runtime, so later rounds of the pass
/// leave them alone.
pub const INSTRUMENTED: &str = "polyrust.instrumented";

/// Most values one candidate records: each is a dimension of the tuples the runtime
/// counts, and a nest with more unknown strides than this is rarely worth it.
const MAX_VALUES: usize = 8;

/// Fewest loops a candidate has: a single loop keeps its order whatever its values.
const MIN_LOOPS: usize = 2;

/// Whether `l` or a loop around it was instrumented (in an earlier round).
fn within_instrumented(l: Loop<'_>) -> bool {
    let mut current = Some(l);
    while let Some(l) = current {
        if l.has_tag(INSTRUMENTED) {
            return true;
        }
        current = l.parent();
    }
    false
}

/// What speculation keeps across the rounds of the pass on one function: where its
/// loops were, the specialized versions made, the nests speculated on their loaded
/// bounds. Owned by the driver's `Session`, so it starts empty with each function.
#[derive(Default)]
pub struct State {
    positions: Positions,
    versions: specialize::Versions,
    bounds: bounds::LoadedBounds,
}

impl State {
    /// Takes note of the loops of the function as the pass first sees it (round 0), for
    /// the ids of candidates in every round.
    pub fn start_function(&mut self, fa: &FunctionAnalyses<'_>) {
        self.positions = Positions(
            fa.top_level_loops()
                .iter()
                .flat_map(|l| l.preorder())
                .enumerate()
                .map(|(i, l)| (l.header().as_mut_ptr() as usize, i))
                .collect(),
        );
    }

    /// Takes note that `region` was generated: if it is a specialized version, the next
    /// round specializes its fallback for the next hot values.
    pub fn generated(&mut self, region: &DetectedRegion<'_>) {
        self.versions.generated(region);
    }
}

/// The position of each loop of the function being compiled among all its loops
/// (preorder), by header block, as the function was when the pass first saw it. Later
/// rounds see generated loops too, and each compile rewrites other nests (run 1
/// instruments a nest run 2 rewrites): positions from the first round are what both
/// compiles agree on.
#[derive(Default)]
struct Positions(HashMap<usize, usize>);

impl Positions {
    /// The position of `root`: as the pass first saw the function, else (a loop made
    /// since) among the loops as they are now.
    fn of(&self, fa: &FunctionAnalyses<'_>, root: Loop<'_>) -> usize {
        let header = root.header().as_mut_ptr() as usize;
        self.0
            .get(&header)
            .copied()
            .or_else(|| {
                fa.top_level_loops()
                    .iter()
                    .flat_map(|l| l.preorder())
                    .position(|l| l == root)
            })
            .unwrap_or(0)
    }
}

pub use polyrust_rt::profile::CHECK_PASSED;

/// What the check block of `region` records under `-polyrust-profile-generate`: the
/// region's id (its first loop's position, a hash of its shape and of the values and
/// constants it speculates on, marked as a check so it never meets a candidate's id).
pub fn recording(
    fa: &FunctionAnalyses<'_>,
    state: &State,
    region: &DetectedRegion<'_>,
    profile_path: &str,
) -> Option<Recording> {
    let root = *region.top.first()?;
    let values: Vec<LLVMValueRef> = region.ir.speculated.iter().map(|(v, _)| *v).collect();
    let mut marks = String::from("check;");
    for (_, constant) in &region.ir.speculated {
        marks.push_str(&format!("{constant};"));
    }
    for l in &region.top[1..] {
        marks.push_str(&format!("{};", l.preorder().len()));
    }
    let (id, line) = identify_marked(fa, &state.positions, root, &values, &marks);
    Some(Recording {
        id,
        line,
        file: instrument::source_file(fa, Some(root)),
        profile_path: profile_path.to_string(),
    })
}

/// What stands in for each value when checking that constants would make a nest a
/// region: neither 0 nor 1, which could make terms vanish.
const PLACEHOLDER: i64 = 3;

/// A loop nest that constants for `values` would make a region.
pub struct Candidate<'f> {
    pub root: Loop<'f>,
    /// The region-invariant integer values, in the order they are recorded.
    pub values: Vec<LLVMValueRef>,
    /// Stable across compiles of the same source, with or without debug information
    /// (see `identify`).
    pub id: String,
    /// Source line of the nest, 0 without debug information.
    pub line: u32,
}

/// The candidates among the nests detection rejected, outermost first; a nest inside a
/// candidate (or inside a nest instrumented already) is not one itself, nor is a single
/// loop.
pub fn candidates<'f>(
    fa: &FunctionAnalyses<'f>,
    state: &State,
    detection: &Detection<'f>,
) -> Vec<Candidate<'f>> {
    let mut found: Vec<Candidate<'f>> = Vec::new();
    for nest in &detection.rejected {
        let settleable = nest.reasons.iter().all(|(r, _)| {
            matches!(
                r.reason,
                RejectReason::NonAffineSubscript
                    | RejectReason::NonAffineLoopBound
                    | RejectReason::NonAffineCondition
            )
        });
        if nest.offending.is_empty()
            || !settleable
            || nest.root.has_tag(HANDLED)
            || within_instrumented(nest.root)
            || nest.root.preorder().len() < MIN_LOOPS
            || found
                .iter()
                .any(|c| c.root.contains_block(nest.root.header()))
        {
            continue;
        }
        if let Some(mut values) = settling_values(fa, nest.root, &nest.offending) {
            // One order in both compiles, whichever order the translations met them.
            values.sort_by_cached_key(|v| value_kind(fa, *v));
            let (id, line) = identify_marked(fa, &state.positions, nest.root, &values, "");
            found.push(Candidate {
                root: nest.root,
                values,
                id,
                line,
            });
        }
    }
    found
}

/// The values that, as constants, make `root` a region: the offending ones, grown by
/// those that constants for the first reveal (a stride inside a stride), if any.
fn settling_values(
    fa: &FunctionAnalyses<'_>,
    root: Loop<'_>,
    offending: &[LLVMValueRef],
) -> Option<Vec<LLVMValueRef>> {
    let mut values = offending.to_vec();
    for _ in 0..3 {
        if values.len() > MAX_VALUES {
            return None;
        }
        let trial: Vec<(LLVMValueRef, i64)> = values.iter().map(|v| (*v, PLACEHOLDER)).collect();
        match analyse_speculating(fa, root, &trial) {
            Ok(_) => return Some(values),
            Err(rejected) => {
                let new: Vec<LLVMValueRef> = rejected
                    .offending
                    .into_iter()
                    .filter(|v| !values.contains(v))
                    .collect();
                if new.is_empty() {
                    return None;
                }
                values.extend(new);
            }
        }
    }
    None
}

/// `function:loop:hash` (the nest's position among the function's loops, preorder),
/// and the nest's source line; `marks` (what kind of record the id is for) go into the
/// hash too. Nothing in the id depends on debug information, which one compile may have
/// and the other not (remarks alone turn line tables on).
fn identify_marked(
    fa: &FunctionAnalyses<'_>,
    positions: &Positions,
    root: Loop<'_>,
    values: &[LLVMValueRef],
    marks: &str,
) -> (String, u32) {
    let function = fa.function().get_name().to_string_lossy().into_owned();
    let line = fa
        .loop_location(root)
        .and_then(|loc| split_location(&loc).map(|(_, line, _)| line))
        .unwrap_or(0);
    let position = positions.of(fa, root);
    let mut hash = Fnv::new();
    hash.write(function.as_bytes());
    // The nest's shape: loops per depth, preorder.
    for l in root.preorder() {
        hash.write(&l.depth().saturating_sub(root.depth()).to_le_bytes());
    }
    // What each value is, by what stays the same across pipelines: arguments by
    // position, other values by their instruction's opcode.
    for value in values {
        hash.write(value_kind(fa, *value).as_bytes());
    }
    hash.write(marks.as_bytes());
    (
        format!("{function}:{position}:{:08x}", hash.finish() as u32),
        line,
    )
}

fn value_kind(fa: &FunctionAnalyses<'_>, value: LLVMValueRef) -> String {
    let arguments = fa.function().get_param_iter();
    if let Some(index) = arguments
        .enumerate()
        .find(|(_, a)| a.as_value_ref() == value)
        .map(|(i, _)| i)
    {
        return format!("arg{index};");
    }
    match as_instruction(value) {
        Some(inst) => format!("{:?};", inst.get_opcode()),
        None => "other;".into(),
    }
}

/// How a recorded or speculated value is shown to people (descriptors, remarks): its
/// source name where debug information has one.
pub fn value_name(fa: &FunctionAnalyses<'_>, value: LLVMValueRef) -> String {
    fa.source_name(value)
        .unwrap_or_else(|| describe_value(fa, value))
}

/// A speculated value and its constant as the run-time check compares them, in words:
/// `n = 20`, or what the check loop of a speculated loaded bound verified.
pub fn speculated_text(
    fa: &FunctionAnalyses<'_>,
    state: &State,
    value: LLVMValueRef,
    constant: i64,
) -> String {
    state
        .bounds
        .checked_text(value)
        .unwrap_or_else(|| format!("{} = {constant}", value_name(fa, value)))
}

/// A hash of the module's source file (of its name when the file cannot be read), so
/// that a profile of an earlier version of the source is told apart.
pub fn module_hash(fa: &FunctionAnalyses<'_>) -> String {
    let source = crate::llvm::ir::module_source_file(fa.function());
    let mut hash = Fnv::new();
    match std::fs::read(&source) {
        Ok(bytes) => hash.write(&bytes),
        Err(_) => hash.write(source.as_bytes()),
    }
    format!("{:016x}", hash.finish())
}

/// 64-bit FNV-1a: deterministic across runs and machines, unlike std's hasher.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::Fnv;

    #[test]
    fn fnv_matches_the_reference_values() {
        let hash = |text: &str| {
            let mut h = Fnv::new();
            h.write(text.as_bytes());
            h.finish()
        };
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }
}
