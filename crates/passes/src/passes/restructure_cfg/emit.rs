//! Building the constructs over the acyclic *forward graph*.
//!
//! The forward graph has every block and every edge except `continue` edges (to a simple
//! loop's header or a loop's update block) and `break` edges (to a loop's merge), plus an
//! edge from each preheader to its loop's merge. It is acyclic, and its dominator tree nests
//! like the output: a preheader's children are its loop's header and merge.
//!
//! Each block is translated once, top-down over that tree (with an explicit work list),
//! knowing its *continuation*: the block its normal exits branch to (the merge of the
//! construct it is an arm of), and whether that block starts with a guard. A block `X` with
//! a `cond_br` / `switch_br` becomes an `if` / `switch`:
//! - an arm is the target itself when `X` dominates it alone (a tree child with one
//!   predecessor); otherwise a new block that `continue`s, `break`s, or jumps on;
//! - `X`'s *joins* (tree children with several predecessors), in reverse post-order,
//!   follow the construct. Children are ordered non-joins first, then joins, so the code
//!   before join `J` is the pre-order interval `[pre(X), pre(J))`, and `J` needs no guard
//!   exactly when every edge out of that interval targets `J`: when the interval's edge
//!   targets (a subtree aggregate of min / max pre-order numbers) lie in `[pre(X), pre(J)]`
//!   (an edge can enter a later subtree only at its root). The first join is then the
//!   construct's merge. A guarded join is entered by `if selector == id(J)`, and the
//!   branches that go there store `id(J)`;
//! - a jump stores its target's id only when its continuation starts with a guard, so
//!   code whose joins are all unguarded gets no selector traffic at all.

use super::loops::{LoopForm, LoopNest};
use super::{Ctx, Failure};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};
use oxir_ir::dominance::{reverse_post_order, DominatorTree, Graph};
use oxir_ir::TerminatorOp;
use oxir_ir::{Block, BlockCall, Inst, InstData, Opcode, Payload, SwitchTable, TypeData, Value};
use smallvec::SmallVec;

/// Translates every block reachable in the forward graph.
pub fn emit(ctx: &mut Ctx, nest: &LoopNest) -> Result<(), Failure> {
    let graph = ForwardGraph::build(ctx, nest)?;
    ctx.info.analysis_count += 1;
    let mut emitter = Emitter {
        ctx,
        nest,
        graph: &graph,
        work: Vec::new(),
        join_ids: SecondaryMap::new(),
        next_join_id: 0,
    };
    emitter.work.push(Task {
        node: ForwardNode::new(0),
        cont: None,
        top: true,
    });
    while let Some(task) = emitter.work.pop() {
        emitter.translate(task)?;
    }
    emitter.ctx.info.dominance_query_count += graph.tree.query_count();
    Ok(())
}

/// Where a block's normal exits go.
#[derive(Copy, Clone, Debug)]
struct Cont {
    block: Block,
    /// Whether `block` starts with a guard (jumps must store their target's id).
    guarded: bool,
}

#[derive(Copy, Clone, Debug)]
struct Task {
    node: ForwardNode,
    cont: Option<Cont>,
    /// Whether the block is at the top of its loop body (not inside any arm): there a
    /// latch of a `loop` branches to the update block with `br` instead of `continue`.
    top: bool,
}

/// A block's number in the [`ForwardGraph`] (its layout position). Prints as `fwdN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct ForwardNode(u32);
entity_impl!(ForwardNode, "fwd");
oxir_ir::impl_graph_node!(ForwardNode);

/// A position in the pre-order of the forward graph's ordered dominator tree. Prints as
/// `treeN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct TreeOrder(u32);
entity_impl!(TreeOrder, "tree");

/// Min and max of a set of pre-order numbers; `None` for the empty set.
#[derive(Copy, Clone)]
struct Span(Option<(TreeOrder, TreeOrder)>);

impl Span {
    const EMPTY: Span = Span(None);

    fn of(position: TreeOrder) -> Span {
        Span(Some((position, position)))
    }

    fn join(self, other: Span) -> Span {
        match (self.0, other.0) {
            (Some((a_min, a_max)), Some((b_min, b_max))) => {
                Span(Some((a_min.min(b_min), a_max.max(b_max))))
            }
            (Some(_), None) => self,
            (None, _) => other,
        }
    }

    /// Whether every number lies in `[low, high]` (true for the empty set).
    fn within(self, low: TreeOrder, high: TreeOrder) -> bool {
        self.0.is_none_or(|(min, max)| min >= low && max <= high)
    }
}

