//! The two pictures of the HTML report, as inline SVG: the dependence distance vectors
//! of a nest on the plane of its two innermost loops, and the folded domain of its
//! deepest access projected on that plane. Strings are escaped by the caller's
//! [`escape`]; numbers are the only other content.

use std::fmt::Write as _;

use super::NestVerdict;
use crate::profile::nest::{NestProfile, SiteKind};

const SIZE: f64 = 260.0;
const MARGIN: f64 = 34.0;

/// Text safe inside HTML and SVG elements and attributes.
pub fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            _ => escaped.push(c),
        }
    }
    escaped
}

/// The deepest chain of loops of the nest (loop-site indices, outermost first).
pub fn deepest_chain(nest: &NestProfile) -> Vec<usize> {
    (0..nest.sites.len())
        .filter(|&s| nest.sites[s].kind == SiteKind::Loop)
        .map(|s| nest.loops_around(s))
        .max_by_key(|chain| chain.len())
        .unwrap_or_default()
}

fn open(text: &mut String, title: &str) {
    let full = SIZE + 2.0 * MARGIN;
    let _ = write!(
        text,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{full}" height="{full}" viewBox="0 0 {full} {full}" role="img"><title>{}</title><rect x="0" y="0" width="{full}" height="{full}" fill="#fbfcfe" stroke="#d0d7e2"/>"##,
        escape(title)
    );
}

fn axes(text: &mut String, x_name: &str, y_name: &str) {
    let end = MARGIN + SIZE;
    let _ = write!(
        text,
        r##"<text x="{}" y="{}" font-size="13" text-anchor="middle" fill="#334">{} →</text>"##,
        MARGIN + SIZE / 2.0,
        end + 24.0,
        escape(x_name)
    );
    if !y_name.is_empty() {
        let _ = write!(
            text,
            r##"<text x="{}" y="{}" font-size="13" text-anchor="middle" fill="#334">{}</text><text x="{}" y="{}" font-size="13" text-anchor="middle" fill="#334">↓</text>"##,
            MARGIN / 2.0,
            MARGIN + SIZE / 2.0 - 4.0,
            escape(y_name),
            MARGIN / 2.0,
            MARGIN + SIZE / 2.0 + 12.0
        );
    }
}

