//! Sizes, strides and base pointers a loop nest reads from memory its own writes might
//! reach (`m->cols`, `img->data` when the nest stores through a pointer of the field's
//! type or a `char *`): alias analysis cannot show them invariant, LLVM reloads them in
//! every iteration, and the nest's trip counts and subscripts are not affine.
//!
//! Such a nest is versioned here, between rounds (round r): in its preheader each such
//! field is loaded once (the hoisted loads), and a copy of the nest reads those values
//! instead of memory; a branch on a placeholder picks the copy or the original. In round
//! r + 1 detection models the copy with the loaded values as parameters. Code
//! generation of the copy's region (`guard_of`, `resolve`) adds to its run-time check
//! that no array the region writes covers a hoisted field, which is exactly what makes
//! the copy compute what the original does, and sends a failing check to the original
//! nest. A copy no region was generated from is dropped when the pass ends
//! (`drop_unresolved`: the placeholder becomes false and later passes delete the copy).
//!
//! Relies on: the nest has a preheader and leaves values only through phis of its exit
//! blocks (LCSSA); nothing in it writes memory but stores and memory intrinsics (a call
//! that may write is a rejection reason that stops the versioning). The hoisted loads
//! run in front of the nest, also where the nest would not have read them (the bound
//! of an inner loop that runs only when the outer one does): a field near an address
//! the program touches whenever the nest is entered is loaded as it is (a null or
//! dangling struct pointer has faulted there already); any other through `null_safe`
//! (a null struct pointer reads a constant zero). A dangling struct pointer the nest
//! never dereferences, or a struct that ends between a touched field and a hoisted one
//! at the end of a mapped page, is what this relies on not meeting.

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMIntPredicate, LLVMOpcode};
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::llvm::builder::IrBuilder;
use crate::llvm::ir::{
    as_instruction, basic_value, int_width, is_marked, is_pointer, mark, operand, phi_incoming,
    pointer_operand, successors, type_of, users,
};
use crate::llvm::{FunctionAnalyses, Loop, RemarkAt, RemarkKind, Scev, ScevKind};

use super::reject::RejectReason;
use super::{Detection, RejectedNest, HANDLED};

/// The flag on a versioning branch and on its hoisted loads; `detect::rows` flags its
/// versionings with it too, so that `guard_of`, `resolve` and `drop_unresolved` treat
/// them alike.
pub(super) const HOISTED: &str = "polyrust.hoisted";

/// How far (bytes) a hoisted field may lie from an address the program reads or
/// writes whenever the nest is entered to be loaded as it is (`m->data` where
/// `m->rows` is the loop's bound); one farther is loaded through `null_safe`.
const NEAR: i64 = 64;

/// Most loads of one nest hoisted: each adds a comparison per written array to the check.
const MAX_FIELDS: usize = 8;

/// Reasons versioning can remove: they come from values loaded in the nest.
pub(super) const SETTLED: [RejectReason; 6] = [
    RejectReason::UnknownTripCount,
    RejectReason::NonAffineLoopBound,
    RejectReason::NonAffineCondition,
    RejectReason::NonAffineSubscript,
    RejectReason::VariantBasePointer,
    RejectReason::MixedElementTypes,
];

/// Versions the first rejected nest that re-reads fixed addresses its writes may reach;
/// whether one was (the round ends: the copy is modelled with fresh analyses).
pub fn version_nests(fa: &FunctionAnalyses<'_>, detection: &Detection<'_>) -> bool {
    detection.rejected.iter().any(|nest| version(fa, nest))
}

