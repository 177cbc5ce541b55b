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
//! operations costs O(n · window), not O(n²).
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

use crate::analysis::alias::{alias, AliasResult, PointerPath, Root};
use crate::analysis::dominators::DomTree;
use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use oxir_ir::effects::is_safe_to_value_number;
use oxir_ir::ops::EffectClass;
use oxir_ir::types::{AddressSpace, StorageAccess};
use oxir_ir::{Block, Func, Function, Global, Inst, Module, Opcode, Type, Value};
use smallvec::SmallVec;
use std::collections::HashMap;

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

/// Memory facts of a block consulted per query: the newest ones only.
pub const FACT_WINDOW: usize = 64;

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
    let f = &mut module.functions[func];
    for (inst, leader) in replacements {
        if let Some(result) = f.dfg.inst_result(inst) {
            f.dfg.replace_all_uses(result, leader);
        }
        f.remove_inst(inst);
    }
    info
}

/// A pure expression (or invariant load) as the table keys it.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Expr {
    opcode: Opcode,
    ty: Type,
    args: SmallVec<[Value; 3]>,
    indices: Box<[u32]>,
}

/// "The bytes at `ptr` hold `value`", recorded by a load or store.
struct Fact {
    ptr: PointerPath,
    value: Value,
    ty: Type,
    from_store: bool,
    killed: bool,
}

