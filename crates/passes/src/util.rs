//! Small queries shared by passes. Control-flow dispatch matches the op table's
//! [`oxir_ir::TerminatorOp`] (`Opcode::terminator_op`) exhaustively.

use oxir_ir::{Func, Function, Inst, Module};

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

/// The placed non-terminator instructions of `func` without semantic metadata
/// ([`oxir_ir::Metadata::is_annotated`]), in layout order: what local rewriting passes
/// (`const-fold`, `algebraic-simplify`) may replace. `None` for a declaration.
pub fn rewritable_instructions(module: &Module, func: Func) -> Option<Vec<Inst>> {
    let f = module.functions.get(func)?;
    if !f.is_definition() {
        return None;
    }
    Some(
        f.layout
            .blocks()
            .flat_map(|b| f.layout.block_insts(b))
            .filter(|&i| {
                !f.dfg.inst(i).opcode.is_terminator()
                    && !f.dfg.metadata(i).is_some_and(|md| md.is_annotated())
            })
            .collect(),
    )
}
