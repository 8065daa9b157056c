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
//!
//! What the run cannot see comes from the compiler's facts (the profile's static
//! section): a loop that carries a value in a register is a reduction (or, for any
//! other recurrence, not parallel), and a loop around a call whose accesses were not
//! recorded gets no verdict at all. A profile without facts (of an older compiler) is
//! read as if its loops had none.

use crate::profile::nest::{NestProfile, SiteKind};
use crate::profile::static_model::{FactKind, LoopFact};

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
    /// Parallel as it is: no dependence carried through memory or in a register, and
    /// every call in it recorded.
    pub parallel: bool,
    /// Byte strides of the accesses inside it along it: (site, stride or ⊤).
    pub strides: Vec<(usize, Option<i64>)>,
    /// Values the compiler accumulates in registers across its iterations (a sum, an
    /// array element kept out of memory across the loop), which the shadow memory does
    /// not see, and the updates through memory among the dependences it carries.
    pub reductions: Vec<Reduction>,
    /// The dependences it carries (indices into the nest's) that are updates through
    /// memory the compiler saw as reductions (`y[i] += d`).
    pub memory_reductions: Vec<usize>,
    /// Other values carried in registers from one iteration to the next (source names,
    /// empty when unknown).
    pub recurrences: Vec<String>,
    /// Calls in it (or in loops inside it) whose accesses were not recorded: nothing is
    /// known about its dependences.
    pub unrecorded_calls: Vec<String>,
    /// Arrays whose loaded values decide when it leaves (a search; empty name when
    /// unknown): not parallel as written.
    pub searches: Vec<String>,
}

/// A value accumulated across a loop, as the compiler saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Reduction {
    /// Source name, empty when unknown.
    pub name: String,
    /// `+`, `*`, `min/max`, `&`, `|`, `^`, `flag` (set to one invariant value),
    /// `argmin/argmax` (an extremum and the values chosen with it).
    pub operation: String,
    /// Updated through memory (`y[i] += d`), not kept in a register.
    pub in_memory: bool,
}

impl LoopVerdict {
    /// Whether the loop's only obstacle to running in parallel is values the compiler
    /// accumulates in registers: parallel as a reduction.
    pub fn is_reduction(&self) -> bool {
        !self.reductions.is_empty()
            && self
                .carries
                .iter()
                .all(|d| self.memory_reductions.contains(d))
            && self.recurrences.is_empty()
            && self.searches.is_empty()
            && self.unrecorded_calls.is_empty()
    }

    /// The "parallel" column: `yes`, `no`, `reduction (sum in a register)`, or `not
    /// known: calls not recorded (rand)`.
    pub fn parallel_text(&self) -> String {
        if !self.unrecorded_calls.is_empty() {
            return format!(
                "not known: calls not recorded ({})",
                self.unrecorded_calls.join(", ")
            );
        }
        if self.is_reduction() {
            let names: Vec<String> = self
                .reductions
                .iter()
                .map(|r| {
                    let place = if r.in_memory { "memory" } else { "a register" };
                    format!("{} in {place}", value_name(&r.name))
                })
                .collect();
            return format!("reduction ({})", names.join(", "));
        }
        if self.parallel { "yes" } else { "no" }.to_string()
    }
}

/// A value's source name, or what to call it without one.
pub fn value_name(name: &str) -> &str {
    if name.is_empty() {
        "a value"
    } else {
        name
    }
}

/// Everything the report says about one nest.
#[derive(Debug, Clone, PartialEq)]
pub struct NestVerdict {
    /// Folded load and store events (the affine share's denominator).
    pub events: u64,
    /// Every load and store, folded or only counted (what ranks the nests).
    pub accesses: u64,
    pub affine_events: u64,
    /// Folded dependence instances, and those in affine pieces (the paper's second %A).
    pub dependence_events: u64,
    pub affine_dependence_events: u64,
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
    /// The verdict on `nest`, with the compiler's `facts` about its loops.
    pub fn of(nest: &NestProfile, facts: &[LoopFact]) -> NestVerdict {
        let accesses = || nest.sites.iter().filter(|s| s.kind != SiteKind::Loop);
        let events = accesses()
            .map(|s| s.stream.events)
            .fold(0u64, u64::saturating_add);
        let affine_events = accesses()
            .map(|s| s.stream.affine_events())
            .fold(0u64, u64::saturating_add);
        let dependence_events = nest
            .dependences
            .iter()
            .map(|d| d.stream.events)
            .fold(0u64, u64::saturating_add);
        let affine_dependence_events = nest
            .dependences
            .iter()
            .map(|d| d.stream.affine_events())
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
                reductions: Vec::new(),
                memory_reductions: Vec::new(),
                recurrences: Vec::new(),
                unrecorded_calls: Vec::new(),
                searches: Vec::new(),
            })
            .collect();
        apply_facts(nest, facts, &mut loops);
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
        apply_memory_reductions(nest, facts, &mut loops);
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
        // Claim nothing about a loop whose calls were not recorded; and a value carried
        // in a register to the next iteration (not a reduction) or a search's exit
        // orders the iterations of its loop whatever the memory dependences say: no
        // band through it (hotspot's stale `delta`, lavaMD's box counter `nh`).
        let mut bands = permutable_bands(nest);
        bands.retain(|band| {
            band.iter().all(|site| {
                loops.iter().all(|l| {
                    l.site != *site
                        || (l.unrecorded_calls.is_empty()
                            && l.recurrences.is_empty()
                            && l.searches.is_empty())
                })
            })
        });
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
            dependence_events,
            affine_dependence_events,
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

