//! # oxir-csir — a compact linear shader IR for vertex and fragment shaders
//!
//! CSIR is a small, linear, non-SSA IR after ChrisOS's "Chris Shader IR": fixed pools
//! (384 instructions, 160 immediate floats, 96 float4 temporaries by default, see
//! [`Limits`]), 16-byte [`Record`]s, structured `IF` / `ELSE` / `ENDIF` and nothing else
//! for control flow, and a typed [`Interface`] table. One IR feeds every consumer:
//!
//! ```text
//!  oxir IR (vertex / fragment entry, after the CSIR pipeline)
//!     │ lower::lower  (refuses what CSIR cannot express, before emitting anything)
//!     ▼
//!   Shader ──verify──▶ Verified ──┬─▶ opt::optimize   (use-count DCE, dead branches, compaction)
//!     ▲                           ├─▶ exec::run       (CPU interpreter)
//!     │ binary::read              ├─▶ tgsi::emit      (TGSI text for virglrenderer)
//!     └─ CSI blob ◀─binary::write─┘
//! ```
//!
//! ## Invariants
//!
//! - Every consumer takes a [`Verified`] shader, which only [`verify()`] produces: a
//!   record that reaches the interpreter or the emitter has a valid opcode, in-range
//!   operand spans (matrix columns and uniform ranges included), in-range lane fields,
//!   immediate ranges, slots against the interface table, stage rules and balanced
//!   control flow of depth <= 32. Nothing in this crate panics on a shader or a blob.
//! - Every lane is an `f32`; bools are 0.0 / 1.0. A record with `ncomp = n` writes lanes
//!   `0..n` of its destination and leaves the others unchanged (TGSI write-mask
//!   semantics).
//! - The binary format ([`binary`]) is explicit little-endian, hashed over the whole
//!   file, and always verified after decoding.
//!
//! ## What it does not do
//!
//! Runtime loops, integers, dynamic indexing, textures other than 2D float sampled with
//! an implicit level, derivatives, and early `return` inside a conditional are refused by
//! the lowering. There is no register allocation across values beyond linear-scan reuse
//! of temporaries, and no constant-trip loop unrolling (loops are refused).

#![warn(missing_docs)]

pub mod binary;
pub mod dump;
pub mod exec;
pub mod interface;
pub mod link;
pub mod lower;
pub mod opt;
pub mod record;
pub mod tgsi;
pub mod verify;

pub use interface::{IfaceType, Interface, Interp, Sampler, Slot, Uniform};
pub use record::{Cmp, Op, Record, Ty};
pub use verify::{verify, Verified, VerifyError, VerifyErrorKind};

/// The stage a shader runs in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// A vertex shader.
    Vertex = 0,
    /// A fragment shader.
    Fragment = 1,
}

impl Stage {
    /// The stage encoded as `byte`.
    pub fn from_u8(byte: u8) -> Option<Stage> {
        match byte {
            0 => Some(Stage::Vertex),
            1 => Some(Stage::Fragment),
            _ => None,
        }
    }

    /// `vertex` or `fragment`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::Fragment => "fragment",
        }
    }
}

/// The fixed capacities. The defaults are the seed's pools plus the slot counts the TGSI
/// emitter declares.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Instructions.
    pub instructions: u16,
    /// Immediate floats.
    pub immediates: u16,
    /// Float4 temporaries.
    pub temporaries: u16,
    /// Uniform vec4 slots.
    pub uniform_slots: u16,
    /// Attribute slots.
    pub attributes: u16,
    /// Varying slots.
    pub varyings: u16,
    /// Colour outputs.
    pub outputs: u16,
    /// Sampler slots.
    pub samplers: u16,
    /// IF nesting depth.
    pub if_depth: u16,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            instructions: 384,
            immediates: 160,
            temporaries: 96,
            uniform_slots: 64,
            attributes: 16,
            varyings: 16,
            outputs: 8,
            samplers: 8,
            if_depth: 32,
        }
    }
}

/// A CSIR shader: records, immediates and interface.
#[derive(Clone, Debug, PartialEq)]
pub struct Shader {
    /// The stage.
    pub stage: Stage,
    /// The entry point's name.
    pub name: String,
    /// Temporaries used (`0..ntmp`).
    pub ntmp: u16,
    /// The instructions.
    pub records: Vec<Record>,
    /// The immediate pool.
    pub immediates: Vec<f32>,
    /// The interface table.
    pub interface: Interface,
}

impl Shader {
    /// Instructions other than `NOP`.
    pub fn live_instructions(&self) -> usize {
        self.records
            .iter()
            .filter(|r| r.op != Op::Nop as u8)
            .count()
    }
}
