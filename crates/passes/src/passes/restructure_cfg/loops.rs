//! Loops of a reducible CFG, and their normal form before the selections are built.
//!
//! **Analysis.** Back edges are the retreating edges of a depth-first search; in a reducible
//! CFG each targets a block that dominates its source (a retreating edge that does not is
//! irreducible, [`count_irreducible_regions`]). Natural loops are found innermost first
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
use crate::analysis::cfg::{Cfg, NONE};
use cranelift_entity::SecondaryMap;
use oxir_ir::dominance::DominatorTree;
use oxir_ir::{Block, BlockCall, Inst, InstData, Opcode, Payload, SwitchTable};

/// At most this many blocks are absorbed into one loop; past it the remaining exits go
/// through the dispatch (`iteration_limit_count`).
pub const ABSORPTION_LIMIT: usize = 1024;

/// Counts the irreducible regions of a CFG: the distinct blocks entered by a retreating
/// edge (with respect to the CFG's depth-first order) whose source they do not dominate.
pub fn count_irreducible_regions(cfg: &Cfg, tree: &DominatorTree) -> u64 {
    let position = rpo_positions(cfg);
    let mut marked = vec![false; cfg.block_count()];
    let mut count = 0;
    for &n in cfg.rpo_numbers() {
        for &s in cfg.succ_graph().successors(n) {
            let retreating = position[s as usize] <= position[n as usize];
            if retreating && !tree.dominates(s, n) && !marked[s as usize] {
                marked[s as usize] = true;
                count += 1;
            }
        }
    }
    count
}

/// Position of each block number in reverse post-order; `NONE` when unreachable.
fn rpo_positions(cfg: &Cfg) -> Vec<u32> {
    let mut position = vec![NONE; cfg.block_count()];
    for (i, &n) in cfg.rpo_numbers().iter().enumerate() {
        position[n as usize] = i as u32;
    }
    position
}

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
    /// The enclosing loop, `NONE` at the top level.
    pub parent: u32,
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
    pub loops: Vec<LoopData>,
    /// The innermost loop of each block, `NONE` outside every loop. New blocks are labelled
    /// when they are created.
    pub innermost: SecondaryMap<Block, u32>,
    /// The loop whose header a block is, `NONE` otherwise.
    pub header_of: SecondaryMap<Block, u32>,
    /// The loop whose preheader a block is, `NONE` otherwise.
    pub preheader_of: SecondaryMap<Block, u32>,
    /// Blocks the pass created or gave a loop role (never reused for another role).
    special: SecondaryMap<Block, bool>,
    /// Loop ids, every loop after the loops it contains.
    children_first: Vec<u32>,
    /// Blocks whose innermost loop is each loop (lazily pruned: a block absorbed by an inner
    /// loop stays in its old list, and readers check `innermost`).
    level_blocks: Vec<Vec<Block>>,
    /// The loop whose exit list last took each block (`NONE`: none yet). One map for the
    /// whole nest, stamped with the loop id, so that collecting a loop's exits costs its
    /// size, not the function's.
    exit_stamp: SecondaryMap<Block, u32>,
}

impl LoopNest {
    /// Whether `block` is inside loop `id` (in it or in a loop it contains).
    pub fn in_loop(&self, block: Block, id: u32) -> bool {
        let inner = self.innermost[block];
        if inner == NONE {
            return false;
        }
        let (outer, inner) = (&self.loops[id as usize], &self.loops[inner as usize]);
        outer.pre <= inner.pre && inner.post <= outer.post
    }

    /// The loop `block` is the preheader of.
    pub fn preheader_loop(&self, block: Block) -> Option<&LoopData> {
        let id = self.preheader_of[block];
        (id != NONE).then(|| &self.loops[id as usize])
    }

    /// The loop whose header `block` is, when that loop is a `loop` (its prepare block).
    pub fn counted_loop_of_prepare(&self, block: Block) -> Option<&LoopData> {
        let id = self.header_of[block];
        if id == NONE {
            return None;
        }
        let data = &self.loops[id as usize];
        matches!(data.form, LoopForm::Counted { .. }).then_some(data)
    }

    /// The innermost loop of `block`.
    pub fn loop_of(&self, block: Block) -> Option<&LoopData> {
        let id = self.innermost[block];
        (id != NONE).then(|| &self.loops[id as usize])
    }

