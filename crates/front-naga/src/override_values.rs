//! The values a pipeline-overridable constant can take, as oxir reads them from text and
//! reports them.
//!
//! An override's type is one of WGSL's five concrete scalar types ([`OverrideType`]). A
//! value is read from text strictly by that type ([`OverrideType::parse`]):
//!
//! | type | accepted text |
//! |---|---|
//! | `bool` | `true`, `false` |
//! | `i32`, `u32` | a decimal integer in the type's range (an optional sign) |
//! | `f32`, `f16` | a decimal or exponent float (`1.5`, `-2`, `3e-2`) that is finite in the type (rounded to nearest) |
//!
//! Everything else (`1.5` for an integer, `inf`, `NaN`, `1e39` for `f32`, `yes` for
//! `bool`) is refused with the reason. naga takes the values as `f64`
//! ([`OverrideValue::to_f64`]); every accepted value converts to it exactly, so naga
//! stores exactly the value read.

use naga::{Literal, Scalar, ScalarKind};
use serde::{Serialize, Serializer};

/// The type of an override, as WGSL spells it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OverrideType {
    Bool,
    I32,
    U32,
    F32,
    F16,
}

impl OverrideType {
    /// The type of naga scalar `scalar`, when it is one an override can have in WGSL.
    pub(crate) fn of_scalar(scalar: Scalar) -> Option<Self> {
        match (scalar.kind, scalar.width) {
            (ScalarKind::Bool, _) => Some(OverrideType::Bool),
            (ScalarKind::Sint, 4) => Some(OverrideType::I32),
            (ScalarKind::Uint, 4) => Some(OverrideType::U32),
            (ScalarKind::Float, 4) => Some(OverrideType::F32),
            (ScalarKind::Float, 2) => Some(OverrideType::F16),
            (ScalarKind::Sint | ScalarKind::Uint | ScalarKind::Float, _)
            | (ScalarKind::AbstractInt | ScalarKind::AbstractFloat, _) => None,
        }
    }

    /// `bool`, `i32`, `u32`, `f32`, `f16`.
    pub fn name(self) -> &'static str {
        match self {
            OverrideType::Bool => "bool",
            OverrideType::I32 => "i32",
            OverrideType::U32 => "u32",
            OverrideType::F32 => "f32",
            OverrideType::F16 => "f16",
        }
    }

    /// Reads `text` as a value of this type (see the module docs); the error is the reason.
    pub fn parse(self, text: &str) -> Result<OverrideValue, String> {
        let text = text.trim();
        match self {
            OverrideType::Bool => match text {
                "true" => Ok(OverrideValue::Bool(true)),
                "false" => Ok(OverrideValue::Bool(false)),
                _ => Err("expected true or false".to_string()),
            },
            OverrideType::I32 => text
                .parse::<i32>()
                .map(OverrideValue::I32)
                .map_err(|e| format!("not an i32: {e}")),
            OverrideType::U32 => text
                .parse::<u32>()
                .map(OverrideValue::U32)
                .map_err(|e| format!("not a u32: {e}")),
            OverrideType::F32 => {
                let value = finite_float(text)?;
                let narrow = value as f32;
                match narrow.is_finite() {
                    true => Ok(OverrideValue::F32(narrow)),
                    false => Err("outside f32's range".to_string()),
                }
            }
            OverrideType::F16 => {
                let narrow = half::f16::from_f64(finite_float(text)?);
                match narrow.is_finite() {
                    true => Ok(OverrideValue::F16(narrow)),
                    false => Err("outside f16's range".to_string()),
                }
            }
        }
    }
}

/// `text` as a finite `f64`; `inf` and `NaN`, which Rust's parser takes, are refused.
fn finite_float(text: &str) -> Result<f64, String> {
    let value = text
        .parse::<f64>()
        .map_err(|e| format!("not a number: {e}"))?;
    match value.is_finite() {
        true => Ok(value),
        false => Err("not a finite number".to_string()),
    }
}

/// The value of an override.
#[derive(Copy, Clone, Debug)]
pub enum OverrideValue {
    Bool(bool),
    I32(i32),
    U32(u32),
    F32(f32),
    F16(half::f16),
}

