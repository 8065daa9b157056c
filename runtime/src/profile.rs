//! The profile format: what one instrumented run observed at the entries of the loop
//! nests the compiler could optimize only under assumptions, and what the second
//! compile (`-polyrust-profile-use`) specializes on. One JSON document per profile,
//! written by the runtime at exit and by `polyrust-prof merge`.
//!
//! A profile built by this module is in canonical order (regions by id, histograms by
//! count descending then value, overlaps by pair), so the same observations always
//! give the same bytes. A profile read from disk is checked against the limits below
//! before anyone sees it: a hostile file is an error, never a crash or a huge
//! allocation later on.

mod error;
mod histogram;
mod merge;
pub mod nest;
mod read;
pub mod static_model;
mod validate;
mod write;

use serde::{Deserialize, Serialize};

pub use error::ProfileError;
pub use merge::Merged;
pub use nest::NestProfile;

/// The `format` field of every profile.
pub const PROFILE_FORMAT: &str = "polyrust-profile";
/// Newest version of the profile format this crate reads and writes; a profile of
/// another version is reported and ignored by the compiler, never guessed at.
/// Version 2 added `nests` (`-polyrust-instrument=accesses`); a profile without nests
/// is still written as version 1, so that older readers keep reading it.
pub const PROFILE_FORMAT_VERSION: u32 = 2;
/// Oldest version this crate still reads.
pub const OLDEST_PROFILE_FORMAT_VERSION: u32 = 1;

/// A profile file larger than this is refused unread.
pub const MAX_PROFILE_BYTES: u64 = 256 * 1024 * 1024;
/// Most regions one profile may hold.
pub const MAX_REGIONS: usize = 100_000;
/// Most values recorded per region entry (the runtime ignores larger descriptors).
pub const MAX_VALUES: usize = 64;
/// Most address ranges recorded per region entry (the runtime ignores larger descriptors).
pub const MAX_RANGES: usize = 64;
/// Most distinct values (or value tuples) a histogram keeps; the rest are counted together.
pub const HISTOGRAM_SLOTS: usize = 16;

/// The only value recorded for the run-time check of optimized code (the compiler's
/// `-polyrust-profile-generate` records 1 when the check passed, 0 when the original
/// loops, the fallback, ran): such a region is a check, not a candidate nest.
pub const CHECK_PASSED: &str = "check passed";

/// The id of the companion record of a candidate nest that holds, per entry, how many
/// iterations its outermost loop ran: the candidate's id and this suffix. The
/// specializing compile does not look it up as a candidate; `polyrust-prof show`
/// shows it with the nest.
pub const TRIP_COUNTS_SUFFIX: &str = "#trips";

/// One profile: every instrumented region the run entered at least once.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Profile {
    /// Always [`PROFILE_FORMAT`].
    pub format: String,
    /// 1 without nests, 2 with ([`Profile::canonicalize`] sets it).
    pub version: u32,
    pub regions: Vec<RegionProfile>,
    /// Folded accesses and dependences per loop nest (version 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nests: Vec<NestProfile>,
    /// What the compiler saw of the nests' loops that a run cannot show (see
    /// [`static_model`]).
    #[serde(rename = "static", default, skip_serializing_if = "Vec::is_empty")]
    pub static_nests: Vec<static_model::StaticNest>,
}

/// What the entries of one instrumented loop nest looked like.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RegionProfile {
    /// Stable region id chosen by the compiler, e.g. `mm_view:3:9f2c41d0`.
    pub id: String,
    pub function: String,
    /// Source file, empty if unknown.
    pub file: String,
    /// Source line of the loop nest, 0 if unknown.
    pub line: u32,
    /// Hash of the compiled source: a profile of another version of the file does not apply.
    pub module_hash: String,
    /// How many times the loop nest was entered.
    pub entries: u64,
    /// One per recorded value, in the order of the descriptor.
    pub values: Vec<ValueProfile>,
    /// The values of one entry taken together: what the compiler specializes on.
    pub tuples: Vec<TupleCount>,
    /// Entries whose tuple did not fit in `tuples`.
    pub other_tuples: u64,
    /// One per recorded address range, in the order of the descriptor.
    pub ranges: Vec<RangeProfile>,
    /// Pairs of ranges that overlapped in at least one entry.
    pub overlaps: Vec<Overlap>,
}

