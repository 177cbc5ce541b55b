//! Text fixtures under `tests/filetests/ir/`.
//!
//! Each fixture starts with `; test:` lines saying what to check:
//! - `roundtrip` — printing the parsed module (flat view) gives back the file, minus its
//!   leading comment lines; `roundtrip-structured` — the same in the structured view;
//! - `verify [OPTION ...]` — the verifier accepts the module with those options
//!   (`all` turns every option on);
//! - `errors [OPTION ...]` — with those options the verifier reports exactly the errors
//!   the fixture's `; error: KIND TEXT` annotations describe (see the `annotations`
//!   module): same kind, same line, message containing the text; none more, none less;
//! - `parse-error` — the parser refuses the file with the error its one `; error: parse
//!   TEXT` annotation describes.
//!
//! Annotations are not part of the module: `roundtrip` compares the file without them.
//! Every fixture that parses, whatever it declares, must also round-trip in both views
//! (`print(parse(print(m))) == print(m)`), and the fixtures together must use every opcode,
//! every kind of type and every kind of metadata.

mod annotations;

use annotations::{Actual, Expected};
use oxir_ir::ops::Opcode;
use oxir_ir::parser::{parse_module, parse_module_with_lines, ParseError, SourceLines};
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions, VerifierReport};
use oxir_ir::Module;
use std::path::{Path, PathBuf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests/ir")
}

fn fixtures() -> Vec<(PathBuf, String)> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![fixture_dir()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture directory exists") {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "oxir") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(
        files.len() >= 10,
        "expected the IR fixtures, found {}",
        files.len()
    );
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable fixture");
            (p, text)
        })
        .collect()
}

fn directives(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .take_while(|l| l.starts_with(';'))
        .filter_map(|l| l.strip_prefix("; test:"))
        .map(|d| d.split_whitespace().map(str::to_string).collect())
        .collect()
}

fn body_without_header(text: &str) -> String {
    let mut lines = text.lines().skip_while(|l| l.starts_with(';')).peekable();
    let mut out = String::new();
    for line in lines.by_ref() {
        out.push_str(annotations::strip_annotations(line));
        out.push('\n');
    }
    out
}

fn options(names: &[String]) -> VerifierOptions {
    let mut options = VerifierOptions::default();
    for name in names {
        if name == "all" {
            options = VerifierOptions::all();
        } else {
            options
                .enable(name)
                .unwrap_or_else(|e| panic!("bad option in fixture: {e}"));
        }
    }
    options
}

/// The verifier's errors as the matcher sees them: kind name, line, message.
fn reported(report: &VerifierReport, lines: &SourceLines) -> Vec<Actual> {
    report
        .errors
        .iter()
        .map(|e| Actual {
            line: lines.line_of(&e.location),
            kind: e.kind.name().to_string(),
            message: e.message.clone(),
        })
        .collect()
}

/// Checks a `parse-error` fixture; `None` when the parser refused it as annotated.
fn check_parse_error(
    name: &str,
    parsed: &Result<Module, ParseError>,
    expected: &[Expected],
) -> Option<String> {
    let actual = match parsed {
        Ok(_) => Vec::new(),
        Err(e) => vec![Actual {
            line: Some(e.line),
            kind: "parse".to_string(),
            message: e.message.clone(),
        }],
    };
    annotations::check(expected, &actual)
        .err()
        .map(|mismatch| format!("{name}: parse-error differs:\n{mismatch}"))
}

