//! The scalar optimisation passes (`sccp`, `cvp`, `reassociate`, `div-rem-pairs`,
//! `simplify-libcalls`) against the interpreter on random modules: each module is
//! normalised to plain SSA, then every pass (alone, and followed by the cleanups that
//! consume its output) must keep the module valid and every kernel's buffers the same
//! on several random inputs. The passes must also have fired on some of the modules, so
//! a pass that silently does nothing fails the test.

mod common;
use common::*;
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};

const LIMIT: u64 = 2_000_000;

/// The pass sequences checked, each run on a fresh copy of the normalised module.
const SEQUENCES: &[&[&str]] = &[
    &["sccp"],
    &["sccp", "simplify-cfg", "phi-cleanup", "dce"],
    &["const-fold", "simplify-cfg", "sccp", "const-fold", "dce"],
    &["cvp", "sccp", "dce"],
    &["simplify-libcalls", "dce"],
    &["reassociate", "const-fold", "dce"],
    &["div-rem-pairs", "gvn", "dce"],
];

#[test]
fn random_modules_run_the_same_after_the_scalar_passes() {
    let mut failures = Vec::new();
    let mut folded = 0;
    let mut ran = 0;
    for seed in 0..40u64 {
        let module = normalized(&generate_module(seed, GenConfig::default()));
        let inputs = random_inputs(seed);
        let reference = execute(&module, &inputs, [2, 1, 1], LIMIT);
        if reference.iter().any(|r| r.is_err()) {
            continue;
        }
        ran += 1;
        let mut probe = module.clone();
        let info = oxir_passes::passes::sccp::run_on_module(&mut probe);
        folded += info.folded_inst_count + info.replaced_param_count + info.removed_branch_count;
        for names in SEQUENCES {
            let mut after = module.clone();
            if let Err(e) = run_sequence(&mut after, names) {
                failures.push(format!("seed {seed}: {e}"));
                continue;
            }
            let report = verify_module(&after, &VerifierOptions::default());
            if !report.succeeded() {
                failures.push(format!("seed {seed}: {names:?} output does not verify"));
                continue;
            }
            if execute(&after, &inputs, [2, 1, 1], LIMIT * 4) != reference {
                failures.push(format!("seed {seed}: results differ after {names:?}"));
            }
        }
    }
    assert!(ran >= 20, "only {ran} of 40 modules ran");
    assert!(folded > 0, "sccp changed none of {ran} random modules");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
