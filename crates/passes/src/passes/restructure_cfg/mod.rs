//! `restructure-cfg`: a plain, reducible CFG back to structured control flow.
//!
//! The input is a function whose terminators are plain (`br`, `cond_br`, `switch_br`,
//! `return`, `unreachable`, `discard`) and whose blocks other than the entry have no
//! parameters (run `reg2mem` first, as the `structurize` pipeline does). The output has `if`,
//! `switch`, `loop` and `simple_loop` constructs with unique merge blocks, `break` and
//! `continue` that target the nearest enclosing construct, and no `cond_br` / `switch_br`
//! except the `cond_br c, body, merge` that ends a `loop`'s prepare block. It passes the
//! verifier with `require_unique_merge_blocks`, `require_canonical_break_continue_targets`
//! and `require_no_unstructured_control_flow`, and with `require_reachable_blocks` unless a
//! loop of the input can never be left (its merge block is then unreachable, as every
//! structured loop needs one).
//!
//! ```text
//! block0:                                  block0:
//!     cond_br v0, block1, block2               if v0, then block1, else block2, merge block3
//! block1:                                  block1:
//!     br block3                    ==>         br block3
//! block2:                                  block2:
//!     br block3                                br block3
//! block3:                                  block3:
//!     return                                   return
//! ```
//!
//! # How
//!
//! The work is linear in the size of the function apart from a near-linear union-find and
//! a few sorts (O(n log n)); a constant number of CFG / dominator-tree computations per
//! function (`analysis_count`), never a rescan per construct. It follows the
//! dominator-tree translation of Ramsey ("Beyond Relooper", 2022), with the exits that
//! translation writes as multi-level `br` routed through one `u32` selector slot per
//! function, the way SPIR-T's structurizer and Mesa's `nir_lower_goto_ifs` route their
//! deferred edges:
//!
//! 1. **Clean-up** (this file): blocks unreachable from the entry are removed. A small exit
//!    block (`return` / `unreachable` / `discard`, at most [`TAIL_DUPLICATION_LIMIT`]
//!    instructions, nothing convergent, annotated or `alloca`) is copied per predecessor
//!    when a predecessor is inside a loop, when an edge to it jumps over another join of its
//!    immediate dominator, or when it only loads local slots (the exit block
//!    `destructure-cfg` makes for early returns) and is reached from different depths: then
//!    early returns need no routing. A diamond's shared tail is not copied.
//! 2. **Loops** (`loops.rs`): natural loops, each extended by blocks it dominates that
//!    only lead out of it (a `break` arm's code, an early `return`) until one exit is left.
//!    Every loop gets a preheader (the block that will end in the loop construct) and one
//!    merge block: the exit itself when only the loop reaches it, else a new block, which
//!    with several exits dispatches on the selector that each exit stored. A loop whose
//!    header ends in `cond_br c, in-loop, exit` becomes `loop prepare H, body B, update U,
//!    merge M` (a single latch ending in `br H` is the update block, otherwise a new block
//!    that the latches reach); any other loop becomes `simple_loop body H, merge M`.
//! 3. **Selections** (`emit.rs`): with back edges and loop exits cut and each preheader
//!    linked to its loop's merge, the CFG is acyclic. Over its dominator tree each
//!    `cond_br` / `switch_br` becomes an `if` / `switch` whose arms are the targets it
//!    dominates alone; its *joins* (tree children with several predecessors) follow the
//!    construct in reverse post-order. A join needs no guard when every edge leaving the
//!    code before it (a pre-order interval of the tree) goes to the join itself; it is then
//!    the construct's merge. Otherwise the branches to it store its number in the selector
//!    and an `if` on the selector enters it. The test is O(1) per join on subtree
//!    aggregates of edge targets' pre-order numbers. When one arm of an `if` never comes
//!    back (it breaks, continues or returns), the other arm's code follows the `if` as its
//!    merge instead of nesting in the arm (`if c { return } rest`). A `switch_br` becomes a
//!    `switch` unless an arm leaves the enclosing loop (inside a `switch`, `break` leaves the
//!    switch) or no arm comes back (a `switch` needs a merge); then it becomes a chain of
//!    `if`s on `eq` of the selector. Back edges become `continue` (`br update` at the top
//!    level of a `loop` body, by the lowering contract), loop exits `break`.
//! 4. **Finishing** (`finish.rs`): values whose definition no longer dominates a use (one
//!    computed in a loop body and used after one of several exits, now reached through the
//!    dispatch) are carried through a function-space slot; blocks are laid out in
//!    structured order.
//!
//! # Refusals
//!
//! The whole module is checked before anything changes; a refused module is left
//! byte-identical. The only refusal the up-front check cannot rule out is a value that
//! loses dominance and cannot be stored; when some function uses a pointer or resource
//! outside the (non-entry) block defining it, the work happens on a copy that replaces the
//! module only on success, and otherwise in place (no copy of the module).
//! Refused: irreducible control flow (`irreducible_region_count`: the blocks entered by a
//! retreating edge they do not dominate), block parameters on non-entry blocks
//! (`unsupported_block_param_count`), functions that mix structured constructs with
//! `cond_br` / `switch_br` (`mixed_control_flow_count`), and values that lose dominance but
//! cannot live in memory — pointers, resources (`undemotable_value_count`).
//! `internal_error_count` reports a violated internal invariant (a bug) as a refusal
//! instead of producing invalid IR; in place, the module is then left part-way.
//!
//! # What it does not do
//!
//! Functions that already contain structured constructs (and no unstructured branches)
//! are left alone, as are body-less functions. It does not restructure irreducible flow
//! (no node splitting or dispatch loops: `lower_irreducible_cfg` is a separate pass), does
//! not remove the slots it creates (run `mem2reg` afterwards) or the empty forwarding
//! blocks it makes (arms and merges that only branch on), and does not clone code other
//! than the small exit blocks above.
//!
//! Two shapes come back correct but less direct than a structured source would have had
//! them: a `break` out of a `switch` from inside nested `if`s (a branch from deep in a case
//! to the switch's merge) is routed through the selector and guards instead of becoming a
//! `break`; and a loop that a source nests in another loop's body but that is always
//! followed by leaving that outer loop is not part of the outer *natural* loop, so the outer
//! loop exits through a dispatch and the inner loop follows it.

