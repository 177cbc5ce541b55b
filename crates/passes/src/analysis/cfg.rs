//! The control-flow graph of one function over executable edges.
//!
//! Blocks are numbered densely in layout order (the entry is 0); successors and
//! predecessors are stored in compressed sparse row form, each distinct edge once.
//! Structural roles (merge, loop body and update) are not edges. The analysis is a
//! snapshot: recompute it after any CFG change (DESIGN.md §3, ordering contract 4).

use cranelift_entity::SecondaryMap;
use oxir_ir::dominance::Graph;
use oxir_ir::{Block, Function};

/// "No block".
pub const NONE: u32 = u32::MAX;

/// The CFG of one function.
pub struct Cfg {
    blocks: Vec<Block>,
    index: SecondaryMap<Block, u32>,
    succs: Graph,
    preds: Graph,
    /// Blocks reachable from the entry, in reverse post-order.
    rpo: Vec<u32>,
    reachable: Vec<bool>,
}

impl Cfg {
    /// Builds the CFG of `func`'s layout. Edges to blocks outside the layout are ignored.
    pub fn new(func: &Function) -> Cfg {
        let mut index: SecondaryMap<Block, u32> = SecondaryMap::with_default(NONE);
        let blocks: Vec<Block> = func.layout.blocks().collect();
        for (i, &b) in blocks.iter().enumerate() {
            index[b] = i as u32;
        }
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for (from, &b) in blocks.iter().enumerate() {
            let first = edges.len();
            for target in func.successors(b) {
                let to = index.get(target).copied().unwrap_or(NONE);
                if to != NONE && !edges[first..].iter().any(|&(_, t)| t == to) {
                    edges.push((from as u32, to));
                }
            }
        }
        let n = blocks.len();
        let succs = Graph::from_edges(n, &edges);
        let reversed: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (b, a)).collect();
        let preds = Graph::from_edges(n, &reversed);
        let (rpo, reachable) = reverse_post_order(&succs);
        Cfg {
            blocks,
            index,
            succs,
            preds,
            rpo,
            reachable,
        }
    }

    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// The block numbered `n`.
    pub fn block(&self, n: u32) -> Block {
        self.blocks[n as usize]
    }

    /// The number of `block`, `None` when it is not in the layout.
    pub fn number(&self, block: Block) -> Option<u32> {
        self.index.get(block).copied().filter(|&n| n != NONE)
    }

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Distinct successors of `block` in edge order.
    pub fn succs(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        let list = self
            .number(block)
            .map(|n| self.succs.successors(n))
            .unwrap_or(&[]);
        list.iter().map(|&s| self.blocks[s as usize])
    }

    /// Distinct predecessors of `block`.
    pub fn preds(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        let list = self
            .number(block)
            .map(|n| self.preds.successors(n))
            .unwrap_or(&[]);
        list.iter().map(|&p| self.blocks[p as usize])
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
    pub fn succ_graph(&self) -> &Graph {
        &self.succs
    }

    /// Dense predecessor graph.
    pub fn pred_graph(&self) -> &Graph {
        &self.preds
    }

    /// Reachable blocks in reverse post-order (the entry first).
    pub fn reverse_post_order(&self) -> impl Iterator<Item = Block> + '_ {
        self.rpo.iter().map(|&n| self.blocks[n as usize])
    }

    /// Reachable block numbers in reverse post-order.
    pub fn rpo_numbers(&self) -> &[u32] {
        &self.rpo
    }

    pub fn is_reachable(&self, block: Block) -> bool {
        self.number(block)
            .is_some_and(|n| self.reachable[n as usize])
    }
}

/// Reverse post-order of the nodes reachable from node 0, iteratively.
pub fn reverse_post_order(graph: &Graph) -> (Vec<u32>, Vec<bool>) {
    let n = graph.node_count();
    let mut visited = vec![false; n];
    let mut post = Vec::with_capacity(n);
    if n == 0 {
        return (post, visited);
    }
    let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
    visited[0] = true;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        let succs = graph.successors(node);
        if let Some(&s) = succs.get(*next) {
            *next += 1;
            if !visited[s as usize] {
                visited[s as usize] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(node);
            stack.pop();
        }
    }
    post.reverse();
    (post, visited)
}
