//! `adce`: aggressive dead code elimination for plain control-flow graphs.
//!
//! `dce` assumes every branch and every edge argument is needed. `adce` assumes nothing is
//! needed until shown otherwise, using the **same marker** as `dce` ([`super::dce`]'s
//! least fixed point over live instructions, with its roots and its rule for stores into
//! local allocations) extended by control dependence ([`Control`]):
//!
//! - **Roots** are `dce`'s roots (stores, atomics, calls, barriers, texture writes,
//!   `print`, `assert`, annotated instructions), the function
//!   exits (`return`, `unreachable`, `discard`) and annotated terminators. `br`, `cond_br`
//!   and `switch_br` are not roots, and a live terminator makes only its own operands live
//!   (a condition, a selector), not its edge arguments.
//! - **Block parameters** have liveness of their own: a parameter is live when a live
//!   instruction reads it; a live parameter makes the argument of every incoming edge live,
//!   makes its own block and every predecessor *useful*, and makes live a predecessor's
//!   terminator that passes it different values on two edges (`cond_br c, b(x), b(y)`).
//!   So a parameter read only by edge arguments feeding dead parameters — a loop counter
//!   nobody reads — is dead, and is removed with the matching argument of every edge
//!   (`removed_block_param_count`; entry parameters are the function's and stay).
//! - **Useful blocks** are the entry, the blocks holding a live instruction and those the
//!   parameter rule names. A useful block makes live the terminator of every block it is
//!   *control-dependent* on: `b` depends on `x` when `b` post-dominates a successor of `x`
//!   but does not strictly post-dominate `x` (the reverse dominance frontier, computed
//!   from [`PostDomTree`] with its artificial exits for infinite loops).
//! - **Loops that might not terminate stay.** The IR does not assume forward progress:
//!   WGSL and SPIR-V do not make a non-terminating invocation undefined (unlike C++ or
//!   LLVM's `mustprogress`), and deleting an endless loop would turn a shader that hangs
//!   (a device loss the user sees) into one that returns. So the terminator at the source
//!   of every retreating edge (a cycle edge in reverse post-order) is a root, unless the
//!   edge is a back edge of a natural loop proven finite: some block of the loop that
//!   dominates every latch ends in a `cond_br` leaving the loop on one edge, which stays
//!   only while `i < n` or `i != n` (also spelled `gt n, i`, and negated as `ge`, `le`,
//!   `eq` staying on the false edge) for an integer parameter `i` of the header and a value
//!   `n` defined outside the loop, and every back edge passes `add i, 1` for `i`. Then `i`
//!   grows by one each iteration until it reaches `n` (at most 2^width iterations; the
//!   strict `<` cannot wrap). Irreducible cycles and every other loop stay whole even when
//!   nothing in them is live (`unproven_loop_count`, diagnostic: natural loops not proven
//!   finite).
//!
//! **Rewrites.** A `cond_br` or `switch_br` that is not live is replaced by `br L`, `L`
//! the nearest strict post-dominator of its block that is useful (`removed_branch_count`).
//! No useful block lies on a path from the branch to `L` (every such block would be
//! control-dependent, directly or through others, on the branch), so the skipped blocks
//! computed nothing anyone reads and, as their cycles are proven finite, they reach `L`.
//! When `L` has live parameters the branch's only successor is `L` and the new `br` takes
//! the arguments of its edge to `L`. Blocks no longer reachable go (`removed_block_count`,
//! their instructions counted there only), so does every dead instruction of the blocks
//! that stay (`removed_inst_count`); a natural loop none of whose back edges remains is
//! counted in `removed_loop_count`. The decision is complete before the first mutation; if
//! a check of it fails (a branch without a useful post-dominator, a useful block the
//! rewrites would cut off), the branches concerned are made live and the fixed point
//! resumes, so the answer is always at least as conservative as needed.
//!
//! **Texture reads and handle loads** need no rule of their own: explicit-LOD samples
//! (`texture_sample_level`, `_grad`, `_compare`), `texture_load`, the texture queries and
//! `load`s through `handle` pointers are `ResourceRead` / `MemoryRead` / pure in the op
//! table, removable when unused, so `dce` already removes them unused and `adce` inherits
//! that; so are unused implicit-LOD samples (`texture_sample`, `texture_sample_bias`) and
//! derivatives (convergent, but removing an unused one changes no invocation's result),
//! while barriers stay live by their effects.
//!
//! ## What it does not do
//!
//! - Structured functions are skipped, unchanged (`skipped_structured_function_count`):
//!   their branches belong to constructs with merges this pass does not rebuild.
//! - It does not thread, merge or delete the now-empty blocks a rewrite leaves (a dead
//!   loop's header becomes `br exit`; `simplify-cfg` removes it), fold branches on
//!   constants, or prove loops finite beyond the one counted shape above (no other step,
//!   no trip-count arithmetic).
//! - It keeps every instruction `dce` keeps (dead stores into memory that is also read,
//!   calls without side effects, barriers).
//!
//! ## Example
//!
//! ```text
//! block0(v0: u32):                         block0(v0: u32):
//!     br block1(c0)                            br block1
//! block1(v1: u32):                         block1:
//!     v2: bool = lt v1, v0           ==>       br block3
//!     cond_br v2, block2, block3           block3:
//! block2:                                      return v0
//!     v3: u32 = add v1, c1
//!     br block1(v3)
//! block3:
//!     return v0
//! ```
//! (The loop is proven finite and nothing in it is live: its counter `v1`, the compare and
//! the exit branch go, and the body is unreachable.)

