//! Counting the integer points of a set without parameters: a statement's iterations and
//! the distinct array elements its accesses touch, for the roofline's operation and
//! traffic counts (`print<polyrust-roofline>`).
//!
//! isl without barvinok has no symbolic count, and `isl_set_count_val` visits every point
//! (a billion for a matrix product). Here isl splits the set into disjoint basic sets and
//! makes their divisions set dimensions (`isl_basic_set_lift`, after `compute_divs` gave
//! each an explicit value, so a lifted point is one point of the set); each basic set's
//! constraints are then counted in Rust: every dimension but the last is enumerated, within
//! bounds from Fourier-Motzkin projections, and the last one's points are the length of
//! the interval the exact constraints leave. Relies on: a rational projection holding every
//! integer point's prefix (some prefixes extend to no point and count 0), and on the sets
//! being bounded (an unbounded dimension is an error, not a guess).

use isl_rs::DimType;

use super::error::IslError;
use super::set::Set;
use super::union_set::UnionSet;

/// At most this many prefixes are enumerated per basic set, so a count of a huge domain
/// with a short last dimension fails instead of taking minutes.
const MAX_PREFIXES: u64 = 400_000_000;
/// At most this many constraints per projection (Fourier-Motzkin can square them).
const MAX_ROWS: usize = 4_000;

const OPERATION: &str = "counting the points of a set";

impl Set {
    /// The parameters the set's points depend on (a model aligns every set to all the
    /// region's parameters, most of which a given set does not involve).
    pub fn involved_params(&self) -> Result<Vec<String>, IslError> {
        let names = self.param_names()?;
        let mut involved = Vec::new();
        for (pos, name) in names.into_iter().enumerate() {
            let pos = u32::try_from(pos).map_err(|_| IslError::no_result(OPERATION))?;
            let uses = self.inner.involves_dims(DimType::Param, pos, 1);
            if super::object::flag(OPERATION, self.ctx_ptr(), uses)? {
                involved.push(name);
            }
        }
        Ok(involved)
    }

    /// The number of integer points of a set that involves no parameter; an error for a
    /// set whose points depend on parameters, an unbounded set, or one too large to
    /// enumerate.
    pub fn count_points(&self) -> Result<u128, IslError> {
        let involved = self.involved_params()?;
        if !involved.is_empty() {
            return Err(other(format!(
                "the set depends on the parameters {}: fix them first",
                involved.join(", ")
            )));
        }
        let n_params =
            u32::try_from(self.param_names()?.len()).map_err(|_| IslError::no_result(OPERATION))?;
        let fixed = Set::wrap(
            &self.ctx,
            OPERATION,
            self.copy()?.inner.project_out(DimType::Param, 0, n_params),
        )?;
        let disjoint = Set::wrap(&self.ctx, OPERATION, fixed.inner.compute_divs())?;
        let disjoint = Set::wrap(&self.ctx, OPERATION, disjoint.inner.make_disjoint())?;
        let disjoint = Set::wrap(&self.ctx, OPERATION, disjoint.inner.compute_divs())?;
        let list = disjoint
            .inner
            .get_basic_set_list()
            .map_err(|e| IslError::from_lib(OPERATION, e))?;
        if list.ptr == 0 {
            return Err(IslError::no_result(OPERATION));
        }
        let n = list.size().map_err(|e| IslError::from_lib(OPERATION, e))?;
        let mut total = 0u128;
        for index in 0..n {
            let basic = list
                .get_at(index)
                .map_err(|e| IslError::from_lib(OPERATION, e))?;
            let lifted = basic.lift().map_err(|e| IslError::from_lib(OPERATION, e))?;
            if lifted.ptr == 0 {
                return Err(IslError::no_result(OPERATION));
            }
            let polytope = constraints(&lifted)?;
            total += polytope.count().map_err(other)?;
        }
        Ok(total)
    }
}

