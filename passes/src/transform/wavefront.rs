//! Wavefronts of tiles, for OpenMP threads: a tiled permutable band none of whose tile
//! loops is parallel (the time tiles of a skewed stencil: every tile waits for the one
//! before it in time and the one before it in rows) runs its tiles along diagonals
//! instead. The first tile loop becomes the sum of the first two, each counted in tiles
//! (`w = T + Y`, with the loops' strides as weights where tile loops count elements);
//! the tiles of one diagonal depend on nothing else on it, so the second tile loop,
//! below `w`, carries no dependence and runs on threads (`codegen/fork.rs` forks the
//! outermost parallel loop). Points inside a tile run as before.
//!
//! Legal when every dependence between the band's instances has non-negative distances
//! in the two tile loops (checked here: the band's permutable flag is not relied on): the sum then grows unless both stay, and a pair in one tile
//! keeps its order below. Pairs the tiled schedule already ran out of order (scalars
//! private to a row, see `time_tiling`) fail that test, and the band stays as it is.
//!
//! Relies on the `isl` layer (`scheduler::wavefront_band`, `Set::stride`); only bands at
//! the top of the schedule (no loop around them) are considered, so that distances
//! within the band are the whole story, and only bands whose tiles run whole inner
//! loops (`whole_loops_inside`), so that a diagonal pays for its fork. A 1-D stencil's
//! time tiles run strips of its one loop, not whole loops, and stay as they are:
//! measured on a 1-D Jacobi sweep pair (2 M doubles, 200 steps), its tiles in diamonds
//! along a wavefront ran 12% slower on one thread than the time tiles in order.

use crate::isl::scheduler;
use crate::isl::{IslError, Schedule, Set, Tuple, UnionMap};
use crate::report::Notes;

use super::diamond::{self, Pipelined};

/// A schedule whose tiles run along a wavefront.
pub struct Wavefront {
    /// The schedule, its band's first tile loop replaced by the wavefront.
    pub schedule: Schedule,
    /// How the first diagonal starts: the one place this is decided.
    pub start: Start,
    /// For the description: the tiles' shape, which loops were summed, with what
    /// weights.
    pub description: String,
}

/// How the wavefront starts.
#[derive(Debug)]
pub enum Start {
    /// Diamond tiles (`transform/diamond.rs`): every tile of the first time steps on
    /// the first diagonal.
    Concurrent {
        /// The time factor `a` of the second hyperplane `a * t - y + c`.
        factor: i64,
    },
    /// The time tiles as they were: one tile starts, then two, ...; and why.
    Pipelined(Pipelined),
}

/// What the wavefront step makes of a schedule.
pub enum Outcome {
    /// No tiled band at the top without a parallel tile loop.
    NotApplicable,
    /// Such a band, but a dependence between its tiles runs backwards in a tile loop
    /// (pairs the tiled schedule reorders: a scalar private to a row).
    Backwards,
    /// The schedule with the band's tiles along a wavefront.
    Front(Wavefront),
}

/// The wavefront of the first tiled band of `schedule` at its top that has no parallel
/// tile loop, when the dependences (`dependences`, instance to instance, every kind)
/// allow it.
pub fn wavefront(schedule: &Schedule, dependences: &UnionMap) -> Result<Outcome, IslError> {
    let mut outcome = Outcome::NotApplicable;
    let bands = scheduler::bands(schedule)?;
    for (index, band) in bands.iter().enumerate() {
        if band.depth != 0 || band.coincident.len() < 2 {
            continue;
        }
        let Some(partial) = &band.partial else {
            continue;
        };
        if !whole_loops_inside(partial, band.coincident.len())? {
            continue;
        }
        let Some(strides) = tile_strides(partial, 2)? else {
            continue;
        };
        let Some(distances) = band_distances(partial, dependences)? else {
            continue;
        };
        if (0..band.coincident.len()).any(|k| carries_nothing(&distances, k).unwrap_or(false)) {
            continue;
        }
        if !forward_in_both(&distances)? {
            outcome = Outcome::Backwards;
            continue;
        }
        return front(schedule, &bands, index, &strides, dependences).map(Outcome::Front);
    }
    Ok(outcome)
}

