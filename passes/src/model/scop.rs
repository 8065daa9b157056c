//! The polyhedral model of one region (`Scop`) and its parts: statements with their
//! iteration domains, flattened schedules and accesses; arrays; alias groups;
//! assumptions. `build.rs` makes one from a `ScopSpec`, `print.rs` shows it, `json.rs`
//! exports it and imports schedules into it.
//!
//! Invariants after `Scop::build`: every isl object has exactly the region's parameters,
//! in `params` order; each statement's domain is a set named like the statement with one
//! dimension per loop around it; each access relation goes from that space to its array
//! with one subscript per array dimension; the schedule tree runs the statements in
//! program order.

use crate::isl::{Map, Schedule, Set, UnionMap, UnionSet};

use super::spec::{AccessKind, AssumptionKind};

/// One region in the polyhedral model.
#[derive(Debug)]
pub struct Scop {
    /// `function:entry-block`.
    pub name: String,
    /// The LLVM function the region lies in.
    pub function: String,
    /// `file:line:col` of the region's first loop, if known.
    pub location: Option<String>,
    /// Parameter names; every isl object below has exactly these, in this order.
    pub params: Vec<String>,
    /// What holds on entry (a parameter set).
    pub context: Set,
    /// `context` intersected with every assumption: the parameter values for which the
    /// model is exact. The run-time check must establish it.
    pub assumed_context: Set,
    /// What the model relies on, each with its set and reason.
    pub assumptions: Vec<ScopAssumption>,
    /// The arrays and scalars the region accesses.
    pub arrays: Vec<Array>,
    /// Arrays whose base pointers may alias, each needing a run-time range check.
    pub alias_groups: Vec<AliasGroup>,
    /// In program order.
    pub statements: Vec<Statement>,
    /// The union of the statements' domains.
    pub domains: UnionSet,
    /// The schedule tree: the original program order after `build`, the imported one
    /// after `json::import_schedule`; later stages replace it with what they compute.
    pub schedule: Schedule,
    /// Every read access, each restricted to its statement's domain.
    pub reads: UnionMap,
    /// Every write that happens on each execution of its statement, restricted likewise.
    pub must_writes: UnionMap,
    /// Every write that may happen, restricted likewise (must-writes are not included).
    pub may_writes: UnionMap,
    /// Per assumption, the parameter values for which it holds, computed when first
    /// asked (see `Scop::assumption_condition`).
    pub(super) conditions: Vec<std::cell::OnceCell<Set>>,
}

/// An assumption the model relies on.
#[derive(Debug)]
pub struct ScopAssumption {
    /// What sort of assumption it is.
    pub kind: AssumptionKind,
    /// The statement whose iteration space the set is over; `None` for a parameter set.
    pub statement: Option<String>,
    /// The assumption as detection stated it: a parameter set, or a set over
    /// `statement`'s iteration space that must hold on its whole domain.
    pub text: String,
    /// `text` read and aligned to the region's parameters, when first asked
    /// (`Scop::assumption_set`): the assumed context reads all of a statement's
    /// assumptions as one set, so each alone is read only to be named or shown (reading
    /// them one by one was a tenth of the pass's time on NPB's SP).
    pub(super) set: std::cell::OnceCell<Set>,
    /// Why, for remarks and the printer.
    pub reason: String,
    /// The index of an earlier assumption with the same statement and set, if any
    /// (detection states one per access that needs it).
    pub repeats: Option<usize>,
}

/// An array (or a scalar modelled as a zero-dimensional array) the region accesses.
#[derive(Debug)]
pub struct Array {
    /// The array's name in the model (the base pointer's name, or the scalar's).
    pub name: String,
    /// `double`, `i32`, ... as LLVM prints it.
    pub element_type: String,
    /// Bytes per element.
    pub element_size: u32,
    /// Sizes of the dimensions after the first, as checked isl affine expressions over the
    /// parameters (`m`, `100`).
    pub inner_sizes: Vec<String>,
    /// The same sizes as one-point sets over the parameters, `[n, m] -> { [(m)] }`, for
    /// code that needs their values (the run-time check's strides).
    pub inner_size_values: Vec<Set>,
    /// True for SSA values modelled as zero-dimensional arrays.
    pub is_scalar: bool,
}

impl Array {
    /// Number of subscripts an access to this array has.
    pub fn rank(&self) -> usize {
        if self.is_scalar {
            0
        } else {
            self.inner_sizes.len() + 1
        }
    }
}

/// Arrays whose base pointers may alias: code generation needs a run-time check that
/// their accessed ranges do not overlap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AliasGroup {
    /// The arrays of the group.
    pub arrays: Vec<String>,
}

/// A statement: a basic block executed once per point of its domain.
#[derive(Debug)]
pub struct Statement {
    /// `S0`, `S1`, ...
    pub name: String,
    /// The IR block it comes from (`%for.body`).
    pub block: String,
    /// `[n] -> { S0[i0, i1] : ... }`, with the region's parameters.
    pub domain: Set,
    /// The "beta" positions from the spec, `b0..bd` for a statement in `d` loops.
    pub textual_positions: Vec<u32>,
    /// The statement's flattened schedule, `{ S0[i0, i1] -> [b0, i0, b1, i1, b2] }`,
    /// padded with zeros so that all statements have the same number of time dimensions.
    /// The original one after `build`, the imported one after `import_schedule`.
    pub schedule: Map,
    /// Its memory accesses, in program order.
    pub accesses: Vec<Access>,
    /// Arrays (or scalars) the statement updates as a reduction, as detection found
    /// them (`StatementSpec::reductions`); kept so that the export can be read back.
    pub reductions: Vec<String>,
}

impl Statement {
    /// Number of loops around the statement.
    pub fn depth(&self) -> usize {
        self.textual_positions.len().saturating_sub(1)
    }
}

/// One memory access of a statement.
#[derive(Debug)]
pub struct Access {
    /// Read, must-write or may-write.
    pub kind: AccessKind,
    /// The array (or scalar) accessed.
    pub array: String,
    /// `[n] -> { S0[i0, i1] -> A[i0, i1] }` as given (not restricted to the domain).
    pub relation: Map,
    /// The IR instruction, as printed.
    pub instruction: String,
    /// Its source location (`file:line:column`), when it has one.
    pub location: Option<String>,
}

/// `i0, i1, ...` for `n` dimensions.
pub(super) fn iterator_list(n: usize) -> String {
    (0..n)
        .map(|k| format!("i{k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// True for names isl reads as a single identifier.
pub(super) fn is_isl_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// How assumptions are named in messages and in the printer.
pub(super) fn assumption_kind_name(kind: AssumptionKind) -> &'static str {
    match kind {
        AssumptionKind::NoWrap => "no-wrap",
        AssumptionKind::InBounds => "in-bounds",
        AssumptionKind::InvariantLoad => "invariant-load",
    }
}

/// How access kinds are named in the printer.
pub(super) fn access_kind_name(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Read => "Read",
        AccessKind::MustWrite => "MustWrite",
        AccessKind::MayWrite => "MayWrite",
    }
}
