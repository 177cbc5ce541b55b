//! Best-of-N time per input instruction of each `structurize` step on the benchmark
//! kernels, without the clone of the input: shows which step grows faster than linear.
//! CPU time of the thread, not wall time.
//! `cargo run --release -p oxir-passes --example structurize_scale [SIZES...] [--once]`.

#[path = "../benches/kernels.rs"]
mod kernels;

use std::time::Duration;

/// Time this thread has spent on a CPU (`CLOCK_THREAD_CPUTIME_ID`), so that other
/// processes on a busy machine do not count.
fn cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn best<F: FnMut(&mut oxir_ir::Module)>(
    input: &oxir_ir::Module,
    runs: usize,
    mut f: F,
) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let mut m = input.clone();
        let start = cpu_time();
        f(&mut m);
        best = best.min(cpu_time() - start);
        drop(m);
    }
    best
}

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
        let n = m.inst_count() as f64;
        assert!(oxir_passes::pipelines::normalize().run(&mut m).succeeded());
        // `--once`: one run of each step (for callgrind, which counts instructions).
        let once = std::env::args().any(|a| a == "--once");
        let runs = if once {
            1
        } else {
            (2_000_000 / size).clamp(5, 200)
        };
        let mut after_reg2mem = m.clone();
        oxir_passes::passes::reg2mem::run_on_module(&mut after_reg2mem);
        let mut structured = after_reg2mem.clone();
        oxir_passes::passes::restructure_cfg::run_on_module(&mut structured);
        let ns = |d: Duration| d.as_nanos() as f64 / n;
        let whole = best(&m, runs, |m| {
            assert!(oxir_passes::pipelines::structurize().run(m).succeeded())
        });
        let r2m = best(&m, runs, |m| {
            oxir_passes::passes::reg2mem::run_on_module(m);
        });
        let rcfg = best(&after_reg2mem, runs, |m| {
            oxir_passes::passes::restructure_cfg::run_on_module(m);
        });
        let options = oxir_ir::verifier::VerifierOptions {
            require_unique_merge_blocks: true,
            require_canonical_break_continue_targets: true,
            ..Default::default()
        };
        let ver = best(&structured, runs, |m| {
            assert!(oxir_ir::verifier::verify_module(m, &options).succeeded())
        });
        let clone = best(&structured, runs, |m| {
            std::hint::black_box(m.clone());
        });
        println!(
            "{size:>7}: ns/inst structurize {:.0}  reg2mem {:.0}  restructure {:.0}  verify {:.0}  clone {:.0}",
            ns(whole), ns(r2m), ns(rcfg), ns(ver), ns(clone)
        );
    }
}
