//! Arithmetic, comparisons, float math, conversions and elementary functions.
//!
//! Integer division and remainder follow WGSL (and the interpreter): `x / 0 = x`,
//! `x % 0 = 0`, `MIN / -1 = MIN`, `MIN % -1 = 0`, written with a safe divisor of 1
//! selected for the undefined cases, so LLVM never sees a division it may assume away.
//! Shift amounts are taken modulo the bit width; float → integer conversion saturates
//! and maps NaN to 0 (`llvm.fpto[su]i.sat`). Elementary functions call the target's
//! math library lane by lane (16-bit floats through `float`); nothing is approximated.

use super::function::FnWriter;
use crate::lowering::{ArithOp, Comparison, MathOp, Reduction};
use crate::target::MathLibrary;
use crate::types::{float_literal, scalar};
use crate::Error;
use oxir_ir::types::{Scalar, ScalarKind, TypeData};
use oxir_ir::{Inst, InstData, Type, Value};

/// The element scalar and lane count (`None` for scalars) of a scalar or vector type.
pub(crate) struct Shape {
    pub(crate) elem: Scalar,
    pub(crate) lanes: Option<u8>,
    /// The register type.
    pub(crate) ty: String,
}

impl Shape {
    /// The intrinsic overload suffix: `i32`, `f32`, `v4f32`, `v3i1`.
    pub(crate) fn suffix(&self) -> String {
        let e = match (self.elem.kind, self.elem.bits) {
            (ScalarKind::Bool, _) => "i1".to_string(),
            (ScalarKind::Float, b) => format!("f{b}"),
            (ScalarKind::Sint | ScalarKind::Uint, b) => format!("i{b}"),
        };
        match self.lanes {
            Some(n) => format!("v{n}{e}"),
            None => e,
        }
    }

    /// A constant of this shape with every lane `lane` (an element literal).
    pub(crate) fn splat(&self, lane: &str) -> String {
        match self.lanes {
            Some(_) => format!("splat ({} {lane})", scalar(self.elem)),
            None => lane.to_string(),
        }
    }

    /// The float constant `v` in every lane.
    pub(crate) fn fconst(&self, v: f64) -> String {
        let bits = match self.elem.bits {
            16 => u64::from(half::f16::from_f64(v).to_bits()),
            32 => u64::from((v as f32).to_bits()),
            _ => v.to_bits(),
        };
        self.splat(&float_literal(self.elem, bits))
    }

    /// The bool shape with the same lanes, as a register type.
    pub(crate) fn bool_ty(&self) -> String {
        match self.lanes {
            Some(n) => format!("<{n} x i1>"),
            None => "i1".into(),
        }
    }

    pub(crate) fn is_float(&self) -> bool {
        self.elem.kind == ScalarKind::Float
    }

    pub(crate) fn signed(&self) -> bool {
        self.elem.kind == ScalarKind::Sint
    }
}

impl FnWriter<'_, '_> {
    pub(crate) fn shape(&self, ty: Type) -> Result<Shape, Error> {
        let (elem, lanes) = match self.type_data(ty)? {
            TypeData::Scalar(s) => (*s, None),
            TypeData::Vector { elem, len } => (*elem, Some(*len)),
            _ => return Err(self.fail("expected a scalar or vector")),
        };
        Ok(Shape {
            elem,
            lanes,
            ty: self.reg(ty)?,
        })
    }

    pub(crate) fn shape_of(&self, v: Value) -> Result<Shape, Error> {
        self.shape(self.type_of(v))
    }

    /// `name.suffix(args...)` of one shape, returning the result.
    pub(crate) fn intrinsic(&mut self, base: &str, sh: &Shape, ret: &str, args: &[&str]) -> String {
        let name = format!("llvm.{base}.{}", sh.suffix());
        let typed: Vec<(&str, &str)> = args.iter().map(|a| (sh.ty.as_str(), *a)).collect();
        self.call(ret, &name, &typed)
    }

    pub(crate) fn binop(&mut self, op: &str, sh: &Shape, a: &str, b: &str) -> String {
        self.assign(&format!("{op} {} {a}, {b}", sh.ty))
    }

    /// The operands of `data`, spelled.
    pub(crate) fn operands(&self, data: &InstData) -> Result<Vec<String>, Error> {
        data.args.iter().map(|&v| self.op(v)).collect()
    }

