//! Merging profiles, as `llvm-profdata merge` does for clang's: the entries of regions
//! with the same id and module hash are added up; a region whose module hash differs
//! (the source changed between the runs) is taken from the profile given last, with a
//! warning, since summing observations of two different programs means nothing.
//! Nests (folded accesses, version 2) cannot be added up: their folded domains number
//! entries from 0 in each run. They are kept side by side, in input order, so that
//! `polyrust-prof report` shows each run's; merging twice the same profile shows it twice.

use std::collections::BTreeMap;

use super::histogram::CappedHistogram;
use super::{
    Overlap, Profile, ProfileError, RangeProfile, RegionProfile, TupleCount, ValueCount,
    ValueProfile, MAX_REGIONS,
};

/// The result of [`Profile::merge`]: the merged profile, in canonical order, and what
/// the person merging should know (regions dropped because their source changed).
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    pub profile: Profile,
    pub warnings: Vec<String>,
}

impl Profile {
    /// Merges profiles; warnings name the inputs by position ("input 2").
    pub fn merge(profiles: impl IntoIterator<Item = Profile>) -> Result<Merged, ProfileError> {
        Profile::merge_labeled(
            profiles
                .into_iter()
                .enumerate()
                .map(|(index, profile)| (format!("input {}", index + 1), profile)),
        )
    }

    /// Merges profiles; warnings name the inputs by their labels (file names, say).
    pub fn merge_labeled(
        profiles: impl IntoIterator<Item = (String, Profile)>,
    ) -> Result<Merged, ProfileError> {
        let mut regions: BTreeMap<String, (RegionProfile, String)> = BTreeMap::new();
        let mut nests = Vec::new();
        let mut static_nests = Vec::new();
        let mut warnings = Vec::new();
        for (index, (label, profile)) in profiles.into_iter().enumerate() {
            profile
                .validate()
                .map_err(|problem| ProfileError::MalformedMergeInput { index, problem })?;
            nests.extend(profile.nests);
            static_nests.extend(profile.static_nests);
            for region in profile.regions {
                let Some((merged, merged_from)) = regions.get_mut(&region.id) else {
                    regions.insert(region.id.clone(), (region, label.clone()));
                    continue;
                };
                if let Some(difference) = incompatibility(merged, &region) {
                    warnings.push(format!(
                        "region '{}' ({}): {difference} in {merged_from} and {label}; the \
                         source changed between the runs, keeping only the profile of {label}",
                        region.id,
                        location(&region)
                    ));
                    *merged = region;
                    *merged_from = label.clone();
                } else {
                    add_region(merged, &region);
                }
            }
        }
        if regions.len().max(nests.len()) > MAX_REGIONS {
            return Err(ProfileError::MergedTooLarge {
                regions: regions.len().max(nests.len()),
            });
        }
        let mut profile = Profile::empty();
        profile.regions = regions.into_values().map(|(region, _)| region).collect();
        profile.nests = nests;
        profile.static_nests = static_nests;
        profile.canonicalize();
        Ok(Merged { profile, warnings })
    }
}

/// Why two regions of the same id cannot be added up, if they cannot.
fn incompatibility(a: &RegionProfile, b: &RegionProfile) -> Option<String> {
    if a.module_hash != b.module_hash {
        return Some(format!(
            "module hash {} and {}",
            a.module_hash, b.module_hash
        ));
    }
    let value_names = |r: &RegionProfile| r.values.iter().map(|v| v.name.clone()).collect();
    let range_names = |r: &RegionProfile| r.ranges.iter().map(|v| v.name.clone()).collect();
    let (a_values, b_values): (Vec<String>, Vec<String>) = (value_names(a), value_names(b));
    if a_values != b_values {
        return Some(format!(
            "recorded values [{}] and [{}]",
            a_values.join(", "),
            b_values.join(", ")
        ));
    }
    let (a_ranges, b_ranges): (Vec<String>, Vec<String>) = (range_names(a), range_names(b));
    if a_ranges != b_ranges {
        return Some(format!(
            "recorded ranges [{}] and [{}]",
            a_ranges.join(", "),
            b_ranges.join(", ")
        ));
    }
    None
}

fn location(region: &RegionProfile) -> String {
    let file = if region.file.is_empty() {
        "unknown file"
    } else {
        &region.file
    };
    format!("{} at {file}:{}", region.function, region.line)
}

