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

use crate::isl::scheduler::BandInfo;
use crate::isl::{parse_map, parse_union_map, IslError, Map, Set};
use crate::model::Scop;

use super::cost::StatementView;

/// Largest number of copies along one loop.
const MAX_FACTOR: i64 = 4;
/// Vector registers left for addresses, loop counters' vectors and spills.
const SPARE_REGISTERS: i64 = 4;

/// Register tile factors for the point loops of `band` but the innermost (1 leaves a
/// loop alone), or `None` when none is worth jamming: the band schedules more than
/// one statement, or no access is reused across copies of any loop.
pub fn factors(
    scop: &Scop,
    band: &BandInfo,
    vector_registers: u32,
) -> Result<Option<Vec<i64>>, IslError> {
    let members = band.coincident.len();
    let Some(partial) = band.partial.as_deref() else {
        return Ok(None);
    };
    if members < 2 {
        return Ok(None);
    }
    let maps = parse_union_map(&scop.context.ctx(), partial, "band")?.maps()?;
    let [map] = maps.as_slice() else {
        return Ok(None);
    };
    let Some(name) = map.domain_name() else {
        return Ok(None);
    };
    let views = StatementView::all(scop);
    let Some(statement) = views.iter().find(|v| v.name == name) else {
        return Ok(None);
    };
    let innermost = members - 1;
    let mut reused = Vec::new();
    for member in 0..innermost {
        let mut found = false;
        for access in &statement.accesses {
            let moves = |dim| moves_with(map, access, dim, statement.domain);
            if !moves(member)? && moves(innermost)? {
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

/// Whether the element `access` touches changes when band member `dim` of `band` (the
/// band's schedule of the statement) advances by one.
fn moves_with(band: &Map, access: &Map, dim: usize, domain: &Set) -> Result<bool, IslError> {
    let width = band.n_out()?;
    let names: Vec<String> = (0..width).map(|k| format!("b{k}")).collect();
    let stepped: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(k, n)| {
            if k == dim {
                format!("{n} + 1")
            } else {
                n.clone()
            }
        })
        .collect();
    let ctx = domain.ctx();
    let step = parse_map(
        &ctx,
        &format!("{{ [{}] -> [{}] }}", names.join(", "), stepped.join(", ")),
        "one step of a band member",
    )?;
    let band = band
        .copy()?
        .intersect_domain(domain.copy()?)?
        .drop_range_name()?;
    let elements = band.reverse()?.apply_range(access.copy()?)?;
    let moved = elements
        .copy()?
        .reverse()?
        .apply_range(step)?
        .apply_range(elements)?
        .deltas()?;
    for k in 0..moved.n_dims()? {
        if moved.dim_value_range(k)? != Some((0, 0)) && !moved.is_empty()? {
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_two_registers_give_four_by_four_sixteen_give_two_by_two() {
        assert_eq!(copies(2, 32), vec![4, 4]);
        assert_eq!(copies(2, 16), vec![2, 2]);
        assert_eq!(copies(1, 32), vec![4]);
        assert_eq!(copies(1, 16), vec![4]);
        assert_eq!(copies(2, 6), vec![1, 1]);
    }
}
