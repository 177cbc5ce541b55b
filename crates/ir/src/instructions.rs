//! Instruction data: an opcode, value operands, and a payload for everything that is not
//! a value (literal indices, callee, message, branch destinations, structural roles).
//!
//! Executable edges versus structural roles (see `docs/ir.md`): a [`BlockCall`] is an
//! executable edge — it passes arguments to the target's parameters and counts as a CFG
//! successor. A bare [`Block`] in a payload (merge, loop body, loop update) is a structural
//! role: an annotation that is not an edge, has no arguments, and is never a successor.

use crate::entities::{Block, Func, Value};
use crate::ops::{Format, Opcode};
use smallvec::SmallVec;
use thin_vec::ThinVec;

/// Value operand list, stored inline for up to three operands.
pub type ValueList = SmallVec<[Value; 3]>;

/// An executable edge: a target block and the arguments bound to its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockCall {
    /// The target block.
    pub block: Block,
    /// One pointer wide (empty lists allocate nothing), so that branch payloads, and with
    /// them every instruction, stay small.
    pub args: ThinVec<Value>,
}

impl BlockCall {
    /// An edge to `block` with no arguments.
    pub fn new(block: Block) -> Self {
        BlockCall {
            block,
            args: ThinVec::new(),
        }
    }

    /// An edge to `block` passing `args`, one per parameter of `block`, in order.
    pub fn with_args(block: Block, args: &[Value]) -> Self {
        BlockCall {
            block,
            args: ThinVec::from(args),
        }
    }
}

/// The case table of `switch_br` and `switch`. Labels are stored as 64-bit patterns
/// canonicalised to the selector's width (sign-extended for signed selectors, zero-extended
/// for unsigned and bool); the verifier rejects non-canonical and duplicate labels.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SwitchTable {
    /// `(label, edge)` pairs in text order; labels are canonical and distinct.
    pub cases: Vec<(u64, BlockCall)>,
    /// The edge taken when no label matches the selector.
    pub default: BlockCall,
}

/// The non-value part of an instruction. Which variant an opcode uses is its
/// [`Format`]; the verifier rejects any mismatch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Payload {
    /// No payload: the instruction is its opcode and value operands (format `Plain`).
    None,
    /// Literal indices of `extract`, `insert` (member path) and `shuffle` (lanes).
    Indices(Box<[u32]>),
    /// The function `call` invokes.
    Callee(Func),
    /// The string of `print` (its format string), `assert` and `unreachable` (a
    /// diagnostic).
    Message(Box<str>),
    /// `br`, `break`, `continue`.
    Jump(BlockCall),
    /// `cond_br`: two edges, chosen by the condition operand.
    CondBranch {
        /// Taken when the condition is true.
        then_dest: BlockCall,
        /// Taken when the condition is false.
        else_dest: BlockCall,
    },
    /// `switch_br`: one edge per case label plus the default, chosen by the selector.
    SwitchBranch(Box<SwitchTable>),
    /// Structured if: executable edges to both arms; `merge` is a role and may be absent
    /// when neither arm reaches it (both return, for example).
    If {
        /// The then arm's entry, taken when the condition is true.
        then_dest: BlockCall,
        /// The else arm's entry, taken when the condition is false.
        else_dest: BlockCall,
        /// Where the arms rejoin; `None` when neither arm reaches a common block.
        merge: Option<Block>,
    },
    /// Structured loop: `prepare` is the executable edge; it evaluates the condition and
    /// branches to `body` or `merge`; `body` ends by reaching `update`, which branches back
    /// to `prepare`. `continue` targets `update`, `break` targets `merge`.
    Loop {
        /// The edge into the loop: the block that evaluates the loop condition.
        prepare: BlockCall,
        /// Role: the first block of the loop body.
        body: Block,
        /// Role: the block `continue` reaches, which branches back to `prepare`.
        update: Block,
        /// Role: the block after the loop, which `break` reaches.
        merge: Block,
    },
    /// Unconditional loop: `body` is entered by the edge and loops back to itself (by
    /// `continue body` or `br body`); it leaves only by `break merge`.
    SimpleLoop {
        /// The edge into the loop body (also the loop's header).
        body: BlockCall,
        /// Role: the block after the loop, which `break` reaches.
        merge: Block,
    },
    /// Structured switch: case and default edges, plus the merge role.
    Switch {
        /// The case and default edges.
        table: Box<SwitchTable>,
        /// Role: the block where the cases rejoin, which `break` reaches.
        merge: Block,
    },
}

impl Payload {
    /// The literal indices of `extract`, `insert` and `shuffle`; empty for every other
    /// payload.
    pub fn indices(&self) -> &[u32] {
        match self {
            Payload::Indices(indices) => indices,
            Payload::None
            | Payload::Callee(_)
            | Payload::Message(_)
            | Payload::Jump(_)
            | Payload::CondBranch { .. }
            | Payload::SwitchBranch(_)
            | Payload::If { .. }
            | Payload::Loop { .. }
            | Payload::SimpleLoop { .. }
            | Payload::Switch { .. } => &[],
        }
    }

