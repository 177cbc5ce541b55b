//! `private-to-function`: turns `private` globals into function-space allocas of the entry
//! points that use them, so that `mem2reg` can promote them.
//!
//! **Why this is sound.** Private memory is per invocation: every invocation of an entry
//! point starts with its own copy of each private global, at the global's initializer
//! (the interpreter's rule and WGSL's: a private global without one starts zeroed). An
//! entry point cannot be called (the verifier rejects such a call), so one run of its body
//! is one invocation. When every function that names a private global is an entry point,
//! each of them may therefore hold the variable in a slot of its own: an `alloca` at the
//! top of its entry block, followed by a store of the initializer (or of `zero` when the
//! global has none). Entry points that share a global get one slot each. After inlining
//! (the `normalize` pipeline), that is every private global of a typical shader.
//!
//! **When a global is promoted in an entry point.** It is `private`; no function other than
//! an entry point (a callable that was not inlined, even one nothing calls) names it; and
//! every use in that entry point is a `load` or `store` address or an `access` base
//! (directly or through an `access` chain; see [`crate::analysis::global_uses`]). A pointer
//! into the global that escapes — passed as an edge argument, to a call, `select`, stored
//! as a value — keeps the global in that entry point (`skipped_escaping_global_count`, one
//! per global and entry point): the pointer's type would have to change along paths this
//! pass does not rewrite. A global named by a callable is kept everywhere
//! (`skipped_callable_global_count`, one per global).
//!
//! **The rewrite.** The global's address value in the entry point becomes the alloca's
//! result (it keeps its value number), and the result type of every `access` on it changes
//! from `ptr<private, T>` to `ptr<function, T>`; loads and stores are untouched. Allocas
//! and their initializing stores are placed at the start of the entry block, in global
//! order. A global promoted in every function that named it is deleted from the module
//! (the global arena is rebuilt: [`crate::util::remove_globals`];
//! `removed_global_count`). `run_on_function` promotes in one entry point and deletes a
//! global only when no other function names it.
//!
//! **What it does not do.** It does not promote `workgroup` globals (shared by the
//! workgroup) or bound resources, does not promote the slot to SSA values (`mem2reg` does;
//! run it after this pass) and does not split aggregates. It does not delete unused
//! private globals it did not promote (`dead-global-elim` does).
//!
//! ```text
//! global @k: private i32 = c1            kernel @main() workgroup_size(1, 1, 1) {
//! kernel @main() workgroup_size(1,1,1) { block0:
//! block0:                          ==>       v1: ptr<function, i32> = alloca
//!     v0: i32 = load @k                      store v1, c1
//!     return                                 v0: i32 = load v1
//! }                                          return
//!                                        }
//! ```
//!
//! Counters: `promoted_global_count` (allocas created: one per global and entry point),
//! `removed_global_count`, and the `skipped_*` counts above.

use crate::analysis::global_uses::{function_global_uses, FunctionGlobalUses, GlobalUse};
use crate::pass_info;
use crate::util::{definitions, remove_globals};
use cranelift_entity::SecondaryMap;
use oxir_ir::{
    AddressSpace, Func, Global, Inst, InstData, Module, Opcode, Type, TypeData, ValueDef,
};

pass_info! {
    pass: "private-to-function",
    /// Counters of `private-to-function`.
    pub struct PrivateToFunctionInfo {
        /// Allocas created: one per promoted global and entry point.
        promoted_global_count,
        /// Globals deleted because no function names them after promotion.
        removed_global_count,
        /// (Global, entry point) pairs kept because a pointer into the global escapes.
        skipped_escaping_global_count,
        /// Private globals kept because a function other than an entry point names them.
        skipped_callable_global_count,
    }
    changed_by: [promoted_global_count, removed_global_count]
}

/// Promotes the private globals of every entry point and deletes those no function names
/// any more.
pub fn run_on_module(module: &mut Module) -> PrivateToFunctionInfo {
    let entry_points: Vec<Func> = definitions(module)
        .into_iter()
        .filter(|&f| module.functions[f].kind.is_entry_point())
        .collect();
    promote_in(module, &entry_points)
}

