//! Row-pointer arrays (`double **G; Gi = G[i]; Gim1 = G[i-1]; Gi[j] = ... Gim1[j]`, the
//! layout of SciMark's SOR and LU and of Numerical Recipes' `dmatrix`): every row's
//! base pointer is loaded from a table inside the nest, so no access has a base fixed
//! in the nest and detection rejects it ("base pointer is computed inside the loop
//! nest").
//!
//! The common case is one allocation cut into rows at a fixed stride. Such a nest is
//! versioned here, between rounds, the way `detect::hoisted` versions nests that re-read
//! struct fields: in the preheader the table's entry of the first row the nest uses
//! (`first`) and the next one are loaded once, and give the first row's pointer `p0`
//! and the stride `u` (the distance of the two rows in 8-byte units); a copy of the
//! nest computes the row of table entry `e` as `p0 + (e - first) * u` instead of
//! loading it, which makes the rows one array of rows of `8u` bytes, modelled in round
//! r + 1 with `p0` and `u` as parameters. Code generation of the copy's region
//! (`codegen::rows`) adds to its run-time check that every table entry of the rows the
//! region accesses holds exactly that pointer and that the entries lie apart from every
//! array the region writes (so the table does not change while the nest runs); the
//! model's own in-bounds assumption keeps each row's accesses inside its `8u` bytes, so
//! the rows are disjoint, and its alias checks keep them apart from the region's other
//! arrays. A failing check runs the original nest; rows from separate allocations
//! always do.
//!
//! A row pointer is a plain load of a pointer from an address that moves in the nest
//! over a table whose base does not, or a header phi that carries such a load from the
//! previous iteration (GVN's load PRE turns `G[i+1]` of one iteration into `G[i]` of the
//! next); its uses must only address memory. Relies on what `detect::hoisted` relies on
//! (a preheader, values leaving through exit phis), and on reading the table's entries
//! of the first row and the next one in front of the nest, where the nest itself may
//! not read the second: a table at address zero is read as zeros (`null_safe`), a table
//! that ends at the end of a mapped page right after its only entry is what this relies
//! on not meeting.

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::llvm::builder::IrBuilder;
use crate::llvm::ir::{
    as_instruction, basic_value, is_marked, is_pointer, mark, operand, phi_incoming,
    pointer_operand, type_of, users,
};
use crate::llvm::{FunctionAnalyses, Loop, RemarkAt, RemarkKind, Scev, ScevKind};

use super::hoisted::{
    branch_to_copy, copy_nest, fixed_in, leaves_through_exit_phis, null_safe, plain, within,
    HOISTED, SETTLED,
};
use super::reject::RejectReason;
use super::{RejectedNest, HANDLED};

/// The flag on a copy of the address of the table's entry of the first row.
const ROW_FIRST: &str = "polyrust.rows.first";
/// The flag on the first row's pointer, loaded in front of a versioned nest.
const ROW_BASE: &str = "polyrust.rows.base";
/// The flag on the rows' stride in 8-byte units, computed in front of a versioned nest.
const ROW_STRIDE: &str = "polyrust.rows.stride";

/// Most tables of one nest: each adds a loop over its rows to the check.
const MAX_TABLES: usize = 4;

/// Bytes of a table entry (a pointer).
const ENTRY_BYTES: i64 = 8;

/// A row-pointer table a versioned nest's copy computes the rows of, seen from the
/// versioning block.
#[derive(Clone, Copy, Debug)]
pub struct RowTable {
    /// The address of the table's entry of the first row (row 0 of the copy's array).
    pub first: LLVMValueRef,
    /// That entry's pointer: the base of the copy's array of rows.
    pub base: LLVMValueRef,
    /// The distance of two rows in 8-byte units (`i64`).
    pub stride: LLVMValueRef,
}

/// A value of the nest that is a row's pointer.
struct RowPointer<'f> {
    value: InstructionValue<'f>,
    /// Where its replacement is computed: in place of the load, or at the top of the
    /// phi's header.
    at: InstructionValue<'f>,
    /// The address of the table entry it holds, at the current iteration.
    entry: Scev<'f>,
}

/// The row pointers of one table, and the address of its entry of the first row.
struct Table<'f> {
    base: Scev<'f>,
    first: Scev<'f>,
    rows: Vec<RowPointer<'f>>,
}