    /// The first operand of `data`.
    pub(crate) fn first_operand(&self, data: &InstData) -> Result<Value, Error> {
        data.args
            .first()
            .copied()
            .ok_or_else(|| self.fail("operation without operands"))
    }

    /// Binds the result of `inst` to `value` of type `ty` (renaming through `freeze`).
    pub(crate) fn finish(&mut self, inst: Inst, ty: &str, value: &str) -> Result<(), Error> {
        self.bind(inst, ty, value)
    }
}

fn arg(ops: &[String], i: usize) -> &str {
    ops.get(i).map(String::as_str).unwrap_or("undef")
}

pub(crate) fn write_arith(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: ArithOp,
) -> Result<(), Error> {
    let first = w.first_operand(data)?;
    let sh = w.shape_of(first)?;
    let ops = w.operands(data)?;
    let (a, b, c) = (arg(&ops, 0), arg(&ops, 1), arg(&ops, 2));
    let f = sh.is_float();
    let r = match op {
        ArithOp::Add => w.binop(if f { "fadd" } else { "add" }, &sh, a, b),
        ArithOp::Sub => w.binop(if f { "fsub" } else { "sub" }, &sh, a, b),
        ArithOp::Mul => w.binop(if f { "fmul" } else { "mul" }, &sh, a, b),
        ArithOp::Div | ArithOp::Rem if f => {
            w.binop(if op == ArithOp::Div { "fdiv" } else { "frem" }, &sh, a, b)
        }
        ArithOp::Div | ArithOp::Rem => int_division(w, &sh, op == ArithOp::Div, a, b),
        ArithOp::Neg if f => w.assign(&format!("fneg {} {a}", sh.ty)),
        ArithOp::Neg => w.binop("sub", &sh, &sh.splat("0"), a),
        ArithOp::Abs if f => w.intrinsic("fabs", &sh, &sh.ty.clone(), &[a]),
        ArithOp::Abs if sh.signed() => {
            let name = format!("llvm.abs.{}", sh.suffix());
            w.call(
                &sh.ty.clone(),
                &name,
                &[(&sh.ty.clone(), a), ("i1", "false")],
            )
        }
        ArithOp::Abs => a.to_string(),
        ArithOp::Sign => sign(w, &sh, a),
        ArithOp::Min | ArithOp::Max => min_max(w, &sh, op == ArithOp::Min, a, b),
        ArithOp::Clamp => {
            let m = min_max(w, &sh, false, a, b);
            min_max(w, &sh, true, &m, c)
        }
        ArithOp::Select => {
            let cond = w.typed(first)?;
            let t = w.typed(data.args[1])?;
            let e = w.typed(data.args[2])?;
            let ty = w.reg(w.type_of(data.args[1]))?;
            let r = w.assign(&format!("select {cond}, {t}, {e}"));
            return w.finish(inst, &ty, &r);
        }
        ArithOp::And => w.binop("and", &sh, a, b),
        ArithOp::Or => w.binop("or", &sh, a, b),
        ArithOp::Xor => w.binop("xor", &sh, a, b),
        ArithOp::Not => {
            let ones = if sh.elem.is_bool() { "true" } else { "-1" };
            w.binop("xor", &sh, a, &sh.splat(ones))
        }
        ArithOp::Shl | ArithOp::Shr => {
            let amount = shift_amount(w, &sh, data.args[1], b)?;
            let mask = sh.splat(&(u32::from(sh.elem.bits) - 1).to_string());
            let amount = w.binop("and", &sh, &amount, &mask);
            let inst_name = match (op, sh.signed()) {
                (ArithOp::Shl, _) => "shl",
                (_, true) => "ashr",
                (_, false) => "lshr",
            };
            w.binop(inst_name, &sh, a, &amount)
        }
        ArithOp::Rotate { left } => {
            let amount = shift_amount(w, &sh, data.args[1], b)?;
            let ty = sh.ty.clone();
            w.intrinsic(
                if left { "fshl" } else { "fshr" },
                &sh,
                &ty,
                &[a, a, &amount],
            )
        }
        ArithOp::BitCount(name) => {
            let ty = sh.ty.clone();
            if name == "ctlz" || name == "cttz" {
                let full = format!("llvm.{name}.{}", sh.suffix());
                w.call(&ty, &full, &[(&ty, a), ("i1", "false")])
            } else {
                w.intrinsic(name, &sh, &ty, &[a])
            }
        }
        ArithOp::BitField { insert } => bit_field(w, &sh, insert, &ops)?,
        ArithOp::Compare(cmp) => {
            let pred = predicate(cmp, &sh);
            let kind = if f { "fcmp" } else { "icmp" };
            let r = w.assign(&format!("{kind} {pred} {} {a}, {b}", sh.ty));
            return w.finish(inst, &sh.bool_ty(), &r);
        }
        ArithOp::IsNan => {
            let r = w.assign(&format!("fcmp uno {} {a}, {a}", sh.ty));
            return w.finish(inst, &sh.bool_ty(), &r);
        }
        ArithOp::IsInf => {
            let ty = sh.ty.clone();
            let abs = w.intrinsic("fabs", &sh, &ty, &[a]);
            let r = w.assign(&format!(
                "fcmp oeq {ty} {abs}, {}",
                sh.fconst(f64::INFINITY)
            ));
            return w.finish(inst, &sh.bool_ty(), &r);
        }
        ArithOp::BoolReduce { any } => match sh.lanes {
            Some(_) => {
                let name = format!(
                    "llvm.vector.reduce.{}.{}",
                    if any { "or" } else { "and" },
                    sh.suffix()
                );
                let r = w.call("i1", &name, &[(&sh.ty.clone(), a)]);
                return w.finish(inst, "i1", &r);
            }
            None => a.to_string(),
        },
    };
    w.finish(inst, &sh.ty, &r)
}

