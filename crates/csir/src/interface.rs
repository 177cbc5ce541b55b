//! The typed interface table of a CSIR shader: what its slots mean, by name.
//!
//! Uniforms are packed one vec4 slot per leaf (a scalar or vector takes one slot, a
//! matrix one slot per column; this is not std140, and [`Uniform::offset`] records where
//! the leaf lives in the std140 block it came from, so a host can fill the slots from
//! the block's bytes). Attributes, varyings and colour outputs are one slot each (their
//! location). A sampler slot pairs a texture binding with a sampler binding.
//!
//! The table is data only; [`crate::verify()`] checks it (unique slots, ranges, names).

/// A value type at the interface: `cols` columns of `rows` float lanes (`cols == 1`: a
/// scalar or vector of `rows` lanes).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct IfaceType {
    /// Columns, 1..=4.
    pub cols: u8,
    /// Lanes per column, 1..=4 (2..=4 for matrices).
    pub rows: u8,
}

impl IfaceType {
    /// A scalar (`lanes == 1`) or vector.
    pub fn vector(lanes: u8) -> IfaceType {
        IfaceType {
            cols: 1,
            rows: lanes,
        }
    }

    /// Whether the fields are in range.
    pub fn is_valid(self) -> bool {
        (1..=4).contains(&self.cols)
            && (1..=4).contains(&self.rows)
            && (self.cols == 1 || self.rows >= 2)
    }
}

impl std::fmt::Display for IfaceType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.cols, self.rows) {
            (1, 1) => f.write_str("float"),
            (1, n) => write!(f, "vec{n}"),
            (c, r) if c == r => write!(f, "mat{c}"),
            (c, r) => write!(f, "mat{c}x{r}"),
        }
    }
}

/// Interpolation of a varying.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Interp {
    /// Perspective-correct (TGSI `PERSPECTIVE`).
    Perspective = 0,
    /// Screen-linear (TGSI `LINEAR`).
    Linear = 1,
    /// Flat (TGSI `CONSTANT`).
    Flat = 2,
}

impl Interp {
    /// The interpolation encoded as `byte`.
    pub fn from_u8(byte: u8) -> Option<Interp> {
        match byte {
            0 => Some(Interp::Perspective),
            1 => Some(Interp::Linear),
            2 => Some(Interp::Flat),
            _ => None,
        }
    }
}

/// A uniform leaf: `ty.cols` consecutive slots from `slot`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Uniform {
    /// `global.member.member` (array elements as `[i]`).
    pub name: String,
    /// Its type.
    pub ty: IfaceType,
    /// The first slot.
    pub slot: u16,
    /// Descriptor group of the block it came from.
    pub group: u32,
    /// Descriptor binding of the block it came from.
    pub binding: u32,
    /// Byte offset of the leaf in the block's std140 layout.
    pub offset: u32,
    /// Byte stride between its columns in that layout (0 for a vector).
    pub column_stride: u32,
}

impl Uniform {
    /// The slots it occupies.
    pub fn slots(&self) -> std::ops::Range<u32> {
        u32::from(self.slot)..u32::from(self.slot) + u32::from(self.ty.cols)
    }
}

/// An attribute, varying or colour output: one slot.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slot {
    /// The name (the source's, or `location_N` when it has none).
    pub name: String,
    /// Its type (vectors only).
    pub ty: IfaceType,
    /// The slot (the location).
    pub slot: u16,
    /// Interpolation (varyings; `Perspective` elsewhere).
    pub interp: Interp,
}

/// A sampler slot: a 2D float texture and a sampler.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sampler {
    /// `texture+sampler`.
    pub name: String,
    /// The slot.
    pub slot: u16,
    /// The texture's (group, binding).
    pub texture: (u32, u32),
    /// The sampler's (group, binding).
    pub sampler: (u32, u32),
}

/// The whole interface of one shader.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Interface {
    /// Uniform leaves.
    pub uniforms: Vec<Uniform>,
    /// Vertex attributes (vertex shaders).
    pub attributes: Vec<Slot>,
    /// Varyings: vertex outputs or fragment inputs.
    pub varyings: Vec<Slot>,
    /// Colour outputs (fragment shaders).
    pub outputs: Vec<Slot>,
    /// Samplers.
    pub samplers: Vec<Sampler>,
}

impl Interface {
    /// One past the highest uniform slot (0 without uniforms).
    pub fn uniform_slots(&self) -> u32 {
        self.uniforms
            .iter()
            .map(|u| u.slots().end)
            .max()
            .unwrap_or(0)
    }
}
