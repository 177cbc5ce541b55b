//! naga contained: inputs that make naga panic or recurse past any stack are refused with
//! exit 1, a message naming the file, and no panic output; every command names the file
//! of a damaged input.
//!
//! The SPIR-V cases are project shaders compiled by oxir with one word replaced, found by
//! `scripts/naga_spv_sweep.py` (naga 30.0.2; each case names the naga site it reached) and
//! kept as files under `tests/data/naga-panics/`.

mod common;

use common::{oxir, path, stderr};
use std::path::PathBuf;
use std::process::Output;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxir-naga-contained-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// A damaged SPIR-V module of `tests/data/naga-panics/`: `SHADER` compiled by oxir with
/// `--bounds-checks unchecked`, word `index` set to `value`. The files are kept, not
/// regenerated, so a change to oxir's writer cannot move a case off its naga site.
fn damaged_spirv(shader: &str, index: usize, value: u32) -> PathBuf {
    let stem = shader.replace('.', "-");
    PathBuf::from(path(&format!(
        "tests/data/naga-panics/{stem}-w{index}-{value:x}.spv"
    )))
}

/// Exit 1, the file named, and nothing that looks like a crash of oxir.
#[track_caller]
fn assert_refused(out: &Output, file: &std::path::Path) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let name = file.to_str().expect("UTF-8 path");
    assert!(err.contains(name), "the message names {name}: {err}");
    assert!(
        !err.contains("panicked at"),
        "the panic hook printed: {err}"
    );
    assert!(!err.contains("RUST_BACKTRACE"), "{err}");
}

/// (shader, word, value, the naga file it reached with naga 30.0.2)
const SPIRV_PANICS: [(&str, usize, u32, &str); 9] = [
    ("histogram.wgsl", 76, 0, "front/spv/mod.rs:2477"),
    ("histogram.wgsl", 26, 0xffff_ffff, "front/spv/mod.rs:2528"),
    ("histogram.wgsl", 189, 2, "front/spv/mod.rs:1148"),
    ("histogram.wgsl", 98, 3, "front/atomic_upgrade.rs:192"),
    ("prefix_sum.wgsl", 137, 0, "front/spv/function.rs:214"),
    ("prefix_sum.wgsl", 160, 0, "front/spv/function.rs:291"),
    (
        "prefix_sum.wgsl",
        72,
        0xffff_ffff,
        "front/spv/function.rs:403",
    ),
    ("reduce.comp", 418, 0, "front/spv/next_block.rs:2144"),
    ("lit.frag", 411, 3, "front/spv/image.rs:79"),
];

#[test]
fn naga_panics_on_spirv_are_exit_1_naming_the_file_and_the_naga_site() {
    let mut reached = Vec::new();
    for (shader, index, value, site) in SPIRV_PANICS {
        let file = damaged_spirv(shader, index, value);
        let out = oxir(&["compile", file.to_str().expect("UTF-8 path")]);
        assert_refused(&out, &file);
        let err = stderr(&out);
        if err.contains("naga failed on this input") && err.contains(site) {
            reached.push(site);
        }
    }
    // Only a naga upgrade can move a case off its site (rerun scripts/naga_spv_sweep.py).
    assert_eq!(
        reached.len(),
        SPIRV_PANICS.len(),
        "only {reached:?} still make naga panic"
    );
}

#[test]
fn reflect_and_run_contain_the_same_panic() {
    let file = damaged_spirv("histogram.wgsl", 76, 0);
    let name = file.to_str().expect("UTF-8 path");
    for args in [
        vec!["reflect", name],
        vec!["run", name, "--dispatch", "1"],
        vec!["compile", name, "--target", "spirv-asm"],
    ] {
        let out = oxir(&args);
        assert_refused(&out, &file);
        assert!(
            stderr(&out).contains("naga failed on this input"),
            "{args:?}"
        );
    }
}

fn write(name: &str, text: &str) -> PathBuf {
    let file = scratch(name);
    std::fs::write(&file, text).expect("written");
    file
}

