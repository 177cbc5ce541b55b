//! The loop benchmark kernels (`benches/loops/*.wgsl`: reduction, prefix sum, naive and
//! tiled matrix multiply, 1-D and 2-D convolution, histograms with atomics, a dynamic
//! trip count) give the same buffers on the interpreter after `-O` (`normalize` +
//! `ssa-optimization`) and after `-O` + `loop-optimization`, on three random inputs; and
//! `loop-optimization` changes most of them (it unrolls their loops). The project's and
//! the corpus's compute shaders too.

mod common;
use common::*;
use oxir_interp::{Buffers, Options};
use oxir_ir::Module;
use oxir_passes::pipelines;

fn inputs(module: &Module, seed: u64) -> Buffers {
    let sizes = oxir_interp::bindings(module).expect("bindings");
    sizes
        .iter()
        .enumerate()
        .map(|(i, (&k, info))| {
            let size = info.min_size as usize + if info.runtime_sized { 512 } else { 0 };
            (k, oxir_interp::random_bytes(size, seed * 17 + i as u64))
        })
        .collect()
}

type Outcome = Vec<Result<Buffers, String>>;

fn run_all(module: &Module, seeds: &[u64]) -> Outcome {
    let mut out = Vec::new();
    for (name, _) in kernels(module) {
        for &seed in seeds {
            let mut buffers = inputs(module, seed);
            let options = Options {
                max_instructions: 20_000_000,
                ..Options::default()
            };
            out.push(
                oxir_interp::dispatch(module, &name, [2, 1, 1], &mut buffers, &options)
                    .map(|_| buffers)
                    .map_err(|e| e.to_string()),
            );
        }
    }
    out
}

/// `-O` and `-O` + `loop-optimization` of `path`, when it compiles and `-O` holds a
/// kernel.
fn both_levels(path: &std::path::Path) -> Option<(Module, Module)> {
    let text = std::fs::read_to_string(path).ok()?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let source = match oxir_naga::GlslStage::from_extension(ext) {
        Some(stage) => oxir_naga::ShaderSource::Glsl(&text, stage),
        None => oxir_naga::ShaderSource::Wgsl(&text),
    };
    let name = path.display().to_string();
    let module = oxir_naga::compile(source, &name, &Default::default()).ok()?;
    let mut o1 = module;
    let mut head = pipelines::normalize();
    head.add_sequence("ssa-optimization", pipelines::ssa_optimization());
    let run = head.run(&mut o1);
    assert!(run.error.is_none(), "{name}: {:?}", run.error);
    if kernels(&o1).is_empty() {
        return None;
    }
    let mut o3 = o1.clone();
    let run = pipelines::loop_optimization().run(&mut o3);
    assert!(
        run.error.is_none() && run.succeeded(),
        "{name}: {:?}",
        run.error
    );
    Some((o1, o3))
}

fn printed(m: &Module) -> String {
    oxir_ir::printer::print_module(m, oxir_ir::printer::View::Flat)
}

#[test]
fn loop_benches_run_the_same_after_loop_optimization() {
    let dir = repo_root().join("benches/loops");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("benches/loops")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "wgsl"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{} benchmark kernels", files.len());
    let mut changed = 0;
    for path in &files {
        let (o1, o3) = both_levels(path).unwrap_or_else(|| panic!("{}", path.display()));
        if printed(&o1) != printed(&o3) {
            changed += 1;
        }
        let reference = run_all(&o1, &[1, 2, 3]);
        assert!(reference.iter().all(|r| r.is_ok()), "{}", path.display());
        assert_eq!(reference, run_all(&o3, &[1, 2, 3]), "{}", path.display());
    }
    assert!(
        changed * 2 > files.len(),
        "loop-optimization changed {changed} of {}",
        files.len()
    );
}

/// The project's compute shaders and the corpus's (`OXIR_CORPUS_DIR`; without it, the
/// project's only, with a message): the same buffers at `-O` and `-O` +
/// `loop-optimization`.
#[test]
fn shaders_and_corpus_run_the_same_after_loop_optimization() {
    let (mut compared, mut changed) = (0, 0);
    for path in oxir_test_support::shader_files(&["wgsl", "comp"]) {
        let Some((o1, o3)) = both_levels(&path) else {
            continue;
        };
        let reference = run_all(&o1, &[5]);
        if reference.iter().any(|r| r.is_err()) {
            continue;
        }
        compared += 1;
        changed += usize::from(printed(&o1) != printed(&o3));
        assert_eq!(reference, run_all(&o3, &[5]), "{}", path.display());
    }
    eprintln!("{compared} shaders compared, {changed} changed by loop-optimization");
    assert!(
        compared >= 10 && changed > 0,
        "{compared} compared, {changed} changed"
    );
}
