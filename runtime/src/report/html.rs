//! The report as one self-contained HTML page (no script, no external resource): a
//! card per hot nest with its verdicts, tables, and two inline SVG pictures (the
//! dependence distance vectors and the folded domain of its deepest access).

use std::fmt::Write as _;

use super::svg::{self, escape};
use super::{
    access_rows, carried, distance_text, distinct_distances, entries_text, function_name,
    hot_nests, location, percent, site_name, total_accesses, NestVerdict, HOT_NESTS,
};
use crate::profile::nest::NestProfile;
use crate::Profile;

const STYLE: &str = r#"
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0; background: #eef1f6; color: #1d2433; }
header { background: #1f3a5f; color: white; padding: 18px 32px; }
header h1 { margin: 0; font-size: 22px; font-weight: 600; }
header p { margin: 4px 0 0; color: #c9d6ea; font-size: 13px; }
main { padding: 20px 32px; }
section.nest { background: white; border-radius: 10px; box-shadow: 0 1px 4px rgba(20,40,80,.12); padding: 18px 22px; margin-bottom: 22px; }
h2 { margin: 0 0 6px; font-size: 18px; }
h2 code { background: #eef1f6; padding: 1px 6px; border-radius: 4px; }
.where { color: #56627a; font-size: 13px; margin-bottom: 10px; }
.badges span { display: inline-block; margin: 0 6px 6px 0; padding: 3px 10px; border-radius: 12px; font-size: 12px; font-weight: 600; }
.good { background: #d5f0dd; color: #1e5631; } .warn { background: #fde3c8; color: #7a3e00; } .info { background: #dde7f7; color: #1f3a5f; }
.suggestion { border-left: 4px solid #2e86de; background: #f2f7fd; padding: 8px 12px; margin: 10px 0 14px; font-size: 14px; }
.row { display: flex; gap: 22px; flex-wrap: wrap; align-items: flex-start; }
.tables { flex: 1 1 560px; min-width: 480px; }
.figures { display: flex; gap: 18px; flex-wrap: wrap; }
figure { margin: 0; text-align: center; font-size: 12px; color: #56627a; }
table { border-collapse: collapse; margin: 6px 0 14px; font-size: 12.5px; width: 100%; }
th { background: #f0f3f8; text-align: left; font-weight: 600; }
th, td { border: 1px solid #dbe1ea; padding: 4px 8px; }
td.yes { color: #1e5631; font-weight: 600; } td.no { color: #a0410d; font-weight: 600; }
"#;

/// The whole page; `name` names the profile.
pub fn render(profile: &Profile, name: &str) -> String {
    let nests = hot_nests(profile);
    let total = total_accesses(&nests);
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>polyrust-prof report: {}</title><style>{STYLE}</style></head><body>",
        escape(name)
    );
    let _ = write!(
        page,
        "<header><h1>polyrust-prof report</h1><p>{} · {} loop nests · {} memory accesses · flow dependences only</p></header><main>",
        escape(name),
        nests.len(),
        total
    );
    if nests.is_empty() {
        page.push_str("<section class=\"nest\">The profile has no folded loop nests: build with <code>-mllvm -polyrust-instrument=accesses</code> and re-run.</section>");
    }
    for (rank, (nest, verdict)) in nests.iter().take(HOT_NESTS).enumerate() {
        render_nest(&mut page, rank + 1, nest, verdict, total);
    }
    page.push_str("</main></body></html>\n");
    page
}

fn render_nest(
    page: &mut String,
    rank: usize,
    nest: &NestProfile,
    verdict: &NestVerdict,
    total: u64,
) {
    let _ = write!(
        page,
        "<section class=\"nest\"><h2>{rank}. <code>{}</code></h2><div class=\"where\">{} · nest {} · {} · {} accesses ({} of the profile)</div>",
        escape(&function_name(nest)),
        escape(&location(nest)),
        escape(&nest.id),
        entries_text(nest),
        verdict.accesses,
        percent(verdict.accesses, total)
    );
    page.push_str("<div class=\"badges\">");
    let share = verdict.affine_share();
    let _ = write!(
        page,
        "<span class=\"{}\">affine {}</span>",
        if share >= 0.9 { "good" } else { "warn" },
        percent(verdict.affine_events, verdict.events)
    );
    if verdict.dependence_events > 0 {
        let _ = write!(
            page,
            "<span>dependences affine {}</span>",
            percent(verdict.affine_dependence_events, verdict.dependence_events)
        );
    }
    let parallel: Vec<&str> = verdict
        .loops
        .iter()
        .filter(|l| l.parallel)
        .map(|l| l.name.as_str())
        .collect();
    if !parallel.is_empty() {
        let _ = write!(
            page,
            "<span class=\"good\">parallel: {}</span>",
            escape(&parallel.join(", "))
        );
    }
    let reductions: Vec<&str> = verdict
        .loops
        .iter()
        .filter(|l| l.is_reduction())
        .map(|l| l.name.as_str())
        .collect();
    if !reductions.is_empty() {
        let _ = write!(
            page,
            "<span class=\"info\">reduction: {}</span>",
            escape(&reductions.join(", "))
        );
    }
    for band in &verdict.bands {
        let names: Vec<&str> = band.iter().map(|&s| verdict.loop_name(s)).collect();
        let _ = write!(
            page,
            "<span class=\"info\">permutable band ({})</span>",
            escape(&names.join(", "))
        );
    }
    if !verdict.gave_up.is_empty() {
        let _ = write!(
            page,
            "<span class=\"warn\">folding gave up on {} site(s)</span>",
            verdict.gave_up.len()
        );
    }
    if nest.shadow_full || nest.dependences_dropped > 0 {
        page.push_str("<span class=\"warn\">dependences incomplete (caps reached)</span>");
    }
    page.push_str("</div>");
    let _ = write!(
        page,
        "<div class=\"suggestion\"><b>Suggestion:</b> {}</div>",
        escape(&verdict.suggestion)
    );

    page.push_str("<div class=\"row\"><div class=\"tables\">");
    page.push_str("<table><tr><th>loop</th><th>line</th><th>depth</th><th>iterations</th><th>parallel</th><th>carries</th></tr>");
    for lp in &verdict.loops {
        let carries = carried(nest, lp);
        let _ = write!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>",
            escape(&lp.name),
            lp.line,
            lp.depth,
            lp.iterations,
            if lp.parallel { "yes" } else { "no" },
            escape(&lp.parallel_text()),
            escape(&if carries.is_empty() { "–".to_string() } else { carries.join("; ") })
        );
    }
    page.push_str("</table>");

    let within: Vec<_> = nest
        .dependences
        .iter()
        .filter(|d| !d.across_entries)
        .collect();
    if !within.is_empty() {
        page.push_str(
            "<table><tr><th>dependence</th><th>distances</th><th>events</th><th>pieces</th></tr>",
        );
        for dependence in within {
            let distances: Vec<String> = distinct_distances(&dependence.distances)
                .into_iter()
                .map(|v| distance_text(v))
                .collect();
            let _ = write!(
                page,
                "<tr><td>{} → {}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&site_name(nest, dependence.source as usize)),
                escape(&site_name(nest, dependence.sink as usize)),
                escape(&distances.join(" ")),
                dependence.stream.events,
                dependence.stream.pieces.len()
            );
        }
        page.push_str("</table>");
    }

    page.push_str("<table><tr><th>access</th><th>events</th><th>pieces</th><th>affine</th><th>strides (bytes)</th><th>domain (first piece)</th></tr>");
    for row in access_rows(nest, verdict) {
        let _ = write!(
            page,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&row.name),
            row.events,
            row.pieces,
            row.affine,
            escape(&row.strides),
            escape(&row.domain)
        );
    }
    page.push_str("</table></div><div class=\"figures\">");
    if let Some(picture) = svg::distances(nest, verdict) {
        let _ = write!(page, "<figure>{picture}<figcaption>dependence distances (innermost two loops)</figcaption></figure>");
    }
    if let Some(picture) = svg::domain(nest, verdict) {
        let _ = write!(page, "<figure>{picture}<figcaption>folded domain of the deepest access</figcaption></figure>");
    }
    page.push_str("</div></div></section>");
}
