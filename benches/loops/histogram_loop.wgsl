// Histogram of 8 words per invocation into 16 bins with atomics: a private pass over
// the words, then the bins are added to workgroup and global memory.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 16>;

var<workgroup> local_bins: array<atomic<u32>, 16>;

@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let n = arrayLength(&input);
    for (var i = 0u; i < 8u; i = i + 1u) {
        let index = gid.x * 8u + i;
        if index < n {
            atomicAdd(&local_bins[input[index] & 15u], 1u);
        }
    }
    workgroupBarrier();
    atomicAdd(&bins[li], atomicLoad(&local_bins[li]));
}
