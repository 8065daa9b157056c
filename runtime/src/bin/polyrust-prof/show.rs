//! `polyrust-prof show PROFILE`: what a profile says, region by region, in the terms
//! of the source: where the loop nest is, how often it was entered, which values it
//! saw and how often, the value tuples the second compile would specialize on, how
//! far each array reached, and whether two arrays ever overlapped; for the run-time
//! checks of optimized code, how often each passed.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use polyrust_rt::profile::{RegionProfile, ValueProfile, TRIP_COUNTS_SUFFIX};
use polyrust_rt::Profile;

pub const USAGE: &str = "\
usage: polyrust-prof show PROFILE

Prints, for each instrumented loop nest of PROFILE: where it is, how often it was
entered, the range and most frequent values of each recorded value, the hot value
tuples (those the second compile specializes on), the bytes each array spanned, and
which pairs of arrays overlapped.
";

/// Tuples seen in at least this share of a region's entries are listed.
const HOT_TUPLE_SHARE: f64 = 0.01;
/// Most frequent values listed per value; the rest are summed up.
const VALUES_LISTED: usize = 4;

pub fn run(args: &[OsString]) -> Result<()> {
    let [path] = args else {
        bail!("show takes one profile (polyrust-prof show --help)");
    };
    let path = PathBuf::from(path);
    let profile = Profile::read(&path)?;
    let text = render(&profile, &path);
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        // `polyrust-prof show p | head` is not an error.
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        result => Ok(result?),
    }
}

fn percent(count: u64, total: u64) -> String {
    if total == 0 {
        return "0.0%".into();
    }
    format!("{:.1}%", count as f64 * 100.0 / total as f64)
}

fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The whole report; a function of the profile alone.
pub fn render(profile: &Profile, path: &Path) -> String {
    let mut counts = plural(profile.regions.len() as u64, "region", "regions");
    if !profile.nests.is_empty() {
        counts.push_str(&format!(
            ", {}",
            plural(profile.nests.len() as u64, "nest", "nests")
        ));
    }
    let mut text = format!(
        "profile {}: {counts} (format {} version {})\n",
        path.display(),
        profile.format,
        profile.version
    );
    for region in &profile.regions {
        text.push('\n');
        render_region(&mut text, region);
    }
    // Folded accesses (format 2): one line per nest; `report` says what they mean.
    for nest in &profile.nests {
        let _ = write!(
            text,
            "\n{}\n  nest {} (module hash {}): {}, {} accesses at {} sites, {} \
             (polyrust-prof report shows the verdicts)\n",
            polyrust_rt::report::location(nest),
            nest.id,
            nest.module_hash,
            polyrust_rt::report::entries_text(nest),
            nest.access_events(),
            nest.sites.len(),
            plural(nest.dependences.len() as u64, "dependence", "dependences")
        );
    }
    text
}

fn location(region: &RegionProfile) -> String {
    let file = if region.file.is_empty() {
        "<unknown file>"
    } else {
        &region.file
    };
    let function = if region.function.is_empty() {
        "<unknown function>"
    } else {
        &region.function
    };
    match region.line {
        0 => format!("{file} in {function}"),
        line => format!("{file}:{line} in {function}"),
    }
}

fn render_region(text: &mut String, region: &RegionProfile) {
    let entries = region.entries;
    let _ = writeln!(text, "{}", location(region));
    let _ = writeln!(
        text,
        "  region {} (module hash {})",
        region.id, region.module_hash
    );
    let _ = writeln!(text, "  entered {}", plural(entries, "time", "times"));
    if let Some(passed) = region.check_passed() {
        // The run-time check in front of optimized code, not a loop nest's values.
        let failed = entries.saturating_sub(passed);
        let _ = writeln!(
            text,
            "  run-time check of the optimized code: passed in {} ({}), failed in {} ({}): the original loops (or the next specialized version) ran",
            plural(passed, "entry", "entries"),
            percent(passed, entries),
            plural(failed, "entry", "entries"),
            percent(failed, entries)
        );
    } else if region.id.ends_with(TRIP_COUNTS_SUFFIX) {
        // How long the nest ran: values, but never something to specialize on.
        render_values(text, region);
        return;
    } else {
        render_values(text, region);
        render_tuples(text, region);
    }
    render_ranges(text, region);
}

