//! What the text form cannot express, so the fixtures under `tests/filetests/ir/invalid/`
//! cannot test it: cyclic types, scalar constants with non-canonical bits (the printer
//! writes them as literals the parser refuses), a global and a function of one name (the
//! parser refuses it), dangling layout entries, results attached to the wrong instruction,
//! payloads of the wrong format, out-of-range and detached values, aliases, constant values
//! of a type other than the constant's, and switching the always-on rule off.

use super::*;

// --- module items ------------------------------------------------------------------------

#[test]
fn cyclic_types_are_reported_not_followed() {
    let mut m = Module::new();
    // type0 = array<type1, 2>, type1 = array<type0, 2>: a cycle through forward references.
    let a = m.types.intern(TypeData::Array {
        elem: Type::new(1),
        len: 2,
        stride: None,
    });
    let b = m.types.intern(TypeData::Array {
        elem: a,
        len: 2,
        stride: None,
    });
    assert_eq!(b, Type::new(1));
    // A function that uses the cyclic type as a value type must not make anything recurse.
    let mut f = kernel("main");
    let entry = f.append_new_block();
    let v = place_value(&mut f, entry, InstData::new(Opcode::ThreadId, &[]), a);
    place(&mut f, entry, InstData::new(Opcode::Add, &[v, v]));
    place(&mut f, entry, ret());
    m.add_function(f);
    let report = verify(&m);
    assert!(
        report
            .errors
            .iter()
            .any(|e| e.kind == ErrorKind::MalformedType),
        "{report}"
    );
    assert!(
        report
            .errors
            .iter()
            .all(|e| e.kind == ErrorKind::MalformedType),
        "{report}"
    );
}

#[test]
fn types_nested_past_the_limit_are_reported() {
    let mut m = Module::new();
    let mut ty = m.types.f32();
    for _ in 0..MAX_TYPE_NESTING {
        ty = m.types.array(ty, 1);
    }
    assert_eq!(m.types.nesting(ty), 64);
    assert!(verify(&m).succeeded(), "{}", verify(&m));
    let deeper = m.types.pointer(AddressSpace::Private, ty);
    assert_eq!(m.types.nesting(deeper), 65);
    let report = verify(&m);
    let nesting_errors: Vec<_> = report
        .errors
        .iter()
        .filter(|e| e.kind == ErrorKind::MalformedType && e.message.contains("65 levels"))
        .collect();
    assert_eq!(nesting_errors.len(), 1, "{report}");
    assert_eq!(
        nesting_errors[0].location,
        Location::Type(deeper),
        "{report}"
    );
}

#[test]
fn non_canonical_scalar_constant() {
    let mut m = Module::new();
    let ty = m.types.u32();
    let c = m.consts.intern(ConstData {
        ty,
        kind: ConstKind::Scalar(0x1_0000_0001),
    });
    let error = expect_one(
        &verify(&m),
        ErrorKind::MalformedConstant,
        &["constant c0", "canonical"],
    );
    assert_eq!(error.location, Location::Const(c));
}

#[test]
fn global_and_function_names_are_shared() {
    let mut m = Module::new();
    let ty = m.types.u32();
    m.add_global(GlobalData {
        name: "main".into(),
        space: AddressSpace::Private,
        ty,
        init: None,
        binding: None,
    });
    let mut f = kernel("main");
    let entry = f.append_new_block();
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::DuplicateName,
        &["function @main", "@main is already taken"],
    );
}

// --- blocks and instructions -------------------------------------------------------------

#[test]
fn empty_block_passes_without_terminated_blocks() {
    let mut m = Module::new();
    let mut f = kernel("main");
    f.append_new_block();
    m.add_function(f);
    assert_eq!(verify(&m).errors.len(), 1, "{}", verify(&m));
    let relaxed = VerifierOptions {
        require_terminated_blocks: false,
        ..VerifierOptions::default()
    };
    assert!(verify_with(&m, relaxed).succeeded());
}

#[test]
fn layout_listing_a_missing_instruction() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let entry = f.append_new_block();
    f.layout.append_inst(Inst::new(7), entry);
    m.add_function(f);
    let report = verify_with(
        &m,
        VerifierOptions {
            require_terminated_blocks: false,
            ..VerifierOptions::default()
        },
    );
    expect_one(
        &report,
        ErrorKind::InvalidEntity,
        &["function @main", "block0", "inst7"],
    );
}

#[test]
fn result_attached_to_the_wrong_instruction() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let entry = f.append_new_block();
    let vec3u = m.types.vector(Scalar::U32, 3);
    let first = place(&mut f, entry, InstData::new(Opcode::ThreadId, &[]));
    let v = f.dfg.make_result(first, vec3u);
    let second = place(&mut f, entry, InstData::new(Opcode::WorkgroupId, &[]));
    // `v` now claims to be the result of `second`, while `first` still lists it.
    f.dfg.attach_result(second, v, vec3u);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::DefinitionMismatch,
        &["function @main", "block0", "inst0"],
    );
}

#[test]
fn wrong_payload() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    let u32_ty = m.types.u32();
    let data = InstData::with_payload(Opcode::Add, &[one, one], Payload::Message("hi".into()));
    place_value(&mut f, entry, data, u32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::WrongPayload,
        &["function @main", "block0", "add"],
    );
}

/// The layout's own debug assertions forbid placing an instruction twice, so the corrupted
/// list (an instruction that is its own successor) can only be built in release builds.
#[cfg(not(debug_assertions))]
#[test]
fn instruction_listed_twice() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let entry = f.append_new_block();
    let inst = f.dfg.make_inst(ret());
    f.layout.append_inst(inst, entry);
    f.layout.append_inst(inst, entry);
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::LayoutCorruption,
        &["function @main", "block0", "twice"],
    );
}

// --- values ------------------------------------------------------------------------------

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
