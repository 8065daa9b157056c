//! Expression propagation, the rewriting half: the region's model with a temporary's
//! producer gone and each read of the temporary replaced by the producer's own reads,
//! moved to the instance that recomputes them.
//!
//! Done on the region's spec (isl strings), which is then built again, so that every
//! later stage (dependences, scheduling, the run-time check) sees the region as it will
//! run. Each counter of the producer at a read is a function of the consumer's counters
//! and the parameters, given by the read's source map: a consumer's counter plus a
//! constant, or a constant (`T[j] -> S[j + c]`, `T[] -> S[0]` for a load LLVM hoisted in
//! front of a loop), or else the piecewise-affine expression isl writes for it (a read
//! through a clamp, `T[y, x] -> S[max(y - 2, 0), x]`, the paper's Fig. 4); code
//! generation recomputes the producer's expression with its counters so computed. The
//! producer's assumptions (subscripts in bounds, no wrap) become the consumers' over the
//! instances they recompute.

use crate::isl::ast::AstExpr;
use crate::isl::{AffineExpr, IslError, Map, Set, Tuple, UnionMap};
use crate::model::spec::{AccessKind, AccessSpec, Assumption, ScopSpec, StatementSpec};
use crate::model::{Scop, Statement};

use super::{PropagatedRead, Verdict};

/// One counter of a producer recomputed at a consumer instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Counter {
    /// The consumer's counter it follows (`None`: none) plus a constant.
    Shifted { follows: Option<usize>, plus: i64 },
    /// A (piecewise) expression of the consumer's counters, named by
    /// `consumer_counter_name`, and the region's parameters.
    Piecewise(AstExpr),
}

/// The name a `Counter::Piecewise` expression gives the consumer's counter `k`.
pub fn consumer_counter_name(k: usize) -> String {
    format!("polyrust_consumer_{k}")
}

/// One read of a temporary that generated code recomputes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recompute {
    pub array: String,
    pub producer: String,
    pub consumer: String,
    /// Which of the consumer's reads of `array`, in the order of its accesses (the
    /// order of its loads).
    pub read: usize,
    /// The producer's counters, from the consumer's.
    pub counters: Vec<Counter>,
}

/// The spec without the producer of `verdict`'s array and with its reads moved into
/// the consumers, and what code generation recomputes; `None` when a source map is not
/// a translation between loops of the same depth.
pub fn rewrite(
    spec: &ScopSpec,
    scop: &Scop,
    verdict: &Verdict,
) -> Result<Option<(ScopSpec, Vec<Recompute>)>, IslError> {
    let Verdict::Propagable {
        array,
        producer,
        reads,
    } = verdict
    else {
        return Ok(None);
    };
    let Some(source) = spec.statements.iter().find(|s| &s.name == producer) else {
        return Ok(None);
    };
    let producer_model = scop
        .statements
        .iter()
        .find(|s| &s.name == producer)
        .ok_or_else(|| missing(format!("statement {producer}")))?;
    let mut out = spec.clone();
    out.statements.retain(|s| &s.name != producer);
    let mut recomputed = Vec::new();
    // New accesses per consumer, replacing the read at each index.
    let mut replaced: Vec<(String, usize, Vec<AccessSpec>)> = Vec::new();
    for read in reads {
        let counters = match counters_of(&read.source)? {
            Some(counters) => counters,
            None => match piecewise_counters(&read.source)? {
                Some(counters) => counters,
                None => return Ok(None),
            },
        };
        let consumer = scop
            .statements
            .iter()
            .find(|s| s.name == read.consumer)
            .ok_or_else(|| IslError::Other {
                context: "expression propagation".into(),
                message: format!("no statement {}", read.consumer),
            })?;
        let ordinal = consumer.accesses[..read.access]
            .iter()
            .filter(|a| &a.array == array && a.kind == AccessKind::Read)
            .count();
        recomputed.push(Recompute {
            array: array.clone(),
            producer: producer.clone(),
            consumer: read.consumer.clone(),
            read: ordinal,
            counters,
        });
        let moved = moved_reads(source, producer_model, read)?;
        replaced.push((read.consumer.clone(), read.access, moved));
        // The producer's assumptions, over the instances this consumer recomputes.
        for (k, assumption) in spec.assumptions.iter().enumerate() {
            if assumption.statement.as_deref() != Some(producer) {
                continue;
            }
            let modelled = scop
                .assumptions
                .get(k)
                .ok_or_else(|| missing(format!("assumption {k}")))?;
            let set = scop.assumption_set(modelled)?;
            out.assumptions.push(Assumption {
                kind: assumption.kind,
                set: pulled_into(set, read, consumer)?,
                statement: Some(read.consumer.clone()),
                reason: format!("{} (recomputed in {})", assumption.reason, read.consumer),
            });
        }
    }
    out.assumptions
        .retain(|a| a.statement.as_deref() != Some(producer.as_str()));
    splice_moved_reads(&mut out, &replaced);
    Ok(Some((out, recomputed)))
}

