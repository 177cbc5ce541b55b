//! Round trip through memory form: random modules (structured constructs, plain diamonds
//! and loops with block parameters, locals) go through
//! `hoist-allocas → mem2reg → reg2mem → mem2reg`, verified after every step, with the
//! invariants of each form checked directly:
//! - after `mem2reg`: no promotable alloca is left (the generator's locals never escape);
//! - after `reg2mem`: no non-entry block has parameters and no instruction result other
//!   than an alloca is used outside its defining block;
//! - each pass is idempotent on its own output;
//! - the program's observable operations (calls, stores to non-function memory, returns,
//!   branches) are kept, in number.
//!
//! There is no interpreter yet. When `oxir-interp` exists, the oracle belongs here:
//! run each kernel on the same inputs after generation, after the first `mem2reg`, after
//! `reg2mem` and after the final `mem2reg`, and assert equal outputs (the `@out` buffer).
//!
//! `PROPTEST_CASES` sets the number of modules (default 64).

use oxir_ir::printer::{print_module, View};
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::{AddressSpace, Function, Module, Opcode, TypeData, ValueDef};
use oxir_passes::passes::{hoist_allocas, mem2reg, reg2mem};
use oxir_passes::PassInfo;
use proptest::prelude::*;

fn verify(module: &Module, options: &VerifierOptions, stage: &str) -> Result<(), TestCaseError> {
    let report = verify_module(module, options);
    prop_assert!(
        report.succeeded(),
        "after {stage}:\n{report}\n{}",
        print_module(module, View::Flat)
    );
    Ok(())
}

/// Violations of the memory form `reg2mem` produces.
fn memory_form_violations(function: &Function) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(entry) = function.entry_block() else {
        return problems;
    };
    let leading_allocas = function
        .layout
        .block_insts(entry)
        .take_while(|&inst| function.dfg.inst(inst).opcode == Opcode::Alloca)
        .count();
    for block in function.layout.blocks() {
        let allocas = function
            .layout
            .block_insts(block)
            .filter(|&inst| function.dfg.inst(inst).opcode == Opcode::Alloca)
            .count();
        if allocas != if block == entry { leading_allocas } else { 0 } {
            problems.push(format!(
                "{block} has allocas outside the entry's leading run"
            ));
        }
        if block != entry && !function.dfg.block_params(block).is_empty() {
            problems.push(format!("{block} has parameters"));
        }
        for inst in function.layout.block_insts(block) {
            for value in function.dfg.inst(inst).all_values() {
                let ValueDef::Result(def) = function.dfg.value_def(value) else {
                    continue;
                };
                if function.dfg.inst(def).opcode == Opcode::Alloca {
                    continue;
                }
                let def_block = function.layout.inst_block(def);
                if def_block != Some(block) {
                    problems.push(format!(
                        "{value} (defined in {def_block:?}) is used in {block} by {inst}"
                    ));
                }
            }
        }
    }
    problems
}

/// Function-space allocas left in the module.
fn function_alloca_count(module: &Module) -> usize {
    let mut count = 0;
    for function in module.functions.values() {
        for block in function.layout.blocks() {
            for inst in function.layout.block_insts(block) {
                let data = function.dfg.inst(inst);
                if data.opcode != Opcode::Alloca {
                    continue;
                }
                let result = function.dfg.inst_result(inst).expect("alloca result");
                if let Some(TypeData::Pointer {
                    space: AddressSpace::Function,
                    ..
                }) = module.types.try_get(function.dfg.value_type(result))
                {
                    count += 1;
                }
            }
        }
    }
    count
}

/// How many observable operations the module has: calls, stores outside function
/// memory, returns and terminators by opcode. Promotion and demotion must keep them.
fn observable_profile(module: &Module) -> Vec<(String, usize)> {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for function in module.functions.values() {
        for block in function.layout.blocks() {
            for inst in function.layout.block_insts(block) {
                let data = function.dfg.inst(inst);
                let key = match data.opcode {
                    Opcode::Store => {
                        let pointer = function.dfg.value_type(data.args[0]);
                        match module.types.try_get(pointer) {
                            Some(TypeData::Pointer {
                                space: AddressSpace::Function,
                                ..
                            }) => continue,
                            _ => "store(non-function)".to_string(),
                        }
                    }
                    Opcode::Call | Opcode::Return => data.opcode.mnemonic().to_string(),
                    op if op.is_structured() || op.is_structured_exit() => {
                        op.mnemonic().to_string()
                    }
                    _ => continue,
                };
                *counts.entry(key).or_default() += 1;
            }
        }
    }
    counts.into_iter().collect()
}

