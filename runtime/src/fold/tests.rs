//! The worked examples of the folding note and loops of our own, folded end to end.

use super::*;
use Coefficient::{Known, Top};

fn fold(dims: usize, outputs: usize, points: &[(Vec<i64>, Vec<i128>)]) -> Folded {
    fold_with(dims, outputs, FoldConfig::default(), points)
}

fn fold_with(
    dims: usize,
    outputs: usize,
    config: FoldConfig,
    points: &[(Vec<i64>, Vec<i128>)],
) -> Folded {
    let mut stream = Stream::new(dims, outputs, config);
    for (point, labels) in points {
        stream.push(point, labels);
    }
    stream.finish()
}

fn coefficients(piece: &Piece, output: usize) -> Vec<Coefficient> {
    piece.labels[output].coefficients.clone()
}

#[test]
fn fig5_three_by_three_folds_to_one_square_with_label_1cj_top_ck_67() {
    // Row cj: 67, 71, 77 shifted by cj (rows start at 67, 68, 69).
    let mut points = Vec::new();
    for cj in 0..3 {
        for (ck, base) in [67, 71, 77].into_iter().enumerate() {
            points.push((vec![cj, ck as i64], vec![(base + cj) as i128]));
        }
    }
    let folded = fold(2, 1, &points);
    assert_eq!(folded.pieces.len(), 1);
    let square = &folded.pieces[0];
    assert_eq!(
        (square.lower.clone(), square.upper.clone()),
        (vec![0, 0], vec![2, 2])
    );
    assert_eq!(coefficients(square, 0), vec![Known(1), Top]);
    assert_eq!(square.labels[0].remaining, 67);
    assert_eq!(square.count, 9);
    assert!(!square.is_affine());
}

/// backprop's inner loop nest with the note's toy addresses: cj = 0..15 outer,
/// ck = 0..42 inner; conn's rows are not evenly spaced.
fn backprop_row(ck: i64) -> i128 {
    67 + (ck * 17 + (ck * ck) % 5) as i128
}

#[test]
fn backprop_instruction_labels_i1_to_i6() {
    let (mut i1, mut i2, mut i3, mut i5, mut i6) = (vec![], vec![], vec![], vec![], vec![]);
    for cj in 0..=15i64 {
        for ck in 0..=42i64 {
            let iv = vec![cj, ck];
            i1.push((iv.clone(), vec![(ck + 12) as i128]));
            i2.push((iv.clone(), vec![backprop_row(ck) + cj as i128]));
            i3.push((iv.clone(), vec![(ck + 407) as i128]));
            i5.push((iv.clone(), vec![(ck + 1) as i128]));
        }
        i6.push((vec![cj], vec![(cj + 2) as i128]));
    }
    let expect = |folded: Folded, coefficients_expected: Vec<Coefficient>, constant: i128| {
        assert_eq!(folded.pieces.len(), 1, "{folded:?}");
        let piece = &folded.pieces[0];
        assert_eq!(coefficients(piece, 0), coefficients_expected);
        assert_eq!(piece.labels[0].remaining, constant);
        piece.clone()
    };
    let domain = expect(fold(2, 1, &i1), vec![Known(0), Known(1)], 12);
    assert_eq!((domain.lower, domain.upper), (vec![0, 0], vec![15, 42]));
    expect(fold(2, 1, &i2), vec![Known(1), Top], 67);
    expect(fold(2, 1, &i3), vec![Known(0), Known(1)], 407);
    expect(fold(2, 1, &i5), vec![Known(0), Known(1)], 1);
    let i6 = expect(fold(1, 1, &i6), vec![Known(1)], 2);
    assert_eq!((i6.lower, i6.upper), (vec![0], vec![15]));
}

