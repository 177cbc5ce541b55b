//! `algebraic-simplify` and `fast-math-simplify`: local rewrites by a table of rules
//! (pattern → replacement), [`rules::RULES`].
//!
//! **What it does.** For each instruction, in layout order:
//! 1. *Canonicalisation*: a commutative operation ([`rules::COMMUTATIVE`]) with a
//!    constant left operand and a non-constant right one has its operands swapped, so
//!    that each rule needs one form only (`add x, 0`, never also `add 0, x`). Float
//!    operations are not swapped when the constant has a NaN lane (which NaN propagates
//!    may depend on the order).
//! 2. *Rules*: the first rule of the table whose opcode, scalar kinds and pattern match
//!    replaces the instruction's result (by an operand, a value the pattern found, or a
//!    constant of the result type), and the instruction is removed.
//!
//! Sweeps repeat until one changes nothing, so `not (not (not (not x)))` becomes `x`.
//! Examples: `add x, 0 → x`, `mul x, 1 → x`, `mul x, 0 → 0` (integers), `sub x, x → 0`
//! (integers), `and x, x → x`, `xor x, x → 0`, `not (not x) → x`, `neg (neg x) → x`,
//! `select c, x, x → x`, `select true, x, y → x`, `eq x, x → true` (integers, bools),
//! `shl x, 0 → x`, `extract (construct a, b, c), [1] → b`,
//! `extract (insert agg, v, [p]), [p] → v`, `convert` to the operand's own type → the
//! operand, `bitcast (bitcast x)` back to `x`'s type → `x`.
//!
//! **Float safety.** Every rule carries `float_unsafe`: rules that are wrong for some
//! IEEE value (`x + 0.0 → x` is wrong for `-0.0`, `x * 0.0 → 0.0` for NaN, infinities
//! and negative `x`, `x - x → 0.0` for NaN and infinities, `x == x → true` for NaN) are
//! applied only by `fast-math-simplify`, which runs the same table with them enabled.
//! `algebraic-simplify` applies only rules that hold for every value of their kinds.
//!
//! Counters, one per rule family: `identity_count`, `absorbing_count`,
//! `same_operands_count`, `involution_count`, `select_count`, `composite_count`,
//! `conversion_count`, `builtin_count`; and `canonicalized_count` (operand swaps).
//!
//! **Built-in functions.** The rows for built-in functions (`abs` of an unsigned
//! integer, idempotent `abs`/`sign`/`floor`/`ceil`/`trunc`/`round`/`round_even`/
//! `saturate`, `min x, x`, `max x, x`, `select c, x, x`) are this table's too;
//! `simplify-libcalls` ([`crate::passes::simplify_libcalls`]) runs only them
//! ([`Mode::builtins_only`]), so each rewrite has one definition.
//!
//! ## What it does not do
//!
//! - No constant folding (all-constant operands are `const-fold`'s), no reassociation
//!   (`(x + 1) + 2`), no strength reduction (`mul x, 8 → shl x, 3` is not better code on
//!   GPUs), no distribution, and no commutative matching beyond canonicalisation.
//! - No rewrite that creates an instruction: every rule replaces a result by an existing
//!   value or a constant, so the code never grows.
//! - It does not touch terminators or instructions with semantic metadata
//!   ([`oxir_ir::Metadata::is_annotated`]), and leaves operations on matrices alone
//!   except the `ANY`-kind rules (select, composites, conversions).
//!
//! ## Example
//!
//! ```text
//! const c0: i32 = 0                    const c0: i32 = 0
//! callable @f(i32) -> i32 {            callable @f(i32) -> i32 {
//! block0(v0: i32):                     block0(v0: i32):
//!     v1: i32 = add c0, v0      ==>        return v0
//!     v2: i32 = xor v1, v1             }
//!     v3: i32 = or v0, v2
//!     return v3
//! }
//! ```

pub mod rules;

use crate::const_values::{const_of, lanes, lanes_const, scalar_or_vector};
use crate::pass_info;
use crate::util::{definitions, rewritable_instructions};
use oxir_ir::{Func, Function, Inst, Module, Opcode, Value};
use rules::{scalar_of, Family, Replacement, Rule, COMMUTATIVE, RULES};
use smallvec::SmallVec;
use std::sync::OnceLock;

