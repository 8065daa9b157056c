//! What the report says about one nest, computed from its profile alone: the share of
//! events in affine pieces, which loops carry (flow) dependences, which are parallel,
//! the permutable bands, and a suggestion.
//!
//! A dependence piece constrains a loop when both sites are inside it; it is carried by
//! the first common loop along which its distance may be non-zero, counting an unknown
//! (⊤) component as possibly zero before it and possibly non-zero at it. Dependences
//! from an earlier entry of the nest are carried by the entry and constrain no loop.
//! Only data-flow dependences are recorded: "parallel" assumes that anti and output
//! dependences are removed by privatization or renaming, as the paper does.

use crate::profile::nest::{NestProfile, SiteKind};

/// One loop of the nest.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopVerdict {
    /// Index of its loop-header site.
    pub site: usize,
    pub name: String,
    pub depth: u32,
    pub line: u32,
    pub iterations: u64,
    /// Dependences (indices into the nest's) that it carries or may carry.
    pub carries: Vec<usize>,
    pub parallel: bool,
    /// Byte strides of the accesses inside it along it: (site, stride or ⊤).
    pub strides: Vec<(usize, Option<i64>)>,
    /// Loads (site indices) of an address that is also stored at the same place around
    /// this loop: the value is likely accumulated in a register across the loop (a sum
    /// into `C[i][j]` over `k`, which the compiler keeps out of memory). Such a loop
    /// carries that reduction, which the shadow memory does not see.
    pub register_reductions: Vec<usize>,
}

/// Everything the report says about one nest.
#[derive(Debug, Clone, PartialEq)]
pub struct NestVerdict {
    /// Folded load and store events (the affine share's denominator).
    pub events: u64,
    /// Every load and store, folded or only counted (what ranks the nests).
    pub accesses: u64,
    pub affine_events: u64,
    pub loops: Vec<LoopVerdict>,
    /// Permutable bands of at least two loops, as loop-site indices outermost first.
    pub bands: Vec<Vec<usize>>,
    /// Sites whose stream gave up geometry.
    pub gave_up: Vec<usize>,
    pub suggestion: String,
}

/// Distance component: known, or ⊤.
type Component = Option<i64>;

/// The chain of loops a dependence's distance components refer to (entry excluded).
fn dependence_loops(nest: &NestProfile, index: usize) -> Vec<usize> {
    let dependence = &nest.dependences[index];
    let mut loops = nest.loops_around(dependence.sink as usize);
    loops.truncate((dependence.common as usize).saturating_sub(1));
    loops
}

/// The loop positions (0-based in the dependence's loops) that carry or may carry a
/// piece of distance `distance`: the first known non-zero component's loop, and every
/// loop of an unknown (⊤) component before it. Empty for a loop-independent piece and
/// for one from another entry.
fn carriers(distance: &[Component]) -> Vec<usize> {
    // distance[0] is the entry; within one entry it must be 0 (or unknown).
    let mut may = Vec::new();
    if distance
        .first()
        .is_some_and(|c| matches!(c, Some(x) if *x != 0))
    {
        return may;
    }
    for (position, component) in distance.iter().enumerate().skip(1) {
        match component {
            Some(0) => continue,
            Some(_) => {
                may.push(position - 1);
                return may;
            }
            None => may.push(position - 1),
        }
    }
    may
}

/// Whether the first component that is not surely zero is known and non-zero: the
/// dependence is carried there, whatever follows.
fn surely_carried_before(outer: &[Component]) -> bool {
    for component in outer {
        match component {
            Some(0) => continue,
            Some(_) => return true,
            None => return false,
        }
    }
    false
}

