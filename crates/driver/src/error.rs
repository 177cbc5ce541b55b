//! The one error type of the driver: every way [`crate::compile`] can fail, one variant
//! per layer, each wrapping that layer's own error with its message unchanged.
//!
//! | Layer | Variants |
//! |---|---|
//! | front-end (naga, overrides, lowering, oxir text parser) | [`Error::Frontend`], [`Error::Override`], [`Error::Lower`], [`Error::NoSuchEntryPoint`], [`Error::OxirParse`] |
//! | the request itself | [`Error::EntryFilterOnModule`], [`Error::OverridesOnModule`], [`Error::NotAShader`] |
//! | verifier | [`Error::Verification`] |
//! | the target's pass pipeline | [`Error::PassRefused`] |
//! | back-end | [`Error::Unsupported`], [`Error::BackendInternal`], [`Error::Disassembly`], [`Error::LlvmInternal`], [`Error::CsirInternal`] |
//! | LLVM tools and `--arch` | [`Error::Tool`], [`Error::BadArch`] |
//! | the operating system | [`Error::Thread`] |
//!
//! `Display` is the layer's own message, without the input's name: the caller (the `oxir`
//! command, say) puts the name in front. [`Error::Frontend`], [`Error::Override`] and
//! [`Error::Lower`] also
//! carry the full diagnostic with the source snippet ([`Error::rendered`]).

use oxir_ir::parser::ParseError;
use oxir_ir::verifier::VerifierReport;
use oxir_naga::{FrontendError, LowerError, OverrideError};
use oxir_passes::pipeline::PipelineError;

/// Why a compilation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// naga rejected the shader (parse or validation error). Carries the line and column
    /// when naga gave one; displays as naga's diagnostic, with the file name and snippet.
    #[error(transparent)]
    Frontend(FrontendError),
    /// naga accepted the shader but oxir cannot lower it: an unsupported feature
    /// (`unsupported: FEATURE at LINE:COLUMN`) or a lowering bug (`internal error: ...`).
    /// `error` is located against the source; `rendered` is the full diagnostic
    /// (`NAME:LINE:COLUMN: error: ...` and the snippet).
    #[error("{error}")]
    Lower {
        /// The lowering error, located against the source.
        error: LowerError,
        /// The full diagnostic with the input's name and a source snippet.
        rendered: String,
    },
    /// The values given for the shader's pipeline-overridable constants do not fit it (an
    /// unknown name or id, a value that does not read as the override's type, an override
    /// set twice or without a value), or naga could not apply them. `error` is located at
    /// the override's declaration where there is one; `rendered` is the full diagnostic.
    #[error("{error}")]
    Override {
        /// The override error, located against the source (boxed: it is large).
        error: Box<OverrideError>,
        /// The full diagnostic with the input's name and a source snippet.
        rendered: String,
    },
    /// The entry-point filter names no entry point of the shader (a [`LowerError`] of kind
    /// `NoSuchEntryPoint`, listing the entry points there are).
    #[error("{0}")]
    NoSuchEntryPoint(LowerError),
    /// oxir text that does not parse: `LINE:COLUMN: message`.
    #[error("{0}")]
    OxirParse(ParseError),
    /// An entry-point filter was given for oxir text or a built module; it applies to
    /// shader input only.
    #[error("the entry-point filter applies to shader input, not to an oxir module")]
    EntryFilterOnModule,
    /// Override values, or keeping overrides as specialization constants, were asked of
    /// oxir text or a built module; they apply to shader input only.
    #[error("override values and --spec-constants apply to shader input, not to an oxir module")]
    OverridesOnModule,
    /// Reflection was asked of oxir text or a built module; it reads shaders only.
    #[error("reflection reads shaders (WGSL, GLSL, SPIR-V), not oxir modules")]
    NotAShader,
    /// The module fails the verifier (with `oxir_naga::verifier_options()`): every
    /// error, one per line.
    #[error("{0}")]
    Verification(VerifierReport),
    /// A pass of the target's pipeline refused its input or failed: `pass NAME: message`.
    #[error("pass {0}")]
    PassRefused(PipelineError),
    /// The back-end's preflight refused the module: it uses something the target cannot
    /// express (`unsupported: ...`). `location` is the function, block and instruction
    /// that uses it (empty parts for module-level refusals).
    #[error("unsupported: {what}")]
    Unsupported {
        /// What the target cannot express.
        what: String,
        /// Where the module uses it.
        location: oxir_spirv::Location,
    },
    /// The back-end was handed a module its writer does not accept after the pipeline ran:
    /// a bug in oxir, not in the input.
    #[error(transparent)]
    BackendInternal(oxir_spirv::Error),
    /// The SPIR-V just written could not be disassembled (a bug in oxir).
    #[error("disassembly failed: {0}")]
    Disassembly(String),
    /// The operating system refused to start the large-stack thread the compilation runs
    /// on ([`crate::STACK_BYTES`] of reserved address space); nothing was compiled.
    #[error("cannot start the compiler's thread: {0}")]
    Thread(std::io::Error),
    /// The LLVM writer failed on a module its preflight accepted (a bug in oxir).
    #[error(transparent)]
    LlvmInternal(oxir_llvm::Error),
    /// An LLVM tool (`llc`, `opt`, `llvm-link`) or libdevice is missing or failed: its
    /// name and message.
    #[error("{tool}: {message}")]
    Tool {
        /// The tool or file.
        tool: String,
        /// What went wrong (the tool's own output when it ran).
        message: String,
    },
    /// The CSIR lowering or optimiser failed on a module the pipeline prepared (a bug in
    /// oxir), or the CSIR pipeline refused the module.
    #[error(transparent)]
    CsirInternal(oxir_csir::lower::LowerError),
    /// `--arch` / `OXIR_CUDA_ARCH` is not of the form `sm_NN` (optionally with a letter).
    #[error("`{0}` is not an NVIDIA GPU architecture (expected sm_NN, e.g. sm_80)")]
    BadArch(String),
}

