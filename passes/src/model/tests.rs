//! Tests of the model, each starting from isl strings.

use std::path::Path;

use super::json::{export, import_schedule};
use super::*;
use crate::isl::{parse_set, parse_union_map, IslCtx, IslError, UnionMap};

fn ctx() -> IslCtx {
    IslCtx::new(None).expect("an isl context")
}

fn access(kind: AccessKind, array: &str, relation: &str, instruction: &str) -> AccessSpec {
    AccessSpec {
        kind,
        array: array.into(),
        relation: relation.into(),
        instruction: instruction.into(),
    }
}

fn read(array: &str, relation: &str) -> AccessSpec {
    access(AccessKind::Read, array, relation, "")
}

fn write(array: &str, relation: &str) -> AccessSpec {
    access(AccessKind::MustWrite, array, relation, "")
}

fn statement(
    name: &str,
    domain: &str,
    positions: &[u32],
    accesses: Vec<AccessSpec>,
) -> StatementSpec {
    StatementSpec {
        name: name.into(),
        block: format!("%{}.block", name.to_lowercase()),
        domain: domain.into(),
        textual_positions: positions.to_vec(),
        accesses,
    }
}

fn array(name: &str, inner_sizes: &[&str]) -> ArraySpec {
    ArraySpec {
        name: name.into(),
        element_type: "double".into(),
        element_size: 8,
        inner_sizes: inner_sizes.iter().map(|s| s.to_string()).collect(),
        is_scalar: false,
    }
}

fn scalar(name: &str) -> ArraySpec {
    ArraySpec {
        name: name.into(),
        element_type: "double".into(),
        element_size: 8,
        inner_sizes: vec![],
        is_scalar: true,
    }
}

fn region(
    params: &[&str],
    context: &str,
    arrays: Vec<ArraySpec>,
    statements: Vec<StatementSpec>,
) -> ScopSpec {
    ScopSpec {
        name: "f:for.cond".into(),
        function: "f".into(),
        location: Some("file.c:3:5".into()),
        params: params.iter().map(|s| s.to_string()).collect(),
        context: context.into(),
        assumptions: vec![],
        arrays,
        statements,
        alias_groups: vec![],
    }
}

/// `for i < n: for j < m: A[i][j] = B[i][j]`.
fn perfect_nest() -> ScopSpec {
    let mut spec = region(
        &["n", "m"],
        "[n, m] -> { : -2147483648 <= n <= 2147483647 and -2147483648 <= m <= 2147483647 }",
        vec![array("A", &["m"]), array("B", &["m"])],
        vec![statement(
            "S0",
            "[n, m] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }",
            &[0, 0, 0],
            vec![
                access(
                    AccessKind::Read,
                    "B",
                    "[m] -> { S0[i0, i1] -> B[i0, i1] }",
                    "%v = load double, ptr %p",
                ),
                access(
                    AccessKind::MustWrite,
                    "A",
                    "{ S0[i0, i1] -> A[i0, i1] }",
                    "store double %v, ptr %q",
                ),
            ],
        )],
    );
    spec.assumptions.push(Assumption {
        kind: AssumptionKind::NoWrap,
        set: "[n] -> { : n <= 2147483646 }".into(),
        statement: None,
        reason: "counter of %for.body does not wrap".into(),
    });
    spec.alias_groups.push(vec!["A".into(), "B".into()]);
    spec
}

/// `for i < n: { S0: s = A[i]; for j < m: S1: B[i][j] = s; S2: A[i] = s }`.
fn imperfect_nest() -> ScopSpec {
    region(
        &["n", "m"],
        "[n, m] -> { : }",
        vec![array("A", &[]), array("B", &["m"]), scalar("s")],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![
                    read("A", "{ S0[i0] -> A[i0] }"),
                    write("s", "{ S0[i0] -> s[] }"),
                ],
            ),
            statement(
                "S1",
                "[n, m] -> { S1[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }",
                &[0, 1, 0],
                vec![
                    read("s", "{ S1[i0, i1] -> s[] }"),
                    write("B", "{ S1[i0, i1] -> B[i0, i1] }"),
                ],
            ),
            statement(
                "S2",
                "[n] -> { S2[i0] : 0 <= i0 < n }",
                &[0, 2],
                vec![
                    read("s", "{ S2[i0] -> s[] }"),
                    write("A", "{ S2[i0] -> A[i0] }"),
                ],
            ),
        ],
    )
}

