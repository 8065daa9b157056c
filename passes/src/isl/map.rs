//! `Map`: an isl relation between two tuples (access relation, flattened schedule) and
//! the operations the model needs on it.

use isl_rs::DimType;

use super::error::IslError;
use super::object::{count, flag, isl_object, param_names, space};
use super::raw;
use super::set::Set;
use super::union_map::UnionMap;

isl_object!(
    /// An isl map, e.g. `[n] -> { S0[i0] -> A[i0 + 1] }`.
    Map,
    isl_rs::Map,
    isl_map_to_str
);

impl Map {
    fn tuple_name(&self, dim_type: DimType) -> Option<String> {
        // SAFETY: `inner.ptr` is live; the name is owned by the map and copied at once.
        let name = unsafe {
            raw::borrowed_string(raw::isl_map_get_tuple_name(
                self.inner.ptr,
                dim_type.to_i32(),
            ))
        };
        raw::take_ctx_error(self.ctx_ptr());
        name
    }

    /// Name of the domain tuple (`S0` in `{ S0[i] -> A[i] }`), `None` if unnamed.
    pub fn domain_name(&self) -> Option<String> {
        self.tuple_name(DimType::In)
    }

    /// Name of the range tuple (`A` in `{ S0[i] -> A[i] }`), `None` if unnamed.
    pub fn range_name(&self) -> Option<String> {
        self.tuple_name(DimType::Out)
    }

    /// Whether the relation needs integer divisions: a function whose value is
    /// quasi-affine (`A[floor((i + j) / 2)]`, which isl can write without a division
    /// as `i + j - 1 <= 2 o0 <= i + j`), or a relation with existentially quantified
    /// variables.
    pub fn involves_divisions(&self) -> Result<bool, IslError> {
        const OPERATION: &str = "looking for divisions in a map";
        if self.is_single_valued()? {
            let function = isl_rs::PwMultiAff::from_map(self.copy()?.inner)
                .map_err(|e| IslError::from_lib(OPERATION, e))?;
            if function.ptr == 0 {
                return Err(IslError::no_result(OPERATION));
            }
            return function
                .involves_locals()
                .map_err(|e| IslError::from_lib(OPERATION, e));
        }
        let plain = Map::wrap(&self.ctx, OPERATION, self.copy()?.inner.remove_divs())?;
        Ok(!plain.is_equal(self)?)
    }

    /// Number of input (domain) dimensions.
    pub fn n_in(&self) -> Result<usize, IslError> {
        count(
            "counting a map's input dimensions",
            self.inner.dim(DimType::In),
        )
    }

    /// Number of output (range) dimensions.
    pub fn n_out(&self) -> Result<usize, IslError> {
        count(
            "counting a map's output dimensions",
            self.inner.dim(DimType::Out),
        )
    }

    /// Parameter names, in the map's order.
    pub fn param_names(&self) -> Result<Vec<String>, IslError> {
        param_names(&space("reading a map's space", self.inner.get_space())?)
    }

    /// Whether the relation holds no pair.
    pub fn is_empty(&self) -> Result<bool, IslError> {
        flag(
            "checking a map for emptiness",
            self.ctx_ptr(),
            self.inner.is_empty(),
        )
    }

    /// Whether both relations hold the same pairs.
    pub fn is_equal(&self, other: &Map) -> Result<bool, IslError> {
        flag(
            "comparing two maps",
            self.ctx_ptr(),
            self.inner.is_equal(&other.inner),
        )
    }

    /// True when each domain element has at most one image.
    pub fn is_single_valued(&self) -> Result<bool, IslError> {
        flag(
            "checking that a map is a function",
            self.ctx_ptr(),
            self.inner.is_single_valued(),
        )
    }

    /// True when no two domain elements share an image.
    pub fn is_injective(&self) -> Result<bool, IslError> {
        flag(
            "checking that a map is injective",
            self.ctx_ptr(),
            self.inner.is_injective(),
        )
    }

