//! The paper's examples (CC'18, Figs. 4, 5, 7) and the rules around them.

use super::*;
use crate::isl::IslCtx;
use crate::model::spec_builders::{array, read, statement, write};
use crate::model::ScopSpec;

fn region(arrays: &[&str], statements: Vec<crate::model::spec::StatementSpec>) -> ScopSpec {
    ScopSpec {
        name: "f:entry".into(),
        function: "f".into(),
        location: None,
        params: vec!["n".into()],
        context: "[n] -> { : 4 <= n <= 1000 }".into(),
        assumptions: vec![],
        arrays: arrays.iter().map(|a| array(a, &[])).collect(),
        statements,
        alias_groups: vec![],
    }
}

fn verdicts(spec: &ScopSpec) -> Vec<Verdict> {
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, spec).unwrap();
    analyse(&scop).unwrap()
}

fn verdict_for<'v>(verdicts: &'v [Verdict], array: &str) -> &'v Verdict {
    verdicts
        .iter()
        .find(|v| v.array() == array)
        .unwrap_or_else(|| panic!("no verdict for {array}: {verdicts:?}"))
}

#[test]
fn fig4_both_reads_recompute_the_producer() {
    // for i in 1..=2n: A[i] = (i + 1) * i;   for j in 1..=n: B[j] = A[2j] - A[2j - 1]
    let spec = region(
        &["A", "B"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 1 <= i0 <= 2n }",
                &[0, 0],
                vec![write("A", "{ S0[i0] -> A[i0] }")],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 1 <= i0 <= n }",
                &[1, 0],
                vec![
                    read("A", "{ S1[i0] -> A[2i0] }"),
                    read("A", "{ S1[i0] -> A[2i0 - 1] }"),
                    write("B", "{ S1[i0] -> B[i0] }"),
                ],
            ),
        ],
    );
    let verdicts = verdicts(&spec);
    let Verdict::Propagable {
        producer, reads, ..
    } = verdict_for(&verdicts, "A")
    else {
        panic!("{verdicts:?}");
    };
    assert_eq!(producer, "S0");
    assert_eq!(reads.len(), 2);
    let ctx = reads[1].source.ctx();
    let expected = crate::isl::parse_union_map(
        &ctx,
        "[n] -> { S1[i0] -> S0[2i0 - 1] : 1 <= i0 <= n }",
        "expected",
    )
    .unwrap();
    assert!(
        reads[1].source.is_equal(&expected).unwrap(),
        "{:?}",
        reads[1].source.to_str()
    );
}

#[test]
fn fig5_values_written_only_for_even_indices_are_not_all_recomputable() {
    // for i even in 0..n: A[i] = ...;   for j in 0..n: B[j] = A[j]
    let spec = region(
        &["A", "B", "X"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n and i0 mod 2 = 0 }",
                &[0, 0],
                vec![
                    read("X", "{ S0[i0] -> X[i0] }"),
                    write("A", "{ S0[i0] -> A[i0] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![
                    read("A", "{ S1[i0] -> A[i0] }"),
                    write("B", "{ S1[i0] -> B[i0] }"),
                ],
            ),
        ],
    );
    let verdicts = verdicts(&spec);
    let Verdict::Kept { reason, .. } = verdict_for(&verdicts, "A") else {
        panic!("{verdicts:?}");
    };
    assert!(reason.contains("not written in the region"), "{reason}");
}

#[test]
fn fig7a_a_recurrence_keeps_its_table() {
    // for i in 2..n: T[i] = T[i - 1] + T[i - 2];   for j in 2..n: B[j] = T[j]
    let spec = region(
        &["T", "B"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 2 <= i0 < n }",
                &[0, 0],
                vec![
                    read("T", "{ S0[i0] -> T[i0 - 1] }"),
                    read("T", "{ S0[i0] -> T[i0 - 2] }"),
                    write("T", "{ S0[i0] -> T[i0] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 2 <= i0 < n }",
                &[1, 0],
                vec![
                    read("T", "{ S1[i0] -> T[i0] }"),
                    write("B", "{ S1[i0] -> B[i0] }"),
                ],
            ),
        ],
    );
    let verdicts = verdicts(&spec);
    let Verdict::Kept { reason, .. } = verdict_for(&verdicts, "T") else {
        panic!("{verdicts:?}");
    };
    assert!(reason.contains("recurrence"), "{reason}");
}

