//! `UnionMap`: a relation over several tuples (all reads of a region, a whole schedule).

use super::ctx::IslCtx;
use super::error::IslError;
use super::map::Map;
use super::object::{count, flag, isl_object, param_names, space, unbounded};
use super::set::Set;
use super::union_set::UnionSet;

isl_object!(
    /// An isl union map, e.g. `[n] -> { S0[i0] -> A[i0]; S1[i0] -> A[i0 - 1] }`.
    UnionMap,
    isl_rs::UnionMap,
    isl_union_map_to_str
);

impl UnionMap {
    /// The empty union map without parameters.
    pub fn empty(ctx: &IslCtx) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            ctx.owner(),
            "creating an empty union map",
            isl_rs::UnionMap::empty_ctx(ctx.inner()),
        )
    }

    /// This relation with `map`'s pairs added.
    pub fn add_map(self, map: Map) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "adding a map to a union map",
            self.inner.add_map(map.inner),
        )
    }

    /// The pairs in either relation.
    pub fn union(self, other: UnionMap) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "computing the union of two union maps",
            self.inner.union(other.inner),
        )
    }

    /// The pairs whose source lies in `domain`.
    pub fn intersect_domain(self, domain: UnionSet) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "restricting a union map's domain",
            self.inner.intersect_domain(domain.inner),
        )
    }

    /// The pairs in both relations.
    pub fn intersect(self, other: UnionMap) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "intersecting two union maps",
            self.inner.intersect(other.inner),
        )
    }

    /// The pairs whose target lies in `range`.
    pub fn intersect_range(self, range: UnionSet) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "restricting a union map's range",
            self.inner.intersect_range(range.inner),
        )
    }

    /// `self` followed by `next`: `{ a -> c : exists b: a -> b in self, b -> c in next }`.
    pub fn apply_range(self, next: UnionMap) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "composing two union maps",
            self.inner.apply_range(next.inner),
        )
    }

    /// `{ a -> [b, c] : a -> b in self, a -> c in other }`, the images side by side in
    /// one flat tuple.
    pub fn flat_range_product(self, other: UnionMap) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "putting two union maps' images side by side",
            self.inner.flat_range_product(other.inner),
        )
    }

    /// The relation with sources and targets swapped.
    pub fn reverse(self) -> Result<UnionMap, IslError> {
        UnionMap::wrap(&self.ctx, "reversing a union map", self.inner.reverse())
    }

    /// `{ a -> b : self(a) is lexicographically before other(b) }`, comparing images in
    /// the same space. With a schedule for both, the "runs before" relation.
    pub fn lex_lt_union_map(self, other: UnionMap) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "ordering two union maps lexicographically",
            self.inner.lex_lt_union_map(other.inner),
        )
    }

    /// Whether some relation needs integer divisions to be described (quasi-affine
    /// subscripts such as `(i + j) / 2`); see `Map::involves_divisions`.
    pub fn involves_divisions(&self) -> Result<bool, IslError> {
        for map in self.maps()? {
            if map.involves_divisions()? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `next` applied to the domain: `{ c -> b : exists a: a -> b in self, a -> c in next }`.
    pub fn apply_domain(self, next: UnionMap) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "applying a union map to the domain of another",
            self.inner.apply_domain(next.inner),
        )
    }

    /// The pairs of `self` that are not in `other`.
    pub fn subtract(self, other: UnionMap) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "subtracting two union maps",
            self.inner.subtract(other.inner),
        )
    }

    /// The pairs of `self` whose image is not in `range`.
    pub fn subtract_range(self, range: UnionSet) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "removing part of a union map's range",
            self.inner.subtract_range(range.inner),
        )
    }

    /// Restricts the parameters to those in the parameter set `params`.
    pub fn intersect_params(self, params: Set) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "intersecting a union map with a parameter set",
            self.inner.intersect_params(params.inner),
        )
    }

    /// `{ b - a : a -> b in self }` for the maps of `self` whose domain and range are in
    /// the same space (the others are left out).
    pub fn deltas(self) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "computing the differences of a union map",
            self.inner.deltas(),
        )
    }

    /// The maps of `self`, one per pair of spaces, in isl's (hash) order. Listing is
    /// bounded by the size of `self`: like printing, it runs outside the operation bound.
    pub fn maps(&self) -> Result<Vec<Map>, IslError> {
        let operation = "listing the maps of a union map";
        unbounded(&self.ctx.ctx, || {
            let list = self
                .inner
                .get_map_list()
                .map_err(|error| IslError::from_lib(operation, error))?;
            if list.ptr == 0 {
                return Err(IslError::no_result(operation));
            }
            let n = count(operation, list.size())?;
            let mut maps = Vec::with_capacity(n);
            for index in 0..n {
                let index = i32::try_from(index).map_err(|_| IslError::no_result(operation))?;
                maps.push(Map::wrap(&self.ctx, operation, list.get_at(index))?);
            }
            Ok(maps)
        })
    }

    /// The set of the relation's sources.
    pub fn domain(self) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "taking a union map's domain",
            self.inner.domain(),
        )
    }

    /// The set of the relation's targets.
    pub fn range(self) -> Result<UnionSet, IslError> {
        UnionSet::wrap(&self.ctx, "taking a union map's range", self.inner.range())
    }

    /// Whether the relation holds no pair.
    pub fn is_empty(&self) -> Result<bool, IslError> {
        flag(
            "checking a union map for emptiness",
            self.ctx_ptr(),
            self.inner.is_empty(),
        )
    }

    /// Whether both relations hold the same pairs.
    pub fn is_equal(&self, other: &UnionMap) -> Result<bool, IslError> {
        flag(
            "comparing two union maps",
            self.ctx_ptr(),
            self.inner.is_equal(&other.inner),
        )
    }

    /// Whether every pair of this relation lies in `other`.
    pub fn is_subset(&self, other: &UnionMap) -> Result<bool, IslError> {
        flag(
            "checking union map inclusion",
            self.ctx_ptr(),
            self.inner.is_subset(&other.inner),
        )
    }

    /// True when no two domain elements share an image.
    pub fn is_injective(&self) -> Result<bool, IslError> {
        flag(
            "checking that a union map is injective",
            self.ctx_ptr(),
            self.inner.is_injective(),
        )
    }

    /// True when each domain element has at most one image.
    pub fn is_single_valued(&self) -> Result<bool, IslError> {
        flag(
            "checking that a union map is a function",
            self.ctx_ptr(),
            self.inner.is_single_valued(),
        )
    }

    /// Parameter names, in the union map's order.
    pub fn param_names(&self) -> Result<Vec<String>, IslError> {
        param_names(&space(
            "reading a union map's space",
            self.inner.get_space(),
        )?)
    }

    /// Same union map with its parameters in the order of `model`'s (then any others).
    pub fn align_params(self, model: &Set) -> Result<UnionMap, IslError> {
        let operation = "aligning a union map's parameters";
        let model_space = space(operation, model.inner.get_space())?;
        UnionMap::wrap(&self.ctx, operation, self.inner.align_params(model_space))
    }

    /// The same relation in fewer, merged pieces.
    pub fn coalesce(self) -> Result<UnionMap, IslError> {
        UnionMap::wrap(&self.ctx, "simplifying a union map", self.inner.coalesce())
    }

    /// The largest number of constraints (equalities and inequalities) of one basic map
    /// of `self`. Reading the constraints is bounded by the size of `self`: like
    /// printing, it runs outside the operation bound.
    pub fn most_constraints(&self) -> Result<usize, IslError> {
        let operation = "counting the constraints of a union map";
        let lib = |error| IslError::from_lib(operation, error);
        let maps = self.maps()?;
        unbounded(&self.ctx.ctx, || {
            let mut most = 0;
            for map in &maps {
                let pieces = map.inner.get_basic_map_list().map_err(lib)?;
                for piece in 0..pieces.size().map_err(lib)? {
                    let constraints = pieces
                        .get_at(piece)
                        .map_err(lib)?
                        .get_constraint_list()
                        .map_err(lib)?;
                    let n = count(operation, constraints.size())?;
                    most = most.max(n);
                }
            }
            Ok(most)
        })
    }

    /// The number of basic maps (pieces) of `self` and their constraints (equalities and
    /// inequalities) in all. Like `most_constraints`, it runs outside the operation bound.
    pub fn pieces_and_constraints(&self) -> Result<(usize, usize), IslError> {
        let operation = "counting the pieces of a union map";
        let lib = |error| IslError::from_lib(operation, error);
        let maps = self.maps()?;
        unbounded(&self.ctx.ctx, || {
            let (mut pieces, mut constraints) = (0, 0);
            for map in &maps {
                let list = map.inner.get_basic_map_list().map_err(lib)?;
                for piece in 0..list.size().map_err(lib)? {
                    let list = list
                        .get_at(piece)
                        .map_err(lib)?
                        .get_constraint_list()
                        .map_err(lib)?;
                    constraints += count(operation, list.size())?;
                    pieces += 1;
                }
            }
            Ok((pieces, constraints))
        })
    }

    /// The largest magnitude of a constant term in the constraints of `self` (`999` in
    /// `i <= 999`), saturated at `u64::MAX`; 0 for an empty relation. Like
    /// `most_constraints`, it runs outside the operation bound.
    pub fn largest_constant(&self) -> Result<u64, IslError> {
        let operation = "reading the constants of a union map";
        let lib = |error| IslError::from_lib(operation, error);
        let maps = self.maps()?;
        unbounded(&self.ctx.ctx, || {
            let mut largest = 0u64;
            for map in &maps {
                let pieces = map.inner.get_basic_map_list().map_err(lib)?;
                for piece in 0..pieces.size().map_err(lib)? {
                    let constraints = pieces
                        .get_at(piece)
                        .map_err(lib)?
                        .get_constraint_list()
                        .map_err(lib)?;
                    for index in 0..constraints.size().map_err(lib)? {
                        let constant = constraints
                            .get_at(index)
                            .map_err(lib)?
                            .get_constant_val()
                            .map_err(lib)?;
                        // Too large for an i64 is as large as it gets.
                        let magnitude = constant.get_num_si().map_or(u64::MAX, i64::unsigned_abs);
                        largest = largest.max(magnitude);
                    }
                }
            }
            Ok(largest)
        })
    }

    /// The relation without the constraints that `params` implies on the parameters.
    pub fn gist_params(self, params: Set) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "simplifying a union map against its parameters' context",
            self.inner.gist_params(params.inner),
        )
    }

    /// The relation without the constraints that `domain` implies on its domain: a
    /// superset that equals `self` on `domain`.
    pub fn gist_domain(self, domain: UnionSet) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "simplifying a union map against its domain",
            self.inner.gist_domain(domain.inner),
        )
    }

    /// The relation without the constraints that `range` implies on its range.
    pub fn gist_range(self, range: UnionSet) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "simplifying a union map against its range",
            self.inner.gist_range(range.inner),
        )
    }
}