/// Versions the first rejected nest that row pointers keep out; whether one was (the
/// round ends: the copy is modelled with fresh analyses).
pub fn version_nests(fa: &FunctionAnalyses<'_>, detection: &super::Detection<'_>) -> bool {
    detection.rejected.iter().any(|nest| version(fa, nest))
}

/// Versions `nest` when row pointers are all that keeps it out; whether it was.
fn version<'f>(fa: &FunctionAnalyses<'f>, nest: &RejectedNest<'f>) -> bool {
    let root = nest.root;
    let reasons = || nest.reasons.iter().map(|(r, _)| r.reason);
    if !reasons().all(|r| SETTLED.contains(&r))
        || !reasons().any(|r| r == RejectReason::VariantBasePointer)
        || root.has_tag(HANDLED)
    {
        return false;
    }
    let Some(preheader) = root.preheader() else {
        return false;
    };
    let Some(terminator) = preheader.get_terminator() else {
        return false;
    };
    // A copy made by another versioning is left to that one's check.
    if is_marked(terminator.as_value_ref(), HOISTED) {
        return false;
    }
    let blocks = root.blocks();
    if !leaves_through_exit_phis(root, &blocks) {
        return false;
    }
    let tables = tables(fa, root, &blocks);
    if tables.is_empty() || tables.len() > MAX_TABLES {
        return false;
    }
    let b = IrBuilder::new(fa.function());
    let computed = load_first_rows(fa, &b, &tables, terminator)
        .and_then(|loaded| compute_rows(fa, &b, &tables, &loaded));
    let Some(computed) = computed else {
        // What was emitted is dead code; the nest is not tried again.
        for l in root.preorder() {
            l.tag(HANDLED);
        }
        return true;
    };
    let (copy, map) = copy_nest(fa, &b, (root, &blocks), HOISTED);
    for (row, replacement) in &computed {
        // SAFETY: the copied row pointer and its computed replacement are live pointers.
        unsafe { c::LLVMReplaceAllUsesWith(map[&row.as_value_ref()], map[&replacement[0]]) };
        b.erase(map[&row.as_value_ref()]);
    }
    // In the original nest, what was computed is unused: it goes.
    for (_, replacement) in &computed {
        for value in replacement {
            if as_instruction(*value).is_some() {
                b.erase(*value);
            }
        }
    }
    b.position_before(terminator);
    let placeholder = b.opaque_bool();
    mark(placeholder, HOISTED);
    branch_to_copy(
        &b,
        (preheader, terminator),
        placeholder,
        copy[&root.header()],
        root,
    );
    say_versioned(fa, root, &tables);
    true
}

/// The nest's row pointers by table; empty when some table's entries cannot be counted
/// from one first entry in whole pointers, or its first entry is not fixed in the nest.
fn tables<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    blocks: &[BasicBlock<'f>],
) -> Vec<Table<'f>> {
    let mut tables: Vec<Table<'f>> = Vec::new();
    for inst in blocks.iter().flat_map(|bl| bl.get_instructions()) {
        let Some(row) = row_pointer(fa, root, inst) else {
            continue;
        };
        let base = fa.pointer_base(row.entry);
        if !fixed_in(root, base, 0) {
            continue;
        }
        match tables
            .iter_mut()
            .find(|t| fa.minus(t.base, base).constant() == Some(0))
        {
            Some(t) => t.rows.push(row),
            None => {
                let first = start_in(root, row.entry);
                if !fixed_in(root, first, 0) {
                    return Vec::new();
                }
                tables.push(Table {
                    base,
                    first,
                    rows: vec![row],
                });
            }
        }
    }
    let whole = |t: &Table<'f>| {
        t.rows
            .iter()
            .all(|r| multiple_of(fa.minus(r.entry, t.first), ENTRY_BYTES, 0))
    };
    // A table the nest stores into would fail the check on every run.
    let stored = |t: &Table<'f>| {
        blocks
            .iter()
            .flat_map(|bl| bl.get_instructions())
            .filter(|i| i.get_opcode() == InstructionOpcode::Store)
            .filter_map(pointer_operand)
            .any(|p| {
                let base = fa.pointer_base(fa.scev(&basic_value(p)));
                fa.minus(base, t.base).constant() == Some(0)
            })
    };
    if tables.iter().all(|t| whole(t) && !stored(t)) {
        tables
    } else {
        Vec::new()
    }
}

