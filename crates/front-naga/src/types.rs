//! naga types to oxir types.
//!
//! | naga `TypeInner` | oxir type |
//! |---|---|
//! | `Scalar` bool / i16..i64 / u16..u64 / f16..f64 | the same scalar (abstract types: refused) |
//! | `Vector`, `Matrix` | `vecN<T>`, `matCxR<T>` |
//! | `Atomic(T)` | `T`: oxir atomics act on plain integer pointers |
//! | `Pointer { base, space }`, `ValuePointer` | `ptr<space, T>` |
//! | `Array { size: Constant(n) }` / `Dynamic` | `array<T, n>` / `array<T>` |
//! | `Array { size: Pending(o) }` | `array<T, n>`: the override's value, once `overrides.rs` applied it (before that, only an override initialized with a literal has one) |
//! | `Struct` | a struct with naga's name (or `StructN`) and member names (or `mN`); explicit member offsets exactly when the struct is *host-shared* (reachable from a storage, uniform or immediate global), so buffer layouts stay naga's while back-ends place private structs by their own rules; a host-shared struct that naga sizes beyond its members' natural alignment (WGSL `@align`) gets the explicit `align` that reproduces naga's size |
//! | `Image` sampled / depth / storage | `texture_*<f32|i32|u32|depth>` / `texture_storage_*<format, access>` (external textures and other texel formats: refused) |
//! | `Sampler { comparison }` | `sampler` / `sampler_comparison` |
//! | acceleration structures, ray queries, binding arrays, cooperative matrices | refused |
//!
//! Address spaces: `function private workgroup uniform handle` map to themselves,
//! `storage { access }` to `storage(read|write|read_write)`, `immediate` to `push_constant`;
//! task and ray payload spaces are refused.
//!
//! Array strides and matrix strides are not stored in oxir types: the binding's layout
//! rules (std430 for storage and push constants, std140 for uniform) derive them.
//! [`ModuleLowerer::check_buffer_layout`] therefore compares naga's layout of every
//! buffer global with what those rules give and refuses the global when they differ
//! (for example a SPIR-V buffer with a scalar-layout stride, or a WGSL `mat2x2<f32>` in a
//! uniform buffer, whose 8-byte column stride std140 cannot express).

use crate::error::{LowerError, Result};
use crate::module::ModuleLowerer;
use naga::{Handle, Span, TypeInner};
use oxir_ir::data_layout::{align_of, layout_of, LayoutRules};
use oxir_ir::types::{
    SampledKind, StructMember, StructType, TexelFormat, TextureDim, TextureShape, MAX_TYPE_NESTING,
    MAX_VALUE_TYPE_NESTING,
};
use oxir_ir::{AddressSpace, Scalar, ScalarKind, StorageAccess, Type, TypeData};

/// The oxir scalar of a naga scalar.
pub(crate) fn scalar(s: naga::Scalar, span: Span) -> Result<Scalar> {
    let kind = match s.kind {
        naga::ScalarKind::Bool => return Ok(Scalar::BOOL),
        naga::ScalarKind::Sint => ScalarKind::Sint,
        naga::ScalarKind::Uint => ScalarKind::Uint,
        naga::ScalarKind::Float => ScalarKind::Float,
        naga::ScalarKind::AbstractInt | naga::ScalarKind::AbstractFloat => {
            return Err(LowerError::unsupported("abstract numeric type", span))
        }
    };
    let bits = s.width.checked_mul(8).unwrap_or(0);
    let out = Scalar { kind, bits };
    if Scalar::ALL.contains(&out) {
        Ok(out)
    } else {
        Err(LowerError::unsupported(
            format!("{}-bit scalar type", bits),
            span,
        ))
    }
}

/// The oxir storage access of a naga one (`LOAD` read, `STORE` write, both read-write).
pub(crate) fn storage_access(access: naga::StorageAccess) -> StorageAccess {
    let load = access.contains(naga::StorageAccess::LOAD);
    let store = access.contains(naga::StorageAccess::STORE);
    match (load, store) {
        (true, true) => StorageAccess::ReadWrite,
        (false, true) => StorageAccess::Write,
        _ if access.contains(naga::StorageAccess::ATOMIC) => StorageAccess::ReadWrite,
        _ => StorageAccess::Read,
    }
}

