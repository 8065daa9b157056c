//! Recognition of two products per step, as PolyBench's syr2k writes them:
//!
//! ```c
//! for (i) { for (j <= i) C[i][j] *= beta;
//!           for (k) for (j <= i) C[i][j] += A[j][k]*alpha*B[i][k] + B[j][k]*alpha*A[i][k]; }
//! ```
//!
//! clang -O3 makes each step `C + fmuladd(alpha*A[j][k], B[i][k], (alpha*B[j][k]) *
//! A[i][k])`: the first product fused where the target has FMA, the second rounded, their
//! sum added to C. The kernel's two-term variant makes exactly those operations per
//! element (each factor scaled by alpha when packed, as the loop scales it before it
//! multiplies), so its bytes are the loop's. Each product must pair a factor indexed by
//! (i, k) with one indexed by (k, j); the statements around it are checked as for the
//! scaled form (`scaled::c_and_first`: C scaled or zeroed first, box or lower triangle).

use inkwell::values::{InstructionOpcode, InstructionValue};

use crate::isl::ast::ExprBuilder;
use crate::llvm::ir::{as_instruction, called_function_name, operand};
use crate::llvm::LLVMValueRef;
use crate::model::{Access, AccessKind, Array, Scop, Statement};
use crate::transform::hardware::Hardware;
use crate::transform::Subject;

use super::arithmetic::{has_fast_math, is_fmuladd, made_before, MultiplyAdd};
use super::recognise::operand as product_operand;
use super::scaled::{c_and_first, counters, is_load, update_chain, ScaledShape};
use super::{common_precision, Factor, Operand, Precision, Product, Scaling, SecondProduct, Start};

/// A factor of a step: the read it loads, and whether alpha multiplies it first.
#[derive(Clone, Copy)]
struct Factored {
    read: usize,
    scaled: bool,
}

/// What the update's IR says of its steps.
struct Steps {
    /// How the first product is added.
    multiply_add: MultiplyAdd,
    /// Where each sum starts.
    start: Start,
    /// What the scaled factors are multiplied by.
    alpha: Option<Factor>,
    /// The two products' factors, the fused one first.
    pairs: [[Factored; 2]; 2],
}

/// The product of `update` (three loops deep, two products per step), after `first`
/// when there is one, or why it is not one. The target has been checked.
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
    let (c_read, c_write, reads) = accesses(scop, update)?;
    let (j, k) = counters(c_read)?;
    let builder = ExprBuilder::new(&scop.context).map_err(|e| e.to_string())?;
    let c_accesses = [c_read, c_write];
    let (c, highs, lower) = c_and_first(subject, scop, &builder, first, update, c_accesses, j)?;
    let Steps {
        multiply_add,
        start,
        alpha,
        pairs,
    } = arithmetic(subject, first, update, c_write, &reads)?;
    let all = ["i0", "i1", "i2"];
    // Each product's factor indexed by (i, k) is its A, the one by (k, j) its B.
    let operands = |[x, y]: [Factored; 2]| -> Result<([Operand; 2], [bool; 2]), String> {
        let as_operand = |f: Factored, counters: [&str; 2]| {
            let access = reads[f.read];
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
        let row = ["i0", all[k]];
        let column = [all[k], all[j]];
        if let (Ok(a), Ok(b)) = (as_operand(x, row), as_operand(y, column)) {
            return Ok(([a, b], [x.scaled, y.scaled]));
        }
        match (as_operand(y, row), as_operand(x, column)) {
            (Ok(a), Ok(b)) => Ok(([a, b], [y.scaled, x.scaled])),
            _ => Err("a product does not pair a row of A with a column of B".into()),
        }
    };
    let ([a, b], [scaled_a, scaled_b]) = operands(pairs[0])?;
    let ([a2, b2], [scaled_a2, scaled_b2]) = operands(pairs[1])?;
    let arrays = [c_read, c_write].into_iter().chain(reads.iter().copied());
    let names: Vec<&str> = arrays.map(|x| x.array.as_str()).collect();
    let precision = common_precision(scop, &names)?;
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
    let second = SecondProduct {
        a: a2,
        b: b2,
        scaled: [scaled_a, scaled_b, scaled_a2, scaled_b2],
    };
    Ok(shape.product(subject, hardware, Some(Box::new(second))))
}

