//! A loop nest in the canonical form of the trace model: every loop counts in steps
//! of 1 from the maximum of its affine lower faces (at least the face 0) up to the
//! minimum of its affine upper faces (faces are over the outer counters), and the one
//! access is `base + Σ coeffs[j]·i_j`, computed modulo 2^64 so that any i64 address
//! sequence has a model. The nest may stop after `count` accesses, before
//! its domain is exhausted (a trace that ends inside a loop).
//! Relies on nothing but the invariant the synthesis keeps: consecutive points of the
//! trace are consecutive points of the domain, so enumeration never skips an empty loop.

/// Deepest nest the synthesis builds (the depth cap of iterative deepening).
pub const MAX_DEPTH: usize = 8;
/// Largest |coefficient| of an outer counter in a face; keeps `Σ a·i + b` inside i64
/// for counters below [`MAX_COUNTER`].
pub(crate) const MAX_FACE_SLOPE: i64 = 1 << 16;
/// Largest |constant| of a face.
pub(crate) const MAX_FACE_CONSTANT: i64 = 1 << 40;
/// Counters never exceed the trace length; traces longer than this are cut into pieces.
pub(crate) const MAX_COUNTER: i64 = 1 << 40;

/// A point of the iteration domain; only the first `depth` entries are meaningful.
pub type Point = [i64; MAX_DEPTH];

/// One upper face of the loop at level `j`: `i_j <= constant + Σ_{m<j} slopes[m]·i_m`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Face {
    pub(crate) slopes: [i64; MAX_DEPTH],
    pub(crate) constant: i64,
}

impl Face {
    /// The face `i_j <= constant`.
    pub fn constant(constant: i64) -> Face {
        Face {
            slopes: [0; MAX_DEPTH],
            constant,
        }
    }

    /// The face `i_j <= constant + Σ slopes[m]·i_m` (slopes of the outer counters).
    pub fn new(slopes: &[i64], constant: i64) -> Face {
        let mut face = Face::constant(constant);
        face.slopes[..slopes.len()].copy_from_slice(slopes);
        face
    }

    /// Slope of outer counter `m`.
    pub fn slope(&self, m: usize) -> i64 {
        self.slopes[m]
    }

    pub fn constant_term(&self) -> i64 {
        self.constant
    }

    /// The bound this face puts on level `level` at the outer counters of `point`.
    #[inline]
    pub(crate) fn value(&self, level: usize, point: &Point) -> i64 {
        let mut value = self.constant;
        // Wrapping: faces the synthesis builds stay far from overflow (see the
        // limits above); a hand-built nest that overflows gets a wrong bound, no panic.
        for (slope, x) in self.slopes[..level].iter().zip(point) {
            value = value.wrapping_add(slope.wrapping_mul(*x));
        }
        value
    }

    pub(crate) fn within_limits(&self, level: usize) -> bool {
        self.constant.abs() <= MAX_FACE_CONSTANT
            && self.slopes[..level]
                .iter()
                .all(|s| s.abs() <= MAX_FACE_SLOPE)
    }

    /// A copy with a zero slope inserted for a new counter at position `at`.
    pub(crate) fn with_counter_inserted(&self, at: usize) -> Face {
        let mut face = Face::constant(self.constant);
        face.slopes[..at].copy_from_slice(&self.slopes[..at]);
        face.slopes[at + 1..].copy_from_slice(&self.slopes[at..MAX_DEPTH - 1]);
        face
    }
}

/// A canonical loop nest with one affine access; see the module comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nest {
    pub(crate) base: i64,
    pub(crate) depth: usize,
    pub(crate) coeffs: [i64; MAX_DEPTH],
    /// Upper faces per level; the bound is their minimum. Never empty per level.
    pub(crate) faces: Vec<Vec<Face>>,
    /// Lower faces per level; the bound is their maximum. The first is always the
    /// face 0 (`i_j >= 0`), further ones come from §4.3's moves.
    pub(crate) lowers: Vec<Vec<Face>>,
    pub(crate) count: u64,
}

