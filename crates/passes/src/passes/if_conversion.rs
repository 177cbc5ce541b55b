//! `if-conversion`: small `cond_br` diamonds and triangles of plain CFGs become `select`s.
//!
//! **Shapes.** A head block `H` ending in `cond_br c, T, E` where
//! - *diamond*: `T` and `E` are distinct *arms* jumping to one join `J` (`J` not `H`);
//! - *triangle*: one successor is an arm jumping to the other successor, the join `J`
//!   (`cond_br c, A, J(xj)` with `A: br J(xa)`, either way round).
//!
//! An *arm* is a block without parameters, entered by exactly one edge (from `H`), holding
//! at most [`MAX_ARM_INSTS`] instructions besides its `br`, every one of them safe and
//! cheap to execute on both paths (below). The arms' instructions move, in order, to the
//! end of `H` (then-arm first; `hoisted_inst_count`), `H` ends in `br J(args)` and the arms
//! are deleted. For each parameter of `J` the two paths pass `a` (then) and `b` (else):
//! the new edge passes `a` when they are the same value, otherwise a new
//! `select c, a, b` placed in `H` (`replaced_param_count`). `J` keeps its other
//! predecessors. Counted: `converted_diamond_count`, `converted_triangle_count`.
//!
//! **What is speculated.** Only instructions that are pure, not convergent and not
//! `alloca` ([`oxir_ir::effects::is_safe_to_value_number`]) and carry no semantic metadata.
//! Never loads, stores, atomics, calls, barriers, derivatives, texture operations (queries
//! included), `print`/`assert`, `clock`. Among pure ones, also never:
//! - `div` and `rem`, of any type. Integer division is total in the IR (`x / 0 = x`,
//!   `MIN / -1 = MIN`, see `oxir_ir::scalar_semantics`), so speculating it would be
//!   correct, but every back-end lowers the IR's rule to a guarded sequence (a `select` on
//!   the divisor, a sign fix for `rem`) and float division is the slowest arithmetic:
//!   both paths would pay the longest sequences, and a branch around a division usually
//!   exists to skip it.
//! - `convert`: a float-to-integer conversion is lowered to a saturating sequence (NaN
//!   test, clamps, convert), and arms guarded by a range test are where conversions sit.
//! - instructions with a dynamic index (`access` with a non-constant index,
//!   `extract_dynamic`, `insert_dynamic`): a back-end may compute an address that is
//!   undefined out of range, and the branch may be the range check (`bounds-checks`).
//!
//! A `select` of pointers or resources (textures, samplers) is not made: back-ends without
//! variable pointers cannot lower it; such a join parameter with differing arguments
//! leaves the shape alone. Heads are visited on a worklist, and a converted head's
//! predecessor is visited again, so nested shapes (an arm that was itself a head) collapse
//! in one run; a second run changes nothing.
//!
//! ## What it does not do
//!
//! - Structured functions are skipped, unchanged (`structured_cfg_error_count`: their
//!   `if` constructs are not `cond_br` shapes).
//! - It does not merge `H` with `J` or thread the blocks it leaves (`simplify-cfg` does),
//!   convert `switch_br`, arms with parameters, arms of more than one block, or arms with
//!   effects (no predication of stores), and it does not weigh the cost of `c`'s
//!   computation or of the instructions beyond the fixed budget.
//! - Counters `skipped_unsafe_arm_count` and `skipped_over_budget_count` (diagnostic)
//!   count shapes left alone for an instruction that may not be speculated (or a join
//!   parameter that cannot be selected) and for an arm over the budget.
//!
//! ## Example
//!
//! ```text
//! block0(v0: i32, v1: bool):               block0(v0: i32, v1: bool):
//!     cond_br v1, block1, block2               v2: i32 = add v0, c0
//! block1:                                      v3: i32 = mul v0, v0
//!     v2: i32 = add v0, c0           ==>       v5: i32 = select v1, v2, v3
//!     br block3(v2)                            br block3(v5)
//! block2:                                  block3(v4: i32):
//!     v3: i32 = mul v0, v0                     return v4
//!     br block3(v3)
//! block3(v4: i32):
//!     return v4
//! ```

use crate::pass_info;
use crate::util::{
    contains_structured_control_flow, definitions, has_dynamic_index, incoming_edges, EdgeRef,
};
use cranelift_entity::SecondaryMap;
use oxir_ir::effects::is_safe_to_value_number;
use oxir_ir::instructions::{BlockCall, InstData, Payload};
use oxir_ir::ops::TypeRule;
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, TypeData, Value};
use smallvec::SmallVec;

