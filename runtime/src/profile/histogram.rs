//! Histograms of at most [`HISTOGRAM_SLOTS`] keys: adding two keeps the most frequent
//! keys (ties broken by the smaller key, so the result does not depend on the order of
//! the inputs) and counts the entries of the rest as "other".

use std::collections::BTreeMap;

use super::HISTOGRAM_SLOTS;

/// Counts per key, to be summed from several histograms and then capped.
pub(super) struct CappedHistogram<K: Ord> {
    counts: BTreeMap<K, u64>,
    other: u64,
}

impl<K: Ord + Clone> CappedHistogram<K> {
    pub(super) fn new() -> Self {
        CappedHistogram {
            counts: BTreeMap::new(),
            other: 0,
        }
    }

    pub(super) fn add(&mut self, key: &K, count: u64) {
        match self.counts.get_mut(key) {
            Some(sum) => *sum = sum.saturating_add(count),
            None => {
                self.counts.insert(key.clone(), count);
            }
        }
    }

    pub(super) fn add_other(&mut self, count: u64) {
        self.other = self.other.saturating_add(count);
    }

    /// The most frequent keys first, at most [`HISTOGRAM_SLOTS`] of them, and the
    /// count of everything else.
    pub(super) fn into_capped(self) -> (Vec<(K, u64)>, u64) {
        let mut counts: Vec<(K, u64)> = self.counts.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let dropped: u64 = counts
            .iter()
            .skip(HISTOGRAM_SLOTS)
            .fold(0u64, |sum, (_, count)| sum.saturating_add(*count));
        counts.truncate(HISTOGRAM_SLOTS);
        (counts, self.other.saturating_add(dropped))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capping_keeps_the_sixteen_most_frequent_and_counts_the_rest_as_other() {
        let mut histogram = CappedHistogram::new();
        for value in 0..20i64 {
            histogram.add(&value, value as u64 + 1);
        }
        histogram.add_other(100);
        let (kept, other) = histogram.into_capped();
        assert_eq!(kept.len(), 16);
        assert_eq!(kept[0], (19, 20));
        assert_eq!(kept[15], (4, 5));
        assert_eq!(other, 100 + 1 + 2 + 3 + 4);
    }

    #[test]
    fn equal_counts_are_ordered_by_key() {
        let mut histogram = CappedHistogram::new();
        for value in [5i64, -1, 3] {
            histogram.add(&value, 2);
        }
        histogram.add(&3, 1);
        let (kept, _) = histogram.into_capped();
        assert_eq!(kept, vec![(3, 3), (-1, 2), (5, 2)]);
    }
}
