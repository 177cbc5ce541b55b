//! Scalar semantics: the exact result of every lane-wise operation on canonical scalar
//! bits. The interpreter executes these functions and constant folding evaluates them, so
//! the two can never disagree about a folded value.
//!
//! ## Representation
//!
//! A lane is a `u64` holding the **canonical bits** of its [`Scalar`] type (as in
//! [`crate::constants`]): integers truncated to their width and sign-extended when
//! signed, zero-extended when unsigned; bools 0 or 1; floats their IEEE 754 bit pattern
//! in the low bits with the high bits zero. Every function here takes canonical bits and
//! returns canonical bits.
//!
//! ## Rules
//!
//! - **Integers** wrap (two's complement) at their width: `add`, `sub`, `mul`, `neg`,
//!   `abs` (`abs(MIN) = MIN`; `abs` of an unsigned value is the value). Division follows
//!   WGSL: `x / 0 = x`, `MIN / -1 = MIN`; remainder truncates (the sign of the dividend),
//!   `x % 0 = 0`, `MIN % -1 = 0`. `min`, `max` and comparisons are signed for signed and
//!   unsigned for unsigned types. `sign` is -1, 0 or 1.
//! - **Shifts and rotates** take the amount modulo the width of the shifted operand;
//!   `shr` is arithmetic for signed and logical for unsigned operands.
//! - **Bit counting**: `count_leading_zeros(0)` and `count_trailing_zeros(0)` are the
//!   width; `reverse_bits` reverses within the width. [`extract_bits`] and
//!   [`insert_bits`] clamp offset and count to the width (WGSL); a signed extraction
//!   sign-extends from bit `count - 1`, a zero count extracts 0.
//! - **Bools** support `and`, `or`, `xor`, `not`, `eq` and `ne`.
//! - **Floats** are IEEE 754 with round-to-nearest-even. Each f16 and f32 operation is
//!   computed in f64 and rounded once to the type; this is exact for `+ - * / % sqrt`
//!   and the conversions, because f64 holds more than twice the significand bits plus
//!   two. `fma` is fused: in f32 for f32, in f64 for f64, and in f64 then rounded for
//!   f16. f16 goes through the `half` crate. `min` / `max` return the other operand when one is NaN (WGSL);
//!   `clamp(e, lo, hi) = min(max(e, lo), hi)`; `sign(NaN) = 0` and `sign(±0) = ±0`;
//!   `round` rounds half away from zero, `round_even` half to even; `fract(x) = x -
//!   floor(x)`; `saturate` clamps to [0, 1]; `step(edge, x)` is 0 when `x < edge`,
//!   else 1. `smoothstep` and `mix` follow WGSL's formulas with every step rounded to the
//!   type (`t = clamp((x - lo) / (hi - lo), 0, 1)`, `t·t·(3 - 2t)`; `a·(1 - t) + b·t`),
//!   as the vector and matrix built-ins of [`composite`] do. The elementary functions (`sin`, `exp`, `pow`, ...; see
//!   [`crate::ops::OpFamily::ElementaryFunction`]) use the host's libm: GPUs approximate
//!   them, so constant folding must not evaluate them (the op table marks them not
//!   foldable), and so are `sqrt`, `inverse_sqrt`, `fma`, `smoothstep` and `mix`.
//! - **Exponents** ([`ldexp`], [`frexp`], [`modf`]): `x * 2^e` rounded once; the
//!   significand in [0.5, 1) and exponent (`(±0, 0)` for zeros); the fractional and
//!   whole parts with the sign of `x` (see the `decompose` module).
//! - **Conversions** ([`convert`]): float to integer truncates toward zero, saturates to
//!   the target range and maps NaN to 0 (WGSL); integer to float rounds to nearest even;
//!   to `bool` compares with zero (so NaN converts to true); `bool` to a number is 0 or
//!   1; integer to integer truncates, or sign- or zero-extends by the source's
//!   signedness. [`bitcast`] reinterprets the bits between non-bool scalars of one width.
//!
//! Every function is total over the opcodes and scalar types it accepts and refuses the
//! rest with a [`ScalarError`]; [`lane_op`] is the one exhaustive classification of
//! [`Opcode`] that decides which function, if any, evaluates an opcode.

use crate::constants::canonical_scalar_bits;
use crate::{Opcode, Scalar, ScalarKind};

pub mod composite;
#[cfg(test)]
mod composite_tests;
mod decompose;
#[cfg(test)]
mod tests;

