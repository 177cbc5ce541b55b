//! Every compute kernel of `tests/shaders` and of the shared corpus that the SPIR-V
//! back-end compiles must compile here too, deterministically, to LLVM IR that passes
//! `opt -passes=verify`, and through `llc` to PTX that `ptxas` accepts for sm_80 and
//! sm_90 (elementary functions linked from libdevice with `llvm-link`). Refusals are
//! counted and printed with their reasons.

mod tools;

use oxir_naga::{GlslStage, LowerOptions, ShaderSource};
use oxir_test_support::{corpus_dir, repo_root};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn shader_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            shader_files(&p, out);
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("wgsl" | "comp" | "spv")
        ) {
            out.push(p);
        }
    }
}

/// The compute entry points of a file, each lowered on its own (`None`: not lowered).
fn kernels(path: &Path) -> Vec<(String, oxir_ir::Module)> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let source = match ext {
        "wgsl" => ShaderSource::Wgsl(&text),
        "spv" => ShaderSource::SpirV(&bytes),
        other => match GlslStage::from_extension(other) {
            Some(stage) => ShaderSource::Glsl(&text, stage),
            None => return Vec::new(),
        },
    };
    let Ok(shader) = source.parse(&path.display().to_string()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for ep in &shader.module.entry_points {
        if ep.stage != naga::ShaderStage::Compute {
            continue;
        }
        let options = LowerOptions {
            entry_point: Some(ep.name.clone()),
            ..Default::default()
        };
        // Overrides at their defaults.
        let Ok(r) = oxir_naga::apply_overrides(&shader.module, &shader.info, None, &[], "k") else {
            continue;
        };
        if let Ok(m) = oxir_naga::lower_with_options(&r.module, &r.info, &options) {
            out.push((ep.name.clone(), m));
        }
    }
    out
}

fn libdevice() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("OXIR_LIBDEVICE") {
        return Some(PathBuf::from(p));
    }
    let p = PathBuf::from(std::env::var_os("HOME")?).join(".cache/oxir/ptxas/libdevice.10.bc");
    p.is_file().then_some(p)
}

/// Links libdevice into `ll` when it calls `__nv_*` functions.
fn link_libdevice(ll: &str) -> Result<String, String> {
    if !ll.contains("@__nv_") {
        return Ok(ll.to_string());
    }
    let lib = libdevice().ok_or("libdevice.10.bc not found")?;
    let input = tools::temp("ll");
    std::fs::write(&input, ll).map_err(|e| e.to_string())?;
    let out = tools::run(
        "llvm-link-22",
        &[
            "-S",
            "--only-needed",
            &input.display().to_string(),
            &lib.display().to_string(),
        ],
    );
    let _ = std::fs::remove_file(&input);
    out.map(|b| String::from_utf8_lossy(&b).into_owned())
}

#[derive(Default)]
struct Tally {
    compiled: u32,
    assembled: u32,
    refused: BTreeMap<String, Vec<String>>,
    failures: Vec<String>,
}

fn check(
    name: &str,
    module: &oxir_ir::Module,
    tools: &Option<(String, String, String)>,
    t: &mut Tally,
) {
    if oxir_spirv::compile(module, &oxir_spirv::Options::default()).is_err() {
        return;
    }
    let target = oxir_llvm::TargetDesc::nvptx();
    let ll = match oxir_llvm::compile(module, &target) {
        Ok(ll) => ll,
        Err(oxir_llvm::Error::Unsupported { what, .. }) => {
            t.refused.entry(what).or_default().push(name.to_string());
            return;
        }
        Err(e) => return t.failures.push(format!("{name}: {e}")),
    };
    t.compiled += 1;
    if oxir_llvm::compile(module, &target).as_ref() != Ok(&ll) {
        t.failures
            .push(format!("{name}: output is not deterministic"));
    }
    let Some((opt, llc, ptxas)) = tools else {
        return;
    };
    if let Err(e) = tools::verify(opt, &ll) {
        return t
            .failures
            .push(format!("{name}: opt -passes=verify: {e}\n{ll}"));
    }
    let linked = match link_libdevice(&ll) {
        Ok(l) => l,
        Err(e) => return t.failures.push(format!("{name}: llvm-link: {e}")),
    };
    for arch in ["sm_80", "sm_90"] {
        match tools::ptx(llc, &linked, arch) {
            Err(e) => return t.failures.push(format!("{name}: llc {arch}: {e}\n{ll}")),
            Ok(ptx) => {
                if let Err(e) = tools::assemble(ptxas, &ptx, arch) {
                    return t.failures.push(format!("{name}: ptxas {arch}: {e}\n{ptx}"));
                }
            }
        }
    }
    t.assembled += 1;
}

fn check_dir(dir: &Path) -> Tally {
    let tools = match (tools::opt(), tools::llc(), tools::ptxas()) {
        (Some(o), Some(l), Some(p)) => Some((o, l, p)),
        _ => None,
    };
    let mut files = Vec::new();
    shader_files(dir, &mut files);
    let mut t = Tally::default();
    for f in &files {
        for (entry, module) in kernels(f) {
            let name = format!("{}:{entry}", f.display());
            check(&name, &module, &tools, &mut t);
        }
    }
    eprintln!(
        "{}: {} kernels compiled, {} assembled by ptxas (sm_80, sm_90)",
        dir.display(),
        t.compiled,
        t.assembled
    );
    for (why, names) in &t.refused {
        eprintln!("  refused ({}): {why}: {}", names.len(), names.join(", "));
    }
    t
}

#[test]
fn project_kernels_compile_to_ptx() {
    let t = check_dir(&repo_root().join("tests/shaders"));
    assert!(t.failures.is_empty(), "{}", t.failures.join("\n\n"));
    assert!(
        t.compiled >= 3,
        "only {} project kernels compiled",
        t.compiled
    );
}

#[test]
fn corpus_kernels_compile_to_ptx() {
    let Some(dir) = corpus_dir() else {
        eprintln!("SKIPPED: the shader corpus is absent (set OXIR_CORPUS_DIR)");
        return;
    };
    let t = check_dir(&dir);
    assert!(
        t.failures.is_empty(),
        "{} failures:\n{}",
        t.failures.len(),
        t.failures.join("\n\n")
    );
}