#[cfg(test)]
mod division_tests {
    use crate::isl::{parse_union_map, IslCtx};

    #[test]
    fn quasi_affine_relations_involve_divisions() {
        let ctx = IslCtx::new(None).unwrap();
        let affine = parse_union_map(&ctx, "[n] -> { S[i, j] -> A[i + 1, j] }", "a").unwrap();
        assert!(!affine.involves_divisions().unwrap());
        let quasi =
            parse_union_map(&ctx, "[n] -> { S[i, j] -> A[floor((i + j) / 2)] }", "q").unwrap();
        assert!(quasi.involves_divisions().unwrap());
        // A division isl can do away with is none.
        let exact = parse_union_map(&ctx, "[n] -> { S[i] -> A[floor((2i) / 2)] }", "e").unwrap();
        assert!(!exact.involves_divisions().unwrap());
    }
}

#[cfg(test)]
mod constant_tests {
    use crate::isl::{parse_union_map, IslCtx};

    #[test]
    fn largest_constant_reads_bounds_not_coefficients() {
        let ctx = IslCtx::new(None).unwrap();
        let fixed = parse_union_map(
            &ctx,
            "{ S[i, j] -> S[i, j + 1] : 0 <= i <= 999 and 0 <= j < 1199; T[i] -> S[i, 0] : 0 <= i < 7 }",
            "fixed",
        )
        .unwrap();
        assert_eq!(fixed.largest_constant().unwrap(), 1198);
        let parametric =
            parse_union_map(&ctx, "[n] -> { S[i] -> S[5i + 3] : 0 <= i < n }", "p").unwrap();
        assert!(parametric.largest_constant().unwrap() <= 3);
        let empty = parse_union_map(&ctx, "{ S[i] -> S[i] : 1 = 0 }", "e").unwrap();
        assert_eq!(empty.largest_constant().unwrap(), 0);
    }

    #[test]
    fn pieces_and_constraints_count_every_basic_map() {
        let ctx = IslCtx::new(None).unwrap();
        let two = parse_union_map(
            &ctx,
            "{ S[i] -> S[i + 1] : 0 <= i < 10; T[i] -> T[i + 2] : 0 <= i < 10 }",
            "d",
        )
        .unwrap();
        // Per piece: the equality of the output and the two bounds of i.
        assert_eq!(two.pieces_and_constraints().unwrap(), (2, 6));
        let empty = parse_union_map(&ctx, "{ S[i] -> S[i] : 1 = 0 }", "e").unwrap();
        assert_eq!(empty.pieces_and_constraints().unwrap().0, 0);
    }
}
