//! `destructure-cfg`: structured control flow to a plain CFG.
//!
//! Every structured terminator becomes the plain branch that executes the same edges:
//!
//! | structured | plain |
//! |---|---|
//! | `if c, then T, else E, merge M` | `cond_br c, T, E` (same edge arguments) |
//! | `switch s, [cases], default D, merge M` | `switch_br s, [cases], default D` |
//! | `loop prepare P, body B, update U, merge M` | `br P` |
//! | `simple_loop body B, merge M` | `br B` |
//! | `break M` / `continue U` | `br M` / `br U` (same arguments) |
//!
//! The replacement is the same instruction rewritten in place, so its metadata (name,
//! location, comments) stays with it. Structural roles are dropped; the blocks they named
//! stay where they are, and the loops they delimited are now ordinary cycles of the CFG.
//!
//! When a function has more than one `return`, they are merged into one new exit block: a
//! function-space slot per returned value (`alloca` at the start of the entry block, commented
//! `early-return spill slot`), each `return` stores its values into the slots and branches to
//! the exit block, which loads them and returns. A function returning nothing just branches.
//!
//! ```text
//! block0:                                       block0:
//!     if v0, then block1, else block2, merge block3    v3: ptr<function, i32> = alloca [comment = "early-return spill slot"]
//! block1:                                           cond_br v0, block1, block2
//!     return c0                           ==>   block1:
//! block2:                                           store v3, c0
//!     br block3                                     br block4
//! block3:                                       ...
//!     return c1                                 block4:
//!                                                   v4: i32 = load v3
//!                                                   return v4
//! ```
//!
//! **Preflight.** The whole module is checked before the first change, and nothing is
//! changed when any function fails: the verifier (with `require_terminated_blocks` off) must
//! accept each function (`error_count` counts its errors, malformed constructs included), and
//! every block a construct owns — an arm, a merge, a loop's body or update — must end with a
//! terminator (`leaked_block_count`). [`preflight_function`] runs the same check on one
//! function without changing anything. [`run_on_verified_module`] is for a module the
//! verifier has just accepted with its default options (`normalize` runs it right after
//! `verify-input`): those options are stricter than the preflight's, so it skips the
//! preflight's verifier run and keeps the leaked-block check.
//!
//! **What it does not do.** It does not remove blocks that were only structurally owned and
//! are now unreachable (a loop merge nothing breaks to), does not merge `unreachable` or
//! `discard` exits, does not touch block parameters, and leaves body-less functions alone.

use crate::pass_info;
use crate::util::definitions;
use oxir_ir::verifier::{verify_function, VerifierOptions};
use oxir_ir::TerminatorOp;
use oxir_ir::{
    AddressSpace, Block, BlockCall, Func, Inst, InstData, Metadata, Module, Opcode, Payload, Value,
};

pass_info! {
    pass: "destructure-cfg",
    /// Counters of `destructure-cfg`.
    pub struct DestructureCfgInfo {
        /// `if` terminators rewritten to `cond_br`.
        destructured_if_count,
        /// `switch` terminators rewritten to `switch_br`.
        destructured_switch_count,
        /// `loop` terminators rewritten to `br prepare`.
        destructured_loop_count,
        /// `simple_loop` terminators rewritten to `br body`.
        destructured_simple_loop_count,
        /// `break` rewritten to `br`.
        destructured_break_count,
        /// `continue` rewritten to `br`.
        destructured_continue_count,
        /// `return`s redirected to a function's single new exit block.
        destructured_early_return_count,
        /// Blocks owned by a construct (arm, merge, loop body or update) that do not end
        /// with a terminator. Non-zero means the input was refused.
        leaked_block_count,
        /// Verifier errors and malformed constructs. Non-zero means the input was refused.
        error_count,
    }
    changed_by: [
        destructured_if_count,
        destructured_switch_count,
        destructured_loop_count,
        destructured_simple_loop_count,
        destructured_break_count,
        destructured_continue_count,
        destructured_early_return_count,
    ]
    failed_by: [leaked_block_count, error_count]
}

