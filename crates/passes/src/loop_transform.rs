//! Edits shared by the loop passes (`loop-unroll`, `loop-unswitch`, `loop-rotation`):
//! cloning a set of blocks, closing a loop's exit (LCSSA-style), retargeting edges,
//! deleting blocks, and the safety questions they all ask first.
//!
//! Invariants the callers keep: these helpers work on plain control flow only (no
//! structural roles are copied or remapped), they do not recompute analyses, and a
//! caller checks every precondition before its first call, so a refused loop is left
//! exactly as it was.

use crate::analysis::loops::{Loop, LoopInfo};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use oxir_ir::effects::is_convergent;
use oxir_ir::instructions::{BlockCall, InstData, Payload};
use oxir_ir::ops::EffectClass;
use oxir_ir::{Block, Function, Inst, Opcode, Type, Value, ValueDef};

/// The copies [`clone_blocks`] made: block and value maps from originals to copies.
pub struct Copies {
    pub blocks: SecondaryMap<Block, PackedOption<Block>>,
    pub values: SecondaryMap<Value, PackedOption<Value>>,
}

impl Copies {
    /// The copy of `b`, or `b` itself when it was not cloned.
    pub fn block(&self, b: Block) -> Block {
        self.blocks[b].expand().unwrap_or(b)
    }

    /// The copy of `v` (alias-resolved in `f`), or `v` when it is defined outside the
    /// cloned blocks.
    pub fn value(&self, f: &Function, v: Value) -> Value {
        let v = f.dfg.resolve(v);
        self.values.get(v).and_then(|c| c.expand()).unwrap_or(v)
    }
}

/// Clones `blocks` (parameters, instructions with their metadata, terminators): operands
/// and edge targets inside the set are remapped to the copies, everything else is shared.
/// The copies are placed, in order, before `before` (at the end when `None`).
pub fn clone_blocks(f: &mut Function, blocks: &[Block], before: Option<Block>) -> Copies {
    let mut copies = Copies {
        blocks: SecondaryMap::new(),
        values: SecondaryMap::new(),
    };
    let mut made: Vec<Inst> = Vec::new();
    for &b in blocks {
        let nb = f.dfg.make_block();
        match before {
            Some(at) => f.layout.insert_block_before(nb, at),
            None => f.layout.append_block(nb),
        }
        copies.blocks[b] = nb.into();
        for p in f.dfg.block_params(b).to_vec() {
            let ty = f.dfg.value_type(p);
            let np = f.dfg.append_block_param(nb, ty);
            copies.values[p] = np.into();
        }
        for inst in f.layout.block_insts(b).collect::<Vec<_>>() {
            let data = f.dfg.inst(inst).clone();
            let ni = f.dfg.make_inst(data);
            if let Some(r) = f.dfg.inst_result(inst) {
                let ty = f.dfg.value_type(r);
                let nr = f.dfg.make_result(ni, ty);
                copies.values[r] = nr.into();
            }
            if let Some(md) = f.dfg.metadata(inst).cloned() {
                f.dfg.set_metadata(ni, md);
            }
            f.layout.append_inst(ni, nb);
            made.push(ni);
        }
    }
    for ni in made {
        let mut data = f.dfg.inst(ni).clone();
        data.map_values(|v| copies.value(f, v));
        for edge in data.payload.edges_mut() {
            edge.block = copies.block(edge.block);
        }
        *f.dfg.inst_mut(ni) = data;
    }
    copies
}

/// Takes every instruction out of `b` and `b` out of the layout.
pub fn delete_block(f: &mut Function, b: Block) {
    for inst in f.layout.block_insts(b).collect::<Vec<_>>() {
        f.remove_inst(inst);
    }
    f.layout.remove_block(b);
}

/// Replaces the terminator of `b` with `br edge`.
pub fn replace_terminator_with_jump(f: &mut Function, b: Block, edge: BlockCall) {
    if let Some(term) = f.terminator(b) {
        f.remove_inst(term);
    }
    let jump = f
        .dfg
        .make_inst(InstData::with_payload(Opcode::Br, &[], Payload::Jump(edge)));
    f.layout.append_inst(jump, b);
}

/// Retargets every edge of `b`'s terminator that goes to `from` so it goes to `to`
/// (arguments kept).
pub fn retarget(f: &mut Function, b: Block, from: Block, to: Block) {
    if let Some(term) = f.terminator(b) {
        for edge in f.dfg.inst_mut(term).payload.edges_mut() {
            if edge.block == from {
                edge.block = to;
            }
        }
    }
}

