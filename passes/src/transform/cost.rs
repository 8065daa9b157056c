//! The cost model: whether a new schedule is worth the code it takes to generate.
//!
//! Measurements on the kernel corpus (`scripts/bench`) showed where a schedule
//! from isl's scheduler loses against -O3's own loop optimizations on one thread:
//! skewed schedules (wavefronts, time tiling of stencils) add bound computations and
//! break the vectorizer's stride-1 loops without any parallel execution to pay for
//! them, and reordering that moves a strided access into the innermost loop undoes what
//! the programmer (or the vectorizer) relied on. So a schedule is accepted only when:
//!
//! - every loop of every statement maps to exactly one schedule dimension with step +1
//!   (a permutation of the loops, possibly shifted, fused or distributed: no skewing,
//!   reversal or scaling);
//! - no statement has more strided accesses in its innermost loop than before, where an
//!   access is *invariant* (same element), *contiguous* (the next element along the
//!   last array dimension) or *strided* (anything else) from one iteration of the
//!   innermost loop to the next;
//! - the loop AST has no more conditions inside innermost loops than the original one
//!   (fusion of loops with different extents puts them there, and they keep the
//!   vectorizer away: unsharp_mask lost 14%).
//!
//! Everything is computed from the isl relations of the model (per statement: domain,
//! schedule map, access relations); an isl error or an operation limit makes the caller
//! keep the original code.

use crate::isl::ast::AstNode;
use crate::isl::{AffineExpr, IslError, Map, Set, Tuple, UnionMap};
use crate::model::Scop;

/// How the element an access touches moves when the innermost loop advances by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stride {
    Invariant,
    Contiguous,
    Strided,
}

/// What the cost model needs of one statement: its name, domain and array accesses
/// (scalars left out: they live in registers).
pub struct StatementView<'a> {
    pub name: &'a str,
    pub domain: &'a Set,
    pub accesses: Vec<&'a Map>,
}

impl<'a> StatementView<'a> {
    /// Every statement of the region, with the accesses to arrays (not scalars).
    pub fn all(scop: &'a Scop) -> Vec<StatementView<'a>> {
        scop.statements
            .iter()
            .map(|s| StatementView {
                name: &s.name,
                domain: &s.domain,
                accesses: s
                    .accesses
                    .iter()
                    .filter(|a| {
                        scop.arrays
                            .iter()
                            .any(|array| array.name == a.array && !array.is_scalar)
                    })
                    .map(|a| &a.relation)
                    .collect(),
            })
            .collect()
    }
}

/// The verdict on a new schedule compared with the original one.
#[derive(Debug, PartialEq, Eq)]
pub struct Assessment {
    /// Why the schedule is not a permutation of the loops, if it is not.
    pub not_a_permutation: Option<String>,
    /// A statement with more strided innermost accesses than before, if any.
    pub worse_stride: Option<String>,
    /// Strided innermost accesses over all statements, before and after.
    pub strided_before: usize,
    pub strided_after: usize,
}

impl Assessment {
    /// The reason to keep the original code, if there is one.
    pub fn rejection(&self) -> Option<String> {
        if let Some(why) = &self.not_a_permutation {
            return Some(format!(
                "the schedule found {why}, which costs more than it gains without parallel execution"
            ));
        }
        self.worse_stride.as_ref().map(|statement| {
            format!(
                "the schedule found makes the innermost loop of {statement} access memory with a larger stride"
            )
        })
    }

