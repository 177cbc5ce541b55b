//! naga's `Math` functions.
//!
//! Most map to one oxir op of the same meaning; scalar operands of a function whose result
//! is a vector (GLSL's `clamp(v, 0.0, 1.0)`, `mix(a, b, t)`, `step(edge, v)`) are splatted
//! first. Functions without an oxir op are expanded:
//!
//! | naga | oxir |
//! |---|---|
//! | `Round` | `round_even` (WGSL rounds half to even; GLSL leaves the direction open) |
//! | `Outer` | `outer_product` |
//! | `Modf(x)` | `{ fract, whole }` with `whole = trunc x`, `fract = x - whole` (`±0` for infinities) |
//! | `Refract(i, n, eta)` | `k = 1 - eta²(1 - dot(n, i)²)`; `k < 0 ? 0 : eta·i - (eta·dot(n, i) + sqrt k)·n` |
//! | `QuantizeToF16` | `convert` to `f16` and back |
//! | `FirstTrailingBit(x)` | `x == 0 ? -1 : count_trailing_zeros x` |
//! | `FirstLeadingBit(x)` | `y = (signed and x < 0) ? ~x : x`; `y == 0 ? -1 : (width - 1) - count_leading_zeros y` |
//! | `Dot4I8Packed`, `Dot4U8Packed` | four `extract_bits` per operand (sign-extending for `i8`), products, sum |
//! | packing and unpacking built-ins | [`crate::packing`] |
//!
//! Refused: `Frexp` and `Ldexp` (oxir has no exponent access that is exact over the
//! whole range).

use crate::error::{LowerError, Result};
use crate::function::FunctionLowerer;
use naga::{Expression, Handle, MathFunction as M};
use oxir_ir::{Opcode, Scalar, ScalarKind, Value};

