//! The functions kept as SPIR-V functions: the callables the entry points reach through
//! calls, in the order the writer emits them (callees before their callers, so a caller's
//! interface can include what its callees name), and the stages each runs in (the
//! preflight checks a callable's ops once per stage).
//!
//! A callable no entry point reaches is neither checked nor written (nothing can observe
//! it). SPIR-V has no recursion: a reached callable in a call-graph cycle is reported.

use cranelift_entity::SecondaryMap;
use oxir_ir::function::FunctionKind;
use oxir_ir::{Func, Module};
use oxir_passes::analysis::call_graph::CallGraph;

/// The stage of an entry point, as the preflight's messages name it.
pub(crate) fn stage_name(kind: &FunctionKind) -> Option<&'static str> {
    match kind {
        FunctionKind::Kernel { .. } => Some("kernel"),
        FunctionKind::Vertex => Some("vertex"),
        FunctionKind::Fragment => Some("fragment"),
        FunctionKind::Callable | FunctionKind::External => None,
    }
}

/// The callables to write.
pub(crate) struct CallPlan {
    /// Reached callables, callees first.
    pub order: Vec<Func>,
    /// The stages of the entry points that reach each callable (sorted, no duplicates).
    pub stages: SecondaryMap<Func, Vec<&'static str>>,
    /// A reached function that is recursive, when there is one.
    pub recursive: Option<Func>,
}

impl CallPlan {
    pub(crate) fn new(module: &Module) -> CallPlan {
        let graph = CallGraph::new(module);
        let mut stages: SecondaryMap<Func, Vec<&'static str>> = SecondaryMap::new();
        for &root in graph.roots() {
            let Some(stage) = stage_name(&module.functions[root].kind) else {
                continue;
            };
            for (func, reached) in graph.reachable_from(&[root]).iter() {
                if *reached && !stages[func].contains(&stage) {
                    stages[func].push(stage);
                }
            }
        }
        let reached = |f: Func| !stages[f].is_empty();
        let order: Vec<Func> = graph
            .bottom_up_order()
            .into_iter()
            .filter(|&f| reached(f) && stage_name(&module.functions[f].kind).is_none())
            .collect();
        let recursive = graph
            .bottom_up_order()
            .into_iter()
            .find(|&f| reached(f) && graph.is_recursive(f));
        for list in stages.values_mut() {
            list.sort_unstable();
        }
        CallPlan {
            order,
            stages,
            recursive,
        }
    }
}