pub use decompose::{frexp, ldexp, modf};

/// Why a scalar-semantics function refused an operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScalarError {
    /// The opcode is not a lane operation of the kind the function evaluates (for
    /// example `load` given to [`binary`], or `neg` given to [`binary`]).
    #[error("`{0}` is not a scalar operation of this arity")]
    NotScalarOp(Opcode),
    /// The opcode is a lane operation, but not on this scalar type (for example `not`
    /// on a float); the verifier's type rules rule this out for valid modules.
    #[error("`{op}` is not defined on {}", scalar.name())]
    UnsupportedType {
        /// The refused operation.
        op: Opcode,
        /// The scalar type it was asked to operate on.
        scalar: Scalar,
    },
    /// The operands of a composite built-in ([`composite`]) have shapes it is not defined
    /// on (lengths that differ, `cross` of other than three lanes, a matrix that is not
    /// square); the verifier's type rules rule this out for valid modules.
    #[error("`{0}` is not defined on operands of these shapes")]
    Shape(Opcode),
}

/// One-operand lane operations; [`unary`] evaluates them.
#[allow(missing_docs)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sign,
    Not,
    CountOnes,
    CountLeadingZeros,
    CountTrailingZeros,
    ReverseBits,
    IsNan,
    IsInf,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Exp,
    Exp2,
    Exp10,
    Log,
    Log2,
    Log10,
    Sqrt,
    InverseSqrt,
    Ceil,
    Floor,
    Fract,
    Trunc,
    Round,
    RoundEven,
    Saturate,
    Degrees,
    Radians,
}

/// Two-operand lane operations; [`binary`] evaluates them.
#[allow(missing_docs)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Rotl,
    Rotr,
    Atan2,
    Pow,
    CopySign,
    Step,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Three-operand lane operations; [`ternary`] evaluates them.
#[allow(missing_docs)]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TernaryOp {
    Clamp,
    Fma,
    Smoothstep,
    Mix,
}

/// How an opcode computes its result lane by lane, when it does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LaneOp {
    /// [`unary`]: one operand, a result of the same type (bool for `is_nan`, `is_inf`).
    Unary(UnaryOp),
    /// [`binary`]: two operands of one type (the shift amount may differ), a result of
    /// that type (bool for comparisons).
    Binary(BinaryOp),
    /// [`ternary`]: three operands and a result of one type.
    Ternary(TernaryOp),
    /// [`select`]: a bool lane picks one of two lanes.
    Select,
    /// [`bool_reduce`] with `any = true` / `false`: all lanes of a bool vector to one bool.
    BoolReduce {
        /// `any` (true) or `all` (false).
        any: bool,
    },
    /// [`extract_bits`].
    ExtractBits,
    /// [`insert_bits`].
    InsertBits,
    /// [`convert`].
    Convert,
    /// [`bitcast`] (lane by lane when the lane widths agree).
    Bitcast,
    /// [`ldexp`]: a float lane and an `i32` exponent lane, a float lane out.
    Ldexp,
    /// [`frexp`]: one float lane to a significand lane and an `i32` exponent lane (the
    /// members of the op's struct result).
    Frexp,
    /// [`modf`]: one float lane to a fractional and a whole lane (the members of the op's
    /// struct result).
    Modf,
}

