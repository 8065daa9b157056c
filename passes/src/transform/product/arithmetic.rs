//! The arithmetic of a product candidate, read from the region's IR: the sum starts at
//! +0.0, the k loop's update is `llvm.fmuladd(A element, B element, sum)` (fused where
//! the target has FMA, as the kernel's `fma`) or `sum + A element * B element` (an
//! `fmul` and an `fadd`, as the kernel's unfused steps), and C's element becomes
//! `fadd(C element, sum)` (either operand order), without fast-math flags (which would
//! let LLVM reorder the loop's own additions). What the packed product computes is then
//! what the loop computes, bit for bit.

use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::detect::{ArrayIr, DetectedRegion, StatementIr};
use crate::isl::Map;
use crate::llvm::ir::{as_instruction, called_function_name, operand, phi_incoming};
use crate::llvm::LLVMValueRef;
use crate::model::Statement;

use super::Factor;

/// The arrays (model names) of a product candidate's accesses, by their part.
pub struct Roles<'s> {
    /// The scalar the first statement sets and the k loop updates.
    pub sum: &'s str,
    /// The scalar carrying the sum out of the k loop.
    pub out: &'s str,
    pub a: &'s str,
    pub b: &'s str,
    pub c: &'s str,
    /// The access relations of A and B in the k loop, and of C's read and write.
    pub a_read: &'s Map,
    pub b_read: &'s Map,
    pub c_read: &'s Map,
    pub c_write: &'s Map,
}

/// How the loop multiplies and adds in a step of a sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MultiplyAdd {
    /// `llvm.fmuladd`: fused where the target has FMA, rounded twice otherwise.
    FmulAdd,
    /// An `fmul`, then an `fadd`: rounded twice.
    Separate,
}

/// Whether the IR of the statements `init`, `update`, `add` computes the product
/// exactly as the packed kernel does; how its steps multiply and add, and what A's
/// element is multiplied by first (`sum += alpha * A[i][k] * B[j][k]`), if anything.
pub fn check(
    region: &DetectedRegion<'_>,
    roles: &Roles<'_>,
    [init, update, add]: [&Statement; 3],
) -> Result<(MultiplyAdd, Option<Factor>), String> {
    let ir = &region.ir;
    let statement = |st: &Statement| ir.statement(&st.name);
    let (init, update, add) = (statement(init)?, statement(update)?, statement(add)?);
    let scalar = |name: &str| {
        ir.arrays.iter().find_map(|(n, a)| match a {
            ArrayIr::Scalar { value } if n == name => as_instruction(*value),
            _ => None,
        })
    };
    let sum = scalar(roles.sum).ok_or("the sum is not an SSA value")?;
    let out = scalar(roles.out).ok_or("the sum's way out is not an SSA value")?;
    let step = sum_update(sum, init, update)?;
    let loads = |st: &StatementIr<'_>, array: &str, opcode: InstructionOpcode| {
        accesses_of(region, st, array, opcode)
    };
    let a = single(loads(update, roles.a, InstructionOpcode::Load))?;
    let b = single(loads(update, roles.b, InstructionOpcode::Load))?;
    let alpha = scaled_a(region, step, a);
    let a_factor = alpha.map_or(a, |(product, _)| product);
    let multiply_add = step_kind(step, sum.as_value_ref(), [a_factor, b])?;
    // The sum leaves the k loop as the update itself or through a phi of it (LCSSA).
    let last_value = out == step
        || out.get_opcode() == InstructionOpcode::Phi && {
            let carried = phi_incoming(out);
            !carried.is_empty() && carried.iter().all(|(v, _)| *v == step.as_value_ref())
        };
    if !last_value {
        return Err("the sum leaving the k loop is not its last value".into());
    }
    c_update(region, add, roles, out)?;
    Ok((multiply_add, alpha.map(|(_, factor)| factor)))
}