    /// Finds the loops of the (reachable, reducible) function; [`LoopNest::normalize`]
    /// brings them to normal form.
    pub fn find(ctx: &mut Ctx) -> Result<LoopNest, Failure> {
        let analysis = ctx.analyze();
        let (cfg, tree) = (&analysis.cfg, &analysis.tree);
        let count = cfg.block_count();
        let position = rpo_positions(&cfg);
        if count_irreducible_regions(&cfg, &tree) > 0 {
            return Err(Failure::Internal); // the preflight refuses irreducible functions
        }
        let preds = cfg.pred_graph();
        // Loop headers, innermost first.
        let mut is_header = vec![false; count];
        for &n in cfg.rpo_numbers() {
            for &s in cfg.succ_graph().successors(n) {
                if position[s as usize] <= position[n as usize] {
                    is_header[s as usize] = true;
                }
            }
        }
        let mut headers: Vec<u32> = (0..count as u32)
            .filter(|&n| is_header[n as usize])
            .collect();
        headers.sort_unstable_by_key(|&n| std::cmp::Reverse(position[n as usize]));

        let mut representative: Vec<u32> = (0..count as u32).collect();
        let mut innermost = vec![NONE; count];
        let mut loop_of_header = vec![NONE; count];
        let mut visited = vec![NONE; count];
        let mut parent = vec![NONE; headers.len()];
        let mut stack: Vec<u32> = Vec::new();
        for (id, &header) in headers.iter().enumerate() {
            let id = id as u32;
            loop_of_header[header as usize] = id;
            innermost[header as usize] = id;
            stack.extend(
                preds
                    .successors(header)
                    .iter()
                    .copied()
                    .filter(|&p| tree.dominates(header, p)),
            );
            while let Some(p) = stack.pop() {
                let r = find(&mut representative, p);
                if r == header || visited[r as usize] == id {
                    continue;
                }
                visited[r as usize] = id;
                match loop_of_header[r as usize] {
                    NONE => innermost[r as usize] = id,
                    inner => parent[inner as usize] = id,
                }
                representative[r as usize] = header;
                stack.extend(
                    preds
                        .successors(r)
                        .iter()
                        .copied()
                        .filter(|&q| tree.is_reachable(q)),
                );
            }
        }

        // Loop-tree numbering and a children-first order, iteratively.
        let loop_count = headers.len();
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); loop_count];
        let mut roots = Vec::new();
        for id in 0..loop_count as u32 {
            match parent[id as usize] {
                NONE => roots.push(id),
                p => children[p as usize].push(id),
            }
        }
        let mut pre = vec![0u32; loop_count];
        let mut post = vec![0u32; loop_count];
        let mut children_first = Vec::with_capacity(loop_count);
        let (mut pre_counter, mut post_counter) = (0u32, 0u32);
        for &root in &roots {
            let mut walk: Vec<(u32, usize)> = vec![(root, 0)];
            pre[root as usize] = pre_counter;
            pre_counter += 1;
            while let Some(top) = walk.last_mut() {
                let (node, next) = *top;
                if let Some(&child) = children[node as usize].get(next) {
                    top.1 += 1;
                    pre[child as usize] = pre_counter;
                    pre_counter += 1;
                    walk.push((child, 0));
                } else {
                    post[node as usize] = post_counter;
                    post_counter += 1;
                    children_first.push(node);
                    walk.pop();
                }
            }
        }

        let mut nest = LoopNest {
            loops: headers
                .iter()
                .enumerate()
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
            innermost: SecondaryMap::with_default(NONE),
            header_of: SecondaryMap::with_default(NONE),
            preheader_of: SecondaryMap::with_default(NONE),
            special: SecondaryMap::new(),
            children_first,
            level_blocks: vec![Vec::new(); loop_count],
            exit_stamp: SecondaryMap::with_default(NONE),
        };
        for n in 0..count {
            let block = cfg.block(n as u32);
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
        for id in 0..self.loops.len() as u32 {
            self.insert_preheader(ctx, &before.cfg, id);
        }
        ctx.info.dominance_query_count += before.tree.take_query_count();
        drop(before);
        // Dominance among the blocks that exist now does not change while exits are routed
        // (only edges inside a loop move, through blocks inside it), so one tree serves.
        let analysis = ctx.analyze();
        let (cfg, tree) = (&analysis.cfg, &analysis.tree);
        let position = rpo_positions(&cfg);
        for block in ctx.function().layout.blocks() {
            let id = self.innermost[block];
            if id != NONE {
                self.level_blocks[id as usize].push(block);
            }
        }
        let order = self.children_first.clone();
        for id in order {
            self.normalize_loop(ctx, &cfg, &tree, &position, id)?;
        }
        ctx.info.dominance_query_count += tree.take_query_count();
        Ok(())
    }

    fn insert_preheader(&mut self, ctx: &mut Ctx, cfg: &Cfg, id: u32) {
        let (header, parent) = {
            let data = &self.loops[id as usize];
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
        self.preheader_of[preheader] = id;
        self.loops[id as usize].preheader = preheader;
    }

    fn normalize_loop(
        &mut self,
        ctx: &mut Ctx,
        cfg: &Cfg,
        tree: &DominatorTree,
        position: &[u32],
        id: u32,
    ) -> Result<(), Failure> {
        let (header, parent) = {
            let data = &self.loops[id as usize];
            (data.header, data.parent)
        };
        let header_number = cfg.number(header).ok_or(Failure::Internal)?;
        let rpo_of = |b: Block| cfg.number(b).map_or(NONE, |n| position[n as usize]);
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
            self.innermost[block] = id;
            self.level_blocks[id as usize].push(block);
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
            if parent != NONE {
                self.level_blocks[parent as usize].push(merge);
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
                    let exit = match &data.payload {
                        Payload::CondBranch { then_dest, .. } => then_dest.clone(),
                        _ => return Err(Failure::Internal),
                    };
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
        let data = &mut self.loops[id as usize];
        data.merge = merge;
        data.form = form;
        Ok(())
    }

    /// The blocks whose innermost loop is `id` now.
    fn level(&self, id: u32) -> Vec<Block> {
        self.level_blocks[id as usize]
            .iter()
            .copied()
            .filter(|&b| self.innermost[b] == id)
            .collect()
    }

    /// Adds the targets of `block`'s edges that leave loop `id` to `exits`.
    /// Each target is added once per loop, even after the absorption loop removed it from
    /// `exits` (an absorbed block is then inside the loop and no longer an exit).
    fn collect_exits(&mut self, ctx: &Ctx, block: Block, id: u32, exits: &mut Vec<Block>) {
        for target in ctx.function().successors(block) {
            if !self.in_loop(target, id) && self.exit_stamp[target] != id {
                self.exit_stamp[target] = id;
                exits.push(target);
            }
        }
    }

    /// Whether `block` sits at the level of loop `id`'s parent (or leaves the function and is
    /// in no loop), has no loop role, and all its predecessors are inside loop `id`: the
    /// loop may take it in, or use it as merge.
    fn only_reached_from(&self, cfg: &Cfg, block: Block, id: u32, parent: u32) -> bool {
        let level = self.innermost[block];
        let exits_function = || {
            cfg.number(block)
                .is_some_and(|n| cfg.succ_graph().successors(n).is_empty())
        };
        (level == parent || (level == NONE && exits_function()))
            && self.header_of[block] == NONE
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
        id: u32,
        merge: Block,
        exits: &[Block],
        counted: bool,
    ) -> Result<(), Failure> {
        let header = self.loops[id as usize].header;
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
                        self.innermost[split] = id;
                        self.special[split] = true;
                        self.level_blocks[id as usize].push(split);
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
    fn update_block(&mut self, ctx: &mut Ctx, id: u32, body: Block) -> Result<Block, Failure> {
        let header = self.loops[id as usize].header;
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
                && self.header_of[*latch] == NONE
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
        self.innermost[update] = id;
        self.special[update] = true;
        self.level_blocks[id as usize].push(update);
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

/// Union-find root with path compression.
fn find(representative: &mut [u32], mut x: u32) -> u32 {
    let mut root = x;
    while representative[root as usize] != root {
        root = representative[root as usize];
    }
    while representative[x as usize] != root {
        let next = representative[x as usize];
        representative[x as usize] = root;
        x = next;
    }
    root
}
