//! CSIR costs per shader over every vertex and fragment entry of `tests/shaders` (and the
//! corpus, `OXIR_CORPUS_DIR`) that CSIR accepts: loading a CSI blob (decode, hash,
//! verify), next to the verifier alone on the decoded shader, the optimiser and the TGSI
//! emitter. The loader's cost over the verifier's is what decoding and the hash add.

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use oxir_csir::{binary, opt, tgsi, verify, Limits, Shader};
use std::hint::black_box;
use std::time::Duration;

fn accepted() -> Vec<Shader> {
    common::all_entries()
        .into_iter()
        .filter_map(|e| e.csir.ok())
        .collect()
}

fn bench(c: &mut Criterion) {
    let limits = Limits::default();
    let shaders = accepted();
    let blobs: Vec<Vec<u8>> = shaders.iter().map(binary::write).collect();
    let bytes: usize = blobs.iter().map(Vec::len).sum();
    eprintln!(
        "{} accepted shaders, {} CSI bytes on average",
        shaders.len(),
        bytes / shaders.len().max(1)
    );
    let mut group = c.benchmark_group("csir");
    group.throughput(Throughput::Elements(shaders.len() as u64));
    group.bench_function("csi-load-verify", |b| {
        b.iter(|| {
            for blob in &blobs {
                black_box(binary::read(blob, &limits).is_ok());
            }
        })
    });
    group.bench_function("verify", |b| {
        b.iter(|| {
            for s in &shaders {
                black_box(verify(s, &limits).is_ok());
            }
        })
    });
    group.bench_function("optimize", |b| {
        b.iter(|| {
            for s in &shaders {
                let mut s = s.clone();
                black_box(opt::optimize(&mut s, &limits).is_ok());
            }
        })
    });
    group.bench_function("tgsi-emit", |b| {
        b.iter(|| {
            for s in &shaders {
                if let Ok(v) = verify(s, &limits) {
                    black_box(tgsi::emit(&v, None).instructions);
                }
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
