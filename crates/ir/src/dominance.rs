//! Graphs over dense node numbers in compressed sparse row form, and their dominator trees.
//!
//! The verifier numbers a function's blocks by layout position and builds the CFG of
//! executable edges; the passes crate builds dominator and post-dominator trees (the latter
//! over the reversed CFG with a virtual exit) with the same code.
//!
//! Nodes are any [`GraphNode`]: a dense index type, so that a graph over CFG nodes cannot
//! be queried with, say, a loop number or a reverse-post-order position. The verifier and
//! the passes crate each number blocks with their own typed index; `u32` is a node type for
//! tests and small tools. The root of every graph is the node with dense index 0.
//!
//! Dominators are computed with the iterative algorithm of Cooper, Harvey and Kennedy
//! ("A Simple, Fast Dominance Algorithm") over reverse post-order, with dense vectors and no
//! hashing. Pre- and post-order numbers on the dominator tree answer `dominates(a, b)` in
//! O(1). Every traversal is iterative: functions may have hundreds of thousands of blocks.
//! Only nodes reachable from the root are in the tree.

use std::cell::Cell;
use std::fmt::Debug;

/// "No number" in the tree's private DFS and reverse-post-order numberings (no node count
/// reaches it: node indices are below `u32::MAX`).
const UNNUMBERED: u32 = u32::MAX;

/// A dense node index: `from_dense(n).dense() == n` for every `n` below `u32::MAX`.
///
/// Implemented for `u32`, [`crate::Block`] and [`crate::Func`]; [`impl_graph_node!`]
/// implements it for any other `cranelift_entity` index type.
pub trait GraphNode: Copy + Eq + Debug {
    /// The node with dense number `index`.
    fn from_dense(index: usize) -> Self;
    /// The node's dense number (`0..node_count`).
    fn dense(self) -> usize;
}

impl GraphNode for u32 {
    fn from_dense(index: usize) -> Self {
        u32::try_from(index).expect("graph node index fits in u32")
    }

    fn dense(self) -> usize {
        self as usize
    }
}

/// Implements [`GraphNode`] for `cranelift_entity` index types, through `EntityRef::new`
/// and `EntityRef::index`. The invoking crate must depend on `cranelift-entity`.
#[macro_export]
macro_rules! impl_graph_node {
    ($($entity:ty),* $(,)?) => {$(
        impl $crate::dominance::GraphNode for $entity {
            fn from_dense(index: usize) -> Self {
                <$entity as cranelift_entity::EntityRef>::new(index)
            }

            fn dense(self) -> usize {
                cranelift_entity::EntityRef::index(self)
            }
        }
    )*};
}

impl_graph_node!(crate::Block, crate::Func);

/// The dense position of a DFS number or offset (these are counts, not nodes).
fn at(position: u32) -> usize {
    position as usize
}

/// A graph in compressed sparse row form: the successors of node `n` are
/// `targets[offsets[n]..offsets[n + 1]]`.
pub struct Graph<N: GraphNode = u32> {
    offsets: Vec<u32>,
    targets: Vec<N>,
}

impl<N: GraphNode> Graph<N> {
    /// Builds the graph of `node_count` nodes from `(from, to)` edges. Successors keep the
    /// order of `edges`.
    pub fn from_edges(node_count: usize, edges: &[(N, N)]) -> Graph<N> {
        let mut offsets = vec![0u32; node_count + 1];
        for &(from, _) in edges {
            offsets[from.dense() + 1] += 1;
        }
        for n in 0..node_count {
            offsets[n + 1] += offsets[n];
        }
        let mut fill = offsets.clone();
        // Every slot is written below; the initial value is never read.
        let mut targets = vec![N::from_dense(0); edges.len()];
        for &(from, to) in edges {
            let slot = &mut fill[from.dense()];
            targets[at(*slot)] = to;
            *slot += 1;
        }
        Graph { offsets, targets }
    }

