//! `jump-threading` against the interpreter on random modules: each generated module is
//! normalised to plain SSA with the default bounds checks (whose guarded loads and
//! stores of one element branch twice on one condition once `gvn` has merged the two
//! comparisons), then runs `jump-threading` alone, after `gvn`, and followed by the
//! clean-up that folds what it leaves (`cvp`, `simplify-cfg`, `phi-cleanup`, `dce`).
//! Every result must verify and give the same buffers as before on several inputs, and
//! the pass must thread edges in a share of the modules, so the test cannot pass by
//! doing nothing.

mod common;
use common::check_pass_sequences;
use oxir_ir::Module;
use oxir_passes::{registry, PassPipeline};

/// Runs `passes` one at a time; whether `jump-threading` threaded an edge.
fn run_passes(module: &mut Module, passes: &[&str]) -> bool {
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
    threaded > 0
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
    let run = check_pass_sequences(sequences, 0..80, 37, run_passes, |_, _, _| {});
    assert!(run.failures.is_empty(), "{}", run.failures.join("\n"));
    assert!(run.ran >= 40, "only {} modules ran", run.ran);
    for (k, &n) in run.changed_by.iter().enumerate().skip(1) {
        assert!(
            n >= run.ran / 20,
            "{:?} threaded edges in only {n} of {}",
            sequences[k],
            run.ran
        );
    }
    eprintln!(
        "{} modules; modules with threaded edges per sequence: {:?}",
        run.ran, run.changed_by
    );
}