/// `extract_bits e, offset, count` / `insert_bits e, new, offset, count` as the
/// interpreter computes them: in 64-bit lanes, `o = min(offset, W)`, `c = min(count, W -
/// o)`, an empty field giving 0 (extract) or `e` (insert); shifts that would be out of
/// range are only ever selected away.
fn bit_field(
    w: &mut FnWriter<'_, '_>,
    sh: &Shape,
    insert: bool,
    ops: &[String],
) -> Result<String, Error> {
    let wide = Shape {
        elem: Scalar {
            kind: sh.elem.kind,
            bits: 64,
        },
        lanes: sh.lanes,
        ty: match sh.lanes {
            Some(n) => format!("<{n} x i64>"),
            None => "i64".into(),
        },
    };
    let (ty, wty, bty) = (sh.ty.clone(), wide.ty.clone(), wide.bool_ty());
    let extend = |w: &mut FnWriter<'_, '_>, v: &str| {
        if sh.elem.bits == 64 {
            v.to_string()
        } else {
            w.assign(&format!("zext {ty} {v} to {wty}"))
        }
    };
    let lane_arg = |w: &mut FnWriter<'_, '_>, v: &str| {
        let x = w.assign(&format!("zext i32 {v} to i64"));
        match wide.lanes {
            None => x,
            Some(n) => {
                let one = w.assign(&format!("insertelement {wty} poison, i64 {x}, i32 0"));
                w.assign(&format!(
                    "shufflevector {wty} {one}, {wty} poison, <{n} x i32> zeroinitializer"
                ))
            }
        }
    };
    let (e, new, offset, count) = if insert {
        (arg(ops, 0), Some(arg(ops, 1)), arg(ops, 2), arg(ops, 3))
    } else {
        (arg(ops, 0), None, arg(ops, 1), arg(ops, 2))
    };
    let width = wide.splat(&sh.elem.bits.to_string());
    let e64 = extend(w, e);
    let off = lane_arg(w, offset);
    let cnt = lane_arg(w, count);
    let o = w.intrinsic("umin", &wide, &wty, &[&off, &width]);
    let room = w.binop("sub", &wide, &width, &o);
    let c = w.intrinsic("umin", &wide, &wty, &[&cnt, &room]);
    let empty = w.assign(&format!("icmp eq {wty} {c}, {}", wide.splat("0")));
    let full = w.assign(&format!("icmp eq {wty} {c}, {}", wide.splat("64")));
    let bit = w.binop("shl", &wide, &wide.splat("1"), &c);
    let low = w.binop("sub", &wide, &bit, &wide.splat("1"));
    let low = w.assign(&format!(
        "select {bty} {full}, {wty} {}, {wty} {low}",
        wide.splat("-1")
    ));
    let r = match new {
        None => {
            let shifted = w.binop("lshr", &wide, &e64, &o);
            let v = w.binop("and", &wide, &shifted, &low);
            let v = if sh.signed() {
                let s = w.binop("sub", &wide, &wide.splat("64"), &c);
                let up = w.binop("shl", &wide, &v, &s);
                let ext = w.binop("ashr", &wide, &up, &s);
                w.assign(&format!("select {bty} {full}, {wty} {v}, {wty} {ext}"))
            } else {
                v
            };
            w.assign(&format!(
                "select {bty} {empty}, {wty} {}, {wty} {v}",
                wide.splat("0")
            ))
        }
        Some(n) => {
            let n64 = extend(w, n);
            let field = w.binop("shl", &wide, &low, &o);
            let keep = w.binop("xor", &wide, &field, &wide.splat("-1"));
            let kept = w.binop("and", &wide, &e64, &keep);
            let moved = w.binop("shl", &wide, &n64, &o);
            let put = w.binop("and", &wide, &moved, &field);
            let v = w.binop("or", &wide, &kept, &put);
            w.assign(&format!("select {bty} {empty}, {wty} {e64}, {wty} {v}"))
        }
    };
    Ok(if sh.elem.bits == 64 {
        r
    } else {
        w.assign(&format!("trunc {wty} {r} to {ty}"))
    })
}

