//! `simplify-cfg`: cleans up a plain control-flow graph.
//!
//! Five rewrites, applied from one worklist until none applies (a fixed point inside the
//! pass, not repeated full rescans):
//!
//! 1. **Constant `cond_br`**: a `cond_br` whose condition is a `bool` constant becomes a
//!    `br` to the taken side, with that side's arguments; so does a `cond_br` whose two
//!    edges are identical (same block, same arguments after alias resolution).
//! 2. **Constant `switch_br`**: a `switch_br` whose selector is a constant becomes a `br`
//!    to the matching case, or to the default when no label matches; so does a `switch_br`
//!    whose edges are all identical.
//! 3. **Empty forwarding blocks** are threaded: for a block `F` that is not the entry, has
//!    no parameters and holds only `br T(args)` (with `T != F`), an edge into `F` is
//!    retargeted to `T(args)`. `F` is removed once no edge enters it.
//! 4. **Straight-line chains** are merged: when `A` ends in `br B(args)` and that is the
//!    only edge into `B` (`B` not the entry, `B != A`), `B`'s parameters become aliases of
//!    `args`, `B`'s instructions move to the end of `A`, and `B` is removed.
//! 5. **Unreachable blocks** (not reachable from the entry through executable edges) are
//!    removed.
//!
//! ## Why threading keeps SSA valid
//!
//! `F` has no parameters and no instruction but its `br`, so every argument `a` of that
//! `br` is a constant, a global, or a value defined in a block `D != F`. If `F` is
//! reachable, `D` dominates `F` (the verifier demands it). For a predecessor `P` of `F`,
//! every path from the entry to `P` extends by the edge `P -> F` to a path to `F`, which
//! passes `D`; since `D != F`, `D` lies on the part that reaches `P`, so `D` dominates `P`
//! (or is `P`, and edge arguments are used at the end of their source block). So `a` is
//! still available on the retargeted edge `P -> T(a)`. Retargeting also preserves every
//! other dominance relation: each new path `... P -> T ...` is an old path with `F`
//! deleted, and `F` defines nothing. If `F` is unreachable (it can become so while the
//! worklist runs), so are all its predecessors: their uses are not dominance-checked, and
//! they are removed before the pass ends.
//!
//! Threading works per terminator, in one pass over its edges, and skips every edge into
//! a target the terminator would then enter with different arguments (`T` having
//! parameters): one terminator with two edges into `T` carrying different arguments is a
//! critical edge the back-ends must split again. It also skips an edge when `T` is itself
//! an empty forwarding block: chains are threaded from their end, and a cycle of empty
//! blocks (an empty infinite loop) is left alone instead of bouncing edges around it. An
//! edge that is a predecessor's `br` and the only edge into `F` is left to chain merging,
//! which runs first and produces the same code (the counters then say "merged").
//!
//! ## The worklist
//!
//! Every block is visited once in layout order (first in, first out); a visit folds,
//! merges and threads the block's own terminator until nothing applies. A block is visited
//! again only when something it depends on changed: its incoming edge count dropped (to
//! zero it is removed, to one its predecessor may absorb it), a successor's terminator
//! changed (the successor may have become, or stopped being, an empty forwarding block),
//! a merge moved new successors under it, or a merge turned a block parameter its
//! terminator reads into an alias (a condition may now be constant, arguments may now
//! agree). For the last, a terminator that could not fold or thread because of a block
//! parameter *watches* that parameter. Incoming edge counts are maintained exactly;
//! predecessor lists are kept lazily and validated on use.
//!
//! ## Why merging and folding keep SSA valid
//!
//! Merging: `A` is `B`'s only predecessor, so `A` dominates `B` and everything `B`
//! dominated; values of `B` keep dominating their uses from their new place at the end of
//! `A`. Folding only removes edges, which can only make dominance grow for blocks that stay
//! reachable; blocks that become unreachable are removed.
//!
//! ## What it does not do
//!
//! - **Structured control flow is left alone**: a function with any `if`, `loop`,
//!   `simple_loop`, `switch`, `break` or `continue` is skipped unchanged and counted in
//!   `skipped_structured_function_count` (the pass does not refuse; merges and roles are
//!   not edges and would need a different set of rules).
//! - It does not fold conditions that are `undef` or computed (constant folding is
//!   `sccp`'s / `const-fold`'s job), does not remove or merge block parameters (that is
//!   `phi-cleanup`), does not hoist or sink instructions, and does not look inside switch
//!   cases (case boundaries are opaque).
//! - It keeps a `br` carrying semantic metadata (`Metadata::is_annotated`): such a block is
//!   neither merged away nor threaded. Presentation metadata on a removed `br` is dropped.
//! - Merging moves instructions with `Layout::split_block_at`, O(moved instructions). A
//!   block that absorbs a chain and is itself merged later moves again; the worklist visits
//!   blocks in layout order and merges forward first, so chains are normally moved once.
//! - Unreachable *cycles* are found by a full reachability walk when the worklist is empty
//!   (a block in such a cycle never drops to zero incoming edges); the worklist resumes if
//!   it removed anything. A function where each such removal enables a fold that cuts off
//!   the next cycle pays one walk per cycle.
//!
//! ## Example
//!
//! ```text
//! callable @f(i32) -> i32 {           callable @f(i32) -> i32 {
//! block0(v0: i32):                    block0(v0: i32):
//!     cond_br c0, block1, block2          v1: i32 = add v0, v0
//! block1:                      ==>        return v1
//!     br block3(v0)                   }
//! block2:
//!     br block3(c1)
//! block3(v2: i32):
//!     v1: i32 = add v2, v2
//!     return v1
//! }
//! ```
//! (`c0` is `true`: the `cond_br` folds, `block2` becomes unreachable, and `block1` and
//! `block3` merge into the entry, `v2` becoming an alias of `v0`.)

