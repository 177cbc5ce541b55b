//! The layout engine: size, alignment, member offsets and strides of a type in memory,
//! under each of the rule sets oxir targets. It is the only place in oxir that decides
//! where bytes go; back-ends, the verifier and the interpreter all ask it.
//!
//! ## Invariants
//!
//! - Every answer is a function of `(TypeStore, Type, LayoutRules)` only.
//! - `align` is a power of two ≥ 1; `size` is a multiple of `align` except for the
//!   std430/std140 `vec3` (size 3N, align 4N), as GLSL specifies.
//! - `stride` is `Some` exactly for arrays, runtime arrays (element stride) and matrices
//!   (column stride); `offsets` is non-empty only for structs, one per member, increasing.
//! - A runtime-sized array has size 0 (zero elements) and may appear only as the whole
//!   type or as the last member of a struct (possibly nested as the last member of a
//!   struct that is itself a last member). Such a type's size is its minimum binding size.
//! - Nothing here panics on a malformed store: an index out of range, an ill-formed
//!   vector/matrix/scalar, a reference cycle (nesting deeper than [`MAX_NESTING`]) or a
//!   size beyond `u32` comes back as a [`LayoutError`].
//! - Pointers answer size 8 / align 8 under every rule; void, opaque types and
//!   resources (textures, samplers) have no layout.
//!
//! ## Rules
//!
//! N is the scalar byte width; `bool` is N = 4 under std430, std140 and scalar (a 32-bit
//! value, as in GLSL/SPIR-V) and N = 1 under metal and c. Scalars: size = align = N.
//! Vectors are given as `size, align`. For matrices, `s, a` are the size and alignment of
//! the column vector `vecR` under the same rules; for arrays, of the element; `m` is the
//! largest member alignment of a struct; `r(x, a)` rounds `x` up to a multiple of `a`.
//!
//! | rule   | vec2   | vec3           | vec4            | matrix: column stride, align | array: stride, align     | struct align |
//! |--------|--------|----------------|-----------------|------------------------------|--------------------------|--------------|
//! | std430 | 2N, 2N | 3N, 4N         | 4N, 4N          | r(s, a), a                   | r(s, a), a               | m            |
//! | std140 | 2N, 2N | 3N, 4N         | 4N, 4N          | r(r(s, a), 16), r(a, 16)     | r(r(s, a), 16), r(a, 16) | r(m, 16)     |
//! | scalar | 2N, N  | 3N, N          | 4N, N           | s, a (= N)                   | s, a                     | m            |
//! | metal  | 2N, 2N | 4N, min(4N,16) | 4N, min(4N, 16) | s, a                         | s, a                     | max(4, m)    |
//! | c      | 2N, 2N | 3N, N          | 4N, min(4N, 16) | r(s, a), a                   | r(s, a), a               | m            |
//!
//! (Metal in general: align = min(N × (len == 3 ? 4 : len), 16), size = r(N × len,
//! align); for vec3 that is 4N: `half3` 8/8, `float3` 16/16, `double3` 32/16.)
//!
//! Matrices are `C` column vectors: size = C × column stride (std140 aligns them to 16 like
//! any array of vectors, so `mat2x2<f32>` is 32/16). Arrays: size = len × stride, where the
//! stride is the type's explicit one when it has one (`array<T, N, stride S>`: at least the
//! element's size and a multiple of its alignment under the rules in use, else
//! [`LayoutError::BadExplicitStride`]; the array's alignment stays the rules') and the
//! rules' otherwise.
//! Structs: each member at `r(end of previous, member align)` unless it has an explicit
//! offset; size = `r(end of last member, struct align)`.
//!
//! **Explicit member offsets** replace the computed offset; under every rule the offset
//! must be a multiple of the member's alignment ([`LayoutError::BadExplicitOffset`]) and
//! not before the end of the previous member ([`LayoutError::OverlappingMember`]).
//! Members without one continue after the previous member.
//!
//! **Explicit struct alignment** must be a power of two. Under metal it must also be at
//! least the largest member alignment ([`LayoutError::BadExplicitAlign`]) and is then
//! used as is (it may be below metal's default minimum of 4). Under the other rules the
//! struct's alignment is the larger of the explicit and the natural one, as GLSL's
//! `align` qualifier does; std140 then still rounds it up to 16.

use crate::entities::Type;
use crate::types::{Scalar, StructType, TypeData, TypeStore};
use cranelift_entity::EntityRef;
use std::fmt;

/// Deepest nesting of types the engine follows before it reports a reference cycle.
pub const MAX_NESTING: u32 = crate::types::MAX_TYPE_NESTING;

/// A rule set for placing values in memory.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LayoutRules {
    /// GLSL `std430`: Vulkan storage buffers and push constants.
    Std430,
    /// GLSL `std140`: uniform buffers.
    Std140,
    /// `VK_EXT_scalar_block_layout`.
    Scalar,
    /// Metal Shading Language types.
    Metal,
    /// C / CUDA / PTX.
    C,
}

impl LayoutRules {
    /// Every rule set, in declaration order.
    pub const ALL: [LayoutRules; 5] = [
        LayoutRules::Std430,
        LayoutRules::Std140,
        LayoutRules::Scalar,
        LayoutRules::Metal,
        LayoutRules::C,
    ];

    /// The rule set's name: `std430`, `std140`, `scalar`, `metal` or `c` (as reflection
    /// output spells it).
    pub fn name(self) -> &'static str {
        match self {
            LayoutRules::Std430 => "std430",
            LayoutRules::Std140 => "std140",
            LayoutRules::Scalar => "scalar",
            LayoutRules::Metal => "metal",
            LayoutRules::C => "c",
        }
    }

    /// Parses the spelling produced by [`LayoutRules::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        LayoutRules::ALL
            .into_iter()
            .find(|rules| rules.name() == name)
    }
}

impl fmt::Display for LayoutRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where the bytes of one type go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeLayout {
    /// Size in bytes (0 for a bare runtime array; a runtime-sized struct counts zero
    /// elements of its trailing array).
    pub size: u32,
    /// Alignment in bytes, a power of two ≥ 1.
    pub align: u32,
    /// Array or runtime array: element stride; matrix: column stride; else `None`.
    pub stride: Option<u32>,
    /// Struct: member offsets in member order; else empty.
    pub offsets: Vec<u32>,
}

impl TypeLayout {
    fn plain(size: u32, align: u32) -> Self {
        TypeLayout {
            size,
            align,
            stride: None,
            offsets: Vec::new(),
        }
    }

