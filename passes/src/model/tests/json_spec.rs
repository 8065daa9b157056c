//! Reading a whole exported region back (`json::import_spec`): the round trip through
//! the file rebuilds the same model, and malformed files are errors naming the field.

use std::path::Path;

use super::*;
use crate::model::json::import_spec;

fn file() -> &'static Path {
    Path::new("f.for.cond.json")
}

/// `perfect_nest` with what the other fixtures lack: an assumption over a statement's
/// iteration space and a reduction (`s += B[i][j]` in a second statement).
fn nest_with_reduction() -> ScopSpec {
    let mut spec = perfect_nest();
    spec.arrays.push(scalar("s"));
    let mut sum = statement(
        "S1",
        "[n, m] -> { S1[i0, i1] : 0 <= i0 < n and 0 <= i1 < m }",
        &[0, 0, 1],
        vec![
            read("s", "{ S1[i0, i1] -> s[] }"),
            read("B", "{ S1[i0, i1] -> B[i0, i1] }"),
            write("s", "{ S1[i0, i1] -> s[] }"),
        ],
    );
    sum.reductions.push("s".into());
    spec.statements.push(sum);
    spec.assumptions.push(Assumption {
        kind: AssumptionKind::InBounds,
        set: "[n, m] -> { S1[i0, i1] : i1 < m }".into(),
        statement: Some("S1".into()),
        reason: "B's subscript stays within its row".into(),
    });
    spec
}

fn fixtures() -> Vec<ScopSpec> {
    vec![
        perfect_nest(),
        imperfect_nest(),
        sibling_nests(),
        nest_with_reduction(),
    ]
}

fn assert_same_set(what: &str, a: &crate::isl::Set, b: &crate::isl::Set) {
    assert!(a.is_equal(b).unwrap(), "{what}: {a:?} vs {b:?}");
}

fn assert_same_map(what: &str, a: &crate::isl::Map, b: &crate::isl::Map) {
    assert!(a.is_equal(b).unwrap(), "{what}: {a:?} vs {b:?}");
}

fn assert_same_union(what: &str, a: &UnionMap, b: &UnionMap) {
    assert!(a.is_equal(b).unwrap(), "{what}: {a:?} vs {b:?}");
}

/// Every part of the two models, isl objects compared by isl.
fn assert_same_model(original: &Scop, read: &Scop) {
    assert_eq!(read.name, original.name);
    assert_eq!(read.function, original.function);
    assert_eq!(read.location, original.location);
    assert_eq!(read.params, original.params);
    assert_same_set("context", &read.context, &original.context);
    assert_same_set(
        "assumed context",
        &read.assumed_context,
        &original.assumed_context,
    );
    assert_eq!(read.assumptions.len(), original.assumptions.len());
    for (a, b) in read.assumptions.iter().zip(&original.assumptions) {
        assert_eq!(
            (a.kind, &a.statement, &a.reason),
            (b.kind, &b.statement, &b.reason)
        );
        assert_same_set(
            "assumption",
            &read.assumption_set(a).unwrap(),
            &original.assumption_set(b).unwrap(),
        );
        assert_same_set(
            "assumption condition",
            &read.assumption_condition(a).unwrap(),
            &original.assumption_condition(b).unwrap(),
        );
    }
    assert_eq!(read.arrays.len(), original.arrays.len());
    for (a, b) in read.arrays.iter().zip(&original.arrays) {
        assert_eq!(
            (
                &a.name,
                &a.element_type,
                a.element_size,
                &a.inner_sizes,
                a.is_scalar
            ),
            (
                &b.name,
                &b.element_type,
                b.element_size,
                &b.inner_sizes,
                b.is_scalar
            )
        );
        for (x, y) in a.inner_size_values.iter().zip(&b.inner_size_values) {
            assert_same_set("inner size", x, y);
        }
    }
    assert_eq!(read.alias_groups, original.alias_groups);
    assert_eq!(read.statements.len(), original.statements.len());
    for (a, b) in read.statements.iter().zip(&original.statements) {
        assert_eq!(
            (&a.name, &a.block, &a.textual_positions, &a.reductions),
            (&b.name, &b.block, &b.textual_positions, &b.reductions)
        );
        assert_same_set(&format!("domain of {}", a.name), &a.domain, &b.domain);
        assert_same_map(&format!("schedule of {}", a.name), &a.schedule, &b.schedule);
        assert_eq!(a.accesses.len(), b.accesses.len());
        for (x, y) in a.accesses.iter().zip(&b.accesses) {
            assert_eq!(
                (x.kind, &x.array, &x.instruction),
                (y.kind, &y.array, &y.instruction)
            );
            assert_same_map("access", &x.relation, &y.relation);
        }
    }
    assert!(read.domains.is_equal(&original.domains).unwrap());
    assert_same_union("reads", &read.reads, &original.reads);
    assert_same_union("must-writes", &read.must_writes, &original.must_writes);
    assert_same_union("may-writes", &read.may_writes, &original.may_writes);
    assert_same_union(
        "schedule tree",
        &read.schedule.get_map().unwrap(),
        &original.schedule.get_map().unwrap(),
    );
}

