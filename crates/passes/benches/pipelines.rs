//! The `normalize` and `structurize` pipelines on synthetic structured kernels of 1k, 10k
//! and 100k instructions (nested counted loops, ifs, breaks, locals, calls). Throughput is
//! per input instruction, so equal numbers across sizes mean linear scaling.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use oxir_passes::pipelines;
use std::time::Duration;

mod kernels;

fn bench(c: &mut Criterion) {
    // Benchmarks measure the passes, not the debug-build checks.
    std::env::set_var("OXIR_CHECK_CHANGED", "0");
    let mut group = c.benchmark_group("pipelines");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for size in [1_000usize, 10_000, 100_000] {
        let input = kernels::structured_kernel(size);
        group.throughput(Throughput::Elements(input.inst_count() as u64));
        group.bench_with_input(BenchmarkId::new("normalize", size), &input, |b, m| {
            b.iter_batched_ref(
                || m.clone(),
                |m| assert!(pipelines::normalize().run(m).succeeded()),
                criterion::BatchSize::LargeInput,
            )
        });
        let mut normalized = input.clone();
        assert!(pipelines::normalize().run(&mut normalized).succeeded());
        group.bench_with_input(
            BenchmarkId::new("structurize", size),
            &normalized,
            |b, m| {
                b.iter_batched_ref(
                    || m.clone(),
                    |m| assert!(pipelines::structurize().run(m).succeeded()),
                    criterion::BatchSize::LargeInput,
                )
            },
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
