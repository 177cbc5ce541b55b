//! The type system: scalars, vectors, matrices, arrays, structs, pointers, resources and
//! opaque types, interned in a [`TypeStore`].
//!
//! Invariants the store maintains (and the verifier re-checks on modules that were built
//! by hand):
//! - interning: two structurally equal [`TypeData`] always map to the same [`Type`];
//! - vectors have 2..=4 lanes of a scalar (bool, integer or float) element;
//! - matrices have 2..=4 columns and 2..=4 rows of a float element, stored column-major;
//! - struct names are unique in a store: declaring a different body under a taken name
//!   gets a fresh name with a numeric suffix, so the text form can refer to structs by name;
//! - `void` is a type only for function results and value-less instructions.

use crate::entities::Type;
use cranelift_entity::{PrimaryMap, SecondaryMap};
use std::collections::HashMap;
use std::fmt;

/// Address spaces of logical pointers. Pointers are logical: they cannot be converted to
/// or from integers, and every pointer names the space of the memory it points into.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressSpace {
    /// Per-invocation stack memory (`alloca function`).
    Function,
    /// Per-invocation module-scope memory.
    Private,
    /// Memory shared by the invocations of one workgroup.
    Workgroup,
    /// A storage buffer binding.
    Storage(StorageAccess),
    /// A uniform buffer binding.
    Uniform,
    /// Push constants.
    PushConstant,
    /// Opaque resources: textures and samplers.
    Handle,
}

/// Access mode of storage buffers and storage textures.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StorageAccess {
    /// Read-only (`read`).
    Read,
    /// Write-only (`write`).
    Write,
    /// Readable and writable (`read_write`).
    ReadWrite,
}

impl StorageAccess {
    /// The text-form spelling: `read`, `write` or `read_write`.
    pub fn name(self) -> &'static str {
        match self {
            StorageAccess::Read => "read",
            StorageAccess::Write => "write",
            StorageAccess::ReadWrite => "read_write",
        }
    }

    /// Parses the spelling produced by [`StorageAccess::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "read" => StorageAccess::Read,
            "write" => StorageAccess::Write,
            "read_write" => StorageAccess::ReadWrite,
            _ => return None,
        })
    }

    /// Whether this mode allows writes (`write` and `read_write`).
    pub fn can_write(self) -> bool {
        !matches!(self, StorageAccess::Read)
    }
}

impl fmt::Display for AddressSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddressSpace::Function => f.write_str("function"),
            AddressSpace::Private => f.write_str("private"),
            AddressSpace::Workgroup => f.write_str("workgroup"),
            AddressSpace::Storage(access) => write!(f, "storage({})", access.name()),
            AddressSpace::Uniform => f.write_str("uniform"),
            AddressSpace::PushConstant => f.write_str("push_constant"),
            AddressSpace::Handle => f.write_str("handle"),
        }
    }
}

impl AddressSpace {
    /// Whether stores through a pointer in this space are allowed.
    pub fn is_writable(self) -> bool {
        match self {
            AddressSpace::Function | AddressSpace::Private | AddressSpace::Workgroup => true,
            AddressSpace::Storage(access) => access.can_write(),
            AddressSpace::Uniform | AddressSpace::PushConstant | AddressSpace::Handle => false,
        }
    }
}

/// Scalar element kinds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarKind {
    /// Boolean.
    Bool,
    /// Two's-complement signed integer.
    Sint,
    /// Unsigned integer.
    Uint,
    /// IEEE 754 binary floating point.
    Float,
}

/// A scalar type: kind plus width in bits (bool is reported as 8 bits wide for
/// constants; its memory size comes from the layout rules).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scalar {
    /// Whether the scalar is a bool, a signed or unsigned integer, or a float.
    pub kind: ScalarKind,
    /// Width in bits: 8 for bool; 8, 16, 32 or 64 for integers; 16, 32 or 64 for floats.
    pub bits: u8,
}

