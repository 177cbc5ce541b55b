//! `oxir compile` and `oxir reflect`: a thin shell over `oxir-driver`. This module reads
//! the input, calls [`oxir_driver::compile`] or [`oxir_driver::reflect`], writes what they
//! return and renders their errors with the file name.
//!
//! Inputs by extension: `.wgsl`; `.vert`, `.frag`, `.comp` (GLSL, stage from the
//! extension, or any GLSL file with `--stage vertex|fragment|compute`); `.spv` (SPIR-V);
//! `.oxir` (compile only: parsed and verified). Exit codes as for every command: 1 when
//! the input is rejected (naga's diagnostic with a snippet, or `unsupported: ...`), 2 for
//! usage and I/O errors.

use crate::args::{OptLevelArg, StageArg, TargetArg, TargetEnvArg};
use crate::diagnostics::{report_parse_error, report_verifier_errors, Failure};
use crate::files::{read_bytes, read_text};
use oxir_driver::{CompileOptions, Error, GlslStage, Input, OptLevel, Target};
use oxir_ir::Module;
use std::path::{Path, PathBuf};

/// Arguments of `oxir compile`.
#[derive(clap::Args)]
pub struct CompileArgs {
    pub input: PathBuf,
    /// Compile only this entry point (and what it calls).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// The stage of a GLSL input (default: from the file extension).
    #[arg(long)]
    pub stage: Option<StageArg>,
    /// What to produce.
    #[arg(long, value_enum, default_value_t = TargetArg::Oxir)]
    pub target: TargetArg,
    /// SPIR-V target environment (default vulkan1.1).
    #[arg(long, value_name = "ENV")]
    pub target_env: Option<TargetEnvArg>,
    /// Optimisation level for SPIR-V: -O0 or -O (the SPIR-V driver pipeline runs either
    /// way; -O adds no further passes yet).
    #[arg(short = 'O', value_name = "LEVEL", num_args = 0..=1, default_missing_value = "1")]
    pub opt_level: Option<OptLevelArg>,
    /// The NVIDIA GPU for --target ptx (sm_NN; default OXIR_CUDA_ARCH, else sm_80).
    #[arg(long, value_name = "SM")]
    pub arch: Option<String>,
    /// Write the result here instead of standard output.
    #[arg(short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Print the module in the structured view (blocks nested under their constructs).
    #[arg(long)]
    pub structured: bool,
    /// Bounds checks: `read-zero-skip-write` (default: out-of-range loads read zero,
    /// stores are skipped, as the interpreter does), `restrict` (clamp to the last
    /// element) or `unchecked` (UNSAFE: out-of-range indices are undefined behaviour on the
    /// GPU); per class with `buffers=P,memory=P,values=P,textures=P` (memory: workgroup,
    /// private and function variables; values: dynamic indices into arrays, vectors and
    /// matrices; textures: coordinates, layers, levels and samples of loads and stores).
    #[arg(long, value_name = "POLICY", value_parser = crate::args::parse_bounds_checks)]
    pub bounds_checks: Option<oxir_driver::BoundsPolicy>,
    /// Write debug information: `OpName`s on functions and global variables (SPIR-V
    /// targets; default: none).
    #[arg(short = 'g', long)]
    pub debug_info: bool,
    /// With `-O`: rewrite float arithmetic as if NaN, infinities and signed zeros never
    /// occurred (`x * 0.0 → 0.0`, `x - x → 0.0`, `x + 0.0 → x`, ...).
    #[arg(long)]
    pub fast_math: bool,
    /// Set a pipeline-overridable constant (repeatable): NAME=VALUE, or ID=VALUE for one
    /// declared with `@id(ID)`. VALUE is read as the override's type (true/false,
    /// integers, finite floats); overrides not given take their defaults. Unknown names,
    /// bad values, an override set twice, or one without a default left unset: exit 1.
    #[arg(long = "override", value_name = "NAME=VALUE", value_parser = crate::args::parse_override)]
    pub overrides: Vec<oxir_driver::OverrideSetting>,
    /// Keep the shader's overrides as specialization constants (`OpSpecConstant` with a
    /// `SpecId`: the override's `@id`, else the lowest id no other takes, as `reflect`
    /// lists) for the Vulkan pipeline to set; `--override` values become their defaults.
    /// SPIR-V and oxir targets, shader input only. Refused (exit 1): an override with no
    /// value, one initialised from other overrides and given none, a workgroup size or
    /// an array length set by an override.
    #[arg(long)]
    pub spec_constants: bool,
}

/// What an input file holds.
#[derive(Copy, Clone)]
enum InputKind {
    Wgsl,
    Glsl(GlslStage),
    SpirV,
    Oxir,
}