/// Two loop nests one after the other: a 2-deep one, then a 1-deep one.
fn sibling_nests() -> ScopSpec {
    region(
        &["n"],
        "[n] -> { : n >= 0 }",
        vec![array("A", &["n"]), array("x", &[])],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < n }",
                &[0, 0, 0],
                vec![write("A", "{ S0[i0, i1] -> A[i0, i1] }")],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![
                    read("A", "{ S1[i0] -> A[i0, i0] }"),
                    write("x", "{ S1[i0] -> x[i0] }"),
                ],
            ),
        ],
    )
}

fn build(spec: &ScopSpec) -> (IslCtx, Scop) {
    let ctx = ctx();
    let scop = Scop::build(&ctx, spec).unwrap_or_else(|error| panic!("{error}"));
    (ctx, scop)
}

fn build_error(spec: &ScopSpec) -> ModelError {
    let ctx = ctx();
    match Scop::build(&ctx, spec) {
        Ok(scop) => panic!("expected an error, got\n{}", scop.print()),
        Err(error) => error,
    }
}

/// The union of the statements' flattened schedules.
fn flat_schedule(scop: &Scop) -> UnionMap {
    let ctx = scop.context.ctx();
    let mut union = UnionMap::empty(&ctx).unwrap();
    for statement in &scop.statements {
        union = union.add_map(statement.schedule.copy().unwrap()).unwrap();
    }
    union
}

/// `{ a -> b : a runs before b }` for the instances of the region under `schedule`.
fn runs_before(scop: &Scop, schedule: UnionMap) -> UnionMap {
    let on_domain = schedule
        .intersect_domain(scop.domains.copy().unwrap())
        .unwrap();
    on_domain
        .copy()
        .unwrap()
        .lex_lt_union_map(on_domain)
        .unwrap()
}

/// `pairs` restricted to instances of the region.
fn instance_pairs(scop: &Scop, pairs: &str) -> UnionMap {
    parse_union_map(&scop.context.ctx(), pairs, "test pairs")
        .unwrap()
        .intersect_domain(scop.domains.copy().unwrap())
        .unwrap()
        .intersect_range(scop.domains.copy().unwrap())
        .unwrap()
}

fn assert_runs_before(scop: &Scop, before: &UnionMap, pairs: &str) {
    let pairs = instance_pairs(scop, pairs);
    assert!(
        !pairs.is_empty().unwrap(),
        "test pairs {pairs:?} are not instances"
    );
    assert!(
        pairs.is_subset(before).unwrap(),
        "not all of {pairs:?} in {before:?}"
    );
}

fn assert_never_runs_before(scop: &Scop, before: &UnionMap, pairs: &str) {
    let pairs = instance_pairs(scop, pairs);
    let common = pairs.intersect(before.copy().unwrap()).unwrap();
    assert!(
        common.is_empty().unwrap(),
        "{common:?} should not run in this order"
    );
}

/// Checks the schedule tree orders instances exactly as the flattened 2d+1 schedule,
/// and that the flattened schedule gives each instance its own time stamp.
fn assert_tree_matches_flat_schedule(scop: &Scop) {
    let flat = flat_schedule(scop);
    let on_domain = flat
        .copy()
        .unwrap()
        .intersect_domain(scop.domains.copy().unwrap())
        .unwrap();
    assert!(
        on_domain.is_injective().unwrap(),
        "two instances share a time stamp"
    );
    let from_flat = runs_before(scop, flat);
    let from_tree = runs_before(scop, scop.schedule.get_map().unwrap());
    assert!(
        from_flat.is_equal(&from_tree).unwrap(),
        "{from_flat:?}\nvs\n{from_tree:?}"
    );
    assert!(scop
        .schedule
        .get_domain()
        .unwrap()
        .is_equal(&scop.domains)
        .unwrap());
}

fn field_and_text(error: &ModelError) -> (String, String) {
    match error {
        ModelError::Isl {
            field,
            error: IslError::Parse { text, .. },
            ..
        } => (field.clone(), text.clone()),
        ModelError::Isl { field, .. } => (field.clone(), String::new()),
        ModelError::Invalid { field, text, .. } => (field.clone(), text.clone()),
    }
}

