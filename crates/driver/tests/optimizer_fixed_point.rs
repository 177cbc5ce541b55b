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
    for path in shader_files() {
        let name = path.to_string_lossy().to_string();
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(mut module) = oxir_driver::load(input(&name, &text), &CompileOptions::default())
        else {
            continue; // the front-end's rejections are tested elsewhere
        };
        let pipeline = target_pipeline(Target::Oxir, OptLevel::O1, Default::default())
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
