//! The last steps: dominance repair, a check that nothing unstructured is left, and the
//! structured block order.

use super::loops::{LoopForm, LoopNest};
use super::{Ctx, Failure};
use cranelift_entity::SecondaryMap;
use oxir_ir::{
    AddressSpace, Block, Inst, InstData, Metadata, Opcode, Payload, TypeData, Value, ValueDef,
};

/// The comment on the slots that carry values whose definition no longer dominates a use.
pub const REPAIR_SLOT_COMMENT: &str = "restructure-cfg dominance repair";

/// Whether a value of type `ty` can live in a function-space slot (not a pointer or a
/// resource).
pub fn is_storable(module: &oxir_ir::Module, ty: oxir_ir::Type) -> bool {
    matches!(
        module.types.try_get(ty),
        Some(
            TypeData::Scalar(_)
                | TypeData::Vector { .. }
                | TypeData::Matrix { .. }
                | TypeData::Array { .. }
                | TypeData::Struct(_)
        )
    )
}

/// Carries every value whose definition no longer dominates one of its uses through a
/// function-space slot: a store after the definition, a load before each such use.
///
/// Restructuring keeps the order in which the original blocks execute on every path, so
/// the definition still runs before each use; only the dominator tree changed (a use after
/// one exit of a multi-exit loop is now reached through the dispatch). Fails for values
/// that cannot live in memory (pointers, resources).
///
/// When the input had no cross-block uses besides values of the entry block
/// ([`Ctx::cross_block_uses`]), nothing can be broken and release builds skip the scan;
/// debug builds (and so the tests) scan anyway and report a broken use as an internal
/// error.
pub fn repair_dominance(ctx: &mut Ctx) -> Result<(), Failure> {
    let must_be_intact = !ctx.cross_block_uses;
    if must_be_intact && !cfg!(debug_assertions) {
        return Ok(());
    }
    let analysis = ctx.analyze();
    let (cfg, tree) = (&analysis.cfg, &analysis.tree);
    let function = ctx.function();
    let mut broken: Vec<Value> = Vec::new();
    let mut is_broken: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut sites: Vec<(Inst, usize, Value)> = Vec::new();
    for &n in cfg.rpo_numbers() {
        let block = cfg.block(n);
        for inst in function.layout.block_insts(block) {
            let data = function.dfg.inst(inst);
            for (k, &arg) in data.args.iter().enumerate() {
                let value = function.dfg.resolve(arg);
                let ValueDef::Result(def) = function.dfg.value_def(value) else {
                    continue;
                };
                let Some(def_block) = function.layout.inst_block(def) else {
                    continue;
                };
                if def_block == block {
                    continue;
                }
                let def_number = cfg.number(def_block).ok_or(Failure::Internal)?;
                if tree.dominates(def_number, n) {
                    continue;
                }
                sites.push((inst, k, value));
                if !is_broken[value] {
                    is_broken[value] = true;
                    broken.push(value);
                }
            }
            // Edge arguments only go to block parameters, which only the entry has, and
            // the entry is never a target.
            if data.payload.edges().iter().any(|e| !e.args.is_empty()) {
                return Err(Failure::Internal);
            }
        }
    }
    ctx.info.dominance_query_count += tree.take_query_count();
    if broken.is_empty() {
        return Ok(());
    }
    if must_be_intact {
        return Err(Failure::Internal);
    }
    for &value in &broken {
        let ty = ctx.function().dfg.value_type(value);
        if !is_storable(ctx.module, ty) {
            // Broken values are instruction results (see the scan above).
            let def_block = match ctx.function().dfg.value_def(value) {
                ValueDef::Result(def) => ctx.function().layout.inst_block(def),
                ValueDef::Param(..)
                | ValueDef::Const(_)
                | ValueDef::Global(_)
                | ValueDef::Alias(_)
                | ValueDef::Detached => None,
            };
            return Err(Failure::Undemotable(def_block));
        }
    }
    let mut slots: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    for &value in &broken {
        let ty = ctx.function().dfg.value_type(value);
        let ptr_ty = ctx.module.types.pointer(AddressSpace::Function, ty);
        let function = ctx.function_mut();
        let entry = function.entry_block().ok_or(Failure::Internal)?;
        let alloca = function.dfg.make_inst(InstData::new(Opcode::Alloca, &[]));
        let slot = function.dfg.make_result(alloca, ptr_ty);
        function.layout.prepend_inst(alloca, entry);
        let mut metadata = Metadata::default();
        metadata.comments.push(REPAIR_SLOT_COMMENT.to_string());
        function.dfg.set_metadata(alloca, metadata);
        let ValueDef::Result(def) = function.dfg.value_def(value) else {
            return Err(Failure::Internal);
        };
        let store = function
            .dfg
            .make_inst(InstData::new(Opcode::Store, &[slot, value]));
        function.layout.insert_inst_after(store, def);
        slots[value] = Some(slot);
    }
    // One load per block and value, before its first use there (sites come in block order,
    // and in instruction order within a block).
    let mut loaded_in: SecondaryMap<Value, Option<(Block, Value)>> = SecondaryMap::new();
    for (inst, k, value) in sites {
        let block = ctx
            .function()
            .layout
            .inst_block(inst)
            .ok_or(Failure::Internal)?;
        let loaded = match loaded_in[value] {
            Some((b, loaded)) if b == block => loaded,
            _ => {
                let slot = slots[value].ok_or(Failure::Internal)?;
                let ty = ctx.function().dfg.value_type(value);
                let loaded = ctx
                    .insert_before(inst, InstData::new(Opcode::Load, &[slot]), Some(ty))
                    .ok_or(Failure::Internal)?;
                loaded_in[value] = Some((block, loaded));
                loaded
            }
        };
        ctx.function_mut().dfg.inst_mut(inst).args[k] = loaded;
    }
    ctx.info.demoted_value_count += broken.len() as u64;
    Ok(())
}

