//! `bounds-checks`: makes every dynamic index safe under a [`BoundsPolicy`], so that no
//! back-end emits an out-of-range access.
//!
//! **What it checks.** The array, vector and matrix indices of `access` (the pointer
//! projection every load, store and atomic goes through) and the indices of
//! `extract_dynamic` / `insert_dynamic`. A fixed-size array of `N` elements (vector: `N`
//! lanes, matrix: `N` columns) is bounded by `N`; a runtime-sized array by
//! `array_length` of the pointer `access` starts from. Indices are compared unsigned in
//! their own width (a negative signed index is out of range, as in the interpreter).
//! The class of an `access` is the address space of its chain's root pointer: storage,
//! uniform, push-constant and handle pointers are [`CheckClass::Buffers`]; workgroup,
//! private and function pointers [`CheckClass::Memory`]. [`CheckClass::Textures`]: the
//! coordinate, layer, level and sample of `texture_load`, the coordinate and layer of
//! `texture_store` and the level of `texture_dimensions`, each compared with the
//! texture's query (`texture_dimensions` of the clamped level, `texture_num_layers`,
//! `texture_num_levels`, `texture_num_samples`); under `read-zero-skip-write` a load
//! runs under `cond_br ok` and gives zero when skipped, a store is skipped, and only a
//! level is clamped (the size query before the branch reads it), the interpreter's rule;
//! under `restrict` every operand is clamped to its bound minus one
//! (`plan/texture.rs`, `emit/texture.rs`).
//!
//! **What each policy emits** (`iu` is the index, bitcast to unsigned when signed):
//!
//! | | fixed-size bound `N` | runtime-sized bound `len = array_length(base)` |
//! |---|---|---|
//! | `read-zero-skip-write` | index `min(iu, N-1)`; `ok = lt iu, N`; a load becomes `select ok, load, zero`, a store or atomic runs under `cond_br ok` (an atomic's result is zero when skipped) | index unchanged; every load, store and atomic through it runs under `cond_br (lt iu, len)`, a skipped load or atomic gives zero |
//! | `restrict` | index `min(iu, N-1)` | index `min(iu, len-1)`; the access runs under `cond_br (lt index, len)`, which fails only when `len` is 0 (then it reads zero and writes nothing) |
//! | `unchecked` | nothing | nothing |
//!
//! `extract_dynamic v, i` becomes `select ok, extract_dynamic v, min(iu, N-1), zero` and
//! `insert_dynamic v, x, i` becomes `select ok, insert_dynamic v, x, min(iu, N-1), v`
//! (`restrict`: the clamp only). `workgroup_uniform_load` (a barrier) is never put under a
//! branch: it always has a fixed bound and takes the `select` form. All checks of one
//! chain (`access` of an `access` ...) are combined with `and` at the memory operation.
//!
//! Under `read-zero-skip-write` the result is bit for bit the interpreter's
//! `OutOfBounds::Robust` run of the input, also for a buffer that ends inside a
//! runtime-sized array's element: the interpreter bounds a runtime array by its
//! `array_length` too, so that element is out of range on both.
//!
//! **Redundant checks are not emitted** (and counted): constant in-range indices; an
//! index the index type cannot make out of range (`u8` into 1000 elements); an index
//! already clamped — `min(x, K)` (unsigned), `and(x, K)`, `rem(x, K)` (unsigned, `0 < K
//! <= N`), `clamp(x, L, H)` with `0 <= L <= H < N`; and an index bounded by a condition
//! that dominates the access: `lt x, K` / `lt x, array_length(base)` (or `gt` with the
//! operands swapped, or one operand of an `and` of such conditions) that is true on the
//! only edge into a block dominating the access — the header test of
//! `for (i = 0u; i < N; i++)` after `mem2reg`, and this pass's own guards, which makes a
//! second run change nothing.
//!
//! **Where it runs.** On plain SSA (no structured terminators), after inlining: the
//! `normalize` pipeline runs it after `dce` (`docs/passes.md`, "Driver pipelines"), so
//! every back-end driver inherits it. A function with structured control flow that
//! needs a check makes the pass refuse the whole module, untouched (a `cond_br` cannot
//! be placed inside a structured construct's blocks).
//!
//! **What it does not do.** Sampling is not checked (it clamps or wraps by itself; a
//! cube texture has no `texture_load` or `texture_store`: the type rules refuse them). A checked pointer passed to a call or through a block parameter or `select` is
//! clamped but its uses there are not guarded. Bytes past a fixed-size binding that is
//! bound to a shorter buffer are not the pass's concern (the runner checks buffer sizes).
//!
//! ```text
//! v2: ptr<workgroup, f32> = access v0, v1          v3: bool = lt v1, c4
//! v3: f32 = load v2                          =>     v4: u32 = min v1, c3
//!                                                   v2: ptr<workgroup, f32> = access v0, v4
//!                                                   v5: f32 = load v2
//!                                                   v6: f32 = select v3, v5, c0
//! ```