mod emit;
mod finish;
mod loops;

use crate::analysis::cfg::{Cfg, CfgNode, RpoPosition};
use crate::pass_info;
use crate::report::PassInfo;
use crate::util::definitions;
use cranelift_entity::{EntityRef, SecondaryMap};
use oxir_ir::dominance::DominatorTree;
use oxir_ir::{
    AddressSpace, Block, BlockCall, Func, Function, Inst, InstData, Metadata, Module, Opcode,
    Payload, TerminatorOp, Type, Value, ValueDef,
};
use std::rc::Rc;

pass_info! {
    pass: "restructure-cfg",
    /// Counters of `restructure-cfg`.
    pub struct RestructureCfgInfo {
        /// Loops turned into `loop` or `simple_loop` constructs.
        restructured_loop_count,
        /// `cond_br` turned into `if`.
        restructured_if_count,
        /// `switch_br` turned into `switch`.
        restructured_switch_count,
        /// Blocks the pass inserted (preheaders, merges, update blocks, arms, guards) and
        /// degenerate branches it folded (`cond_br c, b, b`).
        canonicalized_cfg_count,
        /// Guard `if`s on the selector before a join that not every path reaches.
        guard_count,
        /// Loops with several exits, left through a dispatch on the selector.
        loop_exit_dispatch_count,
        /// `switch_br` lowered to a chain of `if`s (an arm leaves the loop, or none returns).
        switch_to_if_chain_count,
        /// Small exit blocks duplicated per predecessor.
        tail_duplicated_block_count,
        /// Blocks a loop took in beyond its natural loop (they only lead out of it).
        absorbed_exit_block_count,
        /// Blocks unreachable from the entry, removed.
        removed_unreachable_block_count,
        /// Values carried through a slot because their definition no longer dominates a use.
        demoted_value_count,
        /// Irreducible regions (blocks entered by a retreating edge they do not dominate).
        irreducible_region_count,
        /// Non-entry blocks with parameters.
        unsupported_block_param_count,
        /// Functions mixing structured constructs with `cond_br` / `switch_br`.
        mixed_control_flow_count,
        /// Values that lost dominance but cannot be stored (pointers, resources).
        undemotable_value_count,
        /// Violated internal invariants; the module is left unchanged.
        internal_error_count,
        /// Loops whose exit absorption stopped at its bound (they exit through a dispatch).
        iteration_limit_count,
        /// `dominates` queries answered, over all dominator trees the pass built.
        dominance_query_count,
        /// CFG and dominator-tree computations (a constant number per function).
        analysis_count,
    }
    changed_by: [
        restructured_loop_count,
        restructured_if_count,
        restructured_switch_count,
        canonicalized_cfg_count,
        guard_count,
        loop_exit_dispatch_count,
        switch_to_if_chain_count,
        tail_duplicated_block_count,
        removed_unreachable_block_count,
        demoted_value_count,
    ]
    failed_by: [
        irreducible_region_count,
        unsupported_block_param_count,
        mixed_control_flow_count,
        undemotable_value_count,
        internal_error_count,
    ]
}

