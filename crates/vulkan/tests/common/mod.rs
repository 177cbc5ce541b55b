//! Helpers for the oxir-vulkan tests: SPIR-V from oxir's own back-end, and the rule for
//! when Vulkan is missing (fail under `OXIR_REQUIRE_VULKAN=1`, skip visibly otherwise).

#![allow(dead_code)]

use std::path::Path;

/// `true` when a Vulkan device is available. Without one: panics when
/// `OXIR_REQUIRE_VULKAN=1` (scripts/test.sh sets it), else prints why the test skips.
pub fn vulkan_available(test: &str) -> bool {
    match oxir_vulkan::list_devices() {
        Ok(d) if !d.is_empty() => true,
        Ok(_) => unavailable(test, "the loader lists no device"),
        Err(e) => unavailable(test, &e.to_string()),
    }
}

fn unavailable(test: &str, why: &str) -> bool {
    if std::env::var("OXIR_REQUIRE_VULKAN").as_deref() == Ok("1") {
        panic!("{test}: Vulkan is required (OXIR_REQUIRE_VULKAN=1) but unavailable: {why}");
    }
    eprintln!("SKIPPED {test}: no Vulkan: {why}");
    false
}

/// oxir's SPIR-V for a WGSL file of the repository, checked by `spirv-val` (when it is
/// installed; required under `OXIR_REQUIRE_VULKAN=1`) before any driver sees it.
pub fn spirv_of(relative: &str) -> Vec<u32> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative);
    let text = std::fs::read_to_string(&path).unwrap();
    spirv_of_wgsl(relative, &text)
}

/// oxir's module for WGSL text.
pub fn module_of_wgsl(name: &str, text: &str) -> oxir_ir::Module {
    oxir_naga::compile(
        oxir_naga::ShaderSource::Wgsl(text),
        name,
        &Default::default(),
    )
    .unwrap()
}

/// oxir's SPIR-V for WGSL text, checked by `spirv-val` as [`spirv_of`] does.
pub fn spirv_of_wgsl(relative: &str, text: &str) -> Vec<u32> {
    let module = module_of_wgsl(relative, text);
    let words = oxir_spirv::compile(&module, &Default::default()).unwrap();
    static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!(
        "oxir-vulkan-{}-{n}-{}.spv",
        std::process::id(),
        relative.replace('/', "_")
    ));
    std::fs::write(&file, oxir_spirv::to_bytes(&words)).unwrap();
    match std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1"])
        .arg(&file)
        .output()
    {
        Ok(o) => assert!(
            o.status.success(),
            "spirv-val rejects oxir's SPIR-V for {relative}: {}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(_) if std::env::var("OXIR_REQUIRE_VULKAN").as_deref() == Ok("1") => {
            panic!("spirv-val is not installed (scripts/test.sh installs it)")
        }
        Err(_) => eprintln!("spirv-val is not installed: {relative} not validated"),
    }
    let _ = std::fs::remove_file(&file);
    words
}
