// Textures and fragment-only operations: every sampling form oxir has (implicit level,
// explicit level, bias, gradients, depth comparison at an implicit level and at level
// zero, gathers, constant texel offsets), loads from sampled,
// depth, multisampled and storage textures, stores, size and count queries, derivatives
// and discard.
// Written for oxir's front-end tests.

@group(0) @binding(0) var color: texture_2d<f32>;
@group(0) @binding(1) var layers: texture_2d_array<f32>;
@group(0) @binding(2) var volume: texture_3d<f32>;
@group(0) @binding(3) var sky: texture_cube<f32>;
@group(0) @binding(4) var shadow: texture_depth_2d;
@group(0) @binding(5) var samples: texture_multisampled_2d<f32>;
@group(0) @binding(6) var lookup: texture_1d<u32>;
@group(0) @binding(7) var linear_sampler: sampler;
@group(0) @binding(8) var shadow_sampler: sampler_comparison;
@group(1) @binding(0) var output: texture_storage_2d<rgba8unorm, write>;
@group(1) @binding(1) var counts: texture_storage_2d<r32uint, read_write>;
@group(1) @binding(2) var image_array: texture_storage_2d_array<rgba32float, read>;

@fragment
fn shade(@location(0) uv: vec2<f32>, @location(1) @interpolate(flat) layer: i32) -> @location(0) vec4<f32> {
    var color_sum = textureSample(color, linear_sampler, uv);
    color_sum += textureSampleLevel(layers, linear_sampler, uv, layer, 2.0);
    color_sum += textureSampleBias(volume, linear_sampler, vec3<f32>(uv, 0.5), -1.0);
    color_sum += textureSampleGrad(sky, linear_sampler, vec3<f32>(uv, 1.0), vec3<f32>(0.1), vec3<f32>(0.2));
    let lit = textureSampleCompareLevel(shadow, shadow_sampler, uv, 0.5)
        + textureSampleCompare(shadow, shadow_sampler, uv, 0.25, vec2<i32>(1, -1));
    color_sum += textureSample(color, linear_sampler, uv, vec2<i32>(-2, 3))
        + textureGather(2, color, linear_sampler, uv, vec2<i32>(1, 0))
        + textureGather(shadow, linear_sampler, uv)
        + textureGatherCompare(shadow, shadow_sampler, uv, 0.5);
    let depth = textureSampleLevel(shadow, linear_sampler, uv, 1);
    let texel = textureLoad(color, vec2<i32>(uv * 8.0), 0);
    let sample = textureLoad(samples, vec2<u32>(2u, 3u), 1);
    let stored_depth = textureLoad(shadow, vec2<i32>(1, 1), 0);
    let code = textureLoad(lookup, 3, 0);
    let size = textureDimensions(color) + textureDimensions(color, 1) + textureDimensions(layers).xy;
    let levels = textureNumLevels(color) + textureNumLayers(layers) + textureNumSamples(samples);
    let cube_size = textureDimensions(sky);
    let volume_size = textureDimensions(volume, 0);
    let slope = dpdx(uv.x) + dpdy(uv.y) + fwidth(uv.x) + dpdxCoarse(uv.x) + dpdyCoarse(uv.y)
        + fwidthCoarse(uv.y) + dpdxFine(uv.x) + dpdyFine(uv.y) + fwidthFine(uv.x);
    if slope > 100.0 {
        discard;
    }
    let counts_total = f32(size.x + levels + cube_size.y + volume_size.z + code.x);
    return color_sum * lit + texel + sample + vec4<f32>(depth, stored_depth, slope, counts_total);
}

@compute @workgroup_size(8, 8)
fn write_images(@builtin(global_invocation_id) id: vec3<u32>) {
    let coordinate = vec2<i32>(id.xy);
    let previous = textureLoad(counts, coordinate);
    textureStore(counts, coordinate, previous + vec4<u32>(1u));
    let layer_value = textureLoad(image_array, coordinate, 1);
    textureStore(output, id.xy, layer_value * 0.5);
    let size = textureDimensions(output) + textureDimensions(image_array);
    if any(id.xy >= size) {
        return;
    }
    textureStore(output, coordinate, textureLoad(color, coordinate, 0));
}
