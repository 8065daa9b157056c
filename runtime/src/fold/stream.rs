//! The online folding of one stream (paper, Alg. 1 in the order of the Fig. 5
//! walk-through, see the note's erratum): points arrive in lexicographic order with
//! their labels; `absorbers[d]` holds the level-d polyhedra that may still grow along
//! level d, `to_absorb[d]` the finished (d−1)-polyhedra waiting for one, keyed by
//! anchor. When the outermost changed position of a new point is level e, levels
//! 2..=e are closed inner to outer (their rows are complete), then the point enters at
//! level 1. A polyhedron that reaches level D+1 is retired.
//!
//! Memory is bounded whatever the stream length: once the live and retired polyhedra
//! together exceed [`FoldConfig::max_pieces`], the retired ones are spilled: the
//! largest affine ones (at most a quarter of the cap) stay pieces, the others go into
//! one bounding box with ⊤ labels, and folding goes on. When the live polyhedra alone
//! take more than half the cap (or a point arrives out of order, or the stream is
//! deeper than [`MAX_FOLD_DIMS`]) the stream gives up geometry (the paper's geometric
//! give-up): it keeps the largest affine pieces retired so far the same way, and every
//! other point, then and later, goes into the box. A stream whose clamped borders
//! fragment it still reports its large affine pieces, not one box.
//!
//! A stream can also keep, per label output o, whether `point[o] − label[o]` was the
//! same on every point ([`Stream::tracking_offsets`]): for a dependence stream (labels:
//! the source's IV positions) that is the exact distance along position o, which the
//! give-up box (or a widened ⊤ label) would otherwise lose.

use std::collections::BTreeMap;

use super::label::{Coefficient, LabelOutput};
use super::polyhedron::Polyhedron;

/// Streams with more IV positions than this are boxed from the start: a polyhedron
/// has 2^D vertices and a merge tries 3^(D−1) search vectors.
pub const MAX_FOLD_DIMS: usize = 8;

/// How a stream folds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FoldConfig {
    /// Widen known coefficients that do not fit to ⊤ instead of splitting the piece.
    pub widen: bool,
    /// Live plus retired polyhedra past which the stream gives up to a box.
    pub max_pieces: usize,
}

impl Default for FoldConfig {
    fn default() -> Self {
        FoldConfig {
            widen: true,
            max_pieces: 64,
        }
    }
}

/// One folded piece: an elementary polyhedron (or the give-up box) and its labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Piece {
    /// Level of the polyhedron; `None` for the give-up box.
    pub level: Option<usize>,
    /// 2^level vertices (empty for the box), IV positions outermost first.
    pub vertices: Vec<Vec<i64>>,
    pub lower: Vec<i64>,
    pub upper: Vec<i64>,
    /// One per label output; ⊥ already turned into 0.
    pub labels: Vec<LabelOutput>,
    pub count: u64,
}

impl Piece {
    /// Whether every label output is affine (no ⊤) and the piece is not a give-up box.
    pub fn is_affine(&self) -> bool {
        self.level.is_some() && self.labels.iter().all(LabelOutput::is_affine)
    }

    /// Every lattice point of the piece (the box's for a give-up piece).
    pub fn points(&self) -> Vec<Vec<i64>> {
        match self.level {
            Some(level) => Polyhedron {
                level,
                dims: self.lower.len(),
                vertices: self.vertices.concat(),
                labels: Vec::new(),
                count: self.count,
            }
            .points(),
            None => {
                let mut points = vec![Vec::new()];
                for (&low, &high) in self.lower.iter().zip(&self.upper) {
                    points = points
                        .into_iter()
                        .flat_map(|p: Vec<i64>| {
                            (low..=high).map(move |x| {
                                let mut q = p.clone();
                                q.push(x);
                                q
                            })
                        })
                        .collect();
                }
                points
            }
        }
    }
}

/// The result of folding a stream.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Folded {
    pub pieces: Vec<Piece>,
    pub events: u64,
    /// Whether the stream gave up geometry (one box, ⊤ labels).
    pub gave_up: bool,
    /// Most polyhedra alive at once (the paper's #MPl).
    pub peak_live: usize,
    /// Per label output o (below the IV length), `point[o] − label[o]` when it was the
    /// same on every point, `None` when not; empty unless the stream tracked them.
    pub offsets: Vec<Option<i128>>,
}

