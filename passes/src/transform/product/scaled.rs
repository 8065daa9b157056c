//! Recognition of the product as BLAS's dgemm and PolyBench's gemm write it,
//!
//! ```c
//! for (i) { for (j) C[i][j] *= beta; for (k) for (j) C[i][j] += alpha * A[i][k] * B[k][j]; }
//! ```
//!
//! or with k innermost (`for (i) for (j) { C[i][j] *= beta; for (k) ... }`, C then kept
//! in a register across k), with `C[i][j] = 0` (or a memset of C's rows to zero:
//! `zeroed`) or nothing before the update, with or without alpha. For each element of C
//! the loop computes `C * beta` (rounded once), then for each k in order
//! `C + (alpha * A[i][k]) * B[k][j]`, `alpha * A[i][k]` rounded first, the step fused where the IR's `llvm.fmuladd` is (or an `fmul` and an
//! `fadd`). The kernel's scaled variant starts each sum at `C * beta` and packs A as
//! `alpha * A[i][k]`, the loop's own first product, so its bytes are the loop's.
//!
//! The model gives the statements, their order, domains and accesses; the IR their
//! arithmetic. alpha and beta must be values made before the region (arguments,
//! constants). Anything else is not this product.

use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::detect::{DetectedRegion, StatementIr};
use crate::isl::ast::{function_expressions, AstExpr, AstOp, ExprBuilder};
use crate::isl::{AffineExpr, Map, Set, Tuple};
use crate::llvm::ir::{as_instruction, called_function_name, operand, pointer_operand};
use crate::llvm::LLVMValueRef;
use crate::model::{Access, AccessKind, Scop, Statement};
use crate::transform::hardware::Hardware;
use crate::transform::Subject;

use super::arithmetic::MultiplyAdd;
use super::arithmetic::{accesses_of, is_fmuladd, is_positive_zero, scale_of, single, step_kind};
use super::in_register::{is_load_of, parts, promoted_chain, step_of, Parts};
use super::recognise::{operand as product_operand, spanned_box, target_has};
use super::zeroed::{check_zeroed, zeroing_memset};
use super::{common_precision, Accumulator, Blocking, Factor, Operand, Product, Scaling, Start};

/// The product of `update` (three loops deep), after `first` (two loops deep) when
/// there is one, or why it is not one. The target has been checked.
pub(super) fn recognise(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    first: Option<&Statement>,
    update: &Statement,
    hardware: &Hardware,
) -> Result<Product, String> {
    if update.depth() != 3 {
        return Err("not a statement 3 loops deep".into());
    }
    let parts = parts(scop, update)?;
    let (j, k) = counters(parts.c_read)?;
    let builder = ExprBuilder::new(&scop.context).map_err(|e| e.to_string())?;
    let all = ["i0", "i1", "i2"];
    let operand = |access: &Access, counters: [&str; 2]| {
        let relation = &access.relation;
        product_operand(
            subject,
            scop,
            &builder,
            &access.array,
            relation,
            counters,
            &all,
        )
    };
    let a = operand(parts.a, ["i0", all[k]])?;
    let b = operand(parts.b, [all[k], all[j]])?;
    let c_written = [parts.c_read, parts.c_write];
    let (c, highs, lower) = c_and_first(subject, scop, &builder, first, update, c_written, j)?;
    let (multiply_add, start, alpha) = arithmetic(subject, first, update, &parts)?;
    let arrays = [&parts.a.array, &parts.b.array, &parts.c_read.array].map(String::as_str);
    let precision = common_precision(scop, &arrays)?;
    let shape = ScaledShape {
        operands: [a, b, c],
        highs,
        counters: (j, k),
        multiply_add,
        scaling: Scaling {
            start,
            alpha,
            lower,
        },
        precision,
    };
    Ok(shape.product(subject, hardware, None))
}

/// What the scaled forms (`recognise` here, syr2k's in `two_terms`) find, from which
/// their `Product` is made the same way.
pub(super) struct ScaledShape {
    /// A, B and C.
    pub operands: [Operand; 3],
    /// The greatest value of each counter of the update.
    pub highs: Vec<AstExpr>,
    /// The positions of j and k among the counters.
    pub counters: (usize, usize),
    /// How the update multiplies and adds.
    pub multiply_add: MultiplyAdd,
    /// C's start, alpha, and whether only C's lower triangle is made.
    pub scaling: Scaling,
    /// The element type.
    pub precision: super::Precision,
}

