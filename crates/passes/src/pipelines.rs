//! The driver pipelines, as data: their order is visible here and nowhere else.
//!
//! - `normalize`: `verify → destructure-cfg → inline-all (immediately) →
//!   hoist-allocas → mem2reg → unused-callable-removal → simplify-cfg → dce →
//!   bounds-checks → verify(reachable blocks)`; [`normalize_with`] takes the
//!   bounds-check policy (`normalize` uses the safe default), [`normalize_for`] also the
//!   [`Inlining`] (SPIR-V keeps functions where that is smaller: `inline-when-smaller`
//!   in place of `inline-all`);
//! - `structurize`, the tail for structured back-ends: `reg2mem → restructure-cfg →
//!   verify(unique merges, canonical break/continue)`.
//! - `ssa-optimization`, the optimiser on plain SSA after `normalize` (what `-O` adds):
//!   `private-to-function → sroa → mem2reg`, the [`SSA_ROUND`] passes repeated to a fixed point
//!   (at most [`SSA_ROUND_LIMIT`] rounds), then `verify(reachable blocks)`;
//! - `post-restructure-cleanup`, after `structurize` (and the `mem2reg` a structured
//!   back-end runs after it): [`POST_RESTRUCTURE_ROUND`] to a fixed point.
//! - `basic-optimization` ([`BASIC_OPTIMIZATION`]) and `post-inline-cleanup`
//!   ([`POST_INLINE_CLEANUP`]): the factory lists for a front-end's structured output and
//!   for after inlining, run once each, for callers that build their own pipelines
//!   (`oxir opt --pipeline NAME`); no driver runs them, since `normalize` inlines first
//!   and `ssa-optimization` covers both.
//!
//! - `loop-optimization` ([`loop_optimization`]), after `ssa-optimization`: the
//!   [`LOOP_PASSES`] once each, then the [`SSA_ROUND`] to a fixed point; no driver runs it
//!   yet.
//!
//! [`Optimizer::fast_math`] swaps `algebraic-simplify` for `fast-math-simplify` in every
//! list.
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
pub const PIPELINE_NAMES: [&str; 7] = [
    "normalize",
    "structurize",
    "basic-optimization",
    "post-inline-cleanup",
    "ssa-optimization",
    "post-restructure-cleanup",
    "loop-optimization",
];

/// What the optimiser may assume beyond the IR's semantics.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Optimizer {
    /// Float rewrites that ignore NaN, infinities and signed zeros (`x * 0.0 → 0.0`,
    /// `x - x → 0.0`, ...): `fast-math-simplify` instead of `algebraic-simplify`.
    pub fast_math: bool,
}

impl Optimizer {
    /// The name of the algebraic pass these options choose.
    fn algebraic(self) -> &'static str {
        if self.fast_math {
            "fast-math-simplify"
        } else {
            "algebraic-simplify"
        }
    }
}

/// One round of `ssa-optimization`, in order:
/// - `licm` first, so that what it hoists is simplified in the same round;
/// - `trace-access` folds chained `access`es, so `gvn` sees one expression per address;
/// - `sccp` (constants through block parameters and branches), `const-fold`, then the
///   identities of `algebraic-simplify` (which folded operands expose), `reassociate`
///   (constants of integer chains together, for `const-fold` next round), `cvp`;
/// - `gvn` (forwarded stores give `const-fold` new constants next round), then
///   `dead-store-elimination` of the stores it made dead;
/// - `dead-global-elim`: write-only private and workgroup globals with their stores and
///   accesses — in the round, because what computed the stored values (a bounds-checked
///   load and its branch, say) is left for `simplify-cfg` and `adce` to remove;
/// - `div-rem-pairs`;
/// - `jump-threading`: edges that already know a join's branch condition skip the join
///   (a bounds-checked `a[i] += x` becomes one guarded block once `cvp` and
///   `simplify-cfg` have folded what remains);
/// - `simplify-cfg` (folds the branches on constant conditions, merges blocks — longer
///   single-predecessor chains for `gvn`),
///   `phi-cleanup` (parameters that became trivial when branches folded);
/// - `adce` (dead branches, loops and parameter cycles), `dce` last.
///
/// `if-conversion` is not in the round: on the project and corpus shaders it saved 0.7%
/// of the SPIR-V words but raised the interpreter's executed instructions (-O / -O0,
/// 42 kernels) from 0.574 to 0.648 in total — both arms run where one did.
pub const SSA_ROUND: &[&str] = &[
    "licm",
    "trace-access",
    "sccp",
    "const-fold",
    "algebraic-simplify",
    "reassociate",
    "cvp",
    "gvn",
    "dead-store-elimination",
    "dead-global-elim",
    "div-rem-pairs",
    "jump-threading",
    "simplify-cfg",
    "phi-cleanup",
    "adce",
    "dce",
];

