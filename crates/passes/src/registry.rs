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

const REGISTRY: &[(&str, RunFn)] = &[
    ("destructure-cfg", run_destructure_cfg),
    ("restructure-cfg", run_restructure_cfg),
];

fn run_destructure_cfg(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&crate::passes::destructure_cfg::run_on_module(m))
}

fn run_restructure_cfg(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&crate::passes::restructure_cfg::run_on_module(m))
}
