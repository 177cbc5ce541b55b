//! Profiles `restructure-cfg` alone on a normalized benchmark kernel (for perf).
#[path = "../benches/kernels.rs"]
mod kernels;
fn main() {
    std::env::set_var("OXIR_CHECK_CHANGED", "0");
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let mut m = kernels::structured_kernel(n);
    assert!(oxir_passes::pipelines::normalize().run(&mut m).succeeded());
    oxir_passes::passes::reg2mem::run_on_module(&mut m);
    let start = std::time::Instant::now();
    for _ in 0..5 {
        let mut c = m.clone();
        oxir_passes::passes::restructure_cfg::run_on_module(&mut c);
    }
    eprintln!("{:?} per run", start.elapsed() / 5);
}