/// The error for a part of the spec the model lacks (they are built one from the
/// other, so it does not happen).
fn missing(what: String) -> IslError {
    IslError::Other {
        context: "expression propagation".into(),
        message: format!("no {what} in the model"),
    }
}

/// The producer's reads (`source` in the spec, `modelled` in the model) moved to the
/// consumer instances that recompute them through `read`'s source map.
fn moved_reads(
    source: &StatementSpec,
    modelled: &Statement,
    read: &PropagatedRead,
) -> Result<Vec<AccessSpec>, IslError> {
    let mut moved = Vec::new();
    for (k, access) in source.accesses.iter().enumerate() {
        if access.kind != AccessKind::Read {
            continue;
        }
        // The model's relation is the spec's, read and aligned to the region's
        // parameters (as the composition aligns it).
        let relation = modelled
            .accesses
            .get(k)
            .ok_or_else(|| missing(format!("access {k} of {}", modelled.name)))?
            .relation
            .copy()?;
        let composed = read.source.copy()?.apply_range(relation.to_union_map()?)?;
        moved.push(AccessSpec {
            kind: AccessKind::Read,
            array: access.array.clone(),
            relation: composed.to_str()?,
            instruction: access.instruction.clone(),
            location: access.location.clone(),
        });
    }
    Ok(moved)
}

/// A producer's assumption `set` as one over the `consumer`'s instances that recompute
/// the producer through `read`.
fn pulled_into(set: Set, read: &PropagatedRead, consumer: &Statement) -> Result<String, IslError> {
    let pulled = read
        .source
        .copy()?
        .intersect_range(set.to_union_set()?)?
        .domain()?;
    let consumer_domain = consumer.domain.copy()?.to_union_set()?;
    // Instances of the consumer the set leaves out must not exist: the assumption holds
    // where the consumer's domain lies within the preimage.
    let excluded = consumer_domain.subtract(pulled)?;
    complement_within(&excluded, consumer)
}

/// Each consumer's read (statement, access index) replaced by the reads moved into it.
fn splice_moved_reads(out: &mut ScopSpec, replaced: &[(String, usize, Vec<AccessSpec>)]) {
    for statement in &mut out.statements {
        let mut edits: Vec<&(String, usize, Vec<AccessSpec>)> = replaced
            .iter()
            .filter(|(name, _, _)| *name == statement.name)
            .collect();
        // Highest index first, so that earlier indices stay valid.
        edits.sort_by_key(|e| std::cmp::Reverse(e.1));
        for (_, index, moved) in edits {
            if *index < statement.accesses.len() {
                statement
                    .accesses
                    .splice(*index..=*index, moved.iter().cloned());
            }
        }
    }
}