/// The most CFG / dominator-tree computations for one function: the preflight's (reused
/// until a phase changes the function), after removing unreachable blocks, after tail
/// duplication, after inserting preheaders, the acyclic graph of the selections, and the
/// dominance repair's.
pub const MAX_ANALYSES_PER_FUNCTION: u64 = 7;

/// Exit blocks with at most this many instructions (terminator included) are duplicated
/// per predecessor instead of being routed to.
pub const TAIL_DUPLICATION_LIMIT: usize = 16;

/// An exit block with more predecessors than this plus one is not duplicated.
pub const TAIL_DUPLICATION_MAX_COPIES: usize = 16;

/// The comment on the selector slot the pass creates.
pub const SELECTOR_COMMENT: &str = "restructure-cfg selector";

/// What the preflight decided for one function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Plan {
    /// Nothing to do: no body, or already structured.
    Skip,
    Restructure,
    /// Refused; the counters say why.
    Refuse,
}

/// Why restructuring a function failed after the preflight accepted it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// A value defined in this block (when it has one) lost dominance and cannot be stored.
    Undemotable(Option<Block>),
    Internal,
}

/// Restructures one function; refuses (changing nothing) as described in the module docs.
pub fn run_on_function(module: &mut Module, func: Func) -> RestructureCfgInfo {
    run(module, &[func])
}

/// Restructures every function with a body. Refuses the whole module, changing nothing,
/// when any function is refused.
pub fn run_on_module(module: &mut Module) -> RestructureCfgInfo {
    let functions = definitions(module);
    run(module, &functions)
}

fn run(module: &mut Module, functions: &[Func]) -> RestructureCfgInfo {
    let mut info = RestructureCfgInfo::default();
    let mut work = Vec::new();
    for &func in functions {
        if module.functions.get(func).is_none() {
            info.internal_error_count += 1;
            info.note_refusal(None, None);
            continue;
        }
        let mut analysis = None;
        if preflight(module, func, &mut info, &mut analysis) == Plan::Restructure {
            work.push((func, analysis));
        }
    }
    if info.failure().is_some() {
        return failures_only(&info);
    }
    if work.is_empty() {
        return info;
    }
    // The one failure the preflight cannot rule out is a value that loses dominance and
    // cannot be stored. When no function has a non-storable value used outside the block
    // that defines it (other than the entry, which dominates everything), that cannot
    // happen, and the functions are restructured in place. Otherwise the work happens on
    // a copy that replaces the module only on success, so a refusal leaves it
    // byte-identical.
    let work: Vec<(Func, Option<Rc<Analysis>>, CrossBlockUses)> = work
        .into_iter()
        .map(|(func, analysis)| (func, analysis, cross_block_uses(module, func)))
        .collect();
    if !work.iter().any(|(_, _, uses)| uses.unstorable) {
        for (func, analysis, uses) in work {
            let result = restructure_function(module, func, analysis, uses.any, &mut info);
            if let Err(failure) = result {
                // Only a violated internal invariant (a bug) gets here; the module is then
                // left part-way, and the refusal counters say so.
                count_failure(&mut info, module, func, failure);
                return failures_only(&info);
            }
        }
        return info;
    }
    // The copy has the same blocks, so the preflight's analyses hold for it.
    let mut copy = module.clone();
    for (func, analysis, uses) in work {
        let result = restructure_function(&mut copy, func, analysis, uses.any, &mut info);
        if let Err(failure) = result {
            count_failure(&mut info, module, func, failure);
            return failures_only(&info);
        }
    }
    *module = copy;
    info
}

/// What crosses block boundaries in a function before restructuring: values defined in a
/// block other than the entry (which dominates everything) and used in another block.
#[derive(Copy, Clone, Debug, Default)]
struct CrossBlockUses {
    /// Some such value exists: restructuring may leave a use that its definition no longer
    /// dominates, and the dominance repair has to look.
    any: bool,
    /// Some such value is a pointer, resource or other value that cannot live in a slot:
    /// the repair could fail (`undemotable_value_count`).
    unstorable: bool,
}

/// One pass over the operands of `func` (linear).
fn cross_block_uses(module: &Module, func: Func) -> CrossBlockUses {
    let function = &module.functions[func];
    let entry = function.entry_block();
    let mut uses = CrossBlockUses::default();
    for block in function.layout.blocks() {
        for inst in function.layout.block_insts(block) {
            for &arg in &function.dfg.inst(inst).args {
                let value = function.dfg.resolve(arg);
                let ValueDef::Result(def) = function.dfg.value_def(value) else {
                    continue;
                };
                let def_block = function.layout.inst_block(def);
                if def_block == Some(block) || def_block == entry {
                    continue;
                }
                uses.any = true;
                if !finish::is_storable(module, function.dfg.value_type(value)) {
                    uses.unstorable = true;
                    return uses;
                }
            }
        }
    }
    uses
}

