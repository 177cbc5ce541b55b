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

/// A refusal says what (the text users see) and, as data, where: the function, block and
/// instruction the preflight was checking.
#[test]
fn refusals_are_located_at_the_refused_instruction() {
    let text = "const c0: f64 = 1.0\nkernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    v0: f64 = sin c0\n    return\n}\n";
    let module = parse_module(text).expect("parses");
    let func = module.functions.values().next().expect("one function");
    let block = func.entry_block().expect("a body");
    let sin = func
        .layout
        .block_insts(block)
        .next()
        .expect("an instruction");
    let error = oxir_spirv::write_module(&module, &Default::default()).expect_err("refused");
    let oxir_spirv::Error::Unsupported { what, location } = &error else {
        panic!("not a refusal: {error}");
    };
    assert_eq!(
        what,
        "`sin` on 64-bit floats (GLSL.std.450 has 16- and 32-bit forms only)"
    );
    assert_eq!(error.to_string(), format!("unsupported: {what}"));
    assert_eq!(location.function.as_deref(), Some("main"));
    assert_eq!(location.block, Some(block));
    assert_eq!(location.instruction, Some(sin));
    assert_eq!(location.to_string(), format!("@main, {block}, {sin}"));
}

/// A writer failure is reported as a bug, with where it happened.
#[test]
fn internal_errors_read_as_bugs() {
    let error = oxir_spirv::Error::Internal {
        location: oxir_spirv::Location {
            function: Some("main".into()),
            block: None,
            instruction: None,
        },
        message: "value v3 has no id".into(),
    };
    assert_eq!(
        error.to_string(),
        "internal error in the SPIR-V writer: value v3 has no id (at @main; this is a bug)"
    );
    assert_eq!(
        oxir_spirv::Location::default().to_string(),
        "module level",
        "no function: the module itself"
    );
}
