//! What the compiler sees of an instrumented nest's loops that a run of them cannot
//! show, for the descriptor's facts (`struct polyrust_rt_fact`, version 2):
//!
//! - values carried from one iteration of a loop to the next in registers: a header phi
//!   that is not a counter (ScalarEvolution's recurrence of the loop) and whose value on
//!   the back edge depends on itself. It is a reduction when the way back is one
//!   associative operation (`+` with `-` of other values and `fmuladd`, `*`, `min/max`
//!   by comparison or intrinsic, `&`, `|`, `^`, or `flag`: set to one invariant value
//!   under a condition that does not read it) through selects, phis and casts, and no
//!   partial value is used elsewhere in the loop (a running sum stored each iteration is
//!   a scan) but by stores to one address invariant in the loop (the last value
//!   remains: OpenMP's private copy of a `reduction` variable); any other such phi is a
//!   recurrence. Two or more such phis are an argmin (or argmax) reduction together when
//!   one is an extremum and the others take an invariant value or the counter under the
//!   same comparison (`if (d < min) { min = d; index = i; }`). A sum `s += a[k]` and an
//!   array element
//!   LLVM keeps in a register across the loop (`C[i][j]` over `k`) are reductions.
//! - updates of one element through memory: a store of `op(x, v)` where `x` was loaded
//!   from the same address in the same loop and is used nothing else there (`y[i] +=
//!   d`, `h[idx[i]]++`): the dependences from that store to that load are a reduction.
//! - loops that leave on a value they load from an address that changes with the
//!   iteration (`while (keys[i] < key) i++`, `for (; *s; s++) if (bad(*s)) return`):
//!   a search, whose later iterations run only if the earlier ones did not find; the
//!   run shows no dependence between them, yet they cannot run in parallel as written.
//! - calls in a loop whose accesses are not recorded (the remark `accesses of the loop
//!   nest not recorded` names them): calls that read or write memory, and memory
//!   intrinsics of a length known only at run time. A libm call under `-fmath-errno`
//!   only writes errno, which no loop reads: it is left out.
//!
//! Relies on loop-simplified loops (one latch), run before the instrumentation adds its
//! own counters and calls. Only reads the IR.

use std::collections::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::llvm::ir::{
    as_instruction, basic_value, called_function_name, is_annotation_intrinsic, is_constant_int,
    memory_transfer, operand, phi_incoming, successors, users,
};
use crate::llvm::source_terms::array_name;
use crate::llvm::{FunctionAnalyses, LLVMValueRef, Loop, MemoryEffect, ScevKind};

/// `POLYRUST_RT_FACT_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FactKind {
    Reduction = 0,
    Recurrence = 1,
    UnrecordedCall = 2,
    MemoryReduction = 3,
    DataExit = 4,
}

/// One fact about one loop of the nest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fact {
    pub kind: FactKind,
    /// The loop's index in the nest's preorder (its site index).
    pub loop_index: usize,
    /// A reduction's operation, else empty.
    pub operation: &'static str,
    /// The value's source name or the callee's; empty when unknown.
    pub name: String,
    /// A memory reduction's load and store sites.
    pub update: Option<(usize, usize)>,
}

/// A load or store site of the nest: its instruction and index.
pub(super) type AccessSite<'f> = (InstructionValue<'f>, usize);

/// Most values one walk looks at: past it, a value counts as depending on the phi (a
/// loop is then said not to be parallel, never the other way round).
const MAX_STEPS: usize = 4096;