#[test]
fn perfect_nest_prints_in_the_documented_format() {
    let (_ctx, scop) = build(&perfect_nest());
    let expected = r#"Scop f:for.cond (file.c:3:5)
  Parameters: [n, m]
  Context: [n, m] -> {  : -2147483648 <= n <= 2147483647 and -2147483648 <= m <= 2147483647 }
  Assumed context: [n, m] -> {  : -2147483648 <= n <= 2147483646 and -2147483648 <= m <= 2147483647 }
  Assumptions:
    no-wrap: [n, m] -> {  : n <= 2147483646 } (counter of %for.body does not wrap)
  Arrays:
    double A[*][m] (8 bytes)
    double B[*][m] (8 bytes)
  Alias groups:
    { A, B }
  Statements:
    S0 (%s0.block)
      Domain: [n, m] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }
      Schedule: [n, m] -> { S0[i0, i1] -> [0, i0, 0, i1, 0] }
      Read: [n, m] -> { S0[i0, i1] -> B[i0, i1] }   ; %v = load double, ptr %p
      MustWrite: [n, m] -> { S0[i0, i1] -> A[i0, i1] }   ; store double %v, ptr %q
  Schedule tree:
    domain: "[n, m] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }"
    child:
      schedule: "[n, m] -> [{ S0[i0, i1] -> [(i0)] }]"
      child:
        schedule: "[n, m] -> [{ S0[i0, i1] -> [(i1)] }]"
"#;
    assert_eq!(scop.print(), expected);
}

#[test]
fn printing_is_deterministic_across_contexts() {
    let (_a, first) = build(&imperfect_nest());
    let (_b, second) = build(&imperfect_nest());
    assert_eq!(first.print(), second.print());
    assert_eq!(export(&first), export(&second));
}

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
fn parametric_array_sizes_must_be_affine_in_the_parameters() {
    let (_ctx, scop) = build(&perfect_nest());
    assert_eq!(scop.arrays[0].inner_sizes, vec!["m".to_string()]);
    assert_eq!(scop.arrays[0].rank(), 2);

    for bad in ["k", "n * m", "", "m) ] } { [(n"] {
        let mut spec = perfect_nest();
        spec.arrays[0].inner_sizes = vec![bad.to_string()];
        let error = build_error(&spec);
        let (field, text) = field_and_text(&error);
        assert_eq!(field, "size 1 of array A", "{error}");
        assert_eq!(text, bad, "{error}");
        assert!(error.to_string().contains("affine expression"), "{error}");
    }
    let mut spec = perfect_nest();
    spec.arrays[0].inner_sizes = vec!["2 * m + 1".into(), "100".into()];
    spec.statements[0].accesses[1].relation = "{ S0[i0, i1] -> A[i0, i1, 0] }".into();
    build(&spec);
}

#[test]
fn scalar_access_has_no_subscripts() {
    let (ctx, scop) = build(&imperfect_nest());
    let s = scop.arrays.iter().find(|a| a.name == "s").unwrap();
    assert!(s.is_scalar);
    assert_eq!(s.rank(), 0);
    let expected = parse_union_map(
        &ctx,
        "[n, m] -> { S0[i0] -> s[] : 0 <= i0 < n }",
        "expected",
    )
    .unwrap();
    assert!(
        expected.is_subset(&scop.must_writes).unwrap(),
        "{:?}",
        scop.must_writes
    );
    assert!(scop.print().contains("    double s (scalar)\n"));

    let mut spec = imperfect_nest();
    spec.statements[0].accesses[1].relation = "{ S0[i0] -> s[i0] }".into();
    let error = build_error(&spec);
    assert_eq!(
        field_and_text(&error).0,
        "access 1 of statement S0",
        "{error}"
    );
    assert!(error.to_string().contains("0 subscripts"), "{error}");
}

#[test]
fn accesses_are_collected_by_kind_and_restricted_to_domains() {
    let (ctx, scop) = build(&imperfect_nest());
    let reads = parse_union_map(
        &ctx,
        "[n, m] -> { S0[i0] -> A[i0] : 0 <= i0 < n; \
                     S1[i0, i1] -> s[] : 0 <= i0 < n and 0 <= i1 < m; \
                     S2[i0] -> s[] : 0 <= i0 < n }",
        "expected reads",
    )
    .unwrap();
    assert!(scop.reads.is_equal(&reads).unwrap(), "{:?}", scop.reads);
    let writes = parse_union_map(
        &ctx,
        "[n, m] -> { S0[i0] -> s[] : 0 <= i0 < n; \
                     S1[i0, i1] -> B[i0, i1] : 0 <= i0 < n and 0 <= i1 < m; \
                     S2[i0] -> A[i0] : 0 <= i0 < n }",
        "expected writes",
    )
    .unwrap();
    assert!(
        scop.must_writes.is_equal(&writes).unwrap(),
        "{:?}",
        scop.must_writes
    );
    assert!(scop.may_writes.is_empty().unwrap());
    // Relations as given keep no domain constraints, for readable printing.
    assert_eq!(
        scop.statements[0].accesses[0].relation.to_str().unwrap(),
        "[n, m] -> { S0[i0] -> A[i0] }"
    );
}

