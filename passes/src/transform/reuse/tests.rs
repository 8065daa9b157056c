//! Where reuse is lost, on hand-written regions: products of matrices (parametric and
//! constant sizes), stencils whose reuse spans a few rows, and statements sharing loops.

use super::*;
use crate::isl::IslCtx;
use crate::model::spec_builders::{array, read, statement, write};
use crate::model::ScopSpec;

const L2: u64 = 512 * 1024;

fn region(
    params: &[&str],
    arrays: &[(&str, &[&str])],
    statements: Vec<crate::model::StatementSpec>,
) -> ScopSpec {
    let list = params.join(", ");
    ScopSpec {
        name: "f:for.cond".into(),
        function: "f".into(),
        location: None,
        params: params.iter().map(|p| p.to_string()).collect(),
        context: format!("[{list}] -> {{ : }}"),
        assumptions: vec![],
        arrays: arrays
            .iter()
            .map(|(name, inner)| array(name, inner))
            .collect(),
        statements,
        alias_groups: vec![],
    }
}

fn analysed(spec: &ScopSpec) -> Reuse {
    locality(spec).temporal
}

fn locality(spec: &ScopSpec) -> Locality {
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, spec).unwrap();
    analyse(&scop, 3, L2).unwrap()
}

/// `C[i][j] += A[i][k] * B[k][j]` over `size` (a number or the parameter `n`).
fn matmul(size: &str) -> ScopSpec {
    let params: &[&str] = if size == "n" { &["n"] } else { &[] };
    let p = if size == "n" { "[n] -> " } else { "" };
    region(
        params,
        &[("A", &[size]), ("B", &[size]), ("C", &[size])],
        vec![statement(
            "S0",
            &format!("{p}{{ S0[i, j, k] : 0 <= i, j, k < {size} }}"),
            &[0, 0, 0, 0],
            vec![
                read("C", "{ S0[i, j, k] -> C[i, j] }"),
                read("A", "{ S0[i, j, k] -> A[i, k] }"),
                read("B", "{ S0[i, j, k] -> B[k, j] }"),
                write("C", "{ S0[i, j, k] -> C[i, j] }"),
            ],
        )],
    )
}

#[test]
fn a_parametric_product_loses_the_reuse_of_b_across_i() {
    let Reuse::Lost(lost) = analysed(&matmul("n")) else {
        panic!("reuse kept");
    };
    assert_eq!(
        lost[..],
        [LostReuse {
            statement: "S0".into(),
            level: 0,
            footprint: None,
            // Across j too: a column of B.
            levels: vec![0, 1],
        }]
    );
}

#[test]
fn a_large_constant_product_loses_it_with_the_footprint_in_bytes() {
    let Reuse::Lost(lost) = analysed(&matmul("1024")) else {
        panic!("reuse kept");
    };
    let lost = &lost[0];
    // One iteration of i: all of B, a row of A and a row of C.
    assert_eq!(lost.level, 0);
    assert_eq!(lost.footprint, Some(8 * (1024 * 1024 + 1024 + 1024)));
}

#[test]
fn a_small_product_keeps_its_reuse_in_cache() {
    // B is 40 x 40 doubles, 12.5 KiB: every reuse stays in cache.
    let reuse = analysed(&matmul("40"));
    assert_eq!(
        reuse,
        Reuse::Kept {
            largest: Some(8 * (40 * 40 + 40 + 40)),
            budget: L2 / 2
        }
    );
    assert!(reuse.why_not().unwrap().contains("stays in cache"));
}

/// `out[k][j][i] = u[k][j - 1][i] + u[k][j + 1][i] + u[k - 1][j][i] + u[k + 1][j][i]`
/// over `size`^3.
fn stencil(size: u32) -> ScopSpec {
    let s = size.to_string();
    let hi = size - 1;
    region(
        &[],
        &[("u", &[&s, &s]), ("out", &[&s, &s])],
        vec![statement(
            "S0",
            &format!("{{ S0[k, j, i] : 1 <= k, j < {hi} and 0 <= i < {size} }}"),
            &[0, 0, 0, 0],
            vec![
                read("u", "{ S0[k, j, i] -> u[k, j - 1, i] }"),
                read("u", "{ S0[k, j, i] -> u[k, j + 1, i] }"),
                read("u", "{ S0[k, j, i] -> u[k - 1, j, i] }"),
                read("u", "{ S0[k, j, i] -> u[k + 1, j, i] }"),
                write("out", "{ S0[k, j, i] -> out[k, j, i] }"),
            ],
        )],
    )
}

#[test]
fn a_stencil_whose_planes_fit_keeps_its_reuse() {
    // Reuse across k spans one plane of u and of out: 2 * 64 * 64 * 8 = 64 KiB.
    assert_eq!(
        analysed(&stencil(64)),
        Reuse::Kept {
            largest: Some(2 * 62 * 64 * 8),
            budget: L2 / 2
        }
    );
}

