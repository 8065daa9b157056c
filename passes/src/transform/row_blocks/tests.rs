//! Matrix-vector passes fused by blocks of rows, on regions written as isl strings:
//! atax's and mvt's shapes fuse; a row update that the next row's dot product reads,
//! bicg's single statement, and a lone dot product do not.

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
        arrays: vec![
            array("A", &["n"]),
            array("B", &["n"]),
            array("x", &[]),
            array("y", &[]),
            array("t", &[]),
        ],
        statements,
        alias_groups: vec![],
    }
}

const SQUARE: &str = "0 <= i < n and 0 <= j < n";

fn pass(
    name: &str,
    positions: &[u32],
    reads: &[(&str, &str)],
    writes: &[(&str, &str)],
) -> StatementSpec {
    let domain = if positions.len() == 2 {
        format!("[n] -> {{ {name}[i] : 0 <= i < n }}")
    } else {
        format!("[n] -> {{ {name}[i, j] : {SQUARE} }}")
    };
    let mut accesses: Vec<_> = reads.iter().map(|(a, r)| read(a, r)).collect();
    accesses.extend(writes.iter().map(|(a, r)| write(a, r)));
    statement(name, &domain, positions, accesses)
}

/// `t[i] = 0; for j: t[i] += A[i][j] * x[j]; for j: y[j] += A[i][j] * t[i]`, the dot
/// product reading `dot_reads` (x, or y for a feedback).
fn atax(dot_reads: &str) -> ScopSpec {
    region(vec![
        pass("S0", &[0, 0], &[], &[("t", "{ S0[i] -> t[i] }")]),
        pass(
            "S1",
            &[0, 1, 0],
            &[
                ("t", "{ S1[i, j] -> t[i] }"),
                ("A", "{ S1[i, j] -> A[i, j] }"),
                (dot_reads, &format!("{{ S1[i, j] -> {dot_reads}[j] }}")),
            ],
            &[("t", "{ S1[i, j] -> t[i] }")],
        ),
        pass(
            "S2",
            &[0, 2, 0],
            &[
                ("y", "{ S2[i, j] -> y[j] }"),
                ("A", "{ S2[i, j] -> A[i, j] }"),
                ("t", "{ S2[i, j] -> t[i] }"),
            ],
            &[("y", "{ S2[i, j] -> y[j] }")],
        ),
    ])
}

/// `x[i] += A[i][j] * y[j]` then, in a nest of its own, `t[i] += A[j][i] * y[j]`.
fn mvt() -> ScopSpec {
    region(vec![
        pass(
            "S0",
            &[0, 0, 0],
            &[
                ("x", "{ S0[i, j] -> x[i] }"),
                ("A", "{ S0[i, j] -> A[i, j] }"),
                ("y", "{ S0[i, j] -> y[j] }"),
            ],
            &[("x", "{ S0[i, j] -> x[i] }")],
        ),
        pass(
            "S1",
            &[1, 0, 0],
            &[
                ("t", "{ S1[i, j] -> t[i] }"),
                ("A", "{ S1[i, j] -> A[j, i] }"),
                ("y", "{ S1[i, j] -> y[j] }"),
            ],
            &[("t", "{ S1[i, j] -> t[i] }")],
        ),
    ])
}

fn fused(spec: &ScopSpec) -> Option<RowBlocks> {
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, spec).unwrap();
    let deps = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
    choose(&scop, &deps).unwrap()
}

#[test]
fn atax_runs_its_dot_products_then_its_row_updates_per_block_of_rows() {
    let blocks = fused(&atax("x")).expect("fused");
    let ctx = blocks.schedule.ctx();
    let expected = parse_union_map(
        &ctx,
        "[n] -> { S0[i] -> [8 * floor(i / 8), 0, 0, i, 0] : 0 <= i < n; \
         S1[i, j] -> [8 * floor(i / 8), 1, 16 * floor(j / 16), i, j] : 0 <= i, j < n; \
         S2[i, j] -> [8 * floor(i / 8), 2, i, j, 0] : 0 <= i, j < n }",
        "expected",
    )
    .unwrap();
    assert!(blocks
        .schedule
        .get_map()
        .unwrap()
        .is_equal(&expected)
        .unwrap());
    assert!(blocks.description.contains("S1 interleaves"));
    assert!(blocks.description.contains("S2 walks each row"));
}

#[test]
fn mvt_walks_the_transposed_pass_along_the_rows_of_a() {
    let blocks = fused(&mvt()).expect("fused");
    let ctx = blocks.schedule.ctx();
    let expected = parse_union_map(
        &ctx,
        "[n] -> { S0[i, j] -> [8 * floor(i / 8), 0, 16 * floor(j / 16), i, j] : 0 <= i, j < n; \
         S1[i, j] -> [8 * floor(j / 8), 1, j, i, 0] : 0 <= i, j < n }",
        "expected",
    )
    .unwrap();
    assert!(blocks
        .schedule
        .get_map()
        .unwrap()
        .is_equal(&expected)
        .unwrap());
}

#[test]
fn a_dot_product_reading_the_previous_rows_update_is_not_fused() {
    // Row i + 1's dot product reads y[j] after row i's update wrote it: in the fused
    // order it would run first.
    assert!(fused(&atax("y")).is_none());
}