/// The band at `index` along a wavefront: in diamonds when the dependences allow
/// them, else its time tiles as they are (tile loop strides `strides`).
fn front(
    schedule: &Schedule,
    bands: &[scheduler::BandInfo],
    index: usize,
    strides: &[i64],
    dependences: &UnionMap,
) -> Result<Wavefront, IslError> {
    let (tiled, strides, start, shape) = match diamond::tiles(schedule, bands, index, dependences)?
    {
        Ok(diamond) => {
            let shape = format!("{}; ", diamond.describe());
            let start = Start::Concurrent {
                factor: diamond.hyperplane.factor,
            };
            (diamond.schedule, vec![diamond.size; 2], start, shape)
        }
        Err(reason) => (
            schedule.copy()?,
            strides.to_vec(),
            Start::Pipelined(reason),
            String::new(),
        ),
    };
    let weights = weights(&strides);
    let schedule = scheduler::wavefront_band(&tiled, index, &weights)?;
    Ok(Wavefront {
        schedule,
        start,
        description: format!(
            "{shape}tiles run in parallel along a wavefront (tile loops 1 and 2 summed, weights {}x{})",
            weights[0], weights[1]
        ),
    })
}

/// The plan's wavefront step: the wavefront of `schedule` when its tiles would
/// otherwise run one after the other, with the remark that says so (or why not: a
/// dependence running backwards, an isl failure; the schedule then stays).
pub fn choose(schedule: &Schedule, dependences: &UnionMap, notes: &mut Notes) -> Option<Wavefront> {
    match wavefront(schedule, dependences) {
        Ok(Outcome::Front(front)) => {
            let start = match &front.start {
                Start::Concurrent { factor } => format!("; diamonds, since every dependence runs forward or stays along both y and {factor}t - y"),
                Start::Pipelined(Pipelined::OutsideCone) => "; the tiles start one after another (no diamonds: a dependence runs forward along the rows within a time step, as an update in place does)".into(),
                Start::Pipelined(Pipelined::Unchecked) => "; the tiles start one after another (the diamond tiles failed the check against the dependences)".into(),
                Start::Pipelined(Pipelined::NotApplicable) => String::new(),
            };
            notes.analysis("Wavefront", format!("{}: no tile loop of the band was parallel, each tile waits for its neighbours in every tile loop{start}", front.description));
            Some(front)
        }
        Ok(Outcome::Backwards) => {
            notes.analysis(
                "Wavefront",
                "tiles keep their order, no wavefront: no tile loop is parallel, and a dependence between tiles runs backwards in a tile loop (a pair the tiles already run out of order, such as a scalar private to a row)",
            );
            None
        }
        Ok(Outcome::NotApplicable) => None,
        Err(error) => {
            notes.analysis(
                "Wavefront",
                format!("tiles keep their order, no wavefront: {error}"),
            );
            None
        }
    }
}

/// The strides of the band's first `count` members (tile loops count in steps of the
/// tile size), when each is a tile loop (stride above 1).
fn tile_strides(partial: &UnionMap, count: usize) -> Result<Option<Vec<i64>>, IslError> {
    let values = partial.copy()?.range()?.sets()?;
    let [values] = values.as_slice() else {
        return Ok(None);
    };
    let mut strides = Vec::with_capacity(count);
    for k in 0..count {
        match values.stride(k)? {
            Some(stride) if stride > 1 => strides.push(stride),
            _ => return Ok(None),
        }
    }
    Ok(Some(strides))
}

/// Whether the deepest statement under the band has loops the band leaves out, so that
/// each tile runs whole loops (a time tile's rows): a diagonal of such tiles is work
/// enough for a fork. Tiles over all the loops (a matrix-vector product's 32x16
/// blocks) would fork once per diagonal for a few thousand operations.
fn whole_loops_inside(partial: &UnionMap, members: usize) -> Result<bool, IslError> {
    let mut deepest = 0;
    for set in partial.copy()?.domain()?.sets()? {
        deepest = deepest.max(set.n_dims()?);
    }
    Ok(deepest > members)
}

