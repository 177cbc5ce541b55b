//! `adce` and `if-conversion` against the interpreter on random modules: each generated
//! module is normalised to plain SSA (loops become block parameters, `if`s become
//! `cond_br` diamonds), then each pass runs alone, after `simplify-cfg`, and both in a
//! row. Every result must verify and give the same buffers as before on several inputs.
//! `adce` must never leave more instructions than `dce` (its live set is a subset of
//! `dce`'s), and both passes must actually change a share of the modules, so the test
//! cannot pass by doing nothing.

mod common;
use common::normalized;
use oxir_interp::Buffers;
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use oxir_passes::{registry, PassPipeline};

const LIMIT: u64 = 2_000_000;

/// Every kernel's buffers after running on `inputs` (two workgroups).
fn execute(module: &Module, inputs: &[Buffers]) -> Vec<Result<Buffers, String>> {
    common::execute(module, inputs, [2, 1, 1], LIMIT)
}

/// Runs `passes` one at a time; whether any changed the module.
fn run_passes(module: &mut Module, passes: &[&str]) -> bool {
    let mut changed = false;
    for &name in passes {
        let mut p = PassPipeline::new();
        p.add(name, registry::create(name).expect("registered pass"));
        let stats = p.run(module);
        assert!(stats.error.is_none(), "{name}: {:?}", stats.error);
        changed |= stats.records.iter().any(|r| r.changed);
    }
    changed
}

fn placed(module: &Module) -> usize {
    module
        .functions
        .values()
        .map(|f| f.placed_inst_count())
        .sum()
}

#[test]
fn random_modules_run_the_same_after_adce_and_if_conversion() {
    let sequences: &[&[&str]] = &[
        &["adce"],
        &["if-conversion"],
        &["simplify-cfg", "adce"],
        &["simplify-cfg", "if-conversion", "adce"],
    ];
    let mut changed_by = vec![0; sequences.len()];
    let mut ran = 0;
    let mut failures = Vec::new();
    for seed in 0..80u64 {
        let module = normalized(&generate_module(seed, GenConfig::default()));
        let inputs: Vec<Buffers> = (0..3u64)
            .map(|s| {
                let mut b = Buffers::new();
                b.insert((0, 0), oxir_interp::random_bytes(4 * 256, seed * 31 + s));
                b
            })
            .collect();
        let reference = execute(&module, &inputs);
        if reference.iter().any(|r| r.is_err()) {
            continue;
        }
        ran += 1;
        for (k, sequence) in sequences.iter().enumerate() {
            let mut current = module.clone();
            if run_passes(&mut current, sequence) {
                changed_by[k] += 1;
            }
            let report = verify_module(&current, &VerifierOptions::default());
            if !report.succeeded() {
                failures.push(format!("seed {seed} {sequence:?}: invalid: {report}"));
                continue;
            }
            if execute(&current, &inputs) != reference {
                failures.push(format!("seed {seed} {sequence:?}: results differ"));
            }
        }
        let (mut by_dce, mut by_adce) = (module.clone(), module.clone());
        run_passes(&mut by_dce, &["dce"]);
        run_passes(&mut by_adce, &["adce"]);
        if placed(&by_adce) > placed(&by_dce) {
            failures.push(format!("seed {seed}: adce keeps more than dce"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 40, "only {ran} modules ran");
    for (k, &n) in changed_by.iter().enumerate() {
        assert!(
            n >= ran / 10,
            "{:?} changed only {n} of {ran}",
            sequences[k]
        );
    }
    eprintln!("{ran} modules; changed by each sequence: {changed_by:?}");
}
