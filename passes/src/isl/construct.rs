//! isl objects built from their parts rather than read from text: maps whose images are
//! affine expressions of their inputs (a shift, a projection, a flattened schedule, a
//! folded storage), universes over named tuples narrowed by bounds, and relations that
//! tie an input to an output (equal, ordered, shifted).
//!
//! Each constructor gives the object isl's reader gives for the same text: the same
//! parameters in the same order, the same tuple names, the same dimension names (an
//! input or set dimension is named like the variable the text declares; an image written
//! as an expression is unnamed). Maps from affine expressions and bounded universes also
//! print as the text's reading does (the tests compare both); relations narrowed by
//! `equate`, `order` and `shifted` are equal to it, which is all their users (emptiness,
//! inclusion, bounds) depend on. Relies on isl-rs's space, affine and constraint calls;
//! their NULL results and errors become `IslError`.

use isl_rs::{DimType, LibISLError};

use super::ctx::IslCtx;
use super::error::IslError;
use super::map::Map;
use super::set::Set;
use super::union_map::UnionMap;

/// One tuple of a space: its name (`None` for `[i, j]`) and its dimensions' names
/// (`None` for a dimension written as a value, `[0, 0]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuple {
    name: Option<String>,
    dims: Vec<Option<String>>,
}

impl Tuple {
    /// A tuple with the given name and dimension names.
    pub fn new(name: Option<&str>, dims: Vec<String>) -> Tuple {
        Tuple {
            name: name.map(str::to_string),
            dims: dims.into_iter().map(Some).collect(),
        }
    }

    /// `name[_, _, ...]`: `n` dimensions without names.
    pub fn unnamed(name: Option<&str>, n: usize) -> Tuple {
        Tuple {
            name: name.map(str::to_string),
            dims: vec![None; n],
        }
    }

    /// `name[i0, i1, ...]` with `n` dimensions named `letter` and their position.
    pub fn counters(name: Option<&str>, letter: &str, n: usize) -> Tuple {
        Tuple::new(name, (0..n).map(|k| format!("{letter}{k}")).collect())
    }

    /// Number of dimensions.
    pub fn len(&self) -> usize {
        self.dims.len()
    }

    /// True for a tuple without dimensions (`S[]`).
    pub fn is_empty(&self) -> bool {
        self.dims.is_empty()
    }
}

/// An affine (or quasi-affine) expression of a map's inputs, written the way isl's text
/// writes an image: `2 * d0 + d1 - 1`, `floor((d1 - 1) / 4)`, `c0 mod 2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AffineExpr {
    /// Input dimension `k`.
    Input(usize),
    /// The constant `c`.
    Constant(i64),
    /// `left + right`.
    Sum(Box<AffineExpr>, Box<AffineExpr>),
    /// `factor * expr`.
    Scaled(i64, Box<AffineExpr>),
    /// `floor(expr / divisor)`, `divisor` positive.
    FloorDiv(Box<AffineExpr>, u32),
    /// `expr mod modulus`, `modulus` positive.
    Modulo(Box<AffineExpr>, u32),
}

impl AffineExpr {
    /// `self + other`.
    pub fn plus(self, other: AffineExpr) -> AffineExpr {
        AffineExpr::Sum(Box::new(self), Box::new(other))
    }

    /// `self - other`.
    pub fn minus(self, other: AffineExpr) -> AffineExpr {
        self.plus(AffineExpr::Scaled(-1, Box::new(other)))
    }

    /// `self + value`.
    pub fn offset(self, value: i64) -> AffineExpr {
        self.plus(AffineExpr::Constant(value))
    }

    /// `factor * self`.
    pub fn times(self, factor: i64) -> AffineExpr {
        AffineExpr::Scaled(factor, Box::new(self))
    }

    /// `floor(self / divisor)`.
    pub fn floor_div(self, divisor: u32) -> AffineExpr {
        AffineExpr::FloorDiv(Box::new(self), divisor)
    }

    /// `self mod modulus`.
    pub fn modulo(self, modulus: u32) -> AffineExpr {
        AffineExpr::Modulo(Box::new(self), modulus)
    }
}

/// An isl-rs object that may come back NULL.
trait RawObject {
    fn ptr(&self) -> usize;
}

macro_rules! raw_object {
    ($($ty:ty),*) => {
        $(impl RawObject for $ty {
            fn ptr(&self) -> usize {
                self.ptr
            }
        })*
    };
}

