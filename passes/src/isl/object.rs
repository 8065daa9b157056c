//! The part every owned isl object shares: a wrapper around the isl-rs value that never
//! holds NULL, copies with `copy`, prints with `to_str` and turns isl-rs results into
//! `IslError`. Relies on isl-rs objects owning their pointer (`should_free_on_drop`).

use isl_rs::LibISLError;

use super::error::IslError;
use super::raw::RawPtr;

/// Declares an owned isl object type around an isl-rs type.
macro_rules! isl_object {
    ($(#[$doc:meta])* $name:ident, $inner:ty, $to_str:ident) => {
        $(#[$doc])*
        pub struct $name {
            // Dropped before `ctx`: the object goes before its context.
            pub(super) inner: $inner,
            pub(super) ctx: super::ctx::CtxRef,
        }

        impl $name {
            /// Wraps what an isl-rs call returned; NULL and errors become `IslError`.
            pub(super) fn wrap(
                ctx: &super::ctx::CtxRef,
                operation: &str,
                result: Result<$inner, isl_rs::LibISLError>,
            ) -> Result<Self, super::error::IslError> {
                match result {
                    Ok(inner) if inner.ptr != 0 => Ok(Self {
                        inner,
                        ctx: std::rc::Rc::clone(ctx),
                    }),
                    Ok(_) => Err(super::error::IslError::no_result(operation)),
                    Err(error) => Err(super::error::IslError::from_lib(operation, error)),
                }
            }

            /// Takes ownership of a non-NULL pointer isl gave us.
            ///
            /// # Safety
            /// `ptr` is a live isl object of this type, made in `ctx`, that nothing else
            /// frees.
            #[allow(dead_code)]
            pub(super) unsafe fn adopt(ctx: &super::ctx::CtxRef, ptr: super::raw::RawPtr) -> Self {
                Self {
                    inner: <$inner as super::object::FromOwnedPtr>::from_owned_ptr(ptr),
                    ctx: std::rc::Rc::clone(ctx),
                }
            }

            /// The context pointer, for reading errors after raw calls.
            #[allow(dead_code)]
            pub(super) fn ctx_ptr(&self) -> super::raw::RawPtr {
                self.ctx.ctx.ptr
            }

            /// A handle to the context this object lives in.
            pub fn ctx(&self) -> super::ctx::IslCtx {
                super::ctx::IslCtx::from_ref(&self.ctx)
            }

            /// Another handle to the same isl object (isl copies are reference counted).
            pub fn copy(&self) -> Result<Self, super::error::IslError> {
                Self::wrap(&self.ctx, concat!("copying an isl ", stringify!($name)), self.inner.copy())
            }

            /// isl's own text for this object.
            pub fn to_str(&self) -> Result<String, super::error::IslError> {
                let operation = concat!("printing an isl ", stringify!($name));
                // Printing is bounded by the object's size: it runs outside the operation
                // bound so a region that reached it can still be shown.
                let text = super::object::unbounded(&self.ctx.ctx, || {
                    // SAFETY: `inner.ptr` is a live object (never NULL by construction);
                    // the string is allocated by isl for us and freed by take_string.
                    unsafe { super::raw::take_string(super::raw::$to_str(self.inner.ptr)) }
                });
                match text {
                    Some(text) => Ok(text),
                    None => Err(super::object::error_after_raw_call(operation, self.ctx_ptr())),
                }
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.to_str() {
                    Ok(text) => f.write_str(&text),
                    Err(error) => write!(f, "<{}: {error}>", stringify!($name)),
                }
            }
        }
    };
}

pub(super) use isl_object;

/// Builds an isl-rs object that owns `ptr`.
pub(super) trait FromOwnedPtr {
    /// # Safety
    /// `ptr` is a live isl object of this type that nothing else frees.
    unsafe fn from_owned_ptr(ptr: RawPtr) -> Self;
}

macro_rules! from_owned_ptr {
    ($($ty:ty),*) => {
        $(impl FromOwnedPtr for $ty {
            unsafe fn from_owned_ptr(ptr: RawPtr) -> Self {
                Self { ptr, should_free_on_drop: true }
            }
        })*
    };
}

from_owned_ptr!(
    isl_rs::Set,
    isl_rs::Map,
    isl_rs::UnionSet,
    isl_rs::UnionMap,
    isl_rs::Schedule,
    isl_rs::UnionAccessInfo,
    isl_rs::UnionFlow
);

/// Runs `f` with the operation bound of `ctx` lifted, then restores the bound (the
/// count of operations goes on).
pub(super) fn unbounded<T>(ctx: &isl_rs::Context, f: impl FnOnce() -> T) -> T {
    let bound = ctx.get_max_operations();
    ctx.set_max_operations(0);
    let result = f();
    ctx.set_max_operations(bound);
    result
}

/// The error a raw isl call that returned NULL left on its context.
pub(super) fn error_after_raw_call(operation: &str, ctx: RawPtr) -> IslError {
    match super::raw::take_ctx_error(ctx) {
        Some((code, message)) => IslError::from_code(operation, code, message),
        None => IslError::no_result(operation),
    }
}

/// A yes/no answer from isl-rs. For isl's error answer (`isl_bool_error`) isl-rs reports
/// an unknown error without reading the context, where isl left the real one (the
/// operation bound, say): it is read, and cleared, here.
pub(super) fn flag(
    operation: &str,
    ctx: RawPtr,
    result: Result<bool, LibISLError>,
) -> Result<bool, IslError> {
    result.map_err(|error| match super::raw::take_ctx_error(ctx) {
        Some((code, message)) => IslError::from_code(operation, code, message),
        None => IslError::from_lib(operation, error),
    })
}

/// A dimension count from isl-rs (negative means error).
pub(super) fn count(operation: &str, result: Result<i32, LibISLError>) -> Result<usize, IslError> {
    match result {
        Ok(n) => usize::try_from(n).map_err(|_| IslError::no_result(operation)),
        Err(error) => Err(IslError::from_lib(operation, error)),
    }
}

/// Names of the parameters of `space`, in order.
pub(super) fn param_names(space: &isl_rs::Space) -> Result<Vec<String>, IslError> {
    let operation = "reading parameter names";
    let n = count(operation, space.dim(isl_rs::DimType::Param))?;
    let mut names = Vec::with_capacity(n);
    for pos in 0..n {
        let pos = u32::try_from(pos).map_err(|_| IslError::no_result(operation))?;
        // SAFETY: `space` is live and `pos` is below its parameter count; the name is
        // owned by the space and copied at once.
        let name = unsafe {
            super::raw::borrowed_string(super::raw::isl_space_get_dim_name(
                space.ptr,
                isl_rs::DimType::Param.to_i32(),
                pos,
            ))
        };
        match name {
            Some(name) => names.push(name),
            None => return Err(error_after_raw_call(operation, space.get_ctx().ptr)),
        }
    }
    Ok(names)
}

/// The space of an object, checked.
pub(super) fn space(
    operation: &str,
    result: Result<isl_rs::Space, LibISLError>,
) -> Result<isl_rs::Space, IslError> {
    match result {
        Ok(space) if space.ptr != 0 => Ok(space),
        Ok(_) => Err(IslError::no_result(operation)),
        Err(error) => Err(IslError::from_lib(operation, error)),
    }
}

/// Gives isl an object isl-rs owned, for an `__isl_take` argument of a raw isl call:
/// isl-rs must no longer free it.
pub(super) fn release<T: Releasable>(mut inner: T) -> RawPtr {
    inner.forget()
}

pub(super) trait Releasable {
    fn forget(&mut self) -> RawPtr;
}

macro_rules! releasable {
    ($($ty:ty),*) => {
        $(impl Releasable for $ty {
            fn forget(&mut self) -> RawPtr {
                self.do_not_free_on_drop();
                self.ptr
            }
        })*
    };
}

releasable!(
    isl_rs::Set,
    isl_rs::Map,
    isl_rs::UnionSet,
    isl_rs::UnionMap,
    isl_rs::Schedule
);
