//! The static side of the comparison: a region's model, as `-polyrust-export` wrote it,
//! instantiated at the parameter values of the run. Domains become lists of points
//! (isl enumerates them once the parameters are fixed), and the value-based flow
//! dependences into one read become lists of (source instance, sink instance) pairs.
//!
//! The flow into one read is computed by `Dependences::compute` itself, on a copy of the
//! region that keeps, of the read's array, that one read and every write: the last
//! writer of an element does not depend on the other reads, so these are exactly the
//! region's flow dependences into that read, with the sink known down to the access
//! (a statement-level relation would merge `A[i-1][j]` and `A[i][j-1]`).

use std::path::Path;

use passes::deps::{Dependences, DepsOptions};
use passes::isl::{parse_set, IslCtx, Set};
use passes::model::spec::{AccessKind, ScopSpec};
use passes::model::{json, Scop};

/// Most points one domain or dependence relation may have at the test's sizes.
const MAX_POINTS: usize = 200_000;

/// What detection writes after the instruction of an access it modelled as the
/// element behind a value LLVM keeps in a register: a promoted scalar
/// (`detect/promoted.rs`) or a stored value a phi hands on (`detect/stored.rs`).
const PROMOTED: [&str; 2] = [
    "(promoted scalar, kept in memory)",
    "(stored to memory, read from it)",
];

/// One access of the model.
#[derive(Debug, Clone)]
pub struct StaticAccess {
    pub statement: usize,
    /// Position among the statement's accesses.
    pub index: usize,
    pub kind: AccessKind,
    pub array: String,
    /// Line and column of its instruction (debug information).
    pub location: Option<(u32, u32)>,
    /// Modelled as memory, but a register at run time (see `PROMOTED`).
    pub promoted: bool,
    /// An access to a scalar of the model (a value in a register at run time).
    pub scalar: bool,
    /// A `memcpy`, `memmove` or `memset` of a length known only at run time, which the
    /// instrumentation does not record (it says so in a remark).
    pub unrecorded: bool,
}

impl StaticAccess {
    pub fn is_write(&self) -> bool {
        self.kind != AccessKind::Read
    }
}

/// One region of the model at fixed parameter values.
pub struct StaticRegion {
    pub file: String,
    pub spec: ScopSpec,
    /// `[n, m] -> { : n = 7 and m = 3 }`.
    params: String,
    /// Per statement, its points at those values.
    pub domains: Vec<Vec<Vec<i64>>>,
    pub accesses: Vec<StaticAccess>,
}

/// Flow into one read from the instances of one statement: (source, sink) pairs.
pub struct FlowFrom {
    pub source_statement: usize,
    pub pairs: Vec<(Vec<i64>, Vec<i64>)>,
}

fn context<'a>(what: &str, file: &'a str) -> impl Fn(passes::isl::IslError) -> String + 'a {
    let what = what.to_string();
    move |error| format!("{file}: {what}: {error}")
}

/// The value of every parameter of `spec`, from `values` (name, value).
fn parameter_set(spec: &ScopSpec, values: &[(&str, i64)], file: &str) -> Result<String, String> {
    let mut equalities = Vec::new();
    for name in &spec.params {
        let Some((_, value)) = values.iter().find(|(n, _)| n == name) else {
            return Err(format!(
                "{file}: the test gives no value to the region's parameter '{name}' \
                 (it knows {values:?})"
            ));
        };
        equalities.push(format!("{name} = {value}"));
    }
    let condition = if equalities.is_empty() {
        String::new()
    } else {
        format!(": {}", equalities.join(" and "))
    };
    Ok(format!("[{}] -> {{ {condition} }}", spec.params.join(", ")))
}

/// Whether `instruction` (as LLVM prints it) is a memory intrinsic whose length is not
/// a constant: `call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %b, i64 %n, i1 false)`.
fn variable_length_intrinsic(instruction: &str) -> bool {
    let intrinsic = ["@llvm.memcpy", "@llvm.memmove", "@llvm.memset"]
        .iter()
        .any(|name| instruction.contains(name));
    // The length is the operand in front of the final `i1` (is volatile).
    let length = instruction
        .split(", i1 ")
        .next()
        .and_then(|head| head.rsplit(' ').next());
    intrinsic && length.is_none_or(|operand| operand.parse::<u64>().is_err())
}

/// `file:line:column` as (line, column).
fn line_and_column(location: &str) -> Option<(u32, u32)> {
    let mut parts = location.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((line, column))
}

