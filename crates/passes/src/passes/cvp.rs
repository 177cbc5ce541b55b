//! `cvp`: correlated value propagation — a value is known to equal a constant in the
//! blocks a branch on that equality dominates.
//!
//! **What it does.** For a `cond_br c, T, F` ending block `B`:
//! - `c = eq x, K` (or `eq K, x`) with `K` a constant: in every block dominated by `T`'s
//!   target, `x` is `K`;
//! - `c = ne x, K`: the same in every block dominated by `F`'s target;
//! - `c` itself: it is `true` under `T`'s target and `false` under `F`'s;
//!
//! provided the target is not the entry block, has `B` as its only predecessor and the
//! two edges go to different blocks (otherwise the target is also reached when the fact does not hold).
//! Every operand and edge argument in those blocks that reads `x` is rewritten to the
//! constant (`replaced_use_count`), so `const-fold`, `sccp` and `simplify-cfg` can use it.
//! One walk over the dominator tree in preorder keeps a scoped map of the facts in force
//! (entered at a target, undone on leaving its subtree): O(instructions + operands).
//! Decisions are made on the unchanged function; a `true` / `false` constant is
//! interned only when a use is rewritten.
//!
//! Only integers and bools: **not floats**, where `eq x, 0.0` also holds for `x = -0.0`
//! (and `1.0 / x` then differs), and `ne x, NaN`-style facts give nothing; integer and
//! bool equality is bit equality, so the rewrite is exact.
//!
//! ## What it does not do
//!
//! - It does not use ranges (`lt x, 4`), `switch_br` cases, facts from `select`s or
//!   `assert`s, or facts on edges into join blocks (a target with several predecessors).
//! - It does not rewrite `x`'s uses outside the dominated blocks, its own definition, the
//!   comparison itself, or the arguments `B`'s edges pass (they are evaluated in `B`).
//! - It does not fold what becomes constant (`const-fold`, `sccp` do), nor compare
//!   vectors (a `cond_br` condition is a scalar `bool`).
//!
//! ## Example
//!
//! ```text
//! block0(v0: i32):                        block0(v0: i32):
//!     v1: bool = eq v0, c3                    v1: bool = eq v0, c3
//!     cond_br v1, block1, block2      ==>     cond_br v1, block1, block2
//! block1:                                 block1:
//!     v2: i32 = mul v0, v0                    v2: i32 = mul c3, c3
//!     return v2                               return v2
//! ```

use crate::analysis::dominators::DomTree;
use crate::const_values::{const_of, scalar_or_vector};
use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::SecondaryMap;
use oxir_ir::instructions::Payload;
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, Scalar, ScalarKind, Value, ValueDef};

pass_info! {
    pass: "cvp",
    /// Counters of `cvp`.
    pub struct CvpInfo {
        /// Operands and edge arguments rewritten to the constant a dominating branch
        /// proves.
        replaced_use_count,
    }
    changed_by: [replaced_use_count]
}

/// Runs `cvp` on every function definition of `module`.
pub fn run_on_module(module: &mut Module) -> CvpInfo {
    let mut info = CvpInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Runs `cvp` on one function.
pub fn run_on_function(module: &mut Module, func: Func) -> CvpInfo {
    let mut info = CvpInfo::default();
    let Some(f) = module.functions.get(func) else {
        return info;
    };
    let Some(entry) = f.layout.entry_block() else {
        return info;
    };
    let rewrites = plan(module, f, entry);
    if rewrites.is_empty() {
        return info;
    }
    for (inst, slot, fact) in rewrites {
        let new = match fact {
            Fact::Value(v) => v,
            Fact::Bool(b) => {
                let c = module.const_scalar(Scalar::BOOL, u64::from(b));
                let f = &mut module.functions[func];
                let ty = f.dfg.value_type(slot_value(f, inst, slot));
                f.dfg.const_value(c, ty)
            }
        };
        let data = module.functions[func].dfg.inst_mut(inst);
        match slot {
            Slot::Arg(i) => data.args[i] = new,
            Slot::EdgeArg(e, i) => {
                if let Some(edge) = data.payload.edges_mut().into_iter().nth(e) {
                    edge.args[i] = new;
                }
            }
        }
        info.replaced_use_count += 1;
    }
    info
}

/// What a value is known to be.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Fact {
    /// An existing constant value.
    Value(Value),
    /// The bool constant (interned on use).
    Bool(bool),
}

/// Where an instruction reads a value: operand `i`, or argument `i` of edge `e`.
#[derive(Copy, Clone, Debug)]
enum Slot {
    Arg(usize),
    EdgeArg(usize, usize),
}

fn slot_value(f: &Function, inst: Inst, slot: Slot) -> Value {
    let data = f.dfg.inst(inst);
    match slot {
        Slot::Arg(i) => data.args[i],
        Slot::EdgeArg(e, i) => data.payload.edges()[e].args[i],
    }
}