#[test]
fn may_writes_are_kept_apart_from_must_writes() {
    let mut spec = sibling_nests();
    spec.statements[1].accesses[1].kind = AccessKind::MayWrite;
    let (ctx, scop) = build(&spec);
    let expected =
        parse_union_map(&ctx, "[n] -> { S1[i0] -> x[i0] : 0 <= i0 < n }", "expected").unwrap();
    assert!(scop.may_writes.is_equal(&expected).unwrap());
    assert!(scop
        .print()
        .contains("      MayWrite: [n] -> { S1[i0] -> x[i0] }\n"));
}

#[test]
fn assumed_context_is_the_context_and_every_assumption() {
    let mut spec = perfect_nest();
    spec.assumptions.push(Assumption {
        kind: AssumptionKind::InvariantLoad,
        set: "[m] -> { : m >= 1 }".into(),
        statement: None,
        reason: "m is loaded once".into(),
    });
    let (ctx, scop) = build(&spec);
    let expected = parse_set(
        &ctx,
        "[n, m] -> { : -2147483648 <= n <= 2147483646 and 1 <= m <= 2147483647 }",
        "expected",
    )
    .unwrap();
    assert!(
        scop.assumed_context.is_equal(&expected).unwrap(),
        "{:?}",
        scop.assumed_context
    );
    assert_eq!(scop.assumptions.len(), 2);
}

#[test]
fn statement_assumption_holds_where_the_domain_stays_inside_it() {
    let mut spec = perfect_nest();
    spec.statements[0].domain = "[n, m] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < n }".into();
    spec.assumptions = vec![Assumption {
        kind: AssumptionKind::InBounds,
        set: "[m] -> { S0[i0, i1] : i1 < m }".into(),
        statement: Some("S0".into()),
        reason: "subscript 1 of A stays below m".into(),
    }];
    let (ctx, scop) = build(&spec);
    // The domain is empty for n <= 0; otherwise i1 reaches n - 1, which must be below m.
    let condition = parse_set(&ctx, "[n, m] -> { : n <= 0 or n <= m }", "expected").unwrap();
    assert!(scop.assumptions[0].condition.is_equal(&condition).unwrap());
    let assumed = scop.context.copy().unwrap().intersect(condition).unwrap();
    assert!(scop.assumed_context.is_equal(&assumed).unwrap());
    assert!(scop.print().contains(
        "    in-bounds: [n, m] -> { S0[i0, i1] : i1 < m } (subscript 1 of A stays below m)\n"
    ));
}

#[test]
fn statement_assumption_must_be_over_that_statement() {
    for (statement, set) in [
        ("S7", "{ S0[i0, i1] : i1 < 5 }"),
        ("S0", "{ S1[i0, i1] : i1 < 5 }"),
        ("S0", "{ S0[i0] : i0 < 5 }"),
        ("S0", "[n] -> { : n < 5 }"),
    ] {
        let mut spec = perfect_nest();
        spec.assumptions[0].statement = Some(statement.into());
        spec.assumptions[0].set = set.into();
        let error = build_error(&spec);
        assert_eq!(
            field_and_text(&error).0,
            "assumption 0 (no-wrap)",
            "{error}"
        );
    }
}

