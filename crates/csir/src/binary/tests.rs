//! CSI round trips, every single-byte corruption and every truncation, and property
//! tests over random shaders.

use super::*;
use crate::interface::Sampler;
use crate::record::{Op, NONE};
use crate::verify::{rec, sample_vertex};
use proptest::prelude::*;

/// A fragment shader with sampler slot 1, two varyings and several uniforms.
fn sample_fragment() -> Shader {
    let mut s = sample_vertex();
    s.stage = Stage::Fragment;
    s.name = "fs_main".into();
    s.interface.attributes.clear();
    s.interface.varyings.push(Slot {
        name: "uv".into(),
        ty: IfaceType::vector(2),
        slot: 4,
        interp: Interp::Linear,
    });
    s.interface.outputs.push(Slot {
        name: "color".into(),
        ty: IfaceType::vector(4),
        slot: 0,
        interp: Interp::Perspective,
    });
    s.interface.samplers.push(Sampler {
        name: "albedo+albedo_sampler".into(),
        slot: 1,
        texture: (0, 1),
        sampler: (0, 2),
    });
    let mut var = rec(Op::LoadVar, 2, 1, NONE, NONE);
    var.aux = 4;
    let mut sample = rec(Op::Sample, 4, 2, 1, NONE);
    sample.aux = 1;
    let mut color = rec(Op::StoreColor, 4, NONE, 2, NONE);
    color.aux = 0;
    let mut uni = rec(Op::LoadUni, 4, 3, NONE, NONE);
    (uni.aux, uni.aux2) = (4, 1);
    s.records = vec![
        var,
        sample,
        uni,
        color,
        rec(Op::Discard, 0, NONE, NONE, NONE),
    ];
    s.immediates = vec![f32::from_bits(0x7fc0_0001), -0.0, 1e-40];
    s
}

fn blobs() -> Vec<Vec<u8>> {
    vec![write(&sample_vertex()), write(&sample_fragment())]
}

#[test]
fn round_trip_restores_the_interface_exactly() {
    let limits = Limits::default();
    for shader in [sample_vertex(), sample_fragment()] {
        let blob = write(&shader);
        let back = read(&blob, &limits).unwrap();
        assert_eq!(back.interface, shader.interface);
        assert_eq!(back.records, shader.records);
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back.immediates), bits(&shader.immediates));
        assert_eq!(
            (back.stage, back.ntmp, &back.name),
            (shader.stage, shader.ntmp, &shader.name)
        );
        assert_eq!(write(&back), blob);
    }
    let v = read(&write(&sample_vertex()), &limits).unwrap();
    assert_eq!(v.interface.attributes[0].slot, 3);
    assert_eq!(v.interface.uniforms.len(), 2);
    let f = read(&write(&sample_fragment()), &limits).unwrap();
    assert_eq!(f.interface.samplers[0].slot, 1);
}

#[test]
fn every_single_byte_corruption_is_rejected() {
    let limits = Limits::default();
    let mut tried = 0u64;
    for blob in blobs() {
        for at in 0..blob.len() {
            for value in 0..=255u8 {
                if value == blob[at] {
                    continue;
                }
                let mut bad = blob.clone();
                bad[at] = value;
                tried += 1;
                assert!(read(&bad, &limits).is_err(), "byte {at} = {value} accepted");
            }
        }
    }
    assert!(tried > 100_000, "{tried}");
}

#[test]
fn every_truncation_and_extension_is_rejected() {
    let limits = Limits::default();
    for blob in blobs() {
        for len in 0..blob.len() {
            assert!(read(&blob[..len], &limits).is_err(), "truncated to {len}");
        }
        let mut longer = blob.clone();
        longer.push(0);
        assert!(matches!(
            read(&longer, &limits),
            Err(ReadError::Length { .. })
        ));
    }
}

