//! Loads that LLVM carries from one iteration to the next in a phi, turned back into
//! loads.
//!
//! GVN's load PRE turns the 3-point stencil `s[i] = a[i-1] + a[i] + a[i+1]` into one load
//! per iteration: `a[i+1]` is loaded, and the next iterations see it in phis
//! (`%p = phi [load a[1], preheader], [load a[i+1], latch]`). The model sees such a phi as
//! a scalar carried along the loop, which is correct but keeps the statement from being
//! recomputed elsewhere (expression propagation needs producers that read only memory).
//! Here such a phi is recognised and replaced by a load of the address it holds the
//! value of: the value of `%p` at iteration `k` is the one loaded from the latch
//! value's address at iteration `k - 1`, and the preheader's load is that address at
//! `k = 0`.
//!
//! The reload reads the same value only if nothing in between writes that memory: every
//! instruction of the loop that may write memory is a store that alias analysis proves
//! apart from the loaded array (unknown extents), or a call that writes nothing (or
//! only errno), and the preheader's load is in the preheader with no write after it.
//! The loads must be plain (not volatile, not atomic) and of the phi's type.
//!
//! Relies on ScalarEvolution for the addresses (an affine recurrence of the loop) and on
//! alias analysis; the rewrite is done by the driver between rounds (see `unrotate`),
//! only in regions whose temporaries expression propagation could remove.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::llvm::ir::{
    as_instruction, basic_value, operand, phi_incoming, pointer_operand, type_of,
};
use crate::llvm::{AliasResult, FunctionAnalyses, Loop, MemoryEffect, Scev, ScevKind};

/// A header phi that holds the value of a load of its own loop's previous iteration,
/// or (in an in-place sweep, `Carried::InPlace`) of the value that iteration stored.
pub struct RotatedLoad<'f> {
    pub phi: InstructionValue<'f>,
    /// The preheader's load, the phi's value at the first iteration.
    pub first: InstructionValue<'f>,
    /// The load (or store) whose value the back edge carries (its alignment and
    /// metadata are kept).
    pub carried: InstructionValue<'f>,
    /// The address the phi's value is read from, at the current iteration.
    pub address: Scev<'f>,
}

/// Which values carried in phis `find` turns back into loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carried {
    /// Loads of memory that alias analysis proves no write of the loop touches.
    Loads,
    /// Also, in the innermost loop of an iterated in-place sweep (Gauss-Seidel's
    /// `u[i][j] = f(u[i][j - 1], ..)`, whose stored value LLVM forwards to the next
    /// iteration in a phi): values loaded from or stored to the array the loop writes,
    /// where every store of the loop writes at a constant distance from the value's
    /// address, never overlapping it. Such a loop's phis are all turned back, or none:
    /// only with its carried values read from memory can its rows be reordered
    /// (`transform::row_wavefront`).
    InPlace,
}

/// The rotated loads of the headers of `loops`.
pub fn find<'f>(
    fa: &FunctionAnalyses<'f>,
    loops: &[Loop<'f>],
    carried: Carried,
) -> Vec<RotatedLoad<'f>> {
    let mut found = Vec::new();
    for l in loops {
        let (Some(preheader), Some(latch)) = (l.preheader(), l.latch()) else {
            continue;
        };
        if carried == Carried::InPlace && !in_place_sweep(fa, *l, latch) {
            continue;
        }
        let mut phis = Vec::new();
        let mut all = true;
        let mut inst = l.header().get_first_instruction();
        while let Some(phi) = inst.filter(|i| i.get_opcode() == InstructionOpcode::Phi) {
            match rotated(fa, *l, phi, (preheader, latch), carried) {
                Some(rotated) => phis.push(rotated),
                None => all &= carries_no_value(phi),
            }
            inst = phi.get_next_instruction();
        }
        if carried == Carried::Loads || all {
            found.extend(phis);
        }
    }
    found
}