#[test]
fn backprop_i4_to_i4_dependence_maps_to_cj_ck_minus_1_on_1_le_ck_le_42() {
    // The reduction I4 reads what it wrote one ck before; ck = 0 reads the initial value.
    let mut points = Vec::new();
    for cj in 0..=15i64 {
        for ck in 1..=42i64 {
            points.push((vec![cj, ck], vec![cj as i128, (ck - 1) as i128]));
        }
    }
    let folded = fold(2, 2, &points);
    assert_eq!(folded.pieces.len(), 1);
    let dependence = &folded.pieces[0];
    assert_eq!(
        (dependence.lower.clone(), dependence.upper.clone()),
        (vec![0, 1], vec![15, 42])
    );
    assert_eq!(coefficients(dependence, 0), vec![Known(1), Known(0)]);
    assert_eq!(dependence.labels[0].remaining, 0);
    assert_eq!(coefficients(dependence, 1), vec![Known(0), Known(1)]);
    assert_eq!(dependence.labels[1].remaining, -1);
    assert!(dependence.is_affine());
}

fn nest(
    rows: i64,
    columns: impl Fn(i64) -> std::ops::RangeInclusive<i64>,
) -> Vec<(Vec<i64>, Vec<i128>)> {
    let mut points = Vec::new();
    for i in 0..rows {
        for j in columns(i) {
            points.push((vec![0, i, j], vec![(1000 + 8 * i + j) as i128]));
        }
    }
    points
}

#[test]
fn triangle_j_le_i_folds_to_one_trapezoid_with_a_degenerate_lower_face() {
    let folded = fold(3, 1, &nest(10, |i| 0..=i));
    assert_eq!(folded.pieces.len(), 1);
    let piece = &folded.pieces[0];
    assert_eq!(
        piece.vertices[0], piece.vertices[1],
        "the first row is one point"
    );
    assert_eq!(piece.count, 55);
    assert!(piece.is_affine());
}

#[test]
fn a_diagonal_of_single_points_is_not_flat_along_its_inner_loop() {
    // Rows of one point each at j = i: the piece varies along j although no row ever
    // merged along j; its j coefficient is 0, not ⊥ (the i coefficient took it in).
    let points: Vec<_> = (0..5i64)
        .map(|i| (vec![0, i, i], vec![(100 + 10 * i + i) as i128]))
        .collect();
    let folded = fold(3, 1, &points);
    assert_eq!(folded.pieces.len(), 1);
    assert_eq!(
        coefficients(&folded.pieces[0], 0),
        vec![Known(0), Known(11), Known(0)]
    );
    assert_regenerates(&folded, &points);
}

#[test]
fn triangle_j_le_2i_gives_one_piece_per_row() {
    let folded = fold(3, 1, &nest(6, |i| 0..=2 * i));
    assert_eq!(folded.pieces.len(), 6);
    assert!(folded.pieces.iter().all(Piece::is_affine));
}

#[test]
fn odd_k_only_gives_one_piece_per_point_until_the_give_up() {
    let odd = |n: i64| -> Vec<(Vec<i64>, Vec<i128>)> {
        (0..n)
            .map(|k| (vec![0, 2 * k + 1], vec![(4 * k) as i128]))
            .collect()
    };
    let config = FoldConfig {
        widen: true,
        max_pieces: 8,
    };
    let folded = fold_with(2, 1, config, &odd(5));
    assert_eq!(folded.pieces.len(), 5);
    assert!(!folded.gave_up);
    let folded = fold_with(2, 1, config, &odd(100));
    assert!(folded.gave_up);
    assert_eq!(folded.pieces.len(), 1);
    let boxed = &folded.pieces[0];
    assert_eq!(
        (boxed.lower.clone(), boxed.upper.clone()),
        (vec![0, 1], vec![0, 199])
    );
    assert_eq!(boxed.count, 100);
    assert_eq!(folded.events, 100);
    assert!(!boxed.is_affine());
}

#[test]
fn a_loop_that_runs_once_turns_bottom_into_zero() {
    let points: Vec<_> = (0..4)
        .map(|j| (vec![0, 0, j], vec![(50 + 2 * j) as i128]))
        .collect();
    let folded = fold(3, 1, &points);
    assert_eq!(folded.pieces.len(), 1);
    assert_eq!(
        coefficients(&folded.pieces[0], 0),
        vec![Known(0), Known(0), Known(2)]
    );
}

