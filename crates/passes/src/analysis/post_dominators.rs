//! Post-dominator tree of a function's CFG, with a virtual exit.
//!
//! `a` post-dominates `b` when every path from `b` to a function exit passes through `a`.
//! The tree is the dominator tree of the reversed CFG (executable edges only; structural
//! roles are not edges) rooted at a virtual exit: node 0 is the virtual exit, block number
//! `i` of the [`Cfg`] is node `i + 1`, and the virtual exit has an edge to every *exit* —
//! a block in the layout whose terminator has no executable successor (`return`,
//! `unreachable`, `discard`, or no terminator at all). `ipdom(b) == None` means "the
//! virtual exit" for a block in the tree.
//!
//! Blocks that cannot reach an exit (infinite loops, and blocks that can only reach one)
//! are outside that tree. With [`PostDomOptions::account_for_infinite_loops`] (the
//! default) each such region gets one artificial exit so every block
//! of the layout is in the tree: among the blocks that cannot reach an exit, every *sink*
//! strongly connected component (one no edge leaves) is a cycle that runs forever, and its
//! block that comes **last in reverse post-order** (for blocks reachable from the entry;
//! otherwise the last in layout order) — the latch of a simple infinite loop — is given an
//! edge to the virtual exit. Blocks that only lead into such a cycle then post-dominate
//! through it. [`PostDomTree::infinite_loop_exits`] lists the chosen blocks.
//!
//! Blocks unreachable from the entry are in the tree too when they reach an exit; they
//! never lie on a path from a reachable block, so they do not change the answers for
//! reachable blocks. The tree is a snapshot: recompute it after any CFG change.

use crate::analysis::cfg::{Cfg, CfgNode};
use crate::analysis::loops::SccFinder;
use cranelift_entity::{entity_impl, EntityRef, SecondaryMap};
use oxir_ir::dominance::{DominatorTree, Graph};
use oxir_ir::{Block, Function};

/// A node of the reversed CFG: node 0 is the virtual exit, [`CfgNode`] `i` is node `i + 1`.
/// Prints as `pnodeN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct PostDomNode(u32);
entity_impl!(PostDomNode, "pnode");

impl PostDomNode {
    const VIRTUAL_EXIT: PostDomNode = PostDomNode(0);

    fn of(node: CfgNode) -> PostDomNode {
        PostDomNode::new(node.index() + 1)
    }

    /// The CFG node, `None` for the virtual exit.
    fn cfg_node(self) -> Option<CfgNode> {
        (self != Self::VIRTUAL_EXIT).then(|| CfgNode::new(self.index() - 1))
    }
}

oxir_ir::impl_graph_node!(PostDomNode);

/// How to build a [`PostDomTree`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PostDomOptions {
    /// Give every region that cannot reach an exit an artificial edge to the virtual exit,
    /// so every block is in the tree.
    pub account_for_infinite_loops: bool,
}

impl Default for PostDomOptions {
    fn default() -> Self {
        PostDomOptions {
            account_for_infinite_loops: true,
        }
    }
}

/// Post-dominators of one function.
pub struct PostDomTree {
    cfg: Cfg,
    /// Dominator tree of the reversed CFG rooted at the virtual exit.
    tree: DominatorTree<PostDomNode>,
    exits: Vec<Block>,
    infinite_loop_exits: Vec<Block>,
}

impl PostDomTree {
    pub fn new(func: &Function, options: PostDomOptions) -> PostDomTree {
        Self::from_cfg(Cfg::new(func), options)
    }

    pub fn from_cfg(cfg: Cfg, options: PostDomOptions) -> PostDomTree {
        let n = cfg.block_count();
        let exits: Vec<CfgNode> = cfg
            .nodes()
            .filter(|&b| cfg.succ_graph().successors(b).is_empty())
            .collect();
        let infinite_loop_exits = if options.account_for_infinite_loops {
            Self::infinite_loop_exits_of(&cfg, &exits)
        } else {
            Vec::new()
        };
        // Reversed CFG with the virtual exit as node 0.
        let mut edges: Vec<(PostDomNode, PostDomNode)> = exits
            .iter()
            .chain(&infinite_loop_exits)
            .map(|&b| (PostDomNode::VIRTUAL_EXIT, PostDomNode::of(b)))
            .collect();
        for from in cfg.nodes() {
            for &to in cfg.succ_graph().successors(from) {
                edges.push((PostDomNode::of(to), PostDomNode::of(from)));
            }
        }
        let tree = DominatorTree::compute(&Graph::from_edges(n + 1, &edges));
        PostDomTree {
            exits: exits.iter().map(|&b| cfg.block(b)).collect(),
            infinite_loop_exits: infinite_loop_exits.iter().map(|&b| cfg.block(b)).collect(),
            cfg,
            tree,
        }
    }

