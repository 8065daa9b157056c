//! Scalars private to the points of a band: a scalar (a value the region keeps in a
//! stack slot, such as the row value LLVM carries from one iteration to the next in a
//! phi) whose every read gets its value from a write in the same point of the band
//! needs no order between the band's points. Its anti and output dependences from one
//! point to another (one row's last write before the next row's first) would
//! otherwise forbid any schedule that does not run the points in their original order,
//! such as a time-tiled stencil's.
//!
//! A scalar `x` is private to the points of band `B` (instances to band points, the
//! outermost part of a schedule that runs each point's instances together) when:
//! every read of `x` has a source in the region (none reads the value from before
//! it), every source is in the read's own point (`B(w) = B(r)` for the flow
//! dependences on `x`), and all writes of `x` are must-writes. A schedule then
//! computes the same values if it keeps the order of the accesses to `x` inside each
//! point (the pairs `within`), and leaves in the slot, after the region, the value of
//! the same last write (`last_writes_unchanged`).
//!
//! `Dependences::scalar_flows` analyses each scalar's dataflow once per region;
//! `ScalarFlows::private_to` then answers for a band (a time-tiled stencil asks twice:
//! for its unskewed rows, then for the skewed band).
//!
//! Relies on the dataflow analysis of `dataflow` (run again on the accesses without the
//! private scalars, once per set of private scalars) and on the model's accesses.

use std::cell::RefCell;

use crate::isl::{IslError, Schedule, UnionMap, UnionSet};
use crate::model::Scop;

use super::dataflow::{analyse, one_analysis, Accesses, Analysis, KindDeps, Order};
use super::error::DepsError;
use super::reduction::array_elements;
use super::Dependences;

/// The dependences for a schedule whose outermost band is `band`, with the scalars
/// private to its points.
pub struct PrivateScalars {
    /// The private scalars, by name.
    pub scalars: Vec<String>,
    /// What a schedule with that band must respect: the dependences on every other
    /// array, and `within`.
    pub validity: UnionMap,
    /// The pairs of accesses to the private scalars (one of them a write) in the same
    /// point of the band, in their original order.
    pub within: UnionMap,
    /// The flow dependences through every other array.
    pub flow: UnionMap,
}

/// One scalar a region reads and only must-writes, with its dataflow.
struct ScalarFlow {
    name: String,
    elements: UnionSet,
    accesses: Accesses,
    /// The instances that read it (for the context's parameter values).
    reads: UnionSet,
    /// The flow dependences through it.
    flow: UnionMap,
}

/// A region's scalars with their dataflow, computed once: which of them are private
/// depends on the band (`private_to`), their dataflow does not.
pub struct ScalarFlows<'s> {
    deps: &'s Dependences,
    scop: &'s Scop,
    tree: Schedule,
    accesses: Accesses,
    scalars: Vec<ScalarFlow>,
    /// The dependences through every other array, for the set of private scalars they
    /// were last computed for (the same set is asked again for the final band).
    others: RefCell<Option<(Vec<String>, KindDeps)>>,
}

impl Dependences {
    /// The scalars of `scop` that may be private to the points of a band, with their
    /// dataflow; `None` when there are none (or reductions may be reassociated, whose
    /// relaxed validity this does not rebuild).
    pub fn scalar_flows<'s>(
        &'s self,
        scop: &'s Scop,
    ) -> Result<Option<ScalarFlows<'s>>, DepsError> {
        if self.allow_reassociation && !self.reductions.is_empty() {
            return Ok(None);
        }
        let isl = self.isl_step("finding the scalars that may be private");
        let build = || -> Result<(Schedule, Accesses), IslError> {
            let accesses = Accesses {
                reads: scop.reads.copy()?,
                must_writes: scop.must_writes.copy()?,
                may_writes: scop.may_writes.copy()?,
            };
            Ok((scop.original_schedule_tree()?, accesses))
        };
        let (tree, accesses) = build().map_err(&isl)?;
        let order = Order {
            map: &self.original_schedule,
            tree: &tree,
        };
        let mut scalars = Vec::new();
        for array in scop.arrays.iter().filter(|a| a.is_scalar) {
            let elements = array_elements(scop, &array.name).map_err(&isl)?;
            let part = accesses.restricted_to(&elements).map_err(&isl)?;
            if !part.may_writes.is_empty().map_err(&isl)? {
                continue;
            }
            // The dependences hold for the context's parameter values only.
            let reads = part
                .reads
                .copy()
                .and_then(UnionMap::domain)
                .and_then(|r| r.intersect_params(scop.context.copy()?))
                .map_err(&isl)?;
            if reads.is_empty().map_err(&isl)? {
                continue;
            }
            let flow = one_analysis(Analysis::Flow, &part, &order, &scop.context)
                .map_err(self.isl_step(Analysis::Flow.step()))?;
            scalars.push(ScalarFlow {
                name: array.name.clone(),
                elements,
                accesses: part,
                reads,
                flow,
            });
        }
        if scalars.is_empty() {
            return Ok(None);
        }
        Ok(Some(ScalarFlows {
            deps: self,
            scop,
            tree,
            accesses,
            scalars,
            others: RefCell::new(None),
        }))
    }

    fn isl_step(&self, step: &'static str) -> impl Fn(IslError) -> DepsError + '_ {
        move |error| DepsError::Isl {
            region: self.region.clone(),
            step: step.into(),
            error,
        }
    }
}

