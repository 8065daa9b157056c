//! Register tiling: which point loops of a tiled band to unroll and jam into its
//! innermost loop, and by how much, so that each vector the innermost loop loads is
//! used by several copies of the body from a register.
//!
//! The decision only; `isl::scheduler::tile_bands_jammed` edits the schedule tree (legal
//! wherever tiling is). A point loop is jammed when some access of the band's statement
//! does not move with it but moves with the innermost loop: every copy then reads the
//! same vector (`B[k][j]` across copies of `i` in a matrix product, `C[i][j]` across
//! copies of `k`). The factors come from the vector registers the target has (from
//! TargetTransformInfo): copies `a x b` keep `a + b` vectors live (a row of each
//! operand); the `a * b` broadcast scalars need not stay in registers, x86's
//! multiply-adds read them from memory.
//!
//! Measured on this project's matrix product (n = 1024, doubles, tiles 64 x 256 x 512,
//! one thread), GFLOP/s by copies of i x k:
//!
//! | copies | AVX-512 (32 registers) | AVX2 (16 registers) |
//! |---|---|---|
//! | none | 24.5 | 17.4 |
//! | 4 x 1, 1 x 4 | 25.9, 26.0 | |
//! | 2 x 2 | 37 | 30.5 |
//! | 2 x 4, 4 x 2 | 45, 44 | 40.3, 35.5 |
//! | 3 x 3 | | 41.0 |
//! | 4 x 4 | 61 | 38.5-41.3 |
//! | 8 x 4, 4 x 8 | 52-56, 52-55 | |
//!
//! Copies along one loop alone gain nothing (stores of C stay one per multiply-add),
//! hence two loops whenever two are reused. Copies need the run-time check's no-alias
//! scopes: without them LLVM reloads B after each store to C (16 GFLOP/s).

use super::sica::{moves, BlockAccess, SicaError};

/// Largest number of copies along one loop.
const MAX_FACTOR: i64 = 4;

/// Register tile factors for the point loops of a band of `members` loops but the
/// innermost (1 leaves a loop alone), from the accesses of its one statement as
/// relations from the band's members; `None` when no access is reused across copies of
/// any loop.
pub fn factors(
    accesses: &[BlockAccess<'_>],
    members: usize,
    vector_registers: u32,
) -> Result<Option<Vec<i64>>, SicaError> {
    if members < 2 {
        return Ok(None);
    }
    let innermost = members - 1;
    let moves = moves(accesses, members)?;
    let reused: Vec<usize> = (0..innermost)
        .filter(|member| (0..accesses.len()).any(|a| !moves[*member][a] && moves[innermost][a]))
        .collect();
    // The loops nearest the innermost one: their copies share the most.
    let jammed: Vec<usize> = reused.iter().rev().take(2).rev().copied().collect();
    let sizes = copies(jammed.len(), i64::from(vector_registers));
    if sizes.iter().all(|f| *f <= 1) {
        return Ok(None);
    }
    let mut out = vec![1; innermost];
    for (member, size) in jammed.iter().zip(sizes) {
        out[*member] = size;
    }
    Ok(Some(out))
}

/// Copies along `loops` (at most two) loops: the largest product of powers of two up
/// to `MAX_FACTOR` whose live vectors (`a + b`) take at most half the registers.
fn copies(loops: usize, registers: i64) -> Vec<i64> {
    let budget = registers / 2;
    let powers: Vec<i64> = (0..)
        .map(|k| 1i64 << k)
        .take_while(|f| *f <= MAX_FACTOR)
        .collect();
    match loops {
        1 => {
            let f = powers
                .iter()
                .copied()
                .filter(|f| *f < budget)
                .max()
                .unwrap_or(1);
            vec![f]
        }
        2 => {
            let mut best = (1, 1);
            for a in &powers {
                for b in &powers {
                    let fits = a + b <= budget;
                    // Ties go to the balanced pair.
                    let better = a * b > best.0 * best.1
                        || (a * b == best.0 * best.1 && (a - b).abs() < (best.0 - best.1).abs());
                    if fits && better {
                        best = (*a, *b);
                    }
                }
            }
            vec![best.0, best.1]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::isl::{parse_map, IslCtx, Map};

    #[test]
    fn matrix_product_jams_the_row_and_reduction_loops() {
        // Band [i, k, j] of C[i][j] += A[i][k] * B[k][j]: B is reused across copies of
        // i, C across copies of k; A does not move with j (a broadcast, not a vector).
        let ctx = IslCtx::new(None).unwrap();
        let parse = |s: &str| parse_map(&ctx, s, "access").unwrap();
        let relations: Vec<(Map, u32)> = [
            "[n] -> { [i, k, j] -> C[i, j] : 0 <= i, j, k < n }",
            "[n] -> { [i, k, j] -> A[i, k] : 0 <= i, j, k < n }",
            "[n] -> { [i, k, j] -> B[k, j] : 0 <= i, j, k < n }",
        ]
        .iter()
        .map(|s| (parse(s), 8))
        .collect();
        let accesses = BlockAccess::all(&relations);
        assert_eq!(factors(&accesses, 3, 32).unwrap(), Some(vec![4, 4]));
        assert_eq!(factors(&accesses, 3, 8).unwrap(), Some(vec![2, 2]));
    }

    #[test]
    fn nothing_reused_across_copies_means_no_register_tiles() {
        // A[i][k][j] = B[i][k][j] + 1: every element is touched once.
        let ctx = IslCtx::new(None).unwrap();
        let relations: Vec<(Map, u32)> = [
            "[n] -> { [i, k, j] -> A[i, k, j] : 0 <= i, j, k < n }",
            "[n] -> { [i, k, j] -> B[i, k, j] : 0 <= i, j, k < n }",
        ]
        .iter()
        .map(|s| (parse_map(&ctx, s, "access").unwrap(), 8))
        .collect();
        assert_eq!(factors(&BlockAccess::all(&relations), 3, 32).unwrap(), None);
    }

    #[test]
    fn sixteen_registers_or_more_give_four_by_four_eight_give_two_by_two() {
        assert_eq!(copies(2, 32), vec![4, 4]);
        assert_eq!(copies(2, 16), vec![4, 4]);
        assert_eq!(copies(2, 8), vec![2, 2]);
        assert_eq!(copies(1, 32), vec![4]);
        assert_eq!(copies(1, 8), vec![2]);
        assert_eq!(copies(2, 2), vec![1, 1]);
    }
}