impl Nest {
    /// A nest from its parts; `faces[j]` are the upper faces of level j (at least one).
    /// Returns None if the shapes disagree, a level has no face or a face is outside
    /// the limits the generator's arithmetic relies on.
    pub fn new(base: i64, coeffs: &[i64], faces: Vec<Vec<Face>>, count: u64) -> Option<Nest> {
        let depth = coeffs.len();
        if depth == 0 || depth > MAX_DEPTH || faces.len() != depth {
            return None;
        }
        for (level, level_faces) in faces.iter().enumerate() {
            if level_faces.is_empty() || !level_faces.iter().all(|f| f.within_limits(level)) {
                return None;
            }
        }
        let mut all = [0; MAX_DEPTH];
        all[..depth].copy_from_slice(coeffs);
        Some(Nest {
            base,
            depth,
            coeffs: all,
            faces,
            lowers: vec![vec![Face::constant(0)]; depth],
            count,
        })
    }

    /// The same nest with lower faces `lowers[j]` for level j besides `i_j >= 0`.
    pub fn with_lower_faces(mut self, lowers: Vec<Vec<Face>>) -> Option<Nest> {
        if lowers.len() != self.depth {
            return None;
        }
        for (level, level_lowers) in lowers.into_iter().enumerate() {
            if !level_lowers.iter().all(|f| f.within_limits(level)) {
                return None;
            }
            self.lowers[level].extend(level_lowers);
        }
        Some(self)
    }

    pub fn base(&self) -> i64 {
        self.base
    }
    pub fn depth(&self) -> usize {
        self.depth
    }
    /// Address coefficient of each counter, outermost first.
    pub fn coeffs(&self) -> &[i64] {
        &self.coeffs[..self.depth]
    }
    /// Upper faces of `level`.
    pub fn faces(&self, level: usize) -> &[Face] {
        &self.faces[level]
    }
    /// Lower faces of `level` besides `i_level >= 0` (which every level has).
    pub fn lower_faces(&self, level: usize) -> &[Face] {
        &self.lowers[level][1..]
    }
    /// Number of accesses the nest emits (it may stop inside its domain).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Upper bound of `level` at the outer counters of `point`.
    #[inline]
    pub(crate) fn upper(&self, level: usize, point: &Point) -> i64 {
        let faces = &self.faces[level];
        let mut bound = faces[0].value(level, point);
        for face in &faces[1..] {
            bound = bound.min(face.value(level, point));
        }
        bound
    }

    /// Lower bound of `level` at the outer counters of `point`.
    #[inline]
    pub(crate) fn lower(&self, level: usize, point: &Point) -> i64 {
        let faces = &self.lowers[level];
        let mut bound = faces[0].value(level, point);
        for face in &faces[1..] {
            bound = bound.max(face.value(level, point));
        }
        bound
    }

    /// The address of `point`, modulo 2^64.
    #[inline]
    pub fn address(&self, point: &Point) -> i64 {
        let mut address = self.base;
        for (c, x) in self.coeffs[..self.depth].iter().zip(point) {
            address = address.wrapping_add(c.wrapping_mul(*x));
        }
        address
    }

    /// Number of points of the whole domain (ignoring `count`), if at most `limit`.
    /// Counts a run of the innermost loop at a time.
    pub fn domain_size(&self, limit: u64) -> Option<u64> {
        let inner = self.depth - 1;
        let mut cursor = Cursor::new(self);
        if !cursor.first(None) {
            return Some(0);
        }
        let mut size = 0u64;
        loop {
            let end = self.upper(inner, &cursor.point);
            size = size.saturating_add((end - cursor.point[inner]) as u64 + 1);
            if size > limit {
                return None;
            }
            cursor.point[inner] = end;
            if !cursor.next(None) {
                return Some(size);
            }
        }
    }

    /// Whether the nest emits exactly `trace`. Compares a run of the innermost loop
    /// at a time (its bound is fixed along the run), so checking costs about as much
    /// as reading the trace. `strict` refuses to step over empty loops, which nests
    /// built by the synthesis never contain between two accesses.
    pub(crate) fn emits(&self, trace: &[i64], strict: bool) -> bool {
        if self.count != trace.len() as u64 {
            return false;
        }
        if trace.is_empty() {
            return true;
        }
        let spin = strict.then_some(2 * self.depth + 2);
        let inner = self.depth - 1;
        let stride = self.coeffs[inner];
        let mut cursor = Cursor::new(self);
        if !cursor.first(spin) {
            return false;
        }
        let mut t = 0;
        loop {
            let end = self.upper(inner, &cursor.point);
            let run =
                ((end - cursor.point[inner]) as u64 + 1).min((trace.len() - t) as u64) as usize;
            let mut address = self.address(&cursor.point);
            for &expected in &trace[t..t + run] {
                if address != expected {
                    return false;
                }
                address = address.wrapping_add(stride);
            }
            t += run;
            if t == trace.len() {
                return true;
            }
            cursor.point[inner] += run as i64 - 1;
            if !cursor.next(spin) {
                return false;
            }
        }
    }

