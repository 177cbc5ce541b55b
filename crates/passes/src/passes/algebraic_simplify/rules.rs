//! The rewrite rules, as data: [`RULES`] lists every rule with its name, family, opcode,
//! the scalar kinds it applies to, its float-safety flag, its pattern and its
//! replacement; [`COMMUTATIVE`] lists the operations whose constant operand is moved to
//! the right. The matcher ([`Pattern::find`]) and the driver read the tables; adding a
//! rule is adding a row (see `README.md` in this folder for the rules about rules).

use crate::const_values::{const_of, lanes, scalar_or_vector};
use oxir_ir::scalar_semantics::from_f64;
use oxir_ir::{Function, Module, Opcode, Scalar, ScalarKind, Value, ValueDef};

/// Which scalar kinds a rule applies to (of the value the rule is about: the operands of
/// arithmetic and comparisons, the arms of `select`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Kinds {
    /// Signed integers.
    pub sint: bool,
    /// Unsigned integers.
    pub uint: bool,
    /// `bool`.
    pub bool: bool,
    /// Floats.
    pub float: bool,
    /// Any type, composites included (no scalar is inspected).
    pub any: bool,
}

const fn kinds(int: bool, bool: bool, float: bool) -> Kinds {
    Kinds {
        sint: int,
        uint: int,
        bool,
        float,
        any: false,
    }
}

/// Integers.
pub const INT: Kinds = kinds(true, false, false);
/// Unsigned integers.
pub const UINT: Kinds = Kinds {
    sint: false,
    ..kinds(true, false, false)
};
/// Integers and bools.
pub const INT_BOOL: Kinds = kinds(true, true, false);
/// Integers and floats.
pub const NUM: Kinds = kinds(true, false, true);
/// Floats.
pub const FLOAT: Kinds = kinds(false, false, true);
/// Every scalar kind (comparisons).
pub const ALL_SCALARS: Kinds = kinds(true, true, true);
/// Any type.
pub const ANY: Kinds = Kinds {
    sint: true,
    uint: true,
    bool: true,
    float: true,
    any: true,
};

impl Kinds {
    /// Whether values of scalar type `s` (or of a composite, when `s` is `None`) match.
    pub fn admit(self, s: Option<Scalar>) -> bool {
        match s.map(|s| s.kind) {
            None => self.any,
            Some(ScalarKind::Sint) => self.sint,
            Some(ScalarKind::Uint) => self.uint,
            Some(ScalarKind::Bool) => self.bool,
            Some(ScalarKind::Float) => self.float,
        }
    }
}

/// A constant every lane of an operand must equal, per scalar type.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum K {
    /// 0, `false`, `+0.0`.
    Zero,
    /// `-0.0` (floats only).
    NegZero,
    /// 1, `1.0` (not bools).
    One,
    /// Every bit set: -1, `MAX` unsigned, `true` (not floats).
    AllOnes,
}

impl K {
    /// The canonical bits of this constant in `s`, when it has one there.
    pub fn bits(self, s: Scalar) -> Option<u64> {
        match (self, s.kind) {
            (K::Zero, _) => Some(0),
            (K::NegZero, ScalarKind::Float) => Some(from_f64(s, -0.0)),
            (K::One, ScalarKind::Float) => Some(from_f64(s, 1.0)),
            (K::One, ScalarKind::Sint | ScalarKind::Uint) => Some(1),
            (K::AllOnes, ScalarKind::Sint | ScalarKind::Uint | ScalarKind::Bool) => {
                Some(oxir_ir::scalar_semantics::canon(s, u64::MAX))
            }
            (K::NegZero, ScalarKind::Sint | ScalarKind::Uint | ScalarKind::Bool)
            | (K::One, ScalarKind::Bool)
            | (K::AllOnes, ScalarKind::Float) => None,
        }
    }
}

