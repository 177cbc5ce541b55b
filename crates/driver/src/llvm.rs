//! The LLVM targets: `oxir_llvm`'s text for NVPTX, and PTX through the LLVM tools.
//!
//! Tools are found once per compile: `llc` from `OXIR_LLC`, then `llc-22`, then `llc-21`
//! (the first that runs); `opt` and `llvm-link` from `OXIR_OPT` / `OXIR_LLVM_LINK`, else
//! the sibling of the chosen `llc` (`llc-22` → `opt-22`), so all three share one LLVM
//! major. The GPU is `--arch`, then `OXIR_CUDA_ARCH`, then `sm_80` (a module with
//! subgroup collectives gets `-mattr=+ptx62` below sm_75). Elementary functions
//! call libdevice, linked with `llvm-link --only-needed` from `OXIR_LIBDEVICE` or
//! `~/.cache/oxir/ptxas/libdevice.10.bc` (where `scripts/test.sh` unpacks it). `-O` runs
//! `opt -O2` before `llc`; without it `opt -passes=verify` still checks the module.
//! The module arrives prepared (the target pipeline, `oxir_llvm::pipeline`, has run).
//! `OXIR_DUMP_LLVM=DIR` writes `NAME.ll`, `NAME.opt.ll` and `NAME.ptx` there.

use crate::{CompileOptions, Error, OptLevel};
use oxir_ir::Module;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};

/// The LLVM tools of one major version.
struct Tools {
    llc: String,
    opt: String,
    link: String,
}

fn runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn sibling(llc: &str, name: &str) -> String {
    let path = PathBuf::from(llc);
    let file = path.file_name().and_then(|f| f.to_str()).unwrap_or("llc");
    let renamed = file.replacen("llc", name, 1);
    path.with_file_name(renamed).display().to_string()
}

impl Tools {
    fn find() -> Result<Tools, Error> {
        let llc = match std::env::var("OXIR_LLC") {
            Ok(explicit) => explicit,
            Err(_) => ["llc-22", "llc-21"]
                .into_iter()
                .find(|t| runs(t))
                .map(String::from)
                .ok_or_else(|| Error::Tool {
                    tool: "llc".into(),
                    message: "no llc-22 or llc-21 found (install llvm-22, or set OXIR_LLC)".into(),
                })?,
        };
        let opt = std::env::var("OXIR_OPT").unwrap_or_else(|_| sibling(&llc, "opt"));
        let link = std::env::var("OXIR_LLVM_LINK").unwrap_or_else(|_| sibling(&llc, "llvm-link"));
        Ok(Tools { llc, opt, link })
    }
}

/// The GPU architecture: `--arch`, then `OXIR_CUDA_ARCH`, then `sm_80`.
pub(crate) fn cuda_arch(options: &CompileOptions) -> Result<String, Error> {
    let arch = options
        .cuda_arch
        .clone()
        .or_else(|| std::env::var("OXIR_CUDA_ARCH").ok())
        .unwrap_or_else(|| "sm_80".into());
    let digits = arch.strip_prefix("sm_").unwrap_or("");
    let number = digits.trim_end_matches(|c: char| c.is_ascii_lowercase());
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
        return Err(Error::BadArch(arch));
    }
    Ok(arch)
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A scratch folder for one tool run, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch, Error> {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("oxir-llvm-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| io_error("temporary folder", &e))?;
        Ok(Scratch(dir))
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn io_error(what: &str, e: &std::io::Error) -> Error {
    Error::Tool {
        tool: what.into(),
        message: e.to_string(),
    }
}

fn run(tool: &str, args: &[&str]) -> Result<(), Error> {
    let out = Command::new(tool)
        .args(args)
        .output()
        .map_err(|e| Error::Tool {
            tool: tool.into(),
            message: format!("cannot run it: {e}"),
        })?;
    if out.status.success() {
        return Ok(());
    }
    Err(Error::Tool {
        tool: tool.into(),
        message: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    })
}

fn libdevice() -> Result<String, Error> {
    let path = match std::env::var_os("OXIR_LIBDEVICE") {
        Some(p) => PathBuf::from(p),
        None => std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".cache/oxir/ptxas/libdevice.10.bc"))
            .unwrap_or_default(),
    };
    if path.is_file() {
        Ok(path.display().to_string())
    } else {
        Err(Error::Tool {
            tool: "libdevice".into(),
            message: "elementary functions need libdevice.10.bc: set OXIR_LIBDEVICE (scripts/test.sh unpacks it from the nvidia-cuda-nvcc-cu12 wheel)".into(),
        })
    }
}

