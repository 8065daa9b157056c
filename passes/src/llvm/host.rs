//! Safe access to what the C++ shim hands over for one function: the passes it runs
//! between rounds (`FunctionRun`), and per round loops, dominance, ScalarEvolution, alias
//! analysis, TargetTransformInfo and the remark emitter (`FunctionAnalyses`). What LLVM's
//! C API offers (debug locations, store sizes, exit blocks, constants' values, the
//! classification of a call's memory effects) is read here directly, not through the shim.
//! Every handle borrows the `FunctionAnalyses` it came from, so none outlives the
//! shim's call that created the context.

use std::ffi::{c_char, CStr, CString};
use std::marker::PhantomData;
use std::ptr::NonNull;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMMetadataRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::types::AsTypeRef;
use inkwell::values::{AsValueRef, FunctionValue, InstructionOpcode, InstructionValue};

use super::abi::{self, PrFunctionCtx, PrFunctionRun, PrHostApi, PrLoop, PrScev, PrScevList};
use super::metadata;

pub(crate) use super::abi::{PrAliasResult as AliasResult, PrFunctionPass as FunctionPass};
pub(crate) use super::abi::{
    PrRemarkKind as RemarkKind, PrScevKind as ScevKind, PrSeverity as Severity,
};

/// The analyses of one function, valid for one call from the shim.
pub struct FunctionAnalyses<'f> {
    api: &'f PrHostApi,
    ctx: NonNull<PrFunctionCtx>,
    function: FunctionValue<'f>,
    /// `-polyrust-debug-remarks`: messages also quote the IR they speak of.
    debug_remarks: std::cell::Cell<bool>,
    /// The remarks said so far in the run these analyses belong to.
    said: &'f SaidRemarks,
}

/// Most dimensions a delinearized array may have.
const MAX_DIMS: usize = 8;

/// An array shape and subscripts recovered from linear offsets.
#[derive(Debug)]
pub struct Delinearized<'f> {
    /// Sizes of every dimension but the outermost, in elements, outermost first.
    pub inner_sizes: Vec<Scev<'f>>,
    /// Per offset, one subscript per dimension, outermost first.
    pub subscripts: Vec<Vec<Scev<'f>>>,
}

/// Where a remark points in the source: the first of these that has a location wins.
#[derive(Clone, Copy, Default)]
pub struct RemarkAt<'f> {
    pub instruction: Option<InstructionValue<'f>>,
    pub loop_: Option<Loop<'f>>,
    pub block: Option<BasicBlock<'f>>,
}

impl<'f> RemarkAt<'f> {
    pub fn instruction(instruction: InstructionValue<'f>) -> Self {
        RemarkAt {
            instruction: Some(instruction),
            ..Default::default()
        }
    }
    pub fn loop_start(l: Loop<'f>) -> Self {
        RemarkAt {
            loop_: Some(l),
            ..Default::default()
        }
    }
}

/// What a call may do to memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemoryEffect {
    None,
    Read,
    Write,
    ReadWrite,
    /// Writes errno and nothing else (libm functions under `-fmath-errno`).
    ErrnoWrite,
}

impl MemoryEffect {
    /// The effect of llvm::MemoryEffects' encoding: two bits per location (1 reads, 2
    /// writes), errno memory the third location.
    fn of_encoding(bits: u32) -> MemoryEffect {
        const READS: u32 = 0x5555_5555;
        const WRITES: u32 = 0xAAAA_AAAA;
        const ERRNO: u32 = 0b11 << 4;
        if bits == 0 {
            MemoryEffect::None
        } else if bits & !ERRNO == 0 && bits & ERRNO & READS == 0 {
            MemoryEffect::ErrnoWrite
        } else if bits & WRITES == 0 {
            MemoryEffect::Read
        } else if bits & READS == 0 {
            MemoryEffect::Write
        } else {
            MemoryEffect::ReadWrite
        }
    }
}

/// Which data cache a size is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheLevel {
    L1Data = 1,
    L2Data = 2,
}

extern "C" {
    /// The C library's `free`, which releases the host's strings.
    fn free(ptr: *mut std::ffi::c_void);
}

/// Copies a string allocated by the host and frees the original.
fn take_host_string(raw: *mut c_char) -> String {
    if raw.is_null() {
        return String::new();
    }
    // SAFETY: the host returns NUL-terminated strings from malloc, released here once.
    unsafe {
        let text = CStr::from_ptr(raw).to_string_lossy().into_owned();
        free(raw.cast());
        text
    }
}

/// `file:line:col` of a debug location (a DILocation).
fn location_text(location: LLVMMetadataRef) -> String {
    use inkwell::llvm_sys::debuginfo as di;
    // SAFETY: the location is live metadata; the file name is copied before returning.
    unsafe {
        let file = di::LLVMDIScopeGetFile(di::LLVMDILocationGetScope(location));
        let mut length = 0u32;
        let name = if file.is_null() {
            String::new()
        } else {
            let raw = di::LLVMDIFileGetFilename(file, &mut length);
            String::from_utf8_lossy(std::slice::from_raw_parts(raw.cast(), length as usize))
                .into_owned()
        };
        let line = di::LLVMDILocationGetLine(location);
        let column = di::LLVMDILocationGetColumn(location);
        format!("{name}:{line}:{column}")
    }
}

/// An instruction's debug location (a DILocation), if it has one.
fn debug_location(inst: InstructionValue<'_>) -> Option<LLVMMetadataRef> {
    // SAFETY: the instruction is live.
    let location =
        unsafe { inkwell::llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(inst.as_value_ref()) };
    (!location.is_null()).then_some(location)
}

/// A C string for the host; interior NULs (impossible in our own messages, possible in
/// IR names) are replaced rather than failing.
fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', "\u{FFFD}")).unwrap_or_default()
}

/// An access group (`!llvm.access.group`) made by `FunctionAnalyses::new_access_group`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessGroup(LLVMMetadataRef);

/// An alias scope (`!alias.scope`) made by `FunctionAnalyses::new_alias_scopes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AliasScope(LLVMMetadataRef);

/// One run of a pass on one function, valid for one call from the shim: the function
/// and the host's analysis manager, which gathers fresh analyses for each round.
pub struct FunctionRun<'f> {
    api: &'f PrHostApi,
    run: NonNull<PrFunctionRun>,
    function: FunctionValue<'f>,
    /// The remarks said in this run, over all its rounds.
    said: SaidRemarks,
}

