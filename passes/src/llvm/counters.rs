//! Add recurrences evaluated at given iteration numbers: `{start,+,step}<L>` becomes
//! `start + step * counter(L)`, so that generated code computes a subscript or bound from
//! its own loop counters instead of the original loops' induction variables; and values
//! replaced by constants, as LLVM's `SCEVParameterRewriter` does (speculation).
//! Relies on ScalarEvolution (through the host) to build and unique the expressions; the
//! walk visits each distinct subexpression once, in operand order, and rebuilds only
//! what changed, as LLVM's own `SCEVRewriteVisitor` does.

use std::collections::HashMap;

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMTypeKind;
use inkwell::values::{AsValueRef, InstructionValue};

use super::host::{FunctionAnalyses, Loop, Scev, ScevKind};

impl<'f> FunctionAnalyses<'f> {
    /// Emits, before `before`, the value of `expr` where each add recurrence of
    /// `loops[k]` is evaluated at iteration `counters[k]` (i64 values), as type `ty`;
    /// `None` when a recurrence of those loops is not affine or the value cannot be
    /// expanded there.
    pub(crate) fn expand_with_counters(
        &self,
        expr: Scev<'f>,
        loops: &[Loop<'f>],
        counters: &[LLVMValueRef],
        ty: LLVMTypeRef,
        before: InstructionValue<'f>,
    ) -> Option<LLVMValueRef> {
        let counted: Vec<(Loop<'f>, LLVMValueRef)> = loops
            .iter()
            .copied()
            .zip(counters.iter().copied())
            .collect();
        let rewritten = at_iterations(self, expr, &counted)?;
        if rewritten.is_could_not_compute() {
            return None;
        }
        // Not canonical: the counters are the induction variables.
        self.expand_raw(rewritten, ty, before, false)
    }

    /// `expr` with each value of `constants` (the last given for a value counts; values
    /// that are not integers are left alone) replaced by its constant, and simplified.
    pub fn scev_substitute(&self, expr: Scev<'f>, constants: &[(LLVMValueRef, i64)]) -> Scev<'f> {
        // The constants are made first, in the order given, as LLVM's map of them is.
        let constants: Vec<(LLVMValueRef, Scev<'f>)> = constants
            .iter()
            .filter_map(|&(value, constant)| {
                let ty = super::ir::type_of(value);
                // SAFETY: the value's type is live; only its kind is read.
                let integer =
                    unsafe { c::LLVMGetTypeKind(ty) } == LLVMTypeKind::LLVMIntegerTypeKind;
                integer.then(|| (value, self.scev_constant(ty, constant)))
            })
            .collect();
        let mut rewriter = CounterRewriter {
            fa: self,
            counters: &[],
            constants: &constants,
            rewritten: HashMap::new(),
            failed: false,
        };
        rewriter.visit(expr)
    }
}

/// `expr` with the add recurrences of the loops of `counters` evaluated at their counter
/// (an i64 value; the last one given for a loop counts); `None` when one of them is not
/// affine.
pub(crate) fn at_iterations<'f>(
    fa: &FunctionAnalyses<'f>,
    expr: Scev<'f>,
    counters: &[(Loop<'f>, LLVMValueRef)],
) -> Option<Scev<'f>> {
    let mut rewriter = CounterRewriter {
        fa,
        counters,
        constants: &[],
        rewritten: HashMap::new(),
        failed: false,
    };
    let rewritten = rewriter.visit(expr);
    (!rewriter.failed).then_some(rewritten)
}

struct CounterRewriter<'a, 'f> {
    fa: &'a FunctionAnalyses<'f>,
    counters: &'a [(Loop<'f>, LLVMValueRef)],
    /// Values replaced by constants.
    constants: &'a [(LLVMValueRef, Scev<'f>)],
    /// Each subexpression's rewriting, made once.
    rewritten: HashMap<Scev<'f>, Scev<'f>>,
    /// A recurrence of a counted loop was not affine.
    failed: bool,
}

impl<'f> CounterRewriter<'_, 'f> {
    fn visit(&mut self, expr: Scev<'f>) -> Scev<'f> {
        if let Some(done) = self.rewritten.get(&expr) {
            return *done;
        }
        let done = self.rewrite(expr);
        self.rewritten.insert(expr, done);
        done
    }

    fn rewrite(&mut self, expr: Scev<'f>) -> Scev<'f> {
        match expr.kind() {
            ScevKind::Unknown => self.constant_for(expr).unwrap_or(expr),
            ScevKind::Constant | ScevKind::VScale | ScevKind::CouldNotCompute => expr,
            ScevKind::AddRec => match self.counter_of(expr) {
                Some(counter) => self.at_counter(expr, counter),
                None => self.with_operands_rewritten(expr),
            },
            _ => self.with_operands_rewritten(expr),
        }
    }

    /// The constant given for the value of an unknown leaf.
    fn constant_for(&self, leaf: Scev<'f>) -> Option<Scev<'f>> {
        let value = leaf.unknown_value()?;
        self.constants
            .iter()
            .rev()
            .find(|(given, _)| *given == value)
            .map(|(_, constant)| *constant)
    }

    /// The counter given for the loop of an add recurrence.
    fn counter_of(&self, rec: Scev<'f>) -> Option<LLVMValueRef> {
        let l = rec.add_rec_loop()?;
        self.counters
            .iter()
            .rev()
            .find(|(counted, _)| *counted == l)
            .map(|(_, counter)| *counter)
    }

    /// `{start,+,step}` at iteration `counter`: `start + step * counter`, in the
    /// recurrence's integer type (a pointer's: the integer of its width).
    fn at_counter(&mut self, rec: Scev<'f>, counter: LLVMValueRef) -> Scev<'f> {
        let operands = rec.operands();
        let (&[start, step], Some(ty)) = (&operands[..], rec.raw_type()) else {
            self.failed = true;
            return rec;
        };
        let int_ty = integer_type_of(self.fa, ty);
        let start = self.visit(start);
        let step = self.visit(step);
        let counter = self.fa.scev_unknown(counter);
        let counter = self.fa.scev_truncate_or_sign_extend(counter, int_ty);
        let scaled = self.fa.scev_mul(step, counter);
        self.fa.scev_add(start, scaled)
    }

    fn with_operands_rewritten(&mut self, expr: Scev<'f>) -> Scev<'f> {
        let operands = expr.operands();
        let rewritten: Vec<Scev<'f>> = operands.iter().map(|o| self.visit(*o)).collect();
        if rewritten == operands {
            expr
        } else {
            self.fa.scev_with_operands(expr, &rewritten)
        }
    }
}

/// `ty` itself for an integer type; for a pointer type, the integer type of its width in
/// the module's data layout.
fn integer_type_of(fa: &FunctionAnalyses<'_>, ty: LLVMTypeRef) -> LLVMTypeRef {
    // SAFETY: the type and the function's module are live for the call from the shim.
    unsafe {
        if c::LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMPointerTypeKind {
            return ty;
        }
        let module = c::LLVMGetGlobalParent(fa.function().as_value_ref());
        let layout = inkwell::llvm_sys::target::LLVMGetModuleDataLayout(module);
        inkwell::llvm_sys::target::LLVMIntPtrTypeForASInContext(
            c::LLVMGetTypeContext(ty),
            layout,
            c::LLVMGetPointerAddressSpace(ty),
        )
    }
}
