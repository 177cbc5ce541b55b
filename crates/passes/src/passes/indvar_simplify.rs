//! `indvar-simplify`: induction-variable simplification on plain control-flow graphs,
//! from scalar evolution ([`crate::analysis::scev`]).
//!
//! - **Exit values.** For a loop with a constant trip count `k`, a value of the loop used
//!   after it whose expression is the add-recurrence `{a, +, s}` with constant `a` and
//!   `s` is, after the loop, `a + k·s` (wrapping, as the IR computes it: the loop leaves
//!   in its `k`-th iteration, and such a value is computed in that iteration before the
//!   exit). Its uses outside the loop read that constant instead
//!   (`replaced_exit_value_count`), so the loop's result no longer depends on the loop,
//!   which `adce` may then delete when nothing else does.
//! - **Strength reduction.** In a loop with one latch edge and one entering edge, `mul x,
//!   C` (`C` an integer constant) where `x` is an add-recurrence `{a, +, s}` of the loop
//!   with a constant step becomes a new header parameter `y = {a·C, +, s·C}`: the
//!   entering edge passes `a·C` (a constant, or a `mul` placed at the end of the entering
//!   block when `a` is a value defined outside the loop), the latch passes `add y, s·C`
//!   (placed before its terminator), and the `mul` is deleted (`strength_reduced_count`).
//!   Wrapping multiplication distributes over wrapping addition, so every iteration
//!   computes the same bits.
//!
//! Counters: `replaced_exit_value_count`, `strength_reduced_count`,
//! `structured_cfg_error_count` (functions left alone, unchanged, because they hold
//! structured control flow). One run reaches a fixed point: replaced uses are constants,
//! reduced products are gone.
//!
//! ## What it does not do
//!
//! - No exit values for dynamic trip counts (no symbolic `a + (n - a)·s` is emitted), no
//!   replacement of the loop's test by a canonical counter, no widening or narrowing of
//!   induction variables, no strength reduction of shifts or of products of two
//!   recurrences.
//! - Dead induction variables (parameters only their own update reads) are left to
//!   `phi-cleanup` and `adce`.

use crate::analysis::loops::{Loop, LoopInfo};
use crate::analysis::scev::{ScalarEvolution, Scev};
use crate::loop_transform::require_plain_cfg;
use crate::loop_transform::{entering_edge, escaping_values, insert_before};
use crate::pass_info;
use crate::util::definitions;
use oxir_ir::constants::canonical_scalar_bits;
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, Scalar, Value, ValueDef};

pass_info! {
    pass: "indvar-simplify",
    /// Counters of `indvar-simplify`.
    pub struct IndvarSimplifyInfo {
        /// Values of counted loops whose uses after the loop now read their final value.
        replaced_exit_value_count,
        /// Products of an induction variable and a constant replaced by a new one.
        strength_reduced_count,
        /// Functions left alone because they hold structured control flow.
        structured_cfg_error_count,
    }
    changed_by: [replaced_exit_value_count, strength_reduced_count]
}

/// Runs `indvar-simplify` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> IndvarSimplifyInfo {
    let mut info = IndvarSimplifyInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `indvar-simplify` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> IndvarSimplifyInfo {
    let mut info = IndvarSimplifyInfo::default();
    require_plain_cfg!(module, func, info);
    for (blocks, v, scalar, bits) in exit_values(module, &module.functions[func]) {
        let c = module.const_scalar(scalar, bits);
        let ty = module.types.scalar(scalar);
        let f = &mut module.functions[func];
        let k = f.dfg.const_value(c, ty);
        replace_outside(f, &blocks, v, k);
        info.replaced_exit_value_count += 1;
    }
    while let Some(plan) = next_reduction(module, &module.functions[func]) {
        reduce(module, func, &plan);
        info.strength_reduced_count += 1;
    }
    info
}

/// `(loop blocks, value, type, final bits)` for every exit value to replace.
fn exit_values(module: &Module, f: &Function) -> Vec<(Vec<Block>, Value, Scalar, u64)> {
    let loops = LoopInfo::new(f);
    let mut se = ScalarEvolution::new(module, f, &loops);
    let mut out = Vec::new();
    for lp in loops.loops() {
        let Some(trips) = se.trip_count(lp) else {
            continue;
        };
        for v in escaping_values(f, &loops, lp) {
            let Some(scalar) = se.int_scalar(v) else {
                continue;
            };
            let Some((start, step)) = se.get(v).constant_rec(lp) else {
                continue;
            };
            let bits = start.wrapping_add(trips.wrapping_mul(step));
            out.push((
                loops.data(lp).blocks.clone(),
                v,
                scalar,
                canonical_scalar_bits(scalar, bits),
            ));
        }
    }
    out
}

