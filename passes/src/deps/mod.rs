//! Dependence analysis of a region: which statement instances must stay ordered.
//!
//! Input: a `Scop` (domains, access relations restricted to the domains, textual
//! positions) and `DepsOptions` (the reductions detection found and whether reassociation
//! is allowed). Output: `Dependences`, value-based and exact as isl's dataflow analysis
//! computes them in the original program order:
//! - flow (read after write): each read instance on the write that produced its value;
//! - anti (write after read): each write instance on the reads of the value it overwrites;
//! - output (write after write): each write instance on the previous write of its element;
//! - reductions: the self-dependences of a statement on the one element it reads and
//!   writes with an associative, commutative operator, kept apart so that a scheduler may
//!   drop them when reassociation is allowed (never by default);
//! - the validity relation a new schedule must respect (`respects`), the loops of the
//!   original schedule that carry dependences, and distance vectors.
//!
//! The original order is rebuilt from the statements' textual positions (the 2d+1
//! schedule), never read from `Scop::schedule`, which an imported or computed schedule
//! replaces. Everything runs in the isl context of the `Scop`, under its operation bound:
//! reaching it is a `DepsError` naming the region and the step. Relies on the `isl` layer
//! only.

mod carried;
mod compute;
mod dataflow;
mod error;
mod print;
mod private;
mod program_order;
mod reduction;
mod validity;

pub use carried::{PairDeltas, PairDistances};
pub use error::DepsError;
pub use private::{PrivateScalars, ScalarFlows};
pub use program_order::original_schedule;
pub use validity::respects;

use crate::isl::UnionMap;

/// What the analysis is told beyond the model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DepsOptions {
    /// Statements that update one element of an array with an associative, commutative
    /// operator (`s += A[i]`), as detection found them.
    pub reductions: Vec<ReductionCandidate>,
    /// Whether a schedule may reorder the updates of a reduction (reassociation). Off by
    /// default: results stay bit-exact; reductions are then reported but kept.
    pub allow_reassociation: bool,
}

impl DepsOptions {
    /// The reductions detection found in `spec`, relaxed only when reassociation is
    /// allowed (`-polyrust-allow-reassociation`).
    pub fn for_region(spec: &crate::model::ScopSpec, allow_reassociation: bool) -> DepsOptions {
        DepsOptions {
            reductions: spec
                .statements
                .iter()
                .flat_map(|s| {
                    s.reductions.iter().map(|array| ReductionCandidate {
                        statement: s.name.clone(),
                        array: array.clone(),
                    })
                })
                .collect(),
            allow_reassociation,
        }
    }
}

/// The dependences get this share of the region's operation bound, counted afresh.
/// Measured: every region of the kernel corpus fits in a quarter (altdir_sweep needs
/// more than an eighth), while the NPB regions that exhaust the whole bound spent
/// 1.2 to 1.5 s each doing so, for nothing.
pub const DEPS_SHARE: u64 = 4;

/// A statement whose only accesses to `array` are one read and one must-write of the same
/// element, combined with an associative, commutative operator.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReductionCandidate {
    /// The statement.
    pub statement: String,
    /// The array (or scalar) it reduces into.
    pub array: String,
}

/// The kinds of dependences, in the order they are reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DependenceKind {
    /// Read after write.
    Flow,
    /// Write after read.
    Anti,
    /// Write after write.
    Output,
    /// A reduction's self-dependences on its element.
    Reduction,
}

impl DependenceKind {
    /// How the kind is named in the printer and in messages.
    pub fn name(self) -> &'static str {
        match self {
            DependenceKind::Flow => "flow",
            DependenceKind::Anti => "anti",
            DependenceKind::Output => "output",
            DependenceKind::Reduction => "reduction",
        }
    }
}

/// A reduction and the dependences it alone imposes.
#[derive(Debug)]
pub struct Reduction {
    /// The reducing statement.
    pub statement: String,
    /// The array (or scalar) it reduces into.
    pub array: String,
    /// `{ S[i] -> S[i'] }`: the flow, anti and output dependences between instances of
    /// the statement through its element of `array` (also part of `Dependences::flow`,
    /// `anti` and `output`).
    pub dependences: UnionMap,
}

/// Whether one loop of the original schedule carries dependences, seen from one statement
/// inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopCarry {
    /// The statement the loop is seen from.
    pub statement: String,
    /// 1 for the outermost loop around the statement.
    pub level: usize,
    /// The loop's iterator as the statement's domain names it (`i0` at level 1).
    pub iterator: String,
    /// The kinds of dependences the loop carries, sorted. `Flow`, `Anti` and `Output`
    /// count the dependences that are not a reduction's; `Reduction` those that are.
    pub carried_by: Vec<DependenceKind>,
}