    /// The number of nodes (dense numbers `0..node_count`).
    pub fn node_count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The successors of `node`, in edge order, each once.
    pub fn successors(&self, node: N) -> &[N] {
        let n = node.dense();
        &self.targets[at(self.offsets[n])..at(self.offsets[n + 1])]
    }

    /// Every node, in dense order.
    pub fn nodes(&self) -> impl Iterator<Item = N> {
        (0..self.node_count()).map(N::from_dense)
    }
}

/// The nodes reachable from the root (dense index 0) in reverse post-order of an iterative
/// depth-first search that visits each node's successors in their stored order, and which
/// nodes that is (`reachable[n.dense()]`). Every node comes before its successors except
/// along back edges; the root is first. Empty for an empty graph.
pub fn reverse_post_order<N: GraphNode>(graph: &Graph<N>) -> (Vec<N>, Vec<bool>) {
    let (mut order, visited) = post_order(graph);
    order.reverse();
    (order, visited)
}

/// [`reverse_post_order`] before the reversal: the post-order, and the reachable set.
fn post_order<N: GraphNode>(graph: &Graph<N>) -> (Vec<N>, Vec<bool>) {
    let n = graph.node_count();
    let mut visited = vec![false; n];
    let mut post = Vec::with_capacity(n);
    if n == 0 {
        return (post, visited);
    }
    let root = N::from_dense(0);
    let mut stack: Vec<(N, usize)> = vec![(root, 0)];
    visited[0] = true;
    while let Some(top) = stack.last_mut() {
        let (node, next) = *top;
        if let Some(&succ) = graph.successors(node).get(next) {
            top.1 += 1;
            if !visited[succ.dense()] {
                visited[succ.dense()] = true;
                stack.push((succ, 0));
            }
        } else {
            post.push(node);
            stack.pop();
        }
    }
    (post, visited)
}

/// Dominator tree of the nodes reachable from the root (dense index 0).
pub struct DominatorTree<N: GraphNode = u32> {
    /// Immediate dominator; `None` for the root and unreachable nodes.
    idom: Vec<Option<N>>,
    /// Dominator-tree DFS numbers; `UNNUMBERED` for unreachable nodes.
    pre: Vec<u32>,
    post: Vec<u32>,
    /// Reachable nodes in dominator-tree pre-order (parents before children).
    preorder: Vec<N>,
    queries: Cell<u64>,
}

impl<N: GraphNode> DominatorTree<N> {
    /// The dominator tree of `cfg` rooted at node 0 (Cooper, Harvey and Kennedy's
    /// iterative algorithm over reverse post-order).
    pub fn compute(cfg: &Graph<N>) -> DominatorTree<N> {
        let n = cfg.node_count();
        let mut tree = DominatorTree {
            idom: vec![None; n],
            pre: vec![UNNUMBERED; n],
            post: vec![UNNUMBERED; n],
            preorder: Vec::new(),
            queries: Cell::new(0),
        };
        if n == 0 {
            return tree;
        }
        let (postorder, _) = post_order(cfg);
        // Predecessors among reachable nodes.
        let reachable_edges: Vec<(N, N)> = postorder
            .iter()
            .flat_map(|&from| cfg.successors(from).iter().map(move |&to| (to, from)))
            .collect();
        let predecessors = Graph::from_edges(n, &reachable_edges);
        tree.solve(&predecessors, postorder);
        tree
    }

