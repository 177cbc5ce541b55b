//! Property tests of `destructure-cfg` and `restructure-cfg`:
//! 1. random structured programs → destructure → restructure → the verifier with every
//!    option accepts the result;
//! 2. random reducible plain CFGs (forward DAGs with `br` / `cond_br` / `switch_br` /
//!    `return`, loops with several latches and exits from back edges to dominators, and
//!    values used across blocks) → restructure → the verifier with every option accepts;
//! 3. random irreducible CFGs (a cycle with two entries) are refused whole, the module text
//!    byte-identical.
//!
//! A scale test prints how long a ~100k-instruction function takes.
//!
//! `PROPTEST_CASES` sets the number of cases (default 64).
//!
//! The random plain CFGs use only `u32` / `bool` arithmetic, local slots and branches, so a
//! small interpreter ([`Machine`]) runs them before and after restructuring (and after a
//! destructure / restructure round trip) and compares the values stored to the program's
//! own slots. The project's interpreter will take over that role for the structured
//! programs of property 1, whose ops this one does not cover.

use cranelift_entity::EntityRef;
use oxir_ir::dominance::{DominatorTree, Graph};
use oxir_ir::printer::{print_module, View};
use oxir_ir::random_modules::{generate_module, GenConfig, Rng};
use oxir_ir::verifier::{verify_module, ErrorKind, VerifierOptions};
use oxir_ir::{
    AbiParam, AddressSpace, Block, BlockCall, Builtin, Function, FunctionKind, InstData, Module,
    Opcode, Payload, Signature, StageBinding, SwitchTable, Value,
};
use oxir_passes::passes::{destructure_cfg, restructure_cfg};
use oxir_passes::PassInfo;
use proptest::prelude::*;
use std::collections::HashMap;
use std::time::Instant;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64)
}

/// Verifies with every option and round-trips the structured view. A loop of the input
/// that can never be left gets a merge block that ends in `unreachable` and is itself
/// unreachable; those are the only unreachable blocks allowed.
fn assert_fully_structured(module: &Module, context: &str) {
    let report = verify_module(module, &VerifierOptions::all());
    let unexpected: Vec<_> = report
        .errors
        .iter()
        .filter(|e| {
            if e.kind != ErrorKind::UnreachableBlock {
                return true;
            }
            let oxir_ir::verifier::Location::Block(func, block) = e.location else {
                return true;
            };
            let f = &module.functions[func];
            let term = f.terminator(block);
            term.is_none_or(|t| f.dfg.inst(t).opcode != Opcode::Unreachable)
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "{context}: the restructured module does not verify:\n{report}\n{}",
        print_module(module, View::Flat)
    );
    // The structured view (blocks nested under their constructs) reads back the same.
    let structured = print_module(module, View::Structured);
    let reparsed = oxir_ir::parser::parse_module(&structured)
        .unwrap_or_else(|e| panic!("{context}: the structured view does not parse: {e}"));
    assert_eq!(
        print_module(&reparsed, View::Flat),
        print_module(module, View::Flat),
        "{context}: the structured view does not round-trip"
    );
}

fn restructure(module: &mut Module, context: &str) -> restructure_cfg::RestructureCfgInfo {
    let info = restructure_cfg::run_on_module(module);
    assert!(
        info.failure().is_none(),
        "{context}: restructure-cfg refused: {info:?}\n{}",
        print_module(module, View::Flat)
    );
    info
}

// --- random reducible and irreducible plain CFGs -------------------------------------------

/// A random DAG over `count` blocks (block 0 the entry; every block reachable through a
/// tree edge from an earlier block, plus extra forward edges).
fn random_dag(rng: &mut Rng, count: usize) -> Vec<Vec<usize>> {
    let mut succs = vec![Vec::new(); count];
    for j in 1..count {
        let parent = if rng.chance(70) {
            j - 1 - rng.below(j.min(3))
        } else {
            rng.below(j)
        };
        succs[parent].push(j);
    }
    for (i, targets) in succs
        .iter_mut()
        .enumerate()
        .take(count.saturating_sub(1))
        .skip(1)
    {
        if rng.chance(35) {
            let j = i + 1 + rng.below((count - i - 1).min(8));
            targets.push(j);
        }
        if targets.len() == 1 && rng.chance(5) {
            let only = targets[0];
            targets.push(only); // a degenerate `cond_br c, b, b`
        }
    }
    succs
}

fn dominator_tree(succs: &[Vec<usize>]) -> DominatorTree {
    let edges: Vec<(u32, u32)> = succs
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.iter().map(move |&j| (i as u32, j as u32)))
        .collect();
    DominatorTree::compute(&Graph::from_edges(succs.len(), &edges))
}

