//! Texture sampling, loads, stores and queries.
//!
//! | naga | oxir |
//! |---|---|
//! | `ImageSample`, level `Auto` | `texture_sample t, s, coord[, layer]` |
//! | level `Zero` | `texture_sample_level ..., 0` (`0.0`; an integer `0` for depth textures) |
//! | level `Exact(l)` / `Bias(b)` / `Gradient { x, y }` | `texture_sample_level` / `texture_sample_bias` / `texture_sample_grad` |
//! | `depth_ref` with level `Zero` / `Auto` | `texture_sample_compare_level` / `texture_sample_compare` |
//! | `gather: Some(c)` | `texture_gather t, s, coord[, layer], c` (no `c` on depth textures); with `depth_ref`: `texture_gather_compare ..., depth_ref` |
//! | `offset: Some(o)` | the constant `o` as the last operand of any of the above |
//! | `ImageLoad` | `texture_load t, coord[, layer][, level or sample]` |
//! | `ImageStore` | `texture_store t, coord[, layer], value` |
//! | `ImageQuery` `Size { level }`, `NumLevels`, `NumLayers`, `NumSamples` | `texture_dimensions t[, level]`, `texture_num_levels`, `texture_num_layers`, `texture_num_samples` |
//!
//! `textureSampleBaseClampToEdge` (naga: `clamp_to_edge`) becomes `texture_sample_level` at
//! level 0 of the coordinate clamped half a texel inside the edges (WGSL's definition).
//!
//! Refused: depth comparisons at an explicit level other than zero (GLSL's `textureLod` on
//! a shadow sampler; WGSL has none).

use crate::error::{LowerError, Result};
use crate::function::FunctionLowerer;
use naga::{Expression, Handle, ImageQuery, SampleLevel, SwizzleComponent};
use oxir_ir::types::SampledKind;
use oxir_ir::{Opcode, Payload, Scalar, TypeData, Value};

/// The operands of naga's `ImageSample`.
pub(crate) struct Sample {
    /// The span of the `ImageSample` expression.
    pub span: naga::Span,
    pub image: Handle<Expression>,
    pub sampler: Handle<Expression>,
    pub gather: Option<SwizzleComponent>,
    pub coordinate: Handle<Expression>,
    pub array_index: Option<Handle<Expression>>,
    pub offset: Option<Handle<Expression>>,
    pub level: SampleLevel,
    pub depth_ref: Option<Handle<Expression>>,
    pub clamp_to_edge: bool,
}

impl FunctionLowerer<'_, '_> {
    /// The texture value and the operands every texture op starts with: texture,
    /// (sampler,) coordinate and layer.
    fn texture_operands(
        &mut self,
        image: Handle<Expression>,
        sampler: Option<Handle<Expression>>,
        coordinate: Handle<Expression>,
        array_index: Option<Handle<Expression>>,
    ) -> Result<Vec<Value>> {
        let mut args = vec![self.value_of(image)?];
        if let Some(sampler) = sampler {
            args.push(self.value_of(sampler)?);
        }
        args.push(self.value_of(coordinate)?);
        if let Some(layer) = array_index {
            args.push(self.value_of(layer)?);
        }
        Ok(args)
    }

    fn is_depth_texture(&self, texture: Value) -> bool {
        matches!(
            self.type_data(self.value_type(texture)),
            TypeData::Texture {
                kind: SampledKind::Depth,
                ..
            }
        )
    }

    pub(crate) fn lower_image_sample(&mut self, sample: Sample) -> Result<Value> {
        if sample.clamp_to_edge {
            return self.sample_clamped_to_edge(&sample);
        }
        let mut args = self.texture_operands(
            sample.image,
            Some(sample.sampler),
            sample.coordinate,
            sample.array_index,
        )?;
        let op = match sample.gather {
            Some(component) => self.gather_operands(&sample, component, &mut args)?,
            None => self.sample_operands(&sample, &mut args)?,
        };
        if let Some(offset) = sample.offset {
            args.push(self.texel_offset(offset)?);
        }
        self.op(op, &args)
    }

    /// `textureSampleBaseClampToEdge(t, s, coord)` by WGSL's definition: level 0 at
    /// `coord` clamped to `[half, 1 - half]`, `half = vec2(0.5) / vec2<f32>(dimensions of
    /// level 0)`, so linear filtering never reaches past the edge texels. naga accepts it on
    /// `texture_2d<f32>` and `texture_external`; the latter is refused with its type.
    fn sample_clamped_to_edge(&mut self, sample: &Sample) -> Result<Value> {
        let texture = self.value_of(sample.image)?;
        let sampler = self.value_of(sample.sampler)?;
        let coord = self.value_of(sample.coordinate)?;
        let level = self.scalar_const(Scalar::U32, 0);
        let size = self.op(Opcode::TextureDimensions, &[texture, level])?;
        let vec2 = self.m.out.types.vector(Scalar::F32, 2);
        let size = self.op_typed(Opcode::Convert, &[size], vec2)?;
        let half = self.float_const(Scalar::F32, 0.5);
        let half = self.op_typed(Opcode::Splat, &[half], vec2)?;
        let one = self.float_const(Scalar::F32, 1.0);
        let one = self.op_typed(Opcode::Splat, &[one], vec2)?;
        let low = self.op(Opcode::Div, &[half, size])?;
        let high = self.op(Opcode::Sub, &[one, low])?;
        let clamped = self.op(Opcode::Clamp, &[coord, low, high])?;
        let zero = self.float_const(Scalar::F32, 0.0);
        self.op(
            Opcode::TextureSampleLevel,
            &[texture, sampler, clamped, zero],
        )
    }