fn check_idempotent<I: PassInfo>(
    module: &mut Module,
    run: fn(&mut Module) -> I,
    name: &str,
) -> Result<(), TestCaseError> {
    let before = print_module(module, View::Flat);
    let info = run(module);
    prop_assert!(
        !info.changed(),
        "{name} is not idempotent: {:?}",
        info.counters()
    );
    prop_assert_eq!(
        print_module(module, View::Flat),
        before,
        "{} changed the text",
        name
    );
    Ok(())
}

fn round_trip(seed: u64) -> Result<(), TestCaseError> {
    let mut module = generate_module(seed, GenConfig::default());
    let defaults = VerifierOptions::default();
    verify(&module, &defaults, "generation")?;
    let profile = observable_profile(&module);
    // The traces every later stage must reproduce (skipped when the generated program
    // does not run to completion in the evaluator).
    let expected = evaluation::observe(&module).ok();
    let same_behaviour = |module: &Module, stage: &str| -> Result<(), TestCaseError> {
        if let Some(expected) = &expected {
            let found = evaluation::observe(module);
            prop_assert!(
                found.as_ref() == Ok(expected),
                "after {stage} the behaviour changed:\nexpected {expected:#?}\nfound {found:#?}\n{}",
                print_module(module, View::Flat)
            );
        }
        Ok(())
    };

    hoist_allocas::run_on_module(&mut module);
    verify(&module, &defaults, "hoist-allocas")?;
    check_idempotent(&mut module, hoist_allocas::run_on_module, "hoist-allocas")?;

    let reachable = VerifierOptions {
        require_reachable_blocks: true,
        ..VerifierOptions::default()
    };
    let first = mem2reg::run_on_module(&mut module);
    verify(&module, &reachable, "mem2reg")?;
    prop_assert_eq!(first.skipped_escaping_alloca_count, 0);
    prop_assert_eq!(
        function_alloca_count(&module),
        0,
        "a promotable alloca is left"
    );
    check_idempotent(&mut module, mem2reg::run_on_module, "mem2reg")?;
    prop_assert_eq!(observable_profile(&module), profile.clone());
    same_behaviour(&module, "hoist-allocas, mem2reg")?;

    let demoted = reg2mem::run_on_module(&mut module);
    let no_params = VerifierOptions {
        require_no_block_params: true,
        ..VerifierOptions::default()
    };
    verify(&module, &no_params, "reg2mem")?;
    for function in module.functions.values() {
        let problems = memory_form_violations(function);
        prop_assert!(
            problems.is_empty(),
            "after reg2mem, @{}: {:?}\n{}",
            function.name,
            problems,
            print_module(&module, View::Flat)
        );
    }
    check_idempotent(&mut module, reg2mem::run_on_module, "reg2mem")?;
    prop_assert_eq!(observable_profile(&module), profile.clone());
    same_behaviour(&module, "reg2mem")?;

    let second = mem2reg::run_on_module(&mut module);
    verify(&module, &reachable, "reg2mem, mem2reg")?;
    // Every slot reg2mem made is promotable.
    prop_assert_eq!(
        second.promoted_alloca_count,
        demoted.lowered_block_param_count + demoted.lowered_cross_block_value_count
    );
    prop_assert_eq!(function_alloca_count(&module), 0);
    check_idempotent(&mut module, mem2reg::run_on_module, "second mem2reg")?;
    prop_assert_eq!(observable_profile(&module), profile);
    same_behaviour(&module, "reg2mem, mem2reg")?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64)
    ))]

    #[test]
    fn reg2mem_then_mem2reg_round_trips(seed in any::<u64>()) {
        round_trip(seed)?;
    }
}

/// A fixed set of seeds, so a failure found once stays reproducible without proptest's
/// persistence files.
#[test]
fn round_trip_fixed_seeds() {
    for seed in 0..16 {
        if let Err(e) = round_trip(seed) {
            panic!("seed {seed}: {e}");
        }
    }
}

