//! The loop benchmark kernels (`benches/loops/*.wgsl`: reduction, prefix sum, naive and
//! tiled matrix multiply, 1-D and 2-D convolution, histograms with atomics, a dynamic
//! trip count) give the same buffers on the interpreter after `-O` (`normalize` +
//! `ssa-optimization`) and after `-O` + `loop-optimization`, on three random inputs; and
//! `loop-optimization` changes most of them (it unrolls their loops).

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

fn run_all(module: &Module, seeds: &[u64]) -> Vec<Buffers> {
    let mut out = Vec::new();
    for (name, _) in kernels(module) {
        for &seed in seeds {
            let mut buffers = inputs(module, seed);
            let options = Options {
                max_instructions: 20_000_000,
                ..Options::default()
            };
            oxir_interp::dispatch(module, &name, [2, 1, 1], &mut buffers, &options)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            out.push(buffers);
        }
    }
    out
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
        let mut o1 = normalized(&compile_file(path));
        let run = pipelines::ssa_optimization().run(&mut o1);
        assert!(run.error.is_none(), "{}: {:?}", path.display(), run.error);
        let mut o3 = o1.clone();
        let run = pipelines::loop_optimization().run(&mut o3);
        assert!(
            run.error.is_none() && run.succeeded(),
            "{}: {:?}",
            path.display(),
            run.error
        );
        let print = |m: &Module| oxir_ir::printer::print_module(m, oxir_ir::printer::View::Flat);
        if print(&o1) != print(&o3) {
            changed += 1;
        }
        assert_eq!(
            run_all(&o1, &[1, 2, 3]),
            run_all(&o3, &[1, 2, 3]),
            "{}",
            path.display()
        );
    }
    assert!(
        changed * 2 > files.len(),
        "loop-optimization changed {changed} of {}",
        files.len()
    );
}
