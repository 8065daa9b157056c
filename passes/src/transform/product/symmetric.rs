//! Recognition of the symmetric product as PolyBench's symm writes it (A symmetric,
//! its lower triangle read; B and C M x N):
//!
//! ```c
//! for (i < M) for (j < N) {
//!   temp2 = 0;
//!   for (k < i) { C[k][j] += alpha * B[i][j] * A[i][k]; temp2 += B[k][j] * A[i][k]; }
//!   C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
//! }
//! ```
//!
//! (clang peels the row i = 0, whose k loop is empty, into a statement of its own,
//! `alpha * 0.0` folded when alpha is a constant). A and B are only read, and C(r,j)
//! is written by the last statement at i = r and by the k loop at every i > r, never
//! before (k < i): so each element's operations are, in order, `C(r,j)` set from its
//! old value and `temp2(r,j)` (a dot product of row r of A's strict lower triangle with
//! column j of B, from +0.0 in k order), then its updates `fma(alpha * B(i,j), A(i,r),
//! C(r,j))` for i = r+1, ..., M-1. The kernel's symmetric variant
//! (`passes/kernels/products.c`, `POLYRUST_SYMM`) makes exactly those, in that order
//! per element, so its bytes are the loop's. The model gives the statements, their
//! order, domains (the k loop's exactly `0 <= k < i`) and subscripts; the IR the
//! arithmetic (`llvm.fmuladd` everywhere, or `fmul` and `fadd` everywhere, no
//! fast-math flags); alpha and beta are values made before the region.

use inkwell::values::{InstructionOpcode, InstructionValue};

use crate::isl::ast::{function_expressions, AstExpr, AstOp, ExprBuilder};
use crate::isl::{AffineExpr, Map, Set, Tuple};
use crate::llvm::ir::{
    as_instruction, called_function_name, operand, phi_incoming, pointer_operand,
};
use crate::llvm::LLVMValueRef;
use crate::model::{Access, AccessKind, Scop, Statement};
use crate::transform::hardware::Hardware;
use crate::transform::Subject;

use super::arithmetic::{
    accesses_of, has_fast_math, is_fmuladd, is_positive_zero, made_before, single, sum_update,
    MultiplyAdd,
};
use super::recognise::{kernel_target, operand as product_operand, target_has};
use super::{common_precision, Accumulator, Blocking, Factor, Product, Start};

/// What a symmetric product adds to its `Product` (A indexed by (i, k), B by (k, j), C
/// by (i, j), trips M, N and M).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symmetric {
    /// What B's elements and the dot products are multiplied by.
    pub alpha: Factor,
    /// What C's old elements are multiplied by.
    pub beta: Factor,
}

/// The arrays of the statements, by their part, and the two scalars of the dot product.
struct Parts<'s> {
    a: &'s str,
    b: &'s str,
    c: &'s str,
    sum: &'s str,
    out: &'s str,
}