#[test]
fn fig7b_an_operand_overwritten_before_the_read_blocks_propagation() {
    // for i < n: tmp[i] = A[i];   for j < n: { A[j] = 0; B[j] = tmp[j]; }
    let spec = region(
        &["tmp", "A", "B"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![
                    read("A", "{ S0[i0] -> A[i0] }"),
                    write("tmp", "{ S0[i0] -> tmp[i0] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![write("A", "{ S1[i0] -> A[i0] }")],
            ),
            statement(
                "S2",
                "[n] -> { S2[i0] : 0 <= i0 < n }",
                &[1, 1],
                vec![
                    read("tmp", "{ S2[i0] -> tmp[i0] }"),
                    write("B", "{ S2[i0] -> B[i0] }"),
                ],
            ),
        ],
    );
    let verdicts = verdicts(&spec);
    let Verdict::Kept { reason, .. } = verdict_for(&verdicts, "tmp") else {
        panic!("{verdicts:?}");
    };
    assert!(reason.contains("S1 writes A"), "{reason}");
}

#[test]
fn an_operand_overwritten_after_the_last_read_does_not_block_it() {
    // for i < n: tmp[i] = A[i];   for j < n: B[j] = tmp[j];   for k < n: A[k] = 0
    let spec = region(
        &["tmp", "A", "B"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![
                    read("A", "{ S0[i0] -> A[i0] }"),
                    write("tmp", "{ S0[i0] -> tmp[i0] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![
                    read("tmp", "{ S1[i0] -> tmp[i0] }"),
                    write("B", "{ S1[i0] -> B[i0] }"),
                ],
            ),
            statement(
                "S2",
                "[n] -> { S2[i0] : 0 <= i0 < n }",
                &[2, 0],
                vec![write("A", "{ S2[i0] -> A[i0] }")],
            ),
        ],
    );
    let verdicts = verdicts(&spec);
    assert!(
        matches!(verdict_for(&verdicts, "tmp"), Verdict::Propagable { .. }),
        "{verdicts:?}"
    );
}

#[test]
fn a_consumer_writing_an_operand_in_the_same_instance_is_kept_apart() {
    // for i < n: tmp[i] = X[i];   for j < n: X[j] = 2 * tmp[j]
    let spec = region(
        &["tmp", "X"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![
                    read("X", "{ S0[i0] -> X[i0] }"),
                    write("tmp", "{ S0[i0] -> tmp[i0] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![
                    read("tmp", "{ S1[i0] -> tmp[i0] }"),
                    write("X", "{ S1[i0] -> X[i0] }"),
                ],
            ),
        ],
    );
    let verdicts = verdicts(&spec);
    let Verdict::Kept { reason, .. } = verdict_for(&verdicts, "tmp") else {
        panic!("{verdicts:?}");
    };
    assert!(reason.contains("S1 writes X"), "{reason}");
}

#[test]
fn a_stencil_reading_three_neighbours_recomputes_each() {
    // for i < n: tmp[i] = X[i] * X[i];   for j in 1..n-1: Y[j] = tmp[j-1] + tmp[j] + tmp[j+1]
    let spec = region(
        &["tmp", "X", "Y"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![
                    read("X", "{ S0[i0] -> X[i0] }"),
                    write("tmp", "{ S0[i0] -> tmp[i0] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 1 <= i0 < n - 1 }",
                &[1, 0],
                vec![
                    read("tmp", "{ S1[i0] -> tmp[i0 - 1] }"),
                    read("tmp", "{ S1[i0] -> tmp[i0] }"),
                    read("tmp", "{ S1[i0] -> tmp[i0 + 1] }"),
                    write("Y", "{ S1[i0] -> Y[i0] }"),
                ],
            ),
        ],
    );
    let verdicts = verdicts(&spec);
    let Verdict::Propagable { reads, .. } = verdict_for(&verdicts, "tmp") else {
        panic!("{verdicts:?}");
    };
    assert_eq!(reads.len(), 3);
    // X is only read: no verdict is needed for it, and Y is written but never read.
    assert!(matches!(verdict_for(&verdicts, "Y"), Verdict::Kept { .. }));
}

#[test]
fn rewriting_a_stencil_moves_the_producers_reads_into_the_consumer() {
    // for i < n: tmp[i] = X[i] * X[i];   for j in 1..n-1: Y[j] = tmp[j-1] + tmp[j] + tmp[j+1]
    let spec = region(
        &["tmp", "X", "Y"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![
                    read("X", "{ S0[i0] -> X[i0] }"),
                    write("tmp", "{ S0[i0] -> tmp[i0] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 1 <= i0 < n - 1 }",
                &[1, 0],
                vec![
                    read("tmp", "{ S1[i0] -> tmp[i0 - 1] }"),
                    read("tmp", "{ S1[i0] -> tmp[i0] }"),
                    read("tmp", "{ S1[i0] -> tmp[i0 + 1] }"),
                    write("Y", "{ S1[i0] -> Y[i0] }"),
                ],
            ),
        ],
    );
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, &spec).unwrap();
    let verdicts = analyse(&scop).unwrap();
    let verdict = verdict_for(&verdicts, "tmp");
    let (rewritten, recomputed) = rewrite(&spec, &scop, verdict).unwrap().unwrap();
    assert_eq!(rewritten.statements.len(), 1, "{rewritten:?}");
    let counters: Vec<(usize, Vec<Counter>)> = recomputed
        .iter()
        .map(|r| (r.read, r.counters.clone()))
        .collect();
    let follows = |plus| {
        vec![Counter::Shifted {
            follows: Some(0),
            plus,
        }]
    };
    assert_eq!(
        counters,
        vec![(0, follows(-1)), (1, follows(0)), (2, follows(1))]
    );
    // The consumer reads X where the producer did, and tmp no more.
    let consumer = &rewritten.statements[0];
    assert!(
        consumer.accesses.iter().all(|a| a.array != "tmp"),
        "{consumer:?}"
    );
    let reads_of_x: Vec<&str> = consumer
        .accesses
        .iter()
        .filter(|a| a.array == "X")
        .map(|a| a.relation.as_str())
        .collect();
    assert_eq!(reads_of_x.len(), 3, "{consumer:?}");
    let rebuilt = Scop::build(&ctx, &rewritten).unwrap();
    let expected = crate::isl::parse_map(
        &ctx,
        "[n] -> { S1[i0] -> X[i0 + 1] : 1 <= i0 < n - 1 }",
        "expected",
    )
    .unwrap();
    let last = rebuilt.statements[0]
        .accesses
        .iter()
        .filter(|a| a.array == "X")
        .nth(2)
        .unwrap();
    let restricted = last
        .relation
        .copy()
        .unwrap()
        .intersect_domain(rebuilt.statements[0].domain.copy().unwrap())
        .unwrap();
    assert!(
        restricted.is_equal(&expected).unwrap(),
        "{:?}",
        last.relation.to_str()
    );
}

#[test]
fn fig4_a_source_map_that_is_not_a_translation_recomputes_at_its_image() {
    // Fig. 4: B[j] = A[2j] - A[2j - 1] reads A at 2j: recomputing needs i = 2j, an
    // expression of j that is no shift.
    let spec = region(
        &["A", "B"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 1 <= i0 <= 2n }",
                &[0, 0],
                vec![write("A", "{ S0[i0] -> A[i0] }")],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 1 <= i0 <= n }",
                &[1, 0],
                vec![
                    read("A", "{ S1[i0] -> A[2i0] }"),
                    write("B", "{ S1[i0] -> B[i0] }"),
                ],
            ),
        ],
    );
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, &spec).unwrap();
    let verdicts = analyse(&scop).unwrap();
    let (_, recomputed) = rewrite(&spec, &scop, verdict_for(&verdicts, "A"))
        .unwrap()
        .unwrap();
    let [Recompute { counters, .. }] = recomputed.as_slice() else {
        panic!("{recomputed:?}");
    };
    let [Counter::Piecewise(i)] = counters.as_slice() else {
        panic!("{counters:?}");
    };
    for j in 1..=5 {
        let env =
            std::collections::HashMap::from([("n".to_string(), 5), (consumer_counter_name(0), j)]);
        assert_eq!(evaluate(i, &env), 2 * j, "{i:?}");
    }
}

