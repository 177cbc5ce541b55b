//! Vector and matrix operations. Float results are computed in f64 and rounded once to
//! the element type; integer dot products and reductions wrap.

use crate::error::ErrorKind;
use crate::scalar::{self, from_f64, to_f64};
use crate::value::{Lanes, Val};
use oxir_ir::{Opcode, Scalar};

/// The vector and matrix operations; the executor maps each of their opcodes to one.
#[allow(missing_docs)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinalgOp {
    Dot,
    Cross,
    Length,
    Distance,
    Normalize,
    Reflect,
    FaceForward,
    ReduceAdd,
    ReduceMul,
    ReduceMin,
    ReduceMax,
    OuterProduct,
    MatrixTimesMatrix,
    MatrixTimesVector,
    VectorTimesMatrix,
    MatrixTimesScalar,
    Transpose,
    Determinant,
    Inverse,
}

fn fl(s: Scalar, v: &Val) -> Vec<f64> {
    v.lanes().iter().map(|&x| to_f64(s, x)).collect()
}

fn back(s: Scalar, v: &[f64]) -> Val {
    Val::V(v.iter().map(|&x| from_f64(s, x)).collect())
}

fn mat(s: Scalar, v: &Val) -> Vec<Vec<f64>> {
    v.elems().iter().map(|c| fl(s, c)).collect()
}