/// The give-up state: a bounding box (its count is what the kept pieces leave).
#[derive(Debug, Clone)]
struct GiveUpBox {
    lower: Vec<i64>,
    upper: Vec<i64>,
}

/// A stream of points of `dims` IV positions with `outputs` label outputs each.
#[derive(Debug, Clone)]
pub struct Stream {
    config: FoldConfig,
    dims: usize,
    outputs: usize,
    previous: Vec<i64>,
    events: u64,
    /// Index d = level (0 unused).
    absorbers: Vec<Vec<Polyhedron>>,
    /// Index d = level (0 and 1 unused: level 1 takes one point at a time).
    to_absorb: Vec<BTreeMap<Vec<i64>, Polyhedron>>,
    retired: Vec<Polyhedron>,
    live: usize,
    peak_live: usize,
    gave_up: Option<GiveUpBox>,
    /// The box of the pieces spilled while folding goes on (see the module doc).
    spilled: Option<GiveUpBox>,
    /// Points of the wrong length, ignored.
    ignored: u64,
    /// Whether `offsets` is kept (see [`Stream::tracking_offsets`]).
    track_offsets: bool,
    offsets: Vec<Option<i128>>,
}

impl Stream {
    pub fn new(dims: usize, outputs: usize, config: FoldConfig) -> Stream {
        Stream {
            config,
            dims,
            outputs,
            previous: Vec::new(),
            events: 0,
            absorbers: vec![Vec::new(); dims + 1],
            to_absorb: vec![BTreeMap::new(); dims + 2],
            retired: Vec::new(),
            live: 0,
            peak_live: 0,
            gave_up: None,
            spilled: None,
            ignored: 0,
            track_offsets: false,
            offsets: Vec::new(),
        }
    }

    /// The stream, keeping per label output o whether `point[o] − label[o]` is the same
    /// on every point (the exact components of a dependence's distance, whatever its
    /// geometry does). Costs a subtraction per output and event.
    pub fn tracking_offsets(mut self) -> Stream {
        self.track_offsets = true;
        self
    }

