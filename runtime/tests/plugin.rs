//! The plugin and the runtime agree: `libpolyrust.so`, loaded as opt and clang load it,
//! answers `llvmGetPassPluginInfo` with plugin API version 2, the name "polyrust" and
//! the workspace version, and reads the profile format version this runtime writes.
//!
//! Which plugin: `$POLYRUST_PLUGIN`, else `libpolyrust.so` in the target folder of this
//! test (`target/release/` for `cargo test --release`). Note that `cargo test` does not
//! build the plugin (its cdylib has `test = false`): `scripts/setup` and
//! `cargo build --release` do. A missing plugin fails the test rather than skipping it.

use std::ffi::{c_char, c_void, CStr};
use std::path::{Path, PathBuf};

use libloading::os::unix::{Library, Symbol, RTLD_GLOBAL, RTLD_LOCAL, RTLD_NOW};

/// `llvm::PassPluginLibraryInfo` (plugin API version 2), as `plugin/src/lib.rs` defines it.
#[repr(C)]
struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    pre_codegen_callback: Option<unsafe extern "C" fn()>,
}

fn plugin_path() -> PathBuf {
    if let Some(path) = std::env::var_os("POLYRUST_PLUGIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the test executable has a path");
    exe.parent()
        .and_then(Path::parent)
        .expect("the test executable lives in target/<profile>/deps/")
        .join("libpolyrust.so")
}

/// The plugin links no LLVM library (its LLVM symbols bind to the host's libLLVM at
/// load time, see plugin/build.rs), and its C++ shim registers command-line options
/// with libLLVM as it loads. So libLLVM is loaded first with RTLD_GLOBAL, standing in
/// for the opt or clang executable that would otherwise provide it.
fn load_libllvm() -> Library {
    let prefix =
        std::env::var_os("LLVM_SYS_221_PREFIX").unwrap_or_else(|| "/usr/lib/llvm-22".into());
    let lib = Path::new(&prefix).join("lib");
    let candidates = ["libLLVM.so.22.1", "libLLVM-22.so", "libLLVM.so"].map(|name| lib.join(name));
    let path = candidates
        .iter()
        .find(|path| path.exists())
        .unwrap_or_else(|| {
            panic!(
                "no libLLVM of LLVM 22 in {}: run scripts/setup",
                lib.display()
            )
        });
    // SAFETY: loading libLLVM runs only LLVM's own static initializers.
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_GLOBAL) }
        .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()))
}

#[test]
fn plugin_reports_its_api_name_version_and_the_runtime_profile_format() {
    let path = plugin_path();
    assert!(
        path.exists(),
        "plugin {} not found: build it with `cargo build --release` (cargo test does not \
         build the plugin's cdylib), or point POLYRUST_PLUGIN at it",
        path.display()
    );
    let libllvm = load_libllvm();
    // SAFETY: the plugin's static initializers register options with the libLLVM
    // loaded above, as they do in opt.
    let plugin = unsafe { Library::open(Some(&path), RTLD_NOW | RTLD_LOCAL) }
        .unwrap_or_else(|e| panic!("cannot load the plugin {}: {e}", path.display()));

    // SAFETY: the signatures are those of plugin/src/lib.rs.
    unsafe {
        let info: Symbol<extern "C" fn() -> PassPluginLibraryInfo> = plugin
            .get(b"llvmGetPassPluginInfo\0")
            .expect("the plugin exports llvmGetPassPluginInfo");
        let info = info();
        assert_eq!(info.api_version, 2, "LLVM plugin API version");
        assert_eq!(CStr::from_ptr(info.plugin_name).to_str(), Ok("polyrust"));
        assert_eq!(
            CStr::from_ptr(info.plugin_version).to_str(),
            Ok(env!("CARGO_PKG_VERSION")),
            "the plugin's version is the workspace version"
        );
        assert!(info.register_pass_builder_callbacks.is_some());

        let format: Symbol<extern "C" fn() -> u32> = plugin
            .get(b"polyrust_profile_format_version\0")
            .unwrap_or_else(|e| {
                panic!(
                    "the plugin {} has no polyrust_profile_format_version ({e}): it is older \
                     than this runtime; rebuild it with `cargo build --release`",
                    path.display()
                )
            });
        assert_eq!(format(), polyrust_rt::PROFILE_FORMAT_VERSION);
    }

    // Never unloaded: unloading would run the option destructors of the shim against
    // a libLLVM that opt would still hold, which no host does while running.
    std::mem::forget(plugin);
    std::mem::forget(libllvm);
}