/// A blob whose counts claim huge sections, rehashed so only the size checks stand
/// between it and an allocation.
#[test]
fn absurd_counts_are_rejected_before_allocating() {
    let limits = Limits::default();
    let mut blob = write(&sample_vertex());
    blob[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    let hash = hash_of(&blob).to_le_bytes();
    blob[HASH_AT..HASH_AT + 8].copy_from_slice(&hash);
    assert!(matches!(
        read(&blob, &limits),
        Err(ReadError::Count {
            what: "instructions",
            ..
        })
    ));
    let mut blob = write(&sample_vertex());
    blob[28..32].copy_from_slice(&100u32.to_le_bytes());
    let hash = hash_of(&blob).to_le_bytes();
    blob[HASH_AT..HASH_AT + 8].copy_from_slice(&hash);
    assert!(matches!(
        read(&blob, &limits),
        Err(ReadError::Length {
            what: "sections",
            ..
        })
    ));
}

/// A valid hash does not make a blob trusted: a record outside the temporaries is
/// refused by the verifier.
#[test]
fn rehashed_hostile_records_are_refused_by_the_verifier() {
    let mut shader = sample_vertex();
    shader.records[2].a = 90; // MULMV columns 90..94 past ntmp = 8
    let blob = write(&shader);
    match read(&blob, &Limits::default()) {
        Err(ReadError::Verify(e)) => assert!(e.to_string().contains("a span 90..94"), "{e}"),
        other => panic!("{other:?}"),
    }
    assert!(decode(&blob, &Limits::default()).is_ok());
}

/// `seal` writes the hash `decode` checks: an edited blob fails on its hash until sealed,
/// and sealing a blob shorter than the header changes nothing.
#[test]
fn seal_rehashes_an_edited_blob() {
    let mut blob = write(&sample_vertex());
    let last = blob.len() - 1;
    blob[last] ^= 0x40;
    assert!(matches!(
        decode(&blob, &Limits::default()),
        Err(ReadError::Hash { .. })
    ));
    seal(&mut blob);
    assert!(!matches!(
        decode(&blob, &Limits::default()),
        Err(ReadError::Hash { .. })
    ));
    let sealed = write(&sample_vertex());
    let mut again = sealed.clone();
    seal(&mut again);
    assert_eq!(again, sealed, "a written blob is already sealed");
    let mut short = vec![7u8; HEADER_SIZE - 1];
    seal(&mut short);
    assert_eq!(short, vec![7u8; HEADER_SIZE - 1]);
}

fn arb_record() -> impl Strategy<Value = Record> {
    (any::<[u8; 4]>(), any::<[i16; 6]>()).prop_map(|(b, f)| Record {
        op: b[0],
        ty: b[1],
        ncomp: b[2],
        pad: b[3],
        dst: f[0],
        a: f[1],
        b: f[2],
        c: f[3],
        aux: f[4],
        aux2: f[5],
    })
}

fn arb_slot() -> impl Strategy<Value = Slot> {
    ("[a-z_]{1,12}", 1u8..=4, any::<u16>(), 0u8..3).prop_map(|(name, rows, slot, i)| Slot {
        name,
        ty: IfaceType::vector(rows),
        slot,
        interp: Interp::from_u8(i).unwrap_or(Interp::Perspective),
    })
}

fn arb_shader() -> impl Strategy<Value = Shader> {
    (
        any::<bool>(),
        0u16..=96,
        prop::collection::vec(arb_record(), 0..40),
        prop::collection::vec(any::<u32>(), 0..20),
        prop::collection::vec(arb_slot(), 0..5),
        prop::collection::vec(arb_slot(), 0..5),
        "[a-z]{1,20}",
    )
        .prop_map(|(vertex, ntmp, records, imms, attrs, vars, name)| Shader {
            stage: if vertex {
                Stage::Vertex
            } else {
                Stage::Fragment
            },
            name,
            ntmp,
            records,
            immediates: imms.into_iter().map(f32::from_bits).collect(),
            interface: Interface {
                attributes: attrs,
                varyings: vars,
                ..Interface::default()
            },
        })
}

proptest! {
    #[test]
    fn decode_inverts_write(shader in arb_shader()) {
        let limits = Limits::default();
        let blob = write(&shader);
        let back = decode(&blob, &limits).unwrap();
        prop_assert_eq!(&back.records, &shader.records);
        prop_assert_eq!(&back.interface, &shader.interface);
        prop_assert_eq!(write(&back), blob);
    }

    #[test]
    fn mutations_are_rejected(shader in arb_shader(), at in any::<prop::sample::Index>(), xor in 1u8..=255) {
        let mut blob = write(&shader);
        let i = at.index(blob.len());
        blob[i] ^= xor;
        prop_assert!(decode(&blob, &Limits::default()).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = read(&bytes, &Limits::default());
        let mut with_header = write(&sample_vertex());
        with_header.truncate(HEADER_SIZE);
        with_header.extend(&bytes);
        let _ = read(&with_header, &Limits::default());
    }
}