/// Counts `failure` of `func` and records where it happened. `module` is the module as the
/// caller will return it (the refused work is dropped), so only a block of its layout is
/// named.
fn count_failure(info: &mut RestructureCfgInfo, module: &Module, func: Func, failure: Failure) {
    let function = &module.functions[func];
    let block = match failure {
        Failure::Undemotable(block) => {
            info.undemotable_value_count += 1;
            block.filter(|&b| function.layout.is_block_inserted(b))
        }
        Failure::Internal => {
            info.internal_error_count += 1;
            None
        }
    };
    info.note_refusal(Some(&function.name), block);
}

/// A refused run changed nothing: keep only the counters that explain the refusal.
fn failures_only(info: &RestructureCfgInfo) -> RestructureCfgInfo {
    RestructureCfgInfo {
        irreducible_region_count: info.irreducible_region_count,
        unsupported_block_param_count: info.unsupported_block_param_count,
        mixed_control_flow_count: info.mixed_control_flow_count,
        undemotable_value_count: info.undemotable_value_count,
        internal_error_count: info.internal_error_count,
        refused_at: info.refused_at.clone(),
        refusal_message: info.refusal_message.clone(),
        ..RestructureCfgInfo::default()
    }
}

/// Decides what to do with `func` without changing it; counts refusal reasons.
/// On `Plan::Restructure`, `analysis` receives the CFG and dominator tree the check built,
/// for the first phases to reuse.
fn preflight(
    module: &Module,
    func: Func,
    info: &mut RestructureCfgInfo,
    analysis: &mut Option<Rc<Analysis>>,
) -> Plan {
    let function = &module.functions[func];
    let Some(entry) = function.entry_block() else {
        return Plan::Skip;
    };
    if !function.is_definition() {
        return Plan::Skip;
    }
    let mut structured = false;
    let mut unstructured = false;
    let mut param_blocks = 0;
    let mut first_param_block = None;
    for block in function.layout.blocks() {
        if block != entry && !function.dfg.block_params(block).is_empty() {
            param_blocks += 1;
            first_param_block.get_or_insert(block);
        }
        let Some(term) = function.terminator(block) else {
            continue;
        };
        let opcode = function.dfg.inst(term).opcode;
        structured |= opcode.is_structured() || opcode.is_structured_exit();
        unstructured |= opcode.is_unstructured_branch();
    }
    if structured {
        let mixed = unstructured
            .then(|| first_unstructured_branch_besides_loop_prepare(function))
            .flatten();
        if let Some(block) = mixed {
            info.mixed_control_flow_count += 1;
            info.note_refusal(Some(&function.name), Some(block));
            return Plan::Refuse;
        }
        return Plan::Skip;
    }
    let mut plan = Plan::Restructure;
    if param_blocks > 0 {
        info.unsupported_block_param_count += param_blocks;
        info.note_refusal(Some(&function.name), first_param_block);
        plan = Plan::Refuse;
    }
    let cfg = Cfg::new(function);
    let tree = DominatorTree::compute(cfg.succ_graph());
    info.analysis_count += 1;
    let irreducible = loops::irreducible_region_entries(&cfg, &tree);
    info.dominance_query_count += tree.take_query_count();
    if let Some(&first) = irreducible.first() {
        info.irreducible_region_count += irreducible.len() as u64;
        info.note_refusal(Some(&function.name), Some(cfg.block(first)));
        plan = Plan::Refuse;
    }
    if plan == Plan::Restructure {
        *analysis = Some(Rc::new(Analysis { cfg, tree }));
    }
    plan
}

/// The first block in layout order that ends in a `cond_br` other than a loop prepare
/// block's `cond_br c, body, merge`, or in a `switch_br`.
fn first_unstructured_branch_besides_loop_prepare(function: &Function) -> Option<Block> {
    let mut prepares: Vec<(Block, Block, Block)> = Vec::new();
    for block in function.layout.blocks() {
        if let Some(term) = function.terminator(block) {
            if let Payload::Loop {
                prepare,
                body,
                merge,
                ..
            } = &function.dfg.inst(term).payload
            {
                prepares.push((prepare.block, *body, *merge));
            }
        }
    }
    prepares.sort_unstable();
    function.layout.blocks().find(|&block| {
        let Some(term) = function.terminator(block) else {
            return false;
        };
        match &function.dfg.inst(term).payload {
            Payload::SwitchBranch(_) => true,
            Payload::CondBranch {
                then_dest,
                else_dest,
            } => {
                let key = (block, then_dest.block, else_dest.block);
                prepares.binary_search(&key).is_err()
            }
            Payload::None
            | Payload::Indices(_)
            | Payload::Callee(_)
            | Payload::Message(_)
            | Payload::Jump(_)
            | Payload::If { .. }
            | Payload::Loop { .. }
            | Payload::SimpleLoop { .. }
            | Payload::Switch { .. } => false,
        }
    })
}

