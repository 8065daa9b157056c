//! The model as JSON, to look at and to hand-edit schedules (as Polly's JSCoP files).
//!
//! `export` writes the region: name, function, location, parameters, context, assumed
//! context, assumptions, arrays, alias groups and statements (name, block, domain,
//! flattened schedule, textual positions, accesses (with their source location when the
//! IR has debug information), reductions), every set and map in isl notation.
//! `import_spec` (in `region.rs`) reads a whole region back into the `ScopSpec` it was
//! built from, for running the stages after the model without LLVM.
//! `import_schedule` reads such a file back and replaces the region's schedule by the
//! `schedule` maps of its statements, after checking that the file is for this region
//! (same name, same statements with equal domains, compared by isl, not as text) and that
//! the maps form a schedule: one time stamp per statement instance, defined on the whole
//! domain, all time stamps of the same length. It does not check that the new order
//! respects dependences; that is the dependence stage's job.
//!
//! Relies on serde_json (whose parser bounds nesting depth) and the isl layer. Every
//! error names the file and the JSON path of the field; nothing panics on malformed
//! input, and the region is unchanged when import fails.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::isl::{parse_map, parse_set, IslError, Map, Schedule, UnionMap};

use super::error::ImportError;
use super::scop::{assumption_kind_name, Scop};
use super::spec::AccessKind;

mod region;
pub use region::import_spec;

#[derive(Serialize)]
struct ScopJson<'a> {
    name: &'a str,
    function: &'a str,
    location: Option<&'a str>,
    params: &'a [String],
    context: String,
    assumed_context: String,
    assumptions: Vec<AssumptionJson<'a>>,
    arrays: Vec<ArrayJson<'a>>,
    alias_groups: Vec<&'a [String]>,
    statements: Vec<StatementJson<'a>>,
}

#[derive(Serialize)]
struct AssumptionJson<'a> {
    kind: &'static str,
    statement: Option<&'a str>,
    set: String,
    reason: &'a str,
}

#[derive(Serialize)]
struct ArrayJson<'a> {
    name: &'a str,
    element_type: &'a str,
    element_size: u32,
    inner_sizes: &'a [String],
    is_scalar: bool,
}

#[derive(Serialize)]
struct StatementJson<'a> {
    name: &'a str,
    block: &'a str,
    domain: String,
    schedule: String,
    textual_positions: &'a [u32],
    accesses: Vec<AccessJson<'a>>,
    reductions: &'a [String],
}

#[derive(Serialize)]
struct AccessJson<'a> {
    kind: &'static str,
    array: &'a str,
    relation: String,
    instruction: &'a str,
    /// Left out when unknown, so that models of IR without debug information read
    /// as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<&'a str>,
}

/// How access kinds are written in JSON.
fn kind_name(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Read => "read",
        AccessKind::MustWrite => "must_write",
        AccessKind::MayWrite => "may_write",
    }
}

/// isl's text, or the reason it could not be printed (which import then rejects).
fn text(result: Result<String, IslError>) -> String {
    result.unwrap_or_else(|error| format!("<not printable: {error}>"))
}

/// The region as pretty-printed JSON.
pub fn export(scop: &Scop) -> String {
    let json = ScopJson {
        name: &scop.name,
        function: &scop.function,
        location: scop.location.as_deref(),
        params: &scop.params,
        context: text(scop.context.to_str()),
        assumed_context: text(scop.assumed_context.to_str()),
        assumptions: scop
            .assumptions
            .iter()
            .map(|a| AssumptionJson {
                kind: assumption_kind_name(a.kind),
                statement: a.statement.as_deref(),
                set: text(scop.assumption_set(a).and_then(|set| set.to_str())),
                reason: &a.reason,
            })
            .collect(),
        arrays: scop
            .arrays
            .iter()
            .map(|a| ArrayJson {
                name: &a.name,
                element_type: &a.element_type,
                element_size: a.element_size,
                inner_sizes: &a.inner_sizes,
                is_scalar: a.is_scalar,
            })
            .collect(),
        alias_groups: scop
            .alias_groups
            .iter()
            .map(|g| g.arrays.as_slice())
            .collect(),
        statements: scop
            .statements
            .iter()
            .map(|s| StatementJson {
                name: &s.name,
                block: &s.block,
                domain: text(s.domain.to_str()),
                schedule: text(s.schedule.to_str()),
                textual_positions: &s.textual_positions,
                accesses: s
                    .accesses
                    .iter()
                    .map(|a| AccessJson {
                        kind: kind_name(a.kind),
                        array: &a.array,
                        relation: text(a.relation.to_str()),
                        instruction: &a.instruction,
                        location: a.location.as_deref(),
                    })
                    .collect(),
                reductions: &s.reductions,
            })
            .collect(),
    };
    serde_json::to_string_pretty(&json)
        .expect("serializing strings, numbers and booleans into a String cannot fail")
}

