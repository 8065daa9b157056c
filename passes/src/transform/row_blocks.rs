//! Matrix-vector passes fused by blocks of rows (atax, bicg's shape split in two
//! statements, gesummv, mvt): every pass over a matrix runs, block of
//! `OVERLAPPED_CHAINS` rows by block, before the next block is read, so that the
//! matrix streams from memory once and the later passes find the block in L2.
//! Inside a block a pass that accumulates one element per row (a dot product,
//! `t[i] += A[i][j] * x[j]`) interleaves the block's rows in steps of
//! `DEPENDENT_CHAIN` columns, as the chain rule does (`sica::tile_sizes_chain`), so
//! that the rows' dependent chains overlap; a pass that updates one element per column
//! (`y[j] += A[i][j] * t[i]`) walks each row with the column innermost, contiguous and
//! vectorizable. A pass that reads its matrix transposed (`x[i] += A[j][i] * y[j]`)
//! is such a column pass over `A`'s rows.
//!
//! A triangular solve (`x[i] = b[i]; for j < i: x[i] -= L[i][j] * x[j]; x[i] /=
//! L[i][i]`) has one dot product per row, over the earlier rows' results: its blocks
//! of rows go in order, and in each block the part of the rows' chains before the
//! block's first row (whose `x[j]` earlier blocks finished) is interleaved, then the
//! rows finish one after the other (`triangle`).
//!
//! Input: a region whose last top-level loop nests hold statements one loop deep (per
//! row) or two (a row and a column of the matrices they read, whole rows `A[r][c]` in
//! either loop order), each writing only elements indexed by its row, or only by its
//! column; the nests before them (an initialization) keep their order, first. Output:
//! the fused schedule, if it respects every dependence (so each element's updates keep
//! their order: no reassociation). Relies on `Dependences::respects` for legality.

use crate::deps::Dependences;
use crate::isl::{AffineExpr, IslError, Map, Schedule, Tuple, UnionMap};
use crate::model::{Access, AccessKind, Scop, Statement};

use super::sica::{DEPENDENT_CHAIN, OVERLAPPED_CHAINS};

mod triangle;

/// What one statement does per row of the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    /// One loop, over rows (`t[i] = 0`, `y[i] = alpha * t[i] + beta * y[i]`).
    PerRow,
    /// Accumulates one element per row along the columns (`writes` elements).
    Chain { row: usize, writes: usize },
    /// Updates one element per column (contiguous along the row).
    Sweep { row: usize },
}

/// The fused order of a region's matrix passes.
pub struct RowBlocks {
    /// The schedule: blocks of rows, in each block the passes in program order.
    pub schedule: Schedule,
    /// What was done, as the remark says it.
    pub description: String,
}

/// The passes of `scop` fused by blocks of rows, when the region has that shape, the
/// fusion gains (two or more passes over matrices, or one pass accumulating several
/// elements per row, whose chains the chain rule alone does not overlap) and the
/// schedule respects `deps`.
/// The region's passes are those of its last top-level nests, from the first nest
/// (`start`) whose statements all have a pass's shape; the earlier nests (an
/// initialization, as PolyBench's `init_array` inlined in front of the kernel) keep
/// their order, first. The first start, from the region's first nest on, whose passes
/// the fused order or the triangle's gains on and whose schedule respects `deps`
/// wins.
pub fn choose(scop: &Scop, deps: &Dependences) -> Result<Option<RowBlocks>, IslError> {
    let mut passes = Vec::with_capacity(scop.statements.len());
    for statement in &scop.statements {
        passes.push(pass(scop, statement)?);
    }
    let nest = |k: usize| scop.statements[k].textual_positions.first().copied();
    for start in 0..scop.statements.len() {
        if start > 0 && nest(start) == nest(start - 1) {
            continue;
        }
        let Some(fused) = passes[start..]
            .iter()
            .copied()
            .collect::<Option<Vec<Pass>>>()
        else {
            continue;
        };
        let orders = [
            gains(&fused).then(|| fused_maps(scop, start, &fused)),
            triangle::gains(scop, start, &fused)?.then(|| triangle::maps(scop, start, &fused)),
        ];
        for (order, maps) in orders.into_iter().enumerate() {
            let Some(maps) = maps.transpose()? else {
                continue;
            };
            let schedule = after_prefix(scop, start, maps)?;
            let respects = deps.respects(&schedule).map_err(|e| IslError::Other {
                context: "checking the fused row blocks".into(),
                message: e.to_string(),
            })?;
            if respects {
                let tree = Schedule::from_domain(scop.domains.copy()?)?.insert_band(schedule)?;
                let statements = &scop.statements[start..];
                let mut description = match order {
                    0 => describe(statements, &fused),
                    _ => triangle::describe(statements, &fused),
                };
                if start > 0 {
                    description.push_str(&format!(
                        ", after {} in their order",
                        names(&scop.statements[..start])
                    ));
                }
                return Ok(Some(RowBlocks {
                    schedule: tree,
                    description,
                }));
            }
        }
    }
    Ok(None)
}

