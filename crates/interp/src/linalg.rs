//! Vector and matrix operations: each opcode maps to one function of the shared
//! composite semantics ([`oxir_ir::scalar_semantics::composite`]), which evaluates the
//! WGSL formula in the declared precision, one rounded step at a time — the interpreter,
//! like a GPU, overflows `length` of a huge f32 vector to infinity.

use crate::error::ErrorKind;
use crate::value::{Lanes, Val};
use oxir_ir::scalar_semantics::composite::{self as c, Columns};
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

fn cols(v: &Val) -> Columns {
    v.elems().iter().map(|col| col.lanes().to_vec()).collect()
}

fn vector(lanes: Vec<u64>) -> Val {
    Val::V(Lanes::from_vec(lanes))
}

fn matrix(m: Columns) -> Val {
    Val::C(m.into_iter().map(vector).collect())
}

/// A vector result, or its one lane when the operand was a scalar (`normalize`,
/// `reflect` and `faceforward` are defined on scalars too).
fn like(operand: &Val, lanes: Vec<u64>) -> Val {
    match (operand, lanes.as_slice()) {
        (Val::S(_), [x]) => Val::S(*x),
        _ => vector(lanes),
    }
}

/// Evaluates `lop` (the opcode `op`, for messages) on operands with element type `s`.
pub fn eval(lop: LinalgOp, op: Opcode, s: Scalar, args: &[Val]) -> Result<Val, ErrorKind> {
    use LinalgOp::*;
    let lanes = |i: usize| args.get(i).map(Val::lanes).unwrap_or_default();
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Val::S(0));
    let (a, b) = (lanes(0), lanes(1));
    Ok(match lop {
        Dot => Val::S(c::dot(s, &a, &b)?),
        ReduceAdd | ReduceMul | ReduceMin | ReduceMax => Val::S(c::reduce(op, s, &a)?),
        Cross => vector(c::cross(s, &a, &b)?),
        Length => Val::S(c::length(s, &a)?),
        Distance => Val::S(c::distance(s, &a, &b)?),
        Normalize => like(&arg(0), c::normalize(s, &a)?),
        Reflect => like(&arg(0), c::reflect(s, &a, &b)?),
        FaceForward => like(&arg(0), c::faceforward(s, &a, &b, &lanes(2))?),
        OuterProduct => matrix(c::outer_product(s, &a, &b)?),
        MatrixTimesMatrix => matrix(c::matrix_times_matrix(s, &cols(&arg(0)), &cols(&arg(1)))?),
        MatrixTimesVector => vector(c::matrix_times_vector(s, &cols(&arg(0)), &b)?),
        VectorTimesMatrix => vector(c::vector_times_matrix(s, &a, &cols(&arg(1)))?),
        MatrixTimesScalar => matrix(c::matrix_times_scalar(s, &cols(&arg(0)), arg(1).bits())?),
        Transpose => matrix(c::transpose(&cols(&arg(0)))?),
        Determinant => Val::S(c::determinant(s, &cols(&arg(0)))?),
        Inverse => matrix(c::inverse(s, &cols(&arg(0)))?),
    })
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
