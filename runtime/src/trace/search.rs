//! The search for one nest (the paper's Extract, Alg. 1, with Grow, Alg. 2): a
//! depth-first walk of partial nests that each explain a prefix of the trace,
//! inside iterative deepening on the depth so the first nest found is of least depth
//! (when no round ran out of budget).
//!
//! Per access: the predictor γ (iterations left per level, from the faces) names the
//! one expected move; when its stride matches, the access is taken in O(D) with no
//! branching and no allocation (once each level's reset basis is full, after a few
//! runs), and a constant-stride run of the innermost loop is taken in one step. When
//! every level is at its bound, the outermost loop running longer is taken on the
//! same path (its one face is a constant, moved out to the new point), so that a nest
//! whose outermost loop runs more iterations than a round has nodes stays one nest.
//! Otherwise the candidates are, in order: each level whose increment gives the
//! stride (with faces refitted, §3.4, or a new upper face where no refit exists,
//! §4.2); where none fits, each ⊕ move that starts one inner loop above its lower
//! bound, with a new lower face (§4.3); then a new loop at each position 0..=D (Grow).
//! A run of the innermost loop past its bound is taken whole (one refit), and where
//! γ's move ties with another move (coefficients 0 make ties), both are tried, a few
//! times per path.
//!
//! What a state keeps (besides c, the faces and the last point) is, per level, an
//! affine basis of its reset points: a refitted face through that basis passes through
//! every reset point, which is all §3.4 asks. Adding a face needs every reset point;
//! those are regenerated from the nest itself (the paper's "recalculated on demand").

use super::fit::{face_above, face_below, face_through, insert_counter, AffineBasis};
use super::nest::{Cursor, Face, Nest, Point, MAX_COUNTER, MAX_DEPTH};

/// Bounds on one search, so a trace without a (small) model ends in bounded time.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Deepest nest tried (at most [`MAX_DEPTH`]).
    pub max_depth: usize,
    /// Most upper faces per level (1 = the single-domain algorithm of §3).
    pub max_faces: usize,
    /// Branching nodes per depth round.
    pub nodes_per_round: u64,
    /// Work per depth round (steps of the predicted path, each a run of the innermost
    /// loop or one access, plus loop prefixes regenerated to fit new faces), in units
    /// of the trace length.
    pub work_factor: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: MAX_DEPTH,
            max_faces: 4,
            nodes_per_round: 5_000,
            work_factor: 64,
        }
    }
}

/// What one search found.
pub(crate) struct Found {
    /// The nest for the longest prefix explained (all of it when `complete`).
    pub nest: Nest,
    pub complete: bool,
    /// Whether a shallower round ran out of budget, so the depth may not be least.
    pub budget_hit: bool,
}

/// Work left in the current search.
struct Budget {
    nodes: u64,
    work: u64,
    work_limit: u64,
}

#[derive(Clone, Debug)]
struct State {
    nest: Nest,
    point: Point,
    /// Index in the trace of `point`.
    k: usize,
    /// Per level: affine basis of the reset points (the last point of each completed
    /// run of that loop), in the level's first `level + 1` coordinates.
    resets: Vec<AffineBasis>,
    /// Ties (see [`Halt::Tie`]) still branched on along this path: loops whose
    /// address coefficient is 0 tie systematically, and each branch costs a node.
    ties_left: u8,
    /// Affine basis of every point before `point`: the reset points of a new
    /// innermost loop.
    all: AffineBasis,
}

/// See [`State::ties_left`].
const TIES_PER_PATH: u8 = 4;
/// Largest shift of a loop's start by a ⊕ move (§4.3 bounds it by the range of values
/// seen; here the upper bound of the level bounds it, and this cap).
const MAX_START_SHIFT: i64 = 1 << 12;

enum Halt {
    Complete,
    Branch,
    /// γ's move `+(l)` gives the stride, and so does another move: both are tried,
    /// γ's first (the greedy path of the paper would never revisit the other).
    Tie(usize),
    /// The round's work budget is spent.
    OutOfWork,
}

