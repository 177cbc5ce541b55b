//! Uniformity: which values are the same for every invocation of a workgroup, and which
//! blocks every invocation of a workgroup that enters the function reaches together.
//!
//! A one-way proof, intraprocedural: *uniform* means "proved the same"; *divergent* means
//! "not proved" (it may still be uniform at run time). Workgroup uniformity implies
//! subgroup uniformity (a subgroup lies in one workgroup). Subgroup collectives can make
//! a value uniform in a subgroup only (a ballot, a broadcast, a reduction); this analysis
//! proves workgroup uniformity alone, so it counts every subgroup collective's result as
//! divergent (`subgroup_elect` differs within a subgroup, the others between subgroups)
//! and [`Uniformity::is_uniform`] takes no scope.
//!
//! **Sources of divergence.**
//! - Entry parameters: of a kernel, those bound to built-ins other than `workgroup_id`,
//!   `num_workgroups` and `subgroup_size`; every parameter of any other function
//!   (callables are analysed without their call sites; fragment and vertex inputs vary).
//! - Special registers: `thread_id`, `dispatch_id`, `local_invocation_index`,
//!   `subgroup_invocation_id`, `frag_coord`, `front_facing`, `vertex_index`,
//!   `instance_index`, `sample_index`, `primitive_id` (and any register this table does
//!   not know). `workgroup_id`, `workgroup_size`, `num_workgroups`, `dispatch_size`,
//!   `subgroup_size` and `base_instance` are uniform.
//! - Memory: a `load` is uniform only when its pointer is and the memory is read-only for
//!   the whole dispatch (`uniform`, `push_constant`, `storage(read)`, `handle`); function,
//!   private, workgroup and writable storage memory may hold per-invocation data.
//!   `workgroup_uniform_load` is uniform by definition. Atomics, calls, texture reads,
//!   `clock` are divergent.
//! - Pure instructions are divergent when an operand is.
//! - Control: a branch (`cond_br`, `switch_br`, `if`, `switch`) on a divergent value makes
//!   its *influence region* divergent — the blocks reachable from it before its immediate
//!   post-dominator. Every block parameter in the region and at the post-dominator (the
//!   join) is divergent (paths that joined there may differ), and every value defined in
//!   the region and used outside it is divergent too (temporal divergence: invocations
//!   that left a loop at different iterations carry different values out).
//!
//! The sets grow to a fixed point. Blocks reached by no divergent branch's region are
//! *uniformly executed*: when one invocation of the workgroup runs them (in one call),
//! every invocation that entered the function runs them the same number of times.
//!
//! Not done: no interprocedural facts (a callable's parameters are divergent, a call's
//! result is), no reasoning about stored values (memory is divergent by space, not by
//! what was stored), no `select` on a divergent condition of equal operands.

use crate::analysis::post_dominators::{PostDomOptions, PostDomTree};
use cranelift_entity::SecondaryMap;
use oxir_ir::ops::EffectClass;
use oxir_ir::types::{AddressSpace, StorageAccess};
use oxir_ir::{
    Block, Builtin, Function, FunctionKind, Inst, Module, Opcode, StageBinding, TypeData, Value,
    ValueDef,
};

/// The uniformity facts of one function.
pub struct Uniformity {
    divergent: SecondaryMap<Value, bool>,
    divergent_block: SecondaryMap<Block, bool>,
}

impl Uniformity {
    /// Computes the facts for `func` of `module`.
    pub fn new(module: &Module, func: &Function) -> Uniformity {
        let mut u = Uniformity {
            divergent: SecondaryMap::new(),
            divergent_block: SecondaryMap::new(),
        };
        let Some(entry) = func.entry_block() else {
            return u;
        };
        for (i, &p) in func.dfg.block_params(entry).iter().enumerate() {
            u.divergent[p] = !entry_param_is_uniform(func, i);
        }
        let postdom = PostDomTree::new(func, PostDomOptions::default());
        let order: Vec<Block> = postdom.cfg().reverse_post_order().collect();
        let mut handled: SecondaryMap<Block, bool> = SecondaryMap::new();
        loop {
            let mut changed = u.propagate_values(module, func, &order);
            for &b in &order {
                if handled[b] || !u.branches_divergently(func, b) {
                    continue;
                }
                handled[b] = true;
                changed |= u.mark_region(func, &postdom, b);
            }
            if !changed {
                break;
            }
        }
        u
    }

