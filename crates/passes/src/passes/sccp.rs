//! `sccp`: sparse conditional constant propagation on plain CFGs.
//!
//! **What it does.** Every SSA value of a function gets a lattice cell — *unknown*
//! (no executable definition seen yet), *constant* (known lane bits of a scalar or
//! vector) or *overdefined* — and every CFG edge an *executable* flag. Starting from the
//! entry block (its parameters overdefined), two worklists run to a fixed point:
//! - a block that becomes executable has each instruction evaluated once, and again
//!   whenever one of its operands' cells rises;
//! - a block parameter is the meet of the arguments its **executable** incoming edges
//!   pass (an edge that is never taken does not lower it);
//! - `cond_br` and `switch_br` with a constant condition mark **only the taken edge**
//!   executable; an overdefined condition marks every edge; `br` marks its edge.
//!
//! Evaluation is the constant folder's: a lane-wise instruction whose operands are all
//! constant goes through [`crate::passes::const_fold::eval::fold_lanes`], which computes
//! with [`oxir_ir::scalar_semantics`] (the interpreter's semantics) under const-fold's
//! per-opcode safety rule ([`crate::passes::const_fold::safety::fold_rule`]); what
//! const-fold would refuse (float rounding, NaN, approximated functions) is overdefined
//! here. `select` picks an arm with a constant condition (through const-fold's
//! [`crate::passes::const_fold::eval::select_pick`]); with an overdefined condition it
//! is the meet of its arms. Every other instruction (memory, calls, texture reads,
//! special registers, composites, instructions with semantic metadata) is overdefined.
//!
//! **After solving**, in this order: every instruction of an executable block whose
//! result is constant is removed (`folded_inst_count`; such instructions are pure
//! lane-wise operations and `select`s), its remaining uses replaced by the constant; every
//! constant non-entry block parameter that is still used is replaced by the constant
//! (`replaced_param_count`; the parameter itself stays, for `phi-cleanup`); each
//! executable `cond_br` / `switch_br` with a constant condition becomes a `br` along its
//! taken edge (`removed_branch_count`); and every block that never became executable is
//! removed (`removed_block_count`). Removing them here keeps the output a valid function
//! (no block is left using a value whose definition no longer dominates it) without
//! relying on `simplify-cfg`. A constant is interned only for a use that stays (not for
//! one by a folded instruction, a removed block or a rewritten branch's condition).
//!
//! This finds what `const-fold` and `simplify-cfg` cannot: a loop-carried block
//! parameter that receives the same constant on every executable edge (its back edge
//! passes a value computed from the parameter itself), or a value that is constant only
//! because a branch that would have changed it is never taken.
//!
//! **Invariants.** Cells only rise (unknown → constant → overdefined), so each value
//! changes at most twice and the solve is O(instructions + uses + edges). At the fixed
//! point no value of an executable block is unknown (every definition is reached from
//! the entry through executable edges); should a branch's condition still be unknown,
//! all its edges are marked executable and the solve resumes, so no block a run can
//! reach is ever removed. Nothing is interned and nothing changes unless something is
//! rewritten; the pass is idempotent.
//!
//! ## What it does not do
//!
//! - It skips functions with structured control flow (`if`, `loop`, `switch`, `break`,
//!   ...) unchanged (`skipped_structured_function_count`); `destructure-cfg` first.
//! - It does not propagate composites (arrays, structs, matrices), `undef` constants
//!   (an undefined lane has no bits: overdefined), loads of constant memory, or values
//!   through calls; it is intraprocedural.
//! - It does not fold a result that has no remaining use (`dce` removes it), remove
//!   block parameters, merge blocks, or thread jumps (`simplify-cfg`, `phi-cleanup`).
//! - It does not use branch conditions to refine values (`x == 3` does not make `x`
//!   constant in the taken arm; that is `cvp`'s).
//!
//! ## Example
//!
//! ```text
//! block0:                                  block0:
//!     br block1(c0)                            br block1(c0)
//! block1(v0: i32):                         block1(v0: i32):
//!     v1: i32 = mul v0, c1      ; c1 = 1       v2: bool = lt v9, c2
//!     v2: bool = lt v9, c2          ==>        cond_br v2, block2, block3
//!     cond_br v2, block2, block3           block2:
//! block2:                                      br block1(c0)
//!     br block1(v1)                        block3:
//! block3:                                      return c0
//!     return v0
//! ```