/// The lane semantics of `op`, or `None` when it has none here: composites, memory,
/// atomics, synchronisation, special registers, textures, derivatives (whose value
/// depends on neighbouring invocations), vectors and matrices, calls, debugging and
/// control flow. This is the one match over [`Opcode`] that decides what this module
/// evaluates; it lists every opcode.
pub fn lane_op(op: Opcode) -> Option<LaneOp> {
    use LaneOp::{Binary as B, Ternary as T, Unary as U};
    use Opcode::*;
    Some(match op {
        Add => B(BinaryOp::Add),
        Sub => B(BinaryOp::Sub),
        Mul => B(BinaryOp::Mul),
        Div => B(BinaryOp::Div),
        Rem => B(BinaryOp::Rem),
        Neg => U(UnaryOp::Neg),
        Abs => U(UnaryOp::Abs),
        Sign => U(UnaryOp::Sign),
        Min => B(BinaryOp::Min),
        Max => B(BinaryOp::Max),
        Clamp => T(TernaryOp::Clamp),
        Select => LaneOp::Select,
        And => B(BinaryOp::And),
        Or => B(BinaryOp::Or),
        Xor => B(BinaryOp::Xor),
        Not => U(UnaryOp::Not),
        Shl => B(BinaryOp::Shl),
        Shr => B(BinaryOp::Shr),
        Rotl => B(BinaryOp::Rotl),
        Rotr => B(BinaryOp::Rotr),
        CountOnes => U(UnaryOp::CountOnes),
        CountLeadingZeros => U(UnaryOp::CountLeadingZeros),
        CountTrailingZeros => U(UnaryOp::CountTrailingZeros),
        ReverseBits => U(UnaryOp::ReverseBits),
        ExtractBits => LaneOp::ExtractBits,
        InsertBits => LaneOp::InsertBits,
        Eq => B(BinaryOp::Eq),
        Ne => B(BinaryOp::Ne),
        Lt => B(BinaryOp::Lt),
        Le => B(BinaryOp::Le),
        Gt => B(BinaryOp::Gt),
        Ge => B(BinaryOp::Ge),
        IsNan => U(UnaryOp::IsNan),
        IsInf => U(UnaryOp::IsInf),
        Any => LaneOp::BoolReduce { any: true },
        All => LaneOp::BoolReduce { any: false },
        Sin => U(UnaryOp::Sin),
        Cos => U(UnaryOp::Cos),
        Tan => U(UnaryOp::Tan),
        Asin => U(UnaryOp::Asin),
        Acos => U(UnaryOp::Acos),
        Atan => U(UnaryOp::Atan),
        Atan2 => B(BinaryOp::Atan2),
        Sinh => U(UnaryOp::Sinh),
        Cosh => U(UnaryOp::Cosh),
        Tanh => U(UnaryOp::Tanh),
        Asinh => U(UnaryOp::Asinh),
        Acosh => U(UnaryOp::Acosh),
        Atanh => U(UnaryOp::Atanh),
        Exp => U(UnaryOp::Exp),
        Exp2 => U(UnaryOp::Exp2),
        Exp10 => U(UnaryOp::Exp10),
        Log => U(UnaryOp::Log),
        Log2 => U(UnaryOp::Log2),
        Log10 => U(UnaryOp::Log10),
        Pow => B(BinaryOp::Pow),
        Sqrt => U(UnaryOp::Sqrt),
        InverseSqrt => U(UnaryOp::InverseSqrt),
        Ceil => U(UnaryOp::Ceil),
        Floor => U(UnaryOp::Floor),
        Fract => U(UnaryOp::Fract),
        Trunc => U(UnaryOp::Trunc),
        Round => U(UnaryOp::Round),
        RoundEven => U(UnaryOp::RoundEven),
        Fma => T(TernaryOp::Fma),
        CopySign => B(BinaryOp::CopySign),
        Saturate => U(UnaryOp::Saturate),
        Step => B(BinaryOp::Step),
        Smoothstep => T(TernaryOp::Smoothstep),
        Mix => T(TernaryOp::Mix),
        Degrees => U(UnaryOp::Degrees),
        Radians => U(UnaryOp::Radians),
        Convert => LaneOp::Convert,
        Bitcast => LaneOp::Bitcast,
        Ldexp => LaneOp::Ldexp,
        Frexp => LaneOp::Frexp,
        Modf => LaneOp::Modf,
        Dot
        | Cross
        | Length
        | Distance
        | Normalize
        | Reflect
        | FaceForward
        | ReduceAdd
        | ReduceMul
        | ReduceMin
        | ReduceMax
        | OuterProduct
        | MatrixTimesMatrix
        | MatrixTimesVector
        | VectorTimesMatrix
        | MatrixTimesScalar
        | Transpose
        | Determinant
        | Inverse
        | Construct
        | Splat
        | Extract
        | Insert
        | ExtractDynamic
        | InsertDynamic
        | Shuffle
        | Alloca
        | Load
        | Store
        | Access
        | ArrayLength
        | AtomicLoad
        | AtomicStore
        | AtomicExchange
        | AtomicCompareExchange
        | AtomicAdd
        | AtomicSub
        | AtomicAnd
        | AtomicOr
        | AtomicXor
        | AtomicMin
        | AtomicMax
        | WorkgroupBarrier
        | StorageBarrier
        | WorkgroupUniformLoad
        | SpecConstant
        | ThreadId
        | WorkgroupId
        | DispatchId
        | LocalInvocationIndex
        | WorkgroupSize
        | NumWorkgroups
        | DispatchSize
        | SubgroupInvocationId
        | SubgroupSize
        | SubgroupId
        | NumSubgroups
        | SubgroupBallot
        | SubgroupElect
        | SubgroupBroadcastFirst
        | SubgroupBroadcast
        | SubgroupShuffle
        | SubgroupShuffleXor
        | SubgroupShuffleUp
        | SubgroupShuffleDown
        | SubgroupAll
        | SubgroupAny
        | SubgroupAllEqual
        | SubgroupAdd
        | SubgroupMul
        | SubgroupMin
        | SubgroupMax
        | SubgroupAnd
        | SubgroupOr
        | SubgroupXor
        | SubgroupInclusiveAdd
        | SubgroupInclusiveMul
        | SubgroupInclusiveMin
        | SubgroupInclusiveMax
        | SubgroupInclusiveAnd
        | SubgroupInclusiveOr
        | SubgroupInclusiveXor
        | SubgroupExclusiveAdd
        | SubgroupExclusiveMul
        | SubgroupExclusiveMin
        | SubgroupExclusiveMax
        | SubgroupExclusiveAnd
        | SubgroupExclusiveOr
        | SubgroupExclusiveXor
        | FragCoord
        | FrontFacing
        | VertexIndex
        | InstanceIndex
        | BaseInstance
        | SampleIndex
        | PrimitiveId
        | TextureSample
        | TextureSampleBias
        | TextureSampleLevel
        | TextureSampleGrad
        | TextureSampleCompare
        | TextureSampleCompareLevel
        | TextureGather
        | TextureGatherCompare
        | TextureLoad
        | TextureStore
        | TextureDimensions
        | TextureNumLevels
        | TextureNumLayers
        | TextureNumSamples
        | Dpdx
        | Dpdy
        | Fwidth
        | DpdxCoarse
        | DpdyCoarse
        | FwidthCoarse
        | DpdxFine
        | DpdyFine
        | FwidthFine
        | Call
        | Print
        | Assert
        | Clock
        | Br
        | CondBr
        | SwitchBr
        | Return
        | Unreachable
        | Discard
        | If
        | Loop
        | SimpleLoop
        | Switch
        | Break
        | Continue => return None,
    })
}

