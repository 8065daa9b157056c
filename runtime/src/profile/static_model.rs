//! The static section of a profile (`"static"`, format 2, optional): per instrumented
//! loop nest, what the compiler saw of its loops that a run of them cannot show. A value
//! carried from one iteration to the next in a register (a sum, an array element LLVM
//! keeps out of memory across the loop, any other recurrence) leaves no trace in the
//! shadow memory, and the accesses of a call the instrumentation does not record (rand,
//! printf) are not in the folded streams: without these facts the report would call
//! such loops parallel.
//!
//! The compiler puts the facts into the nest's descriptor (`struct polyrust_rt_fact`,
//! descriptor version 2); the runtime copies them here once per nest id and module hash,
//! whatever the threads that ran the nest.

use serde::{Deserialize, Serialize};

use super::nest::{NestProfile, MAX_SITES};

/// Most facts one nest may hold (the ABI's limit).
pub const MAX_FACTS: usize = MAX_SITES;

/// What the compiler saw of one instrumented nest.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct StaticNest {
    /// The nest's id and module hash, as its [`NestProfile`]s have them.
    pub id: String,
    pub module_hash: String,
    pub facts: Vec<LoopFact>,
}

/// What a fact says of its loop.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    /// A value accumulated in a register across the loop's iterations with one
    /// associative operation (`operation`): the loop runs in parallel only as a reduction.
    Reduction,
    /// Another value carried in a register from one iteration to the next: the loop
    /// carries a dependence the run did not see.
    Recurrence,
    /// A call (`name`, the callee) in the loop that touches memory and whose accesses are
    /// not recorded: what the run showed of the loop is incomplete.
    UnrecordedCall,
    /// A store (`update`'s second site) of `operation` applied to what a load (its first
    /// site) read from the same address in the loop: the dependences from that store
    /// to that load are a reduction through memory.
    MemoryReduction,
    /// The loop leaves on a value it loads from an address that changes with the
    /// iteration (`name`: the array): a search, whose later iterations run only if the
    /// earlier ones did not find. No dependence shows it, yet the iterations cannot run
    /// in parallel as written.
    DataExit,
}

/// One fact about one loop of a nest.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct LoopFact {
    /// Index of the loop's header site in the nest.
    #[serde(rename = "loop")]
    pub loop_site: u32,
    pub kind: FactKind,
    /// The reduction's operation (`+`, `*`, `min/max`, `&`, `|`, `^`, or `flag`: set to
    /// one loop-invariant value under a condition, or `argmin/argmax`: an extremum
    /// and the values chosen by the same comparison); empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub operation: String,
    /// The value's source name (or, for a call, the callee's); empty when unknown.
    pub name: String,
    /// A memory reduction's load and store sites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<(u32, u32)>,
}

impl StaticNest {
    /// The first rule of the format this entry breaks, if any.
    pub fn validate(&self) -> Result<(), String> {
        if self.facts.len() > MAX_FACTS {
            return Err(format!(
                "static facts of nest '{}': {}, more than {MAX_FACTS}",
                self.id,
                self.facts.len()
            ));
        }
        match self
            .facts
            .iter()
            .find(|fact| fact.loop_site as usize >= MAX_SITES)
        {
            Some(fact) => Err(format!(
                "static facts of nest '{}': loop site {}, more than {MAX_SITES}",
                self.id, fact.loop_site
            )),
            None => Ok(()),
        }
    }
}

impl super::Profile {
    /// The compiler's facts about the loops of `nest` (none for a nest compiled before
    /// profiles had them).
    pub fn static_facts(&self, nest: &NestProfile) -> &[LoopFact] {
        self.static_nests
            .iter()
            .find(|s| s.id == nest.id && s.module_hash == nest.module_hash)
            .map_or(&[], |s| s.facts.as_slice())
    }
}

/// Sorts `nests` by id and module hash and keeps the first of each (the facts of one
/// compiled nest are the same in every run of it).
pub(super) fn canonicalize(nests: &mut Vec<StaticNest>) {
    nests.sort_by(|a, b| (&a.id, &a.module_hash).cmp(&(&b.id, &b.module_hash)));
    nests.dedup_by(|b, a| a.id == b.id && a.module_hash == b.module_hash);
}
