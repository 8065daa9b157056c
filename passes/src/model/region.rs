//! Modelling one detected region of a function: its `Scop` built under the region's
//! operation bound, exported as JSON (`-polyrust-export`) and given an imported schedule
//! (`-polyrust-import`) when asked. A region whose model cannot be built is left alone
//! with a remark saying why; a bad import file is an error naming the file and field.
//!
//! The only part of `model` that sees the function: it needs its analyses for remarks
//! and diagnostics.

use std::path::{Path, PathBuf};

use crate::detect::{DetectedRegion, Detection};
use crate::isl::IslCtx;
use crate::llvm::{FunctionAnalyses, RemarkAt, RemarkKind, Severity, Stage};
use crate::report::left_unchanged;

use super::{json, Scop};

/// One region and its model, when it could be built.
pub struct Modelled<'d, 'f> {
    /// The region as detection found it.
    pub region: &'d DetectedRegion<'f>,
    /// Its model; `None` when it could not be built (said in a remark).
    pub scop: Option<Scop>,
    /// The schedule came from -polyrust-import.
    pub imported: bool,
}

/// Where models go and come from, and the bound a model is built under.
#[derive(Clone, Copy)]
pub struct ModelSettings<'a> {
    /// `-polyrust-export`: where each region's model is written.
    pub export_dir: Option<&'a Path>,
    /// `-polyrust-import`: where region schedules are read from.
    pub import_dir: Option<&'a Path>,
    /// The operation bound, for the remark when a model needs more.
    pub max_operations: Option<u64>,
}

impl<'a> ModelSettings<'a> {
    /// The settings `options` give.
    pub fn new(options: &'a crate::options::Options) -> Self {
        ModelSettings {
            export_dir: options.export_dir.as_deref(),
            import_dir: options.import_dir.as_deref(),
            max_operations: options.max_operations,
        }
    }
}

/// The isl context for one function's regions, under the operation bound; `None`
/// when there is nothing to model or isl cannot start (said in a warning).
pub fn isl_context(
    fa: &FunctionAnalyses<'_>,
    detection: &Detection<'_>,
    max_operations: Option<u64>,
) -> Option<IslCtx> {
    if detection.regions.is_empty() {
        return None;
    }
    match IslCtx::new(max_operations) {
        Ok(ctx) => Some(ctx),
        Err(e) => {
            fa.diagnose(
                Severity::Warning,
                &format!("cannot start isl ({e}); no region is modelled"),
            );
            None
        }
    }
}

/// The model of every detected region (see `model_region`).
pub fn model_regions<'d, 'f>(
    fa: &FunctionAnalyses<'f>,
    ctx: &IslCtx,
    detection: &'d Detection<'f>,
    settings: ModelSettings<'_>,
) -> Vec<Modelled<'d, 'f>> {
    detection
        .regions
        .iter()
        .map(|region| model_region(fa, ctx, region, settings))
        .collect()
}

/// The isl model of one detected region, exported and given an imported schedule when
/// asked.
pub fn model_region<'d, 'f>(
    fa: &FunctionAnalyses<'f>,
    ctx: &IslCtx,
    region: &'d DetectedRegion<'f>,
    settings: ModelSettings<'_>,
) -> Modelled<'d, 'f> {
    ctx.start_region();
    let built = {
        let _time = fa.time(Stage::Model);
        Scop::build(ctx, &region.spec)
    };
    let scop = match built {
        Ok(scop) => Some(scop),
        Err(e) => {
            let (name, why) = if e.is_operation_limit() {
                let bound = settings.max_operations.unwrap_or(0);
                let why = format!("the polyhedral model needs more than {bound} isl operations; raise -polyrust-max-operations");
                ("OperationLimit", why)
            } else {
                let why = format!(
                    "its model could not be built: {}",
                    region.spec.strip_name(&e.to_string())
                );
                ("ModelFailed", why)
            };
            let at = region_place(region);
            fa.remark(RemarkKind::Missed, name, at, &left_unchanged(region, &why));
            None
        }
    };
    let mut imported = false;
    let scop = scop.map(|mut scop| {
        if let Some(dir) = settings.import_dir {
            imported = import(fa, &mut scop, &region.spec.name, dir);
        }
        if let Some(dir) = settings.export_dir {
            export(fa, &scop, &region.spec.name, dir);
        }
        scop
    });
    Modelled {
        region,
        scop,
        imported,
    }
}

/// Where remarks about a region point: its first loop.
pub fn region_place<'f>(region: &DetectedRegion<'f>) -> RemarkAt<'f> {
    region
        .top
        .first()
        .map_or_else(RemarkAt::default, |l| RemarkAt::loop_start(*l))
}

/// `dir/<function>___<block>.json`: one file per region, named so it is stable across
/// compilations of the same source.
pub fn json_path(dir: &Path, region_name: &str) -> PathBuf {
    let file: String = region_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{file}.json"))
}

fn export(fa: &FunctionAnalyses<'_>, scop: &Scop, name: &str, dir: &Path) {
    let path = json_path(dir, name);
    let written =
        std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, json::export(scop)));
    if let Err(e) = written {
        fa.diagnose(
            Severity::Error,
            &format!("-polyrust-export: cannot write '{}': {e}", path.display()),
        );
    }
}

/// Reads the region's schedule from `dir` if a file for it is there; true if it was.
fn import(fa: &FunctionAnalyses<'_>, scop: &mut Scop, name: &str, dir: &Path) -> bool {
    let path = json_path(dir, name);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        // No file for this region: it keeps its own schedule.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        Err(e) => {
            fa.diagnose(
                Severity::Error,
                &format!("-polyrust-import: cannot read '{}': {e}", path.display()),
            );
            return false;
        }
    };
    match json::import_schedule(scop, &text, &path) {
        Ok(()) => true,
        Err(e) => {
            fa.diagnose(Severity::Error, &format!("-polyrust-import: {e}"));
            false
        }
    }
}
