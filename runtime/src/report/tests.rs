//! The report's verdicts on nests recorded through [`NestRecord`], as the runtime
//! records them: a matmul, and a histogram through an index array.

use std::sync::atomic::AtomicUsize;

use super::*;
use crate::accesses::{NestIdentity, NestRecord, Shadow, SiteInfo};
use crate::fold::FoldConfig;
use crate::profile::static_model::{FactKind, LoopFact, StaticNest};

static POOL: AtomicUsize = AtomicUsize::new(0);

fn site(kind: SiteKind, depth: u32, parent_loop: Option<u32>, name: &str, line: u32) -> SiteInfo {
    SiteInfo {
        kind,
        depth,
        size: if kind == SiteKind::Loop { 0 } else { 8 },
        line,
        column: 0,
        parent_loop,
        name: name.into(),
    }
}

fn record(id: &str, sites: Vec<SiteInfo>) -> NestRecord {
    let identity = NestIdentity {
        id: id.into(),
        function: id.split(':').next().unwrap_or(id).into(),
        file: "k.c".into(),
        line: 3,
        module_hash: "ab".into(),
        modelled: false,
        thread: 0,
        sites,
        facts: Vec::new(),
    };
    let positions = NestRecord::positions(&identity);
    NestRecord::new(
        identity,
        FoldConfig::default(),
        Shadow::new(positions, usize::MAX, &POOL),
        64,
    )
}

/// `for i, j < n: C[i][j] = 0; for k < n: C[i][j] += A[i][k] * B[k][j]` (doubles).
pub(crate) fn matmul(n: i64) -> NestProfile {
    product(n, false)
}

/// The product, with `in_registers` as clang compiles it: `C[i][j]` loaded before the
/// `k` loop, accumulated in a register, stored after it (no memory dependence along `k`
/// for the shadow to see); else stored before the `k` loop and loaded and stored in it.
fn product(n: i64, in_registers: bool) -> NestProfile {
    let sites = if in_registers {
        vec![
            site(SiteKind::Loop, 1, None, "i", 3),
            site(SiteKind::Loop, 2, Some(0), "j", 4),
            site(SiteKind::Load, 2, Some(1), "C", 5),
            site(SiteKind::Loop, 3, Some(1), "k", 6),
            site(SiteKind::Load, 3, Some(3), "A", 7),
            site(SiteKind::Load, 3, Some(3), "B", 7),
            site(SiteKind::Store, 2, Some(1), "C", 8),
        ]
    } else {
        vec![
            site(SiteKind::Loop, 1, None, "i", 3),
            site(SiteKind::Loop, 2, Some(0), "j", 4),
            site(SiteKind::Store, 2, Some(1), "C", 5),
            site(SiteKind::Loop, 3, Some(1), "k", 6),
            site(SiteKind::Load, 3, Some(3), "C", 7),
            site(SiteKind::Load, 3, Some(3), "A", 7),
            site(SiteKind::Load, 3, Some(3), "B", 7),
            site(SiteKind::Store, 3, Some(3), "C", 7),
        ]
    };
    let mut nest = record(if in_registers { "mmr:1:ab" } else { "mm:1:ab" }, sites);
    let (a, b, c) = (0x10_0000u64, 0x20_0000u64, 0x30_0000u64);
    let at = |base: u64, row: i64, column: i64| base + 8 * (row * n + column) as u64;
    nest.enter();
    for i in 0..n {
        nest.access(0, &[i], 0);
        for j in 0..n {
            nest.access(1, &[i, j], 0);
            nest.access(2, &[i, j], at(c, i, j));
            for k in 0..n {
                let iv = [i, j, k];
                nest.access(3, &iv, 0);
                if in_registers {
                    nest.access(4, &iv, at(a, i, k));
                    nest.access(5, &iv, at(b, k, j));
                } else {
                    nest.access(4, &iv, at(c, i, j));
                    nest.access(5, &iv, at(a, i, k));
                    nest.access(6, &iv, at(b, k, j));
                    nest.access(7, &iv, at(c, i, j));
                }
            }
            if in_registers {
                nest.access(6, &[i, j], at(c, i, j));
            }
        }
    }
    nest.profile()
}

