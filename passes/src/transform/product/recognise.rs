//! Recognition of the dot-product nest in a region's model: three statements in one
//! pair of loops (i, j) (the sum set to a constant, the k loop updating it from one
//! element of A and one of B, C's element updated from it after the k loop), box
//! domains from 0, A, B and C distinct two-dimensional arrays of doubles (or all of floats) indexed by the
//! counters alone, an x86-64 target (with AVX2, or without: then the CPU is tested at
//! run time, `kernel_target`). The arithmetic itself is checked on the
//! IR (`arithmetic`): its steps are fused in the kernel exactly where the loop's are
//! (`llvm.fmuladd` on a target with FMA). Anything else is not a product: the region is
//! planned as loops. A region of one statement is tried as the nest that keeps C in a
//! register across k (`in_register`), then as the scaled form (`scaled`) and as two
//! products per step (`two_terms`), which a region of two statements (C scaled or
//! zeroed, then updated) is tried as.

use crate::isl::ast::{function_expressions, AstExpr, AstOp, ExprBuilder};
use crate::isl::{AffineExpr, Map, Set, Tuple};
use crate::model::{Access, AccessKind, Array, Scop, Statement};
use crate::transform::hardware::Hardware;
use crate::transform::Subject;

use super::arithmetic::{self, MultiplyAdd, Roles};
use super::{
    batched, common_precision, in_register, scaled, symmetric, two_terms, Accumulator, Blocking,
    KernelTarget, Operand, Precision, Product,
};

/// Vector registers the micro-kernel needs, in bits.
const VECTOR_BITS: u32 = 256;

/// The product `scop` computes, or why it is not one.
pub fn recognise(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    hardware: &Hardware,
) -> Result<Product, String> {
    target_allows(subject)?;
    // A statement that only reads (the loads of A[i][k] before the j loop, which the
    // update reads too) changes nothing.
    let writing: Vec<&Statement> = scop
        .statements
        .iter()
        .filter(|s| s.accesses.iter().any(|a| a.kind != AccessKind::Read))
        .collect();
    match writing.as_slice() {
        [update] => in_register::recognise(subject, scop, update, hardware)
            .or_else(|why| {
                scaled::recognise(subject, scop, None, update, hardware).map_err(|_| why)
            })
            .or_else(|why| {
                two_terms::recognise(subject, scop, None, update, hardware).map_err(|_| why)
            }),
        [first, update] => {
            scaled::recognise(subject, scop, Some(first), update, hardware).or_else(|why| {
                two_terms::recognise(subject, scop, Some(first), update, hardware).map_err(|_| why)
            })
        }
        [init, update, add] => dot_products(subject, scop, [init, update, add], hardware)
            .or_else(|why| {
                batched::recognise(subject, scop, [init, update, add], hardware).map_err(|_| why)
            })
            .or_else(|why| {
                let statements = [*init, *update, *add];
                symmetric::recognise(subject, scop, statements, None, hardware).map_err(|_| why)
            }),
        [init, update, last, first] => {
            symmetric::recognise(subject, scop, [init, update, last], Some(first), hardware)
        }
        _ => Err("not one, two, three or four statements".into()),
    }
}

/// The product of the dot-product nest `init`, `update`, `add`, or why it is not one.
fn dot_products(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    [init, update, add]: [&Statement; 3],
    hardware: &Hardware,
) -> Result<Product, String> {
    if (init.depth(), update.depth(), add.depth()) != (2, 3, 2) {
        return Err("not statements 2, 3 and 2 loops deep".into());
    }
    let roles = roles(scop, init, update, add)?;
    in_one_pair_of_loops(subject, init, update, add)?;
    let (multiply_add, alpha) = arithmetic::check(subject.region, &roles, [init, update, add])?;
    // The backend fuses `llvm.fmuladd` exactly where the target has FMA.
    let fused = multiply_add == MultiplyAdd::FmulAdd && target_has(subject, "+fma");
    let trips = trip_counts(subject, scop, init, update, add)?;
    let builder = ExprBuilder::new(&scop.context).map_err(|e| e.to_string())?;
    let operand = |name: &str, relation: &Map, counters: [&str; 2], all: &[&str]| {
        operand(subject, scop, &builder, name, relation, counters, all)
    };
    let a = operand(roles.a, roles.a_read, ["i0", "i2"], &["i0", "i1", "i2"])?;
    let b = operand(roles.b, roles.b_read, ["i2", "i1"], &["i0", "i1", "i2"])?;
    let c = operand(roles.c, roles.c_read, ["i0", "i1"], &["i0", "i1"])?;
    let c_written = operand(roles.c, roles.c_write, ["i0", "i1"], &["i0", "i1"])?;
    if c_written != c {
        return Err("C is written elsewhere than it is read".into());
    }
    let arrays = [roles.a, roles.b, roles.c, roles.sum, roles.out];
    let precision = common_precision(scop, &arrays)?;
    Ok(Product {
        a,
        b,
        c,
        trips,
        blocking: Blocking::for_caches(hardware, precision),
        fused,
        accumulator: alpha.map_or(Accumulator::Sum, Accumulator::ScaledSum),
        second: None,
        precision,
        target: kernel_target(subject),
        batch: None,
        symmetric: None,
    })
}