fn input_kind(path: &Path, stage: Option<StageArg>) -> Result<InputKind, Failure> {
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let kind = match (extension, stage) {
        ("wgsl", None) => InputKind::Wgsl,
        ("spv", None) => InputKind::SpirV,
        ("oxir", None) => InputKind::Oxir,
        (_, Some(stage)) => InputKind::Glsl(stage.into()),
        (other, None) => match GlslStage::from_extension(other) {
            Some(stage) => InputKind::Glsl(stage),
            None => {
                return Err(Failure::Usage(format!(
                    "{}: unknown input kind; expected .wgsl, .vert, .frag, .comp, .spv or .oxir \
                     (GLSL with another extension needs --stage)",
                    path.display()
                )))
            }
        },
    };
    if matches!(kind, InputKind::Glsl(_)) && matches!(extension, "wgsl" | "spv" | "oxir") {
        return Err(Failure::Usage(format!(
            "{}: --stage applies to GLSL input only, not .{extension}",
            path.display()
        )));
    }
    Ok(kind)
}

/// An input file read from disk, kept for building the driver's [`Input`] and for
/// rendering diagnostics against its text.
struct Loaded {
    name: String,
    kind: InputKind,
    text: String,
    bytes: Vec<u8>,
}

impl Loaded {
    fn read(path: &Path, kind: InputKind) -> Result<Self, Failure> {
        let (text, bytes) = match kind {
            InputKind::SpirV => (String::new(), read_bytes(path)?),
            InputKind::Wgsl | InputKind::Glsl(_) | InputKind::Oxir => {
                (read_text(path)?, Vec::new())
            }
        };
        Ok(Loaded {
            name: path.display().to_string(),
            kind,
            text,
            bytes,
        })
    }

    fn input(&self) -> Input<'_> {
        match self.kind {
            InputKind::Wgsl => Input::wgsl(&self.name, &self.text),
            InputKind::Glsl(stage) => Input::glsl(&self.name, &self.text, stage),
            InputKind::SpirV => Input::spirv_bytes(&self.name, &self.bytes),
            InputKind::Oxir => Input::oxir_text(&self.name, &self.text),
        }
    }
}

/// Prints a driver error as the command always has (naga's diagnostic, the oxir parse
/// error with its snippet, every verifier error, or `error: FILE: message`) and returns
/// the exit it stands for.
fn report(path: &Path, text: &str, error: &Error) -> Failure {
    match error {
        Error::Frontend(_) | Error::Lower { .. } | Error::Override { .. } => {
            eprint!("{}", error.rendered().unwrap_or_default());
            Failure::Rejected
        }
        // A wrong `--entry` is a usage error.
        Error::NoSuchEntryPoint(e) => Failure::Usage(format!("{}: {e}", path.display())),
        Error::EntryFilterOnModule => Failure::Usage(format!(
            "{}: --entry applies to shader input, not .oxir",
            path.display()
        )),
        Error::OverridesOnModule => Failure::Usage(format!(
            "{}: --override and --spec-constants apply to shader input, not .oxir",
            path.display()
        )),
        Error::NotAShader => Failure::Usage(format!(
            "{}: reflect reads shaders (.wgsl, .vert, .frag, .comp, .spv), not .oxir",
            path.display()
        )),
        Error::Thread(_) => Failure::Usage(format!("{}: {error}", path.display())),
        Error::OxirParse(e) => {
            report_parse_error(path, text, e);
            Failure::Rejected
        }
        Error::Verification(verifier_report) => {
            report_verifier_errors(path, verifier_report);
            Failure::Rejected
        }
        // A missing or failing LLVM tool, or a malformed --arch, is the environment's or
        // the command line's fault, not the input's.
        Error::Tool { .. } | Error::BadArch(_) => {
            Failure::Usage(format!("{}: {error}", path.display()))
        }
        Error::PassRefused(_)
        | Error::Unsupported { .. }
        | Error::BackendInternal(_)
        | Error::LlvmInternal(_)
        | Error::CsirInternal(_)
        | Error::Disassembly(_) => {
            // Internal errors carry their location in the message already.
            match error.location() {
                Some(at)
                    if !matches!(error, Error::BackendInternal(_) | Error::LlvmInternal(_)) =>
                {
                    eprintln!("error: {}: {error} (at {at})", path.display())
                }
                _ => eprintln!("error: {}: {error}", path.display()),
            }
            Failure::Rejected
        }
    }
}

/// Reads INPUT for the driver; `--entry` on `.oxir` input is refused before reading.
fn read_input(path: &Path, stage: Option<StageArg>, entry: bool) -> Result<Loaded, Failure> {
    let kind = input_kind(path, stage)?;
    if entry && matches!(kind, InputKind::Oxir) {
        return Err(report(path, "", &Error::EntryFilterOnModule));
    }
    Loaded::read(path, kind)
}