    /// The pairs whose source lies in `domain`.
    pub fn intersect_domain(self, domain: Set) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "restricting a map's domain",
            self.inner.intersect_domain(domain.inner),
        )
    }

    /// The domain elements that have an image.
    pub fn domain(self) -> Result<Set, IslError> {
        Set::wrap(&self.ctx, "taking a map's domain", self.inner.domain())
    }

    /// The set of the relation's targets.
    pub fn range(self) -> Result<Set, IslError> {
        Set::wrap(&self.ctx, "taking a map's range", self.inner.range())
    }

    /// Same relation with an unnamed range tuple (`{ S0[i] -> [i] }`).
    pub fn drop_range_name(self) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "removing a map's range name",
            self.inner.reset_tuple_id(DimType::Out),
        )
    }

    /// True when every pair of `self` is in `other`.
    pub fn is_subset(&self, other: &Map) -> Result<bool, IslError> {
        flag(
            "checking map inclusion",
            self.ctx_ptr(),
            self.inner.is_subset(&other.inner),
        )
    }

    /// The pairs in both maps (parameters are aligned first).
    pub fn intersect(self, other: Map) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "intersecting two maps",
            self.inner.intersect(other.inner),
        )
    }

    /// The pairs whose target lies in `range`.
    pub fn intersect_range(self, range: Set) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "restricting a map's range",
            self.inner.intersect_range(range.inner),
        )
    }

    /// `{ b -> a : a -> b in self }`.
    pub fn reverse(self) -> Result<Map, IslError> {
        Map::wrap(&self.ctx, "reversing a map", self.inner.reverse())
    }

    /// `self` followed by `next`: `{ a -> c : exists b: a -> b in self, b -> c in next }`.
    pub fn apply_range(self, next: Map) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "composing two maps",
            self.inner.apply_range(next.inner),
        )
    }

    /// `{ a -> [b, c] : a -> b in self, a -> c in other }`, the images side by side in
    /// one flat tuple.
    pub fn flat_range_product(self, other: Map) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "putting two maps' images side by side",
            self.inner.flat_range_product(other.inner),
        )
    }

    /// `[p, j] -> { S[i] }` from `[p] -> { T[j] -> S[i] }`: the images, with the domain's
    /// dimensions turned into parameters named `names` (after the map's own). Over
    /// such a set, isl writes each image dimension as a (piecewise) expression of the
    /// domain's values (`ExprBuilder::bounds`).
    pub fn images_over_domain_params(self, names: &[String]) -> Result<Set, IslError> {
        const OPERATION: &str = "turning a map's domain into parameters";
        let n_in = self.n_in()?;
        if names.len() != n_in {
            return Err(IslError::Other {
                context: OPERATION.into(),
                message: format!("{} names for {n_in} domain dimensions", names.len()),
            });
        }
        let Map { mut inner, ctx } = self;
        for (pos, name) in names.iter().enumerate() {
            inner = inner
                .set_dim_name(DimType::In, pos as u32, name)
                .map_err(|e| IslError::from_lib(OPERATION, e))?;
        }
        let n_param = count(OPERATION, inner.dim(DimType::Param))?;
        let moved = Map::wrap(
            &ctx,
            OPERATION,
            inner.move_dims(DimType::Param, n_param as u32, DimType::In, 0, n_in as u32),
        )?;
        moved.range()
    }

    /// `{ [a -> b] : a -> b in self }`: the pairs as one set, whose points list the
    /// domain's coordinates, then the range's.
    pub fn wrapped(self) -> Result<Set, IslError> {
        Set::wrap(&self.ctx, "wrapping a map into a set", self.inner.wrap())
    }

    /// `{ b - a : a -> b in self }`; domain and range must be the same space.
    pub fn deltas(self) -> Result<Set, IslError> {
        Set::wrap(
            &self.ctx,
            "computing the differences of a map's pairs",
            self.inner.deltas(),
        )
    }

    /// Same relation with an unnamed domain tuple (`{ [i] -> A[i] }`), so that relations
    /// of different statements over the same loops can be compared.
    pub fn drop_domain_name(self) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "removing a map's domain name",
            self.inner.reset_tuple_id(DimType::In),
        )
    }

    /// Same map with its parameters in the order of `model`'s (then any others).
    pub fn align_params(self, model: &Set) -> Result<Map, IslError> {
        let operation = "aligning a map's parameters";
        let model_space = space(operation, model.inner.get_space())?;
        Map::wrap(&self.ctx, operation, self.inner.align_params(model_space))
    }

    /// The same relation with `n` more output dimensions, each fixed to 0: flattened
    /// schedules of different depths padded to one width (a zero after the last
    /// dimension does not change the order).
    pub fn pad_range(self, n: usize) -> Result<Map, IslError> {
        let operation = "padding a map's range";
        let from = self.n_out()?;
        let n32 = u32::try_from(n).map_err(|_| IslError::no_result(operation))?;
        let mut map = Map::wrap(&self.ctx, operation, self.inner.add_dims(DimType::Out, n32))?;
        for pos in from..from + n {
            let pos = u32::try_from(pos).map_err(|_| IslError::no_result(operation))?;
            map = Map::wrap(&map.ctx, operation, map.inner.fix_si(DimType::Out, pos, 0))?;
        }
        Ok(map)
    }

    /// The same relation with its domain tuple named `name`.
    pub fn set_domain_name(self, name: &str) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "naming a map's domain",
            self.inner.set_tuple_name(DimType::In, name),
        )
    }

    /// The relation as a union of relations (one space).
    pub fn to_union_map(self) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "turning a map into a union map",
            self.inner.to_union_map(),
        )
    }
}
