//! Exact integer fitting of upper faces (the paper's §3.4 and §4.2, with exact
//! elimination over i128 in place of PipLib), and the affine basis of the points a
//! face must keep containing.
//!
//! A face of level j is `i_j <= b + Σ_{m<j} a_m·i_m`; a point x lies on it when
//! `b + a·x_<j = x_j`. Underdetermined systems set the free unknowns to 0, the
//! constant first, so a face is as flat as its points allow.

use super::nest::{Face, Point, MAX_DEPTH};

/// Unknowns of a face: the constant, then one slope per outer counter.
const UNKNOWNS: usize = MAX_DEPTH + 1;
type Row = [i128; UNKNOWNS + 1];

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.abs();
    b = b.abs();
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn normalize(row: &mut Row) {
    let g = row.iter().fold(0, |g, &v| gcd(g, v));
    if g > 1 {
        row.iter_mut().for_each(|v| *v /= g);
    }
}

/// `(1, x_0, …, x_{level-1} | x_level)`: the equation "x lies on the face".
fn equation(level: usize, point: &Point) -> Row {
    let mut row = [0i128; UNKNOWNS + 1];
    row[0] = 1;
    for m in 0..level {
        row[1 + m] = point[m] as i128;
    }
    row[UNKNOWNS] = point[level] as i128;
    row
}

/// `target -= source·(target[col]/source[col])`, fraction-free; None on overflow.
fn eliminate(target: &mut Row, source: &Row, col: usize) -> Option<()> {
    let factor = target[col];
    let pivot = source[col];
    if factor == 0 {
        return Some(());
    }
    for c in 0..=UNKNOWNS {
        target[c] = target[c]
            .checked_mul(pivot)?
            .checked_sub(source[c].checked_mul(factor)?)?;
    }
    normalize(target);
    Some(())
}

/// The integer face of `level` through all of `points`, free unknowns at 0; None if
/// the points are not on one hyperplane, the solution is not integral, or it is
/// outside the face limits.
pub(crate) fn face_through(level: usize, points: &[Point]) -> Option<Face> {
    let unknowns = level + 1;
    let mut rows: Vec<Row> = points.iter().map(|p| equation(level, p)).collect();
    let mut pivots: Vec<(usize, usize)> = Vec::new(); // (row, column)
    let mut next = 0;
    for col in 0..unknowns {
        let Some(found) = (next..rows.len()).find(|&r| rows[r][col] != 0) else {
            continue;
        };
        rows.swap(next, found);
        let pivot_row = rows[next];
        for (r, row) in rows.iter_mut().enumerate() {
            if r != next {
                eliminate(row, &pivot_row, col)?;
            }
        }
        pivots.push((next, col));
        next += 1;
    }
    // Rows left without a pivot must read 0 = 0.
    if rows[next..].iter().any(|row| row[UNKNOWNS] != 0) {
        return None;
    }
    let mut solution = [0i128; UNKNOWNS];
    for &(r, col) in &pivots {
        let (rhs, pivot) = (rows[r][UNKNOWNS], rows[r][col]);
        if rhs % pivot != 0 {
            return None;
        }
        solution[col] = rhs / pivot;
    }
    let mut face = Face::constant(i64::try_from(solution[0]).ok()?);
    for m in 0..level {
        face.slopes[m] = i64::try_from(solution[1 + m]).ok()?;
    }
    face.within_limits(level).then_some(face)
}

/// The face of `level` through `point` that stays on or above every point of
/// `beneath`, built as the paper's §4.2 does: start from the face parallel to the
/// axes, and while a point lies above it, make the farthest such point (nearest to
/// `point` among equals, so slopes stay small and integral) lie on it.
pub(crate) fn face_above(level: usize, point: &Point, beneath: &[Point]) -> Option<Face> {
    let mut on = vec![*point];
    for _ in 0..=level {
        let face = face_through(level, &on)?;
        let mut worst: Option<(i64, i64, &Point)> = None;
        for x in beneath {
            let excess = x[level] - face.value(level, x);
            if excess <= 0 {
                continue;
            }
            let distance: i64 = (0..level).map(|m| (x[m] - point[m]).abs()).sum();
            let better = match worst {
                None => true,
                Some((e, d, _)) => excess > e || (excess == e && distance < d),
            };
            if better {
                worst = Some((excess, distance, x));
            }
        }
        match worst {
            None => return Some(face),
            Some((_, _, x)) => on.push(*x),
        }
    }
    None
}

