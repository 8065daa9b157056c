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
        PrPrinter::Ast => asts(analyses, &detection, options),
        PrPrinter::Deps => dependences(analyses, &detection, options),
        _ => detect::print(analyses, &detection),
    }
}

/// The loop AST isl generates for each region's schedule (the original one, or the
/// one imported with -polyrust-import), under the region's assumed context.
fn asts(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
) -> String {
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    let mut out = format!("polyrust-ast: function '{name}'\n");
    let Some(ctx) = driver::isl_context(analyses, detection, options) else {
        return out;
    };
    for modelled in driver::model_regions(analyses, &ctx, detection, options) {
        let region = &modelled.region.spec.name;
        match &modelled.scop {
            Some(scop) => match crate::isl::ast::generate(&scop.assumed_context, &scop.schedule) {
                Ok(ast) => out.push_str(&format!("AST of {region}:\n{}", ast.text)),
                Err(e) => out.push_str(&format!("AST of {region}: not generated: {e}\n")),
            },
            None => out.push_str(&format!("AST of {region}: no model\n")),
        }
    }
    out
}

/// The value-based dependences of each region.
fn dependences(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
) -> String {
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    let mut out = format!("polyrust-deps: function '{name}'\n");
    let Some(ctx) = driver::isl_context(analyses, detection, options) else {
        return out;
    };
    for modelled in driver::model_regions(analyses, &ctx, detection, options) {
        let region = &modelled.region.spec.name;
        match &modelled.scop {
            Some(scop) => {
                match crate::deps::Dependences::compute(scop, &crate::deps::DepsOptions::default())
                {
                    Ok(deps) => out.push_str(&deps.print()),
                    Err(e) => {
                        out.push_str(&format!("Dependences of {region}: not computed: {e}\n"))
                    }
                }
            }
            None => out.push_str(&format!("Dependences of {region}: no model\n")),
        }
    }
    out
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
    let Some(ctx) = driver::isl_context(analyses, detection, options) else {
        return out;
    };
    for modelled in driver::model_regions(analyses, &ctx, detection, options) {
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
