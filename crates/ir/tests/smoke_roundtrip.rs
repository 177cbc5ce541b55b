use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};

#[test]
fn example_round_trips() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/clamp_scale.oxir"
    ))
    .unwrap();
    let m = parse_module(&text).unwrap_or_else(|e| panic!("{e}"));
    let structured = print_module(&m, View::Structured);
    assert_eq!(structured, text);
    let flat = print_module(&m, View::Flat);
    println!("{flat}");
    let m2 = parse_module(&flat).unwrap();
    assert_eq!(print_module(&m2, View::Flat), flat);
}
