//! Composite built-ins — dot products, lengths, reflections, reductions, matrix products,
//! determinants and inverses — evaluated **in the declared precision, by the formula the
//! WGSL specification gives**, one rounded scalar operation at a time.
//!
//! ## Why step by step
//!
//! A GPU computes `length(e)` as `sqrt(dot(e, e))` in the vector's own type: each product
//! and each partial sum is rounded to f32 (or f16), so `length(vec3(3e19, 4e19, 0))`
//! overflows to infinity in f32 although the exact result, 5e19, is representable.
//! Computing the whole expression in f64 and rounding once would be more accurate than any
//! GPU and disagree with all of them. Every function here is therefore a composition of
//! the lane operations of [`super::binary`] and [`super::unary`] — the same rounding the
//! interpreter applies to a `mul` or an `add` the program wrote itself — so the result is
//! what the spec's formula gives when each step is rounded once (no fusion into `fma`; a
//! GPU may fuse, which can only differ in the last bit of a step).
//!
//! ## Formulas and order
//!
//! - `dot(a, b) = ((a0·b0 + a1·b1) + a2·b2) + …`, left to right; integers wrap.
//! - `length(e) = |e|` for a scalar, `sqrt(dot(e, e))` for a vector;
//!   `distance(a, b) = length(a - b)`; `normalize(e) = e / length(e)` lane by lane.
//! - `reflect(i, n) = i - (2·dot(n, i))·n`; `faceforward(n, i, nref) = dot(nref, i) < 0 ?
//!   n : -n`; `cross` by its three differences of products.
//! - `reduce_add`/`reduce_mul` fold left to right from the first lane (integers wrap);
//!   `reduce_min`/`reduce_max` fold with `min`/`max` (a NaN lane yields to the others).
//! - Matrices are columns (`m[c][r]`). Each element of a matrix product is the `dot` of a
//!   row and a column in that order; `matrix_times_scalar` multiplies every element.
//! - `determinant` of 2×2 is `m00·m11 - m10·m01`; larger ones expand along the first
//!   column (`Σ ± m[0][r]·det(minor)`, left to right). `inverse` is the adjugate with each
//!   cofactor divided by the determinant.
//!
//! ## Shapes
//!
//! The verifier's type rules guarantee matching lengths, three lanes for `cross` and square
//! matrices for `determinant` and `inverse`; on anything else these functions return
//! [`ScalarError::Shape`] rather than panic.

use super::{binary, unary, ScalarError};
use crate::{Opcode, Scalar};

/// A matrix as its columns of canonical lane bits (`m[c][r]`).
pub type Columns = Vec<Vec<u64>>;

type R<T> = Result<T, ScalarError>;

fn shape(op: Opcode) -> ScalarError {
    ScalarError::Shape(op)
}

fn require_float(op: Opcode, s: Scalar) -> R<()> {
    if s.is_float() {
        Ok(())
    } else {
        Err(ScalarError::UnsupportedType { op, scalar: s })
    }
}

fn same_len(op: Opcode, a: &[u64], b: &[u64]) -> R<()> {
    if a.len() == b.len() && !a.is_empty() {
        Ok(())
    } else {
        Err(shape(op))
    }
}

fn mul(s: Scalar, a: u64, b: u64) -> R<u64> {
    binary(Opcode::Mul, s, a, b)
}

fn add(s: Scalar, a: u64, b: u64) -> R<u64> {
    binary(Opcode::Add, s, a, b)
}

fn sub(s: Scalar, a: u64, b: u64) -> R<u64> {
    binary(Opcode::Sub, s, a, b)
}

/// The float constant `v` (exactly representable in every float type) as bits of `s`.
fn float_const(s: Scalar, v: f64) -> u64 {
    super::from_f64(s, v)
}

/// `dot(a, b)`, left to right, each product and sum rounded (integers wrap).
pub fn dot(s: Scalar, a: &[u64], b: &[u64]) -> R<u64> {
    same_len(Opcode::Dot, a, b)?;
    let mut pairs = a.iter().zip(b);
    let Some((&x0, &y0)) = pairs.next() else {
        return Err(shape(Opcode::Dot));
    };
    let mut acc = mul(s, x0, y0)?;
    for (&x, &y) in pairs {
        acc = add(s, acc, mul(s, x, y)?)?;
    }
    Ok(acc)
}

