//! Textures and samplers of `oxir run`, the same for both engines.
//!
//! - Every texture binding (sampled or storage) is `W×H×L` texels: `1×1×1` (a cube
//!   `1×1×6`) unless `--texture G:B=WxH[xL][sN][:seed=S]` says otherwise. Texels start at
//!   zero, or with `:seed=S` at the seeded contents `run_texdata` specifies (every storage
//!   format WGSL has and the 16-bit integer ones `.spv` inputs may declare; any other
//!   format with a seed is a usage error). `L` is the layer count of
//!   arrayed textures (a multiple of 6 for cube arrays, 6 for cubes) and the depth of 3D
//!   ones; 1D textures have `H = 1`, non-arrayed 1D / 2D textures `L = 1`. A shape that does
//!   not fit, or a `--texture` naming something that is not a texture, is a usage error.
//! - A multisampled texture (`texture_multisampled_2d`, `texture_depth_multisampled_2d`)
//!   has 4 samples per texel unless `--texture G:B=WxHsN` gives `N` (2, 4, 8, 16, 32 or
//!   64; the Vulkan engine refuses a count the device cannot sample as "unsupported"). A
//!   sample count on a texture that is not multisampled is a usage error. Its contents
//!   are uniform: zero, or one seeded texel in every sample of every texel.
//! - Every sampler is nearest / clamp-to-edge at level 0 (the interpreter's default, and
//!   what `oxir-vulkan` creates).
//! - After the run each storage texture is printed as one JSON line,
//!   `{"group":G,"binding":B,"texture":[W,H,L],"format":"FORMAT","hex":"..."}`, where the
//!   hex is the texels tightly packed in the storage format (layer by layer, row by row;
//!   `rgba8unorm` one byte per channel, `rgba16float` IEEE half floats, ...), which is the
//!   layout a Vulkan image copies into a buffer. The interpreter's texels are encoded into
//!   that layout ([`encode`]); the Vulkan engine prints the bytes it read back. Sampled
//!   textures are not printed.

use crate::diagnostics::Failure;
use crate::run::usage;
use oxir_interp::Texture;
use oxir_ir::types::{SampledKind, TexelFormat, TextureDim};
use oxir_ir::{AddressSpace, Module, TypeData};
use std::collections::BTreeMap;

/// The dimension of a texture binding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Dim {
    D1,
    D2,
    D3,
    Cube,
    /// A SPIR-V dimension WGSL does not have (buffer, rect, subpass data).
    Other,
}

/// What a sampled texture's texels hold (storage textures: see their format).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Channel {
    Float,
    Sint,
    Uint,
    Depth,
}

/// Samples per texel of a multisampled texture when `--texture` gives none.
pub(crate) const DEFAULT_SAMPLES: u32 = 4;

/// A texture or sampler binding as both engines see it.
#[derive(Clone, Debug)]
pub(crate) struct TexSlot {
    pub dim: Dim,
    pub arrayed: bool,
    pub multisampled: bool,
    /// Storage textures: the format's name and bytes per texel.
    pub storage: Option<TexelFormat>,
    /// A sampler (no texels).
    pub sampler: bool,
    /// A sampled texture's channel kind (`Float` for storage textures and samplers).
    pub channel: Channel,
}

/// What a run leaves in a storage texture.
pub(crate) struct TexOut {
    pub extent: [u32; 3],
    pub format: &'static str,
    pub bytes: Vec<u8>,
}

/// Bytes per texel of an oxir storage format.
pub(crate) fn texel_bytes(format: TexelFormat) -> u32 {
    format.layout().bytes()
}