/// Distance vectors of the within-entry dependences along the nest's two innermost
/// loops, as arrows from the origin; ⊤ components are listed below instead.
pub fn distances(nest: &NestProfile, verdict: &NestVerdict) -> Option<String> {
    let chain = deepest_chain(nest);
    if chain.is_empty() {
        return None;
    }
    let (x_loop, y_loop) = match chain.len() {
        1 => (chain[0], None),
        n => (chain[n - 1], Some(chain[n - 2])),
    };
    let x_position = chain.len(); // distance index (entry is 0)
    let mut arrows: Vec<(i64, i64, String)> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for dependence in nest.dependences.iter().filter(|d| !d.across_entries) {
        let sink_chain = nest.loops_around(dependence.sink as usize);
        let common = dependence.common as usize;
        if common <= x_position || sink_chain.get(..chain.len()) != Some(&chain[..]) {
            continue;
        }
        for distance in super::distinct_distances(&dependence.distances) {
            let label = format!(
                "{} {}",
                nest.sites[dependence.sink as usize].name,
                super::distance_text(distance)
            );
            let x = distance[x_position];
            let y = if y_loop.is_some() {
                distance[x_position - 1]
            } else {
                Some(0)
            };
            match (x, y) {
                (Some(x), Some(y)) => {
                    if !arrows.iter().any(|a| a.0 == x && a.1 == y) {
                        arrows.push((x, y, label));
                    }
                }
                _ => unknown.push(label),
            }
        }
    }
    let reach = arrows
        .iter()
        .map(|a| a.0.unsigned_abs().max(a.1.unsigned_abs()))
        .max()
        .unwrap_or(1)
        .clamp(1, 1 << 20) as f64;
    let half = reach.ceil().max(2.0);
    let scale = SIZE / 2.0 / (half + 0.5);
    let center = MARGIN + SIZE / 2.0;
    let mut text = String::new();
    open(&mut text, "dependence distance vectors");
    let _ = write!(
        text,
        r##"<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#c0392b"/></marker></defs>"##
    );
    // Grid of integer distances, when it is small enough to read.
    if half <= 8.0 {
        for gx in -(half as i64)..=half as i64 {
            for gy in -(half as i64)..=half as i64 {
                let _ = write!(
                    text,
                    r##"<circle cx="{:.1}" cy="{:.1}" r="1.6" fill="#b8c2d3"/>"##,
                    center + gx as f64 * scale,
                    center + gy as f64 * scale
                );
            }
        }
    }
    let _ = write!(
        text,
        r##"<line x1="{m}" y1="{center}" x2="{e}" y2="{center}" stroke="#9aa7bb"/><line x1="{center}" y1="{m}" x2="{center}" y2="{e}" stroke="#9aa7bb"/>"##,
        m = MARGIN,
        e = MARGIN + SIZE
    );
    for (index, (x, y, label)) in arrows.iter().enumerate() {
        let (tx, ty) = (center + *x as f64 * scale, center + *y as f64 * scale);
        if *x == 0 && *y == 0 {
            let _ = write!(
                text,
                r##"<circle cx="{center}" cy="{center}" r="6" fill="none" stroke="#c0392b" stroke-width="2"/>"##
            );
        } else {
            let _ = write!(
                text,
                r##"<line x1="{center}" y1="{center}" x2="{tx:.1}" y2="{ty:.1}" stroke="#c0392b" stroke-width="2.5" marker-end="url(#arrow)"/>"##
            );
        }
        let _ = write!(
            text,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#222">{}</text>"##,
            MARGIN + 4.0,
            MARGIN + 14.0 + 14.0 * index as f64,
            escape(label)
        );
    }
    for (index, label) in unknown.iter().enumerate().take(4) {
        let _ = write!(
            text,
            r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#8e44ad">⊤: {}</text>"##,
            MARGIN + 4.0,
            MARGIN + SIZE - 4.0 - 14.0 * index as f64,
            escape(label)
        );
    }
    let y_name = y_loop.map_or("", |l| verdict.loop_name(l));
    axes(&mut text, verdict.loop_name(x_loop), y_name);
    text.push_str("</svg>");
    Some(text)
}

/// Whether every vertex lies in the piece's bounding box (true in profiles the runtime
/// writes; regeneration stays inside the box only then).
fn vertices_fit_box(piece: &crate::profile::nest::PieceProfile) -> bool {
    piece.vertices.iter().all(|vertex| {
        vertex
            .iter()
            .zip(piece.lower.iter().zip(&piece.upper))
            .all(|(x, (low, high))| low <= x && x <= high)
    })
}

