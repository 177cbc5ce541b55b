//! Reflection of SPIR-V binaries: the interface of oxir's own modules, and malformed
//! input (truncated, corrupted at every word) giving errors, never panics.

mod common;

use common::{spirv_of, spirv_of_wgsl};
use oxir_vulkan::reflect::{reflect, words_from_bytes, DescriptorKind, ReflectError};

#[test]
fn clamp_scale_interface() {
    let words = spirv_of("examples/clamp_scale.wgsl");
    let i = reflect(&words).unwrap();
    let e = i.compute_entry(None).unwrap();
    assert_eq!(e.name, "main");
    assert_eq!(e.local_size, Some([64, 1, 1]));
    let params = &i.bindings[&(0, 0)];
    assert_eq!(params.kind, DescriptorKind::UniformBuffer);
    // struct Params { scale: f32, count: u32, limit: f32 }: 12 bytes, aligned to 4.
    assert_eq!((params.min_size, params.runtime_sized), (12, false));
    let data = &i.bindings[&(0, 1)];
    assert_eq!(data.kind, DescriptorKind::StorageBuffer);
    assert_eq!((data.min_size, data.runtime_sized), (0, true));
    assert!(!i.push_constants);
    assert!(i.compute_entry(Some("nope")).is_err());
}

#[test]
fn file_framing_errors() {
    assert!(matches!(
        words_from_bytes(&[1, 2, 3]),
        Err(ReflectError::Malformed(_))
    ));
    assert!(
        matches!(words_from_bytes(&[0; 20]), Err(ReflectError::Malformed(m)) if m.contains("magic"))
    );
    let words = spirv_of("examples/clamp_scale.wgsl");
    let mut be: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
    assert_eq!(words_from_bytes(&be).unwrap(), words);
    be.truncate(be.len() - 4);
    let err = reflect(&words_from_bytes(&be).unwrap()).unwrap_err();
    assert!(matches!(err, ReflectError::Malformed(_)), "{err}");
    // The last instruction claims more words than there are.
    let mut long = words.clone();
    let last = long.len() - 1;
    long[last] |= 5 << 16;
    let err = reflect(&long).unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("instruction at word {last}")),
        "{err}"
    );
    assert!(err.to_string().contains("ends after"), "{err}");
}

/// Every truncation and many single-word corruptions of valid modules: each gives an
/// interface or an error, and never panics.
#[test]
fn truncated_and_corrupted_modules_never_panic() {
    let mut checked = 0;
    let mut rejected = 0;
    for file in ["examples/clamp_scale.wgsl", "tests/shaders/memory.wgsl"] {
        let words = spirv_of(file);
        for len in 0..words.len() {
            let bytes: Vec<u8> = words[..len].iter().flat_map(|w| w.to_le_bytes()).collect();
            let r = words_from_bytes(&bytes).and_then(|w| reflect(&w));
            rejected += r.is_err() as usize;
            checked += 1;
        }
        for at in 0..words.len() {
            for value in [
                0,
                1,
                0xffff_ffff,
                0x0001_0000,
                words[at] ^ 0x8000,
                words[at].rotate_left(16),
                3,
            ] {
                let mut w = words.clone();
                w[at] = value;
                let _ = reflect(&w);
                checked += 1;
            }
        }
    }
    eprintln!("reflect: {checked} damaged modules, {rejected} truncations rejected");
    assert!(rejected > 0);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn clamp_scale() -> Vec<u32> {
        static WORDS: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
        WORDS
            .get_or_init(|| spirv_of("examples/clamp_scale.wgsl"))
            .clone()
    }

    proptest! {
        #[test]
        fn random_damage_never_panics(edits in proptest::collection::vec((0usize..4096, any::<u32>()), 1..6)) {
            let mut words = clamp_scale();
            for (at, v) in edits {
                let n = words.len();
                words[at % n] = v;
            }
            let _ = reflect(&words);
        }
    }
}

/// A block needs the bytes up to the end of its last member, not its aligned size: a
/// `vec3<f32>` uniform is 12 bytes (16 with its alignment), and a struct ending in a
/// `vec3` then a `u32` in its padding is 16. A `mat3x2<f32>` read as words is 24.
#[test]
fn blocks_need_their_data_not_their_trailing_padding() {
    let words = spirv_of_wgsl(
        "sizes.wgsl",
        "struct S { v: vec3<f32>, n: u32 }
         struct T { a: vec2<f32>, v: vec3<f32> }
         @group(0) @binding(0) var<uniform> v: vec3<f32>;
         @group(0) @binding(1) var<uniform> s: S;
         @group(0) @binding(2) var<uniform> t: T;
         @group(0) @binding(3) var<uniform> m: mat3x2<f32>;
         @group(0) @binding(4) var<storage, read_write> out: array<f32>;
         @compute @workgroup_size(1) fn main() {
             out[0] = v.x + s.v.y + f32(s.n) + t.v.z + t.a.x + m[2].y;
         }",
    );
    let i = reflect(&words).unwrap();
    let size = |b: u32| i.bindings[&(0, b)].min_size;
    // T: `a` at 0, `v` at 16 (vec3 aligns to 16), ending at 28; aligned size 32.
    assert_eq!([size(0), size(1), size(2), size(3)], [12, 16, 28, 24]);
}
