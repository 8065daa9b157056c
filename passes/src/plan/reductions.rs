//! Scalar reductions on OpenMP threads: with reassociation allowed
//! (`-polyrust-allow-reassociation`), a loop whose iterations only add (multiply, ...)
//! into a scalar carried by a phi (`for (i) s += a[i] * b[i]`) counts as parallel, and
//! code generation gives each thread a private partial of the scalar, combined after
//! the join in thread order (`codegen::outline`), so a thread count always computes the
//! same bytes. Without the option the loop stays serial, and the remark says why.
//!
//! The dependences that mark parallel loops are then every dependence but those between
//! instances of a reducing statement S, to which the dependences S has through its other
//! arrays are added back, computed memory-based (every pair of instances touching one
//! element, one of them writing: a superset of the value-based ones). What is left out is
//! the reduction's updates of its scalar and of its companions: the scalars S writes with
//! the value it hands back to the phi (the running sum LLVM keeps for use after the
//! loop, or the LCSSA phi after the loop that takes it), which after the loop hold the
//! same combined value. Any other statement that
//! reads or writes the scalar or a companion inside the loop keeps its dependences, so
//! such a loop stays serial.
//!
//! Relies on: `deps::Dependences::reductions` (checked candidates: one read and one
//! write of one element per instance), `detect::reduction::scalar_operator` (the IR's
//! operator), and scalars kept in stack slots by code generation (a promoted scalar
//! lives in memory: it is no model scalar, never relaxed here).

use crate::deps::{original_schedule, Dependences};
use crate::detect::reduction::{scalar_operator, updates};
use crate::detect::ArrayIr;
use crate::isl::{IslError, UnionMap};
use crate::llvm::builder::Value;
use crate::llvm::ir::{as_instruction, phi_incoming};
use crate::model::{AccessKind, Scop, Statement};
use crate::transform::Subject;
use inkwell::values::InstructionOpcode;

/// A reduction into a scalar whose updates OpenMP threads may split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScalarReduction {
    /// The reducing statement.
    pub statement: String,
    /// The scalar carried by a phi that it updates.
    pub scalar: String,
    /// The scalars it writes with the same value it hands back to the phi.
    pub companions: Vec<String>,
}

/// The scalar reductions of the region whose operator threads can combine.
pub fn scalar_reductions(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    deps: &Dependences,
) -> Vec<ScalarReduction> {
    let value_of = |array: &str| scalar_value(subject, array);
    let is_scalar = |array: &str| scop.arrays.iter().any(|a| a.name == array && a.is_scalar);
    let mut out = Vec::new();
    for reduction in &deps.reductions {
        let Some(phi) = value_of(&reduction.array) else {
            continue;
        };
        if !is_scalar(&reduction.array) || scalar_operator(phi).is_none() {
            continue;
        }
        let Some(statement) = scop
            .statements
            .iter()
            .find(|s| s.name == reduction.statement)
        else {
            continue;
        };
        let companions = statement
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::MustWrite && a.array != reduction.array)
            .filter(|a| is_scalar(&a.array))
            .filter(|a| value_of(&a.array).is_some_and(|v| holds_update(v, phi)))
            .map(|a| a.array.clone())
            .collect();
        out.push(ScalarReduction {
            statement: reduction.statement.clone(),
            scalar: reduction.array.clone(),
            companions,
        });
    }
    out
}

/// The IR value a scalar of the model stands for.
fn scalar_value(subject: &Subject<'_, '_>, array: &str) -> Option<Value> {
    subject
        .region
        .ir
        .arrays
        .iter()
        .find_map(|(name, ir)| match ir {
            ArrayIr::Scalar { value } if name == array => Some(*value),
            _ => None,
        })
}

/// Whether `value` is the update of the reduction `phi` carries: the update itself, or
/// a phi (LCSSA's, after the loop) that takes nothing else.
fn holds_update(value: Value, phi: Value) -> bool {
    if updates(value, phi) {
        return true;
    }
    as_instruction(value)
        .filter(|v| v.get_opcode() == InstructionOpcode::Phi)
        .map(phi_incoming)
        .is_some_and(|incoming| {
            !incoming.is_empty() && incoming.iter().all(|(v, _)| updates(*v, phi))
        })
}

/// The dependences that mark the loops of the original order parallel when the
/// `reductions`' updates may be split between threads (see the module's comment).
pub fn marking_dependences(
    scop: &Scop,
    deps: &Dependences,
    reductions: &[ScalarReduction],
) -> Result<UnionMap, IslError> {
    let mut marking = deps.all()?;
    if reductions.is_empty() {
        return Ok(marking);
    }
    let original = original_schedule(scop)?;
    for statement in &scop.statements {
        let relaxed: Vec<&str> = reductions
            .iter()
            .filter(|r| r.statement == statement.name)
            .flat_map(|r| std::iter::once(&r.scalar).chain(&r.companions))
            .map(String::as_str)
            .collect();
        if relaxed.is_empty() {
            continue;
        }
        let order = original
            .copy()?
            .intersect_domain(statement.domain.copy()?.to_union_set()?)?;
        let before = order.copy()?.lex_lt_union_map(order)?;
        marking = marking
            .subtract(before.copy()?)?
            .union(conflicts(statement, &relaxed)?.intersect(before)?)?;
    }
    marking.coalesce()
}

/// `{ S[i] -> S[j] }`: the instances of `statement` that touch one element of an array
/// not in `relaxed`, one of them writing.
fn conflicts(statement: &Statement, relaxed: &[&str]) -> Result<UnionMap, IslError> {
    let ctx = statement.domain.ctx();
    let (mut reads, mut writes) = (UnionMap::empty(&ctx)?, UnionMap::empty(&ctx)?);
    for access in &statement.accesses {
        if relaxed.contains(&access.array.as_str()) {
            continue;
        }
        let relation = access
            .relation
            .copy()?
            .intersect_domain(statement.domain.copy()?)?
            .to_union_map()?;
        match access.kind {
            AccessKind::Read => reads = reads.union(relation)?,
            AccessKind::MustWrite | AccessKind::MayWrite => writes = writes.union(relation)?,
        }
    }
    let write_write = writes.copy()?.apply_range(writes.copy()?.reverse()?)?;
    let write_read = writes.copy()?.apply_range(reads.copy()?.reverse()?)?;
    let read_write = reads.apply_range(writes.reverse()?)?;
    write_write.union(write_read)?.union(read_write)
}

/// Why a loop that only reduces into scalars stays serial without
/// `-polyrust-allow-reassociation`, for the remark: `reduction into s: ...`.
pub fn serial_reason(subject: &Subject<'_, '_>, reductions: &[ScalarReduction]) -> Option<String> {
    // Without debug information the scalar has only the model's name.
    let mut names: Vec<String> = reductions
        .iter()
        .map(|r| {
            scalar_value(subject, &r.scalar)
                .and_then(|phi| subject.fa.source_name(phi))
                .unwrap_or_else(|| "a scalar the loop carries".to_string())
        })
        .collect();
    names.dedup();
    (!names.is_empty()).then(|| {
        format!(
            "reduction into {}: runs in parallel only with -polyrust-allow-reassociation",
            names.join(", ")
        )
    })
}
