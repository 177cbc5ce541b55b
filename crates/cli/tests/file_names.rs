//! Every command names the file its error concerns: each subcommand on damaged input
//! (cut short, not UTF-8, not SPIR-V) exits 1 with the file's name on stderr; standard
//! input is named `<stdin>`.

mod common;

use common::{oxir, path, stderr};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn scratch(name: &str, bytes: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("oxir-file-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file: PathBuf = dir.join(name);
    std::fs::write(&file, bytes).expect("written");
    file.to_str().expect("UTF-8 path").to_string()
}

/// The first half of a repository file.
fn cut_short(relative: &str, name: &str) -> String {
    let bytes = std::fs::read(path(relative)).expect("readable");
    scratch(name, &bytes[..bytes.len() / 2])
}

#[track_caller]
fn assert_names(args: &[&str], file: &str) {
    let out = oxir(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(file), "{args:?} does not name {file}: {err}");
}

#[test]
fn every_subcommand_names_the_damaged_file() {
    let oxir_text = cut_short("examples/clamp_scale.oxir", "cut.oxir");
    let wgsl = cut_short("tests/shaders/histogram.wgsl", "cut.wgsl");
    let glsl = cut_short("tests/shaders/reduce.comp", "cut.comp");
    let not_utf8 = scratch("latin1.wgsl", b"fn main() { let caf\xe9 = 1; }\n");
    let not_utf8_oxir = scratch("latin1.oxir", b"callable @f\xe9() {\n}\n");
    let spv = scratch("text.spv", b"this is not SPIR-V at all");
    for file in [&oxir_text, &not_utf8_oxir] {
        assert_names(&["print", file], file);
        assert_names(&["verify", file], file);
        assert_names(&["opt", file, "--pipeline", "normalize"], file);
        assert_names(&["compile", file], file);
        assert_names(&["run", file, "--dispatch", "1"], file);
    }
    for file in [&wgsl, &glsl, &not_utf8, &spv] {
        assert_names(&["compile", file], file);
        assert_names(&["compile", file, "--target", "spirv-asm"], file);
        assert_names(&["reflect", file], file);
        assert_names(&["run", file, "--dispatch", "1"], file);
    }
    assert_names(
        &["run", &spv, "--dispatch", "1", "--engine", "vulkan"],
        &spv,
    );
}

fn with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_oxir"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("oxir runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input)
        .expect("written");
    child.wait_with_output().expect("oxir ends")
}

#[test]
fn standard_input_that_is_not_utf8_is_rejected_input_named_stdin() {
    for command in ["verify", "print"] {
        let out = with_stdin(&[command, "-"], b"callable @f\xff() {\n}\n");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{command}: {err}");
        assert!(err.contains("<stdin>: error: input is not UTF-8"), "{err}");
    }
}

#[test]
fn standard_input_parse_errors_are_named_stdin() {
    let out = with_stdin(
        &["verify", "-"],
        b"callable @f() {\nblock0:\n    v0: i32 = frob\n}\n",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("<stdin>:3:"), "{err}");
}