/// The facts each block's entry establishes (at most two: the compared value and the
/// condition itself).
fn facts(module: &Module, f: &Function, dom: &DomTree) -> SecondaryMap<Block, Vec<(Value, Fact)>> {
    let mut out: SecondaryMap<Block, Vec<(Value, Fact)>> = SecondaryMap::new();
    for block in f.layout.blocks() {
        let Some(term) = f.terminator(block) else {
            continue;
        };
        let data = f.dfg.inst(term);
        let (
            Opcode::CondBr,
            Payload::CondBranch {
                then_dest,
                else_dest,
            },
        ) = (data.opcode, &data.payload)
        else {
            continue;
        };
        let Some(&cond) = data.args.first() else {
            continue;
        };
        if then_dest.block == else_dest.block {
            continue;
        }
        // The entry is also entered when the function starts.
        let entry = f.layout.entry_block();
        let single =
            |b: Block| Some(b) != entry && dom.cfg().pred_count(b) == 1 && dom.is_reachable(b);
        let cond = f.dfg.resolve(cond);
        if const_of(f, cond).is_none() {
            for (target, value) in [(then_dest.block, true), (else_dest.block, false)] {
                if single(target) {
                    out[target].push((cond, Fact::Bool(value)));
                }
            }
        }
        if let Some((x, k, on_true)) = equality(module, f, cond) {
            let target = if on_true {
                then_dest.block
            } else {
                else_dest.block
            };
            if single(target) {
                out[target].push((x, Fact::Value(k)));
            }
        }
    }
    out
}

/// `cond = eq x, K` → `(x, K, true)`; `ne x, K` → `(x, K, false)`: the value, the
/// constant, and on which edge they are equal. Integers and bools only.
fn equality(module: &Module, f: &Function, cond: Value) -> Option<(Value, Value, bool)> {
    let ValueDef::Result(inst) = f.dfg.value_def(cond) else {
        return None;
    };
    let data = f.dfg.inst(inst);
    let on_true = match data.opcode {
        Opcode::Eq => true,
        Opcode::Ne => false,
        // wildcard-ok: only the two equality comparisons give a fact
        _ => return None,
    };
    let [a, b] = data.args[..] else {
        return None;
    };
    let (a, b) = (f.dfg.resolve(a), f.dfg.resolve(b));
    let (x, k) = match (const_of(f, a), const_of(f, b)) {
        (None, Some(_)) => (a, b),
        (Some(_), None) => (b, a),
        (Some(_), Some(_)) | (None, None) => return None,
    };
    let (s, lanes) = scalar_or_vector(&module.types, f.dfg.value_type(x))?;
    let exact = match s.kind {
        ScalarKind::Sint | ScalarKind::Uint | ScalarKind::Bool => true,
        ScalarKind::Float => false,
    };
    (exact && lanes == 1).then_some((x, k, on_true))
}

/// The rewrites, found by one preorder walk of the dominator tree.
fn plan(module: &Module, f: &Function, entry: Block) -> Vec<(Inst, Slot, Fact)> {
    let dom = DomTree::new(f);
    let facts = facts(module, f, &dom);
    let mut known: SecondaryMap<Value, Option<Fact>> = SecondaryMap::new();
    let mut undo: Vec<(Value, Option<Fact>)> = Vec::new();
    let mut out = Vec::new();
    // (block, undo height to restore on leaving, leaving?)
    let mut stack: Vec<(Block, usize, bool)> = vec![(entry, 0, false)];
    while let Some((block, height, leaving)) = stack.pop() {
        if leaving {
            while undo.len() > height {
                if let Some((v, old)) = undo.pop() {
                    known[v] = old;
                }
            }
            continue;
        }
        let height = undo.len();
        for &(v, fact) in &facts[block] {
            undo.push((v, known[v]));
            known[v] = Some(fact);
        }
        for inst in f.layout.block_insts(block) {
            rewrites_in(f, inst, &known, &mut out);
        }
        stack.push((block, height, true));
        for child in dom.children(block) {
            stack.push((child, 0, false));
        }
    }
    out
}

fn rewrites_in(
    f: &Function,
    inst: Inst,
    known: &SecondaryMap<Value, Option<Fact>>,
    out: &mut Vec<(Inst, Slot, Fact)>,
) {
    let data = f.dfg.inst(inst);
    let lookup = |v: Value| known[f.dfg.resolve(v)];
    for (i, &v) in data.args.iter().enumerate() {
        if let Some(fact) = lookup(v) {
            out.push((inst, Slot::Arg(i), fact));
        }
    }
    for (e, edge) in data.payload.edges().iter().enumerate() {
        for (i, &v) in edge.args.iter().enumerate() {
            if let Some(fact) = lookup(v) {
                out.push((inst, Slot::EdgeArg(e, i), fact));
            }
        }
    }
}
