//! # oxir-naga — WGSL, GLSL and SPIR-V in, structured oxir out
//!
//! naga parses and validates the shader ([`parse_wgsl`], [`parse_glsl`],
//! [`parse_spirv`]); [`lower`] turns the validated `naga::Module` into an oxir module in
//! the *structured* form; [`reflect()`] describes its interface for the host.
//!
//! ```
//! let source = "
//!     @group(0) @binding(0) var<storage, read_write> data: array<f32>;
//!     @compute @workgroup_size(64)
//!     fn main(@builtin(global_invocation_id) id: vec3<u32>) {
//!         if id.x < arrayLength(&data) { data[id.x] = 2.0 * data[id.x]; }
//!     }";
//! let shader = oxir_naga::parse_wgsl(source, "double.wgsl").unwrap();
//! let module = oxir_naga::lower(&shader.module, &shader.info).unwrap();
//! let report = oxir_ir::verifier::verify_module(&module, &oxir_naga::verifier_options());
//! assert!(report.succeeded());
//! ```
//!
//! ## Containment
//!
//! naga runs contained (`contain.rs`): parse and validation under `catch_unwind` on a
//! thread with [`STACK_BYTES`] of stack ([`on_large_stack`]), a panic becoming a
//! [`FrontendError`] of stage [`FrontendStage::Panic`] without output from the panic hook;
//! WGSL and GLSL text above the lexical nesting bound [`MAX_NESTING`] (`depth.rs`) is
//! refused first ([`FrontendStage::Limit`]), so naga's recursion stays inside that stack.
//! The lowering recurses per nested statement too: callers run it on a large stack
//! (`oxir-driver` does).
//!
//! ## What a lowered module is
//!
//! 1. It passes `oxir_ir::verifier::verify_module` with the default options plus
//!    `require_unique_merge_blocks` and `require_canonical_break_continue_targets`
//!    ([`verifier_options`]); debug builds check this at the end of [`lower`].
//! 2. Control flow is structured and follows the lowering contract of `docs/ir.md`:
//!    naga's `If`, `Loop` and `Switch` become `if`, `loop` and `switch` with fresh merge
//!    blocks (`statements.rs` has the mapping, including loops with `break_if` and switch
//!    fall-through). The only `cond_br` is the one ending each loop's prepare block.
//! 3. Every entry point selected and every naga function it reaches is a function;
//!    every global they use is a global (`module.rs`); entry-point interfaces are
//!    flattened and built-ins become special registers where oxir has one
//!    (`entry_points.rs`).
//! 4. Local variables are `alloca`s in the entry block, initialized there (`function.rs`):
//!    the module is ready for `mem2reg`. Values follow naga's `Emit` evaluation order.
//! 5. Types keep naga's buffer layouts: host-shared structs carry naga's member offsets,
//!    and a buffer whose layout std430 (storage, push constants) or std140 (uniform)
//!    cannot express is refused (`types.rs`).
//!
//! ## Pipeline-overridable constants
//!
//! [`compile_with_overrides`] (and [`compile`], with every override at its default)
//! applies the overrides' values with [`apply_overrides`] (`overrides.rs`, through naga's
//! `process_overrides`) before lowering: workgroup sizes, array lengths and every
//! expression set by overrides become constants. [`lower`] on a module whose overrides
//! were not applied refuses them.
//!
//! ## What is refused
//!
//! Anything oxir cannot represent is a [`LowerError::Unsupported`] whose message starts
//! with `unsupported:`, names the feature and (once [`LowerError::located`]) its line and
//! column — never a panic and never a silently different module. Refused today: ray
//! queries and ray-tracing pipelines, quad operations, mesh and task shaders, binding
//! arrays, cooperative matrices, external textures,
//! texture atomics, floating-point atomics, depth comparisons at a non-zero explicit
//! level, memory-only barriers, subgroup-only
//! barriers, `@early_depth_test`, dual-source blending, built-ins
//! without an oxir counterpart (clip distances, point size, view index, ...), storage
//! texture formats oxir lacks, and buffer layouts std430/std140 cannot express. Each
//! module's docs has its own table.
//!
//! Execution checks (lowered module versus the shader's meaning) arrive with the
//! interpreter (issue 5); the tests verify every lowered module today.

