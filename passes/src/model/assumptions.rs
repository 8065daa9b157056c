//! Questions about a region's assumptions whose answer names the assumptions
//! responsible: which never hold where their statement runs, and which fail for every
//! parameter value of a given set (the refusal of regions that would only run tiny
//! problems quotes them). An in-bounds access always gives a true in-bounds assumption,
//! so one that never holds points at detection (a wrong split of an offset across the
//! dimensions), or at a program that indexes out of a dimension wherever it runs.

use crate::isl::{parse_set, IslError, Set};

use super::build::holds_on_domain;
use super::scop::{assumption_kind_name, Scop, ScopAssumption};

impl Scop {
    /// The parameter values for which `assumption` (one of this region's) holds: its
    /// set itself for a parameter set; for a statement's set, the values where no point
    /// of the statement's domain lies outside it. The assumed context is computed per
    /// statement, from all its assumptions at once; these are for saying which ones
    /// fail, each computed when first asked (an assumption stated again, once).
    pub fn assumption_condition(&self, assumption: &ScopAssumption) -> Result<Set, IslError> {
        let index = self
            .assumptions
            .iter()
            .position(|a| std::ptr::eq(a, assumption))
            .ok_or_else(|| IslError::Other {
                context: "the condition of an assumption".into(),
                message: "the assumption is not one of this region's".into(),
            })?;
        let index = assumption.repeats.unwrap_or(index);
        let cell = self.conditions.get(index).ok_or_else(|| IslError::Other {
            context: "the condition of an assumption".into(),
            message: "the region's conditions were not set up".into(),
        })?;
        if let Some(condition) = cell.get() {
            return condition.copy();
        }
        let computed = self.compute_condition(&self.assumptions[index])?;
        cell.get_or_init(|| computed).copy()
    }

    /// The set of `assumption` (one of this region's), aligned to the region's
    /// parameters; read from its text when first asked.
    pub fn assumption_set(&self, assumption: &ScopAssumption) -> Result<Set, IslError> {
        if let Some(set) = assumption.set.get() {
            return set.copy();
        }
        let set = parse_set(&self.context.ctx(), &assumption.text, "an assumption")?
            .align_params(&self.context)?;
        assumption.set.get_or_init(|| set).copy()
    }

    fn compute_condition(&self, assumption: &ScopAssumption) -> Result<Set, IslError> {
        let statement = assumption
            .statement
            .as_ref()
            .and_then(|name| self.statements.iter().find(|s| &s.name == name));
        match statement {
            None => self.assumption_set(assumption),
            Some(statement) => {
                let universe = Set::params_universe(&self.context.ctx(), &self.params)?;
                holds_on_domain(
                    &universe,
                    &statement.domain,
                    self.assumption_set(assumption)?,
                )
            }
        }
    }

    /// Whether `assumption` fails for every parameter value for which its statement runs
    /// (within the context); a parameter assumption, for every value of the context. An
    /// assumption whose statement never runs does not count: it costs nothing.
    pub fn never_holds(&self, assumption: &ScopAssumption) -> Result<bool, IslError> {
        let runs = match &assumption.statement {
            Some(name) => match self.statements.iter().find(|s| &s.name == name) {
                Some(s) => s.domain.copy()?.params()?.intersect(self.context.copy()?)?,
                None => return Ok(false),
            },
            None => self.context.copy()?,
        };
        if runs.is_empty()? {
            return Ok(false);
        }
        self.assumption_condition(assumption)?
            .intersect(runs)?
            .is_empty()
    }

    /// Whether `assumption` fails for every parameter value of `within`.
    pub fn fails_within(
        &self,
        assumption: &ScopAssumption,
        within: &Set,
    ) -> Result<bool, IslError> {
        self.assumption_condition(assumption)?
            .intersect(within.copy()?)?
            .is_empty()
    }

    /// The assumptions that never hold where their statement runs (see `never_holds`).
    pub fn assumptions_never_holding(&self) -> Result<Vec<&ScopAssumption>, IslError> {
        let mut out = Vec::new();
        for assumption in &self.assumptions {
            if self.never_holds(assumption)? {
                out.push(assumption);
            }
        }
        Ok(out)
    }

    /// The assumptions that fail for every parameter value of `params` the context
    /// allows.
    pub fn assumptions_failing_within(
        &self,
        params: &Set,
    ) -> Result<Vec<&ScopAssumption>, IslError> {
        let within = self.context.copy()?.intersect(params.copy()?)?;
        let mut out = Vec::new();
        for assumption in &self.assumptions {
            if self.fails_within(assumption, &within)? {
                out.push(assumption);
            }
        }
        Ok(out)
    }

    /// Reports, in builds with debug assertions, every assumption that never holds
    /// where its statement runs: such a region can never run its optimized code, and
    /// detection should not have produced the assumption for in-bounds code.
    pub(super) fn report_never_holding(&self) {
        if !cfg!(debug_assertions) {
            return;
        }
        match self.assumptions_never_holding() {
            Ok(never) => {
                for a in never {
                    eprintln!(
                        "polyrust: debug: region {}: assumption never holds where it is needed: {}",
                        self.name,
                        describe(a)
                    );
                }
            }
            Err(e) => eprintln!(
                "polyrust: debug: region {}: could not check the assumptions: {e}",
                self.name
            ),
        }
    }
}

/// `in-bounds of S0: <reason>` (the statement, if any, and why the assumption is made).
pub fn describe(assumption: &ScopAssumption) -> String {
    let kind = assumption_kind_name(assumption.kind);
    match &assumption.statement {
        Some(s) => format!("{kind} of {s}: {}", assumption.reason),
        None => format!("{kind}: {}", assumption.reason),
    }
}
