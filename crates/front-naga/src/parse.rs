//! Reading shaders with naga: parse, then validate.
//!
//! Every entry point returns a validated [`naga::Module`] with its
//! [`naga::valid::ModuleInfo`], or a [`FrontendError`] whose text is naga's own rendering
//! (file, line, column and snippet for WGSL and GLSL).
//!
//! **Capabilities.** The validator runs with every validation flag and with *all* of
//! naga's capabilities (and every subgroup stage and operation). The validator's job here
//! is to decide whether the input is a well-formed shader; what oxir can represent is
//! decided in one place, the lowering, which refuses each unsupported feature with an
//! `unsupported: FEATURE at LINE:COLUMN` diagnostic. Validating with a narrower capability
//! set would turn those refusals into naga's less precise "capability X is required".
//!
//! **Containment.** Every parse and validation runs through `contain.rs` (a large
//! stack, naga's panics caught and turned into errors) and the text inputs first pass
//! `depth.rs`'s nesting bound, so nothing naga does on any input crashes oxir.
//! Errors without a line and column (SPIR-V input, naga's panics) render as
//! `PATH: error: MESSAGE`.
//!
//! **SPIR-V** is read with naga's default options: `adjust_coordinate_space` flips the
//! vertex position's y so that every oxir module uses naga's (WebGPU's) clip-space
//! convention, whatever language it came from.

use crate::contain::{contained, unlocated};
use crate::depth::{self, Language};
use crate::error::{FrontendError, FrontendStage};
use naga::valid::{
    Capabilities, ModuleInfo, ShaderStages, SubgroupOperationSet, ValidationFlags, Validator,
};

/// The stages a GLSL source can have (one per file).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GlslStage {
    Vertex,
    Fragment,
    Compute,
}

impl GlslStage {
    /// The stage a GLSL file extension names: `vert`, `frag`, `comp`.
    pub fn from_extension(extension: &str) -> Option<Self> {
        match extension {
            "vert" => Some(GlslStage::Vertex),
            "frag" => Some(GlslStage::Fragment),
            "comp" => Some(GlslStage::Compute),
            _ => None,
        }
    }

    /// `vertex`, `fragment`, `compute` (and the extensions) as `--stage` spells them.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "vertex" | "vert" => Some(GlslStage::Vertex),
            "fragment" | "frag" => Some(GlslStage::Fragment),
            "compute" | "comp" => Some(GlslStage::Compute),
            _ => None,
        }
    }

    fn naga(self) -> naga::ShaderStage {
        match self {
            GlslStage::Vertex => naga::ShaderStage::Vertex,
            GlslStage::Fragment => naga::ShaderStage::Fragment,
            GlslStage::Compute => naga::ShaderStage::Compute,
        }
    }
}

/// A parsed and validated naga module.
#[derive(Debug)]
pub struct Validated {
    pub module: naga::Module,
    pub info: ModuleInfo,
}

/// The validator oxir uses: all flags, all capabilities (see the module docs).
pub fn validator() -> Validator {
    let mut validator = Validator::new(ValidationFlags::all(), Capabilities::all());
    validator
        .subgroup_stages(ShaderStages::all())
        .subgroup_operations(SubgroupOperationSet::all());
    validator
}

/// Validates `module` (contained, see `contain.rs`); `path` and `source` are used
/// to render naga's diagnostic (pass `None` for binary inputs).
pub fn validate(
    module: naga::Module,
    path: &str,
    source: Option<&str>,
) -> Result<Validated, FrontendError> {
    contained(path, || validate_here(module, path, source))
}

/// [`validate`] on the calling thread, uncontained: for work already inside
/// [`contained`].
fn validate_here(
    module: naga::Module,
    path: &str,
    source: Option<&str>,
) -> Result<Validated, FrontendError> {
    match validator().validate(&module) {
        Ok(info) => Ok(Validated { module, info }),
        Err(error) => {
            let summary = error_chain(&error);
            // Spans of a binary input are byte offsets into the binary: there is no text to
            // draw a snippet from (and naga's renderer would index past its end).
            match source {
                Some(text) => Err(FrontendError {
                    stage: FrontendStage::Validate,
                    location: error
                        .location(text)
                        .map(|l| (l.line_number, l.line_position)),
                    rendered: error.emit_to_string_with_path(text, path),
                    summary,
                }),
                None => Err(unlocated(path, FrontendStage::Validate, summary)),
            }
        }
    }
}

/// The error message followed by each of its sources, joined with `: `.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(next) = source {
        text.push_str(": ");
        text.push_str(&next.to_string());
        source = next.source();
    }
    text
}

/// Parses and validates WGSL, after the nesting check (`depth.rs`), contained.
pub fn parse_wgsl(source: &str, path: &str) -> Result<Validated, FrontendError> {
    depth::check(source, Language::Wgsl, path)?;
    contained(path, || {
        let module = naga::front::wgsl::parse_str(source).map_err(|error| FrontendError {
            stage: FrontendStage::Parse,
            summary: error.message().to_string(),
            location: error
                .location(source)
                .map(|l| (l.line_number, l.line_position)),
            rendered: error.emit_to_string_with_path(source, path),
        })?;
        validate_here(module, path, Some(source))
    })
}

/// Parses and validates GLSL of one stage, after the nesting check (`depth.rs`),
/// contained.
pub fn parse_glsl(source: &str, stage: GlslStage, path: &str) -> Result<Validated, FrontendError> {
    depth::check(source, Language::Glsl, path)?;
    contained(path, || {
        let options = naga::front::glsl::Options::from(stage.naga());
        let mut frontend = naga::front::glsl::Frontend::default();
        let module = frontend.parse(&options, source).map_err(|errors| {
            let first = errors.errors.first();
            FrontendError {
                stage: FrontendStage::Parse,
                summary: first
                    .map_or_else(|| "GLSL parse error".to_string(), |e| e.kind.to_string()),
                location: first
                    .and_then(|e| e.location(source))
                    .map(|l| (l.line_number, l.line_position)),
                rendered: errors.emit_to_string_with_path(source, path),
            }
        })?;
        validate_here(module, path, Some(source))
    })
}

/// Parses and validates a SPIR-V binary, contained.
pub fn parse_spirv(bytes: &[u8], path: &str) -> Result<Validated, FrontendError> {
    contained(path, || {
        let options = naga::front::spv::Options::default();
        let module = naga::front::spv::parse_u8_slice(bytes, &options)
            .map_err(|error| unlocated(path, FrontendStage::Parse, error.to_string()))?;
        validate_here(module, path, None)
    })
}
