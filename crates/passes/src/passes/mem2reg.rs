//! `mem2reg`: promotes local variables (function-space allocas used only by loads and
//! stores) to SSA values, placing block parameters where control flow joins.
//!
//! **Which allocas are promoted.** A `function`-space `alloca` whose every use is the
//! pointer operand of a `load` or a `store`. Anything else makes the address escape and
//! the alloca is kept (`skipped_escaping_alloca_count`): being stored *as a value*, passed
//! to `access`, a call, an atomic or any other instruction, passed as an edge argument or
//! returned. Also kept: `workgroup` allocas (shared with other invocations;
//! `skipped_workgroup_alloca_count`); allocas carrying semantic metadata other than
//! `reg2mem_spill`, and allocas with a load or store user carrying semantic metadata
//! (the policy of `oxir_ir::metadata`: nothing could own it afterwards;
//! `skipped_annotated_alloca_count`); allocas of a type that has no `undef` constant
//! (resources, opaque types, or aggregates holding them) since a load before any store
//! must read `undef` (`skipped_undef_less_alloca_count`). `reg2mem_spill` is consumed: the
//! slots `reg2mem` created are promoted like any other local. Presentation metadata
//! (`name`, `loc`, `comment`) of promoted allocas, loads and stores is dropped: block
//! parameters carry no metadata in oxir, and one SSA value may hold several variables.
//!
//! **Algorithm** (Cytron et al. 1991, pruned as in LLVM's `PromoteMemToReg`):
//! 1. For each promoted variable, the blocks that define it (a `store`, or the `alloca`
//!    itself, which defines it as `undef`) and the blocks that read it before any
//!    definition in the block; liveness propagates backwards from the latter to find the
//!    blocks where the variable is live on entry.
//! 2. Block parameters go on the iterated dominance frontier of the defining blocks,
//!    restricted to blocks where the variable is live (no dead parameters).
//! 3. Renaming walks the dominator tree iteratively (an explicit stack with an undo log,
//!    so 100k-block functions do not overflow the call stack): each load is replaced by
//!    the variable's current value (O(1) aliasing, `DataFlowGraph::replace_all_uses`),
//!    each store sets it, and every executable edge into a block with new parameters
//!    gets one argument per parameter — per edge, so a terminator with two edges to the
//!    same block passes two argument lists. A load before any store reads `undef` of the
//!    variable's type (`const_undef`, created only when needed).
//! 4. Blocks unreachable from the entry are rewritten too, each starting from `undef`
//!    (their loads can never run; their edges into reachable join blocks still need
//!    arguments).
//! 5. Parameters this pass created that are trivially redundant — every argument from a
//!    reachable predecessor is one value `v` or the parameter itself — are replaced by `v`
//!    and removed with their arguments, iterating through the parameters that received
//!    them (`removed_redundant_block_param_count`). Parameters that existed before the
//!    pass are never touched (that is `phi-cleanup`'s job).
//!
//! **Control-flow forms.** The pass works on plain and structured CFGs alike: it walks the
//! executable edges (`Payload::edges`): `br`, `cond_br`, `switch_br`, the arms of `if`,
//! the cases of `switch`, a `loop`'s prepare edge, a `simple_loop`'s body edge, `break`
//! and `continue`. Structural roles (merges, loop body and update) are not edges. It
//! never changes the CFG, so a structured function stays structured (block parameters on
//! merge blocks are allowed by the IR). It does not need allocas to be in the entry block
//! (`hoist-allocas` puts them there first): an alloca elsewhere defines its variable as
//! `undef` where it executes, the per-iteration fresh object of SSA semantics.
//!
//! **What it does not do.** No partial promotion of aggregates (`sroa` splits them
//! first), no promotion through `access`, no removal of unrelated dead code, no
//! simplification of parameters that existed before.
//!
//! ```text
//! block0(v0: bool):                          block0(v0: bool):
//!     v1: ptr<function, i32> = alloca            cond_br v0, block1, block2
//!     store v1, c0                           block1:
//!     cond_br v0, block1, block2      =>         br block3(c1)
//! block1:                                    block2:
//!     store v1, c1                               br block3(c0)
//!     br block3                              block3(v5: i32):
//! block2:                                        return v5
//!     br block3
//! block3:
//!     v2: i32 = load v1
//!     return v2
//! ```
//!
//! Counters: `promoted_alloca_count`, `removed_store_count`, `removed_load_count`,
//! `inserted_block_param_count` (parameters added and kept),
//! `removed_redundant_block_param_count`, and the `skipped_*` counts above.

