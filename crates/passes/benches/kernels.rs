//! Synthetic front-end-shaped kernels for pipeline benchmarks: structured control flow
//! (counted loops nested three deep, ifs with nested ifs, early `break`s), locals in
//! memory (`alloca` / `load` / `store`, as a front-end emits them) and calls to a small
//! callable — the input `normalize` expects.

use oxir_ir::builder::FunctionBuilder;
use oxir_ir::{AbiParam, GlobalData, ResourceBinding};
use oxir_ir::{AddressSpace, Func, FunctionKind, Module, Scalar, Signature, StorageAccess, Value};

/// Builds a module whose kernel has about `target_insts` instructions.
pub fn structured_kernel(target_insts: usize) -> Module {
    let mut m = Module::new();
    let f32_ty = m.types.f32();
    let u32_ty = m.types.u32();
    let data_ty = m.types.runtime_array(f32_ty);
    let data = m.add_global(GlobalData {
        name: "data".into(),
        space: AddressSpace::Storage(StorageAccess::ReadWrite),
        ty: data_ty,
        init: None,
        binding: Some(ResourceBinding {
            group: 0,
            binding: 0,
        }),
    });
    let helper_sig = Signature {
        params: vec![AbiParam::new(f32_ty), AbiParam::new(f32_ty)],
        returns: vec![AbiParam::new(f32_ty)],
    };
    let helper =
        FunctionBuilder::create_function(&mut m, "blend", FunctionKind::Callable, helper_sig);
    {
        let mut b = FunctionBuilder::new(&mut m, helper);
        let entry = b.entry_block().expect("entry");
        b.switch_to_block(entry);
        let p = b.params();
        let x = b.mul(p[0], p[1]);
        let y = b.add(x, p[1]);
        b.ret(&[y]);
    }
    let kind = FunctionKind::kernel([64, 1, 1]);
    let main = FunctionBuilder::create_function(&mut m, "main", kind, Signature::default());
    let mut b = FunctionBuilder::new(&mut m, main);
    let entry = b.entry_block().expect("entry");
    b.switch_to_block(entry);
    let acc = b.alloca(AddressSpace::Function, f32_ty);
    let zero = b.fconst32(0.0);
    b.store(acc, zero);
    let id = b.special(oxir_ir::Opcode::LocalInvocationIndex);
    let base = b.global_addr(data);
    let slot = b.access(base, &[id]);
    let mut unit = 0usize;
    while b.function().dfg.num_insts() + 60 < target_insts {
        counted_loop(&mut b, helper, acc, slot, u32_ty, unit, 0);
        unit += 1;
    }
    let v = b.load(acc);
    b.store(slot, v);
    b.ret(&[]);
    m
}

/// `for i in 0..3 { if (acc < k) { acc = blend(acc, x) } else { if .. } ; nested loop }`.
fn counted_loop(
    b: &mut FunctionBuilder,
    helper: Func,
    acc: Value,
    slot: Value,
    u32_ty: oxir_ir::Type,
    unit: usize,
    depth: u32,
) {
    let counter = b.alloca(AddressSpace::Function, u32_ty);
    let zero = b.uconst(Scalar::U32, 0);
    b.store(counter, zero);
    let blocks = b.loop_();
    b.switch_to_block(blocks.prepare);
    let i = b.load(counter);
    let trips = b.uconst(Scalar::U32, 3);
    let go = b.lt(i, trips);
    b.cond_br(go, blocks.body, &[], blocks.merge, &[]);
    b.switch_to_block(blocks.body);
    let a = b.load(acc);
    let k = b.fconst32(unit as f32 * 0.25 + 1.0);
    let small = b.lt(a, k);
    let arms = b.if_(small);
    b.switch_to_block(arms.then_block);
    let x = b.load(slot);
    let blended = b.call(helper, &[a, x]).expect("blend returns a value");
    b.store(acc, blended);
    b.br(arms.merge, &[]);
    b.switch_to_block(arms.else_block);
    let big = b.fconst32(1000.0);
    let huge = b.gt(a, big);
    let inner = b.if_(huge);
    b.switch_to_block(inner.then_block);
    b.break_(blocks.merge, &[]);
    b.switch_to_block(inner.else_block);
    let half = b.fconst32(0.5);
    let scaled = b.mul(a, half);
    b.store(acc, scaled);
    b.br(inner.merge, &[]);
    b.switch_to_block(inner.merge);
    b.br(arms.merge, &[]);
    b.switch_to_block(arms.merge);
    if depth < 2 {
        counted_loop(b, helper, acc, slot, u32_ty, unit, depth + 1);
    }
    b.br(blocks.update, &[]);
    b.switch_to_block(blocks.update);
    let j = b.load(counter);
    let one = b.uconst(Scalar::U32, 1);
    let next = b.add(j, one);
    b.store(counter, next);
    b.br(blocks.prepare, &[]);
    b.switch_to_block(blocks.merge);
}