/// Length of the run of `stride` starting at `trace[k]`, at most `limit` steps.
#[inline]
fn run_length(trace: &[i64], k: usize, stride: i64, limit: usize) -> usize {
    let window = &trace[k..=k + limit];
    // Compare in blocks first: this loop is the whole cost of long runs.
    let mut r = 0;
    const BLOCK: usize = 16;
    while r + BLOCK <= limit {
        // No early exit inside a block, so the compiler can vectorize it.
        let block = &window[r..=r + BLOCK];
        let ok = block.windows(2).fold(true, |ok, pair| {
            ok & (pair[1].wrapping_sub(pair[0]) == stride)
        });
        if !ok {
            break;
        }
        r += BLOCK;
    }
    while r < limit && window[r + 1].wrapping_sub(window[r]) == stride {
        r += 1;
    }
    r
}

impl State {
    fn root(trace: &[i64]) -> State {
        let mut nest = Nest {
            base: trace[0],
            depth: 1,
            coeffs: [0; MAX_DEPTH],
            faces: vec![vec![Face::constant(1)]],
            lowers: vec![vec![Face::constant(0)]],
            count: 2,
        };
        nest.coeffs[0] = trace[1].wrapping_sub(trace[0]);
        let mut all = AffineBasis::new(1);
        all.offer(&[0; MAX_DEPTH]);
        let mut point = [0; MAX_DEPTH];
        point[0] = 1;
        State {
            nest,
            point,
            k: 1,
            resets: vec![AffineBasis::new(0)],
            ties_left: TIES_PER_PATH,
            all,
        }
    }

    #[inline]
    fn gamma(&self, level: usize) -> i64 {
        self.nest.upper(level, &self.point) - self.point[level]
    }

    /// The point after `+(l)`: level l steps, the inner levels start at their lower
    /// bounds (0 unless a lower face says more).
    #[inline]
    fn successor(&self, l: usize) -> Point {
        let mut next = self.point;
        next[l] += 1;
        for j in l + 1..self.nest.depth {
            next[j] = self.nest.lower(j, &next);
        }
        next
    }

    /// Stride from the current point to `next`.
    #[inline]
    fn stride_to(&self, next: &Point) -> i64 {
        let depth = self.nest.depth;
        let pairs = next[..depth].iter().zip(&self.point[..depth]);
        pairs
            .zip(&self.nest.coeffs[..depth])
            .fold(0i64, |stride, ((to, from), c)| {
                stride.wrapping_add(c.wrapping_mul(to.wrapping_sub(*from)))
            })
    }

    /// Stride of `+(l)`.
    #[inline]
    fn stride_of(&self, l: usize) -> i64 {
        self.stride_to(&self.successor(l))
    }

    /// Takes accesses while γ predicts them; stops at the end or where it cannot.
    fn run_predicted(&mut self, trace: &[i64], budget: &mut Budget) -> Halt {
        let depth = self.nest.depth;
        let inner = depth - 1;
        let last = trace.len() - 1;
        loop {
            if self.k == last {
                return Halt::Complete;
            }
            budget.work += 1;
            if budget.work > budget.work_limit {
                return Halt::OutOfWork;
            }
            let stride = trace[self.k + 1].wrapping_sub(trace[self.k]);
            let g = self.gamma(inner);
            if g > 0 {
                if stride != self.nest.coeffs[inner] {
                    return Halt::Branch;
                }
                let limit = (g as u64).min((last - self.k) as u64) as usize;
                let r = run_length(trace, self.k, stride, limit);
                self.take_run(r);
                continue;
            }
            // The innermost loop is done: the outer level with iterations left moves.
            let (l, outermost_runs_longer) = match (0..inner).rev().find(|&l| self.gamma(l) > 0) {
                Some(l) => (l, false),
                // Every level is at its bound, and the outermost one's is tight at
                // the newest point (faces move out to pass through it): only the
                // outermost loop can run longer. Its faces are constants, so moving
                // its one face out to the next point is the whole refit (§3.4,
                // "outer loop ran long"); taking it here rather than in a node
                // keeps a nest whose outermost loop runs more iterations than a
                // round has nodes (a 10^4 × 100 sweep) from being cut into pieces
                // at a node per iteration.
                None if inner > 0 && self.nest.faces[0].len() == 1 => (0, true),
                None => return Halt::Branch,
            };
            if self.stride_of(l) != stride {
                return Halt::Branch;
            }
            if self.ties_left > 0
                && (0..depth).any(|other| other != l && self.stride_of(other) == stride)
            {
                self.ties_left -= 1;
                return Halt::Tie(l);
            }
            let next = self.successor(l);
            // Inner loops must not be empty at the new point, or it is not the next one.
            if (l + 1..depth).any(|m| self.nest.upper(m, &next) < next[m]) {
                return Halt::Branch;
            }
            if outermost_runs_longer {
                if next[0] >= MAX_COUNTER {
                    return Halt::Branch;
                }
                self.nest.faces[0][0] = Face::constant(next[0]);
            }
            for j in l + 1..depth {
                if !self.resets[j].is_full() {
                    self.resets[j].offer(&self.point);
                }
            }
            if !self.all.is_full() {
                self.all.offer(&self.point);
            }
            self.point = next;
            self.k += 1;
        }
    }

