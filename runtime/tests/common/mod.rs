//! Helpers of the runtime's end-to-end tests: the staticlib cargo built for this test
//! run, clang-22, and a scratch folder per test.
//!
//! Cargo puts the staticlib beside the rlib in `target/<profile>/deps/` (it uplifts it
//! to `target/<profile>/` only for `cargo build`), so the newest `libpolyrust_rt*.a`
//! there that defines the symbol a test needs is taken. A staticlib built for the
//! plugin without the C ABI (`default-features = false`) defines none and is skipped.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

/// `target/<profile>/`, the folder of the test executable's `deps/`.
fn target_profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable has a path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test executable lives in target/<profile>/deps/")
        .to_path_buf()
}

/// The newest `libpolyrust_rt*.a` of this build that defines `symbol`.
pub fn staticlib_defining(symbol: &str) -> PathBuf {
    let dir = target_profile_dir();
    let mut candidates = vec![dir.join("libpolyrust_rt.a")];
    if let Ok(entries) = std::fs::read_dir(dir.join("deps")) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with("libpolyrust_rt") && name.ends_with(".a") {
                candidates.push(entry.path());
            }
        }
    }
    let symbol = symbol.as_bytes();
    let defines = |path: &PathBuf| {
        std::fs::read(path)
            .map(|bytes| bytes.windows(symbol.len()).any(|w| w == symbol))
            .unwrap_or(false)
    };
    let modified = |path: &PathBuf| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    candidates
        .into_iter()
        .filter(defines)
        .max_by_key(modified)
        .unwrap_or_else(|| {
            panic!(
                "no libpolyrust_rt.a defining {} in {} or its deps/: build the runtime with \
                 `cargo build --release -p polyrust-runtime` (or run this test through \
                 `cargo test`, which builds it)",
                String::from_utf8_lossy(symbol),
                dir.display()
            )
        })
}

/// clang-22 (`POLYRUST_LLVM_BIN` overrides its folder).
pub fn clang() -> PathBuf {
    let bin =
        std::env::var_os("POLYRUST_LLVM_BIN").unwrap_or_else(|| "/usr/lib/llvm-22/bin".into());
    let clang = PathBuf::from(bin).join("clang");
    assert!(
        clang.exists(),
        "{} missing: run scripts/setup (or set POLYRUST_LLVM_BIN)",
        clang.display()
    );
    clang
}

/// A fresh folder for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The plugin: `$POLYRUST_PLUGIN`, else `libpolyrust.so` beside this build's
/// `deps/` (`target/release/` for `cargo test --release`; `cargo test` does not build
/// it, `cargo build --release` does).
pub fn plugin() -> PathBuf {
    let path = std::env::var_os("POLYRUST_PLUGIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| target_profile_dir().join("libpolyrust.so"));
    assert!(
        path.exists(),
        "plugin {} not found: build it with `cargo build --release`, or point \
         POLYRUST_PLUGIN at it",
        path.display()
    );
    path
}

/// `tests/trace/raw-addresses.c` compiled (without the plugin) into `dir`: linked with
/// `-Wl,--wrap=polyrust_rt_access`, it writes every load and store address of the
/// program to `$RAW_DIR/<nest id>.<site>.raw`, then calls the runtime.
pub fn raw_address_recorder(dir: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let object = dir.join("raw-addresses.o");
    let output = std::process::Command::new(clang())
        .args(["-O2", "-c"])
        .arg(manifest.join("tests/trace/raw-addresses.c"))
        .arg("-I")
        .arg(manifest.join("include"))
        .arg("-o")
        .arg(&object)
        .output()
        .expect("clang runs");
    succeeded(&output, format_args!("compiling raw-addresses.c failed"));
    object
}

/// The raw stream `raw-addresses.c` wrote for site `site` of nest `id` in `dir` (none
/// if the site never ran).
pub fn raw_addresses(dir: &Path, id: &str, site: u32) -> Vec<i64> {
    let name: String = id
        .chars()
        .map(|c| if c == '/' || c == ':' { '_' } else { c })
        .collect();
    let path = dir.join(format!("{name}.{site}.raw"));
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => panic!("cannot read the raw stream {}: {e}", path.display()),
    };
    bytes
        .chunks_exact(8)
        .map(|word| i64::from_le_bytes(word.try_into().expect("8 bytes")))
        .collect()
}

/// Asserts that a command succeeded, quoting its standard error after `what` (what it
/// was doing).
pub fn succeeded(output: &Output, what: std::fmt::Arguments<'_>) {
    assert!(
        output.status.success(),
        "{what}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