impl Scalar {
    /// `bool`.
    pub const BOOL: Scalar = Scalar {
        kind: ScalarKind::Bool,
        bits: 8,
    };
    /// `i8`.
    pub const I8: Scalar = Scalar {
        kind: ScalarKind::Sint,
        bits: 8,
    };
    /// `i16`.
    pub const I16: Scalar = Scalar {
        kind: ScalarKind::Sint,
        bits: 16,
    };
    /// `i32`.
    pub const I32: Scalar = Scalar {
        kind: ScalarKind::Sint,
        bits: 32,
    };
    /// `i64`.
    pub const I64: Scalar = Scalar {
        kind: ScalarKind::Sint,
        bits: 64,
    };
    /// `u8`.
    pub const U8: Scalar = Scalar {
        kind: ScalarKind::Uint,
        bits: 8,
    };
    /// `u16`.
    pub const U16: Scalar = Scalar {
        kind: ScalarKind::Uint,
        bits: 16,
    };
    /// `u32`.
    pub const U32: Scalar = Scalar {
        kind: ScalarKind::Uint,
        bits: 32,
    };
    /// `u64`.
    pub const U64: Scalar = Scalar {
        kind: ScalarKind::Uint,
        bits: 64,
    };
    /// `f16`.
    pub const F16: Scalar = Scalar {
        kind: ScalarKind::Float,
        bits: 16,
    };
    /// `f32`.
    pub const F32: Scalar = Scalar {
        kind: ScalarKind::Float,
        bits: 32,
    };
    /// `f64`.
    pub const F64: Scalar = Scalar {
        kind: ScalarKind::Float,
        bits: 64,
    };

    /// Every scalar type, in text-form order.
    pub const ALL: [Scalar; 12] = [
        Scalar::BOOL,
        Scalar::I8,
        Scalar::I16,
        Scalar::I32,
        Scalar::I64,
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::F16,
        Scalar::F32,
        Scalar::F64,
    ];

    /// The text-form spelling (`bool`, `i32`, `f16`, ...). Integer and float widths other
    /// than those of [`Scalar::ALL`] are not valid; they print as the 64-bit type of their
    /// kind.
    pub fn name(self) -> &'static str {
        match (self.kind, self.bits) {
            (ScalarKind::Bool, _) => "bool",
            (ScalarKind::Sint, 8) => "i8",
            (ScalarKind::Sint, 16) => "i16",
            (ScalarKind::Sint, 32) => "i32",
            (ScalarKind::Sint, _) => "i64",
            (ScalarKind::Uint, 8) => "u8",
            (ScalarKind::Uint, 16) => "u16",
            (ScalarKind::Uint, 32) => "u32",
            (ScalarKind::Uint, _) => "u64",
            (ScalarKind::Float, 16) => "f16",
            (ScalarKind::Float, 32) => "f32",
            (ScalarKind::Float, _) => "f64",
        }
    }

    /// Parses the spelling produced by [`Scalar::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Width in bytes of the value (bool: 1).
    pub fn bytes(self) -> u32 {
        u32::from(self.bits) / 8
    }

    /// Whether the scalar is a signed or unsigned integer.
    pub fn is_integer(self) -> bool {
        matches!(self.kind, ScalarKind::Sint | ScalarKind::Uint)
    }

    /// Whether the scalar is a float.
    pub fn is_float(self) -> bool {
        self.kind == ScalarKind::Float
    }

    /// Whether the scalar is `bool`.
    pub fn is_bool(self) -> bool {
        self.kind == ScalarKind::Bool
    }

    /// Whether the scalar is a signed integer (floats are not counted as signed).
    pub fn is_signed(self) -> bool {
        self.kind == ScalarKind::Sint
    }
}

/// Dimensionality of a texture.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TextureDim {
    /// One-dimensional (`1d`).
    D1,
    /// Two-dimensional (`2d`).
    D2,
    /// Three-dimensional (`3d`).
    D3,
    /// A cube map, addressed by a 3-component direction (`cube`).
    Cube,
}

impl TextureDim {
    /// The text-form spelling: `1d`, `2d`, `3d` or `cube`.
    pub fn name(self) -> &'static str {
        match self {
            TextureDim::D1 => "1d",
            TextureDim::D2 => "2d",
            TextureDim::D3 => "3d",
            TextureDim::Cube => "cube",
        }
    }

    /// Parses the spelling produced by [`TextureDim::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "1d" => TextureDim::D1,
            "2d" => TextureDim::D2,
            "3d" => TextureDim::D3,
            "cube" => TextureDim::Cube,
            _ => return None,
        })
    }

    /// Number of coordinate components used to address a texel (without array layer).
    pub fn coordinate_count(self) -> u8 {
        match self {
            TextureDim::D1 => 1,
            TextureDim::D2 => 2,
            TextureDim::D3 | TextureDim::Cube => 3,
        }
    }
}

/// What a sampled texture returns.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SampledKind {
    /// Sampling returns `vec4<f32>` (`f32`).
    Float,
    /// Sampling returns `vec4<i32>` (`i32`).
    Sint,
    /// Sampling returns `vec4<u32>` (`u32`).
    Uint,
    /// Depth texture: sampling returns one `f32`; supports comparison sampling.
    Depth,
}