/// Adds up to `count` back edges, each from a block to one of its dominators (not the
/// entry): the graph stays reducible and its dominator tree does not change.
fn add_back_edges(rng: &mut Rng, succs: &mut [Vec<usize>], count: usize) {
    let tree = dominator_tree(succs);
    for _ in 0..count {
        let from = 1 + rng.below(succs.len() - 1);
        let mut header = from as u32;
        for _ in 0..rng.below(6) {
            match tree.idom(header) {
                Some(up) if up != 0 => header = up,
                _ => break,
            }
        }
        if !succs[from].contains(&(header as usize)) {
            succs[from].push(header as usize);
        }
    }
}

/// Builds a kernel over the CFG `succs`: a local slot threaded through every block, and
/// in each block a value that uses the value of its immediate dominator (so restructuring
/// that moves a use out from under its definition must repair it). Terminators follow the
/// successor count: `return` / `unreachable`, `br`, `cond_br`, `switch_br`.
fn build_kernel(rng: &mut Rng, module: &mut Module, name: &str, succs: &[Vec<usize>]) {
    let u32_ty = module.types.u32();
    let bool_ty = module.types.bool();
    let ptr_ty = module.types.pointer(AddressSpace::Function, u32_ty);
    let signature = Signature {
        params: vec![AbiParam::bound(
            u32_ty,
            StageBinding::Builtin(Builtin::LocalInvocationIndex),
        )],
        returns: Vec::new(),
    };
    let kind = FunctionKind::kernel([64, 1, 1]);
    let mut f = Function::new(name, kind, signature);
    let blocks: Vec<Block> = (0..succs.len()).map(|_| f.append_new_block()).collect();
    let param = f.dfg.append_block_param(blocks[0], u32_ty);
    let tree = dominator_tree(succs);
    let consts: Vec<Value> = (0..8u32)
        .map(|k| {
            let c = module.const_u32(k);
            f.dfg.const_value(c, u32_ty)
        })
        .collect();
    let ins = |f: &mut Function,
               block: Block,
               op: Opcode,
               args: &[Value],
               payload: Payload,
               ty: Option<oxir_ir::Type>| {
        let inst = f.dfg.make_inst(InstData::with_payload(op, args, payload));
        let value = ty.map(|t| f.dfg.make_result(inst, t));
        f.layout.append_inst(inst, block);
        value
    };
    let slot = ins(
        &mut f,
        blocks[0],
        Opcode::Alloca,
        &[],
        Payload::None,
        Some(ptr_ty),
    )
    .unwrap();
    ins(
        &mut f,
        blocks[0],
        Opcode::Store,
        &[slot, param],
        Payload::None,
        None,
    );
    // Blocks in dominator-tree pre-order, so a block's idom has its value already.
    let mut own_value: Vec<Option<Value>> = vec![None; succs.len()];
    for &n in tree.preorder() {
        let (i, block) = (n as usize, blocks[n as usize]);
        let loaded = ins(
            &mut f,
            block,
            Opcode::Load,
            &[slot],
            Payload::None,
            Some(u32_ty),
        )
        .unwrap();
        let k = consts[rng.below(consts.len())];
        let mut value = ins(
            &mut f,
            block,
            Opcode::Add,
            &[loaded, k],
            Payload::None,
            Some(u32_ty),
        )
        .unwrap();
        if let Some(dominating) = tree.idom(n).and_then(|d| own_value[d as usize]) {
            value = ins(
                &mut f,
                block,
                Opcode::Xor,
                &[value, dominating],
                Payload::None,
                Some(u32_ty),
            )
            .unwrap();
        }
        own_value[i] = Some(value);
        ins(
            &mut f,
            block,
            Opcode::Store,
            &[slot, value],
            Payload::None,
            None,
        );
        let targets = &succs[i];
        match targets.len() {
            0 if rng.chance(15) => {
                ins(
                    &mut f,
                    block,
                    Opcode::Unreachable,
                    &[],
                    Payload::Message("dead end".into()),
                    None,
                );
            }
            0 => {
                ins(&mut f, block, Opcode::Return, &[], Payload::None, None);
            }
            1 => {
                let payload = Payload::Jump(BlockCall::new(blocks[targets[0]]));
                ins(&mut f, block, Opcode::Br, &[], payload, None);
            }
            2 => {
                let limit = consts[rng.below(consts.len())];
                let c = ins(
                    &mut f,
                    block,
                    Opcode::Lt,
                    &[value, limit],
                    Payload::None,
                    Some(bool_ty),
                )
                .unwrap();
                let payload = Payload::CondBranch {
                    then_dest: BlockCall::new(blocks[targets[0]]),
                    else_dest: BlockCall::new(blocks[targets[1]]),
                };
                ins(&mut f, block, Opcode::CondBr, &[c], payload, None);
            }
            _ => {
                let (last, rest) = targets.split_last().unwrap();
                let table = SwitchTable {
                    cases: rest
                        .iter()
                        .enumerate()
                        .map(|(label, &t)| (label as u64 * 3, BlockCall::new(blocks[t])))
                        .collect(),
                    default: BlockCall::new(blocks[*last]),
                };
                let payload = Payload::SwitchBranch(Box::new(table));
                ins(&mut f, block, Opcode::SwitchBr, &[value], payload, None);
            }
        }
    }
    module.add_function(f);
}

