//! The `oxir` command.
//!
//! Exit codes, for every subcommand: 0 success; 1 the input was rejected (parse error,
//! verification failure, unsupported feature) with a diagnostic on stderr naming the file
//! and the line and column, or the function, block and instruction; 2 usage or I/O error.
//! A panic is always a bug.

mod args;
mod csir;
mod diagnostics;
mod files;
mod json;
mod run;
mod run_limits;
mod run_llvm;
mod run_texdata;
mod run_textures;
mod run_vulkan;
mod shaders;

use clap::{Parser, Subcommand, ValueEnum};
use diagnostics::{report_parse_error, report_verifier_errors, Failure};
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "oxir",
    version,
    about = "oxir: an optimising compiler for GPU kernels and shaders"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum ViewArg {
    Flat,
    Structured,
}

#[derive(Subcommand)]
enum Command {
    /// Parse an `.oxir` file and print it back (`-` reads standard input).
    Print {
        file: PathBuf,
        /// Print blocks in layout order (the default).
        #[arg(long, conflicts_with = "structured")]
        flat: bool,
        /// Nest blocks under the structured constructs that own them.
        #[arg(long)]
        structured: bool,
    },
    /// Parse and verify an `.oxir` file; exit 1 with every error when it is invalid.
    Verify {
        file: PathBuf,
        /// Turn on a verifier option (repeatable): terminated-blocks, reachable-blocks,
        /// no-block-params, no-unstructured-control-flow, unique-merge-blocks,
        /// canonical-break-continue-targets, or `all`.
        #[arg(long = "require", value_name = "OPTION")]
        require: Vec<String>,
        /// On success, print the verified module in this view.
        #[arg(long, value_name = "VIEW")]
        print: Option<ViewArg>,
    },
    /// Run passes or a pipeline on an `.oxir` file and print the result.
    Opt {
        #[arg(required_unless_present = "list")]
        file: Option<PathBuf>,
        /// Comma-separated pass names, run in order (see `oxir opt --list`).
        #[arg(long, value_delimiter = ',', conflicts_with = "pipeline", required_unless_present_any = ["pipeline", "list"])]
        passes: Vec<String>,
        /// A pipeline: normalize, structurize, basic-optimization, post-inline-cleanup,
        /// ssa-optimization or post-restructure-cleanup.
        #[arg(long)]
        pipeline: Option<String>,
        /// Print the statistics table (time, invocations, counters) on stderr.
        #[arg(long)]
        stats: bool,
        /// Write the result here instead of standard output.
        #[arg(short = 'o', value_name = "OUT")]
        output: Option<PathBuf>,
        /// Print the result in the structured view.
        #[arg(long)]
        structured: bool,
        /// List the pass and pipeline names and exit.
        #[arg(long)]
        list: bool,
    },
    /// Compile a shader (.wgsl, .vert/.frag/.comp GLSL, .spv SPIR-V) or an .oxir module
    /// for a target; prints the result (exit 1 when the shader is rejected or uses
    /// something oxir does not support).
    Compile(shaders::CompileArgs),
    /// Print a shader's interface as JSON: entry points (stage, workgroup size, inputs,
    /// outputs) and resource bindings (kind, type, minimum binding size).
    Reflect {
        input: PathBuf,
        /// The stage of a GLSL input.
        #[arg(long)]
        stage: Option<args::StageArg>,
        /// Set a pipeline-overridable constant (repeatable): NAME=VALUE, or ID=VALUE for
        /// one declared with `@id(ID)`; the JSON's `overrides` list shows each override's
        /// default and the value used.
        #[arg(long = "override", value_name = "NAME=VALUE", value_parser = args::parse_override)]
        overrides: Vec<oxir_driver::OverrideSetting>,
    },
    /// Run a kernel with the reference interpreter (`--engine interp`, the default), on a
    /// Vulkan device (`--engine vulkan [--device NAME|INDEX]`, INPUT may also be any `.spv`)
    /// or on this CPU through LLVM (`--engine llvm`) and print its storage buffers as JSON lines (INPUT: anything `oxir compile` reads).
    Run(Box<run::RunArgs>),
    /// Link a vertex and a fragment shader compiled with `--target csi`: match the
    /// fragment inputs to the vertex outputs by name and type and print the remap.
    Link {
        /// The vertex shader's `.csi` file.
        vs: PathBuf,
        /// The fragment shader's `.csi` file.
        fs: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // Every command runs on a large stack: oxir's own code recurses once per level of
    // nested control flow, as deep as the front-end's nesting bound lets a shader go.
    let outcome = oxir_driver::on_large_stack(|| run(cli))
        .unwrap_or_else(|e| Err(Failure::Usage(format!("cannot start oxir's thread: {e}"))));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Rejected) => ExitCode::from(1),
        Err(Failure::Usage(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn parse_file(path: &Path) -> Result<(Module, String), Failure> {
    let text = files::read_text(path)?;
    match oxir_ir::parser::parse_module(&text) {
        Ok(module) => Ok((module, text)),
        Err(error) => {
            report_parse_error(path, &text, &error);
            Err(Failure::Rejected)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Print {
            file,
            flat: _,
            structured,
        } => {
            let (module, _) = parse_file(&file)?;
            let view = if structured {
                View::Structured
            } else {
                View::Flat
            };
            print!("{}", print_module(&module, view));
            Ok(())
        }
        Command::Verify {
            file,
            require,
            print,
        } => {
            let mut options = VerifierOptions::default();
            for name in &require {
                if name == "all" {
                    options = VerifierOptions::all();
                } else {
                    options.enable(name).map_err(Failure::Usage)?;
                }
            }
            let (module, _) = parse_file(&file)?;
            let report = verify_module(&module, &options);
            if !report.succeeded() {
                report_verifier_errors(&file, &report);
                return Err(Failure::Rejected);
            }
            match print {
                Some(ViewArg::Flat) => print!("{}", print_module(&module, View::Flat)),
                Some(ViewArg::Structured) => print!("{}", print_module(&module, View::Structured)),
                None => eprintln!(
                    "{}: ok ({} functions, {} instructions)",
                    files::input_name(&file),
                    module.functions.len(),
                    module.inst_count()
                ),
            }
            Ok(())
        }
        Command::Opt {
            file,
            passes,
            pipeline,
            stats,
            output,
            structured,
            list,
        } => {
            if list {
                println!("passes: {}", oxir_passes::registry::pass_names().join(", "));
                println!(
                    "pipelines: {}",
                    oxir_passes::pipelines::PIPELINE_NAMES.join(", ")
                );
                return Ok(());
            }
            let file = file.ok_or_else(|| Failure::Usage("no input file".into()))?;
            let (pipeline_name, pipeline) = build_pipeline(&passes, pipeline.as_deref())?;
            let (mut module, _) = parse_file(&file)?;
            let report = verify_module(&module, &VerifierOptions::default());
            if !report.succeeded() {
                report_verifier_errors(&file, &report);
                return Err(Failure::Rejected);
            }
            let run = pipeline.run(&mut module);
            let name = files::input_name(&file);
            if stats {
                eprint!("{}", run.log(&pipeline_name));
            }
            if let Some(error) = &run.error {
                match error.refusal().and_then(|refusal| refusal.location()) {
                    Some(at) => eprintln!("{name}: error: pass {error} (at {at})"),
                    None => eprintln!("{name}: error: pass {error}"),
                }
                return Err(Failure::Rejected);
            }
            if !run.succeeded() {
                eprintln!("{name}: error: pipeline {pipeline_name} did not converge");
                return Err(Failure::Rejected);
            }
            let view = if structured {
                View::Structured
            } else {
                View::Flat
            };
            let text = print_module(&module, view);
            match output {
                Some(path) => std::fs::write(&path, text)
                    .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", path.display())))?,
                None => print!("{text}"),
            }
            Ok(())
        }
        Command::Compile(args) => shaders::compile(args),
        Command::Reflect {
            input,
            stage,
            overrides,
        } => shaders::reflect(&input, stage, &overrides),
        Command::Run(args) => run::run(*args),
        Command::Link { vs, fs } => csir::link(&vs, &fs),
    }
}

/// The pipeline named by `--pipeline`, or the passes of `--passes` in order.
fn build_pipeline(
    passes: &[String],
    pipeline: Option<&str>,
) -> Result<(String, oxir_passes::PassPipeline), Failure> {
    if let Some(name) = pipeline {
        return oxir_passes::pipelines::by_name(name)
            .map(|p| (name.to_string(), p))
            .ok_or_else(|| {
                Failure::Usage(format!(
                    "unknown pipeline `{name}`; known: {}",
                    oxir_passes::pipelines::PIPELINE_NAMES.join(", ")
                ))
            });
    }
    let mut built = oxir_passes::PassPipeline::new();
    for name in passes {
        let pass = oxir_passes::registry::create(name).ok_or_else(|| {
            Failure::Usage(format!(
                "unknown pass `{name}`; known: {}",
                oxir_passes::registry::pass_names().join(", ")
            ))
        })?;
        built.add(name, pass);
    }
    Ok((passes.join(","), built))
}