/// The dominator tree of a CFG with, for each block, the reverse post-order positions of
/// its *join* children (children with several forward predecessors), for the
/// tail-duplication heuristics.
struct TreeShape<'c> {
    cfg: &'c Cfg,
    /// Predecessors other than back edges (a back edge's target dominates its source).
    forward_preds: SecondaryMap<CfgNode, u32>,
    /// Sorted positions of each block's join children.
    join_positions: SecondaryMap<CfgNode, Vec<RpoPosition>>,
}

impl<'c> TreeShape<'c> {
    /// How far up the tree a predecessor is followed before the heuristic gives up.
    const WALK_LIMIT: usize = 64;

    fn new(cfg: &'c Cfg, tree: &DominatorTree<CfgNode>) -> Self {
        let count = cfg.block_count();
        let mut forward_preds: SecondaryMap<CfgNode, u32> = SecondaryMap::with_capacity(count);
        for n in cfg.nodes() {
            forward_preds[n] = cfg
                .pred_graph()
                .successors(n)
                .iter()
                .filter(|&&p| !tree.dominates(n, p))
                .count() as u32;
        }
        let mut join_positions: SecondaryMap<CfgNode, Vec<RpoPosition>> =
            SecondaryMap::with_capacity(count);
        // Reverse post-order: each list comes out sorted.
        for (position, &c) in cfg.rpo_numbers().iter().enumerate() {
            if forward_preds[c] < 2 {
                continue;
            }
            if let Some(p) = tree.idom(c) {
                join_positions[p].push(RpoPosition::new(position));
            }
        }
        TreeShape {
            cfg,
            forward_preds,
            join_positions,
        }
    }

    /// Whether `n` has a join child positioned strictly between `low` and `high`.
    fn has_join_between(&self, n: CfgNode, low: RpoPosition, high: RpoPosition) -> bool {
        let list = &self.join_positions[n];
        let first_above = list.partition_point(|&q| q <= low);
        list.get(first_above).is_some_and(|&q| q < high)
    }

    /// The child of `ancestor` on the tree path to `n`; `None` when the walk is too long.
    fn child_towards(
        &self,
        tree: &DominatorTree<CfgNode>,
        ancestor: CfgNode,
        mut n: CfgNode,
    ) -> Option<CfgNode> {
        for _ in 0..Self::WALK_LIMIT {
            match tree.idom(n) {
                Some(parent) if parent == ancestor => return Some(n),
                Some(parent) => n = parent,
                None => return None,
            }
        }
        None
    }

    /// Whether an edge into `n` jumps over a join child of `n`'s immediate dominator that
    /// comes before `n` (that join would then need a guard).
    fn skips_a_join(&self, tree: &DominatorTree<CfgNode>, n: CfgNode) -> bool {
        // Nodes with an immediate dominator are reachable, so they have a position.
        let (Some(idom), Some(here)) = (tree.idom(n), self.cfg.rpo_position(n)) else {
            return false;
        };
        let entry = RpoPosition::new(0);
        self.cfg.pred_graph().successors(n).iter().any(|&p| {
            // From inside join `c`: the joins between `c` and `n` are skipped; from the part
            // before the first join (or the idom itself): every earlier join. Join positions
            // are at least 1 (position 0 is the entry, which no edge enters).
            if p == idom {
                return self.has_join_between(idom, entry, here);
            }
            let low = match self.child_towards(tree, idom, p) {
                Some(c) if self.forward_preds[c] >= 2 => self.cfg.rpo_position(c).unwrap_or(entry),
                Some(_) => entry,
                None => return true,
            };
            self.has_join_between(idom, low, here)
        })
    }

    /// Whether the predecessors of `n` sit at different depths: their immediate dominators
    /// differ, a predecessor that is `n`'s own idom counting as itself.
    fn preds_at_mixed_depths(&self, tree: &DominatorTree<CfgNode>, n: CfgNode) -> bool {
        let idom = tree.idom(n);
        let key = |p: CfgNode| {
            if Some(p) == idom {
                Some(p)
            } else {
                tree.idom(p)
            }
        };
        let mut preds = self.cfg.pred_graph().successors(n).iter().map(|&p| key(p));
        let first = preds.next();
        preds.any(|k| Some(k) != first)
    }
}

