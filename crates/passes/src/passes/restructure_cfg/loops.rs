//! Loops of a reducible CFG, and their normal form before the selections are built.
//!
//! **Analysis.** Back edges are the retreating edges of a depth-first search; in a reducible
//! CFG each targets a block that dominates its source (a retreating edge that does not is
//! irreducible, [`irreducible_region_entries`]). Natural loops are found innermost first
//! (headers in decreasing reverse post-order) by walking backwards from the latches, with a
//! union-find that collapses every finished inner loop into its header, so each block is
//! visited once per loop that directly contains it: near-linear overall. A block's
//! *innermost* loop is the first loop that claims it.
//!
//! **Normal form** (loops innermost first, so an inner loop's exits are already routed
//! through its merge block when its parent looks at its own exits):
//! - *Preheader.* The edges entering the header from outside go through one block that will
//!   hold the loop construct: the only outside predecessor when it ends in `br header` and
//!   belongs to the parent loop, otherwise a new block.
//! - *Exit absorption.* While the loop has more than one exit target that its header
//!   dominates, it takes in such a target whose predecessors are all inside it and that sits
//!   at the parent loop's level (or leaves the function and is in no loop) — blocks that
//!   leave the function first, the header's own exit last, otherwise the earliest in reverse
//!   post-order. This keeps a `break` arm's code or an early `return` inside the loop
//!   instead of routing it through a dispatch, and a top-tested loop top-tested. At most
//!   [`ABSORPTION_LIMIT`] blocks per loop.
//! - *Merge.* One exit target that the header dominates and that only the loop reaches is
//!   the merge block itself. Otherwise a new merge block branches to the single target, or
//!   (several targets) every exit stores the target's number in the selector slot and the
//!   merge dispatches on it (`cond_br` / `switch_br`, structured later like any branch).
//!   An exit through a `br` stores before it; an exit edge of a multi-way branch goes
//!   through a new block that stores; a `loop`'s prepare block stores its exit's number
//!   before its `cond_br` (every other exit overwrites it). A loop without exits gets a
//!   merge block that ends in `unreachable`.
//! - *Form.* A header ending in `cond_br c, in-loop, exit` makes the loop a `loop` with the
//!   header as prepare block (the condition is negated when the exit is the `then` edge);
//!   its only latch is the update block when that latch ends in `br header`, otherwise the
//!   latches go through a new update block. Any other loop is a `simple_loop`.

use super::{Ctx, Failure};
use crate::analysis::cfg::{Cfg, CfgNode, RpoPosition};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};
use oxir_ir::dominance::DominatorTree;
use oxir_ir::{Block, BlockCall, Inst, InstData, Opcode, Payload, SwitchTable};

/// At most this many blocks are absorbed into one loop; past it the remaining exits go
/// through the dispatch (`iteration_limit_count`).
pub const ABSORPTION_LIMIT: usize = 1024;

/// The irreducible regions of a CFG, one per entry: the distinct blocks entered by a
/// retreating edge (with respect to the CFG's depth-first order) whose source they do not
/// dominate, in the order reverse post-order first reaches such an edge.
pub fn irreducible_region_entries(cfg: &Cfg, tree: &DominatorTree<CfgNode>) -> Vec<CfgNode> {
    let mut marked: SecondaryMap<CfgNode, bool> = SecondaryMap::with_capacity(cfg.block_count());
    let mut entries = Vec::new();
    for &n in cfg.rpo_numbers() {
        for &s in cfg.succ_graph().successors(n) {
            if is_retreating(cfg, n, s) && !tree.dominates(s, n) && !marked[s] {
                marked[s] = true;
                entries.push(s);
            }
        }
    }
    entries
}

/// Whether the edge `from → to` between reachable nodes goes back (or stays) in reverse
/// post-order.
fn is_retreating(cfg: &Cfg, from: CfgNode, to: CfgNode) -> bool {
    cfg.rpo_position(to) <= cfg.rpo_position(from)
}

/// The sort key of `block` by reverse post-order: reachable blocks by position, then
/// every unreachable block or block outside the CFG (all equal).
fn rpo_rank(cfg: &Cfg, block: Block) -> (bool, Option<RpoPosition>) {
    let position = cfg.number(block).and_then(|n| cfg.rpo_position(n));
    (position.is_none(), position)
}

/// A loop of a [`LoopNest`], innermost first (by header, latest in reverse post-order
/// first). Prints as `nestN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(u32);
entity_impl!(LoopId, "nest");

