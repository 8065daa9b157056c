//! polyrust_rt: the instrumentation runtime linked into programs compiled with
//! `-polyrust-profile-generate`, and the profile format the second compile reads.
//!
//! - [`profile`]: the profile types (serde), reading with every check a hostile file
//!   needs, merging, writing. This is all the compiler uses
//!   (`default-features = false`).
//! - [`abi`] (feature `abi`, on by default): the C functions the instrumented program
//!   calls (`runtime/include/polyrust_rt.h`); the staticlib is what users link
//!   (`-lpolyrust_rt`).
//! - [`arena`] (feature `abi`): the global allocator, which keeps the runtime's memory
//!   out of the program's heap once the program calls the runtime.
//! - `record`: what is kept per loop nest while the program runs.
//! - [`fold`]: online folding of (iteration vector, label) streams into polyhedra.
//! - [`accesses`]: per nest, the folded streams of its sites and dependences
//!   (`-polyrust-instrument=accesses`).
//! - [`report`]: verdicts per nest (affine, parallel, permutable) as Markdown or HTML.
//! - [`trace`]: address trace → the loop nests that regenerate it (issue 13), and the
//!   compressed traces the runtime records with `POLYRUST_TRACE=DIR`.
//!
//! The `polyrust-prof` tool (`src/bin/polyrust-prof/`) shows and merges profiles,
//! models address traces and expands compressed ones.

#[cfg(feature = "abi")]
pub mod abi;
pub mod accesses;
#[cfg(feature = "abi")]
pub mod arena;
pub mod fold;
pub mod profile;
#[cfg(feature = "abi")]
mod record;
pub mod report;
pub mod trace;

/// The runtime's allocations come from its own mapping once a program calls it.
#[cfg(feature = "abi")]
#[global_allocator]
static ALLOCATOR: arena::Arena = arena::Arena;

pub use profile::{Profile, ProfileError, PROFILE_FORMAT, PROFILE_FORMAT_VERSION};
