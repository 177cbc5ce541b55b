//! `loop-fusion`: two adjacent loops with the same constant trip count become one loop
//! whose body runs the first body and then the second, on plain control-flow graphs.
//!
//! **Candidates.** Loop `A` (header `HA`) and loop `B` (header `HB`), both with a counted
//! exit test in the header ([`crate::analysis::scev`]) and the same constant trip count,
//! each with a single latch ending in `br` to its header and a body entered only from
//! the header; `A`'s only exit is an edge from `HA` straight into `HB`, or to a block `X`
//! holding nothing but `br HB(args)` and entered only from `HA`; that edge is the only
//! way into `HB` from outside. Then:
//! - *no SSA flow*: `B` uses no value of `A`, and `X`'s arguments are defined outside `A`;
//! - *no dependence*: neither loop holds a call, barrier, convergent op (a derivative, a
//!   subgroup operation), `print`/`assert` or `clock`, and
//!   every store or atomic of either loop is `NoAlias` ([`crate::analysis::alias`]) with
//!   every load, store and atomic of the other (so iteration `i` of `B` may run before
//!   iteration `i + 1` of `A`).
//!
//! **Transformation.** `HA` gets one parameter per parameter of `HB`, entered with `X`'s
//! arguments; `HB`'s instructions move to the end of `HA` (reading the new parameters);
//! `A`'s latch enters `B`'s body with the arguments `HB` passed it, and `B`'s latch enters
//! `HA` with both latches' arguments; `HA`'s exit edge becomes `HB`'s. `X` and `HB` are
//! deleted. `B`'s test is left dead for `dce` (it equals `A`'s).
//!
//! Counters: `fused_loop_count`, `structured_cfg_error_count` (functions left alone,
//! unchanged, because they hold structured control flow). Pairs are fused one at a time
//! (loops recomputed in between), so three loops fuse in one run and a second run changes
//! nothing.
//!
//! ## What it does not do
//!
//! - No fusion of loops with different or dynamic trip counts (no peeling or guards), of
//!   loops separated by other instructions, of nested loops, or of loops with several
//!   exits or latches.
//! - No dependence distance analysis: any may-alias pair of accesses refuses the pair.

use crate::analysis::alias::{alias, AliasResult, PointerPath};
use crate::analysis::loops::{Loop, LoopInfo};
use crate::analysis::scev::ScalarEvolution;
use crate::loop_transform::require_plain_cfg;
use crate::loop_transform::{delete_blocks, entering_edge};
use crate::pass_info;
use crate::util::definitions;
use oxir_ir::instructions::{BlockCall, Payload};
use oxir_ir::ops::EffectClass;
use oxir_ir::{Block, Func, Function, Module, Opcode, Value};

pass_info! {
    pass: "loop-fusion",
    /// Counters of `loop-fusion`.
    pub struct LoopFusionInfo {
        /// Pairs of adjacent loops fused into one.
        fused_loop_count,
        /// Functions left alone because they hold structured control flow.
        structured_cfg_error_count,
    }
    changed_by: [fused_loop_count]
}

/// Runs `loop-fusion` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> LoopFusionInfo {
    let mut info = LoopFusionInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `loop-fusion` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> LoopFusionInfo {
    let mut info = LoopFusionInfo::default();
    require_plain_cfg!(module, func, info);
    while let Some(plan) = plan_next(module, &module.functions[func]) {
        fuse(&mut module.functions[func], &plan);
        info.fused_loop_count += 1;
    }
    info
}

/// One loop's parts.
#[derive(Clone)]
struct Part {
    header: Block,
    latch: Block,
    /// The header's edge into the body, and its exit edge.
    stay: BlockCall,
    exit: BlockCall,
}

struct Plan {
    a: Part,
    b: Part,
    /// The block between the loops, if any.
    x: Option<Block>,
    /// `X`'s arguments to `HB`.
    b_init: Vec<Value>,
    /// The block entering `HA`.
    a_entry: Block,
}

