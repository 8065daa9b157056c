//! Instruction-level checks: calls, volatile and atomic accesses, allocas and
//! instructions the model cannot represent. Runs over every block of the nest,
//! independently of the other checks, so each problem is reported once.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{InstructionOpcode, InstructionValue};

use super::reject::{RejectReason, Rejection};
use crate::llvm::ir::{
    called_function_name, instruction_text, is_annotation_intrinsic, memory_transfer,
};
use crate::llvm::source_terms::{describe_access, with_ir};
use crate::llvm::{FunctionAnalyses, MemoryEffect};

/// One problem, located at the instruction that causes it.
pub struct Located<'f> {
    pub rejection: Rejection,
    pub at: InstructionValue<'f>,
}

pub fn check<'f>(fa: &FunctionAnalyses<'f>, blocks: &[BasicBlock<'f>]) -> Vec<Located<'f>> {
    let mut out = Vec::new();
    for block in blocks {
        for inst in block.get_instructions() {
            if let Some(rejection) = check_one(fa, inst) {
                out.push(Located {
                    rejection,
                    at: inst,
                });
            }
        }
    }
    out
}

/// Calls that touch no program memory. A call that only writes errno (sqrt, exp, ...
/// under the default -fmath-errno) is accepted too: no statement of a region reads
/// errno (any other call would be rejected), so reordering such calls can only change
/// which error code errno holds after the region, and only when calls that fail with
/// different codes share a region. Programs that inspect errno after numeric loops
/// compile with -fno-math-errno rarely enough that this is the trade Polly users expect;
/// it is stated in the README.
fn accepted_effect(effect: MemoryEffect) -> bool {
    matches!(effect, MemoryEffect::None | MemoryEffect::ErrnoWrite)
}

fn check_one<'f>(fa: &FunctionAnalyses<'f>, inst: InstructionValue<'f>) -> Option<Rejection> {
    use InstructionOpcode as Op;
    let text = || describe_access(fa, inst);
    match inst.get_opcode() {
        Op::Call => {
            if is_annotation_intrinsic(inst)
                || memory_transfer(inst).is_some()
                || accepted_effect(fa.call_memory_effect(inst))
            {
                None
            } else {
                let callee =
                    called_function_name(inst).unwrap_or_else(|| "an indirect call".into());
                Some(Rejection::new(RejectReason::UnknownCall, callee))
            }
        }
        Op::Load | Op::Store => {
            let volatile = inst.get_volatile().unwrap_or(false);
            let atomic = inst
                .get_atomic_ordering()
                .is_ok_and(|o| o != inkwell::AtomicOrdering::NotAtomic);
            (volatile || atomic).then(|| Rejection::new(RejectReason::VolatileOrAtomic, text()))
        }
        Op::Fence | Op::AtomicRMW | Op::AtomicCmpXchg => {
            Some(Rejection::new(RejectReason::VolatileOrAtomic, text()))
        }
        Op::Alloca => Some(Rejection::new(RejectReason::Alloca, text())),
        Op::Switch
        | Op::IndirectBr
        | Op::Invoke
        | Op::CallBr
        | Op::Unreachable
        | Op::Return
        | Op::Resume
        | Op::CatchSwitch
        | Op::CatchRet
        | Op::CleanupRet => Some(Rejection::new(
            RejectReason::UnsupportedControlFlow,
            with_ir(
                fa,
                format!("{:?}", inst.get_opcode()).to_lowercase(),
                || instruction_text(inst),
            ),
        )),
        Op::VAArg | Op::LandingPad | Op::CatchPad | Op::CleanupPad => {
            Some(Rejection::new(RejectReason::UnsupportedInstruction, text()))
        }
        _ => None,
    }
}