/// The comment on the slots that carry returned values to the merged exit block.
pub const EARLY_RETURN_SLOT_COMMENT: &str = "early-return spill slot";

/// Checks `func` without changing anything: the returned info has `leaked_block_count` and
/// `error_count` filled in and every other counter zero. A body-less function passes.
pub fn preflight_function(module: &Module, func: Func) -> DestructureCfgInfo {
    preflight(module, func, true)
}

/// [`preflight_function`], with the verifier run only when `verify`.
fn preflight(module: &Module, func: Func, verify: bool) -> DestructureCfgInfo {
    let mut info = DestructureCfgInfo::default();
    let Some(function) = module.functions.get(func) else {
        info.error_count = 1;
        info.note_refusal(None, None);
        return info;
    };
    if !function.is_definition() || function.entry_block().is_none() {
        return info;
    }
    if verify {
        let options = VerifierOptions {
            require_terminated_blocks: false,
            ..VerifierOptions::default()
        };
        let report = verify_function(module, func, &options);
        info.error_count = report.errors.len() as u64;
        if info.error_count > 0 {
            info.note_refusal(Some(&function.name), None);
        }
    }

    // Blocks a construct owns must be terminated; count each leaked block once.
    let mut counted: Vec<Block> = Vec::new();
    for block in function.layout.blocks() {
        let Some(last) = function.layout.last_inst(block) else {
            continue;
        };
        let data = function.dfg.inst(last);
        if !data.opcode.is_structured() {
            continue;
        }
        let owned = data
            .payload
            .edges()
            .into_iter()
            .map(|e| e.block)
            .chain(data.payload.roles());
        for owned_block in owned {
            let in_layout = function.dfg.block_is_valid(owned_block)
                && function.layout.is_block_inserted(owned_block);
            if in_layout
                && function.terminator(owned_block).is_none()
                && !counted.contains(&owned_block)
            {
                counted.push(owned_block);
                info.leaked_block_count += 1;
                info.note_refusal(Some(&function.name), Some(owned_block));
            }
        }
    }
    info
}

/// Destructures one function; refuses (changing nothing) when its preflight fails.
pub fn run_on_function(module: &mut Module, func: Func) -> DestructureCfgInfo {
    let info = preflight_function(module, func);
    if info.leaked_block_count > 0 || info.error_count > 0 {
        return info;
    }
    let mut info = DestructureCfgInfo::default();
    destructure(module, func, &mut info);
    info
}

/// Destructures every function with a body. The whole module is preflighted first; when any
/// function fails, nothing is changed and the failures of all functions are reported.
pub fn run_on_module(module: &mut Module) -> DestructureCfgInfo {
    run(module, true)
}

/// [`run_on_module`] on a module the verifier has just accepted with
/// `VerifierOptions::default()`: the preflight does not verify it again.
pub fn run_on_verified_module(module: &mut Module) -> DestructureCfgInfo {
    run(module, false)
}

fn run(module: &mut Module, verify: bool) -> DestructureCfgInfo {
    let functions = definitions(module);
    let mut failures = DestructureCfgInfo::default();
    for &func in &functions {
        failures.accumulate(&preflight(module, func, verify));
    }
    if failures.leaked_block_count > 0 || failures.error_count > 0 {
        return failures;
    }
    let mut info = DestructureCfgInfo::default();
    for func in functions {
        destructure(module, func, &mut info);
    }
    info
}

