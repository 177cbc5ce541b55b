//! Images and samplers.
//!
//! - Types: a sampled texture is an `OpTypeImage` with `Sampled = 1` and an unknown format
//!   (depth textures have `Depth = 1` and sample `f32`); a storage texture has `Sampled = 2`
//!   and its texel format (every oxir format has a SPIR-V one, so the
//!   `StorageImage{Read,Write}WithoutFormat` capabilities are never needed); samplers,
//!   comparison or not, are `OpTypeSampler`. Handle globals are `UniformConstant`
//!   variables with `DescriptorSet` / `Binding`, and read-only / write-only storage
//!   textures are `NonWritable` / `NonReadable`.
//! - Sampling combines image and sampler with `OpSampledImage` next to the sample:
//!   `texture_sample` → `OpImageSampleImplicitLod` (the preflight allows it in fragment
//!   shaders only), `_bias` → implicit LOD with `Bias`, `_level` → `OpImageSampleExplicitLod`
//!   with `Lod` (an integer level, on depth textures, is converted to float), `_grad` →
//!   explicit LOD with `Grad`, `_compare` → `OpImageSampleDrefExplicitLod` at `Lod 0`.
//!   Samples of depth textures return a `vec4`; oxir's `f32` is its component 0.
//! - An array layer is appended to the coordinate: as a float for sampling, as an integer
//!   of the coordinate's signedness for fetches, reads and writes.
//! - `texture_load` → `OpImageFetch` (with `Lod`, or `Sample` when multisampled) on sampled
//!   textures and `OpImageRead` on storage ones; `texture_store` → `OpImageWrite`.
//! - Queries (`ImageQuery` capability): `texture_dimensions` → `OpImageQuerySizeLod` (level
//!   0 when absent) on single-sampled sampled textures and `OpImageQuerySize` otherwise,
//!   without the layer count; `texture_num_layers` is the size's last component;
//!   `texture_num_levels` / `_num_samples` → `OpImageQueryLevels` / `OpImageQuerySamples`.
//! - Capabilities by shape: `Sampled1D` / `Image1D`, `SampledCubeArray` / `ImageCubeArray`,
//!   `ImageMSArray`, `StorageImageMultisample`, `StorageImageExtendedFormats` (`rg32float`),
//!   each only when such a type is declared.

use super::*;
use oxir_ir::types::{SampledKind, StorageAccess, TexelFormat, TextureDim, TextureShape};
use oxir_ir::TextureOp;
use rspirv::spirv::{Dim, ImageFormat, ImageOperands};

/// `OpTypeImage` operand `Depth`: not a depth image.
const NOT_DEPTH: u32 = 0;
/// `OpTypeImage` operand `Depth`: a depth image.
const DEPTH: u32 = 1;
/// `OpTypeImage` operand `Sampled`: used with a sampler.
const SAMPLED_WITH_SAMPLER: u32 = 1;
/// `OpTypeImage` operand `Sampled`: used without a sampler (a storage image).
const STORAGE_IMAGE: u32 = 2;

fn dim(d: TextureDim) -> Dim {
    match d {
        TextureDim::D1 => Dim::Dim1D,
        TextureDim::D2 => Dim::Dim2D,
        TextureDim::D3 => Dim::Dim3D,
        TextureDim::Cube => Dim::DimCube,
    }
}

