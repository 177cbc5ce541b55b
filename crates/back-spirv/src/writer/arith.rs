//! Integer, float and logical arithmetic, comparisons and bit operations.
//!
//! Integer division and remainder follow WGSL (and the interpreter): a zero divisor, and
//! `MIN / -1`, divide by 1 instead. Shift amounts are masked to the bit width.

use super::*;

impl Writer<'_> {
    /// Writes `c` if it is one of this module's ops; `false` otherwise.
    pub(super) fn arith(&mut self, f: &Function, c: &Operands) -> R<bool> {
        let (op, rid, rt, s0) = (c.op, c.rid, c.rt, c.s0);
        let (args, a) = (&c.args, &c.a);
        let aty = |i: usize| f.dfg.value_type(args[i]);
        let kind = s0.map(|s| s.kind);
        let float = kind == Some(ScalarKind::Float);
        let signed = kind == Some(ScalarKind::Sint);
        let boolean = kind == Some(ScalarKind::Bool);
        let rt_ = rt.unwrap_or(0);
        let simple = |this: &mut Self, o: Op| this.op(o, rt, rid, Self::ids(a));
        use Opcode::*;
        match op {
            Add | Sub if matches!(self.tdata(aty(0)), TypeData::Matrix { .. }) => {
                let TypeData::Matrix {
                    elem,
                    columns,
                    rows,
                } = *self.tdata(aty(0))
                else {
                    unreachable!()
                };
                let e = self.scalar_type(elem)?;
                let col = self.b.type_vector(e, u32::from(rows));
                let mut cols = Vec::new();
                for c in 0..u32::from(columns) {
                    let x = self.op(
                        Op::CompositeExtract,
                        Some(col),
                        None,
                        vec![Operand::IdRef(a[0]), Operand::LiteralBit32(c)],
                    )?;
                    let y = self.op(
                        Op::CompositeExtract,
                        Some(col),
                        None,
                        vec![Operand::IdRef(a[1]), Operand::LiteralBit32(c)],
                    )?;
                    let o = if op == Add { Op::FAdd } else { Op::FSub };
                    cols.push(self.op(o, Some(col), None, Self::ids(&[x, y]))?);
                }
                self.op(Op::CompositeConstruct, rt, rid, Self::ids(&cols))?;
            }
            Add => {
                simple(self, if float { Op::FAdd } else { Op::IAdd })?;
            }
            Sub => {
                simple(self, if float { Op::FSub } else { Op::ISub })?;
            }
            Mul => {
                simple(self, if float { Op::FMul } else { Op::IMul })?;
            }
            Div | Rem if float => {
                simple(self, if op == Div { Op::FDiv } else { Op::FRem })?;
            }
            Div | Rem => {
                // WGSL: x / 0 = x, x % 0 = 0, MIN / -1 = MIN, MIN % -1 = 0: divide by 1.
                let ty = aty(0);
                let bt = self.bool_like(ty)?;
                let zero = self.const_splat(ty, 0)?;
                let one = self.const_splat(ty, 1)?;
                let mut bad = self.op(Op::IEqual, Some(bt), None, Self::ids(&[a[1], zero]))?;
                if signed {
                    let bits = s0.unwrap().bits;
                    let min = self.const_splat(ty, 1u64 << (bits - 1))?;
                    let neg1 = self.const_splat(ty, u64::MAX)?;
                    let is_min = self.op(Op::IEqual, Some(bt), None, Self::ids(&[a[0], min]))?;
                    let is_neg1 = self.op(Op::IEqual, Some(bt), None, Self::ids(&[a[1], neg1]))?;
                    let both = self.op(
                        Op::LogicalAnd,
                        Some(bt),
                        None,
                        Self::ids(&[is_min, is_neg1]),
                    )?;
                    bad = self.op(Op::LogicalOr, Some(bt), None, Self::ids(&[bad, both]))?;
                }
                let d = self.op(Op::Select, Some(rt_), None, Self::ids(&[bad, one, a[1]]))?;
                let o = match (op, signed) {
                    (Div, true) => Op::SDiv,
                    (Div, false) => Op::UDiv,
                    (_, true) => Op::SRem,
                    (_, false) => Op::UMod,
                };
                self.op(o, rt, rid, Self::ids(&[a[0], d]))?;
            }
            Neg => {
                simple(self, if float { Op::FNegate } else { Op::SNegate })?;
            }
            Abs if !float && !signed => {
                self.op(Op::CopyObject, rt, rid, Self::ids(&a))?;
            }
            Abs => {
                self.ext(rt_, rid, if float { GLOp::FAbs } else { GLOp::SAbs }, &a)?;
            }
            Sign => {
                self.ext(rt_, rid, if float { GLOp::FSign } else { GLOp::SSign }, &a)?;
            }
            Min | Max => {
                let g = match (op, kind) {
                    (Min, Some(ScalarKind::Float)) => GLOp::NMin,
                    (Min, Some(ScalarKind::Sint)) => GLOp::SMin,
                    (Min, _) => GLOp::UMin,
                    (_, Some(ScalarKind::Float)) => GLOp::NMax,
                    (_, Some(ScalarKind::Sint)) => GLOp::SMax,
                    _ => GLOp::UMax,
                };
                self.ext(rt_, rid, g, &a)?;
            }
            Clamp => {
                let (mx, mn) = match kind {
                    Some(ScalarKind::Float) => (GLOp::NMax, GLOp::NMin),
                    Some(ScalarKind::Sint) => (GLOp::SMax, GLOp::SMin),
                    _ => (GLOp::UMax, GLOp::UMin),
                };
                let lo = self.ext(rt_, None, mx, &[a[0], a[1]])?;
                self.ext(rt_, rid, mn, &[lo, a[2]])?;
            }
            Select => {
                self.select(a[0], aty(0), a[1], a[2], aty(1), rid)?;
            }
            And => {
                simple(
                    self,
                    if boolean {
                        Op::LogicalAnd
                    } else {
                        Op::BitwiseAnd
                    },
                )?;
            }
            Or => {
                simple(
                    self,
                    if boolean {
                        Op::LogicalOr
                    } else {
                        Op::BitwiseOr
                    },
                )?;
            }
            Xor => {
                simple(
                    self,
                    if boolean {
                        Op::LogicalNotEqual
                    } else {
                        Op::BitwiseXor
                    },
                )?;
            }
            Not => {
                simple(self, if boolean { Op::LogicalNot } else { Op::Not })?;
            }
            Shl | Shr | Rotl | Rotr => {
                let bits = u64::from(s0.unwrap().bits);
                let st = aty(1);
                let stid = self.ty(st)?;
                let mask = self.const_splat(st, bits - 1)?;
                let amount = self.op(Op::BitwiseAnd, Some(stid), None, Self::ids(&[a[1], mask]))?;
                match op {
                    Shl => {
                        self.op(Op::ShiftLeftLogical, rt, rid, Self::ids(&[a[0], amount]))?;
                    }
                    Shr => {
                        let o = if signed {
                            Op::ShiftRightArithmetic
                        } else {
                            Op::ShiftRightLogical
                        };
                        self.op(o, rt, rid, Self::ids(&[a[0], amount]))?;
                    }
                    _ => {
                        let w = self.const_splat(st, bits)?;
                        let back = self.op(Op::ISub, Some(stid), None, Self::ids(&[w, amount]))?;
                        let back =
                            self.op(Op::BitwiseAnd, Some(stid), None, Self::ids(&[back, mask]))?;
                        let (l, r) = if op == Rotl {
                            (amount, back)
                        } else {
                            (back, amount)
                        };
                        let x = self.op(Op::ShiftLeftLogical, rt, None, Self::ids(&[a[0], l]))?;
                        let y = self.op(Op::ShiftRightLogical, rt, None, Self::ids(&[a[0], r]))?;
                        self.op(Op::BitwiseOr, rt, rid, Self::ids(&[x, y]))?;
                    }
                }
            }
            CountOnes => {
                simple(self, Op::BitCount)?;
            }
            ReverseBits => {
                simple(self, Op::BitReverse)?;
            }
            CountLeadingZeros => {
                let msb = self.ext(rt_, None, GLOp::FindUMsb, &a)?;
                let k = self.const_splat(aty(0), 31)?;
                self.op(Op::ISub, rt, rid, Self::ids(&[k, msb]))?;
            }
            CountTrailingZeros => {
                // FindILsb gives -1 (all ones) for 0: an unsigned min with 32 makes it 32.
                let lsb = self.ext(rt_, None, GLOp::FindILsb, a)?;
                let n = self.lanes(aty(0));
                let ut = self.lanes_type(Scalar::U32, n)?;
                let k = self.const_lanes(Scalar::U32, n, 32)?;
                if signed {
                    let u = self.op(Op::Bitcast, Some(ut), None, vec![Operand::IdRef(lsb)])?;
                    let m = self.ext(ut, None, GLOp::UMin, &[u, k])?;
                    self.op(Op::Bitcast, rt, rid, vec![Operand::IdRef(m)])?;
                } else {
                    self.ext(rt_, rid, GLOp::UMin, &[lsb, k])?;
                }
            }
            ExtractBits | InsertBits => {
                // WGSL: o = min(offset, w), c = min(count, w - o).
                let n = if op == ExtractBits { 1 } else { 2 };
                let ut = aty(n);
                let utid = self.ty(ut)?;
                let w = self.const_splat(ut, 32)?;
                let o = self.ext(utid, None, GLOp::UMin, &[a[n], w])?;
                let rest = self.op(Op::ISub, Some(utid), None, Self::ids(&[w, o]))?;
                let c = self.ext(utid, None, GLOp::UMin, &[a[n + 1], rest])?;
                if op == ExtractBits {
                    let o2 = if signed {
                        Op::BitFieldSExtract
                    } else {
                        Op::BitFieldUExtract
                    };
                    self.op(o2, rt, rid, Self::ids(&[a[0], o, c]))?;
                } else {
                    self.op(Op::BitFieldInsert, rt, rid, Self::ids(&[a[0], a[1], o, c]))?;
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let o = match (op, kind) {
                    (Eq, Some(ScalarKind::Bool)) => Op::LogicalEqual,
                    (Ne, Some(ScalarKind::Bool)) => Op::LogicalNotEqual,
                    (Eq, Some(ScalarKind::Float)) => Op::FOrdEqual,
                    (Ne, Some(ScalarKind::Float)) => Op::FUnordNotEqual,
                    (Lt, Some(ScalarKind::Float)) => Op::FOrdLessThan,
                    (Le, Some(ScalarKind::Float)) => Op::FOrdLessThanEqual,
                    (Gt, Some(ScalarKind::Float)) => Op::FOrdGreaterThan,
                    (Ge, Some(ScalarKind::Float)) => Op::FOrdGreaterThanEqual,
                    (Eq, _) => Op::IEqual,
                    (Ne, _) => Op::INotEqual,
                    (Lt, Some(ScalarKind::Sint)) => Op::SLessThan,
                    (Le, Some(ScalarKind::Sint)) => Op::SLessThanEqual,
                    (Gt, Some(ScalarKind::Sint)) => Op::SGreaterThan,
                    (Ge, Some(ScalarKind::Sint)) => Op::SGreaterThanEqual,
                    (Lt, _) => Op::ULessThan,
                    (Le, _) => Op::ULessThanEqual,
                    (Gt, _) => Op::UGreaterThan,
                    _ => Op::UGreaterThanEqual,
                };
                simple(self, o)?;
            }
            IsNan => {
                simple(self, Op::IsNan)?;
            }
            IsInf => {
                simple(self, Op::IsInf)?;
            }
            Any | All if self.lanes(aty(0)) == 1 => {
                self.op(Op::CopyObject, rt, rid, Self::ids(&a))?;
            }
            Any => {
                simple(self, Op::Any)?;
            }
            All => {
                simple(self, Op::All)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `select cond, x, y` of type `ty`. Scalars and vectors are one `OpSelect` (a scalar
    /// condition is splat to the lanes below SPIR-V 1.4). Matrices, arrays and structs are
    /// one `OpSelect` from SPIR-V 1.4 on, and below it a select per member, rebuilt with
    /// `OpCompositeConstruct`.
    fn select(
        &mut self,
        cond: Word,
        cond_ty: Type,
        x: Word,
        y: Word,
        ty: Type,
        rid: Option<Word>,
    ) -> R<Word> {
        let modern = self.options.target_env.spirv_version() >= (1, 4);
        let t = self.ty(ty)?;
        let parts: Vec<Word> = match *self.tdata(ty) {
            TypeData::Scalar(_) => {
                return self.op(Op::Select, Some(t), rid, Self::ids(&[cond, x, y]))
            }
            TypeData::Vector { len, .. } => {
                let mut c = cond;
                if self.lanes(cond_ty) == 1 && !modern {
                    let bt = self.b.type_bool();
                    let bv = self.b.type_vector(bt, u32::from(len));
                    c = self.op(
                        Op::CompositeConstruct,
                        Some(bv),
                        None,
                        Self::ids(&vec![c; usize::from(len)]),
                    )?;
                }
                return self.op(Op::Select, Some(t), rid, Self::ids(&[c, x, y]));
            }
            _ if modern => return self.op(Op::Select, Some(t), rid, Self::ids(&[cond, x, y])),
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => {
                let col = self.lanes_type(elem, rows)?;
                let mut parts = Vec::new();
                for i in 0..u32::from(columns) {
                    let xs = self.op(
                        Op::CompositeExtract,
                        Some(col),
                        None,
                        vec![Operand::IdRef(x), Operand::LiteralBit32(i)],
                    )?;
                    let ys = self.op(
                        Op::CompositeExtract,
                        Some(col),
                        None,
                        vec![Operand::IdRef(y), Operand::LiteralBit32(i)],
                    )?;
                    let bt = self.b.type_bool();
                    let bv = self.b.type_vector(bt, u32::from(rows));
                    let c = self.op(
                        Op::CompositeConstruct,
                        Some(bv),
                        None,
                        Self::ids(&vec![cond; usize::from(rows)]),
                    )?;
                    parts.push(self.op(Op::Select, Some(col), None, Self::ids(&[c, xs, ys]))?);
                }
                parts
            }
            TypeData::Array { elem, len } => {
                let et = self.ty(elem)?;
                let mut parts = Vec::new();
                for i in 0..len {
                    let xs = self.op(
                        Op::CompositeExtract,
                        Some(et),
                        None,
                        vec![Operand::IdRef(x), Operand::LiteralBit32(i)],
                    )?;
                    let ys = self.op(
                        Op::CompositeExtract,
                        Some(et),
                        None,
                        vec![Operand::IdRef(y), Operand::LiteralBit32(i)],
                    )?;
                    parts.push(self.select(cond, cond_ty, xs, ys, elem, None)?);
                }
                parts
            }
            TypeData::Struct(ref st) => {
                let members: Vec<Type> = st.members.iter().map(|m| m.ty).collect();
                let mut parts = Vec::new();
                for (i, m) in members.into_iter().enumerate() {
                    let mt = self.ty(m)?;
                    let xs = self.op(
                        Op::CompositeExtract,
                        Some(mt),
                        None,
                        vec![Operand::IdRef(x), Operand::LiteralBit32(i as u32)],
                    )?;
                    let ys = self.op(
                        Op::CompositeExtract,
                        Some(mt),
                        None,
                        vec![Operand::IdRef(y), Operand::LiteralBit32(i as u32)],
                    )?;
                    parts.push(self.select(cond, cond_ty, xs, ys, m, None)?);
                }
                parts
            }
            _ => return Err(format!("`select` of {}", self.m.types.display(ty))),
        };
        self.op(Op::CompositeConstruct, Some(t), rid, Self::ids(&parts))
    }
}