    /// Takes `r >= 1` more iterations of the innermost loop.
    #[inline]
    fn take_run(&mut self, r: usize) {
        let inner = self.nest.depth - 1;
        if !self.all.is_full() {
            // The run's points before its end are on the segment between these two.
            self.all.offer(&self.point);
            let mut before_end = self.point;
            before_end[inner] += r as i64 - 1;
            self.all.offer(&before_end);
        }
        self.point[inner] += r as i64;
        self.k += r;
    }

    /// Every point of the nest so far that ends a run of `level`, in the level's
    /// coordinates. Such a point is `(prefix, upper bound of level at prefix)` for each
    /// prefix of the outer levels before the current one: consecutive points never
    /// skip an empty loop, so every completed prefix ends on its bound. Enumerating
    /// prefixes, not points, costs one step per run of the level.
    fn reset_points(&self, level: usize, budget: &mut Budget) -> Option<Vec<Point>> {
        self.prefix_points(level, false, budget, |nest, prefix| {
            nest.upper(level, prefix)
        })
    }

    /// Every point of the nest so far that starts a run of `level` (the current run
    /// included): `(prefix, lower bound of level at prefix)`, as [`Self::reset_points`].
    fn start_points(&self, level: usize, budget: &mut Budget) -> Option<Vec<Point>> {
        self.prefix_points(level, true, budget, |nest, prefix| {
            nest.lower(level, prefix)
        })
    }

    /// `(prefix, bound(prefix))` for each prefix of the levels outside `level` up to
    /// the current point's (included or not).
    fn prefix_points(
        &self,
        level: usize,
        with_current: bool,
        budget: &mut Budget,
        bound: impl Fn(&Nest, &Point) -> i64,
    ) -> Option<Vec<Point>> {
        let point_at = |prefix: &Point| {
            let mut point = *prefix;
            point[level] = bound(&self.nest, prefix);
            point
        };
        if level == 0 {
            return Some(if with_current {
                vec![point_at(&self.point)]
            } else {
                Vec::new()
            });
        }
        let outer = Nest {
            base: 0,
            depth: level,
            coeffs: [0; MAX_DEPTH],
            faces: self.nest.faces[..level].to_vec(),
            lowers: self.nest.lowers[..level].to_vec(),
            count: 0,
        };
        let mut cursor = Cursor::new(&outer);
        let spin = Some(2 * level + 2);
        if !cursor.first(spin) {
            return None;
        }
        let mut points = Vec::new();
        while cursor.point[..level] != self.point[..level] {
            budget.work += 1;
            if budget.work > budget.work_limit || points.len() > self.k {
                return None;
            }
            points.push(point_at(&cursor.point));
            if !cursor.next(spin) {
                return None;
            }
        }
        if with_current {
            points.push(point_at(&cursor.point));
        }
        Some(points)
    }

    /// The point after `+(l)` with level `m` started at `start` instead of its lower
    /// bound (the levels inside m at their lower bounds).
    fn successor_starting(&self, l: usize, m: usize, start: i64) -> Point {
        let mut next = self.successor(l);
        next[m] = start;
        for j in m + 1..self.nest.depth {
            next[j] = self.nest.lower(j, &next);
        }
        next
    }

