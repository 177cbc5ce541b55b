//! `oxir run --subgroup-size`: the interpreter's subgroup size on the command line (known
//! answers at 4, 8 and 32, usage errors for sizes that are not powers of two in 1..=128),
//! and `tests/shaders/subgroups.wgsl` on a Vulkan device against the interpreter run with
//! the device's own subgroup size (lavapipe's follows the CPU's SIMD width).
//!
//! Without Vulkan the device test fails when `OXIR_REQUIRE_VULKAN=1` and otherwise skips.
//!
//! The LLVM back-end: `oxir compile --target ptx` of the same shader for sm_70, sm_80 and
//! sm_90 (at `-O0` and `-O`) gives PTX that `ptxas` assembles (nothing runs it: no GPU
//! here), and `oxir run --engine llvm` refuses it (the host target has no subgroups).
//! Without `llc-22` or `ptxas` the PTX test skips, and fails when `OXIR_REQUIRE_LLVM=1`.

mod common;

use common::{assert_exit, oxir, path, stdout};

const SHADER: &str = "tests/shaders/subgroups.wgsl";

/// The `values` of the binding-0 line of `oxir run`'s output.
fn words(out: &str, binding: u32) -> Vec<f64> {
    let tag = format!("\"binding\":{binding},");
    let line = out
        .lines()
        .find(|l| l.contains(&tag))
        .unwrap_or_else(|| panic!("no binding {binding} in {out}"));
    let values = line
        .split("\"values\":[")
        .nth(1)
        .expect("values")
        .split(']');
    values
        .into_iter()
        .next()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect()
}

fn run_interp(size: &str) -> String {
    let out = oxir(&[
        "run",
        &path(SHADER),
        "--dispatch",
        "2",
        "--subgroup-size",
        size,
        "--view",
        "0:0=u32",
        "--view",
        "0:1=f32",
        "--view",
        "0:2=u32",
    ]);
    assert_exit(&out, 0, "");
    stdout(&out)
}

#[test]
fn subgroup_size_4_known_answers() {
    let out = run_interp("4");
    let u = words(&out, 0);
    // Invocation 0..4 form subgroup 0 (local indices 0..=3), 16 words each.
    let lane = |i: usize, w: usize| u[16 * i + w];
    for i in 0..4 {
        assert_eq!(lane(i, 0), 6.0, "subgroupAdd(li)");
        assert_eq!(lane(i, 3), 9.0, "ballot of li % 3 == 0: lanes 0 and 3");
    }
    assert_eq!(
        (0..4).map(|i| lane(i, 1)).collect::<Vec<_>>(),
        [0.0, 0.0, 1.0, 3.0]
    );
    assert_eq!(
        (0..4).map(|i| lane(i, 5)).collect::<Vec<_>>(),
        [1.0, 0.0, 3.0, 2.0]
    );
    // Odd lanes broadcast the first odd one (li 1); even lanes the min of li + 100.
    assert_eq!(
        (0..4).map(|i| lane(i, 8)).collect::<Vec<_>>(),
        [100.0, 1.0, 100.0, 1.0]
    );
    // subgroupBroadcast(li, 1) + subgroupShuffle(li, lane ^ 3) * 256 + size * 65536.
    assert_eq!(lane(0, 15), (1 + 3 * 256 + 4 * 65536) as f64);
    let f = words(&out, 1);
    // 0 + 0.5 + 1 + 1.5 = 3, plus 1024 times the exclusive sum of -x.
    assert_eq!(&f[..4], &[3.0, 3.0, -509.0, -1533.0]);
    // subgroup_id | num_subgroups << 16: 64 invocations make 16 subgroups of 4.
    let ids = words(&out, 2);
    let expect = |g: usize| ((g % 64) / 4 + (16 << 16)) as f64;
    assert_eq!(
        [0, 3, 4, 63, 64, 127].map(|g| ids[g]),
        [0, 3, 4, 63, 64, 127].map(expect)
    );
}