/// Rewrites the terminators of a preflighted function and merges its returns.
fn destructure(module: &mut Module, func: Func, info: &mut DestructureCfgInfo) {
    let function = &mut module.functions[func];
    if !function.is_definition() {
        return;
    }
    let blocks: Vec<Block> = function.layout.blocks().collect();
    let mut returns = Vec::new();
    for &block in &blocks {
        let Some(term) = function.terminator(block) else {
            continue;
        };
        let data = function.dfg.inst_mut(term);
        let replacement = match (data.opcode.terminator_op(), &data.payload) {
            (
                Some(TerminatorOp::If),
                Payload::If {
                    then_dest,
                    else_dest,
                    ..
                },
            ) => {
                info.destructured_if_count += 1;
                let payload = Payload::CondBranch {
                    then_dest: then_dest.clone(),
                    else_dest: else_dest.clone(),
                };
                Some(InstData::with_payload(Opcode::CondBr, &data.args, payload))
            }
            (Some(TerminatorOp::Switch), Payload::Switch { table, .. }) => {
                info.destructured_switch_count += 1;
                let payload = Payload::SwitchBranch(table.clone());
                Some(InstData::with_payload(
                    Opcode::SwitchBr,
                    &data.args,
                    payload,
                ))
            }
            (Some(TerminatorOp::Loop), Payload::Loop { prepare, .. }) => {
                info.destructured_loop_count += 1;
                Some(jump(prepare.clone()))
            }
            (Some(TerminatorOp::SimpleLoop), Payload::SimpleLoop { body, .. }) => {
                info.destructured_simple_loop_count += 1;
                Some(jump(body.clone()))
            }
            (Some(TerminatorOp::Break), Payload::Jump(dest)) => {
                info.destructured_break_count += 1;
                Some(jump(dest.clone()))
            }
            (Some(TerminatorOp::Continue), Payload::Jump(dest)) => {
                info.destructured_continue_count += 1;
                Some(jump(dest.clone()))
            }
            (Some(TerminatorOp::Return), _) => {
                returns.push(term);
                None
            }
            // Unstructured terminators stay; a structured one whose payload does not match
            // its opcode is malformed (the preflight's verifier run rejects it).
            (
                Some(
                    TerminatorOp::Br
                    | TerminatorOp::CondBr
                    | TerminatorOp::SwitchBr
                    | TerminatorOp::Unreachable
                    | TerminatorOp::Discard
                    | TerminatorOp::If
                    | TerminatorOp::Switch
                    | TerminatorOp::Loop
                    | TerminatorOp::SimpleLoop
                    | TerminatorOp::Break
                    | TerminatorOp::Continue,
                )
                | None,
                _,
            ) => None,
        };
        if let Some(replacement) = replacement {
            *data = replacement;
        }
    }
    if returns.len() < 2 {
        return;
    }

    // Merge the returns: one slot per returned value, one exit block.
    let result_types: Vec<_> = function.signature.returns.iter().map(|r| r.ty).collect();
    let entry = function
        .entry_block()
        .expect("a definition that passed the verifier has an entry block");
    let mut slots: Vec<Value> = Vec::with_capacity(result_types.len());
    let mut last_alloca: Option<Inst> = None;
    for &ty in &result_types {
        let ptr_ty = module.types.pointer(AddressSpace::Function, ty);
        let function = &mut module.functions[func];
        let alloca = function.dfg.make_inst(InstData::new(Opcode::Alloca, &[]));
        let slot = function.dfg.make_result(alloca, ptr_ty);
        // After the slots created so far, before everything else.
        match last_alloca {
            Some(previous) => function.layout.insert_inst_after(alloca, previous),
            None => function.layout.prepend_inst(alloca, entry),
        }
        last_alloca = Some(alloca);
        let mut metadata = Metadata::default();
        metadata
            .comments
            .push(EARLY_RETURN_SLOT_COMMENT.to_string());
        function.dfg.set_metadata(alloca, metadata);
        slots.push(slot);
    }
    let function = &mut module.functions[func];
    let exit = function.append_new_block();
    let mut loaded = Vec::with_capacity(slots.len());
    for (&slot, &ty) in slots.iter().zip(&result_types) {
        let load = function.dfg.make_inst(InstData::new(Opcode::Load, &[slot]));
        loaded.push(function.dfg.make_result(load, ty));
        function.layout.append_inst(load, exit);
    }
    let ret = function
        .dfg
        .make_inst(InstData::new(Opcode::Return, &loaded));
    function.layout.append_inst(ret, exit);
    for term in returns {
        let values: Vec<Value> = function.dfg.inst(term).args.to_vec();
        for (&slot, &value) in slots.iter().zip(&values) {
            let store = function
                .dfg
                .make_inst(InstData::new(Opcode::Store, &[slot, value]));
            function.layout.insert_inst_before(store, term);
        }
        *function.dfg.inst_mut(term) = jump(BlockCall::new(exit));
        info.destructured_early_return_count += 1;
    }
}

