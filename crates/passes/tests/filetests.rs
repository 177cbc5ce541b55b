//! Pass fixtures under `tests/filetests/passes/`: an input module, the passes to run, and
//! the expected output.
//!
//! A fixture is one `.oxir` file:
//! ```text
//! ; passes: dce                      (comma-separated registry names, or `pipeline: NAME`)
//! ; counters: removed_inst_count = 2, removed_block_count = 0   (optional, exact values)
//! ; verify: reachable-blocks         (optional: verifier options the output must pass)
//! ; refuses                          (optional: the passes must refuse, leaving the input
//! ;                                   byte-identical; no output section)
//! <input module>
//! ; output:
//! <expected module, flat view>
//! ```
//! For every fixture the runner checks: the input verifies; the passes run with the
//! verifier after each one (`OXIR_VERIFY_EACH` semantics) and the changed-check on; the
//! output equals the expected text; the counters are exact; the output round-trips through
//! the text form; running the passes again changes nothing (idempotence). `OXIR_BLESS=1`
//! rewrites the expected outputs.

use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_passes::{pipelines, registry, PassPipeline};
use std::path::{Path, PathBuf};

fn fixture_paths() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests/passes");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("readable entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "oxir") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

struct Fixture {
    passes: Vec<String>,
    pipeline: Option<String>,
    counters: Vec<(String, u64)>,
    verify: Vec<String>,
    refuses: bool,
    header: String,
    input: String,
    expected: Option<String>,
}

fn parse_fixture(text: &str) -> Result<Fixture, String> {
    let mut fixture = Fixture {
        passes: Vec::new(),
        pipeline: None,
        counters: Vec::new(),
        verify: Vec::new(),
        refuses: false,
        header: String::new(),
        input: String::new(),
        expected: None,
    };
    let (body, expected) = match text.split_once("; output:\n") {
        Some((body, expected)) => (body, Some(expected.to_string())),
        None => (text, None),
    };
    fixture.expected = expected;
    let mut in_header = true;
    for line in body.lines() {
        if in_header && line.starts_with(';') {
            fixture.header.push_str(line);
            fixture.header.push('\n');
            let directive = line.trim_start_matches(';').trim();
            if let Some(list) = directive.strip_prefix("passes:") {
                fixture.passes = list
                    .split(',')
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect();
            } else if let Some(name) = directive.strip_prefix("pipeline:") {
                fixture.pipeline = Some(name.trim().to_string());
            } else if let Some(list) = directive.strip_prefix("counters:") {
                for item in list.split(',') {
                    let (key, value) = item
                        .split_once('=')
                        .ok_or(format!("bad counter `{item}`"))?;
                    let value = value
                        .trim()
                        .parse()
                        .map_err(|_| format!("bad counter value `{item}`"))?;
                    fixture.counters.push((key.trim().to_string(), value));
                }
            } else if let Some(list) = directive.strip_prefix("verify:") {
                fixture.verify = list.split_whitespace().map(str::to_string).collect();
            } else if directive == "refuses" {
                fixture.refuses = true;
            }
            continue;
        }
        in_header = false;
        fixture.input.push_str(line);
        fixture.input.push('\n');
    }
    if fixture.passes.is_empty() && fixture.pipeline.is_none() {
        return Err("no `; passes:` or `; pipeline:` directive".into());
    }
    Ok(fixture)
}

fn build_pipeline(fixture: &Fixture) -> Result<PassPipeline, String> {
    if let Some(name) = &fixture.pipeline {
        return pipelines::by_name(name).ok_or(format!("unknown pipeline `{name}`"));
    }
    let mut pipeline = PassPipeline::new();
    for name in &fixture.passes {
        let pass = registry::create(name).ok_or(format!("unknown pass `{name}`"))?;
        pipeline.add(name, pass);
    }
    Ok(pipeline)
}

fn options(names: &[String]) -> VerifierOptions {
    let mut options = VerifierOptions::default();
    for name in names {
        if name == "all" {
            options = VerifierOptions::all();
        } else {
            options.enable(name).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    options
}

fn check(path: &Path, text: &str, bless: bool) -> Result<(), String> {
    let fixture = parse_fixture(text)?;
    let mut module = parse_module(&fixture.input).map_err(|e| format!("input: {e}"))?;
    let input_report = verify_module(&module, &VerifierOptions::default());
    if !input_report.succeeded() {
        return Err(format!("the input does not verify:\n{input_report}"));
    }
    let before = print_module(&module, View::Flat);
    let pipeline = build_pipeline(&fixture)?;
    let stats = pipeline.run(&mut module);
    let after = print_module(&module, View::Flat);
    if fixture.refuses {
        if stats.error.is_none() {
            return Err("expected the passes to refuse the input, they accepted it".into());
        }
        if before != after {
            return Err("the passes refused but modified the module".into());
        }
    } else if let Some(error) = &stats.error {
        return Err(format!("pipeline failed: {error}"));
    } else if !stats.succeeded() {
        return Err(format!(
            "pipeline did not converge:\n{}",
            stats.log("fixture")
        ));
    }
    for (key, expected) in &fixture.counters {
        let found = stats.records.iter().find_map(|r| r.report.get(key));
        if found != Some(*expected) {
            return Err(format!(
                "counter {key}: expected {expected}, found {found:?}\n{}",
                stats.log("fixture")
            ));
        }
    }
    if fixture.refuses {
        return Ok(());
    }
    let report = verify_module(&module, &options(&fixture.verify));
    if !report.succeeded() {
        return Err(format!(
            "the output does not verify with {:?}:\n{report}\n{after}",
            fixture.verify
        ));
    }
    let reparsed = parse_module(&after).map_err(|e| format!("output does not parse: {e}"))?;
    if print_module(&reparsed, View::Flat) != after {
        return Err("the output does not round-trip".into());
    }
    match &fixture.expected {
        Some(expected) if *expected == after => {}
        _ if bless => {
            let blessed = format!("{}{}; output:\n{after}", fixture.header, fixture.input);
            std::fs::write(path, blessed).map_err(|e| e.to_string())?;
        }
        Some(expected) => {
            return Err(format!(
                "output differs\n--- expected\n{expected}--- actual\n{after}"
            ));
        }
        None => return Err(format!("no `; output:` section; the output is\n{after}")),
    }
    // Idempotence: a second run changes nothing.
    let second = pipeline.run(&mut module);
    if let Some(error) = &second.error {
        return Err(format!("second run failed: {error}"));
    }
    if second.records.iter().any(|r| r.changed) || print_module(&module, View::Flat) != after {
        return Err(format!(
            "a second run changed the module:\n{}",
            second.log("second run")
        ));
    }
    Ok(())
}

#[test]
fn pass_fixtures() {
    // The pipeline verifies after every pass and checks `changed` against the text.
    std::env::set_var("OXIR_VERIFY_EACH", "1");
    std::env::set_var("OXIR_CHECK_CHANGED", "1");
    let bless = std::env::var("OXIR_BLESS").is_ok_and(|v| v == "1");
    let paths = fixture_paths();
    let mut failures = Vec::new();
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("readable fixture");
        if let Err(message) = check(path, &text, bless) {
            failures.push(format!("{}: {message}", path.display()));
        }
    }
    eprintln!("{} pass fixtures checked", paths.len());
    assert!(
        failures.is_empty(),
        "{} of {} fixtures failed:\n\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n\n")
    );
}
