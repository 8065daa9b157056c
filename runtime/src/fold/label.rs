//! Affine label functions of folded pieces (paper, Fig. 8), one per label output:
//! `f(x) = r + Σ c_q·x_q` where each coefficient is ⊥ (the piece has not varied along
//! that loop yet), a known integer, or ⊤ (not affine along that loop: widened).
//! Coefficient types only move forward, ⊥ → integer → ⊤.
//!
//! Invariant kept by every operation: `remaining = f(init) − Σ_{q known} c_q·init_q`,
//! where `init` is the piece's anchor (its lexicographically smallest vertex). A ⊤
//! coefficient is not subtracted, so `remaining` is only checked at anchors along ⊤
//! loops: the over-approximation the paper accepts. All arithmetic is checked i128
//! (labels are 64-bit addresses or iteration counters); an overflow refuses the
//! absorption instead of wrapping.

/// One coefficient of a label function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coefficient {
    /// The piece is flat along this loop so far; becomes 0 when the stream ends.
    Bottom,
    Known(i128),
    /// Not affine along this loop.
    Top,
}

/// One output of a label function; coefficients are indexed by IV position, outermost
/// loop first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelOutput {
    pub remaining: i128,
    pub coefficients: Vec<Coefficient>,
}

impl LabelOutput {
    /// The label of a single point: every coefficient ⊥, `remaining` the value.
    pub fn of_point(value: i128, dims: usize) -> LabelOutput {
        LabelOutput {
            remaining: value,
            coefficients: vec![Coefficient::Bottom; dims],
        }
    }

    /// Whether no coefficient is ⊤.
    pub fn is_affine(&self) -> bool {
        !self.coefficients.contains(&Coefficient::Top)
    }

    /// The value at `point`, if the function is affine (⊥ counts as 0).
    pub fn evaluate(&self, point: &[i64]) -> Option<i128> {
        let mut value = self.remaining;
        for (coefficient, &x) in self.coefficients.iter().zip(point) {
            match coefficient {
                Coefficient::Bottom => {}
                Coefficient::Known(c) => value = value.checked_add(c.checked_mul(x as i128)?)?,
                Coefficient::Top => return None,
            }
        }
        Some(value)
    }

    /// ⊥ → 0: at the end of the stream a loop that never varied ran once.
    pub fn finish(&mut self) {
        for coefficient in &mut self.coefficients {
            if *coefficient == Coefficient::Bottom {
                *coefficient = Coefficient::Known(0);
            }
        }
    }