    /// For each level, the index (among the `count` accesses) of the first access of
    /// its last iteration: where the nest could stop so that what follows starts an
    /// iteration of that level afresh. Walks a run of the innermost loop at a time.
    pub(crate) fn last_iteration_starts(&self) -> [u64; MAX_DEPTH] {
        let mut starts = [0u64; MAX_DEPTH];
        let inner = self.depth - 1;
        let mut cursor = Cursor::new(self);
        if self.count == 0 || !cursor.first(None) {
            return starts;
        }
        let mut k = 0u64;
        let mut previous = cursor.point;
        loop {
            if k > 0 {
                // The outermost level that moved starts an iteration, and so does
                // every level inside it.
                let moved = (0..self.depth)
                    .find(|&m| cursor.point[m] != previous[m])
                    .unwrap_or(inner);
                for start in &mut starts[moved..self.depth] {
                    *start = k;
                }
            }
            let end = self.upper(inner, &cursor.point);
            let run = ((end - cursor.point[inner]) as u64 + 1).min(self.count - k);
            starts[inner] = k + run - 1;
            k += run;
            if k >= self.count {
                return starts;
            }
            cursor.point[inner] += run as i64 - 1;
            previous = cursor.point;
            if !cursor.next(None) {
                return starts;
            }
        }
    }

    /// Iteration points in execution order, `count` of them.
    pub fn points(&self) -> Points<'_> {
        Points {
            cursor: Cursor::new(self),
            left: self.count,
            started: false,
        }
    }

    /// Addresses in execution order, `count` of them.
    pub fn addresses(&self) -> impl Iterator<Item = i64> + '_ {
        self.points().map(move |point| self.address(&point))
    }
}

/// Lexicographic enumeration of a nest's domain.
pub(crate) struct Cursor<'a> {
    nest: &'a Nest,
    pub(crate) point: Point,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(nest: &'a Nest) -> Cursor<'a> {
        Cursor {
            nest,
            point: [0; MAX_DEPTH],
        }
    }

    /// Moves to the first point; false if the domain is empty.
    pub(crate) fn first(&mut self, spin_limit: Option<usize>) -> bool {
        self.advance(0, true, spin_limit)
    }

    /// Moves to the next point; false at the end (or past `spin_limit` loop steps).
    pub(crate) fn next(&mut self, spin_limit: Option<usize>) -> bool {
        self.advance(self.nest.depth - 1, false, spin_limit)
    }

    /// Starts level `level` afresh (counter 0) or steps it, then settles the inner
    /// levels on their first point, backing out of loops that turn out empty.
    fn advance(&mut self, mut level: usize, mut fresh: bool, spin_limit: Option<usize>) -> bool {
        let depth = self.nest.depth;
        let mut steps = 0usize;
        loop {
            steps += 1;
            if spin_limit.is_some_and(|limit| steps > limit) {
                return false;
            }
            if fresh {
                self.point[level] = self.nest.lower(level, &self.point);
            } else {
                self.point[level] += 1;
            }
            if self.point[level] <= self.nest.upper(level, &self.point) {
                if level + 1 == depth {
                    return true;
                }
                level += 1;
                fresh = true;
            } else {
                if level == 0 {
                    return false;
                }
                level -= 1;
                fresh = false;
            }
        }
    }
}

/// Iterator over a nest's points, see [`Nest::points`].
pub struct Points<'a> {
    cursor: Cursor<'a>,
    left: u64,
    started: bool,
}

impl Iterator for Points<'_> {
    type Item = Point;
    fn next(&mut self) -> Option<Point> {
        if self.left == 0 {
            return None;
        }
        let more = if self.started {
            self.cursor.next(None)
        } else {
            self.started = true;
            self.cursor.first(None)
        };
        if !more {
            self.left = 0;
            return None;
        }
        self.left -= 1;
        Some(self.cursor.point)
    }
}
