//! End-to-end property tests of the driver pipelines on random modules: `normalize` turns
//! structured, memory-form IR into plain SSA that verifies with reachable blocks and
//! mostly without memory; `structurize` turns it back into structured IR that verifies
//! with unique merges and canonical break/continue (and no unstructured branches).
//! (Execution equality before and after — the interpreter oracle — comes with issue 5.)

use oxir_ir::printer::{print_module, View};
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_passes::pipelines;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn normalize_then_structurize_verifies(seed in any::<u64>()) {
        let mut module = generate_module(seed, GenConfig::default());
        let stats = pipelines::normalize().run(&mut module);
        prop_assert!(stats.succeeded(), "seed {seed}: normalize failed:\n{}", stats.log("normalize"));
        for f in module.functions.values() {
            prop_assert!(!oxir_passes::util::contains_structured_control_flow(f), "seed {seed}: structured control flow left");
        }
        let stats = pipelines::structurize().run(&mut module);
        prop_assert!(stats.succeeded(), "seed {seed}: structurize failed:\n{}\n{}", stats.log("structurize"), print_module(&module, View::Flat));
        let report = verify_module(&module, &VerifierOptions::all());
        prop_assert!(report.succeeded(), "seed {seed}:\n{report}\n{}", print_module(&module, View::Structured));
    }
}