use crate::analysis::loops::{Loop, LoopInfo};
use crate::analysis::post_dominators::{PostDomOptions, PostDomTree};
use crate::const_values::{const_of, lanes};
use crate::pass_info;
use crate::passes::dce::Marker;
use crate::util::{
    contains_structured_control_flow, definitions, incoming_edges, remove_block_param, EdgeRef,
};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use oxir_ir::instructions::{BlockCall, InstData, Payload};
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, TerminatorOp, Value, ValueDef};
use smallvec::{smallvec, SmallVec};

pass_info! {
    pass: "adce",
    /// Counters of `adce`.
    pub struct AdceInfo {
        /// Dead instructions removed from blocks that stay.
        removed_inst_count,
        /// Blocks removed (unreachable before or after the rewrites), with their
        /// instructions.
        removed_block_count,
        /// Dead block parameters removed with their edge arguments.
        removed_block_param_count,
        /// Dead `cond_br` / `switch_br` replaced by a `br`.
        removed_branch_count,
        /// Natural loops none of whose back edges remains.
        removed_loop_count,
        /// Diagnostic: natural loops not proven finite (kept whole when dead).
        unproven_loop_count,
        /// Functions left alone because they hold structured control flow.
        skipped_structured_function_count,
    }
    changed_by: [
        removed_inst_count,
        removed_block_count,
        removed_block_param_count,
        removed_branch_count,
    ]
}