fn jump(dest: BlockCall) -> InstData {
    InstData::with_payload(Opcode::Br, &[], Payload::Jump(dest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PassInfo;
    use oxir_ir::builder::FunctionBuilder;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::{FunctionKind, Scalar, Signature};

    #[test]
    fn leaked_owned_block_refuses_the_whole_module_unchanged() {
        // Two functions: a good one, and one whose if-merge has no terminator. The good
        // one must not be destructured either (module-level preflight).
        let mut module = parse_module(
            "kernel @good(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {\n\
             block0(v0: u32):\n    v1: bool = eq v0, v0\n    if v1, then block1, else block2, merge block3\n\
             block1:\n    br block3\nblock2:\n    br block3\nblock3:\n    return\n}\n",
        )
        .expect("parses");
        let kind = FunctionKind::kernel([1, 1, 1]);
        let bad = FunctionBuilder::create_function(&mut module, "bad", kind, Signature::default());
        let mut b = FunctionBuilder::new(&mut module, bad);
        let entry = b.entry_block().expect("entry");
        b.switch_to_block(entry);
        let c = b.bconst(true);
        let arms = b.if_(c);
        b.switch_to_block(arms.then_block);
        b.br(arms.merge, &[]);
        b.switch_to_block(arms.else_block);
        b.br(arms.merge, &[]);
        b.switch_to_block(arms.merge);
        let _ = b.uconst(Scalar::U32, 1); // the merge holds no terminator
        let before = print_module(&module, View::Flat);
        let info = run_on_module(&mut module);
        assert_eq!(info.leaked_block_count, 1);
        assert!(!info.changed());
        let refusal = info.failure().expect("refused");
        assert_eq!(refusal.pass, "destructure-cfg");
        assert_eq!(refusal.function.as_deref(), Some("bad"));
        assert_eq!(refusal.block, Some(arms.merge), "the unterminated merge");
        assert_eq!(
            refusal.to_string(),
            "refused its input (leaked_block_count = 1)"
        );
        assert_eq!(print_module(&module, View::Flat), before);
        let single = run_on_function(&mut module, bad);
        assert_eq!(single.leaked_block_count, 1);
        assert_eq!(print_module(&module, View::Flat), before);
        assert_eq!(preflight_function(&module, bad).leaked_block_count, 1);
        assert_eq!(
            preflight_function(&module, module.function_by_name("good").unwrap()),
            DestructureCfgInfo::default()
        );
    }

    #[test]
    fn malformed_construct_is_an_error_and_changes_nothing() {
        // A loop whose body and update are the same block: the verifier's
        // MalformedStructure; the preflight refuses it.
        let mut module = parse_module(
            "const c0: u32 = 0\n\nkernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    loop prepare block1, body block2, update block2, merge block3\n\
             block1:\n    v0: bool = eq c0, c0\n    cond_br v0, block2, block3\nblock2:\n    br block1\nblock3:\n    return\n}\n",
        )
        .expect("parses");
        let before = print_module(&module, View::Flat);
        let info = run_on_module(&mut module);
        assert!(info.error_count > 0, "{info:?}");
        assert_eq!(print_module(&module, View::Flat), before);
    }

    #[test]
    fn body_less_functions_are_no_ops() {
        let mut module = parse_module("external @ext(f32) -> f32\n").expect("parses");
        let info = run_on_module(&mut module);
        assert_eq!(info, DestructureCfgInfo::default());
    }
}