/// The lower face of `level` through `point` that stays on or below every point of
/// `above`: [`face_above`] with the level's coordinate mirrored.
pub(crate) fn face_below(level: usize, point: &Point, above: &[Point]) -> Option<Face> {
    let mirror = |x: &Point| {
        let mut y = *x;
        y[level] = -y[level];
        y
    };
    let mirrored: Vec<Point> = above.iter().map(mirror).collect();
    let upper = face_above(level, &mirror(point), &mirrored)?;
    let slopes: Vec<i64> = (0..level).map(|m| -upper.slope(m)).collect();
    Some(Face::new(&slopes, -upper.constant_term()))
}

/// Up to `dims + 1` affinely independent points (independent in their first `dims`
/// coordinates): every point ever offered lies in the affine hull of the kept ones,
/// so a face through the kept ones passes through all of them.
#[derive(Clone, Debug)]
pub(crate) struct AffineBasis {
    dims: usize,
    points: Vec<Point>,
    /// Row echelon form of the kept points' `(1, x_0..x_{dims-1})`, with pivot columns.
    echelon: Vec<([i128; UNKNOWNS], usize)>,
}

impl AffineBasis {
    pub(crate) fn new(dims: usize) -> AffineBasis {
        AffineBasis {
            dims,
            points: Vec::new(),
            echelon: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.points.len() > self.dims
    }

    pub(crate) fn points(&self) -> &[Point] {
        &self.points
    }

    /// Keeps `point` if it is independent of the kept points.
    pub(crate) fn offer(&mut self, point: &Point) {
        if self.is_full() {
            return;
        }
        let mut v = [0i128; UNKNOWNS];
        v[0] = 1;
        for m in 0..self.dims {
            v[1 + m] = point[m] as i128;
        }
        // Entries stay below 2^62, so each product fits in i128; the gcd (the slow
        // part) is taken only when an entry grows past that.
        const LARGE: i128 = 1 << 62;
        for (row, col) in &self.echelon {
            let factor = v[*col];
            if factor == 0 {
                continue;
            }
            let pivot = row[*col];
            let mut largest = 0;
            for c in 0..=self.dims {
                v[c] = v[c] * pivot - row[c] * factor;
                largest = largest.max(v[c].abs());
            }
            if largest > LARGE {
                let g = v.iter().fold(0, |g, &x| gcd(g, x));
                v.iter_mut().for_each(|x| *x /= g);
                if v.iter().any(|x| x.abs() > LARGE) {
                    // Not kept: a face may then be refitted less tightly, and the
                    // final check of the model still guards it.
                    return;
                }
            }
        }
        if let Some(col) = (0..=self.dims).find(|&c| v[c] != 0) {
            let g = v.iter().fold(0, |g, &x| gcd(g, x));
            v.iter_mut().for_each(|x| *x /= g);
            self.echelon.push((v, col));
            self.points.push(*point);
        }
    }

    /// The basis of the same points seen in `dims` coordinates after `map`.
    pub(crate) fn mapped(&self, dims: usize, map: impl Fn(&Point) -> Point) -> AffineBasis {
        let mut basis = AffineBasis::new(dims);
        for point in &self.points {
            basis.offer(&map(point));
        }
        basis
    }
}

/// `point` with a zero counter inserted at position `at`.
pub(crate) fn insert_counter(point: &Point, at: usize) -> Point {
    let mut out = [0; MAX_DEPTH];
    out[..at].copy_from_slice(&point[..at]);
    out[at + 1..].copy_from_slice(&point[at..MAX_DEPTH - 1]);
    out
}
