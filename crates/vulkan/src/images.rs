//! Image and sampler descriptors: which Vulkan format, image type, view type and extent an
//! image binding gets, and the one sampler state every sampler binding gets.
//!
//! - A storage image has the format its `OpTypeImage` declares ([`storage_format`]; the
//!   formats of WGSL's storage textures plus a few more of SPIR-V's). A sampled image with
//!   an `Unknown` format holds four 32-bit channels of its sampled type
//!   (`R32G32B32A32_{SFLOAT,SINT,UINT}`, as the interpreter's texels), and a depth one
//!   (`Depth = 1`) is `D32_SFLOAT` (one f32 per texel, depth aspect), which supports
//!   depth-comparison sampling.
//! - An extent is `[width, height, depth-or-layers]`: layers for arrayed and cube images
//!   (a multiple of 6 for cubes, 6 for a plain cube, with `width == height`), depth for 3D
//!   ones, 1 where the shape has no such axis. Texel data is tightly packed, layer (or
//!   slice) by layer, row by row.
//! - Multisampled images: 2D, not arrayed, sampled (not storage), of `samples` samples
//!   per texel (2..=64, a power of two, [`sample_count`]); they take no texel data (zero)
//!   or exactly one texel (its bytes in the format, e.g. 16 for `R32G32B32A32_*`, 4 for
//!   `D32_SFLOAT`) that every sample of every texel holds: the runner clears them with
//!   `vkCmdClearColorImage` / `vkCmdClearDepthStencilImage` (no buffer copy can write
//!   samples), and they read back as that texel repeated over the single-sampled size.
//! - Refused as [`Error::Unsupported`] before any Vulkan object exists: arrayed or
//!   non-2D multisampled images, a sample count on a single-sampled image, dimensions
//!   other than 1D / 2D / 3D / cube, arrayed 3D images, formats outside the table,
//!   extents that do not fit the shape, and formats or sample counts the device cannot
//!   use that way (checked by the runner against the device's format properties and its
//!   `sampledImage*SampleCounts` limits).
//! - Samplers: nearest filtering (min, mag and mip), clamp-to-edge on every axis, level 0
//!   only — the interpreter's default sampler. A sampler that reflection saw used for
//!   depth comparison ([`crate::reflect::Binding::comparison`]) compares with
//!   `LESS_OR_EQUAL` (1.0 when `reference <= texel`), as the interpreter does.

use crate::reflect::{ChannelKind, DescriptorKind, ImageInfo};
use crate::Error;
use ash::vk;
use rspirv::spirv::{Dim, ImageFormat};

/// Largest width, height or depth/layer count the runner accepts.
pub const MAX_EXTENT: u32 = 16384;
/// Largest texel data the runner accepts, in bytes.
pub const MAX_BYTES: u64 = 1 << 30;

