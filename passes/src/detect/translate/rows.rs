//! Linear offsets as rows and columns of a parametric-size array: `size * row +
//! column` with both parts quasi-affine, for accesses LLVM's delinearization gives up
//! on (clamped subscripts). Relies on the translator's expressions, conditions of
//! merges (`guard_phi`) and no-wrap assumptions.

use super::{extremum_operands, is_ring, Merged, Translator};
use crate::detect::affine::{Affine, Atom, CmpOp, Cond};
use crate::llvm::ir::as_instruction;
use crate::llvm::source_terms::describe_scev;
use crate::llvm::{Scev, ScevKind};

impl<'f> Translator<'_, 'f> {
    /// `scev` as `size * row + column`, both quasi-affine, where `size` is the
    /// translation of an array's row length (a parameter): the linear offset of an
    /// access to a parametric-size array whose subscripts are clamped
    /// (`in[y * w + min(x + 1, w - 1)]`, `tmp[min(y + 1, h - 1) * w + x]`), which
    /// LLVM's delinearization gives up on, and which is not affine as a whole (a
    /// counter times the parameter). Products are taken apart only where one factor is
    /// `size` itself; minima, maxima and everything else must be affine on their own.
    pub fn rows_of(&self, scev: Scev<'f>, size: &Affine) -> Result<(Affine, Affine), String> {
        let ops = scev.operands();
        match scev.kind() {
            // The row length itself spelled as a sum (`w = m + 1`): one row.
            ScevKind::Add if self.is_size(scev, size) => {
                Ok((Affine::constant(1), Affine::constant(0)))
            }
            ScevKind::Add => {
                let (mut row, mut column) = (Affine::constant(0), Affine::constant(0));
                for op in ops {
                    let (r, c) = self.rows_of(op, size)?;
                    row = row.add(&r).ok_or_else(overflow)?;
                    column = column.add(&c).ok_or_else(overflow)?;
                }
                Ok((row, column))
            }
            ScevKind::Mul => self.rows_of_product(scev, ops, size),
            ScevKind::AddRec => self.rows_of_recurrence(scev, &ops, size),
            ScevKind::SignExtend | ScevKind::ZeroExtend => {
                self.rows_of_extension(scev, ops[0], size)
            }
            ScevKind::Unknown => {
                let phi = scev.unknown_value().and_then(as_instruction);
                match phi.and_then(|i| self.guard_phi(i)) {
                    Some(merged) => self.rows_of_merge(merged?, size),
                    None => self.leaf_of_rows(scev, size),
                }
            }
            _ => self.leaf_of_rows(scev, size),
        }
    }

    /// A product in `rows_of`: constants times at most one factor, where `size` times
    /// something without `size` in it is a row.
    fn rows_of_product(
        &self,
        scev: Scev<'f>,
        ops: Vec<Scev<'f>>,
        size: &Affine,
    ) -> Result<(Affine, Affine), String> {
        let mut factor: i128 = 1;
        let mut rest: Option<(Affine, Affine)> = None;
        for op in ops {
            let (r, c) = self.rows_of(op, size)?;
            let zero = Affine::constant(0);
            if let (true, Some(k)) = (r == zero, c.as_constant()) {
                factor = factor.checked_mul(k).ok_or_else(overflow)?;
                continue;
            }
            rest = Some(match rest {
                None => (r, c),
                // `size` times something without `size` in it: a row.
                Some((r0, c0)) if r0 == Affine::constant(1) && c0 == zero && r == zero => (c, zero),
                Some((r0, c0)) if r == Affine::constant(1) && c == zero && r0 == zero => (c0, zero),
                Some(_) => return self.not_affine(scev),
            });
        }
        let (row, column) = rest.unwrap_or((Affine::constant(0), Affine::constant(1)));
        Ok((
            row.scale(factor).ok_or_else(overflow)?,
            column.scale(factor).ok_or_else(overflow)?,
        ))
    }

    /// A recurrence in `rows_of`: its start and constant steps in rows and columns.
    fn rows_of_recurrence(
        &self,
        scev: Scev<'f>,
        ops: &[Scev<'f>],
        size: &Affine,
    ) -> Result<(Affine, Affine), String> {
        let Some(l) = scev.add_rec_loop() else {
            return self.not_affine(scev);
        };
        if ops.len() != 2 {
            return self.not_affine(scev);
        }
        let (row, column) = self.rows_of(ops[0], size)?;
        let (step_row, step_column) = self.rows_of(ops[1], size)?;
        let (Some(sr), Some(sc)) = (step_row.as_constant(), step_column.as_constant()) else {
            return self.not_affine(scev);
        };
        let counter = self.counter(l);
        Ok((
            row.add(&counter.scale(sr).ok_or_else(overflow)?)
                .ok_or_else(overflow)?,
            column
                .add(&counter.scale(sc).ok_or_else(overflow)?)
                .ok_or_else(overflow)?,
        ))
    }

    /// An extension in `rows_of`: a narrow `size * row + column` (ring operations, with
    /// extrema of ring expressions as leaves) is its mathematical value when that lies
    /// in the narrow type's signed range. The product is not affine, so what is
    /// assumed is a sufficient affine condition: `|size|, |row| < 2^15` and
    /// `|column| < 2^30` for i32 (and non-negative parts for a zero extension).
    fn rows_of_extension(
        &self,
        scev: Scev<'f>,
        inner: Scev<'f>,
        size: &Affine,
    ) -> Result<(Affine, Affine), String> {
        let signed = scev.kind() == ScevKind::SignExtend;
        let (row, column) = self.rows_of(inner, size)?;
        let leaf = matches!(inner.kind(), ScevKind::Constant | ScevKind::Unknown);
        if leaf || row == Affine::constant(0) {
            return self.leaf_of_rows(scev, size);
        }
        if !is_ring(inner) {
            let Some(operands) = extremum_operands(inner) else {
                return self.not_affine(scev);
            };
            self.assume_extrema_in_range(inner, &operands)?;
        }
        let bits = inner.bit_width().unwrap_or(64).min(127);
        let half = 1i128 << ((bits - 1) / 2);
        let quarter = 1i128 << (bits - 2);
        let within = |a: &Affine, bound: i128| {
            let low = if signed { -bound + 1 } else { 0 };
            Cond::Cmp(a.clone(), CmpOp::Ge, Affine::constant(low)).and(Cond::Cmp(
                a.clone(),
                CmpOp::Lt,
                Affine::constant(bound),
            ))
        };
        self.assume(
            within(size, half)
                .and(within(&row, half))
                .and(within(&column, quarter)),
            format!(
                "{} does not wrap in i{bits} (rows, columns and row length small)",
                describe_scev(self.fa, inner),
            ),
        );
        Ok((row, column))
    }

    /// The values of a phi or select (see `guard_phi`) in `rows_of`, as selects of
    /// their rows and of their columns.
    fn rows_of_merge(&self, merged: Merged<'f>, size: &Affine) -> Result<(Affine, Affine), String> {
        let select = |cond: &Cond, a: Affine, b: Affine| {
            if a == b {
                a
            } else {
                Affine::atom(Atom::Select(
                    Box::new(cond.clone()),
                    Box::new(a),
                    Box::new(b),
                ))
            }
        };
        let mut out: Option<(Affine, Affine)> = None;
        for (cond, value) in merged.into_iter().rev() {
            let (r, c) = self.rows_of(value, size)?;
            out = Some(match (out, cond) {
                (Some((r0, c0)), Some(cond)) => (select(&cond, r, r0), select(&cond, c, c0)),
                _ => (r, c),
            });
        }
        out.ok_or_else(|| "a phi without incoming values".into())
    }

    /// Whether `scev` translates to `size` as a whole; what its translation assumes is
    /// kept only if it does.
    fn is_size(&self, scev: Scev<'f>, size: &Affine) -> bool {
        let before = self.take_assumed();
        let whole = self.affine(scev).is_ok_and(|a| a == *size);
        let made = self.take_assumed();
        let mut assumed = self.assumed.borrow_mut();
        assumed.extend(before);
        if whole {
            assumed.extend(made);
        }
        whole
    }

    /// A part of `rows_of` translated as a whole: `size` itself is one row.
    fn leaf_of_rows(&self, scev: Scev<'f>, size: &Affine) -> Result<(Affine, Affine), String> {
        let a = self.affine(scev)?;
        Ok(if a == *size {
            (Affine::constant(1), Affine::constant(0))
        } else {
            (Affine::constant(0), a)
        })
    }
}

fn overflow() -> String {
    "overflow".to_string()
}