mod constants;
mod contain;
mod depth;
mod entry_points;
mod error;
mod expressions;
mod function;
mod images;
mod loops;
mod math;
mod module;
mod override_values;
pub mod overrides;
mod packing;
mod parse;
pub mod reflect;
pub mod spec_constants;
mod statements;
mod subgroups;
mod types;

pub use contain::{on_large_stack, STACK_BYTES};
pub use depth::{glsl_nesting, wgsl_nesting, MAX_NESTING};
pub use error::{CompileError, FrontendError, FrontendStage, LowerError, SourcePosition};
pub use module::{lower, lower_with_options, verifier_options, LowerOptions};
pub use override_values::{OverrideType, OverrideValue};
pub use overrides::{
    apply_overrides, OverrideError, OverrideInfo, OverrideProblem, OverrideSetting,
};
pub use parse::{parse_glsl, parse_spirv, parse_wgsl, validate, validator, GlslStage, Validated};
pub use reflect::reflect;
pub use spec_constants::{plan_spec_constants, spec_ids, SpecPlan};

/// A shader to read, with its language.
#[derive(Copy, Clone, Debug)]
pub enum ShaderSource<'a> {
    Wgsl(&'a str),
    Glsl(&'a str, GlslStage),
    SpirV(&'a [u8]),
}

impl ShaderSource<'_> {
    /// The source text, for rendering diagnostics (`None` for binaries).
    pub fn text(&self) -> Option<&str> {
        match *self {
            ShaderSource::Wgsl(text) | ShaderSource::Glsl(text, _) => Some(text),
            ShaderSource::SpirV(_) => None,
        }
    }

    /// Parses and validates the shader; `path` names it in diagnostics.
    pub fn parse(&self, path: &str) -> Result<Validated, FrontendError> {
        match *self {
            ShaderSource::Wgsl(text) => parse_wgsl(text, path),
            ShaderSource::Glsl(text, stage) => parse_glsl(text, stage, path),
            ShaderSource::SpirV(bytes) => parse_spirv(bytes, path),
        }
    }
}

/// Parses, validates and lowers a shader, its overrides at their defaults; errors come
/// back located against the source ([`LowerError::located`]).
pub fn compile(
    source: ShaderSource<'_>,
    path: &str,
    options: &LowerOptions,
) -> Result<oxir_ir::Module, CompileError> {
    compile_with_overrides(source, path, options, &[])
}

/// [`compile`] with the shader's pipeline-overridable constants kept as specialization
/// constants ([`plan_spec_constants`]): `settings` give their defaults.
pub fn compile_with_spec_constants(
    source: ShaderSource<'_>,
    path: &str,
    options: &LowerOptions,
    settings: &[OverrideSetting],
) -> Result<oxir_ir::Module, CompileError> {
    let shader = source.parse(path)?;
    let plan = plan_spec_constants(&shader.module, settings)
        .map_err(|e| CompileError::Override(e.located(source.text())))?;
    let options = LowerOptions {
        spec_constants: Some(plan),
        ..options.clone()
    };
    lower_with_options(&shader.module, &shader.info, &options)
        .map_err(|e| CompileError::Lower(e.located(source.text())))
}

/// [`compile`] with values for the shader's pipeline-overridable constants
/// ([`apply_overrides`] between validation and lowering).
pub fn compile_with_overrides(
    source: ShaderSource<'_>,
    path: &str,
    options: &LowerOptions,
    overrides: &[OverrideSetting],
) -> Result<oxir_ir::Module, CompileError> {
    let shader = source.parse(path)?;
    let entry = options.entry_point.as_deref();
    let resolved = apply_overrides(&shader.module, &shader.info, entry, overrides, path)
        .map_err(|e| CompileError::Override(e.located(source.text())))?;
    lower_with_options(&resolved.module, &resolved.info, options)
        .map_err(|e| CompileError::Lower(e.located(source.text())))
}
