//! WGSL's data packing and unpacking built-ins, expanded into bit-field operations.
//!
//! Following the WGSL definitions:
//!
//! | built-in | expansion |
//! |---|---|
//! | `pack4x8snorm` / `pack4x8unorm` | `floor(0.5 + k · clamp(e, lo, 1))` per lane (k = 127 / 255, lo = -1 / 0), converted to integers, lanes inserted into 8-bit fields with `insert_bits` |
//! | `pack2x16snorm` / `pack2x16unorm` | the same with k = 32767 / 65535 and 16-bit fields |
//! | `pack2x16float` | `convert` to `vec2<f16>`, `bitcast` to `u32` |
//! | `pack4xI8` / `pack4xU8` (`Clamp`: after clamping to the 8-bit range) | lanes inserted into 8-bit fields |
//! | `unpack4x8snorm` / `unpack2x16snorm` | sign-extending `extract_bits`, `convert`, `/ k`, `max(.., -1)` |
//! | `unpack4x8unorm` / `unpack2x16unorm` | `extract_bits`, `convert`, `/ k` |
//! | `unpack2x16float` | `bitcast` to `vec2<f16>`, `convert` to `vec2<f32>` |
//! | `unpack4xI8` / `unpack4xU8` | (sign-extending) `extract_bits` per lane |

use crate::error::{LowerError, Result};
use crate::function::FunctionLowerer;
use naga::{MathFunction as M, Span};
use oxir_ir::{Opcode, Scalar, Type, Value};

impl FunctionLowerer<'_, '_> {
    pub(crate) fn lower_packing(
        &mut self,
        fun: M,
        arg: Value,
        result_ty: Type,
        span: Span,
    ) -> Result<Value> {
        match fun {
            M::Pack4x8snorm => self.pack_normalized(arg, 8, 127.0, -1.0),
            M::Pack4x8unorm => self.pack_normalized(arg, 8, 255.0, 0.0),
            M::Pack2x16snorm => self.pack_normalized(arg, 16, 32767.0, -1.0),
            M::Pack2x16unorm => self.pack_normalized(arg, 16, 65535.0, 0.0),
            M::Pack2x16float => {
                let half_ty = self.m.out.types.vector(Scalar::F16, 2);
                let half = self.op_typed(Opcode::Convert, &[arg], half_ty)?;
                self.op_typed(Opcode::Bitcast, &[half], result_ty)
            }
            M::Pack4xI8 | M::Pack4xU8 => self.pack_integers(arg, None),
            M::Pack4xI8Clamp => self.pack_integers(arg, Some((-128.0, 127.0))),
            M::Pack4xU8Clamp => self.pack_integers(arg, Some((0.0, 255.0))),
            M::Unpack4x8snorm => self.unpack_normalized(arg, result_ty, 8, 4, 127.0, true),
            M::Unpack4x8unorm => self.unpack_normalized(arg, result_ty, 8, 4, 255.0, false),
            M::Unpack2x16snorm => self.unpack_normalized(arg, result_ty, 16, 2, 32767.0, true),
            M::Unpack2x16unorm => self.unpack_normalized(arg, result_ty, 16, 2, 65535.0, false),
            M::Unpack2x16float => {
                let half_ty = self.m.out.types.vector(Scalar::F16, 2);
                let half = self.op_typed(Opcode::Bitcast, &[arg], half_ty)?;
                self.op_typed(Opcode::Convert, &[half], result_ty)
            }
            M::Unpack4xI8 => {
                let lanes = self.bit_fields(arg, true, 8, 4)?;
                self.op_typed(Opcode::Construct, &lanes, result_ty)
            }
            M::Unpack4xU8 => {
                let lanes = self.bit_fields(arg, false, 8, 4)?;
                self.op_typed(Opcode::Construct, &lanes, result_ty)
            }
            other => Err(LowerError::internal(
                format!("`{other:?}` is not a packing built-in"),
                span,
            )),
        }
    }

    /// Inserts each lane of `lanes` (a `u32` vector) into a `width`-bit field of a `u32`.
    fn insert_lanes(&mut self, lanes: Value, width: u32) -> Result<Value> {
        let Some((_, count)) = self.shape(lanes) else {
            return Err(LowerError::internal("packing a non-vector", self.span));
        };
        let bits = self.u32_const(width);
        let mut word = self.u32_const(0);
        for i in 0..u32::from(count) {
            let lane = self.op_indices(Opcode::Extract, &[lanes], &[i])?;
            let offset = self.u32_const(width * i);
            word = self.op(Opcode::InsertBits, &[word, lane, offset, bits])?;
        }
        Ok(word)
    }

    /// `value` (an integer vector) as the `u32` vector of the same lanes.
    fn as_unsigned(&mut self, value: Value) -> Result<Value> {
        let ty = self.value_type(value);
        let Some(unsigned) = self.m.out.types.with_scalar(ty, Scalar::U32) else {
            return Err(LowerError::internal("packing a non-vector", self.span));
        };
        if unsigned == ty {
            return Ok(value);
        }
        self.op_typed(Opcode::Bitcast, &[value], unsigned)
    }

    fn pack_normalized(&mut self, e: Value, width: u32, scale: f64, low: f64) -> Result<Value> {
        let ty = self.value_type(e);
        let low_v = self.const_like(ty, low)?;
        let one = self.const_like(ty, 1.0)?;
        let clamped = self.op(Opcode::Clamp, &[e, low_v, one])?;
        let scale_v = self.const_like(ty, scale)?;
        let scaled = self.op(Opcode::Mul, &[clamped, scale_v])?;
        let half = self.const_like(ty, 0.5)?;
        let shifted = self.op(Opcode::Add, &[scaled, half])?;
        let rounded = self.op(Opcode::Floor, &[shifted])?;
        let int_scalar = if low < 0.0 { Scalar::I32 } else { Scalar::U32 };
        let Some(int_ty) = self.m.out.types.with_scalar(ty, int_scalar) else {
            return Err(LowerError::internal("packing a non-vector", self.span));
        };
        let ints = self.op_typed(Opcode::Convert, &[rounded], int_ty)?;
        let lanes = self.as_unsigned(ints)?;
        self.insert_lanes(lanes, width)
    }

    fn pack_integers(&mut self, e: Value, clamp: Option<(f64, f64)>) -> Result<Value> {
        let ty = self.value_type(e);
        let e = match clamp {
            Some((low, high)) => {
                let low = self.const_like(ty, low)?;
                let high = self.const_like(ty, high)?;
                self.op(Opcode::Clamp, &[e, low, high])?
            }
            None => e,
        };
        let lanes = self.as_unsigned(e)?;
        self.insert_lanes(lanes, 8)
    }

    fn unpack_normalized(
        &mut self,
        word: Value,
        result_ty: Type,
        width: u32,
        count: u32,
        scale: f64,
        signed: bool,
    ) -> Result<Value> {
        let fields = self.bit_fields(word, signed, width, count)?;
        let int_scalar = if signed { Scalar::I32 } else { Scalar::U32 };
        let int_ty = self.m.out.types.vector(int_scalar, count as u8);
        let ints = self.op_typed(Opcode::Construct, &fields, int_ty)?;
        let floats = self.op_typed(Opcode::Convert, &[ints], result_ty)?;
        let scale_v = self.const_like(result_ty, scale)?;
        let unpacked = self.op(Opcode::Div, &[floats, scale_v])?;
        if signed {
            let minus_one = self.const_like(result_ty, -1.0)?;
            self.op(Opcode::Max, &[unpacked, minus_one])
        } else {
            Ok(unpacked)
        }
    }
}
