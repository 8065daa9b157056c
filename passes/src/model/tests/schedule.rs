//! The original schedule reproduces program order, checked with isl on instances.

use super::*;

#[test]
fn perfect_nest_runs_rows_in_order() {
    let (_ctx, scop) = build(&perfect_nest());
    assert_tree_matches_flat_schedule(&scop);
    let before = runs_before(&scop, scop.schedule.get_map().unwrap());
    assert_runs_before(
        &scop,
        &before,
        "{ S0[i, j] -> S0[i, j + 1]; S0[i, j] -> S0[i + 1, 0] }",
    );
    assert_never_runs_before(&scop, &before, "{ S0[i, j] -> S0[i - 1, k] }");
}

#[test]
fn schedule_of_imperfect_nest_runs_statements_in_program_order() {
    let (_ctx, scop) = build(&imperfect_nest());
    assert_tree_matches_flat_schedule(&scop);
    let before = runs_before(&scop, scop.schedule.get_map().unwrap());
    // Within one iteration of the outer loop: S0, then the whole inner loop, then S2.
    assert_runs_before(
        &scop,
        &before,
        "{ S0[i] -> S1[i, j]; S1[i, j] -> S2[i]; S0[i] -> S2[i]; S1[i, j] -> S1[i, j + 1] }",
    );
    // The next outer iteration starts after S2.
    assert_runs_before(
        &scop,
        &before,
        "{ S2[i] -> S0[i + 1]; S2[i] -> S1[i + 1, j] }",
    );
    assert_never_runs_before(
        &scop,
        &before,
        "{ S1[i, j] -> S0[i]; S2[i] -> S1[i, j]; S2[i] -> S0[i]; S1[i, j] -> S1[i - 1, k] }",
    );
    // Statements of lower depth are padded with zeros to the common 2d+1 = 5 dimensions.
    assert_eq!(
        scop.statements[0].schedule.to_str().unwrap(),
        "[n, m] -> { S0[i0] -> [0, i0, 0, 0, 0] }"
    );
    assert_eq!(
        scop.statements[1].schedule.to_str().unwrap(),
        "[n, m] -> { S1[i0, i1] -> [0, i0, 1, i1, 0] }"
    );
    assert_eq!(
        scop.statements[2].schedule.to_str().unwrap(),
        "[n, m] -> { S2[i0] -> [0, i0, 2, 0, 0] }"
    );
}

#[test]
fn imperfect_nest_tree_is_a_band_over_a_sequence() {
    let (_ctx, scop) = build(&imperfect_nest());
    let yaml = scop.schedule.to_block_yaml().unwrap();
    let band = yaml
        .find("S0[i0] -> [(i0)]; ")
        .expect("outer band over all three");
    let sequence = yaml.find("sequence:").expect("a sequence below it");
    let inner = yaml
        .find("[{ S1[i0, i1] -> [(i1)] }]")
        .expect("inner band over S1 only");
    assert!(band < sequence && sequence < inner, "{yaml}");
    let filters: Vec<usize> = [
        "filter: \"[n, m] -> { S0[i0] }\"",
        "filter: \"[n, m] -> { S1[i0, i1] }\"",
        "filter: \"[n, m] -> { S2[i0] }\"",
    ]
    .iter()
    .map(|f| yaml.find(f).unwrap_or_else(|| panic!("{f} in {yaml}")))
    .collect();
    assert!(filters.windows(2).all(|w| w[0] < w[1]), "{yaml}");
}

#[test]
fn sibling_loop_nests_run_one_after_the_other() {
    let (_ctx, scop) = build(&sibling_nests());
    assert_tree_matches_flat_schedule(&scop);
    let before = runs_before(&scop, scop.schedule.get_map().unwrap());
    assert_runs_before(&scop, &before, "[n] -> { S0[i, j] -> S1[k] }");
    assert_never_runs_before(&scop, &before, "[n] -> { S1[k] -> S0[i, j] }");
    assert_eq!(
        scop.statements[1].schedule.to_str().unwrap(),
        "[n] -> { S1[i0] -> [1, i0, 0, 0, 0] }"
    );
}