fn part(f: &Function, loops: &LoopInfo, se: &mut ScalarEvolution, lp: Loop) -> Option<(Part, u64)> {
    let data = loops.data(lp);
    let [latch] = data.latches.as_slice() else {
        return None;
    };
    let trips = se.trip_count(lp)?;
    let test = se.exit_test(lp)?;
    if test.exiting != data.header || *latch == data.header {
        return None;
    }
    let latch_term = f.terminator(*latch)?;
    if f.dfg.inst(latch_term).opcode != Opcode::Br {
        return None;
    }
    let Payload::CondBranch {
        then_dest,
        else_dest,
    } = &f.dfg.inst(test.branch).payload
    else {
        return None;
    };
    let (stay, exit) = if test.then_stays {
        (then_dest.clone(), else_dest.clone())
    } else {
        (else_dest.clone(), then_dest.clone())
    };
    let cfg = loops.cfg();
    if stay.block == data.header || cfg.pred_count(stay.block) != 1 {
        return None;
    }
    let has_child = loops.loops().any(|l| loops.data(l).parent == Some(lp));
    if has_child {
        return None;
    }
    Some((
        Part {
            header: data.header,
            latch: *latch,
            stay,
            exit,
        },
        trips,
    ))
}

fn plan_next(module: &Module, f: &Function) -> Option<Plan> {
    let loops = LoopInfo::new(f);
    let mut se = ScalarEvolution::new(module, f, &loops);
    let all: Vec<Loop> = loops.loops().collect();
    for &la in &all {
        let Some((a, ta)) = part(f, &loops, &mut se, la) else {
            continue;
        };
        // A leaves straight into B's header, or through a block holding only `br`.
        let (x, to_b) = match loops.loop_with_header(a.exit.block) {
            Some(_) => (None, a.exit.clone()),
            None => match forwarding_jump(f, &loops, a.exit.block) {
                Some(edge) if a.exit.args.is_empty() => (Some(a.exit.block), edge),
                Some(_) | None => continue,
            },
        };
        let Some(lb) = loops.loop_with_header(to_b.block) else {
            continue;
        };
        let Some((b, tb)) = part(f, &loops, &mut se, lb) else {
            continue;
        };
        let entered_once =
            entering_edge(f, &loops, lb).is_some_and(|(from, _)| from == x.unwrap_or(a.header));
        let (Some((a_entry, _)), true) = (entering_edge(f, &loops, la), entered_once) else {
            continue;
        };
        if ta != tb || !independent(module, f, &loops, la, lb, &to_b.args) {
            continue;
        }
        return Some(Plan {
            a,
            b,
            x,
            b_init: to_b.args.to_vec(),
            a_entry,
        });
    }
    None
}

/// The edge of `x`'s only instruction, a `br`, when `x` is entered from one block.
fn forwarding_jump(f: &Function, loops: &LoopInfo, x: Block) -> Option<BlockCall> {
    if loops.cfg().pred_count(x) != 1 {
        return None;
    }
    let mut insts = f.layout.block_insts(x);
    let (Some(only), None) = (insts.next(), insts.next()) else {
        return None;
    };
    match (&f.dfg.inst(only).payload, f.dfg.inst(only).opcode) {
        (Payload::Jump(edge), Opcode::Br) => Some(edge.clone()),
        // wildcard-ok: anything but a plain `br` is not a forwarding block.
        _ => None,
    }
}