impl SampledKind {
    /// The text-form spelling: `f32`, `i32`, `u32` or `depth`.
    pub fn name(self) -> &'static str {
        match self {
            SampledKind::Float => "f32",
            SampledKind::Sint => "i32",
            SampledKind::Uint => "u32",
            SampledKind::Depth => "depth",
        }
    }

    /// Parses the spelling produced by [`SampledKind::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "f32" => SampledKind::Float,
            "i32" => SampledKind::Sint,
            "u32" => SampledKind::Uint,
            "depth" => SampledKind::Depth,
            _ => return None,
        })
    }
}

/// Texel formats of storage textures (the WGSL texel formats of the same names; how each
/// stores its channels is [`TexelFormat::layout`], in [`crate::texel`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TexelFormat {
    /// One 8-bit unsigned normalized channel.
    R8Unorm,
    /// One 8-bit signed normalized channel.
    R8Snorm,
    /// One 8-bit unsigned integer channel.
    R8Uint,
    /// One 8-bit signed integer channel.
    R8Sint,
    /// One 16-bit unsigned integer channel.
    R16Uint,
    /// One 16-bit signed integer channel.
    R16Sint,
    /// One 16-bit float channel.
    R16Float,
    /// One 16-bit unsigned normalized channel.
    R16Unorm,
    /// One 16-bit signed normalized channel.
    R16Snorm,
    /// One 32-bit float channel.
    R32Float,
    /// One 32-bit signed integer channel.
    R32Sint,
    /// One 32-bit unsigned integer channel.
    R32Uint,
    /// Two 8-bit unsigned normalized channels.
    Rg8Unorm,
    /// Two 8-bit signed normalized channels.
    Rg8Snorm,
    /// Two 8-bit unsigned integer channels.
    Rg8Uint,
    /// Two 8-bit signed integer channels.
    Rg8Sint,
    /// Two 16-bit unsigned integer channels.
    Rg16Uint,
    /// Two 16-bit signed integer channels.
    Rg16Sint,
    /// Two 16-bit float channels.
    Rg16Float,
    /// Two 16-bit unsigned normalized channels.
    Rg16Unorm,
    /// Two 16-bit signed normalized channels.
    Rg16Snorm,
    /// Two 32-bit float channels.
    Rg32Float,
    /// Two 32-bit signed integer channels.
    Rg32Sint,
    /// Two 32-bit unsigned integer channels.
    Rg32Uint,
    /// Four 8-bit unsigned normalized channels (read as floats in 0..=1).
    Rgba8Unorm,
    /// Four 8-bit signed normalized channels (read as floats in -1..=1).
    Rgba8Snorm,
    /// Four 8-bit unsigned integer channels.
    Rgba8Uint,
    /// Four 8-bit signed integer channels.
    Rgba8Sint,
    /// Four 8-bit unsigned normalized channels stored blue, green, red, alpha.
    Bgra8Unorm,
    /// Three 10-bit and one 2-bit unsigned normalized channels in one 32-bit word.
    Rgb10a2Unorm,
    /// Three 10-bit and one 2-bit unsigned integer channels in one 32-bit word.
    Rgb10a2Uint,
    /// Four 16-bit float channels.
    Rgba16Float,
    /// Four 16-bit signed integer channels.
    Rgba16Sint,
    /// Four 16-bit unsigned integer channels.
    Rgba16Uint,
    /// Four 16-bit unsigned normalized channels.
    Rgba16Unorm,
    /// Four 16-bit signed normalized channels.
    Rgba16Snorm,
    /// Four 32-bit float channels.
    Rgba32Float,
    /// Four 32-bit signed integer channels.
    Rgba32Sint,
    /// Four 32-bit unsigned integer channels.
    Rgba32Uint,
}

impl TexelFormat {
    /// Every texel format, in declaration order.
    pub const ALL: [TexelFormat; 39] = [
        TexelFormat::R8Unorm,
        TexelFormat::R8Snorm,
        TexelFormat::R8Uint,
        TexelFormat::R8Sint,
        TexelFormat::R16Uint,
        TexelFormat::R16Sint,
        TexelFormat::R16Float,
        TexelFormat::R16Unorm,
        TexelFormat::R16Snorm,
        TexelFormat::R32Float,
        TexelFormat::R32Sint,
        TexelFormat::R32Uint,
        TexelFormat::Rg8Unorm,
        TexelFormat::Rg8Snorm,
        TexelFormat::Rg8Uint,
        TexelFormat::Rg8Sint,
        TexelFormat::Rg16Uint,
        TexelFormat::Rg16Sint,
        TexelFormat::Rg16Float,
        TexelFormat::Rg16Unorm,
        TexelFormat::Rg16Snorm,
        TexelFormat::Rg32Float,
        TexelFormat::Rg32Sint,
        TexelFormat::Rg32Uint,
        TexelFormat::Rgba8Unorm,
        TexelFormat::Rgba8Snorm,
        TexelFormat::Rgba8Uint,
        TexelFormat::Rgba8Sint,
        TexelFormat::Bgra8Unorm,
        TexelFormat::Rgb10a2Unorm,
        TexelFormat::Rgb10a2Uint,
        TexelFormat::Rgba16Float,
        TexelFormat::Rgba16Sint,
        TexelFormat::Rgba16Uint,
        TexelFormat::Rgba16Unorm,
        TexelFormat::Rgba16Snorm,
        TexelFormat::Rgba32Float,
        TexelFormat::Rgba32Sint,
        TexelFormat::Rgba32Uint,
    ];

