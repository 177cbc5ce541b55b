//! Evaluating one instruction on constant operands, without interning anything (see
//! [`crate::const_values`]): the result is a [`Folded`] description that
//! [`super::commit`] interns.

use super::safety::{fold_rule, lanes_are_safe, FoldRule, Lane, LaneCheck};
use crate::const_values::{
    const_of, elem_type, element, element_count, elements, lanes, scalar_or_vector, Elem, LaneBits,
};
use oxir_ir::scalar_semantics::{self as sem, lane_op, LaneOp};
use oxir_ir::{Const, Func, Inst, Module, Opcode, Scalar, Type, Value};
use smallvec::SmallVec;

/// A constant value to intern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Built {
    /// An existing constant, or a zero / undef of a type.
    Elem(Elem),
    /// A composite of type `.0` with the given elements.
    Composite(Type, Vec<Built>),
    /// A scalar or vector of type `.0`, lane type `.1`, with the given lane bits.
    Lanes(Type, Scalar, LaneBits),
}

/// What an instruction folds to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Folded {
    /// A constant.
    Const(Built),
    /// An existing value (a `select` arm).
    Value(Value),
}

/// Which counter a fold bumps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FoldKind {
    /// A lane-wise computation.
    Lanes,
    /// A composite construction or projection.
    Composite,
    /// A `select` with a constant condition.
    Select,
}

/// The decision for one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Fold it.
    Fold(Folded, FoldKind),
    /// Its operands are constants, but folding is not safe on every target.
    Unsafe,
    /// Nothing to fold (operands not constant, or not a foldable shape).
    Keep,
}

/// An instruction's operands, read out of its function.
pub struct Candidate {
    op: Opcode,
    args: SmallVec<[Value; 4]>,
    consts: SmallVec<[Option<Const>; 4]>,
    result: Value,
    result_ty: Type,
    indices: SmallVec<[u32; 4]>,
}

impl Candidate {
    /// Reads `inst` of `func`; `None` for instructions without a result.
    pub fn read(module: &Module, func: Func, inst: Inst) -> Option<Candidate> {
        let f = module.functions.get(func)?;
        let data = f.dfg.inst(inst);
        let result = f.dfg.inst_result(inst)?;
        let args: SmallVec<[Value; 4]> = data.args.iter().map(|&v| f.dfg.resolve(v)).collect();
        Some(Candidate {
            op: data.opcode,
            consts: args.iter().map(|&v| const_of(f, v)).collect(),
            args,
            result,
            result_ty: f.dfg.value_type(result),
            indices: SmallVec::from_slice(data.payload.indices()),
        })
    }

    /// The instruction's result value.
    pub fn result(&self) -> Value {
        self.result
    }

    /// The result's type.
    pub fn result_ty(&self) -> Type {
        self.result_ty
    }

    fn all_consts(&self) -> Option<SmallVec<[Const; 4]>> {
        self.consts.iter().copied().collect()
    }
}

/// Decides how `c` folds. May intern types, never constants.
pub fn evaluate(module: &mut Module, c: &Candidate) -> Outcome {
    match fold_rule(c.op) {
        FoldRule::Never(_) if c.all_consts().is_some() && !c.args.is_empty() => Outcome::Unsafe,
        FoldRule::Never(_) => Outcome::Keep,
        FoldRule::Lanes(check) => evaluate_lanes(module, c, check),
        FoldRule::Structural => evaluate_structural(module, c),
    }
}

fn evaluate_lanes(module: &Module, c: &Candidate, check: LaneCheck) -> Outcome {
    let Some(consts) = c.all_consts() else {
        return Outcome::Keep;
    };
    let Some(operands) = consts
        .iter()
        .map(|&k| lanes(module, k))
        .collect::<Option<SmallVec<[(Scalar, LaneBits); 4]>>>()
    else {
        return Outcome::Keep;
    };
    match lanes_with_check(module, c.op, c.result_ty, check, &operands) {
        LaneFold::Fold(rs, out) => Outcome::Fold(
            Folded::Const(Built::Lanes(c.result_ty, rs, out)),
            FoldKind::Lanes,
        ),
        LaneFold::Unsafe => Outcome::Unsafe,
        LaneFold::Keep => Outcome::Keep,
    }
}

/// What a lane-wise evaluation of known operand lanes gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneFold {
    /// The result's lane scalar and lane bits.
    Fold(Scalar, LaneBits),
    /// The operands are known, but folding is not safe on every target.
    Unsafe,
    /// Not a lane-wise operation, or the operands do not fit it.
    Keep,
}

/// Evaluates the lane-wise opcode `op` with result type `result_ty` on operands given
/// as lane bits (`(lane scalar, canonical bits)` per operand, in operand order), under
/// [`fold_rule`]'s safety rule: the one evaluation `const-fold` and `sccp` share.
/// Interns nothing.
pub fn fold_lanes(
    module: &Module,
    op: Opcode,
    result_ty: Type,
    operands: &[(Scalar, LaneBits)],
) -> LaneFold {
    match fold_rule(op) {
        FoldRule::Lanes(check) => lanes_with_check(module, op, result_ty, check, operands),
        FoldRule::Never(_) => LaneFold::Unsafe,
        FoldRule::Structural => LaneFold::Keep,
    }
}

