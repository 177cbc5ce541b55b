//! Corrupted modules never make the verifier panic; its cost stays linear.

use super::*;

// --- robustness and cost -------------------------------------------------------------

#[test]
fn invalid_function_index() {
    let m = Module::new();
    let report = verify_function(&m, Func::new(3), &VerifierOptions::default());
    expect_one(&report, ErrorKind::InvalidEntity, &["module", "func3"]);
}

#[test]
fn report_lists_every_error_on_its_own_line() {
    let mut m = Module::new();
    let mut f = kernel("main");
    f.append_new_block();
    f.append_new_block();
    m.add_function(f);
    let report = verify(&m);
    assert_eq!(report.errors.len(), 2);
    let text = report.to_string();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().all(|l| l.starts_with("function @main, block")),
        "{text}"
    );
}

/// A tiny deterministic generator for the mutation test.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Corrupts one random thing about `f`: operands, edge targets and arguments, roles,
/// value definitions and types, opcodes, callees, block parameters.
fn mutate(f: &mut Function, rng: &mut XorShift, type_count: usize) {
    let values = f.dfg.values.len() + 3;
    let blocks = f.dfg.blocks.len() + 2;
    let insts = f.dfg.insts.len();
    let inst = Inst::new(rng.below(insts));
    let value = |rng: &mut XorShift| Value::new(rng.below(values));
    let block = |rng: &mut XorShift| Block::new(rng.below(blocks));
    match rng.below(10) {
        0 => {
            let data = f.dfg.inst_mut(inst);
            if !data.args.is_empty() {
                let i = rng.below(data.args.len());
                data.args[i] = value(rng);
            }
        }
        1 => {
            let mut edges = f.dfg.inst_mut(inst).payload.edges_mut();
            if !edges.is_empty() {
                let i = rng.below(edges.len());
                let target = block(rng);
                edges[i].block = target;
                if rng.below(2) == 0 {
                    let arg = value(rng);
                    edges[i].args.push(arg);
                }
            }
        }
        2 => {
            let new_role = block(rng);
            match &mut f.dfg.inst_mut(inst).payload {
                Payload::Loop {
                    body,
                    update,
                    merge,
                    ..
                } => match rng.below(3) {
                    0 => *body = new_role,
                    1 => *update = new_role,
                    _ => *merge = new_role,
                },
                Payload::If { merge, .. } => *merge = (rng.below(3) != 0).then_some(new_role),
                Payload::SimpleLoop { merge, .. } | Payload::Switch { merge, .. } => {
                    *merge = new_role
                }
                _ => {}
            }
        }
        3 => {
            let v = Value::new(rng.below(f.dfg.values.len()));
            let def = match rng.below(6) {
                0 => ValueDef::Alias(value(rng)),
                1 => ValueDef::Detached,
                2 => ValueDef::Result(Inst::new(rng.below(insts + 2))),
                3 => ValueDef::Param(block(rng), rng.below(3) as u32),
                4 => ValueDef::Const(crate::entities::Const::new(rng.below(8))),
                _ => ValueDef::Global(crate::entities::Global::new(rng.below(3))),
            };
            f.dfg.values[v].def = def;
        }
        4 => {
            let v = Value::new(rng.below(f.dfg.values.len()));
            f.dfg.values[v].ty = Type::new(rng.below(type_count + 2));
        }
        5 => {
            let op = Opcode::ALL[rng.below(Opcode::ALL.len())];
            f.dfg.inst_mut(inst).opcode = op;
        }
        6 => {
            if let Payload::Callee(callee) = &mut f.dfg.inst_mut(inst).payload {
                *callee = Func::new(rng.below(4));
            }
        }
        7 => {
            let b = Block::new(rng.below(f.dfg.blocks.len()));
            let v = value(rng);
            f.dfg.blocks[b].params.push(v);
        }
        8 => {
            let extra = f.dfg.make_inst(InstData::new(
                Opcode::ALL[rng.below(Opcode::ALL.len())],
                &[],
            ));
            if rng.below(2) == 0 {
                let ty = Type::new(rng.below(type_count + 1));
                f.dfg.make_result(extra, ty);
            }
            let b = Block::new(rng.below(f.dfg.blocks.len()));
            if f.layout.is_block_inserted(b) {
                f.layout.append_inst(extra, b);
            }
        }
        _ => {
            let removed = Inst::new(rng.below(insts));
            f.remove_inst(removed);
        }
    }
}

#[test]
fn random_corruptions_never_panic() {
    let base = structured_module();
    let main = base.function_by_name("main").unwrap();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut failures = 0usize;
    for _ in 0..mutation_rounds() {
        let mut m = base.clone();
        let type_count = m.types.len();
        let rounds = 1 + rng.below(6);
        for _ in 0..rounds {
            mutate(&mut m.functions[main], &mut rng, type_count);
        }
        let report = verify_with(&m, VerifierOptions::all());
        let _ = report.to_string();
        failures += usize::from(!report.succeeded());
    }
    assert!(
        failures > 300,
        "mutations should mostly be caught; {failures} were"
    );
}