use crate::analysis::cfg::{Cfg, CfgNode};
use crate::analysis::dominators::DomTree;
use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use oxir_ir::constants::{ConstData, ConstKind, ConstStore};
use oxir_ir::hash::HashSet;
use oxir_ir::types::TypeStore;
use oxir_ir::{
    AddressSpace, Block, Func, Function, Inst, Metadata, Module, Opcode, Type, TypeData, Value,
};
use smallvec::SmallVec;

pass_info! {
    pass: "mem2reg",
    /// Counters of `mem2reg`.
    pub struct Mem2RegInfo {
        /// Allocas replaced by SSA values (and removed).
        promoted_alloca_count,
        /// Stores to promoted allocas removed.
        removed_store_count,
        /// Loads of promoted allocas removed (their uses read SSA values).
        removed_load_count,
        /// Block parameters added and kept.
        inserted_block_param_count,
        /// Block parameters added, found trivially redundant and removed again.
        removed_redundant_block_param_count,
        /// Function allocas kept because their address escapes.
        skipped_escaping_alloca_count,
        /// Workgroup allocas kept.
        skipped_workgroup_alloca_count,
        /// Allocas kept because they, or a load or store of them, carry semantic metadata.
        skipped_annotated_alloca_count,
        /// Allocas kept because their type has no `undef` constant.
        skipped_undef_less_alloca_count,
    }
    changed_by: [promoted_alloca_count]
}

/// A promoted variable's number, in alloca layout order. Prints as `varN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Var(u32);
entity_impl!(Var, "var");

/// An alloca considered for promotion, in layout order. Prints as `candidateN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Candidate(u32);
entity_impl!(Candidate, "candidate");

/// A block parameter this pass created, in creation order. Prints as `createdN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Created(u32);
entity_impl!(Created, "created");

/// The promoted variables, and the variable each alloca address is (none: not promoted).
type Variables = PrimaryMap<Var, Variable>;
type VariableOf = SecondaryMap<Value, PackedOption<Var>>;

/// A promoted variable.
struct Variable {
    alloca: Inst,
    /// The type of the value held (the alloca's pointee).
    ty: Type,
}

/// Promotes the promotable allocas of `func`.
pub fn run_on_function(module: &mut Module, func: Func) -> Mem2RegInfo {
    let mut info = Mem2RegInfo::default();
    let Module {
        types,
        consts,
        functions,
        ..
    } = module;
    let Some(function) = functions.get_mut(func) else {
        return info;
    };
    if function.entry_block().is_none() {
        return info;
    }
    let (variables, variable_of) = find_variables(types, function, &mut info);
    if variables.is_empty() {
        return info;
    }
    let dom = DomTree::new(function);
    let placements = place_block_params(function, dom.cfg(), &dom, &variables, &variable_of);

    // Create the parameters, block by block, variables in alloca order.
    let block_count = dom.cfg().block_count();
    let mut added: SecondaryMap<CfgNode, SmallVec<[(Var, Value); 2]>> =
        SecondaryMap::with_capacity(block_count);
    let mut created: PrimaryMap<Created, CreatedParam> =
        PrimaryMap::with_capacity(placements.len());
    for &(block_number, var) in &placements {
        let block = dom.cfg().block(block_number);
        let param = function.dfg.append_block_param(block, variables[var].ty);
        added[block_number].push((var, param));
        created.push(CreatedParam {
            block_number,
            var,
            param,
        });
    }

    let mut renamer = Renamer {
        consts,
        function,
        dom: &dom,
        variables: &variables,
        variable_of: &variable_of,
        added: &added,
        current: SecondaryMap::with_capacity(variables.len()),
        undo: Vec::new(),
        removed_loads: 0,
        removed_stores: 0,
    };
    renamer.rename_reachable();
    renamer.rename_unreachable();
    let removed_params = renamer.remove_redundant_params(&created);
    info.removed_load_count = renamer.removed_loads;
    info.removed_store_count = renamer.removed_stores;

    for var in variables.values() {
        function.remove_inst(var.alloca);
        // The spill tag (if any) is consumed with the slot.
        function.dfg.set_metadata(var.alloca, Metadata::default());
    }
    function.dfg.resolve_all_aliases();
    info.promoted_alloca_count = variables.len() as u64;
    info.inserted_block_param_count = (created.len() - removed_params) as u64;
    info.removed_redundant_block_param_count = removed_params as u64;
    info
}

