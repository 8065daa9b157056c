//! `print<polyrust-detect>` and `print<polyrust-scops>`: the regions detection accepts
//! and rejects, and their polyhedral models. Until detection lands (issue 3) they list
//! the loop nests detection will be asked about, so the printers and their format
//! header are fixed for scripts.

use std::fmt::Write;

use crate::llvm::abi::PrPrinter;
use crate::llvm::FunctionAnalyses;

pub fn print(analyses: &FunctionAnalyses<'_>, printer: PrPrinter) -> String {
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    let what = match printer {
        PrPrinter::Scops => "scops",
        _ => "detect",
    };
    let mut out = format!("polyrust-{what}: function '{name}'\n");
    for nest in analyses.top_level_loops() {
        let _ = writeln!(
            out,
            "  loop nest {} ({} loops): not yet analysed",
            nest.header_name(),
            nest.preorder().len()
        );
    }
    out
}
