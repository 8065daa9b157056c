//! The machine description SICA needs: L1 data cache size, L2 cache size (bytes) and SIMD
//! register width (bits), each with where it came from, for remarks such as
//! `L1 48 KiB (host), L2 1280 KiB (host), SIMD 256 bits (target)`.
//!
//! Precedence, per value: an explicit option (`-polyrust-l1-cache`, `-polyrust-l2-cache`,
//! `-polyrust-simd-width`) > the host's caches from sysfs (only when the caller compiles
//! for the host; sysfs has no SIMD width) > what the target (TargetTransformInfo) says
//! (its cache sizes are often unset) > the defaults below, which are the machine of the
//! SICA paper (Xeon X5650) and still typical: 32 KiB L1d and 128-bit SSE/NEON registers
//! on nearly every x86-64 and AArch64 core, 256 KiB as the smallest L2 of current x86-64
//! server and desktop cores (so `q_l2` is not overestimated).
//!
//! Relies on Linux's `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}` files
//! (`1`, `Data`, `32K`); anything missing or unreadable there is skipped and noted.

use std::fmt;
use std::fs;
use std::path::Path;

use super::sica::SicaMachine;

/// Where Linux describes the caches of the first CPU.
pub const HOST_CACHE_DIR: &str = "/sys/devices/system/cpu/cpu0/cache";

/// L1 data cache size when nothing says otherwise: 32 KiB.
pub const DEFAULT_L1_BYTES: u64 = 32 * 1024;
/// L2 cache size when nothing says otherwise: 256 KiB.
pub const DEFAULT_L2_BYTES: u64 = 256 * 1024;
/// SIMD register width when nothing says otherwise: 128 bits.
pub const DEFAULT_SIMD_BITS: u32 = 128;
/// Vector registers when the target does not say (SSE and AVX2 have 16).
pub const DEFAULT_VECTOR_REGISTERS: u32 = 16;

/// Where a hardware value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSource {
    /// A `-polyrust-*` option.
    Option,
    /// The host's sysfs.
    Host,
    /// The target's TargetTransformInfo.
    Target,
    /// The documented default.
    Default,
}

impl fmt::Display for ValueSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ValueSource::Option => "option",
            ValueSource::Host => "host",
            ValueSource::Target => "target",
            ValueSource::Default => "default",
        })
    }
}

/// A value and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// Where it came from (option, target, host, default).
    pub source: ValueSource,
}

/// What the user gave on the command line (`None`: not given); made from the options by
/// `ExplicitHardware::from_options` (in `options`, which depends on this module).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExplicitHardware {
    /// `-polyrust-l1-cache`: L1 data cache size in bytes.
    pub l1_bytes: Option<u64>,
    /// `-polyrust-l2-cache`: L2 cache size in bytes.
    pub l2_bytes: Option<u64>,
    /// `-polyrust-simd-width`: width of a vector register in bits.
    pub simd_bits: Option<u32>,
}

/// What the target's TargetTransformInfo says (`None` or 0: it does not say).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TargetHardware {
    /// Width of a vector register in bits.
    pub simd_bits: Option<u32>,
    /// Number of vector registers.
    pub vector_registers: Option<u32>,
    /// L1 data cache size in bytes.
    pub l1_bytes: Option<u64>,
    /// L2 cache size in bytes.
    pub l2_bytes: Option<u64>,
}

/// What the host's sysfs says about its caches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostCaches {
    /// Level 1 data (or unified) cache.
    pub l1_bytes: Option<u64>,
    /// Level 2 unified (or data) cache.
    pub l2_bytes: Option<u64>,
    /// What was skipped and why, one line each (for debugging output).
    pub skipped: Vec<String>,
}

/// The machine description with the origin of each value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hardware {
    /// L1 data cache size in bytes.
    pub l1_bytes: Sourced<u64>,
    /// L2 cache size in bytes.
    pub l2_bytes: Sourced<u64>,
    /// Width of a vector register in bits.
    pub simd_bits: Sourced<u32>,
    /// Vector registers of the target (register tiles are sized to fit them).
    pub vector_registers: Sourced<u32>,
}

