//! polyrust's isl layer: the only module that touches isl-rs (and, for the few gaps and
//! unsafe spots of isl-rs, isl's C API directly). Everything else sees owned values:
//! `Set`, `Map`, `UnionSet`, `UnionMap`, `Schedule`, and the dataflow analysis
//! (`UnionAccessInfo`, `UnionFlow`), made in an `IslCtx` and consumed or
//! borrowed the way isl takes or keeps its arguments. No raw isl pointer leaves this module.
//!
//! Every call returns `Result<_, IslError>`: isl-rs errors, NULL results and the
//! operation bound of the context (`IslError::OperationLimit`) all end up there, so a
//! region that is too costly or malformed is reported and skipped instead of crashing or
//! hanging the compiler.
//!
//! Relies on: isl-rs 0.3.1 (which builds and links a private static isl) for most calls;
//! `raw` for string results, tuple and parameter names, error messages and the stream
//! reader. isl-rs's `ASTNodeType` numbering is off by one and is not used.

pub mod ast;
mod construct;
mod count;
mod ctx;
mod error;
mod flow;
mod map;
mod object;
mod parse;
mod raw;
mod schedule;
pub(crate) mod scheduler;
mod set;
mod union_map;
mod union_set;

pub use construct::{AffineExpr, Tuple};
pub use ctx::IslCtx;
pub use error::IslError;
pub use flow::{UnionAccessInfo, UnionFlow};
pub use map::Map;
pub use parse::{parse_map, parse_set, parse_union_map, parse_union_set};
pub use schedule::Schedule;
pub use set::Set;
pub use union_map::UnionMap;
pub use union_set::UnionSet;

#[cfg(test)]
mod tests {
    use super::*;

    /// A set whose lexmin needs real work: many disjuncts in several dimensions.
    fn expensive_set(ctx: &IslCtx) -> Set {
        let disjuncts: Vec<String> = (0..40)
            .map(|k| {
                format!(
                    "(0 <= i, j, k <= 100 and i + {k} * j >= {k} and j - k <= {k} \
                     and i + j + k <= n - {k} and 2i - 3k >= -{k})"
                )
            })
            .collect();
        let text = format!("[n] -> {{ [i, j, k] : {} }}", disjuncts.join(" or "));
        parse_set(ctx, &text, "test set").expect("the test set parses")
    }

    #[test]
    fn points_of_a_triangle_at_n_3_are_its_six_lattice_points_and_a_map_wraps_into_pairs() {
        let ctx = IslCtx::new(None).unwrap();
        let params = parse_set(&ctx, "[n] -> { : n = 3 }", "n").unwrap();
        let triangle = parse_set(&ctx, "[n] -> { S[i, j] : 0 <= j <= i < n }", "t").unwrap();
        let points = triangle
            .copy()
            .unwrap()
            .intersect_params(params)
            .and_then(Set::for_some_params)
            .and_then(|set| set.points(100))
            .unwrap();
        assert_eq!(
            points,
            vec![
                vec![0, 0],
                vec![1, 0],
                vec![1, 1],
                vec![2, 0],
                vec![2, 1],
                vec![2, 2]
            ]
        );
        // Parameters left, an unbounded set or too many points are errors.
        assert!(triangle.points(100).is_err());
        let half_line = parse_set(&ctx, "{ [i] : i >= 0 }", "h").unwrap();
        assert!(half_line.points(100).is_err());
        let square = parse_set(&ctx, "{ [i, j] : 0 <= i, j < 10 }", "s").unwrap();
        assert!(square.points(99).is_err());
        let shift = parse_map(&ctx, "{ [i] -> [i + 1] : 0 <= i < 2 }", "m").unwrap();
        assert_eq!(
            shift.wrapped().and_then(|set| set.points(10)).unwrap(),
            vec![vec![0, 1], vec![1, 2]]
        );
    }

    #[test]
    fn a_point_of_a_set_s_space_keeps_its_tuple_and_parameters() {
        let ctx = IslCtx::new(None).unwrap();
        let domain = parse_set(
            &ctx,
            "[n, m] -> { S3[i, j] : 0 <= i < n and 0 <= j < m }",
            "d",
        )
        .unwrap();
        let point = domain.point_of_space(&[0, 1], 0).unwrap();
        let expected = parse_set(&ctx, "[n, m] -> { S3[0, 1] : n = 0 and m = 0 }", "p").unwrap();
        assert!(point.is_equal(&expected).unwrap(), "{:?}", point.to_str());
        assert!(domain.point_of_space(&[0], 0).is_err());
    }

    #[test]
    fn operation_limit_is_reported_not_hung() {
        let ctx = IslCtx::new(None).unwrap();
        let set = expensive_set(&ctx);
        ctx.set_max_operations(Some(1));
        ctx.start_region();
        let error = set.lexmin().unwrap_err();
        assert!(error.is_operation_limit(), "{error:?}");
    }

    #[test]
    fn every_call_fails_with_operation_limit_until_the_next_region() {
        let ctx = IslCtx::new(Some(1)).unwrap();
        ctx.start_region();
        let error = parse_set(&ctx, "{ [i] : 0 <= i < 10 }", "a set").unwrap_err();
        assert!(error.is_operation_limit(), "{error:?}");
        ctx.set_max_operations(None);
        ctx.start_region();
        let set = parse_set(&ctx, "{ [i] : 0 <= i < 10 }", "a set").unwrap();
        assert_eq!(set.lexmin().unwrap().to_str().unwrap(), "{ [i = 0] }");
    }

