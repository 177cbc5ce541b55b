//! Scalar semantics: every lane-wise operation on canonical scalar bits.
//!
//! Bits are canonical as in `oxir_ir::constants`: integers truncated to their width and
//! sign-extended when signed, bools 0 or 1, floats their IEEE pattern in the low bits.

use oxir_ir::constants::canonical_scalar_bits;
use oxir_ir::{Opcode, Scalar, ScalarKind};

/// Canonical bits of `s` from raw bits.
#[inline]
pub fn canon(s: Scalar, bits: u64) -> u64 {
    canonical_scalar_bits(s, bits)
}

/// The float value of canonical float bits.
#[inline]
pub fn to_f64(s: Scalar, bits: u64) -> f64 {
    match s.bits {
        16 => half::f16::from_bits(bits as u16).to_f64(),
        32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// Float bits of `s` from an f64, rounding to nearest even.
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

/// Binary lane operation. `None` when the opcode is not a binary lane op.
pub fn binary(op: Opcode, s: Scalar, a: u64, b: u64) -> Option<u64> {
    use Opcode::*;
    let r = match s.kind {
        ScalarKind::Float => {
            let (x, y) = (to_f64(s, a), to_f64(s, b));
            let f = |v: f64| from_f64(s, v);
            match op {
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
                _ => return None,
            }
        }
        ScalarKind::Bool => match op {
            And => a & b,
            Or => a | b,
            Xor => a ^ b,
            Eq => u64::from(a == b),
            Ne => u64::from(a != b),
            _ => return None,
        },
        ScalarKind::Sint | ScalarKind::Uint => {
            let signed = s.kind == ScalarKind::Sint;
            let w = width(s);
            let m = mask(s);
            let (ia, ib) = (a as i64, b as i64);
            let (ua, ub) = (a & m, b & m);
            match op {
                Add => a.wrapping_add(b),
                Sub => a.wrapping_sub(b),
                Mul => a.wrapping_mul(b),
                Div => {
                    if ub == 0 {
                        a
                    } else if signed {
                        // i64 holds the sign-extended value: INT_MIN / -1 wraps to INT_MIN
                        // after canonicalisation (and wrapping_div for i64 itself).
                        ia.wrapping_div(ib) as u64
                    } else {
                        ua / ub
                    }
                }
                Rem => {
                    if ub == 0 {
                        0
                    } else if signed {
                        ia.wrapping_rem(ib) as u64
                    } else {
                        ua % ub
                    }
                }
                Min => {
                    if signed {
                        ia.min(ib) as u64
                    } else {
                        ua.min(ub)
                    }
                }
                Max => {
                    if signed {
                        ia.max(ib) as u64
                    } else {
                        ua.max(ub)
                    }
                }
                And => a & b,
                Or => a | b,
                Xor => a ^ b,
                Shl => ua << (ub as u32 % w),
                Shr => {
                    let sh = ub as u32 % w;
                    if signed {
                        (ia >> sh) as u64
                    } else {
                        ua >> sh
                    }
                }
                Rotl | Rotr => {
                    let sh = ub as u32 % w;
                    let sh = if op == Rotl { sh } else { (w - sh) % w };
                    if sh == 0 {
                        ua
                    } else {
                        ((ua << sh) | (ua >> (w - sh))) & m
                    }
                }
                Eq => u64::from(ua == ub),
                Ne => u64::from(ua != ub),
                Lt => u64::from(if signed { ia < ib } else { ua < ub }),
                Le => u64::from(if signed { ia <= ib } else { ua <= ub }),
                Gt => u64::from(if signed { ia > ib } else { ua > ub }),
                Ge => u64::from(if signed { ia >= ib } else { ua >= ub }),
                _ => return None,
            }
        }
    };
    let is_compare = matches!(op, Eq | Ne | Lt | Le | Gt | Ge);
    Some(if is_compare { r } else { canon(s, r) })
}

/// Unary lane operation (result of the same scalar type, or bool for classification).
pub fn unary(op: Opcode, s: Scalar, a: u64) -> Option<u64> {
    use Opcode::*;
    let r = match s.kind {
        ScalarKind::Float => {
            let x = to_f64(s, a);
            let f = |v: f64| from_f64(s, v);
            match op {
                Neg => f(-x),
                Abs => f(x.abs()),
                Sign => f(if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else if x.is_nan() {
                    0.0
                } else {
                    x
                }),
                IsNan => return Some(u64::from(x.is_nan())),
                IsInf => return Some(u64::from(x.is_infinite())),
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
                // A single invocation has no neighbours: derivatives are 0.
                Dpdx | Dpdy | Fwidth | DpdxCoarse | DpdyCoarse | FwidthCoarse | DpdxFine
                | DpdyFine | FwidthFine => f(0.0),
                _ => return None,
            }
        }
        ScalarKind::Bool => match op {
            Not => a ^ 1,
            _ => return None,
        },
        ScalarKind::Sint | ScalarKind::Uint => {
            let w = width(s);
            let m = mask(s);
            let ua = a & m;
            let ia = a as i64;
            match op {
                Neg => ia.wrapping_neg() as u64,
                Abs => {
                    if s.kind == ScalarKind::Sint {
                        ia.wrapping_abs() as u64
                    } else {
                        a
                    }
                }
                Sign => ia.signum() as u64,
                Not => !a,
                CountOnes => u64::from(ua.count_ones()),
                CountLeadingZeros => u64::from(ua.leading_zeros() - (64 - w)),
                CountTrailingZeros => u64::from(ua.trailing_zeros().min(w)),
                ReverseBits => ua.reverse_bits() >> (64 - w),
                _ => return None,
            }
        }
    };
    Some(canon(s, r))
}

/// Ternary float lane operations (`fma`, `smoothstep`, `mix`, `clamp`).
pub fn ternary(op: Opcode, s: Scalar, a: u64, b: u64, c: u64) -> Option<u64> {
    use Opcode::*;
    if op == Clamp {
        // WGSL: clamp(e, low, high) = min(max(e, low), high).
        let m = binary(Max, s, a, b)?;
        return binary(Min, s, m, c);
    }
    if s.kind != ScalarKind::Float {
        return None;
    }
    let (x, y, z) = (to_f64(s, a), to_f64(s, b), to_f64(s, c));
    let v = match op {
        Fma => {
            if s.bits == 32 {
                return Some(u64::from((x as f32).mul_add(y as f32, z as f32).to_bits()));
            }
            x.mul_add(y, z)
        }
        Smoothstep => {
            let t = ((z - x) / (y - x)).clamp(0.0, 1.0);
            t * t * (3.0 - 2.0 * t)
        }
        Mix => x * (1.0 - z) + y * z,
        _ => return None,
    };
    Some(from_f64(s, v))
}

/// `extract_bits` (WGSL): offset and count clamped to the width; signed results are
/// sign-extended from bit `count - 1`; a zero count yields 0.
pub fn extract_bits(s: Scalar, e: u64, offset: u64, count: u64) -> u64 {
    let w = u64::from(s.bits);
    let o = offset.min(w);
    let c = count.min(w - o);
    if c == 0 {
        return 0;
    }
    let v = ((e & mask(s)) >> o) & if c >= 64 { u64::MAX } else { (1u64 << c) - 1 };
    let v = if s.kind == ScalarKind::Sint && c < 64 {
        let shift = 64 - c;
        (((v << shift) as i64) >> shift) as u64
    } else {
        v
    };
    canon(s, v)
}

/// `insert_bits` (WGSL): offset and count clamped to the width.
pub fn insert_bits(s: Scalar, e: u64, new: u64, offset: u64, count: u64) -> u64 {
    let w = u64::from(s.bits);
    let o = offset.min(w);
    let c = count.min(w - o);
    if c == 0 {
        return e;
    }
    let field = if c >= 64 { u64::MAX } else { (1u64 << c) - 1 } << o;
    canon(s, (e & !field) | ((new << o) & field))
}

/// Value conversion of one lane from `from` to `to`: float → int saturates and maps NaN
/// to 0 (WGSL); int → float rounds to nearest; to bool compares with zero; integer
/// widening sign- or zero-extends by the source signedness, narrowing truncates.
pub fn convert(from: Scalar, to: Scalar, a: u64) -> u64 {
    match (from.kind, to.kind) {
        (_, ScalarKind::Bool) => match from.kind {
            ScalarKind::Float => u64::from(to_f64(from, a) != 0.0),
            _ => u64::from(a != 0),
        },
        (ScalarKind::Float, ScalarKind::Float) => from_f64(to, to_f64(from, a)),
        (ScalarKind::Float, ScalarKind::Sint) => {
            let x = to_f64(from, a);
            let v = match to.bits {
                8 => x as i8 as i64,
                16 => x as i16 as i64,
                32 => x as i32 as i64,
                _ => x as i64,
            };
            canon(to, v as u64)
        }
        (ScalarKind::Float, ScalarKind::Uint) => {
            let x = to_f64(from, a);
            let v = match to.bits {
                8 => u64::from(x as u8),
                16 => u64::from(x as u16),
                32 => u64::from(x as u32),
                _ => x as u64,
            };
            canon(to, v)
        }
        (ScalarKind::Sint, ScalarKind::Float) => {
            if to.bits == 32 {
                u64::from((a as i64 as f32).to_bits())
            } else {
                from_f64(to, a as i64 as f64)
            }
        }
        (ScalarKind::Uint | ScalarKind::Bool, ScalarKind::Float) => {
            if to.bits == 32 {
                u64::from((a as f32).to_bits())
            } else {
                from_f64(to, a as f64)
            }
        }
        // Integer and bool to integer: the canonical bits already carry the sign.
        (_, _) => canon(to, a),
    }
}
