//! Every module these tests produce must pass `spirv-val` (skipped with a visible message
//! when `spirv-val` is not installed; `scripts/test.sh` installs it), and must declare no
//! type or constant twice (`oxir_test_support::spirv_duplicates`; layout variants of a
//! type are allowed). The project and corpus tests also print the total words written
//! (Vulkan 1.1, without and with debug names).

use oxir_naga::{GlslStage, LowerOptions, ShaderSource};
use oxir_spirv::{compile, Error, Options, TargetEnv};
use oxir_test_support::corpus_dir;
use oxir_test_support::spirv_duplicates::duplicates;
use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn have_spirv_val() -> bool {
    oxir_test_support::spirv_val::have_spirv_val("spirv_val")
}

/// Runs spirv-val on `words`; Err carries its message.
fn spirv_val(words: &[u32], env: TargetEnv) -> Result<(), String> {
    oxir_test_support::spirv_val::spirv_val(words, env.name())
}

fn stage_name(stage: naga::ShaderStage) -> &'static str {
    match stage {
        naga::ShaderStage::Compute => "compute",
        naga::ShaderStage::Vertex => "vertex",
        naga::ShaderStage::Fragment => "fragment",
        _ => "other",
    }
}

/// One entry point, lowered on its own; `Err` is the front-end's reason.
type Entry = (String, &'static str, Result<oxir_ir::Module, String>);

/// Every entry point of a shader file (`Err`: the file does not parse).
fn entry_points(path: &Path) -> Result<Vec<Entry>, String> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let source = match ext {
        "wgsl" => ShaderSource::Wgsl(&text),
        "spv" => ShaderSource::SpirV(&bytes),
        other => match GlslStage::from_extension(other) {
            Some(stage) => ShaderSource::Glsl(&text, stage),
            None => return Err(format!("unknown kind {other}")),
        },
    };
    let name = path.display().to_string();
    let shader = source.parse(&name).map_err(|e| e.rendered.clone())?;
    let mut out = Vec::new();
    for ep in &shader.module.entry_points {
        let options = LowerOptions {
            entry_point: Some(ep.name.clone()),
            ..Default::default()
        };
        // Overrides at their defaults, as `oxir compile` gives none.
        let module =
            oxir_naga::apply_overrides(&shader.module, &shader.info, Some(&ep.name), &[], &name)
                .map_err(|e| e.to_string())
                .and_then(|r| {
                    oxir_naga::lower_with_options(&r.module, &r.info, &options)
                        .map_err(|e| e.to_string())
                });
        out.push((ep.name.clone(), stage_name(ep.stage), module));
    }
    Ok(out)
}

/// Outcome counts of one stage.
#[derive(Default)]
struct Counts {
    passed: u32,
    refused: u32,
    not_lowered: u32,
}

/// What a run over shader files found: outcomes per stage, refusal and front-end reasons
/// with their counts, and the words written for Vulkan 1.1.
#[derive(Default)]
struct Tally {
    counts: std::collections::BTreeMap<&'static str, Counts>,
    reasons: std::collections::BTreeMap<String, u32>,
    front_end: std::collections::BTreeMap<String, u32>,
    /// Words without debug names, with them, and the layout variants among the types.
    words: usize,
    words_with_names: usize,
    layout_variants: usize,
}

fn options(target_env: TargetEnv, debug_names: bool) -> Options {
    Options {
        target_env,
        debug_names,
    }
}

/// The failures of one written module: duplicate declarations, and spirv-val's verdict.
fn check_words(words: &[u32], env: TargetEnv, validate: bool, what: &str) -> Vec<String> {
    let mut failures = Vec::new();
    let dups = duplicates(words);
    if !dups.is_empty() {
        failures.push(format!(
            "{what}: {} duplicate types, {} duplicate constants:\n  {}",
            dups.types.len(),
            dups.constants.len(),
            dups.types
                .iter()
                .chain(&dups.constants)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n  ")
        ));
    }
    if validate {
        if let Err(msg) = spirv_val(words, env) {
            failures.push(format!("{what}: spirv-val: {msg}"));
        }
    }
    failures
}