/// The forward graph, its dominator tree in pre-order, and the per-subtree aggregates.
struct ForwardGraph {
    blocks: PrimaryMap<ForwardNode, Block>,
    number: SecondaryMap<Block, PackedOption<ForwardNode>>,
    pred_count: SecondaryMap<ForwardNode, u32>,
    tree: DominatorTree<ForwardNode>,
    /// Tree children, non-joins first, then joins in reverse post-order.
    children: Graph<ForwardNode>,
    /// Pre-order number and last pre-order number of the subtree; none when unreachable.
    pre: SecondaryMap<ForwardNode, PackedOption<TreeOrder>>,
    last: SecondaryMap<ForwardNode, PackedOption<TreeOrder>>,
    /// Pre-order numbers of a block's own edge targets, and of its whole subtree's.
    own_targets: SecondaryMap<ForwardNode, Span>,
    subtree_targets: SecondaryMap<ForwardNode, Span>,
    /// Whether a block, or its subtree at the same loop level, has a `break` edge.
    own_break: SecondaryMap<ForwardNode, bool>,
    subtree_break: SecondaryMap<ForwardNode, bool>,
}

impl Default for Span {
    fn default() -> Span {
        Span::EMPTY
    }
}

impl ForwardGraph {
    fn build(ctx: &Ctx, nest: &LoopNest) -> Result<ForwardGraph, Failure> {
        let function = ctx.function();
        let blocks: PrimaryMap<ForwardNode, Block> = function.layout.blocks().collect();
        let count = blocks.len();
        let mut number: SecondaryMap<Block, PackedOption<ForwardNode>> = SecondaryMap::new();
        for (i, &b) in blocks.iter() {
            number[b] = i.into();
        }
        let mut edges: Vec<(ForwardNode, ForwardNode)> = Vec::new();
        let mut own_break: SecondaryMap<ForwardNode, bool> = SecondaryMap::with_capacity(count);
        for (i, &block) in blocks.iter() {
            let first = edges.len();
            let push = |edges: &mut Vec<(ForwardNode, ForwardNode)>,
                        target: Block|
             -> Result<(), Failure> {
                let to = number[target].expand().ok_or(Failure::Internal)?;
                if !edges[first..].iter().any(|&(_, t)| t == to) {
                    edges.push((i, to));
                }
                Ok(())
            };
            for target in function.successors(block) {
                match classify_exit(nest, block, target) {
                    Some(Exit::Break(_)) => own_break[i] = true,
                    Some(Exit::Continue(_)) => {}
                    None => push(&mut edges, target)?,
                }
            }
            if let Some(data) = nest.preheader_loop(block) {
                push(&mut edges, data.merge)?;
            }
        }
        let graph = Graph::from_edges(count, &edges);
        let mut pred_count: SecondaryMap<ForwardNode, u32> = SecondaryMap::with_capacity(count);
        for &(_, to) in &edges {
            pred_count[to] += 1;
        }
        let tree = DominatorTree::compute(&graph);
        let (rpo, reachable) = reverse_post_order(&graph);
        let mut rpo_position: SecondaryMap<ForwardNode, usize> = SecondaryMap::with_capacity(count);
        for (i, &n) in rpo.iter().enumerate() {
            rpo_position[n] = i;
        }
        // The graph must be acyclic: every edge goes forward in reverse post-order.
        if edges
            .iter()
            .any(|&(from, to)| reachable[from.index()] && rpo_position[to] <= rpo_position[from])
        {
            return Err(Failure::Internal);
        }

        // Ordered tree children.
        let mut pairs: Vec<(ForwardNode, bool, usize, ForwardNode)> = rpo
            .iter()
            .filter_map(|&n| {
                tree.idom(n)
                    .map(|parent| (parent, pred_count[n] >= 2, rpo_position[n], n))
            })
            .collect();
        pairs.sort_unstable();
        let child_edges: Vec<(ForwardNode, ForwardNode)> =
            pairs.iter().map(|&(parent, .., n)| (parent, n)).collect();

        let mut graph_data = ForwardGraph {
            blocks,
            number,
            pred_count,
            tree,
            children: Graph::from_edges(count, &child_edges),
            pre: SecondaryMap::with_capacity(count),
            last: SecondaryMap::with_capacity(count),
            own_targets: SecondaryMap::with_capacity(count),
            subtree_targets: SecondaryMap::with_capacity(count),
            own_break,
            subtree_break: SecondaryMap::with_capacity(count),
        };
        if count == 0 {
            return Ok(graph_data);
        }
        let preorder = graph_data.number_tree(count);
        for &node in &preorder {
            let span = graph
                .successors(node)
                .iter()
                .filter_map(|&t| graph_data.pre[t].expand())
                .fold(Span::EMPTY, |s, p| s.join(Span::of(p)));
            graph_data.own_targets[node] = span;
            graph_data.subtree_targets[node] = span;
            graph_data.subtree_break[node] = graph_data.own_break[node];
        }
        for &n in preorder.iter().rev() {
            let Some(p) = graph_data.tree.idom(n) else {
                continue;
            };
            graph_data.subtree_targets[p] =
                graph_data.subtree_targets[p].join(graph_data.subtree_targets[n]);
            // A loop body's breaks leave that loop, not the preheader's level.
            let enters_loop = nest
                .preheader_loop(graph_data.blocks[p])
                .is_some_and(|data| data.header == graph_data.blocks[n]);
            if !enters_loop {
                graph_data.subtree_break[p] |= graph_data.subtree_break[n];
            }
        }
        Ok(graph_data)
    }

