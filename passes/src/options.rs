//! The optimizer's options, declared (`declarations`: name, kind, default, help, which the
//! shim turns into LLVM options) and validated. LLVM parses the `-polyrust-*` flags (so a
//! value of the wrong type is rejected by LLVM itself); this module checks what LLVM cannot:
//! ranges and combinations, with messages that say what to change. Cache sizes arrive as
//! text (`48K`, `1M`, `32768`) and are read here with the parser the sysfs reader uses
//! (`transform::hardware::parse_cache_size`), so a bad unit gets a message of ours.

use std::fmt;
use std::path::PathBuf;

use crate::transform::hardware::{
    format_bytes, parse_cache_size, CacheSizeError, ExplicitHardware,
};

mod declarations;
pub(crate) use declarations::{GivenValue, OptionDeclaration, OptionKind, DECLARATIONS};

/// Smallest cache size accepted: anything below is almost surely a size meant in KiB.
const MIN_CACHE_BYTES: u64 = 1024;
/// Largest cache size accepted (1 GiB): far above any real L1 or L2, so only typos hit it.
const MAX_CACHE_BYTES: u64 = 1 << 30;
/// Widest SIMD register there is (Arm SVE's architectural maximum).
const MAX_SIMD_BITS: u32 = 2048;

/// What `-polyrust-profile-generate` records (`-polyrust-instrument`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instrumentation {
    /// The values speculation needs and how often run-time checks pass (`speculate`).
    Values,
    /// Every load, store and loop iteration of every outermost loop nest, with its
    /// iteration vector (`speculate::accesses`).
    Accesses,
}

impl Instrumentation {
    /// The option's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Instrumentation::Values => "values",
            Instrumentation::Accesses => "accesses",
        }
    }
}

/// When parallel loops run on OpenMP threads (`-polyrust-parallel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parallel {
    /// When the module was compiled with `-fopenmp`.
    Auto,
    /// Always (the program must be linked with libomp).
    On,
    /// Never.
    Off,
}

/// `-polyrust-tiling` as given, before validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TilingChoice {
    Sica = 0,
    Fixed = 1,
    None = 2,
}

impl TilingChoice {
    /// The choice at `index` in the option's declaration.
    pub fn from_index(index: u64) -> Option<TilingChoice> {
        match index {
            0 => Some(TilingChoice::Sica),
            1 => Some(TilingChoice::Fixed),
            2 => Some(TilingChoice::None),
            _ => None,
        }
    }
}

/// How tile sizes are chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Tiling {
    /// From the cache sizes and the SIMD width (SICA).
    Sica,
    /// Given by the user, outermost loop first.
    Fixed(Vec<u32>),
    /// Loops are not tiled.
    None,
}

/// What `-polyrust-max-operations=0` means: no bound of polyrust's own, only this
/// ceiling (100 times the default). A compiler must finish: isl without any bound took
/// more than ten minutes on one loop nest of NPB's LU.
pub const OPERATION_CEILING: u64 = 200_000_000;

