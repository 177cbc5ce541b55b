//! Integer, float and logical arithmetic, comparisons and bit operations.
//!
//! Integer division and remainder follow WGSL (and the interpreter): a zero divisor, and
//! `MIN / -1`, divide by 1 instead. Shift amounts are masked to the bit width.

use super::lowering::Comparison;
use super::*;

impl Writer<'_> {
    /// The float vector `splat`s of `f` that [`Writer::arith`] folds into
    /// `OpVectorTimesScalar`: every use (operands and edge arguments) is a `mul` whose
    /// other operand is a different value that is not such a splat itself. Saves the
    /// `OpCompositeConstruct` (4 + lanes words).
    pub(super) fn splats_for_vector_times_scalar(&self, f: &Function) -> SecondaryMap<Value, bool> {
        let mut folded: SecondaryMap<Value, bool> = SecondaryMap::new();
        let insts = || f.layout.blocks().flat_map(|b| f.layout.block_insts(b));
        for inst in insts() {
            let data = f.dfg.inst(inst);
            let Some(r) = f.dfg.inst_result(inst) else {
                continue;
            };
            let float_vector = matches!(
                *self.tdata(f.dfg.value_type(r)),
                TypeData::Vector { elem, .. } if elem.kind == ScalarKind::Float
            );
            folded[r] = data.opcode == Opcode::Splat && float_vector;
        }
        let mut spoiled: Vec<Value> = Vec::new();
        for inst in insts() {
            let data = f.dfg.inst(inst);
            let args: Vec<Value> = data.all_values().map(|v| f.resolve(v)).collect();
            let folds = data.opcode == Opcode::Mul
                && data.payload.edges().is_empty()
                && matches!(args[..], [x, y] if x != y && !(folded[x] && folded[y]));
            if !folds {
                spoiled.extend(args.iter().copied().filter(|&v| folded[v]));
            }
        }
        for v in spoiled {
            folded[v] = false;
        }
        folded
    }

    /// The scalar id of folded splat `v`.
    fn splat_scalar(&mut self, f: &Function, v: Value) -> R<Word> {
        let ValueDef::Result(inst) = f.dfg.value_def(v) else {
            return Err(format!("folded splat {v} is not an instruction result").into());
        };
        let scalar = f.resolve(f.dfg.inst(inst).args[0]);
        self.val(f, scalar)
    }

    /// Writes the arithmetic op `op`.
    pub(super) fn arith(&mut self, f: &Function, c: &Operands, op: ArithOp) -> R<()> {
        let (rid, rt, s0) = (c.rid, c.rt, c.s0);
        let (args, a) = (&c.args, &c.a);
        let aty = |i: usize| f.dfg.value_type(args[i]);
        let kind = s0.map(|s| s.kind);
        let float = kind == Some(ScalarKind::Float);
        let signed = kind == Some(ScalarKind::Sint);
        let boolean = kind == Some(ScalarKind::Bool);
        let rt_ = rt.unwrap_or(0);
        let simple = |this: &mut Self, o: Op| this.op(o, rt, rid, Self::ids(a));
        use ArithOp::*;
        match op {
            Add | Sub => {
                if let TypeData::Matrix {
                    elem,
                    columns,
                    rows,
                } = *self.tdata(aty(0))
                {
                    let o = if op == Add { Op::FAdd } else { Op::FSub };
                    self.matrix_columnwise(o, elem, columns, rows, a, rt, rid)?;
                } else if op == Add {
                    simple(self, if float { Op::FAdd } else { Op::IAdd })?;
                } else {
                    simple(self, if float { Op::FSub } else { Op::ISub })?;
                }
            }
            Mul if float && self.folded_splats[args[1]] => {
                let scalar = self.splat_scalar(f, args[1])?;
                self.op(Op::VectorTimesScalar, rt, rid, Self::ids(&[a[0], scalar]))?;
            }
            Mul if float && self.folded_splats[args[0]] => {
                let scalar = self.splat_scalar(f, args[0])?;
                self.op(Op::VectorTimesScalar, rt, rid, Self::ids(&[a[1], scalar]))?;
            }
            Mul => {
                simple(self, if float { Op::FMul } else { Op::IMul })?;
            }
            Div | Rem if float => {
                simple(self, if op == Div { Op::FDiv } else { Op::FRem })?;
            }
            Div | Rem if self.divisor_needs_no_guard(f, c.args[1], signed) => {
                let o = integer_division(op == Div, signed);
                self.op(o, rt, rid, Self::ids(a))?;
            }
            Div | Rem => {
                // WGSL: x / 0 = x, x % 0 = 0, MIN / -1 = MIN, MIN % -1 = 0: divide by 1.
                let ty = aty(0);
                let bt = self.bool_like(ty)?;
                let zero = self.const_splat(ty, 0)?;
                let one = self.const_splat(ty, 1)?;
                let mut bad = self.op(Op::IEqual, Some(bt), None, Self::ids(&[a[1], zero]))?;
                if signed {
                    let bits = s0.ok_or("a signed division without a scalar")?.bits;
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
                let o = integer_division(op == Div, signed);
                self.op(o, rt, rid, Self::ids(&[a[0], d]))?;
            }
            Neg => {
                simple(self, if float { Op::FNegate } else { Op::SNegate })?;
            }
            Abs if !float && !signed => {
                self.op(Op::CopyObject, rt, rid, Self::ids(a))?;
            }
            Abs => {
                self.ext(rt_, rid, if float { GLOp::FAbs } else { GLOp::SAbs }, a)?;
            }
            Sign => {
                self.ext(rt_, rid, if float { GLOp::FSign } else { GLOp::SSign }, a)?;
            }
            Min => {
                let (_, min) = min_max(kind);
                self.ext(rt_, rid, min, a)?;
            }
            Max => {
                let (max, _) = min_max(kind);
                self.ext(rt_, rid, max, a)?;
            }
            Clamp => {
                let (mx, mn) = min_max(kind);
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
            Shl => {
                let amount = self.shift_amount(c, aty(1))?;
                self.op(Op::ShiftLeftLogical, rt, rid, Self::ids(&[a[0], amount.id]))?;
            }
            Shr => {
                let amount = self.shift_amount(c, aty(1))?;
                let o = if signed {
                    Op::ShiftRightArithmetic
                } else {
                    Op::ShiftRightLogical
                };
                self.op(o, rt, rid, Self::ids(&[a[0], amount.id]))?;
            }
            Rotl | Rotr => {
                let st = aty(1);
                let amount = self.shift_amount(c, st)?;
                let stid = self.ty(st)?;
                let w = self.const_splat(st, amount.bits)?;
                let back = self.op(Op::ISub, Some(stid), None, Self::ids(&[w, amount.id]))?;
                let back = self.op(
                    Op::BitwiseAnd,
                    Some(stid),
                    None,
                    Self::ids(&[back, amount.mask]),
                )?;
                let (l, r) = if op == Rotl {
                    (amount.id, back)
                } else {
                    (back, amount.id)
                };
                let x = self.op(Op::ShiftLeftLogical, rt, None, Self::ids(&[a[0], l]))?;
                let y = self.op(Op::ShiftRightLogical, rt, None, Self::ids(&[a[0], r]))?;
                self.op(Op::BitwiseOr, rt, rid, Self::ids(&[x, y]))?;
            }
            Bits(bits) => self.bits(f, c, bits)?,
            Compare(cmp) => {
                simple(self, comparison(cmp, kind))?;
            }
            IsNan => {
                simple(self, Op::IsNan)?;
            }
            IsInf => {
                simple(self, Op::IsInf)?;
            }
            Any | All if self.lanes(aty(0)) == 1 => {
                self.op(Op::CopyObject, rt, rid, Self::ids(a))?;
            }
            Any => {
                simple(self, Op::Any)?;
            }
            All => {
                simple(self, Op::All)?;
            }
        }
        Ok(())
    }

    /// `o` applied column by column to two matrices (SPIR-V has no matrix add / sub).
    #[allow(clippy::too_many_arguments)]
    fn matrix_columnwise(
        &mut self,
        o: Op,
        elem: Scalar,
        columns: u8,
        rows: u8,
        a: &[Word],
        rt: Option<Word>,
        rid: Option<Word>,
    ) -> R<()> {
        let e = self.scalar_type(elem)?;
        let col = self.type_vector(e, u32::from(rows));
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
            cols.push(self.op(o, Some(col), None, Self::ids(&[x, y]))?);
        }
        self.op(Op::CompositeConstruct, rt, rid, Self::ids(&cols))?;
        Ok(())
    }

    /// The shift amount of a shift or rotate (argument 1, of type `st`), masked to the bit
    /// width of argument 0.
    fn shift_amount(&mut self, c: &Operands, st: Type) -> R<ShiftAmount> {
        let bits = u64::from(c.s0.ok_or("a shift of a non-integer")?.bits);
        let stid = self.ty(st)?;
        let mask = self.const_splat(st, bits - 1)?;
        let id = self.op(Op::BitwiseAnd, Some(stid), None, Self::ids(&[c.a[1], mask]))?;
        Ok(ShiftAmount { id, mask, bits })
    }

    /// Bit counting and field ops (32-bit integers: the preflight refuses others).
    fn bits(&mut self, f: &Function, c: &Operands, op: BitOp) -> R<()> {
        let (rid, rt, a) = (c.rid, c.rt, &c.a);
        let aty = |i: usize| f.dfg.value_type(c.args[i]);
        let signed = c.s0.map(|s| s.kind) == Some(ScalarKind::Sint);
        let rt_ = rt.unwrap_or(0);
        match op {
            BitOp::CountOnes => {
                self.op(Op::BitCount, rt, rid, Self::ids(a))?;
            }
            BitOp::ReverseBits => {
                self.op(Op::BitReverse, rt, rid, Self::ids(a))?;
            }
            BitOp::CountLeadingZeros => {
                let msb = self.ext(rt_, None, GLOp::FindUMsb, a)?;
                let k = self.const_splat(aty(0), 31)?;
                self.op(Op::ISub, rt, rid, Self::ids(&[k, msb]))?;
            }
            BitOp::CountTrailingZeros => {
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
            BitOp::ExtractBits | BitOp::InsertBits => {
                // WGSL: o = min(offset, w), c = min(count, w - o).
                let extract = op == BitOp::ExtractBits;
                let n = if extract { 1 } else { 2 };
                let ut = aty(n);
                let utid = self.ty(ut)?;
                let (o, count) =
                    self.bit_field(f, ut, utid, (c.args[n], a[n]), (c.args[n + 1], a[n + 1]))?;
                if extract {
                    let o2 = if signed {
                        Op::BitFieldSExtract
                    } else {
                        Op::BitFieldUExtract
                    };
                    self.op(o2, rt, rid, Self::ids(&[a[0], o, count]))?;
                } else {
                    self.op(
                        Op::BitFieldInsert,
                        rt,
                        rid,
                        Self::ids(&[a[0], a[1], o, count]),
                    )?;
                }
            }
        }
        Ok(())
    }

    /// The clamped offset and count of a bit-field op: `o = min(offset, 32)`,
    /// `c = min(count, 32 - o)`, computed here for constant operands (no instruction is
    /// emitted for what is known) and by `UMin`/`ISub` otherwise.
    fn bit_field(
        &mut self,
        f: &Function,
        ut: Type,
        utid: Word,
        offset: (Value, Word),
        count: (Value, Word),
    ) -> R<(Word, Word)> {
        const WIDTH: u64 = 32;
        let known = |v: Value| match f.dfg.value_def(v) {
            ValueDef::Const(k) => self.m.const_scalar_value(k).map(|(_, bits)| bits),
            ValueDef::Result(_)
            | ValueDef::Param(..)
            | ValueDef::Global(_)
            | ValueDef::Alias(_)
            | ValueDef::Detached => None,
        };
        let (known_offset, known_count) = (known(offset.0), known(count.0));
        let (o, rest) = match known_offset {
            Some(bits) => {
                let o = bits.min(WIDTH);
                (self.const_splat(ut, o)?, Some(WIDTH - o))
            }
            None => {
                let w = self.const_splat(ut, WIDTH)?;
                (self.ext(utid, None, GLOp::UMin, &[offset.1, w])?, None)
            }
        };
        let c = match (known_count, rest) {
            (Some(bits), Some(rest)) => self.const_splat(ut, bits.min(rest))?,
            (None, Some(rest)) => {
                let rest = self.const_splat(ut, rest)?;
                self.ext(utid, None, GLOp::UMin, &[count.1, rest])?
            }
            (Some(_) | None, None) => {
                let w = self.const_splat(ut, WIDTH)?;
                let rest = self.op(Op::ISub, Some(utid), None, Self::ids(&[w, o]))?;
                self.ext(utid, None, GLOp::UMin, &[count.1, rest])?
            }
        };
        Ok((o, c))
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
                    let bt = self.type_bool();
                    let bv = self.type_vector(bt, u32::from(len));
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
                    let bt = self.type_bool();
                    let bv = self.type_vector(bt, u32::from(rows));
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
            TypeData::Array { elem, len, .. } => {
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
            _ => return Err(format!("`select` of {}", self.m.types.display(ty)).into()),
        };
        self.op(Op::CompositeConstruct, Some(t), rid, Self::ids(&parts))
    }

    /// Whether the divisor `d` is a constant whose every lane is non-zero and, for a signed
    /// division, not -1: WGSL's guards (x / 0, MIN / -1) can then never fire.
    fn divisor_needs_no_guard(&self, f: &Function, d: Value, signed: bool) -> bool {
        let Some(c) = oxir_passes::const_values::const_of(f, f.resolve(d)) else {
            return false;
        };
        let Some((scalar, lanes)) = oxir_passes::const_values::lanes(self.m, c) else {
            return false;
        };
        let mask = if scalar.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << scalar.bits) - 1
        };
        lanes
            .iter()
            .all(|&bits| bits & mask != 0 && !(signed && bits & mask == mask))
    }
}