/// Fails when a block lacks a terminator or ends in a `switch_br` or a `cond_br` other than
/// a loop prepare block's `cond_br c, body, merge`.
pub fn check_structured(ctx: &Ctx, nest: &LoopNest) -> Result<(), Failure> {
    let function = ctx.function();
    for block in function.layout.blocks() {
        let term = function.terminator(block).ok_or(Failure::Internal)?;
        match &function.dfg.inst(term).payload {
            Payload::SwitchBranch(_) => return Err(Failure::Internal),
            Payload::CondBranch {
                then_dest,
                else_dest,
            } => {
                let data = nest
                    .counted_loop_of_prepare(block)
                    .ok_or(Failure::Internal)?;
                let LoopForm::Counted { body, .. } = data.form else {
                    return Err(Failure::Internal);
                };
                if then_dest.block != body || else_dest.block != data.merge {
                    return Err(Failure::Internal);
                }
            }
            Payload::None
            | Payload::Indices(_)
            | Payload::Callee(_)
            | Payload::Message(_)
            | Payload::Jump(_)
            | Payload::If { .. }
            | Payload::Loop { .. }
            | Payload::SimpleLoop { .. }
            | Payload::Switch { .. } => {}
        }
    }
    Ok(())
}

/// Lays the blocks out in structured order: each construct's block, its arms (or prepare,
/// body and update) with everything they contain, then its merge; a plain `br` is followed
/// unless its target has a role (a merge or update block comes after its construct).
/// Blocks this walk does not reach keep their relative order at the end.
pub fn lay_out_structured(ctx: &mut Ctx) {
    let function = ctx.function();
    let Some(entry) = function.entry_block() else {
        return;
    };
    let mut has_role: SecondaryMap<Block, bool> = SecondaryMap::new();
    for block in function.layout.blocks() {
        if let Some(term) = function.terminator(block) {
            let payload = &function.dfg.inst(term).payload;
            for role in payload.roles() {
                has_role[role] = true;
            }
        }
    }
    let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut order: Vec<Block> = Vec::with_capacity(function.layout.block_count());
    let mut stack = vec![entry];
    while let Some(block) = stack.pop() {
        if visited[block] || !function.layout.is_block_inserted(block) {
            continue;
        }
        visited[block] = true;
        order.push(block);
        let Some(term) = function.terminator(block) else {
            continue;
        };
        let payload = &function.dfg.inst(term).payload;
        let next: Vec<Block> = match payload {
            Payload::If { merge, .. } => {
                let mut next: Vec<Block> = payload.edges().iter().map(|e| e.block).collect();
                next.extend(*merge);
                next
            }
            Payload::Switch { merge, .. } => {
                let mut next: Vec<Block> = payload.edges().iter().map(|e| e.block).collect();
                next.push(*merge);
                next
            }
            Payload::Loop {
                prepare,
                body,
                update,
                merge,
            } => vec![prepare.block, *body, *update, *merge],
            Payload::SimpleLoop { body, merge } => vec![body.block, *merge],
            Payload::Jump(dest) if !has_role[dest.block] => vec![dest.block],
            // A role-owned jump target is placed by its construct; the only `cond_br` left
            // is a loop prepare's, whose targets (body, merge) come with its loop; no
            // `switch_br` is left (`check_structured`); the rest have no successors.
            Payload::Jump(_)
            | Payload::CondBranch { .. }
            | Payload::SwitchBranch(_)
            | Payload::None
            | Payload::Indices(_)
            | Payload::Callee(_)
            | Payload::Message(_) => Vec::new(),
        };
        stack.extend(next.into_iter().rev());
    }
    let rest: Vec<Block> = function.layout.blocks().filter(|&b| !visited[b]).collect();
    order.extend(rest);
    let layout = &mut ctx.function_mut().layout;
    for &block in &order {
        layout.remove_block(block);
    }
    for &block in &order {
        layout.append_block(block);
    }
}
