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
//! | `Refract(i, n, eta)` | `k = 1 - eta²(1 - dot(n, i)²)`; `k < 0 ? 0 : eta·i - (eta·dot(n, i) + sqrt k)·n` |
//! | `QuantizeToF16` | `convert` to `f16` and back |
//! | `FirstTrailingBit(x)` | `x == 0 ? -1 : count_trailing_zeros x` |
//! | `FirstLeadingBit(x)` | `y = (signed and x < 0) ? ~x : x`; `y == 0 ? -1 : (width - 1) - count_leading_zeros y` |
//! | `Dot4I8Packed`, `Dot4U8Packed` | four `extract_bits` per operand (sign-extending for `i8`), products, sum |
//! | packing and unpacking built-ins | [`crate::packing`] |
//!
//! `Ldexp`, `Frexp` and `Modf` are the ops of the same names; `frexp` and `modf` produce
//! naga's predeclared result structs (`__frexp_result_f32 { fract, exp }`,
//! `__modf_result_f32 { fract, whole }` and their vector forms) directly.

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
        let op = match fun {
            M::Abs => Opcode::Abs,
            M::Min => Opcode::Min,
            M::Max => Opcode::Max,
            M::Clamp => Opcode::Clamp,
            M::Saturate => Opcode::Saturate,
            M::Cos => Opcode::Cos,
            M::Cosh => Opcode::Cosh,
            M::Sin => Opcode::Sin,
            M::Sinh => Opcode::Sinh,
            M::Tan => Opcode::Tan,
            M::Tanh => Opcode::Tanh,
            M::Acos => Opcode::Acos,
            M::Asin => Opcode::Asin,
            M::Atan => Opcode::Atan,
            M::Atan2 => Opcode::Atan2,
            M::Asinh => Opcode::Asinh,
            M::Acosh => Opcode::Acosh,
            M::Atanh => Opcode::Atanh,
            M::Radians => Opcode::Radians,
            M::Degrees => Opcode::Degrees,
            M::Ceil => Opcode::Ceil,
            M::Floor => Opcode::Floor,
            M::Round => Opcode::RoundEven,
            M::Fract => Opcode::Fract,
            M::Trunc => Opcode::Trunc,
            M::Exp => Opcode::Exp,
            M::Exp2 => Opcode::Exp2,
            M::Log => Opcode::Log,
            M::Log2 => Opcode::Log2,
            M::Pow => Opcode::Pow,
            M::Dot => Opcode::Dot,
            M::Outer => Opcode::OuterProduct,
            M::Cross => Opcode::Cross,
            M::Distance => Opcode::Distance,
            M::Length => Opcode::Length,
            M::Normalize => Opcode::Normalize,
            M::FaceForward => Opcode::FaceForward,
            M::Reflect => Opcode::Reflect,
            M::Sign => Opcode::Sign,
            M::Fma => Opcode::Fma,
            M::Mix => Opcode::Mix,
            M::Step => Opcode::Step,
            M::SmoothStep => Opcode::Smoothstep,
            M::Sqrt => Opcode::Sqrt,
            M::InverseSqrt => Opcode::InverseSqrt,
            M::Inverse => Opcode::Inverse,
            M::Transpose => Opcode::Transpose,
            M::Determinant => Opcode::Determinant,
            M::CountTrailingZeros => Opcode::CountTrailingZeros,
            M::CountLeadingZeros => Opcode::CountLeadingZeros,
            M::CountOneBits => Opcode::CountOnes,
            M::ReverseBits => Opcode::ReverseBits,
            M::ExtractBits => Opcode::ExtractBits,
            M::InsertBits => Opcode::InsertBits,
            // `ldexp`'s exponent has the shape of its value: nothing to splat.
            M::Ldexp => return self.op(Opcode::Ldexp, &args),
            // The result types are naga's `__frexp_result_*` / `__modf_result_*` structs.
            M::Frexp => return self.op_typed(Opcode::Frexp, &args[..1], result_ty),
            M::Modf => return self.op_typed(Opcode::Modf, &args[..1], result_ty),
            M::Refract => return self.refract(&args),
            M::QuantizeToF16 => return self.quantize_to_f16(args[0]),
            M::FirstTrailingBit => return self.first_trailing_bit(args[0]),
            M::FirstLeadingBit => return self.first_leading_bit(args[0]),
            M::Dot4I8Packed => return self.dot4_packed(&args, true),
            M::Dot4U8Packed => return self.dot4_packed(&args, false),
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
