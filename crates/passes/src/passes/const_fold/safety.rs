//! Which folds every target computes identically: [`fold_rule`] classifies every opcode
//! (exhaustively, so a new opcode must be decided here), and [`lanes_are_safe`] checks
//! one evaluated lane against the conditions of its class.
//!
//! The targets: the interpreter (exact: `oxir_ir::scalar_semantics`), LLVM (IEEE,
//! round-to-nearest-even, subnormals kept) and SPIR-V on Vulkan, whose environment says:
//! the rounding mode "cannot be set and is undefined" (round to nearest even or toward
//! zero in practice), subnormal inputs and results "may be flushed to 0", NaNs "may not
//! be generated", `OpFDiv` has 2.5 ULP, GLSL.std.450 `sqrt` inherits `inversesqrt`'s
//! 2 ULP, `fma` may be an unfused multiply and add, `round` rounds halves "in a
//! direction chosen by the implementation", and `FMin`/`FMax`/`FClamp` may return
//! either zero when both are zeros. Hence, on float lanes:
//!
//! - no input or result lane may be NaN or subnormal (for every op, comparisons and
//!   conversions included);
//! - `add`, `sub`, `mul` and conversions to a float type fold only when the result is
//!   exact (no rounding happened), so every rounding mode gives it: checked with the
//!   scalar-semantics module itself (Fast2Sum for `add`/`sub`; the error of the product
//!   through an exact wider product or `fma` for `mul`; a round trip for conversions);
//! - `min`, `max`, `clamp` do not fold with zeros of both signs among the operands,
//!   `saturate` not on `-0.0`, `sign` not on a zero, `round` not on a half;
//! - `div`, `rem`, `fma`, `fract` (a subtraction that may round), `sqrt`,
//!   `inverse_sqrt`, `smoothstep`, `mix` and the elementary functions never fold;
//!   neither do `ldexp`, `frexp` and `modf` (see [`Never::ExponentRange`]).
//!
//! Integer and bool lanes always fold: the IR defines every case (`scalar_semantics`:
//! `x / 0 = x`, `x % 0 = 0`, `MIN / -1 = MIN`, `MIN % -1 = 0`, shift amounts modulo the
//! width), and both back-ends implement exactly that (SPIR-V `writer/arith.rs` and LLVM
//! `writer/arith.rs` divide by 1 when the divisor is 0 or the signed division overflows,
//! and mask shift amounts to the width). The one exception is `abs` of a signed `MIN`,
//! which GLSL.std.450 `SAbs` does not pin down: not folded.
//!
//! Float to integer conversions fold (the back-ends saturate and map NaN to 0 exactly as
//! the IR does, and NaN inputs are refused anyway). Bitcasts fold lane by lane when the
//! lane widths agree; a bitcast that regroups lanes (`vec2<u32>` to `u64`) does not.
//! Derivatives, special registers, textures, memory, calls and control flow are never
//! folded (their values are only known when the kernel runs); neither are the vector
//! and matrix operations (`dot`, `length`, matrix products: sums rounded in an order the
//! targets choose).

use oxir_ir::scalar_semantics::{self as sem, to_f64};
use oxir_ir::{Opcode, Scalar, ScalarKind};

/// How an opcode may be folded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FoldRule {
    /// Never folded.
    Never(Never),
    /// Evaluated lane by lane through `scalar_semantics`, each lane checked by
    /// [`lanes_are_safe`].
    Lanes(LaneCheck),
    /// Moves constants (and for `select`, values) without computing: composites and
    /// `select`.
    Structural,
}

/// Why an opcode is never folded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Never {
    /// Targets approximate it (elementary functions, `sqrt`, `inverse_sqrt`,
    /// `smoothstep`, `mix`, float-only `fma`, `fract`).
    Approximated,
    /// `ldexp`, `frexp`, `modf`: WGSL lets `ldexp` return zero when `e + bias <= 0` and
    /// leaves it indeterminate past `bias + 1`, and targets may flush the subnormal
    /// inputs and results `frexp` and `modf` see; their struct results are no lanes either.
    ExponentRange,
    /// Vector and matrix arithmetic: rounded sums in a target-chosen order.
    LinearAlgebra,
    /// Its value is only known at run time, or it has effects (memory, textures,
    /// special registers, derivatives, subgroup collectives, calls, debugging, control
    /// flow).
    RunTime,
}

/// The condition a lane fold must meet, beyond the NaN / subnormal rule on every float
/// lane.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LaneCheck {
    /// Nothing more: the result is exact on every target.
    Exact,
    /// Float results must be exact (`add`, `sub`, `mul`).
    ExactFloatResult,
    /// Integers and bools only (`div`, `rem`: float division is approximated).
    IntegerOnly,
    /// Float `min`, `max`, `clamp`: not with zeros of both signs.
    SignedZeros,
    /// Float `saturate`: not on `-0.0`.
    Saturate,
    /// Float `sign`: not on a zero.
    Sign,
    /// `round`: not on a half (the direction is the implementation's).
    Round,
    /// `abs`: not on a signed `MIN`.
    Abs,
    /// `convert`: a float result must be exact.
    Convert,
    /// `bitcast`: lane widths must agree.
    Bitcast,
}

