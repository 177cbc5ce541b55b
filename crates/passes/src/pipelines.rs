//! The driver pipelines, as data: their order is visible here and nowhere else.
//!
//! - `normalize`: `verify → destructure-cfg → inline-all (immediately) →
//!   hoist-allocas → mem2reg → unused-callable-removal → simplify-cfg → dce →
//!   bounds-checks → verify(reachable blocks)`; [`normalize_with`] takes the
//!   bounds-check policy (`normalize` uses the safe default);
//! - `structurize`, the tail for structured back-ends: `reg2mem → restructure-cfg →
//!   verify(unique merges, canonical break/continue)`.
//! - `ssa-optimization`, the optimiser on plain SSA after `normalize` (what `-O` adds):
//!   `private-to-function → sroa → mem2reg`, the [`SSA_ROUND`] passes repeated to a fixed point
//!   (at most [`SSA_ROUND_LIMIT`] rounds), `dead-global-elim → dce`, then
//!   `verify(reachable blocks)`;
//! - `post-restructure-cleanup`, after `structurize` (and the `mem2reg` a structured
//!   back-end runs after it): [`POST_RESTRUCTURE_ROUND`] to a fixed point.
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
pub const PIPELINE_NAMES: [&str; 4] = [
    "normalize",
    "structurize",
    "ssa-optimization",
    "post-restructure-cleanup",
];

/// One round of `ssa-optimization`, in order: constants first (`const-fold`, then the
/// identities of `algebraic-simplify`, which folded operands expose), `gvn` (forwarded
/// stores give `const-fold` new constants next round), `simplify-cfg` (folds the
/// branches on constant conditions and merges blocks, which gives `gvn` longer
/// single-predecessor chains), `phi-cleanup` (parameters that became trivial when
/// branches folded), `dce` last.
pub const SSA_ROUND: &[&str] = &[
    "licm",
    "const-fold",
    "algebraic-simplify",
    "gvn",
    "dead-store-elimination",
    "simplify-cfg",
    "phi-cleanup",
    "dce",
];

/// Rounds `ssa-optimization` may take before it reports an iteration limit. Every pass
/// of a round only removes instructions or blocks, so each round that changes something
/// makes the function smaller and the limit is never reached in practice.
pub const SSA_ROUND_LIMIT: u32 = 16;

/// One round of `post-restructure-cleanup`: passes that keep structured control flow.
pub const POST_RESTRUCTURE_ROUND: &[&str] = &["const-fold", "algebraic-simplify", "gvn", "dce"];

/// The pipeline called `name`.
pub fn by_name(name: &str) -> Option<PassPipeline> {
    match name {
        "normalize" => Some(normalize()),
        "structurize" => Some(structurize()),
        "ssa-optimization" => Some(ssa_optimization()),
        "post-restructure-cleanup" => Some(post_restructure_cleanup()),
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

fn group(names: &[&str]) -> PassPipeline {
    let mut p = PassPipeline::new();
    for name in names {
        add(&mut p, name);
    }
    p
}

/// The optimiser on plain SSA, as `normalize` leaves it (see the module docs).
pub fn ssa_optimization() -> PassPipeline {
    let mut p = PassPipeline::new();
    // Private globals of entry points become allocas that mem2reg promotes; after
    // `normalize`, no callable that names them is left (`unused-callable-removal`).
    add(&mut p, "private-to-function");
    add(&mut p, "sroa");
    add(&mut p, "mem2reg");
    p.add_fixed_point("ssa-round", group(SSA_ROUND), SSA_ROUND_LIMIT);
    // Write-only private and workgroup globals, and what computed their addresses.
    add(&mut p, "dead-global-elim");
    add(&mut p, "dce");
    let reachable = VerifierOptions {
        require_reachable_blocks: true,
        ..VerifierOptions::default()
    };
    p.add_verify("verify-optimized", reachable);
    p
}

/// Cleanup on structured SSA after `structurize`: nothing here changes control flow.
pub fn post_restructure_cleanup() -> PassPipeline {
    let mut p = PassPipeline::new();
    p.add_fixed_point(
        "post-restructure-round",
        group(POST_RESTRUCTURE_ROUND),
        SSA_ROUND_LIMIT,
    );
    p
}
