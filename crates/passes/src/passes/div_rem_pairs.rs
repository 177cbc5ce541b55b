//! `div-rem-pairs`: puts an integer `div a, b` and `rem a, b` of the same operands next to
//! each other, so a back-end can compute both with one division.
//!
//! **What it does.** For each function, the integer `div` and `rem` instructions are
//! grouped by (resolved) operands and result type; a group of exactly one `div` and one
//! `rem` in different blocks `X` and `Y` is moved together:
//! - when one block dominates the other, the later instruction moves to just after the
//!   earlier one (its operands are the earlier one's, so they are available there);
//! - when neither dominates, both move to the end (before the terminator) of the nearest
//!   common dominator `D` of `X` and `Y`. `a` and `b` are available there: their
//!   definitions dominate both `X` and `Y`, so they dominate `D`.
//!
//! and the pair counts once (`merged_pair_count`).
//!
//! **Why moving is safe.** `div` and `rem` are pure and total in this IR
//! ([`oxir_ir::scalar_semantics`]: `x / 0 = x`, `x % 0 = 0`, `MIN / -1 = MIN`,
//! `MIN % -1 = 0`), and both back-ends emit exactly those guards, so executing one on a
//! path that did not before cannot trap or change a result: speculation is safe.
//! **Cost.** A moved instruction may now run on a path that did not need it; the pass
//! only moves within one loop (the target block must be in the same innermost loop as
//! both `X` and `Y`), so nothing moves into a loop and is executed more often per run.
//!
//! **The rejected design.** Rewriting `rem a, b` as `a - (a / b) * b` next to a
//! dominating `div` is *not* exact under the IR's total semantics when `b = 0`
//! (`a - (a / 0) * 0 = a`, but `a % 0 = 0`); for `MIN / -1` it happens to hold (`MIN -
//! MIN * -1` wraps to `0`). It would be exact only for a nonzero constant `b`, where the
//! back-ends strength-reduce the division anyway, and it turns one instruction into two,
//! so it is not done.
//!
//! ## What it does not do
//!
//! - No floats (float `div`/`rem` are different operations), no groups with several
//!   `div`s or `rem`s of the same operands (`gvn` merges duplicates first), no pairs
//!   whose blocks are in different loops, and no instructions with semantic metadata.
//! - It skips functions with structured control flow, and does not compute `rem` from
//!   `div` (see above).
//!
//! ## Example
//!
//! ```text
//! block0(v0: i32, v1: i32, v2: bool):      block0(v0: i32, v1: i32, v2: bool):
//!     cond_br v2, block1, block2               v3: i32 = div v0, v1
//! block1:                                      v4: i32 = rem v0, v1
//!     v3: i32 = div v0, v1           ==>       cond_br v2, block1, block2
//!     return v3                            block1:
//! block2:                                      return v3
//!     v4: i32 = rem v0, v1                 block2:
//!     return v4                                return v4
//! ```

use crate::analysis::loops::LoopInfo;
use crate::const_values::scalar_or_vector;
use crate::pass_info;
use crate::util::{contains_structured_control_flow, definitions};
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, ScalarKind, Value};

pass_info! {
    pass: "div-rem-pairs",
    /// Counters of `div-rem-pairs`.
    pub struct DivRemPairsInfo {
        /// `div`/`rem` pairs of the same operands moved next to each other.
        merged_pair_count,
    }
    changed_by: [merged_pair_count]
}

/// Runs `div-rem-pairs` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> DivRemPairsInfo {
    let mut info = DivRemPairsInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Where an instruction goes: after another instruction, or at the end of a block.
#[derive(Copy, Clone, Debug)]
enum Place {
    After(Inst),
    End(Block),
}

