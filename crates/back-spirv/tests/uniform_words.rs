//! `spirv-uniform-words`: uniform buffers in WGSL's layout (`matCx2`, `@size`, `@align`)
//! read as 32-bit words, so that Vulkan 1.0 takes them. Checked three ways: the verifier
//! and the text round trip after the pass, the interpreter before and after on seeded
//! contents, and spirv-val for vulkan1.0 on the written module; plus what the pass leaves
//! alone.

use oxir_interp::{Buffers, Options};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use oxir_spirv::{uniform_words, TargetEnv};
use std::path::Path;

fn parse(text: &str) -> Module {
    oxir_ir::parser::parse_module(text).unwrap_or_else(|e| panic!("{e}"))
}

fn lower_wgsl(path: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path);
    let text = std::fs::read_to_string(&path).unwrap();
    let shader = oxir_naga::ShaderSource::Wgsl(&text).parse(path.to_str().unwrap());
    let shader = shader.unwrap_or_else(|e| panic!("{}", e.rendered));
    let mut module = oxir_naga::lower(&shader.module, &shader.info).unwrap();
    let stats = oxir_passes::pipelines::normalize().run(&mut module);
    assert!(stats.error.is_none(), "{:?}", stats.error);
    module
}

/// The output binding after one workgroup, with the uniform buffer at (0, 0) seeded.
fn run(module: &Module, uniform_bytes: usize, groups: u32) -> Vec<u8> {
    let mut buffers = Buffers::new();
    buffers.insert((0, 0), oxir_interp::random_bytes(uniform_bytes, 11));
    oxir_interp::dispatch(
        module,
        "main",
        [groups, 1, 1],
        &mut buffers,
        &Options::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    buffers.remove(&(0, 1)).expect("the output binding")
}

fn check_verifies_and_round_trips(module: &Module) {
    let report = verify_module(module, &VerifierOptions::default());
    assert!(report.succeeded(), "{report}");
    let text = oxir_ir::printer::print_module(module, Default::default());
    let reparsed = parse(&text);
    assert_eq!(
        text,
        oxir_ir::printer::print_module(&reparsed, Default::default())
    );
}

fn spirv_val_vulkan1_0(words: &[u32], what: &str) {
    let file = std::env::temp_dir().join(format!(
        "oxir-uniform-words-{what}-{}.spv",
        std::process::id()
    ));
    std::fs::write(&file, oxir_spirv::to_bytes(words)).unwrap();
    match std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.0"])
        .arg(&file)
        .output()
    {
        Ok(o) => assert!(
            o.status.success(),
            "{what}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(_) => eprintln!("SKIPPED spirv-val for {what}: not installed"),
    }
    let _ = std::fs::remove_file(&file);
}

#[test]
fn wgsl_uniform_layouts_read_as_words_compute_the_same() {
    let before = lower_wgsl("tests/layouts/uniform_layouts.wgsl");
    let mut after = before.clone();
    let info = uniform_words::run_on_module(&mut after);
    assert_eq!(info.rewritten_buffer_count, 1, "{info:?}");
    // `let p = params` loads the whole struct once, then two loads through `params.d` and
    // `params.g` with dynamic indices.
    assert_eq!(info.rewritten_load_count, 3, "{info:?}");
    check_verifies_and_round_trips(&after);
    let params = after.globals.values().find(|g| g.name == "params").unwrap();
    // 208 bytes: thirteen vec4 words, no tail.
    assert_eq!(
        after.types.display(params.ty).to_string(),
        "%params_words",
        "{}",
        oxir_ir::printer::print_module(&after, Default::default())
    );
    let out_before = run(&before, 208, 1);
    assert!(out_before.iter().any(|&b| b != 0));
    assert_eq!(out_before, run(&after, 208, 1));
    let again = uniform_words::run_on_module(&mut after.clone());
    assert_eq!(
        again.rewritten_buffer_count, 0,
        "a second run changes nothing"
    );
}

/// `f16` members are halves of words: `mat2x2<f16>` (columns 4 bytes apart), a `vec3<f16>`
/// with an `f16` in its padding, dynamic indices landing on either half.
#[test]
fn f16_uniform_layouts_read_as_halves_of_words_compute_the_same() {
    let before = lower_wgsl("tests/layouts/uniform_f16.wgsl");
    let mut after = before.clone();
    let info = uniform_words::run_on_module(&mut after);
    assert_eq!(info.rewritten_buffer_count, 1, "{info:?}");
    check_verifies_and_round_trips(&after);
    let printed = oxir_ir::printer::print_module(&after, Default::default());
    assert!(printed.contains("bitcast"), "{printed}");
    // Seeded halves: random words, so some halves are NaN or infinite; the interpreter
    // compares bit patterns, which the rewrite must keep.
    let out_before = run(&before, 64, 1);
    assert!(out_before.iter().any(|&b| b != 0));
    assert_eq!(out_before, run(&after, 64, 1));
}

#[test]
fn vulkan_1_0_takes_the_words_and_keeps_the_buffer_size() {
    for file in [
        "tests/layouts/uniform_layouts.wgsl",
        "tests/layouts/uniform_f16.wgsl",
    ] {
        vulkan_1_0_takes(file);
    }
}

fn vulkan_1_0_takes(file: &str) {
    let module = lower_wgsl(file);
    for optimize in [false, true] {
        let mut m = module.clone();
        let pipeline = if optimize {
            oxir_spirv::optimizing_pipeline_with(Default::default(), Default::default())
        } else {
            oxir_spirv::pipeline_with(Default::default())
        };
        let stats = pipeline.run(&mut m);
        assert!(stats.error.is_none(), "{:?}", stats.error);
        let options = oxir_spirv::Options {
            target_env: TargetEnv::Vulkan1_0,
            ..Default::default()
        };
        let words = oxir_spirv::write_module(&m, &options).unwrap_or_else(|e| panic!("{e}"));
        let text = oxir_spirv::disassemble(&words).unwrap();
        // Columns 4 or 8 bytes apart would need such a MatrixStride; 16-bit storage
        // would need its capability.
        assert!(!text.contains("MatrixStride"), "{file}: {text}");
        assert!(!text.contains("16BitAccess"), "{file}: {text}");
        assert!(text.contains("ArrayStride 16"), "{file}: {text}");
        let name = format!("{}-{optimize}", file.rsplit('/').next().unwrap_or(file));
        spirv_val_vulkan1_0(&words, &name);
    }
}

/// A buffer that is not a whole number of vec4s gets a tail; constant indices reach it,
/// a dynamic index into a `mat3x2` (24 bytes: one vec4 and a two-word tail) would, so
/// that buffer is left for the preflight.
#[test]
fn tails_take_constant_indices_and_dynamic_ones_are_left_alone() {
    let text = "\
const c0: u32 = 0
const c1: u32 = 1
const c2: u32 = 2
layout uniform std430
global @m: uniform mat3x2<f32> binding(0, 0)
global @out: storage(read_write) array<f32, 8> binding(0, 1)
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: ptr<uniform, vec2<f32>> = access @m, c2
    v1: vec2<f32> = load v0
    v2: f32 = extract v1, 1
    v3: ptr<storage(read_write), f32> = access @out, c0
    store v3, v2
    v4: mat3x2<f32> = load @m
    v5: vec2<f32> = extract v4, 1
    v6: f32 = extract v5, 0
    v7: ptr<storage(read_write), f32> = access @out, c1
    store v7, v6
    return
}
";
    let before = parse(text);
    let mut after = before.clone();
    let info = uniform_words::run_on_module(&mut after);
    assert_eq!(
        (info.rewritten_buffer_count, info.rewritten_load_count),
        (1, 2)
    );
    check_verifies_and_round_trips(&after);
    let printed = oxir_ir::printer::print_module(&after, Default::default());
    assert!(printed.contains("tail: vec2<u32>"), "{printed}");
    let out = run(&after, 24, 1);
    assert_eq!(out, run(&before, 24, 1));
    // Word 5 of the seeded buffer is m[2].y; word 2 is m[1].x.
    let seeded = oxir_interp::random_bytes(24, 11);
    assert_eq!(out[0..4], seeded[20..24]);
    assert_eq!(out[4..8], seeded[8..12]);

    let dynamic = text.replace("access @m, c2", "access @m, v9").replace(
        "block0:\n",
        "block0:\n    v9: u32 = local_invocation_index\n",
    );
    let mut module = parse(&dynamic);
    let info = uniform_words::run_on_module(&mut module);
    assert_eq!(info.rewritten_buffer_count, 0, "{info:?}");
    let error = oxir_spirv::compile(
        &module,
        &oxir_spirv::Options {
            target_env: TargetEnv::Vulkan1_0,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("uniformBufferStandardLayout"), "{error}");
}

/// An address that escapes into a call keeps the buffer's type (the pass does not look
/// through calls; the SPIR-V pipelines inline small callables before it runs).
#[test]
fn an_escaping_address_keeps_the_layout() {
    let text = "\
const c0: u32 = 0
layout uniform std430
global @m: uniform mat2x2<f32> binding(0, 0)
global @out: storage(read_write) array<f32, 8> binding(0, 1)
callable @first(ptr<uniform, mat2x2<f32>>) -> f32 {
block0(v0: ptr<uniform, mat2x2<f32>>):
    v1: mat2x2<f32> = load v0
    v2: vec2<f32> = extract v1, 0
    v3: f32 = extract v2, 0
    return v3
}
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: f32 = call @first(@m)
    v1: ptr<storage(read_write), f32> = access @out, c0
    store v1, v0
    return
}
";
    let mut module = parse(text);
    let info = uniform_words::run_on_module(&mut module);
    assert_eq!(info.rewritten_buffer_count, 0, "{info:?}");
}