    /// The label function of `self` (anchor `a_init`) absorbing `b` (anchor `b_init`)
    /// along IV position `along`. In a merge `self` is flat along it and the coefficient
    /// is solved for (the anchors are exactly one step apart); in an extension it must
    /// already be known and is checked. With `widen`, a known coefficient that does not
    /// fit becomes ⊤ instead of refusing. `None`: refused (or overflow).
    pub fn absorbed(
        &self,
        a_init: &[i64],
        b: &LabelOutput,
        b_init: &[i64],
        along: usize,
        widen: bool,
    ) -> Option<LabelOutput> {
        let mut coefficients = self.coefficients.clone();
        let mut r_a = self.remaining;
        let mut r_b = b.remaining;
        // Inner loops (positions after `along`): bring both functions to one set of
        // coefficients, keeping the invariant on both remaining values.
        for q in along + 1..coefficients.len() {
            let (xa, xb) = (a_init[q] as i128, b_init[q] as i128);
            coefficients[q] = match (self.coefficients[q], b.coefficients[q]) {
                (Coefficient::Known(ca), Coefficient::Known(cb)) if ca == cb => {
                    Coefficient::Known(ca)
                }
                (Coefficient::Known(ca), Coefficient::Known(cb)) => {
                    if !widen {
                        return None;
                    }
                    r_a = r_a.checked_add(ca.checked_mul(xa)?)?;
                    r_b = r_b.checked_add(cb.checked_mul(xb)?)?;
                    Coefficient::Top
                }
                (Coefficient::Known(c), Coefficient::Bottom) => {
                    r_b = r_b.checked_sub(c.checked_mul(xb)?)?;
                    Coefficient::Known(c)
                }
                (Coefficient::Bottom, Coefficient::Known(c)) => {
                    r_a = r_a.checked_sub(c.checked_mul(xa)?)?;
                    Coefficient::Known(c)
                }
                (Coefficient::Known(c), Coefficient::Top) => {
                    r_a = r_a.checked_add(c.checked_mul(xa)?)?;
                    Coefficient::Top
                }
                (Coefficient::Top, Coefficient::Known(c)) => {
                    r_b = r_b.checked_add(c.checked_mul(xb)?)?;
                    Coefficient::Top
                }
                (Coefficient::Bottom, Coefficient::Bottom) => Coefficient::Bottom,
                _ => Coefficient::Top,
            };
        }
        let (xa, xb) = (a_init[along] as i128, b_init[along] as i128);
        match self.coefficients[along] {
            Coefficient::Bottom => {
                // Merge: the anchors are one step apart along `along`.
                let step = xb.checked_sub(xa)?;
                if step != 1 {
                    return None;
                }
                let c = r_b.checked_sub(r_a)?;
                coefficients[along] = Coefficient::Known(c);
                r_a = r_a.checked_sub(c.checked_mul(xa)?)?;
            }
            Coefficient::Known(c) => {
                let fits = c
                    .checked_mul(xb)
                    .and_then(|cx| r_b.checked_sub(cx))
                    .is_some_and(|value| value == r_a);
                if !fits {
                    if !widen {
                        return None;
                    }
                    coefficients[along] = Coefficient::Top;
                    r_a = r_a.checked_add(c.checked_mul(xa)?)?;
                }
            }
            Coefficient::Top => {}
        }
        Some(LabelOutput {
            remaining: r_a,
            coefficients,
        })
    }

    /// Everything ⊤: the label after the geometric give-up.
    pub fn top(dims: usize) -> LabelOutput {
        LabelOutput {
            remaining: 0,
            coefficients: vec![Coefficient::Top; dims],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Coefficient::{Bottom, Known, Top};

    #[test]
    fn merging_two_points_solves_the_coefficient() {
        let a = LabelOutput::of_point(67, 2);
        let b = LabelOutput::of_point(71, 2);
        let merged = a.absorbed(&[0, 0], &b, &[0, 1], 1, true).unwrap();
        assert_eq!(merged.coefficients, vec![Bottom, Known(4)]);
        assert_eq!(merged.remaining, 67);
    }

    #[test]
    fn an_extension_that_does_not_fit_widens_to_top_and_keeps_the_anchor_value() {
        let a = LabelOutput {
            remaining: 67,
            coefficients: vec![Bottom, Known(4)],
        };
        let b = LabelOutput::of_point(77, 2);
        assert_eq!(a.absorbed(&[0, 0], &b, &[0, 2], 1, false), None);
        let widened = a.absorbed(&[0, 0], &b, &[0, 2], 1, true).unwrap();
        assert_eq!(widened.coefficients, vec![Bottom, Top]);
        assert_eq!(widened.remaining, 67);
    }

    #[test]
    fn inner_coefficient_known_on_one_side_is_taken_by_the_other() {
        // Row 0: 10 + 1·k (k = 0..); row 1 is one point, label 20 at k = 3 → 17 at k = 0.
        let a = LabelOutput {
            remaining: 10,
            coefficients: vec![Bottom, Known(1)],
        };
        let b = LabelOutput::of_point(20, 2);
        let merged = a.absorbed(&[0, 0], &b, &[1, 3], 0, true).unwrap();
        assert_eq!(merged.coefficients, vec![Known(7), Known(1)]);
        assert_eq!(merged.evaluate(&[1, 3]), Some(20));
        assert_eq!(merged.evaluate(&[0, 5]), Some(15));
    }

    #[test]
    fn overflow_refuses_instead_of_wrapping() {
        let a = LabelOutput {
            remaining: 0,
            coefficients: vec![Known(i128::MAX)],
        };
        let b = LabelOutput::of_point(1, 1);
        assert_eq!(a.absorbed(&[2], &b, &[i64::MAX], 0, true), None);
    }
}
