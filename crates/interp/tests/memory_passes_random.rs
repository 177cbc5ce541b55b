//! `early-cse`, `local-store-forward`, `local-load-elimination`, `trace-access` and
//! `promote-ref-arg` against the interpreter on random modules: each pass alone, on the
//! generated (structured, memory-form) module and on its `destructure-cfg` +
//! `inline-all` form, must leave a module that verifies and gives the same buffers on
//! several inputs. `early-cse` and `local-store-forward` must also change some of the
//! modules (the test would otherwise prove nothing for them); the generator makes no
//! repeated loads, chained accesses or pointer parameters, so the other three are only
//! checked for safety here (their fixtures pin what they do).

mod common;
use oxir_interp::Buffers;
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use oxir_passes::PassPipeline;

const PASSES: &[&str] = &[
    "early-cse",
    "local-store-forward",
    "local-load-elimination",
    "trace-access",
    "promote-ref-arg",
];

/// Passes that must fire on some random module.
const MUST_FIRE: &[&str] = &["early-cse", "local-store-forward"];

fn run_pass(module: &mut Module, name: &str) -> bool {
    let pass = oxir_passes::registry::create(name).expect("registered pass");
    let mut p = PassPipeline::new();
    p.add(name, pass);
    let stats = p.run(module);
    assert!(stats.error.is_none(), "{name} failed: {:?}", stats.error);
    stats.records.iter().any(|r| r.changed)
}

/// Every kernel's buffers after running on `inputs` (two workgroups).
fn execute(module: &Module, inputs: &[Buffers]) -> Vec<Result<Buffers, String>> {
    common::execute(module, inputs, [2, 1, 1], 2_000_000)
}

#[test]
fn memory_passes_keep_random_modules_running_the_same() {
    let mut fired: Vec<u32> = vec![0; PASSES.len()];
    let mut failures = Vec::new();
    for seed in 0..40u64 {
        let generated = generate_module(seed, GenConfig::default());
        let mut inlined = generated.clone();
        run_pass(&mut inlined, "destructure-cfg");
        run_pass(&mut inlined, "inline-all");
        let inputs: Vec<Buffers> = [0u64, 1]
            .iter()
            .map(|&s| {
                let mut b = Buffers::new();
                b.insert((0, 0), oxir_interp::random_bytes(4 * 256, seed * 17 + s));
                b
            })
            .collect();
        for (form, module) in [("generated", &generated), ("inlined", &inlined)] {
            let reference = execute(module, &inputs);
            if reference.iter().any(|r| r.is_err()) {
                continue;
            }
            for (i, &name) in PASSES.iter().enumerate() {
                let mut after = module.clone();
                if run_pass(&mut after, name) {
                    fired[i] += 1;
                }
                let report = verify_module(&after, &VerifierOptions::default());
                if !report.succeeded() {
                    failures.push(format!("seed {seed} {form}: {name} output does not verify"));
                } else if execute(&after, &inputs) != reference {
                    failures.push(format!("seed {seed} {form}: {name} changed the results"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for (name, count) in PASSES.iter().zip(&fired) {
        eprintln!("{name}: changed {count} modules");
        if MUST_FIRE.contains(name) {
            assert!(*count > 0, "{name} never changed a random module");
        }
    }
}
