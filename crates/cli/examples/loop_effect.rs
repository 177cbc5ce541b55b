//! What the loop passes do, measured: the IR instructions the interpreter executes
//! running every compute kernel, and the SPIR-V words, after `-O` (`normalize` +
//! `ssa-optimization`) against `-O` followed by `loop-optimization`, and for each loop
//! pass alone (`-O`, the pass, then `ssa-optimization` again to clean up) — over
//! `tests/shaders/`, `benches/loops/` and the shader corpus (`OXIR_CORPUS_DIR`).
//!
//! Words are of the SPIR-V `-O` pipeline applied after each variant (so both sides get
//! the same structurizer and cleanup). Ratios are geometric means over shaders and
//! ratios of totals; a shader that fails at either level is left out. `--each` prints a
//! line per shader.
//!
//! `cargo run --release -p oxir --example loop_effect [-- --each]`.

mod common;

use common::{input, shader_files};
use oxir_driver::CompileOptions;
use oxir_ir::{FunctionKind, Module};
use oxir_passes::{pipelines, PassPipeline};

fn o1() -> PassPipeline {
    let mut p = pipelines::normalize();
    p.add_sequence("ssa-optimization", pipelines::ssa_optimization());
    p
}

/// `-O`, then `extra` (loop passes), then `ssa-optimization` again when `cleanup`.
fn variant(extra: &[&str]) -> PassPipeline {
    let mut p = o1();
    if extra == ["loop-optimization"] {
        p.add_sequence("loop-optimization", pipelines::loop_optimization());
        return p;
    }
    let mut group = PassPipeline::new();
    for &name in extra {
        if let Some(pass) = oxir_passes::registry::create(name) {
            group.add(name, pass);
        }
    }
    p.add_sequence("loop-passes", group);
    p.add_sequence("cleanup", pipelines::ssa_optimization());
    p
}

fn words(module: &Module, pipeline: &PassPipeline) -> Option<u64> {
    let mut m = module.clone();
    if !pipeline.run(&mut m).succeeded() {
        return None;
    }
    let spirv = oxir_spirv::optimizing_pipeline_with(Default::default(), Default::default());
    if !spirv.run(&mut m).succeeded() {
        return None;
    }
    let words = oxir_spirv::write_module(&m, &oxir_spirv::Options::default()).ok()?;
    Some(words.len() as u64)
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
    fn line(&self, what: &str) -> String {
        format!(
            "{what} over {}: {} / {}: geomean {:.3}x, total {:.3}x",
            self.count,
            self.a,
            self.b,
            (self.log_sum / f64::from(self.count.max(1))).exp(),
            self.a as f64 / self.b.max(1) as f64
        )
    }
}

fn main() {
    let each = std::env::args().any(|a| a == "--each");
    let variants: [(&str, &[&str]); 6] = [
        ("loop-optimization", &["loop-optimization"]),
        ("loop-unroll", &["loop-unroll"]),
        ("loop-unswitch", &["loop-unswitch"]),
        ("indvar-simplify", &["indvar-simplify"]),
        ("loop-rotation", &["loop-rotation"]),
        ("loop-fusion", &["loop-fusion"]),
    ];
    let mut files = shader_files();
    let benches = oxir_test_support::repo_root().join("benches/loops");
    if let Ok(entries) = std::fs::read_dir(&benches) {
        let mut extra: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        extra.sort();
        files.extend(
            extra
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "wgsl")),
        );
    }
    let base = o1();
    let pipelines: Vec<PassPipeline> = variants.iter().map(|(_, extra)| variant(extra)).collect();
    let mut insts: Vec<Ratios> = variants.iter().map(|_| Ratios::default()).collect();
    let mut size: Vec<Ratios> = variants.iter().map(|_| Ratios::default()).collect();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path.to_string_lossy().to_string();
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
        let (b_insts, b_words) = (common::executed(&module, &base), words(&module, &base));
        let short = path
            .file_name()
            .map_or(name.clone(), |n| n.to_string_lossy().to_string());
        for (i, pipeline) in pipelines.iter().enumerate() {
            let (a_insts, a_words) = (
                common::executed(&module, pipeline),
                words(&module, pipeline),
            );
            if let (Some(a), Some(b)) = (a_insts, b_insts) {
                insts[i].add(a, b);
                if each && i == 0 {
                    print!("{short}: executed {b} -> {a}");
                }
            }
            if let (Some(a), Some(b)) = (a_words, b_words) {
                size[i].add(a, b);
                if each && i == 0 {
                    println!(", words {b} -> {a}");
                }
            } else if each && i == 0 {
                println!();
            }
        }
    }
    for (i, (what, _)) in variants.iter().enumerate() {
        println!(
            "{}",
            insts[i].line(&format!("executed instructions, -O + {what} / -O"))
        );
        println!(
            "{}",
            size[i].line(&format!("SPIR-V words, -O + {what} / -O"))
        );
    }
}