mod emit;
mod plan;
mod policy;

pub use policy::{BoundsPolicy, CheckClass, Policy, PolicyParseError};

use crate::pass_info;
use crate::util::{contains_structured_control_flow, definitions};
use oxir_ir::{Func, Module};

pass_info! {
    pass: "bounds-checks",
    /// Counters of `bounds-checks`.
    pub struct BoundsChecksInfo {
        /// Buffer indices checked or clamped.
        buffer_check_count,
        /// Workgroup, private and function memory indices checked or clamped.
        memory_check_count,
        /// `extract_dynamic` / `insert_dynamic` indices checked or clamped.
        value_check_count,
        /// Buffer indices proven in range, left alone.
        buffer_redundant_count,
        /// Memory indices proven in range, left alone.
        memory_redundant_count,
        /// Dynamic value indices proven in range, left alone.
        value_redundant_count,
        /// Texture coordinates, layers, levels and sample indices checked or clamped.
        texture_check_count,
        /// Texture layers, levels and sample indices that are the constant 0, left alone.
        texture_redundant_count,
        /// Memory operations put under a `cond_br` (stores, atomics, runtime-array loads).
        branch_guard_count,
        /// Loads and dynamic extracts/inserts whose result became a `select`.
        select_guard_count,
        /// Functions with structured control flow that needed a check (the module is
        /// refused).
        refused_structured_function_count,
        /// Checked pointers that escape the checks through a block parameter, `select`
        /// or call (the module is refused).
        refused_escaping_pointer_count,
    }
    changed_by: [buffer_check_count, memory_check_count, value_check_count, texture_check_count]
    failed_by: [refused_structured_function_count, refused_escaping_pointer_count]
}

impl BoundsChecksInfo {
    fn count_check(&mut self, class: CheckClass) {
        match class {
            CheckClass::Buffers => self.buffer_check_count += 1,
            CheckClass::Memory => self.memory_check_count += 1,
            CheckClass::Values => self.value_check_count += 1,
            CheckClass::Textures => self.texture_check_count += 1,
        }
    }

    /// The info of a refusal of the structured function `name`.
    fn refused(name: Option<&str>) -> BoundsChecksInfo {
        let mut info = BoundsChecksInfo {
            refused_structured_function_count: 1,
            ..BoundsChecksInfo::default()
        };
        info.note_refusal(name, None);
        info
    }

    /// The info of a refusal of function `name`, where the access in `block` escapes.
    fn refused_escaping(name: Option<&str>, block: Option<oxir_ir::Block>) -> BoundsChecksInfo {
        let mut info = BoundsChecksInfo {
            refused_escaping_pointer_count: 1,
            ..BoundsChecksInfo::default()
        };
        info.note_refusal(name, block);
        info
    }

    fn count_redundant(&mut self, class: CheckClass) {
        match class {
            CheckClass::Buffers => self.buffer_redundant_count += 1,
            CheckClass::Memory => self.memory_redundant_count += 1,
            CheckClass::Values => self.value_redundant_count += 1,
            CheckClass::Textures => self.texture_redundant_count += 1,
        }
    }
}

/// Checks `func` under the default policy.
pub fn run_on_function(module: &mut Module, func: Func) -> BoundsChecksInfo {
    run_on_function_with(module, func, &BoundsPolicy::default())
}

/// Checks every function with a body under the default policy.
pub fn run_on_module(module: &mut Module) -> BoundsChecksInfo {
    run_on_module_with(module, &BoundsPolicy::default())
}

/// Checks `func` under `policy`; refuses (untouched) a structured function that needs a
/// check.
pub fn run_on_function_with(
    module: &mut Module,
    func: Func,
    policy: &BoundsPolicy,
) -> BoundsChecksInfo {
    let mut info = BoundsChecksInfo::default();
    let Some(plan) = plan::plan_function(module, func, policy, &mut info) else {
        return info;
    };
    if let Some(refusal) = escape_refusal(module, func, &plan) {
        return refusal;
    }
    if plan.is_empty() {
        return info;
    }
    if module
        .functions
        .get(func)
        .is_some_and(contains_structured_control_flow)
    {
        return BoundsChecksInfo::refused(module.functions.get(func).map(|f| f.name.as_str()));
    }
    emit::apply(module, func, &plan, &mut info);
    info
}

/// The refusal of `func` when `plan` found a checked pointer escaping its checks.
fn escape_refusal(
    module: &Module,
    func: Func,
    plan: &plan::FunctionPlan,
) -> Option<BoundsChecksInfo> {
    let access = plan.escaping?;
    let function = module.functions.get(func)?;
    Some(BoundsChecksInfo::refused_escaping(
        Some(&function.name),
        function.layout.inst_block(access),
    ))
}

