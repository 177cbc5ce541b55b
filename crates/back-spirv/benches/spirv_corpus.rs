//! SPIR-V size and compile time on the shader corpus, next to naga.
//!
//! Every WGSL / GLSL shader of `tests/shaders/` and of the shared shader corpus (skipped with a
//! message when the folder is absent) that naga parses and validates is compiled three
//! ways: by oxir (`oxir_naga::lower` then `oxir_spirv::compile`, the whole back-end:
//! `normalize`, `structurize`, `mem2reg`, the writer), by naga's own SPIR-V writer, and by
//! naga's writer followed by `spirv-opt -O` (when `spirv-opt` is on `PATH`).
//!
//! naga is configured to emit what oxir emits: SPIR-V 1.3 (oxir's default target
//! environment is Vulkan 1.1), no debug information (naga's `DEBUG` flag differs between
//! debug and release builds) and no forced loop bounding. naga gets no bounds checks,
//! while oxir's words include its default `read-zero-skip-write` checks (their cost alone:
//! `cargo run -p oxir --example bounds_cost`).
//!
//! Before the timings, a table of word counts per shader and totals over the shaders that
//! both compilers accept is printed. `-O0` and `-O` give the same SPIR-V today (the SPIR-V
//! pipeline always normalises; `-O` adds no optimisation pass yet), so one oxir column is
//! shown. Timings (criterion): compiling every accepted shader once, from source text to
//! words, with oxir and with naga; the throughput is per shader.
//!
//! `cargo bench -p oxir-spirv --bench spirv_corpus`.

use criterion::{Criterion, Throughput};
use oxir_naga::{GlslStage, Validated};
use oxir_test_support::corpus_dir;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[derive(Clone)]
struct Shader {
    name: String,
    text: String,
    glsl: Option<GlslStage>,
}

