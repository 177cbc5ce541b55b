//! Known answers for the composite built-ins, worked out by hand: each shows a result
//! that rounding every step to the declared type gives and computing in f64 then
//! rounding once would not.

use super::composite::*;
use super::{ternary, ScalarError};
use crate::{Opcode, Scalar};

fn f32s(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}

fn f32_of(bits: u64) -> f32 {
    f32::from_bits(bits as u32)
}

const S: Scalar = Scalar::F32;

#[test]
fn length_of_a_huge_f32_vector_overflows_as_on_a_gpu() {
    // dot = 9e38 + 1.6e39 > f32::MAX (3.4e38): the squared sum is inf, so is its root.
    let e = f32s(&[3e19, 4e19, 0.0]);
    assert_eq!(f32_of(length(S, &e).unwrap()), f32::INFINITY);
    // In f64 the same vector has its exact length.
    let e64: Vec<u64> = [3e19f64, 4e19, 0.0].iter().map(|x| x.to_bits()).collect();
    assert_eq!(f64::from_bits(length(Scalar::F64, &e64).unwrap()), 5e19);
    // A scalar's length is its magnitude, with no squaring to overflow.
    assert_eq!(f32_of(length(S, &f32s(&[-3e30])).unwrap()), 3e30);
}

#[test]
fn dot_rounds_every_partial_sum() {
    // 1 + 2^-24 is a tie that rounds to 1 in f32, twice; the exact sum 1 + 2^-23 is an
    // f32, so rounding once would give it.
    let tiny = 2f32.powi(-24);
    let a = f32s(&[1.0, tiny, tiny]);
    let ones = f32s(&[1.0, 1.0, 1.0]);
    assert_eq!(f32_of(dot(S, &a, &ones).unwrap()), 1.0);
    // Integers wrap: i32::MAX * 1 + 1 * 1.
    let i = |v: i32| v as i64 as u64;
    let wrapped = dot(Scalar::I32, &[i(i32::MAX), i(1)], &[i(1), i(1)]).unwrap();
    assert_eq!(wrapped, i(i32::MIN));
}

#[test]
fn distance_normalize_reflect_faceforward() {
    let d = distance(S, &f32s(&[4.0, 6.0]), &f32s(&[1.0, 2.0])).unwrap();
    assert_eq!(f32_of(d), 5.0);
    let n: Vec<f32> = normalize(S, &f32s(&[3.0, 4.0]))
        .unwrap()
        .into_iter()
        .map(f32_of)
        .collect();
    assert_eq!(n, vec![0.6, 0.8]);
    // Normalising a huge vector divides by an infinite length: zeros, as a GPU gives.
    let huge: Vec<f32> = normalize(S, &f32s(&[3e19, 4e19]))
        .unwrap()
        .into_iter()
        .map(f32_of)
        .collect();
    assert_eq!(huge, vec![0.0, 0.0]);
    let r: Vec<f32> = reflect(S, &f32s(&[1.0, -1.0]), &f32s(&[0.0, 1.0]))
        .unwrap()
        .into_iter()
        .map(f32_of)
        .collect();
    assert_eq!(r, vec![1.0, 1.0]);
    let n = f32s(&[1.0, 2.0]);
    let i = f32s(&[1.0, 0.0]);
    assert_eq!(faceforward(S, &n, &i, &f32s(&[-1.0, 0.0])).unwrap(), n);
    assert_eq!(
        faceforward(S, &n, &i, &f32s(&[1.0, 0.0])).unwrap(),
        f32s(&[-1.0, -2.0])
    );
}

#[test]
fn reductions_fold_left_and_integers_wrap() {
    let i = |v: i32| v as i64 as u64;
    let sum = reduce(Opcode::ReduceAdd, Scalar::I32, &[i(i32::MAX), i(1), i(5)]).unwrap();
    assert_eq!(sum, i(i32::MIN + 5));
    let big = 2f32.powi(24);
    // (2^24 + 1) rounds to 2^24, then + 1 again: 2^24 in f32 (2^24 + 2 exactly).
    let s = reduce(Opcode::ReduceAdd, S, &f32s(&[big, 1.0, 1.0])).unwrap();
    assert_eq!(f32_of(s), big);
    let m = reduce(Opcode::ReduceMax, S, &f32s(&[f32::NAN, -2.0, 7.0])).unwrap();
    assert_eq!(f32_of(m), 7.0);
    assert_eq!(
        reduce(Opcode::Add, S, &f32s(&[1.0])),
        Err(ScalarError::NotScalarOp(Opcode::Add))
    );
}