use crate::pass_info;
use crate::util::{contains_structured_control_flow, definitions};
use cranelift_entity::SecondaryMap;
use oxir_ir::constants::ConstStore;
use oxir_ir::types::TypeStore;
use oxir_ir::TerminatorOp;
use oxir_ir::{
    Block, BlockCall, ConstKind, Func, Function, Inst, Module, Opcode, Payload, TypeData, Value,
    ValueDef,
};
use std::collections::VecDeque;

pass_info! {
    pass: "simplify-cfg",
    /// Counters of `simplify-cfg`.
    pub struct SimplifyCfgInfo {
        /// `cond_br` turned into `br`: constant condition or identical edges.
        folded_constant_cond_br_count,
        /// `switch_br` turned into `br`: constant selector or identical edges.
        folded_switch_count,
        /// Empty forwarding blocks at least one edge was retargeted past (each counted
        /// once; one that loses every edge this way is removed without counting again).
        threaded_empty_block_count,
        /// Blocks merged into their only predecessor.
        merged_straight_line_count,
        /// Blocks removed because no path from the entry reaches them.
        removed_unreachable_block_count,
        /// Functions left alone because they hold structured control flow.
        skipped_structured_function_count,
    }
    changed_by: [
        folded_constant_cond_br_count,
        folded_switch_count,
        threaded_empty_block_count,
        merged_straight_line_count,
        removed_unreachable_block_count,
    ]
}

/// Runs `simplify-cfg` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> SimplifyCfgInfo {
    let mut info = SimplifyCfgInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `simplify-cfg` on one function. Declarations and functions with structured
/// control flow are left unchanged (the latter counted as skipped).
pub fn run_on_function(module: &mut Module, func: Func) -> SimplifyCfgInfo {
    let mut info = SimplifyCfgInfo::default();
    let Module {
        types,
        consts,
        functions,
        ..
    } = module;
    let Some(function) = functions.get_mut(func) else {
        return info;
    };
    let Some(entry) = function.entry_block() else {
        return info;
    };
    if !function.is_definition() {
        return info;
    }
    if contains_structured_control_flow(function) {
        info.skipped_structured_function_count = 1;
        return info;
    }
    let constants = Constants { types, consts };
    Simplifier::new(function, constants, entry, &mut info).run();
    info
}

