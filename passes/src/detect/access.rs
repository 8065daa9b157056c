//! The memory a region touches: every load and store as an access to an array with
//! affine subscripts, and every SSA value that crosses statements (or leaves the
//! region) as a scalar access. Arrays get one shape shared by all their accesses:
//! constant-size dimensions where LLVM's fixed-size delinearization agrees for every
//! access, parametric dimensions (`A[i*m + j]`) from LLVM's delinearization, else one
//! dimension. Subscripts of inner dimensions are assumed in bounds (checked at run
//! time) wherever that is not evident. When LLVM finds no parametric shape for all
//! accesses of an array at once, each loop nest's accesses are delinearized on their
//! own and must agree on the sizes as affine expressions (the stages of a pipeline may
//! spell the row length `sext i32 %w` and `zext i32 %w`; see `parametric_parts`).

use std::collections::{BTreeMap, HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use super::affine::{Affine, Atom, CmpOp, Cond};
use super::control::{BlockConditions, LoopBounds};
use super::reject::{RejectReason, Rejection};
use super::translate::{sanitize, Assumed, Translator};
use crate::llvm::ir::{
    accessed_value, as_instruction, basic_value, gep_array_shape, global_object_bytes,
    instruction_text, memory_transfer, phi_incoming, pointer_operand, type_of, users,
};
use crate::llvm::source_terms::{
    access_text, describe_access, describe_scev, describe_value, with_ir,
};
use crate::llvm::{Loop, Scev, ScevKind};
use crate::model::spec::AccessKind;

pub struct Array {
    pub name: String,
    pub element_type: String,
    pub element_size: u64,
    /// Sizes of the dimensions after the first (parameters only).
    pub inner_sizes: Vec<Affine>,
    pub is_scalar: bool,
    /// The base pointer, for memory arrays.
    pub base: Option<LLVMValueRef>,
    /// The SSA value (a phi, or the instruction defining it), for scalars.
    pub value: Option<LLVMValueRef>,
    pub written: bool,
}

#[derive(Clone)]
pub struct Access<'f> {
    pub block: BasicBlock<'f>,
    pub kind: AccessKind,
    pub array: usize,
    pub subscripts: Vec<Affine>,
    /// For memcpy/memset: the number of elements from the subscript on.
    pub extent: Option<Affine>,
    /// For a memcpy/memset of whole rows of a two-dimensional array (`memset(A, 0, h * w
    /// * sizeof *A)`): how many rows from the subscript's on; `extent` is then the row.
    pub rows: Option<Affine>,
    /// Conditions the subscripts rely on (no wrap).
    pub assumed: Vec<Assumed>,
    /// Subscripts assumed to lie in their dimensions.
    pub in_bounds: Vec<InBounds>,
    pub text: String,
    /// The load, store or call behind a memory access.
    pub inst: Option<InstructionValue<'f>>,
}

/// One subscript of an access assumed to lie in its dimension.
#[derive(Clone)]
pub struct InBounds {
    /// Which subscript (0 = outermost, bounded only in a global of known size).
    pub dimension: usize,
    /// The size of that dimension.
    pub size: Affine,
    /// For a memcpy/memset range, the condition is on its end rather than its start.
    pub range_end: bool,
    pub cond: Cond,
}

#[derive(Default)]
pub struct Accesses<'f> {
    pub arrays: Vec<Array>,
    /// In statement order: by block, then reads of scalars, memory in instruction
    /// order, writes of scalars.
    pub accesses: Vec<Access<'f>>,
}

impl Accesses<'_> {
    /// Removes repeated accesses of a statement (a promoted scalar written twice, or
    /// read where the element is also loaded).
    pub fn dedupe(&mut self) {
        let mut seen = Vec::new();
        self.accesses.retain(|x| {
            if x.extent.is_some() {
                return true;
            }
            let key = (x.block, x.kind, x.array, x.subscripts.clone());
            if seen.contains(&key) {
                return false;
            }
            seen.push(key);
            true
        });
    }

    /// Removes arrays no access refers to any more, renumbering the accesses.
    pub fn drop_unused_arrays(&mut self) {
        let used: HashSet<usize> = self.accesses.iter().map(|x| x.array).collect();
        let mut renumber = vec![usize::MAX; self.arrays.len()];
        let mut kept = 0;
        for (i, slot) in renumber.iter_mut().enumerate() {
            if used.contains(&i) {
                *slot = kept;
                kept += 1;
            }
        }
        let mut index = 0;
        self.arrays.retain(|_| {
            let keep = used.contains(&index);
            index += 1;
            keep
        });
        for x in self.accesses.iter_mut() {
            x.array = renumber[x.array];
        }
    }
}

#[derive(Clone)]
struct RawAccess<'f> {
    inst: InstructionValue<'f>,
    pointer: LLVMValueRef,
    block: BasicBlock<'f>,
    offset: Scev<'f>,
    /// Element size of a load or store; `None` for memcpy/memset ranges.
    element_size: Option<u64>,
    element_type: Option<String>,
    /// Bytes covered by a memcpy/memset range.
    extent: Option<Scev<'f>>,
    write: bool,
    /// Under a data-dependent branch inside its statement.
    conditional: bool,
    /// Known to run at the first iteration of its loops (all counters 0) whenever it
    /// runs at all (see `runs_from_origin`).
    from_origin: bool,
}