    /// The start of level `m` above its lower bound that makes `+(l)` give `stride`.
    /// The stride is affine in the start while the inner lower bounds are: it is
    /// solved from two samples, then checked exactly.
    fn start_for_stride(&self, l: usize, m: usize, stride: i64) -> Option<Point> {
        let lowest = self.successor(l)[m] + 1;
        let highest = self
            .nest
            .upper(m, &self.successor(l))
            .min(lowest - 1 + MAX_START_SHIFT);
        if lowest > highest {
            return None;
        }
        let first = self.stride_to(&self.successor_starting(l, m, lowest));
        let start = if first == stride {
            lowest
        } else {
            if lowest == highest {
                return None;
            }
            let slope = self
                .stride_to(&self.successor_starting(l, m, lowest + 1))
                .wrapping_sub(first);
            let gap = stride.wrapping_sub(first);
            if slope == 0 || gap % slope != 0 || gap / slope < 0 {
                return None;
            }
            lowest.checked_add(gap / slope)?
        };
        if start > highest {
            return None;
        }
        let next = self.successor_starting(l, m, start);
        (self.stride_to(&next) == stride).then_some(next)
    }

    /// The move ⊕ of §4.3 with one free level: level `l` steps and level `m` starts
    /// at `next[m]`, above its lower bound, which a new lower face through `next`
    /// makes the bound from now on.
    fn start_above(
        &mut self,
        l: usize,
        m: usize,
        next: Point,
        limits: &Limits,
        budget: &mut Budget,
    ) -> bool {
        let Some(above) = self.start_points(m, budget) else {
            return false;
        };
        let Some(face) = face_below(m, &next, &above) else {
            return false;
        };
        self.nest.lowers[m].push(face);
        if self.nest.lower(m, &next) != next[m] {
            return false;
        }
        self.step_to(l, next, limits, budget)
    }

    /// Level `level` must end at the current point (`γ_level` becomes 0).
    fn end_here(&mut self, level: usize, limits: &Limits, budget: &mut Budget) -> bool {
        if self.nest.faces[level].len() == 1 {
            let mut on = self.resets[level].points().to_vec();
            on.push(self.point);
            if let Some(face) = face_through(level, &on) {
                self.nest.faces[level][0] = face;
                return true;
            }
        }
        if self.nest.faces[level].len() >= limits.max_faces {
            return false;
        }
        let Some(beneath) = self.reset_points(level, budget) else {
            return false;
        };
        match face_above(level, &self.point, &beneath) {
            Some(face) => {
                self.nest.faces[level].push(face);
                true
            }
            None => false,
        }
    }

    /// The bound of `level` must reach `target[level]` at the outer counters of
    /// `target`: faces below it move out to pass through it (tight, as the paper's
    /// S_1^2 and new loops are), keeping the reset points they held.
    fn reach(&mut self, level: usize, target: &Point, budget: &mut Budget) -> bool {
        let value = target[level];
        if self.nest.faces[level].len() == 1 {
            if self.nest.faces[level][0].value(level, target) >= value {
                return true;
            }
            let mut on = self.resets[level].points().to_vec();
            on.push(*target);
            return match face_through(level, &on) {
                Some(face) => {
                    self.nest.faces[level][0] = face;
                    true
                }
                None => false,
            };
        }
        if self.nest.upper(level, target) >= value {
            return true;
        }
        let Some(resets) = self.reset_points(level, budget) else {
            return false;
        };
        for f in 0..self.nest.faces[level].len() {
            let face = self.nest.faces[level][f].clone();
            if face.value(level, target) >= value {
                continue;
            }
            let mut basis = AffineBasis::new(level);
            for x in resets.iter().filter(|x| face.value(level, x) == x[level]) {
                basis.offer(x);
            }
            let mut on = basis.points().to_vec();
            on.push(*target);
            let Some(moved) = face_through(level, &on) else {
                return false;
            };
            if resets.iter().any(|x| moved.value(level, x) < x[level]) {
                return false;
            }
            self.nest.faces[level][f] = moved;
        }
        true
    }

    /// Takes the move `+(l)` from the current point, changing faces as needed.
    fn step(&mut self, l: usize, limits: &Limits, budget: &mut Budget) -> bool {
        let next = self.successor(l);
        self.step_to(l, next, limits, budget)
    }

