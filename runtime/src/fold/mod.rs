//! Folding (Gruber et al., "Building a Polyhedral Representation from an Instrumented
//! Execution", digest in `papers/notes/folding.md`): a stream of (iteration vector,
//! label) points, in lexicographic order, is folded online into a union of elementary
//! polyhedra, each with an affine label function whose coefficients are integers or ⊤
//! (not affine along that loop). Without ⊤ the pieces regenerate the stream exactly.
//!
//! - [`label`]: label functions (⊥ → integer → ⊤ lattice, multi-output, checked i128).
//! - [`polyhedron`]: elementary polyhedra, merge and extension geometry, regeneration.
//! - [`stream`]: the online algorithm, with the geometric give-up that bounds memory.
//!
//! Relies on nothing but the order of the points: a point not after the previous one
//! makes the stream give up geometry rather than fold wrongly.

pub mod label;
pub mod polyhedron;
pub mod stream;

pub use label::{Coefficient, LabelOutput};
pub use stream::{FoldConfig, Folded, Piece, Stream, MAX_FOLD_DIMS};

#[cfg(test)]
mod tests;
