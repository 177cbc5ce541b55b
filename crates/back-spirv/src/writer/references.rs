//! What the module's code refers to, so that the writer declares only that: a global
//! variable no placed instruction of any function names, and an entry parameter no placed
//! instruction uses, are not written (no `OpVariable`, no decorations, no `OpLoad`).
//!
//! Dropping them never changes what a shader computes: an unreferenced variable is
//! unobservable, and Vulkan lets a pipeline layout hold bindings a stage does not
//! declare and a stage leave an input it does not read undeclared (an unread vertex
//! attribute, or a fragment input the vertex stage writes) — except inputs whose mere
//! declaration makes a fragment shader run per sample, which stay (`interface`).
//! Reflection (`oxir reflect`)
//! reads the oxir module, not this output, so it still lists every declared binding.
//!
//! Instructions not placed in a block of the layout are not written, so what only they
//! name is not referenced. Values are resolved through aliases first.

use cranelift_entity::SecondaryMap;
use oxir_ir::{Function, Global, Module, Value, ValueDef};

/// The values the placed instructions of `f` use (operands and edge arguments), after
/// alias resolution.
pub(super) fn used_values(f: &Function) -> SecondaryMap<Value, bool> {
    let mut used = SecondaryMap::new();
    for block in f.layout.blocks() {
        for inst in f.layout.block_insts(block) {
            for v in f.dfg.inst(inst).all_values() {
                used[f.resolve(v)] = true;
            }
        }
    }
    used
}

/// The globals some placed instruction of some function of `m` names.
pub(super) fn referenced_globals(m: &Module) -> SecondaryMap<Global, bool> {
    let mut referenced = SecondaryMap::new();
    for f in m.functions.values() {
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                for v in f.dfg.inst(inst).all_values() {
                    match f.dfg.value_def(f.resolve(v)) {
                        ValueDef::Global(g) => referenced[g] = true,
                        ValueDef::Result(_)
                        | ValueDef::Param(..)
                        | ValueDef::Const(_)
                        | ValueDef::Alias(_)
                        | ValueDef::Detached => {}
                    }
                }
            }
        }
    }
    referenced
}