/// WGSL integer division or remainder with a safe divisor (see the module docs).
fn int_division(w: &mut FnWriter<'_, '_>, sh: &Shape, div: bool, a: &str, b: &str) -> String {
    let ty = sh.ty.clone();
    let bty = sh.bool_ty();
    let zero = w.assign(&format!("icmp eq {ty} {b}, {}", sh.splat("0")));
    let bad = if sh.signed() {
        let min = format!("{}", i64::MIN >> (64 - u32::from(sh.elem.bits)));
        let is_min = w.assign(&format!("icmp eq {ty} {a}, {}", sh.splat(&min)));
        let minus_one = w.assign(&format!("icmp eq {ty} {b}, {}", sh.splat("-1")));
        let overflow = w.assign(&format!("and {bty} {is_min}, {minus_one}"));
        w.assign(&format!("or {bty} {zero}, {overflow}"))
    } else {
        zero
    };
    let safe = w.assign(&format!(
        "select {bty} {bad}, {ty} {}, {ty} {b}",
        sh.splat("1")
    ));
    let name = match (div, sh.signed()) {
        (true, true) => "sdiv",
        (true, false) => "udiv",
        (false, true) => "srem",
        (false, false) => "urem",
    };
    w.binop(name, sh, a, &safe)
}

/// The shift amount `b` (of `bv`'s type) converted to the shifted value's width.
fn shift_amount(w: &mut FnWriter<'_, '_>, sh: &Shape, bv: Value, b: &str) -> Result<String, Error> {
    let bsh = w.shape_of(bv)?;
    Ok(match bsh.elem.bits.cmp(&sh.elem.bits) {
        std::cmp::Ordering::Equal => b.to_string(),
        std::cmp::Ordering::Greater => w.assign(&format!("trunc {} {b} to {}", bsh.ty, sh.ty)),
        std::cmp::Ordering::Less => w.assign(&format!("zext {} {b} to {}", bsh.ty, sh.ty)),
    })
}

fn sign(w: &mut FnWriter<'_, '_>, sh: &Shape, a: &str) -> String {
    let (ty, bty) = (sh.ty.clone(), sh.bool_ty());
    if sh.is_float() {
        let pos = w.assign(&format!("fcmp ogt {ty} {a}, {}", sh.fconst(0.0)));
        let neg = w.assign(&format!("fcmp olt {ty} {a}, {}", sh.fconst(0.0)));
        let nan = w.assign(&format!("fcmp uno {ty} {a}, {a}"));
        let zero_or_self = w.assign(&format!(
            "select {bty} {nan}, {ty} {}, {ty} {a}",
            sh.fconst(0.0)
        ));
        let neg_v = w.assign(&format!(
            "select {bty} {neg}, {ty} {}, {ty} {zero_or_self}",
            sh.fconst(-1.0)
        ));
        w.assign(&format!(
            "select {bty} {pos}, {ty} {}, {ty} {neg_v}",
            sh.fconst(1.0)
        ))
    } else {
        let pos = w.assign(&format!("icmp sgt {ty} {a}, {}", sh.splat("0")));
        let neg = w.assign(&format!("icmp slt {ty} {a}, {}", sh.splat("0")));
        let p = w.assign(&format!("zext {bty} {pos} to {ty}"));
        let n = w.assign(&format!("zext {bty} {neg} to {ty}"));
        w.binop("sub", sh, &p, &n)
    }
}