pass_info! {
    pass: "if-conversion",
    /// Counters of `if-conversion`.
    pub struct IfConversionInfo {
        /// Diamonds (two arms) turned into `select`s.
        converted_diamond_count,
        /// Triangles (one arm) turned into `select`s.
        converted_triangle_count,
        /// Arm instructions moved into the head.
        hoisted_inst_count,
        /// Join parameters whose incoming values became a `select`.
        replaced_param_count,
        /// Diagnostic: shapes left alone for an instruction that may not be speculated or
        /// a join parameter that cannot be selected.
        skipped_unsafe_arm_count,
        /// Diagnostic: shapes left alone for an arm over the budget.
        skipped_over_budget_count,
        /// Functions left alone because they hold structured control flow.
        structured_cfg_error_count,
    }
    changed_by: [converted_diamond_count, converted_triangle_count]
}

/// The most instructions (besides its `br`) an arm may hold.
pub const MAX_ARM_INSTS: usize = 4;

/// Runs `if-conversion` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> IfConversionInfo {
    let mut info = IfConversionInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `if-conversion` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> IfConversionInfo {
    let mut info = IfConversionInfo::default();
    let Some(f) = module.functions.get(func) else {
        return info;
    };
    if !f.is_definition() || f.entry_block().is_none() {
        return info;
    }
    if contains_structured_control_flow(f) {
        info.structured_cfg_error_count = 1;
        return info;
    }
    let mut incoming = incoming_edges(f);
    let mut worklist: Vec<Block> = f.layout.blocks().collect();
    worklist.reverse();
    let mut queued: SecondaryMap<Block, bool> = SecondaryMap::new();
    for &b in &worklist {
        queued[b] = true;
    }
    while let Some(head) = worklist.pop() {
        queued[head] = false;
        let f = &module.functions[func];
        if !f.layout.is_block_inserted(head) {
            continue;
        }
        let Some(shape) = match_shape(module, f, &incoming, head, &mut info) else {
            continue;
        };
        let pred = single_pred(f, &incoming, head);
        convert(module, func, &shape, &mut incoming, &mut info);
        if let Some(p) = pred.filter(|&p| !queued[p]) {
            queued[p] = true;
            worklist.push(p);
        }
    }
    info
}

/// A matched shape: the head's terminator and condition, the arms (then first; one of
/// them `None` for a triangle) and the join with the values each path passes it.
struct Shape {
    term: Inst,
    cond: Value,
    arms: [Option<Block>; 2],
    join: Block,
    /// Per join parameter, the value on the then path and on the else path.
    values: Vec<(Value, Value)>,
}

/// The block whose terminator is the only edge into `block`.
fn single_pred(
    f: &Function,
    incoming: &SecondaryMap<Block, SmallVec<[EdgeRef; 2]>>,
    block: Block,
) -> Option<Block> {
    match incoming[block].as_slice() {
        [(term, _)] => f.layout.inst_block(*term),
        _ => None,
    }
}

