//! `oxir compile --target spirv|spirv-asm`: every project shader, every entry point, every
//! Vulkan environment passes `spirv-val`; the bytes are deterministic; refusals exit 1.

mod common;

use common::{assert_exit, oxir, path, repo, stderr, stdout};
use std::process::Command;

const ENVS: [&str; 4] = ["vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"];

fn have_spirv_val() -> bool {
    let ok = Command::new("spirv-val").arg("--version").output().is_ok();
    if !ok {
        eprintln!("SKIPPED: spirv-val is not installed; SPIR-V was written but not validated");
    }
    ok
}

/// Entry point names of a shader, from `oxir reflect`.
fn entry_points(file: &str) -> Vec<String> {
    let out = oxir(&["reflect", file]);
    assert!(out.status.success(), "{file}: {}", stderr(&out));
    let text = stdout(&out);
    let mut names = Vec::new();
    // `"name": "X", "stage"` appears once per entry point.
    for part in text
        .split("\"stage\"")
        .collect::<Vec<_>>()
        .iter()
        .rev()
        .skip(1)
    {
        let key = "\"name\": \"";
        let at = part.rfind(key).expect("a name before each stage");
        let rest = &part[at + key.len()..];
        names.push(rest[..rest.find('"').unwrap()].to_string());
    }
    names.reverse();
    names
}