/// Whether `l` is the innermost loop of a nest at least three deep (an iterated sweep)
/// that carries to its next iteration, through a phi, a value it stores or a value it
/// loads from a constant distance of an element it stores (the same array, in place).
fn in_place_sweep<'f>(fa: &FunctionAnalyses<'f>, l: Loop<'f>, latch: BasicBlock<'f>) -> bool {
    if l.depth() < 3 {
        return false;
    }
    let stores: Vec<Scev<'f>> = l
        .blocks()
        .into_iter()
        .flat_map(|b| {
            std::iter::successors(b.get_first_instruction(), |i| i.get_next_instruction())
        })
        .filter(|i| i.get_opcode() == InstructionOpcode::Store)
        .filter_map(|i| pointer_operand(i).map(|to| fa.scev(&basic_value(to))))
        .collect();
    let mut inst = l.header().get_first_instruction();
    while let Some(phi) = inst.filter(|i| i.get_opcode() == InstructionOpcode::Phi) {
        let from_latch = phi_incoming(phi)
            .into_iter()
            .find(|(_, b)| *b == latch)
            .and_then(|(v, _)| as_instruction(v));
        let in_place = from_latch.is_some_and(|v| {
            stored_by(l, v).is_some()
                || (v.get_opcode() == InstructionOpcode::Load
                    && pointer_operand(v).is_some_and(|from| {
                        let read = fa.scev(&basic_value(from));
                        stores
                            .iter()
                            .any(|to| fa.minus(*to, read).constant().is_some())
                    }))
        });
        if in_place {
            return true;
        }
        inst = phi.get_next_instruction();
    }
    false
}

/// A phi that carries no floating-point or memory value (a loop counter): it need not
/// be turned back for the loop's rows to be reordered.
fn carries_no_value(phi: InstructionValue<'_>) -> bool {
    matches!(phi.get_type(), inkwell::types::AnyTypeEnum::IntType(_))
}

/// The store of loop `l` that stores `value`, if one does (plain, not volatile).
fn stored_by<'f>(l: Loop<'f>, value: InstructionValue<'f>) -> Option<InstructionValue<'f>> {
    l.blocks()
        .into_iter()
        .flat_map(|b| {
            std::iter::successors(b.get_first_instruction(), |i| i.get_next_instruction())
        })
        .find(|i| {
            i.get_opcode() == InstructionOpcode::Store
                && operand(*i, 0) == Some(value.as_value_ref())
                && !i.get_volatile().unwrap_or(true)
                && i.get_atomic_ordering()
                    .is_ok_and(|o| o == inkwell::AtomicOrdering::NotAtomic)
        })
}

fn rotated<'f>(
    fa: &FunctionAnalyses<'f>,
    l: Loop<'f>,
    phi: InstructionValue<'f>,
    (preheader, latch): (BasicBlock<'f>, BasicBlock<'f>),
    kind: Carried,
) -> Option<RotatedLoad<'f>> {
    let incoming = phi_incoming(phi);
    if incoming.len() != 2 {
        return None;
    }
    let value_from = |block| incoming.iter().find(|(_, b)| *b == block).map(|(v, _)| *v);
    let first = as_instruction(value_from(preheader)?)?;
    let (carried, steps) = carried_source(l, phi, as_instruction(value_from(latch)?)?, kind)?;
    if first == carried
        || !plain_load(first, phi)
        || first.get_parent() != Some(preheader)
        || !carried.get_parent().is_some_and(|b| l.contains_block(b))
    {
        return None;
    }
    let next = fa.scev(&basic_value(pointer_operand(carried)?));
    if next.kind() != ScevKind::AddRec || next.add_rec_loop() != Some(l) {
        return None;
    }
    let [_, step] = next.operands()[..] else {
        return None;
    };
    let address = (0..steps).fold(next, |address, _| fa.minus(address, step));
    // At iteration 0 the phi holds the preheader's load: the recurrence `steps` back
    // must start there.
    let start = *address.operands().first()?;
    if address.kind() != ScevKind::AddRec
        || fa
            .minus(start, fa.scev(&basic_value(pointer_operand(first)?)))
            .constant()
            != Some(0)
    {
        return None;
    }
    let array = pointer_operand(carried)?;
    let after_first =
        std::iter::successors(first.get_next_instruction(), |i| i.get_next_instruction());
    if !after_first.into_iter().all(|i| keeps(fa, i, array)) {
        return None;
    }
    let carry = Carry {
        carried,
        next,
        step: step.constant()?,
        steps,
        size: fa.value_store_size(phi.as_value_ref())?,
    };
    let in_loop = l.blocks().into_iter().flat_map(|b| {
        std::iter::successors(b.get_first_instruction(), |i| i.get_next_instruction())
    });
    let kept = |i: InstructionValue<'f>| {
        keeps(fa, i, array) || (kind == Carried::InPlace && carry.kept_by(fa, i))
    };
    if !in_loop.into_iter().all(kept) {
        return None;
    }
    Some(RotatedLoad {
        phi,
        first,
        carried,
        address,
    })
}

