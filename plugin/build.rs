//! Builds the C++ shim against LLVM 22's headers. The plugin links no LLVM library:
//! every LLVM symbol resolves, at load time, to the libLLVM of the opt or clang that
//! loads it, so analysis keys and option registries are shared with the host.

use std::path::PathBuf;
use std::process::Command;

fn llvm_config(prefix: &str, arg: &str) -> String {
    let tool = PathBuf::from(prefix).join("bin/llvm-config");
    let output = Command::new(&tool)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}; run scripts/setup", tool.display()));
    assert!(
        output.status.success(),
        "{} {arg} failed; run scripts/setup",
        tool.display()
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

fn main() {
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    for file in ["shim.cpp", "host.cpp", "host.h", "polyrust_host.h"] {
        println!("cargo:rerun-if-changed=shim/{file}");
    }

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .compiler(PathBuf::from(&prefix).join("bin/clang++"))
        .file("shim/shim.cpp")
        .file("shim/host.cpp")
        .include("shim")
        .warnings(true)
        .flag("-Wno-unused-parameter");
    for flag in llvm_config(&prefix, "--cxxflags").split_whitespace() {
        build.flag(flag);
    }
    build.compile("polyrust_shim");
}