/// Adds the entries of `b` to `a`; both record the same values and ranges.
fn add_region(a: &mut RegionProfile, b: &RegionProfile) {
    for (value_a, value_b) in a.values.iter_mut().zip(&b.values) {
        add_value(value_a, a.entries, value_b, b.entries);
    }
    let mut tuples = CappedHistogram::new();
    for tuple in a.tuples.iter().chain(&b.tuples) {
        tuples.add(&tuple.values, tuple.count);
    }
    tuples.add_other(a.other_tuples);
    tuples.add_other(b.other_tuples);
    let (kept, other) = tuples.into_capped();
    a.tuples = kept
        .into_iter()
        .map(|(values, count)| TupleCount { values, count })
        .collect();
    a.other_tuples = other;
    for (range_a, range_b) in a.ranges.iter_mut().zip(&b.ranges) {
        add_range(range_a, range_b);
    }
    let mut overlaps: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    for overlap in a.overlaps.iter().chain(&b.overlaps) {
        let count = overlaps.entry((overlap.first, overlap.second)).or_default();
        *count = count.saturating_add(overlap.count);
    }
    a.overlaps = overlaps
        .into_iter()
        .filter(|&(_, count)| count > 0)
        .map(|((first, second), count)| Overlap {
            first,
            second,
            count,
        })
        .collect();
    a.entries = a.entries.saturating_add(b.entries);
}

/// `a` and `b` have seen `a_entries` and `b_entries` entries; the bounds of a side that
/// saw none mean nothing.
fn add_value(a: &mut ValueProfile, a_entries: u64, b: &ValueProfile, b_entries: u64) {
    if a_entries == 0 {
        (a.min, a.max) = (b.min, b.max);
    } else if b_entries > 0 {
        a.min = a.min.min(b.min);
        a.max = a.max.max(b.max);
    }
    let mut histogram = CappedHistogram::new();
    for count in a.histogram.iter().chain(&b.histogram) {
        histogram.add(&count.value, count.count);
    }
    histogram.add_other(a.other);
    histogram.add_other(b.other);
    let (kept, other) = histogram.into_capped();
    a.histogram = kept
        .into_iter()
        .map(|(value, count)| ValueCount { value, count })
        .collect();
    a.other = other;
}