impl UnionSet {
    /// The number of integer points of a union set without parameters (its sets live in
    /// different spaces, so they share no point).
    pub fn count_points(&self) -> Result<u128, IslError> {
        self.sets()?
            .iter()
            .try_fold(0u128, |sum, set| Ok(sum + set.count_points()?))
    }
}

fn other(message: impl Into<String>) -> IslError {
    IslError::Other {
        context: OPERATION.into(),
        message: message.into(),
    }
}

/// The constraints of a lifted basic set (no divisions, no parameters) as rows
/// `a . x + c >= 0`, each equality as two rows.
fn constraints(basic: &isl_rs::BasicSet) -> Result<Polytope, IslError> {
    let lib = |e| IslError::from_lib(OPERATION, e);
    let dims = basic.dim(DimType::Set).map_err(lib)?;
    let dims = usize::try_from(dims).map_err(|_| IslError::no_result(OPERATION))?;
    let mut rows = Vec::new();
    let order = (DimType::Set, DimType::Div, DimType::Param, DimType::Cst);
    for (equalities, signs) in [(true, &[1i128, -1][..]), (false, &[1i128][..])] {
        let mat = if equalities {
            basic.equalities_matrix(order.0, order.1, order.2, order.3)
        } else {
            basic.inequalities_matrix(order.0, order.1, order.2, order.3)
        }
        .map_err(lib)?;
        if mat.ptr == 0 {
            return Err(IslError::no_result(OPERATION));
        }
        let (n_rows, n_cols) = (mat.rows().map_err(lib)?, mat.cols().map_err(lib)?);
        if usize::try_from(n_cols).ok() != Some(dims + 1) {
            return Err(other(
                "the set has divisions or parameters left after lifting",
            ));
        }
        for r in 0..n_rows {
            let mut row = Vec::with_capacity(dims + 1);
            for c in 0..n_cols {
                let value = mat.get_element_val(r, c).map_err(lib)?;
                row.push(i128::from(value.get_num_si().map_err(lib)?));
            }
            for sign in signs {
                rows.push(row.iter().map(|v| v * sign).collect());
            }
        }
    }
    Ok(Polytope { dims, rows })
}

/// A bounded set of integer points `{ x in Z^dims : a . x + c >= 0 for every row }`.
#[derive(Clone, Debug)]
pub(crate) struct Polytope {
    dims: usize,
    /// `dims` coefficients, then the constant.
    rows: Vec<Vec<i128>>,
}

impl Polytope {
    /// The number of integer points: the product over groups of dimensions no constraint
    /// links (a box is counted dimension by dimension, a 5x5 window apart from the image).
    pub(crate) fn count(&self) -> Result<u128, String> {
        if self
            .rows
            .iter()
            .any(|row| row[..self.dims].iter().all(|&a| a == 0) && row[self.dims] < 0)
        {
            return Ok(0);
        }
        let mut total = 1u128;
        for group in self.independent_groups() {
            let rows = self
                .rows
                .iter()
                .filter(|row| group.iter().any(|&d| row[d] != 0))
                .map(|row| {
                    group
                        .iter()
                        .map(|&d| row[d])
                        .chain([row[self.dims]])
                        .collect()
                })
                .collect();
            let part = Polytope {
                dims: group.len(),
                rows,
            };
            total = total
                .checked_mul(part.count_linked()?)
                .ok_or("the count overflows")?;
        }
        Ok(total)
    }

    /// The dimensions in groups that no constraint links with another group.
    fn independent_groups(&self) -> Vec<Vec<usize>> {
        let mut group: Vec<usize> = (0..self.dims).collect();
        fn root(group: &mut [usize], d: usize) -> usize {
            let mut r = d;
            while group[r] != r {
                r = group[r];
            }
            group[d] = r;
            r
        }
        for row in &self.rows {
            let dims: Vec<usize> = (0..self.dims).filter(|&d| row[d] != 0).collect();
            for pair in dims.windows(2) {
                let (a, b) = (root(&mut group, pair[0]), root(&mut group, pair[1]));
                group[a.max(b)] = a.min(b);
            }
        }
        let roots: Vec<usize> = (0..self.dims).map(|d| root(&mut group, d)).collect();
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for d in 0..self.dims {
            match groups.iter_mut().find(|g| roots[g[0]] == roots[d]) {
                Some(g) => g.push(d),
                None => groups.push(vec![d]),
            }
        }
        groups
    }