/// Whether the loops at positions `band` (consecutive, 0-based) are permutable: every
/// dependence piece not surely carried by an outer loop has known, non-negative
/// components inside the band.
fn permutable(nest: &NestProfile, chain: &[usize], band: std::ops::Range<usize>) -> bool {
    for (index, dependence) in nest.dependences.iter().enumerate() {
        if dependence.across_entries {
            continue;
        }
        let loops = dependence_loops(nest, index);
        // Dependences between sites that share the band's outer loops constrain it,
        // along the band loops they share.
        let shared = loops.len().min(band.end);
        if shared <= band.start || loops[..shared] != chain[..shared] {
            continue;
        }
        for distance in &dependence.distances {
            if surely_carried_before(&distance[..=band.start.min(distance.len() - 1)]) {
                continue;
            }
            let inside = distance.get(band.start + 1..=shared).unwrap_or(&[]);
            if inside.iter().any(|c| !matches!(c, Some(x) if *x >= 0)) {
                return false;
            }
        }
    }
    true
}

impl NestVerdict {
    pub fn of(nest: &NestProfile) -> NestVerdict {
        let accesses = || nest.sites.iter().filter(|s| s.kind != SiteKind::Loop);
        let events = accesses()
            .map(|s| s.stream.events)
            .fold(0u64, u64::saturating_add);
        let affine_events = accesses()
            .map(|s| s.stream.affine_events())
            .fold(0u64, u64::saturating_add);
        let mut loops: Vec<LoopVerdict> = nest
            .sites
            .iter()
            .enumerate()
            .filter(|(_, site)| site.kind == SiteKind::Loop)
            .map(|(index, site)| LoopVerdict {
                site: index,
                name: if site.name.is_empty() {
                    format!("loop{index}")
                } else {
                    site.name.clone()
                },
                depth: site.depth,
                line: site.line,
                iterations: site.stream.events,
                carries: Vec::new(),
                parallel: true,
                strides: Vec::new(),
                register_reductions: Vec::new(),
            })
            .collect();
        for (load, child) in register_reductions(nest) {
            if let Some(verdict) = loops.iter_mut().find(|l| l.site == child) {
                verdict.parallel = false;
                if !verdict.register_reductions.contains(&load) {
                    verdict.register_reductions.push(load);
                }
            }
        }
        for (index, dependence) in nest.dependences.iter().enumerate() {
            if dependence.across_entries {
                continue;
            }
            let chain = dependence_loops(nest, index);
            for distance in &dependence.distances {
                for position in carriers(distance) {
                    let Some(&site) = chain.get(position) else {
                        continue;
                    };
                    if let Some(verdict) = loops.iter_mut().find(|l| l.site == site) {
                        verdict.parallel = false;
                        if !verdict.carries.contains(&index) {
                            verdict.carries.push(index);
                        }
                    }
                }
            }
        }
        for (index, site) in nest.sites.iter().enumerate() {
            if site.kind == SiteKind::Loop {
                continue;
            }
            for (position, &loop_site) in nest.loops_around(index).iter().enumerate() {
                let stride = site.strides.get(position + 1).copied().flatten();
                if let Some(verdict) = loops.iter_mut().find(|l| l.site == loop_site) {
                    verdict.strides.push((index, stride));
                }
            }
        }
        let bands = permutable_bands(nest);
        let gave_up = nest
            .sites
            .iter()
            .enumerate()
            .filter(|(_, s)| s.stream.gave_up)
            .map(|(i, _)| i)
            .collect();
        let mut verdict = NestVerdict {
            events,
            accesses: nest.access_events(),
            affine_events,
            loops,
            bands,
            gave_up,
            suggestion: String::new(),
        };
        verdict.suggestion = suggestion(nest, &verdict);
        verdict
    }

    /// Share of access events in pieces without ⊤, 0.0 to 1.0 (1.0 with no access).
    pub fn affine_share(&self) -> f64 {
        if self.events == 0 {
            1.0
        } else {
            self.affine_events as f64 / self.events as f64
        }
    }

    pub fn loop_name(&self, site: usize) -> &str {
        self.loops
            .iter()
            .find(|l| l.site == site)
            .map_or("?", |l| l.name.as_str())
    }
}