/// The SPIR-V image format of a storage texel format, and whether it needs the
/// `StorageImageExtendedFormats` capability (Vulkan's `shaderStorageImageExtendedFormats`).
/// `bgra8unorm` has no SPIR-V format: it is declared `Unknown`, which needs the
/// read- and write-without-format capabilities instead.
pub fn texel_image_format(f: TexelFormat) -> (ImageFormat, bool) {
    use ImageFormat as I;
    use TexelFormat as F;
    let (base, extended) = match f {
        F::R32Float => (I::R32f, false),
        F::R32Sint => (I::R32i, false),
        F::R32Uint => (I::R32ui, false),
        F::Rgba8Unorm => (I::Rgba8, false),
        F::Rgba8Snorm => (I::Rgba8Snorm, false),
        F::Rgba8Uint => (I::Rgba8ui, false),
        F::Rgba8Sint => (I::Rgba8i, false),
        F::Rgba16Float => (I::Rgba16f, false),
        F::Rgba16Sint => (I::Rgba16i, false),
        F::Rgba16Uint => (I::Rgba16ui, false),
        F::Rgba32Float => (I::Rgba32f, false),
        F::Rgba32Sint => (I::Rgba32i, false),
        F::Rgba32Uint => (I::Rgba32ui, false),
        F::Bgra8Unorm => (I::Unknown, false),
        F::R8Unorm => (I::R8, true),
        F::R8Snorm => (I::R8Snorm, true),
        F::R8Uint => (I::R8ui, true),
        F::R8Sint => (I::R8i, true),
        F::R16Uint => (I::R16ui, true),
        F::R16Sint => (I::R16i, true),
        F::R16Float => (I::R16f, true),
        F::R16Unorm => (I::R16, true),
        F::R16Snorm => (I::R16Snorm, true),
        F::Rg8Unorm => (I::Rg8, true),
        F::Rg8Snorm => (I::Rg8Snorm, true),
        F::Rg8Uint => (I::Rg8ui, true),
        F::Rg8Sint => (I::Rg8i, true),
        F::Rg16Uint => (I::Rg16ui, true),
        F::Rg16Sint => (I::Rg16i, true),
        F::Rg16Float => (I::Rg16f, true),
        F::Rg16Unorm => (I::Rg16, true),
        F::Rg16Snorm => (I::Rg16Snorm, true),
        F::Rg32Float => (I::Rg32f, true),
        F::Rg32Sint => (I::Rg32i, true),
        F::Rg32Uint => (I::Rg32ui, true),
        F::Rgb10a2Unorm => (I::Rgb10A2, true),
        F::Rgb10a2Uint => (I::Rgb10a2ui, true),
        F::Rgba16Unorm => (I::Rgba16, true),
        F::Rgba16Snorm => (I::Rgba16Snorm, true),
    };
    (base, extended)
}

/// What the writer needs to know about a texture operand.
#[derive(Copy, Clone)]
struct Tex {
    /// The SPIR-V image type.
    ty: Word,
    shape: TextureShape,
    /// The sampled kind; `None` for storage textures.
    kind: Option<SampledKind>,
}

