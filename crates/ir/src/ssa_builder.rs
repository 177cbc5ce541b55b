//! SSA construction with on-the-fly block parameters (Braun et al. 2013, "Simple and
//! Efficient Construction of Static Single Assignment Form").
//!
//! A front-end declares [`Variable`]s, records assignments with
//! [`SsaBuilder::def_var`] and reads them with [`SsaBuilder::use_var`]; block parameters
//! and edge arguments are placed automatically. The [`SsaBuilder`] works beside a
//! [`FunctionBuilder`]: instructions, blocks and branches are emitted through the builder,
//! and the SSA builder learns the CFG from the terminators.
//!
//! Contract with the caller:
//! - **One function.** An `SsaBuilder` serves the function of the first builder it sees.
//! - **Definitions in order.** Within a block, `def_var` / `use_var` follow program order;
//!   the value of a variable at the end of a block is its last definition there.
//! - **Sealing.** Call [`SsaBuilder::seal_block`] once every branch into the block has
//!   been emitted (no edge into a sealed block may be added later); reading a variable in
//!   a sealed block reads it in its (filled) predecessors. [`SsaBuilder::seal_all_blocks`]
//!   seals the rest at the end. The entry block has no predecessors and is always sealed.
//! - **Explicit parameters first.** Parameters a front-end adds by hand (with their edge
//!   arguments) come before any the SSA builder adds to the same block.
//!
//! Invariants the builder maintains:
//! - Predecessors are the terminators with an *executable edge* to a block
//!   ([`crate::instructions::Payload::edges`]); structural roles (merge, body, update) are
//!   not edges. They are learnt by scanning the instructions created since the last scan,
//!   when a block is sealed.
//! - Every edge into a sealed block carries one argument per parameter; an SSA parameter's
//!   argument on an edge is the variable's value at the end of the edge's source block.
//! - No trivial parameter survives: a parameter whose incoming values are all itself or
//!   one other value `V` is replaced by `V` (O(1) aliasing via
//!   [`crate::dfg::DataFlowGraph::replace_all_uses`]), removed with its edge arguments, and
//!   the SSA parameters that used it are re-examined. A parameter with no incoming value
//!   other than itself becomes `undef`.
//! - A variable read on a path where it was never defined is `undef` of its type.
//!
//! The lookup is an explicit state machine (no recursion), so long predecessor chains
//! cannot overflow the stack. All side tables are dense (`SecondaryMap`).

use crate::builder::FunctionBuilder;
use crate::dfg::ValueDef;
use crate::entities::{Block, Func, Inst, Type, Value};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};
use smallvec::SmallVec;

/// A front-end variable, turned into SSA values by the [`SsaBuilder`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variable(u32);
entity_impl!(Variable, "var");

/// Per-block state.
#[derive(Clone, Debug, Default)]
struct SsaBlock {
    sealed: bool,
    /// Parameters added while the block was unsealed; they get their arguments when it is
    /// sealed.
    incomplete: Vec<(Variable, Value)>,
    /// Terminators with an edge into this block: candidates until sealed, exact after.
    preds: SmallVec<[Inst; 2]>,
}

/// What the SSA builder knows about a value.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum ParamState {
    /// Not a parameter this builder placed (or one it removed).
    #[default]
    NotOurs,
    /// Placed; edge arguments not yet added.
    Incomplete,
    /// Placed, with one argument on every edge into its block.
    Complete,
}

/// One step of the lookup state machine.
#[derive(Copy, Clone, Debug)]
enum Call {
    /// Push the variable's value at the end of the block.
    Use(Block),
    /// Pop one value per predecessor, add them as the parameter's arguments, simplify,
    /// and push the parameter's final value.
    Finish(Value, Block),
}