/// One value (a loop bound, a stride, a parameter) over all entries of a region.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ValueProfile {
    pub name: String,
    pub min: i64,
    pub max: i64,
    /// Most frequent values first.
    pub histogram: Vec<ValueCount>,
    /// Entries whose value did not fit in `histogram`.
    pub other: u64,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ValueCount {
    pub value: i64,
    pub count: u64,
}

/// The values of one entry, in the order of [`RegionProfile::values`], and how often
/// exactly this combination was seen.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct TupleCount {
    pub values: Vec<i64>,
    pub count: u64,
}

/// The bytes one array (or pointer) was accessed in, over all entries: `[low, high)`.
/// `low > high` means the range was empty in every entry.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RangeProfile {
    pub name: String,
    pub low: u64,
    pub high: u64,
}

/// Ranges `first < second` (indices into [`RegionProfile::ranges`]) overlapped in
/// `count` entries.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Overlap {
    pub first: usize,
    pub second: usize,
    pub count: u64,
}

impl Profile {
    /// A profile without regions.
    pub fn empty() -> Profile {
        Profile {
            format: PROFILE_FORMAT.to_string(),
            version: OLDEST_PROFILE_FORMAT_VERSION,
            regions: Vec::new(),
            nests: Vec::new(),
            static_nests: Vec::new(),
        }
    }

    /// The region with this id and module hash, if the profile has it.
    pub fn region(&self, id: &str, module_hash: &str) -> Option<&RegionProfile> {
        self.regions
            .iter()
            .find(|region| region.id == id && region.module_hash == module_hash)
    }

    /// Puts regions and everything in them in canonical order, nests by id (nests of
    /// the same id, from merged runs, keep their order), and sets the version: the
    /// oldest that holds everything.
    pub fn canonicalize(&mut self) {
        for region in &mut self.regions {
            region.canonicalize();
        }
        self.nests.sort_by(|a, b| {
            (&a.id, &a.module_hash, a.thread).cmp(&(&b.id, &b.module_hash, b.thread))
        });
        static_model::canonicalize(&mut self.static_nests);
        self.version = if self.nests.is_empty() {
            OLDEST_PROFILE_FORMAT_VERSION
        } else {
            PROFILE_FORMAT_VERSION
        };
        self.regions.sort_by(|a, b| {
            (&a.id, &a.module_hash, &a.function, &a.file, a.line).cmp(&(
                &b.id,
                &b.module_hash,
                &b.function,
                &b.file,
                b.line,
            ))
        });
    }
}

impl RegionProfile {
    /// The tuples seen in at least `min_share` (0.0 to 1.0) of the entries, most
    /// frequent first. Empty when the region was never entered.
    pub fn hot_tuples(&self, min_share: f64) -> Vec<&TupleCount> {
        if self.entries == 0 {
            return Vec::new();
        }
        let mut hot: Vec<&TupleCount> = self
            .tuples
            .iter()
            .filter(|tuple| tuple.count as f64 >= min_share * self.entries as f64)
            .collect();
        hot.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.values.cmp(&b.values)));
        hot
    }

    /// How many entries saw ranges `first` and `second` overlap (in either order).
    pub fn overlap_count(&self, first: usize, second: usize) -> u64 {
        let (first, second) = (first.min(second), first.max(second));
        self.overlaps
            .iter()
            .filter(|overlap| overlap.first == first && overlap.second == second)
            .map(|overlap| overlap.count)
            .sum()
    }

    /// For the record of a run-time check (see [`CHECK_PASSED`]): in how many entries it
    /// passed.
    pub fn check_passed(&self) -> Option<u64> {
        match self.values.as_slice() {
            [value] if value.name == CHECK_PASSED => Some(
                value
                    .histogram
                    .iter()
                    .filter(|seen| seen.value == 1)
                    .map(|seen| seen.count)
                    .sum(),
            ),
            _ => None,
        }
    }

    /// Sorts histograms by count descending then value, and overlaps by pair.
    pub fn canonicalize(&mut self) {
        for value in &mut self.values {
            value
                .histogram
                .sort_by(|a, b| b.count.cmp(&a.count).then(a.value.cmp(&b.value)));
        }
        self.tuples
            .sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.values.cmp(&b.values)));
        self.overlaps
            .sort_by_key(|overlap| (overlap.first, overlap.second));
    }
}

