//! Verifier tests: modules are built by hand (not with the builder) so that every broken
//! shape can be made. Each rule family has a test that asserts the exact error kind and
//! that the error names its function and block.

use super::*;
use crate::constants::{ConstData, ConstKind};
use crate::dfg::ValueDef;
use crate::entities::{Block, Func, Inst, Type, Value};
use crate::function::{AbiParam, Function, FunctionKind, Signature};
use crate::instructions::{BlockCall, InstData, Payload, SwitchTable};
use crate::module::{GlobalData, Module, ResourceBinding};
use crate::ops::Opcode;
use crate::types::{AddressSpace, Scalar, StorageAccess, TypeData};

// --- helpers ---------------------------------------------------------------------------

fn kernel(name: &str) -> Function {
    Function::new(name, FunctionKind::Kernel { workgroup_size: [64, 1, 1] }, Signature::default())
}

fn place(f: &mut Function, block: Block, data: InstData) -> Inst {
    let inst = f.dfg.make_inst(data);
    f.layout.append_inst(inst, block);
    inst
}

fn place_value(f: &mut Function, block: Block, data: InstData, ty: Type) -> Value {
    let inst = place(f, block, data);
    f.dfg.make_result(inst, ty)
}

fn jump(opcode: Opcode, target: Block, args: &[Value]) -> InstData {
    InstData::with_payload(opcode, &[], Payload::Jump(BlockCall::with_args(target, args)))
}

fn ret() -> InstData {
    InstData::new(Opcode::Return, &[])
}

fn if_(cond: Value, then_block: Block, else_block: Block, merge: Option<Block>) -> InstData {
    let payload =
        Payload::If { then_dest: BlockCall::new(then_block), else_dest: BlockCall::new(else_block), merge };
    InstData::with_payload(Opcode::If, &[cond], payload)
}

fn loop_(prepare: Block, body: Block, update: Block, merge: Block) -> InstData {
    let payload = Payload::Loop { prepare: BlockCall::new(prepare), body, update, merge };
    InstData::with_payload(Opcode::Loop, &[], payload)
}

fn switch_table(cases: &[(u64, Block)], default: Block) -> Box<SwitchTable> {
    Box::new(SwitchTable {
        cases: cases.iter().map(|&(label, block)| (label, BlockCall::new(block))).collect(),
        default: BlockCall::new(default),
    })
}

fn u32_const(m: &mut Module, f: &mut Function, value: u32) -> Value {
    let c = m.const_u32(value);
    let ty = m.types.u32();
    f.dfg.const_value(c, ty)
}

fn bool_const(m: &mut Module, f: &mut Function, value: bool) -> Value {
    let c = m.const_bool(value);
    let ty = m.types.bool();
    f.dfg.const_value(c, ty)
}

/// A kernel whose entry block computes `cond: bool` and whose body the test finishes.
fn kernel_with_condition(m: &mut Module) -> (Function, Block, Value) {
    let mut f = kernel("main");
    let entry = f.append_new_block();
    let cond = bool_const(m, &mut f, true);
    (f, entry, cond)
}

fn verify(m: &Module) -> VerifierReport {
    verify_module(m, &VerifierOptions::default())
}

fn verify_with(m: &Module, options: VerifierOptions) -> VerifierReport {
    verify_module(m, &options)
}

/// Asserts that `report` holds exactly one error, of `kind`, whose text names `names`.
#[track_caller]
fn expect_one(report: &VerifierReport, kind: ErrorKind, names: &[&str]) -> VerifierError {
    assert_eq!(report.errors.len(), 1, "expected exactly one {kind:?} error, got:\n{report}");
    let error = report.errors[0].clone();
    assert_eq!(error.kind, kind, "wrong kind:\n{report}");
    let text = error.to_string();
    for name in names {
        assert!(text.contains(name), "`{text}` does not name `{name}`");
    }
    error
}

// --- a valid module --------------------------------------------------------------------

