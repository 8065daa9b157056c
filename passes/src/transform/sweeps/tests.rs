//! Independent recurrences interleaved, on regions written as isl strings: a
//! tridiagonal sweep per row (forward and backward) is interleaved by rows; rows that
//! read the previous row, and a row loop that also holds a loop -O3 vectorizes, are not.

use super::*;
use crate::deps::DepsOptions;
use crate::isl::{parse_union_map, IslCtx};
use crate::model::spec_builders::{array, read, statement, write};
use crate::model::{ScopSpec, StatementSpec};

fn region(statements: Vec<StatementSpec>) -> ScopSpec {
    ScopSpec {
        name: "f:entry".into(),
        function: "f".into(),
        location: None,
        params: vec!["n".into()],
        context: "[n] -> { : 16 <= n <= 100000 }".into(),
        assumptions: vec![],
        arrays: vec![array("p", &["n"]), array("x", &["n"]), array("u", &["n"])],
        statements,
        alias_groups: vec![],
    }
}

/// `for i: p[i][0] = u[i][0]; for j >= 1: p[i][j] = f(p[i][j-1], u[i][j]);
/// for j from n-2 down: x[i][j] = g(p[i][j], x[i][j+1])`, the row before read by the
/// forward sweep when `previous_row`.
fn row_solves(previous_row: bool) -> ScopSpec {
    let mut forward = vec![
        read("p", "{ S1[i, j] -> p[i, j] }"),
        read("u", "{ S1[i, j] -> u[i, 1 + j] }"),
    ];
    if previous_row {
        forward.push(read("x", "{ S1[i, j] -> x[i - 1, 1 + j] }"));
    }
    forward.push(write("p", "{ S1[i, j] -> p[i, 1 + j] }"));
    region(vec![
        statement(
            "S0",
            "[n] -> { S0[i] : 1 <= i < n }",
            &[0, 0],
            vec![
                read("u", "{ S0[i] -> u[i, 0] }"),
                write("p", "{ S0[i] -> p[i, 0] }"),
            ],
        ),
        statement(
            "S1",
            "[n] -> { S1[i, j] : 1 <= i < n and 0 <= j < n - 1 }",
            &[0, 1, 0],
            forward,
        ),
        statement(
            "S2",
            "[n] -> { S2[i, j] : 1 <= i < n and 0 <= j < n - 1 }",
            &[0, 2, 0],
            vec![
                read("p", "[n] -> { S2[i, j] -> p[i, n - 2 - j] }"),
                read("x", "[n] -> { S2[i, j] -> x[i, n - 1 - j] }"),
                write("x", "[n] -> { S2[i, j] -> x[i, n - 2 - j] }"),
            ],
        ),
    ])
}

fn interleaved(spec: &ScopSpec) -> Option<Interleaved> {
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, spec).unwrap();
    assert!(may_interleave(&scop));
    let deps = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
    choose(&scop, &deps).unwrap()
}

#[test]
fn row_solves_run_eight_rows_side_by_side_in_both_sweeps() {
    let chosen = interleaved(&row_solves(false)).expect("interleaved");
    let ctx = chosen.schedule.ctx();
    let expected = parse_union_map(
        &ctx,
        "[n] -> { S0[i] -> [0, 8 * floor(i / 8), 0, 0, 0, i] : 1 <= i < n; \
         S1[i, j] -> [0, 8 * floor(i / 8), 1, j, 0, i] : 1 <= i < n and 0 <= j < n - 1; \
         S2[i, j] -> [0, 8 * floor(i / 8), 2, j, 0, i] : 1 <= i < n and 0 <= j < n - 1 }",
        "expected",
    )
    .unwrap();
    assert!(chosen
        .schedule
        .get_map()
        .unwrap()
        .is_equal(&expected)
        .unwrap());
    assert!(chosen
        .description
        .contains("S1, S2 run 8 iterations of their loop i0 side by side"));
}

#[test]
fn rows_reading_the_row_before_are_not_interleaved() {
    assert!(interleaved(&row_solves(true)).is_none());
}

#[test]
fn a_row_loop_holding_a_loop_without_recurrence_is_not_interleaved() {
    let mut spec = row_solves(false);
    spec.statements.push(statement(
        "S3",
        "[n] -> { S3[i, j] : 1 <= i < n and 0 <= j < n }",
        &[0, 3, 0],
        vec![
            read("x", "{ S3[i, j] -> x[i, j] }"),
            write("u", "{ S3[i, j] -> u[i, j] }"),
        ],
    ));
    assert!(interleaved(&spec).is_none());
}

#[test]
fn a_copy_holds_no_recurrence() {
    let spec = region(vec![statement(
        "S0",
        "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j < n }",
        &[0, 0, 0],
        vec![
            read("u", "{ S0[i, j] -> u[i, j] }"),
            write("x", "{ S0[i, j] -> x[i, j] }"),
        ],
    )]);
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, &spec).unwrap();
    assert!(!may_interleave(&scop));
}

#[test]
fn rows_accumulating_into_one_element_are_left_to_the_chain_rule() {
    let spec = region(vec![statement(
        "S0",
        "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j < n }",
        &[0, 0, 0],
        vec![
            read("x", "{ S0[i, j] -> x[i, 0] }"),
            read("u", "{ S0[i, j] -> u[i, j] }"),
            write("x", "{ S0[i, j] -> x[i, 0] }"),
        ],
    )]);
    assert!(interleaved(&spec).is_none());
}
