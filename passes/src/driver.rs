//! The path of one function through the optimizer. Stages are added here as they are
//! built (detect → model → deps → transform → codegen); today the driver reports the
//! loop nests it was given, which shows the whole bridge is live in opt and clang.

use crate::llvm::{FunctionAnalyses, RemarkAt, RemarkKind};
use crate::options::Options;

/// Runs the optimizer on one function; returns whether the IR changed.
pub fn run(analyses: &FunctionAnalyses<'_>, _options: &Options) -> bool {
    for nest in analyses.top_level_loops() {
        let loops = nest.preorder();
        let depth = loops.iter().map(|l| l.depth()).max().unwrap_or(1);
        analyses.remark(
            RemarkKind::Analysis,
            "LoopNest",
            RemarkAt::loop_start(nest),
            &format!(
                "loop nest of {} loop{} and depth {depth} seen by polyrust",
                loops.len(),
                if loops.len() == 1 { "" } else { "s" }
            ),
        );
    }
    false
}
