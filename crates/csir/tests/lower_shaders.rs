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
    for name in ["csir_scene.wgsl:vs_main", "csir_scene.wgsl:fs_main"] {
        assert!(
            accepted.iter().any(|a| a.starts_with(name)),
            "{name} refused"
        );
    }
}
