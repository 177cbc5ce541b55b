// Every storage texel format oxir has (bgra8unorm aside: SPIR-V declares it without a
// format, which the Vulkan runner cannot bind), one entry point per group of formats.
// Each invocation loads its texel from a seeded read-only texture, stores a changed
// value (floats scaled past the normalized range, so unorm and snorm clamp; integers
// with the low bit flipped, which stays in range) into a write-only texture of the same
// format, and writes the loaded bits to a buffer, so both directions of each format's
// conversion are compared.

@group(0) @binding(0) var<storage, read_write> loaded_eight_bit: array<vec4<u32>>;
@group(0) @binding(1) var src_r8unorm: texture_storage_2d<r8unorm, read>;
@group(0) @binding(2) var dst_r8unorm: texture_storage_2d<r8unorm, write>;
@group(0) @binding(3) var src_r8snorm: texture_storage_2d<r8snorm, read>;
@group(0) @binding(4) var dst_r8snorm: texture_storage_2d<r8snorm, write>;
@group(0) @binding(5) var src_r8uint: texture_storage_2d<r8uint, read>;
@group(0) @binding(6) var dst_r8uint: texture_storage_2d<r8uint, write>;
@group(0) @binding(7) var src_r8sint: texture_storage_2d<r8sint, read>;
@group(0) @binding(8) var dst_r8sint: texture_storage_2d<r8sint, write>;
@group(0) @binding(9) var src_rg8unorm: texture_storage_2d<rg8unorm, read>;
@group(0) @binding(10) var dst_rg8unorm: texture_storage_2d<rg8unorm, write>;
@group(0) @binding(11) var src_rg8snorm: texture_storage_2d<rg8snorm, read>;
@group(0) @binding(12) var dst_rg8snorm: texture_storage_2d<rg8snorm, write>;
@group(0) @binding(13) var src_rg8uint: texture_storage_2d<rg8uint, read>;
@group(0) @binding(14) var dst_rg8uint: texture_storage_2d<rg8uint, write>;
@group(0) @binding(15) var src_rg8sint: texture_storage_2d<rg8sint, read>;
@group(0) @binding(16) var dst_rg8sint: texture_storage_2d<rg8sint, write>;

@compute @workgroup_size(8, 4)
fn eight_bit(@builtin(global_invocation_id) id: vec3<u32>) {
  let p = vec2<i32>(id.xy);
  let t = id.y * 8u + id.x;
  let v0 = textureLoad(src_r8unorm, p);
  loaded_eight_bit[8u * t + 0u] = bitcast<vec4<u32>>(v0);
  textureStore(dst_r8unorm, p, v0 * 1.5 - vec4<f32>(0.25));
  let v1 = textureLoad(src_r8snorm, p);
  loaded_eight_bit[8u * t + 1u] = bitcast<vec4<u32>>(v1);
  textureStore(dst_r8snorm, p, v1 * 1.5 - vec4<f32>(0.25));
  let v2 = textureLoad(src_r8uint, p);
  loaded_eight_bit[8u * t + 2u] = bitcast<vec4<u32>>(v2);
  textureStore(dst_r8uint, p, v2 ^ vec4<u32>(1));
  let v3 = textureLoad(src_r8sint, p);
  loaded_eight_bit[8u * t + 3u] = bitcast<vec4<u32>>(v3);
  textureStore(dst_r8sint, p, v3 ^ vec4<i32>(1));
  let v4 = textureLoad(src_rg8unorm, p);
  loaded_eight_bit[8u * t + 4u] = bitcast<vec4<u32>>(v4);
  textureStore(dst_rg8unorm, p, v4 * 1.5 - vec4<f32>(0.25));
  let v5 = textureLoad(src_rg8snorm, p);
  loaded_eight_bit[8u * t + 5u] = bitcast<vec4<u32>>(v5);
  textureStore(dst_rg8snorm, p, v5 * 1.5 - vec4<f32>(0.25));
  let v6 = textureLoad(src_rg8uint, p);
  loaded_eight_bit[8u * t + 6u] = bitcast<vec4<u32>>(v6);
  textureStore(dst_rg8uint, p, v6 ^ vec4<u32>(1));
  let v7 = textureLoad(src_rg8sint, p);
  loaded_eight_bit[8u * t + 7u] = bitcast<vec4<u32>>(v7);
  textureStore(dst_rg8sint, p, v7 ^ vec4<i32>(1));
}