#[test]
fn triangular_domain_keeps_its_bounds_and_lexicographic_order() {
    let spec = region(
        &["n"],
        "[n] -> { : }",
        vec![array("L", &["n"])],
        vec![statement(
            "S0",
            "[n] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 <= i0 }",
            &[0, 0, 0],
            vec![
                read("L", "{ S0[i0, i1] -> L[i0, i1] }"),
                write("L", "{ S0[i0, i1] -> L[i1, i0] }"),
            ],
        )],
    );
    let (ctx, scop) = build(&spec);
    assert_tree_matches_flat_schedule(&scop);
    let expected = parse_set(&ctx, "[n] -> { S0[i, j] : 0 <= j <= i < n }", "expected").unwrap();
    assert!(scop.statements[0].domain.is_equal(&expected).unwrap());
    let before = runs_before(&scop, scop.schedule.get_map().unwrap());
    let lexicographic = instance_pairs(
        &scop,
        "[n] -> { S0[i, j] -> S0[i2, j2] : i < i2 or (i = i2 and j < j2) }",
    );
    assert!(before.is_equal(&lexicographic).unwrap());
}

#[test]
fn mixed_depths_and_statements_outside_loops_keep_program_order() {
    // S0; for i { for j { S1; S2 } ; for j { for k { S3 } } ; S4 }; S5
    let spec = region(
        &["n"],
        "[n] -> { : }",
        vec![],
        vec![
            statement("S0", "{ S0[] }", &[0], vec![]),
            statement(
                "S1",
                "[n] -> { S1[i0, i1] : 0 <= i0, i1 < n }",
                &[1, 0, 0],
                vec![],
            ),
            statement(
                "S2",
                "[n] -> { S2[i0, i1] : 0 <= i0, i1 < n }",
                &[1, 0, 1],
                vec![],
            ),
            statement(
                "S3",
                "[n] -> { S3[i0, i1, i2] : 0 <= i0, i1, i2 < n }",
                &[1, 1, 0, 0],
                vec![],
            ),
            statement("S4", "[n] -> { S4[i0] : 0 <= i0 < n }", &[1, 2], vec![]),
            statement("S5", "{ S5[] }", &[2], vec![]),
        ],
    );
    let (_ctx, scop) = build(&spec);
    assert_tree_matches_flat_schedule(&scop);
    let before = runs_before(&scop, scop.schedule.get_map().unwrap());
    assert_runs_before(
        &scop,
        &before,
        "[n] -> { S0[] -> S1[i, j]; S1[i, j] -> S2[i, j]; S2[i, j] -> S1[i, j + 1]; \
                  S2[i, j] -> S3[i, k, l]; S3[i, j, k] -> S4[i]; S4[i] -> S1[i + 1, 0]; \
                  S4[i] -> S5[] }",
    );
    assert_never_runs_before(
        &scop,
        &before,
        "[n] -> { S5[] -> S0[]; S3[i, j, k] -> S2[i, l] }",
    );
    assert_eq!(
        scop.statements[0].schedule.to_str().unwrap(),
        "[n] -> { S0[] -> [0, 0, 0, 0, 0, 0, 0] }"
    );
}

#[test]
fn the_original_tree_orders_like_the_written_program_after_an_import() {
    let (_ctx, mut scop) = build(&sibling_nests());
    let original = runs_before(&scop, scop.schedule.get_map().unwrap());
    // Any other schedule in the model (as -polyrust-import puts there): S1 first.
    let reversed = parse_union_map(
        &scop.context.ctx(),
        "[n] -> { S0[i0, i1] -> [1, i0, i1]; S1[i0] -> [0, i0, 0] }",
        "reversed",
    )
    .unwrap();
    scop.schedule = crate::isl::Schedule::from_domain(scop.domains.copy().unwrap())
        .unwrap()
        .insert_band(reversed)
        .unwrap();
    let tree = scop.original_schedule_tree().unwrap();
    let rebuilt = runs_before(&scop, tree.get_map().unwrap());
    assert!(
        original.is_equal(&rebuilt).unwrap(),
        "{original:?}\nvs\n{rebuilt:?}"
    );
}
