//! The path of one function through the optimizer, as a short list of named stages:
//! prepare the round (the IR reshaped where regions can then form, detection remarks,
//! the profile's work), detect, and per region admit, model, plan, generate, report
//! (`driver::region`). Each stage's policy lives in its own module; the decision on a
//! region is one typed value, its `plan::Plan`, which the printers show too.
//!
//! The pass rewrites at most one region per call: the IR then no longer matches the
//! analyses, and the function is run again (one more round, see `rounds`) with fresh
//! ones. What lasts across rounds is the function's `Session`, owned by the round loop.

mod region;
mod round;
mod session;

use crate::detect;
use crate::llvm::{FunctionAnalyses, Stage};
use crate::model::region::isl_context;
use crate::options::Options;

pub use session::Session;

/// Runs one round of the optimizer on one function (`Options::round`; `session` lasts
/// across the function's rounds, see `rounds`): the stages, until one changes the IR;
/// returns whether it did.
pub fn run(fa: &FunctionAnalyses<'_>, options: &Options, session: &mut Session) -> bool {
    if options.round == 0 {
        session.start_function(fa, options);
    }
    let mut detection = {
        let _time = fa.time(Stage::Detect);
        detect::detect(fa)
    };
    if round::prepare(fa, &mut detection, options, session) {
        return true;
    }
    let Some(ctx) = isl_context(fa, &detection, options.max_operations) else {
        return false;
    };
    // Each region is modelled when its turn comes, not all up front: a rewrite ends the
    // round, and the next round (fresh analyses) would model the remaining ones again.
    detection
        .regions
        .iter()
        .any(|region| region::optimize(fa, &ctx, region, options, session))
}
