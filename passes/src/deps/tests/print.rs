//! The printed form: stable, sorted, isl's own notation.

use super::*;

#[test]
fn print_shows_relations_reductions_and_loops() {
    let (_scop, deps) = deps_with(
        &scalar_sum(),
        &DepsOptions {
            reductions: vec![reduction("S1", "s")],
            allow_reassociation: false,
        },
    );
    let expected = "\
Dependences of sum:entry
  Flow:
    [n] -> { S0[] -> S1[i0 = 0] : n > 0 }
    [n] -> { S0[] -> S2[] : n <= 0 }
    [n] -> { S1[i0] -> S1[i0' = 1 + i0] : 0 <= i0 <= -2 + n }
    [n] -> { S1[i0 = -1 + n] -> S2[] : n > 0 }
  Anti:
    [n] -> { S1[i0] -> S1[i0' = 1 + i0] : 0 <= i0 <= -2 + n }
  Output:
    [n] -> { S0[] -> S1[i0 = 0] : n > 0 }
    [n] -> { S1[i0] -> S1[i0' = 1 + i0] : 0 <= i0 <= -2 + n }
  Reductions:
    S1 on s, kept (reassociation not allowed):
      [n] -> { S1[i0] -> S1[i0' = 1 + i0] : 0 <= i0 <= -2 + n }
  Loops carrying dependences:
    S0: not in a loop
    S1: level 1 (i0) carried (reduction)
    S2: not in a loop
";
    assert_eq!(deps.print(), expected);
}

#[test]
fn print_without_dependences_says_none() {
    let spec = region(
        "copy:for.body",
        &["n"],
        vec![array("A", &[]), array("B", &[])],
        vec![statement(
            "S0",
            "[n] -> { S0[i0] : 0 <= i0 < n }",
            &[0, 0],
            vec![
                read("B", "{ S0[i0] -> B[i0] }"),
                write("A", "{ S0[i0] -> A[i0] }"),
            ],
        )],
    );
    let (_scop, deps) = deps_of(&spec);
    let expected = "\
Dependences of copy:for.body
  Flow: none
  Anti: none
  Output: none
  Reductions: none
  Loops carrying dependences:
    S0: level 1 (i0) parallel
";
    assert_eq!(deps.print(), expected);
}

#[test]
fn print_of_matmul_names_the_loop_that_carries_each_kind() {
    let (_scop, deps) = deps_of(&matmul());
    let printed = deps.print();
    assert!(
        printed.ends_with(
            "  Loops carrying dependences:
    S0: level 1 (i0) parallel; level 2 (i1) parallel
    S1: level 1 (i0) parallel; level 2 (i1) parallel; level 3 (i2) carried (flow, anti, output)
"
        ),
        "{printed}"
    );
    // Same text from another context: nothing depends on isl's internal order.
    let (_scop, again) = deps_of(&matmul());
    assert_eq!(again.print(), printed);
}

#[test]
fn print_of_relaxed_reduction_says_so() {
    let (_scop, deps) = deps_with(
        &matmul(),
        &DepsOptions {
            reductions: vec![reduction("S1", "C")],
            allow_reassociation: true,
        },
    );
    let printed = deps.print();
    assert!(
        printed.contains("    S1 on C, relaxed (reassociation allowed):\n      [n, m, p] -> {"),
        "{printed}"
    );
    assert!(
        printed.contains("level 3 (i2) parallel with reduction\n"),
        "{printed}"
    );
}

#[test]
fn print_is_complete_after_the_operation_bound_is_reached() {
    let (ctx, scop) = build(&jacobi());
    let deps = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
    let unbounded = deps.print();
    ctx.set_max_operations(Some(1));
    ctx.start_region();
    assert_eq!(deps.print(), unbounded);
    assert!(!unbounded.contains("not printable"), "{unbounded}");
}
