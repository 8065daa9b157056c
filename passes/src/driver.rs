//! The path of one function through the optimizer: detect → model → deps → transform
//! → codegen. Stages are added here as they land; today detection runs and reports.

use crate::detect;
use crate::llvm::FunctionAnalyses;
use crate::options::Options;

/// Runs the optimizer on one function; returns whether the IR changed.
pub fn run(analyses: &FunctionAnalyses<'_>, _options: &Options) -> bool {
    let detection = detect::detect(analyses);
    detect::emit_remarks(analyses, &detection);
    false
}