    /// Moves from the current point to `next`, whose level `l` is one more and whose
    /// inner levels start their loops: levels inside l end here, level l and the
    /// inner ones must admit `next`.
    fn step_to(&mut self, l: usize, next: Point, limits: &Limits, budget: &mut Budget) -> bool {
        let depth = self.nest.depth;
        for j in l + 1..depth {
            if self.gamma(j) > 0 && !self.end_here(j, limits, budget) {
                return false;
            }
        }
        for j in l + 1..depth {
            self.resets[j].offer(&self.point);
        }
        if next[l] >= MAX_COUNTER {
            return false;
        }
        for m in l..depth {
            if !self.reach(m, &next, budget) {
                return false;
            }
        }
        self.all.offer(&self.point);
        self.point = next;
        self.k += 1;
        true
    }

    /// Grow: a new loop at position `at`, whose first increment is the next access.
    fn grow(&mut self, at: usize, limits: &Limits, trace: &[i64], budget: &mut Budget) -> bool {
        let depth = self.nest.depth;
        let stride = trace[self.k + 1].wrapping_sub(trace[self.k]);
        let mut coeffs = [0; MAX_DEPTH];
        for r in 0..depth {
            coeffs[if r < at { r } else { r + 1 }] = self.nest.coeffs[r];
        }

        let mut faces = Vec::with_capacity(depth + 1);
        let mut lowers = Vec::with_capacity(depth + 1);
        let mut resets = Vec::with_capacity(depth + 1);
        for level in 0..at {
            faces.push(self.nest.faces[level].clone());
            lowers.push(self.nest.lowers[level].clone());
            resets.push(self.resets[level].clone());
        }
        // The new loop's face starts at 0 (`reach` moves it); its reset points are the
        // old ones of the level it goes above, or all points for a new innermost loop.
        faces.push(vec![Face::constant(0)]);
        lowers.push(vec![Face::constant(0)]);
        let ends_new_loop = if at < depth {
            &self.resets[at]
        } else {
            &self.all
        };
        resets.push(ends_new_loop.mapped(at, |x| {
            let mut y = *x;
            y[at] = 0;
            y[at + 1..].iter_mut().for_each(|v| *v = 0);
            y
        }));
        for level in at..depth {
            faces.push(
                self.nest.faces[level]
                    .iter()
                    .map(|f| f.with_counter_inserted(at))
                    .collect(),
            );
            lowers.push(
                self.nest.lowers[level]
                    .iter()
                    .map(|f| f.with_counter_inserted(at))
                    .collect(),
            );
            resets.push(self.resets[level].mapped(level + 1, |x| insert_counter(x, at)));
        }
        self.all = self.all.mapped(depth + 1, |x| insert_counter(x, at));
        self.nest.faces = faces;
        self.nest.lowers = lowers;
        self.nest.coeffs = coeffs;
        self.nest.depth = depth + 1;
        self.resets = resets;
        self.point = insert_counter(&self.point, at);
        // c'_at makes +(at) give the stride: σ = c'_at + Σ_{r>at} c_r·(next_r - i_r)
        // (with lower bounds 0 this is the paper's c'_at = σ + Σ_{r>at} c_r·i_r).
        let next = self.successor(at);
        self.nest.coeffs[at] = 0;
        self.nest.coeffs[at] = stride.wrapping_sub(self.stride_to(&next));
        self.step_to(at, next, limits, budget)
    }

    fn into_nest(mut self) -> Nest {
        self.nest.count = self.k as u64 + 1;
        self.nest
    }
}

/// Whether `nest` regenerates `trace` exactly (count, every address).
pub(crate) fn reproduces(nest: &Nest, trace: &[i64]) -> bool {
    nest.emits(trace, true)
}

