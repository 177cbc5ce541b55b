//! Matrix arithmetic on the register form `[C x <R x T>]` (columns): sums, products with
//! scalars, vectors and matrices, outer products and transposition, column by column.
//! Products accumulate column contributions in order (`m[0] * v[0] + m[1] * v[1] + …`),
//! each step one `fmul` and one `fadd`; no fused multiply-add is introduced.
//! Determinant and inverse expand by cofactors along the first column, as the
//! interpreter does; the inverse is the adjugate divided by the determinant.

use super::arith::Shape;
use super::function::FnWriter;
use crate::lowering::MatrixOp;
use crate::types::scalar;
use crate::Error;
use oxir_ir::types::{Scalar, TypeData};
use oxir_ir::{Inst, InstData, Type, Value};

/// A matrix operand: its columns' vector shape and spelled columns.
struct Columns {
    column: Shape,
    values: Vec<String>,
}

fn dims(w: &FnWriter<'_, '_>, ty: Type) -> Result<(Scalar, u8, u8), Error> {
    match w.type_data(ty)? {
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => Ok((*elem, *columns, *rows)),
        _ => Err(w.fail("expected a matrix")),
    }
}

fn columns(w: &mut FnWriter<'_, '_>, v: Value) -> Result<Columns, Error> {
    let ty = w.type_of(v);
    let (elem, n, rows) = dims(w, ty)?;
    let mty = w.reg(ty)?;
    let m = w.op(v)?;
    let values = (0..n)
        .map(|c| w.assign(&format!("extractvalue {mty} {m}, {c}")))
        .collect();
    let column = Shape {
        elem,
        lanes: Some(rows),
        ty: format!("<{rows} x {}>", scalar(elem)),
    };
    Ok(Columns { column, values })
}

fn build(w: &mut FnWriter<'_, '_>, column_ty: &str, cols: &[String]) -> String {
    let mty = format!("[{} x {column_ty}]", cols.len());
    let mut m = "poison".to_string();
    for (c, col) in cols.iter().enumerate() {
        m = w.assign(&format!("insertvalue {mty} {m}, {column_ty} {col}, {c}"));
    }
    m
}

fn splat(w: &mut FnWriter<'_, '_>, sh: &Shape, e: &str) -> String {
    let n = sh.lanes.unwrap_or(1);
    let one = w.assign(&format!(
        "insertelement {} poison, {} {e}, i32 0",
        sh.ty,
        scalar(sh.elem)
    ));
    w.assign(&format!(
        "shufflevector {} {one}, {} poison, <{n} x i32> zeroinitializer",
        sh.ty, sh.ty
    ))
}

fn lane(w: &mut FnWriter<'_, '_>, vty: &str, v: &str, i: u8) -> String {
    w.assign(&format!("extractelement {vty} {v}, i32 {i}"))
}

/// `sum_c cols[c] * splat(lanes[c])`.
fn combine(w: &mut FnWriter<'_, '_>, sh: &Shape, cols: &[String], lanes: &[String]) -> String {
    let mut acc: Option<String> = None;
    for (col, l) in cols.iter().zip(lanes) {
        let s = splat(w, sh, l);
        let p = w.binop("fmul", sh, col, &s);
        acc = Some(match acc {
            None => p,
            Some(a) => w.binop("fadd", sh, &a, &p),
        });
    }
    acc.unwrap_or_else(|| sh.fconst(0.0))
}

fn vector_lanes(w: &mut FnWriter<'_, '_>, v: Value) -> Result<(Shape, Vec<String>), Error> {
    let sh = w.shape_of(v)?;
    let op = w.op(v)?;
    let lanes = (0..sh.lanes.unwrap_or(1))
        .map(|i| lane(w, &sh.ty, &op, i))
        .collect();
    Ok((sh, lanes))
}