/// The facts about `loops` (the nest's loops in preorder), per loop in that order, then
/// the updates through memory among `accesses` (the nest's load and store sites).
pub(super) fn loop_facts<'f>(
    fa: &FunctionAnalyses<'f>,
    loops: &[Loop<'f>],
    accesses: &[AccessSite<'f>],
) -> Vec<Fact> {
    let mut facts = Vec::new();
    for (index, l) in loops.iter().enumerate() {
        let blocks: HashSet<BasicBlock<'f>> = l.blocks().into_iter().collect();
        for (kind, operation, name) in carried_values(fa, *l, &blocks) {
            facts.push(Fact {
                kind,
                loop_index: index,
                operation,
                name,
                update: None,
            });
        }
        facts.extend(memory_updates(fa, *l, index, &blocks, accesses));
        if let Some(name) = data_exit(fa, *l, &blocks) {
            facts.push(Fact {
                kind: FactKind::DataExit,
                loop_index: index,
                operation: "",
                name,
                update: None,
            });
        }
    }
    let Some(root) = loops.first() else {
        return facts;
    };
    for block in root.blocks() {
        let Some(index) = fa
            .loop_for_block(block)
            .and_then(|l| loops.iter().position(|x| *x == l))
        else {
            continue;
        };
        for inst in block.get_instructions() {
            let Some(name) = unrecorded_callee(fa, inst) else {
                continue;
            };
            let fact = Fact {
                kind: FactKind::UnrecordedCall,
                loop_index: index,
                operation: "",
                name,
                update: None,
            };
            if !facts.contains(&fact) {
                facts.push(fact);
            }
        }
    }
    facts
}

/// The updates through memory whose load lies in `l` itself (not in a loop inside it):
/// a store in `l` or in a loop inside it of a value that goes back, by one associative
/// operation, to a load of the same address in `l` used by nothing else in `l`. The
/// store may be in an inner loop that keeps the sum in a register and stores it each
/// iteration (lavaMD's `fA[i].v += ...` over `j`, loaded in front of `j`): the
/// dependence from it to the load, carried by a loop around `l`, is the same update.
fn memory_updates<'f>(
    fa: &FunctionAnalyses<'f>,
    l: Loop<'f>,
    loop_index: usize,
    blocks: &HashSet<BasicBlock<'f>>,
    accesses: &[AccessSite<'f>],
) -> Vec<Fact> {
    let in_l = |inst: InstructionValue<'f>| {
        inst.get_parent()
            .is_some_and(|b| fa.loop_for_block(b) == Some(l))
    };
    let inside_l =
        |inst: InstructionValue<'f>| inst.get_parent().is_some_and(|b| blocks.contains(&b));
    let mut out = Vec::new();
    for &(store, store_site) in accesses {
        if store.get_opcode() != InstructionOpcode::Store || !inside_l(store) {
            continue;
        }
        let (Some(value), Some(pointer)) = (operand(store, 0), operand(store, 1)) else {
            continue;
        };
        let load = accesses.iter().find(|(load, _)| {
            load.get_opcode() == InstructionOpcode::Load
                && operand(*load, 0) == Some(pointer)
                && in_l(*load)
        });
        let Some(&(load, load_site)) = load else {
            continue;
        };
        let mut walk = Walk::new(load, blocks);
        if let Path::Reaches(Some(operation)) = walk.value(value) {
            if walk.only_chain_uses_partial_values(Some(store)) {
                out.push(Fact {
                    kind: FactKind::MemoryReduction,
                    loop_index,
                    operation,
                    name: super::site_array_name(fa, pointer),
                    update: Some((load_site, store_site)),
                });
            }
        }
    }
    out
}

/// When a branch leaving `l` depends, within `l`, on a load from an address that is
/// not invariant in `l`: the name of the array loaded (empty when unknown).
fn data_exit<'f>(
    fa: &FunctionAnalyses<'f>,
    l: Loop<'f>,
    blocks: &HashSet<BasicBlock<'f>>,
) -> Option<String> {
    let in_l = |value: LLVMValueRef| {
        as_instruction(value)
            .and_then(|i| i.get_parent())
            .is_some_and(|b| blocks.contains(&b))
    };
    let mut pending: Vec<LLVMValueRef> = Vec::new();
    for block in l.blocks() {
        let Some(terminator) = block.get_terminator() else {
            continue;
        };
        if successors(block).iter().any(|b| !blocks.contains(b)) {
            pending.extend(operand(terminator, 0).filter(|&c| in_l(c)));
        }
    }
    let mut seen: HashSet<LLVMValueRef> = HashSet::new();
    while let Some(value) = pending.pop() {
        if !seen.insert(value) || seen.len() > MAX_STEPS {
            continue;
        }
        let Some(inst) = as_instruction(value) else {
            continue;
        };
        if inst.get_opcode() == InstructionOpcode::Load {
            if let Some(pointer) = operand(inst, 0).filter(|&p| in_l(p)) {
                return Some(super::site_array_name(fa, pointer));
            }
            continue;
        }
        // Values computed in the loop; a phi's too (a value found in an earlier
        // iteration decides as well), and the branches that choose its incoming value
        // (bfs's `stop = true` under a test of the mask it loads).
        for i in 0..inst.get_num_operands() {
            if let Some(next) = operand(inst, i).filter(|&v| in_l(v)) {
                pending.push(next);
            }
        }
        // Only where the choice matters: incoming values ScalarEvolution finds equal
        // (a counter incremented on every path) do not depend on it.
        let chosen = inst.get_opcode() == InstructionOpcode::Phi && {
            let incoming: Vec<LLVMValueRef> =
                phi_incoming(inst).into_iter().map(|(v, _)| v).collect();
            let scevable = fa.is_scevable(&inst);
            let first = incoming.first().map(|&v| fa.scev(&basic_value(v)));
            !scevable
                || incoming
                    .iter()
                    .any(|&v| Some(fa.scev(&basic_value(v))) != first)
        };
        if chosen {
            for (_, block) in phi_incoming(inst) {
                let choice = block
                    .get_terminator()
                    .filter(|t| blocks.contains(&block) && t.get_num_operands() == 3)
                    .and_then(|t| operand(t, 0))
                    .filter(|&c| in_l(c));
                pending.extend(choice);
            }
        }
    }
    None
}

