//! Trace modelling: the ordered addresses of one memory reference → the loop nests
//! that regenerate them exactly (Rodríguez, Pouchet, Touriño, "Representing Integer
//! Sequences Using Piecewise-Affine Loops", Mathematics 9:2368, 2021;
//! digest in shared/papers/notes/trace-to-loops.md).
//!
//! - [`nest`]: the canonical nest (counters step 1 from the max of affine lower faces,
//!   at least 0, up to the min of affine upper faces, faces over the outer counters;
//!   one access `base + Σ c_j·i_j` modulo 2^64) and its enumeration.
//! - `search`: the least-depth single nest for a trace (Extract with the γ fast path,
//!   brute force over the D strides, Grow, face refits; several upper faces per level,
//!   §4.2; the move ⊕ and lower faces, §4.3, with one free level), inside iterative
//!   deepening with a depth cap and node and work budgets.
//! - `fit`: exact integer face fitting.
//! - [`render`]: the nest as C-like text and as a C program that prints the trace.
//! - [`recorder`]: a site's stream recorded at run time in chunks, each modelled
//!   when full, within a memory cap (`POLYRUST_TRACE=DIR`, `POLYRUST_TRACE_MB`).
//! - [`file`]: the compressed trace file the runtime writes, one per nest and thread.
//!
//! Union of loops: where one nest cannot explain the whole stream within the limits,
//! the stream is cut into consecutive pieces, each the longest prefix of the rest that
//! one nest explains (a nest may stop inside its domain), as the paper's "sequence of
//! nests" fallback does. A prefix whose nest would not be at least twice smaller than
//! its addresses becomes a literal piece; literal pieces grow geometrically (up to
//! 4096 addresses) between searches, and the search after a literal piece, or after
//! a search that ran out of budget, is a cheap probe (1000 nodes per depth round), so
//! that a stream without structure costs little per address.
//! Every model is checked by regenerating it ([`Model::reproduces`]: the enumeration
//! of [`Model::generate`], a run of the innermost loop at a time) before it is
//! returned: it reproduces its input exactly, or the input becomes one literal piece.
//! Not done: ⊕ with more than one free level (the paper's K = 3), rational slopes
//! (§4.5), best-first search and speculation (§4.4, §4.6); such traces get deeper
//! nests or more pieces.
//!
//! Measured (`scripts/trace-bench --large`, one reference per kernel, 2 shared cores):
//! untiled matmul, jacobi-2d and trisolv give one nest of 74-108 bytes, 5·10^4 to
//! 7·10^4 times smaller than `gzip -9` of the text at 2·10^6 accesses and 4.4·10^5 at
//! 1.7·10^7; matmul tiled by 32 with n = 120 or 250 gives one depth-6 nest with min
//! bounds, 378 bytes, 680 and 5700 times smaller than gzip. `xz -9` finds the
//! repetition too and is only 55 to 2000 times larger than the model. Modelling runs
//! at 300-800 M accesses/s untiled and 13-36 M/s tiled (most of it the depth-5 round
//! that fails); reading a text trace costs more than modelling an untiled one.

pub mod file;
pub mod nest;
pub mod recorder;
pub mod render;

mod fit;
mod search;
#[cfg(test)]
mod tests;

use std::fmt;

pub use nest::{Face, Nest, Point, MAX_DEPTH};
pub use search::Limits;

/// One consecutive part of a modelled trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Nest(Nest),
    /// Addresses with no worthwhile nest, kept as they are.
    Literal(Vec<i64>),
}

