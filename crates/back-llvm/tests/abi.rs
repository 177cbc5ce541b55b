//! The kernel entry ABI, checked in the final artifact: golden PTX `.entry` signatures
//! (parameter kinds, sizes and alignments) for storage buffers and for uniform blocks with
//! padding, bool and f16 members and nested arrays. The expected sizes are worked out by
//! hand from the std140 rules in `oxir_ir::data_layout`'s table, not taken from the code.

mod tools;

use oxir_llvm::{write_module, TargetDesc};

/// `%U`: `a: f32` at 0, `b: vec3<f32>` at 16 (vec3 aligns to 16), `c: u32` at 28;
/// size 32, align 16. `%B`: `flag: bool` at 0 (4 bytes), `h: f16` at 4, `n:
/// array<array<u32, 2>, 2>` at 16 (std140 strides: inner 16, outer 32, size 64);
/// size 80, align 16.
const KERNEL: &str = "const c0: u32 = 0\nconst c2: u32 = 2\n\
    struct %U { a: f32, b: vec3<f32>, c: u32 }\n\
    struct %B { flag: bool, h: f16, n: array<array<u32, 2>, 2> }\n\
    global @out: storage(read_write) array<u32> binding(0, 0)\n\
    global @u: uniform %U binding(0, 1)\n\
    global @b: uniform %B binding(0, 2)\n\
    kernel @abi() workgroup_size(32, 2, 1) {\nblock0:\n\
    v0: ptr<uniform, u32> = access @u, c2\n    v1: u32 = load v0\n\
    v2: ptr<uniform, u32> = access @b, c2, c0, c0\n    v3: u32 = load v2\n\
    v4: u32 = add v1, v3\n    v5: ptr<storage(read_write), u32> = access @out, c0\n    store v5, v4\n    return\n}\n";

fn entry_signature(ptx: &str) -> String {
    let start = ptx.find(".visible .entry").expect("an entry");
    let end = ptx[start..].find('{').map(|e| start + e).expect("a body");
    ptx[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn entry_signature_of_buffers_and_padded_uniforms() {
    let module = oxir_ir::parser::parse_module(KERNEL).unwrap();
    let ll = write_module(&module, &TargetDesc::nvptx()).unwrap();
    assert!(
        ll.contains("ptr byval(<{ float, [12 x i8], [3 x float], i32 }>) align 16 %g.u"),
        "{ll}"
    );
    assert!(
        ll.contains(
            "ptr byval(<{ i32, half, [10 x i8], [2 x [2 x <{ i32, [12 x i8] }>]] }>) align 16 %g.b"
        ),
        "{ll}"
    );
    let (Some(llc), Some(ptxas)) = (tools::llc(), tools::ptxas()) else {
        return;
    };
    let ptx = tools::ptx(&llc, &ll, "sm_80").unwrap();
    assert_eq!(
        entry_signature(&ptx),
        ".visible .entry abi( .param .u64 .ptr .global .align 1 abi_param_0, .param .u64 abi_param_1, \
         .param .align 16 .b8 abi_param_2[32], .param .align 16 .b8 abi_param_3[80] ) .reqntid 32, 2, 1"
    );
    tools::assemble(&ptxas, &ptx, "sm_80").unwrap();
}
