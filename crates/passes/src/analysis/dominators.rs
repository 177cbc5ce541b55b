//! Dominator tree of a function's CFG with O(1) `dominates` and dominance frontiers.
//!
//! Built on `oxir_ir::dominance` (Cooper–Harvey–Kennedy over reverse post-order, pre/post
//! intervals on the tree). Frontiers follow Cytron et al.: for each join block, walk up
//! from each predecessor to the join's immediate dominator. Only blocks reachable from the
//! entry are in the tree; queries about other blocks answer "no".

use crate::analysis::cfg::{Cfg, CfgNode};
use oxir_ir::dominance::{DominatorTree, Graph};
use oxir_ir::{Block, Function};
use std::cell::OnceCell;

/// Dominators of one function.
pub struct DomTree {
    cfg: Cfg,
    tree: DominatorTree<CfgNode>,
    /// Dominance frontier of each node, targets in node order (computed on first use:
    /// only `mem2reg` asks).
    frontiers: OnceCell<Graph<CfgNode>>,
    /// Children of each node in the dominator tree, in node order (computed on first
    /// use: `mem2reg` and `cvp` ask).
    children: OnceCell<Graph<CfgNode>>,
}

/// The graph of `pairs` with each node's targets sorted and deduplicated.
fn sorted_graph(n: usize, pairs: &mut Vec<(CfgNode, CfgNode)>) -> Graph<CfgNode> {
    pairs.sort_unstable();
    pairs.dedup();
    Graph::from_edges(n, pairs)
}

impl DomTree {
    /// Computes the CFG, dominator tree and frontiers of `func`.
    pub fn new(func: &Function) -> DomTree {
        Self::from_cfg(Cfg::new(func))
    }

    pub fn from_cfg(cfg: Cfg) -> DomTree {
        let tree = DominatorTree::from_predecessors(cfg.pred_graph(), cfg.rpo_numbers());
        DomTree {
            cfg,
            tree,
            frontiers: OnceCell::new(),
            children: OnceCell::new(),
        }
    }

    /// The dominator tree's children lists, computed on first use.
    fn children_graph(&self) -> &Graph<CfgNode> {
        self.children.get_or_init(|| {
            let mut children: Vec<(CfgNode, CfgNode)> = self
                .cfg
                .nodes()
                .filter_map(|b| self.tree.idom(b).map(|parent| (parent, b)))
                .collect();
            sorted_graph(self.cfg.block_count(), &mut children)
        })
    }

    /// The dominance frontiers (Cytron et al.), computed on first use.
    fn frontiers(&self) -> &Graph<CfgNode> {
        self.frontiers.get_or_init(|| {
            let (cfg, tree) = (&self.cfg, &self.tree);
            let mut frontier: Vec<(CfgNode, CfgNode)> = Vec::new();
            for join in cfg.nodes() {
                let preds = cfg.pred_graph().successors(join);
                if preds.len() < 2 || !tree.is_reachable(join) {
                    continue;
                }
                let idom = tree.idom(join);
                for &pred in preds {
                    let mut runner = Some(pred);
                    while let Some(r) = runner.filter(|&r| Some(r) != idom && tree.is_reachable(r))
                    {
                        frontier.push((r, join));
                        runner = tree.idom(r);
                    }
                }
            }
            sorted_graph(cfg.block_count(), &mut frontier)
        })
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
        self.listed(self.frontiers(), block)
    }

