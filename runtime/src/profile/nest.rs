//! The part of a profile written under `-polyrust-instrument=accesses` (format version
//! 2): per instrumented loop nest, the folded iteration domains and address functions
//! of its sites, and its data-flow dependences as folded polyhedra with their distance
//! vectors. IV positions are outermost first; position 0 is the nest's entry number,
//! position q ≥ 1 the counter of the site's enclosing loop at depth q.
//!
//! A label coefficient (or constant) of `null` is ⊤: not affine along that loop.

use serde::{Deserialize, Serialize};

use crate::fold::{Coefficient, Folded, LabelOutput, Piece};

/// Most sites of one nest (the ABI's limit).
pub const MAX_SITES: usize = 4096;
/// Deepest site of one nest (the ABI's limit); IVs have one position more.
pub const MAX_DEPTH: usize = 16;
/// Most pieces one stream may hold in a profile.
pub const MAX_PIECES: usize = 4096;
/// Most dependences one nest may hold in a profile.
pub const MAX_DEPENDENCES: usize = 65_536;

/// What a site is.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SiteKind {
    Load,
    Store,
    /// A loop header: one event per iteration, no label.
    Loop,
}

/// One instrumented loop nest of one run.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct NestProfile {
    pub id: String,
    pub function: String,
    pub file: String,
    pub line: u32,
    pub module_hash: String,
    /// Whether the compiler's detection accepted the nest (as part of a SCoP).
    pub modelled: bool,
    /// The thread whose executions were folded: each thread's are folded apart, so a
    /// nest run by several threads appears once per thread (numbered from 0 in the
    /// order of their first instrumented call).
    pub thread: u64,
    /// How many times the nest was entered.
    pub entries: u64,
    /// How many of the first entries were folded (the runtime folds at most
    /// `POLYRUST_FOLD_ENTRIES` entries per nest, then only counts).
    pub folded_entries: u64,
    /// Loads and stores of the later entries, counted but not folded (those the plain
    /// copy made: estimated, see `plain_iterations`).
    pub unfolded_accesses: u64,
    /// Iterations of the outermost loop run in the nest's plain copy (without
    /// instrumentation: entries past the folded ones, and the rest of the entry in
    /// which the nest reached its budget of folded events); their loads and stores are
    /// estimated at the folded iterations' mean. Absent in profiles without any.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub plain_iterations: u64,
    pub sites: Vec<SiteProfile>,
    pub dependences: Vec<DependenceProfile>,
    /// Whether the shadow memory reached its cap: loads of addresses past it found no
    /// writer, so dependences through them are missing.
    pub shadow_full: bool,
    /// Dependence events dropped because the nest had too many distinct dependences.
    pub dependences_dropped: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One site (a load, a store or a loop header) and its folded stream.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SiteProfile {
    pub kind: SiteKind,
    /// Loops around the site (a loop header: its own depth).
    pub depth: u32,
    /// Bytes accessed (0 for a loop).
    pub size: u32,
    pub line: u32,
    pub column: u32,
    /// Index of the innermost loop-header site around it (for a loop: its parent).
    pub parent_loop: Option<u32>,
    pub name: String,
    pub stream: FoldedStream,
    /// Per IV position: the byte stride of the address along that loop when every
    /// affine piece agrees on it, `null` when not affine along it (or pieces differ).
    /// Empty for loops.
    pub strides: Vec<Option<i64>>,
}

/// A folded stream: its pieces and how it went.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct FoldedStream {
    pub events: u64,
    /// Whether the stream gave up geometry (one box, every label ⊤).
    pub gave_up: bool,
    pub pieces: Vec<PieceProfile>,
}

