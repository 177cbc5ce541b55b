//! Lowering throughput next to naga's own parse + validate throughput, in source bytes per
//! second, over the shared shader corpus (`$OXIR_CORPUS_DIR` or its default location; the
//! project's `tests/shaders/` when there is no corpus). Both run over the same files: every
//! file naga accepts and oxir lowers completely. The lowering must cost less than naga's
//! parsing and validation.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use oxir_naga::{GlslStage, ShaderSource, Validated};
use std::path::{Path, PathBuf};
use std::time::Duration;

struct Input {
    bytes: Vec<u8>,
    stage: Option<GlslStage>,
    spirv: bool,
}

impl Input {
    fn source(&self) -> ShaderSource<'_> {
        if self.spirv {
            return ShaderSource::SpirV(&self.bytes);
        }
        let text = std::str::from_utf8(&self.bytes).unwrap_or("");
        match self.stage {
            Some(stage) => ShaderSource::Glsl(text, stage),
            None => ShaderSource::Wgsl(text),
        }
    }
}

fn shader_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("OXIR_CORPUS_DIR") {
        return PathBuf::from(dir);
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let repo = repo.canonicalize().unwrap_or(repo);
    repo.ancestors()
        .skip(1)
        .map(|dir| dir.join("shared/corpus"))
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| repo.join("tests/shaders"))
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn inputs() -> Vec<Input> {
    let dir = shader_dir();
    let mut files = Vec::new();
    collect(&dir, &mut files);
    files.sort();
    let mut inputs = Vec::new();
    for path in files {
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let (stage, spirv) = match extension {
            "wgsl" => (None, false),
            "spv" => (None, true),
            other => match GlslStage::from_extension(other) {
                Some(stage) => (Some(stage), false),
                None => continue,
            },
        };
        let input = Input {
            bytes: std::fs::read(&path).unwrap(),
            stage,
            spirv,
        };
        let Ok(shader) = input.source().parse("bench") else {
            continue;
        };
        if oxir_naga::lower(&shader.module, &shader.info).is_ok() {
            inputs.push(input);
        }
    }
    println!(
        "{} shaders, {} bytes, from {}",
        inputs.len(),
        inputs.iter().map(|i| i.bytes.len()).sum::<usize>(),
        dir.display()
    );
    inputs
}

fn bench(c: &mut Criterion) {
    let inputs = inputs();
    let bytes: u64 = inputs.iter().map(|i| i.bytes.len() as u64).sum();
    let shaders: Vec<Validated> = inputs
        .iter()
        .map(|i| i.source().parse("bench").unwrap())
        .collect();
    let mut group = c.benchmark_group("front-end");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(bytes));
    group.bench_function("naga parse+validate", |b| {
        b.iter(|| {
            for input in &inputs {
                criterion::black_box(input.source().parse("bench").unwrap());
            }
        })
    });
    group.bench_function("oxir lower", |b| {
        b.iter(|| {
            for shader in &shaders {
                criterion::black_box(oxir_naga::lower(&shader.module, &shader.info).unwrap());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
