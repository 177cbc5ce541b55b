// C = A * B for 8x8 row-major matrices, one invocation per element.
@group(0) @binding(0) var<storage, read> a: array<f32, 64>;
@group(0) @binding(1) var<storage, read> b: array<f32, 64>;
@group(0) @binding(2) var<storage, read_write> c: array<f32, 64>;

@compute @workgroup_size(8, 8)
fn main(@builtin(local_invocation_id) lid: vec3<u32>) {
    let row = lid.y;
    let col = lid.x;
    var acc = 0.0;
    for (var k = 0u; k < 8u; k = k + 1u) {
        acc = acc + a[row * 8u + k] * b[k * 8u + col];
    }
    c[row * 8u + col] = acc;
}