/// The value of a counter expression with the consumer's counters and parameters given.
fn evaluate(e: &crate::isl::ast::AstExpr, env: &std::collections::HashMap<String, i64>) -> i64 {
    use crate::isl::ast::{AstExpr, AstOp};
    match e {
        AstExpr::Int(k) => *k,
        AstExpr::Id(name) => *env.get(name).unwrap_or_else(|| panic!("unbound {name}")),
        AstExpr::Op(op, args) => {
            let v: Vec<i64> = args.iter().map(|a| evaluate(a, env)).collect();
            match op {
                AstOp::Add => v[0] + v[1],
                AstOp::Sub => v[0] - v[1],
                AstOp::Mul => v[0] * v[1],
                AstOp::Minus => -v[0],
                AstOp::Min => v.into_iter().min().unwrap(),
                AstOp::Max => v.into_iter().max().unwrap(),
                AstOp::FloorDiv => v[0].div_euclid(v[1]),
                AstOp::Le => i64::from(v[0] <= v[1]),
                AstOp::Lt => i64::from(v[0] < v[1]),
                AstOp::Ge => i64::from(v[0] >= v[1]),
                AstOp::Gt => i64::from(v[0] > v[1]),
                AstOp::Eq => i64::from(v[0] == v[1]),
                AstOp::Cond | AstOp::Select => {
                    if v[0] != 0 {
                        v[1]
                    } else {
                        v[2]
                    }
                }
                other => panic!("unexpected {other:?} in {e:?}"),
            }
        }
    }
}

