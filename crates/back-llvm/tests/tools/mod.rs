//! The LLVM and PTX tools the tests run: `llc` / `opt` (`OXIR_LLC` / `OXIR_OPT`, then
//! `llc-22` / `opt-22`, then `-21`) and `ptxas` (`OXIR_PTXAS`, then `ptxas` on `PATH`,
//! then the cache folder `scripts/test.sh` fills, `~/.cache/oxir/ptxas/ptxas`). A missing
//! tool skips its check with a visible message, or fails the test when
//! `OXIR_REQUIRE_LLVM=1` (as `scripts/test.sh` sets).

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

fn runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn find(var: &str, names: &[String]) -> Option<String> {
    if let Ok(explicit) = std::env::var(var) {
        return Some(explicit);
    }
    names.iter().find(|n| runs(n)).cloned()
}

/// Whether a missing tool fails the test rather than skipping.
pub fn required() -> bool {
    std::env::var("OXIR_REQUIRE_LLVM").is_ok_and(|v| v == "1")
}

fn missing(what: &str) -> Option<String> {
    assert!(!required(), "{what} is missing and OXIR_REQUIRE_LLVM=1");
    eprintln!("SKIPPED: {what} is not installed (apt-get install llvm-22; scripts/test.sh installs the tools)");
    None
}

pub fn llc() -> Option<String> {
    find("OXIR_LLC", &["llc-22".into(), "llc-21".into()]).or_else(|| missing("llc-22"))
}

pub fn opt() -> Option<String> {
    find("OXIR_OPT", &["opt-22".into(), "opt-21".into()]).or_else(|| missing("opt-22"))
}

pub fn ptxas() -> Option<String> {
    let mut names = vec!["ptxas".to_string()];
    if let Some(home) = std::env::var_os("HOME") {
        names.push(
            PathBuf::from(home)
                .join(".cache/oxir/ptxas/ptxas")
                .display()
                .to_string(),
        );
    }
    find("OXIR_PTXAS", &names).or_else(|| missing("ptxas (from the nvidia-cuda-nvcc-cu12 wheel)"))
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A fresh temporary path ending in `ext`.
pub fn temp(ext: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("oxir-llvm-test-{}-{n}.{ext}", std::process::id()))
}

/// Runs `tool args...`; `Err` carries its output.
pub fn run(tool: &str, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| format!("{tool}: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `opt -passes=verify` on `ll`.
pub fn verify(opt: &str, ll: &str) -> Result<(), String> {
    let path = temp("ll");
    std::fs::write(&path, ll).map_err(|e| e.to_string())?;
    let r = run(
        opt,
        &[
            "-passes=verify",
            "-disable-output",
            &path.display().to_string(),
        ],
    );
    let _ = std::fs::remove_file(&path);
    r.map(|_| ())
}

/// `llc FLAGS INPUT -o OUTPUT` on `ll`: the output file's bytes.
fn llc_output(llc: &str, ll: &str, flags: &[&str], ext: &str) -> Result<Vec<u8>, String> {
    let path = temp("ll");
    let out = temp(ext);
    std::fs::write(&path, ll).map_err(|e| e.to_string())?;
    let mut args: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    args.extend([
        path.display().to_string(),
        "-o".into(),
        out.display().to_string(),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run(llc, &args);
    let _ = std::fs::remove_file(&path);
    let bytes = r.and_then(|_| std::fs::read(&out).map_err(|e| e.to_string()));
    let _ = std::fs::remove_file(&out);
    bytes
}

/// `llc -march=nvptx64 -mcpu=ARCH` on `ll`: the PTX text.
pub fn ptx(llc: &str, ll: &str, arch: &str) -> Result<String, String> {
    let cpu = format!("-mcpu={arch}");
    let bytes = llc_output(llc, ll, &["-march=nvptx64", &cpu], "ptx")?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

/// [`ptx`] with extra `llc` flags (`-mattr=+ptx62`).
pub fn ptx_with(llc: &str, ll: &str, arch: &str, extra: &[&str]) -> Result<String, String> {
    let cpu = format!("-mcpu={arch}");
    let mut flags = vec!["-march=nvptx64", cpu.as_str()];
    flags.extend_from_slice(extra);
    let bytes = llc_output(llc, ll, &flags, "ptx")?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

/// `llc -filetype=obj -relocation-model=pic` on `ll` (the host target's code generation).
pub fn host_object(llc: &str, ll: &str) -> Result<(), String> {
    llc_output(llc, ll, &["-filetype=obj", "-relocation-model=pic"], "o").map(|_| ())
}

/// `ptxas --gpu-name ARCH` on `ptx`.
pub fn assemble(ptxas: &str, ptx: &str, arch: &str) -> Result<(), String> {
    let path = temp("ptx");
    let out = temp("cubin");
    std::fs::write(&path, ptx).map_err(|e| e.to_string())?;
    let r = run(
        ptxas,
        &[
            "--gpu-name",
            arch,
            &path.display().to_string(),
            "-o",
            &out.display().to_string(),
        ],
    );
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&out);
    r.map(|_| ())
}