fn version<'f>(fa: &FunctionAnalyses<'f>, nest: &RejectedNest<'f>) -> bool {
    let root = nest.root;
    let settled = nest
        .reasons
        .iter()
        .all(|(r, _)| SETTLED.contains(&r.reason));
    if !settled || root.has_tag(HANDLED) {
        return false;
    }
    let Some(preheader) = root.preheader() else {
        return false;
    };
    let blocks = root.blocks();
    let fields = fixed_loads(fa, root, &blocks);
    if fields.is_empty()
        || fields.len() > MAX_FIELDS
        || writes_a_field(fa, &fields, &blocks)
        || !leaves_through_exit_phis(root, &blocks)
    {
        return false;
    }
    let Some(terminator) = preheader.get_terminator() else {
        return false;
    };
    let b = IrBuilder::new(fa.function());
    let touched = touched_on_entry(fa, root, preheader);
    let Some(hoisted) = hoist(fa, &b, (root, &touched), fields, terminator) else {
        return false;
    };
    let (copy, map) = copy_nest(fa, &b, (root, &blocks), HOISTED);
    for (field, loaded) in &hoisted {
        for load in &field.loads {
            let copied = map[&load.as_value_ref()];
            // SAFETY: the copied load is live and has the hoisted value's type.
            unsafe { c::LLVMReplaceAllUsesWith(copied, *loaded) };
            b.erase(copied);
        }
    }
    let copied_blocks: Vec<BasicBlock<'f>> = blocks.iter().map(|bl| copy[bl]).collect();
    let earlier = earlier_loads(fa, &hoisted, &copied_blocks, &b);
    collapse_phis(&b, &copied_blocks);
    b.position_before(terminator);
    let placeholder = b.opaque_bool();
    mark(placeholder, HOISTED);
    let mut condition = placeholder;
    for (before, loaded) in earlier {
        let same = b.icmp(LLVMIntPredicate::LLVMIntEQ, before, loaded);
        condition = b.binary(LLVMOpcode::LLVMAnd, condition, same);
    }
    branch_to_copy(
        &b,
        (preheader, terminator),
        condition,
        copy[&root.header()],
        root,
    );
    say_versioned(fa, root, &hoisted);
    true
}

/// Replaces the preheader's `terminator` by the versioning branch: to the copy (whose
/// header is `copy_header`) when `condition` holds, to the original loops otherwise. The
/// original loops are the fallback: detection leaves them alone from now on. Also
/// `detect::rows`' versioning.
pub(super) fn branch_to_copy<'f>(
    b: &IrBuilder<'f>,
    (preheader, terminator): (BasicBlock<'f>, InstructionValue<'f>),
    condition: LLVMValueRef,
    copy_header: BasicBlock<'f>,
    root: Loop<'f>,
) {
    b.erase(terminator.as_value_ref());
    b.position_at_end(preheader);
    let branch = b.cond_br(condition, copy_header, root.header());
    mark(branch, HOISTED);
    for l in root.preorder() {
        l.tag(HANDLED);
    }
}

/// Loads each field once in front of `terminator` (the preheader's), marked; `None`
/// when an address cannot be computed there (what was emitted is dead code then).
fn hoist<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    (root, touched): (Loop<'f>, &[Scev<'f>]),
    fields: Vec<Field<'f>>,
    terminator: InstructionValue<'f>,
) -> Option<Vec<(Field<'f>, LLVMValueRef)>> {
    let mut hoisted = Vec::new();
    for field in fields {
        let mut address = address_before(fa, root, &field, terminator)?;
        b.position_before(terminator);
        let near = touched.iter().any(|t| {
            fa.minus(field.address, *t)
                .constant()
                .is_some_and(|d| d.abs() < NEAR)
        });
        if !near {
            address = null_safe(b, address);
        }
        let first = field.loads[0];
        let pointer = pointer_operand(first);
        let loaded = b.clone_with(first, |op| if Some(op) == pointer { address } else { op });
        mark(loaded, HOISTED);
        // The original load's name (where names are kept), for the parameter's.
        // SAFETY: both are live values; LLVM copies the name.
        unsafe {
            let mut length = 0;
            let name = c::LLVMGetValueName2(first.as_value_ref(), &mut length);
            c::LLVMSetValueName2(loaded, name, length);
        }
        hoisted.push((field, loaded));
    }
    Some(hoisted)
}

/// `address`, or a constant zero where it lies in the first page (a field of a null
/// struct pointer): a field the nest reads only in iterations that may not run (the
/// bound of an inner loop, read where the outer one has run once) is loaded in front
/// of it all the same. The value read from the zero is used where the original reads
/// the field, which it then never does.
pub(super) fn null_safe(b: &IrBuilder<'_>, address: LLVMValueRef) -> LLVMValueRef {
    let zero = b.const_i64(0);
    let zeros = b.private_constant(b.const_array(b.i64_type(), &[zero, zero]), "polyrust.zero");
    let low = b.icmp(
        LLVMIntPredicate::LLVMIntULT,
        b.ptr_to_int(address),
        b.const_i64(4096),
    );
    b.select(low, zeros, address)
}

