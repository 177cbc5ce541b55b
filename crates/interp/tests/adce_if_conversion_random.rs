//! `adce` and `if-conversion` against the interpreter on random modules: each generated
//! module is normalised to plain SSA (loops become block parameters, `if`s become
//! `cond_br` diamonds), then each pass runs alone, after `simplify-cfg`, and both in a
//! row. Every result must verify and give the same buffers as before on several inputs.
//! `adce` must never leave more instructions than `dce` (its live set is a subset of
//! `dce`'s), and both passes must actually change a share of the modules, so the test
//! cannot pass by doing nothing.

mod common;
use common::check_pass_sequences;
use oxir_ir::Module;
use oxir_passes::{registry, PassPipeline};

/// Runs `passes` one at a time; whether any changed the module.
fn run_passes(module: &mut Module, passes: &[&str]) -> bool {
    let mut changed = false;
    for &name in passes {
        let mut p = PassPipeline::new();
        p.add(name, registry::create(name).expect("registered pass"));
        let stats = p.run(module);
        assert!(stats.error.is_none(), "{name}: {:?}", stats.error);
        changed |= stats.records.iter().any(|r| r.changed);
    }
    changed
}

fn placed(module: &Module) -> usize {
    module
        .functions
        .values()
        .map(|f| f.placed_inst_count())
        .sum()
}

#[test]
fn random_modules_run_the_same_after_adce_and_if_conversion() {
    let sequences: &[&[&str]] = &[
        &["adce"],
        &["if-conversion"],
        &["simplify-cfg", "adce"],
        &["simplify-cfg", "if-conversion", "adce"],
    ];
    let run = check_pass_sequences(
        sequences,
        0..80,
        31,
        run_passes,
        |seed, module, failures| {
            let (mut by_dce, mut by_adce) = (module.clone(), module.clone());
            run_passes(&mut by_dce, &["dce"]);
            run_passes(&mut by_adce, &["adce"]);
            if placed(&by_adce) > placed(&by_dce) {
                failures.push(format!("seed {seed}: adce keeps more than dce"));
            }
        },
    );
    assert!(run.failures.is_empty(), "{}", run.failures.join("\n"));
    assert!(run.ran >= 40, "only {} modules ran", run.ran);
    for (k, &n) in run.changed_by.iter().enumerate() {
        assert!(
            n >= run.ran / 10,
            "{:?} changed only {n} of {}",
            sequences[k],
            run.ran
        );
    }
    eprintln!(
        "{} modules; changed by each sequence: {:?}",
        run.ran, run.changed_by
    );
}