/// A straight-line kernel of `blocks` blocks with `per_block` additions each.
fn large_module(blocks: usize, per_block: usize) -> Module {
    let mut m = Module::new();
    let mut f = kernel("main");
    let block_list: Vec<Block> = (0..blocks).map(|_| f.append_new_block()).collect();
    let one = u32_const(&mut m, &mut f, 1);
    let u32_ty = m.types.u32();
    let mut last = one;
    for (i, &b) in block_list.iter().enumerate() {
        for _ in 0..per_block {
            last = place_value(&mut f, b, InstData::new(Opcode::Add, &[last, one]), u32_ty);
        }
        match block_list.get(i + 1) {
            Some(&next) => place(&mut f, b, jump(Opcode::Br, next, &[])),
            None => place(&mut f, b, ret()),
        };
    }
    m.add_function(f);
    m
}

#[test]
fn cost_is_linear() {
    let m = large_module(20_000, 4);
    let report = verify_with(&m, VerifierOptions::all());
    assert!(report.succeeded(), "{report}");
    assert_eq!(report.stats.insts, 100_000);
    assert_eq!(report.stats.blocks, 20_000);
    // One query per cross-block operand at most.
    assert!(
        report.stats.dominance_queries <= 2 * 100_000,
        "{:?}",
        report.stats
    );
}

/// Rounds of the mutation test; `OXIR_VERIFIER_MUTATIONS` raises it for a longer soak.
fn mutation_rounds() -> usize {
    std::env::var("OXIR_VERIFIER_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(600)
}

#[test]
fn random_module_items_never_panic() {
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    for _ in 0..mutation_rounds() / 4 {
        let mut m = structured_module();
        let scalar = |rng: &mut XorShift| Scalar::ALL[rng.below(Scalar::ALL.len())];
        for _ in 0..1 + rng.below(6) {
            let count = m.types.len() + 3;
            let any = |rng: &mut XorShift| Type::new(rng.below(count));
            let data = match rng.below(7) {
                0 => TypeData::Array {
                    elem: any(&mut rng),
                    len: rng.below(3) as u32,
                    stride: None,
                },
                1 => TypeData::RuntimeArray {
                    elem: any(&mut rng),
                    stride: None,
                },
                2 => TypeData::Pointer {
                    space: AddressSpace::Private,
                    pointee: any(&mut rng),
                },
                3 => TypeData::Vector {
                    elem: scalar(&mut rng),
                    len: rng.below(6) as u8,
                },
                4 => TypeData::Matrix {
                    elem: scalar(&mut rng),
                    columns: rng.below(6) as u8,
                    rows: 3,
                },
                5 => {
                    let member = |name: &str, ty| crate::types::StructMember {
                        name: name.into(),
                        ty,
                        offset: Some(4),
                    };
                    let members = vec![member("a", any(&mut rng)), member("b", any(&mut rng))];
                    TypeData::Struct(crate::types::StructType {
                        name: "S".into(),
                        members,
                        align: Some(3),
                    })
                }
                _ => TypeData::Scalar(crate::types::Scalar {
                    kind: crate::types::ScalarKind::Sint,
                    bits: 7,
                }),
            };
            let ty = m.types.intern(data);
            let consts = m.consts.len() + 2;
            let kind = match rng.below(4) {
                0 => ConstKind::Zero,
                1 => ConstKind::Undef,
                2 => ConstKind::Scalar(rng.next()),
                _ => ConstKind::Composite(vec![
                    crate::entities::Const::new(rng.below(consts));
                    rng.below(4)
                ]),
            };
            let c = m.consts.intern(ConstData {
                ty: any(&mut rng),
                kind,
            });
            let space = [
                AddressSpace::Private,
                AddressSpace::Handle,
                AddressSpace::Function,
                AddressSpace::Uniform,
            ][rng.below(4)];
            let init = (rng.below(2) == 0).then_some(c);
            m.add_global(GlobalData {
                name: "g".into(),
                space,
                ty,
                init,
                binding: None,
            });
            let main = Func::new(1);
            let type_count = m.types.len();
            mutate(&mut m.functions[main], &mut rng, type_count);
        }
        let report = verify_with(&m, VerifierOptions::all());
        let _ = report.to_string();
    }
}

#[test]
fn many_sequential_loops_stay_linear() {
    // header_i: loop(prepare_i, body_i, update_i, merge = header_{i+1}); body_i breaks.
    let loops = 5_000;
    let mut m = Module::new();
    let mut f = kernel("main");
    let headers: Vec<Block> = (0..=loops).map(|_| f.append_new_block()).collect();
    for i in 0..loops {
        let (prepare, body, update) = (
            f.append_new_block(),
            f.append_new_block(),
            f.append_new_block(),
        );
        place(
            &mut f,
            headers[i],
            loop_(prepare, body, update, headers[i + 1]),
        );
        place(&mut f, prepare, jump(Opcode::Br, body, &[]));
        place(&mut f, body, jump(Opcode::Break, headers[i + 1], &[]));
        place(&mut f, update, jump(Opcode::Br, prepare, &[]));
    }
    place(&mut f, headers[loops], ret());
    m.add_function(f);
    let options = VerifierOptions {
        require_canonical_break_continue_targets: true,
        require_unique_merge_blocks: true,
        ..VerifierOptions::default()
    };
    let report = verify_with(&m, options);
    assert!(report.succeeded(), "{report}");
    assert!(
        report.stats.dominance_queries <= 8 * report.stats.blocks as u64,
        "{:?}",
        report.stats
    );
}
