//! QUOV storage allocation (Yuki and Rajopadhye, IMPACT 2013), the vector half: the
//! shortest quasi-universal occupancy vector of a statement's values, legal for every
//! tiled execution of its band whatever the tile sizes, and the modular storage
//! mapping it gives.
//!
//! Input: the data-flow vectors out of one statement (producer to consumer, constant
//! distances) in the band's final space, after skewing, where every component of a
//! tilable dimension is non-negative. Rules:
//! - a fully tilable band: the element-wise maximum of the vectors (Thm. 1);
//! - a sequential run of dimensions: the lexicographic maximum `m`, or `[m1 + 1, 0..]`
//!   when shorter (Cor. 1); runs of each kind are treated apart (Cor. 2);
//! - several statements (2d+1 schedules): a vector positive in a constant dimension
//!   makes the loop dimension before it at least 1; constant dimensions then go but the
//!   first. `[0, .., 0, 1]` means the value is read at once: a scalar;
//! - boundary-only dependences (a producer domain with an equality) that would inflate
//!   the vector are split off (the paper's Alg. 1, `split_boundaries`).
//!
//! The mapping: with `g = gcd(u)` and `u' = u / g`, a unimodular `M` with `M u' = e1`;
//! an element `z` lives at `((M z)_1 mod g, (M z)_2, ..)`. Relies on nothing but
//! integer arithmetic.
//!
//! `fold`: which folds of a temporary's dimensions the final schedule allows (checked
//! exactly, tiles and all), proposed by the QUOV; code generation rewrites the accesses
//! and allocates the folded storage.

mod fold;
pub mod storage;

pub use fold::{fold, Fold, Folding};

/// How a dimension of the band is executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// Tiled with the others of its run (permutable).
    Tilable,
    /// Scanned in order.
    Sequential,
}

/// The shortest QUOV of `vectors` (all of the same length, non-negative where
/// `dims` says tilable) for a band whose dimensions are executed as `dims`; `None` when
/// there is no vector or a tilable component is negative (the band must be skewed
/// first).
pub fn quov(vectors: &[Vec<i64>], dims: &[Dim]) -> Option<Vec<i64>> {
    let width = dims.len();
    if vectors.is_empty() || vectors.iter().any(|v| v.len() != width) {
        return None;
    }
    let tilable_negative = vectors.iter().any(|v| {
        v.iter()
            .zip(dims)
            .any(|(x, d)| *d == Dim::Tilable && *x < 0)
    });
    if tilable_negative {
        return None;
    }
    let mut out = Vec::with_capacity(width);
    let mut start = 0;
    while start < width {
        let kind = dims[start];
        let end = (start..width).find(|k| dims[*k] != kind).unwrap_or(width);
        // Cor. 2: each run of one kind on its own, over every vector.
        let run: Vec<Vec<i64>> = vectors.iter().map(|v| v[start..end].to_vec()).collect();
        out.extend(match kind {
            Dim::Tilable => element_max(&run),
            Dim::Sequential => sequential(&run),
        });
        start = end;
    }
    Some(out)
}

/// The element-wise maximum (Thm. 1).
fn element_max(vectors: &[Vec<i64>]) -> Vec<i64> {
    let width = vectors.first().map_or(0, Vec::len);
    (0..width)
        .map(|k| vectors.iter().map(|v| v[k]).max().unwrap_or(0))
        .collect()
}

/// Cor. 1: the lexicographic maximum `m`, or `[m1 + 1, 0, ..]` when shorter (L1).
fn sequential(vectors: &[Vec<i64>]) -> Vec<i64> {
    let Some(m) = vectors.iter().max().cloned() else {
        return Vec::new();
    };
    let mut bumped = vec![0; m.len()];
    if let Some(first) = bumped.first_mut() {
        *first = m[0] + 1;
    }
    if l1(&bumped) < l1(&m) {
        bumped
    } else {
        m
    }
}

/// The Manhattan length, the paper's proxy for the memory a vector costs.
pub fn l1(v: &[i64]) -> i64 {
    v.iter().map(|x| x.abs()).sum()
}

/// A data-flow vector in a 2d+1 space (`[b0, i0, b1, .., i(d-1), bd]`, constant
/// dimensions at even positions) reduced to `[b0, i0, .., i(d-1)]`: a positive constant
/// component after the first makes the loop dimension before it at least 1 (the reader
/// is textually later, the producer's next value comes in the next iteration).
#[cfg(test)]
pub fn reduce_2d1(v: &[i64]) -> Vec<i64> {
    let mut w = v.to_vec();
    for x in (2..w.len()).step_by(2) {
        if w[x] > 0 {
            w[x - 1] = w[x - 1].max(1);
        }
    }
    w.iter()
        .enumerate()
        .filter(|(k, _)| *k == 0 || k % 2 == 1)
        .map(|(_, x)| *x)
        .collect()
}

