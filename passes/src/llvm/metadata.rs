//! Metadata polyrust writes: loop IDs (`!llvm.loop`) with a property added (and a
//! parallel-accesses group), access groups (`!llvm.access.group`), alias scopes and the
//! `!alias.scope`/`!noalias` lists of accesses. Strings and uniqued nodes are made with
//! LLVM's C API; distinct nodes, which it cannot make, and the ID of a loop of LoopInfo
//! (its latches') come from the host.

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMContextRef, LLVMMetadataRef, LLVMValueRef};

use super::abi::PrHostApi;

/// The context a value lives in.
pub(crate) fn context_of(value: LLVMValueRef) -> LLVMContextRef {
    // SAFETY: the value is live for the call from the shim.
    unsafe { c::LLVMGetTypeContext(c::LLVMTypeOf(value)) }
}

fn string(context: LLVMContextRef, text: &str) -> LLVMMetadataRef {
    // SAFETY: LLVM copies the text into the context.
    unsafe { c::LLVMMDStringInContext2(context, text.as_ptr().cast(), text.len()) }
}

/// A uniqued node.
fn node(context: LLVMContextRef, operands: &[LLVMMetadataRef]) -> LLVMMetadataRef {
    let mut operands = operands.to_vec();
    // SAFETY: the operands are live metadata of the context; LLVM only reads them.
    unsafe { c::LLVMMDNodeInContext2(context, operands.as_mut_ptr(), operands.len()) }
}

/// A distinct node, after a reference to itself when `self_first` (made with a null
/// first operand, which then becomes the node itself).
pub(crate) fn distinct_node(
    api: &PrHostApi,
    in_context_of: LLVMValueRef,
    operands: &[LLVMMetadataRef],
    self_first: bool,
) -> LLVMMetadataRef {
    let context = context_of(in_context_of);
    let mut all: Vec<LLVMMetadataRef> = Vec::with_capacity(operands.len() + 1);
    if self_first {
        all.push(std::ptr::null_mut());
    }
    all.extend_from_slice(operands);
    // SAFETY: the operands are live metadata of the value's context; the host copies them.
    unsafe {
        let node = (api.distinct_node)(context, all.as_mut_ptr(), all.len());
        if self_first {
            c::LLVMReplaceMDNodeOperandWith(c::LLVMMetadataAsValue(context, node), 0, node);
        }
        node
    }
}

/// The operands of a node as values (metadata wrapped; constants as themselves; null
/// for a null operand).
fn operands(context: LLVMContextRef, node: LLVMMetadataRef) -> Vec<LLVMValueRef> {
    // SAFETY: `node` is a live node of the context.
    unsafe { value_operands(c::LLVMMetadataAsValue(context, node)) }
}

/// # Safety
/// `node` wraps a live node.
unsafe fn value_operands(node: LLVMValueRef) -> Vec<LLVMValueRef> {
    let count = c::LLVMGetMDNodeNumOperands(node) as usize;
    let mut out = vec![std::ptr::null_mut(); count];
    c::LLVMGetMDNodeOperands(node, out.as_mut_ptr());
    out
}

/// An operand back as metadata.
fn as_metadata(operand: LLVMValueRef) -> LLVMMetadataRef {
    if operand.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: operands come from `operands`, live for the call.
    unsafe { c::LLVMValueAsMetadata(operand) }
}

/// Whether `operand` is the string `text`.
fn is_string(operand: LLVMValueRef, text: &str) -> bool {
    let mut length = 0u32;
    // SAFETY: LLVMGetMDString answers null for anything but a string.
    unsafe {
        let raw = c::LLVMGetMDString(operand, &mut length);
        !raw.is_null()
            && std::slice::from_raw_parts(raw.cast::<u8>(), length as usize) == text.as_bytes()
    }
}

/// Whether a loop ID has a property node whose first operand is the string `tag`.
pub(crate) fn has_property(context: LLVMContextRef, id: LLVMMetadataRef, tag: &str) -> bool {
    operands(context, id).into_iter().skip(1).any(|property| {
        // SAFETY: a non-null operand wrapping a node is itself a live node.
        !property.is_null()
            && unsafe { !c::LLVMIsAMDNode(property).is_null() }
            && unsafe { value_operands(property) }
                .first()
                .is_some_and(|name| !name.is_null() && is_string(*name, tag))
    })
}

/// A new loop ID: the properties of `old` (if any), then `!{!"tag"}` unless `old` has
/// it and, with a group, `!{!"llvm.loop.parallel_accesses", group}`.
pub(crate) fn with_property(
    api: &PrHostApi,
    in_context_of: LLVMValueRef,
    old: Option<LLVMMetadataRef>,
    tag: &str,
    group: Option<LLVMMetadataRef>,
) -> LLVMMetadataRef {
    let context = context_of(in_context_of);
    let mut properties: Vec<LLVMMetadataRef> = Vec::new();
    if let Some(old) = old {
        properties.extend(operands(context, old).into_iter().skip(1).map(as_metadata));
    }
    if old.is_none_or(|old| !has_property(context, old, tag)) {
        properties.push(node(context, &[string(context, tag)]));
    }
    if let Some(group) = group {
        let parallel = string(context, "llvm.loop.parallel_accesses");
        properties.push(node(context, &[parallel, group]));
    }
    distinct_node(api, in_context_of, &properties, true)
}