pub fn collect<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    bounds: Option<&[(Loop<'f>, LoopBounds)]>,
) -> Result<Accesses<'f>, Vec<Rejection>> {
    let (bases, mut problems) = raw_accesses(tr, conditions, bounds);
    let mut found = MemoryArrays::default();
    for (base, raws) in &bases {
        if let Err(r) = found.add(tr, *base, raws) {
            found.problems.push(r);
        }
    }
    problems.append(&mut found.problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    if found.memory.is_empty() {
        return Err(vec![Rejection::new(RejectReason::NoMemoryAccess, "")]);
    }
    let MemoryArrays {
        mut arrays,
        memory,
        mut used_names,
        ..
    } = found;
    let accesses = order_with_scalars(tr, conditions, &mut arrays, memory, &mut used_names);
    Ok(Accesses { arrays, accesses })
}

/// What one instruction touches in memory: the pointer, the element value (loads and
/// stores) or the bytes covered (memcpy/memset ranges), and whether it writes.
struct Touch {
    pointer: LLVMValueRef,
    value: Option<LLVMValueRef>,
    length: Option<LLVMValueRef>,
    write: bool,
}

fn touches(inst: InstructionValue<'_>) -> Vec<Touch> {
    let mut touched = Vec::new();
    if let (Some(pointer), Some(value)) = (pointer_operand(inst), accessed_value(inst)) {
        touched.push(Touch {
            pointer,
            value: Some(value),
            length: None,
            write: inst.get_opcode() == InstructionOpcode::Store,
        });
    } else if let Some((dst, src, len)) = memory_transfer(inst) {
        if let Some(src) = src {
            touched.push(Touch {
                pointer: src,
                value: None,
                length: Some(len),
                write: false,
            });
        }
        touched.push(Touch {
            pointer: dst,
            value: None,
            length: Some(len),
            write: true,
        });
    }
    touched
}

/// Every memory access of the region by base pointer, bases in order of first use;
/// and the accesses without a base pointer fixed in the region.
fn raw_accesses<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    bounds: Option<&[(Loop<'f>, LoopBounds)]>,
) -> (Vec<(LLVMValueRef, Vec<RawAccess<'f>>)>, Vec<Rejection>) {
    let mut problems = Vec::new();
    let mut bases: Vec<(LLVMValueRef, Vec<RawAccess<'f>>)> = Vec::new();
    for block in &tr.shape().blocks {
        for inst in block.get_instructions() {
            for touch in touches(inst) {
                match raw_access(tr, conditions, bounds, *block, inst, touch) {
                    Ok((base_value, raw)) => {
                        match bases.iter_mut().find(|(b, _)| *b == base_value) {
                            Some((_, list)) => list.push(raw),
                            None => bases.push((base_value, vec![raw])),
                        }
                    }
                    Err(r) => problems.push(r),
                }
            }
        }
    }
    (bases, problems)
}

/// One access of `inst` in `block` with its base pointer, if that is fixed in the
/// region.
fn raw_access<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    bounds: Option<&[(Loop<'f>, LoopBounds)]>,
    block: BasicBlock<'f>,
    inst: InstructionValue<'f>,
    touch: Touch,
) -> Result<(LLVMValueRef, RawAccess<'f>), Rejection> {
    let fa = tr.fa();
    let scope = fa.loop_for_block(block);
    let address = tr.speculated_scev(fa.scev_at_scope(fa.scev(&basic_value(touch.pointer)), scope));
    let base = fa.pointer_base(address);
    let Some(base_value) = base
        .unknown_value()
        .filter(|_| base.kind() == ScevKind::Unknown)
    else {
        return Err(Rejection::new(
            RejectReason::NonAffineSubscript,
            with_ir(
                fa,
                format!("no base pointer for the {}", access_text(fa, inst)),
                || address.llvm_text(),
            ),
        ));
    };
    let defined_inside = as_instruction(base_value)
        .and_then(|i| i.get_parent())
        .is_some_and(|b| tr.shape().contains_block(b));
    if defined_inside {
        return Err(Rejection::new(
            RejectReason::VariantBasePointer,
            format!(
                "{} for the {}",
                describe_value(fa, base_value),
                describe_access(fa, inst)
            ),
        ));
    }
    let statement = conditions.statement_block(block);
    let conditional = statement != block;
    let value = touch.value;
    let raw = RawAccess {
        inst,
        pointer: touch.pointer,
        block: statement,
        conditional,
        from_origin: !conditional && runs_from_origin(tr, conditions, bounds, statement),
        offset: fa.minus(address, base),
        element_size: value.map(|v| fa.value_store_size(v).unwrap_or(0)),
        element_type: value.map(|v| type_name(type_of(v))),
        extent: touch
            .length
            .map(|l| tr.speculated_scev(fa.scev_at_scope(fa.scev(&basic_value(l)), scope))),
        write: touch.write,
    };
    Ok((base_value, raw))
}

/// The memory arrays found so far, the accesses of each instruction, the names taken
/// and the problems met, in the order of the arrays.
#[derive(Default)]
struct MemoryArrays<'f> {
    arrays: Vec<Array>,
    memory: HashMap<InstructionValue<'f>, Vec<Access<'f>>>,
    used_names: HashSet<String>,
    problems: Vec<Rejection>,
}

impl<'f> MemoryArrays<'f> {
    /// The array at `base` with the accesses `raws`, unless its elements differ in
    /// size or it has no shape that makes every subscript affine.
    fn add(
        &mut self,
        tr: &Translator<'_, 'f>,
        base: LLVMValueRef,
        raws: &[RawAccess<'f>],
    ) -> Result<(), Rejection> {
        let fa = tr.fa();
        // Element size from the loads and stores; byte-sized if only ranges touch it.
        let sizes: Vec<u64> = raws.iter().filter_map(|r| r.element_size).collect();
        let size = sizes.first().copied().unwrap_or(1);
        let element_type = raws
            .iter()
            .find_map(|r| r.element_type.clone())
            .unwrap_or_else(|| "i8".into());
        if size == 0 || sizes.iter().any(|s| *s != size) {
            return Err(Rejection::new(
                RejectReason::MixedElementTypes,
                format!(
                    "{} is accessed as {}",
                    describe_value(fa, base),
                    raws.iter()
                        .filter_map(|r| r.element_type.as_deref())
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            ));
        }
        let (inner_sizes, subscripts, assumed) =
            shape_of(tr, raws, size).map(whole_row_multiples)?;
        let rows = global_rows(fa, base, size, &inner_sizes);
        let index = self.arrays.len();
        let name = unique(&mut self.used_names, sanitize(&fa.raw_operand_name(base)));
        let array = ArrayShape {
            index,
            size,
            inner_sizes: &inner_sizes,
            rows: rows.as_ref(),
        };
        for ((raw, subs), assumed) in raws.iter().zip(subscripts).zip(assumed) {
            let access = self.memory_access(tr, &array, raw, subs, assumed);
            self.memory.entry(raw.inst).or_default().push(access);
        }
        self.arrays.push(Array {
            name,
            element_type,
            element_size: size,
            inner_sizes,
            is_scalar: false,
            base: Some(base),
            value: None,
            written: raws.iter().any(|r| r.write),
        });
        Ok(())
    }

    /// The access `raw` to `array` with its subscripts in the array's shape.
    fn memory_access(
        &mut self,
        tr: &Translator<'_, 'f>,
        array: &ArrayShape<'_>,
        raw: &RawAccess<'f>,
        subs: Vec<Affine>,
        mut assumed: Vec<Assumed>,
    ) -> Access<'f> {
        let fa = tr.fa();
        let mut in_bounds = bounds_conditions(&subs, array.inner_sizes);
        if let (Some(rows), Some(first)) = (array.rows, subs.first()) {
            in_bounds.extend(within(0, first, rows));
        }
        let (extent, rows) = match raw.extent {
            Some(e) => self.range_extent(tr, array, raw, e, &subs),
            None => (None, None),
        };
        // A range must also end inside its innermost row.
        if let (Some(e), Some(n), Some(start)) = (&extent, array.inner_sizes.last(), subs.last()) {
            if let Some(end) = start.add(e) {
                in_bounds.push(InBounds {
                    dimension: subs.len() - 1,
                    size: n.clone(),
                    range_end: true,
                    cond: Cond::Cmp(end, CmpOp::Le, n.clone()),
                });
            }
        }
        assumed.extend(tr.take_assumed());
        Access {
            block: raw.block,
            kind: match (raw.write, raw.conditional) {
                (false, _) => AccessKind::Read,
                (true, false) => AccessKind::MustWrite,
                (true, true) => AccessKind::MayWrite,
            },
            array: array.index,
            subscripts: subs,
            extent,
            rows,
            assumed,
            in_bounds,
            text: fa.instruction_text(raw.inst),
            inst: Some(raw.inst),
        }
    }

    /// The elements a memcpy/memset range of `bytes` covers from its subscript on, and
    /// the rows when it covers whole rows; a length that is neither is a problem.
    fn range_extent(
        &mut self,
        tr: &Translator<'_, 'f>,
        array: &ArrayShape<'_>,
        raw: &RawAccess<'f>,
        bytes: Scev<'f>,
        subs: &[Affine],
    ) -> (Option<Affine>, Option<Affine>) {
        let (size, inner_sizes) = (array.size, array.inner_sizes);
        match tr
            .affine(bytes)
            .ok()
            .and_then(|a| a.divide_exact(size as i128))
        {
            Some(a) => (Some(a), None),
            None if whole_rows(tr, bytes, inner_sizes, subs, size).is_some() => {
                let rows = whole_rows(tr, bytes, inner_sizes, subs, size);
                (inner_sizes.last().cloned(), rows)
            }
            None => {
                let fa = tr.fa();
                self.problems.push(Rejection::new(
                    RejectReason::NonAffineSubscript,
                    format!(
                        "length {} of the {}",
                        describe_scev(fa, bytes),
                        describe_access(fa, raw.inst)
                    ),
                ));
                (None, None)
            }
        }
    }
}

/// An array's place and shape, for its accesses.
struct ArrayShape<'a> {
    index: usize,
    /// Element size in bytes.
    size: u64,
    inner_sizes: &'a [Affine],
    /// Rows of the outermost dimension, when known (see `global_rows`).
    rows: Option<&'a Affine>,
}

type Shape = (Vec<Affine>, Vec<Vec<Affine>>, Vec<Vec<Assumed>>);

/// A parametric row length that is a multiple of the one found: when every row
/// subscript of a two-dimensional array with a parametric row length `w` is a multiple
/// of `g` (`rgb[3 * y][3 * x + c]` in rows of `w`, LLVM's reading of an interleaved
/// `rgb[(y * w + x) * 3 + c]`, whose constant factor the delinearization drops), the
/// rows are `g * w` long: the same elements, and the columns then lie in their row
/// (`3 * x + c < 3 * w`) where they did not in the shorter one, which made the
/// in-bounds check fail at every run.
fn whole_row_multiples(shape: Shape) -> Shape {
    let (sizes, mut subscripts, assumed) = shape;
    let [length] = sizes.as_slice() else {
        return (sizes, subscripts, assumed);
    };
    if length.as_constant().is_some() {
        return (sizes, subscripts, assumed);
    }
    let g = subscripts
        .iter()
        .filter_map(|subs| subs.first())
        .flat_map(|row| row.terms.values().copied().chain([row.constant]))
        .fold(0i128, gcd);
    if g <= 1 {
        return (sizes, subscripts, assumed);
    }
    let (Some(longer), Some(rows)) = (
        length.scale(g),
        subscripts
            .iter()
            .map(|subs| subs.first().and_then(|row| row.divide_exact(g)))
            .collect::<Option<Vec<_>>>(),
    ) else {
        return (sizes, subscripts, assumed);
    };
    for (subs, row) in subscripts.iter_mut().zip(rows) {
        subs[0] = row;
    }
    (vec![longer], subscripts, assumed)
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// One shape for all accesses of an array, and each access's subscripts.
fn shape_of<'f>(
    tr: &Translator<'_, 'f>,
    raws: &[RawAccess<'f>],
    size: u64,
) -> Result<Shape, Rejection> {
    let fa = tr.fa();
    if let Some((linear, assumed)) = linear_offsets(tr, raws, size) {
        return Ok(constant_shape(tr, raws, size, linear, assumed));
    }
    let has_ranges = raws.iter().any(|r| r.extent.is_some());
    if has_ranges {
        if let Some(shape) = parametric_with_ranges(tr, raws, size) {
            return Ok(shape);
        }
        return Err(Rejection::new(
            RejectReason::NonAffineSubscript,
            format!(
                "memory range on an array with non-affine subscripts: {}",
                describe_access(fa, raws[0].inst)
            ),
        ));
    }
    // Parametric shape from all offsets at once, else from the offsets of each loop
    // nest on its own (see `parametric_parts`), else rows split around clamped
    // subscripts.
    let parametric = parametric_shape(tr, raws, size);
    if parametric.is_err() {
        if let Some(shape) = clamped_rows(tr, raws, size) {
            return Ok(shape);
        }
    }
    parametric
}

/// The linear element index of every access, with what each translation assumed, when
/// every offset is affine.
fn linear_offsets<'f>(
    tr: &Translator<'_, 'f>,
    raws: &[RawAccess<'f>],
    size: u64,
) -> Option<(Vec<Affine>, Vec<Vec<Assumed>>)> {
    let mut linear = Vec::new();
    let mut assumed = Vec::new();
    for raw in raws {
        match tr
            .affine(raw.offset)
            .ok()
            .and_then(|a| a.divide_exact(size as i128))
        {
            Some(a) => {
                linear.push(a);
                assumed.push(tr.take_assumed());
            }
            None => {
                tr.take_assumed();
                return None;
            }
        }
    }
    Some((linear, assumed))
}

/// The shape of an array whose accesses all have affine linear indices `linear`:
/// constant dimensions where the declaration, LLVM's fixed-size delinearization or the
/// strides show them, else one dimension.
fn constant_shape<'f>(
    tr: &Translator<'_, 'f>,
    raws: &[RawAccess<'f>],
    size: u64,
    linear: Vec<Affine>,
    assumed: Vec<Vec<Assumed>>,
) -> Shape {
    let has_ranges = raws.iter().any(|r| r.extent.is_some());
    // The subscripts of every access in constant dimensions `dims`.
    let split = |dims: &[u64]| -> Option<Shape> {
        let subscripts = split_all(tr, raws, &linear, dims, size)?;
        let sizes = dims.iter().map(|d| Affine::constant(*d as i128)).collect();
        Some((sizes, subscripts, assumed.clone()))
    };
    let declared = declared_shape(tr, raws, size).and_then(|dims| split(&dims));
    let fixed = if has_ranges || declared.is_some() {
        None
    } else {
        fixed_shape(tr, raws, size)
    };
    let inferred = strides_shape(&linear)
        .and_then(|dims| split(&dims).filter(|shape| constants_in_bounds(&shape.1, &dims)));
    // The declaration (GEP types) and LLVM's fixed-size delinearization may show
    // fewer dimensions than the strides (`[*][37]` for NPB's `rhs[5][37][37][37]`,
    // with a row subscript `37*i - j + p`): a finer shape that agrees with them on
    // the inner dimensions bounds more subscripts.
    let known = declared.or(fixed);
    let finer = match (&known, &inferred) {
        (Some(known), Some(inferred)) => {
            inferred.0.len() > known.0.len() && inferred.0.ends_with(&known.0)
        }
        _ => false,
    };
    if let Some(shape) = if finer { inferred } else { known.or(inferred) } {
        return shape;
    }
    (
        Vec::new(),
        linear.into_iter().map(|a| vec![a]).collect(),
        assumed,
    )
}

/// The shape of a parametric-size two-dimensional array some of whose accesses are
/// memcpy/memset ranges (`memset(out, 0, h * w * sizeof *out)` where LLVM turned the
/// loops that clear an image into one call): the row length comes from the other
/// accesses, and each range's start is split into row and column against it. Its
/// length is then either part of a row or whole rows from a row's start (see
/// `whole_rows`).
fn parametric_with_ranges<'f>(
    tr: &Translator<'_, 'f>,
    raws: &[RawAccess<'f>],
    size: u64,
) -> Option<Shape> {
    let points: Vec<RawAccess<'f>> = raws
        .iter()
        .filter(|r| r.extent.is_none())
        .cloned()
        .collect();
    if points.is_empty() {
        return None;
    }
    let (sizes, point_subscripts, point_assumed) = shape_of(tr, &points, size).ok()?;
    let [length] = sizes.as_slice() else {
        tr.take_assumed();
        return None;
    };
    let element = size as i128;
    let (mut subscripts, mut assumed) = (Vec::new(), Vec::new());
    let mut from_points = point_subscripts.into_iter().zip(point_assumed);
    for raw in raws {
        if raw.extent.is_none() {
            let (s, a) = from_points.next()?;
            subscripts.push(s);
            assumed.push(a);
            continue;
        }
        subscripts.push(row_and_column(tr, raw.offset, length, element)?);
        assumed.push(tr.take_assumed());
    }
    Some((sizes, subscripts, assumed))
}

/// The subscripts `[row, column]` of the byte offset `offset` in rows of `length`
/// elements of `element` bytes; `None` (with the assumptions made on the way dropped)
/// when it does not split so.
fn row_and_column<'f>(
    tr: &Translator<'_, 'f>,
    offset: Scev<'f>,
    length: &Affine,
    element: i128,
) -> Option<Vec<Affine>> {
    let split = tr.rows_of(offset, length).ok().and_then(|(row, column)| {
        Some(vec![
            row.divide_exact(element)?,
            column.divide_exact(element)?,
        ])
    });
    if split.is_none() {
        tr.take_assumed();
    }
    split
}

/// The number of rows a range of `bytes` covers when it is whole rows of a
/// two-dimensional array with these inner sizes, starting at the first column.
fn whole_rows<'f>(
    tr: &Translator<'_, 'f>,
    bytes: Scev<'f>,
    inner_sizes: &[Affine],
    start: &[Affine],
    size: u64,
) -> Option<Affine> {
    let ([length], [_, column]) = (inner_sizes, start) else {
        return None;
    };
    if column.as_constant() != Some(0) {
        return None;
    }
    let (rows, rest) = tr.rows_of(bytes, length).ok()?;
    let rows = rows.divide_exact(size as i128)?;
    (rest.as_constant() == Some(0) && rows.max_counter().is_none()).then_some(rows)
}

/// The parametric shape LLVM's delinearization gives, and each access's subscripts.
fn parametric_shape<'f>(
    tr: &Translator<'_, 'f>,
    raws: &[RawAccess<'f>],
    size: u64,
) -> Result<Shape, Rejection> {
    let fa = tr.fa();
    let fail = |why: String| Rejection::new(RejectReason::NonAffineSubscript, why);
    let Some(parts) = parametric_parts(tr, raws, size) else {
        let bad = raws
            .iter()
            .find(|r| tr.affine(r.offset).is_err())
            .unwrap_or(&raws[0]);
        tr.take_assumed();
        return Err(fail(with_ir(fa, access_text(fa, bad.inst), || {
            format!(
                "byte offset {} in {}",
                bad.offset.llvm_text(),
                instruction_text(bad.inst)
            )
        })));
    };
    // Every part must give the same sizes, as affine expressions: `sext i32 %w` in one
    // stage and `zext i32 %w` in another (LLVM writes `zext nneg`, and ScalarEvolution
    // forgets the nneg) are both the parameter `w`, the zero extension under the
    // assumption `w >= 0` that its translation records (and the run-time check tests
    // where the statement runs).
    let mut inner_sizes: Option<Vec<Affine>> = None;
    for (_, d) in &parts {
        let mut sizes = Vec::new();
        for s in &d.inner_sizes {
            let a = tr
                .affine(*s)
                .map_err(|e| fail(format!("array size: {e}")))?;
            if a.max_counter().is_some() {
                return Err(fail(format!(
                    "array size {} varies in the loop nest",
                    describe_scev(fa, *s)
                )));
            }
            sizes.push(a);
        }
        match &inner_sizes {
            None => inner_sizes = Some(sizes),
            Some(known) if *known == sizes => {}
            Some(_) => {
                tr.take_assumed();
                return Err(fail(format!(
                    "the loop nests see different sizes of the array accessed by the {}",
                    describe_access(fa, raws[0].inst)
                )));
            }
        }
    }
    let inner_sizes = inner_sizes.unwrap_or_default();
    let size_assumed = tr.take_assumed();
    let mut subscripts = vec![Vec::new(); raws.len()];
    let mut assumed = vec![Vec::new(); raws.len()];
    for (members, d) in &parts {
        for (index, subs) in members.iter().zip(&d.subscripts) {
            let raw = &raws[*index];
            let mut translated = Vec::new();
            for s in subs {
                translated.push(
                    tr.affine(*s).map_err(|e| {
                        fail(format!("{e} in the {}", describe_access(fa, raw.inst)))
                    })?,
                );
            }
            into_rows_before(&mut translated, &inner_sizes);
            let mut a = tr.take_assumed();
            a.extend(size_assumed.iter().cloned());
            subscripts[*index] = translated;
            assumed[*index] = a;
        }
    }
    Ok((inner_sizes, subscripts, assumed))
}

/// LLVM's delinearization keeps the constant part of an offset in the last subscript,
/// so the last element of a row, `U[t*n + n - 1]`, comes out as `U[t + 1][-1]`: outside
/// its dimension wherever it runs, so the in-bounds assumption never holds and the
/// whole region would stay as it is. The same address is the element `n - 1` of the row
/// before, `U[t][n - 1]`; a negative constant subscript is moved there (its in-bounds
/// assumption, `n >= 1`, is then tested by the run-time check like any other).
fn into_rows_before(subscripts: &mut [Affine], inner_sizes: &[Affine]) {
    for d in (1..subscripts.len()).rev() {
        let Some(column) = subscripts[d].as_constant().filter(|c| *c < 0) else {
            continue;
        };
        let Some(size) = inner_sizes.get(d - 1) else {
            continue;
        };
        let moved = size.add(&Affine::constant(column));
        let row = subscripts[d - 1].add(&Affine::constant(-1));
        if let (Some(moved), Some(row)) = (moved, row) {
            subscripts[d] = moved;
            subscripts[d - 1] = row;
        }
    }
}

/// Two-dimensional subscripts `[row, column]` of a parametric-size array some of whose
/// accesses are clamped (`in[y * w + min(max(x - 2, 0), w - 1)]`): the row length is
/// the one LLVM's delinearization finds for the accesses it can take apart, and every
/// offset is split against it (`Translator::rows_of`). A clamped subscript is a
/// piecewise-affine function of the counters; isl reads the minima and maxima as such.
/// Whether each column lies in its row is assumed like any split (`bounds_conditions`).
///
/// Only arrays with a clamped access (or a row that is a quotient, `(y / 2) * w`), or a
/// row that is a product of values fixed in the region (the last row of a table,
/// `D[n * w + j]`, which is not affine as a whole), take this way: other offsets LLVM
/// cannot take apart (a diagonal `A[j * n + j]`) keep the regions they had.
fn clamped_rows<'f>(tr: &Translator<'_, 'f>, raws: &[RawAccess<'f>], size: u64) -> Option<Shape> {
    let fa = tr.fa();
    if !raws
        .iter()
        .any(|r| has_extremum(r.offset, 0) || has_invariant_product(r.offset, 0))
    {
        return None;
    }
    // The length LLVM finds for one access on its own, else a size that multiplies
    // a row (`w` in `(y / 2) * w`).
    let delinearized = raws.iter().find_map(|raw| {
        let d = fa.delinearize_parametric(&[raw.offset], size)?;
        let [length] = d.inner_sizes.as_slice() else {
            return None;
        };
        Some(*length)
    });
    let mut factors = Vec::new();
    for raw in raws {
        row_factors(raw.offset, &mut factors, 0);
    }
    let length = delinearized
        .into_iter()
        .chain(factors)
        .find_map(|l| tr.affine(l).ok().filter(|a| a.max_counter().is_none()))?;
    let length_assumed = tr.take_assumed();
    let element = size as i128;
    let mut subscripts = Vec::new();
    let mut assumed = Vec::new();
    for raw in raws {
        subscripts.push(row_and_column(tr, raw.offset, &length, element)?);
        let mut a = tr.take_assumed();
        a.extend(length_assumed.iter().cloned());
        assumed.push(a);
    }
    Some((vec![length], subscripts, assumed))
}

/// The factors of products in `scev` that are values fixed in the region, possibly
/// extended (`zext i32 %w`): candidate row lengths.
fn row_factors<'f>(scev: Scev<'f>, out: &mut Vec<Scev<'f>>, depth: u32) {
    if depth > 16 {
        return;
    }
    let ops = scev.operands();
    if scev.kind() == ScevKind::Mul {
        for op in &ops {
            let leaf = match op.kind() {
                ScevKind::ZeroExtend | ScevKind::SignExtend => op.operands()[0],
                _ => *op,
            };
            if leaf.kind() == ScevKind::Unknown && !out.contains(op) {
                out.push(*op);
            }
        }
    }
    for op in ops {
        row_factors(op, out, depth + 1);
    }
}