/// The construct a loop becomes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoopForm {
    /// `simple_loop body header, merge M`; `continue` targets the header.
    Simple,
    /// `loop prepare header, body B, update U, merge M`.
    Counted { body: Block, update: Block },
}

/// One loop of the nest.
#[derive(Clone, Debug)]
pub struct LoopData {
    pub header: Block,
    /// The enclosing loop, none at the top level.
    pub parent: PackedOption<LoopId>,
    /// Loop-tree interval numbers for O(1) nesting tests.
    pre: u32,
    post: u32,
    /// The block that will end in the loop construct.
    pub preheader: Block,
    pub merge: Block,
    pub form: LoopForm,
}

/// The loop nest of a function in normal form (see the module docs).
pub struct LoopNest {
    pub loops: PrimaryMap<LoopId, LoopData>,
    /// The innermost loop of each block, none outside every loop. New blocks are labelled
    /// when they are created.
    pub innermost: SecondaryMap<Block, PackedOption<LoopId>>,
    /// The loop whose header a block is, none otherwise.
    pub header_of: SecondaryMap<Block, PackedOption<LoopId>>,
    /// The loop whose preheader a block is, none otherwise.
    pub preheader_of: SecondaryMap<Block, PackedOption<LoopId>>,
    /// Blocks the pass created or gave a loop role (never reused for another role).
    special: SecondaryMap<Block, bool>,
    /// Loop ids, every loop after the loops it contains.
    children_first: Vec<LoopId>,
    /// Blocks whose innermost loop is each loop (lazily pruned: a block absorbed by an inner
    /// loop stays in its old list, and readers check `innermost`).
    level_blocks: SecondaryMap<LoopId, Vec<Block>>,
    /// The loop whose exit list last took each block (none yet). One map for the
    /// whole nest, stamped with the loop id, so that collecting a loop's exits costs its
    /// size, not the function's.
    exit_stamp: SecondaryMap<Block, PackedOption<LoopId>>,
}

impl LoopNest {
    /// Whether `block` is inside loop `id` (in it or in a loop it contains).
    pub fn in_loop(&self, block: Block, id: LoopId) -> bool {
        let Some(inner) = self.innermost[block].expand() else {
            return false;
        };
        let (outer, inner) = (&self.loops[id], &self.loops[inner]);
        outer.pre <= inner.pre && inner.post <= outer.post
    }

    /// The loop `block` is the preheader of.
    pub fn preheader_loop(&self, block: Block) -> Option<&LoopData> {
        self.preheader_of[block].expand().map(|id| &self.loops[id])
    }

    /// The loop whose header `block` is, when that loop is a `loop` (its prepare block).
    pub fn counted_loop_of_prepare(&self, block: Block) -> Option<&LoopData> {
        let data = &self.loops[self.header_of[block].expand()?];
        matches!(data.form, LoopForm::Counted { .. }).then_some(data)
    }

    /// The innermost loop of `block`.
    pub fn loop_of(&self, block: Block) -> Option<&LoopData> {
        self.innermost[block].expand().map(|id| &self.loops[id])
    }