    fn strided(size: u32, align: u32, stride: u32) -> Self {
        TypeLayout {
            size,
            align,
            stride: Some(stride),
            offsets: Vec::new(),
        }
    }
}

/// Why a type has no layout under some rules.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A runtime-sized type used as an array element.
    #[error("{ty} is runtime-sized and cannot be used where a fixed size is needed")]
    Unsized {
        /// The runtime-sized type, in text-form syntax.
        ty: String,
    },
    /// A runtime-sized member that is not the last member of its struct.
    #[error("struct %{struct_name}: runtime-sized member `{member}` is not the last member")]
    RuntimeArrayNotLast {
        /// The struct's name.
        struct_name: String,
        /// The runtime-sized member's name.
        member: String,
    },
    /// An opaque type, or a type containing one.
    #[error("opaque type {ty} has no memory layout")]
    Opaque {
        /// The opaque type, in text-form syntax.
        ty: String,
    },
    /// A texture or sampler type, or a type containing one.
    #[error("resource type {ty} has no memory layout")]
    Resource {
        /// The resource type, in text-form syntax.
        ty: String,
    },
    /// `void`, or a type containing it.
    #[error("void has no memory layout")]
    Void,
    /// An explicit array stride smaller than the element or not a multiple of its
    /// alignment.
    #[error(
        "{ty}: explicit stride {stride} is not a multiple of the element's alignment \
         {align} of at least its size {size}"
    )]
    BadExplicitStride {
        /// The array type.
        ty: String,
        /// The explicit stride, in bytes.
        stride: u32,
        /// The element's size under the rules, in bytes.
        size: u32,
        /// The element's alignment under the rules, in bytes.
        align: u32,
    },
    /// An explicit member offset that is not a multiple of the member's alignment.
    #[error(
        "struct %{struct_name}: explicit offset {offset} of member `{member}` is not a \
         multiple of its alignment {required_align}"
    )]
    BadExplicitOffset {
        /// The struct's name.
        struct_name: String,
        /// The member's name.
        member: String,
        /// The explicit offset, in bytes.
        offset: u32,
        /// The member's alignment under the rules, in bytes.
        required_align: u32,
    },
    /// An explicit member offset inside the previous member.
    #[error(
        "struct %{struct_name}: explicit offset {offset} of member `{member}` is before the \
         end ({previous_end}) of the previous member"
    )]
    OverlappingMember {
        /// The struct's name.
        struct_name: String,
        /// The member's name.
        member: String,
        /// The explicit offset, in bytes.
        offset: u32,
        /// The offset one past the previous member's last byte.
        previous_end: u32,
    },
    /// An explicit struct alignment that is not a power of two or, under metal, is below
    /// the largest member alignment.
    #[error(
        "struct %{struct_name}: explicit alignment {align} is not a power of two of at least \
         {required_align}"
    )]
    BadExplicitAlign {
        /// The struct's name.
        struct_name: String,
        /// The explicit alignment, in bytes.
        align: u32,
        /// The largest member alignment, in bytes (a lower bound only under metal).
        required_align: u32,
    },
    /// A malformed store entry: an index out of range, a bad scalar width, a vector or
    /// matrix with a count outside 2..=4.
    #[error("{ty} is not a valid type: {reason}")]
    InvalidType {
        /// The offending type, by index (`typeN`): spelling it out may not be possible.
        ty: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Nesting deeper than [`MAX_NESTING`], which only a reference cycle can produce in a
    /// store built through [`TypeStore`]'s interning.
    #[error("{ty} nests types more than {MAX_NESTING} levels deep (a reference cycle?)")]
    NestedTooDeeply {
        /// The type the walk stopped at, by index or in text-form syntax.
        ty: String,
    },
    /// A size, offset or stride that overflows `u32`.
    #[error("{ty} does not fit in 4 GiB")]
    TooLarge {
        /// The type, in text-form syntax.
        ty: String,
    },
}

/// The layout of `ty` under `rules`. Nested types are recomputed on every call; use a
/// [`LayoutCache`] when asking about many types of one store.
pub fn layout_of(
    types: &TypeStore,
    ty: Type,
    rules: LayoutRules,
) -> Result<TypeLayout, LayoutError> {
    compute_uncached(types, ty, rules, 0).map(|(layout, _)| layout)
}

/// The size of `ty` under `rules` (0 for a bare runtime array).
pub fn size_of(types: &TypeStore, ty: Type, rules: LayoutRules) -> Result<u32, LayoutError> {
    layout_of(types, ty, rules).map(|layout| layout.size)
}

/// The alignment of `ty` under `rules`.
pub fn align_of(types: &TypeStore, ty: Type, rules: LayoutRules) -> Result<u32, LayoutError> {
    layout_of(types, ty, rules).map(|layout| layout.align)
}

/// For a runtime-sized array, or a struct whose last member is one (directly or through
/// nested last members): `(offset of the array, element stride)`; `None` for a sized type.
/// The minimum binding size of such a type is its layout size (zero elements).
pub fn runtime_array_tail(
    types: &TypeStore,
    ty: Type,
    rules: LayoutRules,
) -> Result<Option<(u32, u32)>, LayoutError> {
    let (_, runtime_sized) = compute_uncached(types, ty, rules, 0)?;
    if !runtime_sized {
        return Ok(None);
    }
    // The whole type is valid and its nesting bounded, so this walk ends.
    let mut current = ty;
    let mut base = 0u32;
    for _ in 0..=MAX_NESTING {
        let layout = layout_of(types, current, rules)?;
        match types.try_get(current) {
            Some(TypeData::RuntimeArray { .. }) => {
                let stride = layout
                    .stride
                    .ok_or_else(|| invalid(current, "array without stride"))?;
                return Ok(Some((base, stride)));
            }
            Some(TypeData::Struct(st)) => match (st.members.last(), layout.offsets.last()) {
                (Some(last), Some(&offset)) => {
                    base = base
                        .checked_add(offset)
                        .ok_or_else(|| too_large(types, ty))?;
                    current = last.ty;
                }
                _ => return Ok(None),
            },
            _ => return Ok(None),
        }
    }
    Err(LayoutError::NestedTooDeeply {
        ty: types.display(ty).to_string(),
    })
}

/// Memoised layouts of the types of one [`TypeStore`] under one rule set, in a dense
/// vector indexed by [`Type`]. Types are append-only, so entries stay valid as the store
/// grows; a cache must not be shared between stores.
#[derive(Clone, Debug)]
pub struct LayoutCache {
    rules: LayoutRules,
    entries: Vec<Option<CachedLayout>>,
}

