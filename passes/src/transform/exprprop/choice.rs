//! Which of a region's temporaries expression propagation removes: those the function
//! owns (`codegen::propagate::removable`) whose every read can recompute the value
//! (`analyse`), whose recomputation code generation can carry out and that keep the
//! consumers' innermost loops contiguous, as long as the instructions recomputed per
//! statement instance stay within what was measured to pay; over rows, fused stages
//! with their temporaries folded win over expensive recomputation (see
//! `FUSION_OVER_RECOMPUTED_INSTRUCTIONS`).
//!
//! Every candidate is judged on the region as written, and what code generation
//! recomputes comes from there: each recomputed load is a load of the original code, at
//! the counters of the statement it sits in. Several temporaries go together only when
//! every producer reads nothing the region writes but the temporaries themselves (a
//! pipeline over its input): a producer recomputed inside another's recomputation then
//! runs later than the reload test looked, on values nothing changes. The model is
//! rewritten one temporary after the other, each on the model the one before left.
//!
//! Relies on `analyse` and `rewrite`, on `codegen::propagate` for what recomputation
//! clones, and on `fusion::choice` for the fused alternative. Says why each candidate
//! stays in analysis notes.

use crate::codegen::propagate as recompute;
use crate::deps::DepsOptions;
use crate::model::spec::AccessKind;
use crate::model::{Scop, Statement};
use crate::report::Notes;
use crate::transform::fusion::choice::{fusion_folds_all, FusedStages};
use crate::transform::Subject;

use super::{analyse, loses_constant_strides, rewrite, Recompute, Verdict};

/// Most instructions one statement instance may clone to recompute what it reads. A
/// bound on code size and compile time against chains whose recomputation multiplies
/// (each stage reading several of the one before), far above what was measured to pay:
/// stencil_chain2d (three 5-point stages, about 300 instructions per output) ran 5.4x
/// faster than -O3 recomputed, unsharp_pipe 7.2x.
const MAX_RECOMPUTED_INSTRUCTIONS: usize = 4096;

/// Most instructions one statement instance of a region over rows recomputes when
/// several temporaries go together; past it the dearest temporary stays. Measured on
/// the corpus' pipelines: stencil_chain2d (660 per instance) ran 5.4x faster than -O3,
/// unsharp_pipe (277) 5x; harris_pipe with eight of its nine temporaries recomputed
/// (2982 per instance: each box sum recomputed the Sobel gradients of nine pixels, from
/// three rows of the image) ran 0.85x of -O3, and 2.3x with the gray plane kept (the
/// other seven recomputed). Over one dimension the values recomputed lie in a window of
/// a few cache lines: lit ExprProp/expression-propagation.c's five-stage chain (3867
/// per instance) runs 5.3x faster, stencil_chain1d (423) 7x; no bound but
/// `MAX_RECOMPUTED_INSTRUCTIONS` applies there.
const PAYING_RECOMPUTED_INSTRUCTIONS: usize = 1024;

/// Most instructions one statement instance of a region over rows recomputes when its
/// stages could fuse instead, with every candidate temporary folded to the rows alive at
/// once (`fusion_folds_all`). Measured at 4096² against fusion alone: unsharp_pipe (277
/// per instance) 6.1x of -O3 recomputed, 5.5x fused; stencil_chain2d (660) 2.3x
/// recomputed, 3.4x fused; harris_pipe (2982) 4.0x recomputed (with the gray plane
/// kept), 6.0x fused.
const FUSION_OVER_RECOMPUTED_INSTRUCTIONS: usize = 400;

/// Most temporaries propagated in one region.
const MAX_PROPAGATED: usize = 8;

/// Share of the operation bound the expression propagation analysis may use: half.
/// harris_pipe, one region of ten stages, needs about a quarter for the seven
/// temporaries left once the image's gray plane stays.
const EXPRPROP_SHARE: u64 = 2;

/// What propagation proposes for a region.
pub enum Proposal {
    /// Temporaries recomputed where they are read: the rewritten model.
    Rewritten(Box<Propagation>),
    /// None recomputed: the stages fuse instead, with every candidate folded.
    FusedInstead(Box<FusedStages>),
    /// Nothing changes.
    Nothing,
}

/// A region's model after expression propagation, with what code generation recomputes.
pub struct Propagation {
    /// The model without the temporaries' producers.
    pub scop: Scop,
    /// The reads code generation recomputes.
    pub recomputed: Vec<Recompute>,
    /// For the remark: what was propagated and removed.
    pub description: String,
}

