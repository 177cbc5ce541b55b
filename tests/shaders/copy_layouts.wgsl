// Whole-array copies between memory of different layouts: workgroup to storage, and
// storage to a function variable (the SPIR-V `-O` pipeline copies these in a loop).
@group(0) @binding(0) var<storage, read_write> out: array<u32, 64>;
@group(0) @binding(1) var<storage, read_write> src: array<u32, 64>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    var mine = src;
    tile[i] = mine[(i * 7u) % 64u] + i;
    workgroupBarrier();
    if (i == 0u) {
        out = tile;
    }
}