impl Writer<'_> {
    /// The SPIR-V type of an image or sampler type.
    pub(super) fn image_type(&mut self, ty: Type) -> R<Word> {
        Ok(match *self.tdata(ty) {
            TypeData::Texture { shape, kind } => {
                if shape.dim == TextureDim::D1 {
                    self.cap(Capability::Sampled1D);
                }
                if shape.dim == TextureDim::Cube && shape.arrayed {
                    self.cap(Capability::SampledCubeArray);
                }
                if shape.multisampled && shape.arrayed {
                    self.cap(Capability::ImageMSArray);
                }
                let (sampled, depth) = match kind {
                    SampledKind::Float => (self.type_float(32), NOT_DEPTH),
                    SampledKind::Depth => (self.type_float(32), DEPTH),
                    SampledKind::Sint => (self.type_int(32, 1), NOT_DEPTH),
                    SampledKind::Uint => (self.type_int(32, 0), NOT_DEPTH),
                };
                self.type_image(
                    sampled,
                    dim(shape.dim),
                    depth,
                    u32::from(shape.arrayed),
                    u32::from(shape.multisampled),
                    SAMPLED_WITH_SAMPLER,
                    ImageFormat::Unknown,
                )
            }
            TypeData::StorageTexture {
                shape,
                format: fmt,
                access,
            } => {
                if shape.dim == TextureDim::D1 {
                    self.cap(Capability::Image1D);
                }
                if shape.dim == TextureDim::Cube && shape.arrayed {
                    self.cap(Capability::ImageCubeArray);
                }
                if shape.multisampled {
                    self.cap(Capability::StorageImageMultisample);
                    if shape.arrayed {
                        self.cap(Capability::ImageMSArray);
                    }
                }
                let (image_format, extended) = texel_image_format(fmt);
                if extended {
                    self.cap(Capability::StorageImageExtendedFormats);
                }
                if image_format == ImageFormat::Unknown {
                    if access != StorageAccess::Write {
                        self.cap(Capability::StorageImageReadWithoutFormat);
                    }
                    if access != StorageAccess::Read {
                        self.cap(Capability::StorageImageWriteWithoutFormat);
                    }
                }
                let sampled = match fmt.channel_kind() {
                    ScalarKind::Sint => self.type_int(32, 1),
                    ScalarKind::Uint => self.type_int(32, 0),
                    ScalarKind::Float | ScalarKind::Bool => self.type_float(32),
                };
                self.type_image(
                    sampled,
                    dim(shape.dim),
                    NOT_DEPTH,
                    u32::from(shape.arrayed),
                    u32::from(shape.multisampled),
                    STORAGE_IMAGE,
                    image_format,
                )
            }
            TypeData::Sampler { .. } => self.type_sampler(),
            ref other => return Err(format!("type {other:?} is not an image or sampler").into()),
        })
    }

    fn tex(&mut self, f: &Function, v: Value) -> R<Tex> {
        let t = f.dfg.value_type(f.resolve(v));
        let ty = self.ty(t)?;
        match *self.tdata(t) {
            TypeData::Texture { shape, kind } => Ok(Tex {
                ty,
                shape,
                kind: Some(kind),
            }),
            TypeData::StorageTexture { shape, .. } => Ok(Tex {
                ty,
                shape,
                kind: None,
            }),
            _ => Err("expected a texture".into()),
        }
    }

    /// `coord` with the array `layer` appended: as float for sampling, else as an integer
    /// of the coordinate's type.
    fn layered(
        &mut self,
        f: &Function,
        coord: Value,
        layer: Option<Value>,
        float: bool,
    ) -> R<Word> {
        let cid = self.val(f, coord)?;
        let Some(layer) = layer else {
            return Ok(cid);
        };
        let cty = f.dfg.value_type(f.resolve(coord));
        let cs = self.scalar_of(cty)?;
        let n = self.lanes(cty);
        let lty = f.dfg.value_type(f.resolve(layer));
        let ls = self.scalar_of(lty)?;
        let lid = self.val(f, layer)?;
        let elem = self.scalar_type(cs)?;
        let l = if float {
            let o = if ls.kind == ScalarKind::Sint {
                Op::ConvertSToF
            } else {
                Op::ConvertUToF
            };
            self.op(o, Some(elem), None, vec![Operand::IdRef(lid)])?
        } else if ls != cs {
            self.op(Op::Bitcast, Some(elem), None, vec![Operand::IdRef(lid)])?
        } else {
            lid
        };
        let vt = self.type_vector(elem, u32::from(n) + 1);
        let parts = if n == 1 {
            vec![cid, l]
        } else {
            (0..u32::from(n))
                .map(|i| {
                    self.op(
                        Op::CompositeExtract,
                        Some(elem),
                        None,
                        vec![Operand::IdRef(cid), Operand::LiteralBit32(i)],
                    )
                })
                .chain(std::iter::once(Ok(l)))
                .collect::<R<Vec<_>>>()?
        };
        self.op(Op::CompositeConstruct, Some(vt), None, Self::ids(&parts))
    }

    /// The result of a sample or fetch: a `vec4` of the sampled type, narrowed to oxir's
    /// `f32` for depth textures.
    fn texel_result(
        &mut self,
        tex: Tex,
        opcode: Op,
        rt: Word,
        rid: Option<Word>,
        ops: Vec<Operand>,
    ) -> R<()> {
        if tex.kind == Some(SampledKind::Depth) {
            let f = self.type_float(32);
            let v4 = self.type_vector(f, 4);
            let v = self.op(opcode, Some(v4), None, ops)?;
            self.op(
                Op::CompositeExtract,
                Some(rt),
                rid,
                vec![Operand::IdRef(v), Operand::LiteralBit32(0)],
            )?;
        } else {
            self.op(opcode, Some(rt), rid, ops)?;
        }
        Ok(())
    }

    fn float_of(&mut self, f: &Function, v: Value) -> R<Word> {
        let t = f.dfg.value_type(f.resolve(v));
        let s = self.scalar_of(t)?;
        let id = self.val(f, v)?;
        if s.kind == ScalarKind::Float {
            return Ok(id);
        }
        let ft = self.type_float(32);
        let o = if s.kind == ScalarKind::Sint {
            Op::ConvertSToF
        } else {
            Op::ConvertUToF
        };
        self.op(o, Some(ft), None, vec![Operand::IdRef(id)])
    }

    /// Writes the texture op `op`.
    pub(super) fn image(&mut self, f: &Function, c: &Operands, op: TextureOp) -> R<()> {
        let (rid, rt) = (c.rid, c.rt.unwrap_or(0));
        let args = &c.args;
        match op {
            TextureOp::Sample => {
                let s = self.sampling(f, args)?;
                let ops = self.with_operands(f, args, s.extra, s.ops, ImageOperands::NONE, &[])?;
                self.texel_result(s.tex, Op::ImageSampleImplicitLod, rt, rid, ops)
            }
            TextureOp::SampleBias => {
                let s = self.sampling(f, args)?;
                let b = self.val(f, args[s.extra])?;
                let ops =
                    self.with_operands(f, args, s.extra + 1, s.ops, ImageOperands::BIAS, &[b])?;
                self.texel_result(s.tex, Op::ImageSampleImplicitLod, rt, rid, ops)
            }
            TextureOp::SampleLevel => {
                let s = self.sampling(f, args)?;
                let l = self.float_of(f, args[s.extra])?;
                let ops =
                    self.with_operands(f, args, s.extra + 1, s.ops, ImageOperands::LOD, &[l])?;
                self.texel_result(s.tex, Op::ImageSampleExplicitLod, rt, rid, ops)
            }
            TextureOp::SampleGrad => {
                let s = self.sampling(f, args)?;
                let (dx, dy) = (self.val(f, args[s.extra])?, self.val(f, args[s.extra + 1])?);
                let mask = ImageOperands::GRAD;
                let ops = self.with_operands(f, args, s.extra + 2, s.ops, mask, &[dx, dy])?;
                self.texel_result(s.tex, Op::ImageSampleExplicitLod, rt, rid, ops)
            }
            TextureOp::SampleCompare => {
                let mut s = self.sampling(f, args)?;
                s.ops.push(Operand::IdRef(self.val(f, args[s.extra])?));
                let mask = ImageOperands::NONE;
                let ops = self.with_operands(f, args, s.extra + 1, s.ops, mask, &[])?;
                self.op(Op::ImageSampleDrefImplicitLod, Some(rt), rid, ops)?;
                Ok(())
            }
            TextureOp::SampleCompareLevel => {
                let mut s = self.sampling(f, args)?;
                s.ops.push(Operand::IdRef(self.val(f, args[s.extra])?));
                let zero = self.type_float(32);
                let zero = self.constant_bit32(zero, 0);
                let mask = ImageOperands::LOD;
                let ops = self.with_operands(f, args, s.extra + 1, s.ops, mask, &[zero])?;
                self.op(Op::ImageSampleDrefExplicitLod, Some(rt), rid, ops)?;
                Ok(())
            }
            TextureOp::Gather => {
                let mut s = self.sampling(f, args)?;
                let (opcode, next) = if s.tex.kind == Some(SampledKind::Depth) {
                    // A depth gather is a comparison-free `OpImageGather` of component 0.
                    let u = self.type_int(32, 0);
                    s.ops.push(Operand::IdRef(self.constant_bit32(u, 0)));
                    (Op::ImageGather, s.extra)
                } else {
                    s.ops.push(Operand::IdRef(self.val(f, args[s.extra])?));
                    (Op::ImageGather, s.extra + 1)
                };
                let ops = self.with_operands(f, args, next, s.ops, ImageOperands::NONE, &[])?;
                self.op(opcode, Some(rt), rid, ops)?;
                Ok(())
            }
            TextureOp::GatherCompare => {
                let mut s = self.sampling(f, args)?;
                s.ops.push(Operand::IdRef(self.val(f, args[s.extra])?));
                let mask = ImageOperands::NONE;
                let ops = self.with_operands(f, args, s.extra + 1, s.ops, mask, &[])?;
                self.op(Op::ImageDrefGather, Some(rt), rid, ops)?;
                Ok(())
            }
            TextureOp::Load => self.texture_load(f, args, rt, rid),
            TextureOp::Store => self.texture_store(f, args),
            TextureOp::Dimensions => self.texture_size(f, args, SizeQuery::Dimensions, rt, rid),
            TextureOp::NumLayers => self.texture_size(f, args, SizeQuery::Layers, rt, rid),
            TextureOp::NumLevels => self.texture_count(f, args, Op::ImageQueryLevels, rt, rid),
            TextureOp::NumSamples => self.texture_count(f, args, Op::ImageQuerySamples, rt, rid),
        }
    }

    /// `ops` followed by the image operands: `mask` with its `ids` (bias, level or
    /// gradients), plus `ConstOffset` when the instruction has a texel offset at `args[at]`
    /// (the verifier admits only constants there). Operand ids follow in mask-bit order.
    fn with_operands(
        &mut self,
        f: &Function,
        args: &[Value],
        at: usize,
        mut ops: Vec<Operand>,
        mut mask: ImageOperands,
        ids: &[Word],
    ) -> R<Vec<Operand>> {
        let mut ids = ids.to_vec();
        if let Some(&offset) = args.get(at) {
            mask |= ImageOperands::CONST_OFFSET;
            ids.push(self.val(f, offset)?);
        }
        if !mask.is_empty() {
            ops.push(Operand::ImageOperands(mask));
            ops.extend(ids.into_iter().map(Operand::IdRef));
        }
        Ok(ops)
    }

    /// The start of every sample: `OpSampledImage` of `args[0]` and `args[1]`, and the
    /// coordinate `args[2]` with the layer (`args[3]` when arrayed) appended.
    fn sampling(&mut self, f: &Function, args: &[Value]) -> R<Sampling> {
        let tex = self.tex(f, args[0])?;
        let layer = tex.shape.arrayed.then(|| args[3]);
        let extra = 3 + usize::from(tex.shape.arrayed);
        let image = self.val(f, args[0])?;
        let sampler = self.val(f, args[1])?;
        let si_ty = self.type_sampled_image(tex.ty);
        let si = self.op(
            Op::SampledImage,
            Some(si_ty),
            None,
            Self::ids(&[image, sampler]),
        )?;
        let coord = self.layered(f, args[2], layer, true)?;
        let ops = vec![Operand::IdRef(si), Operand::IdRef(coord)];
        Ok(Sampling { tex, ops, extra })
    }

    /// `texture_load`: `OpImageRead` on storage textures, `OpImageFetch` with `Lod` (or
    /// `Sample` when multisampled) on sampled ones.
    fn texture_load(&mut self, f: &Function, args: &[Value], rt: Word, rid: Option<Word>) -> R<()> {
        let tex = self.tex(f, args[0])?;
        let layer = tex.shape.arrayed.then(|| args[2]);
        let extra = 2 + usize::from(tex.shape.arrayed);
        let image = self.val(f, args[0])?;
        let coord = self.layered(f, args[1], layer, false)?;
        let mut ops = vec![Operand::IdRef(image), Operand::IdRef(coord)];
        if tex.kind.is_none() {
            self.op(Op::ImageRead, Some(rt), rid, ops)?;
            return Ok(());
        }
        let x = self.val(f, args[extra])?;
        ops.push(Operand::ImageOperands(if tex.shape.multisampled {
            ImageOperands::SAMPLE
        } else {
            ImageOperands::LOD
        }));
        ops.push(Operand::IdRef(x));
        self.texel_result(tex, Op::ImageFetch, rt, rid, ops)
    }

    /// `texture_store`: `OpImageWrite`.
    fn texture_store(&mut self, f: &Function, args: &[Value]) -> R<()> {
        let tex = self.tex(f, args[0])?;
        let layer = tex.shape.arrayed.then(|| args[2]);
        let value = 2 + usize::from(tex.shape.arrayed);
        let image = self.val(f, args[0])?;
        let coord = self.layered(f, args[1], layer, false)?;
        let v = self.val(f, args[value])?;
        self.op(Op::ImageWrite, None, None, Self::ids(&[image, coord, v]))?;
        Ok(())
    }

    /// `texture_dimensions` and `texture_num_layers`: the image size (with the level, `0`
    /// when absent, on single-sampled sampled textures), then its size part or its layer
    /// count.
    fn texture_size(
        &mut self,
        f: &Function,
        args: &[Value],
        query: SizeQuery,
        rt: Word,
        rid: Option<Word>,
    ) -> R<()> {
        self.cap(Capability::ImageQuery);
        let tex = self.tex(f, args[0])?;
        let image = self.val(f, args[0])?;
        let base = match tex.shape.dim {
            TextureDim::D1 => 1,
            TextureDim::D2 | TextureDim::Cube => 2,
            TextureDim::D3 => 3,
        };
        let n = base + u32::from(tex.shape.arrayed);
        let u = self.type_int(32, 0);
        let size_ty = if n == 1 { u } else { self.type_vector(u, n) };
        // The whole size is the result: the query writes it directly (no copy).
        let direct = matches!(query, SizeQuery::Dimensions) && n == base;
        let (size_ty, dst) = if direct { (rt, rid) } else { (size_ty, None) };
        let size = if tex.kind.is_some() && !tex.shape.multisampled {
            let level = match args.get(1) {
                Some(&l) => self.val(f, l)?,
                None => self.const_u32(0),
            };
            self.op(
                Op::ImageQuerySizeLod,
                Some(size_ty),
                dst,
                Self::ids(&[image, level]),
            )?
        } else {
            self.op(Op::ImageQuerySize, Some(size_ty), dst, Self::ids(&[image]))?
        };
        match query {
            SizeQuery::Layers => {
                self.op(
                    Op::CompositeExtract,
                    Some(rt),
                    rid,
                    vec![Operand::IdRef(size), Operand::LiteralBit32(n - 1)],
                )?;
            }
            SizeQuery::Dimensions if n == base => {}
            SizeQuery::Dimensions if base == 1 => {
                self.op(
                    Op::CompositeExtract,
                    Some(rt),
                    rid,
                    vec![Operand::IdRef(size), Operand::LiteralBit32(0)],
                )?;
            }
            SizeQuery::Dimensions => {
                let mut ops = Self::ids(&[size, size]);
                ops.extend((0..base).map(Operand::LiteralBit32));
                self.op(Op::VectorShuffle, Some(rt), rid, ops)?;
            }
        }
        Ok(())
    }

    /// `texture_num_levels` / `texture_num_samples`: one query instruction on the image.
    fn texture_count(
        &mut self,
        f: &Function,
        args: &[Value],
        query: Op,
        rt: Word,
        rid: Option<Word>,
    ) -> R<()> {
        self.cap(Capability::ImageQuery);
        let image = self.val(f, args[0])?;
        self.op(query, Some(rt), rid, Self::ids(&[image]))?;
        Ok(())
    }
}

/// The operands every sample starts with, and where the op's own trailing arguments
/// (bias, level, gradients, depth reference) start in its argument list.
struct Sampling {
    tex: Tex,
    /// The combined image-sampler and the coordinate.
    ops: Vec<Operand>,
    extra: usize,
}

/// Which part of the image size a size query returns.
#[derive(Copy, Clone)]
enum SizeQuery {
    /// `texture_dimensions`: the size without the layer count.
    Dimensions,
    /// `texture_num_layers`: the layer count (the size's last component).
    Layers,
}
