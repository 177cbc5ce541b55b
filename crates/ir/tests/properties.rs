//! Property tests: random well-formed modules verify and round-trip through the text
//! form; single mutations that break one invariant are rejected with the right error kind.

use oxir_ir::dfg::ValueDef;
use oxir_ir::instructions::Payload;
use oxir_ir::ops::Opcode;
use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};
use oxir_ir::random_modules::{generate_module, GenConfig, Rng};
use oxir_ir::verifier::{verify_module, ErrorKind, VerifierOptions};
use oxir_ir::{Block, Func, Inst, Module};
use proptest::prelude::*;

fn structured_options() -> VerifierOptions {
    let mut options = VerifierOptions::default();
    for name in [
        "reachable-blocks",
        "unique-merge-blocks",
        "canonical-break-continue-targets",
    ] {
        options.enable(name).expect("known option");
    }
    options
}

fn assert_round_trips(module: &Module) {
    for view in [View::Flat, View::Structured] {
        let text = print_module(module, view);
        let parsed = parse_module(&text)
            .unwrap_or_else(|e| panic!("{view:?} text does not parse: {e}\n{text}"));
        let again = print_module(&parsed, view);
        assert_eq!(again, text, "{view:?} view does not round-trip");
        let report = verify_module(&parsed, &structured_options());
        assert!(
            report.succeeded(),
            "parsed module fails to verify:\n{report}\n{text}"
        );
        // parse -> print -> parse gives an equal module (compared through both views).
        let reparsed = parse_module(&again).expect("printed text parses");
        assert_eq!(
            print_module(&reparsed, View::Flat),
            print_module(&parsed, View::Flat)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(256), ..ProptestConfig::default() })]

    #[test]
    fn random_modules_verify_and_round_trip(seed in any::<u64>()) {
        let module = generate_module(seed, GenConfig::default());
        let report = verify_module(&module, &structured_options());
        prop_assert!(report.succeeded(), "seed {seed}:\n{report}\n{}", print_module(&module, View::Structured));
        assert_round_trips(&module);
    }

    #[test]
    fn purely_structured_modules_pass_every_option(seed in any::<u64>()) {
        let config = GenConfig { plain: false, ..GenConfig::default() };
        let module = generate_module(seed, config);
        let mut options = structured_options();
        options.enable("no-block-params").expect("known option");
        options.enable("no-unstructured-control-flow").expect("known option");
        let report = verify_module(&module, &options);
        // Merge blocks with parameters are generated, so only count other errors.
        let unexpected: Vec<_> = report.errors.iter().filter(|e| e.kind != ErrorKind::BlockParamsNotAllowed).collect();
        prop_assert!(unexpected.is_empty(), "seed {seed}: {unexpected:?}");
    }

    #[test]
    fn mutations_are_rejected_with_the_right_kind(seed in any::<u64>(), mutation in 0usize..7) {
        let module = generate_module(seed, GenConfig::default());
        let mut rng = Rng::new(seed.rotate_left(17));
        if let Some((mutated, expected, options)) = mutate(&module, mutation, &mut rng) {
            let report = verify_module(&mutated, &options);
            prop_assert!(
                report.errors.iter().any(|e| e.kind == expected),
                "seed {seed}, mutation {mutation}: expected {expected:?}, got:\n{report}\n{}",
                print_module(&mutated, View::Flat)
            );
        }
    }
}

/// Every placed instruction of every function, in layout order.
fn all_insts(module: &Module) -> Vec<(Func, Block, Inst)> {
    let mut out = Vec::new();
    for (func, f) in module.functions.iter() {
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                out.push((func, block, inst));
            }
        }
    }
    out
}

fn choose<T: Copy>(rng: &mut Rng, items: &[T]) -> Option<T> {
    (!items.is_empty()).then(|| items[rng.below(items.len())])
}

