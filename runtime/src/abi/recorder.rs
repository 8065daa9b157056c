//! All regions of the process, keyed by the address of their descriptor (one constant
//! per instrumented loop nest, so the address is the cheapest stable key), and the
//! profile they make.

use std::collections::HashMap;

use super::descriptor::RegionDescriptor;
use crate::profile::{Profile, MAX_REGIONS};
use crate::record::RegionRecord;

#[derive(Default)]
pub(crate) struct Recorder {
    regions: HashMap<usize, RegionRecord>,
    /// The `default_path` of the first descriptor entered that has one.
    default_path: Option<String>,
}

impl Recorder {
    /// Records one entry of `region`; returns whether it was recorded. Entries of a
    /// descriptor that is not recordable, or whose values or ranges are NULL where some
    /// are expected, are ignored; so are new regions past [`MAX_REGIONS`].
    ///
    /// # Safety
    /// `region` is valid as a [`RegionDescriptor`]; `values` is NULL or points to
    /// `num_values` values, `ranges` NULL or to `2 * num_ranges` addresses.
    pub(crate) unsafe fn enter(
        &mut self,
        region: &RegionDescriptor,
        values: *const i64,
        ranges: *const u64,
    ) -> bool {
        let num_values = region.num_values as usize;
        let num_ranges = region.num_ranges as usize;
        if !region.is_recordable()
            || (num_values > 0 && values.is_null())
            || (num_ranges > 0 && ranges.is_null())
        {
            return false;
        }
        let key = region as *const RegionDescriptor as usize;
        if !self.regions.contains_key(&key) {
            if self.regions.len() >= MAX_REGIONS {
                return false;
            }
            let Some(identity) = region.identity() else {
                return false;
            };
            if self.default_path.is_none() {
                self.default_path = region.default_path();
            }
            self.regions.insert(key, RegionRecord::new(identity));
        }
        let values: &[i64] = if num_values == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(values, num_values)
        };
        let ranges: &[[u64; 2]] = if num_ranges == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(ranges.cast::<[u64; 2]>(), num_ranges)
        };
        if let Some(record) = self.regions.get_mut(&key) {
            record.record(values, ranges);
        }
        true
    }

    pub(crate) fn default_path(&self) -> Option<&str> {
        self.default_path.as_deref()
    }

    /// Everything recorded so far, in canonical order. Descriptors with the same id and
    /// module hash (an inline function compiled into several objects) are added up; of
    /// the same id with different hashes the greatest hash is kept, as a merge would.
    pub(crate) fn profile(&self) -> Profile {
        let mut profile = Profile::empty();
        profile.regions = self
            .regions
            .values()
            .map(RegionRecord::to_profile)
            .collect();
        profile.canonicalize();
        match Profile::merge([profile.clone()]) {
            Ok(merged) => merged.profile,
            Err(_) => profile,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::{polyrust_rt_enter, ABI_VERSION};
    use std::ffi::{c_char, CString};
    use std::ptr::null;

    /// A descriptor built in Rust, with the strings it points to; boxed so that its
    /// address, the recorder's key, stays put.
    struct Built {
        _strings: Vec<CString>,
        _name_arrays: [Vec<*const c_char>; 2],
        descriptor: RegionDescriptor,
    }

    fn text(strings: &mut Vec<CString>, bytes: &[u8]) -> *const c_char {
        strings.push(CString::new(bytes).unwrap());
        strings.last().unwrap().as_ptr()
    }

    fn build(id: &[u8], hash: &str, values: &[&[u8]], ranges: &[&[u8]]) -> Box<Built> {
        let mut strings = Vec::new();
        let value_names: Vec<_> = values.iter().map(|n| text(&mut strings, n)).collect();
        let range_names: Vec<_> = ranges.iter().map(|n| text(&mut strings, n)).collect();
        let descriptor = RegionDescriptor {
            abi_version: ABI_VERSION,
            num_values: values.len() as u32,
            num_ranges: ranges.len() as u32,
            line: 12,
            id: text(&mut strings, id),
            function: text(&mut strings, b"kernel"),
            file: text(&mut strings, b"k.c"),
            module_hash: text(&mut strings, hash.as_bytes()),
            value_names: value_names.as_ptr(),
            range_names: range_names.as_ptr(),
            default_path: null(),
        };
        Box::new(Built {
            _strings: strings,
            _name_arrays: [value_names, range_names],
            descriptor,
        })
    }

    fn enter(recorder: &mut Recorder, built: &Built, values: &[i64], ranges: &[u64]) -> bool {
        // SAFETY: `built` owns every string its descriptor points to.
        unsafe { recorder.enter(&built.descriptor, values.as_ptr(), ranges.as_ptr()) }
    }

    #[test]
    fn entries_are_recorded_under_the_names_of_the_descriptor() {
        let mut recorder = Recorder::default();
        let region = build(b"k:1:ab", "ab", &[b"n"], &[b"A", b"B"]);
        assert!(enter(&mut recorder, &region, &[64], &[0, 100, 50, 150]));
        assert!(enter(&mut recorder, &region, &[64], &[0, 100, 200, 300]));
        let profile = recorder.profile();
        let recorded = profile.region("k:1:ab", "ab").unwrap();
        assert_eq!(recorded.entries, 2);
        assert_eq!((recorded.function.as_str(), recorded.line), ("kernel", 12));
        assert_eq!(recorded.values[0].name, "n");
        assert_eq!(recorded.tuples[0].values, vec![64]);
        assert_eq!(recorded.tuples[0].count, 2);
        assert_eq!(recorded.overlap_count(0, 1), 1);
    }

    #[test]
    fn null_names_are_replaced_by_generated_ones() {
        let mut recorder = Recorder::default();
        let mut region = build(b"k:2:ab", "ab", &[b"n", b"m"], &[b"A"]);
        region.descriptor.value_names = null();
        region.descriptor.function = null();
        region.descriptor.file = null();
        region.descriptor.module_hash = null();
        assert!(enter(&mut recorder, &region, &[1, 2], &[0, 8]));
        let profile = recorder.profile();
        let recorded = &profile.regions[0];
        assert_eq!(recorded.values[0].name, "value0");
        assert_eq!(recorded.values[1].name, "value1");
        assert_eq!(recorded.ranges[0].name, "A");
        assert_eq!(
            (recorded.function.as_str(), recorded.file.as_str()),
            ("", "")
        );
    }

    #[test]
    fn names_that_are_not_utf8_are_replaced() {
        let mut recorder = Recorder::default();
        let region = build(b"k:\xff:ab", "ab", &[b"n\xfe"], &[]);
        assert!(enter(&mut recorder, &region, &[1], &[]));
        let profile = recorder.profile();
        assert_eq!(profile.regions[0].id, "k:\u{fffd}:ab");
        assert_eq!(profile.regions[0].values[0].name, "n\u{fffd}");
    }

    #[test]
    fn descriptors_that_cannot_be_recorded_are_ignored() {
        let mut recorder = Recorder::default();
        let mut other_abi = build(b"k:3", "ab", &[], &[]);
        other_abi.descriptor.abi_version = 2;
        assert!(!enter(&mut recorder, &other_abi, &[], &[]));
        let mut no_id = build(b"k:4", "ab", &[], &[]);
        no_id.descriptor.id = null();
        assert!(!enter(&mut recorder, &no_id, &[], &[]));
        let names: Vec<&[u8]> = vec![b"v"; 65];
        let too_many = build(b"k:5", "ab", &names, &[]);
        assert!(!enter(&mut recorder, &too_many, &[0; 65], &[]));
        let values_missing = build(b"k:6", "ab", &[b"n"], &[]);
        // SAFETY: the descriptor is valid; NULL values are what is tested.
        assert!(!unsafe { recorder.enter(&values_missing.descriptor, null(), null()) });
        assert!(recorder.profile().regions.is_empty());
    }

    #[test]
    fn the_c_entry_point_tolerates_null_and_foreign_descriptors() {
        // SAFETY: NULL and a descriptor of another ABI version are both documented
        // as tolerated; neither is recorded, so no exit handler is registered.
        unsafe {
            polyrust_rt_enter(null(), null(), null());
            let mut foreign = build(b"k:7", "ab", &[b"n"], &[]);
            foreign.descriptor.abi_version = 99;
            polyrust_rt_enter(&foreign.descriptor, null(), null());
        }
    }

    #[test]
    fn descriptors_with_the_same_id_and_hash_are_added_up() {
        let mut recorder = Recorder::default();
        let first = build(b"inline:1:ab", "ab", &[b"n"], &[]);
        let second = build(b"inline:1:ab", "ab", &[b"n"], &[]);
        enter(&mut recorder, &first, &[4], &[]);
        enter(&mut recorder, &second, &[4], &[]);
        let profile = recorder.profile();
        assert_eq!(profile.regions.len(), 1);
        assert_eq!(profile.regions[0].entries, 2);
    }

    #[test]
    fn the_profile_json_does_not_depend_on_the_order_of_entries_or_descriptors() {
        let entries: Vec<(usize, i64, [u64; 2])> = (0..40)
            .map(|i| {
                (
                    i % 3,
                    (i * 7 % 5) as i64,
                    [i as u64 * 10, i as u64 * 10 + 25],
                )
            })
            .collect();
        let json = |order: &[usize]| {
            let regions: Vec<Box<Built>> = order
                .iter()
                .map(|&i| build(format!("r{i}").as_bytes(), "ab", &[b"n"], &[b"A", b"B"]))
                .collect();
            let mut recorder = Recorder::default();
            let mut shuffled = entries.clone();
            if order[0] != 0 {
                shuffled.reverse();
            }
            for (region, value, range) in shuffled {
                let built = &regions[order.iter().position(|&i| i == region).unwrap()];
                enter(
                    &mut recorder,
                    built,
                    &[value],
                    &[range[0], range[1], 100, 200],
                );
            }
            recorder.profile().to_json()
        };
        assert_eq!(json(&[0, 1, 2]), json(&[2, 0, 1]));
    }
}
