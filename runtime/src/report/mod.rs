//! `polyrust-prof report`: what a profile with folded accesses (format 2) says about
//! each hot loop nest: whether its run was affine, which loops carry dependences,
//! which are parallel, which bands are permutable (so tilable), and a suggestion.
//! [`analysis`] computes the verdicts from the profile alone; [`markdown`] and
//! [`html`] render them (the page is self-contained, with inline SVG pictures).

pub mod analysis;
pub mod html;
pub mod markdown;
mod svg;

use crate::profile::nest::{NestProfile, SiteKind, SiteProfile};
use crate::Profile;

pub use analysis::{LoopVerdict, NestVerdict};

/// Most nests a report details; the rest are summed up in one line.
pub const HOT_NESTS: usize = 20;

/// The nests of `profile` by all their loads and stores (folded or only counted), most
/// first (ties by id), with verdicts: a nest entered very often ranks by what it did,
/// not by the few entries folded.
pub fn hot_nests(profile: &Profile) -> Vec<(&NestProfile, NestVerdict)> {
    let mut nests: Vec<(&NestProfile, NestVerdict)> = profile
        .nests
        .iter()
        .map(|nest| (nest, NestVerdict::of(nest, profile.static_facts(nest))))
        .collect();
    nests.sort_by(|a, b| {
        b.1.accesses
            .cmp(&a.1.accesses)
            .then_with(|| a.0.id.cmp(&b.0.id))
    });
    nests
}

/// All loads and stores of `nests`, folded or only counted: the whole of which each
/// nest's share is a part.
pub fn total_accesses(nests: &[(&NestProfile, NestVerdict)]) -> u64 {
    nests
        .iter()
        .map(|(_, v)| v.accesses)
        .fold(0, u64::saturating_add)
}

/// The name of the function of `nest` as its source spells it: see [`demangled`].
pub fn function_name(nest: &NestProfile) -> String {
    demangled(&nest.function)
}

/// An Itanium-mangled (C++) name demangled without its parameters and return type
/// (`single_iteration` for `_Z16single_iterationPfS_S_iifffff`); any other name, or
/// one that does not demangle, as it is.
pub fn demangled(name: &str) -> String {
    if !name.starts_with("_Z") {
        return name.to_string();
    }
    let options = cpp_demangle::DemangleOptions::new()
        .no_params()
        .no_return_type();
    cpp_demangle::Symbol::new(name.as_bytes())
        .ok()
        .and_then(|symbol| symbol.demangle_with_options(&options).ok())
        .unwrap_or_else(|| name.to_string())
}

/// `file:line in function`, with placeholders for what is unknown.
pub fn location(nest: &NestProfile) -> String {
    let file = if nest.file.is_empty() {
        "<unknown file>"
    } else {
        &nest.file
    };
    let function = if nest.function.is_empty() {
        "<unknown function>".to_string()
    } else {
        function_name(nest)
    };
    match nest.line {
        0 => format!("{file} in {function}"),
        line => format!("{file}:{line} in {function}"),
    }
}

/// `entered 3 times` or `entered 1000 times (the first 8 folded)`, with the thread
/// when it is not the first one, and how many iterations the plain copy ran.
pub fn entries_text(nest: &NestProfile) -> String {
    let thread = match nest.thread {
        0 => String::new(),
        thread => format!("in thread {thread}, "),
    };
    let estimated = if nest.plain_iterations > 0 {
        format!(
            "; {} iterations of its outermost loop ran uninstrumented, their accesses \
             estimated",
            nest.plain_iterations
        )
    } else {
        String::new()
    };
    if nest.folded_entries < nest.entries || nest.plain_iterations > 0 {
        format!(
            "{thread}entered {} times (the first {} folded{estimated})",
            nest.entries, nest.folded_entries
        )
    } else {
        format!("{thread}entered {} times", nest.entries)
    }
}

/// `load A`, `store C`, `loop i`, with `@line` when known.
pub fn site_name(nest: &NestProfile, index: usize) -> String {
    let Some(site) = nest.sites.get(index) else {
        return format!("site {index}");
    };
    let kind = match site.kind {
        SiteKind::Load => "load",
        SiteKind::Store => "store",
        SiteKind::Loop => "loop",
    };
    let name = if site.name.is_empty() {
        format!("#{index}")
    } else {
        site.name.clone()
    };
    match site.line {
        0 => format!("{kind} {name}"),
        line => format!("{kind} {name}@{line}"),
    }
}

/// Names of the IV positions of `site`: `entry`, then its loops.
pub fn position_names(nest: &NestProfile, verdict: &NestVerdict, site: usize) -> Vec<String> {
    std::iter::once("entry".to_string())
        .chain(
            nest.loops_around(site)
                .into_iter()
                .map(|l| verdict.loop_name(l).to_string()),
        )
        .collect()
}

/// `(0, 0, 1)` over the loops (entry left out), `*` for ⊤.
pub fn distance_text(distance: &[Option<i64>]) -> String {
    let parts: Vec<String> = distance
        .iter()
        .skip(1)
        .map(|c| c.map_or("*".to_string(), |x| x.to_string()))
        .collect();
    format!("({})", parts.join(", "))
}

