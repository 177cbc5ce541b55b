//! `oxir run --engine vulkan`: three independent paths agree on every compute kernel of the
//! project's shaders and of the shared shader corpus that the interpreter runs —
//!
//! 1. `oxir run FILE --engine interp` (the oracle),
//! 2. `oxir run FILE --engine vulkan` (oxir's SPIR-V, checked by `spirv-val` first),
//! 3. `oxir run naga.spv --engine vulkan` (naga's own SPIR-V writer, bounds checks
//!    `ReadZeroSkipWrite` as WGSL's robust access, also through `spirv-val`),
//!
//! with the same typed, deterministic inputs. Inputs: each binding's words are typed from
//! the oxir global's type (floats: finite multiples of 1/64 in [-4, 4), never NaN;
//! integers: 0..32, small so that data-dependent indices stay in bounds, where Vulkan's
//! robustBufferAccess and WGSL's "reads give zero" differ; bools 0 or 1); runtime arrays get
//! 512 bytes. Integer words compare exactly; float words too, unless the shader uses an
//! operation whose precision Vulkan leaves to the driver ([`IMPRECISE`]): then float words
//! compare within [`ULP_BOUND`] ULPs and the test prints the shader and the largest
//! difference seen. Words that change when the interpreter shuffles the invocation order
//! (`--shuffle 1..3`: races by design, atomics) are not compared, and neither are the words
//! where naga's SPIR-V differs from WGSL by design ([`NAGA_DIFFERS`]); the test prints both.
//!
//! A second pass over the same kernels ([`seeded_random_buffers_agree_out_of_range_included`])
//! gives every integer word a random 32-bit value, so data-dependent indices go out of range:
//! oxir's bounds-checked SPIR-V must still give the interpreter's bytes, and no run may
//! crash (`tests/shaders/bounds.wgsl` crashes lavapipe under `--bounds-checks unchecked`).
//!
//! Without Vulkan (no loader or no device) the tests fail when `OXIR_REQUIRE_VULKAN=1`
//! (scripts/test.sh sets it) and otherwise skip with a message.

mod common;
mod kernel_cases;
mod vulkan_support;

use common::{assert_exit, oxir, path, stderr, stdout};
use kernel_cases::{
    cases, imprecise, run_args, seed_of, source_of, unstable_words, Case, CROSS_WORKGROUP_RACES,
    ULP_BOUND,
};
use oxir_test_support::corpus_dir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use vulkan_support::{compare, inputs, mask, parse_lines, Ints};

fn vulkan_available(test: &str) -> bool {
    let why = match oxir_vulkan::list_devices() {
        Ok(d) if !d.is_empty() => return true,
        Ok(_) => "the loader lists no device".to_string(),
        Err(e) => e.to_string(),
    };
    if std::env::var("OXIR_REQUIRE_VULKAN").as_deref() == Ok("1") {
        panic!("{test}: Vulkan is required (OXIR_REQUIRE_VULKAN=1) but unavailable: {why}");
    }
    eprintln!("SKIPPED {test}: no Vulkan: {why}");
    false
}

/// A scratch folder for one test (tests run in parallel in one process, and some remove
/// their folder when they end).
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxir-cli-vulkan-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `Err(message)` when spirv-val rejects the module; `Ok(false)` when it is not installed.
fn spirv_val(file: &Path) -> Result<bool, String> {
    match Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1"])
        .arg(file)
        .output()
    {
        Ok(o) if o.status.success() => Ok(true),
        Ok(o) => Err(format!(
            "spirv-val rejects {}: {}{}",
            file.display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(_) => {
            if std::env::var("OXIR_REQUIRE_VULKAN").as_deref() == Ok("1") {
                return Err("spirv-val is not installed (scripts/test.sh installs it)".into());
            }
            Ok(false)
        }
    }
}

/// naga's SPIR-V for one entry point, robust access as WGSL's (`ReadZeroSkipWrite`), or
/// `Restrict` (indices clamped) where naga's writer cannot do that (atomics); the second
/// value says which.
fn naga_spirv(file: &Path, text: &str, entry: &str) -> Result<(Vec<u32>, bool), String> {
    let shader = source_of(file, text)
        .parse("naga")
        .map_err(|e| e.rendered)?;
    // Overrides at their defaults, as oxir compiles them: naga's writer takes a module
    // whose overrides are applied (modules without overrides are written as they are).
    let (module, info) = match shader.module.overrides.is_empty() {
        true => (
            std::borrow::Cow::Borrowed(&shader.module),
            std::borrow::Cow::Borrowed(&shader.info),
        ),
        false => naga::back::pipeline_constants::process_overrides(
            &shader.module,
            &shader.info,
            Some((naga::ShaderStage::Compute, entry)),
            &naga::back::PipelineConstants::default(),
        )
        .map_err(|e| e.to_string())?,
    };
    let write = |policy| {
        let options = naga::back::spv::Options {
            lang_version: (1, 3),
            flags: naga::back::spv::WriterFlags::empty(),
            bounds_check_policies: naga::proc::BoundsCheckPolicies {
                index: policy,
                buffer: policy,
                image_load: policy,
                binding_array: policy,
            },
            ..Default::default()
        };
        let pipeline = naga::back::spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: entry.to_string(),
        };
        naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline))
            .map_err(|e| e.to_string())
    };
    match write(naga::proc::BoundsCheckPolicy::ReadZeroSkipWrite) {
        Ok(words) => Ok((words, false)),
        Err(e) if e.contains("Atomics") => {
            write(naga::proc::BoundsCheckPolicy::Restrict).map(|w| (w, true))
        }
        Err(e) => Err(e),
    }
}

/// A run of words not compared: (kernel, binding, first word, every n-th word after it,
/// why).
type SkippedWords = (&'static str, (u32, u32), usize, usize, &'static str);