pub(crate) fn min_max(w: &mut FnWriter<'_, '_>, sh: &Shape, min: bool, a: &str, b: &str) -> String {
    let base = match (sh.is_float(), sh.signed(), min) {
        (true, _, true) => "minnum",
        (true, _, false) => "maxnum",
        (false, true, true) => "smin",
        (false, true, false) => "smax",
        (false, false, true) => "umin",
        (false, false, false) => "umax",
    };
    let ty = sh.ty.clone();
    w.intrinsic(base, sh, &ty, &[a, b])
}

fn predicate(cmp: Comparison, sh: &Shape) -> &'static str {
    let signed = sh.signed();
    match (sh.is_float(), cmp) {
        (true, Comparison::Eq) => "oeq",
        (true, Comparison::Ne) => "une",
        (true, Comparison::Lt) => "olt",
        (true, Comparison::Le) => "ole",
        (true, Comparison::Gt) => "ogt",
        (true, Comparison::Ge) => "oge",
        (false, Comparison::Eq) => "eq",
        (false, Comparison::Ne) => "ne",
        (false, Comparison::Lt) => {
            if signed {
                "slt"
            } else {
                "ult"
            }
        }
        (false, Comparison::Le) => {
            if signed {
                "sle"
            } else {
                "ule"
            }
        }
        (false, Comparison::Gt) => {
            if signed {
                "sgt"
            } else {
                "ugt"
            }
        }
        (false, Comparison::Ge) => {
            if signed {
                "sge"
            } else {
                "uge"
            }
        }
    }
}

/// `dot a, b` of two vectors of shape `sh`, as the element.
pub(crate) fn dot(w: &mut FnWriter<'_, '_>, sh: &Shape, a: &str, b: &str) -> String {
    let e = scalar(sh.elem);
    if sh.is_float() {
        let prod = w.binop("fmul", sh, a, b);
        let name = format!("llvm.vector.reduce.fadd.{}", sh.suffix());
        let start = Shape {
            elem: sh.elem,
            lanes: None,
            ty: e.into(),
        }
        .fconst(-0.0);
        w.call(e, &name, &[(e, &start), (&sh.ty.clone(), &prod)])
    } else {
        let prod = w.binop("mul", sh, a, b);
        let name = format!("llvm.vector.reduce.add.{}", sh.suffix());
        w.call(e, &name, &[(&sh.ty.clone(), &prod)])
    }
}

/// `length` of a float scalar or vector.
fn length(w: &mut FnWriter<'_, '_>, sh: &Shape, a: &str) -> String {
    let e = scalar(sh.elem).to_string();
    let esh = Shape {
        elem: sh.elem,
        lanes: None,
        ty: e.clone(),
    };
    match sh.lanes {
        None => w.intrinsic("fabs", &esh, &e, &[a]),
        Some(_) => {
            let d = dot(w, sh, a, a);
            w.intrinsic("sqrt", &esh, &e, &[&d])
        }
    }
}

/// Every lane of `sh` set to the element `e`.
fn broadcast(w: &mut FnWriter<'_, '_>, sh: &Shape, e: &str) -> String {
    match sh.lanes {
        None => e.to_string(),
        Some(_) => {
            let one = w.assign(&format!(
                "insertelement {} poison, {} {e}, i32 0",
                sh.ty,
                scalar(sh.elem)
            ));
            w.assign(&format!(
                "shufflevector {} {one}, {} poison, {} zeroinitializer",
                sh.ty,
                sh.ty,
                mask_ty(sh)
            ))
        }
    }
}

fn mask_ty(sh: &Shape) -> String {
    format!("<{} x i32>", sh.lanes.unwrap_or(1))
}

