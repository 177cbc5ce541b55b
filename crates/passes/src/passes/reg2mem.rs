//! `reg2mem`: demotes block parameters and cross-block values to local slots — the
//! adapter before `restructure-cfg`, which needs input without block parameters (the
//! `structurize` pipeline runs this pass first; `docs/passes.md`, "Driver pipelines").
//!
//! After the pass no block other than the entry has parameters, and no instruction result
//! is used outside the block that defines it, except `alloca` results: addresses are
//! never spilled (the slots sit in the entry block; run `hoist-allocas` first to have
//! every other alloca there too). Constants, globals and entry parameters are not
//! instruction results and are not spilled.
//!
//! **Block parameters.** Each parameter of a non-entry block `B` gets a `function`-space
//! slot in the entry block, tagged `[reg2mem_spill = block_param]`. `B` loads the slot at
//! its start; the load replaces the parameter. Every edge into `B` stores its argument
//! into the slot just before the predecessor's terminator, and the edge's arguments are
//! removed. A terminator with several edges into the same block passing different
//! arguments (`cond_br v0, B(v1), B(v2)`, switch cases) cannot store before branching:
//! each of those edges is split by a new block that stores and branches to `B`
//! (`split_edge_count`); the new block is placed after the predecessor.
//!
//! Critical edges and predecessors with edges to several blocks with parameters are
//! *not* split: `P: store sB, x; store sC, y; cond_br c, B, C` is correct because a block
//! parameter's slot is read only at the start of its block and every edge into that
//! block writes it first, so a store into `sC` on a path that goes to `B` is dead, never
//! wrong. Splitting there would only add blocks for `restructure-cfg` to structure, and
//! make the stored arguments cross-block uses needing slots of their own. Since the
//! arguments are read into SSA values before any store, parallel-copy problems (swaps,
//! a loop passing its own parameters rotated) cannot arise.
//!
//! **Cross-block values.** Each instruction result used in another block gets a slot
//! tagged `[reg2mem_spill = cross_block]`, stored right after the definition and loaded in
//! each using block right before its first use there; uses in that block read the load.
//! Two kinds of values are recomputed in the using block instead of spilled
//! (`rematerialized_value_count`): `access` (a pure pointer projection) and `load`
//! through a `handle` pointer (an immutable resource descriptor), with their own operands
//! made local the same way. oxir's memory model is logical — pointers and resources are
//! not meant to live in memory — and this keeps them out of slots; the original
//! definition stays in its block (dead if nothing else uses it: `dce` removes it). A
//! pointer- or resource-typed value of any other kind (a block parameter selecting
//! between two pointers, a call result) is spilled like any other value; the verifier
//! accepts such slots, and `mem2reg` promotes the pointer ones back.
//!
//! The slots are placed at the start of the entry block, after its leading allocas, in
//! creation order: the form `hoist-allocas` leaves.
//!
//! **What it does not do.** It does not spill values used only in their own block,
//! entry parameters, allocas, constants or globals; it does not remove dead code; it
//! does not restructure. It works on plain and structured CFGs (edges are the executable
//! edges, `Payload::edges`); splitting an edge of a structured terminator makes the new
//! block the arm.
//!
//! ```text
//! block0(v0: bool):                      block0(v0: bool):
//!     cond_br v0, block1, block2(c0)         v4: ptr<function, i32> = alloca [reg2mem_spill = block_param]
//! block1:                                    store v4, c0
//!     v1: i32 = add c0, c0         =>        cond_br v0, block1, block2
//!     br block2(v1)                      block1:
//! block2(v2: i32):                           v1: i32 = add c0, c0
//!     return v2                              store v4, v1
//!                                            br block2
//!                                        block2:
//!                                            v5: i32 = load v4
//!                                            return v5
//! ```
//!
//! Counters: `lowered_block_param_count`, `lowered_cross_block_value_count` (slots for
//! cross-block values), `split_edge_count`, `rematerialized_value_count`.

use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use oxir_ir::instructions::{BlockCall, InstData, Payload};
use oxir_ir::types::TypeStore;
use oxir_ir::{
    AddressSpace, Block, Func, Function, Inst, Metadata, Module, Opcode, SpillKind, Type, TypeData,
    Value, ValueDef,
};
use smallvec::SmallVec;

