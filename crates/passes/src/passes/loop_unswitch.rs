//! `loop-unswitch`: a loop with a branch on a loop-invariant condition becomes two
//! copies of the loop, one for each value of the condition, chosen once before the loop,
//! on plain control-flow graphs.
//!
//! **Candidates.** Innermost natural loops with a preheader (the header's unique outside
//! predecessor, whose only successor is the header) and at most [`MAX_LOOP_SIZE`]
//! instructions, holding a `cond_br c` whose condition `c` is defined outside the loop
//! and is not a constant. When a value of the loop is used after it, the loop must have
//! exactly one exit edge, which is first closed (a new block takes those values as
//! parameters, as `loop-unroll` does); with several exits and such a use the loop is
//! left alone.
//!
//! **Transformation.** The loop's blocks are cloned. In the original every `cond_br` on
//! `c` becomes `br` to its then edge, in the copy to its else edge; the preheader's `br`
//! becomes `cond_br c, original, copy` with the same arguments. Each version runs exactly
//! the instructions the loop ran for that value of `c`, in the same order, so effects
//! are kept; the copies' exits reach the same targets.
//!
//! **Convergence.** Every instruction of the loop is duplicated. A loop with a convergent
//! operation or a call is unswitched only when [`crate::analysis::uniformity`] proves `c`
//! uniform (every invocation of the workgroup then runs the same version); otherwise it
//! is left alone (`skipped_convergent_count`).
//!
//! **Budget.** Loops are unswitched one at a time (recomputing the loops after each),
//! while the function has at most [`MAX_FUNCTION_SIZE`] instructions, so one run reaches
//! a fixed point: a second run finds either no candidate or a function over the limit.
//!
//! Counters: `unswitched_loop_count`, `cloned_inst_count`, `skipped_over_budget_count`
//! (loops with an invariant branch over the loop or function budget),
//! `skipped_convergent_count`, `structured_cfg_error_count` (functions left alone,
//! unchanged, because they hold structured control flow).
//!
//! ## What it does not do
//!
//! - No `switch_br` unswitching, no partial unswitching of a condition that is invariant
//!   only in part of the loop, no loops that contain other loops, and no guard for a
//!   dynamic trip count (the copy is made whatever the trip count).
//! - It does not clean up: the folded branches leave single-predecessor chains and dead
//!   blocks for `simplify-cfg` and `dce`.
//!
//! ## Example
//!
//! ```text
//! block0(v0: u32, v1: bool):              block0(v0: u32, v1: bool):
//!     br block1(c0)                           cond_br v1, block1(c0), block5(c0)
//! block1(v2: u32):                        block1(v2: u32):            ; c = true
//!     v3: bool = lt v2, v0                    v3: bool = lt v2, v0
//!     cond_br v3, block2, block4      ==>     cond_br v3, block2, block4
//! block2:                                 block2:
//!     cond_br v1, block3, block3              br block3
//! ...                                     ...   block5..: the copy, with `br` to else
//! ```

use crate::analysis::loops::{Loop, LoopInfo};
use crate::analysis::uniformity::Uniformity;
use crate::loop_transform::require_plain_cfg;
use crate::loop_transform::{
    clone_blocks, close_exit, edge_to, escaping_values, has_call, has_convergent, loop_size,
    replace_terminator_with_jump, Copies,
};
use crate::pass_info;
use crate::util::definitions;
use oxir_ir::instructions::{BlockCall, InstData, Payload};
use oxir_ir::{Block, Func, Function, Module, Opcode, Value, ValueDef};

pass_info! {
    pass: "loop-unswitch",
    /// Counters of `loop-unswitch`.
    pub struct LoopUnswitchInfo {
        /// Loops split into a version per value of an invariant condition.
        unswitched_loop_count,
        /// Instructions created by copying.
        cloned_inst_count,
        /// Loops with an invariant branch left alone over the loop or function budget.
        skipped_over_budget_count,
        /// Loops with an invariant branch left alone because they hold a convergent
        /// operation or a call and the condition is not proved uniform.
        skipped_convergent_count,
        /// Functions left alone because they hold structured control flow.
        structured_cfg_error_count,
    }
    changed_by: [unswitched_loop_count]
}

/// The most instructions a loop may have to be copied.
pub const MAX_LOOP_SIZE: usize = 64;
/// No loop is unswitched in a function with more instructions than this.
pub const MAX_FUNCTION_SIZE: usize = 4096;

/// Runs `loop-unswitch` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> LoopUnswitchInfo {
    let mut info = LoopUnswitchInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `loop-unswitch` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> LoopUnswitchInfo {
    let mut info = LoopUnswitchInfo::default();
    require_plain_cfg!(module, func, info);
    loop {
        let mut skips = LoopUnswitchInfo::default();
        let Some(plan) = plan_next(module, func, &mut skips) else {
            info.skipped_over_budget_count += skips.skipped_over_budget_count;
            info.skipped_convergent_count += skips.skipped_convergent_count;
            return info;
        };
        info.cloned_inst_count += unswitch(&mut module.functions[func], &plan);
        info.unswitched_loop_count += 1;
    }
}

