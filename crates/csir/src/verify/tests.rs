//! Direct verifier tests: one malformed shader per rule, each a mutation of a valid one.

use super::*;
use crate::interface::{IfaceType, Interp, Sampler};

fn verify_default(shader: &Shader) -> Result<(), VerifyError> {
    verify(shader, &Limits::default()).map(|_| ())
}

/// `change` applied to the sample shader must be rejected with an error whose text
/// contains `needle` (and at record `at` when given).
fn rejects(change: impl FnOnce(&mut Shader), at: Option<usize>, needle: &str) {
    let mut shader = sample_vertex();
    change(&mut shader);
    let error = verify_default(&shader).expect_err(needle);
    let text = error.to_string();
    assert!(text.contains(needle), "`{text}` lacks `{needle}`");
    if at.is_some() {
        assert_eq!(error.at, at, "{text}");
    }
}

#[test]
fn the_sample_shader_verifies() {
    let shader = sample_vertex();
    let verified = verify(&shader, &Limits::default()).unwrap();
    assert_eq!(verified.iter().count(), shader.records.len());
}

#[test]
fn invalid_opcode() {
    rejects(|s| s.records[3].op = 200, Some(3), "invalid opcode 200");
    rejects(
        |s| s.records[3].op = Op::ALL.len() as u8,
        Some(3),
        "invalid opcode",
    );
}

#[test]
fn unbalanced_flow() {
    rejects(
        |s| {
            s.records.remove(9);
        },
        None,
        "IF without ENDIF",
    );
    rejects(
        |s| s.records[5] = rec(Op::Nop, 0, NONE, NONE, NONE),
        Some(7),
        "ELSE without IF",
    );
    rejects(
        |s| s.records[8] = rec(Op::Else, 0, NONE, NONE, NONE),
        Some(8),
        "second ELSE",
    );
    rejects(
        |s| s.records.push(rec(Op::EndIf, 0, NONE, NONE, NONE)),
        Some(11),
        "ENDIF without IF",
    );
    rejects(
        |s| {
            let iff = s.records[5];
            for _ in 0..33 {
                s.records.push(iff);
            }
        },
        Some(43),
        "deeper than 32",
    );
}

#[test]
fn attribute_and_varying_out_of_range() {
    rejects(
        |s| s.records[1].aux = 0,
        Some(1),
        "attribute slot 0 is not declared",
    );
    rejects(|s| s.records[1].aux = -1, Some(1), "attribute slot -1");
    rejects(|s| s.records[10].aux = 2, Some(10), "varying slot 2");
    rejects(
        |s| s.interface.attributes[0].slot = 16,
        None,
        "slot 16 >= 16",
    );
    rejects(
        |s| s.interface.attributes[0].ty = IfaceType { cols: 2, rows: 2 },
        None,
        "attribute",
    );
    rejects(
        |s| {
            let v = s.interface.varyings[0].clone();
            s.interface.varyings.push(v);
        },
        None,
        "declared twice",
    );
}

#[test]
fn sampler_out_of_range() {
    let mut shader = sample_vertex();
    shader.stage = Stage::Fragment;
    shader.interface.attributes.clear();
    shader.interface.samplers.push(Sampler {
        name: "t+s".into(),
        slot: 1,
        texture: (0, 1),
        sampler: (0, 2),
    });
    let mut sample = rec(Op::Sample, 4, 7, 5, NONE);
    sample.aux = 1;
    shader.records = vec![sample];
    assert!(verify_default(&shader).is_ok());
    shader.records[0].aux = 0;
    assert!(verify_default(&shader)
        .unwrap_err()
        .to_string()
        .contains("sampler slot 0"));
    shader.records[0].aux = 1;
    shader.stage = Stage::Vertex;
    assert!(verify_default(&shader)
        .unwrap_err()
        .to_string()
        .contains("samplers are not allowed"));
}

#[test]
fn bad_matrix_spans() {
    // MULMV reads a..a+aux: columns 5..9 pass ntmp = 8.
    rejects(
        |s| s.records[2].a = 5,
        Some(2),
        "a span 5..9 outside the 8 temporaries",
    );
    rejects(|s| s.records[2].aux = 5, Some(2), "columns 5 outside 2..=4");
    rejects(|s| s.records[2].ncomp = 1, Some(2), "ncomp 1");
    rejects(|s| s.records[2].b = NONE, Some(2), "b span");
    rejects(|s| s.records[2].dst = 3, Some(2), "overlaps a source");
    rejects(
        |s| {
            let mut mm = rec(Op::MulMm, 4, 6, 0, 0);
            (mm.aux, mm.aux2) = (4, 4);
            s.records[2] = mm;
        },
        Some(2),
        "dst span 6..10",
    );
    // LOAD_UNI's destination span and uniform range.
    rejects(|s| s.records[0].aux2 = 6, Some(0), "uniform slots 0 (+6)");
    rejects(
        |s| {
            s.records[0].aux2 = 5;
            s.records[0].dst = 4;
        },
        Some(0),
        "dst span 4..9",
    );
    rejects(|s| s.interface.uniforms[1].slot = 3, None, "declared twice");
}

#[test]
fn immediate_overflow_and_lane_fields() {
    rejects(
        |s| s.records[3].aux = 1,
        Some(3),
        "immediates 1..3 outside the pool of 2",
    );
    rejects(|s| s.records[3].aux = -1, Some(3), "immediates -1");
    rejects(
        |s| s.immediates = vec![0.0; 161],
        None,
        "immediate pool: 161",
    );
    rejects(|s| s.ntmp = 97, None, "temporary pool: 97");
    rejects(|s| s.records[3].ncomp = 5, Some(3), "ncomp 5 outside 1..=4");
    let setlane = |s: &mut Shader, aux: i16, aux2: i16| {
        let mut r = rec(Op::SetLane, 1, 1, 2, NONE);
        (r.aux, r.aux2) = (aux, aux2);
        s.records[3] = r;
    };
    rejects(|s| setlane(s, 4, 0), Some(3), "destination lane 4");
    rejects(|s| setlane(s, 0, -2), Some(3), "source lane -2");
    rejects(
        |s| {
            s.records[4].aux = 6;
        },
        Some(4),
        "compare code 6",
    );
    rejects(|s| s.records[4].a = NONE, Some(4), "a span -1..0");
    rejects(|s| s.records[4].c = 0, Some(4), "c must be -1");
    rejects(|s| s.records[4].pad = 1, Some(4), "pad");
    rejects(|s| s.records[4].ty = 7, Some(4), "type 7");
    rejects(|s| s.records[6].aux = 0, Some(6), "aux 0 outside -1..=-1");
}

#[test]
fn stage_rules() {
    rejects(
        |s| s.records[6] = rec(Op::Discard, 0, NONE, NONE, NONE),
        Some(6),
        "discard is not allowed in a vertex",
    );
    rejects(
        |s| s.records[6] = rec(Op::LoadFcoord, 4, 1, NONE, NONE),
        Some(6),
        "load_fcoord is not allowed",
    );
    let mut shader = sample_vertex();
    shader.stage = Stage::Fragment;
    shader.interface.attributes.clear();
    shader.records.remove(1);
    assert!(verify_default(&shader)
        .unwrap_err()
        .to_string()
        .contains("store_pos is not allowed in a fragment"));
    shader.interface.outputs.push(Slot {
        name: "o".into(),
        ty: IfaceType::vector(4),
        slot: 0,
        interp: Interp::Perspective,
    });
    shader.stage = Stage::Vertex;
    assert!(verify_default(&shader)
        .unwrap_err()
        .to_string()
        .contains("outputs are not allowed"));
}