    /// Pre-order over the ordered tree, iteratively: fills `pre` and `last` and returns
    /// the reachable nodes in that order.
    fn number_tree(&mut self, count: usize) -> Vec<ForwardNode> {
        let root = ForwardNode::new(0);
        let mut preorder: Vec<ForwardNode> = Vec::with_capacity(count);
        let mut walk: Vec<(ForwardNode, usize)> = vec![(root, 0)];
        self.pre[root] = TreeOrder::new(0).into();
        preorder.push(root);
        while let Some(top) = walk.last_mut() {
            let (node, next) = *top;
            if let Some(&child) = self.children(node).get(next) {
                top.1 += 1;
                self.pre[child] = TreeOrder::new(preorder.len()).into();
                preorder.push(child);
                walk.push((child, 0));
            } else {
                self.last[node] = TreeOrder::new(preorder.len() - 1).into();
                walk.pop();
            }
        }
        preorder
    }

    fn children(&self, node: ForwardNode) -> &[ForwardNode] {
        self.children.successors(node)
    }

    fn is_join(&self, node: ForwardNode) -> bool {
        self.pred_count[node] >= 2
    }

    /// The node of `block`; an internal error for a block outside the layout.
    fn node(&self, block: Block) -> Result<ForwardNode, Failure> {
        self.number[block].expand().ok_or(Failure::Internal)
    }

    /// The pre-order number of `node`; an internal error for an unreachable node.
    fn pre(&self, node: ForwardNode) -> Result<TreeOrder, Failure> {
        self.pre[node].expand().ok_or(Failure::Internal)
    }

    /// Whether an edge leaves the subtree of `node` (a normal exit of its translation).
    /// False for an unreachable node (it has no subtree and no edges are counted).
    fn leaves_subtree(&self, node: ForwardNode) -> bool {
        match (self.pre[node].expand(), self.last[node].expand()) {
            (Some(low), Some(high)) => !self.subtree_targets[node].within(low, high),
            _ => false,
        }
    }
}

/// A `continue` or `break` edge of the loop a block is in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Exit {
    Continue(Block),
    Break(Block),
}

fn classify_exit(nest: &LoopNest, block: Block, target: Block) -> Option<Exit> {
    let data = nest.loop_of(block)?;
    let continue_target = match data.form {
        LoopForm::Simple => data.header,
        LoopForm::Counted { update, .. } => update,
    };
    if target == continue_target || target == data.header {
        Some(Exit::Continue(continue_target))
    } else if target == data.merge {
        Some(Exit::Break(target))
    } else {
        None
    }
}

/// How an edge of a translated block is expressed.
#[derive(Copy, Clone, Debug)]
enum EdgeKind {
    Exit(Exit),
    /// The target is dominated by the source alone: translated in place.
    Child(ForwardNode),
    /// The target is a join: branch to the continuation.
    Jump(Block),
}

struct Emitter<'c, 'm, 'n, 'g> {
    ctx: &'c mut Ctx<'m>,
    nest: &'n LoopNest,
    graph: &'g ForwardGraph,
    work: Vec<Task>,
    /// The selector value of each guarded join, assigned on first use.
    join_ids: SecondaryMap<Block, Option<u32>>,
    next_join_id: u32,
}