type CachedLayout = Result<(TypeLayout, bool), LayoutError>;

impl LayoutCache {
    /// An empty cache for layouts under `rules`.
    pub fn new(rules: LayoutRules) -> Self {
        LayoutCache {
            rules,
            entries: Vec::new(),
        }
    }

    /// The rule set this cache answers for.
    pub fn rules(&self) -> LayoutRules {
        self.rules
    }

    /// The layout of `ty`, computed on first request.
    pub fn get(&mut self, types: &TypeStore, ty: Type) -> Result<&TypeLayout, LayoutError> {
        self.ensure(types, ty, 0)?;
        match self.entries.get(ty.index()) {
            Some(Some(Ok((layout, _)))) => Ok(layout),
            Some(Some(Err(error))) => Err(error.clone()),
            _ => Err(invalid(ty, "layout missing from the cache")),
        }
    }

    fn ensure(&mut self, types: &TypeStore, ty: Type, depth: u32) -> Result<Extent, LayoutError> {
        let index = ty.index();
        if let Some(Some(cached)) = self.entries.get(index) {
            return match cached {
                Ok((layout, runtime_sized)) => Ok(Extent::of(layout, *runtime_sized)),
                Err(error) => Err(error.clone()),
            };
        }
        let rules = self.rules;
        let result = compute(types, ty, rules, depth, &mut |child, child_depth| {
            self.ensure(types, child, child_depth)
        });
        // A depth error depends on where the query started, so it is not remembered.
        let remember =
            index < types.len() && !matches!(result, Err(LayoutError::NestedTooDeeply { .. }));
        if remember {
            if self.entries.len() < types.len() {
                self.entries.resize(types.len(), None);
            }
            self.entries[index] = Some(result.clone());
        }
        result.map(|(layout, runtime_sized)| Extent::of(&layout, runtime_sized))
    }
}

/// What a container needs to know about a component.
#[derive(Copy, Clone, Debug)]
struct Extent {
    size: u32,
    align: u32,
    /// A runtime array, or a struct ending in one.
    runtime_sized: bool,
}

impl Extent {
    fn of(layout: &TypeLayout, runtime_sized: bool) -> Self {
        Extent {
            size: layout.size,
            align: layout.align,
            runtime_sized,
        }
    }
}

fn compute_uncached(
    types: &TypeStore,
    ty: Type,
    rules: LayoutRules,
    depth: u32,
) -> Result<(TypeLayout, bool), LayoutError> {
    compute(types, ty, rules, depth, &mut |child, child_depth| {
        compute_uncached(types, child, rules, child_depth)
            .map(|(layout, runtime_sized)| Extent::of(&layout, runtime_sized))
    })
}

fn invalid(ty: Type, reason: &'static str) -> LayoutError {
    LayoutError::InvalidType {
        ty: ty.to_string(),
        reason,
    }
}

fn too_large(types: &TypeStore, ty: Type) -> LayoutError {
    LayoutError::TooLarge {
        ty: types.display(ty).to_string(),
    }
}

/// Rounds `value` up to a multiple of the power of two `align`; `None` on overflow.
fn round_up(value: u32, align: u32) -> Option<u32> {
    let mask = align.checked_sub(1)?;
    value.checked_add(mask).map(|v| v & !mask)
}

/// The layout of one type, asking `component` for the extents of the types it contains.
/// Returns the layout and whether the type is runtime-sized.
fn compute(
    types: &TypeStore,
    ty: Type,
    rules: LayoutRules,
    depth: u32,
    component: &mut dyn FnMut(Type, u32) -> Result<Extent, LayoutError>,
) -> Result<(TypeLayout, bool), LayoutError> {
    if depth > MAX_NESTING {
        // By index: spelling a type out would follow the very cycle this guards against.
        return Err(LayoutError::NestedTooDeeply { ty: ty.to_string() });
    }
    let data = types
        .try_get(ty)
        .ok_or_else(|| invalid(ty, "index out of range of the type store"))?;
    let sized = |layout: TypeLayout| Ok((layout, false));
    let spelled = || types.display(ty).to_string();
    let oversize = || LayoutError::TooLarge { ty: spelled() };
    match data {
        TypeData::Void => Err(LayoutError::Void),
        TypeData::Scalar(scalar) => {
            let width =
                scalar_width(*scalar, rules).ok_or_else(|| invalid(ty, "bad scalar width"))?;
            sized(TypeLayout::plain(width, width))
        }
        TypeData::Vector { elem, len } => {
            let (size, align) =
                vector_size_align(*elem, *len, rules).ok_or_else(|| invalid(ty, "bad vector"))?;
            sized(TypeLayout::plain(size, align))
        }
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            if !(2..=4).contains(columns) {
                return Err(invalid(ty, "matrix column count outside 2..=4"));
            }
            let (column_size, column_align) =
                vector_size_align(*elem, *rows, rules).ok_or_else(|| invalid(ty, "bad matrix"))?;
            let (stride, align) = match rules {
                LayoutRules::Std430 | LayoutRules::C => {
                    (round_up(column_size, column_align), column_align)
                }
                LayoutRules::Std140 => (
                    round_up(column_size, column_align).and_then(|s| round_up(s, 16)),
                    column_align.max(16),
                ),
                LayoutRules::Scalar | LayoutRules::Metal => (Some(column_size), column_align),
            };
            let stride = stride.ok_or_else(oversize)?;
            let size = stride
                .checked_mul(u32::from(*columns))
                .ok_or_else(oversize)?;
            sized(TypeLayout::strided(size, align, stride))
        }
        TypeData::Array { elem, len, stride } => {
            let explicit = Explicit {
                ty,
                stride: *stride,
            };
            let (stride, align) =
                array_stride_align(types, *elem, explicit, rules, depth, component)?;
            let size = stride.checked_mul(*len).ok_or_else(oversize)?;
            sized(TypeLayout::strided(size, align, stride))
        }
        TypeData::RuntimeArray { elem, stride } => {
            let explicit = Explicit {
                ty,
                stride: *stride,
            };
            let (stride, align) =
                array_stride_align(types, *elem, explicit, rules, depth, component)?;
            Ok((TypeLayout::strided(0, align, stride), true))
        }
        TypeData::Struct(st) => struct_layout(types, ty, st, rules, depth, component),
        TypeData::Pointer { .. } => sized(TypeLayout::plain(8, 8)),
        TypeData::Texture { .. } | TypeData::StorageTexture { .. } | TypeData::Sampler { .. } => {
            Err(LayoutError::Resource { ty: spelled() })
        }
        TypeData::Opaque(_) => Err(LayoutError::Opaque { ty: spelled() }),
    }
}