#[test]
fn an_indirect_access_folds_to_a_top_label() {
    // a[perm[i]] with a pseudo-random permutation: the domain is one box, the address
    // is not affine along i.
    let points: Vec<_> = (0..64i64)
        .map(|i| (vec![0, i], vec![(4096 + 8 * ((i * 37) % 64)) as i128]))
        .collect();
    let folded = fold(2, 1, &points);
    assert_eq!(folded.pieces.len(), 1);
    assert_eq!(coefficients(&folded.pieces[0], 0), vec![Known(0), Top]);
    assert_eq!(folded.pieces[0].count, 64);
}

#[test]
fn a_data_dependent_trip_count_still_folds_where_rows_line_up() {
    // for i: for j < len[i]: rows of unrelated lengths give one piece per row or
    // fewer, all affine, never more points than seen.
    let lengths = [3, 7, 7, 2, 9, 9, 9, 1];
    let mut points = Vec::new();
    for (i, &length) in lengths.iter().enumerate() {
        for j in 0..length {
            points.push((vec![0, i as i64, j], vec![(100 * i as i64 + j) as i128]));
        }
    }
    let folded = fold(3, 1, &points);
    assert!(folded.pieces.len() <= lengths.len());
    assert!(folded.pieces.iter().all(Piece::is_affine));
    assert_regenerates(&folded, &points);
}

#[test]
fn points_out_of_order_give_up_instead_of_folding_wrongly() {
    let points = vec![(vec![0, 5], vec![1]), (vec![0, 3], vec![2])];
    let folded = fold(2, 1, &points);
    assert!(folded.gave_up);
    assert_eq!(folded.pieces[0].count, 2);
}

#[test]
fn memory_stays_bounded_on_a_long_fragmented_stream() {
    let mut stream = Stream::new(2, 1, FoldConfig::default());
    for k in 0..200_000i64 {
        stream.push(&[0, 3 * k], &[(k * k) as i128]);
    }
    let folded = stream.finish();
    assert!(folded.gave_up);
    assert!(folded.peak_live <= FoldConfig::default().max_pieces + 1);
    assert_eq!(folded.events, 200_000);
}

/// Each input point appears in exactly one piece, and each affine piece gives its label.
fn assert_regenerates(folded: &Folded, input: &[(Vec<i64>, Vec<i128>)]) {
    let mut regenerated: Vec<(Vec<i64>, Vec<i128>)> = Vec::new();
    for piece in &folded.pieces {
        assert!(piece.is_affine(), "{piece:?}");
        for point in piece.points() {
            let labels = piece
                .labels
                .iter()
                .map(|label| label.evaluate(&point).expect("affine"))
                .collect();
            regenerated.push((point, labels));
        }
    }
    regenerated.sort();
    let mut expected = input.to_vec();
    expected.sort();
    assert_eq!(regenerated, expected);
}

/// xorshift64*: deterministic pseudo-random numbers for the property test.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
}

#[test]
fn random_affine_nests_without_top_regenerate_exactly() {
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    for case in 0..300 {
        let entries = 1 + random.below(3);
        let rows = 1 + random.below(9);
        let width = 1 + random.below(9);
        let shape = random.below(5);
        let outputs = 1 + random.below(2) as usize;
        let coefficients: Vec<[i128; 4]> = (0..outputs)
            .map(|_| {
                [
                    random.below(1 << 40) as i128,
                    random.below(5000) as i128 - 2500,
                    random.below(200) as i128 - 100,
                    random.below(17) as i128 - 8,
                ]
            })
            .collect();
        let mut points = Vec::new();
        for e in 0..entries {
            for i in 0..rows {
                let columns = match shape {
                    0 => 0..=width - 1,     // rectangle
                    1 => 0..=i,             // lower triangle
                    2 => i..=rows - 1,      // upper triangle
                    3 => i..=i + width - 1, // parallelogram (a diagonal when width is 1)
                    _ => 0..=rows - 1 - i,  // shrinking rows
                };
                for j in columns {
                    let labels = coefficients
                        .iter()
                        .map(|c| c[0] + c[1] * e as i128 + c[2] * i as i128 + c[3] * j as i128)
                        .collect();
                    points.push((vec![e, i, j], labels));
                }
            }
        }
        let folded = fold(3, outputs, &points);
        assert!(!folded.gave_up, "case {case}");
        assert_regenerates(&folded, &points);
        // Same shape in every entry and rows that line up: one piece.
        assert_eq!(folded.pieces.len(), 1, "case {case}: {folded:?}");
    }
}

