//! The size limits of `oxir run`, checked before anything is allocated.
//!
//! - **Buffer bytes**: every `--buffer` SPEC (`zero:N`, `random:N`, `@FILE`, typed values),
//!   `--default-size`, and every binding's minimum size are at most the buffer cap:
//!   `--max-buffer-size BYTES`, else `OXIR_MAX_BUFFER_BYTES`, else
//!   [`DEFAULT_MAX_BUFFER_BYTES`] (256 MiB).
//! - **`@FILE`** inputs are regular files (not `/dev/zero`, a FIFO or a directory) no larger
//!   than the buffer cap: the size is checked from the metadata before reading, and the
//!   read itself stops one byte past the cap (a file that grows meanwhile is refused too).
//! - **Textures**: each side is at most [`MAX_TEXTURE_SIDE`] (a zero side is a usage
//!   error); the interpreter's storage of a
//!   texture (`W × H × L × samples` texels of [`INTERP_TEXEL_BYTES`] bytes) is at most the
//!   buffer cap, computed with overflow-checked arithmetic.
//! - **Dispatch**: each workgroup count is at most [`MAX_DISPATCH_PER_DIMENSION`] (WebGPU's
//!   `maxComputeWorkgroupsPerDimension` and Vulkan's minimum `maxComputeWorkGroupCount`).
//!
//! A limit exceeded is rejected input (exit 1) with a message naming the limit and the option
//! that changes it. Not done here: the interpreter's memory for private, workgroup and
//! function variables (`--max-memory`, [`oxir_interp::Options::max_memory_bytes`]) and the
//! workgroup size (the verifier, and the Vulkan runner against the device).

use crate::diagnostics::Failure;
use std::io::Read;
use std::path::Path;

/// The buffer cap when neither `--max-buffer-size` nor `OXIR_MAX_BUFFER_BYTES` sets one.
pub(crate) const DEFAULT_MAX_BUFFER_BYTES: u64 = 256 << 20;

/// The environment variable that sets the buffer cap when `--max-buffer-size` does not.
pub(crate) const MAX_BUFFER_ENV: &str = "OXIR_MAX_BUFFER_BYTES";

/// The largest side of a `--texture`.
pub(crate) const MAX_TEXTURE_SIDE: u32 = 4096;

/// Bytes the interpreter stores per texel (four 32-bit channels).
pub(crate) const INTERP_TEXEL_BYTES: u64 = 16;

/// The largest workgroup count per dimension of `--dispatch`.
pub(crate) const MAX_DISPATCH_PER_DIMENSION: u32 = 65_535;

/// The name of the buffer cap in messages.
const BUFFER_CAP: &str = "the buffer size limit (--max-buffer-size / OXIR_MAX_BUFFER_BYTES)";

/// A limit was exceeded: the message on stderr, exit 1.
pub(crate) fn exceeded(message: impl std::fmt::Display) -> Failure {
    eprintln!("error: {message}");
    Failure::Rejected
}

/// The buffer cap: `flag`, else the environment variable, else the default.
pub(crate) fn buffer_cap(flag: Option<u64>) -> Result<u64, Failure> {
    if let Some(cap) = flag {
        return Ok(cap);
    }
    match std::env::var(MAX_BUFFER_ENV) {
        Ok(text) => text
            .trim()
            .parse::<u64>()
            .map_err(|_| Failure::Usage(format!("{MAX_BUFFER_ENV}=`{text}` is not a byte count"))),
        Err(_) => Ok(DEFAULT_MAX_BUFFER_BYTES),
    }
}

/// `bytes` as a length, when it is within `cap`; `what` names the input in the message.
pub(crate) fn check_bytes(what: &str, bytes: u64, cap: u64) -> Result<usize, Failure> {
    match usize::try_from(bytes) {
        Ok(n) if bytes <= cap => Ok(n),
        _ => Err(exceeded(format!(
            "{what}: {bytes} bytes exceeds {BUFFER_CAP} of {cap} bytes"
        ))),
    }
}

/// The bytes of `@FILE`: a regular file of at most `cap` bytes, read with a bounded reader.
pub(crate) fn read_file(path: &Path, what: &str, cap: u64) -> Result<Vec<u8>, Failure> {
    let shown = path.display();
    let io = |e: std::io::Error| Failure::Usage(format!("{what}: cannot read {shown}: {e}"));
    let metadata = std::fs::metadata(path).map_err(io)?;
    if !metadata.is_file() {
        return Err(exceeded(format!(
            "{what}: {shown} is not a regular file (a device, pipe or directory has no \
             bounded size)"
        )));
    }
    check_bytes(&format!("{what} ({shown})"), metadata.len(), cap)?;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(io)?
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    check_bytes(&format!("{what} ({shown})"), bytes.len() as u64, cap)?;
    Ok(bytes)
}

/// Checks a texture's sides and the interpreter's storage of it against the limits.
pub(crate) fn check_texture(
    what: &str,
    extent: [u32; 3],
    samples: u32,
    cap: u64,
) -> Result<(), Failure> {
    if extent.iter().any(|&e| e > MAX_TEXTURE_SIDE) {
        return Err(exceeded(format!(
            "{what}: every side must be at most {MAX_TEXTURE_SIDE} (MAX_TEXTURE_SIDE)"
        )));
    }
    let bytes = extent
        .iter()
        .chain([samples].iter())
        .try_fold(INTERP_TEXEL_BYTES, |n, &d| n.checked_mul(u64::from(d)));
    let [w, h, l] = extent;
    match bytes {
        Some(bytes) if bytes <= cap => Ok(()),
        _ => Err(exceeded(format!(
            "{what}: {w}x{h}x{l} texels x {samples} samples x {INTERP_TEXEL_BYTES} bytes \
             exceeds {BUFFER_CAP} of {cap} bytes"
        ))),
    }
}

/// Checks the workgroup counts of `--dispatch`.
pub(crate) fn check_dispatch(groups: [u32; 3]) -> Result<(), Failure> {
    if groups.iter().any(|&g| g > MAX_DISPATCH_PER_DIMENSION) {
        let [x, y, z] = groups;
        return Err(exceeded(format!(
            "--dispatch {x},{y},{z}: a workgroup count exceeds {MAX_DISPATCH_PER_DIMENSION} \
             (MAX_DISPATCH_PER_DIMENSION)"
        )));
    }
    Ok(())
}
