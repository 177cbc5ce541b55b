//! Small queries shared by passes, and [`TerminatorOp`], the terminator opcodes as a closed
//! set so that control-flow dispatch can be an exhaustive `match`.

use oxir_ir::{Func, Function, Module, Opcode};

/// The terminator opcodes (those the op table gives the `Terminator` effect class). Passes
/// match on this instead of on [`Opcode`] so that each control-flow dispatch lists every
/// terminator, and a new one breaks every place that must decide what to do with it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TerminatorOp {
    Br,
    CondBr,
    SwitchBr,
    Return,
    Unreachable,
    Discard,
    If,
    Loop,
    SimpleLoop,
    Switch,
    Break,
    Continue,
}

impl TerminatorOp {
    /// The terminator `op` is; `None` when the op table says it is not a terminator.
    pub fn of(op: Opcode) -> Option<TerminatorOp> {
        if !op.is_terminator() {
            return None;
        }
        Some(match op {
            Opcode::Br => TerminatorOp::Br,
            Opcode::CondBr => TerminatorOp::CondBr,
            Opcode::SwitchBr => TerminatorOp::SwitchBr,
            Opcode::Return => TerminatorOp::Return,
            Opcode::Unreachable => TerminatorOp::Unreachable,
            Opcode::Discard => TerminatorOp::Discard,
            Opcode::If => TerminatorOp::If,
            Opcode::Loop => TerminatorOp::Loop,
            Opcode::SimpleLoop => TerminatorOp::SimpleLoop,
            Opcode::Switch => TerminatorOp::Switch,
            Opcode::Break => TerminatorOp::Break,
            Opcode::Continue => TerminatorOp::Continue,
            // Only terminators get here (checked above), and every terminator of the op
            // table is listed: a new terminator row fails the test
            // `every_terminator_has_a_terminator_op` until it is added.
            other => unreachable!("terminator `{other}` has no TerminatorOp"),
        })
    }
}

/// Whether `func` has any structured terminator (`if`, `loop`, `simple_loop`, `switch`) or
/// `break` / `continue` in its layout. Passes that need a plain CFG check this first.
pub fn contains_structured_control_flow(func: &Function) -> bool {
    func.layout.blocks().any(|b| {
        func.terminator(b).is_some_and(|t| {
            let op = func.dfg.inst(t).opcode;
            op.is_structured() || op.is_structured_exit()
        })
    })
}

/// The functions of `module` that have bodies, in index order.
pub fn definitions(module: &Module) -> Vec<Func> {
    module
        .functions
        .iter()
        .filter(|(_, f)| f.is_definition() && f.layout.entry_block().is_some())
        .map(|(k, _)| k)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_terminator_has_a_terminator_op() {
        let mut count = 0;
        for &op in Opcode::ALL {
            let kind = std::panic::catch_unwind(|| TerminatorOp::of(op))
                .unwrap_or_else(|_| panic!("terminator `{op}` has no TerminatorOp"));
            assert_eq!(kind.is_some(), op.is_terminator(), "{op}");
            count += usize::from(kind.is_some());
        }
        assert_eq!(count, 12, "one TerminatorOp per terminator opcode");
    }
}
