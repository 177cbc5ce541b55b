//! Measures parse + verify of a synthetic kernel of N instructions (default 1,000,000) and
//! the process's peak memory. `cargo run --release -p oxir-ir --example scale -- 1000000`.

#[path = "../benches/synthetic.rs"]
mod synthetic;

use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use std::time::Instant;

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let text = {
        let module = synthetic::synthetic_module(n);
        print_module(&module, View::Flat)
    };
    let before = peak_rss_kib().unwrap_or(0);
    let start = Instant::now();
    let module = match parse_module(&text) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("parse error: {e}");
            std::process::exit(1);
        }
    };
    let parsed = start.elapsed();
    let report = verify_module(&module, &VerifierOptions::default());
    let total = start.elapsed();
    println!(
        "instructions: {}\ntext bytes: {}\nparse: {:.3} s\nverify: {:.3} s\nparse+verify: {:.3} s ({:.0} ns/inst)\nverified: {}\npeak RSS: {} MiB (before parsing: {} MiB)",
        module.inst_count(),
        text.len(),
        parsed.as_secs_f64(),
        (total - parsed).as_secs_f64(),
        total.as_secs_f64(),
        total.as_nanos() as f64 / module.inst_count() as f64,
        report.succeeded(),
        peak_rss_kib().unwrap_or(0) / 1024,
        before / 1024
    );
}