/// Checks every function with a body under `policy`. Refuses the whole module, untouched,
/// when a structured function needs a check.
pub fn run_on_module_with(module: &mut Module, policy: &BoundsPolicy) -> BoundsChecksInfo {
    let mut info = BoundsChecksInfo::default();
    let funcs = definitions(module);
    let mut plans = Vec::new();
    for &func in &funcs {
        let mut scratch = BoundsChecksInfo::default();
        let Some(plan) = plan::plan_function(module, func, policy, &mut scratch) else {
            continue;
        };
        if let Some(refusal) = escape_refusal(module, func, &plan) {
            return refusal;
        }
        let Some(function) = module.functions.get(func) else {
            continue;
        };
        if !plan.is_empty() && contains_structured_control_flow(function) {
            return BoundsChecksInfo::refused(Some(&function.name));
        }
        info.accumulate(&scratch);
        plans.push((func, plan));
    }
    for (func, plan) in &plans {
        if !plan.is_empty() {
            emit::apply(module, *func, plan, &mut info);
        }
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    const RUNTIME_AND_WORKGROUP: &str = "\
const c0: u32 = 1
global @index: uniform u32 binding(0, 0)
global @out: storage(read_write) array<u32> binding(0, 1)
global @tile: workgroup array<u32, 8>
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: u32 = load @index
    v1: ptr<storage(read_write), u32> = access @out, v0
    store v1, c0
    v2: ptr<workgroup, u32> = access @tile, v0
    store v2, c0
    return
}
";

    fn checked(policy: BoundsPolicy) -> (Module, BoundsChecksInfo) {
        let mut module = parse_module(RUNTIME_AND_WORKGROUP).expect("parses");
        let info = run_on_module_with(&mut module, &policy);
        let report = verify_module(&module, &VerifierOptions::default());
        assert!(report.succeeded(), "{report}");
        let again = print_module(&module, View::Flat);
        let second = run_on_module_with(&mut module, &policy);
        assert_eq!(
            print_module(&module, View::Flat),
            again,
            "a second run changes nothing"
        );
        assert_eq!(second.buffer_check_count + second.memory_check_count, 0);
        (module, info)
    }

    #[test]
    fn restrict_clamps_and_guards_only_the_empty_runtime_array() {
        let (module, info) = checked(BoundsPolicy::uniform(Policy::Restrict));
        let text = print_module(&module, View::Flat);
        // The runtime-sized index is clamped to `array_length - 1` and the store runs
        // under `lt clamped, array_length` (false only for an empty array); the workgroup
        // store is clamped and never guarded.
        assert!(text.contains("= sub "), "{text}");
        assert_eq!(text.matches("= min ").count(), 2, "{text}");
        assert_eq!(text.matches("cond_br ").count(), 1, "{text}");
        assert_eq!((info.buffer_check_count, info.memory_check_count), (2, 1));
        assert_eq!(info.branch_guard_count, 1);
    }

    #[test]
    fn unchecked_changes_nothing() {
        let (module, info) = checked(BoundsPolicy::uniform(Policy::Unchecked));
        assert_eq!(
            print_module(&module, View::Flat),
            print_module(
                &parse_module(RUNTIME_AND_WORKGROUP).expect("parses"),
                View::Flat
            )
        );
        assert_eq!(info, BoundsChecksInfo::default());
    }

    #[test]
    fn per_class_policies_apply_to_their_class_only() {
        let policy = BoundsPolicy::parse("unchecked,memory=read-zero-skip-write").expect("parses");
        let (_, info) = checked(policy);
        assert_eq!((info.buffer_check_count, info.memory_check_count), (0, 1));
    }

    const TEXTURES: &str = "\
const c0: u32 = 0
global @color: handle texture_2d<f32> binding(0, 0)
global @grid: handle texture_storage_2d_array<rgba32float, read_write> binding(0, 1)
callable @pick(vec2<i32>, i32, u32) -> vec4<f32> {
block0(v0: vec2<i32>, v1: i32, v2: u32):
    v3: texture_2d<f32> = load @color
    v4: vec4<f32> = texture_load v3, v0, v1
    v5: texture_storage_2d_array<rgba32float, read_write> = load @grid
    texture_store v5, v0, v2, v4
    return v4
}
";

    #[test]
    fn textures_restrict_clamps_without_guards_and_unchecked_leaves_them() {
        let mut module = parse_module(TEXTURES).expect("parses");
        let policy = BoundsPolicy::parse("unchecked,textures=restrict").expect("parses");
        let info = run_on_module_with(&mut module, &policy);
        let report = verify_module(&module, &VerifierOptions::default());
        assert!(report.succeeded(), "{report}");
        let text = print_module(&module, View::Flat);
        // Level, coordinate (load), coordinate and layer (store): four clamps, no guard.
        assert_eq!(info.texture_check_count, 4, "{text}");
        assert_eq!(text.matches("= min ").count(), 4, "{text}");
        assert!(
            !text.contains("cond_br") && !text.contains("select"),
            "{text}"
        );
        let mut untouched = parse_module(TEXTURES).expect("parses");
        let none = run_on_module_with(&mut untouched, &BoundsPolicy::uniform(Policy::Unchecked));
        assert_eq!(none, BoundsChecksInfo::default());
    }
}
