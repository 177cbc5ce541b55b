//! The corpus test: every WGSL, GLSL (`.vert`, `.frag`, `.comp`) and SPIR-V (`.spv`) file
//! of the shared shader corpus (`OXIR_CORPUS_DIR`; third-party shaders, never copied into
//! the project).
//!
//! For every file naga accepts, lowering must produce a module that passes the verifier
//! (with oxir-naga's options) or refuse with an `unsupported:` error that names a
//! location and a reason the README's "What oxir refuses" table lists; it must never
//! panic. Files naga rejects are listed as skipped with naga's
//! message. Overrides are applied at their defaults first, as `oxir_naga::compile` does;
//! a shader with an override that has none is counted apart (it needs `--override`
//! values). The test prints the counts and the tally of refused features.

use oxir_naga::{GlslStage, LowerError, LowerOptions, ShaderSource, SourcePosition};
use oxir_test_support::corpus_dir;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("wgsl" | "vert" | "frag" | "comp" | "spv")
        ) {
            out.push(path);
        }
    }
}

enum Outcome {
    Rejected(String),
    /// Overrides without a default: the shader needs `--override` values.
    NeedsValues(String),
    Lowered,
    Refused(String),
    Failed(String),
}

fn run(path: &Path) -> Outcome {
    let bytes = std::fs::read(path).expect("corpus file is readable");
    let name = path.display().to_string();
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let text;
    let source = match extension {
        "spv" => ShaderSource::SpirV(&bytes),
        other => {
            text = String::from_utf8_lossy(&bytes).into_owned();
            match GlslStage::from_extension(other) {
                Some(stage) => ShaderSource::Glsl(&text, stage),
                None => ShaderSource::Wgsl(&text),
            }
        }
    };
    let shader = match source.parse(&name) {
        Ok(shader) => shader,
        Err(e) => return Outcome::Rejected(e.summary),
    };
    // Overrides at their defaults, as `oxir_naga::compile` and the command apply them.
    let resolved = match oxir_naga::apply_overrides(&shader.module, &shader.info, None, &[], &name)
    {
        Ok(resolved) => resolved,
        Err(e) => return Outcome::NeedsValues(e.to_string()),
    };
    match oxir_naga::lower_with_options(&resolved.module, &resolved.info, &LowerOptions::default())
    {
        Ok(module) => {
            let report = oxir_ir::verifier::verify_module(&module, &oxir_naga::verifier_options());
            if report.succeeded() {
                Outcome::Lowered
            } else {
                let first: Vec<String> = report
                    .errors
                    .iter()
                    .take(3)
                    .map(|e| e.to_string())
                    .collect();
                Outcome::Failed(format!("verifier: {}", first.join("; ")))
            }
        }
        Err(error) => {
            let error = error.located(source.text());
            let message = error.to_string();
            match &error {
                LowerError::Unsupported { feature, .. } => {
                    let located = !matches!(error.position(), SourcePosition::Unknown);
                    if !message.starts_with("unsupported: ") {
                        Outcome::Failed(format!("refusal without the prefix: {message}"))
                    } else if !located {
                        // A refusal must say where; report it so it gets a span.
                        Outcome::Failed(format!("refusal without a location: {message}"))
                    } else if let Err(e) = oxir_test_support::refusals::check_listed(&message) {
                        Outcome::Failed(e)
                    } else {
                        Outcome::Refused(feature.clone())
                    }
                }
                LowerError::Internal { .. } | LowerError::NoSuchEntryPoint { .. } => {
                    Outcome::Failed(message)
                }
            }
        }
    }
}

#[test]
fn corpus_lowers_or_refuses_without_panics() {
    let dir =
        corpus_dir().unwrap_or_else(|| oxir_test_support::repo_root().join("../shared/corpus"));
    if !dir.is_dir() {
        println!("SKIPPED: no shader corpus at {}", dir.display());
        return;
    }
    let mut files = Vec::new();
    collect(&dir, &mut files);
    files.sort();
    let (mut accepted, mut lowered) = (0, 0);
    let mut rejected = Vec::new();
    let mut refused: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut needs_values = Vec::new();
    let mut failures = Vec::new();
    for path in &files {
        let short = path
            .strip_prefix(&dir)
            .unwrap_or(path)
            .display()
            .to_string();
        match catch_unwind(AssertUnwindSafe(|| run(path))) {
            Err(_) => failures.push(format!("{short}: PANIC")),
            Ok(Outcome::Rejected(message)) => rejected.push(format!("{short}: {message}")),
            Ok(Outcome::NeedsValues(message)) => {
                accepted += 1;
                needs_values.push(format!("{short}: {message}"));
            }
            Ok(Outcome::Lowered) => {
                accepted += 1;
                lowered += 1;
            }
            Ok(Outcome::Refused(feature)) => {
                accepted += 1;
                refused.entry(feature).or_default().push(short);
            }
            Ok(Outcome::Failed(message)) => {
                accepted += 1;
                failures.push(format!("{short}: {message}"));
            }
        }
    }
    println!("corpus: {} files in {}", files.len(), dir.display());
    println!("  rejected by naga (skipped): {}", rejected.len());
    for line in &rejected {
        println!("    {line}");
    }
    println!("  accepted by naga: {accepted}");
    println!("  lowered and verified: {lowered}");
    println!(
        "  overrides without a default (need --override values): {}",
        needs_values.len()
    );
    for line in &needs_values {
        println!("    {line}");
    }
    let refused_count: usize = refused.values().map(Vec::len).sum();
    println!("  refused (unsupported): {refused_count}");
    for (feature, files) in &refused {
        println!("    {:>3}  {feature}: {}", files.len(), files.join(", "));
    }
    println!("  failures: {}", failures.len());
    for line in &failures {
        println!("    {line}");
    }
    assert!(
        failures.is_empty(),
        "{} corpus failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The nesting bound is far from real shaders: every project and corpus WGSL and GLSL
/// file's estimate is under a tenth of `MAX_NESTING`.
#[test]
fn real_shaders_stay_far_below_the_nesting_bound() {
    let mut files = Vec::new();
    collect(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders"),
        &mut files,
    );
    match corpus_dir() {
        Some(dir) => collect(&dir, &mut files),
        None => eprintln!("corpus absent (set OXIR_CORPUS_DIR): project shaders only"),
    }
    let mut deepest = (0, PathBuf::new());
    for file in &files {
        let extension = file.extension().and_then(|e| e.to_str()).unwrap_or("");
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let depth = match extension {
            "wgsl" => oxir_naga::wgsl_nesting(&text),
            "vert" | "frag" | "comp" => oxir_naga::glsl_nesting(&text),
            _ => continue,
        };
        if depth > deepest.0 {
            deepest = (depth, file.clone());
        }
    }
    eprintln!(
        "{} files; deepest nesting estimate {} ({})",
        files.len(),
        deepest.0,
        deepest.1.display()
    );
    assert!(deepest.0 * 10 < oxir_naga::MAX_NESTING, "{deepest:?}");
}