/// Puts the compiler's facts on the loops they are about: a call's on its loop and
/// every loop around it (their iterations contain it), a value carried in a register on
/// its loop. A loop with any of them is not parallel as it is.
fn apply_facts(nest: &NestProfile, facts: &[LoopFact], loops: &mut [LoopVerdict]) {
    for fact in facts {
        let site = fact.loop_site as usize;
        let around = match fact.kind {
            FactKind::UnrecordedCall => nest.loops_around(site),
            FactKind::Reduction | FactKind::Recurrence | FactKind::DataExit => vec![site],
            // Applies to the dependences a loop carries: see `apply_memory_reductions`.
            FactKind::MemoryReduction => continue,
        };
        for verdict in loops.iter_mut().filter(|l| around.contains(&l.site)) {
            verdict.parallel = false;
            match fact.kind {
                FactKind::Reduction => {
                    let value = Reduction {
                        name: fact.name.clone(),
                        operation: fact.operation.clone(),
                        in_memory: false,
                    };
                    if !verdict.reductions.contains(&value) {
                        verdict.reductions.push(value);
                    }
                }
                FactKind::Recurrence => push_once(&mut verdict.recurrences, &fact.name),
                FactKind::UnrecordedCall => push_once(&mut verdict.unrecorded_calls, &fact.name),
                FactKind::DataExit => push_once(&mut verdict.searches, &fact.name),
                FactKind::MemoryReduction => {}
            }
        }
    }
}

/// Marks the dependences each loop carries from the store to the load of an update the
/// compiler saw as a reduction (whichever loop carries it: the update is associative).
fn apply_memory_reductions(nest: &NestProfile, facts: &[LoopFact], loops: &mut [LoopVerdict]) {
    for verdict in loops.iter_mut() {
        for &d in &verdict.carries {
            let Some(dependence) = nest.dependences.get(d) else {
                continue;
            };
            let Some(fact) = facts.iter().find(|f| {
                f.kind == FactKind::MemoryReduction
                    && f.update == Some((dependence.sink, dependence.source))
            }) else {
                continue;
            };
            verdict.memory_reductions.push(d);
            let value = Reduction {
                name: fact.name.clone(),
                operation: fact.operation.clone(),
                in_memory: true,
            };
            if !verdict.reductions.contains(&value) {
                verdict.reductions.push(value);
            }
        }
    }
}

fn push_once(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

/// Maximal permutable bands (at least two loops) along every chain from the outermost
/// loop to an innermost one, greedily from the outside.
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
    let unknown: Vec<&str> = verdict
        .loops
        .iter()
        .filter(|l| !l.unrecorded_calls.is_empty())
        .map(|l| l.name.as_str())
        .collect();
    if !unknown.is_empty() {
        advice.push(format!(
            "nothing is claimed about loop{} {}: {} calls whose accesses were not recorded",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", "),
            if unknown.len() == 1 {
                "it makes"
            } else {
                "they make"
            }
        ));
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
    if let Some(reduction) = verdict
        .loops
        .iter()
        .filter(|l| l.is_reduction())
        .min_by_key(|l| l.depth)
    {
        let names: Vec<&str> = reduction
            .reductions
            .iter()
            .map(|r| value_name(&r.name))
            .collect();
        advice.push(format!(
            "loop {} is a reduction into {}: run it in parallel only as a reduction (a \
             floating-point one then rounds differently)",
            reduction.name,
            names.join(", ")
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
        } else if !inner.parallel && inner.unrecorded_calls.is_empty() {
            let band = verdict.bands.iter().find(|b| b.contains(&inner.site));
            let candidate = verdict.loops.iter().find(|l| {
                l.parallel
                    && l.site != inner.site
                    && unit(l)
                    && band.is_some_and(|b| b.contains(&l.site))
            });
            if let Some(candidate) = candidate {
                advice.push(format!(
                    "{} carries a {}; interchange {} innermost (parallel, unit stride) to vectorize",
                    inner.name,
                    if inner.is_reduction() {
                        "reduction"
                    } else {
                        "dependence"
                    },
                    candidate.name
                ));
            }
        }
    }
    if advice.is_empty() {
        advice.push("no parallel loop and no permutable band found: leave it as it is".into());
    }
    advice.join("; ")
}
