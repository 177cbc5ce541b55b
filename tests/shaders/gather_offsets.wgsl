// Gathers and constant texel offsets in a compute kernel, so that the interpreter and
// Vulkan compare them on seeded textures: colour gathers of each component (with and
// without an offset, on a plain and an arrayed texture), explicit-level samples with
// offsets (the harness's samplers are nearest / clamp-to-edge, so an offset near an
// edge clamps), depth gathers and depth comparisons with offsets, and
// textureSampleBaseClampToEdge.
// Written for oxir's execution-equality tests.

@group(0) @binding(0) var color: texture_2d<f32>;
@group(0) @binding(1) var layers: texture_2d_array<f32>;
@group(0) @binding(2) var depth: texture_depth_2d;
@group(0) @binding(3) var nearest: sampler;
@group(0) @binding(4) var compare: sampler_comparison;
@group(1) @binding(0) var<storage, read_write> out: array<vec4<f32>, 576>;

@compute @workgroup_size(8, 4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    // One slot per invocation of up to two workgroups along x (the harness dispatches 2).
    let t = id.y * 16u + id.x;
    // Texel centres and points between them, over the 8x8 textures the harness makes.
    let uv = (vec2<f32>(id.xy) + vec2<f32>(0.25, 0.75)) / 8.0;
    let base = 8u * t;
    out[base] = textureGather(0, color, nearest, uv);
    out[base + 1u] = textureGather(1, color, nearest, uv, vec2<i32>(1, -1));
    out[base + 2u] = textureGather(3, layers, nearest, uv, 1, vec2<i32>(-2, 0));
    out[base + 3u] = textureSampleLevel(color, nearest, uv, 0.0, vec2<i32>(-1, 2));
    out[base + 4u] = textureSampleLevel(layers, nearest, uv, 1, 0.0, vec2<i32>(7, -8));
    out[base + 5u] = textureGather(depth, nearest, uv, vec2<i32>(0, 1));
    out[base + 6u] = textureGatherCompare(depth, compare, uv, 0.5, vec2<i32>(-1, -1));
    out[base + 7u] = vec4<f32>(
        textureSampleCompareLevel(depth, compare, uv, 0.5, vec2<i32>(2, 2)),
        textureSampleCompareLevel(depth, compare, uv, 0.25),
        textureGather(2, color, nearest, uv).x,
        0.0,
    );
    // Level 0 at the coordinate clamped half a texel inside the edges (uv reaches 2.0).
    out[512u + t] = textureSampleBaseClampToEdge(color, nearest, uv - vec2<f32>(0.5, 0.0));
}
