//! `hoist-allocas`: moves every `alloca` of a function to the start of its entry block.
//!
//! After this pass the entry block begins with every `alloca` of the function, in layout
//! order (blocks in layout order, instructions in block order), followed by the entry's
//! other instructions. The allocas that already formed the entry's leading run stay where
//! they are; every other alloca — in another block, or in the entry after a non-alloca
//! instruction — is moved to the end of that run. Both `function` and `workgroup` allocas
//! move (a workgroup alloca is one object per workgroup wherever it is written). Moving
//! re-links the layout: instructions keep their identity, result values and metadata.
//!
//! **Why this is sound.** An `alloca` has no operands and no memory effect, so moving it
//! up to the entry changes no data dependence, and the entry dominates every block, so
//! the address still dominates every use. Moving never changes control flow; the pass
//! works on structured and plain CFGs alike (blocks reachable only through structural
//! roles included).
//!
//! **Allocas in loops.** In SSA terms an alloca executed in a loop body denotes a fresh
//! object per iteration; after hoisting, all iterations share one object. oxir allocas are
//! uninitialised slots (a load before any store reads an unspecified value), front-ends
//! store before they load, and an address cannot be compared, converted or stored, so
//! an iteration cannot observe whether its slot is fresh: it can only read a value the
//! program left there, which is one of the values "unspecified" allows. This is the
//! standard contract (LLVM's allocas live in the entry block for the same reason), and
//! `mem2reg` relies on it: it runs after this pass (the `normalize` pipeline's order;
//! `docs/passes.md`, "Driver pipelines").
//!
//! **What it does not do.** It does not merge, remove or reorder allocas among
//! themselves, does not touch loads and stores, and does not change address spaces.
//!
//! ```text
//! block0:                                  block0:
//!     v0: ptr<function, i32> = alloca          v0: ptr<function, i32> = alloca
//!     v1: i32 = add v9, v9          =>         v2: ptr<function, f32> = alloca
//!     br block1                                v1: i32 = add v9, v9
//! block1:                                      br block1
//!     v2: ptr<function, f32> = alloca      block1:
//!     store v2, c0                             store v2, c0
//! ```
//!
//! Counter: `hoisted_alloca_count` — allocas that moved.

use crate::pass_info;
use crate::util::definitions;
use oxir_ir::{Func, Inst, Module, Opcode};

pass_info! {
    pass: "hoist-allocas",
    /// Counters of `hoist-allocas`.
    pub struct HoistAllocasInfo {
        /// Allocas moved to the entry block's leading run of allocas.
        hoisted_alloca_count,
    }
    changed_by: [hoisted_alloca_count]
}

/// Hoists the allocas of `func` (a declaration or an unknown function is left alone).
pub fn run_on_function(module: &mut Module, func: Func) -> HoistAllocasInfo {
    let mut info = HoistAllocasInfo::default();
    let Some(function) = module.functions.get_mut(func) else {
        return info;
    };
    let Some(entry) = function.entry_block() else {
        return info;
    };
    let is_alloca = |inst: Inst| function.dfg.inst(inst).opcode == Opcode::Alloca;
    // The first instruction after the entry's leading run of allocas: moved allocas go
    // right before it (at the end of the entry when it holds allocas only).
    let anchor = function
        .layout
        .block_insts(entry)
        .find(|&inst| !is_alloca(inst));
    let mut to_move: Vec<Inst> = Vec::new();
    for block in function.layout.blocks() {
        let mut insts = function.layout.block_insts(block).peekable();
        if block == entry {
            // Skip the leading run: those allocas are already in place.
            while insts.next_if(|&inst| Some(inst) != anchor).is_some() {}
        }
        to_move.extend(insts.filter(|&inst| is_alloca(inst)));
    }
    for &inst in &to_move {
        function.layout.remove_inst(inst);
        match anchor {
            Some(anchor) => function.layout.insert_inst_before(inst, anchor),
            None => function.layout.append_inst(inst, entry),
        }
    }
    info.hoisted_alloca_count = to_move.len() as u64;
    info
}

/// Hoists the allocas of every function with a body.
pub fn run_on_module(module: &mut Module) -> HoistAllocasInfo {
    let mut info = HoistAllocasInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    fn entry_opcodes(module: &Module) -> Vec<Opcode> {
        let f = module.functions.values().next().expect("one function");
        let entry = f.entry_block().expect("entry");
        f.layout
            .block_insts(entry)
            .map(|i| f.dfg.inst(i).opcode)
            .collect()
    }

    #[test]
    fn entry_allocas_after_other_instructions_join_the_leading_run() {
        let text = "\
callable @f(i32) -> i32 {
block0(v0: i32):
    v1: i32 = add v0, v0
    v2: ptr<function, i32> = alloca
    store v2, v1
    v3: i32 = load v2
    return v3
}
";
        let mut module = parse_module(text).expect("parses");
        let info = run_on_module(&mut module);
        assert_eq!(info.hoisted_alloca_count, 1);
        use Opcode as O;
        assert_eq!(
            entry_opcodes(&module),
            [O::Alloca, O::Add, O::Store, O::Load, O::Return]
        );
        assert!(verify_module(&module, &VerifierOptions::default()).succeeded());
        let before = print_module(&module, View::Flat);
        assert_eq!(run_on_module(&mut module).hoisted_alloca_count, 0);
        assert_eq!(print_module(&module, View::Flat), before);
    }

    #[test]
    fn an_entry_without_other_instructions_receives_allocas_at_its_end() {
        // Unterminated blocks are accepted with `require_terminated_blocks` off; the pass
        // must not need a terminator to anchor on.
        let mut module = parse_module(
            "callable @f() {\nblock0:\n    v0: ptr<function, i32> = alloca\nblock1:\n    v1: ptr<function, f32> = alloca\n    return\n}\n",
        )
        .expect("parses");
        let info = run_on_module(&mut module);
        assert_eq!(info.hoisted_alloca_count, 1);
        assert_eq!(entry_opcodes(&module), [Opcode::Alloca, Opcode::Alloca]);
    }
}
