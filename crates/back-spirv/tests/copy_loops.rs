//! `spirv-copy-loops`: which whole-array copies become loops (large, adjacent load and
//! store, different layouts), that the result verifies and computes the same buffers in
//! the interpreter, and that the SPIR-V `-O` pipeline's words shrink.

use oxir_interp::{Buffers, Options};
use oxir_ir::verifier::{verify_module, VerifierOptions};

const COPIES: &str = "\
const c0: u32 = 0
global @out: storage(read_write) array<u32, 64> binding(0, 0)
global @src: storage(read_write) array<u32, 64> binding(0, 1)
global @small_out: storage(read_write) array<u32, 8> binding(0, 2)
global @small: storage(read_write) array<u32, 8> binding(0, 3)
global @tile: workgroup array<u32, 64>
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: ptr<function, array<u32, 64>> = alloca
    v1: array<u32, 64> = load @src
    store v0, v1
    v2: array<u32, 64> = load v0
    store @tile, v2
    v3: array<u32, 64> = load @tile
    store @out, v3
    v4: array<u32, 8> = load @small
    v5: ptr<function, array<u32, 8>> = alloca
    store v5, v4
    v6: array<u32, 8> = load v5
    store @small_out, v6
    v7: array<u32, 64> = load @src
    v8: ptr<storage(read_write), u32> = access @src, c0
    store v8, c0
    store @out, v7
    return
}
";

fn parse(text: &str) -> oxir_ir::Module {
    oxir_ir::parser::parse_module(text).unwrap_or_else(|e| panic!("{e}"))
}

fn run(module: &oxir_ir::Module) -> Buffers {
    let mut buffers = Buffers::new();
    buffers.insert((0, 1), oxir_interp::random_bytes(256, 3));
    buffers.insert((0, 3), oxir_interp::random_bytes(32, 4));
    oxir_interp::dispatch(module, "main", [1, 1, 1], &mut buffers, &Options::default())
        .unwrap_or_else(|e| panic!("{e}"));
    buffers
}

#[test]
fn large_copies_between_layouts_become_loops_and_compute_the_same() {
    let before = parse(COPIES);
    let mut after = before.clone();
    let info = oxir_spirv::copy_loops::run_on_module(&mut after);
    // storage -> function and workgroup -> storage loop; function -> workgroup has one
    // layout; the 8-element copies are small; the last copy has a store in between.
    assert_eq!(info.looped_copy_count, 2, "{info:?}");
    let report = verify_module(&after, &VerifierOptions::default());
    assert!(report.succeeded(), "{report}");
    assert_eq!(run(&before), run(&after));
    let again = oxir_spirv::copy_loops::run_on_module(&mut after.clone());
    assert_eq!(again.looped_copy_count, 0, "a second run changes nothing");
}

#[test]
fn the_o_pipeline_writes_fewer_words_for_a_large_copy() {
    let text = "\
global @out: storage(read_write) array<u32, 256> binding(0, 0)
global @tile: workgroup array<u32, 256>
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: array<u32, 256> = load @tile
    store @out, v0
    return
}
";
    let words = |optimize: bool| {
        let mut m = parse(text);
        let p = if optimize {
            oxir_spirv::optimizing_pipeline_with(Default::default(), Default::default())
        } else {
            oxir_spirv::pipeline_with(Default::default())
        };
        assert!(p.run(&mut m).succeeded());
        oxir_spirv::write_module(&m, &oxir_spirv::Options::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .len()
    };
    let (o0, o1) = (words(false), words(true));
    assert!(o1 * 4 < o0, "-O {o1} words, -O0 {o0}");
}
