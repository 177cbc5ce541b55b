#![allow(dead_code)]
use oxir_interp::{Buffers, Options};
use oxir_ir::{FunctionKind, Module};
use oxir_naga::{GlslStage, LowerOptions, ShaderSource};
#[allow(unused_imports)]
pub use oxir_test_support::corpus_dir;
use std::path::{Path, PathBuf};

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn compile_file(path: &Path) -> Module {
    let text = std::fs::read_to_string(path).unwrap();
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let source = match GlslStage::from_extension(ext) {
        Some(stage) => ShaderSource::Glsl(&text, stage),
        None => ShaderSource::Wgsl(&text),
    };
    oxir_naga::compile(
        source,
        &path.display().to_string(),
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
}

pub fn compile_wgsl(text: &str) -> Module {
    oxir_naga::compile(
        ShaderSource::Wgsl(text),
        "test.wgsl",
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e:?}"))
}

pub fn u32s(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn from_u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn f32s(bytes: &[u8]) -> Vec<f32> {
    u32s(bytes).into_iter().map(f32::from_bits).collect()
}

pub fn from_f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn normalized(module: &Module) -> Module {
    let mut m = module.clone();
    let run = oxir_passes::pipelines::normalize().run(&mut m);
    assert!(
        run.succeeded() && run.error.is_none(),
        "normalize failed: {:?}",
        run.error
    );
    m
}

pub fn structurized(module: &Module) -> Module {
    let mut m = normalized(module);
    let run = oxir_passes::pipelines::structurize().run(&mut m);
    assert!(
        run.succeeded() && run.error.is_none(),
        "structurize failed: {:?}",
        run.error
    );
    m
}

pub fn run(module: &Module, entry: &str, groups: [u32; 3], buffers: &mut Buffers) {
    oxir_interp::dispatch(module, entry, groups, buffers, &Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The kernels of `module` with their workgroup sizes.
pub fn kernels(module: &Module) -> Vec<(String, [u32; 3])> {
    module
        .functions
        .values()
        .filter_map(|f| match f.kind {
            FunctionKind::Kernel { workgroup_size, .. } => Some((f.name.clone(), workgroup_size)),
            _ => None,
        })
        .collect()
}

/// Runs every kernel of `module` on `inputs`; the buffers after each run, or the error.
pub fn execute(
    module: &Module,
    inputs: &[Buffers],
    groups: [u32; 3],
    limit: u64,
) -> Vec<Result<Buffers, String>> {
    let mut out = Vec::new();
    for (name, _) in kernels(module) {
        for input in inputs {
            let mut buffers = input.clone();
            let options = Options {
                max_instructions: limit,
                ..Options::default()
            };
            out.push(
                oxir_interp::dispatch(module, &name, groups, &mut buffers, &options)
                    .map(|_| buffers)
                    .map_err(|e| e.to_string()),
            );
        }
    }
    out
}

/// Runs the registered passes `names` in order on `module`.
pub fn run_sequence(module: &mut Module, names: &[&str]) -> Result<(), String> {
    let mut pipeline = oxir_passes::PassPipeline::new();
    for &name in names {
        let pass = oxir_passes::registry::create(name).ok_or(format!("no pass {name}"))?;
        pipeline.add(name, pass);
    }
    match pipeline.run(module).error {
        Some(e) => Err(format!("{names:?} failed: {e:?}")),
        None => Ok(()),
    }
}

/// Three random contents of binding (0, 0), 1 KiB each, from `seed`.
pub fn random_inputs(seed: u64) -> Vec<Buffers> {
    (0..3u64)
        .map(|s| {
            let mut b = Buffers::new();
            b.insert((0, 0), oxir_interp::random_bytes(4 * 256, seed * 31 + s));
            b
        })
        .collect()
}

/// Runs each pass sequence of `sequences` on a copy of `module` and records in
/// `failures` every sequence that fails, leaves an invalid module, or changes a kernel's
/// buffers on `inputs` (with `limit` executed instructions before, four times that
/// after). `false` (nothing checked) when `module` itself fails on an input.
pub fn check_sequences(
    seed: u64,
    module: &Module,
    inputs: &[Buffers],
    sequences: &[&[&str]],
    limit: u64,
    failures: &mut Vec<String>,
) -> bool {
    let reference = execute(module, inputs, [2, 1, 1], limit);
    if reference.iter().any(|r| r.is_err()) {
        return false;
    }
    for names in sequences {
        let mut after = module.clone();
        if let Err(e) = run_sequence(&mut after, names) {
            failures.push(format!("seed {seed}: {e}"));
            continue;
        }
        let options = oxir_ir::verifier::VerifierOptions::default();
        let report = oxir_ir::verifier::verify_module(&after, &options);
        if !report.succeeded() {
            failures.push(format!(
                "seed {seed}: {names:?} output does not verify:\n{report}"
            ));
        } else if execute(&after, inputs, [2, 1, 1], limit * 4) != reference {
            failures.push(format!("seed {seed}: results differ after {names:?}"));
        }
    }
    true
}

/// What [`check_pass_sequences`] saw.
pub struct SequenceRun {
    /// Modules whose reference run succeeded (the others are skipped).
    pub ran: usize,
    /// For each sequence, the modules it changed (as its `changed` closure decides).
    pub changed_by: Vec<usize>,
    /// One line per module and sequence that failed to verify or ran differently.
    pub failures: Vec<String>,
}

/// Generates a random module for each seed of `seeds`, normalises it, runs it on three
/// seeded inputs (`salt` varies them between tests), then runs each of `sequences` on a
/// copy with `run_passes` (which says whether it changed anything): every result must
/// verify and give the same buffers as the reference. `also(seed, module, failures)`
/// adds a test's own checks on each normalised module.
pub fn check_pass_sequences(
    sequences: &[&[&str]],
    seeds: std::ops::Range<u64>,
    salt: u64,
    run_passes: impl Fn(&mut Module, &[&str]) -> bool,
    mut also: impl FnMut(u64, &Module, &mut Vec<String>),
) -> SequenceRun {
    use oxir_ir::random_modules::{generate_module, GenConfig};
    use oxir_ir::verifier::{verify_module, VerifierOptions};
    const LIMIT: u64 = 2_000_000;
    let mut run = SequenceRun {
        ran: 0,
        changed_by: vec![0; sequences.len()],
        failures: Vec::new(),
    };
    for seed in seeds {
        let module = normalized(&generate_module(seed, GenConfig::default()));
        let inputs: Vec<Buffers> = (0..3u64)
            .map(|s| {
                let mut b = Buffers::new();
                b.insert((0, 0), oxir_interp::random_bytes(4 * 256, seed * salt + s));
                b
            })
            .collect();
        let reference = execute(&module, &inputs, [2, 1, 1], LIMIT);
        if reference.iter().any(|r| r.is_err()) {
            continue;
        }
        run.ran += 1;
        for (k, sequence) in sequences.iter().enumerate() {
            let mut current = module.clone();
            if run_passes(&mut current, sequence) {
                run.changed_by[k] += 1;
            }
            let report = verify_module(&current, &VerifierOptions::default());
            if !report.succeeded() {
                run.failures
                    .push(format!("seed {seed} {sequence:?}: invalid: {report}"));
                continue;
            }
            if execute(&current, &inputs, [2, 1, 1], LIMIT) != reference {
                run.failures
                    .push(format!("seed {seed} {sequence:?}: results differ"));
            }
        }
        also(seed, &module, &mut run.failures);
    }
    run
}
