//! Module items (types, constants, globals, signatures), blocks and instructions.

use super::*;

// --- module items ------------------------------------------------------------------------

#[test]
fn malformed_vector_type() {
    let mut m = Module::new();
    let ty = m.types.intern(TypeData::Vector {
        elem: Scalar::F32,
        len: 5,
    });
    let error = expect_one(&verify(&m), ErrorKind::MalformedType, &["vec5<f32>"]);
    assert_eq!(error.location, Location::Type(ty));
}

#[test]
fn cyclic_types_are_reported_not_followed() {
    let mut m = Module::new();
    // type0 = array<type1, 2>, type1 = array<type0, 2>: a cycle through forward references.
    let a = m.types.intern(TypeData::Array {
        elem: Type::new(1),
        len: 2,
    });
    let b = m.types.intern(TypeData::Array { elem: a, len: 2 });
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
fn runtime_array_in_the_middle_of_a_struct() {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let runtime = m.types.runtime_array(u32_ty);
    let member = |name: &str, ty| crate::types::StructMember {
        name: name.into(),
        ty,
        offset: None,
    };
    let st = crate::types::StructType {
        name: "S".into(),
        members: vec![member("a", runtime), member("b", u32_ty)],
        align: None,
    };
    m.types.declare_struct(st);
    expect_one(&verify(&m), ErrorKind::MalformedType, &["%S", "member `a`"]);
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
fn composite_constant_with_too_few_lanes() {
    let mut m = Module::new();
    let one = m.const_f32(1.0);
    let vec3 = m.types.vector(Scalar::F32, 3);
    m.const_composite(vec3, vec![one, one]);
    expect_one(
        &verify(&m),
        ErrorKind::MalformedConstant,
        &["needs 3 elements"],
    );
}

#[test]
fn storage_global_without_binding() {
    let mut m = Module::new();
    let ty = m.types.u32();
    let space = AddressSpace::Storage(StorageAccess::Read);
    m.add_global(GlobalData {
        name: "data".into(),
        space,
        ty,
        init: None,
        binding: None,
    });
    expect_one(
        &verify(&m),
        ErrorKind::MalformedGlobal,
        &["global @data", "binding"],
    );
}

#[test]
fn kernel_with_zero_workgroup_size() {
    let mut m = Module::new();
    let mut f = Function::new(
        "main",
        FunctionKind::Kernel {
            workgroup_size: [8, 0, 1],
        },
        Signature::default(),
    );
    let entry = f.append_new_block();
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::MalformedSignature,
        &["function @main", "zero"],
    );
}

#[test]
fn entry_block_params_must_match_the_signature() {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let f32_ty = m.types.f32();
    let sig = Signature {
        params: vec![AbiParam::new(u32_ty)],
        returns: vec![],
    };
    let mut f = Function::new("helper", FunctionKind::Callable, sig);
    let entry = f.append_new_block();
    f.dfg.append_block_param(entry, f32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::MalformedFunction,
        &["function @helper", "block0", "entry parameter 0"],
    );
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

// --- blocks --------------------------------------------------------------------------

#[test]
fn missing_terminator() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let tid_ty = m.types.vector(Scalar::U32, 3);
    place_value(&mut f, entry, InstData::new(Opcode::ThreadId, &[]), tid_ty);
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::MissingTerminator,
        &["function @main", "block0", "thread_id"],
    );
}

#[test]
fn empty_block_is_missing_its_terminator() {
    let mut m = Module::new();
    let mut f = kernel("main");
    f.append_new_block();
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::MissingTerminator,
        &["function @main", "block0", "empty"],
    );
    let relaxed = VerifierOptions {
        require_terminated_blocks: false,
        ..VerifierOptions::default()
    };
    assert!(verify_with(&m, relaxed).succeeded());
}

