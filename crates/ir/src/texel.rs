//! How each storage-texture format holds its channels, and the conversions a texture store
//! and load make: the one description the interpreter (quantization), `oxir run` (texel
//! bytes, seeded contents) and the back-ends consult.
//!
//! Invariants:
//! - A format's memory channels are packed low bits first, in memory order, into
//!   [`TexelLayout::bytes`] little-endian bytes (`rgba8unorm` is the bytes r, g, b, a;
//!   `rgb10a2unorm` one 32-bit word with red in bits 0..10). This is the layout a Vulkan
//!   image of the matching format copies into a buffer.
//! - A store converts each shader channel as a GPU does: unorm `round(clamp(x, 0, 1) · max)`,
//!   snorm `round(clamp(x, -1, 1) · max)` (two's complement), 16-bit floats rounded to
//!   nearest even, integers truncated to the channel's width; a load converts back (unorm
//!   `k · (1 / max)`, snorm `max(k · (1 / max), -1)` in f32, integers sign- or
//!   zero-extended) and fills
//!   channels the format lacks with 0, alpha with 1 (1.0 for float channels).
//! - `quantize(f, v)` is exactly `decode(f, encode(f, v))`: what a load after a store reads.

use crate::types::{ScalarKind, TexelFormat};

/// How a format's channels are stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Unsigned normalized: `k / (2^bits - 1)`.
    Unorm,
    /// Signed normalized: `max(k / (2^(bits-1) - 1), -1)`.
    Snorm,
    /// Unsigned integers.
    Uint,
    /// Signed integers (two's complement).
    Sint,
    /// IEEE floats of 16 or 32 bits.
    Float,
}

impl Encoding {
    /// The scalar kind a shader reads and writes (as a 4-vector).
    pub fn channel_kind(self) -> ScalarKind {
        match self {
            Encoding::Unorm | Encoding::Snorm | Encoding::Float => ScalarKind::Float,
            Encoding::Uint => ScalarKind::Uint,
            Encoding::Sint => ScalarKind::Sint,
        }
    }
}

/// The memory layout of one texel of a format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TexelLayout {
    /// The encoding of every channel.
    pub encoding: Encoding,
    /// Bits of each memory channel, in memory order; 0 past the last channel.
    pub bits: [u8; 4],
    /// The shader channel (0 red ... 3 alpha) each memory channel holds.
    pub order: [usize; 4],
}

const RGBA: [usize; 4] = [0, 1, 2, 3];

const fn layout(encoding: Encoding, bits: [u8; 4]) -> TexelLayout {
    TexelLayout {
        encoding,
        bits,
        order: RGBA,
    }
}

impl TexelLayout {
    /// How many channels the format stores.
    pub fn channels(&self) -> usize {
        self.bits.iter().take_while(|&&b| b != 0).count()
    }

    /// Bytes per texel.
    pub fn bytes(&self) -> u32 {
        self.bits.iter().map(|&b| u32::from(b)).sum::<u32>() / 8
    }
}

impl TexelFormat {
    /// How this format stores its channels.
    pub fn layout(self) -> TexelLayout {
        use Encoding::{Float, Sint, Snorm, Uint, Unorm};
        use TexelFormat as F;
        let one = |e, b| layout(e, [b, 0, 0, 0]);
        let two = |e, b| layout(e, [b, b, 0, 0]);
        let four = |e, b| layout(e, [b, b, b, b]);
        match self {
            F::R8Unorm => one(Unorm, 8),
            F::R8Snorm => one(Snorm, 8),
            F::R8Uint => one(Uint, 8),
            F::R8Sint => one(Sint, 8),
            F::R16Uint => one(Uint, 16),
            F::R16Sint => one(Sint, 16),
            F::R16Float => one(Float, 16),
            F::R16Unorm => one(Unorm, 16),
            F::R16Snorm => one(Snorm, 16),
            F::R32Float => one(Float, 32),
            F::R32Sint => one(Sint, 32),
            F::R32Uint => one(Uint, 32),
            F::Rg8Unorm => two(Unorm, 8),
            F::Rg8Snorm => two(Snorm, 8),
            F::Rg8Uint => two(Uint, 8),
            F::Rg8Sint => two(Sint, 8),
            F::Rg16Uint => two(Uint, 16),
            F::Rg16Sint => two(Sint, 16),
            F::Rg16Float => two(Float, 16),
            F::Rg16Unorm => two(Unorm, 16),
            F::Rg16Snorm => two(Snorm, 16),
            F::Rg32Float => two(Float, 32),
            F::Rg32Sint => two(Sint, 32),
            F::Rg32Uint => two(Uint, 32),
            F::Rgba8Unorm => four(Unorm, 8),
            F::Rgba8Snorm => four(Snorm, 8),
            F::Rgba8Uint => four(Uint, 8),
            F::Rgba8Sint => four(Sint, 8),
            F::Bgra8Unorm => TexelLayout {
                order: [2, 1, 0, 3],
                ..four(Unorm, 8)
            },
            F::Rgb10a2Unorm => layout(Unorm, [10, 10, 10, 2]),
            F::Rgb10a2Uint => layout(Uint, [10, 10, 10, 2]),
            F::Rgba16Float => four(Float, 16),
            F::Rgba16Sint => four(Sint, 16),
            F::Rgba16Uint => four(Uint, 16),
            F::Rgba16Unorm => four(Unorm, 16),
            F::Rgba16Snorm => four(Snorm, 16),
            F::Rgba32Float => four(Float, 32),
            F::Rgba32Sint => four(Sint, 32),
            F::Rgba32Uint => four(Uint, 32),
        }
    }
}

