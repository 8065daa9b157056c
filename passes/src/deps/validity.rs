//! Whether a schedule respects the dependences: every pair of the validity relation must
//! run forward, its sink at a time stamp lexicographically after its source's.
//!
//! The schedule is a union map from statement instances to time stamps. Instances a
//! dependence involves but the schedule leaves out, and pairs whose time stamps lie in
//! different spaces (different numbers of time dimensions), count as violations: a
//! schedule must give every instance a time stamp in one common space, as
//! `isl_schedule_get_map` and the model's 2d+1 schedules do.

use crate::isl::{IslError, UnionMap};

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
pub(super) fn respects(deps: &UnionMap, schedule: &UnionMap) -> Result<bool, IslError> {
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
    let forward = pairs
        .copy()?
        .domain()?
        .lex_lt_union_set(pairs.copy()?.range()?)?;
    pairs.is_subset(&forward)
}