/// Size (= alignment) of a scalar; `None` for a width oxir does not have.
fn scalar_width(scalar: Scalar, rules: LayoutRules) -> Option<u32> {
    if scalar.is_bool() {
        return Some(match rules {
            LayoutRules::Std430 | LayoutRules::Std140 | LayoutRules::Scalar => 4,
            LayoutRules::Metal | LayoutRules::C => 1,
        });
    }
    matches!(scalar.bits, 8 | 16 | 32 | 64).then(|| scalar.bytes())
}

/// `(size, align)` of `vec{len}<elem>`; `None` for a bad element or a length outside 2..=4.
fn vector_size_align(elem: Scalar, len: u8, rules: LayoutRules) -> Option<(u32, u32)> {
    if !(2..=4).contains(&len) {
        return None;
    }
    let width = scalar_width(elem, rules)?;
    let len = u32::from(len);
    // Lanes the alignment counts: a vec3 aligns like a vec4 under GLSL and metal rules.
    let aligned_lanes = if len == 3 { 4 } else { len };
    Some(match rules {
        LayoutRules::Std430 | LayoutRules::Std140 => (width * len, width * aligned_lanes),
        LayoutRules::Scalar => (width * len, width),
        LayoutRules::Metal => {
            let align = (width * aligned_lanes).min(16);
            (round_up(width * len, align)?, align)
        }
        LayoutRules::C => {
            let align = match len {
                2 => 2 * width,
                3 => width,
                _ => (4 * width).min(16),
            };
            (width * len, align)
        }
    })
}

/// An array type and its explicit stride, if it has one.
#[derive(Copy, Clone)]
struct Explicit {
    ty: Type,
    stride: Option<u32>,
}

/// `(stride, align)` of an array (fixed or runtime) of `elem`: the explicit stride when
/// there is one (checked against the element under `rules`), else the rules'.
fn array_stride_align(
    types: &TypeStore,
    elem: Type,
    explicit: Explicit,
    rules: LayoutRules,
    depth: u32,
    component: &mut dyn FnMut(Type, u32) -> Result<Extent, LayoutError>,
) -> Result<(u32, u32), LayoutError> {
    let element = component(elem, depth + 1)?;
    if element.runtime_sized {
        return Err(LayoutError::Unsized {
            ty: types.display(elem).to_string(),
        });
    }
    let stride = match rules {
        LayoutRules::Std430 | LayoutRules::C => round_up(element.size, element.align),
        LayoutRules::Std140 => round_up(element.size, element.align).and_then(|s| round_up(s, 16)),
        LayoutRules::Scalar | LayoutRules::Metal => Some(element.size),
    };
    let align = match rules {
        LayoutRules::Std140 => element.align.max(16),
        _ => element.align,
    };
    let stride = stride.ok_or_else(|| too_large(types, elem))?;
    let Some(given) = explicit.stride else {
        return Ok((stride, align));
    };
    if given < element.size || given == 0 || given % element.align != 0 {
        return Err(LayoutError::BadExplicitStride {
            ty: types.display(explicit.ty).to_string(),
            stride: given,
            size: element.size,
            align: element.align,
        });
    }
    Ok((given, align))
}

fn struct_layout(
    types: &TypeStore,
    ty: Type,
    st: &StructType,
    rules: LayoutRules,
    depth: u32,
    component: &mut dyn FnMut(Type, u32) -> Result<Extent, LayoutError>,
) -> Result<(TypeLayout, bool), LayoutError> {
    let mut offsets = Vec::with_capacity(st.members.len());
    let mut end = 0u32;
    let mut largest_member_align = 1u32;
    let mut runtime_sized = false;
    for (index, member) in st.members.iter().enumerate() {
        let extent = component(member.ty, depth + 1)?;
        if extent.runtime_sized && index + 1 != st.members.len() {
            return Err(LayoutError::RuntimeArrayNotLast {
                struct_name: st.name.clone(),
                member: member.name.clone(),
            });
        }
        let offset = match member.offset {
            Some(offset) => {
                if offset % extent.align != 0 {
                    return Err(LayoutError::BadExplicitOffset {
                        struct_name: st.name.clone(),
                        member: member.name.clone(),
                        offset,
                        required_align: extent.align,
                    });
                }
                if offset < end {
                    return Err(LayoutError::OverlappingMember {
                        struct_name: st.name.clone(),
                        member: member.name.clone(),
                        offset,
                        previous_end: end,
                    });
                }
                offset
            }
            None => round_up(end, extent.align).ok_or_else(|| too_large(types, ty))?,
        };
        end = offset
            .checked_add(extent.size)
            .ok_or_else(|| too_large(types, ty))?;
        largest_member_align = largest_member_align.max(extent.align);
        runtime_sized |= extent.runtime_sized;
        offsets.push(offset);
    }
    let align = struct_align(st, rules, largest_member_align)?;
    let size = round_up(end, align).ok_or_else(|| too_large(types, ty))?;
    let layout = TypeLayout {
        size,
        align,
        stride: None,
        offsets,
    };
    Ok((layout, runtime_sized))
}

fn struct_align(
    st: &StructType,
    rules: LayoutRules,
    largest_member_align: u32,
) -> Result<u32, LayoutError> {
    let bad_align = |align| LayoutError::BadExplicitAlign {
        struct_name: st.name.clone(),
        align,
        required_align: largest_member_align,
    };
    let align = match (rules, st.align) {
        (_, Some(explicit)) if !explicit.is_power_of_two() => return Err(bad_align(explicit)),
        (LayoutRules::Metal, Some(explicit)) if explicit < largest_member_align => {
            return Err(bad_align(explicit))
        }
        (LayoutRules::Metal, Some(explicit)) => explicit,
        (LayoutRules::Metal, None) => largest_member_align.max(4),
        (_, explicit) => largest_member_align.max(explicit.unwrap_or(1)),
    };
    Ok(match rules {
        LayoutRules::Std140 => align.max(16),
        _ => align,
    })
}

#[cfg(test)]
mod tests {
    //! Every expected number below was computed by hand from the rule table in the module
    //! documentation. Rows list the five rule sets in [`LayoutRules::ALL`] order:
    //! std430, std140, scalar, metal, c.

    use super::*;
    use crate::types::{AddressSpace, SampledKind, StructMember, TextureDim, TextureShape};

