//! `print<polyrust-detect>` and `print<polyrust-scops>`: the regions detection accepts
//! and rejects, and their polyhedral models.

use crate::detect;
use crate::llvm::abi::PrPrinter;
use crate::llvm::FunctionAnalyses;

pub fn print(analyses: &FunctionAnalyses<'_>, printer: PrPrinter) -> String {
    let detection = detect::detect(analyses);
    match printer {
        PrPrinter::Scops => scops(analyses, &detection),
        _ => detect::print(analyses, &detection),
    }
}

fn scops(analyses: &FunctionAnalyses<'_>, detection: &detect::Detection<'_>) -> String {
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    let mut out = format!("polyrust-scops: function '{name}'\n");
    for region in &detection.regions {
        out.push_str(&format!("{:#?}\n", region.spec));
    }
    out
}
