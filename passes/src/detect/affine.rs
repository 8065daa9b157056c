//! Quasi-affine expressions and conditions over loop counters and parameters, the form
//! detection translates SCEVs and branch conditions into, and their isl notation.
//! Pure Rust: no LLVM here, so the algebra is unit-tested on its own.

use std::collections::BTreeMap;
use std::fmt::Write;

/// A non-linear leaf of an affine expression.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    /// The counter of the loop at this depth of the region (0 = outermost), counting
    /// iterations from 0.
    Counter(usize),
    /// A region-invariant integer, by index into the region's parameter list.
    Param(usize),
    /// `floor(e / d)`, d > 0.
    FloorDiv(Box<Affine>, i128),
    Min(Vec<Affine>),
    Max(Vec<Affine>),
    /// `cond ? then : otherwise`: a value merged from the paths of a branch (a guard
    /// phi, `y < 2 ? 0 : y - 2`).
    Select(Box<Cond>, Box<Affine>, Box<Affine>),
}

/// `constant + sum(coefficient * atom)`, in mathematical (unbounded) integers.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Affine {
    pub constant: i128,
    pub terms: BTreeMap<Atom, i128>,
}

/// Names to print counters and parameters with.
pub struct Names<'a> {
    pub counters: &'a [String],
    pub params: &'a [String],
}

impl Affine {
    pub fn constant(c: i128) -> Self {
        Affine {
            constant: c,
            terms: BTreeMap::new(),
        }
    }

    pub fn atom(atom: Atom) -> Self {
        let mut terms = BTreeMap::new();
        terms.insert(atom, 1);
        Affine { constant: 0, terms }
    }

    pub fn counter(depth: usize) -> Self {
        Affine::atom(Atom::Counter(depth))
    }

    pub fn param(index: usize) -> Self {
        Affine::atom(Atom::Param(index))
    }

    pub fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// `None` on overflow of the 128-bit arithmetic.
    pub fn add(&self, other: &Affine) -> Option<Affine> {
        let mut out = self.clone();
        out.constant = out.constant.checked_add(other.constant)?;
        for (atom, c) in &other.terms {
            let entry = out.terms.entry(atom.clone()).or_insert(0);
            *entry = entry.checked_add(*c)?;
        }
        out.terms.retain(|_, c| *c != 0);
        Some(out)
    }

    pub fn scale(&self, factor: i128) -> Option<Affine> {
        if factor == 0 {
            return Some(Affine::constant(0));
        }
        let mut out = Affine::constant(self.constant.checked_mul(factor)?);
        for (atom, c) in &self.terms {
            out.terms.insert(atom.clone(), c.checked_mul(factor)?);
        }
        Some(out)
    }

    pub fn sub(&self, other: &Affine) -> Option<Affine> {
        self.add(&other.scale(-1)?)
    }

    /// `self / d` when every coefficient is a multiple of `d`.
    pub fn divide_exact(&self, d: i128) -> Option<Affine> {
        if d == 0 || self.constant % d != 0 || self.terms.values().any(|c| c % d != 0) {
            return None;
        }
        Some(Affine {
            constant: self.constant / d,
            terms: self.terms.iter().map(|(a, c)| (a.clone(), c / d)).collect(),
        })
    }

    /// Deepest counter used, anywhere in the expression.
    pub fn max_counter(&self) -> Option<usize> {
        self.terms.keys().filter_map(Atom::max_counter).max()
    }

    /// The first selection among the terms, and `self` with it replaced by each of its
    /// values: `c * (C ? a : b) + rest` is `c * a + rest` where C holds, `c * b + rest`
    /// elsewhere.
    fn split_select(&self) -> Option<(&Cond, Affine, Affine)> {
        let (atom, c) = self
            .terms
            .iter()
            .find(|(atom, _)| matches!(atom, Atom::Select(..)))?;
        let Atom::Select(cond, then, otherwise) = atom else {
            return None;
        };
        let mut rest = self.clone();
        rest.terms.remove(atom);
        let with = |value: &Affine| value.scale(*c).and_then(|v| rest.add(&v));
        Some((cond, with(then)?, with(otherwise)?))
    }

