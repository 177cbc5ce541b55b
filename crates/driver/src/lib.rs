//! # oxir-driver — source in, artifact out
//!
//! [`compile`] is everything `oxir compile` does, as a library call: the `oxir` command is
//! a thin shell that reads files, calls it and prints the [`Artifact`]'s bytes, so an
//! embedder gets exactly what the command prints for the same input and options.
//!
//! ```
//! use oxir_driver::{compile, CompileOptions, Input, Target};
//!
//! let wgsl = "
//!     @group(0) @binding(0) var<storage, read_write> data: array<f32>;
//!     @compute @workgroup_size(64)
//!     fn main(@builtin(global_invocation_id) id: vec3<u32>) {
//!         if id.x < arrayLength(&data) { data[id.x] = 2.0 * data[id.x]; }
//!     }";
//! let options = CompileOptions::default();
//! let spirv = compile(Input::wgsl("double.wgsl", wgsl), Target::Spirv, &options).unwrap();
//! assert_eq!(spirv.as_words().unwrap()[0], 0x0723_0203); // the SPIR-V magic number
//! let text = compile(Input::wgsl("double.wgsl", wgsl), Target::Oxir, &options).unwrap();
//! assert!(text.as_text().unwrap().contains("kernel @main"));
//! ```
//!
//! ## The pipeline
//!
//! 1. **Front-end** ([`load`]): WGSL, GLSL and SPIR-V are parsed and validated by naga,
//!    their pipeline-overridable constants set ([`CompileOptions::overrides`], else their
//!    defaults; naga's `process_overrides` through `oxir_naga::apply_overrides`) and
//!    lowered by `oxir-naga` (only the entry point of [`CompileOptions::entry_point`] and
//!    what it calls, when given); oxir text is parsed by `oxir_ir::parser`; a built module
//!    is taken as it is.
//! 2. **Verifier**: every module, whatever its source, must pass
//!    `oxir_ir::verifier::verify_module` with `oxir_naga::verifier_options()` (the
//!    defaults plus unique merge blocks and canonical break/continue targets).
//! 3. **The target's pass pipeline** ([`target_pipeline`]), chosen from the target and
//!    the [`OptLevel`]: at `-O0` none for [`Target::Oxir`] (the text is the verified
//!    front-end output), `oxir_spirv::pipeline_with(bounds_checks)` for the SPIR-V
//!    targets and `oxir_llvm::pipeline_with(bounds_checks)` (`normalize`) for the LLVM
//!    targets. Every back-end pipeline starts with `normalize`, which ends in the
//!    `bounds-checks` pass under [`CompileOptions::bounds_checks`] (default: out-of-range
//!    loads read zero, stores are skipped — the interpreter's robust mode). `-O1` adds
//!    the optimiser after `normalize` (`ssa-optimization`; for SPIR-V also
//!    `post-restructure-cleanup` after `structurize`), prints [`Target::Oxir`] after
//!    `normalize` and `ssa-optimization`, and for the LLVM targets also runs LLVM's
//!    `opt -O2`.
//! 4. **Preflight and emit**: `oxir_spirv::write_module` verifies that the pipeline's
//!    output is what the writer takes, runs the preflight (which refuses, before anything
//!    is written, whatever the target environment cannot express) and writes the words
//!    (with `OpName`s only under [`CompileOptions::debug_info`]). The LLVM targets: `oxir_llvm::write_module` likewise, then (for PTX) libdevice,
//!    `opt` and `llc` (module `llvm`: how the tools are found, `OXIR_DUMP_LLVM`).
//! 5. **Artifact**: oxir text, SPIR-V words or their disassembly, LLVM IR or PTX text,
//!    or for the CSIR targets (`oxir_csir`, one vertex or fragment entry point, through
//!    `oxir_csir::lower::pipeline` at every level) the CSIR listing, TGSI text or a CSI
//!    file.
//!
//! [`compile_host`] takes the same steps for one kernel and the LLVM back-end's host
//! target (`oxir_llvm::TargetDesc::host()`), then `opt`, `llc -filetype=obj` and the C
//! compiler (`OXIR_CC`, else `cc`), and returns a [`HostLibrary`]: a shared object in a
//! temporary folder (removed when it is dropped) and its `oxir_llvm::host_abi::HostKernel`,
//! for a host runtime (`oxir-host`) to load and run.
//!
//! Every failure is one [`Error`] whose variant names the layer.
//!
//! ## Containment
//!
//! [`compile`], [`load`] and [`reflect`] run on a thread with [`STACK_BYTES`] of stack
//! ([`on_large_stack`]; on the caller's thread when it already is one): naga, the
//! lowering, the verifier and the passes recurse once per nesting level of the shader.
//! naga itself runs under `catch_unwind` with its panic output silenced, and WGSL and
//! GLSL text above [`MAX_NESTING`] is refused before naga reads it (`oxir-naga`'s
//! `contain` and `depth` modules): a panic in naga is an [`Error::Frontend`] of stage
//! `Panic` (`NAME: error: naga failed on this input: ...`), never a crash. What is not
//! contained: out-of-memory aborts and endless loops inside naga.
//!
//! Invariants: the same input and options give the same bytes; the input is never
//! modified (a built module is cloned before any pass runs).