/// Rewrites the uses of `v` in blocks not in `blocks` to read `k`.
fn replace_outside(f: &mut Function, blocks: &[Block], v: Value, k: Value) {
    let outside: Vec<Block> = f.layout.blocks().filter(|b| !blocks.contains(b)).collect();
    for b in outside {
        for inst in f.layout.block_insts(b).collect::<Vec<_>>() {
            let mut data = f.dfg.inst(inst).clone();
            data.map_values(|u| if f.dfg.resolve(u) == v { k } else { u });
            *f.dfg.inst_mut(inst) = data;
        }
    }
}

struct Reduction {
    mul: Inst,
    header: Block,
    latch: Block,
    entering: Block,
    scalar: Scalar,
    /// `a·C` as constant bits, or `(a, C)` to multiply in the entering block.
    start: Result<u64, (Value, u64)>,
    /// `s·C`, bits.
    step: u64,
}

fn next_reduction(module: &Module, f: &Function) -> Option<Reduction> {
    let loops = LoopInfo::new(f);
    let mut se = ScalarEvolution::new(module, f, &loops);
    for lp in loops.loops() {
        let data = loops.data(lp);
        let [latch] = data.latches.as_slice() else {
            continue;
        };
        let Some((entering, _)) = entering_edge(f, &loops, lp) else {
            continue;
        };
        let latch_edges = f.terminator(*latch).map_or(0, |t| {
            f.dfg
                .inst(t)
                .payload
                .edges()
                .iter()
                .filter(|e| e.block == data.header)
                .count()
        });
        if latch_edges != 1 {
            continue;
        }
        for &b in &data.blocks {
            if loops.loop_of(b) != Some(lp) {
                continue; // reduce in the innermost loop only
            }
            for inst in f.layout.block_insts(b) {
                if let Some(r) = reduction_of(f, &mut se, lp, inst) {
                    return Some(Reduction {
                        mul: inst,
                        header: data.header,
                        latch: *latch,
                        entering,
                        scalar: r.0,
                        start: r.1,
                        step: r.2,
                    });
                }
            }
        }
    }
    None
}

type Parts = (Scalar, Result<u64, (Value, u64)>, u64);

/// `(type, start·C, step·C)` when `inst` is `mul x, C` of a recurrence `x` of `lp`.
fn reduction_of(f: &Function, se: &mut ScalarEvolution, lp: Loop, inst: Inst) -> Option<Parts> {
    let data = f.dfg.inst(inst);
    if data.opcode != Opcode::Mul || f.dfg.metadata(inst).is_some_and(|m| m.is_annotated()) {
        return None;
    }
    let r = f.dfg.inst_result(inst)?;
    let scalar = se.int_scalar(r)?;
    let [a, b] = data.args.as_slice() else {
        return None;
    };
    let is_const = |v: Value| matches!(f.dfg.value_def(f.dfg.resolve(v)), ValueDef::Const(_));
    let (x, c) = match (is_const(*a), is_const(*b)) {
        (false, true) => (*a, *b),
        (true, false) => (*b, *a),
        (true, true) | (false, false) => return None,
    };
    let c = se.get(c).as_constant()?;
    let Scev::AddRec { lp: l, start, step } = se.get(x) else {
        return None;
    };
    if l != lp {
        return None;
    }
    let step = canonical_scalar_bits(scalar, step.as_constant()?.wrapping_mul(c));
    let start = match *start {
        Scev::Constant(a) => Ok(canonical_scalar_bits(scalar, a.wrapping_mul(c))),
        Scev::Unknown(v) => Err((v, c)),
        Scev::AddRec { .. } | Scev::Add(..) | Scev::Mul(..) => return None,
    };
    Some((scalar, start, step))
}

fn reduce(module: &mut Module, func: Func, plan: &Reduction) {
    let ty = module.types.scalar(plan.scalar);
    let step_c = module.const_scalar(plan.scalar, plan.step);
    let start_c = match plan.start {
        Ok(bits) => module.const_scalar(plan.scalar, bits),
        Err((_, c)) => module.const_scalar(plan.scalar, c),
    };
    let f = &mut module.functions[func];
    let (step, start_k) = (
        f.dfg.const_value(step_c, ty),
        f.dfg.const_value(start_c, ty),
    );
    let init = match plan.start {
        Ok(_) => start_k,
        Err((a, _)) => match f.terminator(plan.entering) {
            Some(term) => insert_before(f, term, Opcode::Mul, &[a, start_k], ty),
            None => return,
        },
    };
    let y = f.dfg.append_block_param(plan.header, ty);
    let Some(latch_term) = f.terminator(plan.latch) else {
        return;
    };
    let next = insert_before(f, latch_term, Opcode::Add, &[y, step], ty);
    for (block, arg) in [(plan.entering, init), (plan.latch, next)] {
        if let Some(term) = f.terminator(block) {
            for edge in f.dfg.inst_mut(term).payload.edges_mut() {
                if edge.block == plan.header {
                    edge.args.push(arg);
                }
            }
        }
    }
    if let Some(r) = f.dfg.inst_result(plan.mul) {
        f.dfg.replace_all_uses(r, y);
    }
    f.remove_inst(plan.mul);
}