/// `reduce_add`, `reduce_mul`, `reduce_min` or `reduce_max` (`op`) over the lanes of `a`.
pub fn reduce(op: Opcode, s: Scalar, a: &[u64]) -> R<u64> {
    let step = match op {
        Opcode::ReduceAdd => Opcode::Add,
        Opcode::ReduceMul => Opcode::Mul,
        Opcode::ReduceMin => Opcode::Min,
        Opcode::ReduceMax => Opcode::Max,
        // wildcard-ok: only the four reductions have a lane step; any other opcode is refused
        other => return Err(ScalarError::NotScalarOp(other)),
    };
    let (&first, rest) = a.split_first().ok_or(shape(op))?;
    rest.iter()
        .try_fold(first, |acc, &x| binary(step, s, acc, x))
}

/// `cross(a, b)` of two three-lane float vectors.
pub fn cross(s: Scalar, a: &[u64], b: &[u64]) -> R<Vec<u64>> {
    require_float(Opcode::Cross, s)?;
    let ([a0, a1, a2], [b0, b1, b2]) = (three(a)?, three(b)?);
    let diff = |x: u64, y: u64, z: u64, w: u64| sub(s, mul(s, x, y)?, mul(s, z, w)?);
    Ok(vec![
        diff(a1, b2, a2, b1)?,
        diff(a2, b0, a0, b2)?,
        diff(a0, b1, a1, b0)?,
    ])
}

fn three(v: &[u64]) -> R<[u64; 3]> {
    <[u64; 3]>::try_from(v).map_err(|_| shape(Opcode::Cross))
}

/// `length(e)`: `|e|` for one lane, `sqrt(dot(e, e))` otherwise (float only).
pub fn length(s: Scalar, e: &[u64]) -> R<u64> {
    require_float(Opcode::Length, s)?;
    match e {
        [x] => unary(Opcode::Abs, s, *x),
        _ => unary(Opcode::Sqrt, s, dot(s, e, e)?),
    }
}

/// `distance(a, b) = length(a - b)` (float only).
pub fn distance(s: Scalar, a: &[u64], b: &[u64]) -> R<u64> {
    require_float(Opcode::Distance, s)?;
    same_len(Opcode::Distance, a, b)?;
    let d = lanewise(a, b, |x, y| sub(s, x, y))?;
    length(s, &d)
}

/// `normalize(e) = e / length(e)`, lane by lane (float only).
pub fn normalize(s: Scalar, e: &[u64]) -> R<Vec<u64>> {
    require_float(Opcode::Normalize, s)?;
    let l = length(s, e)?;
    e.iter().map(|&x| binary(Opcode::Div, s, x, l)).collect()
}

/// `reflect(i, n) = i - (2·dot(n, i))·n` (float only).
pub fn reflect(s: Scalar, i: &[u64], n: &[u64]) -> R<Vec<u64>> {
    require_float(Opcode::Reflect, s)?;
    same_len(Opcode::Reflect, i, n)?;
    let k = mul(s, float_const(s, 2.0), dot(s, n, i)?)?;
    lanewise(i, n, |x, y| sub(s, x, mul(s, k, y)?))
}

/// `faceforward(n, i, nref)`: `n` when `dot(nref, i) < 0`, else `-n` (float only).
pub fn faceforward(s: Scalar, n: &[u64], i: &[u64], nref: &[u64]) -> R<Vec<u64>> {
    require_float(Opcode::FaceForward, s)?;
    same_len(Opcode::FaceForward, n, i)?;
    let d = dot(s, nref, i)?;
    if binary(Opcode::Lt, s, d, float_const(s, 0.0))? != 0 {
        Ok(n.to_vec())
    } else {
        n.iter().map(|&x| unary(Opcode::Neg, s, x)).collect()
    }
}

/// `outer_product(a, b)`: column `j` is `a · b[j]` (float only).
pub fn outer_product(s: Scalar, a: &[u64], b: &[u64]) -> R<Columns> {
    require_float(Opcode::OuterProduct, s)?;
    b.iter()
        .map(|&y| a.iter().map(|&x| mul(s, x, y)).collect())
        .collect()
}

/// Row `r` of the column-major matrix `m`.
fn row(op: Opcode, m: &[Vec<u64>], r: usize) -> R<Vec<u64>> {
    m.iter()
        .map(|col| col.get(r).copied().ok_or(shape(op)))
        .collect()
}

fn rows_of(op: Opcode, m: &[Vec<u64>]) -> R<usize> {
    let rows = m.first().map(Vec::len).ok_or(shape(op))?;
    if rows == 0 || m.iter().any(|c| c.len() != rows) {
        return Err(shape(op));
    }
    Ok(rows)
}

/// `a × b`: element `(r, c)` is `dot(row r of a, column c of b)` (float only).
pub fn matrix_times_matrix(s: Scalar, a: &[Vec<u64>], b: &[Vec<u64>]) -> R<Columns> {
    let op = Opcode::MatrixTimesMatrix;
    require_float(op, s)?;
    let rows: Vec<Vec<u64>> = (0..rows_of(op, a)?)
        .map(|r| row(op, a, r))
        .collect::<R<_>>()?;
    b.iter()
        .map(|col| rows.iter().map(|r| dot(s, r, col)).collect())
        .collect()
}