impl LoopCarry {
    /// True when the iterations of the loop may run in any order (in parallel), given
    /// whether reductions may be reassociated.
    pub fn is_parallel(&self, allow_reassociation: bool) -> bool {
        self.carried_by
            .iter()
            .all(|&kind| kind == DependenceKind::Reduction && allow_reassociation)
    }
}

/// The dependences of one region.
#[derive(Debug)]
pub struct Dependences {
    /// The region (`function:entry-block`).
    pub region: String,
    /// `{ write instance -> read instance }`, reductions included.
    pub flow: UnionMap,
    /// `{ read instance -> write instance }`, reductions included.
    pub anti: UnionMap,
    /// `{ write instance -> write instance }`, reductions included.
    pub output: UnionMap,
    /// In the order of the statements, then of the arrays.
    pub reductions: Vec<Reduction>,
    /// Whether `validity` lets reductions be reordered.
    pub allow_reassociation: bool,
    /// For each statement in program order, each loop around it, outermost first;
    /// found when first asked (`loops`).
    loops: std::cell::OnceCell<Vec<LoopCarry>>,
    /// The statements' loops, for `loops`.
    nests: carried::LoopNests,
    /// Per kind, the dependences `loops` looks for (reductions' own apart).
    carry_inputs: Vec<(DependenceKind, UnionMap)>,
    /// What every schedule must respect; see `validity()`.
    validity: UnionMap,
    /// Statement names in program order (for printing).
    statements: Vec<String>,
    /// The original 2d+1 schedule (for distances).
    original_schedule: UnionMap,
}

impl Dependences {
    /// The pairs of statement instances a schedule must run in order: flow ∪ anti ∪
    /// output. With reassociation allowed, the reductions' own dependences are left out,
    /// and every other dependence on a reduction's element is extended to all of the
    /// reduction's updates of that element before or after it, so that those updates
    /// still run as a block between the same neighbours.
    pub fn validity(&self) -> &UnionMap {
        &self.validity
    }

    /// Every dependence: flow ∪ anti ∪ output, reductions included (what a loop must
    /// not carry for its iterations to run in any order).
    pub fn all(&self) -> Result<UnionMap, crate::isl::IslError> {
        self.flow
            .copy()?
            .union(self.anti.copy()?)?
            .union(self.output.copy()?)
    }

    /// For each pair of statements with dependences (validity) between their instances
    /// inside the loop at `prefix` (the positions `b0..bℓ` of the statements in it) in
    /// one iteration of the loops around it, the smallest distance in each loop: what a
    /// band starting at that loop has to keep non-negative, after shifts, to be
    /// permutable.
    pub fn distances_within_loop(
        &self,
        prefix: &[u32],
    ) -> Result<Vec<PairDistances>, crate::isl::IslError> {
        carried::distances_within_loop(&self.validity, &self.original_schedule, prefix)
    }

    /// The distance vectors (in the original 2d+1 time space) of the pairs of
    /// `relation` (the validity relation or one like it) between each pair of
    /// statements inside the loop at `prefix`, in one iteration of the loops around it:
    /// for distances along combinations of loops (a skewed loop's `s * dt + di`).
    pub fn deltas_within_loop(
        &self,
        relation: &UnionMap,
        prefix: &[u32],
    ) -> Result<Vec<PairDeltas>, crate::isl::IslError> {
        carried::deltas_within_loop(relation, &self.original_schedule, prefix)
    }

    /// For each statement in program order, each loop around it (outermost first) with
    /// the kinds of dependences it carries.
    pub fn loops(&self) -> Result<&[LoopCarry], crate::isl::IslError> {
        if let Some(loops) = self.loops.get() {
            return Ok(loops);
        }
        let ctx = self.validity.ctx();
        let loops = carried::loop_carries(
            &ctx,
            &self.nests,
            &self.original_schedule,
            &self.carry_inputs,
        )?;
        Ok(self.loops.get_or_init(|| loops))
    }

    /// The loop at `level` (1 = outermost) around `statement`, if there is one (`None`
    /// too when isl could not find the loops).
    pub fn loop_carry(&self, statement: &str, level: usize) -> Option<&LoopCarry> {
        self.loops()
            .ok()?
            .iter()
            .find(|l| l.statement == statement && l.level == level)
    }

    /// Whether the loop at `level` around `statement` is parallel under `validity()`
    /// (`None` when there is no such loop).
    pub fn loop_is_parallel(&self, statement: &str, level: usize) -> Option<bool> {
        self.loop_carry(statement, level)
            .map(|l| l.is_parallel(self.allow_reassociation))
    }
}

#[cfg(test)]
mod tests;