/// Runs every phase on one preflighted function of `module` (the working copy).
fn restructure_function(
    module: &mut Module,
    func: Func,
    analysis: Option<Rc<Analysis>>,
    cross_block_uses: bool,
    info: &mut RestructureCfgInfo,
) -> Result<(), Failure> {
    let changed_before = changed_total(info);
    let mut ctx = Ctx::new(module, func, info);
    ctx.analysis = analysis;
    ctx.cross_block_uses = cross_block_uses;
    ctx.remove_unreachable_blocks();
    let mut nest = loops::LoopNest::find(&mut ctx)?;
    ctx.duplicate_small_exit_blocks(&nest);
    nest.normalize(&mut ctx)?;
    emit::emit(&mut ctx, &nest)?;
    finish::repair_dominance(&mut ctx)?;
    finish::check_structured(&ctx, &nest)?;
    if changed_total(ctx.info) != changed_before {
        finish::lay_out_structured(&mut ctx);
    }
    Ok(())
}

fn changed_total(info: &RestructureCfgInfo) -> u64 {
    info.restructured_loop_count
        + info.restructured_if_count
        + info.restructured_switch_count
        + info.canonicalized_cfg_count
        + info.guard_count
        + info.loop_exit_dispatch_count
        + info.switch_to_if_chain_count
        + info.tail_duplicated_block_count
        + info.removed_unreachable_block_count
        + info.demoted_value_count
}

/// The function being restructured, with the helpers every phase uses to edit it.
pub(crate) struct Ctx<'a> {
    pub module: &'a mut Module,
    pub func: Func,
    pub info: &'a mut RestructureCfgInfo,
    pub bool_ty: Type,
    pub u32_ty: Type,
    /// The `u32` selector slot, created on first use.
    selector: Option<Value>,
    /// The CFG and dominator tree of the function as it is now; dropped by every mutable
    /// access to the function ([`Ctx::function_mut`]), so a phase that changed nothing
    /// hands its analyses to the next.
    analysis: Option<Rc<Analysis>>,
    /// Whether the input used a value outside its defining block (other than the entry).
    /// Without such uses there is nothing for the dominance repair to find: the phases
    /// only add uses inside the defining block.
    pub cross_block_uses: bool,
}

/// A CFG snapshot and its dominator tree.
pub(crate) struct Analysis {
    pub cfg: Cfg,
    pub tree: DominatorTree<CfgNode>,
}

impl<'a> Ctx<'a> {
    fn new(module: &'a mut Module, func: Func, info: &'a mut RestructureCfgInfo) -> Self {
        let bool_ty = module.types.bool();
        let u32_ty = module.types.u32();
        Ctx {
            module,
            func,
            info,
            bool_ty,
            u32_ty,
            selector: None,
            analysis: None,
            cross_block_uses: true,
        }
    }

    pub fn function(&self) -> &Function {
        &self.module.functions[self.func]
    }

    /// The function, for changing it: the cached analyses are dropped.
    pub fn function_mut(&mut self) -> &mut Function {
        self.analysis = None;
        &mut self.module.functions[self.func]
    }

    /// The CFG and dominator tree of the function as it is now: the cached ones when
    /// nothing changed since they were built, else new ones, counted in `analysis_count`.
    /// Callers add `tree.take_query_count()` to `dominance_query_count` when done.
    pub fn analyze(&mut self) -> Rc<Analysis> {
        if let Some(analysis) = &self.analysis {
            return Rc::clone(analysis);
        }
        let cfg = Cfg::new(self.function());
        let tree = DominatorTree::compute(cfg.succ_graph());
        self.info.analysis_count += 1;
        let analysis = Rc::new(Analysis { cfg, tree });
        self.analysis = Some(Rc::clone(&analysis));
        analysis
    }

    /// A new empty block at the end of the layout, counted as inserted.
    pub fn new_block(&mut self) -> Block {
        self.info.canonicalized_cfg_count += 1;
        self.function_mut().append_new_block()
    }

    /// Creates an instruction (with a result of `ty`, if given) without placing it.
    fn make(&mut self, data: InstData, ty: Option<Type>) -> (Inst, Option<Value>) {
        let dfg = &mut self.function_mut().dfg;
        let inst = dfg.make_inst(data);
        let value = ty.map(|ty| dfg.make_result(inst, ty));
        (inst, value)
    }

