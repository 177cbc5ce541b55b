//! Every vertex and fragment entry point of `tests/shaders` (and the corpus) is either
//! lowered to CSIR that verifies, or refused with a located reason; the project's CSIR
//! shader is accepted.

mod common;

use oxir_csir::lower::LowerError;
use std::collections::BTreeMap;

#[test]
fn every_entry_is_lowered_or_refused_with_a_location() {
    let entries = common::all_entries();
    let mut accepted = Vec::new();
    let mut reasons: BTreeMap<String, u32> = BTreeMap::new();
    let mut totals = (0, 0, 0);
    for e in &entries {
        let label = e.label();
        match &e.csir {
            Ok(shader) => {
                oxir_csir::verify(shader, &oxir_csir::Limits::default()).unwrap();
                let (optimized, info) = common::optimized(shader);
                let v = oxir_csir::verify(&optimized, &oxir_csir::Limits::default()).unwrap();
                let tgsi = oxir_csir::tgsi::emit(&v, None);
                check_tgsi_shape(&label, &tgsi.text);
                totals.0 += info.before;
                totals.1 += info.after;
                totals.2 += tgsi.instructions;
                accepted.push(format!(
                    "{label} ({} -> {} records, {} TGSI instructions, {} temporaries)",
                    info.before, info.after, tgsi.instructions, optimized.ntmp
                ));
            }
            Err(error @ (LowerError::Unsupported { .. } | LowerError::Pool { .. })) => {
                assert!(
                    error.location().is_some_and(|l| l.function.is_some()),
                    "{error}"
                );
                let what = match error {
                    LowerError::Unsupported { what, .. } => what.clone(),
                    other => other.to_string(),
                };
                *reasons.entry(what).or_default() += 1;
            }
            Err(other) => panic!("{label}: {other}"),
        }
    }
    eprintln!(
        "CSIR accepted {} of {} vertex/fragment entries:",
        accepted.len(),
        entries.len()
    );
    for a in &accepted {
        eprintln!("  {a}");
    }
    eprintln!(
        "records before / after the optimiser: {} / {}; TGSI instructions: {}",
        totals.0, totals.1, totals.2
    );
    eprintln!("refusals:");
    for (why, n) in &reasons {
        eprintln!("  {n:3} {why}");
    }
    for name in [
        "csir_scene.wgsl:vs_main",
        "csir_scene.wgsl:fs_main",
        "csir_loops.wgsl:vs_lights",
        "csir_loops.wgsl:fs_blur",
    ] {
        assert!(
            accepted.iter().any(|a| a.starts_with(name)),
            "{name} refused"
        );
    }
}

/// The emitter's structural promises, checked on the text (virglrenderer checks the
/// rest when it is installed): declarations and immediates before instructions,
/// immediates numbered in order, four-letter source swizzles, no SUB / ABS, one END at
/// the end.
fn check_tgsi_shape(label: &str, text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"END"), "{label}");
    assert_eq!(lines.iter().filter(|l| **l == "END").count(), 1, "{label}");
    let first = lines.iter().position(|l| {
        !(l.starts_with("DCL") || l.starts_with("IMM") || *l == "VERT" || *l == "FRAG")
    });
    let first = first.unwrap_or(lines.len());
    for (k, l) in lines[..first]
        .iter()
        .filter(|l| l.starts_with("IMM"))
        .enumerate()
    {
        assert!(l.starts_with(&format!("IMM[{k}] FLT32 {{")), "{label}: {l}");
    }
    for l in &lines[first..] {
        assert!(
            !l.starts_with("DCL") && !l.starts_with("IMM"),
            "{label}: {l}"
        );
        let opcode = l.split_whitespace().next().unwrap_or("");
        assert!(opcode != "SUB" && opcode != "ABS", "{label}: {l}");
        // Source operands: every `].` after the first operand is followed by 4 letters.
        let Some((_, sources)) = l.split_once(", ") else {
            continue;
        };
        for part in sources.split("].").skip(1) {
            let swizzle: String = part
                .chars()
                .take_while(|c| c.is_ascii_lowercase())
                .collect();
            assert_eq!(swizzle.len(), 4, "{label}: {l}");
        }
    }
}

/// Every accepted shader survives the CSI round trip exactly (load + verify time per
/// blob is measured by `benches/csir.rs`).
#[test]
fn accepted_shaders_round_trip_through_csi() {
    let limits = oxir_csir::Limits::default();
    let blobs: Vec<(String, Vec<u8>, oxir_csir::Shader)> = common::all_entries()
        .into_iter()
        .filter_map(|e| {
            let label = e.label();
            e.csir
                .ok()
                .map(|s| (label, oxir_csir::binary::write(&s), s))
        })
        .collect();
    assert!(
        blobs.len() >= common::expected_accepted(),
        "{}",
        blobs.len()
    );
    for (label, blob, shader) in &blobs {
        let back =
            oxir_csir::binary::read(blob, &limits).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(&back.interface, &shader.interface, "{label}");
        assert_eq!(&back.records, &shader.records, "{label}");
        assert_eq!(&oxir_csir::binary::write(&back), blob, "{label}");
    }
}