#[test]
fn a_read_through_a_clamp_recomputes_the_producer_at_the_clamped_instance() {
    // tmp[y][x] for 0 <= y < h; the consumer reads row clamp(y - 2, 0, h - 1): isl's
    // expression for the producer's row agrees with the clamp at every consumer
    // instance, and the column follows the consumer's.
    let ctx = IslCtx::new(None).unwrap();
    let source = crate::isl::parse_union_map(
        &ctx,
        "[h, w] -> { T[y, x] -> S[min(max(y - 2, 0), h - 1), x] : 0 <= y < h and 0 <= x < w }",
        "source map",
    )
    .unwrap();
    let counters = piecewise_counters(&source).unwrap().unwrap();
    assert_eq!(counters.len(), 2);
    for h in 1..8 {
        for y in 0..h {
            let x = 3;
            let env = std::collections::HashMap::from([
                ("h".to_string(), h),
                ("w".to_string(), 5),
                (consumer_counter_name(0), y),
                (consumer_counter_name(1), x),
            ]);
            let [Counter::Piecewise(row), Counter::Piecewise(column)] = counters.as_slice() else {
                panic!("{counters:?}");
            };
            assert_eq!(evaluate(row, &env), (y - 2).clamp(0, h - 1), "{row:?}");
            assert_eq!(evaluate(column, &env), x, "{column:?}");
        }
    }
}