/// Phis passing a value on from phi to phi (LLVM keeps `u[i][j - 1]` and `u[i][j]` of
/// one load in two phis) at most this many iterations.
const MAX_STEPS: u32 = 4;

/// The load (or, `Carried::InPlace`, the store) whose value `value`, the phi's value
/// from the latch, is, and how many iterations back from the phi's: `value` itself
/// (1), or through a chain of phis of the header (each one more).
fn carried_source<'f>(
    l: Loop<'f>,
    phi: InstructionValue<'f>,
    mut value: InstructionValue<'f>,
    kind: Carried,
) -> Option<(InstructionValue<'f>, u32)> {
    let mut steps = 1;
    while kind == Carried::InPlace && value.get_opcode() == InstructionOpcode::Phi {
        if value.get_parent() != Some(l.header()) || value == phi || steps == MAX_STEPS {
            return None;
        }
        let latch = l.latch()?;
        let from_latch = phi_incoming(value).into_iter().find(|(_, b)| *b == latch)?;
        value = as_instruction(from_latch.0)?;
        steps += 1;
    }
    if plain_load(value, phi) {
        return Some((value, steps));
    }
    if kind == Carried::InPlace && type_of(value.as_value_ref()) == type_of(phi.as_value_ref()) {
        return Some((stored_by(l, value)?, steps));
    }
    None
}

/// A value read (or written) by `carried` at address `next` (an affine recurrence of
/// step `step`) and read again `steps` iterations later: the stores of those
/// iterations must leave its `size` bytes alone.
struct Carry<'f> {
    carried: InstructionValue<'f>,
    next: Scev<'f>,
    step: i64,
    steps: u32,
    size: u64,
}

impl<'f> Carry<'f> {
    /// Whether `inst` is a store whose address is a constant distance from `next`
    /// (in every iteration) that keeps its bytes apart from the value's in each of the
    /// iterations the value is carried over; the carried store itself writes the value.
    fn kept_by(&self, fa: &FunctionAnalyses<'f>, inst: InstructionValue<'f>) -> bool {
        if inst.get_opcode() != InstructionOpcode::Store {
            return false;
        }
        let (Some(to), Some(stored)) = (pointer_operand(inst), operand(inst, 0)) else {
            return false;
        };
        let Some(written) = fa.value_store_size(stored) else {
            return false;
        };
        let Some(distance) = fa.minus(fa.scev(&basic_value(to)), self.next).constant() else {
            return false;
        };
        let (size, written) = (
            i64::try_from(self.size).unwrap_or(i64::MAX),
            i64::try_from(written).unwrap_or(i64::MAX),
        );
        // The store `m` iterations after the value's covers [d, d + written) from it.
        (0..i64::from(self.steps)).all(|m| {
            if m == 0 && inst == self.carried {
                return true;
            }
            let d = distance.saturating_add(m.saturating_mul(self.step));
            d >= size || d.saturating_add(written) <= 0
        })
    }
}