@group(1) @binding(0) var<storage, read_write> loaded_sixteen_bit: array<vec4<u32>>;
@group(1) @binding(1) var src_r16uint: texture_storage_2d<r16uint, read>;
@group(1) @binding(2) var dst_r16uint: texture_storage_2d<r16uint, write>;
@group(1) @binding(3) var src_r16sint: texture_storage_2d<r16sint, read>;
@group(1) @binding(4) var dst_r16sint: texture_storage_2d<r16sint, write>;
@group(1) @binding(5) var src_r16float: texture_storage_2d<r16float, read>;
@group(1) @binding(6) var dst_r16float: texture_storage_2d<r16float, write>;
@group(1) @binding(7) var src_r16unorm: texture_storage_2d<r16unorm, read>;
@group(1) @binding(8) var dst_r16unorm: texture_storage_2d<r16unorm, write>;
@group(1) @binding(9) var src_r16snorm: texture_storage_2d<r16snorm, read>;
@group(1) @binding(10) var dst_r16snorm: texture_storage_2d<r16snorm, write>;
@group(1) @binding(11) var src_rg16uint: texture_storage_2d<rg16uint, read>;
@group(1) @binding(12) var dst_rg16uint: texture_storage_2d<rg16uint, write>;
@group(1) @binding(13) var src_rg16sint: texture_storage_2d<rg16sint, read>;
@group(1) @binding(14) var dst_rg16sint: texture_storage_2d<rg16sint, write>;
@group(1) @binding(15) var src_rg16float: texture_storage_2d<rg16float, read>;
@group(1) @binding(16) var dst_rg16float: texture_storage_2d<rg16float, write>;
@group(1) @binding(17) var src_rg16unorm: texture_storage_2d<rg16unorm, read>;
@group(1) @binding(18) var dst_rg16unorm: texture_storage_2d<rg16unorm, write>;
@group(1) @binding(19) var src_rg16snorm: texture_storage_2d<rg16snorm, read>;
@group(1) @binding(20) var dst_rg16snorm: texture_storage_2d<rg16snorm, write>;

@compute @workgroup_size(8, 4)
fn sixteen_bit(@builtin(global_invocation_id) id: vec3<u32>) {
  let p = vec2<i32>(id.xy);
  let t = id.y * 8u + id.x;
  let v0 = textureLoad(src_r16uint, p);
  loaded_sixteen_bit[10u * t + 0u] = bitcast<vec4<u32>>(v0);
  textureStore(dst_r16uint, p, v0 ^ vec4<u32>(1));
  let v1 = textureLoad(src_r16sint, p);
  loaded_sixteen_bit[10u * t + 1u] = bitcast<vec4<u32>>(v1);
  textureStore(dst_r16sint, p, v1 ^ vec4<i32>(1));
  let v2 = textureLoad(src_r16float, p);
  loaded_sixteen_bit[10u * t + 2u] = bitcast<vec4<u32>>(v2);
  textureStore(dst_r16float, p, v2 * 1.5 - vec4<f32>(0.25));
  let v3 = textureLoad(src_r16unorm, p);
  loaded_sixteen_bit[10u * t + 3u] = bitcast<vec4<u32>>(v3);
  textureStore(dst_r16unorm, p, v3 * 1.5 - vec4<f32>(0.25));
  let v4 = textureLoad(src_r16snorm, p);
  loaded_sixteen_bit[10u * t + 4u] = bitcast<vec4<u32>>(v4);
  textureStore(dst_r16snorm, p, v4 * 1.5 - vec4<f32>(0.25));
  let v5 = textureLoad(src_rg16uint, p);
  loaded_sixteen_bit[10u * t + 5u] = bitcast<vec4<u32>>(v5);
  textureStore(dst_rg16uint, p, v5 ^ vec4<u32>(1));
  let v6 = textureLoad(src_rg16sint, p);
  loaded_sixteen_bit[10u * t + 6u] = bitcast<vec4<u32>>(v6);
  textureStore(dst_rg16sint, p, v6 ^ vec4<i32>(1));
  let v7 = textureLoad(src_rg16float, p);
  loaded_sixteen_bit[10u * t + 7u] = bitcast<vec4<u32>>(v7);
  textureStore(dst_rg16float, p, v7 * 1.5 - vec4<f32>(0.25));
  let v8 = textureLoad(src_rg16unorm, p);
  loaded_sixteen_bit[10u * t + 8u] = bitcast<vec4<u32>>(v8);
  textureStore(dst_rg16unorm, p, v8 * 1.5 - vec4<f32>(0.25));
  let v9 = textureLoad(src_rg16snorm, p);
  loaded_sixteen_bit[10u * t + 9u] = bitcast<vec4<u32>>(v9);
  textureStore(dst_rg16snorm, p, v9 * 1.5 - vec4<f32>(0.25));
}

