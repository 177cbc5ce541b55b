// oxir's bundled example kernel (the WGSL form of clamp_scale.oxir): scales a storage
// buffer by a uniform, clamped to a limit. `oxir compile examples/clamp_scale.wgsl`
// lowers it to oxir; `oxir reflect examples/clamp_scale.wgsl` lists its bindings.

struct Params {
    scale: f32,
    count: u32,
    limit: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<f32>;

fn clamp_scale(value: f32, scale: f32, limit: f32) -> f32 {
    return clamp(value * scale, 0.0, limit);
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if i < params.count {
        let scaled = clamp_scale(data[i], params.scale, params.limit);
        data[i] = scaled;
    }
}
