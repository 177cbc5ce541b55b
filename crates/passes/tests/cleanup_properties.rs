//! Property tests for the cleanup passes on random modules
//! (`oxir_ir::random_modules::generate_module`):
//!
//! - `dce` on any generated module (structured and plain constructs) leaves a module the
//!   verifier accepts with its default rules plus unique merges and canonical
//!   break/continue targets (the generator's structured output satisfies both), reports
//!   `changed` exactly when the text changed, and a second run changes nothing;
//! - on plain-only modules, `simplify-cfg` then `dce` leaves a module that also has every
//!   block reachable; each pass run twice in a row changes nothing the second time (dce
//!   may expose new forwarding blocks, so simplify-cfg after dce may still change things);
//! - on mixed modules, `simplify-cfg` skips structured functions, simplifies plain ones and
//!   keeps the module valid under the structured rules.
//!
//! - on random plain CFGs made for the purpose ([`random_cfg`]: empty forwarding blocks,
//!   constant and identical-edge `cond_br`s, `switch_br`s, unreachable blocks and cycles,
//!   block parameters, terminators reading values of dominating blocks), `simplify-cfg` and `dce` keep the module valid (reachable blocks
//!   after `simplify-cfg`), are idempotent, and preserve behaviour: a small evaluator for
//!   that subset of the IR (`add`, `br`, `cond_br`, `switch_br`, `return`) gives the same
//!   result before and after on several inputs. This stands in for the interpreter until
//!   `oxir-interp` exists.
//!
//! `PROPTEST_CASES` sets the number of seeds (default 64).

use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};
use oxir_ir::random_modules::{generate_module, GenConfig, Rng};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::{Block, Module, Opcode, Payload, Value, ValueDef};
use oxir_passes::analysis::dominators::DomTree;
use oxir_passes::passes::{dce, simplify_cfg};
use oxir_passes::PassInfo;
use proptest::prelude::*;
use std::fmt::Write;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

fn check(module: &Module, options: &VerifierOptions, what: &str) -> Result<(), TestCaseError> {
    let report = verify_module(module, options);
    prop_assert!(
        report.succeeded(),
        "{what}: {report}\n{}",
        print_module(module, View::Flat)
    );
    Ok(())
}

/// Runs `pass`, checking `changed` against the text. Returns whether it changed.
fn run_checked<I: PassInfo>(
    module: &mut Module,
    pass: fn(&mut Module) -> I,
    name: &str,
) -> Result<bool, TestCaseError> {
    let before = print_module(module, View::Flat);
    let info = pass(module);
    let after = print_module(module, View::Flat);
    prop_assert_eq!(
        info.changed(),
        before != after,
        "{}: changed() disagrees with the text ({:?})\n--- before\n{}--- after\n{}",
        name,
        info.counters(),
        before,
        after
    );
    Ok(info.changed())
}