#[test]
fn exported_region_read_back_builds_the_same_model() {
    for spec in fixtures() {
        let (ctx, original) = build(&spec);
        let text = export(&original);
        let read_spec = import_spec(&text, file()).unwrap_or_else(|e| panic!("{e}"));
        let read = Scop::build(&ctx, &read_spec).unwrap_or_else(|e| panic!("{e}"));
        assert_same_model(&original, &read);
        // What isl does not print back verbatim is compared above; the rest is the spec.
        assert_eq!(read_spec.params, spec.params);
        assert_eq!(read_spec.arrays, spec.arrays);
        assert_eq!(read_spec.alias_groups, spec.alias_groups);
        for (a, b) in read_spec.statements.iter().zip(&spec.statements) {
            assert_eq!(
                (&a.name, &a.block, &a.textual_positions, &a.reductions),
                (&b.name, &b.block, &b.textual_positions, &b.reductions)
            );
        }
        // A second trip changes nothing.
        assert_eq!(export(&read), text);
    }
}

#[test]
fn read_back_region_keeps_reductions_and_statement_assumptions() {
    let (_ctx, scop) = build(&nest_with_reduction());
    let spec = import_spec(&export(&scop), file()).unwrap();
    assert_eq!(spec.statements[1].reductions, vec!["s".to_string()]);
    let assumption = &spec.assumptions[1];
    assert_eq!(assumption.kind, AssumptionKind::InBounds);
    assert_eq!(assumption.statement.as_deref(), Some("S1"));
    assert_eq!(assumption.reason, "B's subscript stays within its row");
}

#[test]
fn read_back_ignores_the_derived_fields() {
    // The flattened schedules and the assumed context are the model's, built again from
    // the rest; an edited schedule is `import_schedule`'s business.
    let (_ctx, scop) = build(&perfect_nest());
    let mut json: serde_json::Value = serde_json::from_str(&export(&scop)).unwrap();
    json["statements"][0]["schedule"] = "{ S0[i0, i1] -> [i1, i0] }".into();
    json.as_object_mut().unwrap().remove("assumed_context");
    let spec = import_spec(&json.to_string(), file()).unwrap();
    assert_eq!(spec.statements[0].textual_positions, vec![0, 0, 0]);
}

#[test]
fn isl_text_is_checked_by_the_model_build() {
    let (ctx, scop) = build(&perfect_nest());
    let mut json: serde_json::Value = serde_json::from_str(&export(&scop)).unwrap();
    json["statements"][0]["domain"] = "[n] -> { S0[i0, i1] : 0 <= i0 < n".into();
    let spec = import_spec(&json.to_string(), file()).unwrap();
    let error = Scop::build(&ctx, &spec).expect_err("the domain is not valid isl");
    assert_eq!(
        field_and_text(&error).0,
        "domain of statement S0",
        "{error}"
    );
}

fn import_spec_error(json: &str) -> ImportError {
    let error = import_spec(json, file()).expect_err("reading the region should fail");
    let shown = error.to_string();
    assert!(
        shown.starts_with("model file 'f.for.cond.json': "),
        "{shown}"
    );
    assert!(shown.len() < 2_000, "message too long: {shown}");
    error
}

