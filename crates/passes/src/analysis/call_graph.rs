//! The call graph of a module.
//!
//! Nodes are the module's functions; there is an edge `caller → callee` for every `call`
//! instruction placed in a block of the caller's layout (calls are the only way a function
//! is referenced, so this is every use of a function). Each edge keeps its call sites.
//! Roots are the entry points (kernels, vertex and fragment entries). Strongly connected
//! components come from Tarjan's algorithm (iterative): a function is *recursive* when its
//! component has more than one function or it calls itself. [`CallGraph::bottom_up_order`]
//! lists callees before their callers (components in reverse topological order), the order
//! inlining wants so that one run inlines transitive calls.
//!
//! A `call` whose callee index does not name a function of the module (the verifier
//! rejects it) is not an edge; [`CallGraph::invalid_call_sites`] lists such calls. The
//! graph is a snapshot: recompute it after adding, removing or renumbering calls or
//! functions.

use crate::analysis::loops::SccFinder;
use cranelift_entity::{EntityRef, SecondaryMap};
use oxir_ir::dominance::Graph;
use oxir_ir::{Func, Inst, Module, Opcode};

/// One `call` instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallSite {
    pub caller: Func,
    pub inst: Inst,
    pub callee: Func,
}

/// The call graph of one module.
pub struct CallGraph {
    /// Every valid call site, grouped by caller (functions in index order, sites in layout
    /// order within each caller).
    sites: Vec<CallSite>,
    /// `sites[site_offsets[f]..site_offsets[f + 1]]` are the sites in caller `f`.
    site_offsets: Vec<u32>,
    /// Indices into `sites`, grouped by callee.
    sites_by_callee: Vec<u32>,
    callee_offsets: Vec<u32>,
    /// Distinct callees and callers of each function.
    callees: Graph<Func>,
    callers: Graph<Func>,
    invalid: Vec<(Func, Inst)>,
    roots: Vec<Func>,
    function_count: usize,
    /// Components in bottom-up order (callees first); `component_of[f]` indexes it.
    components: Vec<Vec<Func>>,
    component_of: SecondaryMap<Func, usize>,
    recursive: SecondaryMap<Func, bool>,
}

impl CallGraph {
    pub fn new(module: &Module) -> CallGraph {
        let n = module.functions.len();
        let mut sites = Vec::new();
        let mut site_offsets = vec![0u32; n + 1];
        let mut invalid = Vec::new();
        for (caller, func) in module.functions.iter() {
            for block in func.layout.blocks() {
                for inst in func.layout.block_insts(block) {
                    let data = func.dfg.inst(inst);
                    if data.opcode != Opcode::Call {
                        continue;
                    }
                    // A `call` without a callee is malformed (the verifier rejects it).
                    let callee = data.payload.callee().filter(|c| c.index() < n);
                    match callee {
                        Some(callee) => sites.push(CallSite {
                            caller,
                            inst,
                            callee,
                        }),
                        None => invalid.push((caller, inst)),
                    }
                }
            }
            site_offsets[caller.index() + 1] = sites.len() as u32;
        }
        let mut sites_by_callee: Vec<u32> = (0..sites.len() as u32).collect();
        sites_by_callee.sort_by_key(|&s| sites[s as usize].callee);
        let mut callee_offsets = vec![0u32; n + 1];
        for site in &sites {
            callee_offsets[site.callee.index() + 1] += 1;
        }
        for i in 0..n {
            callee_offsets[i + 1] += callee_offsets[i];
        }
        let mut edges: Vec<(Func, Func)> = sites.iter().map(|s| (s.caller, s.callee)).collect();
        edges.sort_unstable();
        edges.dedup();
        let callees = Graph::from_edges(n, &edges);
        let reversed: Vec<(Func, Func)> = edges.iter().map(|&(a, b)| (b, a)).collect();
        let callers = Graph::from_edges(n, &reversed);

        let nodes: Vec<Func> = module.functions.keys().collect();
        let raw = SccFinder::new(n).find(&callees, &nodes, |_, _| true);
        let mut component_of: SecondaryMap<Func, usize> = SecondaryMap::with_capacity(n);
        let mut recursive: SecondaryMap<Func, bool> = SecondaryMap::with_capacity(n);
        let mut components = Vec::with_capacity(raw.len());
        for (id, mut members) in raw.into_iter().enumerate() {
            members.sort_unstable();
            let cyclic = members.len() > 1 || callees.successors(members[0]).contains(&members[0]);
            for &f in &members {
                component_of[f] = id;
                recursive[f] = cyclic;
            }
            components.push(members);
        }
        let roots = module
            .functions
            .iter()
            .filter(|(_, f)| f.kind.is_entry_point())
            .map(|(k, _)| k)
            .collect();
        CallGraph {
            sites,
            site_offsets,
            sites_by_callee,
            callee_offsets,
            callees,
            callers,
            invalid,
            roots,
            function_count: n,
            components,
            component_of,
            recursive,
        }
    }

