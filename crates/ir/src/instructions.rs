//! Instruction data: an opcode, value operands, and a payload for everything that is not
//! a value (literal indices, callee, message, branch destinations, structural roles).
//!
//! Executable edges versus structural roles (DESIGN.md §2): a [`BlockCall`] is an
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
    pub block: Block,
    /// One pointer wide (empty lists allocate nothing), so that branch payloads, and with
    /// them every instruction, stay small.
    pub args: ThinVec<Value>,
}

impl BlockCall {
    pub fn new(block: Block) -> Self {
        BlockCall {
            block,
            args: ThinVec::new(),
        }
    }

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
    pub cases: Vec<(u64, BlockCall)>,
    pub default: BlockCall,
}

/// The non-value part of an instruction. Which variant an opcode uses is its
/// [`Format`]; the verifier rejects any mismatch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Payload {
    None,
    /// Literal indices of `extract`, `insert` (member path) and `shuffle` (lanes).
    Indices(Box<[u32]>),
    Callee(Func),
    Message(Box<str>),
    /// `br`, `break`, `continue`.
    Jump(BlockCall),
    CondBranch {
        then_dest: BlockCall,
        else_dest: BlockCall,
    },
    SwitchBranch(Box<SwitchTable>),
    /// Structured if: executable edges to both arms; `merge` is a role and may be absent
    /// when neither arm reaches it (both return, for example).
    If {
        then_dest: BlockCall,
        else_dest: BlockCall,
        merge: Option<Block>,
    },
    /// Structured loop: `prepare` is the executable edge; it evaluates the condition and
    /// branches to `body` or `merge`; `body` ends by reaching `update`, which branches back
    /// to `prepare`. `continue` targets `update`, `break` targets `merge`.
    Loop {
        prepare: BlockCall,
        body: Block,
        update: Block,
        merge: Block,
    },
    /// Unconditional loop: `body` is entered by the edge and loops back to itself (by
    /// `continue body` or `br body`); it leaves only by `break merge`.
    SimpleLoop {
        body: BlockCall,
        merge: Block,
    },
    /// Structured switch: case and default edges, plus the merge role.
    Switch {
        table: Box<SwitchTable>,
        merge: Block,
    },
}

impl Payload {
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

    /// The merge role of a structured terminator.
    pub fn merge(&self) -> Option<Block> {
        match self {
            Payload::If { merge, .. } => *merge,
            Payload::Loop { merge, .. }
            | Payload::SimpleLoop { merge, .. }
            | Payload::Switch { merge, .. } => Some(*merge),
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
    pub opcode: Opcode,
    pub args: ValueList,
    pub payload: Payload,
}

impl InstData {
    pub fn new(opcode: Opcode, args: &[Value]) -> Self {
        InstData {
            opcode,
            args: SmallVec::from_slice(args),
            payload: Payload::None,
        }
    }

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
