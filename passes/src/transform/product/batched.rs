//! Recognition of the batched product as PolyBench's doitgen writes it, each row of a
//! three-dimensional A replaced by its product with a matrix B through a vector `sum`:
//!
//! ```c
//! for (r) for (q) {
//!   for (p) { sum[p] = 0.0; for (s) sum[p] += A[r][q][s] * B[s][p]; }
//!   for (p) A[r][q][p] = sum[p];
//! }
//! ```
//!
//! For each r the rows q of A times B are a matrix product whose sums start at +0.0
//! and take their steps in s order, fused where the loop's `llvm.fmuladd` is: the
//! kernel's batched variant makes it in place with the packed product (sums from +0.0,
//! stored; each block of rows packed whole before any of it is stored) and leaves
//! `sum` as the last row's, so the bytes are the loop's. Relies on the model (box domains, the three statements in
//! this order in the loops r and q, the subscripts the counters alone, A, B and `sum`
//! distinct) and on the IR for the arithmetic (`scaled::update_chain`).

use inkwell::values::InstructionOpcode;

use crate::isl::ast::{function_expressions, AstExpr, AstOp, ExprBuilder};
use crate::llvm::ir::{as_instruction, operand as instruction_operand};
use crate::model::{Access, AccessKind, Scop, Statement};
use crate::transform::hardware::Hardware;
use crate::transform::Subject;

use super::arithmetic::{accesses_of, single, step_kind, MultiplyAdd};
use super::recognise::{box_bounds, kernel_target, operand as product_operand, target_has};
use super::scaled::update_chain;
use super::{common_precision, Accumulator, Blocking, Operand, Product, Scaling, Start};

/// What a batched product adds to its `Product` (whose A is indexed by (q, s), B by
/// (s, p), C is A written back, trips Q, N and K).
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    /// The trip count of r.
    pub batches: AstExpr,
    /// A's stride along r, in elements.
    pub batch_stride: AstExpr,
    /// The vector the loop sums into (stride 1), left as the last row's.
    pub sum: String,
    /// Its name in a remark.
    pub sum_shown: String,
}

/// The accesses of the three statements, by their part.
struct Parts<'s> {
    sum: &'s str,
    a_read: &'s Access,
    b_read: &'s Access,
    a_write: &'s Access,
}

/// The batched product of `[init, update, copy]`, or why it is not one.
pub(super) fn recognise(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    [init, update, copy]: [&Statement; 3],
    hardware: &Hardware,
) -> Result<Product, String> {
    if (init.depth(), update.depth(), copy.depth()) != (3, 4, 3) {
        return Err("not statements 3, 4 and 3 loops deep".into());
    }
    let parts = parts(scop, init, update, copy)?;
    in_order(subject, init, update, copy)?;
    let builder = ExprBuilder::new(&scop.context).map_err(|e| e.to_string())?;
    let highs = box_bounds(subject, scop, &builder, update)?;
    let same = |st: &Statement| box_bounds(subject, scop, &builder, st).map(|h| h == highs[..3]);
    if !same(init)? || !same(copy)? {
        return Err("the statements' r, q and p do not run alike".into());
    }
    subscripts(&parts)?;
    let multiply_add = arithmetic(subject, &parts, init, update, copy)?;
    let all = ["i0", "i1", "i2", "i3"];
    let b = product_operand(
        subject,
        scop,
        &builder,
        &parts.b_read.array,
        &parts.b_read.relation,
        ["i3", "i2"],
        &all,
    )?;
    let (a, batch_stride) = rows_of(subject, scop, &builder, &parts.a_read.array)?;
    let arrays = [parts.a_read.array.as_str(), &parts.b_read.array, parts.sum];
    let precision = common_precision(scop, &arrays)?;
    let count = |hi: &AstExpr| AstExpr::Op(AstOp::Add, vec![hi.clone(), AstExpr::Int(1)]);
    Ok(Product {
        a: a.clone(),
        b,
        c: a,
        trips: [count(&highs[1]), count(&highs[2]), count(&highs[3])],
        blocking: Blocking::for_caches(hardware, precision),
        fused: multiply_add == MultiplyAdd::FmulAdd && target_has(subject, "+fma"),
        accumulator: Accumulator::Scaled(Scaling {
            start: Start::Zero,
            alpha: None,
            lower: false,
        }),
        second: None,
        precision,
        target: kernel_target(subject),
        batch: Some(Box::new(Batch {
            batches: count(&highs[0]),
            batch_stride,
            sum: parts.sum.to_string(),
            sum_shown: subject.source_name(parts.sum),
        })),
        symmetric: None,
    })
}

/// `init` sets an element of a one-dimensional array (`sum`) and nothing else;
/// `update` reads and writes it and reads two other arrays; `copy` reads it and
/// writes the first of them (A).
fn parts<'s>(
    scop: &'s Scop,
    init: &'s Statement,
    update: &'s Statement,
    copy: &'s Statement,
) -> Result<Parts<'s>, String> {
    let vector = |name: &str| {
        scop.arrays
            .iter()
            .any(|a| a.name == name && !a.is_scalar && a.rank() == 1)
    };
    let [set] = init.accesses.as_slice() else {
        return Err("the first statement makes other accesses than setting sum".into());
    };
    if set.kind != AccessKind::MustWrite || !vector(&set.array) {
        return Err("the first statement does not set an element of a vector".into());
    }
    let sum = set.array.as_str();
    let of = |st: &'s Statement, kind: AccessKind, on_sum: bool| -> Vec<&'s Access> {
        st.accesses
            .iter()
            .filter(|a| a.kind == kind && (a.array == sum) == on_sum)
            .collect()
    };
    let (reads, sums) = (
        of(update, AccessKind::Read, false),
        of(update, AccessKind::Read, true),
    );
    let ([x, y], [_], [_], 4) = (
        reads.as_slice(),
        sums.as_slice(),
        of(update, AccessKind::MustWrite, true).as_slice(),
        update.accesses.len(),
    ) else {
        return Err("the s loop does not update sum from two arrays".into());
    };
    let writes = of(copy, AccessKind::MustWrite, false);
    let ([a_write], [_], 2) = (
        writes.as_slice(),
        of(copy, AccessKind::Read, true).as_slice(),
        copy.accesses.len(),
    ) else {
        return Err("the last statement does not copy sum into an array".into());
    };
    let (a_read, b_read) = if x.array == a_write.array {
        (*x, *y)
    } else if y.array == a_write.array {
        (*y, *x)
    } else {
        return Err("sum is not copied into the array it is made from".into());
    };
    if a_read.array == b_read.array {
        return Err("A and B are one array".into());
    }
    Ok(Parts {
        sum,
        a_read,
        b_read,
        a_write,
    })
}

