#![allow(dead_code)]
use oxir_interp::Buffers;
use oxir_ir::Module;
use oxir_naga::{GlslStage, LowerOptions, ShaderSource};
#[allow(unused_imports)]
pub use oxir_test_support::corpus_dir;
use std::path::{Path, PathBuf};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn compile_file(path: &Path) -> Module {
    let text = std::fs::read_to_string(path).unwrap();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let source = match GlslStage::from_extension(ext) {
        Some(stage) => ShaderSource::Glsl(&text, stage),
        None => ShaderSource::Wgsl(&text),
    };
    oxir_naga::compile(
        source,
        &path.display().to_string(),
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
}

pub fn compile_wgsl(text: &str) -> Module {
    oxir_naga::compile(
        ShaderSource::Wgsl(text),
        "test.wgsl",
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e:?}"))
}

pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn from_u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    u32s(bytes).into_iter().map(f32::from_bits).collect()
}

pub fn from_f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn normalized(module: &Module) -> Module {
    let mut m = module.clone();
    let run = oxir_passes::pipelines::normalize().run(&mut m);
    assert!(
        run.succeeded() && run.error.is_none(),
        "normalize failed: {:?}",
        run.error
    );
    m
}

pub fn structurized(module: &Module) -> Module {
    let mut m = normalized(module);
    let run = oxir_passes::pipelines::structurize().run(&mut m);
    assert!(
        run.succeeded() && run.error.is_none(),
        "structurize failed: {:?}",
        run.error
    );
    m
}

pub fn run(module: &Module, entry: &str, groups: [u32; 3], buffers: &mut Buffers) {
    oxir_interp::dispatch(module, entry, groups, buffers, &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
}
