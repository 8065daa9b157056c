//! Whether new code can replace a detected region, and what it connects to: how
//! control enters the region and which values the region leaves to the code after it.
//! Detection checks it once per region (`DetectedRegion::not_replaceable`), so that a
//! region code generation cannot replace costs no model or schedule and every printer
//! says why; code generation reads the same analysis to connect its new code.
//!
//! A region is replaceable when the blocks under each statement's data-dependent branch
//! are what code generation copies (plain branches, entered only from the statement's
//! first block, leaving it for one block), something enters it, and every value it
//! leaves behind is one the new code can provide (`LiveOut`). Relies on the region's IR
//! (`RegionIr`): its blocks, loops, scalars and parameters.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, InstructionOpcode};

use super::reject::{RejectReason, Rejection};
use super::translate::ParamValue;
use super::{ArrayIr, RegionIr, StatementIr};
use crate::llvm::builder::{phis_of, Value};
use crate::llvm::ir::{as_instruction, basic_value, phi_incoming, predecessors, successors, users};
use crate::llvm::source_terms::describe_value;
use crate::llvm::FunctionAnalyses;

/// What new code replacing the region connects to.
pub struct Boundary<'f> {
    pub entering: Entering<'f>,
    pub live_outs: LiveOuts,
}

/// The rejection saying why new code cannot replace the region.
fn not_replaceable(what: String) -> Rejection {
    Rejection::new(RejectReason::NotReplaceable, what)
}

/// The boundary of the region, or why new code cannot replace it.
pub fn boundary<'f>(
    fa: &FunctionAnalyses<'f>,
    ir: &RegionIr<'f>,
) -> Result<Boundary<'f>, Rejection> {
    for st in ir.statements.iter().filter(|s| s.blocks.len() > 1) {
        branch_shape(st)?;
    }
    let outside: Vec<BasicBlock<'f>> = predecessors(ir.entry)
        .into_iter()
        .filter(|p| !ir.blocks.contains(p))
        .collect();
    // Code generation gives the region a block in front of it first where it has none.
    let entering = match outside.as_slice() {
        [entering] => Entering::One(*entering),
        [] if fa.function().get_first_basic_block() == Some(ir.entry) => Entering::FunctionEntry,
        [] => {
            return Err(not_replaceable(
                "the region is not entered from anywhere".into(),
            ))
        }
        _ => Entering::Several(outside),
    };
    Ok(Boundary {
        entering,
        live_outs: live_outs(fa, ir)?,
    })
}

/// How control enters a region.
pub enum Entering<'f> {
    /// From one block outside it, where the check goes.
    One(BasicBlock<'f>),
    /// The region starts the function.
    FunctionEntry,
    /// From several blocks outside it.
    Several(Vec<BasicBlock<'f>>),
}

/// Whether the blocks under a statement's data-dependent branch form what code
/// generation copies: plain branches, entered only from the statement's first block,
/// leaving it for one block.
fn branch_shape(st: &StatementIr<'_>) -> Result<(), Rejection> {
    let unsupported = |what: &str| {
        Err(not_replaceable(format!(
            "statement {} has a data-dependent branch inside {what}, which code generation does not handle yet",
            st.name
        )))
    };
    let mut leaves_to = None;
    for (k, block) in st.blocks.iter().enumerate() {
        let plain = block
            .get_terminator()
            .is_some_and(|t| t.get_opcode() == InstructionOpcode::Br);
        if !plain {
            return unsupported("that ends in something other than a branch");
        }
        if k > 0 && predecessors(*block).iter().any(|p| !st.blocks.contains(p)) {
            return unsupported("whose blocks are entered from outside the statement");
        }
        for succ in successors(*block) {
            if st.blocks.contains(&succ) {
                continue;
            }
            if leaves_to.is_some_and(|b| b != succ) {
                return unsupported("that leaves the statement for several blocks");
            }
            leaves_to = Some(succ);
        }
    }
    Ok(())
}

/// What the region leaves to the code after it, and how the new code provides it.
pub struct LiveOuts {
    /// Each phi of the exit block with the one value the region gives it (the phi
    /// itself when the paths out of the region give different values: a scalar) and
    /// how the new code provides that value.
    pub exit_phis: Vec<(Value, Value, LiveOut)>,
    /// Values made in the region and used after it other than by the exit's phis: after
    /// the new code they come from a phi of the exit block that replaces those uses
    /// (each with how the new code provides it).
    pub escaping: Vec<(Value, LiveOut)>,
}

/// How the new code provides a value the region made and code after it uses.
#[derive(Clone, Copy)]
pub enum LiveOut {
    /// Made before the region or as a parameter: usable as it is.
    Unchanged,
    /// A scalar of the model: its stack slot holds the last value written.
    Slot,
    /// A load of an invariant parameter, hoisted into the check block.
    Hoisted,
    /// Recomputed from values defined before the region (ScalarEvolution's value at
    /// the exit).
    Recomputed,
}

/// The values the region leaves behind: the exit block's phis, and values used after
/// the region, each of which the new code must be able to provide.
fn live_outs<'f>(fa: &FunctionAnalyses<'f>, ir: &RegionIr<'f>) -> Result<LiveOuts, Rejection> {
    let mut exit_phis = Vec::new();
    for phi in phis_of(ir.exit) {
        let from_region: Vec<Value> = phi_incoming(phi)
            .into_iter()
            .filter(|(_, from)| ir.blocks.contains(from))
            .map(|(v, _)| v)
            .collect();
        let Some(first) = from_region.first().copied() else {
            continue;
        };
        if from_region.iter().any(|v| *v != first) {
            // Detection made it a scalar that each path out writes.
            let is_scalar = matches!(live_out(fa, ir, phi.as_value_ref()), Ok(LiveOut::Slot));
            if !is_scalar {
                return Err(not_replaceable(format!(
                    "{} takes different values depending on the path out of the region",
                    fa.operand_name(&phi)
                )));
            }
            exit_phis.push((phi.as_value_ref(), phi.as_value_ref(), LiveOut::Slot));
            continue;
        }
        exit_phis.push((phi.as_value_ref(), first, live_out(fa, ir, first)?));
    }
    let mut escaping = Vec::new();
    for block in &ir.blocks {
        for inst in block.get_instructions() {
            let used_after = users(&inst).iter().any(|user| {
                let outside = user.get_parent().is_some_and(|b| !ir.blocks.contains(&b));
                let exit_phi = user.get_opcode() == InstructionOpcode::Phi
                    && user.get_parent() == Some(ir.exit);
                outside && !exit_phi
            });
            if !used_after {
                continue;
            }
            let value = inst.as_value_ref();
            // Every path out of the region must have made the value: the exit's new
            // phi takes it from each of the region's edges into the exit.
            let enters_only_from_region =
                predecessors(ir.exit).iter().all(|p| ir.blocks.contains(p));
            if !fa.dominates(*block, ir.exit) || !enters_only_from_region {
                return Err(not_replaceable(format!(
                    "{} is used after the region but not made on every path through it",
                    describe_value(fa, value)
                )));
            }
            escaping.push((value, live_out(fa, ir, value)?));
        }
    }
    Ok(LiveOuts {
        exit_phis,
        escaping,
    })
}

