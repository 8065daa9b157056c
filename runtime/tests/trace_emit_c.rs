//! `polyrust-prof trace --emit-c` end to end: a generated trace (a nest with a lower
//! max, a triangular nest, a tiled sweep with partial tiles, a few stray addresses) goes through the
//! binary, the C program it prints is compiled with `cc` and run, and its output
//! must equal the trace byte for byte. Skipped, with a message, without a C compiler.
//! Also: the command's errors on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn prof() -> Command {
    Command::new(env!("CARGO_BIN_EXE_polyrust-prof"))
}

/// A temporary folder for one test, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("polyrust-trace-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        Scratch(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn have_cc() -> bool {
    Command::new("cc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(command: &mut Command) -> Output {
    command.output().expect("command runs")
}

/// A nest with a lower max (the paper's Fig. 9), a triangular nest, a tiled 2D sweep
/// (tiles of 8 over 21x21), then noise.
fn generated_trace() -> Vec<i64> {
    let mut trace = Vec::new();
    for i in 0..20i64 {
        for j in 0.max(i - 10)..=9 {
            trace.push(0x5000 + 8 * (i + 2 * j));
        }
    }
    for i in 0..50i64 {
        for j in 0..=i {
            trace.push(0x7f00_0000_0000 + 8 * (64 * i + j));
        }
    }
    let n = 21;
    for it in (0..n).step_by(8) {
        for jt in (0..n).step_by(8) {
            for i in it..(it + 8).min(n) {
                for j in jt..(jt + 8).min(n) {
                    trace.push(-4096 + 4 * (n * i + j));
                }
            }
        }
    }
    trace.extend([3, -17, 1 << 50, 0, 12345678901]);
    trace
}

fn write_text(path: &Path, trace: &[i64]) {
    let text: String = trace.iter().map(|a| format!("{a}\n")).collect();
    std::fs::write(path, text).expect("trace written");
}

#[test]
fn emitted_c_program_prints_the_trace_byte_for_byte() {
    if !have_cc() {
        eprintln!("skipped: no C compiler 'cc' on PATH");
        return;
    }
    let scratch = Scratch::new("emit-c");
    let trace_path = scratch.path("trace.txt");
    write_text(&trace_path, &generated_trace());
    let emitted = run(prof().args(["trace", "--emit-c"]).arg(&trace_path));
    assert!(
        emitted.status.success(),
        "{}",
        String::from_utf8_lossy(&emitted.stderr)
    );
    let c_path = scratch.path("model.c");
    std::fs::write(&c_path, &emitted.stdout).expect("C written");
    let exe = scratch.path("model");
    let compiled = run(Command::new("cc")
        .arg("-O1")
        .arg("-o")
        .arg(&exe)
        .arg(&c_path));
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let printed = run(&mut Command::new(&exe));
    assert!(printed.status.success());
    let expected = std::fs::read(&trace_path).expect("trace read back");
    assert!(
        printed.stdout == expected,
        "the C program printed another trace"
    );
}

#[test]
fn binary_input_gives_the_same_model_as_text() {
    let trace = generated_trace();
    let scratch = Scratch::new("binary");
    let text_path = scratch.path("same.txt");
    write_text(&text_path, &trace);
    let binary_path = scratch.path("same.bin");
    let bytes: Vec<u8> = trace.iter().flat_map(|a| a.to_le_bytes()).collect();
    std::fs::write(&binary_path, bytes).expect("binary written");
    let from_text = run(prof().arg("trace").arg(&text_path));
    let from_binary = run(prof().args(["trace", "--binary"]).arg(&binary_path));
    assert!(from_text.status.success() && from_binary.status.success());
    assert_eq!(from_text.stdout, from_binary.stdout);
    let summary = String::from_utf8_lossy(&from_text.stdout);
    assert!(
        summary.contains(&format!("{} accesses", trace.len())),
        "{summary}"
    );
}

fn fails_with(args: &[&str], path: &Path, message: &str) {
    let output = run(prof().args(args).arg(path));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(message), "'{message}' not in: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let scratch = Scratch::new("errors");
    let missing = scratch.path("does-not-exist.txt");
    fails_with(&["trace"], &missing, "cannot read trace");
    let empty = scratch.path("empty.txt");
    std::fs::write(&empty, "\n\n").unwrap();
    fails_with(&["trace"], &empty, "no addresses");
    let malformed = scratch.path("malformed.txt");
    std::fs::write(&malformed, "8\n16\n0x18\nbanana\n").unwrap();
    fails_with(
        &["trace"],
        &malformed,
        "malformed.txt:4: 'banana' is not an address",
    );
    let ragged = scratch.path("ragged.bin");
    std::fs::write(&ragged, [0u8; 12]).unwrap();
    fails_with(
        &["trace", "--binary"],
        &ragged,
        "not a whole number of 8-byte addresses",
    );
    fails_with(
        &["trace", "--max-depth", "0"],
        &malformed,
        "--max-depth takes a number from 1 to 8",
    );
}
