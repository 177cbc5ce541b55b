// Loops with constant trip counts in vertex and fragment shaders: CSIR has no loops, so
// its pipeline unrolls them fully and folds the induction values (integer counters,
// constant array indices, `f32(i)` conversions) away. A nest, a loop whose body has an
// `if`, a descending counter, a step of 2 and a texture sampled in a loop.
// Written for oxir's CSIR back-end tests.

struct Lights {
    positions: array<vec4<f32>, 4>,
    colors: array<vec4<f32>, 4>,
    transform: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> lights: Lights;
@group(0) @binding(1) var image: texture_2d<f32>;
@group(0) @binding(2) var image_sampler: sampler;

struct VertexOutput {
    @builtin(position) clip: vec4<f32>,
    @location(0) lit: vec3<f32>,
    @location(1) uv: vec2<f32>,
}

@vertex
fn vs_lights(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>) -> VertexOutput {
    var out: VertexOutput;
    out.clip = lights.transform * vec4<f32>(position, 1.0);
    var lit = vec3<f32>(0.0);
    for (var i = 0; i < 4; i++) {
        let to_light = lights.positions[i].xyz - position;
        let d = max(dot(normalize(to_light), normalize(normal)), 0.0);
        if d > 0.25 {
            lit += lights.colors[i].rgb * d;
        }
    }
    out.lit = lit;
    // A descending counter with a step of 2: i = 6, 4, 2.
    var wave = 0.0;
    for (var i = 6u; i > 0u; i -= 2u) {
        wave += sin(position.x * f32(i)) / f32(i);
    }
    out.uv = position.xy * 0.5 + vec2<f32>(wave * 0.1, 0.5);
    return out;
}

@fragment
fn fs_blur(in: VertexOutput) -> @location(0) vec4<f32> {
    // A 3 x 3 nest: 9 samples with weights from the counters.
    var sum = vec4<f32>(0.0);
    var total = 0.0;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let w = 1.0 / (1.0 + f32(x * x + y * y));
            sum += textureSample(image, image_sampler, in.uv + vec2<f32>(f32(x), f32(y)) * 0.0625) * w;
            total += w;
        }
    }
    var color = sum / total;
    for (var k = 0; k < 3; k++) {
        color = vec4<f32>(color.rgb * 0.5 + in.lit * 0.5, color.a);
    }
    return color;
}