    /// Folds `point − label` per output into the offsets seen so far.
    fn track_offsets(&mut self, point: &[i64], labels: &[i128]) {
        let offset = |o: usize| i128::from(point[o]).checked_sub(labels[o]);
        if self.events == 1 {
            self.offsets = (0..self.outputs.min(self.dims)).map(offset).collect();
            return;
        }
        for o in 0..self.offsets.len() {
            if self.offsets[o].is_some() && self.offsets[o] != offset(o) {
                self.offsets[o] = None;
            }
        }
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn events(&self) -> u64 {
        self.events
    }

    /// Adds one point; points of the wrong shape are counted as ignored.
    pub fn push(&mut self, point: &[i64], labels: &[i128]) {
        if point.len() != self.dims || labels.len() != self.outputs {
            self.ignored += 1;
            return;
        }
        self.events += 1;
        if self.track_offsets {
            self.track_offsets(point, labels);
        }
        if let Some(bounds) = &mut self.gave_up {
            grow_box(bounds, point);
            return;
        }
        if self.dims == 0 || self.dims > MAX_FOLD_DIMS {
            self.give_up(point);
            return;
        }
        // The outermost changed position and whether it grew, while `previous` becomes
        // `point` (one pass: this runs for every event).
        let changed = if self.events == 1 {
            self.previous.extend_from_slice(point);
            self.dims - 1
        } else {
            let mut changed = None;
            for (q, (previous, &x)) in self.previous.iter_mut().zip(point).enumerate() {
                if changed.is_none() && *previous != x {
                    if x < *previous {
                        changed = Some(usize::MAX);
                    } else {
                        changed = Some(q);
                    }
                }
                *previous = x;
            }
            match changed {
                Some(q) if q != usize::MAX => q,
                // Not after the previous point.
                _ => {
                    self.give_up(point);
                    return;
                }
            }
        };
        let e = self.dims - changed;
        for d in 2..=e {
            self.close_level(d);
        }
        self.absorb_point(point, labels);
        self.peak_live = self.peak_live.max(self.live);
        if self.live + self.retired.len() > self.config.max_pieces {
            if self.live <= self.config.max_pieces / 2 {
                self.spill_retired();
            } else {
                self.give_up(point);
            }
        }
    }

    /// Affine retired polyhedra kept as pieces when the others go into a box.
    fn kept_pieces(&self) -> usize {
        (self.config.max_pieces / 4).max(1)
    }

    /// Moves every retired polyhedron but the largest affine ones into `bounds`.
    fn spill_retired_into(&mut self, bounds: &mut GiveUpBox) {
        let mut retired = std::mem::take(&mut self.retired);
        // Affine first, then the most points (deterministic: by anchor on ties).
        retired.sort_by(|a, b| {
            let key = |p: &Polyhedron| {
                (
                    !p.labels.iter().all(LabelOutput::is_affine),
                    u64::MAX - p.count,
                )
            };
            key(a).cmp(&key(b)).then_with(|| a.anchor().cmp(b.anchor()))
        });
        let kept = self.kept_pieces();
        for (rank, polyhedron) in retired.into_iter().enumerate() {
            if rank < kept && polyhedron.labels.iter().all(LabelOutput::is_affine) {
                self.retired.push(polyhedron);
            } else {
                for k in 0..polyhedron.vertex_count() {
                    grow_box(bounds, polyhedron.vertex(k));
                }
            }
        }
    }

    /// Too many retired polyhedra: the small and non-affine ones go into the spill box.
    fn spill_retired(&mut self) {
        let mut bounds = match self.spilled.take() {
            Some(bounds) => bounds,
            None => match self.retired.first() {
                Some(first) => GiveUpBox {
                    lower: first.anchor().to_vec(),
                    upper: first.anchor().to_vec(),
                },
                None => return,
            },
        };
        self.spill_retired_into(&mut bounds);
        self.spilled = Some(bounds);
    }

    /// Level d's rows are complete: the finished (d−1)-polyhedra wait at level d, each
    /// d-absorber takes one or is done, and those left over start as d-absorbers.
    fn close_level(&mut self, d: usize) {
        for below in std::mem::take(&mut self.absorbers[d - 1]) {
            self.to_absorb[d].insert(below.anchor().to_vec(), below);
        }
        let mut kept = Vec::new();
        for mut absorber in std::mem::take(&mut self.absorbers[d]) {
            if self.try_absorb(&mut absorber, d) {
                kept.push(absorber);
            } else {
                self.finish_level(absorber, d);
            }
        }
        for (_, waiting) in std::mem::take(&mut self.to_absorb[d]) {
            kept.push(waiting.promoted());
        }
        self.absorbers[d] = kept;
    }

    /// `absorber` grows no more along level d: it waits at level d+1 or retires.
    fn finish_level(&mut self, absorber: Polyhedron, d: usize) {
        if d == self.dims {
            self.retired.push(absorber);
            self.live -= 1;
        } else {
            self.to_absorb[d + 1].insert(absorber.anchor().to_vec(), absorber);
        }
    }

    /// Whether `absorber` (level d) took a waiting (d−1)-polyhedron of `to_absorb[d]`.
    fn try_absorb(&mut self, absorber: &mut Polyhedron, d: usize) -> bool {
        let candidates: Vec<Vec<i64>> = if absorber.is_degenerate() {
            // Search vectors, straight ones first, then by anchor (deterministic).
            let mut found: Vec<(usize, Vec<i64>)> = self.to_absorb[d]
                .keys()
                .filter_map(|key| {
                    let offset: Vec<i64> = key
                        .iter()
                        .zip(absorber.anchor())
                        .map(|(x, y)| x - y)
                        .collect();
                    absorber
                        .is_search_vector(&offset)
                        .then(|| (offset.iter().filter(|&&x| x != 0).count(), key.clone()))
                })
                .collect();
            found.sort();
            found.into_iter().map(|(_, key)| key).collect()
        } else {
            vec![absorber.extension_key()]
        };
        let degenerate = absorber.is_degenerate();
        for key in candidates {
            let Some(b) = self.to_absorb[d].get(&key) else {
                continue;
            };
            let fits = if degenerate {
                absorber.can_merge(b)
            } else {
                absorber.can_extend(b)
            };
            if !fits {
                continue;
            }
            let Some(labels) = absorbed_labels(absorber, b, d, self.config.widen) else {
                continue;
            };
            let Some(b) = self.to_absorb[d].remove(&key) else {
                continue;
            };
            absorber.take_upper_face(&b);
            absorber.labels = labels;
            settle_bottoms(absorber);
            self.live -= 1;
            return true;
        }
        false
    }

    /// Level 1, without a map: the new point is the only waiting 0-polyhedron. This is
    /// the hot path of every event.
    fn absorb_point(&mut self, point: &[i64], labels: &[i128]) {
        let p = self.dims - 1;
        let widen = self.config.widen;
        let mut absorbed = false;
        let mut i = 0;
        while i < self.absorbers[1].len() {
            let absorber = &mut self.absorbers[1][i];
            if !absorbed && extends_segment(absorber, point, p) {
                if let Some(()) = absorb_point_labels(absorber, point, labels, p, widen) {
                    absorbed = true;
                    i += 1;
                    continue;
                }
            }
            let done = self.absorbers[1].remove(i);
            self.finish_level(done, 1);
        }
        if !absorbed {
            self.absorbers[1].push(Polyhedron::point(point, labels).promoted());
            self.live += 1;
        }
    }

    /// Drops the geometry: one box around everything so far and `point`, ⊤ labels.
    fn give_up(&mut self, point: &[i64]) {
        let mut bounds = self.spilled.take().unwrap_or_else(|| GiveUpBox {
            lower: point.to_vec(),
            upper: point.to_vec(),
        });
        grow_box(&mut bounds, point);
        self.spill_retired_into(&mut bounds);
        let polyhedra = self.absorbers.iter_mut().flat_map(std::mem::take).chain(
            self.to_absorb
                .iter_mut()
                .flat_map(|map| std::mem::take(map).into_values()),
        );
        for polyhedron in polyhedra {
            for k in 0..polyhedron.vertex_count() {
                grow_box(&mut bounds, polyhedron.vertex(k));
            }
        }
        self.live = 0;
        self.gave_up = Some(bounds);
    }

    /// The pieces so far, as if the stream ended now (the stream itself goes on).
    pub fn folded(&self) -> Folded {
        self.clone().finish()
    }

    /// Ends the stream: every level is closed, every polyhedron retired, ⊥ → 0.
    pub fn finish(mut self) -> Folded {
        if self.gave_up.is_none() && self.events > 0 && self.dims > 0 {
            for d in 2..=self.dims {
                self.close_level(d);
            }
            for absorber in std::mem::take(&mut self.absorbers[self.dims]) {
                self.retired.push(absorber);
            }
        }
        let boxed = self.gave_up.take().or(self.spilled.take());
        let gave_up = boxed.is_some();
        let kept_events = self
            .retired
            .iter()
            .map(|p| p.count)
            .fold(0u64, u64::saturating_add);
        let mut pieces: Vec<Piece> = self
            .retired
            .into_iter()
            .map(|polyhedron| {
                let (lower, upper) = polyhedron.bounds();
                let vertices = (0..polyhedron.vertex_count())
                    .map(|k| polyhedron.vertex(k).to_vec())
                    .collect();
                let mut labels = polyhedron.labels;
                labels.iter_mut().for_each(LabelOutput::finish);
                Piece {
                    level: Some(polyhedron.level),
                    vertices,
                    lower,
                    upper,
                    labels,
                    count: polyhedron.count,
                }
            })
            .collect();
        if let Some(bounds) = boxed {
            // Every event is in a kept piece or in the box.
            pieces.push(Piece {
                level: None,
                vertices: Vec::new(),
                lower: bounds.lower,
                upper: bounds.upper,
                labels: vec![LabelOutput::top(self.dims); self.outputs],
                count: self.events.saturating_sub(kept_events),
            });
        }
        Folded {
            pieces,
            events: self.events,
            gave_up,
            peak_live: self.peak_live,
            offsets: self.offsets,
        }
    }
}

fn grow_box(bounds: &mut GiveUpBox, point: &[i64]) {
    for ((low, high), &x) in bounds.lower.iter_mut().zip(&mut bounds.upper).zip(point) {
        *low = (*low).min(x);
        *high = (*high).max(x);
    }
}

/// Whether `point` is the next point of the level-1 absorber `segment`: same outer
/// coordinates as its upper end, one further along the innermost position `p`.
fn extends_segment(segment: &Polyhedron, point: &[i64], p: usize) -> bool {
    let upper = segment.vertex(1);
    // Inner positions first: they are the ones that differ, when one does.
    point[p] == upper[p].wrapping_add(1) && (0..p).rev().all(|q| upper[q] == point[q])
}

/// The new remaining value and coefficient along `p` of one output of a segment
/// absorbing a point (x0: the segment's anchor along `p`, x: the point's); `None` if
/// refused or on overflow.
fn absorb_point_output(
    output: &LabelOutput,
    value: i128,
    x0: i128,
    x: i128,
    p: usize,
    widen: bool,
) -> Option<(i128, Coefficient)> {
    Some(match output.coefficients[p] {
        Coefficient::Bottom => {
            // Merge: the point is one step past the anchor.
            let c = value.checked_sub(output.remaining)?;
            (
                output.remaining.checked_sub(c.checked_mul(x0)?)?,
                Coefficient::Known(c),
            )
        }
        Coefficient::Known(c) => {
            let fits = c
                .checked_mul(x)
                .and_then(|cx| value.checked_sub(cx))
                .is_some_and(|r| r == output.remaining);
            if fits {
                (output.remaining, Coefficient::Known(c))
            } else if widen {
                (
                    output.remaining.checked_add(c.checked_mul(x0)?)?,
                    Coefficient::Top,
                )
            } else {
                return None;
            }
        }
        Coefficient::Top => (output.remaining, Coefficient::Top),
    })
}

/// The label part of [`Stream::absorb_point`]: a point has only ⊥ coefficients and a
/// segment varies only along `p`. Every output is checked before any is changed, so a
/// refusal leaves the segment as it was; no allocation (this runs for every event).
fn absorb_point_labels(
    segment: &mut Polyhedron,
    point: &[i64],
    labels: &[i128],
    p: usize,
    widen: bool,
) -> Option<()> {
    let x0 = segment.vertex(0)[p] as i128;
    let x = point[p] as i128;
    // The usual event continues a segment whose labels already fit it: nothing but the
    // upper vertex changes.
    let unchanged =
        segment
            .labels
            .iter()
            .zip(labels)
            .all(|(output, &value)| match output.coefficients[p] {
                Coefficient::Known(c) => c
                    .checked_mul(x)
                    .and_then(|cx| value.checked_sub(cx))
                    .is_some_and(|r| r == output.remaining),
                Coefficient::Top => true,
                Coefficient::Bottom => false,
            });
    if !unchanged {
        for (output, &value) in segment.labels.iter().zip(labels) {
            absorb_point_output(output, value, x0, x, p, widen)?;
        }
    }
    if !unchanged {
        for (output, &value) in segment.labels.iter_mut().zip(labels) {
            // Checked above: the same computation cannot fail now.
            let (remaining, coefficient) = absorb_point_output(output, value, x0, x, p, widen)?;
            output.remaining = remaining;
            output.coefficients[p] = coefficient;
        }
    }
    let upper = segment.dims;
    segment.vertices[upper..].copy_from_slice(point);
    segment.count += 1;
    Some(())
}

/// ⊥ means "flat along this loop". A merge along a diagonal search vector makes a
/// polyhedron vary along an inner position whose coefficient is still ⊥ (its rows are
/// single points): the solved coefficient already accounts for that variation, so the
/// function is exact with 0 there, and saying so keeps a later absorption from
/// taking ⊥ as flatness.
fn settle_bottoms(polyhedron: &mut Polyhedron) {
    let anchor = polyhedron.anchor().to_vec();
    for (q, &origin) in anchor.iter().enumerate() {
        let varies = (1..polyhedron.vertex_count()).any(|k| polyhedron.vertex(k)[q] != origin);
        if !varies {
            continue;
        }
        for output in &mut polyhedron.labels {
            if output.coefficients[q] == Coefficient::Bottom {
                output.coefficients[q] = Coefficient::Known(0);
            }
        }
    }
}

/// Label functions of `a` after absorbing `b` along level `d`, every output or none.
fn absorbed_labels(
    a: &Polyhedron,
    b: &Polyhedron,
    d: usize,
    widen: bool,
) -> Option<Vec<LabelOutput>> {
    let along = a.position(d);
    a.labels
        .iter()
        .zip(&b.labels)
        .map(|(fa, fb)| fa.absorbed(a.anchor(), fb, b.anchor(), along, widen))
        .collect()
}
