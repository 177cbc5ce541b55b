//! Texture loads, filtered samples, dimensions and quantizing stores, against values
//! computed by hand.

mod common;
use common::*;
use oxir_interp::{AddressMode, Buffers, Filter, Resources, Sampler, Texture};

const KERNEL: &str = "
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var st: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(3) var<storage, read_write> out: array<vec4<f32>>;
@compute @workgroup_size(1)
fn main() {
    out[0] = textureLoad(t, vec2<i32>(1, 0), 0);
    out[1] = textureSampleLevel(t, s, vec2<f32>(0.5, 0.25), 0.0);
    out[2] = textureSampleLevel(t, s, vec2<f32>(1.1, -0.3), 0.0);
    let d = textureDimensions(t);
    out[3] = vec4<f32>(f32(d.x), f32(d.y), 0.0, 0.0);
    out[4] = textureLoad(t, vec2<i32>(5, 0), 0);
    textureStore(st, vec2<i32>(1, 1), vec4<f32>(0.5, -1.0, 2.0, 0.3));
}
";

#[test]
fn load_sample_dimensions_and_store() {
    let module = compile_wgsl(KERNEL);
    let texels = [
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 0.0, 1.0],
        [1.0; 4],
    ];
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut resources = Resources::default();
        resources
            .textures
            .insert((0, 0), Texture::from_f32(2, 2, &texels));
        resources.samplers.insert(
            (0, 1),
            Sampler {
                filter: Filter::Linear,
                address: AddressMode::ClampToEdge,
            },
        );
        resources.textures.insert((0, 2), Texture::new(2, 2, 1));
        let mut buffers = Buffers::new();
        buffers.insert((0, 3), vec![0; 16 * 5]);
        oxir_interp::dispatch_with_resources(
            &m,
            "main",
            [1, 1, 1],
            &mut buffers,
            &mut resources,
            &Default::default(),
        )
        .unwrap();
        let out = f32s(&buffers[&(0, 3)]);
        assert_eq!(&out[0..4], &[1.0, 0.0, 0.0, 1.0], "load");
        // u = 0.5: halfway between texel centres 0 and 1 of row 0.
        assert_eq!(&out[4..8], &[0.5, 0.0, 0.0, 1.0], "linear sample");
        assert_eq!(&out[8..12], &[1.0, 0.0, 0.0, 1.0], "clamp to edge");
        assert_eq!(&out[12..16], &[2.0, 2.0, 0.0, 0.0], "dimensions");
        assert_eq!(&out[16..20], &[0.0; 4], "out-of-range load reads zero");
        let stored = resources.textures[&(0, 2)].texel_f32(1, 1, 0);
        assert_eq!(stored, [128.0 / 255.0, 0.0, 1.0, 77.0 / 255.0]);
    }
}

#[test]
fn addressing_modes_and_nearest_filtering() {
    let t = Texture::from_f32(4, 1, &[[0.0; 4], [1.0; 4], [2.0; 4], [3.0; 4]]);
    let sample = |filter, address, u| {
        oxir_interp::texture::sample(&t, &Sampler { filter, address }, u, 0.5, 0, [0, 0])[0]
    };
    assert_eq!(sample(Filter::Nearest, AddressMode::ClampToEdge, 0.3), 1.0);
    assert_eq!(sample(Filter::Nearest, AddressMode::ClampToEdge, 1.3), 3.0);
    assert_eq!(sample(Filter::Nearest, AddressMode::Repeat, 1.3), 1.0);
    assert_eq!(sample(Filter::Nearest, AddressMode::Repeat, -0.1), 3.0);
    assert_eq!(sample(Filter::Nearest, AddressMode::MirrorRepeat, 1.1), 3.0);
    assert_eq!(sample(Filter::Nearest, AddressMode::MirrorRepeat, 1.9), 0.0);
    // Linear at u = 0.5: x = 1.5 → halfway between texels 1 and 2.
    assert_eq!(sample(Filter::Linear, AddressMode::ClampToEdge, 0.5), 1.5);
    // Linear wrapping across the edge under repeat: x = -0.5 → texels 3 and 0.
    assert_eq!(sample(Filter::Linear, AddressMode::Repeat, 0.0), 1.5);
    assert_eq!(sample(Filter::Linear, AddressMode::ClampToEdge, 0.0), 0.0);
}