/// Widens `a` to cover `b`; a range that was never non-empty (`low >= high`) adds nothing.
fn add_range(a: &mut RangeProfile, b: &RangeProfile) {
    if b.low >= b.high {
        return;
    }
    if a.low >= a.high {
        (a.low, a.high) = (b.low, b.high);
    } else {
        a.low = a.low.min(b.low);
        a.high = a.high.max(b.high);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::tests::region;

    /// A region `id` with module hash `hash`, one value `n` seen as `seen`, one tuple
    /// per distinct value, and ranges A and B spanning `a` and `b` that overlapped
    /// `overlaps` times.
    fn observed(
        id: &str,
        hash: &str,
        seen: &[(i64, u64)],
        a: (u64, u64),
        b: (u64, u64),
        overlaps: u64,
    ) -> RegionProfile {
        let mut region = region(id, hash);
        region.entries = seen.iter().map(|(_, count)| count).sum();
        region.values.push(ValueProfile {
            name: "n".into(),
            min: seen.iter().map(|(v, _)| *v).min().unwrap_or(0),
            max: seen.iter().map(|(v, _)| *v).max().unwrap_or(0),
            histogram: seen
                .iter()
                .map(|&(value, count)| ValueCount { value, count })
                .collect(),
            other: 0,
        });
        region.tuples = seen
            .iter()
            .map(|&(value, count)| TupleCount {
                values: vec![value],
                count,
            })
            .collect();
        region.ranges = vec![
            RangeProfile {
                name: "A".into(),
                low: a.0,
                high: a.1,
            },
            RangeProfile {
                name: "B".into(),
                low: b.0,
                high: b.1,
            },
        ];
        if overlaps > 0 {
            region.overlaps = vec![Overlap {
                first: 0,
                second: 1,
                count: overlaps,
            }];
        }
        region.canonicalize();
        region
    }

    fn profile(regions: Vec<RegionProfile>) -> Profile {
        let mut profile = Profile::empty();
        profile.regions = regions;
        profile
    }

    #[test]
    fn regions_of_the_same_id_and_hash_are_added_up() {
        let first = observed("k", "h1", &[(8, 3), (16, 1)], (100, 200), (300, 400), 1);
        let second = observed("k", "h1", &[(16, 2), (32, 2)], (50, 150), (u64::MAX, 0), 2);
        let merged = Profile::merge([profile(vec![first]), profile(vec![second])]).unwrap();
        assert!(merged.warnings.is_empty());
        let region = &merged.profile.regions[0];
        assert_eq!(region.entries, 8);
        let n = &region.values[0];
        assert_eq!((n.min, n.max), (8, 32));
        let counts: Vec<(i64, u64)> = n.histogram.iter().map(|c| (c.value, c.count)).collect();
        assert_eq!(counts, vec![(8, 3), (16, 3), (32, 2)]);
        assert_eq!(region.tuples[0].count, 3);
        assert_eq!((region.ranges[0].low, region.ranges[0].high), (50, 200));
        assert_eq!(
            (region.ranges[1].low, region.ranges[1].high),
            (300, 400),
            "a range never non-empty adds nothing"
        );
        assert_eq!(region.overlap_count(0, 1), 3);
    }

    #[test]
    fn histograms_are_capped_again_keeping_the_most_frequent() {
        let low: Vec<(i64, u64)> = (0..16).map(|v| (v, 1)).collect();
        let high: Vec<(i64, u64)> = (100..116).map(|v| (v, 2)).collect();
        let merged = Profile::merge([
            profile(vec![observed("k", "h", &low, (0, 1), (2, 3), 0)]),
            profile(vec![observed("k", "h", &high, (0, 1), (2, 3), 0)]),
        ])
        .unwrap();
        let region = &merged.profile.regions[0];
        let n = &region.values[0];
        assert_eq!(n.histogram.len(), 16);
        assert!(n.histogram.iter().all(|c| c.value >= 100));
        assert_eq!(n.other, 16);
        assert_eq!((n.min, n.max), (0, 115), "bounds still cover every value");
        assert_eq!(region.tuples.len(), 16);
        assert_eq!(region.other_tuples, 16);
        assert_eq!(region.entries, 48);
    }

    #[test]
    fn another_module_hash_keeps_the_profile_given_last_and_warns() {
        let old = observed("k", "old", &[(8, 5)], (0, 1), (2, 3), 0);
        let new = observed("k", "new", &[(9, 1)], (0, 1), (2, 3), 0);
        let merged = Profile::merge([profile(vec![old]), profile(vec![new.clone()])]).unwrap();
        assert_eq!(merged.profile.regions, vec![new]);
        assert_eq!(merged.warnings.len(), 1);
        let warning = &merged.warnings[0];
        assert!(warning.contains("region 'k'"), "{warning}");
        assert!(warning.contains("module hash old and new"), "{warning}");
        assert!(
            warning.contains("keeping only the profile of input 2"),
            "{warning}"
        );
    }

    #[test]
    fn regions_of_other_ids_are_kept_side_by_side_in_id_order() {
        let merged = Profile::merge([
            profile(vec![observed("z", "h", &[(1, 1)], (0, 1), (2, 3), 0)]),
            profile(vec![observed("a", "h", &[(1, 1)], (0, 1), (2, 3), 0)]),
        ])
        .unwrap();
        let ids: Vec<&str> = merged
            .profile
            .regions
            .iter()
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(ids, vec!["a", "z"]);
    }

    #[test]
    fn a_region_never_entered_does_not_spoil_the_bounds() {
        let mut never = observed("k", "h", &[], (u64::MAX, 0), (u64::MAX, 0), 0);
        never.values[0].min = 0;
        never.values[0].max = 0;
        let seen = observed("k", "h", &[(40, 1)], (0, 1), (2, 3), 0);
        let merged = Profile::merge([profile(vec![never]), profile(vec![seen])]).unwrap();
        let n = &merged.profile.regions[0].values[0];
        assert_eq!((n.min, n.max), (40, 40));
    }

    #[test]
    fn merging_the_same_profiles_in_another_order_gives_the_same_profile() {
        let a = profile(vec![observed(
            "k",
            "h",
            &[(1, 2), (2, 2)],
            (0, 9),
            (5, 15),
            1,
        )]);
        let b = profile(vec![observed(
            "k",
            "h",
            &[(2, 1), (1, 1)],
            (3, 20),
            (6, 7),
            1,
        )]);
        let ab = Profile::merge([a.clone(), b.clone()]).unwrap();
        let ba = Profile::merge([b, a]).unwrap();
        assert_eq!(ab.profile.to_json(), ba.profile.to_json());
    }

    #[test]
    fn a_malformed_input_is_an_error_naming_it() {
        let mut bad = observed("k", "h", &[(1, 1)], (0, 1), (2, 3), 0);
        bad.overlaps.push(Overlap {
            first: 0,
            second: 7,
            count: 1,
        });
        let error = Profile::merge([Profile::empty(), profile(vec![bad])]).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("malformed profile (merge input 2)"),
            "{error}"
        );
    }
}
