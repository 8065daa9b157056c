//! Elementary polyhedra (paper, sec. 4.2): a polyhedron of level d has 2^d vertices,
//! flat above loop level d; vertices `0..2^(d-1)` are its lower face and the rest its
//! upper face (bit d−1 of the index picks the face), both elementary (d−1)-polyhedra;
//! the edge from lower vertex k to upper vertex k is n·S_k with S_k ∈ {−1,0,1}^D and
//! S_k one exactly along d. Levels count loops inside-out (1 = innermost), while
//! vertices store IVs outermost first: level d is IV position `dims − d`.
//!
//! Vertex 0 is always the lexicographically smallest vertex (the anchor): points
//! arrive in lexicographic order, so every lower face comes first. The lattice points
//! of a polyhedron are exactly the points it absorbed, which [`Polyhedron::points`]
//! regenerates.

use super::label::LabelOutput;

/// One elementary polyhedron being folded, with its label function and event count.
#[derive(Debug, Clone, PartialEq)]
pub struct Polyhedron {
    /// d: the polyhedron has 2^d vertices.
    pub level: usize,
    /// Length of each vertex (IV positions, outermost first).
    pub dims: usize,
    /// 2^level vertices of `dims` coordinates, one after the other.
    pub vertices: Vec<i64>,
    pub labels: Vec<LabelOutput>,
    /// Points absorbed.
    pub count: u64,
}

impl Polyhedron {
    /// A point: level 0, one vertex.
    pub fn point(point: &[i64], labels: &[i128]) -> Polyhedron {
        Polyhedron {
            level: 0,
            dims: point.len(),
            vertices: point.to_vec(),
            labels: labels
                .iter()
                .map(|&value| LabelOutput::of_point(value, point.len()))
                .collect(),
            count: 1,
        }
    }

    pub fn vertex(&self, k: usize) -> &[i64] {
        &self.vertices[k * self.dims..(k + 1) * self.dims]
    }

    pub fn vertex_count(&self) -> usize {
        self.vertices.len() / self.dims.max(1)
    }

    pub fn anchor(&self) -> &[i64] {
        self.vertex(0)
    }

    /// IV position of loop level `level`.
    pub fn position(&self, level: usize) -> usize {
        self.dims - level
    }

    /// The same points as a level-(level+1) polyhedron whose upper face is its lower
    /// face (n = 0): how a finished (d−1)-polyhedron starts as a d-absorber.
    pub fn promoted(mut self) -> Polyhedron {
        self.vertices.extend_from_within(..);
        self.level += 1;
        self
    }

    /// Whether the polyhedron has not grown along its own level yet.
    pub fn is_degenerate(&self) -> bool {
        let half = self.vertex_count() / 2;
        let p = self.position(self.level);
        self.vertex(half)[p] == self.vertex(0)[p]
    }

    /// Growing direction of lower vertex `k` (level ≥ 1, not degenerate).
    fn direction(&self, k: usize) -> Vec<i64> {
        let half = self.vertex_count() / 2;
        let p = self.position(self.level);
        let n = self.vertex(half)[p] - self.vertex(0)[p];
        self.vertex(half + k)
            .iter()
            .zip(self.vertex(k))
            .map(|(upper, lower)| (upper - lower) / n)
            .collect()
    }

    /// Where the anchor of the next (level−1)-polyhedron must be for an extension.
    pub fn extension_key(&self) -> Vec<i64> {
        let half = self.vertex_count() / 2;
        self.vertex(half)
            .iter()
            .zip(self.direction(0))
            .map(|(corner, step)| corner + step)
            .collect()
    }

    /// Whether `offset` (from a degenerate absorber's anchor to a candidate's) is a
    /// merge search vector at this level: 0 outside, 1 along the level, −1/0/1 inside.
    pub fn is_search_vector(&self, offset: &[i64]) -> bool {
        let p = self.position(self.level);
        offset[..p].iter().all(|&x| x == 0)
            && offset[p] == 1
            && offset[p + 1..].iter().all(|&x| (-1..=1).contains(&x))
    }

    /// Geometry of a merge of this degenerate absorber with `b`: every vertex moves by
    /// a search vector, and every side face stays planar (Fig. 7).
    pub fn can_merge(&self, b: &Polyhedron) -> bool {
        let half = self.vertex_count() / 2;
        if b.vertex_count() != half || b.dims != self.dims {
            return false;
        }
        let offsets: Vec<Vec<i64>> = (0..half)
            .map(|k| {
                b.vertex(k)
                    .iter()
                    .zip(self.vertex(k))
                    .map(|(x, y)| x - y)
                    .collect()
            })
            .collect();
        if !offsets.iter().all(|offset| self.is_search_vector(offset)) {
            return false;
        }
        // Side faces: for each inner level j and each side of it, the lower vertices of
        // that side and their images span at most a hyperplane of the level's space.
        let p = self.position(self.level);
        for j in 1..self.level {
            for side in 0..2 {
                let mut face: Vec<Vec<i64>> = Vec::new();
                for k in (0..half).filter(|k| (k >> (j - 1)) & 1 == side) {
                    face.push(self.vertex(k)[p..].to_vec());
                    face.push(b.vertex(k)[p..].to_vec());
                }
                if affine_rank(&face) > self.level - 1 {
                    return false;
                }
            }
        }
        true
    }

