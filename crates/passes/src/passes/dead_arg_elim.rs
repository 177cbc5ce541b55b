//! `dead-arg-elim`: remove the parameters a callable never reads, from its signature, its
//! entry block and every call site.
//!
//! A parameter is dead when no instruction placed in the function reads it (through
//! aliases too). Only callables qualify: entry points keep their stage interface, external
//! declarations have no body to inspect, and `signature_constraint` functions keep their
//! signature. Calls are the only way a function is referenced in oxir, so every call site
//! is a direct `call` in the module; a function with a call site that passes the wrong
//! number of arguments (an invalid module) is left alone.
//!
//! Functions are visited callees first, and the whole module is swept again while a sweep
//! removed something: removing an argument at a call site can leave the caller's own
//! parameter unread (it was only passed on), and recursive groups need more than one
//! sweep. One run therefore reaches a fixed point.
//!
//! It does not remove the now-unused argument computations at the call sites (DCE does), does
//! not remove unused results, and does not see through a parameter that is only passed
//! back to the same parameter of a recursive call (it counts as read).
//!
//! ```text
//! callable @f(i32, f32) -> i32 {        callable @f(i32) -> i32 {
//! block0(v0: i32, v1: f32):      ==>    block0(v0: i32):
//!     return v0                             return v0
//! ... v3: i32 = call @f(v2, c0)         ... v3: i32 = call @f(v2)
//! ```

use crate::analysis::call_graph::CallGraph;
use cranelift_entity::EntityRef;
use oxir_ir::{Func, FunctionKind, Module};

crate::pass_info! {
    pass: "dead-arg-elim",
    /// Counters of `dead-arg-elim`.
    pub struct DeadArgElimInfo {
        removed_arg_count,
    }
    changed_by: [removed_arg_count]
}

/// Removes the dead parameters of `func` and the matching arguments of its call sites.
pub fn run_on_function(module: &mut Module, func: Func) -> DeadArgElimInfo {
    if module.functions.get(func).is_none() {
        return DeadArgElimInfo::default();
    }
    let graph = CallGraph::new(module);
    DeadArgElimInfo {
        removed_arg_count: eliminate(module, &graph, func),
        ..DeadArgElimInfo::default()
    }
}

/// Removes every dead parameter of every qualifying callable.
pub fn run_on_module(module: &mut Module) -> DeadArgElimInfo {
    let mut info = DeadArgElimInfo::default();
    loop {
        // Removing arguments keeps every call instruction, so one graph serves a sweep.
        let graph = CallGraph::new(module);
        let removed: u64 = graph
            .bottom_up_order()
            .into_iter()
            .map(|func| eliminate(module, &graph, func))
            .sum();
        if removed == 0 {
            return info;
        }
        info.removed_arg_count += removed;
    }
}

/// Removes the dead parameters of `func`; returns how many.
fn eliminate(module: &mut Module, graph: &CallGraph, func: Func) -> u64 {
    let dead = dead_params(module, graph, func);
    if dead.is_empty() {
        return 0;
    }
    let function = &mut module.functions[func];
    let entry = function.entry_block().expect("dead_params requires a body");
    for &index in dead.iter().rev() {
        function.dfg.remove_block_param(entry, index);
        function.signature.params.remove(index);
    }
    for site in graph.call_sites_of(func) {
        let args = &mut module.functions[site.caller].dfg.inst_mut(site.inst).args;
        for &index in dead.iter().rev() {
            args.remove(index);
        }
    }
    dead.len() as u64
}

/// Indices of `func`'s unread parameters, ascending; empty when it does not qualify.
fn dead_params(module: &Module, graph: &CallGraph, func: Func) -> Vec<usize> {
    let function = &module.functions[func];
    let Some(entry) = function.entry_block() else {
        return Vec::new();
    };
    let params = function.dfg.block_params(entry);
    let qualifies = function.kind == FunctionKind::Callable
        && !function.metadata.signature_constraint
        && params.len() == function.signature.params.len()
        && graph.call_sites_of(func).all(|site| {
            module.functions[site.caller].dfg.inst(site.inst).args.len() == params.len()
        });
    if !qualifies || params.is_empty() {
        return Vec::new();
    }
    let mut read = vec![false; function.dfg.values.len()];
    for block in function.layout.blocks() {
        for inst in function.layout.block_insts(block) {
            for v in function.dfg.inst(inst).all_values() {
                if let Some(slot) = read.get_mut(function.dfg.resolve(v).index()) {
                    *slot = true;
                }
            }
        }
    }
    params
        .iter()
        .enumerate()
        .filter(|&(_, &p)| !read[function.dfg.resolve(p).index()])
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PassInfo;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    #[test]
    fn alias_of_a_parameter_counts_as_a_read() {
        let mut m = parse_module(
            "
callable @f(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2: i32 = add v0, v0
    return v2
}
kernel @k() workgroup_size(1, 1, 1) {
block0:
    return
}
",
        )
        .unwrap();
        let f = m.function_by_name("f").unwrap();
        // Make v0 read v1 instead: v1 is now the live parameter, v0 the dead one.
        let function = &mut m.functions[f];
        let entry = function.entry_block().unwrap();
        let [p0, p1] = [0, 1].map(|i| function.dfg.block_params(entry)[i]);
        assert!(function.dfg.replace_all_uses(p0, p1));
        let info = run_on_function(&mut m, f);
        assert_eq!(info.removed_arg_count, 1);
        assert!(info.changed());
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
        let text = print_module(&m, View::Flat);
        assert!(text.contains("callable @f(i32) -> i32"), "{text}");
    }

    #[test]
    fn recursive_group_reaches_a_fixed_point_in_one_run() {
        // @a passes its second parameter only to @b, which never reads it; @b passes its
        // first parameter only to @a's unread first parameter.
        let mut m = parse_module(
            "
const c0: i32 = 0
callable @a(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2: i32 = call @b(c0, v1)
    return v2
}
callable @b(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2: i32 = call @a(v0, c0)
    return c0
}
kernel @k() workgroup_size(1, 1, 1) {
block0:
    v0: i32 = call @a(c0, c0)
    return
}
",
        )
        .unwrap();
        let info = run_on_module(&mut m);
        assert_eq!(info.removed_arg_count, 4);
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
        assert_eq!(run_on_module(&mut m).removed_arg_count, 0);
        let text = print_module(&m, View::Flat);
        assert!(
            text.contains("callable @a() -> i32") && text.contains("callable @b() -> i32"),
            "{text}"
        );
    }
}
