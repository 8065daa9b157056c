//! Reading a profile from disk. Whatever the file holds, the answer is a checked
//! [`Profile`] or a [`ProfileError`] that names the file and says what to do: the file
//! is never read past [`MAX_PROFILE_BYTES`], JSON nesting is bounded by serde_json's
//! recursion limit, and the content is checked by [`Profile::validate`].

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::{
    Profile, ProfileError, MAX_PROFILE_BYTES, OLDEST_PROFILE_FORMAT_VERSION, PROFILE_FORMAT,
    PROFILE_FORMAT_VERSION,
};

/// The two fields that say whether the rest can be read at all; everything else is
/// skipped, so a profile of another version is recognised whatever its layout.
/// Only a JSON object is a header: an array is not a profile even if its first two
/// elements would fill the fields.
struct Header {
    format: Option<Value>,
    version: Option<Value>,
}

impl<'de> Deserialize<'de> for Header {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Header, D::Error> {
        deserializer.deserialize_map(HeaderVisitor)
    }
}

struct HeaderVisitor;

impl<'de> Visitor<'de> for HeaderVisitor {
    type Value = Header;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Header, A::Error> {
        let mut header = Header {
            format: None,
            version: None,
        };
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "format" => header.format = Some(map.next_value()?),
                "version" => header.version = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(header)
    }
}

impl Profile {
    /// Reads and checks the profile at `path`.
    pub fn read(path: &Path) -> Result<Profile, ProfileError> {
        let bytes = read_bounded(path)?;
        Profile::parse(&bytes, path)
    }

    /// Parses and checks a profile held in memory; `path` only names it in errors.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Profile, ProfileError> {
        let header: Header = serde_json::from_slice(bytes).map_err(|source| {
            if source.is_data() {
                ProfileError::NotAProfile { path: path.into() }
            } else {
                ProfileError::NotJson {
                    path: path.into(),
                    source,
                }
            }
        })?;
        if header.format.as_ref().and_then(Value::as_str) != Some(PROFILE_FORMAT) {
            return Err(ProfileError::NotAProfile { path: path.into() });
        }
        match header.version.as_ref().and_then(Value::as_u64) {
            Some(version)
                if (u64::from(OLDEST_PROFILE_FORMAT_VERSION)
                    ..=u64::from(PROFILE_FORMAT_VERSION))
                    .contains(&version) => {}
            Some(version) => {
                return Err(ProfileError::OtherVersion {
                    path: path.into(),
                    version,
                })
            }
            None => {
                return Err(ProfileError::Malformed {
                    path: path.into(),
                    problem: "\"version\" is missing or not a non-negative integer".into(),
                })
            }
        }
        let mut profile: Profile = serde_json::from_slice(bytes).map_err(|source| {
            if source.is_data() {
                ProfileError::Malformed {
                    path: path.into(),
                    problem: source.to_string(),
                }
            } else {
                ProfileError::NotJson {
                    path: path.into(),
                    source,
                }
            }
        })?;
        profile
            .validate()
            .map_err(|problem| ProfileError::Malformed {
                path: path.into(),
                problem,
            })?;
        profile.canonicalize();
        Ok(profile)
    }
}