/// The callee of `inst` when it is a call whose accesses the instrumentation does not
/// record and that may touch memory the loop uses (`memcpy` for a memory intrinsic).
fn unrecorded_callee(fa: &FunctionAnalyses<'_>, inst: InstructionValue<'_>) -> Option<String> {
    if !matches!(
        inst.get_opcode(),
        InstructionOpcode::Call | InstructionOpcode::Invoke
    ) || is_annotation_intrinsic(inst)
    {
        return None;
    }
    if let Some((_, _, length)) = memory_transfer(inst) {
        if is_constant_int(length).is_some_and(|n| n > 0) {
            return None;
        }
    } else if matches!(
        fa.call_memory_effect(inst),
        MemoryEffect::None | MemoryEffect::ErrnoWrite
    ) {
        return None;
    }
    // `memcpy`, not `llvm.memcpy.p0.p0.i64`.
    Some(match called_function_name(inst) {
        Some(name) => match name.strip_prefix("llvm.") {
            Some(intrinsic) => intrinsic.split('.').next().unwrap_or(intrinsic).to_string(),
            None => name,
        },
        None => "an indirect call".into(),
    })
}

/// (kind, operation, name) of each value loop `l` carries in a register.
fn carried_values<'f>(
    fa: &FunctionAnalyses<'f>,
    l: Loop<'f>,
    blocks: &HashSet<BasicBlock<'f>>,
) -> Vec<(FactKind, &'static str, String)> {
    let Some(latch) = l.latch() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let phis: Vec<InstructionValue<'f>> = l
        .header()
        .get_instructions()
        .take_while(|i| i.get_opcode() == InstructionOpcode::Phi)
        .filter(|&phi| !is_counter(fa, l, phi))
        .collect();
    let argmin = argmin_members(fa, l, blocks, latch, &phis);
    for phi in phis {
        if argmin.contains(&phi.as_value_ref()) {
            let incoming = phi_incoming(phi);
            let back = incoming.iter().find(|(_, block)| *block == latch);
            let entry = incoming.iter().find(|(_, block)| !blocks.contains(block));
            if let Some(&(back, _)) = back {
                let name = carried_name(fa, phi.as_value_ref(), back, entry.map(|e| e.0));
                out.push((FactKind::Reduction, ARGMIN, name));
            }
            continue;
        }
        let incoming = phi_incoming(phi);
        let Some(&(back, _)) = incoming.iter().find(|(_, block)| *block == latch) else {
            continue;
        };
        let phi_value = phi.as_value_ref();
        let mut walk = Walk::new(phi, blocks);
        if !walk.depends(back) {
            continue;
        }
        let kind = match walk.value(back) {
            Path::Reaches(Some(operation)) if walk.only_chain_uses_partial_values(None) => {
                (FactKind::Reduction, operation)
            }
            Path::Reaches(None) => continue,
            _ => (FactKind::Recurrence, ""),
        };
        let entry = incoming
            .iter()
            .find(|(_, block)| !blocks.contains(block))
            .map(|(value, _)| *value);
        out.push((kind.0, kind.1, carried_name(fa, phi_value, back, entry)));
    }
    out
}

