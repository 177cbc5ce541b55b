//! `loop-unroll`: full unrolling of loops with a constant trip count, partial unrolling by
//! a factor with a straight-line remainder, on plain control-flow graphs.
//!
//! **Candidates.** Innermost natural loops ([`crate::analysis::loops`]) with a single
//! latch, a single edge entering the header from outside, and a counted exit test in the
//! header ([`crate::analysis::scev`]: the loop's only exit is the header's `cond_br` on
//! `cmp x, b` with `x` an add-recurrence and `b` loop-invariant). After a loop is
//! unrolled the loops are recomputed and the next innermost candidate is tried, so an
//! outer loop whose inner loops were unrolled away is unrolled in the same run, and one
//! run reaches a fixed point.
//!
//! **Full unroll** ([`FULL_UNROLL_BUDGET`], or [`UnrollLimits::full_budget`]). When the trip count `k` is constant and
//! `k × size` (instructions of the loop) is at most the budget: `k` copies of the loop's
//! blocks are chained — each copy's header jumps straight into the body (its test is
//! known to stay) and each copy's latch enters the next copy's header — and the original
//! header runs last, jumping straight to the exit. The original body blocks are deleted.
//! Values used after the loop are the original header's, so nothing outside changes.
//!
//! **Partial unroll** ([`PARTIAL_FACTOR`], [`PARTIAL_UNROLL_BUDGET`]; off when
//! [`UnrollLimits::partial`] is false). When the trip count
//! is not constant and the test stays while `x < n` with a positive constant step `s`
//! (or `x > n` with a negative one), signed or unsigned: the exit is first closed (a new
//! block takes every value used after the loop as a parameter). With `D = (f - 1)·|s|`,
//! the preheader computes `n' = n - D` and `g = n >= MIN + D` (`n + D`, `n <= MAX - D`
//! for `>`; `D` and the threshold computed with checked arithmetic, else refused). The
//! *main loop* is `f` chained copies whose first header tests `g and x < n'` — then the
//! next `f` tests would all stay, without wrapping — and whose later headers jump
//! straight into their bodies. It exits into the *remainder*: `f - 1` copies that keep
//! their tests and a last header copy that jumps to the exit (at most `f - 1` iterations
//! remain). The remainder is straight-line, so a second run finds nothing to unroll;
//! the factor is 4, or 2 when 4 is over the budget.
//!
//! **Convergence.** Unrolling duplicates every instruction of the loop. A loop with a
//! convergent operation (barrier, derivative, implicit-LOD sample,
//! `workgroup_uniform_load`) or a call is unrolled only when every invocation of the
//! workgroup runs the same trip count: always for a constant trip count (every copy is
//! then run by exactly the invocations that ran that iteration); for a partial unroll
//! only when [`crate::analysis::uniformity`] proves the bound and the recurrence's start
//! uniform — otherwise it is left alone (`skipped_convergent_count`).
//!
//! Counters: `fully_unrolled_loop_count`, `partially_unrolled_loop_count`,
//! `cloned_inst_count`, `skipped_over_budget_count`, `skipped_convergent_count`,
//! `structured_cfg_error_count` (functions left alone, unchanged, because they hold
//! structured control flow).
//!
//! ## What it does not do
//!
//! - No loops with several latches, several exits (`break`), a test outside the header
//!   (rotated loops), or a test other than one comparison; no runtime unrolling of `!=`
//!   or `<=` tests; no unrolling of loops that contain other loops.
//! - It does not read unroll hints (the IR has no loop metadata yet), and it does not
//!   clean up: the copies' dead tests, single-predecessor chains and trivial block
//!   parameters are left for `dce`, `simplify-cfg` and `phi-cleanup`, and constant
//!   induction values for `sccp` / `const-fold`.
//!
//! ## Example
//!
//! ```text
//! block0:                                  block0:
//!     br block1(c0)                            br block4(c0)
//! block1(v1: u32):                         block4(v4: u32):
//!     v2: bool = lt v1, c2   (c2 = 2)          v5: bool = lt v4, c2
//!     cond_br v2, block2, block3   ==>         br block5
//! block2:                                  block5:
//!     v3: u32 = add v1, c1                     v6: u32 = add v4, c1
//!     br block1(v3)                            br block6(v6)
//! block3:                                  block6(v7: u32):  ... (second copy) ...
//!     return v1                            block1(v1: u32):
//!                                              v2: bool = lt v1, c2
//!                                              br block3
//!                                          block3:
//!                                              return v1
//! ```