/// One spec change per field, with the field and text the error must name.
#[test]
fn bad_string_in_each_field_names_the_field_and_the_text() {
    type Edit = fn(&mut ScopSpec);
    let cases: Vec<(Edit, &str, &str)> = vec![
        (
            |s| s.context = "[n] -> { : n > }".into(),
            "context",
            "[n] -> { : n > }",
        ),
        (|s| s.context = "{ S0[i] }".into(), "context", "{ S0[i] }"),
        (
            |s| s.context = "[k] -> { : k > 0 }".into(),
            "context",
            "[k] -> { : k > 0 }",
        ),
        (
            |s| s.assumptions[0].set = "[n] -> { : n <= }".into(),
            "assumption 0 (no-wrap)",
            "[n] -> { : n <= }",
        ),
        (
            |s| s.statements[0].domain = "[n] -> { S0[i0, i1] : 0 <= i0 < n and }".into(),
            "domain of statement S0",
            "[n] -> { S0[i0, i1] : 0 <= i0 < n and }",
        ),
        (
            |s| s.statements[0].domain = "[n, m] -> { S1[i0, i1] : 0 <= i0 < n }".into(),
            "domain of statement S0",
            "[n, m] -> { S1[i0, i1] : 0 <= i0 < n }",
        ),
        (
            |s| s.statements[0].domain = "[n] -> { S0[i0] : 0 <= i0 < n }".into(),
            "domain of statement S0",
            "[n] -> { S0[i0] : 0 <= i0 < n }",
        ),
        (
            |s| s.statements[0].domain = "[k] -> { S0[i0, i1] : 0 <= i0 < k }".into(),
            "domain of statement S0",
            "[k] -> { S0[i0, i1] : 0 <= i0 < k }",
        ),
        (
            |s| s.statements[0].domain = "[n] -> { S0[i0, i1] -> A[i0] }".into(),
            "domain of statement S0",
            "[n] -> { S0[i0, i1] -> A[i0] }",
        ),
        (
            |s| s.statements[0].accesses[0].relation = "{ S0[i0, i1] -> B[i0, }".into(),
            "access 0 of statement S0",
            "{ S0[i0, i1] -> B[i0, }",
        ),
        (
            |s| s.statements[0].accesses[0].relation = "{ S1[i0, i1] -> B[i0, i1] }".into(),
            "access 0 of statement S0",
            "{ S1[i0, i1] -> B[i0, i1] }",
        ),
        (
            |s| s.statements[0].accesses[0].relation = "{ S0[i0] -> B[i0, i0] }".into(),
            "access 0 of statement S0",
            "{ S0[i0] -> B[i0, i0] }",
        ),
        (
            |s| s.statements[0].accesses[0].relation = "{ S0[i0, i1] -> B[i0] }".into(),
            "access 0 of statement S0",
            "{ S0[i0, i1] -> B[i0] }",
        ),
        (
            |s| s.statements[0].accesses[0].relation = "{ S0[i0, i1] -> A[i0, i1] }".into(),
            "access 0 of statement S0",
            "{ S0[i0, i1] -> A[i0, i1] }",
        ),
        (
            |s| s.statements[0].accesses[0].relation = "{ B[i0, i1] }".into(),
            "access 0 of statement S0",
            "{ B[i0, i1] }",
        ),
        (
            |s| s.statements[0].accesses[0].relation = "[p] -> { S0[i0, i1] -> B[i0, p] }".into(),
            "access 0 of statement S0",
            "[p] -> { S0[i0, i1] -> B[i0, p] }",
        ),
        (
            |s| s.statements[0].accesses[0].array = "C".into(),
            "access 0 of statement S0",
            "C",
        ),
        (
            |s| s.arrays[1].inner_sizes = vec!["m +".into()],
            "size 1 of array B",
            "m +",
        ),
        (|s| s.arrays[1].name = "B[0]".into(), "array name", "B[0]"),
        (|s| s.arrays[1].name = "A".into(), "array name", "A"),
        (|s| s.arrays[1].element_size = 0, "array B", "0"),
        (|s| s.arrays[1].is_scalar = true, "array B", "m"),
        (
            |s| s.alias_groups[0] = vec!["A".into(), "Z".into()],
            "alias group 0",
            "{ A, Z }",
        ),
        (
            |s| s.alias_groups[0] = vec!["A".into(), "A".into()],
            "alias group 0",
            "{ A, A }",
        ),
        (
            |s| s.params = vec!["n".into(), "n".into()],
            "parameters",
            "[n, n]",
        ),
        (
            |s| s.params = vec!["n".into(), "m-1".into()],
            "parameters",
            "[n, m-1]",
        ),
        (
            |s| s.params = vec!["n".into(), "and".into()],
            "parameters",
            "",
        ),
        (
            |s| s.statements[0].textual_positions = vec![],
            "textual positions of statement S0",
            "[]",
        ),
        (|s| s.statements.clear(), "statements", ""),
        (
            |s| s.statements.push(s.statements[0].clone()),
            "statement name",
            "S0",
        ),
    ];
    for (k, (edit, field, text)) in cases.into_iter().enumerate() {
        let mut spec = perfect_nest();
        edit(&mut spec);
        let error = build_error(&spec);
        let (found_field, found_text) = field_and_text(&error);
        assert_eq!(found_field, field, "case {k}: {error}");
        if !text.is_empty() {
            assert_eq!(found_text, text, "case {k}: {error}");
        }
        let shown = error.to_string();
        assert!(
            shown.starts_with("region f:for.cond: "),
            "case {k}: {shown}"
        );
        assert_eq!(error.region(), "f:for.cond");
        assert!(!error.is_operation_limit(), "case {k}: {shown}");
    }
}

#[test]
fn unknown_parameter_error_lists_the_region_parameters() {
    let mut spec = perfect_nest();
    spec.statements[0].domain = "[k] -> { S0[i0, i1] : 0 <= i0 < k and 0 <= i1 < k }".into();
    let shown = build_error(&spec).to_string();
    assert!(shown.contains("uses parameter 'k'"), "{shown}");
    assert!(shown.contains("(parameters: [n, m])"), "{shown}");
}

