//! Reading the command's input files, with the name every diagnostic gives them.
//!
//! `-` is standard input and is named `<stdin>`. A file that cannot be read is an I/O
//! error (exit 2); text that is not UTF-8 is rejected input (exit 1), whether it came from
//! a file or from standard input, and the message names it and the first bad byte.

use crate::diagnostics::Failure;
use std::io::Read;
use std::path::Path;

/// How diagnostics name `path`: `<stdin>` for `-`, the path otherwise.
pub fn input_name(path: &Path) -> String {
    if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// The bytes of `path` (`-`: standard input).
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, Failure> {
    let name = input_name(path);
    let cannot = |e: std::io::Error| Failure::Usage(format!("cannot read {name}: {e}"));
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map_err(cannot)?;
        return Ok(bytes);
    }
    std::fs::read(path).map_err(cannot)
}

/// The text of `path` (`-`: standard input); not UTF-8 is rejected input.
pub fn read_text(path: &Path) -> Result<String, Failure> {
    String::from_utf8(read_bytes(path)?).map_err(|e| {
        eprintln!(
            "{}: error: input is not UTF-8 (byte {})",
            input_name(path),
            e.utf8_error().valid_up_to()
        );
        Failure::Rejected
    })
}