impl<'f> FunctionRun<'f> {
    /// # Safety
    /// `api`, `run` and `function` must come from the shim and stay valid for `'f`.
    pub unsafe fn from_raw(
        api: *const PrHostApi,
        run: *mut PrFunctionRun,
        function: LLVMValueRef,
    ) -> Option<Self> {
        let api = api.as_ref()?;
        if api.version != abi::PR_HOST_API_VERSION {
            return None;
        }
        Some(FunctionRun {
            api,
            run: NonNull::new(run)?,
            function: FunctionValue::new(function)?,
            said: SaidRemarks::default(),
        })
    }

    /// Runs `body` on the function's analyses as they are now; they are released after
    /// (also when `body` unwinds). Their remarks are said once in the whole run.
    pub fn with_analyses<T>(&'f self, body: impl FnOnce(&FunctionAnalyses<'f>) -> T) -> Option<T> {
        // SAFETY: the run is valid for 'f; the context lives until the analyses drop.
        let ctx = unsafe { (self.api.analyses_begin)(self.run.as_ptr()) };
        let analyses = FunctionAnalyses {
            api: self.api,
            ctx: NonNull::new(ctx)?,
            function: self.function,
            debug_remarks: std::cell::Cell::new(false),
            said: &self.said,
        };
        Some(body(&analyses))
    }

    /// Runs one of the host's passes on the function; whether it changed the IR.
    pub fn run_pass(&self, pass: FunctionPass) -> bool {
        unsafe { (self.api.run_pass)(self.run.as_ptr(), pass) != 0 }
    }

    /// Drops every analysis of the function (after a round rewrote it).
    pub fn invalidate_analyses(&self) {
        unsafe { (self.api.invalidate_analyses)(self.run.as_ptr()) }
    }
}

impl Drop for FunctionAnalyses<'_> {
    fn drop(&mut self) {
        // SAFETY: the context came from `analyses_begin` and is released once.
        unsafe { (self.api.analyses_end)(self.ctx()) }
    }
}

/// Collects the expressions a host function lists into `list` (a `Vec<*const PrScev>`).
unsafe extern "C" fn push_scev(list: *mut std::ffi::c_void, expr: *const PrScev) {
    (*list.cast::<Vec<*const PrScev>>()).push(expr);
}

/// A `PrScevList` that appends to `raw`, which must outlive the host's use of it.
fn scev_list(raw: &mut Vec<*const PrScev>) -> PrScevList {
    PrScevList {
        list: (raw as *mut Vec<*const PrScev>).cast(),
        push: push_scev,
    }
}

impl<'f> FunctionAnalyses<'f> {
    /// Whether messages also quote the IR (`-polyrust-debug-remarks`).
    pub fn debug_remarks(&self) -> bool {
        self.debug_remarks.get()
    }

    pub fn set_debug_remarks(&self, on: bool) {
        self.debug_remarks.set(on);
    }