/// Applies mutation number `which`; returns the mutated module, the error kind it must
/// cause and the verifier options that expose it. `None` when the module has no place for
/// that mutation.
fn mutate(
    module: &Module,
    which: usize,
    rng: &mut Rng,
) -> Option<(Module, ErrorKind, VerifierOptions)> {
    let mut m = module.clone();
    let insts = all_insts(&m);
    let defaults = VerifierOptions::default();
    match which {
        // A missing terminator.
        0 => {
            let terms: Vec<_> = insts
                .iter()
                .copied()
                .filter(|&(f, _, i)| m.functions[f].dfg.inst(i).opcode.is_terminator())
                .collect();
            let (f, _, i) = choose(rng, &terms)?;
            m.functions[f].layout.remove_inst(i);
            Some((m, ErrorKind::MissingTerminator, defaults))
        }
        // An edge with one argument too many.
        1 => {
            let with_edges: Vec<_> = insts
                .iter()
                .copied()
                .filter(|&(f, _, i)| !m.functions[f].dfg.inst(i).payload.edges().is_empty())
                .collect();
            let (f, _, i) = choose(rng, &with_edges)?;
            let extra = m.const_u32(7);
            let u32_ty = m.types.u32();
            let function = &mut m.functions[f];
            let v = function.dfg.const_value(extra, u32_ty);
            function.dfg.inst_mut(i).payload.edges_mut()[0].args.push(v);
            Some((m, ErrorKind::EdgeArgumentMismatch, defaults))
        }
        // An operand of the wrong type.
        2 => {
            let binary: Vec<_> = insts
                .iter()
                .copied()
                .filter(|&(f, _, i)| {
                    matches!(
                        m.functions[f].dfg.inst(i).opcode,
                        Opcode::Add | Opcode::Sub | Opcode::Mul
                    )
                })
                .collect();
            let (f, _, i) = choose(rng, &binary)?;
            let operand_ty = m.functions[f]
                .dfg
                .value_type(m.functions[f].dfg.inst(i).args[0]);
            let other = if operand_ty == m.types.bool() {
                m.const_u32(1)
            } else {
                m.const_bool(true)
            };
            let other_ty = m.consts.get(other).ty;
            let function = &mut m.functions[f];
            let v = function.dfg.const_value(other, other_ty);
            function.dfg.inst_mut(i).args[1] = v;
            Some((m, ErrorKind::TypeMismatch, defaults))
        }
        // A use moved above its definition (broken dominance).
        3 => {
            let mut candidates = Vec::new();
            for &(f, block, user) in &insts {
                let function = &m.functions[f];
                if function.dfg.inst(user).opcode.is_terminator() {
                    continue;
                }
                for &arg in function.dfg.inst(user).args.iter() {
                    if let ValueDef::Result(def) = function.dfg.value_def(arg) {
                        if function.layout.inst_block(def) == Some(block) {
                            candidates.push((f, user, def));
                        }
                    }
                }
            }
            let (f, user, def) = choose(rng, &candidates)?;
            let layout = &mut m.functions[f].layout;
            layout.remove_inst(user);
            layout.insert_inst_before(user, def);
            Some((m, ErrorKind::DominanceViolation, defaults))
        }
        // A merge block owned by two constructs.
        4 => {
            let merges: Vec<_> = insts
                .iter()
                .copied()
                .filter(|&(f, _, i)| m.functions[f].dfg.inst(i).payload.merge().is_some())
                .collect();
            if merges.len() < 2 {
                return None;
            }
            let a = rng.below(merges.len());
            let b = (a + 1 + rng.below(merges.len() - 1)) % merges.len();
            let (fa, _, ia) = merges[a];
            let (fb, _, ib) = merges[b];
            if fa != fb {
                return None;
            }
            let target = m.functions[fa].dfg.inst(ia).payload.merge()?;
            match &mut m.functions[fb].dfg.inst_mut(ib).payload {
                Payload::If { merge, .. } => *merge = Some(target),
                Payload::Loop { merge, .. }
                | Payload::SimpleLoop { merge, .. }
                | Payload::Switch { merge, .. } => *merge = target,
                _ => return None,
            }
            let mut options = VerifierOptions::default();
            options.enable("unique-merge-blocks").expect("known option");
            Some((m, ErrorKind::DuplicateMerge, options))
        }
        // A `break` to a merge that is not the nearest enclosing construct's.
        5 => {
            let breaks: Vec<_> = insts
                .iter()
                .copied()
                .filter(|&(f, _, i)| m.functions[f].dfg.inst(i).opcode == Opcode::Break)
                .collect();
            let (f, _, i) = choose(rng, &breaks)?;
            let Payload::Jump(dest) = &m.functions[f].dfg.inst(i).payload else {
                return None;
            };
            let current = dest.block;
            let function = &m.functions[f];
            let other_merges: Vec<Block> = function
                .layout
                .blocks()
                .filter_map(|b| function.terminator(b))
                .filter_map(|t| function.dfg.inst(t).payload.merge())
                .filter(|&merge| merge != current && function.dfg.block_params(merge).is_empty())
                .collect();
            let target = choose(rng, &other_merges)?;
            if let Payload::Jump(dest) = &mut m.functions[f].dfg.inst_mut(i).payload {
                dest.block = target;
            }
            let mut options = VerifierOptions::default();
            options
                .enable("canonical-break-continue-targets")
                .expect("known option");
            Some((m, ErrorKind::NonCanonicalBreakContinue, options))
        }
        // An instruction with an operand missing.
        _ => {
            let binary: Vec<_> = insts
                .iter()
                .copied()
                .filter(|&(f, _, i)| {
                    matches!(
                        m.functions[f].dfg.inst(i).opcode,
                        Opcode::Add | Opcode::Lt | Opcode::Store
                    )
                })
                .collect();
            let (f, _, i) = choose(rng, &binary)?;
            m.functions[f].dfg.inst_mut(i).args.pop();
            Some((m, ErrorKind::WrongArity, defaults))
        }
    }
}