/// The least-depth nest for `trace` within `limits`, or the nest for the longest
/// prefix found. `trace` is not empty and shorter than [`MAX_COUNTER`].
pub(crate) fn search(trace: &[i64], limits: &Limits) -> Found {
    if trace.len() == 1 {
        let nest = Nest {
            base: trace[0],
            depth: 1,
            coeffs: [0; MAX_DEPTH],
            faces: vec![vec![Face::constant(0)]],
            lowers: vec![vec![Face::constant(0)]],
            count: 1,
        };
        return Found {
            nest,
            complete: true,
            budget_hit: false,
        };
    }
    let mut budget = Budget {
        nodes: 0,
        work: 0,
        work_limit: limits
            .work_factor
            .saturating_mul(trace.len() as u64)
            .saturating_add(1 << 20),
    };
    let mut best: Option<State> = None;
    let mut budget_hit = false;
    let max_depth = limits.max_depth.clamp(1, MAX_DEPTH);
    for depth_cap in 1..=max_depth {
        budget.nodes = limits.nodes_per_round;
        budget.work = 0;
        let mut stack = vec![State::root(trace)];
        while let Some(mut state) = stack.pop() {
            if budget.nodes == 0 {
                budget_hit = true;
                break;
            }
            budget.nodes -= 1;
            match state.run_predicted(trace, &mut budget) {
                Halt::Complete => {
                    let nest = state.into_nest();
                    // A nest that does not regenerate the trace means a broken
                    // invariant; never report it, keep searching.
                    if reproduces(&nest, trace) {
                        return Found {
                            nest,
                            complete: true,
                            budget_hit,
                        };
                    }
                    continue;
                }
                Halt::Branch => {}
                Halt::OutOfWork => {
                    budget_hit = true;
                    break;
                }
                Halt::Tie(l) => {
                    let mut predicted = state.clone();
                    let taken = predicted.step(l, limits, &mut budget);
                    expand(
                        state,
                        depth_cap,
                        limits,
                        trace,
                        &mut budget,
                        &mut stack,
                        Some(l),
                    );
                    if taken {
                        stack.push(predicted);
                    }
                    continue;
                }
            }
            if best.as_ref().is_none_or(|b| state.k > b.k) {
                best = Some(state.clone());
            }
            expand(
                state,
                depth_cap,
                limits,
                trace,
                &mut budget,
                &mut stack,
                None,
            );
        }
    }
    let mut nest = best
        .map(State::into_nest)
        .unwrap_or_else(|| State::root(trace).into_nest());
    if !reproduces(&nest, &trace[..nest.count as usize]) {
        // Cannot happen while the invariants hold; the root always does.
        nest = State::root(trace).into_nest();
    }
    Found {
        nest,
        complete: false,
        budget_hit,
    }
}

/// Pushes the successors of `state` so that the preferred one is popped first.
fn expand(
    state: State,
    depth_cap: usize,
    limits: &Limits,
    trace: &[i64],
    budget: &mut Budget,
    stack: &mut Vec<State>,
    skip: Option<usize>,
) {
    let depth = state.nest.depth;
    let inner = depth - 1;
    let stride = trace[state.k + 1].wrapping_sub(trace[state.k]);
    // A run of the innermost loop beyond its bound is taken whole, then its face
    // moved once: the single-step alternatives would only be deeper nests.
    if skip.is_none() && state.gamma(inner) <= 0 && stride == state.nest.coeffs[inner] {
        let last = trace.len() - 1;
        let r = run_length(trace, state.k, stride, last - state.k);
        let mut target = state.point;
        target[inner] += r as i64;
        if target[inner] < MAX_COUNTER {
            let mut longer = state.clone();
            if longer.reach(inner, &target, budget) {
                longer.take_run(r);
                stack.push(longer);
                return;
            }
        }
    }
    let mut successors = Vec::new();
    for l in (0..depth).rev() {
        if skip != Some(l) && state.stride_of(l) == stride {
            let mut next = state.clone();
            if next.step(l, limits, budget) {
                successors.push(next);
            }
        }
    }
    // ⊕ (§4.3), only where no plain move fits, as the paper tries it: one inner level
    // starts above its lower bound (the paper's K, here 1), no higher than its upper
    // bound allows.
    if successors.is_empty() {
        for l in (0..inner).rev() {
            for m in l + 1..depth {
                if state.nest.lowers[m].len() < limits.max_faces {
                    if let Some(next) = state.start_for_stride(l, m, stride) {
                        let mut moved = state.clone();
                        if moved.start_above(l, m, next, limits, budget) {
                            successors.push(moved);
                        }
                    }
                }
            }
        }
    }
    if depth < depth_cap {
        for at in 0..=depth {
            let mut next = state.clone();
            if next.grow(at, limits, trace, budget) {
                successors.push(next);
            }
        }
    }
    stack.extend(successors.into_iter().rev());
}
