//! `print<polyrust-loops>`: every loop of a function with its depth and the SCEV counts
//! ScalarEvolution gives, rendered by walking the SCEV tree in Rust. The wording matches
//! `print<scalar-evolution>` so a test can hold one against the other.

use std::fmt::Write;

use crate::llvm::scev_text::render;
use crate::llvm::FunctionAnalyses;

pub fn print(analyses: &FunctionAnalyses<'_>) -> String {
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    let mut out = format!("polyrust loops of function '{name}':\n");
    let loops: Vec<_> = analyses
        .top_level_loops()
        .iter()
        .flat_map(|l| l.preorder())
        .collect();
    if loops.is_empty() {
        out.push_str("  no loops\n");
    }
    for l in loops {
        let header = l.header_name();
        let indent = "  ".repeat(l.depth() as usize);
        let taken = analyses.backedge_taken_count(l);
        let _ = writeln!(out, "{indent}Loop {header}: depth {}", l.depth());
        if taken.is_could_not_compute() {
            let _ = writeln!(
                out,
                "{indent}Loop {header}: Unpredictable backedge-taken count."
            );
        } else {
            let _ = writeln!(
                out,
                "{indent}Loop {header}: backedge-taken count is {}",
                render(taken)
            );
            let trip = analyses.trip_count(l);
            let _ = writeln!(out, "{indent}Loop {header}: trip count is {}", render(trip));
        }
        let max = analyses.constant_max_backedge_taken_count(l);
        if max.is_could_not_compute() {
            let _ = writeln!(
                out,
                "{indent}Loop {header}: Unpredictable constant max backedge-taken count."
            );
        } else {
            let _ = writeln!(
                out,
                "{indent}Loop {header}: constant max backedge-taken count is {} {}",
                max.type_name(),
                render(max)
            );
        }
    }
    out
}
