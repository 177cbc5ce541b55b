//! # oxir-spirv — the SPIR-V back-end
//!
//! Writes SPIR-V for compute, vertex and fragment entry points from structured oxir,
//! using `rspirv`, for Vulkan 1.0–1.3 (SPIR-V 1.0, 1.3, 1.5, 1.6).
//!
//! - [`pipeline`]: the driver pipeline, as data: `normalize`, then the structuring tail
//!   (`structurize`), then `mem2reg` on the structured form, so block parameters come out
//!   as `OpPhi` with one entry per incoming edge, then a verification with unique merges
//!   and canonical break/continue targets.
//! - [`preflight`]: refuses, before anything is emitted, every type, op or construct the
//!   writer cannot express for the chosen target environment (`unsupported: ...`).
//! - [`write_module`]: the writer (module `writer`, one file per concern). The same input
//!   gives the same bytes. Every opcode has one lowering (an exhaustive match), which
//!   names the writer and a typed selector for it; [`opcode_support`] is derived from it.
//! - [`Error`]: a refusal is [`Error::Unsupported`] (what, and where as a [`Location`]:
//!   function, block, instruction); a writer failure on a module the preflight accepted
//!   is [`Error::Internal`], reported as a bug.
//!
//! ## What is written
//!
//! - **Entry points**: `kernel` → `GLCompute` with `LocalSize`; `vertex` → `Vertex`;
//!   `fragment` → `Fragment` with `OriginUpperLeft`, plus `DepthReplacing` when it has a
//!   `frag_depth` result. Parameters and results become `Input` / `Output` variables:
//!   locations with `Location` and, on vertex outputs and fragment inputs, `Flat` /
//!   `NoPerspective` / `Centroid` / `Sample` from the interpolation (integer and 64-bit
//!   fragment inputs, built-ins included, are always `Flat`); built-ins with `BuiltIn`
//!   (compute ids, `VertexIndex`, `InstanceIndex`, `BaseInstance`, `BaseVertex`,
//!   `FragCoord`, `FrontFacing`, `SampleId`, `SampleMask` as `array<u32, 1>`,
//!   `PrimitiveId`, `Position`, `FragDepth`, subgroup ids). The `OpEntryPoint` interface
//!   lists the `Input` / `Output` variables below SPIR-V 1.4 and every used global from
//!   1.4 on. Struct-typed stage I/O arrives flattened by the front-end (one parameter or
//!   result per member).
//! - **Functions**: the callables the entry points reach (after `normalize`'s
//!   `inline-when-smaller`: shared helpers larger than their copies) become SPIR-V
//!   functions with their signatures, written callees first; `call` → `OpFunctionCall`,
//!   `return` in a callable → `OpReturnValue` / `OpReturn`; from SPIR-V 1.4 an entry
//!   point's interface also lists the globals its callees name. A callable no entry
//!   point reaches is not written.
//! - **Control flow**: `OpSelectionMerge` / `OpLoopMerge` from the structured constructs
//!   (loop merge in the prepare block, the update block as continue target, a synthetic
//!   continue block for `simple_loop`); `discard` → `OpKill`, or `OpTerminateInvocation`
//!   from SPIR-V 1.6 (both end the invocation, as oxir's terminator does).
//! - **Memory**: storage classes from address spaces; explicit layouts (`Offset`,
//!   `ArrayStride`, `MatrixStride`, `ColMajor`, `Block`) from `oxir_ir::data_layout`
//!   (`std430` storage / push constant, `std140` uniform); atomics with `Workgroup` or
//!   `Device` scope; barriers; 8- and 16-bit values in buffers with the
//!   `*8BitAccess` / `*16BitAccess` capabilities (and `SPV_KHR_8bit_storage` /
//!   `SPV_KHR_16bit_storage` below SPIR-V 1.5 / 1.3).
//! - **Images and samplers**: sampled, depth, multisampled and storage textures (1D, 2D,
//!   3D, cube, arrays) and samplers as `UniformConstant` variables with `DescriptorSet` /
//!   `Binding`; sampling (implicit LOD, bias, explicit LOD, gradients, depth compare at
//!   level 0), fetches, storage reads and writes, size / level / layer / sample queries.
//!   oxir has no gathers or texel offsets (the front-end refuses them).
//! - **Arithmetic**: integer division and remainder with WGSL's rules; float → integer
//!   conversion exactly as the interpreter (NaN → 0, saturating at both ends, truncating
//!   otherwise); `select` of composites (`OpSelect` from SPIR-V 1.4, per member below);
//!   derivatives (`DerivativeControl` for the coarse and fine forms).
//! - **Capabilities and extensions** are declared only when something uses them.
//! - **Debug names** only with [`Options::debug_names`]: `OpName` on functions and global
//!   variables (no member names, no names of values or types).
//! - **Types and constants** are declared once each (see module `writer`'s interning).
//!
//! ## What is refused (exit 1, `unsupported: ...`)
//!
//! `print`, `assert`, `clock`; callables with pointer or resource parameters or results,
//! more than one result, or a stage-register read (the driver inlines those), recursion,
//! calls to external declarations;
//! unstructured `switch_br` and `cond_br` outside loop headers; pointer-typed block
//! parameters and `select` of pointers (variable pointers); block parameters and `select`
//! of images or samplers; GLSL.std.450 transcendentals (`sin` … `pow`, `exp10`, `log10`,
//! `degrees`, `radians`) on 64-bit floats; derivatives on other than 32-bit floats; bit
//! counting and field ops on other than 32-bit integers; bool in buffer memory; 8- and
//! 16-bit and bool values at stage locations; built-ins a stage cannot bind; stage-specific
//! ops elsewhere (compute ids, barriers and workgroup memory outside kernels, derivatives,
//! implicit-LOD samples and `discard` outside fragment shaders, vertex ids outside vertex
//! shaders); subgroup ids under Vulkan 1.0; more than one push-constant global; a module
//! without entry points.

