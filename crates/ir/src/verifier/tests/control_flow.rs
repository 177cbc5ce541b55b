//! SSA, edges, structured constructs and the control-flow options.

use super::*;

// --- SSA -------------------------------------------------------------------------------

#[test]
fn out_of_range_value() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let bogus = Value::new(999);
    place(&mut f, entry, InstData::new(Opcode::Return, &[bogus]));
    m.add_function(f);
    let report = verify(&m);
    // The return count is wrong too; the missing value is what matters here.
    let error = report
        .errors
        .iter()
        .find(|e| e.kind == ErrorKind::InvalidEntity)
        .expect("InvalidEntity");
    assert!(
        error.to_string().contains("function @main, block0"),
        "{error}"
    );
    assert!(error.to_string().contains("v999"), "{error}");
}

#[test]
fn detached_value_use() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let u32_ty = m.types.u32();
    let detached = f.dfg.make_detached_value(u32_ty);
    place_value(
        &mut f,
        entry,
        InstData::new(Opcode::Add, &[detached, detached]),
        u32_ty,
    );
    place(&mut f, entry, ret());
    m.add_function(f);
    let report = verify(&m);
    assert_eq!(report.errors.len(), 2, "{report}");
    assert!(
        report
            .errors
            .iter()
            .all(|e| e.kind == ErrorKind::UndefinedValue),
        "{report}"
    );
    assert!(
        report.errors[0]
            .to_string()
            .contains("function @main, block0"),
        "{report}"
    );
    assert!(
        report.errors[0].to_string().contains("detached"),
        "{report}"
    );
}

#[test]
fn use_of_a_removed_instruction_result() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let vec3u = m.types.vector(Scalar::U32, 3);
    let unplaced = f.dfg.make_inst(InstData::new(Opcode::ThreadId, &[]));
    let v = f.dfg.make_result(unplaced, vec3u);
    let u32_ty = m.types.u32();
    let data = InstData::with_payload(Opcode::Extract, &[v], Payload::Indices(Box::new([1])));
    place_value(&mut f, entry, data, u32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::UndefinedValue,
        &["function @main", "block0", "not placed"],
    );
}

#[test]
fn alias_cycle() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let u32_ty = m.types.u32();
    let a = f.dfg.make_detached_value(u32_ty);
    let b = f.dfg.make_detached_value(u32_ty);
    f.dfg.values[a].def = ValueDef::Alias(b);
    f.dfg.values[b].def = ValueDef::Alias(a);
    place_value(&mut f, entry, InstData::new(Opcode::Neg, &[a]), u32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::AliasCycle,
        &["function @main", "block0", "neg"],
    );
}

#[test]
fn aliases_are_seen_through() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    let u32_ty = m.types.u32();
    let alias = f.dfg.make_detached_value(u32_ty);
    f.dfg.values[alias].def = ValueDef::Alias(one);
    place_value(
        &mut f,
        entry,
        InstData::new(Opcode::Add, &[alias, one]),
        u32_ty,
    );
    place(&mut f, entry, ret());
    m.add_function(f);
    assert!(verify(&m).succeeded());
}

#[test]
fn definition_does_not_dominate_use() {
    let mut m = Module::new();
    let (mut f, b0, cond) = kernel_with_condition(&mut m);
    let (b1, b2, b3) = (
        f.append_new_block(),
        f.append_new_block(),
        f.append_new_block(),
    );
    let vec3u = m.types.vector(Scalar::U32, 3);
    place(&mut f, b0, if_(cond, b1, b2, Some(b3)));
    let tid = place_value(&mut f, b1, InstData::new(Opcode::ThreadId, &[]), vec3u);
    place(&mut f, b1, jump(Opcode::Br, b3, &[]));
    place(&mut f, b2, jump(Opcode::Br, b3, &[]));
    place_value(&mut f, b3, InstData::new(Opcode::Add, &[tid, tid]), vec3u);
    place(&mut f, b3, ret());
    m.add_function(f);
    let report = verify(&m);
    assert_eq!(report.errors.len(), 2, "{report}"); // both operands
    assert!(
        report
            .errors
            .iter()
            .all(|e| e.kind == ErrorKind::DominanceViolation),
        "{report}"
    );
    let text = report.errors[0].to_string();
    assert!(
        text.contains("function @main, block3") && text.contains("block1"),
        "{text}"
    );
}