impl ScalarFlows<'_> {
    /// The scalars private to the points of `band` (a map from the statements'
    /// instances to band points), with the dependences a schedule with that band must
    /// respect instead of `validity()`; `None` when no scalar is private.
    pub fn private_to(&self, band: &UnionMap) -> Result<Option<PrivateScalars>, DepsError> {
        let deps = self.deps;
        let isl = deps.isl_step("finding the scalars private to a band's points");
        let same_point = same_point(band).map_err(&isl)?;
        let ctx = self.scop.context.ctx();
        let mut scalars = Vec::new();
        let mut elements = UnionSet::empty(&ctx).map_err(&isl)?;
        let mut within = UnionMap::empty(&ctx).map_err(&isl)?;
        for scalar in &self.scalars {
            let private = (|| {
                let sourced = scalar.flow.copy()?.range()?;
                Ok::<_, IslError>(
                    scalar.reads.is_subset(&sourced)? && scalar.flow.is_subset(&same_point)?,
                )
            })()
            .map_err(&isl)?;
            if !private {
                continue;
            }
            let pairs = ordered_pairs(&scalar.accesses, &same_point, &deps.original_schedule)
                .map_err(&isl)?;
            within = within.union(pairs).map_err(&isl)?;
            elements = elements
                .union(scalar.elements.copy().map_err(&isl)?)
                .map_err(&isl)?;
            scalars.push(scalar.name.clone());
        }
        if scalars.is_empty() {
            return Ok(None);
        }
        let mut others = self.others.borrow_mut();
        if others.as_ref().is_none_or(|(set, _)| *set != scalars) {
            let order = Order {
                map: &deps.original_schedule,
                tree: &self.tree,
            };
            let without = self.accesses.without(&elements).map_err(&isl)?;
            let analysed =
                analyse(&without, &order, &self.scop.context).map_err(|(analysis, error)| {
                    DepsError::Isl {
                        region: deps.region.clone(),
                        step: analysis.step().into(),
                        error,
                    }
                })?;
            *others = Some((scalars.clone(), analysed));
        }
        let Some((_, others)) = others.as_ref() else {
            return Ok(None);
        };
        let flow = others.flow.copy().map_err(&isl)?;
        let validity = others
            .all()
            .and_then(|all| all.union(within.copy()?))
            .and_then(UnionMap::coalesce)
            .map_err(&isl)?;
        Ok(Some(PrivateScalars {
            scalars,
            validity,
            within,
            flow,
        }))
    }
}

impl Dependences {
    /// Whether, under `schedule`, the last write of each of `scalars` is the one that
    /// runs last in the original order: the value left in its slot after the region.
    pub fn last_writes_unchanged(
        &self,
        scop: &Scop,
        scalars: &[String],
        schedule: &UnionMap,
    ) -> Result<bool, DepsError> {
        let check = || -> Result<bool, IslError> {
            for name in scalars {
                let own = array_elements(scop, name)?;
                let writes = scop.must_writes.copy()?.intersect_range(own)?.domain()?;
                let last = |order: &UnionMap| -> Result<UnionSet, IslError> {
                    writes
                        .copy()?
                        .apply(order.copy()?)?
                        .lexmax()?
                        .apply(order.copy()?.reverse()?)
                };
                if !last(&self.original_schedule)?.is_equal(&last(schedule)?)? {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        check().map_err(|error| DepsError::Isl {
            region: self.region.clone(),
            step: "checking the last writes of private scalars".into(),
            error,
        })
    }
}

/// `{ a -> b : band(a) = band(b) }`.
fn same_point(band: &UnionMap) -> Result<UnionMap, IslError> {
    band.copy()?.apply_range(band.copy()?.reverse()?)
}

/// The pairs of `part`'s instances in one band point, one of them a write, in their
/// original order.
fn ordered_pairs(
    part: &Accesses,
    same_point: &UnionMap,
    original: &UnionMap,
) -> Result<UnionMap, IslError> {
    let writes = part.must_writes.copy()?.domain()?;
    let all = part.reads.copy()?.domain()?.union(writes.copy()?)?;
    let all_instances = all.copy()?;
    let from_writes = same_point
        .copy()?
        .intersect_domain(writes.copy()?)?
        .intersect_range(all.copy()?)?;
    let to_writes = same_point
        .copy()?
        .intersect_domain(all)?
        .intersect_range(writes)?;
    // Only the scalar's instances: the order of the whole region is a relation between
    // every pair of statements, much costlier to build.
    let own = original.copy()?.intersect_domain(all_instances)?;
    let before = own.copy()?.lex_lt_union_map(own)?;
    from_writes.union(to_writes)?.intersect(before)?.coalesce()
}
