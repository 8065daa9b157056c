//! The isl context every isl object of a compilation lives in, with its operation bound.
//!
//! isl counts elementary operations (mostly allocations) on its context; once the count
//! passes the bound every isl call fails with a quota error, which `IslError` reports as
//! `OperationLimit`. The driver calls `start_region` before the work on each region so
//! each region gets the whole bound, and leaves a region that reaches it untouched.
//!
//! The context is set to report errors silently (`ISL_ON_ERROR_CONTINUE`): isl then
//! prints nothing on stderr and every failure reaches Rust as an `IslError`.
//! An isl context is not thread-safe: `IslCtx` and every object made in it are neither
//! `Send` nor `Sync`. Every object holds a counted reference to its context, so the
//! context is freed after the last object made in it, whatever the order of drops.

use std::rc::Rc;

use std::ffi::c_int;

use super::error::IslError;
use super::raw::{self, RawPtr};

/// `ISL_ON_ERROR_CONTINUE` from isl's `options.h`.
const ISL_ON_ERROR_CONTINUE: i32 = 1;

/// Largest coefficient of a loop counter or parameter in a schedule isl's scheduler
/// may return, and largest constant term. isl's operation count does not bound the
/// cost of one pivot of its ILP solver: with large constant loop bounds (an FDTD
/// stencil over 1000 x 1200 arrays) the solver's integers grow without end and a
/// compile hangs. Bounding the solution space keeps every pivot small; schedules that
/// need larger values (skews by more than this, shifts beyond it) are of no use to
/// the cost model anyway, which refuses skewing. A permutation needs coefficients of 1
/// only: with 1 instead of 20, isl's scheduler took 0.24 s instead of 0.58 s on the
/// corpus's yee2d, and the corpus's decisions stayed the same.
pub const SCHEDULE_MAX_COEFFICIENT: c_int = 1;
pub const SCHEDULE_MAX_CONSTANT_TERM: c_int = 20;

extern "C" {
    fn isl_options_set_schedule_max_coefficient(ctx: RawPtr, val: c_int) -> c_int;
    fn isl_options_set_schedule_max_constant_term(ctx: RawPtr, val: c_int) -> c_int;
}

/// The isl context itself, freed (by isl-rs) when the last handle to it goes.
pub(super) struct CtxOwner {
    pub(super) ctx: isl_rs::Context,
}

/// A counted reference to a context, held by the context handle and by every object.
pub(super) type CtxRef = Rc<CtxOwner>;

/// An isl context with an operation bound. Cloning gives another handle to the same
/// context.
#[derive(Clone)]
pub struct IslCtx {
    owner: CtxRef,
}

impl IslCtx {
    /// A new context whose computations stop after `max_operations` operations per region
    /// (`None` or `Some(0)`: unbounded).
    pub fn new(max_operations: Option<u64>) -> Result<IslCtx, IslError> {
        let ctx = isl_rs::Context::alloc();
        if ctx.ptr == 0 {
            return Err(IslError::Other {
                context: "creating the isl context".into(),
                message: "isl could not allocate a context (out of memory?)".into(),
            });
        }
        if let Err(error) = isl_rs::Options::set_on_error(&ctx, ISL_ON_ERROR_CONTINUE) {
            return Err(IslError::from_lib("configuring the isl context", error));
        }
        // SAFETY: the context was just allocated and is not shared yet.
        let configured = unsafe {
            isl_options_set_schedule_max_coefficient(ctx.ptr, SCHEDULE_MAX_COEFFICIENT) == 0
                && isl_options_set_schedule_max_constant_term(ctx.ptr, SCHEDULE_MAX_CONSTANT_TERM)
                    == 0
        };
        if !configured {
            return Err(IslError::Other {
                context: "configuring the isl context".into(),
                message: "isl refused the scheduler's coefficient bounds".into(),
            });
        }
        let ctx = IslCtx {
            owner: Rc::new(CtxOwner { ctx }),
        };
        ctx.set_max_operations(max_operations);
        Ok(ctx)
    }

    /// Changes the bound; `None` or `Some(0)` removes it. The count so far is kept.
    pub fn set_max_operations(&self, max_operations: Option<u64>) {
        self.owner
            .ctx
            .set_max_operations(max_operations.unwrap_or(0));
    }

    /// The bound in force, `None` when unbounded.
    pub fn max_operations(&self) -> Option<u64> {
        match self.owner.ctx.get_max_operations() {
            0 => None,
            n => Some(n),
        }
    }

    /// Runs `work` under its own bound, the current one divided by `divisor`, counted
    /// afresh; then gives the rest of the region's work a fresh count under the whole
    /// bound again. For the stages whose cost can explode on a region that pays little
    /// (the dependences, the scheduler), so that the region is left to -O3 early.
    pub fn within_share<T>(&self, divisor: u64, work: impl FnOnce() -> T) -> T {
        let bound = self.max_operations();
        self.start_region();
        self.set_max_operations(bound.map(|b| (b / divisor.max(1)).max(1)));
        let result = work();
        self.set_max_operations(bound);
        self.start_region();
        result
    }

    /// Starts the work on a new region: the operation count goes back to zero and any
    /// error left from the previous region is cleared.
    pub fn start_region(&self) {
        self.owner.ctx.reset_operations();
        raw::take_ctx_error(self.owner.ctx.ptr);
    }

    /// A handle to the context an object lives in.
    pub(super) fn from_ref(owner: &CtxRef) -> IslCtx {
        IslCtx {
            owner: Rc::clone(owner),
        }
    }

    /// The counted reference new objects keep.
    pub(super) fn owner(&self) -> &CtxRef {
        &self.owner
    }

    pub(super) fn inner(&self) -> &isl_rs::Context {
        &self.owner.ctx
    }

    pub(super) fn raw(&self) -> RawPtr {
        self.owner.ctx.ptr
    }
}

impl std::fmt::Debug for IslCtx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IslCtx")
            .field("max_operations", &self.max_operations())
            .finish()
    }
}
