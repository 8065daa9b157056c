//! End to end for compressed traces: `tests/trace/kernels.c` compiled with clang-22,
//! the plugin and `-polyrust-instrument=accesses`, linked with the staticlib cargo
//! built for this run and with `tests/trace/raw-addresses.c` wrapped around
//! `polyrust_rt_access` (it keeps every raw address stream apart), runs with
//! `POLYRUST_TRACE`. `polyrust-prof trace --expand` must print, for every site of every
//! nest, exactly the raw stream; the load of `A[j][i]` must also equal the addresses
//! the program computes itself; the scattered histogram is kept as literal
//! addresses, the triangle as one nest; `POLYRUST_TRACE_MB=0` truncates every site.
//!
//! Needs the plugin (`cargo build --release`, or `POLYRUST_PLUGIN`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use polyrust_rt::trace::file::CompressedTrace;
use polyrust_rt::trace::Piece;

mod common;

use common::{clang, plugin, raw_address_recorder, raw_addresses, scratch};

/// Builds `tests/trace/kernels.c` in `dir`.
fn build(dir: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let program = dir.join("kernels");
    let output = Command::new(clang())
        .args(["-O2", "-g"])
        .arg(format!("-fpass-plugin={}", plugin().display()))
        .args(["-mllvm", "-polyrust-profile-generate"])
        .args(["-mllvm", "-polyrust-instrument=accesses"])
        .arg(manifest.join("tests/trace/kernels.c"))
        .arg(raw_address_recorder(dir))
        .arg("-Wl,--wrap=polyrust_rt_access")
        .arg(common::staticlib_defining("polyrust_rt_nest_enter"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&program)
        .output()
        .expect("clang runs");
    common::succeeded(&output, format_args!("compiling kernels.c failed"));
    program
}

/// Runs the program with traces into `dir/traces` and raw streams into `dir/raw`.
fn run(program: &Path, dir: &Path, trace_mb: Option<&str>) -> Vec<PathBuf> {
    let (traces, raw) = (dir.join("traces"), dir.join("raw"));
    for folder in [&traces, &raw] {
        let _ = std::fs::remove_dir_all(folder);
        std::fs::create_dir_all(folder).unwrap();
    }
    let mut command = Command::new(program);
    command
        .arg("40")
        .arg(dir.join("addresses.txt"))
        .env("POLYRUST_TRACE", &traces)
        .env("RAW_DIR", &raw)
        .env("POLYRUST_PROFILE_FILE", dir.join("profile.json"))
        .env_remove("POLYRUST_TRACE_MB");
    if let Some(mb) = trace_mb {
        command.env("POLYRUST_TRACE_MB", mb);
    }
    let output = command.output().expect("the program starts");
    common::succeeded(&output, format_args!("the program failed"));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "sum 548 hits 160\n"
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&traces)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files
}

fn prof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyrust-prof"))
        .args(args)
        .output()
        .expect("polyrust-prof runs")
}

fn expanded(file: &Path, site: u32) -> Vec<i64> {
    let output = prof(&[
        "trace",
        "--expand",
        "--site",
        &site.to_string(),
        file.to_str().unwrap(),
    ]);
    common::succeeded(&output, format_args!("polyrust-prof trace --expand failed"));
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| line.parse().expect("one decimal address per line"))
        .collect()
}

fn trace_of<'a>(
    traces: &'a [(PathBuf, CompressedTrace)],
    function: &str,
) -> &'a (PathBuf, CompressedTrace) {
    traces
        .iter()
        .find(|(_, t)| t.function == function)
        .unwrap_or_else(|| panic!("no trace of {function}"))
}

