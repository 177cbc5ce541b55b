//! The optimiser on every shader of `tests/shaders/` and of the shader corpus
//! (`OXIR_CORPUS_DIR`; skipped with a message when absent): the `-O` pipeline reaches its
//! fixed points within their limits, and running `ssa-optimization` again on its output
//! changes nothing (no pass reports a change and the text is the same).

use oxir_driver::{target_pipeline, CompileOptions, GlslStage, Input, OptLevel, Target};
use oxir_ir::printer::{print_module, View};
use std::path::PathBuf;

fn shader_files() -> Vec<PathBuf> {
    oxir_test_support::shader_files(&["wgsl", "comp", "vert", "frag"])
}

fn input<'a>(name: &'a str, text: &'a str) -> Input<'a> {
    let stage = match name.rsplit('.').next() {
        Some("comp") => GlslStage::Compute,
        Some("vert") => GlslStage::Vertex,
        Some("frag") => GlslStage::Fragment,
        _ => return Input::wgsl(name, text),
    };
    Input::glsl(name, text, stage)
}

/// Every project and corpus shader the front-end accepts, by name.
fn loaded_shaders() -> Vec<(String, oxir_ir::Module)> {
    let mut out = Vec::new();
    for path in shader_files() {
        let name = path.to_string_lossy().to_string();
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        // The front-end's rejections are tested elsewhere.
        if let Ok(module) = oxir_driver::load(input(&name, &text), &CompileOptions::default()) {
            out.push((name, module));
        }
    }
    out
}

fn changed_passes(record: &oxir_passes::Record, out: &mut Vec<String>) {
    if record.changed && record.children.is_empty() {
        out.push(record.name.clone());
    }
    for child in &record.children {
        changed_passes(child, out);
    }
}

#[test]
fn o1_converges_and_a_second_run_changes_nothing() {
    let mut optimized = 0;
    let mut failures = Vec::new();
    for (name, mut module) in loaded_shaders() {
        let pipeline = target_pipeline(
            Target::Oxir,
            OptLevel::O1,
            Default::default(),
            Default::default(),
        )
        .expect("-O has a pipeline");
        let stats = pipeline.run(&mut module);
        if !stats.succeeded() {
            failures.push(format!("{name}: -O failed:\n{}", stats.log("-O")));
            continue;
        }
        let before = print_module(&module, View::Flat);
        let again = oxir_passes::pipelines::ssa_optimization().run(&mut module);
        let mut changed = Vec::new();
        for record in &again.records {
            changed_passes(record, &mut changed);
        }
        if !again.succeeded() || !changed.is_empty() {
            failures.push(format!(
                "{name}: a second ssa-optimization changed {changed:?}"
            ));
        } else if print_module(&module, View::Flat) != before {
            failures.push(format!(
                "{name}: a second ssa-optimization changed the text"
            ));
        }
        optimized += 1;
    }
    eprintln!("optimised {optimized} shaders twice");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(optimized >= 10, "only {optimized} shaders optimised");
}

/// The passes of `ssa-optimization` one at a time (its head, then its round twice), with
/// the verifier after each, in process: a pass that leaves, say, an alias of a removed
/// value is named here, where the pipeline's own verifier would only see the end (and
/// the text form, which resolves aliases, would hide it).
#[test]
fn every_step_of_the_optimiser_verifies() {
    use oxir_ir::verifier::{verify_module, VerifierOptions};
    let mut steps = vec!["private-to-function", "sroa", "mem2reg"];
    steps.extend(oxir_passes::pipelines::SSA_ROUND);
    steps.extend(oxir_passes::pipelines::SSA_ROUND);
    let mut failures = Vec::new();
    let mut checked = 0;
    for (name, mut module) in loaded_shaders() {
        if !oxir_passes::pipelines::normalize()
            .run(&mut module)
            .succeeded()
        {
            continue;
        }
        for step in &steps {
            let pass = oxir_passes::registry::create(step).expect("registered");
            let _ = pass(&mut module);
            let report = verify_module(&module, &VerifierOptions::default());
            if !report.succeeded() {
                failures.push(format!("{name}: after {step}:\n{report}"));
                break;
            }
        }
        checked += 1;
    }
    eprintln!("checked every optimiser step on {checked} shaders");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 10, "only {checked} shaders checked");
}
