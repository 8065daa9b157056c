//! Writing a profile: pretty JSON, one trailing newline. An existing file is replaced
//! whole (through a temporary file and a rename in the same folder), so a reader never
//! sees half a profile even when two processes write the same path.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{Profile, ProfileError};

impl Profile {
    /// The profile as pretty JSON, with a trailing newline.
    pub fn to_json(&self) -> String {
        // Serializing these plain structs cannot fail: no maps with non-string keys,
        // no custom Serialize.
        let mut json = serde_json::to_string_pretty(self).unwrap_or_default();
        json.push('\n');
        json
    }

    /// Writes the profile to `path`, replacing the file if it exists. Paths that are not
    /// regular files (`/dev/stdout`) are written in place.
    pub fn write(&self, path: &Path) -> Result<(), ProfileError> {
        let unwritable = |source| ProfileError::Unwritable {
            path: path.into(),
            source,
        };
        let json = self.to_json();
        let replace_whole = fs::metadata(path).map_or(true, |m| m.is_file());
        if !replace_whole {
            return fs::write(path, json).map_err(unwritable);
        }
        let temporary = temporary_path(path);
        let written = fs::File::create(&temporary)
            .and_then(|mut file| file.write_all(json.as_bytes()))
            .and_then(|()| fs::rename(&temporary, path));
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written.map_err(unwritable)
    }
}

/// `dir/.name.tmp.PID` beside `path`.
fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "profile".into());
    path.with_file_name(format!(".{name}.tmp.{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::tests::scratch_path;

    #[test]
    fn a_written_profile_reads_back_equal() {
        let mut profile = Profile::empty();
        let mut region = crate::profile::tests::region("k:1:ab", "ab");
        region.entries = 3;
        profile.regions.push(region);
        let path = scratch_path("round-trip.json");
        profile.write(&path).unwrap();
        assert_eq!(Profile::read(&path).unwrap(), profile);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n  \"format\": \"polyrust-profile\",\n  \"version\": 1,"));
        assert!(text.ends_with("}\n"));
    }

    #[test]
    fn writing_replaces_an_existing_file() {
        let path = scratch_path("replaced.json");
        std::fs::write(&path, "x".repeat(10_000)).unwrap();
        Profile::empty().write(&path).unwrap();
        assert_eq!(Profile::read(&path).unwrap(), Profile::empty());
    }

    #[test]
    fn an_unwritable_path_names_the_path_and_the_os_error() {
        let blocker = scratch_path("a-file");
        std::fs::write(&blocker, "").unwrap();
        let path = blocker.join("profile.json");
        let error = Profile::empty().write(&path).unwrap_err().to_string();
        assert!(error.contains("cannot write profile"), "{error}");
        assert!(error.contains("a-file/profile.json"), "{error}");
        assert!(error.contains("Not a directory"), "{error}");
    }
}
