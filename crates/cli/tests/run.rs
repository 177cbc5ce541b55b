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

/// The little-endian 32-bit words of the JSON line for `binding` in `oxir run`'s output.
fn words_of(out: &str, binding: u32) -> Vec<u32> {
    let key = format!("\"binding\":{binding},");
    let line = out.lines().find(|l| l.contains(&key)).unwrap();
    let hex = line
        .split("\"hex\":\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    (0..hex.len() / 8)
        .map(|i| {
            let b =
                |k: usize| u32::from_str_radix(&hex[i * 8 + 2 * k..i * 8 + 2 * k + 2], 16).unwrap();
            b(0) | (b(1) << 8) | (b(2) << 16) | (b(3) << 24)
        })
        .collect()
}

/// `tests/shaders/float_decomposition.wgsl` in the interpreter against values worked out by
/// hand from the WGSL definitions (`ldexp(x, e) = x * 2^e`, `x = fract * 2^exp` with
/// `0.5 <= |fract| < 1`, `modf` = `x - trunc x` and `trunc x`, both with the sign of `x`).
#[test]
fn float_decomposition_matches_hand_computed_values() {
    let out = oxir(&[
        "run",
        &path("tests/shaders/float_decomposition.wgsl"),
        "--dispatch",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let (f, i) = (words_of(&text, 0), words_of(&text, 1));
    let p2 = |k: i32| 2f32.powi(k);
    // (ldexp, frexp.fract, frexp.exp, modf.fract, modf.whole, x) per input.
    let rows: [(f32, f32, i32, f32, f32, f32); 8] = [
        (12.0, 0.75, 1, 0.5, 1.0, 1.5),
        (-0.375, -0.75, 1, -0.5, -1.0, -1.5),
        (0.0, 0.0, 0, 0.0, 0.0, 0.0),
        (-0.0625, -0.5, 2, -0.0, -2.0, -2.0),
        // 1.5e-38 = 1.276 * 2^-126 = 0.638 * 2^-125.
        (
            1.5e-38 * p2(10),
            1.5e-38 * p2(125),
            -125,
            1.5e-38,
            0.0,
            1.5e-38,
        ),
        // 2^127 < 3e38 < 2^128.
        (
            -3.0e38 * p2(-100),
            -3.0e38 * p2(-64) * p2(-64),
            128,
            -0.0,
            -3.0e38,
            -3.0e38,
        ),
        // 0.1 = 1.6 * 2^-4 = 0.8 * 2^-3 (the same significand bits in f32).
        (0.1 * p2(126), 0.8, -3, 0.1, 0.0, 0.1),
        // 1024 <= 1234.75 < 2048: 1234.75 / 2048 = 0.602905...
        (
            1234.75 * p2(-126),
            1234.75 / 2048.0,
            11,
            0.75,
            1234.0,
            1234.75,
        ),
    ];
    let bits = |v: f32| v.to_bits();
    for (k, &(ld, fr, ex, mf, mw, x)) in rows.iter().enumerate() {
        let what = format!("input {k} ({x:e})");
        // Scalar forms: invocation k.
        assert_eq!(f[8 * k], bits(ld), "ldexp of {what}");
        assert_eq!(f[8 * k + 1], bits(fr), "frexp(..).fract of {what}");
        assert_eq!(i[4 * k] as i32, ex, "frexp(..).exp of {what}");
        assert_eq!(f[8 * k + 2], bits(mf), "modf(..).fract of {what}");
        assert_eq!(f[8 * k + 3], bits(mw), "modf(..).whole of {what}");
        // vec2 forms: invocation 8 + k, lanes (input k, input k + 1).
        let (v, n) = (8 * (8 + k), 4 * (8 + k));
        let next = rows[(k + 1) % 8];
        assert_eq!(
            [f[v], f[v + 1]],
            [bits(ld), bits(next.0)],
            "vec2 ldexp of {what}"
        );
        assert_eq!(
            [f[v + 2], f[v + 3]],
            [bits(fr), bits(next.1)],
            "vec2 frexp fract, {what}"
        );
        assert_eq!(
            [i[n] as i32, i[n + 1] as i32],
            [ex, next.2],
            "vec2 frexp exp, {what}"
        );
        assert_eq!(
            [f[v + 4], f[v + 5]],
            [bits(mf), bits(next.3)],
            "vec2 modf fract, {what}"
        );
        assert_eq!(
            [f[v + 6], f[v + 7]],
            [bits(mw), bits(next.4)],
            "vec2 modf whole, {what}"
        );
    }
}

/// bgra8unorm stores blue first: (1, 0.5, 0, 0.25) is the bytes 00 80 ff 40 (0.5 · 255 =
/// 127.5 rounds to 128, 0.25 · 255 = 63.75 to 64). The Vulkan engine refuses it: SPIR-V
/// declares the image without a format, which the runner cannot pick one for.
#[test]
fn bgra8unorm_stores_blue_first_and_vulkan_refuses_it() {
    let dir = std::env::temp_dir().join(format!("oxir-run-bgra-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bgra.wgsl");
    std::fs::write(
        &file,
        "@group(0) @binding(0) var dst: texture_storage_2d<bgra8unorm, write>;\n\
         @compute @workgroup_size(1) fn main() {\n\
         textureStore(dst, vec2<i32>(0, 0), vec4<f32>(1.0, 0.5, 0.0, 0.25)); }\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let out = oxir(&["run", file, "--dispatch", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"group\":0,\"binding\":0,\"texture\":[1,1,1],\"format\":\"bgra8unorm\",\"hex\":\"0080ff40\"}\n"
    );
    let spv = dir.join("bgra.spv");
    let out = oxir(&[
        "compile",
        file,
        "--target",
        "spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    if oxir_test_support::spirv_val::have_spirv_val("bgra8unorm") {
        let bytes = std::fs::read(&spv).unwrap();
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        oxir_test_support::spirv_val::spirv_val(&words, "vulkan1.1").unwrap();
    }
    let out = oxir(&["run", file, "--dispatch", "1", "--engine", "vulkan"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("image format Unknown") || err.contains("no Vulkan"),
        "{err}"
    );
}