    const STD430: LayoutRules = LayoutRules::Std430;
    const STD140: LayoutRules = LayoutRules::Std140;
    const SCALAR: LayoutRules = LayoutRules::Scalar;
    const METAL: LayoutRules = LayoutRules::Metal;
    const C: LayoutRules = LayoutRules::C;

    /// Checks `project(layout)` of `ty` under each rule set against `expected`.
    fn check<T: PartialEq + fmt::Debug>(
        types: &TypeStore,
        ty: Type,
        project: impl Fn(TypeLayout) -> T,
        expected: [T; 5],
    ) {
        for (rules, want) in LayoutRules::ALL.into_iter().zip(expected) {
            let got = layout_of(types, ty, rules).map(&project);
            assert_eq!(got, Ok(want), "{rules}/{}", types.display(ty));
        }
    }

    /// Scalars, vectors, pointers: `(size, align)`; they have no stride and no offsets.
    fn plain(layout: TypeLayout) -> (u32, u32) {
        assert_eq!((layout.stride, layout.offsets.len()), (None, 0));
        (layout.size, layout.align)
    }

    /// Arrays and matrices: `(size, align, stride)`.
    fn strided(layout: TypeLayout) -> (u32, u32, u32) {
        let stride = layout.stride.expect("arrays and matrices have a stride");
        (layout.size, layout.align, stride)
    }

    /// Structs: `(size, align, offsets)`.
    fn placed(layout: TypeLayout) -> (u32, u32, Vec<u32>) {
        assert_eq!(layout.stride, None);
        (layout.size, layout.align, layout.offsets)
    }

    fn check_tail(types: &TypeStore, ty: Type, expected: [Option<(u32, u32)>; 5]) {
        for (rules, want) in LayoutRules::ALL.into_iter().zip(expected) {
            let got = runtime_array_tail(types, ty, rules);
            assert_eq!(got, Ok(want), "{rules}/{}", types.display(ty));
        }
    }

    fn error(types: &TypeStore, ty: Type, rules: LayoutRules) -> LayoutError {
        layout_of(types, ty, rules).expect_err("no layout expected")
    }

    /// A struct with implicitly placed members and no explicit alignment.
    fn declare(types: &mut TypeStore, name: &str, members: &[(&str, Type)]) -> Type {
        let members = members.iter().map(|&(member, ty)| (member, ty, None));
        declare_explicit(types, name, None, &members.collect::<Vec<_>>())
    }

    fn declare_explicit(
        types: &mut TypeStore,
        name: &str,
        align: Option<u32>,
        members: &[(&str, Type, Option<u32>)],
    ) -> Type {
        let members = members.iter().map(|&(member, ty, offset)| StructMember {
            name: member.into(),
            ty,
            offset,
        });
        let members = members.collect();
        types.declare_struct(StructType {
            name: name.into(),
            members,
            align,
        })
    }

    #[test]
    fn rule_names_round_trip() {
        let names = LayoutRules::ALL.map(LayoutRules::name);
        assert_eq!(names, ["std430", "std140", "scalar", "metal", "c"]);
        for rules in LayoutRules::ALL {
            assert_eq!(LayoutRules::from_name(rules.name()), Some(rules));
        }
        assert_eq!(LayoutRules::from_name("std431"), None);
    }

    #[test]
    fn scalars() {
        let mut types = TypeStore::new();
        #[rustfmt::skip]
        let table = [
            (Scalar::BOOL, [(4, 4), (4, 4), (4, 4), (1, 1), (1, 1)]),
            (Scalar::I8,   [(1, 1); 5]),
            (Scalar::F16,  [(2, 2); 5]),
            (Scalar::F32,  [(4, 4); 5]),
            (Scalar::U64,  [(8, 8); 5]),
            (Scalar::F64,  [(8, 8); 5]),
        ];
        for (scalar, row) in table {
            let ty = types.scalar(scalar);
            check(&types, ty, plain, row);
        }
    }

    #[test]
    fn vectors() {
        let mut types = TypeStore::new();
        // (size, align).
        #[rustfmt::skip]
        let table = [
            //                   std430    std140    scalar    metal     c
            (Scalar::F32, 2,  [(8, 8),   (8, 8),   (8, 4),   (8, 8),   (8, 8)]),
            (Scalar::F32, 3,  [(12, 16), (12, 16), (12, 4),  (16, 16), (12, 4)]),
            (Scalar::F32, 4,  [(16, 16), (16, 16), (16, 4),  (16, 16), (16, 16)]),
            (Scalar::F16, 2,  [(4, 4),   (4, 4),   (4, 2),   (4, 4),   (4, 4)]),
            (Scalar::F16, 3,  [(6, 8),   (6, 8),   (6, 2),   (8, 8),   (6, 2)]),
            (Scalar::F16, 4,  [(8, 8),   (8, 8),   (8, 2),   (8, 8),   (8, 8)]),
            (Scalar::F64, 2,  [(16, 16), (16, 16), (16, 8),  (16, 16), (16, 16)]),
            (Scalar::F64, 3,  [(24, 32), (24, 32), (24, 8),  (32, 16), (24, 8)]),
            (Scalar::F64, 4,  [(32, 32), (32, 32), (32, 8),  (32, 16), (32, 16)]),
            (Scalar::BOOL, 2, [(8, 8),   (8, 8),   (8, 4),   (2, 2),   (2, 2)]),
            (Scalar::BOOL, 3, [(12, 16), (12, 16), (12, 4),  (4, 4),   (3, 1)]),
            (Scalar::BOOL, 4, [(16, 16), (16, 16), (16, 4),  (4, 4),   (4, 4)]),
            (Scalar::I8, 2,   [(2, 2),   (2, 2),   (2, 1),   (2, 2),   (2, 2)]),
            (Scalar::I8, 3,   [(3, 4),   (3, 4),   (3, 1),   (4, 4),   (3, 1)]),
            (Scalar::I8, 4,   [(4, 4),   (4, 4),   (4, 1),   (4, 4),   (4, 4)]),
        ];
        for (elem, len, row) in table {
            let ty = types.vector(elem, len);
            check(&types, ty, plain, row);
        }
    }

