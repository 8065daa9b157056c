//! `Dependences::compute`: runs the analyses on a region and puts the results together.
//!
//! Accesses to the arrays of reductions are analysed apart, one array at a time, so that
//! the reductions' self-dependences on their element can be told from the statement's
//! dependences on other arrays (a relation between instances does not say through which
//! array it goes). Accesses to different arrays never hide each other, so the union of
//! the parts is exactly the analysis of the whole region.

use std::collections::BTreeSet;

use crate::isl::{IslError, UnionMap, UnionSet};
use crate::model::{Scop, Statement};

use super::carried::{distances, LoopNests};
use super::dataflow::{analyse, Accesses, KindDeps, Order};
use super::error::DepsError;
use super::program_order::original_schedule;
use super::reduction::{array_elements, chain, check_candidate, relaxed_validity, Rejection};
use super::{DependenceKind, Dependences, DepsOptions, Reduction, ReductionCandidate};

impl Dependences {
    /// The dependences of `scop` in its original order. Runs in the isl context of
    /// `scop` under its operation bound (the caller starts the region's count).
    pub fn compute(scop: &Scop, options: &DepsOptions) -> Result<Dependences, DepsError> {
        Computation { scop, options }.run()
    }

    /// The distance vectors of the dependences of `kind` in the original time space (one
    /// dimension per time dimension of the 2d+1 schedule), e.g. `{ [0, 1, 0] }` for
    /// `A[i] = A[i - 1]`.
    pub fn distances(&self, kind: DependenceKind) -> Result<UnionSet, DepsError> {
        let step = format!("computing the distances of the {} dependences", kind.name());
        let err = |error| DepsError::Isl {
            region: self.region.clone(),
            step: step.clone(),
            error,
        };
        let deps = match kind {
            DependenceKind::Flow => self.flow.copy(),
            DependenceKind::Anti => self.anti.copy(),
            DependenceKind::Output => self.output.copy(),
            DependenceKind::Reduction => UnionMap::empty(&self.flow.ctx()).and_then(|empty| {
                self.reductions
                    .iter()
                    .try_fold(empty, |all, r| all.union(r.dependences.copy()?))
            }),
        }
        .map_err(err)?;
        distances(&deps, &self.original_schedule).map_err(err)
    }
}

/// One run of the analysis.
struct Computation<'a> {
    scop: &'a Scop,
    options: &'a DepsOptions,
}

/// The dependences, split for reductions.
struct SplitDeps {
    /// Every dependence, by kind.
    all: KindDeps,
    /// The dependences that are no reduction's, by kind.
    non_reduction: KindDeps,
    reductions: Vec<Reduction>,
    /// The dependences on arrays with reductions that are no reduction's, all kinds.
    on_reduction_arrays: UnionMap,
    /// The reductions' chains (when reassociation is allowed).
    chains: UnionMap,
}

/// A checked reduction, with what relaxing it needs.
struct CheckedReduction<'s> {
    candidate: &'s ReductionCandidate,
    statement: &'s Statement,
    write: UnionMap,
}