    /// Whether `v` is proved the same for every invocation of a workgroup.
    pub fn is_uniform(&self, func: &Function, v: Value) -> bool {
        let v = func.dfg.resolve(v);
        func.dfg.value_is_valid(v) && !self.divergent[v]
    }

    /// Whether `block` is executed uniformly (in no divergent branch's region).
    pub fn is_block_uniform(&self, block: Block) -> bool {
        !self.divergent_block[block]
    }

    fn mark(&mut self, v: Value) -> bool {
        let was = self.divergent[v];
        self.divergent[v] = true;
        !was
    }

    /// One pass over the instructions and edges in reverse post-order.
    fn propagate_values(&mut self, module: &Module, func: &Function, order: &[Block]) -> bool {
        let mut changed = false;
        for &b in order {
            for inst in func.layout.block_insts(b) {
                if let Some(r) = func.dfg.inst_result(inst) {
                    if !self.divergent[r] && self.inst_is_divergent(module, func, inst) {
                        changed |= self.mark(r);
                    }
                }
                for edge in func.dfg.inst(inst).payload.edges() {
                    let params = func.dfg.block_params(edge.block);
                    for (&p, &a) in params.iter().zip(edge.args.iter()) {
                        if !self.divergent[p] && !self.is_uniform(func, a) {
                            changed |= self.mark(p);
                        }
                    }
                }
            }
        }
        changed
    }

    fn inst_is_divergent(&self, module: &Module, func: &Function, inst: Inst) -> bool {
        let data = func.dfg.inst(inst);
        let any_arg = || data.args.iter().any(|&a| !self.is_uniform(func, a));
        match data.opcode.info().effect {
            EffectClass::Pure => {
                if data.opcode.info().family == oxir_ir::OpFamily::SpecialRegister {
                    return register_is_divergent(data.opcode);
                }
                if data.opcode.is_subgroup() {
                    return true;
                }
                any_arg()
            }
            EffectClass::MemoryRead => {
                let Some(&ptr) = data.args.first() else {
                    return true;
                };
                any_arg() || !read_only_memory(module, func, ptr)
            }
            EffectClass::Barrier => false,
            EffectClass::MemoryWrite
            | EffectClass::Atomic
            | EffectClass::ResourceRead
            | EffectClass::ResourceWrite
            | EffectClass::Call
            | EffectClass::Volatile
            | EffectClass::TimeRead
            | EffectClass::Terminator => true,
        }
    }

    /// Whether `b` ends in a multi-way branch on a divergent value.
    fn branches_divergently(&self, func: &Function, b: Block) -> bool {
        let Some(term) = func.terminator(b) else {
            return false;
        };
        let data = func.dfg.inst(term);
        data.payload.edges().len() > 1
            && data
                .args
                .first()
                .is_some_and(|&c| !self.is_uniform(func, c))
    }

