//! What the runtime keeps for one instrumented loop nest while the program runs: the
//! number of entries, per value its bounds and first [`HISTOGRAM_SLOTS`] distinct
//! values, the first distinct tuples of all values, per address range the least low
//! and greatest high, and per pair of ranges how often they overlapped.
//! Recording an entry does no I/O and allocates only when a new tuple takes a slot.

use crate::profile::{
    Overlap, RangeProfile, RegionProfile, TupleCount, ValueCount, ValueProfile, HISTOGRAM_SLOTS,
};

/// Who a region is, as its descriptor names it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RegionIdentity {
    pub id: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub module_hash: String,
    pub value_names: Vec<String>,
    pub range_names: Vec<String>,
}

/// The first distinct keys seen, each with its count; later new keys count as other.
#[derive(Debug, Clone)]
struct FirstSeenHistogram<K> {
    slots: Vec<(K, u64)>,
    other: u64,
}

impl<K: PartialEq> FirstSeenHistogram<K> {
    fn new() -> Self {
        FirstSeenHistogram {
            slots: Vec::new(),
            other: 0,
        }
    }

    /// Counts `key`; `make_key` builds the stored key only when a slot is taken.
    fn count<Q: ?Sized>(&mut self, key: &Q, make_key: impl FnOnce(&Q) -> K)
    where
        K: PartialEq<Q>,
    {
        if let Some(slot) = self.slots.iter_mut().find(|(stored, _)| stored == key) {
            slot.1 += 1;
        } else if self.slots.len() < HISTOGRAM_SLOTS {
            self.slots.push((make_key(key), 1));
        } else {
            self.other += 1;
        }
    }
}

#[derive(Debug, Clone)]
struct ValueRecord {
    min: i64,
    max: i64,
    histogram: FirstSeenHistogram<i64>,
}

/// The entries of one region so far.
#[derive(Debug, Clone)]
pub(crate) struct RegionRecord {
    identity: RegionIdentity,
    entries: u64,
    values: Vec<ValueRecord>,
    tuples: FirstSeenHistogram<Vec<i64>>,
    /// `[low, high)` per range; `low > high` until a non-empty range is seen.
    ranges: Vec<(u64, u64)>,
    /// Entries in which ranges i < j overlapped, at [`pair_index`]`(i, j)`.
    overlaps: Vec<u64>,
}

/// Position of the pair `i < j` of `n` ranges in a row-major upper triangle.
fn pair_index(i: usize, j: usize, n: usize) -> usize {
    i * n - i * (i + 1) / 2 + (j - i - 1)
}

impl RegionRecord {
    pub(crate) fn new(identity: RegionIdentity) -> Self {
        let num_values = identity.value_names.len();
        let num_ranges = identity.range_names.len();
        RegionRecord {
            identity,
            entries: 0,
            values: vec![
                ValueRecord {
                    min: i64::MAX,
                    max: i64::MIN,
                    histogram: FirstSeenHistogram::new(),
                };
                num_values
            ],
            tuples: FirstSeenHistogram::new(),
            ranges: vec![(u64::MAX, 0); num_ranges],
            overlaps: vec![0; num_ranges * num_ranges.saturating_sub(1) / 2],
        }
    }

    /// Records one entry: `values` has one value per recorded value, `ranges` a
    /// `[low, high)` pair per recorded range. Entries of another shape are ignored.
    pub(crate) fn record(&mut self, values: &[i64], ranges: &[[u64; 2]]) {
        if values.len() != self.values.len() || ranges.len() != self.ranges.len() {
            return;
        }
        self.entries += 1;
        for (record, &value) in self.values.iter_mut().zip(values) {
            record.min = record.min.min(value);
            record.max = record.max.max(value);
            record.histogram.count(&value, |&v| v);
        }
        self.tuples.count(values, <[i64]>::to_vec);
        let n = ranges.len();
        for (i, &[low, high]) in ranges.iter().enumerate() {
            if low >= high {
                continue;
            }
            let span = &mut self.ranges[i];
            span.0 = span.0.min(low);
            span.1 = span.1.max(high);
            for (j, &[other_low, other_high]) in ranges.iter().enumerate().skip(i + 1) {
                if other_low < other_high && low < other_high && other_low < high {
                    self.overlaps[pair_index(i, j, n)] += 1;
                }
            }
        }
    }