/// A masked shift amount: its id, the mask's id and the shifted value's bit width.
struct ShiftAmount {
    id: Word,
    mask: Word,
    bits: u64,
}

/// The GLSL.std.450 (max, min) of a scalar kind (`None`: no scalar operand, never written).
pub(super) fn min_max(kind: Option<ScalarKind>) -> (GLOp, GLOp) {
    match kind {
        Some(ScalarKind::Float) => (GLOp::NMax, GLOp::NMin),
        Some(ScalarKind::Sint) => (GLOp::SMax, GLOp::SMin),
        Some(ScalarKind::Uint | ScalarKind::Bool) | None => (GLOp::UMax, GLOp::UMin),
    }
}

/// The SPIR-V comparison of `cmp` on operands of scalar kind `kind`.
/// `OpSDiv` / `OpUDiv` / `OpSRem` / `OpUMod`.
fn integer_division(div: bool, signed: bool) -> Op {
    match (div, signed) {
        (true, true) => Op::SDiv,
        (true, false) => Op::UDiv,
        (false, true) => Op::SRem,
        (false, false) => Op::UMod,
    }
}

fn comparison(cmp: Comparison, kind: Option<ScalarKind>) -> Op {
    use Comparison::*;
    use ScalarKind::{Bool, Float, Sint, Uint};
    let kind = kind.unwrap_or(Uint);
    match (cmp, kind) {
        (Eq, Bool) => Op::LogicalEqual,
        (Ne, Bool) => Op::LogicalNotEqual,
        (Eq, Float) => Op::FOrdEqual,
        (Ne, Float) => Op::FUnordNotEqual,
        (Lt, Float) => Op::FOrdLessThan,
        (Le, Float) => Op::FOrdLessThanEqual,
        (Gt, Float) => Op::FOrdGreaterThan,
        (Ge, Float) => Op::FOrdGreaterThanEqual,
        (Eq, Sint | Uint) => Op::IEqual,
        (Ne, Sint | Uint) => Op::INotEqual,
        (Lt, Sint) => Op::SLessThan,
        (Le, Sint) => Op::SLessThanEqual,
        (Gt, Sint) => Op::SGreaterThan,
        (Ge, Sint) => Op::SGreaterThanEqual,
        (Lt, Uint | Bool) => Op::ULessThan,
        (Le, Uint | Bool) => Op::ULessThanEqual,
        (Gt, Uint | Bool) => Op::UGreaterThan,
        (Ge, Uint | Bool) => Op::UGreaterThanEqual,
    }
}
