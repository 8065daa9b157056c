//! The optimizer's options, validated. LLVM parses the `-polyrust-*` flags (so a value
//! of the wrong type is rejected by LLVM itself); this module checks what LLVM cannot:
//! ranges and combinations, with messages that say what to change.

use std::fmt;
use std::path::PathBuf;

use crate::llvm::abi::{PrOptions, PrTiling};

/// How tile sizes are chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Tiling {
    /// From the cache sizes and the SIMD width (SICA).
    Sica,
    /// Given by the user, outermost loop first.
    Fixed(Vec<u32>),
    None,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// isl operation bound per region; `None` means unbounded.
    pub max_operations: Option<u64>,
    pub tiling: Tiling,
    /// Share of L1 that SICA tiles fill, in (0, 1].
    pub sica_rho: f64,
    /// Where to write each region's model as JSON.
    pub export_dir: Option<PathBuf>,
    /// Where to read region schedules from.
    pub import_dir: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_operations: Some(2_000_000),
            tiling: Tiling::Sica,
            sica_rho: 0.9,
            export_dir: None,
            import_dir: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum OptionError {
    ZeroTileSize { position: usize },
    RhoOutOfRange(f64),
    TileSizesIgnored { tiling: &'static str },
    FixedWithoutSizes,
    ImportDirMissing(PathBuf),
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
        }
    }
}

impl std::error::Error for OptionError {}

/// The user's command line as the shim read it, before validation.
#[derive(Clone, Debug, PartialEq)]
pub struct RawOptions {
    pub max_operations: u64,
    /// `None` when `-polyrust-tiling` was not given.
    pub tiling: Option<PrTiling>,
    pub tile_sizes: Vec<u32>,
    pub sica_rho: f64,
    pub export_dir: String,
    pub import_dir: String,
}

impl RawOptions {
    /// # Safety
    /// `raw.tile_sizes` must point to `raw.tile_sizes_len` integers (or be null).
    pub unsafe fn from_abi(raw: &PrOptions) -> Self {
        let tile_sizes = if raw.tile_sizes.is_null() {
            Vec::new()
        } else {
            std::slice::from_raw_parts(raw.tile_sizes, raw.tile_sizes_len).to_vec()
        };
        let text = |p: *const std::ffi::c_char| {
            if p.is_null() {
                String::new()
            } else {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        RawOptions {
            max_operations: raw.max_operations,
            tiling: (raw.tiling_given != 0).then_some(raw.tiling),
            tile_sizes,
            sica_rho: raw.sica_rho,
            export_dir: text(raw.export_dir),
            import_dir: text(raw.import_dir),
        }
    }
}

impl Options {
    pub fn validate(raw: &RawOptions) -> Result<Options, OptionError> {
        if !(raw.sica_rho > 0.0 && raw.sica_rho <= 1.0) {
            return Err(OptionError::RhoOutOfRange(raw.sica_rho));
        }
        if let Some(i) = raw.tile_sizes.iter().position(|&s| s == 0) {
            return Err(OptionError::ZeroTileSize { position: i + 1 });
        }
        let has_sizes = !raw.tile_sizes.is_empty();
        // Tile sizes alone mean fixed tiling: `-polyrust-tile-sizes=64,64` is enough.
        let tiling = match (raw.tiling, has_sizes) {
            (None, true) | (Some(PrTiling::Fixed), true) => Tiling::Fixed(raw.tile_sizes.clone()),
            (Some(PrTiling::Fixed), false) => return Err(OptionError::FixedWithoutSizes),
            (Some(PrTiling::Sica), true) => {
                return Err(OptionError::TileSizesIgnored { tiling: "sica" })
            }
            (Some(PrTiling::None), true) => {
                return Err(OptionError::TileSizesIgnored { tiling: "none" })
            }
            (None | Some(PrTiling::Sica), false) => Tiling::Sica,
            (Some(PrTiling::None), false) => Tiling::None,
        };
        let dir = |d: &str| (!d.is_empty()).then(|| PathBuf::from(d));
        if let Some(import) = dir(&raw.import_dir) {
            if !import.is_dir() {
                return Err(OptionError::ImportDirMissing(import));
            }
        }
        Ok(Options {
            max_operations: (raw.max_operations != 0).then_some(raw.max_operations),
            tiling,
            sica_rho: raw.sica_rho,
            export_dir: dir(&raw.export_dir),
            import_dir: dir(&raw.import_dir),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawOptions {
        RawOptions {
            max_operations: 2_000_000,
            tiling: None,
            tile_sizes: vec![],
            sica_rho: 0.9,
            export_dir: String::new(),
            import_dir: String::new(),
        }
    }

    #[test]
    fn defaults_validate_to_sica_tiling() {
        assert_eq!(Options::validate(&raw()), Ok(Options::default()));
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
            tiling: Some(PrTiling::None),
            tile_sizes: vec![8],
            ..raw()
        });
        assert_eq!(err, Err(OptionError::TileSizesIgnored { tiling: "none" }));
        let err = Options::validate(&RawOptions {
            tiling: Some(PrTiling::Fixed),
            ..raw()
        });
        assert_eq!(err, Err(OptionError::FixedWithoutSizes));
    }

    #[test]
    fn zero_max_operations_means_unbounded() {
        let opts = Options::validate(&RawOptions {
            max_operations: 0,
            ..raw()
        })
        .unwrap();
        assert_eq!(opts.max_operations, None);
    }
}