/// The analysis remark at the nest: which fields are read once, and on what condition.
fn say_versioned<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    hoisted: &[(Field<'f>, LLVMValueRef)],
) {
    let names: Vec<String> = hoisted
        .iter()
        .map(|(f, _)| crate::speculate::value_name(fa, f.loads[0].as_value_ref()))
        .collect();
    fa.remark(
        RemarkKind::Analysis,
        "HoistedFields",
        RemarkAt::loop_start(root),
        &format!(
            "the loop nest reads {} from memory its own writes may reach: a copy of the \
             nest reads them once, in front of it, and runs when the run-time check \
             finds them apart from every array the nest writes",
            names.join(", ")
        ),
    );
}

/// Makes the copy read the hoisted value where it read a load of the same field made
/// before the nest (GVN passes the first iteration's value in from there), so that
/// the copy's phis merge one value; those loads, each with the hoisted value that
/// replaced it, which the versioning branch compares (a store between the two loads
/// would make them differ).
fn earlier_loads<'f>(
    fa: &FunctionAnalyses<'f>,
    hoisted: &[(Field<'f>, LLVMValueRef)],
    copied: &[BasicBlock<'f>],
    b: &IrBuilder<'f>,
) -> Vec<(LLVMValueRef, LLVMValueRef)> {
    let mut replaced: Vec<(LLVMValueRef, LLVMValueRef)> = Vec::new();
    for inst in copied.iter().flat_map(|bl| bl.get_instructions()) {
        let count = inst.get_num_operands();
        for i in 0..count {
            let Some(op) = operand(inst, i) else {
                continue;
            };
            let earlier = replaced.iter().find(|(x, _)| *x == op).map(|(_, h)| *h);
            let loaded = earlier.or_else(|| same_field(fa, hoisted, op, copied));
            if let Some(loaded) = loaded {
                b.set_operand(inst.as_value_ref(), i, loaded);
                if earlier.is_none() {
                    replaced.push((op, loaded));
                }
            }
        }
    }
    replaced
}

/// The hoisted load of the field `value` is a plain load of, if `value` is such a load
/// outside the copy.
fn same_field<'f>(
    fa: &FunctionAnalyses<'f>,
    hoisted: &[(Field<'f>, LLVMValueRef)],
    value: LLVMValueRef,
    copied: &[BasicBlock<'f>],
) -> Option<LLVMValueRef> {
    let load = as_instruction(value).filter(|i| i.get_opcode() == InstructionOpcode::Load)?;
    if copied.contains(&load.get_parent()?)
        || !plain(load)
        || hoisted.iter().any(|(_, h)| *h == value)
    {
        return None;
    }
    let address = fa.scev(&basic_value(pointer_operand(load)?));
    hoisted
        .iter()
        .find(|(f, _)| {
            type_of(f.loads[0].as_value_ref()) == type_of(value)
                && fa.minus(f.address, address).constant() == Some(0)
        })
        .map(|(_, h)| *h)
}

/// The loads of one fixed address in a nest.
struct Field<'f> {
    address: Scev<'f>,
    loads: Vec<InstructionValue<'f>>,
}

/// Plain integer and pointer loads from addresses fixed while the nest runs, grouped by
/// address and type.
fn fixed_loads<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    blocks: &[BasicBlock<'f>],
) -> Vec<Field<'f>> {
    let mut fields: Vec<Field<'f>> = Vec::new();
    for load in blocks.iter().flat_map(|bl| bl.get_instructions()) {
        if load.get_opcode() != InstructionOpcode::Load || !plain(load) {
            continue;
        }
        let value = load.as_value_ref();
        if int_width(value).is_none() && !is_pointer(value) {
            continue;
        }
        let Some(pointer) = pointer_operand(load) else {
            continue;
        };
        let address = fa.scev(&basic_value(pointer));
        if !fixed_in(root, address, 0) {
            continue;
        }
        let same = |f: &Field<'f>| {
            type_of(f.loads[0].as_value_ref()) == type_of(value)
                && fa.minus(f.address, address).constant() == Some(0)
        };
        match fields.iter_mut().find(|f| same(f)) {
            Some(f) => f.loads.push(load),
            None => fields.push(Field {
                address,
                loads: vec![load],
            }),
        }
    }
    fields
}

pub(super) fn plain(load: InstructionValue<'_>) -> bool {
    // SAFETY: `load` is a live load instruction.
    let ordering = unsafe { c::LLVMGetOrdering(load.as_value_ref()) };
    !load.get_volatile().unwrap_or(true)
        && ordering == LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
}

/// Whether `scev` has one value while `root` runs: no recurrence of its loops, no value
/// computed in it.
pub(super) fn fixed_in(root: Loop<'_>, scev: Scev<'_>, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    match scev.kind() {
        ScevKind::CouldNotCompute => false,
        ScevKind::AddRec if scev.add_rec_loop().is_some_and(|l| within(root, l)) => false,
        ScevKind::Unknown => !scev
            .unknown_value()
            .and_then(as_instruction)
            .and_then(|i| i.get_parent())
            .is_some_and(|bl| root.contains_block(bl)),
        _ => scev
            .operands()
            .into_iter()
            .all(|o| fixed_in(root, o, depth + 1)),
    }
}

pub(super) fn within(root: Loop<'_>, l: Loop<'_>) -> bool {
    std::iter::successors(Some(l), |x| x.parent()).any(|x| x == root)
}

/// The field's address as a value in front of `before` (the preheader's terminator).
fn address_before<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    field: &Field<'f>,
    before: InstructionValue<'f>,
) -> Option<LLVMValueRef> {
    let pointer = pointer_operand(field.loads[0])?;
    let outside = as_instruction(pointer)
        .and_then(|i| i.get_parent())
        .is_none_or(|bl| !root.contains_block(bl));
    if outside {
        return Some(pointer);
    }
    fa.expand_raw(field.address, type_of(pointer), before, false)
}

/// The addresses read or written whenever the nest is entered: in blocks that
/// dominate its preheader, and in blocks of its first iteration (those dominating its
/// latch, its one exiting block).
fn touched_on_entry<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    preheader: BasicBlock<'f>,
) -> Vec<Scev<'f>> {
    let latch = root.latch();
    let always = |bl: BasicBlock<'f>| {
        if root.contains_block(bl) {
            latch.is_some_and(|l| fa.dominates(bl, l))
        } else {
            fa.dominates(bl, preheader)
        }
    };
    fa.function()
        .get_basic_block_iter()
        .filter(|bl| always(*bl))
        .flat_map(|bl| bl.get_instructions())
        .filter(|i| {
            matches!(
                i.get_opcode(),
                InstructionOpcode::Load | InstructionOpcode::Store
            )
        })
        .filter_map(pointer_operand)
        .map(|p| fa.scev(&basic_value(p)))
        .collect()
}

