//! `phi-cleanup`: removes redundant block parameters of plain CFGs, with the matching
//! argument of every edge into the block.
//!
//! Three kinds, in this order:
//! 1. **Trivial** parameters (`removed_trivial_param_count`): every incoming argument is
//!    one value `v` or the parameter itself. Uses of the parameter read `v` instead. Only
//!    blocks reachable from the entry qualify, and every edge counts (also those from
//!    unreachable blocks). In a valid function `v` then dominates the block: some
//!    predecessor not dominated by the block passes `v`, so `v` is defined outside it.
//! 2. **Duplicate** parameters (`removed_duplicate_param_count`): two parameters of one
//!    reachable block that receive the same value on every edge, where an edge passing a
//!    parameter to itself (a loop carrying both unchanged) counts as agreeing. The later
//!    one is replaced by the earlier one. This is not full congruence: an edge passing
//!    the two parameters swapped, or one parameter to both, keeps them apart.
//!
//!    Both run on a worklist of blocks: replacing a parameter changes the arguments of the
//!    edges that passed it, so the blocks those edges enter are examined again.
//! 3. **Dead** parameters (`removed_dead_param_count`): a least fixed point marks as live
//!    every parameter an instruction operand reads (terminator operands such as a
//!    `cond_br` condition or a returned value included), and then, for each live
//!    parameter, the parameters passed to it as edge arguments. The others are removed,
//!    whole dead cycles across blocks included (a loop-carried value nothing reads).
//!
//! Entry-block parameters are the function's parameters and are never removed (they stay
//! live roots). Functions with structured control flow are skipped
//! (`skipped_structured_function_count`; the pass does not refuse): their merge blocks'
//! parameters are fed by `break`s and arms this pass does not model. A block whose
//! incoming edges disagree with its parameter count (an invalid function) is left alone.
//!
//! **What it does not do.** It does not remove dead instructions (`dce` does, and an
//! instruction counts as a reader here even when it is itself dead), does not change the
//! CFG, does not fold `select`s or branches, and does not touch entry parameters or
//! call signatures (`dead-arg-elim` does).
//!
//! ```text
//! block0(v0: i32, v1: bool):              block0(v0: i32, v1: bool):
//!     cond_br v1, block1(v0, v0, v0),         cond_br v1, block1, block1
//!                 block1(v0, v0, c0)   ==> block1:
//! block1(v2: i32, v3: i32, v4: i32):          v5: i32 = add v0, v0
//!     v5: i32 = add v2, v3                    return v5
//!     return v5
//! ```
//! (`v2` is trivial, `v3` then too; `v4` is dead.)
//!
//! Counters: the three `removed_*` counts above and `skipped_structured_function_count`.

use crate::pass_info;
use crate::report::PassInfo;
use crate::util::{
    contains_structured_control_flow, definitions, incoming_edges, remove_block_param, EdgeRef,
};
use cranelift_entity::SecondaryMap;
use oxir_ir::{Block, Func, Function, Module, Value, ValueDef};
use smallvec::SmallVec;

pass_info! {
    pass: "phi-cleanup",
    /// Counters of `phi-cleanup`.
    pub struct PhiCleanupInfo {
        /// Parameters whose incoming arguments were all one value (or themselves).
        removed_trivial_param_count,
        /// Parameters that always received the same value as an earlier one.
        removed_duplicate_param_count,
        /// Parameters nothing live reads.
        removed_dead_param_count,
        /// Functions left alone because they hold structured control flow.
        skipped_structured_function_count,
    }
    changed_by: [
        removed_trivial_param_count,
        removed_duplicate_param_count,
        removed_dead_param_count,
    ]
}

/// Runs `phi-cleanup` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> PhiCleanupInfo {
    let mut info = PhiCleanupInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `phi-cleanup` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> PhiCleanupInfo {
    let mut info = PhiCleanupInfo::default();
    let Some(function) = module.functions.get_mut(func) else {
        return info;
    };
    let Some(entry) = function.entry_block() else {
        return info;
    };
    if !function.is_definition() {
        return info;
    }
    if contains_structured_control_flow(function) {
        info.skipped_structured_function_count = 1;
        return info;
    }
    let mut cleaner = Cleaner::new(function, entry);
    cleaner.merge_redundant(&mut info);
    info.removed_dead_param_count = cleaner.remove_dead();
    if info.changed() {
        function.dfg.resolve_all_aliases();
    }
    info
}

struct Cleaner<'a> {
    function: &'a mut Function,
    /// The edges into each block, from terminators placed in the layout.
    incoming: SecondaryMap<Block, SmallVec<[EdgeRef; 2]>>,
    /// Blocks whose parameters may be cleaned: reachable, not the entry, and every
    /// incoming edge has one argument per parameter.
    eligible: SecondaryMap<Block, bool>,
    /// The blocks entered by edges passing each value (alias-resolved when recorded; stale
    /// entries only cause extra visits).
    passed_to: SecondaryMap<Value, SmallVec<[Block; 2]>>,
}

