//! `licm`, `dead-store-elimination`, `algebraic-simplify`, the globals passes and the
//! whole `-O` pipelines against the interpreter on random modules: each module is
//! normalised to plain SSA, then every sequence must keep it valid and every kernel's
//! buffers the same on three random inputs. `licm` must have hoisted something in some
//! module and the pipelines must have changed some, so a pass that silently does nothing
//! fails the test.

mod common;
use common::*;
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use oxir_passes::pipelines;

const LIMIT: u64 = 2_000_000;

/// The pass sequences checked, each run on a fresh copy of the normalised module.
const SEQUENCES: &[&[&str]] = &[
    &["licm"],
    &["licm", "gvn", "dce"],
    &["dead-store-elimination", "dce"],
    &["gvn", "dead-store-elimination", "dce"],
    &["algebraic-simplify", "dce"],
    &["private-to-function", "mem2reg", "dead-global-elim", "dce"],
];

/// The `-O` pipelines after `normalize`: the plain one (LLVM, `--target oxir`) and the
/// SPIR-V one (restructured, then cleaned up).
fn optimized(module: &Module, structured: bool) -> Result<Module, String> {
    let mut m = module.clone();
    let mut p = pipelines::ssa_optimization();
    if structured {
        p.add_sequence("structurize", pipelines::structurize());
        p.add_sequence("cleanup", pipelines::post_restructure_cleanup());
    }
    match p.run(&mut m).error {
        Some(e) => Err(format!("-O (structured: {structured}) failed: {e:?}")),
        None => Ok(m),
    }
}

#[test]
fn random_modules_run_the_same_after_licm_dse_and_the_o_pipelines() {
    let mut failures = Vec::new();
    let (mut hoisted, mut pipeline_changed, mut ran) = (0, 0, 0);
    for seed in 0..40u64 {
        let module = normalized(&generate_module(seed, GenConfig::default()));
        let inputs = random_inputs(seed);
        let reference = execute(&module, &inputs, [2, 1, 1], LIMIT);
        if reference.iter().any(|r| r.is_err()) {
            continue;
        }
        ran += 1;
        let mut probe = module.clone();
        let info = oxir_passes::passes::licm::run_on_module(&mut probe);
        hoisted += info.hoisted_inst_count + info.hoisted_load_count;
        let mut outputs = Vec::new();
        for names in SEQUENCES {
            let mut after = module.clone();
            match run_sequence(&mut after, names) {
                Ok(()) => outputs.push((format!("{names:?}"), after)),
                Err(e) => failures.push(format!("seed {seed}: {e}")),
            }
        }
        for structured in [false, true] {
            match optimized(&module, structured) {
                Ok(after) => {
                    if oxir_ir::printer::print_module(&after, oxir_ir::printer::View::Flat)
                        != oxir_ir::printer::print_module(&module, oxir_ir::printer::View::Flat)
                    {
                        pipeline_changed += 1;
                    }
                    outputs.push((format!("-O (structured: {structured})"), after));
                }
                Err(e) => failures.push(format!("seed {seed}: {e}")),
            }
        }
        for (what, after) in outputs {
            let report = verify_module(&after, &VerifierOptions::default());
            if !report.succeeded() {
                failures.push(format!(
                    "seed {seed}: {what} output does not verify:\n{report}"
                ));
            } else if execute(&after, &inputs, [2, 1, 1], LIMIT * 4) != reference {
                failures.push(format!("seed {seed}: results differ after {what}"));
            }
        }
    }
    eprintln!(
        "{ran} modules ran; licm hoisted {hoisted}; the -O pipelines changed {pipeline_changed}"
    );
    assert!(ran >= 20, "only {ran} of 40 modules ran");
    assert!(hoisted > 0, "licm hoisted nothing in {ran} random modules");
    assert!(
        pipeline_changed > 0,
        "-O changed none of {ran} random modules"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