/// `inst` as a row pointer of the nest, if it is one.
fn row_pointer<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    inst: InstructionValue<'f>,
) -> Option<RowPointer<'f>> {
    let value = inst.as_value_ref();
    if !is_pointer(value) || fa.value_store_size(value) != Some(ENTRY_BYTES as u64) {
        return None;
    }
    let row = match inst.get_opcode() {
        InstructionOpcode::Load if plain(inst) => RowPointer {
            value: inst,
            at: inst,
            entry: fa.scev(&basic_value(pointer_operand(inst)?)),
        },
        InstructionOpcode::Phi => carried_row(fa, root, inst)?,
        _ => return None,
    };
    let addressing = users(&inst).into_iter().all(|u| match u.get_opcode() {
        InstructionOpcode::GetElementPtr => operand(u, 0) == Some(value),
        InstructionOpcode::Load => true,
        InstructionOpcode::Store => operand(u, 0) != Some(value),
        // A value that leaves the nest is not checked to be the row it computes.
        InstructionOpcode::Phi => u.get_parent().is_some_and(|b| root.contains_block(b)),
        _ => false,
    });
    (addressing && !fixed_in(root, row.entry, 0)).then_some(row)
}

/// A header phi of a loop of the nest that holds, at each iteration, the table entry
/// the loop's previous iteration loaded (at the first, a load of the same entry in the
/// nest or in its preheader).
fn carried_row<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
    phi: InstructionValue<'f>,
) -> Option<RowPointer<'f>> {
    let header = phi.get_parent()?;
    let l = fa.loop_for_block(header).filter(|l| l.header() == header)?;
    let (preheader, latch) = (l.preheader()?, l.latch()?);
    if !within(root, l) {
        return None;
    }
    let incoming = phi_incoming(phi);
    let value_from = |block| incoming.iter().find(|(_, b)| *b == block).map(|(v, _)| *v);
    let first = as_instruction(value_from(preheader)?)?;
    let carried = as_instruction(value_from(latch)?)?;
    let loads = [first, carried]
        .iter()
        .all(|i| i.get_opcode() == InstructionOpcode::Load && plain(*i));
    let first_block = first.get_parent()?;
    let before_or_in = root.contains_block(first_block) || root.preheader() == Some(first_block);
    if incoming.len() != 2
        || !loads
        || !before_or_in
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
    let entry = fa.minus(next, step);
    let start = *entry.operands().first()?;
    let same_start = fa
        .minus(start, fa.scev(&basic_value(pointer_operand(first)?)))
        .constant()
        == Some(0);
    let at = header
        .get_instructions()
        .find(|i| i.get_opcode() != InstructionOpcode::Phi)?;
    (entry.kind() == ScevKind::AddRec && same_start).then_some(RowPointer {
        value: phi,
        at,
        entry,
    })
}

/// `scev` at the first iteration of every loop of the nest.
fn start_in<'f>(root: Loop<'f>, scev: Scev<'f>) -> Scev<'f> {
    let mut current = scev;
    while current.kind() == ScevKind::AddRec
        && current.add_rec_loop().is_some_and(|l| within(root, l))
    {
        match current.operands().first() {
            Some(start) => current = *start,
            None => break,
        }
    }
    current
}

/// Whether `scev` is a multiple of `n` for every value of what it mentions.
fn multiple_of(scev: Scev<'_>, n: i64, depth: u32) -> bool {
    if depth > 16 {
        return false;
    }
    match scev.kind() {
        ScevKind::Constant => scev.constant().is_some_and(|v| v % n == 0),
        ScevKind::Add | ScevKind::AddRec => scev
            .operands()
            .into_iter()
            .all(|o| multiple_of(o, n, depth + 1)),
        ScevKind::Mul => scev
            .operands()
            .into_iter()
            .any(|o| multiple_of(o, n, depth + 1)),
        _ => false,
    }
}