fn lanes_with_check(
    module: &Module,
    op: Opcode,
    result_ty: Type,
    check: LaneCheck,
    operands: &[(Scalar, LaneBits)],
) -> LaneFold {
    let (Some(lane), Some((rs, rn))) = (lane_op(op), scalar_or_vector(&module.types, result_ty))
    else {
        return LaneFold::Keep;
    };
    let Some(&(s, ref first)) = operands.first() else {
        return LaneFold::Keep;
    };
    let n = first.len();
    if matches!(lane, LaneOp::BoolReduce { .. }) {
        let out = sem::bool_reduce(matches!(lane, LaneOp::BoolReduce { any: true }), first);
        return LaneFold::Fold(rs, SmallVec::from_elem(out, 1));
    }
    if usize::from(rn) != n {
        return LaneFold::Keep;
    }
    let mut out = LaneBits::new();
    for i in 0..n {
        // The lanes of operands of the first operand's type (shift amounts, bit offsets
        // and counts are integers of their own type).
        let inputs: SmallVec<[u64; 4]> = operands
            .iter()
            .filter(|(t, _)| *t == s)
            .filter_map(|(_, l)| l.get(i).copied())
            .collect();
        let lane_bits = |k: usize| operands.get(k).and_then(|(_, l)| l.get(i).copied());
        let scalar_bits = |k: usize| operands.get(k).and_then(|(_, l)| l.first().copied());
        let result = match lane {
            LaneOp::Unary(_) => lane_bits(0).and_then(|a| sem::unary(op, s, a).ok()),
            LaneOp::Binary(_) => match (lane_bits(0), lane_bits(1)) {
                (Some(a), Some(b)) => sem::binary(op, s, a, b).ok(),
                _ => None,
            },
            LaneOp::Ternary(_) => match (lane_bits(0), lane_bits(1), lane_bits(2)) {
                (Some(a), Some(b), Some(d)) => sem::ternary(op, s, a, b, d).ok(),
                _ => None,
            },
            LaneOp::ExtractBits => match (lane_bits(0), scalar_bits(1), scalar_bits(2)) {
                (Some(e), Some(o), Some(k)) => sem::extract_bits(s, e, o, k).ok(),
                _ => None,
            },
            LaneOp::InsertBits => match (lane_bits(0), lane_bits(1), scalar_bits(2)) {
                (Some(e), Some(v), Some(o)) => {
                    scalar_bits(3).and_then(|k| sem::insert_bits(s, e, v, o, k).ok())
                }
                _ => None,
            },
            LaneOp::Convert => lane_bits(0).map(|a| sem::convert(s, rs, a)),
            LaneOp::Bitcast => lane_bits(0).and_then(|a| sem::bitcast(s, rs, a).ok()),
            // Never folded (`fold_rule`): `ldexp` outside the exponent range is
            // indeterminate in WGSL, `frexp` and `modf` give structs.
            LaneOp::Select
            | LaneOp::BoolReduce { .. }
            | LaneOp::Ldexp
            | LaneOp::Frexp
            | LaneOp::Modf => None,
        };
        let Some(output) = result else {
            return LaneFold::Keep;
        };
        let lane = Lane {
            op,
            operand: s,
            inputs: &inputs,
            result: rs,
            output,
        };
        if !lanes_are_safe(check, &lane) {
            return LaneFold::Unsafe;
        }
        out.push(output);
    }
    LaneFold::Fold(rs, out)
}

/// Which arm a `select` condition with known lanes picks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Every lane true: the first arm.
    True,
    /// Every lane false: the second arm.
    False,
    /// Lanes differ: a lane-wise mix ([`select_lanes`]) of constant arms.
    Mixed,
}

/// The arm a `select` with condition lanes `cond` picks.
pub fn select_pick(cond: &[u64]) -> Pick {
    if cond.iter().all(|&b| b != 0) {
        Pick::True
    } else if cond.iter().all(|&b| b == 0) {
        Pick::False
    } else {
        Pick::Mixed
    }
}

/// The lane-wise `select` of known arms; `None` when the lane counts differ.
pub fn select_lanes(cond: &[u64], t: &[u64], f: &[u64]) -> Option<LaneBits> {
    (t.len() == cond.len() && f.len() == cond.len()).then(|| {
        (0..cond.len())
            .map(|i| sem::select(cond[i], t[i], f[i]))
            .collect()
    })
}

