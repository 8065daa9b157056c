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
//! Relies on the dataflow analysis of `dataflow` (run again on the accesses without the
//! private scalars) and on the model's accesses.

use crate::isl::{IslError, UnionMap, UnionSet};
use crate::model::Scop;

use super::dataflow::{analyse, Accesses, Order};
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

impl Dependences {
    /// The scalars of `scop` private to the points of `band` (a map from the
    /// statements' instances to band points), with the dependences a schedule with that
    /// band must respect instead of `validity()`; `None` when no scalar is private (or
    /// reductions may be reassociated, whose relaxed validity this does not rebuild).
    pub fn private_scalars(
        &self,
        scop: &Scop,
        band: &UnionMap,
    ) -> Result<Option<PrivateScalars>, DepsError> {
        if self.allow_reassociation && !self.reductions.is_empty() {
            return Ok(None);
        }
        let isl = |step: &'static str| {
            let region = self.region.clone();
            move |error| DepsError::Isl {
                region: region.clone(),
                step: step.into(),
                error,
            }
        };
        let step = "finding the scalars private to a band's points";
        let tree = scop.original_schedule_tree().map_err(isl(step))?;
        let order = Order {
            map: &self.original_schedule,
            tree: &tree,
        };
        let analysed = |accesses: &Accesses| {
            analyse(accesses, &order, &scop.context).map_err(|(analysis, error)| DepsError::Isl {
                region: self.region.clone(),
                step: analysis.step().into(),
                error,
            })
        };
        let accesses = Accesses {
            reads: scop.reads.copy().map_err(isl(step))?,
            must_writes: scop.must_writes.copy().map_err(isl(step))?,
            may_writes: scop.may_writes.copy().map_err(isl(step))?,
        };
        let same_point = same_point(band).map_err(isl(step))?;
        let ctx = scop.context.ctx();
        let mut scalars = Vec::new();
        let mut elements = UnionSet::empty(&ctx).map_err(isl(step))?;
        let mut within = UnionMap::empty(&ctx).map_err(isl(step))?;
        for array in scop.arrays.iter().filter(|a| a.is_scalar) {
            let own = array_elements(scop, &array.name).map_err(isl(step))?;
            let part = accesses.restricted_to(&own).map_err(isl(step))?;
            if !part.may_writes.is_empty().map_err(isl(step))? {
                continue;
            }
            // The dependences hold for the context's parameter values only.
            let reads = part
                .reads
                .copy()
                .and_then(UnionMap::domain)
                .and_then(|r| r.intersect_params(scop.context.copy()?))
                .map_err(isl(step))?;
            if reads.is_empty().map_err(isl(step))? {
                continue;
            }
            let flow = analysed(&part)?.flow;
            let private = (|| {
                let sourced = flow.copy()?.range()?;
                Ok::<_, IslError>(reads.is_subset(&sourced)? && flow.is_subset(&same_point)?)
            })()
            .map_err(isl(step))?;
            if !private {
                continue;
            }
            let pairs =
                ordered_pairs(&part, &same_point, &self.original_schedule).map_err(isl(step))?;
            within = within.union(pairs).map_err(isl(step))?;
            elements = elements.union(own).map_err(isl(step))?;
            scalars.push(array.name.clone());
        }
        if scalars.is_empty() {
            return Ok(None);
        }
        let others = analysed(&accesses.without(&elements).map_err(isl(step))?)?;
        let flow = others.flow.copy().map_err(isl(step))?;
        let validity = others
            .all()
            .and_then(|all| all.union(within.copy()?))
            .and_then(UnionMap::coalesce)
            .map_err(isl(step))?;
        Ok(Some(PrivateScalars {
            scalars,
            validity,
            within,
            flow,
        }))
    }

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
    let from_writes = same_point
        .copy()?
        .intersect_domain(writes.copy()?)?
        .intersect_range(all.copy()?)?;
    let to_writes = same_point
        .copy()?
        .intersect_domain(all)?
        .intersect_range(writes)?;
    let before = original.copy()?.lex_lt_union_map(original.copy()?)?;
    from_writes.union(to_writes)?.intersect(before)?.coalesce()
}