fn structured_options() -> VerifierOptions {
    VerifierOptions {
        require_unique_merge_blocks: true,
        require_canonical_break_continue_targets: true,
        ..VerifierOptions::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn dce_keeps_random_modules_valid(seed in any::<u64>()) {
        let mut module = generate_module(seed, GenConfig::default());
        let options = structured_options();
        check(&module, &options, "generated module")?;
        run_checked(&mut module, dce::run_on_module, "dce")?;
        check(&module, &options, "after dce")?;
        let text = print_module(&module, View::Flat);
        let changed = run_checked(&mut module, dce::run_on_module, "dce (second run)")?;
        prop_assert!(!changed, "dce is not idempotent");
        prop_assert_eq!(print_module(&module, View::Flat), text);
    }

    #[test]
    fn simplify_cfg_then_dce_leave_plain_modules_reachable(seed in any::<u64>()) {
        let config = GenConfig { structured: false, ..GenConfig::default() };
        let mut module = generate_module(seed, config);
        let options = VerifierOptions {
            require_reachable_blocks: true,
            ..VerifierOptions::default()
        };
        check(&module, &VerifierOptions::default(), "generated module")?;
        run_checked(&mut module, simplify_cfg::run_on_module, "simplify-cfg")?;
        check(&module, &options, "after simplify-cfg")?;
        let changed = run_checked(&mut module, simplify_cfg::run_on_module, "simplify-cfg (second run)")?;
        prop_assert!(!changed, "simplify-cfg is not idempotent");
        run_checked(&mut module, dce::run_on_module, "dce")?;
        check(&module, &options, "after dce")?;
        let text = print_module(&module, View::Flat);
        let changed = run_checked(&mut module, dce::run_on_module, "dce (second run)")?;
        prop_assert!(!changed, "dce is not idempotent");
        prop_assert_eq!(print_module(&module, View::Flat), text);
        // dce may leave new forwarding blocks behind; a second simplify-cfg keeps the
        // module valid and reachable.
        run_checked(&mut module, simplify_cfg::run_on_module, "simplify-cfg after dce")?;
        check(&module, &options, "after simplify-cfg, dce, simplify-cfg")?;
    }

    #[test]
    fn simplify_cfg_skips_structured_random_modules_or_keeps_them_valid(seed in any::<u64>()) {
        // Mixed modules: functions with structured constructs are skipped, plain ones are
        // simplified; the module stays valid under the structured rules.
        let mut module = generate_module(seed, GenConfig::default());
        let options = structured_options();
        run_checked(&mut module, simplify_cfg::run_on_module, "simplify-cfg")?;
        check(&module, &options, "after simplify-cfg")?;
        let changed = run_checked(&mut module, simplify_cfg::run_on_module, "simplify-cfg (second run)")?;
        prop_assert!(!changed, "simplify-cfg is not idempotent");
    }
}

/// A random plain CFG as text: `callable @f(i32, bool) -> i32` with 2 to 11 blocks. Every
/// value a block uses is its own parameter or result, an entry parameter, or a constant, so
/// the function is valid whatever the edges are. Block parameters are `i32` or `bool`;
/// `bool` ones serve as branch conditions, so merges that turn them into constants expose
/// folds elsewhere.
fn random_cfg(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut text = String::from(
        "const c0: i32 = 0\nconst c1: i32 = 1\nconst c2: i32 = 2\nconst c3: i32 = -1\n\
         const c4: bool = false\nconst c5: bool = true\n\n\
         callable @f(i32, bool) -> i32 {\n",
    );
    let block_count = 2 + rng.below(10);
    // Per block, per parameter: whether it is a `bool`.
    let param_types: Vec<Vec<bool>> = (0..block_count)
        .map(|b| {
            let count = if b == 0 || rng.chance(60) {
                0
            } else {
                1 + rng.below(2)
            };
            (0..count).map(|_| rng.chance(40)).collect()
        })
        .collect();
    let mut next_value = 2;
    for (block, types) in param_types.iter().enumerate() {
        let mut ints: Vec<String> = ["v0", "c0", "c1", "c2", "c3"].map(String::from).to_vec();
        let mut bools: Vec<String> = ["v1", "c4", "c5"].map(String::from).to_vec();
        if block == 0 {
            text.push_str("block0(v0: i32, v1: bool):\n");
        } else {
            let params: Vec<String> = types
                .iter()
                .map(|&is_bool| {
                    let name = format!("v{next_value}");
                    next_value += 1;
                    if is_bool {
                        bools.push(name.clone());
                        format!("{name}: bool")
                    } else {
                        ints.push(name.clone());
                        format!("{name}: i32")
                    }
                })
                .collect();
            if params.is_empty() {
                let _ = writeln!(text, "block{block}:");
            } else {
                let _ = writeln!(text, "block{block}({}):", params.join(", "));
            }
        }
        let inst_count = if rng.chance(40) { 0 } else { 1 + rng.below(2) };
        for _ in 0..inst_count {
            let a = ints[rng.below(ints.len())].clone();
            let b = ints[rng.below(ints.len())].clone();
            let name = format!("v{next_value}");
            next_value += 1;
            let _ = writeln!(text, "    {name}: i32 = add {a}, {b}");
            ints.push(name);
        }
        let edge = |rng: &mut Rng| {
            let target = 1 + rng.below(block_count - 1);
            let args: Vec<String> = param_types[target]
                .iter()
                .map(|&is_bool| {
                    let pool = if is_bool { &bools } else { &ints };
                    pool[rng.below(pool.len())].clone()
                })
                .collect();
            if args.is_empty() {
                format!("block{target}")
            } else {
                format!("block{target}({})", args.join(", "))
            }
        };
        match rng.below(10) {
            0..=2 => {
                let e = edge(&mut rng);
                let _ = writeln!(text, "    br {e}");
            }
            3..=5 => {
                let cond = bools[rng.below(bools.len())].clone();
                let then_dest = edge(&mut rng);
                let else_dest = if rng.chance(20) {
                    then_dest.clone()
                } else {
                    edge(&mut rng)
                };
                let _ = writeln!(text, "    cond_br {cond}, {then_dest}, {else_dest}");
            }
            6..=7 => {
                let selector = ints[rng.below(ints.len())].clone();
                let mut labels: Vec<i32> = Vec::new();
                for _ in 0..rng.below(4) {
                    let label = rng.below(4) as i32 - 1;
                    if !labels.contains(&label) {
                        labels.push(label);
                    }
                }
                let cases: Vec<String> = labels
                    .iter()
                    .map(|label| format!("{label}: {}", edge(&mut rng)))
                    .collect();
                let default = edge(&mut rng);
                let _ = writeln!(
                    text,
                    "    switch_br {selector}, [{}], default {default}",
                    cases.join(", ")
                );
            }
            _ => {
                let value = ints[rng.below(ints.len())].clone();
                let _ = writeln!(text, "    return {value}");
            }
        }
    }
    text.push_str("}\n");
    text
}

/// Rewrites some terminator operands and edge arguments of `@f` in `module` to values of
/// the same type defined in a strict dominator of their block (parameters or results), so
/// terminators read other blocks' values, as real code does. Valid by construction.
fn with_cross_block_uses(mut module: Module, seed: u64) -> Module {
    let mut rng = Rng::new(seed ^ 0x5eed_5eed);
    let Some(id) = module.function_by_name("f") else {
        return module;
    };
    let func = &mut module.functions[id];
    let dominators = DomTree::new(func);
    let blocks: Vec<Block> = dominators.preorder().collect();
    for block in blocks {
        let Some(term) = func.terminator(block) else {
            continue;
        };
        let mut candidates: Vec<Value> = Vec::new();
        let mut up = dominators.idom(block);
        while let Some(dominator) = up {
            candidates.extend_from_slice(func.dfg.block_params(dominator));
            for inst in func.layout.block_insts(dominator) {
                candidates.extend(func.dfg.inst_result(inst));
            }
            up = dominators.idom(dominator);
        }
        let replacements: Vec<Value> = func
            .dfg
            .inst(term)
            .all_values()
            .map(|value| {
                let ty = func.dfg.value_type(value);
                let same: Vec<Value> = candidates
                    .iter()
                    .copied()
                    .filter(|&c| func.dfg.value_type(c) == ty)
                    .collect();
                if same.is_empty() || !rng.chance(50) {
                    value
                } else {
                    same[rng.below(same.len())]
                }
            })
            .collect();
        let mut next = replacements.into_iter();
        func.dfg
            .inst_mut(term)
            .map_values(|value| next.next().unwrap_or(value));
    }
    module
}

/// Runs `@f` of a [`random_cfg`] module on `(x, flag)` for at most `fuel` instructions.
/// `None` when it runs out of fuel (or meets something outside the subset).
fn evaluate(module: &Module, x: i32, flag: bool, fuel: usize) -> Option<i32> {
    let func = &module.functions[module.function_by_name("f")?];
    let mut values: Vec<Option<i64>> = vec![None; func.dfg.values.len()];
    let read = |values: &Vec<Option<i64>>, v: Value| -> Option<i64> {
        let v = func.dfg.resolve(v);
        match func.dfg.value_def(v) {
            ValueDef::Const(c) => module.const_scalar_value(c).map(|(_, bits)| bits as i64),
            _ => values.get(v.index()).copied().flatten(),
        }
    };
    let mut block: Block = func.entry_block()?;
    let params = func.dfg.block_params(block);
    values[params[0].index()] = Some(i64::from(x));
    values[params[1].index()] = Some(i64::from(flag));
    let mut fuel = fuel;
    loop {
        for inst in func.layout.block_insts(block) {
            fuel = fuel.checked_sub(1)?;
            let data = func.dfg.inst(inst);
            let args: Option<Vec<i64>> = data.args.iter().map(|&a| read(&values, a)).collect();
            let args = args?;
            let edge = match (&data.opcode, &data.payload) {
                (Opcode::Add, _) => {
                    let sum = (args[0] as i32).wrapping_add(args[1] as i32);
                    values[func.dfg.inst_result(inst)?.index()] = Some(i64::from(sum));
                    continue;
                }
                (Opcode::Return, _) => return Some(args[0] as i32),
                (Opcode::Br, Payload::Jump(edge)) => edge,
                (
                    Opcode::CondBr,
                    Payload::CondBranch {
                        then_dest,
                        else_dest,
                    },
                ) => {
                    if args[0] != 0 {
                        then_dest
                    } else {
                        else_dest
                    }
                }
                (Opcode::SwitchBr, Payload::SwitchBranch(table)) => {
                    let selector = args[0] as i32 as i64 as u64;
                    table
                        .cases
                        .iter()
                        .find(|(label, _)| *label == selector)
                        .map_or(&table.default, |(_, edge)| edge)
                }
                _ => return None,
            };
            let incoming: Option<Vec<i64>> = edge.args.iter().map(|&a| read(&values, a)).collect();
            let incoming = incoming?;
            for (&param, value) in func.dfg.block_params(edge.block).iter().zip(incoming) {
                values[param.index()] = Some(value);
            }
            block = edge.block;
            break;
        }
    }
}

use cranelift_entity::EntityRef;

const INPUTS: [(i32, bool); 4] = [(0, false), (1, true), (-1, true), (2, false)];
const FUEL: usize = 400;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases() * 4))]

    #[test]
    fn cleanup_passes_on_random_plain_cfgs(seed in any::<u64>()) {
        let parsed = parse_module(&random_cfg(seed)).expect("generated text parses");
        let original = with_cross_block_uses(parsed, seed);
        let text = print_module(&original, View::Flat);
        check(&original, &VerifierOptions::default(), "generated CFG")?;
        let expected: Vec<Option<i32>> =
            INPUTS.iter().map(|&(x, flag)| evaluate(&original, x, flag, FUEL)).collect();
        let same_results = |module: &Module, what: &str| -> Result<(), TestCaseError> {
            for (&(x, flag), &want) in INPUTS.iter().zip(&expected) {
                // The passes never add executed instructions, so a run that finished
                // before finishes now; one that ran out of fuel is not compared.
                if want.is_some() {
                    let got = evaluate(module, x, flag, FUEL);
                    prop_assert_eq!(got, want, "{} changed f({}, {})\n--- input\n{}--- output\n{}",
                        what, x, flag, text, print_module(module, View::Flat));
                }
            }
            Ok(())
        };
        let reachable = VerifierOptions { require_reachable_blocks: true, ..VerifierOptions::default() };

        let mut module = original.clone();
        run_checked(&mut module, dce::run_on_module, "dce")?;
        check(&module, &reachable, "dce alone")?;
        same_results(&module, "dce")?;
        prop_assert!(!run_checked(&mut module, dce::run_on_module, "dce (second run)")?);

        let mut module = original.clone();
        run_checked(&mut module, simplify_cfg::run_on_module, "simplify-cfg")?;
        check(&module, &reachable, "after simplify-cfg")?;
        same_results(&module, "simplify-cfg")?;
        prop_assert!(!run_checked(&mut module, simplify_cfg::run_on_module, "simplify-cfg (second run)")?,
            "simplify-cfg is not idempotent\n--- input\n{}", text);
        run_checked(&mut module, dce::run_on_module, "dce")?;
        check(&module, &reachable, "after simplify-cfg and dce")?;
        same_results(&module, "simplify-cfg then dce")?;
    }
}