/// `for i < n: h[idx[i]] += 1` with a scattered `idx`.
pub(crate) fn histogram(n: i64) -> NestProfile {
    let mut nest = record(
        "hist:2:ab",
        vec![
            site(SiteKind::Loop, 1, None, "i", 10),
            site(SiteKind::Load, 1, Some(0), "idx", 11),
            site(SiteKind::Load, 1, Some(0), "h", 11),
            site(SiteKind::Store, 1, Some(0), "h", 11),
        ],
    );
    let (idx, h) = (0x40_0000u64, 0x50_0000u64);
    nest.enter();
    for i in 0..n {
        let bucket = ((i * 7919) % 13) as u64;
        nest.access(0, &[i], 0);
        nest.access(1, &[i], idx + 8 * i as u64);
        nest.access(2, &[i], h + 8 * bucket);
        nest.access(3, &[i], h + 8 * bucket);
    }
    nest.profile()
}

fn profile_of(nests: Vec<NestProfile>) -> Profile {
    let mut profile = Profile::empty();
    profile.nests = nests;
    profile.canonicalize();
    profile
}

#[test]
fn matmul_k_carries_the_dependence_on_c_i_and_j_are_parallel_and_the_band_is_permutable() {
    let nest = matmul(12);
    assert_eq!(nest.validate(), Ok(()));
    let verdict = NestVerdict::of(&nest, &[]);
    assert_eq!(verdict.affine_share(), 1.0);
    let by_name = |name: &str| verdict.loops.iter().find(|l| l.name == name).unwrap();
    assert!(by_name("i").parallel);
    assert!(by_name("j").parallel);
    assert!(!by_name("k").parallel);
    let carried = &nest.dependences[by_name("k").carries[0]];
    assert_eq!((carried.source, carried.sink), (7, 4));
    assert_eq!(
        carried.distances,
        vec![vec![Some(0), Some(0), Some(0), Some(1)]]
    );
    assert_eq!(verdict.bands, vec![vec![0, 1, 3]]);
    assert!(
        verdict.suggestion.contains("loop i is parallel"),
        "{}",
        verdict.suggestion
    );
    assert!(
        verdict
            .suggestion
            .contains("tile the permutable band (i, j, k)"),
        "{}",
        verdict.suggestion
    );
    assert!(
        verdict.suggestion.contains("interchange j innermost"),
        "{}",
        verdict.suggestion
    );
}

#[test]
fn a_histogram_through_an_index_array_is_not_parallel_and_not_affine() {
    let nest = histogram(200);
    let verdict = NestVerdict::of(&nest, &[]);
    assert!(!verdict.loops[0].parallel);
    // idx[i] is affine; h[idx[i]] (load and store) is not.
    let share = verdict.affine_share();
    assert!((share - 1.0 / 3.0).abs() < 0.01, "{share}");
    let h = &nest.sites[2];
    assert_eq!(h.strides, vec![None, None]);
    assert!(verdict.bands.is_empty());
}

#[test]
fn markdown_names_the_hot_nest_first_with_its_verdicts() {
    let profile = profile_of(vec![histogram(50), matmul(8)]);
    let text = markdown::render(&profile, "run.polyprof");
    let mm = text.find("## 1. `mm`").expect(&text);
    let hist = text.find("## 2. `hist`").expect(&text);
    assert!(mm < hist);
    assert!(text.contains("**affine: 100.0%**"), "{text}");
    assert!(
        text.contains("| k | 6 | 3 | 512 | no | store C@7 → load C@7 |"),
        "{text}"
    );
    assert!(text.contains("| i | 3 | 1 | 8 | yes | – |"), "{text}");
    assert!(text.contains("permutable bands: (i, j, k)"), "{text}");
    assert!(
        text.contains("| store C@7 → load C@7 | (i, j, k) | (0, 0, 1) |"),
        "{text}"
    );
    assert!(
        text.contains("| load B@7 | 512 | 1 | 100.0% | i: 0, j: 8, k: 64 |"),
        "{text}"
    );
}

