use super::*;
use crate::isl::{parse_map, parse_set};

fn ctx() -> IslCtx {
    IslCtx::new(None).expect("an isl context")
}

fn params(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// The built map is the one isl reads from `expected`: equal, printed alike, with the
/// same dimension names.
fn assert_same_map(built: &Map, expected: &str) {
    let parsed = parse_map(&built.ctx(), expected, "expected").unwrap();
    assert!(built.is_equal(&parsed).unwrap(), "{built:?} vs {expected}");
    assert_eq!(built.to_str().unwrap(), parsed.to_str().unwrap());
    let names = |map: &Map| {
        let domain = map.copy().unwrap().domain().unwrap();
        let range = map.copy().unwrap().range().unwrap();
        let dims = |set: &Set| -> Vec<Option<String>> {
            (0..set.n_dims().unwrap())
                .map(|k| set.dim_name(k))
                .collect()
        };
        (dims(&domain), dims(&range), map.param_names().unwrap())
    };
    assert_eq!(names(built), names(&parsed), "{expected}");
}

fn assert_same_set(built: &Set, expected: &str) {
    let parsed = parse_set(&built.ctx(), expected, "expected").unwrap();
    assert!(built.is_equal(&parsed).unwrap(), "{built:?} vs {expected}");
    assert_eq!(built.to_str().unwrap(), parsed.to_str().unwrap());
    assert_eq!(built.tuple_name(), parsed.tuple_name());
    assert_eq!(built.param_names().unwrap(), parsed.param_names().unwrap());
    let n = parsed.n_dims().unwrap();
    let dims = |set: &Set| (0..n).map(|k| set.dim_name(k)).collect::<Vec<_>>();
    assert_eq!(dims(built), dims(&parsed));
}

#[test]
fn a_flattened_schedule_is_built_from_counters_and_constants() {
    let ctx = ctx();
    let built = Map::from_affine(
        &ctx,
        &params(&["n", "m"]),
        &Tuple::counters(Some("S0"), "i", 2),
        None,
        &[
            AffineExpr::Constant(0),
            AffineExpr::Input(0),
            AffineExpr::Constant(1),
            AffineExpr::Input(1).offset(3),
            AffineExpr::Constant(0),
        ],
    )
    .unwrap();
    assert_same_map(&built, "[n, m] -> { S0[i0, i1] -> [0, i0, 1, i1 + 3, 0] }");
}

#[test]
fn a_skewed_strip_is_a_floor_of_a_shifted_counter() {
    let ctx = ctx();
    let built = Map::from_affine(
        &ctx,
        &[],
        &Tuple::counters(None, "d", 2),
        None,
        &[
            AffineExpr::Input(0),
            AffineExpr::Input(0)
                .times(2)
                .plus(AffineExpr::Input(1).offset(-1).floor_div(4)),
        ],
    )
    .unwrap();
    assert_same_map(
        &built,
        "{ [d0, d1] -> [d0, 2 * d0 + floor((d1 + (-1)) / 4)] }",
    );
}

#[test]
fn a_fold_is_a_modulo_into_the_same_array() {
    let ctx = ctx();
    let built = Map::from_affine(
        &ctx,
        &[],
        &Tuple::counters(Some("A"), "c", 2),
        Some("A"),
        &[AffineExpr::Input(0).modulo(2), AffineExpr::Input(1)],
    )
    .unwrap();
    assert_same_map(&built, "{ A[c0, c1] -> A[c0 mod 2, c1] }");
}

#[test]
fn a_difference_of_inputs_is_one_image() {
    let ctx = ctx();
    let built = Map::from_affine(
        &ctx,
        &[],
        &Tuple::new(None, params(&["j0", "i0", "i1"])),
        None,
        &[AffineExpr::Input(2).minus(AffineExpr::Input(0))],
    )
    .unwrap();
    assert_same_map(&built, "{ [j0, i0, i1] -> [i1 - j0] }");
}

#[test]
fn a_nesting_splits_a_tuple_in_a_named_pair() {
    let ctx = ctx();
    let built = Map::nesting(
        &ctx,
        &Tuple::new(None, params(&["p0", "o0", "o1"])),
        "isolate",
        1,
    )
    .unwrap();
    assert_same_map(&built, "{ [p0, o0, o1] -> isolate[[p0] -> [o0, o1]] }");
}

#[test]
fn equal_ordered_and_shifted_pairs_narrow_a_universe() {
    let ctx = ctx();
    let universe = || {
        Map::universe_between(
            &ctx,
            &params(&["n"]),
            &Tuple::counters(None, "i", 3),
            &Tuple::counters(None, "o", 3),
        )
        .unwrap()
    };
    let built = universe()
        .equate(0)
        .unwrap()
        .shifted(2, -2)
        .unwrap()
        .order(1, true)
        .unwrap();
    let expected =
        "[n] -> { [i0, i1, i2] -> [o0, o1, o2] : o0 = i0 and o2 = i2 + (-2) and i1 < o1 }";
    let parsed = parse_map(&ctx, expected, "expected").unwrap();
    assert!(built.is_equal(&parsed).unwrap(), "{built:?}");
    let either = universe()
        .order(0, true)
        .unwrap()
        .union(universe().order(0, false).unwrap())
        .unwrap();
    let parsed = parse_map(
        &ctx,
        "[n] -> { [i0, i1, i2] -> [o0, o1, o2] : o0 > i0 or o0 < i0 }",
        "e",
    )
    .unwrap();
    assert!(either.is_equal(&parsed).unwrap(), "{either:?}");
}

#[test]
fn bounded_universes_are_the_sets_their_constraints_read() {
    let ctx = ctx();
    let carried = Set::universe(&ctx, &[], &Tuple::counters(None, "d", 3))
        .unwrap()
        .fix_dim(0, 0)
        .unwrap()
        .lower_bound_dim(1, 1)
        .unwrap();
    assert_same_set(&carried, "{ [d0, d1, d2] : d0 = 0 and d1 > 0 }");
    let copies = Set::universe(&ctx, &[], &Tuple::counters(None, "r", 2))
        .unwrap()
        .lower_bound_dim(1, 0)
        .unwrap()
        .upper_bound_dim(1, 3)
        .unwrap();
    assert_same_set(&copies, "{ [r0, r1] : 0 <= r1 < 4 }");
    let large = Set::params_universe(&ctx, &params(&["n", "m"]))
        .unwrap()
        .lower_bound_param(0, 32)
        .unwrap()
        .lower_bound_param(1, 32)
        .unwrap();
    assert_same_set(&large, "[n, m] -> { : n >= 32 and m >= 32 }");
    let named = Set::universe(&ctx, &params(&["n"]), &Tuple::counters(Some("S1"), "i", 2)).unwrap();
    assert_same_set(&named, "[n] -> { S1[i0, i1] }");
    let origin = Set::universe(&ctx, &[], &Tuple::new(None, Vec::new())).unwrap();
    assert_same_set(&origin, "{ [] }");
}

#[test]
fn constants_beyond_32_bits_are_kept_whole() {
    let ctx = ctx();
    let built = Map::from_affine(
        &ctx,
        &[],
        &Tuple::counters(None, "i", 1),
        None,
        &[AffineExpr::Input(0).offset(5_000_000_000)],
    )
    .unwrap();
    assert_same_map(&built, "{ [i0] -> [i0 + 5000000000] }");
    let far = Set::universe(&ctx, &[], &Tuple::counters(None, "d", 1))
        .unwrap()
        .lower_bound_dim(0, -5_000_000_000)
        .unwrap();
    assert_same_set(&far, "{ [d0] : d0 >= -5000000000 }");
}
