//! `sroa`: scalar replacement of aggregates. Splits a local variable of struct, array,
//! vector or matrix type that is read and written one member at a time into one local per
//! member, so that `mem2reg` (which promotes only allocas used by whole loads and stores)
//! can promote the pieces.
//!
//! **Which allocas are split.** A `function`-space `alloca` of aggregate type (struct,
//! fixed-size array, vector, matrix) reached through at least one `access`, whose every use
//! — and every use of every `access` derived from it, transitively — is
//! - the pointer operand of a `load` or a `store` (of the whole object or of a member,
//!   element, column or lane at any depth), or
//! - the base of an `access` whose indices are all constants in range (struct indices
//!   always are; array, vector and matrix indices must be constants too).
//!
//! An alloca with no `access` use is left alone: `mem2reg` promotes it whole. Every other
//! alloca of aggregate type reached through `access` is kept untouched and counted once,
//! under the first reason found: an index that is not a constant in range
//! (`skipped_dynamic_index_count`); a pointer into it used any other way — passed to a
//! call, as an edge argument, to `select`, an atomic or `array_length`, stored as a value,
//! returned (`skipped_escaping_count`); semantic metadata on the alloca or on any load,
//! store or `access` of it (the policy of `oxir_ir::metadata`: nothing could own it after
//! the split; `skipped_annotated_count`); a split needing more than
//! [`MAX_ARRAY_ELEMENTS`] elements of one array or more than [`MAX_PIECES`] pieces in all
//! (`skipped_too_large_count`). `workgroup` allocas are shared memory and never split
//! (`skipped_workgroup_count`, one per aggregate workgroup alloca). Every candidate of a
//! function is checked before the function is changed.
//!
//! **How far it splits.** On demand: an object is split into its members only when some
//! `access` reaches *into* it. The pieces are the deepest objects the accesses name: in
//! `var s: S; s.a.x = 1; s.b = v;` with `S { a: vec4<f32>, b: vec2<f32> }`, `s` becomes
//! `s.a.x`, `s.a.y`, `s.a.z`, `s.a.w` and `s.b` (a `vec2` piece, never split because
//! nothing indexes it). A piece is created only if something reads or writes it: a
//! member no load or store of itself or of an enclosing object touches gets no alloca.
//!
//! **The rewrite.** The pieces' allocas take the original alloca's place, in member
//! order (so an alloca in a loop is still a fresh object each iteration), named
//! `NAME.i.j` after a named original. A load or store through an `access` that names a
//! piece uses the piece's alloca instead (`rewritten_load_count`,
//! `rewritten_store_count`). A load of an object that was split (the whole alloca, or an
//! `access` to a split member) becomes one load per piece and `construct`s rebuilding the
//! value bottom up (`split_load_count`); a store of such an object becomes one `extract`
//! per piece of the stored value (also when it is a constant such as `zero`: `const-fold`
//! folds those extracts later) and one store per piece (`split_store_count`). The
//! replacement instructions copy the presentation metadata of the load or store they
//! replace. The `access` instructions and the original alloca are removed
//! (`removed_access_count`).
//!
//! **Control-flow forms.** Plain and structured functions alike: the pass never changes
//! the CFG, and only instructions are inserted and removed.
//!
//! **What it does not do.** It does not split allocas indexed dynamically (no partial
//! split with the dynamic part kept whole), does not follow pointers through block
//! parameters, `select`s or calls, does not split globals (`private-to-function` turns
//! private globals into allocas first), does not promote the pieces to SSA values
//! (`mem2reg` does) and does not fold the `construct`s and `extract`s it creates
//! (`const-fold` and `algebraic-simplify` do). Splitting interns the element types of
//! vectors and matrices it examines; they are never printed (only structs are), so a
//! function whose allocas are all kept prints byte-identically.
//!
//! ```text
//! v1: ptr<function, vec2<f32>> = alloca      v5: ptr<function, f32> = alloca
//! v2: ptr<function, f32> = access v1, c0     v6: ptr<function, f32> = alloca
//! store v2, v0                          ==>  store v5, v0
//! v3: ptr<function, f32> = access v1, c1     store v6, v0
//! store v3, v0                               v7: f32 = load v5
//! v4: vec2<f32> = load v1                    v8: f32 = load v6
//!                                            v4: vec2<f32> = construct v7, v8
//! ```
//!
//! Counters: `split_alloca_count`, `created_alloca_count` (piece allocas),
//! `removed_access_count`, the load and store counts and the `skipped_*` counts above.