impl<'a> Cleaner<'a> {
    fn new(function: &'a mut Function, entry: Block) -> Self {
        let incoming = incoming_edges(function);
        let mut passed_to: SecondaryMap<Value, SmallVec<[Block; 2]>> = SecondaryMap::new();
        for block in function.layout.blocks() {
            for &(term, index) in &incoming[block] {
                for &arg in &function.dfg.inst(term).payload.edges()[index].args {
                    passed_to[function.dfg.resolve(arg)].push(block);
                }
            }
        }
        let mut eligible: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut stack = vec![entry];
        let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
        seen[entry] = true;
        while let Some(block) = stack.pop() {
            for succ in function.successors(block) {
                if function.layout.is_block_inserted(succ) && !seen[succ] {
                    seen[succ] = true;
                    stack.push(succ);
                }
            }
        }
        for block in function.layout.blocks() {
            let arity = function.dfg.block_params(block).len();
            eligible[block] = block != entry
                && seen[block]
                && !incoming[block].is_empty()
                && incoming[block].iter().all(|&(term, index)| {
                    function.dfg.inst(term).payload.edges()[index].args.len() == arity
                });
        }
        Cleaner {
            function,
            incoming,
            eligible,
            passed_to,
        }
    }

    /// Argument `k` of edge `edge`, alias-resolved.
    fn arg(&self, (term, index): EdgeRef, k: usize) -> Value {
        let edge = self.function.dfg.inst(term).payload.edges()[index];
        self.function.dfg.resolve(edge.args[k])
    }

    /// Removes parameter `k` of `block` and argument `k` of every edge into it.
    fn remove_param(&mut self, block: Block, k: usize) {
        remove_block_param(self.function, block, k, &self.incoming[block]);
    }

    /// Makes `param` (parameter `k` of `block`) read `by`, removes it, and schedules the
    /// blocks its edges entered.
    fn replace_param(&mut self, block: Block, k: usize, by: Value, worklist: &mut Worklist) {
        let param = self.function.dfg.block_params(block)[k];
        self.function.dfg.replace_all_uses(param, by);
        self.remove_param(block, k);
        let users = std::mem::take(&mut self.passed_to[param]);
        for &user in &users {
            worklist.push(user);
        }
        self.passed_to[by].extend(users);
    }

    /// Trivial and duplicate parameters, on a worklist of blocks.
    fn merge_redundant(&mut self, info: &mut PhiCleanupInfo) {
        let mut worklist = Worklist::default();
        let blocks: Vec<Block> = self.function.layout.blocks().collect();
        for &block in blocks.iter().rev() {
            worklist.push(block);
        }
        while let Some(block) = worklist.pop() {
            if !self.eligible[block] {
                continue;
            }
            while let Some((k, by)) = self.find_trivial(block) {
                self.replace_param(block, k, by, &mut worklist);
                info.removed_trivial_param_count += 1;
            }
            for (k, by) in self.find_duplicates(block).into_iter().rev() {
                self.replace_param(block, k, by, &mut worklist);
                info.removed_duplicate_param_count += 1;
            }
        }
    }

    /// The first trivial parameter of `block` and the value that replaces it.
    fn find_trivial(&self, block: Block) -> Option<(usize, Value)> {
        let params = self.function.dfg.block_params(block);
        params.iter().enumerate().find_map(|(k, &param)| {
            let mut unique: Option<Value> = None;
            for &edge in &self.incoming[block] {
                let arg = self.arg(edge, k);
                if arg == param || unique == Some(arg) {
                    continue;
                }
                if unique.is_some() {
                    return None;
                }
                unique = Some(arg);
            }
            let by = unique?;
            let same_type = self.function.dfg.value_type(by) == self.function.dfg.value_type(param);
            same_type.then_some((k, by))
        })
    }

    /// Duplicate parameters of `block`, ascending by index, each with the earlier
    /// parameter that replaces it.
    fn find_duplicates(&self, block: Block) -> Vec<(usize, Value)> {
        let params = self.function.dfg.block_params(block);
        if params.len() < 2 {
            return Vec::new();
        }
        // Per parameter, what each edge passes; `None` for the parameter itself.
        let signature = |k: usize| -> SmallVec<[Option<Value>; 4]> {
            self.incoming[block]
                .iter()
                .map(|&edge| Some(self.arg(edge, k)).filter(|&a| a != params[k]))
                .collect()
        };
        let signatures: Vec<_> = (0..params.len()).map(signature).collect();
        let mut order: Vec<usize> = (0..params.len()).collect();
        order.sort_by(|&a, &b| signatures[a].cmp(&signatures[b]).then(a.cmp(&b)));
        let mut duplicates = Vec::new();
        let mut group_first = order[0];
        for pair in order.windows(2) {
            let (prev, k) = (pair[0], pair[1]);
            if signatures[prev] != signatures[k] {
                group_first = k;
                continue;
            }
            let dfg = &self.function.dfg;
            if dfg.value_type(params[k]) == dfg.value_type(params[group_first]) {
                duplicates.push((k, params[group_first]));
            }
        }
        duplicates.sort_unstable_by_key(|&(k, _)| k);
        duplicates
    }

