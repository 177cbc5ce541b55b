//! `promote-ref-arg`: passes a read-only pointer parameter by value.
//!
//! A parameter `k` of type `ptr<function, T>` of a callable `@f` becomes a parameter of
//! type `T` when all of these hold (checked on the unchanged module, for every parameter
//! of every function, before anything is rewritten):
//!
//! 1. **The function qualifies**: a callable (not an entry point, not an external
//!    declaration), without `signature_constraint`, whose entry block has one parameter
//!    per signature entry, with at least one call site, each passing one argument per
//!    parameter. Calls are the only way a function is referenced in oxir.
//! 2. **The callee only loads it**: every use of the parameter in `@f` is the pointer
//!    operand of a `load` without semantic metadata, and there is at least one. Any other
//!    use — a store through it, an atomic, an `access` chain (constant or dynamic index),
//!    passing it to a call, an edge argument, a `select` — keeps it a pointer.
//! 3. **Every call site passes function-local memory**: the argument decomposes
//!    ([`crate::analysis::alias::PointerPath`]) to an `alloca` of the caller, in the
//!    `function` address space, through constant indices only (in range, as the verifier
//!    checks), so loading it at the call site reads exactly what the callee would have
//!    read, and never out of range.
//! 4. **Nothing writes that memory during the call**: a callee reaches the caller's
//!    `alloca` only through its pointer parameters (pointers are not stored in memory and
//!    an `alloca` is not a global), so for every other pointer parameter `j` of `@f` that
//!    `@f` does not itself only load (by rule 2), the argument at every call site must not
//!    alias argument `k` ([`crate::analysis::alias::alias`] is `NoAlias`; arguments that
//!    are not pointers are ignored). Whatever `@f` calls, it can hand on only those
//!    pointers, its own allocas and globals.
//!
//! The rewrite: the parameter's type (signature and entry-block parameter) becomes `T`,
//! each `load` of it is replaced by the parameter itself, and every call site loads the
//! argument just before the call and passes the loaded value. Counter:
//! `promoted_ref_arg_count`. Decisions come from one snapshot, so a second run finds
//! nothing new.
//!
//! ## What it does not do
//!
//! - It does not promote parameters used through `access` chains (a constant-index chain
//!   could become `extract`; not done), parameters of entry points, or pointers into
//!   `private`, `workgroup` or storage memory (other code may write those during the
//!   call).
//! - It does not remove the now-unneeded `alloca` stores at the call site (`mem2reg`,
//!   `dead-store-elimination`), and does not promote a parameter whose callee never
//!   loads it (`dead-arg-elim` removes it).
//! - Today `normalize` inlines every call, so the pass matters for a future inliner
//!   policy that keeps calls.
//!
//! ## Example
//!
//! ```text
//! callable @f(ptr<function, u32>) -> u32 {    callable @f(u32) -> u32 {
//! block0(v0: ptr<function, u32>):             block0(v0: u32):
//!     v1: u32 = load v0                 ==>       v2: u32 = add v0, v0
//!     v2: u32 = add v1, v1                        return v2
//!     return v2                               ... v3: u32 = load v1
//! ... v2: u32 = call @f(v1)                       v2: u32 = call @f(v3)
//! ```

use crate::analysis::alias::{alias, AliasResult, PathIndex, PointerPath, Root};
use crate::analysis::call_graph::CallGraph;
use crate::pass_info;
use cranelift_entity::EntityRef;
use oxir_ir::types::AddressSpace;
use oxir_ir::{
    Func, Function, FunctionKind, Inst, InstData, Module, Opcode, Type, TypeData, Value,
};

pass_info! {
    pass: "promote-ref-arg",
    /// Counters of `promote-ref-arg`.
    pub struct PromoteRefArgInfo {
        /// Pointer parameters turned into value parameters.
        promoted_ref_arg_count,
    }
    changed_by: [promoted_ref_arg_count]
}

/// Promotes the qualifying parameters of `func` (a module-wide question: every call site
/// is inspected and rewritten).
pub fn run_on_function(module: &mut Module, func: Func) -> PromoteRefArgInfo {
    let graph = CallGraph::new(module);
    let params = promotable_params(module, &graph, func);
    promote(module, &graph, func, &params)
}

/// Promotes the qualifying parameters of every callable.
pub fn run_on_module(module: &mut Module) -> PromoteRefArgInfo {
    let graph = CallGraph::new(module);
    let plan: Vec<(Func, Vec<Param>)> = module
        .functions
        .keys()
        .map(|func| (func, promotable_params(module, &graph, func)))
        .filter(|(_, params)| !params.is_empty())
        .collect();
    let mut info = PromoteRefArgInfo::default();
    for (func, params) in plan {
        info.accumulate(&promote(module, &graph, func, &params));
    }
    info
}

/// A parameter to promote: its index, its pointee type and the loads of it in the callee.
struct Param {
    index: usize,
    pointee: Type,
    loads: Vec<Inst>,
}

/// How the callee uses one pointer parameter.
enum Use {
    /// Only as the pointer of these (unannotated) loads.
    LoadsOnly(Vec<Inst>),
    /// Some other way (or not a function-space pointer).
    Other,
}

/// The pointee of `ty` when it is a `function`-space pointer.
fn function_pointee(module: &Module, ty: Type) -> Option<Type> {
    let Some(TypeData::Pointer {
        space: AddressSpace::Function,
        pointee,
    }) = module.types.try_get(ty)
    else {
        return None;
    };
    Some(*pointee)
}

