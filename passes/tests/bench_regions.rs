//! The model files of the compile-time benchmarks (`benches/regions/`) still read back
//! and build: `cargo bench` is not part of the test run, so a change to the export format
//! or to the model's checks would otherwise leave them stale unnoticed.

use std::path::Path;

use passes::isl::IslCtx;
use passes::model::{json, Scop};

#[test]
fn every_benchmark_region_reads_back_and_builds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/regions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "benchmark regions: {files:?}");
    let ctx = IslCtx::new(None).expect("an isl context");
    for path in files {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let spec = json::import_spec(&text, &path).unwrap_or_else(|e| panic!("{e}"));
        ctx.start_region();
        let scop = Scop::build(&ctx, &spec).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!scop.statements.is_empty(), "{}", path.display());
        // The file is what the export of its model writes: nothing was lost on the way.
        assert!(
            json::export(&scop) == text.trim_end(),
            "{}: the export of its model differs from the file; refresh it as \
             benches/regions/README.md says",
            path.display()
        );
    }
}
