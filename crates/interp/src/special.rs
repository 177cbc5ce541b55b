//! Binary lane operations specialised to u32, i32 and f32: plain functions the
//! pre-decoder stores, with exactly the semantics of [`crate::scalar::binary`] (the
//! tests check every one against it).

use crate::scalar::BinaryOp;
use oxir_ir::Scalar;

// Canonical bits: u32 zero-extended, i32 sign-extended, f32 in the low 32 bits.
#[inline(always)]
fn u(x: u64) -> u32 {
    x as u32
}
#[inline(always)]
fn i(x: u64) -> i32 {
    x as i32
}
#[inline(always)]
fn f(x: u64) -> f32 {
    f32::from_bits(x as u32)
}
#[inline(always)]
fn fu(x: u32) -> u64 {
    u64::from(x)
}
#[inline(always)]
fn fi(x: i32) -> u64 {
    x as i64 as u64
}
#[inline(always)]
fn ff(x: f32) -> u64 {
    u64::from(x.to_bits())
}

/// The specialised function of `op` on `s`, when there is one.
pub fn binary(op: BinaryOp, s: Scalar) -> Option<fn(u64, u64) -> u64> {
    use BinaryOp::*;
    let f: fn(u64, u64) -> u64 = match s {
        Scalar::U32 => match op {
            Add => |a, b| fu(u(a).wrapping_add(u(b))),
            Sub => |a, b| fu(u(a).wrapping_sub(u(b))),
            Mul => |a, b| fu(u(a).wrapping_mul(u(b))),
            Div => |a, b| fu(u(a).checked_div(u(b)).unwrap_or(u(a))),
            Rem => |a, b| fu(u(a).checked_rem(u(b)).unwrap_or(0)),
            And => |a, b| a & b,
            Or => |a, b| a | b,
            Xor => |a, b| a ^ b,
            Shl => |a, b| fu(u(a) << (u(b) & 31)),
            Shr => |a, b| fu(u(a) >> (u(b) & 31)),
            Min => |a, b| a.min(b),
            Max => |a, b| a.max(b),
            Eq => |a, b| u64::from(a == b),
            Ne => |a, b| u64::from(a != b),
            Lt => |a, b| u64::from(a < b),
            Le => |a, b| u64::from(a <= b),
            Gt => |a, b| u64::from(a > b),
            Ge => |a, b| u64::from(a >= b),
            Rotl | Rotr | Atan2 | Pow | CopySign | Step => return None,
        },
        Scalar::I32 => match op {
            Add => |a, b| fi(i(a).wrapping_add(i(b))),
            Sub => |a, b| fi(i(a).wrapping_sub(i(b))),
            Mul => |a, b| fi(i(a).wrapping_mul(i(b))),
            Div => |a, b| {
                fi(if i(b) == 0 {
                    i(a)
                } else {
                    i(a).wrapping_div(i(b))
                })
            },
            Rem => |a, b| {
                fi(if i(b) == 0 {
                    0
                } else {
                    i(a).wrapping_rem(i(b))
                })
            },
            And => |a, b| a & b,
            Or => |a, b| a | b,
            Xor => |a, b| a ^ b,
            Shl => |a, b| fi(i(a) << (u(b) & 31)),
            Shr => |a, b| fi(i(a) >> (u(b) & 31)),
            Min => |a, b| fi(i(a).min(i(b))),
            Max => |a, b| fi(i(a).max(i(b))),
            Eq => |a, b| u64::from(a == b),
            Ne => |a, b| u64::from(a != b),
            Lt => |a, b| u64::from(i(a) < i(b)),
            Le => |a, b| u64::from(i(a) <= i(b)),
            Gt => |a, b| u64::from(i(a) > i(b)),
            Ge => |a, b| u64::from(i(a) >= i(b)),
            Rotl | Rotr | Atan2 | Pow | CopySign | Step => return None,
        },
        Scalar::F32 => match op {
            Add => |a, b| ff(f(a) + f(b)),
            Sub => |a, b| ff(f(a) - f(b)),
            Mul => |a, b| ff(f(a) * f(b)),
            Div => |a, b| ff(f(a) / f(b)),
            Min => |a, b| ff(f(a).min(f(b))),
            Max => |a, b| ff(f(a).max(f(b))),
            Eq => |a, b| u64::from(f(a) == f(b)),
            Ne => |a, b| u64::from(f(a) != f(b)),
            Lt => |a, b| u64::from(f(a) < f(b)),
            Le => |a, b| u64::from(f(a) <= f(b)),
            Gt => |a, b| u64::from(f(a) > f(b)),
            Ge => |a, b| u64::from(f(a) >= f(b)),
            Rem | And | Or | Xor | Shl | Shr | Rotl | Rotr | Atan2 | Pow | CopySign | Step => {
                return None
            }
        },
        _ => return None,
    };
    Some(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{lane_op, LaneOp};
    use oxir_ir::Opcode;

    #[test]
    fn specialised_ops_agree_with_the_generic_semantics() {
        let ints: [u64; 10] = [
            0,
            1,
            2,
            7,
            31,
            32,
            33,
            0x7fff_ffff,
            0x8000_0000,
            0xffff_ffff,
        ];
        let floats = [
            0.0f32,
            -0.0,
            1.0,
            -1.5,
            0.1,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            3e38,
            1e-45,
        ];
        for &op in Opcode::ALL {
            let Some(LaneOp::Binary(bop)) = lane_op(op) else {
                continue;
            };
            for s in [Scalar::U32, Scalar::I32, Scalar::F32] {
                let Some(fast) = binary(bop, s) else { continue };
                let values: Vec<u64> = if s == Scalar::F32 {
                    floats.iter().map(|x| u64::from(x.to_bits())).collect()
                } else {
                    ints.iter().map(|&x| crate::scalar::canon(s, x)).collect()
                };
                for &a in &values {
                    for &b in &values {
                        assert_eq!(
                            fast(a, b),
                            crate::scalar::binary(op, s, a, b).unwrap(),
                            "{op} {} {a:#x} {b:#x}",
                            s.name()
                        );
                    }
                }
            }
        }
    }
}
