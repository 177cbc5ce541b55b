//! `oxir compile --spec-constants`: a shader's overrides kept as SPIR-V specialization
//! constants. The SPIR-V passes `spirv-val` and declares each override as an
//! `OpSpecConstant*` with the `SpecId` `reflect` reports; run on a Vulkan device as it
//! is, it gives what the interpreter gives at the defaults, and a pipeline that sets the
//! SpecIds (`oxir run X.spv --engine vulkan --override ID=VALUE`, a
//! `VkSpecializationInfo`) gives what the interpreter gives with those values set by name.
//! Then the refusals: exit 1 naming the override, exit 2 for misplaced options.
//!
//! The Vulkan tests skip without a device unless `OXIR_REQUIRE_VULKAN=1`.

mod common;

use common::{assert_exit, oxir, path, stdout};
use oxir_test_support::spirv_val::{have_spirv_val, spirv_val};
use std::path::PathBuf;

const SHADER: &str = "tests/shaders/spec_constants.wgsl";

/// A fresh folder of this test's.
fn temp(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxir-spec-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `oxir compile --spec-constants` of `input` to a `.spv` in `dir`, with `extra` arguments.
fn compile_spv(dir: &std::path::Path, input: &str, extra: &[&str]) -> String {
    let out = dir.join("k.spv").to_str().unwrap().to_string();
    let mut args = vec![
        "compile",
        input,
        "--spec-constants",
        "--target",
        "spirv",
        "-o",
        &out,
    ];
    args.extend_from_slice(extra);
    assert_exit(&oxir(&args), 0, "");
    out
}

fn words(file: &str) -> Vec<u32> {
    let bytes = std::fs::read(file).unwrap();
    bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

fn spirv_asm(extra: &[&str]) -> String {
    let shader = path(SHADER);
    let mut args = vec![
        "compile",
        &shader,
        "--spec-constants",
        "--target",
        "spirv-asm",
    ];
    args.extend_from_slice(extra);
    let out = oxir(&args);
    assert_exit(&out, 0, "");
    stdout(&out)
}

/// The opcode and literal operand of the constant decorated `SpecId n` in `asm` (oxir's
/// disassembly: ids are numbers, literals are words in decimal).
fn spec_constant(asm: &str, n: u32) -> (String, Option<String>) {
    let line = spec_constant_line(asm, n);
    let tokens: Vec<&str> = line.split_whitespace().collect();
    (tokens[2].to_string(), tokens.get(4).map(|t| t.to_string()))
}

/// The line that defines the id decorated `SpecId n` in `asm`.
fn spec_constant_line(asm: &str, n: u32) -> String {
    let decoration = asm
        .lines()
        .find(|l| l.trim_end().ends_with(&format!("SpecId {n}")))
        .unwrap_or_else(|| panic!("no SpecId {n} in\n{asm}"));
    let id = decoration.split_whitespace().nth(1).unwrap().to_string();
    asm.lines()
        .find(|l| l.trim_start().starts_with(&format!("{id} = ")))
        .unwrap_or_else(|| panic!("no definition of {id}"))
        .trim()
        .to_string()
}

#[test]
fn each_override_is_a_spec_constant_with_its_id_and_default() {
    let asm = spirv_asm(&[]);
    // @id(7) bias; the others take the lowest free ids in declaration order.
    let op = |literal: &str| ("OpSpecConstant".to_string(), Some(literal.to_string()));
    assert_eq!(spec_constant(&asm, 7), op("3"));
    assert_eq!(spec_constant(&asm, 0), op(&1.5f32.to_bits().to_string()));
    assert_eq!(
        spec_constant(&asm, 1),
        ("OpSpecConstantTrue".to_string(), None)
    );
    assert_eq!(spec_constant(&asm, 2), op(&(-2i32 as u32).to_string()));
    assert_eq!(spec_constant(&asm, 3), op("10"));
    // `unused` is read by no function: nothing is declared for it.
    assert!(!asm.contains("SpecId 4"), "{asm}");
    // --override values become the defaults.
    let asm = spirv_asm(&["--override", "bias=9", "--override", "negate=false"]);
    assert_eq!(spec_constant(&asm, 7), op("9"));
    assert_eq!(
        spec_constant(&asm, 1),
        ("OpSpecConstantFalse".to_string(), None)
    );
    // Without --spec-constants the overrides are constants: no SpecId at all.
    let plain = oxir(&["compile", &path(SHADER), "--target", "spirv-asm"]);
    assert_exit(&plain, 0, "");
    assert!(!stdout(&plain).contains("SpecId"));
}

#[test]
fn the_spirv_validates_for_every_vulkan_version_with_subgroup_free_code() {
    if !have_spirv_val("the_spirv_validates") {
        return;
    }
    let dir = temp("val");
    for env in ["vulkan1.0", "vulkan1.1", "vulkan1.3"] {
        let spv = compile_spv(&dir, &path(SHADER), &["--target-env", env]);
        spirv_val(&words(&spv), env).unwrap_or_else(|e| panic!("{env}: {e}"));
        let spv = compile_spv(&dir, &path(SHADER), &["--target-env", env, "-O"]);
        spirv_val(&words(&spv), env).unwrap_or_else(|e| panic!("-O {env}: {e}"));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reflect_reports_the_spec_ids() {
    let out = oxir(&["reflect", &path(SHADER)]);
    assert_exit(&out, 0, "");
    let json = stdout(&out);
    for (name, id) in [
        ("bias", 7),
        ("scale", 0),
        ("negate", 1),
        ("shift", 2),
        ("unused", 4),
    ] {
        let entry = format!("\"name\": \"{name}\"");
        let at = json
            .find(&entry)
            .unwrap_or_else(|| panic!("{name} in {json}"));
        let rest = &json[at..];
        let end = rest.find('}').unwrap();
        assert!(
            rest[..end].contains(&format!("\"spec_id\": {id},")),
            "{name}: {}",
            &rest[..end]
        );
    }
}

#[test]
fn the_oxir_text_keeps_them_and_the_interpreter_runs_the_defaults() {
    let dir = temp("text");
    let text = dir.join("k.oxir").to_str().unwrap().to_string();
    let out = oxir(&[
        "compile",
        &path(SHADER),
        "--spec-constants",
        "--target",
        "oxir",
        "-o",
        &text,
    ]);
    assert_exit(&out, 0, "");
    let module = std::fs::read_to_string(&text).unwrap();
    assert!(module.contains("= spec_constant c"), "{module}");
    let run = |input: &str, extra: &[&str]| {
        let mut args = vec!["run", input, "--dispatch", "4"];
        args.extend_from_slice(extra);
        let out = oxir(&args);
        assert_exit(&out, 0, "");
        stdout(&out)
    };
    let from_text = run(&text, &[]);
    assert_eq!(from_text, run(&path(SHADER), &[]));
    assert_eq!(from_text, run(&text, &["-O"]), "-O folds no spec_constant");
    assert_ne!(from_text, run(&path(SHADER), &["--override", "bias=4"]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether a Vulkan device is there; without one, `false` (skip) unless it is required.
fn vulkan_available() -> bool {
    let why = match oxir_vulkan::list_devices() {
        Ok(devices) if !devices.is_empty() => return true,
        Ok(_) => "no Vulkan device".to_string(),
        Err(e) => e.to_string(),
    };
    if std::env::var("OXIR_REQUIRE_VULKAN").as_deref() == Ok("1") {
        panic!("Vulkan is required (OXIR_REQUIRE_VULKAN=1): {why}");
    }
    eprintln!("SKIPPED: {why}");
    false
}

/// `oxir run SPV --engine vulkan` with `extra` arguments.
fn run_vulkan(spv: &str, extra: &[&str]) -> String {
    let mut args = vec!["run", spv, "--dispatch", "4", "--engine", "vulkan"];
    args.extend_from_slice(extra);
    let out = oxir(&args);
    assert_exit(&out, 0, "");
    stdout(&out)
}

fn interp(extra: &[&str]) -> String {
    let mut args = vec!["run", SHADER, "--dispatch", "4"];
    let shader = path(SHADER);
    args[1] = &shader;
    args.extend_from_slice(extra);
    let out = oxir(&args);
    assert_exit(&out, 0, "");
    stdout(&out)
}

#[test]
fn a_pipeline_that_sets_the_spec_ids_gets_what_the_overrides_give() {
    if !vulkan_available() {
        return;
    }
    let dir = temp("vulkan");
    let spv = compile_spv(&dir, &path(SHADER), &[]);
    let defaults = run_vulkan(&spv, &[]);
    assert_eq!(defaults, interp(&[]), "at the defaults");
    let cases: [(&[&str], &[&str]); 3] = [
        (&["--override", "7=5"], &["--override", "bias=5"]),
        (
            &["--override", "0=-0.25", "--override", "1=false"],
            &["--override", "scale=-0.25", "--override", "negate=false"],
        ),
        (
            &[
                "--override",
                "2=3",
                "--override",
                "3=77",
                "--override",
                "7=0",
            ],
            &[
                "--override",
                "shift=3",
                "--override",
                "offset=77",
                "--override",
                "bias=0",
            ],
        ),
    ];
    for (spec, named) in cases {
        let specialised = run_vulkan(&spv, spec);
        assert_eq!(specialised, interp(named), "{spec:?}");
        assert_ne!(specialised, defaults, "{spec:?} changes the result");
    }
    // Ids the module does not declare, values of the wrong type, an id set twice.
    for (bad, needle) in [
        (
            &["--override", "4=1"][..],
            "no specialization constant with SpecId 4",
        ),
        (&["--override", "7=-1"][..], "SpecId 7 (u32)"),
        (&["--override", "1=yes"][..], "not a bool"),
        (&["--override", "bias=1"][..], "set by SpecId"),
        (&["--override", "7=1", "--override", "7=2"][..], "set twice"),
    ] {
        let mut args = vec!["run", &spv, "--dispatch", "4", "--engine", "vulkan"];
        args.extend_from_slice(bad);
        assert_exit(&oxir(&args), 1, needle);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn overrides_a_pipeline_could_not_set_are_refused_naming_them() {
    let dir = temp("refused");
    let write = |name: &str, text: &str| {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        file.to_str().unwrap().to_string()
    };
    let compile = |file: &str, extra: &[&str]| {
        let mut args = vec!["compile", file, "--spec-constants", "--target", "spirv-asm"];
        args.extend_from_slice(extra);
        oxir(&args)
    };
    let derived = path("tests/shaders/pipeline_overrides.wgsl");
    assert_exit(
        &compile(&derived, &[]),
        1,
        "override `lanes` is initialised from other overrides",
    );
    // `@workgroup_size(wg)` is kept; the workgroup array sized by `lanes` is not.
    assert_exit(
        &compile(&derived, &["--override", "lanes=16"]),
        1,
        "array sized by a pipeline-overridable constant kept",
    );
    let computed = write(
        "computed.wgsl",
        "override w: u32 = 4u;\n\
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(w * 2u) fn main() { out[0] = 1u; }\n",
    );
    assert_exit(
        &compile(&computed, &[]),
        1,
        "the workgroup size of entry point `main` is computed from overrides",
    );
    let body = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
                @compute @workgroup_size(1) fn main() { out[0] = k; }\n";
    let missing = write("missing.wgsl", &format!("override k: u32;\n{body}"));
    assert_exit(&compile(&missing, &[]), 1, "override `k` has no default");
    let given = compile(&missing, &["--override", "k=4"]);
    assert_exit(&given, 0, "");
    let given = stdout(&given);
    let line = given
        .lines()
        .find(|l| l.contains("OpSpecConstant "))
        .unwrap();
    assert!(line.trim_end().ends_with(" 4"), "{line}");
    let sized = write(
        "sized.wgsl",
        "override n: u32 = 4u;\nvar<workgroup> tile: array<u32, n>;\n\
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(1) fn main() { tile[0] = 1u; out[0] = tile[0]; }\n",
    );
    assert_exit(
        &compile(&sized, &[]),
        1,
        "array sized by a pipeline-overridable constant kept",
    );
    assert_exit(
        &compile(&missing, &["--override", "q=1"]),
        1,
        "no pipeline-overridable constant `q`",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_other_targets_and_oxir_input_are_usage_errors_and_llvm_refuses_the_op() {
    for target in ["ptx", "llvm-nvptx", "csir"] {
        assert_exit(
            &oxir(&[
                "compile",
                &path(SHADER),
                "--spec-constants",
                "--target",
                target,
            ]),
            2,
            "--spec-constants applies to --target spirv, spirv-asm and oxir",
        );
    }
    let fixture = path("tests/filetests/ir/specialization.oxir");
    assert_exit(
        &oxir(&[
            "compile",
            &fixture,
            "--spec-constants",
            "--target",
            "spirv-asm",
        ]),
        2,
        "--spec-constants apply to shader input",
    );
    // A module that holds spec_constant: SPIR-V writes it, LLVM refuses it.
    let asm = oxir(&["compile", &fixture, "--target", "spirv-asm"]);
    assert_exit(&asm, 0, "");
    assert!(stdout(&asm).contains("SpecId 3"));
    assert_exit(
        &oxir(&["compile", &fixture, "--target", "llvm-nvptx"]),
        1,
        "specialization constants",
    );
}

const SPEC_WORKGROUP: &str = "tests/shaders/spec_workgroup.wgsl";

/// `@workgroup_size(wg)` under `--spec-constants`: the x dimension is an `OpSpecConstant`
/// (SpecId 0, default 8) in the `BuiltIn WorkgroupSize` composite, the body's reads of
/// `wg` are the same constant, the SPIR-V validates, and on a Vulkan device the defaults
/// and each specialised size give what the interpreter gives with `--override wg=N`.
/// Sizes of 0 and over the device's limit are refused before the driver sees them.
#[test]
fn a_workgroup_size_set_by_an_override_is_specialisable() {
    let shader = path(SPEC_WORKGROUP);
    let asm = oxir(&[
        "compile",
        &shader,
        "--spec-constants",
        "--target",
        "spirv-asm",
    ]);
    assert_exit(&asm, 0, "");
    let asm = stdout(&asm);
    let (op, default) = spec_constant(&asm, 0);
    assert_eq!(
        (op.as_str(), default.as_deref()),
        ("OpSpecConstant", Some("8")),
        "{asm}"
    );
    assert!(asm.contains("BuiltIn WorkgroupSize"), "{asm}");
    assert_eq!(
        asm.matches("SpecId").count(),
        1,
        "one constant for the size and the body: {asm}"
    );
    let text = oxir(&["compile", &shader, "--spec-constants", "--target", "oxir"]);
    assert!(
        stdout(&text).contains("workgroup_size(8 spec_id 0, 1, 1)"),
        "{}",
        stdout(&text)
    );
    let dir = temp("workgroup");
    for env in ["vulkan1.1", "vulkan1.3"] {
        let spv = compile_spv(&dir, &shader, &["--target-env", env]);
        if have_spirv_val("a_workgroup_size_set_by_an_override_is_specialisable") {
            spirv_val(&words(&spv), env).unwrap_or_else(|e| panic!("{env}: {e}"));
        }
    }
    if !vulkan_available() {
        return;
    }
    let spv = compile_spv(&dir, &shader, &[]);
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &spv, "--dispatch", "4", "--engine", "vulkan"];
        args.extend_from_slice(extra);
        oxir(&args)
    };
    let interp = |extra: &[&str]| {
        let mut args = vec!["run", &shader, "--dispatch", "4"];
        args.extend_from_slice(extra);
        let out = oxir(&args);
        assert_exit(&out, 0, "");
        stdout(&out)
    };
    let defaults = stdout(&run(&[]));
    assert_eq!(defaults, interp(&[]), "at the default size");
    for n in ["1", "16", "64"] {
        let out = run(&["--override", &format!("0={n}")]);
        assert_exit(&out, 0, "");
        assert_eq!(
            stdout(&out),
            interp(&["--override", &format!("wg={n}")]),
            "wg = {n}"
        );
        assert_ne!(stdout(&out), defaults, "wg = {n} changes the result");
    }
    assert_exit(&run(&["--override", "0=0"]), 1, "to 0");
    assert_exit(
        &run(&["--override", "0=100000"]),
        1,
        "maxComputeWorkGroupSize",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Specialisable sizes in IR text input: LLVM has no specialization constants, and SPIR-V's
/// `WorkgroupSize` built-in would size every kernel of a module that has two.
#[test]
fn specialisable_sizes_refused_where_they_cannot_be_kept() {
    let dir = temp("ir-sizes");
    let kernel = |name: &str, size: &str| {
        format!("kernel @{name}() workgroup_size({size}) {{\nblock0:\n    return\n}}\n")
    };
    let one = dir.join("one.oxir");
    std::fs::write(&one, kernel("main", "8 spec_id 0, 1, 1")).unwrap();
    let one = one.to_str().unwrap();
    assert_exit(
        &oxir(&["compile", one, "--target", "llvm-nvptx"]),
        1,
        "a workgroup size a pipeline specialises",
    );
    assert_exit(&oxir(&["compile", one, "--target", "spirv-asm"]), 0, "");
    let two = dir.join("two.oxir");
    let text = kernel("a", "8 spec_id 0, 1, 1") + "\n" + &kernel("b", "4, 1, 1");
    std::fs::write(&two, text).unwrap();
    assert_exit(
        &oxir(&["compile", two.to_str().unwrap(), "--target", "spirv-asm"]),
        1,
        "has a specialisable workgroup size and the module has 2 kernels",
    );
    let _ = std::fs::remove_dir_all(&dir);
}