/// A reducible plain CFG kernel: random DAG plus back edges to dominators.
fn reducible_module(seed: u64, max_blocks: usize) -> Module {
    let mut rng = Rng::new(seed);
    let count = 2 + rng.below(max_blocks - 1);
    let mut succs = random_dag(&mut rng, count);
    let back_edges = rng.below(count / 2 + 2);
    add_back_edges(&mut rng, &mut succs, back_edges);
    let mut module = Module::new();
    build_kernel(&mut rng, &mut module, "main", &succs);
    module
}

/// A plain CFG kernel with a two-entry cycle: two blocks neither dominates, each branching
/// to the other.
fn irreducible_module(seed: u64) -> Module {
    let mut rng = Rng::new(seed);
    let count = 4 + rng.below(20);
    let mut succs = random_dag(&mut rng, count);
    let tree = dominator_tree(&succs);
    let mut pair = None;
    for _ in 0..64 {
        let (a, b) = (1 + rng.below(count - 1), 1 + rng.below(count - 1));
        if a != b && !tree.dominates(a as u32, b as u32) && !tree.dominates(b as u32, a as u32) {
            pair = Some((a, b));
            break;
        }
    }
    let (a, b) = pair.unwrap_or_else(|| {
        // A fixed two-entry cycle: 0 -> {1, 2}, 1 <-> 2.
        succs = vec![vec![1, 2], vec![], vec![]];
        (1, 2)
    });
    for (from, to) in [(a, b), (b, a)] {
        if !succs[from].contains(&to) {
            succs[from].push(to);
        }
    }
    let mut module = Module::new();
    build_kernel(&mut rng, &mut module, "main", &succs);
    module
}

// --- a small interpreter for the generated kernels ------------------------------------------

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum End {
    Return,
    Unreachable,
    /// The step budget ran out (random loops need not terminate).
    OutOfSteps,
}

/// Runs a kernel built from `u32` / `bool` arithmetic, `alloca` / `load` / `store` and any
/// terminator; records every value stored through an `alloca` without metadata (the
/// program's own slots, not the ones the passes add, which carry a comment).
struct Machine<'a> {
    module: &'a Module,
    function: &'a Function,
    /// Indexed by value number.
    values: Vec<u64>,
    memory: HashMap<Value, u64>,
    trace: Vec<u64>,
}

impl<'a> Machine<'a> {
    fn run(module: &'a Module, name: &str, input: u64, budget: usize) -> (Vec<u64>, End) {
        let func = module.function_by_name(name).expect("function exists");
        let function = &module.functions[func];
        let mut machine = Machine {
            module,
            function,
            values: vec![u64::MAX; function.dfg.values.len()],
            memory: HashMap::new(),
            trace: Vec::new(),
        };
        let mut block = function.entry_block().expect("a body");
        for &p in function.dfg.block_params(block) {
            machine.values[p.index()] = input;
        }
        let mut steps = 0;
        loop {
            for inst in function.layout.block_insts(block) {
                steps += 1;
                if steps > budget {
                    return (machine.trace, End::OutOfSteps);
                }
                let data = function.dfg.inst(inst);
                if data.opcode.is_terminator() {
                    match machine.next_block(data) {
                        Ok(next) => block = next,
                        Err(end) => return (machine.trace, end),
                    }
                    break;
                }
                machine.execute(inst);
            }
        }
    }

    fn get(&self, v: Value) -> u64 {
        let v = self.function.dfg.resolve(v);
        match self.function.dfg.value_def(v) {
            oxir_ir::ValueDef::Const(c) => self.module.const_scalar_value(c).expect("scalar").1,
            _ => self.values[v.index()],
        }
    }

