//! Differential test of folding against the static model (issue 13): for the loop nests
//! detection accepts, what the runtime folded from an instrumented run (domains of the
//! memory sites, flow dependences with their distance vectors) is what the model says
//! at the run's parameter values.
//!
//! `kernels.c` (matrix product, in-place 2-D stencil, triangular solve, 1-D recurrence,
//! data-dependent guard, histogram, time-iterated 1-D stencil) is compiled twice by
//! clang-22 at -O2 with the plugin, with the same flags but for polyrust's options:
//! - instrumented: `-polyrust-profile-generate -polyrust-instrument=accesses`, linked
//!   with the runtime and run at n = 7 (3 time steps), every kernel twice;
//! - modelled: `-polyrust-codegen=false -polyrust-export=DIR`, which writes each
//!   region's model as JSON, with each access's source location.
//!
//! Why two compiles see the same IR: polyrust runs at one point of clang's pipeline, and
//! everything before it is the same in both; in its first round on a function, both
//! compiles run detection first on that IR, then one instruments every nest (what
//! `modelled` records is that detection's verdict) and the other models and exports the
//! regions (with code generation off, nothing is rewritten before). Rather than trust
//! this, the comparison requires that every memory site of a modelled nest match an
//! access of the model and every access of the model match a site: a different IR would
//! break that bijection.
//!
//! What is compared, how sites are matched and what differences are legitimate:
//! `compare.rs`. The histogram (not affine) must not be modelled, and is not compared.
//! Needs the plugin (`target/<profile>/libpolyrust.so`, which `cargo build --release`
//! makes; cargo test does not) and the runtime's staticlib, as `runtime/tests/plugin.rs`.

mod compare;
mod folded_side;
mod static_side;

use std::path::{Path, PathBuf};
use std::process::Command;

use passes::isl::IslCtx;
use polyrust_rt::profile::nest::NestProfile;
use polyrust_rt::Profile;

use compare::{compare_function, Findings};
use static_side::StaticRegion;

/// One program: its source (from the repository's root), `-D` options and arguments.
struct Program {
    source: &'static str,
    defines: &'static [&'static str],
    args: &'static [&'static str],
    /// Entries of each kernel in one run.
    entries: u64,
    kernels: &'static [Kernel],
}

/// A kernel function, whether detection accepts its nests, and the values of its
/// regions' parameters in the run (clang names them after the C variables with
/// `-fno-discard-value-names`).
struct Kernel {
    function: &'static str,
    modelled: bool,
    params: &'static [(&'static str, i64)],
}