/// A kernel with an `if`, a `loop` (prepare, body, update, merge) holding an `if` and a
/// `switch` with `break` and `continue`, a `simple_loop`, a call and a storage global.
fn structured_module() -> Module {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let bool_ty = m.types.bool();
    let vec3u = m.types.vector(Scalar::U32, 3);
    let runtime = m.types.runtime_array(u32_ty);
    let storage = AddressSpace::Storage(StorageAccess::ReadWrite);
    let element_ptr = m.types.pointer(storage, u32_ty);
    let buffer_ptr = m.types.pointer(storage, runtime);
    let buffer = m.add_global(GlobalData {
        name: "buffer".into(),
        space: storage,
        ty: runtime,
        init: None,
        binding: Some(ResourceBinding { group: 0, binding: 0 }),
    });

    let helper_sig = Signature { params: vec![AbiParam::new(u32_ty)], returns: vec![AbiParam::new(u32_ty)] };
    let mut helper = Function::new("helper", FunctionKind::Callable, helper_sig);
    let h0 = helper.append_new_block();
    let p = helper.dfg.append_block_param(h0, u32_ty);
    let sum = place_value(&mut helper, h0, InstData::new(Opcode::Add, &[p, p]), u32_ty);
    place(&mut helper, h0, InstData::new(Opcode::Return, &[sum]));
    let helper = m.add_function(helper);

    let mut f = kernel("main");
    let b: Vec<Block> = (0..17).map(|_| f.append_new_block()).collect();
    let ten = u32_const(&mut m, &mut f, 10);
    let five = u32_const(&mut m, &mut f, 5);
    let buffer_value = f.dfg.global_value(buffer, buffer_ptr);

    let tid = place_value(&mut f, b[0], InstData::new(Opcode::ThreadId, &[]), vec3u);
    let x = place_value(
        &mut f,
        b[0],
        InstData::with_payload(Opcode::Extract, &[tid], Payload::Indices(Box::new([0]))),
        u32_ty,
    );
    let c = place_value(&mut f, b[0], InstData::new(Opcode::Lt, &[x, ten]), bool_ty);
    place(&mut f, b[0], if_(c, b[1], b[2], Some(b[3])));
    place(&mut f, b[1], jump(Opcode::Br, b[3], &[]));
    place_value(&mut f, b[2], InstData::with_payload(Opcode::Call, &[x], Payload::Callee(helper)), u32_ty);
    place(&mut f, b[2], jump(Opcode::Br, b[3], &[]));
    place(&mut f, b[3], loop_(b[4], b[5], b[6], b[7]));
    place(&mut f, b[4], jump(Opcode::Br, b[5], &[]));
    let c2 = place_value(&mut f, b[5], InstData::new(Opcode::Lt, &[x, five]), bool_ty);
    place(&mut f, b[5], if_(c2, b[8], b[9], Some(b[10])));
    place(&mut f, b[8], jump(Opcode::Break, b[7], &[]));
    let switch = Payload::Switch { table: switch_table(&[(0, b[11]), (1, b[12])], b[13]), merge: b[14] };
    place(&mut f, b[9], InstData::with_payload(Opcode::Switch, &[x], switch));
    place(&mut f, b[11], jump(Opcode::Break, b[14], &[]));
    place(&mut f, b[12], jump(Opcode::Continue, b[6], &[]));
    let element = place_value(&mut f, b[13], InstData::new(Opcode::Access, &[buffer_value, x]), element_ptr);
    place(&mut f, b[13], InstData::new(Opcode::Store, &[element, x]));
    place(&mut f, b[13], jump(Opcode::Br, b[14], &[]));
    place(&mut f, b[14], jump(Opcode::Br, b[10], &[]));
    place(&mut f, b[10], jump(Opcode::Br, b[6], &[]));
    place(&mut f, b[6], jump(Opcode::Br, b[4], &[]));
    let simple = Payload::SimpleLoop { body: BlockCall::new(b[15]), merge: b[16] };
    place(&mut f, b[7], InstData::with_payload(Opcode::SimpleLoop, &[], simple));
    place(&mut f, b[15], jump(Opcode::Break, b[16], &[]));
    place(&mut f, b[16], ret());
    m.add_function(f);
    m
}

#[test]
fn valid_structured_kernel_passes_with_every_option() {
    let m = structured_module();
    let report = verify_with(&m, VerifierOptions::all());
    assert!(report.succeeded(), "{report}");
    assert_eq!(report.stats.functions, 2);
    assert_eq!(report.stats.blocks, 18);
    assert!(report.stats.edges >= 17);
    assert!(report.stats.dominance_queries > 0);
    let main = m.function_by_name("main").unwrap();
    assert!(verify_function(&m, main, &VerifierOptions::all()).succeeded());
}