    fn is_bool(&self, v: Value) -> bool {
        let ty = self.function.dfg.value_type(v);
        self.module
            .types
            .get(ty)
            .as_scalar()
            .is_some_and(|s| s.is_bool())
    }

    fn execute(&mut self, inst: oxir_ir::Inst) {
        let data = self.function.dfg.inst(inst);
        let arg = |i: usize| self.get(data.args[i]);
        let result = match data.opcode {
            Opcode::Alloca => {
                let slot = self.function.dfg.inst_result(inst).expect("alloca result");
                self.memory.insert(slot, 0);
                return;
            }
            Opcode::Store => {
                let slot = self.function.dfg.resolve(data.args[0]);
                let value = arg(1);
                self.memory.insert(slot, value);
                let oxir_ir::ValueDef::Result(alloca) = self.function.dfg.value_def(slot) else {
                    panic!("stores go to allocas");
                };
                if self.function.dfg.metadata(alloca).is_none() {
                    self.trace.push(value);
                }
                return;
            }
            Opcode::Load => self.memory[&self.function.dfg.resolve(data.args[0])],
            Opcode::Add => arg(0).wrapping_add(arg(1)) & 0xffff_ffff,
            Opcode::Xor => arg(0) ^ arg(1),
            Opcode::Or => arg(0) | arg(1),
            Opcode::Lt => u64::from(arg(0) < arg(1)),
            Opcode::Eq => u64::from(arg(0) == arg(1)),
            Opcode::Not if self.is_bool(data.args[0]) => arg(0) ^ 1,
            Opcode::Not => !arg(0) & 0xffff_ffff,
            other => panic!("the test interpreter does not run `{other}`"),
        };
        let value = self.function.dfg.inst_result(inst).expect("a result");
        self.values[value.index()] = result;
    }

    fn next_block(&self, data: &InstData) -> Result<Block, End> {
        match &data.payload {
            Payload::Jump(dest) => Ok(dest.block),
            Payload::CondBranch {
                then_dest,
                else_dest,
            }
            | Payload::If {
                then_dest,
                else_dest,
                ..
            } => Ok(if self.get(data.args[0]) != 0 {
                then_dest.block
            } else {
                else_dest.block
            }),
            Payload::SwitchBranch(table) | Payload::Switch { table, .. } => {
                let selector = self.get(data.args[0]);
                Ok(table
                    .cases
                    .iter()
                    .find(|(label, _)| *label == selector)
                    .map_or(table.default.block, |(_, dest)| dest.block))
            }
            Payload::Loop { prepare, .. } => Ok(prepare.block),
            Payload::SimpleLoop { body, .. } => Ok(body.block),
            Payload::None if data.opcode == Opcode::Return => Err(End::Return),
            Payload::Message(_) if data.opcode == Opcode::Unreachable => Err(End::Unreachable),
            _ => panic!("the test interpreter does not run `{}`", data.opcode),
        }
    }
}