fn render_values(text: &mut String, region: &RegionProfile) {
    if region.values.is_empty() {
        text.push_str("  values: none recorded\n");
        return;
    }
    text.push_str("  values:\n");
    let width = region
        .values
        .iter()
        .map(|v| v.name.len())
        .max()
        .unwrap_or(0);
    for value in &region.values {
        let _ = writeln!(
            text,
            "    {:<width$}  {}",
            value.name,
            describe_value(value, region.entries)
        );
    }
}

fn describe_value(value: &ValueProfile, entries: u64) -> String {
    if entries == 0 {
        return "never seen".into();
    }
    let bounds = if value.min == value.max {
        format!("always {}", value.min)
    } else {
        format!("min {}, max {}", value.min, value.max)
    };
    if value.min == value.max {
        return bounds;
    }
    let mut frequent: Vec<String> = value
        .histogram
        .iter()
        .take(VALUES_LISTED)
        .map(|c| format!("{} ({})", c.value, percent(c.count, entries)))
        .collect();
    let rest: u64 = value
        .histogram
        .iter()
        .skip(VALUES_LISTED)
        .map(|c| c.count)
        .sum::<u64>()
        + value.other;
    if rest > 0 {
        frequent.push(format!("others ({})", percent(rest, entries)));
    }
    format!("{bounds}; most frequent: {}", frequent.join(", "))
}

fn render_tuples(text: &mut String, region: &RegionProfile) {
    if region.values.is_empty() || region.entries == 0 {
        return;
    }
    let hot = region.hot_tuples(HOT_TUPLE_SHARE);
    let _ = writeln!(
        text,
        "  hot tuples (at least {}% of the entries):",
        HOT_TUPLE_SHARE * 100.0
    );
    let names: Vec<&str> = region.values.iter().map(|v| v.name.as_str()).collect();
    let listed: Vec<String> = hot
        .iter()
        .map(|tuple| {
            let assignments: Vec<String> = names
                .iter()
                .zip(&tuple.values)
                .map(|(name, value)| format!("{name}={value}"))
                .collect();
            assignments.join(", ")
        })
        .collect();
    let width = listed.iter().map(String::len).max().unwrap_or(0);
    for (tuple, assignments) in hot.iter().zip(&listed) {
        let _ = writeln!(
            text,
            "    {assignments:<width$}  {} ({})",
            plural(tuple.count, "entry", "entries"),
            percent(tuple.count, region.entries)
        );
    }
    let listed_entries: u64 = hot.iter().map(|tuple| tuple.count).sum();
    let rest = region.entries.saturating_sub(listed_entries);
    if hot.is_empty() {
        text.push_str("    none: no tuple of values was seen that often\n");
    } else if rest > 0 {
        let _ = writeln!(
            text,
            "    other tuples: {} ({})",
            plural(rest, "entry", "entries"),
            percent(rest, region.entries)
        );
    }
}