    pub fn function(&self) -> FunctionValue<'f> {
        self.function
    }

    fn ctx(&self) -> *mut PrFunctionCtx {
        self.ctx.as_ptr()
    }

    fn wrap_loop(&self, raw: *mut PrLoop) -> Option<Loop<'f>> {
        NonNull::new(raw).map(|raw| Loop { api: self.api, raw })
    }

    fn wrap_scev(&self, raw: *const PrScev) -> Scev<'f> {
        Scev::new(self.api, raw)
    }

    /// The outermost loops of the function, in program order.
    pub fn top_level_loops(&self) -> Vec<Loop<'f>> {
        // SAFETY: the context is valid for 'f; indices stay below the count.
        let count = unsafe { (self.api.top_level_loop_count)(self.ctx()) };
        in_program_order(
            (0..count)
                .filter_map(|i| self.wrap_loop(unsafe { (self.api.top_level_loop)(self.ctx(), i) }))
                .collect(),
        )
    }

    /// The innermost loop containing `block`.
    pub fn loop_for_block(&self, block: BasicBlock<'f>) -> Option<Loop<'f>> {
        self.wrap_loop(unsafe { (self.api.loop_for_block)(self.ctx(), block_ref(block)) })
    }

    pub fn dominates(&self, a: BasicBlock<'f>, b: BasicBlock<'f>) -> bool {
        unsafe { (self.api.dominates)(self.ctx(), block_ref(a), block_ref(b)) != 0 }
    }

    pub fn post_dominates(&self, a: BasicBlock<'f>, b: BasicBlock<'f>) -> bool {
        unsafe { (self.api.post_dominates)(self.ctx(), block_ref(a), block_ref(b)) != 0 }
    }

    /// Whether ScalarEvolution can describe values of this value's type.
    pub fn is_scevable(&self, value: &impl AsValueRef) -> bool {
        // SAFETY: the value is live; only its type's kind is read.
        let kind = unsafe { c::LLVMGetTypeKind(c::LLVMTypeOf(value.as_value_ref())) };
        matches!(
            kind,
            LLVMTypeKind::LLVMIntegerTypeKind | LLVMTypeKind::LLVMPointerTypeKind
        )
    }

    /// The SCEV of an integer or pointer value (check `is_scevable` first).
    pub fn scev(&self, value: &impl AsValueRef) -> Scev<'f> {
        self.wrap_scev(unsafe { (self.api.scev_of)(self.ctx(), value.as_value_ref()) })
    }

    /// `expr` as seen from outside `scope` (`None`: outside every loop).
    pub fn scev_at_scope(&self, expr: Scev<'f>, scope: Option<Loop<'f>>) -> Scev<'f> {
        let scope = scope.map_or(std::ptr::null_mut(), |l| l.raw.as_ptr());
        self.wrap_scev(unsafe { (self.api.scev_at_scope)(self.ctx(), expr.raw.as_ptr(), scope) })
    }

    /// How many times the back edge is taken; `ScevKind::CouldNotCompute` if unknown.
    pub fn backedge_taken_count(&self, l: Loop<'f>) -> Scev<'f> {
        self.wrap_scev(unsafe { (self.api.backedge_taken_count)(self.ctx(), l.raw.as_ptr()) })
    }

    pub fn constant_max_backedge_taken_count(&self, l: Loop<'f>) -> Scev<'f> {
        self.wrap_scev(unsafe {
            (self.api.constant_max_backedge_taken_count)(self.ctx(), l.raw.as_ptr())
        })
    }

    /// Backedge-taken count plus one, in a type wide enough not to wrap.
    /// `ScevKind::CouldNotCompute` if unknown. In the count's own type when the +1
    /// provably cannot wrap (readable), else wider.
    pub fn trip_count(&self, l: Loop<'f>) -> Scev<'f> {
        let taken = self.backedge_taken_count(l);
        if taken.is_could_not_compute() {
            return taken;
        }
        let max = self.constant_max_backedge_taken_count(l);
        // All ones (-1 sign-extended) is the one constant whose +1 wraps.
        let own_type = max.kind() == ScevKind::Constant && max.constant() != Some(-1);
        self.wrap_scev(unsafe {
            (self.api.trip_count_from_taken)(self.ctx(), taken.raw(), l.raw(), i32::from(own_type))
        })
    }

    /// `a - b`, simplified by ScalarEvolution.
    pub fn minus(&self, a: Scev<'f>, b: Scev<'f>) -> Scev<'f> {
        self.wrap_scev(unsafe { (self.api.scev_minus)(self.ctx(), a.raw(), b.raw()) })
    }

    /// The base pointer an address expression is an offset from.
    pub fn pointer_base(&self, address: Scev<'f>) -> Scev<'f> {
        self.wrap_scev(unsafe { (self.api.pointer_base)(self.ctx(), address.raw()) })
    }

    pub fn known_non_negative(&self, expr: Scev<'f>) -> bool {
        unsafe { (self.api.known_non_negative)(self.ctx(), expr.raw()) != 0 }
    }

    /// The expressions a host function lists through a `PrScevList`.
    fn listed(&self, fill: impl FnOnce(*mut PrScevList)) -> Vec<Scev<'f>> {
        let mut raw: Vec<*const PrScev> = Vec::new();
        fill(&mut scev_list(&mut raw));
        raw.into_iter().map(|e| self.wrap_scev(e)).collect()
    }

    /// The constant `value` (sign-extended) in the integer type `ty`.
    pub(crate) fn scev_constant(&self, ty: LLVMTypeRef, value: i64) -> Scev<'f> {
        self.wrap_scev(unsafe { (self.api.scev_constant)(self.ctx(), ty, value) })
    }

    /// One common shape for all `offsets` (bytes from the base, integers) of an array
    /// whose shape has parameters (`A[i*m + j]`): the inner dimension sizes, outermost
    /// first, and each offset's subscripts. `None` when LLVM's delinearization finds no
    /// shape of 2 to `MAX_DIMS` dimensions that gives every offset a subscript in each.
    pub fn delinearize_parametric(
        &self,
        offsets: &[Scev<'f>],
        element_size: u64,
    ) -> Option<Delinearized<'f>> {
        let first = offsets.first()?;
        first.bit_width()?;
        let element = self.scev_constant(first.raw_type()?, i64::try_from(element_size).ok()?);
        let raw: Vec<*const PrScev> = offsets.iter().map(|o| o.raw()).collect();
        let terms: Vec<*const PrScev> = self
            .listed(|list| unsafe {
                (self.api.parametric_terms)(self.ctx(), raw.as_ptr(), raw.len(), list)
            })
            .iter()
            .map(|t| t.raw())
            .collect();
        // The element size comes last: the sizes of the dimensions, in bytes' terms.
        let sizes = self.listed(|list| unsafe {
            (self.api.array_dimensions)(
                self.ctx(),
                terms.as_ptr(),
                terms.len(),
                element.raw(),
                list,
            )
        });
        let dims = sizes.len();
        if !(2..=MAX_DIMS).contains(&dims) {
            return None;
        }
        let raw_sizes: Vec<*const PrScev> = sizes.iter().map(|s| s.raw()).collect();
        let mut subscripts = Vec::with_capacity(offsets.len());
        for offset in offsets {
            let subscript = self.listed(|list| unsafe {
                (self.api.access_functions)(
                    self.ctx(),
                    offset.raw(),
                    raw_sizes.as_ptr(),
                    raw_sizes.len(),
                    list,
                )
            });
            if subscript.len() != dims {
                return None;
            }
            subscripts.push(subscript);
        }
        Some(Delinearized {
            inner_sizes: sizes[..dims - 1].to_vec(),
            subscripts,
        })
    }

    /// The shape of a constant-size multi-dimensional array access (`double A[N][M]`),
    /// from one byte offset (an integer): `None` unless it has 2 to `MAX_DIMS`
    /// dimensions and a size for each inner one.
    pub fn delinearize_fixed(
        &self,
        offset: Scev<'f>,
        element_size: u64,
    ) -> Option<Delinearized<'f>> {
        offset.bit_width()?;
        let element = self.scev_constant(offset.raw_type()?, i64::try_from(element_size).ok()?);
        let (mut subscripts, mut sizes) = (Vec::new(), Vec::new());
        let found = unsafe {
            (self.api.delinearize_fixed)(
                self.ctx(),
                offset.raw(),
                element.raw(),
                &mut scev_list(&mut subscripts),
                &mut scev_list(&mut sizes),
            )
        };
        let dims = subscripts.len();
        if found == 0 || !(2..=MAX_DIMS).contains(&dims) || sizes.len() < dims - 1 {
            return None;
        }
        Some(Delinearized {
            inner_sizes: sizes[..dims - 1]
                .iter()
                .map(|s| self.wrap_scev(*s))
                .collect(),
            subscripts: vec![subscripts.iter().map(|s| self.wrap_scev(*s)).collect()],
        })
    }

    /// Bytes a value of a raw type occupies in memory (in the module's data layout; the
    /// least for a scalable vector); `None` if unsized or empty.
    pub(crate) fn type_store_size_raw(&self, ty: LLVMTypeRef) -> Option<u64> {
        use inkwell::llvm_sys::target as t;
        // SAFETY: the type and the function's module are live for the call from the shim.
        let bytes = unsafe {
            if c::LLVMTypeIsSized(ty) == 0 {
                return None;
            }
            let module = c::LLVMGetGlobalParent(self.function.as_value_ref());
            let layout = t::LLVMGetModuleDataLayout(module);
            if c::LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMScalableVectorTypeKind {
                let element = t::LLVMSizeOfTypeInBits(layout, c::LLVMGetElementType(ty));
                (element * u64::from(c::LLVMGetVectorSize(ty))).div_ceil(8)
            } else {
                t::LLVMStoreSizeOfType(layout, ty)
            }
        };
        (bytes != 0).then_some(bytes)
    }

    /// Bytes a value of `value`'s type occupies in memory; `None` if unsized.
    pub fn value_store_size(&self, value: LLVMValueRef) -> Option<u64> {
        self.type_store_size_raw(super::ir::type_of(value))
    }

    /// Emits IR computing `expr` as a value of type `ty` just before `before`;
    /// `None` when that is not safe (operands not available there, possible trap).
    pub fn expand(
        &self,
        expr: Scev<'f>,
        ty: &impl AsTypeRef,
        before: InstructionValue<'f>,
    ) -> Option<LLVMValueRef> {
        self.expand_raw(expr, ty.as_type_ref(), before, true)
    }

    /// `expand`, in SCEVExpander's canonical mode (recurrences get new induction
    /// variables) or not.
    pub(crate) fn expand_raw(
        &self,
        expr: Scev<'f>,
        ty: LLVMTypeRef,
        before: InstructionValue<'f>,
        canonical: bool,
    ) -> Option<LLVMValueRef> {
        let value = unsafe {
            (self.api.scev_expand)(
                self.ctx(),
                expr.raw(),
                ty,
                before.as_value_ref(),
                i32::from(canonical),
            )
        };
        (!value.is_null()).then_some(value)
    }

    /// `a + b`.
    pub(crate) fn scev_add(&self, a: Scev<'f>, b: Scev<'f>) -> Scev<'f> {
        self.wrap_scev(unsafe { (self.api.scev_add)(self.ctx(), a.raw(), b.raw()) })
    }

    /// `a * b`.
    pub(crate) fn scev_mul(&self, a: Scev<'f>, b: Scev<'f>) -> Scev<'f> {
        self.wrap_scev(unsafe { (self.api.scev_mul)(self.ctx(), a.raw(), b.raw()) })
    }

    /// The leaf standing for an IR value.
    pub(crate) fn scev_unknown(&self, value: LLVMValueRef) -> Scev<'f> {
        self.wrap_scev(unsafe { (self.api.scev_unknown)(self.ctx(), value) })
    }

    /// `expr` truncated or sign-extended to the integer type `ty`.
    pub(crate) fn scev_truncate_or_sign_extend(&self, expr: Scev<'f>, ty: LLVMTypeRef) -> Scev<'f> {
        self.wrap_scev(unsafe {
            (self.api.scev_truncate_or_sign_extend)(self.ctx(), expr.raw(), ty)
        })
    }

    /// An expression of the kind of `like` over new operands (as many as it has).
    pub(crate) fn scev_with_operands(&self, like: Scev<'f>, operands: &[Scev<'f>]) -> Scev<'f> {
        let raw: Vec<*const PrScev> = operands.iter().map(|o| o.raw()).collect();
        self.wrap_scev(unsafe {
            (self.api.scev_with_operands)(self.ctx(), like.raw(), raw.as_ptr(), raw.len())
        })
    }

    /// Emits, before `before` (inside `l`), the number of completed iterations of `l`
    /// (an i64): the recurrence {0,+,1} of the loop, expanded in canonical mode.
    pub fn expand_loop_counter(
        &self,
        l: Loop<'f>,
        before: InstructionValue<'f>,
    ) -> Option<LLVMValueRef> {
        // SAFETY: the function is live; its context outlives the call.
        let i64_type = unsafe {
            c::LLVMInt64TypeInContext(metadata::context_of(self.function.as_value_ref()))
        };
        let zero = self.scev_constant(i64_type, 0);
        let one = self.scev_constant(i64_type, 1);
        let counter = self.wrap_scev(unsafe {
            (self.api.scev_add_rec)(self.ctx(), zero.raw(), one.raw(), l.raw())
        });
        self.expand_raw(counter, i64_type, before, true)
    }

    /// In the phis of `block`, the incoming block `from` becomes `to`.
    pub fn replace_phi_incoming_block(
        &self,
        block: BasicBlock<'f>,
        from: BasicBlock<'f>,
        to: BasicBlock<'f>,
    ) {
        unsafe {
            (self.api.replace_phi_incoming_block)(block_ref(block), block_ref(from), block_ref(to))
        }
    }

    /// Registers a block made by code generation as part of `l` in LoopInfo.
    pub fn add_block_to_loop(&self, block: BasicBlock<'f>, l: Loop<'f>) {
        unsafe { (self.api.add_block_to_loop)(self.ctx(), block_ref(block), l.raw.as_ptr()) }
    }

    /// Cuts blocks made by code generation out of the CFG (they become unreachable).
    pub fn abandon_blocks(&self, blocks: &[BasicBlock<'f>]) {
        super::builder::abandon_blocks(self.function, blocks, |phi, from| unsafe {
            (self.api.remove_phi_incoming)(phi.as_value_ref(), block_ref(from))
        });
    }

    /// Registers a block made by code generation in the dominator tree.
    pub fn add_block_to_dominators(&self, block: BasicBlock<'f>, idom: BasicBlock<'f>) {
        unsafe { (self.api.add_block_to_dominators)(self.ctx(), block_ref(block), block_ref(idom)) }
    }

    /// Moves `blocks` (the first the only one entered from outside, every edge out of
    /// them to one block) into a new internal function, named after this one and
    /// `suffix`, whose parameters are the values the blocks use from outside; the call
    /// of it left in their place, or `None` (nothing changed) when LLVM's CodeExtractor
    /// cannot move them or they define values used after them. The analyses no longer
    /// describe the function after a move.
    pub fn extract_blocks(&self, blocks: &[BasicBlock<'f>], suffix: &str) -> Option<LLVMValueRef> {
        let refs: Vec<LLVMBasicBlockRef> = blocks.iter().map(|b| block_ref(*b)).collect();
        let suffix = c_string(suffix);
        // SAFETY: the blocks are this function's; the host reads them and the suffix
        // during the call only.
        let call = unsafe { (self.api.extract_blocks)(refs.as_ptr(), refs.len(), suffix.as_ptr()) };
        (!call.is_null()).then_some(call)
    }

    /// Adds the property `tag` to the loop ID on a generated latch branch, and marks
    /// the loop's accesses in `group` as free of loop-carried dependences.
    pub fn tag_latch(&self, branch: InstructionValue<'f>, tag: &str, group: Option<AccessGroup>) {
        metadata::tag_latch(self.api, branch.as_value_ref(), tag, group.map(|g| g.0));
    }

    /// A new access group for the accesses of one parallel loop.
    pub fn new_access_group(&self) -> AccessGroup {
        let function = self.function().as_value_ref();
        AccessGroup(metadata::distinct_node(self.api, function, &[], false))
    }

    /// Puts a memory instruction in an access group (it keeps the groups it is in).
    pub fn add_access_group(&self, instruction: InstructionValue<'f>, group: AccessGroup) {
        metadata::add_access_group(instruction.as_value_ref(), group.0);
    }

    /// `count` new alias scopes in one new domain of their own.
    pub fn new_alias_scopes(&self, count: usize) -> Vec<AliasScope> {
        metadata::new_alias_scopes(self.api, self.function().as_value_ref(), count)
            .into_iter()
            .map(AliasScope)
            .collect()
    }

    /// Puts a memory instruction in `scope` and declares it disjoint from the accesses
    /// in `others` (it keeps the scopes it had).
    pub fn add_alias_scopes(
        &self,
        instruction: InstructionValue<'f>,
        scope: AliasScope,
        others: &[AliasScope],
    ) {
        let others: Vec<LLVMMetadataRef> = others.iter().map(|s| s.0).collect();
        metadata::add_alias_scopes(instruction.as_value_ref(), scope.0, &others);
    }

    /// Alias query between two accesses of `size` bytes (`None`: unknown extent).
    pub fn alias(
        &self,
        a: &impl AsValueRef,
        a_size: Option<u64>,
        b: &impl AsValueRef,
        b_size: Option<u64>,
    ) -> AliasResult {
        unsafe {
            (self.api.alias)(
                self.ctx(),
                a.as_value_ref(),
                a_size.unwrap_or(u64::MAX),
                b.as_value_ref(),
                b_size.unwrap_or(u64::MAX),
            )
        }
    }

    /// What a call instruction may do to memory (anything, for other instructions).
    pub fn call_memory_effect(&self, call: InstructionValue<'f>) -> MemoryEffect {
        use InstructionOpcode as Op;
        if !matches!(call.get_opcode(), Op::Call | Op::Invoke | Op::CallBr) {
            return MemoryEffect::ReadWrite;
        }
        let bits = unsafe { (self.api.call_memory_effects)(self.ctx(), call.as_value_ref()) };
        MemoryEffect::of_encoding(bits)
    }

    /// Number of vector registers, if the target says.
    pub fn vector_registers(&self) -> Option<u32> {
        let count = unsafe { (self.api.vector_registers)(self.ctx()) };
        (count != 0).then_some(count)
    }

    /// Width of a fixed-width vector register in bits, if the target says.
    pub fn vector_register_bits(&self) -> Option<u32> {
        let bits = unsafe { (self.api.vector_register_bits)(self.ctx()) };
        (bits != 0).then_some(bits)
    }

    /// Size of a data cache in bytes, if the target says.
    pub fn cache_size(&self, level: CacheLevel) -> Option<u32> {
        let bytes = unsafe { (self.api.cache_size_bytes)(self.ctx(), level as u32) };
        (bytes != 0).then_some(bytes)
    }

    /// `%name`, `@global` or a constant, as LLVM prints an operand.
    pub fn operand_name(&self, value: &impl AsValueRef) -> String {
        operand_name(self.api, value.as_value_ref())
    }

    /// How LLVM prints an instruction (`%v = load double, ptr %p`), trimmed; with the
    /// function's slot numbers computed once per call, unlike `ir::instruction_text`.
    pub fn instruction_text(&self, inst: InstructionValue<'_>) -> String {
        // SAFETY: instructions handed to the analyses come from the function processed.
        let value = inst.as_value_ref();
        let raw = unsafe { (self.api.value_text)(value, local_function(value), 0) };
        take_host_string(raw).trim().to_string()
    }

    /// `operand_name` for a raw value handle (as `Scev::unknown_value` returns).
    pub fn raw_operand_name(&self, value: LLVMValueRef) -> String {
        operand_name(self.api, value)
    }

    /// The source variable a value holds, from debug info; `None` without it.
    pub fn source_name(&self, value: LLVMValueRef) -> Option<String> {
        source_name(self.api, value)
    }

    /// `file:line:col` of an instruction's debug location.
    pub fn instruction_location(&self, inst: InstructionValue<'f>) -> Option<String> {
        debug_location(inst).map(location_text)
    }

    /// `file:line:col` where a loop starts in the source.
    pub fn loop_location(&self, l: Loop<'f>) -> Option<String> {
        l.start_location().map(location_text)
    }

    /// `%name` of a block, as LLVM prints it.
    pub fn block_name(&self, block: BasicBlock<'f>) -> String {
        block_name(self.api, block)
    }

    /// A `-Rpass*=polyrust` remark on `at.block`, else on the header of `at.loop_`, else
    /// on the entry block; located at `at.instruction`, else at the start of `at.loop_`,
    /// else at the first located instruction of that block, else at the function. Said
    /// once per place and message in a run of a pass on the function (`SaidRemarks`):
    /// nested loop nests report the same call, and later rounds the same regions.
    pub fn remark(&self, kind: RemarkKind, name: &str, at: RemarkAt<'f>, message: &str) {
        let place = match (at.instruction, at.loop_, at.block) {
            (Some(i), _, _) => self.instruction_location(i).map_or_else(
                || Place::Unlocated(i.as_value_ref() as usize),
                Place::Source,
            ),
            (None, Some(l), _) => self
                .loop_location(l)
                .map_or_else(|| Place::Unlocated(l.raw() as usize), Place::Source),
            (None, None, Some(b)) => Place::Unlocated(block_ref(b) as usize),
            (None, None, None) => Place::Function,
        };
        let key = (kind as u32, name.to_string(), place, message.to_string());
        if !self.said.0.borrow_mut().insert(key) {
            return;
        }
        let Some(block) = at
            .block
            .or_else(|| at.loop_.map(|l| l.header()))
            .or_else(|| self.function.get_first_basic_block())
        else {
            return;
        };
        let location = self.remark_location(at, block);
        let name = c_string(name);
        let message = c_string(message);
        unsafe {
            (self.api.remark)(
                self.ctx(),
                kind,
                name.as_ptr(),
                location.unwrap_or(std::ptr::null_mut()),
                block_ref(block),
                message.as_ptr(),
            )
        }
    }

    /// Where a remark on `block` points: the debug location of its instruction, else of
    /// its loop's start, else of the block's first located instruction (none: the
    /// function's).
    fn remark_location(&self, at: RemarkAt<'f>, block: BasicBlock<'f>) -> Option<LLVMMetadataRef> {
        if let Some(location) = at.instruction.and_then(debug_location) {
            return Some(location);
        }
        if let Some(location) = at.loop_.and_then(|l| l.start_location()) {
            return Some(location);
        }
        let mut next = block.get_first_instruction();
        while let Some(i) = next {
            if let Some(location) = debug_location(i) {
                return Some(location);
            }
            next = i.get_next_instruction();
        }
        None
    }

    /// A diagnostic reported through the LLVMContext (`error: polyrust: ...`); an error
    /// makes the compilation fail.
    pub fn diagnose(&self, severity: Severity, message: &str) {
        let message = c_string(message);
        unsafe { (self.api.diagnose)(self.ctx(), severity, message.as_ptr()) }
    }
}

/// The pipeline stages `-ftime-report` shows, one LLVM timer each (group "polyrust").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Detect,
    Model,
    Deps,
    Schedule,
    /// The loop AST of a plan's schedule (isl's AST generation).
    Ast,
    Codegen,
}

