//! Random modules (the IR's generator: callables, structured and plain control flow with
//! block parameters, loops) through the whole back-end — `normalize`, preflight, writer —
//! and `opt-22 -passes=verify` on every module the preflight accepts, plus
//! determinism. Then a divergence regression: a barrier in uniform control flow stays in
//! its block, once, in the written module.

mod tools;

use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_llvm::{compile, Error, TargetDesc};

#[test]
fn random_modules_verify_in_llvm() {
    let cases: u64 = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(64);
    let opt = tools::opt();
    let target = TargetDesc::nvptx();
    let mut written = 0;
    let mut failures = Vec::new();
    for seed in 0..cases {
        let config = GenConfig {
            max_insts: 120,
            ..GenConfig::default()
        };
        let module = generate_module(seed, config);
        match compile(&module, &target) {
            Ok(ll) => {
                written += 1;
                if compile(&module, &target).as_ref() != Ok(&ll) {
                    failures.push(format!("seed {seed}: not deterministic"));
                }
                if let Some(opt) = &opt {
                    if let Err(e) = tools::verify(opt, &ll) {
                        failures.push(format!("seed {seed}: {e}\n{ll}"));
                    }
                }
            }
            Err(Error::Unsupported { what, .. }) => eprintln!("seed {seed}: refused: {what}"),
            Err(e) => failures.push(format!("seed {seed}: {e}")),
        }
    }
    eprintln!("{written} of {cases} random modules written");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(written * 2 >= cases, "only {written} of {cases} written");
}

/// A barrier in uniform control flow (after a branch on a workgroup-uniform value that
/// rejoins) is written exactly once, in the block that holds it in the input.
#[test]
fn a_barrier_in_uniform_control_flow_stays_in_place() {
    let text = "const c0: u32 = 0\nconst c1: u32 = 1\n\
        global @u: storage(read_write) array<u32> binding(0, 0)\n\
        global @w: workgroup array<u32, 4>\n\
        kernel @k() workgroup_size(4, 1, 1) {\nblock0:\n\
        v0: vec3<u32> = workgroup_id\n    v1: u32 = extract v0, 0\n    v2: bool = eq v1, c0\n\
        cond_br v2, block1, block2\nblock1:\n    v3: u32 = local_invocation_index\n\
        v4: ptr<workgroup, u32> = access @w, v3\n    store v4, v3\n    br block2\nblock2:\n\
        workgroup_barrier\n    v5: ptr<workgroup, u32> = access @w, c1\n    v6: u32 = load v5\n\
        v7: ptr<storage(read_write), u32> = access @u, c0\n    store v7, v6\n    return\n}\n";
    let module = oxir_ir::parser::parse_module(text).unwrap();
    let ll = compile(&module, &TargetDesc::nvptx()).unwrap();
    let barrier = "call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0) #0";
    assert_eq!(ll.matches(barrier).count(), 1, "{ll}");
    // The barrier is in the join block, after the branch's arms and before the load.
    let at = ll.find(barrier).unwrap();
    let join = ll[..at].rfind("\nbb").unwrap();
    let block = &ll[join..at];
    assert!(
        block.starts_with("\nbb2:"),
        "barrier moved out of the join block2:\n{ll}"
    );
    assert!(!block.contains("br "), "barrier moved:\n{ll}");
    assert!(ll[at..].contains("load i32, ptr addrspace(3)"), "{ll}");
    if let Some(opt) = tools::opt() {
        tools::verify(&opt, &ll).unwrap();
    }
}
