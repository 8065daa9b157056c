//! `UnionSet`: a set over several tuples (all statement domains of a region).

use super::ctx::IslCtx;
use super::error::IslError;
use super::object::{count, flag, isl_object, param_names, space, unbounded};
use super::set::Set;
use super::union_map::UnionMap;

isl_object!(
    /// An isl union set, e.g. `[n] -> { S0[i0] : 0 <= i0 < n; S1[] }`.
    UnionSet,
    isl_rs::UnionSet,
    isl_union_set_to_str
);

impl UnionSet {
    /// The empty union set without parameters.
    pub fn empty(ctx: &IslCtx) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            ctx.owner(),
            "creating an empty union set",
            isl_rs::UnionSet::empty_ctx(ctx.inner()),
        )
    }

    /// This set with `set`'s points added.
    pub fn add_set(self, set: Set) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "adding a set to a union set",
            self.inner.add_set(set.inner),
        )
    }

    /// The points in either set.
    pub fn union(self, other: UnionSet) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "computing the union of two union sets",
            self.inner.union(other.inner),
        )
    }

    /// The sets of `self`, one per space.
    pub fn sets(&self) -> Result<Vec<Set>, IslError> {
        let operation = "listing the sets of a union set";
        unbounded(&self.ctx.ctx, || {
            let list = self
                .inner
                .get_set_list()
                .map_err(|error| IslError::from_lib(operation, error))?;
            if list.ptr == 0 {
                return Err(IslError::no_result(operation));
            }
            let n = count(operation, list.size())?;
            let mut sets = Vec::with_capacity(n);
            for index in 0..n {
                let index = i32::try_from(index).map_err(|_| IslError::no_result(operation))?;
                sets.push(Set::wrap(&self.ctx, operation, list.get_at(index))?);
            }
            Ok(sets)
        })
    }

    /// The points in both sets.
    pub fn intersect(self, other: UnionSet) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "intersecting two union sets",
            self.inner.intersect(other.inner),
        )
    }

    /// The points of this set not in `other`.
    pub fn subtract(self, other: UnionSet) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "subtracting a union set",
            self.inner.subtract(other.inner),
        )
    }

    /// `self` without the constraints `context` implies: a set that equals `self` within
    /// `context`.
    pub fn gist(self, context: UnionSet) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "simplifying a union set against its context",
            self.inner.gist(context.inner),
        )
    }

    /// Images of the elements of `self` under `map`.
    pub fn apply(self, map: UnionMap) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "applying a union map to a union set",
            self.inner.apply(map.inner),
        )
    }

    /// The lexicographically largest element of each space of `self` (per parameter
    /// value).
    pub fn lexmax(self) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "taking the lexicographic maximum of a union set",
            self.inner.lexmax(),
        )
    }

    /// `{ a -> b : a in self, b in other, a lexicographically before b }`, for the pairs
    /// of sets of `self` and `other` that lie in the same space.
    pub fn lex_lt_union_set(self, other: UnionSet) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "ordering two union sets lexicographically",
            self.inner.lex_lt_union_set(other.inner),
        )
    }

    /// Restricts the parameters to those in the parameter set `params`.
    pub fn intersect_params(self, params: Set) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "intersecting a union set with a parameter set",
            self.inner.intersect_params(params.inner),
        )
    }

    /// The same set in fewer, merged pieces.
    pub fn coalesce(self) -> Result<UnionSet, IslError> {
        UnionSet::wrap(&self.ctx, "simplifying a union set", self.inner.coalesce())
    }

    /// Whether the set holds no point.
    pub fn is_empty(&self) -> Result<bool, IslError> {
        flag(
            "checking a union set for emptiness",
            self.ctx_ptr(),
            self.inner.is_empty(),
        )
    }

    /// Whether both sets hold the same points.
    pub fn is_equal(&self, other: &UnionSet) -> Result<bool, IslError> {
        flag(
            "comparing two union sets",
            self.ctx_ptr(),
            self.inner.is_equal(&other.inner),
        )
    }

    /// Whether every point of this set lies in `other`.
    pub fn is_subset(&self, other: &UnionSet) -> Result<bool, IslError> {
        flag(
            "checking union set inclusion",
            self.ctx_ptr(),
            self.inner.is_subset(&other.inner),
        )
    }

    /// Parameter names, in the union set's order.
    pub fn param_names(&self) -> Result<Vec<String>, IslError> {
        param_names(&space(
            "reading a union set's space",
            self.inner.get_space(),
        )?)
    }

    /// Same union set with its parameters in the order of `model`'s (then any others).
    pub fn align_params(self, model: &Set) -> Result<UnionSet, IslError> {
        let operation = "aligning a union set's parameters";
        let model_space = space(operation, model.inner.get_space())?;
        UnionSet::wrap(&self.ctx, operation, self.inner.align_params(model_space))
    }
}