    /// Finds the loops of the (reachable, reducible) function; [`LoopNest::normalize`]
    /// brings them to normal form.
    pub fn find(ctx: &mut Ctx) -> Result<LoopNest, Failure> {
        let analysis = ctx.analyze();
        let (cfg, tree) = (&analysis.cfg, &analysis.tree);
        let count = cfg.block_count();
        if !irreducible_region_entries(cfg, tree).is_empty() {
            return Err(Failure::Internal); // the preflight refuses irreducible functions
        }
        let preds = cfg.pred_graph();
        // Loop headers, innermost first.
        let mut is_header: SecondaryMap<CfgNode, bool> = SecondaryMap::with_capacity(count);
        for &n in cfg.rpo_numbers() {
            for &s in cfg.succ_graph().successors(n) {
                if is_retreating(cfg, n, s) {
                    is_header[s] = true;
                }
            }
        }
        let mut headers: Vec<CfgNode> = cfg.nodes().filter(|&n| is_header[n]).collect();
        headers.sort_unstable_by_key(|&n| std::cmp::Reverse(cfg.rpo_position(n)));
        let headers: PrimaryMap<LoopId, CfgNode> = headers.into_iter().collect();

        let mut representative: PrimaryMap<CfgNode, CfgNode> = cfg.nodes().collect();
        let mut innermost: SecondaryMap<CfgNode, PackedOption<LoopId>> = SecondaryMap::new();
        let mut loop_of_header: SecondaryMap<CfgNode, PackedOption<LoopId>> = SecondaryMap::new();
        let mut visited: SecondaryMap<CfgNode, PackedOption<LoopId>> = SecondaryMap::new();
        let mut parent: SecondaryMap<LoopId, PackedOption<LoopId>> = SecondaryMap::new();
        let mut stack: Vec<CfgNode> = Vec::new();
        for (id, &header) in headers.iter() {
            loop_of_header[header] = id.into();
            innermost[header] = id.into();
            stack.extend(
                preds
                    .successors(header)
                    .iter()
                    .copied()
                    .filter(|&p| tree.dominates(header, p)),
            );
            while let Some(p) = stack.pop() {
                let r = find(&mut representative, p);
                if r == header || visited[r].expand() == Some(id) {
                    continue;
                }
                visited[r] = id.into();
                match loop_of_header[r].expand() {
                    None => innermost[r] = id.into(),
                    Some(inner) => parent[inner] = id.into(),
                }
                representative[r] = header;
                stack.extend(
                    preds
                        .successors(r)
                        .iter()
                        .copied()
                        .filter(|&q| tree.is_reachable(q)),
                );
            }
        }
        let (pre, post, children_first) = number_loop_tree(headers.len(), &parent);

        let mut nest = LoopNest {
            loops: headers
                .iter()
                .map(|(id, &h)| LoopData {
                    header: cfg.block(h),
                    parent: parent[id],
                    pre: pre[id],
                    post: post[id],
                    preheader: cfg.block(h),
                    merge: cfg.block(h),
                    form: LoopForm::Simple,
                })
                .collect(),
            innermost: SecondaryMap::new(),
            header_of: SecondaryMap::new(),
            preheader_of: SecondaryMap::new(),
            special: SecondaryMap::new(),
            children_first,
            level_blocks: SecondaryMap::with_capacity(headers.len()),
            exit_stamp: SecondaryMap::new(),
        };
        for n in cfg.nodes() {
            let block = cfg.block(n);
            nest.innermost[block] = innermost[n];
            nest.header_of[block] = loop_of_header[n];
        }
        Ok(nest)
    }

    /// Preheaders for every loop, then exits, merges and latches innermost first.
    pub fn normalize(&mut self, ctx: &mut Ctx) -> Result<(), Failure> {
        if self.loops.is_empty() {
            return Ok(());
        }
        let before = ctx.analyze();
        let ids: Vec<LoopId> = self.loops.keys().collect();
        for id in ids {
            self.insert_preheader(ctx, &before.cfg, id);
        }
        ctx.info.dominance_query_count += before.tree.take_query_count();
        drop(before);
        // Dominance among the blocks that exist now does not change while exits are routed
        // (only edges inside a loop move, through blocks inside it), so one tree serves.
        let analysis = ctx.analyze();
        let (cfg, tree) = (&analysis.cfg, &analysis.tree);
        for block in ctx.function().layout.blocks() {
            if let Some(id) = self.innermost[block].expand() {
                self.level_blocks[id].push(block);
            }
        }
        let order = self.children_first.clone();
        for id in order {
            self.normalize_loop(ctx, cfg, tree, id)?;
        }
        ctx.info.dominance_query_count += tree.take_query_count();
        Ok(())
    }

    fn insert_preheader(&mut self, ctx: &mut Ctx, cfg: &Cfg, id: LoopId) {
        let (header, parent) = {
            let data = &self.loops[id];
            (data.header, data.parent)
        };
        let outside: Vec<Block> = cfg
            .preds(header)
            .filter(|&p| cfg.is_reachable(p) && !self.in_loop(p, id))
            .collect();
        let reusable = match outside.as_slice() {
            [only] => {
                let ends_in_br = ctx
                    .function()
                    .terminator(*only)
                    .is_some_and(|t| ctx.function().dfg.inst(t).opcode == Opcode::Br);
                ends_in_br && self.innermost[*only] == parent && !self.special[*only]
            }
            _ => false,
        };
        let preheader = if reusable {
            outside[0]
        } else {
            let block = ctx.new_block();
            ctx.append_jump(block, Opcode::Br, header);
            for &q in &outside {
                ctx.retarget(q, header, block);
            }
            self.innermost[block] = parent;
            block
        };
        self.special[preheader] = true;
        self.preheader_of[preheader] = id.into();
        self.loops[id].preheader = preheader;
    }