/// Read access to the module's constants while the function is borrowed mutably.
struct Constants<'a> {
    types: &'a TypeStore,
    consts: &'a ConstStore,
}

impl Constants<'_> {
    /// The canonical bits of `value` when it is a scalar constant (`undef` is not).
    fn scalar_bits(&self, func: &Function, value: Value) -> Option<u64> {
        let ValueDef::Const(c) = func.dfg.value_def(value) else {
            return None;
        };
        let data = self.consts.try_get(c)?;
        let TypeData::Scalar(_) = self.types.try_get(data.ty)? else {
            return None;
        };
        match &data.kind {
            ConstKind::Scalar(bits) => Some(*bits),
            ConstKind::Zero => Some(0),
            ConstKind::Undef | ConstKind::Composite(_) => None,
        }
    }
}

/// Whether two edges are the same: same target, same arguments after alias resolution.
fn same_edge(func: &Function, a: &BlockCall, b: &BlockCall) -> bool {
    a.block == b.block
        && a.args.len() == b.args.len()
        && a.args
            .iter()
            .zip(&b.args)
            .all(|(&x, &y)| func.resolve(x) == func.resolve(y))
}

struct Simplifier<'a> {
    func: &'a mut Function,
    constants: Constants<'a>,
    info: &'a mut SimplifyCfgInfo,
    entry: Block,
    /// Executable edges (duplicates counted) into each block from blocks in the layout.
    edge_count: SecondaryMap<Block, u32>,
    /// Blocks that may have an edge into each block. Entries go stale when edges move and
    /// may repeat; [`Simplifier::predecessors`] validates and compacts them.
    pred_candidates: SecondaryMap<Block, Vec<Block>>,
    /// First in, first out: a block pushed by many changes is visited once, after them
    /// (a `switch_br` into many forwarding blocks is threaded in one pass).
    worklist: VecDeque<Block>,
    queued: SecondaryMap<Block, bool>,
    /// Blocks whose terminator reads block parameters that, once aliased by a merge, may
    /// let it fold or thread (see [`Simplifier::watch_parameters`]).
    watchers: SecondaryMap<Value, Vec<Block>>,
    /// Forwarding blocks at least one edge was threaded past (counted once).
    threaded: SecondaryMap<Block, bool>,
    /// Epoch stamps, so per-query sets need no clearing: predecessor deduplication
    /// (`stamp`) and per-terminator target grouping when threading (`target_stamp`,
    /// `first_edge`, `conflict_stamp`).
    stamp: SecondaryMap<Block, u32>,
    target_stamp: SecondaryMap<Block, u32>,
    first_edge: SecondaryMap<Block, u32>,
    conflict_stamp: SecondaryMap<Block, u32>,
    epoch: u32,
}

impl<'a> Simplifier<'a> {
    fn new(
        func: &'a mut Function,
        constants: Constants<'a>,
        entry: Block,
        info: &'a mut SimplifyCfgInfo,
    ) -> Self {
        let mut edge_count = SecondaryMap::new();
        let mut pred_candidates: SecondaryMap<Block, Vec<Block>> = SecondaryMap::new();
        for block in func.layout.blocks() {
            for target in func.successors(block) {
                if func.layout.is_block_inserted(target) {
                    edge_count[target] += 1;
                    pred_candidates[target].push(block);
                }
            }
        }
        Simplifier {
            func,
            constants,
            info,
            entry,
            edge_count,
            pred_candidates,
            worklist: VecDeque::new(),
            queued: SecondaryMap::new(),
            watchers: SecondaryMap::new(),
            threaded: SecondaryMap::new(),
            stamp: SecondaryMap::new(),
            target_stamp: SecondaryMap::new(),
            first_edge: SecondaryMap::new(),
            conflict_stamp: SecondaryMap::new(),
            epoch: 0,
        }
    }

