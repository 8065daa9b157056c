//! Stage fusion on pipelines written as isl strings.

use super::*;
use crate::deps::DepsOptions;
use crate::isl::parse_union_map;
use crate::isl::IslCtx;
use crate::model::spec_builders::{array, read, statement, write};
use crate::model::ScopSpec;
use crate::transform::quov::{self, Fold};

/// A region over `in`, `out` (n x n) and `tmp` (`tmp_sizes`: its inner dimensions).
fn region(tmp_sizes: &[&str], statements: Vec<crate::model::spec::StatementSpec>) -> ScopSpec {
    ScopSpec {
        name: "f:entry".into(),
        function: "f".into(),
        location: None,
        params: vec!["n".into()],
        context: "[n] -> { : 8 <= n <= 1000 }".into(),
        assumptions: vec![],
        arrays: vec![
            array("in", &["n"]),
            array("tmp", tmp_sizes),
            array("out", &["n"]),
        ],
        statements,
        alias_groups: vec![],
    }
}

/// A statement `name` over `domain` at `positions` reading `reads` and writing `writes`
/// (each an array and its relation).
fn stage(
    name: &str,
    domain: &str,
    positions: &[u32],
    reads: &[(&str, &str)],
    writes: (&str, &str),
) -> crate::model::spec::StatementSpec {
    let mut accesses: Vec<_> = reads.iter().map(|(a, r)| read(a, r)).collect();
    accesses.push(write(writes.0, writes.1));
    statement(name, domain, positions, accesses)
}

/// The producer of the 2-D tests: `tmp[y][x] = in[y][x]` over the whole image.
fn copy_in() -> crate::model::spec::StatementSpec {
    stage(
        "S0",
        "[n] -> { S0[y, x] : 0 <= y < n and 0 <= x < n }",
        &[0, 0, 0],
        &[("in", "{ S0[y, x] -> in[y, x] }")],
        ("tmp", "{ S0[y, x] -> tmp[y, x] }"),
    )
}

/// `tmp[y][x] = in[y][x]` then `out[y][x] = tmp[clamp(y - 2)][x] + .. + tmp[clamp(y + 2)][x]`:
/// a vertical 5-tap pass with clamped borders, as a separable blur has it.
fn clamped_blur() -> ScopSpec {
    let mut taps: Vec<_> = (-2..=2)
        .map(|d| {
            read(
                "tmp",
                &format!("[n] -> {{ S1[y, x] -> tmp[min(max(y + {d}, 0), n - 1), x] }}"),
            )
        })
        .collect();
    taps.push(write("out", "{ S1[y, x] -> out[y, x] }"));
    let consumer = statement(
        "S1",
        "[n] -> { S1[y, x] : 0 <= y < n and 0 <= x < n }",
        &[1, 0, 0],
        taps,
    );
    region(&["n"], vec![copy_in(), consumer])
}

fn fused(spec: &ScopSpec) -> (Scop, Dependences, Option<Fused>) {
    let ctx = IslCtx::new(None).unwrap();
    let scop = Scop::build(&ctx, spec).unwrap();
    let deps = Dependences::compute(&scop, &DepsOptions::default()).unwrap();
    let fused = fuse(&scop, &deps).unwrap();
    (scop, deps, fused)
}

/// Asserts that `fused` runs the region's instances at the time stamps of `expected`.
fn assert_schedule(scop: &Scop, fused: &Fused, expected: &str) {
    let on_domains = |map: UnionMap| map.intersect_domain(scop.domains.copy().unwrap()).unwrap();
    let expected = on_domains(parse_union_map(&scop.context.ctx(), expected, "expected").unwrap());
    let map = on_domains(fused.map.copy().unwrap());
    assert!(map.is_equal(&expected).unwrap(), "{:?}", map.to_str());
}

#[test]
fn a_clamped_vertical_pass_runs_two_rows_behind_its_producer() {
    let (scop, _, fused) = fused(&clamped_blur());
    let fused = fused.expect("the two passes fuse");
    assert_schedule(
        &scop,
        &fused,
        "[n] -> { S0[y, x] -> [1, y, 0, 0, x, 0]; S1[y, x] -> [1, y + 2, 1, 0, x, 0] }",
    );
    assert_eq!(
        fused.describe(&|s| s.to_string()),
        "2 loop nests fused into one outer loop (S1 2 iterations behind)"
    );
    assert_eq!(
        fused.describe(&|s| format!("the nest of {s}")),
        "2 loop nests fused into one outer loop (the nest of S1 2 iterations behind)"
    );
}

#[test]
fn fused_passes_keep_five_rows_of_the_temporary() {
    let (scop, deps, fused) = fused(&clamped_blur());
    let fused = fused.expect("the two passes fuse");
    let folding = quov::fold(&scop, &fused.schedule, Some(&deps.all().unwrap()), "tmp")
        .unwrap()
        .expect("tmp folds under the fused schedule");
    assert_eq!(folding.dims, vec![Fold::Modulo(5), Fold::Keep]);
    // In program order the whole image is written before any row is read.
    let original = quov::fold(&scop, &scop.schedule, None, "tmp").unwrap();
    assert!(original.is_err(), "{original:?}");
}

