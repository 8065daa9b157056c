//! JSON export and schedule import.

use std::path::Path;

use super::*;
use crate::model::json::import_schedule;

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
        shown.starts_with("model file 'f.for.cond.json': "),
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
    assert_eq!(json["assumptions"], serde_json::json!([]));
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
    assert_eq!(s1["textual_positions"], serde_json::json!([0, 1, 0]));
    assert_eq!(s1["reductions"], serde_json::json!([]));
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