impl Hardware {
    /// Picks each value by precedence: `explicit`, then `host` (pass `Some` only when
    /// compiling for the host), then `target`, then the defaults. Zero counts as unset.
    pub fn resolve(
        explicit: &ExplicitHardware,
        host: Option<&HostCaches>,
        target: &TargetHardware,
    ) -> Hardware {
        let host_l1 = host.and_then(|h| h.l1_bytes);
        let host_l2 = host.and_then(|h| h.l2_bytes);
        Hardware {
            l1_bytes: first_given(
                [
                    (explicit.l1_bytes, ValueSource::Option),
                    (host_l1, ValueSource::Host),
                    (target.l1_bytes, ValueSource::Target),
                ],
                DEFAULT_L1_BYTES,
            ),
            l2_bytes: first_given(
                [
                    (explicit.l2_bytes, ValueSource::Option),
                    (host_l2, ValueSource::Host),
                    (target.l2_bytes, ValueSource::Target),
                ],
                DEFAULT_L2_BYTES,
            ),
            simd_bits: first_given(
                [
                    (explicit.simd_bits, ValueSource::Option),
                    (target.simd_bits, ValueSource::Target),
                ],
                DEFAULT_SIMD_BITS,
            ),
            vector_registers: first_given(
                [(target.vector_registers, ValueSource::Target)],
                DEFAULT_VECTOR_REGISTERS,
            ),
        }
    }

    /// The plain numbers SICA computes with.
    pub fn sica_machine(&self) -> SicaMachine {
        SicaMachine {
            simd_bits: self.simd_bits.value,
            l1_bytes: self.l1_bytes.value,
            l2_bytes: self.l2_bytes.value,
        }
    }
}

impl fmt::Display for Hardware {
    /// `L1 48 KiB (host), L2 1280 KiB (host), SIMD 256 bits (target)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "L1 {} ({}), L2 {} ({}), SIMD {} bits ({})",
            format_bytes(self.l1_bytes.value),
            self.l1_bytes.source,
            format_bytes(self.l2_bytes.value),
            self.l2_bytes.source,
            self.simd_bits.value,
            self.simd_bits.source
        )
    }
}

/// The first non-zero value given, or the default.
fn first_given<T: Copy + PartialEq + Default>(
    candidates: impl IntoIterator<Item = (Option<T>, ValueSource)>,
    default: T,
) -> Sourced<T> {
    candidates
        .into_iter()
        .find_map(|(value, source)| match value {
            Some(value) if value != T::default() => Some(Sourced { value, source }),
            _ => None,
        })
        .unwrap_or(Sourced {
            value: default,
            source: ValueSource::Default,
        })
}

/// A size for people: `32 KiB`, `8 MiB`, `1280 KiB`, `2 GiB`, `100 bytes`.
pub fn format_bytes(bytes: u64) -> String {
    // A multiple of 2^shift has at least `shift` trailing zero bits.
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes != 0 && bytes.trailing_zeros() >= shift {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

/// Why a cache size text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheSizeError {
    /// The text is empty.
    Empty,
    /// No digits where the number should be.
    NotANumber(String),
    /// A suffix other than K, M, G (with optional B or iB), any case.
    UnknownSuffix(String),
    /// More bytes than a `u64` holds.
    TooLarge(String),
}

impl fmt::Display for CacheSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheSizeError::Empty => write!(f, "the size is empty"),
            CacheSizeError::NotANumber(text) => {
                write!(f, "'{text}' does not start with a whole number")
            }
            CacheSizeError::UnknownSuffix(suffix) => write!(
                f,
                "unknown unit '{suffix}'; use K, M or G (KiB, MiB, GiB) or none for bytes"
            ),
            CacheSizeError::TooLarge(text) => write!(f, "'{text}' is too large"),
        }
    }
}

impl std::error::Error for CacheSizeError {}