/// The fold rule of `op`. Lists every opcode.
pub fn fold_rule(op: Opcode) -> FoldRule {
    use FoldRule::{Lanes as L, Never as N};
    use LaneCheck as C;
    use Opcode::*;
    match op {
        Add | Sub | Mul => L(C::ExactFloatResult),
        Div | Rem => L(C::IntegerOnly),
        Min | Max | Clamp => L(C::SignedZeros),
        Saturate => L(C::Saturate),
        Sign => L(C::Sign),
        Round => L(C::Round),
        Abs => L(C::Abs),
        Convert => L(C::Convert),
        Bitcast => L(C::Bitcast),
        Neg | And | Or | Xor | Not | Shl | Shr | Rotl | Rotr | CountOnes | CountLeadingZeros
        | CountTrailingZeros | ReverseBits | ExtractBits | InsertBits | Eq | Ne | Lt | Le | Gt
        | Ge | IsNan | IsInf | Any | All | Ceil | Floor | Trunc | RoundEven | CopySign | Step => {
            L(C::Exact)
        }
        Select | Construct | Splat | Extract | Insert | ExtractDynamic | InsertDynamic
        | Shuffle => FoldRule::Structural,
        Sin | Cos | Tan | Asin | Acos | Atan | Atan2 | Sinh | Cosh | Tanh | Asinh | Acosh
        | Atanh | Exp | Exp2 | Exp10 | Log | Log2 | Log10 | Pow | Sqrt | InverseSqrt | Fract
        | Fma | Smoothstep | Mix | Degrees | Radians => N(Never::Approximated),
        Ldexp | Frexp | Modf => N(Never::ExponentRange),
        Dot | Cross | Length | Distance | Normalize | Reflect | FaceForward | ReduceAdd
        | ReduceMul | ReduceMin | ReduceMax | OuterProduct | MatrixTimesMatrix
        | MatrixTimesVector | VectorTimesMatrix | MatrixTimesScalar | Transpose | Determinant
        | Inverse => N(Never::LinearAlgebra),
        Alloca
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
        | Continue => N(Never::RunTime),
    }
}

/// The smallest positive normal value of the float type `s`.
fn min_normal(s: Scalar) -> f64 {
    match s.bits {
        16 => 2f64.powi(-14),
        32 => 2f64.powi(-126),
        _ => f64::MIN_POSITIVE,
    }
}

/// Whether a lane of `s` is neither NaN nor subnormal (always, for non-floats).
pub fn float_lane_ok(s: Scalar, bits: u64) -> bool {
    if !s.is_float() {
        return true;
    }
    let v = to_f64(s, bits);
    !v.is_nan() && (v == 0.0 || v.abs() >= min_normal(s))
}

fn is_zero(s: Scalar, bits: u64) -> bool {
    s.is_float() && to_f64(s, bits) == 0.0
}

fn is_neg_zero(s: Scalar, bits: u64) -> bool {
    is_zero(s, bits) && to_f64(s, bits).is_sign_negative()
}

fn is_inf(s: Scalar, bits: u64) -> bool {
    s.is_float() && to_f64(s, bits).is_infinite()
}

/// One evaluated lane: its operand scalar and bits, its result scalar and bits.
pub struct Lane<'a> {
    /// The opcode.
    pub op: Opcode,
    /// The scalar type of the (first) operand.
    pub operand: Scalar,
    /// The operand lanes that are of type `operand` (shift amounts, bit offsets and
    /// counts are integers and not listed).
    pub inputs: &'a [u64],
    /// The result's scalar type.
    pub result: Scalar,
    /// The result lane.
    pub output: u64,
}