/// Runs `div-rem-pairs` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> DivRemPairsInfo {
    let mut info = DivRemPairsInfo::default();
    let Some(f) = module.functions.get(func) else {
        return info;
    };
    if contains_structured_control_flow(f) || f.layout.entry_block().is_none() {
        return info;
    }
    let moves = plan(module, f);
    let f = &mut module.functions[func];
    for (insts, place) in moves {
        for inst in insts {
            f.layout.remove_inst(inst);
            match place {
                Place::After(anchor) => f.layout.insert_inst_after(inst, anchor),
                Place::End(block) => match f.terminator(block) {
                    Some(term) => f.layout.insert_inst_before(inst, term),
                    None => f.layout.append_inst(inst, block),
                },
            }
        }
        info.merged_pair_count += 1;
    }
    info
}

/// The integer `div`s and `rem`s: `(a, b, is_rem, inst)` with resolved operands.
fn candidates(module: &Module, f: &Function) -> Vec<(Value, Value, bool, Inst)> {
    let mut out = Vec::new();
    for block in f.layout.blocks() {
        for inst in f.layout.block_insts(block) {
            let data = f.dfg.inst(inst);
            let is_rem = match data.opcode {
                Opcode::Div => false,
                Opcode::Rem => true,
                // wildcard-ok: only the two division opcodes pair
                _ => continue,
            };
            let integer = f.dfg.inst_result(inst).is_some_and(|r| {
                scalar_or_vector(&module.types, f.dfg.value_type(r))
                    .is_some_and(|(s, _)| matches!(s.kind, ScalarKind::Sint | ScalarKind::Uint))
            });
            let annotated = f.dfg.metadata(inst).is_some_and(|md| md.is_annotated());
            if let ([a, b], true, false) = (&data.args[..], integer, annotated) {
                out.push((f.dfg.resolve(*a), f.dfg.resolve(*b), is_rem, inst));
            }
        }
    }
    out
}

/// The moves, decided on the unchanged function: the instructions to move (in order) and
/// where they go.
fn plan(module: &Module, f: &Function) -> Vec<(Vec<Inst>, Place)> {
    let mut all = candidates(module, f);
    all.sort_by_key(|&(a, b, is_rem, _)| (a, b, is_rem));
    let loops = LoopInfo::new(f);
    let mut out = Vec::new();
    let mut i = 0;
    while i < all.len() {
        let (a, b) = (all[i].0, all[i].1);
        let end = i + all[i..].iter().take_while(|c| (c.0, c.1) == (a, b)).count();
        if let [(_, _, false, div), (_, _, true, rem)] = all[i..end] {
            let ty = |inst: Inst| f.dfg.inst_result(inst).map(|r| f.dfg.value_type(r));
            if ty(div) == ty(rem) {
                out.extend(pair_move(f, &loops, div, rem));
            }
        }
        i = end;
    }
    out
}

fn pair_move(f: &Function, loops: &LoopInfo, div: Inst, rem: Inst) -> Option<(Vec<Inst>, Place)> {
    let (x, y) = (f.layout.inst_block(div)?, f.layout.inst_block(rem)?);
    let dom = loops.dom_tree();
    if x == y || !dom.is_reachable(x) || !dom.is_reachable(y) {
        return None;
    }
    let (insts, place, target) = if dom.dominates(x, y) {
        (vec![rem], Place::After(div), x)
    } else if dom.dominates(y, x) {
        (vec![div], Place::After(rem), y)
    } else {
        let d = nearest_common_dominator(loops, x, y)?;
        (vec![div, rem], Place::End(d), d)
    };
    let same_loop =
        loops.loop_of(target) == loops.loop_of(x) && loops.loop_of(target) == loops.loop_of(y);
    same_loop.then_some((insts, place))
}

fn nearest_common_dominator(loops: &LoopInfo, mut x: Block, mut y: Block) -> Option<Block> {
    let dom = loops.dom_tree();
    let cfg = loops.cfg();
    let pos = |b: Block| cfg.number(b).and_then(|n| cfg.rpo_position(n));
    while x != y {
        // The block later in reverse post-order cannot dominate the other: climb it.
        if pos(x)? > pos(y)? {
            x = dom.idom(x)?;
        } else {
            y = dom.idom(y)?;
        }
    }
    Some(x)
}
