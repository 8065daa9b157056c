//! Expression propagation (Doerfert, Sharma and Hack, CC'18), the legality half: which
//! temporary arrays of a region could have their producer's expression recomputed
//! where each value is read, so that the reads no longer go through memory, the stages
//! can fuse, and the producer and the temporary can go.
//!
//! For an array `A` written by exactly one statement `S` (one must-write, nothing else
//! written, no scalar of the model read) and read by other statements, each read `r` of
//! `A` in a statement `T` is propagable when
//! - its value comes from `S` for every instance of `T` (value-based dataflow in the
//!   original order: every `T[j]` has a source, and one: `j -> i` is a function, the
//!   *source map*);
//! - none of the cells `S[i]` reads is overwritten between `S[i]` and `T[j]` (the paper's
//!   reload test, per pair `(i, j)`), nor by `T[j]` itself;
//! - `S` does not read `A` (a recurrence such as a Fibonacci table keeps its memory).
//!
//! Propagation is all or nothing per array (the paper's heuristic 4): a temporary goes
//! only if every read of it can recompute its value.
//!
//! Relies on the model's domains and access relations and on isl's dataflow analysis,
//! in the order the program is written (`deps::original_schedule`). `rewrite` turns a
//! verdict into the model without the producer; code generation recomputes.

pub mod choice;
mod rewrite;

#[cfg(test)]
use rewrite::piecewise_counters;
pub use rewrite::{consumer_counter_name, rewrite, Counter, Recompute};

use crate::deps::original_schedule;
use crate::isl::{AffineExpr, IslError, Map, Tuple, UnionAccessInfo, UnionMap};
use crate::model::spec::AccessKind;
use crate::model::{Access, Scop, Statement};

/// One read of a temporary whose value can be recomputed where it is read.
#[derive(Debug)]
pub struct PropagatedRead {
    /// The reading statement.
    pub consumer: String,
    /// The read among the consumer's accesses.
    pub access: usize,
    /// `{ T[j] -> S[i] }`: the producer instance whose value each consumer instance
    /// reads (a function on the consumer's domain).
    pub source: UnionMap,
}

/// What the analysis says of one array written in the region.
#[derive(Debug)]
pub enum Verdict {
    /// Every read of `array` can recompute `producer`'s expression.
    Propagable {
        array: String,
        producer: String,
        reads: Vec<PropagatedRead>,
    },
    /// Why not.
    Kept { array: String, reason: String },
}

impl Verdict {
    pub fn array(&self) -> &str {
        match self {
            Verdict::Propagable { array, .. } | Verdict::Kept { array, .. } => array,
        }
    }
}

/// The verdict for each array the region writes (not scalars), in the model's order.
pub fn analyse(scop: &Scop) -> Result<Vec<Verdict>, IslError> {
    let order = original_schedule(scop)?;
    let mut verdicts = Vec::new();
    for array in scop.arrays.iter().filter(|a| !a.is_scalar) {
        let writers: Vec<(&Statement, &Access)> = accesses_to(scop, &array.name)
            .filter(|(_, a)| a.kind != AccessKind::Read)
            .collect();
        if writers.is_empty() {
            continue;
        }
        let verdict = match producer(scop, &array.name, &writers) {
            Err(reason) => Verdict::Kept {
                array: array.name.clone(),
                reason,
            },
            Ok((producer, write)) => match reads_of(scop, &order, producer, write, &array.name)? {
                Ok(reads) => Verdict::Propagable {
                    array: array.name.clone(),
                    producer: producer.name.clone(),
                    reads,
                },
                Err(reason) => Verdict::Kept {
                    array: array.name.clone(),
                    reason,
                },
            },
        };
        verdicts.push(verdict);
    }
    Ok(verdicts)
}

fn accesses_to<'s>(
    scop: &'s Scop,
    array: &'s str,
) -> impl Iterator<Item = (&'s Statement, &'s Access)> + 's {
    scop.statements.iter().flat_map(move |s| {
        s.accesses
            .iter()
            .filter(move |a| a.array == array)
            .map(move |a| (s, a))
    })
}

