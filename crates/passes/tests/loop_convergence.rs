//! Divergence regression: a barrier in a loop whose trip count differs between the
//! invocations of a workgroup is never unrolled, duplicated or hoisted — by any
//! registered pass run alone, nor by the loop pipelines. Each module's barriers are
//! counted before and after, and every barrier left must still be inside a loop.

use oxir_ir::parser::parse_module;
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use oxir_passes::analysis::loops::LoopInfo;

/// Kernels whose loops hold a barrier and run a per-invocation number of times.
const DIVERGENT: &[(&str, &str)] = &[
    (
        "bound is the local invocation index",
        "
const c0: u32 = 0
const c1: u32 = 1
global @tile: workgroup array<u32, 4>
kernel @k() workgroup_size(4, 1, 1) {
block0:
    v0: u32 = local_invocation_index
    br block1(c0)
block1(v1: u32):
    v2: bool = lt v1, v0
    cond_br v2, block2, block3
block2:
    v3: ptr<workgroup, u32> = access @tile, v0
    store v3, v1
    workgroup_barrier
    v4: u32 = add v1, c1
    br block1(v4)
block3:
    return
}
",
    ),
    (
        "bound loaded from writable storage at the invocation's index",
        "
const c0: u32 = 0
const c1: u32 = 1
const c7: u32 = 7
global @buf: storage(read_write) array<u32> binding(0, 0)
kernel @k() workgroup_size(4, 1, 1) {
block0:
    v0: vec3<u32> = dispatch_id
    v1: u32 = extract v0, 0
    v2: ptr<storage(read_write), u32> = access @buf, v1
    v3: u32 = load v2
    v4: u32 = and v3, c7
    br block1(c0)
block1(v5: u32):
    v6: bool = lt v5, v4
    cond_br v6, block2, block3
block2:
    storage_barrier
    v7: u32 = add v5, c1
    br block1(v7)
block3:
    return
}
",
    ),
    (
        "start is the invocation index, bound uniform, counting down",
        "
const c1: u32 = 1
const c9: u32 = 9
global @n: uniform u32 binding(0, 1)
kernel @k() workgroup_size(4, 1, 1) {
block0:
    v0: u32 = local_invocation_index
    v1: u32 = load @n
    v2: u32 = add v0, c9
    br block1(v2)
block1(v3: u32):
    v4: bool = gt v3, v1
    cond_br v4, block2, block3
block2:
    workgroup_barrier
    v5: u32 = sub v3, c1
    br block1(v5)
block3:
    return
}
",
    ),
];

fn barriers_and_in_loops(m: &Module) -> (usize, bool) {
    let mut count = 0;
    let mut all_in_loops = true;
    for f in m.functions.values() {
        let loops = LoopInfo::new(f);
        for b in f.layout.blocks() {
            for i in f.layout.block_insts(b) {
                if f.dfg.inst(i).opcode.is_convergent() {
                    count += 1;
                    all_in_loops &= loops.depth(b) > 0;
                }
            }
        }
    }
    (count, all_in_loops)
}

#[test]
fn barriers_in_divergent_loops_are_never_duplicated_or_hoisted() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (what, text) in DIVERGENT {
        let module = parse_module(text).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            verify_module(&module, &VerifierOptions::default()).succeeded(),
            "{what}"
        );
        let before = barriers_and_in_loops(&module);
        assert!(
            before.0 > 0 && before.1,
            "{what}: the fixture has a barrier in a loop"
        );
        let mut runs: Vec<(String, Module)> = Vec::new();
        for name in oxir_passes::registry::pass_names() {
            let mut m = module.clone();
            let pass = oxir_passes::registry::create(name).expect("registered");
            let _ = pass(&mut m);
            runs.push((name.to_string(), m));
        }
        for name in ["ssa-optimization", "loop-optimization"] {
            if let Some(p) = oxir_passes::pipelines::by_name(name) {
                let mut m = module.clone();
                let _ = p.run(&mut m);
                runs.push((name.to_string(), m));
            }
        }
        for (name, m) in runs {
            checked += 1;
            let (count, in_loops) = barriers_and_in_loops(&m);
            // A pass may delete a loop whose barrier it proves dead, never add one.
            if count > before.0 || (count > 0 && !in_loops) {
                failures.push(format!(
                    "{what}: `{name}` left {count} barriers (was {}), all in loops: {in_loops}",
                    before.0
                ));
            }
        }
    }
    assert!(checked > 100, "only {checked} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The counterpart that must change: the same shapes with uniform trip counts are
/// unrolled, barriers copied, so the test above is not passing because the unroller
/// never touches barriers.
#[test]
fn barriers_in_uniform_loops_are_unrolled() {
    for text in [
        DIVERGENT[0]
            .1
            .replace("const c1: u32 = 1", "const c1: u32 = 1\nconst c2: u32 = 2")
            .replace("lt v1, v0", "lt v1, c2"),
        DIVERGENT[2].1.replace("add v0, c9", "add v1, c9"),
    ] {
        let mut m = parse_module(&text).expect("parses");
        let before = barriers_and_in_loops(&m).0;
        let info = oxir_passes::passes::loop_unroll::run_on_module(&mut m);
        assert_eq!(info.skipped_convergent_count, 0);
        assert_eq!(
            info.fully_unrolled_loop_count + info.partially_unrolled_loop_count,
            1
        );
        assert!(barriers_and_in_loops(&m).0 > before, "{text}");
    }
}