    /// The text-form spelling, the WGSL name in lower case (`rgba8unorm`, ...).
    pub fn name(self) -> &'static str {
        match self {
            TexelFormat::R8Unorm => "r8unorm",
            TexelFormat::R8Snorm => "r8snorm",
            TexelFormat::R8Uint => "r8uint",
            TexelFormat::R8Sint => "r8sint",
            TexelFormat::R16Uint => "r16uint",
            TexelFormat::R16Sint => "r16sint",
            TexelFormat::R16Float => "r16float",
            TexelFormat::R16Unorm => "r16unorm",
            TexelFormat::R16Snorm => "r16snorm",
            TexelFormat::R32Float => "r32float",
            TexelFormat::R32Sint => "r32sint",
            TexelFormat::R32Uint => "r32uint",
            TexelFormat::Rg8Unorm => "rg8unorm",
            TexelFormat::Rg8Snorm => "rg8snorm",
            TexelFormat::Rg8Uint => "rg8uint",
            TexelFormat::Rg8Sint => "rg8sint",
            TexelFormat::Rg16Uint => "rg16uint",
            TexelFormat::Rg16Sint => "rg16sint",
            TexelFormat::Rg16Float => "rg16float",
            TexelFormat::Rg16Unorm => "rg16unorm",
            TexelFormat::Rg16Snorm => "rg16snorm",
            TexelFormat::Rg32Float => "rg32float",
            TexelFormat::Rg32Sint => "rg32sint",
            TexelFormat::Rg32Uint => "rg32uint",
            TexelFormat::Rgba8Unorm => "rgba8unorm",
            TexelFormat::Rgba8Snorm => "rgba8snorm",
            TexelFormat::Rgba8Uint => "rgba8uint",
            TexelFormat::Rgba8Sint => "rgba8sint",
            TexelFormat::Bgra8Unorm => "bgra8unorm",
            TexelFormat::Rgb10a2Unorm => "rgb10a2unorm",
            TexelFormat::Rgb10a2Uint => "rgb10a2uint",
            TexelFormat::Rgba16Float => "rgba16float",
            TexelFormat::Rgba16Sint => "rgba16sint",
            TexelFormat::Rgba16Uint => "rgba16uint",
            TexelFormat::Rgba16Unorm => "rgba16unorm",
            TexelFormat::Rgba16Snorm => "rgba16snorm",
            TexelFormat::Rgba32Float => "rgba32float",
            TexelFormat::Rgba32Sint => "rgba32sint",
            TexelFormat::Rgba32Uint => "rgba32uint",
        }
    }

    /// Parses the spelling produced by [`TexelFormat::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        TexelFormat::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The scalar kind a shader reads and writes for this format (as a 4-vector).
    pub fn channel_kind(self) -> ScalarKind {
        self.layout().encoding.channel_kind()
    }
}

/// Shape of a sampled or storage texture.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextureShape {
    /// The dimensionality of one layer.
    pub dim: TextureDim,
    /// Whether the texture is an array of layers, addressed by an extra layer index.
    pub arrayed: bool,
    /// Whether the texture is multisampled, addressed by an extra sample index.
    pub multisampled: bool,
}

/// One member of a struct type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructMember {
    /// The member's name, for the text form, diagnostics and reflection; instructions
    /// address members by index, never by name.
    pub name: String,
    /// The member's type.
    pub ty: Type,
    /// Explicit byte offset. When absent the layout rules place the member.
    pub offset: Option<u32>,
}

/// A struct type: a unique name, members, and an optional explicit alignment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructType {
    /// The struct's name, unique within its [`TypeStore`]; the text form refers to the
    /// struct as `%name`.
    pub name: String,
    /// The members, in declaration (and index) order.
    pub members: Vec<StructMember>,
    /// Explicit alignment in bytes (a power of two), overriding the rule's default.
    pub align: Option<u32>,
}