#[test]
fn options_have_names_defaults_and_all() {
    let defaults = VerifierOptions::default();
    assert!(defaults.require_terminated_blocks);
    assert!(!defaults.require_reachable_blocks && !defaults.require_canonical_break_continue_targets);
    let mut options = VerifierOptions { require_terminated_blocks: false, ..VerifierOptions::default() };
    for name in VerifierOptions::OPTION_NAMES {
        options.enable(name).unwrap();
    }
    let all = VerifierOptions::all();
    assert_eq!(format!("{options:?}"), format!("{all:?}"));
    let error = options.enable("no-such-option").unwrap_err();
    assert!(error.contains("no-such-option") && error.contains("reachable-blocks"));
}

// --- module items ------------------------------------------------------------------------

#[test]
fn malformed_vector_type() {
    let mut m = Module::new();
    let ty = m.types.intern(TypeData::Vector { elem: Scalar::F32, len: 5 });
    let error = expect_one(&verify(&m), ErrorKind::MalformedType, &["vec5<f32>"]);
    assert_eq!(error.location, Location::Type(ty));
}

#[test]
fn cyclic_types_are_reported_not_followed() {
    let mut m = Module::new();
    // type0 = array<type1, 2>, type1 = array<type0, 2>: a cycle through forward references.
    let a = m.types.intern(TypeData::Array { elem: Type::new(1), len: 2 });
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
    assert!(report.errors.iter().any(|e| e.kind == ErrorKind::MalformedType), "{report}");
    assert!(report.errors.iter().all(|e| e.kind == ErrorKind::MalformedType), "{report}");
}

#[test]
fn runtime_array_in_the_middle_of_a_struct() {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let runtime = m.types.runtime_array(u32_ty);
    let member = |name: &str, ty| crate::types::StructMember { name: name.into(), ty, offset: None };
    let st = crate::types::StructType { name: "S".into(), members: vec![member("a", runtime), member("b", u32_ty)], align: None };
    m.types.declare_struct(st);
    expect_one(&verify(&m), ErrorKind::MalformedType, &["%S", "member `a`"]);
}

#[test]
fn non_canonical_scalar_constant() {
    let mut m = Module::new();
    let ty = m.types.u32();
    let c = m.consts.intern(ConstData { ty, kind: ConstKind::Scalar(0x1_0000_0001) });
    let error = expect_one(&verify(&m), ErrorKind::MalformedConstant, &["constant c0", "canonical"]);
    assert_eq!(error.location, Location::Const(c));
}

#[test]
fn composite_constant_with_too_few_lanes() {
    let mut m = Module::new();
    let one = m.const_f32(1.0);
    let vec3 = m.types.vector(Scalar::F32, 3);
    m.const_composite(vec3, vec![one, one]);
    expect_one(&verify(&m), ErrorKind::MalformedConstant, &["needs 3 elements"]);
}

#[test]
fn storage_global_without_binding() {
    let mut m = Module::new();
    let ty = m.types.u32();
    let space = AddressSpace::Storage(StorageAccess::Read);
    m.add_global(GlobalData { name: "data".into(), space, ty, init: None, binding: None });
    expect_one(&verify(&m), ErrorKind::MalformedGlobal, &["global @data", "binding"]);
}

#[test]
fn kernel_with_zero_workgroup_size() {
    let mut m = Module::new();
    let mut f = Function::new("main", FunctionKind::Kernel { workgroup_size: [8, 0, 1] }, Signature::default());
    let entry = f.append_new_block();
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::MalformedSignature, &["function @main", "zero"]);
}

#[test]
fn entry_block_params_must_match_the_signature() {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let f32_ty = m.types.f32();
    let sig = Signature { params: vec![AbiParam::new(u32_ty)], returns: vec![] };
    let mut f = Function::new("helper", FunctionKind::Callable, sig);
    let entry = f.append_new_block();
    f.dfg.append_block_param(entry, f32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::MalformedFunction, &["function @helper", "block0", "entry parameter 0"]);
}