/// The edge of `b`'s terminator to `target` (the first, when there are several).
pub fn edge_to(f: &Function, b: Block, target: Block) -> Option<BlockCall> {
    let term = f.terminator(b)?;
    f.dfg
        .inst(term)
        .payload
        .edges()
        .into_iter()
        .find(|e| e.block == target)
        .cloned()
}

/// The number of placed instructions in the blocks of `lp`.
pub fn loop_size(f: &Function, loops: &LoopInfo, lp: Loop) -> usize {
    loops
        .data(lp)
        .blocks
        .iter()
        .map(|&b| f.layout.block_insts(b).count())
        .sum()
}

/// Whether a block of `lp` holds a convergent operation (barrier, derivative,
/// implicit-LOD sample, `workgroup_uniform_load`).
pub fn has_convergent(f: &Function, loops: &LoopInfo, lp: Loop) -> bool {
    loops.data(lp).blocks.iter().any(|&b| {
        f.layout
            .block_insts(b)
            .any(|i| is_convergent(f.dfg.inst(i).opcode))
    })
}

/// Whether a block of `lp` calls a function (a callee could hold a barrier: the loop
/// passes treat a call like a convergent operation).
pub fn has_call(f: &Function, loops: &LoopInfo, lp: Loop) -> bool {
    loops.data(lp).blocks.iter().any(|&b| {
        f.layout
            .block_insts(b)
            .any(|i| f.dfg.inst(i).opcode.info().effect == EffectClass::Call)
    })
}

/// The single edge entering `lp`'s header from outside, as `(block, edge)`: `None` when
/// there are several (or none).
pub fn entering_edge(f: &Function, loops: &LoopInfo, lp: Loop) -> Option<(Block, BlockCall)> {
    let header = loops.data(lp).header;
    let mut found = None;
    for pred in loops.cfg().preds(header).collect::<Vec<_>>() {
        if loops.contains(lp, pred) || !loops.cfg().is_reachable(pred) {
            continue;
        }
        let term = f.terminator(pred)?;
        for edge in f.dfg.inst(term).payload.edges() {
            if edge.block == header && found.replace((pred, edge.clone())).is_some() {
                return None;
            }
        }
    }
    found
}

/// Whether `v` (alias-resolved) is defined by an instruction or parameter of a block of
/// `lp`.
pub fn defined_in(f: &Function, loops: &LoopInfo, lp: Loop, v: Value) -> bool {
    let v = f.dfg.resolve(v);
    if !f.dfg.value_is_valid(v) {
        return false;
    }
    match f.dfg.value_def(v) {
        ValueDef::Result(i) => f
            .layout
            .inst_block(i)
            .is_some_and(|b| loops.contains(lp, b)),
        ValueDef::Param(b, _) => loops.contains(lp, b),
        ValueDef::Const(_) | ValueDef::Global(_) | ValueDef::Alias(_) | ValueDef::Detached => false,
    }
}

