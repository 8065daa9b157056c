//! The original order of execution, rebuilt from the statements' textual positions: the
//! 2d+1 schedule `{ S[i0, .., i(d-1)] -> [b0, i0, b1, .., i(d-1), bd, 0, ..] }`, padded
//! with zeros to the width of the deepest statement (the model's convention).
//!
//! Rebuilt rather than read from `Scop::schedule` or `Statement::schedule`, which an
//! imported or computed schedule replaces: dependences are always those of the program as
//! written. Relies on the model's checks (positions form a loop tree, a statement in d
//! loops has d+1 positions and a d-dimensional domain, names are isl identifiers).

use crate::isl::{parse_union_map, IslError, UnionMap};
use crate::model::original_schedule::{flat_width, time_stamp_text};
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
    let pieces: Vec<String> = scop
        .statements
        .iter()
        .map(|s| time_stamp_text(&s.name, &s.textual_positions, width))
        .collect();
    let text = format!("{{ {} }}", pieces.join("; "));
    parse_union_map(&scop.context.ctx(), &text, "original schedule")?.align_params(&scop.context)
}

/// `{ [t] -> [u] : t and u lie in the loop at `prefix` and u runs in a later iteration
/// of it }`, for time stamps of `width` dimensions: the pairs the loop carries. The loop
/// at depth ℓ is identified by the positions `b0..bℓ` of the statements inside it; its
/// iterator is time dimension 2ℓ+1.
pub(super) fn carried_by_loop_text(prefix: &[u32], width: usize) -> String {
    let level = prefix.len().saturating_sub(1);
    pairs_in_loop_text(prefix, width, &format!("t{0} < u{0}", 2 * level + 1))
}

/// `{ [t] -> [u] : t and u lie in one iteration of every loop around the loop at
/// `prefix`, and in that loop }`: the pairs a band starting at that loop must keep in
/// order itself (the loops around it keep the others).
pub fn within_loop_text(prefix: &[u32], width: usize) -> String {
    pairs_in_loop_text(prefix, width, "")
}

/// Time stamp pairs inside the loop at `prefix`, in one iteration of the loops around
/// it, and under `extra` (isl constraint text, may be empty).
fn pairs_in_loop_text(prefix: &[u32], width: usize, extra: &str) -> String {
    let level = prefix.len().saturating_sub(1);
    let t: Vec<String> = (0..width).map(|k| format!("t{k}")).collect();
    let u: Vec<String> = (0..width).map(|k| format!("u{k}")).collect();
    let mut constraints = Vec::new();
    for (k, b) in prefix.iter().enumerate() {
        constraints.push(format!("t{0} = {b} and u{0} = {b}", 2 * k));
        if k < level {
            constraints.push(format!("t{0} = u{0}", 2 * k + 1));
        }
    }
    if !extra.is_empty() {
        constraints.push(extra.to_string());
    }
    format!(
        "{{ [{}] -> [{}] : {} }}",
        t.join(", "),
        u.join(", "),
        constraints.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_stamp_interleaves_positions_and_iterators() {
        assert_eq!(
            time_stamp_text("S1", &[0, 2, 1], 7),
            "S1[i0, i1] -> [0, i0, 2, i1, 1, 0, 0]"
        );
        assert_eq!(time_stamp_text("S0", &[3], 1), "S0[] -> [3]");
    }

    #[test]
    fn carried_pairs_share_the_loop_and_the_outer_iterations() {
        assert_eq!(
            carried_by_loop_text(&[0, 1], 5),
            "{ [t0, t1, t2, t3, t4] -> [u0, u1, u2, u3, u4] : t0 = 0 and u0 = 0 and \
             t1 = u1 and t2 = 1 and u2 = 1 and t3 < u3 }"
        );
    }
}