/// The identity of a subgroup reduction on `s` (canonical bits): what an exclusive scan
/// gives its lowest active lane. 0 for `add`, `or`, `xor`; 1 for `mul`; all ones for
/// `and`; the largest value (+inf for floats) for `min`, the smallest (-inf) for `max`.
pub fn subgroup_identity(op: crate::ops::SubgroupArith, s: Scalar) -> u64 {
    use crate::ops::SubgroupArith::*;
    let ones = if s.bits >= 64 {
        u64::MAX
    } else {
        (1u64 << s.bits) - 1
    };
    let float = |x: f64| match s.bits {
        16 => u64::from(half::f16::from_f64(x).to_bits()),
        32 => u64::from((x as f32).to_bits()),
        _ => x.to_bits(),
    };
    let bits = match op {
        Add | Or | Xor => 0,
        And => ones,
        Mul if s.is_float() => float(1.0),
        Mul => 1,
        Min if s.is_float() => float(f64::INFINITY),
        Max if s.is_float() => float(f64::NEG_INFINITY),
        Min if s.is_signed() => ones >> 1,
        Max if s.is_signed() => !(ones >> 1),
        Min => ones,
        Max => 0,
    };
    canon(s, bits)
}

/// Canonical bits of `s` from raw bits (see the module docs).
#[inline]
pub fn canon(s: Scalar, bits: u64) -> u64 {
    canonical_scalar_bits(s, bits)
}

