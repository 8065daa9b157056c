//! The comparison of one function's folded nests with its static regions.
//!
//! Sites and accesses are matched by source location: the instrumentation and the model
//! both take an access's line and column from its instruction's debug location
//! (`FunctionAnalyses::instruction_location`), in the same IR (see `main.rs`), so a
//! load or store site and a model access with the same line, column and kind are the
//! same instruction; the statement's depth must be the site's. Two kinds of model
//! accesses stand for an instruction the run sees elsewhere, and are matched by
//! projection instead (the site's domain is the projection of the statements' domains
//! on the site's loops):
//! - promoted accesses, an element LLVM keeps in a register across a loop, which the
//!   model reads and writes in every iteration while the run loads it before the loop
//!   and stores it after (matched by array name and kind);
//! - an access at the site's location in a deeper statement (a value detection
//!   recomputes in the statements that read it, loaded once in front of their loop).
//!
//! What is compared, at the run's parameter values, per entry of the nest:
//! - each memory site's points (its iteration domain) with its statement's domain, point
//!   by point where folding kept the points, else their number and bounding box; in a
//!   statement with a data-dependent guard (the model's may-writes), whose accesses the
//!   model counts in every iteration, the run's points are a subset;
//! - for each read matched directly, the (source, sink) pairs of each flow dependence
//!   into it from a site of the nest, against the static flow from the statement behind
//!   that site (sources projected on the site's loops); with a guard in the reading
//!   statement or a may-write among the sources, the run's pairs are a subset of the
//!   static ones (a guarded write that did not happen lets other sources show
//!   through, which the model's may-dependences include);
//! - which loops carry these dependences, and their distance vectors as the profile
//!   states them, against the distances of the static pairs.
//!
//! Left out on purpose, each for a reason the run cannot see: dependences through
//! scalars of the model (values in registers), promoted elements read inside their loop
//! (a register from the second iteration on; the matrix product's reduction on C, whose
//! load LLVM even removes since it knows C[i][j] = 0: a note gives the model's flow),
//! dependences across entries (the model describes one execution of the region) and
//! between different nests of one region (the runtime's shadow is per nest). Zero-trip
//! cases need no exception: the model is instantiated at the run's parameters, so a
//! dependence that only exists at other sizes is not in the comparison.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use passes::isl::IslCtx;
use passes::model::spec::AccessKind;
use polyrust_rt::profile::nest::{NestProfile, SiteKind};

use crate::folded_side::{dependence_pairs, site_points, FoldedPoints};
use crate::static_side::{StaticAccess, StaticRegion};

/// An access of one of the function's regions: (region, index in its `accesses`).
type AccessRef = (usize, usize);
/// A dependence instance: (source IV, sink IV), the entry first.
type Pair = (Vec<i64>, Vec<i64>);

/// What the comparison of one function found.
#[derive(Default)]
pub struct Findings {
    /// Where folding and the model disagree: the test fails on any.
    pub disagreements: Vec<String>,
    /// Differences the comparison explains, and what it left out.
    pub notes: Vec<String>,
    /// What was compared, one line each.
    pub compared: Vec<String>,
}

/// How a site is tied to the model.
#[derive(Clone, Debug)]
enum SiteMatch {
    /// One access at the site's location, of a statement as deep as the site.
    Direct(AccessRef),
    /// Accesses the run performs at this site, outside their statement's loops.
    Projected(Vec<AccessRef>),
}

fn site_name(nest: &NestProfile, site: usize) -> String {
    let s = &nest.sites[site];
    let kind = match s.kind {
        SiteKind::Load => "load",
        SiteKind::Store => "store",
        SiteKind::Loop => "loop",
    };
    format!("{kind} {}@{}:{}", s.name, s.line, s.column)
}

fn access_name(regions: &[StaticRegion], (r, a): AccessRef) -> String {
    let region = &regions[r];
    let access = &region.accesses[a];
    let kind = match access.kind {
        AccessKind::Read => "read",
        AccessKind::MustWrite => "write",
        AccessKind::MayWrite => "may-write",
    };
    let at = access
        .location
        .map_or_else(|| "?".to_string(), |(l, c)| format!("{l}:{c}"));
    format!(
        "{kind} {}@{at} of {}",
        access.array,
        region.statement_name(access.statement)
    )
}