    /// Whether the new innermost loops access memory with fewer strides.
    pub fn improves_strides(&self) -> bool {
        self.strided_after < self.strided_before
    }
}

/// Compares `new` with `original` (both union maps from statement instances to time).
pub fn assess(
    statements: &[StatementView<'_>],
    original: &UnionMap,
    new: &UnionMap,
) -> Result<Assessment, IslError> {
    let original_maps = original.maps()?;
    let new_maps = new.maps()?;
    let mut assessment = Assessment {
        not_a_permutation: None,
        worse_stride: None,
        strided_before: 0,
        strided_after: 0,
    };
    for statement in statements {
        let (Some(before), Some(after)) = (
            statement_map(&original_maps, statement)?,
            statement_map(&new_maps, statement)?,
        ) else {
            continue;
        };
        if assessment.not_a_permutation.is_none() {
            assessment.not_a_permutation = not_a_permutation(statement, &after)?;
        }
        let (b, a) = (
            strided_count(statement, &before)?,
            strided_count(statement, &after)?,
        );
        assessment.strided_before += b;
        assessment.strided_after += a;
        if a > b && assessment.worse_stride.is_none() {
            assessment.worse_stride = Some(statement.name.to_string());
        }
    }
    Ok(assessment)
}

/// Strided accesses in the innermost loop of `statement` under `schedule` (its part of
/// a schedule), within its domain.
pub fn strided_count(statement: &StatementView<'_>, schedule: &Map) -> Result<usize, IslError> {
    let schedule = schedule
        .copy()?
        .intersect_domain(statement.domain.copy()?)?;
    Ok(innermost_strides(statement, &schedule)?
        .iter()
        .filter(|s| **s == Stride::Strided)
        .count())
}

/// The statement's part of a schedule, restricted to its domain.
fn statement_map(maps: &[Map], statement: &StatementView<'_>) -> Result<Option<Map>, IslError> {
    maps.iter()
        .find(|m| m.domain_name().as_deref() == Some(statement.name))
        .map(|m| m.copy()?.intersect_domain(statement.domain.copy()?))
        .transpose()
}

/// `{ S[i0, .., ik, ..] -> S[i0, .., ik + 1, ..] }` style maps: `name[x0..] -> name[..]`
/// advancing dimension `dim` of `n` by one, aligned to `model`'s parameters.
fn step_map(name: Option<&str>, n: usize, dim: usize, model: &Set) -> Result<Map, IslError> {
    let next: Vec<AffineExpr> = (0..n)
        .map(|k| {
            let x = AffineExpr::Input(k);
            if k == dim {
                x.offset(1)
            } else {
                x
            }
        })
        .collect();
    let vars = Tuple::counters(name, "x", n);
    Map::from_affine(&model.ctx(), &[], &vars, name, &next)?.align_params(model)
}

/// The constant value of each dimension of `set`, or `None` when one is not constant.
pub(super) fn constant_vector(set: &Set) -> Result<Option<Vec<i64>>, IslError> {
    let mut out = Vec::new();
    for k in 0..set.n_dims()? {
        match set.dim_value_range(k)? {
            Some((lo, hi)) if lo == hi => out.push(lo),
            _ => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// Why `schedule` is not a (shifted) permutation of the statement's loops, if it is not:
/// advancing any one loop must advance exactly one time dimension, by one.
pub fn not_a_permutation(
    statement: &StatementView<'_>,
    schedule: &Map,
) -> Result<Option<String>, IslError> {
    let loops = schedule.n_in()?;
    for dim in 0..loops {
        let step = step_map(
            schedule.domain_name().as_deref(),
            loops,
            dim,
            statement.domain,
        )?;
        let moved = schedule
            .copy()?
            .reverse()?
            .apply_range(step)?
            .apply_range(schedule.copy()?)?
            .deltas()?;
        if moved.is_empty()? {
            continue; // the loop runs at most once
        }
        let what = match constant_vector(&moved)? {
            None => "skews loops (the step depends on the iteration)",
            Some(v) => {
                let nonzero: Vec<i64> = v.into_iter().filter(|x| *x != 0).collect();
                match nonzero.as_slice() {
                    [1] => continue,
                    [_] => "reverses or scales a loop",
                    _ => "skews loops",
                }
            }
        };
        return Ok(Some(what.to_string()));
    }
    Ok(None)
}

/// The stride of each access along the innermost time dimension of `schedule` that
/// varies for this statement (empty when none varies: the statement runs once).
pub fn innermost_strides(
    statement: &StatementView<'_>,
    schedule: &Map,
) -> Result<Vec<Stride>, IslError> {
    let times = schedule.copy()?.range()?;
    let width = times.n_dims()?;
    let mut innermost = None;
    for k in (0..width).rev() {
        match times.dim_value_range(k)? {
            Some((lo, hi)) if lo == hi => continue,
            _ => {
                innermost = Some(k);
                break;
            }
        }
    }
    let Some(dim) = innermost else {
        return Ok(Vec::new());
    };
    let next = step_map(
        schedule.range_name().as_deref(),
        width,
        dim,
        statement.domain,
    )?;
    let mut out = Vec::new();
    for access in &statement.accesses {
        let elements = schedule.copy()?.reverse()?.apply_range((*access).copy()?)?;
        let moved = elements
            .copy()?
            .reverse()?
            .apply_range(next.copy()?)?
            .apply_range(elements)?
            .deltas()?;
        out.push(classify(&moved)?);
    }
    Ok(out)
}

fn classify(moved: &Set) -> Result<Stride, IslError> {
    if moved.is_empty()? {
        return Ok(Stride::Invariant);
    }
    let rank = moved.n_dims()?;
    let mut last = (0, 0);
    for k in 0..rank {
        match moved.dim_value_range(k)? {
            Some(range) if k + 1 == rank => last = range,
            Some((0, 0)) => {}
            _ => return Ok(Stride::Strided),
        }
    }
    Ok(match last {
        (0, 0) => Stride::Invariant,
        (lo, hi) if lo >= -1 && hi <= 1 => Stride::Contiguous,
        _ => Stride::Strided,
    })
}

/// The conditions (`if` nodes) inside innermost loops of a loop AST. Fusing loops of
/// different extents, or shifting one against another, puts conditions there, and a
/// loop body with a condition in it is seldom vectorized.
pub fn innermost_guards(node: &AstNode) -> usize {
    match node {
        AstNode::For { body, .. } if !has_loop(body) => guards(body),
        AstNode::For { body, .. } | AstNode::Mark(body) => innermost_guards(body),
        AstNode::If {
            then, otherwise, ..
        } => innermost_guards(then) + otherwise.as_deref().map_or(0, innermost_guards),
        AstNode::Block(nodes) => nodes.iter().map(innermost_guards).sum(),
        AstNode::User { .. } => 0,
    }
}

fn has_loop(node: &AstNode) -> bool {
    match node {
        AstNode::For {
            degenerate, body, ..
        } => !degenerate || has_loop(body),
        AstNode::Mark(body) => has_loop(body),
        AstNode::If {
            then, otherwise, ..
        } => has_loop(then) || otherwise.as_deref().is_some_and(has_loop),
        AstNode::Block(nodes) => nodes.iter().any(has_loop),
        AstNode::User { .. } => false,
    }
}

fn guards(node: &AstNode) -> usize {
    match node {
        AstNode::If {
            then, otherwise, ..
        } => 1 + guards(then) + otherwise.as_deref().map_or(0, guards),
        AstNode::For { body, .. } | AstNode::Mark(body) => guards(body),
        AstNode::Block(nodes) => nodes.iter().map(guards).sum(),
        AstNode::User { .. } => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_map, parse_set, parse_union_map, IslCtx};

    struct Fixture {
        ctx: IslCtx,
        domain: Set,
        accesses: Vec<Map>,
    }

    /// matmul: C[i][j] += A[i][k] * B[k][j] over n x n x n.
    fn matmul() -> Fixture {
        let ctx = IslCtx::new(None).expect("isl");
        let domain = parse_set(
            &ctx,
            "[n] -> { S0[i, j, k] : 0 <= i < n and 0 <= j < n and 0 <= k < n }",
            "domain",
        )
        .expect("domain");
        let accesses = [
            "[n] -> { S0[i, j, k] -> C[i, j] }",
            "[n] -> { S0[i, j, k] -> A[i, k] }",
            "[n] -> { S0[i, j, k] -> B[k, j] }",
        ]
        .iter()
        .map(|t| parse_map(&ctx, t, "access").expect("access"))
        .collect();
        Fixture {
            ctx,
            domain,
            accesses,
        }
    }

    impl Fixture {
        fn view(&self) -> StatementView<'_> {
            StatementView {
                name: "S0",
                domain: &self.domain,
                accesses: self.accesses.iter().collect(),
            }
        }
        fn schedule(&self, text: &str) -> Map {
            parse_map(&self.ctx, text, "schedule")
                .expect("schedule")
                .intersect_domain(self.domain.copy().expect("copy"))
                .expect("restricted")
        }
    }

    #[test]
    fn strides_follow_the_innermost_loop() {
        let f = matmul();
        let ijk = f.schedule("[n] -> { S0[i, j, k] -> [i, j, k] }");
        assert_eq!(
            innermost_strides(&f.view(), &ijk).unwrap(),
            [Stride::Invariant, Stride::Contiguous, Stride::Strided]
        );
        let ikj = f.schedule("[n] -> { S0[i, j, k] -> [i, k, j] }");
        assert_eq!(
            innermost_strides(&f.view(), &ikj).unwrap(),
            [Stride::Contiguous, Stride::Invariant, Stride::Contiguous]
        );
    }

    #[test]
    fn constant_trailing_dimensions_are_skipped() {
        let f = matmul();
        let padded = f.schedule("[n] -> { S0[i, j, k] -> [0, i, 0, k, 0, j, 0] }");
        assert_eq!(
            innermost_strides(&f.view(), &padded).unwrap(),
            [Stride::Contiguous, Stride::Invariant, Stride::Contiguous]
        );
    }

    #[test]
    fn permutations_pass_and_skews_do_not() {
        let f = matmul();
        let permuted = f.schedule("[n] -> { S0[i, j, k] -> [k + 2, i, j] }");
        assert_eq!(not_a_permutation(&f.view(), &permuted).unwrap(), None);
        let skewed = f.schedule("[n] -> { S0[i, j, k] -> [i, i + j, k] }");
        assert_eq!(
            not_a_permutation(&f.view(), &skewed).unwrap().as_deref(),
            Some("skews loops")
        );
        let reversed = f.schedule("[n] -> { S0[i, j, k] -> [i, -j, k] }");
        assert_eq!(
            not_a_permutation(&f.view(), &reversed).unwrap().as_deref(),
            Some("reverses or scales a loop")
        );
    }

    #[test]
    fn assessment_rejects_a_worse_innermost_stride() {
        let f = matmul();
        let view = [f.view()];
        let original = parse_union_map(&f.ctx, "[n] -> { S0[i, j, k] -> [i, k, j] }", "o").unwrap();
        let worse = parse_union_map(&f.ctx, "[n] -> { S0[i, j, k] -> [i, j, k] }", "n").unwrap();
        let a = assess(&view, &original, &worse).unwrap();
        assert_eq!(a.worse_stride.as_deref(), Some("S0"));
        assert!(a.rejection().is_some());
        let b = assess(&view, &worse, &original).unwrap();
        assert_eq!(b.rejection(), None);
        assert!(b.improves_strides());
        assert_eq!((b.strided_before, b.strided_after), (1, 0));
    }

    #[test]
    fn guards_count_only_inside_innermost_loops() {
        let ctx = IslCtx::new(None).unwrap();
        let count = |domain: &str, schedule: &str| {
            let domain = crate::isl::parse_union_set(&ctx, domain, "d").unwrap();
            let band = parse_union_map(&ctx, schedule, "s").unwrap();
            let schedule = crate::isl::Schedule::from_domain(domain)
                .unwrap()
                .insert_band(band)
                .unwrap();
            let context = parse_set(&ctx, "[n] -> { : n > 4 }", "c").unwrap();
            innermost_guards(&crate::isl::ast::generate(&context, &schedule).unwrap().root)
        };
        let domains = "[n] -> { S[i, j] : 0 <= i, j < n; T[i, j] : 0 <= i < n and 1 <= j < n - 1 }";
        // Fused, T's shorter rows need a condition in the shared innermost loop.
        assert!(
            count(
                domains,
                "[n] -> { S[i, j] -> [i, j, 0]; T[i, j] -> [i, j, 1] }"
            ) > 0
        );
        // Distributed: each row loop has its own bounds, no condition.
        assert_eq!(
            count(
                domains,
                "[n] -> { S[i, j] -> [i, 0, j]; T[i, j] -> [i, 1, j] }"
            ),
            0
        );
    }

    #[test]
    fn a_statement_that_runs_once_has_no_innermost_loop() {
        let ctx = IslCtx::new(None).unwrap();
        let domain = parse_set(&ctx, "{ S1[] }", "d").unwrap();
        let access = parse_map(&ctx, "{ S1[] -> A[0] }", "a").unwrap();
        let view = StatementView {
            name: "S1",
            domain: &domain,
            accesses: vec![&access],
        };
        let schedule = parse_map(&ctx, "{ S1[] -> [3, 0] }", "s").unwrap();
        assert!(innermost_strides(&view, &schedule).unwrap().is_empty());
        assert_eq!(not_a_permutation(&view, &schedule).unwrap(), None);
    }
}