    fn normalize_loop(
        &mut self,
        ctx: &mut Ctx,
        cfg: &Cfg,
        tree: &DominatorTree<CfgNode>,
        id: LoopId,
    ) -> Result<(), Failure> {
        let (header, parent) = {
            let data = &self.loops[id];
            (data.header, data.parent)
        };
        let header_number = cfg.number(header).ok_or(Failure::Internal)?;
        let rpo_of = |b: Block| rpo_rank(cfg, b);
        let dominated = |b: Block| {
            cfg.number(b)
                .is_some_and(|n| tree.dominates(header_number, n))
        };

        // Distinct exit targets.
        let mut exits: Vec<Block> = Vec::new();
        let level: Vec<Block> = self.level(id);
        for &block in &level {
            self.collect_exits(ctx, block, id, &mut exits);
        }

        // Absorb exit targets the loop dominates until one is left; the header's own exit
        // last, so that a top-tested loop stays one.
        let header_exits: Vec<Block> = ctx
            .function()
            .successors(header)
            .filter(|&t| !self.in_loop(t, id))
            .collect();
        let mut absorbed = 0;
        loop {
            if exits.iter().filter(|&&e| dominated(e)).count() <= 1 {
                break;
            }
            let candidate = exits
                .iter()
                .copied()
                .filter(|&e| dominated(e) && self.only_reached_from(cfg, e, id, parent))
                .min_by_key(|&e| {
                    let leaves_function = ctx.function().successors(e).next().is_none();
                    (header_exits.contains(&e), !leaves_function, rpo_of(e))
                });
            let Some(block) = candidate else {
                break;
            };
            if absorbed == ABSORPTION_LIMIT {
                ctx.info.iteration_limit_count += 1;
                break;
            }
            absorbed += 1;
            self.innermost[block] = id.into();
            self.level_blocks[id].push(block);
            exits.retain(|&e| e != block);
            self.collect_exits(ctx, block, id, &mut exits);
        }
        ctx.info.absorbed_exit_block_count += absorbed as u64;
        exits.sort_by_key(|&e| (rpo_of(e), e));

        // The form, decided on the header's own branch.
        let header_term = ctx.terminator(header)?;
        let mut counted: Option<(Block, bool)> = None; // (body, body is the else edge)
        if let Payload::CondBranch {
            then_dest,
            else_dest,
        } = &ctx.function().dfg.inst(header_term).payload
        {
            let (then_in, else_in) = (
                self.in_loop(then_dest.block, id),
                self.in_loop(else_dest.block, id),
            );
            if then_in != else_in {
                let body = if then_in {
                    then_dest.block
                } else {
                    else_dest.block
                };
                if body != header {
                    counted = Some((body, else_in));
                }
            }
        }

        // The merge block and the routing of the exits.
        let reuse = matches!(exits.as_slice(), [only] if dominated(*only)
            && self.only_reached_from(cfg, *only, id, parent));
        let merge = if reuse {
            self.innermost[exits[0]] = parent;
            exits[0]
        } else {
            let merge = ctx.new_block();
            self.innermost[merge] = parent;
            if let Some(parent) = parent.expand() {
                self.level_blocks[parent].push(merge);
            }
            self.route_exits(ctx, id, merge, &exits, counted.is_some())?;
            merge
        };
        self.special[merge] = true;

        // Counted loops: the prepare branch is `cond_br c, body, merge`; one update block.
        let form = match counted {
            None => LoopForm::Simple,
            Some((body, inverted)) => {
                if inverted {
                    let term = ctx.terminator(header)?;
                    let data = ctx.function().dfg.inst(term).clone();
                    let bool_ty = ctx.bool_ty;
                    let negated = ctx
                        .insert_before(term, InstData::new(Opcode::Not, &data.args), Some(bool_ty))
                        .ok_or(Failure::Internal)?;
                    // `counted` is only set for a header ending in `cond_br`.
                    let Payload::CondBranch { then_dest, .. } = &data.payload else {
                        return Err(Failure::Internal);
                    };
                    let exit = then_dest.clone();
                    let payload = Payload::CondBranch {
                        then_dest: BlockCall::new(body),
                        else_dest: exit,
                    };
                    ctx.set_terminator(
                        header,
                        InstData::with_payload(Opcode::CondBr, &[negated], payload),
                    );
                }
                let update = self.update_block(ctx, id, body)?;
                LoopForm::Counted { body, update }
            }
        };
        let data = &mut self.loops[id];
        data.merge = merge;
        data.form = form;
        Ok(())
    }

