//! Blocks of rows of a triangular solve: one dot product per row over the columns
//! before the row (`for j < i: x[i] -= L[i][j] * x[j]`), whose `x[j]` the rows before
//! finished (`x[j] /= L[j][j]`). Row after row, each row's chain of dependent
//! subtractions waits for the one before it; in a block of `OVERLAPPED_CHAINS` rows,
//! the columns before the block's first row only read results of earlier blocks, so
//! that part of the block's chains is interleaved (in steps of `DEPENDENT_CHAIN`
//! columns, as the fused passes do), and then the rows of the block are finished one
//! after the other: the rest of each row's chain, then its statements after the chain.
//! Every element's subtractions keep their order (bit-exact); `Dependences::respects`
//! checks the schedule.

use crate::isl::{AffineExpr, IslError, Map, Set, Tuple};
use crate::model::{Scop, Statement};

use super::{block, Pass, DEPENDENT_CHAIN, OVERLAPPED_CHAINS};

/// Whether the passes of the statements `start..` have the triangle's shape: one dot
/// product along the rows (`Pass::Chain` over `A[i0][i1]`) whose columns stop at its
/// row (`i1 <= i0`), per-row statements before and after it, nothing else.
pub(super) fn gains(scop: &Scop, start: usize, passes: &[Pass]) -> Result<bool, IslError> {
    let Some(chain) = the_chain(passes) else {
        return Ok(false);
    };
    let statement = &scop.statements[start + chain];
    let below_diagonal = AffineExpr::Input(0).minus(AffineExpr::Input(1));
    let at_least_zero = values(scop, 0, true)?;
    statement
        .domain
        .copy()?
        .apply(image(scop, statement, below_diagonal)?)?
        .is_subset(&at_least_zero)
}

/// `{ S[i0, i1] -> [e] }` over the statement's space.
fn image(scop: &Scop, statement: &Statement, e: AffineExpr) -> Result<Map, IslError> {
    let domain = Tuple::counters(Some(&statement.name), "i", statement.depth());
    Map::from_affine(&scop.context.ctx(), &scop.params, &domain, None, &[e])
}

/// `{ [d] : d >= bound }` (`at_least`) or `{ [d] : d <= bound }`.
fn values(scop: &Scop, bound: i64, at_least: bool) -> Result<Set, IslError> {
    let tuple = Tuple::counters(None, "d", 1);
    let all = Set::universe(&scop.context.ctx(), &scop.params, &tuple)?;
    if at_least {
        all.lower_bound_dim(0, bound)
    } else {
        all.upper_bound_dim(0, bound)
    }
}

/// The position of the one chain among `passes`, if the others are per-row
/// statements.
fn the_chain(passes: &[Pass]) -> Option<usize> {
    let mut chains = passes
        .iter()
        .enumerate()
        .filter(|(_, p)| **p != Pass::PerRow);
    let (position, pass) = chains.next()?;
    let along_rows = matches!(pass, Pass::Chain { row: 0, writes: 1 });
    (along_rows && chains.next().is_none()).then_some(position)
}

/// The maps of the statements `start..`: `[block, position, 0, i0, 0]` for a per-row
/// statement before the chain; the chain's columns before the block
/// `[block, chain, 16 * floor(i1 / 16), i0, i1]`, the rest `[block, chain + 1, i0, 0,
/// i1]`; a per-row statement after it `[block, chain + 1, i0, position - chain, 0]`.
pub(super) fn maps(scop: &Scop, start: usize, passes: &[Pass]) -> Result<Vec<Map>, IslError> {
    let ctx = scop.context.ctx();
    let chain = the_chain(passes).ok_or_else(|| IslError::Other {
        context: "blocks of a triangular solve".into(),
        message: "no chain along the rows".into(),
    })?;
    let input = AffineExpr::Input;
    let constant = |c: usize| AffineExpr::Constant(c as i64);
    let mut maps = Vec::with_capacity(passes.len() + 1);
    for (position, statement) in scop.statements[start..].iter().enumerate() {
        let domain = Tuple::counters(Some(&statement.name), "i", statement.depth());
        let map = |outputs: &[AffineExpr]| {
            Map::from_affine(&ctx, &scop.params, &domain, None, outputs)?
                .intersect_domain(statement.domain.copy()?)
        };
        if position < chain {
            maps.push(map(&[
                block(0),
                constant(position),
                constant(0),
                input(0),
                constant(0),
            ])?);
        } else if position > chain {
            maps.push(map(&[
                block(0),
                constant(chain + 1),
                input(0),
                constant(position - chain),
                constant(0),
            ])?);
        } else {
            let before = before_block(scop, statement)?;
            let columns = input(1)
                .floor_div(DEPENDENT_CHAIN as u32)
                .times(DEPENDENT_CHAIN as i64);
            let head = map(&[block(0), constant(chain), columns, input(0), input(1)])?
                .intersect_domain(before.copy()?)?;
            let tail = map(&[
                block(0),
                constant(chain + 1),
                input(0),
                constant(0),
                input(1),
            ])?
            .intersect_domain(statement.domain.copy()?.subtract(before)?)?;
            maps.push(head);
            maps.push(tail);
        }
    }
    Ok(maps)
}

/// The chain's instances over the columns before its block's first row (`i1 - block
/// <= -1`).
fn before_block(scop: &Scop, statement: &Statement) -> Result<Set, IslError> {
    let from_block = AffineExpr::Input(1).minus(block(0));
    image(scop, statement, from_block)?
        .intersect_range(values(scop, -1, false)?)?
        .intersect_domain(statement.domain.copy()?)?
        .domain()
}

/// `triangular solve by blocks of 8 rows: S4 interleaves the rows' dependent chains in
/// steps of 16 columns up to the block's first row, then each row of the block is
/// finished in order`.
pub(super) fn describe(statements: &[Statement], passes: &[Pass]) -> String {
    let chain = the_chain(passes).map_or("", |c| statements[c].name.as_str());
    format!(
        "triangular solve by blocks of {OVERLAPPED_CHAINS} rows: {chain} interleaves the \
         rows' dependent chains in steps of {DEPENDENT_CHAIN} columns up to the block's \
         first row, then each row of the block is finished in order"
    )
}
