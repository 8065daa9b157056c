//! The run-time side of the comparison: what folding kept of one nest, turned back into
//! points. An exact piece (not a give-up box) regenerates the IVs it absorbed from its
//! vertices; a dependence piece's labels, where affine, give each sink point's source.
//! What cannot be regenerated (a give-up box, a ⊤ label) is counted apart, so that the
//! comparison can still check how many points there were.

use std::collections::BTreeSet;

use polyrust_rt::profile::nest::{DependenceProfile, FoldedStream};

/// A set of IV points (entry first), with what could not be regenerated.
#[derive(Default)]
pub struct FoldedPoints {
    pub exact: BTreeSet<Vec<i64>>,
    /// Events in pieces whose points are not known (give-up boxes).
    pub inexact_events: u64,
    /// Per position, the least and greatest coordinate of every piece.
    pub lower: Vec<i64>,
    pub upper: Vec<i64>,
}

/// The points of a site's stream.
pub fn site_points(stream: &FoldedStream) -> FoldedPoints {
    let mut out = FoldedPoints::default();
    for piece in &stream.pieces {
        widen(&mut out.lower, &piece.lower, i64::min);
        widen(&mut out.upper, &piece.upper, i64::max);
        match piece.points() {
            Some(points) if !stream.gave_up => out.exact.extend(points),
            _ => out.inexact_events += piece.events,
        }
    }
    out
}

fn widen(bound: &mut Vec<i64>, with: &[i64], pick: fn(i64, i64) -> i64) {
    if bound.is_empty() {
        bound.extend_from_slice(with);
    } else {
        for (b, w) in bound.iter_mut().zip(with) {
            *b = pick(*b, *w);
        }
    }
}

/// The (source IV, sink IV) pairs of a dependence, both with the entry first.
#[derive(Default)]
pub struct FoldedPairs {
    pub exact: BTreeSet<(Vec<i64>, Vec<i64>)>,
    /// Events in pieces whose points or labels are not all known.
    pub inexact_events: u64,
}

pub fn dependence_pairs(dependence: &DependenceProfile) -> FoldedPairs {
    let mut out = FoldedPairs::default();
    for piece in &dependence.stream.pieces {
        let pairs = piece
            .points()
            .filter(|_| !dependence.stream.gave_up)
            .and_then(|points| {
                points
                    .into_iter()
                    .map(|sink| {
                        let source: Option<Vec<i64>> =
                            piece.labels.iter().map(|label| label.at(&sink)).collect();
                        source.map(|source| (source, sink))
                    })
                    .collect::<Option<Vec<_>>>()
            });
        match pairs {
            Some(pairs) => out.exact.extend(pairs),
            None => out.inexact_events += piece.events,
        }
    }
    out
}