impl FunctionLowerer<'_, '_> {
    pub(crate) fn lower_math(
        &mut self,
        handle: Handle<Expression>,
        fun: M,
        arg: Handle<Expression>,
        extra: [Option<Handle<Expression>>; 3],
    ) -> Result<Value> {
        let span = self.function.expressions.get_span(handle);
        let result_ty = self.expression_type(handle)?;
        let mut args = vec![self.value_of(arg)?];
        for handle in extra.into_iter().flatten() {
            args.push(self.value_of(handle)?);
        }
        let simple = |op: Opcode| Some(op);
        let op = match fun {
            M::Abs => simple(Opcode::Abs),
            M::Min => simple(Opcode::Min),
            M::Max => simple(Opcode::Max),
            M::Clamp => simple(Opcode::Clamp),
            M::Saturate => simple(Opcode::Saturate),
            M::Cos => simple(Opcode::Cos),
            M::Cosh => simple(Opcode::Cosh),
            M::Sin => simple(Opcode::Sin),
            M::Sinh => simple(Opcode::Sinh),
            M::Tan => simple(Opcode::Tan),
            M::Tanh => simple(Opcode::Tanh),
            M::Acos => simple(Opcode::Acos),
            M::Asin => simple(Opcode::Asin),
            M::Atan => simple(Opcode::Atan),
            M::Atan2 => simple(Opcode::Atan2),
            M::Asinh => simple(Opcode::Asinh),
            M::Acosh => simple(Opcode::Acosh),
            M::Atanh => simple(Opcode::Atanh),
            M::Radians => simple(Opcode::Radians),
            M::Degrees => simple(Opcode::Degrees),
            M::Ceil => simple(Opcode::Ceil),
            M::Floor => simple(Opcode::Floor),
            M::Round => simple(Opcode::RoundEven),
            M::Fract => simple(Opcode::Fract),
            M::Trunc => simple(Opcode::Trunc),
            M::Exp => simple(Opcode::Exp),
            M::Exp2 => simple(Opcode::Exp2),
            M::Log => simple(Opcode::Log),
            M::Log2 => simple(Opcode::Log2),
            M::Pow => simple(Opcode::Pow),
            M::Dot => simple(Opcode::Dot),
            M::Outer => simple(Opcode::OuterProduct),
            M::Cross => simple(Opcode::Cross),
            M::Distance => simple(Opcode::Distance),
            M::Length => simple(Opcode::Length),
            M::Normalize => simple(Opcode::Normalize),
            M::FaceForward => simple(Opcode::FaceForward),
            M::Reflect => simple(Opcode::Reflect),
            M::Sign => simple(Opcode::Sign),
            M::Fma => simple(Opcode::Fma),
            M::Mix => simple(Opcode::Mix),
            M::Step => simple(Opcode::Step),
            M::SmoothStep => simple(Opcode::Smoothstep),
            M::Sqrt => simple(Opcode::Sqrt),
            M::InverseSqrt => simple(Opcode::InverseSqrt),
            M::Inverse => simple(Opcode::Inverse),
            M::Transpose => simple(Opcode::Transpose),
            M::Determinant => simple(Opcode::Determinant),
            M::CountTrailingZeros => simple(Opcode::CountTrailingZeros),
            M::CountLeadingZeros => simple(Opcode::CountLeadingZeros),
            M::CountOneBits => simple(Opcode::CountOnes),
            M::ReverseBits => simple(Opcode::ReverseBits),
            M::ExtractBits => simple(Opcode::ExtractBits),
            M::InsertBits => simple(Opcode::InsertBits),
            M::Modf => return self.modf(args[0], result_ty),
            M::Refract => return self.refract(&args),
            M::QuantizeToF16 => return self.quantize_to_f16(args[0]),
            M::FirstTrailingBit => return self.first_trailing_bit(args[0]),
            M::FirstLeadingBit => return self.first_leading_bit(args[0]),
            M::Dot4I8Packed => return self.dot4_packed(&args, true),
            M::Dot4U8Packed => return self.dot4_packed(&args, false),
            M::Frexp | M::Ldexp => None,
            M::Pack4x8snorm
            | M::Pack4x8unorm
            | M::Pack2x16snorm
            | M::Pack2x16unorm
            | M::Pack2x16float
            | M::Pack4xI8
            | M::Pack4xU8
            | M::Pack4xI8Clamp
            | M::Pack4xU8Clamp
            | M::Unpack4x8snorm
            | M::Unpack4x8unorm
            | M::Unpack2x16snorm
            | M::Unpack2x16unorm
            | M::Unpack2x16float
            | M::Unpack4xI8
            | M::Unpack4xU8 => return self.lower_packing(fun, args[0], result_ty, span),
        };
        let Some(op) = op else {
            return Err(LowerError::unsupported(
                format!("math built-in `{}`", format!("{fun:?}").to_lowercase()),
                span,
            ));
        };
        // Bit-field offsets and counts are scalars; everything else takes the result's shape.
        let splat_count = match fun {
            M::ExtractBits
            | M::InsertBits
            | M::Dot
            | M::Outer
            | M::Cross
            | M::Distance
            | M::Length
            | M::Determinant
            | M::Transpose
            | M::Inverse => 0,
            _ => args.len(),
        };
        for value in args.iter_mut().take(splat_count) {
            *value = self.broadcast(*value, result_ty)?;
        }
        self.op(op, &args)
    }

    fn modf(&mut self, x: Value, result_ty: oxir_ir::Type) -> Result<Value> {
        let ty = self.value_type(x);
        let whole = self.op(Opcode::Trunc, &[x])?;
        let difference = self.op(Opcode::Sub, &[x, whole])?;
        let zero = self.const_like(ty, 0.0)?;
        let signed_zero = self.op(Opcode::CopySign, &[zero, x])?;
        let infinite = self.op(Opcode::IsInf, &[x])?;
        let fract = self.op(Opcode::Select, &[infinite, signed_zero, difference])?;
        self.op_typed(Opcode::Construct, &[fract, whole], result_ty)
    }

    fn refract(&mut self, args: &[Value]) -> Result<Value> {
        let [incident, normal, eta] = args[..] else {
            return Err(LowerError::internal(
                "refract takes three operands",
                self.span,
            ));
        };
        let vector_ty = self.value_type(incident);
        let scalar_ty = self.value_type(eta);
        let one = self.const_like(scalar_ty, 1.0)?;
        let zero = self.const_like(scalar_ty, 0.0)?;
        let n_dot_i = self.op(Opcode::Dot, &[normal, incident])?;
        let n_dot_i_sq = self.op(Opcode::Mul, &[n_dot_i, n_dot_i])?;
        let eta_sq = self.op(Opcode::Mul, &[eta, eta])?;
        let rest = self.op(Opcode::Sub, &[one, n_dot_i_sq])?;
        let scaled = self.op(Opcode::Mul, &[eta_sq, rest])?;
        let k = self.op(Opcode::Sub, &[one, scaled])?;
        let eta_v = self.broadcast(eta, vector_ty)?;
        let along_incident = self.op(Opcode::Mul, &[eta_v, incident])?;
        let root = self.op(Opcode::Sqrt, &[k])?;
        let eta_n_dot_i = self.op(Opcode::Mul, &[eta, n_dot_i])?;
        let factor = self.op(Opcode::Add, &[eta_n_dot_i, root])?;
        let factor_v = self.broadcast(factor, vector_ty)?;
        let along_normal = self.op(Opcode::Mul, &[factor_v, normal])?;
        let refracted = self.op(Opcode::Sub, &[along_incident, along_normal])?;
        let total_reflection = self.op(Opcode::Lt, &[k, zero])?;
        let zero_v = self.const_like(vector_ty, 0.0)?;
        self.op(Opcode::Select, &[total_reflection, zero_v, refracted])
    }

