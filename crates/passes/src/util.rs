//! Small queries shared by passes. Control-flow dispatch matches the op table's
//! [`oxir_ir::TerminatorOp`] (`Opcode::terminator_op`) exhaustively.

use oxir_ir::{Func, Function, Module};

/// Whether `func` has any structured terminator (`if`, `loop`, `simple_loop`, `switch`) or
/// `break` / `continue` in its layout. Passes that need a plain CFG check this first.
pub fn contains_structured_control_flow(func: &Function) -> bool {
    func.layout.blocks().any(|b| {
        func.terminator(b).is_some_and(|t| {
            let op = func.dfg.inst(t).opcode;
            op.is_structured() || op.is_structured_exit()
        })
    })
}

/// The functions of `module` that have bodies, in index order.
pub fn definitions(module: &Module) -> Vec<Func> {
    module
        .functions
        .iter()
        .filter(|(_, f)| f.is_definition() && f.layout.entry_block().is_some())
        .map(|(k, _)| k)
        .collect()
}
