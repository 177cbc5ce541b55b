// Data-dependent indices into every kind of array: run with random 32-bit integers they
// are out of range, and WGSL's bounds guarantee (out-of-range loads read zero, stores and
// atomics are skipped) must hold on every engine. Without bounds checks lavapipe crashes
// on the workgroup read and reads past the constant array.

@group(0) @binding(0) var<storage, read> idx: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>>;

var<workgroup> tile: array<u32, 16>;
var<private> table: array<u32, 8>;
const kArray = array<u32, 4>(1u, 2u, 3u, 4u);

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    let g = gid.x;
    let i = idx[g];
    let j = idx[g + 8u];
    tile[li] = i;
    workgroupBarrier();
    table[li] = j;
    var local = array<u32, 5>(g, 1u, 2u, 3u, 4u);
    let v = vec4<u32>(g, i, j, 7u);
    var r = tile[i] + kArray[j] + table[i] + local[j] + v[i & 7u];
    r = r + idx[i];
    out[g * 4u] = r;
    out[g * 4u + 1u] = kArray[i % 4u] + v[j % 4u];
    atomicAdd(&counts[i], 1u);
    out[i] = 5u;
    local[i] = 9u;
    out[g * 4u + 2u] = local[0] + local[1] + local[2] + local[3] + local[4];
}
