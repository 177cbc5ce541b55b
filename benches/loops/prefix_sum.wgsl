// Inclusive prefix sum of 64 values per workgroup (Hillis-Steele), with a uniform
// number of doubling steps read from a uniform buffer.
struct Params { steps: u32 }
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<uniform> params: Params;

var<workgroup> scratch: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let n = arrayLength(&data);
    var value = 0u;
    if gid.x < n {
        value = data[gid.x];
    }
    scratch[li] = value;
    workgroupBarrier();
    let steps = min(params.steps, 6u);
    for (var s = 0u; s < steps; s = s + 1u) {
        let offset = 1u << s;
        var add = 0u;
        if li >= offset {
            add = scratch[li - offset];
        }
        workgroupBarrier();
        scratch[li] = scratch[li] + add;
        workgroupBarrier();
    }
    if gid.x < n {
        data[gid.x] = scratch[li];
    }
}