pub(crate) fn write_matrix(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: MatrixOp,
) -> Result<(), Error> {
    let result_ty = w
        .func
        .dfg
        .inst_result(inst)
        .map(|v| w.type_of(v))
        .ok_or_else(|| w.fail("matrix op without a result"))?;
    let rty = w.reg(result_ty)?;
    let a = data
        .args
        .first()
        .copied()
        .ok_or_else(|| w.fail("matrix op without operands"))?;
    let b = data.args.get(1).copied();
    let r = match op {
        MatrixOp::AddSub { add } => {
            let x = columns(w, a)?;
            let y = columns(w, b.ok_or_else(|| w.fail("missing operand"))?)?;
            let name = if add { "fadd" } else { "fsub" };
            let cols: Vec<String> = x
                .values
                .iter()
                .zip(&y.values)
                .map(|(p, q)| w.binop(name, &x.column, p, q))
                .collect();
            build(w, &x.column.ty, &cols)
        }
        MatrixOp::TimesScalar => {
            let x = columns(w, a)?;
            let s = w.op(b.ok_or_else(|| w.fail("missing operand"))?)?;
            let sv = splat(w, &x.column, &s);
            let cols: Vec<String> = x
                .values
                .iter()
                .map(|c| w.binop("fmul", &x.column, c, &sv))
                .collect();
            build(w, &x.column.ty, &cols)
        }
        MatrixOp::TimesVector => {
            let x = columns(w, a)?;
            let (_, lanes) = vector_lanes(w, b.ok_or_else(|| w.fail("missing operand"))?)?;
            combine(w, &x.column, &x.values, &lanes)
        }
        MatrixOp::VectorTimes => {
            let v = w.op(a)?;
            let m = columns(w, b.ok_or_else(|| w.fail("missing operand"))?)?;
            let out = w.shape(result_ty)?;
            let mut r = "poison".to_string();
            for (c, col) in m.values.iter().enumerate() {
                let d = super::arith::dot(w, &m.column, &v, col);
                r = w.assign(&format!(
                    "insertelement {rty} {r}, {} {d}, i32 {c}",
                    scalar(out.elem)
                ));
            }
            r
        }
        MatrixOp::TimesMatrix => {
            let x = columns(w, a)?;
            let y = columns(w, b.ok_or_else(|| w.fail("missing operand"))?)?;
            let mut cols = Vec::new();
            for col in &y.values {
                let lanes: Vec<String> = (0..y.column.lanes.unwrap_or(1))
                    .map(|i| lane(w, &y.column.ty, col, i))
                    .collect();
                cols.push(combine(w, &x.column, &x.values, &lanes));
            }
            build(w, &x.column.ty, &cols)
        }
        MatrixOp::Outer => {
            let (sh, _) = vector_lanes(w, a)?;
            let av = w.op(a)?;
            let (_, lanes) = vector_lanes(w, b.ok_or_else(|| w.fail("missing operand"))?)?;
            let mut cols = Vec::new();
            for l in &lanes {
                let s = splat(w, &sh, l);
                cols.push(w.binop("fmul", &sh, &av, &s));
            }
            build(w, &sh.ty, &cols)
        }
        MatrixOp::Determinant => {
            let (elem, m) = elements(w, a)?;
            determinant(w, elem, &m)
        }
        MatrixOp::Inverse => {
            let (elem, m) = elements(w, a)?;
            inverse(w, elem, &m)?
        }
        MatrixOp::Transpose => {
            let x = columns(w, a)?;
            let (elem, _, rows) = dims(w, w.type_of(a))?;
            let n = x.values.len();
            let col_ty = format!("<{n} x {}>", scalar(elem));
            let mut cols = Vec::new();
            for r in 0..rows {
                let mut v = "poison".to_string();
                for (c, col) in x.values.iter().enumerate() {
                    let e = lane(w, &x.column.ty, col, r);
                    v = w.assign(&format!(
                        "insertelement {col_ty} {v}, {} {e}, i32 {c}",
                        scalar(elem)
                    ));
                }
                cols.push(v);
            }
            build(w, &col_ty, &cols)
        }
    };
    w.finish(inst, &rty, &r)
}

/// Every element of matrix `v`, column by column.
fn elements(w: &mut FnWriter<'_, '_>, v: Value) -> Result<(Scalar, Vec<Vec<String>>), Error> {
    let x = columns(w, v)?;
    let rows = x.column.lanes.unwrap_or(1);
    let m = x
        .values
        .iter()
        .map(|col| (0..rows).map(|r| lane(w, &x.column.ty, col, r)).collect())
        .collect();
    Ok((x.column.elem, m))
}

fn fop(w: &mut FnWriter<'_, '_>, elem: Scalar, op: &str, a: &str, b: &str) -> String {
    w.assign(&format!("{op} {} {a}, {b}", scalar(elem)))
}

/// The determinant of the square matrix `m` (columns of elements).
fn determinant(w: &mut FnWriter<'_, '_>, elem: Scalar, m: &[Vec<String>]) -> String {
    match m.len() {
        0 => Shape {
            elem,
            lanes: None,
            ty: scalar(elem).into(),
        }
        .fconst(1.0),
        1 => m[0][0].clone(),
        2 => {
            let p = fop(w, elem, "fmul", &m[0][0], &m[1][1]);
            let q = fop(w, elem, "fmul", &m[1][0], &m[0][1]);
            fop(w, elem, "fsub", &p, &q)
        }
        _ => {
            let mut sum: Option<String> = None;
            for r in 0..m.len() {
                let d = determinant(w, elem, &minor(m, 0, r));
                let t = fop(w, elem, "fmul", &m[0][r], &d);
                sum = Some(match (sum, r % 2 == 0) {
                    (None, true) => t,
                    (None, false) => w.assign(&format!("fneg {} {t}", scalar(elem))),
                    (Some(s), true) => fop(w, elem, "fadd", &s, &t),
                    (Some(s), false) => fop(w, elem, "fsub", &s, &t),
                });
            }
            sum.unwrap_or_default()
        }
    }
}

/// `m` without column `col` and row `row`.
fn minor(m: &[Vec<String>], col: usize, row: usize) -> Vec<Vec<String>> {
    m.iter()
        .enumerate()
        .filter(|(c, _)| *c != col)
        .map(|(_, column)| {
            column
                .iter()
                .enumerate()
                .filter(|(r, _)| *r != row)
                .map(|(_, e)| e.clone())
                .collect()
        })
        .collect()
}

/// The inverse: element (column c, row r) is `(-1)^(r+c) det(minor(m, r, c)) / det(m)`.
fn inverse(w: &mut FnWriter<'_, '_>, elem: Scalar, m: &[Vec<String>]) -> Result<String, Error> {
    let n = m.len();
    let det = determinant(w, elem, m);
    let e = scalar(elem);
    let col_ty = format!("<{n} x {e}>");
    let mut cols = Vec::new();
    for c in 0..n {
        let mut v = "poison".to_string();
        for r in 0..n {
            let d = determinant(w, elem, &minor(m, r, c));
            let signed = if (r + c) % 2 == 0 {
                d
            } else {
                w.assign(&format!("fneg {e} {d}"))
            };
            let q = fop(w, elem, "fdiv", &signed, &det);
            v = w.assign(&format!("insertelement {col_ty} {v}, {e} {q}, i32 {r}"));
        }
        cols.push(v);
    }
    Ok(build(w, &col_ty, &cols))
}