#[test]
fn a_20000_term_wgsl_expression_is_refused_before_naga() {
    let chain = vec!["1"; 20_000].join(" + ");
    let file = write(
        "chain.wgsl",
        &format!(
            "@group(0) @binding(0) var<storage, read_write> d: array<u32>;\n\
             @compute @workgroup_size(1) fn main() {{ d[0] = {chain}; }}\n"
        ),
    );
    let out = oxir(&["compile", file.to_str().expect("UTF-8 path")]);
    assert_refused(&out, &file);
    let err = stderr(&out);
    assert!(err.contains("nesting too deep for naga"), "{err}");
    assert!(err.contains("the limit is 4096"), "{err}");
    assert!(err.contains("chain.wgsl:2:"), "line and column: {err}");
}

const GLSL_HEADER: &str = "#version 450\nlayout(local_size_x = 1) in;\n\
    layout(std430, binding = 0) buffer B { uint d[]; };\n";

/// A GLSL compute shader whose `main` is `OPEN` × `depth`, `INNER`, `CLOSE` × `depth`.
fn nested_glsl(name: &str, open: &str, inner: &str, close: &str, depth: usize) -> PathBuf {
    write(
        name,
        &format!(
            "{GLSL_HEADER}void main() {{ {}{inner}{}; }}\n",
            open.repeat(depth),
            close.repeat(depth)
        ),
    )
}

#[test]
fn ten_thousand_nested_glsl_parentheses_are_refused_before_naga() {
    let file = nested_glsl("parens.comp", "(", "d[0] = 1u", ")", 10_000);
    let out = oxir(&["compile", file.to_str().expect("UTF-8 path")]);
    assert_refused(&out, &file);
    assert!(stderr(&out).contains("nesting too deep for naga"));
}

#[test]
fn deep_glsl_else_if_chains_are_refused_before_naga() {
    let arms: Vec<String> = (0..6_000)
        .map(|i| format!("if (d[1] == {i}u) d[0] = 1u;"))
        .collect();
    let file = write(
        "elseif.comp",
        &format!("{GLSL_HEADER}void main() {{ {} }}\n", arms.join(" else ")),
    );
    let out = oxir(&["compile", file.to_str().expect("UTF-8 path")]);
    assert_refused(&out, &file);
    assert!(stderr(&out).contains("nesting too deep for naga"));
}

/// Below the bound, deep nesting compiles: naga, the lowering (which recurses per nested
/// statement; it overflowed an 8 MiB debug stack at 1,000 levels) and the SPIR-V
/// pipeline all run on the large stack.
#[test]
fn two_thousand_nested_glsl_ifs_compile_to_spirv() {
    let file = nested_glsl("ifs.comp", "if (d[1] == 0u) {", "d[0] = 1u;", "}", 2_000);
    let spv = scratch("ifs.spv");
    let out = oxir(&[
        "compile",
        file.to_str().expect("UTF-8 path"),
        "--target",
        "spirv",
        "-o",
        spv.to_str().expect("UTF-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn garbage_spirv_names_the_file() {
    let file = scratch("garbage.spv");
    std::fs::write(&file, b"garbage!").expect("written");
    let name = file.to_str().expect("UTF-8 path");
    for command in ["compile", "reflect"] {
        let out = oxir(&[command, name]);
        assert_refused(&out, &file);
        assert!(stderr(&out).contains(&format!("{name}: error: invalid header")));
    }
}

/// A panic in naga's GLSL front-end (found by `scripts/fuzz.sh glsl`): a global constant
/// initialised from an input array, then one indexing an undeclared name, makes naga index
/// past its constant-expression arena (`proc/mod.rs:551` in naga 30.0.2).
#[test]
fn naga_panics_on_glsl_are_exit_1_naming_the_file() {
    let file = write(
        "const_index.frag",
        "#version 450\n\
         layout(location = 1) in vec4 colors[2];\n\
         const vec3 first = colors[1];\n\
         const float b = undefined_name[0][0];\n",
    );
    let out = oxir(&[
        "compile",
        file.to_str().expect("UTF-8 path"),
        "--target",
        "spirv",
    ]);
    assert_refused(&out, &file);
    assert!(
        stderr(&out).contains("naga failed on this input"),
        "{}",
        stderr(&out)
    );
}
