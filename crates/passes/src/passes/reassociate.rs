//! `reassociate`: gathers the constants of integer `add`/`sub`, `mul`, `and`, `or` and
//! `xor` chains into one, so each chain keeps one operation per non-constant operand.
//!
//! **What it does.** An instruction `I = op2 J, C2` (or `op2 C2, J` for commutative
//! `op2`) whose operand `J = op1 x, C1` (or `op1 C1, x`) is used by `I` alone, with `C1`
//! and `C2` constants and `x` not, becomes `I = op x, C` and `J` is removed:
//!
//! | `J` | `I` | becomes |
//! |---|---|---|
//! | `add x, C1` | `add J, C2` | `add x, C1 + C2` |
//! | `add x, C1` | `sub J, C2` | `add x, C1 - C2` |
//! | `sub x, C1` | `add J, C2` | `add x, C2 - C1` |
//! | `sub x, C1` | `sub J, C2` | `sub x, C1 + C2` |
//! | `mul x, C1` | `mul J, C2` | `mul x, C1 * C2` |
//! | `and`/`or`/`xor x, C1` | the same op `J, C2` | the op `x, C1 op C2` |
//!
//! so `(x + 1) + 2 → x + 3` and `(x * 2) * 4 → x * 8`. `C` is computed by const-fold's
//! evaluator ([`crate::passes::const_fold::eval::fold_lanes`], i.e. the interpreter's
//! [`oxir_ir::scalar_semantics`]). Integer arithmetic in this IR wraps (modulo 2^width),
//! and `+`, `*` and the bitwise operations are associative and commutative there, so the
//! rewrite is exact for every value, `MIN` and overflow included. Blocks are visited in
//! reverse post-order, so a definition is seen before its uses and a whole chain
//! collapses in one run (`((x + 1) + 2) + 3 → x + 6`); the pass is idempotent. Each
//! rewrite removes one instruction and creates none (`reassociated_inst_count`).
//!
//! ## What it does not do
//!
//! - **Never floats** (float `+` and `*` round and are not associative), bools, vectors
//!   of floats or matrices.
//! - It does not reassociate when the inner result has other uses (that would duplicate
//!   work), reorder non-constant operands (`(x + y) + x`), rewrite `C - x`, or
//!   distribute (`(x + 1) * 2`).
//! - It does not fold all-constant operations (`const-fold`), nor touch instructions with
//!   semantic metadata.
//!
//! ## Example
//!
//! ```text
//! v1: i32 = add v0, c1        ; c1 = 1        v2: i32 = add v0, c3   ; c3 = 3
//! v2: i32 = add v1, c2        ; c2 = 2   ==>  v4: i32 = mul v0, c5   ; c5 = 8
//! v3: i32 = mul v0, c4        ; c4 = 2
//! v4: i32 = mul v3, c6        ; c6 = 4
//! ```

use crate::analysis::cfg::reverse_post_order;
use crate::const_values::{const_of, lanes, lanes_const, scalar_or_vector, LaneBits};
use crate::pass_info;
use crate::passes::const_fold::eval::{fold_lanes, LaneFold};
use crate::util::definitions;
use cranelift_entity::SecondaryMap;
use oxir_ir::{Func, Function, Inst, Module, Opcode, Scalar, ScalarKind, Value, ValueDef};

pass_info! {
    pass: "reassociate",
    /// Counters of `reassociate`.
    pub struct ReassociateInfo {
        /// Instructions rewritten to take the combined constant (one inner instruction
        /// removed each).
        reassociated_inst_count,
    }
    changed_by: [reassociated_inst_count]
}

/// Runs `reassociate` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> ReassociateInfo {
    let mut info = ReassociateInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `reassociate` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> ReassociateInfo {
    let mut info = ReassociateInfo::default();
    let Some(f) = module.functions.get(func) else {
        return info;
    };
    let uses = use_counts(f);
    let order: Vec<Inst> = reverse_post_order(f)
        .into_iter()
        .flat_map(|b| f.layout.block_insts(b).collect::<Vec<_>>())
        .collect();
    for inst in order {
        let Some(r) = find(module, &module.functions[func], inst, &uses) else {
            continue;
        };
        let c = lanes_const(module, r.ty, r.scalar, &r.bits);
        let f = &mut module.functions[func];
        let k = f.dfg.const_value(c, r.ty);
        let data = f.dfg.inst_mut(inst);
        data.opcode = r.op;
        data.args.clear();
        data.args.extend([r.x, k]);
        f.remove_inst(r.inner);
        info.reassociated_inst_count += 1;
    }
    info
}

