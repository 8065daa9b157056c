//! Folded temporaries in the generated code (QUOV storage allocation,
//! `transform::quov::fold`): each folded array gets a buffer of its folded size, made in
//! the check block (an allocation that fails sends the program down the original code)
//! and freed where the new code ends; each load and store of the array in the new code
//! goes to its folded cell instead of the original element.
//!
//! The folded cell of element `(c0, c1, ..)`: per dimension `c - low` (kept), `c mod g`
//! (rotating copies), `c == b ? g : c mod g` (a boundary index split off) or nothing
//! (dropped), in row-major order over the folded extents.
//! The subscripts come from the model's access relations as AST expressions of the
//! statement's counters (named `polyrust_q0`, ..), so one access is matched to each load
//! and store of the array in program order, as detection listed them.

use std::collections::HashMap;

use inkwell::values::{AsValueRef, InstructionOpcode};

use super::CodegenError;
use crate::detect::{DetectedRegion, StatementIr};
use crate::isl::ast::{AstExpr, ExprBuilder};
use crate::isl::Map;
use crate::llvm::builder::Value;
use crate::model::spec::AccessKind;
use crate::model::{Scop, Statement};
use crate::transform::quov::{Fold, Folding};

/// The names the subscript expressions give the statement's counters.
pub const COUNTER_PREFIX: &str = "polyrust_q";

/// How one dimension of a folded array is laid out.
pub enum FoldedDim {
    /// The accessed range `low..=high`.
    Keep { low: AstExpr, high: AstExpr },
    /// `c mod g` (`g = 1`: the dimension is gone).
    Modulo(i64),
    /// `c == boundary ? copies : c mod copies` (index-set splitting).
    Split { copies: i64, boundary: i64 },
}

pub struct FoldedArray {
    pub array: String,
    /// True for the parameter values the fold holds for (see `Folding::condition`).
    pub condition: AstExpr,
    pub element_size: u32,
    pub dims: Vec<FoldedDim>,
}

/// What the generated code needs to fold: the arrays, and per load or store of one of
/// them, which array and its subscripts.
#[derive(Default)]
pub struct FoldPlan {
    pub arrays: Vec<FoldedArray>,
    pub accesses: HashMap<Value, (usize, Vec<AstExpr>)>,
}

/// A folded array's buffer at run time, with what addresses are computed from.
pub struct Storage {
    pub buffer: Value,
    /// Per dimension: the least index (kept dimensions) and the stride in elements.
    pub low: Vec<Option<Value>>,
    pub stride: Vec<Value>,
}

/// The plan for `folds` in `region`, whose new model is `scop` and whose model as
/// written is `written`.
pub fn plan(
    region: &DetectedRegion<'_>,
    scop: &Scop,
    written: &Scop,
    folds: &[Folding],
) -> Result<FoldPlan, CodegenError> {
    let mut plan = FoldPlan::default();
    if folds.is_empty() {
        return Ok(plan);
    }
    let builder = ExprBuilder::new(&scop.assumed_context).map_err(CodegenError::Isl)?;
    for folding in folds {
        let index = plan.arrays.len();
        plan.arrays.push(folded_array(&builder, scop, folding)?);
        for (st, statement) in region.ir.statements.iter().zip(&written.statements) {
            for (inst, subscripts) in matched_accesses(region, st, statement, folding)? {
                plan.accesses.insert(inst, (index, subscripts));
            }
        }
    }
    Ok(plan)
}

/// The layout of one folded array: its accessed range for the kept dimensions, the
/// folds of the others, and the condition the fold holds under.
fn folded_array(
    builder: &ExprBuilder,
    scop: &Scop,
    folding: &Folding,
) -> Result<FoldedArray, CodegenError> {
    let range = super::check::array_range(builder, scop, &folding.array)?
        .ok_or_else(|| CodegenError::Unsupported(format!("{} is not accessed", folding.array)))?;
    let dims = folding
        .dims
        .iter()
        .enumerate()
        .map(|(k, fold)| match fold {
            Fold::Modulo(g) => Ok(FoldedDim::Modulo(*g)),
            Fold::Split { copies, boundary } => Ok(FoldedDim::Split {
                copies: *copies,
                boundary: *boundary,
            }),
            Fold::Keep => match (range.low.get(k), range.high.get(k)) {
                (Some(low), Some(high)) => Ok(FoldedDim::Keep {
                    low: low.clone(),
                    high: high.clone(),
                }),
                _ => Err(CodegenError::Unsupported(format!(
                    "no range for dimension {k} of {}",
                    folding.array
                ))),
            },
        })
        .collect::<Result<_, _>>()?;
    let condition = builder
        .condition(&folding.condition)
        .map_err(CodegenError::Isl)?;
    Ok(FoldedArray {
        array: folding.array.clone(),
        condition,
        element_size: range.element_size,
        dims,
    })
}

/// The loads and stores of the folded array in one statement, each with the subscripts
/// of the model's access it is matched to (in program order).
fn matched_accesses(
    region: &DetectedRegion<'_>,
    st: &StatementIr<'_>,
    statement: &Statement,
    folding: &Folding,
) -> Result<Vec<(Value, Vec<AstExpr>)>, CodegenError> {
    let accesses_of = |kind: AccessKind| {
        statement.accesses.iter().filter(move |a| {
            a.array == folding.array && (a.kind == AccessKind::Read) == (kind == AccessKind::Read)
        })
    };
    let instructions_of = |opcode: InstructionOpcode| {
        st.blocks
            .iter()
            .flat_map(|b| b.get_instructions())
            .filter(move |i| {
                i.get_opcode() == opcode
                    && region
                        .ir
                        .memory_arrays
                        .get(&i.as_value_ref())
                        .is_some_and(|a| *a == folding.array)
            })
    };
    // Accesses are matched to loads and stores in program order, which is the
    // order of one block's instructions only.
    if st.blocks.len() > 1
        && accesses_of(AccessKind::Read)
            .chain(accesses_of(AccessKind::MustWrite))
            .next()
            .is_some()
    {
        return Err(CodegenError::Unsupported(format!(
            "{} accesses {} under a branch",
            st.name, folding.array
        )));
    }
    let mut matched = Vec::new();
    for (kind, opcode) in [
        (AccessKind::Read, InstructionOpcode::Load),
        (AccessKind::MustWrite, InstructionOpcode::Store),
    ] {
        let accesses: Vec<_> = accesses_of(kind).collect();
        let instructions: Vec<_> = instructions_of(opcode).collect();
        if accesses.len() != instructions.len() {
            return Err(CodegenError::Unsupported(format!(
                "{} accesses {} {} times, its model {} times",
                st.name,
                folding.array,
                instructions.len(),
                accesses.len()
            )));
        }
        for (access, inst) in accesses.iter().zip(instructions) {
            matched.push((inst.as_value_ref(), subscripts(&access.relation)?));
        }
    }
    Ok(matched)
}

/// The subscripts of an access relation as expressions of the statement's counters.
fn subscripts(relation: &Map) -> Result<Vec<AstExpr>, CodegenError> {
    let n = relation.n_in().map_err(CodegenError::Isl)?;
    let names: Vec<String> = (0..n).map(|k| format!("{COUNTER_PREFIX}{k}")).collect();
    crate::isl::ast::function_expressions(relation, &names)
        .map_err(CodegenError::Isl)?
        .ok_or_else(|| {
            let shown = relation.to_str().unwrap_or_else(|_| "an access".into());
            CodegenError::Unsupported(format!("a subscript of {shown} is unbounded"))
        })
}