#[test]
fn a_stencil_whose_planes_do_not_fit_loses_the_reuse_across_planes() {
    let Reuse::Lost(lost) = analysed(&stencil(512)) else {
        panic!("reuse kept");
    };
    let lost = &lost[0];
    assert_eq!(lost.level, 0);
}

#[test]
fn statements_in_one_loop_add_up_and_short_ones_are_not_judged() {
    // Each statement alone touches 160 KiB per iteration of i (budget 256 KiB); the
    // two together lose the reuse of their row of X. T, 2 loops deep, is not judged
    // (nothing to tile), but it counts in S's loop.
    let spec = region(
        &[],
        &[
            ("X", &["20480"]),
            ("Y", &["20480"]),
            ("Z", &["20480"]),
            ("W", &["20480"]),
        ],
        vec![
            statement(
                "S0",
                "{ S0[i, j, k] : 0 <= i < 100 and 0 <= j < 2 and 0 <= k < 10240 }",
                &[0, 0, 0, 0],
                vec![
                    read("X", "{ S0[i, j, k] -> X[0, k] }"),
                    write("Y", "{ S0[i, j, k] -> Y[j, k] }"),
                ],
            ),
            statement(
                "S1",
                "{ S1[i, k] : 0 <= i < 100 and 0 <= k < 20480 }",
                &[0, 1, 0],
                vec![read("Z", "{ S1[i, k] -> Z[0, k] }")],
            ),
        ],
    );
    let reuse = analysed(&spec);
    assert!(reuse.lost_by("S0") && !reuse.lost_by("S1"));
    let Reuse::Lost(lost) = reuse else {
        panic!("reuse kept");
    };
    let lost = &lost[0];
    assert_eq!((lost.statement.as_str(), lost.level), ("S0", 0));
    assert_eq!(lost.footprint, Some(8 * (10240 + 2 * 10240 + 20480)));
}

#[test]
fn a_nest_without_reuse_says_so() {
    let spec = region(
        &["n"],
        &[("A", &["n", "n"]), ("B", &["n", "n"])],
        vec![statement(
            "S0",
            "[n] -> { S0[i, j, k] : 0 <= i, j, k < n }",
            &[0, 0, 0, 0],
            vec![
                read("A", "{ S0[i, j, k] -> A[i, j, k] }"),
                write("B", "{ S0[i, j, k] -> B[i, j, k] }"),
            ],
        )],
    );
    let reuse = analysed(&spec);
    assert_eq!(
        reuse,
        Reuse::Kept {
            largest: None,
            budget: L2 / 2
        }
    );
    assert_eq!(
        reuse.why_not().as_deref(),
        Some("no loop carries reuse of an element")
    );
}

#[test]
fn offsets_count_as_reuse_only_along_the_loop_that_steps_over_them() {
    assert!(multiple_of(&[0, 1, 0], &[0, -1, 0], &[0, 1, 0]));
    assert!(!multiple_of(&[0, 1, 0], &[0, 0, 0], &[1, 0, 0]));
    assert!(!multiple_of(&[0, 2, 0], &[0, 0, 0], &[0, 1, 0]));
    assert!(!multiple_of(&[0, 1, 0], &[0, 1, 0], &[0, 1, 0]));
}

#[test]
fn a_strided_innermost_access_is_reorderable_when_another_loop_walks_it_contiguously() {
    // i-j-k: B[k][j] is strided in k and contiguous in j.
    assert_eq!(
        locality(&matmul("n")).reorderable,
        Some(("S0".to_string(), "B".to_string()))
    );
}

#[test]
fn an_unrolled_last_dimension_is_not_reorderable() {
    // u[i][j][k][0..4] = 1 after the loop over the last dimension was unrolled: every
    // loop moves a whole row of 5, no order walks it better.
    let writes = (0..5)
        .map(|m| write("u", &format!("{{ S0[i, j, k] -> u[i, j, k, {m}] }}")))
        .collect();
    let spec = region(
        &["n"],
        &[("u", &["24", "24", "5"])],
        vec![statement(
            "S0",
            "[n] -> { S0[i, j, k] : 0 <= i, j, k < n and n <= 24 }",
            &[0, 0, 0, 0],
            writes,
        )],
    );
    let found = locality(&spec);
    assert_eq!(found.reorderable, None);
    assert_eq!(
        found.temporal,
        Reuse::Kept {
            largest: None,
            budget: L2 / 2
        }
    );
}

#[test]
fn a_parameter_in_an_offset_does_not_hide_a_better_loop_order() {
    // mgs_qr: d += Q[i][k] * A[i][j] in loops j, i, with k fixed outside the region:
    // Q's element at the origin depends on k, its steps do not.
    let spec = region(
        &["k", "n", "m"],
        &[("Q", &["n"]), ("A", &["n"])],
        vec![statement(
            "S0",
            "[k, n, m] -> { S0[j, i] : k < j < n and 0 <= i < m }",
            &[0, 0, 0],
            vec![
                read("Q", "[k] -> { S0[j, i] -> Q[i, k] }"),
                read("A", "{ S0[j, i] -> A[i, j] }"),
            ],
        )],
    );
    assert_eq!(
        locality(&spec).reorderable,
        Some(("S0".to_string(), "Q".to_string()))
    );
}