    /// Marks the influence region of the divergent branch at `b` (see the module docs).
    fn mark_region(&mut self, func: &Function, postdom: &PostDomTree, b: Block) -> bool {
        let join = postdom.ipdom(b);
        let cfg = postdom.cfg();
        let mut in_region: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut region = Vec::new();
        let mut stack: Vec<Block> = cfg.succs(b).collect();
        while let Some(x) = stack.pop() {
            if Some(x) == join || in_region[x] {
                continue;
            }
            in_region[x] = true;
            region.push(x);
            stack.extend(cfg.succs(x));
        }
        let mut changed = false;
        for &x in &region {
            changed |= !self.divergent_block[x];
            self.divergent_block[x] = true;
        }
        for &x in region.iter().chain(join.iter()) {
            for &p in func.dfg.block_params(x) {
                changed |= self.mark(p);
            }
        }
        // Values defined in the region and used outside it.
        let defined_inside = |v: Value| match func.dfg.value_def(v) {
            ValueDef::Result(i) => func.layout.inst_block(i).is_some_and(|ib| in_region[ib]),
            ValueDef::Param(pb, _) => in_region[pb],
            ValueDef::Const(_) | ValueDef::Global(_) | ValueDef::Alias(_) | ValueDef::Detached => {
                false
            }
        };
        let mut escaping = Vec::new();
        for block in func.layout.blocks() {
            if in_region[block] {
                continue;
            }
            for inst in func.layout.block_insts(block) {
                for v in func.dfg.inst(inst).all_values() {
                    let v = func.dfg.resolve(v);
                    if func.dfg.value_is_valid(v) && !self.divergent[v] && defined_inside(v) {
                        escaping.push(v);
                    }
                }
            }
        }
        for v in escaping {
            changed |= self.mark(v);
        }
        changed
    }
}

/// Whether entry parameter `i` of `func` is the same in every invocation of a workgroup.
fn entry_param_is_uniform(func: &Function, i: usize) -> bool {
    if !matches!(func.kind, FunctionKind::Kernel { .. }) {
        return false;
    }
    match func
        .signature
        .params
        .get(i)
        .and_then(|p| p.binding.as_ref())
    {
        Some(StageBinding::Builtin(b)) => match b {
            Builtin::WorkgroupId
            | Builtin::NumWorkgroups
            | Builtin::SubgroupSize
            | Builtin::NumSubgroups => true,
            Builtin::Position
            | Builtin::VertexIndex
            | Builtin::InstanceIndex
            | Builtin::BaseInstance
            | Builtin::BaseVertex
            | Builtin::FrontFacing
            | Builtin::FragDepth
            | Builtin::SampleIndex
            | Builtin::SampleMask
            | Builtin::PrimitiveIndex
            | Builtin::LocalInvocationId
            | Builtin::LocalInvocationIndex
            | Builtin::GlobalInvocationId
            | Builtin::SubgroupInvocationId
            | Builtin::SubgroupId => false,
        },
        Some(StageBinding::Location { .. }) | None => false,
    }
}

/// Whether a special register may differ between invocations of a workgroup.
fn register_is_divergent(op: Opcode) -> bool {
    match op {
        Opcode::WorkgroupId
        | Opcode::WorkgroupSize
        | Opcode::NumWorkgroups
        | Opcode::DispatchSize
        | Opcode::SubgroupSize
        | Opcode::NumSubgroups
        | Opcode::BaseInstance => false,
        Opcode::ThreadId
        | Opcode::DispatchId
        | Opcode::LocalInvocationIndex
        | Opcode::SubgroupInvocationId
        | Opcode::SubgroupId
        | Opcode::FragCoord
        | Opcode::FrontFacing
        | Opcode::VertexIndex
        | Opcode::InstanceIndex
        | Opcode::SampleIndex
        | Opcode::PrimitiveId => true,
        // wildcard-ok: a register not listed above is divergent, the safe answer.
        _ => true,
    }
}

/// Whether `ptr` points into memory no invocation writes during a dispatch.
fn read_only_memory(module: &Module, func: &Function, ptr: Value) -> bool {
    let ty = func.dfg.value_type(ptr);
    match module.types.try_get(ty) {
        Some(TypeData::Pointer { space, .. }) => match space {
            AddressSpace::Uniform
            | AddressSpace::PushConstant
            | AddressSpace::Handle
            | AddressSpace::Storage(StorageAccess::Read) => true,
            AddressSpace::Function
            | AddressSpace::Private
            | AddressSpace::Workgroup
            | AddressSpace::Storage(StorageAccess::Write | StorageAccess::ReadWrite) => false,
        },
        // wildcard-ok: a load through anything but a pointer is malformed: divergent.
        _ => false,
    }
}

#[cfg(test)]
#[path = "uniformity_tests.rs"]
mod tests;