impl Shader {
    fn parse(&self) -> Result<Validated, String> {
        let parsed = match self.glsl {
            None => oxir_naga::parse_wgsl(&self.text, &self.name),
            Some(stage) => oxir_naga::parse_glsl(&self.text, stage, &self.name),
        };
        parsed.map_err(|e| e.summary)
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read_folder(dir: &Path, label: &str, out: &mut Vec<Shader>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    for path in paths {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let glsl = match ext {
            "wgsl" => None,
            other => match GlslStage::from_extension(other) {
                Some(stage) => Some(stage),
                None => continue,
            },
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let file = path.file_name().unwrap_or_default().to_string_lossy();
        out.push(Shader {
            name: format!("{label}/{file}"),
            text,
            glsl,
        });
    }
}

fn shaders() -> Vec<Shader> {
    let mut out = Vec::new();
    read_folder(&repo().join("tests/shaders"), "tests/shaders", &mut out);
    read_folder(&repo().join("examples"), "examples", &mut out);
    match corpus_dir() {
        Some(corpus) => {
            read_folder(&corpus.join("naga"), "corpus/naga", &mut out);
            read_folder(
                &corpus.join("wgpu-examples"),
                "corpus/wgpu-examples",
                &mut out,
            );
        }
        None => eprintln!("spirv_corpus: no ../shared/corpus; measuring project shaders only"),
    }
    out
}

/// Why oxir produced no SPIR-V for a shader.
enum Refusal {
    /// The front-end does not lower something in it.
    Lowering,
    /// The back-end refused it (unsupported for the target environment), with the reason.
    BackEnd(String),
}

fn oxir_words(shader: &Validated) -> Result<Vec<u32>, Refusal> {
    let module = oxir_naga::lower(&shader.module, &shader.info).map_err(|_| Refusal::Lowering)?;
    oxir_spirv::compile(&module, &oxir_spirv::Options::default())
        .map_err(|e| Refusal::BackEnd(e.to_string()))
}

fn naga_options() -> naga::back::spv::Options<'static> {
    naga::back::spv::Options {
        lang_version: (1, 3),
        flags: naga::back::spv::WriterFlags::empty(),
        force_loop_bounding: false,
        ..Default::default()
    }
}

fn naga_words(shader: &Validated) -> Result<Vec<u32>, String> {
    naga::back::spv::write_vec(&shader.module, &shader.info, &naga_options(), None)
        .map_err(|e| e.to_string())
}

/// `spirv-opt -O` of `words`; `None` when spirv-opt is missing or fails.
fn spirv_opt(words: &[u32], scratch: &Path) -> Option<Vec<u32>> {
    let input = scratch.join("in.spv");
    let output = scratch.join("out.spv");
    std::fs::write(&input, oxir_spirv::to_bytes(words)).ok()?;
    let status = Command::new("spirv-opt")
        .args(["-O", "--target-env=vulkan1.1"])
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    let bytes = std::fs::read(&output).ok()?;
    Some(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// Prints the size table; returns the shaders both compilers accept.
fn size_table(all: &[Shader]) -> Vec<Shader> {
    let scratch = std::env::temp_dir().join(format!("oxir-spirv-corpus-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let (mut rejected_by_naga, mut not_lowered, mut refused_by_back_end) = (0, 0, 0);
    let mut accepted = Vec::new();
    let mut rows = Vec::new();
    for shader in all {
        let Ok(validated) = shader.parse() else {
            rejected_by_naga += 1;
            continue;
        };
        let naga = match naga_words(&validated) {
            Ok(words) => words,
            Err(_) => {
                rejected_by_naga += 1;
                continue;
            }
        };
        let oxir = match oxir_words(&validated) {
            Ok(words) => words,
            Err(Refusal::Lowering) => {
                not_lowered += 1;
                continue;
            }
            Err(Refusal::BackEnd(reason)) => {
                println!("refused by the back-end: {}: {reason}", shader.name);
                refused_by_back_end += 1;
                continue;
            }
        };
        let optimized = spirv_opt(&naga, &scratch).map(|w| w.len());
        rows.push((shader.name.clone(), oxir.len(), naga.len(), optimized));
        accepted.push(shader.clone());
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "| shader | oxir -O0 = -O | naga | naga + spirv-opt -O | oxir / naga |\n|---|---:|---:|---:|---:|"
    );
    let (mut oxir_total, mut naga_total, mut opt_total, mut opt_count) = (0, 0, 0, 0);
    let mut log_ratio = 0.0f64;
    for (name, oxir, naga, optimized) in &rows {
        oxir_total += oxir;
        naga_total += naga;
        if let Some(o) = optimized {
            opt_total += o;
            opt_count += 1;
        }
        log_ratio += (*oxir as f64 / *naga as f64).ln();
        let opt = optimized.map_or("n/a".to_string(), |o| o.to_string());
        println!(
            "| {name} | {oxir} | {naga} | {opt} | {:.2} |",
            *oxir as f64 / *naga as f64
        );
    }
    let n = rows.len().max(1) as f64;
    println!(
        "| **total ({} shaders)** | {oxir_total} | {naga_total} | {} | {:.2} |",
        rows.len(),
        if opt_count == rows.len() {
            opt_total.to_string()
        } else {
            format!("{opt_total} ({opt_count} shaders)")
        },
        oxir_total as f64 / naga_total.max(1) as f64
    );
    println!(
        "geometric mean oxir/naga {:.2}; {} shaders compared; {not_lowered} with a feature oxir's front-end does not lower, {refused_by_back_end} refused by oxir's SPIR-V back-end, {rejected_by_naga} rejected by naga",
        (log_ratio / n).exp(),
        rows.len()
    );
    if opt_count > 0 && opt_count == rows.len() {
        println!(
            "oxir / (naga + spirv-opt -O) over the total: {:.2}",
            oxir_total as f64 / opt_total.max(1) as f64
        );
    }
    accepted
}

fn main() {
    std::env::set_var("OXIR_CHECK_CHANGED", "0");
    let all = shaders();
    let accepted = size_table(&all);
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut group = c.benchmark_group("spirv_corpus");
    group.throughput(Throughput::Elements(accepted.len() as u64));
    group.bench_function("oxir", |b| {
        b.iter(|| {
            for shader in &accepted {
                let validated = shader.parse().expect("parsed before");
                std::hint::black_box(oxir_words(&validated).ok().expect("compiled before"));
            }
        })
    });
    group.bench_function("naga", |b| {
        b.iter(|| {
            for shader in &accepted {
                let validated = shader.parse().expect("parsed before");
                std::hint::black_box(naga_words(&validated).expect("compiled before"));
            }
        })
    });
    group.finish();
    c.final_summary();
}