#[test]
fn global_and_function_names_are_shared() {
    let mut m = Module::new();
    let ty = m.types.u32();
    m.add_global(GlobalData { name: "main".into(), space: AddressSpace::Private, ty, init: None, binding: None });
    let mut f = kernel("main");
    let entry = f.append_new_block();
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::DuplicateName, &["function @main", "@main is already taken"]);
}

// --- blocks --------------------------------------------------------------------------

#[test]
fn missing_terminator() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let tid_ty = m.types.vector(Scalar::U32, 3);
    place_value(&mut f, entry, InstData::new(Opcode::ThreadId, &[]), tid_ty);
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::MissingTerminator, &["function @main", "block0", "thread_id"]);
}

#[test]
fn empty_block_is_missing_its_terminator() {
    let mut m = Module::new();
    let mut f = kernel("main");
    f.append_new_block();
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::MissingTerminator, &["function @main", "block0", "empty"]);
    let relaxed = VerifierOptions { require_terminated_blocks: false, ..VerifierOptions::default() };
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
    let error = expect_one(&verify(&m), ErrorKind::MisplacedTerminator, &["function @main", "block0", "inst0 (return)"]);
    assert_eq!(error.location, Location::Inst(Func::new(0), entry, early));
}

#[test]
fn layout_listing_a_missing_instruction() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let entry = f.append_new_block();
    f.layout.append_inst(Inst::new(7), entry);
    m.add_function(f);
    let report = verify_with(&m, VerifierOptions { require_terminated_blocks: false, ..VerifierOptions::default() });
    expect_one(&report, ErrorKind::InvalidEntity, &["function @main", "block0", "inst7"]);
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
    expect_one(&verify(&m), ErrorKind::DefinitionMismatch, &["function @main", "block0", "inst0"]);
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
    expect_one(&verify(&m), ErrorKind::WrongPayload, &["function @main", "block0", "add"]);
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
    expect_one(&verify(&m), ErrorKind::WrongArity, &["function @main", "block0", "exactly 2"]);
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
    place_value(&mut f, entry, InstData::new(Opcode::Add, &[one, half]), u32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::TypeMismatch, &["function @main", "block0", "v3 = add v1, v2"]);
}

#[test]
fn result_type_differs_from_the_rule() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    let i32_ty = m.types.i32();
    place_value(&mut f, entry, InstData::new(Opcode::Add, &[one, one]), i32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::TypeMismatch, &["function @main", "block0", "produces u32"]);
}

#[test]
fn missing_result() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    place(&mut f, entry, InstData::new(Opcode::Add, &[one, one]));
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::WrongResultCount, &["function @main", "block0", "no result"]);
}

#[test]
fn void_result_value() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let void = m.types.void();
    place_value(&mut f, entry, InstData::new(Opcode::ThreadId, &[]), void);
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::InvalidValueType, &["function @main", "block0", "type void"]);
}

#[test]
fn call_with_wrong_argument_count() {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let sig = Signature { params: vec![AbiParam::new(u32_ty), AbiParam::new(u32_ty)], returns: vec![] };
    let callee = m.add_function(Function::new("ext", FunctionKind::External, sig));
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    place(&mut f, entry, InstData::with_payload(Opcode::Call, &[one], Payload::Callee(callee)));
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::WrongArity, &["function @main", "block0", "call @ext", "takes 2"]);
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
    place(&mut f, entry, InstData::with_payload(Opcode::Call, &[], Payload::Callee(other)));
    place(&mut f, entry, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::BadCallee, &["function @main", "block0", "entry point"]);
}

#[test]
fn return_value_of_the_wrong_type() {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let sig = Signature { params: vec![], returns: vec![AbiParam::new(u32_ty)] };
    let mut f = Function::new("helper", FunctionKind::Callable, sig);
    let entry = f.append_new_block();
    let yes = bool_const(&mut m, &mut f, true);
    place(&mut f, entry, InstData::new(Opcode::Return, &[yes]));
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::TypeMismatch, &["function @helper", "block0", "`return` value 0"]);
}

#[test]
fn condition_must_be_bool() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1, b2) = (f.append_new_block(), f.append_new_block(), f.append_new_block());
    let one = u32_const(&mut m, &mut f, 1);
    place(&mut f, b0, if_(one, b1, b2, None));
    place(&mut f, b1, ret());
    place(&mut f, b2, ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::TypeMismatch, &["function @main", "block0", "condition"]);
}

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
    let error = report.errors.iter().find(|e| e.kind == ErrorKind::InvalidEntity).expect("InvalidEntity");
    assert!(error.to_string().contains("function @main, block0"), "{error}");
    assert!(error.to_string().contains("v999"), "{error}");
}