/// A function of `blocks` blocks in a chain (a dominator tree as deep as the function),
/// each loading, bumping and storing a counter, with a diamond every few blocks: the
/// passes must not recurse per block. Returns the text and the number of join blocks.
fn deep_chain(blocks: usize) -> (String, u64) {
    let mut text = String::from(
        "const c0: u32 = 0\nconst c1: u32 = 1\n\ncallable @f(bool) -> u32 {\nblock0(v0: bool):\n    v1: ptr<function, u32> = alloca\n    store v1, c0\n    br block1\n",
    );
    let mut next_value = 2;
    let mut joins = 0;
    let mut b = 1;
    while b < blocks {
        let (load, add) = (next_value, next_value + 1);
        next_value += 2;
        text +=
            &format!("block{b}:\n    v{load}: u32 = load v1\n    v{add}: u32 = add v{load}, c1\n");
        if b % 3 == 0 {
            // A diamond: the store happens on one side only.
            text += &format!(
                "    cond_br v0, block{}, block{}\nblock{}:\n    store v1, v{add}\n    br block{}\n",
                b + 1,
                b + 2,
                b + 1,
                b + 2
            );
            b += 2;
            joins += 1;
        } else {
            text += &format!("    store v1, v{add}\n    br block{}\n", b + 1);
            b += 1;
        }
    }
    text += &format!("block{b}:\n    v{next_value}: u32 = load v1\n    return v{next_value}\n}}\n");
    (text, joins)
}

#[test]
fn deep_control_flow_does_not_recurse() {
    let (text, joins) = deep_chain(30_000);
    let mut module = oxir_ir::parser::parse_module(&text).expect("parses");
    let info = mem2reg::run_on_module(&mut module);
    assert_eq!(info.promoted_alloca_count, 1);
    assert_eq!(info.inserted_block_param_count, joins);
    let demoted = reg2mem::run_on_module(&mut module);
    assert_eq!(demoted.lowered_block_param_count, joins);
    let again = mem2reg::run_on_module(&mut module);
    assert_eq!(again.inserted_block_param_count, joins);
    let reachable = VerifierOptions {
        require_reachable_blocks: true,
        ..VerifierOptions::default()
    };
    assert!(verify_module(&module, &reachable).succeeded());
}

/// A small evaluator for the operations the random generator emits — a stand-in oracle
/// until `oxir-interp` exists (then execution equality moves to it). Pure operations get
/// concrete integer and float semantics (counted loops must terminate); the exact GPU
/// semantics do not matter, because the same evaluator runs the program before and
/// after each pass and only the traces are compared. The trace of a run is, in execution
/// order, the value of every executed instruction other than an alloca, load or access
/// (the passes keep those instructions, so they must compute the same values), every
/// store to a non-function pointer, and the returned value.
mod evaluation {
    use oxir_ir::constants::canonical_scalar_bits;
    use oxir_ir::{
        ConstKind, Func, Global, Module, Opcode, Payload, Scalar, Type, TypeData, Value, ValueDef,
    };
    use std::collections::HashMap;

    const STEP_LIMIT: u64 = 2_000_000;

    #[derive(Clone, Debug, PartialEq)]
    enum Val {
        Lanes(Vec<u64>),
        Undef,
        Ptr(Ptr),
    }

    #[derive(Clone, Debug, PartialEq, Eq, Hash)]
    enum Ptr {
        Local(u64, Vec<u64>),
        Global(Global, Vec<u64>),
    }

