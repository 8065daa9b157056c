//! `Set`: an isl set (iteration domain, context, assumption) and the operations the
//! model needs on it. Every operation that consumes its input takes `self`; one that only
//! reads takes `&self` (isl's `__isl_take` / `__isl_keep`).

use isl_rs::DimType;

use super::error::IslError;
use super::object::{count, flag, isl_object, param_names, space};
use super::raw;
use super::union_set::UnionSet;

isl_object!(
    /// An isl set, e.g. `[n] -> { S0[i0] : 0 <= i0 < n }` or a parameter set
    /// `[n] -> { : n > 0 }`.
    Set,
    isl_rs::Set,
    isl_set_to_str
);

impl Set {
    /// The tuple name (`S0` in `{ S0[i0] }`), `None` for an unnamed tuple or a parameter
    /// set.
    pub fn tuple_name(&self) -> Option<String> {
        // SAFETY: `inner.ptr` is live; the name is owned by the set and copied at once.
        let name = unsafe { raw::borrowed_string(raw::isl_set_get_tuple_name(self.inner.ptr)) };
        // isl may record an error for a set without a tuple id; it is not one for us.
        raw::take_ctx_error(self.ctx_ptr());
        name
    }

    /// Number of set dimensions (0 for a parameter set).
    pub fn n_dims(&self) -> Result<usize, IslError> {
        count("counting set dimensions", self.inner.dim(DimType::Set))
    }

    /// The name of set dimension `pos` (`i1` in `{ S0[i0, i1] }`), `None` if it is
    /// unnamed or there is no such dimension.
    pub fn dim_name(&self, pos: usize) -> Option<String> {
        let n = self.n_dims().ok()?;
        if pos >= n {
            return None;
        }
        let pos = u32::try_from(pos).ok()?;
        let space = space("reading a set's space", self.inner.get_space()).ok()?;
        // SAFETY: `space` is live and `pos` is below its dimension count; the name is
        // owned by the space and copied at once.
        let name = unsafe {
            raw::borrowed_string(raw::isl_space_get_dim_name(
                space.ptr,
                DimType::Set.to_i32(),
                pos,
            ))
        };
        // isl records no error for an unnamed dimension, but clear the context anyway.
        raw::take_ctx_error(self.ctx_ptr());
        name
    }

    /// Parameter names, in the set's order.
    pub fn param_names(&self) -> Result<Vec<String>, IslError> {
        param_names(&space("reading a set's space", self.inner.get_space())?)
    }

    /// True for a set over parameters only (`[n] -> { : n > 0 }`).
    pub fn is_params(&self) -> Result<bool, IslError> {
        flag(
            "checking for a parameter set",
            self.ctx_ptr(),
            self.inner.is_params(),
        )
    }

    /// Whether the set holds no point.
    pub fn is_empty(&self) -> Result<bool, IslError> {
        flag(
            "checking a set for emptiness",
            self.ctx_ptr(),
            self.inner.is_empty(),
        )
    }

    /// Whether both sets hold the same points.
    pub fn is_equal(&self, other: &Set) -> Result<bool, IslError> {
        flag(
            "comparing two sets",
            self.ctx_ptr(),
            self.inner.is_equal(&other.inner),
        )
    }

    /// Whether every point of this set lies in `other`.
    pub fn is_subset(&self, other: &Set) -> Result<bool, IslError> {
        flag(
            "checking set inclusion",
            self.ctx_ptr(),
            self.inner.is_subset(&other.inner),
        )
    }

    /// The set of values dimension `dim` takes (all other dimensions projected out).
    pub fn project_onto(self, dim: usize) -> Result<Set, IslError> {
        let n = self.n_dims()?;
        if dim >= n {
            return Err(IslError::Other {
                context: "projecting a set".into(),
                message: format!("no dimension {dim} in a set of {n}"),
            });
        }
        let after = Set::wrap(
            &self.ctx,
            "projecting out trailing dimensions",
            self.inner
                .project_out(DimType::Set, (dim + 1) as u32, (n - dim - 1) as u32),
        )?;
        Set::wrap(
            &after.ctx,
            "projecting out leading dimensions",
            after.inner.project_out(DimType::Set, 0, dim as u32),
        )
    }

