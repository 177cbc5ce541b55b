//! Passes by name. The names are the kebab-case names `oxir opt --passes` takes.

use crate::passes::{
    adce, algebraic_simplify, bounds_checks, const_fold, cvp, dce, dead_arg_elim, dead_global_elim,
    dead_store_elimination, destructure_cfg, div_rem_pairs, early_cse, gvn, hoist_allocas,
    if_conversion, inline, jump_threading, licm, local_load_elimination, local_store_forward,
    mem2reg, phi_cleanup, private_to_function, promote_ref_arg, reassociate, reg2mem,
    restructure_cfg, sccp, simplify_cfg, simplify_libcalls, sroa, trace_access,
    unused_callable_removal,
};
use crate::pipeline::{PassFn, PassOutcome};
use oxir_ir::Module;

/// Every registered pass name, in documentation order.
pub fn pass_names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(name, _)| *name).collect()
}

/// The pass called `name`.
pub fn create(name: &str) -> Option<PassFn> {
    REGISTRY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, run)| Box::new(run) as PassFn)
}

type RunFn = fn(&mut Module) -> PassOutcome;

/// `name => module-level entry point` for each pass.
macro_rules! registry {
    ($($name:literal => $run:path),* $(,)?) => {
        const REGISTRY: &[(&str, RunFn)] = &[$(($name, |m: &mut Module| PassOutcome::from_info(&$run(m)))),*];
    };
}

registry! {
    "destructure-cfg" => destructure_cfg::run_on_module,
    "restructure-cfg" => restructure_cfg::run_on_module,
    "simplify-cfg" => simplify_cfg::run_on_module,
    "dce" => dce::run_on_module,
    "adce" => adce::run_on_module,
    "inline" => inline::run_on_module,
    "inline-all" => inline::run_all_on_module,
    "inline-when-smaller" => inline::run_when_smaller_on_module,
    "hoist-allocas" => hoist_allocas::run_on_module,
    "sroa" => sroa::run_on_module,
    "mem2reg" => mem2reg::run_on_module,
    "reg2mem" => reg2mem::run_on_module,
    "unused-callable-removal" => unused_callable_removal::run_on_module,
    "dead-arg-elim" => dead_arg_elim::run_on_module,
    "bounds-checks" => bounds_checks::run_on_module,
    "gvn" => gvn::run_on_module,
    "private-to-function" => private_to_function::run_on_module,
    "phi-cleanup" => phi_cleanup::run_on_module,
    "dead-global-elim" => dead_global_elim::run_on_module,
    "const-fold" => const_fold::run_on_module,
    "algebraic-simplify" => algebraic_simplify::run_on_module,
    "fast-math-simplify" => algebraic_simplify::run_fast_math_on_module,
    "licm" => licm::run_on_module,
    "if-conversion" => if_conversion::run_on_module,
    "jump-threading" => jump_threading::run_on_module,
    "dead-store-elimination" => dead_store_elimination::run_on_module,
    "early-cse" => early_cse::run_on_module,
    "local-store-forward" => local_store_forward::run_on_module,
    "local-load-elimination" => local_load_elimination::run_on_module,
    "trace-access" => trace_access::run_on_module,
    "promote-ref-arg" => promote_ref_arg::run_on_module,
    "sccp" => sccp::run_on_module,
    "simplify-libcalls" => simplify_libcalls::run_on_module,
    "cvp" => cvp::run_on_module,
    "reassociate" => reassociate::run_on_module,
    "div-rem-pairs" => div_rem_pairs::run_on_module,
    "loop-unroll" => crate::passes::loop_unroll::run_on_module,
    "loop-rotation" => crate::passes::loop_rotation::run_on_module,
    "indvar-simplify" => crate::passes::indvar_simplify::run_on_module,
    "loop-unswitch" => crate::passes::loop_unswitch::run_on_module,
    "loop-fusion" => crate::passes::loop_fusion::run_on_module,
}