impl Stage {
    fn name(self) -> &'static CStr {
        match self {
            Stage::Detect => c"detect",
            Stage::Model => c"model",
            Stage::Deps => c"deps",
            Stage::Schedule => c"schedule",
            Stage::Ast => c"ast",
            Stage::Codegen => c"codegen",
        }
    }
}

/// A running stage timer; the time counts until it is dropped. Costs nothing when
/// timing is off (the host hands back no timer).
pub struct StageTimer<'a> {
    api: &'a PrHostApi,
    timer: *mut std::ffi::c_void,
}

impl Drop for StageTimer<'_> {
    fn drop(&mut self) {
        // SAFETY: `timer` is what `timer_start` returned, stopped once.
        unsafe { (self.api.timer_stop)(self.timer) }
    }
}

impl FunctionAnalyses<'_> {
    /// Starts timing `stage` until the returned guard is dropped.
    pub fn time(&self, stage: Stage) -> StageTimer<'_> {
        // SAFETY: the name is a static C string; the host copies it.
        let timer = unsafe { (self.api.timer_start)(stage.name().as_ptr()) };
        StageTimer {
            api: self.api,
            timer,
        }
    }
}

/// Where a remark was said, to say it once: its source location, else (no debug info)
/// the IR object, which only serves to tell equal from different.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    Source(String),
    Unlocated(usize),
    Function,
}

