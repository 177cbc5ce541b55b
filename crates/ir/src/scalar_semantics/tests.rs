//! Two kinds of tests of the scalar semantics:
//!
//! - **Totality against the op table**: every opcode, on every scalar type and a set of
//!   interesting inputs, either evaluates to canonical bits or is refused with a typed
//!   error that does not depend on the input values; and no foldable op is refused on a
//!   scalar type its type rule admits (so the table's `foldable` column is checked here).
//! - **Known answers** for the rules that are easy to get wrong, written out by hand.

use super::*;
use crate::ops::{OpFamily, TypeRule};

const INTS: [Scalar; 8] = [
    Scalar::I8,
    Scalar::I16,
    Scalar::I32,
    Scalar::I64,
    Scalar::U8,
    Scalar::U16,
    Scalar::U32,
    Scalar::U64,
];
const FLOATS: [Scalar; 3] = [Scalar::F16, Scalar::F32, Scalar::F64];

/// The scalar element types `rule` admits for the operands, read off the rule by hand.
/// Rules of ops without lane semantics admit none.
fn admitted(rule: TypeRule) -> Vec<Scalar> {
    let ints = INTS.to_vec();
    let floats = FLOATS.to_vec();
    let signed: Vec<Scalar> = INTS.iter().copied().filter(|s| s.is_signed()).collect();
    let numeric = [ints.clone(), floats.clone()].concat();
    match rule {
        TypeRule::SameNumeric { .. } => numeric,
        TypeRule::SameSigned => [signed, floats].concat(),
        TypeRule::SameInteger | TypeRule::Shift | TypeRule::ExtractBits | TypeRule::InsertBits => {
            ints
        }
        TypeRule::SameIntegerOrBool => [ints, vec![Scalar::BOOL]].concat(),
        TypeRule::SameFloat
        | TypeRule::FloatClassify
        | TypeRule::Ldexp
        | TypeRule::Frexp
        | TypeRule::Modf => floats,
        TypeRule::Compare { bools: true } => [numeric, vec![Scalar::BOOL]].concat(),
        TypeRule::Compare { bools: false } => numeric,
        TypeRule::Select | TypeRule::Convert => Scalar::ALL.to_vec(),
        TypeRule::BoolReduce => vec![Scalar::BOOL],
        TypeRule::Bitcast => numeric,
        _ => Vec::new(),
    }
}

/// Interesting canonical inputs of `s`: 0, 1, -1, MIN, MAX, shift amounts around the
/// width, alternating bits; for floats ±0, ±1, ±inf, NaN, the smallest and largest
/// subnormals, the smallest normal, the largest finite values and halfway cases.
fn inputs(s: Scalar) -> Vec<u64> {
    match s.kind {
        ScalarKind::Bool => vec![0, 1],
        ScalarKind::Sint | ScalarKind::Uint => {
            let w = u64::from(s.bits);
            let raw = [
                0,
                1,
                2,
                u64::MAX,
                1 << (w - 1),
                (1 << (w - 1)) - 1,
                w - 1,
                w,
                w + 1,
                0x5555_5555_5555_5555,
                0xAAAA_AAAA_AAAA_AAAA,
            ];
            raw.iter().map(|&x| canon(s, x)).collect()
        }
        ScalarKind::Float => {
            let values = [
                0.0,
                -0.0,
                1.0,
                -1.0,
                0.5,
                2.5,
                -2.5,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                1e300,
                -1e300,
            ];
            let mut bits: Vec<u64> = values.iter().map(|&v| from_f64(s, v)).collect();
            let (mantissa, exponent_one) = match s.bits {
                16 => (10, 1u64 << 10),
                32 => (23, 1u64 << 23),
                _ => (52, 1u64 << 52),
            };
            bits.push(1); // smallest subnormal
            bits.push((1 << mantissa) - 1); // largest subnormal
            bits.push(exponent_one); // smallest normal
                                     // The largest finite value: all bits but the sign and the lowest exponent bit.
            bits.push((u64::MAX >> (64 - s.bits) >> 1) & !exponent_one);
            bits
        }
    }
}

/// The scalar type of the result lanes of `op` on operands of `s`.
fn result_scalar(op: LaneOp, s: Scalar) -> Scalar {
    use BinaryOp::*;
    match op {
        LaneOp::Binary(Eq | Ne | Lt | Le | Gt | Ge)
        | LaneOp::Unary(UnaryOp::IsNan | UnaryOp::IsInf)
        | LaneOp::BoolReduce { .. } => Scalar::BOOL,
        _ => s,
    }
}