#[test]
fn statements_out_of_program_order_or_overlapping_are_rejected() {
    let mut spec = imperfect_nest();
    spec.statements.swap(0, 2);
    let error = build_error(&spec);
    assert_eq!(field_and_text(&error).0, "textual positions");
    assert!(error.to_string().contains("program order"), "{error}");

    let mut spec = imperfect_nest();
    spec.statements[0].textual_positions = vec![0, 1];
    let error = build_error(&spec);
    assert_eq!(
        field_and_text(&error),
        (
            "textual positions".to_string(),
            "S0 at [0, 1], S1 at [0, 1, 0]".to_string()
        )
    );

    let mut spec = sibling_nests();
    spec.statements[1].textual_positions = vec![0, 0];
    spec.statements[1].domain = "[n] -> { S1[i0] : 0 <= i0 < n }".into();
    let error = build_error(&spec);
    assert!(error.to_string().contains("loop around S0"), "{error}");
}

#[test]
fn operation_limit_while_building_is_reported_not_hung() {
    let ctx = IslCtx::new(Some(1)).unwrap();
    ctx.start_region();
    let error = Scop::build(&ctx, &imperfect_nest()).unwrap_err();
    assert!(error.is_operation_limit(), "{error}");
    assert!(
        error.to_string().contains("-polyrust-max-operations"),
        "{error}"
    );
    // The next region gets a fresh count.
    ctx.set_max_operations(Some(10_000_000));
    ctx.start_region();
    Scop::build(&ctx, &imperfect_nest()).unwrap();
}

#[test]
fn a_scop_that_reached_the_bound_still_prints() {
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, &imperfect_nest()).unwrap();
    let expected = scop.print();
    ctx.set_max_operations(Some(1));
    ctx.start_region();
    assert_eq!(scop.print(), expected);
    assert!(!expected.contains("not printable"));
}

// ---------------------------------------------------------------- JSON

fn file() -> &'static Path {
    Path::new("f.for.cond.json")
}

fn exported(spec: &ScopSpec) -> (IslCtx, Scop, serde_json::Value) {
    let (ctx, scop) = build(spec);
    let json: serde_json::Value = serde_json::from_str(&export(&scop)).unwrap();
    (ctx, scop, json)
}

fn import_error(scop: &mut Scop, json: &str) -> ImportError {
    let before = export(scop);
    let error = import_schedule(scop, json, file()).expect_err("import should fail");
    assert_eq!(export(scop), before, "a failed import changed the region");
    let shown = error.to_string();
    assert!(
        shown.starts_with("schedule file 'f.for.cond.json': "),
        "{shown}"
    );
    error
}

#[test]
fn json_export_has_the_region_fields() {
    let (_ctx, _scop, json) = exported(&imperfect_nest());
    assert_eq!(json["name"], "f:for.cond");
    assert_eq!(json["function"], "f");
    assert_eq!(json["location"], "file.c:3:5");
    assert_eq!(json["params"], serde_json::json!(["n", "m"]));
    assert_eq!(json["context"], "[n, m] -> {  :  }");
    assert_eq!(json["arrays"][2]["is_scalar"], true);
    let s1 = &json["statements"][1];
    assert_eq!(s1["name"], "S1");
    assert_eq!(s1["block"], "%s1.block");
    assert_eq!(
        s1["domain"],
        "[n, m] -> { S1[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }"
    );
    assert_eq!(
        s1["schedule"],
        "[n, m] -> { S1[i0, i1] -> [0, i0, 1, i1, 0] }"
    );
    assert_eq!(s1["accesses"][1]["kind"], "must_write");
    assert_eq!(s1["accesses"][1]["array"], "B");
    assert_eq!(
        s1["accesses"][1]["relation"],
        "[n, m] -> { S1[i0, i1] -> B[i0, i1] }"
    );
}

#[test]
fn json_export_then_import_gives_the_same_schedule() {
    for spec in [perfect_nest(), imperfect_nest(), sibling_nests()] {
        let (_ctx, mut scop) = build(&spec);
        let original_order = runs_before(&scop, scop.schedule.get_map().unwrap());
        let original: Vec<String> = scop
            .statements
            .iter()
            .map(|s| s.schedule.to_str().unwrap())
            .collect();
        let text = export(&scop);
        import_schedule(&mut scop, &text, file()).unwrap();
        let imported: Vec<String> = scop
            .statements
            .iter()
            .map(|s| s.schedule.to_str().unwrap())
            .collect();
        assert_eq!(imported, original);
        let imported_order = runs_before(&scop, scop.schedule.get_map().unwrap());
        assert!(imported_order.is_equal(&original_order).unwrap());
        assert!(scop
            .schedule
            .get_domain()
            .unwrap()
            .is_equal(&scop.domains)
            .unwrap());
        assert_eq!(export(&scop), text);
    }
}

