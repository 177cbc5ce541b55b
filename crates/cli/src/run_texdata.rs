//! Seeded texture contents of `oxir run` (`--texture G:B=WxH[xL][sN]:seed=S`), the same
//! bits on both engines.
//!
//! The generator is splitmix64 started at `S` (as `random:` buffers): one 64-bit draw `v`
//! per stored channel, texel by texel in memory order (layer or slice, then row, then
//! column), channel by channel. A channel's value from `v`:
//!
//! - float channels of 32-bit and 16-bit formats and of sampled float textures:
//!   `((v & 511) - 256) / 64`, a multiple of 1/64 in [-4, 4), exact in f32 and f16;
//! - 32-bit integer channels (sampled sint / uint textures, `r32uint`, `rgba32sint`, ...):
//!   the low 32 bits of `v`, as they are;
//! - `rgba8unorm`: `k / 255` with `k = v & 255`; `rgba8snorm`: `k / 127` with
//!   `k = (v % 255) - 127`; `rgba8uint`: `v & 255`; `rgba8sint`: the low byte
//!   sign-extended; `rgba16uint` / `rgba16sint`: the low 16 bits (sign-extended for sint).
//!   Every value is exactly what the format stores, so the device's conversion and the
//!   interpreter's quantization keep it;
//! - depth textures (`D32_SFLOAT`, one channel): `(v % 257) / 256`, in [0, 1].
//!
//! Formats with fewer than four channels (`r32*`, `rg32*`) draw only their channels; the
//! interpreter's texel fills the others as a load reads them (0, alpha 1), as
//! `oxir_interp::texture::quantize` does. Sampled colour textures draw four channels.
//!
//! A multisampled texture is uniform: one texel is drawn (the first, as above) and every
//! sample of every texel holds it (the Vulkan engine clears the image to it with
//! `vkCmdClearColorImage` / `vkCmdClearDepthStencilImage`; a buffer copy cannot write
//! samples). Without `:seed=` every texel is zero.

use crate::run_textures::{Channel, TexSize, TexSlot};
use oxir_interp::Texture;

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
    /// `n` f32 channels (4 bytes each).
    F32(usize),
    /// `n` 32-bit integer channels (signed or not: the raw word either way).
    I32(usize),
    F16,
    Unorm8,
    Snorm8,
    Uint8,
    Sint8,
    Uint16,
    Sint16,
    Depth,
}

fn class(slot: &TexSlot) -> Option<Class> {
    Some(match slot.storage {
        None => match slot.channel {
            Channel::Float => Class::F32(4),
            Channel::Sint | Channel::Uint => Class::I32(4),
            Channel::Depth => Class::Depth,
        },
        Some((name, _)) => match name {
            "r32float" => Class::F32(1),
            "rg32float" => Class::F32(2),
            "rgba32float" => Class::F32(4),
            "r32uint" | "r32sint" => Class::I32(1),
            "rg32uint" | "rg32sint" => Class::I32(2),
            "rgba32uint" | "rgba32sint" => Class::I32(4),
            "rgba16float" => Class::F16,
            "rgba8unorm" => Class::Unorm8,
            "rgba8snorm" => Class::Snorm8,
            "rgba8uint" => Class::Uint8,
            "rgba8sint" => Class::Sint8,
            "rgba16uint" => Class::Uint16,
            "rgba16sint" => Class::Sint16,
            _ => return None,
        },
    })
}

/// One texel drawn from `state`: the interpreter's four words and the bytes the Vulkan
/// image holds.
fn texel(class: Class, state: &mut u64, bytes: &mut Vec<u8>) -> [u32; 4] {
    let float = |v: u64| ((v & 511) as i32 - 256) as f32 / 64.0;
    let one = 1.0f32.to_bits();
    match class {
        Class::F32(n) | Class::I32(n) => {
            let is_float = matches!(class, Class::F32(_));
            let mut t = [0, 0, 0, if is_float { one } else { 1 }];
            for c in t.iter_mut().take(n) {
                let v = splitmix(state);
                *c = if is_float {
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
        _ => {
            let mut t = [0u32; 4];
            for c in &mut t {
                let v = splitmix(state);
                *c = match class {
                    Class::F16 => {
                        let x = float(v);
                        bytes.extend_from_slice(&half::f16::from_f32(x).to_bits().to_le_bytes());
                        x.to_bits()
                    }
                    Class::Unorm8 => {
                        let k = (v & 255) as u8;
                        bytes.push(k);
                        (f32::from(k) / 255.0).to_bits()
                    }
                    Class::Snorm8 => {
                        let k = (v % 255) as i32 - 127;
                        bytes.push(k as i8 as u8);
                        (k as f32 / 127.0).to_bits()
                    }
                    Class::Uint8 => {
                        bytes.push(v as u8);
                        u32::from(v as u8)
                    }
                    Class::Sint8 => {
                        bytes.push(v as u8);
                        v as u8 as i8 as i32 as u32
                    }
                    Class::Uint16 => {
                        bytes.extend_from_slice(&(v as u16).to_le_bytes());
                        u32::from(v as u16)
                    }
                    Class::Sint16 => {
                        bytes.extend_from_slice(&(v as u16).to_le_bytes());
                        v as u16 as i16 as i32 as u32
                    }
                    _ => unreachable!("handled above"),
                };
            }
            t
        }
    }
}

/// A texture's initial contents: the interpreter's texture, and the bytes to give the
/// Vulkan engine (tightly packed texels; one texel for a multisampled texture, which it
/// clears to that value; empty for zero). `None` when `slot`'s storage format has no
/// generator (no such format reaches here from WGSL).
pub(crate) fn contents(slot: &TexSlot, size: TexSize) -> Option<(Texture, Vec<u8>)> {
    let [w, h, l] = size.extent;
    let mut texture = Texture::multisampled(w, h, l, size.samples);
    let Some(seed) = size.seed else {
        return Some((texture, Vec::new()));
    };
    let class = class(slot)?;
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
    Some((texture, bytes))
}
