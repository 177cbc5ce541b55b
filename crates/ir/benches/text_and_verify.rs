//! Scale benchmark of the IR core: build, print, parse and verify synthetic kernels of
//! 10k, 100k and 1M instructions. Throughput is reported per instruction, so equal
//! numbers across sizes mean linear scaling.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use std::time::Duration;

mod synthetic;
use synthetic::synthetic_module;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("ir");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for size in [10_000usize, 100_000, 1_000_000] {
        let module = synthetic_module(size);
        let insts = module.inst_count() as u64;
        let text = print_module(&module, View::Flat);
        group.throughput(Throughput::Elements(insts));
        group.bench_with_input(BenchmarkId::new("build", size), &size, |b, &n| {
            b.iter_with_large_drop(|| synthetic_module(n))
        });
        group.bench_with_input(BenchmarkId::new("print", size), &module, |b, m| {
            b.iter_with_large_drop(|| print_module(m, View::Flat))
        });
        group.bench_with_input(BenchmarkId::new("parse", size), &text, |b, t| {
            b.iter_with_large_drop(|| parse_module(t).expect("parses"))
        });
        group.bench_with_input(BenchmarkId::new("verify", size), &module, |b, m| {
            b.iter(|| assert!(verify_module(m, &VerifierOptions::default()).succeeded()))
        });
        group.bench_with_input(BenchmarkId::new("parse_verify", size), &text, |b, t| {
            b.iter(|| {
                let m = parse_module(t).expect("parses");
                assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