    /// Geometry of an extension by `b`: each upper vertex moves by its direction.
    pub fn can_extend(&self, b: &Polyhedron) -> bool {
        let half = self.vertex_count() / 2;
        if b.vertex_count() != half || b.dims != self.dims {
            return false;
        }
        (0..half).all(|k| {
            let step = self.direction(k);
            b.vertex(k)
                .iter()
                .zip(self.vertex(half + k))
                .zip(&step)
                .all(|((next, upper), s)| *next == upper + s)
        })
    }

    /// Replaces the upper face by `b`'s vertices (both merge and extension).
    pub fn take_upper_face(&mut self, b: &Polyhedron) {
        let half = self.vertex_count() / 2;
        self.vertices.truncate(half * self.dims);
        self.vertices.extend_from_slice(&b.vertices);
        self.count += b.count;
    }

    /// Every lattice point, regenerated from the vertices alone.
    pub fn points(&self) -> Vec<Vec<i64>> {
        let faces: Vec<Vec<i64>> = (0..self.vertex_count())
            .map(|k| self.vertex(k).to_vec())
            .collect();
        let mut points = Vec::new();
        regenerate(&faces, self.level, self.dims, &mut points);
        points
    }

    /// The least and greatest coordinate of the vertices, per IV position.
    pub fn bounds(&self) -> (Vec<i64>, Vec<i64>) {
        let mut lower = self.anchor().to_vec();
        let mut upper = lower.clone();
        for k in 1..self.vertex_count() {
            for (q, &x) in self.vertex(k).iter().enumerate() {
                lower[q] = lower[q].min(x);
                upper[q] = upper[q].max(x);
            }
        }
        (lower, upper)
    }
}

/// Appends the lattice points of the level-`level` elementary polyhedron with these
/// vertices (each of `dims` positions) to `out`.
pub(crate) fn regenerate(
    vertices: &[Vec<i64>],
    level: usize,
    dims: usize,
    out: &mut Vec<Vec<i64>>,
) {
    if level == 0 {
        out.push(vertices[0].clone());
        return;
    }
    let half = vertices.len() / 2;
    let p = dims - level;
    let n = vertices[half][p] - vertices[0][p];
    for t in 0..=n {
        let face: Vec<Vec<i64>> = (0..half)
            .map(|k| {
                vertices[k]
                    .iter()
                    .zip(&vertices[half + k])
                    .map(|(&lower, &upper)| {
                        if n == 0 {
                            lower
                        } else {
                            lower + t * (upper - lower) / n
                        }
                    })
                    .collect()
            })
            .collect();
        regenerate(&face, level - 1, dims, out);
    }
}

/// Dimension of the affine hull of `points` (fraction-free Gaussian elimination).
fn affine_rank(points: &[Vec<i64>]) -> usize {
    let Some(origin) = points.first() else {
        return 0;
    };
    let mut rows: Vec<Vec<i128>> = points[1..]
        .iter()
        .map(|p| p.iter().zip(origin).map(|(x, o)| (x - o) as i128).collect())
        .collect();
    let columns = origin.len();
    let mut rank = 0;
    for column in 0..columns {
        let Some(pivot) = (rank..rows.len()).find(|&r| rows[r][column] != 0) else {
            continue;
        };
        rows.swap(rank, pivot);
        for r in 0..rows.len() {
            if r != rank && rows[r][column] != 0 {
                let (a, b) = (rows[rank][column], rows[r][column]);
                let pivot_row = rows[rank].clone();
                for (x, y) in rows[r].iter_mut().zip(&pivot_row) {
                    *x = *x * a - y * b;
                }
                // Keep entries small: divide by the row's gcd.
                let g = rows[r].iter().fold(0i128, |g, &x| gcd(g, x));
                if g > 1 {
                    rows[r].iter_mut().for_each(|x| *x /= g);
                }
            }
        }
        rank += 1;
    }
    rank
}

fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poly(level: usize, vertices: &[[i64; 3]]) -> Polyhedron {
        Polyhedron {
            level,
            dims: 3,
            vertices: vertices.iter().flatten().copied().collect(),
            labels: Vec::new(),
            count: 1,
        }
    }

    #[test]
    fn a_square_lower_face_with_a_triangular_upper_face_is_refused() {
        // Fig. 7: the lower face is the unit square at i = 0 (vertices ordered
        // (j,k) = (0,0), (0,1), (1,0), (1,1)); the upper face at i = 1 collapses one
        // corner, so a side face is no longer planar.
        let square = poly(2, &[[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1]]).promoted();
        let triangle = poly(2, &[[1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 0]]);
        assert!(!square.can_merge(&triangle));
        let square_above = poly(2, &[[1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]]);
        assert!(square.can_merge(&square_above));
    }

    #[test]
    fn points_of_a_trapezoid_are_regenerated() {
        // j from 0 to i, i = 0..2 (dims: entry, i, j).
        let t = Polyhedron {
            level: 2,
            dims: 3,
            vertices: vec![0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 2, 2],
            labels: Vec::new(),
            count: 6,
        };
        let mut points = t.points();
        points.sort();
        let expected: Vec<Vec<i64>> = vec![
            vec![0, 0, 0],
            vec![0, 1, 0],
            vec![0, 1, 1],
            vec![0, 2, 0],
            vec![0, 2, 1],
            vec![0, 2, 2],
        ];
        assert_eq!(points, expected);
    }

    #[test]
    fn affine_rank_of_collinear_points_is_one() {
        assert_eq!(affine_rank(&[vec![0, 0], vec![1, 1], vec![3, 3]]), 1);
        assert_eq!(affine_rank(&[vec![0, 0], vec![1, 1], vec![3, 2]]), 2);
    }
}
