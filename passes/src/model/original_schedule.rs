//! The original schedule: program order from the textual ("beta") positions of the
//! statements, as flattened 2d+1 time stamps and as an isl schedule tree.
//!
//! A statement inside d loops has positions `[b0, ..., bd]` and runs at time stamp
//! `[b0, i0, b1, i1, ..., b(d-1), i(d-1), bd]`: `bk` orders it among the statements and
//! loops at depth k of the loops it shares with others. Statements with the same
//! `b0..bk` share loops `i0..ik`. In the tree, the children of one loop (or of the
//! region) with different `bk` become the children of a sequence node, in `bk` order, and
//! each loop becomes a one-dimensional band over its statements' iterator `ik`.
//!
//! Relies on the positions forming a tree (no statement at the place of a loop or of
//! another statement), which `check_positions` establishes, and on the statements being
//! given in program order.

use crate::isl::{parse_map, parse_union_map, IslError, Map, Schedule, Set};

use super::scop::iterator_list;

/// A statement as the schedule sees it.
pub(super) struct Placement<'a> {
    pub name: &'a str,
    pub positions: &'a [u32],
    pub domain: &'a Set,
}

impl Placement<'_> {
    fn depth(&self) -> usize {
        self.positions.len().saturating_sub(1)
    }
}

/// Two statements whose positions do not form a loop tree in program order.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct PositionConflict {
    pub first: usize,
    pub second: usize,
    pub problem: String,
}

/// Checks that the positions, in the order given, are strictly increasing and that no
/// statement's positions are a prefix of another's (which would put a statement where a
/// loop or another statement is).
///
/// Comparing neighbours is enough: if the list is strictly increasing and `a` is a prefix
/// of some later `c`, every statement between them also starts with `a`, so `a`'s
/// successor has `a` as a prefix.
pub(super) fn check_positions(placements: &[Placement<'_>]) -> Result<(), PositionConflict> {
    for (k, pair) in placements.windows(2).enumerate() {
        let (a, b) = (&pair[0], &pair[1]);
        let conflict = |problem: String| PositionConflict {
            first: k,
            second: k + 1,
            problem,
        };
        if a.positions == b.positions {
            return Err(conflict(format!(
                "{} and {} are at the same place in the program",
                a.name, b.name
            )));
        }
        if b.positions.starts_with(a.positions) {
            return Err(conflict(format!(
                "{} would be at the place of a loop around {}",
                a.name, b.name
            )));
        }
        if a.positions.starts_with(b.positions) {
            return Err(conflict(format!(
                "{} would be at the place of a loop around {}",
                b.name, a.name
            )));
        }
        if a.positions > b.positions {
            return Err(conflict(format!(
                "statements must be listed in program order, but {} comes after {} in the \
                 program",
                a.name, b.name
            )));
        }
    }
    Ok(())
}

/// Number of time dimensions: 2d+1 for the deepest statement (given its positions).
pub(crate) fn flat_width<'p>(positions: impl IntoIterator<Item = &'p [u32]>) -> usize {
    let deepest = positions
        .into_iter()
        .map(|p| p.len().saturating_sub(1))
        .max()
        .unwrap_or(0);
    2 * deepest + 1
}

/// `S[i0, .., i(d-1)] -> [b0, i0, .., bd, 0, ..]` with `width` time dimensions: the
/// original time stamp of a statement at `positions` (shared with the dependence
/// analysis, which rebuilds the original order whatever schedule the model holds).
pub(crate) fn time_stamp_text(name: &str, positions: &[u32], width: usize) -> String {
    let depth = positions.len().saturating_sub(1);
    let mut stamp: Vec<String> = Vec::with_capacity(width);
    for (k, b) in positions.iter().enumerate() {
        stamp.push(b.to_string());
        if k < depth {
            stamp.push(format!("i{k}"));
        }
    }
    while stamp.len() < width {
        stamp.push("0".into());
    }
    format!("{name}[{}] -> [{}]", iterator_list(depth), stamp.join(", "))
}

/// `{ S[i0, .., i(d-1)] -> [b0, i0, .., bd, 0, ..] }` with `width` time dimensions and
/// the parameters of `params`.
pub(super) fn flat_schedule(
    ctx: &crate::isl::IslCtx,
    name: &str,
    positions: &[u32],
    width: usize,
    params: &Set,
) -> Result<Map, IslError> {
    let text = format!("{{ {} }}", time_stamp_text(name, positions, width));
    let what = format!("original schedule of {name}");
    parse_map(ctx, &text, &what)?.align_params(params)
}