#[test]
fn fixtures_hold_their_directives() {
    let mut failures = Vec::new();
    for (path, text) in fixtures() {
        let name = path
            .strip_prefix(fixture_dir())
            .unwrap_or(&path)
            .display()
            .to_string();
        let directives = directives(&text);
        assert!(!directives.is_empty(), "{name} has no `; test:` directive");
        let expected = match annotations::parse_annotations(&text) {
            Ok(expected) => expected,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let expects_errors = directives
            .iter()
            .any(|d| d[0] == "parse-error" || d[0] == "errors");
        if expects_errors && expected.is_empty() {
            // A fixture that expects errors but annotates none would pass on any input.
            failures.push(format!(
                "{name}: expects errors but has no `; error:` annotation"
            ));
        }
        if directives.iter().any(|d| d[0] == "parse-error") {
            let parsed = parse_module(&text);
            failures.extend(check_parse_error(&name, &parsed, &expected));
            if directives.len() > 1 {
                failures.push(format!("{name}: `parse-error` stands alone"));
            }
            continue;
        }
        let (module, lines) = match parse_module_with_lines(&text) {
            Ok(parsed) => parsed,
            Err(e) => {
                failures.push(format!("{name}:{e}"));
                continue;
            }
        };
        let declares_errors = directives.iter().any(|d| d[0] == "errors");
        if !expected.is_empty() && !declares_errors {
            failures.push(format!("{name}: annotations without an `errors` directive"));
        }
        for directive in directives {
            let (kind, args) = directive.split_first().expect("directive has a kind");
            match kind.as_str() {
                "roundtrip" | "roundtrip-structured" => {
                    let view = if kind == "roundtrip" {
                        View::Flat
                    } else {
                        View::Structured
                    };
                    let printed = print_module(&module, view);
                    let expected = body_without_header(&text);
                    if printed != expected {
                        failures.push(format!(
                            "{name}: {kind} differs:\n--- printed\n{printed}\n--- file\n{expected}"
                        ));
                    }
                }
                "verify" => {
                    let report = verify_module(&module, &options(args));
                    if !report.succeeded() {
                        failures.push(format!("{name}: verify {args:?} failed:\n{report}"));
                    }
                }
                "errors" => {
                    let report = verify_module(&module, &options(args));
                    if let Err(mismatch) = annotations::check(&expected, &reported(&report, &lines))
                    {
                        failures.push(format!(
                            "{name}: errors {args:?} differ from the annotations:\n{mismatch}"
                        ));
                    }
                }
                other => failures.push(format!("{name}: unknown directive `{other}`")),
            }
        }
        for view in [View::Flat, View::Structured] {
            let once = print_module(&module, view);
            let again = parse_module(&once).map(|m| print_module(&m, view));
            if again.as_ref() != Ok(&once) {
                failures.push(format!(
                    "{name}: {view:?} view does not round-trip: {again:?}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn fixtures_cover_every_opcode_type_and_metadata_kind() {
    let all: String = fixtures()
        .into_iter()
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join("\n");
    let words: std::collections::HashSet<&str> = all
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    let missing: Vec<&str> = Opcode::ALL
        .iter()
        .map(|op| op.mnemonic())
        .filter(|m| !words.contains(m))
        .collect();
    assert!(
        missing.is_empty(),
        "opcodes used by no fixture: {missing:?}"
    );
    let type_spellings = [
        "bool",
        "i8",
        "i16",
        "i32",
        "i64",
        "u8",
        "u16",
        "u32",
        "u64",
        "f16",
        "f32",
        "f64",
        "vec2",
        "vec3",
        "vec4",
        "mat2x2",
        "mat3x3",
        "mat4x3",
        "mat2x3",
        "array",
        "ptr",
        "struct",
        "texture_1d",
        "texture_2d",
        "texture_2d_array",
        "texture_3d",
        "texture_cube",
        "texture_ms_2d",
        "texture_storage_2d",
        "texture_storage_2d_array",
        "sampler",
        "sampler_comparison",
        "opaque",
        "void",
    ];
    let space_spellings = [
        "function",
        "private",
        "workgroup",
        "storage",
        "uniform",
        "push_constant",
        "handle",
    ];
    let metadata_spellings = [
        "name",
        "loc",
        "comment",
        "no_inline",
        "signature_constraint",
        "reg2mem_spill",
        "block_param",
        "cross_block",
    ];
    let binding_spellings = [
        "builtin",
        "location",
        "perspective",
        "linear",
        "flat",
        "center",
        "centroid",
        "sample",
    ];
    let kinds = ["kernel", "vertex", "fragment", "callable", "external"];
    let constant_forms = ["zero", "undef", "nan", "inf", "true", "false"];
    for word in type_spellings
        .iter()
        .chain(&space_spellings)
        .chain(&metadata_spellings)
        .chain(&binding_spellings)
        .chain(&kinds)
        .chain(&constant_forms)
    {
        if *word == "void" {
            continue; // void has no spelling in a valid module except as an absent result
        }
        assert!(words.contains(word), "no fixture uses `{word}`");
    }
}