/// The value of canonical float bits of `s` (a float type), exactly, as an f64.
#[inline]
pub fn to_f64(s: Scalar, bits: u64) -> f64 {
    match s.bits {
        16 => half::f16::from_bits(bits as u16).to_f64(),
        32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// Canonical bits of the float type `s` nearest to `v` (ties to even).
#[inline]
pub fn from_f64(s: Scalar, v: f64) -> u64 {
    match s.bits {
        16 => u64::from(half::f16::from_f64(v).to_bits()),
        32 => u64::from((v as f32).to_bits()),
        _ => v.to_bits(),
    }
}

fn width(s: Scalar) -> u32 {
    u32::from(s.bits)
}

fn mask(s: Scalar) -> u64 {
    if s.bits >= 64 {
        u64::MAX
    } else {
        (1u64 << s.bits) - 1
    }
}

/// Evaluates the binary lane operation `op` on canonical bits `a`, `b` of `s` (for
/// shifts and rotates `s` is the type of the shifted operand).
pub fn binary(op: Opcode, s: Scalar, a: u64, b: u64) -> Result<u64, ScalarError> {
    let Some(LaneOp::Binary(bop)) = lane_op(op) else {
        return Err(ScalarError::NotScalarOp(op));
    };
    let unsupported = ScalarError::UnsupportedType { op, scalar: s };
    let r = match s.kind {
        ScalarKind::Float => float_binary(bop, s, a, b),
        ScalarKind::Bool => bool_binary(bop, a, b),
        ScalarKind::Sint | ScalarKind::Uint => int_binary(bop, s, a, b),
    };
    let r = r.ok_or(unsupported)?;
    Ok(if is_comparison(bop) { r } else { canon(s, r) })
}

fn is_comparison(op: BinaryOp) -> bool {
    use BinaryOp::*;
    match op {
        Eq | Ne | Lt | Le | Gt | Ge => true,
        Add | Sub | Mul | Div | Rem | Min | Max | And | Or | Xor | Shl | Shr | Rotl | Rotr
        | Atan2 | Pow | CopySign | Step => false,
    }
}

fn float_binary(op: BinaryOp, s: Scalar, a: u64, b: u64) -> Option<u64> {
    use BinaryOp::*;
    let (x, y) = (to_f64(s, a), to_f64(s, b));
    let f = |v: f64| from_f64(s, v);
    Some(match op {
        Add => f(x + y),
        Sub => f(x - y),
        Mul => f(x * y),
        Div => f(x / y),
        // Truncated remainder with the sign of the dividend (WGSL `%`).
        Rem => f(x % y),
        Min => f(x.min(y)),
        Max => f(x.max(y)),
        Atan2 => f(x.atan2(y)),
        Pow => f(x.powf(y)),
        CopySign => f(x.copysign(y)),
        Step => f(if y < x { 0.0 } else { 1.0 }),
        Eq => u64::from(x == y),
        Ne => u64::from(x != y),
        Lt => u64::from(x < y),
        Le => u64::from(x <= y),
        Gt => u64::from(x > y),
        Ge => u64::from(x >= y),
        And | Or | Xor | Shl | Shr | Rotl | Rotr => return None,
    })
}

fn bool_binary(op: BinaryOp, a: u64, b: u64) -> Option<u64> {
    use BinaryOp::*;
    Some(match op {
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Eq => u64::from(a == b),
        Ne => u64::from(a != b),
        Add | Sub | Mul | Div | Rem | Min | Max | Shl | Shr | Rotl | Rotr | Atan2 | Pow
        | CopySign | Step | Lt | Le | Gt | Ge => return None,
    })
}

/// Integer binary operations; [`binary`] canonicalises the result (comparisons return
/// 0 or 1).
fn int_binary(op: BinaryOp, s: Scalar, a: u64, b: u64) -> Option<u64> {
    use BinaryOp::*;
    let signed = s.kind == ScalarKind::Sint;
    let (ia, ib) = (a as i64, b as i64);
    let (ua, ub) = (a & mask(s), b & mask(s));
    Some(match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        // x / 0 = x. The i64 holds the sign-extended value, so MIN / -1 wraps to MIN
        // after canonicalisation (and `wrapping_div` gives MIN for i64 itself).
        Div if ub == 0 => a,
        Div if signed => ia.wrapping_div(ib) as u64,
        Div => ua / ub,
        // x % 0 = 0; MIN % -1 = 0 (`wrapping_rem`).
        Rem if ub == 0 => 0,
        Rem if signed => ia.wrapping_rem(ib) as u64,
        Rem => ua % ub,
        Min if signed => ia.min(ib) as u64,
        Min => ua.min(ub),
        Max if signed => ia.max(ib) as u64,
        Max => ua.max(ub),
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Shl => ua << (ub as u32 % width(s)),
        Shr if signed => (ia >> (ub as u32 % width(s))) as u64,
        Shr => ua >> (ub as u32 % width(s)),
        Rotl | Rotr => rotate(op == Rotl, s, ua, ub),
        Eq => u64::from(ua == ub),
        Ne => u64::from(ua != ub),
        Lt => u64::from(if signed { ia < ib } else { ua < ub }),
        Le => u64::from(if signed { ia <= ib } else { ua <= ub }),
        Gt => u64::from(if signed { ia > ib } else { ua > ub }),
        Ge => u64::from(if signed { ia >= ib } else { ua >= ub }),
        Atan2 | Pow | CopySign | Step => return None,
    })
}

/// Rotates the low `width(s)` bits of `ua` left (or right) by `amount` modulo the width.
fn rotate(left: bool, s: Scalar, ua: u64, amount: u64) -> u64 {
    let w = width(s);
    let sh = amount as u32 % w;
    let sh = if left { sh } else { (w - sh) % w };
    if sh == 0 {
        ua
    } else {
        ((ua << sh) | (ua >> (w - sh))) & mask(s)
    }
}

/// Evaluates the unary lane operation `op` on canonical bits `a` of `s`.
pub fn unary(op: Opcode, s: Scalar, a: u64) -> Result<u64, ScalarError> {
    let Some(LaneOp::Unary(uop)) = lane_op(op) else {
        return Err(ScalarError::NotScalarOp(op));
    };
    let r = match s.kind {
        ScalarKind::Float => float_unary(uop, s, a),
        ScalarKind::Bool => bool_unary(uop, a),
        ScalarKind::Sint | ScalarKind::Uint => int_unary(uop, s, a),
    };
    r.map(|r| canon(s, r))
        .ok_or(ScalarError::UnsupportedType { op, scalar: s })
}

fn float_unary(op: UnaryOp, s: Scalar, a: u64) -> Option<u64> {
    use UnaryOp::*;
    let x = to_f64(s, a);
    let f = |v: f64| from_f64(s, v);
    Some(match op {
        Neg => f(-x),
        Abs => f(x.abs()),
        Sign => f(float_sign(x)),
        IsNan => u64::from(x.is_nan()),
        IsInf => u64::from(x.is_infinite()),
        Sin => f(x.sin()),
        Cos => f(x.cos()),
        Tan => f(x.tan()),
        Asin => f(x.asin()),
        Acos => f(x.acos()),
        Atan => f(x.atan()),
        Sinh => f(x.sinh()),
        Cosh => f(x.cosh()),
        Tanh => f(x.tanh()),
        Asinh => f(x.asinh()),
        Acosh => f(x.acosh()),
        Atanh => f(x.atanh()),
        Exp => f(x.exp()),
        Exp2 => f(x.exp2()),
        Exp10 => f(10f64.powf(x)),
        Log => f(x.ln()),
        Log2 => f(x.log2()),
        Log10 => f(x.log10()),
        Sqrt => f(x.sqrt()),
        InverseSqrt => f(1.0 / x.sqrt()),
        Ceil => f(x.ceil()),
        Floor => f(x.floor()),
        Fract => f(x - x.floor()),
        Trunc => f(x.trunc()),
        Round => f(x.round()),
        RoundEven => f(x.round_ties_even()),
        Saturate => f(x.clamp(0.0, 1.0)),
        Degrees => f(x.to_degrees()),
        Radians => f(x.to_radians()),
        Not | CountOnes | CountLeadingZeros | CountTrailingZeros | ReverseBits => return None,
    })
}

/// `sign` of a float: -1, 1, the zero itself for ±0, and 0 for NaN.
fn float_sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else if x.is_nan() {
        0.0
    } else {
        x
    }
}