#[test]
fn project_shaders_compile_to_valid_spirv_for_every_entry_and_env() {
    let validate = have_spirv_val();
    let dir = std::env::temp_dir().join(format!("oxir-cli-spirv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(repo().join("tests/shaders"))
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_string())
        .collect();
    files.sort();
    files.push(path("examples/clamp_scale.wgsl"));
    let mut failures = Vec::new();
    let mut checked = 0;
    for file in &files {
        let entries = entry_points(file);
        assert!(!entries.is_empty(), "{file}");
        for entry in &entries {
            for env in ENVS {
                let (a, b) = (dir.join("a.spv"), dir.join("b.spv"));
                let mut refused = false;
                for out in [&a, &b] {
                    let o = oxir(&[
                        "compile",
                        file,
                        "--entry",
                        entry,
                        "--target",
                        "spirv",
                        "-O",
                        "--target-env",
                        env,
                        "-o",
                        out.to_str().unwrap(),
                    ]);
                    // Subgroup operations need SPIR-V 1.3: vulkan1.0 refuses them.
                    if env == "vulkan1.0" && file.ends_with("subgroups.wgsl") {
                        assert_eq!(o.status.code(), Some(1), "{file}:{entry} {env}");
                        assert!(stderr(&o).contains("(needs SPIR-V 1.3)"), "{}", stderr(&o));
                        refused = true;
                        continue;
                    }
                    assert!(o.status.success(), "{file}:{entry} {env}: {}", stderr(&o));
                }
                if refused {
                    continue;
                }
                let bytes = std::fs::read(&a).unwrap();
                assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes());
                if bytes != std::fs::read(&b).unwrap() {
                    failures.push(format!("{file}:{entry} ({env}): bytes differ between runs"));
                }
                if validate {
                    let o = Command::new("spirv-val")
                        .args(["--target-env", env])
                        .arg(&a)
                        .output()
                        .unwrap();
                    if !o.status.success() {
                        failures.push(format!(
                            "{file}:{entry} ({env}): spirv-val: {}{}",
                            String::from_utf8_lossy(&o.stdout),
                            String::from_utf8_lossy(&o.stderr)
                        ));
                    }
                }
                checked += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked >= 4 * 10, "{checked}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn spirv_asm_and_refusals() {
    let interface_asm = |flags: &[&str]| {
        let mut args = vec![
            "compile".to_string(),
            path("tests/shaders/interface.wgsl"),
            "--target".into(),
            "spirv-asm".into(),
            "-O0".into(),
        ];
        args.extend(flags.iter().map(|f| f.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = oxir(&args);
        assert!(o.status.success(), "{flags:?}: {}", stderr(&o));
        stdout(&o)
    };
    let text = interface_asm(&[]);
    for want in [
        "OpEntryPoint GLCompute",
        "OpEntryPoint Vertex",
        "OpEntryPoint Fragment",
        "OpExecutionMode %",
        "OriginUpperLeft",
    ] {
        assert!(text.contains(want), "{want}:\n{text}");
    }
    // Debug names only with -g / --debug-info; the entry points keep their names.
    assert!(!text.contains("OpName"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("OpEntryPoint Fragment %") && l.contains("\"fs_main\"")),
        "{text}"
    );
    for flag in ["-g", "--debug-info"] {
        let with = interface_asm(&[flag]);
        for function in ["vs_main", "fs_main", "cs_ids"] {
            let quoted = format!("\"{function}\"");
            assert!(
                with.lines()
                    .any(|l| l.contains("OpName %") && l.contains(&quoted)),
                "{flag}: {function}:\n{with}"
            );
        }
        let without_names = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| !l.contains("OpName"))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(without_names(&with), without_names(&text), "{flag}");
    }
    let o = oxir(&["compile", &path("tests/shaders/interface.wgsl"), "-g"]);
    assert_exit(&o, 2, "-g applies to --target spirv and spirv-asm");
    // `print` has no SPIR-V form: refused before anything is written, exit 1.
    let dir = std::env::temp_dir().join(format!("oxir-cli-refuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("print.oxir");
    std::fs::write(
        &input,
        "const c0: u32 = 7\nkernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    print \"x = {}\", c0\n    return\n}\n",
    )
    .unwrap();
    let out = dir.join("print.spv");
    let o = oxir(&[
        "compile",
        input.to_str().unwrap(),
        "--target",
        "spirv",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_exit(&o, 1, "unsupported:");
    assert!(stderr(&o).contains("print"), "{}", stderr(&o));
    // The refusal names the file and the instruction that uses `print`.
    let expected = format!("{}: unsupported: print", input.display());
    assert!(stderr(&o).contains(&expected), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("(at @main, block0, inst0)"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists(), "nothing is written on refusal");
    // A pass refusal names the pass, the function and the block.
    let o = oxir(&[
        "compile",
        &path("tests/filetests/passes/restructure-cfg/refuses_irreducible.oxir"),
        "--target",
        "spirv-asm",
    ]);
    assert_exit(&o, 1, "pass restructure-cfg: refused its input");
    assert!(stderr(&o).contains("(at @main, block1)"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
    let o = oxir(&[
        "compile",
        &path("examples/clamp_scale.wgsl"),
        "--target",
        "spirv-asm",
        "--target-env",
        "vulkan9",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// `--fast-math` lets `-O` drop float arithmetic the precise rules must keep, and only
/// with `-O`.
#[test]
fn fast_math_rewrites_floats_only_when_asked_and_only_with_o() {
    let dir = std::env::temp_dir().join(format!("oxir-cli-fast-math-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("fm.wgsl");
    // `x * 0.0` is NaN for x = inf or NaN and -0.0 for negative x: precise keeps the mul.
    std::fs::write(
        &input,
        "@group(0) @binding(0) var<storage, read_write> d: array<f32>;\n\
         @compute @workgroup_size(1) fn main() { d[0] = d[1] * 0.0; }\n",
    )
    .unwrap();
    let file = input.to_str().unwrap();
    let precise = oxir(&["compile", file, "-O"]);
    assert_exit(&precise, 0, "");
    assert!(stdout(&precise).contains("= mul "), "{}", stdout(&precise));
    let fast = oxir(&["compile", file, "-O", "--fast-math"]);
    assert_exit(&fast, 0, "");
    assert!(!stdout(&fast).contains("= mul "), "{}", stdout(&fast));
    let asm = oxir(&[
        "compile",
        file,
        "-O",
        "--fast-math",
        "--target",
        "spirv-asm",
    ]);
    assert_exit(&asm, 0, "");
    assert!(!stdout(&asm).contains("OpFMul"), "{}", stdout(&asm));
    let o0 = oxir(&["compile", file, "--fast-math"]);
    assert_exit(&o0, 2, "--fast-math applies with -O");
    let run = oxir(&["run", file, "--dispatch", "1", "--fast-math"]);
    assert_exit(&run, 2, "--fast-math applies with -O");
}
