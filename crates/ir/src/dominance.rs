//! Graphs over dense node numbers in compressed sparse row form, and their dominator trees.
//!
//! The verifier numbers a function's blocks by layout position and builds the CFG of
//! executable edges; the passes crate builds dominator and post-dominator trees (the latter
//! over the reversed CFG with a virtual exit) with the same code.
//!
//! Dominators are computed with the iterative algorithm of Cooper, Harvey and Kennedy
//! ("A Simple, Fast Dominance Algorithm") over reverse post-order, with dense vectors and no
//! hashing. Pre- and post-order numbers on the dominator tree answer `dominates(a, b)` in
//! O(1). Every traversal is iterative: functions may have hundreds of thousands of blocks.
//! Only nodes reachable from the root (number 0) are in the tree.

use std::cell::Cell;

/// "No block": unreachable, or the entry's immediate dominator.
pub const NONE: u32 = u32::MAX;

/// A graph in compressed sparse row form: the successors of node `n` are
/// `targets[offsets[n]..offsets[n + 1]]`.
pub struct Graph {
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Graph {
    /// Builds the graph of `node_count` nodes from `(from, to)` edges.
    pub fn from_edges(node_count: usize, edges: &[(u32, u32)]) -> Graph {
        let mut offsets = vec![0u32; node_count + 1];
        for &(from, _) in edges {
            offsets[from as usize + 1] += 1;
        }
        for n in 0..node_count {
            offsets[n + 1] += offsets[n];
        }
        let mut fill = offsets.clone();
        let mut targets = vec![0u32; edges.len()];
        for &(from, to) in edges {
            let slot = &mut fill[from as usize];
            targets[*slot as usize] = to;
            *slot += 1;
        }
        Graph { offsets, targets }
    }

    pub fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn successors(&self, node: u32) -> &[u32] {
        let n = node as usize;
        &self.targets[self.offsets[n] as usize..self.offsets[n + 1] as usize]
    }
}

/// Dominator tree of the blocks reachable from block 0.
pub struct DominatorTree {
    /// Immediate dominator; `NONE` for the entry and unreachable blocks.
    idom: Vec<u32>,
    /// Dominator-tree DFS numbers; `NONE` for unreachable blocks.
    pre: Vec<u32>,
    post: Vec<u32>,
    /// Reachable blocks in dominator-tree pre-order (parents before children).
    preorder: Vec<u32>,
    queries: Cell<u64>,
}

impl DominatorTree {
    pub fn compute(cfg: &Graph) -> DominatorTree {
        let n = cfg.node_count();
        let mut tree = DominatorTree {
            idom: vec![NONE; n],
            pre: vec![NONE; n],
            post: vec![NONE; n],
            preorder: Vec::new(),
            queries: Cell::new(0),
        };
        if n == 0 {
            return tree;
        }
        let postorder = Self::postorder(cfg);
        let mut rpo_number = vec![NONE; n];
        for (i, &b) in postorder.iter().rev().enumerate() {
            rpo_number[b as usize] = i as u32;
        }
        // Predecessors among reachable blocks.
        let reachable_edges: Vec<(u32, u32)> = postorder
            .iter()
            .flat_map(|&from| cfg.successors(from).iter().map(move |&to| (to, from)))
            .collect();
        let predecessors = Graph::from_edges(n, &reachable_edges);

        // Cooper–Harvey–Kennedy. `doms` uses the entry as its own dominator while iterating.
        let mut doms = vec![NONE; n];
        doms[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in postorder.iter().rev().skip(1) {
                let mut new_idom = NONE;
                for &p in predecessors.successors(b) {
                    if doms[p as usize] == NONE {
                        continue;
                    }
                    new_idom = if new_idom == NONE {
                        p
                    } else {
                        Self::intersect(&doms, &rpo_number, p, new_idom)
                    };
                }
                if new_idom != doms[b as usize] {
                    doms[b as usize] = new_idom;
                    changed = true;
                }
            }
        }
        for &b in &postorder {
            if b != 0 {
                tree.idom[b as usize] = doms[b as usize];
            }
        }
        tree.number_tree(&postorder);
        tree
    }