#[test]
fn html_is_one_page_with_two_pictures_per_nest_and_escapes_names() {
    let mut nest = matmul(6);
    nest.function = "<script>alert(1)</script>".into();
    let page = html::render(&profile_of(vec![nest]), "a&b");
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(!page.contains("<script>"));
    assert!(page.contains("&lt;script&gt;"));
    assert!(page.contains("a&amp;b"));
    assert_eq!(page.matches("<svg").count(), 2);
    assert!(
        !page.contains("http://")
            || page.matches("http://").count()
                == page.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
}

#[test]
fn a_profile_without_nests_says_how_to_get_them() {
    let text = markdown::render(&Profile::empty(), "p.json");
    assert!(text.contains("-polyrust-instrument=accesses"), "{text}");
}

#[test]
fn a_forged_huge_piece_renders_without_regenerating_its_points() {
    let mut nest = matmul(4);
    for site in &mut nest.sites {
        for piece in &mut site.stream.pieces {
            for vertex in &mut piece.vertices {
                for x in vertex.iter_mut().skip(1) {
                    *x = if *x == 0 { i64::MIN } else { i64::MAX };
                }
            }
            for x in piece.lower.iter_mut().skip(1) {
                *x = i64::MIN;
            }
            for x in piece.upper.iter_mut().skip(1) {
                *x = i64::MAX;
            }
        }
    }
    // Regenerating the points (2^64 per axis) would never end: the render runs on a
    // thread of its own, and a generous wait (it takes milliseconds) turns that hang
    // into a failure without asserting how fast the machine is.
    let profile = profile_of(vec![nest]);
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(html::render(&profile, "forged")));
    let page = receiver
        .recv_timeout(std::time::Duration::from_secs(300))
        .expect("the render ends without regenerating the points");
    assert!(page.contains("<svg"));
}

/// Gauss-Seidel in place: `for t < steps: for i in 1..n-1: A[i] = A[i-1] + A[i+1]`.
fn gauss_seidel(steps: i64, n: i64) -> NestProfile {
    let mut nest = record(
        "gs:3:ab",
        vec![
            site(SiteKind::Loop, 1, None, "t", 20),
            site(SiteKind::Loop, 2, Some(0), "i", 21),
            site(SiteKind::Load, 2, Some(1), "A", 22),
            site(SiteKind::Load, 2, Some(1), "A", 22),
            site(SiteKind::Store, 2, Some(1), "A", 22),
        ],
    );
    let a = 0x60_0000u64;
    nest.enter();
    for t in 0..steps {
        nest.access(0, &[t], 0);
        for i in 0..n - 2 {
            let element = |k: i64| a + 8 * k as u64;
            nest.access(1, &[t, i], 0);
            nest.access(2, &[t, i], element(i));
            nest.access(3, &[t, i], element(i + 2));
            nest.access(4, &[t, i], element(i + 1));
        }
    }
    nest.profile()
}

#[test]
fn gauss_seidel_carries_along_t_and_i_and_is_not_permutable_until_skewed() {
    let nest = gauss_seidel(6, 20);
    let verdict = NestVerdict::of(&nest, &[]);
    assert!(
        verdict.loops.iter().all(|l| !l.parallel),
        "{:?}",
        verdict.loops
    );
    // A[i-1] was written one i before (0, 1); A[i+1] one t before, one i further (1, -1).
    let mut distances: Vec<Vec<Option<i64>>> = nest
        .dependences
        .iter()
        .filter(|d| !d.across_entries)
        .flat_map(|d| d.distances.iter().cloned())
        .collect();
    distances.sort();
    distances.dedup();
    assert_eq!(
        distances,
        vec![
            vec![Some(0), Some(0), Some(1)],
            vec![Some(0), Some(1), Some(-1)]
        ]
    );
    assert!(verdict.bands.is_empty(), "(1, -1) forbids tiling t with i");
    assert!(
        verdict.suggestion.contains("no parallel loop"),
        "{}",
        verdict.suggestion
    );
}