impl StaticRegion {
    /// Reads an exported region and instantiates it at `values`.
    pub fn read(ctx: &IslCtx, path: &Path, values: &[(&str, i64)]) -> Result<Self, String> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| format!("{file}: {e}"))?;
        let spec = json::import_spec(&text, path).map_err(|e| e.to_string())?;
        let params = parameter_set(&spec, values, &file)?;
        let scalars: Vec<&str> = spec
            .arrays
            .iter()
            .filter(|a| a.is_scalar)
            .map(|a| a.name.as_str())
            .collect();
        let mut domains = Vec::new();
        let mut accesses = Vec::new();
        for (s, statement) in spec.statements.iter().enumerate() {
            let domain = parse_set(ctx, &statement.domain, "a statement's domain")
                .map_err(context("reading a domain", &file))?;
            domains.push(instantiate(ctx, domain, &params).map_err(context(
                &format!("enumerating the domain of {}", statement.name),
                &file,
            ))?);
            for (index, access) in statement.accesses.iter().enumerate() {
                accesses.push(StaticAccess {
                    statement: s,
                    index,
                    kind: access.kind,
                    array: access.array.clone(),
                    location: access.location.as_deref().and_then(line_and_column),
                    promoted: PROMOTED.iter().any(|p| access.instruction.ends_with(p)),
                    scalar: scalars.contains(&access.array.as_str()),
                    unrecorded: variable_length_intrinsic(&access.instruction),
                });
            }
        }
        Ok(StaticRegion {
            file,
            spec,
            params,
            domains,
            accesses,
        })
    }

    pub fn statement_name(&self, statement: usize) -> &str {
        &self.spec.statements[statement].name
    }

    pub fn depth(&self, statement: usize) -> usize {
        self.spec.statements[statement]
            .textual_positions
            .len()
            .saturating_sub(1)
    }

    /// The value-based flow dependences into `read` (an access of this region), per
    /// source statement, at the region's parameter values.
    pub fn flow_into(&self, ctx: &IslCtx, read: &StaticAccess) -> Result<Vec<FlowFrom>, String> {
        let mut spec = self.spec.clone();
        for (s, statement) in spec.statements.iter_mut().enumerate() {
            let mut index = 0;
            statement.accesses.retain(|access| {
                let keep = access.array == read.array
                    && (access.kind != AccessKind::Read
                        || (s == read.statement && index == read.index));
                index += 1;
                keep
            });
        }
        ctx.start_region();
        let scop = Scop::build(ctx, &spec).map_err(|e| format!("{}: {e}", self.file))?;
        let deps = Dependences::compute(&scop, &DepsOptions::default())
            .map_err(|e| format!("{}: {e}", self.file))?;
        let params = parse_set(ctx, &self.params, "the parameter values")
            .map_err(context("parameters", &self.file))?;
        let flow = deps
            .flow
            .copy()
            .and_then(|flow| flow.intersect_params(params))
            .and_then(|flow| flow.maps())
            .map_err(context("instantiating the flow", &self.file))?;
        let mut out = Vec::new();
        for map in flow {
            let source_name = map.domain_name().unwrap_or_default();
            let sink_name = map.range_name().unwrap_or_default();
            if sink_name != self.statement_name(read.statement) {
                return Err(format!(
                    "{}: flow into {sink_name}, but only a read of {} was kept",
                    self.file,
                    self.statement_name(read.statement)
                ));
            }
            let Some(source_statement) = self
                .spec
                .statements
                .iter()
                .position(|s| s.name == source_name)
            else {
                return Err(format!("{}: flow from unknown {source_name}", self.file));
            };
            let n_in = map
                .n_in()
                .map_err(context("reading a relation", &self.file))?;
            let points = map
                .wrapped()
                .and_then(Set::for_some_params)
                .and_then(|set| set.points(MAX_POINTS))
                .map_err(context("enumerating a flow relation", &self.file))?;
            let pairs = points
                .into_iter()
                .map(|mut point| {
                    let sink = point.split_off(n_in);
                    (point, sink)
                })
                .collect();
            out.push(FlowFrom {
                source_statement,
                pairs,
            });
        }
        Ok(out)
    }
}

/// The points of `set` once its parameters take the values of `params`.
fn instantiate(
    ctx: &IslCtx,
    set: Set,
    params: &str,
) -> Result<Vec<Vec<i64>>, passes::isl::IslError> {
    let params = parse_set(ctx, params, "the parameter values")?;
    set.intersect_params(params)?
        .for_some_params()?
        .points(MAX_POINTS)
}