    #[test]
    fn explicit_strides() {
        let mut types = TypeStore::new();
        let f32_ = types.scalar(Scalar::F32);
        let vec3 = types.vector(Scalar::F32, 3);
        // A GLSL std140 storage buffer's `float data[4]`: 16 bytes apart under any rules,
        // alignment still the rules'.
        let data = types.strided_array(f32_, 4, Some(16));
        for rules in [STD430, LayoutRules::Scalar, LayoutRules::Std140] {
            let l = layout_of(&types, data, rules).unwrap();
            assert_eq!((l.size, l.stride), (64, Some(16)), "{rules}");
        }
        assert_eq!(layout_of(&types, data, STD430).unwrap().align, 4);
        let tail = types.strided_runtime_array(vec3, Some(32));
        let l = layout_of(&types, tail, STD430).unwrap();
        assert_eq!((l.size, l.align, l.stride), (0, 16, Some(32)));
        // vec3<f32> is 12 bytes with alignment 16 (std430) or 4 (scalar): a stride of 12
        // fits only the scalar rules; 8 fits neither.
        let twelve = types.strided_array(vec3, 2, Some(12));
        assert!(layout_of(&types, twelve, LayoutRules::Scalar).is_ok());
        let bad = |r: Result<TypeLayout, LayoutError>| {
            matches!(r, Err(LayoutError::BadExplicitStride { .. }))
        };
        assert!(bad(layout_of(&types, twelve, STD430)));
        let eight = types.strided_array(vec3, 2, Some(8));
        assert!(bad(layout_of(&types, eight, LayoutRules::Scalar)));
        let zero = types.strided_array(f32_, 2, Some(0));
        assert!(bad(layout_of(&types, zero, STD430)));
        // The same element with the rules' own stride is another type.
        assert_ne!(types.array(f32_, 4), data);
    }

    #[test]
    fn matrices() {
        let mut types = TypeStore::new();
        // matCxR: C columns of vecR; (size, align, column stride).
        #[rustfmt::skip]
        let table = [
            //                      std430        std140        scalar       metal         c
            (Scalar::F32, 2, 2, [(16, 8, 8),   (32, 16, 16), (16, 4, 8),  (16, 8, 8),   (16, 8, 8)]),
            (Scalar::F32, 3, 3, [(48, 16, 16), (48, 16, 16), (36, 4, 12), (48, 16, 16), (36, 4, 12)]),
            (Scalar::F32, 4, 4, [(64, 16, 16), (64, 16, 16), (64, 4, 16), (64, 16, 16), (64, 16, 16)]),
            (Scalar::F32, 2, 3, [(32, 16, 16), (32, 16, 16), (24, 4, 12), (32, 16, 16), (24, 4, 12)]),
            (Scalar::F32, 3, 2, [(24, 8, 8),   (48, 16, 16), (24, 4, 8),  (24, 8, 8),   (24, 8, 8)]),
            (Scalar::F16, 2, 2, [(8, 4, 4),    (32, 16, 16), (8, 2, 4),   (8, 4, 4),    (8, 4, 4)]),
        ];
        for (elem, columns, rows, row) in table {
            let ty = types.matrix(elem, columns, rows);
            check(&types, ty, strided, row);
        }
    }

    #[test]
    fn arrays() {
        let mut types = TypeStore::new();
        let f32_ty = types.f32();
        let bool_ty = types.bool();
        let vec3 = types.vector(Scalar::F32, 3);
        let half3 = types.vector(Scalar::F16, 3);
        let mat2 = types.matrix(Scalar::F32, 2, 2);
        let mat3 = types.matrix(Scalar::F32, 3, 3);
        // (size, align, element stride).
        #[rustfmt::skip]
        let table = [
            //              std430        std140        scalar       metal         c
            (f32_ty, 4,  [(16, 4, 4),   (64, 16, 16), (16, 4, 4),  (16, 4, 4),   (16, 4, 4)]),
            (vec3, 3,    [(48, 16, 16), (48, 16, 16), (36, 4, 12), (48, 16, 16), (36, 4, 12)]),
            (mat2, 2,    [(32, 8, 16),  (64, 16, 32), (32, 4, 16), (32, 8, 16),  (32, 8, 16)]),
            (mat3, 2,    [(96, 16, 48), (96, 16, 48), (72, 4, 36), (96, 16, 48), (72, 4, 36)]),
            (bool_ty, 3, [(12, 4, 4),   (48, 16, 16), (12, 4, 4),  (3, 1, 1),    (3, 1, 1)]),
            (half3, 2,   [(16, 8, 8),   (32, 16, 16), (12, 2, 6),  (16, 8, 8),   (12, 2, 6)]),
        ];
        for (elem, len, row) in table {
            let ty = types.array(elem, len);
            check(&types, ty, strided, row);
        }
        // A bare runtime array: zero elements, the element's alignment and stride.
        let runtime = types.runtime_array(vec3);
        #[rustfmt::skip]
        check(&types, runtime, strided, [(0, 16, 16), (0, 16, 16), (0, 4, 12), (0, 16, 16), (0, 4, 12)]);
        #[rustfmt::skip]
        check_tail(&types, runtime, [Some((0, 16)), Some((0, 16)), Some((0, 12)), Some((0, 16)), Some((0, 12))]);
    }

    #[test]
    fn nested_structs() {
        let mut types = TypeStore::new();
        let f32_ty = types.f32();
        let vec2 = types.vector(Scalar::F32, 2);
        let vec3 = types.vector(Scalar::F32, 3);
        let vec3_pair = types.array(vec3, 2);
        let inner = declare(&mut types, "Inner", &[("v", vec2), ("s", f32_ty)]);
        let members = [
            ("a", vec3),
            ("b", f32_ty),
            ("inner", inner),
            ("arr", vec3_pair),
        ];
        let outer = declare(&mut types, "Outer", &members);
        #[rustfmt::skip]
        check(&types, inner, placed, [
            (16, 8, vec![0, 8]),
            (16, 16, vec![0, 8]),
            (12, 4, vec![0, 8]),
            (16, 8, vec![0, 8]),
            (16, 8, vec![0, 8]),
        ]);
        // std430: the f32 packs right after the 12-byte vec3; metal: float3 takes 16 bytes.
        #[rustfmt::skip]
        check(&types, outer, placed, [
            (64, 16, vec![0, 12, 16, 32]),
            (64, 16, vec![0, 12, 16, 32]),
            (52, 4,  vec![0, 12, 16, 28]),
            (80, 16, vec![0, 16, 24, 48]),
            (56, 8,  vec![0, 12, 16, 32]),
        ]);
        check_tail(&types, outer, [None; 5]);
    }

