//! Seeded texture contents of `oxir run` (`--texture G:B=WxH[xL][sN]:seed=S`), the same
//! bits on both engines.
//!
//! The generator is splitmix64 started at `S` (as `random:` buffers): one 64-bit draw `v`
//! per stored channel, texel by texel in memory order (layer or slice, then row, then
//! column), channel by channel. A channel's value from `v`:
//!
//! - float channels of 32-bit and 16-bit formats and of sampled float textures:
//!   `((v & 511) - 256) / 64`, a multiple of 1/64 in [-4, 4), exact in f32 and f16;
//! - integer channels (sampled sint / uint textures, `r32uint`, `rg16sint`, `rgb10a2uint`,
//!   ...): the low bits of `v` the channel holds (sign-extended for sint when read);
//! - unorm channels of `b` bits: `k / (2^b - 1)` with `k` the low `b` bits of `v`; snorm
//!   channels: `k / (2^(b-1) - 1)` with `k = (v % (2^b - 1)) - (2^(b-1) - 1)` (never the
//!   most negative code, which reads as -1 like the next one). Every value is exactly what
//!   the format stores, so the device's conversion and the interpreter's quantization keep
//!   it; the bytes are the format's memory layout (`oxir_ir::texel`, `bgra8unorm` blue
//!   first);
//! - depth textures (`D32_SFLOAT`, one channel): `(v % 257) / 256`, in [0, 1].
//!
//! Formats with fewer than four channels (`r32*`, `rg16*`, ...) draw only their channels;
//! the interpreter's texel fills the others as a load reads them (0, alpha 1), as
//! `oxir_ir::texel::decode` does. Sampled colour textures draw four channels.
//!
//! A multisampled texture is uniform: one texel is drawn (the first, as above) and every
//! sample of every texel holds it (the Vulkan engine clears the image to it with
//! `vkCmdClearColorImage` / `vkCmdClearDepthStencilImage`; a buffer copy cannot write
//! samples). Without `:seed=` every texel is zero.

use crate::run_textures::{Channel, TexSize, TexSlot};
use oxir_interp::Texture;
use oxir_ir::texel::{self, Encoding};
use oxir_ir::types::TexelFormat;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How a texture's channels are generated and stored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Class {
    /// A sampled float texture: four f32 channels.
    Float,
    /// A sampled sint or uint texture: four 32-bit channels (the raw word either way).
    Integer,
    /// A depth texture (`D32_SFLOAT`).
    Depth,
    /// A storage texture of this format.
    Storage(TexelFormat),
}

fn class(slot: &TexSlot) -> Class {
    match (slot.storage, slot.channel) {
        (Some(format), _) => Class::Storage(format),
        (None, Channel::Float) => Class::Float,
        (None, Channel::Sint | Channel::Uint) => Class::Integer,
        (None, Channel::Depth) => Class::Depth,
    }
}

/// A multiple of 1/64 in [-4, 4) from `v`, exact in f32 and f16.
fn float(v: u64) -> f32 {
    ((v & 511) as i32 - 256) as f32 / 64.0
}

/// The raw channel a storage format holds for the draw `v`: always a value the format
/// stores exactly (snorm never its most negative code, which reads as -1 like the next).
fn raw_channel(encoding: Encoding, bits: u8, v: u64) -> u64 {
    let mask = (1u64 << bits) - 1;
    match encoding {
        Encoding::Float if bits == 16 => u64::from(half::f16::from_f32(float(v)).to_bits()),
        Encoding::Float => u64::from(float(v).to_bits()),
        Encoding::Snorm => {
            let max = (1u64 << (bits - 1)) - 1;
            ((v % (2 * max + 1)) as i64 - max as i64) as u64 & mask
        }
        Encoding::Unorm | Encoding::Uint | Encoding::Sint => v & mask,
    }
}

/// One texel drawn from `state`: the interpreter's four words and the bytes the Vulkan
/// image holds.
fn texel(class: Class, state: &mut u64, bytes: &mut Vec<u8>) -> [u32; 4] {
    match class {
        Class::Float | Class::Integer => {
            let mut t = [0u32; 4];
            for c in &mut t {
                let v = splitmix(state);
                *c = if class == Class::Float {
                    float(v).to_bits()
                } else {
                    v as u32
                };
                bytes.extend_from_slice(&c.to_le_bytes());
            }
            t
        }
        Class::Depth => {
            let d = (splitmix(state) % 257) as f32 / 256.0;
            bytes.extend_from_slice(&d.to_bits().to_le_bytes());
            [d.to_bits(), 0, 0, 0]
        }
        Class::Storage(format) => {
            let layout = format.layout();
            let mut raw = [0u64; 4];
            for (i, r) in raw.iter_mut().enumerate().take(layout.channels()) {
                *r = raw_channel(layout.encoding, layout.bits[i], splitmix(state));
            }
            texel::pack(format, raw, bytes);
            texel::decode(format, raw)
        }
    }
}

/// `count` texels of a sampled float texture drawn from `seed` (zero without one): the
/// same values [`contents`] gives a float texture with that seed, for `--engine csir`.
pub(crate) fn float_texels(seed: Option<u64>, count: usize) -> Vec<[f32; 4]> {
    let Some(mut state) = seed else {
        return vec![[0.0; 4]; count];
    };
    (0..count)
        .map(|_| [(); 4].map(|()| float(splitmix(&mut state))))
        .collect()
}

/// A texture's initial contents: the interpreter's texture, and the bytes to give the
/// Vulkan engine (tightly packed texels; one texel for a multisampled texture, which it
/// clears to that value; empty for zero).
pub(crate) fn contents(slot: &TexSlot, size: TexSize) -> (Texture, Vec<u8>) {
    let [w, h, l] = size.extent;
    let mut texture = Texture::multisampled(w, h, l, size.samples);
    let Some(seed) = size.seed else {
        return (texture, Vec::new());
    };
    let class = class(slot);
    let mut state = seed;
    let mut bytes = Vec::new();
    if size.samples > 1 {
        let t = texel(class, &mut state, &mut bytes);
        texture.texels.iter_mut().for_each(|x| *x = t);
    } else {
        for x in texture.texels.iter_mut() {
            *x = texel(class, &mut state, &mut bytes);
        }
    }
    (texture, bytes)
}