fn same_kind(site: SiteKind, access: &StaticAccess) -> bool {
    match site {
        SiteKind::Load => access.kind == AccessKind::Read,
        SiteKind::Store => access.is_write(),
        SiteKind::Loop => false,
    }
}

/// Compares every modelled nest of one function with the function's regions.
pub fn compare_function(
    ctx: &IslCtx,
    nests: &[&NestProfile],
    regions: &[StaticRegion],
    findings: &mut Findings,
) {
    // Statements tied to a nest by a site at their own location.
    let mut statement_nest: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut matches: Vec<BTreeMap<usize, SiteMatch>> = Vec::new();
    for (n, nest) in nests.iter().enumerate() {
        let direct = direct_matches(nest, regions, findings);
        for m in direct.values() {
            if let SiteMatch::Direct((r, a)) = m {
                statement_nest.insert((*r, regions[*r].accesses[*a].statement), n);
            }
        }
        matches.push(direct);
    }
    for (n, nest) in nests.iter().enumerate() {
        projected_matches(nest, n, regions, &statement_nest, &mut matches[n], findings);
    }
    let used: BTreeSet<AccessRef> = matches
        .iter()
        .flat_map(|m| m.values())
        .flat_map(|m| match m {
            SiteMatch::Direct(a) => vec![*a],
            SiteMatch::Projected(list) => list.clone(),
        })
        .collect();
    for (r, region) in regions.iter().enumerate() {
        for (a, access) in region.accesses.iter().enumerate() {
            if access.unrecorded && !used.contains(&(r, a)) {
                findings.notes.push(format!(
                    "{}: the model's {} is a memory intrinsic of run-time length, which the \
                     instrumentation does not record: not compared",
                    region.file,
                    access_name(regions, (r, a))
                ));
            } else if access.promoted && !access.is_write() && !used.contains(&(r, a)) {
                findings.notes.push(format!(
                    "{}: the model's {} has no load at run time (LLVM knows the element's \
                     value when the loop starts); {}",
                    region.file,
                    access_name(regions, (r, a)),
                    register_flow(ctx, region, access)
                ));
            } else if !access.scalar && !used.contains(&(r, a)) {
                findings.disagreements.push(format!(
                    "{}: the model's {} matches no site of the instrumented nests",
                    region.file,
                    access_name(regions, (r, a))
                ));
            }
        }
    }
    for (n, nest) in nests.iter().enumerate() {
        compare_domains(nest, regions, &matches[n], findings);
        compare_dependences(
            ctx,
            nest,
            n,
            regions,
            &matches[n],
            &statement_nest,
            findings,
        );
    }
}

/// What the model's flow into a promoted read is, for a note: the run cannot see it,
/// the element stays in a register (the report calls such a loop a register
/// reduction only when the element is also loaded in front of it).
fn register_flow(ctx: &IslCtx, region: &StaticRegion, read: &StaticAccess) -> String {
    let flows = match region.flow_into(ctx, read) {
        Ok(flows) => flows,
        Err(error) => return error,
    };
    let mut parts = Vec::new();
    for flow in flows {
        let distances: BTreeSet<Vec<i64>> = flow
            .pairs
            .iter()
            .map(|(from, to)| from.iter().zip(to).map(|(a, b)| b - a).collect())
            .collect();
        parts.push(format!(
            "{} -> {} at distances {distances:?}",
            region.statement_name(flow.source_statement),
            region.statement_name(read.statement)
        ));
    }
    format!(
        "the model's flow into it ({}) stays in a register: no memory dependence at run time",
        parts.join(", ")
    )
}

/// Whether the statement holds a data-dependent branch: the model then writes `may`
/// and reads as if every access ran, while the run performs the guarded ones only
/// where the condition held.
fn guarded(region: &StaticRegion, statement: usize) -> bool {
    region
        .accesses
        .iter()
        .any(|a| a.statement == statement && a.kind == AccessKind::MayWrite)
}