/// The distinct distance vectors of a dependence, in order of first appearance.
pub fn distinct_distances(distances: &[Vec<Option<i64>>]) -> Vec<&Vec<Option<i64>>> {
    let mut seen: Vec<&Vec<Option<i64>>> = Vec::new();
    for distance in distances {
        if !seen.contains(&distance) {
            seen.push(distance);
        }
    }
    seen
}

/// `a ≤ i ≤ b` per position over a piece's bounding box (names from `names`).
pub fn box_text(lower: &[i64], upper: &[i64], names: &[String]) -> String {
    lower
        .iter()
        .zip(upper)
        .zip(names)
        .map(|((low, high), name)| {
            if low == high {
                format!("{name} = {low}")
            } else {
                format!("{low} ≤ {name} ≤ {high}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `load C → store C`, per dependence loop `lp` carries, then each value the compiler
/// carries across it in a register.
pub fn carried(nest: &NestProfile, lp: &LoopVerdict) -> Vec<String> {
    let through_memory = lp.carries.iter().filter_map(|&d| {
        let dependence = nest.dependences.get(d)?;
        let update = if lp.memory_reductions.contains(&d) {
            " (a reduction)"
        } else {
            ""
        };
        Some(format!(
            "{} → {}{update}",
            site_name(nest, dependence.source as usize),
            site_name(nest, dependence.sink as usize)
        ))
    });
    let reductions = lp.reductions.iter().filter(|r| !r.in_memory).map(|r| {
        // "an argmin/argmax reduction", "a + reduction".
        let article = if r.operation.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!(
            "{} ({article} {} reduction in a register)",
            analysis::value_name(&r.name),
            r.operation
        )
    });
    let recurrences = lp.recurrences.iter().map(|name| {
        format!(
            "{} (carried in a register to the next iteration)",
            analysis::value_name(name)
        )
    });
    let searches = lp.searches.iter().map(|name| {
        format!(
            "its exit depends on {} (a search)",
            analysis::value_name(name)
        )
    });
    through_memory
        .chain(reductions)
        .chain(recurrences)
        .chain(searches)
        .collect()
}

/// One row of a nest's table of accesses, as both renderings show it.
pub struct AccessRow {
    pub name: String,
    pub events: u64,
    pub pieces: usize,
    /// Share of the events in affine pieces.
    pub affine: String,
    /// `i: 768, j: 8` (⊤ where the address is not affine along the loop).
    pub strides: String,
    /// The first piece's bounding box.
    pub domain: String,
}

/// The rows of the table of `nest`'s loads and stores: one per source access. Copies
/// the compiler made of one access (unrolled, versioned: the same kind, name, line,
/// column and depth) share a row, their events and pieces summed.
pub fn access_rows(nest: &NestProfile, verdict: &NestVerdict) -> Vec<AccessRow> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (index, site) in nest.sites.iter().enumerate() {
        if site.kind == SiteKind::Loop {
            continue;
        }
        let same = |other: &SiteProfile| {
            site.line != 0
                && (
                    other.kind,
                    &other.name,
                    other.line,
                    other.column,
                    other.depth,
                ) == (site.kind, &site.name, site.line, site.column, site.depth)
        };
        match groups.iter_mut().find(|g| same(&nest.sites[g[0]])) {
            Some(group) => group.push(index),
            None => groups.push(vec![index]),
        }
    }
    groups
        .iter()
        .map(|group| access_row(nest, verdict, group))
        .collect()
}

/// The row of the copies `group` of one access (site indices, first one first).
fn access_row(nest: &NestProfile, verdict: &NestVerdict, group: &[usize]) -> AccessRow {
    let first = group[0];
    let names = position_names(nest, verdict, first);
    let sites = || group.iter().map(|&s| &nest.sites[s]);
    let mut strides: Vec<String> = Vec::new();
    for site in sites() {
        let text: Vec<String> = site
            .strides
            .iter()
            .zip(&names)
            .skip(1)
            .map(|(stride, name)| {
                format!(
                    "{name}: {}",
                    stride.map_or("⊤".to_string(), |s| s.to_string())
                )
            })
            .collect();
        let text = text.join(", ");
        if !strides.contains(&text) {
            strides.push(text);
        }
    }
    let events = sites()
        .map(|s| s.stream.events)
        .fold(0, u64::saturating_add);
    let affine = sites()
        .map(|s| s.stream.affine_events())
        .fold(0, u64::saturating_add);
    let copies = match group.len() {
        1 => String::new(),
        n => format!(" ({n} copies)"),
    };
    AccessRow {
        name: format!("{}{copies}", site_name(nest, first)),
        events,
        pieces: sites().map(|s| s.stream.pieces.len()).sum(),
        affine: percent(affine, events),
        strides: strides.join(" or "),
        domain: nest.sites[first]
            .stream
            .pieces
            .first()
            .map(|p| box_text(&p.lower, &p.upper, &names))
            .unwrap_or_default(),
    }
}

pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "–".into();
    }
    format!("{:.1}%", part as f64 * 100.0 / whole as f64)
}

#[cfg(test)]
mod tests;
