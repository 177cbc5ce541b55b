//! Robustness: every registered pass, run alone on every module that passes the default
//! verifier — the IR fixtures, the input of every pass fixture (whatever pass it was
//! written for) and random modules — either refuses it or leaves a module that still
//! verifies. It never panics. `oxir opt --passes NAME` verifies its input with the
//! default options and then runs exactly this, so a panic here is a crash a user's file can
//! cause.

use oxir_ir::parser::parse_module;
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

fn oxir_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            oxir_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "oxir") {
            out.push(path);
        }
    }
}

/// Every verified input: (name, module).
fn inputs() -> Vec<(String, Module)> {
    let root = oxir_test_support::repo_root().join("tests/filetests");
    let mut files = Vec::new();
    oxir_files(&root, &mut files);
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("fixture readable");
        // A pass fixture's expected output follows `; output:`; the input comes first.
        let input = text.split("\n; output:").next().unwrap_or(&text);
        let Ok(module) = parse_module(input) else {
            continue; // rejection fixtures
        };
        if verify_module(&module, &VerifierOptions::default()).succeeded() {
            let name = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .display()
                .to_string();
            out.push((name, module));
        }
    }
    for seed in 0..40u64 {
        let config = GenConfig {
            max_insts: 120,
            ..GenConfig::default()
        };
        let module = generate_module(seed, config);
        if verify_module(&module, &VerifierOptions::default()).succeeded() {
            out.push((format!("random module {seed}"), module));
        }
    }
    out
}

#[test]
fn every_pass_refuses_or_verifies_on_every_valid_input() {
    // The changed-vs-text check and verify-each are the pipeline's; this test checks the
    // passes themselves.
    let inputs = inputs();
    assert!(inputs.len() > 150, "only {} inputs", inputs.len());
    let mut failures = Vec::new();
    let mut refused = 0;
    for pass_name in oxir_passes::registry::pass_names() {
        let pass = oxir_passes::registry::create(pass_name).expect("registered");
        for (name, module) in &inputs {
            let mut module = module.clone();
            let outcome = catch_unwind(AssertUnwindSafe(|| pass(&mut module)));
            match outcome {
                Err(_) => failures.push(format!("{pass_name} on {name}: PANIC")),
                Ok(outcome) if outcome.failure.is_some() => refused += 1,
                Ok(_) => {
                    let report = verify_module(&module, &VerifierOptions::default());
                    if !report.succeeded() {
                        failures.push(format!("{pass_name} on {name}: invalid output: {report}"));
                    }
                }
            }
        }
    }
    eprintln!(
        "{} passes x {} inputs, {refused} refusals",
        oxir_passes::registry::pass_names().len(),
        inputs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
