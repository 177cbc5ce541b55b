//! Dispatches on a real Vulkan device (lavapipe in CI): known answers computed here by
//! hand, device selection errors. Without Vulkan these fail under OXIR_REQUIRE_VULKAN=1
//! and skip visibly otherwise.

mod common;

use common::{spirv_of, vulkan_available};
use oxir_vulkan::{reflect, run_compute, BindingData, DescriptorKind, DeviceSelector, Error};

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn clamp_scale_bindings(data: &[f32]) -> Vec<BindingData> {
    let mut params = f32s(&[2.0]);
    params.extend_from_slice(&3u32.to_le_bytes());
    params.extend_from_slice(&f32s(&[5.0]));
    vec![
        BindingData {
            set: 0,
            binding: 0,
            kind: DescriptorKind::UniformBuffer,
            bytes: params,
            extent: None,
            samples: 1,
        },
        BindingData {
            set: 0,
            binding: 1,
            kind: DescriptorKind::StorageBuffer,
            bytes: f32s(data),
            extent: None,
            samples: 1,
        },
    ]
}

#[test]
fn clamp_scale_known_answer() {
    if !vulkan_available("clamp_scale_known_answer") {
        return;
    }
    let words = spirv_of("examples/clamp_scale.wgsl");
    let interface = reflect(&words).unwrap();
    let data = [1.0, -2.0, 4.0, 7.0, 9.0];
    let out = run_compute(
        &words,
        &interface,
        "main",
        [1, 1, 1],
        &clamp_scale_bindings(&data),
        &DeviceSelector::First,
    )
    .unwrap();
    // count = 3: the first three are clamp(x * 2, 0, 5), the rest untouched.
    assert_eq!(out[1], f32s(&[2.0, 0.0, 5.0, 7.0, 9.0]));
    assert_eq!(out[0].len(), 12);
}

#[test]
fn device_selection_and_interface_errors() {
    if !vulkan_available("device_selection_and_interface_errors") {
        return;
    }
    let devices = oxir_vulkan::list_devices().unwrap();
    eprintln!("devices: {devices:?}");
    let words = spirv_of("examples/clamp_scale.wgsl");
    let interface = reflect(&words).unwrap();
    let bindings = clamp_scale_bindings(&[1.0]);
    let run = |sel: DeviceSelector, entry: &str, b: &[BindingData]| {
        run_compute(&words, &interface, entry, [1, 1, 1], b, &sel)
    };
    // By index and by name.
    run(DeviceSelector::Index(0), "main", &bindings).unwrap();
    let name = devices[0].name.to_uppercase();
    run(DeviceSelector::Name(name), "main", &bindings).unwrap();
    let e = run(
        DeviceSelector::Name("no-such-device".into()),
        "main",
        &bindings,
    )
    .unwrap_err();
    assert!(matches!(e, Error::DeviceNotFound { .. }), "{e}");
    assert!(e.to_string().contains(&devices[0].name), "{e}");
    let e = run(DeviceSelector::Index(99), "main", &bindings).unwrap_err();
    assert!(matches!(e, Error::DeviceNotFound { .. }), "{e}");
    // Wrong entry point, a missing binding, a binding of the wrong kind.
    let e = run(DeviceSelector::First, "nope", &bindings).unwrap_err();
    assert!(
        e.to_string()
            .contains("no compute entry point named `nope`"),
        "{e}"
    );
    let e = run(DeviceSelector::First, "main", &bindings[..1]).unwrap_err();
    assert!(e.to_string().contains("binding 0:1"), "{e}");
    let mut wrong = bindings.clone();
    wrong[0].kind = DescriptorKind::StorageBuffer;
    let e = run(DeviceSelector::First, "main", &wrong).unwrap_err();
    assert!(e.to_string().contains("uniform buffer"), "{e}");
    // An empty storage buffer is legal (4 bytes are allocated).
    let mut empty = bindings.clone();
    empty[1].bytes.clear();
    let out = run(DeviceSelector::First, "main", &empty).unwrap();
    assert!(out[1].is_empty());
}
