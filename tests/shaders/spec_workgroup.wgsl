// A workgroup size set by an override, for `oxir compile --spec-constants`: the kernel's
// x dimension is specialisable (SPIR-V `BuiltIn WorkgroupSize` built from an
// `OpSpecConstant` with SpecId 0), and the body reads the override too. A pipeline
// that sets SpecId 0 gets what `oxir run --override wg=N` computes
// (crates/cli/tests/spec_constants.rs). Without `--spec-constants` the override is
// applied before lowering like any other. Written for oxir's tests.
override wg: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<u32, 256>;
var<workgroup> tile: array<u32, 64>;

@compute @workgroup_size(wg)
fn main(
    @builtin(local_invocation_index) li: u32,
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    tile[li] = li * 3u + wid.x * 100u;
    workgroupBarrier();
    let neighbour = tile[(li + 1u) % wg];
    out[gid.x] = neighbour + wg * 1000u;
}
