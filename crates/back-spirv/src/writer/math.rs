//! Float math (GLSL.std.450), vector reductions, matrices, conversions and composites.
//!
//! `length` and `distance` of scalars are `FAbs(x)` and `FAbs(a - b)`, as WGSL defines
//! them, not GLSL.std.450 `Length`, which drivers evaluate as `sqrt(x * x)`.
//!
//! `extract_dynamic` / `insert_dynamic` on arrays and matrices go through a function-space
//! temporary declared in the function prologue (SPIR-V has no dynamic composite index
//! outside vectors).

use super::lowering::{MathOp, Reduction};
use super::*;

impl Writer<'_> {
    /// Writes the math op `op`.
    pub(super) fn math(&mut self, f: &Function, c: &Operands, op: MathOp) -> R<()> {
        let (rid, rt, rty_o, s0) = (c.rid, c.rt, c.rty, c.s0);
        let (args, a) = (&c.args, &c.a);
        let aty = |i: usize| f.dfg.value_type(args[i]);
        let kind = s0.map(|s| s.kind);
        let float = kind == Some(ScalarKind::Float);
        let rt_ = rt.unwrap_or(0);
        let simple = |this: &mut Self, o: Op| this.op(o, rt, rid, Self::ids(a));
        use MathOp::*;
        match op {
            // WGSL: the length of a scalar is its magnitude, not `sqrt(x * x)` (which a
            // driver computes as written, overflowing for |x| above 2^64 in f32).
            Glsl(GLOp::Length) if self.lanes(aty(0)) == 1 => {
                self.ext(rt_, rid, GLOp::FAbs, a)?;
            }
            Glsl(GLOp::Distance) if self.lanes(aty(0)) == 1 => {
                let d = self.op(Op::FSub, rt, None, Self::ids(a))?;
                self.ext(rt_, rid, GLOp::FAbs, &[d])?;
            }
            Glsl(g) => {
                self.ext(rt_, rid, g, a)?;
            }
            Simple(o) => {
                simple(self, o)?;
            }
            Exp10 => {
                let ten = self.const_float(aty(0), 10.0)?;
                self.ext(rt_, rid, GLOp::Pow, &[ten, a[0]])?;
            }
            Log10 => {
                let l = self.ext(rt_, None, GLOp::Log2, a)?;
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
            Dot => {
                let vt = self.ty(aty(0))?;
                let v = self.op(Op::IMul, Some(vt), None, Self::ids(a))?;
                self.reduce(Reduction::Add, v, aty(0), kind, rt, rid)?;
            }
            Reduce(r) => self.reduce(r, a[0], aty(0), kind, rt, rid)?,
            Derivative { op, control } => {
                if control {
                    self.cap(Capability::DerivativeControl);
                }
                simple(self, op)?;
            }
            Convert => {
                let to = rty_o.ok_or("convert without a result")?;
                self.convert(aty(0), to, a[0], rid)?;
            }
            Splat
                if f.dfg
                    .inst_result(c.inst)
                    .is_some_and(|r| self.folded_splats[r]) => {}
            Splat => {
                let n = self.lanes(rty_o.ok_or("splat without a result")?);
                self.op(
                    Op::CompositeConstruct,
                    rt,
                    rid,
                    Self::ids(&vec![a[0]; usize::from(n)]),
                )?;
            }
            Indexed(o) => {
                let Payload::Indices(ix) = &f.dfg.inst(c.inst).payload else {
                    return Err("indices".into());
                };
                let mut ops = Self::ids(a);
                ops.extend(ix.iter().map(|&i| Operand::LiteralBit32(i)));
                if o == Op::CompositeInsert {
                    // OpCompositeInsert takes the object first, then the composite.
                    ops.swap(0, 1);
                }
                self.op(o, rt, rid, ops)?;
            }
            ExtractDynamic | InsertDynamic => {
                if let Some(tmp) = self.temps[c.inst] {
                    self.op(Op::Store, None, None, Self::ids(&[tmp, a[0]]))?;
                    let comp = aty(0);
                    let elem = match self.tdata(comp) {
                        TypeData::Array { elem, .. } => self.ty(*elem)?,
                        TypeData::Matrix { elem, rows, .. } => {
                            let e = self.scalar_type(*elem)?;
                            self.type_vector(e, u32::from(*rows))
                        }
                        _ => return Err("dynamic index".into()),
                    };
                    let pt = self.type_pointer(StorageClass::Function, elem);
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
        }
        Ok(())
    }

    /// The reduction `r` of the lanes of the vector `v` (of oxir type `vty`, lanes of
    /// scalar kind `kind`), left to right.
    fn reduce(
        &mut self,
        r: Reduction,
        v: Word,
        vty: Type,
        kind: Option<ScalarKind>,
        rt: Option<Word>,
        rid: Option<Word>,
    ) -> R<()> {
        let lanes = self.lanes(vty);
        let rt_ = rt.unwrap_or(0);
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
            let result = if last { rid } else { None };
            let float = kind == Some(ScalarKind::Float);
            acc = match r {
                Reduction::Add if float => self.op(Op::FAdd, rt, result, Self::ids(&[acc, x]))?,
                Reduction::Add => self.op(Op::IAdd, rt, result, Self::ids(&[acc, x]))?,
                Reduction::Mul if float => self.op(Op::FMul, rt, result, Self::ids(&[acc, x]))?,
                Reduction::Mul => self.op(Op::IMul, rt, result, Self::ids(&[acc, x]))?,
                Reduction::Min | Reduction::Max => {
                    let (max, min) = super::arith::min_max(kind);
                    let g = if r == Reduction::Min { min } else { max };
                    self.ext(rt_, result, g, &[acc, x])?
                }
            };
        }
        if lanes < 2 {
            self.op(Op::CopyObject, rt, rid, vec![Operand::IdRef(acc)])?;
        }
        Ok(())
    }
}