/// The texture and sampler bindings of an oxir module.
pub(crate) fn module_textures(module: &Module) -> BTreeMap<(u32, u32), TexSlot> {
    let mut out = BTreeMap::new();
    for (_, g) in module.globals.iter() {
        let (Some(b), AddressSpace::Handle) = (g.binding, g.space) else {
            continue;
        };
        let dim = |d: TextureDim| match d {
            TextureDim::D1 => Dim::D1,
            TextureDim::D2 => Dim::D2,
            TextureDim::D3 => Dim::D3,
            TextureDim::Cube => Dim::Cube,
        };
        let slot = match module.types.get(g.ty) {
            TypeData::Texture { shape, kind } => TexSlot {
                dim: dim(shape.dim),
                arrayed: shape.arrayed,
                multisampled: shape.multisampled,
                storage: None,
                sampler: false,
                channel: match kind {
                    SampledKind::Float => Channel::Float,
                    SampledKind::Sint => Channel::Sint,
                    SampledKind::Uint => Channel::Uint,
                    SampledKind::Depth => Channel::Depth,
                },
            },
            TypeData::StorageTexture { shape, format, .. } => TexSlot {
                dim: dim(shape.dim),
                arrayed: shape.arrayed,
                multisampled: shape.multisampled,
                storage: Some(*format),
                sampler: false,
                channel: Channel::Float,
            },
            TypeData::Sampler { .. } => TexSlot {
                dim: Dim::Other,
                arrayed: false,
                multisampled: false,
                storage: None,
                sampler: true,
                channel: Channel::Float,
            },
            _ => continue,
        };
        out.insert((b.group, b.binding), slot);
    }
    out
}

/// The image and sampler bindings of a reflected SPIR-V module.
pub(crate) fn spv_textures(interface: &oxir_vulkan::Interface) -> BTreeMap<(u32, u32), TexSlot> {
    use oxir_vulkan::DescriptorKind as K;
    use oxir_vulkan::Dim as S;
    let mut out = BTreeMap::new();
    for (key, b) in &interface.bindings {
        let slot = match (b.kind, b.image) {
            (K::Sampler, _) => TexSlot {
                dim: Dim::Other,
                arrayed: false,
                multisampled: false,
                storage: None,
                sampler: true,
                channel: Channel::Float,
            },
            (_, Some(info)) => TexSlot {
                dim: match info.dim {
                    S::Dim1D => Dim::D1,
                    S::Dim2D => Dim::D2,
                    S::Dim3D => Dim::D3,
                    S::DimCube => Dim::Cube,
                    _ => Dim::Other,
                },
                arrayed: info.arrayed,
                multisampled: info.multisampled,
                storage: match b.kind {
                    K::StorageImage => oxir_vulkan::images::storage_format(info.format)
                        .and_then(|(_, _, name)| TexelFormat::from_name(name)),
                    _ => None,
                },
                sampler: false,
                channel: match (info.depth, info.channel) {
                    (true, _) => Channel::Depth,
                    (false, oxir_vulkan::ChannelKind::Float) => Channel::Float,
                    (false, oxir_vulkan::ChannelKind::Sint) => Channel::Sint,
                    (false, oxir_vulkan::ChannelKind::Uint) => Channel::Uint,
                },
            },
            _ => continue,
        };
        out.insert(*key, slot);
    }
    out
}

/// A texture's size: `[width, height, layers-or-depth]`, samples per texel, and the seed
/// of its contents (`None`: zero).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct TexSize {
    pub extent: [u32; 3],
    pub samples: u32,
    pub seed: Option<u64>,
}

/// What `--texture` gives a binding: its extent, sample count and seed (if given).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct TextureGiven {
    pub extent: [u32; 3],
    pub samples: Option<u32>,
    pub seed: Option<u64>,
}

const TEXTURE_SYNTAX: &str = "G:B=WxH[xL][sN][:seed=S]";

/// `--texture G:B=WxH[xL][sN][:seed=S]`.
pub(crate) fn parse_texture(text: &str) -> Result<((u32, u32), TextureGiven), Failure> {
    let bad = || usage(format!("--texture `{text}`: expected {TEXTURE_SYNTAX}"));
    let (binding, size) = text.split_once('=').ok_or_else(bad)?;
    let (g, b) = binding.split_once(':').ok_or_else(bad)?;
    let num = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
    let key = (num(g)?, num(b)?);
    let (size, seed) = match size.split_once(':') {
        Some((size, seed)) => {
            let seed = seed
                .strip_prefix("seed=")
                .and_then(|s| s.trim().parse::<u64>().ok())
                .ok_or_else(|| {
                    usage(format!(
                        "--texture `{text}`: expected `:seed=S` (S a 64-bit unsigned seed) \
                         after the size"
                    ))
                })?;
            (size, Some(seed))
        }
        None => (size, None),
    };
    let (size, samples) = match size.split_once('s') {
        Some((size, n)) => (size, Some(num(n)?)),
        None => (size, None),
    };
    if let Some(n) = samples {
        if !n.is_power_of_two() || !(2..=64).contains(&n) {
            return Err(usage(format!(
                "--texture `{text}`: a sample count is 2, 4, 8, 16, 32 or 64"
            )));
        }
    }
    let parts: Vec<u32> = size.split('x').map(num).collect::<Result<_, _>>()?;
    let extent = match parts.as_slice() {
        [w, h] => [*w, *h, 1],
        [w, h, l] => [*w, *h, *l],
        _ => return Err(bad()),
    };
    if extent.contains(&0) {
        return Err(usage(format!(
            "--texture `{text}`: every side must be at least 1"
        )));
    }
    Ok((
        key,
        TextureGiven {
            extent,
            samples,
            seed,
        },
    ))
}