    pub fn function_count(&self) -> usize {
        self.function_count
    }

    /// The entry points, in index order.
    pub fn roots(&self) -> &[Func] {
        &self.roots
    }

    /// Every valid call site, grouped by caller.
    pub fn call_sites(&self) -> &[CallSite] {
        &self.sites
    }

    /// The call sites in `caller`, in layout order.
    pub fn call_sites_in(&self, caller: Func) -> &[CallSite] {
        let i = caller.index();
        if i >= self.function_count() {
            return &[];
        }
        &self.sites[self.site_offsets[i] as usize..self.site_offsets[i + 1] as usize]
    }

    /// The call sites that call `callee`, grouped by caller.
    pub fn call_sites_of(&self, callee: Func) -> impl Iterator<Item = &CallSite> + '_ {
        let i = callee.index();
        let range = if i < self.function_count() {
            self.callee_offsets[i] as usize..self.callee_offsets[i + 1] as usize
        } else {
            0..0
        };
        self.sites_by_callee[range]
            .iter()
            .map(|&s| &self.sites[s as usize])
    }

    /// The number of call sites that call `callee`.
    pub fn call_site_count(&self, callee: Func) -> usize {
        let i = callee.index();
        if i >= self.function_count() {
            return 0;
        }
        (self.callee_offsets[i + 1] - self.callee_offsets[i]) as usize
    }

    /// `call` instructions whose callee is not a function of the module.
    pub fn invalid_call_sites(&self) -> &[(Func, Inst)] {
        &self.invalid
    }

    /// The distinct functions `func` calls, in index order.
    pub fn callees(&self, func: Func) -> impl Iterator<Item = Func> + '_ {
        self.neighbours(&self.callees, func)
    }

    /// The distinct functions that call `func`, in index order.
    pub fn callers(&self, func: Func) -> impl Iterator<Item = Func> + '_ {
        self.neighbours(&self.callers, func)
    }

    fn neighbours<'a>(
        &'a self,
        graph: &'a Graph<Func>,
        func: Func,
    ) -> impl Iterator<Item = Func> + 'a {
        let list = if func.index() < self.function_count() {
            graph.successors(func)
        } else {
            &[]
        };
        list.iter().copied()
    }

    /// Strongly connected components, callees before callers; members in index order.
    pub fn components(&self) -> &[Vec<Func>] {
        &self.components
    }

    /// The index in [`CallGraph::components`] of `func`'s component.
    pub fn component_of(&self, func: Func) -> Option<usize> {
        (func.index() < self.function_count()).then(|| self.component_of[func])
    }

    /// Whether `func` is in a call cycle (including calling itself).
    pub fn is_recursive(&self, func: Func) -> bool {
        func.index() < self.function_count() && self.recursive[func]
    }

    /// Every function, callees before callers (members of one component in index order).
    pub fn bottom_up_order(&self) -> Vec<Func> {
        self.components.iter().flatten().copied().collect()
    }

    /// The functions reachable from the roots through calls (the roots included).
    pub fn reachable_from_roots(&self) -> SecondaryMap<Func, bool> {
        self.reachable_from(&self.roots)
    }

    /// The functions reachable from `starts` through calls (`starts` included).
    pub fn reachable_from(&self, starts: &[Func]) -> SecondaryMap<Func, bool> {
        let mut seen: SecondaryMap<Func, bool> = SecondaryMap::new();
        let mut worklist: Vec<Func> = Vec::new();
        for &f in starts {
            if f.index() < self.function_count() && !seen[f] {
                seen[f] = true;
                worklist.push(f);
            }
        }
        while let Some(f) = worklist.pop() {
            for callee in self.callees(f) {
                if !seen[callee] {
                    seen[callee] = true;
                    worklist.push(callee);
                }
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;

    const MODULE: &str = "
callable @leaf(i32) -> i32 {
block0(v0: i32):
    return v0
}

callable @mid(i32) -> i32 {
block0(v0: i32):
    v1: i32 = call @leaf(v0)
    v2: i32 = call @leaf(v1)
    return v2
}

callable @even(i32) -> i32 {
block0(v0: i32):
    v1: i32 = call @odd(v0)
    return v1
}

callable @odd(i32) -> i32 {
block0(v0: i32):
    v1: i32 = call @even(v0)
    return v1
}

callable @self_rec(i32) -> i32 {
block0(v0: i32):
    v1: i32 = call @self_rec(v0)
    return v1
}

external @ext(i32) -> i32

callable @orphan(i32) -> i32 {
block0(v0: i32):
    v1: i32 = call @ext(v0)
    return v1
}

kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: i32 = call @mid(c0)
    v1: i32 = call @even(v0)
    v2: i32 = call @leaf(v1)
    return
}
";

    fn func(m: &Module, name: &str) -> Func {
        m.function_by_name(name).expect(name)
    }

    #[test]
    fn edges_sites_roots_and_recursion() {
        let text = format!("const c0: i32 = 1\n{MODULE}");
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}"));
        let g = CallGraph::new(&m);
        let [leaf, mid, even, odd, self_rec, ext, orphan, main] = [
            "leaf", "mid", "even", "odd", "self_rec", "ext", "orphan", "main",
        ]
        .map(|n| func(&m, n));
        assert_eq!(g.roots(), &[main]);
        assert_eq!(g.call_sites().len(), 9);
        assert_eq!(g.call_sites_in(mid).len(), 2);
        assert_eq!(g.call_site_count(leaf), 3);
        assert!(g.call_sites_of(leaf).all(|s| s.callee == leaf));
        assert_eq!(g.callees(main).collect::<Vec<_>>(), vec![leaf, mid, even]);
        assert_eq!(g.callers(leaf).collect::<Vec<_>>(), vec![mid, main]);
        assert!(g.is_recursive(even) && g.is_recursive(odd) && g.is_recursive(self_rec));
        assert!(!g.is_recursive(leaf) && !g.is_recursive(main) && !g.is_recursive(ext));
        assert_eq!(g.component_of(even), g.component_of(odd));
        assert!(g.invalid_call_sites().is_empty());

        // Bottom-up: every callee before each of its callers (outside its component).
        let order = g.bottom_up_order();
        assert_eq!(order.len(), 8);
        let position = |f: Func| order.iter().position(|&x| x == f).unwrap();
        for site in g.call_sites() {
            if g.component_of(site.caller) != g.component_of(site.callee) {
                assert!(position(site.callee) < position(site.caller), "{site:?}");
            }
        }

        let reachable = g.reachable_from_roots();
        for f in [main, mid, leaf, even, odd] {
            assert!(reachable[f], "{f}");
        }
        for f in [self_rec, ext, orphan] {
            assert!(!reachable[f], "{f}");
        }
        assert!(g.reachable_from(&[orphan])[ext]);
    }
}