    /// The region as the profile format has it, in canonical order.
    pub(crate) fn to_profile(&self) -> RegionProfile {
        let identity = &self.identity;
        let values = self
            .values
            .iter()
            .zip(&identity.value_names)
            .map(|(record, name)| ValueProfile {
                name: name.clone(),
                min: record.min,
                max: record.max,
                histogram: record
                    .histogram
                    .slots
                    .iter()
                    .map(|&(value, count)| ValueCount { value, count })
                    .collect(),
                other: record.histogram.other,
            })
            .collect();
        let ranges = self
            .ranges
            .iter()
            .zip(&identity.range_names)
            .map(|(&(low, high), name)| RangeProfile {
                name: name.clone(),
                low,
                high,
            })
            .collect();
        let n = self.ranges.len();
        let overlaps = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .filter_map(|(first, second)| {
                let count = self.overlaps[pair_index(first, second, n)];
                (count > 0).then_some(Overlap {
                    first,
                    second,
                    count,
                })
            })
            .collect();
        let mut region = RegionProfile {
            id: identity.id.clone(),
            function: identity.function.clone(),
            file: identity.file.clone(),
            line: identity.line,
            module_hash: identity.module_hash.clone(),
            entries: self.entries,
            values,
            tuples: self
                .tuples
                .slots
                .iter()
                .map(|(values, count)| TupleCount {
                    values: values.clone(),
                    count: *count,
                })
                .collect(),
            other_tuples: self.tuples.other,
            ranges,
            overlaps,
        };
        region.canonicalize();
        region
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(values: &[&str], ranges: &[&str]) -> RegionRecord {
        RegionRecord::new(RegionIdentity {
            id: "k:1:ab".into(),
            function: "k".into(),
            file: "k.c".into(),
            line: 3,
            module_hash: "ab".into(),
            value_names: values.iter().map(|s| s.to_string()).collect(),
            range_names: ranges.iter().map(|s| s.to_string()).collect(),
        })
    }

    #[test]
    fn pair_index_numbers_the_upper_triangle_densely() {
        let n = 5;
        let indices: Vec<usize> = (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| pair_index(i, j, n)))
            .collect();
        assert_eq!(indices, (0..10).collect::<Vec<_>>());
    }

    #[test]
    fn value_histogram_keeps_the_first_sixteen_distinct_values_and_counts_later_ones_as_other() {
        let mut region = record(&["n"], &[]);
        for value in 0..20 {
            region.record(&[value], &[]);
        }
        region.record(&[3], &[]);
        region.record(&[19], &[]);
        let profile = region.to_profile();
        let n = &profile.values[0];
        assert_eq!((n.min, n.max), (0, 19));
        assert_eq!(n.histogram.len(), 16);
        assert_eq!(n.histogram[0], ValueCount { value: 3, count: 2 });
        assert!(n.histogram.iter().all(|c| c.value < 16));
        assert_eq!(n.other, 5, "16..=19 and the second 19");
        assert_eq!(profile.entries, 22);
    }

    #[test]
    fn tuples_count_the_values_of_one_entry_together() {
        let mut region = record(&["n", "m"], &[]);
        region.record(&[1, 2], &[]);
        region.record(&[2, 1], &[]);
        region.record(&[1, 2], &[]);
        let profile = region.to_profile();
        assert_eq!(
            profile.tuples,
            vec![
                TupleCount {
                    values: vec![1, 2],
                    count: 2
                },
                TupleCount {
                    values: vec![2, 1],
                    count: 1
                },
            ]
        );
        assert_eq!(profile.other_tuples, 0);
    }

    #[test]
    fn tuples_beyond_sixteen_distinct_count_as_other_tuples() {
        let mut region = record(&["n", "m"], &[]);
        for value in 0..18 {
            region.record(&[value, 0], &[]);
        }
        let profile = region.to_profile();
        assert_eq!(profile.tuples.len(), 16);
        assert_eq!(profile.other_tuples, 2);
    }

    #[test]
    fn ranges_keep_the_least_low_and_greatest_high_of_non_empty_ranges() {
        let mut region = record(&[], &["A", "B"]);
        region.record(&[], &[[1000, 2000], [5, 5]]);
        region.record(&[], &[[500, 1500], [9, 3]]);
        region.record(&[], &[[0, 0], [7, 3]]);
        let profile = region.to_profile();
        assert_eq!((profile.ranges[0].low, profile.ranges[0].high), (500, 2000));
        assert!(
            profile.ranges[1].low > profile.ranges[1].high,
            "B was never non-empty"
        );
    }

    #[test]
    fn overlaps_count_entries_in_which_two_ranges_share_a_byte() {
        let mut region = record(&[], &["A", "B", "C"]);
        // A and B touch (no shared byte), A and C overlap.
        region.record(&[], &[[0, 100], [100, 200], [50, 60]]);
        // B and C overlap; A is empty.
        region.record(&[], &[[0, 0], [100, 200], [150, 250]]);
        // A and C overlap again; C lies inside A.
        region.record(&[], &[[0, 100], [300, 400], [10, 20]]);
        let profile = region.to_profile();
        assert_eq!(
            profile.overlaps,
            vec![
                Overlap {
                    first: 0,
                    second: 2,
                    count: 2
                },
                Overlap {
                    first: 1,
                    second: 2,
                    count: 1
                },
            ]
        );
    }

    #[test]
    fn entries_of_another_shape_are_ignored() {
        let mut region = record(&["n"], &["A"]);
        region.record(&[1, 2], &[[0, 1]]);
        region.record(&[1], &[]);
        assert_eq!(region.to_profile().entries, 0);
    }
}
