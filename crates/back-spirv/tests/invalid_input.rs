//! `write_module` verifies its input: an invalid module is an error, not a panic.

use oxir_ir::parser::parse_module;

#[test]
fn write_module_refuses_an_unverified_module() {
    let text = "const c0: i32 = 1\nconst c1: f32 = 1.0\nkernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    v0: i32 = add c0, c1\n    return\n}\n";
    let module = parse_module(text).expect("parses");
    let error = oxir_spirv::write_module(&module, &Default::default()).expect_err("refused");
    assert!(matches!(error, oxir_spirv::Error::Invalid(_)), "{error}");
    assert!(
        error.to_string().contains("`add` operand 1 has type f32"),
        "{error}"
    );
}