impl Piece {
    pub fn len(&self) -> u64 {
        match self {
            Piece::Nest(nest) => nest.count(),
            Piece::Literal(addresses) => addresses.len() as u64,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The model of a whole trace: its pieces in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Model {
    pub pieces: Vec<Piece>,
    /// Whether some search ran out of budget (a nest found may then not be of least
    /// depth, or a nest may exist where a cut or a literal was used).
    pub budget_hit: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceError {
    /// There is nothing to model.
    Empty,
    /// A serialized model is not one [`Model::to_bytes`] wrote.
    Malformed(&'static str),
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::Empty => write!(f, "the trace has no addresses"),
            TraceError::Malformed(what) => write!(f, "not a trace model: {what}"),
        }
    }
}

impl std::error::Error for TraceError {}

/// A nest replaces a prefix only if it is at most half the size of the addresses.
fn worth_a_nest(nest: &Nest) -> bool {
    2 * nest_encoded_len(nest) as u64 <= 8 * nest.count()
}

/// Longest literal run between two searches.
const MAX_LITERAL_STEP: usize = 1 << 12;
/// Nodes per depth round of the cheap search tried first after a literal piece: a
/// stream without structure is rejected quickly, a nest that starts again is found.
const PROBE_NODES: u64 = 1000;

/// Models `trace` (see the module comment for the pieces and the guarantee).
pub fn synthesize(trace: &[i64], limits: &Limits) -> Result<Model, TraceError> {
    if trace.is_empty() {
        return Err(TraceError::Empty);
    }
    let mut pieces: Vec<Piece> = Vec::new();
    let mut budget_hit = false;
    let mut literal_step = 1usize;
    // The last search ran out of budget short of the end: the stream is not (small)
    // piecewise affine here, so the next pieces come from cheap probes alone.
    let mut hard = false;
    let mut pos = 0;
    // Counters stay below MAX_COUNTER when a nest never covers more accesses.
    let longest = (nest::MAX_COUNTER - 1) as usize;
    while pos < trace.len() {
        let end = trace.len().min(pos + longest);
        let rest = &trace[pos..end];
        let found = if literal_step > 1 || hard {
            let probe_limits = Limits {
                nodes_per_round: limits.nodes_per_round.min(PROBE_NODES),
                ..*limits
            };
            let probe = search::search(rest, &probe_limits);
            if !hard && !probe.complete && worth_a_nest(&probe.nest) {
                search::search(rest, limits)
            } else {
                probe
            }
        } else {
            search::search(rest, limits)
        };
        budget_hit |= found.budget_hit;
        hard = found.budget_hit && !found.complete;
        // A whole trace that is one nest is the answer even when tiny; a later
        // piece must earn its place.
        if (found.complete && pos == 0) || worth_a_nest(&found.nest) {
            pos += found.nest.count() as usize;
            pieces.push(Piece::Nest(found.nest));
            literal_step = 1;
            continue;
        }
        let take = literal_step.min(trace.len() - pos);
        literal_step = (literal_step * 2).min(MAX_LITERAL_STEP);
        match pieces.last_mut() {
            Some(Piece::Literal(addresses)) => addresses.extend_from_slice(&trace[pos..pos + take]),
            _ => pieces.push(Piece::Literal(trace[pos..pos + take].to_vec())),
        }
        pos += take;
    }
    let model = Model { pieces, budget_hit };
    if model.reproduces(trace) {
        Ok(model)
    } else {
        // Each nest was checked on its own piece; this is the last line of defence.
        Ok(Model {
            pieces: vec![Piece::Literal(trace.to_vec())],
            budget_hit,
        })
    }
}

const MAGIC: &[u8; 4] = b"PRT1";
const TAG_NEST: u8 = 1;
const TAG_LITERAL: u8 = 2;

fn nest_encoded_len(nest: &Nest) -> usize {
    // tag, depth, count, base, coefficients, then per level the upper faces and the
    // lower faces, each list a count and the faces.
    let mut len = 1 + 1 + 8 + 8 + 8 * nest.depth();
    for level in 0..nest.depth() {
        let faces = nest.faces(level).len() + nest.lower_faces(level).len();
        len += 2 + faces * 8 * (level + 1);
    }
    len
}

impl Model {
    /// Number of accesses the model emits.
    pub fn len(&self) -> u64 {
        self.pieces.iter().map(Piece::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn nests(&self) -> impl Iterator<Item = &Nest> {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Nest(nest) => Some(nest),
            Piece::Literal(_) => None,
        })
    }

    /// The modelled trace, in order.
    pub fn generate(&self) -> impl Iterator<Item = i64> + '_ {
        self.pieces
            .iter()
            .flat_map(|piece| -> Box<dyn Iterator<Item = i64> + '_> {
                match piece {
                    Piece::Nest(nest) => Box::new(nest.addresses()),
                    Piece::Literal(addresses) => Box::new(addresses.iter().copied()),
                }
            })
    }

    /// Whether the model regenerates exactly `trace`.
    pub fn reproduces(&self, trace: &[i64]) -> bool {
        let mut rest = trace;
        for piece in &self.pieces {
            let len = piece.len();
            if len > rest.len() as u64 {
                return false;
            }
            let (here, after) = rest.split_at(len as usize);
            let same = match piece {
                Piece::Nest(nest) => nest.emits(here, false),
                Piece::Literal(addresses) => addresses == here,
            };
            if !same {
                return false;
            }
            rest = after;
        }
        rest.is_empty()
    }

    /// Size of [`Model::to_bytes`] without building it.
    pub fn encoded_len(&self) -> usize {
        let mut len = MAGIC.len() + 8;
        for piece in &self.pieces {
            len += match piece {
                Piece::Nest(nest) => nest_encoded_len(nest),
                Piece::Literal(addresses) => 1 + 8 + 8 * addresses.len(),
            };
        }
        len
    }

    /// The model as bytes: "PRT1", the piece count, then per piece a tag and its
    /// numbers (little-endian 8-byte integers; depth and face counts one byte; per
    /// level the upper faces, then the lower faces besides `i >= 0`).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.pieces.len() as u64).to_le_bytes());
        for piece in &self.pieces {
            match piece {
                Piece::Nest(nest) => {
                    out.push(TAG_NEST);
                    out.push(nest.depth() as u8);
                    out.extend_from_slice(&nest.count().to_le_bytes());
                    out.extend_from_slice(&nest.base().to_le_bytes());
                    for c in nest.coeffs() {
                        out.extend_from_slice(&c.to_le_bytes());
                    }
                    for level in 0..nest.depth() {
                        for faces in [nest.faces(level), nest.lower_faces(level)] {
                            out.push(faces.len() as u8);
                            for face in faces {
                                out.extend_from_slice(&face.constant_term().to_le_bytes());
                                for m in 0..level {
                                    out.extend_from_slice(&face.slope(m).to_le_bytes());
                                }
                            }
                        }
                    }
                }
                Piece::Literal(addresses) => {
                    out.push(TAG_LITERAL);
                    out.extend_from_slice(&(addresses.len() as u64).to_le_bytes());
                    for a in addresses {
                        out.extend_from_slice(&a.to_le_bytes());
                    }
                }
            }
        }
        out
    }

