//! Images and samplers: a kernel that loads and samples a sampled image, writes a storage
//! image and reads-modifies-writes a layered storage image, run on Vulkan with given texels
//! and checked against answers computed here by hand and against the interpreter; image
//! bindings in reflection; and the shapes the runner refuses (before any device is
//! needed, so those checks run without Vulkan too).

mod common;

use common::{module_of_wgsl, spirv_of_wgsl, vulkan_available};
use oxir_vulkan::{
    reflect, run_compute, BindingData, ChannelKind, DescriptorKind, DeviceSelector, Dim, Error,
    ImageFormat,
};

const KERNEL: &str = "
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var samp: sampler;
@group(0) @binding(2) var dst: texture_storage_2d<rgba32uint, write>;
@group(0) @binding(3) var acc: texture_storage_2d_array<r32float, read_write>;

@compute @workgroup_size(4, 2)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let t = textureLoad(src, vec2<i32>(id.xy), 0);
    // The centre of the texel one to the right (clamped at the edge), sampled nearest.
    let size = vec2<f32>(textureDimensions(src));
    let uv = (vec2<f32>(id.xy) + vec2<f32>(0.5, 0.5)) / size + vec2<f32>(1.0 / size.x, 0.0);
    let s = textureSampleLevel(src, samp, uv, 0.0);
    textureStore(dst, id.xy, vec4<u32>(u32(t.x), u32(s.x), id.x, id.y * 10u + 1u));
    let v = textureLoad(acc, id.xy, 1);
    textureStore(acc, id.xy, 0, v + t);
}
";

const W: u32 = 4;
const H: u32 = 2;

/// `src` texel (x, y) is (x + 10y, 0.5, -1, 2).
fn src_texels() -> Vec<[f32; 4]> {
    (0..H)
        .flat_map(|y| (0..W).map(move |x| [(x + 10 * y) as f32, 0.5, -1.0, 2.0]))
        .collect()
}

/// `acc` layer 0 starts at 7, layer 1 at 1000 + x.
fn acc_texels() -> Vec<f32> {
    let mut v = vec![7.0; (W * H) as usize];
    v.extend((0..H).flat_map(|_| (0..W).map(|x| 1000.0 + x as f32)));
    v
}

fn bindings() -> Vec<BindingData> {
    let image = |binding, kind, bytes: Vec<u8>, extent| BindingData {
        set: 0,
        binding,
        kind,
        bytes,
        extent: Some(extent),
        samples: 1,
    };
    vec![
        image(
            0,
            DescriptorKind::SampledImage,
            src_texels()
                .iter()
                .flatten()
                .flat_map(|v| v.to_le_bytes())
                .collect(),
            [W, H, 1],
        ),
        BindingData {
            set: 0,
            binding: 1,
            kind: DescriptorKind::Sampler,
            bytes: Vec::new(),
            extent: None,
            samples: 1,
        },
        image(2, DescriptorKind::StorageImage, Vec::new(), [W, H, 1]),
        image(
            3,
            DescriptorKind::StorageImage,
            acc_texels().iter().flat_map(|v| v.to_le_bytes()).collect(),
            [W, H, 2],
        ),
    ]
}