    /// [`DominatorTree::compute`] from what a caller already has: `predecessors` of every
    /// node (predecessors that are unreachable from the root are allowed and ignored) and
    /// `rpo`, the nodes reachable from the root in [`reverse_post_order`] of the same graph.
    /// Gives the same tree as `compute`.
    pub fn from_predecessors(predecessors: &Graph<N>, rpo: &[N]) -> DominatorTree<N> {
        let n = predecessors.node_count();
        let mut tree = DominatorTree {
            idom: vec![None; n],
            pre: vec![UNNUMBERED; n],
            post: vec![UNNUMBERED; n],
            preorder: Vec::with_capacity(rpo.len()),
            queries: Cell::new(0),
        };
        if n == 0 || rpo.is_empty() {
            return tree;
        }
        debug_assert_eq!(rpo[0].dense(), 0, "a reverse post-order starts at the root");
        let postorder: Vec<N> = rpo.iter().rev().copied().collect();
        tree.solve(predecessors, postorder);
        tree
    }

    /// Fills the tree from the reachable nodes' `postorder` (root last) and predecessors.
    fn solve(&mut self, predecessors: &Graph<N>, postorder: Vec<N>) {
        let n = self.idom.len();
        // Position of each reachable node in reverse post-order (`UNNUMBERED`: unreachable).
        let mut rpo_number = vec![UNNUMBERED; n];
        for (i, &b) in postorder.iter().rev().enumerate() {
            rpo_number[b.dense()] = i as u32;
        }

        // Cooper–Harvey–Kennedy. `doms` uses the root as its own dominator while iterating.
        let root = N::from_dense(0);
        let mut doms: Vec<Option<N>> = vec![None; n];
        doms[0] = Some(root);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in postorder.iter().rev().skip(1) {
                let mut new_idom: Option<N> = None;
                for &p in predecessors.successors(b) {
                    // Unprocessed and unreachable predecessors have no dominator yet.
                    if doms[p.dense()].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => p,
                        Some(current) => Self::intersect(&doms, &rpo_number, p, current),
                    });
                }
                if new_idom != doms[b.dense()] {
                    doms[b.dense()] = new_idom;
                    changed = true;
                }
            }
        }
        for &b in &postorder {
            if b != root {
                self.idom[b.dense()] = doms[b.dense()];
            }
        }
        self.number_tree(&postorder);
    }

    /// The nearest common dominator of `a` and `b`, walking up `doms` by RPO position.
    fn intersect(doms: &[Option<N>], rpo_number: &[u32], mut a: N, mut b: N) -> N {
        // Every processed node has a dominator; were one missing, the root (which
        // dominates every reachable node) is the safe answer, not a panic.
        let up = |x: N| doms[x.dense()].unwrap_or(N::from_dense(0));
        while a != b {
            while rpo_number[a.dense()] > rpo_number[b.dense()] {
                a = up(a);
            }
            while rpo_number[b.dense()] > rpo_number[a.dense()] {
                b = up(b);
            }
        }
        a
    }

    /// Pre/post numbers and pre-order of the dominator tree, by iterative DFS.
    fn number_tree(&mut self, reachable: &[N]) {
        let n = self.idom.len();
        let tree_edges: Vec<(N, N)> = reachable
            .iter()
            .filter_map(|&b| self.idom[b.dense()].map(|parent| (parent, b)))
            .collect();
        let children = Graph::from_edges(n, &tree_edges);
        let root = N::from_dense(0);
        let mut counter = 0u32;
        let mut post_counter = 0u32;
        let mut stack: Vec<(N, usize)> = vec![(root, 0)];
        self.pre[0] = counter;
        self.preorder.push(root);
        counter += 1;
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            if let Some(&child) = children.successors(node).get(next) {
                top.1 += 1;
                self.pre[child.dense()] = counter;
                self.preorder.push(child);
                counter += 1;
                stack.push((child, 0));
            } else {
                self.post[node.dense()] = post_counter;
                post_counter += 1;
                stack.pop();
            }
        }
    }

    /// Whether `node` is reachable from the root.
    pub fn is_reachable(&self, node: N) -> bool {
        self.pre.get(node.dense()).is_some_and(|&p| p != UNNUMBERED)
    }

    /// The immediate dominator, `None` for the root and unreachable nodes.
    pub fn idom(&self, node: N) -> Option<N> {
        self.idom.get(node.dense()).copied().flatten()
    }

    /// Whether `a` dominates `b` (reflexive). False when either is unreachable.
    pub fn dominates(&self, a: N, b: N) -> bool {
        self.queries.set(self.queries.get() + 1);
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        let (a, b) = (a.dense(), b.dense());
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    /// Reachable nodes, every node after its immediate dominator.
    pub fn preorder(&self) -> &[N] {
        &self.preorder
    }

    /// How many `dominates` queries were answered (a cost counter for tests).
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
        let edges = [(0u32, 1u32), (0, 2), (1, 3), (2, 3), (3, 1), (4, 3)];
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
    fn reverse_post_order_follows_successor_order() {
        // 0 -> 2, 1; 1 -> 3; 2 -> 3; 4 unreachable.
        let edges = [(0u32, 2u32), (0, 1), (1, 3), (2, 3), (4, 0)];
        let (order, reachable) = reverse_post_order(&Graph::from_edges(5, &edges));
        // DFS: 0, 2, 3 (post 3, 2), then 1 (post 1), then 0: post-order 3 2 1 0.
        assert_eq!(order, vec![0, 1, 2, 3]);
        assert_eq!(reachable, vec![true, true, true, true, false]);
    }

    /// Immediate dominators by the textbook data-flow definition (sets of dominators
    /// intersected over predecessors until nothing changes): the oracle for both
    /// constructors.
    fn naive_idoms(n: usize, edges: &[(u32, u32)]) -> Vec<Option<u32>> {
        let (_, reachable) = reverse_post_order(&Graph::from_edges(n, edges));
        let mut doms: Vec<Vec<bool>> = (0..n).map(|_| vec![true; n]).collect();
        doms[0] = (0..n).map(|i| i == 0).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..n {
                if !reachable[b] {
                    continue;
                }
                let mut set = vec![true; n];
                for &(from, _) in edges
                    .iter()
                    .filter(|&&(f, t)| t as usize == b && reachable[f as usize])
                {
                    for (i, keep) in set.iter_mut().enumerate() {
                        *keep &= doms[from as usize][i];
                    }
                }
                set[b] = true;
                if set != doms[b] {
                    doms[b] = set;
                    changed = true;
                }
            }
        }
        let count = |d: usize| doms[d].iter().filter(|&&x| x).count();
        (0..n)
            .map(|b| {
                if b == 0 || !reachable[b] {
                    return None;
                }
                // The strict dominator that every other strict dominator dominates.
                (0..n)
                    .filter(|&d| d != b && doms[b][d])
                    .max_by_key(|&d| count(d))
                    .map(|d| d as u32)
            })
            .collect()
    }

    #[test]
    fn both_constructors_agree_with_the_data_flow_definition() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        for case in 0..300 {
            let n = 1 + (case % 24) as usize;
            let edge_count = next(3 * n as u64 + 1) as usize;
            let edges: Vec<(u32, u32)> = (0..edge_count)
                .map(|_| (next(n as u64) as u32, next(n as u64) as u32))
                .collect();
            let succs = Graph::from_edges(n, &edges);
            // Every predecessor, unreachable ones included, as a CFG analysis keeps them.
            let reversed: Vec<(u32, u32)> = edges.iter().map(|&(a, b)| (b, a)).collect();
            let preds = Graph::from_edges(n, &reversed);
            let (rpo, _) = reverse_post_order(&succs);
            let computed = DominatorTree::compute(&succs);
            let given = DominatorTree::from_predecessors(&preds, &rpo);
            let expected = naive_idoms(n, &edges);
            for b in 0..n as u32 {
                assert_eq!(
                    computed.idom(b),
                    expected[b as usize],
                    "case {case}, node {b}"
                );
                assert_eq!(given.idom(b), expected[b as usize], "case {case}, node {b}");
            }
            assert_eq!(computed.preorder(), given.preorder(), "case {case}");
        }
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