#[test]
fn terminator_in_the_middle() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let entry = f.append_new_block();
    let early = place(&mut f, entry, ret());
    place(&mut f, entry, ret());
    m.add_function(f);
    let error = expect_one(
        &verify(&m),
        ErrorKind::MisplacedTerminator,
        &["function @main", "block0", "inst0 (return)"],
    );
    assert_eq!(error.location, Location::Inst(Func::new(0), entry, early));
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

// --- instructions --------------------------------------------------------------------

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

#[test]
fn wrong_operand_count() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    let u32_ty = m.types.u32();
    place_value(&mut f, entry, InstData::new(Opcode::Add, &[one]), u32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::WrongArity,
        &["function @main", "block0", "exactly 2"],
    );
}

#[test]
fn operand_types_break_the_rule() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    let c = m.const_f32(1.0);
    let f32_ty = m.types.f32();
    let half = f.dfg.const_value(c, f32_ty);
    let u32_ty = m.types.u32();
    place_value(
        &mut f,
        entry,
        InstData::new(Opcode::Add, &[one, half]),
        u32_ty,
    );
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::TypeMismatch,
        &["function @main", "block0", "v3: u32 = add c1, c2"],
    );
}

#[test]
fn result_type_differs_from_the_rule() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    let i32_ty = m.types.i32();
    place_value(
        &mut f,
        entry,
        InstData::new(Opcode::Add, &[one, one]),
        i32_ty,
    );
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::TypeMismatch,
        &["function @main", "block0", "produces u32"],
    );
}

#[test]
fn missing_result() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    place(&mut f, entry, InstData::new(Opcode::Add, &[one, one]));
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::WrongResultCount,
        &["function @main", "block0", "no result"],
    );
}

#[test]
fn void_result_value() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let void = m.types.void();
    place_value(&mut f, entry, InstData::new(Opcode::ThreadId, &[]), void);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::InvalidValueType,
        &["function @main", "block0", "type void"],
    );
}

#[test]
fn call_with_wrong_argument_count() {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let sig = Signature {
        params: vec![AbiParam::new(u32_ty), AbiParam::new(u32_ty)],
        returns: vec![],
    };
    let callee = m.add_function(Function::new("ext", FunctionKind::External, sig));
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    place(
        &mut f,
        entry,
        InstData::with_payload(Opcode::Call, &[one], Payload::Callee(callee)),
    );
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::WrongArity,
        &["function @main", "block0", "call @ext", "takes 2"],
    );
}

#[test]
fn call_to_an_entry_point() {
    let mut m = Module::new();
    let mut other = kernel("other");
    let other_entry = other.append_new_block();
    place(&mut other, other_entry, ret());
    let other = m.add_function(other);
    let mut f = kernel("main");
    let entry = f.append_new_block();
    place(
        &mut f,
        entry,
        InstData::with_payload(Opcode::Call, &[], Payload::Callee(other)),
    );
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::BadCallee,
        &["function @main", "block0", "entry point"],
    );
}

#[test]
fn return_value_of_the_wrong_type() {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let sig = Signature {
        params: vec![],
        returns: vec![AbiParam::new(u32_ty)],
    };
    let mut f = Function::new("helper", FunctionKind::Callable, sig);
    let entry = f.append_new_block();
    let yes = bool_const(&mut m, &mut f, true);
    place(&mut f, entry, InstData::new(Opcode::Return, &[yes]));
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::TypeMismatch,
        &["function @helper", "block0", "`return` value 0"],
    );
}

#[test]
fn condition_must_be_bool() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1, b2) = (
        f.append_new_block(),
        f.append_new_block(),
        f.append_new_block(),
    );
    let one = u32_const(&mut m, &mut f, 1);
    place(&mut f, b0, if_(one, b1, b2, None));
    place(&mut f, b1, ret());
    place(&mut f, b2, ret());
    m.add_function(f);
    expect_one(
        &verify(&m),
        ErrorKind::TypeMismatch,
        &["function @main", "block0", "condition"],
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
