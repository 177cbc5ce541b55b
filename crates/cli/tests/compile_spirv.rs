//! `oxir compile --target spirv|spirv-asm`.

use std::path::Path;
use std::process::Command;

fn oxir() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_oxir"));
    c.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
    c
}

#[test]
fn compile_to_spirv_and_validate() {
    let out = std::env::temp_dir().join(format!("oxir-cli-{}.spv", std::process::id()));
    for env in ["vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"] {
        let status = oxir()
            .args([
                "compile",
                "examples/clamp_scale.wgsl",
                "--target",
                "spirv",
                "-O",
                "--target-env",
                env,
                "-o",
            ])
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes());
        match Command::new("spirv-val")
            .args(["--target-env", env])
            .arg(&out)
            .output()
        {
            Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr)),
            Err(_) => eprintln!("SKIPPED: spirv-val is not installed"),
        }
    }
    let _ = std::fs::remove_file(&out);
}

#[test]
fn spirv_asm_and_refusals() {
    let o = oxir()
        .args([
            "compile",
            "examples/clamp_scale.wgsl",
            "--target",
            "spirv-asm",
            "-O0",
        ])
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("OpEntryPoint GLCompute"), "{text}");
    let o = oxir()
        .args([
            "compile",
            "tests/shaders/textures.wgsl",
            "--target",
            "spirv-asm",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unsupported:"));
    let o = oxir()
        .args([
            "compile",
            "examples/clamp_scale.wgsl",
            "--target",
            "spirv-asm",
            "--target-env",
            "vulkan9",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
