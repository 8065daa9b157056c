//! Checking schedules against the dependences, and the operation bound.

use super::*;

#[test]
fn original_schedule_respects_its_dependences() {
    for spec in every_region() {
        let (scop, deps) = deps_of(&spec);
        let mut original = UnionMap::empty(&scop.context.ctx()).unwrap();
        for statement in &scop.statements {
            original = original
                .add_map(statement.schedule.copy().unwrap())
                .unwrap();
        }
        assert!(deps.respects(&original).unwrap(), "{}", spec.name);
        assert!(
            deps.respects(&scop.schedule.get_map().unwrap()).unwrap(),
            "{}",
            spec.name
        );
    }
}

#[test]
fn interchanged_schedule_of_matmul_is_valid() {
    let (_scop, deps) = deps_of(&matmul());
    // j outermost, then i.
    let ji = schedule(
        &deps,
        "{ S0[i, j] -> [j, i, 0, 0]; S1[i, j, k] -> [j, i, 1, k] }",
    );
    assert!(deps.respects(&ji).unwrap());
    // Initialization first, then the i-k-j order of the updates.
    let ikj = schedule(
        &deps,
        "{ S0[i, j] -> [0, i, j, 0]; S1[i, j, k] -> [1, i, k, j] }",
    );
    assert!(deps.respects(&ikj).unwrap());
    // The updates of each C[i][j] before its initialization: not valid.
    let init_last = schedule(
        &deps,
        "{ S0[i, j] -> [i, j, 1, 0]; S1[i, j, k] -> [i, j, 0, k] }",
    );
    assert!(!deps.respects(&init_last).unwrap());
    // k outermost, with each initialization in the first k slice: valid.
    let k_first = schedule(
        &deps,
        "{ S0[i, j] -> [0, i, j, 0]; S1[i, j, k] -> [k, i, j, 1] }",
    );
    assert!(deps.respects(&k_first).unwrap());
}

#[test]
fn reversed_loop_violates_flow() {
    let (_scop, deps) = deps_of(&in_place_stencil());
    assert!(deps.respects(&schedule(&deps, "{ S0[i] -> [i] }")).unwrap());
    assert!(!deps
        .respects(&schedule(&deps, "{ S0[i] -> [-i] }"))
        .unwrap());
    let (_scop, deps) = deps_of(&producer_consumer());
    // Consumer loop before the producer loop.
    assert!(!deps
        .respects(&schedule(&deps, "{ S0[i] -> [1, i]; S1[i] -> [0, i] }"))
        .unwrap());
    // Fused: each consumer right after its producer.
    assert!(deps
        .respects(&schedule(&deps, "{ S0[i] -> [i, 0]; S1[i] -> [i, 1] }"))
        .unwrap());
}

#[test]
fn reversed_reduction_loop_is_valid_only_with_reassociation() {
    let reversed = "{ S0[i, j] -> [i, j, 0, 0]; S1[i, j, k] -> [i, j, 1, -k] }";
    for allow_reassociation in [false, true] {
        let options = DepsOptions {
            reductions: vec![reduction("S1", "C")],
            allow_reassociation,
        };
        let (_scop, deps) = deps_with(&matmul(), &options);
        let valid = deps.respects(&schedule(&deps, reversed)).unwrap();
        assert_eq!(valid, allow_reassociation);
    }
}

#[test]
fn schedule_that_leaves_instances_out_is_not_valid() {
    let (_scop, deps) = deps_of(&producer_consumer());
    let partial = schedule(&deps, "{ S0[i] -> [0, i] }");
    assert!(!deps.respects(&partial).unwrap());
    // Time stamps in different spaces cannot be compared: not valid.
    let mixed = schedule(&deps, "{ S0[i] -> [0, i]; S1[i] -> [1, i, 0] }");
    assert!(!deps.respects(&mixed).unwrap());
}