/// Whether folding this lane gives what every target computes.
pub fn lanes_are_safe(check: LaneCheck, lane: &Lane<'_>) -> bool {
    let s = lane.operand;
    if !lane.inputs.iter().all(|&b| float_lane_ok(s, b)) || !float_lane_ok(lane.result, lane.output)
    {
        return false;
    }
    match check {
        LaneCheck::Exact | LaneCheck::Bitcast => true,
        LaneCheck::IntegerOnly => !s.is_float(),
        LaneCheck::ExactFloatResult => !s.is_float() || exact_arith(lane).unwrap_or(false),
        LaneCheck::SignedZeros => {
            let pos = lane
                .inputs
                .iter()
                .any(|&b| is_zero(s, b) && !is_neg_zero(s, b));
            let neg = lane.inputs.iter().any(|&b| is_neg_zero(s, b));
            !(pos && neg)
        }
        LaneCheck::Saturate => !lane.inputs.iter().any(|&b| is_neg_zero(s, b)),
        LaneCheck::Sign => !lane.inputs.iter().any(|&b| is_zero(s, b)),
        LaneCheck::Round => lane.inputs.iter().all(|&b| !is_half(s, b).unwrap_or(true)),
        LaneCheck::Abs => {
            s.kind != ScalarKind::Sint
                || lane
                    .inputs
                    .iter()
                    .all(|&b| b != sem::canon(s, 1u64 << (s.bits - 1)))
        }
        LaneCheck::Convert => {
            !lane.result.is_float() || exact_conversion(s, lane.inputs, lane.result, lane.output)
        }
    }
}

/// Whether `x - trunc(x)` is ±0.5 (computed exactly: the subtraction of the truncation
/// is exact); `None` when scalar semantics refuses.
fn is_half(s: Scalar, x: u64) -> Option<bool> {
    if !s.is_float() {
        return Some(false);
    }
    let t = sem::unary(Opcode::Trunc, s, x).ok()?;
    let d = sem::binary(Opcode::Sub, s, x, t).ok()?;
    Some(to_f64(s, d).abs() == 0.5)
}

/// Whether float `add` / `sub` / `mul` computed its result without rounding.
fn exact_arith(lane: &Lane<'_>) -> Option<bool> {
    let s = lane.operand;
    let (&[a, b], r) = (lane.inputs, lane.output) else {
        return None;
    };
    if is_inf(s, a) || is_inf(s, b) {
        // Infinite operands give an infinite (or NaN, refused earlier) result exactly.
        return Some(true);
    }
    if is_inf(s, r) {
        return Some(false); // overflow
    }
    match lane.op {
        Opcode::Add => exact_sum(s, a, b, r),
        Opcode::Sub => exact_sum(s, a, sem::unary(Opcode::Neg, s, b).ok()?, r),
        Opcode::Mul => exact_product(s, a, b, r),
        // wildcard-ok: only the `ExactFloatResult` class (add, sub, mul) reaches here; any other op is refused
        _ => None,
    }
}

/// Fast2Sum (exact under round-to-nearest, which `scalar_semantics` uses): with
/// `|big| >= |small|`, `r - big` is computed exactly, and the sum was exact iff that
/// difference is `small`.
fn exact_sum(s: Scalar, a: u64, b: u64, r: u64) -> Option<bool> {
    let abs = |x| sem::unary(Opcode::Abs, s, x).ok();
    let a_is_big = sem::binary(Opcode::Ge, s, abs(a)?, abs(b)?).ok()? != 0;
    let (big, small) = if a_is_big { (a, b) } else { (b, a) };
    let z = sem::binary(Opcode::Sub, s, r, big).ok()?;
    Some(sem::binary(Opcode::Eq, s, z, small).ok()? != 0)
}

/// Whether `a * b` is exactly `r`: for f16 and f32 the f64 product is exact, so compare
/// it with `r` widened; for f64 the fused `a * b - r` is the exact error unless it
/// underflows, so tiny nonzero results are refused.
fn exact_product(s: Scalar, a: u64, b: u64, r: u64) -> Option<bool> {
    if s.bits < 64 {
        let wide = |x| sem::convert(s, Scalar::F64, x);
        let p = sem::binary(Opcode::Mul, Scalar::F64, wide(a), wide(b)).ok()?;
        return Some(p == wide(r));
    }
    let rv = to_f64(s, r);
    if rv == 0.0 {
        return Some(to_f64(s, a) == 0.0 || to_f64(s, b) == 0.0);
    }
    if rv.abs() < 2f64.powi(-900) {
        return Some(false);
    }
    let minus_r = sem::unary(Opcode::Neg, s, r).ok()?;
    let err = sem::ternary(Opcode::Fma, s, a, b, minus_r).ok()?;
    Some(to_f64(s, err) == 0.0)
}

/// Whether converting `inputs[0]` of `from` gave the float `r` of `to` without rounding.
fn exact_conversion(from: Scalar, inputs: &[u64], to: Scalar, r: u64) -> bool {
    let (Some(&a), rv) = (inputs.first(), to_f64(to, r)) else {
        return false;
    };
    match from.kind {
        ScalarKind::Bool => true,
        // Widening is exact; narrowing is exact iff the value survives the round trip.
        ScalarKind::Float => sem::convert(to, from, r) == a,
        ScalarKind::Sint | ScalarKind::Uint => {
            let value = if from.kind == ScalarKind::Sint {
                i128::from(a as i64)
            } else {
                i128::from(a)
            };
            rv.is_finite() && rv.fract() == 0.0 && rv as i128 == value
        }
    }
}