pass_info! {
    pass: "reg2mem",
    /// Counters of `reg2mem`.
    pub struct Reg2MemInfo {
        /// Block parameters replaced by slots.
        lowered_block_param_count,
        /// Instruction results given a slot because another block uses them.
        lowered_cross_block_value_count,
        /// Edges split because one terminator passed different arguments to one block.
        split_edge_count,
        /// `access` and handle `load` instructions recomputed in a using block.
        rematerialized_value_count,
    }
    changed_by: [
        lowered_block_param_count,
        lowered_cross_block_value_count,
        split_edge_count,
        rematerialized_value_count,
    ]
}

/// Demotes the block parameters and cross-block values of `func`.
pub fn run_on_function(module: &mut Module, func: Func) -> Reg2MemInfo {
    let mut info = Reg2MemInfo::default();
    let Module {
        types, functions, ..
    } = module;
    let Some(function) = functions.get_mut(func) else {
        return info;
    };
    let Some(entry) = function.entry_block() else {
        return info;
    };
    let mut slots = SlotMaker::new(function, entry);
    lower_block_params(types, function, &mut slots, &mut info);
    lower_cross_block_values(types, function, &mut slots, &mut info);
    if info != Reg2MemInfo::default() {
        function.dfg.resolve_all_aliases();
    }
    info
}