impl Emitter<'_, '_, '_, '_> {
    fn kind(&self, source: Block, target: Block) -> Result<EdgeKind, Failure> {
        if let Some(exit) = classify_exit(self.nest, source, target) {
            return Ok(EdgeKind::Exit(exit));
        }
        let node = self.graph.node(target)?;
        Ok(if self.graph.is_join(node) {
            EdgeKind::Jump(target)
        } else {
            EdgeKind::Child(node)
        })
    }

    fn join_id(&mut self, join: Block) -> u32 {
        if let Some(id) = self.join_ids[join] {
            return id;
        }
        let id = self.next_join_id;
        self.join_ids[join] = Some(id);
        self.next_join_id += 1;
        id
    }

    fn translate(&mut self, task: Task) -> Result<(), Failure> {
        let block = self.graph.blocks[task.node];
        if let Some(data) = self.nest.preheader_loop(block) {
            let (header, merge, form) = (data.header, data.merge, data.form);
            let payload = match form {
                LoopForm::Simple => Payload::SimpleLoop {
                    body: BlockCall::new(header),
                    merge,
                },
                LoopForm::Counted { body, update } => Payload::Loop {
                    prepare: BlockCall::new(header),
                    body,
                    update,
                    merge,
                },
            };
            let opcode = match form {
                LoopForm::Simple => Opcode::SimpleLoop,
                LoopForm::Counted { .. } => Opcode::Loop,
            };
            self.ctx
                .set_terminator(block, InstData::with_payload(opcode, &[], payload));
            self.ctx.info.restructured_loop_count += 1;
            let (header_node, merge_node) = (self.graph.node(header)?, self.graph.node(merge)?);
            self.schedule(&[
                Task {
                    node: header_node,
                    cont: None,
                    top: true,
                },
                Task {
                    node: merge_node,
                    cont: task.cont,
                    top: task.top,
                },
            ]);
            return Ok(());
        }
        if let Some(data) = self.nest.counted_loop_of_prepare(block) {
            // The prepare block keeps its `cond_br c, body, merge`.
            let LoopForm::Counted { body, .. } = data.form else {
                return Err(Failure::Internal);
            };
            let body_node = self.graph.node(body)?;
            self.schedule(&[Task {
                node: body_node,
                cont: None,
                top: true,
            }]);
            return Ok(());
        }
        let term = self.ctx.terminator(block)?;
        let data = self.ctx.function().dfg.inst(term).clone();
        let targets: SmallVec<[Block; 4]> = data.payload.edges().iter().map(|e| e.block).collect();
        match data.opcode.terminator_op() {
            Some(TerminatorOp::Return | TerminatorOp::Unreachable | TerminatorOp::Discard) => {
                Ok(())
            }
            Some(TerminatorOp::Br) => self.translate_jump(task, block, term, targets[0]),
            Some(TerminatorOp::CondBr | TerminatorOp::SwitchBr) => {
                if targets.iter().all(|&t| t == targets[0]) {
                    // `cond_br c, b, b`: a plain branch.
                    let jump = Payload::Jump(BlockCall::new(targets[0]));
                    self.ctx
                        .set_terminator(block, InstData::with_payload(Opcode::Br, &[], jump));
                    self.ctx.info.canonicalized_cfg_count += 1;
                    return self.translate_jump(task, block, term, targets[0]);
                }
                self.translate_branch(task, block, term, &data.args, &data.payload)
            }
            // The input is unstructured (the preflight skips structured functions) and
            // every block is translated once, before it gets a construct; `ctx.terminator`
            // rules out a block without one.
            Some(
                TerminatorOp::If
                | TerminatorOp::Loop
                | TerminatorOp::SimpleLoop
                | TerminatorOp::Switch
                | TerminatorOp::Break
                | TerminatorOp::Continue,
            )
            | None => Err(Failure::Internal),
        }
    }

    /// Pushes tasks so that they are translated in the given order.
    fn schedule(&mut self, tasks: &[Task]) {
        self.work.extend(tasks.iter().rev().copied());
    }

