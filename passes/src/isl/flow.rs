//! isl's dataflow analysis: `UnionAccessInfo` describes the sink accesses, the must- and
//! may-sources, the kills and the order of execution (a schedule tree or a flat schedule
//! map); `compute_flow` turns it into a `UnionFlow`, whose dependence relations map each
//! source statement instance to the sink instances that depend on it.
//!
//! Relies on isl's `isl_union_access_info_compute_flow`: for every sink instance and every
//! element it accesses, the last source instance before it (in the schedule) that
//! accessed that element, such that no must-source or kill lies strictly in between. The
//! may-dependences include the must-dependences. Two accesses of the same statement
//! instance are never ordered (neither runs before the other).

use super::error::IslError;
use super::object::isl_object;
use super::schedule::Schedule;
use super::union_map::UnionMap;

isl_object!(
    /// The input of a dataflow analysis (isl's `isl_union_access_info`).
    UnionAccessInfo,
    isl_rs::UnionAccessInfo,
    isl_union_access_info_to_str
);

isl_object!(
    /// The result of a dataflow analysis (isl's `isl_union_flow`).
    UnionFlow,
    isl_rs::UnionFlow,
    isl_union_flow_to_str
);

impl UnionAccessInfo {
    /// A dataflow question about the sink accesses `sink` (`{ S[i] -> A[..] }`), with no
    /// sources, no kills and no schedule yet.
    pub fn from_sink(sink: UnionMap) -> Result<UnionAccessInfo, IslError> {
        UnionAccessInfo::wrap(
            &sink.ctx,
            "starting a dataflow analysis",
            isl_rs::UnionAccessInfo::from_sink(sink.inner),
        )
    }

    /// Accesses that definitely access their element: they can be sources, and they hide
    /// every earlier source of the same element.
    pub fn set_must_source(self, must_source: UnionMap) -> Result<UnionAccessInfo, IslError> {
        UnionAccessInfo::wrap(
            &self.ctx,
            "setting the must-sources of a dataflow analysis",
            self.inner.set_must_source(must_source.inner),
        )
    }

    /// Accesses that may access their element: they can be sources but hide nothing.
    pub fn set_may_source(self, may_source: UnionMap) -> Result<UnionAccessInfo, IslError> {
        UnionAccessInfo::wrap(
            &self.ctx,
            "setting the may-sources of a dataflow analysis",
            self.inner.set_may_source(may_source.inner),
        )
    }

    /// Accesses that definitely overwrite their element: never sources, but they hide
    /// every earlier source of the same element.
    pub fn set_kill(self, kill: UnionMap) -> Result<UnionAccessInfo, IslError> {
        UnionAccessInfo::wrap(
            &self.ctx,
            "setting the kills of a dataflow analysis",
            self.inner.set_kill(kill.inner),
        )
    }

    /// The order of execution, as a schedule tree.
    pub fn set_schedule(self, schedule: Schedule) -> Result<UnionAccessInfo, IslError> {
        UnionAccessInfo::wrap(
            &self.ctx,
            "setting the schedule of a dataflow analysis",
            self.inner.set_schedule(schedule.inner),
        )
    }

    /// The order of execution, as a map from statement instances to time stamps that are
    /// compared lexicographically (e.g. the flattened 2d+1 schedule).
    pub fn set_schedule_map(self, schedule: UnionMap) -> Result<UnionAccessInfo, IslError> {
        UnionAccessInfo::wrap(
            &self.ctx,
            "setting the schedule map of a dataflow analysis",
            self.inner.set_schedule_map(schedule.inner),
        )
    }

    /// Runs the analysis.
    pub fn compute_flow(self) -> Result<UnionFlow, IslError> {
        UnionFlow::wrap(&self.ctx, "computing dataflow", self.inner.compute_flow())
    }
}

impl UnionFlow {
    /// `{ source -> sink }`: the pairs where the source is definitely the last access
    /// of the element before the sink.
    pub fn must_dependence(&self) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "reading the must-dependences of a dataflow analysis",
            self.inner.get_must_dependence(),
        )
    }

    /// `{ source -> sink }`: every pair where the source may be the last access of the
    /// element before the sink (the must-dependences included).
    pub fn may_dependence(&self) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "reading the may-dependences of a dataflow analysis",
            self.inner.get_may_dependence(),
        )
    }

    /// The sink accesses (`{ S[i] -> A[..] }`) with no source at all.
    pub fn must_no_source(&self) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "reading the sinks without source of a dataflow analysis",
            self.inner.get_must_no_source(),
        )
    }

    /// The sink accesses that may have no source (the value may come from before).
    pub fn may_no_source(&self) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "reading the sinks that may have no source of a dataflow analysis",
            self.inner.get_may_no_source(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_union_map, IslCtx};

    fn umap(ctx: &IslCtx, text: &str) -> UnionMap {
        parse_union_map(ctx, text, "test relation").unwrap()
    }

    #[test]
    fn dependences_map_sources_to_sinks() {
        let ctx = IslCtx::new(None).unwrap();
        let writes = umap(&ctx, "[n] -> { W[i] -> A[i] : 0 <= i < n }");
        let reads = umap(&ctx, "[n] -> { R[i] -> A[i - 1] : 1 <= i < n }");
        let order = umap(&ctx, "{ W[i] -> [i, 0]; R[i] -> [i, 1] }");
        let flow = UnionAccessInfo::from_sink(reads)
            .and_then(|a| a.set_must_source(writes))
            .and_then(|a| a.set_schedule_map(order))
            .and_then(UnionAccessInfo::compute_flow)
            .unwrap();
        let expected = umap(&ctx, "[n] -> { W[i] -> R[i + 1] : 0 <= i < n - 1 }");
        assert!(flow.may_dependence().unwrap().is_equal(&expected).unwrap());
        assert!(flow.must_dependence().unwrap().is_equal(&expected).unwrap());
        assert!(flow.may_no_source().unwrap().is_empty().unwrap());
    }

    #[test]
    fn kills_hide_earlier_sources_but_are_no_sources() {
        let ctx = IslCtx::new(None).unwrap();
        // R0 and R1 read x, K overwrites it, W writes it: only R1 is after the kill.
        let reads = umap(&ctx, "{ R0[] -> x[]; R1[] -> x[] }");
        let kill = umap(&ctx, "{ K[] -> x[] }");
        let sink = umap(&ctx, "{ W[] -> x[] }");
        let order = umap(&ctx, "{ R0[] -> [0]; K[] -> [1]; R1[] -> [2]; W[] -> [3] }");
        let flow = UnionAccessInfo::from_sink(sink)
            .and_then(|a| a.set_may_source(reads))
            .and_then(|a| a.set_kill(kill))
            .and_then(|a| a.set_schedule_map(order))
            .and_then(UnionAccessInfo::compute_flow)
            .unwrap();
        let expected = umap(&ctx, "{ R1[] -> W[] }");
        let found = flow.may_dependence().unwrap();
        assert!(found.is_equal(&expected).unwrap(), "{found:?}");
    }
}