/// Evaluates `op` on every combination of the interesting inputs of `s` (for `convert`
/// and `bitcast`, to every target type) and returns whether it was refused. Panics when
/// a result is not canonical or the refusal depends on the inputs.
fn evaluate_everywhere(op: Opcode, lane: LaneOp, s: Scalar) -> bool {
    let xs = inputs(s);
    let mut outcomes: Vec<Result<(u64, Scalar), ScalarError>> = Vec::new();
    let small: Vec<u64> = xs.iter().copied().step_by(2).collect();
    let counts = [0, 1, 7, 8, 31, 32, 33, 64, 65, u64::from(u32::MAX)];
    let rs = result_scalar(lane, s);
    match lane {
        LaneOp::Unary(_) => {
            for &a in &xs {
                outcomes.push(unary(op, s, a).map(|r| (r, rs)));
            }
        }
        LaneOp::Binary(_) => {
            for &a in &xs {
                for &b in &xs {
                    outcomes.push(binary(op, s, a, b).map(|r| (r, rs)));
                }
            }
        }
        LaneOp::Ternary(_) => {
            for &a in &small {
                for &b in &small {
                    for &c in &small {
                        outcomes.push(ternary(op, s, a, b, c).map(|r| (r, rs)));
                    }
                }
            }
        }
        LaneOp::Select => {
            for &a in &xs {
                outcomes.push(Ok((select(1, a, 0), s)));
                outcomes.push(Ok((select(0, 0, a), s)));
            }
        }
        LaneOp::BoolReduce { any } => {
            outcomes.push(Ok((bool_reduce(any, &xs), rs)));
        }
        LaneOp::ExtractBits => {
            for &e in &xs {
                for &o in &counts {
                    for &c in &counts {
                        outcomes.push(extract_bits(s, e, o, c).map(|r| (r, s)));
                    }
                }
            }
        }
        LaneOp::InsertBits => {
            for &e in &small {
                for &n in &small {
                    for &o in &counts {
                        for &c in &counts {
                            outcomes.push(insert_bits(s, e, n, o, c).map(|r| (r, s)));
                        }
                    }
                }
            }
        }
        LaneOp::Convert => {
            for to in Scalar::ALL {
                for &a in &xs {
                    outcomes.push(Ok((convert(s, to, a), to)));
                }
            }
        }
        LaneOp::Bitcast => {
            // Refused only for bools; widths are checked in `bitcast_needs_equal_widths`.
            for to in Scalar::ALL
                .into_iter()
                .filter(|t| t.bits == s.bits && !t.is_bool())
            {
                for &a in &xs {
                    outcomes.push(bitcast(s, to, a).map(|r| (r, to)));
                }
            }
        }
        LaneOp::Ldexp => {
            let exponents = [0, 1, -1, 24, -24, 127, 128, -126, -149, -150, 1023, -1074];
            for &a in &xs {
                for e in exponents.into_iter().chain([i32::MIN, i32::MAX]) {
                    outcomes.push(ldexp(s, a, int(i64::from(e))).map(|r| (r, s)));
                }
            }
        }
        LaneOp::Frexp | LaneOp::Modf => {
            for &a in &xs {
                let (second_scalar, parts) = if lane == LaneOp::Frexp {
                    (Scalar::I32, frexp(s, a))
                } else {
                    (s, modf(s, a))
                };
                match parts {
                    Ok((first, second)) => {
                        outcomes.push(Ok((first, s)));
                        outcomes.push(Ok((second, second_scalar)));
                    }
                    Err(e) => outcomes.push(Err(e)),
                }
            }
        }
    }
    let refused = outcomes.iter().filter(|o| o.is_err()).count();
    assert!(
        refused == 0 || refused == outcomes.len(),
        "{op} on {}: refused for some inputs only",
        s.name()
    );
    for outcome in &outcomes {
        match outcome {
            Ok((r, rs)) => assert_eq!(
                canon(*rs, *r),
                *r,
                "{op} on {}: result {r:#x} is not canonical {}",
                s.name(),
                rs.name()
            ),
            Err(e) => assert_eq!(
                *e,
                ScalarError::UnsupportedType { op, scalar: s },
                "{op} on {}",
                s.name()
            ),
        }
    }
    refused > 0 && refused == outcomes.len()
}