/// Whether a product of two or more values fixed in the region (no loop counter in
/// either, no constant) occurs in `scev`: `n * w`, possibly extended.
fn has_invariant_product(scev: Scev<'_>, depth: u32) -> bool {
    if depth > 32 {
        return false;
    }
    let ops = scev.operands();
    let invariant = |s: &Scev<'_>| s.kind() != ScevKind::Constant && !has_add_rec(*s, 0);
    (scev.kind() == ScevKind::Mul && ops.iter().filter(|op| invariant(op)).count() >= 2)
        || ops
            .into_iter()
            .any(|op| has_invariant_product(op, depth + 1))
}

/// Whether a loop's counter (an add recurrence) occurs in `scev`.
fn has_add_rec(scev: Scev<'_>, depth: u32) -> bool {
    depth <= 32
        && (scev.kind() == ScevKind::AddRec
            || scev
                .operands()
                .into_iter()
                .any(|op| has_add_rec(op, depth + 1)))
}

/// Whether a minimum, maximum or division occurs in `scev`.
fn has_extremum(scev: Scev<'_>, depth: u32) -> bool {
    depth <= 32
        && (matches!(
            scev.kind(),
            ScevKind::SMax | ScevKind::SMin | ScevKind::UMax | ScevKind::UMin | ScevKind::UDiv
        ) || scev
            .operands()
            .into_iter()
            .any(|op| has_extremum(op, depth + 1)))
}

