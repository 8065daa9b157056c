//! End to end: a C program that enters two instrumented regions by hand from two
//! threads, linked against the staticlib exactly as users link it, writes a profile
//! at exit; `polyrust-prof show` and `merge` then read it.
//!
//! The staticlib is the one cargo built for this test run: cargo puts it beside the
//! rlib in `target/<profile>/deps/` (it uplifts it to `target/<profile>/` only for
//! `cargo build`), so the newest `libpolyrust_rt*.a` there that defines
//! `polyrust_rt_enter` is taken. A staticlib built for the plugin without the C ABI
//! (`default-features = false`) defines no such symbol and is skipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use polyrust_rt::Profile;

mod common;

use common::{clang, scratch};

fn staticlib() -> PathBuf {
    common::staticlib_defining("polyrust_rt_enter")
}

/// Two threads enter `mm` 1000 times each (n is 128 in a quarter of the entries, else
/// 64; m always 8; B lies inside A in a tenth of them) and `stencil` 1000 times each
/// (stride 1 in one thread, 2 in the other). The NULL and version-2 descriptors must be
/// ignored. Prints the addresses of the arrays and the format version.
const PROGRAM: &str = r#"
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "polyrust_rt.h"

#ifndef DEFAULT_PATH
#define DEFAULT_PATH NULL
#endif

static const char *const mm_values[] = {"n", "m"};
static const char *const mm_ranges[] = {"A", "B"};
static const struct polyrust_rt_region mm = {
    1, 2, 2, 12, "mm:1:9f2c41d0", "mm", "mm.c", "9f2c41d0",
    mm_values, mm_ranges, DEFAULT_PATH};
static const char *const stencil_values[] = {"stride"};
static const struct polyrust_rt_region stencil = {
    1, 1, 0, 0, "stencil:2:9f2c41d0", "stencil", "", "9f2c41d0",
    stencil_values, NULL, NULL};
static const struct polyrust_rt_region future = {
    2, 0, 0, 0, "future:3:9f2c41d0", "future", "", "9f2c41d0", NULL, NULL, NULL};

static char a[4096], b[4096];

static void *worker(void *arg) {
  int64_t stride = (int64_t)(intptr_t)arg;
  for (int i = 0; i < 1000; i++) {
    int64_t values[2] = {i % 4 == 0 ? 128 : 64, 8};
    uint64_t ranges[4] = {(uintptr_t)a, (uintptr_t)a + 4096, (uintptr_t)b, (uintptr_t)b + 4096};
    if (i % 10 == 0) {
      ranges[2] = (uintptr_t)a + 1024;
      ranges[3] = (uintptr_t)a + 2048;
    }
    polyrust_rt_enter(&mm, values, ranges);
    polyrust_rt_enter(&stencil, &stride, NULL);
  }
  return NULL;
}

int main(void) {
  polyrust_rt_enter(NULL, NULL, NULL);
  polyrust_rt_enter(&future, NULL, NULL);
  pthread_t threads[2];
  for (intptr_t t = 0; t < 2; t++)
    pthread_create(&threads[t], NULL, worker, (void *)(t + 1));
  for (int t = 0; t < 2; t++)
    pthread_join(threads[t], NULL);
  printf("%llu %llu %u\n", (unsigned long long)(uintptr_t)a,
         (unsigned long long)(uintptr_t)b, polyrust_rt_profile_format_version());
  return 0;
}
"#;

/// Compiles [`PROGRAM`] in `dir`, with `-DDEFAULT_PATH=...` if given.
fn build_program(dir: &Path, default_path: Option<&Path>) -> PathBuf {
    let source = dir.join("program.c");
    std::fs::write(&source, PROGRAM).unwrap();
    let program = dir.join("program");
    let mut command = Command::new(clang());
    command
        .arg("-O1")
        .arg(&source)
        .arg("-I")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("include"))
        .arg(staticlib())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&program);
    if let Some(path) = default_path {
        command.arg(format!("-DDEFAULT_PATH=\"{}\"", path.display()));
    }
    let output = command.output().expect("clang runs");
    common::succeeded(
        &output,
        format_args!("compiling and linking the test program failed"),
    );
    program
}