const fn kernel(function: &'static str, params: &'static [(&'static str, i64)]) -> Kernel {
    Kernel {
        function,
        modelled: true,
        params,
    }
}

/// The test's own kernels (every one run twice), then a slice of the corpus at small
/// sizes (time loops shortened): stencils in place and out of place, a promoted
/// matrix product, triangular solves and factorizations, a time-expanded table.
const PROGRAMS: &[Program] = &[
    Program {
        source: "passes/tests/fold_differential/kernels.c",
        defines: &[],
        args: &["7", "3"],
        entries: 2,
        kernels: &[
            kernel("matmul", &[("n", 7)]),
            kernel("seidel", &[("n", 7)]),
            kernel("trisolv", &[("n", 7)]),
            kernel("recurrence", &[("n", 7)]),
            kernel("guarded", &[("n", 6)]),
            Kernel {
                function: "histogram",
                modelled: false,
                params: &[],
            },
            kernel("jacobi", &[("steps", 3), ("n", 7)]),
        ],
    },
    Program {
        source: "test/kernels/stencil2d_5pt.c",
        defines: &["-DNMAX=16", "-DTSTEPS=6"],
        args: &["8"],
        entries: 1,
        kernels: &[kernel("jacobi5", &[("n", 8)])],
    },
    Program {
        source: "test/kernels/gs9pt_inplace.c",
        defines: &["-DTSTEPS=6"],
        args: &["7"],
        entries: 1,
        kernels: &[kernel("gauss_seidel9", &[("n", 7)])],
    },
    Program {
        source: "test/kernels/matmul_ijk_vla.c",
        defines: &[],
        args: &["6"],
        entries: 1,
        kernels: &[kernel("matmul", &[("n", 6)])],
    },
    Program {
        source: "test/kernels/fwd_subst_vla.c",
        defines: &[],
        args: &["6"],
        entries: 1,
        kernels: &[kernel("forward_subst", &[("n", 6), ("m", 6)])],
    },
    Program {
        source: "test/kernels/lu_nopivot_vla.c",
        defines: &[],
        args: &["6"],
        entries: 1,
        kernels: &[kernel("lu_inplace", &[("n", 6)])],
    },
    Program {
        source: "test/kernels/heat1d_texp.c",
        defines: &["-DSTEPS=8"],
        args: &["9"],
        entries: 1,
        kernels: &[kernel("heat", &[("n", 9), ("w", 17)])],
    },
];

/// `target/<profile>/`, the folder of the test executable's `deps/`.
fn target_profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable has a path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test executable lives in target/<profile>/deps/")
        .to_path_buf()
}

fn plugin() -> PathBuf {
    let path = std::env::var_os("POLYRUST_PLUGIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_profile_dir().join("libpolyrust.so"));
    assert!(
        path.exists(),
        "plugin {} not found: build it with `cargo build --release` (cargo test does not \
         build the plugin's cdylib), or point POLYRUST_PLUGIN at it",
        path.display()
    );
    path
}

/// The runtime's staticlib with the C ABI: `target/<profile>/libpolyrust_rt.a` (what
/// `cargo build` makes), else the newest one cargo left in `deps/` that defines it.
fn runtime() -> PathBuf {
    let dir = target_profile_dir();
    let mut candidates = vec![dir.join("libpolyrust_rt.a")];
    if let Ok(entries) = std::fs::read_dir(dir.join("deps")) {
        candidates.extend(entries.flatten().map(|e| e.path()).filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libpolyrust_rt") && n.ends_with(".a"))
        }));
    }
    let symbol = b"polyrust_rt_nest_enter";
    candidates
        .into_iter()
        .filter(|p| {
            std::fs::read(p)
                .map(|bytes| bytes.windows(symbol.len()).any(|w| w == symbol))
                .unwrap_or(false)
        })
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .unwrap_or_else(|| {
            panic!(
                "no libpolyrust_rt.a with the C ABI in {}: build it with `cargo build \
                 --release -p polyrust-runtime`",
                dir.display()
            )
        })
}

fn clang() -> PathBuf {
    let bin =
        std::env::var_os("POLYRUST_LLVM_BIN").unwrap_or_else(|| "/usr/lib/llvm-22/bin".into());
    let clang = PathBuf::from(bin).join("clang");
    assert!(
        clang.exists(),
        "{} missing: run scripts/setup",
        clang.display()
    );
    clang
}

fn run(command: &mut Command, what: &str) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Compiles and runs one program in `dir`; returns the profile and the export folder.
fn record(program: &Program, dir: &Path) -> (Profile, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let source = root.join(program.source);
    let plugin = plugin();
    // Identical for both compiles up to polyrust's options.
    let common = |command: &mut Command| {
        command
            .args(["-O2", "-g", "-fno-discard-value-names"])
            .args(program.defines)
            .arg("-I")
            .arg(root.join("test/kernels"))
            .arg(format!("-fpass-plugin={}", plugin.display()))
            .arg(&source);
    };
    let export = dir.join("export");
    let mut modelled = Command::new(clang());
    common(&mut modelled);
    modelled
        .args(["-mllvm", "-polyrust-codegen=false", "-mllvm"])
        .arg(format!("-polyrust-export={}", export.display()))
        .args(["-c", "-o"])
        .arg(dir.join("kernels.o"));
    run(
        &mut modelled,
        &format!("compiling {} with -polyrust-export", program.source),
    );

    let binary = dir.join("program");
    let profile = dir.join("program.polyprof.json");
    let mut instrumented = Command::new(clang());
    common(&mut instrumented);
    instrumented
        .args(["-mllvm", "-polyrust-profile-generate", "-mllvm"])
        .arg("-polyrust-instrument=accesses")
        .arg(runtime())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&binary);
    run(
        &mut instrumented,
        &format!("compiling {} instrumented", program.source),
    );
    run(
        // No budget of folded events: each folded entry is compared with the whole domain.
        Command::new(&binary)
            .args(program.args)
            .env("POLYRUST_PROFILE_FILE", &profile)
            .env("POLYRUST_FOLD_EVENTS", u64::MAX.to_string()),
        &format!("running the instrumented {}", program.source),
    );
    let profile = Profile::read(&profile).unwrap_or_else(|e| panic!("{e}"));
    (profile, export)
}

