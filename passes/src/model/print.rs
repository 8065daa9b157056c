//! `Scop::print`: the model as stable text for lit/FileCheck tests and the
//! `print<polyrust-scops>` pass. Every set and map is printed by isl itself, so a test can
//! copy isl's output; the order of everything else is the spec's. Relies on isl printing
//! outside the operation bound (see `isl`), so a region that reached it still prints.

use std::fmt::Write;

use super::scop::{access_kind_name, assumption_kind_name, Scop};

/// Indentation of the schedule tree's YAML under its heading.
const TREE_INDENT: &str = "    ";

impl Scop {
    /// The model in a stable text format, e.g.
    ///
    /// ```text
    /// Scop f:for.cond (file.c:3:5)
    ///   Parameters: [n]
    ///   Context: [n] -> {  : -2147483648 <= n <= 2147483647 }
    ///   Assumed context: [n] -> {  : -2147483648 <= n <= 2147483646 }
    ///   Assumptions:
    ///     no-wrap: [n] -> {  : n <= 2147483646 } (counter of %for.body does not wrap)
    ///   Arrays:
    ///     double A[*] (8 bytes)
    ///   Alias groups: none
    ///   Statements:
    ///     S0 (%for.body)
    ///       Domain: [n] -> { S0[i0] : 0 <= i0 < n }
    ///       Schedule: [n] -> { S0[i0] -> [0, i0, 0] }
    ///       MustWrite: [n] -> { S0[i0] -> A[i0] }   ; store double 0.0, ptr %p
    ///   Schedule tree:
    ///     domain: "[n] -> { S0[i0] : 0 <= i0 < n }"
    ///     child:
    ///       schedule: "[n] -> [{ S0[i0] -> [(i0)] }]"
    /// ```
    pub fn print(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    fn write_to(&self, out: &mut String) -> std::fmt::Result {
        match &self.location {
            Some(location) => writeln!(out, "Scop {} ({location})", self.name)?,
            None => writeln!(out, "Scop {}", self.name)?,
        }
        writeln!(out, "  Parameters: [{}]", self.params.join(", "))?;
        writeln!(out, "  Context: {}", shown(self.context.to_str()))?;
        writeln!(
            out,
            "  Assumed context: {}",
            shown(self.assumed_context.to_str())
        )?;
        if self.assumptions.is_empty() {
            writeln!(out, "  Assumptions: none")?;
        } else {
            writeln!(out, "  Assumptions:")?;
            for assumption in &self.assumptions {
                writeln!(
                    out,
                    "    {}: {} ({})",
                    assumption_kind_name(assumption.kind),
                    shown(self.assumption_set(assumption).and_then(|set| set.to_str())),
                    assumption.reason
                )?;
            }
        }
        writeln!(out, "  Arrays:")?;
        for array in &self.arrays {
            if array.is_scalar {
                writeln!(out, "    {} {} (scalar)", array.element_type, array.name)?;
            } else {
                let inner: String = array.inner_sizes.iter().map(|s| format!("[{s}]")).collect();
                writeln!(
                    out,
                    "    {} {}[*]{inner} ({} bytes)",
                    array.element_type, array.name, array.element_size
                )?;
            }
        }
        if self.alias_groups.is_empty() {
            writeln!(out, "  Alias groups: none")?;
        } else {
            writeln!(out, "  Alias groups:")?;
            for group in &self.alias_groups {
                writeln!(out, "    {{ {} }}", group.arrays.join(", "))?;
            }
        }
        writeln!(out, "  Statements:")?;
        for statement in &self.statements {
            writeln!(out, "    {} ({})", statement.name, statement.block)?;
            writeln!(out, "      Domain: {}", shown(statement.domain.to_str()))?;
            writeln!(
                out,
                "      Schedule: {}",
                shown(statement.schedule.to_str())
            )?;
            for access in &statement.accesses {
                write!(
                    out,
                    "      {}: {}",
                    access_kind_name(access.kind),
                    shown(access.relation.to_str())
                )?;
                if access.instruction.is_empty() {
                    writeln!(out)?;
                } else {
                    writeln!(out, "   ; {}", access.instruction)?;
                }
            }
        }
        writeln!(out, "  Schedule tree:")?;
        for line in shown(self.schedule.to_block_yaml()).lines() {
            writeln!(out, "{TREE_INDENT}{line}")?;
        }
        Ok(())
    }
}

/// isl's text, or the reason it could not be printed.
fn shown(text: Result<String, crate::isl::IslError>) -> String {
    text.unwrap_or_else(|error| format!("<not printable: {error}>"))
}