/// The symmetric product of `[init, update, last]` and `first` (the peeled row 0),
/// or why it is not one. The target has been checked.
pub(super) fn recognise(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    [init, update, last]: [&Statement; 3],
    first: Option<&Statement>,
    hardware: &Hardware,
) -> Result<Product, String> {
    let depths = (init.depth(), update.depth(), last.depth());
    if depths != (2, 3, 2) || first.is_some_and(|f| f.depth() != 2) {
        return Err("not statements 2, 3 and 2 loops deep".into());
    }
    let parts = parts(scop, init, update, last, first)?;
    in_order(subject, [init, update, last], first)?;
    let builder = ExprBuilder::new(&scop.context).map_err(|e| e.to_string())?;
    let [m, n] = domains(subject, scop, &builder, [init, update, last], first)?;
    let (multiply_add, symmetric) =
        arithmetic::check(subject, &parts, [init, update, last], first)?;
    let all = ["i0", "i1", "i2"];
    let operand = |array: &str, counters: [&str; 2]| {
        let access = update
            .accesses
            .iter()
            .find(|x| {
                x.array == array && subscripts(x, 3) == Some(counters.map(String::from).to_vec())
            })
            .ok_or_else(|| format!("{array} is not read at [{}][{}]", counters[0], counters[1]))?;
        product_operand(
            subject,
            scop,
            &builder,
            array,
            &access.relation,
            counters,
            &all,
        )
    };
    let a = operand(parts.a, ["i0", "i2"])?;
    let b = operand(parts.b, ["i2", "i1"])?;
    let c = operand(parts.c, ["i2", "i1"])?;
    if operand(parts.b, ["i0", "i1"])? != b {
        return Err("B is read by rows of i otherwise than of k".into());
    }
    let precision = common_precision(scop, &[parts.a, parts.b, parts.c, parts.sum])?;
    let count = |hi: AstExpr| AstExpr::Op(AstOp::Add, vec![hi, AstExpr::Int(1)]);
    let (m, n) = (count(m), count(n));
    Ok(Product {
        a,
        b,
        c,
        trips: [m.clone(), n, m],
        blocking: Blocking::for_caches(hardware, precision),
        // The backend fuses `llvm.fmuladd` exactly where the target has FMA.
        fused: multiply_add == MultiplyAdd::FmulAdd && target_has(subject, "+fma"),
        accumulator: Accumulator::Scaled(super::Scaling {
            start: Start::ScaledC(symmetric.beta),
            alpha: Some(symmetric.alpha),
            lower: false,
        }),
        second: None,
        precision,
        target: kernel_target(subject),
        batch: None,
        symmetric: Some(symmetric),
    })
}

/// The counters of `access` (of a statement `depth` loops deep) that are its
/// subscripts, each a counter alone; None otherwise.
fn subscripts(access: &Access, depth: usize) -> Option<Vec<String>> {
    let names: Vec<String> = (0..depth).map(|d| format!("i{d}")).collect();
    let subs = function_expressions(&access.relation, &names).ok()??;
    subs.into_iter()
        .map(|s| match s {
            AstExpr::Id(name) => Some(name),
            _ => None,
        })
        .collect()
}

/// The arrays by their part: `init` sets a scalar (the sum); the update reads and
/// writes it and writes another (its way out), reads A at [i][k], B at [i][j] and
/// [k][j], and updates C at [k][j]; the last statement (and the first row's) updates C
/// at [i][j] from B at [i][j], A at [i][i] (and the sum's way out). Nothing else.
fn parts<'s>(
    scop: &'s Scop,
    init: &'s Statement,
    update: &'s Statement,
    last: &'s Statement,
    first: Option<&'s Statement>,
) -> Result<Parts<'s>, String> {
    let array = |name: &str| scop.arrays.iter().find(|a| a.name == name);
    let scalar = |name: &str| array(name).is_some_and(|a| a.is_scalar);
    let matrix = |name: &str| array(name).is_some_and(|a| !a.is_scalar && a.rank() == 2);
    let [set] = init.accesses.as_slice() else {
        return Err("the first statement makes other accesses than setting the sum".into());
    };
    if set.kind != AccessKind::MustWrite || !scalar(&set.array) {
        return Err("the first statement does not set a scalar".into());
    }
    let sum = set.array.as_str();
    let written: Vec<&Access> = update
        .accesses
        .iter()
        .filter(|x| x.kind == AccessKind::MustWrite && matrix(&x.array))
        .collect();
    let [c_write] = written.as_slice() else {
        return Err("the k loop does not write one matrix".into());
    };
    let c = c_write.array.as_str();
    let out = update
        .accesses
        .iter()
        .find(|x| x.kind == AccessKind::MustWrite && x.array != sum && scalar(&x.array))
        .ok_or("the k loop's sum does not leave it")?
        .array
        .as_str();
    let a = update
        .accesses
        .iter()
        .find(|x| x.array != c && matrix(&x.array) && subscripts(x, 3) == Some(ids(&["i0", "i2"])))
        .ok_or("the k loop does not read A[i][k]")?
        .array
        .as_str();
    let b = update
        .accesses
        .iter()
        .find(|x| x.array != c && x.array != a && matrix(&x.array))
        .ok_or("the k loop does not read B")?
        .array
        .as_str();
    let parts = Parts { a, b, c, sum, out };
    let update_reads: &[(&str, &[&str])] = &[
        (a, &["i0", "i2"]),
        (b, &["i0", "i1"]),
        (b, &["i2", "i1"]),
        (c, &["i2", "i1"]),
    ];
    only(
        update,
        3,
        &parts,
        update_reads,
        (c, &["i2", "i1"]),
        &[sum],
        &[sum, out],
    )?;
    let last_reads: &[(&str, &[&str])] =
        &[(a, &["i0", "i0"]), (b, &["i0", "i1"]), (c, &["i0", "i1"])];
    only(last, 2, &parts, last_reads, (c, &["i0", "i1"]), &[out], &[])?;
    if let Some(first) = first {
        only(first, 2, &parts, last_reads, (c, &["i0", "i1"]), &[], &[])?;
    }
    Ok(parts)
}