    /// Blocks reachable from 0, in post-order of an iterative DFS.
    fn postorder(cfg: &Graph) -> Vec<u32> {
        let mut visited = vec![false; cfg.node_count()];
        let mut order = Vec::new();
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        visited[0] = true;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&succ) = cfg.successors(node).get(next) {
                top.1 += 1;
                if !visited[succ as usize] {
                    visited[succ as usize] = true;
                    stack.push((succ, 0));
                }
            } else {
                order.push(node);
                stack.pop();
            }
        }
        order
    }

    fn intersect(doms: &[u32], rpo_number: &[u32], mut a: u32, mut b: u32) -> u32 {
        while a != b {
            while rpo_number[a as usize] > rpo_number[b as usize] {
                a = doms[a as usize];
            }
            while rpo_number[b as usize] > rpo_number[a as usize] {
                b = doms[b as usize];
            }
        }
        a
    }

    /// Pre/post numbers and pre-order of the dominator tree, by iterative DFS.
    fn number_tree(&mut self, reachable: &[u32]) {
        let n = self.idom.len();
        let tree_edges: Vec<(u32, u32)> = reachable
            .iter()
            .filter(|&&b| b != 0)
            .map(|&b| (self.idom[b as usize], b))
            .collect();
        let children = Graph::from_edges(n, &tree_edges);
        let mut counter = 0u32;
        let mut post_counter = 0u32;
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        self.pre[0] = counter;
        self.preorder.push(0);
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&child) = children.successors(node).get(next) {
                top.1 += 1;
                self.pre[child as usize] = counter;
                self.preorder.push(child);
                counter += 1;
                stack.push((child, 0));
            } else {
                self.post[node as usize] = post_counter;
                post_counter += 1;
                stack.pop();
            }
        }
    }

    pub fn is_reachable(&self, block: u32) -> bool {
        self.pre.get(block as usize).is_some_and(|&p| p != NONE)
    }

    /// The immediate dominator, `None` for the entry and unreachable blocks.
    pub fn idom(&self, block: u32) -> Option<u32> {
        self.idom
            .get(block as usize)
            .copied()
            .filter(|&d| d != NONE)
    }

    /// Whether `a` dominates `b` (reflexive). False when either is unreachable.
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        self.queries.set(self.queries.get() + 1);
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let (a, b) = (a as usize, b as usize);
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// Reachable blocks, every block after its immediate dominator.
    pub fn preorder(&self) -> &[u32] {
        &self.preorder
    }

    pub fn query_count(&self) -> u64 {
        self.queries.get()
    }

    /// The queries answered since the last call (or since the tree was built), for
    /// counting the queries of a tree shared by several users once each.
    pub fn take_query_count(&self) -> u64 {
        self.queries.replace(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diamond_with_loop_and_unreachable_block() {
        // 0 -> 1, 2; 1 -> 3; 2 -> 3; 3 -> 1 (back edge); 4 unreachable -> 3.
        let edges = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 1), (4, 3)];
        let cfg = Graph::from_edges(5, &edges);
        let tree = DominatorTree::compute(&cfg);
        assert_eq!(tree.idom(1), Some(0));
        assert_eq!(tree.idom(2), Some(0));
        assert_eq!(tree.idom(3), Some(0));
        assert_eq!(tree.idom(0), None);
        assert!(!tree.is_reachable(4));
        assert!(tree.dominates(0, 3) && tree.dominates(3, 3));
        assert!(!tree.dominates(1, 3) && !tree.dominates(4, 3) && !tree.dominates(3, 4));
        assert_eq!(tree.preorder()[0], 0);
        assert_eq!(tree.preorder().len(), 4);
    }

    #[test]
    fn long_chain_does_not_overflow_the_stack() {
        let n = 200_000u32;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let tree = DominatorTree::compute(&Graph::from_edges(n as usize, &edges));
        assert!(tree.dominates(0, n - 1));
        assert!(tree.dominates(n / 2, n - 1));
        assert!(!tree.dominates(n - 1, n / 2));
    }
}