/// The structure of a type. Compare [`Type`]s, not `TypeData`s: types are interned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeData {
    /// `void`: the result type of functions and instructions that produce no value.
    Void,
    /// A scalar: `bool`, an integer or a float.
    Scalar(Scalar),
    /// `vecN<T>`, N in 2..=4.
    Vector {
        /// The lane type: a bool, integer or float scalar.
        elem: Scalar,
        /// The number of lanes, 2..=4.
        len: u8,
    },
    /// `matCxR<T>`: `columns` column vectors of `rows` floats.
    Matrix {
        /// The float element type.
        elem: Scalar,
        /// The number of columns, 2..=4.
        columns: u8,
        /// The number of rows (lanes of each column vector), 2..=4.
        rows: u8,
    },
    /// A fixed-size array.
    Array {
        /// The element type.
        elem: Type,
        /// The number of elements.
        len: u32,
        /// The distance in bytes between elements in memory when the source gave one the
        /// layout rules do not (a GLSL `std140` storage buffer, SPIR-V `ArrayStride`):
        /// text `array<T, N, stride S>`. `None`: the rules' stride. The layout engine
        /// checks it (at least the element's size, a multiple of its alignment).
        stride: Option<u32>,
    },
    /// A runtime-sized array; only as the last member of a storage buffer struct or as a
    /// storage buffer's whole type.
    RuntimeArray {
        /// The element type.
        elem: Type,
        /// An explicit element stride, as for [`TypeData::Array`]; text `array<T, stride S>`.
        stride: Option<u32>,
    },
    /// A struct; its name is unique within the store.
    Struct(StructType),
    /// `ptr<space, T>`.
    Pointer {
        /// The address space of the memory pointed into.
        space: AddressSpace,
        /// The type of the value pointed to.
        pointee: Type,
    },
    /// A sampled texture.
    Texture {
        /// Dimensionality, arrayed-ness and multisampling.
        shape: TextureShape,
        /// What sampling returns.
        kind: SampledKind,
    },
    /// A storage texture.
    StorageTexture {
        /// Dimensionality, arrayed-ness and multisampling.
        shape: TextureShape,
        /// The texel format in memory.
        format: TexelFormat,
        /// Whether shaders may read, write or both.
        access: StorageAccess,
    },
    /// A sampler; `comparison` for depth-compare samplers.
    Sampler {
        /// Whether this is a comparison sampler (`sampler_comparison`).
        comparison: bool,
    },
    /// An opaque named type; has no size and cannot be loaded or stored.
    Opaque(String),
}