#![warn(missing_docs)]

mod csir;
mod error;
mod input;
mod llvm;

pub use error::Error;
pub use input::{Input, Source};
pub use llvm::HostLibrary;
pub use oxir_naga::reflect::Reflection;
pub use oxir_naga::{on_large_stack, GlslStage, MAX_NESTING, STACK_BYTES};
pub use oxir_naga::{OverrideInfo, OverrideSetting, OverrideType, OverrideValue};
pub use oxir_passes::passes::bounds_checks::{BoundsPolicy, CheckClass, Policy, PolicyParseError};
pub use oxir_passes::pipelines::Optimizer;
pub use oxir_spirv::TargetEnv;

use input::{Classified, Shader};
use oxir_ir::printer::{print_module, View};
use oxir_ir::Module;
use oxir_naga::{LowerError, LowerOptions};
use oxir_passes::PassPipeline;
use std::borrow::Cow;

/// What to produce.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// The oxir module as text.
    Oxir,
    /// A SPIR-V binary.
    Spirv,
    /// The SPIR-V binary's disassembly.
    SpirvAsm,
    /// LLVM IR text for NVIDIA GPUs (`nvptx64-nvidia-cuda`).
    LlvmNvptx,
    /// PTX assembly, through `llc` (see the `llvm` module for the tools it finds).
    Ptx,
    /// The CSIR listing of one vertex or fragment entry point (`oxir_csir`).
    Csir,
    /// TGSI text for VirGL from CSIR.
    Tgsi,
    /// The CSI v2 binary of the CSIR shader.
    Csi,
}

/// How hard to optimise (see [`target_pipeline`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OptLevel {
    /// `-O0`: the target's driver pipeline only (what the back-end needs to write).
    #[default]
    O0,
    /// `-O`: the driver pipeline plus the optimiser (`ssa-optimization`, and for
    /// structured targets `post-restructure-cleanup`).
    O1,
}

/// Options of [`compile`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// Lower only this entry point (and what it calls); shader input only.
    pub entry_point: Option<String>,
    /// How hard to optimise.
    pub opt_level: OptLevel,
    /// The SPIR-V target environment (SPIR-V targets only).
    pub target_env: TargetEnv,
    /// Print the oxir text in the structured view (blocks nested under the constructs that
    /// own them) instead of layout order ([`Target::Oxir`] only).
    pub structured: bool,
    /// The NVIDIA GPU (`sm_80`, `sm_90a`, ...) [`Target::Ptx`] is for; `None`:
    /// `OXIR_CUDA_ARCH`, else `sm_80`.
    pub cuda_arch: Option<String>,
    /// The bounds-check policy per class (default: `read-zero-skip-write` everywhere, the
    /// interpreter's robust semantics). [`Policy::Unchecked`] makes an out-of-range index
    /// undefined behaviour on the GPU.
    pub bounds_checks: BoundsPolicy,
    /// Write debug information: for the SPIR-V targets, `OpName`s on functions and global
    /// variables (`oxir_spirv::Options::debug_names`; default: none). No effect on the
    /// other targets.
    pub debug_info: bool,
    /// Let `-O` rewrite float arithmetic as if NaN, infinities and signed zeros did not
    /// occur (`fast-math-simplify`; [`oxir_passes::pipelines::Optimizer::fast_math`]).
    /// No effect at `-O0`.
    pub fast_math: bool,
    /// Values for the shader's pipeline-overridable constants (`NAME=VALUE`, or
    /// `ID=VALUE` for an `@id(ID)`), applied between validation and lowering
    /// (`oxir_naga::apply_overrides`); overrides not given take their defaults. Shader
    /// input only.
    pub overrides: Vec<OverrideSetting>,
    /// Keep the shader's overrides as specialization constants (`spec_constant`, SPIR-V
    /// `OpSpecConstant` with `SpecId`) for the pipeline to set, with [`Self::overrides`]
    /// as their defaults (`oxir_naga::plan_spec_constants`). Shader input only; the
    /// LLVM and CSIR back-ends refuse such a module.
    pub spec_constants: bool,
}