use crate::analysis::loops::{Loop, LoopInfo};
use crate::analysis::scev::{range_of, step_of, ExitTest, ScalarEvolution, Scev, StayPredicate};
use crate::analysis::uniformity::Uniformity;
use crate::loop_transform::require_plain_cfg;
use crate::loop_transform::{
    clone_blocks, close_exit, delete_blocks, entering_edge, escaping_values, has_call,
    has_convergent, insert_before, loop_size, replace_terminator_with_jump, retarget, Copies,
};
use crate::pass_info;
use crate::util::definitions;
use oxir_ir::instructions::{BlockCall, Payload};
use oxir_ir::{Block, Func, Function, Module, Opcode, Scalar, Value};

pass_info! {
    pass: "loop-unroll",
    /// Counters of `loop-unroll`.
    pub struct LoopUnrollInfo {
        /// Loops replaced by straight-line copies of their iterations.
        fully_unrolled_loop_count,
        /// Loops replaced by a main loop of several iterations and a remainder.
        partially_unrolled_loop_count,
        /// Instructions created by copying.
        cloned_inst_count,
        /// Counted loops left alone because the copies would exceed the budget.
        skipped_over_budget_count,
        /// Counted loops left alone because they hold a convergent operation or a call
        /// and the trip count is not proved uniform.
        skipped_convergent_count,
        /// Functions left alone because they hold structured control flow.
        structured_cfg_error_count,
    }
    changed_by: [fully_unrolled_loop_count, partially_unrolled_loop_count]
}

/// The most instructions a fully unrolled loop may have (trip count × loop size).
pub const FULL_UNROLL_BUDGET: usize = 256;
/// The unroll factor of partial unrolling (halved when over the budget).
pub const PARTIAL_FACTOR: u64 = 4;
/// The most instructions the copies of a partial unroll may have (2 × factor × size).
pub const PARTIAL_UNROLL_BUDGET: usize = 192;

/// What `loop-unroll` may do: the registered pass uses [`UnrollLimits::default`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnrollLimits {
    /// The most instructions a fully unrolled loop may have (trip count × loop size).
    pub full_budget: usize,
    /// Whether loops without a constant trip count are partially unrolled. A target
    /// with no loops (CSIR) turns it off: a partial unroll keeps a loop, so it would
    /// only grow a shader that is refused anyway.
    pub partial: bool,
}

impl Default for UnrollLimits {
    fn default() -> UnrollLimits {
        UnrollLimits {
            full_budget: FULL_UNROLL_BUDGET,
            partial: true,
        }
    }
}

/// Runs `loop-unroll` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> LoopUnrollInfo {
    run_on_module_with(module, UnrollLimits::default())
}

/// Runs `loop-unroll` with `limits` on every function definition of `module`.
pub fn run_on_module_with(module: &mut Module, limits: UnrollLimits) -> LoopUnrollInfo {
    let mut info = LoopUnrollInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function_with(module, func, limits));
    }
    info
}

/// Runs `loop-unroll` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> LoopUnrollInfo {
    run_on_function_with(module, func, UnrollLimits::default())
}

/// Runs `loop-unroll` with `limits` on one function.
pub fn run_on_function_with(
    module: &mut Module,
    func: Func,
    limits: UnrollLimits,
) -> LoopUnrollInfo {
    let mut info = LoopUnrollInfo::default();
    require_plain_cfg!(module, func, info);
    loop {
        let mut skips = LoopUnrollInfo::default();
        let plan = plan_next(module, func, limits, &mut skips);
        let Some(plan) = plan else {
            info.skipped_over_budget_count += skips.skipped_over_budget_count;
            info.skipped_convergent_count += skips.skipped_convergent_count;
            return info;
        };
        match plan {
            Plan::Full(full) => {
                info.cloned_inst_count += full_unroll(&mut module.functions[func], &full);
                info.fully_unrolled_loop_count += 1;
            }
            Plan::Partial(partial) => {
                info.cloned_inst_count += partial_unroll(module, func, &partial);
                info.partially_unrolled_loop_count += 1;
            }
        }
    }
}

/// What to do with one loop, decided before any change.
enum Plan {
    Full(FullPlan),
    Partial(PartialPlan),
}

/// The parts of a candidate loop both unrollings use.
struct Shape {
    header: Block,
    latch: Block,
    /// Blocks of the loop in layout order.
    blocks: Vec<Block>,
    preheader: Block,
    test: ExitTest,
    /// The header's exit edge (target and arguments).
    exit: BlockCall,
    size: usize,
}

struct FullPlan {
    shape: Shape,
    trips: u64,
}