/// Runs `before` and `after` on a few inputs; they must store the same values in the same
/// order and end the same way. The transformed program runs extra instructions (selector
/// traffic, guards), so it gets a larger budget; when a run is cut short only the common
/// prefix of the traces is compared.
fn assert_same_behaviour(before: &Module, after: &Module, context: &str) {
    for input in [0u64, 5, 0xffff_fff0] {
        let (expected, expected_end) = Machine::run(before, "main", input, 2_000);
        let (found, found_end) = Machine::run(after, "main", input, 20_000);
        if expected_end != End::OutOfSteps && found_end != End::OutOfSteps {
            assert_eq!(
                (&expected, &expected_end),
                (&found, &found_end),
                "{context}, input {input}: the runs differ\n{}",
                print_module(after, View::Flat)
            );
        } else {
            let common = expected.len().min(found.len());
            assert_eq!(
                expected[..common],
                found[..common],
                "{context}, input {input}: the stored values differ\n{}",
                print_module(after, View::Flat)
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Property 1.
    #[test]
    fn structured_programs_survive_destructure_then_restructure(seed in any::<u64>()) {
        let config = GenConfig { plain: false, merge_params: false, ..GenConfig::default() };
        let mut module = generate_module(seed, config);
        let context = format!("seed {seed}");
        let destructured = destructure_cfg::run_on_module(&mut module);
        prop_assert!(destructured.failure().is_none(), "{context}: {destructured:?}");
        restructure(&mut module, &context);
        assert_fully_structured(&module, &context);
        // Idempotence: structured output is left alone.
        let before = print_module(&module, View::Flat);
        let again = restructure_cfg::run_on_module(&mut module);
        prop_assert!(!again.changed() && again.failure().is_none(), "{context}: {again:?}");
        prop_assert_eq!(print_module(&module, View::Flat), before);
    }

    /// Property 2, from structured programs: the same programs as plain input.
    #[test]
    fn destructured_programs_restructure(seed in any::<u64>()) {
        let config = GenConfig { plain: false, merge_params: false, max_depth: 6, ..GenConfig::default() };
        let mut module = generate_module(seed, config);
        destructure_cfg::run_on_module(&mut module);
        let context = format!("seed {seed}");
        restructure(&mut module, &context);
        assert_fully_structured(&module, &context);
    }

    /// Property 2, from random reducible CFGs, with the test interpreter as the oracle; then
    /// destructured and restructured again, still behaving the same.
    #[test]
    fn random_reducible_cfgs_restructure(seed in any::<u64>()) {
        let original = reducible_module(seed, 40);
        let input = verify_module(&original, &VerifierOptions::default());
        prop_assert!(input.succeeded(), "seed {seed}: the generated input is invalid:\n{input}");
        let context = format!("seed {seed}");
        let mut module = original.clone();
        restructure(&mut module, &context);
        assert_fully_structured(&module, &context);
        assert_same_behaviour(&original, &module, &context);

        let destructured = destructure_cfg::run_on_module(&mut module);
        prop_assert!(destructured.failure().is_none(), "{context}: {destructured:?}");
        let plain = verify_module(&module, &VerifierOptions::default());
        prop_assert!(plain.succeeded(), "{context}: destructured output is invalid:\n{plain}");
        assert_same_behaviour(&original, &module, &format!("{context}, destructured"));
        restructure(&mut module, &format!("{context}, round trip"));
        assert_fully_structured(&module, &format!("{context}, round trip"));
        assert_same_behaviour(&original, &module, &format!("{context}, round trip"));
    }

    /// Property 3.
    #[test]
    fn irreducible_cfgs_are_refused_unchanged(seed in any::<u64>()) {
        let mut module = irreducible_module(seed);
        let input = verify_module(&module, &VerifierOptions::default());
        prop_assert!(input.succeeded(), "seed {seed}: the generated input is invalid:\n{input}");
        let before = print_module(&module, View::Flat);
        let info = restructure_cfg::run_on_module(&mut module);
        prop_assert!(info.irreducible_region_count > 0, "seed {seed}: {info:?}\n{before}");
        prop_assert!(!info.changed(), "seed {seed}: {info:?}");
        prop_assert_eq!(print_module(&module, View::Flat), before);
    }
}

/// A ~100k-instruction kernel of nested loops and branches: restructuring it must take
/// reasonable time. Prints the time; asserts nothing about it.
#[test]
fn scale_100k_instructions() {
    // Structured origin: a large random structured program, destructured.
    let config = GenConfig {
        plain: false,
        merge_params: false,
        max_depth: 12,
        max_insts: 100_000,
        ..GenConfig::default()
    };
    let mut module = generate_module(7, config);
    destructure_cfg::run_on_module(&mut module);
    let insts = module.inst_count();
    let start = Instant::now();
    let info = restructure(&mut module, "scale (structured origin)");
    let elapsed = start.elapsed();
    eprintln!(
        "restructure-cfg, structured origin: {insts} instructions in {elapsed:?} \
         ({} loops, {} ifs, {} switches, {} guards, {} dispatches)",
        info.restructured_loop_count,
        info.restructured_if_count,
        info.restructured_switch_count,
        info.guard_count,
        info.loop_exit_dispatch_count
    );
    assert_fully_structured(&module, "scale (structured origin)");

    // Random reducible CFG: many overlapping multi-exit loops.
    let mut rng = Rng::new(11);
    let mut succs = random_dag(&mut rng, 20_000);
    add_back_edges(&mut rng, &mut succs, 4_000);
    let mut module = Module::new();
    build_kernel(&mut rng, &mut module, "main", &succs);
    let insts = module.inst_count();
    let start = Instant::now();
    let info = restructure(&mut module, "scale (random CFG)");
    let elapsed = start.elapsed();
    eprintln!(
        "restructure-cfg, random reducible CFG: {insts} instructions in {elapsed:?} \
         ({} loops, {} ifs, {} switches, {} guards, {} dispatches, {} demoted values)",
        info.restructured_loop_count,
        info.restructured_if_count,
        info.restructured_switch_count,
        info.guard_count,
        info.loop_exit_dispatch_count,
        info.demoted_value_count
    );
    assert_fully_structured(&module, "scale (random CFG)");
}