/// LLVM's parametric delinearization of the offsets `raws`, as parts that each list the
/// indices of their accesses: one part for all of them when LLVM finds one shape for
/// all offsets at once; else one per outermost loop of the region (a stage of a
/// pipeline, with the code before it), when each of these has a shape of the same
/// number of dimensions. The stages of a pipeline may spell a size differently (`sext
/// i32 %w` and `zext i32 %w`): LLVM then sees two unrelated sizes and gives up on the
/// whole set, while each stage has its own consistent shape (their translations are
/// compared by the caller).
fn parametric_parts<'f>(
    tr: &Translator<'_, 'f>,
    raws: &[RawAccess<'f>],
    size: u64,
) -> Option<Vec<(Vec<usize>, crate::llvm::Delinearized<'f>)>> {
    let fa = tr.fa();
    let shape = tr.shape();
    let offsets: Vec<_> = raws.iter().map(|r| r.offset).collect();
    if let Some(d) = fa.delinearize_parametric(&offsets, size) {
        return Some(vec![((0..raws.len()).collect(), d)]);
    }
    // Accesses outside every loop go with the nest that follows them.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut keys: Vec<usize> = Vec::new();
    for (index, raw) in raws.iter().enumerate() {
        let position = shape.position(raw.block)?;
        let key = shape
            .top
            .iter()
            .position(|l| {
                l.contains_block(raw.block)
                    || shape.position(l.header()).is_some_and(|h| h > position)
            })
            .unwrap_or(shape.top.len());
        match keys.iter().position(|k| *k == key) {
            Some(g) => groups[g].push(index),
            None => {
                keys.push(key);
                groups.push(vec![index]);
            }
        }
    }
    if groups.len() < 2 {
        return None;
    }
    let mut parts = Vec::new();
    for members in groups {
        let offsets: Vec<_> = members.iter().map(|i| raws[*i].offset).collect();
        let d = fa.delinearize_parametric(&offsets, size)?;
        if parts
            .first()
            .is_some_and(|(_, first): &(Vec<usize>, crate::llvm::Delinearized<'f>)| {
                first.inner_sizes.len() != d.inner_sizes.len()
            })
        {
            return None;
        }
        parts.push((members, d));
    }
    Some(parts)
}