/// The validated options of one run of the pass.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// isl operation bound per region (`-polyrust-max-operations=0` gives
    /// `OPERATION_CEILING`); `None`, for tests only, means unbounded.
    pub max_operations: Option<u64>,
    /// How tile sizes are chosen (`-polyrust-tiling`, `-polyrust-tile-sizes`).
    pub tiling: Tiling,
    /// Share of L1 that SICA tiles fill, in (0, 1].
    pub sica_rho: f64,
    /// Where to write each region's model as JSON.
    pub export_dir: Option<PathBuf>,
    /// Where to read region schedules from.
    pub import_dir: Option<PathBuf>,
    /// L1 data cache size in bytes (`-polyrust-l1-cache`); `None`: detect.
    pub l1_cache: Option<u64>,
    /// L2 cache size in bytes (`-polyrust-l2-cache`); `None`: detect.
    pub l2_cache: Option<u64>,
    /// SIMD register width in bits (`-polyrust-simd-width`); `None`: detect.
    pub simd_width: Option<u32>,
    /// Generate code for modelled regions (`-polyrust-codegen`).
    pub codegen: bool,
    /// Generate code for every modelled region, even with its original schedule
    /// (`-polyrust-force-codegen`, for testing code generation).
    pub force_codegen: bool,
    /// Let schedules reorder the updates of reductions (`-polyrust-allow-reassociation`).
    pub allow_reassociation: bool,
    /// Remarks also quote the IR and SCEVs they speak of (`-polyrust-debug-remarks`).
    pub debug_remarks: bool,
    /// Instrument speculable loop nests (`-polyrust-profile-generate[=path]`); the
    /// path the program writes its profile to, empty for the runtime's default.
    pub profile_generate: Option<String>,
    /// Specialize loop nests on the values of this profile (`-polyrust-profile-use`).
    pub profile_use: Option<PathBuf>,
    /// Which run of the pass on this function this is: 0, then one more after each
    /// region rewritten (the shim reruns the pass with fresh analyses).
    pub round: u32,
    /// Tile the time loops of iterated stencils, skewed (`-polyrust-time-tiling`).
    pub time_tiling: bool,
    /// Unroll and jam point loops into register tiles (`-polyrust-register-tiling`).
    pub register_tiling: bool,
    /// Recompute owned temporaries where they are read (`-polyrust-exprprop`).
    pub exprprop: bool,
    /// Store owned temporaries folded to what the schedule needs (`-polyrust-quov`).
    pub quov: bool,
    /// Fuse a pipeline's stages where a temporary then folds (`-polyrust-fusion`).
    pub fusion: bool,
    /// Replace recognised matrix products by the packed product (`-polyrust-products`).
    pub products: bool,
    /// Replace recognised min-plus closures by the blocked kernel (`-polyrust-closures`).
    pub closures: bool,
    /// What `profile_generate` records (`-polyrust-instrument`).
    pub instrument: Instrumentation,
    /// When parallel loops run on OpenMP threads (`-polyrust-parallel`).
    pub parallel: Parallel,
    /// The work (statement instances, estimated) from which a parallel loop forks
    /// threads at run time (`-polyrust-parallel-min-work`).
    pub parallel_min_work: u64,
}

impl Default for Options {
    /// What the declared defaults of the options validate to.
    fn default() -> Self {
        Options::validate(&RawOptions::declared())
            .unwrap_or_else(|e| panic!("the declared defaults of the options are invalid: {e}"))
    }
}

