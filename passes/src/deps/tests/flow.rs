//! Flow (read-after-write) dependences: value-based, exact, and the loops they cross.

use super::*;

#[test]
fn producer_consumer_flow_goes_from_producer_to_consumer() {
    let (_scop, deps) = deps_of(&producer_consumer());
    assert_relation(&deps.flow, "[n] -> { S0[i] -> S1[i] : 0 <= i < n }");
    assert!(deps.anti.is_empty().unwrap());
    assert!(deps.output.is_empty().unwrap());
    // Each statement's own loop carries nothing.
    assert_eq!(deps.loop_is_parallel("S0", 1), Some(true));
    assert_eq!(deps.loop_is_parallel("S1", 1), Some(true));
    assert_eq!(deps.loop_is_parallel("S1", 2), None);
}

#[test]
fn value_based_flow_ignores_overwritten_writes() {
    // S0 writes A, S1 overwrites all of it, S2 reads it: the value S2 reads is S1's.
    let mut spec = producer_consumer();
    spec.statements[1] = statement(
        "S1",
        "[n] -> { S1[i0] : 0 <= i0 < n }",
        &[1, 0],
        vec![write("A", "{ S1[i0] -> A[i0] }")],
    );
    spec.statements.push(statement(
        "S2",
        "[n] -> { S2[i0] : 0 <= i0 < n }",
        &[2, 0],
        vec![
            read("A", "{ S2[i0] -> A[i0] }"),
            write("B", "{ S2[i0] -> B[i0] }"),
        ],
    ));
    let (_scop, deps) = deps_of(&spec);
    assert_relation(&deps.flow, "[n] -> { S1[i] -> S2[i] : 0 <= i < n }");
    assert_relation(&deps.output, "[n] -> { S0[i] -> S1[i] : 0 <= i < n }");
}

#[test]
fn may_write_does_not_hide_the_write_before_it() {
    // S1 writes A[i] only under a condition the model does not capture.
    let mut spec = producer_consumer();
    spec.statements[1] = statement(
        "S1",
        "[n] -> { S1[i0] : 0 <= i0 < n }",
        &[1, 0],
        vec![may_write("A", "{ S1[i0] -> A[i0] }")],
    );
    spec.statements.push(statement(
        "S2",
        "[n] -> { S2[i0] : 0 <= i0 < n }",
        &[2, 0],
        vec![
            read("A", "{ S2[i0] -> A[i0] }"),
            write("B", "{ S2[i0] -> B[i0] }"),
        ],
    ));
    let (_scop, deps) = deps_of(&spec);
    assert_relation(
        &deps.flow,
        "[n] -> { S0[i] -> S2[i] : 0 <= i < n; S1[i] -> S2[i] : 0 <= i < n }",
    );
    assert_relation(&deps.output, "[n] -> { S0[i] -> S1[i] : 0 <= i < n }");
}

#[test]
fn flow_of_stencil_is_carried_by_time_loop_only() {
    let (_scop, deps) = deps_of(&jacobi());
    // Within a time step, S1 reads what S0 wrote in the same step (same i).
    assert_contains(
        &deps.flow,
        "[tsteps, n] -> { S0[t, i] -> S1[t, i] : 0 <= t < tsteps and 1 <= i < n - 1 }",
    );
    // Across time steps, S0 reads A[i-1], A[i], A[i+1] that S1 wrote in the step before.
    assert_contains(
        &deps.flow,
        "[tsteps, n] -> { S1[t, i] -> S0[t + 1, i + 1] : 0 <= t < tsteps - 1 and \
         1 <= i < n - 2 }",
    );
    assert_excludes(&deps.flow, "{ S1[t, i] -> S0[t', i'] : t' >= t + 2 }");
    for statement in ["S0", "S1"] {
        assert!(!carried(&deps, statement, 1).is_empty(), "{statement}");
        assert_eq!(deps.loop_is_parallel(statement, 1), Some(false));
        assert_eq!(carried(&deps, statement, 2), vec![], "{statement}");
        assert_eq!(deps.loop_is_parallel(statement, 2), Some(true));
    }
    assert!(carried(&deps, "S0", 1).contains(&DependenceKind::Flow));
}

#[test]
fn flow_distance_of_in_place_stencil_is_one_iteration() {
    let (_scop, deps) = deps_of(&in_place_stencil());
    assert_relation(&deps.flow, "[n] -> { S0[i] -> S0[i + 1] : 1 <= i < n - 2 }");
    let distances = deps.distances(DependenceKind::Flow).unwrap();
    assert_eq!(distances.to_str().unwrap(), "[n] -> { [0, 1, 0] : n >= 4 }");
    assert_eq!(
        carried(&deps, "S0", 1),
        vec![DependenceKind::Flow, DependenceKind::Anti]
    );
}

#[test]
fn dependences_follow_program_order_not_the_current_schedule() {
    let (_ctx, mut scop) = build(&in_place_stencil());
    let before = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
    // A later stage (or an imported schedule) reverses the loop.
    let ctx = scop.context.ctx();
    scop.statements[0].schedule =
        crate::isl::parse_map(&ctx, "[n] -> { S0[i0] -> [0, -i0, 0] }", "reversed").unwrap();
    let after = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
    assert!(before.flow.is_equal(&after.flow).unwrap());
    assert!(before.anti.is_equal(&after.anti).unwrap());
    assert_eq!(before.print(), after.print());
}