/// What the choice weighs besides the region.
pub struct PropagationSettings<'a> {
    /// Whether the stages may fuse (with their temporaries folded) instead
    /// (`-polyrust-fusion` and `-polyrust-quov`).
    pub fusion_instead: bool,
    /// What the dependences of the fused alternative are computed with.
    pub deps_options: &'a DepsOptions,
}

/// A temporary that qualifies, with what its reads recompute.
struct Candidate<'v> {
    verdict: &'v Verdict,
    recomputes: Vec<Recompute>,
}

/// Expression propagation of the region's temporaries that the function owns: the
/// rewritten model, or the stages fused instead, or nothing (see the module).
pub fn propose(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    settings: &PropagationSettings<'_>,
    notes: &mut Notes,
) -> Proposal {
    let Ok(verdicts) = analysed(scop) else {
        return Proposal::Nothing;
    };
    let mut candidates = qualified(subject, scop, &verdicts, notes);
    // Cut before the check below, which must see exactly the temporaries that go.
    candidates.truncate(MAX_PROPAGATED);
    if candidates.len() > 1 {
        // Only producers whose operands the region never writes, unless they are the
        // temporaries that go too; dropping one may disqualify another.
        keep_producers_of_inputs(scop, &mut candidates);
        if candidates.is_empty() {
            note_dropped(
                notes,
                "each producer reads what the region writes besides the temporaries",
            );
            return Proposal::Nothing;
        }
    }
    let nested = scop
        .statements
        .iter()
        .any(|s| s.textual_positions.len() > 2);
    if nested && settings.fusion_instead {
        if let Some(fused) = fused_instead(subject, scop, settings, &candidates, notes) {
            return Proposal::FusedInstead(Box::new(fused));
        }
    }
    if nested {
        keep_within_budget(subject, scop, &mut candidates, notes);
    }
    if candidates.is_empty() {
        return Proposal::Nothing;
    }
    rewrite_all(subject, scop, candidates, notes)
}

/// The verdicts of `analyse` on `scop`, under propagation's share of the bound.
fn analysed(scop: &Scop) -> Result<Vec<Verdict>, crate::isl::IslError> {
    scop.context
        .ctx()
        .within_share(EXPRPROP_SHARE, || analyse(scop))
}

/// The temporaries that could go, each judged alone on the region as written; a note
/// for each that stays.
fn qualified<'v>(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    verdicts: &'v [Verdict],
    notes: &mut Notes,
) -> Vec<Candidate<'v>> {
    let region = subject.region;
    let mut candidates = Vec::new();
    for verdict in verdicts {
        let array = match verdict {
            Verdict::Propagable { array, .. } => array,
            // Said of the temporaries propagation could remove, were it possible.
            Verdict::Kept { array, reason } => {
                if recompute::removable(region, array) {
                    let name = subject.source_name(array);
                    notes.analysis(
                        "NotPropagable",
                        format!(
                            "temporary {name} is not recomputed where it is read: {}",
                            reason.replace(array.as_str(), &name)
                        ),
                    );
                }
                continue;
            }
        };
        match refusal(subject, scop, verdict, array) {
            Ok(recomputes) => candidates.push(Candidate {
                verdict,
                recomputes,
            }),
            Err(why) => note_candidate(subject, notes, verdict, &why),
        }
    }
    candidates
}

/// What the reads of a propagable `array` recompute, or why it stays.
fn refusal(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    verdict: &Verdict,
    array: &str,
) -> Result<Vec<Recompute>, String> {
    let region = subject.region;
    if !recompute::removable(region, array) {
        return Err("it is not memory the function owns and reads only in the region".into());
    }
    let Ok(Some((_, recomputes))) = rewrite(&region.spec, scop, verdict) else {
        return Err("a read needs the producer at other than a shifted instance".into());
    };
    recompute::plan(region, &recomputes)?;
    match loses_constant_strides(scop, verdict) {
        Ok(None) => Ok(recomputes),
        Ok(Some(why)) => Err(why),
        Err(_) => Err("its cost could not be judged".into()),
    }
}