struct PartialPlan {
    shape: Shape,
    factor: u64,
    /// `D = (factor - 1) · |step|` and the guard threshold, as bits of the test's type.
    distance: u64,
    threshold: u64,
    /// `x < n` (true) or `x > n`.
    below: bool,
    escaping: Vec<Value>,
}

/// The first innermost loop (in loop order) that can be unrolled now.
fn plan_next(
    module: &Module,
    func: Func,
    limits: UnrollLimits,
    skips: &mut LoopUnrollInfo,
) -> Option<Plan> {
    let f = &module.functions[func];
    let loops = LoopInfo::new(f);
    let mut se = ScalarEvolution::new(module, f, &loops);
    let mut uniformity: Option<Uniformity> = None;
    for lp in innermost(&loops) {
        let Some(shape) = shape_of(f, &loops, &mut se, lp) else {
            continue;
        };
        let convergent = has_convergent(f, &loops, lp) || has_call(f, &loops, lp);
        if let Some(trips) = se.trip_count(lp) {
            let total = usize::try_from(trips)
                .ok()
                .and_then(|t| t.checked_mul(shape.size));
            if total.is_some_and(|t| t <= limits.full_budget) {
                return Some(Plan::Full(FullPlan { shape, trips }));
            }
            skips.skipped_over_budget_count += 1;
            continue;
        }
        if !limits.partial {
            continue;
        }
        let Some(plan) = partial_plan(f, &loops, lp, shape, skips) else {
            continue;
        };
        if convergent {
            let u = uniformity.get_or_insert_with(|| Uniformity::new(module, f));
            if !uniform_trip_count(f, u, &mut se, &plan.shape.test) {
                skips.skipped_convergent_count += 1;
                continue;
            }
        }
        return Some(Plan::Partial(plan));
    }
    None
}

/// Loops no other loop is nested in, in loop order.
fn innermost(loops: &LoopInfo) -> Vec<Loop> {
    let mut has_child = vec![false; loops.loop_count()];
    for lp in loops.loops() {
        if let Some(p) = loops.data(lp).parent {
            if let Some(slot) = has_child.get_mut(cranelift_entity::EntityRef::index(p)) {
                *slot = true;
            }
        }
    }
    loops
        .loops()
        .filter(|&lp| !has_child[cranelift_entity::EntityRef::index(lp)])
        .collect()
}

fn shape_of(f: &Function, loops: &LoopInfo, se: &mut ScalarEvolution, lp: Loop) -> Option<Shape> {
    let data = loops.data(lp);
    let [latch] = data.latches.as_slice() else {
        return None;
    };
    let (preheader, _) = entering_edge(f, loops, lp)?;
    let test = se.exit_test(lp)?;
    if test.exiting != data.header {
        return None;
    }
    let exit = match &f.dfg.inst(test.branch).payload {
        Payload::CondBranch {
            then_dest,
            else_dest,
        } => {
            if test.then_stays {
                else_dest.clone()
            } else {
                then_dest.clone()
            }
        }
        // wildcard-ok: exit_test only answers for a cond_br.
        _ => return None,
    };
    Some(Shape {
        header: data.header,
        latch: *latch,
        blocks: data.blocks.clone(),
        preheader,
        exit,
        size: loop_size(f, loops, lp),
        test,
    })
}

fn partial_plan(
    f: &Function,
    loops: &LoopInfo,
    lp: Loop,
    shape: Shape,
    skips: &mut LoopUnrollInfo,
) -> Option<PartialPlan> {
    let test = &shape.test;
    let Scev::AddRec { step, .. } = &test.iv_scev else {
        return None;
    };
    let step = step_of(test.scalar, step.as_constant()?);
    let below = match test.stay {
        StayPredicate::Lt if step > 0 => true,
        StayPredicate::Gt if step < 0 => false,
        StayPredicate::Lt
        | StayPredicate::Le
        | StayPredicate::Gt
        | StayPredicate::Ge
        | StayPredicate::Eq
        | StayPredicate::Ne => return None,
    };
    let mut factor = PARTIAL_FACTOR;
    while factor >= 2 {
        let copies = usize::try_from(2 * factor).ok()?;
        if shape.size.checked_mul(copies)? <= PARTIAL_UNROLL_BUDGET {
            break;
        }
        factor /= 2;
    }
    if factor < 2 {
        skips.skipped_over_budget_count += 1;
        return None;
    }
    let (lo, hi) = range_of(test.scalar);
    let distance = i128::from(factor - 1).checked_mul(step.checked_abs()?)?;
    let threshold = if below {
        lo.checked_add(distance)?
    } else {
        hi.checked_sub(distance)?
    };
    if threshold < lo || threshold > hi {
        return None;
    }
    Some(PartialPlan {
        escaping: escaping_values(f, loops, lp),
        distance: bits_of(distance),
        threshold: bits_of(threshold),
        shape,
        factor,
        below,
    })
}

