//! Small queries and edits shared by passes. Control-flow dispatch matches the op table's
//! [`oxir_ir::TerminatorOp`] (`Opcode::terminator_op`) exhaustively.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
use oxir_ir::instructions::InstData;
use oxir_ir::ops::TypeRule;
use oxir_ir::{Block, Func, Function, Global, GlobalData, Inst, Module, ValueDef};
use smallvec::SmallVec;

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

/// Deletes the globals `remove` accepts and returns how many. Globals live in a
/// `PrimaryMap`, which cannot remove, so the arena is rebuilt in index order without them
/// and every function's global addresses are renumbered
/// ([`oxir_ir::DataFlowGraph::remap_globals`]); the address values of deleted globals are
/// detached, so no placed instruction may still use them. The text form names globals,
/// so the printed module changes exactly by the deleted `global` lines.
pub fn remove_globals(module: &mut Module, remove: impl Fn(Global) -> bool) -> u64 {
    let removed = module.globals.keys().filter(|&g| remove(g)).count();
    if removed == 0 {
        return 0;
    }
    let old = std::mem::take(&mut module.globals);
    let mut renumbered: SecondaryMap<Global, PackedOption<Global>> = SecondaryMap::new();
    let mut globals: PrimaryMap<Global, GlobalData> =
        PrimaryMap::with_capacity(old.len() - removed);
    for (g, data) in old {
        if !remove(g) {
            renumbered[g] = globals.push(data).into();
        }
    }
    module.globals = globals;
    for function in module.functions.values_mut() {
        function
            .dfg
            .remap_globals(|g| renumbered.get(g).and_then(|n| n.expand()));
    }
    removed as u64
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

/// A `SecondaryMap` that already holds a default entry for every key below `len`, so
/// that writing to it never grows it (cranelift's `IndexMut` resizes at every new
/// largest key otherwise). Size it by the key's entity count in the function:
/// `dfg.num_insts()`, `dfg.values.len()`, `dfg.blocks.len()`.
pub fn dense_map<K: EntityRef, V: Clone + Default>(len: usize) -> SecondaryMap<K, V> {
    let mut map = SecondaryMap::with_capacity(len);
    map.resize(len);
    map
}

/// One edge into a block: the terminator and the edge's index in its payload.
pub type EdgeRef = (Inst, usize);

/// The edges into each block, from the terminators of blocks placed in the layout, in
/// layout and edge order (a terminator naming a block twice contributes two edges).
pub fn incoming_edges(func: &Function) -> SecondaryMap<Block, SmallVec<[EdgeRef; 2]>> {
    let mut incoming: SecondaryMap<Block, SmallVec<[EdgeRef; 2]>> =
        dense_map(func.dfg.blocks.len());
    for block in func.layout.blocks() {
        let Some(term) = func.terminator(block) else {
            continue;
        };
        for (index, edge) in func.dfg.inst(term).payload.edges().iter().enumerate() {
            incoming[edge.block].push((term, index));
        }
    }
    incoming
}

/// Removes parameter `k` of `block` and argument `k` of each edge of `incoming` (the
/// edges into `block`; an edge with too few arguments is left as it is).
pub fn remove_block_param(func: &mut Function, block: Block, k: usize, incoming: &[EdgeRef]) {
    func.dfg.remove_block_param(block, k);
    for &(term, index) in incoming {
        let mut edges = func.dfg.inst_mut(term).payload.edges_mut();
        if let Some(edge) = edges.get_mut(index).filter(|e| k < e.args.len()) {
            edge.args.remove(k);
        }
    }
}

/// Whether an index operand of `access`, `extract_dynamic` or `insert_dynamic` is not a
/// module constant: such an instruction may be lowered to an address computation that
/// is undefined out of range, so passes do not speculate it.
pub fn has_dynamic_index(func: &Function, data: &InstData) -> bool {
    let indices = match data.opcode.info().rule {
        TypeRule::Access => data.args.get(1..),
        TypeRule::ExtractDynamic => data.args.get(1..2),
        TypeRule::InsertDynamic => data.args.get(2..3),
        // wildcard-ok: only the three indexing rules have index operands.
        _ => None,
    };
    indices.unwrap_or(&[]).iter().any(|&v| {
        let v = func.dfg.resolve(v);
        !(func.dfg.value_is_valid(v) && matches!(func.dfg.value_def(v), ValueDef::Const(_)))
    })
}