/// The dimensions the source declared (`double A[N][M]`), from the GEP types of the
/// accesses, when all accesses that show one agree.
fn declared_shape<'f>(
    tr: &Translator<'_, 'f>,
    raws: &[RawAccess<'f>],
    size: u64,
) -> Option<Vec<u64>> {
    let mut shape: Option<Vec<u64>> = None;
    for raw in raws {
        let Some((dims, element)) = gep_array_shape(tr.fa(), raw.pointer) else {
            continue;
        };
        if element != size {
            return None;
        }
        match &shape {
            None => shape = Some(dims),
            Some(s) if *s == dims => {}
            Some(_) => return None,
        }
    }
    shape
}

/// Most inner dimensions `strides_shape` infers: NPB's `lhs[5][3][37][37][37]` flattened.
const MAX_INFERRED_DIMS: usize = 4;

/// Inner dimension sizes read off the strides of flat accesses, when neither the
/// declaration nor LLVM gives a shape, or a coarser one (`lhs[102713 + 37*j + k]` next to
/// `lhs[4145 + 1369*i + 37*j + k]`, from a global `lhs[..][37][37]` whose GEPs LLVM
/// flattened): the distinct coefficients of all indices, `1369 > 37 > 1`, must each
/// divide the next larger one, and their ratios are the sizes, `[37, 37]` (a smallest
/// coefficient above 1 is a dimension of its own: `5*i` with constant offsets 0..4 is
/// `[*][5]`). `None` when there is no such chain or a single stride (nothing to split).
///
/// Like every split, whether each subscript stays in its dimension is an assumption
/// checked at run time: a flat array walked across its rows on purpose runs the
/// original code. In exchange, loops bounded by loaded values get bounds from the
/// assumptions, and dependences between rows need no division by the row length
/// (which made isl spend seconds per region on NPB's SP).
fn strides_shape(linear: &[Affine]) -> Option<Vec<u64>> {
    let mut strides: Vec<i128> = linear
        .iter()
        .flat_map(|index| index.terms.values().map(|c| c.abs()))
        .filter(|c| *c > 0)
        .collect();
    strides.sort_unstable();
    strides.dedup();
    if strides.first() != Some(&1) {
        strides.insert(0, 1);
    }
    if strides.len() < 2 || strides.len() > MAX_INFERRED_DIMS + 1 {
        return None;
    }
    let mut dims = Vec::new();
    for pair in strides.windows(2).rev() {
        if pair[1] % pair[0] != 0 {
            return None;
        }
        dims.push(u64::try_from(pair[1] / pair[0]).ok()?);
    }
    Some(dims)
}

/// Whether every constant subscript of an inner dimension lies in it: a split that puts
/// one outside gives an assumption that never holds, worse than no split.
fn constants_in_bounds(subscripts: &[Vec<Affine>], dims: &[u64]) -> bool {
    subscripts.iter().all(|subs| {
        subs.iter()
            .skip(1)
            .zip(dims)
            .all(|(s, m)| s.as_constant().is_none_or(|c| 0 <= c && c < i128::from(*m)))
    })
}

/// Subscripts of every access in the declared shape; a memcpy/memset range must stay
/// within one innermost row.
fn split_all<'f>(
    tr: &Translator<'_, 'f>,
    raws: &[RawAccess<'f>],
    linear: &[Affine],
    dims: &[u64],
    size: u64,
) -> Option<Vec<Vec<Affine>>> {
    let mut out = Vec::new();
    for (raw, index) in raws.iter().zip(linear) {
        let subs = split_index(index, dims, raw.from_origin)?;
        if let Some(extent) = raw.extent {
            let elements = tr.affine(extent).ok()?.divide_exact(size as i128)?;
            tr.take_assumed();
            let last = index.add(&elements)?.sub(&Affine::constant(1))?;
            let end = split_index(&last, dims, raw.from_origin)?;
            if end[..end.len() - 1] != subs[..subs.len() - 1] {
                return None;
            }
        }
        out.push(subs);
    }
    Some(out)
}

/// Splits a linear element index into subscripts of an array with these inner
/// dimension sizes, innermost first, so that each subscript lies in its dimension
/// wherever the source's did:
/// - a coefficient `c` is matched against the dimension's size `m` as `c = q*m + r`
///   with the remainder closest to zero: `q` goes outward, `r` stays (`A[i][i]` in
///   `[*][1024]` is `1025*i`: `i` in both dimensions; `A[i][1023 - i]` is
///   `1023*i + 1023`: `-i` stays, `i` goes outward);
/// - the constant is split by floor division when what stays is a constant alone (the
///   only split in bounds: `u[k][j][i][3]` in `[*][5]` is 3, not -2 with 1 carried
///   out), or a sum of loop counters in an access that runs at the first iteration of
///   its loops (`from_origin`): counters count from 0, so there the subscript is that
///   constant alone, and an in-bounds access needs it in `[0, m)`;
/// - otherwise (parameters or other unknown atoms in what stays, or an access under a
///   condition that may skip the first iteration) the constant is split so that it is
///   closest to zero (`A[p][q - 1]`: `q - 1`, not `q + m - 1` in row `p - 1`).
///
/// Whether each subscript then lies in its dimension is an assumption of the model (see
/// `bounds_conditions`), so a wrong split costs a failed run-time check, never a wrong
/// result: the split always gives back the same linear index.
pub(crate) fn split_index(index: &Affine, dims: &[u64], from_origin: bool) -> Option<Vec<Affine>> {
    let mut rest = index.clone();
    let mut subs = Vec::new();
    for &m in dims.iter().rev() {
        let m = i128::from(m);
        if m <= 0 {
            return None;
        }
        let mut inner = Affine::constant(0);
        let mut outer = Affine::constant(0);
        for (atom, c) in &rest.terms {
            let (q, r) = nearest_division(*c, m)?;
            let term = Affine::atom(atom.clone());
            outer = outer.add(&term.scale(q)?)?;
            inner = inner.add(&term.scale(r)?)?;
        }
        let exact = inner.terms.is_empty()
            || (from_origin && inner.terms.keys().all(|a| matches!(a, Atom::Counter(_))));
        let q = if exact {
            rest.constant.div_euclid(m)
        } else {
            nearest_division(rest.constant, m)?.0
        };
        inner = inner.add(&Affine::constant(
            rest.constant.checked_sub(q.checked_mul(m)?)?,
        ))?;
        outer = outer.add(&Affine::constant(q))?;
        subs.push(inner);
        rest = outer;
    }
    subs.push(rest);
    subs.reverse();
    Some(subs)
}

/// `(q, r)` with `c = q*m + r` and `-m/2 < r <= m/2`, for `m > 0`; `None` on overflow.
fn nearest_division(c: i128, m: i128) -> Option<(i128, i128)> {
    let mut r = c.rem_euclid(m);
    if r > m - r {
        r -= m;
    }
    Some((c.checked_sub(r)? / m, r))
}