/// The function's target is x86-64: the kernel's instructions are its own or, from
/// `kernel_target`, AVX2 and FMA behind a test of the CPU.
fn target_allows(subject: &Subject<'_, '_>) -> Result<(), String> {
    if !crate::llvm::ir::module_triple(subject.fa.function()).starts_with("x86_64") {
        return Err("not an x86-64 target".into());
    }
    Ok(())
}

/// The kernel's instructions: the caller's when its target has AVX2 and 256-bit
/// vectors; otherwise (x86-64's baseline, as plain `-O3` compiles) AVX2 and FMA added,
/// and the CPU tested at run time.
pub(crate) fn kernel_target(subject: &Subject<'_, '_>) -> KernelTarget {
    let wide = subject
        .fa
        .vector_register_bits()
        .is_some_and(|b| b >= VECTOR_BITS);
    if wide && target_has(subject, "+avx2") {
        KernelTarget::Caller
    } else {
        KernelTarget::CpuTest
    }
}

/// Whether the function's `target-features` has `feature` (`+fma`).
pub(super) fn target_has(subject: &Subject<'_, '_>, feature: &str) -> bool {
    crate::llvm::link::target_features(subject.fa.function())
        .is_some_and(|features| features.split(',').any(|f| f == feature))
}

/// The arrays each access of the three statements reaches, by the part they play.
fn roles<'s>(
    scop: &'s Scop,
    init: &'s Statement,
    update: &'s Statement,
    add: &'s Statement,
) -> Result<Roles<'s>, String> {
    let array = |name: &str| scop.arrays.iter().find(|a| a.name == name);
    let is_double = |a: &Array| Precision::of(&a.element_type).is_some();
    let scalar = |a: &Access| array(&a.array).is_some_and(|x| x.is_scalar && is_double(x));
    let matrix =
        |a: &Access| array(&a.array).is_some_and(|x| !x.is_scalar && x.rank() == 2 && is_double(x));
    let [set] = init.accesses.as_slice() else {
        return Err("the sum's statement makes other accesses".into());
    };
    if set.kind != AccessKind::MustWrite || !scalar(set) {
        return Err("the first statement does not set a scalar double or float".into());
    }
    let sum = set.array.as_str();
    let pick = |st: &'s Statement, kind: AccessKind, wanted: &dyn Fn(&Access) -> bool| {
        st.accesses
            .iter()
            .filter(|a| a.kind == kind && wanted(a))
            .collect::<Vec<&'s Access>>()
    };
    let reads = pick(update, AccessKind::Read, &matrix);
    let [first, second] = reads.as_slice() else {
        return Err("the k loop does not read two arrays".into());
    };
    let out = pick(update, AccessKind::MustWrite, &|a| {
        scalar(a) && a.array != sum
    });
    let [out] = out.as_slice() else {
        return Err("the k loop's sum does not leave it once".into());
    };
    let sum_read = pick(update, AccessKind::Read, &|a| a.array == sum).len();
    let sum_written = pick(update, AccessKind::MustWrite, &|a| a.array == sum).len();
    if update.accesses.len() != 5 || sum_read != 1 || sum_written != 1 {
        return Err("the k loop makes other accesses than the sum's and two reads".into());
    }
    let c_read = pick(add, AccessKind::Read, &matrix);
    let c_write = pick(add, AccessKind::MustWrite, &matrix);
    let out_read = pick(add, AccessKind::Read, &|a| a.array == out.array).len();
    let ([c_read], [c_write], 1, 3) = (
        c_read.as_slice(),
        c_write.as_slice(),
        out_read,
        add.accesses.len(),
    ) else {
        return Err("the last statement is not C's element updated from the sum".into());
    };
    let [x, y, z] = [&first.array, &second.array, &c_read.array];
    if c_write.array != c_read.array || x == y || x == z || y == z {
        return Err("A, B and C are not three distinct arrays".into());
    }
    // Which read is A (indexed by i and k) and which B (j and k) the subscripts say.
    let (a, b) = if reads_counter(first, 0) {
        (*first, *second)
    } else {
        (*second, *first)
    };
    Ok(Roles {
        sum,
        out: out.array.as_str(),
        a: a.array.as_str(),
        b: b.array.as_str(),
        c: c_read.array.as_str(),
        a_read: &a.relation,
        b_read: &b.relation,
        c_read: &c_read.relation,
        c_write: &c_write.relation,
    })
}

/// Whether some subscript of `access` is the counter `i{counter}` alone.
pub(super) fn reads_counter(access: &Access, counter: usize) -> bool {
    let names: Vec<String> = (0..3).map(|k| format!("i{k}")).collect();
    let wanted = AstExpr::Id(format!("i{counter}"));
    matches!(function_expressions(&access.relation, &names), Ok(Some(subs)) if subs.contains(&wanted))
}