raw_object!(
    isl_rs::Space,
    isl_rs::LocalSpace,
    isl_rs::Aff,
    isl_rs::MultiAff,
    isl_rs::Constraint,
    isl_rs::Val
);

/// An isl-rs result, with NULL and errors as `IslError`.
fn checked<T: RawObject>(operation: &str, result: Result<T, LibISLError>) -> Result<T, IslError> {
    match result {
        Ok(object) if object.ptr() != 0 => Ok(object),
        Ok(_) => Err(IslError::no_result(operation)),
        Err(error) => Err(IslError::from_lib(operation, error)),
    }
}

fn position(operation: &str, pos: usize) -> Result<u32, IslError> {
    u32::try_from(pos).map_err(|_| IslError::no_result(operation))
}

/// `value` as an isl value.
fn value(ctx: &IslCtx, operation: &str, value: i64) -> Result<isl_rs::Val, IslError> {
    checked(operation, isl_rs::Val::int_from_si(ctx.inner(), value))
}

/// A space with `params`, and `tuples` set dimensions (one tuple) or input and output
/// dimensions (two), every name set.
fn space(
    ctx: &IslCtx,
    params: &[String],
    tuples: &[&Tuple],
    operation: &str,
) -> Result<isl_rs::Space, IslError> {
    let n_params = position(operation, params.len())?;
    let (mut space, kinds) = match tuples {
        [set] => (
            isl_rs::Space::set_alloc(ctx.inner(), n_params, position(operation, set.len())?),
            [DimType::Set, DimType::Set],
        ),
        [domain, range] => (
            isl_rs::Space::alloc(
                ctx.inner(),
                n_params,
                position(operation, domain.len())?,
                position(operation, range.len())?,
            ),
            [DimType::In, DimType::Out],
        ),
        _ => (
            isl_rs::Space::params_alloc(ctx.inner(), n_params),
            [DimType::Set, DimType::Set],
        ),
    };
    for (pos, name) in params.iter().enumerate() {
        let pos = position(operation, pos)?;
        space = checked(operation, space)?.set_dim_name(DimType::Param, pos, name);
    }
    for (tuple, kind) in tuples.iter().zip(kinds) {
        for (pos, name) in tuple.dims.iter().enumerate() {
            let Some(name) = name else {
                continue;
            };
            let pos = position(operation, pos)?;
            space = checked(operation, space)?.set_dim_name(kind, pos, name);
        }
        if let Some(name) = &tuple.name {
            space = checked(operation, space)?.set_tuple_name(kind, name);
        }
    }
    checked(operation, space)
}

/// `expr` as an isl affine expression over the set space `domain`.
fn aff(
    ctx: &IslCtx,
    domain: &isl_rs::Space,
    expr: &AffineExpr,
    operation: &str,
) -> Result<isl_rs::Aff, IslError> {
    let local = || {
        let space = checked(operation, domain.copy())?;
        checked(operation, isl_rs::LocalSpace::from_space(space))
    };
    let result = match expr {
        AffineExpr::Input(k) => {
            isl_rs::Aff::var_on_domain(local()?, DimType::Set, position(operation, *k)?)
        }
        AffineExpr::Constant(constant) => {
            let zero = checked(operation, isl_rs::Aff::zero_on_domain(local()?))?;
            zero.set_constant_val(value(ctx, operation, *constant)?)
        }
        AffineExpr::Sum(left, right) => {
            aff(ctx, domain, left, operation)?.add(aff(ctx, domain, right, operation)?)
        }
        AffineExpr::Scaled(factor, inner) => {
            aff(ctx, domain, inner, operation)?.scale_val(value(ctx, operation, *factor)?)
        }
        AffineExpr::FloorDiv(inner, divisor) => aff(ctx, domain, inner, operation)?
            .scale_down_ui(*divisor)
            .and_then(isl_rs::Aff::floor),
        AffineExpr::Modulo(inner, modulus) => {
            let modulus = value(ctx, operation, i64::from(*modulus))?;
            aff(ctx, domain, inner, operation)?.mod_val(modulus)
        }
    };
    checked(operation, result)
}