#[test]
fn offsets_with_a_parameter_still_form_group_reuse() {
    // u[j + 1][i + c] and u[j - 1][i + c]: one group, two steps of j apart, whatever c.
    let spec = region(
        &["c"],
        &[("u", &["512"])],
        vec![statement(
            "S0",
            "{ S0[j, i] : 1 <= j < 511 and 0 <= i < 512 }",
            &[0, 0, 0],
            vec![
                read("u", "[c] -> { S0[j, i] -> u[j + 1, i + c] }"),
                read("u", "[c] -> { S0[j, i] -> u[j - 1, i + c] }"),
            ],
        )],
    );
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, &spec).unwrap();
    // Reuse across j spans one row of u: 4 KiB.
    assert_eq!(
        analyse(&scop, 2, L2).unwrap().temporal,
        Reuse::Kept {
            largest: Some(512 * 8),
            budget: L2 / 2
        }
    );
}

/// Floyd-Warshall after LLVM's PRE: `dik = D[i][k]` in front of the j loop (S0), then
/// the update of `D[i][j]` (S1); with `copy_back`, a sibling nest copies D into E.
fn row_preamble(copy_back: bool) -> ScopSpec {
    let mut statements = vec![
        statement(
            "S0",
            "[n] -> { S0[k, i] : 0 <= k, i < n }",
            &[0, 0, 0],
            vec![read("D", "{ S0[k, i] -> D[i, k] }")],
        ),
        statement(
            "S1",
            "[n] -> { S1[k, i, j] : 0 <= k, i, j < n }",
            &[0, 0, 1, 0],
            vec![
                read("D", "{ S1[k, i, j] -> D[k, j] }"),
                read("D", "{ S1[k, i, j] -> D[i, j] }"),
                write("D", "{ S1[k, i, j] -> D[i, j] }"),
            ],
        ),
    ];
    if copy_back {
        statements.push(statement(
            "S2",
            "[n] -> { S2[k, i, j] : 0 <= k, i, j < n }",
            &[0, 1, 0, 0],
            vec![
                read("D", "{ S2[k, i, j] -> D[i, j] }"),
                write("E", "{ S2[k, i, j] -> E[i, j] }"),
            ],
        ));
    }
    region(&["n"], &[("D", &["n"]), ("E", &["n"])], statements)
}

#[test]
fn a_statement_between_loops_is_reorderable_only_with_sibling_nests() {
    // S0's D[i][k] is strided in i and contiguous in k, but S0 runs once per row: alone
    // it is no reason to ask for a new loop order; next to a sibling nest it may be
    // part of a fusion that is.
    assert_eq!(locality(&row_preamble(false)).reorderable, None);
    assert_eq!(
        locality(&row_preamble(true)).reorderable,
        Some(("S0".to_string(), "D".to_string()))
    );
}

/// `for i: for k: s[i] += A[i][k] * x[k]` (`s` kept in `y[i]`), in `ty`.
fn row_products(ty: &str) -> ScopSpec {
    let mut spec = region(
        &["n"],
        &[("A", &["n"]), ("x", &[]), ("y", &[])],
        vec![statement(
            "S0",
            "[n] -> { S0[i, k] : 0 <= i, k < n }",
            &[0, 0, 0],
            vec![
                read("y", "{ S0[i, k] -> y[i] }"),
                read("A", "{ S0[i, k] -> A[i, k] }"),
                read("x", "{ S0[i, k] -> x[k] }"),
                write("y", "{ S0[i, k] -> y[i] }"),
            ],
        )],
    );
    for array in &mut spec.arrays {
        array.element_type = ty.into();
    }
    spec
}

#[test]
fn two_loops_accumulating_a_float_per_row_are_a_chain() {
    assert_eq!(
        locality(&row_products("double")).chain.as_deref(),
        Some("S0")
    );
    assert_eq!(
        locality(&row_products("float")).chain.as_deref(),
        Some("S0")
    );
}

#[test]
fn integer_sums_and_one_element_for_all_rows_are_no_chain() {
    // LLVM vectorizes integer reductions.
    assert_eq!(locality(&row_products("i64")).chain, None);
    // One element for every row: the rows' chains are one chain.
    let mut spec = row_products("double");
    for access in &mut spec.statements[0].accesses {
        if access.array == "y" {
            access.relation = "{ S0[i, k] -> y[0] }".into();
        }
    }
    assert_eq!(locality(&spec).chain, None);
    // The product of matrices is three loops deep: the three-loop rules apply.
    assert_eq!(locality(&matmul("n")).chain, None);
}