impl TypeData {
    /// Reference `index` of this type (element, pointee or member type), in order.
    pub fn referenced_type(&self, index: usize) -> Option<Type> {
        match self {
            TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => {
                (index == 0).then_some(*elem)
            }
            TypeData::Pointer { pointee, .. } => (index == 0).then_some(*pointee),
            TypeData::Struct(st) => st.members.get(index).map(|m| m.ty),
            TypeData::Void
            | TypeData::Scalar(_)
            | TypeData::Vector { .. }
            | TypeData::Matrix { .. }
            | TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. }
            | TypeData::Opaque(_) => None,
        }
    }

    /// The types this type refers to (element, pointee or member types), in order.
    pub fn referenced_types(&self) -> impl Iterator<Item = Type> + '_ {
        (0..).map_while(move |i| self.referenced_type(i))
    }

    /// The scalar of a scalar type; `None` for every other type, vectors included.
    pub fn as_scalar(&self) -> Option<Scalar> {
        match *self {
            TypeData::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The element scalar and lane count of a scalar (1 lane) or vector type; `None` for
    /// every other type.
    pub fn scalar_or_vector_elem(&self) -> Option<(Scalar, u8)> {
        match *self {
            TypeData::Scalar(s) => Some((s, 1)),
            TypeData::Vector { elem, len } => Some((elem, len)),
            _ => None,
        }
    }

    /// Whether the type is a texture, storage texture or sampler.
    pub fn is_resource(&self) -> bool {
        matches!(
            self,
            TypeData::Texture { .. } | TypeData::StorageTexture { .. } | TypeData::Sampler { .. }
        )
    }

    /// Whether the type has indexable elements: vector, matrix, fixed-size array or struct
    /// (runtime arrays are indexed only through pointers).
    pub fn is_composite(&self) -> bool {
        matches!(
            self,
            TypeData::Vector { .. }
                | TypeData::Matrix { .. }
                | TypeData::Array { .. }
                | TypeData::Struct(_)
        )
    }
}

/// How deep types may nest in a module oxir accepts: the levels of element, pointee and
/// member types under a type (a scalar is 0, `array<f32, 4>` is 1, a struct of it is 2).
/// The verifier refuses deeper types and front-ends refuse to build them, so the printer,
/// the parser and the layout engine, which all recurse this far, agree on every module.
pub const MAX_TYPE_NESTING: u32 = 64;

/// How deep a type that is not a pointer may nest in what a front-end builds: one level
/// less than [`MAX_TYPE_NESTING`], so that a pointer to a variable of it fits.
pub const MAX_VALUE_TYPE_NESTING: u32 = MAX_TYPE_NESTING - 1;

/// The interner of a module's types.
#[derive(Clone, Debug, Default)]
pub struct TypeStore {
    types: PrimaryMap<Type, TypeData>,
    /// [`TypeStore::nesting`] of each type, computed when it is interned (the store is
    /// append-only, so it never goes stale).
    nesting: SecondaryMap<Type, u32>,
    index: crate::hash::HashMap<TypeData, Type>,
    struct_names: HashMap<String, Type>,
}

impl TypeStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns `data`, returning the existing index when an equal type exists.
    ///
    /// Struct types go through [`TypeStore::declare_struct`] so that names stay unique;
    /// interning a struct here with a taken name renames it the same way.
    pub fn intern(&mut self, data: TypeData) -> Type {
        if let Some(&ty) = self.index.get(&data) {
            return ty;
        }
        if let TypeData::Struct(st) = data {
            return self.declare_struct(st);
        }
        let ty = self.push(data.clone());
        self.index.insert(data, ty);
        ty
    }

    /// Appends `data`, recording how deep it nests.
    fn push(&mut self, data: TypeData) -> Type {
        let depth = data
            .referenced_types()
            .map(|child| self.nesting.get(child).map_or(0, |d| d.saturating_add(1)))
            .max()
            .unwrap_or(0);
        let ty = self.types.push(data);
        self.nesting[ty] = depth;
        ty
    }

    /// The type equal to `data`, when one is interned (never interns).
    pub fn lookup(&self, data: &TypeData) -> Option<Type> {
        self.index.get(data).copied()
    }

    /// How many levels of element, pointee and member types `ty` holds: 0 for a scalar,
    /// 1 for `array<f32, 4>`; a front-end refuses a type deeper than [`MAX_VALUE_TYPE_NESTING`].
    /// A reference to a type not (yet) in the store counts as a scalar.
    pub fn nesting(&self, ty: Type) -> u32 {
        self.nesting.get(ty).copied().unwrap_or(0)
    }

    /// Declares a struct. An identical struct already declared is returned; a different
    /// struct under a taken name is renamed `name.N` with the smallest free N.
    pub fn declare_struct(&mut self, mut st: StructType) -> Type {
        if let Some(&ty) = self.index.get(&TypeData::Struct(st.clone())) {
            return ty;
        }
        if self.struct_names.contains_key(&st.name) {
            let base = st.name.clone();
            let mut n = 1u32;
            loop {
                let candidate = format!("{base}.{n}");
                if !self.struct_names.contains_key(&candidate) {
                    st.name = candidate;
                    break;
                }
                n += 1;
            }
            // The renamed struct may already exist too.
            if let Some(&ty) = self.index.get(&TypeData::Struct(st.clone())) {
                return ty;
            }
        }
        let name = st.name.clone();
        let data = TypeData::Struct(st);
        let ty = self.push(data.clone());
        self.index.insert(data, ty);
        self.struct_names.insert(name, ty);
        ty
    }

    /// The struct declared under `name`.
    pub fn struct_by_name(&self, name: &str) -> Option<Type> {
        self.struct_names.get(name).copied()
    }

    /// The structure of `ty`.
    ///
    /// # Panics
    /// When `ty` is not an index of this store; see [`TypeStore::try_get`].
    pub fn get(&self, ty: Type) -> &TypeData {
        &self.types[ty]
    }

    /// The structure of `ty`, or `None` when `ty` is not an index of this store.
    pub fn try_get(&self, ty: Type) -> Option<&TypeData> {
        self.types.get(ty)
    }

    /// Whether a value of `ty` is or holds a pointer or a resource (texture, sampler,
    /// opaque type) — what logical addressing cannot pass to a function. A type that is
    /// not an index of this store counts as holding one (the conservative answer).
    pub fn holds_reference(&self, ty: Type) -> bool {
        match self.try_get(ty) {
            None => true,
            Some(TypeData::Pointer { .. })
            | Some(TypeData::Texture { .. })
            | Some(TypeData::StorageTexture { .. })
            | Some(TypeData::Sampler { .. })
            | Some(TypeData::Opaque(_)) => true,
            Some(TypeData::Array { elem, .. }) | Some(TypeData::RuntimeArray { elem, .. }) => {
                self.holds_reference(*elem)
            }
            Some(TypeData::Struct(s)) => s.members.iter().any(|m| self.holds_reference(m.ty)),
            Some(TypeData::Void)
            | Some(TypeData::Scalar(_))
            | Some(TypeData::Vector { .. })
            | Some(TypeData::Matrix { .. }) => false,
        }
    }

    /// The number of distinct types interned.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether no type has been interned.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// Every type with its structure, in interning order.
    pub fn iter(&self) -> impl Iterator<Item = (Type, &TypeData)> {
        self.types.iter()
    }

    // Convenience constructors: each interns the type it names.

    /// Interns `void`.
    pub fn void(&mut self) -> Type {
        self.intern(TypeData::Void)
    }

    /// Interns the scalar type `s`.
    pub fn scalar(&mut self, s: Scalar) -> Type {
        self.intern(TypeData::Scalar(s))
    }

    /// Interns `bool`.
    pub fn bool(&mut self) -> Type {
        self.scalar(Scalar::BOOL)
    }

    /// Interns `i32`.
    pub fn i32(&mut self) -> Type {
        self.scalar(Scalar::I32)
    }

    /// Interns `u32`.
    pub fn u32(&mut self) -> Type {
        self.scalar(Scalar::U32)
    }

    /// Interns `f32`.
    pub fn f32(&mut self) -> Type {
        self.scalar(Scalar::F32)
    }

    /// Interns `vec{len}<elem>`; the caller keeps `len` in 2..=4.
    pub fn vector(&mut self, elem: Scalar, len: u8) -> Type {
        self.intern(TypeData::Vector { elem, len })
    }

    /// Interns `mat{columns}x{rows}<elem>`; the caller keeps both counts in 2..=4 and
    /// `elem` a float.
    pub fn matrix(&mut self, elem: Scalar, columns: u8, rows: u8) -> Type {
        self.intern(TypeData::Matrix {
            elem,
            columns,
            rows,
        })
    }

    /// Interns `array<elem, len>`.
    pub fn array(&mut self, elem: Type, len: u32) -> Type {
        self.intern(TypeData::Array {
            elem,
            len,
            stride: None,
        })
    }

    /// Interns the runtime-sized `array<elem>`.
    pub fn runtime_array(&mut self, elem: Type) -> Type {
        self.intern(TypeData::RuntimeArray { elem, stride: None })
    }

    /// Interns `array<elem, len, stride S>` (`None`: [`TypeStore::array`]).
    pub fn strided_array(&mut self, elem: Type, len: u32, stride: Option<u32>) -> Type {
        self.intern(TypeData::Array { elem, len, stride })
    }

    /// Interns `array<elem, stride S>` (`None`: [`TypeStore::runtime_array`]).
    pub fn strided_runtime_array(&mut self, elem: Type, stride: Option<u32>) -> Type {
        self.intern(TypeData::RuntimeArray { elem, stride })
    }

    /// Interns `ptr<space, pointee>`.
    pub fn pointer(&mut self, space: AddressSpace, pointee: Type) -> Type {
        self.intern(TypeData::Pointer { space, pointee })
    }

    /// The same shape as `ty` (scalar or vector) with another scalar element; `None` when
    /// `ty` is neither a scalar nor a vector.
    pub fn with_scalar(&mut self, ty: Type, elem: Scalar) -> Option<Type> {
        match *self.get(ty) {
            TypeData::Scalar(_) => Some(self.scalar(elem)),
            TypeData::Vector { len, .. } => Some(self.vector(elem, len)),
            _ => None,
        }
    }

    /// The type of element `index` of a composite (struct member, array or vector element,
    /// matrix column), or `None` when out of range or not a composite.
    pub fn element_type(&mut self, ty: Type, index: u32) -> Option<Type> {
        match self.get(ty).clone() {
            TypeData::Vector { elem, len } => (index < u32::from(len)).then(|| self.scalar(elem)),
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => (index < u32::from(columns)).then(|| self.vector(elem, rows)),
            TypeData::Array { elem, len, .. } => (index < len).then_some(elem),
            TypeData::RuntimeArray { elem, .. } => Some(elem),
            TypeData::Struct(st) => st.members.get(index as usize).map(|m| m.ty),
            _ => None,
        }
    }

    /// A printable view of `ty` in text-form syntax.
    pub fn display(&self, ty: Type) -> DisplayType<'_> {
        DisplayType {
            store: self,
            ty,
            depth: 0,
        }
    }
}