@group(2) @binding(0) var<storage, read_write> loaded_wide: array<vec4<u32>>;
@group(2) @binding(1) var src_rgba16uint: texture_storage_2d<rgba16uint, read>;
@group(2) @binding(2) var dst_rgba16uint: texture_storage_2d<rgba16uint, write>;
@group(2) @binding(3) var src_rgba16sint: texture_storage_2d<rgba16sint, read>;
@group(2) @binding(4) var dst_rgba16sint: texture_storage_2d<rgba16sint, write>;
@group(2) @binding(5) var src_rgba16unorm: texture_storage_2d<rgba16unorm, read>;
@group(2) @binding(6) var dst_rgba16unorm: texture_storage_2d<rgba16unorm, write>;
@group(2) @binding(7) var src_rgba16snorm: texture_storage_2d<rgba16snorm, read>;
@group(2) @binding(8) var dst_rgba16snorm: texture_storage_2d<rgba16snorm, write>;
@group(2) @binding(9) var src_rg32uint: texture_storage_2d<rg32uint, read>;
@group(2) @binding(10) var dst_rg32uint: texture_storage_2d<rg32uint, write>;
@group(2) @binding(11) var src_rg32sint: texture_storage_2d<rg32sint, read>;
@group(2) @binding(12) var dst_rg32sint: texture_storage_2d<rg32sint, write>;
@group(2) @binding(13) var src_rgb10a2unorm: texture_storage_2d<rgb10a2unorm, read>;
@group(2) @binding(14) var dst_rgb10a2unorm: texture_storage_2d<rgb10a2unorm, write>;
@group(2) @binding(15) var src_rgb10a2uint: texture_storage_2d<rgb10a2uint, read>;
@group(2) @binding(16) var dst_rgb10a2uint: texture_storage_2d<rgb10a2uint, write>;

@compute @workgroup_size(8, 4)
fn wide(@builtin(global_invocation_id) id: vec3<u32>) {
  let p = vec2<i32>(id.xy);
  let t = id.y * 8u + id.x;
  let v0 = textureLoad(src_rgba16uint, p);
  loaded_wide[8u * t + 0u] = bitcast<vec4<u32>>(v0);
  textureStore(dst_rgba16uint, p, v0 ^ vec4<u32>(1));
  let v1 = textureLoad(src_rgba16sint, p);
  loaded_wide[8u * t + 1u] = bitcast<vec4<u32>>(v1);
  textureStore(dst_rgba16sint, p, v1 ^ vec4<i32>(1));
  let v2 = textureLoad(src_rgba16unorm, p);
  loaded_wide[8u * t + 2u] = bitcast<vec4<u32>>(v2);
  textureStore(dst_rgba16unorm, p, v2 * 1.5 - vec4<f32>(0.25));
  let v3 = textureLoad(src_rgba16snorm, p);
  loaded_wide[8u * t + 3u] = bitcast<vec4<u32>>(v3);
  textureStore(dst_rgba16snorm, p, v3 * 1.5 - vec4<f32>(0.25));
  let v4 = textureLoad(src_rg32uint, p);
  loaded_wide[8u * t + 4u] = bitcast<vec4<u32>>(v4);
  textureStore(dst_rg32uint, p, v4 ^ vec4<u32>(1));
  let v5 = textureLoad(src_rg32sint, p);
  loaded_wide[8u * t + 5u] = bitcast<vec4<u32>>(v5);
  textureStore(dst_rg32sint, p, v5 ^ vec4<i32>(1));
  let v6 = textureLoad(src_rgb10a2unorm, p);
  loaded_wide[8u * t + 6u] = bitcast<vec4<u32>>(v6);
  textureStore(dst_rgb10a2unorm, p, v6 * 1.5 - vec4<f32>(0.25));
  let v7 = textureLoad(src_rgb10a2uint, p);
  loaded_wide[8u * t + 7u] = bitcast<vec4<u32>>(v7);
  textureStore(dst_rgb10a2uint, p, v7 ^ vec4<u32>(1));
}

