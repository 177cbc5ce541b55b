//! Damaged text never makes the parser or verifier panic: every fixture truncated at every
//! byte, with any one line deleted, or with random bytes overwritten.

use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use proptest::prelude::*;
use std::path::Path;

fn fixture_texts() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests/ir");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "oxir"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// Parses, and when that succeeds verifies with every option and prints both views.
/// Returns whether the module parsed and verified.
fn exercise(text: &str) -> bool {
    match parse_module(text) {
        Ok(module) => {
            let _ = print_module(&module, View::Flat);
            let _ = print_module(&module, View::Structured);
            let _ = verify_module(&module, &VerifierOptions::all());
            verify_module(&module, &VerifierOptions::default()).succeeded()
        }
        Err(e) => {
            assert!(
                e.line >= 1 && e.column >= 1,
                "error without a position: {e}"
            );
            false
        }
    }
}

#[test]
fn every_truncation_and_line_deletion_is_handled() {
    let (mut rejected, mut accepted) = (0usize, 0usize);
    for text in fixture_texts() {
        for k in (0..text.len()).filter(|&k| text.is_char_boundary(k)) {
            if exercise(&text[..k]) {
                accepted += 1
            } else {
                rejected += 1
            }
        }
        let lines: Vec<&str> = text.lines().collect();
        for skip in 0..lines.len() {
            let damaged: String = lines
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            if exercise(&damaged) {
                accepted += 1
            } else {
                rejected += 1
            }
        }
    }
    eprintln!("truncations and deletions: {rejected} rejected, {accepted} still valid");
    assert!(
        rejected > 10 * accepted,
        "{rejected} rejected, {accepted} accepted"
    );
}

proptest! {
    #[test]
    fn random_byte_damage_never_panics(fixture in 0usize..64, edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let texts = fixture_texts();
        let mut bytes = texts[fixture % texts.len()].clone().into_bytes();
        for (position, byte) in edits {
            let at = position % bytes.len();
            bytes[at] = byte;
        }
        let text = String::from_utf8_lossy(&bytes);
        exercise(&text);
    }
}