#[test]
fn every_opcode_evaluates_or_refuses_with_a_typed_error() {
    let mut evaluated = 0;
    for &op in Opcode::ALL {
        let Some(lane) = lane_op(op) else {
            for s in Scalar::ALL {
                assert_eq!(unary(op, s, 0), Err(ScalarError::NotScalarOp(op)));
                assert_eq!(binary(op, s, 0, 0), Err(ScalarError::NotScalarOp(op)));
                assert_eq!(ternary(op, s, 0, 0, 0), Err(ScalarError::NotScalarOp(op)));
            }
            assert!(
                !op.is_foldable() || op.family() == OpFamily::Composite,
                "foldable {op} has no scalar semantics and is no composite operation"
            );
            continue;
        };
        // Each lane op is accepted by exactly its own function.
        let s = Scalar::I32;
        assert_eq!(
            unary(op, s, 0).err() == Some(ScalarError::NotScalarOp(op)),
            !matches!(lane, LaneOp::Unary(_)),
            "{op}"
        );
        assert_eq!(
            binary(op, s, 0, 0).err() == Some(ScalarError::NotScalarOp(op)),
            !matches!(lane, LaneOp::Binary(_)),
            "{op}"
        );
        assert_eq!(
            ternary(op, s, 0, 0, 0).err() == Some(ScalarError::NotScalarOp(op)),
            !matches!(lane, LaneOp::Ternary(_)),
            "{op}"
        );
        let admits = admitted(op.info().rule);
        assert!(
            !admits.is_empty(),
            "{op}: a lane op whose rule admits no scalar"
        );
        for s in Scalar::ALL {
            let refused = evaluate_everywhere(op, lane, s);
            evaluated += 1;
            if op.is_foldable() && admits.contains(&s) {
                assert!(!refused, "foldable {op} is refused on {}", s.name());
            }
        }
    }
    assert!(evaluated > 60 * Scalar::ALL.len(), "{evaluated}");
}

#[test]
fn bitcast_needs_equal_widths_and_no_bools() {
    assert_eq!(
        bitcast(Scalar::F32, Scalar::I32, 0xBF80_0000),
        Ok(0xFFFF_FFFF_BF80_0000)
    );
    assert_eq!(bitcast(Scalar::I16, Scalar::F16, u64::MAX), Ok(0xFFFF));
    assert_eq!(
        bitcast(Scalar::F32, Scalar::U64, 0),
        Err(ScalarError::UnsupportedType {
            op: Opcode::Bitcast,
            scalar: Scalar::U64
        })
    );
    assert_eq!(
        bitcast(Scalar::BOOL, Scalar::U8, 1),
        Err(ScalarError::UnsupportedType {
            op: Opcode::Bitcast,
            scalar: Scalar::BOOL
        })
    );
}

// --- known answers ---------------------------------------------------------------------

/// Canonical bits of a signed value (sign-extended to 64 bits).
fn int(v: i64) -> u64 {
    v as u64
}

fn f32b(x: f32) -> u64 {
    u64::from(x.to_bits())
}

fn bin(op: Opcode, s: Scalar, a: u64, b: u64) -> u64 {
    binary(op, s, a, b).unwrap_or_else(|e| panic!("{e}"))
}

