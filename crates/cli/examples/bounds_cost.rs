//! The cost of the default bounds checks: SPIR-V words and interpreter-executed
//! instructions with `read-zero-skip-write` (the default) against `unchecked`, over
//! `tests/shaders/` and the shared shader corpus (`OXIR_CORPUS_DIR`; skipped with a
//! message when absent).
//!
//! Words: every shader both policies compile to SPIR-V, whole module. Instructions: every
//! compute kernel of those shaders run by the interpreter after `normalize_with(policy)`
//! (the same pipeline head the SPIR-V driver runs), two workgroups, seeded random inputs
//! at each binding's minimum size (runtime arrays get 512 bytes); kernels that fail or
//! exceed the budget under either policy are left out.
//!
//! `cargo run -p oxir --example bounds_cost` (add `--release` for speed; the figures are counts).

mod common;

use common::{input, shader_files};
use oxir_driver::{BoundsPolicy, CompileOptions, Policy, Target};
use oxir_ir::{FunctionKind, Module};

fn words(name: &str, text: &str, policy: Policy) -> Option<usize> {
    let options = CompileOptions {
        bounds_checks: BoundsPolicy::uniform(policy),
        ..CompileOptions::default()
    };
    let artifact = oxir_driver::compile(input(name, text), Target::Spirv, &options).ok()?;
    artifact.as_words().map(<[u32]>::len)
}

/// Instructions executed by every kernel of `module` under `policy`.
fn executed(module: &Module, policy: Policy) -> Option<u64> {
    common::executed(
        module,
        &oxir_passes::pipelines::normalize_with(BoundsPolicy::uniform(policy)),
    )
}

fn main() {
    let (mut checked_words, mut plain_words, mut shaders) = (0, 0, 0);
    let (mut checked_insts, mut plain_insts, mut kernels) = (0, 0, 0);
    for path in shader_files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path.to_string_lossy().to_string();
        if let (Some(c), Some(u)) = (
            words(&name, &text, Policy::ReadZeroSkipWrite),
            words(&name, &text, Policy::Unchecked),
        ) {
            checked_words += c;
            plain_words += u;
            shaders += 1;
        }
        let Ok(module) = oxir_driver::load(input(&name, &text), &CompileOptions::default()) else {
            continue;
        };
        let has_kernel = module
            .functions
            .values()
            .any(|f| matches!(f.kind, FunctionKind::Kernel { .. }));
        if !has_kernel {
            continue;
        }
        if let (Some(c), Some(u)) = (
            executed(&module, Policy::ReadZeroSkipWrite),
            executed(&module, Policy::Unchecked),
        ) {
            checked_insts += c;
            plain_insts += u;
            kernels += 1;
        }
    }
    let ratio = |a: u64, b: u64| a as f64 / b.max(1) as f64;
    println!(
        "SPIR-V words over {shaders} shaders: {checked_words} with default checks, {plain_words} unchecked ({:.3}x)",
        ratio(checked_words as u64, plain_words as u64)
    );
    println!(
        "interpreter instructions over {kernels} shaders' kernels: {checked_insts} with default checks, {plain_insts} unchecked ({:.3}x)",
        ratio(checked_insts, plain_insts)
    );
}