impl CompileOptions {
    /// What the optimiser may assume under these options.
    pub fn optimizer(&self) -> Optimizer {
        Optimizer {
            fast_math: self.fast_math,
        }
    }
}

/// The result of [`compile`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Artifact {
    /// oxir text ([`Target::Oxir`]).
    Oxir(String),
    /// SPIR-V words ([`Target::Spirv`]).
    Spirv(Vec<u32>),
    /// SPIR-V disassembly, ending in a newline ([`Target::SpirvAsm`]).
    SpirvAsm(String),
    /// LLVM IR text ([`Target::LlvmNvptx`]).
    Llvm(String),
    /// PTX text ([`Target::Ptx`]).
    Ptx(String),
    /// The CSIR listing ([`Target::Csir`]).
    Csir(String),
    /// TGSI text ([`Target::Tgsi`]).
    Tgsi(String),
    /// A CSI file's bytes ([`Target::Csi`]).
    Csi(Vec<u8>),
}

impl Artifact {
    /// The bytes `oxir compile` writes: the text, or the words little-endian (the `.spv`
    /// file format).
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Artifact::Oxir(text)
            | Artifact::SpirvAsm(text)
            | Artifact::Llvm(text)
            | Artifact::Ptx(text)
            | Artifact::Csir(text)
            | Artifact::Tgsi(text) => text.clone().into_bytes(),
            Artifact::Spirv(words) => oxir_spirv::to_bytes(words),
            Artifact::Csi(bytes) => bytes.clone(),
        }
    }

    /// The text of a textual artifact; `None` for SPIR-V words.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Artifact::Oxir(text)
            | Artifact::SpirvAsm(text)
            | Artifact::Llvm(text)
            | Artifact::Ptx(text)
            | Artifact::Csir(text)
            | Artifact::Tgsi(text) => Some(text),
            Artifact::Spirv(_) | Artifact::Csi(_) => None,
        }
    }

    /// The words of a SPIR-V artifact; `None` for text.
    pub fn as_words(&self) -> Option<&[u32]> {
        match self {
            Artifact::Spirv(words) => Some(words),
            Artifact::Oxir(_)
            | Artifact::SpirvAsm(_)
            | Artifact::Llvm(_)
            | Artifact::Ptx(_)
            | Artifact::Csir(_)
            | Artifact::Tgsi(_)
            | Artifact::Csi(_) => None,
        }
    }
}

/// Compiles `input` for `target`: front-end, verifier, the target's pipeline, preflight,
/// emit (see the crate docs).
pub fn compile(
    input: Input<'_>,
    target: Target,
    options: &CompileOptions,
) -> Result<Artifact, Error> {
    with_large_stack(|| compile_here(input, target, options))
}

fn compile_here(
    input: Input<'_>,
    target: Target,
    options: &CompileOptions,
) -> Result<Artifact, Error> {
    let module = load_verified(input, options)?;
    match target {
        Target::Oxir => {
            let view = if options.structured {
                View::Structured
            } else {
                View::Flat
            };
            let module = prepared(module, target, options)?;
            Ok(Artifact::Oxir(print_module(&module, view)))
        }
        Target::Spirv => Ok(Artifact::Spirv(emit_spirv(module, target, options)?)),
        Target::SpirvAsm => {
            let words = emit_spirv(module, target, options)?;
            let text = oxir_spirv::disassemble(&words).map_err(Error::Disassembly)?;
            Ok(Artifact::SpirvAsm(format!("{text}\n")))
        }
        Target::LlvmNvptx => {
            let module = prepared(module, target, options)?;
            Ok(Artifact::Llvm(llvm::emit_llvm(module, options)?))
        }
        Target::Ptx => {
            let module = prepared(module, target, options)?;
            Ok(Artifact::Ptx(llvm::emit_ptx(module, options)?))
        }
        Target::Csir | Target::Tgsi | Target::Csi => {
            let module = prepared(module, target, options)?;
            csir::emit(&module, target, options)
        }
    }
}

