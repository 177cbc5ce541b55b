//! The control-flow graph of one function over executable edges.
//!
//! Blocks are numbered densely in layout order by [`CfgNode`] (the entry is node 0);
//! successors and predecessors are stored in compressed sparse row form, each distinct edge
//! once, in the order the terminator names them. Structural roles (merge, loop body and
//! update) are not edges. The analysis is a snapshot: a pass that changes the CFG must
//! recompute it (and every analysis built on it) before asking again — nothing is updated
//! in place or cached across a change.
//!
//! Typed indices keep the numberings apart: a [`CfgNode`] is a position in this graph's
//! layout numbering, a [`RpoPosition`] is a position in its reverse post-order, and neither
//! converts to a `Block` or to the other without going through the [`Cfg`].

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use oxir_ir::dominance::{self, Graph};
use oxir_ir::{Block, Function};

/// A block's number in a [`Cfg`]: its position in the layout. Prints as `nodeN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CfgNode(u32);
entity_impl!(CfgNode, "node");

oxir_ir::impl_graph_node!(CfgNode);

/// A position in a [`Cfg`]'s reverse post-order (0 is the entry). Prints as `rpoN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RpoPosition(u32);
entity_impl!(RpoPosition, "rpo");

/// The CFG of one function.
pub struct Cfg {
    blocks: PrimaryMap<CfgNode, Block>,
    node_of: SecondaryMap<Block, PackedOption<CfgNode>>,
    succs: Graph<CfgNode>,
    preds: Graph<CfgNode>,
    /// Blocks reachable from the entry, in reverse post-order.
    rpo: PrimaryMap<RpoPosition, CfgNode>,
    /// Each node's position in `rpo`; none when unreachable.
    rpo_position: SecondaryMap<CfgNode, PackedOption<RpoPosition>>,
}

impl Cfg {
    /// Builds the CFG of `func`'s layout. Edges to blocks outside the layout are ignored.
    pub fn new(func: &Function) -> Cfg {
        // Block numbers range over every block ever created; the layout holds fewer.
        let mut node_of: SecondaryMap<Block, PackedOption<CfgNode>> =
            crate::util::dense_map(func.dfg.blocks.len());
        let mut blocks: PrimaryMap<CfgNode, Block> =
            PrimaryMap::with_capacity(func.layout.block_count());
        for b in func.layout.blocks() {
            node_of[b] = blocks.push(b).into();
        }
        let mut edges: Vec<(CfgNode, CfgNode)> = Vec::with_capacity(2 * blocks.len());
        for (from, &b) in blocks.iter() {
            let first = edges.len();
            for target in func.successors(b) {
                let Some(to) = node_of.get(target).and_then(|n| n.expand()) else {
                    continue;
                };
                if !edges[first..].iter().any(|&(_, t)| t == to) {
                    edges.push((from, to));
                }
            }
        }
        let n = blocks.len();
        let succs = Graph::from_edges(n, &edges);
        let reversed: Vec<(CfgNode, CfgNode)> = edges.iter().map(|&(a, b)| (b, a)).collect();
        let preds = Graph::from_edges(n, &reversed);
        let (order, _) = dominance::reverse_post_order(&succs);
        let mut rpo: PrimaryMap<RpoPosition, CfgNode> = PrimaryMap::with_capacity(order.len());
        let mut rpo_position = SecondaryMap::with_capacity(n);
        for node in order {
            rpo_position[node] = rpo.push(node).into();
        }
        Cfg {
            blocks,
            node_of,
            succs,
            preds,
            rpo,
            rpo_position,
        }
    }

    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// The block numbered `node`.
    pub fn block(&self, node: CfgNode) -> Block {
        self.blocks[node]
    }

    /// The number of `block`, `None` when it is not in the layout.
    pub fn number(&self, block: Block) -> Option<CfgNode> {
        self.node_of.get(block).and_then(|n| n.expand())
    }

    /// Every node, in layout order.
    pub fn nodes(&self) -> impl Iterator<Item = CfgNode> {
        self.blocks.keys()
    }

    /// The blocks of the layout, indexed by their numbers.
    pub fn blocks(&self) -> &[Block] {
        self.blocks.values().as_slice()
    }

    /// Distinct successors of `block` in edge order.
    pub fn succs(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        let list = self
            .number(block)
            .map(|n| self.succs.successors(n))
            .unwrap_or(&[]);
        list.iter().map(|&s| self.blocks[s])
    }

    /// Distinct predecessors of `block`.
    pub fn preds(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        let list = self
            .number(block)
            .map(|n| self.preds.successors(n))
            .unwrap_or(&[]);
        list.iter().map(|&p| self.blocks[p])
    }

    pub fn pred_count(&self, block: Block) -> usize {
        self.number(block)
            .map_or(0, |n| self.preds.successors(n).len())
    }

    pub fn succ_count(&self, block: Block) -> usize {
        self.number(block)
            .map_or(0, |n| self.succs.successors(n).len())
    }

    /// Dense successor graph (numbers, not blocks).
    pub fn succ_graph(&self) -> &Graph<CfgNode> {
        &self.succs
    }

    /// Dense predecessor graph.
    pub fn pred_graph(&self) -> &Graph<CfgNode> {
        &self.preds
    }

    /// Reachable blocks in reverse post-order (see [`reverse_post_order`]).
    pub fn reverse_post_order(&self) -> impl Iterator<Item = Block> + '_ {
        self.rpo.values().map(|&n| self.blocks[n])
    }

    /// Reachable block numbers in reverse post-order, indexed by position.
    pub fn rpo_numbers(&self) -> &[CfgNode] {
        self.rpo.values().as_slice()
    }

    /// The position of `node` in reverse post-order; `None` when it is unreachable.
    pub fn rpo_position(&self, node: CfgNode) -> Option<RpoPosition> {
        self.rpo_position[node].expand()
    }

    pub fn is_reachable(&self, block: Block) -> bool {
        self.number(block)
            .is_some_and(|n| self.rpo_position[n].is_some())
    }
}

/// The blocks of `func` reachable from its entry, in reverse post-order.
///
/// The order is that of an iterative depth-first search from the entry (the first block of
/// the layout) over executable edges, visiting each block's successors in the order its
/// terminator names them (a target named twice counts once, edges to blocks outside the
/// layout are ignored), listed in reverse order of completion: every block comes before its
/// successors except along back edges, and the entry is first. Blocks unreachable from the
/// entry are not listed. This is the one reverse post-order of the project; it is
/// [`Cfg::reverse_post_order`], and over any dense graph it is
/// [`oxir_ir::dominance::reverse_post_order`].
pub fn reverse_post_order(func: &Function) -> Vec<Block> {
    Cfg::new(func).reverse_post_order().collect()
}
