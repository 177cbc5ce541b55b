//! `oxir run --engine llvm`: the LLVM back-end's host target, run on this CPU, against the
//! interpreter, on every compute kernel of the project's shaders and of the shared corpus
//! that the Vulkan equality test runs (the same kernels, inputs, dispatches and masking of
//! order-dependent words: `kernel_cases`), at `-O0` and `-O`. Integer words compare
//! exactly, float words too unless the shader uses a built-in whose precision is the
//! driver's (then within the Vulkan test's ULP bound). Kernels the host engine refuses
//! (textures) are listed with the reason. Plus a workgroup reduction that needs real
//! barriers, atomics, refusals and usage errors, and the timeout of a kernel that never
//! returns.
//!
//! Without `llc-22` (or `OXIR_LLC`) and a C compiler the tests skip with a message, and
//! fail when `OXIR_REQUIRE_LLVM=1`.

mod common;
mod kernel_cases;
mod vulkan_support;

use common::{assert_exit, oxir, stderr, stdout};
use kernel_cases::{
    cases, imprecise, run_args, seed_of, source_of, unstable_words, Case, CROSS_WORKGROUP_RACES,
    ULP_BOUND,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use vulkan_support::{compare, inputs, mask, parse_lines, Ints};

fn runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn llvm_available(test: &str) -> bool {
    let llc = std::env::var("OXIR_LLC").unwrap_or_else(|_| "llc-22".into());
    let cc = std::env::var("OXIR_CC").unwrap_or_else(|_| "cc".into());
    if runs(&llc) && runs(&cc) {
        return true;
    }
    if std::env::var("OXIR_REQUIRE_LLVM").as_deref() == Ok("1") {
        panic!("{test}: OXIR_REQUIRE_LLVM=1 but {llc} or {cc} does not run");
    }
    eprintln!("SKIPPED {test}: no {llc} or no {cc}");
    false
}

fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxir-llvm-host-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[derive(Default)]
struct Tally {
    compared: usize,
    exact: usize,
    bounded: Vec<(String, u32)>,
    refused: Vec<String>,
    skipped: Vec<String>,
    order_dependent: Vec<String>,
    failures: Vec<String>,
}

const LEVELS: [&str; 2] = ["-O0", "-O"];

fn check(case: &Case, dir: &Path, tally: &mut Tally, ints: Ints) {
    let label = case.label();
    let file = case.file.to_str().unwrap();
    let text = std::fs::read_to_string(&case.file).unwrap();
    let options = oxir_naga::LowerOptions {
        entry_point: Some(case.entry.clone()),
        ..Default::default()
    };
    let Ok(module) = oxir_naga::compile(source_of(&case.file, &text), file, &options) else {
        tally
            .skipped
            .push(format!("{label}: the front-end rejects it"));
        return;
    };
    let inputs = inputs(&module, seed_of(&label), ints);
    let mut buffers = Vec::new();
    for ((g, b), input) in &inputs {
        let f = dir.join(format!("{}-{g}-{b}.bin", label.replace([':', '/'], "_")));
        std::fs::write(&f, &input.bytes).unwrap();
        buffers.push(format!("{g}:{b}=@{}", f.display()));
    }
    let dispatch = match CROSS_WORKGROUP_RACES.iter().any(|(l, _)| *l == label) {
        true => "1",
        false => "2",
    };
    let args = |engine: &str| run_args(file, &case.entry, dispatch, &buffers, engine);
    let run = |a: &[String]| oxir(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let interp = run(&args("interp"));
    if interp.status.code() != Some(0) {
        let why = stderr(&interp);
        tally.skipped.push(format!(
            "{label}: the interpreter cannot run it: {}",
            why.lines().next().unwrap_or("")
        ));
        return;
    }
    let expected = parse_lines(&stdout(&interp));
    let unstable = unstable_words(&args("interp"), &expected);
    let unstable_count: usize = unstable.values().map(Vec::len).sum();
    if unstable_count > 0 {
        tally
            .order_dependent
            .push(format!("{label}: {unstable_count} words"));
    }
    let bound = imprecise(&text).map_or(0, |_| ULP_BOUND);
    for level in LEVELS {
        let mut a = args("llvm");
        a.push(level.to_string());
        let host = run(&a);
        if host.status.code() == Some(1) && stderr(&host).contains("unsupported") {
            tally.refused.push(format!(
                "{label} {level}: {}",
                stderr(&host).lines().next().unwrap_or("")
            ));
            continue;
        }
        if host.status.code() != Some(0) {
            tally.failures.push(format!(
                "{label} {level}: oxir run --engine llvm failed: {}",
                stderr(&host)
            ));
            continue;
        }
        let mut want = expected.clone();
        let mut got = parse_lines(&stdout(&host));
        mask(&mut want, &mut got, &unstable);
        match compare(&format!("{label} {level}"), &want, &got, &inputs, bound) {
            Ok(0) => {
                tally.compared += 1;
                tally.exact += 1;
            }
            Ok(max) => {
                tally.compared += 1;
                tally.bounded.push((format!("{label} {level}"), max));
            }
            Err(e) => tally.failures.push(e),
        }
    }
}

#[test]
fn host_engine_matches_the_interpreter() {
    equality("host_engine_matches_the_interpreter", Ints::Small);
}

/// The bounds checks on the host: integer words of the inputs are any 32-bit pattern, so
/// data-dependent indices go out of range; the checked code still gives the interpreter's
/// robust-mode bytes (`tests/shaders/bounds.wgsl` is among the kernels).
#[test]
fn host_engine_matches_the_interpreter_out_of_range_included() {
    equality(
        "host_engine_matches_the_interpreter_out_of_range_included",
        Ints::Any,
    );
}

fn equality(test: &str, ints: Ints) {
    if !llvm_available(test) {
        return;
    }
    let started = std::time::Instant::now();
    let dir = temp_dir(test);
    let mut tally = Tally::default();
    let all = cases();
    for case in &all {
        check(case, &dir, &mut tally, ints);
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "llvm host ({ints:?} integers): {} kernels; {} runs compared at -O0 and -O: {} equal byte for byte, {} within \
         {ULP_BOUND} ULPs; {} refused; {} skipped; {:.1} s",
        all.len(),
        tally.compared,
        tally.exact,
        tally.bounded.len(),
        tally.refused.len(),
        tally.skipped.len(),
        started.elapsed().as_secs_f64()
    );
    for (label, max) in &tally.bounded {
        eprintln!("  within the bound: {label}: max {max} ULPs");
    }
    for r in &tally.refused {
        eprintln!("  refused: {r}");
    }
    for s in &tally.skipped {
        eprintln!("  skipped: {s}");
    }
    for o in &tally.order_dependent {
        eprintln!("  order-dependent words not compared: {o}");
    }
    assert!(
        tally.failures.is_empty(),
        "{} failures:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
    // The project's shaders without textures run (two levels each).
    assert!(
        tally.compared >= 16,
        "only {} runs compared",
        tally.compared
    );
}

/// Writes `text` to a `.wgsl` file in `dir` and runs it on the host engine at `level`.
fn run_wgsl(dir: &Path, name: &str, text: &str, dispatch: &str, level: &str) -> Vec<u32> {
    let file = dir.join(format!("{name}.wgsl"));
    std::fs::write(&file, text).unwrap();
    let out = oxir(&[
        "run",
        file.to_str().unwrap(),
        "--dispatch",
        dispatch,
        "--engine",
        "llvm",
        level,
    ]);
    assert_exit(&out, 0, "");
    let lines = parse_lines(&stdout(&out));
    lines
        .values()
        .flat_map(|b| {
            b.chunks(4)
                .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        })
        .collect()
}

/// A tree reduction through workgroup memory: each invocation stores, waits, and adds its
/// partner's value, with later invocations slowed down so that a barrier that did not wait
/// for them would read values not yet written. The per-workgroup atomic counter must read
/// 64: workgroup memory is shared by the workgroup and zeroed before the next one.
const REDUCTION: &str = "
@group(0) @binding(0) var<storage, read_write> sums: array<u32, 3>;
@group(0) @binding(1) var<storage, read_write> counts: array<u32, 3>;
var<workgroup> partial: array<u32, 64>;
var<workgroup> arrived: atomic<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    var slow = i * 2000u;
    var x = i;
    loop {
        if slow == 0u { break; }
        x = x * 1664525u + 1013904223u;
        slow = slow - 1u;
    }
    partial[i] = i + 1u + wg.x * 64u + (x & 0u);
    atomicAdd(&arrived, 1u);
    workgroupBarrier();
    var stride = 32u;
    loop {
        if stride == 0u { break; }
        if i < stride {
            partial[i] = partial[i] + partial[i + stride];
        }
        workgroupBarrier();
        stride = stride / 2u;
    }
    if i == 0u {
        sums[wg.x] = partial[0];
        counts[wg.x] = atomicLoad(&arrived);
    }
}
";

#[test]
fn barriers_synchronise_the_workgroup() {
    if !llvm_available("barriers_synchronise_the_workgroup") {
        return;
    }
    let dir = temp_dir("barrier");
    for level in LEVELS {
        let words = run_wgsl(&dir, "reduce", REDUCTION, "3", level);
        // sum over k in 1..=64 of (k + 64 w) = 2080 + 4096 w.
        assert_eq!(
            words,
            vec![2080, 6176, 10272, 64, 64, 64],
            "{level}: sums then counts"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The subgroup registers, no subgroup operations: the host engine's subgroups are runs
/// of 32 consecutive local indices, and a workgroup of 80 has a partial third one.
const SUBGROUP_REGISTERS: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<u32, 160>;

@compute @workgroup_size(80)
fn main(
    @builtin(global_invocation_id) id: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_id) sid: u32,
    @builtin(num_subgroups) n: u32,
) {
    out[id.x] = lane | (size << 8u) | (sid << 16u) | (n << 24u);
}
";

#[test]
fn subgroup_registers_on_the_host() {
    if !llvm_available("subgroup_registers_on_the_host") {
        return;
    }
    let dir = temp_dir("subgroup-registers");
    let expect: Vec<u32> = (0..160u32)
        .map(|g| {
            let local = g % 80;
            (local % 32) | (32 << 8) | ((local / 32) << 16) | (3 << 24)
        })
        .collect();
    for level in LEVELS {
        let words = run_wgsl(&dir, "registers", SUBGROUP_REGISTERS, "2", level);
        assert_eq!(words, expect, "{level}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

const ATOMICS: &str = "
struct Totals { count: atomic<u32>, max: atomic<u32>, min: atomic<i32>, bins: array<atomic<u32>, 8> }
@group(0) @binding(0) var<storage, read_write> t: Totals;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    atomicAdd(&t.count, 1u);
    atomicMax(&t.max, id.x);
    atomicMin(&t.min, -i32(id.x));
    atomicAdd(&t.bins[id.x % 8u], 1u);
}
";

#[test]
fn atomics_from_every_invocation() {
    if !llvm_available("atomics_from_every_invocation") {
        return;
    }
    let dir = temp_dir("atomics");
    for level in LEVELS {
        let words = run_wgsl(&dir, "atomics", ATOMICS, "4", level);
        // 4 workgroups of 32: 128 invocations, ids 0..=127, 16 in each of 8 bins.
        let mut want = vec![128, 127, (-127i32) as u32];
        want.extend([16; 8]);
        assert_eq!(words, want, "{level}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn host_engine_refuses_what_it_cannot_run() {
    if !llvm_available("host_engine_refuses_what_it_cannot_run") {
        return;
    }
    let textures = common::path("tests/shaders/textures.wgsl");
    let out = oxir(&["run", &textures, "--dispatch", "1", "--engine", "llvm"]);
    assert_exit(&out, 1, "unsupported: --engine llvm runs no textures");
    let kernel = common::path("examples/clamp_scale.wgsl");
    let run = |extra: &[&str]| {
        let mut a = vec!["run", kernel.as_str(), "--dispatch", "2"];
        a.extend(extra);
        oxir(&a)
    };
    let out = run(&["--engine", "llvm", "--shuffle", "1"]);
    assert_exit(&out, 2, "--shuffle is an interpreter option");
    let out = run(&["--engine", "llvm", "-O2"]);
    assert_exit(&out, 2, "expected -O0 or -O");
    let out = run(&["--engine", "llvm", "--device", "0"]);
    assert_exit(&out, 2, "--device applies to --engine vulkan");
    let expected: BTreeMap<_, _> = parse_lines(&stdout(&run(&[])));
    let got = parse_lines(&stdout(&run(&["--engine", "llvm"])));
    assert_eq!(got, expected);
}

/// A kernel that never returns is stopped by the timeout, exit 1.
#[test]
fn a_dispatch_that_never_ends_times_out() {
    if !llvm_available("a_dispatch_that_never_ends_times_out") {
        return;
    }
    let dir = temp_dir("timeout");
    let file = dir.join("spin.wgsl");
    std::fs::write(
        &file,
        "@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4)
fn main() {
    var x = o[0];
    loop { if x == 7u { break; } x = x * 3u + o[1]; o[2] = x; }
}",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_oxir"))
        .args(["run", file.to_str().unwrap(), "--dispatch", "1"])
        .args(["--engine", "llvm"])
        .env("OXIR_HOST_TIMEOUT_MS", "1000")
        .output()
        .unwrap();
    assert_exit(&out, 1, "the dispatch did not finish within 1000 ms");
    let _ = std::fs::remove_dir_all(&dir);
}
