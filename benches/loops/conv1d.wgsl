// 1-D convolution with a 5-tap kernel and clamped edges.
@group(0) @binding(0) var<storage, read> signal: array<f32>;
@group(0) @binding(1) var<storage, read> taps: array<f32, 5>;
@group(0) @binding(2) var<storage, read_write> result: array<f32>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&signal);
    if gid.x >= n || gid.x >= arrayLength(&result) {
        return;
    }
    var acc = 0.0;
    for (var t = 0u; t < 5u; t = t + 1u) {
        let at = clamp(i32(gid.x) + i32(t) - 2, 0, i32(n) - 1);
        acc = acc + signal[at] * taps[t];
    }
    result[gid.x] = acc;
}
