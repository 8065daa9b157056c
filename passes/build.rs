//! Builds the packed-product kernel (`kernels/products.c`) into the LLVM bitcode the
//! plugin links into modules that call it (`codegen::product`). clang 22 compiles it at
//! -O3 for AVX2 and FMA (the plugin calls it only from functions whose target has AVX2,
//! asks for fused steps only where it has FMA too, and gives it the caller's target
//! attributes); the module flags and identification are taken out of its text (then
//! assembled by llvm-as, next to clang), so that linking it never changes the calling
//! module's flags. The same source is built a second time for products whose sums start
//! at C's elements (`products_from_c.bc`), and a third for products that scale C by
//! beta or A by alpha (`products_scaled.bc`), and a fourth for two products per step
//! (`products_two_terms.bc`), and a fifth for dot products with A scaled by alpha
//! (`products_alpha.bc`), and a sixth for doitgen's batched product written back into
//! A (`products_batched.bc`), and a seventh for symm's symmetric product
//! (`products_symm.bc`). Each is built again for float elements
//! (`-DPOLYRUST_F32=1`, `products_f32.bc` and so on). The min-plus closure kernel
//! (`kernels/closure.c`, blocked Floyd-Warshall on ints) is built the same way, once
//! (`closure.bc`, `closure.s`).
//!
//! Each variant is also compiled to x86-64 ELF assembly (`stem.s`, position
//! independent), made local to the object it lands in: no `.globl`, its labels and
//! static symbols renamed with the stem, the whole kept between `.pushsection` and
//! `.popsection`. The plugin puts that text in a module's inline assembly on x86-64 ELF
//! targets (`llvm::link`), so a module that calls a kernel only assembles it instead of
//! optimizing and compiling it again (most of polyrust's compile time on a small file).

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where clang 22 is, unless `POLYRUST_KERNEL_CLANG` says otherwise.
const DEFAULT_CLANG: &str = "/usr/lib/llvm-22/bin/clang";

/// How every form of the kernel is compiled (the bitcode and the assembly must compute
/// the same bits): for AVX2 and FMA, products and sums rounded apart as written.
const KERNEL_FLAGS: [&str; 8] = [
    "-O3",
    "-mavx2",
    "-mfma",
    "-ffp-contract=off",
    "-fno-math-errno",
    "-fno-stack-protector",
    "-target",
    "x86_64-unknown-linux-gnu",
];

fn main() {
    let source = PathBuf::from("kernels/products.c");
    println!("cargo:rerun-if-changed={}", source.display());
    println!("cargo:rerun-if-env-changed=POLYRUST_KERNEL_CLANG");
    let clang = env::var("POLYRUST_KERNEL_CLANG").unwrap_or_else(|_| DEFAULT_CLANG.into());
    let out_dir = match env::var("OUT_DIR") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => fail("cargo did not set OUT_DIR"),
    };
    // The dot-product kernel; the variant whose sums start at C's elements and are
    // stored into C; the one whose sums start at C, C * beta or +0.0, with A scaled; the
    // one with two products per step (syr2k); the dot-product kernel with A scaled by
    // alpha. Each in double and in float.
    let variants: [(&str, &[&str]); 7] = [
        ("products", &[]),
        ("products_alpha", &["-DPOLYRUST_ALPHA=1"]),
        ("products_from_c", &["-DPOLYRUST_SUMS_FROM_C=1"]),
        (
            "products_scaled",
            &["-DPOLYRUST_SUMS_FROM_C=1", "-DPOLYRUST_SCALED=1"],
        ),
        (
            "products_batched",
            &[
                "-DPOLYRUST_SUMS_FROM_C=1",
                "-DPOLYRUST_SCALED=1",
                "-DPOLYRUST_BATCHED=1",
            ],
        ),
        (
            "products_symm",
            &["-DPOLYRUST_SUMS_FROM_C=1", "-DPOLYRUST_SYMM=1"],
        ),
        (
            "products_two_terms",
            &[
                "-DPOLYRUST_SUMS_FROM_C=1",
                "-DPOLYRUST_SCALED=1",
                "-DPOLYRUST_TWO_TERMS=1",
            ],
        ),
    ];
    // The min-plus closure (`kernels/closure.c`): 32-bit ints only.
    let closure = PathBuf::from("kernels/closure.c");
    println!("cargo:rerun-if-changed={}", closure.display());
    build_kernel(&clang, &closure, &out_dir.join("closure"), &[]);
    for (stem, defines) in variants {
        build_kernel(&clang, &source, &out_dir.join(stem), defines);
        let single: Vec<&str> = defines
            .iter()
            .copied()
            .chain(["-DPOLYRUST_F32=1"])
            .collect();
        build_kernel(
            &clang,
            &source,
            &out_dir.join(format!("{stem}_f32")),
            &single,
        );
    }
}