fn un(op: Opcode, s: Scalar, a: u64) -> u64 {
    unary(op, s, a).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn integer_division_and_remainder_follow_wgsl() {
    use Opcode::{Div, Rem};
    let i32min = int(-2_147_483_648);
    assert_eq!(bin(Div, Scalar::I32, i32min, int(-1)), i32min);
    assert_eq!(bin(Rem, Scalar::I32, i32min, int(-1)), 0);
    assert_eq!(bin(Div, Scalar::I64, int(i64::MIN), int(-1)), int(i64::MIN));
    assert_eq!(bin(Rem, Scalar::I64, int(i64::MIN), int(-1)), 0);
    assert_eq!(bin(Div, Scalar::I8, int(-128), int(-1)), int(-128));
    assert_eq!(bin(Div, Scalar::I32, 7, 0), 7);
    assert_eq!(bin(Div, Scalar::I32, int(-7), 0), int(-7));
    assert_eq!(bin(Div, Scalar::U32, 7, 0), 7);
    assert_eq!(bin(Rem, Scalar::I32, 7, 0), 0);
    assert_eq!(bin(Rem, Scalar::U64, 7, 0), 0);
    assert_eq!(bin(Div, Scalar::I32, int(-7), 2), int(-3));
    assert_eq!(bin(Rem, Scalar::I32, int(-7), 2), int(-1));
    assert_eq!(bin(Rem, Scalar::I32, 7, int(-2)), 1);
    assert_eq!(bin(Div, Scalar::U32, 0xFFFF_FFFF, 2), 0x7FFF_FFFF);
    assert_eq!(bin(Div, Scalar::U8, 200, 3), 66);
}

#[test]
fn integers_wrap_at_their_width() {
    use Opcode::{Abs, Add, Mul, Neg, Sub};
    assert_eq!(bin(Add, Scalar::I32, 0x7FFF_FFFF, 1), int(-2_147_483_648));
    assert_eq!(bin(Add, Scalar::U8, 255, 1), 0);
    assert_eq!(bin(Sub, Scalar::U16, 0, 1), 0xFFFF);
    assert_eq!(bin(Mul, Scalar::I16, 0x4000, 2), int(-32768));
    assert_eq!(
        un(Abs, Scalar::I32, int(-2_147_483_648)),
        int(-2_147_483_648)
    );
    assert_eq!(
        un(Neg, Scalar::I32, int(-2_147_483_648)),
        int(-2_147_483_648)
    );
    assert_eq!(un(Abs, Scalar::I8, int(-5)), 5);
}

#[test]
fn shift_amounts_are_taken_modulo_the_width() {
    use Opcode::{Rotl, Rotr, Shl, Shr};
    assert_eq!(bin(Shl, Scalar::U32, 1, 32), 1);
    assert_eq!(bin(Shl, Scalar::U32, 1, 33), 2);
    assert_eq!(bin(Shl, Scalar::U8, 1, 9), 2);
    assert_eq!(bin(Shl, Scalar::I32, 1, 31), int(-2_147_483_648));
    assert_eq!(bin(Shr, Scalar::I32, int(-8), 1), int(-4));
    assert_eq!(bin(Shr, Scalar::I32, int(-1), 40), int(-1));
    assert_eq!(bin(Shr, Scalar::U32, 0x8000_0000, 31), 1);
    assert_eq!(bin(Shr, Scalar::U32, 0x8000_0000, 63), 1);
    assert_eq!(bin(Shr, Scalar::U64, 1 << 63, 64), 1 << 63);
    assert_eq!(bin(Rotl, Scalar::U8, 0x81, 1), 0x03);
    assert_eq!(bin(Rotr, Scalar::U32, 1, 1), 0x8000_0000);
    assert_eq!(bin(Rotl, Scalar::I8, int(-128), 8), int(-128));
}

#[test]
fn bit_counting_and_fields() {
    use Opcode::{CountLeadingZeros, CountOnes, CountTrailingZeros, ReverseBits};
    assert_eq!(un(CountLeadingZeros, Scalar::U32, 0), 32);
    assert_eq!(un(CountTrailingZeros, Scalar::U32, 0), 32);
    assert_eq!(un(CountTrailingZeros, Scalar::I64, 0), 64);
    assert_eq!(un(CountLeadingZeros, Scalar::U8, 1), 7);
    assert_eq!(un(CountOnes, Scalar::I16, int(-1)), 16);
    assert_eq!(un(ReverseBits, Scalar::U8, 1), 0x80);
    assert_eq!(un(ReverseBits, Scalar::I32, 1), int(-2_147_483_648));
    assert_eq!(extract_bits(Scalar::I32, 0xF0, 4, 4), Ok(int(-1)));
    assert_eq!(extract_bits(Scalar::U32, 0xF0, 4, 4), Ok(15));
    assert_eq!(extract_bits(Scalar::U32, 0xF0, 4, 0), Ok(0));
    assert_eq!(extract_bits(Scalar::U32, 0xC000_0000, 30, 8), Ok(3));
    assert_eq!(extract_bits(Scalar::I32, 0xC000_0000, 30, 8), Ok(int(-1)));
    assert_eq!(insert_bits(Scalar::U32, 0, 0xFF, 4, 4), Ok(0xF0));
    assert_eq!(insert_bits(Scalar::U32, 0x1234, 0xFF, 40, 4), Ok(0x1234));
    assert_eq!(insert_bits(Scalar::I8, 0, 1, 7, 5), Ok(int(-128)));
    assert_eq!(
        extract_bits(Scalar::F32, 0, 0, 1),
        Err(ScalarError::UnsupportedType {
            op: Opcode::ExtractBits,
            scalar: Scalar::F32
        })
    );
}

#[test]
fn float_to_integer_conversion_saturates_and_maps_nan_to_zero() {
    let f = Scalar::F32;
    assert_eq!(convert(f, Scalar::I32, f32b(3.9)), 3);
    assert_eq!(convert(f, Scalar::I32, f32b(-3.9)), int(-3));
    assert_eq!(convert(f, Scalar::I32, f32b(1e10)), 0x7FFF_FFFF);
    assert_eq!(convert(f, Scalar::I32, f32b(-1e10)), int(-2_147_483_648));
    assert_eq!(convert(f, Scalar::I32, f32b(f32::INFINITY)), 0x7FFF_FFFF);
    assert_eq!(
        convert(f, Scalar::I32, f32b(f32::NEG_INFINITY)),
        int(-2_147_483_648)
    );
    assert_eq!(convert(f, Scalar::I32, f32b(f32::NAN)), 0);
    assert_eq!(convert(f, Scalar::U32, f32b(-1.0)), 0);
    assert_eq!(convert(f, Scalar::U32, f32b(5e9)), 0xFFFF_FFFF);
    assert_eq!(convert(f, Scalar::U32, f32b(f32::NAN)), 0);
    assert_eq!(convert(Scalar::F64, Scalar::U8, 300f64.to_bits()), 255);
    assert_eq!(
        convert(Scalar::F64, Scalar::I8, (-300f64).to_bits()),
        int(-128)
    );
    assert_eq!(convert(Scalar::F16, Scalar::I16, 0x7C00), 0x7FFF); // +inf
}

#[test]
fn other_conversions() {
    // Integer to f32 rounds to nearest even: 2^24 + 1 and 2^24 + 3 are ties.
    assert_eq!(
        convert(Scalar::I32, Scalar::F32, 16_777_217),
        f32b(16_777_216.0)
    );
    assert_eq!(
        convert(Scalar::I32, Scalar::F32, 16_777_219),
        f32b(16_777_220.0)
    );
    assert_eq!(
        convert(Scalar::U64, Scalar::F32, u64::MAX),
        f32b(18_446_744_073_709_551_616.0)
    );
    // To bool compares with zero: NaN is true, -0 false.
    assert_eq!(convert(Scalar::F32, Scalar::BOOL, f32b(f32::NAN)), 1);
    assert_eq!(convert(Scalar::F32, Scalar::BOOL, f32b(-0.0)), 0);
    assert_eq!(convert(Scalar::I32, Scalar::BOOL, int(-5)), 1);
    assert_eq!(convert(Scalar::BOOL, Scalar::F32, 1), 0x3F80_0000);
    // Integer to integer extends by the source's signedness.
    assert_eq!(convert(Scalar::I8, Scalar::I32, int(-1)), int(-1));
    assert_eq!(convert(Scalar::I32, Scalar::U64, int(-1)), u64::MAX);
    assert_eq!(convert(Scalar::U8, Scalar::I32, 255), 255);
    assert_eq!(convert(Scalar::I32, Scalar::U8, int(-1)), 255);
    assert_eq!(convert(Scalar::U32, Scalar::I8, 0x180), int(-128));
}

#[test]
fn f16_rounds_to_nearest_even() {
    // 1 + 2^-11 is halfway between 1 (0x3C00) and 1 + 2^-10 (0x3C01): even is 0x3C00.
    let tie_down = f32b(1.0 + 2f32.powi(-11));
    assert_eq!(convert(Scalar::F32, Scalar::F16, tie_down), 0x3C00);
    // 1 + 3 * 2^-11 is halfway between 0x3C01 and 0x3C02: even is 0x3C02.
    let tie_up = f32b(1.0 + 3.0 * 2f32.powi(-11));
    assert_eq!(convert(Scalar::F32, Scalar::F16, tie_up), 0x3C02);
    // 65504 is the largest finite f16; 65520 is halfway to 65536 and rounds to +inf.
    assert_eq!(convert(Scalar::F32, Scalar::F16, f32b(65519.0)), 0x7BFF);
    assert_eq!(convert(Scalar::F32, Scalar::F16, f32b(65520.0)), 0x7C00);
    // Subnormals: 2^-24 is 0x0001; 2^-25 ties to 0, 3 * 2^-25 to 0x0002.
    assert_eq!(
        convert(Scalar::F32, Scalar::F16, f32b(2f32.powi(-24))),
        0x0001
    );
    assert_eq!(
        convert(Scalar::F32, Scalar::F16, f32b(2f32.powi(-25))),
        0x0000
    );
    assert_eq!(
        convert(Scalar::F32, Scalar::F16, f32b(3.0 * 2f32.powi(-25))),
        0x0002
    );
    // f16 arithmetic rounds once: 2^-11 is 0x1000.
    assert_eq!(bin(Opcode::Add, Scalar::F16, 0x3C00, 0x1000), 0x3C00);
    assert_eq!(bin(Opcode::Add, Scalar::F16, 0x3C01, 0x1000), 0x3C02);
    assert_eq!(bin(Opcode::Mul, Scalar::F16, 0x7BFF, 0x4000), 0x7C00); // 65504 * 2
    assert_eq!(
        convert(Scalar::F16, Scalar::F32, 0x3555),
        f32b(0.333_251_95)
    );
}

#[test]
fn float_rounding_operations() {
    use Opcode::{Ceil, Floor, Fract, Round, RoundEven, Trunc};
    let f = Scalar::F32;
    assert_eq!(un(RoundEven, f, f32b(2.5)), f32b(2.0));
    assert_eq!(un(RoundEven, f, f32b(3.5)), f32b(4.0));
    assert_eq!(un(RoundEven, f, f32b(-2.5)), f32b(-2.0));
    assert_eq!(un(RoundEven, f, f32b(0.5)), f32b(0.0));
    assert_eq!(un(Round, f, f32b(2.5)), f32b(3.0));
    assert_eq!(un(Round, f, f32b(-2.5)), f32b(-3.0));
    assert_eq!(un(Floor, f, f32b(-0.5)), f32b(-1.0));
    assert_eq!(un(Ceil, f, f32b(-0.5)), f32b(-0.0));
    assert_eq!(un(Trunc, f, f32b(-1.7)), f32b(-1.0));
    assert_eq!(un(Fract, f, f32b(-0.25)), f32b(0.75));
    assert_eq!(un(RoundEven, Scalar::F16, 0x4100), 0x4000); // 2.5 -> 2.0
}

#[test]
fn float_arithmetic_special_cases() {
    use Opcode::{Add, Max, Min, Mul, Rem, Sign, Step};
    let f = Scalar::F32;
    let nan = f32b(f32::NAN);
    assert_eq!(bin(Add, f, f32b(0.1), f32b(0.2)), 0x3E99_999A);
    assert_eq!(bin(Min, f, nan, f32b(1.0)), f32b(1.0));
    assert_eq!(bin(Max, f, f32b(1.0), nan), f32b(1.0));
    assert_eq!(bin(Rem, f, f32b(-7.5), f32b(2.0)), f32b(-1.5));
    assert_eq!(bin(Step, f, f32b(1.0), f32b(0.5)), f32b(0.0));
    assert_eq!(bin(Step, f, f32b(1.0), f32b(1.0)), f32b(1.0));
    assert_eq!(un(Sign, f, f32b(-0.0)), f32b(-0.0));
    assert_eq!(un(Sign, f, nan), f32b(0.0));
    assert_eq!(un(Sign, f, f32b(-3.0)), f32b(-1.0));
    // Subnormals: the smallest f32 subnormal halved ties to 0; doubled is 2^-148.
    assert_eq!(bin(Mul, f, 1, f32b(0.5)), 0);
    assert_eq!(bin(Add, f, 1, 1), 2);
    // Comparisons with NaN are false except `ne`.
    assert_eq!(bin(Opcode::Eq, f, nan, nan), 0);
    assert_eq!(bin(Opcode::Ne, f, nan, nan), 1);
    assert_eq!(bin(Opcode::Lt, f, nan, f32b(1.0)), 0);
    assert_eq!(bin(Opcode::Eq, f, f32b(0.0), f32b(-0.0)), 1);
}

#[test]
fn ternary_operations() {
    let f = Scalar::F32;
    // Fused: (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; unfused it would be 0.
    let (a, b) = (f32b(1.0 + f32::EPSILON), f32b(1.0 - f32::EPSILON));
    assert_eq!(
        ternary(Opcode::Fma, f, a, b, f32b(-1.0)),
        Ok(f32b(-(2f32.powi(-46))))
    );
    assert_eq!(ternary(Opcode::Clamp, Scalar::I32, 5, 0, 3), Ok(3));
    assert_eq!(ternary(Opcode::Clamp, Scalar::I32, int(-5), 0, 3), Ok(0));
    assert_eq!(
        ternary(Opcode::Clamp, Scalar::U32, 0xFFFF_FFFF, 0, 3),
        Ok(3)
    );
    assert_eq!(
        ternary(Opcode::Clamp, f, f32b(f32::NAN), f32b(0.0), f32b(1.0)),
        Ok(f32b(0.0))
    );
    assert_eq!(
        ternary(Opcode::Fma, Scalar::I32, 1, 1, 1),
        Err(ScalarError::UnsupportedType {
            op: Opcode::Fma,
            scalar: Scalar::I32
        })
    );
}

#[test]
fn refusals_name_the_operation_and_type() {
    assert_eq!(
        unary(Opcode::Not, Scalar::F32, 0),
        Err(ScalarError::UnsupportedType {
            op: Opcode::Not,
            scalar: Scalar::F32
        })
    );
    assert_eq!(
        binary(Opcode::Lt, Scalar::BOOL, 0, 1),
        Err(ScalarError::UnsupportedType {
            op: Opcode::Lt,
            scalar: Scalar::BOOL
        })
    );
    assert_eq!(
        binary(Opcode::Load, Scalar::U32, 0, 1),
        Err(ScalarError::NotScalarOp(Opcode::Load))
    );
    assert_eq!(
        unary(Opcode::Add, Scalar::U32, 0),
        Err(ScalarError::NotScalarOp(Opcode::Add))
    );
    assert_eq!(
        ScalarError::UnsupportedType {
            op: Opcode::Not,
            scalar: Scalar::F32
        }
        .to_string(),
        "`not` is not defined on f32"
    );
}

// --- ldexp, frexp, modf (expected values worked out by hand) ---------------------------

fn f64b(x: f64) -> u64 {
    x.to_bits()
}

fn f16b(x: f32) -> u64 {
    u64::from(half::f16::from_f32(x).to_bits())
}

#[test]
fn ldexp_scales_by_a_power_of_two_rounding_once() {
    let e = |v: i64| int(v);
    let f = Scalar::F32;
    assert_eq!(ldexp(f, f32b(1.5), e(3)), Ok(f32b(12.0)));
    assert_eq!(ldexp(f, f32b(-0.75), e(-2)), Ok(f32b(-0.1875)));
    assert_eq!(ldexp(f, f32b(0.0), e(100)), Ok(f32b(0.0)));
    assert_eq!(ldexp(f, f32b(-0.0), e(-5)), Ok(f32b(-0.0)));
    // 2^-149 is the smallest f32 subnormal (bits 1); 2^-150 is a tie that rounds to even (0).
    assert_eq!(ldexp(f, f32b(1.0), e(-149)), Ok(1));
    assert_eq!(ldexp(f, f32b(1.0), e(-150)), Ok(0));
    // 1.5 * 2^-150 = 0.75 * 2^-149 rounds up to the smallest subnormal.
    assert_eq!(ldexp(f, f32b(1.5), e(-150)), Ok(1));
    assert_eq!(ldexp(f, f32b(1.0), e(128)), Ok(f32b(f32::INFINITY)));
    assert_eq!(ldexp(f, f32b(0.5), e(128)), Ok(f32b(2f32.powi(127))));
    assert_eq!(ldexp(f, f32b(1.0), e(i64::from(i32::MIN))), Ok(0));
    // f64: across the subnormal boundary and past both ends of the exponent range.
    let d = Scalar::F64;
    assert_eq!(ldexp(d, f64b(1.0), e(-1074)), Ok(1));
    assert_eq!(ldexp(d, f64b(3.0), e(-1075)), Ok(2)); // 1.5 * 2^-1074 -> 2 * 2^-1074 (even)
    assert_eq!(
        ldexp(d, f64b(2f64.powi(-1000)), e(2000)),
        Ok(f64b(2f64.powi(1000)))
    );
    assert_eq!(
        ldexp(d, f64b(2f64.powi(1000)), e(-2000)),
        Ok(f64b(2f64.powi(-1000)))
    );
    assert_eq!(ldexp(d, f64b(1.0), e(1024)), Ok(f64b(f64::INFINITY)));
    assert_eq!(ldexp(Scalar::F16, f16b(1.0), e(-24)), Ok(1));
    assert_eq!(
        ldexp(Scalar::F16, f16b(1.0), e(16)),
        Ok(f16b(f32::INFINITY))
    );
}

#[test]
fn frexp_splits_into_a_half_open_significand_and_an_exponent() {
    let f = Scalar::F32;
    let i = |v: i64| int(v);
    assert_eq!(frexp(f, f32b(8.0)), Ok((f32b(0.5), i(4))));
    assert_eq!(frexp(f, f32b(-1.5)), Ok((f32b(-0.75), i(1))));
    assert_eq!(frexp(f, f32b(0.1)), Ok((f32b(0.8), i(-3))));
    assert_eq!(frexp(f, f32b(0.0)), Ok((f32b(0.0), 0)));
    assert_eq!(frexp(f, f32b(-0.0)), Ok((f32b(-0.0), 0)));
    // The smallest subnormal 2^-149 = 0.5 * 2^-148; the largest finite f32
    // (2 - 2^-23) * 2^127 = (1 - 2^-24) * 2^128.
    assert_eq!(frexp(f, 1), Ok((f32b(0.5), i(-148))));
    assert_eq!(
        frexp(f, f32b(f32::MAX)),
        Ok((f32b(1.0 - 2f32.powi(-24)), i(128)))
    );
    assert_eq!(frexp(f, f32b(f32::INFINITY)), Ok((f32b(f32::INFINITY), 0)));
    assert_eq!(frexp(Scalar::F64, 1), Ok((f64b(0.5), i(-1073))));
    assert_eq!(frexp(Scalar::F16, f16b(-3.0)), Ok((f16b(-0.75), i(2))));
}

#[test]
fn modf_keeps_the_sign_in_both_parts() {
    let f = Scalar::F32;
    assert_eq!(modf(f, f32b(-1.5)), Ok((f32b(-0.5), f32b(-1.0))));
    assert_eq!(modf(f, f32b(2.75)), Ok((f32b(0.75), f32b(2.0))));
    assert_eq!(modf(f, f32b(-2.0)), Ok((f32b(-0.0), f32b(-2.0))));
    assert_eq!(modf(f, f32b(0.25)), Ok((f32b(0.25), f32b(0.0))));
    assert_eq!(modf(f, f32b(-0.25)), Ok((f32b(-0.25), f32b(-0.0))));
    assert_eq!(
        modf(f, f32b(f32::NEG_INFINITY)),
        Ok((f32b(-0.0), f32b(f32::NEG_INFINITY)))
    );
    assert_eq!(modf(Scalar::F64, f64b(1e300)), Ok((0, f64b(1e300))));
    assert_eq!(
        modf(Scalar::I32, 0),
        Err(ScalarError::UnsupportedType {
            op: Opcode::Modf,
            scalar: Scalar::I32
        })
    );
}

#[test]
fn subgroup_identities_are_the_neutral_elements() {
    use crate::ops::SubgroupArith as A;
    let f32b = |x: f32| u64::from(x.to_bits());
    assert_eq!(subgroup_identity(A::Add, Scalar::F32), 0);
    assert_eq!(subgroup_identity(A::Mul, Scalar::F32), f32b(1.0));
    assert_eq!(subgroup_identity(A::Min, Scalar::F32), f32b(f32::INFINITY));
    assert_eq!(
        subgroup_identity(A::Max, Scalar::F32),
        f32b(f32::NEG_INFINITY)
    );
    assert_eq!(subgroup_identity(A::Min, Scalar::F16), 0x7c00);
    assert_eq!(subgroup_identity(A::Mul, Scalar::U32), 1);
    assert_eq!(subgroup_identity(A::Min, Scalar::U32), 0xffff_ffff);
    assert_eq!(subgroup_identity(A::Max, Scalar::U32), 0);
    assert_eq!(subgroup_identity(A::And, Scalar::U32), 0xffff_ffff);
    assert_eq!(subgroup_identity(A::Or, Scalar::I32), 0);
    assert_eq!(subgroup_identity(A::Xor, Scalar::I32), 0);
    assert_eq!(
        subgroup_identity(A::Min, Scalar::I32),
        canon(Scalar::I32, i32::MAX as u32 as u64)
    );
    assert_eq!(
        subgroup_identity(A::Max, Scalar::I32),
        canon(Scalar::I32, i32::MIN as u32 as u64)
    );
    // Each one leaves every value unchanged under its operation.
    for x in [0u64, 1, 7, 0x8000_0000, 0xffff_ffff] {
        for (op, opcode) in [
            (A::Add, Opcode::Add),
            (A::Mul, Opcode::Mul),
            (A::Min, Opcode::Min),
            (A::Max, Opcode::Max),
            (A::And, Opcode::And),
            (A::Or, Opcode::Or),
            (A::Xor, Opcode::Xor),
        ] {
            for s in [Scalar::U32, Scalar::I32] {
                let x = canon(s, x);
                let e = subgroup_identity(op, s);
                assert_eq!(binary(opcode, s, e, x).unwrap(), x, "{op:?} {s:?}");
            }
        }
    }
}