#[test]
fn one_statement_updating_rows_and_columns_is_not_fused() {
    // bicg: `s[j] += r[i] * A[i][j]; q[i] += A[i][j] * p[j]` in one statement.
    let spec = region(vec![pass(
        "S0",
        &[0, 0, 0],
        &[
            ("y", "{ S0[i, j] -> y[j] }"),
            ("A", "{ S0[i, j] -> A[i, j] }"),
            ("t", "{ S0[i, j] -> t[i] }"),
            ("x", "{ S0[i, j] -> x[j] }"),
        ],
        &[("y", "{ S0[i, j] -> y[j] }"), ("t", "{ S0[i, j] -> t[i] }")],
    )]);
    assert!(fused(&spec).is_none());
}

#[test]
fn a_lone_dot_product_is_left_to_the_chain_rule_but_two_accumulators_fuse() {
    let dot = |writes: &[(&str, &str)]| {
        region(vec![pass(
            "S0",
            &[0, 0, 0],
            &[
                ("t", "{ S0[i, j] -> t[i] }"),
                ("A", "{ S0[i, j] -> A[i, j] }"),
                ("B", "{ S0[i, j] -> B[i, j] }"),
                ("x", "{ S0[i, j] -> x[j] }"),
                ("y", "{ S0[i, j] -> y[i] }"),
            ],
            writes,
        )])
    };
    assert!(fused(&dot(&[("t", "{ S0[i, j] -> t[i] }")])).is_none());
    // gesummv's two dot products (of A and of B) in one statement.
    let both = dot(&[("t", "{ S0[i, j] -> t[i] }"), ("y", "{ S0[i, j] -> y[i] }")]);
    assert!(fused(&both).is_some());
}

/// `x[i] = b[i]; for j < i: x[i] -= L[i][j] * x[j]; x[i] /= L[i][i]` (L in `A`, b in
/// `t`).
fn forward_substitution() -> ScopSpec {
    region(vec![
        pass(
            "S0",
            &[0, 0],
            &[("t", "{ S0[i] -> t[i] }")],
            &[("x", "{ S0[i] -> x[i] }")],
        ),
        statement(
            "S1",
            "[n] -> { S1[i, j] : 0 <= j < i < n }",
            &[0, 1, 0],
            vec![
                read("x", "{ S1[i, j] -> x[i] }"),
                read("A", "{ S1[i, j] -> A[i, j] }"),
                read("x", "{ S1[i, j] -> x[j] }"),
                write("x", "{ S1[i, j] -> x[i] }"),
            ],
        ),
        pass(
            "S2",
            &[0, 2],
            &[("x", "{ S2[i] -> x[i] }"), ("A", "{ S2[i] -> A[i, i] }")],
            &[("x", "{ S2[i] -> x[i] }")],
        ),
    ])
}

#[test]
fn a_triangular_solve_interleaves_the_columns_before_its_block_then_finishes_each_row() {
    let blocks = fused(&forward_substitution()).expect("blocks of rows");
    let ctx = blocks.schedule.ctx();
    let expected = parse_union_map(
        &ctx,
        "[n] -> { S0[i] -> [8 * floor(i / 8), 0, 0, i, 0] : 0 <= i < n; \
         S1[i, j] -> [8 * floor(i / 8), 1, 16 * floor(j / 16), i, j] : \
           0 <= j < i < n and j < 8 * floor(i / 8); \
         S1[i, j] -> [8 * floor(i / 8), 2, i, 0, j] : \
           0 <= j < i < n and j >= 8 * floor(i / 8); \
         S2[i] -> [8 * floor(i / 8), 2, i, 1, 0] : 0 <= i < n }",
        "expected",
    )
    .unwrap();
    assert!(blocks
        .schedule
        .get_map()
        .unwrap()
        .is_equal(&expected)
        .unwrap());
    assert!(blocks
        .description
        .starts_with("triangular solve by blocks of 8 rows: S1"));
}

#[test]
fn a_rectangular_dot_product_reading_the_rows_results_is_no_triangle() {
    // Row i reads every x[j], also those of the rows after it: no order of blocks
    // keeps that, and a rectangle is no triangle anyway.
    let mut spec = forward_substitution();
    spec.statements[1].domain = "[n] -> { S1[i, j] : 0 <= i < n and 0 <= j < n }".into();
    assert!(fused(&spec).is_none());
}

#[test]
fn an_initialization_in_front_keeps_its_order_and_the_passes_after_it_fuse() {
    let mut spec = atax("x");
    for s in &mut spec.statements {
        s.textual_positions[0] = 1;
    }
    let init = statement(
        "S9",
        &format!("[n] -> {{ S9[i, j] : {SQUARE} }}"),
        &[0, 0, 0],
        vec![write("A", "{ S9[i, j] -> A[i, j] }")],
    );
    spec.statements.insert(0, init);
    let blocks = fused(&spec).expect("fused after the initialization");
    let ctx = blocks.schedule.ctx();
    let expected = parse_union_map(
        &ctx,
        "[n] -> { S9[i, j] -> [0, 0, i, 0, j, 0] : 0 <= i, j < n; \
         S0[i] -> [1, 8 * floor(i / 8), 0, 0, i, 0] : 0 <= i < n; \
         S1[i, j] -> [1, 8 * floor(i / 8), 1, 16 * floor(j / 16), i, j] : 0 <= i, j < n; \
         S2[i, j] -> [1, 8 * floor(i / 8), 2, i, j, 0] : 0 <= i, j < n }",
        "expected",
    )
    .unwrap();
    let got = blocks.schedule.get_map().unwrap();
    assert!(
        got.is_equal(&expected).unwrap(),
        "{}",
        got.to_str().unwrap_or_default()
    );
    assert!(blocks.description.ends_with(", after S9 in their order"));
}
