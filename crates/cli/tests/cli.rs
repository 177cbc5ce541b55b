//! The `oxir` command's contract: exit codes, diagnostics, and robustness against damaged
//! input (every fixture truncated at every byte, or with any one line deleted).

mod common;

use common::{assert_exit, oxir, path, repo, stderr};
use std::path::PathBuf;

fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("tests/filetests/ir"))
        .expect("fixtures exist")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "oxir"))
        .collect();
    files.push(repo().join("examples/clamp_scale.oxir"));
    files.sort();
    files
}

#[test]
fn verify_accepts_the_example_and_prints_it() {
    let example = repo().join("examples/clamp_scale.oxir");
    let out = oxir(&[
        "verify",
        example.to_str().unwrap(),
        "--require",
        "all",
        "--print",
        "structured",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&example).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), text);
}

#[test]
fn print_round_trips_both_views() {
    let example = repo().join("examples/clamp_scale.oxir");
    let flat = oxir(&["print", example.to_str().unwrap(), "--flat"]);
    assert_eq!(flat.status.code(), Some(0));
    let structured = oxir(&["print", example.to_str().unwrap(), "--structured"]);
    assert_eq!(structured.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&structured.stdout),
        std::fs::read_to_string(&example).unwrap()
    );
    assert_ne!(flat.stdout, structured.stdout);
}

