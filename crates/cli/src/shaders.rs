//! `oxir compile` and `oxir reflect`: shaders in through naga (`oxir-naga`).
//!
//! Inputs by extension: `.wgsl`; `.vert`, `.frag`, `.comp` (GLSL, stage from the
//! extension, or any GLSL file with `--stage vertex|fragment|compute`); `.spv` (SPIR-V);
//! `.oxir` (compile only: parsed and verified). Exit codes as for every command: 1 when
//! the input is rejected (naga's diagnostic with a snippet, or `unsupported: ...`), 2 for
//! usage and I/O errors.

use crate::diagnostics::{report_parse_error, report_verifier_errors, Failure};
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::verify_module;
use oxir_ir::Module;
use oxir_naga::{CompileError, GlslStage, LowerError, LowerOptions, ShaderSource};
use std::path::Path;

/// What an input file holds.
enum InputKind {
    Wgsl,
    Glsl(GlslStage),
    SpirV,
    Oxir,
}

fn input_kind(path: &Path, stage: Option<&str>) -> Result<InputKind, Failure> {
    let stage = match stage {
        Some(name) => Some(GlslStage::from_name(name).ok_or_else(|| {
            Failure::Usage(format!(
                "unknown stage `{name}`; expected vertex, fragment or compute"
            ))
        })?),
        None => None,
    };
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let kind = match (extension, stage) {
        ("wgsl", None) => InputKind::Wgsl,
        ("spv", None) => InputKind::SpirV,
        ("oxir", None) => InputKind::Oxir,
        (_, Some(stage)) => InputKind::Glsl(stage),
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
            "--stage applies to GLSL input only, not .{extension}"
        )));
    }
    Ok(kind)
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))
}

fn read_text(path: &Path) -> Result<String, Failure> {
    let bytes = read_bytes(path)?;
    String::from_utf8(bytes).map_err(|e| {
        eprintln!(
            "error: {}: input is not UTF-8 (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        );
        Failure::Rejected
    })
}

/// A shader read from disk: its bytes or text, kept for diagnostics.
enum Loaded {
    Text(String, InputKind),
    Binary(Vec<u8>),
}

impl Loaded {
    fn read(path: &Path, kind: InputKind) -> Result<Self, Failure> {
        match kind {
            InputKind::SpirV => Ok(Loaded::Binary(read_bytes(path)?)),
            other => Ok(Loaded::Text(read_text(path)?, other)),
        }
    }

    fn source(&self) -> ShaderSource<'_> {
        match self {
            Loaded::Text(text, InputKind::Glsl(stage)) => ShaderSource::Glsl(text, *stage),
            Loaded::Text(text, _) => ShaderSource::Wgsl(text),
            Loaded::Binary(bytes) => ShaderSource::SpirV(bytes),
        }
    }
}

/// Prints a rejected shader's diagnostic.
fn report(path: &Path, source: ShaderSource<'_>, error: &CompileError) {
    let name = path.display().to_string();
    match error {
        CompileError::Frontend(e) => eprint!("{}", e.rendered),
        CompileError::Lower(e) => eprint!("{}", e.render(&name, source.text())),
    }
}

/// `oxir compile INPUT [--entry NAME] [--stage S] --target oxir [-o OUT] [--structured]`.
pub fn compile(
    input: &Path,
    entry: Option<String>,
    stage: Option<&str>,
    target: &str,
    output: Option<&Path>,
    structured: bool,
    spirv: SpirvArgs,
) -> Result<(), Failure> {
    if target == "spirv" || target == "spirv-asm" {
        return compile_spirv(input, entry, stage, target, output, spirv);
    }
    if target != "oxir" {
        return Err(Failure::Usage(format!(
            "unknown target `{target}`; available: oxir, spirv, spirv-asm"
        )));
    }
    if spirv.target_env.is_some() || spirv.opt_level.is_some() {
        return Err(Failure::Usage(
            "--target-env and -O apply to --target spirv and spirv-asm".into(),
        ));
    }
    let module = load(input, entry, stage)?;
    let view = if structured {
        View::Structured
    } else {
        View::Flat
    };
    let text = print_module(&module, view);
    match output {
        Some(path) => std::fs::write(path, text)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display()))),
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

/// The SPIR-V options of `oxir compile`.
pub struct SpirvArgs {
    pub target_env: Option<String>,
    pub opt_level: Option<String>,
}