impl Error {
    /// The full diagnostic of a shader rejection, with the input's name and a source
    /// snippet where there is one; `None` for the other variants (their `Display` is the
    /// whole message).
    pub fn rendered(&self) -> Option<&str> {
        match self {
            Error::Frontend(error) => Some(&error.rendered),
            Error::Lower { rendered, .. } | Error::Override { rendered, .. } => Some(rendered),
            Error::NoSuchEntryPoint(_)
            | Error::OxirParse(_)
            | Error::EntryFilterOnModule
            | Error::OverridesOnModule
            | Error::NotAShader
            | Error::Verification(_)
            | Error::PassRefused(_)
            | Error::Unsupported { .. }
            | Error::BackendInternal(_)
            | Error::Disassembly(_)
            | Error::Thread(_)
            | Error::LlvmInternal(_)
            | Error::Tool { .. }
            | Error::CsirInternal(_)
            | Error::BadArch(_) => None,
        }
    }

    /// Where in the module a pass refusal or a back-end error arose (`@function, blockN,
    /// instN` as far as known); `None` for errors located in the source text or not at
    /// all.
    pub fn location(&self) -> Option<String> {
        match self {
            Error::PassRefused(error) => error.refusal().and_then(|r| r.location()),
            Error::Unsupported { location, .. } => {
                location.function.as_ref().map(|_| location.to_string())
            }
            Error::BackendInternal(oxir_spirv::Error::Internal { location, .. }) => {
                location.function.as_ref().map(|_| location.to_string())
            }
            Error::BackendInternal(_)
            | Error::Frontend(_)
            | Error::Lower { .. }
            | Error::Override { .. }
            | Error::NoSuchEntryPoint(_)
            | Error::OxirParse(_)
            | Error::EntryFilterOnModule
            | Error::OverridesOnModule
            | Error::NotAShader
            | Error::Verification(_)
            | Error::Disassembly(_)
            | Error::Thread(_)
            | Error::LlvmInternal(_)
            | Error::Tool { .. }
            | Error::CsirInternal(_)
            | Error::BadArch(_) => None,
        }
    }

    /// Maps the LLVM back-end's error to the layer it comes from.
    pub(crate) fn from_llvm(error: oxir_llvm::Error) -> Self {
        match error {
            oxir_llvm::Error::Unsupported { what, location } => Error::Unsupported {
                what,
                location: oxir_spirv::Location {
                    function: location.function,
                    block: location.block,
                    instruction: location.instruction,
                },
            },
            oxir_llvm::Error::Pipeline(e) => Error::PassRefused(e),
            oxir_llvm::Error::Internal { .. } | oxir_llvm::Error::Invalid(_) => {
                Error::LlvmInternal(error)
            }
        }
    }

    /// Maps the SPIR-V back-end's error to the layer it comes from.
    pub(crate) fn from_spirv(error: oxir_spirv::Error) -> Self {
        match error {
            oxir_spirv::Error::Unsupported { what, location } => {
                Error::Unsupported { what, location }
            }
            oxir_spirv::Error::Internal { .. }
            | oxir_spirv::Error::Invalid(_)
            | oxir_spirv::Error::Pipeline(_) => Error::BackendInternal(error),
        }
    }
}
