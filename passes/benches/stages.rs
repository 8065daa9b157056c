//! Compile-time benchmarks of the stages after detection, so that a change that makes
//! one of them slower shows: `cargo bench -p polyrust-passes` (see README.md).
//!
//! Each region is a model file in `benches/regions/` that `-polyrust-export` wrote for one
//! of the corpus' largest regions (`regions/README.md` says which and how to refresh
//! them); `model::json::import_spec` reads it back without LLVM. Every stage is measured
//! on its own, on what the stages before it produce (computed once, untimed), as
//! `<stage>/<region>`:
//! - `build`: reading the file into a spec and `Scop::build`;
//! - `deps`: `Dependences::compute`, with the reductions the driver hands over;
//! - `schedule`: isl's scheduler (`transform::schedule::compute`, as `decide` calls it);
//! - `check`: the check of its result against the dependences that follows in `decide`
//!   (`Dependences::respects`, often costlier than the scheduler);
//! - `tiling`: SICA's tile sizes and the tiling of the permutable bands
//!   (`transform::schedule::tile`, as `decide` calls it; on the scheduler's own band
//!   order, before the cost model's choice of the innermost loop);
//! - `ast`: isl's AST generation of the tiled schedule, as `codegen::generate` calls it
//!   (also for regions whose schedule the driver would keep, so every region has one).
//!
//! Runs with the driver's default options, two exceptions: no isl operation bound (a
//! stage that gets costlier shows as slower rather than as stopping at the bound), and
//! SICA's documented default machine (32 KiB L1, 256 KiB L2, 128-bit SIMD) rather than the
//! host's, so tile sizes and times compare across machines. Each iteration starts the
//! region's operation count (`IslCtx::start_region`) as the driver does.
//! `POLYRUST_BENCH_REGIONS=DIR` measures the model files in DIR instead.

use std::fmt;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use passes::deps::{Dependences, DepsError, DepsOptions};
use passes::isl::{ast, IslCtx, Schedule};
use passes::model::{json, Scop};
use passes::options::Options;
use passes::transform;
use passes::transform::hardware::{ExplicitHardware, Hardware, TargetHardware};

/// Criterion's least number of samples.
const SAMPLES: usize = 10;
const WARM_UP: Duration = Duration::from_millis(500);
const MEASUREMENT: Duration = Duration::from_secs(2);
/// A stage whose one run takes longer than this is sampled flat (the same number of runs
/// per sample) rather than with criterion's 1, 2, ... 10 runs: a stage of a second or more
/// then costs one run per sample, and criterion warns that it cannot complete the samples
/// in `MEASUREMENT` (expected, not a problem).
const SLOW_STAGE: Duration = Duration::from_millis(20);

/// One model file to measure.
struct Region {
    /// The file name without `.json`.
    name: String,
    path: PathBuf,
    text: String,
}

/// Why a region or one of its stages cannot be measured.
#[derive(Debug)]
struct BenchError {
    /// The model file.
    file: PathBuf,
    /// The stage that failed, or what was being read.
    stage: &'static str,
    message: String,
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {}",
            self.file.display(),
            self.stage,
            self.message
        )
    }
}

/// The model files of `benches/regions/` (or of `$POLYRUST_BENCH_REGIONS`), by name.
fn regions() -> Result<Vec<Region>, BenchError> {
    let dir = std::env::var_os("POLYRUST_BENCH_REGIONS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/regions"));
    let error = |file: &Path, message: String| BenchError {
        file: file.to_path_buf(),
        stage: "reading the regions",
        message,
    };
    let entries = std::fs::read_dir(&dir).map_err(|e| error(&dir, e.to_string()))?;
    let mut regions = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| error(&dir, e.to_string()))?.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).map_err(|e| error(&path, e.to_string()))?;
        regions.push(Region { name, path, text });
    }
    if regions.is_empty() {
        return Err(error(
            &dir,
            "no model file (*.json) in this directory".into(),
        ));
    }
    regions.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(regions)
}

/// The file's region as its model, and the dependence options the driver derives from
/// its spec under `options`.
fn build(
    ctx: &IslCtx,
    region: &Region,
    options: &Options,
) -> Result<(Scop, DepsOptions), BenchError> {
    let fail = |message: String| BenchError {
        file: region.path.clone(),
        stage: "build",
        message,
    };
    let spec = json::import_spec(&region.text, &region.path).map_err(|e| fail(e.to_string()))?;
    let scop = Scop::build(ctx, &spec).map_err(|e| fail(e.to_string()))?;
    Ok((
        scop,
        DepsOptions::for_region(&spec, options.allow_reassociation),
    ))
}

