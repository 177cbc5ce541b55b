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
        oxir_interp::texture::sample(&t, &Sampler { filter, address }, u, 0.5, 0)[0]
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
