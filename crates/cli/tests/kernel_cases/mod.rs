//! The compute kernels the execution-equality tests run (`tests/vulkan.rs`,
//! `tests/llvm_host.rs`): the project's shaders and the corpus's WGSL, their `oxir run`
//! arguments, the input seed of each, the words that depend on invocation order, and which
//! built-ins' precision is the driver's.

#![allow(dead_code)]

use crate::common::{oxir, path, stdout};
use crate::vulkan_support::parse_lines;
use oxir_test_support::corpus_dir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Built-ins whose precision Vulkan leaves to the driver. Float division (2.5 ULP in
/// Vulkan) is not on the list: lavapipe divides correctly rounded, so divisions compare
/// exactly here, and a driver that does not would fail this test visibly.
pub const IMPRECISE: &[&str] = &[
    "sin(",
    "cos(",
    "tan(",
    "asin(",
    "acos(",
    "atan(",
    "atan2(",
    "sinh(",
    "cosh(",
    "tanh(",
    "asinh(",
    "acosh(",
    "atanh(",
    "exp(",
    "exp2(",
    "log(",
    "log2(",
    "pow(",
    "sqrt(",
    "inverseSqrt(",
    "normalize(",
    "length(",
    "distance(",
    "smoothstep(",
    "degrees(",
    "radians(",
    "refract(",
    "inversesqrt(",
];
/// The ULP bound for float words of shaders that use [`IMPRECISE`] operations.
pub const ULP_BOUND: u32 = 256;

pub fn imprecise(text: &str) -> Option<&'static str> {
    if let Some(op) = IMPRECISE.iter().find(|op| {
        text.match_indices(**op).any(|(i, _)| {
            // A whole word: not the tail of another identifier.
            !text[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    }) {
        return Some(op);
    }
    None
}

/// A kernel to check.
pub struct Case {
    pub file: PathBuf,
    pub entry: String,
}

impl Case {
    /// `FILE:ENTRY`.
    pub fn label(&self) -> String {
        format!(
            "{}:{}",
            self.file.file_name().unwrap().to_string_lossy(),
            self.entry
        )
    }
}

pub fn source_of(file: &Path, text: &str) -> oxir_naga::ShaderSource<'static> {
    let text: &'static str = Box::leak(text.to_string().into_boxed_str());
    if file.extension().and_then(|e| e.to_str()) == Some("comp") {
        oxir_naga::ShaderSource::Glsl(text, oxir_naga::GlslStage::Compute)
    } else {
        oxir_naga::ShaderSource::Wgsl(text)
    }
}

pub fn cases() -> Vec<Case> {
    let mut files: Vec<PathBuf> = [
        "examples/clamp_scale.wgsl",
        "tests/shaders/prefix_sum.wgsl",
        "tests/shaders/histogram.wgsl",
        "tests/shaders/reduce.comp",
        "tests/shaders/memory.wgsl",
        "tests/shaders/control_flow.wgsl",
        "tests/shaders/expressions.wgsl",
        "tests/shaders/interface.wgsl",
        "tests/shaders/textures.wgsl",
        "tests/shaders/bounds.wgsl",
        "tests/shaders/bounds_textures.wgsl",
        "tests/shaders/copy_layouts.wgsl",
        "tests/shaders/helpers.wgsl",
        "tests/shaders/composites.wgsl",
        "tests/shaders/float_decomposition.wgsl",
        "tests/layouts/uniform_layouts.wgsl",
        "tests/layouts/uniform_f16.wgsl",
        "tests/shaders/texel_formats.wgsl",
        "tests/shaders/gather_offsets.wgsl",
        "tests/shaders/pipeline_overrides.wgsl",
        "tests/shaders/spec_constants.wgsl",
        "tests/shaders/spec_workgroup.wgsl",
        "tests/shaders/std140_storage.comp",
    ]
    .iter()
    .map(|f| PathBuf::from(path(f)))
    .collect();
    match corpus_dir() {
        Some(corpus) => {
            let mut found = Vec::new();
            for sub in ["naga", "wgpu-examples"] {
                if let Ok(rd) = std::fs::read_dir(corpus.join(sub)) {
                    for e in rd.flatten() {
                        if e.path().extension().and_then(|e| e.to_str()) == Some("wgsl") {
                            found.push(e.path());
                        }
                    }
                }
            }
            found.sort();
            files.extend(found);
        }
        None => eprintln!("SKIPPED the corpus: no shared/corpus"),
    }
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(shader) = source_of(&file, &text).parse("case") else {
            continue;
        };
        for ep in &shader.module.entry_points {
            if ep.stage == naga::ShaderStage::Compute {
                out.push(Case {
                    file: file.clone(),
                    entry: ep.name.clone(),
                });
            }
        }
    }
    out
}

/// Kernels whose workgroups read what other workgroups write, so the result depends on the
/// order workgroups run in (the interpreter runs them in order, a GPU in parallel): run
/// with one workgroup. (Races inside a workgroup are found by `--shuffle` instead.)
pub const CROSS_WORKGROUP_RACES: &[(&str, &str)] = &[
    (
        "reduce.comp:main",
        "workgroup w writes values[w], which workgroup 0 reads as its input",
    ),
    (
        "expressions.wgsl:main",
        "invocation i reads floats[i + 1], which the next workgroup (size 1) writes",
    ),
    (
        "bounds.wgsl:main",
        "`out[i] = 5u` with a data-dependent i races with `out[g * 4 + k]` of another \
         workgroup (seen as -O0 and -O differing on lavapipe)",
    ),
    (
        "timestamp_queries_shader.wgsl:main_cs",
        "every workgroup reads buffer[0] and writes its hash back: a later workgroup may hash \
         the hash (seen once on lavapipe with random inputs)",
    ),
];

pub fn run_args(
    input: &str,
    entry: &str,
    dispatch: &str,
    buffers: &[String],
    engine: &str,
) -> Vec<String> {
    let mut a: Vec<String> = [
        "run",
        input,
        "--entry",
        entry,
        "--dispatch",
        dispatch,
        "--engine",
        engine,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for b in buffers {
        if let Some(t) = b.strip_prefix("texture ") {
            a.push("--texture".into());
            a.push(t.to_string());
        } else {
            a.push("--buffer".into());
            a.push(b.clone());
        }
    }
    a
}

/// The input seed of the kernel labelled `label` (FNV-1a of the label).
pub fn seed_of(label: &str) -> u64 {
    label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The words (by binding, sorted, each once) of `expected` (the interpreter's output for
/// `interp_args`) that change when the interpreter shuffles the invocation order within
/// workgroups (`--shuffle 1..3`): races by design, or atomics.
pub fn unstable_words(
    interp_args: &[String],
    expected: &BTreeMap<(u32, u32), Vec<u8>>,
) -> BTreeMap<(u32, u32), Vec<usize>> {
    let mut unstable: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    for seed in ["1", "2", "3"] {
        let mut a = interp_args.to_vec();
        a.extend(["--shuffle".to_string(), seed.to_string()]);
        let shuffled = oxir(&a.iter().map(String::as_str).collect::<Vec<_>>());
        for (key, bytes) in parse_lines(&stdout(&shuffled)) {
            let Some(want) = expected.get(&key) else {
                continue;
            };
            for (i, (x, y)) in want.chunks(4).zip(bytes.chunks(4)).enumerate() {
                if x != y {
                    unstable.entry(key).or_default().push(i);
                }
            }
        }
    }
    for v in unstable.values_mut() {
        v.sort();
        v.dedup();
    }
    unstable
}
