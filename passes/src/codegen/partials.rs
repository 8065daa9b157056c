//! Partial results of scalar reductions on OpenMP threads (`plan::reductions`): a forked
//! loop that stores only into reductions' stack slots (the scalar a phi carries and its
//! companions) gives each thread private slots starting from the operator's identity;
//! each thread leaves its partial in its element of an array the dispatcher made, filled
//! with identities, one element per thread `omp_get_max_threads()` allows; after the
//! join, the dispatcher folds the elements into the scalar in thread order and copies the
//! result into the companions. The threads take one contiguous block of iterations each
//! (`Schedule::Partials`), so the bytes depend on the trip and thread counts only.
//!
//! Relies on: the identities being exact (`x + -0.0`, `x * 1.0`, `x | 0`, ... are `x`),
//! so elements of threads the team did not have change nothing; the plan having
//! left every other dependence of the loop in place (no other statement of the loop
//! reads or writes the scalar or a companion).

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMTypeRef;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};

use crate::detect::reduction::{scalar_operator, Operator};
use crate::detect::{ArrayIr, DetectedRegion};
use crate::llvm::builder::{IrBuilder, Value};
use crate::plan::reductions::ScalarReduction;

/// A scalar reduction of a forked loop, with the stack slots it updates.
#[derive(Clone, Debug)]
pub struct Partial {
    /// The stack slot of the scalar the phi carries.
    pub slot: Value,
    /// Its type.
    pub ty: LLVMTypeRef,
    /// How partials combine.
    pub operator: Operator,
    /// The slots of the scalars that get the same value (the running result).
    pub companions: Vec<Value>,
}

/// The reductions of `reductions` whose slots (`slot` of each scalar's IR value: its
/// address and type) cover every one of `stored` (slots a loop stores into), or `None`
/// when one of them is no reduction's.
pub(super) fn partials_for(
    region: &DetectedRegion<'_>,
    slot: impl Fn(Value) -> Option<(Value, LLVMTypeRef)>,
    reductions: &[ScalarReduction],
    stored: &[Value],
) -> Option<Vec<Partial>> {
    let slot_of = |array: &str| {
        region
            .ir
            .arrays
            .iter()
            .find_map(|(name, ir)| match ir {
                ArrayIr::Scalar { value } if name == array => Some(*value),
                _ => None,
            })
            .and_then(|value| Some((value, slot(value)?)))
    };
    let mut partials: Vec<Partial> = Vec::new();
    for reduction in reductions {
        let Some((phi, (pointer, ty))) = slot_of(&reduction.scalar) else {
            continue;
        };
        let companions: Vec<Value> = reduction
            .companions
            .iter()
            .filter_map(|c| slot_of(c).map(|(_, (pointer, _))| pointer))
            .collect();
        let touched = stored.contains(&pointer) || companions.iter().any(|c| stored.contains(c));
        if !touched || partials.iter().any(|p| p.slot == pointer) {
            continue;
        }
        partials.push(Partial {
            slot: pointer,
            ty,
            operator: scalar_operator(phi)?,
            companions,
        });
    }
    let covered = |s: &Value| {
        partials
            .iter()
            .any(|p| p.slot == *s || p.companions.contains(s))
    };
    stored.iter().all(covered).then_some(partials)
}

/// The operator's identity in `ty`: `x op identity` is `x`, bit for bit (`-0.0` for
/// additions: `+0.0` would turn a sum of `-0.0` into `+0.0`).
pub(super) fn identity(b: &IrBuilder<'_>, ty: LLVMTypeRef, operator: Operator) -> Value {
    // SAFETY: a type of the builder's context; constants of it.
    let floating = unsafe {
        !matches!(
            c::LLVMGetTypeKind(ty),
            LLVMTypeKind::LLVMIntegerTypeKind | LLVMTypeKind::LLVMPointerTypeKind
        )
    };
    let real = |v: f64| unsafe { c::LLVMConstReal(ty, v) };
    match operator {
        Operator::FAdd if floating => real(-0.0),
        Operator::FMul if floating => real(1.0),
        Operator::Mul => b.const_int(ty, 1),
        Operator::And => b.const_int(ty, -1),
        _ => b.const_int(ty, 0),
    }
}

/// `a op x`.
pub(super) fn combine(b: &IrBuilder<'_>, operator: Operator, a: Value, x: Value) -> Value {
    let opcode = match operator {
        Operator::FAdd => LLVMOpcode::LLVMFAdd,
        Operator::FMul => LLVMOpcode::LLVMFMul,
        Operator::Add => LLVMOpcode::LLVMAdd,
        Operator::Mul => LLVMOpcode::LLVMMul,
        Operator::And => LLVMOpcode::LLVMAnd,
        Operator::Or => LLVMOpcode::LLVMOr,
        Operator::Xor => LLVMOpcode::LLVMXor,
    };
    b.binary(opcode, a, x)
}

/// Emits `for (k = 0; k < count; k++) body(k)` at the builder's position, which is
/// after the loop afterwards.
pub(super) fn for_each(b: &IrBuilder<'_>, count: Value, mut body: impl FnMut(Value)) {
    let Some(entry) = b.current_block() else {
        return;
    };
    let (head, step, done) = (
        b.new_block("polyrust.partial"),
        b.new_block("polyrust.partial.body"),
        b.new_block("polyrust.partial.end"),
    );
    b.br(head);
    b.position_at_end(head);
    let k = b.phi_i64("polyrust.thread");
    b.add_incoming(k, b.const_i64(0), entry);
    let more = b.icmp(LLVMIntPredicate::LLVMIntSLT, k, count);
    b.cond_br(more, step, done);
    b.position_at_end(step);
    body(k);
    let next = b.binary(LLVMOpcode::LLVMAdd, k, b.const_i64(1));
    let Some(latch) = b.current_block() else {
        return;
    };
    b.add_incoming(k, next, latch);
    b.br(head);
    b.position_at_end(done);
}

/// Before the fork: for each partial, an array of `count` identities (one element per
/// thread); their addresses, in the order of `partials`.
pub(super) fn make_arrays(b: &IrBuilder<'_>, partials: &[Partial], count: Value) -> Vec<Value> {
    partials
        .iter()
        .map(|p| {
            let array = b.array_alloca(p.ty, count, "polyrust.partials");
            let unit = identity(b, p.ty, p.operator);
            for_each(b, count, |k| {
                b.store(unit, b.element_at(p.ty, array, k));
            });
            array
        })
        .collect()
}

/// After the join: each partial's scalar (at `slot`, the slot as the dispatcher got it)
/// combined with the threads' elements in thread order, and copied into the companions.
pub(super) fn combine_arrays(
    b: &IrBuilder<'_>,
    partials: &[(Partial, Value, Vec<Value>)],
    arrays: &[Value],
    count: Value,
) {
    for ((partial, slot, companions), array) in partials.iter().zip(arrays) {
        for_each(b, count, |k| {
            let sum = b.load(partial.ty, *slot, "polyrust.sum");
            let part = b.load(
                partial.ty,
                b.element_at(partial.ty, *array, k),
                "polyrust.part",
            );
            b.store(combine(b, partial.operator, sum, part), *slot);
        });
        let total = b.load(partial.ty, *slot, "polyrust.total");
        for companion in companions {
            b.store(total, *companion);
        }
    }
}