use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, PrimaryMap, SecondaryMap};
use oxir_ir::types::TypeStore;
use oxir_ir::{
    AddressSpace, Func, Function, Inst, InstData, Metadata, Module, Opcode, Payload, Type,
    TypeData, Value, ValueDef,
};
use smallvec::SmallVec;

/// The most elements of one array a split creates.
pub const MAX_ARRAY_ELEMENTS: u32 = 16;

/// The most pieces one alloca is split into.
pub const MAX_PIECES: u32 = 64;

pass_info! {
    pass: "sroa",
    /// Counters of `sroa`.
    pub struct SroaInfo {
        /// Allocas split into pieces (and removed).
        split_alloca_count,
        /// Piece allocas created.
        created_alloca_count,
        /// `access` instructions into split allocas removed.
        removed_access_count,
        /// Loads of a piece, now through the piece's alloca.
        rewritten_load_count,
        /// Loads of a split object, replaced by per-piece loads and `construct`s.
        split_load_count,
        /// Stores to a piece, now through the piece's alloca.
        rewritten_store_count,
        /// Stores of a split object, replaced by per-piece `extract`s and stores.
        split_store_count,
        /// Allocas kept because an index into them is not a constant in range.
        skipped_dynamic_index_count,
        /// Allocas kept because a pointer into them is used other than by a load, a
        /// store or a constant `access`.
        skipped_escaping_count,
        /// Allocas kept because they, or a load, store or access of them, carry semantic
        /// metadata.
        skipped_annotated_count,
        /// Allocas kept because the split would exceed the size budget.
        skipped_too_large_count,
        /// Workgroup allocas of aggregate type (never split).
        skipped_workgroup_count,
    }
    changed_by: [split_alloca_count]
}

/// An object of a candidate alloca: the whole alloca or a member at some depth. Prints
/// as `nodeN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Node(u32);
entity_impl!(Node, "node");

/// An alloca considered for splitting, in layout order. Prints as `candidateN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Candidate(u32);
entity_impl!(Candidate, "candidate");

