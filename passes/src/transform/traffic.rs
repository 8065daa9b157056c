//! An estimate of the memory traffic of a loop nest: bytes brought into the cache per
//! iteration of the innermost body, for the original loop order and for a tiled one, so
//! that the cost model can say (and weigh) what tiling gains.
//!
//! The nest is a list of loops, outermost first, each with a trip count; each access (an
//! array reference) either moves with a loop (reaches new elements when it advances) or
//! stays on its element. An access brings its elements in once per pass over them,
//! unless the loop it stays invariant in touches more data per iteration than the cache
//! holds: then every iteration of that loop brings in again the part the cache could
//! not keep (the share of that iteration's data beyond the cache size). So an access
//! costs its element size times the trip counts of the loops it moves in, times, for
//! the loops it is invariant in, one pass plus the evicted share of the others; divided
//! by the iterations of the whole nest. This is the reasoning of SICA and of `reuse` (footprints against
//! L2), counted in elements (not cache lines) and per access (a stencil's neighbours
//! count apart): both err the same way for every order compared.
//!
//! Trip counts not known at compile time count as `NOMINAL_TRIP` (large enough that a
//! square array of doubles exceeds any L2).

/// Trip count assumed for a loop whose count depends on the parameters.
pub const NOMINAL_TRIP: f64 = 2048.0;

/// One loop of a nest.
#[derive(Clone, Debug, PartialEq)]
pub struct NestLoop {
    pub trip: f64,
    /// Per access, whether it reaches new elements when this loop advances.
    pub moves: Vec<bool>,
}

/// Bytes brought into a cache of `cache_bytes` per iteration of the nest `loops` whose
/// accesses have elements of `element_bytes`.
pub fn bytes_per_iteration(loops: &[NestLoop], element_bytes: &[u32], cache_bytes: f64) -> f64 {
    let iterations: f64 = loops.iter().map(|l| l.trip.max(1.0)).product();
    if iterations <= 0.0 {
        return 0.0;
    }
    // Bytes one iteration of loop `k` touches: each access over the loops inside `k`
    // it moves in.
    let footprint = |k: usize| -> f64 {
        element_bytes
            .iter()
            .enumerate()
            .map(|(a, bytes)| {
                let inside: f64 = loops[k + 1..]
                    .iter()
                    .filter(|l| l.moves.get(a).copied().unwrap_or(true))
                    .map(|l| l.trip.max(1.0))
                    .product();
                f64::from(*bytes) * inside
            })
            .sum()
    };
    // The share of one iteration's data still in cache when the next one reuses it:
    // all of it when it fits, else the part the cache holds (the rest was evicted).
    let kept: Vec<f64> = (0..loops.len())
        .map(|k| {
            let bytes = footprint(k);
            if bytes <= cache_bytes {
                1.0
            } else {
                cache_bytes / bytes
            }
        })
        .collect();
    element_bytes
        .iter()
        .enumerate()
        .map(|(a, bytes)| {
            let passes: f64 = loops
                .iter()
                .zip(&kept)
                .map(|(l, kept)| {
                    let trip = l.trip.max(1.0);
                    if l.moves.get(a).copied().unwrap_or(true) {
                        trip
                    } else {
                        // Each later iteration brings in again what was evicted.
                        1.0 + (trip - 1.0) * (1.0 - kept)
                    }
                })
                .product();
            f64::from(*bytes) * passes / iterations
        })
        .sum()
}

/// The nest of a band of loops with trip counts `trips` tiled by `sizes` (`None`: a
/// member left whole): the tile loops of the tiled members, then every member's point
/// loop.
pub fn tiled_nest(trips: &[f64], sizes: &[Option<f64>], moves: &[Vec<bool>]) -> Vec<NestLoop> {
    let mut nest = Vec::new();
    for (m, (trip, size)) in trips.iter().zip(sizes).enumerate() {
        if let Some(size) = size {
            nest.push(NestLoop {
                trip: (trip / size).ceil().max(1.0),
                moves: moves[m].clone(),
            });
        }
    }
    for (m, (trip, size)) in trips.iter().zip(sizes).enumerate() {
        nest.push(NestLoop {
            trip: size.map_or(*trip, |s| s.min(*trip)),
            moves: moves[m].clone(),
        });
    }
    nest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Band `[i, k, j]` of `C[i][j] += A[i][k] * B[k][j]`, accesses C, A, B.
    fn product_moves() -> Vec<Vec<bool>> {
        vec![
            vec![true, true, false], // i: C and A move, B stays
            vec![false, true, true], // k: A and B move, C stays
            vec![true, false, true], // j: C and B move, A stays
        ]
    }

    #[test]
    fn untiled_product_streams_b_once_per_row_of_c() {
        let n = 2048.0;
        let moves = product_moves();
        let nest = tiled_nest(&[n, n, n], &[None, None, None], &moves);
        // A k iteration (rows of C and B, 32 KiB) fits in 1 MiB, an i iteration (all of
        // B, 32 MiB) does not: all but 1/32 of B comes in again for every i, nearly 8
        // bytes per iteration.
        let bytes = bytes_per_iteration(&nest, &[8, 8, 8], 1024.0 * 1024.0);
        assert!((bytes - 8.0 * 31.0 / 32.0).abs() < 0.1, "{bytes}");
    }

    #[test]
    fn tiles_that_fit_divide_the_traffic_by_the_reuse_they_keep() {
        let n = 2048.0;
        let moves = product_moves();
        let untiled = bytes_per_iteration(
            &tiled_nest(&[n, n, n], &[None, None, None], &moves),
            &[8, 8, 8],
            1024.0 * 1024.0,
        );
        // i by 21, k by 23: B's tile of 23 rows is reused by the 21 rows of C.
        let tiled = bytes_per_iteration(
            &tiled_nest(&[n, n, n], &[Some(21.0), Some(23.0), None], &moves),
            &[8, 8, 8],
            1024.0 * 1024.0,
        );
        let ratio = untiled / tiled;
        assert!(
            ratio > 15.0 && ratio < 25.0,
            "{untiled} / {tiled} = {ratio}"
        );
    }

    #[test]
    fn a_nest_that_fits_in_cache_moves_each_element_once() {
        let n = 64.0;
        let moves = product_moves();
        let bytes = bytes_per_iteration(
            &tiled_nest(&[n, n, n], &[None, None, None], &moves),
            &[8, 8, 8],
            1024.0 * 1024.0,
        );
        // 3 arrays of n^2 doubles over n^3 iterations.
        assert!((bytes - 3.0 * 8.0 / n).abs() < 1e-9, "{bytes}");
    }
}