/// The values of `lp` read by instructions (operands or edge arguments) of reachable
/// blocks outside it, each once, in layout order of first use. (Uses in unreachable
/// blocks do not count: a pass that deletes the loop's blocks deletes the unreachable
/// blocks left naming them, [`delete_blocks`].)
pub fn escaping_values(f: &Function, loops: &LoopInfo, lp: Loop) -> Vec<Value> {
    let mut seen: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut out = Vec::new();
    for b in f.layout.blocks() {
        if loops.contains(lp, b) || !loops.cfg().is_reachable(b) {
            continue;
        }
        for inst in f.layout.block_insts(b) {
            for v in f.dfg.inst(inst).all_values() {
                let v = f.dfg.resolve(v);
                if defined_in(f, loops, lp, v) && !seen[v] {
                    seen[v] = true;
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Closes the loop `lp` at its only exit edge `exiting → target`: a new block `J`
/// between them takes the edge's arguments and every value of `escaping` as parameters,
/// jumps on to `target` with the former arguments, and every use of an escaping value
/// in a reachable block outside the loop reads `J`'s parameter instead. Returns `J`. The caller has checked
/// that the loop has exactly this one exit edge (so `J` dominates every outside use).
pub fn close_exit(
    f: &mut Function,
    loops: &LoopInfo,
    lp: Loop,
    exiting: Block,
    target: Block,
    escaping: &[Value],
) -> Block {
    let join = f.dfg.make_block();
    f.layout.insert_block_before(join, target);
    let mut forwarded = Vec::new();
    let term = f.terminator(exiting);
    let mut old_args = Vec::new();
    if let Some(term) = term {
        for edge in f.dfg.inst_mut(term).payload.edges_mut() {
            if edge.block == target {
                old_args = edge.args.to_vec();
                edge.block = join;
                edge.args = old_args.iter().chain(escaping).copied().collect();
            }
        }
    }
    for &a in &old_args {
        let ty = f.dfg.value_type(a);
        forwarded.push(f.dfg.append_block_param(join, ty));
    }
    let mut renamed: SecondaryMap<Value, PackedOption<Value>> = SecondaryMap::new();
    for &v in escaping {
        let ty = f.dfg.value_type(v);
        renamed[v] = f.dfg.append_block_param(join, ty).into();
    }
    let outside: Vec<Block> = f
        .layout
        .blocks()
        .filter(|&b| b != join && !loops.contains(lp, b) && loops.cfg().is_reachable(b))
        .collect();
    for b in outside {
        for inst in f.layout.block_insts(b).collect::<Vec<_>>() {
            let mut data = f.dfg.inst(inst).clone();
            data.map_values(|v| {
                let r = f.dfg.resolve(v);
                renamed.get(r).and_then(|n| n.expand()).unwrap_or(v)
            });
            *f.dfg.inst_mut(inst) = data;
        }
    }
    replace_terminator_with_jump(f, join, BlockCall::with_args(target, &forwarded));
    join
}

/// Creates `op args` with a result of type `ty` before `at` and returns the result.
pub fn insert_before(f: &mut Function, at: Inst, op: Opcode, args: &[Value], ty: Type) -> Value {
    let inst = f.dfg.make_inst(InstData::new(op, args));
    let r = f.dfg.make_result(inst, ty);
    f.layout.insert_inst_before(inst, at);
    r
}

/// Deletes `blocks`, then every block unreachable from the entry that still names a
/// block no longer in the layout or reads a value defined there (repeatedly: deleting
/// one may strand another). Unreachable blocks never run, so this changes no behaviour;
/// it keeps the module valid when a loop had unreachable blocks branching into it.
pub fn delete_blocks(f: &mut Function, blocks: &[Block]) {
    for &b in blocks {
        delete_block(f, b);
    }
    loop {
        let cfg = crate::analysis::cfg::Cfg::new(f);
        let stranded: Vec<Block> = f
            .layout
            .blocks()
            .filter(|&b| !cfg.is_reachable(b) && names_missing(f, b))
            .collect();
        if stranded.is_empty() {
            return;
        }
        for b in stranded {
            delete_block(f, b);
        }
    }
}

/// Whether an instruction of `b` branches to a block outside the layout or reads a value
/// whose definition is not placed.
fn names_missing(f: &Function, b: Block) -> bool {
    f.layout.block_insts(b).any(|inst| {
        let data = f.dfg.inst(inst);
        let bad_edge = data
            .payload
            .edges()
            .iter()
            .any(|e| !f.layout.is_block_inserted(e.block));
        bad_edge
            || data.all_values().any(|v| {
                let v = f.dfg.resolve(v);
                !f.dfg.value_is_valid(v)
                    || match f.dfg.value_def(v) {
                        ValueDef::Result(i) => f.layout.inst_block(i).is_none(),
                        ValueDef::Param(pb, _) => !f.layout.is_block_inserted(pb),
                        ValueDef::Const(_) | ValueDef::Global(_) => false,
                        ValueDef::Alias(_) | ValueDef::Detached => true,
                    }
            })
    })
}

/// Whether a plain-CFG pass may work on a function.
pub enum Eligibility {
    /// A definition without structured control flow.
    Plain,
    /// A definition with structured control flow: left alone and counted.
    Structured,
    /// No such function, or no body.
    NoBody,
}

/// The [`Eligibility`] of `func` in `module`.
pub fn eligibility(module: &oxir_ir::Module, func: oxir_ir::Func) -> Eligibility {
    match module.functions.get(func) {
        Some(f) if f.is_definition() && f.entry_block().is_some() => {
            if crate::util::contains_structured_control_flow(f) {
                Eligibility::Structured
            } else {
                Eligibility::Plain
            }
        }
        Some(_) | None => Eligibility::NoBody,
    }
}

/// Returns `$info` from the enclosing pass entry point unless `$func` is a plain-CFG
/// definition ([`eligibility`]); a structured one is counted in
/// `structured_cfg_error_count`.
macro_rules! require_plain_cfg {
    ($module:expr, $func:expr, $info:ident) => {
        match $crate::loop_transform::eligibility($module, $func) {
            $crate::loop_transform::Eligibility::Plain => {}
            $crate::loop_transform::Eligibility::Structured => {
                $info.structured_cfg_error_count = 1;
                return $info;
            }
            $crate::loop_transform::Eligibility::NoBody => return $info,
        }
    };
}
pub(crate) use require_plain_cfg;
