//! `gvn`: dominator-scoped global value numbering of pure instructions and loads, with
//! store-to-load forwarding.
//!
//! One walk over the dominator tree in preorder keeps a scoped table of the expressions
//! available at the current block: everything computed in the block's dominators. An
//! instruction whose expression is already available is replaced by the earlier value and
//! removed. Decisions are made first (on an unchanged function, with a leader per
//! replaced value), then applied at once.
//!
//! **Expressions** are the opcode, result type, payload (literal indices) and leader
//! operands of instructions [`oxir_ir::effects::is_safe_to_value_number`] admits — pure,
//! not convergent, not `alloca` — and carrying no semantic metadata. `access` chains and
//! special-register reads are expressions like any other. Operands of commutative
//! opcodes ([`oxir_ir::Opcode::is_commutative`]) are ordered, so `add a, b` and
//! `add b, a` are one expression.
//!
//! **Invariant loads** are expressions too: a load whose memory no invocation can change
//! during the function — uniform, push-constant, read-only storage and handle memory,
//! and any other memory whose root object ([`crate::analysis::alias`]) this function
//! never writes, when the function has no call, no store or atomic through a pointer of
//! unknown provenance in that address space, and (for workgroup and storage memory) no
//! barrier that could make another invocation's writes visible.
//!
//! **Other loads** use memory facts: "the bytes at pointer P hold value V", recorded by
//! every load and store. A later load through a pointer that must alias P
//! ([`crate::analysis::alias::alias`]) with V's type reads V (a store's value is
//! forwarded). A store or atomic kills the facts it may alias; a call or a barrier kills
//! every fact. Facts flow from a block into a dominator-tree child only when that child
//! has the block as its single predecessor; a join or loop header starts without them.
//! Only the newest [`FACT_WINDOW`] facts of a block are consulted, so a block of n memory
//! operations costs O(n · window), not O(n²). The expression key and table are
//! [`crate::analysis::value_table`]'s, the fact table [`crate::analysis::memory_facts`]'s
//! (shared with `early-cse` and the block-local memory passes).
//!
//! Counters: `replaced_pure_count` (pure expressions and invariant loads),
//! `replaced_load_count` (loads answered by an earlier load), `forwarded_store_count`
//! (loads answered by an earlier store), `scanned_inst_count` (diagnostic).
//!
//! ## What it does not do
//!
//! - It does not remove instructions that become dead (`dce` does) or fold constants
//!   (`const-fold`); it does not eliminate dead stores or hoist out of loops.
//! - It does not number block parameters or phi-like joins (`phi-cleanup`), or merge
//!   values that are equal on every path but computed in sibling blocks (no partial
//!   redundancy elimination): the earlier computation must dominate.
//! - It never merges convergent operations (derivatives, implicit-LOD samples), texture
//!   reads, atomics, `clock`, or allocations, and never moves any instruction.
//!
//! ## Example
//!
//! ```text
//! v1: ptr<uniform, f32> = access @u, c0      v1: ptr<uniform, f32> = access @u, c0
//! v2: f32 = load v1                          v2: f32 = load v1
//! v3: ptr<uniform, f32> = access @u, c0 ==>  v5: f32 = mul v2, v2
//! v4: f32 = load v3
//! v5: f32 = mul v2, v4
//! ```

use crate::analysis::alias::{PointerPath, Root};
use crate::analysis::dominators::DomTree;
use crate::analysis::memory_facts::{FactMark, FactSource, FactTable, MemoryEvent};
use crate::analysis::value_table::{ExprMark, ExprTable, Replacements};
use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::SecondaryMap;
use oxir_ir::effects::is_safe_to_value_number;
use oxir_ir::ops::EffectClass;
use oxir_ir::types::{AddressSpace, StorageAccess};
use oxir_ir::{Block, Func, Function, Global, Inst, Module, Value};
use smallvec::SmallVec;

pub use crate::analysis::memory_facts::FACT_WINDOW;

pass_info! {
    pass: "gvn",
    /// What `gvn` did.
    pub struct GvnInfo {
        /// Pure instructions and invariant loads replaced by an earlier equal value.
        replaced_pure_count,
        /// Loads replaced by the result of an earlier load of the same memory.
        replaced_load_count,
        /// Loads replaced by the value an earlier store wrote to the same memory.
        forwarded_store_count,
        /// Instructions examined (diagnostic).
        scanned_inst_count,
    }
    changed_by: [replaced_pure_count, replaced_load_count, forwarded_store_count]
}

/// Runs [`run_on_function`] on every function with a body.
pub fn run_on_module(module: &mut Module) -> GvnInfo {
    let mut info = GvnInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Value-numbers one function.
pub fn run_on_function(module: &mut Module, func: Func) -> GvnInfo {
    let mut info = GvnInfo::default();
    let replacements = {
        let f = &module.functions[func];
        let Some(entry) = f.layout.entry_block() else {
            return info;
        };
        let mut walk = Walk::new(module, f);
        walk.run(entry, &mut info);
        walk.replacements
    };
    replacements.apply(&mut module.functions[func]);
    info
}

/// What a block's dominator-tree scope added, to undo when the walk leaves it.
struct Frame {
    block: Block,
    exprs: ExprMark,
    facts: FactMark,
}

/// Which memory the function writes, for the invariant-load rule.
#[derive(Default)]
struct Writes {
    globals: SecondaryMap<Global, bool>,
    allocas: SecondaryMap<Inst, bool>,
    /// Address spaces written through a pointer of unknown provenance.
    unknown_spaces: SmallVec<[AddressSpace; 2]>,
    call: bool,
    barrier: bool,
}

struct Walk<'a> {
    module: &'a Module,
    func: &'a Function,
    domtree: DomTree,
    writes: Writes,
    exprs: ExprTable,
    facts: FactTable,
    replacements: Replacements,
}