/// Promotes the promotable allocas of every function with a body.
pub fn run_on_module(module: &mut Module) -> Mem2RegInfo {
    let mut info = Mem2RegInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// The promotable allocas of `function`, in layout order, and a map from each one's
/// address to its index. Counts the skipped ones in `info`.
fn find_variables(
    types: &TypeStore,
    function: &Function,
    info: &mut Mem2RegInfo,
) -> (Variables, VariableOf) {
    #[derive(Copy, Clone, PartialEq)]
    enum Verdict {
        Promote,
        Escapes,
        AnnotatedUser,
    }
    let (dfg, layout) = (&function.dfg, &function.layout);
    let mut candidate_of: SecondaryMap<Value, PackedOption<Candidate>> = SecondaryMap::new();
    let mut candidates: PrimaryMap<Candidate, (Variable, Value, Verdict)> = PrimaryMap::new();
    let placed = || {
        layout
            .blocks()
            .flat_map(move |block| layout.block_insts(block))
    };
    for inst in placed() {
        if dfg.inst(inst).opcode != Opcode::Alloca {
            continue;
        }
        let Some(address) = dfg.inst_result(inst) else {
            continue;
        };
        let Some(&TypeData::Pointer { space, pointee }) = types.try_get(dfg.value_type(address))
        else {
            continue;
        };
        match space {
            AddressSpace::Function => {}
            AddressSpace::Workgroup => {
                info.skipped_workgroup_alloca_count += 1;
                continue;
            }
            // Not a local variable (the verifier only allows function and workgroup
            // allocas; anything else is left alone).
            AddressSpace::Private
            | AddressSpace::Storage(_)
            | AddressSpace::Uniform
            | AddressSpace::PushConstant
            | AddressSpace::Handle => continue,
        }
        // `reg2mem_spill` is the one semantic kind this pass consumes.
        if dfg
            .metadata(inst)
            .is_some_and(|md| md.no_inline || md.signature_constraint)
        {
            info.skipped_annotated_alloca_count += 1;
            continue;
        }
        if !admits_undef(types, pointee) {
            info.skipped_undef_less_alloca_count += 1;
            continue;
        }
        let variable = Variable {
            alloca: inst,
            ty: pointee,
        };
        candidate_of[address] = candidates
            .push((variable, address, Verdict::Promote))
            .into();
    }
    if candidates.is_empty() {
        return (PrimaryMap::new(), SecondaryMap::new());
    }

    // Every use must be the pointer operand of a load or store.
    for inst in placed() {
        let data = dfg.inst(inst);
        let memory_access = matches!(data.opcode, Opcode::Load | Opcode::Store);
        let annotated = dfg.metadata(inst).is_some_and(Metadata::is_annotated);
        for (k, &v) in data.args.iter().enumerate() {
            let Some(c) = candidate_of[dfg.resolve(v)].expand() else {
                continue;
            };
            let verdict = &mut candidates[c].2;
            if !(memory_access && k == 0) {
                *verdict = Verdict::Escapes;
            } else if annotated && *verdict == Verdict::Promote {
                *verdict = Verdict::AnnotatedUser;
            }
        }
        for edge in data.payload.edges() {
            for &v in &edge.args {
                if let Some(c) = candidate_of[dfg.resolve(v)].expand() {
                    candidates[c].2 = Verdict::Escapes;
                }
            }
        }
    }

    let mut variable_of: VariableOf = SecondaryMap::new();
    let mut variables: Variables = PrimaryMap::new();
    for (variable, address, verdict) in candidates.into_iter().map(|(_, c)| c) {
        match verdict {
            Verdict::Promote => variable_of[address] = variables.push(variable).into(),
            Verdict::Escapes => info.skipped_escaping_alloca_count += 1,
            Verdict::AnnotatedUser => info.skipped_annotated_alloca_count += 1,
        }
    }
    (variables, variable_of)
}

/// Whether `ty` has an `undef` constant: sized data without resources or opaque types.
fn admits_undef(types: &TypeStore, ty: Type) -> bool {
    let mut stack = vec![ty];
    let mut seen: HashSet<Type> = HashSet::default();
    while let Some(ty) = stack.pop() {
        if !seen.insert(ty) {
            continue;
        }
        match types.try_get(ty) {
            Some(TypeData::Scalar(_) | TypeData::Vector { .. } | TypeData::Matrix { .. })
            | Some(TypeData::Pointer { .. }) => {}
            Some(TypeData::Array { elem, .. }) => stack.push(*elem),
            Some(TypeData::Struct(st)) => stack.extend(st.members.iter().map(|m| m.ty)),
            Some(
                TypeData::Void
                | TypeData::RuntimeArray { .. }
                | TypeData::Texture { .. }
                | TypeData::StorageTexture { .. }
                | TypeData::Sampler { .. }
                | TypeData::Opaque(_),
            )
            | None => return false,
        }
    }
    true
}

/// How an instruction touches a promoted variable.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AccessKind {
    /// The alloca itself: the variable starts as `undef`.
    Alloca,
    Load,
    Store,
}