/// The remarks said in one run of a pass on a function (`FunctionRun`: the rounds of
/// the pass, or one printer's call): (kind, name, place, message).
#[derive(Default)]
struct SaidRemarks(std::cell::RefCell<std::collections::BTreeSet<(u32, String, Place, String)>>);

fn block_ref(block: BasicBlock<'_>) -> LLVMBasicBlockRef {
    block.as_mut_ptr()
}

fn source_name(api: &PrHostApi, value: LLVMValueRef) -> Option<String> {
    // SAFETY: values handed to the analyses come from the function being processed.
    let raw = unsafe { (api.source_name)(value) };
    (!raw.is_null()).then(|| take_host_string(raw))
}

fn operand_name(api: &PrHostApi, value: LLVMValueRef) -> String {
    // An unnamed value of type void (a store, a branch) has no slot: LLVM prints it as
    // <badref>, after numbering the whole function again to look for it (a store asked
    // for its name cost a numbering of NPB SP's main; detection asks every instruction).
    if unnamed_void_instruction(value) {
        return "<badref>".to_string();
    }
    take_host_string(unsafe { (api.value_text)(value, local_function(value), 1) })
}

/// The function a value is local to (an instruction's, an argument's, a block's): the
/// host prints it with that function's slot numbers. Null for other values.
fn local_function(value: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: the value is live; only its kind and parents are read.
    unsafe {
        if !c::LLVMIsAInstruction(value).is_null() {
            c::LLVMGetBasicBlockParent(c::LLVMGetInstructionParent(value))
        } else if !c::LLVMIsAArgument(value).is_null() {
            c::LLVMGetParamParent(value)
        } else if c::LLVMValueIsBasicBlock(value) != 0 {
            c::LLVMGetBasicBlockParent(c::LLVMValueAsBasicBlock(value))
        } else {
            std::ptr::null_mut()
        }
    }
}

