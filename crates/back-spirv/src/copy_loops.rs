//! `spirv-copy-loops`: a large array copied between memory of different layouts becomes
//! a loop that copies one element per iteration.
//!
//! SPIR-V has no type for "an array in any layout": a workgroup or function array is a
//! different type from the same array in a storage or uniform buffer (explicit
//! `ArrayStride`), and below SPIR-V 1.4 there is no `OpCopyLogical` between them, so the
//! writer converts a loaded array by extracting and rebuilding every element — 512
//! elements take about 3,000 words. This pass (run by the SPIR-V `-O` pipeline on plain
//! SSA, after `ssa-optimization`) rewrites
//!
//! ```text
//! v1: array<T, N> = load p              br loop(c0)
//! store q, v1                     ==>   loop(i: u32):
//!                                           v2: ptr<.., T> = access p, i
//!                                           v3: T = load v2
//!                                           v4: ptr<.., T> = access q, i
//!                                           store v4, v3
//!                                           v5: u32 = add i, c1
//!                                           v6: bool = lt v5, cN
//!                                           cond_br v6, loop(v5), rest
//!                                       rest:
//!                                           ... (what followed the store)
//! ```
//!
//! when `N` > [`MIN_ELEMENTS`], the load's only use is the store, the store is the very next
//! instruction (nothing can write either memory in between), neither carries semantic
//! metadata, and the two address spaces have different SPIR-V layouts (the writer's
//! `space_lay`: a buffer and non-buffer memory, or a uniform and a storage buffer). Every index is in range by
//! construction (`0 <= i < N`), so no bounds check is needed; the loop runs at least once
//! (N > 0), so it is bottom-tested. Elements are copied in increasing order; the source
//! and destination cannot partially overlap (distinct layouts means distinct memory).
//!
//! What it does not do: copies of structs, of small arrays, of runtime-sized arrays, or
//! copies with anything in between the load and the store; nested large arrays are
//! copied by the outer loop with each element converted by the writer. Structured
//! functions are skipped.

use crate::writer::space_lay;
use oxir_ir::types::{AddressSpace, TypeData};
use oxir_ir::{
    Block, BlockCall, Func, Function, Inst, InstData, Module, Opcode, Payload, Type, Value,
};
use oxir_passes::pass_info;

/// Arrays of at most this many elements keep the writer's element-wise conversion.
pub const MIN_ELEMENTS: u32 = 16;

pass_info! {
    pass: "spirv-copy-loops",
    /// What `spirv-copy-loops` did.
    pub struct CopyLoopsInfo {
        /// Load-store pairs turned into a copy loop.
        looped_copy_count,
    }
    changed_by: [looped_copy_count]
}

/// Runs the pass on every function with a body.
pub fn run_on_module(module: &mut Module) -> CopyLoopsInfo {
    let mut info = CopyLoopsInfo::default();
    let funcs: Vec<Func> = module.functions.keys().collect();
    for func in funcs {
        if oxir_passes::util::contains_structured_control_flow(&module.functions[func]) {
            continue;
        }
        for (load, store, elem, len) in candidates(module, func) {
            rewrite(
                module,
                func,
                Copy {
                    load,
                    store,
                    elem,
                    len,
                },
            );
            info.looped_copy_count += 1;
        }
    }
    info
}

fn pointer_space(module: &Module, f: &Function, v: Value) -> Option<AddressSpace> {
    match module.types.try_get(f.dfg.value_type(f.resolve(v)))? {
        TypeData::Pointer { space, .. } => Some(*space),
        // wildcard-ok: only pointers have a space
        _ => None,
    }
}

