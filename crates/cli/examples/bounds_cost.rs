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

use oxir_driver::{BoundsPolicy, CompileOptions, GlslStage, Input, Policy, Target};
use oxir_interp::{Buffers, Options};
use oxir_ir::{FunctionKind, Module};
use std::path::PathBuf;

fn shader_files() -> Vec<PathBuf> {
    let mut dirs = vec![oxir_test_support::repo_root().join("tests/shaders")];
    match oxir_test_support::corpus_dir() {
        Some(corpus) => {
            for sub in ["naga", "wgpu-examples"] {
                dirs.push(corpus.join(sub));
            }
        }
        None => eprintln!("no shader corpus (OXIR_CORPUS_DIR): tests/shaders only"),
    }
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("wgsl" | "comp")
            )
        })
        .collect();
    files.sort();
    files
}

fn input<'a>(name: &'a str, text: &'a str) -> Input<'a> {
    if name.ends_with(".comp") {
        Input::glsl(name, text, GlslStage::Compute)
    } else {
        Input::wgsl(name, text)
    }
}

fn words(name: &str, text: &str, policy: Policy) -> Option<usize> {
    let options = CompileOptions {
        bounds_checks: BoundsPolicy::uniform(policy),
        ..CompileOptions::default()
    };
    let artifact = oxir_driver::compile(input(name, text), Target::Spirv, &options).ok()?;
    artifact.as_words().map(<[u32]>::len)
}

fn random_inputs(module: &Module, seed: u64) -> Option<Buffers> {
    let sizes = oxir_interp::bindings(module).ok()?;
    Some(
        sizes
            .iter()
            .enumerate()
            .map(|(i, (&k, info))| {
                let size = info.min_size as usize + if info.runtime_sized { 512 } else { 0 };
                (k, oxir_interp::random_bytes(size, seed + i as u64))
            })
            .collect(),
    )
}

/// Instructions executed by every kernel of `module` under `policy`.
fn executed(module: &Module, policy: Policy) -> Option<u64> {
    let mut m = module.clone();
    let stats = oxir_passes::pipelines::normalize_with(BoundsPolicy::uniform(policy)).run(&mut m);
    if !stats.succeeded() {
        return None;
    }
    let mut total = 0;
    for f in m.functions.values() {
        if !matches!(f.kind, FunctionKind::Kernel { .. }) {
            continue;
        }
        let mut buffers = random_inputs(&m, 7)?;
        let options = Options {
            max_instructions: 20_000_000,
            ..Options::default()
        };
        total += oxir_interp::dispatch(&m, &f.name, [2, 1, 1], &mut buffers, &options)
            .ok()?
            .executed;
    }
    Some(total)
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
