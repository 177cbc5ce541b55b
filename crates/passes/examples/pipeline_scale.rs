//! Per-pass times of `normalize` and `structurize` on the benchmark kernels, to find
//! super-linear passes: `cargo run --release -p oxir-passes --example pipeline_scale`.

#[path = "../benches/kernels.rs"]
mod kernels;

fn main() {
    std::env::set_var("OXIR_CHECK_CHANGED", "0");
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 100_000]
    } else {
        sizes
    };
    for size in sizes {
        let mut m = kernels::structured_kernel(size);
        let n = m.inst_count();
        let stats = oxir_passes::pipelines::normalize().run(&mut m);
        println!("{n} instructions\n{}", stats.log("normalize"));
        let stats = oxir_passes::pipelines::structurize().run(&mut m);
        println!("{}", stats.log("structurize"));
    }
}
