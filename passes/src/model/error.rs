//! Why a region could not be modelled (`ModelError`) or a model file could not be
//! used (`ImportError`). Each message names the region or file, the field, the offending
//! text and what was expected, so that whoever wrote the spec or the file can fix it.

use std::fmt;
use std::path::PathBuf;

use crate::isl::IslError;

/// A `ScopSpec` that does not describe a valid region, or an isl failure while building it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// isl could not read a string of the spec, or reached its operation bound.
    Isl {
        /// The region (`function:entry-block`).
        region: String,
        /// What was being read or computed, e.g. `domain of statement S0`.
        field: String,
        /// isl's own error.
        error: IslError,
    },
    /// A string is valid isl (or a plain value) that does not fit the region.
    Invalid {
        /// The region (`function:entry-block`).
        region: String,
        /// e.g. `access 1 of statement S0`.
        field: String,
        /// The offending text as given in the spec.
        text: String,
        /// What is wrong and what was expected.
        problem: String,
    },
}

impl ModelError {
    /// True when isl reached its operation bound: the region is too costly, not wrong.
    pub fn is_operation_limit(&self) -> bool {
        matches!(self, ModelError::Isl { error, .. } if error.is_operation_limit())
    }

    /// The region the error is about.
    pub fn region(&self) -> &str {
        match self {
            ModelError::Isl { region, .. } | ModelError::Invalid { region, .. } => region,
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::Isl {
                region,
                field,
                error,
            } => match error {
                // A parse error already names the field and the text.
                IslError::Parse { .. } | IslError::OperationLimit { .. } => {
                    write!(f, "region {region}: {error}")
                }
                IslError::Other { .. } => write!(f, "region {region}: {field}: {error}"),
            },
            ModelError::Invalid {
                region,
                field,
                text,
                problem,
            } => write!(f, "region {region}: {field} '{text}': {problem}"),
        }
    }
}

impl std::error::Error for ModelError {}

/// A model file (JSON, as `json::export` writes it) whose schedule cannot replace a
/// region's (`json::import_schedule`; nothing is changed when import fails) or that
/// does not describe a region (`json::import_spec`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImportError {
    /// The file is not JSON.
    Syntax {
        /// The file read.
        file: PathBuf,
        /// Line of the error, from 1.
        line: usize,
        /// Column of the error, from 1.
        column: usize,
        /// The JSON reader's message.
        message: String,
    },
    /// A field is missing, has the wrong type, or a value that does not fit the region.
    Field {
        /// The file read.
        file: PathBuf,
        /// JSON path, e.g. `statements[1].schedule`.
        field: String,
        /// What the field should hold.
        expected: String,
        /// What it holds.
        found: String,
    },
    /// isl could not read a field or reached its operation bound.
    Isl {
        /// The file read.
        file: PathBuf,
        /// JSON path of the field, e.g. `statements[1].domain`.
        field: String,
        /// isl's own error.
        error: IslError,
    },
}

impl ImportError {
    /// The JSON path of the offending field (empty for a syntax error).
    pub fn field(&self) -> &str {
        match self {
            ImportError::Syntax { .. } => "",
            ImportError::Field { field, .. } | ImportError::Isl { field, .. } => field,
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Syntax {
                file,
                line,
                column,
                message,
            } => write!(
                f,
                "model file '{}': not valid JSON at line {line}, column {column}: {message}",
                file.display()
            ),
            ImportError::Field {
                file,
                field,
                expected,
                found,
            } => write!(
                f,
                "model file '{}': {field}: expected {expected}, found {found}",
                file.display()
            ),
            ImportError::Isl { file, field, error } => {
                write!(f, "model file '{}': {field}: {error}", file.display())
            }
        }
    }
}

impl std::error::Error for ImportError {}
