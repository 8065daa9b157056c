//! End to end for the accesses ABI, without the pass: `tests/accesses/kernels.c` calls
//! `polyrust_rt_nest_enter` / `polyrust_rt_access` by hand for a matmul and a histogram
//! through an index array; built with clang-22 against the header and the staticlib
//! cargo built for this run, it writes a profile at exit. The test checks the folded
//! domains, labels, strides and dependences, the verdicts of `polyrust-prof report`,
//! and that the HTML report renders in headless chromium.
//!
//! `overhead_of_folding_a_matmul` (ignored by default: it times) prints the figures of
//! issue 13: `cargo test --release -p polyrust-runtime --test accesses_end_to_end --
//! --ignored --nocapture`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use polyrust_rt::profile::nest::{NestProfile, SiteKind};
use polyrust_rt::Profile;

mod common;

use common::{clang, scratch};

fn staticlib() -> PathBuf {
    common::staticlib_defining("polyrust_rt_nest_enter")
}

/// Builds `kernels.c` in `dir` (`instrument`: with the runtime calls).
fn build(dir: &Path, instrument: bool) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/accesses/kernels.c");
    let program = dir.join(if instrument {
        "kernels"
    } else {
        "kernels-plain"
    });
    let output = Command::new(clang())
        .arg("-O2")
        .arg(format!("-DINSTRUMENT={}", u8::from(instrument)))
        .arg(&source)
        .arg("-I")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("include"))
        .arg(staticlib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&program)
        .output()
        .expect("clang runs");
    common::succeeded(&output, format_args!("compiling kernels.c failed"));
    program
}

/// Runs `program n repetitions` writing the profile to `profile`; returns its output.
fn run(program: &Path, profile: &Path, n: u32, repetitions: u32) -> Output {
    let output = Command::new(program)
        .args([n.to_string(), repetitions.to_string()])
        .env("POLYRUST_PROFILE_FILE", profile)
        .output()
        .expect("the test program starts");
    common::succeeded(&output, format_args!("the test program failed"));
    output
}

fn seconds(output: &Output) -> f64 {
    let text = String::from_utf8_lossy(&output.stdout);
    text.split_whitespace()
        .skip_while(|w| *w != "seconds")
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no time in {text}"))
}

fn prof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyrust-prof"))
        .args(args)
        .output()
        .expect("polyrust-prof runs")
}

fn nest<'a>(profile: &'a Profile, function: &str) -> &'a NestProfile {
    profile
        .nests
        .iter()
        .find(|n| n.function == function)
        .unwrap_or_else(|| panic!("no nest {function}"))
}

/// The profile of `kernels 16 2` (matmul of 16×16 twice, histogram of 64 twice).
fn recorded(dir: &Path) -> PathBuf {
    let program = build(dir, true);
    let path = dir.join("kernels.polyprof.json");
    let output = run(&program, &path, 16, 2);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("nest 'bad:1:5eed' ignored: site 0 has depth 5, more than the nest's 1"),
        "{stderr}"
    );
    path
}