/// Demotes the block parameters and cross-block values of every function with a body.
pub fn run_on_module(module: &mut Module) -> Reg2MemInfo {
    let mut info = Reg2MemInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Creates slots at the end of the entry block's leading run of allocas.
struct SlotMaker {
    entry: Block,
    /// The last alloca of the entry's leading run (the last slot made, once there is
    /// one); `None` while the run is empty. Slots go right after it, so they stay in the
    /// run whatever the pass inserts before the entry's first other instruction (the
    /// stores of its outgoing edges, when the entry holds only its terminator).
    last_alloca: Option<Inst>,
}

impl SlotMaker {
    fn new(function: &Function, entry: Block) -> Self {
        let last_alloca = function
            .layout
            .block_insts(entry)
            .take_while(|&inst| function.dfg.inst(inst).opcode == Opcode::Alloca)
            .last();
        SlotMaker { entry, last_alloca }
    }

    fn make(
        &mut self,
        types: &mut TypeStore,
        function: &mut Function,
        ty: Type,
        kind: SpillKind,
    ) -> Value {
        let pointer = types.pointer(AddressSpace::Function, ty);
        let inst = function.dfg.make_inst(InstData::new(Opcode::Alloca, &[]));
        let slot = function.dfg.make_result(inst, pointer);
        function.dfg.metadata_mut(inst).reg2mem_spill = Some(kind);
        match self.last_alloca {
            Some(last) => function.layout.insert_inst_after(inst, last),
            None => function.layout.prepend_inst(inst, self.entry),
        }
        self.last_alloca = Some(inst);
        slot
    }
}

/// A `store slot, value` that is not placed yet.
fn make_store(function: &mut Function, slot: Value, value: Value) -> Inst {
    function
        .dfg
        .make_inst(InstData::new(Opcode::Store, &[slot, value]))
}

/// A `load slot` of type `ty` that is not placed yet, and its result.
fn make_load(function: &mut Function, slot: Value, ty: Type) -> (Inst, Value) {
    let inst = function.dfg.make_inst(InstData::new(Opcode::Load, &[slot]));
    (inst, function.dfg.make_result(inst, ty))
}

/// Places `inst` before `before`, or at the end of `block` when there is no such
/// instruction (an empty block).
fn insert_before_or_append(
    function: &mut Function,
    inst: Inst,
    before: Option<Inst>,
    block: Block,
) {
    match before {
        Some(before) => function.layout.insert_inst_before(inst, before),
        None => function.layout.append_inst(inst, block),
    }
}

/// Replaces the parameters of every non-entry block by slots (see the module docs).
fn lower_block_params(
    types: &mut TypeStore,
    function: &mut Function,
    slots: &mut SlotMaker,
    info: &mut Reg2MemInfo,
) {
    let blocks: Vec<Block> = function.layout.blocks().collect();
    let param_blocks: Vec<Block> = blocks
        .iter()
        .copied()
        .filter(|&b| b != slots.entry && !function.dfg.block_params(b).is_empty())
        .collect();
    if param_blocks.is_empty() {
        return;
    }
    let mut block_slots: SecondaryMap<Block, SmallVec<[Value; 2]>> = SecondaryMap::new();
    for &block in &param_blocks {
        let params = function.dfg.block_params(block).to_vec();
        for param in params {
            let ty = function.dfg.value_type(param);
            let slot = slots.make(types, function, ty, SpillKind::BlockParam);
            block_slots[block].push(slot);
        }
    }

    for &pred in &blocks {
        lower_outgoing_edges(function, pred, &block_slots, info);
    }

    for &block in &param_blocks {
        let params = function.dfg.block_params(block).to_vec();
        // Detach every parameter first; aliasing a detached value redirects its uses.
        for index in (0..params.len()).rev() {
            function.dfg.remove_block_param(block, index);
        }
        let first = function.layout.first_inst(block);
        for (&param, &slot) in params.iter().zip(&block_slots[block]) {
            let ty = function.dfg.value_type(param);
            let (load, value) = make_load(function, slot, ty);
            insert_before_or_append(function, load, first, block);
            function.dfg.replace_all_uses(param, value);
        }
        info.lowered_block_param_count += params.len() as u64;
    }
}

/// Stores the arguments of `pred`'s edges into the slots of their targets' parameters
/// and removes the arguments, splitting edges where one terminator passes different
/// arguments to one block.
fn lower_outgoing_edges(
    function: &mut Function,
    pred: Block,
    block_slots: &SecondaryMap<Block, SmallVec<[Value; 2]>>,
    info: &mut Reg2MemInfo,
) {
    let Some(term) = function.terminator(pred) else {
        return;
    };
    let dfg = &function.dfg;
    let edges: Vec<(Block, SmallVec<[Value; 2]>)> = dfg
        .inst(term)
        .payload
        .edges()
        .iter()
        .map(|e| (e.block, e.args.iter().map(|&a| dfg.resolve(a)).collect()))
        .collect();
    // Edges into blocks with slots, grouped by target (stable: edge order within).
    let mut lowered: Vec<usize> = (0..edges.len())
        .filter(|&i| !block_slots[edges[i].0].is_empty())
        .collect();
    if lowered.is_empty() {
        return;
    }
    lowered.sort_by_key(|&i| (edges[i].0, i));
    // Per edge: the block that now splits it.
    let mut split_of: Vec<Option<Block>> = vec![None; edges.len()];
    let mut after = pred;
    for group in lowered.chunk_by(|&a, &b| edges[a].0 == edges[b].0) {
        let target = edges[group[0]].0;
        let target_slots = &block_slots[target];
        let first_args = &edges[group[0]].1;
        if group.iter().all(|&i| edges[i].1 == *first_args) {
            for (&slot, &arg) in target_slots.iter().zip(first_args) {
                let store = make_store(function, slot, arg);
                function.layout.insert_inst_before(store, term);
            }
            continue;
        }
        for &i in group {
            let split = function.dfg.make_block();
            function.layout.insert_block_after(split, after);
            after = split;
            for (&slot, &arg) in target_slots.iter().zip(&edges[i].1) {
                let store = make_store(function, slot, arg);
                function.layout.append_inst(store, split);
            }
            let jump = Payload::Jump(BlockCall::new(target));
            let br = function
                .dfg
                .make_inst(InstData::with_payload(Opcode::Br, &[], jump));
            function.layout.append_inst(br, split);
            split_of[i] = Some(split);
            info.split_edge_count += 1;
        }
    }
    let payload = &mut function.dfg.inst_mut(term).payload;
    for (edge, split) in payload.edges_mut().into_iter().zip(split_of) {
        if let Some(split) = split {
            edge.block = split;
            edge.args.clear();
        } else if !block_slots[edge.block].is_empty() {
            edge.args.clear();
        }
    }
}

/// Gives every instruction result used outside its block a slot (or recomputes it in the
/// using block); see the module docs.
fn lower_cross_block_values(
    types: &mut TypeStore,
    function: &mut Function,
    slots: &mut SlotMaker,
    info: &mut Reg2MemInfo,
) {
    let mut localizer = Localizer {
        types,
        function,
        slots,
        info,
        slot_of: SecondaryMap::new(),
        local_block: SecondaryMap::new(),
        local_value: SecondaryMap::new(),
        expanding: SecondaryMap::new(),
        generation: 0,
    };
    let blocks: Vec<Block> = localizer.function.layout.blocks().collect();
    let mut operands: SmallVec<[Value; 4]> = SmallVec::new();
    for block in blocks {
        let mut cursor = localizer.function.layout.first_inst(block);
        while let Some(inst) = cursor {
            cursor = localizer.function.layout.next_inst(inst);
            operands.clear();
            operands.extend(localizer.function.dfg.inst(inst).all_values());
            let mut rewritten = false;
            for operand in operands.iter_mut() {
                let value = localizer.function.dfg.resolve(*operand);
                if localizer.is_foreign(value, block) {
                    *operand = localizer.localize(value, block, inst);
                    rewritten = true;
                }
            }
            if rewritten {
                let mut replacements = operands.iter().copied();
                localizer.function.dfg.inst_mut(inst).map_values(|_| {
                    replacements
                        .next()
                        .expect("map_values visits what all_values listed")
                });
            }
        }
    }
}

/// Makes values of other blocks available in a block: a slot load, or a recomputation.
struct Localizer<'a> {
    types: &'a mut TypeStore,
    function: &'a mut Function,
    slots: &'a mut SlotMaker,
    info: &'a mut Reg2MemInfo,
    /// The cross-block slot of a value, once created.
    slot_of: SecondaryMap<Value, Option<Value>>,
    /// The block in which `local_value` holds the value's local copy.
    local_block: SecondaryMap<Value, PackedOption<Block>>,
    local_value: SecondaryMap<Value, Option<Value>>,
    /// `generation` while a recomputation of the value is being prepared (cycle guard).
    expanding: SecondaryMap<Value, u32>,
    generation: u32,
}