    /// The number of integer points, enumerating every dimension but the last.
    fn count_linked(&self) -> Result<u128, String> {
        // projections[k]: constraints on dimensions 0..=k only.
        let mut projections = vec![self.rows.clone()];
        for k in (1..self.dims).rev() {
            let next = eliminate(projections.last().expect("one projection at least"), k)?;
            projections.push(next);
        }
        projections.reverse();
        let mut prefix = vec![0i128; self.dims];
        let mut budget = MAX_PREFIXES;
        count_from(&projections, 0, &mut prefix, &mut budget)
    }
}

/// Points whose first `k` coordinates are `prefix[..k]`.
fn count_from(
    projections: &[Vec<Vec<i128>>],
    k: usize,
    prefix: &mut [i128],
    budget: &mut u64,
) -> Result<u128, String> {
    let last = projections.len() - 1;
    let Some((lo, hi)) = interval(&projections[k], k, prefix)? else {
        return Ok(0);
    };
    if k == last {
        return Ok(u128::try_from(hi - lo + 1).unwrap_or(0));
    }
    let span = u64::try_from(hi - lo + 1).unwrap_or(u64::MAX);
    *budget = budget
        .checked_sub(span)
        .ok_or("too many points to enumerate")?;
    let mut total = 0u128;
    for x in lo..=hi {
        prefix[k] = x;
        total += count_from(projections, k + 1, prefix, budget)?;
    }
    Ok(total)
}

/// The integer values of dimension `k` the rows allow once dimensions `0..k` are
/// `prefix`; `None` when there is none.
fn interval(rows: &[Vec<i128>], k: usize, prefix: &[i128]) -> Result<Option<(i128, i128)>, String> {
    let (mut lo, mut hi) = (None::<i128>, None::<i128>);
    for row in rows {
        let rest = row[row.len() - 1] + (0..k).map(|j| row[j] * prefix[j]).sum::<i128>();
        let a = row[k];
        if a == 0 {
            if rest < 0 {
                return Ok(None);
            }
        } else if a > 0 {
            // a x + rest >= 0  <=>  x >= ceil(-rest / a)
            let bound = (-rest).div_euclid(a) + i128::from((-rest).rem_euclid(a) != 0);
            lo = Some(lo.map_or(bound, |lo| lo.max(bound)));
        } else {
            // x <= floor(rest / -a)
            let bound = rest.div_euclid(-a);
            hi = Some(hi.map_or(bound, |hi| hi.min(bound)));
        }
    }
    match (lo, hi) {
        (Some(lo), Some(hi)) => Ok((lo <= hi).then_some((lo, hi))),
        _ => Err(format!("dimension {k} is unbounded")),
    }
}

/// Fourier-Motzkin: the rows on dimensions `0..k` implied by `rows` (on `0..=k`), each
/// tightened to integer points.
fn eliminate(rows: &[Vec<i128>], k: usize) -> Result<Vec<Vec<i128>>, String> {
    let (mut lower, mut upper, mut kept) = (Vec::new(), Vec::new(), Vec::new());
    for row in rows {
        match row[k].signum() {
            1 => lower.push(row),
            -1 => upper.push(row),
            _ => kept.push(row.clone()),
        }
    }
    for l in &lower {
        for u in &upper {
            let (a, b) = (l[k], -u[k]);
            kept.push(l.iter().zip(u.iter()).map(|(x, y)| x * b + y * a).collect());
        }
    }
    let mut out: Vec<Vec<i128>> = Vec::with_capacity(kept.len());
    for mut row in kept {
        row[k] = 0;
        tighten(&mut row);
        if !out.contains(&row) {
            out.push(row);
        }
        if out.len() > MAX_ROWS {
            return Err("too many constraints in a projection".into());
        }
    }
    Ok(out)
}

