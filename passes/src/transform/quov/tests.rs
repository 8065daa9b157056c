//! The worked examples of the paper (Yuki and Rajopadhye, IMPACT 2013), as the digest in
//! `papers/notes/tiling-quov-sica.md` lists them.

use super::*;

fn v(x: &[i64]) -> Vec<i64> {
    x.to_vec()
}

const T2: [Dim; 2] = [Dim::Tilable, Dim::Tilable];
const S2: [Dim; 2] = [Dim::Sequential, Dim::Sequential];

#[test]
fn a_vector_below_another_is_subsumed_and_two_rows_rotate() {
    // {[1,0],[2,0]}: QUOV [2,0], mod 2: X[t mod 2][i].
    let u = quov(&[v(&[1, 0]), v(&[2, 0])], &T2).unwrap();
    assert_eq!(u, v(&[2, 0]));
    let map = mapping(&u).unwrap();
    assert_eq!(map.modulus, 2);
    // The first row picks t (the rotated dimension), the second keeps i.
    assert_eq!(map.rows[0], v(&[1, 0]));
}

#[test]
fn fig1_four_vectors_give_two_by_two() {
    // [2,0],[2,1],[1,2],[0,2] -> [2,2] (length 4; the trivial UOV [5,5] is 10).
    let vectors = [v(&[2, 0]), v(&[2, 1]), v(&[1, 2]), v(&[0, 2])];
    let u = quov(&vectors, &T2).unwrap();
    assert_eq!(u, v(&[2, 2]));
    assert_eq!(l1(&u), 4);
    let trivial: Vec<i64> = (0..2).map(|k| vectors.iter().map(|x| x[k]).sum()).collect();
    assert_eq!(trivial, v(&[5, 5]));
    assert_eq!(mapping(&u).unwrap().modulus, 2);
}

#[test]
fn sequential_scan_takes_the_lexicographic_maximum_or_the_next_row() {
    // {[1,1],[1,-1],[1,0]}: lexmax [1,1] and [2,0] tie at length 2.
    let u = quov(&[v(&[1, 1]), v(&[1, -1]), v(&[1, 0])], &S2).unwrap();
    assert_eq!(l1(&u), 2);
    // {[0,5]}: [1,0] beats [0,5] (the outer dimension is dropped).
    assert_eq!(quov(&[v(&[0, 5])], &S2).unwrap(), v(&[1, 0]));
}

#[test]
fn tilable_dimensions_need_non_negative_components() {
    assert_eq!(quov(&[v(&[1, -1])], &T2), None);
    // Sequential ones do not.
    assert!(quov(&[v(&[1, -1])], &S2).is_some());
}

#[test]
fn fig3a_a_producer_loop_before_its_consumer_loop_keeps_a_row() {
    // for i S1[i] = foo(); for j S2[j] = bar(S1[j]): dependence [1,0,0] -> [1,0].
    let reduced = reduce_2d1(&[1, 0, 0]);
    assert_eq!(reduced, v(&[1, 0]));
    let u = quov(&[reduced], &T2).unwrap();
    assert_eq!(u, v(&[1, 0]));
    assert!(!is_scalar_2d1(&[1, 0, 0]));
}

#[test]
fn fig3b_fused_the_value_is_a_scalar() {
    // The same fused, theta S2 = (0, j, 1): [0,0,1] -> [0,1,1] -> [0,1].
    assert!(is_scalar_2d1(&[0, 0, 1]));
    assert_eq!(reduce_2d1(&[0, 0, 1]), v(&[0, 1]));
}

#[test]
fn fig4_a_boundary_dependence_is_split_off() {
    // Out of S1: [0,1] twice (interior) and [1,0] from i = 0 only.
    let flows = [
        Flow {
            vector: v(&[0, 1]),
            boundary: false,
        },
        Flow {
            vector: v(&[0, 1]),
            boundary: false,
        },
        Flow {
            vector: v(&[1, 0]),
            boundary: true,
        },
    ];
    assert_eq!(split_boundaries(&flows), vec![2]);
    // A boundary vector within the others' box costs nothing and stays.
    let within = [
        Flow {
            vector: v(&[1, 1]),
            boundary: false,
        },
        Flow {
            vector: v(&[1, 0]),
            boundary: true,
        },
    ];
    assert!(split_boundaries(&within).is_empty());
}

#[test]
fn a_two_dimensional_recurrence_keeps_a_diagonal() {
    // H[i][j] = f(H[i-1][j], H[i][j-1]): QUOV [1,1], N + M cells: H[i - j + off].
    let u = quov(&[v(&[1, 0]), v(&[0, 1])], &T2).unwrap();
    assert_eq!(u, v(&[1, 1]));
    let map = mapping(&u).unwrap();
    assert_eq!(map.modulus, 1);
    // The first row maps u to 1; the second (the storage index) is constant along u.
    let dot = |r: &[i64], x: &[i64]| r.iter().zip(x).map(|(a, b)| a * b).sum::<i64>();
    assert_eq!(dot(&map.rows[0], &u), 1);
    assert_eq!(dot(&map.rows[1], &u), 0);
}

#[test]
fn skewed_jacobi_is_shorter_than_two_full_rows() {
    // 1-D Jacobi skewed (i' = i + t): [1,0],[1,1],[1,2] -> [1,2] (length 3); the
    // classic A[t mod 2][i] is [2,2] in the skewed space (length 4).
    let u = quov(&[v(&[1, 0]), v(&[1, 1]), v(&[1, 2])], &T2).unwrap();
    assert_eq!(u, v(&[1, 2]));
    assert!(l1(&u) < l1(&[2, 2]));
}

#[test]
fn mappings_are_unimodular_and_send_the_vector_to_the_modulus() {
    for u in [
        v(&[2, 0]),
        v(&[3, 6]),
        v(&[1, 2]),
        v(&[0, 4, 6]),
        v(&[5, -3]),
        v(&[0, 0, 1]),
    ] {
        let map = mapping(&u).unwrap();
        let dot = |r: &[i64]| r.iter().zip(&u).map(|(a, b)| a * b).sum::<i64>();
        assert_eq!(dot(&map.rows[0]), map.modulus, "{u:?} {map:?}");
        for row in &map.rows[1..] {
            assert_eq!(dot(row), 0, "{u:?} {map:?}");
        }
        assert_eq!(determinant(&map.rows).abs(), 1, "{u:?} {map:?}");
    }
    assert_eq!(mapping(&[0, 0]), None);
}

fn determinant(m: &[Vec<i64>]) -> i64 {
    match m.len() {
        0 => 1,
        1 => m[0][0],
        n => (0..n)
            .map(|c| {
                let minor: Vec<Vec<i64>> = m[1..]
                    .iter()
                    .map(|row| {
                        row.iter()
                            .enumerate()
                            .filter(|(k, _)| *k != c)
                            .map(|(_, x)| *x)
                            .collect()
                    })
                    .collect();
                let sign = if c % 2 == 0 { 1 } else { -1 };
                sign * m[0][c] * determinant(&minor)
            })
            .sum(),
    }
}

#[test]
fn mixed_bands_treat_each_run_apart() {
    // A sequential outer dimension, then a tilable pair.
    let dims = [Dim::Sequential, Dim::Tilable, Dim::Tilable];
    let u = quov(&[v(&[0, 1, 0]), v(&[0, 0, 2]), v(&[1, 0, 0])], &dims).unwrap();
    assert_eq!(u, v(&[1, 1, 2]));
}