fn unnamed_void_instruction(value: LLVMValueRef) -> bool {
    // SAFETY: the value is live; only its kind, type and name length are read.
    unsafe {
        let mut length = 0usize;
        !c::LLVMIsAInstruction(value).is_null()
            && c::LLVMGetTypeKind(c::LLVMTypeOf(value))
                == inkwell::llvm_sys::LLVMTypeKind::LLVMVoidTypeKind
            && {
                c::LLVMGetValueName2(value, &mut length);
                length == 0
            }
    }
}

fn block_name(api: &PrHostApi, block: BasicBlock<'_>) -> String {
    // SAFETY: a block is a value; LLVMBasicBlockAsValue only converts the handle.
    operand_name(api, unsafe {
        inkwell::llvm_sys::core::LLVMBasicBlockAsValue(block_ref(block))
    })
}

fn wrap_block<'f>(raw: LLVMBasicBlockRef) -> Option<BasicBlock<'f>> {
    // SAFETY: the host hands out blocks of the function being processed, or NULL.
    unsafe { BasicBlock::new(raw) }
}

/// LoopInfo lists sibling loops last-first; users read them, and expect remarks, in the
/// order of the source, which is the order of the header blocks in the function.
fn in_program_order(mut loops: Vec<Loop<'_>>) -> Vec<Loop<'_>> {
    let Some(function) = loops.first().and_then(|l| l.header().get_parent()) else {
        return loops;
    };
    // The order control reaches them, not the order the blocks are laid out in: passes
    // before us may place a loop that runs first after those that follow it (a copy
    // loop after a `malloc` null check lands below the loops after it).
    let order = control_order(function);
    loops.sort_by_key(|l| order.iter().position(|b| *b == l.header()));
    loops
}

/// The function's blocks in an order control respects: each block after every block
/// with a forward edge into it (back edges of loops aside), and among blocks that do
/// not depend on each other (the two versions of an unswitched loop) the layout's order.
/// Unreachable blocks come last, in layout order.
fn control_order(function: inkwell::values::FunctionValue<'_>) -> Vec<BasicBlock<'_>> {
    use std::cmp::Reverse;
    use std::collections::{BinaryHeap, HashMap, HashSet};
    let blocks = function.get_basic_blocks();
    let layout: HashMap<BasicBlock<'_>, usize> =
        blocks.iter().enumerate().map(|(k, b)| (*b, k)).collect();
    let Some(entry) = blocks.first().copied() else {
        return blocks;
    };
    // Back edges: to a block still on the depth-first search's stack.
    let mut back: HashSet<(BasicBlock<'_>, BasicBlock<'_>)> = HashSet::new();
    let mut seen = HashSet::from([entry]);
    let mut on_stack = HashSet::from([entry]);
    let mut stack = vec![(entry, super::ir::successors(entry).into_iter())];
    while let Some((block, next)) = stack.last_mut() {
        let block = *block;
        match next.next() {
            Some(successor) if on_stack.contains(&successor) => {
                back.insert((block, successor));
            }
            Some(successor) if seen.insert(successor) => {
                on_stack.insert(successor);
                stack.push((successor, super::ir::successors(successor).into_iter()));
            }
            Some(_) => {}
            None => {
                on_stack.remove(&block);
                stack.pop();
            }
        }
    }
    // Kahn's algorithm over the forward edges, the earliest block in layout first.
    let mut waiting: HashMap<BasicBlock<'_>, usize> = HashMap::new();
    for block in &seen {
        for successor in super::ir::successors(*block) {
            if !back.contains(&(*block, successor)) {
                *waiting.entry(successor).or_insert(0) += 1;
            }
        }
    }
    let mut ready = BinaryHeap::from([Reverse(layout[&entry])]);
    let mut order = Vec::with_capacity(blocks.len());
    while let Some(Reverse(index)) = ready.pop() {
        let block = blocks[index];
        order.push(block);
        for successor in super::ir::successors(block) {
            if back.contains(&(block, successor)) {
                continue;
            }
            if let Some(count) = waiting.get_mut(&successor) {
                *count -= 1;
                if *count == 0 {
                    ready.push(Reverse(layout[&successor]));
                }
            }
        }
    }
    let placed: HashSet<BasicBlock<'_>> = order.iter().copied().collect();
    order.extend(blocks.iter().filter(|b| !placed.contains(b)));
    order
}

/// A natural loop of LoopInfo.
#[derive(Clone, Copy)]
pub struct Loop<'f> {
    api: &'f PrHostApi,
    raw: NonNull<PrLoop>,
}

impl PartialEq for Loop<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}
impl Eq for Loop<'_> {}