    /// One block per sink cycle among the blocks that cannot reach an exit (module doc).
    fn infinite_loop_exits_of(cfg: &Cfg, exits: &[CfgNode]) -> Vec<CfgNode> {
        let mut reaches_exit: SecondaryMap<CfgNode, bool> = SecondaryMap::new();
        let mut worklist: Vec<CfgNode> = exits.to_vec();
        for &e in exits {
            reaches_exit[e] = true;
        }
        while let Some(b) = worklist.pop() {
            for &p in cfg.pred_graph().successors(b) {
                if !reaches_exit[p] {
                    reaches_exit[p] = true;
                    worklist.push(p);
                }
            }
        }
        let stuck: Vec<CfgNode> = cfg.nodes().filter(|&b| !reaches_exit[b]).collect();
        if stuck.is_empty() {
            return Vec::new();
        }
        // Rank: position in reverse post-order, then layout order for unreachable blocks.
        let reachable_count = cfg.rpo_numbers().len();
        let rank = |b: CfgNode| {
            cfg.rpo_position(b)
                .map_or(reachable_count + b.index(), |p| p.index())
        };
        let graph = cfg.succ_graph();
        let components =
            SccFinder::new(cfg.block_count()).find(graph, &stuck, |_, to| !reaches_exit[to]);
        let mut component_of: SecondaryMap<CfgNode, usize> = SecondaryMap::new();
        for (id, members) in components.iter().enumerate() {
            for &b in members {
                component_of[b] = id;
            }
        }
        let mut chosen: Vec<CfgNode> = components
            .iter()
            .enumerate()
            .filter(|(id, members)| {
                // Every successor of a stuck block is stuck, so a sink has none outside.
                members
                    .iter()
                    .all(|&b| graph.successors(b).iter().all(|&s| component_of[s] == *id))
            })
            .map(|(_, members)| {
                *members
                    .iter()
                    .max_by_key(|&&b| rank(b))
                    .expect("components are not empty")
            })
            .collect();
        chosen.sort_unstable();
        chosen
    }

    pub fn cfg(&self) -> &Cfg {
        &self.cfg
    }

    fn node(&self, block: Block) -> Option<PostDomNode> {
        self.cfg.number(block).map(PostDomNode::of)
    }

    /// Whether `block` is in the tree (it reaches an exit, or an artificial one).
    pub fn is_in_tree(&self, block: Block) -> bool {
        self.node(block).is_some_and(|n| self.tree.is_reachable(n))
    }

    /// Whether `a` post-dominates `b` (reflexive); false when either is not in the tree.
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        match (self.node(a), self.node(b)) {
            (Some(a), Some(b)) => self.tree.dominates(a, b),
            _ => false,
        }
    }

    pub fn strictly_post_dominates(&self, a: Block, b: Block) -> bool {
        a != b && self.post_dominates(a, b)
    }

    /// The immediate post-dominator of `block`; `None` when it is the virtual exit or the
    /// block is not in the tree.
    pub fn ipdom(&self, block: Block) -> Option<Block> {
        let n = self.node(block)?;
        let d = self.tree.idom(n)?.cfg_node()?;
        Some(self.cfg.block(d))
    }

    /// Blocks without executable successors, in layout order.
    pub fn exits(&self) -> &[Block] {
        &self.exits
    }

    /// The blocks given an artificial edge to the virtual exit, in layout order.
    pub fn infinite_loop_exits(&self) -> &[Block] {
        &self.infinite_loop_exits
    }

    /// Blocks in the tree, each after its immediate post-dominator.
    pub fn preorder(&self) -> impl Iterator<Item = Block> + '_ {
        self.tree
            .preorder()
            .iter()
            .filter_map(|&n| n.cfg_node())
            .map(|n| self.cfg.block(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;
    use oxir_ir::parser::parse_module;

    fn block(n: usize) -> Block {
        Block::new(n)
    }

    fn tree(text: &str, account_for_infinite_loops: bool) -> PostDomTree {
        let m = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
        let f = m.functions.values().next().expect("one function");
        PostDomTree::new(
            f,
            PostDomOptions {
                account_for_infinite_loops,
            },
        )
    }

    #[test]
    fn diamond_and_early_return() {
        let t = tree(
            "
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    cond_br c0, block1, block2
block1:
    br block3
block2:
    cond_br c0, block3, block4
block3:
    return
block4:
    return
}
",
            true,
        );
        assert_eq!(t.exits(), &[block(3), block(4)]);
        assert!(t.infinite_loop_exits().is_empty());
        assert_eq!(t.ipdom(block(1)), Some(block(3)));
        // block2 may leave by block3 or block4: only the virtual exit post-dominates it.
        assert_eq!(t.ipdom(block(2)), None);
        assert_eq!(t.ipdom(block(0)), None);
        assert!(t.post_dominates(block(3), block(1)));
        assert!(!t.post_dominates(block(3), block(0)));
        assert!(t.post_dominates(block(2), block(2)));
        assert!(!t.strictly_post_dominates(block(2), block(2)));
        assert!((0..5).all(|b| t.is_in_tree(block(b))));
        assert_eq!(t.preorder().count(), 5);
    }

    #[test]
    fn structured_roles_are_not_edges() {
        let t = tree(
            "
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    if c0, then block1, else block2, merge block3
block1:
    br block3
block2:
    return
block3:
    return
}
",
            true,
        );
        // The merge role does not make block3 post-dominate block0.
        assert_eq!(t.ipdom(block(0)), None);
        assert_eq!(t.ipdom(block(1)), Some(block(3)));
    }

    const INFINITE: &str = "
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    cond_br c0, block1, block4
block1:
    br block2
