//! Tests of the dependence analysis, each on a small region written as a `ScopSpec`: the
//! fixtures they share, then one file per concern.

mod anti_output;
mod flow;
mod print;
mod private;
mod reductions;
mod schedules;

use super::*;
use crate::isl::{parse_union_map, IslCtx};
use crate::model::{ArraySpec, Scop, ScopSpec, StatementSpec};

use crate::model::spec_builders::{array, may_write, read, scalar, statement, write};

fn region(
    name: &str,
    params: &[&str],
    arrays: Vec<ArraySpec>,
    statements: Vec<StatementSpec>,
) -> ScopSpec {
    let context = format!("[{}] -> {{ : }}", params.join(", "));
    ScopSpec {
        name: name.into(),
        function: name.split(':').next().unwrap_or(name).into(),
        location: None,
        params: params.iter().map(|s| s.to_string()).collect(),
        context,
        assumptions: vec![],
        arrays,
        statements,
        alias_groups: vec![],
    }
}

/// `for i < n: S0: A[i] = ...;  for i < n: S1: B[i] = A[i]`.
fn producer_consumer() -> ScopSpec {
    region(
        "pc:entry",
        &["n"],
        vec![array("A", &[]), array("B", &[])],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![write("A", "{ S0[i0] -> A[i0] }")],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![
                    read("A", "{ S1[i0] -> A[i0] }"),
                    write("B", "{ S1[i0] -> B[i0] }"),
                ],
            ),
        ],
    )
}

/// `for i in 1..n-1: S0: A[i] = A[i - 1] + A[i + 1]` (in place).
fn in_place_stencil() -> ScopSpec {
    region(
        "stencil:for.body",
        &["n"],
        vec![array("A", &[])],
        vec![statement(
            "S0",
            "[n] -> { S0[i0] : 1 <= i0 < n - 1 }",
            &[0, 0],
            vec![
                read("A", "{ S0[i0] -> A[i0 - 1] }"),
                read("A", "{ S0[i0] -> A[i0 + 1] }"),
                write("A", "{ S0[i0] -> A[i0] }"),
            ],
        )],
    )
}

/// Jacobi 1-D: `for t < tsteps: { for i in 1..n-1: S0: B[i] = A[i-1] + A[i] + A[i+1];
/// for i in 1..n-1: S1: A[i] = B[i] }`.
fn jacobi() -> ScopSpec {
    region(
        "jacobi:for.body",
        &["tsteps", "n"],
        vec![array("A", &[]), array("B", &[])],
        vec![
            statement(
                "S0",
                "[tsteps, n] -> { S0[i0, i1] : 0 <= i0 < tsteps and 1 <= i1 < n - 1 }",
                &[0, 0, 0],
                vec![
                    read("A", "{ S0[i0, i1] -> A[i1 - 1] }"),
                    read("A", "{ S0[i0, i1] -> A[i1] }"),
                    read("A", "{ S0[i0, i1] -> A[i1 + 1] }"),
                    write("B", "{ S0[i0, i1] -> B[i1] }"),
                ],
            ),
            statement(
                "S1",
                "[tsteps, n] -> { S1[i0, i1] : 0 <= i0 < tsteps and 1 <= i1 < n - 1 }",
                &[0, 1, 0],
                vec![
                    read("B", "{ S1[i0, i1] -> B[i1] }"),
                    write("A", "{ S1[i0, i1] -> A[i1] }"),
                ],
            ),
        ],
    )
}

/// `S0: s = 0;  for i < n: S1: s = s + A[i];  S2: out[0] = s`.
fn scalar_sum() -> ScopSpec {
    region(
        "sum:entry",
        &["n"],
        vec![array("A", &[]), array("out", &[]), scalar("s")],
        vec![
            statement("S0", "{ S0[] }", &[0], vec![write("s", "{ S0[] -> s[] }")]),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![
                    read("s", "{ S1[i0] -> s[] }"),
                    read("A", "{ S1[i0] -> A[i0] }"),
                    write("s", "{ S1[i0] -> s[] }"),
                ],
            ),
            statement(
                "S2",
                "{ S2[] }",
                &[2],
                vec![
                    read("s", "{ S2[] -> s[] }"),
                    write("out", "{ S2[] -> out[0] }"),
                ],
            ),
        ],
    )
}