pass_info! {
    pass: "algebraic-simplify",
    /// Counters of `algebraic-simplify` and `fast-math-simplify`.
    pub struct AlgebraicSimplifyInfo {
        /// Identities removed (`add x, 0`, `mul x, 1`, ...).
        identity_count,
        /// Absorbing elements (`mul x, 0`, `and x, 0`, ...).
        absorbing_count,
        /// Same-operand rules (`sub x, x`, `and x, x`, `eq x, x`, ...).
        same_operands_count,
        /// Involutions (`not (not x)`, `neg (neg x)`).
        involution_count,
        /// `select`s with equal arms or a constant condition.
        select_count,
        /// Projections of constructions and insertions.
        composite_count,
        /// No-op conversions and bitcast round trips.
        conversion_count,
        /// Built-in function identities (`abs` of an unsigned integer, `floor (floor x)`).
        builtin_count,
        /// Commutative operations whose constant operand moved to the right.
        canonicalized_count,
    }
    changed_by: [identity_count, absorbing_count, same_operands_count, involution_count,
        select_count, composite_count, conversion_count, builtin_count, canonicalized_count]
}

/// Runs `algebraic-simplify` (float-safe rules only) on every function definition.
pub fn run_on_module(module: &mut Module) -> AlgebraicSimplifyInfo {
    run_module(module, false)
}

/// Runs `fast-math-simplify` (every rule, float-unsafe ones included) on every function
/// definition.
pub fn run_fast_math_on_module(module: &mut Module) -> AlgebraicSimplifyInfo {
    run_module(module, true)
}

fn run_module(module: &mut Module, fast_math: bool) -> AlgebraicSimplifyInfo {
    let mut info = AlgebraicSimplifyInfo::default();
    for func in definitions(module) {
        info.accumulate(&run(module, func, Mode::full(fast_math)));
    }
    info
}

/// Which rows of the table a run applies.
#[derive(Copy, Clone, Debug)]
pub struct Mode {
    /// Float-unsafe rows too (`fast-math-simplify`).
    pub fast_math: bool,
    /// Only the rows of [`rules::BUILTIN_FUNCTIONS`], without canonicalisation
    /// (`simplify-libcalls`).
    pub builtins_only: bool,
}

impl Mode {
    fn full(fast_math: bool) -> Mode {
        Mode {
            fast_math,
            builtins_only: false,
        }
    }

    fn admits(self, rule: &Rule) -> bool {
        (self.fast_math || !rule.float_unsafe)
            && (!self.builtins_only || rules::BUILTIN_FUNCTIONS.contains(&rule.op))
    }
}

/// Runs `algebraic-simplify` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> AlgebraicSimplifyInfo {
    run(module, func, Mode::full(false))
}

/// Runs `fast-math-simplify` on one function.
pub fn run_fast_math_on_function(module: &mut Module, func: Func) -> AlgebraicSimplifyInfo {
    run(module, func, Mode::full(true))
}

/// Runs the rows `mode` admits on one function, to a fixed point.
pub fn run(module: &mut Module, func: Func, mode: Mode) -> AlgebraicSimplifyInfo {
    let mut info = AlgebraicSimplifyInfo::default();
    loop {
        let Some(insts) = rewritable_instructions(module, func) else {
            return info;
        };
        let mut changed = false;
        for inst in insts {
            if !mode.builtins_only && canonicalize(module, func, inst) {
                info.canonicalized_count += 1;
                changed = true;
            }
            if let Some(rule) = rewrite(module, func, inst, mode) {
                *family_counter(&mut info, rule.family) += 1;
                changed = true;
            }
        }
        if !changed {
            return info;
        }
    }
}

fn family_counter(info: &mut AlgebraicSimplifyInfo, family: Family) -> &mut u64 {
    match family {
        Family::Identity => &mut info.identity_count,
        Family::Absorbing => &mut info.absorbing_count,
        Family::SameOperands => &mut info.same_operands_count,
        Family::Involution => &mut info.involution_count,
        Family::Select => &mut info.select_count,
        Family::Composite => &mut info.composite_count,
        Family::Conversion => &mut info.conversion_count,
        Family::Builtin => &mut info.builtin_count,
    }
}

