//! What `-O` does, measured: SPIR-V words at `-O0` and `-O` (and after `spirv-opt -O` on
//! oxir's `-O` output, when `spirv-opt` is on `PATH`: what the optimiser left behind), and
//! the IR instructions the interpreter executes running every compute kernel after the
//! `-O0` pipeline head (`normalize`) and after `-O`'s (`normalize` + `ssa-optimization`),
//! over `tests/shaders/` and the shader corpus (`OXIR_CORPUS_DIR`).
//!
//! Ratios are geometric means over shaders (kernels) and ratios of totals. Runs use
//! seeded random inputs at each binding's minimum size (runtime arrays get 512 bytes);
//! a kernel that fails or exceeds the budget at either level is left out.
//!
//! `cargo run --release -p oxir --example opt_effect`.

mod common;

use common::{input, shader_files};
use oxir_driver::{CompileOptions, OptLevel, Target};
use oxir_ir::FunctionKind;
use oxir_passes::pipelines;
use std::process::Command;

fn words(name: &str, text: &str, opt_level: OptLevel) -> Option<Vec<u32>> {
    let options = CompileOptions {
        opt_level,
        ..CompileOptions::default()
    };
    let artifact = oxir_driver::compile(input(name, text), Target::Spirv, &options).ok()?;
    artifact.as_words().map(<[u32]>::to_vec)
}

/// Words of `words` after `spirv-opt -O`, or `None` when it is missing or fails.
fn spirv_opt(words: &[u32]) -> Option<usize> {
    let dir = std::env::temp_dir().join(format!("oxir-opt-effect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let (input, output) = (dir.join("in.spv"), dir.join("out.spv"));
    std::fs::write(&input, oxir_spirv::to_bytes(words)).ok()?;
    let status = Command::new("spirv-opt")
        .args(["-O", "--target-env=vulkan1.1"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .status()
        .ok()?;
    let out = status
        .success()
        .then(|| std::fs::read(&output).ok())
        .flatten()?;
    Some(out.len() / 4)
}

#[derive(Default)]
struct Ratios {
    log_sum: f64,
    count: u32,
    a: u64,
    b: u64,
}

impl Ratios {
    fn add(&mut self, a: u64, b: u64) {
        self.log_sum += (a as f64 / b.max(1) as f64).ln();
        self.count += 1;
        self.a += a;
        self.b += b;
    }
    fn line(&self, what: &str, a: &str, b: &str) -> String {
        format!(
            "{what} over {}: {a} {} / {b} {}: geomean {:.3}x, total {:.3}x",
            self.count,
            self.a,
            self.b,
            (self.log_sum / f64::from(self.count.max(1))).exp(),
            self.a as f64 / self.b.max(1) as f64
        )
    }
}

fn main() {
    let (mut size, mut left, mut insts) = (Ratios::default(), Ratios::default(), Ratios::default());
    let o0 = pipelines::normalize();
    let mut o1 = pipelines::normalize();
    o1.add_sequence("ssa-optimization", pipelines::ssa_optimization());
    for path in shader_files() {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path.to_string_lossy().to_string();
        if let (Some(a), Some(b)) = (
            words(&name, &text, OptLevel::O1),
            words(&name, &text, OptLevel::O0),
        ) {
            size.add(a.len() as u64, b.len() as u64);
            if let Some(after) = spirv_opt(&a) {
                left.add(after as u64, a.len() as u64);
            }
        }
        let Ok(module) = oxir_driver::load(input(&name, &text), &CompileOptions::default()) else {
            continue;
        };
        if !module
            .functions
            .values()
            .any(|f| matches!(f.kind, FunctionKind::Kernel { .. }))
        {
            continue;
        }
        if let (Some(a), Some(b)) = (
            common::executed(&module, &o1),
            common::executed(&module, &o0),
        ) {
            insts.add(a, b);
        }
    }
    println!("{}", size.line("SPIR-V words", "-O", "-O0"));
    println!(
        "{}",
        left.line("spirv-opt -O on oxir -O", "after", "before")
    );
    println!(
        "{}",
        insts.line("executed instructions (shaders with kernels)", "-O", "-O0")
    );
}
