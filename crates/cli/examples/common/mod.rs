//! What the measuring examples share: the shaders they read and the inputs they run.

use oxir_driver::{GlslStage, Input};
use oxir_interp::{Buffers, Options};
use oxir_ir::{FunctionKind, Module};
use oxir_passes::PassPipeline;
use std::path::PathBuf;

/// The WGSL and GLSL compute files of `tests/shaders/` and of the shader corpus
/// (`OXIR_CORPUS_DIR`; a message when absent), sorted.
pub fn shader_files() -> Vec<PathBuf> {
    oxir_test_support::shader_files(&["wgsl", "comp"])
}

pub fn input<'a>(name: &'a str, text: &'a str) -> Input<'a> {
    if name.ends_with(".comp") {
        Input::glsl(name, text, GlslStage::Compute)
    } else {
        Input::wgsl(name, text)
    }
}

/// Seeded random contents for every binding at its minimum size (runtime arrays get 512
/// bytes more).
pub fn random_inputs(module: &Module, seed: u64) -> Option<Buffers> {
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

/// Instructions the interpreter executes running every kernel of `module` after
/// `pipeline`: two workgroups, [`random_inputs`] seeded with 7; `None` when the pipeline or
/// a run fails or a kernel exceeds 20,000,000 instructions.
pub fn executed(module: &Module, pipeline: &PassPipeline) -> Option<u64> {
    let mut m = module.clone();
    if !pipeline.run(&mut m).succeeded() {
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
