//! `oxir compile` and `oxir reflect`: exit codes (0 success, 1 input rejected with a
//! diagnostic, 2 usage or I/O error), output that verifies, and the reflection JSON of a
//! shader written for this project.

mod common;

use common::{oxir, path, repo, stderr, stdout};
use std::path::PathBuf;

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxir-cli-shaders-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to a fresh file called `name` and returns its path.
fn write(tag: &str, name: &str, text: &str) -> String {
    let file = temp_dir(tag).join(name);
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_string()
}

/// The module text verifies with every structural option the front-end promises.
fn assert_verifies(text: &str) {
    let module = oxir_ir::parser::parse_module(text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
    let options = oxir_ir::verifier::VerifierOptions {
        require_unique_merge_blocks: true,
        require_canonical_break_continue_targets: true,
        ..Default::default()
    };
    let report = oxir_ir::verifier::verify_module(&module, &options);
    assert!(report.succeeded(), "{:#?}\n{text}", report.errors);
}

#[test]
fn the_readme_example_compiles() {
    let out = oxir(&[
        "compile",
        &path("examples/clamp_scale.wgsl"),
        "--target",
        "oxir",
        "--structured",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("kernel @main() workgroup_size(64, 1, 1)"),
        "{text}"
    );
    assert!(
        text.contains("callable @clamp_scale(f32, f32, f32) -> f32"),
        "{text}"
    );
    assert!(text.contains("dispatch_id"), "{text}");
    assert_verifies(&text);
}

#[test]
fn every_input_kind_compiles() {
    for shader in [
        "tests/shaders/control_flow.wgsl",
        "tests/shaders/reduce.comp",
        "tests/shaders/lit.frag",
        "tests/shaders/transform.vert",
        "examples/clamp_scale.oxir",
    ] {
        let out = oxir(&["compile", &path(shader)]);
        assert_eq!(out.status.code(), Some(0), "{shader}: {}", stderr(&out));
        assert_verifies(&stdout(&out));
    }
}

#[test]
fn spirv_input_compiles_when_the_corpus_is_there() {
    let repo = repo().canonicalize().unwrap();
    let Some(spv) = repo
        .ancestors()
        .map(|dir| dir.join("shared/corpus/naga/spv/quad-vert.spv"))
        .find(|file| file.is_file())
    else {
        println!("SKIPPED: no shared/corpus with quad-vert.spv");
        return;
    };
    let out = oxir(&["compile", spv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("vertex @main"), "{}", stdout(&out));
    assert_verifies(&stdout(&out));
}

#[test]
fn glsl_with_another_extension_needs_a_stage() {
    let source = std::fs::read_to_string(path("tests/shaders/reduce.comp")).unwrap();
    let file = write("stage", "reduce.glsl", &source);
    assert_eq!(oxir(&["compile", &file]).status.code(), Some(2));
    let out = oxir(&["compile", &file, "--stage", "compute"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        oxir(&["compile", &file, "--stage", "geometry"])
            .status
            .code(),
        Some(2)
    );
    let wgsl = path("examples/clamp_scale.wgsl");
    assert_eq!(
        oxir(&["compile", &wgsl, "--stage", "vertex"]).status.code(),
        Some(2)
    );
}

#[test]
fn entry_selects_one_entry_point_and_output_goes_to_a_file() {
    let out_file = temp_dir("entry").join("fs.oxir");
    let out = oxir(&[
        "compile",
        &path("tests/shaders/interface.wgsl"),
        "--entry",
        "fs_main",
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let text = std::fs::read_to_string(&out_file).unwrap();
    assert!(text.contains("fragment @fs_main("), "{text}");
    assert!(!text.contains("vertex @"), "{text}");
    assert_verifies(&text);

    let out = oxir(&[
        "compile",
        &path("tests/shaders/interface.wgsl"),
        "--entry",
        "nope",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no entry point `nope` (entry points: vs_main, fs_main"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn naga_diagnostics_exit_1_with_file_line_and_snippet() {
    let file = write(
        "parse",
        "broken.wgsl",
        "@compute @workgroup_size(1)\nfn main() {\n    let x = ;\n}\n",
    );
    let out = oxir(&["compile", &file]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error: expected expression"), "{err}");
    assert!(err.contains("broken.wgsl:3:13"), "{err}");
    assert!(err.contains("let x = ;"), "{err}");

    let file = write(
        "validate",
        "invalid.wgsl",
        "fn f() -> i32 {\n    return 1.0;\n}\n",
    );
    let out = oxir(&["compile", &file]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("invalid.wgsl:"), "{err}");
    assert!(err.contains("error:"), "{err}");

    let file = write(
        "glsl",
        "broken.frag",
        "#version 450\nvoid main() { float x = ; }\n",
    );
    let out = oxir(&["compile", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("broken.frag:2:"), "{}", stderr(&out));

    let file = write("spv", "garbage.spv", "not spir-v");
    let out = oxir(&["compile", &file]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("error"), "{}", stderr(&out));
}

#[test]
fn unsupported_features_exit_1_naming_feature_and_location() {
    let file = write(
        "unsupported",
        "quad.wgsl",
        "@group(0) @binding(0) var<storage, read_write> out: u32;\n\
         @compute @workgroup_size(4) fn main(@builtin(subgroup_invocation_id) lane: u32) {\n    out = quadBroadcast(lane, 1u);\n}\n",
    );
    let out = oxir(&["compile", &file]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let first = err.lines().next().unwrap_or("");
    assert!(
        first.ends_with(
            "quad.wgsl:3:11: error: unsupported: quad operation (quadBroadcast, quadSwap*) \
             (in `main`)"
        ),
        "{err}"
    );
    assert!(err.contains("out = quadBroadcast(lane, 1u);"), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn usage_and_io_errors_exit_2() {
    let wgsl = path("examples/clamp_scale.wgsl");
    assert_eq!(
        oxir(&["compile", &wgsl, "--target", "metal"]).status.code(),
        Some(2)
    );
    assert_eq!(
        oxir(&["compile", &wgsl, "--target", "spirv-asm", "--arch", "sm_80"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        oxir(&["compile", &wgsl, "--target", "ptx", "--arch", "sm_x"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        oxir(&["compile", "/nonexistent/shader.wgsl"]).status.code(),
        Some(2)
    );
    assert_eq!(
        oxir(&["reflect", "/nonexistent/shader.wgsl"]).status.code(),
        Some(2)
    );
    let file = write("ext", "shader.txt", "fn main() {}");
    assert_eq!(oxir(&["compile", &file]).status.code(), Some(2));
    assert_eq!(
        oxir(&["reflect", &path("examples/clamp_scale.oxir")])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(oxir(&["compile"]).status.code(), Some(2));
    let blocked = temp_dir("blocked").join("no-such-dir").join("out.oxir");
    assert_eq!(
        oxir(&["compile", &wgsl, "-o", blocked.to_str().unwrap()])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn reflect_reports_entry_points_bindings_and_sizes() {
    let out = oxir(&["reflect", &path("tests/shaders/memory.wgsl")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = stdout(&out);
    for expected in [
        r#""name": "main""#,
        r#""stage": "compute""#,
        r#""workgroup_size": [64, 1, 1]"#,
        r#"{"name": "gid", "type": "vec3<u32>", "location": null, "builtin": "global_invocation_id""#,
        r#"{"name": "particles", "group": 0, "binding": 0, "kind": "storage_buffer", "address_space": "storage", "access": "read_write", "type": "%Particles", "layout": "std430", "min_binding_size": 16, "array_stride": 32, "element_type": "%Particle""#,
        r#"{"name": "params", "group": 0, "binding": 1, "kind": "uniform_buffer", "address_space": "uniform", "access": null, "type": "%Params", "layout": "std140", "min_binding_size": 112"#,
        r#"{"name": "transform", "type": "mat4x4<f32>", "offset": 48, "size": 64}"#,
        r#"{"name": "weights", "group": 0, "binding": 3, "kind": "storage_buffer", "address_space": "storage", "access": "read", "type": "array<f32>", "layout": "std430", "min_binding_size": 0, "array_stride": 4"#,
        r#""used_by": ["main"]"#,
    ] {
        assert!(json.contains(expected), "missing {expected}\n{json}");
    }
    // Workgroup and private variables are not resources.
    assert!(!json.contains(r#""name": "tile""#), "{json}");

    let out = oxir(&["reflect", &path("tests/shaders/interface.wgsl")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = stdout(&out);
    for expected in [
        r#"{"name": "normal", "type": "vec3<f32>", "location": 0, "builtin": null, "interpolation": "perspective", "sampling": "centroid"}"#,
        r#"{"name": "position", "type": "vec3<f32>", "location": 0, "builtin": null, "interpolation": null, "sampling": null}"#,
        r#"{"name": "depth", "type": "f32", "location": null, "builtin": "frag_depth""#,
        r#""workgroup_size": [4, 2, 1]"#,
    ] {
        assert!(json.contains(expected), "missing {expected}\n{json}");
    }

    let out = oxir(&["reflect", &path("tests/shaders/reduce.comp")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(r#""kind": "uniform_buffer""#),
        "{}",
        stdout(&out)
    );
}

/// The corpus through the binary: every file exits 0 with a module that verifies, or 1
/// with naga's diagnostic (naga rejects it) or an `unsupported:` refusal; never 101.
#[test]
fn corpus_through_the_binary_exits_0_or_1() {
    let repo = repo().canonicalize().unwrap();
    let Some(corpus) = std::env::var_os("OXIR_CORPUS_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            repo.ancestors()
                .map(|d| d.join("shared/corpus"))
                .find(|d| d.is_dir())
        })
    else {
        println!("SKIPPED: no shared/corpus");
        return;
    };
    let mut files = Vec::new();
    let mut dirs = vec![corpus.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("wgsl" | "vert" | "frag" | "comp" | "spv")
            ) {
                files.push(path);
            }
        }
    }
    files.sort();
    let (mut compiled, mut refused, mut rejected) = (0, 0, 0);
    for file in &files {
        let out = oxir(&["compile", file.to_str().unwrap()]);
        let err = stderr(&out);
        match out.status.code() {
            Some(0) => {
                assert_verifies(&stdout(&out));
                compiled += 1;
            }
            Some(1) if err.contains("error: unsupported: ") => refused += 1,
            Some(1) => {
                assert!(!err.contains("internal error"), "{}: {err}", file.display());
                assert!(err.contains("error"), "{}: {err}", file.display());
                rejected += 1;
            }
            other => panic!("{}: exit {other:?}\n{err}", file.display()),
        }
    }
    println!("corpus via oxir compile: {compiled} compiled, {refused} refused, {rejected} rejected by naga");
    assert!(compiled > refused, "{compiled} compiled, {refused} refused");
}

/// `--bounds-checks`: the default and `restrict` add instructions that `unchecked` does
/// not; per-class overrides parse; an unknown policy or class is a usage error (exit 2)
/// naming it. On the interpreter with `-O`, the default and `restrict` differ exactly
/// where an index is out of range.
#[test]
fn bounds_check_policies_on_compile_and_run() {
    let shader = write(
        "bounds",
        "oob.wgsl",
        "@group(0) @binding(0) var<storage, read_write> data: array<u32, 4>;\n\
         @group(0) @binding(1) var<uniform> index: u32;\n\
         @compute @workgroup_size(1) fn main() { data[0] = data[index]; }\n",
    );
    let asm = |policy: &str| {
        let out = oxir(&[
            "compile",
            &shader,
            "--target",
            "spirv-asm",
            "--bounds-checks",
            policy,
        ]);
        assert_eq!(out.status.code(), Some(0), "{policy}: {}", stderr(&out));
        stdout(&out)
    };
    let (safe, restrict, unchecked) = (
        asm("read-zero-skip-write"),
        asm("restrict"),
        asm("unchecked"),
    );
    assert!(safe.contains("OpSelect"), "{safe}");
    assert!(
        restrict.contains("UMin") && !restrict.contains("OpSelect"),
        "{restrict}"
    );
    assert!(
        !unchecked.contains("UMin") && !unchecked.contains("OpSelect"),
        "{unchecked}"
    );
    assert_eq!(asm("buffers=unchecked,values=restrict"), unchecked);
    for (bad, needle) in [
        ("clamp", "`clamp`"),
        ("texels=restrict", "`texels`"),
        ("", "empty"),
    ] {
        let out = oxir(&["compile", &shader, "--bounds-checks", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains(needle), "{bad}: {}", stderr(&out));
    }
    let run = |policy: &str| {
        let out = oxir(&[
            "run",
            &shader,
            "--dispatch",
            "1",
            "-O",
            "--bounds-checks",
            policy,
            "--buffer",
            "0:0=u32:5,6,7,8",
            "--buffer",
            "0:1=u32:9",
        ]);
        assert_eq!(out.status.code(), Some(0), "{policy}: {}", stderr(&out));
        stdout(&out)
    };
    // data[9] is out of range: zero by default, the last element (8) under restrict.
    assert!(run("read-zero-skip-write").contains("\"hex\":\"00000000060000000700000008000000\""));
    assert!(run("restrict").contains("\"hex\":\"08000000060000000700000008000000\""));
}
