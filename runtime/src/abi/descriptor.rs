//! `struct polyrust_rt_region`, the constant the compiler emits for each instrumented
//! loop nest, and reading it defensively: NULL strings and names become empty or
//! generated names, bytes that are not UTF-8 are replaced, and a descriptor that cannot
//! be recorded (no id, too many values or ranges) is refused.

use std::ffi::{c_char, CStr};

use crate::profile::{MAX_RANGES, MAX_VALUES};
use crate::record::RegionIdentity;

/// The only descriptor layout this runtime knows; others are ignored.
pub const ABI_VERSION: u32 = 1;

/// C: `struct polyrust_rt_region` of `runtime/include/polyrust_rt.h`.
/// 64-bit: four `uint32_t`, then seven pointers, 72 bytes.
#[repr(C)]
#[derive(Debug)]
pub struct RegionDescriptor {
    /// [`ABI_VERSION`].
    pub abi_version: u32,
    /// Values recorded per entry.
    pub num_values: u32,
    /// Address ranges recorded per entry.
    pub num_ranges: u32,
    /// Source line of the nest, 0 if unknown.
    pub line: u32,
    /// Stable region id, e.g. `mm_view:3:9f2c41d0`.
    pub id: *const c_char,
    /// Function name (source name if known).
    pub function: *const c_char,
    /// Source file, `""` if unknown.
    pub file: *const c_char,
    /// Hex hash of the compiled source.
    pub module_hash: *const c_char,
    /// `num_values` names.
    pub value_names: *const *const c_char,
    /// `num_ranges` names.
    pub range_names: *const *const c_char,
    /// Profile path given to the compile option, or NULL.
    pub default_path: *const c_char,
}

/// The string at `text`, with invalid UTF-8 replaced; `None` for NULL.
///
/// # Safety
/// `text` is NULL or points to a NUL-terminated string.
pub(crate) unsafe fn c_text(text: *const c_char) -> Option<String> {
    if text.is_null() {
        return None;
    }
    Some(CStr::from_ptr(text).to_string_lossy().into_owned())
}

/// `count` names from `names`, `{fallback}{i}` where a name (or the array) is NULL.
///
/// # Safety
/// `names` is NULL or points to `count` pointers, each NULL or a NUL-terminated string.
unsafe fn c_names(names: *const *const c_char, count: usize, fallback: &str) -> Vec<String> {
    (0..count)
        .map(|i| {
            let name = if names.is_null() {
                std::ptr::null()
            } else {
                *names.add(i)
            };
            c_text(name).unwrap_or_else(|| format!("{fallback}{i}"))
        })
        .collect()
}

impl RegionDescriptor {
    /// Whether entries of this region can be recorded at all.
    pub(crate) fn is_recordable(&self) -> bool {
        self.abi_version == ABI_VERSION
            && !self.id.is_null()
            && self.num_values as usize <= MAX_VALUES
            && self.num_ranges as usize <= MAX_RANGES
    }

    /// Who the region is, copied out of the descriptor; `None` if it is not recordable.
    ///
    /// # Safety
    /// Every pointer of the descriptor is NULL or valid as its field says.
    pub(crate) unsafe fn identity(&self) -> Option<RegionIdentity> {
        if !self.is_recordable() {
            return None;
        }
        Some(RegionIdentity {
            id: c_text(self.id)?,
            function: c_text(self.function).unwrap_or_default(),
            file: c_text(self.file).unwrap_or_default(),
            line: self.line,
            module_hash: c_text(self.module_hash).unwrap_or_default(),
            value_names: c_names(self.value_names, self.num_values as usize, "value"),
            range_names: c_names(self.range_names, self.num_ranges as usize, "range"),
        })
    }

    /// The profile path compiled in, if any (an empty one counts as none).
    ///
    /// # Safety
    /// `default_path` is NULL or a NUL-terminated string.
    pub(crate) unsafe fn default_path(&self) -> Option<String> {
        c_text(self.default_path).filter(|path| !path.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    #[cfg(target_pointer_width = "64")]
    fn layout_is_four_u32_then_seven_pointers() {
        assert_eq!(size_of::<RegionDescriptor>(), 72);
        assert_eq!(offset_of!(RegionDescriptor, abi_version), 0);
        assert_eq!(offset_of!(RegionDescriptor, num_values), 4);
        assert_eq!(offset_of!(RegionDescriptor, num_ranges), 8);
        assert_eq!(offset_of!(RegionDescriptor, line), 12);
        assert_eq!(offset_of!(RegionDescriptor, id), 16);
        assert_eq!(offset_of!(RegionDescriptor, function), 24);
        assert_eq!(offset_of!(RegionDescriptor, file), 32);
        assert_eq!(offset_of!(RegionDescriptor, module_hash), 40);
        assert_eq!(offset_of!(RegionDescriptor, value_names), 48);
        assert_eq!(offset_of!(RegionDescriptor, range_names), 56);
        assert_eq!(offset_of!(RegionDescriptor, default_path), 64);
    }
}