    pub fn to_isl(&self, names: &Names<'_>) -> String {
        // isl reads a piecewise expression `(a : C; b : not (C))` only as a whole
        // subscript or operand of a comparison, not inside a sum: selections go
        // outermost.
        if let Some((cond, then, otherwise)) = self.split_select() {
            let c = cond.to_isl(names);
            return format!(
                "({} : {c}; {} : not ({c}))",
                then.to_isl(names),
                otherwise.to_isl(names)
            );
        }
        let mut out = String::new();
        for (atom, c) in &self.terms {
            let text = atom.to_isl(names);
            match (*c, out.is_empty()) {
                (1, true) => out.push_str(&text),
                (1, false) => {
                    let _ = write!(out, " + {text}");
                }
                (-1, true) => {
                    let _ = write!(out, "-{text}");
                }
                (-1, false) => {
                    let _ = write!(out, " - {text}");
                }
                (c, true) => {
                    let _ = write!(out, "{c}*{text}");
                }
                (c, false) if c < 0 => {
                    let _ = write!(out, " - {}*{text}", -c);
                }
                (c, false) => {
                    let _ = write!(out, " + {c}*{text}");
                }
            }
        }
        match (self.constant, out.is_empty()) {
            (c, true) => c.to_string(),
            (0, false) => out,
            (c, false) if c < 0 => format!("{out} - {}", -c),
            (c, false) => format!("{out} + {c}"),
        }
    }
}

impl Atom {
    fn max_counter(&self) -> Option<usize> {
        match self {
            Atom::Counter(d) => Some(*d),
            Atom::Param(_) => None,
            Atom::FloorDiv(e, _) => e.max_counter(),
            Atom::Min(es) | Atom::Max(es) => es.iter().filter_map(Affine::max_counter).max(),
            Atom::Select(c, a, b) => c.max_counter().max(a.max_counter()).max(b.max_counter()),
        }
    }

    fn to_isl(&self, names: &Names<'_>) -> String {
        match self {
            Atom::Counter(d) => names
                .counters
                .get(*d)
                .cloned()
                .unwrap_or_else(|| format!("i{d}")),
            Atom::Param(p) => names
                .params
                .get(*p)
                .cloned()
                .unwrap_or_else(|| format!("p{p}")),
            Atom::FloorDiv(e, d) => format!("floor(({})/{d})", e.to_isl(names)),
            Atom::Min(es) => nested("min", es, names),
            Atom::Max(es) => nested("max", es, names),
            // Only inside a minimum, maximum or division (`Affine::to_isl` lifts the
            // others), which isl does not read: never produced there by detection.
            Atom::Select(c, a, b) => format!(
                "({} : {c}; {} : not ({c}))",
                a.to_isl(names),
                b.to_isl(names),
                c = c.to_isl(names),
            ),
        }
    }
}

/// isl's min and max take two arguments; longer lists nest.
fn nested(op: &str, es: &[Affine], names: &Names<'_>) -> String {
    match es {
        [] => "0".into(),
        [e] => e.to_isl(names),
        [first, rest @ ..] => format!("{op}({}, {})", first.to_isl(names), nested(op, rest, names)),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    fn negate(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
        }
    }
}

/// A condition under which a block runs: comparisons combined with and/or.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cond {
    True,
    False,
    Cmp(Affine, CmpOp, Affine),
    And(Vec<Cond>),
    Or(Vec<Cond>),
}