#[test]
fn gathers_and_offsets_read_the_texels_the_wgsl_spec_names() {
    // A 4×4 texture whose texel (x, y) holds 10·y + x in every channel.
    let texels: Vec<[f32; 4]> = (0..16)
        .map(|i| [(10 * (i / 4) + i % 4) as f32; 4])
        .collect();
    let t = Texture::from_f32(4, 4, &texels);
    let s = Sampler::default();
    let red = |g: [[u32; 4]; 4]| g.map(|t| f32::from_bits(t[0]));
    // (u, v) = (0.5, 0.5) is x = y = 1.5 after the half-texel shift: the footprint is
    // x 1..=2, y 1..=2, in the order (1, 2), (2, 2), (2, 1), (1, 1).
    let g = oxir_interp::texture::gather(&t, &s, 0.5, 0.5, 0, [0, 0]);
    assert_eq!(red(g), [21.0, 22.0, 12.0, 11.0]);
    // An offset of (1, -1) moves it to x 2..=3, y 0..=1.
    let g = oxir_interp::texture::gather(&t, &s, 0.5, 0.5, 0, [1, -1]);
    assert_eq!(red(g), [12.0, 13.0, 3.0, 2.0]);
    // Past the edge, clamp-to-edge repeats the last column: x 3..=4 reads 3, 3.
    let g = oxir_interp::texture::gather(&t, &s, 0.5, 0.5, 0, [2, 0]);
    assert_eq!(red(g), [23.0, 23.0, 13.0, 13.0]);
    // A nearest sample at texel (1, 1) with offset (-1, 2) reads texel (0, 3).
    let v = oxir_interp::texture::sample(&t, &s, 0.3, 0.3, 0, [-1, 2]);
    assert_eq!(v[0], 30.0);
    // Non-finite coordinates saturate instead of overflowing: u = inf clamps to column 3,
    // v = NaN casts to row 0, and the offset 7 moves that past row 3, which clamps.
    let g = oxir_interp::texture::gather(&t, &s, f32::INFINITY, f32::NAN, 0, [7, 7]);
    assert_eq!(red(g), [33.0; 4]);
}

/// Every sample of a 2×2 multisampled texture of 4 samples holds a distinct value; the
/// kernel reads each one (and one past the last sample, one past the edge, and a depth
/// texture's samples), and the counts.
const MS_KERNEL: &str = "
@group(0) @binding(0) var t: texture_multisampled_2d<u32>;
@group(0) @binding(1) var d: texture_depth_multisampled_2d;
@group(0) @binding(2) var ti: texture_multisampled_2d<i32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1)
fn main() {
    for (var i = 0u; i < 16u; i++) {
        let texel = i / 4u;
        let c = vec2<u32>(texel % 2u, texel / 2u);
        out[i] = textureLoad(t, c, i32(i % 4u)).x;
    }
    out[16] = textureLoad(t, vec2<i32>(1, 1), 4).x;
    out[17] = textureLoad(t, vec2<i32>(1, 1), -1).x;
    out[18] = textureLoad(t, vec2<i32>(2, 0), 0).x;
    out[19] = textureNumSamples(t);
    let dim = textureDimensions(t);
    out[20] = dim.x;
    out[21] = dim.y;
    out[22] = u32(textureLoad(d, vec2<i32>(0, 1), 2) * 8.0);
    out[23] = textureNumSamples(d);
    out[24] = bitcast<u32>(textureLoad(ti, vec2<i32>(0, 0), 1).y);
    out[25] = textureNumSamples(ti);
}
";

#[test]
fn multisampled_loads_read_each_sample() {
    let module = compile_wgsl(MS_KERNEL);
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut resources = Resources::default();
        let mut t = Texture::multisampled(2, 2, 1, 4);
        assert_eq!(t.texels.len(), 16);
        // Sample s of texel (x, y) holds 100 * (y * 2 + x) + s + 1: all distinct, none zero.
        for y in 0..2 {
            for x in 0..2 {
                for s in 0..4 {
                    let i = t.sample_index(x, y, 0, s);
                    t.texels[i] = [100 * (y * 2 + x) + s + 1, 7, 7, 7];
                }
            }
        }
        resources.textures.insert((0, 0), t);
        let mut depth = Texture::multisampled(1, 2, 1, 8);
        let i = depth.sample_index(0, 1, 0, 2);
        depth.texels[i] = [0.625f32.to_bits(), 0, 0, 0];
        resources.textures.insert((0, 1), depth);
        let mut ti = Texture::multisampled(1, 1, 1, 2);
        ti.texels[1] = [0, (-3i32) as u32, 0, 0];
        resources.textures.insert((0, 2), ti);
        let mut buffers = Buffers::new();
        buffers.insert((0, 3), vec![0; 4 * 26]);
        oxir_interp::dispatch_with_resources(
            &m,
            "main",
            [1, 1, 1],
            &mut buffers,
            &mut resources,
            &Default::default(),
        )
        .unwrap();
        let out: Vec<u32> = buffers[&(0, 3)]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let expected: Vec<u32> = (0..16).map(|i| 100 * (i / 4) + i % 4 + 1).collect();
        assert_eq!(&out[..16], &expected[..], "each sample");
        assert_eq!(out[16], 0, "sample index past the last sample reads zero");
        assert_eq!(out[17], 0, "negative sample index reads zero");
        assert_eq!(out[18], 0, "coordinate past the edge reads zero");
        assert_eq!(out[19], 4, "textureNumSamples");
        assert_eq!(&out[20..22], &[2, 2], "textureDimensions");
        assert_eq!(out[22], 5, "depth sample 2 of (0, 1) is 0.625");
        assert_eq!(out[23], 8, "depth textureNumSamples");
        assert_eq!(out[24], (-3i32) as u32, "i32 sample 1, channel y");
        assert_eq!(out[25], 2, "i32 textureNumSamples");
    }
}