fn dump(name: &str, text: &str) {
    if let Some(dir) = std::env::var_os("OXIR_DUMP_LLVM") {
        let dir = PathBuf::from(dir);
        if std::fs::create_dir_all(&dir).is_ok() {
            let _ = std::fs::write(dir.join(name), text);
        }
    }
}

fn read(path: &str) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| io_error(path, &e))
}

/// The module's LLVM IR for NVPTX: linked with libdevice when it calls it, then `opt -O2`
/// at `-O` (else `opt -passes=verify`). `llc` is run by [`emit_ptx`].
fn optimised_llvm(
    module: Module,
    options: &CompileOptions,
    tools: &Tools,
    scratch: &Scratch,
) -> Result<String, Error> {
    let text = oxir_llvm::write_module(&module, &oxir_llvm::TargetDesc::nvptx())
        .map_err(Error::from_llvm)?;
    dump("module.ll", &text);
    let input = scratch.path("in.ll");
    std::fs::write(&input, &text).map_err(|e| io_error(&input, &e))?;
    let linked = scratch.path("linked.ll");
    if text.contains("@__nv_") {
        let lib = libdevice()?;
        run(
            &tools.link,
            &["-S", "--only-needed", &input, &lib, "-o", &linked],
        )?;
    } else {
        std::fs::copy(&input, &linked).map_err(|e| io_error(&linked, &e))?;
    }
    let out = scratch.path("opt.ll");
    match options.opt_level {
        OptLevel::O1 => run(&tools.opt, &["-S", "-O2", &linked, "-o", &out])?,
        OptLevel::O0 => {
            run(&tools.opt, &["-passes=verify", "-disable-output", &linked])?;
            std::fs::copy(&linked, &out).map_err(|e| io_error(&out, &e))?;
        }
    }
    let optimised = read(&out)?;
    dump("module.opt.ll", &optimised);
    Ok(optimised)
}

/// `--target llvm-nvptx`: the writer's text; at `-O`, after `opt -O2`.
pub(crate) fn emit_llvm(module: Module, options: &CompileOptions) -> Result<String, Error> {
    match options.opt_level {
        OptLevel::O0 => oxir_llvm::write_module(&module, &oxir_llvm::TargetDesc::nvptx())
            .map_err(Error::from_llvm),
        OptLevel::O1 => {
            let tools = Tools::find()?;
            let scratch = Scratch::new()?;
            optimised_llvm(module, options, &tools, &scratch)
        }
    }
}

/// `--target ptx`: the module through `llc -march=nvptx64 -mcpu=ARCH`.
pub(crate) fn emit_ptx(module: Module, options: &CompileOptions) -> Result<String, Error> {
    let arch = cuda_arch(options)?;
    let tools = Tools::find()?;
    let scratch = Scratch::new()?;
    let ll = optimised_llvm(module, options, &tools, &scratch)?;
    let ptx62 = needs_ptx62(&ll, &arch);
    let input = scratch.path("final.ll");
    std::fs::write(&input, ll).map_err(|e| io_error(&input, &e))?;
    let out = scratch.path("out.ptx");
    let cpu = format!("-mcpu={arch}");
    let mut args = vec!["-march=nvptx64", cpu.as_str()];
    if ptx62 {
        args.push("-mattr=+ptx62");
    }
    args.extend([input.as_str(), "-o", out.as_str()]);
    run(&tools.llc, &args)?;
    let ptx = read(&out)?;
    dump("module.ptx", &ptx);
    Ok(ptx)
}