impl Map {
    /// `[params] -> { domain -> range_name[outputs] }`: each image dimension an affine
    /// expression of the inputs, as `{ S[i0, i1] -> [i0, 0, i1 + 1] }` reads.
    pub fn from_affine(
        ctx: &IslCtx,
        params: &[String],
        domain: &Tuple,
        range_name: Option<&str>,
        outputs: &[AffineExpr],
    ) -> Result<Map, IslError> {
        const OPERATION: &str = "building a map from affine expressions";
        let range = Tuple::new(range_name, Vec::new());
        let domain_space = space(ctx, params, &[domain], OPERATION)?;
        let mut range_space = space(ctx, params, &[&range], OPERATION)?;
        range_space = checked(
            OPERATION,
            range_space.add_dims(DimType::Set, position(OPERATION, outputs.len())?),
        )?;
        if let Some(name) = range_name {
            range_space = checked(OPERATION, range_space.set_tuple_name(DimType::Set, name))?;
        }
        Self::from_affine_in(ctx, domain_space, range_space, outputs, OPERATION)
    }

    /// `{ [x0, ..., x(n-1)] -> name[[x0, ..., x(split-1)] -> [x(split), ...]] }` over
    /// `domain`: each point as a pair, split after `split` dimensions, in a wrapped tuple
    /// named `name` (the shape of isl's AST build options, `isolate[[p] -> [o]]`).
    pub fn nesting(
        ctx: &IslCtx,
        domain: &Tuple,
        name: &str,
        split: usize,
    ) -> Result<Map, IslError> {
        const OPERATION: &str = "building a map into a nested tuple";
        let n = domain.len();
        if split > n {
            return Err(IslError::Other {
                context: OPERATION.into(),
                message: format!("split after {split} of {n} dimensions"),
            });
        }
        let domain_space = space(ctx, &[], &[domain], OPERATION)?;
        let inner = isl_rs::Space::alloc(
            ctx.inner(),
            0,
            position(OPERATION, split)?,
            position(OPERATION, n - split)?,
        );
        let range_space = checked(OPERATION, checked(OPERATION, inner)?.wrap())?;
        let range_space = checked(OPERATION, range_space.set_tuple_name(DimType::Set, name))?;
        let outputs: Vec<AffineExpr> = (0..n).map(AffineExpr::Input).collect();
        Self::from_affine_in(ctx, domain_space, range_space, &outputs, OPERATION)
    }

    fn from_affine_in(
        ctx: &IslCtx,
        domain_space: isl_rs::Space,
        range_space: isl_rs::Space,
        outputs: &[AffineExpr],
        operation: &str,
    ) -> Result<Map, IslError> {
        let map_space = checked(
            operation,
            checked(operation, domain_space.copy())?.map_from_domain_and_range(range_space),
        )?;
        let mut function = checked(operation, isl_rs::MultiAff::zero(map_space))?;
        for (pos, expr) in outputs.iter().enumerate() {
            let pos = i32::try_from(pos).map_err(|_| IslError::no_result(operation))?;
            let member = aff(ctx, &domain_space, expr, operation)?;
            function = checked(operation, function.set_aff(pos, member))?;
        }
        Map::wrap(
            ctx.owner(),
            operation,
            isl_rs::Map::from_multi_aff(function),
        )
    }

    /// `[params] -> { domain -> range }` holding every pair, to be narrowed by
    /// `equate`, `order` and `shifted`.
    pub fn universe_between(
        ctx: &IslCtx,
        params: &[String],
        domain: &Tuple,
        range: &Tuple,
    ) -> Result<Map, IslError> {
        const OPERATION: &str = "building a universe map";
        let space = space(ctx, params, &[domain, range], OPERATION)?;
        Map::wrap(ctx.owner(), OPERATION, isl_rs::Map::universe(space))
    }

    /// The pairs whose output `pos` equals their input `pos` plus `offset`.
    pub fn shifted(self, pos: usize, offset: i64) -> Result<Map, IslError> {
        const OPERATION: &str = "tying a map's output to its input";
        let pos = i32::try_from(pos).map_err(|_| IslError::no_result(OPERATION))?;
        let space = super::object::space(OPERATION, self.inner.get_space())?;
        let local = checked(OPERATION, isl_rs::LocalSpace::from_space(space))?;
        let negated = offset
            .checked_neg()
            .ok_or_else(|| IslError::no_result(OPERATION))?;
        let constant = value(&self.ctx(), OPERATION, negated)?;
        let constraint = checked(OPERATION, isl_rs::Constraint::alloc_equality(local))?
            .set_coefficient_si(DimType::Out, pos, 1)
            .and_then(|c| c.set_coefficient_si(DimType::In, pos, -1))
            .and_then(|c| c.set_constant_val(constant));
        let constraint = checked(OPERATION, constraint)?;
        Map::wrap(&self.ctx, OPERATION, self.inner.add_constraint(constraint))
    }