block2:
    br block3
block3:
    br block2
block4:
    return
}
";

    #[test]
    fn infinite_loop_without_accounting_is_outside_the_tree() {
        let t = tree(INFINITE, false);
        assert!(t.infinite_loop_exits().is_empty());
        for b in 1..=3 {
            assert!(!t.is_in_tree(block(b)), "block{b}");
        }
        assert!(t.is_in_tree(block(0)) && t.is_in_tree(block(4)));
        assert_eq!(
            t.ipdom(block(0)),
            Some(block(4)),
            "the only real path to an exit"
        );
        assert!(!t.post_dominates(block(2), block(1)));
    }

    #[test]
    fn infinite_loop_gets_one_artificial_exit_at_its_latch() {
        let t = tree(INFINITE, true);
        // block3 comes last in reverse post-order in the cycle {block2, block3}.
        assert_eq!(t.infinite_loop_exits(), &[block(3)]);
        assert!((0..5).all(|b| t.is_in_tree(block(b))));
        assert_eq!(t.ipdom(block(3)), None);
        assert_eq!(t.ipdom(block(2)), Some(block(3)));
        assert_eq!(t.ipdom(block(1)), Some(block(2)));
        assert_eq!(t.ipdom(block(0)), None);
    }

    #[test]
    fn self_loop_and_unreachable_blocks() {
        let t = tree(
            "
kernel @k() workgroup_size(1, 1, 1) {
block0:
    br block1
block1:
    br block1
block2:
    br block3
block3:
    return
block4:
    br block4
}
",
            true,
        );
        // Two sink cycles: the reachable self-loop and the unreachable one.
        assert_eq!(t.infinite_loop_exits(), &[block(1), block(4)]);
        assert_eq!(t.ipdom(block(0)), Some(block(1)));
        assert_eq!(t.ipdom(block(2)), Some(block(3)));
        assert!(t.is_in_tree(block(4)));
    }

    #[test]
    fn long_chain_does_not_overflow_the_stack() {
        let n = 50_000;
        let mut text = String::from("kernel @k() workgroup_size(1, 1, 1) {\n");
        for i in 0..n {
            text.push_str(&format!("block{i}:\n    br block{}\n", i + 1));
        }
        text.push_str(&format!("block{n}:\n    br block{n}\n}}\n"));
        let t = tree(&text, true);
        assert_eq!(t.infinite_loop_exits(), &[block(n)]);
        assert!(t.post_dominates(block(n), block(0)));
        assert_eq!(t.ipdom(block(0)), Some(block(1)));
    }

    /// Whether some path from `from` reaches an exit without passing through `avoid`.
    fn reaches_exit_avoiding(cfg: &Cfg, from: Block, avoid: Option<Block>) -> bool {
        let mut seen = vec![false; cfg.block_count()];
        let mut stack = vec![from];
        while let Some(b) = stack.pop() {
            let n = cfg.number(b).unwrap().index();
            if Some(b) == avoid || seen[n] {
                continue;
            }
            seen[n] = true;
            if cfg.succ_count(b) == 0 {
                return true;
            }
            stack.extend(cfg.succs(b));
        }
        false
    }

    #[test]
    fn random_functions_match_the_path_definition() {
        use oxir_ir::random_modules::{generate_module, GenConfig};
        let config = GenConfig {
            max_insts: 120,
            ..GenConfig::default()
        };
        for seed in 0..30 {
            let m = generate_module(seed, config);
            for f in m.functions.values() {
                let plain = PostDomTree::new(
                    f,
                    PostDomOptions {
                        account_for_infinite_loops: false,
                    },
                );
                let full = PostDomTree::new(f, PostDomOptions::default());
                let cfg = plain.cfg();
                for &b in cfg.blocks() {
                    let in_tree = reaches_exit_avoiding(cfg, b, None);
                    assert_eq!(plain.is_in_tree(b), in_tree, "seed {seed} {b}");
                    assert!(full.is_in_tree(b), "seed {seed} {b}");
                    if !in_tree {
                        continue;
                    }
                    for &a in cfg.blocks() {
                        let expected = a == b
                            || (plain.is_in_tree(a) && !reaches_exit_avoiding(cfg, b, Some(a)));
                        assert_eq!(plain.post_dominates(a, b), expected, "seed {seed} {a} {b}");
                        if full.infinite_loop_exits().is_empty() {
                            assert_eq!(full.post_dominates(a, b), expected);
                        }
                    }
                    // The immediate post-dominator is the nearest strict one.
                    if let Some(p) = plain.ipdom(b) {
                        assert!(plain.strictly_post_dominates(p, b));
                        for &a in cfg.blocks() {
                            if plain.strictly_post_dominates(a, b) {
                                assert!(plain.post_dominates(a, p), "seed {seed} {a} {p} {b}");
                            }
                        }
                    }
                }
            }
        }
    }
}