fn words_u32(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn image_bindings_are_reflected() {
    let words = spirv_of_wgsl("images.wgsl", KERNEL);
    let interface = reflect(&words).unwrap();
    let kinds: Vec<(u32, DescriptorKind)> = interface
        .bindings
        .values()
        .map(|b| (b.binding, b.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            (0, DescriptorKind::SampledImage),
            (1, DescriptorKind::Sampler),
            (2, DescriptorKind::StorageImage),
            (3, DescriptorKind::StorageImage),
        ]
    );
    let src = interface.bindings[&(0, 0)].image.unwrap();
    assert_eq!(
        (
            src.dim,
            src.arrayed,
            src.multisampled,
            src.channel,
            src.format
        ),
        (
            Dim::Dim2D,
            false,
            false,
            ChannelKind::Float,
            ImageFormat::Unknown
        )
    );
    assert!(interface.bindings[&(0, 1)].image.is_none());
    let dst = interface.bindings[&(0, 2)].image.unwrap();
    assert_eq!(
        (dst.channel, dst.format),
        (ChannelKind::Uint, ImageFormat::Rgba32ui)
    );
    let acc = interface.bindings[&(0, 3)].image.unwrap();
    assert_eq!(
        (acc.dim, acc.arrayed, acc.format),
        (Dim::Dim2D, true, ImageFormat::R32f)
    );
}

#[test]
fn storage_images_round_trip_and_match_the_interpreter() {
    if !vulkan_available("storage_images_round_trip_and_match_the_interpreter") {
        return;
    }
    let words = spirv_of_wgsl("images.wgsl", KERNEL);
    let interface = reflect(&words).unwrap();
    let out = run_compute(
        &words,
        &interface,
        "main",
        [1, 1, 1],
        &bindings(),
        &DeviceSelector::First,
    )
    .unwrap();
    // Known answers.
    let mut dst = Vec::new();
    let mut acc0 = Vec::new();
    for y in 0..H {
        for x in 0..W {
            let right = (x + 1).min(W - 1);
            dst.extend([x + 10 * y, right + 10 * y, x, 10 * y + 1]);
            acc0.push((1000.0 + x as f32 + (x + 10 * y) as f32).to_bits());
        }
    }
    let acc1: Vec<u32> = acc_texels()[(W * H) as usize..]
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(words_u32(&out[2]), dst);
    let acc = words_u32(&out[3]);
    assert_eq!(acc[..(W * H) as usize], acc0[..]);
    assert_eq!(acc[(W * H) as usize..], acc1[..]);
    // The sampled image comes back as given, the sampler as nothing.
    assert_eq!(out[0], bindings()[0].bytes);
    assert!(out[1].is_empty());

    // The interpreter, with the same texels.
    let module = module_of_wgsl("images.wgsl", KERNEL);
    let mut resources = oxir_interp::Resources::default();
    resources
        .textures
        .insert((0, 0), oxir_interp::Texture::from_f32(W, H, &src_texels()));
    let mut acc_tex = oxir_interp::Texture::new(W, H, 2);
    for (t, v) in acc_tex.texels.iter_mut().zip(acc_texels()) {
        *t = [v.to_bits(), 0, 0, 0];
    }
    resources.textures.insert((0, 3), acc_tex);
    resources
        .textures
        .insert((0, 2), oxir_interp::Texture::new(W, H, 1));
    let mut buffers = Default::default();
    oxir_interp::dispatch_with_resources(
        &module,
        "main",
        [1, 1, 1],
        &mut buffers,
        &mut resources,
        &Default::default(),
    )
    .unwrap();
    let interp_dst: Vec<u32> = resources.textures[&(0, 2)]
        .texels
        .iter()
        .flatten()
        .copied()
        .collect();
    let interp_acc: Vec<u32> = resources.textures[&(0, 3)]
        .texels
        .iter()
        .map(|t| t[0])
        .collect();
    assert_eq!(words_u32(&out[2]), interp_dst);
    assert_eq!(words_u32(&out[3]), interp_acc);
}

/// Shapes and data the runner refuses: an `unsupported` error (or an interface error for
/// wrong data), before any Vulkan object exists.
#[test]
fn unsupported_image_shapes_are_refused() {
    let run = |text: &str, b: &[BindingData]| {
        let words = spirv_of_wgsl("refused.wgsl", text);
        let interface = reflect(&words).unwrap();
        run_compute(
            &words,
            &interface,
            "main",
            [1, 1, 1],
            b,
            &DeviceSelector::First,
        )
        .unwrap_err()
    };
    let image = |kind, bytes: Vec<u8>, extent| BindingData {
        set: 0,
        binding: 0,
        kind,
        bytes,
        extent,
        samples: 1,
    };
    let out = BindingData::buffer(0, 1, DescriptorKind::StorageBuffer, vec![0; 16]);
    let expect = |e: Error, unsupported: bool, text: &str| {
        assert_eq!(matches!(e, Error::Unsupported(_)), unsupported, "{e}");
        assert!(e.to_string().contains(text), "{e}");
        if unsupported {
            assert!(e.to_string().starts_with("unsupported: binding 0:0"), "{e}");
        }
    };
    // A multisampled image needs 2..=64 (a power of two) samples and takes no texels or one; a
    // single-sampled one takes no sample count.
    let ms = "@group(0) @binding(0) var t: texture_multisampled_2d<f32>;
        @group(0) @binding(1) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(1) fn main() { o[0] = textureLoad(t, vec2<i32>(0), 0).x; }";
    let ms_image = |samples, bytes| BindingData {
        samples,
        ..image(DescriptorKind::SampledImage, bytes, None)
    };
    for samples in [1, 3, 128] {
        let e = run(ms, &[ms_image(samples, vec![]), out.clone()]);
        expect(
            e,
            true,
            &format!("{samples} samples for a multisampled 2D image (2, 4, 8"),
        );
    }
    let e = run(ms, &[ms_image(4, vec![0; 32]), out.clone()]);
    expect(e, true, "32 bytes of texels for a multisampled image");
    // A 1D image has height 1; a non-arrayed 2D image one layer; cubes are square with 6
    // layers.
    let line = "@group(0) @binding(0) var t: texture_storage_1d<r32uint, write>;
        @group(0) @binding(1) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(1) fn main() { textureStore(t, 0, vec4<u32>(1u)); o[0] = 1.0; }";
    let e = run(
        line,
        &[
            image(DescriptorKind::StorageImage, vec![], Some([4, 2, 1])),
            out.clone(),
        ],
    );
    expect(e, true, "a 1D image has height 1");
    let flat = "@group(0) @binding(0) var t: texture_2d<f32>;
        @group(0) @binding(1) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(1) fn main() { o[0] = textureLoad(t, vec2<i32>(0), 0).x; }";
    let e = run(
        flat,
        &[
            image(DescriptorKind::SampledImage, vec![], Some([4, 4, 3])),
            out.clone(),
        ],
    );
    expect(e, true, "one layer");
    let e = run(
        flat,
        &[
            BindingData {
                samples: 4,
                ..image(DescriptorKind::SampledImage, vec![], None)
            },
            out.clone(),
        ],
    );
    expect(e, true, "4 samples for a 2D image that is not multisampled");
    let e = run(
        flat,
        &[
            image(DescriptorKind::SampledImage, vec![], Some([0, 4, 1])),
            out.clone(),
        ],
    );
    expect(e, true, "every side must be");
    let cube = "@group(0) @binding(0) var t: texture_cube<f32>;
        @group(0) @binding(2) var s: sampler;
        @group(0) @binding(1) var<storage, read_write> o: array<f32>;
        @compute @workgroup_size(1) fn main() {
            o[0] = textureSampleLevel(t, s, vec3<f32>(1.0, 0.0, 0.0), 0.0).x; }";
    let sampler = BindingData {
        set: 0,
        binding: 2,
        kind: DescriptorKind::Sampler,
        bytes: vec![],
        extent: None,
        samples: 1,
    };
    for (extent, why) in [([4, 2, 6], "square"), ([4, 4, 5], "6 layers")] {
        let e = run(
            cube,
            &[
                image(DescriptorKind::SampledImage, vec![], Some(extent)),
                out.clone(),
                sampler.clone(),
            ],
        );
        expect(e, true, why);
    }
    // Texel data that does not fill the image exactly: an interface error.
    let e = run(
        flat,
        &[
            image(DescriptorKind::SampledImage, vec![0; 12], Some([2, 2, 1])),
            out.clone(),
        ],
    );
    expect(e, false, "12 bytes of texels given");
    // An image given as a storage buffer: the kinds disagree.
    let e = run(
        flat,
        &[
            BindingData::buffer(0, 0, DescriptorKind::StorageBuffer, vec![0; 4]),
            out,
        ],
    );
    expect(
        e,
        false,
        "is a sampled image in the module, given as a storage buffer",
    );
}

const DEPTH_KERNEL: &str = "
@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var cmp: sampler_comparison;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let uv = vec2<f32>((f32(id.x) + 0.5) / 4.0, 0.5);
    out[id.x] = textureSampleCompareLevel(depth, cmp, uv, 0.5);
    out[id.x + 4u] = textureLoad(depth, vec2<i32>(i32(id.x), 0), 0);
}
";

