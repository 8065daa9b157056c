//! The IR side of expression propagation (`transform::exprprop`): whether a temporary is
//! memory the function owns and nothing outside the region reads, and which loads of
//! the consumers the generated code replaces by a copy of the producer's expression.
//!
//! Relies on detection's map from each load and store to its array
//! (`RegionIr::memory_arrays`) and on the statements' blocks.

use std::collections::HashMap;

use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::detect::{ArrayIr, DetectedRegion, StatementIr};
use crate::llvm::builder::Value;
use crate::llvm::ir::{called_function_name, operand, pointer_operand, users};
use crate::transform::exprprop::{consumer_counter_name, Counter, Recompute};

/// A load the generated code replaces by the producer's expression.
pub struct Recomputation<'a, 'f> {
    pub producer: &'a StatementIr<'f>,
    /// The producer's counters, from the consumer's.
    pub counters: Vec<Counter>,
    /// The value the producer stores into the temporary.
    pub stored: Value,
}

/// Allocation functions whose result is memory nothing else can see until the pointer
/// is handed out: C's, and C++'s `operator new` and `new[]` (plain and aligned), which
/// `std::vector` and `std::unique_ptr<T[]>` call.
const ALLOCATORS: &[&str] = &[
    "malloc",
    "calloc",
    "aligned_alloc",
    "_Znwm",
    "_Znam",
    "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
];

/// Functions that give such memory back: `free`, and C++'s `operator delete` and
/// `delete[]` (sized, aligned, or both).
fn deallocates(name: &str) -> bool {
    name == "free" || name.starts_with("_ZdlPv") || name.starts_with("_ZdaPv")
}

/// Whether the temporary `array` of `region` can go from the generated code: its base
/// is a local allocation (`alloca`, `malloc`/`calloc` or C++'s `new` in the function)
/// whose pointer is only used for loads and stores inside the region, compared, freed,
/// or cleared before or after the region. Then no one reads
/// what the region wrote into it, and the original code (the fallback) keeps its own.
pub fn removable(region: &DetectedRegion<'_>, array: &str) -> bool {
    let Some(ArrayIr::Memory { base }) = region
        .ir
        .arrays
        .iter()
        .find(|(name, _)| name == array)
        .map(|(_, ir)| *ir)
    else {
        return false;
    };
    let Some(allocation) = crate::llvm::ir::as_instruction(base) else {
        return false;
    };
    let owned = match allocation.get_opcode() {
        InstructionOpcode::Alloca => true,
        InstructionOpcode::Call => {
            called_function_name(allocation).is_some_and(|name| ALLOCATORS.contains(&name.as_str()))
        }
        _ => false,
    };
    owned && uses_stay_inside(region, allocation, 0)
}

/// Whether every use of the pointer `value` (and of addresses computed from it) is a
/// load or store through it inside the region, a call to `free` on it, or a lifetime
/// marker.
fn uses_stay_inside(region: &DetectedRegion<'_>, value: InstructionValue<'_>, depth: u32) -> bool {
    if depth > 8 {
        return false;
    }
    users(&value).into_iter().all(|user| {
        let inside = user
            .get_parent()
            .is_some_and(|b| region.ir.blocks.contains(&b));
        match user.get_opcode() {
            InstructionOpcode::Load => inside,
            // Through it, not of it (a stored pointer escapes).
            InstructionOpcode::Store => {
                inside
                    && operand(user, 0) != Some(value.as_value_ref())
                    && pointer_operand(user) == Some(value.as_value_ref())
            }
            InstructionOpcode::GetElementPtr => uses_stay_inside(region, user, depth + 1),
            // A comparison (the check for a failed allocation) neither reads nor
            // hands out the memory.
            InstructionOpcode::ICmp => true,
            // `free`, the lifetime markers of a local array (which say when its memory
            // is live, not what it holds), and a memset outside the region (a
            // `std::vector` zeroing its elements): writes that nothing reads, since
            // every value the region reads of a temporary it recomputes or folds is one
            // the region wrote, and nothing after the region reads it.
            InstructionOpcode::Call => called_function_name(user).is_some_and(|name| {
                deallocates(&name)
                    || name.starts_with("llvm.lifetime.start")
                    || name.starts_with("llvm.lifetime.end")
                    || (name.starts_with("llvm.memset") && !inside)
            }),
            _ => false,
        }
    })
}

