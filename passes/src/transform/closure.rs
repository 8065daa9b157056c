//! Min-plus closures: the in-place all-pairs shortest-path nest (Floyd-Warshall),
//! `for k, i, j < n: A[i][j] = min(A[i][j], A[i][k] + A[k][j])` on 32-bit ints,
//! recognised in the model (one statement, three counters over one box, A read at
//! [i][j], [i][k] and [k][j] and written at [i][j]) and in the IR (`llvm.smin` of A[i][j]
//! and an `add nsw` of the two others), and replaced by polyrust's blocked kernel
//! (`passes/kernels/closure.c`, called by `codegen::closure`).
//!
//! The dependences alone forbid tiling k with i and j (every step reads row k and column
//! k as the step before left them). The kernel rests on what the arithmetic adds: while
//! each step k starts with A[k][k] >= 0, step k leaves row and column k as they are, and
//! blocked orders make the same least walk lengths; the kernel checks that per block of
//! steps, on the diagonal block, before the block's other elements change, and runs the
//! nest's own order for every step left when it fails (a negative cycle). Sums are
//! exact as long as the nest's own do not overflow, which `add nsw` lets it assume.
//! Anything else (doubles, whose sums round differently in another order; `add`
//! without `nsw`) is planned as loops.

use inkwell::values::{AsValueRef, InstructionOpcode};

use crate::isl::ast::{function_expressions, AstExpr, AstOp, ExprBuilder};
use crate::llvm::ir::{as_instruction, called_function_name, operand};
use crate::llvm::LLVMValueRef;
use crate::model::{AccessKind, Scop, Statement};
use crate::transform::product::recognise::{box_bounds, kernel_target};
use crate::transform::product::KernelTarget;
use crate::transform::Subject;

/// The kernel's symbol (`passes/kernels/closure.c`).
pub const KERNEL: &str = "polyrust_min_plus_closure_i32";

/// A recognised closure: the array, its size and row stride, and the kernel's target.
#[derive(Clone, Debug, PartialEq)]
pub struct Closure {
    /// The array's name in the model.
    pub array: String,
    /// The name a remark gives it.
    pub shown: String,
    /// n, the trip count of k, i and j (an expression of the region's parameters).
    pub size: AstExpr,
    /// The distance between A's rows, in elements.
    pub row_stride: AstExpr,
    /// The caller's target, or AVX2 and FMA behind a test of the CPU.
    pub target: KernelTarget,
}

impl Closure {
    /// What the remark says was done.
    pub fn description(&self) -> String {
        let a = &self.shown;
        format!(
            "min-plus closure {a}[i][j] = min({a}[i][j], {a}[i][k] + {a}[k][j]) \
             (all-pairs shortest paths): blocked over k with its rows, behind a check per \
             block of steps that every {a}[k][k] starts non-negative (no negative cycle), \
             the loops' own order after a block that fails it"
        )
    }

    /// The call as a printer shows it.
    pub fn call_text(&self) -> String {
        let cpu = match self.target {
            KernelTarget::Caller => "",
            KernelTarget::CpuTest => " if the CPU has AVX2 and FMA",
        };
        format!(
            "{KERNEL}(n = {}, A = {}, row stride {}){cpu}\n",
            show(&self.size),
            self.array,
            show(&self.row_stride)
        )
    }
}

/// The closure `scop` computes, or why it is not one.
pub fn recognise(subject: &Subject<'_, '_>, scop: &Scop) -> Result<Closure, String> {
    if !crate::llvm::ir::module_triple(subject.fa.function()).starts_with("x86_64") {
        return Err("not an x86-64 target".into());
    }
    let [st] = scop.statements.as_slice() else {
        return Err("not one statement".into());
    };
    let array = shape(scop, st)?;
    let builder = ExprBuilder::new(&scop.context).map_err(|e| e.to_string())?;
    let highs = box_bounds(subject, scop, &builder, st)?;
    let [k, i, j] = highs.as_slice() else {
        return Err("not three loops deep".into());
    };
    if k != i || i != j {
        return Err("k, i and j do not run over the same range".into());
    }
    arithmetic(subject, st)?;
    let model = scop
        .arrays
        .iter()
        .find(|a| a.name == array)
        .ok_or_else(|| format!("no array {array}"))?;
    let [size] = model.inner_size_values.as_slice() else {
        return Err(format!("{array} is not two-dimensional"));
    };
    let (row_stride, _) = builder
        .bounds(size)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("the rows of {array} have no size"))?;
    Ok(Closure {
        shown: subject.source_name(&array),
        array,
        size: trip_count(k),
        row_stride,
        target: kernel_target(subject),
    })
}

