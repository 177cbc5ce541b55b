//! Every size limit of `oxir`: an absurd input exits 1 with a message naming the limit
//! (and the option or file), quickly, in bounded memory. Each command runs under
//! `ulimit -v` ([`MEMORY_KB`]) and `timeout` ([`SECONDS`]), so a regression shows up as
//! exit 134 / 137 / 124 instead of taking the machine down; the test also checks the
//! elapsed time.

mod common;

use common::{path, stderr};
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The virtual memory each command may map (lavapipe maps a few hundred MB itself).
const MEMORY_KB: u64 = 4_000_000;
/// The wall-clock limit of each command.
const SECONDS: u64 = 60;
/// What "quickly" means for a refused input (debug build, loaded machine).
const QUICK: Duration = Duration::from_secs(20);

/// Runs `oxir ARGS` with `env` under the memory and time limits.
fn bounded_with(env: &[(&str, &str)], args: &[&str]) -> (Output, Duration) {
    let start = Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_KB} && exec timeout {SECONDS} \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_oxir"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("OXIR_MAX_BUFFER_BYTES")
        .env_remove("OXIR_MAX_INLINED_SIZE")
        .envs(env.iter().copied())
        .output()
        .expect("sh runs");
    (out, start.elapsed())
}

fn bounded(args: &[&str]) -> (Output, Duration) {
    bounded_with(&[], args)
}

/// Asserts exit 1, quickly, with every one of `needles` in stderr.
#[track_caller]
fn assert_refused((out, took): (Output, Duration), needles: &[&str]) {
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for needle in needles {
        assert!(err.contains(needle), "expected `{needle}` in: {err}");
    }
    assert!(took < QUICK, "took {took:?}: {err}");
}