/// A mip level other than 0 reads zero (the textures have one level), as an out-of-range
/// coordinate does.
#[test]
fn load_past_the_last_level_reads_zero() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var t: texture_2d<u32>;
         @group(0) @binding(1) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(1)
         fn main() {
             out[0] = textureLoad(t, vec2<i32>(0, 0), 0).x;
             out[1] = textureLoad(t, vec2<i32>(0, 0), 1).x;
             out[2] = textureLoad(t, vec2<i32>(0, 0), -1).x;
             out[3] = textureNumLevels(t);
         }",
    );
    let mut resources = Resources::default();
    let mut t = Texture::new(1, 1, 1);
    t.texels[0] = [9, 0, 0, 0];
    resources.textures.insert((0, 0), t);
    let mut buffers = Buffers::new();
    buffers.insert((0, 1), vec![0; 16]);
    oxir_interp::dispatch_with_resources(
        &module,
        "main",
        [1, 1, 1],
        &mut buffers,
        &mut resources,
        &Default::default(),
    )
    .unwrap();
    let out: Vec<u32> = buffers[&(0, 1)]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(out, [9, 0, 0, 1]);
}

/// `textureSampleBaseClampToEdge` clamps the coordinate half a texel inside the edges
/// before sampling level 0, so a linear, repeating sampler never blends in the opposite
/// edge: on a 4x2 texture whose row holds 0, 1, 2, 3 in red, u = 0 reads the centre of
/// texel 0 (0.0; without the clamp, repeat addressing blends texel 3 in: 1.5), u = 1 the
/// centre of texel 3 (3.0), and u = 0.5 is inside the range and unchanged (1.5).
#[test]
fn sample_base_clamp_to_edge_stays_half_a_texel_inside() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var t: texture_2d<f32>;
         @group(0) @binding(1) var s: sampler;
         @group(0) @binding(2) var<storage, read_write> out: array<f32, 4>;
         @compute @workgroup_size(1) fn main() {
             out[0] = textureSampleBaseClampToEdge(t, s, vec2<f32>(0.0, 0.25)).x;
             out[1] = textureSampleBaseClampToEdge(t, s, vec2<f32>(1.0, 0.25)).x;
             out[2] = textureSampleBaseClampToEdge(t, s, vec2<f32>(0.5, 0.25)).x;
             out[3] = textureSampleLevel(t, s, vec2<f32>(0.0, 0.25), 0.0).x;
         }",
    );
    let red = |r: f32| [r, 0.0, 0.0, 1.0];
    let texels = [red(0.0), red(1.0), red(2.0), red(3.0)];
    let texels: Vec<[f32; 4]> = texels.iter().chain(texels.iter()).copied().collect();
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut resources = Resources::default();
        resources
            .textures
            .insert((0, 0), Texture::from_f32(4, 2, &texels));
        resources.samplers.insert(
            (0, 1),
            Sampler {
                filter: Filter::Linear,
                address: AddressMode::Repeat,
            },
        );
        let mut buffers = Buffers::new();
        buffers.insert((0, 2), vec![0; 16]);
        oxir_interp::dispatch_with_resources(
            &m,
            "main",
            [1, 1, 1],
            &mut buffers,
            &mut resources,
            &Default::default(),
        )
        .unwrap();
        assert_eq!(f32s(&buffers[&(0, 2)]), [0.0, 3.0, 1.5, 1.5]);
    }
}
