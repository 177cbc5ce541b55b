//! What the writer leaves out: WGSL's division guards when the divisor is a constant that
//! cannot trigger them, and `if` arms that only branch to the merge.

use oxir_ir::Module;
use oxir_spirv::Options;

fn parse(text: &str) -> Module {
    oxir_ir::parser::parse_module(text).unwrap_or_else(|e| panic!("{e}"))
}

/// The disassembly of `text` through the SPIR-V driver pipeline (`-O0`).
fn spirv_text(text: &str) -> String {
    let mut module = parse(text);
    let stats = oxir_spirv::pipeline().run(&mut module);
    assert!(stats.error.is_none(), "{:?}", stats.error);
    let words = oxir_spirv::write_module(&module, &Options::default()).unwrap();
    if oxir_test_support::spirv_val::have_spirv_val("compact_code") {
        let checked = oxir_test_support::spirv_val::spirv_val(&words, "vulkan1.1");
        assert!(checked.is_ok(), "{checked:?}");
    }
    oxir_spirv::disassemble(&words).unwrap()
}

fn count(text: &str, op: &str) -> usize {
    text.lines()
        .filter(|l| l.split_whitespace().any(|w| w == op))
        .count()
}

fn division_kernel(divisor: &str, ty: &str) -> String {
    format!(
        "const c0: u32 = 0\n\
         const c1: {ty} = {divisor}\n\
         global @buf: storage(read_write) array<{ty}, 4> binding(0, 0)\n\
         kernel @main() workgroup_size(1, 1, 1) {{\n\
         block0:\n\
         \x20   v0: ptr<storage(read_write), {ty}> = access @buf, c0\n\
         \x20   v1: {ty} = load v0\n\
         \x20   v2: {ty} = div v1, c1\n\
         \x20   v3: {ty} = rem v2, c1\n\
         \x20   store v0, v3\n\
         \x20   return\n\
         }}\n"
    )
}

#[test]
fn constant_divisors_that_cannot_trigger_the_guards_divide_directly() {
    let plain = spirv_text(&division_kernel("7", "u32"));
    assert_eq!(count(&plain, "OpSelect"), 0, "{plain}");
    assert_eq!(count(&plain, "OpUDiv") + count(&plain, "OpUMod"), 2);
    let signed = spirv_text(&division_kernel("-3", "i32"));
    assert_eq!(count(&signed, "OpSelect"), 0, "{signed}");
    // x / 0 = x and MIN / -1 = MIN need the guard (one select per division).
    let zero = spirv_text(&division_kernel("0", "u32"));
    assert_eq!(count(&zero, "OpSelect"), 2, "{zero}");
    let minus_one = spirv_text(&division_kernel("-1", "i32"));
    assert_eq!(count(&minus_one, "OpSelect"), 2, "{minus_one}");
}

#[test]
fn an_if_arm_that_only_branches_to_the_merge_is_not_written() {
    // `if (x < 4) { buf[1] = x; }`: the else arm holds nothing, so the conditional
    // branch goes straight to the merge (3 blocks, not 4).
    let text = "\
const c0: u32 = 0
const c1: u32 = 1
const c4: u32 = 4
global @buf: storage(read_write) array<u32, 4> binding(0, 0)
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: ptr<storage(read_write), u32> = access @buf, c0
    v1: u32 = load v0
    v2: bool = lt v1, c4
    cond_br v2, block1, block2
block1:
    v3: ptr<storage(read_write), u32> = access @buf, c1
    store v3, v1
    br block2
block2:
    return
}
";
    let spirv = spirv_text(text);
    assert_eq!(count(&spirv, "OpLabel"), 3, "{spirv}");
    assert_eq!(count(&spirv, "OpSelectionMerge"), 1, "{spirv}");
}

/// A float vector times a `splat` whose only uses are such products is one
/// `OpVectorTimesScalar` per product and no `OpCompositeConstruct`; a splat with another
/// use, and an integer product, keep the composite and the plain multiply.
#[test]
fn splats_used_only_by_products_become_vector_times_scalar() {
    let kernel = |extra_use: bool, ty: &str, scalar: &str| {
        let store_splat = if extra_use {
            "    store v0, v4\n".to_string()
        } else {
            String::new()
        };
        format!(
            "const c0: u32 = 0\n\
             global @buf: storage(read_write) array<vec4<{ty}>, 4> binding(0, 0)\n\
             global @s: storage(read_write) array<{scalar}, 4> binding(0, 1)\n\
             kernel @main() workgroup_size(1, 1, 1) {{\n\
             block0:\n\
             \x20   v0: ptr<storage(read_write), vec4<{ty}>> = access @buf, c0\n\
             \x20   v1: vec4<{ty}> = load v0\n\
             \x20   v2: ptr<storage(read_write), {scalar}> = access @s, c0\n\
             \x20   v3: {scalar} = load v2\n\
             \x20   v4: vec4<{ty}> = splat v3\n\
             \x20   v5: vec4<{ty}> = mul v1, v4\n\
             \x20   v6: vec4<{ty}> = mul v4, v5\n\
             \x20   store v0, v6\n\
             {store_splat}\
             \x20   return\n\
             }}\n"
        )
    };
    let folded = spirv_text(&kernel(false, "f32", "f32"));
    assert_eq!(count(&folded, "OpVectorTimesScalar"), 2, "{folded}");
    assert_eq!(count(&folded, "OpCompositeConstruct"), 0, "{folded}");
    assert_eq!(count(&folded, "OpFMul"), 0, "{folded}");
    let kept = spirv_text(&kernel(true, "f32", "f32"));
    assert_eq!(count(&kept, "OpVectorTimesScalar"), 0, "{kept}");
    assert_eq!(count(&kept, "OpCompositeConstruct"), 1, "{kept}");
    let integer = spirv_text(&kernel(false, "u32", "u32"));
    assert_eq!(count(&integer, "OpVectorTimesScalar"), 0, "{integer}");
    assert_eq!(count(&integer, "OpIMul"), 2, "{integer}");
}
