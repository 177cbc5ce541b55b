//! Helpers shared by the CLI tests: run the `oxir` binary, find repository files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn oxir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oxir"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("oxir runs")
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn path(relative: &str) -> String {
    repo()
        .join(relative)
        .to_str()
        .expect("UTF-8 path")
        .to_string()
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts that `output` exited with `code` and that its stderr names `needle`.
#[track_caller]
pub fn assert_exit(output: &Output, code: i32, needle: &str) {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(code), "{err}");
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
}