    /// The elements of the set for some value of the parameters (the parameters
    /// projected out).
    pub fn for_some_params(self) -> Result<Set, IslError> {
        let operation = "projecting out a set's parameters";
        let n =
            u32::try_from(self.param_names()?.len()).map_err(|_| IslError::no_result(operation))?;
        Set::wrap(
            &self.ctx,
            operation,
            self.inner.project_out(DimType::Param, 0, n),
        )
    }

    /// `{ x -> x : x in self }`.
    pub fn identity(self) -> Result<super::Map, IslError> {
        super::Map::wrap(&self.ctx, "the identity on a set", self.inner.identity())
    }

    /// The image of the set under `map`.
    pub fn apply(self, map: super::Map) -> Result<Set, IslError> {
        Set::wrap(
            &self.ctx,
            "applying a map to a set",
            self.inner.apply(map.inner),
        )
    }

    /// The points in both sets.
    pub fn intersect(self, other: Set) -> Result<Set, IslError> {
        Set::wrap(
            &self.ctx,
            "intersecting two sets",
            self.inner.intersect(other.inner),
        )
    }

    /// Restricts the parameters to those in the parameter set `params`.
    pub fn intersect_params(self, params: Set) -> Result<Set, IslError> {
        Set::wrap(
            &self.ctx,
            "intersecting a set with a parameter set",
            self.inner.intersect_params(params.inner),
        )
    }

    /// The elements of `self` that are not in `other`.
    pub fn subtract(self, other: Set) -> Result<Set, IslError> {
        Set::wrap(
            &self.ctx,
            "subtracting two sets",
            self.inner.subtract(other.inner),
        )
    }

    /// The points in either set (same space).
    pub fn union(self, other: Set) -> Result<Set, IslError> {
        Set::wrap(
            &self.ctx,
            "computing the union of two sets",
            self.inner.union(other.inner),
        )
    }

    /// The one point of `self`'s space with the given coordinates and every parameter
    /// equal to `param_value`: built from the space, not parsed (cheaper by far on
    /// regions with many parameters).
    pub fn point_of_space(&self, coordinates: &[i32], param_value: i32) -> Result<Set, IslError> {
        let operation = "making a point of a set's space";
        let universe = isl_rs::Set::universe(space(operation, self.inner.get_space())?);
        let mut point = Set::wrap(&self.ctx, operation, universe)?;
        let params = count(operation, self.inner.dim(DimType::Param))?;
        if coordinates.len() != self.n_dims()? {
            return Err(IslError::Other {
                context: operation.to_string(),
                message: format!(
                    "{} coordinates for a set of {} dimensions",
                    coordinates.len(),
                    self.n_dims()?
                ),
            });
        }
        let fixes = (0..params).map(|k| (DimType::Param, k, param_value)).chain(
            coordinates
                .iter()
                .enumerate()
                .map(|(k, v)| (DimType::Set, k, *v)),
        );
        for (kind, pos, value) in fixes {
            let pos = u32::try_from(pos).map_err(|_| IslError::no_result(operation))?;
            point = Set::wrap(&self.ctx, operation, point.inner.fix_si(kind, pos, value))?;
        }
        Ok(point)
    }

    /// The parameter set: the parameter values for which `self` is not empty.
    pub fn params(self) -> Result<Set, IslError> {
        Set::wrap(
            &self.ctx,
            "projecting a set onto its parameters",
            self.inner.params(),
        )
    }

    /// The lexicographically smallest element for each parameter value.
    pub fn lexmin(self) -> Result<Set, IslError> {
        Set::wrap(
            &self.ctx,
            "computing the lexicographic minimum of a set",
            self.inner.lexmin(),
        )
    }