/// Runs the program with `POLYRUST_PROFILE_FILE` set to `profile_file`, or unset.
fn run_program(program: &Path, profile_file: Option<&str>) -> (Output, u32) {
    let mut command = Command::new(program);
    command.current_dir(program.parent().unwrap());
    match profile_file {
        Some(path) => command.env("POLYRUST_PROFILE_FILE", path),
        None => command.env_remove("POLYRUST_PROFILE_FILE"),
    };
    let child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the test program starts");
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    common::succeeded(&output, format_args!("the test program failed"));
    (output, pid)
}

fn prof(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_polyrust-prof"))
        .args(args)
        .output()
        .expect("polyrust-prof runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_program_writes_its_profile_at_exit_and_the_tool_shows_and_merges_it() {
    let dir = scratch("end-to-end");
    let program = build_program(&dir, None);
    let pattern = dir.join("run-%p.polyprof.json");
    let (output, pid) = run_program(&program, Some(pattern.to_str().unwrap()));
    let printed = text(&output.stdout);
    let addresses: Vec<u64> = printed
        .split_whitespace()
        .map(|w| w.parse().unwrap())
        .collect();
    let (a, b) = (addresses[0], addresses[1]);
    assert_eq!(addresses[2], 2, "polyrust_rt_profile_format_version()");
    assert!(output.stderr.is_empty(), "{}", text(&output.stderr));

    let path = dir.join(format!("run-{pid}.polyprof.json"));
    let profile = Profile::read(&path).expect("the profile is written where %p says");
    let ids: Vec<&str> = profile.regions.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, vec!["mm:1:9f2c41d0", "stencil:2:9f2c41d0"]);

    let mm = &profile.regions[0];
    assert_eq!(
        (mm.function.as_str(), mm.file.as_str(), mm.line),
        ("mm", "mm.c", 12)
    );
    assert_eq!(mm.entries, 2000);
    let n = &mm.values[0];
    assert_eq!((n.name.as_str(), n.min, n.max), ("n", 64, 128));
    let counts: Vec<(i64, u64)> = n.histogram.iter().map(|c| (c.value, c.count)).collect();
    assert_eq!(counts, vec![(64, 1500), (128, 500)]);
    assert_eq!((mm.values[1].min, mm.values[1].max), (8, 8));
    let tuples: Vec<(Vec<i64>, u64)> = mm
        .tuples
        .iter()
        .map(|t| (t.values.clone(), t.count))
        .collect();
    assert_eq!(tuples, vec![(vec![64, 8], 1500), (vec![128, 8], 500)]);
    assert_eq!((mm.ranges[0].low, mm.ranges[0].high), (a, a + 4096));
    assert_eq!(
        (mm.ranges[1].low, mm.ranges[1].high),
        ((a + 1024).min(b), (a + 2048).max(b + 4096))
    );
    assert_eq!(mm.overlap_count(0, 1), 200);

    let stencil = &profile.regions[1];
    assert_eq!(stencil.entries, 2000);
    assert!(stencil.ranges.is_empty() && stencil.overlaps.is_empty());
    let strides: Vec<(i64, u64)> = stencil.values[0]
        .histogram
        .iter()
        .map(|c| (c.value, c.count))
        .collect();
    assert_eq!(strides, vec![(1, 1000), (2, 1000)]);

    let show = prof(&["show", path.to_str().unwrap()]);
    assert!(show.status.success(), "{}", text(&show.stderr));
    let shown = text(&show.stdout);
    for expected in [
        "2 regions",
        "mm.c:12 in mm\n",
        "  region mm:1:9f2c41d0 (module hash 9f2c41d0)\n",
        "  entered 2000 times\n",
        "    n  min 64, max 128; most frequent: 64 (75.0%), 128 (25.0%)\n",
        "    m  always 8\n",
        "    n=64, m=8   1500 entries (75.0%)\n",
        "    A  4096 bytes\n",
        "    A and B overlapped in 200 entries of 2000 (10.0%)\n",
        "<unknown file> in stencil\n",
        "    stride  min 1, max 2; most frequent: 1 (50.0%), 2 (50.0%)\n",
    ] {
        assert!(
            shown.contains(expected),
            "missing {expected:?} in:\n{shown}"
        );
    }

    // A second run, and the merge of both: counts add up.
    let (_, second_pid) = run_program(&program, Some(pattern.to_str().unwrap()));
    let second = dir.join(format!("run-{second_pid}.polyprof.json"));
    let merged_path = dir.join("merged.polyprof");
    let merge = prof(&[
        "merge",
        "-o",
        merged_path.to_str().unwrap(),
        path.to_str().unwrap(),
        second.to_str().unwrap(),
    ]);
    assert!(merge.status.success(), "{}", text(&merge.stderr));
    assert!(merge.stderr.is_empty(), "{}", text(&merge.stderr));
    let merged = Profile::read(&merged_path).unwrap();
    assert_eq!(merged.regions[0].entries, 4000);
    assert_eq!(merged.regions[0].tuples[0].count, 3000);
    assert_eq!(merged.regions[0].overlap_count(0, 1), 400);
    assert_eq!(merged.regions[1].entries, 4000);
}

