//! `print<polyrust-detect>` and `print<polyrust-scops>`: the regions detection accepts
//! and rejects, and their polyhedral models.

use crate::deps::Dependences;
use crate::detect;
use crate::driver;
use crate::llvm::abi::PrPrinter;
use crate::llvm::FunctionAnalyses;
use crate::model::Scop;
use crate::options::Options;
use crate::transform::schedule::Decision;

pub fn print(analyses: &FunctionAnalyses<'_>, printer: PrPrinter, options: &Options) -> String {
    let detection = detect::detect(analyses);
    match printer {
        PrPrinter::Scops => scops(analyses, &detection, options),
        PrPrinter::Ast => asts(analyses, &detection, options),
        PrPrinter::Deps => dependences(analyses, &detection, options),
        _ => detect::print(analyses, &detection),
    }
}

/// Renders one line of text per function and one block per modelled region: the
/// shape the scops, AST and dependence printers share.
fn per_region(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
    printer: &str,
    render: impl Fn(&driver::Modelled<'_, '_>, &Scop) -> String,
) -> String {
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    let mut out = format!("polyrust-{printer}: function '{name}'\n");
    let Some(ctx) = driver::isl_context(analyses, detection, options) else {
        return out;
    };
    for modelled in driver::model_regions(analyses, &ctx, detection, options) {
        // Each region's decision gets the whole operation bound, as in the pass.
        ctx.start_region();
        match &modelled.scop {
            Some(scop) => out.push_str(&render(&modelled, scop)),
            None => out.push_str(&format!(
                "{}: no model (see the -Rpass-missed=polyrust remark)\n",
                modelled.region.spec.name
            )),
        }
    }
    out
}

/// The loop AST isl generates for each region's schedule (the original one, or the
/// one imported with -polyrust-import), under the region's assumed context; then, when
/// transformations are on, what the transformation stage decides and the AST of the
/// schedule it picks.
fn asts(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
) -> String {
    per_region(analyses, detection, options, "ast", |modelled, scop| {
        let region = &modelled.region.spec.name;
        let ast = |schedule| match crate::isl::ast::generate(&scop.assumed_context, schedule) {
            Ok(ast) => ast.text,
            Err(e) => format!("not generated: {e}\n"),
        };
        let mut out = format!("AST of {region}:\n{}", ast(&scop.schedule));
        if !options.codegen {
            return out;
        }
        match driver::decide(analyses, modelled, options) {
            Ok(Decision::Transform {
                schedule,
                description,
                ..
            }) => out.push_str(&format!(
                "New AST of {region} ({description}):\n{}",
                ast(&schedule)
            )),
            Ok(Decision::Keep(reason)) => out.push_str(&format!("{region} kept: {reason}\n")),
            Err(e) => out.push_str(&format!("{region} kept: {e}\n")),
        }
        out
    })
}

/// The value-based dependences of each region.
fn dependences(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
) -> String {
    per_region(analyses, detection, options, "deps", |modelled, scop| {
        let detected = modelled.region;
        let deps_options = driver::deps_options(&detected.spec, options);
        match Dependences::compute(scop, &deps_options) {
            Ok(deps) => deps.print(),
            Err(e) => format!("Dependences of {}: not computed: {e}\n", detected.spec.name),
        }
    })
}

fn scops(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
) -> String {
    per_region(analyses, detection, options, "scops", |_, scop| {
        scop.print()
    })
}