/// `(load, store, element type, length)` of every copy the pass rewrites.
fn candidates(module: &Module, func: Func) -> Vec<(Inst, Inst, Type, u32)> {
    let f = &module.functions[func];
    let mut uses = cranelift_entity::SecondaryMap::<Value, u32>::new();
    for block in f.layout.blocks() {
        for inst in f.layout.block_insts(block) {
            for v in f.dfg.inst(inst).all_values() {
                uses[f.resolve(v)] += 1;
            }
        }
    }
    let mut out = Vec::new();
    for block in f.layout.blocks() {
        for load in f.layout.block_insts(block) {
            let data = f.dfg.inst(load);
            if data.opcode != Opcode::Load || annotated(f, load) {
                continue;
            }
            let (Some(value), Some(store)) = (f.dfg.inst_result(load), f.layout.next_inst(load))
            else {
                continue;
            };
            let s = f.dfg.inst(store);
            if s.opcode != Opcode::Store
                || annotated(f, store)
                || s.args.len() != 2
                || f.resolve(s.args[1]) != value
                || uses[value] != 1
            {
                continue;
            }
            let Some(TypeData::Array { elem, len, .. }) =
                module.types.try_get(f.dfg.value_type(value))
            else {
                continue;
            };
            let (Some(from), Some(to)) = (
                pointer_space(module, f, data.args[0]),
                pointer_space(module, f, s.args[0]),
            ) else {
                continue;
            };
            if *len > MIN_ELEMENTS && space_lay(module, from) != space_lay(module, to) {
                out.push((load, store, *elem, *len));
            }
        }
    }
    out
}

struct Copy {
    load: Inst,
    store: Inst,
    elem: Type,
    len: u32,
}

fn rewrite(module: &mut Module, func: Func, copy: Copy) {
    let (src, dst) = {
        let f = &module.functions[func];
        (
            f.dfg.inst(copy.load).args[0],
            f.dfg.inst(copy.store).args[0],
        )
    };
    let f = &module.functions[func];
    let (Some(from), Some(to)) = (pointer_space(module, f, src), pointer_space(module, f, dst))
    else {
        return;
    };
    let u32_ty = module.types.u32();
    let bool_ty = module.types.bool();
    let src_elem = module.types.pointer(from, copy.elem);
    let dst_elem = module.types.pointer(to, copy.elem);
    let (zero, one, len) = (
        module.const_u32(0),
        module.const_u32(1),
        module.const_u32(copy.len),
    );
    let f = &mut module.functions[func];
    let (zero, one, len) = (
        f.dfg.const_value(zero, u32_ty),
        f.dfg.const_value(one, u32_ty),
        f.dfg.const_value(len, u32_ty),
    );
    let Some(block) = f.layout.inst_block(copy.load) else {
        return;
    };
    let body = f.dfg.make_block();
    let rest = f.dfg.make_block();
    f.layout.insert_block_after(body, block);
    f.layout.insert_block_after(rest, body);
    if let Some(after) = f.layout.next_inst(copy.store) {
        f.layout.split_block_at(after, rest);
    }
    f.layout.remove_inst(copy.store);
    f.layout.remove_inst(copy.load);
    let i = f.dfg.append_block_param(body, u32_ty);
    let mut emit = |op: Opcode, args: &[Value], ty: Option<Type>| -> Option<Value> {
        let inst = f.dfg.make_inst(InstData::new(op, args));
        let result = ty.map(|ty| f.dfg.make_result(inst, ty));
        f.layout.append_inst(inst, body);
        result
    };
    let (Some(p), Some(q)) = (
        emit(Opcode::Access, &[src, i], Some(src_elem)),
        emit(Opcode::Access, &[dst, i], Some(dst_elem)),
    ) else {
        return;
    };
    let Some(element) = emit(Opcode::Load, &[p], Some(copy.elem)) else {
        return;
    };
    emit(Opcode::Store, &[q, element], None);
    let Some(next) = emit(Opcode::Add, &[i, one], Some(u32_ty)) else {
        return;
    };
    let Some(more) = emit(Opcode::Lt, &[next, len], Some(bool_ty)) else {
        return;
    };
    jump(
        f,
        body,
        Opcode::CondBr,
        &[more],
        Payload::CondBranch {
            then_dest: BlockCall::with_args(body, &[next]),
            else_dest: BlockCall::new(rest),
        },
    );
    jump(
        f,
        block,
        Opcode::Br,
        &[],
        Payload::Jump(BlockCall::with_args(body, &[zero])),
    );
}

fn jump(f: &mut Function, block: Block, op: Opcode, args: &[Value], payload: Payload) {
    let inst = f.dfg.make_inst(InstData::with_payload(op, args, payload));
    f.layout.append_inst(inst, block);
}

fn annotated(f: &Function, inst: Inst) -> bool {
    f.dfg.metadata(inst).is_some_and(|md| md.is_annotated())
}