impl ExplicitHardware {
    /// The hardware the user described on the command line.
    pub fn from_options(options: &Options) -> ExplicitHardware {
        ExplicitHardware {
            l1_bytes: options.l1_cache,
            l2_bytes: options.l2_cache,
            simd_bits: options.simd_width,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum OptionError {
    ZeroTileSize {
        position: usize,
    },
    RhoOutOfRange(f64),
    TileSizesIgnored {
        tiling: &'static str,
    },
    FixedWithoutSizes,
    ImportDirMissing(PathBuf),
    /// A cache size option that is not a size.
    CacheSizeUnreadable {
        option: &'static str,
        text: String,
        error: CacheSizeError,
    },
    /// A cache size below `MIN_CACHE_BYTES`.
    CacheTooSmall {
        option: &'static str,
        bytes: u64,
    },
    /// A cache size above `MAX_CACHE_BYTES`.
    CacheTooLarge {
        option: &'static str,
        bytes: u64,
    },
    /// Both cache sizes given, L2 smaller than L1.
    L2SmallerThanL1 {
        l1: u64,
        l2: u64,
    },
    SimdWidthNotBytes(u32),
    SimdWidthTooLarge(u32),
    /// `-polyrust-instrument` with a value other than `values` or `accesses`.
    UnknownInstrumentation(String),
    /// `-polyrust-parallel` with a value other than `auto`, `true` or `false`.
    UnknownParallel(String),
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::ZeroTileSize { position } => write!(
                f,
                "-polyrust-tile-sizes: tile size {position} is 0; every tile size must be at least 1"
            ),
            OptionError::RhoOutOfRange(rho) => write!(
                f,
                "-polyrust-sica-rho={rho} is out of range; give the share of the L1 cache to fill, greater than 0 and at most 1 (default 0.9)"
            ),
            OptionError::TileSizesIgnored { tiling } => write!(
                f,
                "-polyrust-tile-sizes is given but -polyrust-tiling={tiling} would ignore it; use -polyrust-tiling=fixed or drop the tile sizes"
            ),
            OptionError::FixedWithoutSizes => write!(
                f,
                "-polyrust-tiling=fixed needs -polyrust-tile-sizes=N[,N...]"
            ),
            OptionError::ImportDirMissing(dir) => write!(
                f,
                "-polyrust-import={}: no such directory; give the directory -polyrust-export wrote",
                dir.display()
            ),
            OptionError::CacheSizeUnreadable { option, text, error } => write!(
                f,
                "-polyrust-{option}={text}: {error}; give a size such as 32K, 1280K or 2M \
                 (K = 1024 bytes), or 0 to detect it"
            ),
            OptionError::CacheTooSmall { option, bytes } => write!(
                f,
                "-polyrust-{option}={bytes} is only {bytes} bytes; sizes without a unit are \
                 in bytes: write {bytes}K for {bytes} KiB"
            ),
            OptionError::CacheTooLarge { option, bytes } => write!(
                f,
                "-polyrust-{option} is {}, more than any L1 or L2 cache (at most {}); \
                 check the unit (K = KiB, M = MiB)",
                format_bytes(*bytes),
                format_bytes(MAX_CACHE_BYTES)
            ),
            OptionError::L2SmallerThanL1 { l1, l2 } => write!(
                f,
                "-polyrust-l2-cache ({}) is smaller than -polyrust-l1-cache ({}); \
                 give L2 at least as large as L1 (SICA tiles the outermost loop by L2 / L1)",
                format_bytes(*l2),
                format_bytes(*l1)
            ),
            OptionError::SimdWidthNotBytes(bits) => write!(
                f,
                "-polyrust-simd-width={bits} is not a multiple of 8; give the vector register \
                 width in bits, e.g. 128 (SSE, NEON), 256 (AVX2) or 512 (AVX-512), or 0 to \
                 take it from the target"
            ),
            OptionError::SimdWidthTooLarge(bits) => write!(
                f,
                "-polyrust-simd-width={bits} is wider than any SIMD register (at most \
                 {MAX_SIMD_BITS} bits); give the width in bits, e.g. 256 for AVX2"
            ),
            OptionError::UnknownInstrumentation(text) => write!(
                f,
                "-polyrust-instrument={text}: unknown kind of instrumentation; give \
                 'values' (the values profile-guided specialization needs; the default) or \
                 'accesses' (every load and store of every loop nest, with its iteration \
                 vector)"
            ),
            OptionError::UnknownParallel(text) => write!(
                f,
                "-polyrust-parallel={text}: give 'auto' (parallel loops on OpenMP threads when \
                 compiled with -fopenmp; the default), 'true' (always; link with -fopenmp or \
                 -lomp) or 'false' (never)"
            ),
        }
    }
}

impl std::error::Error for OptionError {}

/// The user's command line as the shim read it, before validation.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RawOptions {
    /// `-polyrust-enable`: the pass joins the -O2/-O3 pipeline.
    pub enable: bool,
    pub max_operations: u64,
    /// `None` when `-polyrust-tiling` was not given.
    pub tiling: Option<TilingChoice>,
    pub tile_sizes: Vec<u32>,
    pub sica_rho: f64,
    pub export_dir: String,
    pub import_dir: String,
    /// `-polyrust-l1-cache` as typed (`48K`, `32768`); empty or `0`: not given.
    pub l1_cache: String,
    /// `-polyrust-l2-cache` as typed (`1280K`, `2M`); empty or `0`: not given.
    pub l2_cache: String,
    /// `-polyrust-simd-width` in bits; 0: not given.
    pub simd_width: u32,
    pub codegen: bool,
    pub force_codegen: bool,
    pub allow_reassociation: bool,
    pub debug_remarks: bool,
    /// `Some(path)` when `-polyrust-profile-generate` was given (path empty without `=`).
    pub profile_generate: Option<String>,
    /// `-polyrust-profile-use` as typed; empty: not given.
    pub profile_use: String,
    pub time_tiling: bool,
    pub register_tiling: bool,
    pub exprprop: bool,
    pub quov: bool,
    pub fusion: bool,
    pub products: bool,
    pub closures: bool,
    /// `-polyrust-instrument` as typed (`values` by default).
    pub instrument: String,
    /// `-polyrust-parallel` as typed (`auto` by default).
    pub parallel: String,
    pub parallel_min_work: u64,
}