    /// The payload format this variant belongs to (`None` matches `Plain`).
    pub fn format(&self) -> Format {
        match self {
            Payload::None => Format::Plain,
            Payload::Indices(_) => Format::Indices,
            Payload::Callee(_) => Format::Call,
            Payload::Message(_) => Format::Message,
            Payload::Jump(_) => Format::Jump,
            Payload::CondBranch { .. } => Format::CondBranch,
            Payload::SwitchBranch(_) => Format::SwitchBranch,
            Payload::If { .. } => Format::If,
            Payload::Loop { .. } => Format::Loop,
            Payload::SimpleLoop { .. } => Format::SimpleLoop,
            Payload::Switch { .. } => Format::Switch,
        }
    }

    /// The executable edges, in order (then before else; cases before default).
    pub fn edges(&self) -> SmallVec<[&BlockCall; 2]> {
        let mut out = SmallVec::new();
        match self {
            Payload::None | Payload::Indices(_) | Payload::Callee(_) | Payload::Message(_) => {}
            Payload::Jump(dest) => out.push(dest),
            Payload::CondBranch {
                then_dest,
                else_dest,
            }
            | Payload::If {
                then_dest,
                else_dest,
                ..
            } => {
                out.push(then_dest);
                out.push(else_dest);
            }
            Payload::SwitchBranch(table) | Payload::Switch { table, .. } => {
                out.extend(table.cases.iter().map(|(_, dest)| dest));
                out.push(&table.default);
            }
            Payload::Loop { prepare, .. } => out.push(prepare),
            Payload::SimpleLoop { body, .. } => out.push(body),
        }
        out
    }

    /// Mutable access to the executable edges, in the same order as [`Payload::edges`].
    pub fn edges_mut(&mut self) -> SmallVec<[&mut BlockCall; 2]> {
        let mut out = SmallVec::new();
        match self {
            Payload::None | Payload::Indices(_) | Payload::Callee(_) | Payload::Message(_) => {}
            Payload::Jump(dest) => out.push(dest),
            Payload::CondBranch {
                then_dest,
                else_dest,
            }
            | Payload::If {
                then_dest,
                else_dest,
                ..
            } => {
                out.push(then_dest);
                out.push(else_dest);
            }
            Payload::SwitchBranch(table) | Payload::Switch { table, .. } => {
                let SwitchTable { cases, default } = &mut **table;
                out.extend(cases.iter_mut().map(|(_, dest)| dest));
                out.push(default);
            }
            Payload::Loop { prepare, .. } => out.push(prepare),
            Payload::SimpleLoop { body, .. } => out.push(body),
        }
        out
    }

    /// The merge role of a structured terminator; `None` for any other payload and for an
    /// `if` without a merge.
    pub fn merge(&self) -> Option<Block> {
        match self {
            Payload::If { merge, .. } => *merge,
            Payload::Loop { merge, .. }
            | Payload::SimpleLoop { merge, .. }
            | Payload::Switch { merge, .. } => Some(*merge),
            _ => None,
        }
    }

    /// The string of a `print`, `assert` or `unreachable`; `None` for any other payload.
    pub fn message(&self) -> Option<&str> {
        match self {
            Payload::Message(message) => Some(message),
            _ => None,
        }
    }

    /// The callee of a `call`; `None` for any other payload.
    pub fn callee(&self) -> Option<Func> {
        match self {
            Payload::Callee(callee) => Some(*callee),
            _ => None,
        }
    }

    /// Every structural role (merge, loop body, loop update): annotations, not edges.
    pub fn roles(&self) -> SmallVec<[Block; 3]> {
        let mut out = SmallVec::new();
        match self {
            Payload::Loop {
                body,
                update,
                merge,
                ..
            } => {
                out.push(*body);
                out.push(*update);
                out.push(*merge);
            }
            Payload::If {
                merge: Some(merge), ..
            }
            | Payload::SimpleLoop { merge, .. }
            | Payload::Switch { merge, .. } => out.push(*merge),
            _ => {}
        }
        out
    }
}

/// One instruction: opcode, value operands and payload. At most one result, recorded in
/// the data-flow graph.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InstData {
    /// What the instruction does; its row in the op table fixes the payload format and
    /// operand count.
    pub opcode: Opcode,
    /// The value operands, in order (edge arguments live in the payload).
    pub args: ValueList,
    /// Everything that is not a value operand; its variant matches the opcode's format.
    pub payload: Payload,
}

impl InstData {
    /// An instruction with no payload (format `Plain`).
    pub fn new(opcode: Opcode, args: &[Value]) -> Self {
        InstData {
            opcode,
            args: SmallVec::from_slice(args),
            payload: Payload::None,
        }
    }

    /// An instruction with a payload; the caller matches it to the opcode's format.
    pub fn with_payload(opcode: Opcode, args: &[Value], payload: Payload) -> Self {
        InstData {
            opcode,
            args: SmallVec::from_slice(args),
            payload,
        }
    }

    /// Every value this instruction reads: operands, then edge arguments in edge order.
    pub fn all_values(&self) -> impl Iterator<Item = Value> + '_ {
        self.args.iter().copied().chain(
            self.payload
                .edges()
                .into_iter()
                .flat_map(|e| e.args.iter().copied()),
        )
    }

    /// Applies `f` to every value operand and edge argument.
    pub fn map_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        for v in self.args.iter_mut() {
            *v = f(*v);
        }
        for edge in self.payload.edges_mut() {
            for v in edge.args.iter_mut() {
                *v = f(*v);
            }
        }
    }
}