/// Instructions one statement instance clones to recompute the reads of `candidates`
/// but the one at `skip` (`usize::MAX` when code generation could not).
fn cost(subject: &Subject<'_, '_>, candidates: &[Candidate<'_>], skip: Option<usize>) -> usize {
    let recomputes: Vec<Recompute> = candidates
        .iter()
        .enumerate()
        .filter(|(k, _)| Some(*k) != skip)
        .flat_map(|(_, c)| c.recomputes.iter().cloned())
        .collect();
    recompute::plan(subject.region, &recomputes).map_or(usize::MAX, |plan| {
        recompute::cloned_instructions(subject.region, &plan)
    })
}

/// Over rows, stages fused with their temporaries in a few rows beat recomputation
/// that repeats each producer for every cell of a stencil (see
/// `FUSION_OVER_RECOMPUTED_INSTRUCTIONS`): the fused stages, when every candidate folds.
fn fused_instead(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    settings: &PropagationSettings<'_>,
    candidates: &[Candidate<'_>],
    notes: &mut Notes,
) -> Option<FusedStages> {
    let all = cost(subject, candidates, None);
    if all <= FUSION_OVER_RECOMPUTED_INSTRUCTIONS {
        return None;
    }
    let arrays: Vec<&str> = candidates.iter().map(|c| c.verdict.array()).collect();
    let (fused, names) = fusion_folds_all(subject, scop, settings.deps_options, &arrays)?;
    let one = names.len() == 1;
    notes.analysis(
        "FusedInstead",
        format!(
            "{} {} not recomputed where {} read (it would take {all} instructions per statement instance): the stages fuse instead, with {} stored in the rows alive at once",
            names.join(", "),
            if one { "is" } else { "are" },
            if one { "it is" } else { "they are" },
            if one { "it" } else { "them" },
        ),
    );
    Some(fused)
}

/// While the temporaries of a region over rows together would have a statement
/// recompute more than `PAYING_RECOMPUTED_INSTRUCTIONS`, the one whose recomputation
/// costs most stays (and then whatever no longer qualifies without it).
fn keep_within_budget(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    candidates: &mut Vec<Candidate<'_>>,
    notes: &mut Notes,
) {
    while candidates.len() > 1 {
        let all = cost(subject, candidates, None);
        if all <= PAYING_RECOMPUTED_INSTRUCTIONS {
            break;
        }
        // Ties go to the later temporary: the earlier stages are the cheaper ones.
        let Some(dearest) = (0..candidates.len())
            .rev()
            .min_by_key(|k| cost(subject, candidates, Some(*k)))
        else {
            break;
        };
        let dropped = candidates.remove(dearest);
        note_candidate(
            subject,
            notes,
            dropped.verdict,
            &format!(
                "recomputing it with the others would take {all} instructions per statement instance, more than the {PAYING_RECOMPUTED_INSTRUCTIONS} that were measured to pay"
            ),
        );
        keep_producers_of_inputs(scop, candidates);
    }
}

/// The model rewritten for every candidate, one after the other, with what code
/// generation recomputes; nothing when one no longer qualifies on the model the others
/// left, or when the whole would clone too much.
fn rewrite_all(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    candidates: Vec<Candidate<'_>>,
    notes: &mut Notes,
) -> Proposal {
    let mut spec = subject.region.spec.clone();
    let mut current: Option<Scop> = None;
    let mut recomputed: Vec<Recompute> = Vec::new();
    let mut done: Vec<String> = Vec::new();
    for candidate in candidates {
        let model = current.as_ref().unwrap_or(scop);
        let rewritten = match rewrite_one(subject, &spec, model, candidate.verdict) {
            Ok(rewritten) => rewritten,
            Err(why) => {
                note_dropped(notes, &why);
                return Proposal::Nothing;
            }
        };
        if let Verdict::Propagable {
            array,
            producer,
            reads,
        } = candidate.verdict
        {
            let count = match reads.len() {
                1 => "1 read".to_string(),
                n => format!("{n} reads"),
            };
            done.push(format!(
                "{} recomputed where it is read ({count}), {producer} and its stores removed",
                subject.source_name(array),
            ));
        }
        spec = rewritten.0;
        recomputed.extend(candidate.recomputes);
        current = Some(rewritten.1);
    }
    let Some(scop) = current else {
        return Proposal::Nothing;
    };
    if let Err(why) = clones_within_bound(subject, &recomputed) {
        note_dropped(notes, &why);
        return Proposal::Nothing;
    }
    Proposal::Rewritten(Box::new(Propagation {
        scop,
        recomputed,
        description: format!("expression propagation: {}", done.join("; ")),
    }))
}

/// The spec and model rewritten for `original` on the model the candidates before it
/// left (`model`), or why it no longer can be: each rewrite leaves the others'
/// temporaries as they were, and one that no longer qualifies stops them all.
fn rewrite_one(
    subject: &Subject<'_, '_>,
    spec: &crate::model::ScopSpec,
    model: &Scop,
    original: &Verdict,
) -> Result<(crate::model::ScopSpec, Scop), String> {
    let Ok(verdicts) = analysed(model) else {
        return Err("the analysis of the rewritten region reached isl's operation bound (raise it with -polyrust-max-operations=N)".into());
    };
    let name = subject.source_name(original.array());
    let Some(verdict) = verdicts.iter().find(|v| v.array() == original.array()) else {
        return Err(format!(
            "{name} is no longer written once the others are propagated"
        ));
    };
    if let Verdict::Kept { reason, .. } = verdict {
        return Err(format!(
            "{name} no longer qualifies once the others are propagated: {reason}"
        ));
    }
    let Ok(Some((rewritten, _))) = rewrite(spec, model, verdict) else {
        return Err(format!(
            "{name} cannot be rewritten once the others are propagated"
        ));
    };
    let Ok(rebuilt) = Scop::build(subject.ctx, &rewritten) else {
        return Err(format!("{name} leaves a model that does not build"));
    };
    Ok((rewritten, rebuilt))
}

/// Whether code generation can recompute `recomputed` within
/// `MAX_RECOMPUTED_INSTRUCTIONS` per statement instance; why not.
fn clones_within_bound(subject: &Subject<'_, '_>, recomputed: &[Recompute]) -> Result<(), String> {
    let plan = recompute::plan(subject.region, recomputed)?;
    let cloned = recompute::cloned_instructions(subject.region, &plan);
    if cloned > MAX_RECOMPUTED_INSTRUCTIONS {
        return Err(format!(
            "a statement would recompute {cloned} instructions per instance (at most {MAX_RECOMPUTED_INSTRUCTIONS})"
        ));
    }
    Ok(())
}

/// Keeps the candidates whose producers read only inputs (see
/// `producer_reads_only_inputs`) given the others kept; dropping one may disqualify
/// another, so until nothing changes.
fn keep_producers_of_inputs(scop: &Scop, candidates: &mut Vec<Candidate<'_>>) {
    loop {
        let going: Vec<String> = candidates
            .iter()
            .map(|c| c.verdict.array().to_string())
            .collect();
        let going: Vec<&str> = going.iter().map(String::as_str).collect();
        let before = candidates.len();
        candidates.retain(|c| producer_reads_only_inputs(scop, c.verdict, &going));
        if candidates.len() == before {
            break;
        }
    }
}

/// Whether the producer of `verdict` reads only arrays that stay unchanged from its own
/// loop nest to the end of the region: the temporaries in `going`, arrays the region
/// does not write, and arrays written only in loop nests before the producer's.
fn producer_reads_only_inputs(scop: &Scop, verdict: &Verdict, going: &[&str]) -> bool {
    let Verdict::Propagable { producer, .. } = verdict else {
        return false;
    };
    let Some(statement) = scop.statements.iter().find(|s| &s.name == producer) else {
        return false;
    };
    let nest = |s: &Statement| s.textual_positions.first().copied();
    let own = nest(statement);
    statement
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Read)
        .all(|read| {
            going.contains(&read.array.as_str())
                || scop
                    .statements
                    .iter()
                    .filter(|s| {
                        s.accesses
                            .iter()
                            .any(|w| w.array == read.array && w.kind != AccessKind::Read)
                    })
                    .all(|writer| matches!((nest(writer), own), (Some(w), Some(p)) if w < p))
        })
}

/// An analysis note: expression propagation was given up in the region, and why.
pub fn note_dropped(notes: &mut Notes, why: &str) {
    notes.analysis(
        "PropagationDropped",
        format!("expression propagation dropped: {why}"),
    );
}

/// An analysis note for a temporary that could be recomputed but is not, and why.
fn note_candidate(subject: &Subject<'_, '_>, notes: &mut Notes, verdict: &Verdict, why: &str) {
    notes.analysis(
        "Propagable",
        format!(
            "{} could be recomputed where it is read, but stays: {why}",
            subject.source_name(verdict.array())
        ),
    );
}

/// Says which temporaries of the region expression propagation could recompute where
/// they are read, when propagation is off (`-polyrust-exprprop=false`). An isl error
/// (the bound reached) only means nothing is said.
pub fn note_candidates(subject: &Subject<'_, '_>, scop: &Scop, notes: &mut Notes) {
    let Ok(verdicts) = analysed(scop) else {
        return;
    };
    for verdict in verdicts {
        if let Verdict::Propagable {
            array,
            producer,
            reads,
        } = verdict
        {
            let mut consumers: Vec<&str> = reads.iter().map(|r| r.consumer.as_str()).collect();
            consumers.dedup();
            let array = subject.source_name(&array);
            notes.analysis(
                "Propagable",
                format!(
                    "{array} could be recomputed where it is read ({} reads in {} of the value {producer} writes; its operands stay unchanged in between): a candidate for expression propagation",
                    reads.len(),
                    consumers.join(", ")
                ),
            );
        }
    }
}