/// Each producer counter of a source map `{ T[j] -> S[i] }` as a consumer counter plus
/// a constant, or a constant; `None` when some counter is neither.
fn counters_of(source: &UnionMap) -> Result<Option<Vec<Counter>>, IslError> {
    let maps = source.maps()?;
    let [map] = maps.as_slice() else {
        return Ok(None);
    };
    let (consumer_dims, producer_dims) = (map.n_in()?, map.n_out()?);
    let ctx = map.ctx();
    let names = |letter: &str, n: usize| -> Vec<String> {
        (0..n).map(|k| format!("{letter}{k}")).collect()
    };
    // `{ [j] -> [j, i] }`: each consumer instance beside its producer instance.
    let pairs = map
        .copy()?
        .drop_domain_name()?
        .drop_range_name()?
        .to_union_map()?;
    let consumer = Tuple::counters(None, "j", consumer_dims);
    let same: Vec<AffineExpr> = (0..consumer_dims).map(AffineExpr::Input).collect();
    let both = Map::from_affine(&ctx, &[], &consumer, None, &same)?
        .to_union_map()?
        .flat_range_product(pairs)?
        .range()?;
    let all = Tuple::new(
        None,
        [names("j", consumer_dims), names("i", producer_dims)].concat(),
    );
    let constant = |expr: AffineExpr| -> Result<Option<i64>, IslError> {
        let difference = Map::from_affine(&ctx, &[], &all, None, &[expr])?;
        let values = both.copy()?.apply(difference.to_union_map()?)?;
        let sets = values.sets()?;
        let [set] = sets.as_slice() else {
            return Ok(None);
        };
        Ok(match set.dim_value_range(0)? {
            Some((lo, hi)) if lo == hi => Some(lo),
            _ => None,
        })
    };
    let mut counters = Vec::new();
    'producer: for d in 0..producer_dims {
        let producer = || AffineExpr::Input(consumer_dims + d);
        if let Some(plus) = constant(producer())? {
            counters.push(Counter::Shifted {
                follows: None,
                plus,
            });
            continue;
        }
        for k in 0..consumer_dims {
            if let Some(plus) = constant(producer().minus(AffineExpr::Input(k)))? {
                counters.push(Counter::Shifted {
                    follows: Some(k),
                    plus,
                });
                continue 'producer;
            }
        }
        return Ok(None);
    }
    Ok(Some(counters))
}

/// Each producer counter of a source map `{ T[j] -> S[i] }` (a function) as the
/// expression isl's AST generator writes for it over the consumer's counters and the
/// parameters, knowing the consumer instance exists (`max(j0 - 2, 0)` rather than the
/// clamp's `min(max(j0 - 2, 0), h - 1)` when `j0 < h`); `None` when the map has no such
/// expression (more than one map, or an unbounded counter).
pub fn piecewise_counters(source: &UnionMap) -> Result<Option<Vec<Counter>>, IslError> {
    let maps = source.maps()?;
    let [map] = maps.as_slice() else {
        return Ok(None);
    };
    let params = map.param_names()?;
    let names: Vec<String> = (0..map.n_in()?).map(consumer_counter_name).collect();
    if names.iter().any(|n| params.contains(n)) {
        return Ok(None);
    }
    piecewise_of(map, &names)
}

fn piecewise_of(map: &Map, names: &[String]) -> Result<Option<Vec<Counter>>, IslError> {
    Ok(crate::isl::ast::function_expressions(map, names)?
        .map(|exprs| exprs.into_iter().map(Counter::Piecewise).collect()))
}

/// The assumption set over the consumer's space: every instance of it except those in
/// `excluded` (which must not exist).
fn complement_within(
    excluded: &crate::isl::UnionSet,
    consumer: &crate::model::Statement,
) -> Result<String, IslError> {
    let dims = consumer.domain.n_dims()?;
    let tuple = Tuple::counters(Some(&consumer.name), "i", dims);
    let universe = Set::universe(&consumer.domain.ctx(), &[], &tuple)?.to_union_set()?;
    universe.subtract(excluded.copy()?)?.coalesce()?.to_str()
}
