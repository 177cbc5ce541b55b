//! `dead-global-elim`: deletes the `private` and `workgroup` globals nothing reads, with
//! the stores and `access`es that write them.
//!
//! A global is dead when, in every function of the module, each use of a pointer into it
//! is the address of a `store` or the base of an `access` (see
//! [`crate::analysis::global_uses`]) and none of those carries semantic metadata. No load,
//! atomic, `workgroup_uniform_load`, call argument, edge argument or any other use: then
//! nothing can observe what the stores write. That holds for `workgroup` globals too: the
//! memory is shared by the workgroup, but another invocation could only read it through a
//! load of the same global, and the host never sees workgroup memory. A global no placed
//! instruction names at all is dead as well. Its stores and accesses are removed from
//! every function (`removed_store_count`, `removed_access_count`) and the global is
//! deleted from the module (the global arena is rebuilt: [`crate::util::remove_globals`];
//! `removed_global_count`). The pass works on structured and plain CFGs alike: it removes
//! no terminator.
//!
//! This is a module-level pass: a global's uses span every function, so there is only
//! `run_on_module`.
//!
//! **What it does not do.** Bound resources (`storage`, `uniform`, `handle`) and
//! `push_constant` globals are the pipeline's interface and always stay, used or not. A
//! global written with an atomic is kept (an atomic reads). It does not remove the index
//! computations or stored values that become unused (`dce` does), does not remove
//! individual dead stores of a global that is also read (dead-store elimination), and does
//! not look through pointers passed to calls or block parameters (those keep the global).
//!
//! ```text
//! global @scratch: workgroup i32         kernel @main() workgroup_size(1, 1, 1) {
//! kernel @main() workgroup_size(1,1,1) { block0:
//! block0:                          ==>       return
//!     store @scratch, c0                 }
//!     return
//! }
//! ```
//!
//! Counters: `removed_global_count`, `removed_store_count`, `removed_access_count`.

use crate::analysis::global_uses::function_global_uses;
use crate::pass_info;
use crate::util::{definitions, remove_globals};
use cranelift_entity::SecondaryMap;
use oxir_ir::{AddressSpace, Global, Inst, Module};

pass_info! {
    pass: "dead-global-elim",
    /// Counters of `dead-global-elim`.
    pub struct DeadGlobalElimInfo {
        /// Private and workgroup globals deleted.
        removed_global_count,
        /// Stores into deleted globals removed.
        removed_store_count,
        /// `access`es into deleted globals removed.
        removed_access_count,
    }
    changed_by: [removed_global_count, removed_store_count, removed_access_count]
}

/// Deletes every dead private and workgroup global with the stores and accesses into it.
pub fn run_on_module(module: &mut Module) -> DeadGlobalElimInfo {
    let mut info = DeadGlobalElimInfo::default();
    let mut dead: SecondaryMap<Global, bool> = SecondaryMap::new();
    for (g, data) in module.globals.iter() {
        dead[g] = match data.space {
            AddressSpace::Private | AddressSpace::Workgroup => true,
            AddressSpace::Function
            | AddressSpace::Storage(_)
            | AddressSpace::Uniform
            | AddressSpace::PushConstant
            | AddressSpace::Handle => false,
        };
    }
    let functions = definitions(module);
    let mut doomed: Vec<(oxir_ir::Func, Vec<Inst>)> = Vec::new();
    let mut per_function = Vec::with_capacity(functions.len());
    for &f in &functions {
        let uses = function_global_uses(&module.functions[f]);
        for g in module.globals.keys() {
            dead[g] &= uses.of(g).is_write_only();
        }
        per_function.push((f, uses));
    }
    for (f, uses) in per_function {
        let mut insts = Vec::new();
        for g in module.globals.keys().filter(|&g| dead[g]) {
            let u = uses.of(g);
            info.removed_store_count += u.stores.len() as u64;
            info.removed_access_count += u.accesses.len() as u64;
            insts.extend_from_slice(&u.stores);
            insts.extend_from_slice(&u.accesses);
        }
        if !insts.is_empty() {
            doomed.push((f, insts));
        }
    }
    for (f, insts) in doomed {
        let function = &mut module.functions[f];
        for inst in insts {
            function.remove_inst(inst);
        }
    }
    info.removed_global_count = remove_globals(module, |g| dead[g]);
    info
}