#[test]
fn matmul_and_histogram_fold_to_the_expected_domains_labels_and_dependences() {
    let dir = scratch("accesses-end-to-end");
    let path = recorded(&dir);
    let profile = Profile::read(&path).expect("the profile reads back");
    assert_eq!(profile.version, 2);
    assert_eq!(profile.nests.len(), 2, "the bad descriptor is ignored");

    let mm = nest(&profile, "matmul");
    assert_eq!((mm.entries, mm.modelled, mm.line), (2, true, 30));
    // Load A[i][k]: one piece over both entries, 0 ≤ i, j, k ≤ 15; address 8k + 128i.
    let a = &mm.sites[5];
    assert_eq!((a.kind, a.name.as_str()), (SiteKind::Load, "A"));
    assert_eq!(a.stream.events, 2 * 16 * 16 * 16);
    assert_eq!(a.stream.pieces.len(), 1);
    let piece = &a.stream.pieces[0];
    assert_eq!(
        (piece.lower.clone(), piece.upper.clone()),
        (vec![0, 0, 0, 0], vec![1, 15, 15, 15])
    );
    assert_eq!(
        piece.labels[0].coefficients,
        vec![Some(0), Some(128), Some(0), Some(8)]
    );
    assert_eq!(a.strides, vec![Some(0), Some(128), Some(0), Some(8)]);
    assert_eq!(
        mm.sites[6].strides,
        vec![Some(0), Some(0), Some(8), Some(128)]
    );
    // The loop k: one event per iteration, on the same domain.
    assert_eq!(mm.sites[3].stream.events, 2 * 16 * 16 * 16);
    assert!(mm.sites[3].stream.pieces.len() == 1 && mm.sites[3].stream.pieces[0].is_affine());

    // Store C (in k) → load C: distance (entry, i, j, k) = (0, 0, 0, 1) on 1 ≤ k ≤ 15.
    let carried = mm
        .dependences
        .iter()
        .find(|d| (d.source, d.sink, d.across_entries) == (7, 4, false))
        .expect("store C -> load C");
    assert_eq!(
        carried.distances,
        vec![vec![Some(0), Some(0), Some(0), Some(1)]]
    );
    assert_eq!(carried.stream.pieces[0].lower, vec![0, 0, 0, 1]);
    assert_eq!(carried.stream.pieces[0].upper, vec![1, 15, 15, 15]);
    // C = 0 (in j) → load C at k = 0: loop-independent over (entry, i, j).
    let init = mm
        .dependences
        .iter()
        .find(|d| (d.source, d.sink) == (2, 4))
        .expect("store C = 0 -> load C");
    assert_eq!(init.distances, vec![vec![Some(0), Some(0), Some(0)]]);
    assert_eq!(
        mm.dependences.len(),
        2,
        "A and B are never written: {:?}",
        mm.dependences
    );

    let hist = nest(&profile, "histogram");
    assert_eq!(hist.sites[1].strides, vec![Some(0), Some(4)], "idx[i]");
    // The same scattered addresses in both entries: stride 0 along the entry, ⊤ along i.
    assert_eq!(
        hist.sites[2].strides,
        vec![Some(0), None],
        "h[idx[i]] is not affine"
    );
    assert!(
        hist.dependences.iter().any(|d| d.across_entries),
        "h persists across entries"
    );

    // The report's verdicts.
    let html = dir.join("report.html");
    let output = prof(&[
        "report",
        path.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    let report = String::from_utf8_lossy(&output.stdout);
    common::succeeded(&output, format_args!("polyrust-prof report --html failed"));
    assert!(
        report.contains("## 1. `matmul` at kernels.c:30 in matmul"),
        "{report}"
    );
    assert!(report.contains("**affine: 100.0%**"), "{report}");
    assert!(report.contains("| i | 30 | 1 | 32 | yes | – |"), "{report}");
    assert!(
        report.contains("| j | 31 | 2 | 512 | yes | – |"),
        "{report}"
    );
    assert!(
        report.contains("| k | 33 | 3 | 8192 | no | store C@34 → load C@34 |"),
        "{report}"
    );
    assert!(report.contains("permutable bands: (i, j, k)"), "{report}");
    assert!(report.contains("## 2. `histogram`"), "{report}");
    assert!(
        report.contains("| i | 50 | 1 | 128 | no | store h@51 → load h@51 |"),
        "{report}"
    );
    assert!(std::fs::metadata(&html).is_ok_and(|m| m.len() > 2000));

    // show and merge keep working with nests (merge keeps same-id nests side by side).
    let shown = prof(&["show", path.to_str().unwrap()]);
    assert!(shown.status.success());
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.contains(": 0 regions, 2 nests (format polyrust-profile version 2)"),
        "{shown}"
    );
    assert!(shown.contains("nest matmul:30:5eed"), "{shown}");
    let merged = dir.join("merged.json");
    let output = prof(&[
        "merge",
        "-o",
        merged.to_str().unwrap(),
        path.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    common::succeeded(&output, format_args!("polyrust-prof merge failed"));
    assert_eq!(Profile::read(&merged).unwrap().nests.len(), 4);
}

#[test]
fn entries_past_polyrust_fold_entries_are_only_counted() {
    let dir = scratch("accesses-sampled");
    let program = build(&dir, true);
    let path = dir.join("sampled.polyprof.json");
    let output = Command::new(&program)
        .args(["8", "3"])
        .env("POLYRUST_PROFILE_FILE", &path)
        .env("POLYRUST_FOLD_ENTRIES", "1")
        .output()
        .expect("the test program starts");
    assert!(output.status.success());
    let profile = Profile::read(&path).unwrap();
    let mm = nest(&profile, "matmul");
    assert_eq!((mm.entries, mm.folded_entries), (3, 1));
    // Per entry: C = 0 on 8×8, then four accesses on 8×8×8.
    let per_entry = 8 * 8 + 4 * 8 * 8 * 8;
    assert_eq!(mm.unfolded_accesses, 2 * per_entry);
    assert_eq!(mm.access_events(), 3 * per_entry);
    assert_eq!(
        mm.sites[5].stream.pieces[0].upper[0], 0,
        "only entry 0 folded"
    );
    let report = prof(&["report", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&report.stdout);
    assert!(
        text.contains("entered 3 times (the first 1 folded)"),
        "{text}"
    );
}

#[test]
fn threads_running_one_nest_at_once_are_folded_apart() {
    let dir = scratch("accesses-threads");
    let program = build(&dir, true);
    let path = dir.join("threads.polyprof.json");
    let output = Command::new(&program)
        .args(["64", "40", "threads"])
        .env("POLYRUST_PROFILE_FILE", &path)
        // Every entry folded (the default folds 8), so that one piece spans them all.
        .env("POLYRUST_FOLD_ENTRIES", "64")
        .output()
        .expect("the test program starts");
    assert!(output.status.success());
    let profile = Profile::read(&path).unwrap();
    let histograms: Vec<&NestProfile> = profile
        .nests
        .iter()
        .filter(|n| n.function == "histogram")
        .collect();
    // The main thread (0) only touched the refused and the matmul descriptors.
    let threads: Vec<u64> = histograms.iter().map(|n| n.thread).collect();
    assert_eq!(threads.len(), 2, "{threads:?}");
    assert!(!threads.contains(&0), "{threads:?}");
    for nest in histograms {
        assert_eq!(nest.entries, 40);
        // idx[i]: one piece over 40 entries × 256 iterations, however the threads ran.
        let idx = &nest.sites[1].stream;
        assert!(!idx.gave_up);
        assert_eq!((idx.events, idx.pieces.len()), (40 * 256, 1));
    }
}

/// Width and height of a PNG, from its IHDR chunk.
fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.len() < 24 || &bytes[..8] != b"\x89PNG\r\n\x1a\n" || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Some((word(16), word(20)))
}

/// Screenshots `page` with headless chromium at 1200×1600; returns the PNG's bytes.
fn screenshot(page: &Path, png: &Path) -> Vec<u8> {
    let chromium = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("chromium is missing: run scripts/setup (it installs Debian's chromium)");
    let profile_dir = png.with_extension("chromium-profile");
    let output = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile_dir.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1200,1600")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let bytes = std::fs::read(png).unwrap_or_else(|_| {
        panic!(
            "chromium wrote no screenshot: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    bytes
}

#[test]
fn entries_past_the_folded_ones_are_counted_exactly_without_the_lock() {
    // One entry folded of three: the other two are counted by the thread-local path,
    // and every one of their loads and stores reaches the profile (two more entries of
    // exactly the folded one's accesses), histograms in their two threads included.
    let dir = scratch("accesses-unfolded");
    let program = build(&dir, true);
    let path = dir.join("unfolded.polyprof.json");
    let output = Command::new(&program)
        .args(["12", "3"])
        .env("POLYRUST_PROFILE_FILE", &path)
        .env("POLYRUST_FOLD_ENTRIES", "1")
        .output()
        .expect("the test program starts");
    common::succeeded(&output, format_args!("the test program failed"));
    let profile = Profile::read(&path).expect("the profile reads back");
    for nest in &profile.nests {
        let folded: u64 = nest
            .sites
            .iter()
            .filter(|s| s.kind != SiteKind::Loop)
            .map(|s| s.stream.events)
            .sum();
        assert_eq!((nest.entries, nest.folded_entries), (3, 1), "{}", nest.id);
        assert_eq!(nest.unfolded_accesses, 2 * folded, "{}", nest.id);
    }
}

#[test]
fn the_html_report_renders_in_headless_chromium() {
    let dir = scratch("accesses-html");
    let path = recorded(&dir);
    let html = dir.join("report.html");
    let output = prof(&[
        "report",
        path.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    common::succeeded(&output, format_args!("polyrust-prof report --html failed"));
    let report = screenshot(&html, &dir.join("report.png"));
    let empty_page = dir.join("empty.html");
    std::fs::write(&empty_page, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let empty = screenshot(&empty_page, &dir.join("empty.png"));
    assert_eq!(png_size(&report), Some((1200, 1600)));
    assert_eq!(png_size(&empty), Some((1200, 1600)));
    // A blank page compresses to almost nothing; tables, text and pictures do not.
    assert!(
        report.len() > 10 * empty.len() && report.len() > 30_000,
        "the report's screenshot ({} bytes) looks blank next to an empty page's ({} bytes)",
        report.len(),
        empty.len()
    );
}

#[test]
#[ignore = "times the instrumentation; run with --ignored --nocapture"]
fn overhead_of_folding_a_matmul() {
    let dir = scratch("accesses-overhead");
    let (plain, instrumented) = (build(&dir, false), build(&dir, true));
    let path = dir.join("overhead.polyprof.json");
    for n in [64u32, 128, 256] {
        let best = |program: &Path| {
            (0..3)
                .map(|_| seconds(&run(program, &path, n, 1)))
                .fold(f64::INFINITY, f64::min)
        };
        let base = best(&plain);
        let folded = best(&instrumented);
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let accesses =
            5 * u64::from(n).pow(3) + 2 * u64::from(n).pow(2) + u64::from(n) + 16 * u64::from(n);
        println!(
            "n = {n}: plain {base:.4} s, instrumented {folded:.4} s, slowdown {:.1}x, \
             {:.1} ns per event ({accesses} events), profile {size} bytes",
            folded / base,
            (folded - base) * 1e9 / accesses as f64
        );
    }
}