impl Localizer<'_> {
    /// Whether `value` (resolved) is an instruction result, other than an alloca, defined
    /// in a block other than `block`.
    fn is_foreign(&self, value: Value, block: Block) -> bool {
        let ValueDef::Result(def) = self.function.dfg.value_def(value) else {
            return false;
        };
        self.function.dfg.inst(def).opcode != Opcode::Alloca
            && self
                .function
                .layout
                .inst_block(def)
                .is_some_and(|b| b != block)
    }

    fn local_copy(&self, value: Value, block: Block) -> Option<Value> {
        if self.local_block[value].expand() == Some(block) {
            self.local_value[value]
        } else {
            None
        }
    }

    /// Whether `inst` may be recomputed in another block with the same result: `access`
    /// (pure) and a `load` through a `handle` pointer (resources are immutable), without
    /// semantic metadata a copy could not own.
    fn is_rematerializable(&self, inst: Inst) -> bool {
        let dfg = &self.function.dfg;
        if dfg.metadata(inst).is_some_and(Metadata::is_annotated) {
            return false;
        }
        let data = dfg.inst(inst);
        match data.opcode {
            Opcode::Access => true,
            Opcode::Load => data.args.first().is_some_and(|&p| {
                matches!(
                    self.types.try_get(dfg.value_type(p)),
                    Some(TypeData::Pointer {
                        space: AddressSpace::Handle,
                        ..
                    })
                )
            }),
            // Conservative: anything else is spilled rather than recomputed (a new pure op
            // only loses the optimisation).
            // wildcard-ok: a query about two named ops; every other op answers "no".
            _ => false,
        }
    }

    /// The local copy of `value` in `block`, created before `before` if needed. Iterative:
    /// a recomputed instruction's own foreign operands are localized first.
    fn localize(&mut self, value: Value, block: Block, before: Inst) -> Value {
        self.generation += 1;
        let generation = self.generation;
        let mut stack: Vec<(Value, bool)> = vec![(value, false)];
        while let Some((v, operands_ready)) = stack.pop() {
            if self.local_copy(v, block).is_some() {
                continue;
            }
            let ValueDef::Result(def) = self.function.dfg.value_def(v) else {
                unreachable!("only instruction results are localized")
            };
            let recompute = self.is_rematerializable(def)
                && (operands_ready || self.expanding[v] != generation);
            if !recompute {
                self.load_from_slot(v, def, block, before);
            } else if !operands_ready {
                self.expanding[v] = generation;
                stack.push((v, true));
                for &arg in &self.function.dfg.inst(def).args {
                    let arg = self.function.dfg.resolve(arg);
                    if self.is_foreign(arg, block) && self.local_copy(arg, block).is_none() {
                        stack.push((arg, false));
                    }
                }
            } else {
                self.recompute(v, def, block, before);
            }
        }
        self.local_copy(value, block)
            .expect("every localized value has a local copy")
    }

    fn load_from_slot(&mut self, value: Value, def: Inst, block: Block, before: Inst) {
        let ty = self.function.dfg.value_type(value);
        let slot = match self.slot_of[value] {
            Some(slot) => slot,
            None => {
                let slot = self
                    .slots
                    .make(self.types, self.function, ty, SpillKind::CrossBlock);
                let store = make_store(self.function, slot, value);
                self.function.layout.insert_inst_after(store, def);
                self.slot_of[value] = Some(slot);
                self.info.lowered_cross_block_value_count += 1;
                slot
            }
        };
        let (load, local) = make_load(self.function, slot, ty);
        self.function.layout.insert_inst_before(load, before);
        self.local_block[value] = block.into();
        self.local_value[value] = Some(local);
    }

    fn recompute(&mut self, value: Value, def: Inst, block: Block, before: Inst) {
        let dfg = &self.function.dfg;
        let mut data = dfg.inst(def).clone();
        for arg in data.args.iter_mut() {
            let resolved = dfg.resolve(*arg);
            if let Some(local) = self.local_copy(resolved, block) {
                *arg = local;
            }
        }
        let ty = dfg.value_type(value);
        let metadata = dfg.metadata(def).cloned();
        let copy = self.function.dfg.make_inst(data);
        let local = self.function.dfg.make_result(copy, ty);
        if let Some(metadata) = metadata {
            self.function.dfg.set_metadata(copy, metadata);
        }
        self.function.layout.insert_inst_before(copy, before);
        self.local_block[value] = block.into();
        self.local_value[value] = Some(local);
        self.info.rematerialized_value_count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    fn lower(text: &str) -> (Module, Reg2MemInfo) {
        let mut module = parse_module(text).expect("parses");
        assert!(verify_module(&module, &VerifierOptions::default()).succeeded());
        let info = run_on_module(&mut module);
        let options = VerifierOptions {
            require_no_block_params: true,
            ..VerifierOptions::default()
        };
        let report = verify_module(&module, &options);
        let text = print_module(&module, View::Flat);
        assert!(report.succeeded(), "{report}\n{text}");
        (module, info)
    }

    #[test]
    fn an_if_whose_arms_are_one_block_with_different_arguments_is_split() {
        let (module, info) = lower(
            "\
callable @f(bool, i32, i32) -> i32 {
block0(v0: bool, v1: i32, v2: i32):
    if v0, then block1(v1), else block1(v2), merge block1
block1(v3: i32):
    return v3
}
",
        );
        assert_eq!(info.split_edge_count, 2);
        assert_eq!(info.lowered_block_param_count, 1);
        let text = print_module(&module, View::Flat);
        // The arms are now the split blocks; the merge role is unchanged.
        assert!(
            text.contains("if v0, then block2, else block3, merge block1"),
            "{text}"
        );
        assert!(
            text.contains("block2:\n    store v4, v1\n    br block1\n"),
            "{text}"
        );
        assert!(
            text.contains("block3:\n    store v4, v2\n    br block1\n"),
            "{text}"
        );
    }

    #[test]
    fn an_unterminated_entry_gets_its_slots() {
        // `require_terminated_blocks` off: the entry has no terminator to anchor on, and
        // a value of the entry is used in the next block.
        let mut module = parse_module(
            "callable @f(i32) -> i32 {\nblock0(v0: i32):\n    v1: i32 = add v0, v0\nblock1:\n    return v1\n}\n",
        )
        .expect("parses");
        let info = run_on_module(&mut module);
        assert_eq!(info.lowered_cross_block_value_count, 1);
        let text = print_module(&module, View::Flat);
        assert!(
            text.contains("block0(v0: i32):\n    v2: ptr<function, i32> = alloca [reg2mem_spill = cross_block]\n    v1: i32 = add v0, v0\n    store v2, v1\nblock1:\n    v3: i32 = load v2\n"),
            "{text}"
        );
    }
}
