//! oxir text → parser → verifier (default and every option); a module that verifies
//! prints and parses back to a module that verifies.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxir_ir::verifier::{verify_module, VerifierOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = oxir_ir::parser::parse_module(text) else {
        return;
    };
    let _ = verify_module(&module, &VerifierOptions::all()).to_string();
    if verify_module(&module, &VerifierOptions::default()).succeeded() {
        oxir_fuzz::assert_round_trips(&module, "parsed text");
    }
});
