//! Building a Scop: what is checked, what is kept, how it prints, and the errors.

use super::*;

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
    let (ctx, scop) = build(&spec);
    // The sizes' values are kept as sets, so a product of them (the run-time check's
    // strides) needs no text: `2 * m + 1` is one factor, not two.
    let params = scop.params.join(", ");
    for (value, size) in scop.arrays[0]
        .inner_size_values
        .iter()
        .zip(["2m + 1", "100"])
    {
        let expected = crate::isl::parse_set(
            &ctx,
            &format!("[{params}] -> {{ [x] : x = {size} }}"),
            "size",
        )
        .unwrap();
        assert!(
            value.is_equal(&expected).unwrap(),
            "{value:?} is not {size}"
        );
    }
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
    assert!(scop
        .assumption_condition(&scop.assumptions[0])
        .unwrap()
        .is_equal(&condition)
        .unwrap());
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