/// One folded piece.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct PieceProfile {
    pub events: u64,
    /// Whether the piece is an exact polyhedron whose labels have no ⊤ (its points and
    /// labels are regenerated exactly).
    pub affine: bool,
    /// The bounding box of the piece, per IV position.
    pub lower: Vec<i64>,
    pub upper: Vec<i64>,
    /// The 2^level vertices of the elementary polyhedron (vertex k and k + 2^(level−1)
    /// are joined along the outermost level of the piece); empty for a give-up box.
    pub vertices: Vec<Vec<i64>>,
    /// One per label output (an address; or a dependence's source IV positions).
    pub labels: Vec<AffineLabel>,
}

/// `constant + Σ coefficients[q]·iv[q]`; `null` entries are ⊤.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct AffineLabel {
    pub constant: Option<i64>,
    pub coefficients: Vec<Option<i64>>,
}

/// Data flow from the last write by `source` to a read by `sink`: points are the
/// sink's IVs, labels the source's IV positions (one output each).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct DependenceProfile {
    pub source: u32,
    pub sink: u32,
    /// Whether the write happened in an earlier entry of the nest than the read; such
    /// dependences are carried by the entry and constrain no loop of the nest.
    pub across_entries: bool,
    /// IV positions both sites share: the entry and their common loops.
    pub common: u32,
    pub stream: FoldedStream,
    /// Per piece: sink − source per common position, `null` where that is not a
    /// constant (the label is not the sink's IV plus a constant there).
    pub distances: Vec<Vec<Option<i64>>>,
}

impl AffineLabel {
    fn from_output(output: &LabelOutput) -> AffineLabel {
        let constant = i64::try_from(output.remaining).ok().filter(|_| {
            output.is_affine() || output.coefficients.iter().any(|c| *c != Coefficient::Top)
        });
        AffineLabel {
            constant,
            coefficients: output
                .coefficients
                .iter()
                .map(|c| match c {
                    Coefficient::Known(c) => i64::try_from(*c).ok(),
                    Coefficient::Bottom => Some(0),
                    Coefficient::Top => None,
                })
                .collect(),
        }
    }

    /// The label's value at `point` (IV positions), `None` where it has a ⊤ or
    /// overflows.
    pub fn at(&self, point: &[i64]) -> Option<i64> {
        let mut value = i128::from(self.constant?);
        for (coefficient, x) in self.coefficients.iter().zip(point) {
            value += i128::from((*coefficient)?) * i128::from(*x);
        }
        i64::try_from(value).ok()
    }

    /// Whether the constant and every coefficient are known.
    pub fn is_affine(&self) -> bool {
        self.constant.is_some() && self.coefficients.iter().all(Option::is_some)
    }
}

impl PieceProfile {
    fn from_piece(piece: &Piece) -> PieceProfile {
        let mut profile = PieceProfile {
            events: piece.count,
            affine: false,
            lower: piece.lower.clone(),
            upper: piece.upper.clone(),
            vertices: piece.vertices.clone(),
            labels: piece.labels.iter().map(AffineLabel::from_output).collect(),
        };
        // From what is written, not from the fold: a coefficient or constant beyond
        // i64 is written as ⊤, and a reader checks `affine` against the labels.
        profile.affine = profile.is_affine();
        profile
    }

    /// The IV points of the piece, regenerated from its vertices (those the stream
    /// folded into it); `None` for a give-up box, whose points are not known, or for
    /// vertices that do not form an elementary polyhedron.
    pub fn points(&self) -> Option<Vec<Vec<i64>>> {
        let count = self.vertices.len();
        let dims = self.lower.len();
        if count == 0 || !count.is_power_of_two() || self.vertices.iter().any(|v| v.len() != dims) {
            return None;
        }
        let level = count.trailing_zeros() as usize;
        if level > dims {
            return None;
        }
        let mut points = Vec::new();
        crate::fold::polyhedron::regenerate(&self.vertices, level, dims, &mut points);
        Some(points)
    }

    /// Whether the piece is an exact polyhedron with affine labels only (what
    /// `affine` says in a valid profile).
    pub fn is_affine(&self) -> bool {
        !self.vertices.is_empty() && self.labels.iter().all(AffineLabel::is_affine)
    }
}

