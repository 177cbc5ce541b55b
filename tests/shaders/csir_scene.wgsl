// Vertex and fragment entry points inside what CSIR expresses: float vectors and
// matrices, a uniform block, a sampled 2D texture, runtime `if`, `discard`, and the
// built-ins CSIR composes (normalize, length, clamp, mix, reflect, cross, division).
// Written for oxir's CSIR back-end tests.

struct Scene {
    model: mat4x4<f32>,
    view_projection: mat4x4<f32>,
    light: vec4<f32>,
    tint: vec3<f32>,
    threshold: f32,
}

@group(0) @binding(0) var<uniform> scene: Scene;
@group(0) @binding(1) var albedo: texture_2d<f32>;
@group(0) @binding(2) var albedo_sampler: sampler;

struct VertexOutput {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) shade: f32,
}

@vertex
fn vs_main(@location(0) position: vec3<f32>, @location(3) normal: vec3<f32>, @location(1) uv: vec2<f32>) -> VertexOutput {
    var out: VertexOutput;
    let world = scene.model * vec4<f32>(position, 1.0);
    out.clip = scene.view_projection * world;
    let n = normalize((scene.model * vec4<f32>(normal, 0.0)).xyz);
    out.normal = n;
    out.uv = uv * 0.5 + vec2<f32>(0.25);
    var shade = clamp(dot(n, normalize(scene.light.xyz)), 0.0, 1.0);
    if length(position) > 2.0 {
        shade = shade * 0.5;
    }
    out.shade = shade + length(cross(n, scene.tint)) / 8.0;
    return out;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    let base = textureSample(albedo, albedo_sampler, in.uv);
    if base.a < scene.threshold {
        discard;
    }
    let r = reflect(normalize(scene.light.xyz), normalize(in.normal));
    let rim = max(r.z, 0.0);
    var color = mix(base.rgb, scene.tint, vec3<f32>(in.shade * 0.5));
    if in.shade > 0.5 {
        color = color + vec3<f32>(rim * rim);
    } else {
        color = color * (in.clip.x / (in.clip.w + 4.0));
    }
    return vec4<f32>(color, base.a);
}