/// Whether `schedule` respects the dependences, as `decide` checks it before tiling
/// (decide keeps the region when it does not).
fn check(deps: &Dependences, schedule: &Schedule) -> Result<bool, DepsError> {
    let map = schedule.get_map().map_err(|error| DepsError::Isl {
        region: deps.region.clone(),
        step: "taking the map of the new schedule".into(),
        error,
    })?;
    deps.respects(&map)
}

/// Runs `stage` once (untimed) for its result and its duration, which sets how it is
/// sampled; then measures it as `<stage>/<region>`. An error is reported with the file
/// and the stage, and the region's later stages are not measured.
fn measure<T, E: fmt::Display>(
    c: &mut Criterion,
    ctx: &IslCtx,
    region: &Region,
    stage: &'static str,
    mut run: impl FnMut() -> Result<T, E>,
) -> Result<T, BenchError> {
    ctx.start_region();
    let start = Instant::now();
    let result = run().map_err(|e| BenchError {
        file: region.path.clone(),
        stage,
        message: e.to_string(),
    })?;
    let once = start.elapsed();
    let mut group = c.benchmark_group(stage);
    group
        .sample_size(SAMPLES)
        .warm_up_time(WARM_UP)
        .measurement_time(MEASUREMENT);
    if once > SLOW_STAGE {
        group.sampling_mode(SamplingMode::Flat);
    }
    group.bench_function(region.name.as_str(), |b| {
        b.iter(|| {
            ctx.start_region();
            black_box(run())
        })
    });
    group.finish();
    Ok(result)
}

/// Every stage of one region, each on the results of the ones before.
fn measure_region(c: &mut Criterion, region: &Region) -> Result<(), BenchError> {
    let ctx = IslCtx::new(None).map_err(|e| BenchError {
        file: region.path.clone(),
        stage: "creating the isl context",
        message: e.to_string(),
    })?;
    let options = Options::default();
    let (scop, deps_options) = measure(c, &ctx, region, "build", || build(&ctx, region, &options))?;
    let deps = measure(c, &ctx, region, "deps", || {
        Dependences::compute(&scop, &deps_options)
    })?;
    let new = measure(c, &ctx, region, "schedule", || {
        transform::schedule::compute(&scop, &deps)
    })?;
    let respected = measure(c, &ctx, region, "check", || check(&deps, &new))?;
    let hardware = Hardware::resolve(
        &ExplicitHardware::default(),
        None,
        &TargetHardware::default(),
    );
    let locality =
        transform::reuse::analyse(&scop, 3, hardware.l2_bytes.value).map_err(|e| BenchError {
            file: region.path.clone(),
            stage: "locality",
            message: e.to_string(),
        })?;
    let dependences = deps.all().map_err(|e| BenchError {
        file: region.path.clone(),
        stage: "dependences",
        message: e.to_string(),
    })?;
    let transform::schedule::Tiled {
        schedule: tiled,
        described,
        ..
    } = measure(c, &ctx, region, "tiling", || {
        transform::schedule::tile(
            &new,
            &scop,
            &dependences,
            &transform::schedule::ScheduleSettings::new(&options),
            &hardware,
            &locality,
        )
    })?;
    measure(c, &ctx, region, "ast", || {
        ast::generate(&scop.assumed_context, &tiled)
    })?;
    eprintln!(
        "{}: {} statements, {} accesses; schedule {}; {}",
        region.name,
        scop.statements.len(),
        scop.statements
            .iter()
            .map(|s| s.accesses.len())
            .sum::<usize>(),
        if respected {
            "respects the dependences"
        } else {
            "does not respect the dependences (the driver keeps the region)"
        },
        if described.is_empty() {
            "no band tiled".to_string()
        } else {
            described.join("; ")
        }
    );
    Ok(())
}

fn stages(c: &mut Criterion) {
    let regions = match regions() {
        Ok(regions) => regions,
        Err(e) => {
            eprintln!("polyrust benches: {e}");
            std::process::exit(1);
        }
    };
    let mut failed = false;
    for region in &regions {
        if let Err(e) = measure_region(c, region) {
            eprintln!("polyrust benches: {e}; the region's later stages are not measured");
            failed = true;
        }
    }
    if failed {
        std::process::exit(1);
    }
}

criterion_group! {
    name = benches;
    // A tenth of criterion's default resamples: the statistics of ten samples do not
    // need more, and they run on one thread.
    config = Criterion::default().nresamples(10_000);
    targets = stages
}
criterion_main!(benches);