/// No SSA flow from `la` to `lb` (nor into `init`), and no memory dependence.
fn independent(
    module: &Module,
    f: &Function,
    loops: &LoopInfo,
    la: Loop,
    lb: Loop,
    init: &[Value],
) -> bool {
    let in_a = |v: Value| crate::loop_transform::defined_in(f, loops, la, v);
    if init.iter().any(|&v| in_a(v)) {
        return false;
    }
    let mut accesses: [Vec<(bool, PointerPath)>; 2] = [Vec::new(), Vec::new()];
    for (k, lp) in [la, lb].into_iter().enumerate() {
        for &b in &loops.data(lp).blocks {
            for inst in f.layout.block_insts(b) {
                let data = f.dfg.inst(inst);
                if k == 1 && data.all_values().any(in_a) {
                    return false;
                }
                if data.opcode.is_convergent() {
                    return false;
                }
                let write = match data.opcode.info().effect {
                    EffectClass::Pure | EffectClass::Terminator => continue,
                    EffectClass::MemoryRead => false,
                    EffectClass::MemoryWrite | EffectClass::Atomic => true,
                    EffectClass::ResourceRead
                    | EffectClass::ResourceWrite
                    | EffectClass::Barrier
                    | EffectClass::Call
                    | EffectClass::Volatile
                    | EffectClass::TimeRead => return false,
                };
                let Some(&ptr) = data.args.first() else {
                    return false;
                };
                accesses[k].push((write, PointerPath::of(module, f, ptr)));
            }
        }
    }
    let [a, b] = &accesses;
    a.iter().all(|(wa, pa)| {
        b.iter()
            .all(|(wb, pb)| !(*wa || *wb) || alias(pa, pb) == AliasResult::NoAlias)
    })
}

fn fuse(f: &mut Function, plan: &Plan) {
    let (a, b) = (&plan.a, &plan.b);
    // New parameters of HA for HB's, entered with X's arguments.
    let b_params: Vec<Value> = f.dfg.block_params(b.header).to_vec();
    for (&p, &init) in b_params.iter().zip(&plan.b_init) {
        let ty = f.dfg.value_type(p);
        let q = f.dfg.append_block_param(a.header, ty);
        f.dfg.replace_all_uses(p, q);
        push_arg(f, plan.a_entry, a.header, init);
    }
    // HB's instructions move to HA, before its terminator.
    if let Some(term) = f.terminator(a.header) {
        let moved: Vec<_> = f
            .layout
            .block_insts(b.header)
            .filter(|&i| !f.dfg.inst(i).opcode.is_terminator())
            .collect();
        for inst in moved {
            f.layout.remove_inst(inst);
            f.layout.insert_inst_before(inst, term);
        }
    }
    // A's latch enters B's body; B's latch enters HA with both latches' arguments.
    let a_next: Vec<Value> = latch_args(f, a.latch);
    let b_next: Vec<Value> = latch_args(f, b.latch);
    set_jump(f, a.latch, BlockCall::with_args(b.stay.block, &b.stay.args));
    let both: Vec<Value> = a_next.into_iter().chain(b_next).collect();
    set_jump(f, b.latch, BlockCall::with_args(a.header, &both));
    // HA leaves where HB left.
    let between = plan.x.unwrap_or(b.header);
    if let Some(term) = f.terminator(a.header) {
        for edge in f.dfg.inst_mut(term).payload.edges_mut() {
            if edge.block == between {
                *edge = b.exit.clone();
            }
        }
    }
    let dead: Vec<Block> = plan.x.into_iter().chain([b.header]).collect();
    delete_blocks(f, &dead);
}

fn push_arg(f: &mut Function, from: Block, to: Block, arg: Value) {
    if let Some(term) = f.terminator(from) {
        for edge in f.dfg.inst_mut(term).payload.edges_mut() {
            if edge.block == to {
                edge.args.push(arg);
            }
        }
    }
}

fn latch_args(f: &Function, latch: Block) -> Vec<Value> {
    f.terminator(latch)
        .and_then(|t| {
            f.dfg
                .inst(t)
                .payload
                .edges()
                .first()
                .map(|e| e.args.to_vec())
        })
        .unwrap_or_default()
}

fn set_jump(f: &mut Function, b: Block, edge: BlockCall) {
    crate::loop_transform::replace_terminator_with_jump(f, b, edge);
}
