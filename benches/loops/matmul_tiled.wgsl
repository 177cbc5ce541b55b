// C = A * B for 16x16 row-major matrices in 4x4 tiles: each workgroup loads a tile of A
// and of B into workgroup memory per step, with barriers around the inner product.
@group(0) @binding(0) var<storage, read> a: array<f32, 256>;
@group(0) @binding(1) var<storage, read> b: array<f32, 256>;
@group(0) @binding(2) var<storage, read_write> c: array<f32, 256>;

var<workgroup> tile_a: array<f32, 16>;
var<workgroup> tile_b: array<f32, 16>;

@compute @workgroup_size(4, 4)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let row = wid.y * 4u + lid.y;
    let col = wid.x * 4u + lid.x;
    var acc = 0.0;
    for (var t = 0u; t < 4u; t = t + 1u) {
        tile_a[lid.y * 4u + lid.x] = a[row * 16u + t * 4u + lid.x];
        tile_b[lid.y * 4u + lid.x] = b[(t * 4u + lid.y) * 16u + col];
        workgroupBarrier();
        for (var k = 0u; k < 4u; k = k + 1u) {
            acc = acc + tile_a[lid.y * 4u + k] * tile_b[k * 4u + lid.x];
        }
        workgroupBarrier();
    }
    c[row * 16u + col] = acc;
}
