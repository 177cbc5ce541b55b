// Atomic histogram: 16 bins of the low 4 bits of each input word, accumulated in
// workgroup memory and then added to the global bins. Used by the interpreter's tests.
@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> bins: array<atomic<u32>, 16>;

var<workgroup> local_bins: array<atomic<u32>, 16>;

@compute @workgroup_size(32)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    if id.x < arrayLength(&input) {
        atomicAdd(&local_bins[input[id.x] & 15u], 1u);
    }
    workgroupBarrier();
    if li < 16u {
        atomicAdd(&bins[li], atomicLoad(&local_bins[li]));
    }
}