/// The array of a statement that reads A[i][j], A[i][k] and A[k][j] and writes A[i][j]
/// (counters k, i, j outermost first), a two-dimensional array of 32-bit ints, and
/// makes no other access.
fn shape(scop: &Scop, st: &Statement) -> Result<String, String> {
    let names: Vec<String> = (0..3).map(|d| format!("i{d}")).collect();
    let id = |d: usize| AstExpr::Id(names[d].clone());
    let at = |a: usize, b: usize| vec![id(a), id(b)];
    let mut reads = Vec::new();
    let mut written = None;
    let mut arrays = Vec::new();
    for access in &st.accesses {
        let subscripts = function_expressions(&access.relation, &names)
            .map_err(|e| e.to_string())?
            .ok_or("a subscript is not a function of the counters")?;
        arrays.push(access.array.as_str());
        match access.kind {
            AccessKind::Read => reads.push(subscripts),
            AccessKind::MustWrite if written.is_none() => written = Some(subscripts),
            _ => return Err("not one write of the element".into()),
        }
    }
    reads.sort_by_key(|s| format!("{s:?}"));
    let mut wanted = vec![at(1, 2), at(1, 0), at(0, 2)];
    wanted.sort_by_key(|s| format!("{s:?}"));
    if written != Some(at(1, 2)) || reads != wanted {
        return Err("not A[i][j] updated from A[i][j], A[i][k] and A[k][j]".into());
    }
    let array = arrays[0];
    if arrays.iter().any(|a| *a != array) {
        return Err("not one array".into());
    }
    let model = scop.arrays.iter().find(|a| a.name == array);
    if !model.is_some_and(|a| !a.is_scalar && a.rank() == 2 && a.element_type == "i32") {
        return Err("not a two-dimensional array of 32-bit ints".into());
    }
    Ok(array.to_string())
}

/// The statement stores `llvm.smin.i32(x, add nsw y z)` (either order) where x is the
/// load at the store's own address and y and z the statement's two other loads.
fn arithmetic(subject: &Subject<'_, '_>, st: &Statement) -> Result<(), String> {
    let ir = subject.region.ir.statement(&st.name)?;
    if !ir.guards.is_empty() {
        return Err("the statement runs under a data-dependent condition".into());
    }
    let instructions: Vec<_> = ir
        .blocks
        .iter()
        .flat_map(|b| b.get_instructions())
        .collect();
    let of = |opcode: InstructionOpcode| {
        instructions
            .iter()
            .filter(|i| i.get_opcode() == opcode)
            .copied()
            .collect::<Vec<_>>()
    };
    let (loads, stores) = (of(InstructionOpcode::Load), of(InstructionOpcode::Store));
    let ([store], 3) = (stores.as_slice(), loads.len()) else {
        return Err("not three loads and one store".into());
    };
    let not_min = || "the element's new value is not min(A[i][j], A[i][k] + A[k][j])".to_string();
    let least = operand(*store, 0)
        .and_then(as_instruction)
        .ok_or_else(not_min)?;
    if called_function_name(least).as_deref() != Some("llvm.smin.i32") {
        return Err(not_min());
    }
    let address = operand(*store, 1);
    let load_at = |v: Option<LLVMValueRef>| {
        loads
            .iter()
            .position(|l| Some(l.as_value_ref()) == v)
            .map(|p| (p, operand(loads[p], 0) == address))
    };
    let terms = [operand(least, 0), operand(least, 1)];
    let (own, sum) = match (load_at(terms[0]), load_at(terms[1])) {
        (Some((p, true)), _) => (p, terms[1]),
        (_, Some((p, true))) => (p, terms[0]),
        _ => return Err(not_min()),
    };
    let sum = sum.and_then(as_instruction).ok_or_else(not_min)?;
    if sum.get_opcode() != InstructionOpcode::Add || !no_signed_wrap(sum.as_value_ref()) {
        return Err("the sum is not an add that cannot wrap (nsw)".into());
    }
    let (y, z) = (load_at(operand(sum, 0)), load_at(operand(sum, 1)));
    match (y, z) {
        (Some((y, _)), Some((z, _))) if y != z && y != own && z != own => Ok(()),
        _ => Err(not_min()),
    }
}

/// Whether the instruction `value` (an `add`) has the `nsw` flag.
fn no_signed_wrap(value: LLVMValueRef) -> bool {
    // SAFETY: reading a flag of a live binary operator of the function's own IR.
    unsafe { inkwell::llvm_sys::core::LLVMGetNSW(value) != 0 }
}

/// The trip count of a counter from 0 to `high`: `n` rather than `n - 1 + 1`.
fn trip_count(high: &AstExpr) -> AstExpr {
    match high {
        AstExpr::Op(AstOp::Sub, args)
            if args.get(1) == Some(&AstExpr::Int(1)) && args.len() == 2 =>
        {
            args[0].clone()
        }
        AstExpr::Int(v) if *v < i64::MAX => AstExpr::Int(v + 1),
        _ => AstExpr::Op(AstOp::Add, vec![high.clone(), AstExpr::Int(1)]),
    }
}

fn show(e: &AstExpr) -> String {
    let joined = |args: &[AstExpr], symbol: &str| {
        let shown: Vec<String> = args.iter().map(show).collect();
        format!("({})", shown.join(symbol))
    };
    match e {
        AstExpr::Int(v) => v.to_string(),
        AstExpr::Id(name) => name.clone(),
        AstExpr::Op(AstOp::Add, args) => joined(args, " + "),
        AstExpr::Op(AstOp::Sub, args) => joined(args, " - "),
        AstExpr::Op(AstOp::Mul, args) => joined(args, " * "),
        _ => format!("{e:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trip_count_of_n_minus_one_is_n() {
        let n = AstExpr::Id("p_0".into());
        let high = AstExpr::Op(AstOp::Sub, vec![n.clone(), AstExpr::Int(1)]);
        assert_eq!(trip_count(&high), n);
        assert_eq!(trip_count(&AstExpr::Int(2799)), AstExpr::Int(2800));
        assert_eq!(show(&trip_count(&n)), "(p_0 + 1)");
    }
}
