// Uniform-buffer layouts WGSL accepts that std140 does not: `matCx2` matrices (columns 8
// bytes apart), arrays of them, a struct member with `@size` and `@align`, a vec3 followed by
// a scalar in its padding. The module's uniform buffers are laid out by std430 (WGSL's
// layout); oxir's SPIR-V reads such a buffer as 32-bit words (`spirv-uniform-words`), so
// any Vulkan version takes it.

struct Inner {
  @size(32) t : vec2<f32>,
  s : f32,
}

struct Params {
  a : mat2x2<f32>,
  b : mat3x2<f32>,
  c : f32,
  d : array<mat2x2<f32>, 2>,
  e : vec3<f32>,
  f : u32,
  @align(32) inner : Inner,
  @align(16) g : mat4x2<f32>,
}

@group(0) @binding(0) var<uniform> params : Params;
@group(0) @binding(1) var<storage, read_write> out : array<f32, 32>;

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i : u32) {
  let p = params;
  let v = p.b * vec3<f32>(1.0, 2.0, 4.0);
  let w = p.d[i % 2u] * p.a[i % 2u];
  out[i] = v.x + f32(i) * v.y;
  out[4u + i] = w.x - w.y;
  out[8u + i] = p.e[i % 3u] + f32(p.f) + p.c;
  out[12u + i] = p.inner.t[i % 2u] * p.inner.s;
  out[16u + i] = (p.g * vec4<f32>(1.0, -1.0, 0.5, 2.0))[i % 2u];
  out[20u + i] = params.d[1][i % 2u].y + params.g[i][1];
}