impl AccessKind {
    fn is_load(self) -> bool {
        self == AccessKind::Load
    }
}

/// The variable `inst` accesses and how: a load or store of a promoted alloca, or the
/// alloca itself (a definition). `find_variables` promotes only allocas whose every use is
/// the pointer operand of a load or store, so no other instruction touches a variable.
fn access(function: &Function, variable_of: &VariableOf, inst: Inst) -> Option<(Var, AccessKind)> {
    let data = function.dfg.inst(inst);
    let (address, kind) = match data.opcode {
        Opcode::Load => (*data.args.first()?, AccessKind::Load),
        Opcode::Store => (*data.args.first()?, AccessKind::Store),
        Opcode::Alloca => (function.dfg.inst_result(inst)?, AccessKind::Alloca),
        // Not a variable access (see above).
        // wildcard-ok: a query about three named ops; every other op answers "no".
        _ => return None,
    };
    let var = variable_of[function.dfg.resolve(address)].expand()?;
    Some((var, kind))
}

/// Where each variable needs a block parameter: `(block number, variable)` pairs sorted by
/// block, then variable. Pruned SSA: iterated dominance frontier of the defining blocks,
/// restricted to the blocks where the variable is live on entry.
fn place_block_params(
    function: &Function,
    cfg: &Cfg,
    dom: &DomTree,
    variables: &Variables,
    variable_of: &VariableOf,
) -> Vec<(CfgNode, Var)> {
    let block_count = cfg.block_count();
    // Per variable: blocks that define it, and blocks that read it before defining it.
    let mut def_blocks: SecondaryMap<Var, Vec<CfgNode>> = SecondaryMap::new();
    let mut exposed_blocks: SecondaryMap<Var, Vec<CfgNode>> = SecondaryMap::new();
    let mut last_seen: SecondaryMap<Var, PackedOption<CfgNode>> = SecondaryMap::new();
    for number in cfg.nodes() {
        for inst in function.layout.block_insts(cfg.block(number)) {
            let Some((var, kind)) = access(function, variable_of, inst) else {
                continue;
            };
            let is_load = kind.is_load();
            if last_seen[var].expand() != Some(number) {
                last_seen[var] = number.into();
                if is_load {
                    exposed_blocks[var].push(number);
                } else {
                    def_blocks[var].push(number);
                }
            } else if !is_load && def_blocks[var].last() != Some(&number) {
                def_blocks[var].push(number);
            }
        }
    }

    // Stamps (the variable being placed) instead of per-variable sets: no clearing
    // between variables, O(blocks) memory in all.
    type Stamps = SecondaryMap<CfgNode, PackedOption<Var>>;
    let mut defines: Stamps = SecondaryMap::with_capacity(block_count);
    let mut live_in: Stamps = SecondaryMap::with_capacity(block_count);
    let mut on_frontier: Stamps = SecondaryMap::with_capacity(block_count);
    let mut worklist: Vec<CfgNode> = Vec::new();
    let mut placements = Vec::new();
    for var in variables.keys() {
        let stamp: PackedOption<Var> = var.into();
        for &b in &def_blocks[var] {
            defines[b] = stamp;
        }
        // Live-in blocks: backwards from the upward-exposed reads, stopping at blocks
        // that define the variable (they are live-in only if they read it first, and
        // then they are seeds themselves).
        worklist.clear();
        worklist.extend_from_slice(&exposed_blocks[var]);
        while let Some(b) = worklist.pop() {
            if live_in[b] == stamp {
                continue;
            }
            live_in[b] = stamp;
            for &pred in cfg.pred_graph().successors(b) {
                if defines[pred] != stamp && live_in[pred] != stamp {
                    worklist.push(pred);
                }
            }
        }
        // Iterated dominance frontier of the defining blocks, pruned by liveness.
        worklist.clear();
        worklist.extend_from_slice(&def_blocks[var]);
        while let Some(b) = worklist.pop() {
            for join in dom.frontier(cfg.block(b)) {
                let j = cfg.number(join).expect("frontier blocks are in the layout");
                if on_frontier[j] == stamp {
                    continue;
                }
                on_frontier[j] = stamp;
                if live_in[j] != stamp {
                    continue;
                }
                placements.push((j, var));
                if defines[j] != stamp {
                    worklist.push(j);
                }
            }
        }
    }
    placements.sort_unstable();
    placements
}