#[test]
fn a_transposing_stage_is_not_fused() {
    let consumer = stage(
        "S1",
        "[n] -> { S1[y, x] : 0 <= y < n and 0 <= x < n }",
        &[1, 0, 0],
        &[("tmp", "{ S1[y, x] -> tmp[x, y] }")],
        ("out", "{ S1[y, x] -> out[y, x] }"),
    );
    let (_, _, fused) = fused(&region(&["n"], vec![copy_in(), consumer]));
    assert!(fused.is_none());
}

#[test]
fn nests_inside_a_shared_loop_fuse_below_it() {
    // for t: { for i: tmp[i] = in[t][i]; for i: out[t][i] = tmp[i - 1] + tmp[i + 1] }
    let producer = stage(
        "S0",
        "[n] -> { S0[t, i] : 0 <= t < n and 0 <= i < n }",
        &[0, 0, 0],
        &[("in", "{ S0[t, i] -> in[t, i] }")],
        ("tmp", "{ S0[t, i] -> tmp[i] }"),
    );
    let consumer = stage(
        "S1",
        "[n] -> { S1[t, i] : 0 <= t < n and 1 <= i < n - 1 }",
        &[0, 1, 0],
        &[
            ("tmp", "{ S1[t, i] -> tmp[i - 1] }"),
            ("tmp", "{ S1[t, i] -> tmp[i + 1] }"),
        ],
        ("out", "{ S1[t, i] -> out[t, i] }"),
    );
    let (scop, _, fused) = fused(&region(&[], vec![producer, consumer]));
    let fused = fused.expect("the inner loops fuse");
    assert_schedule(
        &scop,
        &fused,
        "[n] -> { S0[t, i] -> [0, t, 1, i, 0, 0]; S1[t, i] -> [0, t, 1, i + 1, 1, 0] }",
    );
}

#[test]
fn a_single_nest_is_left_alone() {
    let only = stage(
        "S0",
        "[n] -> { S0[y, x] : 0 <= y < n and 0 <= x < n }",
        &[0, 0, 0],
        &[("in", "{ S0[y, x] -> in[y, x] }")],
        ("out", "{ S0[y, x] -> out[y, x] }"),
    );
    let spec = region(&["n"], vec![only]);
    let (scop, _, fused) = fused(&spec);
    assert!(fused.is_none());
    assert!(!has_stages(&scop));
    let (scop, _, _) = super::tests::fused(&clamped_blur());
    assert!(has_stages(&scop));
}

/// `tmp` from `in`, a statement `L` with no loop between the nests (`loose_accesses`),
/// `out` from `tmp` two rows apart.
fn with_loose_statement(loose_accesses: Vec<crate::model::spec::AccessSpec>) -> ScopSpec {
    let loose = statement("L", "[n] -> { L[] }", &[1], loose_accesses);
    let consumer = stage(
        "S2",
        "[n] -> { S2[y, x] : 0 <= y < n - 2 and 0 <= x < n }",
        &[2, 0, 0],
        &[
            ("tmp", "{ S2[y, x] -> tmp[y + 2, x] }"),
            ("tmp", "{ S2[y, x] -> tmp[y, x] }"),
        ],
        ("out", "{ S2[y, x] -> out[y, x] }"),
    );
    let mut spec = region(&["n"], vec![copy_in(), loose, consumer]);
    spec.arrays.push(array("flag", &[]));
    spec.arrays.last_mut().unwrap().is_scalar = true;
    spec
}

#[test]
fn a_statement_between_the_nests_runs_before_or_after_the_fused_loop() {
    // Writing a flag nothing in the nests touches: before the loop.
    let (scop, _, found) = fused(&with_loose_statement(vec![write(
        "flag",
        "{ L[] -> flag[] }",
    )]));
    let schedule = found.expect("the nests fuse around the flag");
    let ctx = scop.context.ctx();
    let before = parse_union_map(&ctx, "{ L[] -> [0, 1, 0, 0, 0, 0] }", "expected").unwrap();
    assert!(
        before.is_subset(&schedule.map).unwrap(),
        "{:?}",
        schedule.map.to_str()
    );
    // Reading what the first nest wrote: after it.
    let (scop, _, found) = fused(&with_loose_statement(vec![
        read("tmp", "{ L[] -> tmp[0, 0] }"),
        write("flag", "{ L[] -> flag[] }"),
    ]));
    let schedule = found.expect("the nests fuse, the read after them");
    let ctx = scop.context.ctx();
    let after = parse_union_map(&ctx, "{ L[] -> [2, 1, 0, 0, 0, 0] }", "expected").unwrap();
    assert!(
        after.is_subset(&schedule.map).unwrap(),
        "{:?}",
        schedule.map.to_str()
    );
    // Reading the first nest and writing what the second reads: it stays between them.
    let (_, _, found) = fused(&with_loose_statement(vec![
        read("tmp", "{ L[] -> tmp[0, 0] }"),
        write("tmp", "{ L[] -> tmp[1, 0] }"),
    ]));
    assert!(found.is_none());
}