fn mask(bits: u8) -> u64 {
    (1u64 << bits) - 1
}

/// The raw integer a store of the shader word `word` leaves in a channel.
fn encode_channel(encoding: Encoding, bits: u8, word: u32) -> u64 {
    let x = f32::from_bits(word);
    match encoding {
        Encoding::Unorm => {
            let max = mask(bits) as f32;
            // NaN clamps to NaN, which the cast turns into 0.
            (x.clamp(0.0, 1.0) * max).round() as u64
        }
        Encoding::Snorm => {
            let max = (mask(bits - 1)) as f32;
            ((x.clamp(-1.0, 1.0) * max).round() as i64 as u64) & mask(bits)
        }
        Encoding::Uint | Encoding::Sint => u64::from(word) & mask(bits),
        Encoding::Float if bits == 16 => u64::from(half::f16::from_f32(x).to_bits()),
        Encoding::Float => u64::from(word),
    }
}

fn sign_extend(raw: u64, bits: u8) -> i64 {
    let shift = 64 - u32::from(bits);
    ((raw << shift) as i64) >> shift
}

/// The shader word a load reads from a channel holding `raw`.
fn decode_channel(encoding: Encoding, bits: u8, raw: u64) -> u32 {
    let raw = raw & mask(bits);
    match encoding {
        // Times the f32 reciprocal of the largest code, as GPUs convert (llvmpipe among
        // them); the quotient itself is up to 1 ULP away, which Vulkan allows too.
        Encoding::Unorm => (raw as f32 * (1.0 / mask(bits) as f32)).to_bits(),
        Encoding::Snorm => {
            let max = mask(bits - 1) as f32;
            (sign_extend(raw, bits) as f32 * (1.0 / max))
                .max(-1.0)
                .to_bits()
        }
        Encoding::Uint => raw as u32,
        Encoding::Sint => sign_extend(raw, bits) as i32 as u32,
        Encoding::Float if bits == 16 => half::f16::from_bits(raw as u16).to_f32().to_bits(),
        Encoding::Float => raw as u32,
    }
}

/// The raw channel integers, in memory order, a store of `value` (four shader words)
/// writes; 0 past the format's channels.
pub fn encode(format: TexelFormat, value: [u32; 4]) -> [u64; 4] {
    let l = format.layout();
    let mut raw = [0u64; 4];
    for (i, r) in raw.iter_mut().enumerate().take(l.channels()) {
        *r = encode_channel(l.encoding, l.bits[i], value[l.order[i]]);
    }
    raw
}

/// The four shader words a load of a texel holding `raw` (memory order) reads.
pub fn decode(format: TexelFormat, raw: [u64; 4]) -> [u32; 4] {
    let l = format.layout();
    let alpha = match l.encoding {
        Encoding::Uint | Encoding::Sint => 1,
        Encoding::Unorm | Encoding::Snorm | Encoding::Float => 1.0f32.to_bits(),
    };
    let mut value = [0, 0, 0, alpha];
    for (i, &r) in raw.iter().enumerate().take(l.channels()) {
        value[l.order[i]] = decode_channel(l.encoding, l.bits[i], r);
    }
    value
}

/// What a load reads after a store of `value`.
pub fn quantize(format: TexelFormat, value: [u32; 4]) -> [u32; 4] {
    decode(format, encode(format, value))
}