/// Whether `func` may have its signature changed and all its calls are well formed.
fn qualifies(module: &Module, graph: &CallGraph, func: Func) -> bool {
    let f = &module.functions[func];
    let Some(entry) = f.entry_block() else {
        return false;
    };
    let arity = f.signature.params.len();
    f.kind == FunctionKind::Callable
        && f.is_definition()
        && !f.metadata.signature_constraint
        && f.dfg.block_params(entry).len() == arity
        && graph.call_site_count(func) > 0
        && graph.call_sites_of(func).all(|site| {
            let call = module.functions[site.caller].dfg.inst(site.inst);
            call.opcode == Opcode::Call && call.args.len() == arity
        })
}

/// How `f` uses each of its entry parameters (`params[i]` ↔ `uses[i]`).
fn param_uses(f: &Function, params: &[Value]) -> Vec<Use> {
    let mut slot = vec![usize::MAX; f.dfg.values.len()];
    for (i, &p) in params.iter().enumerate() {
        if let Some(s) = slot.get_mut(f.dfg.resolve(p).index()) {
            *s = i;
        }
    }
    let mut uses: Vec<Use> = params.iter().map(|_| Use::LoadsOnly(Vec::new())).collect();
    for block in f.layout.blocks() {
        for inst in f.layout.block_insts(block) {
            let data = f.dfg.inst(inst);
            let plain_load = data.opcode == Opcode::Load
                && !f.dfg.metadata(inst).is_some_and(|md| md.is_annotated());
            for (position, v) in data.all_values().enumerate() {
                let Some(&i) = slot.get(f.dfg.resolve(v).index()) else {
                    continue;
                };
                let Some(entry) = uses.get_mut(i) else {
                    continue;
                };
                match entry {
                    Use::LoadsOnly(loads) if plain_load && position == 0 => loads.push(inst),
                    Use::LoadsOnly(_) | Use::Other => *entry = Use::Other,
                }
            }
        }
    }
    uses
}

/// The parameters of `func` to promote, decided on the unchanged module.
fn promotable_params(module: &Module, graph: &CallGraph, func: Func) -> Vec<Param> {
    if module.functions.get(func).is_none() || !qualifies(module, graph, func) {
        return Vec::new();
    }
    let f = &module.functions[func];
    let Some(entry) = f.entry_block() else {
        return Vec::new();
    };
    let params = f.dfg.block_params(entry);
    let uses = param_uses(f, params);
    let read_only: Vec<bool> = uses
        .iter()
        .map(|u| matches!(u, Use::LoadsOnly(_)))
        .collect();
    let mut out = Vec::new();
    for (index, use_) in uses.into_iter().enumerate() {
        let Use::LoadsOnly(loads) = use_ else {
            continue;
        };
        let Some(pointee) = function_pointee(module, f.dfg.value_type(params[index])) else {
            continue;
        };
        if loads.is_empty() {
            continue;
        }
        let sites_ok = graph
            .call_sites_of(func)
            .all(|site| site_passes_local(module, site.caller, site.inst, index, &read_only));
        if sites_ok {
            out.push(Param {
                index,
                pointee,
                loads,
            });
        }
    }
    out
}

/// Rules 3 and 4 at one call site.
fn site_passes_local(
    module: &Module,
    caller: Func,
    call: Inst,
    index: usize,
    read_only: &[bool],
) -> bool {
    let f = &module.functions[caller];
    let args = &f.dfg.inst(call).args;
    let Some(&arg) = args.get(index) else {
        return false;
    };
    let path = PointerPath::of(module, f, arg);
    let local = matches!(path.root, Root::Alloca(_))
        && path.space == Some(AddressSpace::Function)
        && path.path.iter().all(|i| matches!(i, PathIndex::Const(_)));
    local
        && args.iter().enumerate().all(|(j, &other)| {
            if j == index || read_only.get(j).copied().unwrap_or(false) {
                return true;
            }
            let other = PointerPath::of(module, f, other);
            other.space.is_none() || alias(&other, &path) == AliasResult::NoAlias
        })
}

/// Rewrites `func`'s `params` and every call site; returns the counters.
fn promote(
    module: &mut Module,
    graph: &CallGraph,
    func: Func,
    params: &[Param],
) -> PromoteRefArgInfo {
    let info = PromoteRefArgInfo {
        promoted_ref_arg_count: params.len() as u64,
        ..PromoteRefArgInfo::default()
    };
    if params.is_empty() {
        return info;
    }
    let f = &mut module.functions[func];
    let Some(entry) = f.entry_block() else {
        return PromoteRefArgInfo::default();
    };
    for param in params {
        let value = f.dfg.block_params(entry)[param.index];
        f.dfg.values[value].ty = param.pointee;
        f.signature.params[param.index].ty = param.pointee;
        for &load in &param.loads {
            if let Some(result) = f.dfg.inst_result(load) {
                f.dfg.replace_all_uses(result, value);
            }
            f.remove_inst(load);
        }
    }
    let sites: Vec<(Func, Inst)> = graph
        .call_sites_of(func)
        .map(|site| (site.caller, site.inst))
        .collect();
    for (caller, call) in sites {
        let c = &mut module.functions[caller];
        for param in params {
            let arg = c.dfg.inst(call).args[param.index];
            let load = c.dfg.make_inst(InstData::new(Opcode::Load, &[arg]));
            let loaded = c.dfg.make_result(load, param.pointee);
            c.layout.insert_inst_before(load, call);
            c.dfg.inst_mut(call).args[param.index] = loaded;
        }
    }
    info
}
