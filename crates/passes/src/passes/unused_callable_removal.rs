//! `unused-callable-removal`: delete the functions no entry point can call.
//!
//! A function is kept when it is an entry point (kernel, vertex, fragment), is reachable
//! from one through calls, is in a recursive group (a call-graph cycle or a function that
//! calls itself) — even one no entry point reaches — or is reachable from such a group.
//! Everything else, callables and external declarations alike, is deleted.
//!
//! Keeping unreachable recursive groups is conservative:
//! recursion is not allowed in GPU code, and a group the front-end left behind stays
//! visible to the diagnostics and back-end checks that reject it instead of silently
//! disappearing. What a kept group calls is kept too, so no `call` names a deleted function.
//! A module without entry points loses every function that is not in such a group.
//!
//! Functions live in a `PrimaryMap`, which cannot remove, so removal rebuilds the function
//! arena in index order without the deleted functions and renumbers the callee of every
//! `call` (placed or not; a call in an instruction no block holds any more whose callee was
//! deleted is given the reserved, invalid function index). The text form names callees,
//! so the printed module changes exactly by the deleted functions.
//!
//! It does not delete unused globals, does not look inside function bodies beyond `call`
//! instructions, and does not inline or rewrite calls.
//!
//! ```text
//! callable @used() { ... }            callable @used() { ... }
//! callable @dead() { ... }      ==>   kernel @k() workgroup_size(1, 1, 1) {
//! kernel @k() workgroup_size(1, 1, 1) {     call @used() ...
//!     call @used() ...
//! ```

use crate::analysis::call_graph::CallGraph;
use cranelift_entity::packed_option::{PackedOption, ReservedValue};
use cranelift_entity::{PrimaryMap, SecondaryMap};
use oxir_ir::{Func, Module, Payload};

crate::pass_info! {
    pass: "unused-callable-removal",
    /// Counters of `unused-callable-removal`.
    pub struct UnusedCallableRemovalInfo {
        removed_callable_count,
    }
    changed_by: [removed_callable_count]
}

/// Deletes `func` when it is unused in the sense of the module doc.
pub fn run_on_function(module: &mut Module, func: Func) -> UnusedCallableRemovalInfo {
    let keep = kept_functions(module);
    if module.functions.get(func).is_none() || keep[func] {
        return UnusedCallableRemovalInfo::default();
    }
    remove_functions(module, |f| f != func)
}

/// Deletes every unused function.
pub fn run_on_module(module: &mut Module) -> UnusedCallableRemovalInfo {
    let keep = kept_functions(module);
    remove_functions(module, |f| keep[f])
}

/// Entry points, unreachable recursive groups, and everything they reach.
fn kept_functions(module: &Module) -> SecondaryMap<Func, bool> {
    let graph = CallGraph::new(module);
    let mut starts = graph.roots().to_vec();
    starts.extend(module.functions.keys().filter(|&f| graph.is_recursive(f)));
    graph.reachable_from(&starts)
}

/// Rebuilds the function arena with the functions `keep` accepts and renumbers callees.
fn remove_functions(module: &mut Module, keep: impl Fn(Func) -> bool) -> UnusedCallableRemovalInfo {
    let removed = module.functions.keys().filter(|&f| !keep(f)).count() as u64;
    if removed == 0 {
        return UnusedCallableRemovalInfo::default();
    }
    let old = std::mem::take(&mut module.functions);
    let mut renumbered: SecondaryMap<Func, PackedOption<Func>> = SecondaryMap::new();
    let mut functions: PrimaryMap<Func, oxir_ir::Function> =
        PrimaryMap::with_capacity(old.len() - removed as usize);
    for (f, function) in old {
        if keep(f) {
            renumbered[f] = functions.push(function).into();
        }
    }
    for function in functions.values_mut() {
        for data in function.dfg.insts.values_mut() {
            if let Payload::Callee(callee) = &mut data.payload {
                *callee = renumbered
                    .get(*callee)
                    .and_then(|f| f.expand())
                    .unwrap_or_else(Func::reserved_value);
            }
        }
    }
    module.functions = functions;
    UnusedCallableRemovalInfo {
        removed_callable_count: removed,
        ..UnusedCallableRemovalInfo::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PassInfo;
    use cranelift_entity::EntityRef;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};
    use oxir_ir::{Inst, Opcode};

    const MODULE: &str = "
callable @dead_leaf() {
block0:
    return
}
callable @dead_caller() {
block0:
    call @dead_leaf()
    return
}
callable @live_leaf() {
block0:
    return
}
kernel @k() workgroup_size(1, 1, 1) {
block0:
    call @live_leaf()
    return
}
";

    #[test]
    fn removal_renumbers_placed_and_unplaced_callees() {
        let mut m = parse_module(MODULE).unwrap();
        let k = m.function_by_name("k").unwrap();
        let dead_leaf = m.function_by_name("dead_leaf").unwrap();
        // An unplaced call to a function about to be deleted, and one to a kept function.
        let f = &mut m.functions[k];
        let stray_dead = f.dfg.make_inst(oxir_ir::InstData::with_payload(
            Opcode::Call,
            &[],
            Payload::Callee(dead_leaf),
        ));
        let info = run_on_module(&mut m);
        assert_eq!(info.removed_callable_count, 2);
        assert!(info.changed());
        let names: Vec<&str> = m.functions.values().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["live_leaf", "k"]);
        let k = m.function_by_name("k").unwrap();
        let f = &m.functions[k];
        let placed: Vec<Inst> = f.layout.block_insts(f.entry_block().unwrap()).collect();
        assert_eq!(f.dfg.inst(placed[0]).payload, Payload::Callee(Func::new(0)));
        assert_eq!(
            f.dfg.inst(stray_dead).payload,
            Payload::Callee(Func::reserved_value())
        );
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
        assert_eq!(run_on_module(&mut m), UnusedCallableRemovalInfo::default());
    }

    #[test]
    fn run_on_function_removes_only_that_function() {
        let mut m = parse_module(MODULE).unwrap();
        let dead_caller = m.function_by_name("dead_caller").unwrap();
        let live = m.function_by_name("live_leaf").unwrap();
        assert_eq!(run_on_function(&mut m, live).removed_callable_count, 0);
        assert_eq!(
            run_on_function(&mut m, dead_caller).removed_callable_count,
            1
        );
        let text = print_module(&m, View::Flat);
        assert!(
            text.contains("@dead_leaf") && !text.contains("@dead_caller"),
            "{text}"
        );
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
    }
}