/// The oxir address space of a naga one.
pub(crate) fn address_space(space: naga::AddressSpace, span: Span) -> Result<AddressSpace> {
    Ok(match space {
        naga::AddressSpace::Function => AddressSpace::Function,
        naga::AddressSpace::Private => AddressSpace::Private,
        naga::AddressSpace::WorkGroup => AddressSpace::Workgroup,
        naga::AddressSpace::Uniform => AddressSpace::Uniform,
        naga::AddressSpace::Storage { access } => AddressSpace::Storage(storage_access(access)),
        naga::AddressSpace::Handle => AddressSpace::Handle,
        naga::AddressSpace::Immediate => AddressSpace::PushConstant,
        naga::AddressSpace::TaskPayload => {
            return Err(LowerError::unsupported("task payload (mesh shaders)", span))
        }
        naga::AddressSpace::RayPayload | naga::AddressSpace::IncomingRayPayload => {
            return Err(LowerError::unsupported(
                "ray payload (ray tracing pipelines)",
                span,
            ))
        }
    })
}

/// The layout rules of a buffer in `space` when uniform buffers use `uniform`, or `None`
/// for memory the host never sees.
pub(crate) fn buffer_rules(space: naga::AddressSpace, uniform: LayoutRules) -> Option<LayoutRules> {
    match space {
        naga::AddressSpace::Storage { .. } | naga::AddressSpace::Immediate => {
            Some(LayoutRules::Std430)
        }
        naga::AddressSpace::Uniform => Some(uniform),
        _ => None,
    }
}

/// The rules of the module's uniform buffers, read from the layout naga computed: std140
/// (GLSL's uniform blocks, and every WGSL uniform buffer std140 lays out the same way)
/// unless a uniform buffer holds a matrix whose columns naga places closer than std140's
/// 16 bytes (WGSL's `matCx2<f32>`, `f16` matrices; a SPIR-V `MatrixStride` of 8), in which
/// case std430 — WGSL's layout in every address space. Whether each buffer then matches
/// the chosen rules exactly is [`ModuleLowerer::check_buffer_layout`]'s to say.
pub(crate) fn uniform_rules(naga: &naga::Module, layouter: &naga::proc::Layouter) -> LayoutRules {
    let mut stack: Vec<Handle<naga::Type>> = naga
        .global_variables
        .iter()
        .filter(|(_, g)| g.space == naga::AddressSpace::Uniform)
        .map(|(_, g)| g.ty)
        .collect();
    let mut seen = vec![false; naga.types.len()];
    while let Some(ty) = stack.pop() {
        if std::mem::replace(&mut seen[ty.index()], true) {
            continue;
        }
        match &naga.types[ty].inner {
            // naga places columns at the column vector's alignment (its SPIR-V reader
            // refuses any other `MatrixStride`); std140 rounds that up to 16.
            TypeInner::Matrix { .. } if layouter[ty].alignment.round_up(1) < 16 => {
                return LayoutRules::Std430;
            }
            TypeInner::Array { base, .. } => stack.push(*base),
            TypeInner::Struct { members, .. } => stack.extend(members.iter().map(|m| m.ty)),
            _ => {}
        }
    }
    LayoutRules::Std140
}

fn texel_format(format: naga::StorageFormat, span: Span) -> Result<TexelFormat> {
    use naga::StorageFormat as F;
    use TexelFormat as T;
    Ok(match format {
        F::R8Unorm => T::R8Unorm,
        F::R8Snorm => T::R8Snorm,
        F::R8Uint => T::R8Uint,
        F::R8Sint => T::R8Sint,
        F::R16Uint => T::R16Uint,
        F::R16Sint => T::R16Sint,
        F::R16Float => T::R16Float,
        F::R16Unorm => T::R16Unorm,
        F::R16Snorm => T::R16Snorm,
        F::R32Float => T::R32Float,
        F::R32Sint => T::R32Sint,
        F::R32Uint => T::R32Uint,
        F::Rg8Unorm => T::Rg8Unorm,
        F::Rg8Snorm => T::Rg8Snorm,
        F::Rg8Uint => T::Rg8Uint,
        F::Rg8Sint => T::Rg8Sint,
        F::Rg16Uint => T::Rg16Uint,
        F::Rg16Sint => T::Rg16Sint,
        F::Rg16Float => T::Rg16Float,
        F::Rg16Unorm => T::Rg16Unorm,
        F::Rg16Snorm => T::Rg16Snorm,
        F::Rg32Float => T::Rg32Float,
        F::Rg32Sint => T::Rg32Sint,
        F::Rg32Uint => T::Rg32Uint,
        F::Rgba8Unorm => T::Rgba8Unorm,
        F::Rgba8Snorm => T::Rgba8Snorm,
        F::Rgba8Uint => T::Rgba8Uint,
        F::Rgba8Sint => T::Rgba8Sint,
        F::Bgra8Unorm => T::Bgra8Unorm,
        F::Rgb10a2Unorm => T::Rgb10a2Unorm,
        F::Rgb10a2Uint => T::Rgb10a2Uint,
        F::Rgba16Float => T::Rgba16Float,
        F::Rgba16Sint => T::Rgba16Sint,
        F::Rgba16Uint => T::Rgba16Uint,
        F::Rgba16Unorm => T::Rgba16Unorm,
        F::Rgba16Snorm => T::Rgba16Snorm,
        F::Rgba32Float => T::Rgba32Float,
        F::Rgba32Sint => T::Rgba32Sint,
        F::Rgba32Uint => T::Rgba32Uint,
        // A packed unsigned float format (11-, 11- and 10-bit floats without sign) and a
        // 64-bit integer one (needs 64-bit image atomics): no conversion of theirs exists in
        // oxir yet.
        F::Rg11b10Ufloat | F::R64Uint => {
            let name = format!("{format:?}").to_lowercase();
            return Err(LowerError::unsupported(
                format!("storage texture format `{name}`"),
                span,
            ));
        }
    })
}

