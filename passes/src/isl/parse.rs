//! Reading isl objects from text, safely: a bad string gives `IslError::Parse` naming
//! what it was for, never a panic, a crash or a message on stderr.
//!
//! Relies on isl's stream reader (`isl_stream_read_*`), which returns NULL and records an
//! error on the context for text it cannot read, and on `isl_stream_is_empty` to find text
//! left over after the object (isl's `*_read_from_str` silently ignores it, so
//! `{ S0[i] } }` would otherwise be accepted). A string containing a NUL byte is rejected
//! before it reaches C.

use std::ffi::CString;

use super::ctx::{CtxRef, IslCtx};
use super::error::IslError;
use super::map::Map;
use super::object::error_after_raw_call;
use super::raw::{self, RawPtr};
use super::set::Set;
use super::union_map::UnionMap;
use super::union_set::UnionSet;

/// Parses an isl set; `what` says what it is for (`domain of statement S0`).
pub fn parse_set(ctx: &IslCtx, text: &str, what: &str) -> Result<Set, IslError> {
    parse(ctx, text, what)
}

/// Parses an isl map (a set is read as a map from the empty tuple, which callers' space
/// checks then reject).
pub fn parse_map(ctx: &IslCtx, text: &str, what: &str) -> Result<Map, IslError> {
    parse(ctx, text, what)
}

/// Parses an isl union set.
pub fn parse_union_set(ctx: &IslCtx, text: &str, what: &str) -> Result<UnionSet, IslError> {
    parse(ctx, text, what)
}

/// Parses an isl union map.
pub fn parse_union_map(ctx: &IslCtx, text: &str, what: &str) -> Result<UnionMap, IslError> {
    parse(ctx, text, what)
}

/// An isl object type that isl's stream reader can produce.
trait Readable: Sized {
    /// The kind of object, for messages (`set`, `union map`).
    const KIND: &'static str;

    /// Reads one object from a stream: a new object, or NULL with an error recorded.
    ///
    /// # Safety
    /// `stream` is a live isl stream.
    unsafe fn read(stream: RawPtr) -> RawPtr;

    /// # Safety
    /// `ptr` is a live object of this type, made in `ctx`, that nothing else frees.
    unsafe fn adopt(ctx: &CtxRef, ptr: RawPtr) -> Self;
}

macro_rules! readable {
    ($ty:ty, $kind:literal, $reader:ident) => {
        impl Readable for $ty {
            const KIND: &'static str = $kind;
            unsafe fn read(stream: RawPtr) -> RawPtr {
                raw::$reader(stream)
            }
            unsafe fn adopt(ctx: &CtxRef, ptr: RawPtr) -> Self {
                <$ty>::adopt(ctx, ptr)
            }
        }
    };
}

readable!(Set, "set", isl_stream_read_set);
readable!(Map, "map", isl_stream_read_map);
readable!(UnionSet, "union set", isl_stream_read_union_set);
readable!(UnionMap, "union map", isl_stream_read_union_map);