    #[test]
    fn bool_members() {
        let mut types = TypeStore::new();
        let bool_ty = types.bool();
        let f32_ty = types.f32();
        let bool3 = types.vector(Scalar::BOOL, 3);
        let members = [
            ("flag", bool_ty),
            ("x", f32_ty),
            ("flags", bool3),
            ("last", bool_ty),
        ];
        let flags = declare(&mut types, "Flags", &members);
        #[rustfmt::skip]
        check(&types, flags, placed, [
            (32, 16, vec![0, 4, 16, 28]),
            (32, 16, vec![0, 4, 16, 28]),
            (24, 4,  vec![0, 4, 8, 20]),
            (16, 4,  vec![0, 4, 8, 12]),
            (12, 4,  vec![0, 4, 8, 11]),
        ]);
    }

    #[test]
    fn trailing_runtime_array() {
        let mut types = TypeStore::new();
        let u32_ty = types.u32();
        let vec2 = types.vector(Scalar::F32, 2);
        let vec3 = types.vector(Scalar::F32, 3);
        let data = types.runtime_array(vec3);
        let buffer = declare(&mut types, "Buffer", &[("count", u32_ty), ("data", data)]);
        #[rustfmt::skip]
        check(&types, buffer, placed, [
            (16, 16, vec![0, 16]),
            (16, 16, vec![0, 16]),
            (4, 4,   vec![0, 4]),
            (16, 16, vec![0, 16]),
            (4, 4,   vec![0, 4]),
        ]);
        #[rustfmt::skip]
        check_tail(&types, buffer, [Some((16, 16)), Some((16, 16)), Some((4, 12)), Some((16, 16)), Some((4, 12))]);
        // Nested as the last member of another struct.
        let wrapper = declare(&mut types, "Wrapper", &[("header", vec2), ("body", buffer)]);
        #[rustfmt::skip]
        check_tail(&types, wrapper, [Some((32, 16)), Some((32, 16)), Some((12, 12)), Some((32, 16)), Some((12, 12))]);
        check_tail(&types, vec3, [None; 5]);
        // Not last, or inside an array: errors.
        let misplaced = declare(
            &mut types,
            "Misplaced",
            &[("data", data), ("count", u32_ty)],
        );
        let array_of_runtime = types.array(data, 2);
        let array_of_buffer = types.array(buffer, 2);
        for rules in LayoutRules::ALL {
            let not_last = error(&types, misplaced, rules);
            assert!(
                matches!(not_last, LayoutError::RuntimeArrayNotLast { .. }),
                "{rules}"
            );
            for ty in [array_of_runtime, array_of_buffer] {
                let unsized_element = error(&types, ty, rules);
                assert!(
                    matches!(unsized_element, LayoutError::Unsized { .. }),
                    "{rules}"
                );
            }
        }
    }

    #[test]
    fn explicit_offsets_accepted() {
        let mut types = TypeStore::new();
        let f32_ty = types.f32();
        let vec3 = types.vector(Scalar::F32, 3);
        let members = [
            ("a", f32_ty, Some(0)),
            ("b", vec3, Some(16)),
            ("c", f32_ty, None),
        ];
        let explicit = declare_explicit(&mut types, "Explicit", None, &members);
        #[rustfmt::skip]
        check(&types, explicit, placed, [
            (32, 16, vec![0, 16, 28]),
            (32, 16, vec![0, 16, 28]),
            (32, 4,  vec![0, 16, 28]),
            (48, 16, vec![0, 16, 32]),
            (32, 4,  vec![0, 16, 28]),
        ]);
        // A gap before an explicit offset; std140 still rounds the size to 16.
        let members = [("a", f32_ty, None), ("b", f32_ty, Some(64))];
        let gap = declare_explicit(&mut types, "Gap", None, &members);
        #[rustfmt::skip]
        check(&types, gap, placed, [
            (68, 4,  vec![0, 64]),
            (80, 16, vec![0, 64]),
            (68, 4,  vec![0, 64]),
            (68, 4,  vec![0, 64]),
            (68, 4,  vec![0, 64]),
        ]);
    }

    #[test]
    fn explicit_offsets_rejected() {
        let mut types = TypeStore::new();
        let f32_ty = types.f32();
        let vec3 = types.vector(Scalar::F32, 3);
        let vec4 = types.vector(Scalar::F32, 4);
        // vec3<f32> at 4: fine where it aligns to 4, misaligned where it aligns to 16.
        let members = [
            ("a", f32_ty, None),
            ("b", vec3, Some(4)),
            ("c", f32_ty, None),
        ];
        let packed = declare_explicit(&mut types, "Packed", None, &members);
        let misaligned = LayoutError::BadExplicitOffset {
            struct_name: "Packed".into(),
            member: "b".into(),
            offset: 4,
            required_align: 16,
        };
        for rules in [STD430, STD140, METAL] {
            assert_eq!(error(&types, packed, rules), misaligned, "{rules}");
        }
        for rules in [SCALAR, C] {
            let got = layout_of(&types, packed, rules).map(placed);
            assert_eq!(got, Ok((20, 4, vec![0, 4, 16])), "{rules}");
        }
        let members = [("a", vec4, Some(0)), ("b", f32_ty, Some(8))];
        let overlap = declare_explicit(&mut types, "Overlap", None, &members);
        let members = [("a", f32_ty, Some(8)), ("b", f32_ty, Some(4))];
        let backwards = declare_explicit(&mut types, "Backwards", None, &members);
        let overlapping = LayoutError::OverlappingMember {
            struct_name: "Overlap".into(),
            member: "b".into(),
            offset: 8,
            previous_end: 16,
        };
        for rules in LayoutRules::ALL {
            assert_eq!(error(&types, overlap, rules), overlapping, "{rules}");
            let backwards = error(&types, backwards, rules);
            let reversed = matches!(
                backwards,
                LayoutError::OverlappingMember {
                    previous_end: 12,
                    ..
                }
            );
            assert!(reversed, "{rules}");
        }
    }