/// Whether a statement, whenever it runs, runs at the point where all its loop
/// counters are 0: it has no condition of its own, and each loop around it has an upper
/// bound that does not depend on outer counters (so it runs its iteration 0 whenever it
/// runs at all) or one that is a constant `>= 0` when they are 0. A triangular inner
/// loop (`j < i`) that is empty for `i = 0` starts elsewhere.
fn runs_from_origin<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    bounds: Option<&[(Loop<'f>, LoopBounds)]>,
    statement: BasicBlock<'f>,
) -> bool {
    let Some(bounds) = bounds else {
        return false;
    };
    if !matches!(conditions.conds.get(&statement), None | Some(Cond::True)) {
        return false;
    }
    tr.shape().loops_around(tr.fa(), statement).iter().all(|l| {
        match bounds.iter().find(|(b, _)| b == l) {
            Some((_, b)) => {
                b.upper.max_counter().is_none()
                    || (b.upper.constant >= 0
                        && b.upper.terms.keys().all(|a| matches!(a, Atom::Counter(_))))
            }
            None => false,
        }
    })
}

/// Constant-size dimensions, if LLVM finds the same ones for every access.
fn fixed_shape<'f>(tr: &Translator<'_, 'f>, raws: &[RawAccess<'f>], size: u64) -> Option<Shape> {
    let fa = tr.fa();
    let mut sizes: Option<Vec<i128>> = None;
    let mut subscripts = Vec::new();
    let mut assumed = Vec::new();
    for raw in raws {
        let d = fa.delinearize_fixed(raw.offset, size)?;
        let these: Vec<i128> = d
            .inner_sizes
            .iter()
            .map(|s| s.constant().map(|c| c as i128))
            .collect::<Option<_>>()?;
        match &sizes {
            None => sizes = Some(these),
            Some(s) if *s == these => {}
            Some(_) => return None,
        }
        let subs = d.subscripts.first()?;
        let translated: Vec<Affine> = subs
            .iter()
            .map(|s| tr.affine(*s).ok())
            .collect::<Option<_>>()?;
        subscripts.push(translated);
        assumed.push(tr.take_assumed());
    }
    let sizes = sizes?;
    Some((
        sizes.into_iter().map(Affine::constant).collect(),
        subscripts,
        assumed,
    ))
}

/// `0 <= s_k < size_k` for every dimension after the first, except where both are
/// constants and it holds (`u[k][j][i][3]` in `[*][5]`): nothing to check at run time.
fn bounds_conditions(subscripts: &[Affine], inner_sizes: &[Affine]) -> Vec<InBounds> {
    subscripts
        .iter()
        .enumerate()
        .skip(1)
        .zip(inner_sizes)
        .filter_map(|((dimension, s), n)| within(dimension, s, n))
        .collect()
}

/// `0 <= s < n` for subscript `dimension`, unless both are constants and it holds.
fn within(dimension: usize, s: &Affine, n: &Affine) -> Option<InBounds> {
    if let (Some(s), Some(n)) = (s.as_constant(), n.as_constant()) {
        if 0 <= s && s < n {
            return None;
        }
    }
    Some(InBounds {
        dimension,
        size: n.clone(),
        range_end: false,
        cond: Cond::Cmp(s.clone(), CmpOp::Ge, Affine::constant(0)).and(Cond::Cmp(
            s.clone(),
            CmpOp::Lt,
            n.clone(),
        )),
    })
}

/// Rows of the outermost dimension when the array is a global variable of known size
/// and its inner sizes are constants: an access outside the object is undefined, so its
/// outermost subscript too is assumed in bounds (checked at run time like the others).
/// Loops over NPB's `rhs[m][i][j][k]`, up to bounds loaded from memory, then get trip
/// counts, and the locality estimate numbers instead of "unbounded".
fn global_rows(
    fa: &crate::llvm::FunctionAnalyses<'_>,
    base: LLVMValueRef,
    element: u64,
    inner_sizes: &[Affine],
) -> Option<Affine> {
    let bytes = i128::from(global_object_bytes(fa, base)?);
    let mut row = i128::from(element);
    for size in inner_sizes {
        row = row.checked_mul(size.as_constant()?)?;
    }
    (row > 0 && bytes % row == 0).then(|| Affine::constant(bytes / row))
}

fn unique(used: &mut HashSet<String>, base: String) -> String {
    let mut name = base.clone();
    let mut k = 1;
    while !used.insert(name.clone()) {
        name = format!("{base}_{k}");
        k += 1;
    }
    name
}

fn type_name(ty: inkwell::llvm_sys::prelude::LLVMTypeRef) -> String {
    // SAFETY: printing a live type; the message is disposed after copying.
    unsafe {
        let raw = inkwell::llvm_sys::core::LLVMPrintTypeToString(ty);
        let text = std::ffi::CStr::from_ptr(raw).to_string_lossy().into_owned();
        inkwell::llvm_sys::core::LLVMDisposeMessage(raw);
        text
    }
}

/// Whether ScalarEvolution can recompute the value anywhere in the region from loop
/// counters and values defined before the region, so it needs no scalar access.
pub(super) fn synthesizable<'f>(tr: &Translator<'_, 'f>, inst: InstructionValue<'f>) -> bool {
    let fa = tr.fa();
    if !fa.is_scevable(&inst) {
        return false;
    }
    let scope = inst.get_parent().and_then(|b| fa.loop_for_block(b));
    let scev = fa.scev_at_scope(fa.scev(&inst), scope);
    recomputable(tr, scev, 0)
}

fn recomputable<'f>(tr: &Translator<'_, 'f>, scev: Scev<'f>, depth: u32) -> bool {
    if depth > 64 {
        return false;
    }
    match scev.kind() {
        ScevKind::CouldNotCompute => false,
        ScevKind::Unknown => {
            let inst = scev.unknown_value().and_then(as_instruction);
            let inside = inst
                .and_then(|i| i.get_parent())
                .is_some_and(|b| tr.shape().contains_block(b));
            // A load used as a parameter is loaded once before the region.
            !inside || inst.is_some_and(|i| tr.invariant_loads().contains(&i))
        }
        _ => scev
            .operands()
            .into_iter()
            .all(|o| recomputable(tr, o, depth + 1)),
    }
}

/// Adds scalar accesses for SSA values crossing statements and lays all accesses out
/// in statement order.
fn order_with_scalars<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    arrays: &mut Vec<Array>,
    memory: HashMap<InstructionValue<'f>, Vec<Access<'f>>>,
    used_names: &mut HashSet<String>,
) -> Vec<Access<'f>> {
    let mut scalars = Scalars {
        tr,
        conditions,
        arrays,
        used_names,
        reads: BTreeMap::new(),
        writes: BTreeMap::new(),
    };
    let fa = tr.fa();
    for block in &tr.shape().blocks {
        for inst in block.get_instructions() {
            let name = sanitize(&fa.operand_name(&inst));
            if inst.get_opcode() == InstructionOpcode::Phi {
                scalars.phi(*block, inst, name);
            } else {
                scalars.value(*block, inst, name);
            }
        }
    }
    scalars.exit_phis();
    scalars.lay_out(memory)
}

/// The scalar accesses of a region being found: the scalars made so far and, per
/// statement position, their reads and writes (array index, instruction text).
struct Scalars<'a, 't, 'f> {
    tr: &'a Translator<'t, 'f>,
    conditions: &'a BlockConditions<'f>,
    arrays: &'a mut Vec<Array>,
    used_names: &'a mut HashSet<String>,
    reads: BTreeMap<usize, Vec<(usize, String)>>,
    writes: BTreeMap<usize, Vec<(usize, String)>>,
}

