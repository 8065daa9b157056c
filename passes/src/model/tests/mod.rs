//! Tests of the model, each starting from isl strings: the fixtures and checks they
//! share, then one file per concern.

mod assumptions;
mod build;
mod json;
mod json_spec;
mod schedule;

use super::json::export;
use super::*;
use crate::isl::{parse_set, parse_union_map, IslCtx, IslError, UnionMap};

fn ctx() -> IslCtx {
    IslCtx::new(None).expect("an isl context")
}

use super::spec_builders::{access_at as access, array, read, scalar, statement, write};

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