#[test]
fn parse_errors_exit_1_with_file_line_and_column() {
    let dir = std::env::temp_dir().join(format!("oxir-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.oxir");
    std::fs::write(
        &bad,
        "callable @f() {\nblock0:\n    v0: i32 = frobnicate\n}\n",
    )
    .unwrap();
    let out = oxir(&["verify", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("bad.oxir:3:15: error: unknown opcode `frobnicate`"),
        "{err}"
    );
}

#[test]
fn verifier_errors_exit_1_naming_function_block_and_instruction() {
    let dir = std::env::temp_dir().join(format!("oxir-cli-v-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("types.oxir");
    std::fs::write(&bad, "const c0: f32 = 1.0\ncallable @f(i32) -> i32 {\nblock0(v0: i32):\n    v1: i32 = add v0, c0\n    return v1\n}\n")
        .unwrap();
    let out = oxir(&["verify", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("function @f, block0"), "{err}");
    assert!(err.contains("v1: i32 = add v0, c0"), "{err}");
}

#[test]
fn usage_and_io_errors_exit_2() {
    assert_eq!(oxir(&[]).status.code(), Some(2));
    assert_eq!(oxir(&["verify"]).status.code(), Some(2));
    assert_eq!(oxir(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        oxir(&["verify", "/nonexistent/file.oxir"]).status.code(),
        Some(2)
    );
    let example = repo().join("examples/clamp_scale.oxir");
    assert_eq!(
        oxir(&["verify", example.to_str().unwrap(), "--require", "bogus"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(oxir(&["--help"]).status.code(), Some(0));
}

/// Damaged input never panics (exit 101): `oxir verify` exits 0 (the damaged text is
/// still a valid module, e.g. a deleted blank line or an unused constant) or 1 with a
/// diagnostic. Every line deletion and a spread of truncation points go through the
/// binary; every truncation point goes through the library in `truncation_never_panics`.
#[test]
fn damaged_fixtures_exit_0_or_1_never_101() {
    let dir = std::env::temp_dir().join(format!("oxir-cli-damage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut rejected, mut accepted) = (0usize, 0usize);
    for fixture in fixtures() {
        let text = std::fs::read_to_string(&fixture).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut variants: Vec<String> = (0..lines.len())
            .map(|skip| {
                lines
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != skip)
                    .map(|(_, l)| format!("{l}\n"))
                    .collect()
            })
            .collect();
        let step = (text.len() / 40).max(1);
        variants.extend(
            (0..text.len())
                .step_by(step)
                .filter(|&k| text.is_char_boundary(k))
                .map(|k| text[..k].to_string()),
        );
        for (i, variant) in variants.iter().enumerate() {
            let path = dir.join(format!("damaged_{i}.oxir"));
            std::fs::write(&path, variant).unwrap();
            let out = oxir(&["verify", path.to_str().unwrap()]);
            match out.status.code() {
                Some(0) => accepted += 1,
                Some(1) => {
                    rejected += 1;
                    assert!(
                        stderr(&out).contains("error"),
                        "exit 1 without a diagnostic for {}",
                        fixture.display()
                    );
                }
                other => panic!(
                    "{} variant {i}: exit {other:?}\n{}\n--- input\n{variant}",
                    fixture.display(),
                    stderr(&out)
                ),
            }
        }
    }
    eprintln!("damaged fixtures: {rejected} rejected with exit 1, {accepted} still valid (exit 0)");
    assert!(
        rejected > accepted * 2,
        "most damage must be detected: {rejected} rejected, {accepted} accepted"
    );
}

#[test]
fn opt_refusal_names_the_pass_the_function_and_the_block() {
    let out = oxir(&[
        "opt",
        &path("tests/filetests/passes/restructure-cfg/refuses_irreducible.oxir"),
        "--passes",
        "restructure-cfg",
    ]);
    assert_exit(
        &out,
        1,
        "error: pass restructure-cfg: refused its input (irreducible_region_count = 1) (at @main, block1)",
    );
}

#[test]
fn opt_runs_passes_and_reports_stats() {
    let dir = std::env::temp_dir().join(format!("oxir-cli-opt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("diamond.oxir");
    std::fs::write(
        &input,
        "const c0: i32 = 1\nconst c1: i32 = 2\ncallable @f(bool) -> i32 {\nblock0(v0: bool):\n    v1: ptr<function, i32> = alloca\n    cond_br v0, block1, block2\nblock1:\n    store v1, c0\n    br block3\nblock2:\n    store v1, c1\n    br block3\nblock3:\n    v2: i32 = load v1\n    return v2\n}\n",
    )
    .unwrap();
    let output = dir.join("out.oxir");
    let out = oxir(&[
        "opt",
        input.to_str().unwrap(),
        "--passes",
        "mem2reg,dce",
        "--stats",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(
        !text.contains("alloca") && !text.contains("load"),
        "promoted:\n{text}"
    );
    assert!(
        text.contains("block3(v"),
        "the join block gets a parameter:\n{text}"
    );
    let err = stderr(&out);
    assert!(
        err.contains("mem2reg") && err.contains("promoted_alloca_count: 1"),
        "{err}"
    );

    // Unknown passes and pipelines are usage errors.
    assert_eq!(
        oxir(&["opt", input.to_str().unwrap(), "--passes", "bogus"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        oxir(&["opt", input.to_str().unwrap(), "--pipeline", "bogus"])
            .status
            .code(),
        Some(2)
    );
    // An invalid input is rejected before any pass runs.
    let bad = dir.join("bad.oxir");
    std::fs::write(&bad, "callable @f() {\nblock0:\n    br block1\n}\n").unwrap();
    assert_eq!(
        oxir(&["opt", bad.to_str().unwrap(), "--passes", "dce"])
            .status
            .code(),
        Some(1)
    );
    let listed = oxir(&["opt", "--list"]);
    assert_eq!(listed.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&listed.stdout).contains("mem2reg"));
}

/// The factory pipelines run by name: `basic-optimization` forwards a stored value to its
/// load on structured memory-form input, `post-inline-cleanup` likewise after inlining,
/// and `--list` names all six pipelines.
#[test]
fn opt_runs_the_factory_pipelines_by_name() {
    let dir = std::env::temp_dir().join(format!("oxir-cli-factory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("memory.oxir");
    std::fs::write(
        &input,
        "callable @f(i32) -> i32 {\nblock0(v0: i32):\n    v1: ptr<function, i32> = alloca\n    store v1, v0\n    v2: i32 = load v1\n    return v2\n}\n",
    )
    .unwrap();
    for pipeline in ["basic-optimization", "post-inline-cleanup"] {
        let out = oxir(&[
            "opt",
            input.to_str().unwrap(),
            "--pipeline",
            pipeline,
            "--stats",
        ]);
        assert_eq!(out.status.code(), Some(0), "{pipeline}: {}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("return v0"), "{pipeline}:\n{text}");
        assert!(!text.contains("load"), "{pipeline}:\n{text}");
        assert!(stderr(&out).contains("local-store-forward"), "{pipeline}");
    }
    let listed = String::from_utf8_lossy(&oxir(&["opt", "--list"]).stdout).to_string();
    for name in oxir_passes::pipelines::PIPELINE_NAMES {
        assert!(listed.contains(name), "{name} not listed:\n{listed}");
    }
}