    fn translate_jump(
        &mut self,
        task: Task,
        block: Block,
        term: Inst,
        target: Block,
    ) -> Result<(), Failure> {
        match self.kind(block, target)? {
            EdgeKind::Exit(exit) => {
                let counted_top = task.top
                    && matches!(
                        self.nest.loop_of(block).map(|d| d.form),
                        Some(LoopForm::Counted { .. })
                    );
                let (opcode, target) = match exit {
                    // The body of a `loop` ends in `br update` by the lowering contract.
                    Exit::Continue(update) if counted_top => (Opcode::Br, update),
                    Exit::Continue(target) => (Opcode::Continue, target),
                    Exit::Break(merge) => (Opcode::Break, merge),
                };
                let jump = Payload::Jump(BlockCall::new(target));
                self.ctx
                    .set_terminator(block, InstData::with_payload(opcode, &[], jump));
            }
            EdgeKind::Child(node) => {
                self.check_child(block, node)?;
                self.schedule(&[Task {
                    node,
                    cont: task.cont,
                    top: task.top,
                }]);
            }
            EdgeKind::Jump(join) => {
                let cont = task.cont.ok_or(Failure::Internal)?;
                if cont.guarded {
                    let id = self.join_id(join);
                    self.ctx.store_selector_before(term, id);
                }
                if cont.block != join {
                    self.ctx.retarget(block, join, cont.block);
                }
            }
        }
        Ok(())
    }

    fn check_child(&self, block: Block, node: ForwardNode) -> Result<(), Failure> {
        let parent = self.graph.tree.idom(node).ok_or(Failure::Internal)?;
        if self.graph.blocks[parent] == block {
            Ok(())
        } else {
            Err(Failure::Internal)
        }
    }

    /// A `cond_br` / `switch_br` at `block`: the construct, its arms and its joins.
    fn translate_branch(
        &mut self,
        task: Task,
        block: Block,
        term: Inst,
        args: &[Value],
        payload: &Payload,
    ) -> Result<(), Failure> {
        let node = self.graph.node(block)?;
        let children = self.graph.children(node);
        let (non_joins, joins): (Vec<ForwardNode>, Vec<ForwardNode>) =
            children.iter().partition(|&&c| !self.graph.is_join(c));
        if let Payload::CondBranch {
            then_dest,
            else_dest,
        } = payload
        {
            if joins.is_empty() {
                let (then_block, else_block) = (then_dest.block, else_dest.block);
                if let Some(continuing) = self.continuing_arm(block, then_block, else_block)? {
                    return self.translate_if_continuing_after(
                        task, block, args, then_block, else_block, continuing,
                    );
                }
            }
        }
        // Which joins need a guard: see the module docs.
        let low = self.graph.pre(node)?;
        let mut span = self.graph.own_targets[node];
        for &c in &non_joins {
            span = span.join(self.graph.subtree_targets[c]);
        }
        let mut guarded = Vec::with_capacity(joins.len());
        for &j in &joins {
            guarded.push(!span.within(low, self.graph.pre(j)?));
            span = span.join(self.graph.subtree_targets[j]);
        }
        let mut entries = Vec::with_capacity(joins.len());
        for (i, &j) in joins.iter().enumerate() {
            entries.push(if guarded[i] {
                self.ctx.new_block()
            } else {
                self.graph.blocks[j]
            });
        }
        let merge = if let Some(&first) = entries.first() {
            Some(Cont {
                block: first,
                guarded: guarded[0],
            })
        } else if self.graph.leaves_subtree(node) {
            let cont = task.cont.ok_or(Failure::Internal)?;
            let forward = self.ctx.new_block();
            self.ctx.append_jump(forward, Opcode::Br, cont.block);
            Some(Cont {
                block: forward,
                guarded: cont.guarded,
            })
        } else {
            None
        };

        let mut arms = Arms::default();
        match payload {
            Payload::CondBranch {
                then_dest,
                else_dest,
            } => {
                let then_arm = self.arm(block, then_dest.block, merge, &mut arms)?;
                let else_arm = self.arm(block, else_dest.block, merge, &mut arms)?;
                let payload = Payload::If {
                    then_dest: BlockCall::new(then_arm),
                    else_dest: BlockCall::new(else_arm),
                    merge: merge.map(|m| m.block),
                };
                self.ctx
                    .set_terminator(block, InstData::with_payload(Opcode::If, args, payload));
                self.ctx.info.restructured_if_count += 1;
            }
            Payload::SwitchBranch(table) => {
                let arms_break = self.graph.own_break[node]
                    || non_joins.iter().any(|&c| self.graph.subtree_break[c]);
                match merge {
                    Some(merge) if !arms_break => {
                        let mut cases = Vec::with_capacity(table.cases.len());
                        for (label, dest) in &table.cases {
                            let arm = self.arm(block, dest.block, Some(merge), &mut arms)?;
                            cases.push((*label, BlockCall::new(arm)));
                        }
                        let default =
                            self.arm(block, table.default.block, Some(merge), &mut arms)?;
                        let table = SwitchTable {
                            cases,
                            default: BlockCall::new(default),
                        };
                        let payload = Payload::Switch {
                            table: Box::new(table),
                            merge: merge.block,
                        };
                        self.ctx.set_terminator(
                            block,
                            InstData::with_payload(Opcode::Switch, args, payload),
                        );
                        self.ctx.info.restructured_switch_count += 1;
                    }
                    _ => {
                        let selector = *args.first().ok_or(Failure::Internal)?;
                        self.translate_if_chain(block, term, selector, table, merge, &mut arms)?;
                        self.ctx.info.switch_to_if_chain_count += 1;
                    }
                }
            }
            // `translate` only calls this for `cond_br` and `switch_br`.
            Payload::None
            | Payload::Indices(_)
            | Payload::Callee(_)
            | Payload::Message(_)
            | Payload::Jump(_)
            | Payload::If { .. }
            | Payload::Loop { .. }
            | Payload::SimpleLoop { .. }
            | Payload::Switch { .. } => return Err(Failure::Internal),
        }

        // The joins, each behind a guard when not every path reaches it.
        let mut tasks = arms.tasks;
        for (i, &j) in joins.iter().enumerate() {
            let join = self.graph.blocks[j];
            let next = match entries.get(i + 1) {
                Some(&entry) => Some(Cont {
                    block: entry,
                    guarded: guarded[i + 1],
                }),
                None => task.cont,
            };
            if !guarded[i] {
                tasks.push(Task {
                    node: j,
                    cont: next,
                    top: task.top,
                });
                continue;
            }
            let next = next.ok_or(Failure::Internal)?;
            let guard = entries[i];
            let guard_merge = if i + 1 < entries.len() {
                next.block
            } else {
                let forward = self.ctx.new_block();
                self.ctx.append_jump(forward, Opcode::Br, next.block);
                forward
            };
            let id = self.join_id(join);
            let condition = self.ctx.append_selector_test(guard, id);
            let skip = self.ctx.new_block();
            self.ctx.append_jump(skip, Opcode::Br, guard_merge);
            let payload = Payload::If {
                then_dest: BlockCall::new(join),
                else_dest: BlockCall::new(skip),
                merge: Some(guard_merge),
            };
            self.ctx.append(
                guard,
                InstData::with_payload(Opcode::If, &[condition], payload),
                None,
            );
            self.ctx.info.guard_count += 1;
            tasks.push(Task {
                node: j,
                cont: Some(Cont {
                    block: guard_merge,
                    guarded: next.guarded,
                }),
                top: false,
            });
        }
        self.schedule(&tasks);
        Ok(())
    }

