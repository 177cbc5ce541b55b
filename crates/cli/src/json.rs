//! The JSON lines `oxir run` prints, written with serde_json in its compact form (no
//! spaces), fields in declaration order.
//!
//! One difference from serde_json's defaults: a finite `f32` is written as Rust's `{:?}`
//! spells it (`1.0`, `1e-7`, `1e16`: the shortest text that reads back as the same
//! value), which is what these lines have always used; a non-finite one is a string
//! (`"inf"`, `"-inf"`, `"NaN"`), as JSON has no such numbers.

use serde::{Serialize, Serializer};
use std::io;

/// A storage buffer after the run.
#[derive(Serialize)]
pub(crate) struct BufferLine<'a> {
    pub group: u32,
    pub binding: u32,
    pub size: usize,
    pub hex: &'a str,
    /// The words as `--view` types them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<ViewValue>>,
}

/// A storage texture after the run.
#[derive(Serialize)]
pub(crate) struct TextureLine<'a> {
    pub group: u32,
    pub binding: u32,
    /// Width, height and layers (or depth).
    pub texture: [u32; 3],
    pub format: &'a str,
    pub hex: &'a str,
}

/// One word of a buffer, as `--view` types it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum ViewValue {
    U32(u32),
    I32(i32),
    F32(f32),
}

impl Serialize for ViewValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            ViewValue::U32(v) => serializer.serialize_u32(v),
            ViewValue::I32(v) => serializer.serialize_i32(v),
            ViewValue::F32(v) if v.is_finite() => serializer.serialize_f32(v),
            ViewValue::F32(v) => serializer.serialize_str(&v.to_string()),
        }
    }
}

/// serde_json's compact formatter, with `f32` spelled as `{:?}` does.
struct DebugFloats;

impl serde_json::ser::Formatter for DebugFloats {
    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        write!(writer, "{value:?}")
    }
}

/// `value` as one compact JSON line (without the newline).
pub(crate) fn line(value: &impl Serialize) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, DebugFloats);
    value
        .serialize(&mut serializer)
        .expect("serializing plain data to memory cannot fail");
    // serde_json writes UTF-8.
    String::from_utf8_lossy(&out).into_owned()
}

/// Lowercase hex of `bytes`, two digits each.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_lines_are_compact_with_debug_floats() {
        let values = [
            ViewValue::F32(1.0),
            ViewValue::F32(-0.0),
            ViewValue::F32(1e-7),
            ViewValue::F32(1e16),
            ViewValue::F32(123456.79),
            ViewValue::F32(f32::INFINITY),
            ViewValue::F32(f32::NEG_INFINITY),
            ViewValue::F32(f32::NAN),
            ViewValue::U32(u32::MAX),
            ViewValue::I32(-5),
        ];
        let with_values = BufferLine {
            group: 0,
            binding: 2,
            size: 4,
            hex: "0000803f",
            values: Some(values.to_vec()),
        };
        assert_eq!(
            line(&with_values),
            "{\"group\":0,\"binding\":2,\"size\":4,\"hex\":\"0000803f\",\"values\":\
             [1.0,-0.0,1e-7,1e16,123456.79,\"inf\",\"-inf\",\"NaN\",4294967295,-5]}"
        );
        let plain = BufferLine {
            values: None,
            ..with_values
        };
        assert_eq!(
            line(&plain),
            "{\"group\":0,\"binding\":2,\"size\":4,\"hex\":\"0000803f\"}"
        );
    }

    #[test]
    fn texture_lines_are_compact() {
        let texture = TextureLine {
            group: 1,
            binding: 0,
            texture: [2, 1, 1],
            format: "rgba8unorm",
            hex: &hex(&[0, 255, 16, 1]),
        };
        assert_eq!(
            line(&texture),
            "{\"group\":1,\"binding\":0,\"texture\":[2,1,1],\"format\":\"rgba8unorm\",\"hex\":\"00ff1001\"}"
        );
    }
}