/// Text-form spelling of a type (see `docs/text-format.md`).
pub struct DisplayType<'a> {
    store: &'a TypeStore,
    ty: Type,
    /// Nesting depth, bounded so a corrupted (cyclic) store cannot recurse forever.
    depth: u32,
}

impl fmt::Display for DisplayType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(data) = self.store.try_get(self.ty) else {
            return write!(f, "<invalid {}>", self.ty);
        };
        if self.depth > MAX_TYPE_NESTING {
            return write!(f, "<nested too deeply: {}>", self.ty);
        }
        let sub = |ty| DisplayType {
            store: self.store,
            ty,
            depth: self.depth + 1,
        };
        match data {
            TypeData::Void => f.write_str("void"),
            TypeData::Scalar(s) => f.write_str(s.name()),
            TypeData::Vector { elem, len } => write!(f, "vec{len}<{}>", elem.name()),
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => {
                write!(f, "mat{columns}x{rows}<{}>", elem.name())
            }
            TypeData::Array {
                elem,
                len,
                stride: None,
            } => write!(f, "array<{}, {len}>", sub(*elem)),
            TypeData::Array {
                elem,
                len,
                stride: Some(s),
            } => write!(f, "array<{}, {len}, stride {s}>", sub(*elem)),
            TypeData::RuntimeArray { elem, stride: None } => write!(f, "array<{}>", sub(*elem)),
            TypeData::RuntimeArray {
                elem,
                stride: Some(s),
            } => write!(f, "array<{}, stride {s}>", sub(*elem)),
            TypeData::Struct(st) => write!(f, "%{}", st.name),
            TypeData::Pointer { space, pointee } => write!(f, "ptr<{space}, {}>", sub(*pointee)),
            TypeData::Texture { shape, kind } => {
                write!(f, "texture_{}", texture_shape_name(shape))?;
                write!(f, "<{}>", kind.name())
            }
            TypeData::StorageTexture {
                shape,
                format,
                access,
            } => write!(
                f,
                "texture_storage_{}<{}, {}>",
                texture_shape_name(shape),
                format.name(),
                access.name()
            ),
            TypeData::Sampler { comparison: false } => f.write_str("sampler"),
            TypeData::Sampler { comparison: true } => f.write_str("sampler_comparison"),
            TypeData::Opaque(name) => write!(f, "opaque<{}>", quote(name)),
        }
    }
}

