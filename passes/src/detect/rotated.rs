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

use crate::llvm::ir::{as_instruction, basic_value, phi_incoming, pointer_operand, type_of};
use crate::llvm::{AliasResult, FunctionAnalyses, Loop, MemoryEffect, Scev, ScevKind};

/// A header phi that holds the value of a load of its own loop's previous iteration.
pub struct RotatedLoad<'f> {
    pub phi: InstructionValue<'f>,
    /// The preheader's load, the phi's value at the first iteration.
    pub first: InstructionValue<'f>,
    /// The load whose value the back edge carries (its alignment and metadata are kept).
    pub carried: InstructionValue<'f>,
    /// The address the phi's value is read from, at the current iteration.
    pub address: Scev<'f>,
}

/// The rotated loads of the headers of `loops`.
pub fn find<'f>(fa: &FunctionAnalyses<'f>, loops: &[Loop<'f>]) -> Vec<RotatedLoad<'f>> {
    let mut found = Vec::new();
    for l in loops {
        let (Some(preheader), Some(latch)) = (l.preheader(), l.latch()) else {
            continue;
        };
        let mut inst = l.header().get_first_instruction();
        while let Some(phi) = inst.filter(|i| i.get_opcode() == InstructionOpcode::Phi) {
            if let Some(rotated) = rotated(fa, *l, phi, preheader, latch) {
                found.push(rotated);
            }
            inst = phi.get_next_instruction();
        }
    }
    found
}

fn rotated<'f>(
    fa: &FunctionAnalyses<'f>,
    l: Loop<'f>,
    phi: InstructionValue<'f>,
    preheader: BasicBlock<'f>,
    latch: BasicBlock<'f>,
) -> Option<RotatedLoad<'f>> {
    let incoming = phi_incoming(phi);
    if incoming.len() != 2 {
        return None;
    }
    let value_from = |block| incoming.iter().find(|(_, b)| *b == block).map(|(v, _)| *v);
    let first = as_instruction(value_from(preheader)?)?;
    let carried = as_instruction(value_from(latch)?)?;
    if first == carried
        || !plain_load(first, phi)
        || !plain_load(carried, phi)
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
    let address = fa.minus(next, step);
    // At iteration 0 the phi holds the preheader's load: the recurrence one step back
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
    let in_loop = l.blocks().into_iter().flat_map(|b| {
        std::iter::successors(b.get_first_instruction(), |i| i.get_next_instruction())
    });
    if !after_first.chain(in_loop).all(|i| keeps(fa, i, array)) {
        return None;
    }
    Some(RotatedLoad {
        phi,
        first,
        carried,
        address,
    })
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
