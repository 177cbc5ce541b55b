//! Verifier tests in Rust: modules are built by hand (not with the builder) so that every
//! broken shape can be made. Most negative tests are text fixtures instead
//! (`tests/filetests/ir/invalid/`, whose `; error:` annotations pin each error's kind, line
//! and message); what stays here is what text cannot express (`beyond_text`) and the
//! robustness and cost tests (`robustness`). Each test asserts the exact error kind and
//! that the error names its function and block.

use super::*;
use crate::constants::{ConstData, ConstKind};
use crate::dfg::ValueDef;
use crate::entities::{Block, Func, Inst, Type, Value};
use crate::function::{AbiParam, Function, FunctionKind, Signature};
use crate::instructions::{BlockCall, InstData, Payload, SwitchTable};
use crate::module::{GlobalData, Module, ResourceBinding};
use crate::ops::Opcode;
use crate::types::{AddressSpace, Scalar, StorageAccess, TypeData, MAX_TYPE_NESTING};

mod beyond_text;
mod robustness;

// --- helpers ---------------------------------------------------------------------------

fn kernel(name: &str) -> Function {
    Function::new(name, FunctionKind::kernel([64, 1, 1]), Signature::default())
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
    InstData::with_payload(
        opcode,
        &[],
        Payload::Jump(BlockCall::with_args(target, args)),
    )
}

fn ret() -> InstData {
    InstData::new(Opcode::Return, &[])
}

fn if_(cond: Value, then_block: Block, else_block: Block, merge: Option<Block>) -> InstData {
    let payload = Payload::If {
        then_dest: BlockCall::new(then_block),
        else_dest: BlockCall::new(else_block),
        merge,
    };
    InstData::with_payload(Opcode::If, &[cond], payload)
}

fn loop_(prepare: Block, body: Block, update: Block, merge: Block) -> InstData {
    let payload = Payload::Loop {
        prepare: BlockCall::new(prepare),
        body,
        update,
        merge,
    };
    InstData::with_payload(Opcode::Loop, &[], payload)
}

fn switch_table(cases: &[(u64, Block)], default: Block) -> Box<SwitchTable> {
    Box::new(SwitchTable {
        cases: cases
            .iter()
            .map(|&(label, block)| (label, BlockCall::new(block)))
            .collect(),
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
    assert_eq!(
        report.errors.len(),
        1,
        "expected exactly one {kind:?} error, got:\n{report}"
    );
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
        binding: Some(ResourceBinding {
            group: 0,
            binding: 0,
        }),
    });

    let helper_sig = Signature {
        params: vec![AbiParam::new(u32_ty)],
        returns: vec![AbiParam::new(u32_ty)],
    };
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
    place_value(
        &mut f,
        b[2],
        InstData::with_payload(Opcode::Call, &[x], Payload::Callee(helper)),
        u32_ty,
    );
    place(&mut f, b[2], jump(Opcode::Br, b[3], &[]));
    place(&mut f, b[3], loop_(b[4], b[5], b[6], b[7]));
    place(&mut f, b[4], jump(Opcode::Br, b[5], &[]));
    let c2 = place_value(&mut f, b[5], InstData::new(Opcode::Lt, &[x, five]), bool_ty);
    place(&mut f, b[5], if_(c2, b[8], b[9], Some(b[10])));
    place(&mut f, b[8], jump(Opcode::Break, b[7], &[]));
    let switch = Payload::Switch {
        table: switch_table(&[(0, b[11]), (1, b[12])], b[13]),
        merge: b[14],
    };
    place(
        &mut f,
        b[9],
        InstData::with_payload(Opcode::Switch, &[x], switch),
    );
    place(&mut f, b[11], jump(Opcode::Break, b[14], &[]));
    place(&mut f, b[12], jump(Opcode::Continue, b[6], &[]));
    let element = place_value(
        &mut f,
        b[13],
        InstData::new(Opcode::Access, &[buffer_value, x]),
        element_ptr,
    );
    place(&mut f, b[13], InstData::new(Opcode::Store, &[element, x]));
    place(&mut f, b[13], jump(Opcode::Br, b[14], &[]));
    place(&mut f, b[14], jump(Opcode::Br, b[10], &[]));
    place(&mut f, b[10], jump(Opcode::Br, b[6], &[]));
    place(&mut f, b[6], jump(Opcode::Br, b[4], &[]));
    let simple = Payload::SimpleLoop {
        body: BlockCall::new(b[15]),
        merge: b[16],
    };
    place(
        &mut f,
        b[7],
        InstData::with_payload(Opcode::SimpleLoop, &[], simple),
    );
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
    assert!(
        !defaults.require_reachable_blocks && !defaults.require_canonical_break_continue_targets
    );
    let mut options = VerifierOptions {
        require_terminated_blocks: false,
        ..VerifierOptions::default()
    };
    for name in VerifierOptions::OPTION_NAMES {
        options.enable(name).unwrap();
    }
    let all = VerifierOptions::all();
    assert_eq!(format!("{options:?}"), format!("{all:?}"));
    let error = options.enable("no-such-option").unwrap_err();
    assert!(error.contains("no-such-option") && error.contains("reachable-blocks"));
}