#[test]
fn subgroup_size_8_and_32_known_answers() {
    let u = words(&run_interp("8"), 0);
    assert_eq!(u[0], 28.0, "0 + ... + 7");
    assert_eq!(u[16 * 8], 92.0, "8 + ... + 15");
    assert_eq!(u[16 * 3 + 1], 3.0, "exclusive 0 + 1 + 2");
    assert_eq!(u[3], 0x49 as f64, "ballot bits 0, 3, 6");
    let u = words(&run_interp("32"), 0);
    assert_eq!(u[0], 496.0, "0 + ... + 31");
    assert_eq!(u[16 * 40], 1520.0, "32 + ... + 63");
    assert_eq!(
        u[16 * 64],
        496.0,
        "the second workgroup: local indices from 0 again"
    );
    assert_eq!(u[15], (1 + 3 * 256 + 32 * 65536) as f64);
    let ids = words(&run_interp("32"), 2);
    assert_eq!([ids[31], ids[32], ids[64]], [131072.0, 131073.0, 131072.0]);
}

#[test]
fn subgroup_sizes_that_are_not_powers_of_two_up_to_128_are_usage_errors() {
    for bad in ["0", "3", "12", "256", "-4", "many"] {
        let option = format!("--subgroup-size={bad}");
        let out = oxir(&["run", &path(SHADER), "--dispatch", "1", &option]);
        assert_exit(&out, 2, "subgroup size");
    }
    for good in ["1", "2", "64", "128"] {
        let out = oxir(&[
            "run",
            &path(SHADER),
            "--dispatch",
            "1",
            "--subgroup-size",
            good,
        ]);
        assert_exit(&out, 0, "");
    }
}