/// Whether fusing `passes` gains: two or more passes over matrices, or one pass
/// accumulating several elements per row, whose chains the chain rule alone does not
/// overlap.
fn gains(passes: &[Pass]) -> bool {
    let matrix_passes = passes.iter().filter(|p| **p != Pass::PerRow).count();
    let chains = passes
        .iter()
        .filter(|p| matches!(p, Pass::Chain { .. }))
        .count();
    let several_accumulators = passes
        .iter()
        .any(|p| matches!(p, Pass::Chain { writes, .. } if *writes > 1));
    chains > 0 && (matrix_passes >= 2 || several_accumulators)
}

/// `S0, S1 and S2`.
fn names(statements: &[Statement]) -> String {
    let names: Vec<&str> = statements.iter().map(|s| s.name.as_str()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// The schedule of the whole region: the passes' maps (statements `start..`) alone,
/// or after the statements before `start` in their original order (`[0, original]`
/// before `[1, fused]`).
fn after_prefix(scop: &Scop, start: usize, fused: Vec<Map>) -> Result<UnionMap, IslError> {
    let ctx = scop.context.ctx();
    if start == 0 {
        return UnionMap::from_maps(&ctx, fused);
    }
    let width = scop.statements[..start]
        .iter()
        .map(|s| s.schedule.n_out())
        .chain(fused.iter().map(Map::n_out))
        .try_fold(0, |w, n| n.map(|n| w.max(n)))?;
    let lead = |statement: &Statement, first: i64| {
        let domain = Tuple::counters(Some(&statement.name), "i", statement.depth());
        Map::from_affine(
            &ctx,
            &scop.params,
            &domain,
            None,
            &[AffineExpr::Constant(first)],
        )
    };
    let mut maps = Vec::with_capacity(scop.statements.len());
    for statement in &scop.statements[..start] {
        let original = statement
            .schedule
            .copy()?
            .drop_range_name()?
            .intersect_domain(statement.domain.copy()?)?;
        let padded = original.pad_range(width - statement.schedule.n_out()?)?;
        maps.push(lead(statement, 0)?.flat_range_product(padded)?);
    }
    for map in fused {
        let name = map.domain_name().unwrap_or_default();
        let statement = scop
            .statements
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| IslError::Other {
                context: "fusing row blocks after an initialization".into(),
                message: format!("no statement {name}"),
            })?;
        let padded = map.pad_range(width - 5)?;
        maps.push(lead(statement, 1)?.flat_range_product(padded)?);
    }
    UnionMap::from_maps(&ctx, maps)
}

/// The statement's pass, or `None` when it has none of the shapes above.
fn pass(scop: &Scop, statement: &Statement) -> Result<Option<Pass>, IslError> {
    match statement.depth() {
        1 => Ok(per_row(scop, statement)?.then_some(Pass::PerRow)),
        2 => matrix_pass(scop, statement),
        _ => Ok(None),
    }
}

/// Whether a statement one loop deep writes only elements indexed by its loop.
fn per_row(scop: &Scop, statement: &Statement) -> Result<bool, IslError> {
    for access in writes(statement) {
        if !accesses_as(scop, statement, access, &[0])? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The pass of a statement two loops deep: the row of the matrices it reads (each
/// read of a two-dimensional array reads `A[i0][i1]` or `A[i1][i0]`, all the same
/// way) and whether its writes follow the row or the column.
fn matrix_pass(scop: &Scop, statement: &Statement) -> Result<Option<Pass>, IslError> {
    let mut row = None;
    for access in statement
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Read)
    {
        if access.relation.n_out()? != 2 {
            continue;
        }
        let this = if accesses_as(scop, statement, access, &[0, 1])? {
            0
        } else if accesses_as(scop, statement, access, &[1, 0])? {
            1
        } else {
            return Ok(None);
        };
        if row.is_some_and(|r| r != this) {
            return Ok(None);
        }
        row = Some(this);
    }
    let Some(row) = row else {
        return Ok(None);
    };
    let (mut by_row, mut by_column) = (0, 0);
    for access in writes(statement) {
        if accesses_as(scop, statement, access, &[row])? {
            by_row += 1;
        } else if accesses_as(scop, statement, access, &[1 - row])? {
            by_column += 1;
        } else {
            return Ok(None);
        }
    }
    Ok(match (by_row, by_column) {
        (0, 0) => None,
        (writes, 0) => Some(Pass::Chain { row, writes }),
        (0, _) => Some(Pass::Sweep { row }),
        _ => None,
    })
}

fn writes(statement: &Statement) -> impl Iterator<Item = &Access> {
    statement
        .accesses
        .iter()
        .filter(|a| a.kind != AccessKind::Read)
}

/// Whether `access` reaches, on the statement's domain, the element whose subscripts
/// are the statement's loops `loops` (`[1, 0]`: `A[i1][i0]`).
fn accesses_as(
    scop: &Scop,
    statement: &Statement,
    access: &Access,
    loops: &[usize],
) -> Result<bool, IslError> {
    if access.relation.n_out()? != loops.len() {
        return Ok(false);
    }
    let ctx = scop.context.ctx();
    let domain = Tuple::counters(Some(&statement.name), "i", statement.depth());
    let subscripts: Vec<AffineExpr> = loops.iter().map(|&l| AffineExpr::Input(l)).collect();
    let expected = Map::from_affine(
        &ctx,
        &scop.params,
        &domain,
        Some(&access.array),
        &subscripts,
    )?
    .intersect_domain(statement.domain.copy()?)?;
    let actual = access
        .relation
        .copy()?
        .intersect_domain(statement.domain.copy()?)?;
    actual.is_equal(&expected)
}

/// The first row of the block of `row`'s.
fn block(row: usize) -> AffineExpr {
    AffineExpr::Input(row)
        .floor_div(OVERLAPPED_CHAINS as u32)
        .times(OVERLAPPED_CHAINS as i64)
}

/// `S[i0, i1] -> [block, position, ...]` for the statements `start..` (`passes`): the
/// block of rows first, then the passes in program order; a chain's columns in steps
/// of `DEPENDENT_CHAIN` around its rows, a sweep's rows around its columns, a per-row
/// statement's rows alone.
fn fused_maps(scop: &Scop, start: usize, passes: &[Pass]) -> Result<Vec<Map>, IslError> {
    let ctx = scop.context.ctx();
    let mut maps = Vec::with_capacity(passes.len());
    for (position, (statement, pass)) in scop.statements[start..].iter().zip(passes).enumerate() {
        let position = AffineExpr::Constant(position as i64);
        let zero = || AffineExpr::Constant(0);
        let outputs = match *pass {
            Pass::PerRow => [block(0), position, zero(), AffineExpr::Input(0), zero()],
            Pass::Chain { row, .. } => [
                block(row),
                position,
                AffineExpr::Input(1 - row)
                    .floor_div(DEPENDENT_CHAIN as u32)
                    .times(DEPENDENT_CHAIN as i64),
                AffineExpr::Input(row),
                AffineExpr::Input(1 - row),
            ],
            Pass::Sweep { row } => [
                block(row),
                position,
                AffineExpr::Input(row),
                AffineExpr::Input(1 - row),
                zero(),
            ],
        };
        let domain = Tuple::counters(Some(&statement.name), "i", statement.depth());
        let map = Map::from_affine(&ctx, &scop.params, &domain, None, &outputs)?
            .intersect_domain(statement.domain.copy()?)?;
        maps.push(map);
    }
    Ok(maps)
}

/// `matrix passes fused by blocks of 8 rows (read once from memory): S1 interleaves
/// the rows' dot products in steps of 16 columns, S2 walks each row contiguously`.
fn describe(statements: &[Statement], passes: &[Pass]) -> String {
    let named = |wanted: fn(&Pass) -> bool| -> Vec<&str> {
        statements
            .iter()
            .zip(passes)
            .filter(|(_, p)| wanted(p))
            .map(|(s, _)| s.name.as_str())
            .collect()
    };
    let chains = named(|p| matches!(p, Pass::Chain { .. }));
    let sweeps = named(|p| matches!(p, Pass::Sweep { .. }));
    let mut text = format!(
        "matrix passes fused by blocks of {OVERLAPPED_CHAINS} rows, each block read once from \
         memory: {} interleave{} the rows' dependent chains in steps of {DEPENDENT_CHAIN} columns",
        chains.join(", "),
        if chains.len() == 1 { "s" } else { "" }
    );
    if !sweeps.is_empty() {
        text.push_str(&format!(
            ", {} walk{} each row contiguously",
            sweeps.join(", "),
            if sweeps.len() == 1 { "s" } else { "" }
        ));
    }
    text
}

#[cfg(test)]
mod tests;