impl ScaledShape {
    /// The product, with `second` for a form with two products per step.
    pub(super) fn product(
        self,
        subject: &Subject<'_, '_>,
        hardware: &Hardware,
        second: Option<Box<super::SecondProduct>>,
    ) -> Product {
        let count = |hi: &AstExpr| AstExpr::Op(AstOp::Add, vec![hi.clone(), AstExpr::Int(1)]);
        let [a, b, c] = self.operands;
        let (j, k) = self.counters;
        Product {
            a,
            b,
            c,
            trips: [
                count(&self.highs[0]),
                count(&self.highs[j]),
                count(&self.highs[k]),
            ],
            blocking: Blocking::for_caches(hardware, self.precision),
            // The backend fuses `llvm.fmuladd` exactly where the target has FMA.
            fused: self.multiply_add == MultiplyAdd::FmulAdd && target_has(subject, "+fma"),
            accumulator: Accumulator::Scaled(self.scaling),
            second,
            precision: self.precision,
            target: super::recognise::kernel_target(subject),
            batch: None,
            symmetric: None,
        }
    }
}

/// C as an operand (read and written at one element, `[c_read, c_write]`), with the
/// greatest value of each counter of `update` and whether only C's lower triangle is
/// made; `first`, if any, sets each of those elements of C before the update's loops
/// reach it.
pub(super) fn c_and_first(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    builder: &ExprBuilder,
    first: Option<&Statement>,
    update: &Statement,
    [c_read, c_write]: [&Access; 2],
    j: usize,
) -> Result<(Operand, Vec<AstExpr>, bool), String> {
    let operand = |access: &Access, counters: [&str; 2], all: &[&str]| {
        let relation = &access.relation;
        product_operand(
            subject,
            scop,
            builder,
            &access.array,
            relation,
            counters,
            all,
        )
    };
    let all = ["i0", "i1", "i2"];
    let c = operand(c_read, ["i0", all[j]], &all)?;
    if operand(c_write, ["i0", all[j]], &all)? != c {
        return Err("C is written elsewhere than it is read".into());
    }
    let (highs, lower) = shape(subject, scop, builder, update, j)?;
    if let Some(first) = first.filter(|f| f.depth() == 1) {
        if lower {
            return Err("C is zeroed whole, the product makes its lower triangle".into());
        }
        check_zeroed(subject, scop, builder, first, update, &highs, j)?;
    } else if let Some(first) = first {
        let (bounds, first_lower) = shape(subject, scop, builder, first, 1)?;
        if bounds != [highs[0].clone(), highs[j].clone()] || first_lower != lower {
            return Err("C is not scaled over the product's rows and columns".into());
        }
        let written = first_write(first, &c_write.array)?;
        if operand(written, ["i0", "i1"], &["i0", "i1"])? != c {
            return Err("C is scaled elsewhere than it is updated".into());
        }
        before_update(first, update, j)?;
    }
    Ok((c, highs, lower))
}

/// Which of the update's counters is j (C's column) and which k: the outer counter is
/// i, C is indexed by i and j.
pub(super) fn counters(c_read: &Access) -> Result<(usize, usize), String> {
    let names: Vec<String> = (0..3).map(|d| format!("i{d}")).collect();
    let subscripts = function_expressions(&c_read.relation, &names)
        .map_err(|e| e.to_string())?
        .ok_or("C's subscripts are unbounded")?;
    let i = AstExpr::Id("i0".into());
    let column = match subscripts.as_slice() {
        [x, y] if *x == i => y,
        [y, x] if *x == i => y,
        _ => return Err("C is not indexed by the outer counter".into()),
    };
    match column {
        AstExpr::Id(name) if name == "i1" => Ok((1, 2)),
        AstExpr::Id(name) if name == "i2" => Ok((2, 1)),
        _ => Err("C is not indexed by two counters".into()),
    }
}

/// The first statement's write: C's element, and at most a read of it besides.
fn first_write<'s>(first: &'s Statement, c: &str) -> Result<&'s Access, String> {
    let writes: Vec<_> = first
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::MustWrite)
        .collect();
    let others = first
        .accesses
        .iter()
        .filter(|a| a.kind != AccessKind::MustWrite && (a.kind != AccessKind::Read || a.array != c))
        .count();
    match (writes.as_slice(), others, first.depth()) {
        ([write], 0, 2) if write.array == c && first.accesses.len() <= 2 => Ok(write),
        _ => Err("the first statement does not set C's element from itself".into()),
    }
}

/// The first statement runs, for each i, before the update's loops (j and k, either
/// order) or, sharing i and j with it, before its k loop.
fn before_update(first: &Statement, update: &Statement, j: usize) -> Result<(), String> {
    let (f, u) = (&first.textual_positions, &update.textual_positions);
    let ordered = f[0] == u[0] && (f[1] < u[1] || (f[1] == u[1] && j == 1 && f[2] < u[2]));
    if !ordered {
        return Err("C is not scaled before the product, in the same rows".into());
    }
    Ok(())
}