#[test]
fn detached_value_use() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let u32_ty = m.types.u32();
    let detached = f.dfg.make_detached_value(u32_ty);
    place_value(&mut f, entry, InstData::new(Opcode::Add, &[detached, detached]), u32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    let report = verify(&m);
    assert_eq!(report.errors.len(), 2, "{report}");
    assert!(report.errors.iter().all(|e| e.kind == ErrorKind::UndefinedValue), "{report}");
    assert!(report.errors[0].to_string().contains("function @main, block0"), "{report}");
    assert!(report.errors[0].to_string().contains("detached"), "{report}");
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
    expect_one(&verify(&m), ErrorKind::UndefinedValue, &["function @main", "block0", "not placed"]);
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
    expect_one(&verify(&m), ErrorKind::AliasCycle, &["function @main", "block0", "neg"]);
}

#[test]
fn aliases_are_seen_through() {
    let mut m = Module::new();
    let (mut f, entry, _) = kernel_with_condition(&mut m);
    let one = u32_const(&mut m, &mut f, 1);
    let u32_ty = m.types.u32();
    let alias = f.dfg.make_detached_value(u32_ty);
    f.dfg.values[alias].def = ValueDef::Alias(one);
    place_value(&mut f, entry, InstData::new(Opcode::Add, &[alias, one]), u32_ty);
    place(&mut f, entry, ret());
    m.add_function(f);
    assert!(verify(&m).succeeded());
}

#[test]
fn definition_does_not_dominate_use() {
    let mut m = Module::new();
    let (mut f, b0, cond) = kernel_with_condition(&mut m);
    let (b1, b2, b3) = (f.append_new_block(), f.append_new_block(), f.append_new_block());
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
    assert!(report.errors.iter().all(|e| e.kind == ErrorKind::DominanceViolation), "{report}");
    let text = report.errors[0].to_string();
    assert!(text.contains("function @main, block3") && text.contains("block1"), "{text}");
}

#[test]
fn use_before_definition_in_the_same_block() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let entry = f.append_new_block();
    let vec3u = m.types.vector(Scalar::U32, 3);
    let later = f.dfg.make_inst(InstData::new(Opcode::ThreadId, &[]));
    let tid = f.dfg.make_result(later, vec3u);
    place_value(&mut f, entry, InstData::new(Opcode::Mul, &[tid, tid]), vec3u);
    f.layout.append_inst(later, entry);
    place(&mut f, entry, ret());
    m.add_function(f);
    let report = verify(&m);
    assert_eq!(report.errors.len(), 2, "{report}");
    assert!(report.errors.iter().all(|e| e.kind == ErrorKind::DominanceViolation), "{report}");
    assert!(report.errors[0].to_string().contains("function @main, block0, inst1 (v1 = mul v0, v0)"), "{report}");
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
    expect_one(&verify(&m), ErrorKind::TypeMismatch, &["function @main", "block0", "constant c1"]);
}

#[test]
fn uses_in_unreachable_blocks_are_not_checked_for_dominance() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let (b0, b1, b2) = (f.append_new_block(), f.append_new_block(), f.append_new_block());
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
    expect_one(&verify(&m), ErrorKind::BadEdge, &["function @main", "block0", "br block1", "not in the layout"]);
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
    expect_one(&verify(&m), ErrorKind::EdgeArgumentMismatch, &["function @main", "block0", "passes 0 arguments"]);
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
    expect_one(&verify(&m), ErrorKind::EdgeArgumentMismatch, &["function @main", "block0", "argument 0 of the edge to block1"]);
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
    place(&mut f, b1, InstData::with_payload(Opcode::CondBr, &[cond], payload));
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
    expect_one(&verify(&m), ErrorKind::EntryBlockTargeted, &["function @main", "block1", "br block0"]);
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
    expect_one(&verify(&m), ErrorKind::MalformedStructure, &["function @main", "block0", "body and update"]);
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
    let options = VerifierOptions { require_unique_merge_blocks: true, ..VerifierOptions::default() };
    expect_one(&verify_with(&m, options), ErrorKind::DuplicateMerge, &["function @main", "block1", "block5"]);
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
    let canonical = VerifierOptions { require_canonical_break_continue_targets: true, ..VerifierOptions::default() };
    assert!(verify_with(&nested_loops(Opcode::Break, 8), canonical.clone()).succeeded());
    assert!(verify_with(&nested_loops(Opcode::Continue, 7), canonical.clone()).succeeded());
    let outer_break = nested_loops(Opcode::Break, 4);
    assert!(verify(&outer_break).succeeded(), "without the option any loop merge will do");
    let report = verify_with(&outer_break, canonical.clone());
    expect_one(&report, ErrorKind::NonCanonicalBreakContinue, &["function @main", "block6", "merges at block8"]);
    let outer_continue = nested_loops(Opcode::Continue, 3);
    let report = verify_with(&outer_continue, canonical);
    expect_one(&report, ErrorKind::NonCanonicalBreakContinue, &["function @main", "block6", "continues at block7"]);
}