/// Moves a constant left operand of a commutative operation to the right.
fn canonicalize(module: &mut Module, func: Func, inst: Inst) -> bool {
    let f = &module.functions[func];
    let data = f.dfg.inst(inst);
    let Some(&(_, kinds)) = COMMUTATIVE.iter().find(|(op, _)| *op == data.opcode) else {
        return false;
    };
    let [a, b] = data.args[..] else {
        return false;
    };
    let s = scalar_of(module, f, a);
    let left = const_of(f, a);
    if !kinds.admit(s) || left.is_none() || const_of(f, b).is_some() {
        return false;
    }
    let nan = left.and_then(|c| lanes(module, c)).is_some_and(|(s, l)| {
        s.is_float()
            && l.iter()
                .any(|&x| oxir_ir::scalar_semantics::to_f64(s, x).is_nan())
    });
    if nan {
        return false;
    }
    module.functions[func].dfg.inst_mut(inst).args.swap(0, 1);
    true
}

/// Applies the first matching rule to `inst`; returns it.
fn rewrite(module: &mut Module, func: Func, inst: Inst, mode: Mode) -> Option<&'static Rule> {
    let f = &module.functions[func];
    let result = f.dfg.inst_result(inst)?;
    let data = f.dfg.inst(inst);
    let args: SmallVec<[Value; 4]> = data.args.iter().map(|&v| f.dfg.resolve(v)).collect();
    let indices: &[u32] = data.payload.indices();
    let op = data.opcode;
    let subject = if op == Opcode::Select {
        args.get(1)
    } else {
        args.first()
    };
    let s = subject.and_then(|&v| scalar_of(module, f, v));
    let (rule, found) = rules_for(op).iter().find_map(|&rule| {
        let applies = rule.op == op && mode.admits(rule) && rule.kinds.admit(s);
        let found = applies
            .then(|| rule.pattern.find(module, f, (op, &args, indices, result)))
            .flatten()?;
        Some((rule, found))
    })?;
    let new = replacement(module, func, rule.replacement, &args, found, result)?;
    let f = &mut module.functions[func];
    if !f.dfg.replace_all_uses(result, new) {
        return None;
    }
    f.remove_inst(inst);
    Some(rule)
}

/// The rules for `op`, in table order (the first match wins): indexed once by opcode, so
/// that an instruction is not compared with every rule of the table.
fn rules_for(op: Opcode) -> &'static [&'static Rule] {
    static BY_OPCODE: OnceLock<Vec<Vec<&'static Rule>>> = OnceLock::new();
    let by_opcode = BY_OPCODE.get_or_init(|| {
        let mut by_opcode = vec![Vec::new(); Opcode::ALL.len()];
        for rule in RULES {
            by_opcode[rule.op as usize].push(rule);
        }
        by_opcode
    });
    by_opcode.get(op as usize).map_or(&[], Vec::as_slice)
}

/// The value replacing `result`; `None` (interning nothing) when it would not have the
/// result's type.
fn replacement(
    module: &mut Module,
    func: Func,
    rep: Replacement,
    args: &[Value],
    found: Value,
    result: Value,
) -> Option<Value> {
    let f: &Function = &module.functions[func];
    let ty = f.dfg.value_type(result);
    let value = match rep {
        Replacement::Operand(i) => *args.get(i)?,
        Replacement::Found => found,
        Replacement::Const(k) => {
            let (s, n) = scalar_or_vector(&module.types, ty)?;
            let bits = vec![k.bits(s)?; usize::from(n)];
            let c = lanes_const(module, ty, s, &bits);
            return Some(module.functions[func].dfg.const_value(c, ty));
        }
    };
    let value = f.dfg.resolve(value);
    (value != f.dfg.resolve(result) && f.dfg.value_type(value) == ty).then_some(value)
}

#[cfg(test)]
mod rule_index_tests {
    use super::*;

    #[test]
    fn rules_by_opcode_are_the_table_in_order() {
        for (i, &op) in Opcode::ALL.iter().enumerate() {
            assert_eq!(op as usize, i, "{op:?} is not at its table position");
        }
        let mut total = 0;
        for &op in Opcode::ALL {
            let expected: Vec<&str> = RULES
                .iter()
                .filter(|r| r.op == op)
                .map(|r| r.name)
                .collect();
            let got: Vec<&str> = rules_for(op).iter().map(|r| r.name).collect();
            assert_eq!(got, expected, "rules of {op:?}");
            total += got.len();
        }
        assert_eq!(total, RULES.len());
    }
}
