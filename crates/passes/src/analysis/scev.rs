//! Scalar evolution: what integer values of a function are, in terms of constants,
//! loop-invariant values and add-recurrences, and how often counted loops run.
//!
//! **Expressions** ([`Scev`]) describe one integer scalar value (signed or unsigned, 8 to
//! 64 bits): a constant (its canonical bits), an opaque value ([`Scev::Unknown`]), the
//! add-recurrence `{start, +, step}` of a loop — the value is `start + k * step` in the
//! loop's `k`-th iteration (`k = 0` the first time the header runs), wrapping at the
//! type's width — and sums and products of loop-invariant expressions. A header
//! parameter is an add-recurrence when the loop is entered by exactly one edge from
//! outside (its argument is `start`) and every back edge passes `add p, s`, `add s, p` or
//! `sub p, s` of the parameter `p` itself with one loop-invariant `s` (the `step`; `sub`
//! needs a constant, negated). `add`, `sub` and `mul` of recurrences and invariants
//! fold: `{a, +, s} + c = {a + c, +, s}`, `{a, +, s} * c = {a * c, +, s * c}` (constants
//! only for products), constants fold with wrapping arithmetic at the type's width.
//! Anything else is `Unknown(v)`.
//!
//! **Trip counts** ([`ScalarEvolution::exit_test`], [`ScalarEvolution::trip_count`]): a
//! loop is *counted* when it has exactly one exit edge, from a block that dominates every
//! latch (so the test runs once per iteration), ending in `cond_br (cmp x, b)` (or
//! `cmp b, x`) with one target inside the loop, where `x` is an add-recurrence of the loop
//! and `b` is defined outside it. The trip count is the number of times the test *stays*
//! in the loop before it leaves; it is constant when `x`'s start and step and `b` are.
//! [`stays`] computes it in closed form with checked 128-bit arithmetic over the values'
//! mathematical range: when the recurrence would leave the type's range (wrap) before the
//! test leaves, when the step points away from the bound, or when a step of zero keeps
//! the loop going, there is no count (`None`) — never a wrong one.
//!
//! Invariants: a snapshot of the function as it is; recompute after any change. Recursion
//! into operands is bounded by [`MAX_DEPTH`] (deeper chains are `Unknown`), so no input
//! exhausts the stack.
//!
//! What it does **not** do: no recurrences of higher order (`{a, +, {b, +, c}}`), no
//! multiplication of two non-constant expressions, no casts (`convert`) or shifts through
//! recurrences, no exit tests of more than one exit or of `switch_br`, and no symbolic
//! (non-constant) trip-count expressions beyond [`ExitTest`]'s parts.

use crate::analysis::loops::{Loop, LoopInfo};
use cranelift_entity::SecondaryMap;
use oxir_ir::constants::canonical_scalar_bits;
use oxir_ir::instructions::Payload;
use oxir_ir::{
    Block, Function, Inst, Module, Opcode, Scalar, ScalarKind, TypeData, Value, ValueDef,
};

/// Operand levels an expression is followed through before it becomes `Unknown`.
pub const MAX_DEPTH: u32 = 48;

/// A scalar-evolution expression of one integer value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scev {
    /// A constant: canonical bits of the value's type.
    Constant(u64),
    /// A value described no further.
    Unknown(Value),
    /// `{start, +, step}` in `lp`: `start + k * step` in the loop's `k`-th iteration.
    AddRec {
        lp: Loop,
        start: Box<Scev>,
        step: Box<Scev>,
    },
    /// The (wrapping) sum of two loop-invariant expressions.
    Add(Box<Scev>, Box<Scev>),
    /// The (wrapping) product of two loop-invariant expressions.
    Mul(Box<Scev>, Box<Scev>),
}

impl Scev {
    /// The constant's bits, for a constant.
    pub fn as_constant(&self) -> Option<u64> {
        match self {
            Scev::Constant(c) => Some(*c),
            Scev::Unknown(_) | Scev::AddRec { .. } | Scev::Add(..) | Scev::Mul(..) => None,
        }
    }

    /// `(start, step)` when this is an add-recurrence of `lp` with constant start and step.
    pub fn constant_rec(&self, lp: Loop) -> Option<(u64, u64)> {
        match self {
            Scev::AddRec { lp: l, start, step } if *l == lp => {
                Some((start.as_constant()?, step.as_constant()?))
            }
            Scev::Constant(_)
            | Scev::Unknown(_)
            | Scev::AddRec { .. }
            | Scev::Add(..)
            | Scev::Mul(..) => None,
        }
    }
}

