//! The compressed trace file (`POLYRUST_TRACE=DIR`): one JSON file per loop nest and
//! thread, `{"format": "polyrust-trace", "version": 1, ...}`, naming the nest as its
//! descriptor does and holding, per load and store site (kind, size, source line,
//! column and name, the site's index in the descriptor), the trace model of the
//! addresses the site issued in that thread, all entries of the nest in order:
//! nests as `{"nest": {"count", "base", "coeffs", "upper", "lower"}}` (per level its
//! faces, each `[constant, slope of counter 0, ...]`; `lower` besides `i >= 0`) and
//! addresses no nest explains as `{"literal": [...]}`.
//!
//! Reading checks everything a damaged or hostile file could get wrong (format and
//! version, shapes of faces, limits of the model, piece counts against the site's
//! access count) and answers a [`TraceFileError`] that names the file and the site;
//! it never panics. JSON keeps the file readable and the reader as strict as the
//! profile's; the model's own compact size is [`Model::encoded_len`].

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Face, Model, Nest, Piece, MAX_DEPTH};
use crate::profile::nest::SiteKind;

pub const TRACE_FORMAT: &str = "polyrust-trace";
pub const TRACE_FORMAT_VERSION: u32 = 1;
/// Largest file read (literal pieces make big files; 8 bytes per address raw).
pub const MAX_TRACE_FILE_BYTES: u64 = 4 << 30;

/// One nest of one thread: who it is and the trace of each of its memory sites.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompressedTrace {
    pub format: String,
    pub version: u32,
    /// The nest's id, as in the profile.
    pub nest: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub module_hash: String,
    /// Whether detection accepted the nest (a static-control loop nest).
    pub modelled: bool,
    pub thread: u64,
    pub entries: u64,
    /// Addresses per chunk modelled at once.
    pub chunk: u64,
    pub sites: Vec<SiteTrace>,
}

/// The trace of one load or store site.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SiteTrace {
    /// Index of the site in the nest's descriptor.
    pub site: u32,
    pub kind: SiteKind,
    pub size: u32,
    pub line: u32,
    pub column: u32,
    pub name: String,
    /// Addresses recorded, which the pieces regenerate.
    pub accesses: u64,
    /// Addresses not recorded past `POLYRUST_TRACE_MB` (the trace is then a prefix).
    pub dropped: u64,
    pub truncated: bool,
    /// Some search ran out of budget: a shallower nest or fewer pieces may exist.
    pub search_budget_hit: bool,
    /// Chunks modelled.
    pub chunks: u64,
    pub pieces: Vec<StoredPiece>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "lowercase", deny_unknown_fields)]