/// The operation of an argmin or argmax: an extremum and the values chosen with it.
const ARGMIN: &str = "argmin/argmax";

/// The header phis of `l` (`phis`, counters left out) that make argmin or argmax
/// reductions (k-means' `if (dist < min_dist) { min_dist = dist; index = i; }`): an
/// extremum `m = c ? x : m` (or `min(x, m)`, `c` then choosing as the minimum does)
/// where `c` compares `x` with `m`, and values chosen by that same `c`, `k = c ? v : k`
/// with `v` invariant in the loop or its counter. Whatever the order of the
/// iterations, they end at the extremum and a value chosen with it; the loop is a
/// reduction, not a recurrence. None of them may be used otherwise in the loop.
fn argmin_members<'f>(
    fa: &FunctionAnalyses<'f>,
    l: Loop<'f>,
    blocks: &HashSet<BasicBlock<'f>>,
    latch: BasicBlock<'f>,
    phis: &[InstructionValue<'f>],
) -> HashSet<LLVMValueRef> {
    let back = |phi: InstructionValue<'f>| {
        phi_incoming(phi)
            .into_iter()
            .find(|(_, block)| *block == latch)
            .map(|(value, _)| value)
    };
    let mut out = HashSet::new();
    for &m in phis {
        let Some(m_back) = back(m) else {
            continue;
        };
        let Some((condition, chosen_arm, candidate)) = extremum_choice(m, m_back) else {
            continue;
        };
        if Walk::new(m, blocks).depends(candidate) {
            continue;
        }
        let mut group = vec![(m, m_back)];
        for &k in phis {
            let Some(k_back) = back(k) else {
                continue;
            };
            let chosen_with = as_instruction(k_back).is_some_and(|select| {
                select.get_opcode() == InstructionOpcode::Select
                    && operand(select, 0) == Some(condition)
                    && operand(select, 3 - chosen_arm) == Some(k.as_value_ref())
                    && operand(select, chosen_arm)
                        .is_some_and(|v| counter_or_invariant(fa, l, blocks, v))
            });
            if k != m && chosen_with {
                group.push((k, k_back));
            }
        }
        if group.len() > 1 && argmin_used_alone(blocks, condition, &group) {
            out.extend(group.iter().map(|(phi, _)| phi.as_value_ref()));
        }
    }
    out
}

/// For an extremum's back-edge value `back` of phi `m`: the comparison that chooses
/// the new value, the arm (1 or 2) of a select on it that holds the new value when it
/// is chosen, and the new value.
fn extremum_choice(
    m: InstructionValue<'_>,
    back: LLVMValueRef,
) -> Option<(LLVMValueRef, u32, LLVMValueRef)> {
    let inst = as_instruction(back)?;
    let m = m.as_value_ref();
    if inst.get_opcode() == InstructionOpcode::Select {
        let (condition, x, y) = (operand(inst, 0)?, operand(inst, 1)?, operand(inst, 2)?);
        return match (x == m, y == m) {
            (false, true) if compares(condition, x, m) => Some((condition, 1, x)),
            (true, false) if compares(condition, y, m) => Some((condition, 2, y)),
            _ => None,
        };
    }
    let name = called_function_name(inst)?;
    let is_max = ["llvm.smax.", "llvm.umax.", "llvm.maxnum.", "llvm.maximum"]
        .iter()
        .any(|p| name.starts_with(p));
    let is_min = ["llvm.smin.", "llvm.umin.", "llvm.minnum.", "llvm.minimum"]
        .iter()
        .any(|p| name.starts_with(p));
    if !is_max && !is_min {
        return None;
    }
    let (a, b) = (operand(inst, 0)?, operand(inst, 1)?);
    let x = match (a == m, b == m) {
        (false, true) => a,
        (true, false) => b,
        _ => return None,
    };
    // The comparison of `x` with `m` the values chosen with the extremum use.
    users(&as_instruction(m)?).into_iter().find_map(|cmp| {
        let greater = greater_when_true(cmp, x, m)?;
        let chosen_arm = if greater == is_max { 1 } else { 2 };
        Some((cmp.as_value_ref(), chosen_arm, x))
    })
}