fn parse<T: Readable>(ctx: &IslCtx, text: &str, what: &str) -> Result<T, IslError> {
    let kind = T::KIND;
    let parse_error = |message: String| IslError::Parse {
        what: what.to_string(),
        text: text.to_string(),
        message,
    };
    let Ok(c_text) = CString::new(text) else {
        return Err(parse_error("it contains a NUL byte".into()));
    };
    if text.trim().is_empty() {
        return Err(parse_error(format!(
            "expected an isl {kind}, found nothing"
        )));
    }
    // An error left on the context by someone else must not be taken for ours.
    raw::take_ctx_error(ctx.raw());
    let operation = format!("parsing the {what}");
    // SAFETY: the context is live and `c_text` outlives the stream, which is freed below
    // on every path.
    let stream = unsafe { raw::isl_stream_new_str(ctx.raw(), c_text.as_ptr()) };
    if stream == 0 {
        return Err(error_after_raw_call(&operation, ctx.raw()));
    }
    // SAFETY: `stream` is live; a non-NULL result is a new object we own.
    let object = unsafe { T::read(stream) };
    // SAFETY: a non-NULL result of the reader is a new object nothing else frees.
    let object = (object != 0).then(|| unsafe { T::adopt(ctx.owner(), object) });
    let read_error = raw::take_ctx_error(ctx.raw());
    // SAFETY: `stream` is live until freed here, once.
    let leftover = unsafe {
        let leftover =
            read_error.is_none() && object.is_some() && raw::isl_stream_is_empty(stream) == 0;
        raw::isl_stream_free(stream);
        leftover
    };
    raw::take_ctx_error(ctx.raw());
    // A reader stopped by the operation bound may record a syntax error after the quota
    // error, hiding it: a failure while the bound is used up is the bound's.
    let limit = || IslError::OperationLimit {
        operation: operation.clone(),
    };
    if let Some((code, message)) = read_error {
        return Err(match IslError::from_code(&operation, code, message) {
            IslError::Other { .. } if raw::operation_bound_reached(ctx.raw()) => limit(),
            IslError::Other { message, .. } => {
                parse_error(format!("{message} (expected an isl {kind})"))
            }
            limit => limit,
        });
    }
    match object {
        None if raw::operation_bound_reached(ctx.raw()) => Err(limit()),
        None => Err(parse_error(format!("expected an isl {kind}"))),
        Some(_) if leftover => Err(parse_error(format!("unexpected text after the {kind}"))),
        Some(object) => Ok(object),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> IslCtx {
        IslCtx::new(None).expect("an isl context")
    }

    #[test]
    fn set_text_round_trips_through_isl_printing() {
        let ctx = ctx();
        let set = parse_set(&ctx, "[n] -> { S0[i0] : 0 <= i0 < n }", "domain").unwrap();
        assert_eq!(set.to_str().unwrap(), "[n] -> { S0[i0] : 0 <= i0 < n }");
        assert_eq!(set.tuple_name().as_deref(), Some("S0"));
        assert_eq!(set.n_dims().unwrap(), 1);
        assert_eq!(set.param_names().unwrap(), vec!["n".to_string()]);
    }

    #[test]
    fn bad_set_text_is_a_parse_error_naming_what_it_was_for() {
        let ctx = ctx();
        for bad in [
            "{ S0[i0] : 0 <= i0 < }",
            "[n] -> { S0[i0] : i0 < k }",
            "{ S0[i0] -> A[i0] }",
            "not isl at all",
            "{",
            "",
            "   ",
            "{ S0[i0] } }",
            "{ S0[i0] : i0 * i0 > 3 }",
            "{ S0[i\0] }",
        ] {
            match parse_set(&ctx, bad, "domain of statement S0") {
                Err(IslError::Parse { what, text, .. }) => {
                    assert_eq!(what, "domain of statement S0");
                    assert_eq!(text, bad);
                }
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
        // The context still works after all these errors.
        assert!(parse_set(&ctx, "{ S[i] : 0 <= i < 4 }", "x").is_ok());
    }

    #[test]
    fn bad_map_and_union_texts_are_parse_errors() {
        let ctx = ctx();
        assert!(matches!(
            parse_map(&ctx, "{ S0[i] -> }", "read of S0"),
            Err(IslError::Parse { .. })
        ));
        assert!(matches!(
            parse_union_set(&ctx, "{ S0[i]; S1[ }", "domains"),
            Err(IslError::Parse { .. })
        ));
        assert!(matches!(
            parse_union_map(&ctx, "{ S0[i] -> [i] } trailing", "schedule"),
            Err(IslError::Parse { .. })
        ));
    }

    #[test]
    fn a_set_read_as_a_map_has_an_empty_domain_tuple() {
        let ctx = ctx();
        let map = parse_map(&ctx, "{ A[i] : 0 <= i < 3 }", "x").unwrap();
        assert_eq!(map.n_in().unwrap(), 0);
        assert_eq!(map.domain_name(), None);
        assert_eq!(map.range_name().as_deref(), Some("A"));
    }

    #[test]
    fn parse_stopped_by_the_operation_bound_is_an_operation_limit() {
        let pieces: Vec<String> = (0..30)
            .map(|k| format!("S{k}[i, j] -> A[i + {k}, j - {k}] : 0 <= i < n and j >= {k}"))
            .collect();
        let text = format!("[n] -> {{ {} }}", pieces.join("; "));
        let ctx = ctx();
        let mut stopped = 0;
        for bound in 1..400 {
            ctx.set_max_operations(Some(bound));
            ctx.start_region();
            match parse_union_map(&ctx, &text, "accesses") {
                Ok(_) => {}
                Err(error) => {
                    assert!(error.is_operation_limit(), "bound {bound}: {error}");
                    stopped += 1;
                }
            }
        }
        assert!(stopped > 0);
    }

    #[test]
    fn parse_error_message_says_what_and_shows_text() {
        let ctx = ctx();
        let error = parse_set(&ctx, "{ S0[i0 : }", "domain of statement S0").unwrap_err();
        let shown = error.to_string();
        assert!(shown.contains("domain of statement S0"), "{shown}");
        assert!(shown.contains("{ S0[i0 : }"), "{shown}");
    }
}
