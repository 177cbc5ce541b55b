//! Passes by name. The names are the kebab-case names `oxir opt --passes` takes.

use crate::passes::{dead_arg_elim, inline, unused_callable_removal};
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
    ("inline", run_inline),
    ("inline-all", run_inline_all),
    ("unused-callable-removal", run_unused_callable_removal),
    ("dead-arg-elim", run_dead_arg_elim),
];

fn run_inline(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&inline::run_on_module(m))
}

fn run_inline_all(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&inline::run_all_on_module(m))
}

fn run_unused_callable_removal(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&unused_callable_removal::run_on_module(m))
}

fn run_dead_arg_elim(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&dead_arg_elim::run_on_module(m))
}
