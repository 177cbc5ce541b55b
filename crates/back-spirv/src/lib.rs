//! # oxir-spirv — the SPIR-V back-end
//!
//! Writes SPIR-V for compute kernels from structured oxir, using `rspirv`.
//!
//! - [`pipeline`]: the driver pipeline, as data: `normalize`, then the structuring tail
//!   (`structurize`), then `mem2reg` on the structured form, so block parameters come out
//!   as `OpPhi` with one entry per incoming edge, then a verification with unique merges
//!   and canonical break/continue targets.
//! - [`preflight`]: refuses, before anything is emitted, every type, op or construct the
//!   writer cannot express for the chosen target environment (`unsupported: ...`).
//! - [`write_module`]: the writer. Loops put `OpLoopMerge` in the loop's prepare block
//!   (the block the back edge from the update block targets), with the update block as the
//!   continue target; `simple_loop` gets a synthetic continue block; `if` and `switch` get
//!   `OpSelectionMerge`. Types carry explicit layouts (`std430` for storage buffers and push
//!   constants, `std140` for uniform buffers) from `oxir_ir::data_layout`; memory in other
//!   spaces uses undecorated types, and loads and stores of arrays and structs convert
//!   between the two. Capabilities are enabled only when used. The same input gives the
//!   same bytes.
//!
//! Not yet: vertex and fragment entry points, images and samplers (refused).

mod preflight;
mod writer;

use oxir_ir::verifier::VerifierOptions;
use oxir_ir::Module;
use oxir_passes::pipeline::PassPipeline;
use std::fmt;

pub use preflight::{opcode_support, preflight, Support};

/// A Vulkan target environment.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum TargetEnv {
    Vulkan1_0,
    #[default]
    Vulkan1_1,
    Vulkan1_2,
    Vulkan1_3,
}

impl TargetEnv {
    pub const ALL: [TargetEnv; 4] = [
        TargetEnv::Vulkan1_0,
        TargetEnv::Vulkan1_1,
        TargetEnv::Vulkan1_2,
        TargetEnv::Vulkan1_3,
    ];

    /// `vulkan1.0` .. `vulkan1.3` (the spelling spirv-val uses).
    pub fn name(self) -> &'static str {
        match self {
            TargetEnv::Vulkan1_0 => "vulkan1.0",
            TargetEnv::Vulkan1_1 => "vulkan1.1",
            TargetEnv::Vulkan1_2 => "vulkan1.2",
            TargetEnv::Vulkan1_3 => "vulkan1.3",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        TargetEnv::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The SPIR-V version the environment consumes: 1.0, 1.3, 1.5, 1.6.
    pub fn spirv_version(self) -> (u8, u8) {
        match self {
            TargetEnv::Vulkan1_0 => (1, 0),
            TargetEnv::Vulkan1_1 => (1, 3),
            TargetEnv::Vulkan1_2 => (1, 5),
            TargetEnv::Vulkan1_3 => (1, 6),
        }
    }
}

/// Options of the SPIR-V back-end.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub target_env: TargetEnv,
}

/// Why a module cannot be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The preflight refused the module: it uses something the writer cannot express.
    Unsupported(String),
    /// The driver pipeline failed.
    Pipeline(String),
    /// The module given to [`write_module`] does not pass the structured verifier.
    Invalid(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::Pipeline(what) => write!(f, "pass {what}"),
            Error::Invalid(report) => {
                write!(f, "the module is not valid structured oxir:\n{report}")
            }
        }
    }
}

impl std::error::Error for Error {}

/// What the writer requires of its input: structured, unique merges, canonical
/// break/continue.
fn writer_input_options() -> VerifierOptions {
    let mut structured = VerifierOptions::default();
    structured.require_unique_merge_blocks = true;
    structured.require_canonical_break_continue_targets = true;
    structured
}

/// The SPIR-V driver pipeline: `normalize`, the structuring tail, SSA recovery on the
/// structured form, and a final structured verification.
pub fn pipeline() -> PassPipeline {
    let mut p = PassPipeline::new();
    p.add_sequence("normalize", oxir_passes::pipelines::normalize());
    p.add_sequence("structurize", oxir_passes::pipelines::structurize());
    p.add("mem2reg", |m: &mut Module| {
        oxir_passes::PassOutcome::from_info(&oxir_passes::passes::mem2reg::run_on_module(m))
    });
    p.add_verify("verify-spirv-input", writer_input_options());
    p
}

/// Runs [`pipeline`] on `module`.
pub fn prepare(module: &mut Module) -> Result<(), Error> {
    let stats = pipeline().run(module);
    match stats.error {
        Some(e) => Err(Error::Pipeline(e.to_string())),
        None => Ok(()),
    }
}

/// Writes an already prepared module (see [`prepare`]) after the preflight.
/// The module is verified first, so the writer never sees an invalid module.
pub fn write_module(module: &Module, options: &Options) -> Result<Vec<u32>, Error> {
    let report = oxir_ir::verifier::verify_module(module, &writer_input_options());
    if !report.succeeded() {
        return Err(Error::Invalid(report.to_string()));
    }
    preflight(module, options).map_err(Error::Unsupported)?;
    writer::write(module, options).map_err(Error::Unsupported)
}

/// Prepares a copy of `module` and writes it: the whole back-end.
pub fn compile(module: &Module, options: &Options) -> Result<Vec<u32>, Error> {
    let mut module = module.clone();
    prepare(&mut module)?;
    write_module(&module, options)
}

/// The words as little-endian bytes (the `.spv` file format).
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Readable disassembly of a SPIR-V binary (rspirv's `Disassemble`).
pub fn disassemble(words: &[u32]) -> Result<String, String> {
    use rspirv::binary::Disassemble;
    let module = rspirv::dr::load_words(words).map_err(|e| e.to_string())?;
    Ok(module.disassemble())
}