/// A storage format's Vulkan format, bytes per texel and WGSL name.
pub fn storage_format(f: ImageFormat) -> Option<(vk::Format, u32, &'static str)> {
    use vk::Format as F;
    Some(match f {
        ImageFormat::R32f => (F::R32_SFLOAT, 4, "r32float"),
        ImageFormat::R32i => (F::R32_SINT, 4, "r32sint"),
        ImageFormat::R32ui => (F::R32_UINT, 4, "r32uint"),
        ImageFormat::Rg32f => (F::R32G32_SFLOAT, 8, "rg32float"),
        ImageFormat::Rg32i => (F::R32G32_SINT, 8, "rg32sint"),
        ImageFormat::Rg32ui => (F::R32G32_UINT, 8, "rg32uint"),
        ImageFormat::Rgba8 => (F::R8G8B8A8_UNORM, 4, "rgba8unorm"),
        ImageFormat::Rgba8Snorm => (F::R8G8B8A8_SNORM, 4, "rgba8snorm"),
        ImageFormat::Rgba8ui => (F::R8G8B8A8_UINT, 4, "rgba8uint"),
        ImageFormat::Rgba8i => (F::R8G8B8A8_SINT, 4, "rgba8sint"),
        ImageFormat::Rgba16f => (F::R16G16B16A16_SFLOAT, 8, "rgba16float"),
        ImageFormat::Rgba16ui => (F::R16G16B16A16_UINT, 8, "rgba16uint"),
        ImageFormat::Rgba16i => (F::R16G16B16A16_SINT, 8, "rgba16sint"),
        ImageFormat::Rgba32f => (F::R32G32B32A32_SFLOAT, 16, "rgba32float"),
        ImageFormat::Rgba32i => (F::R32G32B32A32_SINT, 16, "rgba32sint"),
        ImageFormat::Rgba32ui => (F::R32G32B32A32_UINT, 16, "rgba32uint"),
        ImageFormat::R8 => (F::R8_UNORM, 1, "r8unorm"),
        ImageFormat::R8Snorm => (F::R8_SNORM, 1, "r8snorm"),
        ImageFormat::R8ui => (F::R8_UINT, 1, "r8uint"),
        ImageFormat::R8i => (F::R8_SINT, 1, "r8sint"),
        ImageFormat::R16ui => (F::R16_UINT, 2, "r16uint"),
        ImageFormat::R16i => (F::R16_SINT, 2, "r16sint"),
        ImageFormat::R16f => (F::R16_SFLOAT, 2, "r16float"),
        ImageFormat::R16 => (F::R16_UNORM, 2, "r16unorm"),
        ImageFormat::R16Snorm => (F::R16_SNORM, 2, "r16snorm"),
        ImageFormat::Rg8 => (F::R8G8_UNORM, 2, "rg8unorm"),
        ImageFormat::Rg8Snorm => (F::R8G8_SNORM, 2, "rg8snorm"),
        ImageFormat::Rg8ui => (F::R8G8_UINT, 2, "rg8uint"),
        ImageFormat::Rg8i => (F::R8G8_SINT, 2, "rg8sint"),
        ImageFormat::Rg16ui => (F::R16G16_UINT, 4, "rg16uint"),
        ImageFormat::Rg16i => (F::R16G16_SINT, 4, "rg16sint"),
        ImageFormat::Rg16f => (F::R16G16_SFLOAT, 4, "rg16float"),
        ImageFormat::Rg16 => (F::R16G16_UNORM, 4, "rg16unorm"),
        ImageFormat::Rg16Snorm => (F::R16G16_SNORM, 4, "rg16snorm"),
        ImageFormat::Rgb10A2 => (F::A2B10G10R10_UNORM_PACK32, 4, "rgb10a2unorm"),
        ImageFormat::Rgb10a2ui => (F::A2B10G10R10_UINT_PACK32, 4, "rgb10a2uint"),
        ImageFormat::Rgba16 => (F::R16G16B16A16_UNORM, 8, "rgba16unorm"),
        ImageFormat::Rgba16Snorm => (F::R16G16B16A16_SNORM, 8, "rgba16snorm"),
        _ => return None,
    })
}

/// The Vulkan format and bytes per texel of an image binding.
pub fn image_format(info: &ImageInfo, kind: DescriptorKind) -> Result<(vk::Format, u32), Error> {
    if let Some((f, size, _)) = storage_format(info.format) {
        return Ok((f, size));
    }
    if kind == DescriptorKind::StorageImage || info.format != ImageFormat::Unknown {
        return Err(Error::Unsupported(format!(
            "image format {:?}",
            info.format
        )));
    }
    Ok(match (info.depth, info.channel) {
        (true, _) => (vk::Format::D32_SFLOAT, 4),
        (false, ChannelKind::Float) => (vk::Format::R32G32B32A32_SFLOAT, 16),
        (false, ChannelKind::Sint) => (vk::Format::R32G32B32A32_SINT, 16),
        (false, ChannelKind::Uint) => (vk::Format::R32G32B32A32_UINT, 16),
    })
}

/// The image and view a binding of `info`'s shape and `extent` needs.
#[derive(Copy, Clone, Debug)]
pub struct Shape {
    pub image_type: vk::ImageType,
    pub view_type: vk::ImageViewType,
    pub extent: vk::Extent3D,
    pub layers: u32,
    pub flags: vk::ImageCreateFlags,
}

/// The default extent of an image binding when none is given: 1 texel (6 layers of 1 for
/// a cube).
pub fn default_extent(info: &ImageInfo) -> [u32; 3] {
    if info.dim == Dim::DimCube {
        [1, 1, 6]
    } else {
        [1, 1, 1]
    }
}

