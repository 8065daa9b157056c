//! The original order of execution, rebuilt from the statements' textual positions: the
//! 2d+1 schedule `{ S[i0, .., i(d-1)] -> [b0, i0, b1, .., i(d-1), bd, 0, ..] }`, padded
//! with zeros to the width of the deepest statement (the model's convention).
//!
//! Rebuilt rather than read from `Scop::schedule` or `Statement::schedule`, which an
//! imported or computed schedule replaces: dependences are always those of the program as
//! written. Relies on the model's checks (positions form a loop tree, a statement in d
//! loops has d+1 positions and a d-dimensional domain, names are isl identifiers).

use crate::isl::{AffineExpr, IslCtx, IslError, Map, Set, Tuple, UnionMap};
use crate::model::original_schedule::flat_width;
use crate::model::Scop;

/// Number of time dimensions: 2d+1 for the deepest statement.
pub(super) fn width(scop: &Scop) -> usize {
    flat_width(
        scop.statements
            .iter()
            .map(|s| s.textual_positions.as_slice()),
    )
}

/// The original schedule of all statements, with the region's parameters.
pub fn original_schedule(scop: &Scop) -> Result<UnionMap, IslError> {
    let width = width(scop);
    let ctx = scop.context.ctx();
    let stamps = scop
        .statements
        .iter()
        .map(|s| time_stamp(&ctx, &s.name, &s.textual_positions, width))
        .collect::<Result<Vec<_>, _>>()?;
    UnionMap::from_maps(&ctx, stamps)?.align_params(&scop.context)
}

/// `{ S[i0, .., i(d-1)] -> [b0, i0, .., bd, 0, ..] }` with `width` time dimensions: the
/// original time stamp of a statement at `positions`.
fn time_stamp(ctx: &IslCtx, name: &str, positions: &[u32], width: usize) -> Result<Map, IslError> {
    let depth = positions.len().saturating_sub(1);
    let mut stamp = Vec::with_capacity(width);
    for (k, b) in positions.iter().enumerate() {
        stamp.push(AffineExpr::Constant(i64::from(*b)));
        if k < depth {
            stamp.push(AffineExpr::Input(k));
        }
    }
    stamp.resize(width.max(stamp.len()), AffineExpr::Constant(0));
    let domain = Tuple::counters(Some(name), "i", depth);
    Map::from_affine(ctx, &[], &domain, None, &stamp)
}

/// `{ [t] -> [u] : t and u lie in the loop at `prefix` and u runs in a later iteration
/// of it }`, for time stamps of `width` dimensions: the pairs the loop carries. The loop
/// at depth ℓ is identified by the positions `b0..bℓ` of the statements inside it; its
/// iterator is time dimension 2ℓ+1.
pub(super) fn carried_by_loop(ctx: &IslCtx, prefix: &[u32], width: usize) -> Result<Map, IslError> {
    let level = prefix.len().saturating_sub(1);
    within_loop(ctx, prefix, width)?.order(2 * level + 1, true)
}

/// `{ [t] -> [u] : t and u lie in one iteration of every loop around the loop at
/// `prefix`, and in that loop }`, for time stamps of `width` dimensions: the pairs a band
/// starting at that loop must keep in order itself (the loops around it keep the
/// others). The constraints are added in the order
/// `t0 = b0 and u0 = b0 and t1 = u1 and t2 = b1 ...`, the order the relation was once
/// written in as text.
pub(super) fn within_loop(ctx: &IslCtx, prefix: &[u32], width: usize) -> Result<Map, IslError> {
    let level = prefix.len().saturating_sub(1);
    let sources = Tuple::counters(None, "t", width);
    let sinks = Tuple::counters(None, "u", width);
    let mut pairs = Map::universe_between(ctx, &[], &sources, &sinks)?;
    for (k, b) in prefix.iter().enumerate() {
        let b = i64::from(*b);
        let source = Set::universe(ctx, &[], &sources)?.fix_dim(2 * k, b)?;
        let sink = Set::universe(ctx, &[], &sinks)?.fix_dim(2 * k, b)?;
        pairs = pairs.intersect_domain(source)?.intersect_range(sink)?;
        if k < level {
            pairs = pairs.equate(2 * k + 1)?;
        }
    }
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::parse_map;
    use crate::model::original_schedule::time_stamp_text;

    /// `built` is the map isl reads from `text`, printed alike.
    fn assert_reads_as(built: &Map, text: &str) {
        let parsed = parse_map(&built.ctx(), text, "expected").unwrap();
        assert!(built.is_equal(&parsed).unwrap(), "{built:?} vs {text}");
        assert_eq!(built.to_str().unwrap(), parsed.to_str().unwrap());
    }

    #[test]
    fn time_stamp_interleaves_positions_and_iterators() {
        let ctx = IslCtx::new(None).unwrap();
        assert_eq!(
            time_stamp_text("S1", &[0, 2, 1], 7),
            "S1[i0, i1] -> [0, i0, 2, i1, 1, 0, 0]"
        );
        let built = time_stamp(&ctx, "S1", &[0, 2, 1], 7).unwrap();
        assert_reads_as(&built, "{ S1[i0, i1] -> [0, i0, 2, i1, 1, 0, 0] }");
        let built = time_stamp(&ctx, "S0", &[3], 1).unwrap();
        assert_reads_as(&built, "{ S0[] -> [3] }");
    }

    #[test]
    fn carried_pairs_share_the_loop_and_the_outer_iterations() {
        let ctx = IslCtx::new(None).unwrap();
        let built = carried_by_loop(&ctx, &[0, 1], 5).unwrap();
        assert_reads_as(
            &built,
            "{ [t0, t1, t2, t3, t4] -> [u0, u1, u2, u3, u4] : t0 = 0 and u0 = 0 and \
             t1 = u1 and t2 = 1 and u2 = 1 and t3 < u3 }",
        );
        let built = within_loop(&ctx, &[2, 0, 1], 7).unwrap();
        assert_reads_as(
            &built,
            "{ [t0, t1, t2, t3, t4, t5, t6] -> [u0, u1, u2, u3, u4, u5, u6] : t0 = 2 and \
             u0 = 2 and t1 = u1 and t2 = 0 and u2 = 0 and t3 = u3 and t4 = 1 and u4 = 1 }",
        );
    }
}
