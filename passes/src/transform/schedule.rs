//! The scheduling stage: a new schedule for a region from its dependences (isl's
//! scheduler: validity from all dependences, proximity for locality, coincidence for
//! parallelism), its permutable bands tiled (SICA or fixed sizes), and the decision
//! whether the result is worth generating code for.
//!
//! Input: the region's model and dependences. Output: `Decision::Transform` with a
//! schedule checked against the dependences, or `Decision::Keep` with the reason.
//! Relies on `isl::scheduler` for the scheduler and tiling and on `sica` for sizes.

use crate::deps::Dependences;
use crate::isl::scheduler::{self, BandInfo};
use crate::isl::{IslError, Schedule};
use crate::model::Scop;
use crate::options::{Options, Tiling};

use super::hardware::Hardware;
use super::sica::{self, BlockAccess, NewElements, SicaBand, SicaDecision};

/// What to do with a region.
pub enum Decision {
    /// Leave it as it is, and why.
    Keep(String),
    /// Generate this schedule; the text says what changed.
    Transform {
        schedule: Schedule,
        description: String,
    },
}

/// Tile size of a band member SICA does not tile: large enough to never split a loop.
const UNTILED: i64 = 1 << 30;
/// Fixed tile size for members `-polyrust-tile-sizes` does not cover.
const DEFAULT_TILE: i64 = 32;

pub fn decide(
    scop: &Scop,
    deps: &Dependences,
    options: &Options,
    hardware: &Hardware,
) -> Result<Decision, IslError> {
    let validity = deps.validity();
    let new =
        scheduler::compute_schedule(&scop.domains, &scop.context, validity, validity, validity)?;
    // Checked before tiling: tiling a permutable band keeps every dependence forward,
    // and the tiled map (with its floor divisions) is much costlier to check.
    let map = new.get_map()?;
    if !deps.respects(&map).unwrap_or(false) {
        return Ok(Decision::Keep(
            "the computed schedule does not respect the dependences".into(),
        ));
    }
    let bands = scheduler::bands(&new)?;
    let tileable: Vec<&BandInfo> = bands
        .iter()
        .filter(|b| b.permutable && b.coincident.len() >= 2)
        .collect();
    if tileable.is_empty() {
        return Ok(Decision::Keep(
            "no permutable band of two or more loops to tile".into(),
        ));
    }
    let mut described = Vec::new();
    let tiled = match &options.tiling {
        Tiling::None => new.copy()?,
        Tiling::Fixed(sizes) => scheduler::tile_bands(&new, |band| {
            if !(band.permutable && band.coincident.len() >= 2) {
                return None;
            }
            let chosen: Vec<i64> = (0..band.coincident.len())
                .map(|i| sizes.get(i).map_or(DEFAULT_TILE, |s| i64::from(*s)))
                .collect();
            described.push(format!("band tiled by {chosen:?}"));
            Some(chosen)
        })?,
        Tiling::Sica => {
            let new_elements = new_elements(scop)?;
            let machine = hardware.sica_machine();
            scheduler::tile_bands(&new, |band| {
                if !(band.permutable && band.coincident.len() >= 2) {
                    return None;
                }
                let members = band.coincident.len();
                let decision = sica::tile_sizes_sica(
                    &machine,
                    &new_elements,
                    options.sica_rho,
                    &SicaBand {
                        loops: members,
                        vector_trip_count: None,
                        outer_trip_count: None,
                    },
                );
                described.push(decision.to_string());
                match decision {
                    SicaDecision::Tile { .. } => {
                        let sizes = decision.tile_sizes();
                        // SICA's sizes are for the outermost and the innermost member.
                        let mut chosen = vec![UNTILED; members];
                        if let Some(q_l1) = sizes.last() {
                            chosen[members - 1] = i64::try_from(*q_l1).unwrap_or(UNTILED);
                        }
                        if sizes.len() == 2 {
                            chosen[0] = i64::try_from(sizes[0]).unwrap_or(UNTILED);
                        }
                        Some(chosen)
                    }
                    _ => None,
                }
            })?
        }
    };
    let original = scop.schedule.get_map()?;
    let reordered = !map.is_equal(&original)?;
    if described.is_empty() && !reordered {
        return Ok(Decision::Keep(
            "the schedule found is the original one".into(),
        ));
    }
    let description = if described.is_empty() {
        "loops reordered".to_string()
    } else {
        described.join("; ")
    };
    Ok(Decision::Transform {
        schedule: tiled,
        description,
    })
}

/// New elements per iteration of the innermost loop, over all statements (the largest
/// count, with the smallest element size).
pub fn new_elements(scop: &Scop) -> Result<NewElements, IslError> {
    let mut most = NewElements::uniform(0, 0);
    for statement in &scop.statements {
        let depth = statement.depth();
        if depth == 0 {
            continue;
        }
        let accesses: Vec<BlockAccess<'_>> = statement
            .accesses
            .iter()
            .filter_map(|a| {
                let array = scop.arrays.iter().find(|x| x.name == a.array)?;
                (!array.is_scalar).then_some(BlockAccess {
                    relation: &a.relation,
                    element_bytes: array.element_size,
                })
            })
            .collect();
        match sica::count_new_elements(&accesses, depth - 1) {
            Ok(n) if n.elements > most.elements => most = n,
            Ok(_) => {}
            Err(e) if e.is_operation_limit() => {
                return Err(IslError::OperationLimit {
                    operation: "counting new elements".into(),
                })
            }
            Err(_) => {}
        }
    }
    Ok(most)
}