/// A load of the phi's type that is neither volatile nor atomic.
fn plain_load(inst: InstructionValue<'_>, phi: InstructionValue<'_>) -> bool {
    inst.get_opcode() == InstructionOpcode::Load
        && !inst.get_volatile().unwrap_or(true)
        && inst
            .get_atomic_ordering()
            .is_ok_and(|o| o == inkwell::AtomicOrdering::NotAtomic)
        && type_of(inst.as_value_ref()) == type_of(phi.as_value_ref())
}

/// Whether `inst` certainly leaves the memory `array` points into unchanged.
fn keeps<'f>(
    fa: &FunctionAnalyses<'f>,
    inst: InstructionValue<'f>,
    array: inkwell::llvm_sys::prelude::LLVMValueRef,
) -> bool {
    match inst.get_opcode() {
        InstructionOpcode::Store => pointer_operand(inst).is_some_and(|to| {
            fa.alias(&basic_value(to), None, &basic_value(array), None) == AliasResult::NoAlias
        }),
        InstructionOpcode::Call => matches!(
            fa.call_memory_effect(inst),
            MemoryEffect::None | MemoryEffect::Read | MemoryEffect::ErrnoWrite
        ),
        InstructionOpcode::AtomicRMW
        | InstructionOpcode::AtomicCmpXchg
        | InstructionOpcode::Fence
        | InstructionOpcode::Invoke
        | InstructionOpcode::CallBr => false,
        _ => true,
    }
}

/// Replaces each phi by a load of its address at the top of its header; whether any
/// was replaced. The preheader's load goes with it when nothing else uses it.
pub fn unrotate<'f>(fa: &FunctionAnalyses<'f>, rotated: &[RotatedLoad<'f>]) -> bool {
    let b = crate::llvm::builder::IrBuilder::new(fa.function());
    // Every reload is built before any phi goes: an address may mention a value that
    // another replacement erases.
    let mut reloads = Vec::new();
    for r in rotated {
        let Some(at) = r.phi.get_parent().and_then(first_non_phi) else {
            continue;
        };
        let Some(pointer) = pointer_operand(r.carried) else {
            continue;
        };
        let Some(address) = fa.expand(r.address, &basic_value(pointer).get_type(), at) else {
            continue;
        };
        b.position_before(at);
        let load = b.load(type_of(r.phi.as_value_ref()), address, "polyrust.unrotated");
        if let (Some(new), Ok(align)) = (as_instruction(load), r.carried.get_alignment()) {
            // The reload may be no more aligned than the load it repeats.
            let _ = new.set_alignment(align);
        }
        b.copy_load_metadata(r.carried, load);
        reloads.push((r, load));
    }
    for (r, load) in &reloads {
        // SAFETY: both values are live instructions of the function, of the same type.
        unsafe {
            inkwell::llvm_sys::core::LLVMReplaceAllUsesWith(r.phi.as_value_ref(), *load);
        }
        r.phi.erase_from_basic_block();
    }
    // Left in front of the loop, a preheader's load would be modelled as a read of its
    // own; each goes once, when nothing uses it any more.
    let mut firsts: Vec<InstructionValue<'f>> = Vec::new();
    for (r, _) in &reloads {
        if !firsts.contains(&r.first) {
            firsts.push(r.first);
        }
    }
    for first in firsts {
        if first.get_first_use().is_none() {
            first.erase_from_basic_block();
        }
    }
    !reloads.is_empty()
}

fn first_non_phi(block: BasicBlock<'_>) -> Option<InstructionValue<'_>> {
    std::iter::successors(block.get_first_instruction(), |i| i.get_next_instruction())
        .find(|i| i.get_opcode() != InstructionOpcode::Phi)
}