/// The comparison a counted loop's test must keep true to stay in the loop, on
/// `(recurrence, bound)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StayPredicate {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl StayPredicate {
    fn of(op: Opcode) -> Option<StayPredicate> {
        match op {
            Opcode::Lt => Some(StayPredicate::Lt),
            Opcode::Le => Some(StayPredicate::Le),
            Opcode::Gt => Some(StayPredicate::Gt),
            Opcode::Ge => Some(StayPredicate::Ge),
            Opcode::Eq => Some(StayPredicate::Eq),
            Opcode::Ne => Some(StayPredicate::Ne),
            // wildcard-ok: only the six integer comparisons make a counted test.
            _ => None,
        }
    }

    /// The predicate that holds exactly when this one does not.
    pub fn negated(self) -> StayPredicate {
        match self {
            StayPredicate::Lt => StayPredicate::Ge,
            StayPredicate::Le => StayPredicate::Gt,
            StayPredicate::Gt => StayPredicate::Le,
            StayPredicate::Ge => StayPredicate::Lt,
            StayPredicate::Eq => StayPredicate::Ne,
            StayPredicate::Ne => StayPredicate::Eq,
        }
    }

    /// The predicate on `(b, a)` equivalent to this one on `(a, b)`.
    pub fn swapped(self) -> StayPredicate {
        match self {
            StayPredicate::Lt => StayPredicate::Gt,
            StayPredicate::Le => StayPredicate::Ge,
            StayPredicate::Gt => StayPredicate::Lt,
            StayPredicate::Ge => StayPredicate::Le,
            StayPredicate::Eq | StayPredicate::Ne => self,
        }
    }
}

/// The counted test of a loop (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExitTest {
    /// The block whose `cond_br` leaves the loop.
    pub exiting: Block,
    /// That `cond_br`.
    pub branch: Inst,
    /// Whether the `cond_br`'s then edge stays in the loop.
    pub then_stays: bool,
    /// The recurrence compared (a value of the loop).
    pub iv: Value,
    /// Its expression: an add-recurrence of the loop.
    pub iv_scev: Scev,
    /// The loop-invariant bound.
    pub bound: Value,
    /// What must hold of `(iv, bound)` to stay.
    pub stay: StayPredicate,
    /// The compared type.
    pub scalar: Scalar,
}

/// Scalar evolution of one function (see the module docs).
pub struct ScalarEvolution<'a> {
    module: &'a Module,
    func: &'a Function,
    loops: &'a LoopInfo,
    cache: SecondaryMap<Value, Option<Scev>>,
}

impl<'a> ScalarEvolution<'a> {
    pub fn new(module: &'a Module, func: &'a Function, loops: &'a LoopInfo) -> Self {
        ScalarEvolution {
            module,
            func,
            loops,
            cache: SecondaryMap::new(),
        }
    }

    /// The integer scalar type of `v`, if it has one.
    pub fn int_scalar(&self, v: Value) -> Option<Scalar> {
        let v = self.func.dfg.resolve(v);
        if !self.func.dfg.value_is_valid(v) {
            return None;
        }
        match self.module.types.try_get(self.func.dfg.value_type(v))? {
            TypeData::Scalar(s) if matches!(s.kind, ScalarKind::Sint | ScalarKind::Uint) => {
                Some(*s)
            }
            // wildcard-ok: every other type has no scalar evolution.
            _ => None,
        }
    }

    /// The expression of `v` (alias-resolved); `Unknown(v)` for anything not described.
    pub fn get(&mut self, v: Value) -> Scev {
        self.get_at(v, 0)
    }

    fn get_at(&mut self, v: Value, depth: u32) -> Scev {
        let v = self.func.dfg.resolve(v);
        if let Some(Some(s)) = self.cache.get(v) {
            return s.clone();
        }
        let Some(scalar) = self.int_scalar(v) else {
            return Scev::Unknown(v);
        };
        let s = if depth > MAX_DEPTH {
            Scev::Unknown(v)
        } else {
            self.compute(v, scalar, depth)
        };
        self.cache[v] = Some(s.clone());
        s
    }

