//! isl's scheduler and band tiling, which isl-rs does not wrap: a new schedule for a
//! domain from validity (must hold), proximity (keep close: locality) and coincidence
//! (same time: parallelism) relations, and tiling of the permutable bands of a
//! schedule tree with sizes chosen per band by the caller.
//!
//! Relies on isl's C API (declared below) and the node type numbering of isl's
//! `schedule_type.h` (band = 0 ... set = 10).

use std::ffi::{c_int, c_long};

use super::construct::{AffineExpr, Tuple};
use super::ctx::{CtxRef, IslCtx};
use super::error::IslError;
use super::map::Map;
use super::object::{error_after_raw_call, release};
use super::raw::{take_ctx_error, RawPtr};
use super::schedule::Schedule;
use super::set::Set;
use super::union_map::UnionMap;
use super::union_set::UnionSet;

extern "C" {
    fn isl_schedule_constraints_on_domain(domain: RawPtr) -> RawPtr;
    fn isl_schedule_constraints_set_context(sc: RawPtr, context: RawPtr) -> RawPtr;
    fn isl_schedule_constraints_set_validity(sc: RawPtr, validity: RawPtr) -> RawPtr;
    fn isl_schedule_constraints_set_proximity(sc: RawPtr, proximity: RawPtr) -> RawPtr;
    fn isl_schedule_constraints_set_coincidence(sc: RawPtr, coincidence: RawPtr) -> RawPtr;
    fn isl_schedule_constraints_compute_schedule(sc: RawPtr) -> RawPtr;

    fn isl_schedule_get_root(schedule: RawPtr) -> RawPtr;
    fn isl_schedule_node_free(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_get_type(node: RawPtr) -> c_int;
    fn isl_schedule_node_get_schedule(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_n_children(node: RawPtr) -> c_int;
    fn isl_schedule_node_child(node: RawPtr, pos: c_int) -> RawPtr;
    fn isl_schedule_node_parent(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_band_n_member(node: RawPtr) -> c_int;
    fn isl_schedule_node_band_get_permutable(node: RawPtr) -> c_int;
    fn isl_schedule_node_band_member_get_coincident(node: RawPtr, pos: c_int) -> c_int;
    fn isl_schedule_node_band_get_space(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_band_tile(node: RawPtr, sizes: RawPtr) -> RawPtr;
    fn isl_schedule_node_band_member_set_ast_loop_type(
        node: RawPtr,
        pos: c_int,
        loop_type: c_int,
    ) -> RawPtr;
    fn isl_schedule_node_get_schedule_depth(node: RawPtr) -> c_int;
    fn isl_schedule_node_get_ctx(node: RawPtr) -> RawPtr;

    fn isl_schedule_node_band_get_partial_schedule(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_band_set_permutable(node: RawPtr, permutable: c_int) -> RawPtr;
    fn isl_schedule_node_band_member_set_coincident(
        node: RawPtr,
        pos: c_int,
        coincident: c_int,
    ) -> RawPtr;
    fn isl_schedule_node_delete(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_insert_partial_schedule(node: RawPtr, schedule: RawPtr) -> RawPtr;
    fn isl_multi_union_pw_aff_copy(mupa: RawPtr) -> RawPtr;
    fn isl_multi_union_pw_aff_from_union_map(umap: RawPtr) -> RawPtr;
    fn isl_multi_union_pw_aff_free(mupa: RawPtr) -> RawPtr;
    fn isl_multi_union_pw_aff_get_union_pw_aff(mupa: RawPtr, pos: c_int) -> RawPtr;
    fn isl_multi_union_pw_aff_set_union_pw_aff(mupa: RawPtr, pos: c_int, upa: RawPtr) -> RawPtr;

    fn isl_schedule_node_get_domain(node: RawPtr) -> RawPtr;
    fn isl_union_set_free(uset: RawPtr) -> RawPtr;
    fn isl_union_set_apply(uset: RawPtr, umap: RawPtr) -> RawPtr;
    fn isl_union_map_from_union_pw_aff(upa: RawPtr) -> RawPtr;
    fn isl_union_map_from_multi_union_pw_aff(mupa: RawPtr) -> RawPtr;
    fn isl_union_map_intersect_domain(umap: RawPtr, uset: RawPtr) -> RawPtr;
    fn isl_union_map_free(umap: RawPtr) -> RawPtr;
    fn isl_set_from_union_set(uset: RawPtr) -> RawPtr;

    fn isl_multi_val_zero(space: RawPtr) -> RawPtr;
    fn isl_multi_val_set_val(mv: RawPtr, pos: c_int, val: RawPtr) -> RawPtr;
    fn isl_val_int_from_si(ctx: RawPtr, value: c_long) -> RawPtr;
    fn isl_schedule_node_copy(node: RawPtr) -> RawPtr;
    fn isl_options_get_tile_scale_tile_loops(ctx: RawPtr) -> c_int;
    fn isl_options_get_schedule_serialize_sccs(ctx: RawPtr) -> c_int;
    fn isl_options_set_schedule_serialize_sccs(ctx: RawPtr, val: c_int) -> c_int;
    fn isl_options_set_tile_scale_tile_loops(ctx: RawPtr, val: c_int) -> c_int;
    fn isl_schedule_node_band_split(node: RawPtr, pos: c_int) -> RawPtr;
    fn isl_schedule_node_band_sink(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_get_prefix_schedule_union_map(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_get_subtree_schedule_union_map(node: RawPtr) -> RawPtr;
    fn isl_union_set_n_set(uset: RawPtr) -> c_int;
    fn isl_union_set_list_from_union_set(uset: RawPtr) -> RawPtr;
    fn isl_union_set_list_add(list: RawPtr, uset: RawPtr) -> RawPtr;
    fn isl_schedule_node_insert_sequence(node: RawPtr, filters: RawPtr) -> RawPtr;
    fn isl_union_pw_aff_scale_val(upa: RawPtr, v: RawPtr) -> RawPtr;
    fn isl_union_pw_aff_add(upa1: RawPtr, upa2: RawPtr) -> RawPtr;
    fn isl_schedule_node_band_member_get_ast_loop_type(node: RawPtr, pos: c_int) -> c_int;
    fn isl_schedule_node_band_get_ast_build_options(node: RawPtr) -> RawPtr;
    fn isl_schedule_node_band_set_ast_build_options(node: RawPtr, options: RawPtr) -> RawPtr;
}

/// isl's `isl_schedule_node_band`.
const BAND: c_int = 0;
/// isl's `isl_schedule_node_leaf`.
const LEAF: c_int = 6;
/// isl's `isl_ast_loop_atomic`: one loop per member over all statements' instances.
const AST_LOOP_ATOMIC: c_int = 1;
/// isl's `isl_ast_loop_unroll`: the loop is replaced by a copy of its body per value.
const AST_LOOP_UNROLL: c_int = 2;
/// Deepest schedule tree walked (guards the recursion).
const MAX_DEPTH: u32 = 256;

/// What the caller needs to choose tile sizes for a band.
#[derive(Debug)]
pub struct BandInfo {
    /// Number of schedule dimensions above the band.
    pub depth: usize,
    /// One flag per member: true when the member carries no (coincidence) dependence,
    /// i.e. its iterations may run in parallel.
    pub coincident: Vec<bool>,
    /// Whether the members may be interchanged freely (tiling is legal).
    pub permutable: bool,
    /// Per member, how many values it takes over the band's domain when constants
    /// bound it whatever the parameters (`None`: it grows with them, or is unknown).
    pub extents: Vec<Option<i64>>,
    /// The band's schedule on its domain, `{ S[i, j, k] -> [i, k, j] }` (`None` when
    /// isl could not give it): the space the members' tile sizes are counted in.
    pub partial: Option<UnionMap>,
}

impl BandInfo {
    /// The same facts, the partial schedule shared with `self` (`None` where isl could
    /// not copy it, as where isl could not give it).
    fn duplicate(&self) -> BandInfo {
        BandInfo {
            depth: self.depth,
            coincident: self.coincident.clone(),
            permutable: self.permutable,
            extents: self.extents.clone(),
            partial: self.partial.as_ref().and_then(|p| p.copy().ok()),
        }
    }
}

/// Like `compute_schedule`, with every strongly connected component of the dependence
/// graph in a loop nest of its own (isl's `schedule_serialize_sccs`): statements that
/// need not share loops are distributed, so that a statement deeper than its
/// neighbours gets a band of all its loops.
pub fn compute_schedule_distributed(
    domain: &UnionSet,
    context: &Set,
    validity: &UnionMap,
    proximity: &UnionMap,
    coincidence: &UnionMap,
) -> Result<Schedule, IslError> {
    let ctx = domain.ctx_ptr();
    // SAFETY: option queries and settings on a live context; the old value is restored
    // whatever the scheduler returns.
    let serialized = unsafe { isl_options_get_schedule_serialize_sccs(ctx) };
    unsafe { isl_options_set_schedule_serialize_sccs(ctx, 1) };
    let schedule = compute_schedule(domain, context, validity, proximity, coincidence);
    unsafe { isl_options_set_schedule_serialize_sccs(ctx, serialized) };
    schedule
}

/// Computes a new schedule for `domain` that respects `validity`, keeps `proximity`
/// pairs close and makes `coincidence` pairs run at the same time where it can.
pub fn compute_schedule(
    domain: &UnionSet,
    context: &Set,
    validity: &UnionMap,
    proximity: &UnionMap,
    coincidence: &UnionMap,
) -> Result<Schedule, IslError> {
    const OPERATION: &str = "computing a schedule";
    let ctx = domain.ctx_ptr();
    let ctx_ref = std::rc::Rc::clone(&domain.ctx);
    let (domain, context) = (domain.copy()?, context.copy()?);
    let (validity, proximity, coincidence) =
        (validity.copy()?, proximity.copy()?, coincidence.copy()?);
    // SAFETY: every argument is a copy isl takes; the result is adopted once.
    unsafe {
        let mut sc = isl_schedule_constraints_on_domain(release(domain.inner));
        sc = isl_schedule_constraints_set_context(sc, release(context.inner));
        sc = isl_schedule_constraints_set_validity(sc, release(validity.inner));
        sc = isl_schedule_constraints_set_proximity(sc, release(proximity.inner));
        sc = isl_schedule_constraints_set_coincidence(sc, release(coincidence.inner));
        let schedule = isl_schedule_constraints_compute_schedule(sc);
        if schedule == 0 {
            return Err(error_after_raw_call(OPERATION, ctx));
        }
        Ok(Schedule::adopt(&ctx_ref, schedule))
    }
}

/// The bands of a schedule tree, outermost first (preorder).
pub fn bands(schedule: &Schedule) -> Result<Vec<BandInfo>, IslError> {
    let mut out = Vec::new();
    walk(schedule, &mut |info| {
        out.push(info.duplicate());
        None
    })?;
    Ok(out)
}

/// What to do to one band of a schedule tree.
enum BandEdit {
    /// Tile it with these sizes, one per member; with `atomic`, the tile and point
    /// loops are generated as one loop each (see `tile_bands_atomic`); `jam` are the
    /// register tile factors of the point loops but the innermost (see
    /// `tile_bands_jammed`; empty: none).
    Tile {
        sizes: Vec<i64>,
        atomic: bool,
        jam: Vec<i64>,
    },
    /// Reorder its members: member `k` of the result is member `order[k]` of the band.
    Permute(Vec<usize>),
    /// Replace its first member by `sum(weights[k] * member k)` (see `wavefront_band`).
    Wavefront(Vec<i64>),
    /// Replace its partial schedule by this one, of as many members (see `replace_band`).
    Replace(UnionMap),
}

/// Tiles every band for which `sizes` returns sizes (one per member, each > 0): the
/// band becomes a band of tile loops with the band of point loops below it.
pub fn tile_bands(
    schedule: &Schedule,
    sizes: impl FnMut(&BandInfo) -> Option<Vec<i64>>,
) -> Result<Schedule, IslError> {
    tile_bands_with(schedule, sizes, false)
}

/// Like `tile_bands`, with the tile loops and point loops generated atomically: one
/// loop per member around all the statements it schedules, instead of a loop per
/// piece where the statements' domains differ. For bands whose statements are shifted
/// against each other or sit at single points (time tiles of an FDTD step with its
/// boundary row and point source), where separating the pieces multiplies the loop
/// AST beyond the operation bound, for conditions that sit outside innermost loops.
pub fn tile_bands_atomic(
    schedule: &Schedule,
    sizes: impl FnMut(&BandInfo) -> Option<Vec<i64>>,
) -> Result<Schedule, IslError> {
    tile_bands_with(schedule, sizes, true)
}

fn tile_bands_with(
    schedule: &Schedule,
    mut sizes: impl FnMut(&BandInfo) -> Option<Vec<i64>>,
    atomic: bool,
) -> Result<Schedule, IslError> {
    walk(schedule, &mut |band| {
        sizes(band).map(|sizes| BandEdit::Tile {
            sizes,
            atomic,
            jam: Vec::new(),
        })
    })
}

/// Like `tile_bands`, where `choose` also gives register tile factors for the point
/// loops but the innermost (one per member but the last; 1 leaves a member alone):
/// those point loops are strip-mined by their factors, and the strips are moved inside
/// the innermost point loop and unrolled there (unroll-and-jam), so that each element
/// the innermost loop loads is used by every copy of the body from a register. Full
/// register tiles are generated apart from the partial ones at the edges (a sequence
/// of the two, by filters), without a condition around the copies. Legal wherever tiling is:
/// a permutable band's point loops may be strip-mined and reordered. Only done for a
/// point band over one statement with nothing below it; others are tiled alone.
pub fn tile_bands_jammed(
    schedule: &Schedule,
    mut choose: impl FnMut(&BandInfo) -> Option<(Vec<i64>, Vec<i64>)>,
) -> Result<Schedule, IslError> {
    walk(schedule, &mut |band| {
        choose(band).map(|(sizes, jam)| BandEdit::Tile {
            sizes,
            atomic: false,
            jam,
        })
    })
}

/// Reorders the members of the `index`-th band (preorder, as `bands` lists them):
/// member `k` becomes member `order[k]`. Only legal for a permutable band, which the
/// caller checks; the band keeps its permutable flag and each member its coincidence.
pub fn permute_band(
    schedule: &Schedule,
    index: usize,
    order: &[usize],
) -> Result<Schedule, IslError> {
    let mut seen = 0;
    walk(schedule, &mut |_| {
        seen += 1;
        (seen == index + 1).then(|| BandEdit::Permute(order.to_vec()))
    })
}

/// Replaces the first member of the `index`-th band (preorder, as `bands` lists them)
/// by the sum of its first `weights.len()` members, member `k` times `weights[k]` (a
/// wavefront), and marks member 1 coincident. Legal, and member 1 then parallel, only
/// when every dependence inside the band has non-negative distances in those members
/// and a positive weighted sum unless they are all zero, which the caller checks. The
/// band keeps its permutable flag, its members' AST loop types and build options.
pub fn wavefront_band(
    schedule: &Schedule,
    index: usize,
    weights: &[i64],
) -> Result<Schedule, IslError> {
    let mut seen = 0;
    walk(schedule, &mut |_| {
        seen += 1;
        (seen == index + 1).then(|| BandEdit::Wavefront(weights.to_vec()))
    })
}

/// Replaces the partial schedule of the `index`-th band (preorder, as `bands` lists
/// them) by `partial`, which has as many members and is defined on the band's domain
/// (diamond tiles: `transform/diamond.rs`). Legal only when the caller has checked the
/// new order against the dependences. The band keeps its permutable flag, its members'
/// coincidence, AST loop types and build options.
pub fn replace_band(
    schedule: &Schedule,
    index: usize,
    partial: &UnionMap,
) -> Result<Schedule, IslError> {
    let mut seen = 0;
    let mut edit = Some(partial.copy()?);
    walk(schedule, &mut |_| {
        seen += 1;
        if seen == index + 1 {
            edit.take().map(BandEdit::Replace)
        } else {
            None
        }
    })
}

/// Walks the tree in preorder, editing bands where `visit` asks, and returns the
/// (possibly) new schedule.
fn walk(
    schedule: &Schedule,
    visit: &mut dyn FnMut(&BandInfo) -> Option<BandEdit>,
) -> Result<Schedule, IslError> {
    const OPERATION: &str = "walking a schedule tree";
    let copy = schedule.copy()?;
    let ctx = copy.ctx_ptr();
    // SAFETY: the root comes from our own copy; every node handle is consumed by the
    // next call (isl's take semantics) and the last one is freed.
    unsafe {
        let root = isl_schedule_get_root(copy.inner.ptr);
        if root == 0 {
            return Err(error_after_raw_call(OPERATION, ctx));
        }
        let node = visit_node(&schedule.ctx, root, visit, 0).map_err(|e| match e {
            Walk::Isl => error_after_raw_call(OPERATION, ctx),
            Walk::Invalid(message) => IslError::Other {
                context: OPERATION.into(),
                message,
            },
        })?;
        let result = isl_schedule_node_get_schedule(node);
        isl_schedule_node_free(node);
        if result == 0 {
            return Err(error_after_raw_call(OPERATION, ctx));
        }
        Ok(Schedule::adopt(&schedule.ctx, result))
    }
}

enum Walk {
    /// isl returned NULL; the error is on the context.
    Isl,
    Invalid(String),
}

/// Visits `node` and its subtree; returns the node at the same position.
unsafe fn visit_node(
    ctx: &CtxRef,
    mut node: RawPtr,
    visit: &mut dyn FnMut(&BandInfo) -> Option<BandEdit>,
    depth: u32,
) -> Result<RawPtr, Walk> {
    if depth > MAX_DEPTH {
        isl_schedule_node_free(node);
        return Err(Walk::Invalid("schedule tree too deep".into()));
    }
    if isl_schedule_node_get_type(node) == BAND {
        let members = isl_schedule_node_band_n_member(node).max(0);
        let info = BandInfo {
            depth: isl_schedule_node_get_schedule_depth(node).max(0) as usize,
            coincident: (0..members)
                .map(|i| isl_schedule_node_band_member_get_coincident(node, i) == 1)
                .collect(),
            permutable: isl_schedule_node_band_get_permutable(node) == 1,
            extents: (0..members).map(|i| member_extent(ctx, node, i)).collect(),
            partial: partial_schedule(ctx, node),
        };
        let edit = visit(&info);
        if let Some(BandEdit::Permute(order)) = edit {
            node = permute(node, &info, &order)?;
            return visit_children(ctx, node, visit, depth);
        }
        if let Some(BandEdit::Wavefront(weights)) = edit {
            node = wavefront(node, &info, &weights)?;
            return visit_children(ctx, node, visit, depth);
        }
        if let Some(BandEdit::Replace(partial)) = edit {
            node = replace(node, &info, partial)?;
            return visit_children(ctx, node, visit, depth);
        }
        if let Some(BandEdit::Tile { sizes, atomic, jam }) = edit {
            if sizes.len() != members as usize || sizes.iter().any(|s| *s <= 0) {
                isl_schedule_node_free(node);
                return Err(Walk::Invalid(format!(
                    "{} tile sizes for a band of {members} members (each must be positive)",
                    sizes.len()
                )));
            }
            let mv = band_sizes(node, &sizes);
            if mv == 0 {
                isl_schedule_node_free(node);
                return Err(Walk::Isl);
            }
            // The tile band replaces the band; its only child is the point band, which
            // is not tiled again: skip straight to the point band's child.
            node = isl_schedule_node_band_tile(node, mv);
            if node == 0 {
                return Err(Walk::Isl);
            }
            if atomic {
                node = set_atomic(node, members);
            }
            node = isl_schedule_node_child(node, 0);
            if atomic {
                node = set_atomic(node, members);
            }
            if jam.iter().any(|f| *f > 1) {
                if jam.len() + 1 != members as usize || jam.iter().any(|f| *f <= 0) {
                    isl_schedule_node_free(node);
                    return Err(Walk::Invalid(format!(
                        "{} register tile factors for a band of {members} members",
                        jam.len()
                    )));
                }
                let jammed;
                (node, jammed) = jam_point_band(ctx, node, &jam)?;
                if jammed {
                    // Nothing below the register tiles is tiled again.
                    node = isl_schedule_node_parent(node);
                    return if node == 0 { Err(Walk::Isl) } else { Ok(node) };
                }
            }
            node = isl_schedule_node_child(node, 0);
            if node == 0 {
                return Err(Walk::Isl);
            }
            node = visit_children(ctx, node, visit, depth)?;
            node = isl_schedule_node_parent(node);
            node = isl_schedule_node_parent(node);
            return if node == 0 { Err(Walk::Isl) } else { Ok(node) };
        }
    }
    visit_children(ctx, node, visit, depth)
}

/// Register tiles in the point band at `node` (see `tile_bands_jammed`): the band
/// `[p1, ..., pn]` becomes `[p1 / f1, ..., p(n-1) / f(n-1)]`, then `[pn]`, then the
/// unrolled `[p1 mod f1, ...]` in full register tiles. Partial register tiles
/// (at the edges) keep their copies as loops around `[pn]`: unrolled, every copy would
/// carry its own condition, and building those conditions was most of the loop AST's
/// cost (seconds for a product with run-time sizes) for code that runs at the edges
/// only; as loops outside the innermost one, the innermost loop stays free of them.
/// Returns the node at the same position and whether it was done (not when the band
/// has more than one statement or anything below it).
unsafe fn jam_point_band(
    ctx: &CtxRef,
    mut node: RawPtr,
    factors: &[i64],
) -> Result<(RawPtr, bool), Walk> {
    let child = isl_schedule_node_child(isl_schedule_node_copy(node), 0);
    let below_is_leaf = child != 0 && isl_schedule_node_get_type(child) == LEAF;
    isl_schedule_node_free(child);
    let domain = isl_schedule_node_get_domain(node);
    let statements = if domain == 0 {
        0
    } else {
        isl_union_set_n_set(domain)
    };
    isl_union_set_free(domain);
    if !below_is_leaf || statements != 1 {
        take_ctx_error(isl_schedule_node_get_ctx(node));
        return Ok((node, false));
    }
    let outer = factors.len() as c_int;
    node = isl_schedule_node_band_split(node, outer);
    if node == 0 {
        return Err(Walk::Isl);
    }
    let raw_ctx = isl_schedule_node_get_ctx(node);
    let mv = band_sizes(node, factors);
    // Register tile loops count tiles (not their first element): the full tiles are
    // then bounded by affine constraints, where multiples of a factor would split them
    // by the parity of the sizes and leave conditions on the copies.
    let scaled = isl_options_get_tile_scale_tile_loops(raw_ctx);
    isl_options_set_tile_scale_tile_loops(raw_ctx, 0);
    node = isl_schedule_node_band_tile(node, mv);
    isl_options_set_tile_scale_tile_loops(raw_ctx, scaled);
    // The register loops go below the innermost point loop.
    node = isl_schedule_node_child(node, 0);
    node = isl_schedule_node_band_sink(node);
    node = isl_schedule_node_parent(node);
    if node == 0 {
        return Err(Walk::Isl);
    }
    let tiles = match full_register_tiles(ctx, node, factors) {
        Ok(tiles) => tiles,
        Err(message) => {
            isl_schedule_node_free(node);
            return Err(Walk::Invalid(message));
        }
    };
    node = isl_schedule_node_child(node, 0);
    node = copies_below(node, tiles.full, tiles.partial, outer);
    node = isl_schedule_node_parent(node);
    if node == 0 {
        return Err(Walk::Isl);
    }
    Ok((node, true))
}

/// At `node`, the band of the innermost point loop with the band of copies below it:
/// the copies of the instances in `full` (full register tiles) unrolled there, those in
/// `partial` as loops around the innermost one (a sequence of the two, by filters;
/// none when one of them is empty). Returns the node at the same position.
unsafe fn copies_below(
    mut node: RawPtr,
    full: UnionSet,
    partial: UnionSet,
    copies: c_int,
) -> RawPtr {
    let (full_empty, partial_empty) = (full.is_empty(), partial.is_empty());
    let (Ok(full_empty), Ok(partial_empty)) = (full_empty, partial_empty) else {
        isl_schedule_node_free(node);
        return 0;
    };
    if partial_empty {
        return unroll_copies(node, copies);
    }
    if full_empty {
        return isl_schedule_node_band_sink(node);
    }
    let mut filters = isl_union_set_list_from_union_set(release(full.inner));
    filters = isl_union_set_list_add(filters, release(partial.inner));
    node = isl_schedule_node_insert_sequence(node, filters);
    // The full tiles' filter, then the partial tiles'.
    node = isl_schedule_node_child(isl_schedule_node_child(node, 0), 0);
    node = unroll_copies(node, copies);
    node = isl_schedule_node_parent(isl_schedule_node_parent(node));
    node = isl_schedule_node_child(isl_schedule_node_child(node, 1), 0);
    node = isl_schedule_node_band_sink(node);
    isl_schedule_node_parent(isl_schedule_node_parent(node))
}

/// At `node`, the band of the innermost point loop: the `copies` members of the band
/// below it unrolled. Returns the node at the same position.
unsafe fn unroll_copies(mut node: RawPtr, copies: c_int) -> RawPtr {
    node = isl_schedule_node_child(node, 0);
    for pos in 0..copies {
        node = isl_schedule_node_band_member_set_ast_loop_type(node, pos, AST_LOOP_UNROLL);
    }
    isl_schedule_node_parent(node)
}

/// The instances of a band of register tile loops, by their tiles (see
/// `full_register_tiles`).
struct FullTiles {
    /// The instances in full tiles.
    full: UnionSet,
    /// The instances in partial tiles.
    partial: UnionSet,
}

/// The instances at `node`, the band of register tile loops, in full tiles (whose
/// copies all exist at every value of the innermost loop, so that unrolling them needs
/// no condition) and in partial tiles, as filters. In the flat space `[prefix, tiles, innermost, copies]` of the node's prefix
/// and subtree schedules, a tile is partial when some copy is missing at an innermost
/// value another copy has.
unsafe fn full_register_tiles(
    ctx: &CtxRef,
    node: RawPtr,
    factors: &[i64],
) -> Result<FullTiles, String> {
    let text = |e: IslError| e.to_string();
    let prefix = isl_schedule_node_get_prefix_schedule_union_map(node);
    let subtree = isl_schedule_node_get_subtree_schedule_union_map(node);
    let depth = isl_schedule_node_get_schedule_depth(node);
    if prefix == 0 || subtree == 0 || depth < 0 {
        isl_union_map_free(prefix);
        isl_union_map_free(subtree);
        return Err(
            error_after_raw_call("register tiling", isl_schedule_node_get_ctx(node)).to_string(),
        );
    }
    let (prefix, subtree) = (UnionMap::adopt(ctx, prefix), UnionMap::adopt(ctx, subtree));
    let domain = isl_schedule_node_get_domain(node);
    if domain == 0 {
        return Err(
            error_after_raw_call("register tiling", isl_schedule_node_get_ctx(node)).to_string(),
        );
    }
    let domain = UnionSet::adopt(ctx, domain);
    // The subtree's schedule is not restricted to the instances that reach the node.
    let placed = prefix
        .flat_range_product(subtree)
        .and_then(|m| m.intersect_domain(domain.copy()?))
        .map_err(text)?;
    let points = placed.copy().and_then(|m| m.range()).map_err(text)?;
    let (to_rows, to_tiles, copies) =
        register_tile_spaces(&IslCtx::from_ref(ctx), depth as usize, factors).map_err(text)?;
    let rows = points
        .copy()
        .map_err(text)?
        .apply(to_rows.copy().map_err(text)?)
        .map_err(text)?;
    let wanted = rows
        .apply(to_rows.reverse().map_err(text)?)
        .and_then(|s| s.intersect(copies))
        .map_err(text)?;
    let tiles = points
        .copy()
        .map_err(text)?
        .apply(to_tiles.copy().map_err(text)?)
        .map_err(text)?;
    let partial = wanted
        .subtract(points)
        .and_then(|s| s.apply(to_tiles.copy()?))
        .and_then(|s| s.intersect(tiles.copy()?))
        .and_then(|s| s.coalesce())
        .map_err(text)?;
    let full = tiles
        .subtract(partial.copy().map_err(text)?)
        .and_then(|s| s.coalesce())
        .map_err(text)?;
    // The instances of a set of tiles, as a filter: simplified against the domain, which
    // the filter's parent restricts the instances to already.
    let instances = |tiles: UnionSet| -> Result<UnionSet, IslError> {
        placed
            .copy()?
            .apply_range(to_tiles.copy()?)?
            .intersect_range(tiles)?
            .domain()?
            .coalesce()?
            .gist(domain.copy()?)
    };
    let full_instances = instances(full).map_err(text)?;
    let partial_instances = instances(partial).map_err(text)?;
    Ok(FullTiles {
        full: full_instances,
        partial: partial_instances,
    })
}

/// Over the flat space `[p0, .., o0, .., j, r0, ..]` of `full_register_tiles` (`depth`
/// prefix dimensions, one tile and one copy dimension per factor): the projections on
/// `[p, o, j]` (rows) and `[p, o]` (tiles), and the copies `0 <= r < factor`.
fn register_tile_spaces(
    ctx: &IslCtx,
    depth: usize,
    factors: &[i64],
) -> Result<(UnionMap, UnionMap, UnionSet), IslError> {
    let names = |letter: &str, count: usize| -> Vec<String> {
        (0..count).map(|k| format!("{letter}{k}")).collect()
    };
    let (p, o, r) = (
        names("p", depth),
        names("o", factors.len()),
        names("r", factors.len()),
    );
    let j = vec!["j".to_string()];
    let all = Tuple::new(None, [&p[..], &o, &j, &r].concat());
    let prefix = |n: usize| -> Result<UnionMap, IslError> {
        let members: Vec<AffineExpr> = (0..n).map(AffineExpr::Input).collect();
        Map::from_affine(ctx, &[], &all, None, &members)?.to_union_map()
    };
    let tiles = p.len() + o.len();
    let (to_rows, to_tiles) = (prefix(tiles + 1)?, prefix(tiles)?);
    let mut copies = Set::universe(ctx, &[], &all)?;
    for (k, factor) in factors.iter().enumerate() {
        copies = copies
            .lower_bound_dim(tiles + 1 + k, 0)?
            .upper_bound_dim(tiles + 1 + k, factor - 1)?;
    }
    Ok((to_rows, to_tiles, copies.to_union_set()?))
}

/// The sizes, one per member of the band at `node`, as the multi-value isl's tiling
/// takes (owned by the caller; null on failure).
unsafe fn band_sizes(node: RawPtr, sizes: &[i64]) -> RawPtr {
    let raw_ctx = isl_schedule_node_get_ctx(node);
    let mut mv = isl_multi_val_zero(isl_schedule_node_band_get_space(node));
    for (i, size) in sizes.iter().enumerate() {
        mv = isl_multi_val_set_val(
            mv,
            i as c_int,
            isl_val_int_from_si(raw_ctx, *size as c_long),
        );
    }
    mv
}

/// Marks every member of the band at `node` atomic for AST generation.
unsafe fn set_atomic(mut node: RawPtr, members: c_int) -> RawPtr {
    for pos in 0..members {
        node = isl_schedule_node_band_member_set_ast_loop_type(node, pos, AST_LOOP_ATOMIC);
    }
    node
}

/// The band's partial schedule and its domain, both owned by the caller; `None` on any
/// isl failure (the error is cleared).
unsafe fn partial_and_domain(node: RawPtr) -> Option<(RawPtr, RawPtr)> {
    let raw_ctx = isl_schedule_node_get_ctx(node);
    let partial = isl_schedule_node_band_get_partial_schedule(node);
    let domain = isl_schedule_node_get_domain(node);
    if partial == 0 || domain == 0 {
        isl_multi_union_pw_aff_free(partial);
        isl_union_set_free(domain);
        take_ctx_error(raw_ctx);
        return None;
    }
    Some((partial, domain))
}

/// The number of values member `pos` of the band at `node` takes over the band's
/// domain, when constants bound it; `None` otherwise or on any isl failure (the error
/// is cleared: an unknown extent only means the member may be tiled).
unsafe fn member_extent(ctx: &CtxRef, node: RawPtr, pos: c_int) -> Option<i64> {
    let raw_ctx = isl_schedule_node_get_ctx(node);
    let (partial, domain) = partial_and_domain(node)?;
    let member = isl_multi_union_pw_aff_get_union_pw_aff(partial, pos);
    isl_multi_union_pw_aff_free(partial);
    let values = isl_union_set_apply(domain, isl_union_map_from_union_pw_aff(member));
    let values = isl_set_from_union_set(values);
    if values == 0 {
        take_ctx_error(raw_ctx);
        return None;
    }
    match Set::adopt(ctx, values).dim_value_range(0) {
        Ok(Some((lo, hi))) if hi >= lo => hi.checked_sub(lo)?.checked_add(1),
        _ => None,
    }
}

/// The band's partial schedule on the band's domain; `None` on any isl failure (the
/// error is cleared).
unsafe fn partial_schedule(ctx: &CtxRef, node: RawPtr) -> Option<UnionMap> {
    let raw_ctx = isl_schedule_node_get_ctx(node);
    let (partial, domain) = partial_and_domain(node)?;
    let map =
        isl_union_map_intersect_domain(isl_union_map_from_multi_union_pw_aff(partial), domain);
    if map == 0 {
        take_ctx_error(raw_ctx);
        return None;
    }
    Some(UnionMap::adopt(ctx, map))
}

/// Replaces the band at `node` by one with its members in `order`.
unsafe fn permute(node: RawPtr, info: &BandInfo, order: &[usize]) -> Result<RawPtr, Walk> {
    let members = info.coincident.len();
    let mut sorted = order.to_vec();
    sorted.sort_unstable();
    if sorted != (0..members).collect::<Vec<_>>() {
        isl_schedule_node_free(node);
        return Err(Walk::Invalid(format!(
            "{order:?} is not a permutation of a band of {members} members"
        )));
    }
    let partial = isl_schedule_node_band_get_partial_schedule(node);
    if partial == 0 {
        isl_schedule_node_free(node);
        return Err(Walk::Isl);
    }
    let mut reordered = isl_multi_union_pw_aff_copy(partial);
    for (k, from) in order.iter().enumerate() {
        let member = isl_multi_union_pw_aff_get_union_pw_aff(partial, *from as c_int);
        reordered = isl_multi_union_pw_aff_set_union_pw_aff(reordered, k as c_int, member);
    }
    isl_multi_union_pw_aff_free(partial);
    if reordered == 0 {
        isl_schedule_node_free(node);
        return Err(Walk::Isl);
    }
    let mut node = isl_schedule_node_delete(node);
    node = isl_schedule_node_insert_partial_schedule(node, reordered);
    node = isl_schedule_node_band_set_permutable(node, c_int::from(info.permutable));
    for (k, from) in order.iter().enumerate() {
        node = isl_schedule_node_band_member_set_coincident(
            node,
            k as c_int,
            c_int::from(info.coincident[*from]),
        );
    }
    if node == 0 {
        Err(Walk::Isl)
    } else {
        Ok(node)
    }
}

/// Replaces the band at `node` by its wavefront with `weights` (see `wavefront_band`).
unsafe fn wavefront(node: RawPtr, info: &BandInfo, weights: &[i64]) -> Result<RawPtr, Walk> {
    let members = info.coincident.len();
    if weights.len() < 2 || weights.len() > members || weights.iter().any(|w| *w <= 0) {
        isl_schedule_node_free(node);
        return Err(Walk::Invalid(format!(
            "wavefront weights {weights:?} for a band of {members} members (two or more, each positive)"
        )));
    }
    let raw_ctx = isl_schedule_node_get_ctx(node);
    let partial = isl_schedule_node_band_get_partial_schedule(node);
    if partial == 0 {
        isl_schedule_node_free(node);
        return Err(Walk::Isl);
    }
    let mut sum: RawPtr = 0;
    for (k, weight) in weights.iter().enumerate() {
        let member = isl_multi_union_pw_aff_get_union_pw_aff(partial, k as c_int);
        let scaled =
            isl_union_pw_aff_scale_val(member, isl_val_int_from_si(raw_ctx, *weight as c_long));
        sum = if sum == 0 {
            scaled
        } else {
            isl_union_pw_aff_add(sum, scaled)
        };
    }
    let front = isl_multi_union_pw_aff_set_union_pw_aff(partial, 0, sum);
    reinsert(node, info, front, |pos, coincident| {
        pos == 1 || (pos > 1 && coincident)
    })
}

/// The band at `node` with its partial schedule replaced by `partial` (see
/// `replace_band`), of as many members.
unsafe fn replace(node: RawPtr, info: &BandInfo, partial: UnionMap) -> Result<RawPtr, Walk> {
    let members = match partial.maps().map(|maps| maps.first().map(Map::n_out)) {
        Ok(Some(Ok(n))) => n,
        _ => 0,
    };
    if members != info.coincident.len() {
        isl_schedule_node_free(node);
        return Err(Walk::Invalid(format!(
            "a partial schedule of {members} members for a band of {}",
            info.coincident.len()
        )));
    }
    let mupa = isl_multi_union_pw_aff_from_union_map(release(partial.inner));
    reinsert(node, info, mupa, |_, coincident| coincident)
}

/// The band at `node` deleted and `partial` (taken) inserted in its place, with the
/// band's permutable flag, its members' AST loop types and build options, and member
/// `pos` coincident as `coincident(pos, was_coincident)` says.
unsafe fn reinsert(
    node: RawPtr,
    info: &BandInfo,
    partial: RawPtr,
    coincident: impl Fn(usize, bool) -> bool,
) -> Result<RawPtr, Walk> {
    if partial == 0 {
        isl_schedule_node_free(node);
        return Err(Walk::Isl);
    }
    let members = info.coincident.len();
    let loop_types: Vec<c_int> = (0..members as c_int)
        .map(|pos| isl_schedule_node_band_member_get_ast_loop_type(node, pos))
        .collect();
    let options = isl_schedule_node_band_get_ast_build_options(node);
    let mut node = isl_schedule_node_delete(node);
    node = isl_schedule_node_insert_partial_schedule(node, partial);
    node = isl_schedule_node_band_set_permutable(node, c_int::from(info.permutable));
    for (pos, was) in info.coincident.iter().enumerate() {
        node = isl_schedule_node_band_member_set_coincident(
            node,
            pos as c_int,
            c_int::from(coincident(pos, *was)),
        );
    }
    for (pos, loop_type) in loop_types.iter().enumerate() {
        // A failed read (-1) leaves the default.
        if *loop_type > 0 {
            node = isl_schedule_node_band_member_set_ast_loop_type(node, pos as c_int, *loop_type);
        }
    }
    if options != 0 {
        node = isl_schedule_node_band_set_ast_build_options(node, options);
    }
    if node == 0 {
        Err(Walk::Isl)
    } else {
        Ok(node)
    }
}

unsafe fn visit_children(
    ctx: &CtxRef,
    mut node: RawPtr,
    visit: &mut dyn FnMut(&BandInfo) -> Option<BandEdit>,
    depth: u32,
) -> Result<RawPtr, Walk> {
    let children = isl_schedule_node_n_children(node).max(0);
    for i in 0..children {
        node = isl_schedule_node_child(node, i);
        if node == 0 {
            return Err(Walk::Isl);
        }
        node = visit_node(ctx, node, visit, depth + 1)?;
        node = isl_schedule_node_parent(node);
        if node == 0 {
            return Err(Walk::Isl);
        }
    }
    Ok(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_set, parse_union_map, parse_union_set, IslCtx};

    struct Problem {
        domain: UnionSet,
        context: Set,
        deps: UnionMap,
    }

    fn matmul(ctx: &IslCtx) -> Problem {
        // C[i][j] += A[i][k] * B[k][j]: the only dependence is on C, carried by k.
        Problem {
            domain: parse_union_set(ctx, "[n] -> { S[i, j, k] : 0 <= i, j, k < n }", "domain")
                .unwrap(),
            context: parse_set(ctx, "[n] -> { : n > 0 }", "context").unwrap(),
            deps: parse_union_map(
                ctx,
                "[n] -> { S[i, j, k] -> S[i, j, k + 1] : 0 <= i, j < n and 0 <= k < n - 1 }",
                "deps",
            )
            .unwrap(),
        }
    }

    fn schedule_of(p: &Problem) -> Schedule {
        compute_schedule(&p.domain, &p.context, &p.deps, &p.deps, &p.deps).unwrap()
    }

    #[test]
    fn matmul_gets_one_permutable_band_with_two_parallel_members() {
        let ctx = IslCtx::new(None).unwrap();
        let schedule = schedule_of(&matmul(&ctx));
        let bands = bands(&schedule).unwrap();
        assert!(!bands.is_empty());
        let band = &bands[0];
        assert!(band.permutable, "{bands:?}");
        assert_eq!(
            band.coincident.iter().filter(|c| **c).count(),
            2,
            "{bands:?}"
        );
    }

    #[test]
    fn computed_schedule_respects_the_dependences() {
        let ctx = IslCtx::new(None).unwrap();
        let p = matmul(&ctx);
        let map = schedule_of(&p).get_map().unwrap();
        // Every dependence goes forward in time: each source runs before its sink.
        let before = map.copy().unwrap().lex_lt_union_map(map).unwrap();
        assert!(p.deps.is_subset(&before).unwrap());
    }

    #[test]
    fn tiling_a_band_adds_a_band_of_tile_loops() {
        let ctx = IslCtx::new(None).unwrap();
        let schedule = schedule_of(&matmul(&ctx));
        let before = bands(&schedule).unwrap().len();
        let tiled = tile_bands(&schedule, |b| Some(vec![32; b.coincident.len()])).unwrap();
        let after = bands(&tiled).unwrap();
        assert_eq!(after.len(), before + 1, "{after:?}");
        let ast = crate::isl::ast::generate(&matmul(&ctx).context, &tiled).unwrap();
        assert!(ast.text.contains("c0 += 32"), "{}", ast.text);
        assert!(ast.text.contains("min(31, n - c0 - 1)"), "{}", ast.text);
    }

    #[test]
    fn register_tiles_are_unrolled_inside_the_innermost_loop_and_partial_ones_kept_as_loops() {
        let ctx = IslCtx::new(None).unwrap();
        let p = matmul(&ctx);
        // The loop order i, k, j: j innermost (contiguous in C and B).
        let schedule = Schedule::from_domain(p.domain.copy().unwrap())
            .unwrap()
            .insert_band(parse_union_map(&ctx, "[n] -> { S[i, j, k] -> [i, k, j] }", "s").unwrap())
            .unwrap();
        let jammed =
            tile_bands_jammed(&schedule, |_| Some((vec![32, 32, 64], vec![4, 2]))).unwrap();
        // Still every instance once, in an order that respects the dependence on C.
        let map = jammed.get_map().unwrap();
        let before = map.copy().unwrap().lex_lt_union_map(map).unwrap();
        assert!(p.deps.is_subset(&before).unwrap());
        let ast = crate::isl::ast::generate(&p.context, &jammed).unwrap();
        let text = &ast.text;
        // Full register tiles: 4 x 2 copies of the statement in one innermost loop,
        // with no condition around them.
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        let unguarded = lines.windows(10).any(|w| {
            w[0].starts_with("for (") && w[1..9].iter().all(|l| l.starts_with("S(")) && w[9] == "}"
        });
        assert!(unguarded, "no loop around 8 copies alone:\n{text}");
        // Partial tiles exist only for sizes the factors do not divide; they are
        // generated apart, with their copies as loops around the innermost one: one
        // statement per loop nest, never 8 copies each under its own condition.
        let copies = text.matches("S(").count();
        assert!(
            copies > 8 && copies <= 8 + 3,
            "{copies} statements:\n{text}"
        );
        let innermost_alone = lines.windows(3).any(|w| {
            w[0].starts_with("for (") && w[1].starts_with("for (") && w[2].starts_with("S(")
        });
        assert!(
            innermost_alone,
            "no partial tile's copy loop around the innermost loop:\n{text}"
        );
    }

    #[test]
    fn permuting_a_band_reorders_its_loops() {
        let ctx = IslCtx::new(None).unwrap();
        let p = matmul(&ctx);
        let schedule = Schedule::from_domain(p.domain.copy().unwrap())
            .unwrap()
            .insert_band(parse_union_map(&ctx, "[n] -> { S[i, j, k] -> [i, j, k] }", "s").unwrap())
            .unwrap();
        let permuted = permute_band(&schedule, 0, &[0, 2, 1]).unwrap();
        let expected = parse_union_map(&ctx, "[n] -> { S[i, j, k] -> [i, k, j] }", "e").unwrap();
        let map = permuted
            .get_map()
            .unwrap()
            .intersect_domain(p.domain.copy().unwrap())
            .unwrap();
        assert!(map
            .is_equal(&expected.intersect_domain(p.domain.copy().unwrap()).unwrap())
            .unwrap());
        assert!(permute_band(&schedule, 0, &[0, 0, 1]).is_err());
    }

    #[test]
    fn bands_know_the_extents_constants_bound() {
        let ctx = IslCtx::new(None).unwrap();
        let domain = parse_union_set(
            &ctx,
            "[n] -> { S[i, j, k] : 0 <= i < 10 and 0 <= j < n and 2 <= k <= 5 }",
            "d",
        )
        .unwrap();
        let schedule = Schedule::from_domain(domain)
            .unwrap()
            .insert_band(parse_union_map(&ctx, "[n] -> { S[i, j, k] -> [i, j, k] }", "s").unwrap())
            .unwrap();
        let bands = bands(&schedule).unwrap();
        assert_eq!(bands[0].extents, [Some(10), None, Some(4)]);
    }

    #[test]
    fn wrong_number_of_tile_sizes_is_an_error() {
        let ctx = IslCtx::new(None).unwrap();
        let schedule = schedule_of(&matmul(&ctx));
        assert!(tile_bands(&schedule, |_| Some(vec![32])).is_err());
        assert!(tile_bands(&schedule, |b| Some(vec![0; b.coincident.len()])).is_err());
    }

    #[test]
    fn scheduler_under_operation_limit_fails_cleanly() {
        let ctx = IslCtx::new(None).unwrap();
        let p = matmul(&ctx);
        ctx.set_max_operations(Some(1));
        ctx.start_region();
        let error = compute_schedule(&p.domain, &p.context, &p.deps, &p.deps, &p.deps);
        assert!(error.is_err());
    }
}