#[test]
fn operation_limit_is_an_error() {
    let (ctx, scop) = build(&jacobi());
    ctx.set_max_operations(Some(1));
    ctx.start_region();
    let error = Dependences::compute(&scop, &DepsOptions::default()).unwrap_err();
    assert!(error.is_operation_limit(), "{error:?}");
    assert_eq!(error.region(), "jacobi:for.body");
    let shown = error.to_string();
    assert!(shown.starts_with("region jacobi:for.body: "), "{shown}");
    assert!(shown.contains("-polyrust-max-operations"), "{shown}");
    // A bound that the analysis fits in gives the same result as no bound.
    ctx.set_max_operations(None);
    ctx.start_region();
    let unbounded = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
    ctx.set_max_operations(Some(10_000_000));
    ctx.start_region();
    let bounded = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
    assert_eq!(unbounded.print(), bounded.print());
}

#[test]
fn operation_limit_in_every_step_is_an_error_never_a_panic() {
    // Whatever step the bound stops, the answer is an error (or, for generous bounds,
    // the dependences).
    let (ctx, scop) = build(&matmul());
    let options = DepsOptions {
        reductions: vec![reduction("S1", "C")],
        allow_reassociation: true,
    };
    let mut steps = std::collections::BTreeSet::new();
    let mut computed = 0;
    for bound in (0..60).map(|k| 1.4_f64.powi(k) as u64) {
        ctx.set_max_operations(Some(bound.max(1)));
        ctx.start_region();
        match Dependences::compute(&scop, &options) {
            Ok(_) => computed += 1,
            Err(error) => {
                assert!(error.is_operation_limit(), "{error}");
                if let DepsError::Isl { step, .. } = error {
                    steps.insert(step);
                }
            }
        }
    }
    assert!(steps.len() > 1, "{steps:?}");
    assert!(computed > 0, "no bound was large enough");
}

/// `for t < m: { for 1 <= i < n-1: S0: B[i] = A[i-1] + A[i+1]; for 1 <= i < n-1: S1:
/// A[i] = B[i] }`.
fn jacobi_1d_in_time() -> ScopSpec {
    region(
        "jacobi:entry",
        &["m", "n"],
        vec![array("A", &[]), array("B", &[])],
        vec![
            statement(
                "S0",
                "[m, n] -> { S0[t, i] : 0 <= t < m and 1 <= i < n - 1 }",
                &[0, 0, 0],
                vec![
                    read("A", "{ S0[t, i] -> A[i - 1] }"),
                    read("A", "{ S0[t, i] -> A[i + 1] }"),
                    write("B", "{ S0[t, i] -> B[i] }"),
                ],
            ),
            statement(
                "S1",
                "[m, n] -> { S1[t, i] : 0 <= t < m and 1 <= i < n - 1 }",
                &[0, 1, 0],
                vec![
                    read("B", "{ S1[t, i] -> B[i] }"),
                    write("A", "{ S1[t, i] -> A[i] }"),
                ],
            ),
        ],
    )
}

#[test]
fn distances_within_the_time_loop_go_backwards_in_space() {
    let (_scop, deps) = deps_of(&jacobi_1d_in_time());
    let mut pairs = deps.distances_within_loop(&[0]).unwrap();
    pairs.sort_by(|a, b| (&a.source, &a.sink).cmp(&(&b.source, &b.sink)));
    let found: Vec<(&str, &str, Vec<Option<i64>>)> = pairs
        .iter()
        .map(|p| (p.source.as_str(), p.sink.as_str(), p.lower.clone()))
        .collect();
    assert_eq!(
        found,
        [
            // B[i] written then read in the same step; rewritten in the next one.
            ("S0", "S0", vec![Some(1), Some(0)]),
            // B[i] read by S1, read of A[i +- 1] before S1 rewrites it.
            ("S0", "S1", vec![Some(0), Some(-1)]),
            // A[i] read in the next step at i - 1 and i + 1.
            ("S1", "S0", vec![Some(1), Some(-1)]),
            ("S1", "S1", vec![Some(1), Some(0)]),
        ]
    );
    // Inside one step (the loops at positions [0, 0] and [0, 1]) nothing crosses.
    assert!(deps.distances_within_loop(&[0, 0]).unwrap().is_empty());
}