/// What a rule looks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Operand `index` is a constant with every lane `K`.
    Const(usize, K),
    /// The two operands are the same value.
    SameOperands,
    /// `select c, x, x`.
    SameArms,
    /// The operand is the result of the same opcode: `op (op x)` finds `x`.
    Involution,
    /// The operand is the result of the same opcode (`op (op x)`); finds the operand
    /// `op x` itself (for idempotent operations, with [`Replacement::Operand`]).
    Idempotent,
    /// Always matches (the kinds decide: `abs` of an unsigned integer).
    Always,
    /// `extract (construct p0, p1, ...), [i]` finds `pi` (non-vector composites, or
    /// vectors built from scalars only).
    ExtractOfConstruct,
    /// `extract (splat x), [i]` finds `x`.
    ExtractOfSplat,
    /// `extract (insert agg, v, P), P` finds `v`.
    ExtractOfInsert,
    /// The result has the operand's type (`convert`, `bitcast`).
    SameType,
    /// `bitcast (bitcast x)` of `x`'s type finds `x`.
    BitcastRoundTrip,
}

/// What replaces the instruction's result.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Replacement {
    /// Operand `index`.
    Operand(usize),
    /// A constant of the result type with every lane `K`.
    Const(K),
    /// The value the pattern found.
    Found,
}

/// Rule families (one counter each).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Family {
    /// `x op identity → x`.
    Identity,
    /// `x op absorbing → absorbing` (`mul x, 0`, `and x, 0`).
    Absorbing,
    /// `x op x → x` or `→ constant` (`and x, x`, `xor x, x`, `eq x, x`).
    SameOperands,
    /// `op (op x) → x`.
    Involution,
    /// `select` with equal arms or a constant condition.
    Select,
    /// Projections of constructions and insertions.
    Composite,
    /// No-op conversions and bitcast round trips.
    Conversion,
    /// Built-in functions that are the identity on their operand (`abs` of an unsigned
    /// integer) or idempotent (`floor (floor x)`).
    Builtin,
}

/// One rewrite rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// A short kebab-case name (diagnostics, tests).
    pub name: &'static str,
    /// The family (which counter it bumps).
    pub family: Family,
    /// The opcode of the instruction rewritten.
    pub op: Opcode,
    /// The scalar kinds it applies to.
    pub kinds: Kinds,
    /// Not valid for every IEEE value (a `-0.0`, a NaN or an infinity breaks it): only
    /// `fast-math-simplify` applies it.
    pub float_unsafe: bool,
    /// What it looks for.
    pub pattern: Pattern,
    /// What replaces the result.
    pub replacement: Replacement,
}

macro_rules! rules {
    ($($name:literal: $family:ident, $op:ident, $kinds:ident, $unsafe:literal, $pat:expr => $rep:expr;)*) => {
        /// Every rule, in the order they are tried (the first match wins).
        pub const RULES: &[Rule] = &[$(Rule {
            name: $name,
            family: Family::$family,
            op: Opcode::$op,
            kinds: $kinds,
            float_unsafe: $unsafe,
            pattern: $pat,
            replacement: $rep,
        }),*];
    };
}

use Pattern as P;
use Replacement as R;

