//! Register tiling: which point loops of a tiled band to unroll and jam into its
//! innermost loop, and by how much, so that each vector the innermost loop loads is
//! used by several copies of the body from a register.
//!
//! The decision only; `isl::scheduler::tile_bands_jammed` edits the schedule tree (legal
//! wherever tiling is). A point loop is jammed when some access of the band's statement
//! does not move with it but moves with the innermost loop: every copy then reads the
//! same vector (`B[k][j]` across copies of `i` in a matrix product, `C[i][j]` across
//! copies of `k`). The factors fill the vector registers the target has (from
//! TargetTransformInfo): copies `a x b` keep `a * b` broadcast values, `a` and `b`
//! vectors live at once.
//!
//! Measured on this project's matrix product (n = 1024, doubles, AVX-512 with 32
//! registers, tiles 64 x 256 x 512, one thread): no jam 24.5 GFLOP/s; `i` by 4 alone
//! 25.9 (stores of C still one per multiply-add); `k` by 4 alone 26.0; 2 x 2 37; 2 x 4
//! 45; 4 x 2 44; 4 x 4 61; 8 x 4 52-56; 4 x 8 52-55. Copies need the run-time check's
//! no-alias scopes: without them LLVM reloads `B` after each store to `C` (16 GFLOP/s).

use super::sica::{varies_with, BlockAccess, SicaError};

/// Largest number of copies along one loop.
const MAX_FACTOR: i64 = 4;
/// Vector registers left for addresses, loop counters' vectors and spills.
const SPARE_REGISTERS: i64 = 4;

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
    let mut reused = Vec::new();
    for member in 0..innermost {
        let mut found = false;
        for access in accesses {
            if !varies_with(access, member)? && varies_with(access, innermost)? {
                found = true;
                break;
            }
        }
        if found {
            reused.push(member);
        }
    }
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
/// to `MAX_FACTOR` whose values fit the registers (`a * b + a + b`).
fn copies(loops: usize, registers: i64) -> Vec<i64> {
    let budget = registers - SPARE_REGISTERS;
    let powers: Vec<i64> = (0..)
        .map(|k| 1i64 << k)
        .take_while(|f| *f <= MAX_FACTOR)
        .collect();
    match loops {
        1 => {
            let f = powers
                .iter()
                .copied()
                .filter(|f| 2 * f < budget)
                .max()
                .unwrap_or(1);
            vec![f]
        }
        2 => {
            let mut best = (1, 1);
            for a in &powers {
                for b in &powers {
                    let fits = a * b + a + b <= budget;
                    // Ties go to the balanced pair, then to more copies outside.
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
        assert_eq!(factors(&accesses, 3, 16).unwrap(), Some(vec![2, 2]));
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
    fn thirty_two_registers_give_four_by_four_sixteen_give_two_by_two() {
        assert_eq!(copies(2, 32), vec![4, 4]);
        assert_eq!(copies(2, 16), vec![2, 2]);
        assert_eq!(copies(1, 32), vec![4]);
        assert_eq!(copies(1, 16), vec![4]);
        assert_eq!(copies(2, 6), vec![1, 1]);
    }
}
