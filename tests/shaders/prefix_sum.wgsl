// Inclusive prefix sum of 64-element blocks with workgroup memory and barriers
// (Hillis-Steele). Used by the interpreter's known-answer tests.
@group(0) @binding(0) var<storage, read_write> data: array<u32>;

var<workgroup> scratch: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * 64u;
    scratch[li] = data[base + li];
    workgroupBarrier();
    var offset = 1u;
    while offset < 64u {
        var add = 0u;
        if li >= offset {
            add = scratch[li - offset];
        }
        workgroupBarrier();
        scratch[li] = scratch[li] + add;
        workgroupBarrier();
        offset = offset * 2u;
    }
    data[base + li] = scratch[li];
}