struct Plan {
    blocks: Vec<Block>,
    header: Block,
    preheader: Block,
    cond: Value,
    /// The only exit edge and the loop's values used after it, when there are any.
    close: Option<(Block, Block, Vec<Value>)>,
}

fn plan_next(module: &Module, func: Func, skips: &mut LoopUnswitchInfo) -> Option<Plan> {
    let f = &module.functions[func];
    let loops = LoopInfo::new(f);
    let mut uniformity: Option<Uniformity> = None;
    let mut has_child = vec![false; loops.loop_count()];
    for lp in loops.loops() {
        if let Some(p) = loops.data(lp).parent {
            has_child[cranelift_entity::EntityRef::index(p)] = true;
        }
    }
    let too_big = f.placed_inst_count() > MAX_FUNCTION_SIZE;
    for lp in loops.loops() {
        if has_child[cranelift_entity::EntityRef::index(lp)] {
            continue;
        }
        let data = loops.data(lp);
        let (Some(preheader), Some(cond)) = (data.preheader, invariant_condition(f, &loops, lp))
        else {
            continue;
        };
        if too_big || loop_size(f, &loops, lp) > MAX_LOOP_SIZE {
            skips.skipped_over_budget_count += 1;
            continue;
        }
        if has_convergent(f, &loops, lp) || has_call(f, &loops, lp) {
            let u = uniformity.get_or_insert_with(|| Uniformity::new(module, f));
            if !u.is_uniform(f, cond) {
                skips.skipped_convergent_count += 1;
                continue;
            }
        }
        let escaping = escaping_values(f, &loops, lp);
        let close = match (escaping.is_empty(), data.exits.as_slice()) {
            (true, _) => None,
            (false, [(from, to)]) => Some((*from, *to, escaping)),
            (false, _) => continue,
        };
        return Some(Plan {
            blocks: data.blocks.clone(),
            header: data.header,
            preheader,
            cond,
            close,
        });
    }
    None
}

/// The first non-constant condition defined outside `lp` of a `cond_br` in `lp`.
fn invariant_condition(f: &Function, loops: &LoopInfo, lp: Loop) -> Option<Value> {
    loops.data(lp).blocks.iter().find_map(|&b| {
        let term = f.terminator(b)?;
        let data = f.dfg.inst(term);
        if data.opcode != Opcode::CondBr {
            return None;
        }
        let c = f.dfg.resolve(*data.args.first()?);
        let constant = matches!(f.dfg.value_def(c), ValueDef::Const(_));
        (!constant && loops.defines_outside(f, lp, c)).then_some(c)
    })
}

/// Makes every `cond_br` on `cond` in `blocks` (mapped through `copies`) a `br` to its
/// then (`taken`) or else edge.
fn fold(f: &mut Function, blocks: &[Block], copies: Option<&Copies>, cond: Value, taken: bool) {
    for &b in blocks {
        let b = copies.map_or(b, |c| c.block(b));
        let Some(term) = f.terminator(b) else {
            continue;
        };
        let data = f.dfg.inst(term);
        let on_cond = data.opcode == Opcode::CondBr
            && data.args.first().is_some_and(|&c| f.dfg.resolve(c) == cond);
        if !on_cond {
            continue;
        }
        if let Payload::CondBranch {
            then_dest,
            else_dest,
        } = &data.payload
        {
            let edge = if taken { then_dest } else { else_dest }.clone();
            replace_terminator_with_jump(f, b, edge);
        }
    }
}

fn unswitch(f: &mut Function, plan: &Plan) -> u64 {
    if let Some((from, to, escaping)) = &plan.close {
        let loops = LoopInfo::new(f);
        if let Some(lp) = loops.loop_with_header(plan.header) {
            close_exit(f, &loops, lp, *from, *to, escaping);
        }
    }
    let copies = clone_blocks(f, &plan.blocks, None);
    let cloned = plan
        .blocks
        .iter()
        .map(|&b| f.layout.block_insts(copies.block(b)).count() as u64)
        .sum();
    fold(f, &plan.blocks, None, plan.cond, true);
    fold(f, &plan.blocks, Some(&copies), plan.cond, false);
    let Some(entry) = edge_to(f, plan.preheader, plan.header) else {
        return cloned;
    };
    let copy = BlockCall::with_args(copies.block(plan.header), &entry.args);
    if let Some(term) = f.terminator(plan.preheader) {
        f.remove_inst(term);
    }
    let branch = InstData::with_payload(
        Opcode::CondBr,
        &[plan.cond],
        Payload::CondBranch {
            then_dest: entry,
            else_dest: copy,
        },
    );
    let inst = f.dfg.make_inst(branch);
    f.layout.append_inst(inst, plan.preheader);
    cloned
}
