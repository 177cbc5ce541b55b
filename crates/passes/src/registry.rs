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

use crate::passes::{hoist_allocas, mem2reg, reg2mem};

fn run_hoist_allocas(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&hoist_allocas::run_on_module(m))
}

fn run_mem2reg(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&mem2reg::run_on_module(m))
}

fn run_reg2mem(m: &mut oxir_ir::Module) -> PassOutcome {
    PassOutcome::from_info(&reg2mem::run_on_module(m))
}

const REGISTRY: &[(&str, RunFn)] = &[
    ("hoist-allocas", run_hoist_allocas),
    ("mem2reg", run_mem2reg),
    ("reg2mem", run_reg2mem),
];
