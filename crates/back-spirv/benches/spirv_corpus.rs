//! SPIR-V size and compile time on the shader corpus, next to naga.
//!
//! Every WGSL / GLSL shader of `tests/shaders/`, `examples/` and of the shared shader corpus
//! (skipped with a message when the folder is absent) that naga parses and validates is
//! compiled by oxir at `-O0` and `-O` (`oxir_naga::lower`, then the SPIR-V driver pipeline
//! and the writer), by naga's own SPIR-V writer, and — when `spirv-opt` is on `PATH` — by
//! naga followed by `spirv-opt -O`, with `spirv-opt -O` also run on oxir's `-O` output
//! (what the optimiser left behind), and naga with oxir's default bounds checks followed by
//! `spirv-opt -O` (like with like; the targets are against unchecked naga).
//!
//! naga is configured to emit what oxir emits: SPIR-V 1.3 (oxir's default target
//! environment is Vulkan 1.1), no debug information (naga's `DEBUG` flag differs between
//! debug and release builds) and no forced loop bounding. naga gets no bounds checks,
//! while oxir's words include its default `read-zero-skip-write` checks (their cost alone:
//! `cargo run -p oxir --example bounds_cost`).
//!
//! Before the timings, a table of word counts per shader, totals and geometric means over
//! the shaders every column has is printed. Timings (criterion): compiling every accepted
//! shader once, from source text to words, with oxir `-O0`, oxir `-O` and naga; the
//! throughput is per shader.
//!
//! `OXIR_BENCH_DUMP=DIR` also writes oxir's `-O` and naga + `spirv-opt -O` modules of every
//! shader into `DIR`.
//!
//! `cargo bench -p oxir-spirv --bench spirv_corpus`. With `OXIR_BENCH_PROFILE=oxir-O0`,
//! `oxir-O` or `naga` the binary compiles every accepted shader once with that compiler
//! and exits (for a profiler, e.g. `valgrind --tool=callgrind`).

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

/// oxir's words for `shader`, at `-O` when `optimize`.
fn oxir_words(shader: &Validated, optimize: bool) -> Result<Vec<u32>, Refusal> {
    let mut module =
        oxir_naga::lower(&shader.module, &shader.info).map_err(|_| Refusal::Lowering)?;
    let policy = Default::default();
    let pipeline = if optimize {
        oxir_spirv::optimizing_pipeline_with(policy, Default::default())
    } else {
        oxir_spirv::pipeline_with(policy)
    };
    if let Some(error) = pipeline.run(&mut module).error {
        return Err(Refusal::BackEnd(error.to_string()));
    }
    oxir_spirv::write_module(&module, &oxir_spirv::Options::default())
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

/// naga's words with the bounds checks oxir applies by default: `ReadZeroSkipWrite` for
/// indices, buffers and texture loads (the last column of the table, to compare like
/// with like; the targets are measured against [`naga_words`]).
fn naga_checked_words(shader: &Validated) -> Result<Vec<u32>, String> {
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let options = naga::back::spv::Options {
        bounds_check_policies: BoundsCheckPolicies {
            index: BoundsCheckPolicy::ReadZeroSkipWrite,
            buffer: BoundsCheckPolicy::ReadZeroSkipWrite,
            image_load: BoundsCheckPolicy::ReadZeroSkipWrite,
            binding_array: BoundsCheckPolicy::Unchecked,
        },
        ..naga_options()
    };
    naga::back::spv::write_vec(&shader.module, &shader.info, &options, None)
        .map_err(|e| e.to_string())
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

/// Word counts of one shader: oxir -O0, oxir -O, naga, naga + spirv-opt -O and
/// oxir -O + spirv-opt -O (the last two `None` without spirv-opt).
struct Row {
    name: String,
    words: [Option<usize>; 6],
}

const COLUMNS: [&str; 6] = [
    "oxir -O0",
    "oxir -O",
    "naga",
    "naga + spirv-opt -O",
    "oxir -O + spirv-opt -O",
    "naga with checks + spirv-opt -O",
];

/// Geometric mean of `a[i] / b[i]` and the ratio of the totals, over rows with both.
fn ratio(rows: &[Row], a: usize, b: usize) -> Option<(f64, f64, usize)> {
    let pairs: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.words[a]? as f64, r.words[b]? as f64)))
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let log: f64 = pairs.iter().map(|(x, y)| (x / y).ln()).sum();
    let (ta, tb) = pairs
        .iter()
        .fold((0.0, 0.0), |(sa, sb), (x, y)| (sa + x, sb + y));
    Some(((log / pairs.len() as f64).exp(), ta / tb, pairs.len()))
}