use crate::const_values::{lanes, lanes_const, scalar_or_vector, LaneBits};
use crate::pass_info;
use crate::passes::const_fold::eval::{fold_lanes, select_lanes, select_pick, LaneFold, Pick};
use crate::passes::const_fold::safety::{fold_rule, FoldRule};
use crate::util::{contains_structured_control_flow, definitions, dense_map};
use cranelift_entity::SecondaryMap;
use oxir_ir::instructions::Payload;
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, Scalar, TerminatorOp, Value, ValueDef};
use smallvec::SmallVec;

pass_info! {
    pass: "sccp",
    /// Counters of `sccp`.
    pub struct SccpInfo {
        /// Instructions whose constant result replaced their uses (and which were removed).
        folded_inst_count,
        /// Block parameters constant on every executable incoming edge, uses replaced.
        replaced_param_count,
        /// `cond_br` / `switch_br` with a constant condition turned into `br`.
        removed_branch_count,
        /// Blocks that never became executable, removed.
        removed_block_count,
        /// Functions with structured control flow, left unchanged.
        skipped_structured_function_count,
    }
    changed_by: [folded_inst_count, replaced_param_count, removed_branch_count,
        removed_block_count]
}

/// Runs `sccp` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> SccpInfo {
    let mut info = SccpInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `sccp` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> SccpInfo {
    let mut info = SccpInfo::default();
    let Some(f) = module.functions.get(func) else {
        return info;
    };
    if contains_structured_control_flow(f) {
        info.skipped_structured_function_count += 1;
        return info;
    }
    let Some(entry) = f.layout.entry_block() else {
        return info;
    };
    let plan = {
        let mut solver = Solver::new(module, f, entry);
        solver.solve();
        solver.plan()
    };
    apply(module, func, &plan, &mut info);
    info
}

/// A lattice cell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Cell {
    /// No executable definition seen yet.
    #[default]
    Unknown,
    /// Every lane known: the lane scalar and canonical bits.
    Known(Scalar, LaneBits),
    /// Not a constant.
    Over,
}

impl Cell {
    fn join(&self, other: &Cell) -> Cell {
        match (self, other) {
            (Cell::Unknown, x) | (x, Cell::Unknown) => x.clone(),
            (Cell::Known(s, a), Cell::Known(t, b)) if s == t && a == b => self.clone(),
            (Cell::Known(..) | Cell::Over, Cell::Known(..) | Cell::Over) => Cell::Over,
        }
    }
}

/// One executable-edge candidate: a terminator's `index`-th edge.
struct Edge {
    to: Block,
    args: SmallVec<[Value; 4]>,
}

/// A use of a value: an operand of an instruction, or argument `arg` of edge `edge`.
#[derive(Copy, Clone, Debug)]
enum Use {
    Operand(Inst),
    EdgeArg(u32, u32),
}

struct Solver<'a> {
    module: &'a Module,
    f: &'a Function,
    cells: SecondaryMap<Value, Cell>,
    executable: SecondaryMap<Block, bool>,
    edges: Vec<Edge>,
    edge_executable: Vec<bool>,
    /// The range of `edges` leaving each block, in its terminator's edge order.
    out_edges: SecondaryMap<Block, (u32, u32)>,
    users: SecondaryMap<Value, SmallVec<[Use; 2]>>,
    block_work: Vec<Block>,
    value_work: Vec<Value>,
}

/// A constant's lane scalar and bits.
type Lanes = (Scalar, LaneBits);

