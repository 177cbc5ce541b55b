//! Float math (GLSL.std.450), vector reductions, matrices, conversions and composites.
//!
//! `extract_dynamic` / `insert_dynamic` on arrays and matrices go through a function-space
//! temporary declared in the function prologue (SPIR-V has no dynamic composite index
//! outside vectors).

use super::*;

impl Writer<'_> {
    /// Writes `c` if it is one of this module's ops; `false` otherwise.
    pub(super) fn math(&mut self, f: &Function, c: &Operands) -> R<bool> {
        let (op, rid, rt, rty_o, s0) = (c.op, c.rid, c.rt, c.rty, c.s0);
        let (args, a) = (&c.args, &c.a);
        let aty = |i: usize| f.dfg.value_type(args[i]);
        let kind = s0.map(|s| s.kind);
        let float = kind == Some(ScalarKind::Float);
        let rt_ = rt.unwrap_or(0);
        let simple = |this: &mut Self, o: Op| this.op(o, rt, rid, Self::ids(a));
        use Opcode::*;
        match op {
            Sin | Cos | Tan | Asin | Acos | Atan | Atan2 | Sinh | Cosh | Tanh | Asinh | Acosh
            | Atanh | Exp | Exp2 | Log | Log2 | Pow | Sqrt | InverseSqrt | Ceil | Floor | Fract
            | Trunc | Round | RoundEven | Fma | Step | Smoothstep | Mix | Degrees | Radians
            | Cross | Length | Distance | Normalize | Reflect | FaceForward | Determinant
            | Inverse => {
                let g = match op {
                    Sin => GLOp::Sin,
                    Cos => GLOp::Cos,
                    Tan => GLOp::Tan,
                    Asin => GLOp::Asin,
                    Acos => GLOp::Acos,
                    Atan => GLOp::Atan,
                    Atan2 => GLOp::Atan2,
                    Sinh => GLOp::Sinh,
                    Cosh => GLOp::Cosh,
                    Tanh => GLOp::Tanh,
                    Asinh => GLOp::Asinh,
                    Acosh => GLOp::Acosh,
                    Atanh => GLOp::Atanh,
                    Exp => GLOp::Exp,
                    Exp2 => GLOp::Exp2,
                    Log => GLOp::Log,
                    Log2 => GLOp::Log2,
                    Pow => GLOp::Pow,
                    Sqrt => GLOp::Sqrt,
                    InverseSqrt => GLOp::InverseSqrt,
                    Ceil => GLOp::Ceil,
                    Floor => GLOp::Floor,
                    Fract => GLOp::Fract,
                    Trunc => GLOp::Trunc,
                    Round => GLOp::Round,
                    RoundEven => GLOp::RoundEven,
                    Fma => GLOp::Fma,
                    Step => GLOp::Step,
                    Smoothstep => GLOp::SmoothStep,
                    Mix => GLOp::FMix,
                    Degrees => GLOp::Degrees,
                    Radians => GLOp::Radians,
                    Cross => GLOp::Cross,
                    Length => GLOp::Length,
                    Distance => GLOp::Distance,
                    Normalize => GLOp::Normalize,
                    Reflect => GLOp::Reflect,
                    FaceForward => GLOp::FaceForward,
                    Determinant => GLOp::Determinant,
                    _ => GLOp::MatrixInverse,
                };
                self.ext(rt_, rid, g, &a)?;
            }
            Exp10 => {
                let ten = self.const_float(aty(0), 10.0)?;
                self.ext(rt_, rid, GLOp::Pow, &[ten, a[0]])?;
            }
            Log10 => {
                let l = self.ext(rt_, None, GLOp::Log2, &a)?;
                let k = self.const_float(aty(0), std::f64::consts::LOG10_2)?;
                self.op(Op::FMul, rt, rid, Self::ids(&[l, k]))?;
            }
            Saturate => {
                let z = self.const_float(aty(0), 0.0)?;
                let o = self.const_float(aty(0), 1.0)?;
                self.ext(rt_, rid, GLOp::NClamp, &[a[0], z, o])?;
            }
            CopySign => {
                let s = s0.ok_or("copysign of a non-float")?;
                let bits = u64::from(s.bits);
                let us = Scalar {
                    kind: ScalarKind::Uint,
                    bits: s.bits,
                };
                let n = self.lanes(aty(0));
                let utid = self.lanes_type(us, n)?;
                let x = self.op(Op::Bitcast, Some(utid), None, vec![Operand::IdRef(a[0])])?;
                let y = self.op(Op::Bitcast, Some(utid), None, vec![Operand::IdRef(a[1])])?;
                let sign = self.const_lanes(us, n, 1u64 << (bits - 1))?;
                let rest = self.const_lanes(us, n, (1u64 << (bits - 1)) - 1)?;
                let x = self.op(Op::BitwiseAnd, Some(utid), None, Self::ids(&[x, rest]))?;
                let y = self.op(Op::BitwiseAnd, Some(utid), None, Self::ids(&[y, sign]))?;
                let r = self.op(Op::BitwiseOr, Some(utid), None, Self::ids(&[x, y]))?;
                self.op(Op::Bitcast, rt, rid, vec![Operand::IdRef(r)])?;
            }
            Dot if float => {
                simple(self, Op::Dot)?;
            }
            Dot | ReduceAdd | ReduceMul | ReduceMin | ReduceMax => {
                let lanes = self.lanes(aty(0));
                let v = if op == Dot {
                    let vt = self.ty(aty(0))?;
                    self.op(Op::IMul, Some(vt), None, Self::ids(&a))?
                } else {
                    a[0]
                };
                let mut acc = self.op(
                    Op::CompositeExtract,
                    rt,
                    None,
                    vec![Operand::IdRef(v), Operand::LiteralBit32(0)],
                )?;
                for i in 1..u32::from(lanes) {
                    let x = self.op(
                        Op::CompositeExtract,
                        rt,
                        None,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(i)],
                    )?;
                    let last = i + 1 == u32::from(lanes);
                    let r = if last { rid } else { None };
                    acc = match (op, kind) {
                        (Dot | ReduceAdd, Some(ScalarKind::Float)) => {
                            self.op(Op::FAdd, rt, r, Self::ids(&[acc, x]))?
                        }
                        (Dot | ReduceAdd, _) => self.op(Op::IAdd, rt, r, Self::ids(&[acc, x]))?,
                        (ReduceMul, Some(ScalarKind::Float)) => {
                            self.op(Op::FMul, rt, r, Self::ids(&[acc, x]))?
                        }
                        (ReduceMul, _) => self.op(Op::IMul, rt, r, Self::ids(&[acc, x]))?,
                        (ReduceMin, Some(ScalarKind::Float)) => {
                            self.ext(rt_, r, GLOp::NMin, &[acc, x])?
                        }
                        (ReduceMin, Some(ScalarKind::Sint)) => {
                            self.ext(rt_, r, GLOp::SMin, &[acc, x])?
                        }
                        (ReduceMin, _) => self.ext(rt_, r, GLOp::UMin, &[acc, x])?,
                        (_, Some(ScalarKind::Float)) => self.ext(rt_, r, GLOp::NMax, &[acc, x])?,
                        (_, Some(ScalarKind::Sint)) => self.ext(rt_, r, GLOp::SMax, &[acc, x])?,
                        _ => self.ext(rt_, r, GLOp::UMax, &[acc, x])?,
                    };
                }
                if lanes < 2 {
                    self.op(Op::CopyObject, rt, rid, vec![Operand::IdRef(acc)])?;
                }
            }
            Dpdx | Dpdy | Fwidth => {
                let o = match op {
                    Dpdx => Op::DPdx,
                    Dpdy => Op::DPdy,
                    _ => Op::Fwidth,
                };
                simple(self, o)?;
            }
            DpdxCoarse | DpdyCoarse | FwidthCoarse | DpdxFine | DpdyFine | FwidthFine => {
                self.cap(Capability::DerivativeControl);
                let o = match op {
                    DpdxCoarse => Op::DPdxCoarse,
                    DpdyCoarse => Op::DPdyCoarse,
                    FwidthCoarse => Op::FwidthCoarse,
                    DpdxFine => Op::DPdxFine,
                    DpdyFine => Op::DPdyFine,
                    _ => Op::FwidthFine,
                };
                simple(self, o)?;
            }
            OuterProduct => {
                simple(self, Op::OuterProduct)?;
            }
            MatrixTimesMatrix => {
                simple(self, Op::MatrixTimesMatrix)?;
            }
            MatrixTimesVector => {
                simple(self, Op::MatrixTimesVector)?;
            }
            VectorTimesMatrix => {
                simple(self, Op::VectorTimesMatrix)?;
            }
            MatrixTimesScalar => {
                simple(self, Op::MatrixTimesScalar)?;
            }
            Transpose => {
                simple(self, Op::Transpose)?;
            }
            Convert => self.convert(aty(0), rty_o.unwrap(), a[0], rid)?,
            Bitcast => {
                simple(self, Op::Bitcast)?;
            }
            Construct => {
                simple(self, Op::CompositeConstruct)?;
            }
            Splat => {
                let n = self.lanes(rty_o.unwrap());
                self.op(
                    Op::CompositeConstruct,
                    rt,
                    rid,
                    Self::ids(&vec![a[0]; usize::from(n)]),
                )?;
            }
            Extract | Insert | Shuffle => {
                let Payload::Indices(ix) = &f.dfg.inst(c.inst).payload else {
                    return Err("indices".into());
                };
                let mut ops = Self::ids(&a);
                ops.extend(ix.iter().map(|&i| Operand::LiteralBit32(i)));
                let o = match op {
                    Extract => Op::CompositeExtract,
                    Insert => Op::CompositeInsert,
                    _ => Op::VectorShuffle,
                };
                if op == Insert {
                    // OpCompositeInsert takes the object first, then the composite.
                    ops.swap(0, 1);
                }
                self.op(o, rt, rid, ops)?;
            }
            ExtractDynamic | InsertDynamic => {
                if let Some(&tmp) = self.temps.get(&c.inst) {
                    self.op(Op::Store, None, None, Self::ids(&[tmp, a[0]]))?;
                    let comp = aty(0);
                    let elem = match self.tdata(comp) {
                        TypeData::Array { elem, .. } => self.ty(*elem)?,
                        TypeData::Matrix { elem, rows, .. } => {
                            let e = self.scalar_type(*elem)?;
                            self.b.type_vector(e, u32::from(*rows))
                        }
                        _ => return Err("dynamic index".into()),
                    };
                    let pt = self.b.type_pointer(None, StorageClass::Function, elem);
                    let idx = if op == ExtractDynamic { a[1] } else { a[2] };
                    let p = self.op(Op::AccessChain, Some(pt), None, Self::ids(&[tmp, idx]))?;
                    if op == ExtractDynamic {
                        self.op(Op::Load, rt, rid, vec![Operand::IdRef(p)])?;
                    } else {
                        self.op(Op::Store, None, None, Self::ids(&[p, a[1]]))?;
                        self.op(Op::Load, rt, rid, vec![Operand::IdRef(tmp)])?;
                    }
                } else if op == ExtractDynamic {
                    simple(self, Op::VectorExtractDynamic)?;
                } else {
                    self.op(
                        Op::VectorInsertDynamic,
                        rt,
                        rid,
                        Self::ids(&[a[0], a[1], a[2]]),
                    )?;
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}
