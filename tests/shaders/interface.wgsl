// Entry-point interfaces: struct-typed inputs and outputs flattened to bound parameters
// and results, every interpolation qualifier, built-ins that become special registers
// (vertex and instance index, fragment position, front facing, sample index, compute ids)
// and those that stay parameters or results (sample mask, frag depth, position).
// Written for oxir's front-end tests.

struct VertexInput {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) @interpolate(flat) material: u32,
    @builtin(instance_index) instance: u32,
}

struct VertexOutput {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(perspective, centroid) normal: vec3<f32>,
    @location(1) @interpolate(linear, sample) depth: f32,
    @location(2) @interpolate(flat) material: u32,
    @location(3) @interpolate(linear) barycentric_hint: vec2<f32>,
}

struct FragmentOutput {
    @location(0) color: vec4<f32>,
    @location(1) extra: vec4<f32>,
    @builtin(frag_depth) depth: f32,
    @builtin(sample_mask) mask: u32,
}

struct Camera {
    view_projection: mat4x4<f32>,
    eye: vec4<f32>,
}

@group(0) @binding(0) var<uniform> camera: Camera;
@group(0) @binding(1) var<storage, read_write> debug_out: array<vec4<u32>>;

@vertex
fn vs_main(input: VertexInput, @builtin(vertex_index) vertex: u32) -> VertexOutput {
    var out: VertexOutput;
    let shifted = input.position + vec3<f32>(f32(input.instance), f32(vertex), 0.0);
    out.clip = camera.view_projection * vec4<f32>(shifted, 1.0);
    out.normal = input.normal;
    out.depth = out.clip.z / out.clip.w;
    out.material = input.material;
    out.barycentric_hint = vec2<f32>(f32(vertex % 3u), 0.0);
    return out;
}

@fragment
fn fs_main(
    input: VertexOutput,
    @builtin(front_facing) front: bool,
    @builtin(sample_index) sample: u32,
    @builtin(sample_mask) mask_in: u32,
) -> FragmentOutput {
    var out: FragmentOutput;
    let facing = select(-1.0, 1.0, front);
    out.color = vec4<f32>(input.normal * facing, 1.0) + input.clip / 1000.0;
    out.extra = vec4<f32>(f32(input.material), input.depth, input.barycentric_hint);
    out.depth = input.depth * 0.5;
    out.mask = mask_in & (1u << sample);
    return out;
}

@vertex
fn vs_fullscreen(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let uv = vec2<f32>(f32((index << 1u) & 2u), f32(index & 2u));
    return vec4<f32>(uv * 2.0 - 1.0, 0.0, 1.0);
}

@compute @workgroup_size(4, 2, 1)
fn cs_ids(
    @builtin(global_invocation_id) global_id: vec3<u32>,
    @builtin(local_invocation_id) local_id: vec3<u32>,
    @builtin(local_invocation_index) local_index: u32,
    @builtin(workgroup_id) group_id: vec3<u32>,
    @builtin(num_workgroups) group_count: vec3<u32>,
) {
    let flat_group = group_id.x + group_id.y * group_count.x;
    debug_out[flat_group * 8u + local_index] = vec4<u32>(global_id.x, local_id.y, local_index, group_count.z);
}