@group(3) @binding(0) var<storage, read_write> loaded_core: array<vec4<u32>>;
@group(3) @binding(1) var src_rgba8unorm: texture_storage_2d<rgba8unorm, read>;
@group(3) @binding(2) var dst_rgba8unorm: texture_storage_2d<rgba8unorm, write>;
@group(3) @binding(3) var src_rgba8snorm: texture_storage_2d<rgba8snorm, read>;
@group(3) @binding(4) var dst_rgba8snorm: texture_storage_2d<rgba8snorm, write>;
@group(3) @binding(5) var src_rgba8uint: texture_storage_2d<rgba8uint, read>;
@group(3) @binding(6) var dst_rgba8uint: texture_storage_2d<rgba8uint, write>;
@group(3) @binding(7) var src_rgba8sint: texture_storage_2d<rgba8sint, read>;
@group(3) @binding(8) var dst_rgba8sint: texture_storage_2d<rgba8sint, write>;
@group(3) @binding(9) var src_rgba16float: texture_storage_2d<rgba16float, read>;
@group(3) @binding(10) var dst_rgba16float: texture_storage_2d<rgba16float, write>;
@group(3) @binding(11) var src_r32float: texture_storage_2d<r32float, read>;
@group(3) @binding(12) var dst_r32float: texture_storage_2d<r32float, write>;
@group(3) @binding(13) var src_r32uint: texture_storage_2d<r32uint, read>;
@group(3) @binding(14) var dst_r32uint: texture_storage_2d<r32uint, write>;
@group(3) @binding(15) var src_r32sint: texture_storage_2d<r32sint, read>;
@group(3) @binding(16) var dst_r32sint: texture_storage_2d<r32sint, write>;
@group(3) @binding(17) var src_rg32float: texture_storage_2d<rg32float, read>;
@group(3) @binding(18) var dst_rg32float: texture_storage_2d<rg32float, write>;
@group(3) @binding(19) var src_rgba32float: texture_storage_2d<rgba32float, read>;
@group(3) @binding(20) var dst_rgba32float: texture_storage_2d<rgba32float, write>;
@group(3) @binding(21) var src_rgba32uint: texture_storage_2d<rgba32uint, read>;
@group(3) @binding(22) var dst_rgba32uint: texture_storage_2d<rgba32uint, write>;
@group(3) @binding(23) var src_rgba32sint: texture_storage_2d<rgba32sint, read>;
@group(3) @binding(24) var dst_rgba32sint: texture_storage_2d<rgba32sint, write>;

@compute @workgroup_size(8, 4)
fn core(@builtin(global_invocation_id) id: vec3<u32>) {
  let p = vec2<i32>(id.xy);
  let t = id.y * 8u + id.x;
  let v0 = textureLoad(src_rgba8unorm, p);
  loaded_core[12u * t + 0u] = bitcast<vec4<u32>>(v0);
  textureStore(dst_rgba8unorm, p, v0 * 1.5 - vec4<f32>(0.25));
  let v1 = textureLoad(src_rgba8snorm, p);
  loaded_core[12u * t + 1u] = bitcast<vec4<u32>>(v1);
  textureStore(dst_rgba8snorm, p, v1 * 1.5 - vec4<f32>(0.25));
  let v2 = textureLoad(src_rgba8uint, p);
  loaded_core[12u * t + 2u] = bitcast<vec4<u32>>(v2);
  textureStore(dst_rgba8uint, p, v2 ^ vec4<u32>(1));
  let v3 = textureLoad(src_rgba8sint, p);
  loaded_core[12u * t + 3u] = bitcast<vec4<u32>>(v3);
  textureStore(dst_rgba8sint, p, v3 ^ vec4<i32>(1));
  let v4 = textureLoad(src_rgba16float, p);
  loaded_core[12u * t + 4u] = bitcast<vec4<u32>>(v4);
  textureStore(dst_rgba16float, p, v4 * 1.5 - vec4<f32>(0.25));
  let v5 = textureLoad(src_r32float, p);
  loaded_core[12u * t + 5u] = bitcast<vec4<u32>>(v5);
  textureStore(dst_r32float, p, v5 * 1.5 - vec4<f32>(0.25));
  let v6 = textureLoad(src_r32uint, p);
  loaded_core[12u * t + 6u] = bitcast<vec4<u32>>(v6);
  textureStore(dst_r32uint, p, v6 ^ vec4<u32>(1));
  let v7 = textureLoad(src_r32sint, p);
  loaded_core[12u * t + 7u] = bitcast<vec4<u32>>(v7);
  textureStore(dst_r32sint, p, v7 ^ vec4<i32>(1));
  let v8 = textureLoad(src_rg32float, p);
  loaded_core[12u * t + 8u] = bitcast<vec4<u32>>(v8);
  textureStore(dst_rg32float, p, v8 * 1.5 - vec4<f32>(0.25));
  let v9 = textureLoad(src_rgba32float, p);
  loaded_core[12u * t + 9u] = bitcast<vec4<u32>>(v9);
  textureStore(dst_rgba32float, p, v9 * 1.5 - vec4<f32>(0.25));
  let v10 = textureLoad(src_rgba32uint, p);
  loaded_core[12u * t + 10u] = bitcast<vec4<u32>>(v10);
  textureStore(dst_rgba32uint, p, v10 ^ vec4<u32>(1));
  let v11 = textureLoad(src_rgba32sint, p);
  loaded_core[12u * t + 11u] = bitcast<vec4<u32>>(v11);
  textureStore(dst_rgba32sint, p, v11 ^ vec4<i32>(1));
}
