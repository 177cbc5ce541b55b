//! Running `spirv-val` on words from a test.

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Whether `spirv-val` runs here; prints a visible SKIPPED line (naming `test`) when not.
pub fn have_spirv_val(test: &str) -> bool {
    let ok = Command::new("spirv-val").arg("--version").output().is_ok();
    if !ok {
        eprintln!(
            "SKIPPED ({test}): spirv-val is not installed (apt-get install spirv-tools; \
             scripts/test.sh installs it); modules were written but not validated"
        );
    }
    ok
}

/// `spirv-val --target-env ENV` on `words` (written to a fresh temporary file); `Err`
/// carries its output. From `vulkan1.2` uniform buffers may use the standard (std430)
/// layout (`--uniform-buffer-standard-layout`): oxir writes such buffers only for those
/// environments, where the device feature exists.
pub fn spirv_val(words: &[u32], env: &str) -> Result<(), String> {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("oxir-spirv-val-{}-{n}.spv", std::process::id()));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut command = Command::new("spirv-val");
    command.arg("--target-env").arg(env);
    if matches!(env, "vulkan1.2" | "vulkan1.3") {
        command.arg("--uniform-buffer-standard-layout");
    }
    let out = command.arg(&path).output();
    let _ = std::fs::remove_file(&path);
    let out = out.map_err(|e| format!("spirv-val: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
