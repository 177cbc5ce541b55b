//! `dce`: dead code elimination on structured and plain CFGs.
//!
//! Three removals, computed from the function as it is and then applied at once:
//!
//! 1. **Blocks no longer needed.** A block is kept when it is reachable from the entry
//!    through executable edges *or* structural roles, closed under the rules below; every
//!    other block is removed with its instructions. Starting from the entry, a kept block
//!    keeps
//!    - the targets of its terminator's edges;
//!    - its terminator's structural roles (merge, loop body, loop update): a merge is not an
//!      edge, and a block that is only structurally owned is still named by a kept
//!      structured terminator (`reference/luisa_xir.md` §10.4.1; the fixture
//!      `dce_preserves_structured_merge_ownership` pins this);
//!    - for a `break T` / `continue T`, the blocks whose construct names `T` as its merge
//!      (loop, simple loop, switch) / its update block or simple-loop body, so the verifier
//!      still finds a construct for the exit;
//!    - the blocks defining the values its instructions use. Only matters for kept blocks
//!      that are unreachable (role-owned): their uses are not dominance-checked, so they
//!      may name values of other unreachable blocks.
//!
//!    In a plain CFG this is exactly "remove the blocks unreachable from the entry".
//!    Removing unreachable blocks never changes the dominator tree of the reachable ones.
//!
//! 2. **Dead allocas.** An `alloca` whose pointer (directly or through `access` chains) is
//!    only ever the *address* operand of `store`s is removed with those `access`es and
//!    `store`s: nothing can observe what they write. Any other use (a load, an atomic, a
//!    call argument, an edge argument, a return, a stored *value*, ...) keeps it. Workgroup
//!    allocas follow the same rule: no invocation can read the memory without a load
//!    through that pointer.
//!
//! 3. **Dead instructions**, as a least fixed point (mark and sweep): the roots are the
//!    terminators of kept blocks, every instruction whose effects are not
//!    [`oxir_ir::effects::MemoryEffects::is_removable_if_unused`] (stores, atomics, calls,
//!    barriers, texture writes, `print`, `assert`), every convergent instruction
//!    (derivatives, implicit-LOD texture samples: kept even when unused, conservatively), and
//!    every instruction carrying semantic metadata (`Metadata::is_annotated`); liveness
//!    flows from a live instruction to the definitions of its operands and edge arguments.
//!    Everything in a kept block left unmarked is removed: unused arithmetic chains, loads,
//!    `clock`s, `access`es, allocas with no use at all.
//!
//! Counters: `removed_inst_count` counts instructions removed from kept blocks (dead ones
//! and the members of dead-alloca groups); instructions of removed blocks are counted only
//! in `removed_block_count`. `removed_alloca_count` counts the allocas among the removed
//! instructions. `scanned_inst_count` is a diagnostic: the instructions of kept blocks the
//! pass examined.
//!
//! ## What it does not do
//!
//! - **Block parameters are left alone**, even unused ones: an edge argument is live
//!   because its terminator is. Removing parameters and the matching arguments of every
//!   edge is `phi-cleanup`'s / dead-argument elimination's job, which keeps this pass from
//!   rewriting terminators.
//! - It does not fold branches, change terminators, insert terminators, or shrink
//!   structured constructs whose arms are empty; an `if` whose merge is unreachable keeps
//!   its merge (it is not turned into `merge none`).
//! - It does not remove stores to allocas that are also loaded (dead-store elimination), or
//!   calls to functions without side effects (there is no such attribute yet).
//! - Unreachable blocks are removed whole, semantic metadata and all: code that never runs
//!   has nothing to preserve.
//!
//! ## Example
//!
//! ```text
//! callable @f(i32) -> i32 {           callable @f(i32) -> i32 {
//! block0(v0: i32):                    block0(v0: i32):
//!     v1: i32 = mul v0, v0                v3: i32 = add v0, v0
//!     v2: i32 = add v1, v0       ==>      return v3
//!     v3: i32 = add v0, v0            }
//!     v4: ptr<function, i32> = alloca
//!     store v4, v2
//!     return v3
//! block1:
//!     return v0
//! }
//! ```
//! (`v4` is only stored to: it goes with its store, which makes `v2` and then `v1` dead;
//! `block1` is unreachable and owned by nobody.)

