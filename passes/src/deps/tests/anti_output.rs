//! Anti (write-after-read) and output (write-after-write) dependences, value-based.

use super::*;

#[test]
fn anti_dependence_of_in_place_update() {
    // A[i] = A[i - 1] + A[i + 1]: iteration i reads A[i + 1] before iteration i + 1
    // overwrites it.
    let (_scop, deps) = deps_of(&in_place_stencil());
    assert_relation(&deps.anti, "[n] -> { S0[i] -> S0[i + 1] : 1 <= i < n - 2 }");
    assert!(deps.output.is_empty().unwrap());
    let distances = deps.distances(DependenceKind::Anti).unwrap();
    assert_eq!(distances.to_str().unwrap(), "[n] -> { [0, 1, 0] : n >= 4 }");
}

#[test]
fn anti_dependence_only_on_reads_since_the_last_write() {
    // S0: read x; S1: x = ..; S2: read x; S3: x = ..: S3 overwrites the value S2 read,
    // not the one S0 read (S1 already overwrote that).
    let spec = region(
        "f:entry",
        &[],
        vec![scalar("x"), array("out", &[])],
        vec![
            statement(
                "S0",
                "{ S0[] }",
                &[0],
                vec![
                    read("x", "{ S0[] -> x[] }"),
                    write("out", "{ S0[] -> out[0] }"),
                ],
            ),
            statement("S1", "{ S1[] }", &[1], vec![write("x", "{ S1[] -> x[] }")]),
            statement(
                "S2",
                "{ S2[] }",
                &[2],
                vec![
                    read("x", "{ S2[] -> x[] }"),
                    write("out", "{ S2[] -> out[1] }"),
                ],
            ),
            statement("S3", "{ S3[] }", &[3], vec![write("x", "{ S3[] -> x[] }")]),
        ],
    );
    let (_scop, deps) = deps_of(&spec);
    assert_relation(&deps.anti, "{ S0[] -> S1[]; S2[] -> S3[] }");
    assert_relation(&deps.output, "{ S1[] -> S3[] }");
    assert_relation(&deps.flow, "{ S1[] -> S2[] }");
}

#[test]
fn output_dependence_of_repeated_writes() {
    // for i: for j: A[i] = j: each write on the one just before it, carried by j only.
    let spec = region(
        "f:for.cond",
        &["n", "m"],
        vec![array("A", &[])],
        vec![statement(
            "S0",
            "[n, m] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }",
            &[0, 0, 0],
            vec![write("A", "{ S0[i0, i1] -> A[i0] }")],
        )],
    );
    let (_scop, deps) = deps_of(&spec);
    assert_relation(
        &deps.output,
        "[n, m] -> { S0[i, j] -> S0[i, j + 1] : 0 <= i < n and 0 <= j < m - 1 }",
    );
    assert!(deps.flow.is_empty().unwrap());
    assert!(deps.anti.is_empty().unwrap());
    assert_eq!(carried(&deps, "S0", 1), vec![]);
    assert_eq!(carried(&deps, "S0", 2), vec![DependenceKind::Output]);
}

#[test]
fn matmul_k_loop_carries_the_dependences_on_c_and_i_j_are_parallel() {
    let (_scop, deps) = deps_of(&matmul());
    let domain = "0 <= i < n and 0 <= j < m";
    assert_relation(
        &deps.flow,
        &format!(
            "[n, m, p] -> {{ S0[i, j] -> S1[i, j, 0] : {domain} and p > 0; \
             S1[i, j, k] -> S1[i, j, k + 1] : {domain} and 0 <= k < p - 1 }}"
        ),
    );
    assert_relation(
        &deps.output,
        &format!(
            "[n, m, p] -> {{ S0[i, j] -> S1[i, j, 0] : {domain} and p > 0; \
             S1[i, j, k] -> S1[i, j, k + 1] : {domain} and 0 <= k < p - 1 }}"
        ),
    );
    assert_relation(
        &deps.anti,
        &format!("[n, m, p] -> {{ S1[i, j, k] -> S1[i, j, k + 1] : {domain} and 0 <= k < p - 1 }}"),
    );
    for (statement, level) in [("S0", 1), ("S0", 2), ("S1", 1), ("S1", 2)] {
        assert_eq!(
            deps.loop_is_parallel(statement, level),
            Some(true),
            "{statement} {level}"
        );
    }
    assert_eq!(
        carried(&deps, "S1", 3),
        vec![
            DependenceKind::Flow,
            DependenceKind::Anti,
            DependenceKind::Output
        ]
    );
    assert_eq!(
        deps.loop_carry("S1", 3).map(|l| l.iterator.as_str()),
        Some("i2")
    );
}