/// Reads a cache size as sysfs writes it (`32K`, `1024K`, `8M`) or a user types it (`48K`,
/// `48KiB`, `32768`): a whole number (no fractions: `1.25M` is an error), optional spaces,
/// an optional binary unit K/M/G (optionally followed by `B` or `iB`, any case; K is 1024
/// as in sysfs) or `B`. Surrounding whitespace (sysfs ends lines with a newline) is
/// ignored.
pub fn parse_cache_size(text: &str) -> Result<u64, CacheSizeError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(CacheSizeError::Empty);
    }
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, suffix) = text.split_at(digits_end);
    if digits.is_empty() {
        return Err(CacheSizeError::NotANumber(text.to_string()));
    }
    let number: u64 = digits
        .parse()
        .map_err(|_| CacheSizeError::TooLarge(text.to_string()))?;
    let unit: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(CacheSizeError::UnknownSuffix(suffix.trim().to_string())),
    };
    number
        .checked_mul(unit)
        .ok_or_else(|| CacheSizeError::TooLarge(text.to_string()))
}

/// Reads the L1 data and L2 sizes from a sysfs cache directory (`HOST_CACHE_DIR`, or a
/// copy of its layout): every `index*` folder with `level`, `type` and `size` files.
/// Never fails: whatever cannot be read is left out and noted in `skipped`.
pub fn read_host_caches(dir: &Path) -> HostCaches {
    let mut caches = HostCaches::default();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            caches
                .skipped
                .push(format!("cannot read {}: {error}", dir.display()));
            return caches;
        }
    };
    let mut indices: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("index"))
        })
        .collect();
    indices.sort();
    // The data cache wins over a unified one at the same level (sysfs lists both only on
    // unusual machines); otherwise the first index folder does.
    let mut l1: Option<(u64, bool)> = None;
    let mut l2: Option<(u64, bool)> = None;
    for index in &indices {
        let cache = match read_cache_index(index) {
            Ok(cache) => cache,
            Err(reason) => {
                caches
                    .skipped
                    .push(format!("{}: {reason}", index.display()));
                continue;
            }
        };
        let is_data = match cache.kind.as_str() {
            "Data" => true,
            "Unified" => false,
            _ => continue,
        };
        let slot = match cache.level {
            1 => &mut l1,
            2 => &mut l2,
            _ => continue,
        };
        match slot {
            Some((_, true)) => {}
            Some((_, false)) if !is_data => {}
            _ => *slot = Some((cache.bytes, is_data)),
        }
    }
    caches.l1_bytes = l1.map(|(bytes, _)| bytes);
    caches.l2_bytes = l2.map(|(bytes, _)| bytes);
    caches
}

/// One `index*` folder of sysfs.
struct CacheIndex {
    level: u32,
    /// `Data`, `Instruction` or `Unified`.
    kind: String,
    bytes: u64,
}

