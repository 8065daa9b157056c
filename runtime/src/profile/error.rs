//! Why a profile could not be read, merged or written. Every message names the file
//! (or the merge input) and says what to do about it.

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::{
    MAX_PROFILE_BYTES, MAX_REGIONS, OLDEST_PROFILE_FORMAT_VERSION, PROFILE_FORMAT_VERSION,
};

#[derive(Debug)]
pub enum ProfileError {
    /// The file does not exist or cannot be read.
    Unreadable { path: PathBuf, source: io::Error },
    /// The file is larger than [`MAX_PROFILE_BYTES`].
    TooLarge { path: PathBuf, bytes: u64 },
    /// The file is not JSON, or is cut short.
    NotJson {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// JSON, but not a polyrust profile (no or another `format`).
    NotAProfile { path: PathBuf },
    /// A polyrust profile of another format version.
    OtherVersion { path: PathBuf, version: u64 },
    /// A polyrust profile whose content breaks the format's rules or limits.
    Malformed { path: PathBuf, problem: String },
    /// One of the profiles handed to [`super::Profile::merge`] breaks the format's rules.
    MalformedMergeInput { index: usize, problem: String },
    /// Merging would give a profile with more than [`MAX_REGIONS`] regions.
    MergedTooLarge { regions: usize },
    /// The profile could not be written.
    Unwritable { path: PathBuf, source: io::Error },
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProfileError::Unreadable { path, source } => write!(
                f,
                "cannot read profile '{}': {source}; check the path, or run the \
                 instrumented program to write it",
                path.display()
            ),
            ProfileError::TooLarge { path, bytes } => write!(
                f,
                "'{}' is not a polyrust profile: it is larger than {} MiB ({bytes} \
                 bytes read)",
                path.display(),
                MAX_PROFILE_BYTES >> 20
            ),
            ProfileError::NotJson { path, source } => write!(
                f,
                "profile '{}' is not valid JSON ({source}); it may be cut short: \
                 re-run the instrumented program to write it again",
                path.display()
            ),
            ProfileError::NotAProfile { path } => write!(
                f,
                "'{}' is not a polyrust profile (no \"format\": \"polyrust-profile\"); \
                 pass the file the instrumented program wrote",
                path.display()
            ),
            ProfileError::OtherVersion { path, version } => write!(
                f,
                "profile '{}' was written by another version of polyrust (format \
                 {version}, this one reads {OLDEST_PROFILE_FORMAT_VERSION} to \
                 {PROFILE_FORMAT_VERSION}); regenerate it by \
                 re-running the instrumented program",
                path.display()
            ),
            ProfileError::Malformed { path, problem } => write!(
                f,
                "malformed profile '{}': {problem}; regenerate it by re-running the \
                 instrumented program",
                path.display()
            ),
            ProfileError::MalformedMergeInput { index, problem } => write!(
                f,
                "malformed profile (merge input {}): {problem}",
                index + 1
            ),
            ProfileError::MergedTooLarge { regions } => write!(
                f,
                "the merged profile would have {regions} regions, more than the \
                 {MAX_REGIONS} a profile may have; merge fewer profiles"
            ),
            ProfileError::Unwritable { path, source } => {
                write!(f, "cannot write profile '{}': {source}", path.display())
            }
        }
    }
}

/// The message already includes the underlying I/O or JSON error, so `source` is left
/// empty: printing the chain would say it twice.
impl std::error::Error for ProfileError {}