/// The two's-complement bits of `v` (any width: callers canonicalise).
fn bits_of(v: i128) -> u64 {
    v as u64
}

/// Whether every invocation of a workgroup runs the same number of iterations: the bound
/// and every opaque part of the recurrence's start are uniform (the step is constant).
fn uniform_trip_count(
    f: &Function,
    u: &Uniformity,
    se: &mut ScalarEvolution,
    test: &ExitTest,
) -> bool {
    fn leaves_uniform(f: &Function, u: &Uniformity, s: &Scev) -> bool {
        match s {
            Scev::Constant(_) => true,
            Scev::Unknown(v) => u.is_uniform(f, *v),
            Scev::AddRec { start, step, .. } => {
                leaves_uniform(f, u, start) && leaves_uniform(f, u, step)
            }
            Scev::Add(a, b) | Scev::Mul(a, b) => leaves_uniform(f, u, a) && leaves_uniform(f, u, b),
        }
    }
    let bound = se.get(test.bound);
    leaves_uniform(f, u, &test.iv_scev) && leaves_uniform(f, u, &bound)
}

/// The stay edge of a copied header's `cond_br`, as it is now.
fn stay_edge(f: &Function, header: Block, then_stays: bool) -> Option<BlockCall> {
    let term = f.terminator(header)?;
    match &f.dfg.inst(term).payload {
        Payload::CondBranch {
            then_dest,
            else_dest,
        } => Some(if then_stays { then_dest } else { else_dest }.clone()),
        // wildcard-ok: the copied header ends in the cond_br of its original.
        _ => None,
    }
}

/// Counts the instructions of the copies.
fn copied_insts(f: &Function, copies: &Copies, blocks: &[Block]) -> u64 {
    blocks
        .iter()
        .map(|&b| f.layout.block_insts(copies.block(b)).count() as u64)
        .sum()
}

/// Full unroll (see the module docs); returns the instructions created.
fn full_unroll(f: &mut Function, plan: &FullPlan) -> u64 {
    let s = &plan.shape;
    let mut cloned = 0;
    let mut previous: Option<(Block, Block)> = None; // (latch copy, header copy)
    let mut first_header = s.header;
    for _ in 0..plan.trips {
        let copies = clone_blocks(f, &s.blocks, Some(s.header));
        cloned += copied_insts(f, &copies, &s.blocks);
        let header = copies.block(s.header);
        if let Some(edge) = stay_edge(f, header, s.test.then_stays) {
            replace_terminator_with_jump(f, header, edge);
        }
        match previous {
            Some((latch, prev_header)) => retarget(f, latch, prev_header, header),
            None => first_header = header,
        }
        previous = Some((copies.block(s.latch), header));
    }
    if let Some((latch, header)) = previous {
        retarget(f, latch, header, s.header);
    }
    retarget(f, s.preheader, s.header, first_header);
    replace_terminator_with_jump(f, s.header, s.exit.clone());
    let body: Vec<Block> = s
        .blocks
        .iter()
        .copied()
        .filter(|&b| b != s.header)
        .collect();
    delete_blocks(f, &body);
    cloned
}