impl RawOptions {
    /// The options as LLVM parsed them: one value per declaration, in their order.
    pub fn from_values(values: &[GivenValue]) -> RawOptions {
        let mut raw = RawOptions::default();
        for (declaration, value) in DECLARATIONS.iter().zip(values) {
            (declaration.read)(&mut raw, value);
        }
        raw
    }

    /// The options when the user gives none.
    pub fn declared() -> RawOptions {
        let values: Vec<GivenValue> = DECLARATIONS.iter().map(GivenValue::default_of).collect();
        RawOptions::from_values(&values)
    }
}

impl Options {
    pub(crate) fn validate(raw: &RawOptions) -> Result<Options, OptionError> {
        if !(raw.sica_rho > 0.0 && raw.sica_rho <= 1.0) {
            return Err(OptionError::RhoOutOfRange(raw.sica_rho));
        }
        if let Some(i) = raw.tile_sizes.iter().position(|&s| s == 0) {
            return Err(OptionError::ZeroTileSize { position: i + 1 });
        }
        let has_sizes = !raw.tile_sizes.is_empty();
        // Tile sizes alone mean fixed tiling: `-polyrust-tile-sizes=64,64` is enough.
        let tiling = match (raw.tiling, has_sizes) {
            (None, true) | (Some(TilingChoice::Fixed), true) => {
                Tiling::Fixed(raw.tile_sizes.clone())
            }
            (Some(TilingChoice::Fixed), false) => return Err(OptionError::FixedWithoutSizes),
            (Some(TilingChoice::Sica), true) => {
                return Err(OptionError::TileSizesIgnored { tiling: "sica" })
            }
            (Some(TilingChoice::None), true) => {
                return Err(OptionError::TileSizesIgnored { tiling: "none" })
            }
            (None | Some(TilingChoice::Sica), false) => Tiling::Sica,
            (Some(TilingChoice::None), false) => Tiling::None,
        };
        let dir = |d: &str| (!d.is_empty()).then(|| PathBuf::from(d));
        if let Some(import) = dir(&raw.import_dir) {
            if !import.is_dir() {
                return Err(OptionError::ImportDirMissing(import));
            }
        }
        let l1_cache = cache_size("l1-cache", &raw.l1_cache)?;
        let l2_cache = cache_size("l2-cache", &raw.l2_cache)?;
        if let (Some(l1), Some(l2)) = (l1_cache, l2_cache) {
            if l2 < l1 {
                return Err(OptionError::L2SmallerThanL1 { l1, l2 });
            }
        }
        let simd_width = match raw.simd_width {
            0 => None,
            bits if bits % 8 != 0 => return Err(OptionError::SimdWidthNotBytes(bits)),
            bits if bits > MAX_SIMD_BITS => return Err(OptionError::SimdWidthTooLarge(bits)),
            bits => Some(bits),
        };
        let profile_use = dir(&raw.profile_use);
        let instrument = match raw.instrument.trim() {
            "values" => Instrumentation::Values,
            "accesses" => Instrumentation::Accesses,
            _ => return Err(OptionError::UnknownInstrumentation(raw.instrument.clone())),
        };
        let parallel = match raw.parallel.trim() {
            "auto" => Parallel::Auto,
            "true" => Parallel::On,
            "false" => Parallel::Off,
            _ => return Err(OptionError::UnknownParallel(raw.parallel.clone())),
        };
        Ok(Options {
            max_operations: Some(match raw.max_operations {
                0 => OPERATION_CEILING,
                bound => bound,
            }),
            tiling,
            sica_rho: raw.sica_rho,
            export_dir: dir(&raw.export_dir),
            import_dir: dir(&raw.import_dir),
            l1_cache,
            l2_cache,
            simd_width,
            codegen: raw.codegen,
            force_codegen: raw.force_codegen,
            allow_reassociation: raw.allow_reassociation,
            debug_remarks: raw.debug_remarks,
            profile_generate: raw.profile_generate.clone(),
            profile_use,
            round: 0,
            time_tiling: raw.time_tiling,
            register_tiling: raw.register_tiling,
            exprprop: raw.exprprop,
            quov: raw.quov,
            fusion: raw.fusion,
            products: raw.products,
            closures: raw.closures,
            instrument,
            parallel,
            parallel_min_work: raw.parallel_min_work,
        })
    }

