//! What lasts across the rounds of the pass on one function: the round whose detection
//! remarks are said, the regions already decided, and what speculation keeps between
//! rounds. The pass rewrites one region per round and is run again with fresh analyses
//! (see `driver::run`); each region is modelled, decided and reported once. (That a
//! remark is said once in the function is the host's `FunctionRun`'s to keep: every
//! stage says remarks through the analyses, printers too.)

use std::collections::HashSet;

use crate::detect::DetectedRegion;
use crate::llvm::FunctionAnalyses;
use crate::options::Options;
use crate::speculate;

/// The state of the pass on the function at hand, across its rounds.
#[derive(Default)]
pub struct Session {
    /// The round whose detection remarks are said: the first, or the one after the IR
    /// was reshaped before modelling (see `round::reshape`).
    pub remarks_due: u32,
    /// The regions already decided in an earlier round (see `RegionIdentity`). Rewritten
    /// regions need no entry: their loops are tagged and detection skips them.
    decided: HashSet<RegionIdentity>,
    /// What speculation keeps across rounds (with `-polyrust-profile-generate` or
    /// `-polyrust-profile-use`).
    pub(super) speculation: speculate::State,
}

/// A region by the address of its entry block (which rewriting another region leaves in
/// place) and, for specialized versions (which share the entry of the loops they
/// specialize), the (value address, constant) pairs speculated on.
type RegionIdentity = (usize, Vec<(usize, i64)>);

impl Session {
    /// Starts on a new function (round 0): nothing said, nothing decided.
    pub fn start_function(&mut self, fa: &FunctionAnalyses<'_>, options: &Options) {
        *self = Session::default();
        if options.profile_generate.is_some() || options.profile_use.is_some() {
            self.speculation.start_function(fa);
        }
    }

    /// Whether `region` is decided for the first time (and from now on, it is).
    pub fn first_decision(&mut self, region: &DetectedRegion<'_>) -> bool {
        self.decided.insert(identity(region))
    }

    /// `region` is to be decided again in the next round (its code could not be
    /// generated yet).
    pub fn undecide(&mut self, region: &DetectedRegion<'_>) {
        self.decided.remove(&identity(region));
    }
}

fn identity(region: &DetectedRegion<'_>) -> RegionIdentity {
    (
        region.ir.entry.as_mut_ptr() as usize,
        region
            .ir
            .speculated
            .iter()
            .map(|(v, c)| (*v as usize, *c))
            .collect(),
    )
}