/// Words where naga's SPIR-V differs from WGSL by design. Not compared; the test prints
/// them.
const NAGA_DIFFERS: &[SkippedWords] = &[
    (
        "expressions.wgsl:main",
        (0, 2),
        2,
        4,
        "`uints[i].z` holds pack2x16snorm(vec2(-0.5)): -0.5 * 32767 = -16383.5, which naga \
         writes as GLSL.std.450 PackSnorm2x16, whose rounding of halves is the driver's \
         (lavapipe gives -16384); WGSL (and oxir) specify floor(0.5 + x) = -16383",
    ),
    (
        "composites.wgsl:main",
        (0, 1),
        3,
        32,
        "`length(v.w)` of a scalar: WGSL defines it as |v.w| (oxir's SPIR-V writes FAbs), \
         naga writes GLSL.std.450 Length, which lavapipe evaluates as sqrt(v.w * v.w): \
         infinite for the inputs scaled by 2^63",
    ),
];

/// Kernels whose indices are out of range even with small inputs (they test the bounds
/// checks): naga's SPIR-V is compared on them only where its writer can read zero.
const OUT_OF_RANGE_BY_DESIGN: &[&str] = &["bounds.wgsl:main"];

/// Tallies of the equality test.
#[derive(Default)]
struct Tally {
    exact: usize,
    bounded: Vec<(String, u32)>,
    skipped: Vec<String>,
    naga_compared: usize,
    naga_skipped: Vec<String>,
    naga_differs: Vec<String>,
    order_dependent: Vec<String>,
    one_workgroup: Vec<String>,
    naga_restrict: Vec<String>,
    /// Kernels with textures (their storage textures are compared too), with their
    /// texture count.
    textured: Vec<String>,
    /// Seeded textures of the kernels compared with textures.
    seeded_textures: usize,
    /// Kernels whose `-O` SPIR-V gave the `-O0` bytes on Vulkan.
    optimized_equal: usize,
    failures: Vec<String>,
}

/// The `--texture` sizes and seeds the equality test gives every texture binding of
/// `module`: big enough that two workgroups write more than one texel, with two layers for
/// arrays so that layer 1 exists, and seeded contents (`:seed=`, derived from `seed` and
/// the binding) so that reading the wrong texel, layer or sample shows.
fn texture_args(module: &oxir_ir::Module, seed: u64) -> BTreeMap<(u32, u32), String> {
    use oxir_ir::types::TextureDim;
    let mut out = BTreeMap::new();
    for (_, g) in module.globals.iter() {
        let Some(b) = g.binding else { continue };
        let shape = match module.types.get(g.ty) {
            oxir_ir::TypeData::Texture { shape, .. }
            | oxir_ir::TypeData::StorageTexture { shape, .. } => *shape,
            _ => continue,
        };
        let layers = if shape.arrayed { 2 } else { 1 };
        let size = match shape.dim {
            TextureDim::D1 => format!("8x1x{layers}"),
            TextureDim::D2 => format!("8x8x{layers}"),
            TextureDim::D3 => "4x4x4".to_string(),
            TextureDim::Cube => format!("8x8x{}", 6 * layers),
        };
        let seed = seed ^ (u64::from(b.group) << 32 | u64::from(b.binding));
        out.insert(
            (b.group, b.binding),
            format!("{}:{}={size}:seed={seed}", b.group, b.binding),
        );
    }
    out
}

