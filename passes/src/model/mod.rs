//! The polyhedral model of a region: what detection found (`spec`, isl strings) turned
//! into isl objects (`Scop`): parameters, context and assumed context, arrays and alias
//! groups, and statements with their iteration domains, access relations and the original
//! schedule (flattened and as a schedule tree). `json` exports the model and imports
//! hand-written schedules, or a whole exported region as its spec.
//!
//! Input: a `ScopSpec` and an `IslCtx`. Output: a checked `Scop` or a `ModelError` that
//! names the region, the field and the offending text. Relies on the `isl` layer only; no
//! LLVM type appears here.

pub(crate) mod assumptions;
mod build;
mod error;
pub mod json;
pub(crate) mod original_schedule;
mod print;
pub(crate) mod region;
mod scop;
pub mod spec;
#[cfg(test)]
pub(crate) mod spec_builders;

pub use error::{ImportError, ModelError};
pub use scop::{Access, AliasGroup, Array, Scop, ScopAssumption, Statement};
pub use spec::{
    AccessKind, AccessSpec, ArraySpec, Assumption, AssumptionKind, ScopSpec, StatementSpec,
};

#[cfg(test)]
mod tests;