impl Cond {
    pub fn and(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::True, c) | (c, Cond::True) => c,
            (Cond::False, _) | (_, Cond::False) => Cond::False,
            (Cond::And(mut a), Cond::And(b)) => {
                a.extend(b);
                Cond::And(a)
            }
            (Cond::And(mut a), c) | (c, Cond::And(mut a)) => {
                a.push(c);
                Cond::And(a)
            }
            (a, b) => Cond::And(vec![a, b]),
        }
    }

    pub fn or(self, other: Cond) -> Cond {
        match (self, other) {
            (Cond::False, c) | (c, Cond::False) => c,
            (Cond::True, _) | (_, Cond::True) => Cond::True,
            (a, b) if a == b => a,
            (Cond::Or(mut a), Cond::Or(b)) => {
                a.extend(b);
                Cond::Or(a)
            }
            (Cond::Or(mut a), c) | (c, Cond::Or(mut a)) => {
                a.push(c);
                Cond::Or(a)
            }
            (a, b) => Cond::Or(vec![a, b]),
        }
    }

    pub fn negate(self) -> Cond {
        match self {
            Cond::True => Cond::False,
            Cond::False => Cond::True,
            Cond::Cmp(a, op, b) => Cond::Cmp(a, op.negate(), b),
            Cond::And(cs) => cs.into_iter().map(Cond::negate).fold(Cond::False, Cond::or),
            Cond::Or(cs) => cs.into_iter().map(Cond::negate).fold(Cond::True, Cond::and),
        }
    }

    /// Number of comparisons in the condition, counted with repetitions: the size the
    /// condition has when printed for isl.
    pub fn comparisons(&self) -> usize {
        match self {
            Cond::True | Cond::False => 0,
            Cond::Cmp(..) => 1,
            Cond::And(cs) | Cond::Or(cs) => cs.iter().map(Cond::comparisons).sum(),
        }
    }

    pub fn max_counter(&self) -> Option<usize> {
        match self {
            Cond::True | Cond::False => None,
            Cond::Cmp(a, _, b) => a.max_counter().max(b.max_counter()),
            Cond::And(cs) | Cond::Or(cs) => cs.iter().filter_map(Cond::max_counter).max(),
        }
    }

    pub fn to_isl(&self, names: &Names<'_>) -> String {
        match self {
            Cond::True => "0 = 0".into(),
            Cond::False => "1 = 0".into(),
            Cond::Cmp(a, op, b) => {
                // A comparison of a selection is the comparison of each value where it
                // is selected.
                for (side, other, left) in [(a, b, true), (b, a, false)] {
                    if let Some((cond, then, otherwise)) = side.split_select() {
                        let cmp = |v: Affine| {
                            let (l, r) = if left {
                                (v, other.clone())
                            } else {
                                (other.clone(), v)
                            };
                            Cond::Cmp(l, *op, r)
                        };
                        let expanded = cond
                            .clone()
                            .and(cmp(then))
                            .or(cond.clone().negate().and(cmp(otherwise)));
                        return format!("({})", expanded.to_isl(names));
                    }
                }
                format!("{} {} {}", a.to_isl(names), op.symbol(), b.to_isl(names))
            }
            Cond::And(cs) => join(cs, " and ", names),
            Cond::Or(cs) => join(cs, " or ", names),
        }
    }
}

fn join(cs: &[Cond], sep: &str, names: &Names<'_>) -> String {
    cs.iter()
        .map(|c| format!("({})", c.to_isl(names)))
        .collect::<Vec<_>>()
        .join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> (Vec<String>, Vec<String>) {
        (vec!["i0".into(), "i1".into()], vec!["n".into(), "m".into()])
    }

    #[test]
    fn affine_prints_in_isl_notation() {
        let (c, p) = names();
        let n = Names {
            counters: &c,
            params: &p,
        };
        let e = Affine::counter(0)
            .scale(2)
            .unwrap()
            .add(&Affine::param(1).scale(-1).unwrap())
            .unwrap()
            .add(&Affine::constant(-3))
            .unwrap();
        assert_eq!(e.to_isl(&n), "2*i0 - m - 3");
        assert_eq!(Affine::constant(0).to_isl(&n), "0");
    }

    #[test]
    fn cancelling_terms_disappear() {
        let e = Affine::counter(1).sub(&Affine::counter(1)).unwrap();
        assert_eq!(e.as_constant(), Some(0));
    }

    #[test]
    fn exact_division_requires_every_coefficient_divisible() {
        let bytes = Affine::counter(0)
            .scale(8)
            .unwrap()
            .add(&Affine::constant(16))
            .unwrap();
        let elems = bytes.divide_exact(8).unwrap();
        assert_eq!(elems.constant, 2);
        assert!(bytes
            .add(&Affine::constant(4))
            .unwrap()
            .divide_exact(8)
            .is_none());
    }

    #[test]
    fn min_and_max_nest_pairwise() {
        let (c, p) = names();
        let n = Names {
            counters: &c,
            params: &p,
        };
        let e = Affine::atom(Atom::Max(vec![
            Affine::param(0),
            Affine::param(1),
            Affine::constant(1),
        ]));
        assert_eq!(e.to_isl(&n), "max(n, max(m, 1))");
    }

    #[test]
    fn negation_follows_de_morgan() {
        let (c, p) = names();
        let n = Names {
            counters: &c,
            params: &p,
        };
        let a = Cond::Cmp(Affine::counter(0), CmpOp::Lt, Affine::param(0));
        let b = Cond::Cmp(Affine::counter(1), CmpOp::Eq, Affine::constant(0));
        let not_both = a.and(b).negate();
        assert_eq!(not_both.to_isl(&n), "(i0 >= n) or (i1 != 0)");
    }

    #[test]
    fn true_and_false_absorb() {
        let a = Cond::Cmp(Affine::counter(0), CmpOp::Lt, Affine::param(0));
        assert_eq!(a.clone().and(Cond::True), a);
        assert_eq!(a.clone().or(Cond::True), Cond::True);
        assert_eq!(a.clone().and(Cond::False), Cond::False);
    }

    #[test]
    fn comparisons_count_every_leaf_with_repetitions() {
        let a = Cond::Cmp(Affine::counter(0), CmpOp::Lt, Affine::param(0));
        let b = Cond::Cmp(Affine::counter(1), CmpOp::Eq, Affine::constant(0));
        assert_eq!(Cond::True.comparisons(), 0);
        // (a and b) or (a and not b): what merging the two sides of a branch gives.
        let merged = a
            .clone()
            .and(b.clone())
            .or(a.clone().and(b.clone().negate()));
        assert_eq!(merged.comparisons(), 4);
    }

    #[test]
    fn deepest_counter_is_found_inside_atoms() {
        let e = Affine::atom(Atom::FloorDiv(Box::new(Affine::counter(2)), 4));
        assert_eq!(e.max_counter(), Some(2));
    }
}

