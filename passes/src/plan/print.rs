//! How the printers show a plan (`print<polyrust-ast>`): the new loop AST with what was
//! done, the steps back taken, or why the region is kept. The text comes from the same
//! plan the pass carries out.

use super::{Outcome, Plan};

/// The plan of the region named `region`, as `print<polyrust-ast>` shows it after the
/// region's original AST.
pub fn render(region: &str, plan: &Plan) -> String {
    match &plan.outcome {
        Outcome::Generate(new) => {
            let mut out = String::new();
            for fallback in &new.fallbacks {
                out.push_str(&format!("{region} steps back: {}\n", fallback.describe()));
            }
            out.push_str(&format!(
                "New AST of {region} ({}):\n{}",
                new.description, new.ast.text
            ));
            out
        }
        Outcome::Product(product) => format!(
            "New code of {region} ({}):\n{}",
            product.description(),
            product.call_text()
        ),
        Outcome::Closure(closure) => format!(
            "New code of {region} ({}):\n{}",
            closure.description(),
            closure.call_text()
        ),
        Outcome::Keep(reason) => format!("{region} kept: {}\n", reason.describe()),
    }
}