/// Whether comparison `cmp` of `x` with `m` (in either order) is true when `x` is the
/// greater (`Some(true)`) or the smaller (`Some(false)`); `None` for other tests.
fn greater_when_true(cmp: InstructionValue<'_>, x: LLVMValueRef, m: LLVMValueRef) -> Option<bool> {
    use inkwell::{FloatPredicate as F, IntPredicate as I};
    if !compares(cmp.as_value_ref(), x, m) {
        return None;
    }
    let left_greater = if let Some(p) = cmp.get_icmp_predicate() {
        match p {
            I::SGT | I::SGE | I::UGT | I::UGE => true,
            I::SLT | I::SLE | I::ULT | I::ULE => false,
            _ => return None,
        }
    } else {
        match cmp.get_fcmp_predicate()? {
            F::OGT | F::OGE | F::UGT | F::UGE => true,
            F::OLT | F::OLE | F::ULT | F::ULE => false,
            _ => return None,
        }
    };
    Some(left_greater == (operand(cmp, 0) == Some(x)))
}

/// Whether `v` is invariant in `l` or one of its counters (through casts).
fn counter_or_invariant<'f>(
    fa: &FunctionAnalyses<'f>,
    l: Loop<'f>,
    blocks: &HashSet<BasicBlock<'f>>,
    v: LLVMValueRef,
) -> bool {
    let Some(inst) =
        as_instruction(v).filter(|i| i.get_parent().is_some_and(|b| blocks.contains(&b)))
    else {
        return true;
    };
    if matches!(
        inst.get_opcode(),
        InstructionOpcode::Trunc | InstructionOpcode::SExt | InstructionOpcode::ZExt
    ) {
        return operand(inst, 0).is_some_and(|o| counter_or_invariant(fa, l, blocks, o));
    }
    fa.is_scevable(&inst) && {
        let scev = fa.scev(&inst);
        scev.kind() == ScevKind::AddRec && scev.add_rec_loop() == Some(l)
    }
}

/// Whether, within the loop, the comparison is used only by the group's back-edge
/// values, each phi only by its back-edge value and the comparison, and each back-edge
/// value only by its phi: no partial value of the argmin escapes into the iteration.
fn argmin_used_alone<'f>(
    blocks: &HashSet<BasicBlock<'f>>,
    condition: LLVMValueRef,
    group: &[(InstructionValue<'f>, LLVMValueRef)],
) -> bool {
    let in_loop =
        |user: &InstructionValue<'f>| user.get_parent().is_some_and(|b| blocks.contains(&b));
    let backs: Vec<LLVMValueRef> = group.iter().map(|&(_, back)| back).collect();
    let Some(cmp) = as_instruction(condition) else {
        return false;
    };
    users(&cmp)
        .iter()
        .filter(|u| in_loop(u))
        .all(|u| backs.contains(&u.as_value_ref()))
        && group.iter().all(|&(phi, back)| {
            let phi_alone = users(&phi)
                .iter()
                .filter(|u| in_loop(u))
                .all(|u| u.as_value_ref() == back || u.as_value_ref() == condition);
            let back_alone = as_instruction(back).is_some_and(|b| {
                users(&b)
                    .iter()
                    .filter(|u| in_loop(u))
                    .all(|u| *u == phi || is_annotation_intrinsic(*u))
            });
            phi_alone && back_alone
        })
}

/// Whether `phi` is one of the loop's counters (an affine recurrence of the loop).
fn is_counter<'f>(fa: &FunctionAnalyses<'f>, l: Loop<'f>, phi: InstructionValue<'f>) -> bool {
    fa.is_scevable(&phi) && {
        let scev = fa.scev(&phi);
        scev.kind() == ScevKind::AddRec && scev.add_rec_loop() == Some(l)
    }
}