/// Replaces `scop`'s schedule by the one in `json_text` (read from `file`, which is only
/// used in messages). On error `scop` is unchanged.
pub fn import_schedule(scop: &mut Scop, json_text: &str, file: &Path) -> Result<(), ImportError> {
    let root = parse(json_text, file)?;
    let reader = Reader { file };
    let (maps, tree) = reader.schedule(scop, &root)?;
    for (statement, map) in scop.statements.iter_mut().zip(maps) {
        statement.schedule = map;
    }
    scop.schedule = tree;
    Ok(())
}

/// Reads the fields of one file, with errors that name it.
struct Reader<'a> {
    file: &'a Path,
}

impl Reader<'_> {
    fn field_error(
        &self,
        field: &str,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> ImportError {
        ImportError::Field {
            file: self.file.to_path_buf(),
            field: field.to_string(),
            expected: expected.into(),
            found: found.into(),
        }
    }

    fn isl_error<'b>(&'b self, field: &'b str) -> impl Fn(IslError) -> ImportError + 'b {
        move |error| ImportError::Isl {
            file: self.file.to_path_buf(),
            field: field.to_string(),
            error,
        }
    }

    /// The member `key` of `object` (at path `path`), which must exist.
    fn member<'v>(
        &self,
        object: &'v Value,
        path: &str,
        key: &str,
    ) -> Result<&'v Value, ImportError> {
        let field = join(path, key);
        match object {
            Value::Object(members) => members
                .get(key)
                .ok_or_else(|| self.field_error(&field, "this field", "nothing")),
            other => Err(self.field_error(
                if path.is_empty() { "(top level)" } else { path },
                "an object",
                describe(other),
            )),
        }
    }

    fn string<'v>(&self, object: &'v Value, path: &str, key: &str) -> Result<&'v str, ImportError> {
        match self.member(object, path, key)? {
            Value::String(text) => Ok(text),
            other => Err(self.field_error(&join(path, key), "a string", describe(other))),
        }
    }

    /// Checks the file against `scop` and returns the new per-statement maps (aligned to
    /// the region's parameters, range unnamed) and the schedule tree built from them.
    fn schedule(&self, scop: &Scop, root: &Value) -> Result<(Vec<Map>, Schedule), ImportError> {
        let name = self.string(root, "", "name")?;
        if name != scop.name {
            return Err(self.field_error(
                "name",
                format!("the region \"{}\"", scop.name),
                format!("\"{}\" (a file written for another region)", shorten(name)),
            ));
        }
        let statements = match self.member(root, "", "statements")? {
            Value::Array(items) => items,
            other => return Err(self.field_error("statements", "an array", describe(other))),
        };
        if statements.len() != scop.statements.len() {
            return Err(self.field_error(
                "statements",
                format!("{} statements, as the region has", scop.statements.len()),
                format!("{}", statements.len()),
            ));
        }
        let ctx = scop.context.ctx();
        let mut maps = Vec::with_capacity(statements.len());
        let mut width: Option<(usize, String)> = None;
        for (k, (item, statement)) in statements.iter().zip(&scop.statements).enumerate() {
            let path = format!("statements[{k}]");
            let name_field = join(&path, "name");
            let name = self.string(item, &path, "name")?;
            if name != statement.name {
                return Err(self.field_error(
                    &name_field,
                    format!("\"{}\" (statements in program order)", statement.name),
                    format!("\"{}\"", shorten(name)),
                ));
            }

            let domain_field = join(&path, "domain");
            let domain_text = self.string(item, &path, "domain")?;
            let domain = parse_set(&ctx, domain_text, &domain_field)
                .map_err(self.isl_error(&domain_field))?;
            if !domain
                .is_equal(&statement.domain)
                .map_err(self.isl_error(&domain_field))?
            {
                return Err(self.field_error(
                    &domain_field,
                    format!(
                        "the statement's domain {} (the file was written for another version \
                         of the region)",
                        text(statement.domain.to_str())
                    ),
                    format!("'{}'", shorten(domain_text)),
                ));
            }

            let field = join(&path, "schedule");
            let schedule_text = self.string(item, &path, "schedule")?;
            let map = self.statement_schedule(scop, statement, schedule_text, &field)?;
            let n_out = map.n_out().map_err(self.isl_error(&field))?;
            match &width {
                None => width = Some((n_out, field.clone())),
                Some((expected, first)) if *expected != n_out => {
                    return Err(self.field_error(
                        &field,
                        format!("a time stamp of {expected} dimensions, like {first}"),
                        format!("{n_out} dimensions in '{}'", shorten(schedule_text)),
                    ));
                }
                Some(_) => {}
            }
            maps.push(map);
        }

        let field = "statements[*].schedule";
        let err = self.isl_error(field);
        let mut union = UnionMap::empty(&ctx).map_err(&err)?;
        for (map, statement) in maps.iter().zip(&scop.statements) {
            let restricted = map
                .copy()
                .and_then(|m| m.intersect_domain(statement.domain.copy()?))
                .map_err(&err)?;
            union = union.add_map(restricted).map_err(&err)?;
        }
        let union = union.align_params(&scop.context).map_err(&err)?;
        let tree = scop
            .domains
            .copy()
            .and_then(Schedule::from_domain)
            .and_then(|s| s.insert_band(union))
            .map_err(&err)?;
        Ok((maps, tree))
    }

    /// Parses and checks one statement's schedule map.
    fn statement_schedule(
        &self,
        scop: &Scop,
        statement: &super::scop::Statement,
        schedule_text: &str,
        field: &str,
    ) -> Result<Map, ImportError> {
        let err = self.isl_error(field);
        let ctx = scop.context.ctx();
        let map = parse_map(&ctx, schedule_text, field).map_err(&err)?;
        let dims = statement.depth();
        let expected_space = format!(
            "a map from {}[{}] to a time stamp [...]",
            statement.name,
            super::scop::iterator_list(dims)
        );
        if map.domain_name().as_deref() != Some(statement.name.as_str())
            || map.n_in().map_err(&err)? != dims
        {
            return Err(self.field_error(
                field,
                expected_space,
                format!("'{}'", shorten(schedule_text)),
            ));
        }
        for param in map.param_names().map_err(&err)? {
            if !scop.params.contains(&param) {
                return Err(self.field_error(
                    field,
                    format!(
                        "a map over the region's parameters [{}]",
                        scop.params.join(", ")
                    ),
                    format!("parameter '{param}' in '{}'", shorten(schedule_text)),
                ));
            }
        }
        if map.n_out().map_err(&err)? == 0 {
            return Err(self.field_error(
                field,
                "a time stamp of at least one dimension",
                format!("'{}'", shorten(schedule_text)),
            ));
        }
        let map = map
            .drop_range_name()
            .and_then(|m| m.align_params(&scop.context))
            .map_err(&err)?;
        let on_domain = map
            .copy()
            .and_then(|m| m.intersect_domain(statement.domain.copy()?))
            .map_err(&err)?;
        if !on_domain.is_single_valued().map_err(&err)? {
            return Err(self.field_error(
                field,
                "one time stamp for each statement instance (a function)",
                format!("several for some instances in '{}'", shorten(schedule_text)),
            ));
        }
        let covered = on_domain.domain().map_err(&err)?;
        if !statement.domain.is_subset(&covered).map_err(&err)? {
            return Err(self.field_error(
                field,
                format!(
                    "a time stamp for every instance of the domain {}",
                    text(statement.domain.to_str())
                ),
                format!("'{}', which leaves some out", shorten(schedule_text)),
            ));
        }
        Ok(map)
    }
}

/// `path.key`, or `key` at the top level.
/// The JSON document in `json_text`, or where and why it is not one.
fn parse(json_text: &str, file: &Path) -> Result<Value, ImportError> {
    serde_json::from_str(json_text).map_err(|error| ImportError::Syntax {
        file: file.to_path_buf(),
        line: error.line(),
        column: error.column(),
        message: error.to_string(),
    })
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A JSON value in a few words, for "found ..." messages.
fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {}", shorten(&n.to_string())),
        Value::String(s) => format!("the string \"{}\"", shorten(s)),
        Value::Array(items) => format!("an array of {} elements", items.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// At most 200 characters of `text`, for messages.
fn shorten(text: &str) -> String {
    const LIMIT: usize = 200;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_string(),
    }
}
