//! `Target::LlvmNvptx` and `Target::Ptx` through the driver: deterministic LLVM text,
//! PTX with the kernel's `.entry` when `llc-22` is installed (skipped with a message
//! otherwise, failing under `OXIR_REQUIRE_LLVM=1`), and a typed error for a bad `--arch`.

use oxir_driver::{compile, CompileOptions, Error, Input, OptLevel, Target};

const KERNEL: &str = "@group(0) @binding(0) var<storage, read_write> d: array<f32>;\n\
    @compute @workgroup_size(64) fn scale(@builtin(global_invocation_id) g: vec3<u32>) {\n\
    if (g.x < arrayLength(&d)) { d[g.x] = d[g.x] * 2.0; } }\n";

fn have_llc() -> bool {
    let ok = ["llc-22", "llc-21"].iter().any(|t| {
        std::process::Command::new(t)
            .arg("--version")
            .output()
            .is_ok()
    });
    if !ok {
        assert!(
            std::env::var("OXIR_REQUIRE_LLVM").as_deref() != Ok("1"),
            "llc-22 is missing and OXIR_REQUIRE_LLVM=1"
        );
        eprintln!("SKIPPED: llc-22 is not installed (apt-get install llvm-22)");
    }
    ok
}

#[test]
fn llvm_text_is_deterministic_and_names_the_kernel() {
    let options = CompileOptions::default();
    let a = compile(Input::wgsl("k.wgsl", KERNEL), Target::LlvmNvptx, &options).unwrap();
    let b = compile(Input::wgsl("k.wgsl", KERNEL), Target::LlvmNvptx, &options).unwrap();
    assert_eq!(a, b);
    let text = a.as_text().unwrap();
    assert!(
        text.contains(
            "define ptx_kernel void @scale(ptr addrspace(1) noalias %g.d, i64 %g.d.bytes)"
        ),
        "{text}"
    );
}

#[test]
fn ptx_for_the_chosen_arch_at_both_levels() {
    if !have_llc() {
        return;
    }
    for opt_level in [OptLevel::O0, OptLevel::O1] {
        let options = CompileOptions {
            cuda_arch: Some("sm_90".into()),
            opt_level,
            ..CompileOptions::default()
        };
        let ptx = compile(Input::wgsl("k.wgsl", KERNEL), Target::Ptx, &options).unwrap();
        let ptx = ptx.as_text().unwrap();
        assert!(
            ptx.contains(".target sm_90") && ptx.contains(".visible .entry scale("),
            "{ptx}"
        );
    }
}

#[test]
fn a_bad_arch_is_a_typed_error() {
    let options = CompileOptions {
        cuda_arch: Some("gfx90a".into()),
        ..CompileOptions::default()
    };
    match compile(Input::wgsl("k.wgsl", KERNEL), Target::Ptx, &options) {
        Err(Error::BadArch(arch)) => assert_eq!(arch, "gfx90a"),
        other => panic!("{other:?}"),
    }
}