impl std::hash::Hash for Loop<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.raw.hash(state)
    }
}

impl std::fmt::Debug for Loop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Loop({})", self.header_name())
    }
}

impl<'f> Loop<'f> {
    fn wrap(&self, raw: *mut PrLoop) -> Option<Loop<'f>> {
        NonNull::new(raw).map(|raw| Loop { api: self.api, raw })
    }

    fn raw(&self) -> *mut PrLoop {
        self.raw.as_ptr()
    }

    /// The loop's ID (`!llvm.loop` on all its latches), if it has one.
    fn id(&self) -> Option<LLVMMetadataRef> {
        let id = unsafe { (self.api.loop_id)(self.raw()) };
        (!id.is_null()).then_some(id)
    }

    /// A value in the loop's context (its header).
    fn in_context(&self) -> LLVMValueRef {
        // SAFETY: a block is a value; LLVMBasicBlockAsValue only converts the handle.
        unsafe { inkwell::llvm_sys::core::LLVMBasicBlockAsValue(block_ref(self.header())) }
    }

    /// Whether the loop's `!llvm.loop` metadata has the property `tag`.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.id().is_some_and(|id| {
            metadata::has_property(metadata::context_of(self.in_context()), id, tag)
        })
    }

    /// Adds the property `tag` to the loop's `!llvm.loop` metadata.
    pub fn tag(&self, tag: &str) {
        let id = metadata::with_property(self.api, self.in_context(), self.id(), tag, None);
        unsafe { (self.api.set_loop_id)(self.raw(), id) }
    }

    /// 1 for an outermost loop.
    pub fn depth(&self) -> u32 {
        std::iter::successors(self.parent(), |l| l.parent()).count() as u32 + 1
    }

    /// The first of the loop's blocks.
    pub fn header(&self) -> BasicBlock<'f> {
        wrap_block(unsafe { (self.api.loop_block)(self.raw(), 0) })
            .expect("LoopInfo loops always have a header")
    }

    /// The debug location (a DILocation) where the loop starts in the source.
    fn start_location(&self) -> Option<LLVMMetadataRef> {
        let location = unsafe { (self.api.loop_start_location)(self.raw()) };
        (!location.is_null()).then_some(location)
    }

    /// `%header` as LLVM prints the block's name.
    pub fn header_name(&self) -> String {
        block_name(self.api, self.header())
    }

    pub fn preheader(&self) -> Option<BasicBlock<'f>> {
        wrap_block(unsafe { (self.api.loop_preheader)(self.raw()) })
    }

    /// The single latch, if there is one.
    pub fn latch(&self) -> Option<BasicBlock<'f>> {
        wrap_block(unsafe { (self.api.loop_latch)(self.raw()) })
    }

    pub fn blocks(&self) -> Vec<BasicBlock<'f>> {
        let count = unsafe { (self.api.loop_block_count)(self.raw()) };
        (0..count)
            .filter_map(|i| wrap_block(unsafe { (self.api.loop_block)(self.raw(), i) }))
            .collect()
    }

    /// Blocks outside the loop reached from inside it, each once, in the order of the
    /// loop's blocks and their successors (LoopInfo's `getUniqueExitBlocks`).
    pub fn exit_blocks(&self) -> Vec<BasicBlock<'f>> {
        let blocks = self.blocks();
        let inside: std::collections::HashSet<BasicBlock<'f>> = blocks.iter().copied().collect();
        let mut exits: Vec<BasicBlock<'f>> = Vec::new();
        for successor in blocks.iter().flat_map(|b| super::ir::successors(*b)) {
            if !inside.contains(&successor) && !exits.contains(&successor) {
                exits.push(successor);
            }
        }
        exits
    }

    /// The loops directly nested in this one, in program order.
    pub fn subloops(&self) -> Vec<Loop<'f>> {
        let count = unsafe { (self.api.subloop_count)(self.raw()) };
        in_program_order(
            (0..count)
                .filter_map(|i| self.wrap(unsafe { (self.api.subloop)(self.raw(), i) }))
                .collect(),
        )
    }

    pub fn parent(&self) -> Option<Loop<'f>> {
        self.wrap(unsafe { (self.api.parent_loop)(self.raw()) })
    }

    pub fn contains_block(&self, block: BasicBlock<'f>) -> bool {
        self.blocks().contains(&block)
    }

    /// This loop and all loops nested in it, outermost first (preorder).
    pub fn preorder(&self) -> Vec<Loop<'f>> {
        let mut out = vec![*self];
        for sub in self.subloops() {
            out.extend(sub.preorder());
        }
        out
    }
}

