// Data-dependent texture coordinates, mip levels, array layers and sample indices: run
// with random 32-bit integers they are out of range about half of the time, and WGSL's
// bounds guarantee (an out-of-range `textureLoad` reads zero, an out-of-range
// `textureStore` is skipped) must hold on every engine.
// Written for oxir's bounds-check tests.

@group(0) @binding(0) var<storage, read> idx: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<u32>>;
@group(0) @binding(2) var sampled: texture_2d<u32>;
@group(0) @binding(3) var layered: texture_2d_array<f32>;
@group(0) @binding(4) var multi: texture_multisampled_2d<f32>;
@group(0) @binding(5) var grid: texture_storage_2d<r32uint, read>;
@group(0) @binding(6) var stack: texture_storage_2d_array<r32uint, write>;

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let g = gid.x;
    let a = idx[g];
    let b = idx[g + 8u];
    // Each coordinate in [-4, 12) of a side of 8; level 0 or 1 of one level; layer 0..3
    // of 2; sample 0..7 of 4.
    let c = vec2<i32>(i32(a & 15u) - 4, i32((a >> 4u) & 15u) - 4);
    let level = i32(b & 1u);
    let layer = (b >> 1u) & 3u;
    let sample = (b >> 3u) & 7u;
    out[g * 4u] = textureLoad(sampled, c, level);
    out[g * 4u + 1u] = bitcast<vec4<u32>>(textureLoad(layered, c, layer, 0));
    out[g * 4u + 2u] = bitcast<vec4<u32>>(textureLoad(multi, c, sample))
        + textureLoad(grid, vec2<u32>(a, b));
    out[g * 4u + 3u] = textureLoad(grid, c);
    // One texel per invocation (x = g), a row and layer that may be out of range.
    textureStore(stack, vec2<i32>(i32(g), c.y), i32(layer), vec4<u32>(g + 1u));
}