    /// When one arm of `cond_br` never comes back (it breaks, continues or leaves the
    /// function) and the other is a block the branch dominates alone that continues the
    /// code, that block can follow the `if` as its merge instead of nesting inside the arm:
    /// `if c { return } rest` rather than `if c { return } else { rest }`. The continuing
    /// block must not itself be a straight dead end, and when it never comes back either,
    /// the other arm must be one (a `break` / `continue`, or straight-line code that
    /// returns or breaks): a plain `if` / `else` whose arms both return stays as it is.
    fn continuing_arm(
        &self,
        block: Block,
        then_block: Block,
        else_block: Block,
    ) -> Result<Option<Block>, Failure> {
        if then_block == else_block {
            return Ok(None);
        }
        let then_kind = self.kind(block, then_block)?;
        let else_kind = self.kind(block, else_block)?;
        for (candidate, other, continuing) in [
            (then_kind, else_kind, then_block),
            (else_kind, then_kind, else_block),
        ] {
            let EdgeKind::Child(node) = candidate else {
                continue;
            };
            let live = self.graph.leaves_subtree(node);
            if !live && self.is_straight_dead_end(candidate) {
                continue;
            }
            let other_dead = match other {
                EdgeKind::Exit(_) => true,
                EdgeKind::Jump(_) => false,
                EdgeKind::Child(n) => !self.graph.leaves_subtree(n),
            };
            if other_dead && (live || self.is_straight_dead_end(other)) {
                return Ok(Some(continuing));
            }
        }
        Ok(None)
    }

