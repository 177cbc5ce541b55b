//! `const-fold`: evaluates instructions whose operands are module constants and replaces
//! their results by constants.
//!
//! **What folds.** An instruction whose value operands are all module constants
//! (`ValueDef::Const`) is evaluated:
//! - lane-wise operations (arithmetic, bitwise, comparisons, `any`/`all`, conversions,
//!   bitcasts, `extract_bits`/`insert_bits`) lane by lane through
//!   [`oxir_ir::scalar_semantics`], the module the interpreter executes: this pass never
//!   computes a value itself, so a folded value is the interpreter's, bit for bit;
//! - composites: `construct`, `splat`, `shuffle`, `extract` and `insert` (also through
//!   `zero` and `undef` aggregates: an element of `zero` is `zero`, an element of `undef`
//!   is `undef`, never an invented value), `extract_dynamic` / `insert_dynamic` with a
//!   constant in-range index;
//! - `select` with a constant condition, even when the arms are not constants (a scalar
//!   or uniform vector condition picks an arm; a mixed vector condition needs constant
//!   arms).
//!
//! The result is interned (`Module::const_scalar`, `const_composite`, `const_zero`,
//! `const_undef`), every use of the instruction's result is replaced by it
//! (`replace_all_uses`), and the instruction is removed. Sweeps over the function repeat
//! until one folds nothing, so a fold exposed by an earlier one in a later-laid-out block
//! is found too; the pass is idempotent.
//!
//! **What is safe** is decided in one place, [`safety::fold_rule`] (an exhaustive
//! classification of every opcode) with the lane conditions of [`safety::lanes_are_safe`];
//! its module doc gives the per-op decisions and their reasons. In short: only what the
//! interpreter, LLVM and SPIR-V on Vulkan compute identically: integer and bool
//! operations always (the IR defines division by zero, `MIN / -1` and over-wide shifts,
//! and both back-ends emit exactly those guards), float operations only without NaN or
//! subnormal inputs or results and only when the result is exact (`add`, `sub`, `mul`,
//! conversions) or needs no rounding; float `div`/`rem`, `fma`, `sqrt`, `fract` and the
//! elementary functions never.
//!
//! Counters: `folded_lane_count` (lane-wise operations), `folded_composite_count`,
//! `folded_select_count`; `refused_unsafe_count` (diagnostic) counts instructions whose
//! operands are all constants but which the safety rule keeps, once per instruction.
//!
//! ## What it does not do
//!
//! - It does not fold terminators (`cond_br` on a constant is `simplify-cfg`'s), calls,
//!   loads (even of constant-initialised globals), or anything with a non-constant
//!   operand other than `select`'s arms: `add x, 0` is `algebraic-simplify`'s.
//! - It does not fold lane-wise operations on matrices, on constants with an `undef`
//!   lane (an undefined lane has no bits), or bitcasts that regroup lanes.
//! - It does not fold instructions carrying semantic metadata
//!   ([`oxir_ir::Metadata::is_annotated`]).
//! - It does not remove constants that became unused (the module keeps them).
//!
//! ## Example
//!
//! ```text
//! const c0: i32 = 6                    const c0: i32 = 6
//! const c1: i32 = 7                    const c1: i32 = 7
//!                                      const c2: i32 = 42
//! callable @f() -> i32 {               callable @f() -> i32 {
//! block0:                      ==>     block0:
//!     v0: i32 = mul c0, c1                 return c2
//!     return v0                        }
//! }
//! ```

pub mod eval;
pub mod safety;

use crate::const_values::{composite_const, lanes_const, materialize};
use crate::pass_info;
use crate::util::{definitions, rewritable_instructions};
use cranelift_entity::SecondaryMap;
use eval::{evaluate, Built, Candidate, FoldKind, Folded, Outcome};
use oxir_ir::{Const, Func, Inst, Module};

pass_info! {
    pass: "const-fold",
    /// Counters of `const-fold`.
    pub struct ConstFoldInfo {
        /// Lane-wise operations folded.
        folded_lane_count,
        /// Composite constructions and projections folded.
        folded_composite_count,
        /// `select`s with a constant condition folded.
        folded_select_count,
        /// Diagnostic: instructions with constant operands the safety rule keeps.
        refused_unsafe_count,
    }
    changed_by: [folded_lane_count, folded_composite_count, folded_select_count]
}

/// Runs `const-fold` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> ConstFoldInfo {
    let mut info = ConstFoldInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `const-fold` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> ConstFoldInfo {
    let mut info = ConstFoldInfo::default();
    let mut refused: SecondaryMap<Inst, bool> = SecondaryMap::new();
    loop {
        let Some(insts) = rewritable_instructions(module, func) else {
            return info;
        };
        let mut folded = false;
        for inst in insts {
            let Some(candidate) = Candidate::read(module, func, inst) else {
                continue;
            };
            match evaluate(module, &candidate) {
                Outcome::Fold(result, kind) => {
                    if commit(module, func, inst, &candidate, &result) {
                        folded = true;
                        match kind {
                            FoldKind::Lanes => info.folded_lane_count += 1,
                            FoldKind::Composite => info.folded_composite_count += 1,
                            FoldKind::Select => info.folded_select_count += 1,
                        }
                    }
                }
                Outcome::Unsafe if !refused[inst] => {
                    refused[inst] = true;
                    info.refused_unsafe_count += 1;
                }
                Outcome::Unsafe | Outcome::Keep => {}
            }
        }
        if !folded {
            return info;
        }
    }
}

/// Interns the folded value, replaces the result's uses by it and removes `inst`.
/// Interns nothing when the replacement would be refused (a type mismatch).
fn commit(module: &mut Module, func: Func, inst: Inst, c: &Candidate, folded: &Folded) -> bool {
    let ty = c.result_ty();
    let new = match folded {
        Folded::Value(v) => {
            if module.functions[func].dfg.value_type(*v) != ty {
                return false;
            }
            *v
        }
        Folded::Const(built) => {
            let k = intern(module, built);
            module.functions[func].dfg.const_value(k, ty)
        }
    };
    let f = &mut module.functions[func];
    if !f.dfg.replace_all_uses(c.result(), new) {
        return false;
    }
    f.remove_inst(inst);
    true
}

fn intern(module: &mut Module, built: &Built) -> Const {
    match built {
        Built::Elem(e) => materialize(module, *e),
        Built::Lanes(ty, s, bits) => lanes_const(module, *ty, *s, bits),
        Built::Composite(ty, parts) => {
            let parts: Vec<Const> = parts.iter().map(|p| intern(module, p)).collect();
            let elems: Vec<_> = parts
                .into_iter()
                .map(crate::const_values::Elem::Const)
                .collect();
            composite_const(module, *ty, &elems)
        }
    }
}