impl<'f> Scalars<'_, '_, 'f> {
    fn stmt(&self, b: BasicBlock<'f>) -> BasicBlock<'f> {
        self.conditions.statement_block(b)
    }

    fn position(&self, b: BasicBlock<'f>) -> usize {
        self.tr.shape().position(self.stmt(b)).unwrap_or(usize::MAX)
    }

    /// A new scalar array for `value`; its index.
    fn scalar(&mut self, name: String, value: LLVMValueRef) -> usize {
        let ty = type_of(value);
        self.arrays.push(Array {
            name: unique(self.used_names, name),
            element_type: type_name(ty),
            element_size: self.tr.fa().value_store_size(value).unwrap_or(0),
            inner_sizes: Vec::new(),
            is_scalar: true,
            base: None,
            value: Some(value),
            written: true,
        });
        self.arrays.len() - 1
    }

    fn read(&mut self, at: BasicBlock<'f>, array: usize, text: &str) {
        let position = self.position(at);
        self.reads
            .entry(position)
            .or_default()
            .push((array, text.to_string()));
    }

    fn write(&mut self, at: BasicBlock<'f>, array: usize, text: &str) {
        let position = self.position(at);
        self.writes
            .entry(position)
            .or_default()
            .push((array, text.to_string()));
    }

    /// A phi merging values of other statements: a scalar its statement reads and each
    /// statement it comes from writes.
    fn phi(&mut self, block: BasicBlock<'f>, inst: InstructionValue<'f>, name: String) {
        if synthesizable(self.tr, inst) {
            return;
        }
        let incoming = phi_incoming(inst);
        if incoming
            .iter()
            .all(|(_, p)| self.stmt(*p) == self.stmt(block))
        {
            // A merge of values computed inside one statement: a value like any other
            // for the statements that use it.
            self.value(block, inst, name);
            return;
        }
        let a = self.scalar(format!("{name}__phi"), inst.as_value_ref());
        let text = self.tr.fa().instruction_text(inst);
        self.read(block, a, &text);
        let mut writers = HashSet::new();
        for (_, pred) in incoming {
            if self.tr.shape().contains_block(pred) && writers.insert(self.stmt(pred)) {
                self.write(pred, a, &text);
            }
        }
        // Other statements that use the merged value read it too (an LCSSA copy of a
        // loop's sum read by a later loop): without these reads, the statements that
        // write the value were not ordered before them.
        let crossing = self.crossing_uses(block, inst);
        self.read_in(&crossing, a, &text);
    }

    /// A value used in other statements (or after the region): a scalar its statement
    /// writes and each statement using it reads.
    fn value(&mut self, block: BasicBlock<'f>, inst: InstructionValue<'f>, name: String) {
        if inst.get_type().is_void_type() || synthesizable(self.tr, inst) {
            return;
        }
        let crossing = self.crossing_uses(block, inst);
        if crossing.is_empty() {
            return;
        }
        let a = self.scalar(format!("{name}__s"), inst.as_value_ref());
        let text = self.tr.fa().instruction_text(inst);
        self.write(block, a, &text);
        self.read_in(&crossing, a, &text);
    }

    /// Blocks outside the statement of `block` where `inst` (defined there) is used.
    fn crossing_uses(
        &self,
        block: BasicBlock<'f>,
        inst: InstructionValue<'f>,
    ) -> Vec<BasicBlock<'f>> {
        self.use_blocks(inst)
            .into_iter()
            .filter(|b| self.stmt(*b) != self.stmt(block))
            .collect()
    }