fn texture_shape_name(shape: &TextureShape) -> String {
    let mut name = String::new();
    if shape.multisampled {
        name.push_str("ms_");
    }
    name.push_str(shape.dim.name());
    if shape.arrayed {
        name.push_str("_array");
    }
    name
}

/// Quotes a string for the text form: `"` and `\` are escaped, as are control characters.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_interned() {
        let mut store = TypeStore::new();
        let a = store.vector(Scalar::F32, 3);
        let b = store.vector(Scalar::F32, 3);
        let c = store.vector(Scalar::F32, 4);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let p1 = store.pointer(AddressSpace::Storage(StorageAccess::Read), a);
        let p2 = store.pointer(AddressSpace::Storage(StorageAccess::ReadWrite), a);
        assert_ne!(p1, p2);
        assert_eq!(
            store.display(p1).to_string(),
            "ptr<storage(read), vec3<f32>>"
        );
    }

    #[test]
    fn nesting_counts_element_pointee_and_member_levels() {
        let mut store = TypeStore::new();
        let f = store.f32();
        let v = store.vector(Scalar::F32, 4);
        let arr = store.array(v, 4);
        let st = store.declare_struct(StructType {
            name: "S".into(),
            members: vec![
                StructMember {
                    name: "a".into(),
                    ty: f,
                    offset: None,
                },
                StructMember {
                    name: "b".into(),
                    ty: arr,
                    offset: None,
                },
            ],
            align: None,
        });
        let ptr = store.pointer(AddressSpace::Private, st);
        let depths: Vec<u32> = [f, v, arr, st, ptr].map(|t| store.nesting(t)).to_vec();
        assert_eq!(depths, [0, 0, 1, 2, 3]);
    }

    #[test]
    fn struct_names_stay_unique() {
        let mut store = TypeStore::new();
        let f = store.f32();
        let u = store.u32();
        let member = |ty| StructMember {
            name: "x".into(),
            ty,
            offset: None,
        };
        let a = store.declare_struct(StructType {
            name: "S".into(),
            members: vec![member(f)],
            align: None,
        });
        let again = store.declare_struct(StructType {
            name: "S".into(),
            members: vec![member(f)],
            align: None,
        });
        let b = store.declare_struct(StructType {
            name: "S".into(),
            members: vec![member(u)],
            align: None,
        });
        assert_eq!(a, again);
        assert_ne!(a, b);
        assert_eq!(store.display(b).to_string(), "%S.1");
        assert_eq!(store.struct_by_name("S.1"), Some(b));
    }
}