#[test]
fn imported_interchange_replaces_the_schedule() {
    let (_ctx, mut scop, mut json) = exported(&perfect_nest());
    json["statements"][0]["schedule"] = "[n, m] -> { S0[i0, i1] -> [i1, i0] }".into();
    import_schedule(&mut scop, &json.to_string(), file()).unwrap();
    assert_eq!(
        scop.statements[0].schedule.to_str().unwrap(),
        "[n, m] -> { S0[i0, i1] -> [i1, i0] }"
    );
    let before = runs_before(&scop, scop.schedule.get_map().unwrap());
    assert_runs_before(
        &scop,
        &before,
        "{ S0[i, j] -> S0[i + 1, j]; S0[i, j] -> S0[0, j + 1] }",
    );
    // Column by column now: the next row of a column comes before the next column.
    assert_runs_before(&scop, &before, "{ S0[i, j] -> S0[i - 1, j + 1] }");
    assert_never_runs_before(&scop, &before, "{ S0[i, j] -> S0[i + 1, j - 1] }");
    assert!(scop
        .print()
        .contains("Schedule: [n, m] -> { S0[i0, i1] -> [i1, i0] }"));
}

#[test]
fn imported_schedule_may_name_its_range_and_use_fewer_parameters() {
    let (_ctx, mut scop, mut json) = exported(&sibling_nests());
    json["statements"][0]["schedule"] = "{ S0[i0, i1] -> T[0, i1, i0] }".into();
    json["statements"][1]["schedule"] = "[n] -> { S1[i0] -> [1, i0, n] }".into();
    import_schedule(&mut scop, &json.to_string(), file()).unwrap();
    assert_eq!(
        scop.statements[0].schedule.to_str().unwrap(),
        "[n] -> { S0[i0, i1] -> [0, i1, i0] }"
    );
}

#[test]
fn import_rejects_schedule_for_unknown_statement() {
    let (_ctx, mut scop, mut json) = exported(&imperfect_nest());
    json["statements"][1]["name"] = "S9".into();
    let error = import_error(&mut scop, &json.to_string());
    assert_eq!(error.field(), "statements[1].name");
    assert!(error.to_string().contains("\"S1\""), "{error}");
    assert!(error.to_string().contains("\"S9\""), "{error}");
}

#[test]
fn import_rejects_a_file_for_another_region() {
    let (_ctx, mut scop, mut json) = exported(&imperfect_nest());
    json["name"] = "g:for.cond".into();
    let error = import_error(&mut scop, &json.to_string());
    assert_eq!(error.field(), "name");
    assert!(error.to_string().contains("another region"), "{error}");
}

#[test]
fn import_compares_domains_as_sets_not_text() {
    let (_ctx, mut scop, mut json) = exported(&imperfect_nest());
    // Same set, written differently.
    json["statements"][0]["domain"] = "[m, n] -> { S0[x] : x >= 0 and n - 1 >= x }".into();
    import_schedule(&mut scop, &json.to_string(), file()).unwrap();
    // A different set.
    json["statements"][0]["domain"] = "[n] -> { S0[x] : 0 <= x <= n }".into();
    let error = import_error(&mut scop, &json.to_string());
    assert_eq!(error.field(), "statements[0].domain");
    assert!(
        error.to_string().contains("another version of the region"),
        "{error}"
    );
}

#[test]
fn import_rejects_schedules_that_do_not_fit_the_statement() {
    let cases: Vec<(&str, &str)> = vec![
        ("{ S0[i0, i1] -> [i0 }", "not valid isl"),
        ("{ S1[i0, i1] -> [i0, i1] }", "a map from S0[i0, i1]"),
        ("{ S0[i0] -> [i0] }", "a map from S0[i0, i1]"),
        ("{ [i0, i1] }", "a map from S0[i0, i1]"),
        ("[k] -> { S0[i0, i1] -> [i0, k] }", "parameter 'k'"),
        ("{ S0[i0, i1] -> [] }", "at least one dimension"),
        (
            "{ S0[i0, i1] -> [t] : t >= i0 }",
            "one time stamp for each statement instance",
        ),
        (
            "{ S0[i0, i1] -> [i0, i1] : i0 < 5 }",
            "every instance of the domain",
        ),
        ("{ S0[i0, i1] -> [i0, i1] } extra", "unexpected text"),
    ];
    for (schedule, message) in cases {
        let (_ctx, mut scop, mut json) = exported(&perfect_nest());
        json["statements"][0]["schedule"] = schedule.into();
        let error = import_error(&mut scop, &json.to_string());
        assert_eq!(
            error.field(),
            "statements[0].schedule",
            "{schedule}: {error}"
        );
        assert!(error.to_string().contains(message), "{schedule}: {error}");
    }
}