/// What to rewrite, decided on the unchanged function.
struct Plan {
    /// Folded instructions: the constant replacing the result when it is still used.
    results: Vec<(Inst, Value, Option<Lanes>)>,
    params: Vec<(Value, Scalar, LaneBits)>,
    branches: Vec<(Inst, usize)>,
    dead_blocks: Vec<Block>,
}

impl<'a> Solver<'a> {
    fn new(module: &'a Module, f: &'a Function, entry: Block) -> Self {
        let mut s = Solver {
            module,
            f,
            cells: dense_map(f.dfg.values.len()),
            executable: dense_map(f.dfg.blocks.len()),
            edges: Vec::new(),
            edge_executable: Vec::new(),
            out_edges: dense_map(f.dfg.blocks.len()),
            users: dense_map(f.dfg.values.len()),
            block_work: vec![entry],
            value_work: Vec::new(),
        };
        for block in f.layout.blocks() {
            let first = s.edges.len() as u32;
            for inst in f.layout.block_insts(block) {
                let data = f.dfg.inst(inst);
                for &v in &data.args {
                    s.users[f.dfg.resolve(v)].push(Use::Operand(inst));
                }
                for edge in data.payload.edges() {
                    let id = s.edges.len() as u32;
                    let args: SmallVec<[Value; 4]> =
                        edge.args.iter().map(|&v| f.dfg.resolve(v)).collect();
                    for (k, &v) in args.iter().enumerate() {
                        s.users[v].push(Use::EdgeArg(id, k as u32));
                    }
                    s.edges.push(Edge {
                        to: edge.block,
                        args,
                    });
                }
            }
            s.out_edges[block] = (first, s.edges.len() as u32);
        }
        s.edge_executable = vec![false; s.edges.len()];
        for &p in f.dfg.block_params(entry) {
            s.cells[p] = Cell::Over;
        }
        s.executable[entry] = true;
        s
    }

    /// The cell of `v`: constants are known from the module, other definitions from the
    /// solve.
    fn cell(&self, v: Value) -> Cell {
        let v = self.f.dfg.resolve(v);
        match self.f.dfg.value_def(v) {
            ValueDef::Const(k) => match lanes(self.module, k) {
                Some((s, bits)) => Cell::Known(s, bits),
                None => Cell::Over,
            },
            ValueDef::Result(_) | ValueDef::Param(..) => self.cells[v].clone(),
            ValueDef::Global(_) | ValueDef::Alias(_) | ValueDef::Detached => Cell::Over,
        }
    }

    /// Whether [`Solver::cell`] of `v` is `Over`, without building it (a constant counts as
    /// not over).
    fn is_over(&self, v: Value) -> bool {
        let v = self.f.dfg.resolve(v);
        match self.f.dfg.value_def(v) {
            ValueDef::Const(_) => false,
            ValueDef::Result(_) | ValueDef::Param(..) => matches!(self.cells[v], Cell::Over),
            ValueDef::Global(_) | ValueDef::Alias(_) | ValueDef::Detached => true,
        }
    }

    fn raise(&mut self, v: Value, new: &Cell) {
        let joined = self.cells[v].join(new);
        if joined != self.cells[v] {
            self.cells[v] = joined;
            self.value_work.push(v);
        }
    }

    fn solve(&mut self) {
        loop {
            while let Some(block) = self.block_work.pop() {
                let insts: Vec<Inst> = self.f.layout.block_insts(block).collect();
                for inst in insts {
                    self.visit(inst);
                }
            }
            while let Some(v) = self.value_work.pop() {
                let users = self.users[v].clone();
                for u in users {
                    match u {
                        Use::Operand(inst) => {
                            let live = self
                                .f
                                .layout
                                .inst_block(inst)
                                .is_some_and(|b| self.executable[b]);
                            if live {
                                self.visit(inst);
                            }
                        }
                        Use::EdgeArg(e, k) => {
                            if self.edge_executable[e as usize] {
                                self.flow_arg(e as usize, k as usize);
                            }
                        }
                    }
                }
            }
            if self.block_work.is_empty() && !self.release_unknown_branches() {
                return;
            }
        }
    }