fn read_cache_index(index: &Path) -> Result<CacheIndex, String> {
    let read = |file: &str| {
        fs::read_to_string(index.join(file))
            .map(|text| text.trim().to_string())
            .map_err(|error| format!("cannot read '{file}': {error}"))
    };
    let level = read("level")?;
    let level = level
        .parse()
        .map_err(|_| format!("level '{level}' is not a number"))?;
    let kind = read("type")?;
    let size = read("size")?;
    let bytes = parse_cache_size(&size).map_err(|error| format!("size: {error}"))?;
    if bytes == 0 {
        return Err("size is 0".to_string());
    }
    Ok(CacheIndex { level, kind, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::path::PathBuf;

    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;

    /// A fresh directory for one test, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let dir = std::env::temp_dir()
                .join(format!("polyrust-hardware-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).expect("a temporary directory");
            TempDir(dir)
        }

        /// Writes `index{n}/{level,type,size}` as sysfs does (with trailing newlines).
        fn cache(&self, n: u32, level: &str, kind: &str, size: &str) {
            let index = self.0.join(format!("index{n}"));
            fs::create_dir_all(&index).expect("an index directory");
            for (file, text) in [("level", level), ("type", kind), ("size", size)] {
                fs::write(index.join(file), format!("{text}\n")).expect("a sysfs file");
            }
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn sysfs_sizes_parse_as_binary_units() {
        assert_eq!(parse_cache_size("32K"), Ok(32 * KIB));
        assert_eq!(parse_cache_size("1024K"), Ok(MIB));
        assert_eq!(parse_cache_size("8M"), Ok(8 * MIB));
        assert_eq!(parse_cache_size("48K\n"), Ok(48 * KIB));
        assert_eq!(parse_cache_size("  1280K  "), Ok(1280 * KIB));
        assert_eq!(parse_cache_size("1G"), Ok(1 << 30));
    }

    #[test]
    fn user_sizes_accept_bytes_and_spelled_out_units() {
        assert_eq!(parse_cache_size("32768"), Ok(32 * KIB));
        assert_eq!(parse_cache_size("48KiB"), Ok(48 * KIB));
        assert_eq!(parse_cache_size("48 kb"), Ok(48 * KIB));
        assert_eq!(parse_cache_size("2 MiB"), Ok(2 * MIB));
        assert_eq!(parse_cache_size("512B"), Ok(512));
    }

    #[test]
    fn malformed_sizes_are_errors_not_panics() {
        assert_eq!(parse_cache_size(""), Err(CacheSizeError::Empty));
        assert_eq!(parse_cache_size(" \n"), Err(CacheSizeError::Empty));
        assert!(matches!(
            parse_cache_size("K"),
            Err(CacheSizeError::NotANumber(_))
        ));
        assert!(matches!(
            parse_cache_size("-32K"),
            Err(CacheSizeError::NotANumber(_))
        ));
        assert!(matches!(
            parse_cache_size("1.5M"),
            Err(CacheSizeError::UnknownSuffix(_))
        ));
        assert!(matches!(
            parse_cache_size("32 kilobytes"),
            Err(CacheSizeError::UnknownSuffix(_))
        ));
        assert!(matches!(
            parse_cache_size("99999999999999999999"),
            Err(CacheSizeError::TooLarge(_))
        ));
        assert!(matches!(
            parse_cache_size("99999999999G"),
            Err(CacheSizeError::TooLarge(_))
        ));
        let message = parse_cache_size("32X").unwrap_err().to_string();
        assert!(message.contains("use K, M or G"), "{message}");
    }

    #[test]
    fn fake_sysfs_tree_gives_l1_data_and_l2() {
        let dir = TempDir::new("alder-lake");
        dir.cache(0, "1", "Data", "48K");
        dir.cache(1, "1", "Instruction", "32K");
        dir.cache(2, "2", "Unified", "1280K");
        dir.cache(3, "3", "Unified", "30720K");
        let caches = read_host_caches(&dir.0);
        assert_eq!(caches.l1_bytes, Some(48 * KIB));
        assert_eq!(caches.l2_bytes, Some(1280 * KIB));
        assert!(caches.skipped.is_empty(), "{:?}", caches.skipped);
    }

    #[test]
    fn instruction_cache_listed_first_is_not_taken_for_l1_data() {
        let dir = TempDir::new("icache-first");
        dir.cache(0, "1", "Instruction", "64K");
        dir.cache(1, "1", "Data", "32K");
        dir.cache(2, "2", "Unified", "512K");
        let caches = read_host_caches(&dir.0);
        assert_eq!(caches.l1_bytes, Some(32 * KIB));
        assert_eq!(caches.l2_bytes, Some(512 * KIB));
    }

    #[test]
    fn data_cache_wins_over_a_unified_one_at_the_same_level() {
        let dir = TempDir::new("unified-l1");
        dir.cache(0, "1", "Unified", "64K");
        dir.cache(1, "1", "Data", "32K");
        let caches = read_host_caches(&dir.0);
        assert_eq!(caches.l1_bytes, Some(32 * KIB));
        assert_eq!(caches.l2_bytes, None);
    }

    #[test]
    fn unreadable_index_folders_are_skipped_and_noted() {
        let dir = TempDir::new("broken");
        dir.cache(0, "1", "Data", "lots");
        dir.cache(1, "one", "Data", "32K");
        dir.cache(2, "2", "Unified", "0K");
        fs::create_dir_all(dir.0.join("index3")).expect("an empty index directory");
        dir.cache(4, "2", "Unified", "2M");
        fs::write(dir.0.join("uevent"), "").expect("a file that is not an index");
        let caches = read_host_caches(&dir.0);
        assert_eq!(caches.l1_bytes, None);
        assert_eq!(caches.l2_bytes, Some(2 * MIB));
        assert_eq!(caches.skipped.len(), 4, "{:?}", caches.skipped);
        assert!(
            caches.skipped.iter().any(|line| line.contains("index3")),
            "{:?}",
            caches.skipped
        );
    }

    #[test]
    fn missing_sysfs_directory_gives_no_sizes_and_a_note() {
        let dir = TempDir::new("missing");
        let caches = read_host_caches(&dir.0.join("does-not-exist"));
        assert_eq!(caches.l1_bytes, None);
        assert_eq!(caches.l2_bytes, None);
        assert_eq!(caches.skipped.len(), 1);
    }

    fn host(l1: u64, l2: u64) -> HostCaches {
        HostCaches {
            l1_bytes: Some(l1),
            l2_bytes: Some(l2),
            skipped: Vec::new(),
        }
    }

    fn avx2_target() -> TargetHardware {
        TargetHardware {
            simd_bits: Some(256),
            vector_registers: Some(16),
            l1_bytes: Some(32 * KIB),
            l2_bytes: None,
        }
    }

    #[test]
    fn options_win_over_host_target_and_defaults() {
        let explicit = ExplicitHardware {
            l1_bytes: Some(64 * KIB),
            l2_bytes: Some(2 * MIB),
            simd_bits: Some(512),
        };
        let hardware = Hardware::resolve(&explicit, Some(&host(48 * KIB, MIB)), &avx2_target());
        assert_eq!(
            hardware.to_string(),
            "L1 64 KiB (option), L2 2 MiB (option), SIMD 512 bits (option)"
        );
    }

    #[test]
    fn host_caches_win_over_the_target_and_simd_comes_from_the_target() {
        let hardware = Hardware::resolve(
            &ExplicitHardware::default(),
            Some(&host(48 * KIB, 1280 * KIB)),
            &avx2_target(),
        );
        assert_eq!(
            hardware.to_string(),
            "L1 48 KiB (host), L2 1280 KiB (host), SIMD 256 bits (target)"
        );
        assert_eq!(
            hardware.sica_machine(),
            SicaMachine {
                simd_bits: 256,
                l1_bytes: 48 * KIB,
                l2_bytes: 1280 * KIB
            }
        );
    }

    #[test]
    fn without_the_host_the_target_then_the_defaults_decide() {
        let hardware = Hardware::resolve(&ExplicitHardware::default(), None, &avx2_target());
        assert_eq!(
            hardware.to_string(),
            "L1 32 KiB (target), L2 256 KiB (default), SIMD 256 bits (target)"
        );
    }

    #[test]
    fn nothing_known_gives_the_papers_machine_as_defaults() {
        let hardware = Hardware::resolve(
            &ExplicitHardware::default(),
            Some(&HostCaches::default()),
            &TargetHardware::default(),
        );
        assert_eq!(
            hardware.to_string(),
            "L1 32 KiB (default), L2 256 KiB (default), SIMD 128 bits (default)"
        );
    }

    #[test]
    fn zero_from_any_source_counts_as_unset() {
        let zeros = TargetHardware {
            simd_bits: Some(0),
            vector_registers: Some(0),
            l1_bytes: Some(0),
            l2_bytes: Some(0),
        };
        let explicit = ExplicitHardware {
            l1_bytes: Some(0),
            l2_bytes: None,
            simd_bits: Some(0),
        };
        let hardware = Hardware::resolve(&explicit, Some(&host(0, 0)), &zeros);
        assert_eq!(hardware.l1_bytes.source, ValueSource::Default);
        assert_eq!(hardware.l2_bytes.source, ValueSource::Default);
        assert_eq!(hardware.simd_bits.source, ValueSource::Default);
    }

    #[test]
    fn sizes_print_in_the_largest_whole_binary_unit() {
        assert_eq!(format_bytes(32 * KIB), "32 KiB");
        assert_eq!(format_bytes(1280 * KIB), "1280 KiB");
        assert_eq!(format_bytes(8 * MIB), "8 MiB");
        assert_eq!(format_bytes(MIB), "1 MiB");
        assert_eq!(format_bytes(1000), "1000 bytes");
        assert_eq!(format_bytes(3 << 30), "3 GiB");
    }
}