#[test]
fn continue_outside_a_loop() {
    // A switch whose case continues to a block that is no loop's update block.
    let mut m = Module::new();
    let mut f = kernel("main");
    let b: Vec<Block> = (0..4).map(|_| f.append_new_block()).collect();
    let one = u32_const(&mut m, &mut f, 1);
    let payload = Payload::Switch { table: switch_table(&[(1, b[1])], b[2]), merge: b[3] };
    place(&mut f, b[0], InstData::with_payload(Opcode::Switch, &[one], payload));
    place(&mut f, b[1], jump(Opcode::Continue, b[3], &[]));
    place(&mut f, b[2], jump(Opcode::Break, b[3], &[]));
    place(&mut f, b[3], ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::BreakOutsideConstruct, &["function @main", "block1", "continue"]);
    let canonical = VerifierOptions { require_canonical_break_continue_targets: true, ..VerifierOptions::default() };
    expect_one(&verify_with(&m, canonical), ErrorKind::BreakOutsideConstruct, &["function @main", "block1", "not inside any loop"]);
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
    let canonical = VerifierOptions { require_canonical_break_continue_targets: true, ..VerifierOptions::default() };
    let report = verify_with(&m, canonical);
    let breaks: Vec<_> = report.errors.iter().filter(|e| e.kind == ErrorKind::BreakOutsideConstruct).collect();
    assert_eq!(breaks.len(), 1, "{report}");
    assert!(breaks[0].to_string().contains("function @main, block4"), "{report}");
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
    place(&mut f, b[0], InstData::with_payload(Opcode::SwitchBr, &[selector], Payload::SwitchBranch(table)));
    place(&mut f, b[1], ret());
    place(&mut f, b[2], ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::NonCanonicalSwitchLabel, &["function @main", "block0", "0xff", "i8"]);
}

#[test]
fn duplicate_switch_label() {
    let mut m = Module::new();
    let mut f = kernel("main");
    let b: Vec<Block> = (0..4).map(|_| f.append_new_block()).collect();
    let one = u32_const(&mut m, &mut f, 1);
    let payload = Payload::Switch { table: switch_table(&[(1, b[1]), (1, b[2])], b[3]), merge: b[3] };
    place(&mut f, b[0], InstData::with_payload(Opcode::Switch, &[one], payload));
    place(&mut f, b[1], jump(Opcode::Break, b[3], &[]));
    place(&mut f, b[2], jump(Opcode::Break, b[3], &[]));
    place(&mut f, b[3], ret());
    m.add_function(f);
    expect_one(&verify(&m), ErrorKind::DuplicateSwitchLabel, &["function @main", "block0", "0x1"]);
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
    expect_one(&verify(&m), ErrorKind::MalformedStructure, &["function @main", "block0", "block3"]);
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
    let options = VerifierOptions { require_reachable_blocks: true, ..VerifierOptions::default() };
    expect_one(&verify_with(&m, options), ErrorKind::UnreachableBlock, &["function @main", "block1"]);
}