/// Compiles every entry point of `path` for every environment, checks determinism, the
/// absence of duplicates and validates; refusals (`Unsupported`) are counted with their
/// reason. Returns failures.
fn check_file(path: &Path, validate: bool, tally: &mut Tally) -> Vec<String> {
    let mut failures = Vec::new();
    let list = match entry_points(path) {
        Ok(list) => list,
        Err(e) => return vec![format!("{}: front-end: {e}", path.display())],
    };
    for (entry, stage, module) in list {
        let c = tally.counts.entry(stage).or_default();
        let module = match module {
            Ok(m) => m,
            Err(why) => {
                c.not_lowered += 1;
                // The reason without its position, so equal reasons group.
                let why = why.lines().next().unwrap_or("").to_string();
                let why = match why.find(" at byte offset") {
                    Some(at) => why[..at].to_string(),
                    None => why,
                };
                *tally.front_end.entry(why).or_default() += 1;
                continue;
            }
        };
        let mut refused = None;
        for env in TargetEnv::ALL {
            let what = format!("{}:{entry} ({})", path.display(), env.name());
            match compile(&module, &options(env, false)) {
                Ok(words) => {
                    let again = compile(&module, &options(env, false)).unwrap();
                    if again != words {
                        failures.push(format!("{what}: output is not deterministic"));
                    }
                    failures.extend(check_words(&words, env, validate, &what));
                    if env == TargetEnv::default() {
                        tally.words += words.len();
                        tally.layout_variants += duplicates(&words).layout_variants;
                        let named = compile(&module, &options(env, true)).unwrap();
                        tally.words_with_names += named.len();
                        failures.extend(check_names(&words, &named, &what));
                        let what = format!("{what} with debug names");
                        failures.extend(check_words(&named, env, validate, &what));
                    }
                }
                // Subgroup operations need SPIR-V 1.3: vulkan1.0 refuses them by design.
                Err(Error::Unsupported { what, .. })
                    if env == TargetEnv::Vulkan1_0 && what.contains("(needs SPIR-V 1.3)") => {}
                Err(Error::Unsupported { what, .. }) => refused = Some(what),
                Err(e) => failures.push(format!("{what}: {e}")),
            }
        }
        match refused {
            Some(why) => {
                c.refused += 1;
                *tally.reasons.entry(why).or_default() += 1;
            }
            None => c.passed += 1,
        }
    }
    failures
}

/// `plain` is `named` without its `OpName` / `OpMemberName` instructions, and has none
/// itself: debug names add instructions and change nothing else.
fn check_names(plain: &[u32], named: &[u32], what: &str) -> Vec<String> {
    let strip = |words: &[u32]| {
        let mut out = words[..5.min(words.len())].to_vec();
        let mut at = 5;
        while at < words.len() {
            let count = ((words[at] >> 16) as usize).max(1);
            let opcode = words[at] & 0xffff;
            // OpName (5), OpMemberName (6).
            if opcode != 5 && opcode != 6 {
                out.extend_from_slice(&words[at..(at + count).min(words.len())]);
            }
            at += count;
        }
        out
    };
    let mut failures = Vec::new();
    if strip(plain) != plain {
        failures.push(format!("{what}: debug names without debug_names"));
    }
    if strip(named) != plain {
        failures.push(format!(
            "{what}: debug_names changes more than the debug names"
        ));
    }
    failures
}

fn report(what: &str, tally: &Tally) {
    for (stage, c) in &tally.counts {
        println!(
            "{what}: {stage}: {} passed spirv-val for vulkan1.0-1.3, {} refused unsupported, {} rejected by the front-end",
            c.passed, c.refused, c.not_lowered
        );
    }
    for (why, n) in &tally.reasons {
        println!("  unsupported: {why}: {n}");
    }
    for (why, n) in &tally.front_end {
        println!("  front-end: {why}: {n}");
    }
    println!(
        "{what}: {} SPIR-V words for vulkan1.1 ({} with debug names); {} type layout variants",
        tally.words, tally.words_with_names, tally.layout_variants
    );
}

#[test]
fn project_shaders_pass_spirv_val() {
    let validate = have_spirv_val();
    let root = repo_root();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("tests/shaders"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.push(root.join("examples/clamp_scale.wgsl"));
    let mut failures = Vec::new();
    let mut tally = Tally::default();
    for file in &files {
        failures.extend(check_file(file, validate, &mut tally));
    }
    report("tests/shaders", &tally);
    // Every project shader is written: nothing refused, nothing rejected.
    for (stage, c) in &tally.counts {
        let reasons = &tally.reasons;
        assert_eq!((c.refused, c.not_lowered), (0, 0), "{stage}: {reasons:?}");
    }
    for stage in ["compute", "vertex", "fragment"] {
        assert!(
            tally.counts.get(stage).is_some_and(|c| c.passed > 0),
            "no {stage} shader"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn random_kernels_pass_spirv_val_or_are_refused() {
    let validate = have_spirv_val();
    let (mut written, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for seed in 0..60 {
        let module = oxir_ir::random_modules::generate_module(seed, Default::default());
        match compile(&module, &Options::default()) {
            Ok(words) => {
                written += 1;
                let what = format!("seed {seed}");
                failures.extend(check_words(&words, TargetEnv::Vulkan1_1, validate, &what));
            }
            Err(Error::Unsupported { .. }) => refused += 1,
            Err(e) => failures.push(format!("seed {seed}: {e}")),
        }
    }
    println!("random kernels: {written} written, {refused} refused");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("wgsl" | "comp" | "vert" | "frag" | "spv")
        ) {
            out.push(p);
        }
    }
}

#[test]
fn corpus_shaders_pass_spirv_val_or_are_refused() {
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED: shared/corpus not found above the repository root");
        return;
    };
    let validate = have_spirv_val();
    let mut files = Vec::new();
    walk(&corpus, &mut files);
    files.sort();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    let mut not_parsed = 0;
    for file in &files {
        if entry_points(file).is_err() {
            not_parsed += 1;
            continue;
        }
        failures.extend(check_file(file, validate, &mut tally));
    }
    println!(
        "corpus: {} files ({not_parsed} not parsed by naga); spirv-val {}",
        files.len(),
        if validate { "checked" } else { "not run" }
    );
    report("corpus", &tally);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
