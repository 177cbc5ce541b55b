// Composite built-ins on inputs scaled to huge and tiny magnitudes: GPUs evaluate them in
// f32 by WGSL's formulas, one rounded step at a time, so `length` of a vector whose
// squares overflow is infinite and the interpreter must agree. Invocation i scales its
// inputs by SCALE[i % 4]: 1, 2^63 (squares of 4·2^63 overflow f32), 2^-60 (squares stay
// normal: lavapipe flushes subnormals) and 2^60. Determinants, products and `reflect`
// use the unscaled inputs (multiples of 1/64 below 4: every step is exact, in any order).
@group(0) @binding(0) var<storage, read> a: array<vec4f, 32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4f, 128>;

const SCALE = array<f32, 4>(1.0, 9.223372e18, 8.6736174e-19, 1.1529215e18);

@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) id: vec3u) {
    let i = id.x;
    let x = a[2u * i];
    let y = a[2u * i + 1u];
    let k = SCALE[i % 4u];
    let v = x * k;
    let w = y * k;
    let o = 8u * i;
    out[o] = vec4f(length(v.xyz), distance(v.xy, w.xy), dot(v, w), length(v.w));
    out[o + 1u] = vec4f(normalize(v.xyz + vec3f(k)), length(v));
    out[o + 2u] = vec4f(smoothstep(v.x, w.x, v.y), mix(v.z, w.z, x.w), distance(v, w), dot(v.xy, v.xy));
    let m3 = mat3x3f(x.xyz, y.xyz, x.wzy);
    let m2 = mat2x2f(x.xy, y.zw);
    out[o + 3u] = vec4f(reflect(x.xyz, y.xyz), determinant(m3));
    out[o + 4u] = vec4f(cross(x.xyz, y.xyz), determinant(m2));
    out[o + 5u] = vec4f(m3 * y.xyz, dot(x, y));
    out[o + 6u] = vec4f(y.xy * m2, faceForward(x.xy, y.xy, x.zw));
    out[o + 7u] = vec4f((m3 * transpose(m3))[1], (m2 * m2)[0].y);
}