/// Sites matched to the access at their location.
fn direct_matches(
    nest: &NestProfile,
    regions: &[StaticRegion],
    findings: &mut Findings,
) -> BTreeMap<usize, SiteMatch> {
    let mut out = BTreeMap::new();
    for (k, site) in nest.sites.iter().enumerate() {
        if site.kind == SiteKind::Loop {
            continue;
        }
        let exact: Vec<AccessRef> = all_accesses(regions)
            .filter(|(_, access)| {
                !access.promoted
                    && !access.scalar
                    && access.location == Some((site.line, site.column))
                    && same_kind(site.kind, access)
            })
            .filter(|((r, _), access)| regions[*r].depth(access.statement) == site.depth as usize)
            .map(|(at, _)| at)
            .collect();
        match exact.as_slice() {
            [one] => {
                out.insert(k, SiteMatch::Direct(*one));
            }
            [] => {}
            many => findings.disagreements.push(format!(
                "{}: {} matches {} accesses of the model: {}",
                nest.id,
                site_name(nest, k),
                many.len(),
                many.iter()
                    .map(|a| access_name(regions, *a))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    out
}

fn all_accesses(regions: &[StaticRegion]) -> impl Iterator<Item = (AccessRef, &StaticAccess)> {
    regions.iter().enumerate().flat_map(|(r, region)| {
        region
            .accesses
            .iter()
            .enumerate()
            .map(move |(a, access)| ((r, a), access))
    })
}

/// Sites the run performs outside the loops of the statements the model puts them in.
fn projected_matches(
    nest: &NestProfile,
    n: usize,
    regions: &[StaticRegion],
    statement_nest: &BTreeMap<(usize, usize), usize>,
    matches: &mut BTreeMap<usize, SiteMatch>,
    findings: &mut Findings,
) {
    for (k, site) in nest.sites.iter().enumerate() {
        if site.kind == SiteKind::Loop || matches.contains_key(&k) {
            continue;
        }
        let candidates: Vec<AccessRef> = all_accesses(regions)
            .filter(|((r, _), access)| {
                let statement = access.statement;
                let depth = regions[*r].depth(statement);
                let in_this_nest = statement_nest
                    .get(&(*r, statement))
                    .is_none_or(|&other| other == n);
                let deeper_here = !access.promoted
                    && access.location == Some((site.line, site.column))
                    && depth > site.depth as usize;
                let promoted = access.promoted && access.array == site.name;
                in_this_nest
                    && !access.scalar
                    && same_kind(site.kind, access)
                    && depth >= site.depth as usize
                    && (deeper_here || promoted)
            })
            .map(|(at, _)| at)
            .collect();
        if candidates.is_empty() {
            findings.disagreements.push(format!(
                "{}: {} (depth {}) matches no access of the model",
                nest.id,
                site_name(nest, k),
                site.depth
            ));
        } else {
            findings.notes.push(format!(
                "{}: {} is the memory side of {} (compared as their projection on its {} loops)",
                nest.id,
                site_name(nest, k),
                candidates
                    .iter()
                    .map(|a| access_name(regions, *a))
                    .collect::<Vec<_>>()
                    .join(", "),
                site.depth
            ));
            matches.insert(k, SiteMatch::Projected(candidates));
        }
    }
}

/// `points` repeated for each folded entry, the entry first.
fn per_entry(points: impl IntoIterator<Item = Vec<i64>>, entries: u64) -> BTreeSet<Vec<i64>> {
    let points: Vec<Vec<i64>> = points.into_iter().collect();
    let mut out = BTreeSet::new();
    for e in 0..entries as i64 {
        for p in &points {
            let mut q = Vec::with_capacity(p.len() + 1);
            q.push(e);
            q.extend_from_slice(p);
            out.insert(q);
        }
    }
    out
}

fn show<T: std::fmt::Debug>(items: impl Iterator<Item = T>) -> String {
    let items: Vec<T> = items.take(4).collect();
    format!("{items:?}")
}

/// Compares the run's points with the model's: equal, or a subset when `subset` (a
/// guarded statement). `None` when they agree, else what differs.
fn differ(expected: &BTreeSet<Vec<i64>>, got: &FoldedPoints, subset: bool) -> Option<String> {
    let extra: Vec<_> = got.exact.difference(expected).collect();
    let missing = expected.len() as u64 - (got.exact.len() - extra.len()) as u64;
    let count = got.exact.len() as u64 + got.inexact_events;
    let mut problems = Vec::new();
    if !extra.is_empty() {
        problems.push(format!(
            "{} points the model does not have, e.g. {}",
            extra.len(),
            show(extra.iter())
        ));
    }
    if got.inexact_events == 0 && missing > 0 && !subset {
        problems.push(format!(
            "{missing} points of the model never ran, e.g. {}",
            show(expected.difference(&got.exact))
        ));
    }
    if got.inexact_events > 0 {
        if count != expected.len() as u64 && !(subset && count < expected.len() as u64) {
            problems.push(format!(
                "{count} points (folded into a box), the model has {}",
                expected.len()
            ));
        }
        let inside = |point: &Vec<i64>| {
            point
                .iter()
                .zip(&got.lower)
                .zip(&got.upper)
                .all(|((x, lo), hi)| lo <= x && x <= hi)
        };
        if !subset && !expected.iter().all(inside) {
            problems.push("the model's points leave the folded box".into());
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

fn compare_domains(
    nest: &NestProfile,
    regions: &[StaticRegion],
    matches: &BTreeMap<usize, SiteMatch>,
    findings: &mut Findings,
) {
    for (&k, m) in matches {
        let site = &nest.sites[k];
        let depth = site.depth as usize;
        let (statement_points, may): (BTreeSet<Vec<i64>>, bool) = match m {
            SiteMatch::Direct((r, a)) => {
                let access = &regions[*r].accesses[*a];
                (
                    regions[*r].domains[access.statement]
                        .iter()
                        .cloned()
                        .collect(),
                    guarded(&regions[*r], access.statement),
                )
            }
            SiteMatch::Projected(list) => (
                list.iter()
                    .flat_map(|(r, a)| {
                        let statement = regions[*r].accesses[*a].statement;
                        regions[*r].domains[statement]
                            .iter()
                            .map(move |p| p[..depth].to_vec())
                    })
                    .collect(),
                false,
            ),
        };
        let expected = per_entry(statement_points, nest.folded_entries);
        let got = site_points(&site.stream);
        let ran = got.exact.len() as u64 + got.inexact_events;
        if ran != site.stream.events {
            findings.disagreements.push(format!(
                "{}: {}: its pieces hold {ran} points but it ran {} times",
                nest.id,
                site_name(nest, k),
                site.stream.events
            ));
        }
        match differ(&expected, &got, may) {
            Some(problem) => findings.disagreements.push(format!(
                "{}: domain of {}: {problem}",
                nest.id,
                site_name(nest, k)
            )),
            None => {
                let exactness = if got.inexact_events == 0 {
                    "point by point"
                } else {
                    "by count and box"
                };
                let subset = if may && ran < expected.len() as u64 {
                    format!(" (under a data-dependent guard: ran at {ran} of them)")
                } else {
                    String::new()
                };
                findings.compared.push(format!(
                    "{}: domain of {}: {} points over {} entries agree {exactness}{subset}",
                    nest.id,
                    site_name(nest, k),
                    expected.len(),
                    nest.folded_entries
                ));
            }
        }
    }
}

/// The loop sites around `site`, outermost first.
fn loops(nest: &NestProfile, site: usize) -> Vec<usize> {
    let mut chain = nest.loops_around(site);
    if nest.sites[site].kind == SiteKind::Loop {
        chain.pop();
    }
    chain
}

fn common_loops(nest: &NestProfile, a: usize, b: usize) -> Vec<usize> {
    loops(nest, a)
        .into_iter()
        .zip(loops(nest, b))
        .take_while(|(x, y)| x == y)
        .map(|(x, _)| x)
        .collect()
}

/// The loop carrying a dependence of distance `distance` (common loops only), `None`
/// when it is loop-independent.
fn carrier(distance: &[Option<i64>]) -> Option<usize> {
    distance.iter().position(|d| *d != Some(0))
}

#[allow(clippy::too_many_arguments)]
fn compare_dependences(
    ctx: &IslCtx,
    nest: &NestProfile,
    n: usize,
    regions: &[StaticRegion],
    matches: &BTreeMap<usize, SiteMatch>,
    statement_nest: &BTreeMap<(usize, usize), usize>,
    findings: &mut Findings,
) {
    // Which site each model access runs at, in this nest.
    let mut site_of: BTreeMap<AccessRef, usize> = BTreeMap::new();
    for (&k, m) in matches {
        match m {
            SiteMatch::Direct(a) => {
                site_of.insert(*a, k);
            }
            SiteMatch::Projected(list) => {
                for a in list {
                    site_of.insert(*a, k);
                }
            }
        }
    }
    let mut static_carriers: BTreeSet<String> = BTreeSet::new();
    let mut folded_carriers: BTreeSet<String> = BTreeSet::new();
    let mut any_may = false;
    let loop_name = |site: Option<usize>| {
        site.map_or_else(
            || "none (loop-independent)".to_string(),
            |s| format!("{}@{}", nest.sites[s].name, nest.sites[s].line),
        )
    };
    for (&sink, m) in matches {
        let SiteMatch::Direct((r, a)) = m else {
            if nest.sites[sink].kind == SiteKind::Load
                && nest
                    .dependences
                    .iter()
                    .any(|d| d.sink as usize == sink && !d.across_entries)
            {
                findings.notes.push(format!(
                    "{}: dependences into {} not compared: the model reads the promoted \
                     element in every iteration, the run once in front of the loop",
                    nest.id,
                    site_name(nest, sink)
                ));
            }
            continue;
        };
        let region = &regions[*r];
        let read = &region.accesses[*a];
        if read.is_write() {
            continue;
        }
        let flows = match region.flow_into(ctx, read) {
            Ok(flows) => flows,
            Err(error) => {
                findings.disagreements.push(error);
                continue;
            }
        };
        let may = guarded(region, read.statement)
            || flows.iter().any(|flow| {
                region.accesses.iter().any(|w| {
                    w.statement == flow.source_statement
                        && w.array == read.array
                        && w.kind == AccessKind::MayWrite
                })
            });
        any_may |= may;
        // The model's pairs, per source site of this nest.
        let mut expected: BTreeMap<usize, BTreeSet<Pair>> = BTreeMap::new();
        for flow in &flows {
            let writes: BTreeSet<usize> = region
                .accesses
                .iter()
                .enumerate()
                .filter(|(_, w)| {
                    w.statement == flow.source_statement && w.array == read.array && w.is_write()
                })
                .filter_map(|(w, _)| site_of.get(&(*r, w)).copied())
                .collect();
            let source_name = region.statement_name(flow.source_statement);
            let source = match writes.len() {
                1 => writes.into_iter().next().unwrap_or_default(),
                0 => {
                    let elsewhere = statement_nest
                        .get(&(*r, flow.source_statement))
                        .is_some_and(|&other| other != n);
                    let unrecorded = region.accesses.iter().any(|w| {
                        w.statement == flow.source_statement
                            && w.array == read.array
                            && w.unrecorded
                    });
                    if unrecorded {
                        findings.notes.push(format!(
                            "{}: flow from {source_name} into {} not compared: its write is a \
                             memory intrinsic the run does not record",
                            nest.id,
                            site_name(nest, sink)
                        ));
                    } else if elsewhere {
                        findings.notes.push(format!(
                            "{}: flow from {source_name} (another nest of the region) into {} \
                             not compared: the shadow memory is per nest",
                            nest.id,
                            site_name(nest, sink)
                        ));
                    } else {
                        findings.disagreements.push(format!(
                            "{}: the model's flow from {source_name} into {} has no source site",
                            nest.id,
                            site_name(nest, sink)
                        ));
                    }
                    continue;
                }
                _ => {
                    findings.notes.push(format!(
                        "{}: flow from {source_name} into {} not compared: its writes of {} \
                         run at {} sites",
                        nest.id,
                        site_name(nest, sink),
                        read.array,
                        writes.len()
                    ));
                    continue;
                }
            };
            let source_depth = nest.sites[source].depth as usize;
            let pairs = expected.entry(source).or_default();
            for e in 0..nest.folded_entries as i64 {
                for (from, to) in &flow.pairs {
                    let mut from_iv = vec![e];
                    from_iv.extend_from_slice(&from[..source_depth.min(from.len())]);
                    let mut to_iv = vec![e];
                    to_iv.extend_from_slice(to);
                    pairs.insert((from_iv, to_iv));
                }
            }
        }
        let folded: BTreeMap<usize, _> = nest
            .dependences
            .iter()
            .filter(|d| d.sink as usize == sink && !d.across_entries)
            .map(|d| (d.source as usize, d))
            .collect();
        let sources: BTreeSet<usize> = expected.keys().chain(folded.keys()).copied().collect();
        for source in sources {
            let unit = format!(
                "{}: flow {} -> {}",
                nest.id,
                site_name(nest, source),
                site_name(nest, sink)
            );
            let empty = BTreeSet::new();
            let want = expected.get(&source).unwrap_or(&empty);
            let got = folded
                .get(&source)
                .map(|d| dependence_pairs(d))
                .unwrap_or_default();
            let common = common_loops(nest, source, sink);
            let extra = got.exact.difference(want).count();
            let count = got.exact.len() as u64 + got.inexact_events;
            let mut problems = Vec::new();
            if extra > 0 {
                problems.push(format!(
                    "{extra} pairs (source, sink) the model does not have, e.g. {}",
                    show(got.exact.difference(want))
                ));
            }
            if !may && count != want.len() as u64 {
                problems.push(format!(
                    "{count} pairs at run time, {} in the model, e.g. missing {}",
                    want.len(),
                    show(want.difference(&got.exact))
                ));
            }
            // Distances on the common loops, and the loop carrying each pair.
            let distance = |(from, to): &Pair| -> Vec<Option<i64>> {
                (1..=common.len()).map(|q| Some(to[q] - from[q])).collect()
            };
            let static_distances: BTreeSet<Vec<Option<i64>>> = want.iter().map(distance).collect();
            let mut folded_distances: Vec<Vec<Option<i64>>> = Vec::new();
            if let Some(d) = folded.get(&source) {
                if d.common as usize != common.len() + 1 {
                    problems.push(format!(
                        "the profile says {} common IV positions, the sites share {} loops",
                        d.common,
                        common.len()
                    ));
                }
                folded_distances = d
                    .distances
                    .iter()
                    .map(|v| v.iter().skip(1).copied().collect())
                    .collect();
            }
            if let [uniform] = static_distances.iter().collect::<Vec<_>>().as_slice() {
                if !may && folded_distances.iter().any(|v| v != *uniform) {
                    problems.push(format!(
                        "the model's distance is {uniform:?} everywhere, the profile's pieces say \
                         {folded_distances:?}"
                    ));
                }
            }
            for v in &folded_distances {
                if v.iter().all(Option::is_some) && !static_distances.contains(v) {
                    problems.push(format!(
                        "the profile's distance {v:?} is not among the model's {static_distances:?}"
                    ));
                }
            }
            let static_loops: BTreeSet<Option<usize>> = static_distances
                .iter()
                .map(|v| carrier(v).map(|q| common[q]))
                .collect();
            let folded_loops: BTreeSet<Option<usize>> = folded_distances
                .iter()
                .map(|v| carrier(v).map(|q| common[q]))
                .collect();
            let loops_agree = if may {
                folded_loops.is_subset(&static_loops)
            } else {
                folded_loops == static_loops
            };
            if !loops_agree {
                problems.push(format!(
                    "carried by {:?} in the model, by {:?} in the profile",
                    static_loops
                        .iter()
                        .map(|l| loop_name(*l))
                        .collect::<Vec<_>>(),
                    folded_loops
                        .iter()
                        .map(|l| loop_name(*l))
                        .collect::<Vec<_>>()
                ));
            }
            static_carriers.extend(static_loops.iter().flatten().map(|l| loop_name(Some(*l))));
            folded_carriers.extend(folded_loops.iter().flatten().map(|l| loop_name(Some(*l))));
            if problems.is_empty() {
                let mut line = format!("{unit}: {count} pairs agree");
                if may {
                    let _ = write!(
                        line,
                        " (a subset of the model's {}: a data-dependent guard)",
                        want.len()
                    );
                }
                let _ = write!(line, ", distances {folded_distances:?}");
                findings.compared.push(line);
            } else {
                findings
                    .disagreements
                    .push(format!("{unit}: {}", problems.join("; ")));
            }
        }
    }
    findings.compared.push(format!(
        "{}: loops carrying flow dependences: model {:?}, profile {:?}",
        nest.id, static_carriers, folded_carriers
    ));
    let carriers_agree = if any_may {
        folded_carriers.is_subset(&static_carriers)
    } else {
        folded_carriers == static_carriers
    };
    if !carriers_agree {
        findings.disagreements.push(format!(
            "{}: loops carrying flow dependences differ: model {static_carriers:?}, profile \
             {folded_carriers:?}",
            nest.id
        ));
    }
}