fn texture_dim(dim: naga::ImageDimension) -> TextureDim {
    match dim {
        naga::ImageDimension::D1 => TextureDim::D1,
        naga::ImageDimension::D2 => TextureDim::D2,
        naga::ImageDimension::D3 => TextureDim::D3,
        naga::ImageDimension::Cube => TextureDim::Cube,
    }
}

/// Identifier characters of the text form, `[A-Za-z_][A-Za-z0-9_]*` (no `.`: oxir uses
/// `.N` suffixes to make names unique).
pub(crate) fn sanitize(name: &str, fallback: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out = fallback.to_string();
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

impl ModuleLowerer<'_> {
    fn type_span(&self, handle: Handle<naga::Type>) -> Span {
        self.naga.types.get_span(handle)
    }

    /// The oxir type of naga type `handle` (cached).
    pub(crate) fn lower_type(&mut self, handle: Handle<naga::Type>) -> Result<Type> {
        if let Some(ty) = self.types[handle.index()] {
            return Ok(ty);
        }
        let span = self.type_span(handle);
        let ty = match &self.naga.types[handle].inner {
            TypeInner::Array { base, size, stride } => {
                let elem = self.lower_type(*base)?;
                let ty = match size {
                    naga::ArraySize::Constant(n) => self.out.types.array(elem, n.get()),
                    naga::ArraySize::Dynamic => self.out.types.runtime_array(elem),
                    naga::ArraySize::Pending(_) if self.spec_constants.is_some() => {
                        return Err(LowerError::unsupported(
                            "array sized by a pipeline-overridable constant kept as a \
                             specialization constant",
                            span,
                        ))
                    }
                    naga::ArraySize::Pending(_) => match size.resolve(self.naga.to_ctx()) {
                        Ok(naga::proc::IndexableLength::Known(n)) => self.out.types.array(elem, n),
                        Ok(naga::proc::IndexableLength::Dynamic) | Err(_) => {
                            return Err(LowerError::unsupported(
                                "array sized by a pipeline-overridable constant whose value \
                                 was not applied",
                                span,
                            ))
                        }
                    },
                };
                self.with_source_stride(handle, ty, *stride)
            }
            TypeInner::Struct { members, .. } => {
                let host_shared = self.host_shared[handle.index()];
                let mut out_members = Vec::with_capacity(members.len());
                for (i, member) in members.iter().enumerate() {
                    let ty = self.lower_type(member.ty)?;
                    let fallback = format!("m{i}");
                    out_members.push(StructMember {
                        name: member
                            .name
                            .as_deref()
                            .map_or(fallback.clone(), |n| sanitize(n, &fallback)),
                        ty,
                        offset: host_shared.then_some(member.offset),
                    });
                }
                let fallback = format!("Struct{}", handle.index());
                let name = self.naga.types[handle]
                    .name
                    .as_deref()
                    .map_or(fallback.clone(), |n| sanitize(n, &fallback));
                let align = if host_shared {
                    self.struct_align(handle, &out_members)
                } else {
                    None
                };
                self.out.types.declare_struct(StructType {
                    name,
                    members: out_members,
                    align,
                })
            }
            inner => {
                let inner = inner.clone();
                self.lower_inner(&inner, span)?
            }
        };
        self.refuse_deep_nesting(ty, span)?;
        self.types[handle.index()] = Some(ty);
        Ok(ty)
    }

    /// Refuses a type deeper than oxir's printer, parser and layout engine follow (a value
    /// type is held one level below the limit so that a pointer to it fits).
    fn refuse_deep_nesting(&self, ty: Type, span: Span) -> Result<()> {
        let depth = self.out.types.nesting(ty);
        let is_pointer = matches!(self.out.types.get(ty), TypeData::Pointer { .. });
        let limit = if is_pointer {
            MAX_TYPE_NESTING
        } else {
            MAX_VALUE_TYPE_NESTING
        };
        if depth > limit {
            return Err(LowerError::unsupported(
                format!("a type nested {depth} levels deep (oxir accepts at most {limit})"),
                span,
            ));
        }
        Ok(())
    }

    /// The explicit alignment a host-shared struct needs so that the layout rules give
    /// it naga's size. WGSL's `@align(N)` on a member raises the struct's alignment and so
    /// its size (`roundUp(align, end)`), but naga keeps only the resulting offsets and
    /// size; the smallest power of two that rounds the members' end up to naga's size
    /// restores it. `None` when the natural alignment already gives naga's size.
    fn struct_align(&self, handle: Handle<naga::Type>, members: &[StructMember]) -> Option<u32> {
        let TypeInner::Struct {
            members: naga_members,
            span,
        } = &self.naga.types[handle].inner
        else {
            return None;
        };
        let types = &self.out.types;
        let natural = members
            .iter()
            .map(|m| align_of(types, m.ty, LayoutRules::Std430).unwrap_or(1))
            .max()
            .unwrap_or(1);
        let naga_align = self.layouter[handle].alignment.round_up(1);
        let (last, last_naga) = (members.last()?, naga_members.last()?);
        let last_size = layout_of(types, last.ty, LayoutRules::Std430).ok()?.size;
        let end = last_naga.offset.checked_add(last_size)?;
        let round = |x: u32, a: u32| x.div_ceil(a) * a;
        if round(end, natural.max(naga_align)) == *span {
            return (naga_align > natural).then_some(naga_align);
        }
        (0..=8)
            .map(|k| 1u32 << k)
            .filter(|&a| a > natural)
            .find(|&a| round(end, a) == *span)
    }

    /// The oxir type of a naga type given by value (expression type resolutions).
    pub(crate) fn lower_inner(&mut self, inner: &TypeInner, span: Span) -> Result<Type> {
        let types = &mut self.out.types;
        Ok(match *inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => {
                let s = scalar(s, span)?;
                types.scalar(s)
            }
            TypeInner::Vector { size, scalar: s } => {
                let s = scalar(s, span)?;
                types.vector(s, size as u8)
            }
            TypeInner::Matrix {
                columns,
                rows,
                scalar: s,
            } => {
                let s = scalar(s, span)?;
                types.matrix(s, columns as u8, rows as u8)
            }
            TypeInner::Pointer { base, space } => {
                let space = address_space(space, span)?;
                let pointee = self.lower_type(base)?;
                self.out.types.pointer(space, pointee)
            }
            TypeInner::ValuePointer {
                size,
                scalar: s,
                space,
            } => {
                let space = address_space(space, span)?;
                let s = scalar(s, span)?;
                let pointee = match size {
                    Some(size) => types.vector(s, size as u8),
                    None => types.scalar(s),
                };
                types.pointer(space, pointee)
            }
            TypeInner::Image {
                dim,
                arrayed,
                class,
            } => {
                let shape = |multisampled| TextureShape {
                    dim: texture_dim(dim),
                    arrayed,
                    multisampled,
                };
                let data = match class {
                    naga::ImageClass::Sampled { kind, multi } => {
                        let kind = match kind {
                            naga::ScalarKind::Float => SampledKind::Float,
                            naga::ScalarKind::Sint => SampledKind::Sint,
                            naga::ScalarKind::Uint => SampledKind::Uint,
                            _ => {
                                return Err(LowerError::unsupported(
                                    "texture of a non-numeric sample type",
                                    span,
                                ))
                            }
                        };
                        TypeData::Texture {
                            shape: shape(multi),
                            kind,
                        }
                    }
                    naga::ImageClass::Depth { multi } => TypeData::Texture {
                        shape: shape(multi),
                        kind: SampledKind::Depth,
                    },
                    naga::ImageClass::Storage { format, access } => TypeData::StorageTexture {
                        shape: shape(false),
                        format: texel_format(format, span)?,
                        access: storage_access(access),
                    },
                    naga::ImageClass::External => {
                        return Err(LowerError::unsupported("external texture", span))
                    }
                };
                types.intern(data)
            }
            TypeInner::Sampler { comparison } => types.intern(TypeData::Sampler { comparison }),
            TypeInner::AccelerationStructure { .. } => {
                return Err(LowerError::unsupported(
                    "acceleration structure (ray tracing)",
                    span,
                ))
            }
            TypeInner::RayQuery { .. } => return Err(LowerError::unsupported("ray query", span)),
            TypeInner::BindingArray { .. } => {
                return Err(LowerError::unsupported("binding array", span))
            }
            TypeInner::CooperativeMatrix { .. } => {
                return Err(LowerError::unsupported("cooperative matrix", span))
            }
            TypeInner::Array { .. } | TypeInner::Struct { .. } => {
                return Err(LowerError::internal(
                    "array or struct type given by value instead of by handle",
                    span,
                ))
            }
        })
    }

    /// Marks the types of storage, uniform and immediate globals, and everything they
    /// contain, as host-shared (their structs keep naga's member offsets), and records
    /// the rules of the buffers each is in.
    pub(crate) fn mark_host_shared(&mut self) {
        let uniform = self.out.layouts.uniform;
        let mut stack: Vec<(Handle<naga::Type>, LayoutRules)> = self
            .naga
            .global_variables
            .iter()
            .filter_map(|(_, g)| Some((g.ty, buffer_rules(g.space, uniform)?)))
            .collect();
        while let Some((ty, rules)) = stack.pop() {
            self.host_shared[ty.index()] = true;
            let seen = &mut self.buffer_rules[ty.index()];
            if seen.contains(&rules) {
                continue;
            }
            seen.push(rules);
            match &self.naga.types[ty].inner {
                TypeInner::Array { base, .. } | TypeInner::BindingArray { base, .. } => {
                    stack.push((*base, rules))
                }
                TypeInner::Struct { members, .. } => {
                    stack.extend(members.iter().map(|m| (m.ty, rules)))
                }
                _ => {}
            }
        }
    }

    /// A buffer's array (`ty`, lowered from naga type `handle`) with the stride the source
    /// gave (naga's, e.g. a GLSL `std140` storage buffer or SPIR-V `ArrayStride`) made
    /// explicit when the rules of some buffer it is in would give another; other arrays as
    /// they are, so their text and SPIR-V do not change. Each buffer global is still
    /// checked against naga's layout under its own rules (`check_buffer_layout`). Whether
    /// the element fits an explicit stride is the layout engine's check.
    fn with_source_stride(&mut self, handle: Handle<naga::Type>, ty: Type, stride: u32) -> Type {
        let rules_stride = |rules| {
            layout_of(&self.out.types, ty, rules)
                .ok()
                .and_then(|l| l.stride)
        };
        let uses = &self.buffer_rules[handle.index()];
        if uses.iter().all(|&r| rules_stride(r) == Some(stride)) {
            return ty;
        }
        let data = self.out.types.get(ty).clone();
        if let TypeData::Array { elem, len, .. } = data {
            return self.out.types.strided_array(elem, len, Some(stride));
        }
        if let TypeData::RuntimeArray { elem, .. } = data {
            return self.out.types.strided_runtime_array(elem, Some(stride));
        }
        ty
    }

    /// Checks that `rules` lay out oxir type `ty` exactly as naga laid out `handle`; the
    /// message says where they differ.
    pub(crate) fn check_buffer_layout(
        &self,
        handle: Handle<naga::Type>,
        ty: Type,
        rules: LayoutRules,
    ) -> std::result::Result<(), String> {
        let ours = layout_of(&self.out.types, ty, rules).map_err(|e| e.to_string())?;
        let theirs = self.layouter[handle];
        let shown = || self.out.types.display(ty).to_string();
        match (&self.naga.types[handle].inner, self.out.types.get(ty)) {
            (TypeInner::Array { base, stride, .. }, TypeData::Array { elem, .. })
            | (TypeInner::Array { base, stride, .. }, TypeData::RuntimeArray { elem, .. }) => {
                if ours.stride != Some(*stride) {
                    return Err(format!(
                        "{} has array stride {stride}, the {rules} rules give {}",
                        shown(),
                        ours.stride.unwrap_or(0)
                    ));
                }
                self.check_buffer_layout(*base, *elem, rules)
            }
            (TypeInner::Struct { members, .. }, TypeData::Struct(st)) => {
                for (member, out) in members.iter().zip(&st.members) {
                    self.check_buffer_layout(member.ty, out.ty, rules)?;
                }
                Ok(())
            }
            (TypeInner::Matrix { .. }, _) if theirs.size != ours.size => Err(format!(
                "{} takes {} bytes, the {rules} rules give {} (column stride)",
                shown(),
                theirs.size,
                ours.size
            )),
            _ => Ok(()),
        }
    }
}
