//! Why a loop nest is not a SCoP: one enum of reasons, each with a message a user can
//! read. Detection records every reason that applies, not just the first, because
//! speculation decides from the full list whether a run-time check could settle them.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RejectReason {
    /// The loop is not in the canonical shape (several latches).
    LoopShape,
    /// The loop can be left from more than one place (`break`, `return`).
    MultipleExits,
    /// ScalarEvolution cannot count the iterations (data-dependent exit).
    UnknownTripCount,
    /// The iteration count is known but not affine in outer counters and parameters.
    NonAffineLoopBound,
    /// A branch condition is not an affine comparison.
    NonAffineCondition,
    /// A `switch`, `indirectbr`, `invoke` or similar terminator.
    UnsupportedControlFlow,
    /// Control flow that is not structured as nested loops and conditions.
    IrreducibleControlFlow,
    /// A block runs under a condition too large to model (more comparisons than
    /// `control::MAX_CONDITION_COMPARISONS`).
    ComplexCondition,
    /// An array subscript that is not affine, and no delinearization makes it so.
    NonAffineSubscript,
    /// A pointer whose base is computed (or loaded) inside the region.
    VariantBasePointer,
    /// The same memory is accessed with elements of different sizes.
    MixedElementTypes,
    /// A call to a function that may read or write memory.
    UnknownCall,
    /// A volatile or atomic access, or a fence.
    VolatileOrAtomic,
    /// Stack allocation inside the loop nest.
    Alloca,
    /// An instruction the model has no representation for (`va_arg`, exception pads).
    UnsupportedInstruction,
    /// The nest has no memory access worth modelling.
    NoMemoryAccess,
    /// New code cannot replace the region (see `replaceable`): it is still modelled
    /// and reported, but left as it is.
    NotReplaceable,
}

impl RejectReason {
    /// Every reason, for listings (the profile report, tests).
    #[cfg(test)]
    pub const ALL: [RejectReason; 17] = [
        RejectReason::LoopShape,
        RejectReason::MultipleExits,
        RejectReason::UnknownTripCount,
        RejectReason::NonAffineLoopBound,
        RejectReason::NonAffineCondition,
        RejectReason::UnsupportedControlFlow,
        RejectReason::IrreducibleControlFlow,
        RejectReason::ComplexCondition,
        RejectReason::NonAffineSubscript,
        RejectReason::VariantBasePointer,
        RejectReason::MixedElementTypes,
        RejectReason::UnknownCall,
        RejectReason::VolatileOrAtomic,
        RejectReason::Alloca,
        RejectReason::UnsupportedInstruction,
        RejectReason::NoMemoryAccess,
        RejectReason::NotReplaceable,
    ];

    /// Stable identifier for printers, remarks and profiles.
    pub fn key(self) -> &'static str {
        match self {
            RejectReason::LoopShape => "loop-shape",
            RejectReason::MultipleExits => "multiple-exits",
            RejectReason::UnknownTripCount => "unknown-trip-count",
            RejectReason::NonAffineLoopBound => "non-affine-loop-bound",
            RejectReason::NonAffineCondition => "non-affine-condition",
            RejectReason::UnsupportedControlFlow => "unsupported-control-flow",
            RejectReason::IrreducibleControlFlow => "irreducible-control-flow",
            RejectReason::ComplexCondition => "complex-condition",
            RejectReason::NonAffineSubscript => "non-affine-subscript",
            RejectReason::VariantBasePointer => "variant-base-pointer",
            RejectReason::MixedElementTypes => "mixed-element-types",
            RejectReason::UnknownCall => "unknown-call",
            RejectReason::VolatileOrAtomic => "volatile-or-atomic",
            RejectReason::Alloca => "alloca",
            RejectReason::UnsupportedInstruction => "unsupported-instruction",
            RejectReason::NoMemoryAccess => "no-memory-access",
            RejectReason::NotReplaceable => "not-replaceable",
        }
    }
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RejectReason::LoopShape => "loop is not in canonical form",
            RejectReason::MultipleExits => "loop has more than one exit",
            RejectReason::UnknownTripCount => "loop trip count cannot be computed",
            RejectReason::NonAffineLoopBound => "non-affine loop bound",
            RejectReason::NonAffineCondition => "non-affine branch condition",
            RejectReason::UnsupportedControlFlow => "unsupported control flow",
            RejectReason::IrreducibleControlFlow => "irreducible control flow",
            RejectReason::ComplexCondition => "branch conditions too complex to model",
            RejectReason::NonAffineSubscript => "non-affine subscript",
            RejectReason::VariantBasePointer => "base pointer is computed inside the loop nest",
            RejectReason::MixedElementTypes => "memory accessed with elements of different sizes",
            RejectReason::UnknownCall => "call to a function that may access memory",
            RejectReason::VolatileOrAtomic => "volatile or atomic memory access",
            RejectReason::Alloca => "stack allocation inside the loop nest",
            RejectReason::UnsupportedInstruction => "unsupported instruction",
            RejectReason::NoMemoryAccess => "no memory access to optimize",
            RejectReason::NotReplaceable => "new code cannot replace the region",
        })
    }
}

/// One reason, where it applies, and the detail that makes it concrete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub reason: RejectReason,
    /// What exactly, e.g. the subscript or the called function.
    pub detail: String,
}

impl Rejection {
    pub fn new(reason: RejectReason, detail: impl Into<String>) -> Self {
        Rejection {
            reason,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.detail.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", self.reason, self.detail)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_a_distinct_key_and_message() {
        let keys: std::collections::BTreeSet<_> =
            RejectReason::ALL.iter().map(|r| r.key()).collect();
        let messages: std::collections::BTreeSet<_> =
            RejectReason::ALL.iter().map(|r| r.to_string()).collect();
        assert_eq!(keys.len(), RejectReason::ALL.len());
        assert_eq!(messages.len(), RejectReason::ALL.len());
    }

    #[test]
    fn rejection_message_carries_its_detail() {
        let r = Rejection::new(RejectReason::NonAffineSubscript, "A[idx[i]]");
        assert_eq!(r.to_string(), "non-affine subscript: A[idx[i]]");
    }
}
