//! Which assumptions never hold where they are needed, and which exclude a set of
//! parameter values.

use super::*;

fn in_bounds(set: &str, reason: &str) -> Assumption {
    Assumption {
        kind: AssumptionKind::InBounds,
        set: set.into(),
        statement: Some("S0".into()),
        reason: reason.into(),
    }
}

/// `perfect_nest` with rows of 25 (`A[*][25]`) and these in-bounds assumptions.
fn with_assumptions(assumptions: Vec<Assumption>) -> ScopSpec {
    let mut spec = perfect_nest();
    spec.assumptions = assumptions;
    spec
}

#[test]
fn a_false_assumption_never_holds_where_its_statement_runs() {
    let spec = with_assumptions(vec![
        in_bounds("[n, m] -> { S0[i0, i1] : false }", "u[i0, i1 + 1, -2]"),
        in_bounds("[n, m] -> { S0[i0, i1] : 0 <= i1 < 25 }", "A[i0, i1]"),
    ]);
    let (_ctx, scop) = build(&spec);
    let never = scop.assumptions_never_holding().unwrap();
    let reasons: Vec<_> = never.iter().map(|a| a.reason.as_str()).collect();
    assert_eq!(reasons, vec!["u[i0, i1 + 1, -2]"]);
}

#[test]
fn an_assumption_that_only_fails_for_large_parameters_can_hold() {
    // i1 < 25 holds whenever m <= 25: not a bug, whatever it costs.
    let spec = with_assumptions(vec![in_bounds(
        "[n, m] -> { S0[i0, i1] : i1 < 25 }",
        "A[i0, i1]",
    )]);
    let (_ctx, scop) = build(&spec);
    assert!(scop.assumptions_never_holding().unwrap().is_empty());
}

#[test]
fn an_assumption_of_a_statement_that_never_runs_costs_nothing() {
    let mut spec = with_assumptions(vec![in_bounds(
        "[n, m] -> { S0[i0, i1] : false }",
        "A[i0, -1]",
    )]);
    spec.statements[0].domain =
        "[n, m] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < m and n < 0 }".into();
    let (_ctx, scop) = build(&spec);
    assert!(scop.assumptions_never_holding().unwrap().is_empty());
}

#[test]
fn the_assumptions_failing_for_large_parameters_are_named() {
    let spec = with_assumptions(vec![
        in_bounds(
            "[n, m] -> { S0[i0, i1] : i1 < 25 }",
            "A[i0, i1] in rows of 25",
        ),
        in_bounds(
            "[n, m] -> { S0[i0, i1] : i1 < 1000 }",
            "A[i0, i1] in rows of 1000",
        ),
    ]);
    let (ctx, scop) = build(&spec);
    let large = parse_set(&ctx, "[n, m] -> { : n >= 32 and m >= 32 }", "large").unwrap();
    let failing = scop.assumptions_failing_within(&large).unwrap();
    let reasons: Vec<_> = failing.iter().map(|a| a.reason.as_str()).collect();
    assert_eq!(reasons, vec!["A[i0, i1] in rows of 25"]);
    assert_eq!(
        super::super::assumptions::describe(failing[0]),
        "in-bounds of S0: A[i0, i1] in rows of 25"
    );
}

#[test]
fn an_assumption_stated_for_every_access_is_kept_per_access_and_computed_once() {
    // Detection states the in-bounds assumption of `u` once per read of it.
    let repeated = |k: usize| in_bounds("[n, m] -> { S0[i0, i1] : i1 < 25 }", &format!("read {k}"));
    let spec = with_assumptions((0..4).map(repeated).collect());
    let (_ctx, scop) = build(&spec);
    let reasons: Vec<_> = scop.assumptions.iter().map(|a| a.reason.as_str()).collect();
    assert_eq!(reasons, vec!["read 0", "read 1", "read 2", "read 3"]);
    for assumption in &scop.assumptions {
        let first = scop.assumption_condition(&scop.assumptions[0]).unwrap();
        assert!(scop
            .assumption_condition(assumption)
            .unwrap()
            .is_equal(&first)
            .unwrap());
    }
    // The same assumed context as with one of them (printed: two contexts).
    let (_other, once) = build(&with_assumptions(vec![repeated(0)]));
    assert_eq!(
        format!("{:?}", scop.assumed_context),
        format!("{:?}", once.assumed_context)
    );
}

#[test]
fn a_statement_s_assumptions_read_as_one_set_give_the_context_they_give_one_by_one() {
    let spec = with_assumptions(vec![
        in_bounds("[n, m] -> { S0[i0, i1] : 0 <= i1 < 25 }", "A[i0, i1]"),
        in_bounds("[n, m] -> { S0[i0, i1] : i0 <= 99 or i1 < 0 }", "B[i0]"),
        in_bounds(
            "[n, m] -> { S0[i0, i1] : 0 <= i1 + 1 < 25 }",
            "A[i0, i1 + 1]",
        ),
    ]);
    let (ctx, scop) = build(&spec);
    // The domain is 0 <= i0 < n, 0 <= i1 < m: i1 + 1 < 25 needs m <= 24, i0 <= 99
    // needs n <= 100 (where the domain is not empty).
    let expected = parse_set(
        &ctx,
        "[n, m] -> { : n <= 0 or m <= 0 or (n <= 100 and m <= 24) }",
        "expected",
    )
    .unwrap()
    .intersect(scop.context.copy().unwrap())
    .unwrap();
    assert!(
        scop.assumed_context.is_equal(&expected).unwrap(),
        "{:?}",
        scop.assumed_context
    );
    // Each is still its own set, for remarks and the printer.
    let second = scop.assumption_set(&scop.assumptions[1]).unwrap();
    let as_given = parse_set(&ctx, "[n, m] -> { S0[i0, i1] : i0 <= 99 or i1 < 0 }", "B").unwrap();
    assert!(second.is_equal(&as_given).unwrap());
}

#[test]
fn a_malformed_assumption_among_several_is_named() {
    let mut spec = with_assumptions(vec![
        in_bounds("[n, m] -> { S0[i0, i1] : 0 <= i1 < 25 }", "A[i0, i1]"),
        in_bounds("[n, m] -> { S0[i0, i1] : i1 < }", "A[i0, i1 + 1]"),
    ]);
    spec.assumptions.insert(
        0,
        Assumption {
            kind: AssumptionKind::NoWrap,
            set: "[n] -> { : n <= 1000 }".into(),
            statement: None,
            reason: "n does not wrap".into(),
        },
    );
    let error = Scop::build(&IslCtx::new(None).unwrap(), &spec).unwrap_err();
    assert!(
        error.to_string().contains("assumption 2 (in-bounds)"),
        "{error}"
    );
}
