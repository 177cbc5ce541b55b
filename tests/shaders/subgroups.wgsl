// Subgroup built-ins in a compute kernel, for the interpreter's known answers and the
// Vulkan equality test (which runs the interpreter with the device's subgroup size).
// Every result is defined for any subgroup size from 4 to 64 that divides the workgroup:
// no shuffle reads a lane outside the subgroup unless its result is discarded by a
// select, float sums are of small multiples of 0.5 (exact in any order), and the
// divergent branch splits each subgroup into its odd and even lanes.
// naga 30 takes the subgroup built-ins without `enable subgroups;` (which it refuses as
// not yet implemented).
// Written for oxir's execution-equality tests.

@group(0) @binding(0) var<storage, read_write> out: array<u32, 2048>;
@group(0) @binding(1) var<storage, read_write> outf: array<f32, 256>;
@group(0) @binding(2) var<storage, read_write> ids: array<u32, 128>;

@compute @workgroup_size(64)
fn main(
    @builtin(local_invocation_index) li: u32,
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) size: u32,
    @builtin(subgroup_id) sid: u32,
    @builtin(num_subgroups) nsg: u32,
) {
    let g = gid.x;
    let base = g * 16u;
    out[base] = subgroupAdd(li);
    out[base + 1u] = subgroupExclusiveAdd(li);
    out[base + 2u] = subgroupInclusiveMul(li % 3u + 1u);
    let b = subgroupBallot(li % 3u == 0u);
    out[base + 3u] = b.x;
    out[base + 4u] = b.y;
    out[base + 5u] = subgroupShuffleXor(li, 1u);
    out[base + 6u] = subgroupInclusiveAdd(lane) + subgroupExclusiveMul(li % 2u + 1u) * 4096u;
    let down = subgroupShuffleDown(li, 1u);
    let up = subgroupShuffleUp(li, 2u);
    out[base + 7u] = select(0u, down, lane + 1u < size) + select(0u, up, lane >= 2u) * 1000u;
    if (lane % 2u == 1u) {
        out[base + 8u] = subgroupBroadcastFirst(li);
        out[base + 9u] = subgroupAdd(1u);
    } else {
        out[base + 8u] = subgroupMin(li + 100u);
        out[base + 9u] = subgroupExclusiveAdd(2u);
    }
    out[base + 10u] = subgroupMax(li ^ 5u);
    out[base + 11u] = subgroupOr(1u << (lane % 32u));
    out[base + 12u] = subgroupAnd(li | 0xf0u);
    out[base + 13u] = subgroupXor(li) + u32(subgroupMin(i32(li) - 40)) * 0u;
    out[base + 14u] = u32(subgroupAll(li < 1000u)) | (u32(subgroupAny(li == 3u)) << 1u);
    out[base + 15u] = subgroupBroadcast(li, 1u) + subgroupShuffle(li, lane ^ 3u) * 256u
        + size * 65536u;
    ids[g] = sid | (nsg << 16u);
    let x = f32(li) * 0.5;
    outf[g] = subgroupAdd(x) + subgroupExclusiveAdd(vec2<f32>(x, -x)).y * 1024.0
        + subgroupInclusiveMul(1.0 + f32(lane % 2u)) * 0.0;
}