    /// A `break` / `continue` arm, or a straight chain of blocks (each `br` to the next,
    /// nothing else in the subtree) that ends by leaving the function or breaking the loop.
    /// A chain that ends by continuing the loop is the rest of the loop body, not a dead end.
    fn is_straight_dead_end(&self, kind: EdgeKind) -> bool {
        let mut node = match kind {
            EdgeKind::Exit(_) => return true,
            EdgeKind::Jump(_) => return false,
            EdgeKind::Child(n) => n,
        };
        loop {
            let block = self.graph.blocks[node];
            let Some(term) = self.ctx.function().terminator(block) else {
                return false;
            };
            let data = self.ctx.function().dfg.inst(term);
            let children = self.graph.children(node);
            match data.opcode.terminator_op() {
                Some(TerminatorOp::Return | TerminatorOp::Unreachable | TerminatorOp::Discard) => {
                    return children.is_empty()
                }
                Some(TerminatorOp::Br) => match self.kind(block, data.payload.edges()[0].block) {
                    Ok(EdgeKind::Exit(Exit::Break(_))) => return children.is_empty(),
                    Ok(EdgeKind::Child(next)) if children == [next] => node = next,
                    Ok(
                        EdgeKind::Exit(Exit::Continue(_)) | EdgeKind::Child(_) | EdgeKind::Jump(_),
                    )
                    | Err(_) => return false,
                },
                // A branch is not a straight chain; the rest does not occur before
                // translation (see `translate`).
                Some(
                    TerminatorOp::CondBr
                    | TerminatorOp::SwitchBr
                    | TerminatorOp::If
                    | TerminatorOp::Loop
                    | TerminatorOp::SimpleLoop
                    | TerminatorOp::Switch
                    | TerminatorOp::Break
                    | TerminatorOp::Continue,
                )
                | None => return false,
            }
        }
    }

    /// `if c, then A, else B, merge C` where `C` is the continuing arm's target: its arm is a
    /// new block `br C`, and `C` continues the enclosing sequence.
    fn translate_if_continuing_after(
        &mut self,
        task: Task,
        block: Block,
        args: &[Value],
        then_block: Block,
        else_block: Block,
        continuing: Block,
    ) -> Result<(), Failure> {
        let node = self.graph.node(continuing)?;
        self.check_child(block, node)?;
        let forward = self.ctx.new_block();
        self.ctx.append_jump(forward, Opcode::Br, continuing);
        let mut arms = Arms::default();
        let (then_arm, else_arm) = if continuing == then_block {
            (forward, self.arm(block, else_block, None, &mut arms)?)
        } else {
            (self.arm(block, then_block, None, &mut arms)?, forward)
        };
        let payload = Payload::If {
            then_dest: BlockCall::new(then_arm),
            else_dest: BlockCall::new(else_arm),
            merge: Some(continuing),
        };
        self.ctx
            .set_terminator(block, InstData::with_payload(Opcode::If, args, payload));
        self.ctx.info.restructured_if_count += 1;
        let mut tasks = arms.tasks;
        tasks.push(Task {
            node,
            cont: task.cont,
            top: task.top,
        });
        self.schedule(&tasks);
        Ok(())
    }

    /// The arm block for an edge from `block` to `target` inside a construct merging at
    /// `merge`; reuses the arm already made for the same target.
    fn arm(
        &mut self,
        block: Block,
        target: Block,
        merge: Option<Cont>,
        arms: &mut Arms,
    ) -> Result<Block, Failure> {
        if let Some(&(_, arm)) = arms.made.iter().find(|(t, _)| *t == target) {
            return Ok(arm);
        }
        let arm = match self.kind(block, target)? {
            EdgeKind::Child(node) => {
                self.check_child(block, node)?;
                arms.tasks.push(Task {
                    node,
                    cont: merge,
                    top: false,
                });
                target
            }
            EdgeKind::Exit(exit) => {
                let arm = self.ctx.new_block();
                let (opcode, target) = match exit {
                    Exit::Continue(target) => (Opcode::Continue, target),
                    Exit::Break(target) => (Opcode::Break, target),
                };
                self.ctx.append_jump(arm, opcode, target);
                arm
            }
            EdgeKind::Jump(join) => {
                let merge = merge.ok_or(Failure::Internal)?;
                let arm = self.ctx.new_block();
                if merge.guarded {
                    let id = self.join_id(join);
                    self.ctx.append_store_selector(arm, id);
                }
                self.ctx.append_jump(arm, Opcode::Br, merge.block);
                arm
            }
        };
        arms.made.push((target, arm));
        Ok(arm)
    }

    /// Whether the arm for `target` can end by branching to the merge.
    fn arm_exits_normally(&self, block: Block, target: Block) -> Result<bool, Failure> {
        Ok(match self.kind(block, target)? {
            EdgeKind::Child(node) => self.graph.leaves_subtree(node),
            EdgeKind::Jump(_) => true,
            EdgeKind::Exit(_) => false,
        })
    }