/// `for i < n: for j < m: { S0: C[i][j] = 0; for k < p: S1: C[i][j] += A[i][k] * B[k][j] }`.
fn matmul() -> ScopSpec {
    region(
        "matmul:for.cond",
        &["n", "m", "p"],
        vec![array("A", &["p"]), array("B", &["m"]), array("C", &["m"])],
        vec![
            statement(
                "S0",
                "[n, m] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }",
                &[0, 0, 0],
                vec![write("C", "{ S0[i0, i1] -> C[i0, i1] }")],
            ),
            statement(
                "S1",
                "[n, m, p] -> { S1[i0, i1, i2] : 0 <= i0 < n and 0 <= i1 < m and 0 <= i2 < p }",
                &[0, 0, 1, 0],
                vec![
                    read("C", "{ S1[i0, i1, i2] -> C[i0, i1] }"),
                    read("A", "{ S1[i0, i1, i2] -> A[i0, i2] }"),
                    read("B", "{ S1[i0, i1, i2] -> B[i2, i1] }"),
                    write("C", "{ S1[i0, i1, i2] -> C[i0, i1] }"),
                ],
            ),
        ],
    )
}

/// Every region above, for properties that hold of all of them.
fn every_region() -> [ScopSpec; 5] {
    [
        producer_consumer(),
        in_place_stencil(),
        jacobi(),
        scalar_sum(),
        matmul(),
    ]
}

fn reduction(statement: &str, array: &str) -> ReductionCandidate {
    ReductionCandidate {
        statement: statement.into(),
        array: array.into(),
    }
}

fn build(spec: &ScopSpec) -> (IslCtx, Scop) {
    let ctx = IslCtx::new(None).expect("an isl context");
    let scop = Scop::build(&ctx, spec).unwrap_or_else(|error| panic!("{error}"));
    (ctx, scop)
}

/// The dependences of `spec` with no reductions.
fn deps_of(spec: &ScopSpec) -> (Scop, Dependences) {
    deps_with(spec, &DepsOptions::default())
}

fn deps_with(spec: &ScopSpec, options: &DepsOptions) -> (Scop, Dependences) {
    let (_ctx, scop) = build(spec);
    let deps = Dependences::compute(&scop, options).unwrap_or_else(|error| panic!("{error}"));
    (scop, deps)
}

/// Asserts that `relation` is exactly `expected` (isl text).
fn assert_relation(relation: &UnionMap, expected: &str) {
    let ctx = relation.ctx();
    let expected_map = parse_union_map(&ctx, expected, "expected relation").unwrap();
    assert!(
        relation.is_equal(&expected_map).unwrap(),
        "expected {expected}\n   found {relation:?}"
    );
}

/// Asserts that every pair of `pairs` is in `relation`.
fn assert_contains(relation: &UnionMap, pairs: &str) {
    let ctx = relation.ctx();
    let pairs_map = parse_union_map(&ctx, pairs, "expected pairs").unwrap();
    assert!(
        pairs_map.is_subset(relation).unwrap(),
        "{pairs} not in {relation:?}"
    );
}

/// Asserts that no pair of `pairs` is in `relation`.
fn assert_excludes(relation: &UnionMap, pairs: &str) {
    let ctx = relation.ctx();
    let pairs_map = parse_union_map(&ctx, pairs, "excluded pairs").unwrap();
    let common = pairs_map.intersect(relation.copy().unwrap()).unwrap();
    assert!(common.is_empty().unwrap(), "{common:?} in {relation:?}");
}

fn schedule(deps: &Dependences, text: &str) -> UnionMap {
    parse_union_map(&deps.flow.ctx(), text, "test schedule").unwrap()
}

/// Which kinds the loop at `level` around `statement` carries.
fn carried(deps: &Dependences, statement: &str, level: usize) -> Vec<DependenceKind> {
    deps.loop_carry(statement, level)
        .unwrap_or_else(|| panic!("no loop {level} around {statement}"))
        .carried_by
        .clone()
}
