//! Functions the SPIR-V driver keeps (`inline-when-smaller` in `normalize`): which
//! callables stay, that the modules with `OpFunctionCall` pass `spirv-val` for every target
//! environment (1.4+ interfaces list the globals callees name), and what the preflight
//! refuses in a callable handed to the writer directly.

use oxir_ir::Module;
use oxir_spirv::{Error, Options, TargetEnv};
use std::path::Path;

fn parse(text: &str) -> Module {
    oxir_ir::parser::parse_module(text).unwrap_or_else(|e| panic!("{e}"))
}

fn helpers_shader() -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders/helpers.wgsl");
    let text = std::fs::read_to_string(path).unwrap();
    let shader = oxir_naga::ShaderSource::Wgsl(&text)
        .parse("helpers.wgsl")
        .unwrap();
    oxir_naga::lower(&shader.module, &shader.info).unwrap()
}

/// The SPIR-V driver pipeline (`-O` when `optimize`) and the writer.
fn compile(module: &Module, optimize: bool, env: TargetEnv) -> Result<Vec<u32>, Error> {
    let policy = Default::default();
    let pipeline = if optimize {
        oxir_spirv::optimizing_pipeline_with(policy, Default::default())
    } else {
        oxir_spirv::pipeline_with(policy)
    };
    let mut module = module.clone();
    if let Some(error) = pipeline.run(&mut module).error {
        return Err(Error::Pipeline(error));
    }
    let options = Options {
        target_env: env,
        ..Options::default()
    };
    oxir_spirv::write_module(&module, &options)
}

fn count(words: &[u32], opcode: rspirv::spirv::Op) -> usize {
    let text = oxir_spirv::disassemble(words).unwrap();
    let needle = format!("{opcode:?}");
    text.lines()
        .filter(|l| l.split_whitespace().any(|w| w == format!("Op{needle}")))
        .count()
}

fn spirv_val(words: &[u32], env: TargetEnv) {
    if !oxir_test_support::spirv_val::have_spirv_val("kept_functions") {
        return;
    }
    let checked = oxir_test_support::spirv_val::spirv_val(words, env.name());
    assert!(checked.is_ok(), "{}: {checked:?}", env.name());
}

#[test]
fn helpers_keep_the_shared_functions_and_validate_everywhere() {
    let module = helpers_shader();
    for optimize in [false, true] {
        for env in [
            TargetEnv::Vulkan1_0,
            TargetEnv::Vulkan1_1,
            TargetEnv::Vulkan1_2,
            TargetEnv::Vulkan1_3,
        ] {
            let words = compile(&module, optimize, env).unwrap_or_else(|e| panic!("{e}"));
            // hash, smooth_sum, tile_sum and shade stay; bump (a pointer), twice (one
            // call site) and lane (one instruction) are inlined: 4 callables + main.
            assert_eq!(
                count(&words, rspirv::spirv::Op::Function),
                5,
                "-O {optimize}"
            );
            assert_eq!(count(&words, rspirv::spirv::Op::FunctionCall), 10);
            spirv_val(&words, env);
        }
    }
}

const KEPT: &str = "\
const c0: u32 = 3
const c1: u32 = 7
global @out: storage(read_write) array<u32, 4> binding(0, 0)
callable @mix(u32, u32) -> u32 {
block0(v0: u32, v1: u32):
    v2: u32 = mul v0, c1
    v3: u32 = xor v2, v1
    v4: u32 = shr v3, c0
    v5: u32 = add v4, v0
    v6: u32 = sub v5, v1
    v7: ptr<storage(read_write), u32> = access @out, c0
    store v7, v6
    return v6
}
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: u32 = call @mix(c0, c1)
    v1: u32 = call @mix(v0, c1)
    v2: u32 = call @mix(v1, v0)
    return
}
";

#[test]
fn a_global_named_only_by_a_callee_is_in_the_entry_interface_from_spirv_1_4() {
    let module = parse(KEPT);
    for env in [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3] {
        let words = compile(&module, true, env).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(count(&words, rspirv::spirv::Op::FunctionCall), 3);
        let text = oxir_spirv::disassemble(&words).unwrap();
        let entry = text.lines().find(|l| l.contains("OpEntryPoint")).unwrap();
        // `OpEntryPoint GLCompute %id "main"` then the interface ids.
        let interface = entry.split('"').nth(2).unwrap().split_whitespace().count();
        let expected = if env == TargetEnv::Vulkan1_3 { 1 } else { 0 };
        assert_eq!(interface, expected, "{env:?}: {entry}");
        spirv_val(&words, env);
    }
}

/// Writes `text` as it is (no pipeline): what the preflight says.
fn preflight_error(text: &str) -> String {
    let module = parse(text);
    match oxir_spirv::write_module(&module, &Options::default()) {
        Err(Error::Unsupported { what, location }) => format!("{what} at {location:?}"),
        other => panic!("expected a preflight refusal, got {other:?}"),
    }
}

#[test]
fn the_preflight_refuses_what_a_kept_callable_cannot_be() {
    let pointer = "\
global @out: storage(read_write) array<u32, 4> binding(0, 0)
callable @put(ptr<storage(read_write), array<u32, 4>>) {
block0(v0: ptr<storage(read_write), array<u32, 4>>):
    return
}
kernel @main() workgroup_size(1, 1, 1) {
block0:
    call @put(@out)
    return
}
";
    let e = preflight_error(pointer);
    assert!(
        e.contains("callable `put` with a parameter or result of type"),
        "{e}"
    );
    let register = "\
callable @lane() -> u32 {
block0:
    v0: u32 = local_invocation_index
    return v0
}
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: u32 = call @lane()
    return
}
";
    let e = preflight_error(register);
    assert!(
        e.contains("`local_invocation_index` in callable `lane`"),
        "{e}"
    );
    let recursive = "\
const c0: u32 = 1
callable @down(u32) -> u32 {
block0(v0: u32):
    v1: u32 = call @down(v0)
    return v1
}
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: u32 = call @down(c0)
    return
}
";
    let e = preflight_error(recursive);
    assert!(e.contains("recursive function `down`"), "{e}");
    let barrier_in_fragment = "\
const c0: vec4<f32> = zero
callable @sync() {
block0:
    workgroup_barrier
    return
}
fragment @fs() -> vec4<f32> location(0) {
block0:
    call @sync()
    return c0
}
";
    let e = preflight_error(barrier_in_fragment);
    assert!(e.contains("in a fragment entry point"), "{e}");
}

#[test]
fn a_callable_no_entry_point_reaches_is_not_written() {
    let text = "\
callable @unused() -> u32 {
block0:
    v0: u32 = local_invocation_index
    return v0
}
kernel @main() workgroup_size(1, 1, 1) {
block0:
    return
}
";
    let words = oxir_spirv::write_module(&parse(text), &Options::default()).unwrap();
    assert_eq!(count(&words, rspirv::spirv::Op::Function), 1);
}