    #[test]
    fn start_region_gives_each_region_the_whole_bound() {
        let ctx = IslCtx::new(Some(200_000)).unwrap();
        for _ in 0..20 {
            ctx.start_region();
            let set = expensive_set(&ctx);
            set.coalesce().unwrap();
        }
        assert_eq!(ctx.max_operations(), Some(200_000));
    }

    #[test]
    fn yes_no_questions_stopped_by_the_bound_are_operation_limits() {
        let ctx = IslCtx::new(None).unwrap();
        let set = expensive_set(&ctx).to_union_set().unwrap();
        let other = expensive_set(&ctx)
            .lexmin()
            .unwrap()
            .to_union_set()
            .unwrap();
        ctx.set_max_operations(Some(1));
        ctx.start_region();
        let error = set.is_subset(&other).unwrap_err();
        assert!(error.is_operation_limit(), "{error:?}");
        // The error was read and cleared: the next region starts clean.
        ctx.set_max_operations(None);
        ctx.start_region();
        assert!(other.is_subset(&set).unwrap());
    }

    #[test]
    fn union_map_lists_its_maps_even_after_the_bound() {
        let ctx = IslCtx::new(None).unwrap();
        let umap = parse_union_map(&ctx, "[n] -> { A[i] -> B[i]; A[i] -> C[i + n] }", "x").unwrap();
        ctx.set_max_operations(Some(1));
        ctx.start_region();
        let mut texts: Vec<String> = umap
            .maps()
            .unwrap()
            .iter()
            .map(|m| m.to_str().unwrap())
            .collect();
        texts.sort();
        assert_eq!(
            texts,
            ["[n] -> { A[i] -> B[i] }", "[n] -> { A[i] -> C[n + i] }"]
        );
    }

    #[test]
    fn objects_keep_their_context_alive_after_the_handle_is_dropped() {
        let ctx = IslCtx::new(None).unwrap();
        let set = parse_set(&ctx, "[n] -> { S[i] : 0 <= i < n }", "a set").unwrap();
        drop(ctx);
        let other = parse_set(&set.ctx(), "[n] -> { S[i] : i >= 2 }", "another").unwrap();
        let both = set.intersect(other).unwrap();
        assert_eq!(both.to_str().unwrap(), "[n] -> { S[i] : 2 <= i < n }");
    }

    #[test]
    fn zero_bound_means_unbounded() {
        let ctx = IslCtx::new(Some(0)).unwrap();
        assert_eq!(ctx.max_operations(), None);
        expensive_set(&ctx).lexmin().unwrap();
    }

    #[test]
    fn union_map_order_relation_of_a_schedule() {
        let ctx = IslCtx::new(None).unwrap();
        let schedule = parse_union_map(
            &ctx,
            "{ S0[i] -> [i, 0] : 0 <= i < 2; S1[i] -> [i, 1] : 0 <= i < 2 }",
            "schedule",
        )
        .unwrap();
        let before = schedule.copy().unwrap().lex_lt_union_map(schedule).unwrap();
        let expected = parse_union_map(
            &ctx,
            "{ S0[i] -> S1[j] : 0 <= i <= j < 2; S1[i] -> S0[j] : 0 <= i < j < 2; \
               S0[0] -> S0[1]; S1[0] -> S1[1] }",
            "expected",
        )
        .unwrap();
        assert!(before.is_equal(&expected).unwrap(), "{before:?}");
    }

    #[test]
    fn dim_value_range_is_none_for_empty_or_unbounded_sets() {
        let ctx = IslCtx::new(None).unwrap();
        let set = |text| parse_set(&ctx, text, "a set").unwrap();
        let bounded = set("[n] -> { [i, j] : -3 <= j <= 5 and 0 <= i < n }");
        assert_eq!(bounded.dim_value_range(1).unwrap(), Some((-3, 5)));
        assert_eq!(bounded.dim_value_range(0).unwrap(), None);
        let empty = set("{ [i] : i > 0 and i < 0 }");
        assert_eq!(empty.dim_value_range(0).unwrap(), None);
        assert!(bounded.dim_value_range(2).is_err());
    }

    #[test]
    fn deltas_of_a_composed_access_give_the_reuse_distance() {
        let ctx = IslCtx::new(None).unwrap();
        let map = |text| parse_map(&ctx, text, "an access").unwrap();
        let left = map("{ [i, j] -> A[i, j + 1] }");
        let right = map("{ [i, j] -> A[i, j] }");
        let same_element = left.apply_range(right.reverse().unwrap()).unwrap();
        let expected = map("{ [i, j] -> [i, j + 1] }");
        assert!(same_element.is_subset(&expected).unwrap());
        assert!(expected.is_subset(&same_element).unwrap());
        let deltas = same_element.deltas().unwrap();
        assert_eq!(deltas.to_str().unwrap(), "{ [i = 0, j = 1] }");
    }

    #[test]
    fn schedule_tree_prints_as_block_yaml() {
        let ctx = IslCtx::new(None).unwrap();
        let domain = parse_union_set(&ctx, "{ S0[i] : 0 <= i < 4 }", "domain").unwrap();
        let band = parse_union_map(&ctx, "{ S0[i] -> [i] }", "band").unwrap();
        let schedule = Schedule::from_domain(domain)
            .unwrap()
            .insert_band(band)
            .unwrap();
        let yaml = schedule.to_block_yaml().unwrap();
        assert!(
            yaml.starts_with("domain: \"{ S0[i] : 0 <= i <= 3 }\"\n"),
            "{yaml}"
        );
        assert!(
            yaml.contains("schedule: \"[{ S0[i] -> [(i)] }]\""),
            "{yaml}"
        );
    }
}
