//! The executor on modules the verifier rejects (which `dispatch` refuses up front): a
//! lane operation the scalar semantics refuse is a located `ErrorKind::Scalar` error,
//! on the fast path (scalar operands) and the general path (vectors) alike.

use super::{Machine, Regs};
use crate::error::ErrorKind;
use crate::scalar::ScalarError;
use crate::{Error, Options};
use oxir_ir::{Opcode, Scalar};

/// Runs `@main` of `text` (one invocation) without verifying it.
fn run_unverified(text: &str) -> Result<(), Error> {
    let module = oxir_ir::parser::parse_module(text).expect("the test module parses");
    let report = oxir_ir::verifier::verify_module(&module, &Default::default());
    assert!(!report.succeeded(), "the test module must be invalid");
    let mut m = Machine::new(&module, Options::default());
    let func = module.function_by_name("main").expect("@main");
    let regs = Regs {
        wg_size: [1, 1, 1],
        num_groups: [1, 1, 1],
        ..Regs::default()
    };
    let args = m.entry_args(func, &regs)?;
    let mut group = m.new_group()?;
    let mut inv = m.new_invocation(func, regs, args)?;
    m.run(&mut group, &mut inv)
}

fn refused(op: Opcode, scalar: Scalar) -> ErrorKind {
    ErrorKind::Scalar(ScalarError::UnsupportedType { op, scalar })
}

#[test]
fn a_refused_scalar_operation_is_an_error_not_zero() {
    let scalar = "
const c0: f32 = 1.5
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: f32 = not c0
    return
}";
    let e = run_unverified(scalar).unwrap_err();
    assert_eq!(e.kind, refused(Opcode::Not, Scalar::F32), "{e}");
    let location = e.location.expect("a located error");
    assert_eq!(location.inst.map(|(_, op)| op), Some(Opcode::Not));
    let vector = "
const c0: f32 = 1.5
const c1: vec2<f32> = [c0, c0]
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: vec2<f32> = shl c1, c1
    return
}";
    let e = run_unverified(vector).unwrap_err();
    assert_eq!(e.kind, refused(Opcode::Shl, Scalar::F32), "{e}");
    assert_eq!(
        e.to_string(),
        "`shl` is not defined on f32 (at @main, block0, inst0 (shl), local invocation 0)"
    );
}
