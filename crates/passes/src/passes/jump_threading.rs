//! `jump-threading`: an edge into a block that only decides where to go next, on a
//! condition the edge already knows, goes straight to the decided successor.
//!
//! **What it does.** For an edge `P → B` where `B` ends in `cond_br c, T, F` and the
//! value of `c` on that edge is known, the edge is redirected to the successor `X` that
//! `c` selects (the other one is `Y`), passing what `B`'s edge to `X` passes, with `B`'s
//! parameters replaced by the arguments `P` passed to them. `c` is known on the edge when
//! `P` ends in `cond_br c` with `B` as exactly one of its two targets, or when `P` lies
//! below such an edge along a chain of single-predecessor blocks (each block of the chain
//! entered only from the one before, the first from the `cond_br`).
//!
//! This is what the default bounds checks need: `a[i] += 1` loads under `cond_br ok`,
//! joins, adds, and stores under a second `cond_br ok` on the same condition. Threading
//! the skip edge straight to the end leaves the join with one predecessor, where `cvp`
//! knows `ok` and `simplify-cfg` folds the second branch: one guarded block remains.
//!
//! **When.** Every condition is checked on the unchanged function, so several edges are
//! threaded in one batch, provided no two decisions share any block they rely on (`P`,
//! `B`, `X`, `Y`, the single-predecessor chain and the block whose `cond_br` gives the
//! fact); the others wait for the next batch, planned on the changed function, until a
//! plan finds nothing (so a second run of the pass changes nothing). Why disjoint
//! decisions suffice: a redirected edge only shortcuts `B`, so the only dominator a
//! block can lose is `B`, and a block gains a predecessor only when it is an `X`.
//! - `B` is not the entry and not a loop header (no predecessor of `B` is dominated by
//!   `B`), so the redirected edge never enters a loop anywhere but its header: a
//!   reducible CFG stays reducible, which `restructure-cfg` needs.
//! - Every instruction of `B` but its terminator may be skipped: it writes nothing, is
//!   not volatile, not convergent (a barrier or subgroup operation skipped on one path
//!   changes what the others compute) and carries no semantic metadata.
//! - Nothing `B` defines (parameters and results) is read outside `B` except in blocks
//!   dominated by `Y` where `B` is `Y`'s only predecessor: the path that skips `B` never
//!   reaches a use. The arguments of `B`'s edge to `X` are `B`'s parameters or values
//!   defined outside `B` (which dominate `P`, as they dominate `B`).
//! - `P` ends in `br` or `cond_br`, reaches `B` by one edge, and does not already reach
//!   `X` (no doubled edge is made). `T` and `F` differ.
//! - Functions with structured control flow are skipped
//!   (`skipped_structured_function_count`).
//!
//! **What it does not do.** It never duplicates instructions (a block that computes
//! something a skipping path would need keeps its edges), does not thread `switch_br`,
//! does not use ranges or facts from `select`s, and does not clean up: `B`'s parameters
//! that lost an incoming edge, unreachable blocks and folded branches are left to
//! `phi-cleanup`, `cvp`, `simplify-cfg` and `dce`.
//!
//! ```text
//! block0(v0: bool, v1: ptr<…>):              block0(v0: bool, v1: ptr<…>):
//!     cond_br v0, block1, block2(c0)             cond_br v0, block1, block4
//! block1:                                    block1:
//!     v2: i32 = load v1                          v2: i32 = load v1
//!     br block2(v2)                              br block2(v2)
//! block2(v3: i32):                 ==>       block2(v3: i32):
//!     v4: i32 = add v3, c1                       v4: i32 = add v3, c1
//!     cond_br v0, block3, block4                 cond_br v0, block3, block4
//! block3:                                    block3:
//!     store v1, v4                               store v1, v4
//!     br block4                                  br block4
//! block4:                                    block4:
//!     return                                     return
//! ```