/// How many operands and edge arguments of placed instructions read each value.
fn use_counts(f: &Function) -> SecondaryMap<Value, u32> {
    let mut uses: SecondaryMap<Value, u32> = crate::util::dense_map(f.dfg.values.len());
    for block in f.layout.blocks() {
        for inst in f.layout.block_insts(block) {
            let data = f.dfg.inst(inst);
            for &v in &data.args {
                uses[f.dfg.resolve(v)] += 1;
            }
            for edge in data.payload.edges() {
                for &v in &edge.args {
                    uses[f.dfg.resolve(v)] += 1;
                }
            }
        }
    }
    uses
}

/// A decided rewrite: `inst` becomes `op x, constant(bits)`, `inner` goes.
struct Rewrite {
    op: Opcode,
    x: Value,
    inner: Inst,
    ty: oxir_ir::Type,
    scalar: Scalar,
    bits: LaneBits,
}

/// `(op, non-constant operand, constant)` of a binary `inst` when exactly one operand is
/// a constant, which may only be on the left for commutative ops.
fn split(f: &Function, inst: Inst) -> Option<(Opcode, Value, Value)> {
    if f.dfg.metadata(inst).is_some_and(|md| md.is_annotated()) {
        return None;
    }
    let data = f.dfg.inst(inst);
    let [a, b] = data.args[..] else {
        return None;
    };
    let (a, b) = (f.dfg.resolve(a), f.dfg.resolve(b));
    match (const_of(f, a), const_of(f, b)) {
        (None, Some(_)) => Some((data.opcode, a, b)),
        (Some(_), None) if data.opcode != Opcode::Sub => Some((data.opcode, b, a)),
        (Some(_), None) | (Some(_), Some(_)) | (None, None) => None,
    }
}

/// The opcode of the result and how the constant combines (`(op, first, second)`: the
/// constant is `first op second`, `true` meaning `C1, C2`, `false` `C2, C1`), for inner
/// `op1` and outer `op2`.
fn combine(op1: Opcode, op2: Opcode) -> Option<(Opcode, Opcode, bool)> {
    use Opcode::{Add, And, Mul, Or, Sub, Xor};
    Some(match (op1, op2) {
        (Add, Add) => (Add, Add, true),
        (Add, Sub) => (Add, Sub, true),
        (Sub, Add) => (Add, Sub, false),
        (Sub, Sub) => (Sub, Add, true),
        (Mul, Mul) => (Mul, Mul, true),
        (And, And) => (And, And, true),
        (Or, Or) => (Or, Or, true),
        (Xor, Xor) => (Xor, Xor, true),
        // wildcard-ok: every other pair of opcodes does not reassociate
        _ => return None,
    })
}

fn find(
    module: &Module,
    f: &Function,
    inst: Inst,
    uses: &SecondaryMap<Value, u32>,
) -> Option<Rewrite> {
    let result = f.dfg.inst_result(inst)?;
    let ty = f.dfg.value_type(result);
    let (s, _) = scalar_or_vector(&module.types, ty)?;
    if !matches!(s.kind, ScalarKind::Sint | ScalarKind::Uint) {
        return None;
    }
    let (op2, j, c2) = split(f, inst)?;
    let ValueDef::Result(inner) = f.dfg.value_def(j) else {
        return None;
    };
    if uses[j] != 1 || f.layout.inst_block(inner).is_none() {
        return None;
    }
    let (op1, x, c1) = split(f, inner)?;
    let (op, fold_op, in_order) = combine(op1, op2)?;
    let (k1, k2) = (
        lanes(module, const_of(f, c1)?)?,
        lanes(module, const_of(f, c2)?)?,
    );
    let operands = if in_order { [k1, k2] } else { [k2, k1] };
    let (scalar, bits) = match fold_lanes(module, fold_op, ty, &operands) {
        LaneFold::Fold(s, bits) => (s, bits),
        LaneFold::Unsafe | LaneFold::Keep => return None,
    };
    (f.dfg.value_type(x) == ty).then_some(Rewrite {
        op,
        x,
        inner,
        ty,
        scalar,
        bits,
    })
}
