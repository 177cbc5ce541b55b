//! `dce`: dead code elimination on structured and plain CFGs.
//!
//! One least fixed point (mark, then sweep) decides which blocks and which instructions
//! stay; everything else is removed at once. Nothing is mutated before the decision.
//!
//! **Kept blocks.** The entry is kept. A kept block keeps
//! - the targets of its terminator's edges;
//! - its terminator's structural roles (merge, loop body, loop update): a merge is not an
//!   edge, and a block that is only structurally owned is still named by a kept structured
//!   terminator (the fixture `dce_preserves_structured_merge_ownership` pins this);
//! - for a `break T` / `continue T`, every block whose construct names `T` as its merge
//!   (`loop`, `simple_loop`, `switch`) / its update block or `simple_loop` body, so the
//!   verifier still finds a construct for the exit.
//!
//! A block defining a value that a *live* instruction uses is kept too. That matters only
//! for kept blocks no edge reaches (role-owned merges): their uses are not dominance-checked,
//! so they may name values of other unreachable blocks. Every other block is removed with
//! its instructions. In a plain CFG the rule is exactly "remove the blocks unreachable from
//! the entry"; in any CFG, removing unreachable blocks leaves the dominator tree of the
//! reachable ones unchanged.
//!
//! **Live instructions.** In a kept block, the roots are the terminator, every instruction
//! whose effects are not [`oxir_ir::effects::MemoryEffects::is_removable_if_unused`]
//! (stores, atomics, calls, barriers, texture writes, `print`, `assert`) and every
//! instruction carrying semantic metadata
//! (`Metadata::is_annotated`). Convergent instructions without other effects
//! (derivatives, implicit-LOD samples) are not roots: removing one whose result nothing
//! uses removes it for every invocation alike, so no other invocation's result changes
//! (moving or duplicating one is what convergence forbids, and `dce` does neither);
//! barriers and `workgroup_uniform_load` stay by their effects. Liveness flows from a live instruction to the definitions of
//! its operands and edge arguments. Unused arithmetic chains, loads, `clock`s, `access`es
//! and allocas are dead unless something live reaches them.
//!
//! **Stores into local allocations** are the exception to "stores are roots": a store whose
//! address is an `alloca` (directly or through a chain of `access`es) waits for that
//! alloca. It becomes live only when the alloca does, that is when some live instruction
//! uses the allocation's pointer other than as a waiting store's address: a live load, an
//! atomic, a call argument, an edge argument, a stored value, a return. An alloca only ever
//! stored to is thus removed with its stores and accesses: nothing can observe what they
//! write. A load that is itself dead does not count, so `store p, v; v2 = load p` with `v2`
//! unused goes entirely. Workgroup allocas follow the same rule (no invocation can read
//! the memory without a load through that pointer). A store through a pointer that comes
//! from a parameter, a global or a block parameter stays a root.
//!
//! Counters: `removed_inst_count` counts instructions removed from kept blocks;
//! instructions of removed blocks are counted only in `removed_block_count`.
//! `removed_alloca_count` counts the allocas among the removed instructions.
//! `scanned_inst_count` (diagnostic) counts the instructions of kept blocks examined.
//!
//! ## What it does not do
//!
//! - **Block parameters are left alone**, even unused ones: an edge argument is live
//!   because its terminator is. Removing parameters and the matching argument of every
//!   edge is `phi-cleanup`'s / dead-argument elimination's job, which keeps this pass from
//!   rewriting terminators.
//! - It does not fold branches, change terminators, insert terminators, or shrink
//!   structured constructs whose arms are empty; an `if` whose merge is unreachable keeps
//!   its merge (it is not turned into `merge none`).
//! - It does not remove stores to allocations that are also read (dead-store elimination),
//!   or calls to functions without side effects (there is no such attribute yet).
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
//! (`v4` is only stored to: it goes with its store, so `v2` and then `v1` are dead;
//! `block1` is unreachable and owned by nobody.)

use crate::pass_info;
use crate::passes::adce::{Control, Need};
use crate::util::{definitions, dense_map};
use cranelift_entity::SecondaryMap;
use oxir_ir::effects::instruction_effects;
use oxir_ir::TerminatorOp;
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, Payload, Value, ValueDef};
use smallvec::SmallVec;