#[test]
fn without_the_environment_the_compiled_path_is_used() {
    let dir = scratch("compiled-path");
    let program = build_program(&dir, Some(&dir.join("compiled-%p.json")));
    let (_, pid) = run_program(&program, None);
    let profile = Profile::read(&dir.join(format!("compiled-{pid}.json"))).unwrap();
    assert_eq!(profile.regions[0].entries, 2000);
    // The environment still wins over the compiled path.
    let (_, pid) = run_program(&program, Some(dir.join("env-%p.json").to_str().unwrap()));
    assert!(dir.join(format!("env-{pid}.json")).exists());
    assert!(!dir.join(format!("compiled-{pid}.json")).exists());
}

#[test]
fn without_any_path_the_profile_is_default_polyprof_json() {
    let dir = scratch("default-path");
    let program = build_program(&dir, None);
    run_program(&program, None);
    assert!(Profile::read(&dir.join("default.polyprof.json")).is_ok());
}

#[test]
fn a_profile_that_cannot_be_written_costs_one_line_on_stderr_not_the_program() {
    let dir = scratch("unwritable");
    let program = build_program(&dir, None);
    std::fs::write(dir.join("blocker"), "").unwrap();
    let path = dir.join("blocker/profile.json");
    let (output, _) = run_program(&program, Some(path.to_str().unwrap()));
    let stderr = text(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("polyrust_rt: cannot write profile '"),
        "{stderr}"
    );
    assert!(stderr.contains("blocker/profile.json"), "{stderr}");
    assert!(stderr.contains("Not a directory"), "{stderr}");
    assert!(
        !text(&output.stdout).is_empty(),
        "the program ran to its end"
    );
}

#[test]
fn the_tool_names_a_bad_input_and_exits_with_1() {
    let dir = scratch("bad-input");
    let bad = dir.join("bad.polyprof.json");
    std::fs::write(
        &bad,
        "{\"format\": \"polyrust-profile\", \"version\": 1, \"regions\": [",
    )
    .unwrap();
    let good = dir.join("good.polyprof.json");
    Profile::empty().write(&good).unwrap();
    let out = dir.join("out.json");
    let merge = prof(&[
        "merge",
        "-o",
        out.to_str().unwrap(),
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(merge.status.code(), Some(1));
    let stderr = text(&merge.stderr);
    assert!(stderr.starts_with("polyrust-prof: error: "), "{stderr}");
    assert!(stderr.contains("bad.polyprof.json"), "{stderr}");
    assert!(!out.exists());

    let show = prof(&["show", bad.to_str().unwrap()]);
    assert_eq!(show.status.code(), Some(1));
    assert!(text(&show.stderr).contains("not valid JSON"));
}

#[test]
fn the_tool_explains_itself_and_refuses_unknown_commands() {
    let help = prof(&["--help"]);
    assert!(help.status.success());
    let shown = text(&help.stdout);
    assert!(shown.contains("merge") && shown.contains("show"), "{shown}");
    let merge_help = prof(&["merge", "--help"]);
    assert!(text(&merge_help.stdout).starts_with("usage: polyrust-prof merge -o OUTPUT INPUT..."));
    let unknown = prof(&["frobnicate"]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(text(&unknown.stderr).starts_with(
        "polyrust-prof: error: unknown command 'frobnicate'; the commands are merge, report, show"
    ));
    let nothing = prof(&[]);
    assert_eq!(nothing.status.code(), Some(1));
    let no_output = prof(&["merge", "in.json"]);
    assert!(text(&no_output.stderr).contains("no output file"));
}