    /// Same set with isl's simplification of its disjuncts.
    pub fn coalesce(self) -> Result<Set, IslError> {
        Set::wrap(&self.ctx, "simplifying a set", self.inner.coalesce())
    }

    /// Same set with its parameters in the order of `model`'s (then any others).
    pub fn align_params(self, model: &Set) -> Result<Set, IslError> {
        let operation = "aligning a set's parameters";
        let model_space = space(operation, model.inner.get_space())?;
        Set::wrap(&self.ctx, operation, self.inner.align_params(model_space))
    }

    /// The set as a union of sets (one space).
    pub fn to_union_set(self) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "turning a set into a union set",
            self.inner.to_union_set(),
        )
    }

    /// The smallest and largest value dimension `pos` takes over all elements and all
    /// parameter values; `None` when the set is empty, the dimension is unbounded either
    /// way, or a bound does not fit in an `i64`.
    pub fn dim_value_range(&self, pos: usize) -> Result<Option<(i64, i64)>, IslError> {
        let Some(min) = self.dim_bound(pos, Bound::Lower)? else {
            return Ok(None);
        };
        Ok(self.dim_bound(pos, Bound::Upper)?.map(|max| (min, max)))
    }

    /// The smallest value dimension `pos` takes over all elements and all parameter
    /// values; `None` when the set is empty, the dimension is unbounded below, or the
    /// bound does not fit in an `i64`.
    pub fn dim_lower_bound(&self, pos: usize) -> Result<Option<i64>, IslError> {
        self.dim_bound(pos, Bound::Lower)
    }

    fn dim_bound(&self, pos: usize, bound: Bound) -> Result<Option<i64>, IslError> {
        let operation = "bounding a set dimension";
        if pos >= self.n_dims()? {
            return Err(IslError::Other {
                context: operation.to_string(),
                message: format!("the set has no dimension {pos}"),
            });
        }
        if self.is_empty()? {
            return Ok(None);
        }
        let pos = i32::try_from(pos).map_err(|_| IslError::no_result(operation))?;
        let value = match bound {
            Bound::Lower => self.copy()?.inner.dim_min_val(pos),
            Bound::Upper => self.copy()?.inner.dim_max_val(pos),
        };
        integer_value(operation, self.ctx_ptr(), value)
    }

    /// The stride of dimension `pos`: the largest `s` such that its values differ by
    /// multiples of `s` (1 when isl finds none; `None` when it does not fit an `i64`).
    pub fn stride(&self, pos: usize) -> Result<Option<i64>, IslError> {
        let operation = "finding the stride of a set dimension";
        if pos >= self.n_dims()? {
            return Err(IslError::Other {
                context: operation.to_string(),
                message: format!("the set has no dimension {pos}"),
            });
        }
        let pos = i32::try_from(pos).map_err(|_| IslError::no_result(operation))?;
        integer_value(operation, self.ctx_ptr(), self.inner.get_stride(pos))
    }

    /// The value dimension `pos` is fixed to by the set's constraints as they stand (an
    /// equality with a constant), without solving anything; `None` when it is not
    /// plainly fixed. Cheap: for points computed by applying a map to a point.
    pub fn plain_fixed_value(&self, pos: usize) -> Result<Option<i64>, IslError> {
        let operation = "reading a fixed set dimension";
        let pos = u32::try_from(pos).map_err(|_| IslError::no_result(operation))?;
        let value = self.inner.plain_get_val_if_fixed(DimType::Set, pos);
        integer_value(operation, self.ctx_ptr(), value)
    }

    /// Every element of a set without parameters, in isl's order, when it has at most
    /// `limit` of them (an error otherwise, or when the set is unbounded): for
    /// comparing a domain, instantiated at some parameter values, point by point.
    pub fn points(&self, limit: usize) -> Result<Vec<Vec<i64>>, IslError> {
        const OPERATION: &str = "listing the points of a set";
        if !self.param_names()?.is_empty() {
            return Err(IslError::Other {
                context: OPERATION.into(),
                message: "the set has parameters: fix and project them out first".into(),
            });
        }
        let dims = self.n_dims()?;
        for pos in 0..dims {
            if !self.is_empty()? && self.dim_value_range(pos)?.is_none() {
                return Err(IslError::Other {
                    context: OPERATION.into(),
                    message: format!("dimension {pos} is unbounded"),
                });
            }
        }
        struct Collect {
            dims: usize,
            limit: usize,
            points: Vec<Vec<i64>>,
            failed: Option<String>,
        }
        unsafe extern "C" fn collect(point: raw::RawPtr, user: *mut std::ffi::c_void) -> i32 {
            // SAFETY: `user` is the `Collect` `points` passes, alive for the whole call;
            // `point` is ours to free; each value isl returns is freed at once.
            unsafe {
                let state = &mut *user.cast::<Collect>();
                let mut coordinates = Vec::with_capacity(state.dims);
                for pos in 0..state.dims {
                    let value =
                        raw::isl_point_get_coordinate_val(point, DimType::Set.to_i32(), pos as i32);
                    if value == 0 || raw::isl_val_is_int(value) != 1 {
                        state.failed = Some(format!("coordinate {pos} is not an integer"));
                    } else {
                        coordinates.push(raw::isl_val_get_num_si(value));
                    }
                    if value != 0 {
                        raw::isl_val_free(value);
                    }
                }
                raw::isl_point_free(point);
                if state.points.len() >= state.limit {
                    state.failed = Some(format!("more than {} points", state.limit));
                }
                if state.failed.is_some() {
                    return -1;
                }
                state.points.push(coordinates);
                0
            }
        }
        let mut state = Collect {
            dims,
            limit,
            points: Vec::new(),
            failed: None,
        };
        // SAFETY: `inner.ptr` is live (isl keeps it); `state` outlives the call.
        let status = unsafe {
            raw::isl_set_foreach_point(self.inner.ptr, collect, (&mut state as *mut Collect).cast())
        };
        let isl_error = raw::take_ctx_error(self.ctx_ptr());
        match (status, state.failed, isl_error) {
            (0, None, None) => Ok(state.points),
            (_, Some(message), _) | (_, None, Some((_, message))) => Err(IslError::Other {
                context: OPERATION.into(),
                message,
            }),
            _ => Err(IslError::no_result(OPERATION)),
        }
    }

    /// True when every parameter value gives at most one element.
    pub fn is_singleton(&self) -> Result<bool, IslError> {
        flag(
            "checking for a single element",
            self.ctx_ptr(),
            self.inner.is_singleton(),
        )
    }
}

/// An isl value that is a finite integer fitting in an `i64`; `None` for infinities, NaN,
/// fractions and integers too large.
/// Which bound of a dimension `Set::dim_bound` computes.
#[derive(Clone, Copy)]
enum Bound {
    Lower,
    Upper,
}

fn integer_value(
    operation: &str,
    ctx: super::raw::RawPtr,
    value: Result<isl_rs::Val, isl_rs::LibISLError>,
) -> Result<Option<i64>, IslError> {
    let value = value.map_err(|error| IslError::from_lib(operation, error))?;
    if value.ptr == 0 {
        return Err(IslError::no_result(operation));
    }
    let is = |result| flag(operation, ctx, result);
    if !is(value.is_int())? || is(value.is_infty())? || is(value.is_neginfty())? {
        return Ok(None);
    }
    // isl_val_get_num_si fails (rather than truncates) on an integer too large.
    match value.get_num_si() {
        Ok(small) => Ok(Some(small)),
        Err(error) => match IslError::from_lib(operation, error) {
            limit @ IslError::OperationLimit { .. } => Err(limit),
            _ => Ok(None),
        },
    }
}