    /// Reads what [`Model::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, TraceError> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(4)? != MAGIC {
            return Err(TraceError::Malformed("no PRT1 header"));
        }
        let count = reader.u64()?;
        let mut pieces = Vec::new();
        for _ in 0..count {
            match reader.byte()? {
                TAG_NEST => {
                    let depth = reader.byte()? as usize;
                    if depth == 0 || depth > MAX_DEPTH {
                        return Err(TraceError::Malformed("nest depth out of range"));
                    }
                    let accesses = reader.u64()?;
                    let base = reader.i64()?;
                    let coeffs = (0..depth)
                        .map(|_| reader.i64())
                        .collect::<Result<Vec<_>, _>>()?;
                    let mut faces = Vec::with_capacity(depth);
                    let mut lowers = Vec::with_capacity(depth);
                    for level in 0..depth {
                        faces.push(reader.faces(level)?);
                        lowers.push(reader.faces(level)?);
                    }
                    let nest = Nest::new(base, &coeffs, faces, accesses)
                        .and_then(|nest| nest.with_lower_faces(lowers))
                        .ok_or(TraceError::Malformed(
                            "a nest without faces or outside the limits",
                        ))?;
                    pieces.push(Piece::Nest(nest));
                }
                TAG_LITERAL => {
                    let n = reader.u64()?;
                    if n > (reader.bytes.len() / 8) as u64 {
                        return Err(TraceError::Malformed("literal longer than the data"));
                    }
                    let addresses = (0..n)
                        .map(|_| reader.i64())
                        .collect::<Result<Vec<_>, _>>()?;
                    pieces.push(Piece::Literal(addresses));
                }
                _ => return Err(TraceError::Malformed("unknown piece tag")),
            }
        }
        if reader.at != bytes.len() {
            return Err(TraceError::Malformed("bytes after the last piece"));
        }
        Ok(Model {
            pieces,
            budget_hit: false,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], TraceError> {
        let slice = self
            .bytes
            .get(self.at..self.at + n)
            .ok_or(TraceError::Malformed("truncated"))?;
        self.at += n;
        Ok(slice)
    }
    fn byte(&mut self) -> Result<u8, TraceError> {
        Ok(self.take(1)?[0])
    }
    fn u64(&mut self) -> Result<u64, TraceError> {
        let mut b = [0; 8];
        b.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(b))
    }
    fn i64(&mut self) -> Result<i64, TraceError> {
        Ok(self.u64()? as i64)
    }
    /// A face count, then the faces of a level: constant and outer slopes.
    fn faces(&mut self, level: usize) -> Result<Vec<Face>, TraceError> {
        let n = self.byte()? as usize;
        let mut faces = Vec::with_capacity(n);
        for _ in 0..n {
            let constant = self.i64()?;
            let slopes = (0..level)
                .map(|_| self.i64())
                .collect::<Result<Vec<_>, _>>()?;
            faces.push(Face::new(&slopes, constant));
        }
        Ok(faces)
    }
}
