//! Run-time errors: what went wrong ([`ErrorKind`]) and where ([`Location`], the
//! invocation and the workgroup). `Display` prints the message followed by
//! `(at @function, blockN, instN (opcode), local invocation I, workgroup [x, y, z])` when
//! the error has a location; this text is what `oxir run` prints.

use crate::value::Region;
use oxir_ir::scalar_semantics::ScalarError;
use oxir_ir::{Block, Inst, Opcode};
use std::fmt;

/// A run-time error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The failing instruction.
    pub location: Option<Location>,
    /// Local invocation index of the failing invocation.
    pub invocation: Option<u32>,
    /// Workgroup id of the failing invocation.
    pub workgroup: Option<[u32; 3]>,
}

/// Where an error happened: the instruction at the top frame of the failing invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Name of the function (without the `@`).
    pub function: String,
    /// The block executing.
    pub block: Block,
    /// The instruction executing and its opcode; `None` when the block has no
    /// instruction at the current position.
    pub inst: Option<(Inst, Opcode)>,
}

impl fmt::Display for Location {
    /// `@function, blockN, instN (opcode)`, or `@function, blockN` without an instruction.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}, block{}", self.function, self.block.as_u32())?;
        if let Some((inst, opcode)) = self.inst {
            write!(f, ", inst{} ({opcode})", inst.as_u32())?;
        }
        Ok(())
    }
}

/// The kind of memory operation that went out of bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MemoryOp {
    /// A `load` (or the read of an atomic).
    Load,
    /// A `store` (or the write of an atomic).
    Store,
    /// An `access` index past the end of its array, vector or matrix.
    Access,
}

impl fmt::Display for MemoryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MemoryOp::Load => "load",
            MemoryOp::Store => "store",
            MemoryOp::Access => "access",
        })
    }
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    /// The module fails verification; the text is the verifier's report.
    #[error("the module does not verify:\n{0}")]
    InvalidModule(String),
    /// No function has the requested entry-point name.
    #[error("no function named `{0}`")]
    NoSuchFunction(String),
    /// `dispatch` was asked to run a function that is not a kernel.
    #[error("`{0}` is not a kernel")]
    NotAKernel(String),
    /// A call of a function declared without a body.
    #[error("call of external function @{0}")]
    ExternalCall(String),
    /// A definition without an entry block.
    #[error("@{0} has no body")]
    NoBody(String),
    /// A dispatch of more invocations than [`crate::Options::max_instructions`] (each
    /// executes at least one instruction), refused before it starts.
    #[error(
        "dispatch of {invocations} invocations exceeds the instruction limit of {limit} \
         (each invocation executes at least one instruction; --max-instructions)"
    )]
    DispatchTooLarge { invocations: u64, limit: u64 },
    /// An allocation would take a workgroup's variable memory past
    /// [`crate::Options::max_memory_bytes`].
    #[error(
        "{what} needs {bytes} bytes with {in_use} in use by this workgroup, more than the \
         interpreter memory limit of {limit} bytes (Options::max_memory_bytes, --max-memory)"
    )]
    MemoryLimit {
        what: String,
        bytes: u64,
        in_use: u64,
        limit: u64,
    },
    /// [`crate::Options::subgroup_size`] is not a power of two in 1..=128.
    #[error("subgroup size {0} is not a power of two from 1 to 128")]
    InvalidSubgroupSize(u32),
    /// [`crate::Options::max_instructions`] instructions ran.
    #[error("instruction limit of {0} reached (a runaway loop?)")]
    InstructionLimit(u64),
    /// Invocations of a workgroup wait at different barriers, or some finished.
    #[error(
        "divergent barrier: {waiting} of {total} invocations wait at {opcode} inst{} in \
         @{function}, the others finished or wait elsewhere",
        inst.as_u32()
    )]
    DivergentBarrier {
        /// How many invocations wait at the first barrier found.
        waiting: usize,
        /// Invocations in the workgroup.
        total: usize,
        /// The barrier's opcode.
        opcode: Opcode,
        /// The barrier instruction.
        inst: Inst,
        /// The function holding it.
        function: String,
    },
    /// An out-of-bounds memory operation under [`crate::OutOfBounds::Error`]; `offset`
    /// is -1 for a pointer already made out of bounds by an `access`.
    #[error("out-of-bounds {op} at byte offset {offset} of {region:?}")]
    OutOfBounds {
        /// The operation.
        op: MemoryOp,
        /// Byte offset of the pointer in its region.
        offset: i64,
        /// The region accessed.
        region: Region,
    },
    /// An executed `unreachable` with its message.
    #[error("reached `unreachable` {0}")]
    Unreachable(String),
    /// A failed `assert` with its message.
    #[error("assertion failed: {0}")]
    AssertionFailed(String),
    /// The scalar semantics refused a lane operation.
    #[error(transparent)]
    Scalar(#[from] ScalarError),
    /// A texture operation on a texture shape the interpreter does not model.
    #[error(
        "unsupported: `{op}` on {shape} textures (only 1D, 2D, 2D-array and multisampled 2D \
         textures are interpreted)"
    )]
    UnsupportedTexture {
        /// The texture operation.
        op: Opcode,
        /// The shape, as `multisampled arrayed 3d` and the like.
        shape: String,
    },
    /// The layout engine or the memory model refused a type.
    #[error("{0}")]
    Layout(String),
    /// A terminator whose payload does not fit its opcode.
    #[error("malformed terminator {0}")]
    MalformedTerminator(Opcode),
    /// An operand or payload of a shape the verifier rules out for valid modules;
    /// reported instead of panicking.
    #[error("{0}")]
    Malformed(&'static str),
}

impl Error {
    /// An error without a location.
    pub fn new(kind: ErrorKind) -> Self {
        Error {
            kind,
            location: None,
            invocation: None,
            workgroup: None,
        }
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(l) = &self.location {
            write!(f, " (at {l}")?;
            if let Some(i) = self.invocation {
                write!(f, ", local invocation {i}")?;
            }
            if let Some(w) = self.workgroup {
                write!(f, ", workgroup {w:?}")?;
            }
            f.write_str(")")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}
