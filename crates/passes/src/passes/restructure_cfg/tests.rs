//! Unit tests of the restructuring internals.

use super::*;
use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};

fn run_text(text: &str) -> (Module, RestructureCfgInfo) {
    let mut module = parse_module(text).expect("parses");
    let info = run_on_module(&mut module);
    (module, info)
}

#[test]
fn debug_print() {
    let Ok(path) = std::env::var("OXIR_RESTRUCTURE_DEBUG") else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("readable");
    let (module, info) = run_text(&text);
    eprintln!("{info:?}\n{}", print_module(&module, View::Flat));
}