#[test]
fn clamped_reads_of_a_temporary_are_rewritten_with_piecewise_counters() {
    // S0: tmp[i] = f(X[i]) for 0 <= i < n;  S1: B[i] = tmp[max(i - 1, 0)] + tmp[min(i + 1, n - 1)]
    let spec = region(
        &["tmp", "B", "X"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0] : 0 <= i0 < n }",
                &[0, 0],
                vec![
                    read("X", "{ S0[i0] -> X[i0] }"),
                    write("tmp", "{ S0[i0] -> tmp[i0] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0] : 0 <= i0 < n }",
                &[1, 0],
                vec![
                    read("tmp", "[n] -> { S1[i0] -> tmp[max(i0 - 1, 0)] }"),
                    read("tmp", "[n] -> { S1[i0] -> tmp[min(i0 + 1, n - 1)] }"),
                    write("B", "{ S1[i0] -> B[i0] }"),
                ],
            ),
        ],
    );
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, &spec).unwrap();
    let verdicts = analyse(&scop).unwrap();
    let verdict = verdict_for(&verdicts, "tmp");
    let (rewritten, recomputed) = rewrite(&spec, &scop, verdict).unwrap().unwrap();
    assert_eq!(rewritten.statements.len(), 1, "{rewritten:?}");
    assert_eq!(recomputed.len(), 2);
    assert!(recomputed
        .iter()
        .all(|r| matches!(r.counters.as_slice(), [Counter::Piecewise(_)])));
    // The consumer reads X where the producer did for the instance it recomputes.
    let reads: Vec<&str> = rewritten.statements[0]
        .accesses
        .iter()
        .filter(|a| a.array == "X")
        .map(|a| a.relation.as_str())
        .collect();
    assert_eq!(reads.len(), 2, "{rewritten:?}");
    let expected = crate::isl::parse_union_map(
        &ctx,
        "[n] -> { S1[i0] -> X[max(i0 - 1, 0)] : 0 <= i0 < n }",
        "expected",
    )
    .unwrap();
    let first = crate::isl::parse_union_map(&ctx, reads[0], "read").unwrap();
    assert!(first.is_equal(&expected).unwrap(), "{}", reads[0]);
}

/// A producer reading X at a clamped column, `tmp[i0][i1] = f(X[i0][max(i1 - 2, 0)])`,
/// and a consumer reading `tmp` at `consumer_read`.
fn clamped_producer(consumer_read: &str) -> ScopSpec {
    let mut spec = region(
        &["tmp", "B", "X"],
        vec![
            statement(
                "S0",
                "[n] -> { S0[i0, i1] : 0 <= i0 < n and 0 <= i1 < n }",
                &[0, 0, 0],
                vec![
                    read("X", "{ S0[i0, i1] -> X[i0, max(i1 - 2, 0)] }"),
                    write("tmp", "{ S0[i0, i1] -> tmp[i0, i1] }"),
                ],
            ),
            statement(
                "S1",
                "[n] -> { S1[i0, i1] : 0 <= i0 < n and 0 <= i1 < n }",
                &[1, 0, 0],
                vec![
                    read("tmp", consumer_read),
                    write("B", "{ S1[i0, i1] -> B[i0, i1] }"),
                ],
            ),
        ],
    );
    spec.arrays = ["tmp", "B", "X"].iter().map(|a| array(a, &["n"])).collect();
    spec
}

#[test]
fn recomputing_a_clamped_producer_in_a_contiguous_consumer_loop_is_refused() {
    // The consumer reads row max(i0 - 2, 0): contiguous along i1, until the producer's
    // clamped column comes in.
    let spec = clamped_producer("[n] -> { S1[i0, i1] -> tmp[max(i0 - 2, 0), i1] }");
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, &spec).unwrap();
    let verdicts = analyse(&scop).unwrap();
    let why = loses_constant_strides(&scop, verdict_for(&verdicts, "tmp")).unwrap();
    assert!(why.is_some_and(|w| w.contains("no longer vectorize")));
}

#[test]
fn recomputing_a_clamped_producer_where_the_read_was_clamped_already_is_allowed() {
    let spec = clamped_producer("[n] -> { S1[i0, i1] -> tmp[i0, min(i1 + 1, n - 1)] }");
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, &spec).unwrap();
    let verdicts = analyse(&scop).unwrap();
    assert_eq!(
        loses_constant_strides(&scop, verdict_for(&verdicts, "tmp")).unwrap(),
        None
    );
}