/// Whether a store of the nest writes one of the fields itself: the check would fail
/// on every run, so the nest is not versioned.
fn writes_a_field<'f>(
    fa: &FunctionAnalyses<'f>,
    fields: &[Field<'f>],
    blocks: &[BasicBlock<'f>],
) -> bool {
    blocks
        .iter()
        .flat_map(|bl| bl.get_instructions())
        .filter(|i| i.get_opcode() == InstructionOpcode::Store)
        .filter_map(pointer_operand)
        .any(|p| {
            let address = fa.scev(&basic_value(p));
            fields
                .iter()
                .any(|f| fa.minus(f.address, address).constant() == Some(0))
        })
}

/// Whether every value the nest computes is used inside it or by a phi of a block it
/// exits to.
pub(crate) fn leaves_through_exit_phis(root: Loop<'_>, blocks: &[BasicBlock<'_>]) -> bool {
    let exits = root.exit_blocks();
    blocks.iter().flat_map(|bl| bl.get_instructions()).all(|i| {
        users(&i).into_iter().all(|u| {
            u.get_parent().is_some_and(|bl| {
                root.contains_block(bl)
                    || (u.get_opcode() == InstructionOpcode::Phi && exits.contains(&bl))
            })
        })
    })
}

/// A copy of the nest's blocks (new blocks named `label`), its values and edges mapped
/// to the copy's; the exit blocks' phis get the copy's values. The copies of each block
/// and of each value. Also the plain copy of an instrumented nest
/// (`speculate::accesses`).
pub(crate) fn copy_nest<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    (root, blocks): (Loop<'f>, &[BasicBlock<'f>]),
    label: &str,
) -> (
    HashMap<BasicBlock<'f>, BasicBlock<'f>>,
    HashMap<LLVMValueRef, LLVMValueRef>,
) {
    let mut copy = HashMap::new();
    let mut map: HashMap<LLVMValueRef, LLVMValueRef> = HashMap::new();
    for bl in blocks {
        let new = b.new_block(label);
        copy.insert(*bl, new);
        // SAFETY: both blocks are live; a block is a value (a branch's operand).
        unsafe {
            map.insert(
                c::LLVMBasicBlockAsValue(bl.as_mut_ptr()),
                c::LLVMBasicBlockAsValue(new.as_mut_ptr()),
            );
        }
    }
    let mut copied = Vec::new();
    for bl in blocks {
        b.position_at_end(copy[bl]);
        for inst in bl.get_instructions() {
            let new = b.clone_with(inst, |op| op);
            map.insert(inst.as_value_ref(), new);
            copied.push(new);
        }
    }
    for new in &copied {
        // SAFETY: `new` is a live instruction; indices stay below its operand count.
        let count = unsafe { c::LLVMGetNumOperands(*new) }.max(0) as u32;
        for i in 0..count {
            let op = unsafe { c::LLVMGetOperand(*new, i) };
            if let Some(mapped) = map.get(&op) {
                b.set_operand(*new, i, *mapped);
            }
        }
    }
    for bl in blocks {
        for from in blocks {
            fa.replace_phi_incoming_block(copy[bl], *from, copy[from]);
        }
    }
    for exit in root.exit_blocks() {
        for phi in crate::llvm::builder::phis_of(exit) {
            for (value, from) in phi_incoming(phi) {
                if let Some(new_from) = copy.get(&from) {
                    let value = map.get(&value).copied().unwrap_or(value);
                    b.add_incoming(phi.as_value_ref(), value, *new_from);
                }
            }
        }
    }
    (copy, map)
}