/// `alpha * A element` (either order, alpha made before the region) among the values
/// the step multiplies, with alpha: the loop's own first product, which the kernel
/// makes when it packs A.
fn scaled_a(
    region: &DetectedRegion<'_>,
    step: InstructionValue<'_>,
    a: LLVMValueRef,
) -> Option<(LLVMValueRef, Factor)> {
    let mut candidates: Vec<LLVMValueRef> = (0..3).filter_map(|n| operand(step, n)).collect();
    let products: Vec<LLVMValueRef> = candidates
        .iter()
        .filter_map(|v| as_instruction(*v))
        .filter(|i| i.get_opcode() == InstructionOpcode::FMul)
        .flat_map(|i| [operand(i, 0), operand(i, 1)])
        .flatten()
        .collect();
    candidates.extend(products);
    candidates
        .into_iter()
        .find_map(|v| scale_of(region, v, |x| x == a).map(|factor| (v, factor)))
}

/// How the k loop's update `step` of `sum` multiplies the two `factors` (A's and B's
/// loads, either order) and adds: `llvm.fmuladd(a, b, sum)`, or `sum + a * b` (either
/// order) with the product rounded first; no fast-math flags.
pub(super) fn step_kind(
    step: InstructionValue<'_>,
    sum: LLVMValueRef,
    [a, b]: [LLVMValueRef; 2],
) -> Result<MultiplyAdd, String> {
    let is_product = |x: Option<LLVMValueRef>, y: Option<LLVMValueRef>| {
        [x, y] == [Some(a), Some(b)] || [x, y] == [Some(b), Some(a)]
    };
    if called_function_name(step).is_some_and(is_fmuladd) {
        if is_product(operand(step, 0), operand(step, 1))
            && operand(step, 2) == Some(sum)
            && !has_fast_math(step)
        {
            return Ok(MultiplyAdd::FmulAdd);
        }
    } else if step.get_opcode() == InstructionOpcode::FAdd && !has_fast_math(step) {
        let terms = [operand(step, 0), operand(step, 1)];
        let product = match terms {
            [Some(x), Some(p)] | [Some(p), Some(x)] if x == sum => as_instruction(p),
            _ => None,
        };
        if let Some(product) = product.filter(|p| p.get_opcode() == InstructionOpcode::FMul) {
            if is_product(operand(product, 0), operand(product, 1)) && !has_fast_math(product) {
                return Ok(MultiplyAdd::Separate);
            }
        }
    }
    Err("the k loop's update is not sum + A element * B element".into())
}

/// The k loop's update of the sum (the phi `sum` in the k loop's block): the phi takes
/// +0.0 from the first statement and the update from the k loop.
pub(super) fn sum_update<'f>(
    sum: InstructionValue<'f>,
    init: &StatementIr<'f>,
    update: &StatementIr<'f>,
) -> Result<InstructionValue<'f>, String> {
    if sum.get_opcode() != InstructionOpcode::Phi
        || sum.get_parent() != update.blocks.first().copied()
    {
        return Err("the sum is not a phi of the k loop".into());
    }
    let incoming = phi_incoming(sum);
    let [(v0, b0), (v1, b1)] = incoming.as_slice() else {
        return Err("the sum's phi does not join two values".into());
    };
    let ((start, _), (step, _)) = if init.blocks.contains(b0) && update.blocks.contains(b1) {
        ((v0, b0), (v1, b1))
    } else if init.blocks.contains(b1) && update.blocks.contains(b0) {
        ((v1, b1), (v0, b0))
    } else {
        return Err("the sum's phi does not come from its statements".into());
    };
    if !is_positive_zero(*start) {
        return Err("the sum does not start at +0.0".into());
    }
    let step = as_instruction(*step).ok_or("the sum's update is not an instruction")?;
    if !step
        .get_parent()
        .is_some_and(|b| update.blocks.contains(&b))
    {
        return Err("the sum's update is outside the k loop".into());
    }
    Ok(step)
}