struct NodeData {
    candidate: Candidate,
    /// The object's type.
    ty: Type,
    /// The members, once something indexes into the object (empty: a piece).
    children: SmallVec<[Node; 4]>,
    /// Whether a load or store names this object itself.
    accessed: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Verdict {
    Split,
    DynamicIndex,
    Escapes,
    Annotated,
    TooLarge,
}

struct CandidateData {
    alloca: Inst,
    root: Node,
    /// The current number of pieces (nodes without children).
    pieces: u32,
    verdict: Verdict,
    /// The `access` instructions derived from the alloca.
    accesses: Vec<Inst>,
    /// The loads and stores through the alloca or its accesses, in layout order.
    memory_ops: Vec<Inst>,
}

impl CandidateData {
    /// Records the first reason to keep the alloca.
    fn refuse(&mut self, verdict: Verdict) {
        if self.verdict == Verdict::Split {
            self.verdict = verdict;
        }
    }
}

/// What the analysis found in one function.
struct Analysis {
    nodes: PrimaryMap<Node, NodeData>,
    candidates: PrimaryMap<Candidate, CandidateData>,
    /// The object each pointer into a candidate names (alloca results and accesses).
    node_of: SecondaryMap<Value, PackedOption<Node>>,
}

/// Splits the splittable allocas of `func`.
pub fn run_on_function(module: &mut Module, func: Func) -> SroaInfo {
    let mut info = SroaInfo::default();
    let Some(function) = module.functions.get(func) else {
        return info;
    };
    if function.entry_block().is_none() {
        return info;
    }
    let access_indices = constant_access_indices(module, function);
    let Module {
        types, functions, ..
    } = module;
    let Some(function) = functions.get_mut(func) else {
        return info;
    };
    let analysis = analyse(types, function, &access_indices, &mut info);
    for c in analysis.candidates.keys() {
        let candidate = &analysis.candidates[c];
        if candidate.accesses.is_empty() {
            continue;
        }
        match candidate.verdict {
            Verdict::Split => {}
            Verdict::DynamicIndex => info.skipped_dynamic_index_count += 1,
            Verdict::Escapes => info.skipped_escaping_count += 1,
            Verdict::Annotated => info.skipped_annotated_count += 1,
            Verdict::TooLarge => info.skipped_too_large_count += 1,
        }
    }
    let splits: Vec<Candidate> = analysis
        .candidates
        .iter()
        .filter(|(_, c)| c.verdict == Verdict::Split && !c.accesses.is_empty())
        .map(|(k, _)| k)
        .collect();
    for c in splits {
        split(types, function, &analysis, c, &mut info);
    }
    info
}

/// Splits the splittable allocas of every function with a body.
pub fn run_on_module(module: &mut Module) -> SroaInfo {
    let mut info = SroaInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// The placed instructions of `function`, in layout order.
fn placed(function: &Function) -> impl Iterator<Item = Inst> + '_ {
    let layout = &function.layout;
    layout
        .blocks()
        .flat_map(move |block| layout.block_insts(block))
}

/// An `access` and its indices: `None` when one of them is not a constant that fits in
/// `u32` (an index out of range for its level is found later).
struct AccessUse {
    inst: Inst,
    indices: Option<SmallVec<[u32; 4]>>,
}

/// Every placed `access`, grouped by its (alias-resolved) base pointer.
struct AccessIndex {
    uses: Vec<AccessUse>,
    by_base: SecondaryMap<Value, SmallVec<[u32; 2]>>,
}

fn constant_access_indices(module: &Module, function: &Function) -> AccessIndex {
    let dfg = &function.dfg;
    let mut index = AccessIndex {
        uses: Vec::new(),
        by_base: SecondaryMap::new(),
    };
    for inst in placed(function) {
        let data = dfg.inst(inst);
        if data.opcode != Opcode::Access || data.args.is_empty() {
            continue;
        }
        let indices = data.args[1..]
            .iter()
            .map(|&v| match dfg.value_def(dfg.resolve(v)) {
                ValueDef::Const(c) => module
                    .const_scalar_value(c)
                    .and_then(|(_, bits)| u32::try_from(bits).ok()),
                ValueDef::Result(_)
                | ValueDef::Param(..)
                | ValueDef::Global(_)
                | ValueDef::Alias(_)
                | ValueDef::Detached => None,
            })
            .collect();
        let number = index.uses.len() as u32;
        index.uses.push(AccessUse { inst, indices });
        index.by_base[dfg.resolve(data.args[0])].push(number);
    }
    index
}

/// Finds the candidates of `function` and decides, for each, whether it can be split.
/// Changes nothing but the type store (element types interned).
fn analyse(
    types: &mut TypeStore,
    function: &Function,
    access_index: &AccessIndex,
    info: &mut SroaInfo,
) -> Analysis {
    let dfg = &function.dfg;
    let mut analysis = Analysis {
        nodes: PrimaryMap::new(),
        candidates: PrimaryMap::new(),
        node_of: SecondaryMap::new(),
    };
    let mut worklist: Vec<Value> = Vec::new();
    for inst in placed(function) {
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
        if !is_aggregate(types, pointee) {
            continue;
        }
        match space {
            AddressSpace::Function => {}
            AddressSpace::Workgroup => {
                info.skipped_workgroup_count += 1;
                continue;
            }
            // Not a local variable (the verifier allows only function and workgroup
            // allocas; anything else is left alone).
            AddressSpace::Private
            | AddressSpace::Storage(_)
            | AddressSpace::Uniform
            | AddressSpace::PushConstant
            | AddressSpace::Handle => continue,
        }
        let candidate = analysis.candidates.next_key();
        let root = analysis.nodes.push(NodeData {
            candidate,
            ty: pointee,
            children: SmallVec::new(),
            accessed: false,
        });
        let mut data = CandidateData {
            alloca: inst,
            root,
            pieces: 1,
            verdict: Verdict::Split,
            accesses: Vec::new(),
            memory_ops: Vec::new(),
        };
        if dfg.metadata(inst).is_some_and(Metadata::is_annotated) {
            data.refuse(Verdict::Annotated);
        }
        analysis.candidates.push(data);
        analysis.node_of[address] = root.into();
        worklist.push(address);
    }
    // Follow every `access` chain from the allocas (bases before the accesses on them).
    while let Some(base) = worklist.pop() {
        let Some(node) = analysis.node_of[base].expand() else {
            continue;
        };
        for &number in &access_index.by_base[base] {
            let access = &access_index.uses[number as usize];
            if let Some(result) = analysis.follow(types, dfg, node, access) {
                worklist.push(result);
            }
        }
    }
    analysis.check_uses(function);
    analysis
}

impl Analysis {
    /// Records `access` (based on `node`'s object) and returns its result when it names
    /// an object of the candidate.
    fn follow(
        &mut self,
        types: &mut TypeStore,
        dfg: &oxir_ir::DataFlowGraph,
        node: Node,
        access: &AccessUse,
    ) -> Option<Value> {
        let c = self.nodes[node].candidate;
        self.candidates[c].accesses.push(access.inst);
        let Some(indices) = &access.indices else {
            self.candidates[c].refuse(Verdict::DynamicIndex);
            return None;
        };
        let mut current = node;
        for &k in indices {
            match self.child(types, current, k) {
                Ok(child) => current = child,
                Err(verdict) => {
                    self.candidates[c].refuse(verdict);
                    return None;
                }
            }
        }
        let result = dfg.inst_result(access.inst)?;
        let pointee = match types.try_get(dfg.value_type(result)) {
            Some(&TypeData::Pointer { pointee, .. }) => Some(pointee),
            _ => None,
        };
        if pointee != Some(self.nodes[current].ty) {
            // Only a malformed function gets here.
            self.candidates[c].refuse(Verdict::Escapes);
            return None;
        }
        self.node_of[result] = current.into();
        Some(result)
    }

