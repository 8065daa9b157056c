//! `import_spec`: reads a whole exported region back into the `ScopSpec` it was built
//! from, so that the later stages (dependences, scheduling, tiling, AST generation) can
//! run on a region without LLVM: in the compile-time benchmarks (`passes/benches/`) and in
//! tests.
//!
//! Why a `ScopSpec` and not a `Scop`: `Scop::build` already turns a spec into isl objects
//! and checks every isl string of it (parameters, tuple names and arities, arrays,
//! positions forming a loop tree), so reading the spec and building it reuses all of
//! that, and the model is exactly the one the driver builds for the region. This reader
//! only checks the JSON: every field a spec has must be present with the right type, and
//! an error names the file and the JSON path (`statements[1].accesses[0].kind`). The
//! fields the model derives (`assumed_context`, each statement's `schedule`) are not
//! read: `Scop::build` derives them again, and `import_schedule` is the reader of edited
//! schedules. Unknown fields are ignored, as `import_schedule` does.
//!
//! Relies on serde_json (whose parser bounds nesting depth); no isl call happens here.

use std::path::Path;

use serde_json::Value;

use super::{describe, join, parse, shorten, Reader};
use crate::model::error::ImportError;
use crate::model::spec::{
    AccessKind, AccessSpec, ArraySpec, Assumption, AssumptionKind, ScopSpec, StatementSpec,
};

/// The region in `json_text` (as `export` writes it; read from `file`, which is only used
/// in messages) as the spec `Scop::build` takes.
pub fn import_spec(json_text: &str, file: &Path) -> Result<ScopSpec, ImportError> {
    let root = parse(json_text, file)?;
    Reader { file }.spec(&root)
}

impl Reader<'_> {
    fn spec(&self, root: &Value) -> Result<ScopSpec, ImportError> {
        Ok(ScopSpec {
            name: self.string(root, "", "name")?.to_string(),
            function: self.string(root, "", "function")?.to_string(),
            location: self.optional_string(root, "", "location")?,
            params: self.strings(root, "", "params")?,
            context: self.string(root, "", "context")?.to_string(),
            assumptions: self.each(root, "", "assumptions", |item, path| {
                self.assumption(item, path)
            })?,
            arrays: self.each(root, "", "arrays", |item, path| self.array_spec(item, path))?,
            statements: self.each(root, "", "statements", |item, path| {
                self.statement(item, path)
            })?,
            alias_groups: self.each(root, "", "alias_groups", |item, path| {
                self.string_items(item, path)
            })?,
        })
    }

    fn assumption(&self, item: &Value, path: &str) -> Result<Assumption, ImportError> {
        let kind = match self.string(item, path, "kind")? {
            "no-wrap" => AssumptionKind::NoWrap,
            "in-bounds" => AssumptionKind::InBounds,
            "invariant-load" => AssumptionKind::InvariantLoad,
            other => {
                return Err(self.field_error(
                    &join(path, "kind"),
                    "one of \"no-wrap\", \"in-bounds\", \"invariant-load\"",
                    format!("the string \"{}\"", shorten(other)),
                ))
            }
        };
        Ok(Assumption {
            kind,
            set: self.string(item, path, "set")?.to_string(),
            statement: self.optional_string(item, path, "statement")?,
            reason: self.string(item, path, "reason")?.to_string(),
        })
    }

    fn array_spec(&self, item: &Value, path: &str) -> Result<ArraySpec, ImportError> {
        Ok(ArraySpec {
            name: self.string(item, path, "name")?.to_string(),
            element_type: self.string(item, path, "element_type")?.to_string(),
            element_size: self.unsigned(
                self.member(item, path, "element_size")?,
                &join(path, "element_size"),
            )?,
            inner_sizes: self.strings(item, path, "inner_sizes")?,
            is_scalar: self.boolean(item, path, "is_scalar")?,
        })
    }

    fn statement(&self, item: &Value, path: &str) -> Result<StatementSpec, ImportError> {
        Ok(StatementSpec {
            name: self.string(item, path, "name")?.to_string(),
            block: self.string(item, path, "block")?.to_string(),
            domain: self.string(item, path, "domain")?.to_string(),
            textual_positions: self.each(item, path, "textual_positions", |value, field| {
                self.unsigned(value, field)
            })?,
            accesses: self.each(item, path, "accesses", |access, path| {
                self.access(access, path)
            })?,
            reductions: self.strings(item, path, "reductions")?,
        })
    }

    fn access(&self, item: &Value, path: &str) -> Result<AccessSpec, ImportError> {
        let kind = match self.string(item, path, "kind")? {
            "read" => AccessKind::Read,
            "must_write" => AccessKind::MustWrite,
            "may_write" => AccessKind::MayWrite,
            other => {
                return Err(self.field_error(
                    &join(path, "kind"),
                    "one of \"read\", \"must_write\", \"may_write\"",
                    format!("the string \"{}\"", shorten(other)),
                ))
            }
        };
        Ok(AccessSpec {
            kind,
            array: self.string(item, path, "array")?.to_string(),
            relation: self.string(item, path, "relation")?.to_string(),
            instruction: self.string(item, path, "instruction")?.to_string(),
            // Absent from files written before it was exported, and from accesses
            // without debug information.
            location: match item.get("location") {
                None => None,
                Some(_) => self.optional_string(item, path, "location")?,
            },
        })
    }

    /// `read` applied to each element of the array `object.key`, with the element's path.
    fn each<T>(
        &self,
        object: &Value,
        path: &str,
        key: &str,
        mut read: impl FnMut(&Value, &str) -> Result<T, ImportError>,
    ) -> Result<Vec<T>, ImportError> {
        let field = join(path, key);
        match self.member(object, path, key)? {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(k, item)| read(item, &format!("{field}[{k}]")))
                .collect(),
            other => Err(self.field_error(&field, "an array", describe(other))),
        }
    }

    /// The array of strings `object.key`.
    fn strings(&self, object: &Value, path: &str, key: &str) -> Result<Vec<String>, ImportError> {
        self.string_items(self.member(object, path, key)?, &join(path, key))
    }

    /// `value` (at `field`), which must be an array of strings.
    fn string_items(&self, value: &Value, field: &str) -> Result<Vec<String>, ImportError> {
        let Value::Array(items) = value else {
            return Err(self.field_error(field, "an array of strings", describe(value)));
        };
        items
            .iter()
            .enumerate()
            .map(|(k, item)| match item {
                Value::String(text) => Ok(text.clone()),
                other => {
                    Err(self.field_error(&format!("{field}[{k}]"), "a string", describe(other)))
                }
            })
            .collect()
    }

    /// The member `key`, a string or null.
    fn optional_string(
        &self,
        object: &Value,
        path: &str,
        key: &str,
    ) -> Result<Option<String>, ImportError> {
        match self.member(object, path, key)? {
            Value::Null => Ok(None),
            Value::String(text) => Ok(Some(text.clone())),
            other => Err(self.field_error(&join(path, key), "a string or null", describe(other))),
        }
    }

    fn boolean(&self, object: &Value, path: &str, key: &str) -> Result<bool, ImportError> {
        match self.member(object, path, key)? {
            Value::Bool(b) => Ok(*b),
            other => Err(self.field_error(&join(path, key), "true or false", describe(other))),
        }
    }

    /// `value` (at `field`), which must be an integer from 0 to `u32::MAX`.
    fn unsigned(&self, value: &Value, field: &str) -> Result<u32, ImportError> {
        value
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| {
                self.field_error(
                    field,
                    format!("an integer from 0 to {}", u32::MAX),
                    describe(value),
                )
            })
    }
}