    fn compute(&mut self, v: Value, scalar: Scalar, depth: u32) -> Scev {
        match self.func.dfg.value_def(v) {
            ValueDef::Const(c) => match self.module.const_scalar_value(c) {
                Some((_, bits)) => Scev::Constant(canonical_scalar_bits(scalar, bits)),
                None => Scev::Unknown(v),
            },
            ValueDef::Param(block, index) => self
                .header_recurrence(block, index as usize, depth)
                .unwrap_or(Scev::Unknown(v)),
            ValueDef::Result(inst) => self.arithmetic(v, inst, scalar, depth),
            ValueDef::Global(_) | ValueDef::Alias(_) | ValueDef::Detached => Scev::Unknown(v),
        }
    }

    fn arithmetic(&mut self, v: Value, inst: Inst, scalar: Scalar, depth: u32) -> Scev {
        let data = self.func.dfg.inst(inst);
        let (op, args) = (data.opcode, data.args.clone());
        let [a, b] = args.as_slice() else {
            return Scev::Unknown(v);
        };
        let (a, b) = (self.get_at(*a, depth + 1), self.get_at(*b, depth + 1));
        let folded = match op {
            Opcode::Add => self.add(a, b, scalar),
            Opcode::Sub => match b.as_constant() {
                Some(c) => self.add(a, Scev::Constant(c.wrapping_neg()), scalar),
                None => None,
            },
            Opcode::Mul => self.mul(a, b, scalar),
            // wildcard-ok: only add, sub and mul fold; everything else is opaque.
            _ => None,
        };
        folded.unwrap_or(Scev::Unknown(v))
    }

    /// Whether `s` is invariant in `lp` (no recurrence of `lp` or a loop inside it, every
    /// unknown defined outside `lp`).
    pub fn is_invariant(&self, s: &Scev, lp: Loop) -> bool {
        match s {
            Scev::Constant(_) => true,
            Scev::Unknown(v) => self.loops.defines_outside(self.func, lp, *v),
            // A recurrence of `lp` or of a loop inside it changes in `lp`; one of an
            // enclosing or a disjoint loop does not.
            Scev::AddRec { lp: l, .. } => !self.loops.contains(lp, self.loops.data(*l).header),
            Scev::Add(a, b) | Scev::Mul(a, b) => {
                self.is_invariant(a, lp) && self.is_invariant(b, lp)
            }
        }
    }

    fn add(&self, a: Scev, b: Scev, scalar: Scalar) -> Option<Scev> {
        let canon = |x: u64| canonical_scalar_bits(scalar, x);
        match (a, b) {
            (Scev::Constant(x), Scev::Constant(y)) => {
                Some(Scev::Constant(canon(x.wrapping_add(y))))
            }
            (
                Scev::AddRec { lp, start, step },
                Scev::AddRec {
                    lp: l2,
                    start: s2,
                    step: t2,
                },
            ) if lp == l2 => Some(Scev::AddRec {
                lp,
                start: Box::new(self.add(*start, *s2, scalar)?),
                step: Box::new(self.add(*step, *t2, scalar)?),
            }),
            (Scev::AddRec { lp, start, step }, x) | (x, Scev::AddRec { lp, start, step })
                if self.is_invariant(&x, lp) =>
            {
                Some(Scev::AddRec {
                    lp,
                    start: Box::new(self.add(*start, x, scalar)?),
                    step,
                })
            }
            (Scev::AddRec { .. }, _) | (_, Scev::AddRec { .. }) => None,
            (x, y) => Some(Scev::Add(Box::new(x), Box::new(y))),
        }
    }

    fn mul(&self, a: Scev, b: Scev, scalar: Scalar) -> Option<Scev> {
        let canon = |x: u64| canonical_scalar_bits(scalar, x);
        match (a, b) {
            (Scev::Constant(x), Scev::Constant(y)) => {
                Some(Scev::Constant(canon(x.wrapping_mul(y))))
            }
            (Scev::AddRec { lp, start, step }, Scev::Constant(c))
            | (Scev::Constant(c), Scev::AddRec { lp, start, step }) => Some(Scev::AddRec {
                lp,
                start: Box::new(self.mul(*start, Scev::Constant(c), scalar)?),
                step: Box::new(self.mul(*step, Scev::Constant(c), scalar)?),
            }),
            (Scev::AddRec { .. }, _) | (_, Scev::AddRec { .. }) => None,
            (x, y) => Some(Scev::Mul(Box::new(x), Box::new(y))),
        }
    }