#[test]
fn matrices_are_columns() {
    // a = [[1 3] [2 4]] (rows), columns (1, 2) and (3, 4).
    let a = vec![f32s(&[1.0, 2.0]), f32s(&[3.0, 4.0])];
    // a × (1, 1) = (1 + 3, 2 + 4); (1, 1) × a = (1 + 2, 3 + 4).
    assert_eq!(
        matrix_times_vector(S, &a, &f32s(&[1.0, 1.0])).unwrap(),
        f32s(&[4.0, 6.0])
    );
    assert_eq!(
        vector_times_matrix(S, &f32s(&[1.0, 1.0]), &a).unwrap(),
        f32s(&[3.0, 7.0])
    );
    // a × a = [[7 15] [10 22]] (rows).
    assert_eq!(
        matrix_times_matrix(S, &a, &a).unwrap(),
        vec![f32s(&[7.0, 10.0]), f32s(&[15.0, 22.0])]
    );
    assert_eq!(
        transpose(&a).unwrap(),
        vec![f32s(&[1.0, 3.0]), f32s(&[2.0, 4.0])]
    );
    assert_eq!(f32_of(determinant(S, &a).unwrap()), -2.0);
    let b = vec![
        f32s(&[2.0, 0.0, 0.0]),
        f32s(&[0.0, 3.0, 0.0]),
        f32s(&[1.0, 0.0, 4.0]),
    ];
    assert_eq!(f32_of(determinant(S, &b).unwrap()), 24.0);
    // Column 2 of b's inverse solves b x = e2: x = (-1/8, 0, 1/4).
    // (Compared as numbers: a negated zero cofactor gives -0.)
    let inv: Vec<Vec<f32>> = inverse(S, &b)
        .unwrap()
        .into_iter()
        .map(|c| c.into_iter().map(f32_of).collect())
        .collect();
    assert_eq!(inv[2], vec![-0.125, 0.0, 0.25]);
    assert_eq!(inv[0], vec![0.5, 0.0, 0.0]);
    // A determinant whose products overflow in f32: 2e19·2e19 - 2e19·2e19 is inf - inf,
    // NaN (exactly it is 0).
    let huge = vec![f32s(&[2e19, 2e19]), f32s(&[2e19, 2e19])];
    assert!(f32_of(determinant(S, &huge).unwrap()).is_nan());
}

#[test]
fn shapes_and_types_are_refused_not_panicked_on() {
    let two = f32s(&[1.0, 2.0]);
    assert_eq!(cross(S, &two, &two), Err(ScalarError::Shape(Opcode::Cross)));
    assert_eq!(
        cross(Scalar::I32, &[1, 2, 3], &[1, 2, 3]),
        Err(ScalarError::UnsupportedType {
            op: Opcode::Cross,
            scalar: Scalar::I32
        })
    );
    assert_eq!(
        dot(S, &two, &f32s(&[1.0])),
        Err(ScalarError::Shape(Opcode::Dot))
    );
    let not_square = vec![f32s(&[1.0, 2.0, 3.0]), f32s(&[4.0, 5.0, 6.0])];
    assert_eq!(
        determinant(S, &not_square),
        Err(ScalarError::Shape(Opcode::Determinant))
    );
    assert_eq!(inverse(S, &[]), Err(ScalarError::Shape(Opcode::Inverse)));
    let ragged = vec![f32s(&[1.0, 2.0]), f32s(&[3.0])];
    assert_eq!(
        transpose(&ragged),
        Err(ScalarError::Shape(Opcode::Transpose))
    );
}

#[test]
fn cross_product() {
    let x = f32s(&[1.0, 0.0, 0.0]);
    let y = f32s(&[0.0, 1.0, 0.0]);
    assert_eq!(cross(S, &x, &y).unwrap(), f32s(&[0.0, 0.0, 1.0]));
}

#[test]
fn smoothstep_and_mix_round_each_step() {
    let b = |x: f32| u64::from(x.to_bits());
    let smooth = |lo: f32, hi: f32, x: f32| {
        f32_of(ternary(Opcode::Smoothstep, S, b(lo), b(hi), b(x)).unwrap())
    };
    assert_eq!(smooth(0.0, 1.0, 0.5), 0.5);
    assert_eq!(smooth(0.0, 1.0, 2.0), 1.0);
    // hi - lo = 6e38 overflows to inf in f32, so t = 3e38 / inf = 0 and the result is 0
    // (exactly, t would be 0.5 and the result 0.5).
    assert_eq!(smooth(-3e38, 3e38, 0.0), 0.0);
    let mix = |a: f32, c: f32, t: f32| f32_of(ternary(Opcode::Mix, S, b(a), b(c), b(t)).unwrap());
    assert_eq!(mix(2.0, 4.0, 0.25), 2.5);
    // 3e38·(1 - 0.5) + 3e38·0.5 = 1.5e38 + 1.5e38 = 3e38: no overflow on the way.
    assert_eq!(mix(3e38, 3e38, 0.5), 3e38);
}
