//! Reductions: reported apart, kept unless reassociation is allowed, and when relaxed
//! still ordered against the other accesses to their element.

use super::*;

fn sum_with(allow_reassociation: bool) -> (Scop, Dependences) {
    deps_with(
        &scalar_sum(),
        &DepsOptions {
            reductions: vec![reduction("S1", "s")],
            allow_reassociation,
        },
    )
}

#[test]
fn scalar_accumulation_depends_on_itself_through_a_zero_dimensional_array() {
    let (_scop, deps) = deps_of(&scalar_sum());
    let chain = "[n] -> { S1[i] -> S1[i + 1] : 0 <= i < n - 1 }";
    assert_contains(&deps.flow, chain);
    assert_contains(&deps.anti, chain);
    assert_contains(&deps.output, chain);
    // The initialization feeds the first update, the last update feeds the use.
    assert_contains(
        &deps.flow,
        "[n] -> { S0[] -> S1[0] : n > 0; S1[n - 1] -> S2[] : n > 0 }",
    );
    assert_contains(&deps.flow, "[n] -> { S0[] -> S2[] : n <= 0 }");
    assert_eq!(
        carried(&deps, "S1", 1),
        vec![
            DependenceKind::Flow,
            DependenceKind::Anti,
            DependenceKind::Output
        ]
    );
    assert!(deps.reductions.is_empty());
}

#[test]
fn reduction_self_dependence_kept_without_reassociation() {
    let (_scop, deps) = sum_with(false);
    assert_eq!(deps.reductions.len(), 1);
    let reduction = &deps.reductions[0];
    assert_eq!(
        (reduction.statement.as_str(), reduction.array.as_str()),
        ("S1", "s")
    );
    assert_relation(
        &reduction.dependences,
        "[n] -> { S1[i] -> S1[i + 1] : 0 <= i < n - 1 }",
    );
    // Reported, not relaxed: the updates stay in order.
    assert_contains(
        deps.validity(),
        "[n] -> { S1[i] -> S1[i + 1] : 0 <= i < n - 1 }",
    );
    assert_eq!(carried(&deps, "S1", 1), vec![DependenceKind::Reduction]);
    assert_eq!(deps.loop_is_parallel("S1", 1), Some(false));
    // The reduction is still part of flow, anti and output.
    assert_contains(&deps.flow, "[n] -> { S1[i] -> S1[i + 1] : 0 <= i < n - 1 }");
}

#[test]
fn reassociated_reduction_stays_between_initialization_and_use() {
    let (_scop, deps) = sum_with(true);
    let validity = deps.validity();
    // The updates may run in any order...
    assert_excludes(validity, "{ S1[i] -> S1[j] }");
    // ...but all after the initialization and all before the use.
    assert_contains(
        validity,
        "[n] -> { S0[] -> S1[i] : 0 <= i < n; S1[i] -> S2[] : 0 <= i < n }",
    );
    assert_eq!(deps.loop_is_parallel("S1", 1), Some(true));
    assert!(
        deps.print()
            .contains("S1: level 1 (i0) parallel with reduction"),
        "{}",
        deps.print()
    );
}

#[test]
fn reduction_on_one_array_keeps_the_statements_dependences_on_others() {
    // for i: S0: s = s + A[i]; A[i + 1] = s: the same instance pairs go through A too.
    let spec = region(
        "f:for.body",
        &["n"],
        vec![array("A", &[]), scalar("s")],
        vec![statement(
            "S0",
            "[n] -> { S0[i0] : 0 <= i0 < n }",
            &[0, 0],
            vec![
                read("s", "{ S0[i0] -> s[] }"),
                read("A", "{ S0[i0] -> A[i0] }"),
                write("s", "{ S0[i0] -> s[] }"),
                write("A", "{ S0[i0] -> A[i0 + 1] }"),
            ],
        )],
    );
    let options = DepsOptions {
        reductions: vec![reduction("S0", "s")],
        allow_reassociation: true,
    };
    let (_scop, deps) = deps_with(&spec, &options);
    // The flow through A[i + 1] still orders consecutive iterations.
    assert_contains(
        deps.validity(),
        "[n] -> { S0[i] -> S0[i + 1] : 0 <= i < n - 1 }",
    );
    assert_eq!(
        carried(&deps, "S0", 1),
        vec![DependenceKind::Flow, DependenceKind::Reduction]
    );
    assert_eq!(deps.loop_is_parallel("S0", 1), Some(false));
}

#[test]
fn matmul_reduction_makes_k_parallel_only_with_reassociation() {
    let options = |allow_reassociation| DepsOptions {
        reductions: vec![reduction("S1", "C")],
        allow_reassociation,
    };
    let (_scop, kept) = deps_with(&matmul(), &options(false));
    assert_eq!(carried(&kept, "S1", 3), vec![DependenceKind::Reduction]);
    assert_eq!(kept.loop_is_parallel("S1", 3), Some(false));
    let (_scop, relaxed) = deps_with(&matmul(), &options(true));
    assert_eq!(relaxed.loop_is_parallel("S1", 3), Some(true));
    // The initialization of C[i][j] still comes before every update of it.
    assert_contains(
        relaxed.validity(),
        "[n, m, p] -> { S0[i, j] -> S1[i, j, k] : 0 <= i < n and 0 <= j < m and 0 <= k < p }",
    );
}

#[test]
fn reduction_candidate_must_read_and_write_one_element() {
    let (_ctx, scop) = build(&in_place_stencil());
    let cases = [
        (reduction("S9", "A"), "no such statement"),
        (reduction("S0", "Z"), "no such array"),
        (reduction("S0", "A"), "2 read(s)"),
    ];
    for (candidate, problem) in cases {
        let options = DepsOptions {
            reductions: vec![candidate.clone()],
            allow_reassociation: true,
        };
        match Dependences::compute(&scop, &options) {
            Err(error @ DepsError::InvalidReduction { .. }) => {
                let shown = error.to_string();
                assert!(shown.contains(problem), "{shown}");
                assert!(shown.contains("stencil:for.body"), "{shown}");
                assert!(shown.contains(&candidate.statement), "{shown}");
            }
            other => panic!("{candidate:?} gave {other:?}"),
        }
    }
    // Reading one element and writing another is no reduction either.
    let mut spec = in_place_stencil();
    spec.statements[0].accesses.remove(1);
    let (_ctx, scop) = build(&spec);
    let options = DepsOptions {
        reductions: vec![reduction("S0", "A")],
        allow_reassociation: false,
    };
    let error = Dependences::compute(&scop, &options).unwrap_err();
    assert!(error.to_string().contains("the same element"), "{error}");
}