#[test]
fn expanded_traces_are_the_raw_address_streams() {
    let dir = scratch("trace-end-to-end");
    let program = build(&dir);
    let files = run(&program, &dir, None);
    let traces: Vec<(PathBuf, CompressedTrace)> = files
        .iter()
        .map(|path| {
            (
                path.clone(),
                CompressedTrace::read(path).expect("the trace reads back"),
            )
        })
        .collect();
    let mut sites = 0;
    for (path, trace) in &traces {
        assert!(path.to_string_lossy().ends_with(".polytrace.json"));
        for site in &trace.sites {
            assert!(!site.truncated);
            let raw = raw_addresses(&dir.join("raw"), &trace.nest, site.site);
            assert_eq!(site.accesses, raw.len() as u64);
            assert_eq!(
                expanded(path, site.site),
                raw,
                "site {} of {} does not regenerate its raw stream",
                site.site,
                trace.nest
            );
            sites += 1;
        }
    }
    assert!(sites >= 7, "{sites} sites");

    // The load of A[j][i], both entries, is what the program computed itself; the
    // triangle is one nest per site.
    let (path, transpose) = trace_of(&traces, "transpose_lower");
    assert_eq!((transpose.entries, transpose.modelled), (2, true));
    let load = transpose
        .sites
        .iter()
        .find(|s| s.name == "A")
        .expect("the load of A");
    let computed: Vec<i64> = std::fs::read_to_string(dir.join("addresses.txt"))
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    assert_eq!(computed.len(), 2 * 40 * 41 / 2);
    assert_eq!(expanded(path, load.site), computed);
    for site in &transpose.sites {
        let model = site.model().unwrap();
        assert_eq!(model.pieces.len(), 1, "site {}", site.site);
        assert!(matches!(model.pieces[0], Piece::Nest(_)));
    }

    // h[idx[i]]: no nest, the addresses themselves; idx[i]: one nest.
    let (path, histogram) = trace_of(&traces, "histogram");
    for site in &histogram.sites {
        let model = site.model().unwrap();
        let literal = model.pieces.iter().any(|p| matches!(p, Piece::Literal(_)));
        assert_eq!(
            literal,
            site.name == "h",
            "site {} ({})",
            site.site,
            site.name
        );
    }
    let stats = prof(&["trace", "--expand", "--stats", path.to_str().unwrap()]);
    assert!(stats.status.success());
    let stats = String::from_utf8_lossy(&stats.stdout);
    assert!(stats.contains("nest histogram:"), "{stats}");
    assert!(stats.contains("load   idx"), "{stats}");
    assert!(stats.contains("total: 3 sites, 480 accesses"), "{stats}");

    // Several sites: --site is needed, and the message lists them.
    let output = prof(&["trace", "--expand", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains("choose one with --site N"), "{error}");
    assert!(error.contains("(load h at line 25)"), "{error}");
}

#[test]
fn a_trace_past_polyrust_trace_mb_says_it_is_truncated() {
    let dir = scratch("trace-truncated");
    let program = build(&dir);
    let files = run(&program, &dir, Some("0"));
    assert!(!files.is_empty());
    for path in &files {
        let trace = CompressedTrace::read(path).unwrap();
        for site in &trace.sites {
            let raw = raw_addresses(&dir.join("raw"), &trace.nest, site.site);
            assert!(site.truncated && site.accesses == 0, "{site:?}");
            assert_eq!(site.dropped, raw.len() as u64);
        }
        if !trace.sites.is_empty() {
            let stats = prof(&["trace", "--expand", "--stats", path.to_str().unwrap()]);
            let stats = String::from_utf8_lossy(&stats.stdout);
            assert!(
                stats.contains("more not recorded (POLYRUST_TRACE_MB)"),
                "{stats}"
            );
        }
    }
}

#[test]
fn unreadable_and_malformed_traces_are_clear_errors() {
    let dir = scratch("trace-malformed");
    let error = |contents: Option<&str>| {
        let path = dir.join("t.polytrace.json");
        let _ = std::fs::remove_file(&path);
        if let Some(contents) = contents {
            std::fs::write(&path, contents).unwrap();
        }
        let output = prof(&["trace", "--expand", "--stats", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(stderr.starts_with("polyrust-prof: error: "), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        stderr
    };
    assert!(error(None).contains("cannot read compressed trace"));
    assert!(error(Some("8\n16\n")).contains("is not a polyrust compressed trace"));
    assert!(
        error(Some(r#"{"format":"polyrust-trace","version":2}"#)).contains("has format version 2")
    );
    let damaged = r#"{"format":"polyrust-trace","version":1,"nest":"n","function":"f",
        "file":"","line":0,"module_hash":"","modelled":true,"thread":0,"entries":1,
        "chunk":64,"sites":[{"site":1,"kind":"load","size":8,"line":3,"column":4,
        "name":"A","accesses":3,"dropped":0,"truncated":false,"search_budget_hit":false,
        "chunks":1,"pieces":[{"nest":{"count":3,"base":0,"coeffs":[8,1],
        "upper":[[[2]],[[0]]],"lower":[[],[]]}}]}]}"#;
    assert!(error(Some(damaged)).contains("site 1: piece 0: a face of level 1 with 1 numbers"));
    let options = prof(&["trace", "--expand", "--max-depth", "3", "x"]);
    assert!(String::from_utf8_lossy(&options.stderr).contains("not for --expand"));
    let site_alone = prof(&["trace", "--site", "3", "x"]);
    assert!(String::from_utf8_lossy(&site_alone.stderr).contains("add --expand"));
}