/// Replaces each web of the copy's phis that merges a single value (a field GVN
/// carried around the loops, now the hoisted load on every path) by that value.
fn collapse_phis<'f>(b: &IrBuilder<'f>, blocks: &[BasicBlock<'f>]) {
    let mut gone: HashSet<LLVMValueRef> = HashSet::new();
    let phis: Vec<InstructionValue<'f>> = blocks
        .iter()
        .flat_map(|bl| crate::llvm::builder::phis_of(*bl))
        .collect();
    for phi in phis {
        if gone.contains(&phi.as_value_ref()) {
            continue;
        }
        let mut web = Vec::new();
        let Some(value) = single_source(phi, blocks, &mut web) else {
            continue;
        };
        for member in web {
            // SAFETY: the web's phis are live and all equal `value`.
            unsafe { c::LLVMReplaceAllUsesWith(member, value) };
            b.erase(member);
            gone.insert(member);
        }
    }
}

/// The one value other than phis of `blocks` that flows into `phi` through such phis,
/// with the phis passed (`web`).
fn single_source(
    phi: InstructionValue<'_>,
    blocks: &[BasicBlock<'_>],
    web: &mut Vec<LLVMValueRef>,
) -> Option<LLVMValueRef> {
    let mut source: Option<LLVMValueRef> = None;
    let mut pending = vec![phi.as_value_ref()];
    while let Some(current) = pending.pop() {
        if web.contains(&current) {
            continue;
        }
        web.push(current);
        if web.len() > 64 {
            return None;
        }
        let inst = as_instruction(current)?;
        for (value, _) in phi_incoming(inst) {
            let inner_phi = as_instruction(value).filter(|i| {
                i.get_opcode() == InstructionOpcode::Phi
                    && i.get_parent().is_some_and(|bl| blocks.contains(&bl))
            });
            match inner_phi {
                Some(p) => pending.push(p.as_value_ref()),
                None if source.is_none_or(|s| s == value) => source = Some(value),
                None => return None,
            }
        }
    }
    source
}

/// A versioned nest seen from the block that enters its copy.
pub struct Guard<'f> {
    /// The preheader's branch to the copy or the original.
    pub branch: InstructionValue<'f>,
    /// The original nest's header.
    pub original: BasicBlock<'f>,
    /// The hoisted fields: address and bytes loaded.
    pub fields: Vec<(LLVMValueRef, u64)>,
}