    /// Children of `block` in the dominator tree, in block-number order.
    pub fn children(&self, block: Block) -> impl Iterator<Item = Block> + '_ {
        self.listed(self.children_graph(), block)
    }

    /// The blocks `graph` lists for `block` (none when it is not in the layout).
    fn listed<'a>(
        &'a self,
        graph: &'a Graph<CfgNode>,
        block: Block,
    ) -> impl Iterator<Item = Block> + 'a {
        let list = self
            .cfg
            .number(block)
            .map_or(&[][..], |n| graph.successors(n));
        list.iter().map(|&t| self.cfg.block(t))
    }

    /// Reachable blocks in dominator-tree pre-order (every block after its idom).
    pub fn preorder(&self) -> impl Iterator<Item = Block> + '_ {
        self.tree.preorder().iter().map(|&n| self.cfg.block(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;
    use oxir_ir::parser::parse_module;
    use oxir_ir::Block;

    const DIAMOND_IN_LOOP: &str = "const c0: bool = true
callable @f() {
block0:
    br block1
block1:
    cond_br c0, block2, block3
block2:
    br block4
block3:
    br block4
block4:
    cond_br c0, block1, block5
block5:
    return
block6:
    br block4
}
";

    fn b(n: usize) -> Block {
        Block::new(n)
    }

    #[test]
    fn cfg_numbers_edges_and_reverse_post_order() {
        let m = parse_module(DIAMOND_IN_LOOP).unwrap();
        let f = m.functions.values().next().unwrap();
        let cfg = Cfg::new(f);
        assert_eq!(cfg.block_count(), 7);
        assert_eq!(cfg.succs(b(1)).collect::<Vec<_>>(), vec![b(2), b(3)]);
        let mut preds: Vec<_> = cfg.preds(b(4)).collect();
        preds.sort();
        assert_eq!(preds, vec![b(2), b(3), b(6)]);
        let rpo: Vec<_> = cfg.reverse_post_order().collect();
        assert_eq!(rpo[0], b(0));
        assert_eq!(rpo.len(), 6, "block6 is unreachable");
        assert!(!cfg.is_reachable(b(6)));
        // Reverse post-order puts every block before its successors, except along back edges.
        let pos = |x: Block| rpo.iter().position(|&y| y == x).unwrap();
        assert!(pos(b(1)) < pos(b(2)) && pos(b(2)) < pos(b(4)) && pos(b(4)) < pos(b(5)));
    }

    #[test]
    fn function_reverse_post_order_visits_successors_in_terminator_order() {
        // The depth-first search takes block2 first (the `then` edge), so block1, finished
        // later, comes first in reverse post-order; block4 is unreachable.
        let text = "const c0: bool = true
callable @f() {
block0:
    cond_br c0, block2, block1
block1:
    br block3
block2:
    br block3
block3:
    return
block4:
    br block3
}
";
        let m = parse_module(text).unwrap();
        let f = m.functions.values().next().unwrap();
        let order = crate::analysis::cfg::reverse_post_order(f);
        assert_eq!(order, vec![b(0), b(1), b(2), b(3)]);
        assert_eq!(Cfg::new(f).reverse_post_order().collect::<Vec<_>>(), order);
    }

    #[test]
    fn dominators_and_frontiers_of_a_diamond_in_a_loop() {
        let m = parse_module(DIAMOND_IN_LOOP).unwrap();
        let f = m.functions.values().next().unwrap();
        let dom = DomTree::new(f);
        assert_eq!(dom.idom(b(1)), Some(b(0)));
        assert_eq!(dom.idom(b(2)), Some(b(1)));
        assert_eq!(dom.idom(b(4)), Some(b(1)));
        assert_eq!(dom.idom(b(5)), Some(b(4)));
        assert!(dom.dominates(b(1), b(5)) && !dom.dominates(b(2), b(4)));
        assert!(dom.strictly_dominates(b(0), b(1)) && !dom.strictly_dominates(b(1), b(1)));
        assert!(!dom.is_reachable(b(6)) && !dom.dominates(b(0), b(6)));
        // DF(2) = DF(3) = {4}; DF(4) = {1} (back edge); DF(1) = {1}.
        assert_eq!(dom.frontier(b(2)).collect::<Vec<_>>(), vec![b(4)]);
        assert_eq!(dom.frontier(b(3)).collect::<Vec<_>>(), vec![b(4)]);
        assert_eq!(dom.frontier(b(4)).collect::<Vec<_>>(), vec![b(1)]);
        assert_eq!(dom.frontier(b(1)).collect::<Vec<_>>(), vec![b(1)]);
        assert!(dom.frontier(b(0)).next().is_none());
        let mut children: Vec<_> = dom.children(b(1)).collect();
        children.sort();
        assert_eq!(children, vec![b(2), b(3), b(4)]);
        assert_eq!(dom.preorder().next(), Some(b(0)));
    }
}