/// Promotes the private globals of `func` when it is an entry point; deletes a promoted
/// global when no other function names it.
pub fn run_on_function(module: &mut Module, func: Func) -> PrivateToFunctionInfo {
    let is_entry_point = module
        .functions
        .get(func)
        .is_some_and(|f| f.kind.is_entry_point() && f.entry_block().is_some());
    if !is_entry_point {
        return PrivateToFunctionInfo::default();
    }
    promote_in(module, &[func])
}

/// Promotes in each of `targets` (entry points with bodies), then deletes the promoted
/// globals that no function names.
fn promote_in(module: &mut Module, targets: &[Func]) -> PrivateToFunctionInfo {
    let mut info = PrivateToFunctionInfo::default();
    let all = definitions(module);
    let mut uses: SecondaryMap<Func, FunctionGlobalUses> = SecondaryMap::new();
    for &f in &all {
        uses[f] = function_global_uses(&module.functions[f]);
    }
    // Private globals some non-entry function names are kept everywhere.
    let mut named_by_callable: SecondaryMap<Global, bool> = SecondaryMap::new();
    for &f in all
        .iter()
        .filter(|&&f| !module.functions[f].kind.is_entry_point())
    {
        for g in module.globals.keys() {
            named_by_callable[g] |= uses[f].of(g).is_referenced();
        }
    }
    let private: Vec<Global> = module
        .globals
        .iter()
        .filter(|(_, data)| data.space == AddressSpace::Private)
        .map(|(g, _)| g)
        .collect();
    info.skipped_callable_global_count = private
        .iter()
        .filter(|&&g| {
            named_by_callable[g] && targets.iter().any(|&f| uses[f].of(g).is_referenced())
        })
        .count() as u64;
    let mut promoted: SecondaryMap<Global, bool> = SecondaryMap::new();
    let mut still_named: SecondaryMap<Global, bool> = SecondaryMap::new();
    for &f in &all {
        let is_target = targets.contains(&f);
        for &g in &private {
            let u = uses[f].of(g);
            if !u.is_referenced() {
                continue;
            }
            if !is_target || named_by_callable[g] {
                still_named[g] = true;
            } else if u.escapes > 0 {
                info.skipped_escaping_global_count += 1;
                still_named[g] = true;
            } else {
                promoted[g] = true;
            }
        }
    }
    for &f in targets {
        let chosen: Vec<Global> = private
            .iter()
            .copied()
            .filter(|&g| {
                let u = uses[f].of(g);
                !named_by_callable[g] && u.is_referenced() && u.escapes == 0
            })
            .collect();
        info.promoted_global_count += chosen.len() as u64;
        promote_globals(module, f, &chosen, &uses[f]);
    }
    info.removed_global_count = remove_globals(module, |g| promoted[g] && !still_named[g]);
    info
}

