//! What the stages have to say about one region, kept as values until the report stage
//! says it: planning runs for the pass and for the printers alike, and only the pass
//! speaks (`-Rpass*=polyrust`). Every note of a region is said at the region's place
//! (its first loop), in the order the stages made them.

use crate::llvm::{FunctionAnalyses, RemarkAt, RemarkKind};

/// One remark due about a region.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    /// Passed, missed or analysis.
    pub kind: RemarkKind,
    /// The remark's name (`Unchanged`, `NotFolded`, ...).
    pub name: &'static str,
    /// The text a user reads.
    pub message: String,
}

/// The notes of one region, in the order they were made.
#[derive(Clone, Debug, Default)]
pub struct Notes {
    notes: Vec<Note>,
}

impl Notes {
    /// An analysis remark (`-Rpass-analysis=polyrust`).
    pub fn analysis(&mut self, name: &'static str, message: impl Into<String>) {
        self.push(RemarkKind::Analysis, name, message);
    }

    fn push(&mut self, kind: RemarkKind, name: &'static str, message: impl Into<String>) {
        self.notes.push(Note {
            kind,
            name,
            message: message.into(),
        });
    }

    /// Says every note at `at`, and forgets them.
    pub fn say(&mut self, fa: &FunctionAnalyses<'_>, at: RemarkAt<'_>) {
        for note in self.notes.drain(..) {
            fa.remark(note.kind, note.name, at, &note.message);
        }
    }
}

/// `region in f at file.c:12 left unchanged: <reason>`.
pub fn left_unchanged(region: &crate::detect::DetectedRegion<'_>, reason: &str) -> String {
    format!(
        "{} left unchanged: {}",
        region.spec.title(),
        region.spec.strip_name(reason)
    )
}