#[test]
fn merge_roles_are_not_edges_for_reachability() {
    // Both arms return: the merge block is owned but never reached.
    let mut m = Module::new();
    let (mut f, b0, cond) = kernel_with_condition(&mut m);
    let (b1, b2, b3) = (f.append_new_block(), f.append_new_block(), f.append_new_block());
    place(&mut f, b0, if_(cond, b1, b2, Some(b3)));
    place(&mut f, b1, ret());
    place(&mut f, b2, ret());
    place(&mut f, b3, ret());
    m.add_function(f);
    let options = VerifierOptions { require_reachable_blocks: true, ..VerifierOptions::default() };
    expect_one(&verify_with(&m, options), ErrorKind::UnreachableBlock, &["function @main", "block3"]);
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
    let options = VerifierOptions { require_no_block_params: true, ..VerifierOptions::default() };
    expect_one(&verify_with(&m, options), ErrorKind::BlockParamsNotAllowed, &["function @main", "block1"]);
}

#[test]
fn cond_br_with_no_unstructured_option() {
    let mut m = Module::new();
    let (mut f, b0, cond) = kernel_with_condition(&mut m);
    let (b1, b2) = (f.append_new_block(), f.append_new_block());
    let payload = Payload::CondBranch { then_dest: BlockCall::new(b1), else_dest: BlockCall::new(b2) };
    place(&mut f, b0, InstData::with_payload(Opcode::CondBr, &[cond], payload));
    place(&mut f, b1, ret());
    place(&mut f, b2, ret());
    m.add_function(f);
    assert!(verify(&m).succeeded());
    let options = VerifierOptions { require_no_unstructured_control_flow: true, ..VerifierOptions::default() };
    expect_one(&verify_with(&m, options), ErrorKind::UnstructuredControlFlow, &["function @main", "block0", "cond_br"]);
}

// --- robustness and cost -------------------------------------------------------------

#[test]
fn invalid_function_index() {
    let m = Module::new();
    let report = verify_function(&m, Func::new(3), &VerifierOptions::default());
    expect_one(&report, ErrorKind::InvalidEntity, &["module", "func3"]);
}

#[test]
fn report_lists_every_error_on_its_own_line() {
    let mut m = Module::new();
    let mut f = kernel("main");
    f.append_new_block();
    f.append_new_block();
    m.add_function(f);
    let report = verify(&m);
    assert_eq!(report.errors.len(), 2);
    let text = report.to_string();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.lines().all(|l| l.starts_with("function @main, block")), "{text}");
}

/// A tiny deterministic generator for the mutation test.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Corrupts one random thing about `f`: operands, edge targets and arguments, roles,
/// value definitions and types, opcodes, callees, block parameters.
fn mutate(f: &mut Function, rng: &mut XorShift, type_count: usize) {
    let values = f.dfg.values.len() + 3;
    let blocks = f.dfg.blocks.len() + 2;
    let insts = f.dfg.insts.len();
    let inst = Inst::new(rng.below(insts));
    let value = |rng: &mut XorShift| Value::new(rng.below(values));
    let block = |rng: &mut XorShift| Block::new(rng.below(blocks));
    match rng.below(10) {
        0 => {
            let data = f.dfg.inst_mut(inst);
            if !data.args.is_empty() {
                let i = rng.below(data.args.len());
                data.args[i] = value(rng);
            }
        }
        1 => {
            let mut edges = f.dfg.inst_mut(inst).payload.edges_mut();
            if !edges.is_empty() {
                let i = rng.below(edges.len());
                let target = block(rng);
                edges[i].block = target;
                if rng.below(2) == 0 {
                    let arg = value(rng);
                    edges[i].args.push(arg);
                }
            }
        }
        2 => {
            let new_role = block(rng);
            match &mut f.dfg.inst_mut(inst).payload {
                Payload::Loop { body, update, merge, .. } => match rng.below(3) {
                    0 => *body = new_role,
                    1 => *update = new_role,
                    _ => *merge = new_role,
                },
                Payload::If { merge, .. } => *merge = (rng.below(3) != 0).then_some(new_role),
                Payload::SimpleLoop { merge, .. } | Payload::Switch { merge, .. } => *merge = new_role,
                _ => {}
            }
        }
        3 => {
            let v = Value::new(rng.below(f.dfg.values.len()));
            let def = match rng.below(6) {
                0 => ValueDef::Alias(value(rng)),
                1 => ValueDef::Detached,
                2 => ValueDef::Result(Inst::new(rng.below(insts + 2))),
                3 => ValueDef::Param(block(rng), rng.below(3) as u32),
                4 => ValueDef::Const(crate::entities::Const::new(rng.below(8))),
                _ => ValueDef::Global(crate::entities::Global::new(rng.below(3))),
            };
            f.dfg.values[v].def = def;
        }
        4 => {
            let v = Value::new(rng.below(f.dfg.values.len()));
            f.dfg.values[v].ty = Type::new(rng.below(type_count + 2));
        }
        5 => {
            let op = Opcode::ALL[rng.below(Opcode::ALL.len())];
            f.dfg.inst_mut(inst).opcode = op;
        }
        6 => {
            if let Payload::Callee(callee) = &mut f.dfg.inst_mut(inst).payload {
                *callee = Func::new(rng.below(4));
            }
        }
        7 => {
            let b = Block::new(rng.below(f.dfg.blocks.len()));
            let v = value(rng);
            f.dfg.blocks[b].params.push(v);
        }
        8 => {
            let extra = f.dfg.make_inst(InstData::new(Opcode::ALL[rng.below(Opcode::ALL.len())], &[]));
            if rng.below(2) == 0 {
                let ty = Type::new(rng.below(type_count + 1));
                f.dfg.make_result(extra, ty);
            }
            let b = Block::new(rng.below(f.dfg.blocks.len()));
            if f.layout.is_block_inserted(b) {
                f.layout.append_inst(extra, b);
            }
        }
        _ => {
            let removed = Inst::new(rng.below(insts));
            f.remove_inst(removed);
        }
    }
}

