//! Recognition of the nest that accumulates into C itself with k innermost,
//! `for (i) for (j) for (k) C[i][j] += A[i][k] * B[k][j]` (A and B indexed either way
//! round). At -O3 LLVM keeps C's element in a register across k: a phi that starts at
//! the element's load before the k loop, is updated by `llvm.fmuladd(a, b, phi)` (or
//! `phi + a * b`) and is stored back (in each step or after the loop). The model
//! (`detect::promoted`) makes that chain one statement reading and writing the element;
//! the IR says its arithmetic. Each element's sum then starts at C's old value, takes
//! its products in k order and is stored: the kernel's variant with sums from C
//! computes the same bytes. C read as a factor too, a C not kept in a register, float
//! or fast-math flags: not this product.

use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::detect::{DetectedRegion, StatementIr};
use crate::isl::ast::{AstExpr, AstOp, ExprBuilder};
use crate::llvm::ir::{as_instruction, operand, phi_incoming, pointer_operand};
use crate::llvm::LLVMValueRef;
use crate::model::{Access, AccessKind, Array, Scop, Statement};
use crate::transform::hardware::Hardware;
use crate::transform::Subject;

use super::arithmetic::{accesses_of, single, step_kind, MultiplyAdd};
use super::recognise::{box_bounds, operand as product_operand, reads_counter, target_has};
use super::{common_precision, Accumulator, Blocking, Precision, Product};

/// The accesses of the statement by their part: A's and B's reads, C's read and write.
pub(super) struct Parts<'s> {
    pub a: &'s Access,
    pub b: &'s Access,
    pub c_read: &'s Access,
    pub c_write: &'s Access,
}

/// The product the one statement `update` of `scop` computes, or why it is not one.
/// The target has been checked.
pub(super) fn recognise(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    update: &Statement,
    hardware: &Hardware,
) -> Result<Product, String> {
    if update.depth() != 3 {
        return Err("not a statement 3 loops deep".into());
    }
    let parts = parts(scop, update)?;
    if parts.a.array == parts.b.array {
        return Err("A and B are one array".into());
    }
    let multiply_add = check_arithmetic(subject.region, update, &parts)?;
    // The backend fuses `llvm.fmuladd` exactly where the target has FMA.
    let fused = multiply_add == MultiplyAdd::FmulAdd && target_has(subject, "+fma");
    let builder = ExprBuilder::new(&scop.context).map_err(|e| e.to_string())?;
    let highs = box_bounds(subject, scop, &builder, update)?;
    let count = |hi: &AstExpr| AstExpr::Op(AstOp::Add, vec![hi.clone(), AstExpr::Int(1)]);
    let [m, n, k] = highs.as_slice() else {
        return Err("not three counters".into());
    };
    let all = ["i0", "i1", "i2"];
    let operand = |access: &Access, counters: [&str; 2]| {
        product_operand(
            subject,
            scop,
            &builder,
            &access.array,
            &access.relation,
            counters,
            &all,
        )
    };
    let a = operand(parts.a, ["i0", "i2"])?;
    let b = operand(parts.b, ["i2", "i1"])?;
    let c = operand(parts.c_read, ["i0", "i1"])?;
    if operand(parts.c_write, ["i0", "i1"])? != c {
        return Err("C is written elsewhere than it is read".into());
    }
    let arrays = [&parts.a.array, &parts.b.array, &parts.c_read.array].map(String::as_str);
    let precision = common_precision(scop, &arrays)?;
    Ok(Product {
        a,
        b,
        c,
        trips: [count(m), count(n), count(k)],
        blocking: Blocking::for_caches(hardware, precision),
        fused,
        accumulator: Accumulator::C,
        second: None,
        precision,
        target: super::recognise::kernel_target(subject),
        batch: None,
        symmetric: None,
    })
}

/// The statement reads two-dimensional arrays of doubles or floats (A and B, maybe one array,
/// and C) and writes C, which it reads once; nothing else.
pub(super) fn parts<'s>(scop: &'s Scop, update: &'s Statement) -> Result<Parts<'s>, String> {
    let array = |name: &str| scop.arrays.iter().find(|a| a.name == name);
    let matrix =
        |x: &Array| !x.is_scalar && x.rank() == 2 && Precision::of(&x.element_type).is_some();
    if !update
        .accesses
        .iter()
        .all(|a| array(&a.array).is_some_and(matrix))
    {
        return Err("the statement accesses other than matrices of doubles or floats".into());
    }
    let of_kind = |kind: AccessKind| {
        update
            .accesses
            .iter()
            .filter(|a| a.kind == kind)
            .collect::<Vec<&'s Access>>()
    };
    let writes = of_kind(AccessKind::MustWrite);
    let [c_write] = writes.as_slice() else {
        return Err("the statement does not write one element".into());
    };
    let (c_write, reads) = (*c_write, of_kind(AccessKind::Read));
    let (c_reads, factors): (Vec<&Access>, Vec<&Access>) =
        reads.into_iter().partition(|a| a.array == c_write.array);
    let ([c_read], [first, second], 4) = (
        c_reads.as_slice(),
        factors.as_slice(),
        update.accesses.len(),
    ) else {
        return Err("the statement is not C updated from one element of A and one of B".into());
    };
    // Which read is A (indexed by i and k) and which B (j and k) the subscripts say.
    let (a, b) = if reads_counter(first, 0) {
        (*first, *second)
    } else {
        (*second, *first)
    };
    Ok(Parts {
        a,
        b,
        c_read,
        c_write,
    })
}