    /// Member `k` of `node`'s object, splitting the object first if it is a piece.
    fn child(&mut self, types: &mut TypeStore, node: Node, k: u32) -> Result<Node, Verdict> {
        if self.nodes[node].children.is_empty() {
            let c = self.nodes[node].candidate;
            let members = member_types(types, self.nodes[node].ty)?;
            let pieces = self.candidates[c].pieces - 1 + members.len() as u32;
            if members.is_empty() || pieces > MAX_PIECES {
                return Err(Verdict::TooLarge);
            }
            self.candidates[c].pieces = pieces;
            for ty in members {
                let child = self.nodes.push(NodeData {
                    candidate: c,
                    ty,
                    children: SmallVec::new(),
                    accessed: false,
                });
                self.nodes[node].children.push(child);
            }
        }
        self.nodes[node]
            .children
            .get(k as usize)
            .copied()
            .ok_or(Verdict::DynamicIndex)
    }

    /// Checks every use of every pointer into a candidate and records the loads and
    /// stores.
    fn check_uses(&mut self, function: &Function) {
        let dfg = &function.dfg;
        for inst in placed(function) {
            let data = dfg.inst(inst);
            let annotated = dfg.metadata(inst).is_some_and(Metadata::is_annotated);
            let memory_op = matches!(data.opcode, Opcode::Load | Opcode::Store);
            for (k, &v) in data.args.iter().enumerate() {
                let Some(node) = self.node_of[dfg.resolve(v)].expand() else {
                    continue;
                };
                let candidate = &mut self.candidates[self.nodes[node].candidate];
                if annotated {
                    candidate.refuse(Verdict::Annotated);
                }
                if k != 0 {
                    candidate.refuse(Verdict::Escapes);
                } else if memory_op {
                    candidate.memory_ops.push(inst);
                    self.nodes[node].accessed = true;
                } else if data.opcode != Opcode::Access {
                    candidate.refuse(Verdict::Escapes);
                }
            }
            for edge in data.payload.edges() {
                for &v in &edge.args {
                    if let Some(node) = self.node_of[dfg.resolve(v)].expand() {
                        self.candidates[self.nodes[node].candidate].refuse(Verdict::Escapes);
                    }
                }
            }
        }
    }
}

/// Whether `ty` is an aggregate this pass may split: a struct, fixed-size array, vector
/// or matrix.
fn is_aggregate(types: &TypeStore, ty: Type) -> bool {
    types.try_get(ty).is_some_and(TypeData::is_composite)
}

/// The member types of an aggregate: struct members, array elements, vector lanes,
/// matrix columns. `Escapes` for a type `access` cannot index (a malformed function),
/// `TooLarge` for an array over the budget.
fn member_types(types: &mut TypeStore, ty: Type) -> Result<Vec<Type>, Verdict> {
    match types.try_get(ty).cloned() {
        Some(TypeData::Struct(st)) => Ok(st.members.iter().map(|m| m.ty).collect()),
        Some(TypeData::Array { elem, len, .. }) => {
            if len > MAX_ARRAY_ELEMENTS {
                return Err(Verdict::TooLarge);
            }
            Ok(vec![elem; len as usize])
        }
        Some(TypeData::Vector { elem, len }) => Ok(vec![types.scalar(elem); usize::from(len)]),
        Some(TypeData::Matrix {
            elem,
            columns,
            rows,
        }) => Ok(vec![types.vector(elem, rows); usize::from(columns)]),
        Some(
            TypeData::Void
            | TypeData::Scalar(_)
            | TypeData::RuntimeArray { .. }
            | TypeData::Pointer { .. }
            | TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. }
            | TypeData::Opaque(_),
        )
        | None => Err(Verdict::Escapes),
    }
}