/// The greatest value of each counter of `st` (each from 0), and whether its domain is
/// the box of those values (false) or the box's lower triangle, where its counter `j`
/// is at most its counter 0 (true: syrk's C).
fn shape(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    builder: &ExprBuilder,
    st: &Statement,
    j: usize,
) -> Result<(Vec<AstExpr>, bool), String> {
    let isl = |e: crate::isl::IslError| e.to_string();
    let (highs, boxed) = spanned_box(subject, scop, builder, st)?;
    if boxed.is_subset(&st.domain).map_err(isl)? {
        return Ok((highs, false));
    }
    let n = st.domain.n_dims().map_err(isl)?;
    let counters = Tuple::counters(Some(&st.name), "i", n);
    let difference = [AffineExpr::Input(0).minus(AffineExpr::Input(j))];
    let not_negative = Set::universe(subject.ctx, &scop.params, &Tuple::unnamed(None, 1))
        .and_then(|s| s.lower_bound_dim(0, 0));
    let below = Map::from_affine(subject.ctx, &scop.params, &counters, None, &difference)
        .and_then(|m| m.intersect_range(not_negative?))
        .and_then(|m| m.domain())
        .map_err(isl)?;
    let triangle = boxed.intersect(below).map_err(isl)?;
    if triangle.is_equal(&st.domain).map_err(isl)? {
        Ok((highs, true))
    } else {
        Err(format!(
            "the domain of {} is neither a box nor its lower triangle",
            st.name
        ))
    }
}

/// How the update's steps multiply and add, where its sums start (C's element as the
/// first statement leaves it, C * beta or +0.0, or as it was) and alpha.
fn arithmetic(
    subject: &Subject<'_, '_>,
    first: Option<&Statement>,
    update: &Statement,
    parts: &Parts<'_>,
) -> Result<(MultiplyAdd, Start, Option<Factor>), String> {
    let region = subject.region;
    let ir = |st: &Statement| region.ir.statement(&st.name);
    let st = ir(update)?;
    let first = first.map(ir).transpose()?;
    let c = &parts.c_write.array;
    let (sum, step, start) = update_chain(region, st, first, c)?;
    // A and B one array (syrk's A * A^T): each load is told by its access's text.
    let one_array = parts.a.array == parts.b.array;
    let is_access = |v: LLVMValueRef, access: &Access| {
        !one_array
            || as_instruction(v)
                .is_some_and(|i| subject.fa.instruction_text(i) == access.instruction)
    };
    let b_loads = accesses_of(region, st, &parts.b.array, InstructionOpcode::Load);
    let b = single(
        b_loads
            .into_iter()
            .filter(|v| is_access(*v, parts.b))
            .collect(),
    )?;
    let x = step_factors(step, sum)
        .and_then(|[p, q]| {
            if p == b {
                Some(q)
            } else if q == b {
                Some(p)
            } else {
                None
            }
        })
        .ok_or("the step does not multiply by B's element")?;
    let is_a = |v: LLVMValueRef| is_access(v, parts.a) && is_load(region, v, &parts.a.array);
    let alpha = a_factor(region, x, &is_a)?;
    let multiply_add = step_kind(step, sum, [x, b])?;
    Ok((multiply_add, start, alpha))
}

/// C's element before the step (the register's phi or C's load), the step that makes
/// it anew and where its sum starts, from C kept in a register across k or loaded and
/// stored in each step.
pub(super) fn update_chain<'f>(
    region: &DetectedRegion<'f>,
    st: &StatementIr<'f>,
    first: Option<&StatementIr<'f>>,
    c: &str,
) -> Result<(LLVMValueRef, InstructionValue<'f>, Start), String> {
    match promoted_chain(region, st)? {
        Some((phi, pointer, start)) => {
            let step = step_of(phi, st)?;
            if !accesses_of(region, st, c, InstructionOpcode::Load).is_empty() {
                return Err("C is loaded in the k loop".into());
            }
            let stores = accesses_of(region, st, c, InstructionOpcode::Store);
            if !stores
                .iter()
                .all(|s| stores_at(*s, step.as_value_ref(), pointer))
            {
                return Err("C is stored in the k loop other than its step".into());
            }
            let start = promoted_start(region, first, start, pointer)?;
            Ok((phi.as_value_ref(), step, start))
        }
        None => {
            let load = single(accesses_of(region, st, c, InstructionOpcode::Load))?;
            let store = single(accesses_of(region, st, c, InstructionOpcode::Store))?;
            let stored = as_instruction(store).and_then(|s| operand(s, 0));
            let step = stored
                .and_then(as_instruction)
                .ok_or("C's new value is not an instruction")?;
            let same_element = as_instruction(load).and_then(pointer_operand)
                == as_instruction(store).and_then(pointer_operand);
            if !same_element {
                return Err("C is stored elsewhere than it is loaded".into());
            }
            let start = match first {
                Some(first) => stored_start(region, first, c)?,
                None => Start::C,
            };
            Ok((load, step, start))
        }
    }
}