fn bool_unary(op: UnaryOp, a: u64) -> Option<u64> {
    use UnaryOp::*;
    match op {
        Not => Some(a ^ 1),
        Neg | Abs | Sign | CountOnes | CountLeadingZeros | CountTrailingZeros | ReverseBits
        | IsNan | IsInf | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh | Tanh | Asinh
        | Acosh | Atanh | Exp | Exp2 | Exp10 | Log | Log2 | Log10 | Sqrt | InverseSqrt | Ceil
        | Floor | Fract | Trunc | Round | RoundEven | Saturate | Degrees | Radians => None,
    }
}

fn int_unary(op: UnaryOp, s: Scalar, a: u64) -> Option<u64> {
    use UnaryOp::*;
    let w = width(s);
    let ua = a & mask(s);
    let ia = a as i64;
    Some(match op {
        Neg => ia.wrapping_neg() as u64,
        Abs if s.kind == ScalarKind::Sint => ia.wrapping_abs() as u64,
        Abs => a,
        Sign => ia.signum() as u64,
        Not => !a,
        CountOnes => u64::from(ua.count_ones()),
        CountLeadingZeros => u64::from(ua.leading_zeros() - (64 - w)),
        CountTrailingZeros => u64::from(ua.trailing_zeros().min(w)),
        ReverseBits => ua.reverse_bits() >> (64 - w),
        IsNan | IsInf | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh | Tanh | Asinh
        | Acosh | Atanh | Exp | Exp2 | Exp10 | Log | Log2 | Log10 | Sqrt | InverseSqrt | Ceil
        | Floor | Fract | Trunc | Round | RoundEven | Saturate | Degrees | Radians => return None,
    })
}