/// Rewrites one candidate that passed every check.
fn split(
    types: &mut TypeStore,
    function: &mut Function,
    analysis: &Analysis,
    c: Candidate,
    info: &mut SroaInfo,
) {
    let candidate = &analysis.candidates[c];
    let alloca = candidate.alloca;
    let mut rewriter = Rewriter {
        function,
        nodes: &analysis.nodes,
        piece_address: SecondaryMap::new(),
    };
    rewriter.create_pieces(types, alloca, candidate.root, info);
    for &inst in &candidate.memory_ops {
        let pointer = rewriter.function.dfg.inst(inst).args[0];
        let pointer = rewriter.function.dfg.resolve(pointer);
        if let Some(node) = analysis.node_of[pointer].expand() {
            rewriter.rewrite_memory_op(inst, node, info);
        }
    }
    for &access in &candidate.accesses {
        function.remove_inst(access);
    }
    function.remove_inst(alloca);
    info.removed_access_count += candidate.accesses.len() as u64;
    info.split_alloca_count += 1;
}

struct Rewriter<'a> {
    function: &'a mut Function,
    nodes: &'a PrimaryMap<Node, NodeData>,
    /// The alloca of each piece that was created.
    piece_address: SecondaryMap<Node, PackedOption<Value>>,
}

