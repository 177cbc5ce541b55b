// 2-D 3x3 convolution over a 16x16 image with clamped edges.
@group(0) @binding(0) var<storage, read> image: array<f32, 256>;
@group(0) @binding(1) var<storage, read> weights: array<f32, 9>;
@group(0) @binding(2) var<storage, read_write> result: array<f32, 256>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x >= 16u || gid.y >= 16u {
        return;
    }
    var acc = 0.0;
    for (var dy = 0u; dy < 3u; dy = dy + 1u) {
        for (var dx = 0u; dx < 3u; dx = dx + 1u) {
            let x = clamp(i32(gid.x) + i32(dx) - 1, 0, 15);
            let y = clamp(i32(gid.y) + i32(dy) - 1, 0, 15);
            acc = acc + image[u32(y) * 16u + u32(x)] * weights[dy * 3u + dx];
        }
    }
    result[gid.y * 16u + gid.x] = acc;
}