pub(crate) fn write_math(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    op: MathOp,
) -> Result<(), Error> {
    let first = w.first_operand(data)?;
    if let MathOp::Convert | MathOp::Bitcast = op {
        return super::composite::write_conversion(w, inst, first, op == MathOp::Convert);
    }
    let sh = w.shape_of(first)?;
    let ops = w.operands(data)?;
    let (a, b, c) = (arg(&ops, 0), arg(&ops, 1), arg(&ops, 2));
    let ty = sh.ty.clone();
    let e = scalar(sh.elem).to_string();
    let r = match op {
        MathOp::Intrinsic1(name) => w.intrinsic(name, &sh, &ty, &[a]),
        MathOp::Fma => w.intrinsic("fma", &sh, &ty, &[a, b, c]),
        MathOp::CopySign => w.intrinsic("copysign", &sh, &ty, &[a, b]),
        MathOp::InverseSqrt => {
            let s = w.intrinsic("sqrt", &sh, &ty, &[a]);
            w.binop("fdiv", &sh, &sh.fconst(1.0), &s)
        }
        MathOp::Fract => {
            let fl = w.intrinsic("floor", &sh, &ty, &[a]);
            w.binop("fsub", &sh, a, &fl)
        }
        MathOp::Saturate => saturate(w, &sh, a),
        MathOp::Step => {
            let lt = w.assign(&format!("fcmp olt {ty} {b}, {a}"));
            w.assign(&format!(
                "select {} {lt}, {ty} {}, {ty} {}",
                sh.bool_ty(),
                sh.fconst(0.0),
                sh.fconst(1.0)
            ))
        }
        MathOp::Smoothstep => {
            let num = w.binop("fsub", &sh, c, a);
            let den = w.binop("fsub", &sh, b, a);
            let q = w.binop("fdiv", &sh, &num, &den);
            let t = saturate(w, &sh, &q);
            let two_t = w.binop("fmul", &sh, &sh.fconst(2.0), &t);
            let k = w.binop("fsub", &sh, &sh.fconst(3.0), &two_t);
            let tt = w.binop("fmul", &sh, &t, &t);
            w.binop("fmul", &sh, &tt, &k)
        }
        MathOp::Mix => {
            let omt = w.binop("fsub", &sh, &sh.fconst(1.0), c);
            let l = w.binop("fmul", &sh, a, &omt);
            let r = w.binop("fmul", &sh, b, c);
            w.binop("fadd", &sh, &l, &r)
        }
        MathOp::Scale(k) => w.binop("fmul", &sh, a, &sh.fconst(k)),
        MathOp::Dot => {
            let r = dot(w, &sh, a, b);
            return w.finish(inst, &e, &r);
        }
        MathOp::Cross => {
            let yzx = "<3 x i32> <i32 1, i32 2, i32 0>";
            let zxy = "<3 x i32> <i32 2, i32 0, i32 1>";
            let a1 = w.assign(&format!("shufflevector {ty} {a}, {ty} poison, {yzx}"));
            let b1 = w.assign(&format!("shufflevector {ty} {b}, {ty} poison, {zxy}"));
            let a2 = w.assign(&format!("shufflevector {ty} {a}, {ty} poison, {zxy}"));
            let b2 = w.assign(&format!("shufflevector {ty} {b}, {ty} poison, {yzx}"));
            let l = w.binop("fmul", &sh, &a1, &b1);
            let r = w.binop("fmul", &sh, &a2, &b2);
            w.binop("fsub", &sh, &l, &r)
        }
        MathOp::Length => {
            let r = length(w, &sh, a);
            return w.finish(inst, &e, &r);
        }
        MathOp::Distance => {
            let d = w.binop("fsub", &sh, a, b);
            let r = length(w, &sh, &d);
            return w.finish(inst, &e, &r);
        }
        MathOp::Normalize => {
            let l = length(w, &sh, a);
            let v = broadcast(w, &sh, &l);
            w.binop("fdiv", &sh, a, &v)
        }
        MathOp::Reflect => {
            let d = dot_or_mul(w, &sh, b, a);
            let d2 = w.assign(&format!(
                "fmul {e} {}, {d}",
                Shape {
                    elem: sh.elem,
                    lanes: None,
                    ty: e.clone()
                }
                .fconst(2.0)
            ));
            let v = broadcast(w, &sh, &d2);
            let s = w.binop("fmul", &sh, &v, b);
            w.binop("fsub", &sh, a, &s)
        }
        MathOp::FaceForward => {
            let d = dot_or_mul(w, &sh, c, b);
            let zero = Shape {
                elem: sh.elem,
                lanes: None,
                ty: e.clone(),
            }
            .fconst(0.0);
            let neg = w.assign(&format!("fcmp olt {e} {d}, {zero}"));
            let minus = w.assign(&format!("fneg {ty} {a}"));
            w.assign(&format!("select i1 {neg}, {ty} {a}, {ty} {minus}"))
        }
        MathOp::Reduce(red) => {
            let r = reduce(w, &sh, red, a);
            return w.finish(inst, &e, &r);
        }
        MathOp::Convert | MathOp::Bitcast => {
            return Err(w.fail("conversion reached the math writer"))
        }
    };
    w.finish(inst, &ty, &r)
}