impl OverrideValue {
    /// The `f64` naga's `process_overrides` takes for this value (exact).
    pub fn to_f64(self) -> f64 {
        match self {
            OverrideValue::Bool(b) => f64::from(u8::from(b)),
            OverrideValue::I32(v) => f64::from(v),
            OverrideValue::U32(v) => f64::from(v),
            OverrideValue::F32(v) => f64::from(v),
            OverrideValue::F16(v) => v.to_f64(),
        }
    }

    /// The value of a naga literal of one of the override types.
    pub(crate) fn of_literal(literal: Literal) -> Option<Self> {
        match literal {
            Literal::Bool(b) => Some(OverrideValue::Bool(b)),
            Literal::I32(v) => Some(OverrideValue::I32(v)),
            Literal::U32(v) => Some(OverrideValue::U32(v)),
            Literal::F32(v) => Some(OverrideValue::F32(v)),
            Literal::F16(v) => Some(OverrideValue::F16(v)),
            Literal::F64(_)
            | Literal::U16(_)
            | Literal::I16(_)
            | Literal::U64(_)
            | Literal::I64(_)
            | Literal::AbstractInt(_)
            | Literal::AbstractFloat(_) => None,
        }
    }

    /// The bits of the value, for comparisons (`-0.0` and `0.0` differ).
    fn bits(self) -> (u8, u64) {
        match self {
            OverrideValue::Bool(b) => (0, u64::from(b)),
            OverrideValue::I32(v) => (1, u64::from(v as u32)),
            OverrideValue::U32(v) => (2, u64::from(v)),
            OverrideValue::F32(v) => (3, u64::from(v.to_bits())),
            OverrideValue::F16(v) => (4, u64::from(v.to_bits())),
        }
    }
}

impl PartialEq for OverrideValue {
    fn eq(&self, other: &Self) -> bool {
        self.bits() == other.bits()
    }
}

impl Eq for OverrideValue {}

/// JSON: `true` / `false`, an integer, or a float written with the shortest decimal that
/// reads back as the same `f32` / `f16` (`0.1`, not `0.10000000149011612`).
impl Serialize for OverrideValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            OverrideValue::Bool(b) => serializer.serialize_bool(b),
            OverrideValue::I32(v) => serializer.serialize_i32(v),
            OverrideValue::U32(v) => serializer.serialize_u32(v),
            OverrideValue::F32(v) => serializer.serialize_f64(shortest(v.to_string())),
            OverrideValue::F16(v) => serializer.serialize_f64(shortest(v.to_string())),
        }
    }
}

/// The `f64` nearest to a float's shortest decimal text (Rust's `Display`).
fn shortest(text: String) -> f64 {
    text.parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_by_type() {
        assert_eq!(
            OverrideType::Bool.parse("true"),
            Ok(OverrideValue::Bool(true))
        );
        assert!(OverrideType::Bool.parse("1").is_err());
        assert_eq!(OverrideType::I32.parse("-7"), Ok(OverrideValue::I32(-7)));
        assert!(OverrideType::I32.parse("2147483648").is_err());
        assert!(OverrideType::U32.parse("-1").is_err());
        assert_eq!(
            OverrideType::U32.parse("4294967295"),
            Ok(OverrideValue::U32(u32::MAX))
        );
        assert_eq!(OverrideType::F32.parse("0.5"), Ok(OverrideValue::F32(0.5)));
        assert!(OverrideType::F32.parse("1e39").is_err());
        assert!(OverrideType::F32.parse("inf").is_err());
        assert!(OverrideType::F32.parse("NaN").is_err());
        assert!(OverrideType::F16.parse("65520").is_err());
        assert_eq!(
            OverrideType::F16.parse("65504"),
            Ok(OverrideValue::F16(half::f16::MAX))
        );
        assert!(OverrideType::U32.parse("1.5").is_err());
    }

    #[test]
    fn floats_print_shortest() {
        let json = serde_json::to_string(&OverrideValue::F32(0.1)).unwrap();
        assert_eq!(json, "0.1");
        assert_eq!(OverrideValue::F32(0.1).to_f64() as f32, 0.1f32);
    }
}