/// What a block's dominator-tree scope added, to undo when the walk leaves it.
struct Frame {
    block: Block,
    exprs_len: usize,
    facts_len: usize,
    kills_len: usize,
    facts_floor: usize,
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
    leader: SecondaryMap<Value, PackedOption<Value>>,
    exprs: HashMap<Expr, Value>,
    expr_log: Vec<Expr>,
    facts: Vec<Fact>,
    kill_log: Vec<usize>,
    facts_floor: usize,
    replacements: Vec<(Inst, Value)>,
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
            leader: SecondaryMap::new(),
            exprs: HashMap::new(),
            expr_log: Vec::new(),
            facts: Vec::new(),
            kill_log: Vec::new(),
            facts_floor: 0,
            replacements: Vec::new(),
        }
    }

    fn leader_of(&self, v: Value) -> Value {
        let v = self.func.dfg.resolve(v);
        self.leader.get(v).and_then(|l| l.expand()).unwrap_or(v)
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
                    self.leave(frame);
                }
            }
            stack.push(self.enter(block));
            self.scan_block(block, info);
        }
    }

    fn enter(&mut self, block: Block) -> Frame {
        let frame = Frame {
            block,
            exprs_len: self.expr_log.len(),
            facts_len: self.facts.len(),
            kills_len: self.kill_log.len(),
            facts_floor: self.facts_floor,
        };
        if self.domtree.cfg().pred_count(block) != 1 {
            self.facts_floor = self.facts.len();
        }
        frame
    }

    fn leave(&mut self, frame: Frame) {
        for expr in self.expr_log.drain(frame.exprs_len..) {
            self.exprs.remove(&expr);
        }
        for index in self.kill_log.drain(frame.kills_len..) {
            if let Some(fact) = self.facts.get_mut(index) {
                fact.killed = false;
            }
        }
        self.facts.truncate(frame.facts_len);
        self.facts_floor = frame.facts_floor;
    }

    fn scan_block(&mut self, block: Block, info: &mut GvnInfo) {
        for inst in self.func.layout.block_insts(block) {
            info.scanned_inst_count += 1;
            self.visit(inst, info);
        }
    }

    fn replace(&mut self, inst: Inst, by: Value) {
        if let Some(result) = self.func.dfg.inst_result(inst) {
            self.leader[result] = by.into();
            self.replacements.push((inst, by));
        }
    }

    fn visit(&mut self, inst: Inst, info: &mut GvnInfo) {
        let data = self.func.dfg.inst(inst);
        let annotated = self
            .func
            .dfg
            .metadata(inst)
            .is_some_and(|md| md.is_annotated());
        match data.opcode.info().effect {
            EffectClass::Pure => {
                if !annotated && is_safe_to_value_number(self.module, self.func, inst) {
                    self.number(inst, info);
                }
            }
            EffectClass::MemoryRead => self.load(inst, annotated, info),
            EffectClass::MemoryWrite => self.store(inst),
            EffectClass::Atomic => {
                let ptr = self.pointer_path(data.args.first().copied());
                self.kill(&ptr);
            }
            EffectClass::Barrier | EffectClass::Call => self.facts_floor = self.facts.len(),
            EffectClass::ResourceRead
            | EffectClass::ResourceWrite
            | EffectClass::Volatile
            | EffectClass::TimeRead
            | EffectClass::Terminator => {}
        }
    }

    fn expr(&self, inst: Inst) -> Option<Expr> {
        let data = self.func.dfg.inst(inst);
        let result = self.func.dfg.inst_result(inst)?;
        let mut args: SmallVec<[Value; 3]> = data.args.iter().map(|&v| self.leader_of(v)).collect();
        if data.opcode.is_commutative() && args.len() == 2 && args[1] < args[0] {
            args.swap(0, 1);
        }
        let indices: Box<[u32]> = data.payload.indices().into();
        Some(Expr {
            opcode: data.opcode,
            ty: self.func.dfg.value_type(result),
            args,
            indices,
        })
    }

    /// Numbers `inst` as a pure expression; returns whether it was replaced.
    fn number(&mut self, inst: Inst, info: &mut GvnInfo) -> bool {
        let Some(expr) = self.expr(inst) else {
            return false;
        };
        if let Some(&earlier) = self.exprs.get(&expr) {
            self.replace(inst, earlier);
            info.replaced_pure_count += 1;
            return true;
        }
        if let Some(result) = self.func.dfg.inst_result(inst) {
            self.exprs.insert(expr.clone(), result);
            self.expr_log.push(expr);
        }
        false
    }

    fn pointer_path(&self, ptr: Option<Value>) -> PointerPath {
        let ptr = ptr.unwrap_or_else(|| Value::from_u32(u32::MAX));
        PointerPath::of_with(self.module, self.func, ptr, &|v| self.leader_of(v))
    }

    fn load(&mut self, inst: Inst, annotated: bool, info: &mut GvnInfo) {
        let data = self.func.dfg.inst(inst);
        let Some(result) = self.func.dfg.inst_result(inst) else {
            return;
        };
        let ptr = self.pointer_path(data.args.first().copied());
        if annotated {
            return;
        }
        if self.is_invariant(&ptr) {
            self.number(inst, info);
            return;
        }
        let ty = self.func.dfg.value_type(result);
        if let Some((value, from_store)) = self.lookup(&ptr, ty) {
            self.replace(inst, value);
            if from_store {
                info.forwarded_store_count += 1;
            } else {
                info.replaced_load_count += 1;
            }
            return;
        }
        self.facts.push(Fact {
            ptr,
            value: result,
            ty,
            from_store: false,
            killed: false,
        });
    }

    fn store(&mut self, inst: Inst) {
        let data = self.func.dfg.inst(inst);
        let ptr = self.pointer_path(data.args.first().copied());
        self.kill(&ptr);
        if let Some(&value) = data.args.get(1) {
            let value = self.leader_of(value);
            let ty = self.func.dfg.value_type(value);
            self.facts.push(Fact {
                ptr,
                value,
                ty,
                from_store: true,
                killed: false,
            });
        }
    }

    fn window(&self) -> std::ops::Range<usize> {
        let end = self.facts.len();
        self.facts_floor.max(end.saturating_sub(FACT_WINDOW))..end
    }

    /// The newest live fact that must alias `ptr` with type `ty`: its value, and whether
    /// a store recorded it (a load's fact names its own result).
    fn lookup(&self, ptr: &PointerPath, ty: Type) -> Option<(Value, bool)> {
        let range = self.window();
        self.facts[range].iter().rev().find_map(|fact| {
            (!fact.killed && fact.ty == ty && alias(&fact.ptr, ptr) == AliasResult::MustAlias)
                .then_some((fact.value, fact.from_store))
        })
    }

    fn kill(&mut self, ptr: &PointerPath) {
        for index in self.window() {
            let fact = &mut self.facts[index];
            if !fact.killed && alias(&fact.ptr, ptr) != AliasResult::NoAlias {
                fact.killed = true;
                self.kill_log.push(index);
            }
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
