//! The rules every profile obeys, checked on everything read from disk or handed to
//! merge, so that the compiler never meets a tuple of the wrong length or an overlap
//! naming a range that does not exist, and no file can make it allocate without bound.

use super::{
    Profile, RegionProfile, HISTOGRAM_SLOTS, MAX_RANGES, MAX_REGIONS, MAX_VALUES,
    OLDEST_PROFILE_FORMAT_VERSION, PROFILE_FORMAT, PROFILE_FORMAT_VERSION,
};

impl Profile {
    /// The first rule of the format this profile breaks, if any.
    pub fn validate(&self) -> Result<(), String> {
        if self.format != PROFILE_FORMAT {
            return Err(format!(
                "format is \"{}\", not \"{PROFILE_FORMAT}\"",
                self.format
            ));
        }
        if !(OLDEST_PROFILE_FORMAT_VERSION..=PROFILE_FORMAT_VERSION).contains(&self.version) {
            return Err(format!(
                "format version {} (this polyrust reads {OLDEST_PROFILE_FORMAT_VERSION} to \
                 {PROFILE_FORMAT_VERSION})",
                self.version
            ));
        }
        if self.version < 2 && !self.nests.is_empty() {
            return Err("version 1 has no nests, but this profile has some".into());
        }
        if self.nests.len() > MAX_REGIONS {
            return Err(format!(
                "{} nests, more than {MAX_REGIONS}",
                self.nests.len()
            ));
        }
        self.nests.iter().try_for_each(|nest| nest.validate())?;
        if self.static_nests.len() > self.nests.len() {
            return Err(format!(
                "static facts of {} nests, more than the profile's {} nests",
                self.static_nests.len(),
                self.nests.len()
            ));
        }
        self.static_nests
            .iter()
            .try_for_each(|nest| nest.validate())?;
        if self.regions.len() > MAX_REGIONS {
            return Err(format!(
                "{} regions, more than {MAX_REGIONS}",
                self.regions.len()
            ));
        }
        self.regions.iter().try_for_each(validate_region)
    }
}

fn validate_region(region: &RegionProfile) -> Result<(), String> {
    let id = &region.id;
    if region.values.len() > MAX_VALUES {
        return Err(format!(
            "region '{id}' has {} values, more than {MAX_VALUES}",
            region.values.len()
        ));
    }
    if region.ranges.len() > MAX_RANGES {
        return Err(format!(
            "region '{id}' has {} ranges, more than {MAX_RANGES}",
            region.ranges.len()
        ));
    }
    for value in &region.values {
        if value.histogram.len() > HISTOGRAM_SLOTS {
            return Err(format!(
                "region '{id}': the histogram of '{}' has {} entries, more than {HISTOGRAM_SLOTS}",
                value.name,
                value.histogram.len()
            ));
        }
    }
    if region.tuples.len() > HISTOGRAM_SLOTS {
        return Err(format!(
            "region '{id}' has {} tuples, more than {HISTOGRAM_SLOTS}",
            region.tuples.len()
        ));
    }
    if let Some(tuple) = region
        .tuples
        .iter()
        .find(|tuple| tuple.values.len() != region.values.len())
    {
        return Err(format!(
            "region '{id}' has a tuple of {} values, but {} values are recorded",
            tuple.values.len(),
            region.values.len()
        ));
    }
    // Every count is a number of entries: together they cannot exceed them (a share
    // above 100% would let a forged profile decide what is specialized).
    let counted = |counts: Vec<u64>, other: u64| {
        counts
            .into_iter()
            .try_fold(other, |sum, c| sum.checked_add(c))
            .is_some_and(|sum| sum <= region.entries)
    };
    if !counted(
        region.tuples.iter().map(|t| t.count).collect(),
        region.other_tuples,
    ) {
        return Err(format!(
            "region '{id}': its tuples count more entries than its {} entries",
            region.entries
        ));
    }
    if let Some(value) = region
        .values
        .iter()
        .find(|v| !counted(v.histogram.iter().map(|h| h.count).collect(), v.other))
    {
        return Err(format!(
            "region '{id}': the histogram of '{}' counts more entries than its {} entries",
            value.name, region.entries
        ));
    }
    if let Some(overlap) = region
        .overlaps
        .iter()
        .find(|overlap| overlap.first >= overlap.second || overlap.second >= region.ranges.len())
    {
        return Err(format!(
            "region '{id}' has an overlap of ranges {} and {}, but {} ranges (numbered \
             from 0, the smaller first)",
            overlap.first,
            overlap.second,
            region.ranges.len()
        ));
    }
    Ok(())
}
