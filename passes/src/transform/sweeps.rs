//! Independent recurrences interleaved: a loop whose iterations are independent (it
//! carries no dependence) around inner loops that each carry a flow dependence (a
//! recurrence: a tridiagonal sweep `p[i][j] = c / (a * p[i][j-1] + b)` along each row,
//! a filter `y[i][j] = x[i][j] + b * y[i][j-1]`) is strip-mined by
//! `OVERLAPPED_CHAINS` iterations and its point loop moved innermost, below the
//! recurrent loops. The chains of neighbouring rows then advance together and their
//! latencies (divisions, multiply-adds) overlap, where -O3 runs one chain after the
//! other, each step waiting for the last. The same idea as the chain rule's
//! interleaved rows (`sica::tile_sizes_chain`), for recurrences that are not
//! reductions and for loops that hold several of them in sequence (a forward and a
//! backward sweep).
//!
//! Input: the region's model (its original 2d+1 schedule) and dependences. Output: the
//! interleaved schedule, if it respects every dependence. It does whenever the chosen
//! loop carries nothing: the instances of one of its iterations keep their order, and
//! instances of different ones never depend on each other; `Dependences::respects`
//! still checks it. Relies on `Dependences::loops` for what each loop carries.

use std::collections::BTreeSet;

use crate::deps::{DependenceKind, Dependences};
use crate::isl::{AffineExpr, IslError, Map, Schedule, Tuple, UnionMap};
use crate::model::{AccessKind, Scop, Statement};

use super::reuse::is_floating;
use super::sica::OVERLAPPED_CHAINS;

/// The interleaved order of a region's independent recurrences.
pub struct Interleaved {
    /// The schedule: the original order with each chosen loop strip-mined and its
    /// point loop innermost.
    pub schedule: Schedule,
    /// What was done, as the remark says it.
    pub description: String,
}

/// A loop of the original schedule, by the positions `b0..bℓ` of the statements in it
/// (its depth is the number of positions, 1 for the outermost loop).
type LoopKey = Vec<u32>;

/// Whether some statement of `scop` may hold a recurrence (reads an array it writes,
/// two loops deep or more): a cheap test before the dependences, for regions the
/// scheduling stage refuses early.
pub fn may_interleave(scop: &Scop) -> bool {
    scop.statements.iter().any(|s| {
        s.depth() >= 2
            && s.accesses.iter().any(|w| {
                w.kind != AccessKind::Read
                    && s.accesses
                        .iter()
                        .any(|r| r.kind == AccessKind::Read && r.array == w.array)
            })
    })
}

/// The independent recurrences of `scop` interleaved, when it has some and the
/// schedule respects `deps`.
pub fn choose(scop: &Scop, deps: &Dependences) -> Result<Option<Interleaved>, IslError> {
    let chosen = chosen_loops(scop, deps)?;
    if chosen.is_empty() {
        return Ok(None);
    }
    let map = interleaved_schedule(scop, &chosen)?;
    let respects = deps.respects(&map).map_err(|e| IslError::Other {
        context: "checking the interleaved recurrences".into(),
        message: e.to_string(),
    })?;
    if !respects {
        return Ok(None);
    }
    let schedule = Schedule::from_domain(scop.domains.copy()?)?.insert_band(map)?;
    Ok(Some(Interleaved {
        schedule,
        description: describe(scop, &chosen),
    }))
}

/// The loops to interleave: independent loops that hold recurrences (see `holds`) and
/// no inner loop that does. No two are nested.
fn chosen_loops(scop: &Scop, deps: &Dependences) -> Result<Vec<LoopKey>, IslError> {
    let mut candidates = BTreeSet::new();
    for statement in &scop.statements {
        for level in 1..statement.depth() {
            candidates.insert(statement.textual_positions[..level].to_vec());
        }
    }
    let mut holding = Vec::new();
    for key in candidates {
        if holds_recurrences(scop, deps, &key)? {
            holding.push(key);
        }
    }
    let innermost = holding
        .iter()
        .filter(|key| {
            !holding
                .iter()
                .any(|other| other.len() > key.len() && other.starts_with(key))
        })
        .cloned()
        .collect();
    Ok(innermost)
}

/// Whether the loop `key` carries no dependence, and every statement deeper inside it
/// writes floating-point values and sits in an innermost loop that carries a flow
/// dependence (no reduction's): each inner loop is a recurrence -O3 runs one step at a
/// time. A statement directly in the
/// loop (a row's initial values) runs once per row either way.
fn holds_recurrences(scop: &Scop, deps: &Dependences, key: &[u32]) -> Result<bool, IslError> {
    let level = key.len();
    let inside: Vec<&Statement> = scop
        .statements
        .iter()
        .filter(|s| s.textual_positions.starts_with(key) && s.depth() >= level)
        .collect();
    let Some(first) = inside.first() else {
        return Ok(false);
    };
    let loops = deps.loops()?;
    let carry = |statement: &str, level: usize| {
        loops
            .iter()
            .find(|l| l.statement == statement && l.level == level)
    };
    if carry(&first.name, level).is_none_or(|l| !l.carried_by.is_empty()) {
        return Ok(false);
    }
    let mut recurrences = 0;
    for statement in inside.iter().filter(|s| s.depth() > level) {
        let innermost = carry(&statement.name, statement.depth());
        if innermost.is_none_or(|l| !l.carried_by.contains(&DependenceKind::Flow))
            || !writes_floating_point(scop, statement)
            || accumulates(scop, statement)?
        {
            return Ok(false);
        }
        recurrences += 1;
    }
    Ok(recurrences > 0)
}