/// Evaluates the ternary lane operation `op` (`clamp` on numbers; `fma`, `smoothstep`,
/// `mix` on floats) on canonical bits of `s`.
pub fn ternary(op: Opcode, s: Scalar, a: u64, b: u64, c: u64) -> Result<u64, ScalarError> {
    let Some(LaneOp::Ternary(top)) = lane_op(op) else {
        return Err(ScalarError::NotScalarOp(op));
    };
    let unsupported = ScalarError::UnsupportedType { op, scalar: s };
    match top {
        TernaryOp::Clamp if s.is_bool() => Err(unsupported),
        // WGSL: clamp(e, low, high) = min(max(e, low), high).
        TernaryOp::Clamp => {
            let m = binary(Opcode::Max, s, a, b).map_err(|_| unsupported)?;
            binary(Opcode::Min, s, m, c).map_err(|_| unsupported)
        }
        TernaryOp::Fma | TernaryOp::Smoothstep | TernaryOp::Mix if s.is_float() => {
            Ok(float_ternary(top, s, a, b, c))
        }
        TernaryOp::Fma | TernaryOp::Smoothstep | TernaryOp::Mix => Err(unsupported),
    }
}

fn float_ternary(op: TernaryOp, s: Scalar, a: u64, b: u64, c: u64) -> u64 {
    // Float lane operations on float operands always have a result.
    let f = |op: Opcode, x: u64, y: u64| binary(op, s, x, y).unwrap_or(x);
    let k = |v: f64| from_f64(s, v);
    match op {
        TernaryOp::Fma if s.bits == 32 => {
            let (x, y, z) = (to_f64(s, a), to_f64(s, b), to_f64(s, c));
            u64::from((x as f32).mul_add(y as f32, z as f32).to_bits())
        }
        TernaryOp::Fma => from_f64(s, to_f64(s, a).mul_add(to_f64(s, b), to_f64(s, c))),
        // WGSL: t = clamp((x - low) / (high - low), 0, 1); t * t * (3 - 2 * t), each
        // step rounded to the type.
        TernaryOp::Smoothstep => {
            let q = f(Opcode::Div, f(Opcode::Sub, c, a), f(Opcode::Sub, b, a));
            let t = f(Opcode::Min, f(Opcode::Max, q, k(0.0)), k(1.0));
            let tail = f(Opcode::Sub, k(3.0), f(Opcode::Mul, k(2.0), t));
            f(Opcode::Mul, f(Opcode::Mul, t, t), tail)
        }
        // WGSL: mix(a, b, t) = a * (1 - t) + b * t, each step rounded to the type.
        TernaryOp::Mix => {
            let left = f(Opcode::Mul, a, f(Opcode::Sub, k(1.0), c));
            f(Opcode::Add, left, f(Opcode::Mul, b, c))
        }
        // Not reached from `ternary` (which clamps through `min` and `max` for every
        // numeric type); the same value.
        TernaryOp::Clamp => f(Opcode::Min, f(Opcode::Max, a, b), c),
    }
}

/// `select cond, if_true, if_false` on one lane: `cond` is a canonical bool.
pub fn select(cond: u64, if_true: u64, if_false: u64) -> u64 {
    if cond != 0 {
        if_true
    } else {
        if_false
    }
}

/// `any` (when `any`) or `all` of canonical bool lanes.
pub fn bool_reduce(any: bool, lanes: &[u64]) -> u64 {
    u64::from(if any {
        lanes.iter().any(|&x| x != 0)
    } else {
        lanes.iter().all(|&x| x != 0)
    })
}

/// `extract_bits` (WGSL) on an integer lane `e` of `s`: offset and count are clamped to
/// the width; signed results are sign-extended from bit `count - 1`; a zero count
/// yields 0.
pub fn extract_bits(s: Scalar, e: u64, offset: u64, count: u64) -> Result<u64, ScalarError> {
    require_integer(Opcode::ExtractBits, s)?;
    let w = u64::from(s.bits);
    let o = offset.min(w);
    let c = count.min(w - o);
    if c == 0 {
        return Ok(0);
    }
    let v = ((e & mask(s)) >> o) & low_bits(c);
    let v = if s.kind == ScalarKind::Sint && c < 64 {
        let shift = 64 - c;
        (((v << shift) as i64) >> shift) as u64
    } else {
        v
    };
    Ok(canon(s, v))
}

