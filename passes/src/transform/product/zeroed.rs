//! C zeroed by a `memset` before the product: `for (i) { for (j) C[i][j] = 0; for (k)
//! for (j) C[i][j] += A[i][k] * B[k][j]; }` after LLVM has turned the zeroing loop into
//! `memset(&C[i][0], 0, N * sizeof(double))` (as it does at -O3 on every target). The
//! bytes are all zero, so every element the update reads first is +0.0: the sums start
//! at +0.0 (`Start::Zero`), as after `C[i][j] = 0`.
//!
//! Relies on the model: the `memset` is a statement in the rows' loop whose only access
//! writes C, before the update's loops; its instance i writes exactly row i of C, over
//! the columns the update makes, and its instances are the update's rows. The IR gives
//! its value (byte 0).

use crate::detect::{DetectedRegion, StatementIr};
use crate::isl::ast::{AstExpr, ExprBuilder};
use crate::isl::{AffineExpr, Map, Set, Tuple};
use crate::llvm::ir::{is_constant_int, memory_transfer, operand};
use crate::model::{AccessKind, Scop, Statement};
use crate::transform::Subject;

use super::recognise::spanned_box;

/// Checks that `first` zeroes with a `memset` exactly the elements of C the update
/// writes (rows 0 to `highs[0]`, columns 0 to `highs[j]`), before the update reaches
/// them: a statement in the rows' loop, row i zeroed before row i is updated.
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
    let (f, u) = (&first.textual_positions, &update.textual_positions);
    if first.depth() != 1 || f[0] != u[0] || f.get(1) >= u.get(1) {
        return Err("C is not zeroed before the product, in the same rows".into());
    }
    // Row i in instance i, the instances those of the product's rows.
    let (first_highs, boxed) = spanned_box(subject, scop, builder, first)?;
    if !boxed.is_subset(&first.domain).map_err(isl)? || first_highs != highs[..1] {
        return Err("C is not zeroed over the product's rows".into());
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
    let span = builder.bounds(&columns).map_err(isl)?;
    if span != Some((AstExpr::Int(0), highs[j].clone())) {
        return Err("C is not zeroed over the product's columns".into());
    }
    let instance = Tuple::counters(Some(&first.name), "i", 1);
    let expected = Map::universe_between(subject.ctx, &scop.params, &instance, &elements.element)
        .and_then(|m| m.shifted(0, 0))
        .and_then(|m| m.intersect_domain(first.domain.copy()?))
        .map_err(isl)?
        .intersect_range(elements.within(1, columns)?)
        .map_err(isl)?;
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