/// The three statements share the region's loops i and j, and run in program order in
/// them: the sum is set, the k loop runs, C is updated.
fn in_one_pair_of_loops(
    subject: &Subject<'_, '_>,
    init: &Statement,
    update: &Statement,
    add: &Statement,
) -> Result<(), String> {
    let ir = &subject.region.ir;
    let loops = |name: &str| ir.statement(name).map(|s| s.loops.clone());
    let (l0, l1, l2) = (loops(&init.name)?, loops(&update.name)?, loops(&add.name)?);
    if l1.len() != 3 || l0 != l1[..2] || l2 != l1[..2] {
        return Err("the statements are not in one pair of loops".into());
    }
    let position = |s: &Statement| s.textual_positions.get(2).copied();
    let outer = |s: &Statement| s.textual_positions.get(..2).map(<[u32]>::to_vec);
    let in_order = position(init) < position(update) && position(update) < position(add);
    let same_outer = outer(init) == outer(update) && outer(update) == outer(add);
    if !in_order || !same_outer || position(init).is_none() {
        return Err("the statements are not in program order".into());
    }
    Ok(())
}

/// The trip counts of i, j and k: each statement's domain a box from 0, the same i and
/// j for all three.
fn trip_counts(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    init: &Statement,
    update: &Statement,
    add: &Statement,
) -> Result<[AstExpr; 3], String> {
    let builder = ExprBuilder::new(&scop.context).map_err(|e| e.to_string())?;
    let upper = |st: &Statement| box_bounds(subject, scop, &builder, st);
    let (i_j, all, after) = (upper(init)?, upper(update)?, upper(add)?);
    if i_j != all[..2] || after != i_j {
        return Err("the statements' i and j do not run alike".into());
    }
    let count = |hi: &AstExpr| AstExpr::Op(AstOp::Add, vec![hi.clone(), AstExpr::Int(1)]);
    Ok([count(&all[0]), count(&all[1]), count(&all[2])])
}

/// The greatest value of each counter of `st`, whose domain must be the box of the
/// values each counter takes, each from 0.
pub(crate) fn box_bounds(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    builder: &ExprBuilder,
    st: &Statement,
) -> Result<Vec<AstExpr>, String> {
    let (highs, boxed) = spanned_box(subject, scop, builder, st)?;
    if !boxed.is_subset(&st.domain).map_err(|e| e.to_string())? {
        return Err(format!("the domain of {} is not a box", st.name));
    }
    Ok(highs)
}

/// The greatest value of each counter of `st`, each of which must start at 0, and the
/// box of the values they take (which holds the domain).
pub(super) fn spanned_box(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    builder: &ExprBuilder,
    st: &Statement,
) -> Result<(Vec<AstExpr>, Set), String> {
    let isl = |e: crate::isl::IslError| e.to_string();
    let n = st.domain.n_dims().map_err(isl)?;
    let tuple = Tuple::counters(Some(&st.name), "i", n);
    let mut boxed = Set::universe(subject.ctx, &scop.params, &tuple).map_err(isl)?;
    let mut highs = Vec::with_capacity(n);
    for d in 0..n {
        let values = st
            .domain
            .copy()
            .and_then(|s| s.project_onto(d))
            .map_err(isl)?;
        match builder.bounds(&values).map_err(isl)? {
            Some((AstExpr::Int(0), hi)) => highs.push(hi),
            _ => return Err(format!("counter {d} of {} does not start at 0", st.name)),
        }
        let onto = Map::from_affine(
            subject.ctx,
            &scop.params,
            &tuple,
            None,
            &[AffineExpr::Input(d)],
        );
        let slab = onto
            .and_then(|m| m.intersect_range(values))
            .and_then(|m| m.domain());
        boxed = boxed.intersect(slab.map_err(isl)?).map_err(isl)?;
    }
    Ok((highs, boxed))
}

/// `name` as an operand read through `relation` by the counters `counters` (in this
/// order, or swapped) of the statement's counters `all`, with its strides.
pub(super) fn operand(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    builder: &ExprBuilder,
    name: &str,
    relation: &Map,
    counters: [&str; 2],
    all: &[&str],
) -> Result<Operand, String> {
    let names: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    if !relation.is_single_valued().map_err(|e| e.to_string())? {
        return Err(format!("{name} is not read at one element"));
    }
    let subscripts = function_expressions(relation, &names)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{name}'s subscripts are unbounded"))?;
    let id = |k: usize| AstExpr::Id(counters[k].to_string());
    let swapped = if subscripts == [id(0), id(1)] {
        false
    } else if subscripts == [id(1), id(0)] {
        true
    } else {
        return Err(format!("{name} is not indexed by its two counters alone"));
    };
    let array = scop
        .arrays
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("no array {name}"))?;
    let [size] = array.inner_size_values.as_slice() else {
        return Err(format!("{name} is not two-dimensional"));
    };
    let (rows, _) = builder
        .bounds(size)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("the rows of {name} have no size"))?;
    let (first_stride, second_stride) = if swapped {
        (AstExpr::Int(1), rows)
    } else {
        (rows, AstExpr::Int(1))
    };
    Ok(Operand {
        array: name.to_string(),
        shown: subject.source_name(name),
        first_stride,
        second_stride,
        swapped,
    })
}