/// Convex hull (monotone chain) of 2-D points, counter-clockwise.
fn hull(mut points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    points.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    points.dedup();
    if points.len() < 3 {
        return points;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut lower: Vec<(f64, f64)> = Vec::new();
    for &p in &points {
        while lower.len() >= 2 && cross(lower[lower.len() - 2], lower[lower.len() - 1], p) <= 0.0 {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<(f64, f64)> = Vec::new();
    for &p in points.iter().rev() {
        while upper.len() >= 2 && cross(upper[upper.len() - 2], upper[upper.len() - 1], p) <= 0.0 {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// The folded domain of the deepest access, on the plane of its two innermost loops:
/// one polygon per piece (green: affine labels, orange: ⊤ or give-up box), and the
/// lattice points when there are few.
pub fn domain(nest: &NestProfile, verdict: &NestVerdict) -> Option<String> {
    let (site_index, site) = nest
        .sites
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind != SiteKind::Loop && s.depth >= 2)
        .max_by_key(|(i, s)| (s.depth, s.stream.events, std::cmp::Reverse(*i)))?;
    let dims = site.depth as usize + 1;
    let (px, py) = (dims - 1, dims - 2);
    let pieces = &site.stream.pieces;
    let low_x = pieces.iter().map(|p| p.lower[px]).min()?;
    let high_x = pieces.iter().map(|p| p.upper[px]).max()?;
    let low_y = pieces.iter().map(|p| p.lower[py]).min()?;
    let high_y = pieces.iter().map(|p| p.upper[py]).max()?;
    // f64 throughout: a hostile profile's coordinates may be anywhere in i64.
    let span = ((high_x as f64 - low_x as f64).max(high_y as f64 - low_y as f64)).max(1.0);
    let scale = (SIZE - 16.0) / span;
    let at = |x: i64, y: i64| {
        (
            MARGIN + 8.0 + (x as f64 - low_x as f64) * scale,
            MARGIN + 8.0 + (y as f64 - low_y as f64) * scale,
        )
    };
    let mut text = String::new();
    open(&mut text, "folded domain");
    for piece in pieces.iter().take(256) {
        let corners: Vec<(f64, f64)> = if piece.vertices.is_empty() {
            vec![
                at(piece.lower[px], piece.lower[py]),
                at(piece.upper[px], piece.lower[py]),
                at(piece.upper[px], piece.upper[py]),
                at(piece.lower[px], piece.upper[py]),
            ]
        } else {
            piece.vertices.iter().map(|v| at(v[px], v[py])).collect()
        };
        let outline = hull(corners);
        let (fill, stroke) = if piece.is_affine() {
            ("#d5f0dd", "#27ae60")
        } else {
            ("#fde3c8", "#e67e22")
        };
        let points: Vec<String> = outline
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = write!(
            text,
            r##"<polygon points="{}" fill="{fill}" fill-opacity="0.8" stroke="{stroke}" stroke-width="2" stroke-linejoin="round"/>"##,
            points.join(" ")
        );
    }
    // Lattice points of the first entry's projection, if few enough to see.
    let extent = |low: i64, high: i64| (i128::from(high) - i128::from(low) + 1).max(0);
    if extent(low_x, high_x) * extent(low_y, high_y) <= 1600 {
        let mut drawn = std::collections::BTreeSet::new();
        for piece in pieces.iter().filter(|p| !p.vertices.is_empty()).take(64) {
            let level = piece.vertices.len().trailing_zeros() as usize;
            let polyhedron = crate::fold::polyhedron::Polyhedron {
                level,
                dims,
                vertices: piece.vertices.concat(),
                labels: Vec::new(),
                count: piece.events,
            };
            // Regenerate only what the bounding box says is small: the vertices of a
            // hostile profile may describe far more points than its counts claim.
            let volume = piece
                .lower
                .iter()
                .zip(&piece.upper)
                .try_fold(1i128, |volume, (&low, &high)| {
                    volume.checked_mul(extent(low, high))
                });
            if volume.is_none_or(|v| v > 100_000) || !vertices_fit_box(piece) {
                continue;
            }
            for point in polyhedron.points() {
                if drawn.insert((point[px], point[py])) {
                    let (x, y) = at(point[px], point[py]);
                    let _ = write!(
                        text,
                        r##"<circle cx="{x:.1}" cy="{y:.1}" r="2" fill="#1e5631"/>"##
                    );
                }
            }
        }
    }
    let names = super::position_names(nest, verdict, site_index);
    let _ = write!(
        text,
        r##"<text x="{:.1}" y="{:.1}" font-size="11" fill="#334">{} ({} piece{})</text>"##,
        MARGIN,
        MARGIN - 10.0,
        escape(&super::site_name(nest, site_index)),
        pieces.len(),
        if pieces.len() == 1 { "" } else { "s" }
    );
    axes(&mut text, &names[px], &names[py]);
    text.push_str("</svg>");
    Some(text)
}
