//! Rendering of rejected input: parse errors with a source snippet, verifier errors with
//! the function, block and instruction they concern.

use crate::files::input_name;
use codespan_reporting::diagnostic::{Diagnostic, Label};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{
    self,
    termcolor::{ColorChoice, StandardStream},
};
use oxir_ir::parser::ParseError;
use oxir_ir::verifier::VerifierReport;
use std::path::Path;

/// Why a command failed; decides the exit code.
pub enum Failure {
    /// The input was rejected; a diagnostic was already printed (exit 1).
    Rejected,
    /// Usage or I/O error (exit 2).
    Usage(String),
}

fn color_choice() -> ColorChoice {
    if std::env::var_os("NO_COLOR").is_some() {
        ColorChoice::Never
    } else {
        ColorChoice::Auto
    }
}

/// Byte offset of a 1-based line and column in `text` (clamped to the text).
fn byte_offset(text: &str, line: u32, column: u32) -> usize {
    let mut offset = 0usize;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            let col_bytes: usize = l
                .chars()
                .take(column.saturating_sub(1) as usize)
                .map(char::len_utf8)
                .sum();
            return (offset + col_bytes).min(text.len());
        }
        offset += l.len();
    }
    text.len()
}

/// Prints `FILE:LINE:COLUMN: error: message` and a source snippet.
pub fn report_parse_error(path: &Path, text: &str, error: &ParseError) {
    let name = input_name(path);
    eprintln!(
        "{name}:{}:{}: error: {}",
        error.line, error.column, error.message
    );
    let file = SimpleFile::new(name, text);
    let start = byte_offset(text, error.line, error.column);
    let end = (start + 1).min(text.len()).max(start);
    let diagnostic = Diagnostic::error()
        .with_message(&error.message)
        .with_labels(vec![Label::primary((), start..end)]);
    let writer = StandardStream::stderr(color_choice());
    let config = term::Config::default();
    let _ = term::emit_to_write_style(&mut writer.lock(), &config, &file, &diagnostic);
}

/// Prints every verifier error as `FILE: error: <location>: message`.
pub fn report_verifier_errors(path: &Path, report: &VerifierReport) {
    let name = input_name(path);
    for error in &report.errors {
        eprintln!("{name}: error: {error}");
    }
    eprintln!("{name}: {} verifier error(s)", report.errors.len());
}