impl FoldedStream {
    pub fn from_folded(folded: &Folded) -> FoldedStream {
        let mut pieces: Vec<PieceProfile> =
            folded.pieces.iter().map(PieceProfile::from_piece).collect();
        // Canonical order: by bounding box (deterministic whatever the fold order).
        pieces.sort_by(|a, b| (&a.lower, &a.upper).cmp(&(&b.lower, &b.upper)));
        pieces.truncate(MAX_PIECES);
        FoldedStream {
            events: folded.events,
            gave_up: folded.gave_up,
            pieces,
        }
    }

    /// Events in pieces without ⊤ (the paper's %A numerator).
    pub fn affine_events(&self) -> u64 {
        self.pieces
            .iter()
            .filter(|piece| piece.is_affine())
            .map(|piece| piece.events)
            .fold(0u64, u64::saturating_add)
    }

    /// Per IV position, the coefficient of label output `output` when every affine
    /// piece has the same known one (and at least one piece exists).
    pub fn common_coefficients(&self, output: usize, dims: usize) -> Vec<Option<i64>> {
        (0..dims)
            .map(|q| {
                let mut seen: Option<i64> = None;
                for piece in &self.pieces {
                    let c = piece.labels.get(output)?.coefficients.get(q).copied()??;
                    // A loop that ran once in a piece says nothing about its stride.
                    if piece.lower.get(q) == piece.upper.get(q) {
                        continue;
                    }
                    if seen.is_some_and(|s| s != c) {
                        return None;
                    }
                    seen = Some(c);
                }
                seen
            })
            .collect()
    }
}

/// Sink − source per common position of one dependence piece: a constant where the
/// source position is the sink position plus a constant over the piece (its
/// coefficient is 1 along that position and 0 along every other position the piece
/// varies in), `None` otherwise.
pub fn distance_vector(piece: &PieceProfile, common: usize) -> Vec<Option<i64>> {
    (0..common)
        .map(|q| {
            let label = piece.labels.get(q)?;
            let anchor = piece.vertices.first()?;
            let mut source_at_anchor = label.constant? as i128;
            for (position, coefficient) in label.coefficients.iter().enumerate() {
                let varies = piece.lower.get(position) != piece.upper.get(position);
                let c = (*coefficient)?;
                if varies && c != i64::from(position == q) {
                    return None;
                }
                source_at_anchor += c as i128 * *anchor.get(position)? as i128;
            }
            i64::try_from(*anchor.get(q)? as i128 - source_at_anchor).ok()
        })
        .collect()
}

impl NestProfile {
    /// Events of every load and store site, folded or only counted.
    pub fn access_events(&self) -> u64 {
        self.sites
            .iter()
            .filter(|site| site.kind != SiteKind::Loop)
            .map(|site| site.stream.events)
            .fold(self.unfolded_accesses, u64::saturating_add)
    }

    /// The loop-header sites around `site`, outermost first (empty if the chain is
    /// broken, which validation refuses).
    pub fn loops_around(&self, site: usize) -> Vec<usize> {
        let mut chain = Vec::new();
        let Some(first) = self.sites.get(site) else {
            return chain;
        };
        let mut next = if first.kind == SiteKind::Loop {
            Some(site as u32)
        } else {
            first.parent_loop
        };
        while let Some(index) = next {
            if chain.len() > MAX_DEPTH || chain.contains(&(index as usize)) {
                return Vec::new();
            }
            chain.push(index as usize);
            next = self.sites.get(index as usize).and_then(|s| s.parent_loop);
        }
        chain.reverse();
        chain
    }