#[test]
fn use_before_definition_in_the_same_block() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let entry = f.append_new_block();
    let vec3u = m.types.vector(Scalar::U32, 3);
    let later = f.dfg.make_inst(InstData::new(Opcode::ThreadId, &[]));
    let tid = f.dfg.make_result(later, vec3u);
    place_value(
        &mut f,
        entry,
        InstData::new(Opcode::Mul, &[tid, tid]),
        vec3u,
    );
    f.layout.append_inst(later, entry);
    place(&mut f, entry, ret());
    m.add_function(f);
    let report = verify(&m);
    assert_eq!(report.errors.len(), 2, "{report}");
    assert!(
        report
            .errors
            .iter()
            .all(|e| e.kind == ErrorKind::DominanceViolation),
        "{report}"
    );
    assert!(
        report.errors[0]
            .to_string()
            .contains("function @main, block0, inst1 (v1: vec3<u32> = mul v0, v0)"),
        "{report}"
    );
}

#[test]
fn constant_value_of_the_wrong_type() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let c = m.const_u32(3);
    let i32_ty = m.types.i32();
    let wrong = f.dfg.const_value(c, i32_ty);
    place_value(&mut f, entry, InstData::new(Opcode::Neg, &[wrong]), i32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::TypeMismatch,
        &["function @main", "block0", "constant c1"],
    );
}

#[test]
fn uses_in_unreachable_blocks_are_not_checked_for_dominance() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1, b2) = (
        f.append_new_block(),
        f.append_new_block(),
        f.append_new_block(),
    );
    let vec3u = m.types.vector(Scalar::U32, 3);
    place(&mut f, b0, ret());
    let tid = place_value(&mut f, b1, InstData::new(Opcode::ThreadId, &[]), vec3u);
    place(&mut f, b1, ret());
    place_value(&mut f, b2, InstData::new(Opcode::Add, &[tid, tid]), vec3u);
    place(&mut f, b2, ret());
    m.add_function(f);
    assert!(verify(&m).succeeded(), "{}", verify(&m));
}

// --- edges ---------------------------------------------------------------------------

#[test]
fn edge_to_a_block_outside_the_layout() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let entry = f.append_new_block();
    let floating = f.dfg.make_block();
    place(&mut f, entry, jump(Opcode::Br, floating, &[]));
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::BadEdge,
        &["function @main", "block0", "br block1", "not in the layout"],
    );
}

#[test]
fn edge_with_the_wrong_argument_count() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1) = (f.append_new_block(), f.append_new_block());
    let u32_ty = m.types.u32();
    f.dfg.append_block_param(b1, u32_ty);
    place(&mut f, b0, jump(Opcode::Br, b1, &[]));
    place(&mut f, b1, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::EdgeArgumentMismatch,
        &["function @main", "block0", "passes 0 arguments"],
    );
}

#[test]
fn edge_argument_of_the_wrong_type() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1) = (f.append_new_block(), f.append_new_block());
    let u32_ty = m.types.u32();
    f.dfg.append_block_param(b1, u32_ty);
    let yes = bool_const(&mut m, &mut f, true);
    place(&mut f, b0, jump(Opcode::Br, b1, &[yes]));
    place(&mut f, b1, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::EdgeArgumentMismatch,
        &[
            "function @main",
            "block0",
            "argument 0 of the edge to block1",
        ],
    );
}