rules! {
    // --- identities: x op e → x -------------------------------------------------------
    "add-zero": Identity, Add, INT, false, P::Const(1, K::Zero) => R::Operand(0);
    // x + -0.0 = x for every x, -0.0 included.
    "fadd-neg-zero": Identity, Add, FLOAT, false, P::Const(1, K::NegZero) => R::Operand(0);
    "sub-zero": Identity, Sub, NUM, false, P::Const(1, K::Zero) => R::Operand(0);
    "mul-one": Identity, Mul, NUM, false, P::Const(1, K::One) => R::Operand(0);
    "div-one": Identity, Div, INT, false, P::Const(1, K::One) => R::Operand(0);
    "and-all-ones": Identity, And, INT_BOOL, false, P::Const(1, K::AllOnes) => R::Operand(0);
    "or-zero": Identity, Or, INT_BOOL, false, P::Const(1, K::Zero) => R::Operand(0);
    "xor-zero": Identity, Xor, INT_BOOL, false, P::Const(1, K::Zero) => R::Operand(0);
    "shl-zero": Identity, Shl, INT, false, P::Const(1, K::Zero) => R::Operand(0);
    "shr-zero": Identity, Shr, INT, false, P::Const(1, K::Zero) => R::Operand(0);
    "rotl-zero": Identity, Rotl, INT, false, P::Const(1, K::Zero) => R::Operand(0);
    "rotr-zero": Identity, Rotr, INT, false, P::Const(1, K::Zero) => R::Operand(0);
    // --- absorbing elements -----------------------------------------------------------
    "mul-zero": Absorbing, Mul, INT, false, P::Const(1, K::Zero) => R::Const(K::Zero);
    "rem-one": Absorbing, Rem, INT, false, P::Const(1, K::One) => R::Const(K::Zero);
    "and-zero": Absorbing, And, INT_BOOL, false, P::Const(1, K::Zero) => R::Const(K::Zero);
    "or-all-ones": Absorbing, Or, INT_BOOL, false, P::Const(1, K::AllOnes) => R::Const(K::AllOnes);
    // --- the same operand twice -------------------------------------------------------
    "sub-self": SameOperands, Sub, INT, false, P::SameOperands => R::Const(K::Zero);
    "xor-self": SameOperands, Xor, INT_BOOL, false, P::SameOperands => R::Const(K::Zero);
    "and-self": SameOperands, And, INT_BOOL, false, P::SameOperands => R::Operand(0);
    "or-self": SameOperands, Or, INT_BOOL, false, P::SameOperands => R::Operand(0);
    "min-self": SameOperands, Min, NUM, false, P::SameOperands => R::Operand(0);
    "max-self": SameOperands, Max, NUM, false, P::SameOperands => R::Operand(0);
    "eq-self": SameOperands, Eq, INT_BOOL, false, P::SameOperands => R::Const(K::AllOnes);
    "ne-self": SameOperands, Ne, INT_BOOL, false, P::SameOperands => R::Const(K::Zero);
    "le-self": SameOperands, Le, INT, false, P::SameOperands => R::Const(K::AllOnes);
    "ge-self": SameOperands, Ge, INT, false, P::SameOperands => R::Const(K::AllOnes);
    "lt-self": SameOperands, Lt, INT, false, P::SameOperands => R::Const(K::Zero);
    "gt-self": SameOperands, Gt, INT, false, P::SameOperands => R::Const(K::Zero);
    // --- involutions ------------------------------------------------------------------
    "not-not": Involution, Not, INT_BOOL, false, P::Involution => R::Found;
    // Negation flips the sign bit: twice is the identity on every float, NaN included.
    "neg-neg": Involution, Neg, NUM, false, P::Involution => R::Found;
    // --- select -----------------------------------------------------------------------
    "select-same-arms": Select, Select, ANY, false, P::SameArms => R::Operand(1);
    "select-true": Select, Select, ANY, false, P::Const(0, K::AllOnes) => R::Operand(1);
    "select-false": Select, Select, ANY, false, P::Const(0, K::Zero) => R::Operand(2);
    // --- composites -------------------------------------------------------------------
    "extract-of-construct": Composite, Extract, ANY, false, P::ExtractOfConstruct => R::Found;
    "extract-of-splat": Composite, Extract, ANY, false, P::ExtractOfSplat => R::Found;
    "extract-of-insert": Composite, Extract, ANY, false, P::ExtractOfInsert => R::Found;
    // --- conversions ------------------------------------------------------------------
    "convert-same-type": Conversion, Convert, ANY, false, P::SameType => R::Operand(0);
    "bitcast-same-type": Conversion, Bitcast, ANY, false, P::SameType => R::Operand(0);
    "bitcast-round-trip": Conversion, Bitcast, ANY, false, P::BitcastRoundTrip => R::Found;
    // --- built-in functions -----------------------------------------------------------
    // (`min x, x`, `max x, x` and `select c, x, x` are the rows above.)
    // Unsigned integers are their own absolute value.
    "abs-unsigned": Builtin, Abs, UINT, false, P::Always => R::Operand(0);
    // abs clears the sign (integers: wrapping, abs MIN = MIN): twice is once.
    "abs-abs": Builtin, Abs, NUM, false, P::Idempotent => R::Operand(0);
    // sign is -1, 0 or 1, each its own sign (integers only: a float zero's sign may
    // come back as either zero on GPUs).
    "sign-sign": Builtin, Sign, INT, false, P::Idempotent => R::Operand(0);
    // Rounding an integer-valued float is exact in every rounding direction.
    "floor-floor": Builtin, Floor, FLOAT, false, P::Idempotent => R::Operand(0);
    "ceil-ceil": Builtin, Ceil, FLOAT, false, P::Idempotent => R::Operand(0);
    "trunc-trunc": Builtin, Trunc, FLOAT, false, P::Idempotent => R::Operand(0);
    "round-round": Builtin, Round, FLOAT, false, P::Idempotent => R::Operand(0);
    "round-even-round-even": Builtin, RoundEven, FLOAT, false, P::Idempotent => R::Operand(0);
    // A value in [0, 1] (or NaN) saturates to itself.
    "saturate-saturate": Builtin, Saturate, FLOAT, false, P::Idempotent => R::Operand(0);
    // --- fast math only: wrong for -0.0, NaN or infinities ----------------------------
    // -0.0 + 0.0 = +0.0.
    "fadd-zero": Identity, Add, FLOAT, true, P::Const(1, K::Zero) => R::Operand(0);
    // -0.0 - -0.0 = +0.0.
    "fsub-neg-zero": Identity, Sub, FLOAT, true, P::Const(1, K::NegZero) => R::Operand(0);
    // Division is approximated on GPUs; x / 1.0 is x only where it is exact.
    "fdiv-one": Identity, Div, FLOAT, true, P::Const(1, K::One) => R::Operand(0);
    // NaN * 0, inf * 0 are NaN; -1 * 0 is -0.0.
    "fmul-zero": Absorbing, Mul, FLOAT, true, P::Const(1, K::Zero) => R::Const(K::Zero);
    // inf - inf and NaN - NaN are NaN.
    "fsub-self": SameOperands, Sub, FLOAT, true, P::SameOperands => R::Const(K::Zero);
    // NaN compares unequal (and unordered) to itself.
    "feq-self": SameOperands, Eq, FLOAT, true, P::SameOperands => R::Const(K::AllOnes);
    "fne-self": SameOperands, Ne, FLOAT, true, P::SameOperands => R::Const(K::Zero);
    "fle-self": SameOperands, Le, FLOAT, true, P::SameOperands => R::Const(K::AllOnes);
    "fge-self": SameOperands, Ge, FLOAT, true, P::SameOperands => R::Const(K::AllOnes);
    "flt-self": SameOperands, Lt, FLOAT, true, P::SameOperands => R::Const(K::Zero);
    "fgt-self": SameOperands, Gt, FLOAT, true, P::SameOperands => R::Const(K::Zero);
}