#[cfg(test)]
mod select_tests {
    use super::*;

    fn isl_of(e: &Affine) -> String {
        let (c, p) = (vec!["i0".to_string()], vec!["n".to_string()]);
        e.to_isl(&Names {
            counters: &c,
            params: &p,
        })
    }

    /// `i0 >= 2 ? i0 - 2 : 0` (a clamp LLVM wrote as a branch and a phi).
    fn clamp_below() -> Affine {
        let cond = Cond::Cmp(Affine::counter(0), CmpOp::Ge, Affine::constant(2));
        let then = Affine::counter(0).sub(&Affine::constant(2)).unwrap();
        Affine::atom(Atom::Select(
            Box::new(cond),
            Box::new(then),
            Box::new(Affine::constant(0)),
        ))
    }

    #[test]
    fn a_selection_inside_a_sum_is_printed_as_the_pieces_of_the_sum() {
        let e = clamp_below()
            .scale(3)
            .unwrap()
            .add(&Affine::param(0))
            .unwrap();
        let text = format!("[n] -> {{ S[i0] -> A[{}] }}", isl_of(&e));
        let ctx = crate::isl::IslCtx::new(None).unwrap();
        let parsed = crate::isl::parse_map(&ctx, &text, "select").unwrap();
        let expected = crate::isl::parse_map(
            &ctx,
            "[n] -> { S[i0] -> A[n + 3i0 - 6] : i0 >= 2; S[i0] -> A[n] : i0 < 2 }",
            "expected",
        )
        .unwrap();
        assert!(parsed.is_equal(&expected).unwrap(), "{text}");
    }

    #[test]
    fn a_comparison_of_a_selection_compares_each_piece() {
        let cond = Cond::Cmp(clamp_below(), CmpOp::Lt, Affine::param(0));
        let (c, p) = (vec!["i0".to_string()], vec!["n".to_string()]);
        let text = format!(
            "[n] -> {{ S[i0] : {} }}",
            cond.to_isl(&Names {
                counters: &c,
                params: &p,
            })
        );
        let ctx = crate::isl::IslCtx::new(None).unwrap();
        let parsed = crate::isl::parse_set(&ctx, &text, "select").unwrap();
        let expected = crate::isl::parse_set(
            &ctx,
            "[n] -> { S[i0] : (i0 >= 2 and i0 - 2 < n) or (i0 < 2 and 0 < n) }",
            "expected",
        )
        .unwrap();
        assert!(parsed.is_equal(&expected).unwrap(), "{text}");
    }
}
