use super::*;
use cranelift_entity::EntityRef;
use oxir_ir::parser::parse_module;

fn facts(text: &str) -> (Module, Uniformity) {
    let m = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let f = m.functions.values().next().unwrap();
    let u = Uniformity::new(&m, f);
    (m, u)
}

fn uniform(m: &Module, u: &Uniformity, n: usize) -> bool {
    u.is_uniform(m.functions.values().next().unwrap(), Value::new(n))
}

#[test]
fn registers_parameters_and_memory() {
    let (m, u) = facts(
        "
const c0: u32 = 0
const c1: u32 = 1
global @params: uniform u32 binding(0, 0)
global @data: storage(read_write) array<u32> binding(0, 1)
global @ro: storage(read) array<u32> binding(0, 2)
kernel @k(vec3<u32> builtin(workgroup_id), vec3<u32> builtin(local_invocation_id)) workgroup_size(4, 1, 1) {
block0(v0: vec3<u32>, v1: vec3<u32>):
    v2: u32 = extract v0, 0
    v3: u32 = extract v1, 0
    v4: vec3<u32> = thread_id
    v5: u32 = subgroup_size
    v6: u32 = load @params
    v7: ptr<storage(read), u32> = access @ro, v6
    v8: u32 = load v7
    v9: ptr<storage(read), u32> = access @ro, v3
    v10: u32 = load v9
    v11: ptr<storage(read_write), u32> = access @data, v6
    v12: u32 = load v11
    v13: u32 = add v2, v6
    v14: u32 = add v13, v3
    v15: u32 = subgroup_invocation_id
    v16: u32 = atomic_add v11, c1
    return
}
",
    );
    let expect = [
        (0, true),
        (1, false),
        (2, true),
        (3, false),
        (4, false),
        (5, true),
        (6, true),
        (8, true),
        (9, false),
        (10, false),
        (12, false),
        (13, true),
        (14, false),
        (15, false),
        (16, false),
    ];
    for (v, want) in expect {
        assert_eq!(uniform(&m, &u, v), want, "v{v}");
    }
}

#[test]
fn divergent_branches_make_joins_and_loop_exits_divergent() {
    let (m, u) = facts(
        "
const c0: u32 = 0
const c1: u32 = 1
const c2: u32 = 2
global @n: uniform u32 binding(0, 0)
kernel @k() workgroup_size(4, 1, 1) {
block0:
    v0: u32 = local_invocation_index
    v1: u32 = load @n
    v2: bool = lt v0, c2
    cond_br v2, block1, block2
block1:
    br block3(c0)
block2:
    br block3(c1)
block3(v3: u32):
    br block4(c0)
block4(v4: u32):
    v5: bool = lt v4, v1
    cond_br v5, block5, block6
block5:
    v6: u32 = add v4, c1
    br block4(v6)
block6:
    br block7(c0)
block7(v7: u32):
    v8: bool = lt v7, v0
    cond_br v8, block8, block9
block8:
    v9: u32 = add v7, c1
    br block7(v9)
block9:
    v10: u32 = add v7, c0
    v11: u32 = add v9, c0
    return
}
",
    );
    // The join of the divergent diamond takes different constants.
    assert!(!uniform(&m, &u, 3));
    // A loop with a uniform bound: its counter stays uniform, its blocks uniform.
    assert!(uniform(&m, &u, 4) && uniform(&m, &u, 6));
    assert!(u.is_block_uniform(Block::new(4)) && u.is_block_uniform(Block::new(5)));
    // A loop bounded by the invocation index: the latch is in the exit's region.
    assert!(!u.is_block_uniform(Block::new(8)));
    assert!(!uniform(&m, &u, 9));
    // The diamond's arms are divergent, its join and the entry are not.
    assert!(!u.is_block_uniform(Block::new(1)) && !u.is_block_uniform(Block::new(2)));
    assert!(u.is_block_uniform(Block::new(3)) && u.is_block_uniform(Block::new(0)));
    // v7 (the header's counter, a uniform start and step) is divergent: the header is
    // the join of the divergent exit branch, and it is used after the loop.
    assert!(!uniform(&m, &u, 7) && !uniform(&m, &u, 10));
}

#[test]
fn callables_treat_parameters_as_divergent() {
    let (m, u) = facts(
        "
const c1: u32 = 1
callable @f(u32) -> u32 {
block0(v0: u32):
    v1: u32 = add v0, c1
    v2: vec3<u32> = workgroup_id
    return v1
}
",
    );
    assert!(!uniform(&m, &u, 0) && !uniform(&m, &u, 1) && uniform(&m, &u, 2));
}

#[test]
fn random_modules_never_call_thread_ids_uniform() {
    use oxir_ir::random_modules::{generate_module, GenConfig};
    for seed in 0..20 {
        let m = generate_module(seed, GenConfig::default());
        for f in m.functions.values() {
            let u = Uniformity::new(&m, f);
            for b in f.layout.blocks() {
                for inst in f.layout.block_insts(b) {
                    let data = f.dfg.inst(inst);
                    if let Some(r) = f.dfg.inst_result(inst) {
                        if matches!(data.opcode, Opcode::ThreadId | Opcode::DispatchId) {
                            assert!(!u.is_uniform(f, r), "seed {seed}");
                        }
                        // A pure instruction with a divergent operand is divergent.
                        if data.opcode.info().effect == EffectClass::Pure
                            && data.args.iter().any(|&a| !u.is_uniform(f, a))
                        {
                            assert!(!u.is_uniform(f, r), "seed {seed}");
                        }
                    }
                }
            }
        }
    }
}