    /// The first rule of the format this nest breaks, if any.
    pub fn validate(&self) -> Result<(), String> {
        let id = &self.id;
        if self.folded_entries > self.entries {
            return Err(format!(
                "nest '{id}' folded {} entries of {}",
                self.folded_entries, self.entries
            ));
        }
        if self.sites.len() > MAX_SITES {
            return Err(format!(
                "nest '{id}' has {} sites, more than {MAX_SITES}",
                self.sites.len()
            ));
        }
        if self.dependences.len() > MAX_DEPENDENCES {
            return Err(format!(
                "nest '{id}' has {} dependences, more than {MAX_DEPENDENCES}",
                self.dependences.len()
            ));
        }
        for (index, site) in self.sites.iter().enumerate() {
            let depth = site.depth as usize;
            if depth > MAX_DEPTH {
                return Err(format!(
                    "nest '{id}': site {index} has depth {depth}, more than {MAX_DEPTH}"
                ));
            }
            if self.loops_around(index).len() != depth {
                return Err(format!(
                    "nest '{id}': site {index} has depth {depth} but its chain of enclosing loops does not"
                ));
            }
            let outputs = usize::from(site.kind != SiteKind::Loop);
            validate_stream(&site.stream, depth + 1, outputs)
                .map_err(|problem| format!("nest '{id}', site {index}: {problem}"))?;
            if !(site.strides.is_empty() || site.strides.len() == depth + 1) {
                return Err(format!(
                    "nest '{id}', site {index}: {} strides for {} IV positions",
                    site.strides.len(),
                    depth + 1
                ));
            }
        }
        for dependence in &self.dependences {
            let (Some(source), Some(sink)) = (
                self.sites.get(dependence.source as usize),
                self.sites.get(dependence.sink as usize),
            ) else {
                return Err(format!(
                    "nest '{id}' has a dependence from site {} to site {}, but {} sites",
                    dependence.source,
                    dependence.sink,
                    self.sites.len()
                ));
            };
            let place = format!(
                "nest '{id}', dependence {} -> {}",
                dependence.source, dependence.sink
            );
            let common = dependence.common as usize;
            if common == 0 || common > 1 + source.depth.min(sink.depth) as usize {
                return Err(format!(
                    "{place}: {common} common positions, not between 1 and what the sites have"
                ));
            }
            validate_stream(
                &dependence.stream,
                sink.depth as usize + 1,
                source.depth as usize + 1,
            )
            .map_err(|problem| format!("{place}: {problem}"))?;
            if dependence.distances.len() != dependence.stream.pieces.len()
                || dependence.distances.iter().any(|d| d.len() != common)
            {
                return Err(format!(
                    "{place}: one distance vector of {common} positions per piece expected"
                ));
            }
        }
        Ok(())
    }
}

