//! The `bounds-checks` pass against the interpreter's robust mode, on random modules
//! (`oxir-ir/random`): after `normalize` (which ends in the pass, default policy) every
//! module verifies, its run under `OutOfBounds::Error` never reports an out-of-bounds
//! access, and its buffers equal the robust run of the input. Buffers are given random
//! sizes, many shorter than the workgroup, so the kernels' stores through
//! `local_invocation_index` do go out of range.

use oxir_interp::{Buffers, ErrorKind, Options, OutOfBounds};
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_passes::passes::bounds_checks::{BoundsPolicy, Policy};

fn run(
    module: &oxir_ir::Module,
    input: &Buffers,
    mode: OutOfBounds,
) -> Result<Buffers, oxir_interp::Error> {
    let mut buffers = input.clone();
    let options = Options {
        out_of_bounds: mode,
        max_instructions: 2_000_000,
        ..Options::default()
    };
    oxir_interp::dispatch(module, "main", [2, 1, 1], &mut buffers, &options).map(|_| buffers)
}

fn is_out_of_bounds(e: &oxir_interp::Error) -> bool {
    matches!(e.kind, ErrorKind::OutOfBounds { .. })
}

#[test]
fn checked_random_modules_never_go_out_of_bounds_and_match_robust_runs() {
    let (mut compared, mut out_of_range_inputs) = (0, 0);
    for seed in 0..80u64 {
        let module = generate_module(seed, GenConfig::default());
        let mut checked = module.clone();
        let stats = oxir_passes::pipelines::normalize().run(&mut checked);
        assert!(
            stats.succeeded(),
            "seed {seed}: normalize failed:\n{}",
            stats.log("normalize")
        );
        let report = verify_module(&checked, &VerifierOptions::default());
        assert!(
            report.succeeded(),
            "seed {seed}: checked module does not verify:\n{report}"
        );
        for words in [0usize, 3, 17, 64, 200] {
            let mut input = Buffers::new();
            input.insert(
                (0, 0),
                oxir_interp::random_bytes(4 * words, seed * 131 + words as u64),
            );
            let Ok(reference) = run(&module, &input, OutOfBounds::Robust) else {
                continue; // instruction budget, or another run-time error before the pass
            };
            if run(&module, &input, OutOfBounds::Error).is_err_and(|e| is_out_of_bounds(&e)) {
                out_of_range_inputs += 1;
            }
            match run(&checked, &input, OutOfBounds::Error) {
                Ok(after) => assert_eq!(after, reference, "seed {seed}, {words} words"),
                Err(e) => panic!("seed {seed}, {words} words: checked module failed: {e}"),
            }
            compared += 1;
        }
    }
    eprintln!(
        "{compared} runs compared, {out_of_range_inputs} of them out of range before the checks"
    );
    assert!(compared >= 200, "only {compared} runs compared");
    assert!(
        out_of_range_inputs >= 50,
        "only {out_of_range_inputs} runs went out of range"
    );
}

#[test]
fn restrict_never_goes_out_of_bounds_on_random_modules() {
    for seed in 0..40u64 {
        let mut checked = generate_module(seed, GenConfig::default());
        let policy = BoundsPolicy::uniform(Policy::Restrict);
        let stats = oxir_passes::pipelines::normalize_with(policy).run(&mut checked);
        assert!(
            stats.succeeded(),
            "seed {seed}:\n{}",
            stats.log("normalize")
        );
        for words in [0usize, 5, 64] {
            let mut input = Buffers::new();
            input.insert(
                (0, 0),
                oxir_interp::random_bytes(4 * words, seed + words as u64),
            );
            if let Err(e) = run(&checked, &input, OutOfBounds::Error) {
                assert!(!is_out_of_bounds(&e), "seed {seed}, {words} words: {e}");
            }
        }
    }
}