pass_info! {
    pass: "dce",
    /// Counters of `dce`.
    pub struct DceInfo {
        /// Instructions removed from kept blocks.
        removed_inst_count,
        /// Blocks removed, with their instructions.
        removed_block_count,
        /// Allocas removed.
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
    let Some(entry) = function.entry_block() else {
        return info;
    };
    if !function.is_definition() {
        return info;
    }
    let mut marker = Marker::new(module, function);
    marker.run(entry);
    let plan = marker.plan(&mut info);
    apply(&mut module.functions[func], &plan);
    info
}

/// What to remove, decided before the first mutation.
struct Plan {
    dead_blocks: Vec<Block>,
    dead_insts: Vec<Inst>,
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

fn is_annotated(func: &Function, inst: Inst) -> bool {
    func.dfg.metadata(inst).is_some_and(|md| md.is_annotated())
}

/// The joint fixed point over kept blocks and live instructions. `adce` runs the same
/// marker with its control-dependence extension ([`Control`]): then branches and edge
/// arguments are not roots, and block parameters have liveness of their own.
pub(crate) struct Marker<'a> {
    module: &'a Module,
    func: &'a Function,
    pub(crate) kept: SecondaryMap<Block, bool>,
    block_stack: Vec<Block>,
    pub(crate) live: SecondaryMap<Inst, bool>,
    inst_stack: Vec<Inst>,
    /// Stores waiting for their alloca (indexed by the alloca) to become live.
    waiting_stores: SecondaryMap<Inst, SmallVec<[Inst; 2]>>,
    /// Construct owners naming a block as a `break` / `continue` target.
    break_owners: SecondaryMap<Block, SmallVec<[Block; 1]>>,
    continue_owners: SecondaryMap<Block, SmallVec<[Block; 1]>>,
    scanned: u64,
    /// `adce`'s extension; `None` for `dce`.
    pub(crate) control: Option<Control>,
}

impl<'a> Marker<'a> {
    pub(crate) fn new(module: &'a Module, func: &'a Function) -> Self {
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
        Marker {
            module,
            func,
            kept: dense_map(func.dfg.blocks.len()),
            block_stack: Vec::new(),
            live: dense_map(func.dfg.num_insts()),
            inst_stack: Vec::new(),
            waiting_stores: SecondaryMap::new(),
            break_owners,
            continue_owners,
            scanned: 0,
            control: None,
        }
    }

    pub(crate) fn run(&mut self, entry: Block) {
        self.keep(entry);
        self.settle();
    }

    /// Runs the worklists to the least fixed point.
    pub(crate) fn settle(&mut self) {
        loop {
            if let Some(block) = self.block_stack.pop() {
                self.scan_block(block);
            } else if let Some(inst) = self.inst_stack.pop() {
                self.propagate(inst);
            } else if let Some(needs) = self.control.as_mut().and_then(|c| c.step(self.func)) {
                for need in needs {
                    match need {
                        Need::Inst(inst) => self.mark(inst),
                        Need::Value(value) => self.use_value(value),
                    }
                }
            } else {
                break;
            }
        }
    }

    fn keep(&mut self, block: Block) {
        if self.func.layout.is_block_inserted(block) && !self.kept[block] {
            self.kept[block] = true;
            self.block_stack.push(block);
        }
    }

    pub(crate) fn mark(&mut self, inst: Inst) {
        if !self.live[inst] {
            self.live[inst] = true;
            self.inst_stack.push(inst);
            if let (Some(control), Some(block)) =
                (self.control.as_mut(), self.func.layout.inst_block(inst))
            {
                control.make_useful(block);
            }
        }
    }

    /// A newly kept block: its roots become live, its stores into allocas wait, and the
    /// blocks its terminator needs are kept.
    fn scan_block(&mut self, block: Block) {
        let func = self.func;
        for inst in func.layout.block_insts(block) {
            self.scanned += 1;
            let data = func.dfg.inst(inst);
            if data.opcode.is_terminator() {
                if self.control.is_none() || self.is_root(inst) {
                    self.mark(inst);
                }
                self.keep_terminator_needs(inst);
            } else if let Some(alloca) = self.store_target_alloca(inst) {
                if self.live[alloca] {
                    self.mark(inst);
                } else {
                    self.waiting_stores[alloca].push(inst);
                }
            } else if self.is_root(inst) {
                self.mark(inst);
            }
        }
    }

    fn keep_terminator_needs(&mut self, term: Inst) {
        let data = self.func.dfg.inst(term);
        for edge in data.payload.edges() {
            self.keep(edge.block);
        }
        for role in data.payload.roles() {
            self.keep(role);
        }
        let owners = match (data.opcode.terminator_op(), &data.payload) {
            (Some(TerminatorOp::Break), Payload::Jump(edge)) => {
                self.break_owners[edge.block].clone()
            }
            (Some(TerminatorOp::Continue), Payload::Jump(edge)) => {
                self.continue_owners[edge.block].clone()
            }
            // Only `break` and `continue` need their construct kept; one without a jump
            // payload is malformed (the verifier rejects it) and keeps nothing more.
            (
                Some(
                    TerminatorOp::Br
                    | TerminatorOp::CondBr
                    | TerminatorOp::SwitchBr
                    | TerminatorOp::Return
                    | TerminatorOp::Unreachable
                    | TerminatorOp::Discard
                    | TerminatorOp::If
                    | TerminatorOp::Loop
                    | TerminatorOp::SimpleLoop
                    | TerminatorOp::Switch
                    | TerminatorOp::Break
                    | TerminatorOp::Continue,
                )
                | None,
                _,
            ) => SmallVec::new(),
        };
        for owner in owners {
            self.keep(owner);
        }
    }

    /// Whether `inst` must stay regardless of uses (stores into allocas aside).
    fn is_root(&self, inst: Inst) -> bool {
        let opcode = self.func.dfg.inst(inst).opcode;
        if let (Some(op), Some(_)) = (opcode.terminator_op(), &self.control) {
            return Control::is_root_terminator(op) || is_annotated(self.func, inst);
        }
        opcode.is_terminator()
            || !instruction_effects(self.module, self.func, inst).is_removable_if_unused()
            || is_annotated(self.func, inst)
    }

    /// For an unannotated `store` whose address is an alloca or an `access` chain into
    /// one, that alloca.
    fn store_target_alloca(&self, inst: Inst) -> Option<Inst> {
        let dfg = &self.func.dfg;
        let data = dfg.inst(inst);
        if data.opcode != Opcode::Store || is_annotated(self.func, inst) {
            return None;
        }
        let mut pointer: Value = *data.args.first()?;
        // Bounded by the number of instructions, so a malformed cycle cannot hang.
        for _ in 0..=dfg.num_insts() {
            let ValueDef::Result(def) = dfg.value_def(pointer) else {
                return None;
            };
            let def_data = dfg.inst(def);
            match def_data.opcode {
                Opcode::Alloca => return Some(def),
                Opcode::Access => pointer = *def_data.args.first()?,
                // Conservative: a pointer with any other origin (a parameter, a call or a
                // load result, a new pointer-producing op) is not known to be a local
                // slot, so its stores are kept.
                // wildcard-ok: a query about two named ops; every other op answers "no".
                _ => return None,
            }
        }
        None
    }

    /// A newly live instruction: the definitions it reads become live (their blocks kept),
    /// and an alloca releases the stores waiting for it.
    fn propagate(&mut self, inst: Inst) {
        let func = self.func;
        let data = func.dfg.inst(inst);
        if self.control.is_some() && data.opcode.is_terminator() {
            // Edge arguments live only through the parameters they feed.
            for &value in &data.args {
                self.use_value(value);
            }
        } else {
            for value in data.all_values() {
                self.use_value(value);
            }
        }
        if data.opcode == Opcode::Alloca {
            for store in std::mem::take(&mut self.waiting_stores[inst]) {
                self.mark(store);
            }
        }
    }

    /// A live instruction reads `value`: its definition (through aliases) becomes live
    /// (its block kept).
    fn use_value(&mut self, value: Value) {
        let func = self.func;
        let value = func.dfg.resolve(value);
        match func.dfg.value_def(value) {
            ValueDef::Result(def) => {
                self.mark(def);
                if let Some(block) = func.layout.inst_block(def) {
                    self.keep(block);
                }
            }
            ValueDef::Param(block, _) => {
                self.keep(block);
                if let Some(control) = self.control.as_mut() {
                    control.mark_param(value);
                }
            }
            ValueDef::Const(_) | ValueDef::Global(_) | ValueDef::Alias(_) | ValueDef::Detached => {}
        }
    }

    fn plan(&self, info: &mut DceInfo) -> Plan {
        let mut dead_blocks = Vec::new();
        let mut dead_insts = Vec::new();
        for block in self.func.layout.blocks() {
            if !self.kept[block] {
                dead_blocks.push(block);
                continue;
            }
            for inst in self.func.layout.block_insts(block) {
                if !self.live[inst] {
                    dead_insts.push(inst);
                    if self.func.dfg.inst(inst).opcode == Opcode::Alloca {
                        info.removed_alloca_count += 1;
                    }
                }
            }
        }
        info.removed_inst_count = dead_insts.len() as u64;
        info.removed_block_count = dead_blocks.len() as u64;
        info.scanned_inst_count = self.scanned;
        Plan {
            dead_blocks,
            dead_insts,
        }
    }
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
        assert!(
            text.contains("block6:") && !text.contains("block8:"),
            "{text}"
        );
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
        assert!(
            text.contains("block4:") && !text.contains("block5:"),
            "{text}"
        );
    }

    #[test]
    fn long_dead_chain_is_removed_in_one_run() {
        // 50,000 dependent instructions feeding nothing: one mark phase, no rescans.
        let n = 50_000;
        let mut text =
            String::from("const c0: i32 = 1\ncallable @f(i32) -> i32 {\nblock0(v0: i32):\n");
        for i in 1..=n {
            text.push_str(&format!("    v{i}: i32 = add v{}, c0\n", i - 1));
        }
        text.push_str("    return v0\n}\n");
        let start = std::time::Instant::now();
        let (info, _) = run(&text);
        assert_eq!(info.removed_inst_count, n as u64);
        assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
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