/// Compiles kernel `entry` of `input` for this machine's CPU (the LLVM writer's host
/// target, `opt`, `llc` and the C compiler; see [`HostLibrary`]), for a host runtime to
/// load. The module goes through the LLVM pipeline as [`Target::Ptx`] does.
pub fn compile_host(
    input: Input<'_>,
    entry: &str,
    options: &CompileOptions,
) -> Result<HostLibrary, Error> {
    with_large_stack(|| {
        let module = load_verified(input, options)?;
        let module = prepared(module, Target::Ptx, options)?;
        llvm::emit_host_library(module, entry, options)
    })
}

/// The front half of [`compile`]: the front-end and the verifier. The module returned is
/// what [`Target::Oxir`] prints.
pub fn load(input: Input<'_>, options: &CompileOptions) -> Result<Module, Error> {
    with_large_stack(|| load_verified(input, options).map(Cow::into_owned))
}

/// The interface of a shader (entry points, stage inputs and outputs, resource bindings
/// with their sizes, pipeline-overridable constants), from naga's validated module with
/// its overrides at their defaults; nothing is lowered.
pub fn reflect(input: Input<'_>) -> Result<Reflection, Error> {
    reflect_with_overrides(input, &[])
}

/// [`reflect`] with values for the shader's overrides (as [`CompileOptions::overrides`]):
/// workgroup sizes and buffer sizes are those the values give, and
/// [`Reflection::overrides`] lists each override with its default and the value used.
pub fn reflect_with_overrides(
    input: Input<'_>,
    overrides: &[OverrideSetting],
) -> Result<Reflection, Error> {
    with_large_stack(|| reflect_here(&input, overrides))
}

fn reflect_here(input: &Input<'_>, overrides: &[OverrideSetting]) -> Result<Reflection, Error> {
    let Classified::Shader(shader) = Classified::of(&input.source) else {
        return Err(Error::NotAShader);
    };
    let source = shader.naga_source();
    let validated = source.parse(input.name).map_err(Error::Frontend)?;
    let resolved = applied(input.name, &source, &validated, None, overrides)?;
    let mut reflection = oxir_naga::reflect(&resolved.module, &resolved.info);
    reflection.overrides = resolved.overrides;
    Ok(reflection)
}

/// `oxir_naga::apply_overrides`, its error rendered against the source.
fn applied<'a>(
    name: &str,
    source: &oxir_naga::ShaderSource<'_>,
    validated: &'a oxir_naga::Validated,
    entry_point: Option<&str>,
    overrides: &[OverrideSetting],
) -> Result<oxir_naga::overrides::Resolved<'a>, Error> {
    let (module, info) = (&validated.module, &validated.info);
    oxir_naga::apply_overrides(module, info, entry_point, overrides, name).map_err(|error| {
        let error = error.located(source.text());
        Error::Override {
            rendered: error.render(name, source.text()),
            error: Box::new(error),
        }
    })
}

/// `oxir_naga::plan_spec_constants`, its error rendered against the source.
fn planned(
    name: &str,
    source: &oxir_naga::ShaderSource<'_>,
    validated: &oxir_naga::Validated,
    overrides: &[OverrideSetting],
) -> Result<oxir_naga::SpecPlan, Error> {
    oxir_naga::plan_spec_constants(&validated.module, overrides).map_err(|error| {
        let error = error.located(source.text());
        Error::Override {
            rendered: error.render(name, source.text()),
            error: Box::new(error),
        }
    })
}

/// Runs `work` (a whole [`compile`], [`load`] or [`reflect`]) with
/// [`oxir_naga::STACK_BYTES`] of stack: the front-end's lowering, the verifier and the
/// passes recurse once per level of nested control flow, as deep as the front-end's
/// nesting bound ([`oxir_naga::MAX_NESTING`]) lets a shader go. Inline when the calling
/// thread already has that stack (a caller may run several calls on one such thread with
/// [`oxir_naga::on_large_stack`]).
fn with_large_stack<T: Send>(work: impl FnOnce() -> Result<T, Error> + Send) -> Result<T, Error> {
    oxir_naga::on_large_stack(work).unwrap_or_else(|error| Err(Error::Thread(error)))
}