fn mat_back(s: Scalar, m: &[Vec<f64>]) -> Val {
    Val::C(m.iter().map(|c| back(s, c)).collect())
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn det(m: &[Vec<f64>]) -> f64 {
    let n = m.len();
    if n == 1 {
        return m[0][0];
    }
    if n == 2 {
        return m[0][0] * m[1][1] - m[1][0] * m[0][1];
    }
    // Laplace expansion along the first column.
    let mut sum = 0.0;
    for r in 0..n {
        let minor: Vec<Vec<f64>> = m[1..]
            .iter()
            .map(|col| {
                col.iter()
                    .enumerate()
                    .filter(|(i, _)| *i != r)
                    .map(|(_, &x)| x)
                    .collect()
            })
            .collect();
        let sign = if r % 2 == 0 { 1.0 } else { -1.0 };
        sum += sign * m[0][r] * det(&minor);
    }
    sum
}

#[allow(clippy::needless_range_loop)]
fn inverse(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    // Adjugate / determinant (column-major: m[c][r]).
    let n = m.len();
    let d = det(m);
    let mut out = vec![vec![0.0; n]; n];
    for c in 0..n {
        for r in 0..n {
            // cofactor of element (row r, column c)
            let minor: Vec<Vec<f64>> = (0..n)
                .filter(|&cc| cc != c)
                .map(|cc| (0..n).filter(|&rr| rr != r).map(|rr| m[cc][rr]).collect())
                .collect();
            let sign = if (r + c) % 2 == 0 { 1.0 } else { -1.0 };
            let cof = if n == 1 { 1.0 } else { sign * det(&minor) };
            // inverse[row c][column r] = cofactor(r, c) / det  → column r, row c
            out[r][c] = cof / d;
        }
    }
    out
}

/// Evaluates `lop` (the opcode `op`, for messages) on operands with element type `s`.
pub fn eval(lop: LinalgOp, op: Opcode, s: Scalar, args: &[Val]) -> Result<Val, ErrorKind> {
    if !s.is_float() {
        return integer(lop, op, s, args);
    }
    Ok(float(lop, s, args))
}

/// Integer dot products and reductions, wrapping; the rest are float-only.
fn integer(lop: LinalgOp, op: Opcode, s: Scalar, args: &[Val]) -> Result<Val, ErrorKind> {
    use LinalgOp::*;
    let a = args[0].lanes();
    let fold = |init: Option<u64>, bop: Opcode, l: &Lanes| -> Result<u64, ErrorKind> {
        let (first, rest) = match init {
            Some(init) => (init, &l[..]),
            None => (l[0], &l[1..]),
        };
        rest.iter()
            .try_fold(first, |acc, &x| scalar::binary(bop, s, acc, x))
            .map_err(ErrorKind::from)
    };
    Ok(Val::S(match lop {
        Dot => {
            let b = args[1].lanes();
            a.iter().zip(&b).try_fold(0, |acc, (&x, &y)| {
                let p = scalar::binary(Opcode::Mul, s, x, y)?;
                scalar::binary(Opcode::Add, s, acc, p)
            })?
        }
        ReduceAdd => fold(Some(0), Opcode::Add, &a)?,
        ReduceMul => fold(Some(1), Opcode::Mul, &a)?,
        ReduceMin => fold(None, Opcode::Min, &a)?,
        ReduceMax => fold(None, Opcode::Max, &a)?,
        Cross | Length | Distance | Normalize | Reflect | FaceForward | OuterProduct
        | MatrixTimesMatrix | MatrixTimesVector | VectorTimesMatrix | MatrixTimesScalar
        | Transpose | Determinant | Inverse => return Err(ErrorKind::NotOnIntegers(op)),
    }))
}

/// Float operations: computed in f64 and rounded once to `s`.
fn float(lop: LinalgOp, s: Scalar, args: &[Val]) -> Val {
    use LinalgOp::*;
    let f = |x: f64| Val::S(from_f64(s, x));
    match lop {
        Dot => f(dot(&fl(s, &args[0]), &fl(s, &args[1]))),
        Cross => {
            let (a, b) = (fl(s, &args[0]), fl(s, &args[1]));
            back(
                s,
                &[
                    a[1] * b[2] - a[2] * b[1],
                    a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0],
                ],
            )
        }
        Length => {
            let a = fl(s, &args[0]);
            f(dot(&a, &a).sqrt())
        }
        Distance => {
            let (a, b) = (fl(s, &args[0]), fl(s, &args[1]));
            let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
            f(dot(&d, &d).sqrt())
        }
        Normalize => {
            let a = fl(s, &args[0]);
            let l = dot(&a, &a).sqrt();
            let out: Vec<f64> = a.iter().map(|x| x / l).collect();
            if matches!(args[0], Val::S(_)) {
                f(out[0])
            } else {
                back(s, &out)
            }
        }
        Reflect => {
            let (i, n) = (fl(s, &args[0]), fl(s, &args[1]));
            let d = dot(&n, &i);
            let out: Vec<f64> = i.iter().zip(&n).map(|(x, y)| x - 2.0 * d * y).collect();
            if matches!(args[0], Val::S(_)) {
                f(out[0])
            } else {
                back(s, &out)
            }
        }
        FaceForward => {
            let (i, nref) = (fl(s, &args[1]), fl(s, &args[2]));
            if dot(&nref, &i) < 0.0 {
                args[0].clone()
            } else {
                crate::exec::map1(&args[0], &|x| from_f64(s, -to_f64(s, x)))
            }
        }
        ReduceAdd => f(fl(s, &args[0]).iter().sum()),
        ReduceMul => f(fl(s, &args[0]).iter().product()),
        ReduceMin => f(fl(s, &args[0]).iter().copied().fold(f64::NAN, f64::min)),
        ReduceMax => f(fl(s, &args[0]).iter().copied().fold(f64::NAN, f64::max)),
        OuterProduct => {
            let (a, b) = (fl(s, &args[0]), fl(s, &args[1]));
            let m: Vec<Vec<f64>> = b
                .iter()
                .map(|&y| a.iter().map(|&x| x * y).collect())
                .collect();
            mat_back(s, &m)
        }
        MatrixTimesMatrix => {
            let (a, b) = (mat(s, &args[0]), mat(s, &args[1]));
            let rows = a[0].len();
            let m: Vec<Vec<f64>> = b
                .iter()
                .map(|bc| {
                    (0..rows)
                        .map(|r| a.iter().zip(bc).map(|(ac, &y)| ac[r] * y).sum())
                        .collect()
                })
                .collect();
            mat_back(s, &m)
        }
        MatrixTimesVector => {
            let (a, v) = (mat(s, &args[0]), fl(s, &args[1]));
            let rows = a[0].len();
            let out: Vec<f64> = (0..rows)
                .map(|r| a.iter().zip(&v).map(|(c, &y)| c[r] * y).sum())
                .collect();
            back(s, &out)
        }
        VectorTimesMatrix => {
            let (v, a) = (fl(s, &args[0]), mat(s, &args[1]));
            let out: Vec<f64> = a.iter().map(|c| dot(&v, c)).collect();
            back(s, &out)
        }
        MatrixTimesScalar => {
            let k = to_f64(s, args[1].bits());
            let m: Vec<Vec<f64>> = mat(s, &args[0])
                .into_iter()
                .map(|c| c.into_iter().map(|x| x * k).collect())
                .collect();
            mat_back(s, &m)
        }
        Transpose => {
            let a = mat(s, &args[0]);
            let rows = a[0].len();
            let m: Vec<Vec<f64>> = (0..rows)
                .map(|r| a.iter().map(|c| c[r]).collect())
                .collect();
            mat_back(s, &m)
        }
        Determinant => f(det(&mat(s, &args[0]))),
        Inverse => mat_back(s, &inverse(&mat(s, &args[0]))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(cols: &[&[f32]]) -> Val {
        Val::C(
            cols.iter()
                .map(|c| Val::V(c.iter().map(|x| u64::from(x.to_bits())).collect()))
                .collect(),
        )
    }

    fn back_f32(v: &Val) -> Vec<Vec<f32>> {
        v.elems()
            .iter()
            .map(|c| {
                c.lanes()
                    .iter()
                    .map(|&b| f32::from_bits(b as u32))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn determinant_and_inverse() {
        let a = m(&[&[4.0, 2.0], &[7.0, 6.0]]); // columns
        assert_eq!(
            eval(
                LinalgOp::Determinant,
                Opcode::Determinant,
                Scalar::F32,
                std::slice::from_ref(&a)
            )
            .unwrap(),
            Val::S(u64::from(10.0f32.to_bits()))
        );
        let inv = back_f32(&eval(LinalgOp::Inverse, Opcode::Inverse, Scalar::F32, &[a]).unwrap());
        // [[4 7][2 6]]^-1 = 1/10 [[6 -7][-2 4]] (rows); columns (0.6, -0.2), (-0.7, 0.4)
        assert_eq!(inv, vec![vec![0.6, -0.2], vec![-0.7, 0.4]]);
        let b = m(&[&[2.0, 0.0, 0.0], &[0.0, 3.0, 0.0], &[1.0, 0.0, 4.0]]);
        assert_eq!(
            eval(
                LinalgOp::Determinant,
                Opcode::Determinant,
                Scalar::F32,
                std::slice::from_ref(&b)
            )
            .unwrap(),
            Val::S(u64::from(24.0f32.to_bits()))
        );
        let inv = back_f32(&eval(LinalgOp::Inverse, Opcode::Inverse, Scalar::F32, &[b]).unwrap());
        // Column 2 of the inverse solves M x = e2: x = (-1/8, 0, 1/4).
        assert_eq!(inv[0], vec![0.5, 0.0, 0.0]);
        assert_eq!(inv[1], vec![0.0, 1.0 / 3.0, 0.0]);
        assert_eq!(inv[2], vec![-0.125, 0.0, 0.25]);
    }
}
