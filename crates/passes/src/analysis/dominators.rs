//! Dominator tree of a function's CFG with O(1) `dominates` and dominance frontiers.
//!
//! Built on `oxir_ir::dominance` (Cooper–Harvey–Kennedy over reverse post-order, pre/post
//! intervals on the tree). Frontiers follow Cytron et al.: for each join block, walk up
//! from each predecessor to the join's immediate dominator. Only blocks reachable from the
//! entry are in the tree; queries about other blocks answer "no".

use crate::analysis::cfg::{Cfg, NONE};
use oxir_ir::dominance::DominatorTree;
use oxir_ir::{Block, Function};

/// Dominators of one function.
pub struct DomTree {
    cfg: Cfg,
    tree: DominatorTree,
    /// Dominance frontier of each block number (CSR).
    frontier_offsets: Vec<u32>,
    frontier_targets: Vec<u32>,
    /// Children of each block number in the dominator tree (CSR).
    child_offsets: Vec<u32>,
    child_targets: Vec<u32>,
}

fn csr(n: usize, pairs: &mut [(u32, u32)]) -> (Vec<u32>, Vec<u32>) {
    pairs.sort_unstable();
    let mut offsets = vec![0u32; n + 1];
    for &(from, _) in pairs.iter() {
        offsets[from as usize + 1] += 1;
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    (offsets, pairs.iter().map(|&(_, to)| to).collect())
}

impl DomTree {
    /// Computes the CFG, dominator tree and frontiers of `func`.
    pub fn new(func: &Function) -> DomTree {
        Self::from_cfg(Cfg::new(func))
    }

    pub fn from_cfg(cfg: Cfg) -> DomTree {
        let tree = DominatorTree::compute(cfg.succ_graph());
        let n = cfg.block_count();
        let mut frontier: Vec<(u32, u32)> = Vec::new();
        for join in 0..n as u32 {
            let preds = cfg.pred_graph().successors(join);
            if preds.len() < 2 || !tree.is_reachable(join) {
                continue;
            }
            let idom = tree.idom(join).unwrap_or(NONE);
            for &pred in preds {
                let mut runner = pred;
                while runner != idom && runner != NONE && tree.is_reachable(runner) {
                    frontier.push((runner, join));
                    runner = tree.idom(runner).unwrap_or(NONE);
                }
            }
        }
        frontier.dedup();
        let (frontier_offsets, mut frontier_targets) = csr(n, &mut frontier);
        // Deduplicate within each list (a block can be reached from several preds).
        let mut compact_offsets = vec![0u32; n + 1];
        let mut compact = Vec::with_capacity(frontier_targets.len());
        for b in 0..n {
            let list = &mut frontier_targets
                [frontier_offsets[b] as usize..frontier_offsets[b + 1] as usize];
            list.sort_unstable();
            let start = compact.len();
            for &t in list.iter() {
                if compact.len() == start || compact.last() != Some(&t) {
                    compact.push(t);
                }
            }
            compact_offsets[b + 1] = compact.len() as u32;
        }
        let mut children: Vec<(u32, u32)> = (0..n as u32)
            .filter_map(|b| tree.idom(b).map(|parent| (parent, b)))
            .collect();
        let (child_offsets, child_targets) = csr(n, &mut children);
        DomTree {
            cfg,
            tree,
            frontier_offsets: compact_offsets,
            frontier_targets: compact,
            child_offsets,
            child_targets,
        }
    }

    pub fn cfg(&self) -> &Cfg {
        &self.cfg
    }

    /// Whether `a` dominates `b` (reflexive); false when either is unreachable.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        match (self.cfg.number(a), self.cfg.number(b)) {
            (Some(a), Some(b)) => self.tree.dominates(a, b),
            _ => false,
        }
    }

    /// Whether `a` strictly dominates `b`.
    pub fn strictly_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.dominates(a, b)
    }

    pub fn idom(&self, block: Block) -> Option<Block> {
        let n = self.cfg.number(block)?;
        self.tree.idom(n).map(|d| self.cfg.block(d))
    }

    pub fn is_reachable(&self, block: Block) -> bool {
        self.cfg
            .number(block)
            .is_some_and(|n| self.tree.is_reachable(n))
    }

    /// The dominance frontier of `block`, in block-number order.
    pub fn frontier(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        let list = match self.cfg.number(block) {
            Some(n) => {
                &self.frontier_targets[self.frontier_offsets[n as usize] as usize
                    ..self.frontier_offsets[n as usize + 1] as usize]
            }
            None => &[],
        };
        list.iter().map(|&t| self.cfg.block(t))
    }

    /// Children of `block` in the dominator tree, in block-number order.
    pub fn children(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        let list = match self.cfg.number(block) {
            Some(n) => {
                &self.child_targets[self.child_offsets[n as usize] as usize
                    ..self.child_offsets[n as usize + 1] as usize]
            }
            None => &[],
        };
        list.iter().map(|&t| self.cfg.block(t))
    }

    /// Reachable blocks in dominator-tree pre-order (every block after its idom).
    pub fn preorder(&self) -> impl Iterator<Item = Block> + '_ {
        self.tree.preorder().iter().map(|&n| self.cfg.block(n))
    }
}
