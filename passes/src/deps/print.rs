//! `Dependences::print`: the dependences as stable text for lit/FileCheck tests and the
//! printer pass. Every relation is printed by isl, one map (one pair of statements) per
//! line, sorted by the program order of the source and then of the sink statement, so
//! the text does not depend on the order isl keeps maps in. Relies on isl printing
//! outside the operation bound (see `isl`), so the text is complete even after a region
//! reached it.

use std::fmt::Write;

use crate::isl::UnionMap;

use super::{DependenceKind, Dependences, LoopCarry};

const INDENT: &str = "    ";

impl Dependences {
    /// The dependences in a stable text format, e.g.
    ///
    /// ```text
    /// Dependences of f:for.cond
    ///   Flow:
    ///     [n] -> { S0[i0] -> S1[i0] : 0 <= i0 < n }
    ///   Anti: none
    ///   Output: none
    ///   Reductions:
    ///     S1 on s, kept (reassociation not allowed):
    ///       [n] -> { S1[i0] -> S1[1 + i0] : 0 <= i0 <= -2 + n }
    ///   Loops carrying dependences:
    ///     S0: level 1 (i0) parallel
    ///     S1: level 1 (i0) carried (reduction)
    /// ```
    ///
    /// A loop is `parallel`, `carried (kinds)`, or `parallel with reduction` when only
    /// reductions it may reassociate cross its iterations. Statements outside every loop
    /// show `not in a loop`.
    pub fn print(&self) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    fn write_to(&self, out: &mut String) -> std::fmt::Result {
        writeln!(out, "Dependences of {}", self.region)?;
        for (heading, deps) in [
            ("Flow", &self.flow),
            ("Anti", &self.anti),
            ("Output", &self.output),
        ] {
            self.write_relation(out, heading, deps, INDENT)?;
        }
        if self.reductions.is_empty() {
            writeln!(out, "  Reductions: none")?;
        } else {
            writeln!(out, "  Reductions:")?;
            let treatment = if self.allow_reassociation {
                "relaxed (reassociation allowed)"
            } else {
                "kept (reassociation not allowed)"
            };
            for reduction in &self.reductions {
                let heading = format!(
                    "  {} on {}, {treatment}",
                    reduction.statement, reduction.array
                );
                self.write_relation(out, &heading, &reduction.dependences, "      ")?;
            }
        }
        writeln!(out, "  Loops carrying dependences:")?;
        let all_loops = match self.loops() {
            Ok(loops) => loops,
            Err(error) => {
                writeln!(out, "{INDENT}<not computed: {error}>")?;
                &[]
            }
        };
        for statement in &self.statements {
            let loops: Vec<String> = all_loops
                .iter()
                .filter(|l| &l.statement == statement)
                .map(|l| format!("level {} ({}) {}", l.level, l.iterator, self.verdict(l)))
                .collect();
            if loops.is_empty() {
                writeln!(out, "{INDENT}{statement}: not in a loop")?;
            } else {
                writeln!(out, "{INDENT}{statement}: {}", loops.join("; "))?;
            }
        }
        Ok(())
    }

    /// `  Heading: none`, or the heading and one map per line.
    fn write_relation(
        &self,
        out: &mut String,
        heading: &str,
        deps: &UnionMap,
        indent: &str,
    ) -> std::fmt::Result {
        match self.sorted_maps(deps) {
            Ok(maps) if maps.is_empty() => writeln!(out, "  {heading}: none"),
            Ok(maps) => {
                writeln!(out, "  {heading}:")?;
                for map in maps {
                    writeln!(out, "{indent}{map}")?;
                }
                Ok(())
            }
            Err(error) => writeln!(out, "  {heading}: <not printable: {error}>"),
        }
    }

    /// isl's text of each map of `deps`, in program order of (source, sink).
    fn sorted_maps(&self, deps: &UnionMap) -> Result<Vec<String>, crate::isl::IslError> {
        let position = |name: Option<String>| {
            name.and_then(|n| self.statements.iter().position(|s| *s == n))
                .unwrap_or(usize::MAX)
        };
        let mut maps = Vec::new();
        for map in deps.maps()? {
            let text = map.to_str()?;
            // isl may keep an empty map in a union map; it prints as `{  }`.
            if text.ends_with("{  }") {
                continue;
            }
            let key = (position(map.domain_name()), position(map.range_name()));
            maps.push((key, text));
        }
        maps.sort();
        Ok(maps.into_iter().map(|(_, text)| text).collect())
    }

    fn verdict(&self, carry: &LoopCarry) -> String {
        let others: Vec<&str> = carry
            .carried_by
            .iter()
            .filter(|&&k| k != DependenceKind::Reduction || !self.allow_reassociation)
            .map(|k| k.name())
            .collect();
        if !others.is_empty() {
            format!("carried ({})", others.join(", "))
        } else if carry.carried_by.contains(&DependenceKind::Reduction) {
            "parallel with reduction".into()
        } else {
            "parallel".into()
        }
    }
}