    fn run(&mut self) {
        self.sweep_unreachable();
        let blocks: Vec<Block> = self.func.layout.blocks().collect();
        for block in blocks {
            self.push(block);
        }
        loop {
            while let Some(block) = self.worklist.pop_front() {
                self.queued[block] = false;
                if self.func.layout.is_block_inserted(block) {
                    self.visit(block);
                }
            }
            // Unreachable cycles never drop to zero incoming edges; find them by a full
            // reachability walk. Removing one pushes its successors, so repeat.
            if !self.sweep_unreachable() {
                break;
            }
        }
    }

    fn push(&mut self, block: Block) {
        if !self.queued[block] {
            self.queued[block] = true;
            self.worklist.push_back(block);
        }
    }

    fn terminator(&self, block: Block) -> Option<Inst> {
        self.func.terminator(block)
    }

    /// One edge into `target` went away. At zero `target` is removed when visited; at one,
    /// its remaining predecessor may absorb it.
    fn drop_edge(&mut self, target: Block) {
        self.edge_count[target] = self.edge_count[target].saturating_sub(1);
        self.push(target);
        if self.edge_count[target] == 1 {
            for pred in self.predecessors(target) {
                self.push(pred);
            }
        }
    }

    fn visit(&mut self, block: Block) {
        if block != self.entry && self.edge_count[block] == 0 {
            // A forwarding block that lost its last edge to threading was counted then.
            if !self.threaded[block] {
                self.info.removed_unreachable_block_count += 1;
            }
            self.remove_block(block);
            return;
        }
        let mut changed = false;
        while let Some(term) = self.terminator(block) {
            if self.fold_terminator(block, term)
                || self.merge_successor(block, term)
                || self.thread_successor_edges(block, term)
            {
                changed = true;
            } else {
                break;
            }
        }
        if changed {
            self.notify_predecessors(block);
        }
    }

    /// `block`'s terminator changed: it may have become an empty forwarding block its
    /// predecessors can thread past, or stopped being one, which lets blocks forwarding
    /// to it be threaded past in turn. Predecessors are revisited only on such changes,
    /// so the worklist drains.
    fn notify_predecessors(&mut self, block: Block) {
        for pred in self.predecessors(block) {
            self.push(pred);
            if self.direct_forward(pred).is_some() {
                for pred_of_pred in self.predecessors(pred) {
                    self.push(pred_of_pred);
                }
            }
        }
    }