/// Partial unroll (see the module docs); returns the instructions created.
fn partial_unroll(module: &mut Module, func: Func, plan: &PartialPlan) -> u64 {
    let s = &plan.shape;
    let scalar: Scalar = s.test.scalar;
    let ty = module.types.scalar(scalar);
    let bool_ty = module.types.bool();
    let distance = module.const_scalar(scalar, plan.distance);
    let threshold = module.const_scalar(scalar, plan.threshold);
    let f = &mut module.functions[func];
    {
        let loops = LoopInfo::new(f);
        let Some(lp) = loops.loop_with_header(s.header) else {
            return 0;
        };
        close_exit(f, &loops, lp, s.header, s.exit.block, &plan.escaping);
    }
    let (distance, threshold) = (
        f.dfg.const_value(distance, ty),
        f.dfg.const_value(threshold, ty),
    );
    // Preheader: n' and the guard.
    let (n_op, g_op, cmp_op) = if plan.below {
        (Opcode::Sub, Opcode::Ge, Opcode::Lt)
    } else {
        (Opcode::Add, Opcode::Le, Opcode::Gt)
    };
    let Some(pre_term) = f.terminator(s.preheader) else {
        return 0;
    };
    let n_prime = insert_before(f, pre_term, n_op, &[s.test.bound, distance], ty);
    let guard = insert_before(f, pre_term, g_op, &[s.test.bound, threshold], bool_ty);
    let mut cloned = 2;
    // Main loop.
    let mut main_headers = Vec::new();
    let mut main_latches = Vec::new();
    for j in 0..plan.factor {
        let copies = clone_blocks(f, &s.blocks, Some(s.header));
        cloned += copied_insts(f, &copies, &s.blocks);
        let header = copies.block(s.header);
        if j == 0 {
            let Some(term) = f.terminator(header) else {
                return cloned;
            };
            let x = copies.value(f, s.test.iv);
            let t = insert_before(f, term, cmp_op, &[x, n_prime], bool_ty);
            let m = insert_before(f, term, Opcode::And, &[guard, t], bool_ty);
            cloned += 2;
            // The new condition holds to stay: the stay edge becomes the then edge.
            let data = f.dfg.inst_mut(term);
            data.args[0] = m;
            if let Payload::CondBranch {
                then_dest,
                else_dest,
            } = &mut data.payload
            {
                if !s.test.then_stays {
                    std::mem::swap(then_dest, else_dest);
                }
            }
        } else if let Some(edge) = stay_edge(f, header, s.test.then_stays) {
            replace_terminator_with_jump(f, header, edge);
        }
        main_headers.push(header);
        main_latches.push(copies.block(s.latch));
    }
    for (j, &latch) in main_latches.iter().enumerate() {
        let next = main_headers[(j + 1) % main_headers.len()];
        retarget(f, latch, main_headers[j], next);
    }
    // Remainder: factor - 1 tested copies, then a header copy that leaves.
    let mut rem_headers = Vec::new();
    let mut rem_latches = Vec::new();
    for _ in 1..plan.factor {
        let copies = clone_blocks(f, &s.blocks, Some(s.header));
        cloned += copied_insts(f, &copies, &s.blocks);
        rem_headers.push(copies.block(s.header));
        rem_latches.push(copies.block(s.latch));
    }
    let last = clone_blocks(f, &[s.header], Some(s.header));
    cloned += copied_insts(f, &last, &[s.header]);
    let last_header = last.block(s.header);
    // The other edge of the test: the exit.
    if let Some(edge) = stay_edge(f, last_header, !s.test.then_stays) {
        replace_terminator_with_jump(f, last_header, edge);
    }
    rem_headers.push(last_header);
    for (j, &latch) in rem_latches.iter().enumerate() {
        retarget(f, latch, rem_headers[j], rem_headers[j + 1]);
    }
    // The main loop's exit enters the remainder with the main header's parameters.
    let first = main_headers[0];
    let params: Vec<Value> = f.dfg.block_params(first).to_vec();
    if let Some(term) = f.terminator(first) {
        // The else edge: the first header's test was rewritten to stay on then.
        if let Some(edge) = f.dfg.inst_mut(term).payload.edges_mut().into_iter().nth(1) {
            *edge = BlockCall::with_args(rem_headers[0], &params);
        }
    }
    retarget(f, s.preheader, s.header, first);
    delete_blocks(f, &s.blocks);
    cloned
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};

    fn fixture(name: &str) -> Module {
        let path = format!(
            "{}/../../tests/filetests/passes/loop-unroll/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        // The input: the fixture up to its expected output.
        let input = text.split("\n; output:").next().unwrap_or_default();
        parse_module(input).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn limits_turn_partial_unrolling_off_and_bound_full_unrolling() {
        let full_only = UnrollLimits {
            partial: false,
            ..UnrollLimits::default()
        };
        let mut m = fixture("partial_dynamic.oxir");
        let before = print_module(&m, View::Flat);
        assert_eq!(
            run_on_module(&mut m.clone()).partially_unrolled_loop_count,
            2
        );
        let info = run_on_module_with(&mut m, full_only);
        assert_eq!(info, LoopUnrollInfo::default());
        assert_eq!(
            print_module(&m, View::Flat),
            before,
            "a runtime loop was changed"
        );

        let mut m = fixture("full_constant.oxir");
        let tight = UnrollLimits {
            full_budget: 2,
            ..full_only
        };
        let info = run_on_module_with(&mut m.clone(), tight);
        assert_eq!(info.fully_unrolled_loop_count, 0);
        assert_eq!(info.skipped_over_budget_count, 1);
        assert_eq!(
            run_on_module_with(&mut m, full_only).fully_unrolled_loop_count,
            1
        );
    }
}