/// The one statement writing `array`, and its write, if it qualifies as a producer.
fn producer<'s>(
    scop: &'s Scop,
    array: &str,
    writers: &[(&'s Statement, &'s Access)],
) -> Result<(&'s Statement, &'s Access), String> {
    let [(statement, write)] = writers else {
        return Err(format!("{array} is written by {} accesses", writers.len()));
    };
    if write.kind != AccessKind::MustWrite {
        return Err(format!(
            "{} may write {array} (under a condition)",
            statement.name
        ));
    }
    let other_writes = statement
        .accesses
        .iter()
        .filter(|a| a.kind != AccessKind::Read && a.array != array)
        .count();
    if other_writes > 0 {
        return Err(format!(
            "{} writes more than {array}: its expression is not one value",
            statement.name
        ));
    }
    for access in statement
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Read)
    {
        if access.array == array {
            return Err(format!(
                "{} reads {array} itself (a recurrence: each value needs the one before)",
                statement.name
            ));
        }
        let scalar = scop
            .arrays
            .iter()
            .any(|a| a.name == access.array && a.is_scalar);
        if scalar {
            return Err(format!(
                "{} reads the scalar {}, which is not recomputed",
                statement.name, access.array
            ));
        }
    }
    Ok((statement, write))
}

/// Every read of `array` outside the producer with its source map, or why one cannot be
/// propagated.
fn reads_of(
    scop: &Scop,
    order: &UnionMap,
    producer: &Statement,
    write: &Access,
    array: &str,
) -> Result<Result<Vec<PropagatedRead>, String>, IslError> {
    let mut reads = Vec::new();
    for consumer in scop.statements.iter().filter(|s| s.name != producer.name) {
        for (index, access) in consumer.accesses.iter().enumerate() {
            if access.array != array || access.kind != AccessKind::Read {
                continue;
            }
            let sink = restricted(access, consumer)?;
            let flow = UnionAccessInfo::from_sink(sink)?
                .set_must_source(restricted(write, producer)?)?
                .set_schedule_map(order.copy()?)?
                .compute_flow()?;
            if !flow.must_no_source()?.is_empty()? {
                return Ok(Err(format!(
                    "some values of {array} that {} reads are not written in the region",
                    consumer.name
                )));
            }
            let source = flow.must_dependence()?.reverse()?;
            if !source.is_single_valued()? {
                return Ok(Err(format!(
                    "{} reads {array} where {} writes it more than once",
                    consumer.name, producer.name
                )));
            }
            if let Some(reason) = overwritten(scop, order, producer, consumer, &source)? {
                return Ok(Err(reason));
            }
            reads.push(PropagatedRead {
                consumer: consumer.name.clone(),
                access: index,
                source,
            });
        }
    }
    if reads.is_empty() {
        return Ok(Err(format!("nothing in the region reads {array}")));
    }
    Ok(Ok(reads))
}

/// The reload test: some cell the producer's expression reads at `S[i]` is written again
/// after `S[i]` and before (or by) the consumer instance `T[j]` that would recompute it.
fn overwritten(
    scop: &Scop,
    order: &UnionMap,
    producer: &Statement,
    consumer: &Statement,
    source: &UnionMap,
) -> Result<Option<String>, IslError> {
    let schedule_of = |s: &Statement| -> Result<UnionMap, IslError> {
        order
            .copy()?
            .intersect_domain(s.domain.copy()?.to_union_set()?)
    };
    let producer_time = schedule_of(producer)?;
    let consumer_time = schedule_of(consumer)?;
    for operand in producer
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Read)
    {
        // T[j] -> the cells S[source(j)] reads.
        let cells = source.copy()?.apply_range(restricted(operand, producer)?)?;
        for (writer, write) in accesses_to(scop, &operand.array) {
            if write.kind == AccessKind::Read {
                continue;
            }
            // T[j] -> W[l] writing one of those cells.
            let writes = cells
                .copy()?
                .apply_range(restricted(write, writer)?.reverse()?)?;
            if writes.is_empty()? {
                continue;
            }
            let writer_time = schedule_of(writer)?;
            // W[l] before T[j], or W = T at the same instance (its store may come
            // before the recomputed load).
            let before_consumer = writer_time
                .copy()?
                .lex_lt_union_map(consumer_time.copy()?)?
                .reverse()?;
            let mut reached = writes.copy()?.intersect(before_consumer)?;
            if writer.name == consumer.name {
                let same = identity(consumer)?;
                reached = reached.union(writes.copy()?.intersect(same)?)?;
            }
            // ... and after S[i].
            let after_producer = source
                .copy()?
                .apply_range(producer_time.copy()?.lex_lt_union_map(writer_time)?)?;
            if !reached.intersect(after_producer)?.is_empty()? {
                return Ok(Some(format!(
                    "{} writes {} between {}, which reads it, and {}, which would recompute it",
                    writer.name, operand.array, producer.name, consumer.name
                )));
            }
        }
    }
    Ok(None)
}