    /// A `switch_br` as a chain of `if`s: `if s == a || s == b { case } else if ... else
    /// { default }`, one `if` per distinct case target, each nested `if` with its own merge
    /// that branches to the outer one.
    fn translate_if_chain(
        &mut self,
        block: Block,
        term: Inst,
        selector: Value,
        table: &SwitchTable,
        merge: Option<Cont>,
        arms: &mut Arms,
    ) -> Result<(), Failure> {
        let default = table.default.block;
        let mut groups: Vec<(Vec<u64>, Block)> = Vec::new();
        for (label, dest) in &table.cases {
            if dest.block == default {
                continue;
            }
            match groups.iter_mut().find(|(_, t)| *t == dest.block) {
                Some((labels, _)) => labels.push(*label),
                None => groups.push((vec![*label], dest.block)),
            }
        }
        // Whether any arm from group `i` on (or the default) comes back to the merge.
        let mut suffix_exits = vec![false; groups.len() + 1];
        suffix_exits[groups.len()] = self.arm_exits_normally(block, default)?;
        for i in (0..groups.len()).rev() {
            suffix_exits[i] = suffix_exits[i + 1] || self.arm_exits_normally(block, groups[i].1)?;
        }
        let scalar = {
            let ty = self.ctx.function().dfg.value_type(selector);
            // The verifier gives `switch_br` a scalar integer selector.
            let Some(TypeData::Scalar(s)) = self.ctx.module.types.try_get(ty) else {
                return Err(Failure::Internal);
            };
            *s
        };
        let selector_ty = self.ctx.function().dfg.value_type(selector);
        let bool_ty = self.ctx.bool_ty;
        let mut current = block;
        let mut current_merge = merge;
        for (i, (labels, target)) in groups.iter().enumerate() {
            // The condition, before the terminator it replaces or in the new chain block.
            let mut condition: Option<Value> = None;
            for &label in labels {
                let c = self.ctx.module.const_scalar(scalar, label);
                let constant = self.ctx.function_mut().dfg.const_value(c, selector_ty);
                let eq = InstData::new(Opcode::Eq, &[selector, constant]);
                let test = self.place(current, term, block, eq, bool_ty)?;
                condition = Some(match condition {
                    None => test,
                    Some(previous) => {
                        let or = InstData::new(Opcode::Or, &[previous, test]);
                        self.place(current, term, block, or, bool_ty)?
                    }
                });
            }
            let condition = condition.ok_or(Failure::Internal)?;
            let then_arm = self.arm(block, *target, current_merge, arms)?;
            let (else_arm, next) = if i + 1 == groups.len() {
                (self.arm(block, default, current_merge, arms)?, None)
            } else {
                let next_block = self.ctx.new_block();
                let next_merge = if suffix_exits[i + 1] {
                    let outer = current_merge.ok_or(Failure::Internal)?;
                    let forward = self.ctx.new_block();
                    self.ctx.append_jump(forward, Opcode::Br, outer.block);
                    Some(Cont {
                        block: forward,
                        guarded: outer.guarded,
                    })
                } else {
                    None
                };
                (next_block, Some((next_block, next_merge)))
            };
            let payload = Payload::If {
                then_dest: BlockCall::new(then_arm),
                else_dest: BlockCall::new(else_arm),
                merge: current_merge.map(|m| m.block),
            };
            let data = InstData::with_payload(Opcode::If, &[condition], payload);
            if current == block {
                self.ctx.set_terminator(block, data);
            } else {
                self.ctx.append(current, data, None);
            }
            if let Some((next_block, next_merge)) = next {
                current = next_block;
                current_merge = next_merge;
            }
        }
        Ok(())
    }

    /// Places a condition instruction: before `term` in the branch's own block, appended
    /// in a chain block.
    fn place(
        &mut self,
        current: Block,
        term: Inst,
        block: Block,
        data: InstData,
        ty: oxir_ir::Type,
    ) -> Result<Value, Failure> {
        let value = if current == block {
            self.ctx.insert_before(term, data, Some(ty))
        } else {
            self.ctx.append(current, data, Some(ty))
        };
        value.ok_or(Failure::Internal)
    }
}

/// The arms made for one construct: reused per target, and the tasks they schedule.
#[derive(Default)]
struct Arms {
    made: Vec<(Block, Block)>,
    tasks: Vec<Task>,
}
