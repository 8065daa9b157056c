//! Where the profile goes: `POLYRUST_PROFILE_FILE` if set, else the path compiled into
//! the first descriptor entered, else `default.polyprof.json`; `%p` becomes the process
//! id, so that several processes (or a program run several times) keep one file each.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

/// The environment variable that overrides the profile path.
pub const PROFILE_FILE_VARIABLE: &str = "POLYRUST_PROFILE_FILE";
/// The profile path when neither the environment nor the compile gave one.
pub const DEFAULT_PROFILE_FILE: &str = "default.polyprof.json";

/// The path to write, from the value of [`PROFILE_FILE_VARIABLE`] (if set and not
/// empty) or the compiled-in default, with every `%p` replaced by `pid`.
pub(crate) fn profile_path(
    environment: Option<OsString>,
    compiled: Option<&str>,
    pid: u32,
) -> PathBuf {
    let pattern = environment
        .filter(|path| !path.is_empty())
        .or_else(|| compiled.map(OsString::from))
        .unwrap_or_else(|| OsString::from(DEFAULT_PROFILE_FILE));
    let pid = pid.to_string();
    let mut path = Vec::new();
    let mut rest = pattern.as_bytes();
    while let Some(at) = rest.windows(2).position(|pair| pair == b"%p") {
        path.extend_from_slice(&rest[..at]);
        path.extend_from_slice(pid.as_bytes());
        rest = &rest[at + 2..];
    }
    path.extend_from_slice(rest);
    PathBuf::from(OsString::from_vec(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_wins_over_the_compiled_path() {
        let path = profile_path(Some("env.json".into()), Some("compiled.json"), 7);
        assert_eq!(path, PathBuf::from("env.json"));
    }

    #[test]
    fn compiled_path_is_used_when_the_environment_is_unset_or_empty() {
        assert_eq!(
            profile_path(None, Some("c.json"), 7),
            PathBuf::from("c.json")
        );
        assert_eq!(
            profile_path(Some("".into()), Some("c.json"), 7),
            PathBuf::from("c.json")
        );
    }

    #[test]
    fn default_is_default_polyprof_json() {
        assert_eq!(
            profile_path(None, None, 7),
            PathBuf::from(DEFAULT_PROFILE_FILE)
        );
    }

    #[test]
    fn every_percent_p_becomes_the_process_id() {
        let path = profile_path(Some("out/%p/run-%p.json".into()), None, 4242);
        assert_eq!(path, PathBuf::from("out/4242/run-4242.json"));
        assert_eq!(profile_path(Some("%".into()), None, 1), PathBuf::from("%"));
    }
}