#[test]
fn edge_arguments_are_used_at_the_end_of_the_source_block() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1) = (f.append_new_block(), f.append_new_block());
    let vec3u = m.types.vector(Scalar::U32, 3);
    let param = f.dfg.append_block_param(b1, vec3u);
    let tid = place_value(&mut f, b0, InstData::new(Opcode::ThreadId, &[]), vec3u);
    place(&mut f, b0, jump(Opcode::Br, b1, &[tid]));
    // b1 loops to itself passing its own parameter: a parameter dominates its block's end.
    let cond = bool_const(&mut m, &mut f, false);
    let exit = f.append_new_block();
    let payload = Payload::CondBranch {
        then_dest: BlockCall::with_args(b1, &[param]),
        else_dest: BlockCall::new(exit),
    };
    place(
        &mut f,
        b1,
        InstData::with_payload(Opcode::CondBr, &[cond], payload),
    );
    place(&mut f, exit, ret());
    m.add_function(f);
    assert!(verify(&m).succeeded(), "{}", verify(&m));
}

#[test]
fn entry_block_as_a_branch_target() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1) = (f.append_new_block(), f.append_new_block());
    place(&mut f, b0, jump(Opcode::Br, b1, &[]));
    place(&mut f, b1, jump(Opcode::Br, b0, &[]));
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::EntryBlockTargeted,
        &["function @main", "block1", "br block0"],
    );
}

// --- structured control flow ---------------------------------------------------------

#[test]
fn loop_roles_must_be_distinct() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let b: Vec<Block> = (0..4).map(|_| f.append_new_block()).collect();
    place(&mut f, b[0], loop_(b[1], b[2], b[2], b[3]));
    place(&mut f, b[1], jump(Opcode::Br, b[2], &[]));
    place(&mut f, b[2], jump(Opcode::Break, b[3], &[]));
    place(&mut f, b[3], ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::MalformedStructure,
        &["function @main", "block0", "body and update"],
    );
}

#[test]
fn merge_owned_twice() {
    let mut m = Module::new();
    let (mut f, b0, cond) = kernel_with_condition(&mut m);
    let b: Vec<Block> = (0..5).map(|_| f.append_new_block()).collect();
    // b0: if -> b[0] / b[1], merge b[4]; b[0]: if -> b[2] / b[3], merge b[4] as well.
    place(&mut f, b0, if_(cond, b[0], b[1], Some(b[4])));
    place(&mut f, b[0], if_(cond, b[2], b[3], Some(b[4])));
    for &arm in &b[1..4] {
        place(&mut f, arm, jump(Opcode::Br, b[4], &[]));
    }
    place(&mut f, b[4], ret());
    m.add_function(f);
    assert!(verify(&m).succeeded());
    let options = VerifierOptions {
        require_unique_merge_blocks: true,
        ..VerifierOptions::default()
    };
    expect_one(
        &verify_with(&m, options),
        ErrorKind::DuplicateMerge,
        &["function @main", "block1", "block5"],
    );
}

/// Nested loops: `outer` in block0 (prepare 1, body 2, update 3, merge 4) and `inner` in
/// block2 (prepare 5, body 6, update 7, merge 8); block6 ends with `exit` to `target`.
fn nested_loops(exit: Opcode, target: usize) -> Module {
    let mut m = Module::new();
    let mut f = kernel("main");
    let b: Vec<Block> = (0..9).map(|_| f.append_new_block()).collect();
    place(&mut f, b[0], loop_(b[1], b[2], b[3], b[4]));
    place(&mut f, b[1], jump(Opcode::Br, b[2], &[]));
    place(&mut f, b[2], loop_(b[5], b[6], b[7], b[8]));
    place(&mut f, b[5], jump(Opcode::Br, b[6], &[]));
    place(&mut f, b[6], jump(exit, b[target], &[]));
    place(&mut f, b[7], jump(Opcode::Br, b[5], &[]));
    place(&mut f, b[8], jump(Opcode::Break, b[4], &[]));
    place(&mut f, b[3], jump(Opcode::Br, b[1], &[]));
    place(&mut f, b[4], ret());
    m.add_function(f);
    m
}

