//! Whether a schedule respects the dependences: every pair of the validity relation must
//! run forward, its sink at a time stamp lexicographically after its source's.
//!
//! The schedule is a union map from statement instances to time stamps. Instances a
//! dependence involves but the schedule leaves out, and pairs whose time stamps lie in
//! different spaces (different numbers of time dimensions), count as violations: a
//! schedule must give every instance a time stamp in one common space, as
//! `isl_schedule_get_map` and the model's 2d+1 schedules do.

use crate::isl::{IslCtx, IslError, Set, Tuple, UnionMap};

use super::error::DepsError;
use super::Dependences;

impl Dependences {
    /// True when `schedule` runs every pair of `validity()` in order.
    pub fn respects(&self, schedule: &UnionMap) -> Result<bool, DepsError> {
        respects(&self.validity, schedule).map_err(|error| DepsError::Isl {
            region: self.region.clone(),
            step: "checking a schedule against the dependences".into(),
            error,
        })
    }
}

/// True when `schedule` runs every pair of `deps` forward.
///
/// Each dependence is mapped to its pair of time stamps, and the differences of the pairs
/// must be lexicographically positive. Comparing differences against the fixed set of
/// positive vectors is much cheaper than relating the two sets of time stamps with a
/// lexicographic order (one disjunct per dimension on both sides): on a time-iterated
/// stencil with skewed schedules, seconds against milliseconds.
pub fn respects(deps: &UnionMap, schedule: &UnionMap) -> Result<bool, IslError> {
    if deps.is_empty()? {
        return Ok(true);
    }
    let scheduled = schedule.copy()?.domain()?;
    let involved = deps.copy()?.domain()?.union(deps.copy()?.range()?)?;
    if !involved.is_subset(&scheduled)? {
        return Ok(false);
    }
    let pairs = deps
        .copy()?
        .apply_domain(schedule.copy()?)?
        .apply_range(schedule.copy()?)?;
    for pair in pairs.maps()? {
        let dims = pair.n_in()?;
        if dims != pair.n_out()? || pair.domain_name() != pair.range_name() {
            return Ok(false);
        }
        let positive = lexicographically_positive(&deps.ctx(), dims)?;
        let distances = pair.deltas()?;
        let positive = positive.align_params(&distances)?;
        if !distances.is_subset(&positive)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `{ [d0, ..., dn-1] : d0 > 0 or (d0 = 0 and d1 > 0) or ... }`; empty for n = 0. The
/// disjuncts are united in that order, as isl reads them from the text.
fn lexicographically_positive(ctx: &IslCtx, n: usize) -> Result<Set, IslError> {
    let dims = Tuple::counters(None, "d", n);
    let mut positive = Set::universe(ctx, &[], &dims)?.subtract(Set::universe(ctx, &[], &dims)?)?;
    for level in 0..n {
        let mut disjunct = Set::universe(ctx, &[], &dims)?;
        for outer in 0..level {
            disjunct = disjunct.fix_dim(outer, 0)?;
        }
        positive = positive.union(disjunct.lower_bound_dim(level, 1)?)?;
    }
    Ok(positive)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::parse_set;

    #[test]
    fn lexicographically_positive_vectors_are_the_ones_isl_reads_from_their_text() {
        let ctx = IslCtx::new(None).unwrap();
        let texts = [
            "{ [] : false }",
            "{ [d0] : (d0 > 0) }",
            "{ [d0, d1] : (d0 > 0) or (d0 = 0 and d1 > 0) }",
            "{ [d0, d1, d2] : (d0 > 0) or (d0 = 0 and d1 > 0) or (d0 = 0 and d1 = 0 and d2 > 0) }",
        ];
        for (n, text) in texts.iter().enumerate() {
            let built = lexicographically_positive(&ctx, n).unwrap();
            let parsed = parse_set(&ctx, text, "expected").unwrap();
            assert!(built.is_equal(&parsed).unwrap(), "{built:?} vs {text}");
            assert_eq!(built.to_str().unwrap(), parsed.to_str().unwrap());
            let names = |set: &Set| (0..n).map(|k| set.dim_name(k)).collect::<Vec<_>>();
            assert_eq!(names(&built), names(&parsed));
        }
    }
}