#[test]
fn flow_within_one_iteration_is_carried_by_no_loop() {
    // for i: { S0: x[i] = ...; S1: y[i] = x[i] }: same iteration, textual order only.
    let spec = region(
        "f:entry",
        &["n"],
        vec![array("x", &[]), array("y", &[])],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![write("x", "{ S0[i0] -> x[i0] }")],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[0, 1],
                vec![
                    read("x", "{ S1[i0] -> x[i0] }"),
                    write("y", "{ S1[i0] -> y[i0] }"),
                ],
            ),
        ],
    );
    let (_scop, deps) = deps_of(&spec);
    assert_relation(&deps.flow, "[n] -> { S0[i] -> S1[i] : 0 <= i < n }");
    assert_eq!(deps.loop_is_parallel("S0", 1), Some(true));
    let distances = deps.distances(DependenceKind::Flow).unwrap();
    assert_eq!(distances.to_str().unwrap(), "[n] -> { [0, 0, 1] : n > 0 }");
}

#[test]
fn ordering_by_the_schedule_tree_gives_the_dependences_of_the_time_stamps() {
    // The analyses order accesses by the original schedule tree; isl's analysis under the
    // flattened 2d+1 time stamps must find the same pairs, kind by kind.
    use crate::deps::program_order::original_schedule;
    use crate::isl::UnionAccessInfo;
    for spec in every_region() {
        let (scop, deps) = deps_of(&spec);
        let stamps = original_schedule(&scop).unwrap();
        let writes = || {
            scop.must_writes
                .copy()
                .and_then(|w| w.union(scop.may_writes.copy()?))
                .unwrap()
        };
        let flow = UnionAccessInfo::from_sink(scop.reads.copy().unwrap())
            .and_then(|q| q.set_must_source(scop.must_writes.copy()?))
            .and_then(|q| q.set_may_source(scop.may_writes.copy()?));
        let anti = UnionAccessInfo::from_sink(writes())
            .and_then(|q| q.set_may_source(scop.reads.copy()?))
            .and_then(|q| q.set_kill(scop.must_writes.copy()?));
        let output = UnionAccessInfo::from_sink(writes())
            .and_then(|q| q.set_must_source(scop.must_writes.copy()?))
            .and_then(|q| q.set_may_source(scop.may_writes.copy()?));
        for (question, found) in [
            (flow, &deps.flow),
            (anti, &deps.anti),
            (output, &deps.output),
        ] {
            let expected = question
                .and_then(|q| q.set_schedule_map(stamps.copy()?))
                .and_then(|q| q.compute_flow())
                .and_then(|f| f.may_dependence())
                .and_then(|d| d.intersect_params(scop.context.copy()?))
                .unwrap();
            assert!(
                expected.is_equal(found).unwrap(),
                "{}: {expected:?}\nvs\n{found:?}",
                scop.name
            );
        }
    }
}

#[test]
fn unrolled_point_writes_still_kill_as_must_writes() {
    // A loop LLVM unrolled fully: S0 and S1 each write A[0], ..., A[7] one element per
    // access; S2 reads A[i]. The accesses are coalesced into ranges before the
    // analysis, and S1's writes must still hide S0's.
    let points = |name: &str| -> Vec<_> {
        (0..8)
            .map(|k| write("A", &format!("{{ {name}[] -> A[{k}] }}")))
            .collect()
    };
    let spec = region(
        "unrolled:entry",
        &[],
        vec![array("A", &[])],
        vec![
            statement("S0", "{ S0[] }", &[0], points("S0")),
            statement("S1", "{ S1[] }", &[1], points("S1")),
            statement(
                "S2",
                "{ S2[i0] : 0 <= i0 < 8 }",
                &[2, 0],
                vec![read("A", "{ S2[i0] -> A[i0] }")],
            ),
        ],
    );
    let (_scop, deps) = deps_of(&spec);
    assert_relation(&deps.flow, "{ S1[] -> S2[i] : 0 <= i < 8 }");
    assert_relation(&deps.output, "{ S0[] -> S1[] }");
}

#[test]
fn guarded_update_reads_every_earlier_update_and_keeps_its_inner_loop_parallel() {
    // The reference BLAS dgemm under `if (B(l,j) != 0.)`: every instance may write
    // C(i,j), so a read of it may see any earlier l's value (not only l - 1's), yet
    // nothing crosses i, and j stays parallel.
    let spec = region(
        "guarded:entry",
        &["n"],
        vec![array("B", &["n"]), array("A", &["n"]), array("C", &["n"])],
        vec![statement(
            "S0",
            "[n] -> { S0[j, l, i] : 0 <= j < n and 0 <= l < n and 0 <= i < n }",
            &[0, 0, 0, 0],
            vec![
                read("B", "{ S0[j, l, i] -> B[j, l] }"),
                read("A", "{ S0[j, l, i] -> A[l, i] }"),
                read("C", "{ S0[j, l, i] -> C[j, i] }"),
                may_write("C", "{ S0[j, l, i] -> C[j, i] }"),
            ],
        )],
    );
    let (_scop, deps) = deps_of(&spec);
    assert_relation(
        &deps.flow,
        "[n] -> { S0[j, l, i] -> S0[j, l2, i] : 0 <= j < n and 0 <= l < l2 < n and 0 <= i < n }",
    );
    assert_eq!(deps.loop_is_parallel("S0", 1), Some(true));
    assert_eq!(deps.loop_is_parallel("S0", 2), Some(false));
    assert_eq!(deps.loop_is_parallel("S0", 3), Some(true));
}