/// `insert_bits` (WGSL) on integer lanes of `s`: replaces `count` bits of `e` from
/// `offset` by the low bits of `new`; offset and count are clamped to the width.
pub fn insert_bits(
    s: Scalar,
    e: u64,
    new: u64,
    offset: u64,
    count: u64,
) -> Result<u64, ScalarError> {
    require_integer(Opcode::InsertBits, s)?;
    let w = u64::from(s.bits);
    let o = offset.min(w);
    let c = count.min(w - o);
    if c == 0 {
        return Ok(e);
    }
    let field = low_bits(c) << o;
    Ok(canon(s, (e & !field) | ((new << o) & field)))
}

/// The `count` low bits set (`count` at most 64).
fn low_bits(count: u64) -> u64 {
    if count >= 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }
}

fn require_integer(op: Opcode, s: Scalar) -> Result<(), ScalarError> {
    if s.is_integer() {
        Ok(())
    } else {
        Err(ScalarError::UnsupportedType { op, scalar: s })
    }
}

/// Value conversion of one lane from `from` to `to`, defined for every pair of scalar
/// types: float to integer truncates, saturates and maps NaN to 0 (WGSL); integer to
/// float rounds to nearest even; to bool compares with zero; integer widening sign- or
/// zero-extends by the source signedness, narrowing truncates.
pub fn convert(from: Scalar, to: Scalar, a: u64) -> u64 {
    match (from.kind, to.kind) {
        (ScalarKind::Float, ScalarKind::Bool) => u64::from(to_f64(from, a) != 0.0),
        (ScalarKind::Bool | ScalarKind::Sint | ScalarKind::Uint, ScalarKind::Bool) => {
            u64::from(a != 0)
        }
        (ScalarKind::Float, ScalarKind::Float) => from_f64(to, to_f64(from, a)),
        (ScalarKind::Float, ScalarKind::Sint) => float_to_sint(to, to_f64(from, a)),
        (ScalarKind::Float, ScalarKind::Uint) => float_to_uint(to, to_f64(from, a)),
        // Rust's `as` from integers to floats rounds to nearest even, once.
        (ScalarKind::Sint, ScalarKind::Float) if to.bits == 32 => {
            u64::from((a as i64 as f32).to_bits())
        }
        (ScalarKind::Sint, ScalarKind::Float) => from_f64(to, a as i64 as f64),
        (ScalarKind::Uint | ScalarKind::Bool, ScalarKind::Float) if to.bits == 32 => {
            u64::from((a as f32).to_bits())
        }
        (ScalarKind::Uint | ScalarKind::Bool, ScalarKind::Float) => from_f64(to, a as f64),
        // Integer and bool to integer: the canonical bits already carry the sign.
        (ScalarKind::Bool | ScalarKind::Sint | ScalarKind::Uint, ScalarKind::Sint)
        | (ScalarKind::Bool | ScalarKind::Sint | ScalarKind::Uint, ScalarKind::Uint) => {
            canon(to, a)
        }
    }
}

/// Float to signed integer: Rust's `as` truncates toward zero, saturates and maps NaN
/// to 0, as WGSL requires.
fn float_to_sint(to: Scalar, x: f64) -> u64 {
    let v = match to.bits {
        8 => i64::from(x as i8),
        16 => i64::from(x as i16),
        32 => i64::from(x as i32),
        _ => x as i64,
    };
    canon(to, v as u64)
}

/// Float to unsigned integer, as [`float_to_sint`].
fn float_to_uint(to: Scalar, x: f64) -> u64 {
    let v = match to.bits {
        8 => u64::from(x as u8),
        16 => u64::from(x as u16),
        32 => u64::from(x as u32),
        _ => x as u64,
    };
    canon(to, v)
}

/// `bitcast` of one lane between non-bool scalars of the same width: the same bits,
/// canonical for `to`.
pub fn bitcast(from: Scalar, to: Scalar, a: u64) -> Result<u64, ScalarError> {
    if from.is_bool() || to.is_bool() || from.bits != to.bits {
        let scalar = if from.is_bool() { from } else { to };
        return Err(ScalarError::UnsupportedType {
            op: Opcode::Bitcast,
            scalar,
        });
    }
    Ok(canon(to, a & mask(from)))
}
