//! polyrust_rt: the instrumentation runtime linked into programs compiled with
//! `-polyrust-profile-generate`, and the profile format the second compile reads.
//! The C ABI lives here as `#[no_mangle] extern "C"` functions; the staticlib is what
//! users link (`-lpolyrust_rt`), the rlib what `polyrust-prof` and tests use.

/// Version of the profile format this runtime writes; a profile of another version is
/// reported and ignored by the compiler, never guessed at.
pub const PROFILE_FORMAT_VERSION: u32 = 1;

/// For programs and build scripts that want to check which runtime they linked.
#[no_mangle]
pub extern "C" fn polyrust_rt_profile_format_version() -> u32 {
    PROFILE_FORMAT_VERSION
}