/// SSA construction state for one function. See the module docs.
#[derive(Default)]
pub struct SsaBuilder {
    func: Option<Func>,
    vars: PrimaryMap<Variable, Type>,
    /// The current definition of each variable at the end of each block.
    defs: SecondaryMap<Variable, SecondaryMap<Block, PackedOption<Value>>>,
    blocks: SecondaryMap<Block, SsaBlock>,
    params: SecondaryMap<Value, ParamState>,
    /// SSA parameters that take each SSA parameter as an argument.
    users: SecondaryMap<Value, SmallVec<[Value; 2]>>,
    /// Instructions below this index have been scanned for edges.
    scanned: usize,
    /// Cycle detection on single-predecessor chains (unreachable code).
    visited: SecondaryMap<Block, u32>,
    epoch: u32,
    calls: Vec<Call>,
    results: Vec<Value>,
    chain: Vec<Block>,
    worklist: Vec<Value>,
}

impl SsaBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares a variable of type `ty`.
    pub fn declare_var(&mut self, ty: Type) -> Variable {
        self.vars.push(ty)
    }

    /// The type of `var`. Panics when `var` was not declared by this builder.
    pub fn var_type(&self, var: Variable) -> Type {
        self.vars[var]
    }

    /// Records that `var` holds `value` (which must have the variable's type) from here to
    /// the end of `block`, or to the next `def_var` in it.
    pub fn def_var(&mut self, block: Block, var: Variable, value: Value) {
        self.defs[var][block] = value.into();
    }

    /// The value of `var` at the current point of `block`, placing block parameters as
    /// needed. Panics when `var` was not declared by this builder or `fb` builds another
    /// function than the one this builder serves.
    pub fn use_var(&mut self, fb: &mut FunctionBuilder, block: Block, var: Variable) -> Value {
        self.bind(fb);
        let ty = self.vars[var];
        self.calls.push(Call::Use(block));
        self.run(fb, var, ty)
    }

    /// Whether `block` is sealed (the entry block always is).
    pub fn is_sealed(&self, fb: &FunctionBuilder, block: Block) -> bool {
        self.blocks[block].sealed || fb.entry_block() == Some(block)
    }

    /// Declares that every branch into `block` exists: completes the parameters placed
    /// while it was unsealed and removes those that turn out trivial.
    pub fn seal_block(&mut self, fb: &mut FunctionBuilder, block: Block) {
        self.bind(fb);
        if self.blocks[block].sealed {
            return;
        }
        self.scan(fb);
        let f = fb.function();
        let mut preds = std::mem::take(&mut self.blocks[block].preds);
        preds.retain(|&mut inst| {
            f.layout.inst_block(inst).is_some()
                && f.dfg
                    .inst(inst)
                    .payload
                    .edges()
                    .iter()
                    .any(|e| e.block == block)
        });
        preds.dedup();
        let state = &mut self.blocks[block];
        state.preds = preds;
        state.sealed = true;
        let incomplete = std::mem::take(&mut state.incomplete);
        for (var, param) in incomplete {
            self.calls.push(Call::Finish(param, block));
            self.push_pred_uses(fb, block);
            self.run(fb, var, self.vars[var]);
        }
    }

    /// Seals every block of the layout that is not sealed yet.
    pub fn seal_all_blocks(&mut self, fb: &mut FunctionBuilder) {
        self.bind(fb);
        let blocks: Vec<Block> = fb.function().layout.blocks().collect();
        for block in blocks {
            self.seal_block(fb, block);
        }
    }

    fn bind(&mut self, fb: &FunctionBuilder) {
        match self.func {
            None => self.func = Some(fb.func_id()),
            Some(f) => assert_eq!(f, fb.func_id(), "an SsaBuilder serves one function"),
        }
    }

    /// Records the edges of terminators created since the last scan.
    fn scan(&mut self, fb: &FunctionBuilder) {
        let dfg = &fb.function().dfg;
        let count = dfg.num_insts();
        for index in self.scanned..count {
            let inst = Inst::new(index);
            let data = dfg.inst(inst);
            if !data.opcode.is_terminator() {
                continue;
            }
            for edge in data.payload.edges() {
                let state = &mut self.blocks[edge.block];
                // An edge into a sealed block breaks the contract; the verifier reports
                // its missing arguments.
                if !state.sealed && state.preds.last() != Some(&inst) {
                    state.preds.push(inst);
                }
            }
        }
        self.scanned = count;
    }

    /// Pushes one `Use` per predecessor of the sealed `block`, so that the results come
    /// out in predecessor order.
    fn push_pred_uses(&mut self, fb: &FunctionBuilder, block: Block) {
        let layout = &fb.function().layout;
        for &pred in self.blocks[block].preds.iter().rev() {
            // Predecessors were filtered to placed terminators when `block` was sealed; one
            // removed since reads the block itself, which adds no incoming value.
            let source = layout.inst_block(pred).unwrap_or(block);
            self.calls.push(Call::Use(source));
        }
    }

    /// Runs the state machine until the call stack is empty; returns the one result.
    fn run(&mut self, fb: &mut FunctionBuilder, var: Variable, ty: Type) -> Value {
        while let Some(call) = self.calls.pop() {
            match call {
                Call::Use(block) => {
                    if let Some(v) = self.lookup(fb, var, ty, block) {
                        self.results.push(v);
                    }
                }
                Call::Finish(param, block) => {
                    let n = self.blocks[block].preds.len();
                    let args = self.results.split_off(self.results.len() - n);
                    self.add_param_args(fb, block, param, &args);
                    self.remove_trivial(fb, param);
                    self.results.push(fb.function().dfg.resolve(param));
                }
            }
        }
        let value = self.results.pop();
        debug_assert!(self.results.is_empty(), "SSA lookup left extra results");
        value.unwrap_or_else(|| fb.undef(ty))
    }

    /// The value of `var` at the end of `block`: immediately when known or when a
    /// parameter of an unsealed block or `undef` stands for it; `None` when a parameter
    /// was placed whose arguments are looked up first (a `Finish` call is pending).
    fn lookup(
        &mut self,
        fb: &mut FunctionBuilder,
        var: Variable,
        ty: Type,
        block: Block,
    ) -> Option<Value> {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.visited.clear();
            self.epoch = 1;
        }
        self.chain.clear();
        let mut b = block;
        let (value, pending) = loop {
            if let Some(v) = self.defs[var][b].expand() {
                break (fb.function().dfg.resolve(v), false);
            }
            if self.visited[b] == self.epoch {
                // A cycle of single-predecessor blocks: unreachable code.
                break (fb.undef(ty), false);
            }
            self.visited[b] = self.epoch;
            if !self.is_sealed(fb, b) {
                let param = self.place_param(fb, b, ty);
                self.blocks[b].incomplete.push((var, param));
                break (param, false);
            }
            let preds = &self.blocks[b].preds;
            if fb.entry_block() == Some(b) {
                break (fb.undef(ty), false);
            }
            match preds.len() {
                0 => break (fb.undef(ty), false),
                1 => {
                    let pred = preds[0];
                    match fb.function().layout.inst_block(pred) {
                        Some(source) => {
                            self.chain.push(b);
                            b = source;
                        }
                        None => break (fb.undef(ty), false),
                    }
                }
                _ => {
                    let param = self.place_param(fb, b, ty);
                    self.calls.push(Call::Finish(param, b));
                    self.push_pred_uses(fb, b);
                    break (param, true);
                }
            }
        };
        self.defs[var][b] = value.into();
        for &c in &self.chain {
            self.defs[var][c] = value.into();
        }
        (!pending).then_some(value)
    }

    fn place_param(&mut self, fb: &mut FunctionBuilder, block: Block, ty: Type) -> Value {
        let param = fb.create_block_param(block, ty);
        self.params[param] = ParamState::Incomplete;
        param
    }

    /// Adds `args` (one per predecessor, in order) to every edge into `block`, at the
    /// position of `param`.
    fn add_param_args(
        &mut self,
        fb: &mut FunctionBuilder,
        block: Block,
        param: Value,
        args: &[Value],
    ) {
        let dfg = &mut fb.function_mut().dfg;
        let ValueDef::Param(_, index) = dfg.values[param].def else {
            return;
        };
        let index = index as usize;
        for (&pred, &arg) in self.blocks[block].preds.iter().zip(args) {
            for edge in dfg.inst_mut(pred).payload.edges_mut() {
                if edge.block == block {
                    let at = index.min(edge.args.len());
                    edge.args.insert(at, arg);
                }
            }
        }
        self.params[param] = ParamState::Complete;
        for &arg in args {
            let arg = dfg.resolve(arg);
            if arg != param && self.params[arg] != ParamState::NotOurs {
                self.users[arg].push(param);
            }
        }
    }

    /// Removes `param` if trivial, then the SSA parameters that become trivial in turn.
    fn remove_trivial(&mut self, fb: &mut FunctionBuilder, param: Value) {
        self.worklist.push(param);
        while let Some(p) = self.worklist.pop() {
            if self.params[p] != ParamState::Complete {
                continue;
            }
            let ValueDef::Param(block, index) = fb.function().dfg.values[p].def else {
                continue;
            };
            let index = index as usize;
            let Some(same) = self.trivial_value(fb, block, index, p) else {
                continue;
            };
            let replacement = match same {
                Some(v) => v,
                None => fb.undef(fb.function().dfg.values[p].ty),
            };
            let dfg = &mut fb.function_mut().dfg;
            if !dfg.replace_all_uses(p, replacement) {
                continue; // Types differ (a `def_var` of the wrong type): keep it.
            }
            for &pred in &self.blocks[block].preds {
                for edge in dfg.inst_mut(pred).payload.edges_mut() {
                    if edge.block == block && edge.args.len() > index {
                        edge.args.remove(index);
                    }
                }
            }
            dfg.remove_block_param(block, index);
            self.params[p] = ParamState::NotOurs;
            let users = std::mem::take(&mut self.users[p]);
            if self.params[replacement] != ParamState::NotOurs {
                self.users[replacement].extend(users.iter().copied());
            }
            self.worklist.extend(users);
        }
    }

    /// `Some(Some(v))` when every incoming value of parameter `index` of `block` is `p`
    /// itself or `v`; `Some(None)` when all are `p`; `None` when it is not trivial.
    fn trivial_value(
        &self,
        fb: &FunctionBuilder,
        block: Block,
        index: usize,
        p: Value,
    ) -> Option<Option<Value>> {
        let dfg = &fb.function().dfg;
        let mut same = None;
        for &pred in &self.blocks[block].preds {
            for edge in dfg.inst(pred).payload.edges() {
                if edge.block != block {
                    continue;
                }
                let arg = dfg.resolve(*edge.args.get(index)?);
                if arg == p || Some(arg) == same {
                    continue;
                }
                if same.is_some() {
                    return None;
                }
                same = Some(arg);
            }
        }
        Some(same)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{Function, FunctionKind, Signature};
    use crate::module::Module;
    use crate::types::Scalar;
    use crate::{ConstKind, Opcode};

    fn kernel(m: &mut Module) -> Func {
        let kind = FunctionKind::kernel([1, 1, 1]);
        FunctionBuilder::create_function(m, "k", kind, Signature::default())
    }

    /// The edges of `block`'s terminator, aliases resolved.
    fn edges(f: &Function, block: Block) -> Vec<(Block, Vec<Value>)> {
        let t = f.terminator(block).expect("terminated");
        let edges = f.dfg.inst(t).payload.edges();
        edges
            .iter()
            .map(|e| (e.block, e.args.iter().map(|&a| f.dfg.resolve(a)).collect()))
            .collect()
    }

    /// Every edge passes one argument per target parameter, of the right type, and no
    /// parameter is trivial.
    fn check_consistent(f: &Function) {
        let mut incoming: SecondaryMap<Block, Vec<Vec<Value>>> = SecondaryMap::new();
        for block in f.layout.blocks() {
            for (target, args) in edges(f, block) {
                let params = f.dfg.block_params(target);
                assert_eq!(args.len(), params.len(), "edge {block} -> {target}");
                for (a, p) in args.iter().zip(params) {
                    assert_eq!(f.dfg.value_type(*a), f.dfg.value_type(*p));
                }
                incoming[target].push(args);
            }
        }
        for block in f.layout.blocks() {
            for (i, &p) in f.dfg.block_params(block).iter().enumerate() {
                let mut others: Vec<Value> = incoming[block]
                    .iter()
                    .map(|a| a[i])
                    .filter(|&v| v != p)
                    .collect();
                others.dedup();
                assert!(others.len() > 1, "{p} of {block} is trivial: {others:?}");
            }
        }
    }

    fn is_undef(m: &Module, f: &Function, v: Value) -> bool {
        match f.dfg.value_def(v) {
            ValueDef::Const(c) => m.consts.get(c).kind == ConstKind::Undef,
            _ => false,
        }
    }

    /// The module passes the verifier (default options plus reachable blocks).
    fn verify(m: &Module) {
        let options = crate::verifier::VerifierOptions {
            require_reachable_blocks: true,
            ..Default::default()
        };
        let report = crate::verifier::verify_module(m, &options);
        assert!(report.succeeded(), "{report}");
    }

    /// `x = 1; if c { x = 2 } else { x = 3 }; use x` gives one merge parameter.
    #[test]
    fn diamond_places_one_parameter() {
        let mut m = Module::new();
        let i32_ty = m.types.i32();
        let f = kernel(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let mut ssa = SsaBuilder::new();
        let x = ssa.declare_var(i32_ty);
        let entry = b.entry_block().unwrap();
        let (c1, c2, c3) = (
            b.iconst(Scalar::I32, 1),
            b.iconst(Scalar::I32, 2),
            b.iconst(Scalar::I32, 3),
        );
        ssa.def_var(entry, x, c1);
        let cond = b.bconst(true);
        let ifb = b.if_(cond);
        for (arm, value) in [(ifb.then_block, c2), (ifb.else_block, c3)] {
            ssa.seal_block(&mut b, arm);
            b.switch_to_block(arm);
            ssa.def_var(arm, x, value);
            b.br(ifb.merge, &[]);
        }
        ssa.seal_block(&mut b, ifb.merge);
        b.switch_to_block(ifb.merge);
        let v = ssa.use_var(&mut b, ifb.merge, x);
        let out = b.add(v, c1);
        b.ret(&[]);

        let func = b.function();
        assert_eq!(func.dfg.block_params(ifb.merge), &[v]);
        assert_eq!(edges(func, ifb.then_block), vec![(ifb.merge, vec![c2])]);
        assert_eq!(edges(func, ifb.else_block), vec![(ifb.merge, vec![c3])]);
        assert_eq!(
            func.dfg
                .inst(func.layout.first_inst(ifb.merge).unwrap())
                .args
                .as_slice(),
            &[v, c1]
        );
        assert_eq!(func.dfg.value_type(out), i32_ty);
        check_consistent(func);
        verify(b.module());
    }

    /// The same value on both arms, or a variable never redefined, needs no parameter.
    #[test]
    fn same_value_on_both_arms_needs_no_parameter() {
        let mut m = Module::new();
        let i32_ty = m.types.i32();
        let f = kernel(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let mut ssa = SsaBuilder::new();
        let (x, y) = (ssa.declare_var(i32_ty), ssa.declare_var(i32_ty));
        let entry = b.entry_block().unwrap();
        let (c0, c5) = (b.iconst(Scalar::I32, 0), b.iconst(Scalar::I32, 5));
        ssa.def_var(entry, y, c0);
        let cond = b.bconst(false);
        let ifb = b.if_(cond);
        for arm in [ifb.then_block, ifb.else_block] {
            b.switch_to_block(arm);
            ssa.def_var(arm, x, c5);
            b.br(ifb.merge, &[]);
        }
        // Read before sealing: the merge gets (incomplete) parameters, trivial at seal.
        b.switch_to_block(ifb.merge);
        let vx = ssa.use_var(&mut b, ifb.merge, x);
        let vy = ssa.use_var(&mut b, ifb.merge, y);
        assert_eq!(b.function().dfg.block_params(ifb.merge).len(), 2);
        ssa.seal_all_blocks(&mut b);
        b.ret(&[]);
        let func = b.function();
        assert_eq!(func.dfg.resolve(vx), c5);
        assert_eq!(func.dfg.resolve(vy), c0);
        assert!(func.dfg.block_params(ifb.merge).is_empty());
        assert_eq!(edges(func, ifb.then_block), vec![(ifb.merge, vec![])]);
        check_consistent(func);
        verify(b.module());
    }

    /// Reading a variable that is never defined gives `undef`; defined on one arm only,
    /// the merge parameter takes `undef` from the other.
    #[test]
    fn undefined_variables_read_as_undef() {
        let mut m = Module::new();
        let f32_ty = m.types.f32();
        let f = kernel(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let mut ssa = SsaBuilder::new();
        let x = ssa.declare_var(f32_ty);
        let entry = b.entry_block().unwrap();
        let in_entry = ssa.use_var(&mut b, entry, x);
        let cond = b.bconst(true);
        let ifb = b.if_(cond);
        b.switch_to_block(ifb.then_block);
        let one = b.fconst32(1.0);
        ssa.def_var(ifb.then_block, x, one);
        b.br(ifb.merge, &[]);
        b.switch_to_block(ifb.else_block);
        b.br(ifb.merge, &[]);
        ssa.seal_all_blocks(&mut b);
        b.switch_to_block(ifb.merge);
        let merged = ssa.use_var(&mut b, ifb.merge, x);
        b.ret(&[]);
        let func = b.function();
        assert!(is_undef(b.module(), func, in_entry));
        assert_eq!(func.dfg.value_type(in_entry), f32_ty);
        assert_eq!(func.dfg.block_params(ifb.merge), &[merged]);
        assert_eq!(edges(func, ifb.then_block), vec![(ifb.merge, vec![one])]);
        assert_eq!(
            edges(func, ifb.else_block),
            vec![(ifb.merge, vec![in_entry])]
        );
        check_consistent(func);
        verify(b.module());
    }

    /// Emits `for (; i < limit; i += 1) { body }` with the loop counter in `var`, sealing
    /// blocks as soon as the contract allows. Returns the loop blocks and the counter's
    /// value in `prepare`.
    fn counted_loop(
        b: &mut FunctionBuilder,
        ssa: &mut SsaBuilder,
        var: Variable,
        limit: i64,
        body: impl FnOnce(&mut FunctionBuilder, &mut SsaBuilder, Block) -> Block,
    ) -> (crate::builder::LoopBlocks, Value) {
        let lp = b.loop_();
        b.switch_to_block(lp.prepare);
        let i = ssa.use_var(b, lp.prepare, var);
        let limit = b.iconst(Scalar::I32, limit);
        let c = b.lt(i, limit);
        b.cond_br(c, lp.body, &[], lp.merge, &[]);
        ssa.seal_block(b, lp.body);
        b.switch_to_block(lp.body);
        let end = body(b, ssa, lp.body);
        b.switch_to_block(end);
        b.br(lp.update, &[]);
        ssa.seal_block(b, lp.update);
        b.switch_to_block(lp.update);
        let i = ssa.use_var(b, lp.update, var);
        let one = b.iconst(Scalar::I32, 1);
        let next = b.add(i, one);
        ssa.def_var(lp.update, var, next);
        b.br(lp.prepare, &[]);
        ssa.seal_block(b, lp.prepare);
        ssa.seal_block(b, lp.merge);
        b.switch_to_block(lp.merge);
        let counter = ssa.use_var(b, lp.prepare, var);
        (lp, counter)
    }

    #[test]
    fn loop_counter_gets_a_header_parameter() {
        let mut m = Module::new();
        let i32_ty = m.types.i32();
        let f = kernel(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let mut ssa = SsaBuilder::new();
        let (i, k) = (ssa.declare_var(i32_ty), ssa.declare_var(i32_ty));
        let entry = b.entry_block().unwrap();
        let (c0, c7) = (b.iconst(Scalar::I32, 0), b.iconst(Scalar::I32, 7));
        ssa.def_var(entry, i, c0);
        ssa.def_var(entry, k, c7);
        let mut k_in_body = None;
        let (lp, counter) = counted_loop(&mut b, &mut ssa, i, 10, |b, ssa, body| {
            k_in_body = Some(ssa.use_var(b, body, k)); // loop-invariant: no parameter
            body
        });
        let after = ssa.use_var(&mut b, lp.merge, i);
        b.ret(&[]);
        let func = b.function();
        assert_eq!(func.dfg.block_params(lp.prepare), &[counter]);
        assert_eq!(after, counter);
        assert_eq!(func.dfg.resolve(k_in_body.unwrap()), c7);
        let add = func.layout.first_inst(lp.update).unwrap();
        assert_eq!(func.dfg.inst(add).opcode, Opcode::Add);
        let next = func.dfg.inst_result(add).unwrap();
        assert_eq!(edges(func, entry), vec![(lp.prepare, vec![c0])]);
        assert_eq!(edges(func, lp.update), vec![(lp.prepare, vec![next])]);
        assert!(
            func.dfg.block_params(lp.body).is_empty() && func.dfg.block_params(lp.merge).is_empty()
        );
        check_consistent(func);
        verify(b.module());
    }

    /// `sum += j` in an inner loop nested in an outer loop: both headers carry the sum and
    /// their counter; an untouched variable needs no parameter at either level.
    #[test]
    fn nested_loops() {
        let mut m = Module::new();
        let i32_ty = m.types.i32();
        let f = kernel(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let mut ssa = SsaBuilder::new();
        let [i, j, sum, k] = [0; 4].map(|_| ssa.declare_var(i32_ty));
        let entry = b.entry_block().unwrap();
        let (c0, c9) = (b.iconst(Scalar::I32, 0), b.iconst(Scalar::I32, 9));
        for var in [i, sum] {
            ssa.def_var(entry, var, c0);
        }
        ssa.def_var(entry, k, c9);
        let mut inner = None;
        let (outer, _) = counted_loop(&mut b, &mut ssa, i, 4, |b, ssa, body| {
            let c0 = b.iconst(Scalar::I32, 0);
            ssa.def_var(body, j, c0);
            let (lp, _) = counted_loop(b, ssa, j, 3, |b, ssa, body| {
                let s = ssa.use_var(b, body, sum);
                let jv = ssa.use_var(b, body, j);
                let kv = ssa.use_var(b, body, k);
                let s2 = b.add(s, jv);
                let s3 = b.add(s2, kv);
                ssa.def_var(body, sum, s3);
                body
            });
            inner = Some(lp);
            lp.merge
        });
        let total = ssa.use_var(&mut b, outer.merge, sum);
        b.ret(&[]);
        let inner = inner.unwrap();
        let func = b.function();
        assert_eq!(func.dfg.block_params(outer.prepare).len(), 2, "i and sum");
        assert_eq!(func.dfg.block_params(inner.prepare).len(), 2, "j and sum");
        assert!(func.dfg.block_params(outer.prepare).contains(&total));
        for block in func
            .layout
            .blocks()
            .filter(|&bl| bl != outer.prepare && bl != inner.prepare)
        {
            assert!(func.dfg.block_params(block).is_empty(), "{block}");
        }
        // The inner loop is entered with the outer header's sum and j = 0.
        let (target, args) = &edges(func, outer.body)[0];
        assert_eq!(*target, inner.prepare);
        assert!(args.contains(&c0) && args.contains(&total));
        check_consistent(func);
        verify(b.module());
    }

    /// With every block sealed only at the end, parameters are placed everywhere a
    /// variable is read and the trivial ones cascade away.
    #[test]
    fn deferred_sealing_removes_cascading_trivial_parameters() {
        let mut m = Module::new();
        let i32_ty = m.types.i32();
        let f = kernel(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let mut ssa = SsaBuilder::new();
        let x = ssa.declare_var(i32_ty);
        let entry = b.entry_block().unwrap();
        let c4 = b.iconst(Scalar::I32, 4);
        ssa.def_var(entry, x, c4);
        let outer = b.simple_loop();
        b.switch_to_block(outer.body);
        let inner = b.simple_loop();
        b.switch_to_block(inner.body);
        let seen = ssa.use_var(&mut b, inner.body, x);
        let cond = b.lt(seen, c4);
        let ifb = b.if_without_merge(cond);
        b.switch_to_block(ifb.then_block);
        b.continue_(inner.body, &[]);
        b.switch_to_block(ifb.else_block);
        b.break_(inner.merge, &[]);
        b.switch_to_block(inner.merge);
        let x2 = ssa.use_var(&mut b, inner.merge, x);
        let cond = b.lt(x2, c4);
        b.cond_br(cond, outer.body, &[], outer.merge, &[]);
        b.switch_to_block(outer.merge);
        b.ret(&[]);
        assert!(b.function().dfg.block_params(inner.body).len() == 1);
        ssa.seal_all_blocks(&mut b);
        let func = b.function();
        assert_eq!(func.dfg.resolve(seen), c4);
        assert_eq!(func.dfg.resolve(x2), c4);
        for block in func.layout.blocks() {
            assert!(func.dfg.block_params(block).is_empty(), "{block}");
        }
        check_consistent(func);
        verify(b.module());
    }

    /// Both edges of one `cond_br` into the same block get the argument.
    #[test]
    fn duplicate_edges_from_one_terminator() {
        let mut m = Module::new();
        let i32_ty = m.types.i32();
        let f = kernel(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let mut ssa = SsaBuilder::new();
        let x = ssa.declare_var(i32_ty);
        let entry = b.entry_block().unwrap();
        let (c1, c2) = (b.iconst(Scalar::I32, 1), b.iconst(Scalar::I32, 2));
        let (a, join) = (b.create_block(), b.create_block());
        ssa.def_var(entry, x, c1);
        let cond = b.bconst(true);
        b.cond_br(cond, a, &[], join, &[]);
        b.switch_to_block(a);
        ssa.def_var(a, x, c2);
        b.cond_br(cond, join, &[], join, &[]);
        ssa.seal_all_blocks(&mut b);
        b.switch_to_block(join);
        let v = ssa.use_var(&mut b, join, x);
        b.ret(&[]);
        let func = b.function();
        assert_eq!(func.dfg.block_params(join), &[v]);
        assert_eq!(edges(func, a), vec![(join, vec![c2]), (join, vec![c2])]);
        assert_eq!(edges(func, entry), vec![(a, vec![]), (join, vec![c1])]);
        check_consistent(func);
        verify(b.module());
    }

    /// A 50 000-block chain read from its end: the lookup is iterative, and it memoises
    /// the definition in every block on the way.
    #[test]
    fn long_chains_do_not_recurse() {
        let mut m = Module::new();
        let i32_ty = m.types.i32();
        let f = kernel(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let mut ssa = SsaBuilder::new();
        let x = ssa.declare_var(i32_ty);
        let entry = b.entry_block().unwrap();
        let c = b.iconst(Scalar::I32, 42);
        ssa.def_var(entry, x, c);
        let mut last = entry;
        for _ in 0..50_000 {
            let next = b.create_block();
            b.br(next, &[]);
            ssa.seal_block(&mut b, next);
            b.switch_to_block(next);
            last = next;
        }
        assert_eq!(ssa.use_var(&mut b, last, x), c);
        let middle = Block::new(25_000);
        assert_eq!(ssa.defs[x][middle].expand(), Some(c));
        b.ret(&[]);
        assert!(b.function().layout.blocks().all(|bl| b
            .function()
            .dfg
            .block_params(bl)
            .is_empty()));
    }
}