/// Divides a row's coefficients by their gcd, rounding its constant down (valid for the
/// integer points).
fn tighten(row: &mut [i128]) {
    let n = row.len() - 1;
    let g = row[..n].iter().fold(0i128, |g, &v| gcd(g, v.abs()));
    if g > 1 {
        for v in &mut row[..n] {
            *v /= g;
        }
        row[n] = row[n].div_euclid(g);
    }
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[cfg(test)]
mod tests {
    use crate::isl::{parse_set, parse_union_set, IslCtx};

    fn count(text: &str) -> u128 {
        let ctx = IslCtx::new(None).expect("a context");
        parse_set(&ctx, text, "test set")
            .expect("the test set parses")
            .count_points()
            .expect("the set is counted")
    }

    #[test]
    fn boxes_and_triangles() {
        assert_eq!(
            count("{ S[i, j, k] : 0 <= i < 1000 and 0 <= j < 1100 and 0 <= k < 1200 }"),
            1_320_000_000
        );
        assert_eq!(count("{ S[i, j] : 0 <= j <= i < 100 }"), 5050);
        assert_eq!(count("{ S[i, j, k] : 0 <= k < j < i < 30 }"), 4060);
        assert_eq!(count("{ S[] }"), 1);
        // A 5x5 window over a large image: counted as two independent parts.
        assert_eq!(
            count("{ S[y, x, a, b] : 0 <= y, x < 100000 and -2 <= a, b <= 2 }"),
            250_000_000_000
        );
        assert_eq!(count("{ S[i] : 0 <= i < 0 }"), 0);
    }

    #[test]
    fn strides_and_overlapping_unions() {
        // Divisions: the even i and those with i = 1 mod 3.
        assert_eq!(count("{ S[i] : 0 <= i < 100 and exists (e : i = 2e) }"), 50);
        assert_eq!(count("{ S[i] : 0 <= i < 100 and i mod 3 = 1 }"), 33);
        // Two overlapping disjuncts count their common points once.
        assert_eq!(
            count("{ S[i, j] : 0 <= i, j < 10 and (i <= 5 or j <= 5) }"),
            84
        );
        // An equality that leaves no integer point.
        assert_eq!(count("{ S[i, j] : 0 <= i < 10 and 2j = 2i + 1 }"), 0);
    }

    #[test]
    fn images_of_accesses() {
        let ctx = IslCtx::new(None).expect("a context");
        // A stencil's reads touch the interior and the borders once each.
        let reads = parse_union_set(
            &ctx,
            "{ A[i, j] : 0 <= i < 100 and 1 <= j < 99; A[i, j] : 1 <= i < 99 and 0 <= j < 100; \
             B[i] : 0 <= i < 7 }",
            "reads",
        )
        .expect("parses");
        assert_eq!(reads.count_points().expect("counted"), 100 * 100 - 4 + 7);
    }

    #[test]
    fn refuses_what_it_cannot_count() {
        let ctx = IslCtx::new(None).expect("a context");
        let parametric = parse_set(&ctx, "[n] -> { S[i] : 0 <= i < n }", "p").expect("parses");
        assert!(parametric.count_points().is_err());
        // A parameter the set does not involve is no obstacle.
        let aligned = parse_set(&ctx, "[n, m] -> { S[i] : 0 <= i < 7 }", "a").expect("parses");
        assert_eq!(aligned.count_points().expect("counted"), 7);
        assert!(aligned.involved_params().expect("read").is_empty());
        let unbounded = parse_set(&ctx, "{ S[i] : i >= 0 }", "u").expect("parses");
        assert!(unbounded.count_points().is_err());
    }
}