impl RangeProfile {
    /// The bytes between the least low and the greatest high seen, 0 if never non-empty.
    pub fn span(&self) -> u64 {
        self.high.saturating_sub(self.low)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Scratch files for the tests of this crate, in one folder per test process.
    pub(crate) fn scratch_path(name: &str) -> std::path::PathBuf {
        let folder = std::env::temp_dir().join(format!("polyrust-rt-unit-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&folder);
        folder.join(name)
    }

    pub(crate) fn region(id: &str, hash: &str) -> RegionProfile {
        RegionProfile {
            id: id.to_string(),
            function: "kernel".to_string(),
            file: "k.c".to_string(),
            line: 7,
            module_hash: hash.to_string(),
            entries: 0,
            values: Vec::new(),
            tuples: Vec::new(),
            other_tuples: 0,
            ranges: Vec::new(),
            overlaps: Vec::new(),
        }
    }

    fn tuple(values: &[i64], count: u64) -> TupleCount {
        TupleCount {
            values: values.to_vec(),
            count,
        }
    }

    #[test]
    fn hot_tuples_keep_those_at_or_above_the_share_most_frequent_first() {
        let mut region = region("r", "h");
        region.entries = 100;
        region.tuples = vec![tuple(&[1], 10), tuple(&[2], 60), tuple(&[3], 30)];
        let hot: Vec<_> = region.hot_tuples(0.3).iter().map(|t| t.values[0]).collect();
        assert_eq!(hot, vec![2, 3]);
        assert_eq!(region.hot_tuples(0.0).len(), 3);
        assert!(region.hot_tuples(0.61).is_empty());
    }

    #[test]
    fn hot_tuples_of_a_region_never_entered_are_none() {
        let mut region = region("r", "h");
        region.tuples = vec![tuple(&[1], 0)];
        assert!(region.hot_tuples(0.0).is_empty());
    }

    #[test]
    fn canonical_order_is_by_id_and_by_count_then_value() {
        let mut profile = Profile::empty();
        let mut b = region("b", "h");
        b.values.push(ValueProfile {
            name: "n".into(),
            min: 1,
            max: 3,
            histogram: vec![
                ValueCount { value: 3, count: 1 },
                ValueCount { value: 2, count: 5 },
                ValueCount { value: 1, count: 1 },
            ],
            other: 0,
        });
        profile.regions = vec![b, region("a", "h")];
        profile.canonicalize();
        assert_eq!(profile.regions[0].id, "a");
        let order: Vec<i64> = profile.regions[1].values[0]
            .histogram
            .iter()
            .map(|c| c.value)
            .collect();
        assert_eq!(order, vec![2, 1, 3]);
    }

    #[test]
    fn span_of_a_range_never_non_empty_is_zero() {
        let never = RangeProfile {
            name: "A".into(),
            low: u64::MAX,
            high: 0,
        };
        assert_eq!(never.span(), 0);
        let seen = RangeProfile {
            name: "A".into(),
            low: 4096,
            high: 4096 + 800,
        };
        assert_eq!(seen.span(), 800);
    }
}