/// Why recomputing the reads of `verdict` would cost the consumers their vectorized
/// innermost loops, if it would: a read that steps through memory by a constant as
/// the consumer's innermost counter advances, replaced by reads that do not (the
/// producer's clamped subscripts, `in[y][max(x - 2, 0)]`, moved into a loop over `x`).
/// The vectorizer then gathers element by element, and the recomputation costs more
/// than the temporary saved (measured on a separable blur: 0.8x of -O3).
pub fn loses_constant_strides(scop: &Scop, verdict: &Verdict) -> Result<Option<String>, IslError> {
    let Verdict::Propagable {
        producer, reads, ..
    } = verdict
    else {
        return Ok(None);
    };
    let Some(producer) = scop.statements.iter().find(|s| &s.name == producer) else {
        return Ok(None);
    };
    for read in reads {
        let Some(consumer) = scop.statements.iter().find(|s| s.name == read.consumer) else {
            continue;
        };
        let Some(access) = consumer.accesses.get(read.access) else {
            continue;
        };
        if !constant_innermost_stride(&restricted(access, consumer)?, consumer)? {
            continue;
        }
        for operand in producer
            .accesses
            .iter()
            .filter(|a| a.kind == AccessKind::Read)
        {
            let moved = read
                .source
                .copy()?
                .apply_range(restricted(operand, producer)?)?;
            if !constant_innermost_stride(&moved, consumer)? {
                return Ok(Some(format!(
                    "recomputing it in {} would move reads whose position does not advance by \
                     a constant step (a clamp) into its innermost loop, which would no longer \
                     vectorize",
                    consumer.name
                )));
            }
        }
    }
    Ok(None)
}

/// Whether `relation` (`{ T[j] -> A[a] }`, a function) moves by the same constant vector
/// whenever the innermost counter of `T` advances by one inside `T`'s domain.
fn constant_innermost_stride(relation: &UnionMap, statement: &Statement) -> Result<bool, IslError> {
    let dims = statement.domain.n_dims()?;
    let maps = relation.maps()?;
    let [map] = maps.as_slice() else {
        return Ok(false);
    };
    let cells = map.n_out()?;
    if dims == 0 || cells == 0 {
        return Ok(true);
    }
    let ctx = statement.domain.ctx();
    let mut next: Vec<AffineExpr> = (0..dims).map(AffineExpr::Input).collect();
    next[dims - 1] = AffineExpr::Input(dims - 1).offset(1);
    let domain = statement.domain.copy()?.to_union_set()?;
    let counters = Tuple::counters(Some(&statement.name), "i", dims);
    let step = Map::from_affine(&ctx, &[], &counters, Some(&statement.name), &next)?
        .to_union_map()?
        .intersect_domain(domain.copy()?)?
        .intersect_range(domain)?;
    // T[j] -> [f(j), f(j + e)], then the differences.
    let here = relation.copy()?.intersect_domain(step.copy()?.domain()?)?;
    let pairs = here.flat_range_product(step.apply_range(relation.copy()?)?)?;
    // `{ [a0, .., b0, ..] -> [b0 - a0, ..] }`.
    let names = |letter: char| (0..cells).map(move |k| format!("{letter}{k}"));
    let both = Tuple::new(None, names('a').chain(names('b')).collect());
    let d: Vec<AffineExpr> = (0..cells)
        .map(|k| AffineExpr::Input(cells + k).minus(AffineExpr::Input(k)))
        .collect();
    let differences = Map::from_affine(&ctx, &[], &both, None, &d)?;
    let differences = pairs.range()?.apply(differences.to_union_map()?)?;
    for set in differences.sets()? {
        for k in 0..cells {
            match set.dim_value_range(k)? {
                Some((lo, hi)) if lo == hi => {}
                _ => return Ok(false),
            }
        }
    }
    Ok(true)
}

/// `{ T[j] -> T[j] }` on the statement's domain.
fn identity(statement: &Statement) -> Result<UnionMap, IslError> {
    let ctx = statement.domain.ctx();
    let dims = statement.domain.n_dims()?;
    let counters = Tuple::counters(Some(&statement.name), "i", dims);
    let same: Vec<AffineExpr> = (0..dims).map(AffineExpr::Input).collect();
    Map::from_affine(&ctx, &[], &counters, Some(&statement.name), &same)?
        .to_union_map()?
        .intersect_domain(statement.domain.copy()?.to_union_set()?)
}

/// An access relation restricted to its statement's domain.
fn restricted(access: &Access, statement: &Statement) -> Result<UnionMap, IslError> {
    access
        .relation
        .copy()?
        .intersect_domain(statement.domain.copy()?)?
        .to_union_map()
}

#[cfg(test)]
mod tests;