    /// The pairs whose output `pos` equals their input `pos`.
    pub fn equate(self, pos: usize) -> Result<Map, IslError> {
        const OPERATION: &str = "equating a map's input and output";
        let pos = i32::try_from(pos).map_err(|_| IslError::no_result(OPERATION))?;
        Map::wrap(
            &self.ctx,
            OPERATION,
            self.inner.equate(DimType::In, pos, DimType::Out, pos),
        )
    }

    /// The pairs whose input `pos` is below their output `pos` (`input_first`) or above
    /// it.
    pub fn order(self, pos: usize, input_first: bool) -> Result<Map, IslError> {
        const OPERATION: &str = "ordering a map's input and output";
        let pos = i32::try_from(pos).map_err(|_| IslError::no_result(OPERATION))?;
        let ordered = if input_first {
            self.inner.order_lt(DimType::In, pos, DimType::Out, pos)
        } else {
            self.inner.order_gt(DimType::In, pos, DimType::Out, pos)
        };
        Map::wrap(&self.ctx, OPERATION, ordered)
    }

    /// The pairs in either map.
    pub fn union(self, other: Map) -> Result<Map, IslError> {
        Map::wrap(
            &self.ctx,
            "computing the union of two maps",
            self.inner.union(other.inner),
        )
    }
}

impl UnionMap {
    /// The union of `maps`, added in their order the way isl's reader adds the pieces of
    /// `{ m1; m2; ... }` (its listing order, `maps`, follows from it).
    pub fn from_maps(ctx: &IslCtx, maps: Vec<Map>) -> Result<UnionMap, IslError> {
        let mut maps = maps.into_iter();
        let Some(first) = maps.next() else {
            return UnionMap::empty(ctx);
        };
        let mut union = first.to_union_map()?;
        for map in maps {
            union = union.union(map.to_union_map()?)?;
        }
        Ok(union)
    }
}

impl Set {
    /// `[params] -> { tuple }`: every point of the tuple's space.
    pub fn universe(ctx: &IslCtx, params: &[String], tuple: &Tuple) -> Result<Set, IslError> {
        const OPERATION: &str = "building a universe set";
        let space = space(ctx, params, &[tuple], OPERATION)?;
        Set::wrap(ctx.owner(), OPERATION, isl_rs::Set::universe(space))
    }

    /// `[params] -> { : }`: every value of the parameters.
    pub fn params_universe(ctx: &IslCtx, params: &[String]) -> Result<Set, IslError> {
        const OPERATION: &str = "building a universe parameter set";
        let space = space(ctx, params, &[], OPERATION)?;
        Set::wrap(ctx.owner(), OPERATION, isl_rs::Set::universe(space))
    }

    /// The points whose dimension `pos` is `value`.
    pub fn fix_dim(self, pos: usize, value: i64) -> Result<Set, IslError> {
        self.bound(DimType::Set, pos, value, Bound::Equal)
    }

    /// The points whose dimension `pos` is at least `value`.
    pub fn lower_bound_dim(self, pos: usize, value: i64) -> Result<Set, IslError> {
        self.bound(DimType::Set, pos, value, Bound::Lower)
    }

    /// The points whose dimension `pos` is at most `value`.
    pub fn upper_bound_dim(self, pos: usize, value: i64) -> Result<Set, IslError> {
        self.bound(DimType::Set, pos, value, Bound::Upper)
    }

    /// The points whose parameter `pos` is at least `value`.
    pub fn lower_bound_param(self, pos: usize, value: i64) -> Result<Set, IslError> {
        self.bound(DimType::Param, pos, value, Bound::Lower)
    }

    fn bound(self, kind: DimType, pos: usize, at: i64, bound: Bound) -> Result<Set, IslError> {
        const OPERATION: &str = "bounding a set's dimension";
        let pos = position(OPERATION, pos)?;
        let at = value(&self.ctx(), OPERATION, at)?;
        let result = match bound {
            Bound::Equal => self.inner.fix_val(kind, pos, at),
            Bound::Lower => self.inner.lower_bound_val(kind, pos, at),
            Bound::Upper => self.inner.upper_bound_val(kind, pos, at),
        };
        Set::wrap(&self.ctx, OPERATION, result)
    }
}

enum Bound {
    Equal,
    Lower,
    Upper,
}

#[cfg(test)]
mod tests;