/// Whether a QUOV in a 2d+1 space (`[0, .., 0, 1]`: only the last constant dimension)
/// means the value is read at once: one scalar holds it.
#[cfg(test)]
pub fn is_scalar_2d1(u: &[i64]) -> bool {
    match u.split_last() {
        Some((last, rest)) => *last == 1 && rest.iter().all(|x| *x == 0),
        None => false,
    }
}

/// The modular storage mapping of a QUOV: `modulus = gcd(u)`, and the rows of a
/// unimodular matrix whose first row maps `u / modulus` to 1. An element `z` of the
/// statement's domain is stored at `(row0 . z mod modulus, row1 . z, ..)`, the first
/// coordinate dropped when `modulus` is 1.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(test)]
pub struct Mapping {
    pub modulus: i64,
    pub rows: Vec<Vec<i64>>,
}

/// The mapping of a non-zero QUOV; `None` for the zero vector.
#[cfg(test)]
pub fn mapping(u: &[i64]) -> Option<Mapping> {
    let modulus = u.iter().fold(0i64, |g, x| gcd(g, x.abs()));
    if modulus == 0 {
        return None;
    }
    let primitive: Vec<i64> = u.iter().map(|x| x / modulus).collect();
    let rows = unimodular_to_e1(&primitive)?;
    Some(Mapping { modulus, rows })
}

#[cfg(test)]
fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A unimodular integer matrix `M` (its rows) with `M v = e1`, for a primitive vector
/// `v` (gcd 1), built one pair of coordinates at a time with the extended Euclidean
/// algorithm: each step is a unimodular transformation that zeroes one coordinate.
#[cfg(test)]
fn unimodular_to_e1(v: &[i64]) -> Option<Vec<Vec<i64>>> {
    let n = v.len();
    if n == 0 {
        return None;
    }
    let mut m: Vec<Vec<i64>> = (0..n)
        .map(|r| (0..n).map(|c| i64::from(r == c)).collect())
        .collect();
    let mut w = v.to_vec();
    // Fold every coordinate into the first.
    for k in 1..n {
        let (a, b) = (w[0], w[k]);
        if b == 0 {
            continue;
        }
        let (g, x, y) = extended_gcd(a, b);
        // [x y; -b/g a/g] has determinant (a x + b y) / g = 1.
        let (p, q) = (-b / g, a / g);
        let row0: Vec<i64> = (0..n).map(|c| x * m[0][c] + y * m[k][c]).collect();
        let rowk: Vec<i64> = (0..n).map(|c| p * m[0][c] + q * m[k][c]).collect();
        m[0] = row0;
        m[k] = rowk;
        w[0] = g;
        w[k] = 0;
    }
    match w[0] {
        1 => Some(m),
        -1 => {
            m[0] = m[0].iter().map(|x| -x).collect();
            Some(m)
        }
        _ => None,
    }
}

/// `(g, x, y)` with `a x + b y = g = gcd(a, b)`, `g >= 0`.
#[cfg(test)]
fn extended_gcd(a: i64, b: i64) -> (i64, i64, i64) {
    if b == 0 {
        return if a < 0 { (-a, -1, 0) } else { (a, 1, 0) };
    }
    let (g, x, y) = extended_gcd(b, a % b);
    (g, y, x - (a / b) * y)
}

/// One data-flow vector out of a statement, with whether its producer domain holds an
/// equality (a boundary: `i = 0`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(test)]
pub struct Flow {
    pub vector: Vec<i64>,
    pub boundary: bool,
}

/// The paper's Alg. 1, steps 1 and 2a: the boundary-only vectors that would inflate
/// the QUOV of the rest (not among the others, not below their element-wise maximum),
/// which index-set splitting gives a piece of the statement of their own. Returns the
/// indices of the flows to split off.
#[cfg(test)]
pub fn split_boundaries(flows: &[Flow]) -> Vec<usize> {
    let main: Vec<Vec<i64>> = flows
        .iter()
        .filter(|f| !f.boundary)
        .map(|f| f.vector.clone())
        .collect();
    let m = if main.is_empty() {
        None
    } else {
        Some(element_max(&main))
    };
    flows
        .iter()
        .enumerate()
        .filter(|(_, f)| f.boundary)
        .filter(|(_, f)| !main.contains(&f.vector))
        .filter(|(_, f)| {
            m.as_ref()
                .is_none_or(|m| !f.vector.iter().zip(m).all(|(x, y)| x <= y))
        })
        .map(|(k, _)| k)
        .collect()
}

#[cfg(test)]
mod tests;