fn validate_stream(stream: &FoldedStream, dims: usize, outputs: usize) -> Result<(), String> {
    if stream.pieces.len() > MAX_PIECES {
        return Err(format!(
            "{} pieces, more than {MAX_PIECES}",
            stream.pieces.len()
        ));
    }
    let mut counted: u64 = 0;
    for piece in &stream.pieces {
        counted = counted
            .checked_add(piece.events)
            .ok_or("piece counts overflow")?;
        if piece.lower.len() != dims || piece.upper.len() != dims {
            return Err(format!("a piece's bounds are not of {dims} positions"));
        }
        let vertices = piece.vertices.len();
        if vertices != 0 && (!vertices.is_power_of_two() || vertices > 1 << dims) {
            return Err(format!(
                "a piece has {vertices} vertices, not 2^level with level <= {dims}"
            ));
        }
        if piece.vertices.iter().any(|vertex| vertex.len() != dims) {
            return Err(format!("a vertex is not of {dims} positions"));
        }
        if piece.affine != piece.is_affine() {
            return Err("a piece's \"affine\" contradicts its vertices and labels".into());
        }
        if piece.labels.len() != outputs
            || piece.labels.iter().any(|l| l.coefficients.len() != dims)
        {
            return Err(format!(
                "a piece's labels are not {outputs} functions of {dims} positions"
            ));
        }
    }
    if counted > stream.events {
        return Err(format!(
            "pieces count {counted} events, more than the stream's {}",
            stream.events
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::{FoldConfig, Stream};

    fn folded(points: &[(Vec<i64>, Vec<i128>)], outputs: usize) -> FoldedStream {
        let mut stream = Stream::new(points[0].0.len(), outputs, FoldConfig::default());
        for (point, labels) in points {
            stream.push(point, labels);
        }
        FoldedStream::from_folded(&stream.finish())
    }

    #[test]
    fn distance_of_a_reduction_along_k_is_0_0_1() {
        // Sink (e, i, k) for k >= 1 reads what (e, i, k - 1) wrote.
        let mut points = Vec::new();
        for i in 0..4 {
            for k in 1..6 {
                points.push((vec![0, i, k], vec![0, i as i128, (k - 1) as i128]));
            }
        }
        let stream = folded(&points, 3);
        assert_eq!(stream.pieces.len(), 1);
        assert_eq!(
            distance_vector(&stream.pieces[0], 3),
            vec![Some(0), Some(0), Some(1)]
        );
    }

    #[test]
    fn distance_along_a_top_label_is_unknown() {
        let points: Vec<_> = (0..8i64)
            .map(|i| (vec![0, i], vec![0, ((i * 5) % 8) as i128]))
            .collect();
        let stream = folded(&points, 2);
        assert_eq!(distance_vector(&stream.pieces[0], 2), vec![Some(0), None]);
    }

    /// A nest of one loop `i` and one load `a[i]`, with a dependence on itself, as JSON.
    fn small_nest_json() -> serde_json::Value {
        let mut points = Vec::new();
        for i in 0..4i64 {
            points.push((vec![0, i], vec![(4096 + 8 * i) as i128]));
        }
        let stream = folded(&points, 1);
        let dependence_points: Vec<_> = (1..4i64)
            .map(|i| (vec![0, i], vec![0, (i - 1) as i128]))
            .collect();
        let dependence_stream = folded(&dependence_points, 2);
        let nest = NestProfile {
            id: "n:1:ab".into(),
            function: "n".into(),
            file: "n.c".into(),
            line: 1,
            module_hash: "ab".into(),
            modelled: false,
            thread: 0,
            entries: 1,
            folded_entries: 1,
            unfolded_accesses: 0,
            plain_iterations: 0,
            sites: vec![
                SiteProfile {
                    kind: SiteKind::Loop,
                    depth: 1,
                    size: 0,
                    line: 1,
                    column: 1,
                    parent_loop: None,
                    name: "i".into(),
                    stream: stream.clone(),
                    strides: Vec::new(),
                },
                SiteProfile {
                    kind: SiteKind::Load,
                    depth: 1,
                    size: 8,
                    line: 2,
                    column: 1,
                    parent_loop: Some(0),
                    name: "a".into(),
                    stream: stream.clone(),
                    strides: vec![None, Some(8)],
                },
            ],
            dependences: vec![DependenceProfile {
                source: 1,
                sink: 1,
                across_entries: false,
                common: 2,
                distances: vec![distance_vector(&dependence_stream.pieces[0], 2)],
                stream: dependence_stream,
            }],
            shadow_full: false,
            dependences_dropped: 0,
        };
        // The loop site has no label output.
        let mut json = serde_json::to_value(&nest).unwrap();
        json["sites"][0]["stream"]["pieces"][0]["labels"] = serde_json::json!([]);
        serde_json::json!({"format": "polyrust-profile", "version": 2, "regions": [], "nests": [json]})
    }

    fn parse(json: &serde_json::Value) -> Result<crate::Profile, String> {
        crate::Profile::parse(json.to_string().as_bytes(), std::path::Path::new("p.json"))
            .map_err(|error| error.to_string())
    }

    #[test]
    fn a_valid_nest_reads_back_and_hostile_ones_are_errors() {
        let good = small_nest_json();
        let profile = parse(&good).expect("valid");
        assert_eq!(
            profile.nests[0].dependences[0].distances,
            vec![vec![Some(0), Some(1)]]
        );
        let broken = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut json = good.clone();
            edit(&mut json);
            parse(&json).expect_err("must be refused")
        };
        let error = broken(&|j| j["nests"][0]["dependences"][0]["source"] = 7.into());
        assert!(
            error.contains("dependence from site 7 to site 1, but 2 sites"),
            "{error}"
        );
        let error = broken(&|j| {
            j["nests"][0]["sites"][1]["stream"]["pieces"][0]["vertices"][0] = serde_json::json!([1])
        });
        assert!(error.contains("a vertex is not of 2 positions"), "{error}");
        let error = broken(&|j| j["nests"][0]["sites"][1]["parent_loop"] = 1.into());
        assert!(error.contains("chain of enclosing loops"), "{error}");
        let error = broken(&|j| j["nests"][0]["sites"][1]["stream"]["events"] = 1.into());
        assert!(error.contains("more than the stream's 1"), "{error}");
        let error =
            broken(&|j| j["nests"][0]["sites"][1]["stream"]["pieces"][0]["affine"] = false.into());
        assert!(error.contains("contradicts"), "{error}");
        let error =
            broken(&|j| j["nests"][0]["dependences"][0]["distances"] = serde_json::json!([]));
        assert!(error.contains("one distance vector"), "{error}");
        let error = broken(&|j| j["nests"][0]["folded_entries"] = 2.into());
        assert!(error.contains("folded 2 entries of 1"), "{error}");
        let error = broken(&|j| j["version"] = 1.into());
        assert!(error.contains("version 1 has no nests"), "{error}");
        let error = broken(&|j| j["nests"][0]["sites"][1]["depth"] = 99.into());
        assert!(error.contains("more than 16"), "{error}");
    }

    #[test]
    fn a_constant_beyond_i64_is_written_as_top_and_the_piece_as_not_affine() {
        let huge = i128::from(i64::MAX) + 10;
        let points: Vec<_> = (0..3i64)
            .map(|i| (vec![0, i], vec![huge + i128::from(i)]))
            .collect();
        let stream = folded(&points, 1);
        let piece = &stream.pieces[0];
        assert_eq!(piece.labels[0].constant, None);
        assert!(!piece.affine);
        assert!(validate_stream(&stream, 2, 1).is_ok());
    }

    #[test]
    fn points_and_labels_of_a_triangle_are_regenerated_from_the_piece() {
        // for i < 5: for j <= i: a[i][j] at 4096 + 40i + 8j.
        let mut points = Vec::new();
        for i in 0..5 {
            for j in 0..=i {
                points.push((vec![0, i, j], vec![(4096 + 40 * i + 8 * j) as i128]));
            }
        }
        let stream = folded(&points, 1);
        assert_eq!(stream.pieces.len(), 1);
        let piece = &stream.pieces[0];
        let regenerated = piece.points().expect("an elementary polyhedron");
        let expected: Vec<Vec<i64>> = points.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(regenerated, expected);
        assert_eq!(piece.labels[0].at(&[0, 3, 2]), Some(4096 + 120 + 16));
        let top = AffineLabel {
            constant: Some(1),
            coefficients: vec![None, Some(1)],
        };
        assert_eq!(top.at(&[0, 1]), None);
    }

    #[test]
    fn strides_of_a_row_major_access_are_8_along_j_and_row_size_along_i() {
        let mut points = Vec::new();
        for i in 0..4 {
            for j in 0..5 {
                points.push((vec![0, i, j], vec![(4096 + 800 * i + 8 * j) as i128]));
            }
        }
        let stream = folded(&points, 1);
        assert_eq!(
            stream.common_coefficients(0, 3),
            vec![None, Some(800), Some(8)]
        );
    }
}
