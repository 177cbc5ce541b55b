//! `simplify-libcalls`: exact rewrites of built-in function calls — the rows of
//! `algebraic-simplify`'s table ([`crate::passes::algebraic_simplify::rules::RULES`])
//! whose opcode is in [`crate::passes::algebraic_simplify::rules::BUILTIN_FUNCTIONS`],
//! and no others. The table is the one source of truth: this pass is a filter over it,
//! and `algebraic-simplify` applies the same rows as part of its full table.
//!
//! **What it does:** `abs x → x` for unsigned integers; `abs (abs x) → abs x` (integers:
//! wrapping, `abs MIN = MIN`), `sign (sign x) → sign x` (integers), and for floats
//! `floor`, `ceil`, `trunc`, `round`, `round_even`, `saturate` of their own result → that
//! result (rounding an integer-valued float is exact in every rounding direction; a
//! saturated value is in `[0, 1]` or NaN); `min x, x → x`, `max x, x → x`,
//! `select c, x, x → x`, and `select` on a constant condition. Every rewrite replaces a
//! result by an existing value (nothing is created). Counter: `simplified_count`.
//!
//! ## What it does not do
//!
//! - `clamp x, 0.0, 1.0 → saturate x` is **not** done although the IR has `saturate`: the
//!   IR defines `clamp` as `min(max(x, 0.0), 1.0)`, which maps NaN to `0.0`, while
//!   `saturate NaN` is NaN, and GPUs may return either zero for `clamp -0.0, 0.0, 1.0`;
//!   the two differ in the interpreter and possibly on the targets.
//! - No float rewrite that is wrong for some IEEE value: `pow x, 1.0 → x` (not exact on
//!   every GPU), `sign (sign x)` on floats (the sign of a float zero may come back as
//!   either zero), `abs (neg x) → abs x` (it would rewrite an instruction, not remove
//!   one).
//! - No canonicalisation, no non-built-in rows (`add x, 0` is `algebraic-simplify`'s),
//!   no constant folding (`const-fold`), and nothing on instructions with semantic
//!   metadata.
//!
//! ## Example
//!
//! ```text
//! callable @f(u32, f32) -> f32 {            callable @f(u32, f32) -> f32 {
//! block0(v0: u32, v1: f32):                 block0(v0: u32, v1: f32):
//!     v2: u32 = abs v0                 ==>      v4: f32 = floor v1
//!     v3: f32 = convert v2                      v3: f32 = convert v0
//!     v4: f32 = floor v1                        v6: f32 = add v3, v4
//!     v5: f32 = floor v4                        return v6
//!     v6: f32 = add v3, v5                  }
//!     return v6
//! }
//! ```

use crate::pass_info;
use crate::passes::algebraic_simplify::{self, AlgebraicSimplifyInfo, Mode};
use crate::util::definitions;
use oxir_ir::{Func, Module};

pass_info! {
    pass: "simplify-libcalls",
    /// Counters of `simplify-libcalls`.
    pub struct SimplifyLibcallsInfo {
        /// Built-in function instructions replaced by an existing value.
        simplified_count,
    }
    changed_by: [simplified_count]
}

/// Runs `simplify-libcalls` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> SimplifyLibcallsInfo {
    let mut info = SimplifyLibcallsInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `simplify-libcalls` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> SimplifyLibcallsInfo {
    let mode = Mode {
        fast_math: false,
        builtins_only: true,
    };
    let rows: AlgebraicSimplifyInfo = algebraic_simplify::run(module, func, mode);
    let simplified_count = rows.identity_count
        + rows.absorbing_count
        + rows.same_operands_count
        + rows.involution_count
        + rows.select_count
        + rows.composite_count
        + rows.conversion_count
        + rows.builtin_count;
    SimplifyLibcallsInfo {
        simplified_count,
        ..SimplifyLibcallsInfo::default()
    }
}