#![warn(missing_docs)]

mod calls;
pub mod copy_loops;
mod preflight;
mod uniform_layout;
pub mod uniform_words;
mod writer;

use oxir_ir::verifier::VerifierOptions;
use oxir_ir::{Block, Inst, Module};
use oxir_passes::pipeline::{PassPipeline, PipelineError};
use std::fmt;

pub use preflight::{opcode_support, preflight, Support};
pub use writer::images::texel_image_format;

/// A Vulkan target environment.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum TargetEnv {
    /// Vulkan 1.0: SPIR-V 1.0.
    Vulkan1_0,
    /// Vulkan 1.1: SPIR-V 1.3 (the default).
    #[default]
    Vulkan1_1,
    /// Vulkan 1.2: SPIR-V 1.5.
    Vulkan1_2,
    /// Vulkan 1.3: SPIR-V 1.6.
    Vulkan1_3,
}

impl TargetEnv {
    /// Every environment, oldest first.
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

    /// The environment spelled `name` (`vulkan1.0` .. `vulkan1.3`), if any.
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
    /// The Vulkan environment the module is written for.
    pub target_env: TargetEnv,
    /// Write debug names: an `OpName` on every function and global variable (default:
    /// none). They change nothing else: the module without them is the module with them
    /// minus its `OpName` instructions. Entry-point names in `OpEntryPoint` are not debug
    /// information and are always written.
    pub debug_names: bool,
}

/// Where in the module an error arose: the function (`@name`), block (`blockN`) and
/// instruction (`instN`) being checked or written, as far as known (none: module level,
/// e.g. a global's type).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// The function's name; `None` for module-level items (types, globals, capabilities).
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
    /// The preflight refused the module: it uses something SPIR-V for the target
    /// environment cannot express (user-facing; the text names what, not where).
    #[error("unsupported: {what}")]
    Unsupported {
        /// What the target cannot express.
        what: String,
        /// Where the module uses it.
        location: Location,
    },
    /// The writer failed on a module the preflight accepted: a bug (the preflight should
    /// have refused it), or an `rspirv` builder error.
    #[error("internal error in the SPIR-V writer: {message} (at {location}; this is a bug)")]
    Internal {
        /// Where the writer was.
        location: Location,
        /// What went wrong.
        message: String,
    },
    /// The driver pipeline failed: the pass, and its typed refusal with the function and
    /// block where it has one.
    #[error("pass {0}")]
    Pipeline(PipelineError),
    /// The module given to [`write_module`] does not pass the structured verifier.
    #[error("the module is not valid structured oxir:\n{0}")]
    Invalid(String),
}