    /// Appends an instruction to `block`.
    pub fn append(&mut self, block: Block, data: InstData, ty: Option<Type>) -> Option<Value> {
        let (inst, value) = self.make(data, ty);
        self.function_mut().layout.append_inst(inst, block);
        value
    }

    /// Inserts an instruction before `before`.
    pub fn insert_before(
        &mut self,
        before: Inst,
        data: InstData,
        ty: Option<Type>,
    ) -> Option<Value> {
        let (inst, value) = self.make(data, ty);
        self.function_mut().layout.insert_inst_before(inst, before);
        value
    }

    /// Where to insert instructions that must run before `block`'s terminator.
    pub fn terminator(&self, block: Block) -> Result<Inst, Failure> {
        self.function().terminator(block).ok_or(Failure::Internal)
    }

    /// Replaces `block`'s terminator in place (its metadata stays), or appends `data` when
    /// the block has none yet.
    pub fn set_terminator(&mut self, block: Block, data: InstData) {
        match self.function().terminator(block) {
            Some(term) => *self.function_mut().dfg.inst_mut(term) = data,
            None => {
                self.append(block, data, None);
            }
        }
    }

    /// Appends `br target` to `block`.
    pub fn append_jump(&mut self, block: Block, opcode: Opcode, target: Block) {
        let data = InstData::with_payload(opcode, &[], Payload::Jump(BlockCall::new(target)));
        self.append(block, data, None);
    }

    /// Redirects every edge of `block`'s terminator that targets `from` to `to`.
    pub fn retarget(&mut self, block: Block, from: Block, to: Block) {
        if let Some(term) = self.function().terminator(block) {
            for edge in self.function_mut().dfg.inst_mut(term).payload.edges_mut() {
                if edge.block == from {
                    edge.block = to;
                }
            }
        }
    }

    /// The constant `value` as a `u32` value of this function.
    pub fn u32_value(&mut self, value: u32) -> Value {
        let c = self.module.const_u32(value);
        let ty = self.u32_ty;
        self.function_mut().dfg.const_value(c, ty)
    }

    /// The selector slot: a `ptr<function, u32>` alloca at the start of the entry block.
    pub fn selector(&mut self) -> Value {
        if let Some(slot) = self.selector {
            return slot;
        }
        let ptr_ty = self
            .module
            .types
            .pointer(AddressSpace::Function, self.u32_ty);
        let (alloca, slot) = self.make(InstData::new(Opcode::Alloca, &[]), Some(ptr_ty));
        let function = self.function_mut();
        let entry = function
            .entry_block()
            .expect("a restructured function has a body");
        function.layout.prepend_inst(alloca, entry);
        let mut metadata = Metadata::default();
        metadata.comments.push(SELECTOR_COMMENT.to_string());
        function.dfg.set_metadata(alloca, metadata);
        let slot = slot.expect("alloca has a result");
        self.selector = Some(slot);
        slot
    }

    /// `store selector, value` before `before`.
    pub fn store_selector_before(&mut self, before: Inst, value: u32) {
        let (slot, v) = (self.selector(), self.u32_value(value));
        self.insert_before(before, InstData::new(Opcode::Store, &[slot, v]), None);
    }

    /// `store selector, value` at the end of `block`.
    pub fn append_store_selector(&mut self, block: Block, value: u32) {
        let (slot, v) = (self.selector(), self.u32_value(value));
        self.append(block, InstData::new(Opcode::Store, &[slot, v]), None);
    }

    /// Appends `eq (load selector), value` to `block`; returns the condition.
    pub fn append_selector_test(&mut self, block: Block, value: u32) -> Value {
        let slot = self.selector();
        let u32_ty = self.u32_ty;
        let bool_ty = self.bool_ty;
        let loaded = self
            .append(block, InstData::new(Opcode::Load, &[slot]), Some(u32_ty))
            .expect("load has a result");
        let v = self.u32_value(value);
        self.append(
            block,
            InstData::new(Opcode::Eq, &[loaded, v]),
            Some(bool_ty),
        )
        .expect("eq has a result")
    }

    // --- clean-up ----------------------------------------------------------------------------

    /// Removes the blocks unreachable from the entry (and their instructions). Nothing
    /// reachable uses their values: a definition in an unreachable block dominates nothing.
    fn remove_unreachable_blocks(&mut self) {
        let analysis = self.analyze();
        let cfg = &analysis.cfg;
        let dead: Vec<Block> = cfg
            .blocks()
            .iter()
            .copied()
            .filter(|&b| !cfg.is_reachable(b))
            .collect();
        let function = self.function_mut();
        for &block in &dead {
            let insts: Vec<Inst> = function.layout.block_insts(block).collect();
            for inst in insts {
                function.remove_inst(inst);
            }
            function.layout.remove_block(block);
        }
        self.info.removed_unreachable_block_count += dead.len() as u64;
    }

