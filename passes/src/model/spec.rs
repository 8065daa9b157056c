//! What detection found in one region, in isl notation and without any LLVM type: the
//! contract between `detect` (which reads IR) and `model` (which builds isl objects).
//! Every set and map is an isl string over the region's parameters, so the model can be
//! built and unit-tested from text alone.
//!
//! Naming: statements are `S0`, `S1`, ... in program order; their iterators are `i0`,
//! `i1`, ... outermost first; arrays keep a readable name derived from the IR (`A`,
//! `MemRef_A` style is not used); parameters are the IR names made isl-safe (`n`, `m`,
//! `p_0` for unnamed values).

/// One region (a SCoP candidate that detection accepted).
#[derive(Clone, Debug, PartialEq)]
pub struct ScopSpec {
    /// `function:entry-block` — unique within a module, stable for file names.
    pub name: String,
    /// The LLVM function the region lies in.
    pub function: String,
    /// Source location of the region's first loop, `file:line:col`, if known.
    pub location: Option<String>,
    /// Parameter names in a fixed order; every isl string below uses exactly these.
    pub params: Vec<String>,
    /// What is known to hold on entry (from the IR: types, guards), an isl set over
    /// the parameters, e.g. `[n, m] -> { : -2147483648 <= n <= 2147483647 }`.
    pub context: String,
    /// What the model assumes and a run-time check must confirm.
    pub assumptions: Vec<Assumption>,
    /// The arrays and scalars the region accesses.
    pub arrays: Vec<ArraySpec>,
    /// In program order.
    pub statements: Vec<StatementSpec>,
    /// Arrays whose base pointers may alias; each group needs a run-time range check.
    pub alias_groups: Vec<Vec<String>>,
}

impl ScopSpec {
    /// How remarks name the region: `region in main at bt.c:1234` (the first loop's
    /// line), or the entry block without debug info. `name` looks like a line number
    /// (`main:5381`) but is a block, so users never see it.
    pub fn title(&self) -> String {
        match &self.location {
            Some(location) => format!("region in {} at {}", self.function, file_line(location)),
            None => {
                let block = self.name.rsplit_once(':').map_or("", |(_, b)| b);
                format!("region in {} at block %{block}", self.function)
            }
        }
    }

    /// `message` without the `region <name>: ` its errors start with, for remarks that
    /// already name the region by its title.
    pub fn strip_name<'m>(&self, message: &'m str) -> &'m str {
        message
            .strip_prefix(&format!("region {}: ", self.name))
            .unwrap_or(message)
    }
}

/// What sort of condition an assumption states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssumptionKind {
    /// Loop counters and subscripts do not wrap around.
    NoWrap,
    /// A delinearized subscript stays within its dimension.
    InBounds,
    /// A value loaded once and used as a parameter does not change in the region.
    InvariantLoad,
}

/// A condition the model assumes, which a run-time check must confirm.
#[derive(Clone, Debug, PartialEq)]
pub struct Assumption {
    /// What sort of condition it is.
    pub kind: AssumptionKind,
    /// An isl set over the parameters that must hold, e.g. `[n] -> { : n <= 1000000 }`,
    /// or, when `statement` is given, a set over that statement's iteration space,
    /// e.g. `[n, m] -> { S0[i0, i1] : 0 <= i1 < m }`: it must hold at every point of the
    /// statement's domain (so it costs nothing where the domain is empty).
    pub set: String,
    /// The statement whose iteration space `set` is over, if any.
    pub statement: Option<String>,
    /// Why, for remarks and the printer.
    pub reason: String,
}

/// An array (or scalar) of the region, as written in a model file.
#[derive(Clone, Debug, PartialEq)]
pub struct ArraySpec {
    /// The array's name (the base pointer's name, or the scalar's).
    pub name: String,
    /// `double`, `float`, `i32`, ... as LLVM prints the element type.
    pub element_type: String,
    /// Bytes per element.
    pub element_size: u32,
    /// Size of each dimension after the first, outermost first, as isl affine
    /// expressions over the parameters (`"m"`, `"100"`). The first dimension is
    /// unbounded. A scalar (an SSA value crossing statements) has no dimensions.
    pub inner_sizes: Vec<String>,
    /// True for SSA values modelled as zero-dimensional arrays.
    pub is_scalar: bool,
}

/// A statement of the region (one basic block's work), as written in a model file.
#[derive(Clone, Debug, PartialEq)]
pub struct StatementSpec {
    /// `S0`, `S1`, ...
    pub name: String,
    /// The IR basic block the statement comes from (`%for.body`).
    pub block: String,
    /// e.g. `[n] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 <= i0 }`.
    pub domain: String,
    /// Position in the original program: the 2d+1 "beta" vector interleaving textual
    /// positions and iterators, `[b0, i0, b1, i1, ..., bd]` with the b's given here
    /// (d+1 of them). Statements sharing a prefix of b's share those loops.
    pub textual_positions: Vec<u32>,
    /// Its memory accesses, in program order.
    pub accesses: Vec<AccessSpec>,
    /// Arrays (or scalars) the statement updates with an associative, commutative
    /// operator: exactly one read and one write of the same element, `x = x op y`.
    pub reductions: Vec<String>,
}

/// Whether an access reads or writes its element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// The access reads the element.
    Read,
    /// The write happens on every execution of the statement.
    MustWrite,
    /// The write may happen (e.g. under a condition the model does not capture).
    MayWrite,
}

/// One memory access of a statement, as written in a model file.
#[derive(Clone, Debug, PartialEq)]
pub struct AccessSpec {
    /// Read, must-write or may-write.
    pub kind: AccessKind,
    /// The array (or scalar) accessed.
    pub array: String,
    /// e.g. `[n] -> { S0[i0, i1] -> A[i0, i1] }`; for a scalar `{ S0[i0] -> s[] }`.
    pub relation: String,
    /// The IR instruction, as printed (`%v = load double, ptr %p`), for the printer.
    pub instruction: String,
    /// Its source location (`file:line:column`, from debug information), when it has
    /// one: what ties the access to the site of an access profile.
    pub location: Option<String>,
}

/// `file:line:col` without the column and without the directories (`blur.c:46`), as
/// remarks name places: the remark itself carries the full path.
pub fn file_line(location: &str) -> &str {
    let file_line = location.rsplit_once(':').map_or(location, |(fl, _)| fl);
    file_line.rsplit('/').next().unwrap_or(file_line)
}