    /// Parameter `index` of `block` as a recurrence of the loop `block` heads.
    fn header_recurrence(&mut self, block: Block, index: usize, depth: u32) -> Option<Scev> {
        let lp = self.loops.loop_with_header(block)?;
        let f = self.func;
        let param = *f.dfg.block_params(block).get(index)?;
        let mut start = None;
        let mut step: Option<Value> = None;
        let mut negate = false;
        for pred in self.loops.cfg().preds(block).collect::<Vec<_>>() {
            let term = f.terminator(pred)?;
            let inside = self.loops.contains(lp, pred);
            for edge in f.dfg.inst(term).payload.edges() {
                if edge.block != block {
                    continue;
                }
                let arg = *edge.args.get(index)?;
                if !inside {
                    if start.replace(arg).is_some() {
                        return None; // entered by more than one edge
                    }
                    continue;
                }
                let (s, neg) = self.increment_of(arg, param, lp)?;
                if step.is_some_and(|old| f.dfg.resolve(old) != f.dfg.resolve(s))
                    || (step.is_some() && neg != negate)
                {
                    return None;
                }
                step = Some(s);
                negate = neg;
            }
        }
        let scalar = self.int_scalar(param)?;
        let start = self.get_at(start?, depth + 1);
        let mut step = self.get_at(step?, depth + 1);
        if negate {
            step = Scev::Constant(canonical_scalar_bits(
                scalar,
                step.as_constant()?.wrapping_neg(),
            ));
        }
        Some(Scev::AddRec {
            lp,
            start: Box::new(start),
            step: Box::new(step),
        })
    }

    /// `(s, negated)` when `arg` is `add param, s`, `add s, param` or `sub param, s` with
    /// `s` defined outside `lp` (`sub` only with a constant `s`).
    fn increment_of(&self, arg: Value, param: Value, lp: Loop) -> Option<(Value, bool)> {
        let f = self.func;
        let ValueDef::Result(inst) = f.dfg.value_def(arg) else {
            return None;
        };
        let data = f.dfg.inst(inst);
        let [a, b] = data.args.as_slice() else {
            return None;
        };
        let (a, b) = (f.dfg.resolve(*a), f.dfg.resolve(*b));
        let param = f.dfg.resolve(param);
        let outside = |v: Value| self.loops.defines_outside(f, lp, v);
        match data.opcode {
            Opcode::Add if a == param && outside(b) => Some((b, false)),
            Opcode::Add if b == param && outside(a) => Some((a, false)),
            Opcode::Sub if a == param && matches!(f.dfg.value_def(b), ValueDef::Const(_)) => {
                Some((b, true))
            }
            // wildcard-ok: only add and sub increments make a recurrence.
            _ => None,
        }
    }

    /// The counted exit test of `lp` (see the module docs).
    pub fn exit_test(&mut self, lp: Loop) -> Option<ExitTest> {
        let data = self.loops.data(lp);
        let [(exiting, _)] = data.exits.as_slice() else {
            return None;
        };
        let exiting = *exiting;
        let dom = self.loops.dom_tree();
        if !data.latches.iter().all(|&l| dom.dominates(exiting, l)) {
            return None;
        }
        let f = self.func;
        let branch = f.terminator(exiting)?;
        let Payload::CondBranch {
            then_dest,
            else_dest,
        } = &f.dfg.inst(branch).payload
        else {
            return None;
        };
        let then_stays = self.loops.contains(lp, then_dest.block);
        if then_stays == self.loops.contains(lp, else_dest.block) {
            return None;
        }
        let cond = *f.dfg.inst(branch).args.first()?;
        let ValueDef::Result(cmp) = f.dfg.value_def(cond) else {
            return None;
        };
        let cmp_data = f.dfg.inst(cmp);
        let pred = StayPredicate::of(cmp_data.opcode)?;
        let [x, y] = cmp_data.args.as_slice() else {
            return None;
        };
        let (x, y) = (f.dfg.resolve(*x), f.dfg.resolve(*y));
        let pred = if then_stays { pred } else { pred.negated() };
        let scalar = self.int_scalar(x)?;
        let (sx, sy) = (self.get(x), self.get(y));
        let outside = |v: Value| self.loops.defines_outside(f, lp, v);
        let is_rec = |s: &Scev| matches!(s, Scev::AddRec { lp: l, .. } if *l == lp);
        let (iv, iv_scev, bound, stay) = if is_rec(&sx) && outside(y) {
            (x, sx, y, pred)
        } else if is_rec(&sy) && outside(x) {
            (y, sy, x, pred.swapped())
        } else {
            return None;
        };
        Some(ExitTest {
            exiting,
            branch,
            then_stays,
            iv,
            iv_scev,
            bound,
            stay,
            scalar,
        })
    }