#[test]
fn malformed_region_files_are_errors_naming_the_json_field() {
    let (_ctx, scop) = build(&nest_with_reduction());
    let json: serde_json::Value = serde_json::from_str(&export(&scop)).unwrap();
    type Edit = fn(&mut serde_json::Value);
    fn remove(object: &mut serde_json::Value, key: &str) {
        object.as_object_mut().unwrap().remove(key);
    }
    let cases: Vec<(Edit, &str, &str)> = vec![
        (|j| remove(j, "function"), "function", "nothing"),
        (|j| j["location"] = 3.into(), "location", "the number 3"),
        (|j| j["params"] = "n".into(), "params", "the string \"n\""),
        (|j| j["params"][1] = 2.into(), "params[1]", "the number 2"),
        (|j| remove(j, "context"), "context", "nothing"),
        (
            |j| j["assumptions"][0]["kind"] = "wrapping".into(),
            "assumptions[0].kind",
            "the string \"wrapping\"",
        ),
        (
            |j| j["assumptions"][1]["statement"] = 5.into(),
            "assumptions[1].statement",
            "a string or null",
        ),
        (
            |j| remove(&mut j["assumptions"][0], "set"),
            "assumptions[0].set",
            "nothing",
        ),
        (
            |j| j["arrays"][0]["element_size"] = (-8).into(),
            "arrays[0].element_size",
            "the number -8",
        ),
        (
            |j| j["arrays"][0]["element_size"] = 4_294_967_296_u64.into(),
            "arrays[0].element_size",
            "an integer from 0 to 4294967295",
        ),
        (
            |j| j["arrays"][0]["element_size"] = 8.5.into(),
            "arrays[0].element_size",
            "the number 8.5",
        ),
        (
            |j| j["arrays"][2]["is_scalar"] = "yes".into(),
            "arrays[2].is_scalar",
            "true or false",
        ),
        (
            |j| j["arrays"][1]["inner_sizes"][0] = serde_json::Value::Null,
            "arrays[1].inner_sizes[0]",
            "null",
        ),
        (
            |j| j["arrays"] = serde_json::json!({}),
            "arrays",
            "an object",
        ),
        (
            |j| remove(&mut j["statements"][0], "textual_positions"),
            "statements[0].textual_positions",
            "nothing",
        ),
        (
            |j| j["statements"][1]["textual_positions"][2] = (-1).into(),
            "statements[1].textual_positions[2]",
            "the number -1",
        ),
        (
            |j| j["statements"][1]["accesses"][2]["kind"] = "write".into(),
            "statements[1].accesses[2].kind",
            "one of \"read\", \"must_write\", \"may_write\"",
        ),
        (
            |j| remove(&mut j["statements"][0]["accesses"][0], "relation"),
            "statements[0].accesses[0].relation",
            "nothing",
        ),
        (
            |j| j["statements"][1]["accesses"][0] = "s".into(),
            "statements[1].accesses[0]",
            "an object",
        ),
        (
            |j| j["statements"][1]["reductions"] = serde_json::Value::Null,
            "statements[1].reductions",
            "null",
        ),
        (
            |j| j["alias_groups"][0] = "A".into(),
            "alias_groups[0]",
            "an array of strings",
        ),
        (
            |j| j["alias_groups"][0][1] = false.into(),
            "alias_groups[0][1]",
            "the boolean false",
        ),
        (
            |j| *j = serde_json::json!([]),
            "(top level)",
            "an array of 0 elements",
        ),
    ];
    for (edit, field, found) in cases {
        let mut json = json.clone();
        edit(&mut json);
        let error = import_spec_error(&json.to_string());
        assert_eq!(error.field(), field, "{error}");
        assert!(error.to_string().contains(found), "{field}: {error}");
    }
}

#[test]
fn read_back_survives_malformed_json() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let long_kind = format!(
        r#"{{"name": "f", "function": "f", "location": null, "params": [], "context": "{{ : }}",
            "assumptions": [{{"kind": "{}"}}]}}"#,
        "x".repeat(100_000)
    );
    for text in ["", "{", "not json", "\u{0}\u{1}binary", &deep, &long_kind] {
        import_spec_error(text);
    }
    let error = import_spec_error("{\n  \"name\": ,\n}");
    assert!(
        matches!(error, ImportError::Syntax { line: 2, .. }),
        "{error:?}"
    );
}