/// Maximal permutable bands (at least two loops) along every chain from the outermost
/// loop to an innermost one, greedily from the outside.
/// (load site, loop site) pairs: a load and a store of one address function in the same
/// loop, with a loop nested in that loop, which then likely carries the loaded value in
/// a register from the load to the store (see `LoopVerdict::register_reductions`).
fn register_reductions(nest: &NestProfile) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (load, l) in nest.sites.iter().enumerate() {
        if l.kind != SiteKind::Load || l.stream.pieces.is_empty() {
            continue;
        }
        let stored = nest.sites.iter().any(|s| {
            s.kind == SiteKind::Store
                && s.parent_loop == l.parent_loop
                && s.depth == l.depth
                && s.stream.pieces.len() == l.stream.pieces.len()
                && s.stream
                    .pieces
                    .iter()
                    .zip(&l.stream.pieces)
                    .all(|(a, b)| a.affine && b.affine && a.labels == b.labels)
        });
        if !stored {
            continue;
        }
        for (child, c) in nest.sites.iter().enumerate() {
            if c.kind == SiteKind::Loop && c.parent_loop == l.parent_loop && c.depth == l.depth + 1
            {
                out.push((load, child));
            }
        }
    }
    out
}

fn permutable_bands(nest: &NestProfile) -> Vec<Vec<usize>> {
    let mut bands: Vec<Vec<usize>> = Vec::new();
    let leaves = nest.sites.iter().enumerate().filter(|(index, site)| {
        site.kind == SiteKind::Loop
            && !nest.sites.iter().any(|other| {
                other.kind == SiteKind::Loop && other.parent_loop == Some(*index as u32)
            })
    });
    for (leaf, _) in leaves {
        let chain = nest.loops_around(leaf);
        let mut start = 0;
        while start < chain.len() {
            let mut end = start + 1;
            while end < chain.len() && permutable(nest, &chain, start..end + 1) {
                end += 1;
            }
            if end - start >= 2 {
                let band = chain[start..end].to_vec();
                if !bands.contains(&band) {
                    bands.push(band);
                }
            }
            start = end;
        }
    }
    bands
}

fn suggestion(nest: &NestProfile, verdict: &NestVerdict) -> String {
    let mut advice = Vec::new();
    let share = verdict.affine_share();
    if share < 0.5 {
        advice.push(format!(
            "only {:.0}% of the accesses are affine: the nest needs speculation or an \
             inspector before a polyhedral transformation",
            share * 100.0
        ));
    }
    if nest.shadow_full {
        advice.push("the shadow memory was full: dependences may be missing, raise POLYRUST_SHADOW_MB and re-run".into());
    }
    if let Some(outer) = verdict
        .loops
        .iter()
        .filter(|l| l.parallel)
        .min_by_key(|l| l.depth)
    {
        advice.push(format!(
            "loop {} is parallel: run its iterations in parallel",
            outer.name
        ));
    }
    for band in &verdict.bands {
        let names: Vec<&str> = band.iter().map(|&s| verdict.loop_name(s)).collect();
        advice.push(format!("tile the permutable band ({})", names.join(", ")));
    }
    // Vectorization: an innermost loop that carries a dependence while a parallel loop of
    // the same band has unit-stride accesses.
    let innermost = verdict.loops.iter().max_by_key(|l| l.depth);
    if let Some(inner) = innermost {
        let unit = |l: &LoopVerdict| {
            l.strides.iter().any(|&(site, stride)| {
                stride
                    .is_some_and(|s| s != 0 && s.unsigned_abs() == u64::from(nest.sites[site].size))
            })
        };
        if inner.parallel && unit(inner) {
            advice.push(format!(
                "the innermost loop {} is parallel with unit-stride accesses: it vectorizes",
                inner.name
            ));
        } else if !inner.parallel {
            let band = verdict.bands.iter().find(|b| b.contains(&inner.site));
            let candidate = verdict.loops.iter().find(|l| {
                l.parallel
                    && l.site != inner.site
                    && unit(l)
                    && band.is_some_and(|b| b.contains(&l.site))
            });
            if let Some(candidate) = candidate {
                advice.push(format!(
                    "{} carries a dependence; interchange {} innermost (parallel, unit stride) to vectorize",
                    inner.name, candidate.name
                ));
            }
        }
    }
    if advice.is_empty() {
        advice.push("no parallel loop and no permutable band found: leave it as it is".into());
    }
    advice.join("; ")
}