impl Rewriter<'_> {
    /// Creates an alloca before `alloca` for every piece a load or store reaches (its own
    /// or an enclosing object's), in member order.
    fn create_pieces(
        &mut self,
        types: &mut TypeStore,
        alloca: Inst,
        root: Node,
        info: &mut SroaInfo,
    ) {
        let name = self
            .function
            .dfg
            .metadata(alloca)
            .and_then(|md| md.name.clone());
        // (node, whether it or an enclosing object is loaded or stored, name)
        let mut stack: Vec<(Node, bool, Option<String>)> = vec![(root, false, name)];
        while let Some((node, reached, name)) = stack.pop() {
            let data = &self.nodes[node];
            let reached = reached || data.accessed;
            if data.children.is_empty() {
                if reached {
                    let pointer = types.pointer(AddressSpace::Function, data.ty);
                    let dfg = &mut self.function.dfg;
                    let inst = dfg.make_inst(InstData::new(Opcode::Alloca, &[]));
                    let address = dfg.make_result(inst, pointer);
                    if let Some(name) = name {
                        dfg.metadata_mut(inst).name = Some(name);
                    }
                    self.function.layout.insert_inst_before(inst, alloca);
                    self.piece_address[node] = address.into();
                    info.created_alloca_count += 1;
                }
                continue;
            }
            // Reversed so that members are created in order.
            for (k, &child) in data.children.iter().enumerate().rev() {
                let child_name = name.as_ref().map(|n| format!("{n}.{k}"));
                stack.push((child, reached, child_name));
            }
        }
    }

    fn rewrite_memory_op(&mut self, inst: Inst, node: Node, info: &mut SroaInfo) {
        let opcode = self.function.dfg.inst(inst).opcode;
        let is_load = opcode == Opcode::Load;
        if self.nodes[node].children.is_empty() {
            let Some(address) = self.piece_address[node].expand() else {
                return;
            };
            self.function.dfg.inst_mut(inst).args[0] = address;
            if is_load {
                info.rewritten_load_count += 1;
            } else {
                info.rewritten_store_count += 1;
            }
            return;
        }
        let metadata = self.function.dfg.metadata(inst).cloned();
        if is_load {
            let Some(result) = self.function.dfg.inst_result(inst) else {
                return;
            };
            let Some(top) = self.load_object(node, inst, metadata.as_ref()) else {
                return;
            };
            // The rebuilt value keeps the load's value number: no use changes.
            self.function.remove_inst(inst);
            let ty = self.nodes[node].ty;
            self.function.dfg.attach_result(top, result, ty);
            info.split_load_count += 1;
        } else {
            let stored = self.function.dfg.inst(inst).args[1];
            self.store_object(node, stored, inst, metadata.as_ref());
            self.function.remove_inst(inst);
            info.split_store_count += 1;
        }
    }

    /// Places a new instruction before `before` and returns its result of type `ty`.
    fn place(&mut self, data: InstData, ty: Option<Type>, before: Inst) -> (Inst, Option<Value>) {
        let dfg = &mut self.function.dfg;
        let inst = dfg.make_inst(data);
        let result = ty.map(|ty| dfg.make_result(inst, ty));
        self.function.layout.insert_inst_before(inst, before);
        (inst, result)
    }

    /// Loads `node`'s object piece by piece before `before` and rebuilds it with
    /// `construct`s, innermost first; returns the outermost `construct`, placed but without
    /// a result yet (it takes the load's), carrying `metadata`. `None` only if a piece has
    /// no alloca, which `create_pieces` rules out (every piece of a loaded object gets
    /// one); nothing is placed then.
    fn load_object(
        &mut self,
        node: Node,
        before: Inst,
        metadata: Option<&Metadata>,
    ) -> Option<Inst> {
        if self
            .pieces_under(node)
            .any(|n| self.piece_address[n].is_none())
        {
            return None;
        }
        // Post-order without recursion: (node, whether its members are done).
        let mut stack: Vec<(Node, bool)> = vec![(node, false)];
        let mut values: Vec<Value> = Vec::new();
        while let Some((n, done)) = stack.pop() {
            let data = &self.nodes[n];
            let ty = data.ty;
            if let Some(address) = self.piece_address[n].expand() {
                let load = InstData::new(Opcode::Load, &[address]);
                let (_, value) = self.place(load, Some(ty), before);
                values.extend(value);
            } else if !done {
                stack.push((n, true));
                stack.extend(data.children.iter().rev().map(|&child| (child, false)));
            } else {
                let parts = values.split_off(values.len().saturating_sub(data.children.len()));
                let construct = InstData::new(Opcode::Construct, &parts);
                if n == node {
                    let (inst, _) = self.place(construct, None, before);
                    if let Some(md) = metadata {
                        self.function.dfg.set_metadata(inst, md.clone());
                    }
                    return Some(inst);
                }
                let (_, value) = self.place(construct, Some(ty), before);
                values.extend(value);
            }
        }
        None
    }

    /// The pieces of `node`'s object (itself, when it is one), in member order.
    fn pieces_under(&self, node: Node) -> impl Iterator<Item = Node> + '_ {
        let mut stack = vec![node];
        std::iter::from_fn(move || {
            while let Some(n) = stack.pop() {
                let children = &self.nodes[n].children;
                if children.is_empty() {
                    return Some(n);
                }
                stack.extend(children.iter().rev());
            }
            None
        })
    }

    /// Stores `stored` (of `node`'s type) piece by piece before `before`: one `extract`
    /// and one store per piece, the stores carrying `metadata`.
    fn store_object(
        &mut self,
        node: Node,
        stored: Value,
        before: Inst,
        metadata: Option<&Metadata>,
    ) {
        let mut stack: Vec<(Node, SmallVec<[u32; 4]>)> = vec![(node, SmallVec::new())];
        while let Some((n, path)) = stack.pop() {
            let data = &self.nodes[n];
            if data.children.is_empty() {
                let ty = data.ty;
                let Some(address) = self.piece_address[n].expand() else {
                    continue;
                };
                let extract = InstData::with_payload(
                    Opcode::Extract,
                    &[stored],
                    Payload::Indices(path.to_vec().into_boxed_slice()),
                );
                let (_, part) = self.place(extract, Some(ty), before);
                let Some(part) = part else {
                    continue;
                };
                let (store, _) =
                    self.place(InstData::new(Opcode::Store, &[address, part]), None, before);
                if let Some(md) = metadata {
                    self.function.dfg.set_metadata(store, md.clone());
                }
                continue;
            }
            for (k, &child) in data.children.iter().enumerate().rev() {
                let mut child_path = path.clone();
                child_path.push(k as u32);
                stack.push((child, child_path));
            }
        }
    }
}