/// What the writer requires of its input: structured, unique merges, canonical
/// break/continue.
fn writer_input_options() -> VerifierOptions {
    VerifierOptions {
        require_unique_merge_blocks: true,
        require_canonical_break_continue_targets: true,
        ..VerifierOptions::default()
    }
}

/// The SPIR-V driver pipeline: `normalize` (with the default bounds checks),
/// `spirv-uniform-words` (uniform buffers in layouts Vulkan 1.0 cannot describe read as
/// words, see [`uniform_words`]), the structuring tail, SSA recovery on the structured form, and a final structured
/// verification.
pub fn pipeline() -> PassPipeline {
    pipeline_with(oxir_passes::passes::bounds_checks::BoundsPolicy::default())
}

/// [`pipeline`] with the bounds checks of `policy` (see
/// `oxir_passes::passes::bounds_checks`).
pub fn pipeline_with(policy: oxir_passes::passes::bounds_checks::BoundsPolicy) -> PassPipeline {
    build_pipeline(policy, None)
}

/// The `-O` pipeline: `normalize → spirv-uniform-words → ssa-optimization → spirv-copy-loops → structurize → mem2reg →
/// post-restructure-cleanup → verify`, the optimiser with `optimizer`'s assumptions.
pub fn optimizing_pipeline_with(
    policy: oxir_passes::passes::bounds_checks::BoundsPolicy,
    optimizer: oxir_passes::pipelines::Optimizer,
) -> PassPipeline {
    build_pipeline(policy, Some(optimizer))
}

fn build_pipeline(
    policy: oxir_passes::passes::bounds_checks::BoundsPolicy,
    optimizer: Option<oxir_passes::pipelines::Optimizer>,
) -> PassPipeline {
    use oxir_passes::pipelines;
    let mut p = PassPipeline::new();
    // Functions stay where logical addressing allows it and keeping them is smaller.
    p.add_sequence(
        "normalize",
        pipelines::normalize_for(policy, pipelines::Inlining::KeepWhenSmaller),
    );
    p.add("spirv-uniform-words", |m: &mut Module| {
        oxir_passes::PassOutcome::from_info(&uniform_words::run_on_module(m))
    });
    if let Some(optimizer) = optimizer {
        p.add_sequence(
            "ssa-optimization",
            pipelines::ssa_optimization_with(optimizer),
        );
    }
    if optimizer.is_some() {
        p.add("spirv-copy-loops", |m: &mut Module| {
            oxir_passes::PassOutcome::from_info(&copy_loops::run_on_module(m))
        });
    }
    p.add_sequence("structurize", pipelines::structurize());
    p.add("mem2reg", |m: &mut Module| {
        oxir_passes::PassOutcome::from_info(&oxir_passes::passes::mem2reg::run_on_module(m))
    });
    if let Some(optimizer) = optimizer {
        p.add_sequence(
            "post-restructure-cleanup",
            pipelines::post_restructure_cleanup_with(optimizer),
        );
    }
    p.add_verify("verify-spirv-input", writer_input_options());
    // `write_module` verifies its input with the same options, so the runs after
    // `verify-input` only check the passes (debug builds, `OXIR_VERIFY_EACH`).
    p.make_checks_internal(&["verify-input"]);
    p
}

/// Runs [`pipeline`] on `module`.
pub fn prepare(module: &mut Module) -> Result<(), Error> {
    let stats = pipeline().run(module);
    match stats.error {
        Some(e) => Err(Error::Pipeline(e)),
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
    preflight(module, options)?;
    writer::write(module, options)
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
