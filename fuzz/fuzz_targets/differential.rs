//! Differential: a verified module (random or parsed, see `oxir_fuzz::module_from`) runs
//! on the interpreter before and after the driver pipelines — `normalize`,
//! `normalize` + `structurize`, and the SPIR-V target's pipeline at `-O0` and `-O` —
//! with equal buffers (or the same errors). Runs that exhaust their instruction budget
//! are skipped; a pipeline that refuses the module is skipped. The Vulkan leg
//! (`oxir_fuzz::vulkan`): the SPIR-V pipeline's output at `-O0` and at `-O`, written to
//! SPIR-V, runs on the Vulkan device (lavapipe) and gives the interpreter's bytes for
//! that output; without a device it is skipped, and the target says so once on stderr.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxir_driver::{BoundsPolicy, OptLevel, Optimizer, Target};
use oxir_fuzz::{random_buffers, run_kernels, within_limits, Limits};
use oxir_ir::printer::{print_module, View};
use oxir_passes::{pipelines, PassPipeline};

/// Each pipeline sequence, named, with the optimisation level of the SPIR-V target's
/// (whose output also runs on the Vulkan device).
type UnderTest = (&'static str, Vec<PassPipeline>, Option<OptLevel>);

fn pipelines_under_test() -> Vec<UnderTest> {
    let mut out = vec![
        ("normalize", vec![pipelines::normalize()], None),
        (
            "normalize+structurize",
            vec![pipelines::normalize(), pipelines::structurize()],
            None,
        ),
    ];
    for (name, level) in [("spirv -O0", OptLevel::O0), ("spirv -O", OptLevel::O1)] {
        if let Some(p) = oxir_driver::target_pipeline(
            Target::Spirv,
            level,
            BoundsPolicy::default(),
            Optimizer::default(),
        ) {
            out.push((name, vec![p], Some(level)));
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some(module) = oxir_fuzz::module_from(data) else {
        return;
    };
    if !within_limits(&module) {
        return;
    }
    let Some(inputs) = random_buffers(&module, data.len() as u64) else {
        return;
    };
    let Some(reference) = run_kernels(&module, &inputs, Limits::INSTRUCTIONS) else {
        return;
    };
    let vulkan = oxir_fuzz::vulkan::available();
    'pipelines: for (name, sequence, level) in pipelines_under_test() {
        let mut after = module.clone();
        for pipeline in &sequence {
            if pipeline.run(&mut after).error.is_some() {
                continue 'pipelines;
            }
        }
        let Some(results) = run_kernels(&after, &inputs, Limits::INSTRUCTIONS_AFTER) else {
            continue;
        };
        assert!(
            results == reference,
            "{name} changed the results:\nbefore: {reference:?}\nafter: {results:?}\n{}\nafter:\n{}",
            print_module(&module, View::Flat),
            print_module(&after, View::Flat)
        );
        if let (true, Some(level)) = (vulkan, level) {
            oxir_fuzz::vulkan::check(&after, &inputs, level);
        }
    }
});