pub enum StoredPiece {
    Nest(StoredNest),
    Literal(Vec<i64>),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StoredNest {
    pub count: u64,
    pub base: i64,
    pub coeffs: Vec<i64>,
    /// Per level, its upper faces: `[constant, slope of counter 0, ...]`.
    pub upper: Vec<Vec<Vec<i64>>>,
    /// Per level, its lower faces besides `i >= 0`.
    pub lower: Vec<Vec<Vec<i64>>>,
}

#[derive(Debug)]
pub enum TraceFileError {
    Unreadable {
        path: PathBuf,
        source: io::Error,
    },
    TooLarge {
        path: PathBuf,
        bytes: u64,
    },
    /// Not JSON, or not the fields of a compressed trace.
    NotATrace {
        path: PathBuf,
        problem: String,
    },
    OtherVersion {
        path: PathBuf,
        version: u32,
    },
    /// A site's model breaks the format's rules.
    Malformed {
        path: PathBuf,
        site: u32,
        problem: String,
    },
    Unwritable {
        path: PathBuf,
        source: io::Error,
    },
}

impl fmt::Display for TraceFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceFileError::Unreadable { path, source } => write!(
                f,
                "cannot read compressed trace '{}': {source}",
                path.display()
            ),
            TraceFileError::TooLarge { path, bytes } => write!(
                f,
                "'{}' is not a compressed trace: it is larger than {} GiB ({bytes} bytes)",
                path.display(),
                MAX_TRACE_FILE_BYTES >> 30
            ),
            TraceFileError::NotATrace { path, problem } => write!(
                f,
                "'{}' is not a polyrust compressed trace ({problem}); pass a file that a \
                 program run with POLYRUST_TRACE=DIR wrote into DIR",
                path.display()
            ),
            TraceFileError::OtherVersion { path, version } => write!(
                f,
                "compressed trace '{}' has format version {version}, this polyrust reads \
                 version {TRACE_FORMAT_VERSION}; record it again with this runtime",
                path.display()
            ),
            TraceFileError::Malformed {
                path,
                site,
                problem,
            } => write!(
                f,
                "malformed compressed trace '{}': site {site}: {problem}; the file is \
                 damaged, record it again",
                path.display()
            ),
            TraceFileError::Unwritable { path, source } => write!(
                f,
                "cannot write compressed trace '{}': {source}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for TraceFileError {}

/// `face` as `[constant, slopes of the outer counters...]`.
fn stored_face(face: &Face, level: usize) -> Vec<i64> {
    let mut stored = Vec::with_capacity(level + 1);
    stored.push(face.constant_term());
    stored.extend((0..level).map(|m| face.slope(m)));
    stored
}

impl StoredPiece {
    pub fn from_piece(piece: &Piece) -> StoredPiece {
        match piece {
            Piece::Literal(addresses) => StoredPiece::Literal(addresses.clone()),
            Piece::Nest(nest) => {
                let stored = |faces: &[Face], level| -> Vec<Vec<i64>> {
                    faces.iter().map(|face| stored_face(face, level)).collect()
                };
                StoredPiece::Nest(StoredNest {
                    count: nest.count(),
                    base: nest.base(),
                    coeffs: nest.coeffs().to_vec(),
                    upper: (0..nest.depth())
                        .map(|level| stored(nest.faces(level), level))
                        .collect(),
                    lower: (0..nest.depth())
                        .map(|level| stored(nest.lower_faces(level), level))
                        .collect(),
                })
            }
        }
    }

    /// The piece, or what is wrong with it.
    pub fn to_piece(&self) -> Result<Piece, String> {
        let nest = match self {
            StoredPiece::Literal(addresses) => return Ok(Piece::Literal(addresses.clone())),
            StoredPiece::Nest(nest) => nest,
        };
        let depth = nest.coeffs.len();
        if depth == 0 || depth > MAX_DEPTH {
            return Err(format!("a nest of depth {depth} (1 to {MAX_DEPTH})"));
        }
        if nest.upper.len() != depth || nest.lower.len() != depth {
            return Err(format!(
                "a nest of depth {depth} with faces for {} and {} levels",
                nest.upper.len(),
                nest.lower.len()
            ));
        }
        let faces = |levels: &[Vec<Vec<i64>>]| -> Result<Vec<Vec<Face>>, String> {
            levels
                .iter()
                .enumerate()
                .map(|(level, faces)| {
                    faces
                        .iter()
                        .map(|face| match face.split_first() {
                            Some((&constant, slopes)) if slopes.len() == level => {
                                Ok(Face::new(slopes, constant))
                            }
                            _ => Err(format!(
                                "a face of level {level} with {} numbers (it has {})",
                                face.len(),
                                level + 1
                            )),
                        })
                        .collect()
                })
                .collect()
        };
        let (upper, lower) = (faces(&nest.upper)?, faces(&nest.lower)?);
        Nest::new(nest.base, &nest.coeffs, upper, nest.count)
            .and_then(|built| built.with_lower_faces(lower))
            .map(Piece::Nest)
            .ok_or_else(|| {
                "a nest with a level without upper face, or a face outside the limits".into()
            })
    }
}

impl SiteTrace {
    /// The site's model, checked against its access count.
    pub fn model(&self) -> Result<Model, String> {
        let pieces = self
            .pieces
            .iter()
            .enumerate()
            .map(|(index, piece)| {
                piece
                    .to_piece()
                    .map_err(|problem| format!("piece {index}: {problem}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let total = pieces
            .iter()
            .try_fold(0u64, |total, piece| total.checked_add(piece.len()));
        if total != Some(self.accesses) {
            return Err(format!(
                "its pieces hold {} addresses, not the {} accesses it says",
                total.map_or("more than 2^64".into(), |t| t.to_string()),
                self.accesses
            ));
        }
        Ok(Model {
            pieces,
            budget_hit: self.search_budget_hit,
        })
    }
}

impl CompressedTrace {
    /// The trace as JSON (one line per site piece would not help: pieces are small or
    /// long literals), with a trailing newline.
    pub fn to_json(&self) -> String {
        // Plain structs and vectors: serializing cannot fail.
        let mut json = serde_json::to_string(self).unwrap_or_default();
        json.push('\n');
        json
    }

    /// Writes the trace to `path` (through a temporary file and a rename, so that a
    /// reader never sees half a file).
    pub fn write(&self, path: &Path) -> Result<(), TraceFileError> {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temporary = path.with_file_name(format!(".{name}.tmp.{}", std::process::id()));
        let written = std::fs::write(&temporary, self.to_json())
            .and_then(|()| std::fs::rename(&temporary, path));
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written.map_err(|source| TraceFileError::Unwritable {
            path: path.into(),
            source,
        })
    }

    /// Reads `path` and checks every site's model (see the module comment).
    pub fn read(path: &Path) -> Result<CompressedTrace, TraceFileError> {
        let unreadable = |source| TraceFileError::Unreadable {
            path: path.into(),
            source,
        };
        let bytes = std::fs::metadata(path).map_err(unreadable)?.len();
        if bytes > MAX_TRACE_FILE_BYTES {
            return Err(TraceFileError::TooLarge {
                path: path.into(),
                bytes,
            });
        }
        let text = std::fs::read(path).map_err(unreadable)?;
        CompressedTrace::parse(&text, path)
    }

    /// Parses and checks a trace held in memory; `path` only names it in errors.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<CompressedTrace, TraceFileError> {
        let not_a_trace = |problem: String| TraceFileError::NotATrace {
            path: path.into(),
            problem,
        };
        // The header first, so that another version is named as such whatever else
        // changed in its layout.
        #[derive(Deserialize)]
        struct Header {
            format: Option<serde_json::Value>,
            version: Option<serde_json::Value>,
        }
        let header: Header =
            serde_json::from_slice(bytes).map_err(|e| not_a_trace(e.to_string()))?;
        if header.format.as_ref().and_then(|f| f.as_str()) != Some(TRACE_FORMAT) {
            return Err(not_a_trace(format!("no \"format\": \"{TRACE_FORMAT}\"")));
        }
        match header.version.as_ref().and_then(|v| v.as_u64()) {
            Some(version) if version == u64::from(TRACE_FORMAT_VERSION) => {}
            Some(version) => {
                return Err(TraceFileError::OtherVersion {
                    path: path.into(),
                    version: u32::try_from(version).unwrap_or(u32::MAX),
                })
            }
            None => return Err(not_a_trace("no numeric \"version\"".into())),
        }
        let trace: CompressedTrace =
            serde_json::from_slice(bytes).map_err(|e| not_a_trace(e.to_string()))?;
        for site in &trace.sites {
            site.model().map_err(|problem| TraceFileError::Malformed {
                path: path.into(),
                site: site.site,
                problem,
            })?;
        }
        Ok(trace)
    }

    /// The site whose descriptor index is `site`.
    pub fn site(&self, site: u32) -> Option<&SiteTrace> {
        self.sites.iter().find(|s| s.site == site)
    }
}

/// A file name for the trace of nest `id` in `thread` of process `pid`, the
/// `sequence`-th nest written (two descriptors may share an id): the id with every
/// character other than letters, digits, `.`, `_` and `-` replaced by `_`, cut to 80.
pub fn trace_file_name(id: &str, thread: u64, pid: u32, sequence: usize) -> String {
    let mut name: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    if name.is_empty() || name.starts_with('.') {
        name.insert(0, '_');
    }
    format!("{pid}-{sequence}-{name}-t{thread}.polytrace.json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{synthesize, Limits};

    fn site_trace(addresses: &[i64]) -> SiteTrace {
        let model = synthesize(addresses, &Limits::default()).unwrap();
        SiteTrace {
            site: 3,
            kind: SiteKind::Load,
            size: 8,
            line: 12,
            column: 5,
            name: "A".into(),
            accesses: model.len(),
            dropped: 0,
            truncated: false,
            search_budget_hit: model.budget_hit,
            chunks: 1,
            pieces: model.pieces.iter().map(StoredPiece::from_piece).collect(),
        }
    }

    fn compressed(sites: Vec<SiteTrace>) -> CompressedTrace {
        CompressedTrace {
            format: TRACE_FORMAT.into(),
            version: TRACE_FORMAT_VERSION,
            nest: "kernel:1:ab".into(),
            function: "kernel".into(),
            file: "k.c".into(),
            line: 10,
            module_hash: "ab".into(),
            modelled: true,
            thread: 0,
            entries: 1,
            chunk: 1 << 20,
            sites,
        }
    }

    /// A band `for i < 40: for j in max(0, i-3)..=min(39, i+3): A[i][j]` and squares.
    fn band_then_squares() -> Vec<i64> {
        let mut trace = Vec::new();
        for i in 0..40i64 {
            for j in (i - 3).max(0)..=(i + 3).min(39) {
                trace.push(8 * (40 * i + j));
            }
        }
        trace.extend((0..50i64).map(|k| k * k));
        trace
    }

    #[test]
    fn a_written_trace_reads_back_and_regenerates_its_addresses() {
        let addresses = band_then_squares();
        let trace = compressed(vec![site_trace(&addresses)]);
        let path = std::env::temp_dir().join(format!("polyrust-trace-{}.json", std::process::id()));
        trace.write(&path).unwrap();
        let read = CompressedTrace::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(read, trace);
        let model = read.site(3).unwrap().model().unwrap();
        let lower_faces = |p: &Piece| matches!(p, Piece::Nest(n) if (0..n.depth()).any(|l| !n.lower_faces(l).is_empty()));
        assert!(
            model.pieces.iter().any(lower_faces),
            "{}",
            crate::trace::render::readable(&model)
        );
        assert!(model.pieces.iter().any(|p| matches!(p, Piece::Literal(_))));
        assert_eq!(model.generate().collect::<Vec<_>>(), addresses);
    }

    fn problem(json: &str) -> String {
        CompressedTrace::parse(json.as_bytes(), Path::new("t.json"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn malformed_files_are_named_errors() {
        let good = compressed(vec![site_trace(&[8, 16, 24, 32])]).to_json();
        assert!(CompressedTrace::parse(good.as_bytes(), Path::new("t.json")).is_ok());
        assert!(problem("").contains("'t.json' is not a polyrust compressed trace"));
        assert!(problem("[1, 2]").contains("is not a polyrust compressed trace"));
        assert!(problem(r#"{"format": "polyrust-profile", "version": 1}"#)
            .contains("no \"format\": \"polyrust-trace\""));
        assert!(problem(&good.replace("\"version\":1", "\"version\":9"))
            .contains("has format version 9, this polyrust reads version 1"));
        assert!(problem(&good[..good.len() / 2]).contains("not a polyrust compressed trace"));
        assert!(problem(&good.replace("\"accesses\":4", "\"accesses\":5"))
            .contains("site 3: its pieces hold 4 addresses, not the 5 accesses it says"));
        assert!(problem(&good.replace("\"coeffs\":[8]", "\"coeffs\":[]"))
            .contains("site 3: piece 0: a nest of depth 0"));
        assert!(
            problem(&good.replace("\"upper\":[[[3]]]", "\"upper\":[[[3, 1]]]"))
                .contains("a face of level 0 with 2 numbers")
        );
        assert!(
            problem(&good.replace("\"upper\":[[[3]]]", "\"upper\":[[]]"))
                .contains("without upper face")
        );
        assert!(
            problem(&good.replace("\"upper\":[[[3]]]", "\"upper\":[[[1099511627777]]]"))
                .contains("outside the limits")
        );
        assert!(
            problem(&good.replace("\"kind\":\"load\"", "\"kind\":\"jump\""))
                .contains("unknown variant `jump`")
        );
        assert!(problem(&good.replace("\"thread\"", "\"threads\"")).contains("unknown field"));
    }

    #[test]
    fn file_names_keep_ids_readable_and_safe() {
        assert_eq!(
            trace_file_name("matmul:30:5eed", 1, 42, 0),
            "42-0-matmul_30_5eed-t1.polytrace.json"
        );
        assert_eq!(
            trace_file_name("../x/y", 0, 1, 2),
            "1-2-_.._x_y-t0.polytrace.json"
        );
        assert_eq!(trace_file_name("", 0, 1, 2), "1-2-_-t0.polytrace.json");
        assert!(trace_file_name(&"z".repeat(500), 0, 1, 0).len() < 120);
    }
}
