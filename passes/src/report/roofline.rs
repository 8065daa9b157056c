//! `print<polyrust-roofline>`: what each region must compute and move at the least, for a
//! roofline (scripts/bench --roofline): its floating-point operations (each statement's
//! iterations times the operations of its instructions), its integer operations on the
//! values it loads (what the roofline counts for kernels with no floating-point
//! operation: shortest paths, dynamic programming) and its compulsory memory traffic
//! (the distinct array elements the region reads, and those it writes, times the element
//! size: the data that must cross the memory bus at least once).
//!
//! Relies on: the model's domains and access relations being exact (detection's
//! regions), on parameters being fixed numbers in the IR (a region with parameters is
//! said so and not counted), and on the points being counted by `isl::Set::count_points`.

use inkwell::values::InstructionOpcode;

use crate::detect::StatementIr;
use crate::isl::IslError;
use crate::llvm::ir::called_function_name;
use crate::model::region::Modelled;
use crate::model::Scop;

/// What one region must do at the least.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Floating-point operations (an FMA is two).
    pub flops: u128,
    /// Integer operations on loaded values: additions, subtractions, multiplications,
    /// comparisons, min and max (one each; loop counters and addresses not counted).
    pub int_ops: u128,
    /// Bytes of distinct array elements read.
    pub read_bytes: u128,
    /// Bytes of distinct array elements written.
    pub written_bytes: u128,
}

/// The block of one region: a summary line the benchmark reads, then the figures it is
/// made of.
pub fn render(modelled: &Modelled<'_, '_>, scop: &Scop) -> String {
    let region = &modelled.region.spec.name;
    match count(modelled, scop) {
        Ok((counts, lines)) => {
            let mut out = format!(
                "roofline {region}: flops {} read-bytes {} written-bytes {} int-ops {}\n",
                counts.flops, counts.read_bytes, counts.written_bytes, counts.int_ops
            );
            for line in lines {
                out.push_str(&format!("  {line}\n"));
            }
            out
        }
        Err(e) => format!("roofline {region}: not counted: {e}\n"),
    }
}

fn count(modelled: &Modelled<'_, '_>, scop: &Scop) -> Result<(Counts, Vec<String>), String> {
    // A region under a loop it does not include runs once per iteration of that loop: its
    // counts would be one run's.
    if modelled.region.top.iter().any(|l| l.parent().is_some()) {
        return Err("it runs inside a loop outside the region (counts would be one run's)".into());
    }
    let mut params = Vec::new();
    for statement in &scop.statements {
        params.extend(
            statement
                .domain
                .involved_params()
                .map_err(|e| e.to_string())?,
        );
    }
    params.sort();
    params.dedup();
    if !params.is_empty() {
        return Err(format!(
            "its bounds depend on the parameters {} (counts need fixed sizes)",
            params.join(", ")
        ));
    }
    counted(modelled, scop).map_err(|e| e.to_string())
}

fn counted(modelled: &Modelled<'_, '_>, scop: &Scop) -> Result<(Counts, Vec<String>), IslError> {
    let mut counts = Counts::default();
    let mut lines = Vec::new();
    for statement in &scop.statements {
        let points = statement.domain.count_points()?;
        let ir = modelled
            .region
            .ir
            .statements
            .iter()
            .find(|s| s.name == statement.name);
        let per_point = ir.map_or(0, statement_flops);
        let int_per_point = ir.map_or(0, statement_int_ops);
        counts.flops += points * u128::from(per_point);
        counts.int_ops += points * u128::from(int_per_point);
        lines.push(format!(
            "{}: {points} iterations x {per_point} flops, {int_per_point} integer operations",
            statement.name
        ));
    }
    let writes = scop.must_writes.copy()?.union(scop.may_writes.copy()?)?;
    for (kind, accesses) in [("read", scop.reads.copy()?), ("written", writes)] {
        let touched = accesses.intersect_domain(scop.domains.copy()?)?.range()?;
        for elements in touched.sets()? {
            let name = elements.tuple_name().unwrap_or_default();
            let Some(array) = scop.arrays.iter().find(|a| a.name == name) else {
                continue;
            };
            if array.is_scalar {
                continue; // a value kept in a register, not memory traffic
            }
            let n = elements.count_points()?;
            let bytes = n * u128::from(array.element_size);
            match kind {
                "read" => counts.read_bytes += bytes,
                _ => counts.written_bytes += bytes,
            }
            lines.push(format!(
                "{kind} {name}: {n} elements x {} bytes",
                array.element_size
            ));
        }
    }
    Ok((counts, lines))
}

/// Floating-point operations one execution of the statement performs: +, -, *, /, negation
/// and square root count one, a fused multiply-add two (vectors count each lane).
fn statement_flops(statement: &StatementIr<'_>) -> u64 {
    let mut flops = 0u64;
    for block in &statement.blocks {
        for inst in block.get_instructions() {
            let per_lane = match inst.get_opcode() {
                InstructionOpcode::FAdd
                | InstructionOpcode::FSub
                | InstructionOpcode::FMul
                | InstructionOpcode::FDiv
                | InstructionOpcode::FRem
                | InstructionOpcode::FNeg => 1,
                InstructionOpcode::Call => call_flops(&called_function_name(inst)),
                _ => 0,
            };
            flops += per_lane * lanes(inst.get_type());
        }
    }
    flops
}

/// Integer operations one execution of the statement performs on the values it loads
/// (and on what it computed from them): `add`, `sub`, `mul`, `icmp` and the min and max
/// intrinsics count one (vectors count each lane); a `select` on a counted comparison
/// is that comparison's min or max. Loop counters and addresses use no loaded value.
fn statement_int_ops(statement: &StatementIr<'_>) -> u64 {
    use inkwell::values::AsValueRef;
    let mut from_loads = std::collections::HashSet::new();
    let mut ops = 0u64;
    for block in &statement.blocks {
        for inst in block.get_instructions() {
            let opcode = inst.get_opcode();
            let reads_loaded = (0..inst.get_num_operands()).any(|n| {
                crate::llvm::ir::operand(inst, n).is_some_and(|v| from_loads.contains(&v))
            });
            if opcode == InstructionOpcode::Load || reads_loaded {
                from_loads.insert(inst.as_value_ref());
            }
            if !reads_loaded {
                continue;
            }
            let per_lane = match opcode {
                InstructionOpcode::Add
                | InstructionOpcode::Sub
                | InstructionOpcode::Mul
                | InstructionOpcode::ICmp => 1,
                InstructionOpcode::Call if is_min_max(&called_function_name(inst)) => 1,
                _ => 0,
            };
            ops += per_lane * lanes(inst.get_type());
        }
    }
    ops
}

fn is_min_max(name: &Option<String>) -> bool {
    ["llvm.smin.", "llvm.smax.", "llvm.umin.", "llvm.umax."]
        .iter()
        .any(|p| name.as_deref().is_some_and(|n| n.starts_with(p)))
}

fn call_flops(name: &Option<String>) -> u64 {
    match name.as_deref() {
        Some(n) if n.starts_with("llvm.fmuladd.") || n.starts_with("llvm.fma.") => 2,
        Some(n) if n.starts_with("llvm.sqrt.") || n == "sqrt" || n == "sqrtf" => 1,
        _ => 0,
    }
}

fn lanes(ty: inkwell::types::AnyTypeEnum<'_>) -> u64 {
    match ty {
        inkwell::types::AnyTypeEnum::VectorType(v) => u64::from(v.get_size()),
        _ => 1,
    }
}
