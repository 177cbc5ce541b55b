//! Passes by name. The names are the kebab-case names `oxir opt --passes` takes.

use crate::pipeline::{PassFn, PassOutcome};

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

type RunFn = fn(&mut oxir_ir::Module) -> PassOutcome;

// One entry per line, so that branches adding passes merge by adding lines.
#[rustfmt::skip]
const REGISTRY: &[(&str, RunFn)] = &[
    ("simplify-cfg", run_simplify_cfg),
    ("dce", run_dce),
];

fn run_simplify_cfg(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&crate::passes::simplify_cfg::run_on_module(m))
}

fn run_dce(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&crate::passes::dce::run_on_module(m))
}