/// C's element becomes `C element + sum` (or `sum + C element`) and nothing else
/// happens to C in the statement.
fn c_update(
    region: &DetectedRegion<'_>,
    add: &StatementIr<'_>,
    roles: &Roles<'_>,
    out: InstructionValue<'_>,
) -> Result<(), String> {
    let load = single(accesses_of(region, add, roles.c, InstructionOpcode::Load))?;
    let store = single(accesses_of(region, add, roles.c, InstructionOpcode::Store))?;
    let stored = as_instruction(store)
        .and_then(|s| operand(s, 0))
        .and_then(as_instruction)
        .ok_or("C's new value is not an instruction")?;
    let terms = [operand(stored, 0), operand(stored, 1)];
    let sum = Some(out.as_value_ref());
    let adds_sum = terms == [Some(load), sum] || terms == [sum, Some(load)];
    if stored.get_opcode() != InstructionOpcode::FAdd || !adds_sum || has_fast_math(stored) {
        return Err("C's element is not updated as C + sum".into());
    }
    Ok(())
}

/// The loads or stores (`opcode`) of `st` that access `array`.
pub(super) fn accesses_of(
    region: &DetectedRegion<'_>,
    st: &StatementIr<'_>,
    array: &str,
    opcode: InstructionOpcode,
) -> Vec<LLVMValueRef> {
    st.blocks
        .iter()
        .flat_map(|b| b.get_instructions())
        .filter(|i| i.get_opcode() == opcode)
        .map(|i| i.as_value_ref())
        .filter(|v| region.ir.memory_arrays.get(v).is_some_and(|n| n == array))
        .collect()
}

/// The only value of `values`.
pub(super) fn single(values: Vec<LLVMValueRef>) -> Result<LLVMValueRef, String> {
    match values.as_slice() {
        [one] => Ok(*one),
        _ => Err("an array is not accessed once".into()),
    }
}

/// Whether `value` is the constant +0.0 (not -0.0: the first product's sign would
/// differ).
pub(super) fn is_positive_zero(value: LLVMValueRef) -> bool {
    use inkwell::llvm_sys::core as c;
    // SAFETY: reading a constant of the function's own IR.
    unsafe {
        if c::LLVMIsAConstantFP(value).is_null() {
            return false;
        }
        let mut lost = 0;
        let v = c::LLVMConstRealGetDouble(value, &mut lost);
        lost == 0 && v == 0.0 && v.is_sign_positive()
    }
}

/// Whether `name` is the multiply-add intrinsic of doubles or of floats (its operands
/// are then the loads or products checked to be its factors, of one type).
pub(super) fn is_fmuladd(name: String) -> bool {
    name == "llvm.fmuladd.f64" || name == "llvm.fmuladd.f32"
}

/// Whether an instruction has any fast-math flag.
pub(super) fn has_fast_math(inst: InstructionValue<'_>) -> bool {
    use inkwell::llvm_sys::core as c;
    // SAFETY: the flags are read from an instruction that can carry them.
    unsafe {
        let v = inst.as_value_ref();
        c::LLVMCanValueUseFastMathFlags(v) != 0 && c::LLVMGetFastMathFlags(v) != 0
    }
}

/// For `value = factor * x` or `x * factor` (an `fmul` without fast-math flags) with
/// `is_x(x)` and `factor` made before the region: the factor.
pub(super) fn scale_of(
    region: &DetectedRegion<'_>,
    value: LLVMValueRef,
    is_x: impl Fn(LLVMValueRef) -> bool,
) -> Option<Factor> {
    let product = as_instruction(value)
        .filter(|i| i.get_opcode() == InstructionOpcode::FMul && !has_fast_math(*i))?;
    match [operand(product, 0)?, operand(product, 1)?] {
        [f, x] | [x, f] if is_x(x) && made_before(region, f) => Some(f),
        _ => None,
    }
}

/// Whether `value` is made before the region (an argument, a constant, an instruction
/// outside it), so that the call can pass it.
pub(super) fn made_before(region: &DetectedRegion<'_>, value: LLVMValueRef) -> bool {
    !as_instruction(value)
        .and_then(|i| i.get_parent())
        .is_some_and(|b| region.ir.blocks.contains(&b))
}