/// The compiler's fact that `loop_site` carries a value in a register, or calls what
/// the run did not record.
fn fact(loop_site: u32, kind: FactKind, operation: &str, name: &str) -> LoopFact {
    LoopFact {
        loop_site,
        kind,
        operation: operation.into(),
        name: name.into(),
        update: None,
    }
}

#[test]
fn an_argmin_kept_in_registers_is_named_a_reduction_of_both_values() {
    let nest = product(6, true);
    let facts = [
        fact(3, FactKind::Reduction, "argmin/argmax", "min_dist"),
        fact(3, FactKind::Reduction, "argmin/argmax", "index"),
    ];
    let verdict = NestVerdict::of(&nest, &facts);
    let k = verdict.loops.iter().find(|l| l.name == "k").unwrap();
    assert!(!k.parallel && k.is_reduction());
    assert_eq!(
        k.parallel_text(),
        "reduction (min_dist in a register, index in a register)"
    );
    assert_eq!(
        carried(&nest, k),
        [
            "min_dist (an argmin/argmax reduction in a register)",
            "index (an argmin/argmax reduction in a register)"
        ]
    );
}

#[test]
fn a_sum_kept_in_a_register_across_k_makes_k_a_reduction() {
    let nest = product(6, true);
    let facts = [fact(3, FactKind::Reduction, "+", "C")];
    let verdict = NestVerdict::of(&nest, &facts);
    let k = verdict.loops.iter().find(|l| l.name == "k").unwrap();
    assert!(!k.parallel && k.is_reduction());
    assert_eq!(k.parallel_text(), "reduction (C in a register)");
    assert!(carried(&nest, k)[0].contains("C (a + reduction in a register)"));
    let j = verdict.loops.iter().find(|l| l.name == "j").unwrap();
    assert!(j.parallel && j.reductions.is_empty());
    // Not "k vectorizes": j (unit stride in B and C) goes innermost instead.
    assert!(
        verdict
            .suggestion
            .contains("k carries a reduction; interchange j innermost"),
        "{}",
        verdict.suggestion
    );
    assert!(
        verdict.suggestion.contains("loop k is a reduction into C"),
        "{}",
        verdict.suggestion
    );
}

#[test]
fn a_load_and_a_store_of_one_address_around_a_loop_make_no_reduction_without_a_fact() {
    // The k-means shape: `membership[i]` loaded and stored in the `i` loop, around a
    // `j` loop that never touches it. Only the compiler knows what a register carries.
    let nest = product(6, true);
    let verdict = NestVerdict::of(&nest, &[]);
    let k = verdict.loops.iter().find(|l| l.name == "k").unwrap();
    assert!(k.reductions.is_empty() && carried(&nest, k).is_empty());
    assert_eq!(k.parallel_text(), "yes");
}

#[test]
fn a_loop_around_a_call_not_recorded_gets_no_verdict() {
    let nest = matmul(6);
    // A call to rand in the k loop: k and the loops around it are not known.
    let facts = [fact(3, FactKind::UnrecordedCall, "", "rand")];
    let verdict = NestVerdict::of(&nest, &facts);
    for l in &verdict.loops {
        assert!(!l.parallel, "{}", l.name);
        assert_eq!(l.parallel_text(), "not known: calls not recorded (rand)");
    }
    assert!(verdict.bands.is_empty());
    assert!(
        !verdict.suggestion.contains("parallel:"),
        "{}",
        verdict.suggestion
    );
    assert!(
        !verdict.suggestion.contains("vectorize"),
        "{}",
        verdict.suggestion
    );
    assert!(
        verdict
            .suggestion
            .contains("nothing is claimed about loops i, j, k"),
        "{}",
        verdict.suggestion
    );
}

