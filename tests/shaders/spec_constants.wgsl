// Overrides read in function bodies, for `oxir compile --spec-constants`: kept as SPIR-V
// specialization constants, their defaults run unchanged, and a pipeline that sets
// their SpecIds gets what `oxir run --override` computes (crates/cli/tests/spec_constants.rs).
// Ids: `@id(7) bias`; the others in declaration order take the lowest free ids:
// scale 0, negate 1, shift 2, offset 3, unused 4.
// Written for oxir's tests.
@id(7) override bias: u32 = 3u;
override scale: f32 = 1.5;
override negate: bool = true;
override shift: i32 = -2;
override offset: u32 = 2u * 5u;
override unused: u32 = 1u;

@group(0) @binding(0) var<storage, read_write> out_f: array<f32, 64>;
@group(0) @binding(1) var<storage, read_write> out_u: array<u32, 64>;

fn scaled(x: u32) -> f32 {
    return f32(x) * scale;
}

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    var f = scaled(i) + f32(bias);
    if negate {
        f = -f;
    }
    out_f[i] = f;
    out_u[i] = u32(i32(i) * shift + 1000) + bias * 10000u + offset;
}