/// The pass pipeline `target` runs at `level` with the bounds checks of `bounds`, or
/// `None` when it runs none. `O1` adds the optimiser to `O0`. Every back-end pipeline
/// starts with `normalize`, which ends in `bounds-checks`.
pub fn target_pipeline(
    target: Target,
    level: OptLevel,
    bounds: BoundsPolicy,
    optimizer: Optimizer,
) -> Option<PassPipeline> {
    match (target, level) {
        (Target::Oxir, OptLevel::O0) => None,
        (Target::Oxir, OptLevel::O1) => {
            let mut p = oxir_passes::pipelines::normalize_with(bounds);
            p.add_sequence(
                "ssa-optimization",
                oxir_passes::pipelines::ssa_optimization_with(optimizer),
            );
            Some(p)
        }
        (Target::Spirv | Target::SpirvAsm, OptLevel::O0) => Some(oxir_spirv::pipeline_with(bounds)),
        (Target::Spirv | Target::SpirvAsm, OptLevel::O1) => {
            Some(oxir_spirv::optimizing_pipeline_with(bounds, optimizer))
        }
        (Target::LlvmNvptx | Target::Ptx, OptLevel::O0) => Some(oxir_llvm::pipeline_with(bounds)),
        (Target::LlvmNvptx | Target::Ptx, OptLevel::O1) => {
            Some(oxir_llvm::optimizing_pipeline_with(bounds, optimizer))
        }
        // CSIR relies on constant folding: its pipeline always runs the optimiser.
        (Target::Csir | Target::Tgsi | Target::Csi, OptLevel::O0 | OptLevel::O1) => {
            Some(oxir_csir::lower::pipeline())
        }
    }
}

/// The target's pipeline on an owned copy of `module`.
fn prepared(
    module: Cow<'_, Module>,
    target: Target,
    options: &CompileOptions,
) -> Result<Module, Error> {
    let mut module = module.into_owned();
    if let Some(pipeline) = target_pipeline(
        target,
        options.opt_level,
        options.bounds_checks,
        options.optimizer(),
    ) {
        if let Some(error) = pipeline.run(&mut module).error {
            return Err(Error::PassRefused(error));
        }
    }
    Ok(module)
}

fn load_verified<'a>(input: Input<'a>, options: &CompileOptions) -> Result<Cow<'a, Module>, Error> {
    let module = match Classified::of(&input.source) {
        Classified::Shader(shader) => Cow::Owned(lower_shader(input.name, &shader, options)?),
        Classified::OxirText(_) | Classified::Module(_) if options.entry_point.is_some() => {
            return Err(Error::EntryFilterOnModule)
        }
        Classified::OxirText(_) | Classified::Module(_)
            if !options.overrides.is_empty() || options.spec_constants =>
        {
            return Err(Error::OverridesOnModule)
        }
        Classified::OxirText(text) => {
            Cow::Owned(oxir_ir::parser::parse_module(text).map_err(Error::OxirParse)?)
        }
        Classified::Module(module) => Cow::Borrowed(module),
    };
    let report = oxir_ir::verifier::verify_module(&module, &oxir_naga::verifier_options());
    if !report.succeeded() {
        return Err(Error::Verification(report));
    }
    Ok(module)
}

/// naga's parse and validation, then the lowering to oxir.
fn lower_shader(
    name: &str,
    shader: &Shader<'_>,
    options: &CompileOptions,
) -> Result<Module, Error> {
    let source = shader.naga_source();
    let validated = source.parse(name).map_err(Error::Frontend)?;
    let entry = options.entry_point.as_deref();
    let (resolved, spec_constants) = if options.spec_constants {
        let plan = planned(name, &source, &validated, &options.overrides)?;
        (None, Some(plan))
    } else {
        let resolved = applied(name, &source, &validated, entry, &options.overrides)?;
        (Some(resolved), None)
    };
    let (module, info) = match &resolved {
        Some(resolved) => (&*resolved.module, &*resolved.info),
        None => (&validated.module, &validated.info),
    };
    let lower_options = LowerOptions {
        entry_point: options.entry_point.clone(),
        spec_constants,
    };
    oxir_naga::lower_with_options(module, info, &lower_options).map_err(|error| match error {
        LowerError::NoSuchEntryPoint { .. } => Error::NoSuchEntryPoint(error),
        LowerError::Unsupported { .. } | LowerError::Internal { .. } => {
            let error = error.located(source.text());
            Error::Lower {
                rendered: error.render(name, source.text()),
                error,
            }
        }
    })
}

/// The target's pipeline, then the back-end's preflight and writer.
fn emit_spirv(
    module: Cow<'_, Module>,
    target: Target,
    options: &CompileOptions,
) -> Result<Vec<u32>, Error> {
    let module = prepared(module, target, options)?;
    let spirv_options = oxir_spirv::Options {
        target_env: options.target_env,
        debug_names: options.debug_info,
    };
    oxir_spirv::write_module(&module, &spirv_options).map_err(Error::from_spirv)
}