/// A block parameter this pass created.
struct CreatedParam {
    block_number: CfgNode,
    var: Var,
    param: Value,
}

/// The renaming walk: the current value of every variable, with an undo log to restore
/// it when leaving a dominator subtree.
struct Renamer<'a> {
    consts: &'a mut ConstStore,
    function: &'a mut Function,
    dom: &'a DomTree,
    variables: &'a Variables,
    variable_of: &'a VariableOf,
    /// Per block number: the parameters created for it, `(variable, parameter)`.
    added: &'a SecondaryMap<CfgNode, SmallVec<[(Var, Value); 2]>>,
    /// `None` while the variable holds its initial `undef`.
    current: SecondaryMap<Var, Option<Value>>,
    undo: Vec<(Var, Option<Value>)>,
    removed_loads: u64,
    removed_stores: u64,
}

enum Visit {
    Enter(Block),
    /// Restore the undo log to this length.
    Leave(usize),
}

impl Renamer<'_> {
    fn set(&mut self, var: Var, value: Option<Value>) {
        let old = std::mem::replace(&mut self.current[var], value);
        self.undo.push((var, old));
    }

    fn restore(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let (var, old) = self.undo.pop().expect("undo log is longer than the mark");
            self.current[var] = old;
        }
    }

    /// `undef` of `ty` as a value of this function (the constant is created on first use).
    fn undef(&mut self, ty: Type) -> Value {
        let c = self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Undef,
        });
        self.function.dfg.const_value(c, ty)
    }

    fn value(&mut self, var: Var) -> Value {
        match self.current[var] {
            Some(v) => v,
            None => self.undef(self.variables[var].ty),
        }
    }

    /// Walks the dominator tree from the entry, depth first, without recursion.
    fn rename_reachable(&mut self) {
        let Some(entry) = self.function.entry_block() else {
            return;
        };
        let mut stack = vec![Visit::Enter(entry)];
        let mut children: Vec<Block> = Vec::new();
        while let Some(visit) = stack.pop() {
            match visit {
                Visit::Enter(block) => {
                    stack.push(Visit::Leave(self.undo.len()));
                    self.rename_block(block);
                    children.clear();
                    children.extend(self.dom.children(block));
                    // Reversed so that children are entered in block order.
                    stack.extend(children.iter().rev().map(|&c| Visit::Enter(c)));
                }
                Visit::Leave(mark) => self.restore(mark),
            }
        }
    }

    /// Rewrites each unreachable block on its own, every variable starting as `undef`.
    fn rename_unreachable(&mut self) {
        let cfg = self.dom.cfg();
        for &block in cfg.blocks() {
            if !self.dom.is_reachable(block) {
                let mark = self.undo.len();
                self.rename_block(block);
                self.restore(mark);
            }
        }
    }

    fn rename_block(&mut self, block: Block) {
        let number = self
            .dom
            .cfg()
            .number(block)
            .expect("renamed blocks are in the layout");
        for &(var, param) in &self.added[number] {
            self.set(var, Some(param));
        }
        let mut cursor = self.function.layout.first_inst(block);
        while let Some(inst) = cursor {
            cursor = self.function.layout.next_inst(inst);
            let Some((var, kind)) = access(self.function, self.variable_of, inst) else {
                continue;
            };
            match kind {
                AccessKind::Alloca => self.set(var, None),
                AccessKind::Store => {
                    let stored = self.function.dfg.inst(inst).args[1];
                    let stored = self.function.dfg.resolve(stored);
                    self.set(var, Some(stored));
                    self.function.remove_inst(inst);
                    self.removed_stores += 1;
                }
                AccessKind::Load => {
                    let result = self
                        .function
                        .dfg
                        .inst_result(inst)
                        .expect("a load has a result");
                    let mut value = self.value(var);
                    // Only in unreachable code can a load read (a value aliased to) its
                    // own result; it then reads nothing defined.
                    let dfg = &mut self.function.dfg;
                    if dfg.resolve(value) == dfg.resolve(result)
                        || !dfg.replace_all_uses(result, value)
                    {
                        value = self.undef(self.variables[var].ty);
                        self.function.dfg.replace_all_uses(result, value);
                    }
                    self.function.remove_inst(inst);
                    self.removed_loads += 1;
                }
            }
        }
        self.pass_arguments(block);
    }

    /// Appends the current values of the variables to every edge from `block` into a
    /// block with created parameters (per edge: two edges to one block get two lists).
    fn pass_arguments(&mut self, block: Block) {
        let Some(term) = self.function.terminator(block) else {
            return;
        };
        let targets: SmallVec<[Block; 2]> = self
            .function
            .dfg
            .inst(term)
            .payload
            .edges()
            .iter()
            .map(|edge| edge.block)
            .collect();
        let cfg = self.dom.cfg();
        let mut arguments: Vec<SmallVec<[Value; 2]>> = Vec::with_capacity(targets.len());
        for &target in &targets {
            let params = cfg.number(target).map_or(&[][..], |n| &self.added[n][..]);
            let values = params.iter().map(|&(var, _)| self.value(var)).collect();
            arguments.push(values);
        }
        let payload = &mut self.function.dfg.inst_mut(term).payload;
        for (edge, values) in payload.edges_mut().into_iter().zip(arguments) {
            edge.args.extend(values);
        }
    }

    /// Removes created parameters whose reachable incoming arguments are all one value
    /// (or the parameter itself), iterating through the parameters that received them.
    /// Returns how many were removed.
    fn remove_redundant_params(&mut self, created: &PrimaryMap<Created, CreatedParam>) -> usize {
        let cfg = self.dom.cfg();
        let mut index_of: SecondaryMap<Value, PackedOption<Created>> = SecondaryMap::new();
        for (i, c) in created.iter() {
            index_of[c.param] = i.into();
        }
        // users[i]: created parameters that receive parameter i as an argument.
        let mut users: SecondaryMap<Created, SmallVec<[Created; 2]>> =
            SecondaryMap::with_capacity(created.len());
        for (i, c) in created.iter() {
            self.for_each_incoming(c, |arg| {
                if let Some(j) = index_of[arg].expand().filter(|&j| j != i) {
                    users[j].push(i);
                }
            });
        }
        let mut removed: SecondaryMap<Created, bool> = SecondaryMap::with_capacity(created.len());
        let mut removed_count = 0;
        let mut worklist: Vec<Created> = created.keys().rev().collect();
        while let Some(i) = worklist.pop() {
            if removed[i] {
                continue;
            }
            let c = &created[i];
            let mut unique: Option<Value> = None;
            let mut trivial = true;
            self.for_each_incoming(c, |arg| {
                if arg != c.param {
                    match unique {
                        None => unique = Some(arg),
                        Some(u) if u == arg => {}
                        Some(_) => trivial = false,
                    }
                }
            });
            if !trivial {
                continue;
            }
            let replacement = match unique {
                Some(v) => v,
                None => self.undef(self.variables[c.var].ty),
            };
            let block = cfg.block(c.block_number);
            let position = self
                .function
                .dfg
                .block_params(block)
                .iter()
                .position(|&p| p == c.param)
                .expect("a created parameter stays on its block until removed");
            self.function.dfg.remove_block_param(block, position);
            for &pred in cfg.pred_graph().successors(c.block_number) {
                let Some(term) = self.function.terminator(cfg.block(pred)) else {
                    continue;
                };
                let payload = &mut self.function.dfg.inst_mut(term).payload;
                for edge in payload.edges_mut() {
                    if edge.block == block {
                        edge.args.remove(position);
                    }
                }
            }
            // The parameter is detached now: aliasing it redirects its uses.
            self.function.dfg.replace_all_uses(c.param, replacement);
            removed[i] = true;
            removed_count += 1;
            worklist.extend(users[i].iter().copied());
        }
        removed_count
    }

    /// Calls `f` with the (alias-resolved) argument each edge from a reachable
    /// predecessor passes for `c`'s parameter. Unreachable predecessors do not count: a
    /// value that reaches the block from every reachable predecessor dominates it.
    fn for_each_incoming(&self, c: &CreatedParam, mut f: impl FnMut(Value)) {
        let cfg = self.dom.cfg();
        let block = cfg.block(c.block_number);
        let dfg = &self.function.dfg;
        let Some(position) = dfg.block_params(block).iter().position(|&p| p == c.param) else {
            return;
        };
        for &pred in cfg.pred_graph().successors(c.block_number) {
            let pred = cfg.block(pred);
            if !self.dom.is_reachable(pred) {
                continue;
            }
            let Some(term) = self.function.terminator(pred) else {
                continue;
            };
            for edge in dfg.inst(term).payload.edges() {
                if edge.block == block {
                    if let Some(&arg) = edge.args.get(position) {
                        f(dfg.resolve(arg));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    fn run(text: &str) -> (Module, Mem2RegInfo) {
        let mut module = parse_module(text).expect("parses");
        assert!(verify_module(&module, &VerifierOptions::default()).succeeded());
        let info = run_on_module(&mut module);
        let report = verify_module(&module, &VerifierOptions::default());
        assert!(
            report.succeeded(),
            "{report}\n{}",
            print_module(&module, View::Flat)
        );
        (module, info)
    }

    #[test]
    fn a_definition_dominating_the_join_needs_no_parameter() {
        let (module, info) = run("\
const c0: i32 = 1
const c1: i32 = 2

callable @f(bool) -> i32 {
block0(v0: bool):
    v1: ptr<function, i32> = alloca
    v2: ptr<function, i32> = alloca
    store v1, c0
    store v2, c1
    cond_br v0, block1, block1
block1:
    v3: i32 = load v1
    return v3
}
");
        assert_eq!(info.promoted_alloca_count, 2);
        // Two edges into block1, but the only definition dominates it: no parameter.
        assert_eq!(info.inserted_block_param_count, 0);
        let text = print_module(&module, View::Flat);
        assert!(text.contains("return c0"), "{text}");
    }

    #[test]
    fn a_chain_of_redundant_parameters_collapses() {
        // Nested loops whose inner body stores the loaded value back (a copy): both loop
        // headers get a parameter, the inner one receives the outer one and itself, and
        // removing it makes the outer one trivial too.
        let (module, info) = run("\
const c0: i32 = 7
const c1: bool = true

callable @f(bool) -> i32 {
block0(v0: bool):
    v1: ptr<function, i32> = alloca
    store v1, c0
    br block1
block1:
    cond_br v0, block2, block4
block2:
    cond_br v0, block3, block1
block3:
    v2: i32 = load v1
    store v1, v2
    br block2
block4:
    v3: i32 = load v1
    return v3
}
");
        assert_eq!(info.promoted_alloca_count, 1);
        assert_eq!(info.inserted_block_param_count, 0, "{info:?}");
        assert_eq!(info.removed_redundant_block_param_count, 2);
        let text = print_module(&module, View::Flat);
        assert!(text.contains("return c0"), "{text}");
        assert!(!text.contains("block1("), "{text}");
        let f = module.functions.values().next().unwrap();
        assert!(f
            .layout
            .blocks()
            .skip(1)
            .all(|b| f.dfg.block_params(b).is_empty()));
    }

    #[test]
    fn unreachable_predecessors_pass_arguments_too() {
        let (module, info) = run("\
const c0: i32 = 1
const c1: i32 = 2

callable @f(bool) -> i32 {
block0(v0: bool):
    v1: ptr<function, i32> = alloca
    store v1, c0
    cond_br v0, block1, block2
block1:
    store v1, c1
    br block2
block2:
    v2: i32 = load v1
    return v2
block3:
    v3: i32 = load v1
    store v1, v3
    br block2
}
");
        assert_eq!(info.promoted_alloca_count, 1);
        assert_eq!(info.inserted_block_param_count, 1);
        let text = print_module(&module, View::Flat);
        // The unreachable block passes the `undef` it read.
        assert!(text.contains("= undef"), "{text}");
        assert!(text.contains("block3:\n    br block2(c"), "{text}");
    }

    #[test]
    fn an_alloca_outside_the_entry_is_a_fresh_undef_each_time() {
        let (module, info) = run("\
const c0: u32 = 0
const c1: u32 = 1

callable @f(bool) -> u32 {
block0(v0: bool):
    br block1(c0)
block1(v1: u32):
    v2: ptr<function, u32> = alloca
    v3: u32 = load v2
    store v2, v1
    v4: u32 = add v1, c1
    cond_br v0, block1(v4), block2
block2:
    return v3
}
");
        assert_eq!(info.promoted_alloca_count, 1);
        // The load before the store reads undef on every iteration: no parameter.
        assert_eq!(info.inserted_block_param_count, 0);
        let text = print_module(&module, View::Flat);
        assert!(text.contains("return c2"), "{text}");
        assert!(text.contains("const c2: u32 = undef"), "{text}");
    }

    #[test]
    fn undef_is_not_created_when_nothing_reads_it() {
        let (module, _) = run("\
const c0: f32 = 1.5

callable @f() -> f32 {
block0:
    v0: ptr<function, f32> = alloca
    store v0, c0
    v1: f32 = load v0
    return v1
}
");
        assert_eq!(module.consts.len(), 1);
    }

    #[test]
    fn types_without_undef_are_kept() {
        let mut types = TypeStore::new();
        let f32_ty = types.f32();
        let tex = types.intern(TypeData::Sampler { comparison: false });
        let arr = types.array(tex, 2);
        let vec = types.vector(oxir_ir::Scalar::F32, 4);
        assert!(admits_undef(&types, f32_ty));
        assert!(admits_undef(&types, vec));
        assert!(!admits_undef(&types, tex));
        assert!(!admits_undef(&types, arr));
    }
}
