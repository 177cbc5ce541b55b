// f16 matrices and vectors in a uniform buffer, in WGSL's layout: `mat2x2<f16>` columns
// 4 bytes apart, `mat3x2<f16>` at offset 8, a `vec3<f16>` at 24 with an `f16` in its last
// two bytes, `mat4x3<f16>` columns 8 bytes apart. oxir's SPIR-V reads the buffer as
// 32-bit words (an f16 is half of one), so no 16-bit storage feature is needed. Read
// whole and through dynamic indices.
enable f16;

struct Halves {
  m : mat2x2<f16>,
  n : mat3x2<f16>,
  v : vec3<f16>,
  h : f16,
  k : mat4x3<f16>,
}

@group(0) @binding(0) var<uniform> u : Halves;
@group(0) @binding(1) var<storage, read_write> out : array<f32, 24>;

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) i : u32) {
  let c = u;
  out[i] = f32(c.m[i % 2u][(i / 2u) % 2u]);
  out[4u + i] = f32(u.n[i % 3u].y) + f32(u.v[i % 3u]);
  out[8u + i] = f32(u.h) * f32(u.k[i][i % 3u]);
  out[12u + i] = f32((c.k * vec4<f16>(1.0h, 2.0h, -1.0h, 0.5h))[i % 3u]);
  out[16u + i] = f32(u.m[1][i % 2u]) - f32(c.n[2][i % 2u]);
  out[20u + i] = f32(dot(u.k[3], u.v));
}