/// The built-in functions whose rows `simplify-libcalls` runs (and `select`, whose
/// equal-arms row it shares): every other row is `algebraic-simplify`'s alone.
pub const BUILTIN_FUNCTIONS: &[Opcode] = &[
    Opcode::Abs,
    Opcode::Sign,
    Opcode::Min,
    Opcode::Max,
    Opcode::Floor,
    Opcode::Ceil,
    Opcode::Trunc,
    Opcode::Round,
    Opcode::RoundEven,
    Opcode::Saturate,
    Opcode::Select,
];

/// Commutative operations and the kinds on which swapping the operands changes nothing
/// (float `min`/`max` are left out: which zero or NaN they return may depend on order).
pub const COMMUTATIVE: &[(Opcode, Kinds)] = &[
    (Opcode::Add, NUM),
    (Opcode::Mul, NUM),
    (Opcode::And, INT_BOOL),
    (Opcode::Or, INT_BOOL),
    (Opcode::Xor, INT_BOOL),
    (Opcode::Min, INT),
    (Opcode::Max, INT),
    (Opcode::Eq, ALL_SCALARS),
    (Opcode::Ne, ALL_SCALARS),
];

/// The scalar of `v`'s type when it is a scalar or vector.
pub fn scalar_of(module: &Module, func: &Function, v: Value) -> Option<Scalar> {
    scalar_or_vector(&module.types, func.dfg.value_type(v)).map(|(s, _)| s)
}

