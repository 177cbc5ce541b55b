//! A Rust program embedding `oxir-driver` gets exactly what `oxir compile` prints: every
//! target, at both optimisation levels and two target environments, for every shader of
//! `tests/shaders` and the examples; and a rejected shader's diagnostic is the one the
//! command prints.

mod common;

use common::{oxir, stderr};
use oxir_driver::{CompileOptions, GlslStage, Input, OptLevel, Target, TargetEnv};

/// The command-line spelling and the library value of each target.
const TARGETS: [(&str, Target); 7] = [
    ("oxir", Target::Oxir),
    ("spirv", Target::Spirv),
    ("spirv-asm", Target::SpirvAsm),
    ("llvm-nvptx", Target::LlvmNvptx),
    ("csir", Target::Csir),
    ("tgsi", Target::Tgsi),
    ("csi", Target::Csi),
];

fn shaders() -> Vec<String> {
    let mut files: Vec<String> = ["tests/shaders", "examples"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(common::repo().join(dir)).unwrap())
        .map(|entry| entry.unwrap().path().to_str().unwrap().to_string())
        .filter(|p| {
            [".wgsl", ".vert", ".frag", ".comp", ".oxir"]
                .iter()
                .any(|e| p.ends_with(e))
        })
        .collect();
    files.sort();
    files
}

/// What the library makes of `file` (read as the command reads it).
fn library(file: &str, target: Target, options: &CompileOptions) -> Result<Vec<u8>, String> {
    let text = std::fs::read_to_string(file).unwrap();
    let extension = file.rsplit('.').next().unwrap();
    let input = match (extension, GlslStage::from_extension(extension)) {
        ("wgsl", _) => Input::wgsl(file, &text),
        ("oxir", _) => Input::oxir_text(file, &text),
        (_, Some(stage)) => Input::glsl(file, &text, stage),
        (other, None) => panic!("unexpected input .{other}"),
    };
    oxir_driver::compile(input, target, options)
        .map(|artifact| artifact.to_bytes())
        .map_err(|e| e.to_string())
}

/// What `oxir compile` prints (or writes to `-o`) for the same input and options.
fn command(
    file: &str,
    target: &str,
    extra: &[&str],
    out: &std::path::Path,
) -> Result<Vec<u8>, String> {
    let out_arg = out.to_str().unwrap();
    let mut args = vec!["compile", file, "--target", target];
    args.extend_from_slice(extra);
    let binary = matches!(target, "spirv" | "csi");
    if binary {
        args.extend_from_slice(&["-o", out_arg]);
    }
    let output = oxir(&args);
    match output.status.code() {
        Some(0) if binary => Ok(std::fs::read(out).unwrap()),
        Some(0) => Ok(output.stdout),
        _ => Err(stderr(&output)),
    }
}

#[test]
fn the_library_gives_what_the_command_prints() {
    let dir = std::env::temp_dir().join(format!("oxir-driver-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("out.spv");
    let mut compared = 0;
    for file in shaders() {
        for (spelling, target) in TARGETS {
            let variants: Vec<(Vec<&str>, CompileOptions)> = match target {
                Target::Oxir => vec![
                    (vec![], CompileOptions::default()),
                    (
                        vec!["--structured"],
                        CompileOptions {
                            structured: true,
                            ..CompileOptions::default()
                        },
                    ),
                ],
                Target::Spirv | Target::SpirvAsm => vec![
                    (vec!["-O0"], CompileOptions::default()),
                    (
                        vec!["-O", "--target-env", "vulkan1.3"],
                        CompileOptions {
                            opt_level: OptLevel::O1,
                            target_env: TargetEnv::Vulkan1_3,
                            ..CompileOptions::default()
                        },
                    ),
                    (
                        vec!["-g"],
                        CompileOptions {
                            debug_info: true,
                            ..CompileOptions::default()
                        },
                    ),
                ],
                // PTX needs llc; its tests are the driver's and oxir-llvm's.
                Target::LlvmNvptx | Target::Ptx => vec![(vec![], CompileOptions::default())],
                Target::Csir | Target::Tgsi | Target::Csi => {
                    vec![(vec![], CompileOptions::default())]
                }
            };
            for (extra, options) in variants {
                let _ = std::fs::remove_file(&out);
                let from_library = library(&file, target, &options);
                let from_command = command(&file, spelling, &extra, &out);
                match (&from_library, &from_command) {
                    (Ok(a), Ok(b)) => assert!(a == b, "{file} --target {spelling} {extra:?}"),
                    // A refusal: the command names the file and prints the library's message.
                    (Err(message), Err(printed)) => {
                        assert!(printed.contains(message.as_str()), "{file}: {message} / {printed}")
                    }
                    _ => panic!("{file} --target {spelling} {extra:?}: library {from_library:?}, command {from_command:?}"),
                }
                compared += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(compared >= 6 * 12, "{compared}");
}

#[test]
fn a_rejected_shader_prints_the_library_diagnostic() {
    let dir = std::env::temp_dir().join(format!("oxir-driver-api-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Quad operations are refused by the front-end (texture gathers, the earlier example,
    // lower since issue 15).
    let file = dir.join("quad.wgsl");
    let text = "@group(0) @binding(0) var<storage, read_write> out: u32;\n\
        @compute @workgroup_size(4) fn main(@builtin(subgroup_invocation_id) lane: u32) {\n    out = quadBroadcast(lane, 1u);\n}\n";
    std::fs::write(&file, text).unwrap();
    let name = file.to_str().unwrap();
    let error = oxir_driver::compile(
        Input::wgsl(name, text),
        Target::Spirv,
        &CompileOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(error, oxir_driver::Error::Lower { .. }),
        "{error:?}"
    );
    let output = oxir(&["compile", name, "--target", "spirv-asm"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr(&output), error.rendered().unwrap());
    let _ = std::fs::remove_dir_all(&dir);
}
