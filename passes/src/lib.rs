//! polyrust's optimizer as a Rust library. The plugin crate calls `entry` for every
//! function LLVM hands over; `driver` runs the pipeline stages on it; `llvm` is the only
//! module that talks to LLVM's analyses; `report` renders what the printer passes show;
//! `transform` holds the transformations of the model; `speculate` the two-run
//! profile-guided speculation (instrumenting nests, specializing them from a profile).

#![warn(missing_docs)]

pub(crate) mod codegen;
pub mod deps;
pub(crate) mod detect;
pub(crate) mod driver;
pub mod entry;
pub mod isl;
pub mod llvm;
pub mod model;
pub mod options;
pub(crate) mod plan;
pub(crate) mod report;
pub(crate) mod rounds;
pub(crate) mod speculate;
pub mod transform;