fn match_shape(
    module: &Module,
    f: &Function,
    incoming: &SecondaryMap<Block, SmallVec<[EdgeRef; 2]>>,
    head: Block,
    info: &mut IfConversionInfo,
) -> Option<Shape> {
    let term = f.terminator(head)?;
    let data = f.dfg.inst(term);
    let (
        Payload::CondBranch {
            then_dest,
            else_dest,
        },
        Some(&cond),
    ) = (&data.payload, data.args.first())
    else {
        return None;
    };
    let is_arm = |b: Block, edge_args: &[Value]| {
        b != head
            && edge_args.is_empty()
            && f.dfg.block_params(b).is_empty()
            && single_pred(f, incoming, b) == Some(head)
    };
    let jump_of = |b: Block| -> Option<&BlockCall> {
        let t = f.terminator(b)?;
        let annotated = f.dfg.metadata(t).is_some_and(|md| md.is_annotated());
        match (&f.dfg.inst(t).payload, f.dfg.inst(t).opcode) {
            (Payload::Jump(call), Opcode::Br) if !annotated => Some(call),
            _ => None,
        }
    };
    let (t, e) = (then_dest.block, else_dest.block);
    let then_arm = is_arm(t, &then_dest.args).then(|| jump_of(t)).flatten();
    let else_arm = is_arm(e, &else_dest.args).then(|| jump_of(e)).flatten();
    let (arms, join, then_args, else_args) = match (then_arm, else_arm) {
        (Some(a), Some(b)) if t != e && a.block == b.block && a.block != head => {
            (([Some(t), Some(e)]), a.block, &a.args, &b.args)
        }
        (Some(a), _) if a.block == e && e != head => ([Some(t), None], e, &a.args, &else_dest.args),
        (_, Some(b)) if b.block == t && t != head => ([None, Some(e)], t, &then_dest.args, &b.args),
        _ => return None,
    };
    if then_args.len() != else_args.len() || then_args.len() != f.dfg.block_params(join).len() {
        return None;
    }
    let values: Vec<(Value, Value)> = then_args
        .iter()
        .zip(else_args.iter())
        .map(|(&a, &b)| (f.dfg.resolve(a), f.dfg.resolve(b)))
        .collect();
    let arm_blocks = arms.iter().flatten();
    if arm_blocks
        .clone()
        .any(|&b| f.layout.block_insts(b).count() > MAX_ARM_INSTS + 1)
    {
        info.skipped_over_budget_count += 1;
        return None;
    }
    let speculatable = arm_blocks.clone().all(|&b| {
        f.layout
            .block_insts(b)
            .filter(|&i| !f.dfg.inst(i).opcode.is_terminator())
            .all(|i| may_speculate(module, f, i))
    });
    let selectable = values
        .iter()
        .all(|&(a, b)| a == b || may_select(module, f, a));
    if !speculatable || !selectable {
        info.skipped_unsafe_arm_count += 1;
        return None;
    }
    Some(Shape {
        term,
        cond,
        arms,
        join,
        values,
    })
}

/// Whether `inst` may run on a path that did not run it (module doc).
fn may_speculate(module: &Module, f: &Function, inst: Inst) -> bool {
    let data = f.dfg.inst(inst);
    let costly = matches!(data.opcode, Opcode::Div | Opcode::Rem);
    is_safe_to_value_number(module, f, inst)
        && !f.dfg.metadata(inst).is_some_and(|md| md.is_annotated())
        && !costly
        && !matches!(data.opcode.info().rule, TypeRule::Convert)
        && !data.opcode.is_texture()
        && !has_dynamic_index(f, data)
}

/// Whether a `select` may choose between values of `v`'s type.
fn may_select(module: &Module, f: &Function, v: Value) -> bool {
    match module.types.try_get(f.dfg.value_type(v)) {
        Some(TypeData::Pointer { .. }) | None => false,
        Some(ty) => !ty.is_resource(),
    }
}

fn convert(
    module: &mut Module,
    func: Func,
    shape: &Shape,
    incoming: &mut SecondaryMap<Block, SmallVec<[EdgeRef; 2]>>,
    info: &mut IfConversionInfo,
) {
    let f = &mut module.functions[func];
    let mut arm_terms: SmallVec<[Inst; 2]> = SmallVec::new();
    for &arm in shape.arms.iter().flatten() {
        let insts: Vec<Inst> = f.layout.block_insts(arm).collect();
        for inst in insts {
            if f.dfg.inst(inst).opcode.is_terminator() {
                arm_terms.push(inst);
                f.remove_inst(inst);
            } else {
                f.layout.remove_inst(inst);
                f.layout.insert_inst_before(inst, shape.term);
                info.hoisted_inst_count += 1;
            }
        }
        f.layout.remove_block(arm);
    }
    let mut args = Vec::with_capacity(shape.values.len());
    for &(a, b) in &shape.values {
        if a == b {
            args.push(a);
            continue;
        }
        let ty = f.dfg.value_type(a);
        let select = f
            .dfg
            .make_inst(InstData::new(Opcode::Select, &[shape.cond, a, b]));
        let result = f.dfg.make_result(select, ty);
        f.layout.insert_inst_before(select, shape.term);
        args.push(result);
        info.replaced_param_count += 1;
    }
    *f.dfg.inst_mut(shape.term) = InstData::with_payload(
        Opcode::Br,
        &[],
        Payload::Jump(BlockCall {
            block: shape.join,
            args: args.into_iter().collect(),
        }),
    );
    incoming[shape.join].retain(|(t, _)| *t != shape.term && !arm_terms.contains(t));
    incoming[shape.join].push((shape.term, 0));
    match shape.arms {
        [Some(_), Some(_)] => info.converted_diamond_count += 1,
        _ => info.converted_triangle_count += 1,
    }
}