/// Rounds `ssa-optimization` may take before it reports an iteration limit. The round's
/// passes remove instructions, blocks and parameters, or move instructions out of loops
/// (`licm`) and arms into heads (`if-conversion`), never back; the driver test
/// `optimizer_fixed_point` checks that every project and corpus shader converges well
/// within the limit.
pub const SSA_ROUND_LIMIT: u32 = 16;

/// One round of `post-restructure-cleanup`: passes that keep structured control flow.
pub const POST_RESTRUCTURE_ROUND: &[&str] = &[
    "const-fold",
    "algebraic-simplify",
    "early-cse",
    "local-store-forward",
    "local-load-elimination",
    "dead-store-elimination",
    "gvn",
    "dce",
];

/// `basic-optimization`, on structured memory-form IR straight from a front-end (before
/// `normalize`): block-local memory forwarding, constants and identities, promotion of
/// read-only reference arguments, `sroa`, dead stores. Nothing here needs a plain CFG.
pub const BASIC_OPTIMIZATION: &[&str] = &[
    "local-store-forward",
    "local-load-elimination",
    "dce",
    "algebraic-simplify",
    "const-fold",
    "dce",
    "promote-ref-arg",
    "sroa",
    "dead-store-elimination",
    "dce",
];

/// `post-inline-cleanup`, after inlining (plain or structured): what inlining exposes to
/// block-local forwarding, constants, `sroa` and dead-store elimination.
pub const POST_INLINE_CLEANUP: &[&str] = &[
    "dce",
    "local-store-forward",
    "local-load-elimination",
    "dce",
    "algebraic-simplify",
    "const-fold",
    "dce",
    "sroa",
    "dead-store-elimination",
    "dce",
];

/// The pipeline called `name`.
pub fn by_name(name: &str) -> Option<PassPipeline> {
    match name {
        "normalize" => Some(normalize()),
        "structurize" => Some(structurize()),
        "basic-optimization" => Some(group(BASIC_OPTIMIZATION, Optimizer::default())),
        "post-inline-cleanup" => Some(group(POST_INLINE_CLEANUP, Optimizer::default())),
        "ssa-optimization" => Some(ssa_optimization()),
        "post-restructure-cleanup" => Some(post_restructure_cleanup()),
        "loop-optimization" => Some(loop_optimization()),
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
    normalize_for(policy, Inlining::All)
}

/// Which calls `normalize` inlines.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Inlining {
    /// Every call (`inline-all`): for back-ends without calls.
    #[default]
    All,
    /// What logical addressing requires (pointer and resource arguments, stage registers),
    /// and otherwise only where inlining is smaller (`inline-when-smaller`): for SPIR-V.
    KeepWhenSmaller,
}

impl Inlining {
    fn pass_name(self) -> &'static str {
        match self {
            Inlining::All => "inline-all",
            Inlining::KeepWhenSmaller => "inline-when-smaller",
        }
    }
}