#[test]
fn without_widening_entries_of_random_shapes_regenerate_exactly() {
    // Each entry has its own shape, so absorptions across entries meet rows of other
    // lengths and directions: with widening off every absorption must be exact.
    let config = FoldConfig {
        widen: false,
        max_pieces: 100_000,
    };
    let mut random = Random(0x0123_4567_89ab_cdef);
    for case in 0..300 {
        let c = [
            random.below(1000) as i128,
            random.below(50) as i128,
            random.below(20) as i128 - 10,
            random.below(7) as i128 - 3,
        ];
        let mut points = Vec::new();
        for e in 0..1 + random.below(5) {
            let rows = 1 + random.below(6);
            let width = 1 + random.below(3);
            let shape = random.below(5);
            for i in 0..rows {
                let columns = match shape {
                    0 => 0..=width - 1,
                    1 => 0..=i,
                    2 => i..=rows - 1,
                    3 => i..=i + width - 1,
                    _ => 0..=rows - 1 - i,
                };
                for j in columns {
                    let label = c[0] + c[1] * e as i128 + c[2] * i as i128 + c[3] * j as i128;
                    // A label that is affine on each entry but not across entries.
                    let label = label + if e % 2 == 1 { (i * i) as i128 } else { 0 };
                    points.push((vec![e, i, j], vec![label]));
                }
            }
        }
        let folded = fold_with(3, 1, config, &points);
        assert!(!folded.gave_up, "case {case}");
        assert_regenerates(&folded, &points);
    }
}

#[test]
fn random_three_deep_nests_regenerate_exactly_and_a_tetrahedron_is_one_piece() {
    let mut random = Random(0xfeed_beef_1234_5678);
    for case in 0..200 {
        let n = 1 + random.below(6);
        let shape = random.below(4);
        let c = [
            random.below(900) as i128,
            random.below(9) as i128 - 4,
            random.below(9) as i128,
            3,
        ];
        let mut points = Vec::new();
        for i in 0..n {
            for j in 0..=match shape {
                0 => n - 1,
                _ => i,
            } {
                let upper = match shape {
                    0 | 1 => n - 1,
                    2 => j,
                    _ => i + j,
                };
                for k in 0..=upper {
                    let label = c[0] + c[1] * i as i128 + c[2] * j as i128 + c[3] * k as i128;
                    points.push((vec![0, i, j, k], vec![label]));
                }
            }
        }
        let config = FoldConfig {
            widen: false,
            max_pieces: 100_000,
        };
        let folded = fold_with(4, 1, config, &points);
        assert_regenerates(&folded, &points);
        if shape == 2 {
            // k ≤ j ≤ i: a tetrahedron, one elementary polyhedron.
            assert_eq!(folded.pieces.len(), 1, "case {case}: {folded:?}");
        }
    }
}

/// Sink (e, b, t) reads what (e, b, t') wrote, t' scattered.
fn scattered_reads(config: FoldConfig) -> Folded {
    let mut stream = Stream::new(3, 3, config).tracking_offsets();
    for b in 0..6i64 {
        for t in 1..20i64 {
            let source = ((b * 31 + t * 17) * 2_654_435_761 % 1000) % t;
            stream.push(&[0, b, t], &[0, b as i128, source as i128]);
        }
    }
    stream.finish()
}