#[test]
fn break_to_the_merge_of_an_outer_loop() {
    let canonical = VerifierOptions {
        require_canonical_break_continue_targets: true,
        ..VerifierOptions::default()
    };
    assert!(verify_with(&nested_loops(Opcode::Break, 8), canonical.clone()).succeeded());
    assert!(verify_with(&nested_loops(Opcode::Continue, 7), canonical.clone()).succeeded());
    let outer_break = nested_loops(Opcode::Break, 4);
    assert!(
        verify(&outer_break).succeeded(),
        "without the option any loop merge will do"
    );
    let report = verify_with(&outer_break, canonical.clone());
    expect_one(
        &report,
        ErrorKind::NonCanonicalBreakContinue,
        &["function @main", "block6", "merges at block8"],
    );
    let outer_continue = nested_loops(Opcode::Continue, 3);
    let report = verify_with(&outer_continue, canonical);
    expect_one(
        &report,
        ErrorKind::NonCanonicalBreakContinue,
        &["function @main", "block6", "continues at block7"],
    );
}

#[test]
fn continue_outside_a_loop() {
    // A switch whose case continues to a block that is no loop's update block.
    let mut m = Module::new();
    let mut f = kernel("main");
    let b: Vec<Block> = (0..4).map(|_| f.append_new_block()).collect();
    let one = u32_const(&mut m, &mut f, 1);
    let payload = Payload::Switch {
        table: switch_table(&[(1, b[1])], b[2]),
        merge: b[3],
    };
    place(
        &mut f,
        b[0],
        InstData::with_payload(Opcode::Switch, &[one], payload),
    );
    place(&mut f, b[1], jump(Opcode::Continue, b[3], &[]));
    place(&mut f, b[2], jump(Opcode::Break, b[3], &[]));
    place(&mut f, b[3], ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::BreakOutsideConstruct,
        &["function @main", "block1", "continue"],
    );
    let canonical = VerifierOptions {
        require_canonical_break_continue_targets: true,
        ..VerifierOptions::default()
    };
    expect_one(
        &verify_with(&m, canonical),
        ErrorKind::BreakOutsideConstruct,
        &["function @main", "block1", "not inside any loop"],
    );
}

#[test]
fn break_after_the_loop_it_names() {
    // The break sits in the loop's merge block: the loop no longer encloses it.
    let mut m = Module::new();
    let mut f = kernel("main");
    let b: Vec<Block> = (0..5).map(|_| f.append_new_block()).collect();
    place(&mut f, b[0], loop_(b[1], b[2], b[3], b[4]));
    place(&mut f, b[1], jump(Opcode::Br, b[2], &[]));
    place(&mut f, b[2], jump(Opcode::Break, b[4], &[]));
    place(&mut f, b[3], jump(Opcode::Br, b[1], &[]));
    place(&mut f, b[4], jump(Opcode::Break, b[4], &[]));
    m.add_function(f);
    let canonical = VerifierOptions {
        require_canonical_break_continue_targets: true,
        ..VerifierOptions::default()
    };
    let report = verify_with(&m, canonical);
    let breaks: Vec<_> = report
        .errors
        .iter()
        .filter(|e| e.kind == ErrorKind::BreakOutsideConstruct)
        .collect();
    assert_eq!(breaks.len(), 1, "{report}");
    assert!(
        breaks[0].to_string().contains("function @main, block4"),
        "{report}"
    );
}

#[test]
fn non_canonical_switch_label() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let b: Vec<Block> = (0..3).map(|_| f.append_new_block()).collect();
    let c = m.const_scalar(Scalar::I8, 1);
    let i8_ty = m.types.scalar(Scalar::I8);
    let selector = f.dfg.const_value(c, i8_ty);
    // -1 as an i8 label is stored sign-extended; 0xff is not canonical.
    let table = switch_table(&[(0xff, b[1]), (u64::MAX - 1, b[1])], b[2]);
    place(
        &mut f,
        b[0],
        InstData::with_payload(Opcode::SwitchBr, &[selector], Payload::SwitchBranch(table)),
    );
    place(&mut f, b[1], ret());
    place(&mut f, b[2], ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::NonCanonicalSwitchLabel,
        &["function @main", "block0", "0xff", "i8"],
    );
}