/// Whether `v` is a load of `array`.
pub(super) fn is_load(region: &DetectedRegion<'_>, v: LLVMValueRef, array: &str) -> bool {
    as_instruction(v).is_some_and(|i| i.get_opcode() == InstructionOpcode::Load)
        && region.ir.memory_arrays.get(&v).is_some_and(|n| n == array)
}

/// Whether `store` stores `value` at `pointer`.
fn stores_at(store: LLVMValueRef, value: LLVMValueRef, pointer: LLVMValueRef) -> bool {
    as_instruction(store)
        .is_some_and(|s| operand(s, 0) == Some(value) && pointer_operand(s) == Some(pointer))
}

/// Where the register that keeps C's element across k starts: its load (no first
/// statement), +0.0 (the first statement sets it) or its load times beta (the first
/// statement scales it).
fn promoted_start(
    region: &DetectedRegion<'_>,
    first: Option<&StatementIr<'_>>,
    start: LLVMValueRef,
    pointer: LLVMValueRef,
) -> Result<Start, String> {
    let Some(first) = first else {
        return if is_load_of(start, pointer) {
            Ok(Start::C)
        } else {
            Err("C's register does not start at its element".into())
        };
    };
    // After a memset of zeros C's element is +0.0, loaded or forwarded.
    if zeroing_memset(first) && is_load_of(start, pointer) {
        return Ok(Start::Zero);
    }
    if is_positive_zero(start) {
        return Ok(Start::Zero);
    }
    let made_in_first = as_instruction(start)
        .and_then(|i| i.get_parent())
        .is_some_and(|b| first.blocks.contains(&b));
    match scale_of(region, start, |load| is_load_of(load, pointer)) {
        Some(beta) if made_in_first => Ok(Start::ScaledC(beta)),
        _ => Err("C's register does not start at C * beta".into()),
    }
}

/// What the first statement stores into C's element: +0.0, or the element times beta.
fn stored_start(
    region: &DetectedRegion<'_>,
    first: &StatementIr<'_>,
    c: &str,
) -> Result<Start, String> {
    if zeroing_memset(first) {
        return Ok(Start::Zero);
    }
    let store = single(accesses_of(region, first, c, InstructionOpcode::Store))?;
    let store = as_instruction(store).ok_or("C's store is not an instruction")?;
    let value = operand(store, 0).ok_or("C's store has no value")?;
    if is_positive_zero(value) {
        return Ok(Start::Zero);
    }
    let pointer = pointer_operand(store).ok_or("C's store has no address")?;
    let load = single(accesses_of(region, first, c, InstructionOpcode::Load))?;
    match scale_of(region, value, |v| v == load && is_load_of(v, pointer)) {
        Some(beta) => Ok(Start::ScaledC(beta)),
        None => Err("the first statement does not store C * beta".into()),
    }
}

/// The factor that multiplies B's element in a step: A's element itself (`is_a`), or
/// `alpha * A element` (either order) with alpha made before the region; alpha.
fn a_factor(
    region: &DetectedRegion<'_>,
    x: LLVMValueRef,
    is_a: &dyn Fn(LLVMValueRef) -> bool,
) -> Result<Option<Factor>, String> {
    if is_a(x) {
        return Ok(None);
    }
    scale_of(region, x, is_a)
        .map(Some)
        .ok_or_else(|| "the step's factor is not alpha * A's element".into())
}

/// The two factors of a step of `sum`: `llvm.fmuladd(p, q, sum)` or `sum + p * q`.
fn step_factors(step: InstructionValue<'_>, sum: LLVMValueRef) -> Option<[LLVMValueRef; 2]> {
    if called_function_name(step).is_some_and(is_fmuladd) {
        return Some([operand(step, 0)?, operand(step, 1)?]);
    }
    if step.get_opcode() != InstructionOpcode::FAdd {
        return None;
    }
    let product = match [operand(step, 0)?, operand(step, 1)?] {
        [s, p] | [p, s] if s == sum => as_instruction(p)?,
        _ => return None,
    };
    (product.get_opcode() == InstructionOpcode::FMul)
        .then(|| Some([operand(product, 0)?, operand(product, 1)?]))
        .flatten()
}
