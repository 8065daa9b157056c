//! The few isl C functions that isl-rs wraps unsafely or not at all, declared here so the
//! rest of `isl` can call them with the checks isl-rs leaves out.
//!
//! Why: isl-rs turns every returned C string into `&str` with `CStr::from_ptr(..).unwrap()`
//! (a crash on NULL, a panic on non-UTF-8, a leak for the strings isl allocates), reads
//! parsed text without checking that all of it was used, and reads the context's error
//! message without checking for NULL. Relies on: the static isl that isl-rs links (these
//! symbols resolve to it), isl's `malloc`-based allocation (strings are freed with `free`),
//! and isl-rs's objects exposing their pointer as `ptr: usize`.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

/// An opaque isl object pointer as isl-rs stores it.
pub(super) type RawPtr = usize;

extern "C" {
    fn free(ptr: *mut c_void);

    pub(super) fn isl_ctx_last_error(ctx: RawPtr) -> c_int;
    pub(super) fn isl_ctx_last_error_msg(ctx: RawPtr) -> *const c_char;
    pub(super) fn isl_ctx_reset_error(ctx: RawPtr);

    fn isl_val_zero(ctx: RawPtr) -> RawPtr;
    pub(super) fn isl_val_free(val: RawPtr) -> RawPtr;

    pub(super) fn isl_stream_new_str(ctx: RawPtr, text: *const c_char) -> RawPtr;
    pub(super) fn isl_stream_free(stream: RawPtr);
    pub(super) fn isl_stream_is_empty(stream: RawPtr) -> c_int;
    pub(super) fn isl_stream_read_set(stream: RawPtr) -> RawPtr;
    pub(super) fn isl_stream_read_map(stream: RawPtr) -> RawPtr;
    pub(super) fn isl_stream_read_union_set(stream: RawPtr) -> RawPtr;
    pub(super) fn isl_stream_read_union_map(stream: RawPtr) -> RawPtr;

    pub(super) fn isl_set_to_str(set: RawPtr) -> *mut c_char;
    pub(super) fn isl_map_to_str(map: RawPtr) -> *mut c_char;
    pub(super) fn isl_union_set_to_str(uset: RawPtr) -> *mut c_char;
    pub(super) fn isl_union_map_to_str(umap: RawPtr) -> *mut c_char;
    pub(super) fn isl_schedule_to_str(schedule: RawPtr) -> *mut c_char;
    pub(super) fn isl_union_access_info_to_str(access: RawPtr) -> *mut c_char;
    pub(super) fn isl_union_flow_to_str(flow: RawPtr) -> *mut c_char;
    pub(super) fn isl_printer_get_str(printer: RawPtr) -> *mut c_char;

    pub(super) fn isl_set_get_tuple_name(set: RawPtr) -> *const c_char;

    pub(super) fn isl_set_foreach_point(
        set: RawPtr,
        callback: unsafe extern "C" fn(point: RawPtr, user: *mut c_void) -> c_int,
        user: *mut c_void,
    ) -> c_int;
    pub(super) fn isl_point_get_coordinate_val(
        point: RawPtr,
        dim_type: c_int,
        pos: c_int,
    ) -> RawPtr;
    pub(super) fn isl_point_free(point: RawPtr) -> RawPtr;
    pub(super) fn isl_val_is_int(val: RawPtr) -> c_int;
    pub(super) fn isl_val_get_num_si(val: RawPtr) -> i64;
    pub(super) fn isl_map_get_tuple_name(map: RawPtr, dim_type: c_int) -> *const c_char;
    pub(super) fn isl_space_get_dim_name(
        space: RawPtr,
        dim_type: c_int,
        pos: c_uint,
    ) -> *const c_char;
}

/// Copies a string isl allocated for the caller and frees it. `None` for NULL.
///
/// # Safety
/// `ptr` is NULL or a NUL-terminated string allocated with `malloc` that nothing else
/// frees.
pub(super) unsafe fn take_string(ptr: *mut c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    let text = CStr::from_ptr(ptr).to_string_lossy().into_owned();
    free(ptr.cast());
    Some(text)
}

/// Copies a string isl still owns. `None` for NULL.
///
/// # Safety
/// `ptr` is NULL or a NUL-terminated string that stays valid during the call.
pub(super) unsafe fn borrowed_string(ptr: *const c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    Some(CStr::from_ptr(ptr).to_string_lossy().into_owned())
}

/// The error isl recorded on `ctx` since the last reset, as (isl_error code, message),
/// and resets it. `None` when no error is recorded.
pub(super) fn take_ctx_error(ctx: RawPtr) -> Option<(c_int, String)> {
    if ctx == 0 {
        return None;
    }
    // SAFETY: `ctx` is a live isl_ctx (callers pass the pointer of an IslCtx or of an
    // object's context); the message pointer is owned by the context and copied at once.
    unsafe {
        let code = isl_ctx_last_error(ctx);
        if code == 0 {
            return None;
        }
        let message =
            borrowed_string(isl_ctx_last_error_msg(ctx)).unwrap_or_else(|| "unknown error".into());
        isl_ctx_reset_error(ctx);
        Some((code, message))
    }
}

/// True when the operation bound of `ctx` is used up: then even the smallest allocation
/// (a zero value) fails with a quota error. The probe costs one operation otherwise, and
/// clears the error it causes.
pub(super) fn operation_bound_reached(ctx: RawPtr) -> bool {
    if ctx == 0 {
        return false;
    }
    // SAFETY: `ctx` is a live isl_ctx; a value isl returns is ours and freed at once.
    let value = unsafe { isl_val_zero(ctx) };
    if value != 0 {
        // SAFETY: `value` is a live isl_val nothing else frees.
        unsafe { isl_val_free(value) };
        return false;
    }
    matches!(take_ctx_error(ctx), Some((code, _)) if code == isl_rs::Error::Quota.to_i32())
}
