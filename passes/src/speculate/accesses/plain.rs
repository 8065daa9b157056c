//! The plain copy of an instrumented nest: the nest as it was, without a call, which
//! runs the entries the runtime does not fold (all past the first few) and the rest of
//! an entry once the nest has folded its budget of events, so that only the folded
//! part of a run pays for the instrumentation.
//!
//! In the preheader, `polyrust_rt_nest_begin(&nest)` says which copy runs; between two
//! iterations of the instrumented copy's outermost loop (a block of its own on the
//! latch's edge back to the header), `polyrust_rt_nest_next(&nest)` says whether the
//! rest of the entry goes on in the plain copy, whose header phis then take the values
//! the instrumented latch passes back; the plain copy's outermost header calls
//! `polyrust_rt_nest_plain(&nest)`, from which the runtime estimates the accesses it
//! did not see.
//!
//! Relies on: the nest leaves values only through phis of its exit blocks (LCSSA), its
//! preheader ends in an unconditional branch and its outermost latch branches back to
//! the header once; a nest without these keeps only its instrumented copy
//! (`polyrust_rt_nest_enter`).

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::LLVMIntPredicate;
use inkwell::values::{AsValueRef, InstructionOpcode};

use crate::detect::hoisted::{copy_nest, leaves_through_exit_phis};
use crate::llvm::builder::{phis_of, IrBuilder, Value};
use crate::llvm::ir::{phi_incoming, successors};
use crate::llvm::{FunctionAnalyses, LLVMValueRef, Loop};

use super::first_insertion_point;

/// The plain copy of a nest: its header's copy, and the copy of each value.
pub(super) struct PlainCopy<'f> {
    header: BasicBlock<'f>,
    map: HashMap<LLVMValueRef, LLVMValueRef>,
}

/// The runtime's entry points of a nest with a plain copy, with their types.
pub(super) struct PlainCalls {
    pub begin: (Value, inkwell::llvm_sys::prelude::LLVMTypeRef),
    pub next: (Value, inkwell::llvm_sys::prelude::LLVMTypeRef),
    pub plain: (Value, inkwell::llvm_sys::prelude::LLVMTypeRef),
}

/// Whether the nest at `root` can have a plain copy (see the module's doc).
pub(super) fn admits(root: Loop<'_>) -> bool {
    let Some(preheader) = root.preheader() else {
        return false;
    };
    let Some(latch) = root.latch() else {
        return false;
    };
    let unconditional = preheader.get_terminator().is_some_and(|t| {
        t.get_opcode() == InstructionOpcode::Br && successors(preheader).len() == 1
    });
    let back_edges = successors(latch)
        .into_iter()
        .filter(|s| *s == root.header())
        .count();
    unconditional && back_edges == 1 && leaves_through_exit_phis(root, &root.blocks())
}

/// Copies the nest (before it is instrumented: the copy has no calls). The copy's
/// loops carry the original's loop IDs, hence its tags.
pub(super) fn copy<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    root: Loop<'f>,
) -> PlainCopy<'f> {
    let blocks = root.blocks();
    let (copy, map) = copy_nest(fa, b, (root, &blocks), "polyrust.plain");
    PlainCopy {
        header: copy[&root.header()],
        map,
    }
}

/// Wires the copies together once the original is instrumented: the branch on
/// `begin` in the preheader (`enter_at` is its terminator, in front of which the
/// instrumentation put nothing), the block asking `next` on the back edge, the count
/// of the plain copy's outermost iterations. Returns the block of `next`.
pub(super) fn wire<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    (root, plain): (Loop<'f>, &PlainCopy<'f>),
    nest: Value,
    calls: &PlainCalls,
) -> Option<BasicBlock<'f>> {
    let preheader = root.preheader()?;
    let latch = root.latch()?;
    let header = root.header();
    let enter_at = preheader.get_terminator()?;
    let i32_type = b.i32_type();
    let zero = b.const_int(i32_type, 0);

    b.position_before(enter_at);
    let begin = b.call(calls.begin.0, calls.begin.1, &[nest]);
    b.locate_call(begin);
    let instrumented = b.icmp(LLVMIntPredicate::LLVMIntNE, begin, zero);
    b.erase(enter_at.as_value_ref());
    b.position_at_end(preheader);
    b.cond_br(instrumented, header, plain.header);

    let resume = b.new_block("polyrust.resume");
    let latch_end = latch.get_terminator()?;
    // SAFETY: `latch_end` is a live terminator; its successor indices are in range.
    unsafe {
        let raw = latch_end.as_value_ref();
        for i in 0..c::LLVMGetNumSuccessors(raw) {
            if c::LLVMGetSuccessor(raw, i) == header.as_mut_ptr() {
                c::LLVMSetSuccessor(raw, i, resume.as_mut_ptr());
            }
        }
    }
    fa.replace_phi_incoming_block(header, latch, resume);
    b.position_at_end(resume);
    let next = b.call(calls.next.0, calls.next.1, &[nest]);
    b.locate_call(next);
    let leave = b.icmp(LLVMIntPredicate::LLVMIntNE, next, zero);
    let back = b.cond_br(leave, plain.header, header);
    // The back edge, and with it the loop's ID and tags, is now this block's.
    crate::llvm::move_loop_id(latch_end.as_value_ref(), back);
    // The plain header's phis take what the instrumented latch passes back.
    for phi in phis_of(header) {
        let Some(copied) = plain.map.get(&phi.as_value_ref()).copied() else {
            continue; // the instrumentation's own counter
        };
        if let Some((value, _)) = phi_incoming(phi)
            .into_iter()
            .find(|(_, from)| *from == resume)
        {
            b.add_incoming(copied, value, resume);
        }
    }

    b.position_before(first_insertion_point(plain.header)?);
    b.locate_call(b.call(calls.plain.0, calls.plain.1, &[nest]));
    Some(resume)
}