    /// The texel offset `offset` (a WGSL const-expression) as an oxir constant.
    fn texel_offset(&mut self, offset: Handle<Expression>) -> Result<Value> {
        let span = self.function.expressions.get_span(offset);
        match self.constant_of(offset)? {
            Some(c) => Ok(self.const_value(c)),
            None => Err(LowerError::unsupported(
                "a texel offset that is not a constant expression",
                span,
            )),
        }
    }

    /// The operands after the layer of a gather (`texture_gather` with its component
    /// unless the texture is a depth one, or `texture_gather_compare` with the reference).
    fn gather_operands(
        &mut self,
        sample: &Sample,
        component: SwizzleComponent,
        args: &mut Vec<Value>,
    ) -> Result<Opcode> {
        if let Some(depth_ref) = sample.depth_ref {
            args.push(self.value_of(depth_ref)?);
            return Ok(Opcode::TextureGatherCompare);
        }
        if !self.is_depth_texture(args[0]) {
            let index = match component {
                SwizzleComponent::X => 0,
                SwizzleComponent::Y => 1,
                SwizzleComponent::Z => 2,
                SwizzleComponent::W => 3,
            };
            args.push(self.scalar_const(Scalar::U32, index));
        }
        Ok(Opcode::TextureGather)
    }

    /// The operands after the layer of a sample, and its opcode.
    fn sample_operands(&mut self, sample: &Sample, args: &mut Vec<Value>) -> Result<Opcode> {
        Ok(match (sample.depth_ref, sample.level) {
            (Some(depth_ref), SampleLevel::Zero) => {
                args.push(self.value_of(depth_ref)?);
                Opcode::TextureSampleCompareLevel
            }
            (Some(depth_ref), SampleLevel::Auto) => {
                args.push(self.value_of(depth_ref)?);
                Opcode::TextureSampleCompare
            }
            (Some(_), _) => {
                return Err(LowerError::unsupported(
                    "depth comparison sampling at a level other than zero",
                    sample.span,
                ))
            }
            (None, SampleLevel::Auto) => Opcode::TextureSample,
            (None, SampleLevel::Zero) => {
                let zero = if self.is_depth_texture(args[0]) {
                    self.scalar_const(Scalar::I32, 0)
                } else {
                    self.float_const(Scalar::F32, 0.0)
                };
                args.push(zero);
                Opcode::TextureSampleLevel
            }
            (None, SampleLevel::Exact(level)) => {
                args.push(self.value_of(level)?);
                Opcode::TextureSampleLevel
            }
            (None, SampleLevel::Bias(bias)) => {
                args.push(self.value_of(bias)?);
                Opcode::TextureSampleBias
            }
            (None, SampleLevel::Gradient { x, y }) => {
                args.push(self.value_of(x)?);
                args.push(self.value_of(y)?);
                Opcode::TextureSampleGrad
            }
        })
    }

    pub(crate) fn lower_image_load(
        &mut self,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        array_index: Option<Handle<Expression>>,
        level_or_sample: Option<Handle<Expression>>,
    ) -> Result<Value> {
        self.refuse_cube(image, "load")?;
        let mut args = self.texture_operands(image, None, coordinate, array_index)?;
        if let Some(extra) = level_or_sample {
            args.push(self.value_of(extra)?);
        }
        self.op(Opcode::TextureLoad, &args)
    }

    pub(crate) fn lower_image_store(
        &mut self,
        image: Handle<Expression>,
        coordinate: Handle<Expression>,
        array_index: Option<Handle<Expression>>,
        value: Handle<Expression>,
    ) -> Result<()> {
        self.refuse_cube(image, "store")?;
        let mut args = self.texture_operands(image, None, coordinate, array_index)?;
        args.push(self.value_of(value)?);
        self.ins(Opcode::TextureStore, &args, Payload::None, None)
            .map(drop)
    }

    /// Texel loads and stores address 1D, 2D and 3D textures only (WGSL has none of a
    /// cube; SPIR-V reads and writes of a cube storage image are refused).
    fn refuse_cube(&self, image: Handle<Expression>, what: &str) -> Result<()> {
        match *self.naga_type(image) {
            naga::TypeInner::Image {
                dim: naga::ImageDimension::Cube,
                ..
            } => Err(LowerError::unsupported(
                format!("texel {what} of a cube texture"),
                self.function.expressions.get_span(image),
            )),
            _ => Ok(()),
        }
    }

    pub(crate) fn lower_image_query(
        &mut self,
        image: Handle<Expression>,
        query: ImageQuery,
    ) -> Result<Value> {
        let texture = self.value_of(image)?;
        match query {
            ImageQuery::Size { level } => {
                let mut args = vec![texture];
                if let Some(level) = level {
                    args.push(self.value_of(level)?);
                }
                self.op(Opcode::TextureDimensions, &args)
            }
            ImageQuery::NumLevels => self.op(Opcode::TextureNumLevels, &[texture]),
            ImageQuery::NumLayers => self.op(Opcode::TextureNumLayers, &[texture]),
            ImageQuery::NumSamples => self.op(Opcode::TextureNumSamples, &[texture]),
        }
    }
}