/// Compiles `source` (with `defines`) into `stem.bc`, by way of `stem.raw.ll` and
/// `stem.ll`.
fn build_kernel(clang: &str, source: &Path, stem: &Path, defines: &[&str]) {
    let raw = stem.with_extension("raw.ll");
    let status = Command::new(clang)
        .args(KERNEL_FLAGS)
        .arg("-fno-pic")
        .args(defines)
        .args(["-S", "-emit-llvm", "-o"])
        .arg(&raw)
        .arg(source)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!("{clang} failed on {} ({s})", source.display())),
        Err(e) => fail(&format!(
            "cannot run {clang} ({e}); install clang 22 (scripts/setup does) or set \
             POLYRUST_KERNEL_CLANG to a clang 22"
        )),
    }
    let text = match std::fs::read_to_string(&raw) {
        Ok(text) => text,
        Err(e) => fail(&format!("cannot read {}: {e}", raw.display())),
    };
    let kept: String = text
        .lines()
        .filter(|line| !line.starts_with("!llvm.module.flags") && !line.starts_with("!llvm.ident"))
        .map(|line| format!("{line}\n"))
        .collect();
    let text = stem.with_extension("ll");
    if let Err(e) = std::fs::write(&text, kept) {
        fail(&format!("cannot write the kernel's IR: {e}"));
    }
    // Bitcode, which a context that discards value names (clang's) can read.
    let assembler = PathBuf::from(clang).with_file_name("llvm-as");
    let status = Command::new(&assembler)
        .arg(&text)
        .arg("-o")
        .arg(stem.with_extension("bc"))
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!(
            "{} failed on the kernel ({s})",
            assembler.display()
        )),
        Err(e) => fail(&format!(
            "cannot run {} ({e}); install llvm-22 (scripts/setup does)",
            assembler.display()
        )),
    }
    build_assembly(clang, source, stem, defines);
}

/// Compiles `source` (with `defines`) into `stem.s`, the kernel as inline assembly
/// local to any object (see the module comment).
fn build_assembly(clang: &str, source: &Path, stem: &Path, defines: &[&str]) {
    let raw = stem.with_extension("raw.s");
    let status = Command::new(clang)
        .args(KERNEL_FLAGS)
        .arg("-fPIC")
        .args(defines)
        .args(["-S", "-o"])
        .arg(&raw)
        .arg(source)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => fail(&format!("{clang} -S failed on {} ({s})", source.display())),
        Err(e) => fail(&format!("cannot run {clang} ({e})")),
    }
    let text = match std::fs::read_to_string(&raw) {
        Ok(text) => text,
        Err(e) => fail(&format!("cannot read {}: {e}", raw.display())),
    };
    let name = stem
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Err(e) = std::fs::write(stem.with_extension("s"), local_assembly(&text, &name)) {
        fail(&format!("cannot write the kernel's assembly: {e}"));
    }
}

/// `text` made local to the object it is assembled into: directives that belong to a
/// whole file dropped, no symbol global, local labels and static symbols prefixed with
/// `stem` (so two kernels, or a kernel and the module's own code, never share a name).
fn local_assembly(text: &str, stem: &str) -> String {
    let exported: Vec<&str> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix(".globl"))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect();
    let statics: Vec<String> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix(".type"))
        .filter_map(|rest| rest.split(',').next())
        .map(|name| name.trim().to_string())
        .filter(|name| !exported.contains(&name.as_str()))
        .collect();
    let dropped = [
        ".file",
        ".ident",
        ".addrsig",
        ".globl",
        ".section\t\".note.GNU-stack\"",
    ];
    let mut out = format!("# polyrust kernel {stem}\n\t.pushsection .text\n");
    for line in text.lines() {
        let trimmed = line.trim_start();
        if dropped.iter().any(|d| trimmed.starts_with(d)) {
            continue;
        }
        out.push_str(&rename_symbols(line, stem, &statics));
        out.push('\n');
    }
    out.push_str("\t.popsection\n");
    out
}

/// `line` with each local label (`.L...`) and each of `statics` prefixed with `stem`.
fn rename_symbols(line: &str, stem: &str, statics: &[String]) -> String {
    let is_symbol_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$');
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(start) = rest.find(is_symbol_char) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail.find(|c| !is_symbol_char(c)).unwrap_or(tail.len());
        let token = &tail[..end];
        if let Some(label) = token.strip_prefix(".L") {
            out.push_str(&format!(".Lpolyrust_{stem}_{label}"));
        } else if statics.iter().any(|s| s == token) {
            out.push_str(&format!("polyrust_{stem}_{token}"));
        } else {
            out.push_str(token);
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

fn fail(message: &str) -> ! {
    eprintln!("polyrust-passes build: {message}");
    std::process::exit(1);
}