/// The file's bytes, refusing anything larger than [`MAX_PROFILE_BYTES`] without
/// reading it all (the size on disk is not trusted: `/dev/zero` has none).
fn read_bounded(path: &Path) -> Result<Vec<u8>, ProfileError> {
    let unreadable = |source| ProfileError::Unreadable {
        path: path.into(),
        source,
    };
    let file = File::open(path).map_err(unreadable)?;
    let metadata = file.metadata().map_err(unreadable)?;
    if metadata.is_dir() {
        return Err(unreadable(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "it is a directory",
        )));
    }
    if metadata.len() > MAX_PROFILE_BYTES {
        return Err(ProfileError::TooLarge {
            path: path.into(),
            bytes: metadata.len(),
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_PROFILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() as u64 > MAX_PROFILE_BYTES {
        return Err(ProfileError::TooLarge {
            path: path.into(),
            bytes: bytes.len() as u64,
        });
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::tests::scratch_path;
    use crate::profile::MAX_REGIONS;

    /// Writes `content` to a scratch file named `name` and reads it back as a profile.
    fn read_text(name: &str, content: &str) -> Result<Profile, ProfileError> {
        let path = scratch_path(name);
        std::fs::write(&path, content).unwrap();
        Profile::read(&path)
    }

    /// A valid profile of one region with values n, m and ranges A, B, as JSON.
    fn one_region(edit: impl FnOnce(&mut Value)) -> String {
        let mut json = serde_json::json!({
            "format": "polyrust-profile",
            "version": 1,
            "regions": [{
                "id": "k:1:ab", "function": "k", "file": "k.c", "line": 3,
                "module_hash": "ab", "entries": 4,
                "values": [
                    {"name": "n", "min": 1, "max": 2,
                     "histogram": [{"value": 1, "count": 3}, {"value": 2, "count": 1}], "other": 0},
                    {"name": "m", "min": 5, "max": 5,
                     "histogram": [{"value": 5, "count": 4}], "other": 0}
                ],
                "tuples": [{"values": [1, 5], "count": 3}, {"values": [2, 5], "count": 1}],
                "other_tuples": 0,
                "ranges": [{"name": "A", "low": 4096, "high": 8192},
                           {"name": "B", "low": 8000, "high": 9000}],
                "overlaps": [{"first": 0, "second": 1, "count": 2}]
            }]
        });
        edit(&mut json);
        json.to_string()
    }

    fn region(json: &mut Value) -> &mut Value {
        &mut json["regions"][0]
    }

    fn message(result: Result<Profile, ProfileError>) -> String {
        result
            .expect_err("the profile should be refused")
            .to_string()
    }

    #[test]
    fn a_valid_profile_reads_back() {
        let profile = read_text("valid.json", &one_region(|_| {})).unwrap();
        assert_eq!(profile.regions[0].entries, 4);
        assert_eq!(profile.regions[0].overlap_count(1, 0), 2);
    }

    #[test]
    fn a_missing_file_is_named_with_the_os_error() {
        let path = scratch_path("does-not-exist.json");
        let error = message(Profile::read(&path));
        assert!(error.contains("cannot read profile"), "{error}");
        assert!(error.contains("does-not-exist.json"), "{error}");
        assert!(error.contains("No such file"), "{error}");
    }

    #[test]
    fn a_file_larger_than_256_mib_is_not_a_profile() {
        let path = scratch_path("huge.json");
        let file = File::create(&path).unwrap();
        file.set_len(MAX_PROFILE_BYTES + 1).unwrap(); // sparse: costs no disk
        let error = Profile::read(&path).unwrap_err();
        let _ = std::fs::remove_file(&path);
        assert!(matches!(error, ProfileError::TooLarge { .. }), "{error}");
        assert!(
            error.to_string().contains("not a polyrust profile"),
            "{error}"
        );
    }

    #[test]
    fn a_truncated_file_is_not_json_and_says_where() {
        let whole = one_region(|_| {});
        let error = read_text("truncated.json", &whole[..whole.len() / 2]).unwrap_err();
        assert!(matches!(error, ProfileError::NotJson { .. }), "{error}");
        assert!(error.to_string().contains("line 1 column"), "{error}");
        assert!(error.to_string().contains("re-run"), "{error}");
    }

    #[test]
    fn text_that_is_not_json_is_reported_as_such() {
        let error = read_text("text.json", "hello, profile\n").unwrap_err();
        assert!(matches!(error, ProfileError::NotJson { .. }), "{error}");
    }

    #[test]
    fn json_of_another_format_is_not_a_polyrust_profile() {
        let error = message(read_text(
            "other.json",
            r#"{"format": "llvm", "version": 1}"#,
        ));
        assert!(error.contains("not a polyrust profile"), "{error}");
        let error = message(read_text("array.json", "[1, 2, 3]"));
        assert!(error.contains("not a polyrust profile"), "{error}");
    }

    #[test]
    fn another_version_says_to_regenerate() {
        let error = message(read_text(
            "v2.json",
            r#"{"format": "polyrust-profile", "version": 3, "regions": "new layout"}"#,
        ));
        assert!(
            error.contains(
                "written by another version of polyrust (format 3, this one reads 1 to 2); regenerate it"
            ),
            "{error}"
        );
    }

    #[test]
    fn deeply_nested_json_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert!(read_text("deep.json", &deep).is_err());
        let deep_inside =
            format!(r#"{{"format": "polyrust-profile", "version": 1, "regions": {deep}"#);
        assert!(read_text("deep-inside.json", &deep_inside).is_err());
        let deep_value = format!(r#"{{"version": {deep}"#);
        assert!(read_text("deep-value.json", &deep_value).is_err());
    }

    #[test]
    fn more_than_100000_regions_is_malformed() {
        let mut text = String::from(r#"{"format":"polyrust-profile","version":1,"regions":["#);
        let region = r#"{"id":"r","function":"","file":"","line":0,"module_hash":"","entries":0,"values":[],"tuples":[],"other_tuples":0,"ranges":[],"overlaps":[]}"#;
        for i in 0..=MAX_REGIONS {
            if i > 0 {
                text.push(',');
            }
            text.push_str(region);
        }
        text.push_str("]}");
        let error = message(read_text("many-regions.json", &text));
        assert!(error.contains("malformed profile"), "{error}");
        assert!(error.contains("100001 regions"), "{error}");
    }

    #[test]
    fn more_than_64_values_is_malformed() {
        let text = one_region(|json| {
            let value = region(json)["values"][0].clone();
            region(json)["values"] = Value::Array(vec![value; 65]);
            region(json)["tuples"] = serde_json::json!([]);
        });
        let error = message(read_text("many-values.json", &text));
        assert!(error.contains("malformed profile"), "{error}");
        assert!(error.contains("65 values, more than 64"), "{error}");
    }

    #[test]
    fn more_than_64_ranges_is_malformed() {
        let text = one_region(|json| {
            let range = region(json)["ranges"][0].clone();
            region(json)["ranges"] = Value::Array(vec![range; 65]);
        });
        let error = message(read_text("many-ranges.json", &text));
        assert!(error.contains("65 ranges, more than 64"), "{error}");
    }

    #[test]
    fn a_tuple_of_the_wrong_length_is_malformed() {
        let text = one_region(|json| region(json)["tuples"][1]["values"] = serde_json::json!([2]));
        let error = message(read_text("short-tuple.json", &text));
        assert!(error.contains("malformed profile"), "{error}");
        assert!(
            error.contains("a tuple of 1 values, but 2 values"),
            "{error}"
        );
    }

    #[test]
    fn counts_beyond_the_entries_are_malformed() {
        // A forged count must not make a value look hot (it gave shares of 10^19 %).
        let text = one_region(|json| {
            region(json)["tuples"][0]["count"] = serde_json::json!(u64::MAX);
        });
        let error = message(read_text("big-tuple-count.json", &text));
        assert!(
            error.contains("tuples count more entries than its 4"),
            "{error}"
        );
        let text = one_region(|json| {
            region(json)["values"][1]["histogram"][0]["count"] = 5.into();
        });
        let error = message(read_text("big-value-count.json", &text));
        assert!(
            error.contains("histogram of 'm' counts more entries than its 4"),
            "{error}"
        );
    }

    #[test]
    fn an_overlap_naming_a_missing_range_is_malformed() {
        let text = one_region(|json| region(json)["overlaps"][0]["second"] = 2.into());
        let error = message(read_text("bad-overlap.json", &text));
        assert!(error.contains("overlap of ranges 0 and 2"), "{error}");
        let text = one_region(|json| region(json)["overlaps"][0]["first"] = 1.into());
        let error = message(read_text("self-overlap.json", &text));
        assert!(error.contains("overlap of ranges 1 and 1"), "{error}");
    }

    #[test]
    fn a_histogram_longer_than_16_is_malformed() {
        let text = one_region(|json| {
            let counts: Vec<Value> = (0..17)
                .map(|v| serde_json::json!({"value": v, "count": 1}))
                .collect();
            region(json)["values"][0]["histogram"] = Value::Array(counts);
        });
        let error = message(read_text("long-histogram.json", &text));
        assert!(error.contains("histogram of 'n' has 17 entries"), "{error}");
    }

    #[test]
    fn a_missing_field_is_malformed_and_says_where() {
        let text = one_region(|json| {
            region(json).as_object_mut().unwrap().remove("entries");
        });
        let error = message(read_text("no-entries.json", &text));
        assert!(error.contains("malformed profile"), "{error}");
        assert!(error.contains("missing field `entries`"), "{error}");
    }

    #[test]
    fn a_negative_count_is_malformed() {
        let text = one_region(|json| region(json)["entries"] = (-1).into());
        let error = message(read_text("negative.json", &text));
        assert!(error.contains("malformed profile"), "{error}");
    }
}
