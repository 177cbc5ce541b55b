//! Natural loops, irreducible cycles, and the strongly-connected-component finder the
//! cycle analyses share.
//!
//! **Natural loops.** A back edge is an executable edge `t → h` whose target dominates its
//! source. The loop of header `h` is `h` plus every block that reaches one of its latches
//! (the sources of its back edges) without passing through `h`; back edges to the same
//! header make one loop. Two natural loops are either disjoint or nested (the inner one's
//! blocks are a strict subset), so they form a forest: each loop has a parent (the
//! innermost loop that contains its header besides itself) and a depth (1 for outermost
//! loops). Loops are numbered by their header's reverse post-order position, so a parent is
//! numbered before its children. Only blocks reachable from the entry take part.
//!
//! Per loop: header, latches, blocks, exits (edges `(from, to)` with `from` inside and `to`
//! outside), exit targets, and the preheader — the header's unique predecessor outside the
//! loop when that predecessor's only successor is the header. For a structured
//! `loop prepare P, body B, update U, merge M` the header is `P`, the latch `U` (the block
//! owning the `loop` terminator is the preheader); for `simple_loop body B` header and latch
//! are both `B`. Structural roles are not edges and play no part.
//!
//! **Irreducible cycles** ([`irreducible_cycles`]): a cycle with more than one entry, where
//! no natural loop describes it. The reachable CFG is split into strongly connected
//! components (Tarjan); a non-trivial component whose blocks are entered from outside at
//! more than one block (or whose single entry does not dominate it) is irreducible and is
//! reported. A reducible component is decomposed further — its header's incoming edges
//! from inside are removed and the rest split into components again — so an irreducible
//! cycle nested inside a natural loop is found too.
//!
//! Everything is a snapshot of the function it was built from: recompute after any CFG
//! change. Traversals are iterative and use dense numbering (the [`Cfg`] block numbers).

use crate::analysis::cfg::{Cfg, CfgNode};
use crate::analysis::dominators::DomTree;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use oxir_ir::dominance::{Graph, GraphNode};
use oxir_ir::{Block, Function};

// --- strongly connected components -----------------------------------------------------

/// Tarjan's strongly-connected-components algorithm, iterative, over a subgraph of a dense
/// [`Graph`]. The scratch arrays are sized once and reset after each run for the nodes it
/// touched only, so decomposing nested regions repeatedly costs their size, not the
/// graph's. Shared by the loop, post-dominator and call-graph analyses.
pub struct SccFinder {
    /// DFS discovery number of each node; `UNVISITED` outside a run.
    index: Vec<u32>,
    lowlink: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    /// The DFS "call stack": node and the position of its next successor to visit.
    frames: Vec<(usize, usize)>,
}

/// The discovery number of a node the current run has not reached.
const UNVISITED: u32 = u32::MAX;

