//! C zeroed by a `memset` before the product: `for (i) { for (j) C[i][j] = 0; for (k)
//! for (j) C[i][j] += A[i][k] * B[k][j]; }` after LLVM has turned the zeroing loop into
//! `memset(&C[i][0], 0, N * sizeof(double))` (as it does at -O3, more so with
//! `-march=native`), or one `memset` of the whole of C before the nest. The bytes are
//! all zero, so every element the update reads first is +0.0: the sums start at +0.0
//! (`Start::Zero`), as after `C[i][j] = 0`.
//!
//! Relies on the model: the `memset` is a statement less than two loops deep whose only
//! access writes C, ordered before the update in the loops they share; its written
//! elements are, for each of its instances, exactly the rows (all of C's rows, or row
//! i) and columns the update makes. The IR gives its value (byte 0).

use crate::detect::{DetectedRegion, StatementIr};
use crate::isl::ast::{AstExpr, ExprBuilder};
use crate::isl::{AffineExpr, Map, Set, Tuple};
use crate::llvm::ir::{is_constant_int, memory_transfer, operand};
use crate::model::{AccessKind, Scop, Statement};
use crate::transform::Subject;

use super::recognise::spanned_box;

/// Checks that `first` zeroes with a `memset` exactly the elements of C the update
/// writes (rows 0 to `highs[0]`, columns 0 to `highs[j]`), before the update reaches
/// them: a statement in the rows' loop (row i zeroed before row i is updated) or before
/// the update's loops (all of C).
pub(super) fn check_zeroed(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    builder: &ExprBuilder,
    first: &Statement,
    update: &Statement,
    highs: &[AstExpr],
    j: usize,
) -> Result<(), String> {
    let isl = |e: crate::isl::IslError| e.to_string();
    let [write] = first.accesses.as_slice() else {
        return Err("the first statement makes more than C's zeroing".into());
    };
    let ir = statement_ir(subject.region, first)?;
    if write.kind != AccessKind::MustWrite || !zeroing_memset(ir) {
        return Err("the first statement is not a memset of C to zero".into());
    }
    let depth = first.depth();
    let (f, u) = (&first.textual_positions, &update.textual_positions);
    if depth > 1 || f[..depth] != u[..depth] || f.get(depth) >= u.get(depth) {
        return Err("C is not zeroed before the product, in the same rows".into());
    }
    let elements = Elements {
        subject,
        scop,
        element: Tuple::counters(Some(&write.array), "x", 2),
        written: write
            .relation
            .copy()
            .and_then(|m| m.intersect_domain(first.domain.copy()?))
            .map_err(isl)?,
    };
    let columns = elements.projected(1)?;
    let mut expected = elements.within(1, columns.copy().map_err(isl)?)?;
    let span = |values: &Set| builder.bounds(values).map_err(isl);
    if span(&columns)? != Some((AstExpr::Int(0), highs[j].clone())) {
        return Err("C is not zeroed over the product's columns".into());
    }
    let instance = Tuple::counters(Some(&first.name), "i", depth);
    let mut pairs = Map::universe_between(subject.ctx, &scop.params, &instance, &elements.element)
        .and_then(|m| m.intersect_domain(first.domain.copy()?))
        .map_err(isl)?;
    if depth == 1 {
        // Row i in instance i, the instances those of the product's rows.
        let (first_highs, boxed) = spanned_box(subject, scop, builder, first)?;
        if !boxed.is_subset(&first.domain).map_err(isl)? || first_highs != highs[..1] {
            return Err("C is not zeroed over the product's rows".into());
        }
        pairs = pairs.shifted(0, 0).map_err(isl)?;
    } else {
        let rows = elements.projected(0)?;
        if span(&rows)? != Some((AstExpr::Int(0), highs[0].clone())) {
            return Err("C is not zeroed over the product's rows".into());
        }
        expected = expected.intersect(elements.within(0, rows)?).map_err(isl)?;
    }
    let expected = pairs.intersect_range(expected).map_err(isl)?;
    if elements.written.is_equal(&expected).map_err(isl)? {
        Ok(())
    } else {
        Err("C's zeroed elements are not the product's rows and columns".into())
    }
}

/// The elements of C a memset statement writes, by instance.
struct Elements<'a, 's, 'f> {
    subject: &'a Subject<'s, 'f>,
    scop: &'a Scop,
    /// C's element, `C[x0, x1]`.
    element: Tuple,
    /// `{ first[...] -> C[x0, x1] }` over the statement's domain.
    written: Map,
}

impl Elements<'_, '_, '_> {
    /// The map from C's element to its index `dim`.
    fn index(&self, dim: usize) -> Result<Map, String> {
        Map::from_affine(
            self.subject.ctx,
            &self.scop.params,
            &self.element,
            None,
            &[AffineExpr::Input(dim)],
        )
        .map_err(|e| e.to_string())
    }

    /// The values index `dim` takes among the written elements.
    fn projected(&self, dim: usize) -> Result<Set, String> {
        let index = self.index(dim)?;
        self.written
            .copy()
            .and_then(|w| w.apply_range(index))
            .and_then(|w| w.range())
            .map_err(|e| e.to_string())
    }

    /// The elements of C whose index `dim` is among `values`.
    fn within(&self, dim: usize, values: Set) -> Result<Set, String> {
        self.index(dim)?
            .intersect_range(values)
            .and_then(|m| m.domain())
            .map_err(|e| e.to_string())
    }
}

/// The IR of the statement `st`.
fn statement_ir<'r, 'f>(
    region: &'r DetectedRegion<'f>,
    st: &Statement,
) -> Result<&'r StatementIr<'f>, String> {
    region
        .ir
        .statements
        .iter()
        .find(|s| s.name == st.name)
        .ok_or_else(|| format!("no IR for statement {}", st.name))
}

/// Whether the statement's blocks hold one memory transfer, a `memset` of byte 0 (all
/// bits zero: +0.0 in every element), and no store.
pub(super) fn zeroing_memset(st: &StatementIr<'_>) -> bool {
    let instructions = || st.blocks.iter().flat_map(|b| b.get_instructions());
    let transfers: Vec<_> = instructions()
        .filter_map(|i| memory_transfer(i).map(|t| (i, t)))
        .collect();
    let stores = instructions()
        .filter(|i| i.get_opcode() == inkwell::values::InstructionOpcode::Store)
        .count();
    match transfers.as_slice() {
        [(call, (_, None, _))] => {
            stores == 0 && operand(*call, 1).and_then(is_constant_int) == Some(0)
        }
        _ => false,
    }
}