    /// The constant trip count of `lp`: how many times its counted test stays in the loop.
    pub fn trip_count(&mut self, lp: Loop) -> Option<u64> {
        let test = self.exit_test(lp)?;
        let (start, step) = test.iv_scev.constant_rec(lp)?;
        let bound = self.get(test.bound).as_constant()?;
        stays(test.stay, test.scalar, start, step, bound)
    }
}

/// The mathematical value of `bits` in `scalar`'s type.
pub fn value_of(scalar: Scalar, bits: u64) -> i128 {
    let bits = canonical_scalar_bits(scalar, bits);
    match scalar.kind {
        ScalarKind::Sint => i128::from(bits as i64),
        ScalarKind::Uint | ScalarKind::Bool | ScalarKind::Float => i128::from(bits),
    }
}

/// The step `bits` as a signed amount of `scalar`'s width.
pub fn step_of(scalar: Scalar, bits: u64) -> i128 {
    let signed = Scalar {
        kind: ScalarKind::Sint,
        bits: scalar.bits,
    };
    value_of(signed, bits)
}

/// The smallest and largest value of `scalar`'s type.
pub fn range_of(scalar: Scalar) -> (i128, i128) {
    let width = u32::from(scalar.bits.min(64));
    match scalar.kind {
        ScalarKind::Sint => (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1),
        ScalarKind::Uint | ScalarKind::Bool | ScalarKind::Float => (0, (1i128 << width) - 1),
    }
}

/// How many times `x stay bound` holds for `x = start, start + step, ...` before it first
/// fails, computed without wrapping: `None` when the recurrence would leave the type's
/// range before the test fails, or the test never fails (see the module docs).
pub fn stays(
    stay: StayPredicate,
    scalar: Scalar,
    start: u64,
    step: u64,
    bound: u64,
) -> Option<u64> {
    let (a, s, b) = (
        value_of(scalar, start),
        step_of(scalar, step),
        value_of(scalar, bound),
    );
    let (lo, hi) = range_of(scalar);
    let holds = |x: i128| match stay {
        StayPredicate::Lt => x < b,
        StayPredicate::Le => x <= b,
        StayPredicate::Gt => x > b,
        StayPredicate::Ge => x >= b,
        StayPredicate::Eq => x == b,
        StayPredicate::Ne => x != b,
    };
    if !holds(a) {
        return Some(0);
    }
    let count: i128 = match stay {
        StayPredicate::Lt | StayPredicate::Le if s > 0 => {
            // First k with a + k*s > b (Le) or >= b (Lt).
            let limit = if stay == StayPredicate::Le {
                b.checked_add(1)?
            } else {
                b
            };
            ceil_div(limit.checked_sub(a)?, s)?
        }
        StayPredicate::Gt | StayPredicate::Ge if s < 0 => {
            let limit = if stay == StayPredicate::Ge {
                b.checked_sub(1)?
            } else {
                b
            };
            ceil_div(a.checked_sub(limit)?, s.checked_neg()?)?
        }
        StayPredicate::Ne if s != 0 => {
            let d = b.checked_sub(a)?;
            if d.checked_rem(s)? != 0 || d.checked_div(s)? < 0 {
                return None;
            }
            d.checked_div(s)?
        }
        StayPredicate::Eq if s != 0 => 1,
        StayPredicate::Lt
        | StayPredicate::Le
        | StayPredicate::Gt
        | StayPredicate::Ge
        | StayPredicate::Ne
        | StayPredicate::Eq => return None,
    };
    // The value the test fails on must be representable: no wrap on the way.
    let last = a.checked_add(count.checked_mul(s)?)?;
    if last < lo || last > hi {
        return None;
    }
    u64::try_from(count).ok()
}

/// `ceil(n / d)` for `n >= 0`, `d > 0`.
fn ceil_div(n: i128, d: i128) -> Option<i128> {
    if n < 0 || d <= 0 {
        return None;
    }
    n.checked_add(d.checked_sub(1)?)?.checked_div(d)
}

#[cfg(test)]
#[path = "scev_tests.rs"]
mod tests;
