//! The report as Markdown: one section per hot nest (see [`super::hot_nests`]).

use std::fmt::Write as _;

use super::{
    access_rows, carried, distance_text, distinct_distances, entries_text, function_name,
    hot_nests, location, percent, position_names, site_name, total_accesses, NestVerdict,
    HOT_NESTS,
};
use crate::profile::nest::NestProfile;
use crate::Profile;

/// The whole report; `name` names the profile.
pub fn render(profile: &Profile, name: &str) -> String {
    let nests = hot_nests(profile);
    let total = total_accesses(&nests);
    let mut text = format!("# polyrust-prof report: {name}\n\n");
    if nests.is_empty() {
        text.push_str(
            "The profile has no folded loop nests: build with `-mllvm \
             -polyrust-instrument=accesses` (and `-polyrust-profile-generate`) and re-run.\n",
        );
        return text;
    }
    let _ = writeln!(
        text,
        "{} loop nests, {} memory accesses. Flow dependences only (anti and output \
         dependences are assumed removable by renaming).\n",
        nests.len(),
        total
    );
    for (rank, (nest, verdict)) in nests.iter().take(HOT_NESTS).enumerate() {
        render_nest(&mut text, rank + 1, nest, verdict, total);
    }
    if nests.len() > HOT_NESTS {
        let rest: u64 = nests[HOT_NESTS..].iter().map(|(_, v)| v.accesses).sum();
        let _ = writeln!(
            text,
            "{} more nests with {} accesses ({}) are not shown.",
            nests.len() - HOT_NESTS,
            rest,
            percent(rest, total)
        );
    }
    text
}

fn render_nest(
    text: &mut String,
    rank: usize,
    nest: &NestProfile,
    verdict: &NestVerdict,
    total: u64,
) {
    let _ = writeln!(
        text,
        "## {rank}. `{}` at {}\n",
        function_name(nest),
        location(nest)
    );
    let _ = writeln!(
        text,
        "- nest `{}`, {}, {} accesses ({} of the profile){}",
        nest.id,
        entries_text(nest),
        verdict.accesses,
        percent(verdict.accesses, total),
        if nest.modelled {
            ", modelled by the compiler"
        } else {
            ""
        }
    );
    let _ = writeln!(
        text,
        "- **affine: {}** of the accesses are in pieces without ⊤, {}{}",
        percent(verdict.affine_events, verdict.events),
        match verdict.dependence_events {
            0 => "no dependence instances".to_string(),
            all => format!(
                "{} of the dependence instances",
                percent(verdict.affine_dependence_events, all)
            ),
        },
        if verdict.gave_up.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = verdict
                .gave_up
                .iter()
                .map(|&s| site_name(nest, s))
                .collect();
            format!(" (gave up folding: {})", names.join(", "))
        }
    );
    if nest.shadow_full || nest.dependences_dropped > 0 {
        let _ = writeln!(
            text,
            "- warning: dependences are incomplete ({}{})",
            if nest.shadow_full {
                "the shadow memory cap was reached"
            } else {
                ""
            },
            if nest.dependences_dropped > 0 {
                format!(
                    "{} events of dependences past the per-nest cap",
                    nest.dependences_dropped
                )
            } else {
                String::new()
            }
        );
    }
    let bands: Vec<String> = verdict
        .bands
        .iter()
        .map(|band| {
            let names: Vec<&str> = band.iter().map(|&s| verdict.loop_name(s)).collect();
            format!("({})", names.join(", "))
        })
        .collect();
    let _ = writeln!(
        text,
        "- permutable bands: {}",
        if bands.is_empty() {
            "none".to_string()
        } else {
            bands.join(", ")
        }
    );
    let _ = writeln!(text, "- **suggestion:** {}\n", verdict.suggestion);

    let _ = writeln!(
        text,
        "| loop | line | depth | iterations | parallel | carries |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|---|");
    for lp in &verdict.loops {
        let carries = carried(nest, lp);
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} |",
            lp.name,
            lp.line,
            lp.depth,
            lp.iterations,
            lp.parallel_text(),
            if carries.is_empty() {
                "–".to_string()
            } else {
                carries.join("; ")
            }
        );
    }
    text.push('\n');

    let within: Vec<usize> = (0..nest.dependences.len())
        .filter(|&d| !nest.dependences[d].across_entries)
        .collect();
    if !within.is_empty() {
        let _ = writeln!(
            text,
            "| dependence | over loops | distances | events | pieces |"
        );
        let _ = writeln!(text, "|---|---|---|---|---|");
        for d in within {
            let dependence = &nest.dependences[d];
            let names = position_names(nest, verdict, dependence.sink as usize);
            let over: Vec<&str> = names
                .iter()
                .skip(1)
                .take(dependence.common as usize - 1)
                .map(String::as_str)
                .collect();
            let distances: Vec<String> = distinct_distances(&dependence.distances)
                .into_iter()
                .map(|v| distance_text(v))
                .collect();
            let _ = writeln!(
                text,
                "| {} → {} | ({}) | {} | {} | {} |",
                site_name(nest, dependence.source as usize),
                site_name(nest, dependence.sink as usize),
                over.join(", "),
                distances.join(" "),
                dependence.stream.events,
                dependence.stream.pieces.len()
            );
        }
        text.push('\n');
    }
    let across: u64 = nest
        .dependences
        .iter()
        .filter(|d| d.across_entries)
        .map(|d| d.stream.events)
        .sum();
    if across > 0 {
        let _ = writeln!(text, "{across} reads saw a write of an earlier entry of the nest (carried by the entry, constrain no loop).\n");
    }

    let _ = writeln!(text, "| access | events | pieces | affine | strides (bytes per iteration) | domain of the first piece |");
    let _ = writeln!(text, "|---|---|---|---|---|---|");
    for row in access_rows(nest, verdict) {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} |",
            row.name, row.events, row.pieces, row.affine, row.strides, row.domain
        );
    }
    text.push('\n');
}