/// Appends the texel holding `raw` (memory order) as the format lays it out in memory.
pub fn pack(format: TexelFormat, raw: [u64; 4], out: &mut Vec<u8>) {
    let l = format.layout();
    let mut word = 0u128;
    let mut offset = 0u32;
    for (i, &r) in raw.iter().enumerate().take(l.channels()) {
        word |= u128::from(r & mask(l.bits[i])) << offset;
        offset += u32::from(l.bits[i]);
    }
    out.extend_from_slice(&word.to_le_bytes()[..l.bytes() as usize]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn every_format_is_whole_bytes_and_names_round_trip() {
        for format in TexelFormat::ALL {
            let l = format.layout();
            let bits: u32 = l.bits.iter().map(|&b| u32::from(b)).sum();
            assert_eq!(bits % 8, 0, "{format:?}");
            assert!(l.channels() >= 1, "{format:?}");
            assert_eq!(TexelFormat::from_name(format.name()), Some(format));
        }
    }

    #[test]
    fn stores_convert_as_the_vulkan_rules_say() {
        // rgba8unorm: 0.5 * 255 = 127.5 rounds to 128; -1 clamps to 0; 2 clamps to 255.
        let v = [f(0.5), f(-1.0), f(2.0), f(1.0)];
        assert_eq!(encode(TexelFormat::Rgba8Unorm, v), [128, 0, 255, 255]);
        // r16snorm: -1 is -32767 (0x8001), never -32768.
        assert_eq!(encode(TexelFormat::R16Snorm, [f(-3.0), 0, 0, 0])[0], 0x8001);
        // rg8sint keeps the low byte: 300 -> 44, -1 -> 0xff.
        let raw = encode(TexelFormat::Rg8Sint, [300, (-1i32) as u32, 0, 0]);
        assert_eq!(raw, [44, 0xff, 0, 0]);
        assert_eq!(decode(TexelFormat::Rg8Sint, raw), [44, u32::MAX, 0, 1]);
        // r16float: 65520 overflows half to infinity; 1/3 rounds to 0x3555.
        assert_eq!(
            encode(TexelFormat::R16Float, [f(65520.0), 0, 0, 0])[0],
            0x7c00
        );
        assert_eq!(
            encode(TexelFormat::R16Float, [f(1.0 / 3.0), 0, 0, 0])[0],
            0x3555
        );
    }

    #[test]
    fn loads_fill_missing_channels_and_swizzle_bgra() {
        assert_eq!(
            decode(TexelFormat::R8Unorm, [255, 0, 0, 0]),
            [f(1.0), 0, 0, f(1.0)]
        );
        assert_eq!(decode(TexelFormat::Rg32Uint, [7, 9, 0, 0]), [7, 9, 0, 1]);
        // bgra8unorm stores blue first: red 1.0 lands in memory channel 2.
        let raw = encode(TexelFormat::Bgra8Unorm, [f(1.0), 0, f(0.0), f(0.0)]);
        assert_eq!(raw, [0, 0, 255, 0]);
        let mut bytes = Vec::new();
        pack(TexelFormat::Bgra8Unorm, raw, &mut bytes);
        assert_eq!(bytes, [0, 0, 255, 0]);
    }

    #[test]
    fn packed_formats_share_one_word() {
        // rgb10a2unorm of (1, 0, 1, 1): red 0x3ff, blue 0x3ff << 20, alpha 3 << 30.
        let raw = encode(TexelFormat::Rgb10a2Unorm, [f(1.0), 0, f(1.0), f(1.0)]);
        let mut bytes = Vec::new();
        pack(TexelFormat::Rgb10a2Unorm, raw, &mut bytes);
        let word = 0x3ffu32 | (0x3ff << 20) | (3 << 30);
        assert_eq!(bytes, word.to_le_bytes());
        // rgba16uint: four little-endian halves.
        let mut bytes = Vec::new();
        pack(TexelFormat::Rgba16Uint, [0x1234, 1, 0xffff, 0], &mut bytes);
        assert_eq!(bytes, [0x34, 0x12, 1, 0, 0xff, 0xff, 0, 0]);
    }

    #[test]
    fn quantize_is_a_store_then_a_load() {
        // 0.3 in r8snorm: round(0.3 * 127) = 38, read back as 38 * (1/127) = 0x3e993265.
        let q = quantize(TexelFormat::R8Snorm, [f(0.3), 0, 0, 0]);
        assert_eq!(q, [0x3e99_3265, 0, 0, f(1.0)]);
        // 215 in r8unorm reads as 0x3f57d7d9, what lavapipe reads (215/255 is 0x3f57d7d8).
        assert_eq!(decode(TexelFormat::R8Unorm, [215, 0, 0, 0])[0], 0x3f57_d7d9);
        // rgb10a2uint truncates each channel to its width: 1025 -> 1, 6 -> 2.
        let q = quantize(TexelFormat::Rgb10a2Uint, [1025, 3, 1023, 6]);
        assert_eq!(q, [1, 3, 1023, 2]);
    }
}