impl SccFinder {
    pub fn new(node_count: usize) -> SccFinder {
        SccFinder {
            index: vec![UNVISITED; node_count],
            lowlink: vec![UNVISITED; node_count],
            on_stack: vec![false; node_count],
            stack: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// The strongly connected components of the subgraph of `graph` with nodes `nodes`
    /// and the edges `from → to` for which `keep_edge(from, to)` holds. `keep_edge` must
    /// reject edges leaving `nodes`. Components come out in Tarjan's completion order: a
    /// component appears after every component it reaches (sinks first, a reverse
    /// topological order). Members appear in the order they were popped.
    pub fn find<N: GraphNode>(
        &mut self,
        graph: &Graph<N>,
        nodes: &[N],
        mut keep_edge: impl FnMut(N, N) -> bool,
    ) -> Vec<Vec<N>> {
        let mut components = Vec::new();
        let mut counter = 0u32;
        for &root in nodes {
            if self.index[root.dense()] != UNVISITED {
                continue;
            }
            self.open(root.dense(), &mut counter);
            while let Some(top) = self.frames.last_mut() {
                let (node, next) = *top;
                let node_id = N::from_dense(node);
                if let Some(&succ) = graph.successors(node_id).get(next) {
                    top.1 += 1;
                    if !keep_edge(node_id, succ) {
                        continue;
                    }
                    let succ = succ.dense();
                    if self.index[succ] == UNVISITED {
                        self.open(succ, &mut counter);
                    } else if self.on_stack[succ] {
                        let low = &mut self.lowlink[node];
                        *low = (*low).min(self.index[succ]);
                    }
                    continue;
                }
                self.frames.pop();
                if self.lowlink[node] == self.index[node] {
                    let mut component = Vec::new();
                    loop {
                        let member = self.stack.pop().expect("tarjan stack holds the root");
                        self.on_stack[member] = false;
                        component.push(N::from_dense(member));
                        if member == node {
                            break;
                        }
                    }
                    components.push(component);
                }
                if let Some(&(parent, _)) = self.frames.last() {
                    let low = self.lowlink[node];
                    let parent_low = &mut self.lowlink[parent];
                    *parent_low = (*parent_low).min(low);
                }
            }
        }
        for &node in nodes {
            self.index[node.dense()] = UNVISITED;
            self.lowlink[node.dense()] = UNVISITED;
        }
        components
    }

    fn open(&mut self, node: usize, counter: &mut u32) {
        self.index[node] = *counter;
        self.lowlink[node] = *counter;
        *counter += 1;
        self.stack.push(node);
        self.on_stack[node] = true;
        self.frames.push((node, 0));
    }
}

// --- natural loops ---------------------------------------------------------------------

/// A natural loop of a [`LoopInfo`]. Prints as `loopN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loop(u32);
entity_impl!(Loop, "loop");

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopData {
    pub header: Block,
    /// Sources of the back edges to the header, in layout order.
    pub latches: Vec<Block>,
    /// Every block of the loop (header included), in layout order.
    pub blocks: Vec<Block>,
    /// Edges leaving the loop, `(inside, outside)`, in layout order of their sources.
    pub exits: Vec<(Block, Block)>,
    /// The distinct targets of `exits`, in layout order.
    pub exit_targets: Vec<Block>,
    /// The unique predecessor of the header outside the loop, when its only successor is
    /// the header.
    pub preheader: Option<Block>,
    /// The innermost other loop containing this one.
    pub parent: Option<Loop>,
    /// 1 for an outermost loop, its parent's depth plus one otherwise.
    pub depth: u32,
}

/// The natural loops of one function.
pub struct LoopInfo {
    domtree: DomTree,
    loops: PrimaryMap<Loop, LoopData>,
    /// Block numbers of each loop, sorted, for membership tests.
    members: SecondaryMap<Loop, Vec<CfgNode>>,
    /// The innermost loop of each block number (none: in no loop).
    innermost: SecondaryMap<CfgNode, PackedOption<Loop>>,
}

impl LoopInfo {
    /// Computes the dominator tree and natural loops of `func`.
    pub fn new(func: &Function) -> LoopInfo {
        Self::from_domtree(DomTree::new(func))
    }

    pub fn from_domtree(domtree: DomTree) -> LoopInfo {
        let cfg = domtree.cfg();
        // Back edges grouped by header, headers in reverse post-order.
        let mut latches_of: SecondaryMap<CfgNode, Vec<CfgNode>> = SecondaryMap::new();
        let mut headers: Vec<CfgNode> = Vec::new();
        for &t in cfg.rpo_numbers() {
            for &h in cfg.succ_graph().successors(t) {
                if domtree.dominates(cfg.block(h), cfg.block(t)) {
                    if latches_of[h].is_empty() {
                        headers.push(h);
                    }
                    latches_of[h].push(t);
                }
            }
        }
        headers.sort_unstable_by_key(|&h| cfg.rpo_position(h));

        let mut loops: PrimaryMap<Loop, LoopData> = PrimaryMap::new();
        let mut members: SecondaryMap<Loop, Vec<CfgNode>> = SecondaryMap::new();
        let mut innermost: SecondaryMap<CfgNode, PackedOption<Loop>> = SecondaryMap::new();
        // `mark[b] == lp` means b is in the loop `lp` being built (epochs: no resets).
        let mut mark: SecondaryMap<CfgNode, PackedOption<Loop>> = SecondaryMap::new();
        let mut worklist: Vec<CfgNode> = Vec::new();
        for &header in &headers {
            let epoch = loops.next_key();
            let in_loop = |mark: &SecondaryMap<CfgNode, PackedOption<Loop>>, b: CfgNode| {
                mark[b].expand() == Some(epoch)
            };
            let mut body = vec![header];
            mark[header] = epoch.into();
            for &latch in &latches_of[header] {
                if !in_loop(&mark, latch) {
                    mark[latch] = epoch.into();
                    body.push(latch);
                    worklist.push(latch);
                }
            }
            while let Some(b) = worklist.pop() {
                for &p in cfg.pred_graph().successors(b) {
                    if !in_loop(&mark, p) && cfg.is_reachable(cfg.block(p)) {
                        mark[p] = epoch.into();
                        body.push(p);
                        worklist.push(p);
                    }
                }
            }
            body.sort_unstable();
            let mut exits = Vec::new();
            for &b in &body {
                for &s in cfg.succ_graph().successors(b) {
                    if !in_loop(&mark, s) {
                        exits.push((cfg.block(b), cfg.block(s)));
                    }
                }
            }
            let mut exit_targets: Vec<CfgNode> = exits
                .iter()
                .map(|&(_, to)| cfg.number(to).expect("exit target is in the layout"))
                .collect();
            exit_targets.sort_unstable();
            exit_targets.dedup();
            let outside_preds: Vec<CfgNode> = cfg
                .pred_graph()
                .successors(header)
                .iter()
                .copied()
                .filter(|&p| !in_loop(&mark, p) && cfg.is_reachable(cfg.block(p)))
                .collect();
            let preheader = match outside_preds.as_slice() {
                [p] if cfg.succ_graph().successors(*p).len() == 1 => Some(cfg.block(*p)),
                _ => None,
            };
            // Headers come in dominance order, so every loop containing this header was
            // built already and the innermost of them is the parent.
            let parent = innermost[header].expand();
            let depth = parent.map_or(1, |p: Loop| loops[p].depth + 1);
            for &b in &body {
                innermost[b] = epoch.into();
            }
            let mut latches = latches_of[header].clone();
            latches.sort_unstable();
            let pushed = loops.push(LoopData {
                header: cfg.block(header),
                latches: latches.iter().map(|&l| cfg.block(l)).collect(),
                blocks: body.iter().map(|&b| cfg.block(b)).collect(),
                exits,
                exit_targets: exit_targets.iter().map(|&t| cfg.block(t)).collect(),
                preheader,
                parent,
                depth,
            });
            debug_assert_eq!(pushed, epoch);
            members[epoch] = body;
        }
        LoopInfo {
            domtree,
            loops,
            members,
            innermost,
        }
    }

    /// The dominator tree the loops were computed from.
    pub fn dom_tree(&self) -> &DomTree {
        &self.domtree
    }

    pub fn cfg(&self) -> &Cfg {
        self.domtree.cfg()
    }

    pub fn loop_count(&self) -> usize {
        self.loops.len()
    }

    /// Every loop, parents before children.
    pub fn loops(&self) -> impl Iterator<Item = Loop> + '_ {
        self.loops.keys()
    }

    pub fn data(&self, lp: Loop) -> &LoopData {
        &self.loops[lp]
    }

    /// The innermost loop containing `block`.
    pub fn loop_of(&self, block: Block) -> Option<Loop> {
        let n = self.cfg().number(block)?;
        self.innermost[n].expand()
    }

    /// The loop whose header is `block`.
    pub fn loop_with_header(&self, block: Block) -> Option<Loop> {
        self.loop_of(block)
            .filter(|&lp| self.loops[lp].header == block)
    }

    /// The loop depth of `block`: 0 outside every loop.
    pub fn depth(&self, block: Block) -> u32 {
        self.loop_of(block).map_or(0, |lp| self.loops[lp].depth)
    }

    /// Whether `block` belongs to `lp` (or to a loop nested in it).
    pub fn contains(&self, lp: Loop, block: Block) -> bool {
        self.cfg()
            .number(block)
            .is_some_and(|n| self.members[lp].binary_search(&n).is_ok())
    }

    /// Whether `v` (alias-resolved) is defined outside `lp` in `func` as placed now: a
    /// constant, a global, or a result or parameter of a block outside the loop. An
    /// unplaced instruction's result, an unresolved alias or a detached value is not.
    pub fn defines_outside(&self, func: &Function, lp: Loop, v: oxir_ir::Value) -> bool {
        use oxir_ir::ValueDef;
        let v = func.dfg.resolve(v);
        if !func.dfg.value_is_valid(v) {
            return false;
        }
        match func.dfg.value_def(v) {
            ValueDef::Result(i) => func
                .layout
                .inst_block(i)
                .is_some_and(|b| !self.contains(lp, b)),
            ValueDef::Param(b, _) => !self.contains(lp, b),
            ValueDef::Const(_) | ValueDef::Global(_) => true,
            ValueDef::Alias(_) | ValueDef::Detached => false,
        }
    }

    /// Whether `outer` is `inner` or one of its ancestors.
    pub fn is_nested_in(&self, inner: Loop, outer: Loop) -> bool {
        let mut cursor = Some(inner);
        while let Some(lp) = cursor {
            if lp == outer {
                return true;
            }
            cursor = self.loops[lp].parent;
        }
        false
    }

    /// The irreducible cycles of the function this was built from (see
    /// [`irreducible_cycles`]).
    pub fn irreducible_cycles(&self) -> Vec<Vec<Block>> {
        irreducible_cycles_of(&self.domtree)
    }
}

// --- irreducible cycles ----------------------------------------------------------------

/// The irreducible cycles of `func`: each strongly connected region of the reachable CFG
/// that is entered at more than one block, as its blocks in layout order; regions in
/// layout order of their first block. Empty when the CFG is reducible.
pub fn irreducible_cycles(func: &Function) -> Vec<Vec<Block>> {
    irreducible_cycles_of(&DomTree::new(func))
}

/// [`irreducible_cycles`] over an existing dominator tree.
pub fn irreducible_cycles_of(domtree: &DomTree) -> Vec<Vec<Block>> {
    let cfg = domtree.cfg();
    let graph = cfg.succ_graph();
    let mut finder = SccFinder::new(cfg.block_count());
    // Epoch marks: `region[b]` is the id of the region being split, `component[b]` the id
    // of the component being classified (ids count up from 1; 0 is "none yet").
    let mut region: SecondaryMap<CfgNode, u32> = SecondaryMap::new();
    let mut component: SecondaryMap<CfgNode, u32> = SecondaryMap::new();
    let mut next_region = 0u32;
    let mut next_component = 0u32;
    let mut found: Vec<Vec<CfgNode>> = Vec::new();
    // Regions to split: their blocks and the header whose incoming edges are cut.
    let mut worklist: Vec<(Vec<CfgNode>, Option<CfgNode>)> =
        vec![(cfg.rpo_numbers().to_vec(), None)];
    while let Some((nodes, cut_header)) = worklist.pop() {
        next_region += 1;
        let id = next_region;
        for &b in &nodes {
            region[b] = id;
        }
        let components = finder.find(graph, &nodes, |from, to| {
            region[to] == id && Some(to) != cut_header && region[from] == id
        });
        for members in components {
            next_component += 1;
            let cid = next_component;
            for &b in &members {
                component[b] = cid;
            }
            let trivial = members.len() == 1 && {
                let b = members[0];
                Some(b) == cut_header || !graph.successors(b).contains(&b)
            };
            if trivial {
                continue;
            }
            let entries: Vec<CfgNode> = members
                .iter()
                .copied()
                .filter(|&b| {
                    cfg.pred_graph()
                        .successors(b)
                        .iter()
                        .any(|&p| component[p] != cid && cfg.is_reachable(cfg.block(p)))
                })
                .collect();
            let single_dominating_entry = match entries.as_slice() {
                [entry] => members
                    .iter()
                    .all(|&b| domtree.dominates(cfg.block(*entry), cfg.block(b))),
                _ => false,
            };
            if single_dominating_entry {
                let header = entries[0];
                worklist.push((members, Some(header)));
            } else {
                let mut sorted = members;
                sorted.sort_unstable();
                found.push(sorted);
            }
        }
    }
    found.sort_unstable();
    found
        .into_iter()
        .map(|c| c.into_iter().map(|b| cfg.block(b)).collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;
    use oxir_ir::parser::parse_module;
    use oxir_ir::Module;

    fn block(n: usize) -> Block {
        Block::new(n)
    }

    fn module(text: &str) -> Module {
        parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn first(m: &Module) -> &Function {
        m.functions.values().next().expect("one function")
    }

    #[test]
    fn scc_finder_orders_sinks_first_and_resets() {
        // 0 -> 1 <-> 2 -> 3 <-> 4, 5 alone.
        let g = Graph::from_edges(6, &[(0, 1), (1, 2), (2, 1), (2, 3), (3, 4), (4, 3)]);
        let mut finder = SccFinder::new(6);
        let nodes = [0, 1, 2, 3, 4, 5];
        let mut comps = finder.find(&g, &nodes, |_, _| true);
        for c in &mut comps {
            c.sort_unstable();
        }
        assert_eq!(comps, vec![vec![3, 4], vec![1, 2], vec![0], vec![5]]);
        // Reusable: the same answer again, and on a subgraph.
        assert_eq!(finder.find(&g, &nodes, |_, _| true).len(), 4);
        let sub = finder.find(&g, &[1, 2], |_, to| to == 1 || to == 2);
        assert_eq!(sub.len(), 1);
    }

    #[test]
    fn scc_finder_handles_long_chains_iteratively() {
        let n = 100_000u32;
        let mut edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        edges.push((n - 1, 0));
        let g = Graph::from_edges(n as usize, &edges);
        let nodes: Vec<u32> = (0..n).collect();
        let comps = SccFinder::new(n as usize).find(&g, &nodes, |_, _| true);
        assert_eq!(comps.len(), 1);
        assert_eq!(comps[0].len(), n as usize);
    }

    const NESTED_PLAIN: &str = "
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    br block1
block1:
    cond_br c0, block2, block6
block2:
    br block3
block3:
    cond_br c0, block3, block4
block4:
    cond_br c0, block1, block5
block5:
    br block1
block6:
    return
}
";

    #[test]
    fn nested_plain_loops() {
        let m = module(NESTED_PLAIN);
        let info = LoopInfo::new(first(&m));
        assert_eq!(info.loop_count(), 2);
        let outer = info.loop_with_header(block(1)).expect("outer loop");
        let inner = info.loop_with_header(block(3)).expect("inner loop");
        let o = info.data(outer);
        assert_eq!(o.latches, vec![block(4), block(5)]);
        assert_eq!(o.blocks, (1..=5).map(block).collect::<Vec<_>>());
        assert_eq!(o.exits, vec![(block(1), block(6))]);
        assert_eq!(o.exit_targets, vec![block(6)]);
        assert_eq!(o.preheader, Some(block(0)));
        assert_eq!((o.parent, o.depth), (None, 1));
        let i = info.data(inner);
        assert_eq!(i.latches, vec![block(3)]);
        assert_eq!(i.blocks, vec![block(3)]);
        assert_eq!(i.exits, vec![(block(3), block(4))]);
        assert_eq!(i.preheader, Some(block(2)));
        assert_eq!((i.parent, i.depth), (Some(outer), 2));
        assert_eq!(info.loop_of(block(3)), Some(inner));
        assert_eq!(info.loop_of(block(4)), Some(outer));
        assert_eq!(info.loop_of(block(6)), None);
        assert_eq!(
            (
                info.depth(block(3)),
                info.depth(block(2)),
                info.depth(block(0))
            ),
            (2, 1, 0)
        );
        assert!(info.contains(outer, block(3)) && !info.contains(inner, block(4)));
        assert!(info.is_nested_in(inner, outer) && !info.is_nested_in(outer, inner));
        assert!(info.irreducible_cycles().is_empty());
    }

    #[test]
    fn structured_loops_use_edges_not_roles() {
        let m = module(
            "
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    loop prepare block1, body block2, update block3, merge block4
block1:
    cond_br c0, block2, block4
block2:
    if c0, then block5, else block6, merge block7
block5:
    break block4
block6:
    br block7
block7:
    br block3
block3:
    br block1
block4:
    simple_loop body block8, merge block9
block8:
    if c0, then block10, else block11, merge block12
block10:
    break block9
block11:
    br block12
block12:
    continue block8
block9:
    return
}
",
        );
        let info = LoopInfo::new(first(&m));
        assert_eq!(info.loop_count(), 2);
        let lp = info.loop_with_header(block(1)).expect("loop at prepare");
        let d = info.data(lp);
        assert_eq!(d.latches, vec![block(3)]);
        // The `break` arm (block5) does not reach the latch: it is outside the natural loop.
        assert_eq!(
            d.blocks,
            [1, 2, 6, 7, 3].map(block).to_vec(),
            "layout order"
        );
        assert_eq!(d.exits, vec![(block(1), block(4)), (block(2), block(5))]);
        assert_eq!(d.exit_targets, vec![block(5), block(4)], "layout order");
        assert_eq!(d.preheader, Some(block(0)));
        let simple = info.loop_with_header(block(8)).expect("simple loop");
        let d = info.data(simple);
        assert_eq!(d.latches, vec![block(12)]);
        assert_eq!(d.blocks, [8, 11, 12].map(block).to_vec());
        assert_eq!(d.exit_targets, vec![block(10)]);
        assert_eq!(d.preheader, Some(block(4)));
        assert_eq!(info.depth(block(9)), 0);
    }

    #[test]
    fn self_loop_without_preheader_and_unreachable_blocks() {
        let m = module(
            "
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    cond_br c0, block1, block2
block1:
    cond_br c0, block1, block2
block2:
    cond_br c0, block1, block3
block3:
    return
block4:
    br block4
}
",
        );
        let info = LoopInfo::new(first(&m));
        // block1 has two outside predecessors: no natural loop header other than itself,
        // no preheader; the unreachable self-loop in block4 is ignored.
        assert_eq!(info.loop_count(), 1);
        let d = info.data(info.loop_with_header(block(1)).unwrap());
        assert_eq!(d.blocks, vec![block(1)]);
        assert_eq!(d.preheader, None);
        assert_eq!(info.loop_of(block(4)), None);
        // The cycle block1 <-> block2 is entered at both blocks.
        assert_eq!(info.irreducible_cycles(), vec![vec![block(1), block(2)]]);
    }