/// The exported regions of `function` (files `<function>_<block>.json`).
fn regions_of(
    ctx: &IslCtx,
    export: &Path,
    function: &str,
    values: &[(&str, i64)],
) -> Vec<StaticRegion> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(export)
        .unwrap_or_else(|e| panic!("{}: {e}", export.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{function}_")))
        })
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| StaticRegion::read(ctx, p, values).unwrap_or_else(|e| panic!("{e}")))
        .filter(|region| region.spec.function == function)
        .collect()
}

/// Compares every kernel of `program` into `findings`.
fn compare_program(
    ctx: &IslCtx,
    program: &Program,
    profile: &Profile,
    export: &Path,
    findings: &mut Findings,
) {
    for &Kernel {
        function,
        modelled,
        params: values,
    } in program.kernels
    {
        let nests: Vec<&NestProfile> = profile
            .nests
            .iter()
            .filter(|n| n.function == function)
            .collect();
        if nests.is_empty() {
            findings
                .disagreements
                .push(format!("{function}: no nest in the profile"));
            continue;
        }
        for nest in &nests {
            if nest.modelled != modelled {
                findings.disagreements.push(format!(
                    "{}: modelled is {}, the test expects {modelled}",
                    nest.id, nest.modelled
                ));
            }
            if nest.entries != program.entries || nest.folded_entries != program.entries {
                findings.disagreements.push(format!(
                    "{}: {} entries ({} folded), {} expected",
                    nest.id, nest.entries, nest.folded_entries, program.entries
                ));
            }
            if nest.shadow_full || nest.dependences_dropped > 0 {
                findings.disagreements.push(format!(
                    "{}: the profile's dependences are incomplete",
                    nest.id
                ));
            }
        }
        let regions = regions_of(ctx, export, function, values);
        if !modelled {
            if !regions.is_empty() {
                findings.disagreements.push(format!(
                    "{function}: not modelled, yet a region was exported"
                ));
            }
            findings.notes.push(format!(
                "{function}: not modelled (detection rejects it): not compared"
            ));
            continue;
        }
        let modelled_nests: Vec<&NestProfile> = nests.into_iter().filter(|n| n.modelled).collect();
        compare_function(ctx, &modelled_nests, &regions, findings);
    }
}

/// What was compared, explained and found, one line each.
fn summary(findings: &Findings) -> String {
    let mut summary = String::new();
    for line in &findings.compared {
        summary.push_str(&format!("compared: {line}\n"));
    }
    for line in &findings.notes {
        summary.push_str(&format!("note: {line}\n"));
    }
    for line in &findings.disagreements {
        summary.push_str(&format!("DISAGREEMENT: {line}\n"));
    }
    summary
}

#[test]
fn folded_domains_and_flow_dependences_agree_with_the_static_model() {
    let ctx = IslCtx::new(None).expect("an isl context");
    let mut findings = Findings::default();
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fold-differential");
    let _ = std::fs::remove_dir_all(&scratch);
    for program in PROGRAMS {
        let name = Path::new(program.source)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("program");
        let dir = scratch.join(name);
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let (profile, export) = record(program, &dir);
        compare_program(&ctx, program, &profile, &export, &mut findings);
    }
    let summary = summary(&findings);
    println!("{summary}");
    assert!(
        findings.disagreements.is_empty(),
        "folding and the static model disagree:\n{summary}"
    );
    // The test compared something of every kind it promises.
    let said = |what: &str| findings.compared.iter().any(|l| l.contains(what));
    for what in [
        "matmul:0:",
        "jacobi5:0:",
        "gauss_seidel9:0:",
        "forward_subst:0:",
        "lu_inplace:0:",
        "heat:0:",
        "seidel:0:",
        "trisolv:0:",
        "recurrence:0:",
        "guarded:0:",
        "jacobi:0:",
        "domain of",
        "pairs agree",
        "a data-dependent guard",
    ] {
        assert!(said(what), "nothing compared for '{what}':\n{summary}");
    }
}