/// `names` as owned strings.
fn ids(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// `st` (`depth` loops deep) makes each of the matrix reads `reads` (array and
/// subscripts) at least once and no other, writes the matrix element `write` once, and
/// reads and writes only the scalars `scalar_reads` and `scalar_writes`, each once.
fn only(
    st: &Statement,
    depth: usize,
    parts: &Parts<'_>,
    reads: &[(&str, &[&str])],
    write: (&str, &[&str]),
    scalar_reads: &[&str],
    scalar_writes: &[&str],
) -> Result<(), String> {
    let is_scalar = |name: &str| name == parts.sum || name == parts.out;
    let matches = |x: &Access, (array, subs): (&str, &[&str])| {
        x.array == array && subscripts(x, depth) == Some(ids(subs))
    };
    let mut seen = vec![false; reads.len()];
    let (mut writes, mut scalars_read, mut scalars_written) = (0, Vec::new(), Vec::new());
    for x in &st.accesses {
        match x.kind {
            AccessKind::Read if is_scalar(&x.array) => scalars_read.push(x.array.as_str()),
            AccessKind::MustWrite if is_scalar(&x.array) => scalars_written.push(x.array.as_str()),
            AccessKind::Read => {
                let at = reads.iter().position(|r| matches(x, *r));
                let at = at.ok_or_else(|| format!("{} reads {} elsewhere", st.name, x.array))?;
                seen[at] = true;
            }
            AccessKind::MustWrite if matches(x, write) => writes += 1,
            _ => return Err(format!("{} writes {} elsewhere", st.name, x.array)),
        }
    }
    scalars_read.sort_unstable();
    scalars_written.sort_unstable();
    let mut wanted_reads = scalar_reads.to_vec();
    let mut wanted_writes = scalar_writes.to_vec();
    wanted_reads.sort_unstable();
    wanted_writes.sort_unstable();
    if !seen.iter().all(|s| *s) || writes != 1 {
        return Err(format!("{} does not make the accesses of symm", st.name));
    }
    if scalars_read != wanted_reads || scalars_written != wanted_writes {
        return Err(format!("{} does not use the sum as symm does", st.name));
    }
    Ok(())
}

/// The statements share the loops i and j (the first row's only i): the sum is set,
/// the k loop runs, C is updated.
fn in_order(
    subject: &Subject<'_, '_>,
    [init, update, last]: [&Statement; 3],
    first: Option<&Statement>,
) -> Result<(), String> {
    let ir = &subject.region.ir;
    let loops = |st: &Statement| ir.statement(&st.name).map(|s| s.loops.clone());
    let (l0, l1, l2) = (loops(init)?, loops(update)?, loops(last)?);
    if l1.len() != 3 || l0 != l1[..2] || l2 != l1[..2] {
        return Err("the statements are not in one pair of loops".into());
    }
    let (p0, p1, p2) = (
        &init.textual_positions,
        &update.textual_positions,
        &last.textual_positions,
    );
    let ordered = p0[..2] == p1[..2] && p2[..2] == p1[..2] && p0[2] < p1[2] && p1[2] < p2[2];
    if !ordered {
        return Err("the statements are not in program order".into());
    }
    if let Some(first) = first {
        if loops(first)?.first() != l1.first() || first.textual_positions[0] != p1[0] {
            return Err("the first row is not in the loop of i".into());
        }
    }
    Ok(())
}

/// The greatest i and j: the rows (i, j) of the last statement and the first row's
/// make a box from 0, the first row's its row 0, the sum's statement runs where the
/// last does, and the k loop runs exactly over `0 <= k < i` in that box.
fn domains(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    builder: &ExprBuilder,
    [init, update, last]: [&Statement; 3],
    first: Option<&Statement>,
) -> Result<[AstExpr; 2], String> {
    let isl = |e: crate::isl::IslError| e.to_string();
    let ctx = subject.ctx;
    let params = &scop.params;
    let pair = Tuple::counters(None, "i", 2);
    let rows = |st: &Statement| -> Result<Set, String> {
        let n = st.domain.n_dims().map_err(isl)?;
        let tuple = Tuple::counters(Some(&st.name), "i", n);
        let onto = [AffineExpr::Input(0), AffineExpr::Input(1)];
        let map = Map::from_affine(ctx, params, &tuple, None, &onto).map_err(isl)?;
        st.domain.copy().and_then(|d| d.apply(map)).map_err(isl)
    };
    let last_rows = rows(last)?;
    let all = match first {
        Some(first) => {
            let first_rows = rows(first)?;
            let row_0 = first_rows.copy().map_err(isl)?;
            let all = last_rows
                .copy()
                .and_then(|l| l.union(first_rows))
                .map_err(isl)?;
            let zero = all.copy().and_then(|a| a.fix_dim(0, 0)).map_err(isl)?;
            let rest = all
                .copy()
                .and_then(|a| a.lower_bound_dim(0, 1))
                .map_err(isl)?;
            if !row_0.is_equal(&zero).map_err(isl)? || !last_rows.is_equal(&rest).map_err(isl)? {
                return Err("the first row is not row 0 of the last statement's".into());
            }
            all
        }
        None => last_rows.copy().map_err(isl)?,
    };
    if !rows(init)?.is_equal(&last_rows).map_err(isl)? {
        return Err("the sum is not set where C is".into());
    }
    let mut boxed = Set::universe(ctx, params, &pair).map_err(isl)?;
    let mut highs = Vec::new();
    for d in 0..2 {
        let values = all.copy().and_then(|s| s.project_onto(d)).map_err(isl)?;
        match builder.bounds(&values).map_err(isl)? {
            Some((AstExpr::Int(0), hi)) => highs.push(hi),
            _ => return Err("i or j does not start at 0".into()),
        }
        let onto = Map::from_affine(ctx, params, &pair, None, &[AffineExpr::Input(d)]);
        let slab = onto
            .and_then(|m| m.intersect_range(values))
            .and_then(|m| m.domain());
        boxed = boxed.intersect(slab.map_err(isl)?).map_err(isl)?;
    }
    if !boxed.is_subset(&all).map_err(isl)? {
        return Err("the rows of C are not a box".into());
    }
    let tuple = Tuple::counters(Some(&update.name), "i", 3);
    let onto = [AffineExpr::Input(0), AffineExpr::Input(1)];
    let in_box = Map::from_affine(ctx, params, &tuple, None, &onto)
        .and_then(|m| m.intersect_range(all))
        .and_then(|m| m.domain());
    let difference = [AffineExpr::Input(0).minus(AffineExpr::Input(2)).offset(-1)];
    let not_negative =
        Set::universe(ctx, params, &Tuple::unnamed(None, 1)).and_then(|s| s.lower_bound_dim(0, 0));
    let below = Map::from_affine(ctx, params, &tuple, None, &difference)
        .and_then(|m| m.intersect_range(not_negative?))
        .and_then(|m| m.domain());
    let from_zero = Set::universe(ctx, params, &tuple).and_then(|s| s.lower_bound_dim(2, 0));
    let expected = in_box
        .and_then(|s| s.intersect(below?))
        .and_then(|s| s.intersect(from_zero?))
        .map_err(isl)?;
    if !expected.is_equal(&update.domain).map_err(isl)? {
        return Err("the k loop does not run over 0 <= k < i".into());
    }
    let [m, n]: [AstExpr; 2] = highs.try_into().map_err(|_| "no bounds of i and j")?;
    Ok([m, n])
}

mod arithmetic {
    //! The IR of the symmetric product's statements: each operation as the kernel's
    //! symmetric variant makes it.

    use super::*;
    use inkwell::values::AsValueRef;

    /// How every step multiplies and adds, and alpha and beta.
    pub(super) fn check(
        subject: &Subject<'_, '_>,
        parts: &Parts<'_>,
        [init, update, last]: [&Statement; 3],
        first: Option<&Statement>,
    ) -> Result<(MultiplyAdd, Symmetric), String> {
        let region = subject.region;
        let ir = |st: &Statement| {
            region
                .ir
                .statements
                .iter()
                .find(|s| s.name == st.name)
                .ok_or_else(|| format!("no IR for statement {}", st.name))
        };
        let scalar = |name: &str| {
            region.ir.arrays.iter().find_map(|(n, a)| match a {
                crate::detect::ArrayIr::Scalar { value } if n == name => as_instruction(*value),
                _ => None,
            })
        };
        let sum = scalar(parts.sum).ok_or("the sum is not an SSA value")?;
        let out = scalar(parts.out).ok_or("the sum's way out is not an SSA value")?;
        let step = sum_update(sum, ir(init)?, ir(update)?)?;
        // The sum leaves the k loop as the update itself or through a phi of it (LCSSA).
        let last_value = out == step
            || out.get_opcode() == InstructionOpcode::Phi && {
                let carried = phi_incoming(out);
                !carried.is_empty() && carried.iter().all(|(v, _)| *v == step.as_value_ref())
            };
        if !last_value {
            return Err("the sum leaving the k loop is not its last value".into());
        }
        let reads = Reads {
            subject,
            st: update,
        };
        let dot = step_of(step.as_value_ref(), sum.as_value_ref(), |p, q| {
            reads.is(p, parts.b, &["i2", "i1"]) && reads.is(q, parts.a, &["i0", "i2"])
        })
        .ok_or("the k loop's sum is not sum + B[k][j] * A[i][k]")?;
        let (update_kind, alpha) = c_update(subject, parts, update, ir(update)?)?;
        let (last_kind, last_alpha, beta) =
            last_update(subject, parts, last, ir(last)?, Some(out.as_value_ref()))?;
        let mut kinds = vec![dot, update_kind, last_kind];
        let mut alphas = vec![last_alpha];
        if let Some(first) = first {
            let (kind, alpha_0, beta_0) = last_update(subject, parts, first, ir(first)?, None)?;
            if beta_0 != beta {
                return Err("the first row's beta is not the others'".into());
            }
            kinds.push(kind);
            alphas.push(alpha_0);
        }
        if alphas.iter().any(|a| *a != alpha) {
            return Err("B and the sums are scaled by different values".into());
        }
        if kinds.iter().any(|k| *k != dot) {
            return Err("some steps are fused and others not".into());
        }
        Ok((dot, Symmetric { alpha, beta }))
    }

    /// Tells a statement's loads by the model's reads.
    pub(super) struct Reads<'a, 'b, 'f> {
        pub subject: &'a Subject<'b, 'f>,
        pub st: &'a Statement,
    }

    impl Reads<'_, '_, '_> {
        /// Whether `v` is a load that the statement's model reads from `array` at
        /// `subs`.
        pub fn is(&self, v: LLVMValueRef, array: &str, subs: &[&str]) -> bool {
            let Some(load) =
                as_instruction(v).filter(|i| i.get_opcode() == InstructionOpcode::Load)
            else {
                return false;
            };
            let text = self.subject.fa.instruction_text(load);
            let depth = self.st.depth();
            self.st.accesses.iter().any(|x| {
                x.kind == AccessKind::Read
                    && x.instruction == text
                    && x.array == array
                    && subscripts(x, depth) == Some(ids(subs))
            })
        }
    }

    /// The ways `v` is a multiply-add without fast-math flags: `llvm.fmuladd(p, q,
    /// acc)` or `acc + p * q` (either order of the addition), as (kind, [p, q], acc).
    pub(super) fn multiply_adds(
        v: LLVMValueRef,
    ) -> Vec<(MultiplyAdd, [LLVMValueRef; 2], LLVMValueRef)> {
        let Some(inst) = as_instruction(v).filter(|i| !has_fast_math(*i)) else {
            return Vec::new();
        };
        let operands = |i: InstructionValue<'_>| [operand(i, 0), operand(i, 1), operand(i, 2)];
        if called_function_name(inst).is_some_and(is_fmuladd) {
            return match operands(inst) {
                [Some(p), Some(q), Some(acc)] => vec![(MultiplyAdd::FmulAdd, [p, q], acc)],
                _ => Vec::new(),
            };
        }
        if inst.get_opcode() != InstructionOpcode::FAdd {
            return Vec::new();
        }
        let [Some(x), Some(y), _] = operands(inst) else {
            return Vec::new();
        };
        [(x, y), (y, x)]
            .into_iter()
            .filter_map(|(product, acc)| {
                let [p, q] = fmul(product)?;
                Some((MultiplyAdd::Separate, [p, q], acc))
            })
            .collect()
    }

    /// The factors of `v` if it is an `fmul` without fast-math flags.
    pub(super) fn fmul(v: LLVMValueRef) -> Option<[LLVMValueRef; 2]> {
        let i = as_instruction(v)
            .filter(|i| i.get_opcode() == InstructionOpcode::FMul && !has_fast_math(*i))?;
        Some([operand(i, 0)?, operand(i, 1)?])
    }

    /// The kind of `v` as a step `acc + p * q` with `factors(p, q)` in either order.
    pub(super) fn step_of(
        v: LLVMValueRef,
        acc: LLVMValueRef,
        mut factors: impl FnMut(LLVMValueRef, LLVMValueRef) -> bool,
    ) -> Option<MultiplyAdd> {
        multiply_adds(v)
            .into_iter()
            .find(|(_, [p, q], a)| *a == acc && (factors(*p, *q) || factors(*q, *p)))
            .map(|(kind, _, _)| kind)
    }

    /// `alpha * x` (either order) with `is_x(x)` and alpha made before the region: alpha.
    pub(super) fn scaled(
        subject: &Subject<'_, '_>,
        v: LLVMValueRef,
        is_x: impl Fn(LLVMValueRef) -> bool,
    ) -> Option<Factor> {
        match fmul(v)? {
            [f, x] | [x, f] if is_x(x) && made_before(subject.region, f) => Some(f),
            _ => None,
        }
    }

    /// The k loop's update of C: `C[k][j] = C[k][j] + (alpha * B[i][j]) * A[i][k]`;
    /// its kind and alpha.
    fn c_update(
        subject: &Subject<'_, '_>,
        parts: &Parts<'_>,
        st: &Statement,
        ir: &crate::detect::StatementIr<'_>,
    ) -> Result<(MultiplyAdd, Factor), String> {
        let (load, stored) = c_element(subject, ir, parts.c)?;
        let reads = Reads { subject, st };
        let mut alpha = None;
        let kind = step_of(stored, load, |p, q| {
            let a = scaled(subject, p, |x| reads.is(x, parts.b, &["i0", "i1"]));
            alpha = alpha.or(a);
            a.is_some() && reads.is(q, parts.a, &["i0", "i2"])
        })
        .ok_or("C is not updated as C + alpha * B[i][j] * A[i][k]")?;
        Ok((kind, alpha.ok_or("no alpha")?))
    }

    /// The one load and store of C in the statement, at one address: the load and the
    /// value stored.
    fn c_element(
        subject: &Subject<'_, '_>,
        ir: &crate::detect::StatementIr<'_>,
        c: &str,
    ) -> Result<(LLVMValueRef, LLVMValueRef), String> {
        let region = subject.region;
        let load = single(accesses_of(region, ir, c, InstructionOpcode::Load))?;
        let store = single(accesses_of(region, ir, c, InstructionOpcode::Store))?;
        let (load_i, store_i) = (as_instruction(load), as_instruction(store));
        if load_i.and_then(pointer_operand) != store_i.and_then(pointer_operand) {
            return Err("C is stored elsewhere than it is loaded".into());
        }
        let stored = store_i
            .and_then(|s| operand(s, 0))
            .ok_or("C's store has no value")?;
        Ok((load, stored))
    }

    /// The last statement's `C[i][j] = fma(alpha, out, fma(beta, C[i][j], (alpha *
    /// B[i][j]) * A[i][i]))` (`out` None: the first row's, whose sum is +0.0, the last
    /// step folded to `+ 0.0` when alpha is a positive constant): the kind of its
    /// steps, alpha and beta.
    fn last_update(
        subject: &Subject<'_, '_>,
        parts: &Parts<'_>,
        st: &Statement,
        ir: &crate::detect::StatementIr<'_>,
        out: Option<LLVMValueRef>,
    ) -> Result<(MultiplyAdd, Factor, Factor), String> {
        let (load, stored) = c_element(subject, ir, parts.c)?;
        let reads = Reads { subject, st };
        let not_c = "C[i][j] is not set as beta * C + alpha * B[i][j] * A[i][i] + alpha * sum";
        // The inner part, fma(beta, C, x) with x = (alpha * B[i][j]) * A[i][i].
        let inner = |y: LLVMValueRef| -> Option<(MultiplyAdd, Factor, Factor)> {
            multiply_adds(y).into_iter().find_map(|(kind, [p, q], x)| {
                let beta = match (p, q) {
                    (l, f) | (f, l) if l == load && made_before(subject.region, f) => f,
                    _ => return None,
                };
                let [u, w] = fmul(x)?;
                let is_b = |v| reads.is(v, parts.b, &["i0", "i1"]);
                let alpha = [(u, w), (w, u)].into_iter().find_map(|(s, d)| {
                    let alpha = scaled(subject, s, is_b)?;
                    reads.is(d, parts.a, &["i0", "i0"]).then_some(alpha)
                })?;
                Some((kind, alpha, beta))
            })
        };
        let outer = multiply_adds(stored)
            .into_iter()
            .find_map(|(kind, [p, q], y)| {
                let (inner_kind, alpha, beta) = inner(y)?;
                let is_sum = |v: LLVMValueRef| match out {
                    Some(out) => v == out,
                    None => is_positive_zero(v),
                };
                let ok = (p == alpha && is_sum(q)) || (q == alpha && is_sum(p));
                (ok && kind == inner_kind).then_some((kind, alpha, beta))
            });
        if let Some(found) = outer {
            return Ok(found);
        }
        if out.is_none() {
            return folded_first_row(stored, &inner).ok_or_else(|| not_c.into());
        }
        Err(not_c.into())
    }

    /// The first row's `y + 0.0` (LLVM's `fma(alpha, +0.0, y)` when alpha is a positive
    /// constant, which adds +0.0 exactly): its alpha and beta.
    fn folded_first_row(
        stored: LLVMValueRef,
        inner: &dyn Fn(LLVMValueRef) -> Option<(MultiplyAdd, Factor, Factor)>,
    ) -> Option<(MultiplyAdd, Factor, Factor)> {
        let add = as_instruction(stored)
            .filter(|i| i.get_opcode() == InstructionOpcode::FAdd && !has_fast_math(*i))?;
        let (x, z) = (operand(add, 0)?, operand(add, 1)?);
        let y = if is_positive_zero(z) {
            x
        } else if is_positive_zero(x) {
            z
        } else {
            return None;
        };
        let (kind, alpha, beta) = inner(y)?;
        positive_constant(alpha).then_some((kind, alpha, beta))
    }

    /// Whether `v` is a finite constant above 0 (alpha * +0.0 is then +0.0).
    fn positive_constant(v: LLVMValueRef) -> bool {
        use inkwell::llvm_sys::core as c;
        // SAFETY: reading a constant of the function's own IR.
        unsafe {
            if c::LLVMIsAConstantFP(v).is_null() {
                return false;
            }
            let mut lost = 0;
            let x = c::LLVMConstRealGetDouble(v, &mut lost);
            x.is_finite() && x > 0.0
        }
    }
}
