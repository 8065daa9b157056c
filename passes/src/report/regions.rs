//! `print<polyrust-detect>` and `print<polyrust-scops>`: the regions detection accepts
//! and rejects, and their polyhedral models (and the per-region printers: AST,
//! dependences, roofline counts).

use crate::deps::{Dependences, DepsOptions};
use crate::detect;
use crate::isl::IslCtx;
use crate::llvm::abi::PrPrinter;
use crate::llvm::FunctionAnalyses;
use crate::model::region::{isl_context, model_regions, ModelSettings, Modelled};
use crate::model::Scop;
use crate::options::Options;
use crate::plan::{self, PlanSettings};
use crate::transform::Subject;

pub fn print(analyses: &FunctionAnalyses<'_>, printer: PrPrinter, options: &Options) -> String {
    let detection = detect::detect(analyses);
    match printer {
        PrPrinter::Scops => scops(analyses, &detection, options),
        PrPrinter::Ast => asts(analyses, &detection, options),
        PrPrinter::Deps => dependences(analyses, &detection, options),
        PrPrinter::Roofline => per_region(analyses, &detection, options, "roofline", |_, m, s| {
            super::roofline::render(m, s)
        }),
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
    render: impl Fn(&IslCtx, &Modelled<'_, '_>, &Scop) -> String,
) -> String {
    let name = analyses
        .function()
        .get_name()
        .to_string_lossy()
        .into_owned();
    let mut out = format!("polyrust-{printer}: function '{name}'\n");
    let Some(ctx) = isl_context(analyses, detection, options.max_operations) else {
        return out;
    };
    for modelled in model_regions(analyses, &ctx, detection, ModelSettings::new(options)) {
        // Each region's decision gets the whole operation bound, as in the pass.
        ctx.start_region();
        match &modelled.scop {
            Some(scop) => out.push_str(&render(&ctx, &modelled, scop)),
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
/// transformations are on, the region's plan: the AST of the new code with what was
/// done, or why the region is kept (the plan the pass carries out).
fn asts(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
) -> String {
    per_region(
        analyses,
        detection,
        options,
        "ast",
        |ctx, modelled, scop| {
            let region = &modelled.region.spec.name;
            let ast = match crate::isl::ast::generate(&scop.assumed_context, &scop.schedule) {
                Ok(ast) => ast.text,
                Err(e) => format!("not generated: {e}\n"),
            };
            let mut out = format!("AST of {region}:\n{ast}");
            if !options.codegen {
                return out;
            }
            let subject = Subject {
                fa: analyses,
                ctx,
                region: modelled.region,
            };
            let mut settings = PlanSettings::new(options);
            settings.threads = plan::threads(analyses.function(), options).is_some();
            let plan = plan::plan_region(&subject, scop, modelled.imported, &settings, Vec::new());
            out.push_str(&plan::print::render(region, &plan));
            out
        },
    )
}

/// The value-based dependences of each region.
fn dependences(
    analyses: &FunctionAnalyses<'_>,
    detection: &detect::Detection<'_>,
    options: &Options,
) -> String {
    per_region(analyses, detection, options, "deps", |_, modelled, scop| {
        let detected = modelled.region;
        let deps_options = DepsOptions::for_region(&detected.spec, options.allow_reassociation);
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
    per_region(analyses, detection, options, "scops", |_, _, scop| {
        scop.print()
    })
}
