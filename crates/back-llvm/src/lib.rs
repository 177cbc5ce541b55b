//! # oxir-llvm — the LLVM IR back-end
//!
//! Writes LLVM IR text for compute kernels, for any target a [`TargetDesc`] describes;
//! [`TargetDesc::nvptx`] is NVIDIA's `nvptx64-nvidia-cuda` (PTX through `llc`),
//! [`TargetDesc::host`] this machine's CPU through the host kernel ABI ([`host_abi`]: the
//! registers, workgroup memory and barrier come from a context the runtime passes; each
//! kernel gets a C-ABI entry; accesses are robust as in the interpreter). The rest of
//! these docs describe NVPTX; the host's differences are in [`host_abi`] and
//! [`TargetDesc::host`].
//!
//! - [`pipeline`]: the driver pipeline, oxir's `normalize` (plain SSA: inlined, allocas
//!   promoted, block parameters). The writer also accepts structured input (structured
//!   terminators are written as their executable edges).
//! - [`preflight`]: refuses, before anything is written, every op, type or construct the
//!   writer cannot express for the target (`unsupported: ...`, with the function, block
//!   and instruction). [`opcode_support`] is derived from the writer's one exhaustive
//!   lowering of every opcode.
//! - [`write_module`]: verify, preflight, write. The same input gives the same bytes.
//!
//! ## What is written
//!
//! - **Kernels** with the target's calling convention (`ptx_kernel`) and the exact
//!   workgroup size (`"nvvm.reqntid"="x,y,z"`); every defined function and every barrier
//!   call is `convergent`. Parameters, in `(group, binding)` order: a storage buffer is
//!   `ptr addrspace(1) noalias` plus an `i64` byte size (read by `array_length`); a
//!   uniform or push-constant block is one by-value parameter (`ptr byval(T) align A`).
//!   [`kernel_params`] lists them.
//! - **Memory**: workgroup variables are `addrspace(3)` globals; private globals and
//!   allocas are entry allocas; every access is a byte offset from the one layout engine
//!   (`oxir_ir::data_layout`, std430 / std140), every load and store carries `align`;
//!   memory forms of types have explicit padding so their LLVM size equals oxir's.
//! - **Control flow**: block parameters become `phi`s with one entry per CFG edge; edges
//!   of one terminator that reach the same block with different arguments go through
//!   split blocks. `switch_br` is a `switch`.
//! - **Dynamic indices** into arrays and matrices held in registers go through an
//!   entry-block scratch slot, the index clamped to the last element.
//! - **Special registers** from `llvm.nvvm.read.ptx.sreg.*`; barriers as
//!   `llvm.nvvm.barrier.cta.sync.aligned.all` (LLVM 22's name for `barrier0`); atomics
//!   `monotonic` with `syncscope("device")` on buffers and `syncscope("block")` on
//!   workgroup memory.
//! - **Subgroup collectives** (all 32 `subgroup_*` ops) over the warp's active mask
//!   (`llvm.nvvm.activemask`): `vote.*.sync` for ballot, all and any, `shfl.sync.idx`
//!   from a computed lane for broadcasts and shuffles (zero from an out-of-range or
//!   inactive lane, as in the interpreter), reductions and scans in lane order; see the
//!   writer's `subgroup` module. A target without subgroups ([`Subgroups::Unavailable`],
//!   the host) refuses them by name.
//! - **Elementary functions** (`sin` … `pow`) call libdevice (`__nv_sinf`, ...), which
//!   the driver links; a target without a math library refuses them by name.
//!
//! ## What is refused
//!
//! Vertex and fragment shaders (and their registers, derivatives, `discard`); textures and
//! samplers; calls and callables that
//! survive inlining; external functions; `print`, `assert`, `clock`; workgroup allocas; workgroup variables with a
//! non-zero initializer; whole-value loads and stores of more than [`MAX_LEAVES`]
//! scalars; typed-pointer targets.