    /// Duplicates, once per extra predecessor, each small exit block (see
    /// [`TAIL_DUPLICATION_LIMIT`]) when a copy per predecessor spares routing: a predecessor
    /// is inside a loop (the copy stays in the loop instead of going through its dispatch),
    /// an edge to it skips over another join of its immediate dominator (it would need a
    /// guard), or it only loads local slots before returning (the exit block
    /// `destructure-cfg` makes) and its predecessors sit at different depths. A plain
    /// diamond's shared tail is left alone. The block's values are used only inside it (a
    /// block without successors dominates nothing else), so the copies need no rewrite.
    fn duplicate_small_exit_blocks(&mut self, nest: &loops::LoopNest) {
        let analysis = self.analyze();
        let (cfg, tree) = (&analysis.cfg, &analysis.tree);
        let shape = TreeShape::new(cfg, tree);
        let entry = cfg.blocks()[0];
        let mut candidates: Vec<(Block, Vec<Block>)> = Vec::new();
        for &block in cfg.blocks() {
            let count = cfg.pred_count(block);
            if block == entry
                || !(2..=TAIL_DUPLICATION_MAX_COPIES + 1).contains(&count)
                || !self.is_duplicable_exit(block)
            {
                continue;
            }
            let n = cfg.number(block).expect("a block of the CFG");
            let from_loop = cfg.preds(block).any(|p| nest.loop_of(p).is_some());
            let duplicate = from_loop
                || shape.skips_a_join(tree, n)
                || (self.only_reads_local_slots(block) && shape.preds_at_mixed_depths(tree, n));
            if duplicate {
                candidates.push((block, cfg.preds(block).collect()));
            }
        }
        self.info.dominance_query_count += tree.take_query_count();
        for (block, preds) in candidates {
            for &pred in &preds[1..] {
                let copy = self.clone_block(block);
                self.retarget(pred, block, copy);
                self.info.tail_duplicated_block_count += 1;
            }
        }
    }

    /// Whether every instruction of `block` but its terminator loads from an `alloca`.
    fn only_reads_local_slots(&self, block: Block) -> bool {
        let function = self.function();
        let term = function.terminator(block);
        function.layout.block_insts(block).all(|inst| {
            let data = function.dfg.inst(inst);
            let loads_a_slot = data.opcode == Opcode::Load
                && matches!(
                    function.dfg.value_def(data.args[0]),
                    oxir_ir::ValueDef::Result(def) if function.dfg.inst(def).opcode == Opcode::Alloca
                );
            Some(inst) == term || loads_a_slot
        })
    }

    fn is_duplicable_exit(&self, block: Block) -> bool {
        let function = self.function();
        let Some(term) = function.terminator(block) else {
            return false;
        };
        let exits = function.dfg.inst(term).opcode.terminator_op();
        if !exits.is_some_and(TerminatorOp::is_function_exit) {
            return false;
        }
        let mut count = 0;
        for inst in function.layout.block_insts(block) {
            count += 1;
            let opcode = function.dfg.inst(inst).opcode;
            let annotated = function
                .dfg
                .metadata(inst)
                .is_some_and(Metadata::is_annotated);
            if count > TAIL_DUPLICATION_LIMIT
                || opcode.is_convergent()
                || opcode == Opcode::Alloca
                || annotated
            {
                return false;
            }
        }
        true
    }

    /// A copy of `block` (no parameters, no successors) appended to the layout.
    fn clone_block(&mut self, block: Block) -> Block {
        let function = self.function_mut();
        let copy = function.append_new_block();
        let insts: Vec<Inst> = function.layout.block_insts(block).collect();
        // Values defined in the block map to their copies; others stay.
        let mut mapping: Vec<(Value, Value)> = Vec::new();
        for inst in insts {
            let mut data = function.dfg.inst(inst).clone();
            data.map_values(|v| {
                let v = function.dfg.resolve(v);
                mapping
                    .iter()
                    .find(|(old, _)| *old == v)
                    .map_or(v, |&(_, new)| new)
            });
            let new_inst = function.dfg.make_inst(data);
            if let Some(result) = function.dfg.inst_result(inst) {
                let ty = function.dfg.value_type(result);
                let new_result = function.dfg.make_result(new_inst, ty);
                mapping.push((result, new_result));
            }
            if let Some(metadata) = function.dfg.metadata(inst).cloned() {
                function.dfg.set_metadata(new_inst, metadata);
            }
            function.layout.append_inst(new_inst, copy);
        }
        copy
    }
}

#[cfg(test)]
mod tests;