/// The versioning `entering` does, if `entering` enters the copy at `entry`.
pub fn guard_of<'f>(
    fa: &FunctionAnalyses<'f>,
    entering: BasicBlock<'f>,
    entry: BasicBlock<'f>,
) -> Option<Guard<'f>> {
    // Loop passes may have given the copy preheaders of its own since (LICM's
    // hoisted code in them): blocks on the one path from the branch to the copy.
    let (mut versioning, mut towards) = (entering, entry);
    for _ in 0..4 {
        if is_marked_branch(versioning) || successors(versioning).len() != 1 {
            break;
        }
        match crate::llvm::ir::predecessors(versioning)[..] {
            [only] => {
                towards = versioning;
                versioning = only;
            }
            _ => break,
        }
    }
    let branch = versioning
        .get_terminator()
        .filter(|t| is_marked(t.as_value_ref(), HOISTED))?;
    let targets = successors(versioning);
    let [copy, original] = targets[..] else {
        return None;
    };
    if copy != towards {
        return None;
    }
    let fields = versioning
        .get_instructions()
        .filter(|i| {
            i.get_opcode() == InstructionOpcode::Load && is_marked(i.as_value_ref(), HOISTED)
        })
        .filter_map(|load| {
            let size = fa.value_store_size(load.as_value_ref())?;
            Some((pointer_operand(load)?, size))
        })
        .collect();
    Some(Guard {
        branch,
        original,
        fields,
    })
}

fn is_marked_branch(block: BasicBlock<'_>) -> bool {
    block
        .get_terminator()
        .is_some_and(|t| is_marked(t.as_value_ref(), HOISTED))
}

/// After the copy's region was generated behind a check that keeps the hoisted fields
/// apart from what it writes: the preheader always enters the check, and the check,
/// failing, runs the original nest (`failing` is the block the failing check leaves
/// from, `copy` the copy's header; the copy's loops are left dead for later passes).
pub fn resolve<'f>(
    b: &IrBuilder<'f>,
    fa: &FunctionAnalyses<'f>,
    guard: &Guard<'f>,
    failing: BasicBlock<'f>,
    copy: BasicBlock<'f>,
) {
    let always = b.const_bool(true);
    let Some(preheader) = guard.branch.get_parent() else {
        return;
    };
    let placeholder = preheader.get_instructions().find(|i| {
        i.get_opcode() == InstructionOpcode::Freeze && is_marked(i.as_value_ref(), HOISTED)
    });
    if let Some(p) = placeholder {
        // SAFETY: the placeholder is live; `true` has its type.
        unsafe { c::LLVMReplaceAllUsesWith(p.as_value_ref(), always) };
        b.erase(p.as_value_ref());
    }
    let detour = b.new_block("polyrust.hoisted.fallback");
    if let Some(term) = failing.get_terminator() {
        for (i, target) in successors(failing).into_iter().enumerate() {
            if target == copy {
                b.set_successor(term.as_value_ref(), i as u32, detour);
            }
        }
    }
    fa.replace_phi_incoming_block(copy, failing, detour);
    for phi in crate::llvm::builder::phis_of(guard.original) {
        let from_preheader = phi_incoming(phi)
            .into_iter()
            .find(|(_, from)| *from == preheader);
        if let Some((value, _)) = from_preheader {
            b.add_incoming(phi.as_value_ref(), value, detour);
        }
    }
    b.position_at_end(detour);
    b.cond_br(always, guard.original, copy);
}

/// The versionings of `function` whose copy is not decided yet.
pub fn placeholders(function: inkwell::values::FunctionValue<'_>) -> usize {
    function
        .get_basic_block_iter()
        .flat_map(|bl| bl.get_instructions())
        .filter(|i| {
            i.get_opcode() == InstructionOpcode::Freeze && is_marked(i.as_value_ref(), HOISTED)
        })
        .count()
}

/// Makes every versioning whose copy no region was generated from take the original
/// nest; whether any did.
pub fn drop_unresolved(function: inkwell::values::FunctionValue<'_>) -> bool {
    let b = IrBuilder::new(function);
    let placeholders: Vec<InstructionValue<'_>> = function
        .get_basic_block_iter()
        .flat_map(|bl| bl.get_instructions())
        .filter(|i| {
            i.get_opcode() == InstructionOpcode::Freeze && is_marked(i.as_value_ref(), HOISTED)
        })
        .collect();
    for placeholder in &placeholders {
        // SAFETY: the placeholder is live; `false` has its type.
        unsafe { c::LLVMReplaceAllUsesWith(placeholder.as_value_ref(), b.const_bool(false)) };
        b.erase(placeholder.as_value_ref());
    }
    !placeholders.is_empty()
}
