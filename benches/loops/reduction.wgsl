// Each invocation sums 16 consecutive inputs, then the workgroup reduces its partial
// sums in workgroup memory with a tree of barriers (log2(64) = 6 steps).
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> output: array<u32>;

var<workgroup> partial: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32,
        @builtin(workgroup_id) wid: vec3<u32>) {
    var sum = 0u;
    for (var i = 0u; i < 16u; i = i + 1u) {
        let index = gid.x * 16u + i;
        if index < arrayLength(&input) {
            sum = sum + input[index];
        }
    }
    partial[li] = sum;
    workgroupBarrier();
    for (var stride = 32u; stride > 0u; stride = stride / 2u) {
        if li < stride {
            partial[li] = partial[li] + partial[li + stride];
        }
        workgroupBarrier();
    }
    if li == 0u {
        output[wid.x] = partial[0];
    }
}
