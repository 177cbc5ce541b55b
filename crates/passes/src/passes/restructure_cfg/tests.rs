//! Unit tests of the restructuring internals: refusal counters and atomicity, the
//! dominance-repair refusal, scope of `run_on_function`, cost counters that must not grow
//! with the number of constructs, and deep nesting without recursion.

use super::*;
use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::{AbiParam, BlockCall, Builtin, FunctionKind, Signature, StageBinding};

fn parse(text: &str) -> Module {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let report = verify_module(&module, &VerifierOptions::default());
    assert!(report.succeeded(), "{report}\n{text}");
    module
}

fn assert_structured(module: &Module) {
    let report = verify_module(module, &VerifierOptions::all());
    assert!(
        report.succeeded(),
        "{report}\n{}",
        print_module(module, View::Flat)
    );
}

const GOOD: &str = "callable @good(bool) -> u32 {
block0(v0: bool):
    cond_br v0, block1, block2
block1:
    return c0
block2:
    return c0
}
";

const IRREDUCIBLE: &str =
    "kernel @bad(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {
block0(v0: u32):
    v1: bool = lt v0, v0
    cond_br v1, block1, block2
block1:
    cond_br v1, block2, block3
block2:
    cond_br v1, block1, block3
block3:
    cond_br v1, block4, block5
block4:
    cond_br v1, block5, block6
block5:
    cond_br v1, block4, block6
block6:
    return
}
";

/// The refusal names the pass, the function and the block entered by the first retreating
/// edge it does not dominate (block1, from block2), and prints as it always has.
#[test]
fn a_refusal_carries_the_pass_the_function_and_the_block() {
    let text = format!("const c0: u32 = 0\n\n{GOOD}\n{IRREDUCIBLE}");
    let mut module = parse(&text);
    let refusal = run_on_module(&mut module).failure().expect("refused");
    assert_eq!(refusal.pass, "restructure-cfg");
    assert_eq!(refusal.function.as_deref(), Some("bad"));
    assert_eq!(refusal.block, Some(Block::from_u32(1)));
    assert_eq!(refusal.location().as_deref(), Some("@bad, block1"));

    let mut pipeline = crate::PassPipeline::new();
    pipeline.add("restructure-cfg", |m: &mut Module| {
        crate::PassOutcome::from_info(&run_on_module(m))
    });
    let error = pipeline.run(&mut module).error.expect("the pipeline stops");
    assert_eq!(
        error.to_string(),
        "restructure-cfg: refused its input (irreducible_region_count = 2)"
    );
    assert_eq!(error.refusal(), Some(&refusal));
}

/// Mixed control flow names the first block with an unstructured branch.
#[test]
fn a_mixed_control_flow_refusal_names_the_unstructured_block() {
    let text = "const c0: bool = true
callable @mixed() {
block0:
    if c0, then block1, else block2, merge block3
block1:
    br block3
block2:
    br block3
block3:
    cond_br c0, block4, block5
block4:
    return
block5:
    return
}
";
    let mut module = parse(text);
    let refusal = run_on_module(&mut module).failure().expect("refused");
    assert_eq!(refusal.function.as_deref(), Some("mixed"));
    assert_eq!(refusal.block, Some(Block::from_u32(3)));
    assert_eq!(
        refusal.to_string(),
        "refused its input (mixed_control_flow_count = 1)"
    );
}

#[test]
fn irreducible_functions_refuse_the_whole_module_unchanged() {
    let text = format!("const c0: u32 = 0\n\n{GOOD}\n{IRREDUCIBLE}");
    let mut module = parse(&text);
    let before = print_module(&module, View::Flat);
    let info = run_on_module(&mut module);
    // Two two-entry cycles; each has both of its blocks entered by a retreating edge the
    // other does not dominate only once per depth-first order: one target each.
    assert_eq!(info.irreducible_region_count, 2, "{info:?}");
    assert!(!info.changed());
    assert_eq!(
        info.restructured_if_count, 0,
        "a refused run reports no changes"
    );
    assert!(info.failure().is_some());
    assert_eq!(print_module(&module, View::Flat), before);
    // The good function alone is fine.
    let good = module.function_by_name("good").unwrap();
    let info = run_on_function(&mut module, good);
    assert!(
        info.failure().is_none() && info.restructured_if_count == 1,
        "{info:?}"
    );
}

#[test]
fn block_parameters_are_counted_per_block_and_refused() {
    let mut module = parse(
        "kernel @main(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {
block0(v0: u32):
    v1: bool = lt v0, v0
    cond_br v1, block1(v0), block2(v0, v0)
block1(v2: u32):
    br block2(v2, v2)
block2(v3: u32, v4: u32):
    return
}
",
    );
    let before = print_module(&module, View::Flat);
    let info = run_on_module(&mut module);
    assert_eq!(info.unsupported_block_param_count, 2, "{info:?}");
    assert_eq!(print_module(&module, View::Flat), before);
}

