// Pipeline-overridable constants, at their defaults in the execution-equality tests (and
// set with --override in crates/cli/tests/overrides.rs): the workgroup size (`wg`), a
// workgroup array sized by an expression of it (`lanes`), an override set by id
// (`@id(7) bias`), an f32 (`scale`) and a bool (`negate`).
@id(7) override bias: u32 = 3u;
override scale: f32 = 1.5;
override negate: bool = true;
override wg: u32 = 8u;
override lanes: u32 = wg * 2u;

@group(0) @binding(0) var<storage, read> input: array<u32>;
@group(0) @binding(1) var<storage, read_write> out_f: array<f32>;
@group(0) @binding(2) var<storage, read_write> out_u: array<u32>;

var<workgroup> tile: array<u32, lanes>;

@compute @workgroup_size(wg)
fn main(
    @builtin(local_invocation_index) li: u32,
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(global_invocation_id) id: vec3<u32>,
) {
    let i = id.x;
    var x = 0u;
    if i < arrayLength(&input) {
        x = input[i];
    }
    tile[li] = x;
    tile[li + wg] = li + bias;
    workgroupBarrier();
    let neighbour = tile[(li + 1u) % wg];
    var f = f32(li) * scale + f32(tile[li + wg]);
    if negate {
        f = -f;
    }
    if i < arrayLength(&out_f) {
        out_f[i] = f;
    }
    if i < arrayLength(&out_u) {
        out_u[i] = neighbour + tile[li + wg] * 1000u + group.x * 1000000u;
    }
}