    /// Folds a `cond_br` or `switch_br` with a constant condition or identical edges into
    /// a `br`. Returns whether it did.
    fn fold_terminator(&mut self, block: Block, term: Inst) -> bool {
        let data = self.func.dfg.inst(term);
        let edges = data.payload.edges();
        let taken = match data.opcode.terminator_op() {
            Some(TerminatorOp::CondBr) => {
                let Some(&cond) = data.args.first() else {
                    return false;
                };
                let [then_dest, else_dest] = edges[..] else {
                    return false;
                };
                match self.constants.scalar_bits(self.func, cond) {
                    Some(bits) => Some(if bits != 0 { 0 } else { 1 }),
                    None => same_edge(self.func, then_dest, else_dest).then_some(0),
                }
            }
            Some(TerminatorOp::SwitchBr) => {
                let Payload::SwitchBranch(table) = &data.payload else {
                    return false;
                };
                let selector = data.args.first().copied();
                match selector.and_then(|s| self.constants.scalar_bits(self.func, s)) {
                    Some(bits) => Some(
                        table
                            .cases
                            .iter()
                            .position(|(label, _)| *label == bits)
                            .unwrap_or(table.cases.len()),
                    ),
                    None => edges
                        .iter()
                        .all(|e| same_edge(self.func, e, edges[0]))
                        .then_some(0),
                }
            }
            // Only the two conditional branches can be folded into a `br`.
            Some(
                TerminatorOp::Br
                | TerminatorOp::Return
                | TerminatorOp::Unreachable
                | TerminatorOp::Discard
                | TerminatorOp::If
                | TerminatorOp::Loop
                | TerminatorOp::SimpleLoop
                | TerminatorOp::Switch
                | TerminatorOp::Break
                | TerminatorOp::Continue,
            )
            | None => None,
        };
        let Some(taken) = taken else {
            // A condition that is a block parameter may become a constant, and edges into
            // one block that differ in parameters may become identical, when a merge
            // turns those parameters into aliases: watch them.
            let mut watched: Vec<Value> = Vec::new();
            if data.opcode.is_unstructured_branch() {
                watched.extend(data.args.first().copied());
                if edges.iter().all(|e| e.block == edges[0].block) {
                    watched.extend(edges.iter().flat_map(|e| e.args.iter().copied()));
                }
            }
            drop(edges);
            self.watch_parameters(block, watched);
            return false;
        };
        let kept = edges[taken].clone();
        let dropped: Vec<Block> = edges
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != taken)
            .map(|(_, e)| e.block)
            .collect();
        let opcode = data.opcode;
        drop(edges);
        let data = self.func.dfg.inst_mut(term);
        data.opcode = Opcode::Br;
        data.args.clear();
        data.payload = Payload::Jump(kept);
        for target in dropped {
            self.drop_edge(target);
        }
        if opcode == Opcode::CondBr {
            self.info.folded_constant_cond_br_count += 1;
        } else {
            self.info.folded_switch_count += 1;
        }
        true
    }

    /// Merges the target of `block`'s `br` into `block` when `block` is its only
    /// predecessor. Returns whether it did.
    fn merge_successor(&mut self, block: Block, term: Inst) -> bool {
        let data = self.func.dfg.inst(term);
        let Payload::Jump(edge) = &data.payload else {
            return false;
        };
        let succ = edge.block;
        if data.opcode != Opcode::Br
            || succ == block
            || succ == self.entry
            || self.edge_count[succ] != 1
            || !self.func.layout.is_block_inserted(succ)
            || self.is_annotated(term)
        {
            return false;
        }
        let params = self.func.dfg.block_params(succ).to_vec();
        let args: Vec<Value> = edge.args.iter().map(|&a| self.func.resolve(a)).collect();
        // Check everything before the first mutation: arity, types, and that no argument
        // is a parameter of `succ` itself (possible only in unreachable code, and aliasing
        // a parameter to a parameter of a removed block would leave it undefined).
        if params.len() != args.len()
            || params.iter().zip(&args).any(|(&p, &a)| {
                self.func.dfg.value_type(p) != self.func.dfg.value_type(a)
                    || matches!(self.func.dfg.value_def(a), ValueDef::Param(b, _) if b == succ)
            })
        {
            return false;
        }
        for (&param, &arg) in params.iter().zip(&args) {
            let replaced = self.func.dfg.replace_all_uses(param, arg);
            debug_assert!(replaced, "types were checked");
            self.wake_watchers(param);
        }
        self.func.remove_inst(term);
        if let Some(first) = self.func.layout.first_inst(succ) {
            self.func.layout.split_block_at(first, block);
        }
        self.func.layout.remove_block(succ);
        self.edge_count[succ] = 0;
        // `succ`'s successors are now entered from `block`.
        let targets: Vec<Block> = self.func.successors(block).collect();
        for target in targets {
            self.pred_candidates[target].push(block);
            self.push(target);
        }
        self.info.merged_straight_line_count += 1;
        true
    }

    /// Where an edge into `block` may go instead, when `block` is an empty forwarding
    /// block (see the module docs) whose destination is not itself one. The second
    /// condition resolves chains of forwarding blocks from their end, and keeps a cycle of
    /// them (an empty infinite loop) from bouncing edges around it forever.
    fn forwarding_destination(&self, block: Block) -> Option<BlockCall> {
        let dest = self.direct_forward(block)?;
        if self.direct_forward(dest.block).is_some() {
            return None;
        }
        Some(BlockCall {
            block: dest.block,
            args: dest.args.iter().map(|&a| self.func.resolve(a)).collect(),
        })
    }

    /// The `br` edge of `block` when `block` is an empty forwarding block: not the entry,
    /// no parameters, nothing but an unannotated `br` to another block.
    fn direct_forward(&self, block: Block) -> Option<&BlockCall> {
        if block == self.entry
            || !self.func.layout.is_block_inserted(block)
            || !self.func.dfg.block_params(block).is_empty()
        {
            return None;
        }
        let term = self.terminator(block)?;
        let data = self.func.dfg.inst(term);
        let Payload::Jump(dest) = &data.payload else {
            return None;
        };
        (data.opcode == Opcode::Br
            && dest.block != block
            && self.func.layout.first_inst(block) == Some(term)
            && !self.is_annotated(term))
        .then_some(dest)
    }

    /// Retargets every edge of `block`'s terminator that enters an empty forwarding block
    /// to that block's destination, in one pass over the edges, except where the
    /// terminator would then enter one block with different arguments. Returns whether it
    /// retargeted anything.
    fn thread_successor_edges(&mut self, block: Block, term: Inst) -> bool {
        let edges: Vec<BlockCall> = self
            .func
            .dfg
            .inst(term)
            .payload
            .edges()
            .into_iter()
            .cloned()
            .collect();
        // The edges as they would be after threading, and which were retargeted.
        let mut finals: Vec<(BlockCall, bool)> = Vec::with_capacity(edges.len());
        for edge in &edges {
            match self.forwarding_destination(edge.block) {
                Some(dest) => finals.push((dest, true)),
                None => finals.push((edge.clone(), false)),
            }
        }
        if !finals.iter().any(|&(_, retargeted)| retargeted) {
            return false;
        }
        // Targets the terminator would enter with different arguments: leave every edge
        // into them as it is (the original edges were consistent, and a subset of
        // agreeing edges still agrees).
        self.epoch += 1;
        let epoch = self.epoch;
        for (index, (edge, _)) in finals.iter().enumerate() {
            let target = edge.block;
            if self.target_stamp[target] != epoch {
                self.target_stamp[target] = epoch;
                self.first_edge[target] = index as u32;
                self.conflict_stamp[target] = 0;
            } else {
                let first = &finals[self.first_edge[target] as usize].0;
                if !same_edge(self.func, first, edge) {
                    self.conflict_stamp[target] = epoch;
                }
            }
        }
        // Conflicting arguments that are block parameters may agree after a merge.
        let conflicting: Vec<Value> = finals
            .iter()
            .filter(|(edge, _)| self.conflict_stamp[edge.block] == epoch)
            .flat_map(|(edge, _)| edge.args.iter().copied())
            .collect();
        self.watch_parameters(block, conflicting);
        let mut bypassed: Vec<(Block, Block)> = Vec::new();
        {
            let payload = &mut self.func.dfg.inst_mut(term).payload;
            for ((edge, (dest, retargeted)), old) in
                payload.edges_mut().into_iter().zip(finals).zip(&edges)
            {
                if retargeted && self.conflict_stamp[dest.block] != epoch {
                    bypassed.push((old.block, dest.block));
                    *edge = dest;
                }
            }
        }
        for &(forwarder, dest) in &bypassed {
            if !self.threaded[forwarder] {
                self.threaded[forwarder] = true;
                self.info.threaded_empty_block_count += 1;
            }
            self.edge_count[dest] += 1;
            self.pred_candidates[dest].push(block);
            self.drop_edge(forwarder);
        }
        !bypassed.is_empty()
    }

    /// Revisit `block` when one of `values` that is a block parameter becomes an alias.
    fn watch_parameters(&mut self, block: Block, values: Vec<Value>) {
        for value in values {
            let value = self.func.resolve(value);
            if matches!(self.func.dfg.value_def(value), ValueDef::Param(..)) {
                let list = &mut self.watchers[value];
                if list.last() != Some(&block) {
                    list.push(block);
                }
            }
        }
    }

    /// `param` just became an alias: revisit the blocks watching it, and let them watch
    /// what it now resolves to when that is a parameter too.
    fn wake_watchers(&mut self, param: Value) {
        let watchers = std::mem::take(&mut self.watchers[param]);
        if watchers.is_empty() {
            return;
        }
        for &block in &watchers {
            self.push(block);
        }
        let target = self.func.resolve(param);
        if target != param && matches!(self.func.dfg.value_def(target), ValueDef::Param(..)) {
            self.watchers[target].extend(watchers);
        }
    }

    fn is_annotated(&self, inst: Inst) -> bool {
        self.func
            .dfg
            .metadata(inst)
            .is_some_and(|md| md.is_annotated())
    }

    /// The distinct blocks in the layout whose terminator has an edge into `block`.
    fn predecessors(&mut self, block: Block) -> Vec<Block> {
        self.epoch += 1;
        let mut candidates = std::mem::take(&mut self.pred_candidates[block]);
        candidates.retain(|&pred| {
            if self.stamp[pred] == self.epoch || !self.func.layout.is_block_inserted(pred) {
                return false;
            }
            let has_edge = self.func.successors(pred).any(|s| s == block);
            if has_edge {
                self.stamp[pred] = self.epoch;
            }
            has_edge
        });
        self.pred_candidates[block] = candidates.clone();
        candidates
    }

    /// Removes `block` and its instructions; its edges go away.
    fn remove_block(&mut self, block: Block) {
        let targets: Vec<Block> = self.func.successors(block).collect();
        let insts: Vec<Inst> = self.func.layout.block_insts(block).collect();
        for inst in insts {
            self.func.remove_inst(inst);
        }
        self.func.layout.remove_block(block);
        for target in targets {
            if self.func.layout.is_block_inserted(target) {
                self.drop_edge(target);
            }
        }
    }

    /// Removes every block no path from the entry reaches. Returns whether any was.
    fn sweep_unreachable(&mut self) -> bool {
        let mut reachable: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut stack = vec![self.entry];
        reachable[self.entry] = true;
        while let Some(block) = stack.pop() {
            for succ in self.func.successors(block) {
                if !reachable[succ] && self.func.layout.is_block_inserted(succ) {
                    reachable[succ] = true;
                    stack.push(succ);
                }
            }
        }
        let dead: Vec<Block> = self
            .func
            .layout
            .blocks()
            .filter(|&b| !reachable[b])
            .collect();
        for &block in &dead {
            self.remove_block(block);
            self.info.removed_unreachable_block_count += 1;
        }
        !dead.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PassInfo;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    fn reachable_only() -> VerifierOptions {
        VerifierOptions {
            require_reachable_blocks: true,
            ..VerifierOptions::default()
        }
    }

    /// Parses `text`, runs the pass, checks the output verifies with reachable blocks,
    /// and returns the info and the flat text.
    fn run(text: &str) -> (SimplifyCfgInfo, String) {
        let mut module = parse_module(text).expect("test input parses");
        assert!(verify_module(&module, &VerifierOptions::default()).succeeded());
        let before = print_module(&module, View::Flat);
        let info = run_on_module(&mut module);
        let after = print_module(&module, View::Flat);
        let report = verify_module(&module, &reachable_only());
        assert!(report.succeeded(), "{report}\n{after}");
        assert_eq!(info.changed(), before != after, "{info:?}\n{after}");
        let again = run_on_module(&mut module);
        assert!(!again.changed(), "second run: {again:?}\n{after}");
        (info, after)
    }

    #[test]
    fn unreachable_cycle_is_removed_and_its_successor_merged() {
        // block2 and block3 form a cycle nobody enters; removing them leaves block1 with
        // one predecessor, which only the final reachability sweep discovers.
        let (info, text) = run("
callable @f(i32) -> i32 {
block0(v0: i32):
    br block1(v0)
block1(v1: i32):
    return v1
block2:
    br block3
block3:
    br block2
}
");
        assert_eq!(info.removed_unreachable_block_count, 2, "{text}");
        assert_eq!(info.merged_straight_line_count, 1, "{text}");
        assert!(
            text.contains("block0(v0: i32):\n    return v0\n}"),
            "{text}"
        );
    }

    #[test]
    fn threading_refuses_conflicting_arguments() {
        // block1 forwards to block3(c1); block0 already enters block3 with v0, so
        // threading would give block0's cond_br two different edges into block3.
        let (info, text) = run("
const c0: i32 = 1
callable @f(i32, bool) -> i32 {
block0(v0: i32, v1: bool):
    cond_br v1, block1, block3(v0)
block1:
    br block3(c0)
block3(v2: i32):
    return v2
}
");
        assert_eq!(info.threaded_empty_block_count, 0, "{text}");
        assert!(!info.changed(), "{text}");
    }

    #[test]
    fn chains_below_a_branch_merge_forward() {
        let (info, text) = run("
const c0: i32 = 0
const c1: i32 = 1
callable @f(bool) -> i32 {
block0(v0: bool):
    cond_br v0, block1, block4
block1:
    br block2
block2:
    br block3
block3:
    return c0
block4:
    return c1
}
");
        // Visiting block1 (its predecessor is a cond_br) first merges its chain forward:
        // block2 and block3 move into it; block1 then returns and forwards nothing.
        assert_eq!(info.merged_straight_line_count, 2, "{text}");
        assert_eq!(info.threaded_empty_block_count, 0, "{text}");
        assert!(
            text.contains("cond_br v0, block1, block4\nblock1:\n    return c0"),
            "{text}"
        );
    }

    #[test]
    fn self_loop_forwarder_is_kept() {
        let (info, _) = run("
kernel @k() workgroup_size(1, 1, 1) {
block0:
    br block1
block1:
    br block1
}
");
        // block1 loops on itself: it is neither merged (it enters itself) nor threaded.
        assert!(!info.changed());
    }

    #[test]
    fn long_chains_and_wide_switches_stay_linear() {
        // 20,000 blocks in a straight line, each passing a value on; then a switch_br with
        // 2,000 cases into empty forwarding blocks. Quadratic behaviour would take
        // minutes in a debug build; this takes well under a second.
        let n = 20_000;
        let mut text =
            String::from("const c0: i32 = 1\ncallable @f(i32) -> i32 {\nblock0(v0: i32):\n");
        for i in 1..=n {
            text.push_str(&format!(
                "    br block{i}(v{})\nblock{i}(v{}: i32):\n",
                2 * i - 2,
                2 * i - 1
            ));
            text.push_str(&format!("    v{}: i32 = add v{}, c0\n", 2 * i, 2 * i - 1));
        }
        text.push_str(&format!("    return v{}\n}}\n", 2 * n));
        let cases = 2_000;
        text.push_str("callable @g(i32) -> i32 {\nblock0(v0: i32):\n    switch_br v0, [");
        let labels: Vec<String> = (1..=cases).map(|i| format!("{i}: block{i}")).collect();
        text.push_str(&labels.join(", "));
        text.push_str(&format!("], default block{}(v0)\n", cases + 1));
        for i in 1..=cases {
            text.push_str(&format!("block{i}:\n    br block{}(v0)\n", cases + 1));
        }
        text.push_str(&format!(
            "block{}(v1: i32):\n    return v1\n}}\n",
            cases + 1
        ));
        let start = std::time::Instant::now();
        let (info, out) = run(&text);
        // Once every case is threaded, the switch_br's edges are all identical: it folds,
        // and @g's return block merges into its entry too.
        assert_eq!(info.merged_straight_line_count, n as u64 + 1);
        assert_eq!(info.threaded_empty_block_count, cases as u64);
        assert_eq!(info.folded_switch_count, 1);
        assert!(out.contains(&format!("return v{}", 2 * n)));
        assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    }

    #[test]
    fn structured_functions_are_skipped() {
        let (info, _) = run("
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    if c0, then block1, else block2, merge block3
block1:
    br block3
block2:
    br block3
block3:
    return
}
");
        assert_eq!(info.skipped_structured_function_count, 1);
        assert!(!info.changed());
    }
}