    #[test]
    fn irreducible_cycle_is_found_at_top_level_and_inside_a_loop() {
        // Two entries (block1 and block2) into the cycle 1 <-> 2.
        let m = module(
            "
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    cond_br c0, block1, block2
block1:
    cond_br c0, block2, block3
block2:
    cond_br c0, block1, block3
block3:
    return
}
",
        );
        let f = first(&m);
        assert_eq!(irreducible_cycles(f), vec![vec![block(1), block(2)]]);
        assert_eq!(
            LoopInfo::new(f).loop_count(),
            0,
            "no back edge is dominated"
        );
        // The same cycle inside the natural loop headed by block1.
        let m = module(
            "
const c0: bool = true
kernel @k() workgroup_size(1, 1, 1) {
block0:
    br block1
block1:
    cond_br c0, block2, block3
block2:
    cond_br c0, block3, block4
block3:
    cond_br c0, block2, block4
block4:
    cond_br c0, block1, block5
block5:
    return
}
",
        );
        let f = first(&m);
        let info = LoopInfo::new(f);
        assert_eq!(info.loop_count(), 1);
        assert_eq!(info.irreducible_cycles(), vec![vec![block(2), block(3)]]);
        assert!(irreducible_cycles(first(&module(NESTED_PLAIN))).is_empty());
    }

    #[test]
    fn random_functions_have_consistent_loops() {
        use oxir_ir::random_modules::{generate_module, GenConfig};
        let mut loops_seen = 0;
        for seed in 0..40 {
            let m = generate_module(seed, GenConfig::default());
            for f in m.functions.values() {
                let info = LoopInfo::new(f);
                let dom = info.dom_tree();
                let cfg = info.cfg();
                // Counted structured and plain loops only: the generator never makes an
                // irreducible cycle.
                assert!(info.irreducible_cycles().is_empty(), "seed {seed}");
                for lp in info.loops() {
                    loops_seen += 1;
                    let d = info.data(lp);
                    for &b in &d.blocks {
                        assert!(dom.dominates(d.header, b), "seed {seed}: header dominates");
                        assert!(info.contains(lp, b));
                        let inner = info.loop_of(b).unwrap();
                        assert!(info.is_nested_in(inner, lp));
                    }
                    for &p in cfg.preds(d.header).collect::<Vec<_>>().iter() {
                        assert_eq!(info.contains(lp, p), d.latches.contains(&p), "seed {seed}");
                    }
                    for &(from, to) in &d.exits {
                        assert!(info.contains(lp, from) && !info.contains(lp, to));
                    }
                    let exits: usize = d
                        .blocks
                        .iter()
                        .map(|&b| cfg.succs(b).filter(|&s| !info.contains(lp, s)).count())
                        .sum();
                    assert_eq!(exits, d.exits.len());
                    if let Some(p) = d.parent {
                        assert!(info.contains(p, d.header) && p != lp);
                        assert_eq!(d.depth, info.data(p).depth + 1);
                    } else {
                        assert_eq!(d.depth, 1);
                    }
                    if let Some(pre) = d.preheader {
                        assert!(!info.contains(lp, pre));
                        assert_eq!(cfg.succs(pre).collect::<Vec<_>>(), vec![d.header]);
                    }
                }
            }
        }
        assert!(
            loops_seen > 20,
            "the generator made few loops ({loops_seen})"
        );
    }
}
