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
//! Input: a region of statements one loop deep (per row) or two (a row and a column
//! of the matrices they read, whole rows `A[r][c]` in either loop order), each writing
//! only elements indexed by its row, or only by its column. Output: the fused schedule,
//! if it respects every dependence (so each element's updates keep their order: no
//! reassociation). Relies on `Dependences::respects` for legality.

use crate::deps::Dependences;
use crate::isl::{AffineExpr, IslError, Map, Schedule, Tuple, UnionMap};
use crate::model::{Access, AccessKind, Scop, Statement};

use super::sica::{DEPENDENT_CHAIN, OVERLAPPED_CHAINS};

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
pub fn choose(scop: &Scop, deps: &Dependences) -> Result<Option<RowBlocks>, IslError> {
    let mut passes = Vec::with_capacity(scop.statements.len());
    for statement in &scop.statements {
        match pass(scop, statement)? {
            Some(pass) => passes.push(pass),
            None => return Ok(None),
        }
    }
    let matrix_passes = passes.iter().filter(|p| **p != Pass::PerRow).count();
    let chains = passes
        .iter()
        .filter(|p| matches!(p, Pass::Chain { .. }))
        .count();
    let several_accumulators = passes
        .iter()
        .any(|p| matches!(p, Pass::Chain { writes, .. } if *writes > 1));
    if chains == 0 || (matrix_passes < 2 && !several_accumulators) {
        return Ok(None);
    }
    let schedule = fused_schedule(scop, &passes)?;
    let respects = deps.respects(&schedule).map_err(|e| IslError::Other {
        context: "checking the fused row blocks".into(),
        message: e.to_string(),
    })?;
    if !respects {
        return Ok(None);
    }
    let tree = Schedule::from_domain(scop.domains.copy()?)?.insert_band(schedule)?;
    Ok(Some(RowBlocks {
        schedule: tree,
        description: describe(scop, &passes),
    }))
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

/// `S[i0, i1] -> [block, position, ...]`: the block of rows first, then the passes in
/// program order; a chain's columns in steps of `DEPENDENT_CHAIN` around its rows, a
/// sweep's rows around its columns, a per-row statement's rows alone.
fn fused_schedule(scop: &Scop, passes: &[Pass]) -> Result<UnionMap, IslError> {
    let ctx = scop.context.ctx();
    let block = |row: usize| {
        AffineExpr::Input(row)
            .floor_div(OVERLAPPED_CHAINS as u32)
            .times(OVERLAPPED_CHAINS as i64)
    };
    let mut maps = Vec::with_capacity(passes.len());
    for (position, (statement, pass)) in scop.statements.iter().zip(passes).enumerate() {
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
    UnionMap::from_maps(&ctx, maps)
}

/// `matrix passes fused by blocks of 8 rows (read once from memory): S1 interleaves
/// the rows' dot products in steps of 16 columns, S2 walks each row contiguously`.
fn describe(scop: &Scop, passes: &[Pass]) -> String {
    let named = |wanted: fn(&Pass) -> bool| -> Vec<&str> {
        scop.statements
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
