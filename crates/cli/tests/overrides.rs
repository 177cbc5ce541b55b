//! `--override NAME=VALUE` (WGSL pipeline-overridable constants) on `oxir compile`, `run`
//! and `reflect`: defaults, values that change what a kernel computes, workgroup sizes and
//! workgroup array lengths set by overrides, `@id` numbers, bool and f32 overrides, the
//! `overrides` list of `reflect`, and the errors (exit 1 naming the override; exit 2 for
//! malformed options). Every expected number is worked out by hand in the comments.

mod common;

use common::{assert_exit, oxir, path, stderr, stdout};
use std::path::PathBuf;

const KERNEL: &str = "tests/shaders/pipeline_overrides.wgsl";

/// `input` of the runs below: input[i] = 10 * (i + 1).
const INPUT: &str = "0:0=u32:10,20,30,40,50,60,70,80";

/// A shader in a fresh file of this test's temporary folder.
fn shader(test: &str, name: &str, text: &str) -> String {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("oxir-overrides-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_string()
}

/// The `values` of the JSON line of binding `0:binding`.
fn values(out: &std::process::Output, binding: u32) -> String {
    let text = stdout(out);
    let prefix = format!("{{\"group\":0,\"binding\":{binding},");
    let line = text
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no binding {binding} in {text}"));
    let at = line.find("\"values\":").expect("a view") + "\"values\":".len();
    line[at..line.len() - 1].to_string()
}

/// `oxir run KERNEL` on 8 input words, 8-word outputs, with `extra` arguments.
fn run_kernel(dispatch: &str, extra: &[&str]) -> std::process::Output {
    let kernel = path(KERNEL);
    let mut args = vec![
        "run",
        &kernel,
        "--dispatch",
        dispatch,
        "--buffer",
        INPUT,
        "--default-size",
        "32",
        "--view",
        "0:1=f32",
        "--view",
        "0:2=u32",
    ];
    args.extend_from_slice(extra);
    oxir(&args)
}

#[test]
fn defaults_are_used_when_nothing_is_given() {
    // wg = 8, bias = 3, scale = 1.5, negate = true; one workgroup, li = i = 0..8.
    // out_f[li] = -(1.5 li + (li + 3)) = -(2.5 li + 3)
    // out_u[li] = input[(li + 1) % 8] + (li + 3) * 1000
    let out = run_kernel("1", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        values(&out, 1),
        "[-3.0,-5.5,-8.0,-10.5,-13.0,-15.5,-18.0,-20.5]"
    );
    assert_eq!(
        values(&out, 2),
        "[3020,4030,5040,6050,7060,8070,9080,10010]"
    );
}

#[test]
fn overrides_change_what_the_kernel_computes() {
    // wg = 4 (lanes = 8), bias = 0 by @id(7), scale = 0.5, negate = false; two workgroups
    // of four: i = 4 g + li.
    // out_f[i] = 0.5 li + li = 1.5 li
    // out_u[i] = input[4 g + (li + 1) % 4] + li * 1000 + g * 1000000
    let out = run_kernel(
        "2",
        &[
            "--override",
            "wg=4",
            "--override",
            "7=0",
            "--override",
            "scale=0.5",
            "--override",
            "negate=false",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 1), "[0.0,1.5,3.0,4.5,0.0,1.5,3.0,4.5]");
    assert_eq!(
        values(&out, 2),
        "[20,1030,2040,3010,1000060,1001070,1002080,1003050]"
    );
}

#[test]
fn workgroup_size_from_an_override() {
    let text = "override wg: u32 = 2u;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(wg) fn main(@builtin(local_invocation_index) li: u32,
                                     @builtin(workgroup_id) g: vec3<u32>) {
    out[g.x * 8u + li] = li + 1u;
}";
    let file = shader("wg", "wg.wgsl", text);
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            &file,
            "--dispatch",
            "2",
            "--default-size",
            "64",
            "--view",
            "0:0=u32",
        ];
        args.extend_from_slice(extra);
        oxir(&args)
    };
    // Two workgroups of 2: lanes 0 and 1 of each write 1 and 2 at 8 g + li.
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[1,2,0,0,0,0,0,0,1,2,0,0,0,0,0,0]");
    // Workgroups of 5: lanes 0..5 write 1..=5.
    let out = run(&["--override", "wg=5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[1,2,3,4,5,0,0,0,1,2,3,4,5,0,0,0]");
    // The compiled kernel carries the size.
    let out = oxir(&["compile", &file, "--override", "wg=5"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("workgroup_size(5, 1, 1)"),
        "{}",
        stdout(&out)
    );
    // A size of zero is refused (naga's check), exit 1.
    assert_exit(
        &oxir(&["compile", &file, "--override", "wg=0"]),
        1,
        "workgroup_size",
    );
}

#[test]
fn workgroup_array_length_from_an_override() {
    // Six stores of k + 1 into an array of `len` elements: those past its end are skipped
    // (robust access), so the sum is 1 + 2 + ... + len.
    let text = "override len: u32 = 4u;
@group(0) @binding(0) var<storage, read_write> out: u32;
var<workgroup> arr: array<u32, len>;
@compute @workgroup_size(1) fn main() {
    for (var k = 0u; k < 6u; k++) { arr[k] = k + 1u; }
    var sum = 0u;
    for (var k = 0u; k < 6u; k++) { sum += arr[k]; }
    out = sum;
}";
    let file = shader("len", "len.wgsl", text);
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &file, "--dispatch", "1", "--view", "0:0=u32"];
        args.extend_from_slice(extra);
        oxir(&args)
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[10]"); // 1 + 2 + 3 + 4
    let out = run(&["--override", "len=2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[3]"); // 1 + 2
    let out = run(&["--override", "len=6"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[21]"); // 1 + ... + 6
    let out = oxir(&["compile", &file, "--override", "len=6"]);
    assert!(stdout(&out).contains("array<u32, 6>"), "{}", stdout(&out));
}

#[test]
fn set_by_id_by_name_and_without_a_default() {
    let text = "@id(7) override a: i32 = 1;
override b: i32;
@group(0) @binding(0) var<storage, read_write> out: array<i32, 2>;
@compute @workgroup_size(1) fn main() { out[0] = a; out[1] = b * 2; }";
    let file = shader("id", "id.wgsl", text);
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &file, "--dispatch", "1", "--view", "0:0=i32"];
        args.extend_from_slice(extra);
        oxir(&args)
    };
    let out = run(&["--override", "7=-5", "--override", "b=21"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[-5,42]");
    // An override with an @id may also be set by name.
    let out = run(&["--override", "a=9", "--override", "b=-1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[9,-2]");
    // `b` has no default: leaving it out is an error naming it, at its declaration.
    let out = run(&[]);
    assert_exit(&out, 1, "override `b` has no default");
    assert!(stderr(&out).contains("id.wgsl:2:1"), "{}", stderr(&out));
}

#[test]
fn bool_and_f32_overrides() {
    let text = "override on: bool = false;
override k: f32 = 0.25;
@group(0) @binding(0) var<storage, read_write> out: array<f32, 2>;
@compute @workgroup_size(1) fn main() {
    out[0] = select(1.0, 2.0, on);
    out[1] = k * 4.0;
}";
    let file = shader("bf", "bf.wgsl", text);
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &file, "--dispatch", "1", "--view", "0:0=f32"];
        args.extend_from_slice(extra);
        oxir(&args)
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[1.0,1.0]"); // false: 1.0; 0.25 * 4
    let out = run(&["--override", "on=true", "--override", "k=-1.5e1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[2.0,-60.0]"); // true: 2.0; -15 * 4
                                                // The f32 is rounded to nearest: 0.1 becomes 0x3dcccccd; times 4 (exact) 0x3ecccccd.
    let out = run(&["--override", "k=0.1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\"hex\":\"0000803fcdcccc3e\""),
        "{}",
        stdout(&out)
    );
}

#[test]
fn reflect_lists_the_overrides() {
    let kernel = path(KERNEL);
    let out = oxir(&[
        "reflect",
        &kernel,
        "--override",
        "wg=4",
        "--override",
        "7=0",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = stdout(&out);
    assert!(json.contains("\"workgroup_size\": [4, 1, 1]"), "{json}");
    let want = r#"  "overrides": [
    {"name": "bias", "id": 7, "spec_id": 7, "type": "u32", "default": 3, "value": 0},
    {"name": "scale", "id": null, "spec_id": 0, "type": "f32", "default": 1.5, "value": 1.5},
    {"name": "negate", "id": null, "spec_id": 1, "type": "bool", "default": true, "value": true},
    {"name": "wg", "id": null, "spec_id": 2, "type": "u32", "default": 8, "value": 4},
    {"name": "lanes", "id": null, "spec_id": 3, "type": "u32", "default": 16, "value": 8}
  ]
}
"#;
    assert!(json.ends_with(want), "{json}");
    // Without overrides in the shader, the JSON has no `overrides` member.
    let plain = oxir(&["reflect", &path("examples/clamp_scale.wgsl")]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert!(!stdout(&plain).contains("overrides"), "{}", stdout(&plain));
    // A default without a value given: null.
    let file = shader(
        "reflect",
        "nodefault.wgsl",
        "override n: u32;
@compute @workgroup_size(n) fn main() {}",
    );
    let out = oxir(&["reflect", &file, "--override", "n=3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = stdout(&out);
    assert!(json.contains("\"workgroup_size\": [3, 1, 1]"), "{json}");
    assert!(
        json.contains(
            r#"{"name": "n", "id": null, "spec_id": 0, "type": "u32", "default": null, "value": 3}"#
        ),
        "{json}"
    );
}

#[test]
fn unknown_names_and_ids_are_errors() {
    let kernel = path(KERNEL);
    for sub in ["compile", "reflect"] {
        let out = oxir(&[sub, &kernel, "--override", "nope=1"]);
        assert_exit(&out, 1, "no pipeline-overridable constant `nope`");
        assert!(stderr(&out).contains("bias @id(7)"), "{}", stderr(&out));
    }
    let out = run_kernel("1", &["--override", "8=1"]);
    assert_exit(&out, 1, "no pipeline-overridable constant with @id(8)");
    // A shader without overrides has none to set.
    let out = oxir(&[
        "compile",
        &path("examples/clamp_scale.wgsl"),
        "--override",
        "x=1",
    ]);
    assert_exit(&out, 1, "(overrides: none)");
}

#[test]
fn values_that_do_not_read_as_the_type_are_errors() {
    let kernel = path(KERNEL);
    for (setting, needle) in [
        ("negate=1", "`1` is not a valid bool"),
        ("negate=yes", "`yes` is not a valid bool"),
        ("wg=-1", "`-1` is not a valid u32"),
        ("wg=1.5", "`1.5` is not a valid u32"),
        ("wg=4294967296", "`4294967296` is not a valid u32"),
        ("7=x", "override `bias`: `x` is not a valid u32"),
        ("scale=inf", "`inf` is not a valid f32"),
        ("scale=NaN", "`NaN` is not a valid f32"),
        (
            "scale=1e39",
            "`1e39` is not a valid f32 (outside f32's range)",
        ),
        ("scale=", "`` is not a valid f32"),
    ] {
        let out = oxir(&["compile", &kernel, "--override", setting]);
        assert_exit(&out, 1, needle);
        // Located at the declaration.
        assert!(
            stderr(&out).contains("pipeline_overrides.wgsl:"),
            "{}",
            stderr(&out)
        );
    }
    let file = shader(
        "i32",
        "i.wgsl",
        "override v: i32 = 0;
@group(0) @binding(0) var<storage, read_write> out: i32;
@compute @workgroup_size(1) fn main() { out = v; }",
    );
    for bad in ["2147483648", "0x10", "1.0"] {
        let out = oxir(&["compile", &file, "--override", &format!("v={bad}")]);
        assert_exit(&out, 1, &format!("`{bad}` is not a valid i32"));
    }
    let out = oxir(&[
        "run",
        &file,
        "--dispatch",
        "1",
        "--override",
        "v=-2147483648",
        "--view",
        "0:0=i32",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(values(&out, 0), "[-2147483648]");
}

#[test]
fn setting_an_override_twice_is_an_error() {
    // Twice by name, or once by name and once by its @id: refused (not "last wins").
    for (first, second, needle) in [
        (
            "wg=4",
            "wg=2",
            "override `wg` is set twice (as `wg` and as `wg`)",
        ),
        (
            "bias=1",
            "7=2",
            "override `bias` is set twice (as `bias` and as `7`)",
        ),
    ] {
        let out = run_kernel("1", &["--override", first, "--override", second]);
        assert_exit(&out, 1, needle);
    }
}

#[test]
fn malformed_options_and_inputs_without_overrides_are_usage_errors() {
    let kernel = path(KERNEL);
    assert_exit(
        &oxir(&["compile", &kernel, "--override", "wg"]),
        2,
        "expected NAME=VALUE",
    );
    assert_exit(
        &oxir(&["compile", &kernel, "--override", "=4"]),
        2,
        "expected NAME=VALUE",
    );
    let oxir_file = shader(
        "usage",
        "m.oxir",
        "kernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    return\n}\n",
    );
    assert_exit(
        &oxir(&["compile", &oxir_file, "--override", "a=1"]),
        2,
        "--override and --spec-constants apply to shader input",
    );
    let spv = shader("usage", "k.spv", "not read");
    assert_exit(
        &oxir(&["run", &spv, "--dispatch", "1", "--engine", "vulkan", "-O"]),
        2,
        "-O and --stage do not apply to a .spv input",
    );
}