use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::SecondaryMap;
use oxir_ir::effects::{instruction_effects, is_convergent};
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, Payload, Value, ValueDef};
use smallvec::SmallVec;

pass_info! {
    /// Counters of `dce` (`reference/luisa_xir.md` §4.2).
    pub struct DceInfo {
        /// Instructions removed from kept blocks.
        removed_inst_count,
        /// Blocks removed, with their instructions.
        removed_block_count,
        /// Allocas removed (dead-alloca groups and unused allocas).
        removed_alloca_count,
        /// Diagnostic: instructions of kept blocks examined.
        scanned_inst_count,
    }
    changed_by: [removed_inst_count, removed_block_count, removed_alloca_count]
}

/// Runs `dce` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> DceInfo {
    let mut info = DceInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `dce` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> DceInfo {
    let mut info = DceInfo::default();
    let Some(function) = module.functions.get(func) else {
        return info;
    };
    if !function.is_definition() || function.entry_block().is_none() {
        return info;
    }
    let plan = plan(module, function, &mut info);
    apply(&mut module.functions[func], &plan);
    info
}

/// What to remove, decided before the first mutation.
struct Plan {
    dead_blocks: Vec<Block>,
    dead_insts: Vec<Inst>,
}

fn plan(module: &Module, func: &Function, info: &mut DceInfo) -> Plan {
    let kept = kept_blocks(func);
    let kept_list: Vec<Block> = func.layout.blocks().filter(|&b| kept[b]).collect();
    let dead_blocks: Vec<Block> = func.layout.blocks().filter(|&b| !kept[b]).collect();

    let doomed = dead_alloca_groups(func, &kept_list);

    // Mark: roots, then operands of live instructions.
    let mut live: SecondaryMap<Inst, bool> = SecondaryMap::new();
    let mut worklist: Vec<Inst> = Vec::new();
    for &block in &kept_list {
        for inst in func.layout.block_insts(block) {
            info.scanned_inst_count += 1;
            if !doomed[inst] && is_root(module, func, inst) {
                live[inst] = true;
                worklist.push(inst);
            }
        }
    }
    while let Some(inst) = worklist.pop() {
        for value in func.dfg.inst(inst).all_values() {
            if let ValueDef::Result(def) = func.dfg.value_def(value) {
                if !live[def] {
                    live[def] = true;
                    worklist.push(def);
                }
            }
        }
    }

    // Sweep.
    let mut dead_insts = Vec::new();
    for &block in &kept_list {
        for inst in func.layout.block_insts(block) {
            if !live[inst] {
                dead_insts.push(inst);
                if func.dfg.inst(inst).opcode == Opcode::Alloca {
                    info.removed_alloca_count += 1;
                }
            }
        }
    }
    info.removed_inst_count = dead_insts.len() as u64;
    info.removed_block_count = dead_blocks.len() as u64;
    Plan {
        dead_blocks,
        dead_insts,
    }
}

fn apply(func: &mut Function, plan: &Plan) {
    for &inst in &plan.dead_insts {
        func.remove_inst(inst);
    }
    for &block in &plan.dead_blocks {
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        for inst in insts {
            func.remove_inst(inst);
        }
        func.layout.remove_block(block);
    }
}

/// Whether `inst` must stay regardless of uses.
fn is_root(module: &Module, func: &Function, inst: Inst) -> bool {
    let opcode = func.dfg.inst(inst).opcode;
    opcode.is_terminator()
        || is_convergent(opcode)
        || !instruction_effects(module, func, inst).is_removable_if_unused()
        || is_annotated(func, inst)
}

fn is_annotated(func: &Function, inst: Inst) -> bool {
    func.dfg.metadata(inst).is_some_and(|md| md.is_annotated())
}

