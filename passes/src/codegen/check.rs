//! The run-time check in front of generated code, computed in isl terms before any IR
//! changes: the model's assumed context as a condition on the parameters, and for each
//! alias group the address range each array is accessed in, to be compared pairwise.

use crate::isl::ast::{AstExpr, ExprBuilder};
use crate::isl::Set;
use crate::model::{AccessKind, Scop, ScopSpec};

use super::CodegenError;

/// Bounds of the elements of one array the region accesses: per dimension, the least
/// and greatest subscript, and the dimension's stride in elements. The address range
/// `[sum(low_d * stride_d), sum(high_d * stride_d)]` covers every access (inner
/// subscripts stay in their dimension under the model's in-bounds assumptions, which
/// the same check tests).
pub struct ArrayRange {
    pub array: String,
    pub element_size: u32,
    pub low: Vec<AstExpr>,
    pub high: Vec<AstExpr>,
    pub stride: Vec<AstExpr>,
    pub written: bool,
}

/// Everything the check block evaluates.
pub struct RuntimeCheck {
    /// True exactly when the assumptions of the model hold.
    pub assumptions: AstExpr,
    /// Pairs of arrays whose ranges must not overlap (at least one is written).
    pub disjoint: Vec<(ArrayRange, ArrayRange)>,
}

pub fn runtime_check(spec: &ScopSpec, scop: &Scop) -> Result<RuntimeCheck, CodegenError> {
    let builder = ExprBuilder::new(&scop.context).map_err(CodegenError::Isl)?;
    let assumptions = builder
        .condition(&scop.assumed_context)
        .map_err(CodegenError::Isl)?;
    let mut disjoint = Vec::new();
    for group in &spec.alias_groups {
        // An array the new code never accesses (a temporary expression propagation
        // removed) overlaps nothing.
        let ranges: Vec<ArrayRange> = group
            .iter()
            .map(|array| array_range(&builder, scop, array))
            .filter_map(Result::transpose)
            .collect::<Result<_, _>>()?;
        for (i, a) in ranges.iter().enumerate() {
            for b in &ranges[i + 1..] {
                if a.written || b.written {
                    disjoint.push((clone_range(a), clone_range(b)));
                }
            }
        }
    }
    Ok(RuntimeCheck {
        assumptions,
        disjoint,
    })
}

/// The range of every memory array the region accesses: the fields a versioned nest
/// hoisted (`detect::hoisted`) must lie outside those it writes, and the rows a nest
/// versioned for its row pointers (`detect::rows`) computes are checked over theirs.
pub fn memory_ranges(spec: &ScopSpec, scop: &Scop) -> Result<Vec<ArrayRange>, CodegenError> {
    let builder = ExprBuilder::new(&scop.context).map_err(CodegenError::Isl)?;
    let mut ranges = Vec::new();
    for array in spec.arrays.iter().filter(|a| !a.is_scalar) {
        if let Some(range) = array_range(&builder, scop, &array.name)? {
            ranges.push(range);
        }
    }
    Ok(ranges)
}

fn clone_range(r: &ArrayRange) -> ArrayRange {
    ArrayRange {
        array: r.array.clone(),
        element_size: r.element_size,
        low: r.low.clone(),
        high: r.high.clone(),
        stride: r.stride.clone(),
        written: r.written,
    }
}

/// The per-dimension bounds of the elements any statement instance accesses in
/// `array` (`None`: none does).
pub(super) fn array_range(
    builder: &ExprBuilder,
    scop: &Scop,
    array: &str,
) -> Result<Option<ArrayRange>, CodegenError> {
    let info = scop
        .arrays
        .iter()
        .find(|a| a.name == array)
        .ok_or_else(|| {
            CodegenError::Unsupported(format!("alias group names unknown array {array}"))
        })?;
    let mut elements: Option<Set> = None;
    let mut written = false;
    // The model's own statements and accesses: after expression propagation they are
    // no longer the spec's.
    for statement in &scop.statements {
        for access in &statement.accesses {
            if access.array != array {
                continue;
            }
            written |= access.kind != AccessKind::Read;
            let touched = access
                .relation
                .copy()
                .and_then(|r| r.intersect_domain(statement.domain.copy()?))
                .and_then(|r| r.range())
                .map_err(CodegenError::Isl)?;
            elements = Some(match elements {
                None => touched,
                Some(e) => e.union(touched).map_err(CodegenError::Isl)?,
            });
        }
    }
    let Some(elements) = elements else {
        return Ok(None);
    };
    let dims = info.inner_sizes.len() + 1;
    let (mut low, mut high, mut stride) = (Vec::new(), Vec::new(), Vec::new());
    for d in 0..dims {
        let values = elements
            .copy()
            .and_then(|e| e.project_onto(d))
            .map_err(CodegenError::Isl)?;
        let (lo, hi) = builder
            .bounds(&values)
            .map_err(CodegenError::Isl)?
            .ok_or_else(|| {
                CodegenError::Unsupported(format!("the accesses of {array} are not bounded"))
            })?;
        low.push(lo);
        high.push(hi);
        // Stride of dimension d: the product of the sizes of the dimensions after it.
        stride.push(size_product(builder, &info.inner_size_values[d..])?);
    }
    Ok(Some(ArrayRange {
        array: array.to_string(),
        element_size: info.element_size,
        low,
        high,
        stride,
        written,
    }))
}

/// The product of array sizes (one-point sets over the parameters) as an AST
/// expression. Products of parameters are not affine, so each factor is built on its own.
fn size_product(builder: &ExprBuilder, sizes: &[Set]) -> Result<AstExpr, CodegenError> {
    let mut factors = Vec::new();
    for size in sizes {
        let (value, _) = builder
            .bounds(size)
            .map_err(CodegenError::Isl)?
            .ok_or_else(|| {
                let shown = size.to_str().unwrap_or_else(|_| "an array size".into());
                CodegenError::Unsupported(format!("array size {shown} is unbounded"))
            })?;
        factors.push(value);
    }
    Ok(factors
        .into_iter()
        .reduce(|a, b| AstExpr::Op(crate::isl::ast::AstOp::Mul, vec![a, b]))
        .unwrap_or(AstExpr::Int(1)))
}