/// `m × v`: lane `r` is `dot(row r of m, v)` (float only).
pub fn matrix_times_vector(s: Scalar, m: &[Vec<u64>], v: &[u64]) -> R<Vec<u64>> {
    let op = Opcode::MatrixTimesVector;
    require_float(op, s)?;
    (0..rows_of(op, m)?)
        .map(|r| dot(s, &row(op, m, r)?, v))
        .collect()
}

/// `v × m`: lane `c` is `dot(v, column c of m)` (float only).
pub fn vector_times_matrix(s: Scalar, v: &[u64], m: &[Vec<u64>]) -> R<Vec<u64>> {
    require_float(Opcode::VectorTimesMatrix, s)?;
    m.iter().map(|col| dot(s, v, col)).collect()
}

/// `m × k`: every element times the scalar `k` (float only).
pub fn matrix_times_scalar(s: Scalar, m: &[Vec<u64>], k: u64) -> R<Columns> {
    require_float(Opcode::MatrixTimesScalar, s)?;
    m.iter()
        .map(|col| col.iter().map(|&x| mul(s, x, k)).collect())
        .collect()
}

/// The transpose of `m` (moves bits only).
pub fn transpose(m: &[Vec<u64>]) -> R<Columns> {
    let op = Opcode::Transpose;
    (0..rows_of(op, m)?).map(|r| row(op, m, r)).collect()
}

fn require_square(op: Opcode, m: &[Vec<u64>]) -> R<usize> {
    let n = rows_of(op, m)?;
    if n == m.len() {
        Ok(n)
    } else {
        Err(shape(op))
    }
}

/// `m` without column `skip_c` and row `skip_r`.
fn minor(m: &[Vec<u64>], skip_c: usize, skip_r: usize) -> Columns {
    m.iter()
        .enumerate()
        .filter(|&(c, _)| c != skip_c)
        .map(|(_, col)| {
            col.iter()
                .enumerate()
                .filter(|&(r, _)| r != skip_r)
                .map(|(_, &x)| x)
                .collect()
        })
        .collect()
}

/// `determinant(m)` of a square float matrix (see the module docs for the order).
pub fn determinant(s: Scalar, m: &[Vec<u64>]) -> R<u64> {
    require_float(Opcode::Determinant, s)?;
    require_square(Opcode::Determinant, m)?;
    det(s, m)
}

/// The determinant of a square float matrix whose shape the caller checked.
fn det(s: Scalar, m: &[Vec<u64>]) -> R<u64> {
    match m {
        [] => Err(shape(Opcode::Determinant)),
        [col] => col.first().copied().ok_or(shape(Opcode::Determinant)),
        [c0, c1] => {
            let at = |c: &[u64], r: usize| c.get(r).copied().ok_or(shape(Opcode::Determinant));
            sub(
                s,
                mul(s, at(c0, 0)?, at(c1, 1)?)?,
                mul(s, at(c1, 0)?, at(c0, 1)?)?,
            )
        }
        [first, ..] => {
            let mut sum = None;
            for (r, &x) in first.iter().enumerate() {
                let term = mul(s, x, det(s, &minor(m, 0, r))?)?;
                sum = Some(match sum {
                    None => term,
                    Some(acc) if r % 2 == 0 => add(s, acc, term)?,
                    Some(acc) => sub(s, acc, term)?,
                });
            }
            sum.ok_or(shape(Opcode::Determinant))
        }
    }
}

/// `inverse(m)`: element `(r, c)` is `cofactor(c, r) / determinant(m)` (float only).
pub fn inverse(s: Scalar, m: &[Vec<u64>]) -> R<Columns> {
    let op = Opcode::Inverse;
    require_float(op, s)?;
    let n = require_square(op, m)?;
    let d = det(s, m)?;
    let one = float_const(s, 1.0);
    (0..n)
        .map(|c| {
            (0..n)
                .map(|r| {
                    // Column c, row r of the inverse: cofactor of (row c, column r).
                    let cof = if n == 1 {
                        one
                    } else {
                        det(s, &minor(m, r, c))?
                    };
                    let cof = if (r + c) % 2 == 0 {
                        cof
                    } else {
                        unary(Opcode::Neg, s, cof)?
                    };
                    binary(Opcode::Div, s, cof, d)
                })
                .collect()
        })
        .collect()
}

fn lanewise(a: &[u64], b: &[u64], f: impl Fn(u64, u64) -> R<u64>) -> R<Vec<u64>> {
    a.iter().zip(b).map(|(&x, &y)| f(x, y)).collect()
}