#![warn(missing_docs)]

pub mod host_abi;
mod lowering;
mod preflight;
mod target;
mod types;
mod writer;

use oxir_ir::{Block, Inst, Module};
use oxir_passes::pipeline::{PassPipeline, PipelineError};
use std::fmt;

pub use preflight::{opcode_support, preflight, Support, MAX_LEAVES};
pub use target::{Invocation, MathLibrary, PointerDialect, Subgroups, TargetDesc};
pub use writer::{kernel_params, KernelParam};

/// Where in the module an error arose: function, block, instruction, as far as known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// The function's name; `None` at module level.
    pub function: Option<String>,
    /// The block, when the error is inside one.
    pub block: Option<Block>,
    /// The instruction, when the error is about one.
    pub instruction: Option<Inst>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(function) = &self.function else {
            return f.write_str("module level");
        };
        write!(f, "@{function}")?;
        if let Some(block) = self.block {
            write!(f, ", {block}")?;
        }
        if let Some(inst) = self.instruction {
            write!(f, ", {inst}")?;
        }
        Ok(())
    }
}

/// Why a module cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The preflight refused the module: the target cannot express something in it.
    #[error("unsupported: {what}")]
    Unsupported {
        /// What the target cannot express (starting with the op's mnemonic for ops).
        what: String,
        /// Where the module uses it.
        location: Location,
    },
    /// The writer failed on a module the preflight accepted: a bug.
    #[error("internal error in the LLVM writer: {message} (at {location}; this is a bug)")]
    Internal {
        /// Where the writer was.
        location: Location,
        /// What went wrong.
        message: String,
    },
    /// The driver pipeline failed.
    #[error("pass {0}")]
    Pipeline(PipelineError),
    /// The module given to [`write_module`] does not verify.
    #[error("the module is not valid oxir:\n{0}")]
    Invalid(String),
}

/// The LLVM driver pipeline: `normalize`.
pub fn pipeline() -> PassPipeline {
    pipeline_with(oxir_passes::passes::bounds_checks::BoundsPolicy::default())
}

/// [`pipeline`] with the bounds checks of `policy` (see
/// `oxir_passes::passes::bounds_checks`).
pub fn pipeline_with(policy: oxir_passes::passes::bounds_checks::BoundsPolicy) -> PassPipeline {
    let mut p = PassPipeline::new();
    p.add_sequence("normalize", oxir_passes::pipelines::normalize_with(policy));
    p
}

/// The `-O` pipeline: [`pipeline_with`] then `ssa-optimization` (LLVM's own `-O2`, which
/// the driver runs after writing, sees the optimised IR), with `optimizer`'s assumptions.
pub fn optimizing_pipeline_with(
    policy: oxir_passes::passes::bounds_checks::BoundsPolicy,
    optimizer: oxir_passes::pipelines::Optimizer,
) -> PassPipeline {
    let mut p = pipeline_with(policy);
    p.add_sequence(
        "ssa-optimization",
        oxir_passes::pipelines::ssa_optimization_with(optimizer),
    );
    p
}

/// Runs [`pipeline`] on `module`.
pub fn prepare(module: &mut Module) -> Result<(), Error> {
    match pipeline().run(module).error {
        Some(e) => Err(Error::Pipeline(e)),
        None => Ok(()),
    }
}

/// Verifies `module`, runs the preflight, and writes it for `target`.
pub fn write_module(module: &Module, target: &TargetDesc) -> Result<String, Error> {
    let report = oxir_ir::verifier::verify_module(module, &Default::default());
    if !report.succeeded() {
        return Err(Error::Invalid(report.to_string()));
    }
    preflight(module, target)?;
    writer::write(module, target)
}

/// Prepares a copy of `module` and writes it: the whole back-end.
pub fn compile(module: &Module, target: &TargetDesc) -> Result<String, Error> {
    let mut module = module.clone();
    prepare(&mut module)?;
    write_module(&module, target)
}