    /// Marks every edge of an executable branch whose condition is still unknown
    /// executable (a safety net: see the module doc). Returns whether it marked any.
    fn release_unknown_branches(&mut self) -> bool {
        let mut marked = false;
        let blocks: Vec<Block> = self
            .f
            .layout
            .blocks()
            .filter(|&b| self.executable[b])
            .collect();
        for block in blocks {
            let Some(term) = self.f.terminator(block) else {
                continue;
            };
            let data = self.f.dfg.inst(term);
            let conditional = matches!(
                data.opcode.terminator_op(),
                Some(TerminatorOp::CondBr | TerminatorOp::SwitchBr)
            );
            let unknown = data
                .args
                .first()
                .is_some_and(|&c| self.cell(c) == Cell::Unknown);
            if conditional && unknown {
                let (first, end) = self.out_edges[block];
                for e in first..end {
                    marked |= self.mark_edge(e as usize);
                }
            }
        }
        marked
    }

    fn visit(&mut self, inst: Inst) {
        let data = self.f.dfg.inst(inst);
        if data.opcode.is_terminator() {
            if let Some(block) = self.f.layout.inst_block(inst) {
                self.visit_terminator(block, inst);
            }
            return;
        }
        let Some(result) = self.f.dfg.inst_result(inst) else {
            return;
        };
        let cell = self.evaluate(inst);
        self.raise(result, &cell);
    }

    fn evaluate(&self, inst: Inst) -> Cell {
        let data = self.f.dfg.inst(inst);
        if self
            .f
            .dfg
            .metadata(inst)
            .is_some_and(|md| md.is_annotated())
        {
            return Cell::Over;
        }
        let Some(result) = self.f.dfg.inst_result(inst) else {
            return Cell::Over;
        };
        let ty = self.f.dfg.value_type(result);
        if scalar_or_vector(&self.module.types, ty).is_none() {
            return Cell::Over;
        }
        // Most instructions have an operand already known not to be constant: decided
        // without copying any operand's lanes.
        if data.opcode != Opcode::Select && data.args.iter().any(|&v| self.is_over(v)) {
            return Cell::Over;
        }
        let cells: SmallVec<[Cell; 4]> = data.args.iter().map(|&v| self.cell(v)).collect();
        if data.opcode == Opcode::Select {
            return select_cell(&cells);
        }
        if cells.contains(&Cell::Over) {
            return Cell::Over;
        }
        let mut operands: SmallVec<[(Scalar, LaneBits); 4]> = SmallVec::new();
        for c in cells {
            match c {
                Cell::Known(s, bits) => operands.push((s, bits)),
                Cell::Unknown => return lane_wise_unknown(data.opcode),
                Cell::Over => return Cell::Over,
            }
        }
        match fold_lanes(self.module, data.opcode, ty, &operands) {
            LaneFold::Fold(s, bits) => Cell::Known(s, bits),
            LaneFold::Unsafe | LaneFold::Keep => Cell::Over,
        }
    }