/// Runs `adce` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> AdceInfo {
    let mut info = AdceInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `adce` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> AdceInfo {
    let mut info = AdceInfo::default();
    let Some(function) = module.functions.get(func) else {
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
    let loops = LoopInfo::new(function);
    let pdt = PostDomTree::new(function, PostDomOptions::default());
    let mut finite: SecondaryMap<Loop, bool> = SecondaryMap::new();
    for lp in loops.loops() {
        finite[lp] = is_provably_finite(module, function, &loops, lp);
    }
    info.unproven_loop_count = loops.loops().filter(|&lp| !finite[lp]).count() as u64;
    let mut marker = Marker::new(module, function);
    marker.control = Some(Control::new(function, &loops, &pdt, &finite));
    marker.run(entry);
    let plan = loop {
        match Plan::decide(function, &marker, &pdt, entry) {
            Ok(plan) => break plan,
            // Cannot happen (the marker has its extension); leave the function alone.
            Err(terms) if terms.is_empty() => return info,
            Err(terms) => {
                for term in terms {
                    marker.mark(term);
                }
                marker.settle();
            }
        }
    };
    plan.count(function, &loops, &mut info);
    drop(marker);
    plan.apply(&mut module.functions[func]);
    info
}

/// Work the marker asks of [`Control`] and gets back from it.
pub(crate) enum Need {
    /// This instruction is live.
    Inst(Inst),
    /// A live instruction reads this value.
    Value(Value),
}

/// `adce`'s extension of the `dce` marker: control dependence and block-parameter
/// liveness (module doc).
pub(crate) struct Control {
    /// The edges into each block from blocks reachable from the entry (edges from
    /// unreachable blocks feed nothing: those blocks go).
    incoming: SecondaryMap<Block, SmallVec<[EdgeRef; 2]>>,
    /// The blocks each block is control-dependent on.
    deps: SecondaryMap<Block, SmallVec<[Block; 2]>>,
    useful: SecondaryMap<Block, bool>,
    useful_stack: Vec<Block>,
    live_param: SecondaryMap<Value, bool>,
    param_stack: Vec<Value>,
    /// Roots found before marking: the terminators closing loops not proven finite.
    pending: Vec<Need>,
}

impl Control {
    fn new(
        func: &Function,
        loops: &LoopInfo,
        pdt: &PostDomTree,
        finite: &SecondaryMap<Loop, bool>,
    ) -> Control {
        let cfg = loops.cfg();
        let mut deps: SecondaryMap<Block, SmallVec<[Block; 2]>> = SecondaryMap::new();
        let mut pending = Vec::new();
        for x in cfg.reverse_post_order() {
            let ipdom = pdt.ipdom(x);
            for s in cfg.succs(x) {
                let mut runner = Some(s);
                while let Some(r) = runner.filter(|&r| Some(r) != ipdom) {
                    if deps[r].last() == Some(&x) {
                        break;
                    }
                    deps[r].push(x);
                    runner = pdt.ipdom(r);
                }
                if closes_unproven_cycle(loops, finite, x, s) {
                    pending.extend(func.terminator(x).map(Need::Inst));
                }
            }
        }
        let mut incoming = incoming_edges(func);
        for edges in incoming.values_mut() {
            edges.retain(|(term, _)| {
                func.layout
                    .inst_block(*term)
                    .is_some_and(|b| cfg.is_reachable(b))
            });
        }
        let mut control = Control {
            incoming,
            deps,
            useful: SecondaryMap::new(),
            useful_stack: Vec::new(),
            live_param: SecondaryMap::new(),
            param_stack: Vec::new(),
            pending,
        };
        if let Some(entry) = func.entry_block() {
            control.make_useful(entry);
        }
        control
    }

    /// Whether a terminator is a root by itself: the function exits.
    pub(crate) fn is_root_terminator(op: TerminatorOp) -> bool {
        match op {
            TerminatorOp::Return | TerminatorOp::Unreachable | TerminatorOp::Discard => true,
            TerminatorOp::Br | TerminatorOp::CondBr | TerminatorOp::SwitchBr => false,
            // Never seen (structured functions are skipped); roots to be safe.
            TerminatorOp::If
            | TerminatorOp::Loop
            | TerminatorOp::SimpleLoop
            | TerminatorOp::Switch
            | TerminatorOp::Break
            | TerminatorOp::Continue => true,
        }
    }

    pub(crate) fn make_useful(&mut self, block: Block) {
        if !self.useful[block] {
            self.useful[block] = true;
            self.useful_stack.push(block);
        }
    }

    pub(crate) fn mark_param(&mut self, param: Value) {
        if !self.live_param[param] {
            self.live_param[param] = true;
            self.param_stack.push(param);
        }
    }

    /// One unit of work, with what it makes live; `None` when there is none left.
    pub(crate) fn step(&mut self, func: &Function) -> Option<SmallVec<[Need; 4]>> {
        if let Some(need) = self.pending.pop() {
            return Some(smallvec![need]);
        }
        if let Some(block) = self.useful_stack.pop() {
            let terms = self.deps[block].iter().filter_map(|&x| func.terminator(x));
            return Some(terms.map(Need::Inst).collect());
        }
        let param = self.param_stack.pop()?;
        Some(self.param_needs(func, param))
    }

    /// A newly live parameter: its incoming arguments, its block and predecessors
    /// (useful), and terminators passing it two different values.
    fn param_needs(&mut self, func: &Function, param: Value) -> SmallVec<[Need; 4]> {
        let mut needs = SmallVec::new();
        let ValueDef::Param(block, k) = func.dfg.value_def(param) else {
            return needs;
        };
        self.make_useful(block);
        let k = k as usize;
        let mut previous: Option<(Inst, Value)> = None;
        for &(term, index) in &self.incoming[block].clone() {
            let Some(&arg) = func.dfg.inst(term).payload.edges()[index].args.get(k) else {
                continue;
            };
            needs.push(Need::Value(arg));
            if let Some(pred) = func.layout.inst_block(term) {
                self.make_useful(pred);
            }
            if previous.is_some_and(|(t, a)| t == term && a != arg) {
                needs.push(Need::Inst(term));
            }
            previous = Some((term, arg));
        }
        needs
    }
}

/// Whether the edge `from → to` closes a cycle (it is retreating in reverse post-order)
/// other than through a back edge of a loop proven finite.
fn closes_unproven_cycle(
    loops: &LoopInfo,
    finite: &SecondaryMap<Loop, bool>,
    from: Block,
    to: Block,
) -> bool {
    let cfg = loops.cfg();
    let position = |b: Block| cfg.number(b).and_then(|n| cfg.rpo_position(n));
    let (Some(f), Some(t)) = (position(from), position(to)) else {
        return false;
    };
    if t > f {
        return false;
    }
    let proven = loops
        .loop_with_header(to)
        .is_some_and(|lp| finite[lp] && loops.dom_tree().dominates(to, from));
    !proven
}

/// Whether loop `lp` is proven finite by the counted shape of the module doc.
fn is_provably_finite(module: &Module, func: &Function, loops: &LoopInfo, lp: Loop) -> bool {
    let data = loops.data(lp);
    let dom = loops.dom_tree();
    data.exits.iter().any(|&(exiting, _)| {
        data.latches.iter().all(|&l| dom.dominates(exiting, l))
            && counted_exit(module, func, loops, lp, exiting)
    })
}

/// Whether `exiting`'s terminator stays in `lp` only while a header parameter stepped by
/// one on every back edge is below (or differs from) a value defined outside the loop.
fn counted_exit(
    module: &Module,
    func: &Function,
    loops: &LoopInfo,
    lp: Loop,
    exiting: Block,
) -> bool {
    let Some(term) = func.terminator(exiting) else {
        return false;
    };
    let term_data = func.dfg.inst(term);
    let (
        Payload::CondBranch {
            then_dest,
            else_dest,
        },
        Some(&cond),
    ) = (&term_data.payload, term_data.args.first())
    else {
        return false;
    };
    let stays_on_true = match (
        loops.contains(lp, then_dest.block),
        loops.contains(lp, else_dest.block),
    ) {
        (true, false) => true,
        (false, true) => false,
        (true, true) | (false, false) => return false,
    };
    let ValueDef::Result(cmp) = func.dfg.value_def(func.dfg.resolve(cond)) else {
        return false;
    };
    let cmp_data = func.dfg.inst(cmp);
    let [a, b] = cmp_data.args.as_slice() else {
        return false;
    };
    let (a, b) = (*a, *b);
    // (counter, bound) pairs for which "stays" means `counter < bound` or `!=`.
    let candidates: SmallVec<[(Value, Value); 2]> = match (cmp_data.opcode, stays_on_true) {
        (Opcode::Lt, true) | (Opcode::Ge, false) => smallvec![(a, b)],
        (Opcode::Gt, true) | (Opcode::Le, false) => smallvec![(b, a)],
        (Opcode::Ne, true) | (Opcode::Eq, false) => smallvec![(a, b), (b, a)],
        // wildcard-ok: any other condition is not the counted shape.
        _ => SmallVec::new(),
    };
    candidates.into_iter().any(|(counter, bound)| {
        loops.defines_outside(func, lp, bound) && steps_by_one(module, func, loops, lp, counter)
    })
}

/// Whether `counter` is an integer parameter of `lp`'s header that every back edge
/// replaces by `add counter, 1`.
fn steps_by_one(
    module: &Module,
    func: &Function,
    loops: &LoopInfo,
    lp: Loop,
    counter: Value,
) -> bool {
    let header = loops.data(lp).header;
    let counter = func.dfg.resolve(counter);
    let ValueDef::Param(block, k) = func.dfg.value_def(counter) else {
        return false;
    };
    let is_one = |v: Value| {
        const_of(func, func.dfg.resolve(v))
            .and_then(|c| lanes(module, c))
            .is_some_and(|(s, bits)| s.is_integer() && bits.as_slice() == [1])
    };
    let is_step = |v: Value| match func.dfg.value_def(func.dfg.resolve(v)) {
        ValueDef::Result(add) => {
            let d = func.dfg.inst(add);
            d.opcode == Opcode::Add
                && match d.args.as_slice() {
                    [x, y] => {
                        (func.dfg.resolve(*x) == counter && is_one(*y))
                            || (func.dfg.resolve(*y) == counter && is_one(*x))
                    }
                    _ => false,
                }
        }
        ValueDef::Param(..)
        | ValueDef::Const(_)
        | ValueDef::Global(_)
        | ValueDef::Alias(_)
        | ValueDef::Detached => false,
    };
    block == header
        && loops.data(lp).latches.iter().all(|&latch| {
            func.terminator(latch).is_some_and(|t| {
                func.dfg
                    .inst(t)
                    .payload
                    .edges()
                    .iter()
                    .filter(|e| e.block == header)
                    .all(|e| e.args.get(k as usize).is_some_and(|&v| is_step(v)))
            })
        })
}

/// The whole decision, before any mutation.
struct Plan {
    /// Dead parameters of blocks that stay, descending by index within each block.
    dead_params: Vec<(Block, usize)>,
    /// Dead branches: terminator, new target, and the edge whose arguments the new `br`
    /// takes (`None`: the target keeps no parameter).
    rewrites: Vec<(Inst, Block, Option<usize>)>,
    dead_insts: Vec<Inst>,
    dead_blocks: Vec<Block>,
    /// Blocks reachable after the rewrites, and each one's successors then.
    reachable_after: SecondaryMap<Block, bool>,
    rewritten_to: SecondaryMap<Block, PackedOption<Block>>,
}

impl Plan {
    /// The plan for the marker's current fixed point, or the dead branches to make live
    /// when one of its checks fails.
    fn decide(
        func: &Function,
        marker: &Marker,
        pdt: &PostDomTree,
        entry: Block,
    ) -> Result<Plan, Vec<Inst>> {
        let Some(control) = marker.control.as_ref() else {
            return Err(Vec::new());
        };
        let useful = &control.useful;
        // The nearest useful strict post-dominator of each block.
        let mut nearest: SecondaryMap<Block, PackedOption<Block>> = SecondaryMap::new();
        for b in pdt.preorder() {
            nearest[b] = match pdt.ipdom(b) {
                Some(p) if useful[p] => p.into(),
                Some(p) => nearest[p],
                None => None.into(),
            };
        }
        let mut rewrites = Vec::new();
        let mut rewritten_to: SecondaryMap<Block, PackedOption<Block>> = SecondaryMap::new();
        let mut refused = Vec::new();
        for block in func.layout.blocks().filter(|&b| marker.kept[b]) {
            let Some(term) = func.terminator(block) else {
                continue;
            };
            let data = func.dfg.inst(term);
            let branch = matches!(data.opcode, Opcode::CondBr | Opcode::SwitchBr);
            if !branch || marker.live[term] {
                continue;
            }
            let Some(target) = nearest[block].expand() else {
                refused.push(term);
                continue;
            };
            let keeps_params = func
                .dfg
                .block_params(target)
                .iter()
                .any(|&p| control.live_param[p]);
            let edge = data.payload.edges().iter().position(|e| e.block == target);
            if keeps_params && edge.is_none() {
                refused.push(term);
                continue;
            }
            rewrites.push((term, target, edge.filter(|_| keeps_params)));
            rewritten_to[block] = target.into();
        }
        let reachable_after = reach(func, entry, &rewritten_to);
        if !refused.is_empty() {
            return Err(refused);
        }
        let cut_off = func
            .layout
            .blocks()
            .any(|b| useful[b] && marker.kept[b] && !reachable_after[b]);
        if cut_off {
            return Err(rewrites.iter().map(|&(t, _, _)| t).collect());
        }
        let mut plan = Plan {
            dead_params: Vec::new(),
            rewrites,
            dead_insts: Vec::new(),
            dead_blocks: Vec::new(),
            reachable_after,
            rewritten_to,
        };
        plan.collect_dead(func, marker, entry);
        Ok(plan)
    }

    fn collect_dead(&mut self, func: &Function, marker: &Marker, entry: Block) {
        let live_param = marker.control.as_ref().map(|c| &c.live_param);
        for block in func.layout.blocks() {
            if !self.reachable_after[block] {
                self.dead_blocks.push(block);
                continue;
            }
            if block != entry {
                let params = func.dfg.block_params(block);
                for k in (0..params.len()).rev() {
                    if !live_param.is_some_and(|l| l[params[k]]) {
                        self.dead_params.push((block, k));
                    }
                }
            }
            for inst in func.layout.block_insts(block) {
                if !marker.live[inst] && !func.dfg.inst(inst).opcode.is_terminator() {
                    self.dead_insts.push(inst);
                }
            }
        }
    }

    fn count(&self, func: &Function, loops: &LoopInfo, info: &mut AdceInfo) {
        info.removed_inst_count = self.dead_insts.len() as u64;
        info.removed_block_count = self.dead_blocks.len() as u64;
        info.removed_block_param_count = self.dead_params.len() as u64;
        info.removed_branch_count = self.rewrites.len() as u64;
        let back_edge_remains = |latch: Block, header: Block| {
            self.reachable_after[latch]
                && match self.rewritten_to[latch].expand() {
                    Some(target) => target == header,
                    None => func.successors(latch).any(|s| s == header),
                }
        };
        info.removed_loop_count = loops
            .loops()
            .filter(|&lp| {
                let data = loops.data(lp);
                !data
                    .latches
                    .iter()
                    .any(|&l| back_edge_remains(l, data.header))
            })
            .count() as u64;
    }

    fn apply(&self, func: &mut Function) {
        let incoming = incoming_edges(func);
        for &(block, k) in &self.dead_params {
            remove_block_param(func, block, k, &incoming[block]);
        }
        for &(term, target, edge) in &self.rewrites {
            let data = func.dfg.inst(term);
            let args = edge
                .and_then(|i| data.payload.edges().get(i).map(|e| e.args.clone()))
                .unwrap_or_default();
            *func.dfg.inst_mut(term) = InstData::with_payload(
                Opcode::Br,
                &[],
                Payload::Jump(BlockCall {
                    block: target,
                    args,
                }),
            );
        }
        for &inst in &self.dead_insts {
            func.remove_inst(inst);
        }
        for &block in &self.dead_blocks {
            let insts: Vec<Inst> = func.layout.block_insts(block).collect();
            for inst in insts {
                func.remove_inst(inst);
            }
            func.layout.remove_block(block);
        }
    }
}

/// The blocks reachable from `entry` when each block with a rewrite target jumps there
/// instead of following its terminator.
fn reach(
    func: &Function,
    entry: Block,
    rewritten_to: &SecondaryMap<Block, PackedOption<Block>>,
) -> SecondaryMap<Block, bool> {
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut stack = vec![entry];
    seen[entry] = true;
    while let Some(block) = stack.pop() {
        let succs: SmallVec<[Block; 2]> = match rewritten_to[block].expand() {
            Some(target) => smallvec![target],
            None => func.successors(block).collect(),
        };
        for s in succs {
            if func.layout.is_block_inserted(s) && !seen[s] {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PassInfo;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    fn run(text: &str) -> (AdceInfo, String) {
        let mut module = parse_module(text).expect("test input parses");
        assert!(verify_module(&module, &VerifierOptions::default()).succeeded());
        let before = print_module(&module, View::Flat);
        let info = run_on_module(&mut module);
        let after = print_module(&module, View::Flat);
        let report = verify_module(&module, &VerifierOptions::default());
        assert!(report.succeeded(), "{report}\n{after}");
        assert_eq!(info.changed(), before != after, "{info:?}\n{after}");
        let again = run_on_module(&mut module);
        assert!(!again.changed(), "second run: {again:?}");
        (info, after)
    }

    #[test]
    fn two_edges_into_one_block_with_different_arguments_keep_the_branch() {
        let (info, text) = run("
const c0: i32 = 0
const c1: i32 = 1
callable @f(bool) -> i32 {
block0(v0: bool):
    cond_br v0, block1(c0), block1(c1)
block1(v1: i32):
    return v1
}
");
        assert!(!info.changed(), "{text}");
    }

    #[test]
    fn irreducible_and_endless_cycles_stay() {
        // block1 <-> block2 is entered at both blocks; block4 loops forever. Nothing in
        // either is live, yet neither may disappear.
        let (info, text) = run("
callable @f(bool) {
block0(v0: bool):
    cond_br v0, block1, block2
block1:
    cond_br v0, block2, block3
block2:
    cond_br v0, block1, block3
block3:
    cond_br v0, block4, block5
block4:
    br block4
block5:
    return
}
");
        assert!(!info.changed(), "{info:?}\n{text}");
        assert_eq!(info.unproven_loop_count, 1, "{text}");
    }

    #[test]
    fn counter_read_after_the_loop_keeps_it() {
        let (info, text) = run("
const c0: u32 = 0
const c1: u32 = 1
callable @f(u32) -> u32 {
block0(v0: u32):
    br block1(c0)
block1(v1: u32):
    v2: bool = ne v1, v0
    cond_br v2, block2, block3
block2:
    v3: u32 = add c1, v1
    br block1(v3)
block3:
    return v1
}
");
        assert!(!info.changed(), "{text}");
        assert_eq!(info.unproven_loop_count, 0);
    }

    #[test]
    fn long_chain_of_dead_diamonds_is_linear() {
        // 5,000 diamonds in a row, none live: one run rewrites every branch to jump to the
        // only useful post-dominator, the `return` block, so every block but the entry,
        // the first head and the return goes.
        let n = 5_000;
        let mut text = String::from("callable @f(bool) {\nblock0(v0: bool):\n    br block1\n");
        for i in 0..n {
            let (h, a, b, j) = (3 * i + 1, 3 * i + 2, 3 * i + 3, 3 * i + 4);
            text.push_str(&format!(
                "block{h}:\n    cond_br v0, block{a}, block{b}\nblock{a}:\n    br block{j}\nblock{b}:\n    br block{j}\n"
            ));
        }
        text.push_str(&format!("block{}:\n    return\n}}\n", 3 * n + 1));
        let start = std::time::Instant::now();
        let (info, _) = run(&text);
        assert_eq!(info.removed_branch_count, n as u64);
        assert_eq!(info.removed_block_count, 3 * n as u64 - 1);
        assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    }
}