    /// The blocks whose innermost loop is `id` now.
    fn level(&self, id: LoopId) -> Vec<Block> {
        self.level_blocks[id]
            .iter()
            .copied()
            .filter(|&b| self.innermost[b].expand() == Some(id))
            .collect()
    }

    /// Adds the targets of `block`'s edges that leave loop `id` to `exits`.
    /// Each target is added once per loop, even after the absorption loop removed it from
    /// `exits` (an absorbed block is then inside the loop and no longer an exit).
    fn collect_exits(&mut self, ctx: &Ctx, block: Block, id: LoopId, exits: &mut Vec<Block>) {
        for target in ctx.function().successors(block) {
            if !self.in_loop(target, id) && self.exit_stamp[target].expand() != Some(id) {
                self.exit_stamp[target] = id.into();
                exits.push(target);
            }
        }
    }

    /// Whether `block` sits at the level of loop `id`'s parent (or leaves the function and is
    /// in no loop), has no loop role, and all its predecessors are inside loop `id`: the
    /// loop may take it in, or use it as merge.
    fn only_reached_from(
        &self,
        cfg: &Cfg,
        block: Block,
        id: LoopId,
        parent: PackedOption<LoopId>,
    ) -> bool {
        let level = self.innermost[block];
        let exits_function = || {
            cfg.number(block)
                .is_some_and(|n| cfg.succ_graph().successors(n).is_empty())
        };
        (level == parent || (level.is_none() && exits_function()))
            && self.header_of[block].is_none()
            && !self.special[block]
            && cfg.number(block).is_some()
            && cfg.preds(block).all(|p| self.in_loop(p, id))
    }

    /// Points every exit edge of loop `id` at `merge` (a new block at the parent level) and
    /// fills `merge`: `unreachable` without exits, `br` to the one target, or a dispatch on
    /// the selector that each exit stores.
    fn route_exits(
        &mut self,
        ctx: &mut Ctx,
        id: LoopId,
        merge: Block,
        exits: &[Block],
        counted: bool,
    ) -> Result<(), Failure> {
        let header = self.loops[id].header;
        match exits {
            [] => {
                let message = Payload::Message("the loop never exits".into());
                ctx.append(
                    merge,
                    InstData::with_payload(Opcode::Unreachable, &[], message),
                    None,
                );
                return Ok(());
            }
            [only] => {
                for block in self.level(id) {
                    ctx.retarget(block, *only, merge);
                }
                ctx.append_jump(merge, Opcode::Br, *only);
                return Ok(());
            }
            _ => {}
        }
        ctx.info.loop_exit_dispatch_count += 1;
        let number_of = |target: Block| exits.iter().position(|&e| e == target);
        for block in self.level(id) {
            let term = ctx.terminator(block)?;
            let edge_targets: Vec<Block> = ctx.function().successors(block).collect();
            let leaving: Vec<(usize, u32)> = edge_targets
                .iter()
                .enumerate()
                .filter_map(|(i, &t)| number_of(t).map(|n| (i, n as u32)))
                .collect();
            if leaving.is_empty() {
                continue;
            }
            let opcode = ctx.function().dfg.inst(term).opcode;
            let single_edge = opcode == Opcode::Br || (counted && block == header);
            if single_edge && leaving.len() == 1 {
                // The store runs on every path through `block`, which is fine: in a counted
                // header it is overwritten by any other exit before it is read.
                let (edge, number) = leaving[0];
                ctx.store_selector_before(term, number);
                set_edge_target(ctx, term, edge, merge);
                continue;
            }
            let mut splits: Vec<(u32, Block)> = Vec::new();
            for (edge, number) in leaving {
                let split = match splits.iter().find(|(n, _)| *n == number) {
                    Some(&(_, split)) => split,
                    None => {
                        let split = ctx.new_block();
                        ctx.append_store_selector(split, number);
                        ctx.append_jump(split, Opcode::Br, merge);
                        self.innermost[split] = id.into();
                        self.special[split] = true;
                        self.level_blocks[id].push(split);
                        splits.push((number, split));
                        split
                    }
                };
                set_edge_target(ctx, term, edge, split);
            }
        }
        // The dispatch.
        let slot = ctx.selector();
        let u32_ty = ctx.u32_ty;
        let selector = ctx
            .append(merge, InstData::new(Opcode::Load, &[slot]), Some(u32_ty))
            .ok_or(Failure::Internal)?;
        if let [first, second] = exits {
            let zero = ctx.u32_value(0);
            let bool_ty = ctx.bool_ty;
            let is_first = ctx
                .append(
                    merge,
                    InstData::new(Opcode::Eq, &[selector, zero]),
                    Some(bool_ty),
                )
                .ok_or(Failure::Internal)?;
            let payload = Payload::CondBranch {
                then_dest: BlockCall::new(*first),
                else_dest: BlockCall::new(*second),
            };
            ctx.append(
                merge,
                InstData::with_payload(Opcode::CondBr, &[is_first], payload),
                None,
            );
        } else {
            let (last, rest) = exits.split_last().ok_or(Failure::Internal)?;
            let table = SwitchTable {
                cases: rest
                    .iter()
                    .enumerate()
                    .map(|(n, &target)| (n as u64, BlockCall::new(target)))
                    .collect(),
                default: BlockCall::new(*last),
            };
            let payload = Payload::SwitchBranch(Box::new(table));
            ctx.append(
                merge,
                InstData::with_payload(Opcode::SwitchBr, &[selector], payload),
                None,
            );
        }
        Ok(())
    }

