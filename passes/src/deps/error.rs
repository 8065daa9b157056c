//! Why the dependences of a region could not be computed: isl failed or reached its
//! operation bound in some step, or a reduction handed in by detection does not fit the
//! statement's accesses. Each message names the region and the step.

use std::fmt;

use crate::isl::IslError;

/// Why the dependences of a region could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DepsError {
    /// isl failed, or reached the operation bound, in `step`.
    Isl {
        /// The region (`function:entry-block`).
        region: String,
        /// What was being computed, e.g. `computing the flow dependences`.
        step: String,
        /// isl's own error.
        error: IslError,
    },
    /// A reduction candidate that is not one: the statement or array is unknown, or the
    /// statement's accesses to the array are not one read and one must-write of the same
    /// element.
    InvalidReduction {
        /// The region (`function:entry-block`).
        region: String,
        /// The statement named by the candidate.
        statement: String,
        /// The array named by the candidate.
        array: String,
        /// What is wrong with it.
        problem: String,
    },
}

impl DepsError {
    /// True when isl reached its operation bound: the region is too costly, not wrong.
    pub fn is_operation_limit(&self) -> bool {
        matches!(self, DepsError::Isl { error, .. } if error.is_operation_limit())
    }

    /// The region the error is about.
    pub fn region(&self) -> &str {
        match self {
            DepsError::Isl { region, .. } | DepsError::InvalidReduction { region, .. } => region,
        }
    }
}

impl fmt::Display for DepsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DepsError::Isl {
                region,
                step,
                error,
            } => write!(f, "region {region}: {step}: {error}"),
            DepsError::InvalidReduction {
                region,
                statement,
                array,
                problem,
            } => write!(
                f,
                "region {region}: statement {statement} was given as a reduction on \
                 {array}, but {problem}; the region's dependences are not computed"
            ),
        }
    }
}

impl std::error::Error for DepsError {}
