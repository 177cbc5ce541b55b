//! `oxir run INPUT --engine llvm [-O0|-O]`: the dispatch on this machine's CPU through the
//! LLVM back-end's host target (`oxir_driver::compile_host`, run by `oxir-host`), with the
//! same buffer arguments and the same JSON lines as `--engine interp`.
//!
//! - The module is the one the interpreter runs (a shader is lowered, an `.oxir` file
//!   parsed); its bindings, their sizes and which ones are printed are the interpreter's.
//!   `-O` runs `opt -O2` and `llc -O2`, `-O0` neither (`llc -O0`).
//! - Refused before anything runs (exit 1): textures and samplers, and whatever the
//!   writer's preflight refuses (named). A missing `llc`, `opt` or C compiler exits 1 too.
//! - `--shuffle`, `--max-instructions`, `--strict-bounds`, `--max-memory` and `--device`
//!   are other engines' options: usage errors (exit 2).
//! - A dispatch that has not finished after `OXIR_HOST_TIMEOUT_MS` (default 30000) exits
//!   1 (the kernel's threads cannot be stopped; the process exit ends them).

use crate::args::RunOptLevelArg;
use crate::diagnostics::Failure;
use crate::run::{
    choose_kernel, initial_buffers, interp_slots, parse_request, print_buffers,
    refuse_interpreter_options, usage, RunArgs,
};
use std::collections::BTreeMap;

fn rejected(name: &str, message: impl std::fmt::Display) -> Failure {
    eprintln!("{name}: error: {message}");
    Failure::Rejected
}

/// `OXIR_HOST_TIMEOUT_MS`, default 30000.
fn timeout() -> Result<std::time::Duration, Failure> {
    let ms = match std::env::var("OXIR_HOST_TIMEOUT_MS") {
        Ok(text) => text.parse().map_err(|_| {
            usage(format!(
                "OXIR_HOST_TIMEOUT_MS=`{text}` is not a count of milliseconds"
            ))
        })?,
        Err(_) => 30_000,
    };
    Ok(std::time::Duration::from_millis(ms))
}

pub fn run(args: RunArgs) -> Result<(), Failure> {
    refuse_interpreter_options(&args, "llvm")?;
    if args.device.is_some() {
        return Err(usage("--device applies to --engine vulkan"));
    }
    let opt_level = match args.opt {
        None | Some(RunOptLevelArg::O0) => oxir_driver::OptLevel::O0,
        Some(RunOptLevelArg::O1) => oxir_driver::OptLevel::O1,
        Some(level @ (RunOptLevelArg::O2 | RunOptLevelArg::O3)) => {
            return Err(usage(format!(
                "unknown optimisation level -O{}; expected -O0 or -O",
                level.spelling()
            )))
        }
    };
    let mut request = parse_request(&args)?;
    let name = args.input.display().to_string();
    let is_oxir = args.input.extension().and_then(|e| e.to_str()) == Some("oxir");
    let lower_entry = if is_oxir { None } else { args.entry.clone() };
    let module = crate::shaders::load(&args.input, lower_entry, args.stage, &args.overrides)?;
    let entry = choose_kernel(&module, args.entry.as_deref(), &name)?;
    if let Some((key, _)) = crate::run_textures::module_textures(&module).first_key_value() {
        return Err(rejected(
            &name,
            format!(
                "unsupported: --engine llvm runs no textures or samplers (binding {}:{})",
                key.0, key.1
            ),
        ));
    }
    let slots = interp_slots(&module, &name)?;
    let mut buffers = initial_buffers(&mut request, &slots, args.default_size, &name)?;
    let options = oxir_driver::CompileOptions {
        opt_level,
        bounds_checks: args.bounds_checks.unwrap_or_default(),
        fast_math: args.fast_math,
        ..Default::default()
    };
    let library = oxir_driver::compile_host(oxir_driver::Input::module(&module), &entry, &options)
        .map_err(|e| rejected(&name, e))?;
    oxir_host::run(
        library.path(),
        &library.kernel,
        request.groups,
        &mut buffers,
        timeout()?,
    )
    .map_err(|e| rejected(&name, e))?;
    print_buffers(&slots, &buffers, &request.views, &BTreeMap::new());
    Ok(())
}
