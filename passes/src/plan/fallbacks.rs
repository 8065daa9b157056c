//! The typed steps back a plan takes when code generation cannot carry it out: register
//! tiles whose loop AST needs more than isl's operation bound, folded storage, then
//! expression propagation, in that order; each is planned again without what failed.
//! What is still enabled is one small value (`Enabled`), not an edited copy of the
//! options.

use crate::codegen::CodegenError;
use crate::options::Options;
use crate::report::Notes;
use crate::transform::exprprop::choice::note_dropped;
use crate::transform::schedule::ScheduleSettings;

/// A step back from what the options allow, and why it was taken.
#[derive(Clone, Debug, PartialEq)]
pub enum Fallback {
    /// The loop AST with register tiles needed more than isl's operation bound: the
    /// region is scheduled again without them.
    RegisterTilesOverAstBound,
    /// Code generation could not carry out the folded storage (its error): the
    /// temporaries keep their memory.
    FoldingDropped(String),
    /// Code generation could not recompute the temporaries (its error): they are
    /// stored as written.
    PropagationDropped(String),
    /// Code generation could not call the packed product (its error): the region is
    /// planned as loops.
    ProductDropped(String),
    /// Code generation could not call the min-plus closure kernel (its error): the
    /// region is planned as loops.
    ClosureDropped(String),
}

impl Fallback {
    /// The step back that lets code generation try again after `error`, for new code
    /// with register tiles (`register_tiled`), folds and recomputed reads as said; `None`
    /// when none is left.
    pub fn after(error: &CodegenError, new_code: NewCodeShape, enabled: &Enabled) -> Option<Self> {
        let ast_too_large = error.is_operation_limit();
        if ast_too_large && enabled.register_tiling && new_code.register_tiled {
            return Some(Fallback::RegisterTilesOverAstBound);
        }
        if new_code.folds {
            return Some(Fallback::FoldingDropped(error.to_string()));
        }
        if new_code.recomputes {
            return Some(Fallback::PropagationDropped(error.to_string()));
        }
        None
    }

    /// What a user is told of the step (`-Rpass-analysis=polyrust`).
    pub fn note(&self, notes: &mut Notes) {
        match self {
            Fallback::RegisterTilesOverAstBound => {}
            Fallback::FoldingDropped(e) => notes.analysis(
                "FoldingDropped",
                format!("folded storage dropped: code generation failed ({e})"),
            ),
            Fallback::PropagationDropped(e) => {
                note_dropped(notes, &format!("code generation failed ({e})"))
            }
            Fallback::ProductDropped(e) => notes.analysis(
                "ProductDropped",
                format!("packed matrix product dropped: code generation failed ({e})"),
            ),
            Fallback::ClosureDropped(e) => notes.analysis(
                "ClosureDropped",
                format!("blocked min-plus closure dropped: code generation failed ({e})"),
            ),
        }
    }

    /// How a printer names the step.
    pub fn describe(&self) -> String {
        match self {
            Fallback::RegisterTilesOverAstBound => {
                "register tiles dropped: their loop AST needs more than isl's operation bound"
                    .into()
            }
            Fallback::FoldingDropped(e) => format!("folded storage dropped: {e}"),
            Fallback::PropagationDropped(e) => format!("expression propagation dropped: {e}"),
            Fallback::ProductDropped(e) => format!("packed matrix product dropped: {e}"),
            Fallback::ClosureDropped(e) => format!("blocked min-plus closure dropped: {e}"),
        }
    }
}

/// What new code holds that a fallback can take away.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewCodeShape {
    /// Its schedule has register tiles.
    pub register_tiled: bool,
    /// Some temporary is stored folded.
    pub folds: bool,
    /// Some read recomputes a temporary's value.
    pub recomputes: bool,
}

/// The transformations a plan may still use: the options' choice, less the fallbacks
/// taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Enabled {
    /// Register tiles (`-polyrust-register-tiling`).
    pub register_tiling: bool,
    /// Folded storage (`-polyrust-quov`).
    pub quov: bool,
    /// Expression propagation (`-polyrust-exprprop`).
    pub exprprop: bool,
    /// Stage fusion (`-polyrust-fusion`).
    pub fusion: bool,
    /// Packed matrix products (`-polyrust-products`).
    pub products: bool,
    /// Blocked min-plus closures (`-polyrust-closures`).
    pub closures: bool,
}

impl Enabled {
    /// What `options` enable.
    pub fn from_options(options: &Options) -> Self {
        Enabled {
            register_tiling: options.register_tiling,
            quov: options.quov,
            exprprop: options.exprprop,
            fusion: options.fusion,
            products: options.products,
            closures: options.closures,
        }
    }

    /// What is left enabled after `fallbacks`.
    pub fn less(self, fallbacks: &[Fallback]) -> Self {
        let mut enabled = self;
        for fallback in fallbacks {
            match fallback {
                Fallback::RegisterTilesOverAstBound => enabled.register_tiling = false,
                Fallback::FoldingDropped(_) => enabled.quov = false,
                Fallback::PropagationDropped(_) => enabled.exprprop = false,
                Fallback::ProductDropped(_) => enabled.products = false,
                Fallback::ClosureDropped(_) => enabled.closures = false,
            }
        }
        enabled
    }

    /// The scheduling stage's `settings` with what is still enabled.
    pub fn scheduling(&self, settings: &ScheduleSettings) -> ScheduleSettings {
        ScheduleSettings {
            register_tiling: self.register_tiling,
            ..settings.clone()
        }
    }
}