    struct Machine<'m> {
        module: &'m Module,
        memory: HashMap<Ptr, Val>,
        next_object: u64,
        steps: u64,
        invocation: u64,
        trace: Vec<String>,
    }

    /// The traces of every function: kernels for invocations 0..3, callables on
    /// arguments derived from their types. `Err` when a run failed (step limit, branch
    /// on `undef`, an operation the evaluator does not know).
    pub fn observe(module: &Module) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for (func, function) in module.functions.iter() {
            if !function.is_definition() {
                continue;
            }
            let runs: Vec<(u64, Vec<Val>)> = if function.kind.is_entry_point() {
                (0..4).map(|i| (i, Vec::new())).collect()
            } else {
                (0..3)
                    .map(|k| {
                        let args = function
                            .signature
                            .params
                            .iter()
                            .enumerate()
                            .map(|(i, p)| sample(module, p.ty, k * 7 + i as u64))
                            .collect();
                        (0, args)
                    })
                    .collect()
            };
            for (invocation, args) in runs {
                let mut machine = Machine {
                    module,
                    memory: HashMap::new(),
                    next_object: 0,
                    steps: 0,
                    invocation,
                    trace: Vec::new(),
                };
                let result = machine.call(func, args)?;
                out.push(format!(
                    "@{} #{invocation}: {:?} -> {result:?}",
                    function.name, machine.trace
                ));
            }
        }
        Ok(out)
    }

    fn scalar_and_lanes(module: &Module, ty: Type) -> Option<(Scalar, usize)> {
        match module.types.get(ty) {
            TypeData::Scalar(s) => Some((*s, 1)),
            TypeData::Vector { elem, len } => Some((*elem, usize::from(*len))),
            _ => None,
        }
    }

    fn sample(module: &Module, ty: Type, seed: u64) -> Val {
        match scalar_and_lanes(module, ty) {
            Some((s, lanes)) => Val::Lanes(
                (0..lanes as u64)
                    .map(|l| {
                        let x = seed * 3 + l + 1;
                        let bits = if s.is_float() {
                            u64::from((x as f32 * 0.75).to_bits())
                        } else {
                            x
                        };
                        canonical_scalar_bits(s, bits)
                    })
                    .collect(),
            ),
            None => Val::Undef,
        }
    }

    fn constant(module: &Module, c: oxir_ir::Const) -> Val {
        let data = module.consts.get(c);
        match &data.kind {
            ConstKind::Scalar(bits) => Val::Lanes(vec![*bits]),
            ConstKind::Composite(elements) => {
                let mut lanes = Vec::new();
                for &e in elements {
                    match constant(module, e) {
                        Val::Lanes(l) => lanes.extend(l),
                        other => return other,
                    }
                }
                Val::Lanes(lanes)
            }
            ConstKind::Zero => {
                let lanes = scalar_and_lanes(module, data.ty).map_or(1, |(_, n)| n);
                Val::Lanes(vec![0; lanes])
            }
            ConstKind::Undef => Val::Undef,
        }
    }

    fn lanes(v: &Val) -> Result<&[u64], String> {
        match v {
            Val::Lanes(l) => Ok(l),
            other => Err(format!("expected data, found {other:?}")),
        }
    }

    fn f32_of(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }

    fn f32_bits(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    /// `op` applied lane by lane to integers or floats of scalar `s`.
    fn arith(op: Opcode, s: Scalar, a: u64, b: u64) -> Result<u64, String> {
        if s.is_float() {
            let (x, y) = (f32_of(a), f32_of(b));
            let r = match op {
                Opcode::Add => x + y,
                Opcode::Sub => x - y,
                Opcode::Mul => x * y,
                Opcode::Min => x.min(y),
                Opcode::Max => x.max(y),
                _ => return Err(format!("{op} on floats")),
            };
            return Ok(f32_bits(r));
        }
        let signed_less = |a: u64, b: u64| {
            if s.is_signed() {
                (a as i64) < (b as i64)
            } else {
                a < b
            }
        };
        let r = match op {
            Opcode::Add => a.wrapping_add(b),
            Opcode::Sub => a.wrapping_sub(b),
            Opcode::Mul => a.wrapping_mul(b),
            Opcode::And => a & b,
            Opcode::Or => a | b,
            Opcode::Xor => a ^ b,
            Opcode::Min => {
                if signed_less(b, a) {
                    b
                } else {
                    a
                }
            }
            Opcode::Max => {
                if signed_less(a, b) {
                    b
                } else {
                    a
                }
            }
            Opcode::Shl => a << (b % u64::from(s.bits.max(1))),
            _ => return Err(format!("{op} on integers")),
        };
        Ok(canonical_scalar_bits(s, r))
    }

    fn compare(op: Opcode, s: Scalar, a: u64, b: u64) -> Result<bool, String> {
        let ord = if s.is_float() {
            match f32_of(a).partial_cmp(&f32_of(b)) {
                Some(o) => o,
                None => return Ok(op == Opcode::Ne),
            }
        } else if s.is_signed() {
            (a as i64).cmp(&(b as i64))
        } else {
            a.cmp(&b)
        };
        use std::cmp::Ordering::*;
        Ok(match op {
            Opcode::Lt => ord == Less,
            Opcode::Le => ord != Greater,
            Opcode::Gt => ord == Greater,
            Opcode::Ge => ord != Less,
            Opcode::Eq => ord == Equal,
            Opcode::Ne => ord != Equal,
            _ => return Err(format!("{op} is not a comparison")),
        })
    }

    fn convert(from: Scalar, to: Scalar, x: u64) -> u64 {
        let bits = if from.is_float() {
            let f = f32_of(x);
            if to.is_float() {
                f32_bits(f)
            } else if to.is_signed() {
                (f as i64) as u64
            } else if to.is_bool() {
                u64::from(f != 0.0)
            } else {
                f as u64
            }
        } else if to.is_float() {
            let v = if from.is_signed() {
                x as i64 as f32
            } else {
                x as f32
            };
            f32_bits(v)
        } else {
            x
        };
        canonical_scalar_bits(to, bits)
    }

    impl Machine<'_> {
        fn call(&mut self, func: Func, args: Vec<Val>) -> Result<Option<Val>, String> {
            let module = self.module;
            let f = &module.functions[func];
            let mut env: HashMap<Value, Val> = HashMap::new();
            let mut block = f.entry_block().ok_or("no entry")?;
            for (&p, a) in f.dfg.block_params(block).iter().zip(args) {
                env.insert(p, a);
            }
            loop {
                let mut next = None;
                for inst in f.layout.block_insts(block) {
                    self.steps += 1;
                    if self.steps > STEP_LIMIT {
                        return Err("step limit".into());
                    }
                    let data = f.dfg.inst(inst);
                    let get = |v: Value, env: &HashMap<Value, Val>| -> Result<Val, String> {
                        let v = f.dfg.resolve(v);
                        match f.dfg.value_def(v) {
                            ValueDef::Const(c) => Ok(constant(module, c)),
                            ValueDef::Global(g) => Ok(Val::Ptr(Ptr::Global(g, Vec::new()))),
                            _ => env.get(&v).cloned().ok_or(format!("{v} has no value")),
                        }
                    };
                    let args: Vec<Val> = data
                        .args
                        .iter()
                        .map(|&a| get(a, &env))
                        .collect::<Result<_, _>>()?;
                    let op = data.opcode;
                    if op.is_terminator() {
                        let edges = data.payload.edges();
                        let chosen = match (&data.payload, op) {
                            (_, Opcode::Return) => return Ok(args.into_iter().next()),
                            (Payload::CondBranch { .. } | Payload::If { .. }, _) => {
                                usize::from(lanes(&args[0])?[0] == 0)
                            }
                            (Payload::SwitchBranch(table) | Payload::Switch { table, .. }, _) => {
                                let selector = lanes(&args[0])?[0];
                                table
                                    .cases
                                    .iter()
                                    .position(|(label, _)| *label == selector)
                                    .unwrap_or(table.cases.len())
                            }
                            _ if edges.len() == 1 => 0,
                            _ => return Err(format!("cannot run {op}")),
                        };
                        let edge = edges[chosen];
                        let values: Vec<Val> = edge
                            .args
                            .iter()
                            .map(|&a| get(a, &env))
                            .collect::<Result<_, _>>()?;
                        for (&p, v) in f.dfg.block_params(edge.block).iter().zip(values) {
                            env.insert(p, v);
                        }
                        next = Some(edge.block);
                        break;
                    }
                    let result_ty = f.dfg.inst_result(inst).map(|r| f.dfg.value_type(r));
                    let value = match op {
                        Opcode::Alloca => {
                            self.next_object += 1;
                            Some(Val::Ptr(Ptr::Local(self.next_object, Vec::new())))
                        }
                        Opcode::Load => match &args[0] {
                            Val::Ptr(p) => Some(self.memory.get(p).cloned().unwrap_or(Val::Undef)),
                            other => return Err(format!("load through {other:?}")),
                        },
                        Opcode::Store => {
                            let Val::Ptr(p) = &args[0] else {
                                return Err("store through a non-pointer".into());
                            };
                            if let Ptr::Global(g, path) = p {
                                let name = &module.globals[*g].name;
                                self.trace.push(format!("@{name}{path:?} = {:?}", args[1]));
                            }
                            self.memory.insert(p.clone(), args[1].clone());
                            None
                        }
                        Opcode::Access => {
                            let Val::Ptr(p) = &args[0] else {
                                return Err("access of a non-pointer".into());
                            };
                            let mut p = p.clone();
                            let path = match &mut p {
                                Ptr::Local(_, path) | Ptr::Global(_, path) => path,
                            };
                            for index in &args[1..] {
                                path.push(lanes(index)?[0]);
                            }
                            Some(Val::Ptr(p))
                        }
                        Opcode::Call => {
                            let Payload::Callee(callee) = data.payload else {
                                return Err("call without callee".into());
                            };
                            self.call(callee, args)?
                        }
                        Opcode::LocalInvocationIndex => Some(Val::Lanes(vec![self.invocation])),
                        _ => Some(self.pure(op, &data.payload, &args, result_ty, f, data)?),
                    };
                    if let (Some(r), Some(v)) = (f.dfg.inst_result(inst), value) {
                        // Every computed value, by instruction: the passes keep every
                        // instruction but allocas, loads, stores and accesses.
                        if !matches!(op, Opcode::Alloca | Opcode::Load | Opcode::Access) {
                            self.trace.push(format!("{inst} = {v:?}"));
                        }
                        env.insert(r, v);
                    }
                }
                block = next.ok_or("fell off a block")?;
            }
        }

        fn pure(
            &self,
            op: Opcode,
            payload: &Payload,
            args: &[Val],
            result_ty: Option<Type>,
            f: &oxir_ir::Function,
            data: &oxir_ir::InstData,
        ) -> Result<Val, String> {
            if args.contains(&Val::Undef) {
                return Ok(Val::Undef);
            }
            let module = self.module;
            let operand_scalar = |i: usize| {
                scalar_and_lanes(module, f.dfg.value_type(data.args[i]))
                    .map(|(s, _)| s)
                    .ok_or(format!("{op}: operand {i} is not data"))
            };
            let result = result_ty.and_then(|t| scalar_and_lanes(module, t));
            Ok(Val::Lanes(match op {
                Opcode::Add
                | Opcode::Sub
                | Opcode::Mul
                | Opcode::And
                | Opcode::Or
                | Opcode::Xor
                | Opcode::Min
                | Opcode::Max
                | Opcode::Shl => {
                    let s = operand_scalar(0)?;
                    let (a, b) = (lanes(&args[0])?, lanes(&args[1])?);
                    a.iter()
                        .zip(b)
                        .map(|(&x, &y)| arith(op, s, x, y))
                        .collect::<Result<_, _>>()?
                }
                Opcode::Lt | Opcode::Le | Opcode::Gt | Opcode::Ge | Opcode::Eq | Opcode::Ne => {
                    let s = operand_scalar(0)?;
                    let (a, b) = (lanes(&args[0])?, lanes(&args[1])?);
                    a.iter()
                        .zip(b)
                        .map(|(&x, &y)| compare(op, s, x, y).map(u64::from))
                        .collect::<Result<_, _>>()?
                }
                Opcode::Not => {
                    let s = operand_scalar(0)?;
                    lanes(&args[0])?
                        .iter()
                        .map(|&x| canonical_scalar_bits(s, if s.is_bool() { 1 - x } else { !x }))
                        .collect()
                }
                Opcode::Abs => {
                    let s = operand_scalar(0)?;
                    lanes(&args[0])?
                        .iter()
                        .map(|&x| {
                            if s.is_float() {
                                f32_bits(f32_of(x).abs())
                            } else if s.is_signed() {
                                canonical_scalar_bits(s, (x as i64).wrapping_abs() as u64)
                            } else {
                                x
                            }
                        })
                        .collect()
                }
                Opcode::Any => vec![u64::from(lanes(&args[0])?.iter().any(|&x| x != 0))],
                Opcode::Select => {
                    let (c, a, b) = (lanes(&args[0])?, lanes(&args[1])?, lanes(&args[2])?);
                    if c.len() == 1 {
                        if c[0] != 0 {
                            a.to_vec()
                        } else {
                            b.to_vec()
                        }
                    } else {
                        (0..a.len())
                            .map(|i| if c[i] != 0 { a[i] } else { b[i] })
                            .collect()
                    }
                }
                Opcode::Extract => {
                    let Payload::Indices(indices) = payload else {
                        return Err("extract without indices".into());
                    };
                    let l = lanes(&args[0])?;
                    vec![*l.get(indices[0] as usize).ok_or("extract out of range")?]
                }
                Opcode::Splat => {
                    let (_, n) = result.ok_or("splat to non-data")?;
                    vec![lanes(&args[0])?[0]; n]
                }
                Opcode::Convert => {
                    let from = operand_scalar(0)?;
                    let (to, _) = result.ok_or("convert to non-data")?;
                    lanes(&args[0])?
                        .iter()
                        .map(|&x| convert(from, to, x))
                        .collect()
                }
                _ => return Err(format!("the evaluator does not run {op}")),
            }))
        }
    }
}
