//! Embedding oxir: compile a WGSL kernel to SPIR-V and to oxir text with `oxir-driver`,
//! and show how a rejected shader comes back.
//!
//! `cargo run -p oxir-driver --example embed [OUT.spv]`

use oxir_driver::{compile, CompileOptions, Error, Input, OptLevel, Target, TargetEnv};

const KERNEL: &str = "
@group(0) @binding(0) var<storage, read_write> data: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x < arrayLength(&data) {
        data[id.x] = clamp(data[id.x] * 2.0, 0.0, 1.0);
    }
}
";

fn main() -> Result<(), Error> {
    let options = CompileOptions {
        opt_level: OptLevel::O1,
        target_env: TargetEnv::Vulkan1_3,
        ..CompileOptions::default()
    };
    let spirv = compile(Input::wgsl("kernel.wgsl", KERNEL), Target::Spirv, &options)?;
    match std::env::args().nth(1) {
        Some(path) => std::fs::write(&path, spirv.to_bytes()).expect("cannot write the output"),
        None => println!("{} SPIR-V words", spirv.as_words().map_or(0, <[u32]>::len)),
    }
    let text = compile(Input::wgsl("kernel.wgsl", KERNEL), Target::Oxir, &options)?;
    print!("{}", text.as_text().unwrap_or_default());

    // A shader oxir cannot lower: the error names the layer, and carries the diagnostic.
    let gather = "
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@fragment
fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
    return textureGather(1, t, s, uv);
}
";
    match compile(Input::wgsl("gather.wgsl", gather), Target::Spirv, &options) {
        Err(error @ Error::Lower { .. }) => eprint!("{}", error.rendered().unwrap_or_default()),
        other => println!("unexpected: {other:?}"),
    }
    Ok(())
}