/// `oxir compile INPUT --target spirv|spirv-asm [-O0|-O] [--target-env ENV] [-o OUT]`.
fn compile_spirv(
    input: &Path,
    entry: Option<String>,
    stage: Option<&str>,
    target: &str,
    output: Option<&Path>,
    args: SpirvArgs,
) -> Result<(), Failure> {
    let target_env = match args.target_env.as_deref() {
        None => oxir_spirv::TargetEnv::default(),
        Some(name) => oxir_spirv::TargetEnv::from_name(name).ok_or_else(|| {
            Failure::Usage(format!(
                "unknown target environment `{name}`; expected vulkan1.0, vulkan1.1, vulkan1.2 or vulkan1.3"
            ))
        })?,
    };
    if let Some(level) = args.opt_level.as_deref() {
        if !matches!(level, "0" | "1") {
            return Err(Failure::Usage(format!(
                "unknown optimisation level -O{level}; expected -O0 or -O"
            )));
        }
    }
    let module = load(input, entry, stage)?;
    let options = oxir_spirv::Options { target_env };
    let words = oxir_spirv::compile(&module, &options).map_err(|e| {
        eprintln!("error: {}: {e}", input.display());
        Failure::Rejected
    })?;
    let bytes = if target == "spirv" {
        oxir_spirv::to_bytes(&words)
    } else {
        let text = oxir_spirv::disassemble(&words).map_err(|e| {
            eprintln!("error: {}: disassembly failed: {e}", input.display());
            Failure::Rejected
        })?;
        format!("{text}\n").into_bytes()
    };
    match output {
        Some(path) => std::fs::write(path, bytes)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display()))),
        None if target == "spirv" => Err(Failure::Usage(
            "--target spirv writes a binary: give -o OUT.spv".into(),
        )),
        None => {
            use std::io::Write;
            let _ = std::io::stdout().write_all(&bytes);
            Ok(())
        }
    }
}

/// Reads INPUT as `oxir compile` does (shader through naga, or `.oxir`) and verifies it.
pub(crate) fn load(
    input: &Path,
    entry: Option<String>,
    stage: Option<&str>,
) -> Result<Module, Failure> {
    let kind = input_kind(input, stage)?;
    let module = match kind {
        InputKind::Oxir => {
            if entry.is_some() {
                return Err(Failure::Usage(
                    "--entry applies to shader input, not .oxir".into(),
                ));
            }
            compile_oxir(input)?
        }
        kind => {
            let loaded = Loaded::read(input, kind)?;
            let source = loaded.source();
            let name = input.display().to_string();
            let shader = source.parse(&name).map_err(|e| {
                report(input, source, &CompileError::Frontend(e));
                Failure::Rejected
            })?;
            let options = LowerOptions { entry_point: entry };
            match oxir_naga::lower_with_options(&shader.module, &shader.info, &options) {
                Ok(module) => module,
                // A wrong `--entry` is a usage error.
                Err(e @ LowerError::NoSuchEntryPoint { .. }) => {
                    return Err(Failure::Usage(format!("{name}: {e}")))
                }
                Err(e) => {
                    report(
                        input,
                        source,
                        &CompileError::Lower(e.located(source.text())),
                    );
                    return Err(Failure::Rejected);
                }
            }
        }
    };
    let report = verify_module(&module, &oxir_naga::verifier_options());
    if !report.succeeded() {
        report_verifier_errors(input, &module, &report);
        return Err(Failure::Rejected);
    }
    Ok(module)
}

fn compile_oxir(path: &Path) -> Result<Module, Failure> {
    let text = read_text(path)?;
    oxir_ir::parser::parse_module(&text).map_err(|error| {
        report_parse_error(path, &text, &error);
        Failure::Rejected
    })
}

/// `oxir reflect INPUT [--stage S]`: the interface as JSON on standard output.
pub fn reflect(input: &Path, stage: Option<&str>) -> Result<(), Failure> {
    let kind = input_kind(input, stage)?;
    if let InputKind::Oxir = kind {
        return Err(Failure::Usage(
            "reflect reads shaders (.wgsl, .vert, .frag, .comp, .spv), not .oxir".into(),
        ));
    }
    let loaded = Loaded::read(input, kind)?;
    let source = loaded.source();
    let shader = source.parse(&input.display().to_string()).map_err(|e| {
        report(input, source, &CompileError::Frontend(e));
        Failure::Rejected
    })?;
    print!(
        "{}",
        oxir_naga::reflect(&shader.module, &shader.info).to_json()
    );
    Ok(())
}