use crate::analysis::dominators::DomTree;
use crate::pass_info;
use crate::util::{contains_structured_control_flow, definitions};
use cranelift_entity::SecondaryMap;
use oxir_ir::effects::{instruction_effects, is_convergent};
use oxir_ir::instructions::{BlockCall, Payload};
use oxir_ir::{Block, Func, Function, Module, Opcode, Value, ValueDef};
use smallvec::SmallVec;

pass_info! {
    pass: "jump-threading",
    /// Counters of `jump-threading`.
    pub struct JumpThreadingInfo {
        /// Edges redirected past a block whose branch they decide.
        threaded_edge_count,
        /// Functions left alone because they hold structured control flow.
        skipped_structured_function_count,
    }
    changed_by: [threaded_edge_count]
}

/// How far up a chain of single-predecessor blocks a known condition is looked for.
const MAX_CHAIN: usize = 32;

/// Runs the pass on every function of `module`.
pub fn run_on_module(module: &mut Module) -> JumpThreadingInfo {
    let mut info = JumpThreadingInfo::default();
    for func in definitions(module) {
        run_on_function(module, func, &mut info);
    }
    info
}

/// One decided redirection: `P`'s edge `edge` (into `B`) becomes `to`.
struct Thread {
    pred: Block,
    edge: usize,
    to: BlockCall,
}

fn run_on_function(module: &mut Module, func: Func, info: &mut JumpThreadingInfo) {
    let Some(f) = module.functions.get(func) else {
        return;
    };
    if contains_structured_control_flow(f) {
        info.skipped_structured_function_count += 1;
        return;
    }
    if !repeats_a_condition(f) {
        return;
    }
    // Plans again after each batch (decisions that shared a block wait for the next
    // plan), so that the pass ends at its own fixed point. Every threaded edge moves
    // past a block that is not a loop header, so this ends; the bound is a safeguard.
    for _ in 0..=f.layout.block_count() {
        let threads = Planner::new(module, &module.functions[func]).plan();
        if threads.is_empty() {
            return;
        }
        let f = &mut module.functions[func];
        for thread in threads {
            let Some(term) = f.terminator(thread.pred) else {
                continue;
            };
            let mut edges = f.dfg.inst_mut(term).payload.edges_mut();
            if let Some(edge) = edges.get_mut(thread.edge) {
                **edge = thread.to;
                info.threaded_edge_count += 1;
            }
        }
    }
}

/// Whether two `cond_br`s branch on one value: a known condition on an edge always comes
/// from another `cond_br` on the same value, so without a repeat there is nothing to do
/// (the common case, decided without building any analysis).
fn repeats_a_condition(f: &Function) -> bool {
    let mut conditions: Vec<Value> = f
        .layout
        .blocks()
        .filter_map(|b| {
            let data = f.dfg.inst(f.terminator(b)?);
            let condition = data
                .args
                .first()
                .filter(|_| data.opcode == Opcode::CondBr)?;
            Some(f.dfg.resolve(*condition))
        })
        .collect();
    conditions.sort_unstable();
    conditions.windows(2).any(|w| w[0] == w[1])
}

struct Planner<'a> {
    module: &'a Module,
    f: &'a Function,
    dom: DomTree,
    /// The blocks whose operands or edge arguments read each value.
    users: SecondaryMap<Value, SmallVec<[Block; 2]>>,
}

