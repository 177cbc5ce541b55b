//! One instruction: the operands every op needs ([`Operands`]), the dispatch to the
//! per-concern modules by the op's [`Lowering`] (an exhaustive match: every writer gets
//! its own typed selector), and conversions.
//!
//! Every error here is a preflight gap: the preflight refuses first.

use super::*;

/// The operands of one instruction, resolved once.
pub(super) struct Operands {
    pub inst: Inst,
    /// The result's id and type (oxir and SPIR-V), when the instruction has a result.
    pub rid: Option<Word>,
    pub rty: Option<Type>,
    pub rt: Option<Word>,
    /// The resolved arguments and their ids (none for `access` and `array_length`, which
    /// read their base pointer themselves).
    pub args: Vec<Value>,
    pub a: Vec<Word>,
    /// The scalar of argument 0, when it is a scalar, vector or matrix.
    pub s0: Option<Scalar>,
    pub workgroup_size: [u32; 3],
}

impl Writer<'_> {
    pub(super) fn inst(&mut self, f: &Function, inst: Inst, wg: [u32; 3]) -> R<()> {
        let data = f.dfg.inst(inst);
        let op = data.opcode;
        let lowered = lowering(op);
        let result = f.dfg.inst_result(inst);
        let rid = result.and_then(|r| self.values[r]);
        let rty_o = result.map(|r| f.dfg.value_type(r));
        let rt = match rty_o {
            Some(t) => Some(self.ty(t)?),
            None => None,
        };
        let args: Vec<Value> = data.args.iter().map(|&a| f.resolve(a)).collect();
        // Operands as ids (pointer operands of wrapped globals become access chains).
        let mut a = Vec::new();
        let reads_base_itself = matches!(
            lowered,
            Lowering::Memory(MemoryOp::Access | MemoryOp::ArrayLength)
        );
        if !reads_base_itself {
            for &v in &args {
                a.push(self.val(f, v)?);
            }
        }
        let s0 = if args.is_empty() {
            None
        } else {
            self.scalar_of(f.dfg.value_type(args[0])).ok()
        };
        let c = Operands {
            inst,
            rid,
            rty: rty_o,
            rt,
            args,
            a,
            s0,
            workgroup_size: wg,
        };
        match lowered {
            Lowering::Arith(a) => self.arith(f, &c, a),
            Lowering::Math(m) => self.math(f, &c, m),
            Lowering::Memory(m) => self.memory(f, &c, m),
            Lowering::Register(r) => self.register(&c, r),
            Lowering::Image(i) => self.image(f, &c, i),
            Lowering::Subgroup(s) => self.subgroup(&c, s),
            Lowering::SpecConstant => self.spec_constant(f, &c),
            Lowering::Call => self.call(f, &c),
            Lowering::Terminator(_) => Err(format!("terminator `{op}` as an instruction").into()),
            Lowering::Refused(why) => Err(format!("{why} (`{op}`)").into()),
        }
    }

    /// A bool scalar/vector type id with the lanes of `ty`.
    pub(super) fn bool_like(&mut self, ty: Type) -> R<Word> {
        let b = self.type_bool();
        let n = self.lanes(ty);
        Ok(if n == 1 {
            b
        } else {
            self.type_vector(b, u32::from(n))
        })
    }

    /// A float → integer conversion of an f32 or f64 `v` with the interpreter's rule in
    /// fewer instructions: `NClamp(v, lo, below_hi)` (every value in `[lo, below_hi]`
    /// truncates to a representable integer, `lo` exactly to MIN), convert, then `MAX`
    /// where `v >= hi` (unless `below_hi` already truncates to MAX) and 0 where `v` is
    /// NaN. The NaN select does not rely on `NClamp`'s NaN rule: whatever it gives for
    /// NaN converts to some integer that the select replaces.
    fn clamped_conversion(
        &mut self,
        from: Type,
        to: Type,
        v: Word,
        rid: Option<Word>,
        b: Saturation,
    ) -> R<()> {
        let ft = self.ty(from)?;
        let rt = self.ty(to)?;
        let bt = self.bool_like(from)?;
        let lo_c = self.const_float(from, b.lo)?;
        let below_c = self.const_float(from, b.below_hi)?;
        let clamped = self.ext(ft, None, GLOp::NClamp, &[v, lo_c, below_c])?;
        let o = if b.signed {
            Op::ConvertFToS
        } else {
            Op::ConvertFToU
        };
        let mut r = self.op(o, Some(rt), None, vec![Operand::IdRef(clamped)])?;
        let max_value = if b.signed {
            i128::from(b.max_bits as i64)
        } else {
            i128::from(b.max_bits)
        };
        if b.below_hi.trunc() as i128 != max_value {
            let hi_c = self.const_float(from, b.hi)?;
            let above = self.op(
                Op::FOrdGreaterThanEqual,
                Some(bt),
                None,
                Self::ids(&[v, hi_c]),
            )?;
            let max = self.const_splat(to, b.max_bits)?;
            r = self.op(Op::Select, Some(rt), None, Self::ids(&[above, max, r]))?;
        }
        let nan = self.op(Op::IsNan, Some(bt), None, vec![Operand::IdRef(v)])?;
        let zero = self.const_splat(to, 0)?;
        self.op(Op::Select, Some(rt), rid, Self::ids(&[nan, zero, r]))?;
        Ok(())
    }

    pub(super) fn convert(&mut self, from: Type, to: Type, v: Word, rid: Option<Word>) -> R<()> {
        let fs = self.scalar_of(from)?;
        let ts = self.scalar_of(to)?;
        let rt = self.ty(to)?;
        use ScalarKind::*;
        match (fs.kind, ts.kind) {
            (Bool, Bool) => {
                self.op(Op::CopyObject, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (Bool, _) => {
                let one = if ts.kind == Float {
                    self.const_float(to, 1.0)?
                } else {
                    self.const_splat(to, 1)?
                };
                let zero = self.const_splat(to, 0)?;
                self.op(Op::Select, Some(rt), rid, Self::ids(&[v, one, zero]))?;
            }
            (Float, Bool) => {
                let zero = self.const_splat(from, 0)?;
                self.op(Op::FUnordNotEqual, Some(rt), rid, Self::ids(&[v, zero]))?;
            }
            (_, Bool) => {
                let zero = self.const_splat(from, 0)?;
                self.op(Op::INotEqual, Some(rt), rid, Self::ids(&[v, zero]))?;
            }
            (Float, Float) if fs.bits == ts.bits => {
                self.op(Op::CopyObject, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (Float, Float) => {
                self.op(Op::FConvert, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (Float, _) => {
                // Exactly the interpreter's rule (Rust's `as`): NaN gives 0, x <= MIN gives
                // MIN (0 for unsigned), x >= MAX + 1 gives MAX, and everything else
                // truncates toward zero, which OpConvertFTo{S,U} defines only for values
                // whose truncation is representable: those are exactly the ones left.
                let bits = i32::from(ts.bits);
                let (lo, hi) = if ts.kind == Sint {
                    (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1))
                } else {
                    (0.0, 2f64.powi(bits))
                };
                let (min_bits, max_bits) = if ts.kind == Sint {
                    (1u64 << (bits - 1), (1u64 << (bits - 1)) - 1)
                } else {
                    (0, u64::MAX >> (64 - bits))
                };
                if let Some(below_hi) = largest_below(fs.bits, hi) {
                    let bounds = Saturation {
                        lo,
                        below_hi,
                        hi,
                        max_bits,
                        signed: ts.kind == Sint,
                    };
                    return self.clamped_conversion(from, to, v, rid, bounds);
                }
                // In a narrow source type (f16), `hi` and `lo` round to infinities: then
                // only the infinities saturate, which is right as every finite value fits.
                let ft = self.ty(from)?;
                let bt = self.bool_like(from)?;
                let lo_c = self.const_float(from, lo)?;
                let hi_c = self.const_float(from, hi)?;
                let fzero = self.const_float(from, 0.0)?;
                let nan = self.op(Op::IsNan, Some(bt), None, vec![Operand::IdRef(v)])?;
                let below =
                    self.op(Op::FOrdLessThanEqual, Some(bt), None, Self::ids(&[v, lo_c]))?;
                let above = self.op(
                    Op::FOrdGreaterThanEqual,
                    Some(bt),
                    None,
                    Self::ids(&[v, hi_c]),
                )?;
                let out = self.op(Op::LogicalOr, Some(bt), None, Self::ids(&[below, above]))?;
                let special = self.op(Op::LogicalOr, Some(bt), None, Self::ids(&[out, nan]))?;
                let safe = self.op(Op::Select, Some(ft), None, Self::ids(&[special, fzero, v]))?;
                let o = if ts.kind == Sint {
                    Op::ConvertFToS
                } else {
                    Op::ConvertFToU
                };
                let c = self.op(o, Some(rt), None, vec![Operand::IdRef(safe)])?;
                let min = self.const_splat(to, min_bits)?;
                let max = self.const_splat(to, max_bits)?;
                let low = self.op(Op::Select, Some(rt), None, Self::ids(&[below, min, c]))?;
                self.op(Op::Select, Some(rt), rid, Self::ids(&[above, max, low]))?;
            }
            (Sint, Float) => {
                self.op(Op::ConvertSToF, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (_, Float) => {
                self.op(Op::ConvertUToF, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (_, _) if fs.bits == ts.bits => {
                let o = if fs.kind == ts.kind {
                    Op::CopyObject
                } else {
                    Op::Bitcast
                };
                self.op(o, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (_, _) => {
                // Width change by the source signedness, then reinterpret.
                let mid_s = Scalar {
                    kind: fs.kind,
                    bits: ts.bits,
                };
                let n = self.lanes(from);
                let st = self.scalar_type(mid_s)?;
                let mt = if n == 1 {
                    st
                } else {
                    self.type_vector(st, u32::from(n))
                };
                let o = if fs.kind == Sint {
                    Op::SConvert
                } else {
                    Op::UConvert
                };
                if fs.kind == ts.kind {
                    self.op(o, Some(rt), rid, vec![Operand::IdRef(v)])?;
                } else {
                    let w = self.op(o, Some(mt), None, vec![Operand::IdRef(v)])?;
                    self.op(Op::Bitcast, Some(rt), rid, vec![Operand::IdRef(w)])?;
                }
            }
        }
        Ok(())
    }
}

/// The bounds of a saturating float → integer conversion (see `clamped_conversion`).
#[derive(Copy, Clone)]
struct Saturation {
    /// MIN (0 unsigned), exact in the source type.
    lo: f64,
    /// The largest source value below `hi`.
    below_hi: f64,
    /// MAX + 1.
    hi: f64,
    max_bits: u64,
    signed: bool,
}

/// The largest value of an f32 (`bits` 32) or f64 below `hi` (a power of two that the
/// type holds exactly); `None` for other widths (f16, whose bounds may be infinities).
fn largest_below(bits: u8, hi: f64) -> Option<f64> {
    match bits {
        32 => Some(f64::from(f32::from_bits((hi as f32).to_bits() - 1))),
        64 => Some(f64::from_bits(hi.to_bits() - 1)),
        _ => None,
    }
}