/// Asserts exit 0 within the limits.
#[track_caller]
fn assert_runs((out, took): (Output, Duration)) {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(took < QUICK, "took {took:?}");
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oxir-cli-limits-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(test: &str, name: &str, text: &str) -> String {
    let file = scratch(test).join(name);
    std::fs::write(&file, text).unwrap();
    file.to_str().unwrap().to_string()
}

/// A runtime-sized output and a fixed 64-byte array.
const TWO_BUFFERS: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> fixed: array<u32, 16>;
@compute @workgroup_size(1)
fn main() { out[0] = fixed[3] + 1u; fixed[0] = 7u; }
";

fn run_two_buffers(test: &str, extra: &[&str]) -> (Output, Duration) {
    let shader = write(test, "two.wgsl", TWO_BUFFERS);
    let mut args = vec!["run", shader.as_str(), "--dispatch", "1"];
    args.extend_from_slice(extra);
    bounded(&args)
}

#[test]
fn buffer_and_default_sizes_over_the_cap() {
    let cap = "--max-buffer-size / OXIR_MAX_BUFFER_BYTES";
    for spec in [
        "0:1=zero:18446744073709551615",
        "0:0=zero:99999999999",
        "0:0=random:4294967296:3",
    ] {
        let buffer = format!("--buffer {spec}");
        assert_refused(
            run_two_buffers("sizes", &["--buffer", spec]),
            &[&buffer, cap, "268435456"],
        );
    }
    assert_refused(
        run_two_buffers("sizes", &["--default-size", "18446744073709551615"]),
        &["--default-size 18446744073709551615", cap],
    );
    // The cap moves with the option and the environment variable.
    assert_refused(
        run_two_buffers(
            "sizes",
            &["--max-buffer-size", "1024", "--buffer", "0:0=zero:2048"],
        ),
        &["2048 bytes", "1024 bytes"],
    );
    assert_refused(
        bounded_with(
            &[("OXIR_MAX_BUFFER_BYTES", "512")],
            &[
                "run",
                &write("sizes", "two.wgsl", TWO_BUFFERS),
                "--dispatch",
                "1",
            ],
        ),
        &["--default-size 1024", "512 bytes"],
    );
    assert_runs(run_two_buffers("sizes", &["--buffer", "0:0=zero:4096"]));
}

#[test]
fn file_inputs_are_regular_files_within_the_cap() {
    assert_refused(
        run_two_buffers("files", &["--buffer", "0:1=@/dev/zero"]),
        &["/dev/zero", "not a regular file"],
    );
    let dir = scratch("files");
    let dir_spec = format!("0:1=@{}", dir.display());
    assert_refused(
        run_two_buffers("files", &["--buffer", &dir_spec]),
        &["not a regular file"],
    );
    let big = dir.join("big.bin");
    std::fs::write(&big, vec![1u8; 4096]).unwrap();
    let big_spec = format!("0:0=@{}", big.display());
    assert_refused(
        run_two_buffers(
            "files",
            &["--max-buffer-size", "1024", "--buffer", &big_spec],
        ),
        &["big.bin", "4096 bytes", "--max-buffer-size"],
    );
    assert_runs(run_two_buffers("files", &["--buffer", &big_spec]));
}

#[test]
fn a_buffer_smaller_than_its_binding_is_refused() {
    assert_refused(
        run_two_buffers("short", &["--buffer", "0:1=u32:1,2"]),
        &[
            "binding 0:1 (`fixed`)",
            "needs at least 64 bytes",
            "gives 8",
        ],
    );
    let tail = write(
        "short",
        "tail.wgsl",
        "struct S { n: u32, pad: vec3<u32>, items: array<u32> }\n\
         @group(0) @binding(0) var<storage, read_write> s: S;\n\
         @compute @workgroup_size(1) fn main() { s.n = arrayLength(&s.items); }\n",
    );
    assert_refused(
        bounded(&["run", &tail, "--dispatch", "1", "--buffer", "0:0=u32:1"]),
        &[
            "needs at least 28 bytes",
            "before its runtime-sized array",
            "gives 4",
        ],
    );
    // The fixed part alone (n, padding, pad: 28 bytes) is enough.
    assert_runs(bounded(&[
        "run",
        &tail,
        "--dispatch",
        "1",
        "--buffer",
        "0:0=zero:28",
    ]));
}

#[test]
fn textures_and_dispatches_over_their_limits() {
    let shader = write(
        "textures",
        "tex.wgsl",
        "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
         @group(1) @binding(2) var t: texture_3d<f32>;\n\
         @compute @workgroup_size(1)\n\
         fn main() { out[0] = textureLoad(t, vec3<i32>(0), 0).x; }\n",
    );
    for engine in ["interp", "vulkan"] {
        let run = |extra: &[&str]| {
            let mut args = vec!["run", shader.as_str(), "--engine", engine, "--dispatch"];
            args.extend_from_slice(extra);
            bounded(&args)
        };
        assert_refused(
            run(&["1", "--texture", "1:2=4096x4096x4096"]),
            &["--texture 1:2", "4096x4096x4096", "--max-buffer-size"],
        );
        assert_refused(
            run(&["1", "--texture", "1:2=4097x1x1"]),
            &["MAX_TEXTURE_SIDE"],
        );
        assert_refused(run(&["4294967295"]), &["MAX_DISPATCH_PER_DIMENSION"]);
    }
    assert_refused(
        bounded(&["run", &shader, "--dispatch", "65535,65535,65535"]),
        &["281462092005375 invocations", "--max-instructions"],
    );
}

#[test]
fn workgroup_sizes_over_the_verifier_maximum() {
    let module = write(
        "workgroup",
        "huge.oxir",
        "kernel @main() workgroup_size(4294967295, 1, 1) {\nblock0:\n    return\n}\n",
    );
    assert_refused(
        bounded(&["verify", &module]),
        &[
            "x = 4294967295 exceeds the maximum 1024",
            "MAX_WORKGROUP_SIZE",
        ],
    );
    let wgsl = write(
        "workgroup",
        "big.wgsl",
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(1024, 1024, 64) fn main() { out[0] = 1u; }\n",
    );
    for input in [&module, &wgsl] {
        for engine in ["interp", "vulkan"] {
            assert_refused(
                bounded(&["run", input, "--dispatch", "1", "--engine", engine]),
                &["MAX_WORKGROUP_"],
            );
        }
    }
    // WGSL's size is refused as the shader's, at its location, not as a lowering bug.
    let (out, _) = bounded(&["compile", &wgsl, "--target", "spirv"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !stderr.contains("internal") && stderr.contains("workgroup size 1024x1024x64"),
        "{stderr}"
    );
}

/// `words` with every `OpExecutionMode %e LocalSize x y z` set to `size`.
fn with_local_size(bytes: &[u8], size: [u32; 3]) -> Vec<u8> {
    let mut words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut at = 5;
    let mut patched = 0;
    while at < words.len() {
        let (count, opcode) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        const OP_EXECUTION_MODE: u32 = 16;
        const LOCAL_SIZE: u32 = 17;
        if opcode == OP_EXECUTION_MODE && count == 6 && words[at + 2] == LOCAL_SIZE {
            words[at + 3..at + 6].copy_from_slice(&size);
            patched += 1;
        }
        at += count.max(1);
    }
    assert_eq!(patched, 1, "one LocalSize to patch");
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn vulkan_runner_checks_the_device_limits() {
    let wgsl = write(
        "device",
        "wg64.wgsl",
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(64) fn main() { out[0] = 1u; }\n",
    );
    let spv = scratch("device").join("wg64.spv");
    let spv = spv.to_str().unwrap();
    let (out, _) = bounded(&["compile", &wgsl, "--target", "spirv", "-o", spv]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let bytes = std::fs::read(spv).unwrap();
    let (probe, _) = bounded(&["run", spv, "--dispatch", "1", "--engine", "vulkan"]);
    if probe.status.code() != Some(0) {
        if std::env::var("OXIR_REQUIRE_VULKAN").as_deref() == Ok("1") {
            panic!("Vulkan is required but the run failed: {}", stderr(&probe));
        }
        eprintln!(
            "SKIPPED vulkan_runner_checks_the_device_limits: {}",
            stderr(&probe)
        );
        return;
    }
    for (size, limit) in [
        ([1024, 1024, 64], "maxComputeWorkGroup"),
        ([u32::MAX, 1, 1], "maxComputeWorkGroupSize"),
    ] {
        let big = scratch("device").join("big.spv");
        std::fs::write(&big, with_local_size(&bytes, size)).unwrap();
        assert_refused(
            bounded(&[
                "run",
                big.to_str().unwrap(),
                "--dispatch",
                "1",
                "--engine",
                "vulkan",
            ]),
            &["big.spv", limit],
        );
    }
    // Private and function variables over OXIR_VULKAN_MAX_PRIVATE_BYTES (default 64 KiB):
    // a 16 MiB private array used to crash lavapipe, a 1 MiB one to run for minutes.
    let private = |words: u32| {
        format!(
            "var<private> big: array<u32, {words}>;\n\
             @group(0) @binding(0) var<storage, read_write> out: array<u32, 4>;\n\
             @compute @workgroup_size(1) fn main() {{\n\
             var local: array<u32, 4>;\n\
             local[out[3] % 4u] = 1u;\n\
             big[out[1] % {words}u] = local[0];\n\
             out[0] = big[out[2] % {words}u];\n}}\n"
        )
    };
    let huge = write("device", "private16m.wgsl", &private(4 << 20));
    let run = [
        "run",
        huge.as_str(),
        "--dispatch",
        "1",
        "--engine",
        "vulkan",
    ];
    assert_refused(
        bounded(&run),
        &[
            "private16m.wgsl",
            "at least 16777232 bytes per invocation",
            "limit of 65536 (OXIR_VULKAN_MAX_PRIVATE_BYTES)",
        ],
    );
    // The limit is configurable, and the function variable counts: 64 + 16 bytes.
    let small = write("device", "private64.wgsl", &private(16));
    let run = [
        "run",
        small.as_str(),
        "--dispatch",
        "1",
        "--engine",
        "vulkan",
    ];
    assert_refused(
        bounded_with(&[("OXIR_VULKAN_MAX_PRIVATE_BYTES", "79")], &run),
        &["at least 80 bytes", "limit of 79"],
    );
    assert_runs(bounded_with(
        &[("OXIR_VULKAN_MAX_PRIVATE_BYTES", "80")],
        &run,
    ));
}

#[test]
fn interpreter_variable_memory_is_budgeted() {
    let private = |wg: u32| {
        format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             var<private> big: array<u32, 268435456>;\n\
             @compute @workgroup_size({wg}) fn main(@builtin(local_invocation_index) i: u32) {{\n\
             big[i + 5u] = 3u; out[i] = big[5u];\n}}\n"
        )
    };
    // One invocation with a 1 GiB private array: its real size, untouched pages unused.
    let one = write("memory", "one.wgsl", &private(1));
    assert_runs(bounded(&["run", &one, "--dispatch", "1"]));
    assert_refused(
        bounded(&["run", &one, "--dispatch", "1", "--max-memory", "1000000"]),
        &["private global @big", "1073741824 bytes", "--max-memory"],
    );
    let many = write("memory", "many.wgsl", &private(64));
    assert_refused(
        bounded(&["run", &many, "--dispatch", "1"]),
        &["interpreter memory limit of 1073741824 bytes"],
    );
    let workgroup = write(
        "memory",
        "shared.wgsl",
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         var<workgroup> tile: array<u32, 67108864>;\n\
         @compute @workgroup_size(1) fn main() { tile[1] = 2u; out[0] = tile[1]; }\n",
    );
    assert_refused(
        bounded(&[
            "run",
            &workgroup,
            "--dispatch",
            "1",
            "--max-memory",
            "65536",
        ]),
        &["workgroup global @tile", "268435456 bytes"],
    );
    // A whole-array load builds one value: 2^25 elements of 48-byte values is past the
    // 1 GiB default before anything is allocated; a 1024-element copy runs.
    let copy = |words: u32| {
        format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             var<private> big: array<u32, {words}>;\n\
             @compute @workgroup_size(1) fn main() {{\n\
             big[3] = 9u; let whole = big; out[0] = whole[out[1] % {words}u];\n}}\n"
        )
    };
    let huge = write("memory", "copy.wgsl", &copy(1 << 25));
    assert_refused(
        bounded(&["run", &huge, "--dispatch", "1"]),
        &[
            "copy.wgsl",
            "array<u32, 33554432>, built whole",
            "1073741824 bytes",
        ],
    );
    let small = write("memory", "copy_small.wgsl", &copy(1024));
    assert_runs(bounded(&["run", &small, "--dispatch", "1"]));
}

/// 30 levels of `f_i(x) = f_{i-1}(x) + f_{i-1}(x)` under a kernel.
fn doubling_chain() -> String {
    let mut text = String::from(
        "const c0: u32 = 1\n\
         callable @f0(u32) -> u32 {\nblock0(v0: u32):\n    v1: u32 = add v0, v0\n    return v1\n}\n",
    );
    for i in 1..=30 {
        let j = i - 1;
        text.push_str(&format!(
            "callable @f{i}(u32) -> u32 {{\nblock0(v0: u32):\n    v1: u32 = call @f{j}(v0)\n    \
             v2: u32 = call @f{j}(v0)\n    v3: u32 = add v1, v2\n    return v3\n}}\n"
        ));
    }
    text.push_str(
        "global @out: storage(read_write) array<u32> binding(0, 0)\n\
         kernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    v0: u32 = call @f30(c0)\n    return\n}\n",
    );
    text
}

#[test]
fn inline_all_stops_at_its_budget() {
    let module = write("inline", "chain.oxir", &doubling_chain());
    let needles = [
        "inline-all limit of 200000",
        "OXIR_MAX_INLINED_SIZE",
        "@f16 -> @f15",
        "-> @f0",
    ];
    assert_refused(
        bounded(&["opt", &module, "--passes", "inline-all"]),
        &needles,
    );
    // The LLVM targets inline every call, so compiling for them is refused too.
    assert_refused(
        bounded(&[
            "compile",
            &module,
            "-O",
            "--target",
            "llvm-nvptx",
            "-o",
            "/dev/null",
        ]),
        &needles,
    );
    // SPIR-V keeps functions where that is smaller, so the chain compiles, and small.
    let spv = scratch("inline").join("chain.spv");
    let spv = spv.to_str().unwrap();
    assert_runs(bounded(&[
        "compile", &module, "-O", "--target", "spirv", "-o", spv,
    ]));
    let bytes = std::fs::metadata(spv).unwrap().len();
    assert!(bytes < 20_000, "the kept chain is {bytes} bytes of SPIR-V");
    assert_refused(
        bounded_with(
            &[("OXIR_MAX_INLINED_SIZE", "100")],
            &["opt", &module, "--passes", "inline-all"],
        ),
        &["inline-all limit of 100", "@f5"],
    );
}

#[test]
fn structured_print_is_linear_in_the_depth() {
    const DEPTH: usize = 5000;
    let then = |i: usize| format!("block{i}");
    let other = |i: usize| format!("block{}", DEPTH + 1 + i);
    let merge = |i: usize| format!("block{}", 2 * DEPTH + 1 + i);
    let mut text =
        String::from("const c1: bool = true\nkernel @main() workgroup_size(1, 1, 1) {\n");
    for i in 0..DEPTH {
        text.push_str(&format!(
            "{}:\n    if c1, then {}, else {}, merge {}\n",
            then(i),
            then(i + 1),
            other(i),
            merge(i)
        ));
    }
    text.push_str(&format!("{}:\n    br {}\n", then(DEPTH), merge(DEPTH - 1)));
    for i in 0..DEPTH {
        text.push_str(&format!("{}:\n    br {}\n", other(i), merge(i)));
        let next = if i == 0 {
            "return".to_string()
        } else {
            format!("br {}", merge(i - 1))
        };
        text.push_str(&format!("{}:\n    {next}\n", merge(i)));
    }
    text.push_str("}\n");
    let module = write("structured", "deep.oxir", &text);
    let (out, took) = bounded(&["print", "--structured", &module]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(took < QUICK, "took {took:?}");
    // About 100 bytes per block at the capped indentation (quadratic: ~700 MB).
    let printed = out.stdout;
    assert!(
        printed.len() < 20 * text.len(),
        "{} bytes printed",
        printed.len()
    );
    let again = write(
        "structured",
        "printed.oxir",
        std::str::from_utf8(&printed).unwrap(),
    );
    let (reprinted, _) = bounded(&["print", "--structured", &again]);
    assert_eq!(reprinted.status.code(), Some(0), "{}", stderr(&reprinted));
    assert!(
        reprinted.stdout == printed,
        "the structured text does not round-trip"
    );
    // The example kernel is unaffected (shallow nesting prints as before).
    let (example, _) = bounded(&["print", "--structured", &path("examples/clamp_scale.oxir")]);
    assert_eq!(example.status.code(), Some(0));
}

/// A kernel whose private variable and output buffer are `depth` nested one-element arrays
/// of f32, storing 3.0 at the innermost element and copying the variable out.
fn nested_arrays_kernel(depth: usize) -> String {
    let mut text = String::from("alias A0 = f32;\n");
    for i in 1..=depth {
        text.push_str(&format!("alias A{i} = array<A{}, 1>;\n", i - 1));
    }
    text.push_str(&format!(
        "var<private> p: A{depth};\n\
         @group(0) @binding(0) var<storage, read_write> out: A{depth};\n\
         @compute @workgroup_size(1) fn main() {{ p{} = 3.0; out = p; }}\n",
        "[0]".repeat(depth)
    ));
    text
}

#[test]
fn type_nesting_at_the_limit_round_trips_and_one_more_is_refused() {
    // 63 array levels plus the pointer to the variable: the 64 the printer and parser follow.
    let at_limit = write("nesting", "a63.wgsl", &nested_arrays_kernel(63));
    let printed = scratch("nesting").join("a63.oxir");
    let printed = printed.to_str().unwrap();
    assert_runs(bounded(&[
        "compile", &at_limit, "--target", "oxir", "-o", printed,
    ]));
    assert_runs(bounded(&["verify", printed]));
    let (out, _) = bounded(&["run", printed, "--dispatch", "1"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // 3.0f32 is 0x40400000, little-endian.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"hex\":\"00004040\""), "{stdout}");

    let over = write("nesting", "a64.wgsl", &nested_arrays_kernel(64));
    assert_refused(
        bounded(&["compile", &over, "--target", "oxir"]),
        &["a64.wgsl:", "nested 64 levels deep", "at most 63"],
    );
}