/// The statements share the loops r and q: the first and the update also p (the first
/// before the s loop), the copy's p loop comes after.
fn in_order(
    subject: &Subject<'_, '_>,
    init: &Statement,
    update: &Statement,
    copy: &Statement,
) -> Result<(), String> {
    let ir = &subject.region.ir;
    let loops = |st: &Statement| ir.statement(&st.name).map(|s| s.loops.clone());
    let (l0, l1, l2) = (loops(init)?, loops(update)?, loops(copy)?);
    if l0 != l1[..3] || l2[..2] != l1[..2] || l2[2] == l1[2] {
        return Err("the statements are not in the loops r, q and p".into());
    }
    let (p0, p1, p2) = (
        &init.textual_positions,
        &update.textual_positions,
        &copy.textual_positions,
    );
    let ordered = p0.len() == 4
        && p1.len() == 5
        && p2.len() == 4
        && p0[..3] == p1[..3]
        && p0[3] < p1[3]
        && p2[..2] == p1[..2]
        && p2[2] > p1[2];
    if !ordered {
        return Err("the statements are not in program order".into());
    }
    Ok(())
}

/// The subscripts: `A[r][q][s]` and `B[s][p]` read, `sum[p]` throughout, `A[r][q][p]`
/// written.
fn subscripts(parts: &Parts<'_>) -> Result<(), String> {
    let names = |n: usize| (0..n).map(|d| format!("i{d}")).collect::<Vec<_>>();
    let ids = |ids: &[&str]| {
        ids.iter()
            .map(|s| AstExpr::Id(s.to_string()))
            .collect::<Vec<_>>()
    };
    let is = |access: &Access, depth: usize, wanted: &[&str]| matches!(function_expressions(&access.relation, &names(depth)), Ok(Some(subs)) if subs == ids(wanted));
    if !is(parts.a_read, 4, &["i0", "i1", "i3"]) || !is(parts.a_write, 3, &["i0", "i1", "i2"]) {
        return Err("A is not read at [r][q][s] and written at [r][q][p]".into());
    }
    Ok(())
}

/// How the update's steps multiply and add; the first statement sets sum to +0.0, the
/// copy stores sum's element as it loads it.
fn arithmetic(
    subject: &Subject<'_, '_>,
    parts: &Parts<'_>,
    init: &Statement,
    update: &Statement,
    copy: &Statement,
) -> Result<MultiplyAdd, String> {
    let region = subject.region;
    let ir = |st: &Statement| {
        region
            .ir
            .statements
            .iter()
            .find(|s| s.name == st.name)
            .ok_or_else(|| format!("no IR for statement {}", st.name))
    };
    let (sum, step, start) = update_chain(region, ir(update)?, Some(ir(init)?), parts.sum)?;
    if start != Start::Zero {
        return Err("sum does not start at +0.0".into());
    }
    let load = |array: &str| {
        single(accesses_of(
            region,
            ir(update)?,
            array,
            InstructionOpcode::Load,
        ))
    };
    let multiply_add = step_kind(
        step,
        sum,
        [load(&parts.a_read.array)?, load(&parts.b_read.array)?],
    )?;
    let copy = ir(copy)?;
    let loaded = single(accesses_of(
        region,
        copy,
        parts.sum,
        InstructionOpcode::Load,
    ))?;
    let stored = single(accesses_of(
        region,
        copy,
        &parts.a_write.array,
        InstructionOpcode::Store,
    ))?;
    if as_instruction(stored).and_then(|s| instruction_operand(s, 0)) != Some(loaded) {
        return Err("A is not given sum's element as it is".into());
    }
    Ok(multiply_add)
}

/// A (three-dimensional) as the product's operand indexed by (q, s): its row stride
/// (the last size) and column stride 1; and its stride along r (the two sizes).
fn rows_of(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    builder: &ExprBuilder,
    name: &str,
) -> Result<(Operand, AstExpr), String> {
    let array = scop
        .arrays
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("no array {name}"))?;
    let [q_size, s_size] = array.inner_size_values.as_slice() else {
        return Err(format!("{name} is not three-dimensional"));
    };
    let size = |set| {
        builder
            .bounds(set)
            .map_err(|e| e.to_string())?
            .map(|(value, _)| value)
            .ok_or_else(|| format!("a size of {name} is unknown"))
    };
    let (rows, columns) = (size(q_size)?, size(s_size)?);
    let operand = Operand {
        array: name.to_string(),
        shown: subject.source_name(name),
        first_stride: columns.clone(),
        second_stride: AstExpr::Int(1),
        swapped: false,
    };
    Ok((operand, AstExpr::Op(AstOp::Mul, vec![rows, columns])))
}