/// The first row's table entry, its pointer and the rows' stride, per table, computed
/// in front of `terminator` (the preheader's) and marked for code generation.
fn load_first_rows<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    tables: &[Table<'f>],
    terminator: InstructionValue<'f>,
) -> Option<Vec<RowTable>> {
    let mut loaded = Vec::new();
    for table in tables {
        let pointer_type = type_of(table.rows[0].value.as_value_ref());
        let first = fa.expand_raw(table.first, pointer_type, terminator, false)?;
        b.position_before(terminator);
        let second = b.wrapping_byte_address(first, b.const_i64(ENTRY_BYTES));
        let base = b.load(pointer_type, null_safe(b, first), "polyrust.rows.base");
        let next = b.load(pointer_type, null_safe(b, second), "polyrust.rows.next");
        let distance = b.binary(LLVMOpcode::LLVMSub, b.ptr_to_int(next), b.ptr_to_int(base));
        let stride = b.binary(LLVMOpcode::LLVMAShr, distance, b.const_i64(3));
        let name = "polyrust.rows.stride";
        // SAFETY: `stride` is a live instruction; LLVM copies the name.
        unsafe { c::LLVMSetValueName2(stride, name.as_ptr().cast(), name.len()) };
        // The entry's address may be a constant or a value of the program: a freeze of
        // it carries the flag.
        let flagged = b.freeze(first);
        mark(flagged, ROW_FIRST);
        mark(base, ROW_BASE);
        mark(stride, ROW_STRIDE);
        loaded.push(RowTable {
            first,
            base,
            stride,
        });
    }
    Some(loaded)
}

/// A row pointer of the original nest and the instructions that compute it, the row first.
type ComputedRow<'f> = (InstructionValue<'f>, Vec<LLVMValueRef>);

/// In the original nest, for each row pointer, the row computed from the first row's
/// pointer: `base + (entry - first) * stride` bytes (the entries are 8 bytes apart, the
/// stride counts 8 bytes); with the instructions made, the row's first.
fn compute_rows<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
    tables: &[Table<'f>],
    loaded: &[RowTable],
) -> Option<Vec<ComputedRow<'f>>> {
    let mut computed = Vec::new();
    for (table, loaded) in tables.iter().zip(loaded) {
        for row in &table.rows {
            let pointer_type = type_of(row.value.as_value_ref());
            let entry = match row.value.get_opcode() {
                InstructionOpcode::Load => pointer_operand(row.value)?,
                _ => fa.expand_raw(row.entry, pointer_type, row.at, false)?,
            };
            b.position_before(row.at);
            let entry_int = b.ptr_to_int(entry);
            let first_int = b.ptr_to_int(loaded.first);
            let distance = b.binary(LLVMOpcode::LLVMSub, entry_int, first_int);
            let offset = b.binary(LLVMOpcode::LLVMMul, distance, loaded.stride);
            let address = b.wrapping_byte_address(loaded.base, offset);
            let made = vec![address, offset, distance, first_int, entry_int];
            computed.push((row.value, made));
        }
    }
    Some(computed)
}

/// The analysis remark at the nest: which tables' rows the copy computes, and on what
/// condition it runs.
fn say_versioned<'f>(fa: &FunctionAnalyses<'f>, root: Loop<'f>, tables: &[Table<'f>]) {
    let names: Vec<String> = tables
        .iter()
        .map(|t| match t.base.unknown_value() {
            Some(v) => crate::speculate::value_name(fa, v),
            None => crate::llvm::scev_text::render(t.base),
        })
        .collect();
    fa.remark(
        RemarkKind::Analysis,
        "RowPointers",
        RemarkAt::loop_start(root),
        &format!(
            "the loop nest reads its rows' pointers from {}: a copy of the nest computes \
             them as rows of one allocation at a fixed stride, and runs when the run-time \
             check finds every row it uses there and the table apart from every array the \
             nest writes",
            names.join(", ")
        ),
    );
}

/// The row tables the versioning block `block` prepared, in the order it did; `None`
/// when its flags do not make whole tables.
pub fn tables_of(block: BasicBlock<'_>) -> Option<Vec<RowTable>> {
    let marked = |flag: &str| -> Vec<LLVMValueRef> {
        block
            .get_instructions()
            .map(|i| i.as_value_ref())
            .filter(|i| is_marked(*i, flag))
            .collect()
    };
    let (firsts, bases, strides) = (marked(ROW_FIRST), marked(ROW_BASE), marked(ROW_STRIDE));
    if firsts.len() != bases.len() || bases.len() != strides.len() {
        return None;
    }
    let tables = firsts
        .into_iter()
        .zip(bases)
        .zip(strides)
        .map(|((first, base), stride)| RowTable {
            first,
            base,
            stride,
        })
        .collect();
    Some(tables)
}
