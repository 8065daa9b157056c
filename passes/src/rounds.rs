//! The rounds of the pass on one function. Each round runs the driver on fresh analyses
//! and rewrites at most one region, tagging the loops it handled so that the next round
//! sees the others; rounds go on until one rewrites nothing. Around them: the loop form
//! detection needs is restored first, and after a rewrite a short clean-up pipeline
//! prepares the generated code for the vectorizer.
//! Relies on the host (`FunctionRun`) to gather analyses and run LLVM's passes.

use crate::llvm::{FunctionAnalyses, FunctionPass, FunctionRun};

/// Regions rewritten per function at most; each needs a fresh run over fresh analyses.
pub const MAX_ROUNDS: u32 = 16;

/// What runs after the rounds when one rewrote the function, in this order.
const CLEAN_UP: [FunctionPass; 5] = [
    // Promotes the stack slots generated code keeps scalars in.
    FunctionPass::SroaModifyCfg,
    // Folds what code generation left for InstCombine.
    FunctionPass::InstCombine,
    // The pipeline's common subexpression and dead store elimination ran before this
    // pass. Generated code computes each copy's addresses afresh, and a register tile's
    // copies load and store the same elements (C[i][j] once per copy of k): without
    // merging them, the tile's copies went through memory (the matrix product in
    // register tiles of 4x4 ran 0.105 s, 0.079 s without register tiles, 0.033 s with
    // this). EarlyCSE rather than GVN: GVN also merges blocks, and the structure of the
    // generated code is what the lit tests of code generation read.
    FunctionPass::EarlyCseMemorySsa,
    FunctionPass::Dse,
    // Generated code keeps a promoted scalar in its element (`P[i][j] += G[i][k] *
    // X[j][k]` loads and stores P[i][j] in every iteration of k): LICM holds it in a
    // register again, as it did in the original before polyrust ran. The pipeline's next
    // LICM comes after unrolling, whose copies of the address it no longer promotes:
    // without this, the chain went through memory and gram_restrict's product ran 3.5x
    // slower than -O3 (1.24 s against 0.36 s; 0.35 s with it). The loops generated are
    // not rotated yet, and LICM only promotes stores of rotated loops (the store must run
    // whenever the loop is entered).
    FunctionPass::RotateAndLicm,
];

/// Runs `round` (the driver, given the analyses and the round's number) until a round
/// rewrites nothing, then cleans up; whether the function changed.
pub fn optimize(
    run: &FunctionRun<'_>,
    mut round: impl FnMut(&FunctionAnalyses<'_>, u32) -> bool,
) -> bool {
    let simplified = restore_loop_form(run);
    let mut changed = false;
    let mut versions = 0;
    for number in 0..MAX_ROUNDS {
        if !run
            .with_analyses(|analyses| round(analyses, number))
            .unwrap_or(false)
        {
            break;
        }
        changed = true;
        // A nest just versioned (`detect::hoisted`): its copy's address arithmetic,
        // now invariant, moves out of the inner loops, and its 32-bit subscripts get
        // the 64-bit counters LLVM gave the loops it could see through before this
        // pass (`y * stride` of an `int` stride read from a struct), without which
        // their products cannot be delinearized.
        let now = run
            .with_analyses(|analyses| crate::detect::hoisted::placeholders(analyses.function()))
            .unwrap_or(0);
        run.invalidate_analyses();
        if now > versions {
            run.run_pass(FunctionPass::LicmAndIndVars);
            run.invalidate_analyses();
        }
        versions = now;
    }
    // A versioned nest whose copy no region came from runs its original loops.
    if changed
        && run
            .with_analyses(|analyses| crate::detect::hoisted::drop_unresolved(analyses.function()))
            .unwrap_or(false)
    {
        run.invalidate_analyses();
    }
    if changed {
        clean_up(run);
    }
    changed || simplified
}

/// Runs the clean-up pipeline on the function (also on the loops polyrust outlined to
/// run on threads, which leave their caller before its clean-up); whether it changed.
pub fn clean_up(run: &FunctionRun<'_>) -> bool {
    let mut changed = false;
    for pass in CLEAN_UP {
        changed |= run.run_pass(pass);
    }
    changed
}

/// Detection expects loops in simplified and LCSSA form (a preheader, dedicated exits,
/// values leaving a loop through phis in its exits). Passes before the vectorizer's
/// start (SimplifyCFG, InstCombine, CHR) can undo that form, and the vectorizer's
/// pipeline restores it right after this pass; restoring it first lets detection see
/// every loop (without it, the nests of the reference BLAS's dgemm were never looked
/// at). Whether that changed the function.
fn restore_loop_form(run: &FunctionRun<'_>) -> bool {
    let simplified = run.run_pass(FunctionPass::LoopSimplify);
    let in_lcssa = run.run_pass(FunctionPass::Lcssa);
    simplified || in_lcssa
}

/// Whether the pass joins LLVM's pipeline at an optimization level: at -O2 and -O3 when
/// `-polyrust-enable` is on. Not at -O0 (SCEV gives up on optnone code) nor at -Os/-Oz.
pub fn joins_pipeline(enable: bool, speedup_level: u32, size_level: u32) -> bool {
    enable && matches!(speedup_level, 2 | 3) && size_level == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pass_joins_o2_and_o3_only() {
        assert!(joins_pipeline(true, 2, 0));
        assert!(joins_pipeline(true, 3, 0));
        assert!(!joins_pipeline(true, 0, 0));
        assert!(!joins_pipeline(true, 1, 0));
        assert!(!joins_pipeline(true, 2, 1), "-Os");
        assert!(!joins_pipeline(true, 2, 2), "-Oz");
        assert!(!joins_pipeline(false, 3, 0));
    }
}