/// How remarks name the temporary `array`: its source variable when debug information
/// says it, else the model's name.
pub fn source_name(
    fa: &crate::llvm::FunctionAnalyses<'_>,
    region: &DetectedRegion<'_>,
    array: &str,
) -> String {
    region
        .ir
        .arrays
        .iter()
        .find_map(|(name, ir)| match ir {
            ArrayIr::Memory { base } if name == array => fa.source_name(*base),
            _ => None,
        })
        .unwrap_or_else(|| array.to_string())
}

/// The loads to replace, each with what recomputes it; an error says why the IR does
/// not allow it (then nothing is propagated).
pub fn plan<'a, 'f>(
    region: &'a DetectedRegion<'f>,
    recomputes: &[Recompute],
) -> Result<HashMap<Value, Recomputation<'a, 'f>>, String> {
    let ir = &region.ir;
    let statement = |name: &str| {
        ir.statements
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("no statement {name}"))
    };
    let of_array = |inst: &InstructionValue<'f>, array: &str, opcode: InstructionOpcode| {
        inst.get_opcode() == opcode
            && ir
                .memory_arrays
                .get(&inst.as_value_ref())
                .is_some_and(|a| a == array)
    };
    let mut plan = HashMap::new();
    for r in recomputes {
        let consumer = statement(&r.consumer)?;
        let producer = statement(&r.producer)?;
        let [block] = producer.blocks.as_slice() else {
            return Err(format!("{} has a branch inside", r.producer));
        };
        let stores: Vec<InstructionValue<'f>> = block
            .get_instructions()
            .filter(|i| of_array(i, &r.array, InstructionOpcode::Store))
            .collect();
        let [store] = stores.as_slice() else {
            return Err(format!(
                "{} stores to {} {} times",
                r.producer,
                r.array,
                stores.len()
            ));
        };
        let stored = operand(*store, 0).ok_or("a store without a value")?;
        let loads: Vec<InstructionValue<'f>> = consumer
            .blocks
            .iter()
            .flat_map(|b| b.get_instructions())
            .filter(|i| of_array(i, &r.array, InstructionOpcode::Load))
            .collect();
        let load = loads
            .get(r.read)
            .ok_or_else(|| format!("{} has no load {} of {}", r.consumer, r.read, r.array))?;
        if producer.loops.len() != r.counters.len() {
            return Err(format!(
                "{} is not {} loops deep",
                r.producer,
                r.counters.len()
            ));
        }
        let consumer_loops = consumer.loops.len();
        let beyond = |c: &Counter| match c {
            Counter::Shifted { follows, .. } => follows.is_some_and(|k| k >= consumer_loops),
            Counter::Piecewise(e) => names_beyond(e, consumer_loops),
        };
        if r.counters.iter().any(beyond) {
            return Err(format!(
                "{} has fewer loops than {} reads",
                r.consumer, r.producer
            ));
        }
        plan.insert(
            load.as_value_ref(),
            Recomputation {
                producer,
                counters: r.counters.clone(),
                stored,
            },
        );
    }
    Ok(plan)
}

/// Whether a piecewise counter names a consumer counter at or beyond `loops`.
fn names_beyond(e: &crate::isl::ast::AstExpr, loops: usize) -> bool {
    use crate::isl::ast::AstExpr;
    match e {
        AstExpr::Int(_) => false,
        AstExpr::Id(name) => (loops..loops + 16).any(|k| *name == consumer_counter_name(k)),
        AstExpr::Op(_, args) => args.iter().any(|a| names_beyond(a, loops)),
    }
}

/// Instructions the most demanding statement instance clones to recompute what it reads
/// (nested recomputations counted in), with the loads of `plan`.
pub fn cloned_instructions(
    region: &DetectedRegion<'_>,
    plan: &HashMap<Value, Recomputation<'_, '_>>,
) -> usize {
    fn cost(load: Value, plan: &HashMap<Value, Recomputation<'_, '_>>, depth: u32) -> usize {
        let Some(r) = plan.get(&load) else {
            return 0;
        };
        if depth > 16 {
            return usize::MAX / 4;
        }
        r.producer
            .blocks
            .iter()
            .flat_map(|b| b.get_instructions())
            .map(|i| 1usize.saturating_add(cost(i.as_value_ref(), plan, depth + 1)))
            .fold(0usize, usize::saturating_add)
    }
    region
        .ir
        .statements
        .iter()
        .map(|st| {
            st.blocks
                .iter()
                .flat_map(|b| b.get_instructions())
                .map(|i| cost(i.as_value_ref(), plan, 0))
                .fold(0usize, usize::saturating_add)
        })
        .max()
        .unwrap_or(0)
}