/// The weights that count each summed member in tiles: `lcm / stride`.
fn weights(strides: &[i64]) -> Vec<i64> {
    let lcm = strides.iter().fold(1, |l, s| l / gcd(l, *s) * s);
    strides.iter().map(|s| lcm / s).collect()
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// The distances, in the band's members, of the dependences between its instances
/// (`None`: no dependence, or distances in more than one space, which a band's
/// anonymous members do not have).
fn band_distances(partial: &UnionMap, dependences: &UnionMap) -> Result<Option<Set>, IslError> {
    let domain = partial.copy()?.domain()?;
    let pairs = dependences
        .copy()?
        .intersect_domain(domain.copy()?)?
        .intersect_range(domain)?
        .apply_domain(partial.copy()?)?
        .apply_range(partial.copy()?)?;
    let mut sets = pairs.deltas()?.sets()?;
    Ok(match sets.len() {
        1 => sets.pop(),
        _ => None,
    })
}

/// Whether member `k` carries no dependence: every distance zero in the members before
/// it is zero in it too.
fn carries_nothing(distances: &Set, k: usize) -> Result<bool, IslError> {
    let ctx = distances.ctx();
    let members = distances.n_dims()?;
    let mut same_before = Set::universe(&ctx, &[], &Tuple::counters(None, "d", members))?;
    for outer in 0..k {
        same_before = same_before.fix_dim(outer, 0)?;
    }
    let same = same_before.copy()?.fix_dim(k, 0)?;
    let carried = distances
        .copy()?
        .intersect(same_before.align_params(distances)?)?;
    carried.is_subset(&same.align_params(distances)?)
}

/// Whether every distance is non-negative in the first two members.
fn forward_in_both(distances: &Set) -> Result<bool, IslError> {
    let ctx = distances.ctx();
    let members = distances.n_dims()?;
    let forward = Set::universe(&ctx, &[], &Tuple::counters(None, "d", members))?
        .lower_bound_dim(0, 0)?
        .lower_bound_dim(1, 0)?;
    distances.is_subset(&forward.align_params(distances)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::ast::{self, AstNode};
    use crate::isl::{parse_set, parse_union_map, parse_union_set, IslCtx};

    /// A 2-D Jacobi sweep skewed by one per time step in its rows (`y = t + i`), rows
    /// `j` whole inside, dependences `(1, 0)`, `(1, 1)`, `(1, 2)` in `(t, y)`, tiled
    /// 4x8: no tile loop is parallel. With `whole_rows` false, the band also takes `j`
    /// (tiled by 8): no loop is left whole inside the tiles.
    fn skewed(ctx: &IslCtx, whole_rows: bool) -> (Schedule, UnionMap, Set) {
        let domain = parse_union_set(
            ctx,
            "[T, n] -> { S[t, i, j] : 0 <= t < T and 1 <= i < n - 1 and 0 <= j < n }",
            "domain",
        )
        .unwrap();
        let (outer, inner, sizes) = if whole_rows {
            (
                "{ S[t, i, j] -> [t, t + i] }",
                "{ S[t, i, j] -> [j] }",
                vec![4, 8],
            )
        } else {
            (
                "{ S[t, i, j] -> [t, t + i, j] }",
                "{ S[t, i, j] -> [j] }",
                vec![4, 8, 8],
            )
        };
        let schedule = Schedule::from_domain(domain)
            .unwrap()
            .insert_band(parse_union_map(ctx, inner, "inner").unwrap())
            .unwrap()
            .insert_band(parse_union_map(ctx, outer, "band").unwrap())
            .unwrap();
        let tiled =
            scheduler::tile_bands(&schedule, |b| (b.depth == 0).then(|| sizes.clone())).unwrap();
        let deps = parse_union_map(
            ctx,
            "[T, n] -> { S[t, i, j] -> S[t + 1, k, j] : -1 <= k - i <= 1 and 0 <= t < T - 1 and 1 <= i < n - 1 and 1 <= k < n - 1 and 0 <= j < n }",
            "deps",
        )
        .unwrap();
        let context = parse_set(ctx, "[T, n] -> { : T > 0 and n > 2 }", "context").unwrap();
        (tiled, deps, context)
    }

    #[test]
    fn skewed_time_tiles_run_along_a_wavefront_whose_second_loop_is_parallel() {
        let ctx = IslCtx::new(None).unwrap();
        let (tiled, deps, context) = skewed(&ctx, true);
        let Outcome::Front(front) = wavefront(&tiled, &deps).unwrap() else {
            panic!("no wavefront");
        };
        // Jacobi's dependences admit diamonds (`diamond`), 8x8 tiles: weights 1x1.
        assert!(
            front.description.contains("weights 1x1"),
            "{}",
            front.description
        );
        assert!(crate::deps::respects(&deps, &front.schedule.get_map().unwrap()).unwrap());
        let tree =
            ast::generate_checking_parallelism(&context, &front.schedule, Some(&deps)).unwrap();
        assert_eq!(outer_flags(&tree.root), [false, true], "{}", tree.text);
        let before = ast::generate_checking_parallelism(&context, &tiled, Some(&deps)).unwrap();
        assert_eq!(outer_flags(&before.root), [false, false], "{}", before.text);
    }

    /// The `parallel` flags of the two outermost loops of a nest.
    fn outer_flags(node: &AstNode) -> Vec<bool> {
        let mut flags = Vec::new();
        let mut node = node;
        while flags.len() < 2 {
            match node {
                AstNode::For { parallel, body, .. } => {
                    flags.push(*parallel);
                    node = body;
                }
                AstNode::Mark(inner) => node = inner,
                AstNode::Block(children) if children.len() == 1 => node = &children[0],
                _ => break,
            }
        }
        flags
    }

    #[test]
    fn a_band_with_a_parallel_tile_loop_gets_no_wavefront() {
        let ctx = IslCtx::new(None).unwrap();
        let (tiled, _, _) = skewed(&ctx, true);
        // Only the time loop carries: the row tiles are parallel already.
        let deps = parse_union_map(
            &ctx,
            "[T, n] -> { S[t, i, j] -> S[t + 1, i - 1, j] : 0 <= t < T - 1 and 2 <= i < n - 1 and 0 <= j < n }",
            "deps",
        )
        .unwrap();
        assert!(matches!(
            wavefront(&tiled, &deps).unwrap(),
            Outcome::NotApplicable
        ));
    }

    #[test]
    fn a_dependence_backwards_in_a_tile_loop_forbids_the_wavefront() {
        let ctx = IslCtx::new(None).unwrap();
        let (tiled, deps, _) = skewed(&ctx, true);
        // A pair the tiled schedule runs backwards in the row tiles (a scalar private
        // to a row, say).
        let back = parse_union_map(
            &ctx,
            "[T, n] -> { S[t, i, j] -> S[t + 1, 1, 0] : 0 <= t < T - 1 and i = n - 2 and j = n - 1 and n > 40 }",
            "back",
        )
        .unwrap();
        let deps = deps.union(back).unwrap();
        assert!(matches!(
            wavefront(&tiled, &deps).unwrap(),
            Outcome::Backwards
        ));
    }

    #[test]
    fn tiles_over_every_loop_are_too_small_a_diagonal_to_fork() {
        let ctx = IslCtx::new(None).unwrap();
        let (tiled, deps, _) = skewed(&ctx, false);
        assert!(matches!(
            wavefront(&tiled, &deps).unwrap(),
            Outcome::NotApplicable
        ));
    }

    #[test]
    fn weights_count_each_tile_loop_in_tiles() {
        assert_eq!(weights(&[8, 16]), vec![2, 1]);
        assert_eq!(weights(&[16, 16]), vec![1, 1]);
        assert_eq!(weights(&[4, 6]), vec![3, 2]);
    }
}
