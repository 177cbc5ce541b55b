// A loop with a trip count known only at run time (from a uniform), the case partial
// unrolling is for.
struct Params { count: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&data);
    if gid.x >= n {
        return;
    }
    let count = min(params.count, 64u);
    var acc = data[gid.x];
    for (var i = 0u; i < count; i = i + 1u) {
        acc = acc * 1664525u + 1013904223u + i;
    }
    data[gid.x] = acc;
}