/// With `OXIR_BENCH_DUMP=DIR`, writes each of `modules` to `DIR/<shader>.<label>.spv`
/// (`/` in the shader's name becomes `_`), to compare them with `spirv-dis`.
fn dump(shader: &str, modules: &[(&str, Option<&Vec<u32>>)]) {
    let Ok(dir) = std::env::var("OXIR_BENCH_DUMP") else {
        return;
    };
    let _ = std::fs::create_dir_all(&dir);
    for (label, words) in modules {
        if let Some(words) = words {
            let file = format!("{}.{label}.spv", shader.replace('/', "_"));
            let _ = std::fs::write(Path::new(&dir).join(file), oxir_spirv::to_bytes(words));
        }
    }
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
        let Ok(naga) = naga_words(&validated) else {
            rejected_by_naga += 1;
            continue;
        };
        let (o0, o1) = match (oxir_words(&validated, false), oxir_words(&validated, true)) {
            (Ok(o0), Ok(o1)) => (o0, o1),
            (Err(Refusal::Lowering), _) | (_, Err(Refusal::Lowering)) => {
                not_lowered += 1;
                continue;
            }
            (Err(Refusal::BackEnd(reason)), _) | (_, Err(Refusal::BackEnd(reason))) => {
                println!("refused by the back-end: {}: {reason}", shader.name);
                refused_by_back_end += 1;
                continue;
            }
        };
        let naga_opt = spirv_opt(&naga, &scratch);
        let oxir_opt = spirv_opt(&o1, &scratch).map(|w| w.len());
        dump(
            &shader.name,
            &[("oxir-O", Some(&o1)), ("naga-opt", naga_opt.as_ref())],
        );
        let naga_opt = naga_opt.map(|w| w.len());
        let checked_opt = naga_checked_words(&validated)
            .ok()
            .and_then(|w| spirv_opt(&w, &scratch))
            .map(|w| w.len());
        rows.push(Row {
            name: shader.name.clone(),
            words: [
                Some(o0.len()),
                Some(o1.len()),
                Some(naga.len()),
                naga_opt,
                oxir_opt,
                checked_opt,
            ],
        });
        accepted.push(shader.clone());
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "| shader | {} |\n|---|---:|---:|---:|---:|---:|---:|",
        COLUMNS.join(" | ")
    );
    let cell = |w: Option<usize>| w.map_or("n/a".to_string(), |w| w.to_string());
    for row in &rows {
        let cells: Vec<String> = row.words.iter().map(|&w| cell(w)).collect();
        println!("| {} | {} |", row.name, cells.join(" | "));
    }
    let totals: Vec<String> = (0..COLUMNS.len())
        .map(|i| {
            let have: Vec<usize> = rows.iter().filter_map(|r| r.words[i]).collect();
            let total: usize = have.iter().sum();
            if have.len() == rows.len() {
                total.to_string()
            } else {
                format!("{total} ({} shaders)", have.len())
            }
        })
        .collect();
    println!(
        "| **total ({} shaders)** | {} |",
        rows.len(),
        totals.join(" | ")
    );
    println!(
        "{} shaders compared; {not_lowered} with a feature oxir's front-end does not lower, {refused_by_back_end} refused by oxir's SPIR-V back-end, {rejected_by_naga} rejected by naga",
        rows.len()
    );
    for (what, a, b) in [
        ("oxir -O / oxir -O0", 1, 0),
        ("oxir -O / naga", 1, 2),
        ("oxir -O / (naga + spirv-opt -O)", 1, 3),
        ("(oxir -O + spirv-opt -O) / oxir -O", 4, 1),
        ("oxir -O / (naga with checks + spirv-opt -O)", 1, 5),
    ] {
        if let Some((geomean, total, n)) = ratio(&rows, a, b) {
            println!("{what}: geomean {geomean:.3}, total {total:.3} ({n} shaders)");
        }
    }
    accepted
}

/// `OXIR_BENCH_PROFILE=oxir-O0|oxir-O|naga|parse|none`: compile every accepted shader once with that
/// compiler and exit, without the table or criterion (for `valgrind --tool=callgrind` or
/// `perf record` on the bench binary). Never inlined, so that a profiler can collect only
/// this call (`valgrind --tool=callgrind --toggle-collect='*profile_once*'`).
#[inline(never)]
///
/// `none` does nothing after choosing the shaders and `parse` only parses and validates
/// them: whole-program counts of those two runs give the parse's share (it runs on a
/// thread of its own, which `--toggle-collect` does not see), so that naga's whole
/// translate (parse + writer) can be compared with oxir's in instructions.
fn profile_once(which: &str, accepted: &[Shader]) {
    if which == "none" {
        return;
    }
    for shader in accepted {
        let validated = shader.parse().expect("parsed before");
        let words = match which {
            "parse" => Some(Vec::new()),
            "oxir-O0" => oxir_words(&validated, false).ok(),
            "oxir-O" => oxir_words(&validated, true).ok(),
            "naga" => naga_words(&validated).ok(),
            other => {
                panic!("OXIR_BENCH_PROFILE={other}: expected oxir-O0, oxir-O, naga, parse or none")
            }
        };
        std::hint::black_box(words.expect("compiled before"));
    }
}

/// The shaders every compiler accepts, without running `spirv-opt` (profiling mode).
fn accepted_quietly(all: &[Shader]) -> Vec<Shader> {
    all.iter()
        .filter(|s| {
            s.parse().is_ok_and(|v| {
                oxir_words(&v, false).is_ok()
                    && oxir_words(&v, true).is_ok()
                    && naga_words(&v).is_ok()
            })
        })
        .cloned()
        .collect()
}

fn main() {
    std::env::set_var("OXIR_CHECK_CHANGED", "0");
    let all = shaders();
    if let Ok(which) = std::env::var("OXIR_BENCH_PROFILE") {
        profile_once(&which, &accepted_quietly(&all));
        return;
    }
    let accepted = size_table(&all);
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    let mut group = c.benchmark_group("spirv_corpus");
    group.throughput(Throughput::Elements(accepted.len() as u64));
    for (name, optimize) in [("oxir -O0", false), ("oxir -O", true)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                for shader in &accepted {
                    let validated = shader.parse().expect("parsed before");
                    let words = oxir_words(&validated, optimize).ok();
                    std::hint::black_box(words.expect("compiled before"));
                }
            })
        });
    }
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
