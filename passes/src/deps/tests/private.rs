//! Scalars private to the points of a band (`Dependences::scalar_flows`, `ScalarFlows::private_to`).

use super::*;

/// `for t, i: { S0: x = A[i][0]; for j: { S1: B[i][j] = x + A[i][j]; x = A[i][j] } }`:
/// the value carried along a row, as LLVM keeps it in a phi. With `from_row_start`
/// false, S0 is gone and each row starts from the value the previous row left.
fn carried_along_rows(from_row_start: bool) -> ScopSpec {
    let mut statements = vec![statement(
        "S1",
        "[T, n] -> { S1[t, i, j] : 0 <= t < T and 0 <= i < n and 0 <= j < n }",
        &[0, 0, 1, 0],
        vec![
            read("x", "{ S1[t, i, j] -> x[] }"),
            read("A", "{ S1[t, i, j] -> A[i, j] }"),
            write("B", "{ S1[t, i, j] -> B[i, j] }"),
            write("x", "{ S1[t, i, j] -> x[] }"),
        ],
    )];
    if from_row_start {
        statements.insert(
            0,
            statement(
                "S0",
                "[T, n] -> { S0[t, i] : 0 <= t < T and 0 <= i < n }",
                &[0, 0, 0],
                vec![
                    read("A", "{ S0[t, i] -> A[i, 0] }"),
                    write("x", "{ S0[t, i] -> x[] }"),
                ],
            ),
        );
    }
    region(
        "rows:for.body",
        &["T", "n"],
        vec![array("A", &["n"]), array("B", &["n"]), scalar("x")],
        statements,
    )
}

fn rows(scop: &Scop) -> UnionMap {
    parse_union_map(
        &scop.context.ctx(),
        "[T, n] -> { S0[t, i] -> [t, i]; S1[t, i, j] -> [t, i] }",
        "rows",
    )
    .unwrap()
}

#[test]
fn a_scalar_written_at_each_row_start_is_private_to_rows() {
    let (scop, deps) = deps_of(&carried_along_rows(true));
    let flows = deps.scalar_flows(&scop).unwrap().expect("a scalar");
    let private = flows
        .private_to(&rows(&scop))
        .unwrap()
        .expect("x is private");
    assert_eq!(private.scalars, vec!["x".to_string()]);
    // The rows may now run in any order: nothing ties one row to the next.
    assert_excludes(&private.validity, "{ S1[t, i, j] -> S0[t', i'] : i' > i }");
    // Inside a row, x is still written before it is read.
    assert_contains(
        &private.validity,
        "[T, n] -> { S0[t, i] -> S1[t, i, 0] : 0 <= t < T and 0 <= i < n }",
    );
    // The original order leaves the same last write in x; reversed rows do not.
    let original = parse_union_map(
        &scop.context.ctx(),
        "[T, n] -> { S0[t, i] -> [0, t, 0, i, 0, 0, 0]; S1[t, i, j] -> [0, t, 0, i, 1, j, 0] }",
        "original order",
    )
    .unwrap();
    assert!(deps
        .last_writes_unchanged(&scop, &private.scalars, &original)
        .unwrap());
    let reversed = parse_union_map(
        &scop.context.ctx(),
        "[T, n] -> { S0[t, i] -> [t, -i, 0, 0]; S1[t, i, j] -> [t, -i, 1, j] }",
        "reversed rows",
    )
    .unwrap();
    assert!(!deps
        .last_writes_unchanged(&scop, &private.scalars, &reversed)
        .unwrap());
}

#[test]
fn a_scalar_a_row_reads_from_the_previous_row_is_not_private() {
    let (scop, deps) = deps_of(&carried_along_rows(false));
    let flows = deps.scalar_flows(&scop).unwrap().expect("a scalar");
    assert!(flows.private_to(&rows(&scop)).unwrap().is_none());
}