#[test]
fn import_rejects_time_stamps_of_different_lengths() {
    let (_ctx, mut scop, mut json) = exported(&imperfect_nest());
    json["statements"][2]["schedule"] = "[n] -> { S2[i0] -> [0, i0, 2] }".into();
    let error = import_error(&mut scop, &json.to_string());
    assert_eq!(error.field(), "statements[2].schedule");
    assert!(
        error
            .to_string()
            .contains("5 dimensions, like statements[0].schedule"),
        "{error}"
    );
}

#[test]
fn import_errors_name_the_json_field_for_missing_and_mistyped_fields() {
    let (_ctx, mut scop, json) = exported(&imperfect_nest());
    type Edit = fn(&mut serde_json::Value);
    let cases: Vec<(Edit, &str, &str)> = vec![
        (|j| j["name"] = 7.into(), "name", "the number 7"),
        (
            |j| {
                j.as_object_mut().unwrap().remove("name");
            },
            "name",
            "nothing",
        ),
        (
            |j| {
                j.as_object_mut().unwrap().remove("statements");
            },
            "statements",
            "nothing",
        ),
        (
            |j| j["statements"] = "S0".into(),
            "statements",
            "the string \"S0\"",
        ),
        (
            |j| {
                j["statements"].as_array_mut().unwrap().pop();
            },
            "statements",
            "found 2",
        ),
        (
            |j| j["statements"][1] = serde_json::json!([1, 2]),
            "statements[1]",
            "an array of 2 elements",
        ),
        (
            |j| j["statements"][2]["schedule"] = serde_json::Value::Null,
            "statements[2].schedule",
            "null",
        ),
        (
            |j| j["statements"][2]["schedule"] = true.into(),
            "statements[2].schedule",
            "the boolean true",
        ),
        (
            |j| {
                j["statements"][0].as_object_mut().unwrap().remove("domain");
            },
            "statements[0].domain",
            "nothing",
        ),
        (
            |j| j["statements"][0]["domain"] = serde_json::json!({}),
            "statements[0].domain",
            "an object",
        ),
        (
            |j| *j = serde_json::json!([]),
            "(top level)",
            "an array of 0 elements",
        ),
        (
            |j| *j = serde_json::json!(1e308),
            "(top level)",
            "the number",
        ),
    ];
    for (edit, field, found) in cases {
        let mut json = json.clone();
        edit(&mut json);
        let error = import_error(&mut scop, &json.to_string());
        assert_eq!(error.field(), field, "{error}");
        assert!(error.to_string().contains(found), "{error}");
    }
}

#[test]
fn import_survives_malformed_json() {
    let (_ctx, mut scop) = build(&imperfect_nest());
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let huge_number = format!(r#"{{"name": {}, "statements": []}}"#, "9".repeat(5000));
    let long_name = format!(r#"{{"name": "{}", "statements": []}}"#, "x".repeat(100_000));
    for text in [
        "",
        "{",
        "not json",
        "{\"name\": \"f:for.cond\", \"statements\": [}",
        "\u{0}\u{1}binary",
        deep.as_str(),
        huge_number.as_str(),
        long_name.as_str(),
        r#"{"name": "f:for.cond", "statements": [{"name": "S0", "domain": "{ S0[i0\u0000] }", "schedule": ""}, {}, {}]}"#,
    ] {
        let error = import_error(&mut scop, text);
        assert!(error.to_string().len() < 2_000, "message too long: {error}");
    }
    let error = import_error(&mut scop, "{\n  \"name\": ,\n}");
    assert!(
        matches!(error, ImportError::Syntax { line: 2, .. }),
        "{error:?}"
    );
}

#[test]
fn import_reports_the_operation_limit() {
    let ctx = IslCtx::new(None).unwrap();
    let mut scop = Scop::build(&ctx, &imperfect_nest()).unwrap();
    let text = export(&scop);
    ctx.set_max_operations(Some(1));
    ctx.start_region();
    let error = import_error(&mut scop, &text);
    assert!(
        matches!(&error, ImportError::Isl { error, .. } if error.is_operation_limit()),
        "{error}"
    );
}
