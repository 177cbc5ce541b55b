//! The execution oracle over the project's filetests: every fixture with a kernel or a
//! callable whose parameters are values runs on several random inputs before and after
//! its passes (`; passes:` header; the `normalize` + `structurize` passes for the IR
//! fixtures), one pass at a time, and every function still present must give the same
//! results and buffers. A mismatch names the fixture, the function and the first pass.

mod common;
use common::*;
use oxir_interp::{Buffers, Options, StageInputs, Val};
use oxir_ir::{FunctionKind, Module, Type, TypeData};
use std::path::{Path, PathBuf};

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().and_then(|n| n.to_str()) != Some("invalid") {
                fixtures(&p, out);
            }
        } else if p.extension().and_then(|e| e.to_str()) == Some("oxir") {
            out.push(p);
        }
    }
}

fn random_val(module: &Module, ty: Type, rng: &mut u64) -> Option<Val> {
    let bytes = oxir_interp::random_bytes(8, *rng);
    *rng = rng.wrapping_add(0x9e37);
    let bits = u64::from_le_bytes(bytes.try_into().unwrap());
    Some(match module.types.get(ty) {
        TypeData::Scalar(s) => Val::S(oxir_ir::constants::canonical_scalar_bits(*s, bits)),
        TypeData::Vector { elem, len } => Val::V(
            (0..*len)
                .map(|i| {
                    oxir_ir::constants::canonical_scalar_bits(
                        *elem,
                        bits.rotate_left(u32::from(i) * 13),
                    )
                })
                .collect(),
        ),
        TypeData::Array { elem, len, .. } if *len <= 16 => Val::C(
            (0..*len)
                .map(|_| random_val(module, *elem, rng))
                .collect::<Option<_>>()?,
        ),
        TypeData::Struct(st) => Val::C(
            st.members
                .iter()
                .map(|m| random_val(module, m.ty, rng))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

type Outcome = Option<(Option<Vec<Val>>, Buffers)>;

/// Runs function `name` of `module` on input set `seed`; `None` when it fails.
fn run_function(module: &Module, name: &str, seed: u64) -> Outcome {
    let func = module.function_by_name(name)?;
    let f = &module.functions[func];
    let mut buffers = Buffers::new();
    let bindings = oxir_interp::bindings(module).ok()?;
    for (i, (k, info)) in bindings.iter().enumerate() {
        let size = info.min_size as usize + if info.runtime_sized { 256 } else { 0 };
        buffers.insert(*k, oxir_interp::random_bytes(size, seed * 101 + i as u64));
    }
    let options = Options {
        max_instructions: 1_000_000,
        ..Options::default()
    };
    match f.kind {
        FunctionKind::Kernel { .. } => {
            oxir_interp::dispatch(module, name, [2, 1, 1], &mut buffers, &options).ok()?;
            Some((None, buffers))
        }
        FunctionKind::Callable => {
            let mut rng = seed;
            let locations = f
                .signature
                .params
                .iter()
                .map(|p| random_val(module, p.ty, &mut rng))
                .collect::<Option<Vec<_>>>()?;
            let inputs = StageInputs {
                locations,
                ..StageInputs::default()
            };
            let out =
                oxir_interp::run_single(module, name, &inputs, &mut buffers, &options).ok()?;
            Some((out, buffers))
        }
        _ => None,
    }
}

fn passes_of(text: &str) -> Vec<String> {
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("; passes:") {
            return rest
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect();
        }
    }
    let mut names = Vec::new();
    for p in [
        oxir_passes::pipelines::normalize(),
        oxir_passes::pipelines::structurize(),
    ] {
        names.extend(p.pass_names().into_iter().map(str::to_string));
    }
    names
}

#[test]
fn filetests_run_the_same_after_their_passes() {
    let mut files = Vec::new();
    fixtures(&repo_root().join("tests/filetests"), &mut files);
    files.sort();
    let mut compared = 0;
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let input = text.split("\n; output:").next().unwrap();
        let Ok(module) = oxir_ir::parser::parse_module(input) else {
            continue;
        };
        if !oxir_ir::verifier::verify_module(&module, &Default::default()).succeeded() {
            continue;
        }
        let names: Vec<String> = module
            .functions
            .values()
            .filter(|f| matches!(f.kind, FunctionKind::Kernel { .. } | FunctionKind::Callable))
            .map(|f| f.name.clone())
            .collect();
        let reference: Vec<(String, u64, Outcome)> = names
            .iter()
            .flat_map(|n| (0..3u64).map(move |s| (n.clone(), s)))
            .map(|(n, s)| {
                let r = run_function(&module, &n, s);
                (n, s, r)
            })
            .filter(|(_, _, r)| r.is_some())
            .collect();
        if reference.is_empty() {
            continue;
        }
        let mut current = module.clone();
        'passes: for pass in passes_of(&text) {
            let Some(p) = oxir_passes::registry::create(&pass) else {
                continue;
            };
            let mut pipeline = oxir_passes::PassPipeline::new();
            pipeline.add(&pass, p);
            let run = pipeline.run(&mut current);
            if run.error.is_some() {
                break;
            }
            for (name, seed, before) in &reference {
                if current.function_by_name(name).is_none() {
                    continue;
                }
                let after = run_function(&current, name, *seed);
                compared += 1;
                if &after != before {
                    failures.push(format!(
                        "{}: @{name} input {seed}: results differ after pass `{pass}`",
                        path.display()
                    ));
                    break 'passes;
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared > 100, "only {compared} comparisons");
    eprintln!("{compared} comparisons over {} fixtures", files.len());
}