#[test]
fn a_dependence_stream_that_gives_up_keeps_its_components_that_never_changed() {
    // Without widening the geometry fragments into more pieces than the stream keeps,
    // but the distance along b stays 0.
    let folded = scattered_reads(FoldConfig {
        widen: false,
        max_pieces: 4,
    });
    assert!(folded.gave_up);
    assert_eq!(folded.offsets, vec![Some(0), Some(0), None]);
    // Widened instead, the label along t is ⊤; the offsets say the same.
    let widened = scattered_reads(FoldConfig::default());
    assert!(!widened.gave_up);
    assert!(widened.pieces.iter().any(|p| !p.is_affine()));
    assert_eq!(widened.offsets, vec![Some(0), Some(0), None]);
}

#[test]
fn offsets_are_not_kept_unless_asked() {
    let points: Vec<_> = (0..4i64)
        .map(|i| (vec![0, i], vec![0, i as i128]))
        .collect();
    assert!(fold(2, 2, &points).offsets.is_empty());
}

#[test]
fn a_fragmented_start_spills_to_a_box_and_the_affine_rows_after_it_stay_a_piece() {
    // Rows 0..30 visit a scattered subset of j (a guard on data: many small pieces,
    // past the cap of 64); rows 30..70 visit every j of a[i][j]. The scattered pieces
    // go into a box and the 40 × 40 rows fold to one affine piece, instead of
    // everything becoming one box.
    let mut points = Vec::new();
    for i in 0..70i64 {
        for j in 0..40i64 {
            if i >= 30 || (i * 7 + j * j * 3) % 5 == 0 {
                points.push((vec![i, j], vec![(8 * (40 * i + j)) as i128]));
            }
        }
    }
    let folded = fold(2, 1, &points);
    assert!(folded.gave_up);
    let (boxes, kept): (Vec<&Piece>, Vec<&Piece>) =
        folded.pieces.iter().partition(|p| p.level.is_none());
    assert_eq!(boxes.len(), 1);
    assert!(kept.iter().all(|p| p.is_affine()));
    let largest = kept
        .iter()
        .max_by_key(|p| p.count)
        .expect("an affine piece");
    assert_eq!(
        (largest.lower.clone(), largest.upper.clone(), largest.count),
        (vec![30, 0], vec![69, 39], 1600)
    );
    assert_eq!(coefficients(largest, 0), vec![Known(320), Known(8)]);
    let total: u64 = folded.pieces.iter().map(|p| p.count).sum();
    assert_eq!(total, folded.events);
    assert!(folded.pieces.len() <= FoldConfig::default().max_pieces + 1);
}

#[test]
fn a_give_up_keeps_the_largest_affine_pieces_retired_so_far() {
    let config = FoldConfig {
        widen: true,
        max_pieces: 8,
    };
    let mut points: Vec<(Vec<i64>, Vec<i128>)> = Vec::new();
    // Entry 0: 20 rows of 10 (one affine piece); entry 1: 10 rows of 5, which the
    // first cannot absorb, so that the first retires; entry 2 arrives out of order.
    for (entry, rows, columns) in [(0, 20, 10), (1, 10, 5)] {
        for i in 0..rows {
            for j in 0..columns {
                points.push((vec![entry, i, j], vec![(80 * i + 8 * j) as i128]));
            }
        }
    }
    points.push((vec![2, 0, 5], vec![0]));
    points.push((vec![2, 0, 2], vec![0]));
    let folded = fold_with(3, 1, config, &points);
    assert!(folded.gave_up);
    assert_eq!(folded.pieces.len(), 2);
    let affine = folded.pieces.iter().find(|p| p.is_affine()).expect("kept");
    assert_eq!((affine.count, affine.upper.clone()), (200, vec![0, 19, 9]));
    let boxed = folded
        .pieces
        .iter()
        .find(|p| p.level.is_none())
        .expect("box");
    assert_eq!(boxed.count, 52);
    assert_eq!(
        (boxed.lower.clone(), boxed.upper.clone()),
        (vec![1, 0, 0], vec![2, 9, 5])
    );
}