/// The blocks to keep (see the module docs, point 1).
fn kept_blocks(func: &Function) -> SecondaryMap<Block, bool> {
    // Which construct owners name a block as a `break` / `continue` target.
    let mut break_owners: SecondaryMap<Block, SmallVec<[Block; 1]>> = SecondaryMap::new();
    let mut continue_owners: SecondaryMap<Block, SmallVec<[Block; 1]>> = SecondaryMap::new();
    for block in func.layout.blocks() {
        let Some(term) = func.terminator(block) else {
            continue;
        };
        match &func.dfg.inst(term).payload {
            Payload::Loop { update, merge, .. } => {
                break_owners[*merge].push(block);
                continue_owners[*update].push(block);
            }
            Payload::SimpleLoop { body, merge } => {
                break_owners[*merge].push(block);
                continue_owners[body.block].push(block);
            }
            Payload::Switch { merge, .. } => break_owners[*merge].push(block),
            Payload::None
            | Payload::Indices(_)
            | Payload::Callee(_)
            | Payload::Message(_)
            | Payload::Jump(_)
            | Payload::CondBranch { .. }
            | Payload::SwitchBranch(_)
            | Payload::If { .. } => {}
        }
    }

    let mut kept: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut stack: Vec<Block> = Vec::new();
    let keep = |block: Block, kept: &mut SecondaryMap<Block, bool>, stack: &mut Vec<Block>| {
        if func.layout.is_block_inserted(block) && !kept[block] {
            kept[block] = true;
            stack.push(block);
        }
    };
    if let Some(entry) = func.entry_block() {
        keep(entry, &mut kept, &mut stack);
    }
    while let Some(block) = stack.pop() {
        for inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            for value in data.all_values() {
                match func.dfg.value_def(value) {
                    ValueDef::Result(def) => {
                        if let Some(def_block) = func.layout.inst_block(def) {
                            keep(def_block, &mut kept, &mut stack);
                        }
                    }
                    ValueDef::Param(def_block, _) => keep(def_block, &mut kept, &mut stack),
                    ValueDef::Const(_)
                    | ValueDef::Global(_)
                    | ValueDef::Alias(_)
                    | ValueDef::Detached => {}
                }
            }
            if !data.opcode.is_terminator() {
                continue;
            }
            for edge in data.payload.edges() {
                keep(edge.block, &mut kept, &mut stack);
            }
            for role in data.payload.roles() {
                keep(role, &mut kept, &mut stack);
            }
            let owners = match (&data.payload, data.opcode) {
                (Payload::Jump(edge), Opcode::Break) => break_owners[edge.block].clone(),
                (Payload::Jump(edge), Opcode::Continue) => continue_owners[edge.block].clone(),
                _ => SmallVec::new(),
            };
            for owner in owners {
                keep(owner, &mut kept, &mut stack);
            }
        }
    }
    kept
}

