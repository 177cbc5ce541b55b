//! The driver pipelines, as data: their order is visible here and nowhere else.
//!
//! - `normalize`: `verify → destructure-cfg → inline-all (immediately) →
//!   hoist-allocas → mem2reg → unused-callable-removal → simplify-cfg → dce →
//!   bounds-checks → verify(reachable blocks)`; [`normalize_with`] takes the
//!   bounds-check policy (`normalize` uses the safe default);
//! - `structurize`, the tail for structured back-ends: `reg2mem → restructure-cfg →
//!   verify(unique merges, canonical break/continue)`.
//!
//! The ordering contracts these keep are listed in `docs/passes.md` ("Driver pipelines").

use crate::passes::bounds_checks::{self, BoundsPolicy};
use crate::pipeline::{PassOutcome, PassPipeline};
use crate::registry;
use oxir_ir::verifier::VerifierOptions;

fn add(pipeline: &mut PassPipeline, name: &str) {
    match registry::create(name) {
        Some(pass) => {
            pipeline.add(name, pass);
        }
        None => panic!("pipeline names unregistered pass `{name}`"),
    }
}

/// The names of the pipelines `by_name` knows.
pub const PIPELINE_NAMES: [&str; 2] = ["normalize", "structurize"];

/// The pipeline called `name`.
pub fn by_name(name: &str) -> Option<PassPipeline> {
    match name {
        "normalize" => Some(normalize()),
        "structurize" => Some(structurize()),
        _ => None,
    }
}

/// Structured, memory-form IR from a front-end to plain SSA, with the default
/// (`read-zero-skip-write`) bounds checks.
pub fn normalize() -> PassPipeline {
    normalize_with(BoundsPolicy::default())
}

/// [`normalize`] with the bounds checks of `policy`. The checks run last, on plain SSA
/// after inlining (so every access is visible) and after `dce` (so no dead access is
/// checked); every back-end driver runs this pipeline and inherits them.
pub fn normalize_with(policy: BoundsPolicy) -> PassPipeline {
    let mut p = PassPipeline::new();
    p.add_verify("verify-input", VerifierOptions::default());
    for name in [
        "destructure-cfg",
        // Immediately after destructuring, with nothing in between.
        "inline-all",
        "hoist-allocas",
        "mem2reg",
        "unused-callable-removal",
        "simplify-cfg",
        "dce",
    ] {
        add(&mut p, name);
    }
    p.add("bounds-checks", move |m| {
        PassOutcome::from_info(&bounds_checks::run_on_module_with(m, &policy))
    });
    let reachable = VerifierOptions {
        require_reachable_blocks: true,
        ..VerifierOptions::default()
    };
    p.add_verify("verify-normalized", reachable);
    p
}

/// Plain SSA back to structured form for structured back-ends.
pub fn structurize() -> PassPipeline {
    let mut p = PassPipeline::new();
    // restructure-cfg needs input without block parameters.
    add(&mut p, "reg2mem");
    add(&mut p, "restructure-cfg");
    let structured = VerifierOptions {
        require_unique_merge_blocks: true,
        require_canonical_break_continue_targets: true,
        ..VerifierOptions::default()
    };
    p.add_verify("verify-structured", structured);
    p
}
