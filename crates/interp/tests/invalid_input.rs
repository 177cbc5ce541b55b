//! Modules the verifier rejects are refused with an error, never executed (and never a
//! panic): the executor relies on the verifier's guarantees.

use oxir_interp::{Buffers, Options};
use oxir_ir::parser::parse_module;

#[test]
fn unverified_modules_are_refused_with_the_verifier_report() {
    // `add` of an i32 and an f32, and a block without a terminator.
    let text = "const c0: i32 = 1\nconst c1: f32 = 1.0\nkernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    v0: i32 = add c0, c1\n}\n";
    let module = parse_module(text).expect("the text parses; only the verifier rejects it");
    let mut buffers = Buffers::new();
    let error = oxir_interp::dispatch(
        &module,
        "main",
        [1, 1, 1],
        &mut buffers,
        &Options::default(),
    )
    .expect_err("an invalid module must be refused");
    let message = error.to_string();
    assert!(message.contains("does not verify"), "{message}");
    assert!(message.contains("function @main"), "{message}");
}