#[test]
fn vulkan_1_0_refuses_subgroup_operations_before_writing() {
    let dir = std::env::temp_dir().join(format!("oxir-cli-subgroups-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spv = dir.join("out.spv");
    let spv = spv.to_str().unwrap();
    let out = oxir(&[
        "compile",
        &path(SHADER),
        "--target",
        "spirv",
        "--target-env",
        "vulkan1.0",
        "-o",
        spv,
    ]);
    assert_exit(&out, 1, "under vulkan1.0 (needs SPIR-V 1.3)");
    assert!(!std::path::Path::new(spv).exists(), "nothing is written");
    let out = oxir(&["compile", &path(SHADER), "--target", "spirv", "-o", spv]);
    assert_exit(&out, 0, "");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_interpreter_option_is_refused_on_vulkan() {
    let out = oxir(&[
        "run",
        &path(SHADER),
        "--dispatch",
        "1",
        "--engine",
        "vulkan",
        "--subgroup-size",
        "8",
    ]);
    assert_exit(&out, 2, "--subgroup-size is an interpreter option");
}

/// naga's SPIR-V (1.3) of [`SHADER`], written to a temporary `.spv`.
fn naga_spirv() -> std::path::PathBuf {
    let text = std::fs::read_to_string(path(SHADER)).unwrap();
    let module = naga::front::wgsl::parse_str(&text).expect("naga parses the shader");
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .subgroup_stages(naga::valid::ShaderStages::COMPUTE)
    .subgroup_operations(naga::valid::SubgroupOperationSet::all())
    .validate(&module)
    .expect("naga validates the shader");
    let options = naga::back::spv::Options {
        lang_version: (1, 3),
        flags: naga::back::spv::WriterFlags::empty(),
        ..Default::default()
    };
    let words = naga::back::spv::write_vec(&module, &info, &options, None).expect("naga writes");
    let file = std::env::temp_dir().join(format!("oxir-subgroups-naga-{}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&file, bytes).unwrap();
    file
}

/// The device's subgroup size, `None` (skip) without Vulkan unless it is required.
fn device_subgroup_size() -> Option<u32> {
    let why = match oxir_vulkan::list_devices() {
        Ok(d) if !d.is_empty() => match d[0].subgroup_size {
            Some(size) => return Some(size),
            None => format!("device `{}` is below Vulkan 1.1", d[0].name),
        },
        Ok(_) => "the loader lists no device".to_string(),
        Err(e) => e.to_string(),
    };
    if std::env::var("OXIR_REQUIRE_VULKAN").as_deref() == Ok("1") {
        panic!("Vulkan with subgroups is required (OXIR_REQUIRE_VULKAN=1): {why}");
    }
    eprintln!("SKIPPED: no Vulkan subgroups: {why}");
    None
}

#[test]
fn vulkan_agrees_with_the_interpreter_at_the_device_subgroup_size() {
    let Some(size) = device_subgroup_size() else {
        return;
    };
    eprintln!("device subgroup size {size}");
    let on_device = |input: &str| {
        let out = oxir(&[
            "run",
            input,
            "--dispatch",
            "2",
            "--engine",
            "vulkan",
            "--device",
            "0",
        ]);
        assert_exit(&out, 0, "");
        out
    };
    let vulkan = on_device(&path(SHADER));
    let interp = oxir(&[
        "run",
        &path(SHADER),
        "--dispatch",
        "2",
        "--subgroup-size",
        &size.to_string(),
    ]);
    assert_exit(&interp, 0, "");
    assert_eq!(stdout(&vulkan), stdout(&interp), "subgroup size {size}");
    // naga's own SPIR-V of the same shader, on the same device.
    let naga_spv = naga_spirv();
    let naga_run = on_device(naga_spv.to_str().unwrap());
    assert_eq!(
        stdout(&naga_run),
        stdout(&vulkan),
        "naga's SPIR-V on the device"
    );
    let _ = std::fs::remove_file(&naga_spv);
    if size != 32 {
        // The interpreter's default size gives other bytes: the comparison can fail.
        let default = oxir(&["run", &path(SHADER), "--dispatch", "2"]);
        assert_ne!(stdout(&vulkan), stdout(&default));
    }
}

fn tool_runs(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `ptxas`: `OXIR_PTXAS`, `ptxas` on `PATH`, then `scripts/test.sh`'s cache folder.
fn ptxas() -> Option<String> {
    let mut names: Vec<String> = std::env::var("OXIR_PTXAS").into_iter().collect();
    names.push("ptxas".into());
    if let Some(home) = std::env::var_os("HOME") {
        let cached = std::path::Path::new(&home).join(".cache/oxir/ptxas/ptxas");
        names.push(cached.display().to_string());
    }
    names.into_iter().find(|n| tool_runs(n))
}

#[test]
fn subgroups_compile_to_ptx_that_ptxas_assembles() {
    let llc = std::env::var("OXIR_LLC").unwrap_or_else(|_| "llc-22".into());
    let (true, Some(ptxas)) = (tool_runs(&llc), ptxas()) else {
        assert!(
            std::env::var("OXIR_REQUIRE_LLVM").as_deref() != Ok("1"),
            "OXIR_REQUIRE_LLVM=1 but {llc} or ptxas does not run"
        );
        eprintln!("SKIPPED subgroups_compile_to_ptx_that_ptxas_assembles: no {llc} or ptxas");
        return;
    };
    let dir = std::env::temp_dir().join(format!("oxir-subgroups-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for arch in ["sm_70", "sm_80", "sm_90"] {
        for level in [None, Some("-O")] {
            let shader = path(SHADER);
            let mut args = vec![
                "compile",
                shader.as_str(),
                "--target",
                "ptx",
                "--arch",
                arch,
            ];
            args.extend(level);
            let out = oxir(&args);
            assert_exit(&out, 0, "");
            let ptx = stdout(&out);
            assert!(ptx.contains("activemask.b32"), "{arch} {level:?}");
            assert!(ptx.contains("shfl.sync.idx.b32"), "{arch} {level:?}");
            assert!(ptx.contains("vote.sync.ballot.b32"), "{arch} {level:?}");
            let file = dir.join(format!("{arch}{}.ptx", level.unwrap_or("")));
            std::fs::write(&file, &ptx).unwrap();
            let assembled = std::process::Command::new(&ptxas)
                .args([
                    "--gpu-name",
                    arch,
                    file.to_str().unwrap(),
                    "-o",
                    "/dev/null",
                ])
                .output()
                .expect("ptxas runs");
            assert!(
                assembled.status.success(),
                "ptxas {arch} {level:?}: {}",
                String::from_utf8_lossy(&assembled.stderr)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_host_llvm_engine_refuses_subgroup_operations() {
    let out = oxir(&["run", &path(SHADER), "--engine", "llvm", "--dispatch", "1"]);
    assert_exit(
        &out,
        1,
        "unsupported: subgroup_add: no subgroups on this target (it runs one invocation at a time",
    );
}