/// The source name of a carried value: its variable's, else the array it was loaded
/// from in front of the loop (an element kept in a register), else empty.
fn carried_name(
    fa: &FunctionAnalyses<'_>,
    phi: LLVMValueRef,
    back: LLVMValueRef,
    entry: Option<LLVMValueRef>,
) -> String {
    if let Some(name) = fa.source_name(phi).or_else(|| fa.source_name(back)) {
        return name;
    }
    entry
        .and_then(as_instruction)
        .filter(|i| i.get_opcode() == InstructionOpcode::Load)
        .and_then(|load| operand(load, 0))
        .and_then(|pointer| array_name(fa, pointer))
        .unwrap_or_default()
}

/// How a value leads back to the phi.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// It does not depend on the phi (within the rules of the walk).
    Misses,
    /// It is the phi combined with other values by this operation (`None`: the phi
    /// itself, or the phi through copies).
    Reaches(Option<&'static str>),
    /// It depends on the phi otherwise.
    Breaks,
}

impl Path {
    /// The path of a value that is `operation` applied to a value on this path.
    fn through(self, operation: &'static str) -> Path {
        self.join(Path::Reaches(Some(operation)))
    }

    /// Two ways back taken together (both arms of a select, say).
    fn join(self, other: Path) -> Path {
        match (self, other) {
            (Path::Reaches(a), Path::Reaches(b)) => match (a, b) {
                (None, x) | (x, None) => Path::Reaches(x),
                (Some(x), Some(y)) if x == y => Path::Reaches(Some(x)),
                _ => Path::Breaks,
            },
            _ => Path::Breaks,
        }
    }
}

/// The walk from a back-edge value to its phi (or from a store's value to the load it
/// updates), keeping the values on the way.
struct Walk<'a, 'f> {
    phi: LLVMValueRef,
    blocks: &'a HashSet<BasicBlock<'f>>,
    /// Values of the loop that depend on the phi (through any operand, addresses
    /// included), or `None` when there were too many to follow: then every value may.
    tainted: Option<HashSet<LLVMValueRef>>,
    /// Values between the phi and the back edge that depend on it.
    chain: Vec<LLVMValueRef>,
    steps: usize,
    /// The value a flag is set to (see [`Walk::flag`]).
    flag_value: Option<LLVMValueRef>,
}

/// The operation of a flag: a variable set to one invariant value under a condition.
const FLAG: &str = "flag";

impl<'a, 'f> Walk<'a, 'f> {
    /// A walk back to `start`, with what depends on it in the loop (`blocks`).
    fn new(start: InstructionValue<'f>, blocks: &'a HashSet<BasicBlock<'f>>) -> Walk<'a, 'f> {
        let mut tainted = HashSet::new();
        let mut pending = vec![start];
        while let Some(next) = pending.pop() {
            for user in users(&next) {
                if user.get_parent().is_some_and(|b| blocks.contains(&b))
                    && tainted.insert(user.as_value_ref())
                {
                    pending.push(user);
                }
            }
            if tainted.len() > MAX_STEPS {
                break;
            }
        }
        Walk {
            phi: start.as_value_ref(),
            blocks,
            tainted: (tainted.len() <= MAX_STEPS).then_some(tainted),
            chain: Vec::new(),
            steps: 0,
            flag_value: None,
        }
    }

    /// Whether `value` depends on the phi within the loop.
    fn depends(&self, value: LLVMValueRef) -> bool {
        value == self.phi || self.tainted.as_ref().is_none_or(|t| t.contains(&value))
    }