    /// The update block of a counted loop: its only latch when that ends in `br header` and
    /// has no other role, otherwise a new block that all latches branch to.
    fn update_block(&mut self, ctx: &mut Ctx, id: LoopId, body: Block) -> Result<Block, Failure> {
        let header = self.loops[id].header;
        let latches: Vec<Block> = self
            .level(id)
            .into_iter()
            .filter(|&b| ctx.function().successors(b).any(|t| t == header))
            .collect();
        if let [latch] = latches.as_slice() {
            let term = ctx.terminator(*latch)?;
            let is_br = ctx.function().dfg.inst(term).opcode == Opcode::Br;
            if is_br
                && *latch != body
                && *latch != header
                && !self.special[*latch]
                && self.header_of[*latch].is_none()
            {
                self.special[*latch] = true;
                return Ok(*latch);
            }
        }
        let update = ctx.new_block();
        ctx.append_jump(update, Opcode::Br, header);
        for latch in latches {
            ctx.retarget(latch, header, update);
        }
        self.innermost[update] = id.into();
        self.special[update] = true;
        self.level_blocks[id].push(update);
        Ok(update)
    }
}

/// Points edge `edge` of terminator `term` at `target`.
fn set_edge_target(ctx: &mut Ctx, term: Inst, edge: usize, target: Block) {
    if let Some(dest) = ctx
        .function_mut()
        .dfg
        .inst_mut(term)
        .payload
        .edges_mut()
        .into_iter()
        .nth(edge)
    {
        dest.block = target;
    }
}

/// Loop-tree interval numbers (pre, post) and a children-first order of the loops, given
/// each loop's parent; iterative.
fn number_loop_tree(
    loop_count: usize,
    parent: &SecondaryMap<LoopId, PackedOption<LoopId>>,
) -> (
    SecondaryMap<LoopId, u32>,
    SecondaryMap<LoopId, u32>,
    Vec<LoopId>,
) {
    let ids = || (0..loop_count).map(LoopId::new);
    let mut children: SecondaryMap<LoopId, Vec<LoopId>> = SecondaryMap::with_capacity(loop_count);
    let mut roots = Vec::new();
    for id in ids() {
        match parent[id].expand() {
            None => roots.push(id),
            Some(p) => children[p].push(id),
        }
    }
    let mut pre: SecondaryMap<LoopId, u32> = SecondaryMap::with_capacity(loop_count);
    let mut post: SecondaryMap<LoopId, u32> = SecondaryMap::with_capacity(loop_count);
    let mut children_first = Vec::with_capacity(loop_count);
    let (mut pre_counter, mut post_counter) = (0u32, 0u32);
    for &root in &roots {
        let mut walk: Vec<(LoopId, usize)> = vec![(root, 0)];
        pre[root] = pre_counter;
        pre_counter += 1;
        while let Some(top) = walk.last_mut() {
            let (node, next) = *top;
            if let Some(&child) = children[node].get(next) {
                top.1 += 1;
                pre[child] = pre_counter;
                pre_counter += 1;
                walk.push((child, 0));
            } else {
                post[node] = post_counter;
                post_counter += 1;
                children_first.push(node);
                walk.pop();
            }
        }
    }
    (pre, post, children_first)
}

/// Union-find root with path compression.
fn find(representative: &mut PrimaryMap<CfgNode, CfgNode>, mut x: CfgNode) -> CfgNode {
    let mut root = x;
    while representative[root] != root {
        root = representative[root];
    }
    while representative[x] != root {
        let next = representative[x];
        representative[x] = root;
        x = next;
    }
    root
}
