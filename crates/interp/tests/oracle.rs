//! The execution oracle: results before each pass equal results after it, on random
//! modules (several inputs each) and on the project's own compute shaders. A mismatch
//! names the first pass whose output differs (the pipelines are bisected pass by pass).

mod common;
use common::*;
use oxir_interp::Buffers;
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::Module;

/// Instruction budget of a run before the passes; programs needing more are skipped.
const REFERENCE_LIMIT: u64 = 2_000_000;
/// Budget after a pass: passes may add instructions (reg2mem adds loads and stores), but
/// not ten times as many.
const AFTER_LIMIT: u64 = 20_000_000;

/// The passes of SPIR-V's `-O` pipeline, in order: `normalize`, `ssa-optimization`,
/// `structurize`, `mem2reg`, `post-restructure-cleanup` (each pass once; a fixed-point
/// group's passes once each).
fn pass_sequence() -> Vec<String> {
    use oxir_passes::pipelines;
    let mut names = Vec::new();
    for p in [
        pipelines::normalize(),
        pipelines::ssa_optimization(),
        pipelines::structurize(),
    ] {
        names.extend(p.pass_names().into_iter().map(str::to_string));
    }
    names.push("mem2reg".into());
    names.extend(
        pipelines::post_restructure_cleanup()
            .pass_names()
            .into_iter()
            .map(str::to_string),
    );
    names
}

/// Runs the passes one at a time and compares the results after each with the results
/// before the first; returns the name of the first pass that changes them.
fn first_differing_pass(
    module: &Module,
    inputs: &[Buffers],
    groups: [u32; 3],
) -> Result<(), String> {
    let reference = execute(module, inputs, groups, REFERENCE_LIMIT);
    // End to end first; bisect only when the final result differs.
    let mut whole = module.clone();
    let mut complete = true;
    for name in pass_sequence() {
        let pass = oxir_passes::registry::create(&name).expect("registered pass");
        let mut p = oxir_passes::PassPipeline::new();
        p.add(&name, pass);
        if p.run(&mut whole).error.is_some() {
            complete = false;
            break;
        }
    }
    if complete && execute(&whole, inputs, groups, AFTER_LIMIT) == reference {
        return Ok(());
    }
    let mut current = module.clone();
    for name in pass_sequence() {
        let pass = oxir_passes::registry::create(&name).expect("registered pass");
        let mut p = oxir_passes::PassPipeline::new();
        p.add(&name, pass);
        let run = p.run(&mut current);
        if let Some(e) = &run.error {
            return Err(format!("pass {name} failed: {e:?}"));
        }
        let after = execute(&current, inputs, groups, AFTER_LIMIT);
        if after != reference {
            let i = after
                .iter()
                .zip(&reference)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(format!(
                "results differ after pass `{name}` (run {i}): before {:?}, after {:?}",
                reference.get(i).map(short),
                after.get(i).map(short)
            ));
        }
    }
    Ok(())
}

fn short(r: &Result<Buffers, String>) -> String {
    match r {
        Ok(b) => b
            .iter()
            .map(|(k, v)| format!("{k:?}: {:?}", &u32s(v)[..u32s(v).len().min(16)]))
            .collect::<Vec<_>>()
            .join("; "),
        Err(e) => e.clone(),
    }
}

#[test]
fn random_modules_run_the_same_after_every_pass() {
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut wrote = 0;
    for seed in 0..60u64 {
        let module = generate_module(seed, GenConfig::default());
        let inputs: Vec<Buffers> = [0u64, 1, 2]
            .iter()
            .map(|&s| {
                let mut b = Buffers::new();
                b.insert((0, 0), oxir_interp::random_bytes(4 * 256, seed * 31 + s));
                b
            })
            .collect();
        let reference = execute(&module, &inputs, [2, 1, 1], REFERENCE_LIMIT);
        if reference.iter().any(|r| r.is_err()) {
            failures.push(format!("seed {seed}: original fails: {:?}", reference[0]));
            continue;
        }
        ran += 1;
        if reference
            .iter()
            .zip(inputs.iter().cycle())
            .any(|(r, i)| r.as_ref().ok() != Some(i))
        {
            wrote += 1;
        }
        if let Err(e) = first_differing_pass(&module, &inputs, [2, 1, 1]) {
            failures.push(format!("seed {seed}: {e}"));
        }
    }
    assert!(
        wrote >= ran / 2,
        "only {wrote} of {ran} modules change their buffer"
    );
    assert!(
        failures.is_empty(),
        "{} of 60 failed ({ran} ran):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn random_inputs(module: &Module, extra: usize) -> Vec<Buffers> {
    let sizes = oxir_interp::bindings(module).unwrap();
    (0..2u64)
        .map(|s| {
            sizes
                .iter()
                .enumerate()
                .map(|(i, (&k, info))| {
                    let size = info.min_size as usize + if info.runtime_sized { extra } else { 0 };
                    (k, oxir_interp::random_bytes(size, s * 7 + i as u64))
                })
                .collect()
        })
        .collect()
}

#[test]
fn corpus_compute_shaders_run_the_same_after_every_pass() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("skipping: no shared/corpus directory");
        return;
    };
    let mut files = Vec::new();
    for sub in ["naga", "wgpu-examples"] {
        for e in std::fs::read_dir(corpus.join(sub))
            .into_iter()
            .flatten()
            .flatten()
        {
            let p = e.path();
            if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("wgsl" | "comp")
            ) {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut checked, mut skipped) = (0, Vec::new());
    let mut failures = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        let source = match oxir_naga::GlslStage::from_extension(ext) {
            Some(stage) => oxir_naga::ShaderSource::Glsl(&text, stage),
            None => oxir_naga::ShaderSource::Wgsl(&text),
        };
        let Ok(module) = oxir_naga::compile(source, "corpus", &Default::default()) else {
            continue;
        };
        if kernels(&module).is_empty() {
            continue;
        }
        let inputs = random_inputs(&module, 256);
        if let Some(Err(e)) = execute(&module, &inputs, [2, 1, 1], REFERENCE_LIMIT)
            .into_iter()
            .find(|r| r.is_err())
        {
            skipped.push(format!(
                "{}: {e}",
                path.file_name().unwrap().to_string_lossy()
            ));
            continue;
        }
        if let Err(e) = first_differing_pass(&module, &inputs, [2, 1, 1]) {
            failures.push(format!("{}: {e}", path.display()));
        }
        checked += 1;
    }
    eprintln!("corpus: {checked} compute shaders checked; skipped (run-time error before any pass): {skipped:#?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn project_compute_shaders_run_the_same_at_o0_and_after_the_pipelines() {
    let mut files = vec![repo_root().join("examples/clamp_scale.wgsl")];
    for entry in std::fs::read_dir(repo_root().join("tests/shaders")).unwrap() {
        let path = entry.unwrap().path();
        if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("wgsl" | "comp")
        ) {
            files.push(path);
        }
    }
    files.sort();
    let mut checked = 0;
    for path in files {
        let module = compile_file(&path);
        if kernels(&module).is_empty() {
            continue;
        }
        let inputs = random_inputs(&module, 1024);
        if let Err(e) = first_differing_pass(&module, &inputs, [2, 1, 1]) {
            panic!("{}: {e}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} compute shaders checked");
}