#[test]
fn a_value_carried_in_a_register_that_is_no_reduction_makes_the_loop_not_parallel() {
    let nest = matmul(6);
    let facts = [fact(1, FactKind::Recurrence, "", "x")];
    let verdict = NestVerdict::of(&nest, &facts);
    let j = verdict.loops.iter().find(|l| l.name == "j").unwrap();
    assert_eq!(j.parallel_text(), "no");
    assert!(carried(&nest, j)
        .iter()
        .any(|c| c == "x (carried in a register to the next iteration)"));
    // Without the fact, (i, j, k) is a permutable band; the value j carries orders
    // its iterations.
    assert!(!NestVerdict::of(&nest, &[]).bands.is_empty());
    assert!(verdict.bands.is_empty(), "{:?}", verdict.bands);
}

#[test]
fn a_loop_that_leaves_on_loaded_data_is_a_search_not_parallel() {
    let nest = matmul(6);
    let facts = [fact(3, FactKind::DataExit, "", "keys")];
    let verdict = NestVerdict::of(&nest, &facts);
    let k = verdict.loops.iter().find(|l| l.name == "k").unwrap();
    assert!(!k.parallel && !k.is_reduction());
    assert_eq!(k.parallel_text(), "no");
    assert!(carried(&nest, k)
        .iter()
        .any(|c| c == "its exit depends on keys (a search)"));
    // The loops around it are not searches.
    let j = verdict.loops.iter().find(|l| l.name == "j").unwrap();
    assert!(j.parallel && j.searches.is_empty());
    assert!(
        !verdict.suggestion.contains("innermost loop k is parallel"),
        "{}",
        verdict.suggestion
    );
}

#[test]
fn the_report_reads_the_facts_from_the_profiles_static_section() {
    let nest = product(6, true);
    let mut profile = profile_of(vec![nest.clone()]);
    profile.static_nests.push(StaticNest {
        id: nest.id.clone(),
        module_hash: nest.module_hash.clone(),
        facts: vec![fact(3, FactKind::Reduction, "+", "C")],
    });
    // Written, read back and merged with itself: one entry, the same facts.
    let text = serde_json::to_string(&profile).unwrap();
    assert!(text.contains("\"static\":[{"), "{text}");
    let read: Profile = serde_json::from_str(&text).unwrap();
    assert_eq!(read.validate(), Ok(()));
    let merged = Profile::merge([read.clone(), read]).unwrap().profile;
    assert_eq!(merged.static_nests.len(), 1);
    let report = markdown::render(&merged, "p");
    assert!(
        report.contains("| reduction (C in a register) |"),
        "{report}"
    );
}

#[test]
fn an_update_through_memory_the_compiler_saw_makes_the_loop_a_reduction() {
    let nest = histogram(200);
    let mut update = fact(0, FactKind::MemoryReduction, "+", "h");
    update.update = Some((2, 3));
    let verdict = NestVerdict::of(&nest, &[update]);
    let i = &verdict.loops[0];
    assert!(!i.parallel && i.is_reduction());
    assert_eq!(i.parallel_text(), "reduction (h in memory)");
    assert_eq!(
        carried(&nest, i),
        vec!["store h@11 → load h@11 (a reduction)"]
    );
    // Another update of the same array does not count.
    let mut other = fact(0, FactKind::MemoryReduction, "+", "h");
    other.update = Some((1, 3));
    assert_eq!(
        NestVerdict::of(&nest, &[other]).loops[0].parallel_text(),
        "no"
    );
}