fn render_ranges(text: &mut String, region: &RegionProfile) {
    if region.ranges.is_empty() {
        text.push_str("  ranges: none recorded\n");
        return;
    }
    text.push_str("  ranges (bytes spanned over all entries):\n");
    let width = region
        .ranges
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(0);
    for range in &region.ranges {
        let span = if range.low < range.high {
            plural(range.span(), "byte", "bytes")
        } else {
            "never accessed (empty in every entry)".into()
        };
        let _ = writeln!(text, "    {:<width$}  {span}", range.name);
    }
    if region.ranges.len() < 2 {
        return;
    }
    if region.overlaps.is_empty() {
        text.push_str("  overlaps: none; no two ranges ever overlapped\n");
        return;
    }
    text.push_str("  overlaps:\n");
    for overlap in &region.overlaps {
        let name = |index: usize| region.ranges[index].name.as_str();
        let _ = writeln!(
            text,
            "    {} and {} overlapped in {} of {} ({})",
            name(overlap.first),
            name(overlap.second),
            plural(overlap.count, "entry", "entries"),
            region.entries,
            percent(overlap.count, region.entries)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"{
      "format": "polyrust-profile", "version": 1,
      "regions": [{
        "id": "mm_view:3:9f2c41d0", "function": "mm_view", "file": "mm.c", "line": 14,
        "module_hash": "9f2c41d0", "entries": 200,
        "values": [
          {"name": "n", "min": 64, "max": 512,
           "histogram": [{"value": 128, "count": 150}, {"value": 64, "count": 49},
                         {"value": 512, "count": 1}], "other": 0},
          {"name": "sa1", "min": 1, "max": 1, "histogram": [{"value": 1, "count": 200}], "other": 0}
        ],
        "tuples": [{"values": [128, 1], "count": 150}, {"values": [64, 1], "count": 49},
                   {"values": [512, 1], "count": 1}],
        "other_tuples": 0,
        "ranges": [{"name": "A", "low": 4096, "high": 135168},
                   {"name": "C", "low": 18446744073709551615, "high": 0}],
        "overlaps": []
      }]
    }"#;

    #[test]
    fn a_region_is_shown_with_its_values_hot_tuples_and_ranges() {
        let profile = Profile::parse(SMALL.as_bytes(), Path::new("run.polyprof")).unwrap();
        let expected = "\
profile run.polyprof: 1 region (format polyrust-profile version 1)

mm.c:14 in mm_view
  region mm_view:3:9f2c41d0 (module hash 9f2c41d0)
  entered 200 times
  values:
    n    min 64, max 512; most frequent: 128 (75.0%), 64 (24.5%), 512 (0.5%)
    sa1  always 1
  hot tuples (at least 1% of the entries):
    n=128, sa1=1  150 entries (75.0%)
    n=64, sa1=1   49 entries (24.5%)
    other tuples: 1 entry (0.5%)
  ranges (bytes spanned over all entries):
    A  131072 bytes
    C  never accessed (empty in every entry)
  overlaps: none; no two ranges ever overlapped
";
        assert_eq!(render(&profile, Path::new("run.polyprof")), expected);
    }

    #[test]
    fn a_check_is_shown_as_how_often_it_passed() {
        let text = r#"{
          "format": "polyrust-profile", "version": 1,
          "regions": [{
            "id": "mm:0:6d254c1d", "function": "mm", "file": "mm.c", "line": 7,
            "module_hash": "9f2c41d0", "entries": 3,
            "values": [{"name": "check passed", "min": 0, "max": 1,
                        "histogram": [{"value": 1, "count": 2}, {"value": 0, "count": 1}],
                        "other": 0}],
            "tuples": [{"values": [1], "count": 2}, {"values": [0], "count": 1}],
            "other_tuples": 0,
            "ranges": [{"name": "C", "low": 4096, "high": 8192},
                       {"name": "A", "low": 4096, "high": 8192}],
            "overlaps": [{"first": 0, "second": 1, "count": 1}]
          }]
        }"#;
        let profile = Profile::parse(text.as_bytes(), Path::new("p")).unwrap();
        let shown = render(&profile, Path::new("p"));
        assert!(
            shown.contains("  run-time check of the optimized code: passed in 2 entries (66.7%), failed in 1 entry (33.3%)"),
            "{shown}"
        );
        assert!(!shown.contains("hot tuples"), "{shown}");
        assert!(
            shown.contains("    C and A overlapped in 1 entry of 3 (33.3%)"),
            "{shown}"
        );
    }
}