impl<'a> Walk<'a> {
    fn new(module: &'a Module, func: &'a Function) -> Self {
        let domtree = DomTree::new(func);
        let writes = summarise_writes(module, func, &domtree);
        Walk {
            module,
            func,
            domtree,
            writes,
            exprs: ExprTable::with_capacity(func.dfg.num_insts()),
            facts: FactTable::new(true),
            replacements: Replacements::default(),
        }
    }

    fn run(&mut self, entry: Block, info: &mut GvnInfo) {
        let order: Vec<Block> = self.domtree.preorder().collect();
        let mut stack: Vec<Frame> = Vec::new();
        for block in order {
            if block != entry && !self.domtree.is_reachable(block) {
                continue;
            }
            while let Some(top) = stack.last() {
                if self.domtree.dominates(top.block, block) {
                    break;
                }
                if let Some(frame) = stack.pop() {
                    self.exprs.restore(frame.exprs);
                    self.facts.restore(frame.facts);
                }
            }
            stack.push(Frame {
                block,
                exprs: self.exprs.mark(),
                facts: self.facts.mark(),
            });
            if self.domtree.cfg().pred_count(block) != 1 {
                self.facts.forget_all();
            }
            for inst in self.func.layout.block_insts(block) {
                info.scanned_inst_count += 1;
                self.visit(inst, info);
            }
        }
    }

    fn visit(&mut self, inst: Inst, info: &mut GvnInfo) {
        let (module, func) = (self.module, self.func);
        let annotated = func.dfg.metadata(inst).is_some_and(|md| md.is_annotated());
        let leaders = &self.replacements.leaders;
        match self
            .facts
            .step(module, func, inst, &|v| leaders.get(func, v))
        {
            MemoryEvent::Pure => {
                if !annotated && is_safe_to_value_number(module, func, inst) {
                    self.number(inst, info);
                }
            }
            MemoryEvent::Load { ptr, result } => {
                if !annotated {
                    self.load(inst, ptr, result, info);
                }
            }
            MemoryEvent::Other => {}
        }
    }

    /// Numbers `inst` as a pure expression.
    fn number(&mut self, inst: Inst, info: &mut GvnInfo) {
        if let Some(earlier) = self
            .exprs
            .number(self.func, inst, &self.replacements.leaders)
        {
            self.replacements.replace(self.func, inst, earlier);
            info.replaced_pure_count += 1;
        }
    }

    fn load(&mut self, inst: Inst, ptr: PointerPath, result: Value, info: &mut GvnInfo) {
        if self.is_invariant(&ptr) {
            self.number(inst, info);
            return;
        }
        let ty = self.func.dfg.value_type(result);
        match self.facts.lookup(&ptr, ty) {
            Some((value, source)) => {
                self.replacements.replace(self.func, inst, value);
                match source {
                    FactSource::Store => info.forwarded_store_count += 1,
                    FactSource::Load => info.replaced_load_count += 1,
                }
            }
            None => self.facts.record(ptr, result, ty, FactSource::Load),
        }
    }

    fn is_invariant(&self, ptr: &PointerPath) -> bool {
        let Some(space) = ptr.space else {
            return false;
        };
        match space {
            AddressSpace::Uniform
            | AddressSpace::PushConstant
            | AddressSpace::Handle
            | AddressSpace::Storage(StorageAccess::Read) => return true,
            AddressSpace::Function
            | AddressSpace::Private
            | AddressSpace::Workgroup
            | AddressSpace::Storage(StorageAccess::Write | StorageAccess::ReadWrite) => {}
        }
        let w = &self.writes;
        let shared = matches!(space, AddressSpace::Workgroup | AddressSpace::Storage(_));
        if w.call || (shared && w.barrier) || w.unknown_spaces.contains(&space) {
            return false;
        }
        match ptr.root {
            Root::Global(g) => !w.globals[g],
            Root::Alloca(a) => !w.allocas[a],
            Root::Unknown(_) => false,
        }
    }
}

/// The objects `func`'s reachable blocks write, and whether it calls or synchronises.
fn summarise_writes(module: &Module, func: &Function, domtree: &DomTree) -> Writes {
    let mut writes = Writes::default();
    for &block in domtree.cfg().blocks() {
        if !domtree.is_reachable(block) {
            continue;
        }
        for inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            match data.opcode.info().effect {
                EffectClass::MemoryWrite | EffectClass::Atomic => {
                    let Some(&ptr) = data.args.first() else {
                        continue;
                    };
                    let path = PointerPath::of(module, func, ptr);
                    match path.root {
                        Root::Global(g) => writes.globals[g] = true,
                        Root::Alloca(a) => writes.allocas[a] = true,
                        Root::Unknown(_) => {
                            let space = path.space.unwrap_or(AddressSpace::Function);
                            if !writes.unknown_spaces.contains(&space) {
                                writes.unknown_spaces.push(space);
                            }
                            if path.space.is_none() {
                                writes.call = true; // an unreadable pointer: assume anything
                            }
                        }
                    }
                }
                EffectClass::Call => writes.call = true,
                EffectClass::Barrier => writes.barrier = true,
                EffectClass::Pure
                | EffectClass::MemoryRead
                | EffectClass::ResourceRead
                | EffectClass::ResourceWrite
                | EffectClass::Volatile
                | EffectClass::TimeRead
                | EffectClass::Terminator => {}
            }
        }
    }
    writes
}