fn dot_or_mul(w: &mut FnWriter<'_, '_>, sh: &Shape, a: &str, b: &str) -> String {
    match sh.lanes {
        Some(_) => dot(w, sh, a, b),
        None => w.binop("fmul", sh, a, b),
    }
}

fn saturate(w: &mut FnWriter<'_, '_>, sh: &Shape, a: &str) -> String {
    let ty = sh.ty.clone();
    let lo = w.intrinsic("maxnum", sh, &ty, &[a, &sh.fconst(0.0)]);
    w.intrinsic("minnum", sh, &ty, &[&lo, &sh.fconst(1.0)])
}

fn reduce(w: &mut FnWriter<'_, '_>, sh: &Shape, red: Reduction, a: &str) -> String {
    let e = scalar(sh.elem).to_string();
    let ty = sh.ty.clone();
    let esh = Shape {
        elem: sh.elem,
        lanes: None,
        ty: e.clone(),
    };
    let (name, start) = match (sh.is_float(), red) {
        (true, Reduction::Add) => ("fadd", Some(esh.fconst(-0.0))),
        (true, Reduction::Mul) => ("fmul", Some(esh.fconst(1.0))),
        (true, Reduction::Min) => ("fmin", None),
        (true, Reduction::Max) => ("fmax", None),
        (false, Reduction::Add) => ("add", None),
        (false, Reduction::Mul) => ("mul", None),
        (false, Reduction::Min) => (if sh.signed() { "smin" } else { "umin" }, None),
        (false, Reduction::Max) => (if sh.signed() { "smax" } else { "umax" }, None),
    };
    let full = format!("llvm.vector.reduce.{name}.{}", sh.suffix());
    match start {
        Some(s) => w.call(&e, &full, &[(&e, &s), (&ty, a)]),
        None => w.call(&e, &full, &[(&ty, a)]),
    }
}

/// The math-library function of `name` for `s`: libdevice's `__nv_{name}f` for 32-bit
/// (and 16-bit, widened) floats and `__nv_{name}` for 64-bit ones; libm's `{name}f` and
/// `{name}`.
fn library_name(library: MathLibrary, name: &str, s: Scalar) -> Option<String> {
    match library {
        MathLibrary::Libdevice if s.bits == 64 => Some(format!("__nv_{name}")),
        MathLibrary::Libdevice => Some(format!("__nv_{name}f")),
        MathLibrary::Libm if s.bits == 64 => Some(name.to_string()),
        MathLibrary::Libm => Some(format!("{name}f")),
        MathLibrary::Unavailable => None,
    }
}

pub(crate) fn write_elementary(
    w: &mut FnWriter<'_, '_>,
    inst: Inst,
    data: &InstData,
    name: &'static str,
) -> Result<(), Error> {
    let first = w.first_operand(data)?;
    let sh = w.shape_of(first)?;
    let func = library_name(w.state.target.math, name, sh.elem)
        .ok_or_else(|| w.fail(format!("{name} without a math library")))?;
    let ops = w.operands(data)?;
    let lanes: Vec<Option<u8>> = match sh.lanes {
        Some(n) => (0..n).map(Some).collect(),
        None => vec![None],
    };
    let e = scalar(sh.elem);
    let wide = if sh.elem.bits == 16 { "float" } else { e };
    let mut result = "poison".to_string();
    for lane in lanes {
        let mut args = Vec::new();
        for o in &ops {
            let x = match lane {
                Some(i) => w.assign(&format!("extractelement {} {o}, i32 {i}", sh.ty)),
                None => o.clone(),
            };
            let x = if wide != e {
                w.assign(&format!("fpext {e} {x} to {wide}"))
            } else {
                x
            };
            args.push(x);
        }
        let typed: Vec<(&str, &str)> = args.iter().map(|a| (wide, a.as_str())).collect();
        let r = w.call(wide, &func, &typed);
        let r = if wide != e {
            w.assign(&format!("fptrunc {wide} {r} to {e}"))
        } else {
            r
        };
        result = match lane {
            Some(i) => w.assign(&format!(
                "insertelement {} {result}, {e} {r}, i32 {i}",
                sh.ty
            )),
            None => r,
        };
    }
    w.finish(inst, &sh.ty, &result)
}
