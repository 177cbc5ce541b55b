//! Interpreter throughput: executed instructions per second on simple arithmetic kernels
//! (structured memory form as lowered, and plain SSA after `normalize`).
//! `cargo bench -p oxir-interp --bench throughput`.

use oxir_interp::{Buffers, Options};
use oxir_naga::{LowerOptions, ShaderSource};
use std::time::Instant;

const KERNEL: &str = "
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    var x = data[id.x];
    var acc = 0u;
    for (var i = 0u; i < 2000u; i = i + 1u) {
        x = x * 1664525u + 1013904223u;
        acc = acc ^ (x >> 7u);
        acc = acc + (x & 255u);
    }
    data[id.x] = acc;
}
";

fn main() {
    let module = oxir_naga::compile(
        ShaderSource::Wgsl(KERNEL),
        "bench.wgsl",
        &LowerOptions::default(),
    )
    .unwrap();
    let mut plain = module.clone();
    oxir_passes::pipelines::normalize().run(&mut plain);
    for (name, m) in [
        ("lowered (memory form)", &module),
        ("normalized (SSA)", &plain),
    ] {
        if std::env::var("OXIR_BENCH_ONLY").is_ok_and(|only| !name.contains(only.as_str())) {
            continue;
        }
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), vec![1; 4 * 64 * 8]);
        let options = Options {
            max_instructions: u64::MAX,
            ..Options::default()
        };
        let start = Instant::now();
        let report = oxir_interp::dispatch(m, "main", [8, 1, 1], &mut buffers, &options).unwrap();
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{name}: {} instructions in {secs:.3} s = {:.1} M instructions/s",
            report.executed,
            report.executed as f64 / secs / 1e6
        );
    }
}
