//! The storage of a region's temporaries under one schedule: which of them fold (see
//! `fold`) and which keep their memory, with why. A temporary is memory the function
//! owns that nothing after the region reads (`codegen::propagate::removable`).
//!
//! Relies on `fold` for each array, under a share of the region's operation bound, and
//! on the region's IR for which arrays are the function's own.

use crate::isl::{Schedule, UnionMap};
use crate::model::Scop;
use crate::report::Notes;
use crate::transform::Subject;

use super::{fold, Folding};

/// Share of the operation bound folding may use per array: half (a 3-D time-expanded
/// stencil needs about a fifth of the default bound).
const QUOV_SHARE: u64 = 1;

/// What folding made of a region's temporaries under one schedule.
pub struct Folded {
    /// The temporaries stored folded.
    pub folds: Vec<Folding>,
    /// The dependences that decide which loops are parallel, with the folded storage's
    /// own added (`None`: the loops keep their order).
    pub dependences: Option<UnionMap>,
    /// The temporaries that keep their storage (source names), each with why.
    pub kept: Vec<(String, String)>,
}

impl Folded {
    /// Nothing folded, with the dependences of the schedule.
    pub fn nothing(dependences: Option<UnionMap>) -> Folded {
        Folded {
            folds: Vec::new(),
            dependences,
            kept: Vec::new(),
        }
    }

    /// An analysis note per temporary that keeps its storage.
    pub fn note_kept(&self, notes: &mut Notes) {
        for (name, why) in &self.kept {
            notes.analysis(
                "NotFolded",
                format!("temporary {name} keeps its storage: {why}"),
            );
        }
    }
}

/// The temporaries of the region that `schedule` lets be stored folded, and those that
/// stay with why.
pub fn fold_temporaries(
    subject: &Subject<'_, '_>,
    scop: &Scop,
    schedule: &Schedule,
    dependences: Option<UnionMap>,
) -> Folded {
    let mut out = Folded::nothing(dependences);
    for array in owned_temporaries(subject, scop) {
        let name = subject.source_name(&array);
        let verdict = subject.ctx.within_share(QUOV_SHARE, || {
            fold(scop, schedule, out.dependences.as_ref(), &array)
        });
        match verdict {
            Ok(Ok(folding)) => {
                if let Some(d) = out.dependences.take() {
                    // Without the folded storage's dependences no loop may be called
                    // parallel: then nothing is folded.
                    let Ok(all) = folding.dependences.copy().and_then(|f| d.union(f)) else {
                        return Folded::nothing(None);
                    };
                    out.dependences = Some(all);
                }
                out.folds.push(folding);
            }
            Ok(Err(reason)) => out.kept.push((name.clone(), reason.replace(&array, &name))),
            Err(e) => out.kept.push((name, e.to_string())),
        }
    }
    out
}

/// Arrays of the region that are memory the function owns and that nothing after the
/// region reads, accessed in the model (a temporary expression propagation removed is
/// not), when no scalar of the model is promoted into memory (whose element addresses
/// code generation computes the original way).
fn owned_temporaries(subject: &Subject<'_, '_>, scop: &Scop) -> Vec<String> {
    let region = subject.region;
    if !region.ir.promotions.is_empty() {
        return Vec::new();
    }
    scop.arrays
        .iter()
        .filter(|a| !a.is_scalar)
        .filter(|a| {
            scop.statements
                .iter()
                .any(|s| s.accesses.iter().any(|x| x.array == a.name))
        })
        .filter(|a| crate::codegen::propagate::removable(region, &a.name))
        .map(|a| a.name.clone())
        .collect()
}

/// `temporary U stored as U[i0 mod 2][i1] (QUOV [1, 1])`, for every fold.
pub fn describe_folds(subject: &Subject<'_, '_>, folds: &[Folding]) -> String {
    folds
        .iter()
        .map(|f| {
            let name = subject.source_name(&f.array);
            let quov = match &f.quov {
                Some(u) if f.follows_quov() => format!(" (shortest QUOV {u:?})"),
                Some(u) => format!(
                    " (its writer's shortest QUOV is {u:?}; the fold follows the array's own dimensions instead)"
                ),
                None => String::new(),
            };
            format!(
                "temporary {name} stored as {}{quov}: {}",
                f.describe(&name),
                f.savings()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}