    /// A read of scalar `array` in each statement of the region among `blocks`.
    fn read_in(&mut self, blocks: &[BasicBlock<'f>], array: usize, text: &str) {
        let mut seen = HashSet::new();
        for b in blocks {
            if self.tr.shape().contains_block(*b) && seen.insert(self.stmt(*b)) {
                self.read(*b, array, text);
            }
        }
    }

    /// Blocks where the value is used, phis using it at their incoming edge.
    fn use_blocks(&self, inst: InstructionValue<'f>) -> Vec<BasicBlock<'f>> {
        let shape = self.tr.shape();
        let mut use_blocks = Vec::new();
        for user in users(&inst) {
            let after_region = user.get_parent().filter(|b| !shape.contains_block(*b));
            if let Some(b) = after_region {
                // Code after the region reads the last value the region made.
                use_blocks.push(b);
            } else if user.get_opcode() == InstructionOpcode::Phi {
                for (v, pred) in phi_incoming(user) {
                    if v == inst.as_value_ref() {
                        use_blocks.push(pred);
                    }
                }
            } else if let Some(b) = user.get_parent() {
                // A branch whose condition became part of the domains (or a loop
                // bound) does not read the value at run time of the model.
                let in_domain = user.get_opcode() == InstructionOpcode::Br
                    && !self.conditions.absorbed.values().any(|rep| *rep == b);
                if !in_domain {
                    use_blocks.push(b);
                }
            }
        }
        use_blocks
    }

    /// A phi after the region that takes different values depending on the path out
    /// of it (`s = 0` when a guard skips the loop, the sum otherwise) is a scalar each
    /// of those paths writes: the code after the region reads the last write.
    fn exit_phis(&mut self) {
        let fa = self.tr.fa();
        let shape = self.tr.shape();
        for phi in crate::llvm::builder::phis_of(shape.exit) {
            let incoming: Vec<_> = phi_incoming(phi)
                .into_iter()
                .filter(|(_, pred)| shape.contains_block(*pred))
                .collect();
            if incoming.iter().all(|(v, _)| *v == incoming[0].0) {
                continue;
            }
            let name = sanitize(&fa.operand_name(&phi));
            let a = self.scalar(format!("{name}__phi"), phi.as_value_ref());
            let text = fa.instruction_text(phi);
            let mut writers = HashSet::new();
            for (_, pred) in incoming {
                if writers.insert(self.stmt(pred)) {
                    self.write(pred, a, &text);
                }
            }
        }
    }

    /// Every access in statement order: per block, the scalar reads, the memory
    /// accesses in instruction order, the scalar writes.
    fn lay_out(
        mut self,
        mut memory: HashMap<InstructionValue<'f>, Vec<Access<'f>>>,
    ) -> Vec<Access<'f>> {
        let mut out = Vec::new();
        for (index, original) in self.tr.shape().blocks.iter().enumerate() {
            let block = self.stmt(*original);
            let scalar_access = |kind, (array, text): (usize, String)| Access {
                block,
                kind,
                array,
                subscripts: Vec::new(),
                extent: None,
                rows: None,
                assumed: Vec::new(),
                in_bounds: Vec::new(),
                text,
                inst: None,
            };
            for r in self.reads.remove(&index).unwrap_or_default() {
                out.push(scalar_access(AccessKind::Read, r));
            }
            for inst in original.get_instructions() {
                out.extend(memory.remove(&inst).unwrap_or_default());
            }
            for w in self.writes.remove(&index).unwrap_or_default() {
                out.push(scalar_access(AccessKind::MustWrite, w));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{constants_in_bounds, split_index, strides_shape};
    use crate::detect::affine::Affine;

    fn counter_plus(depth: usize, coefficient: i128, constant: i128) -> Affine {
        Affine::counter(depth)
            .scale(coefficient)
            .and_then(|a| a.add(&Affine::constant(constant)))
            .expect("small numbers")
    }

    #[test]
    fn strides_of_flat_accesses_give_the_inner_dimensions() {
        // lhs[102713 + 37*i0 + i1] and lhs[4145 + 1369*i0 + 37*i1 + i2].
        let two = linear(&[37, 1], 102713);
        let three = linear(&[1369, 37, 1], 4145);
        assert_eq!(strides_shape(&[two.clone(), three]), Some(vec![37, 37]));
        assert_eq!(strides_shape(&[two]), Some(vec![37]));
        // u[i][m] in [*][5] with the loop over m unrolled: stride 5, constants 0..4.
        assert_eq!(strides_shape(&[linear(&[5], 3)]), Some(vec![5]));
        // A single unit stride: nothing to split; strides that do not divide: no shape.
        assert_eq!(strides_shape(&[linear(&[1], 7)]), None);
        assert_eq!(
            strides_shape(&[linear(&[37, 1], 0), linear(&[50, 1], 0)]),
            None
        );
    }

    #[test]
    fn a_split_with_a_constant_outside_its_dimension_is_not_used() {
        let subs = vec![vec![Affine::constant(0), Affine::constant(4)]];
        assert!(constants_in_bounds(&subs, &[5]));
        let subs = vec![vec![Affine::constant(0), Affine::constant(5)]];
        assert!(!constants_in_bounds(&subs, &[5]));
    }

    #[test]
    fn split_of_row_major_index_recovers_both_subscripts() {
        // U[i+1][j-1] in a [*][512] array: 512*i + j + 511, in an access that may not
        // run at j = 0 (else j - 1 would leave the row there).
        let index = counter_plus(0, 512, 511).add(&Affine::counter(1)).unwrap();
        let subs = split_index(&index, &[512], false).unwrap();
        assert_eq!(subs[0], counter_plus(0, 1, 1));
        assert_eq!(subs[1], counter_plus(1, 1, -1));
    }

    #[test]
    fn split_keeps_small_negative_offsets_in_the_inner_dimension() {
        // A[i][j-1]: 512*i + j - 1, in an access that may not run at j = 0.
        let index = counter_plus(0, 512, -1).add(&Affine::counter(1)).unwrap();
        let subs = split_index(&index, &[512], false).unwrap();
        assert_eq!(subs[0], Affine::counter(0));
        assert_eq!(subs[1], counter_plus(1, 1, -1));
    }

    #[test]
    fn split_of_three_dimensions_goes_innermost_first() {
        // A[i][j][k] in [*][10][20]: 200*i + 20*j + k.
        let index = Affine::counter(0)
            .scale(200)
            .unwrap()
            .add(&Affine::counter(1).scale(20).unwrap())
            .unwrap()
            .add(&Affine::counter(2))
            .unwrap();
        let subs = split_index(&index, &[10, 20], true).unwrap();
        assert_eq!(
            subs,
            vec![Affine::counter(0), Affine::counter(1), Affine::counter(2)]
        );
    }

    /// `sum(coefficient * counter) + constant` over counters 0, 1, ...
    fn linear(coefficients: &[i128], constant: i128) -> Affine {
        let mut a = Affine::constant(constant);
        for (depth, c) in coefficients.iter().enumerate() {
            a = a.add(&Affine::counter(depth).scale(*c).unwrap()).unwrap();
        }
        a
    }

    /// `double u[25][25][25][5]` indexed `u[k][j][i][m]`: strides 3125, 125, 5, 1.
    const U_DIMS: [u64; 3] = [25, 25, 5];

    #[test]
    fn split_keeps_a_constant_last_subscript_in_its_dimension() {
        // u[k][j][i][3]: 3 stays in the last dimension, not -2 with 1 carried to i.
        let subs = split_index(&linear(&[3125, 125, 5], 3), &U_DIMS, true).unwrap();
        assert_eq!(
            subs,
            vec![
                Affine::counter(0),
                Affine::counter(1),
                Affine::counter(2),
                Affine::constant(3)
            ]
        );
    }

    #[test]
    fn split_carries_an_offset_to_the_dimension_it_belongs_to() {
        // u[k][j][i+1][4]: 5 + 4 = 9 is one step of i and 4.
        let subs = split_index(&linear(&[3125, 125, 5], 9), &U_DIMS, true).unwrap();
        assert_eq!(subs[2], counter_plus(2, 1, 1));
        assert_eq!(subs[3], Affine::constant(4));
        // u[k-1][j][i][2]: -3125 + 2 is one step back in k and 2.
        let subs = split_index(&linear(&[3125, 125, 5], -3123), &U_DIMS, true).unwrap();
        assert_eq!(
            subs,
            vec![
                counter_plus(0, 1, -1),
                Affine::counter(1),
                Affine::counter(2),
                Affine::constant(2)
            ]
        );
        // u[k][j+1][i+2][1]: 125 + 10 + 1.
        let subs = split_index(&linear(&[3125, 125, 5], 136), &U_DIMS, true).unwrap();
        assert_eq!(subs[1], counter_plus(1, 1, 1));
        assert_eq!(subs[2], counter_plus(2, 1, 2));
        assert_eq!(subs[3], Affine::constant(1));
    }

    #[test]
    fn split_of_counters_from_their_first_iteration_keeps_large_offsets_inside() {
        // A[i][j+300] in [*][512], run from i = j = 0: j + 300 is the subscript there.
        let index = linear(&[512, 1], 300);
        let subs = split_index(&index, &[512], true).unwrap();
        assert_eq!(subs, vec![Affine::counter(0), counter_plus(1, 1, 300)]);
        // Without that knowledge the offset closest to zero wins.
        let subs = split_index(&index, &[512], false).unwrap();
        assert_eq!(subs, vec![counter_plus(0, 1, 1), counter_plus(1, 1, -212)]);
    }

    #[test]
    fn split_of_a_constant_subscript_does_not_depend_on_the_first_iteration() {
        // u[k][j][i][3] with k, j, i parameters: only 3 lies in [0, 5).
        let index = Affine::param(0)
            .scale(3125)
            .unwrap()
            .add(&Affine::param(1).scale(125).unwrap())
            .unwrap()
            .add(&Affine::param(2).scale(5).unwrap())
            .unwrap()
            .add(&Affine::constant(3))
            .unwrap();
        let subs = split_index(&index, &U_DIMS, false).unwrap();
        assert_eq!(subs[2], Affine::param(2));
        assert_eq!(subs[3], Affine::constant(3));
    }

    #[test]
    fn split_of_parameter_subscripts_with_a_constant_last_one() {
        // u[k][j][i][3] with k and j parameters of the region (loops outside it).
        let index = Affine::param(0)
            .scale(3125)
            .unwrap()
            .add(&Affine::param(1).scale(125).unwrap())
            .unwrap()
            .add(&counter_plus(0, 5, 3))
            .unwrap();
        let subs = split_index(&index, &U_DIMS, true).unwrap();
        assert_eq!(
            subs,
            vec![
                Affine::param(0),
                Affine::param(1),
                Affine::counter(0),
                Affine::constant(3)
            ]
        );
    }

    #[test]
    fn split_of_parameter_subscript_keeps_small_negative_offsets() {
        // A[p][q-1] in [*][512], p and q parameters: q - 1, not q + 511 in row p - 1.
        let index = Affine::param(0)
            .scale(512)
            .unwrap()
            .add(&Affine::param(1))
            .unwrap()
            .add(&Affine::constant(-1))
            .unwrap();
        let subs = split_index(&index, &[512], false).unwrap();
        assert_eq!(subs[0], Affine::param(0));
        assert_eq!(
            subs[1],
            Affine::param(1).add(&Affine::constant(-1)).unwrap()
        );
    }

    #[test]
    fn split_of_diagonal_puts_the_counter_in_both_dimensions() {
        // A[i][i] in [*][1024]: 1025*i.
        let subs = split_index(&linear(&[1025], 0), &[1024], true).unwrap();
        assert_eq!(subs, vec![Affine::counter(0), Affine::counter(0)]);
        // A[i][i+1]: 1025*i + 1.
        let subs = split_index(&linear(&[1025], 1), &[1024], true).unwrap();
        assert_eq!(subs, vec![Affine::counter(0), counter_plus(0, 1, 1)]);
        // A[i+1][i]: 1025*i + 1024.
        let subs = split_index(&linear(&[1025], 1024), &[1024], true).unwrap();
        assert_eq!(subs, vec![counter_plus(0, 1, 1), Affine::counter(0)]);
    }

    #[test]
    fn split_of_anti_diagonal_runs_the_inner_subscript_backwards() {
        // A[i][1023 - i] in [*][1024]: 1023*i + 1023.
        let subs = split_index(&linear(&[1023], 1023), &[1024], true).unwrap();
        assert_eq!(subs, vec![Affine::counter(0), counter_plus(0, -1, 1023)]);
    }

    #[test]
    fn split_of_diagonal_in_three_dimensions() {
        // B[i][i][j] in [*][10][20]: 200*i + 20*i + j = 220*i + j.
        let subs = split_index(&linear(&[220, 1], 0), &[10, 20], true).unwrap();
        assert_eq!(
            subs,
            vec![Affine::counter(0), Affine::counter(0), Affine::counter(1)]
        );
    }

    #[test]
    fn split_gives_back_the_linear_index() {
        // Whatever the split, sum(subscript * stride) is the index it came from.
        let dims = [7u64, 3, 5];
        let strides = [105i128, 15, 5, 1];
        for constant in -400..400 {
            for c in [1i128, 4, 6, 16, 22, 104, 106, -3] {
                let index = linear(&[c, 1], constant);
                let subs = split_index(&index, &dims, true).unwrap();
                let mut back = Affine::constant(0);
                for (s, stride) in subs.iter().zip(strides) {
                    back = back.add(&s.scale(stride).unwrap()).unwrap();
                }
                assert_eq!(back, index, "constant {constant}, coefficient {c}");
            }
        }
    }
}