/// Whether `llc` must be asked for PTX 6.2: the module reads the warp's active mask
/// (`activemask.b32`, the subgroup collectives), and `arch` is older than sm_75, whose
/// default PTX version is the first with it (`llc` defaults to PTX 6.0 for sm_70 and
/// older, and cannot select the intrinsic there).
fn needs_ptx62(ll: &str, arch: &str) -> bool {
    let number: String = arch
        .trim_start_matches("sm_")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    ll.contains("@llvm.nvvm.activemask") && number.parse::<u32>().is_ok_and(|n| n < 75)
}

/// A kernel compiled for this machine's CPU ([`crate::compile_host`]): a shared object in
/// a temporary folder (removed when this is dropped) and how to call it.
pub struct HostLibrary {
    _scratch: Scratch,
    path: PathBuf,
    /// The host interface of the kernel.
    pub kernel: oxir_llvm::host_abi::HostKernel,
}

impl HostLibrary {
    /// The shared object.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }
}

/// The host target: the writer's text for `TargetDesc::host()`, `opt -O2` at `-O` (else
/// `opt -passes=verify`), `llc -filetype=obj -relocation-model=pic` (`-O0` / `-O2`), and
/// the C compiler (`OXIR_CC`, else `cc`) linking a shared object with libm.
pub(crate) fn emit_host_library(
    module: Module,
    entry: &str,
    options: &CompileOptions,
) -> Result<HostLibrary, Error> {
    let target = oxir_llvm::TargetDesc::host();
    let kernel =
        oxir_llvm::host_abi::host_kernel(&module, entry).map_err(|message| Error::Tool {
            tool: "host entry".into(),
            message,
        })?;
    let text = oxir_llvm::write_module(&module, &target).map_err(Error::from_llvm)?;
    dump("module.host.ll", &text);
    let tools = Tools::find()?;
    let scratch = Scratch::new()?;
    let input = scratch.path("in.ll");
    std::fs::write(&input, &text).map_err(|e| io_error(&input, &e))?;
    let optimised = scratch.path("opt.ll");
    let codegen = match options.opt_level {
        OptLevel::O1 => {
            run(&tools.opt, &["-S", "-O2", &input, "-o", &optimised])?;
            "-O2"
        }
        OptLevel::O0 => {
            run(&tools.opt, &["-passes=verify", "-disable-output", &input])?;
            std::fs::copy(&input, &optimised).map_err(|e| io_error(&optimised, &e))?;
            "-O0"
        }
    };
    let object = scratch.path("kernel.o");
    run(
        &tools.llc,
        &[
            "-filetype=obj",
            "-relocation-model=pic",
            codegen,
            &optimised,
            "-o",
            &object,
        ],
    )?;
    let library = scratch.path("kernel.so");
    let cc = std::env::var("OXIR_CC").unwrap_or_else(|_| "cc".into());
    run(&cc, &["-shared", &object, "-o", &library, "-lm"])?;
    Ok(HostLibrary {
        path: PathBuf::from(library),
        _scratch: scratch,
        kernel,
    })
}

#[cfg(test)]
mod tests {
    use super::needs_ptx62;

    #[test]
    fn ptx62_only_for_the_active_mask_below_sm_75() {
        let warp = "declare i32 @llvm.nvvm.activemask()";
        assert!(needs_ptx62(warp, "sm_70"));
        assert!(needs_ptx62(warp, "sm_61"));
        assert!(!needs_ptx62(warp, "sm_75"));
        assert!(!needs_ptx62(warp, "sm_90a"));
        assert!(!needs_ptx62(
            "declare i32 @llvm.nvvm.read.ptx.sreg.laneid()",
            "sm_70"
        ));
    }
}
