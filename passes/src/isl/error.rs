//! What can go wrong in an isl computation, told so a user can act on it: the operation
//! bound was reached (the region is too complex for the bound; raise it or accept that the
//! region stays as it was), a string did not parse (detection or an imported file wrote
//! something isl does not accept), or isl refused an operation.
//!
//! Relies on isl-rs reporting the error kind as the `[Kind]` prefix of its `LibISLError`
//! display, and on isl's own codes (`isl_error_quota`) for errors read from the context.

use std::fmt;

use isl_rs::LibISLError;

/// An isl failure with enough context to act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IslError {
    /// isl reached the operation bound of its context (`-polyrust-max-operations`).
    OperationLimit {
        /// What was being computed, e.g. `isl_set_lexmin` or `parsing the domain of S0`.
        operation: String,
    },
    /// A string is not a valid isl object of the expected kind.
    Parse {
        /// What the string was for, e.g. `domain of statement S0`.
        what: String,
        /// The string as given.
        text: String,
        /// Why isl (or the check after it) rejected it.
        message: String,
    },
    /// isl refused an operation for another reason (incompatible spaces, internal error).
    Other {
        /// The operation, e.g. `isl_union_map_apply_range`.
        context: String,
        /// What went wrong, as isl or the wrapper says it.
        message: String,
    },
}

impl IslError {
    /// True when isl stopped because the operation bound was reached.
    pub fn is_operation_limit(&self) -> bool {
        matches!(self, IslError::OperationLimit { .. })
    }

    /// Turns an isl-rs error from `operation` into an `IslError`.
    pub(super) fn from_lib(operation: &str, error: LibISLError) -> IslError {
        let shown = error.to_string();
        if shown.starts_with("[Quota]") {
            return IslError::OperationLimit {
                operation: operation.to_string(),
            };
        }
        IslError::Other {
            context: operation.to_string(),
            message: describe_lib_message(&shown),
        }
    }

    /// Turns an error code and message read from an isl context into an `IslError`.
    pub(super) fn from_code(operation: &str, code: i32, message: String) -> IslError {
        if code == isl_rs::Error::Quota.to_i32() {
            IslError::OperationLimit {
                operation: operation.to_string(),
            }
        } else {
            IslError::Other {
                context: operation.to_string(),
                message,
            }
        }
    }

    /// isl returned no object without recording an error.
    pub(super) fn no_result(operation: &str) -> IslError {
        IslError::Other {
            context: operation.to_string(),
            message: "isl returned no result".to_string(),
        }
    }
}

/// `[Invalid] some message` → `some message (invalid)`.
fn describe_lib_message(shown: &str) -> String {
    match shown
        .strip_prefix('[')
        .and_then(|rest| rest.split_once("] "))
    {
        Some((kind, message)) => format!("{message} ({})", kind.to_lowercase()),
        None => shown.to_string(),
    }
}

impl fmt::Display for IslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IslError::OperationLimit { operation } => write!(
                f,
                "isl reached its operation limit while {operation}; the region is left as it \
                 was (raise the bound with -polyrust-max-operations=N)"
            ),
            IslError::Parse {
                what,
                text,
                message,
            } => write!(f, "{what} '{text}' is not valid isl: {message}"),
            IslError::Other { context, message } => {
                write!(f, "isl failed while {context}: {message}")
            }
        }
    }
}

impl std::error::Error for IslError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quota_errors_from_isl_rs_become_operation_limit() {
        let error = IslError::from_lib(
            "computing a lexmin",
            LibISLError::new(
                isl_rs::Error::Quota,
                "maximal number of operations exceeded",
            ),
        );
        assert!(error.is_operation_limit());
        assert!(error.to_string().contains("-polyrust-max-operations"));
    }

    #[test]
    fn other_errors_keep_isl_message_and_kind() {
        let error = IslError::from_lib(
            "intersecting",
            LibISLError::new(isl_rs::Error::Invalid, "spaces don't match"),
        );
        assert_eq!(
            error,
            IslError::Other {
                context: "intersecting".into(),
                message: "spaces don't match (invalid)".into()
            }
        );
    }
}