/// The update's read and write of C and its four other reads, of two-dimensional
/// arrays of doubles or floats; nothing else.
fn accesses<'s>(
    scop: &'s Scop,
    update: &'s Statement,
) -> Result<(&'s Access, &'s Access, Vec<&'s Access>), String> {
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
    let writes: Vec<&Access> = update
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::MustWrite)
        .collect();
    let [c_write] = writes.as_slice() else {
        return Err("the statement does not write one element".into());
    };
    let (c_reads, reads): (Vec<&Access>, Vec<&Access>) = update
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Read)
        .partition(|a| a.array == c_write.array);
    match (c_reads.as_slice(), reads.len(), update.accesses.len()) {
        ([c_read], 4, 6) => Ok((c_read, c_write, reads)),
        _ => Err("the statement is not C updated from four elements".into()),
    }
}

/// How the update's steps multiply and add, where its sums start, alpha, and the two
/// products' factors (the fused one first).
fn arithmetic(
    subject: &Subject<'_, '_>,
    first: Option<&Statement>,
    update: &Statement,
    c_write: &Access,
    reads: &[&Access],
) -> Result<Steps, String> {
    let region = subject.region;
    let ir = |st: &Statement| {
        region
            .ir
            .statements
            .iter()
            .find(|s| s.name == st.name)
            .ok_or_else(|| format!("no IR for statement {}", st.name))
    };
    let st = ir(update)?;
    let first = first.map(ir).transpose()?;
    let (sum, step, start) = update_chain(region, st, first, &c_write.array)?;
    let (kind, [p, q]) = terms(step, sum).ok_or("the step is not C + two products")?;
    let mut alphas = Vec::new();
    let mut used = Vec::new();
    let mut factor = |v: LLVMValueRef| -> Result<Factored, String> {
        let (load, alpha) = loaded(subject, v)?;
        let text = as_instruction(load).map(|i| subject.fa.instruction_text(i));
        let read = reads
            .iter()
            .position(|a| Some(&a.instruction) == text.as_ref())
            .filter(|r| !used.contains(r))
            .ok_or("a factor is not one of the statement's reads")?;
        used.push(read);
        alphas.extend(alpha);
        Ok(Factored {
            read,
            scaled: alpha.is_some(),
        })
    };
    let pairs = [
        [factor(p[0])?, factor(p[1])?],
        [factor(q[0])?, factor(q[1])?],
    ];
    let alpha = alphas.first().copied();
    if alphas.iter().any(|a| Some(*a) != alpha) {
        return Err("the factors are scaled by different values".into());
    }
    Ok(Steps {
        multiply_add: kind,
        start,
        alpha,
        pairs,
    })
}

/// A factor's load, and the value made before the region that multiplies it, if any
/// (`alpha * load` or `load * alpha`, an `fmul` without fast-math flags).
fn loaded(
    subject: &Subject<'_, '_>,
    v: LLVMValueRef,
) -> Result<(LLVMValueRef, Option<Factor>), String> {
    let region = subject.region;
    let is_read = |x: LLVMValueRef| {
        region
            .ir
            .memory_arrays
            .get(&x)
            .is_some_and(|array| is_load(region, x, array))
    };
    if is_read(v) {
        return Ok((v, None));
    }
    let product = fmul(v).ok_or("a factor is neither a load nor alpha times one")?;
    match product {
        [f, x] | [x, f] if is_read(x) && made_before(region, f) => Ok((x, Some(f))),
        _ => Err("a factor is neither a load nor alpha times one".into()),
    }
}

/// The operands of `v` if it is an `fmul` without fast-math flags.
fn fmul(v: LLVMValueRef) -> Option<[LLVMValueRef; 2]> {
    let product = as_instruction(v)
        .filter(|i| i.get_opcode() == InstructionOpcode::FMul && !has_fast_math(*i))?;
    Some([operand(product, 0)?, operand(product, 1)?])
}

/// The step `sum + t` (either order, no fast-math flags) with `t` two products:
/// `llvm.fmuladd(p0, p1, q0 * q1)` or `p0 * p1 + q0 * q1`.
fn terms(
    step: InstructionValue<'_>,
    sum: LLVMValueRef,
) -> Option<(MultiplyAdd, [[LLVMValueRef; 2]; 2])> {
    if step.get_opcode() != InstructionOpcode::FAdd || has_fast_math(step) {
        return None;
    }
    let t = match [operand(step, 0)?, operand(step, 1)?] {
        [s, t] | [t, s] if s == sum => as_instruction(t)?,
        _ => return None,
    };
    if has_fast_math(t) {
        return None;
    }
    if called_function_name(t).is_some_and(is_fmuladd) {
        let first = [operand(t, 0)?, operand(t, 1)?];
        return Some((MultiplyAdd::FmulAdd, [first, fmul(operand(t, 2)?)?]));
    }
    if t.get_opcode() != InstructionOpcode::FAdd {
        return None;
    }
    let pair = [fmul(operand(t, 0)?)?, fmul(operand(t, 1)?)?];
    Some((MultiplyAdd::Separate, pair))
}