/// Whether `v` is a constant whose every lane is `k`.
pub fn is_const(module: &Module, func: &Function, v: Value, k: K) -> bool {
    const_of(func, v)
        .and_then(|c| lanes(module, c))
        .is_some_and(|(s, l)| k.bits(s).is_some_and(|b| l.iter().all(|&x| x == b)))
}

/// The instruction defining `v`, with its opcode, operands and indices.
fn def(func: &Function, v: Value) -> Option<(Opcode, &[Value], &[u32])> {
    match func.dfg.value_def(v) {
        ValueDef::Result(i) => {
            let d = func.dfg.inst(i);
            Some((d.opcode, &d.args, d.payload.indices()))
        }
        ValueDef::Param(..)
        | ValueDef::Const(_)
        | ValueDef::Global(_)
        | ValueDef::Alias(_)
        | ValueDef::Detached => None,
    }
}

impl Pattern {
    /// Matches the instruction (`op`, operands `args`, literal indices `indices`, result
    /// `result`); returns the found value (for [`Replacement::Found`]; the result itself
    /// for patterns that find nothing) when it matches.
    pub fn find(
        self,
        module: &Module,
        func: &Function,
        (op, args, indices, result): (Opcode, &[Value], &[u32], Value),
    ) -> Option<Value> {
        let r = func.dfg.resolve(result);
        let same = |a: usize, b: usize| matches!((args.get(a), args.get(b)), (Some(x), Some(y)) if func.dfg.resolve(*x) == func.dfg.resolve(*y));
        let ty = |v: Value| func.dfg.value_type(v);
        let found = match self {
            Pattern::Const(i, k) => is_const(module, func, *args.get(i)?, k).then_some(r)?,
            Pattern::SameOperands => same(0, 1).then_some(r)?,
            Pattern::SameArms => same(1, 2).then_some(r)?,
            Pattern::Involution => match def(func, *args.first()?)? {
                (inner, [x], _) if inner == op => *x,
                _ => return None,
            },
            Pattern::Idempotent => match def(func, *args.first()?)? {
                (inner, [_], _) if inner == op => r,
                _ => return None,
            },
            Pattern::Always => r,
            Pattern::ExtractOfConstruct => {
                let [i] = indices else { return None };
                let (Opcode::Construct, parts, _) = def(func, *args.first()?)? else {
                    return None;
                };
                let part = *parts.get(*i as usize)?;
                // A vector's parts may be vectors: then part i is not lane i.
                let lane_parts = parts
                    .iter()
                    .all(|&p| scalar_or_vector(&module.types, ty(p)).is_some_and(|(_, n)| n == 1));
                let vector = scalar_or_vector(&module.types, ty(args[0])).is_some();
                (!vector || lane_parts).then_some(part)?
            }
            Pattern::ExtractOfSplat => {
                let [_] = indices else { return None };
                match def(func, *args.first()?)? {
                    (Opcode::Splat, [x], _) => *x,
                    _ => return None,
                }
            }
            Pattern::ExtractOfInsert => match def(func, *args.first()?)? {
                (Opcode::Insert, [_, v], path) if path == indices => *v,
                _ => return None,
            },
            Pattern::SameType => (ty(*args.first()?) == ty(result)).then_some(r)?,
            Pattern::BitcastRoundTrip => match def(func, *args.first()?)? {
                (Opcode::Bitcast, [x], _) if ty(*x) == ty(result) => *x,
                _ => return None,
            },
        };
        (ty(found) == ty(result)).then_some(found)
    }
}