/// How the new code provides `value` after the region, if it can.
fn live_out<'f>(
    fa: &FunctionAnalyses<'f>,
    ir: &RegionIr<'f>,
    value: Value,
) -> Result<LiveOut, Rejection> {
    let instruction = as_instruction(value);
    let block = instruction.and_then(|i| i.get_parent());
    let defined_inside = block.is_some_and(|b| ir.blocks.contains(&b));
    // A phi of a loop header in the region is written by the statements that end in
    // its predecessors, the latch's included: after the last iteration its slot holds
    // the value for an iteration that does not run, not the one the phi had (fuzz seed
    // 9301). Its value after the region is recomputed or not given at all. (A phi of
    // another block, such as an LCSSA phi after a loop, has its last value there.)
    let loop_phi = defined_inside
        && instruction.is_some_and(|i| i.get_opcode() == InstructionOpcode::Phi)
        && block.is_some_and(|b| fa.loop_for_block(b).is_some_and(|l| l.header() == b));
    // A scalar of the model: a value the region makes, or an exit phi each path out of
    // the region writes.
    if !loop_phi
        && ir
            .arrays
            .iter()
            .any(|(_, a)| matches!(a, ArrayIr::Scalar { value: v } if *v == value))
    {
        return Ok(LiveOut::Slot);
    }
    if !defined_inside {
        return Ok(LiveOut::Unchanged);
    }
    if ir
        .params
        .iter()
        .any(|p| matches!(p.value, ParamValue::InvariantLoad(load) if load.as_value_ref() == value))
    {
        return Ok(LiveOut::Hoisted);
    }
    if fa.is_scevable(&basic_value(value)) {
        let at_exit = fa.scev_at_scope(fa.scev(&basic_value(value)), fa.loop_for_block(ir.exit));
        if made_before(ir, at_exit) {
            return Ok(LiveOut::Recomputed);
        }
    }
    if loop_phi {
        return Err(not_replaceable(format!(
            "{}, a phi of a loop header in the region, is used after it, and its last \
             value cannot be recomputed there",
            describe_value(fa, value)
        )));
    }
    Err(not_replaceable(format!(
        "{} is computed in the region and used after it, and its value there cannot be \
         recomputed (it is neither a scalar of the model nor a function of values made \
         before the region)",
        describe_value(fa, value)
    )))
}

/// Whether `expr` depends only on values made before the region (no recurrence of the
/// region's loops, no value the region computes).
fn made_before(ir: &RegionIr<'_>, expr: crate::llvm::Scev<'_>) -> bool {
    let mut stack = vec![expr];
    let mut visited = 0usize;
    while let Some(e) = stack.pop() {
        visited += 1;
        // Expressions are DAGs that can be exponentially large as trees.
        if visited > 256 {
            return false;
        }
        match e.kind() {
            crate::llvm::ScevKind::CouldNotCompute => return false,
            crate::llvm::ScevKind::Unknown => {
                let inside = e
                    .unknown_value()
                    .and_then(as_instruction)
                    .and_then(|i| i.get_parent())
                    .is_some_and(|b| ir.blocks.contains(&b));
                if inside {
                    return false;
                }
            }
            crate::llvm::ScevKind::AddRec => {
                if e.add_rec_loop().is_some_and(|l| ir.loops.contains(&l)) {
                    return false;
                }
                stack.extend(e.operands());
            }
            _ => stack.extend(e.operands()),
        }
    }
    true
}