fn check(case: &Case, dir: &Path, tally: &mut Tally, ints: Ints) {
    let label = case.label();
    let file = case.file.to_str().unwrap();
    let text = std::fs::read_to_string(&case.file).unwrap();
    let options = oxir_naga::LowerOptions {
        entry_point: Some(case.entry.clone()),
        ..Default::default()
    };
    let module = match oxir_naga::compile(source_of(&case.file, &text), file, &options) {
        Ok(m) => m,
        Err(_) => {
            tally
                .skipped
                .push(format!("{label}: the front-end rejects it"));
            return;
        }
    };
    let seed = seed_of(&label);
    let inputs = inputs(&module, seed, ints);
    // Buffer files, then texture sizes and seeds (`texture G:B=WxH[xL]:seed=S`), with their
    // bindings.
    let mut bound_args: Vec<((u32, u32), String)> = Vec::new();
    for ((g, b), input) in &inputs {
        let f = dir.join(format!("{}-{g}-{b}.bin", label.replace([':', '/'], "_")));
        std::fs::write(&f, &input.bytes).unwrap();
        bound_args.push(((*g, *b), format!("{g}:{b}=@{}", f.display())));
    }
    let textures = texture_args(&module, seed);
    let textured = textures.len();
    for (key, t) in textures {
        bound_args.push((key, format!("texture {t}")));
    }
    let buffers: Vec<String> = bound_args.iter().map(|(_, b)| b.clone()).collect();
    // Two workgroups, unless the kernel's workgroups race with each other by design.
    let dispatch = match CROSS_WORKGROUP_RACES.iter().find(|(l, _)| *l == label) {
        Some((_, why)) => {
            tally.one_workgroup.push(format!("{label}: {why}"));
            "1"
        }
        None => "2",
    };
    let args = |engine: &str| run_args(file, &case.entry, dispatch, &buffers, engine);
    let strs = |v: &[String]| v.iter().map(String::as_str).collect::<Vec<_>>().join(" ");
    let interp = oxir(
        &args("interp")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    if interp.status.code() != Some(0) {
        let why = stderr(&interp);
        tally.skipped.push(format!(
            "{label}: the interpreter cannot run it: {}",
            why.lines().next().unwrap_or("")
        ));
        return;
    }
    // oxir's SPIR-V must pass spirv-val before the driver sees it.
    let spv = dir.join(format!("{}.spv", label.replace([':', '/'], "_")));
    let compiled = oxir(&[
        "compile",
        file,
        "--entry",
        &case.entry,
        "--target",
        "spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    if compiled.status.code() == Some(1) && stderr(&compiled).contains("unsupported") {
        tally.skipped.push(format!(
            "{label}: oxir-spirv refuses it: {}",
            stderr(&compiled).lines().next().unwrap_or("")
        ));
        return;
    }
    if !compiled.status.success() {
        tally.failures.push(format!(
            "{label}: oxir compile failed: {}",
            stderr(&compiled)
        ));
        return;
    }
    if let Err(e) = spirv_val(&spv) {
        tally.failures.push(format!("{label}: {e}"));
        return;
    }
    let vulkan_args = args("vulkan");
    let vulkan = oxir(&vulkan_args.iter().map(String::as_str).collect::<Vec<_>>());
    if vulkan.status.code() != Some(0) {
        tally.failures.push(format!(
            "{label}: oxir run {} failed: {}",
            strs(&vulkan_args),
            stderr(&vulkan)
        ));
        return;
    }
    if stdout(&vulkan).lines().count() != stdout(&interp).lines().count() {
        tally.failures.push(format!(
            "{label}: different JSON lines:\n{}\n{}",
            stdout(&interp),
            stdout(&vulkan)
        ));
        return;
    }
    // Words that change when the interpreter shuffles the invocation order within
    // workgroups depend on the order (races by design, or atomics): not compared.
    let mut expected = parse_lines(&stdout(&interp));
    let unstable = unstable_words(&args("interp"), &expected);
    let unstable_words: usize = unstable.values().map(Vec::len).sum();
    let bound = match imprecise(&text) {
        Some(_) => ULP_BOUND,
        None => 0,
    };
    let mut got = parse_lines(&stdout(&vulkan));
    mask(&mut expected, &mut got, &unstable);
    let max = match compare(
        &format!("{label} (oxir SPIR-V)"),
        &expected,
        &got,
        &inputs,
        bound,
    ) {
        Ok(m) => m,
        Err(e) => {
            tally.failures.push(e);
            return;
        }
    };
    if unstable_words > 0 {
        tally
            .order_dependent
            .push(format!("{label}: {unstable_words} words"));
    }
    if textured > 0 {
        tally.textured.push(format!("{label} ({textured})"));
        tally.seeded_textures += textured;
    }
    if stdout(&interp) == stdout(&vulkan) || (unstable_words > 0 && max == 0) {
        tally.exact += 1;
    } else {
        tally.bounded.push((label.clone(), max));
    }
    // `-O` on the GPU: the same bytes as `-O0` (order-dependent words masked).
    let mut optimized_args = vulkan_args.clone();
    optimized_args.push("-O".into());
    let optimized = oxir(
        &optimized_args
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    if optimized.status.code() != Some(0) {
        tally.failures.push(format!(
            "{label}: oxir run {} failed: {}",
            strs(&optimized_args),
            stderr(&optimized)
        ));
        return;
    }
    let mut o0 = parse_lines(&stdout(&vulkan));
    let mut o1 = parse_lines(&stdout(&optimized));
    mask(&mut o0, &mut o1, &unstable);
    if o0 != o1 {
        tally.failures.push(format!(
            "{label}: -O0 and -O differ on Vulkan:\n{}\n{}",
            stdout(&vulkan),
            stdout(&optimized)
        ));
        return;
    }
    tally.optimized_equal += 1;
    if ints == Ints::Any {
        // naga's bounds checks differ from WGSL's on atomics (see `naga_spirv`).
        return;
    }

    // The third path: naga's own SPIR-V, run as it is.
    let words = match naga_spirv(&case.file, &text, &case.entry) {
        Ok((_, true)) if OUT_OF_RANGE_BY_DESIGN.contains(&label.as_str()) => {
            tally.naga_skipped.push(format!(
                "{label}: naga's writer needs Restrict here (atomics), which clamps the \
                 shader's out-of-range indices instead of reading zero"
            ));
            return;
        }
        Ok((w, restrict)) => {
            if restrict {
                tally.naga_restrict.push(label.clone());
            }
            w
        }
        Err(e) => {
            tally
                .naga_skipped
                .push(format!("{label}: naga's writer fails: {e}"));
            return;
        }
    };
    let naga_spv = dir.join(format!("{}.naga.spv", label.replace([':', '/'], "_")));
    std::fs::write(&naga_spv, oxir_spirv::to_bytes(&words)).unwrap();
    if let Err(e) = spirv_val(&naga_spv) {
        tally
            .naga_skipped
            .push(format!("{label}: naga's SPIR-V fails spirv-val: {e}"));
        return;
    }
    let interface = match oxir_vulkan::reflect(&words) {
        Ok(i) => i,
        Err(e) => {
            tally
                .failures
                .push(format!("{label}: reflecting naga's SPIR-V: {e}"));
            return;
        }
    };
    let naga_buffers: Vec<String> = bound_args
        .iter()
        .filter(|(k, _)| interface.bindings.contains_key(k))
        .map(|(_, b)| b.clone())
        .collect();
    let naga_args = run_args(
        naga_spv.to_str().unwrap(),
        &case.entry,
        dispatch,
        &naga_buffers,
        "vulkan",
    );
    let naga = oxir(&naga_args.iter().map(String::as_str).collect::<Vec<_>>());
    if naga.status.code() != Some(0) {
        tally.failures.push(format!(
            "{label}: oxir run {} failed: {}",
            strs(&naga_args),
            stderr(&naga)
        ));
        return;
    }
    // naga declares only the globals the entry point uses; compare those.
    let mut got = parse_lines(&stdout(&naga));
    let mut expected: BTreeMap<_, _> = expected
        .into_iter()
        .filter(|(k, _)| got.contains_key(k))
        .collect();
    mask(&mut expected, &mut got, &unstable);
    for (l, key, first, step, why) in NAGA_DIFFERS {
        if *l == label {
            let words = expected.get(key).map_or(0, |b| b.len() / 4);
            let mut these = BTreeMap::new();
            these.insert(*key, (*first..words).step_by(*step).collect());
            mask(&mut expected, &mut got, &these);
            tally.naga_differs.push(format!(
                "{label}: binding {key:?} words {first}, {}, ...: {why}",
                first + step
            ));
        }
    }
    match compare(
        &format!("{label} (naga SPIR-V)"),
        &expected,
        &got,
        &inputs,
        bound,
    ) {
        Ok(m) => {
            tally.naga_compared += 1;
            if m > 0 {
                tally.bounded.push((format!("{label} (naga)"), m));
            }
        }
        Err(e) => tally.failures.push(e),
    }
}

#[test]
fn interp_vulkan_and_naga_spirv_agree() {
    if !vulkan_available("interp_vulkan_and_naga_spirv_agree") {
        return;
    }
    let started = std::time::Instant::now();
    let dir = temp_dir("agree");
    let mut tally = Tally::default();
    let cases = cases();
    for case in &cases {
        check(case, &dir, &mut tally, Ints::Small);
    }
    eprintln!(
        "vulkan: {} compute kernels; {} equal byte for byte, {} within the ULP bound, {} skipped; \
         -O equal to -O0 on {}; naga's SPIR-V compared on {} ({} skipped); {:.1} s",
        cases.len(),
        tally.exact,
        tally
            .bounded
            .iter()
            .filter(|(l, _)| !l.ends_with("(naga)"))
            .count(),
        tally.skipped.len(),
        tally.optimized_equal,
        tally.naga_compared,
        tally.naga_skipped.len(),
        started.elapsed().as_secs_f64()
    );
    for (label, max) in &tally.bounded {
        eprintln!("  within {ULP_BOUND} ULPs: {label}: max {max} ULPs");
    }
    eprintln!(
        "  compared with seeded textures ({} kernels, {} textures): {}",
        tally.textured.len(),
        tally.seeded_textures,
        tally.textured.join(", ")
    );
    for s in &tally.order_dependent {
        eprintln!("  order-dependent words (change under interp --shuffle), not compared: {s}");
    }
    for s in &tally.one_workgroup {
        eprintln!("  run with one workgroup (workgroups race by design): {s}");
    }
    if !tally.naga_restrict.is_empty() {
        eprintln!(
            "  naga's SPIR-V with Restrict bounds checks (its ReadZeroSkipWrite does not handle \
             atomics; in-bounds inputs make them agree): {}",
            tally.naga_restrict.join(", ")
        );
    }
    for s in &tally.naga_differs {
        eprintln!("  naga differs by design, not compared: {s}");
    }
    for s in tally.skipped.iter().chain(&tally.naga_skipped) {
        eprintln!("  skipped: {s}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
    assert!(
        tally.exact >= 5,
        "only {} kernels compared exactly",
        tally.exact
    );
    assert!(
        tally.optimized_equal >= 5,
        "only {} kernels compared at -O",
        tally.optimized_equal
    );
}

/// WGSL's bounds guarantee on the GPU: every compute kernel of the project's shaders and
/// of the corpus, run with seeded random buffer contents whose integer words are any
/// 32-bit pattern (so data-dependent indices go out of range), gives the interpreter's
/// bytes on lavapipe through oxir's SPIR-V (default `read-zero-skip-write` bounds checks;
/// floats of imprecise built-ins within the ULP bound, order-dependent words masked as in
/// [`interp_vulkan_and_naga_spirv_agree`]). Every run is a child process, so a crash is a
/// failure naming the kernel, not a crash of this test.
#[test]
fn seeded_random_buffers_agree_out_of_range_included() {
    if !vulkan_available("seeded_random_buffers_agree_out_of_range_included") {
        return;
    }
    let started = std::time::Instant::now();
    let dir = temp_dir("random-buffers");
    let mut tally = Tally::default();
    let cases = cases();
    for case in &cases {
        check(case, &dir, &mut tally, Ints::Any);
    }
    let compared = tally.exact + tally.bounded.len();
    eprintln!(
        "random buffers: {} compute kernels; {compared} compared ({} byte for byte, {} within \
         the ULP bound), {} skipped; {:.1} s",
        cases.len(),
        tally.exact,
        tally.bounded.len(),
        tally.skipped.len(),
        started.elapsed().as_secs_f64()
    );
    for s in &tally.skipped {
        eprintln!("  skipped: {s}");
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
    assert!(compared >= 10, "only {compared} kernels compared");
}

/// Exit codes and messages of `--engine vulkan`: garbage `.spv` and unknown devices are
/// exit 1, interpreter-only options exit 2, a missing loader exit 1; a `.spv` runs on both
/// engines (the interpreter through naga's SPIR-V front-end) with the same output.
#[test]
fn vulkan_engine_errors_and_spv_input() {
    let clamp = path("examples/clamp_scale.wgsl");
    let base = [
        "run",
        clamp.as_str(),
        "--dispatch",
        "1",
        "--engine",
        "vulkan",
    ];
    let with = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        oxir(&a)
    };
    for extra in [
        &["--shuffle", "1"][..],
        &["--max-instructions", "10"],
        &["--strict-bounds"],
    ] {
        let out = with(extra);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("interpreter option"),
            "{}",
            stderr(&out)
        );
    }
    // --device only with --engine vulkan.
    let out = oxir(&["run", &clamp, "--dispatch", "1", "--device", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A missing loader is exit 1 with what to install.
    let out = Command::new(env!("CARGO_BIN_EXE_oxir"))
        .args(base)
        .env("OXIR_VULKAN_LOADER", "/nonexistent/libvulkan.so")
        .output()
        .unwrap();
    assert_exit(
        &out,
        1,
        "no Vulkan loader (libvulkan.so.1) found: install libvulkan1",
    );
    // Garbage and truncated SPIR-V: exit 1 naming the problem, before any device is needed.
    let dir = temp_dir("errors");
    let garbage = dir.join("garbage.spv");
    std::fs::write(&garbage, b"this is not SPIR-V at all").unwrap();
    let out = oxir(&[
        "run",
        garbage.to_str().unwrap(),
        "--dispatch",
        "1",
        "--engine",
        "vulkan",
    ]);
    assert_exit(&out, 1, "malformed SPIR-V");
    let spv = dir.join("clamp.spv");
    let compiled = oxir(&[
        "compile",
        &clamp,
        "--target",
        "spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let bytes = std::fs::read(&spv).unwrap();
    let truncated = dir.join("truncated.bin");
    std::fs::write(&truncated, &bytes[..bytes.len() - 12]).unwrap();
    // Detected by the magic number, not the extension.
    let out = oxir(&[
        "run",
        truncated.to_str().unwrap(),
        "--dispatch",
        "1",
        "--engine",
        "vulkan",
    ]);
    assert_exit(&out, 1, "malformed SPIR-V");

    if !vulkan_available("vulkan_engine_errors_and_spv_input") {
        return;
    }
    let out = with(&["--device", "no-such-device"]);
    assert_exit(
        &out,
        1,
        "no Vulkan device matches `no-such-device`; devices: 0: ",
    );
    let out = with(&["--device", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The .spv on both engines, and the WGSL on the interpreter: the same lines.
    let buffers = [
        "--buffer",
        "0:0=f32:2,3,5",
        "--buffer",
        "0:1=f32:1,2,3,4",
        "--view",
        "0:1=f32",
    ];
    let run = |input: &str, engine: &str| {
        let mut a = vec!["run", input, "--dispatch", "1", "--engine", engine];
        a.extend_from_slice(&buffers);
        let out = oxir(&a);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{input} {engine}: {}",
            stderr(&out)
        );
        stdout(&out)
    };
    let expected = "{\"group\":0,\"binding\":1,\"size\":16,\"hex\":\"00000040000080400000a0400000a040\",\"values\":[2.0,4.0,5.0,5.0]}\n";
    assert_eq!(run(&clamp, "interp"), expected);
    assert_eq!(run(&clamp, "vulkan"), expected);
    assert_eq!(run(spv.to_str().unwrap(), "vulkan"), expected);
    assert_eq!(run(spv.to_str().unwrap(), "interp"), expected);
    // Unset bindings of a .spv get the reflected minimum size (runtime arrays: --default-size).
    let out = oxir(&[
        "run",
        spv.to_str().unwrap(),
        "--dispatch",
        "1",
        "--engine",
        "vulkan",
        "--default-size",
        "64",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"size\":64"), "{}", stdout(&out));
    // -O does not apply to a .spv (its bytes run as they are).
    let out = oxir(&[
        "run",
        spv.to_str().unwrap(),
        "--dispatch",
        "1",
        "--engine",
        "vulkan",
        "-O",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A multisampled texture: 4 samples unless `--texture G:B=WxHsN` says otherwise, all
    // zero, the same on both engines (the output starts at 0xff bytes so zero is written).
    let ms = dir.join("multisampled.wgsl");
    std::fs::write(
        &ms,
        "@group(0) @binding(0) var t: texture_multisampled_2d<f32>;\n\
         @group(0) @binding(1) var<storage, read_write> o: array<u32>;\n\
         @compute @workgroup_size(1) fn main() {\n\
         o[0] = bitcast<u32>(textureLoad(t, vec2<i32>(1, 0), 3).x);\n\
         o[1] = textureNumSamples(t);\n\
         o[2] = textureDimensions(t).x; }\n",
    )
    .unwrap();
    let ms_run = |engine: &str, texture: Option<&str>| {
        let mut a = vec![
            "run",
            ms.to_str().unwrap(),
            "--dispatch",
            "1",
            "--engine",
            engine,
            "--buffer",
            "0:1=u32:4294967295,4294967295,4294967295",
            "--view",
            "0:1=u32",
        ];
        if let Some(t) = texture {
            a.extend(["--texture", t]);
        }
        oxir(&a)
    };
    for (texture, values) in [(None, "[0,4,1]"), (Some("0:0=2x1s4"), "[0,4,2]")] {
        let outs: Vec<String> = ["interp", "vulkan"]
            .iter()
            .map(|engine| {
                let out = ms_run(engine, texture);
                assert_eq!(out.status.code(), Some(0), "{engine}: {}", stderr(&out));
                assert!(
                    stdout(&out).contains(&format!("\"values\":{values}")),
                    "{engine} {texture:?}: {}",
                    stdout(&out)
                );
                stdout(&out)
            })
            .collect();
        assert_eq!(outs[0], outs[1], "{texture:?}");
    }
    // A sample count that is not a power of two in 2..=64, or one on a texture that is not
    // multisampled: usage errors on both engines.
    let flat = dir.join("flat.wgsl");
    std::fs::write(
        &flat,
        "@group(0) @binding(0) var t: texture_2d<f32>;\n\
         @group(0) @binding(1) var<storage, read_write> o: array<f32>;\n\
         @compute @workgroup_size(1) fn main() { o[0] = textureLoad(t, vec2<i32>(0), 0).x; }\n",
    )
    .unwrap();
    for engine in ["interp", "vulkan"] {
        let out = ms_run(engine, Some("0:0=2x1s3"));
        assert_eq!(out.status.code(), Some(2), "{engine}: {}", stderr(&out));
        assert!(stderr(&out).contains("sample count"), "{}", stderr(&out));
        let out = oxir(&[
            "run",
            flat.to_str().unwrap(),
            "--dispatch",
            "1",
            "--engine",
            engine,
            "--texture",
            "0:0=2x1s4",
        ]);
        assert_eq!(out.status.code(), Some(2), "{engine}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not multisampled"),
            "{}",
            stderr(&out)
        );
    }

    // A dispatch that runs too long is exit 1 naming OXIR_VULKAN_TIMEOUT_MS. (lavapipe
    // stops any loop after 65535 iterations, so it takes many workgroups to be slow.)
    let spin = dir.join("spin.wgsl");
    std::fs::write(
        &spin,
        "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n\
         @compute @workgroup_size(1) fn main() {\n\
         var i = 0u;\n\
         loop { if data[0] == 12345u { break; } i = i + 1u; data[1] = i; }\n\
         }\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_oxir"))
        .args([
            "run",
            spin.to_str().unwrap(),
            "--dispatch",
            "65535",
            "--engine",
            "vulkan",
            "--default-size",
            "8",
        ])
        .env("OXIR_VULKAN_TIMEOUT_MS", "200")
        .output()
        .unwrap();
    assert_exit(&out, 1, "did not finish within 200 ms");
}

/// Textures on both engines: `--texture` sizes, storage textures printed as JSON lines in
/// binding order with the same bytes, known answers computed here by hand, and the usage
/// errors of `--texture`.
/// Each argument list is a usage error (exit 2, no device needed) naming `why`, on both
/// engines.
fn usage_errors_on_both_engines(
    run: &dyn Fn(&str, &[&str]) -> std::process::Output,
    cases: &[(&[&str], &str)],
) {
    for &(bad, why) in cases {
        for engine in ["interp", "vulkan"] {
            let out = run(engine, bad);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{bad:?} {engine}: {}",
                stderr(&out)
            );
            assert!(stderr(&out).contains(why), "{bad:?}: {}", stderr(&out));
        }
    }
}

#[test]
fn storage_textures_on_both_engines() {
    let file = path("tests/shaders/textures.wgsl");
    let run = |engine: &str, extra: &[&str]| {
        let mut a = vec![
            "run",
            file.as_str(),
            "--entry",
            "write_images",
            "--dispatch",
            "1",
            "--engine",
            engine,
        ];
        a.extend_from_slice(extra);
        oxir(&a)
    };
    let sizes = [
        "--texture",
        "1:0=3x2",
        "--texture",
        "1:1=3x2",
        "--texture",
        "1:2=3x2x2",
        "--texture",
        "0:0=3x2",
    ];
    // Usage errors (exit 2) need no device.
    usage_errors_on_both_engines(
        &run,
        &[
            (&["--texture", "1:1=3"], "expected G:B=WxH[xL]"),
            (&["--texture", "1:1=0x2"], "every side must be"),
            (&["--texture", "0:7=2x2"], "no texture binding 0:7"),
            (&["--texture", "1:1=2x2x3"], "one layer"),
        ],
    );
    // A 1D storage texture and a cube: shapes checked against the declaration; the cube
    // runs on Vulkan (the interpreter does not sample cubes).
    let dir = temp_dir("textures");
    let cube = dir.join("cube.wgsl");
    std::fs::write(
        &cube,
        "@group(0) @binding(0) var line: texture_storage_1d<r32uint, write>;\n\
         @group(0) @binding(1) var sky: texture_cube<f32>;\n\
         @group(0) @binding(2) var s: sampler;\n\
         @compute @workgroup_size(4) fn main(@builtin(global_invocation_id) id: vec3<u32>) {\n\
         let v = textureSampleLevel(sky, s, vec3<f32>(1.0, 0.0, 0.0), 0.0);\n\
         textureStore(line, id.x, vec4<u32>(id.x * 3u + u32(v.x)));\n\
         }\n",
    )
    .unwrap();
    let cube = cube.to_str().unwrap();
    let run_cube = |engine: &str, extra: &[&str]| {
        let mut a = vec!["run", cube, "--dispatch", "1", "--engine", engine];
        a.extend_from_slice(extra);
        oxir(&a)
    };
    usage_errors_on_both_engines(
        &run_cube,
        &[
            (&["--texture", "0:0=4x2"], "height 1"),
            (&["--texture", "0:1=4x2x6"], "square"),
            (&["--texture", "0:1=4x4x12"], "6 layers"),
            (&["--texture", "0:2=1x1"], "no texture binding 0:2"),
        ],
    );
    let out = run_cube("interp", &["--texture", "0:0=4x1"]);
    assert_exit(&out, 1, "unsupported");

    let interp = run("interp", &sizes);
    assert_eq!(interp.status.code(), Some(0), "{}", stderr(&interp));
    // 8x8 invocations over 3x2 textures: every texel of `counts` (r32uint, zero) is
    // incremented once; `output` (rgba8unorm) gets zero texels; the read-only array is
    // printed unchanged (two zero layers of 16-byte texels).
    let text = stdout(&interp);
    let lines: Vec<&str> = text.lines().collect::<Vec<_>>();
    let zeros = |n: usize| "0".repeat(2 * n);
    assert_eq!(
        lines,
        [
            format!(
                "{{\"group\":1,\"binding\":0,\"texture\":[3,2,1],\"format\":\"rgba8unorm\",\"hex\":\"{}\"}}",
                zeros(24)
            ),
            format!(
                "{{\"group\":1,\"binding\":1,\"texture\":[3,2,1],\"format\":\"r32uint\",\"hex\":\"{}\"}}",
                "01000000".repeat(6)
            ),
            format!(
                "{{\"group\":1,\"binding\":2,\"texture\":[3,2,2],\"format\":\"rgba32float\",\"hex\":\"{}\"}}",
                zeros(192)
            ),
        ]
    );
    if !vulkan_available("storage_textures_on_both_engines") {
        return;
    }
    let vulkan = run("vulkan", &sizes);
    assert_eq!(vulkan.status.code(), Some(0), "{}", stderr(&vulkan));
    assert_eq!(stdout(&vulkan), stdout(&interp));
    let out = run_cube(
        "vulkan",
        &["--texture", "0:0=4x1", "--texture", "0:1=2x2x6"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "{\"group\":0,\"binding\":0,\"texture\":[4,1,1],\"format\":\"r32uint\",\"hex\":\"00000000030000000600000009000000\"}\n"
    );
    // A kernel that writes a different value into every texel (the wgpu example's
    // Mandelbrot set), as oxir's SPIR-V and as a .spv file.
    let Some(corpus) = corpus_dir() else {
        eprintln!("SKIPPED the corpus part of storage_textures_on_both_engines: no shared/corpus");
        return;
    };
    let mandel = corpus.join("wgpu-examples/storage_texture_shader.wgsl");
    let mandel = mandel.to_str().unwrap();
    let spv = dir.join("mandel.spv");
    let compiled = oxir(&[
        "compile",
        mandel,
        "--target",
        "spirv",
        "-o",
        spv.to_str().unwrap(),
    ]);
    assert!(compiled.status.success(), "{}", stderr(&compiled));
    let go = |input: &str, engine: &str| {
        let out = oxir(&[
            "run",
            input,
            "--dispatch",
            "6,4",
            "--engine",
            engine,
            "--texture",
            "0:0=6x4",
        ]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{input} {engine}: {}",
            stderr(&out)
        );
        stdout(&out)
    };
    let expected = go(mandel, "interp");
    let texels = parse_lines(&expected)[&(0, 0)].len() / 4;
    assert_eq!(texels, 24);
    let image = parse_lines(&expected)[&(0, 0)].clone();
    let distinct: std::collections::BTreeSet<&[u8]> = image.chunks(4).collect();
    assert!(distinct.len() > 2, "{expected}");
    assert_eq!(go(mandel, "vulkan"), expected);
    assert_eq!(go(spv.to_str().unwrap(), "vulkan"), expected);
}

/// A kernel that copies every texel (every layer, every sample) of seeded textures into a
/// buffer, and writes one texel of a seeded storage texture.
const SEEDED_KERNEL: &str = "\
@group(0) @binding(0) var a: texture_2d_array<f32>;
@group(0) @binding(1) var b: texture_2d<i32>;
@group(0) @binding(2) var m: texture_multisampled_2d<u32>;
@group(0) @binding(3) var d: texture_depth_2d;
@group(0) @binding(4) var<storage, read_write> o: array<u32>;
@group(0) @binding(5) var s: texture_storage_2d<rgba8unorm, write>;
fn put(i: u32, v: vec4<u32>) { o[i] = v.x; o[i + 1u] = v.y; o[i + 2u] = v.z; o[i + 3u] = v.w; }
@compute @workgroup_size(1) fn main() {
  var i = 0u;
  for (var l = 0; l < 2; l++) { for (var y = 0; y < 2; y++) { for (var x = 0; x < 3; x++) {
    put(i, bitcast<vec4<u32>>(textureLoad(a, vec2<i32>(x, y), l, 0))); i += 4u;
  } } }
  for (var y = 0; y < 3; y++) { for (var x = 0; x < 2; x++) {
    put(i, bitcast<vec4<u32>>(textureLoad(b, vec2<i32>(x, y), 0))); i += 4u;
  } }
  for (var y = 0; y < 2; y++) { for (var x = 0; x < 2; x++) { for (var k = 0; k < 4; k++) {
    put(i, textureLoad(m, vec2<i32>(x, y), k)); i += 4u;
  } } }
  for (var x = 0; x < 3; x++) { o[i] = bitcast<u32>(textureLoad(d, vec2<i32>(x, 0), 0)); i += 1u; }
  textureStore(s, vec2<i32>(1, 1), vec4<f32>(1.0, 0.0, 1.0, 0.0));
}
";

/// The seeded-contents specification of `oxir run --texture ...:seed=S`, written out here
/// from the documentation (not the code under test): splitmix64 from `S`, one draw `v` per
/// stored channel in memory order; f32 channels `((v & 511) - 256) / 64`, 32-bit integer
/// channels the low 32 bits, depth `(v % 257) / 256`, `rgba8unorm` bytes `v & 255`; a
/// multisampled texture holds its first drawn texel in every sample.
fn seeded_words(seed: u64, texels: usize, channels: usize, f: impl Fn(u64) -> u32) -> Vec<u32> {
    let mut state = seed;
    (0..texels * channels)
        .map(|_| f(vulkan_support::next(&mut state)))
        .collect()
}

#[test]
fn seeded_textures_read_the_same_on_both_engines() {
    let dir = temp_dir("seeded");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("seeded.wgsl");
    std::fs::write(&file, SEEDED_KERNEL).unwrap();
    let float = |v: u64| (((v & 511) as i32 - 256) as f32 / 64.0).to_bits();
    let mut want: Vec<u32> = seeded_words(11, 12, 4, float);
    want.extend(seeded_words(12, 6, 4, |v| v as u32));
    let ms = seeded_words(13, 1, 4, |v| v as u32);
    for _ in 0..2 * 2 * 4 {
        want.extend(&ms);
    }
    want.extend(seeded_words(14, 3, 1, |v| {
        ((v % 257) as f32 / 256.0).to_bits()
    }));
    let want: Vec<u8> = want.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut storage: Vec<u8> = seeded_words(15, 4, 4, |v| (v & 255) as u32)
        .into_iter()
        .map(|b| b as u8)
        .collect();
    storage[12..16].copy_from_slice(&[255, 0, 255, 0]);
    // The generator's values are not all alike (a test of zeros would pass on zeros).
    assert!(want.chunks(4).filter(|w| *w == [0; 4]).count() < 4);
    let run = |engine: &str| {
        oxir(&[
            "run",
            file.to_str().unwrap(),
            "--dispatch",
            "1",
            "--engine",
            engine,
            "--texture",
            "0:0=3x2x2:seed=11",
            "--texture",
            "0:1=2x3:seed=12",
            "--texture",
            "0:2=2x2s4:seed=13",
            "--texture",
            "0:3=3x1:seed=14",
            "--texture",
            "0:5=2x2:seed=15",
            "--buffer",
            &format!("0:4=zero:{}", want.len()),
        ])
    };
    let mut engines = vec!["interp"];
    if vulkan_available("seeded_textures_read_the_same_on_both_engines") {
        engines.push("vulkan");
    }
    let mut outs = Vec::new();
    for engine in engines {
        let out = run(engine);
        assert_eq!(out.status.code(), Some(0), "{engine}: {}", stderr(&out));
        let lines = parse_lines(&stdout(&out));
        assert_eq!(lines[&(0, 4)], want, "{engine}: the copied texels");
        assert_eq!(lines[&(0, 5)], storage, "{engine}: the storage texture");
        outs.push(stdout(&out));
    }
    if outs.len() == 2 {
        assert_eq!(outs[0], outs[1]);
    }
    // Bad `:seed=` syntax is a usage error on both engines.
    let file = file.to_str().unwrap().to_string();
    let bad_run = |engine: &str, extra: &[&str]| {
        let mut a = vec!["run", &file, "--dispatch", "1", "--engine", engine];
        a.extend_from_slice(extra);
        oxir(&a)
    };
    usage_errors_on_both_engines(
        &bad_run,
        &[
            (&["--texture", "0:0=3x2x2:sead=1"], "expected `:seed=S`"),
            (&["--texture", "0:0=3x2x2:seed=-1"], "expected `:seed=S`"),
            (&["--texture", "0:0=3x2x2:seed="], "expected `:seed=S`"),
            (
                &["--texture", "0:0=3x2x2:seed=1:seed=2"],
                "expected `:seed=S`",
            ),
            (
                &["--texture", "0:0=3x2x2seed=1"],
                "expected G:B=WxH[xL][sN][:seed=S]",
            ),
        ],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Float → integer conversion at the special values, where the SPIR-V writer's `NClamp`
/// sequence must give the IR's rule (NaN → 0, saturation to MIN / MAX, truncation toward
/// zero) on the device: known answers on both engines.
#[test]
fn float_to_int_conversion_at_special_values() {
    let dir = temp_dir("float_to_int");
    std::fs::create_dir_all(&dir).unwrap();
    let shader = dir.join("conv.wgsl");
    std::fs::write(
        &shader,
        "@group(0) @binding(0) var<storage, read> src: array<f32, 12>;\n\
         @group(0) @binding(1) var<storage, read_write> si: array<i32, 12>;\n\
         @group(0) @binding(2) var<storage, read_write> su: array<u32, 12>;\n\
         @compute @workgroup_size(12)\n\
         fn main(@builtin(local_invocation_index) i: u32) {\n\
             si[i] = i32(src[i]);\n\
             su[i] = u32(src[i]);\n\
         }\n",
    )
    .unwrap();
    let cases: [(f32, i32, u32); 12] = [
        (f32::NAN, 0, 0),
        (f32::INFINITY, i32::MAX, u32::MAX),
        (f32::NEG_INFINITY, i32::MIN, 0),
        (2147483648.0, i32::MAX, 2147483648),
        (2147483520.0, 2147483520, 2147483520),
        (-2147483648.0, i32::MIN, 0),
        (-2147483904.0, i32::MIN, 0),
        (4294967296.0, i32::MAX, u32::MAX),
        (4294967040.0, i32::MAX, 4294967040),
        (-0.5, 0, 0),
        (-1.5, -1, 0),
        (3.75, 3, 3),
    ];
    let input = dir.join("src.bin");
    let bytes: Vec<u8> = cases.iter().flat_map(|c| c.0.to_le_bytes()).collect();
    std::fs::write(&input, bytes).unwrap();
    let hex = |words: Vec<[u8; 4]>| {
        words
            .concat()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let want_i = hex(cases.iter().map(|c| c.1.to_le_bytes()).collect());
    let want_u = hex(cases.iter().map(|c| c.2.to_le_bytes()).collect());
    let mut engines = vec!["interp"];
    if vulkan_available("float_to_int_conversion_at_special_values") {
        engines.push("vulkan");
    }
    for engine in engines {
        for opt in ["-O0", "-O"] {
            let src = format!("0:0=@{}", input.display());
            let out = oxir(&[
                "run",
                shader.to_str().unwrap(),
                "--dispatch",
                "1",
                "--engine",
                engine,
                opt,
                "--buffer",
                &src,
                "--buffer",
                "0:1=zero:48",
                "--buffer",
                "0:2=zero:48",
            ]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{engine} {opt}: {}",
                stderr(&out)
            );
            let text = stdout(&out);
            assert!(text.contains(&want_i), "{engine} {opt}: i32 {text}");
            assert!(text.contains(&want_u), "{engine} {opt}: u32 {text}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
