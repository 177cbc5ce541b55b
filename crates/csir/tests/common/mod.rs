//! Shared by the CSIR integration tests: every vertex and fragment entry point of the
//! project's shaders (and of the corpus, when `OXIR_CORPUS_DIR` names it), lowered by
//! the front-end alone and through the CSIR pipeline.

#![allow(dead_code)]

use oxir_csir::lower::{lower, pipeline, LowerError};
use oxir_csir::{Limits, Shader};
use oxir_naga::{GlslStage, LowerOptions, ShaderSource};
use std::path::{Path, PathBuf};

/// One vertex or fragment entry point.
pub struct Entry {
    pub file: PathBuf,
    pub name: String,
    /// The verified front-end module (the interpreter's input).
    pub module: oxir_ir::Module,
    /// The CSIR lowering of the pipeline's output.
    pub csir: Result<Shader, LowerError>,
}

fn parse(path: &Path) -> Option<(String, Vec<u8>)> {
    let bytes = std::fs::read(path).ok()?;
    Some((String::from_utf8_lossy(&bytes).into_owned(), bytes))
}

/// `shader` after the CSIR optimiser, and its counters.
pub fn optimized(shader: &Shader) -> (Shader, oxir_csir::opt::OptInfo) {
    let mut s = shader.clone();
    let info = oxir_csir::opt::optimize(&mut s, &Limits::default()).expect("optimizer");
    (s, info)
}

impl Entry {
    /// `FILE:ENTRY`.
    pub fn label(&self) -> String {
        let file = self
            .file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned());
        format!("{}:{}", file.unwrap_or_default(), self.name)
    }
}

/// Every vertex and fragment entry of `files` the front-end accepts.
pub fn entries(files: &[PathBuf]) -> Vec<Entry> {
    let mut out = Vec::new();
    for path in files {
        let Some((text, bytes)) = parse(path) else {
            continue;
        };
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let source = match ext {
            "wgsl" => ShaderSource::Wgsl(&text),
            "spv" => ShaderSource::SpirV(&bytes),
            other => match GlslStage::from_extension(other) {
                Some(stage) => ShaderSource::Glsl(&text, stage),
                None => continue,
            },
        };
        let Ok(shader) = source.parse(&path.display().to_string()) else {
            continue;
        };
        for ep in &shader.module.entry_points {
            if !matches!(
                ep.stage,
                naga::ShaderStage::Vertex | naga::ShaderStage::Fragment
            ) {
                continue;
            }
            let options = LowerOptions {
                entry_point: Some(ep.name.clone()),
                ..Default::default()
            };
            // Overrides at their defaults.
            let Ok(r) = oxir_naga::apply_overrides(&shader.module, &shader.info, None, &[], "s")
            else {
                continue;
            };
            let Ok(module) = oxir_naga::lower_with_options(&r.module, &r.info, &options) else {
                continue;
            };
            let mut prepared = module.clone();
            let csir = match pipeline().run(&mut prepared).error {
                Some(e) => Err(LowerError::Pipeline(e.to_string())),
                None => lower(&prepared, &ep.name, &Limits::default()),
            };
            out.push(Entry {
                file: path.clone(),
                name: ep.name.clone(),
                module,
                csir,
            });
        }
    }
    out
}

/// The fewest entries the lowering must accept: 40 with the shader corpus, the project's
/// own 4 (`tests/shaders`) without it.
pub fn expected_accepted() -> usize {
    if oxir_test_support::corpus_dir().is_some() {
        40
    } else {
        4
    }
}

/// The project's shaders, plus the corpus's when present (a visible message otherwise).
pub fn all_entries() -> Vec<Entry> {
    entries(&oxir_test_support::shader_files(&[
        "wgsl", "vert", "frag", "spv",
    ]))
}

/// A small deterministic generator (xorshift64) for seeded test inputs.
pub struct Rng(pub u64);

impl Rng {
    /// A generator seeded from `parts` (mixed, never zero).
    pub fn new(parts: &[u64]) -> Rng {
        let mut h = 0x9e37_79b9_7f4a_7c15u64;
        for p in parts {
            h = (h ^ p).wrapping_mul(0x1000_0000_01b3).rotate_left(29);
        }
        Rng(h | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [-2, 2).
    pub fn float(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0
    }

    pub fn lanes(&mut self) -> [f32; 4] {
        [self.float(), self.float(), self.float(), self.float()]
    }
}
