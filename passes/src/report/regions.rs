//! `print<polyrust-detect>` and `print<polyrust-scops>`: the regions detection accepts
//! and rejects, and their polyhedral models.

use crate::detect;
use crate::driver;
use crate::llvm::abi::PrPrinter;
use crate::llvm::FunctionAnalyses;
use crate::options::Options;

pub fn print(analyses: &FunctionAnalyses<'_>, printer: PrPrinter, options: &Options) -> String {
    let detection = detect::detect(analyses);
    match printer {
        PrPrinter::Scops => scops(analyses, &detection, options),
        _ => detect::print(analyses, &detection),
    }
}

fn scops(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
) -> String {
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    let mut out = format!("polyrust-scops: function '{name}'\n");
    for modelled in driver::model_regions(analyses, detection, options) {
        match &modelled.scop {
            Some(scop) => out.push_str(&scop.print()),
            None => out.push_str(&format!(
                "Scop {}: no model (see the -Rpass-missed=polyrust remark)\n",
                modelled.region.spec.name
            )),
        }
    }
    out
}
