//! Functions and structured control flow.
//!
//! Every oxir block becomes one SPIR-V block, emitted in reverse post-order over the
//! emitted edges. Loops put `OpLoopMerge` in the loop's prepare block (the block the back
//! edge from the update block targets) with the update block as the continue target; a
//! `simple_loop` body gets a synthetic continue block (back edges into the body go there)
//! and its content is split into a second block after the `OpLoopMerge`; `if` and `switch`
//! get `OpSelectionMerge` (an `if` without merge gets a synthetic unreachable merge).
//! Block parameters become `OpPhi`s with one entry per predecessor block (the preflight
//! refuses two edges from one block carrying different arguments).

use super::*;
use oxir_ir::dominance::{reverse_post_order, Graph};

/// A node of the emitted control-flow graph: a block of the layout, or the synthetic
/// continue block of the `simple_loop` whose body is the given block.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Node {
    B(Block),
    C(Block),
}

/// The order blocks are emitted in: reverse post-order over the emitted edges, then the
/// unreachable blocks in layout order, then the unreached continue blocks in `bodies` order.
///
/// The emitted graph is numbered layout blocks first (the entry is 0), then the continue
/// blocks of `bodies`. A block's successors are its terminator's edges in order, an edge
/// for which `into_continue(from, to)` holds going to `to`'s continue block instead (a back
/// edge into a `simple_loop` body); a continue block's one successor is its body. The
/// oxir CFG (`oxir_passes::analysis::cfg`) lacks the continue blocks, whose place in the
/// order depends on which latch the depth-first walk reaches them from, so the graph here
/// is built over the writer's own numbering; over the real blocks the two orders agree.
fn emission_order(
    f: &Function,
    bodies: &[Block],
    into_continue: impl Fn(Block, Block) -> bool,
) -> R<Vec<Node>> {
    let nodes: Vec<Node> = f
        .layout
        .blocks()
        .map(Node::B)
        .chain(bodies.iter().map(|&b| Node::C(b)))
        .collect();
    let mut dense_block: SecondaryMap<Block, Option<u32>> = SecondaryMap::new();
    let mut dense_continue: SecondaryMap<Block, Option<u32>> = SecondaryMap::new();
    for (i, node) in nodes.iter().enumerate() {
        let i = u32::try_from(i).map_err(|_| "more blocks than u32 numbers")?;
        match *node {
            Node::B(b) => dense_block[b] = Some(i),
            Node::C(b) => dense_continue[b] = Some(i),
        }
    }
    let mut edges: Vec<(u32, u32)> = Vec::new();
    for node in &nodes {
        match *node {
            Node::B(block) => {
                let Some(t) = f.terminator(block) else {
                    continue;
                };
                let from = dense_block[block].ok_or("a layout block without number")?;
                for e in f.dfg.inst(t).payload.edges() {
                    let to = if into_continue(block, e.block) {
                        dense_continue[e.block].ok_or("a back edge into a body without continue")?
                    } else {
                        dense_block[e.block].ok_or("an edge to a block outside the layout")?
                    };
                    edges.push((from, to));
                }
            }
            Node::C(body) => {
                let from = dense_continue[body].ok_or("a continue block without number")?;
                let to = dense_block[body].ok_or("a simple loop body outside the layout")?;
                edges.push((from, to));
            }
        }
    }
    let graph = Graph::from_edges(nodes.len(), &edges);
    let (reverse_post, reachable) = reverse_post_order(&graph);
    let reached = reverse_post.iter().map(|&n| nodes[n as usize]);
    let unreached = nodes
        .iter()
        .zip(&reachable)
        .filter(|(_, &r)| !r)
        .map(|(&n, _)| n);
    Ok(reached.chain(unreached).collect())
}

