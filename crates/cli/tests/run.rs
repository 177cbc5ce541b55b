//! `oxir run`: JSON lines, buffer specs, views, exit codes, and `-O0` versus `-O`
//! producing identical buffers on the project's compute shaders and the corpus.

mod common;

use common::{oxir, path, stderr, stdout};
use oxir_test_support::corpus_dir;
use std::path::PathBuf;

#[test]
fn clamp_scale_json_lines_with_values() {
    let out = oxir(&[
        "run",
        &path("examples/clamp_scale.wgsl"),
        "--dispatch",
        "1",
        "--buffer",
        "0:0=f32:2,3,5",
        "--buffer",
        "0:1=f32:1,2,3,4",
        "--view",
        "0:1=f32",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"group\":0,\"binding\":1,\"size\":16,\"hex\":\"00000040000080400000a0400000a040\",\"values\":[2.0,4.0,5.0,5.0]}\n"
    );
}

#[test]
fn default_sizes_zero_and_random_specs() {
    let reduce = path("tests/shaders/prefix_sum.wgsl");
    let out = oxir(&["run", &reduce, "--dispatch", "1", "--default-size", "256"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"size\":256"), "{}", stdout(&out));
    let a = oxir(&[
        "run",
        &reduce,
        "--dispatch",
        "1",
        "--buffer",
        "0:0=random:256:9",
    ]);
    let b = oxir(&[
        "run",
        &reduce,
        "--dispatch",
        "1",
        "--buffer",
        "0:0=random:256:9",
    ]);
    assert_eq!(stdout(&a), stdout(&b));
    let z = oxir(&[
        "run",
        &reduce,
        "--dispatch",
        "1",
        "--buffer",
        "0:0=zero:64",
        "--view",
        "0:0=i32",
    ]);
    assert!(stdout(&z).contains("\"values\":[0,0,0,0"), "{}", stdout(&z));
}

#[test]
fn usage_and_runtime_errors_have_exit_codes() {
    let clamp = path("examples/clamp_scale.wgsl");
    assert_eq!(
        oxir(&["run", &clamp, "--dispatch", "x"]).status.code(),
        Some(2)
    );
    assert_eq!(
        oxir(&["run", &clamp, "--dispatch", "1", "--engine", "nope"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        oxir(&["run", &clamp, "--dispatch", "1", "--buffer", "0:1=nope:3"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        oxir(&["run", &clamp, "--dispatch", "1", "--buffer", "7:7=zero:4"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        oxir(&[
            "run",
            &path("tests/shaders/transform.vert"),
            "--dispatch",
            "1"
        ])
        .status
        .code(),
        Some(1)
    );
    // A run-time error (the instruction limit) is exit 1 with the instruction named.
    let out = oxir(&[
        "run",
        &path("tests/shaders/prefix_sum.wgsl"),
        "--dispatch",
        "1",
        "--max-instructions",
        "100",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("instruction limit"),
        "{}",
        stderr(&out)
    );
}

/// Compute shaders: `-O0` and `-O` produce the same buffers.
fn compare_levels(file: &str, entry: Option<&str>) -> Result<bool, String> {
    let mut base = vec!["run", file, "--dispatch", "2", "--default-size", "512"];
    if let Some(e) = entry {
        base.extend(["--entry", e]);
    }
    let mut o0 = base.clone();
    o0.push("-O0");
    let mut o1 = base.clone();
    o1.push("-O");
    let a = oxir(&o0);
    if a.status.code() != Some(0) {
        return Ok(false);
    }
    let b = oxir(&o1);
    if stdout(&a) != stdout(&b) || b.status.code() != Some(0) {
        return Err(format!(
            "{file}: -O0 and -O differ:\n{}\n{}\n{}",
            stdout(&a),
            stdout(&b),
            stderr(&b)
        ));
    }
    Ok(true)
}

#[test]
fn o0_and_o_agree_on_project_compute_shaders() {
    let mut checked = 0;
    for file in [
        "examples/clamp_scale.wgsl",
        "examples/clamp_scale.oxir",
        "tests/shaders/prefix_sum.wgsl",
        "tests/shaders/histogram.wgsl",
        "tests/shaders/reduce.comp",
        "tests/shaders/memory.wgsl",
        "tests/shaders/control_flow.wgsl",
        "tests/shaders/expressions.wgsl",
    ] {
        if compare_levels(&path(file), None).unwrap() {
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} shaders ran");
}

#[test]
fn o0_and_o_agree_on_corpus_compute_shaders() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("skipping: no shared/corpus");
        return;
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for sub in ["naga", "wgpu-examples"] {
        if let Ok(rd) = std::fs::read_dir(corpus.join(sub)) {
            for e in rd.flatten() {
                let p = e.path();
                if p.extension().and_then(|e| e.to_str()) == Some("wgsl") {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    let mut ran = 0;
    let mut failures = Vec::new();
    for f in &files {
        // Every kernel, by name (several-kernel files need --entry).
        let text = std::fs::read_to_string(f).unwrap();
        let Ok(module) = oxir_naga::compile(
            oxir_naga::ShaderSource::Wgsl(&text),
            "corpus",
            &Default::default(),
        ) else {
            continue;
        };
        for func in module.functions.values() {
            if !matches!(func.kind, oxir_ir::FunctionKind::Kernel { .. }) {
                continue;
            }
            match compare_levels(f.to_str().unwrap(), Some(&func.name)) {
                Ok(true) => ran += 1,
                Ok(false) => {}
                Err(e) => failures.push(e),
            }
        }
    }
    eprintln!(
        "corpus: {ran} kernels of {} shaders ran at -O0 and -O",
        files.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