impl<'a> Planner<'a> {
    fn new(module: &'a Module, f: &'a Function) -> Self {
        let mut users: SecondaryMap<Value, SmallVec<[Block; 2]>> =
            crate::util::dense_map(f.dfg.values.len());
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                let data = f.dfg.inst(inst);
                let edge_args = data.payload.edges().into_iter().flat_map(|e| e.args.iter());
                for &v in data.args.iter().chain(edge_args) {
                    let v = f.dfg.resolve(v);
                    if users[v].last() != Some(&block) {
                        users[v].push(block);
                    }
                }
            }
        }
        Planner {
            module,
            f,
            dom: DomTree::new(f),
            users,
        }
    }

    fn plan(&self) -> Vec<Thread> {
        let mut touched: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut threads = Vec::new();
        let Some(entry) = self.f.layout.entry_block() else {
            return threads;
        };
        for block in self.f.layout.blocks() {
            if block == entry || !self.dom.is_reachable(block) || touched[block] {
                continue;
            }
            let Some((cond, targets)) = self.branch_of(block) else {
                continue;
            };
            if targets[0].block == targets[1].block
                || self.is_loop_header(block)
                || !self.skippable(block)
            {
                continue;
            }
            let preds: SmallVec<[Block; 4]> = self.dom.cfg().preds(block).collect();
            for pred in preds {
                if let Some((thread, relied)) = self.decide(pred, block, cond, targets) {
                    if relied.iter().any(|&b| touched[b]) {
                        continue;
                    }
                    for b in relied {
                        touched[b] = true;
                    }
                    threads.push(thread);
                }
            }
        }
        threads
    }

    /// `B`'s `cond_br` condition and its two edges.
    fn branch_of(&self, block: Block) -> Option<(Value, [&'a BlockCall; 2])> {
        let data = self.f.dfg.inst(self.f.terminator(block)?);
        let Payload::CondBranch {
            then_dest,
            else_dest,
        } = &data.payload
        else {
            return None;
        };
        let cond = data
            .args
            .first()
            .filter(|_| data.opcode == Opcode::CondBr)?;
        Some((self.f.dfg.resolve(*cond), [then_dest, else_dest]))
    }

    fn is_loop_header(&self, block: Block) -> bool {
        self.dom
            .cfg()
            .preds(block)
            .any(|p| self.dom.dominates(block, p))
    }

    /// Whether every instruction of `block` but its terminator may be left unexecuted.
    fn skippable(&self, block: Block) -> bool {
        self.f.layout.block_insts(block).all(|inst| {
            let data = self.f.dfg.inst(inst);
            if data.opcode.is_terminator() {
                return true;
            }
            let annotated = self
                .f
                .dfg
                .metadata(inst)
                .is_some_and(|md| md.is_annotated());
            !annotated
                && !is_convergent(data.opcode)
                && instruction_effects(self.module, self.f, inst).is_removable_if_unused()
        })
    }

    /// The redirection of `pred`'s edge into `block`, and the blocks it relies on.
    fn decide(
        &self,
        pred: Block,
        block: Block,
        cond: Value,
        targets: [&BlockCall; 2],
    ) -> Option<(Thread, SmallVec<[Block; 8]>)> {
        let (pred_edges, edge) = self.single_edge(pred, block)?;
        let mut relied: SmallVec<[Block; 8]> = SmallVec::new();
        let known = self.known_on_edge(pred, block, cond, &mut relied)?;
        let (to, other) = match known {
            true => (targets[0], targets[1]),
            false => (targets[1], targets[0]),
        };
        if pred_edges.iter().any(|e| e.block == to.block) || to.block == block {
            return None;
        }
        if !self.defs_stay_under(block, other.block, to.block) {
            return None;
        }
        let args = self.substituted_args(block, &pred_edges[edge].args, &to.args)?;
        relied.extend([pred, block, to.block, other.block]);
        let thread = Thread {
            pred,
            edge,
            to: BlockCall {
                block: to.block,
                args: args.into_iter().collect(),
            },
        };
        Some((thread, relied))
    }

    /// `pred`'s edges (it must end in `br` or `cond_br`) and the index of its only edge
    /// into `block`.
    fn single_edge(
        &self,
        pred: Block,
        block: Block,
    ) -> Option<(SmallVec<[&'a BlockCall; 2]>, usize)> {
        let f: &'a Function = self.f;
        let data = f.dfg.inst(f.terminator(pred)?);
        if !matches!(data.opcode, Opcode::Br | Opcode::CondBr) {
            return None;
        }
        let edges = data.payload.edges();
        let mut into = edges.iter().enumerate().filter(|(_, e)| e.block == block);
        let (index, _) = into.next()?;
        match into.next() {
            Some(_) => None,
            None => Some((edges, index)),
        }
    }

    /// The value of `cond` on the edge `pred → block`, from `pred`'s own `cond_br` or one
    /// above a chain of single-predecessor blocks ending at `pred`; the chain's blocks
    /// go into `relied`.
    fn known_on_edge(
        &self,
        pred: Block,
        block: Block,
        cond: Value,
        relied: &mut SmallVec<[Block; 8]>,
    ) -> Option<bool> {
        if let Some(value) = self.decided_by(pred, block, cond) {
            return Some(value);
        }
        let cfg = self.dom.cfg();
        let mut below = pred;
        for _ in 0..MAX_CHAIN {
            let mut preds = cfg.preds(below);
            let (Some(above), None) = (preds.next(), preds.next()) else {
                return None;
            };
            relied.push(below);
            if let Some(value) = self.decided_by(above, below, cond) {
                // Its `cond_br` is what the fact rests on: no other decision may touch it.
                relied.push(above);
                return Some(value);
            }
            if above == below || !self.dom.is_reachable(above) {
                return None;
            }
            below = above;
        }
        None
    }

    /// The value of `cond` when `from`'s `cond_br` on it takes its edge to `to` (`to`
    /// must be exactly one of the two targets).
    fn decided_by(&self, from: Block, to: Block, cond: Value) -> Option<bool> {
        let (c, [then_dest, else_dest]) = self.branch_of(from)?;
        if c != cond || then_dest.block == else_dest.block {
            return None;
        }
        if then_dest.block == to {
            Some(true)
        } else if else_dest.block == to {
            Some(false)
        } else {
            None
        }
    }

    /// Whether every use of a value `block` defines is in `block` or in a block that
    /// `stay` (a successor whose only predecessor is `block`, not `skip_to`) dominates.
    fn defs_stay_under(&self, block: Block, stay: Block, skip_to: Block) -> bool {
        let cfg = self.dom.cfg();
        let stay_is_private = stay != skip_to && {
            let mut preds = cfg.preds(stay);
            preds.next() == Some(block) && preds.next().is_none()
        };
        let params = self.f.dfg.block_params(block).iter().copied();
        let results = self
            .f
            .layout
            .block_insts(block)
            .filter_map(|inst| self.f.dfg.inst_result(inst));
        params.chain(results).all(|v| {
            self.users.get(v).is_none_or(|users| {
                users.iter().all(|&user| {
                    user == block || (stay_is_private && self.dom.dominates(stay, user))
                })
            })
        })
    }

    /// The arguments of the new edge: `to_args` (what `block` passes) with `block`'s
    /// parameters replaced by `pred_args`; `None` when one is a result computed in
    /// `block`.
    fn substituted_args(
        &self,
        block: Block,
        pred_args: &[Value],
        to_args: &[Value],
    ) -> Option<SmallVec<[Value; 4]>> {
        let params = self.f.dfg.block_params(block);
        to_args
            .iter()
            .map(|&a| {
                let a = self.f.dfg.resolve(a);
                if let Some(k) = params.iter().position(|&p| p == a) {
                    return pred_args.get(k).copied();
                }
                match self.f.dfg.value_def(a) {
                    ValueDef::Result(inst) if self.f.layout.inst_block(inst) == Some(block) => None,
                    ValueDef::Result(_)
                    | ValueDef::Param(..)
                    | ValueDef::Const(_)
                    | ValueDef::Global(_)
                    | ValueDef::Alias(_)
                    | ValueDef::Detached => Some(a),
                }
            })
            .collect()
    }
}