#[test]
fn random_corruptions_never_panic() {
    let base = structured_module();
    let main = base.function_by_name("main").unwrap();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut failures = 0usize;
    for _ in 0..mutation_rounds() {
        let mut m = base.clone();
        let type_count = m.types.len();
        let rounds = 1 + rng.below(6);
        for _ in 0..rounds {
            mutate(&mut m.functions[main], &mut rng, type_count);
        }
        let report = verify_with(&m, VerifierOptions::all());
        let _ = report.to_string();
        failures += usize::from(!report.succeeded());
    }
    assert!(failures > 300, "mutations should mostly be caught; {failures} were");
}

/// A straight-line kernel of `blocks` blocks with `per_block` additions each.
fn large_module(blocks: usize, per_block: usize) -> Module {
    let mut m = Module::new();
    let mut f = kernel("main");
    let block_list: Vec<Block> = (0..blocks).map(|_| f.append_new_block()).collect();
    let one = u32_const(&mut m, &mut f, 1);
    let u32_ty = m.types.u32();
    let mut last = one;
    for (i, &b) in block_list.iter().enumerate() {
        for _ in 0..per_block {
            last = place_value(&mut f, b, InstData::new(Opcode::Add, &[last, one]), u32_ty);
        }
        match block_list.get(i + 1) {
            Some(&next) => place(&mut f, b, jump(Opcode::Br, next, &[])),
            None => place(&mut f, b, ret()),
        };
    }
    m.add_function(f);
    m
}

#[test]
fn cost_is_linear() {
    let m = large_module(20_000, 4);
    let report = verify_with(&m, VerifierOptions::all());
    assert!(report.succeeded(), "{report}");
    assert_eq!(report.stats.insts, 100_000);
    assert_eq!(report.stats.blocks, 20_000);
    // One query per cross-block operand at most.
    assert!(report.stats.dominance_queries <= 2 * 100_000, "{:?}", report.stats);
}

/// `cargo test --release -p oxir-ir --lib verifier::tests::one_million_instructions -- --ignored --nocapture`
#[test]
#[ignore = "timing; run in release"]
fn one_million_instructions() {
    let m = large_module(100_000, 9);
    let start = std::time::Instant::now();
    let report = verify_with(&m, VerifierOptions::all());
    let elapsed = start.elapsed();
    assert!(report.succeeded());
    assert_eq!(report.stats.insts, 1_000_000);
    println!("verified {} instructions in {elapsed:?}", report.stats.insts);
}

/// Rounds of the mutation test; `OXIR_VERIFIER_MUTATIONS` raises it for a longer soak.
fn mutation_rounds() -> usize {
    std::env::var("OXIR_VERIFIER_MUTATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(600)
}
