//! Texture operations of the executor on the textures and samplers of
//! [`crate::texture`].

use super::Machine;
use crate::error::ErrorKind;
use crate::texture::TextureAccess;
use crate::value::{Ptr, Region, Val};
use oxir_ir::types::TypeStore;
use oxir_ir::{Global, Opcode, ScalarKind, Type, TypeData};

impl Machine<'_> {
    fn handle(v: &Val) -> Result<Global, ErrorKind> {
        match v.ptr() {
            Some(Ptr {
                region: Region::Buffer(g),
                ..
            }) => Ok(Global::from_u32(g)),
            _ => Err(ErrorKind::Malformed("texture operand is not a resource")),
        }
    }

    /// Executes the texture operation `top` (the opcode `op`, for messages).
    pub(super) fn texture_op(
        &mut self,
        op: Opcode,
        top: TextureAccess,
        tex_ty: &TypeData,
        args: &[Val],
        res_ty: Option<Type>,
        types: &TypeStore,
    ) -> Result<Option<Val>, ErrorKind> {
        use crate::texture::{gather, quantize, sample, Texture};
        use oxir_ir::types::{SampledKind, TextureDim};
        let (shape, kind, format) = match tex_ty {
            TypeData::Texture { shape, kind } => (*shape, Some(*kind), None),
            TypeData::StorageTexture { shape, format, .. } => (*shape, None, Some(*format)),
            _ => return Err(ErrorKind::Malformed("texture operation on a non-texture")),
        };
        let interpreted = match shape.dim {
            TextureDim::D1 => !shape.multisampled,
            TextureDim::D2 => !(shape.multisampled && shape.arrayed),
            TextureDim::D3 | TextureDim::Cube => false,
        };
        if !interpreted {
            return Err(ErrorKind::UnsupportedTexture {
                op,
                shape: format!(
                    "{}{}{}",
                    if shape.multisampled {
                        "multisampled "
                    } else {
                        ""
                    },
                    if shape.arrayed { "arrayed " } else { "" },
                    shape.dim.name()
                ),
            });
        }
        let g = Self::handle(&args[0])?;
        let tex = self.textures[g].get_or_insert_with(|| Texture::new(1, 1, 1));
        let layer_arg = |i: usize| -> i64 {
            if shape.arrayed {
                args[i].bits() as i64
            } else {
                0
            }
        };
        let int_kind = match (kind, format) {
            (Some(SampledKind::Sint), _) => Some(true),
            (Some(SampledKind::Uint), _) => Some(false),
            (_, Some(f)) => match f.channel_kind() {
                ScalarKind::Sint => Some(true),
                ScalarKind::Uint => Some(false),
                ScalarKind::Float | ScalarKind::Bool => None,
            },
            _ => None,
        };
        let to_val = |texel: [u32; 4]| -> Val {
            if kind == Some(SampledKind::Depth) {
                return Val::S(u64::from(texel[0]));
            }
            Val::V(
                texel
                    .iter()
                    .map(|&b| {
                        if int_kind == Some(true) {
                            b as i32 as i64 as u64
                        } else {
                            u64::from(b)
                        }
                    })
                    .collect(),
            )
        };
        let coords = |v: &Val| -> (i64, i64) {
            let l = v.lanes();
            let c = |x: u64| x as i64;
            (c(l[0]), l.get(1).map_or(0, |&y| c(y)))
        };
        let layer = usize::from(shape.arrayed);
        // The constant texel offset at operand `i`, when the instruction has one.
        let offset_at = |i: usize| -> [i64; 2] {
            args.get(i).map_or([0, 0], |v| {
                let l = v.lanes();
                let lane = |k: usize| l.get(k).map_or(0, |&x| x as u32 as i32 as i64);
                [lane(0), lane(1)]
            })
        };
        let fcoords = |v: &Val| -> (f32, f32) {
            let l = v.lanes();
            (
                f32::from_bits(l[0] as u32),
                l.get(1).map_or(0.0, |&y| f32::from_bits(y as u32)),
            )
        };
        Ok(match top {
            TextureAccess::Sample { compare, operands } => {
                let sampler = self.samplers[Self::handle(&args[1])?].unwrap_or_default();
                let (u, v) = fcoords(&args[2]);
                let offset = offset_at(operands + layer);
                let texel = sample(tex, &sampler, u, v, layer_arg(3), offset);
                if compare {
                    let reference =
                        f32::from_bits(args[3 + usize::from(shape.arrayed)].bits() as u32);
                    let pass = reference <= texel[0];
                    Some(Val::S(u64::from(if pass { 1.0f32 } else { 0.0 }.to_bits())))
                } else {
                    Some(to_val(texel.map(f32::to_bits)))
                }
            }
            TextureAccess::Gather { compare } => {
                let sampler = self.samplers[Self::handle(&args[1])?].unwrap_or_default();
                let (u, v) = fcoords(&args[2]);
                let depth = kind == Some(SampledKind::Depth);
                // The component (colour gathers) or the depth reference (comparisons).
                let has_extra = compare || !depth;
                let offset = offset_at(3 + layer + usize::from(has_extra));
                let texels = gather(tex, &sampler, u, v, layer_arg(3), offset);
                let lanes: Vec<u64> = if compare {
                    let reference = f32::from_bits(args[3 + layer].bits() as u32);
                    let pass = |t: [u32; 4]| reference <= f32::from_bits(t[0]);
                    texels
                        .iter()
                        .map(|&t| u64::from(if pass(t) { 1.0f32 } else { 0.0 }.to_bits()))
                        .collect()
                } else {
                    let component = if depth {
                        0
                    } else {
                        (args[3 + layer].bits() & 3) as usize
                    };
                    let widen = |b: u32| {
                        if int_kind == Some(true) {
                            b as i32 as i64 as u64
                        } else {
                            u64::from(b)
                        }
                    };
                    texels.iter().map(|t| widen(t[component])).collect()
                };
                Some(Val::V(lanes.into_iter().collect()))
            }
            TextureAccess::Load => {
                let (x, y) = coords(&args[1]);
                // The mip level (sampled textures) or sample index (multisampled ones):
                // level 0 is the only level; either out of range reads zero (module doc of
                // `texture`). Negative i32 values are huge as u32, so out of range too.
                let level_or_sample = args
                    .get(2 + usize::from(shape.arrayed))
                    .map_or(0, |v| i64::from(v.bits() as u32));
                let texel = if shape.multisampled {
                    tex.texel_sample(x, y, layer_arg(2), level_or_sample)
                } else if level_or_sample != 0 {
                    None
                } else {
                    tex.texel(x, y, layer_arg(2))
                };
                Some(to_val(texel.unwrap_or([0; 4])))
            }
            TextureAccess::Store => {
                let (x, y) = coords(&args[1]);
                let layer = layer_arg(2);
                let value = args[2 + usize::from(shape.arrayed)].lanes();
                let raw = [0, 1, 2, 3].map(|i| value.get(i).copied().unwrap_or(0) as u32);
                let format =
                    format.ok_or(ErrorKind::Malformed("texture_store on a sampled texture"))?;
                let q = quantize(format, raw);
                tex.store(x, y, layer, q);
                None
            }
            TextureAccess::Dimensions => {
                let rt =
                    res_ty.ok_or(ErrorKind::Malformed("texture_dimensions without a result"))?;
                Some(match types.get(rt) {
                    TypeData::Vector { .. } => Val::V(
                        [tex.width, tex.height]
                            .iter()
                            .map(|&x| u64::from(x))
                            .collect(),
                    ),
                    _ => Val::S(u64::from(tex.width)),
                })
            }
            TextureAccess::NumLevels => Some(Val::S(1)),
            TextureAccess::NumSamples => Some(Val::S(u64::from(tex.samples))),
            TextureAccess::NumLayers => Some(Val::S(u64::from(tex.layers))),
        })
    }
}