    /// Removes the parameters nothing live reads; returns how many.
    fn remove_dead(&mut self) -> u64 {
        let live = self.live_params();
        let (dfg, layout) = (&self.function.dfg, &self.function.layout);
        let mut dead: Vec<(Block, usize)> = Vec::new();
        for block in layout.blocks().filter(|&b| self.eligible[b]) {
            for (k, &p) in dfg.block_params(block).iter().enumerate() {
                if !live[p] {
                    dead.push((block, k));
                }
            }
        }
        for &(block, k) in dead.iter().rev() {
            self.remove_param(block, k);
        }
        dead.len() as u64
    }

    /// The least fixed point: parameters read by an instruction operand, entry parameters
    /// and those of blocks left alone are live; a live parameter makes the parameters
    /// passed to it live.
    fn live_params(&self) -> SecondaryMap<Value, bool> {
        let (dfg, layout) = (&self.function.dfg, &self.function.layout);
        let mut live: SecondaryMap<Value, bool> = SecondaryMap::new();
        let mut stack: Vec<Value> = Vec::new();
        let mark = |v: Value, live: &mut SecondaryMap<Value, bool>, stack: &mut Vec<Value>| {
            if matches!(dfg.value_def(v), ValueDef::Param(..)) && !live[v] {
                live[v] = true;
                stack.push(v);
            }
        };
        for block in layout.blocks() {
            if !self.eligible[block] {
                for &p in dfg.block_params(block) {
                    mark(p, &mut live, &mut stack);
                }
            }
            for inst in layout.block_insts(block) {
                for &v in &dfg.inst(inst).args {
                    mark(dfg.resolve(v), &mut live, &mut stack);
                }
            }
        }
        while let Some(p) = stack.pop() {
            let ValueDef::Param(block, k) = dfg.value_def(p) else {
                continue;
            };
            for &(term, index) in &self.incoming[block] {
                let edge = dfg.inst(term).payload.edges()[index];
                if let Some(&arg) = edge.args.get(k as usize) {
                    mark(dfg.resolve(arg), &mut live, &mut stack);
                }
            }
        }
        live
    }
}

/// Blocks to visit, each at most once at a time.
#[derive(Default)]
struct Worklist {
    stack: Vec<Block>,
    queued: SecondaryMap<Block, bool>,
}

impl Worklist {
    fn push(&mut self, block: Block) {
        if !self.queued[block] {
            self.queued[block] = true;
            self.stack.push(block);
        }
    }

    fn pop(&mut self) -> Option<Block> {
        let block = self.stack.pop()?;
        self.queued[block] = false;
        Some(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    /// A loop swapping two values each iteration: block1's parameters are neither trivial
    /// nor duplicates, so only a reader decides whether the cycle lives.
    const LOOP: &str = "
const c0: i32 = 0
const c1: i32 = 1
callable @f(bool) -> i32 {
block0(v0: bool):
    br block1(c0, c1)
block1(v1: i32, v2: i32):
    READ
    cond_br v0, block2(v2, v1), block3
block2(v3: i32, v4: i32):
    br block1(v3, v4)
block3:
    return c1
}
";

    fn run(read: &str) -> (PhiCleanupInfo, String) {
        let mut m = parse_module(&LOOP.replace("READ", read)).unwrap();
        let f = m.function_by_name("f").unwrap();
        let info = run_on_function(&mut m, f);
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
        (info, print_module(&m, View::Flat))
    }

    #[test]
    fn dead_cycle_across_blocks_goes_whole() {
        let (info, text) = run("v5: bool = not v0");
        // block2 forwards its single predecessor's values (trivial); block1's swapped pair
        // then only feeds itself.
        assert_eq!(info.removed_trivial_param_count, 2, "{text}");
        assert_eq!(info.removed_dead_param_count, 2, "{text}");
        assert!(
            text.contains("block1:") && text.contains("block2:"),
            "{text}"
        );
        assert!(text.contains("br block1\n"), "{text}");
    }

    #[test]
    fn a_read_keeps_the_cycle() {
        let (info, text) = run("v5: i32 = add v1, c1");
        assert_eq!(info.removed_trivial_param_count, 2, "{text}");
        assert_eq!(info.removed_dead_param_count, 0, "{text}");
        assert!(text.contains("br block1(v2, v1)"), "{text}");
    }

    #[test]
    fn structured_functions_are_skipped() {
        let mut m = parse_module(
            "
const c0: i32 = 0
callable @g(bool) -> i32 {
block0(v0: bool):
    if v0, then block1, else block2, merge block3
block1:
    br block3(c0)
block2:
    br block3(c0)
block3(v1: i32):
    return c0
}
",
        )
        .unwrap();
        let g = m.function_by_name("g").unwrap();
        let info = run_on_function(&mut m, g);
        assert_eq!(info.skipped_structured_function_count, 1);
        assert!(!info.changed());
    }
}