    #[test]
    fn explicit_struct_align() {
        let mut types = TypeStore::new();
        let i8_ty = types.scalar(Scalar::I8);
        let f32_ty = types.f32();
        let bytes = declare(&mut types, "Bytes", &[("a", i8_ty), ("b", i8_ty)]);
        let members = [("a", i8_ty, None), ("b", i8_ty, None)];
        let bytes2 = declare_explicit(&mut types, "Bytes2", Some(2), &members);
        let wide = declare_explicit(&mut types, "Wide", Some(16), &[("x", f32_ty, None)]);
        #[rustfmt::skip]
        check(&types, bytes, placed, [
            (2, 1,   vec![0, 1]),
            (16, 16, vec![0, 1]),
            (2, 1,   vec![0, 1]),
            (4, 4,   vec![0, 1]),
            (2, 1,   vec![0, 1]),
        ]);
        // Metal uses an explicit alignment even below its default minimum of 4.
        #[rustfmt::skip]
        check(&types, bytes2, placed, [
            (2, 2,   vec![0, 1]),
            (16, 16, vec![0, 1]),
            (2, 2,   vec![0, 1]),
            (2, 2,   vec![0, 1]),
            (2, 2,   vec![0, 1]),
        ]);
        check(
            &types,
            wide,
            placed,
            std::array::from_fn(|_| (16, 16, vec![0])),
        );
        // Below the largest member alignment: an error under metal, ignored elsewhere.
        let narrow = declare_explicit(&mut types, "Narrow", Some(1), &[("x", f32_ty, None)]);
        let too_small = LayoutError::BadExplicitAlign {
            struct_name: "Narrow".into(),
            align: 1,
            required_align: 4,
        };
        assert_eq!(error(&types, narrow, METAL), too_small);
        for (rules, want) in [(STD430, 4), (STD140, 16), (SCALAR, 4), (C, 4)] {
            assert_eq!(align_of(&types, narrow, rules), Ok(want), "{rules}");
            assert_eq!(size_of(&types, narrow, rules), Ok(want), "{rules}");
        }
        let odd = declare_explicit(&mut types, "Odd", Some(12), &[("x", f32_ty, None)]);
        for rules in LayoutRules::ALL {
            let odd = error(&types, odd, rules);
            assert!(
                matches!(odd, LayoutError::BadExplicitAlign { align: 12, .. }),
                "{rules}"
            );
        }
    }

    #[test]
    fn pointers_and_errors() {
        let mut types = TypeStore::new();
        let f32_ty = types.f32();
        let pointer = types.pointer(AddressSpace::Function, f32_ty);
        check(&types, pointer, plain, [(8, 8); 5]);
        let shape = TextureShape {
            dim: TextureDim::D2,
            arrayed: false,
            multisampled: false,
        };
        let texture = types.intern(TypeData::Texture {
            shape,
            kind: SampledKind::Float,
        });
        let sampler = types.intern(TypeData::Sampler { comparison: false });
        let opaque = types.intern(TypeData::Opaque("handle".into()));
        let void = types.void();
        let void_array = types.array(void, 2);
        let holder = declare(&mut types, "Holder", &[("t", texture)]);
        let dangling = Type::new(9999);
        let dangling_member = declare(&mut types, "Dangling", &[("x", dangling)]);
        let bad_vector = types.intern(TypeData::Vector {
            elem: Scalar::F32,
            len: 7,
        });
        let vec4 = types.vector(Scalar::F32, 4);
        let huge = types.array(vec4, u32::MAX);
        for rules in LayoutRules::ALL {
            let error = |ty| error(&types, ty, rules);
            assert!(matches!(error(texture), LayoutError::Resource { .. }));
            assert!(matches!(error(sampler), LayoutError::Resource { .. }));
            assert!(matches!(error(holder), LayoutError::Resource { .. }));
            assert!(matches!(error(opaque), LayoutError::Opaque { .. }));
            assert_eq!(error(void), LayoutError::Void);
            assert_eq!(error(void_array), LayoutError::Void);
            for invalid in [dangling, dangling_member, bad_vector] {
                assert!(matches!(error(invalid), LayoutError::InvalidType { .. }));
            }
            assert!(matches!(error(huge), LayoutError::TooLarge { .. }));
            assert!(runtime_array_tail(&types, dangling, rules).is_err());
            assert!(LayoutCache::new(rules).get(&types, dangling).is_err());
        }
    }

    #[test]
    fn nesting_depth_is_bounded() {
        let too_deep =
            |result: Result<_, _>| matches!(result, Err(LayoutError::NestedTooDeeply { .. }));
        // A hand-built store with forward references: type0 -> type1 -> type0.
        let mut cyclic = TypeStore::new();
        let first = cyclic.intern(TypeData::Array {
            elem: Type::new(1),
            len: 2,
            stride: None,
        });
        cyclic.intern(TypeData::Array {
            elem: Type::new(0),
            len: 3,
            stride: None,
        });
        assert!(too_deep(layout_of(&cyclic, first, STD430)));
        assert!(too_deep(
            LayoutCache::new(STD430).get(&cyclic, first).cloned()
        ));
        // A legitimate chain of MAX_NESTING arrays is fine; one more level is not.
        let mut chain = TypeStore::new();
        let mut ty = chain.f32();
        for _ in 0..MAX_NESTING {
            ty = chain.array(ty, 1);
        }
        assert_eq!(size_of(&chain, ty, STD430), Ok(4));
        let deeper = chain.array(ty, 1);
        assert!(too_deep(layout_of(&chain, deeper, STD430)));
        // The cache does not remember a depth error: the inner type stays answerable.
        let mut cache = LayoutCache::new(STD430);
        assert!(too_deep(cache.get(&chain, deeper).cloned()));
        assert_eq!(cache.get(&chain, ty).map(|layout| layout.size), Ok(4));
    }

    #[test]
    fn cache_agrees_with_direct_computation() {
        let mut types = TypeStore::new();
        let f32_ty = types.f32();
        let vec3 = types.vector(Scalar::F32, 3);
        let inner = declare(&mut types, "Inner", &[("a", vec3), ("b", f32_ty)]);
        let pair = types.array(inner, 2);
        let mut caches = LayoutRules::ALL.map(LayoutCache::new);
        for cache in &mut caches {
            for _ in 0..2 {
                for ty in [pair, inner, vec3, f32_ty] {
                    let direct = layout_of(&types, ty, cache.rules());
                    assert_eq!(cache.get(&types, ty).cloned(), direct);
                }
            }
        }
        // The store grows after the caches were filled.
        let void = types.void();
        let outer = declare(&mut types, "Outer", &[("p", pair), ("x", f32_ty)]);
        for cache in &mut caches {
            let direct = layout_of(&types, outer, cache.rules());
            assert_eq!(cache.get(&types, outer).cloned(), direct);
            assert_eq!(cache.get(&types, void), Err(LayoutError::Void));
        }
        // std430: Inner = 16 bytes, pair = 32, x at 32, size round_up(36, 16) = 48.
        let std430_outer = caches[0]
            .get(&types, outer)
            .map(|layout| (layout.size, layout.align));
        assert_eq!(std430_outer, Ok((48, 16)));
    }
}