/// Whether `statement` writes floating-point values: their chains wait several cycles
/// a step (a multiply-add, a division), integers' one or two, which the processor
/// overlaps with the next row's work already (matchain_dp's `min` along k ran at 0.87x
/// of -O3 with 8 rows interleaved: the rows' columns are read strided).
fn writes_floating_point(scop: &Scop, statement: &Statement) -> bool {
    statement
        .accesses
        .iter()
        .filter(|a| a.kind != AccessKind::Read)
        .any(|a| {
            scop.arrays
                .iter()
                .any(|array| array.name == a.array && is_floating(&array.element_type))
        })
}

/// Whether a write of `statement` stays on one element from one iteration of its
/// innermost loop to the next (`C[i][j] += A[i][k] * B[j][k]` along k): an
/// accumulation, whose rows the chain rule interleaves or not by its own measure
/// (`schedule::chain_band`, `row_blocks`); a sweep writes a new element each step.
fn accumulates(scop: &Scop, statement: &Statement) -> Result<bool, IslError> {
    let depth = statement.depth();
    let domain = Tuple::counters(Some(&statement.name), "i", depth);
    let next: Vec<AffineExpr> = (0..depth)
        .map(|k| {
            let x = AffineExpr::Input(k);
            if k + 1 == depth {
                x.offset(1)
            } else {
                x
            }
        })
        .collect();
    let ctx = scop.context.ctx();
    for write in statement
        .accesses
        .iter()
        .filter(|a| a.kind != AccessKind::Read)
    {
        let here = write
            .relation
            .copy()?
            .intersect_domain(statement.domain.copy()?)?;
        let step = Map::from_affine(&ctx, &scop.params, &domain, Some(&statement.name), &next)?;
        let there = step.apply_range(here.copy()?)?;
        if !there.intersect(here)?.is_empty()? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// `S[i0, ..] -> [b0, i0, .., T * floor(iℓ / T), .., bd, 0.., iℓ]` for a statement in
/// the chosen loop at depth ℓ + 1 (`T` = `OVERLAPPED_CHAINS`), the original time stamp
/// followed by 0 for the others.
fn interleaved_schedule(scop: &Scop, chosen: &[LoopKey]) -> Result<UnionMap, IslError> {
    let ctx = scop.context.ctx();
    let width = 2 * scop
        .statements
        .iter()
        .map(Statement::depth)
        .max()
        .unwrap_or(0)
        + 1;
    let mut maps = Vec::with_capacity(scop.statements.len());
    for statement in &scop.statements {
        let positions = &statement.textual_positions;
        let depth = statement.depth();
        let strip = chosen
            .iter()
            .find(|key| positions.starts_with(key))
            .map(|key| key.len() - 1);
        let mut outputs = Vec::with_capacity(width + 1);
        for (level, &position) in positions.iter().enumerate() {
            outputs.push(AffineExpr::Constant(i64::from(position)));
            if level < depth {
                let iterator = AffineExpr::Input(level);
                outputs.push(if strip == Some(level) {
                    iterator
                        .floor_div(OVERLAPPED_CHAINS as u32)
                        .times(OVERLAPPED_CHAINS as i64)
                } else {
                    iterator
                });
            }
        }
        outputs.resize(width, AffineExpr::Constant(0));
        outputs.push(match strip {
            Some(level) => AffineExpr::Input(level),
            None => AffineExpr::Constant(0),
        });
        let domain = Tuple::counters(Some(&statement.name), "i", depth);
        let map = Map::from_affine(&ctx, &scop.params, &domain, None, &outputs)?
            .intersect_domain(statement.domain.copy()?)?;
        maps.push(map);
    }
    UnionMap::from_maps(&ctx, maps)
}

/// `independent recurrences interleaved: S2, S4 run 8 iterations of their loop i1
/// (which carries no dependence) side by side inside their recurrent loops`.
fn describe(scop: &Scop, chosen: &[LoopKey]) -> String {
    let parts: Vec<String> = chosen
        .iter()
        .map(|key| {
            let recurrent: Vec<&str> = scop
                .statements
                .iter()
                .filter(|s| s.textual_positions.starts_with(key) && s.depth() > key.len())
                .map(|s| s.name.as_str())
                .collect();
            let (runs, their) = if recurrent.len() == 1 {
                ("runs", "its")
            } else {
                ("run", "their")
            };
            format!(
                "{} {runs} {OVERLAPPED_CHAINS} iterations of {their} loop i{} side by side",
                recurrent.join(", "),
                key.len() - 1
            )
        })
        .collect();
    format!(
        "independent recurrences interleaved (the loop around each carries no dependence, \
         its point loop runs innermost so that the chains overlap): {}",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests;
