//! `loop-rotation`: top-tested loops become bottom-tested, guarded once before the loop,
//! on plain control-flow graphs.
//!
//! **Candidates.** Natural loops whose header `H` ends in `cond_br` with one edge into the
//! loop (to `B`) and the other out of it — the loop's only exit edge — where `B` is not
//! `H` and has `H` as its only predecessor, with a single latch `L` (not `H`) ending in
//! an unconditional `br H`, a single edge entering `H` from outside, and no convergent
//! operation or call in `H` (the header is duplicated: a barrier copy would be a
//! different barrier).
//!
//! **Transformation.** Values of the loop used after it first leave through a new exit
//! block (as `loop-unroll` closes exits). `H` is cloned twice: the *guard* `G`, which
//! the entering edge now enters with the same arguments, and the *test* `T`, which the
//! latch now enters with its arguments. `B` becomes the loop header: it gets one new
//! parameter per value of `H` (parameter or result) used in the rest of the loop, passed
//! by `G` and `T` (their copies of it), and those uses read the parameter. `H` is
//! deleted. Every path runs `H`'s instructions exactly as often as before (`G` once on
//! entry, `T` once per back edge), so effects are kept; the loop is now entered at `B`
//! and tested at its bottom (`T`), which makes its body run whenever the loop is entered
//! (`licm` may then hoist guaranteed loads). One run reaches a fixed point: a rotated
//! loop's header no longer exits.
//!
//! Counters: `rotated_loop_count`, `cloned_inst_count`, `structured_cfg_error_count`
//! (functions left alone, unchanged, because they hold structured control flow).
//!
//! ## What it does not do
//!
//! - No loops with several exits, several latches, a conditional latch, or a header that
//!   is its own latch (already bottom-tested); no size limit beyond duplicating the
//!   header once more (headers are small: the test and what it needs).
//! - It does not merge `G` into the preheader or `T` into the latch (`simplify-cfg` does).

use crate::analysis::loops::{Loop, LoopInfo};
use crate::loop_transform::require_plain_cfg;
use crate::loop_transform::{
    clone_blocks, close_exit, delete_blocks, entering_edge, escaping_values, retarget,
};
use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use oxir_ir::effects::is_convergent;
use oxir_ir::instructions::Payload;
use oxir_ir::ops::EffectClass;
use oxir_ir::{Block, Func, Function, Module, Opcode, Value, ValueDef};

pass_info! {
    pass: "loop-rotation",
    /// Counters of `loop-rotation`.
    pub struct LoopRotationInfo {
        /// Top-tested loops turned bottom-tested.
        rotated_loop_count,
        /// Instructions created by copying the headers.
        cloned_inst_count,
        /// Functions left alone because they hold structured control flow.
        structured_cfg_error_count,
    }
    changed_by: [rotated_loop_count]
}

/// Runs `loop-rotation` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> LoopRotationInfo {
    let mut info = LoopRotationInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `loop-rotation` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> LoopRotationInfo {
    let mut info = LoopRotationInfo::default();
    require_plain_cfg!(module, func, info);
    let f = &mut module.functions[func];
    while let Some(plan) = plan_next(f) {
        info.cloned_inst_count += rotate(f, &plan);
        info.rotated_loop_count += 1;
    }
    info
}

struct Plan {
    header: Block,
    body: Block,
    latch: Block,
    preheader: Block,
    blocks: Vec<Block>,
    exit: (Block, Block),
    escaping: Vec<Value>,
}

fn plan_next(f: &Function) -> Option<Plan> {
    let loops = LoopInfo::new(f);
    let plan = loops.loops().find_map(|lp| plan_of(f, &loops, lp));
    plan
}