/// `oxir compile INPUT [--entry NAME] [--stage S] [--target T] [--target-env ENV]
/// [-O0|-O] [-g] [-o OUT] [--structured] [--override NAME=VALUE]...`.
pub fn compile(args: CompileArgs) -> Result<(), Failure> {
    let spirv = matches!(args.target, TargetArg::Spirv | TargetArg::SpirvAsm);
    if !spirv && args.target_env.is_some() {
        return Err(Failure::Usage(
            "--target-env applies to --target spirv and spirv-asm".into(),
        ));
    }
    if !spirv && args.debug_info {
        return Err(Failure::Usage(
            "-g applies to --target spirv and spirv-asm".into(),
        ));
    }
    let opt_level: OptLevel = args.opt_level.map(Into::into).unwrap_or_default();
    if args.fast_math && opt_level == OptLevel::O0 {
        return Err(Failure::Usage("--fast-math applies with -O".into()));
    }
    if args.spec_constants && !(spirv || args.target == TargetArg::Oxir) {
        return Err(Failure::Usage(
            "--spec-constants applies to --target spirv, spirv-asm and oxir".into(),
        ));
    }
    if args.target != TargetArg::Ptx && args.arch.is_some() {
        return Err(Failure::Usage("--arch applies to --target ptx".into()));
    }
    let loaded = read_input(&args.input, args.stage, args.entry.is_some())?;
    let options = CompileOptions {
        entry_point: args.entry,
        opt_level,
        target_env: args.target_env.map(Into::into).unwrap_or_default(),
        structured: args.structured,
        cuda_arch: args.arch,
        bounds_checks: args.bounds_checks.unwrap_or_default(),
        debug_info: args.debug_info,
        fast_math: args.fast_math,
        overrides: args.overrides,
        spec_constants: args.spec_constants,
    };
    let target = Target::from(args.target);
    let artifact = oxir_driver::compile(loaded.input(), target, &options)
        .map_err(|e| report(&args.input, &loaded.text, &e))?;
    let bytes = artifact.to_bytes();
    match args.output {
        Some(path) => std::fs::write(&path, bytes)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display()))),
        None if target == Target::Spirv => Err(Failure::Usage(
            "--target spirv writes a binary: give -o OUT.spv".into(),
        )),
        None if target == Target::Csi => Err(Failure::Usage(
            "--target csi writes a binary: give -o OUT.csi".into(),
        )),
        None => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(&bytes);
            Ok(())
        }
    }
}

/// Reads INPUT as `oxir compile` does (shader through naga, or `.oxir`) and verifies it:
/// [`oxir_driver::load`].
pub(crate) fn load(
    input: &Path,
    entry: Option<String>,
    stage: Option<StageArg>,
    overrides: &[oxir_driver::OverrideSetting],
) -> Result<Module, Failure> {
    let loaded = read_input(input, stage, entry.is_some())?;
    let options = CompileOptions {
        entry_point: entry,
        overrides: overrides.to_vec(),
        ..CompileOptions::default()
    };
    oxir_driver::load(loaded.input(), &options).map_err(|e| report(input, &loaded.text, &e))
}

/// Compiles INPUT for `target` with the default options, `entry` and `overrides`,
/// reporting a rejection as `oxir compile` does.
pub(crate) fn compile_artifact(
    input: &Path,
    entry: Option<String>,
    stage: Option<StageArg>,
    target: Target,
    overrides: &[oxir_driver::OverrideSetting],
) -> Result<oxir_driver::Artifact, Failure> {
    let loaded = read_input(input, stage, entry.is_some())?;
    let options = CompileOptions {
        entry_point: entry,
        overrides: overrides.to_vec(),
        ..CompileOptions::default()
    };
    oxir_driver::compile(loaded.input(), target, &options)
        .map_err(|e| report(input, &loaded.text, &e))
}

/// `oxir reflect INPUT [--stage S] [--override NAME=VALUE]...`: the interface as JSON on
/// standard output, with an `overrides` list when the shader has overrides.
pub fn reflect(
    input: &Path,
    stage: Option<StageArg>,
    overrides: &[oxir_driver::OverrideSetting],
) -> Result<(), Failure> {
    let kind = input_kind(input, stage)?;
    if let InputKind::Oxir = kind {
        return Err(report(input, "", &Error::NotAShader));
    }
    let loaded = Loaded::read(input, kind)?;
    let reflection = oxir_driver::reflect_with_overrides(loaded.input(), overrides)
        .map_err(|e| report(input, &loaded.text, &e))?;
    print!("{}", reflection.to_json());
    Ok(())
}
