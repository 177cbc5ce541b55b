//! `jump-threading` against the interpreter on random modules: each generated module is
//! normalised to plain SSA with the default bounds checks (whose guarded loads and
//! stores of one element branch twice on one condition once `gvn` has merged the two
//! comparisons), then runs `jump-threading` alone, after `gvn`, and followed by the
//! clean-up that folds what it leaves (`cvp`, `simplify-cfg`, `phi-cleanup`, `dce`).
//! Every result must verify and give the same buffers as before on several inputs, and
//! the pass must thread edges in a share of the modules, so the test cannot pass by
//! doing nothing.

mod common;
use common::normalized;
use oxir_interp::Buffers;
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use oxir_passes::{registry, PassPipeline};

const LIMIT: u64 = 2_000_000;

fn execute(module: &Module, inputs: &[Buffers]) -> Vec<Result<Buffers, String>> {
    common::execute(module, inputs, [2, 1, 1], LIMIT)
}

/// Runs `passes` one at a time; how many edges `jump-threading` threaded.
fn run_passes(module: &mut Module, passes: &[&str]) -> u64 {
    let mut threaded = 0;
    for &name in passes {
        let mut p = PassPipeline::new();
        p.add(name, registry::create(name).expect("registered pass"));
        let stats = p.run(module);
        assert!(stats.error.is_none(), "{name}: {:?}", stats.error);
        for record in &stats.records {
            threaded += record.report.get("threaded_edge_count").unwrap_or(0);
        }
    }
    threaded
}

#[test]
fn random_modules_run_the_same_after_jump_threading() {
    let sequences: &[&[&str]] = &[
        &["jump-threading"],
        &["gvn", "jump-threading"],
        &[
            "gvn",
            "jump-threading",
            "cvp",
            "simplify-cfg",
            "phi-cleanup",
            "jump-threading",
            "cvp",
            "simplify-cfg",
            "dce",
        ],
    ];
    let mut threaded_in = vec![0; sequences.len()];
    let mut ran = 0;
    let mut failures = Vec::new();
    for seed in 0..80u64 {
        let module = normalized(&generate_module(seed, GenConfig::default()));
        let inputs: Vec<Buffers> = (0..3u64)
            .map(|s| {
                let mut b = Buffers::new();
                b.insert((0, 0), oxir_interp::random_bytes(4 * 256, seed * 37 + s));
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
            if run_passes(&mut current, sequence) > 0 {
                threaded_in[k] += 1;
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
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 40, "only {ran} modules ran");
    for (k, &n) in threaded_in.iter().enumerate().skip(1) {
        assert!(
            n >= ran / 20,
            "{:?} threaded edges in only {n} of {ran}",
            sequences[k]
        );
    }
    eprintln!("{ran} modules; modules with threaded edges per sequence: {threaded_in:?}");
}