impl Writer<'_> {
    /// Writes entry point or kept callable `func` (a callable's id is in `func_ids`, and the
    /// callables it calls are written before it).
    pub(super) fn write_function(&mut self, func: Func, f: &Function) -> R<()> {
        self.specialised_size = None;
        let (model, workgroup_size) = match f.kind {
            FunctionKind::Kernel {
                workgroup_size,
                workgroup_spec_ids,
            } => {
                if workgroup_spec_ids.iter().any(Option::is_some) {
                    let id = self.specialised_workgroup_size(workgroup_size, workgroup_spec_ids)?;
                    self.specialised_size = Some(id);
                }
                (Some(spirv::ExecutionModel::GLCompute), workgroup_size)
            }
            FunctionKind::Vertex => (Some(spirv::ExecutionModel::Vertex), [0; 3]),
            FunctionKind::Fragment => (Some(spirv::ExecutionModel::Fragment), [0; 3]),
            FunctionKind::Callable => (None, [0; 3]),
            FunctionKind::External => {
                return Err(format!("external declaration `{}` reached the writer", f.name).into())
            }
        };
        let is_kernel = model == Some(spirv::ExecutionModel::GLCompute);
        self.fragment = model == Some(spirv::ExecutionModel::Fragment);
        self.in_callable = model.is_none();
        self.values.clear();
        self.labels.clear();
        self.exit_labels.clear();
        self.interface.clear();
        self.cont_values.clear();
        self.temps.clear();
        self.folded_splats = self.splats_for_vector_times_scalar(f);
        self.outputs = if self.in_callable {
            Vec::new()
        } else {
            self.stage_outputs(f)?
        };
        let entry = f.entry_block().ok_or("entry point without body")?;

        // Roles: loop prepare blocks (header of OpLoopMerge), simple loop bodies.
        let mut prepare_of: SecondaryMap<Block, Option<(Block, Block)>> = SecondaryMap::new(); // P -> (M, U)
        let mut simple_body: SecondaryMap<Block, Option<(Block, Block)>> = SecondaryMap::new(); // B -> (H, M)
        let mut if_without_merge: SecondaryMap<Block, Option<Word>> = SecondaryMap::new();
        for block in f.layout.blocks() {
            self.labels[block] = Some(self.b.id());
            if let Some(t) = f.terminator(block) {
                match &f.dfg.inst(t).payload {
                    Payload::Loop {
                        prepare,
                        update,
                        merge,
                        ..
                    } => {
                        prepare_of[prepare.block] = Some((*merge, *update));
                    }
                    Payload::SimpleLoop { body, merge } => {
                        simple_body[body.block] = Some((block, *merge));
                    }
                    Payload::If { merge: None, .. } => {
                        let id = self.b.id();
                        if_without_merge[block] = Some(id);
                    }
                    // No role: plain branches, `if` with a merge, `switch`, the rest.
                    Payload::If { merge: Some(_), .. }
                    | Payload::Switch { .. }
                    | Payload::Jump(_)
                    | Payload::CondBranch { .. }
                    | Payload::SwitchBranch(_)
                    | Payload::None
                    | Payload::Indices(_)
                    | Payload::Callee(_)
                    | Payload::Message(_) => {}
                }
            }
        }
        for block in f.layout.blocks() {
            self.exit_labels[block] = self.labels[block];
            // A callable's entry parameters are its `OpFunctionParameter`s (ids below).
            if !(self.in_callable && block == entry) {
                for &p in f.dfg.block_params(block) {
                    self.values[p] = Some(self.b.id());
                }
            }
            for inst in f.layout.block_insts(block) {
                if let Some(r) = f.dfg.inst_result(inst) {
                    self.values[r] = Some(self.b.id());
                }
            }
        }
        // Synthetic continue blocks of simple loops, and the split-off body content.
        // Ids in block order (before, in the order of a `HashMap`'s keys: with two simple
        // loops in one function the ids depended on hashing).
        let mut continue_of: SecondaryMap<Block, Option<Word>> = SecondaryMap::new();
        let mut body_content: SecondaryMap<Block, Option<Word>> = SecondaryMap::new();
        let bodies: Vec<Block> = simple_body
            .iter()
            .filter_map(|(b, role)| role.map(|_| b))
            .collect();
        for &b in &bodies {
            continue_of[b] = Some(self.b.id());
            let n = f.dfg.block_params(b).len();
            self.cont_values[b] = (0..n).map(|_| self.b.id()).collect();
            let content = self.b.id();
            body_content[b] = Some(content);
            self.exit_labels[b] = Some(content);
        }
        // Workgroup globals with an initializer: stored by invocation 0 in a prologue.
        let wg_init: Vec<(Global, Const)> = self
            .m
            .globals
            .iter()
            .filter(|(_, g)| g.space == AddressSpace::Workgroup)
            .filter_map(|(id, g)| g.init.map(|c| (id, c)))
            .collect();
        let prologue = if wg_init.is_empty() || !is_kernel {
            None
        } else {
            let (z, mz) = (self.b.id(), self.b.id());
            self.exit_labels[entry] = Some(mz);
            Some((z, mz))
        };

        // Edge targets as emitted: back edges into a simple loop body go to its continue.
        let target = |from: Block, to: Block| -> Option<Word> {
            match simple_body[to] {
                Some((header, _)) if header != from => continue_of[to],
                Some(_) | None => None,
            }
        };

        // Predecessors (emitted edges) with their arguments, over every block in the layout.
        let mut preds: SecondaryMap<Block, Vec<(Block, Vec<Value>)>> = SecondaryMap::new();
        let mut cont_preds: SecondaryMap<Block, Vec<(Block, Vec<Value>)>> = SecondaryMap::new();
        for block in f.layout.blocks() {
            let Some(t) = f.terminator(block) else {
                continue;
            };
            let mut seen = Vec::new();
            for e in f.dfg.inst(t).payload.edges() {
                if seen.contains(&e.block) {
                    continue;
                }
                seen.push(e.block);
                let entry = (block, e.args.to_vec());
                if target(block, e.block).is_some() {
                    cont_preds[e.block].push(entry);
                } else {
                    preds[e.block].push(entry);
                }
            }
        }

        let order = emission_order(f, &bodies, |from, to| target(from, to).is_some())?;
        self.find_empty_arms(f, &preds, &target);

        // The function.
        let fid = self.begin_function(func, f, entry)?;
        let mut first = true;
        for node in order {
            match node {
                Node::C(b) => {
                    self.at.block = Some(b);
                    self.at.instruction = None;
                    let cont = continue_of[b].ok_or("a simple loop body without continue")?;
                    self.b.begin_block(Some(cont))?;
                    let incoming = cont_preds[b].clone();
                    let params = f.dfg.block_params(b).to_vec();
                    for (i, &p) in params.iter().enumerate() {
                        let t = self.ty(f.dfg.value_type(p))?;
                        let id = self.cont_values[b][i];
                        if incoming.is_empty() {
                            self.b
                                .module_mut()
                                .types_global_values
                                .push(Instruction::new(Op::Undef, Some(t), Some(id), vec![]));
                            continue;
                        }
                        let mut pairs = Vec::new();
                        for (pred, args) in &incoming {
                            pairs.push((self.val(f, args[i])?, self.exit_label(*pred)?));
                        }
                        self.b.phi(t, Some(id), pairs)?;
                    }
                    let body = self.label(b)?;
                    self.op(Op::Branch, None, None, vec![Operand::IdRef(body)])?;
                }
                Node::B(block) if self.arm_redirect[block].is_some() => {}
                Node::B(block) => {
                    self.at.block = Some(block);
                    self.at.instruction = None;
                    self.b.begin_block(Some(self.label(block)?))?;
                    if first {
                        first = false;
                        self.function_prologue(f, entry)?;
                    }
                    if block != entry {
                        // The entry block's parameters are the stage inputs.
                        self.phis(f, block, &preds, &continue_of)?;
                    }
                    if let Some((_, merge)) = simple_body[block] {
                        let cont =
                            continue_of[block].ok_or("a simple loop body without continue")?;
                        let merge = self.label(merge)?;
                        self.b
                            .loop_merge(merge, cont, spirv::LoopControl::NONE, [])?;
                        let content =
                            body_content[block].ok_or("a simple loop body without content")?;
                        self.op(Op::Branch, None, None, vec![Operand::IdRef(content)])?;
                        self.b.begin_block(Some(content))?;
                    }
                    if block == entry {
                        if let Some((z, mz)) = prologue {
                            self.zero_init(&wg_init, z, mz)?;
                        }
                    }
                    for inst in f.layout.block_insts(block) {
                        self.at.instruction = Some(inst);
                        if f.dfg.inst(inst).opcode.is_terminator() {
                            self.terminator(
                                f,
                                block,
                                inst,
                                &prepare_of,
                                &if_without_merge,
                                &target,
                            )?;
                        } else {
                            self.inst(f, inst, workgroup_size)?;
                        }
                    }
                }
            }
        }
        self.at.block = None;
        self.at.instruction = None;
        let mut merges: Vec<Word> = if_without_merge.values().flatten().copied().collect();
        merges.sort();
        for m in merges {
            self.b.begin_block(Some(m))?;
            self.op(Op::Unreachable, None, None, vec![])?;
        }
        self.b.end_function()?;
        let Some(model) = model else {
            self.callable_interfaces[func] = std::mem::take(&mut self.interface);
            self.debug_name(fid, &f.name);
            return Ok(());
        };
        self.b
            .entry_point(model, fid, f.name.clone(), self.interface.clone());
        match model {
            spirv::ExecutionModel::GLCompute => {
                self.b
                    .execution_mode(fid, spirv::ExecutionMode::LocalSize, workgroup_size);
            }
            spirv::ExecutionModel::Fragment => {
                self.b
                    .execution_mode(fid, spirv::ExecutionMode::OriginUpperLeft, []);
                let writes_depth =
                    f.signature.returns.iter().any(|r| {
                        r.binding == Some(oxir_ir::StageBinding::Builtin(Builtin::FragDepth))
                    });
                if writes_depth {
                    self.b
                        .execution_mode(fid, spirv::ExecutionMode::DepthReplacing, []);
                }
            }
            spirv::ExecutionModel::Vertex => {}
            other => return Err(format!("execution model {other:?}").into()),
        }
        self.debug_name(fid, &f.name);
        Ok(())
    }

    /// The `if` arms that are not written: an arm block without parameters or
    /// instructions whose only predecessor is its `if` and whose terminator is a plain
    /// `br` to that `if`'s merge (not a back edge). The `if` branches straight to the
    /// merge instead, and the merge's phis take the arm's arguments from the `if`'s block,
    /// which becomes the arm's exit label. At most one arm per `if`: two edges from one
    /// block to the merge would need two phi entries for one predecessor.
    fn find_empty_arms(
        &mut self,
        f: &Function,
        preds: &SecondaryMap<Block, Vec<(Block, Vec<Value>)>>,
        target: &dyn Fn(Block, Block) -> Option<Word>,
    ) {
        self.arm_redirect.clear();
        for header in f.layout.blocks() {
            let Some(t) = f.terminator(header) else {
                continue;
            };
            let Payload::If {
                then_dest,
                else_dest,
                merge: Some(merge),
            } = &f.dfg.inst(t).payload
            else {
                continue;
            };
            if then_dest.block == else_dest.block
                || then_dest.block == *merge
                || else_dest.block == *merge
            {
                continue;
            }
            for arm in [else_dest.block, then_dest.block] {
                let forwards = arm != *merge
                    && arm != header
                    && f.dfg.block_params(arm).is_empty()
                    && preds[arm].len() == 1
                    && f.layout.block_insts(arm).count() == 1
                    && f.terminator(arm).is_some_and(|at| {
                        let data = f.dfg.inst(at);
                        data.opcode == Opcode::Br
                            && matches!(&data.payload, Payload::Jump(to) if to.block == *merge)
                    })
                    && target(arm, *merge).is_none();
                if forwards {
                    self.arm_redirect[arm] = Some(*merge);
                    self.exit_labels[arm] = self.exit_labels[header];
                    break;
                }
            }
        }
    }

    /// `OpFunction` of `f`: `void()` for an entry point; for a callable its signature,
    /// with one `OpFunctionParameter` per entry parameter.
    fn begin_function(&mut self, func: Func, f: &Function, entry: Block) -> R<Word> {
        if !self.in_callable {
            let void = self.type_void();
            let fn_ty = self.type_function(void, &[]);
            return Ok(self
                .b
                .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)?);
        }
        let ret = match f.signature.returns.as_slice() {
            [] => self.type_void(),
            [one] => self.ty(one.ty)?,
            _ => return Err("a callable with several results".into()),
        };
        let mut params = Vec::new();
        for p in &f.signature.params {
            params.push(self.ty(p.ty)?);
        }
        let fn_ty = self.type_function(ret, &params);
        let fid = self.func_ids[func].ok_or("a callable without an id")?;
        self.b
            .begin_function(ret, Some(fid), spirv::FunctionControl::NONE, fn_ty)?;
        let entry_params = f.dfg.block_params(entry);
        if entry_params.len() != params.len() {
            return Err("entry parameters that do not match the signature".into());
        }
        for (&p, &t) in entry_params.iter().zip(&params) {
            self.values[p] = Some(self.b.function_parameter(t)?);
        }
        Ok(fid)
    }

    /// `OpFunctionCall` of a kept callable; the caller's interface takes the callee's.
    pub(super) fn call(&mut self, f: &Function, c: &Operands) -> R<()> {
        let Payload::Callee(callee) = f.dfg.inst(c.inst).payload else {
            return Err("a call without a callee".into());
        };
        let fid = self.func_ids[callee].ok_or("a call to a function that is not written")?;
        let rt = match c.rt {
            Some(t) => t,
            None => self.type_void(),
        };
        let mut operands = vec![Operand::IdRef(fid)];
        operands.extend(c.a.iter().map(|&a| Operand::IdRef(a)));
        self.op(Op::FunctionCall, Some(rt), c.rid, operands)?;
        for id in self.callable_interfaces[callee].clone() {
            if !self.interface.contains(&id) {
                self.interface.push(id);
            }
        }
        Ok(())
    }

    /// Function-space variables (allocas, and temporaries for dynamic composite indexing)
    /// and the loads of the stage inputs, at the start of the entry block.
    fn function_prologue(&mut self, f: &Function, entry: Block) -> R<()> {
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                let data = f.dfg.inst(inst);
                // The two kinds of op that need a function-space variable.
                let dynamic_index =
                    data.opcode == Opcode::ExtractDynamic || data.opcode == Opcode::InsertDynamic;
                if data.opcode == Opcode::Alloca {
                    {
                        let r = f.dfg.inst_result(inst).ok_or("alloca without result")?;
                        let ty = f.dfg.value_type(r);
                        let (space, _) = match self.tdata(ty) {
                            TypeData::Pointer { space, pointee } => (*space, *pointee),
                            _ => return Err("alloca of non-pointer".into()),
                        };
                        let pt = self.ty(ty)?;
                        let id = self.values[r].ok_or("alloca without id")?;
                        if space == AddressSpace::Function {
                            let inst = Instruction::new(
                                Op::Variable,
                                Some(pt),
                                Some(id),
                                vec![Operand::StorageClass(StorageClass::Function)],
                            );
                            self.b.insert_into_block(InsertPoint::End, inst)?;
                        } else {
                            let inst = Instruction::new(
                                Op::Variable,
                                Some(pt),
                                Some(id),
                                vec![Operand::StorageClass(storage_class(space))],
                            );
                            self.b.module_mut().types_global_values.push(inst);
                            self.mark_global(id);
                        }
                    }
                } else if dynamic_index {
                    {
                        let comp = f.dfg.value_type(f.resolve(data.args[0]));
                        if !matches!(self.tdata(comp), TypeData::Vector { .. }) {
                            let t = self.ty(comp)?;
                            let pt = self.type_pointer(StorageClass::Function, t);
                            let id = self.b.id();
                            let v = Instruction::new(
                                Op::Variable,
                                Some(pt),
                                Some(id),
                                vec![Operand::StorageClass(StorageClass::Function)],
                            );
                            self.b.insert_into_block(InsertPoint::End, v)?;
                            self.temps[inst] = Some(id);
                        }
                    }
                }
            }
        }
        // Entry parameters: built-in and location inputs (a callable's are parameters).
        if self.in_callable {
            return Ok(());
        }
        self.stage_inputs(f, entry)
    }

    fn zero_init(&mut self, inits: &[(Global, Const)], z: Word, mz: Word) -> R<()> {
        let u32_ty = self
            .m
            .types
            .iter()
            .find(|(_, t)| **t == TypeData::Scalar(Scalar::U32));
        let index = match u32_ty {
            Some((t, _)) => self.load_builtin(BuiltIn::LocalInvocationIndex, t, None)?,
            None => {
                // No oxir `u32` to key the shared variable by: a variable of its own.
                let u = self.type_int(32, 0);
                let var = self.io_variable(StorageClass::Input, u);
                self.b.decorate(
                    var,
                    Decoration::BuiltIn,
                    [Operand::BuiltIn(BuiltIn::LocalInvocationIndex)],
                );
                self.op(Op::Load, Some(u), None, vec![Operand::IdRef(var)])?
            }
        };
        let zero = self.const_u32(0);
        let bool_ty = self.type_bool();
        let is_first = self.op(Op::IEqual, Some(bool_ty), None, Self::ids(&[index, zero]))?;
        self.b.selection_merge(mz, spirv::SelectionControl::NONE)?;
        self.op(
            Op::BranchConditional,
            None,
            None,
            Self::ids(&[is_first, z, mz]),
        )?;
        self.b.begin_block(Some(z))?;
        for &(g, c) in inits {
            let var = self.global(g)?.id;
            self.mark_global(var);
            let value = self.constant(c)?;
            self.op(Op::Store, None, None, Self::ids(&[var, value]))?;
        }
        self.op(Op::Branch, None, None, vec![Operand::IdRef(mz)])?;
        self.b.begin_block(Some(mz))?;
        self.barrier(
            spirv::Scope::Workgroup,
            super::memory::workgroup_semantics(),
        )?;
        Ok(())
    }

    fn phis(
        &mut self,
        f: &Function,
        block: Block,
        preds: &SecondaryMap<Block, Vec<(Block, Vec<Value>)>>,
        continue_of: &SecondaryMap<Block, Option<Word>>,
    ) -> R<()> {
        let params = f.dfg.block_params(block).to_vec();
        if params.is_empty() {
            return Ok(());
        }
        let incoming = &preds[block];
        for (i, &p) in params.iter().enumerate() {
            let t = self.ty(f.dfg.value_type(p))?;
            let mut pairs = Vec::new();
            for (pred, args) in incoming {
                pairs.push((self.val(f, args[i])?, self.exit_label(*pred)?));
            }
            if let Some(cont) = continue_of[block] {
                // The continue block's value is known only once it is emitted.
                pairs.push((self.cont_values[block][i], cont));
            }
            let id = self.values[p].ok_or("a block parameter without an id")?;
            self.b.phi(t, Some(id), pairs)?;
        }
        Ok(())
    }
    /// Writes the terminator `inst` of `block`, with its merge instruction.
    fn terminator(
        &mut self,
        f: &Function,
        block: Block,
        inst: Inst,
        prepare_of: &SecondaryMap<Block, Option<(Block, Block)>>,
        if_without_merge: &SecondaryMap<Block, Option<Word>>,
        target: &dyn Fn(Block, Block) -> Option<Word>,
    ) -> R<()> {
        let data = f.dfg.inst(inst);
        let dest = |this: &Self, to: Block| match target(block, to) {
            Some(word) => Ok(word),
            None => this.label(to),
        };
        if let Some((merge, update)) = prepare_of[block] {
            let (m, u) = (self.label(merge)?, self.label(update)?);
            self.b.loop_merge(m, u, spirv::LoopControl::NONE, [])?;
        }
        let Lowering::Terminator(op) = lowering(data.opcode) else {
            return Err(format!("`{}` as a terminator", data.opcode).into());
        };
        let payload = &data.payload;
        let mismatch = || Bug::from(format!("`{}` with payload {payload:?}", data.opcode));
        match op {
            TerminatorOp::SwitchBr => {
                return Err("`switch_br` reached the writer; the preflight refuses it".into())
            }
            TerminatorOp::Br | TerminatorOp::Break | TerminatorOp::Continue => {
                let Payload::Jump(to) = payload else {
                    return Err(mismatch());
                };
                let l = dest(self, to.block)?;
                self.op(Op::Branch, None, None, vec![Operand::IdRef(l)])?;
            }
            TerminatorOp::Loop => {
                let Payload::Loop { prepare, .. } = payload else {
                    return Err(mismatch());
                };
                let l = dest(self, prepare.block)?;
                self.op(Op::Branch, None, None, vec![Operand::IdRef(l)])?;
            }
            TerminatorOp::SimpleLoop => {
                let Payload::SimpleLoop { body, .. } = payload else {
                    return Err(mismatch());
                };
                let l = dest(self, body.block)?;
                self.op(Op::Branch, None, None, vec![Operand::IdRef(l)])?;
            }
            TerminatorOp::CondBr => {
                let Payload::CondBranch {
                    then_dest,
                    else_dest,
                } = payload
                else {
                    return Err(mismatch());
                };
                let c = self.val(f, data.args[0])?;
                let arm = |this: &Self, to: Block| match this.arm_redirect[to] {
                    Some(merge) => this.label(merge),
                    None => dest(this, to),
                };
                let (t, e) = (arm(self, then_dest.block)?, arm(self, else_dest.block)?);
                self.op(Op::BranchConditional, None, None, Self::ids(&[c, t, e]))?;
            }
            TerminatorOp::If => {
                let Payload::If {
                    then_dest,
                    else_dest,
                    merge,
                } = payload
                else {
                    return Err(mismatch());
                };
                let c = self.val(f, data.args[0])?;
                let m = match merge {
                    Some(m) => self.label(*m)?,
                    None => if_without_merge[block].ok_or("an `if` without merge label")?,
                };
                self.b.selection_merge(m, spirv::SelectionControl::NONE)?;
                let arm = |this: &Self, to: Block| match this.arm_redirect[to] {
                    Some(merge) => this.label(merge),
                    None => dest(this, to),
                };
                let (t, e) = (arm(self, then_dest.block)?, arm(self, else_dest.block)?);
                self.op(Op::BranchConditional, None, None, Self::ids(&[c, t, e]))?;
            }
            TerminatorOp::Switch => {
                let Payload::Switch { table, merge } = payload else {
                    return Err(mismatch());
                };
                let sel = f.resolve(data.args[0]);
                let wide = self.scalar_of(f.dfg.value_type(sel))?.bits == 64;
                let s = self.val(f, sel)?;
                let m = self.label(*merge)?;
                self.b.selection_merge(m, spirv::SelectionControl::NONE)?;
                let mut ops = vec![
                    Operand::IdRef(s),
                    Operand::IdRef(dest(self, table.default.block)?),
                ];
                for (label, to) in &table.cases {
                    ops.push(if wide {
                        Operand::LiteralBit64(*label)
                    } else {
                        Operand::LiteralBit32(*label as u32)
                    });
                    ops.push(Operand::IdRef(dest(self, to.block)?));
                }
                self.op(Op::Switch, None, None, ops)?;
            }
            TerminatorOp::Return if self.in_callable => match data.args.as_slice() {
                [] => {
                    self.op(Op::Return, None, None, vec![])?;
                }
                [v] => {
                    let id = self.val(f, *v)?;
                    self.op(Op::ReturnValue, None, None, vec![Operand::IdRef(id)])?;
                }
                _ => return Err("a callable returning several values".into()),
            },
            TerminatorOp::Return => {
                let values: Vec<Value> = data.args.to_vec();
                self.store_outputs(f, &values)?;
                self.op(Op::Return, None, None, vec![])?;
            }
            TerminatorOp::Discard => {
                // Both end the invocation, as oxir's `discard` terminator does; SPIR-V 1.6
                // deprecates OpKill for OpTerminateInvocation.
                if self.options.target_env.spirv_version() >= (1, 6) {
                    self.op(Op::TerminateInvocation, None, None, vec![])?;
                } else {
                    self.op(Op::Kill, None, None, vec![])?;
                }
            }
            TerminatorOp::Unreachable => {
                self.op(Op::Unreachable, None, None, vec![])?;
            }
        }
        Ok(())
    }
}