fn evaluate_structural(module: &mut Module, c: &Candidate) -> Outcome {
    if c.op == Opcode::Select {
        return evaluate_select(module, c);
    }
    let Some(consts) = c.all_consts() else {
        return Outcome::Keep;
    };
    let e: SmallVec<[Elem; 4]> = consts.iter().map(|&k| Elem::Const(k)).collect();
    let built = match (c.op, e.as_slice()) {
        (Opcode::Extract, &[agg]) => extract_path(module, agg, &c.indices).map(Built::Elem),
        (Opcode::Insert, &[agg, v]) => insert_path(module, agg, &c.indices, v),
        (Opcode::ExtractDynamic, &[agg, _]) => in_range_index(module, agg, consts[1])
            .and_then(|i| element(module, agg, i).map(Built::Elem)),
        (Opcode::InsertDynamic, &[agg, v, _]) => {
            in_range_index(module, agg, consts[2]).and_then(|i| insert_path(module, agg, &[i], v))
        }
        (Opcode::Construct, parts) => construct(module, c.result_ty, parts),
        (Opcode::Splat, &[x]) => element_count(&module.types, c.result_ty)
            .map(|n| Built::Composite(c.result_ty, vec![Built::Elem(x); n as usize])),
        (Opcode::Shuffle, &[a, b]) => shuffle(module, c.result_ty, a, b, &c.indices),
        _ => None,
    };
    match built {
        Some(b) if built_type(module, &b) == Some(c.result_ty) => {
            Outcome::Fold(Folded::Const(b), FoldKind::Composite)
        }
        Some(_) | None => Outcome::Keep,
    }
}

fn built_type(module: &Module, b: &Built) -> Option<Type> {
    match b {
        Built::Elem(e) => elem_type(module, *e),
        Built::Composite(t, _) | Built::Lanes(t, _, _) => Some(*t),
    }
}

/// `select` with a constant condition: a scalar (or uniform vector) condition picks an
/// arm whatever the arms are; a mixed vector condition needs constant arms.
fn evaluate_select(module: &Module, c: &Candidate) -> Outcome {
    let (Some(Some(cond)), Some(&t), Some(&f)) = (c.consts.first(), c.args.get(1), c.args.get(2))
    else {
        return Outcome::Keep;
    };
    let Some((_, cl)) = lanes(module, *cond) else {
        return Outcome::Keep;
    };
    match select_pick(&cl) {
        Pick::True => return Outcome::Fold(Folded::Value(t), FoldKind::Select),
        Pick::False => return Outcome::Fold(Folded::Value(f), FoldKind::Select),
        Pick::Mixed => {}
    }
    let arm = |i: usize| {
        c.consts
            .get(i)
            .copied()
            .flatten()
            .and_then(|k| lanes(module, k))
    };
    let (Some((s, tl)), Some((_, fl))) = (arm(1), arm(2)) else {
        return Outcome::Keep;
    };
    match select_lanes(&cl, &tl, &fl) {
        Some(out) => Outcome::Fold(
            Folded::Const(Built::Lanes(c.result_ty, s, out)),
            FoldKind::Select,
        ),
        None => Outcome::Keep,
    }
}

fn extract_path(module: &mut Module, agg: Elem, path: &[u32]) -> Option<Elem> {
    path.iter().try_fold(agg, |e, &i| element(module, e, i))
}

/// `agg` with the element at `path` replaced by `v`, rebuilt level by level.
fn insert_path(module: &mut Module, agg: Elem, path: &[u32], v: Elem) -> Option<Built> {
    let Some((&first, rest)) = path.split_first() else {
        return Some(Built::Elem(v));
    };
    let ty = elem_type(module, agg)?;
    let parts = elements(module, agg)?;
    let inner = insert_path(module, *parts.get(first as usize)?, rest, v)?;
    let rebuilt = parts
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            if i == first as usize {
                inner.clone()
            } else {
                Built::Elem(p)
            }
        })
        .collect();
    Some(Built::Composite(ty, rebuilt))
}

/// The value of the constant index `idx` when it is in range for `agg`.
fn in_range_index(module: &Module, agg: Elem, idx: Const) -> Option<u32> {
    let n = element_count(&module.types, elem_type(module, agg)?)?;
    let (s, bits) = module.const_scalar_value(idx)?;
    // Canonical bits of a negative signed index are huge: out of range.
    (s.is_integer() && bits < u64::from(n)).then_some(bits as u32)
}

/// `construct`: a vector from scalars and vectors (their lanes, in order); any other
/// composite from its elements.
fn construct(module: &mut Module, ty: Type, parts: &[Elem]) -> Option<Built> {
    let vector = scalar_or_vector(&module.types, ty).is_some_and(|(_, n)| n > 1);
    let mut out = Vec::new();
    for &p in parts {
        let pt = elem_type(module, p)?;
        let lanes_of_part =
            vector && scalar_or_vector(&module.types, pt).is_some_and(|(_, n)| n > 1);
        if lanes_of_part {
            out.extend(elements(module, p)?.into_iter().map(Built::Elem));
        } else {
            out.push(Built::Elem(p));
        }
    }
    (element_count(&module.types, ty)? as usize == out.len()).then_some(Built::Composite(ty, out))
}

fn shuffle(module: &mut Module, ty: Type, a: Elem, b: Elem, lanes: &[u32]) -> Option<Built> {
    let mut all = elements(module, a)?;
    all.extend(elements(module, b)?);
    let picked = lanes
        .iter()
        .map(|&i| all.get(i as usize).copied().map(Built::Elem))
        .collect::<Option<Vec<_>>>()?;
    Some(Built::Composite(ty, picked))
}