    fn quantize_to_f16(&mut self, x: Value) -> Result<Value> {
        let ty = self.value_type(x);
        let Some(half_ty) = self.m.out.types.with_scalar(ty, Scalar::F16) else {
            return Err(LowerError::internal(
                "quantizeToF16 of a non-float",
                self.span,
            ));
        };
        let narrow = self.op_typed(Opcode::Convert, &[x], half_ty)?;
        self.op_typed(Opcode::Convert, &[narrow], ty)
    }

    /// `x == 0 ? -1 : count_trailing_zeros x` (all ones for unsigned).
    fn first_trailing_bit(&mut self, x: Value) -> Result<Value> {
        let ty = self.value_type(x);
        let count = self.op(Opcode::CountTrailingZeros, &[x])?;
        let zero = self.const_like(ty, 0.0)?;
        let is_zero = self.op(Opcode::Eq, &[x, zero])?;
        let all_ones = self.const_like(ty, -1.0)?;
        self.op(Opcode::Select, &[is_zero, all_ones, count])
    }

    fn first_leading_bit(&mut self, x: Value) -> Result<Value> {
        let ty = self.value_type(x);
        let Some((scalar, _)) = self.shape(x) else {
            return Err(LowerError::internal(
                "firstLeadingBit of a non-integer",
                self.span,
            ));
        };
        let zero = self.const_like(ty, 0.0)?;
        let y = if scalar.kind == ScalarKind::Sint {
            let negative = self.op(Opcode::Lt, &[x, zero])?;
            let inverted = self.op(Opcode::Not, &[x])?;
            self.op(Opcode::Select, &[negative, inverted, x])?
        } else {
            x
        };
        let leading = self.op(Opcode::CountLeadingZeros, &[y])?;
        let top = self.const_like(ty, f64::from(scalar.bits) - 1.0)?;
        let index = self.op(Opcode::Sub, &[top, leading])?;
        let is_zero = self.op(Opcode::Eq, &[y, zero])?;
        let all_ones = self.const_like(ty, -1.0)?;
        self.op(Opcode::Select, &[is_zero, all_ones, index])
    }

    /// The `count` fields of `width` bits of `word` (`u32`), lowest first, sign-extended
    /// (as `i32`) when `signed`, else as `u32`.
    pub(crate) fn bit_fields(
        &mut self,
        word: Value,
        signed: bool,
        width: u32,
        count: u32,
    ) -> Result<Vec<Value>> {
        let source = if signed {
            let i32_ty = self.m.out.types.i32();
            self.op_typed(Opcode::Bitcast, &[word], i32_ty)?
        } else {
            word
        };
        let bits = self.u32_const(width);
        let mut out = Vec::with_capacity(count as usize);
        for i in 0..count {
            let offset = self.u32_const(width * i);
            out.push(self.op(Opcode::ExtractBits, &[source, offset, bits])?);
        }
        Ok(out)
    }

    fn dot4_packed(&mut self, args: &[Value], signed: bool) -> Result<Value> {
        let [a, b] = args[..] else {
            return Err(LowerError::internal("dot4 takes two operands", self.span));
        };
        let a = self.bit_fields(a, signed, 8, 4)?;
        let b = self.bit_fields(b, signed, 8, 4)?;
        let mut sum = self.op(Opcode::Mul, &[a[0], b[0]])?;
        for i in 1..4 {
            let product = self.op(Opcode::Mul, &[a[i], b[i]])?;
            sum = self.op(Opcode::Add, &[sum, product])?;
        }
        Ok(sum)
    }
}