/// A ScalarEvolution expression: a tree whose leaves are constants and IR values.
#[derive(Clone, Copy)]
pub struct Scev<'f> {
    api: &'f PrHostApi,
    raw: NonNull<PrScev>,
    _function: PhantomData<&'f ()>,
}

impl PartialEq for Scev<'_> {
    fn eq(&self, other: &Self) -> bool {
        // SCEVs are uniqued by ScalarEvolution: equal trees are the same object.
        self.raw == other.raw
    }
}
impl Eq for Scev<'_> {}

impl std::hash::Hash for Scev<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.raw.hash(state)
    }
}

impl std::fmt::Debug for Scev<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.llvm_text())
    }
}

impl<'f> Scev<'f> {
    fn new(api: &'f PrHostApi, raw: *const PrScev) -> Self {
        Scev {
            api,
            raw: NonNull::new(raw.cast_mut()).expect("ScalarEvolution never returns null"),
            _function: PhantomData,
        }
    }

    fn raw(&self) -> *const PrScev {
        self.raw.as_ptr()
    }

    pub fn kind(&self) -> ScevKind {
        unsafe { (self.api.scev_kind)(self.raw()) }
    }

    pub fn is_could_not_compute(&self) -> bool {
        self.kind() == ScevKind::CouldNotCompute
    }

    pub fn operands(&self) -> Vec<Scev<'f>> {
        let count = unsafe { (self.api.scev_operand_count)(self.raw()) };
        (0..count)
            .map(|i| Scev::new(self.api, unsafe { (self.api.scev_operand)(self.raw(), i) }))
            .collect()
    }

    pub fn has_no_unsigned_wrap(&self) -> bool {
        self.flags() & abi::PR_SCEV_FLAG_NUW != 0
    }

    pub fn has_no_signed_wrap(&self) -> bool {
        self.flags() & abi::PR_SCEV_FLAG_NSW != 0
    }

    pub fn has_no_self_wrap(&self) -> bool {
        self.flags() & abi::PR_SCEV_FLAG_NW != 0
    }

    fn flags(&self) -> u32 {
        unsafe { (self.api.scev_flags)(self.raw()) }
    }

    /// Bit width of an integer expression; `None` for pointers.
    pub fn bit_width(&self) -> Option<u32> {
        let ty = self.raw_type()?;
        // SAFETY: the type is live; the width is only read of an integer type.
        unsafe {
            (c::LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMIntegerTypeKind)
                .then(|| c::LLVMGetIntTypeWidth(ty))
        }
    }

    /// The LLVM type of the expression, printed (`i64`, `ptr`).
    pub fn type_name(&self) -> String {
        let ty = unsafe { (self.api.scev_type)(self.raw()) };
        // SAFETY: LLVMPrintTypeToString returns a string to free with LLVMDisposeMessage.
        unsafe {
            let raw = c::LLVMPrintTypeToString(ty);
            let text = CStr::from_ptr(raw).to_string_lossy().into_owned();
            c::LLVMDisposeMessage(raw);
            text
        }
    }

    /// The LLVM type of the expression.
    pub(crate) fn raw_type(&self) -> Option<LLVMTypeRef> {
        let ty = unsafe { (self.api.scev_type)(self.raw()) };
        (!ty.is_null()).then_some(ty)
    }

    /// The ConstantInt of a constant, the IR value of an unknown leaf.
    fn value(&self) -> Option<LLVMValueRef> {
        let value = unsafe { (self.api.scev_value)(self.raw()) };
        (!value.is_null()).then_some(value)
    }

    /// The value of a constant expression that fits in 64 bits.
    pub fn constant(&self) -> Option<i64> {
        if self.kind() != ScevKind::Constant {
            return None;
        }
        let value = self.value()?;
        // SAFETY: a constant expression's value is a live ConstantInt.
        unsafe {
            let ty = c::LLVMTypeOf(value);
            let low = c::LLVMConstIntGetSExtValue(value);
            // Wider than 64 bits, it fits when it is its low word sign-extended: constants
            // are uniqued, so that constant is this one.
            let fits =
                c::LLVMGetIntTypeWidth(ty) <= 64 || c::LLVMConstInt(ty, low as u64, 1) == value;
            fits.then_some(low)
        }
    }

    /// The IR value behind an `Unknown` leaf.
    pub fn unknown_value(&self) -> Option<LLVMValueRef> {
        if self.kind() != ScevKind::Unknown {
            return None;
        }
        self.value()
    }

    /// `%name` of the value behind an `Unknown` leaf.
    pub fn unknown_name(&self) -> Option<String> {
        self.unknown_value().map(|v| operand_name(self.api, v))
    }

    /// The loop of an add recurrence.
    pub fn add_rec_loop(&self) -> Option<Loop<'f>> {
        NonNull::new(unsafe { (self.api.scev_add_rec_loop)(self.raw()) })
            .map(|raw| Loop { api: self.api, raw })
    }

    /// LLVM's own printing of the expression.
    pub fn llvm_text(&self) -> String {
        take_host_string(unsafe { (self.api.scev_to_string)(self.raw()) })
    }
}

#[cfg(test)]
mod tests {
    use super::MemoryEffect;

    const ARGUMENTS: u32 = 0;
    const INACCESSIBLE: u32 = 1;
    const ERRNO: u32 = 2;
    const OTHER: u32 = 3;

    /// llvm::MemoryEffects' encoding of reads (1), writes (2) or both (3) at `location`.
    fn at(location: u32, access: u32) -> u32 {
        access << (2 * location)
    }

    #[test]
    fn memory_effects_are_read_from_their_encoding() {
        let effect = MemoryEffect::of_encoding;
        assert_eq!(effect(0), MemoryEffect::None);
        assert_eq!(effect(at(ERRNO, 2)), MemoryEffect::ErrnoWrite);
        assert_eq!(effect(at(ERRNO, 1)), MemoryEffect::Read);
        assert_eq!(effect(at(ERRNO, 3)), MemoryEffect::ReadWrite);
        assert_eq!(effect(at(ARGUMENTS, 1) | at(OTHER, 1)), MemoryEffect::Read);
        assert_eq!(effect(at(ARGUMENTS, 2) | at(ERRNO, 2)), MemoryEffect::Write);
        assert_eq!(
            effect(at(INACCESSIBLE, 1) | at(OTHER, 2)),
            MemoryEffect::ReadWrite
        );
    }
}