    /// What the user should hear about a valid combination of options that does not do
    /// what it seems to: said as a warning, once per process.
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.instrument != Instrumentation::Values && self.profile_generate.is_none() {
            warnings.push(format!(
                "-polyrust-instrument={} has no effect without -polyrust-profile-generate; \
                 add -polyrust-profile-generate[=path] to instrument the program",
                self.instrument.name()
            ));
        }
        warnings
    }
}

/// A cache size option: `None` when empty or 0, bytes otherwise, within sane bounds.
fn cache_size(option: &'static str, text: &str) -> Result<Option<u64>, OptionError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let bytes = parse_cache_size(text).map_err(|error| OptionError::CacheSizeUnreadable {
        option,
        text: text.to_string(),
        error,
    })?;
    match bytes {
        0 => Ok(None),
        bytes if bytes < MIN_CACHE_BYTES => Err(OptionError::CacheTooSmall { option, bytes }),
        bytes if bytes > MAX_CACHE_BYTES => Err(OptionError::CacheTooLarge { option, bytes }),
        bytes => Ok(Some(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawOptions {
        RawOptions {
            enable: true,
            max_operations: 2_000_000,
            tiling: None,
            tile_sizes: vec![],
            sica_rho: 0.9,
            export_dir: String::new(),
            import_dir: String::new(),
            l1_cache: String::new(),
            l2_cache: String::new(),
            simd_width: 0,
            codegen: true,
            force_codegen: false,
            allow_reassociation: false,
            debug_remarks: false,
            profile_generate: None,
            profile_use: String::new(),
            time_tiling: true,
            register_tiling: true,
            exprprop: true,
            quov: true,
            fusion: true,
            products: true,
            closures: true,
            instrument: "values".into(),
            parallel: "auto".into(),
            parallel_min_work: 32768,
        }
    }

    #[test]
    fn parallel_is_auto_true_or_false_and_nothing_else() {
        let parallel = |text: &str| {
            Options::validate(&RawOptions {
                parallel: text.into(),
                ..raw()
            })
            .map(|o| o.parallel)
        };
        assert_eq!(parallel("auto"), Ok(Parallel::Auto));
        assert_eq!(parallel("true"), Ok(Parallel::On));
        assert_eq!(parallel("false"), Ok(Parallel::Off));
        let err = parallel("yes").unwrap_err().to_string();
        assert!(
            err.starts_with("-polyrust-parallel=yes: give 'auto'"),
            "{err}"
        );
        assert!(err.contains("'true'") && err.contains("'false'"), "{err}");
        assert!(parallel("").is_err());
    }

    #[test]
    fn instrumentation_is_values_unless_accesses_is_asked_for() {
        assert_eq!(
            Options::validate(&raw()).map(|o| o.instrument),
            Ok(Instrumentation::Values)
        );
        let accesses = RawOptions {
            instrument: "accesses".into(),
            profile_generate: Some(String::new()),
            ..raw()
        };
        let options = Options::validate(&accesses).unwrap();
        assert_eq!(options.instrument, Instrumentation::Accesses);
        assert!(options.warnings().is_empty());
    }

    #[test]
    fn unknown_instrumentation_names_both_kinds() {
        let invalid = |text: &str| {
            Options::validate(&RawOptions {
                instrument: text.into(),
                ..raw()
            })
        };
        assert!(invalid("").is_err());
        assert!(invalid("Accesses").is_err());
        let err = invalid("access").unwrap_err();
        assert_eq!(err, OptionError::UnknownInstrumentation("access".into()));
        let shown = err.to_string();
        assert!(shown.starts_with("-polyrust-instrument=access:"), "{shown}");
        assert!(
            shown.contains("'values'") && shown.contains("'accesses'"),
            "{shown}"
        );
    }

    #[test]
    fn accesses_without_profile_generate_is_a_warning() {
        let options = Options::validate(&RawOptions {
            instrument: "accesses".into(),
            ..raw()
        })
        .unwrap();
        let warnings = options.warnings();
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].contains("without -polyrust-profile-generate"),
            "{warnings:?}"
        );
    }

    #[test]
    fn profile_generate_and_use_go_together() {
        // Instrumenting the specialized build counts how often its checks pass.
        let both = RawOptions {
            profile_generate: Some(String::new()),
            profile_use: "prog.polyprof".into(),
            ..raw()
        };
        let options = Options::validate(&both).unwrap();
        assert_eq!(options.profile_generate, Some(String::new()));
        assert_eq!(options.profile_use, Some(PathBuf::from("prog.polyprof")));
        let generate = RawOptions {
            profile_generate: Some("out-%p.json".into()),
            ..raw()
        };
        assert_eq!(
            Options::validate(&generate).map(|o| o.profile_generate),
            Ok(Some("out-%p.json".into()))
        );
    }

    #[test]
    fn declared_defaults_are_the_command_line_without_options() {
        assert_eq!(RawOptions::declared(), raw());
    }

    #[test]
    fn defaults_validate_to_sica_tiling() {
        assert_eq!(Options::validate(&raw()), Ok(Options::default()));
        assert_eq!(Options::default().tiling, Tiling::Sica);
        assert_eq!(Options::default().max_operations, Some(2_000_000));
    }

    #[test]
    fn tile_sizes_alone_select_fixed_tiling() {
        let opts = Options::validate(&RawOptions {
            tile_sizes: vec![64, 32],
            ..raw()
        })
        .unwrap();
        assert_eq!(opts.tiling, Tiling::Fixed(vec![64, 32]));
    }

    #[test]
    fn zero_tile_size_names_its_position() {
        let err = Options::validate(&RawOptions {
            tile_sizes: vec![64, 0],
            ..raw()
        })
        .unwrap_err();
        assert_eq!(err, OptionError::ZeroTileSize { position: 2 });
        assert!(err.to_string().contains("tile size 2 is 0"));
    }

    #[test]
    fn rho_must_lie_in_the_unit_interval() {
        for rho in [0.0, -0.5, 1.5, f64::NAN] {
            let err = Options::validate(&RawOptions {
                sica_rho: rho,
                ..raw()
            });
            assert!(matches!(err, Err(OptionError::RhoOutOfRange(_))), "{rho}");
        }
        assert!(Options::validate(&RawOptions {
            sica_rho: 1.0,
            ..raw()
        })
        .is_ok());
    }

    #[test]
    fn conflicting_tiling_and_sizes_is_an_error() {
        let err = Options::validate(&RawOptions {
            tiling: Some(TilingChoice::None),
            tile_sizes: vec![8],
            ..raw()
        });
        assert_eq!(err, Err(OptionError::TileSizesIgnored { tiling: "none" }));
        let err = Options::validate(&RawOptions {
            tiling: Some(TilingChoice::Fixed),
            ..raw()
        });
        assert_eq!(err, Err(OptionError::FixedWithoutSizes));
    }

    #[test]
    fn zero_max_operations_means_the_ceiling() {
        let opts = Options::validate(&RawOptions {
            max_operations: 0,
            ..raw()
        })
        .unwrap();
        assert_eq!(opts.max_operations, Some(OPERATION_CEILING));
    }

    fn with_hardware(l1: &str, l2: &str, simd_width: u32) -> Result<Options, OptionError> {
        Options::validate(&RawOptions {
            l1_cache: l1.to_string(),
            l2_cache: l2.to_string(),
            simd_width,
            ..raw()
        })
    }

    #[test]
    fn hardware_options_not_given_are_detected_later() {
        let opts = with_hardware("", "", 0).unwrap();
        assert_eq!(
            (opts.l1_cache, opts.l2_cache, opts.simd_width),
            (None, None, None)
        );
        let opts = with_hardware("0", " 0K ", 0).unwrap();
        assert_eq!((opts.l1_cache, opts.l2_cache), (None, None));
    }

    #[test]
    fn cache_sizes_accept_sysfs_units_and_plain_bytes() {
        let opts = with_hardware("48K", "1280K", 256).unwrap();
        assert_eq!(opts.l1_cache, Some(48 * 1024));
        assert_eq!(opts.l2_cache, Some(1280 * 1024));
        assert_eq!(opts.simd_width, Some(256));
        let opts = with_hardware("32768", "2M", 0).unwrap();
        assert_eq!(opts.l1_cache, Some(32768));
        assert_eq!(opts.l2_cache, Some(2 * 1024 * 1024));
    }

    #[test]
    fn only_one_cache_size_may_be_given() {
        let opts = with_hardware("", "512K", 0).unwrap();
        assert_eq!((opts.l1_cache, opts.l2_cache), (None, Some(512 * 1024)));
    }

    #[test]
    fn unreadable_cache_size_names_the_option_and_the_fix() {
        let err = with_hardware("32 kilobytes", "", 0).unwrap_err();
        assert!(
            matches!(
                err,
                OptionError::CacheSizeUnreadable {
                    option: "l1-cache",
                    ..
                }
            ),
            "{err:?}"
        );
        let shown = err.to_string();
        assert!(
            shown.starts_with("-polyrust-l1-cache=32 kilobytes:"),
            "{shown}"
        );
        assert!(shown.contains("32K"), "{shown}");
        let err = with_hardware("", "lots", 0).unwrap_err();
        assert!(
            err.to_string().starts_with("-polyrust-l2-cache=lots"),
            "{err}"
        );
    }

    #[test]
    fn cache_size_without_unit_below_1_kib_suggests_kib() {
        let err = with_hardware("32", "", 0).unwrap_err();
        assert_eq!(
            err,
            OptionError::CacheTooSmall {
                option: "l1-cache",
                bytes: 32
            }
        );
        assert!(err.to_string().contains("write 32K for 32 KiB"), "{err}");
    }

    #[test]
    fn cache_size_above_1_gib_is_an_error() {
        let err = with_hardware("", "2G", 0).unwrap_err();
        assert!(
            matches!(
                err,
                OptionError::CacheTooLarge {
                    option: "l2-cache",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("2 GiB"), "{err}");
    }

    #[test]
    fn l2_smaller_than_l1_is_an_error() {
        let err = with_hardware("48K", "32K", 0).unwrap_err();
        assert_eq!(
            err,
            OptionError::L2SmallerThanL1 {
                l1: 48 * 1024,
                l2: 32 * 1024
            }
        );
        let shown = err.to_string();
        assert!(
            shown.contains(
                "-polyrust-l2-cache (32 KiB) is smaller than -polyrust-l1-cache (48 KiB)"
            ),
            "{shown}"
        );
        assert!(with_hardware("32K", "32K", 0).is_ok());
    }

    #[test]
    fn simd_width_must_be_whole_bytes() {
        let err = with_hardware("", "", 100).unwrap_err();
        assert_eq!(err, OptionError::SimdWidthNotBytes(100));
        assert!(err.to_string().contains("multiple of 8"), "{err}");
        assert!(with_hardware("", "", 8).is_ok());
        assert!(with_hardware("", "", 384).is_ok());
    }

    #[test]
    fn simd_width_above_2048_bits_is_an_error() {
        assert_eq!(
            with_hardware("", "", 4096),
            Err(OptionError::SimdWidthTooLarge(4096))
        );
        assert_eq!(with_hardware("", "", 2048).unwrap().simd_width, Some(2048));
    }
}