/// Replaces each of `globals` in `func` by an initialized alloca at the start of the entry
/// block. `uses` are `func`'s uses from before the rewrite.
fn promote_globals(module: &mut Module, func: Func, globals: &[Global], uses: &FunctionGlobalUses) {
    let mut previous: Option<Inst> = None;
    let Some(entry) = module.functions[func].entry_block() else {
        return;
    };
    for &g in globals {
        let use_of_g = uses.of(g);
        // A referenced global has an address value; nothing is created without one.
        let Some(&primary) = use_of_g.roots.first() else {
            continue;
        };
        let (ty, init) = (module.globals[g].ty, module.globals[g].init);
        let init = init.unwrap_or_else(|| module.const_zero(ty));
        let slot_ty = module.types.pointer(AddressSpace::Function, ty);
        let access_types = retyped_accesses(module, func, use_of_g);
        let function = &mut module.functions[func];
        // The address keeps its number: it becomes the alloca's result.
        let cached = function.dfg.take_global_value(g);
        let primary = cached
            .filter(|&v| function.dfg.values[v].def == ValueDef::Global(g))
            .unwrap_or(primary);
        for &other in use_of_g.roots.iter().filter(|&&v| v != primary) {
            function.dfg.replace_all_uses(other, primary);
        }
        let alloca = function.dfg.make_inst(InstData::new(Opcode::Alloca, &[]));
        function.dfg.attach_result(alloca, primary, slot_ty);
        for (access, ty) in access_types {
            if let Some(r) = function.dfg.inst_result(access) {
                function.dfg.values[r].ty = ty;
            }
        }
        let init_value = function.dfg.const_value(init, ty);
        let store = function
            .dfg
            .make_inst(InstData::new(Opcode::Store, &[primary, init_value]));
        match previous {
            Some(after) => function.layout.insert_inst_after(alloca, after),
            None => function.layout.prepend_inst(alloca, entry),
        }
        function.layout.insert_inst_after(store, alloca);
        previous = Some(store);
    }
}

/// The `function`-space result type of every `access` on the global: the same pointee.
fn retyped_accesses(module: &mut Module, func: Func, uses: &GlobalUse) -> Vec<(Inst, Type)> {
    let dfg = &module.functions[func].dfg;
    let pointees: Vec<(Inst, Type)> = uses
        .accesses
        .iter()
        .filter_map(|&access| {
            let r = dfg.inst_result(access)?;
            // A malformed access (the verifier rejects it) keeps its type.
            let &TypeData::Pointer { pointee, .. } = module.types.try_get(dfg.value_type(r))?
            else {
                return None;
            };
            Some((access, pointee))
        })
        .collect();
    pointees
        .into_iter()
        .map(|(access, pointee)| {
            (
                access,
                module.types.pointer(AddressSpace::Function, pointee),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PassInfo;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    const SHARED: &str = "
const c0: u32 = 0
global @g: private u32
global @out: storage(read_write) array<u32> binding(0, 0)
kernel @a() workgroup_size(1, 1, 1) {
block0:
    v0: u32 = load @g
    v1: ptr<storage(read_write), u32> = access @out, c0
    store v1, v0
    return
}
kernel @b() workgroup_size(1, 1, 1) {
block0:
    store @g, c0
    return
}
";

    #[test]
    fn run_on_function_keeps_a_global_another_entry_point_names() {
        let mut m = parse_module(SHARED).unwrap();
        let [a, b] = ["a", "b"].map(|n| m.function_by_name(n).unwrap());
        let info = run_on_function(&mut m, a);
        assert_eq!(
            (info.promoted_global_count, info.removed_global_count),
            (1, 0)
        );
        assert!(info.changed());
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
        let text = print_module(&m, View::Flat);
        assert!(text.contains("global @g: private u32"), "{text}");
        assert!(
            text.contains("v0: u32 = load v2"),
            "@a reads its slot: {text}"
        );
        assert!(
            text.contains("store @g, c0"),
            "@b still uses the global: {text}"
        );
        // Now @b is the last user: the global goes.
        let info = run_on_function(&mut m, b);
        assert_eq!(
            (info.promoted_global_count, info.removed_global_count),
            (1, 1)
        );
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
        let text = print_module(&m, View::Flat);
        assert!(!text.contains("@g"), "{text}");
        assert_eq!(run_on_module(&mut m), PrivateToFunctionInfo::default());
    }

    #[test]
    fn run_on_function_ignores_callables() {
        let mut m = parse_module(
            "
global @g: private u32
callable @f() -> u32 {
block0:
    v0: u32 = load @g
    return v0
}
",
        )
        .unwrap();
        let f = m.function_by_name("f").unwrap();
        assert_eq!(run_on_function(&mut m, f), PrivateToFunctionInfo::default());
        let info = run_on_module(&mut m);
        assert_eq!(
            info.skipped_callable_global_count, 0,
            "no entry point uses it"
        );
        assert!(!info.changed());
    }
}