#[test]
fn duplicate_switch_label() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let b: Vec<Block> = (0..4).map(|_| f.append_new_block()).collect();
    let one = u32_const(&mut m, &mut f, 1);
    let payload = Payload::Switch {
        table: switch_table(&[(1, b[1]), (1, b[2])], b[3]),
        merge: b[3],
    };
    place(
        &mut f,
        b[0],
        InstData::with_payload(Opcode::Switch, &[one], payload),
    );
    place(&mut f, b[1], jump(Opcode::Break, b[3], &[]));
    place(&mut f, b[2], jump(Opcode::Break, b[3], &[]));
    place(&mut f, b[3], ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::DuplicateSwitchLabel,
        &["function @main", "block0", "0x1"],
    );
}

#[test]
fn structural_role_outside_the_layout() {
    let mut m = Module::new();
    let (mut f, b0, cond) = kernel_with_condition(&mut m);
    let (b1, b2) = (f.append_new_block(), f.append_new_block());
    let floating = f.dfg.make_block();
    place(&mut f, b0, if_(cond, b1, b2, Some(floating)));
    place(&mut f, b1, ret());
    place(&mut f, b2, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::MalformedStructure,
        &["function @main", "block0", "block3"],
    );
}

// --- options -------------------------------------------------------------------------

#[test]
fn unreachable_block_with_the_option() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1) = (f.append_new_block(), f.append_new_block());
    place(&mut f, b0, ret());
    place(&mut f, b1, ret());
    m.add_function(f);
    assert!(verify(&m).succeeded());
    let options = VerifierOptions {
        require_reachable_blocks: true,
        ..VerifierOptions::default()
    };
    expect_one(
        &verify_with(&m, options),
        ErrorKind::UnreachableBlock,
        &["function @main", "block1"],
    );
}

#[test]
fn merge_roles_are_not_edges_for_reachability() {
    // Both arms return: the merge block is owned but never reached.
    let mut m = Module::new();
    let (mut f, b0, cond) = kernel_with_condition(&mut m);
    let (b1, b2, b3) = (
        f.append_new_block(),
        f.append_new_block(),
        f.append_new_block(),
    );
    place(&mut f, b0, if_(cond, b1, b2, Some(b3)));
    place(&mut f, b1, ret());
    place(&mut f, b2, ret());
    place(&mut f, b3, ret());
    m.add_function(f);
    let options = VerifierOptions {
        require_reachable_blocks: true,
        ..VerifierOptions::default()
    };
    expect_one(
        &verify_with(&m, options),
        ErrorKind::UnreachableBlock,
        &["function @main", "block3"],
    );
}

#[test]
fn block_params_with_the_option() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1) = (f.append_new_block(), f.append_new_block());
    let u32_ty = m.types.u32();
    f.dfg.append_block_param(b1, u32_ty);
    let one = u32_const(&mut m, &mut f, 1);
    place(&mut f, b0, jump(Opcode::Br, b1, &[one]));
    place(&mut f, b1, ret());
    m.add_function(f);
    assert!(verify(&m).succeeded());
    let options = VerifierOptions {
        require_no_block_params: true,
        ..VerifierOptions::default()
    };
    expect_one(
        &verify_with(&m, options),
        ErrorKind::BlockParamsNotAllowed,
        &["function @main", "block1"],
    );
}

#[test]
fn cond_br_with_no_unstructured_option() {
    let mut m = Module::new();
    let (mut f, b0, cond) = kernel_with_condition(&mut m);
    let (b1, b2) = (f.append_new_block(), f.append_new_block());
    let payload = Payload::CondBranch {
        then_dest: BlockCall::new(b1),
        else_dest: BlockCall::new(b2),
    };
    place(
        &mut f,
        b0,
        InstData::with_payload(Opcode::CondBr, &[cond], payload),
    );
    place(&mut f, b1, ret());
    place(&mut f, b2, ret());
    m.add_function(f);
    assert!(verify(&m).succeeded());
    let options = VerifierOptions {
        require_no_unstructured_control_flow: true,
        ..VerifierOptions::default()
    };
    expect_one(
        &verify_with(&m, options),
        ErrorKind::UnstructuredControlFlow,
        &["function @main", "block0", "cond_br"],
    );
}