/// A depth image sampled with a comparison sampler: reflection marks the sampler (SPIR-V
/// has no comparison-sampler type), the runner compares `reference <= texel` as the
/// interpreter does.
#[test]
fn depth_comparison_sampling_matches_the_interpreter() {
    let words = spirv_of_wgsl("depth.wgsl", DEPTH_KERNEL);
    let interface = reflect(&words).unwrap();
    assert!(interface.bindings[&(0, 1)].comparison);
    assert!(!interface.bindings[&(0, 0)].comparison);
    assert!(interface.bindings[&(0, 0)].image.unwrap().depth);
    // The sampler of the first kernel is not a comparison sampler.
    let plain = reflect(&spirv_of_wgsl("images.wgsl", KERNEL)).unwrap();
    assert!(!plain.bindings[&(0, 1)].comparison);
    if !vulkan_available("depth_comparison_sampling_matches_the_interpreter") {
        return;
    }
    let texels = [0.25f32, 0.5, 0.75, 1.0];
    let data = [
        BindingData {
            set: 0,
            binding: 0,
            kind: DescriptorKind::SampledImage,
            bytes: texels.iter().flat_map(|v| v.to_le_bytes()).collect(),
            extent: Some([4, 1, 1]),
            samples: 1,
        },
        BindingData {
            set: 0,
            binding: 1,
            kind: DescriptorKind::Sampler,
            bytes: vec![],
            extent: None,
            samples: 1,
        },
        BindingData::buffer(0, 2, DescriptorKind::StorageBuffer, vec![0; 32]),
    ];
    let out = run_compute(
        &words,
        &interface,
        "main",
        [1, 1, 1],
        &data,
        &DeviceSelector::First,
    )
    .unwrap();
    let expected: Vec<u32> = [0.0f32, 1.0, 1.0, 1.0]
        .iter()
        .chain(&texels)
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(words_u32(&out[2]), expected);
    // The interpreter agrees.
    let module = module_of_wgsl("depth.wgsl", DEPTH_KERNEL);
    let mut resources = oxir_interp::Resources::default();
    let mut depth = oxir_interp::Texture::new(4, 1, 1);
    for (t, v) in depth.texels.iter_mut().zip(texels) {
        *t = [v.to_bits(), 0, 0, 0];
    }
    resources.textures.insert((0, 0), depth);
    let mut buffers = std::collections::BTreeMap::new();
    buffers.insert((0, 2), vec![0u8; 32]);
    oxir_interp::dispatch_with_resources(
        &module,
        "main",
        [1, 1, 1],
        &mut buffers,
        &mut resources,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(buffers[&(0, 2)], out[2]);
}

/// Multisampled colour (u32) and depth images bind as sampled images, report their sample
/// count, and read zero in every sample (the runner clears them; the output buffer starts
/// at 0xff bytes so a zero is written, not left).
#[test]
fn multisampled_images_bind_and_read_zero() {
    const MS: &str = "
        @group(0) @binding(0) var t: texture_multisampled_2d<u32>;
        @group(0) @binding(1) var d: texture_depth_multisampled_2d;
        @group(0) @binding(2) var<storage, read_write> o: array<u32>;
        @compute @workgroup_size(1) fn main() {
            let n = textureNumSamples(t);
            o[0] = n;
            o[1] = textureNumSamples(d);
            let dim = textureDimensions(t);
            o[2] = dim.x * 100u + dim.y;
            var acc = 0u;
            for (var s = 0u; s < n; s++) {
                for (var y = 0u; y < dim.y; y++) {
                    for (var x = 0u; x < dim.x; x++) {
                        let v = textureLoad(t, vec2<u32>(x, y), s);
                        acc |= v.x | v.y | v.z | v.w;
                        acc |= bitcast<u32>(textureLoad(d, vec2<u32>(x, y), s));
                    }
                }
            }
            o[3] = acc;
        }";
    let words = spirv_of_wgsl("ms.wgsl", MS);
    let interface = reflect(&words).unwrap();
    for key in [(0, 0), (0, 1)] {
        let info = interface.bindings[&key].image.unwrap();
        assert!(info.multisampled && info.dim == Dim::Dim2D && !info.arrayed);
        assert_eq!(interface.bindings[&key].kind, DescriptorKind::SampledImage);
    }
    assert!(interface.bindings[&(0, 1)].image.unwrap().depth);
    if !vulkan_available("multisampled_images_bind_and_read_zero") {
        return;
    }
    let ms = |binding, samples| BindingData {
        set: 0,
        binding,
        kind: DescriptorKind::SampledImage,
        bytes: vec![],
        extent: Some([3, 2, 1]),
        samples,
    };
    let out = BindingData::buffer(0, 2, DescriptorKind::StorageBuffer, vec![0xff; 16]);
    // 4 samples: every device supports it for sampled colour, integer and depth images.
    let result = run_compute(
        &words,
        &interface,
        "main",
        [1, 1, 1],
        &[ms(0, 4), ms(1, 4), out.clone()],
        &DeviceSelector::First,
    )
    .unwrap();
    assert_eq!(words_u32(&result[2]), [4, 4, 302, 0]);
    // A sampled multisampled image reads back as zeros of the single-sampled size.
    assert_eq!(result[0], vec![0; 3 * 2 * 16]);
    // 64 samples: run if the device can sample that many, else refused as unsupported.
    match run_compute(
        &words,
        &interface,
        "main",
        [1, 1, 1],
        &[ms(0, 64), ms(1, 64), out],
        &DeviceSelector::First,
    ) {
        Ok(r) => assert_eq!(words_u32(&r[2]), [64, 64, 302, 0]),
        Err(e) => {
            assert!(matches!(e, Error::Unsupported(_)), "{e}");
            assert!(e.to_string().contains("cannot sample"), "{e}");
        }
    }
}