/// Checks `extent` against the image's declared shape.
pub fn shape(info: &ImageInfo, extent: [u32; 3]) -> Result<Shape, Error> {
    let [w, h, l] = extent;
    let bad = |why: &str| {
        Err(Error::Unsupported(format!(
            "a {w}x{h}x{l} extent for a {} image: {why}",
            describe(info)
        )))
    };
    if info.multisampled && (info.dim != Dim::Dim2D || info.arrayed) {
        return Err(Error::Unsupported(format!(
            "{} images (the runner makes multisampled images 2D and not arrayed)",
            describe(info)
        )));
    }
    if w == 0 || h == 0 || l == 0 || w.max(h).max(l) > MAX_EXTENT {
        return bad(&format!("every side must be 1..={MAX_EXTENT}"));
    }
    let flat = |d: u32| vk::Extent3D {
        width: w,
        height: d,
        depth: 1,
    };
    let (image_type, view_type, extent, layers, flags) = match (info.dim, info.arrayed) {
        (Dim::Dim1D, arrayed) => {
            if h != 1 {
                return bad("a 1D image has height 1");
            }
            if !arrayed && l != 1 {
                return bad("a non-arrayed image has one layer");
            }
            let view = if arrayed {
                vk::ImageViewType::TYPE_1D_ARRAY
            } else {
                vk::ImageViewType::TYPE_1D
            };
            (
                vk::ImageType::TYPE_1D,
                view,
                flat(1),
                l,
                vk::ImageCreateFlags::empty(),
            )
        }
        (Dim::Dim2D, arrayed) => {
            if !arrayed && l != 1 {
                return bad("a non-arrayed image has one layer");
            }
            let view = if arrayed {
                vk::ImageViewType::TYPE_2D_ARRAY
            } else {
                vk::ImageViewType::TYPE_2D
            };
            (
                vk::ImageType::TYPE_2D,
                view,
                flat(h),
                l,
                vk::ImageCreateFlags::empty(),
            )
        }
        (Dim::Dim3D, false) => (
            vk::ImageType::TYPE_3D,
            vk::ImageViewType::TYPE_3D,
            vk::Extent3D {
                width: w,
                height: h,
                depth: l,
            },
            1,
            vk::ImageCreateFlags::empty(),
        ),
        (Dim::DimCube, arrayed) => {
            if w != h {
                return bad("cube faces are square");
            }
            if l % 6 != 0 || (!arrayed && l != 6) {
                return bad("a cube has 6 layers (a cube array a multiple of 6)");
            }
            let view = if arrayed {
                vk::ImageViewType::CUBE_ARRAY
            } else {
                vk::ImageViewType::CUBE
            };
            (
                vk::ImageType::TYPE_2D,
                view,
                flat(h),
                l,
                vk::ImageCreateFlags::CUBE_COMPATIBLE,
            )
        }
        _ => {
            return Err(Error::Unsupported(format!(
                "{} images (the runner makes 1D, 2D, 3D and cube images)",
                describe(info)
            )))
        }
    };
    Ok(Shape {
        image_type,
        view_type,
        extent,
        layers,
        flags,
    })
}

/// The bytes of texel data an image of `extent` holds at `texel` bytes per texel.
pub fn data_size(extent: [u32; 3], texel: u32) -> Result<u64, Error> {
    let n = extent
        .iter()
        .fold(u64::from(texel), |n, &e| n.saturating_mul(u64::from(e)));
    if n > MAX_BYTES {
        return Err(Error::Unsupported(format!(
            "an image of {n} bytes (more than {MAX_BYTES})"
        )));
    }
    Ok(n)
}

/// `multisampled arrayed 2D` and the like, for messages.
fn describe(info: &ImageInfo) -> String {
    let dim = match info.dim {
        Dim::Dim1D => "1D".to_string(),
        Dim::Dim2D => "2D".into(),
        Dim::Dim3D => "3D".into(),
        Dim::DimCube => "cube".into(),
        other => format!("{other:?}"),
    };
    format!(
        "{}{}{dim}",
        if info.multisampled {
            "multisampled "
        } else {
            ""
        },
        if info.arrayed { "arrayed " } else { "" }
    )
}

/// The Vulkan sample count of `samples` samples per texel for an image of `info`'s shape:
/// 1 for a single-sampled image, 2..=64 (a power of two) for a multisampled one.
pub fn sample_count(info: &ImageInfo, samples: u32) -> Result<vk::SampleCountFlags, Error> {
    if !info.multisampled {
        return if samples == 1 {
            Ok(vk::SampleCountFlags::TYPE_1)
        } else {
            Err(Error::Unsupported(format!(
                "{samples} samples for a {} image that is not multisampled",
                describe(info)
            )))
        };
    }
    if !samples.is_power_of_two() || !(2..=64).contains(&samples) {
        return Err(Error::Unsupported(format!(
            "{samples} samples for a {} image (2, 4, 8, 16, 32 or 64)",
            describe(info)
        )));
    }
    Ok(vk::SampleCountFlags::from_raw(samples))
}

/// The image aspect of a format: depth for `D32_SFLOAT`, colour otherwise.
pub fn aspect(format: vk::Format) -> vk::ImageAspectFlags {
    if format == vk::Format::D32_SFLOAT {
        vk::ImageAspectFlags::DEPTH
    } else {
        vk::ImageAspectFlags::COLOR
    }
}

/// The sampler every sampler binding gets: nearest, clamp-to-edge, level 0; comparing with
/// `LESS_OR_EQUAL` when `comparison`.
pub fn sampler_info(comparison: bool) -> vk::SamplerCreateInfo<'static> {
    vk::SamplerCreateInfo::default()
        .compare_enable(comparison)
        .compare_op(if comparison {
            vk::CompareOp::LESS_OR_EQUAL
        } else {
            vk::CompareOp::NEVER
        })
        .mag_filter(vk::Filter::NEAREST)
        .min_filter(vk::Filter::NEAREST)
        .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
        .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE)
        .min_lod(0.0)
        .max_lod(0.0)
        .unnormalized_coordinates(false)
}