#[test]
fn mixed_structured_and_plain_branches_are_refused() {
    let mut module = parse(
        "kernel @main(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {
block0(v0: u32):
    v1: bool = lt v0, v0
    if v1, then block1, else block2, merge block3
block1:
    br block3
block2:
    br block3
block3:
    switch_br v0, [0: block4], default block4
block4:
    return
}
",
    );
    let before = print_module(&module, View::Flat);
    let info = run_on_module(&mut module);
    assert_eq!(info.mixed_control_flow_count, 1, "{info:?}");
    assert_eq!(print_module(&module, View::Flat), before);
}

/// A pointer computed in a loop body and used after the loop's second exit loses
/// dominance (the exits meet in the dispatch) and cannot go through a slot: refused, and
/// the module (constants included: the dispatch interned some) is byte-identical.
#[test]
fn pointers_that_lose_dominance_refuse_unchanged() {
    let mut module = parse(
        "global @out: storage(read_write) array<u32> binding(0, 0)

kernel @main(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {
block0(v0: u32):
    v1: bool = lt v0, v0
    cond_br v1, block1, block4
block1:
    v2: bool = gt v0, v0
    cond_br v2, block2, block4
block2:
    v3: ptr<storage(read_write), u32> = access @out, v0
    v4: bool = eq v0, v0
    cond_br v4, block5, block3
block3:
    br block1
block4:
    br block6
block5:
    store v3, v0
    br block6
block6:
    return
}
",
    );
    let before = print_module(&module, View::Flat);
    let info = run_on_module(&mut module);
    assert_eq!(info.undemotable_value_count, 1, "{info:?}");
    assert!(!info.changed());
    assert_eq!(print_module(&module, View::Flat), before);
}

/// The same shape with a `u32` value instead of a pointer is repaired through a slot.
#[test]
fn storable_values_that_lose_dominance_go_through_a_slot() {
    let mut module = parse(
        "global @out: storage(read_write) array<u32> binding(0, 0)

kernel @main(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {
block0(v0: u32):
    v1: bool = lt v0, v0
    cond_br v1, block1, block4
block1:
    v2: bool = gt v0, v0
    cond_br v2, block2, block4
block2:
    v3: u32 = add v0, v0
    v4: bool = eq v3, v0
    cond_br v4, block5, block3
block3:
    br block1
block4:
    br block6
block5:
    v5: ptr<storage(read_write), u32> = access @out, v0
    store v5, v3
    br block6
block6:
    return
}
",
    );
    let info = run_on_module(&mut module);
    assert_eq!(info.demoted_value_count, 1, "{info:?}");
    assert_eq!(info.loop_exit_dispatch_count, 1, "{info:?}");
    assert_structured(&module);
    let text = print_module(&module, View::Flat);
    assert!(text.contains(finish::REPAIR_SLOT_COMMENT), "{text}");
}

#[test]
fn run_on_function_changes_only_that_function() {
    let text = "kernel @a(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {
block0(v0: u32):
    v1: bool = lt v0, v0
    cond_br v1, block1, block2
block1:
    br block2
block2:
    return
}

kernel @b(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {
block0(v0: u32):
    v1: bool = lt v0, v0
    cond_br v1, block1, block2
block1:
    br block2
block2:
    return
}
";
    let mut module = parse(text);
    let b = module.function_by_name("b").unwrap();
    let b_before = oxir_ir::printer::print_function(&module, b, View::Flat);
    let a = module.function_by_name("a").unwrap();
    let info = run_on_function(&mut module, a);
    assert_eq!(info.restructured_if_count, 1);
    assert_eq!(
        oxir_ir::printer::print_function(&module, b, View::Flat),
        b_before
    );
    // Restructured output is left alone.
    let again = run_on_function(&mut module, a);
    assert!(!again.changed() && again.failure().is_none(), "{again:?}");
}

/// A kernel with `count` sibling loops in sequence, each with a nested `if`, built as
/// text.
fn sibling_loops(count: usize) -> String {
    let mut text = String::from(
        "kernel @main(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {\nblock0(v0: u32):\n    v1: ptr<function, u32> = alloca\n    br block1\n",
    );
    for i in 0..count {
        let (h, body, then_, latch, next) = (1 + 4 * i, 2 + 4 * i, 3 + 4 * i, 4 + 4 * i, 5 + 4 * i);
        let v = 2 + 3 * i;
        text += &format!(
            "block{h}:\n    v{v}: u32 = load v1\n    v{}: bool = lt v{v}, v0\n    cond_br v{}, block{body}, block{next}\n",
            v + 1,
            v + 1
        );
        text += &format!(
            "block{body}:\n    v{}: bool = gt v{v}, v0\n    cond_br v{}, block{then_}, block{latch}\n",
            v + 2,
            v + 2
        );
        text += &format!("block{then_}:\n    store v1, v0\n    br block{latch}\n");
        text += &format!("block{latch}:\n    store v1, v{v}\n    br block{h}\n");
    }
    text += &format!("block{}:\n    return\n}}\n", 1 + 4 * count);
    text
}

/// The analyses run at most a fixed number of times per function, and dominance queries grow in
/// proportion to the blocks, not with the number of constructs times the size.
#[test]
fn cost_counters_do_not_grow_with_the_number_of_constructs() {
    let mut small = parse(&sibling_loops(1));
    let small_info = run_on_module(&mut small);
    assert_structured(&small);
    let mut large = parse(&sibling_loops(200));
    let large_info = run_on_module(&mut large);
    assert_structured(&large);
    assert_eq!(large_info.restructured_loop_count, 200);
    assert_eq!(large_info.restructured_if_count, 200);
    // A phase that changed nothing hands its analyses on, so the count depends on which
    // phases changed the function, but never on how many constructs there are.
    for info in [&small_info, &large_info] {
        assert!(
            (1..=MAX_ANALYSES_PER_FUNCTION).contains(&info.analysis_count),
            "{} analyses for one function",
            info.analysis_count
        );
    }
    let blocks = 4 * 200 + 2;
    assert!(
        large_info.dominance_query_count <= 8 * blocks as u64,
        "{} dominance queries for {blocks} blocks",
        large_info.dominance_query_count
    );
}

/// 20 000 nested `if`s (each arm holding the next branch) and a 100 000-block chain: the
/// analyses and the translation are iterative, so this runs on a test thread's stack.
#[test]
fn deep_nesting_does_not_recurse() {
    let mut module = Module::new();
    let u32_ty = module.types.u32();
    let bool_ty = module.types.bool();
    let signature = Signature {
        params: vec![AbiParam::bound(
            u32_ty,
            StageBinding::Builtin(Builtin::LocalInvocationIndex),
        )],
        returns: Vec::new(),
    };
    let kind = FunctionKind::kernel([1, 1, 1]);
    let mut f = Function::new("main", kind, signature);
    let entry = f.append_new_block();
    let param = f.dfg.append_block_param(entry, u32_ty);
    let cmp = f.dfg.make_inst(InstData::new(Opcode::Lt, &[param, param]));
    let cond = f.dfg.make_result(cmp, bool_ty);
    f.layout.append_inst(cmp, entry);
    let depth = 20_000;
    let mut current = entry;
    let exit = f.append_new_block();
    let ret = f.dfg.make_inst(InstData::new(Opcode::Return, &[]));
    f.layout.append_inst(ret, exit);
    for _ in 0..depth {
        let (inner, skip) = (f.append_new_block(), f.append_new_block());
        let payload = Payload::CondBranch {
            then_dest: BlockCall::new(inner),
            else_dest: BlockCall::new(skip),
        };
        let br = f
            .dfg
            .make_inst(InstData::with_payload(Opcode::CondBr, &[cond], payload));
        f.layout.append_inst(br, current);
        let to_exit = f.dfg.make_inst(InstData::with_payload(
            Opcode::Br,
            &[],
            Payload::Jump(BlockCall::new(exit)),
        ));
        f.layout.append_inst(to_exit, skip);
        current = inner;
    }
    // Then a long straight chain.
    for _ in 0..100_000 {
        let next = f.append_new_block();
        let br = f.dfg.make_inst(InstData::with_payload(
            Opcode::Br,
            &[],
            Payload::Jump(BlockCall::new(next)),
        ));
        f.layout.append_inst(br, current);
        current = next;
    }
    let to_exit = f.dfg.make_inst(InstData::with_payload(
        Opcode::Br,
        &[],
        Payload::Jump(BlockCall::new(exit)),
    ));
    f.layout.append_inst(to_exit, current);
    module.add_function(f);
    let info = run_on_module(&mut module);
    assert!(info.failure().is_none(), "{info:?}");
    assert_eq!(info.restructured_if_count, depth as u64);
    assert_eq!(info.guard_count, 0);
    assert_structured(&module);
}

/// A `switch_br` on a `bool` inside a loop whose case breaks the loop: an `if` chain on
/// `eq` of the bool.
#[test]
fn bool_switch_that_breaks_becomes_an_if_chain() {
    let mut module = parse(
        "kernel @main(u32 builtin(local_invocation_index)) workgroup_size(1, 1, 1) {
block0(v0: u32):
    br block1
block1:
    v1: bool = lt v0, v0
    switch_br v1, [1: block2], default block3
block2:
    br block4
block3:
    br block1
block4:
    return
}
",
    );
    let info = run_on_module(&mut module);
    assert_eq!(info.switch_to_if_chain_count, 1, "{info:?}");
    assert_eq!(info.restructured_switch_count, 0);
    assert_structured(&module);
    let text = print_module(&module, View::Flat);
    assert!(text.contains("= eq v1, "), "{text}");
}