fn plan_of(f: &Function, loops: &LoopInfo, lp: Loop) -> Option<Plan> {
    let data = loops.data(lp);
    let header = data.header;
    let [latch] = data.latches.as_slice() else {
        return None;
    };
    let [exit] = data.exits.as_slice() else {
        return None;
    };
    if exit.0 != header || *latch == header {
        return None;
    }
    let term = f.terminator(header)?;
    let Payload::CondBranch {
        then_dest,
        else_dest,
    } = &f.dfg.inst(term).payload
    else {
        return None;
    };
    let body = if loops.contains(lp, then_dest.block) {
        then_dest.block
    } else {
        else_dest.block
    };
    let single_pred =
        loops.cfg().preds(body).all(|p| p == header) && loops.cfg().pred_count(body) == 1;
    if body == header || !single_pred {
        return None;
    }
    let latch_term = f.terminator(*latch)?;
    if f.dfg.inst(latch_term).opcode != Opcode::Br {
        return None;
    }
    let blocked = f.layout.block_insts(header).any(|i| {
        let op = f.dfg.inst(i).opcode;
        is_convergent(op) || op.info().effect == EffectClass::Call
    });
    if blocked {
        return None;
    }
    let (preheader, _) = entering_edge(f, loops, lp)?;
    Some(Plan {
        header,
        body,
        latch: *latch,
        preheader,
        blocks: data.blocks.clone(),
        exit: *exit,
        escaping: escaping_values(f, loops, lp),
    })
}

/// Whether `v` is defined in `block` (a parameter or a result).
fn defined_in_block(f: &Function, v: Value, block: Block) -> bool {
    match f.dfg.value_def(v) {
        ValueDef::Result(i) => f.layout.inst_block(i) == Some(block),
        ValueDef::Param(b, _) => b == block,
        ValueDef::Const(_) | ValueDef::Global(_) | ValueDef::Alias(_) | ValueDef::Detached => false,
    }
}

fn rotate(f: &mut Function, plan: &Plan) -> u64 {
    if !plan.escaping.is_empty() {
        let loops = LoopInfo::new(f);
        if let Some(lp) = loops.loop_with_header(plan.header) {
            close_exit(f, &loops, lp, plan.exit.0, plan.exit.1, &plan.escaping);
        }
    }
    // Values of H read by the rest of the loop, each once, in order of first use.
    let rest: Vec<Block> = plan
        .blocks
        .iter()
        .copied()
        .filter(|&b| b != plan.header)
        .collect();
    let mut used: Vec<Value> = Vec::new();
    let mut seen: SecondaryMap<Value, bool> = SecondaryMap::new();
    for &b in &rest {
        for inst in f.layout.block_insts(b) {
            for v in f.dfg.inst(inst).all_values() {
                let v = f.dfg.resolve(v);
                if f.dfg.value_is_valid(v) && defined_in_block(f, v, plan.header) && !seen[v] {
                    seen[v] = true;
                    used.push(v);
                }
            }
        }
    }
    // New parameters of the body for them; the rest of the loop reads those.
    let mut param_of: SecondaryMap<Value, PackedOption<Value>> = SecondaryMap::new();
    for &v in &used {
        let ty = f.dfg.value_type(v);
        param_of[v] = f.dfg.append_block_param(plan.body, ty).into();
    }
    for &b in &rest {
        for inst in f.layout.block_insts(b).collect::<Vec<_>>() {
            let mut data = f.dfg.inst(inst).clone();
            data.map_values(|v| {
                let r = f.dfg.resolve(v);
                param_of.get(r).and_then(|p| p.expand()).unwrap_or(v)
            });
            *f.dfg.inst_mut(inst) = data;
        }
    }
    // The guard and the bottom test: copies of H passing their copies of `used`.
    let mut cloned = 0;
    for (from, at) in [(plan.preheader, plan.body), (plan.latch, plan.body)] {
        let copies = clone_blocks(f, &[plan.header], Some(at));
        let copy = copies.block(plan.header);
        cloned += f.layout.block_insts(copy).count() as u64;
        let extra: Vec<Value> = used.iter().map(|&v| copies.value(f, v)).collect();
        if let Some(term) = f.terminator(copy) {
            for edge in f.dfg.inst_mut(term).payload.edges_mut() {
                if edge.block == plan.body {
                    edge.args.extend(extra.iter().copied());
                }
            }
        }
        retarget(f, from, plan.header, copy);
    }
    delete_blocks(f, &[plan.header]);
    cloned
}
