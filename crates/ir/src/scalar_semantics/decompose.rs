//! `ldexp`, `frexp` and `modf`: building a float from a significand and an exponent, and
//! taking one apart. Every result is exact or rounded once to the float type.
//!
//! - [`ldexp`]`(x, e) = x * 2^e`, rounded once (so a subnormal or overflowing result is
//!   the nearest representable value, `±inf` past the largest). WGSL leaves the result
//!   indeterminate when `e > bias + 1` and allows zero when `e + bias <= 0`; the
//!   interpreter gives the exact product then too (targets may differ there, which is why
//!   the op is not foldable).
//! - [`frexp`]`(x) = (fract, exp)` with `x = fract * 2^exp` and `0.5 <= |fract| < 1`;
//!   zeros give `(x, 0)` (the sign of zero kept), and infinities and NaN, for which WGSL
//!   and GLSL.std.450 define no exponent, give `(x, 0)` as C's `frexp` does.
//! - [`modf`]`(x) = (fract, whole)` with `whole = trunc x` and `fract = x - whole`, both
//!   with the sign of `x` (GLSL.std.450 `ModfStruct`: `modf(-2.0) = (-0.0, -2.0)`);
//!   infinities give `(±0, ±inf)`, NaN gives `(NaN, NaN)`.
//!
//! Exponents are `i32` canonical bits (sign-extended).

use super::{from_f64, to_f64, ScalarError};
use crate::{Opcode, Scalar};

fn require_float(op: Opcode, s: Scalar) -> Result<(), ScalarError> {
    if s.is_float() {
        Ok(())
    } else {
        Err(ScalarError::UnsupportedType { op, scalar: s })
    }
}

/// The canonical `i32` bits of `e`.
fn i32_bits(e: i32) -> u64 {
    i64::from(e) as u64
}

/// `2^k` as an f64 for `-1022 <= k <= 1023` (a normal power of two, exact).
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x * 2^e` in f64, rounded once. Each step before the last multiplies by a normal power
/// of two whose product stays normal (exact), or underflows only where the final result
/// is below half the smallest subnormal anyway (zero either way).
fn scale_f64(x: f64, e: i64) -> f64 {
    let mut y = x;
    let mut n = e.clamp(-2200, 2200) as i32;
    while n > 1023 {
        y *= pow2(1023);
        n -= 1023;
    }
    while n < -1022 {
        // 2^-969 = 2^-1022 * 2^53: keeps a normal `y` normal while n catches up.
        y *= pow2(-969);
        n += 969;
    }
    y * pow2(n)
}

/// `ldexp x, e` on canonical bits: `x` of the float type `s`, `e` canonical `i32` bits.
pub fn ldexp(s: Scalar, x: u64, e: u64) -> Result<u64, ScalarError> {
    require_float(Opcode::Ldexp, s)?;
    let v = to_f64(s, x);
    let e = e as i64;
    let r = if s.bits == 64 {
        scale_f64(v, e)
    } else {
        // f16 and f32 values times 2^e with |e| <= 400 are exact in f64 (normal there),
        // so the conversion below is the one rounding; beyond that the result is 0 or
        // inf in both types.
        v * 2f64.powi(e.clamp(-400, 400) as i32)
    };
    Ok(from_f64(s, r))
}

/// The significand in [0.5, 1) (with `v`'s sign) and exponent of a finite nonzero f64.
fn split_f64(v: f64) -> (f64, i32) {
    let (v, bias) = if v.abs() < f64::MIN_POSITIVE {
        (v * pow2(64), 64)
    } else {
        (v, 0)
    };
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fract = f64::from_bits((bits & !(0x7ff << 52)) | (1022 << 52));
    (fract, biased - 1022 - bias)
}

/// `frexp x` on canonical bits of the float type `s`: `(fract bits, exp as i32 bits)`.
pub fn frexp(s: Scalar, x: u64) -> Result<(u64, u64), ScalarError> {
    require_float(Opcode::Frexp, s)?;
    let v = to_f64(s, x);
    if v == 0.0 || !v.is_finite() {
        return Ok((x, 0));
    }
    let (fract, exp) = split_f64(v);
    // `fract` has `x`'s significand, so it is exact in `s`.
    Ok((from_f64(s, fract), i32_bits(exp)))
}

/// `modf x` on canonical bits of the float type `s`: `(fract bits, whole bits)`.
pub fn modf(s: Scalar, x: u64) -> Result<(u64, u64), ScalarError> {
    require_float(Opcode::Modf, s)?;
    let v = to_f64(s, x);
    let whole = v.trunc();
    let fract = if v.is_infinite() {
        0f64.copysign(v)
    } else {
        // Exact: `v` and `trunc v` share the exponent range of `s`.
        (v - whole).copysign(v)
    };
    Ok((from_f64(s, fract), from_f64(s, whole)))
}