impl super::Scop {
    /// The schedule tree of the program as written, whatever schedule the model holds
    /// now (an imported one replaces `schedule`): what the dependence analysis orders
    /// accesses by.
    pub fn original_schedule_tree(&self) -> Result<Schedule, IslError> {
        // Only the context's parameter space is used, to align the bands' parameters.
        schedule_tree(&placements(&self.statements), &self.context)
    }
}

/// The statements as the schedule sees them.
pub(super) fn placements(statements: &[super::Statement]) -> Vec<Placement<'_>> {
    statements
        .iter()
        .map(|s| Placement {
            name: &s.name,
            positions: &s.textual_positions,
            domain: &s.domain,
        })
        .collect()
}

/// The schedule tree of `placements` (checked by `check_positions`).
pub(super) fn schedule_tree(
    placements: &[Placement<'_>],
    params: &Set,
) -> Result<Schedule, IslError> {
    let all: Vec<&Placement<'_>> = placements.iter().collect();
    subtree(&all, 0, params)
}

/// The tree for statements that share positions `b0..b(level-1)` and loops
/// `i0..i(level-1)`.
fn subtree(
    placements: &[&Placement<'_>],
    level: usize,
    params: &Set,
) -> Result<Schedule, IslError> {
    let mut children: Vec<Schedule> = Vec::new();
    for group in placements.chunk_by(|a, b| a.positions.get(level) == b.positions.get(level)) {
        children.push(child(group, level, params)?);
    }
    let mut children = children.into_iter();
    let Some(first) = children.next() else {
        return Err(IslError::Other {
            context: "building the original schedule".into(),
            message: "no statements at this level".into(),
        });
    };
    children.try_fold(first, Schedule::sequence)
}

/// The tree for the statements at one position `b(level)`: a leaf for a single statement
/// ending there, else the loop at this position as a band over the subtree below it.
fn child(group: &[&Placement<'_>], level: usize, params: &Set) -> Result<Schedule, IslError> {
    if let [single] = group {
        if single.depth() == level {
            let domain = single.domain.copy()?.to_union_set()?;
            return Schedule::from_domain(domain);
        }
    }
    let pieces: Vec<String> = group
        .iter()
        .map(|p| format!("{}[{}] -> [i{level}]", p.name, iterator_list(p.depth())))
        .collect();
    let text = format!("{{ {} }}", pieces.join("; "));
    let band = parse_union_map(&params.ctx(), &text, "a loop of the original schedule")?
        .align_params(params)?;
    subtree(group, level + 1, params)?.insert_band(band)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_set, IslCtx};

    fn placement<'a>(name: &'a str, positions: &'a [u32], domain: &'a Set) -> Placement<'a> {
        Placement {
            name,
            positions,
            domain,
        }
    }

    #[test]
    fn positions_must_not_put_a_statement_where_a_loop_is() {
        let ctx = IslCtx::new(None).unwrap();
        let d = parse_set(&ctx, "{ S[i] }", "x").unwrap();
        let a = [0, 1];
        let b = [0, 1, 0];
        let conflict =
            check_positions(&[placement("S0", &a, &d), placement("S1", &b, &d)]).unwrap_err();
        assert_eq!((conflict.first, conflict.second), (0, 1));
        assert!(
            conflict.problem.contains("loop around S1"),
            "{}",
            conflict.problem
        );
    }

    #[test]
    fn positions_must_be_in_program_order() {
        let ctx = IslCtx::new(None).unwrap();
        let d = parse_set(&ctx, "{ S[i] }", "x").unwrap();
        let a = [0, 2];
        let b = [0, 1];
        let conflict =
            check_positions(&[placement("S0", &a, &d), placement("S1", &b, &d)]).unwrap_err();
        assert!(
            conflict.problem.contains("program order"),
            "{}",
            conflict.problem
        );
    }

    #[test]
    fn flat_width_is_two_d_plus_one_of_the_deepest() {
        let a = [0, 0];
        let b = [0, 1, 0, 0];
        assert_eq!(flat_width([&a[..], &b[..]]), 7);
    }
}