/// [`normalize_with`] with the inlining `inlining` chooses.
pub fn normalize_for(policy: BoundsPolicy, inlining: Inlining) -> PassPipeline {
    let mut p = PassPipeline::new();
    p.add_verify("verify-input", VerifierOptions::default());
    // Right after `verify-input`, which is stricter than its preflight's verifier run (a
    // driver calling `make_checks_internal` must keep `verify-input` a real check).
    p.add("destructure-cfg", |m| {
        PassOutcome::from_info(&crate::passes::destructure_cfg::run_on_verified_module(m))
    });
    for name in [
        // Immediately after destructuring, with nothing in between.
        inlining.pass_name(),
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

/// The passes `names`, in order, with the algebraic pass `optimizer` chooses.
fn group(names: &[&str], optimizer: Optimizer) -> PassPipeline {
    let mut p = PassPipeline::new();
    for &name in names {
        let name = if name == "algebraic-simplify" {
            optimizer.algebraic()
        } else {
            name
        };
        add(&mut p, name);
    }
    p
}

/// The optimiser on plain SSA, as `normalize` leaves it (see the module docs).
pub fn ssa_optimization() -> PassPipeline {
    ssa_optimization_with(Optimizer::default())
}

/// [`ssa_optimization`] with `optimizer`'s assumptions.
pub fn ssa_optimization_with(optimizer: Optimizer) -> PassPipeline {
    let mut p = PassPipeline::new();
    // Private globals of entry points become allocas that mem2reg promotes; after
    // `normalize`, no callable that names them is left (`unused-callable-removal`).
    add(&mut p, "private-to-function");
    add(&mut p, "sroa");
    add(&mut p, "mem2reg");
    p.add_fixed_point("ssa-round", group(SSA_ROUND, optimizer), SSA_ROUND_LIMIT);
    let reachable = VerifierOptions {
        require_reachable_blocks: true,
        ..VerifierOptions::default()
    };
    p.add_verify("verify-optimized", reachable);
    p
}

/// Cleanup on structured SSA after `structurize`: nothing here changes control flow.
pub fn post_restructure_cleanup() -> PassPipeline {
    post_restructure_cleanup_with(Optimizer::default())
}

/// [`post_restructure_cleanup`] with `optimizer`'s assumptions.
pub fn post_restructure_cleanup_with(optimizer: Optimizer) -> PassPipeline {
    let mut p = PassPipeline::new();
    p.add_fixed_point(
        "post-restructure-round",
        group(POST_RESTRUCTURE_ROUND, optimizer),
        SSA_ROUND_LIMIT,
    );
    p
}

/// `loop-optimization`, after `ssa-optimization` on plain SSA: [`LOOP_PASSES`] once each,
/// then the [`SSA_ROUND`] to a fixed point to fold what they expose (constant induction
/// values of unrolled copies, folded branches, merged chains), `dce` and
/// `verify(reachable blocks)`. The loop passes run once, not in the round: unrolling and
/// unswitching copy code, and the round must converge.
pub fn loop_optimization() -> PassPipeline {
    loop_optimization_with(Optimizer::default())
}

/// The loop passes of `loop-optimization`, in order: `indvar-simplify` (exit values
/// first, so loops whose results became constants can go), `loop-unswitch` (copies
/// without the invariant branch, which `loop-unroll` may then unroll), `loop-unroll`,
/// then `loop-rotation` of the loops left (after unrolling: `loop-unroll` needs the test
/// in the header). Measured with the `loop_effect` example over the project's shaders,
/// `benches/loops` and the corpus (51 kernels): executed instructions 0.915x (geomean;
/// total 0.948x) of `-O`'s, SPIR-V words 1.163x (total 1.240x); without rotation 0.938x
/// / 0.990x executed, 1.131x / 1.201x words.
pub const LOOP_PASSES: &[&str] = &[
    "indvar-simplify",
    "loop-unswitch",
    "loop-unroll",
    "loop-rotation",
];

/// [`loop_optimization`] with `optimizer`'s assumptions.
pub fn loop_optimization_with(optimizer: Optimizer) -> PassPipeline {
    let mut p = group(LOOP_PASSES, optimizer);
    p.add_fixed_point("ssa-round", group(SSA_ROUND, optimizer), SSA_ROUND_LIMIT);
    add(&mut p, "dce");
    let reachable = VerifierOptions {
        require_reachable_blocks: true,
        ..VerifierOptions::default()
    };
    p.add_verify("verify-loop-optimized", reachable);
    p
}