impl Computation<'_> {
    fn isl_error(&self, step: impl Into<String>) -> impl Fn(IslError) -> DepsError + '_ {
        let step = step.into();
        move |error| DepsError::Isl {
            region: self.scop.name.clone(),
            step: step.clone(),
            error,
        }
    }

    fn run(self) -> Result<Dependences, DepsError> {
        let scop = self.scop;
        let order =
            original_schedule(scop).map_err(self.isl_error("rebuilding the original order"))?;
        let tree = scop
            .original_schedule_tree()
            .map_err(self.isl_error("rebuilding the original order"))?;
        let reductions = self.checked_reductions()?;
        let split = self.analyse_by_array(
            &reductions,
            &Order {
                map: &order,
                tree: &tree,
            },
        )?;

        let step = "keeping what finding the loops that carry dependences needs";
        let ctx = scop.context.ctx();
        let reduction_deps = UnionMap::empty(&ctx)
            .and_then(|empty| {
                split
                    .reductions
                    .iter()
                    .try_fold(empty, |all, r| all.union(r.dependences.copy()?))
            })
            .map_err(self.isl_error(step))?;
        let carry_inputs = (|| {
            Ok::<_, IslError>(vec![
                (DependenceKind::Flow, split.non_reduction.flow.copy()?),
                (DependenceKind::Anti, split.non_reduction.anti.copy()?),
                (DependenceKind::Output, split.non_reduction.output.copy()?),
                (DependenceKind::Reduction, reduction_deps),
            ])
        })()
        .map_err(self.isl_error(step))?;

        let step = "computing the validity relation";
        let validity = if self.options.allow_reassociation && !split.reductions.is_empty() {
            split.non_reduction.all().and_then(|others| {
                relaxed_validity(others, &split.on_reduction_arrays, &split.chains)
            })
        } else {
            split.all.all().and_then(UnionMap::coalesce)
        }
        .map_err(self.isl_error(step))?;

        let err = self.isl_error("collecting the dependences");
        let all = split.all;
        Ok(Dependences {
            region: scop.name.clone(),
            flow: all.flow.coalesce().map_err(&err)?,
            anti: all.anti.coalesce().map_err(&err)?,
            output: all.output.coalesce().map_err(&err)?,
            reductions: split.reductions,
            allow_reassociation: self.options.allow_reassociation,
            loops: Default::default(),
            nests: LoopNests::of(scop),
            carry_inputs,
            validity,
            statements: scop.statements.iter().map(|s| s.name.clone()).collect(),
            original_schedule: order,
        })
    }

    /// The analyses: one for the arrays without reductions, then one per array with
    /// reductions, whose statements' self-dependences are taken apart.
    fn analyse_by_array(
        &self,
        reductions: &[CheckedReduction<'_>],
        order: &Order<'_>,
    ) -> Result<SplitDeps, DepsError> {
        let scop = self.scop;
        let ctx = scop.context.ctx();
        let reduction_arrays: BTreeSet<&str> = reductions
            .iter()
            .map(|r| r.candidate.array.as_str())
            .collect();

        let err = self.isl_error("collecting the accesses");
        let accesses = self.accesses().map_err(&err)?;
        let mut elements = UnionSet::empty(&ctx).map_err(&err)?;
        for array in &reduction_arrays {
            let array_elements = array_elements(scop, array).map_err(&err)?;
            elements = elements.union(array_elements).map_err(&err)?;
        }
        let others = accesses.without(&elements).map_err(&err)?;
        let all = self.analyse(&others, order)?;
        let mut split = SplitDeps {
            non_reduction: all.copy().map_err(&err)?,
            all,
            reductions: Vec::new(),
            on_reduction_arrays: UnionMap::empty(&ctx).map_err(&err)?,
            chains: UnionMap::empty(&ctx).map_err(&err)?,
        };

        for array in &reduction_arrays {
            let err = self.isl_error(format!("separating the reduction dependences on {array}"));
            let part = array_elements(scop, array)
                .and_then(|e| accesses.restricted_to(&e))
                .map_err(&err)?;
            let deps = self.analyse(&part, order)?;
            let mut own = UnionMap::empty(&ctx).map_err(&err)?;
            for reduction in reductions.iter().filter(|r| r.candidate.array == *array) {
                let self_deps = self_dependences(&deps, reduction).map_err(&err)?;
                own = own.union(self_deps.copy().map_err(&err)?).map_err(&err)?;
                if self.options.allow_reassociation {
                    let links = chain(reduction.statement, &reduction.write, order.map)
                        .and_then(|c| c.intersect_params(scop.context.copy()?))
                        .map_err(&err)?;
                    split.chains = split.chains.union(links).map_err(&err)?;
                }
                split.reductions.push(Reduction {
                    statement: reduction.candidate.statement.clone(),
                    array: reduction.candidate.array.clone(),
                    dependences: self_deps,
                });
            }
            let rest = deps.without(&own).map_err(&err)?;
            split.on_reduction_arrays = rest
                .all()
                .and_then(|r| split.on_reduction_arrays.union(r))
                .map_err(&err)?;
            split.non_reduction = split.non_reduction.union(rest).map_err(&err)?;
            split.all = split.all.union(deps).map_err(&err)?;
        }
        Ok(split)
    }

    /// The candidates, checked, without duplicates, in the order of the statements and
    /// then of the arrays.
    fn checked_reductions(&self) -> Result<Vec<CheckedReduction<'_>>, DepsError> {
        let unique: BTreeSet<&ReductionCandidate> = self.options.reductions.iter().collect();
        let mut checked = Vec::with_capacity(unique.len());
        for candidate in unique {
            match check_candidate(self.scop, candidate) {
                Ok((statement, write)) => checked.push(CheckedReduction {
                    candidate,
                    statement,
                    write,
                }),
                Err(Rejection::Problem(problem)) => {
                    return Err(DepsError::InvalidReduction {
                        region: self.scop.name.clone(),
                        statement: candidate.statement.clone(),
                        array: candidate.array.clone(),
                        problem,
                    })
                }
                Err(Rejection::Isl(error)) => {
                    return Err(self.isl_error(format!(
                        "checking the reduction of {} on {}",
                        candidate.statement, candidate.array
                    ))(error))
                }
            }
        }
        let position = |name: &str| self.scop.statements.iter().position(|s| s.name == name);
        checked.sort_by_key(|r| (position(&r.candidate.statement), r.candidate.array.clone()));
        Ok(checked)
    }

    /// The region's accesses, coalesced: a loop LLVM unrolled fully leaves one access
    /// per element (`p_4[0]`, `p_4[1]`, ... in one statement), each a disjunct the
    /// dataflow analysis would treat apart; coalesced they become ranges. Coalescing
    /// keeps the same elements, so must-writes stay must-writes.
    fn accesses(&self) -> Result<Accesses, IslError> {
        Ok(Accesses {
            reads: self.scop.reads.copy()?.coalesce()?,
            must_writes: self.scop.must_writes.copy()?.coalesce()?,
            may_writes: self.scop.may_writes.copy()?.coalesce()?,
        })
    }

    fn analyse(&self, accesses: &Accesses, order: &Order<'_>) -> Result<KindDeps, DepsError> {
        analyse(accesses, order, &self.scop.context)
            .map_err(|(analysis, error)| self.isl_error(analysis.step())(error))
    }
}

/// The dependences of `deps` from the reduction's statement to itself.
fn self_dependences(
    deps: &KindDeps,
    reduction: &CheckedReduction<'_>,
) -> Result<UnionMap, IslError> {
    let domain = || reduction.statement.domain.copy()?.to_union_set();
    deps.all()?
        .intersect_domain(domain()?)?
        .intersect_range(domain()?)?
        .coalesce()
}