/// Finds allocas only ever stored to (see the module docs, point 2) and returns the
/// instructions of those groups: allocas, accesses and stores.
fn dead_alloca_groups(func: &Function, kept_blocks: &[Block]) -> SecondaryMap<Inst, bool> {
    let mut doomed: SecondaryMap<Inst, bool> = SecondaryMap::new();
    let is_pointer_source = |value: Value| match func.dfg.value_def(value) {
        ValueDef::Result(inst) => matches!(
            func.dfg.inst(inst).opcode,
            Opcode::Alloca | Opcode::Access
        ),
        _ => false,
    };
    // Users of every alloca / access result, from kept blocks only (removed blocks go
    // away with their uses).
    let mut users: SecondaryMap<Value, SmallVec<[Inst; 2]>> = SecondaryMap::new();
    let mut allocas: Vec<Inst> = Vec::new();
    for &block in kept_blocks {
        for inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            if data.opcode == Opcode::Alloca {
                allocas.push(inst);
            }
            for value in data.all_values() {
                let value = func.resolve(value);
                if is_pointer_source(value) {
                    let list = &mut users[value];
                    // An instruction naming the same pointer twice is listed once.
                    if list.last() != Some(&inst) {
                        list.push(inst);
                    }
                }
            }
        }
    }

    let mut group: Vec<Inst> = Vec::new();
    let mut pointers: Vec<Value> = Vec::new();
    for alloca in allocas {
        let Some(result) = func.dfg.inst_result(alloca) else {
            continue;
        };
        if is_annotated(func, alloca) || users[result].is_empty() {
            // Unused allocas are plain dead instructions; annotated ones stay.
            continue;
        }
        group.clear();
        group.push(alloca);
        pointers.clear();
        pointers.push(result);
        let mut escapes = false;
        while let Some(pointer) = pointers.pop() {
            for &user in &users[pointer] {
                let data = func.dfg.inst(user);
                let is_pointer = |v: &Value| func.resolve(*v) == pointer;
                let only_as_address = data.args.first().is_some_and(is_pointer)
                    && !data.args[1..].iter().any(is_pointer)
                    && data.payload.edges().is_empty()
                    && !is_annotated(func, user);
                match data.opcode {
                    Opcode::Store if only_as_address => group.push(user),
                    Opcode::Access if only_as_address => {
                        group.push(user);
                        pointers.extend(func.dfg.inst_result(user));
                    }
                    _ => escapes = true,
                }
                if escapes {
                    break;
                }
            }
            if escapes {
                break;
            }
        }
        if !escapes {
            for &inst in &group {
                doomed[inst] = true;
            }
        }
    }
    doomed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PassInfo;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    fn run(text: &str) -> (DceInfo, String) {
        let mut module = parse_module(text).expect("test input parses");
        let report = verify_module(&module, &VerifierOptions::default());
        assert!(report.succeeded(), "{report}");
        let before = print_module(&module, View::Flat);
        let info = run_on_module(&mut module);
        let after = print_module(&module, View::Flat);
        let report = verify_module(&module, &VerifierOptions::default());
        assert!(report.succeeded(), "{report}\n{after}");
        assert_eq!(info.changed(), before != after, "{info:?}\n{after}");
        let again = run_on_module(&mut module);
        assert!(!again.changed(), "second run: {again:?}");
        (info, after)
    }

    #[test]
    fn break_in_kept_block_keeps_its_construct() {
        // block1 is unreachable but is the merge of the entry's `if` (kept). Its `break`
        // targets block4, the merge of the `simple_loop` ending block6, which nothing else
        // keeps: block6 (and its body block7) must stay for the `break` to have a construct.
        let (info, text) = run("
kernel @k() workgroup_size(1, 1, 1) {
block0:
    v0: bool = front_facing
    if v0, then block2, else block5, merge block1
block1:
    break block4
block2:
    return
block4:
    return
block5:
    return
block6:
    simple_loop body block7, merge block4
block7:
    break block4
block8:
    return
}
");
        assert_eq!(info.removed_block_count, 1, "{text}");
        assert!(text.contains("block6:") && !text.contains("block8:"), "{text}");
    }

    #[test]
    fn kept_unreachable_block_keeps_the_definitions_it_uses() {
        // block3 is an unreachable merge; it uses v1 from block4, which is unreachable and
        // owned by nobody. block4 must stay, or v1 would be undefined.
        let (info, text) = run("
const c0: i32 = 1
callable @f(bool) -> i32 {
block0(v0: bool):
    if v0, then block1, else block2, merge block3
block1:
    return c0
block2:
    return c0
block3:
    return v1
block4:
    v1: i32 = add c0, c0
    return v1
block5:
    return c0
}
");
        assert_eq!(info.removed_block_count, 1, "{text}");
        assert!(text.contains("block4:") && !text.contains("block5:"), "{text}");
    }

    #[test]
    fn pointer_passed_on_an_edge_escapes() {
        let (info, text) = run("
const c0: i32 = 1
callable @f() {
block0:
    v0: ptr<function, i32> = alloca
    store v0, c0
    br block1(v0)
block1(v1: ptr<function, i32>):
    return
}
");
        assert_eq!(info.removed_alloca_count, 0, "{text}");
        assert!(!info.changed(), "{text}");
    }

    #[test]
    fn access_chain_into_a_stored_only_alloca_is_removed() {
        let (info, text) = run("
const c0: u32 = 1
const c1: f32 = 2.0
callable @f(u32) {
block0(v0: u32):
    v1: ptr<function, array<vec2<f32>, 4>> = alloca
    v2: ptr<function, vec2<f32>> = access v1, v0
    v3: ptr<function, f32> = access v2, c0
    store v3, c1
    return
}
");
        assert_eq!(
            (info.removed_inst_count, info.removed_alloca_count),
            (4, 1),
            "{text}"
        );
    }
}