/// The size of every texture binding: `--texture`, or 1×1×1 (cubes 1×1×6), with
/// [`DEFAULT_SAMPLES`] samples when multisampled. Checks every `--texture` names a texture
/// and fits its shape, and the size limits (`run_limits::check_texture`).
pub(crate) fn extents(
    given: &BTreeMap<(u32, u32), TextureGiven>,
    slots: &BTreeMap<(u32, u32), TexSlot>,
    buffer_cap: u64,
    name: &str,
) -> Result<BTreeMap<(u32, u32), TexSize>, Failure> {
    for key in given.keys() {
        let is_texture = matches!(slots.get(key), Some(s) if !s.sampler);
        if !is_texture {
            return Err(usage(format!(
                "{name}: --texture {}:{}: no texture binding {}:{}",
                key.0, key.1, key.0, key.1
            )));
        }
    }
    let mut out = BTreeMap::new();
    for (key, slot) in slots {
        if slot.sampler {
            continue;
        }
        let (extent, samples, seed) = match given.get(key) {
            Some(t) => (t.extent, t.samples, t.seed),
            None if slot.dim == Dim::Cube => ([1, 1, 6], None, None),
            None => ([1, 1, 1], None, None),
        };
        if samples.is_some() && !slot.multisampled {
            return Err(usage(format!(
                "{name}: --texture {}:{}: a sample count for a texture that is not \
                 multisampled",
                key.0, key.1
            )));
        }
        let samples = if slot.multisampled {
            samples.unwrap_or(DEFAULT_SAMPLES)
        } else {
            1
        };
        crate::run_limits::check_texture(
            &format!("{name}: --texture {}:{}", key.0, key.1),
            extent,
            samples,
            buffer_cap,
        )?;
        let [w, h, l] = extent;
        let why = match slot.dim {
            Dim::D1 if h != 1 => Some("a 1D texture has height 1"),
            Dim::D1 | Dim::D2 if !slot.arrayed && l != 1 => {
                Some("a texture that is not an array has one layer")
            }
            Dim::Cube if w != h => Some("cube faces are square"),
            Dim::Cube if l % 6 != 0 || (!slot.arrayed && l != 6) => {
                Some("a cube has 6 layers, a cube array a multiple of 6")
            }
            _ => None,
        };
        if let Some(why) = why {
            return Err(usage(format!(
                "{name}: --texture {}:{}={w}x{h}x{l}: {why}",
                key.0, key.1
            )));
        }
        let size = TexSize {
            extent,
            samples,
            seed,
        };
        out.insert(*key, size);
    }
    Ok(out)
}

/// The interpreter's texture of `size`: zero, or seeded (`run_texdata`).
pub(crate) fn interp_texture(slot: &TexSlot, size: TexSize) -> Texture {
    crate::run_texdata::contents(slot, size).0
}

/// A texture's texels in `format`'s memory layout (see the module doc).
pub(crate) fn encode(format: TexelFormat, texture: &Texture) -> Vec<u8> {
    let mut out = Vec::with_capacity(texture.texels.len() * texel_bytes(format) as usize);
    for &t in &texture.texels {
        oxir_ir::texel::pack(format, oxir_ir::texel::encode(format, t), &mut out);
    }
    out
}

/// The JSON line of a storage texture.
pub(crate) fn texture_line(key: (u32, u32), out: &TexOut) -> String {
    crate::json::line(&crate::json::TextureLine {
        group: key.0,
        binding: key.1,
        texture: out.extent,
        format: out.format,
        hex: &crate::json::hex(&out.bytes),
    })
}