    fn value(&mut self, value: LLVMValueRef) -> Path {
        if !self.depends(value) {
            return Path::Misses;
        }
        if value == self.phi || self.chain.contains(&value) {
            // The phi, or a value already on the way (an inner loop's phi).
            return Path::Reaches(None);
        }
        let Some(inst) = as_instruction(value) else {
            return Path::Misses;
        };
        if !inst.get_parent().is_some_and(|b| self.blocks.contains(&b)) {
            return Path::Misses;
        }
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Path::Breaks;
        }
        self.chain.push(value);
        let path = self.instruction(inst);
        if path == Path::Misses {
            self.chain.pop();
        }
        path
    }

    fn instruction(&mut self, inst: InstructionValue<'f>) -> Path {
        use InstructionOpcode as Op;
        match inst.get_opcode() {
            Op::Add | Op::FAdd => self.commutative(inst, "+"),
            Op::Sub | Op::FSub => self.left_only(inst, "+"),
            Op::Mul | Op::FMul => self.commutative(inst, "*"),
            Op::And => self.commutative(inst, "&"),
            Op::Or => self.commutative(inst, "|"),
            Op::Xor => self.commutative(inst, "^"),
            Op::FPExt | Op::FPTrunc | Op::SExt | Op::ZExt | Op::Trunc | Op::BitCast => {
                self.operand(inst, 0)
            }
            Op::Phi => {
                let paths: Vec<(LLVMValueRef, Path)> = phi_incoming(inst)
                    .into_iter()
                    .map(|(v, _)| (v, self.value(v)))
                    .collect();
                let Some(reaching) = paths
                    .iter()
                    .map(|&(_, path)| path)
                    .filter(|path| *path != Path::Misses)
                    .reduce(Path::join)
                else {
                    return Path::Misses;
                };
                // A value that misses the phi on one edge resets the accumulator there:
                // only a flag (one invariant value) survives that.
                paths
                    .iter()
                    .filter(|(_, path)| *path == Path::Misses)
                    .fold(reaching, |path, &(value, _)| self.flag(value, path))
            }
            Op::Select => self.select(inst),
            Op::Call => self.intrinsic(inst),
            _ => self.opaque(inst),
        }
    }

    /// A value the walk does not look into: it breaks the way back if it depends on
    /// the phi at all.
    fn opaque(&self, inst: InstructionValue<'f>) -> Path {
        if self.depends(inst.as_value_ref()) {
            Path::Breaks
        } else {
            Path::Misses
        }
    }

    fn operand(&mut self, inst: InstructionValue<'f>, index: u32) -> Path {
        match operand(inst, index) {
            Some(v) => self.value(v),
            None => Path::Breaks,
        }
    }

    /// `a op b`: one side on the way back, the other an input.
    fn commutative(&mut self, inst: InstructionValue<'f>, operation: &'static str) -> Path {
        match (self.operand(inst, 0), self.operand(inst, 1)) {
            (Path::Misses, Path::Misses) => Path::Misses,
            (Path::Reaches(_), Path::Reaches(_)) => Path::Breaks,
            (Path::Reaches(p), Path::Misses) | (Path::Misses, Path::Reaches(p)) => {
                Path::Reaches(p).through(operation)
            }
            _ => Path::Breaks,
        }
    }

    /// `a - b`: only `a` may be on the way back.
    fn left_only(&mut self, inst: InstructionValue<'f>, operation: &'static str) -> Path {
        match (self.operand(inst, 0), self.operand(inst, 1)) {
            (Path::Misses, Path::Misses) => Path::Misses,
            (Path::Reaches(p), Path::Misses) => Path::Reaches(p).through(operation),
            _ => Path::Breaks,
        }
    }

    /// `c ? x : y`: both arms on the way back (a conditional update), or one arm on it
    /// and the condition comparing the two arms (a minimum or maximum).
    fn select(&mut self, inst: InstructionValue<'f>) -> Path {
        let (Some(condition), Some(x), Some(y)) =
            (operand(inst, 0), operand(inst, 1), operand(inst, 2))
        else {
            return Path::Breaks;
        };
        let (a, b) = (self.value(x), self.value(y));
        match (a, b) {
            (Path::Misses, Path::Misses) => self.opaque(inst),
            (Path::Reaches(_), Path::Reaches(_)) => {
                if self.depends(condition) {
                    Path::Breaks
                } else {
                    a.join(b)
                }
            }
            (Path::Reaches(p), Path::Misses) | (Path::Misses, Path::Reaches(p)) => {
                if compares(condition, x, y) {
                    Path::Reaches(p).through("min/max")
                } else if self.depends(condition) {
                    Path::Breaks
                } else {
                    let set = if a == Path::Misses { x } else { y };
                    self.flag(set, Path::Reaches(p))
                }
            }
            _ => Path::Breaks,
        }
    }

    /// `acc = c ? v : acc` where `v` is invariant in the loop and the same wherever
    /// the accumulator is set (bfs's `stop = true`): whatever the order of the
    /// iterations, the result is `v` if any of them set it. `path` is the way back of
    /// the accumulator's other value; any operation on it breaks the flag.
    fn flag(&mut self, value: LLVMValueRef, path: Path) -> Path {
        let invariant = as_instruction(value)
            .and_then(|i| i.get_parent())
            .is_none_or(|block| !self.blocks.contains(&block));
        let same = self.flag_value.is_none_or(|set| set == value);
        match path {
            Path::Reaches(None) | Path::Reaches(Some(FLAG)) if invariant && same => {
                self.flag_value = Some(value);
                Path::Reaches(Some(FLAG))
            }
            _ => Path::Breaks,
        }
    }

    /// `fmuladd(a, b, s)`, `fma(a, b, s)`: a sum; `smin(s, x)` and the like: a
    /// minimum or maximum.
    fn intrinsic(&mut self, inst: InstructionValue<'f>) -> Path {
        let name = called_function_name(inst).unwrap_or_default();
        if name.starts_with("llvm.fmuladd.") || name.starts_with("llvm.fma.") {
            return match (
                self.operand(inst, 0),
                self.operand(inst, 1),
                self.operand(inst, 2),
            ) {
                (Path::Misses, Path::Misses, Path::Misses) => Path::Misses,
                (Path::Misses, Path::Misses, Path::Reaches(p)) => Path::Reaches(p).through("+"),
                _ => Path::Breaks,
            };
        }
        let extremum = [
            "llvm.smin.",
            "llvm.smax.",
            "llvm.umin.",
            "llvm.umax.",
            "llvm.minnum.",
            "llvm.maxnum.",
            "llvm.minimum.",
            "llvm.maximum.",
            "llvm.minimumnum.",
            "llvm.maximumnum.",
        ];
        if extremum.iter().any(|prefix| name.starts_with(prefix)) {
            return self.commutative(inst, "min/max");
        }
        self.opaque(inst)
    }

    /// Whether no value of the way back (the phi and the chain) is used in the loop
    /// other than by the way back itself, by a comparison choosing between its arms, or
    /// by `end` (the store of an update through memory).
    fn only_chain_uses_partial_values(&self, end: Option<InstructionValue<'f>>) -> bool {
        std::iter::once(self.phi)
            .chain(self.chain.iter().copied())
            .filter_map(as_instruction)
            .all(|value: InstructionValue<'f>| {
                users(&value).into_iter().all(|user| {
                    let user_value = user.as_value_ref();
                    !user.get_parent().is_some_and(|b| self.blocks.contains(&b))
                        || user_value == self.phi
                        || self.chain.contains(&user_value)
                        || Some(user) == end
                        || is_annotation_intrinsic(user)
                        || self.is_choice_between_arms(user)
                        || self.is_store_of_last_value(user, value)
                })
            })
    }

    /// A store of `value` to one address for the whole loop (OpenMP's private copy of
    /// a `reduction(+: sum)`, a variable LLVM could not keep out of memory): each
    /// iteration overwrites the last, so only the final value remains, as after the
    /// loop; a read of it in the loop is a dependence the run records.
    fn is_store_of_last_value(
        &self,
        user: InstructionValue<'f>,
        value: InstructionValue<'f>,
    ) -> bool {
        user.get_opcode() == InstructionOpcode::Store
            && operand(user, 0) == Some(value.as_value_ref())
            && operand(user, 1).is_some_and(|pointer| {
                as_instruction(pointer)
                    .and_then(|p| p.get_parent())
                    .is_none_or(|block| !self.blocks.contains(&block))
            })
    }

    /// A comparison whose every user is a select on the way back (a min or max).
    fn is_choice_between_arms(&self, inst: InstructionValue<'f>) -> bool {
        matches!(
            inst.get_opcode(),
            InstructionOpcode::ICmp | InstructionOpcode::FCmp
        ) && users(&inst)
            .iter()
            .all(|user| self.chain.contains(&user.as_value_ref()))
    }
}

/// Whether `condition` compares `x` and `y` (in either order).
fn compares(condition: LLVMValueRef, x: LLVMValueRef, y: LLVMValueRef) -> bool {
    let Some(cmp) = as_instruction(condition).filter(|i| {
        matches!(
            i.get_opcode(),
            InstructionOpcode::ICmp | InstructionOpcode::FCmp
        )
    }) else {
        return false;
    };
    let (a, b) = (operand(cmp, 0), operand(cmp, 1));
    (a == Some(x) && b == Some(y)) || (a == Some(y) && b == Some(x))
}