#[test]
fn nests_rank_by_all_their_accesses_and_no_share_exceeds_the_whole() {
    // The histogram was entered 10,000 times with only the first folded: its 150 folded
    // events are far fewer than the matmul's, its 1.5 M accesses far more.
    let mut hist = histogram(50);
    hist.entries = 10_000;
    hist.unfolded_accesses = 1_500_000;
    let profile = profile_of(vec![matmul(8), hist]);
    let nests = hot_nests(&profile);
    assert_eq!(nests[0].0.function, "hist");
    let total = total_accesses(&nests);
    assert_eq!(total, 1_500_150 + 4 * 512 + 64);
    let text = markdown::render(&profile, "run.polyprof");
    assert!(text.find("## 1. `hist`").expect(&text) < text.find("## 2. `mm`").expect(&text));
    for share in text.split("% of the profile") {
        let figure: String = share
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        if let Ok(percent) = figure.parse::<f64>() {
            assert!(percent <= 100.0, "{text}");
        }
    }
    assert!(text.contains("(99.9% of the profile)"), "{text}");
}

#[test]
fn a_nest_partly_run_uninstrumented_says_its_accesses_are_estimated() {
    let mut mm = matmul(8);
    mm.entries = 3;
    mm.plain_iterations = 20;
    let text = markdown::render(&profile_of(vec![mm]), "run.polyprof");
    assert!(
        text.contains(
            "entered 3 times (the first 1 folded; 20 iterations of its outermost loop ran \
             uninstrumented, their accesses estimated)"
        ),
        "{text}"
    );
    // Without a plain copy, nothing is said of one.
    let text = markdown::render(&profile_of(vec![matmul(8)]), "run.polyprof");
    assert!(!text.contains("uninstrumented"), "{text}");
}

#[test]
fn cxx_function_names_are_demangled_and_others_kept() {
    assert_eq!(
        demangled("_Z16single_iterationPfS_S_iifffff"),
        "single_iteration"
    );
    assert_eq!(demangled("_ZN4grid4stepEv"), "grid::step");
    assert_eq!(demangled("main"), "main");
    assert_eq!(demangled("_Znot a name"), "_Znot a name");
    let mut nest = matmul(4);
    nest.function = "_Z16single_iterationPfS_S_iifffff".into();
    let text = markdown::render(&profile_of(vec![nest]), "p");
    assert!(
        text.contains("## 1. `single_iteration` at k.c:3 in single_iteration"),
        "{text}"
    );
}

#[test]
fn copies_of_one_access_share_a_row_and_dependence_instances_have_their_affine_share() {
    // The histogram's update unrolled by two: two loads and two stores of h at the
    // same line and column.
    let mut nest = record(
        "hist2:2:ab",
        vec![
            site(SiteKind::Loop, 1, None, "i", 10),
            site(SiteKind::Load, 1, Some(0), "h", 11),
            site(SiteKind::Store, 1, Some(0), "h", 11),
            site(SiteKind::Load, 1, Some(0), "h", 11),
            site(SiteKind::Store, 1, Some(0), "h", 11),
        ],
    );
    nest.enter();
    for i in 0..40i64 {
        nest.access(0, &[i], 0);
        let bucket = 0x50_0000 + 8 * ((i * 7919) % 13) as u64;
        let (load, store) = if i % 2 == 0 { (1, 2) } else { (3, 4) };
        nest.access(load, &[i], bucket);
        nest.access(store, &[i], bucket);
    }
    let nest = nest.profile();
    let verdict = NestVerdict::of(&nest, &[]);
    let rows = access_rows(&nest, &verdict);
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["load h@11 (2 copies)", "store h@11 (2 copies)"]);
    assert_eq!(rows[0].events, 40);
    assert!(verdict.dependence_events > 0);
    assert!(verdict.affine_dependence_events <= verdict.dependence_events);
    let text = markdown::render(&profile_of(vec![matmul(4)]), "p");
    assert!(
        text.contains("pieces without ⊤, 100.0% of the dependence instances"),
        "{text}"
    );
}