/// C's element is a phi of the k loop that starts at the element's load before the
/// loop and steps by `A element * B element`; within the loop C is only stored (the
/// step, at the element). How the step multiplies and adds.
fn check_arithmetic(
    region: &DetectedRegion<'_>,
    update: &Statement,
    parts: &Parts<'_>,
) -> Result<MultiplyAdd, String> {
    let st = region
        .ir
        .statements
        .iter()
        .find(|s| s.name == update.name)
        .ok_or_else(|| format!("no IR for statement {}", update.name))?;
    let (phi, pointer) = promoted_element(region, st)?;
    let step = step_of(phi, st)?;
    let loads = |array: &str| accesses_of(region, st, array, InstructionOpcode::Load);
    let factors = [
        single(loads(&parts.a.array))?,
        single(loads(&parts.b.array))?,
    ];
    let multiply_add = step_kind(step, phi.as_value_ref(), factors)?;
    if !loads(&parts.c_read.array).is_empty() {
        return Err("C is loaded in the k loop".into());
    }
    let stores = accesses_of(region, st, &parts.c_write.array, InstructionOpcode::Store);
    let stores_step = |s: &LLVMValueRef| {
        as_instruction(*s).is_some_and(|s| {
            operand(s, 0) == Some(step.as_value_ref()) && pointer_operand(s) == Some(pointer)
        })
    };
    if !stores.iter().all(stores_step) {
        return Err("C is stored in the k loop other than its step".into());
    }
    Ok(multiply_add)
}

/// The phi of the statement's block that keeps an array element in a register, which
/// must start at the element's load; with the element's address.
fn promoted_element<'f>(
    region: &DetectedRegion<'f>,
    st: &StatementIr<'f>,
) -> Result<(InstructionValue<'f>, LLVMValueRef), String> {
    let (phi, pointer, start) = promoted_chain(region, st)?
        .ok_or_else(|| "C is not kept in a register across k".to_string())?;
    if !is_load_of(start, pointer) {
        return Err("C's register does not start at its element".into());
    }
    Ok((phi, pointer))
}

/// Whether `value` is a load from `pointer`.
pub(super) fn is_load_of(value: LLVMValueRef, pointer: LLVMValueRef) -> bool {
    as_instruction(value).is_some_and(|load| {
        load.get_opcode() == InstructionOpcode::Load && pointer_operand(load) == Some(pointer)
    })
}

/// The phi of the statement's block that keeps an array element in a register (none if
/// no chain has its phi there), with the element's address and the value the phi
/// starts at.
pub(super) fn promoted_chain<'f>(
    region: &DetectedRegion<'f>,
    st: &StatementIr<'f>,
) -> Result<Option<(InstructionValue<'f>, LLVMValueRef, LLVMValueRef)>, String> {
    let header = st.blocks.first().copied();
    let chains: Vec<_> = region
        .ir
        .promotions
        .iter()
        .filter_map(|p| {
            let phi = p.values.first().copied().and_then(as_instruction)?;
            let in_header =
                phi.get_opcode() == InstructionOpcode::Phi && phi.get_parent() == header;
            in_header.then_some((phi, p.pointer))
        })
        .collect();
    let (phi, pointer) = match chains.as_slice() {
        [] => return Ok(None),
        [chain] => chain,
        _ => return Err("more than one element is kept in a register across k".into()),
    };
    let starts = phi_incoming(*phi)
        .iter()
        .filter(|(_, block)| !st.blocks.contains(block))
        .map(|(v, _)| *v)
        .collect::<Vec<_>>();
    let [start] = starts.as_slice() else {
        return Err("C's register does not start once".into());
    };
    Ok(Some((*phi, *pointer, *start)))
}

/// The value the phi takes from the k loop: the step, made in the loop.
pub(super) fn step_of<'f>(
    phi: InstructionValue<'f>,
    st: &StatementIr<'f>,
) -> Result<InstructionValue<'f>, String> {
    let steps = phi_incoming(phi)
        .iter()
        .filter(|(_, block)| st.blocks.contains(block))
        .map(|(v, _)| *v)
        .collect::<Vec<_>>();
    let [step] = steps.as_slice() else {
        return Err("C's register is not updated once per step".into());
    };
    as_instruction(*step)
        .filter(|s| s.get_parent().is_some_and(|b| st.blocks.contains(&b)))
        .ok_or_else(|| "C's update is not made in the k loop".into())
}
