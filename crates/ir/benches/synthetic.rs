//! A synthetic kernel of a chosen size for scale benchmarks: a long chain of units, each
//! a run of arithmetic followed by an `if` whose arms pass a value to the merge block's
//! parameter; every eighth unit is a counted `loop` instead. About 20 instructions a unit.

use oxir_ir::function::{Function, FunctionKind, Signature};
use oxir_ir::instructions::{BlockCall, InstData, Payload};
use oxir_ir::module::{GlobalData, Module, ResourceBinding};
use oxir_ir::ops::Opcode;
use oxir_ir::types::{AddressSpace, StorageAccess};
use oxir_ir::{Block, Type, Value};

struct Emitter {
    f: Function,
    count: usize,
}

impl Emitter {
    fn ins(
        &mut self,
        block: Block,
        op: Opcode,
        args: &[Value],
        payload: Payload,
        ty: Option<Type>,
    ) -> Option<Value> {
        let inst = self
            .f
            .dfg
            .make_inst(InstData::with_payload(op, args, payload));
        let v = ty.map(|t| self.f.dfg.make_result(inst, t));
        self.f.layout.append_inst(inst, block);
        self.count += 1;
        v
    }

    fn val(&mut self, block: Block, op: Opcode, args: &[Value], ty: Type) -> Value {
        self.ins(block, op, args, Payload::None, Some(ty))
            .expect("value-producing op")
    }
}

/// Builds a module whose kernel has about `target_insts` instructions.
pub fn synthetic_module(target_insts: usize) -> Module {
    let mut m = Module::new();
    let u32_ty = m.types.u32();
    let f32_ty = m.types.f32();
    let bool_ty = m.types.bool();
    let arr = m.types.runtime_array(f32_ty);
    let out = m.add_global(GlobalData {
        name: "data".into(),
        space: AddressSpace::Storage(StorageAccess::ReadWrite),
        ty: arr,
        init: None,
        binding: Some(ResourceBinding {
            group: 0,
            binding: 0,
        }),
    });
    let out_ptr = m.global_pointer_type(out);
    let elem_ptr = m
        .types
        .pointer(AddressSpace::Storage(StorageAccess::ReadWrite), f32_ty);
    let local_ptr = m.types.pointer(AddressSpace::Function, u32_ty);
    let consts: Vec<_> = (0..8).map(|i| m.const_f32(i as f32 * 0.5 + 1.0)).collect();
    let zero_u = m.const_u32(0);
    let one_u = m.const_u32(1);
    let four_u = m.const_u32(4);

    let mut e = Emitter {
        f: Function::new(
            "main",
            FunctionKind::kernel([64, 1, 1]),
            Signature::default(),
        ),
        count: 0,
    };
    let c: Vec<Value> = consts
        .iter()
        .map(|&k| e.f.dfg.const_value(k, f32_ty))
        .collect();
    let zero = e.f.dfg.const_value(zero_u, u32_ty);
    let one = e.f.dfg.const_value(one_u, u32_ty);
    let four = e.f.dfg.const_value(four_u, u32_ty);
    let base = e.f.dfg.global_value(out, out_ptr);

    let mut block = e.f.append_new_block();
    let id = e.val(block, Opcode::LocalInvocationIndex, &[], u32_ty);
    let slot = e.val(block, Opcode::Access, &[base, id], elem_ptr);
    let mut x = e.val(block, Opcode::Load, &[slot], f32_ty);
    let mut unit = 0usize;
    while e.count + 24 < target_insts {
        for k in 0..10 {
            let op = [
                Opcode::Add,
                Opcode::Mul,
                Opcode::Sub,
                Opcode::Max,
                Opcode::Min,
            ][k % 5];
            x = e.val(block, op, &[x, c[(unit + k) % 8]], f32_ty);
        }
        if unit % 8 == 7 {
            // A counted loop: prepare / body / update / merge.
            let counter = e.val(block, Opcode::Alloca, &[], local_ptr);
            e.ins(block, Opcode::Store, &[counter, zero], Payload::None, None);
            let (prepare, body, update, merge) = (
                e.f.append_new_block(),
                e.f.append_new_block(),
                e.f.append_new_block(),
                e.f.append_new_block(),
            );
            e.ins(
                block,
                Opcode::Loop,
                &[],
                Payload::Loop {
                    prepare: BlockCall::new(prepare),
                    body,
                    update,
                    merge,
                },
                None,
            );
            let i = e.val(prepare, Opcode::Load, &[counter], u32_ty);
            let go = e.val(prepare, Opcode::Lt, &[i, four], bool_ty);
            e.ins(
                prepare,
                Opcode::CondBr,
                &[go],
                Payload::CondBranch {
                    then_dest: BlockCall::new(body),
                    else_dest: BlockCall::new(merge),
                },
                None,
            );
            let y = e.val(body, Opcode::Mul, &[x, c[unit % 8]], f32_ty);
            e.ins(body, Opcode::Store, &[slot, y], Payload::None, None);
            e.ins(
                body,
                Opcode::Br,
                &[],
                Payload::Jump(BlockCall::new(update)),
                None,
            );
            let i2 = e.val(update, Opcode::Load, &[counter], u32_ty);
            let next = e.val(update, Opcode::Add, &[i2, one], u32_ty);
            e.ins(update, Opcode::Store, &[counter, next], Payload::None, None);
            e.ins(
                update,
                Opcode::Br,
                &[],
                Payload::Jump(BlockCall::new(prepare)),
                None,
            );
            block = merge;
            x = e.val(block, Opcode::Load, &[slot], f32_ty);
        } else {
            let cond = e.val(block, Opcode::Lt, &[x, c[unit % 8]], bool_ty);
            let (then_b, else_b, merge) = (
                e.f.append_new_block(),
                e.f.append_new_block(),
                e.f.append_new_block(),
            );
            let p = e.f.dfg.append_block_param(merge, f32_ty);
            e.ins(
                block,
                Opcode::If,
                &[cond],
                Payload::If {
                    then_dest: BlockCall::new(then_b),
                    else_dest: BlockCall::new(else_b),
                    merge: Some(merge),
                },
                None,
            );
            let t1 = e.val(then_b, Opcode::Add, &[x, c[1]], f32_ty);
            let t2 = e.val(then_b, Opcode::Mul, &[t1, t1], f32_ty);
            e.ins(
                then_b,
                Opcode::Br,
                &[],
                Payload::Jump(BlockCall::with_args(merge, &[t2])),
                None,
            );
            let e1 = e.val(else_b, Opcode::Sub, &[x, c[2]], f32_ty);
            e.ins(
                else_b,
                Opcode::Br,
                &[],
                Payload::Jump(BlockCall::with_args(merge, &[e1])),
                None,
            );
            block = merge;
            x = p;
        }
        unit += 1;
    }
    e.ins(block, Opcode::Store, &[slot, x], Payload::None, None);
    e.ins(block, Opcode::Return, &[], Payload::None, None);
    m.add_function(e.f);
    m
}
