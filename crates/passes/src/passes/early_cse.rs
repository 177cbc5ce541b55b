//! `early-cse`: common-subexpression elimination of pure instructions within one block.
//!
//! Each block is scanned in order with an empty table of available expressions
//! ([`crate::analysis::value_table`], the same key `gvn` uses: opcode, result type,
//! literal indices, operands named by their replacements, commutative operands ordered).
//! An instruction whose expression an earlier instruction of the same block computed is
//! replaced by that instruction's result and removed. Only instructions
//! [`oxir_ir::effects::is_safe_to_value_number`] admits — pure, not convergent, not
//! `alloca` — and without semantic metadata are keyed; `access` chains and
//! special-register reads are expressions like any other. Decisions are made on the
//! unchanged function, then applied at once; one run reaches a fixed point.
//!
//! Cheap and CFG-agnostic: it needs no dominator tree, so it runs on structured and plain
//! functions alike (inside a block the order is straight-line in both). Counter:
//! `eliminated_inst_count`.
//!
//! ## What it does not do
//!
//! - It never looks across blocks (a computation in a dominating block is `gvn`'s), and
//!   it does not touch loads at all (not even invariant ones: see `gvn`,
//!   `local-load-elimination`, `local-store-forward`).
//! - It never merges convergent operations, texture reads, atomics, `clock` or
//!   allocations, and does not remove instructions that become dead (`dce`).
//!
//! ## Example
//!
//! ```text
//! v2: u32 = add v0, v1        v2: u32 = add v0, v1
//! v3: u32 = add v1, v0  ==>   v4: u32 = mul v2, v2
//! v4: u32 = mul v2, v3
//! ```

use crate::analysis::value_table::{ExprTable, Replacements};
use crate::pass_info;
use crate::util::definitions;
use oxir_ir::effects::is_safe_to_value_number;
use oxir_ir::ops::EffectClass;
use oxir_ir::{Func, Module};

pass_info! {
    pass: "early-cse",
    /// Counters of `early-cse`.
    pub struct EarlyCseInfo {
        /// Pure instructions replaced by an earlier equal one of the same block.
        eliminated_inst_count,
    }
    changed_by: [eliminated_inst_count]
}

/// Runs [`run_on_function`] on every function with a body.
pub fn run_on_module(module: &mut Module) -> EarlyCseInfo {
    let mut info = EarlyCseInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Eliminates the block-local common subexpressions of one function.
pub fn run_on_function(module: &mut Module, func: Func) -> EarlyCseInfo {
    let Some(f) = module.functions.get(func) else {
        return EarlyCseInfo::default();
    };
    let mut replacements = Replacements::default();
    let mut table = ExprTable::with_capacity(f.dfg.num_insts());
    for block in f.layout.blocks() {
        let mark = table.mark();
        for inst in f.layout.block_insts(block) {
            let keyed = f.dfg.inst(inst).opcode.info().effect == EffectClass::Pure
                && !f.dfg.metadata(inst).is_some_and(|md| md.is_annotated())
                && is_safe_to_value_number(module, f, inst);
            if !keyed {
                continue;
            }
            if let Some(earlier) = table.number(f, inst, &replacements.leaders) {
                replacements.replace(f, inst, earlier);
            }
        }
        table.restore(mark);
    }
    let info = EarlyCseInfo {
        eliminated_inst_count: replacements.len() as u64,
        ..EarlyCseInfo::default()
    };
    replacements.apply(&mut module.functions[func]);
    info
}