/// The kind of metadata named `name` on instructions.
fn kind(context: LLVMContextRef, name: &str) -> u32 {
    // SAFETY: LLVM copies the name.
    unsafe { c::LLVMGetMDKindIDInContext(context, name.as_ptr().cast(), name.len() as u32) }
}

/// The node of kind `name` on an instruction.
fn attached(instruction: LLVMValueRef, name: &str) -> Option<LLVMMetadataRef> {
    // SAFETY: the instruction is live; the answer is a wrapped node or null.
    let value = unsafe { c::LLVMGetMetadata(instruction, kind(context_of(instruction), name)) };
    (!value.is_null()).then(|| as_metadata(value))
}

fn attach(instruction: LLVMValueRef, name: &str, node: LLVMMetadataRef) {
    let context = context_of(instruction);
    // SAFETY: the instruction and the node are live in one context.
    unsafe {
        c::LLVMSetMetadata(
            instruction,
            kind(context, name),
            c::LLVMMetadataAsValue(context, node),
        )
    }
}

/// Moves the loop ID (`!llvm.loop`) of the branch `from` to the branch `to`: the back
/// edge of a loop moved from one block to another, and with it what the loop is.
pub(crate) fn move_loop_id(from: LLVMValueRef, to: LLVMValueRef) {
    let Some(id) = attached(from, "llvm.loop") else {
        return;
    };
    attach(to, "llvm.loop", id);
    // SAFETY: the instruction is live; a null node removes the attachment.
    unsafe {
        c::LLVMSetMetadata(
            from,
            kind(context_of(from), "llvm.loop"),
            std::ptr::null_mut(),
        )
    }
}

/// Adds the property `tag` to the loop ID on a latch's branch, and with a group the
/// parallel accesses of that group.
pub(crate) fn tag_latch(
    api: &PrHostApi,
    branch: LLVMValueRef,
    tag: &str,
    group: Option<LLVMMetadataRef>,
) {
    let id = with_property(api, branch, attached(branch, "llvm.loop"), tag, group);
    attach(branch, "llvm.loop", id);
}

/// Adds `group` to a memory instruction's access groups: a single group is the group
/// itself (a distinct empty node), several are listed in a node.
pub(crate) fn add_access_group(instruction: LLVMValueRef, group: LLVMMetadataRef) {
    let context = context_of(instruction);
    let mut groups: Vec<LLVMMetadataRef> = Vec::new();
    if let Some(old) = attached(instruction, "llvm.access.group") {
        let listed = operands(context, old);
        if listed.is_empty() {
            groups.push(old);
        } else {
            groups.extend(listed.into_iter().map(as_metadata));
        }
    }
    groups.push(group);
    let list = match groups[..] {
        [only] => only,
        _ => node(context, &groups),
    };
    attach(instruction, "llvm.access.group", list);
}

/// `count` anonymous alias scopes in a new domain "polyrust" of their own.
pub(crate) fn new_alias_scopes(
    api: &PrHostApi,
    function: LLVMValueRef,
    count: usize,
) -> Vec<LLVMMetadataRef> {
    let context = context_of(function);
    let domain = distinct_node(api, function, &[string(context, "polyrust")], true);
    (0..count)
        .map(|_| distinct_node(api, function, &[domain], true))
        .collect()
}

/// Adds `scope` to a memory instruction's `!alias.scope` list and `others` (if any) to its
/// `!noalias` list; both keep what they had.
pub(crate) fn add_alias_scopes(
    instruction: LLVMValueRef,
    scope: LLVMMetadataRef,
    others: &[LLVMMetadataRef],
) {
    let context = context_of(instruction);
    let scopes = node(context, &[scope]);
    let joined = concatenate(context, attached(instruction, "alias.scope"), scopes);
    attach(instruction, "alias.scope", joined);
    if !others.is_empty() {
        let noalias = node(context, others);
        let joined = concatenate(context, attached(instruction, "noalias"), noalias);
        attach(instruction, "noalias", joined);
    }
}

/// The operands of `old` (if any) then those of `new`, each once, as `MDNode::concatenate`
/// joins two lists: a uniqued node, or the first operand itself when that is a node
/// referring to itself with just these operands.
fn concatenate(
    context: LLVMContextRef,
    old: Option<LLVMMetadataRef>,
    new: LLVMMetadataRef,
) -> LLVMMetadataRef {
    let Some(old) = old else {
        return new;
    };
    let listed = operands(context, old)
        .into_iter()
        .chain(operands(context, new));
    let mut joined: Vec<LLVMValueRef> = Vec::new();
    for operand in listed {
        if !joined.contains(&operand) {
            joined.push(operand);
        }
    }
    if let Some(&first) = joined.first() {
        // SAFETY: a non-null operand wrapping a node is itself a live node.
        let first_is_node = !first.is_null() && unsafe { !c::LLVMIsAMDNode(first).is_null() };
        if first_is_node && unsafe { value_operands(first) } == joined {
            return as_metadata(first);
        }
    }
    let joined: Vec<LLVMMetadataRef> = joined.into_iter().map(as_metadata).collect();
    node(context, &joined)
}

/// Marks an instruction with the empty node `!name` (a flag later rounds look for:
/// value names do not survive clang, metadata does).
pub(crate) fn mark(instruction: LLVMValueRef, name: &str) {
    let empty = node(context_of(instruction), &[]);
    attach(instruction, name, empty);
}

/// Whether `mark(instruction, name)` was called.
pub(crate) fn is_marked(instruction: LLVMValueRef, name: &str) -> bool {
    attached(instruction, name).is_some()
}