    fn visit_terminator(&mut self, block: Block, term: Inst) {
        let data = self.f.dfg.inst(term);
        let (first, end) = self.out_edges[block];
        let all = first as usize..end as usize;
        let taken: Option<usize> = match data.opcode.terminator_op() {
            Some(TerminatorOp::CondBr) => match data.args.first().map(|&c| self.cell(c)) {
                Some(Cell::Known(_, bits)) => Some(usize::from(bits.first() == Some(&0))),
                Some(Cell::Unknown) => return,
                Some(Cell::Over) | None => None,
            },
            Some(TerminatorOp::SwitchBr) => {
                let Payload::SwitchBranch(table) = &data.payload else {
                    return;
                };
                match data.args.first().map(|&c| self.cell(c)) {
                    Some(Cell::Known(_, bits)) => Some(
                        table
                            .cases
                            .iter()
                            .position(|(label, _)| Some(label) == bits.first())
                            .unwrap_or(table.cases.len()),
                    ),
                    Some(Cell::Unknown) => return,
                    Some(Cell::Over) | None => None,
                }
            }
            Some(
                TerminatorOp::Br
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
            | None => None,
        };
        match taken {
            Some(k) => {
                if first as usize + k < end as usize {
                    self.mark_edge(first as usize + k);
                }
            }
            None => {
                for e in all {
                    self.mark_edge(e);
                }
            }
        }
    }

    /// Marks edge `e` executable; returns whether it was not yet.
    fn mark_edge(&mut self, e: usize) -> bool {
        if self.edge_executable[e] {
            return false;
        }
        self.edge_executable[e] = true;
        for k in 0..self.edges[e].args.len() {
            self.flow_arg(e, k);
        }
        let to = self.edges[e].to;
        if !self.executable[to] {
            self.executable[to] = true;
            self.block_work.push(to);
        }
        true
    }

    /// Raises the target's parameter `k` by the argument edge `e` passes.
    fn flow_arg(&mut self, e: usize, k: usize) {
        let edge = &self.edges[e];
        let Some(&param) = self.f.dfg.block_params(edge.to).get(k) else {
            return;
        };
        let cell = self.cell(edge.args[k]);
        self.raise(param, &cell);
    }

    /// Whether `inst` is a non-terminator whose result is constant: it is removed.
    fn folds(&self, inst: Inst) -> bool {
        !self.f.dfg.inst(inst).opcode.is_terminator()
            && self
                .f
                .dfg
                .inst_result(inst)
                .is_some_and(|r| matches!(self.cells[r], Cell::Known(..)))
    }

    /// The edge a conditional branch of `block` keeps when it becomes a `br`: its
    /// condition is constant and exactly one of its edges is executable.
    fn kept_edge(&self, block: Block, term: Inst) -> Option<usize> {
        let data = self.f.dfg.inst(term);
        let conditional = matches!(
            data.opcode.terminator_op(),
            Some(TerminatorOp::CondBr | TerminatorOp::SwitchBr)
        );
        let known = data
            .args
            .first()
            .is_some_and(|&c| matches!(self.cell(c), Cell::Known(..)));
        let (first, end) = self.out_edges[block];
        let mut taken = (first..end).filter(|&e| self.edge_executable[e as usize]);
        match (conditional && known, taken.next(), taken.next()) {
            (true, Some(e), None) => Some((e - first) as usize),
            _ => None,
        }
    }

    /// Whether a use of `v` stays after the rewrite: an operand of a kept instruction of
    /// an executable block (not a folded instruction, not the condition of a branch that
    /// becomes a `br`), or an argument of an executable edge.
    fn used(&self, v: Value, rewritten: &SecondaryMap<Inst, bool>) -> bool {
        self.users[v].iter().any(|u| match *u {
            Use::Operand(inst) => {
                let live = self
                    .f
                    .layout
                    .inst_block(inst)
                    .is_some_and(|b| self.executable[b]);
                live && !rewritten[inst] && !self.folds(inst)
            }
            Use::EdgeArg(e, _) => self.edge_executable[e as usize],
        })
    }

    fn plan(&self) -> Plan {
        let mut plan = Plan {
            results: Vec::new(),
            params: Vec::new(),
            branches: Vec::new(),
            dead_blocks: Vec::new(),
        };
        let mut rewritten: SecondaryMap<Inst, bool> = SecondaryMap::new();
        for block in self.f.layout.blocks() {
            let Some(term) = self.f.terminator(block) else {
                continue;
            };
            if !self.executable[block] {
                continue;
            }
            if let Some(k) = self.kept_edge(block, term) {
                rewritten[term] = true;
                plan.branches.push((term, k));
            }
        }
        let entry = self.f.layout.entry_block();
        for block in self.f.layout.blocks() {
            if !self.executable[block] {
                plan.dead_blocks.push(block);
                continue;
            }
            if Some(block) != entry {
                for &p in self.f.dfg.block_params(block) {
                    if let Cell::Known(s, bits) = &self.cells[p] {
                        if self.used(p, &rewritten) {
                            plan.params.push((p, *s, bits.clone()));
                        }
                    }
                }
            }
            for inst in self.f.layout.block_insts(block) {
                let Some(result) = self.f.dfg.inst_result(inst) else {
                    continue;
                };
                if let (true, Cell::Known(s, bits)) = (self.folds(inst), &self.cells[result]) {
                    let replace = self.used(result, &rewritten);
                    plan.results
                        .push((inst, result, replace.then(|| (*s, bits.clone()))));
                }
            }
        }
        plan
    }
}

/// The cell of a `select` from the cells of its condition and arms.
fn select_cell(cells: &[Cell]) -> Cell {
    let [cond, t, f] = cells else {
        return Cell::Over;
    };
    match cond {
        Cell::Unknown => Cell::Unknown,
        Cell::Over => t.join(f),
        Cell::Known(_, cl) => match select_pick(cl) {
            Pick::True => t.clone(),
            Pick::False => f.clone(),
            Pick::Mixed => match (t, f) {
                (Cell::Known(s, tl), Cell::Known(_, fl)) => match select_lanes(cl, tl, fl) {
                    Some(out) => Cell::Known(*s, out),
                    None => Cell::Over,
                },
                (Cell::Unknown, _) | (_, Cell::Unknown) => Cell::Unknown,
                (Cell::Known(..) | Cell::Over, Cell::Known(..) | Cell::Over) => Cell::Over,
            },
        },
    }
}

/// An operation with an unknown operand stays unknown (optimistically) when it may fold
/// once the operand is known, and is overdefined when const-fold never folds it.
fn lane_wise_unknown(op: Opcode) -> Cell {
    match fold_rule(op) {
        FoldRule::Lanes(_) => Cell::Unknown,
        FoldRule::Never(_) | FoldRule::Structural => Cell::Over,
    }
}

fn apply(module: &mut Module, func: Func, plan: &Plan, info: &mut SccpInfo) {
    for (inst, result, constant) in &plan.results {
        let replaced = match constant {
            Some((s, bits)) => replace_by_const(module, func, *result, *s, bits),
            None => true,
        };
        if replaced {
            module.functions[func].remove_inst(*inst);
            info.folded_inst_count += 1;
        }
    }
    for (param, s, bits) in &plan.params {
        if replace_by_const(module, func, *param, *s, bits) {
            info.replaced_param_count += 1;
        }
    }
    let f = &mut module.functions[func];
    for &(term, k) in &plan.branches {
        let data = f.dfg.inst_mut(term);
        let Some(kept) = data.payload.edges().get(k).map(|e| (*e).clone()) else {
            continue;
        };
        data.opcode = Opcode::Br;
        data.args.clear();
        data.payload = Payload::Jump(kept);
        info.removed_branch_count += 1;
    }
    for &block in &plan.dead_blocks {
        let insts: Vec<Inst> = f.layout.block_insts(block).collect();
        for inst in insts {
            f.remove_inst(inst);
        }
        f.layout.remove_block(block);
        info.removed_block_count += 1;
    }
}

/// Replaces the uses of `v` by the constant with lanes `bits`; interns it only when the
/// type fits.
fn replace_by_const(module: &mut Module, func: Func, v: Value, s: Scalar, bits: &[u64]) -> bool {
    let ty = module.functions[func].dfg.value_type(v);
    let fits = scalar_or_vector(&module.types, ty)
        .is_some_and(|(ts, n)| ts == s && usize::from(n) == bits.len());
    if !fits {
        return false;
    }
    let c = lanes_const(module, ty, s, bits);
    let f = &mut module.functions[func];
    let k = f.dfg.const_value(c, ty);
    f.dfg.replace_all_uses(v, k)
}
