//! Runtime values and pointers.

use smallvec::SmallVec;

/// Lanes of a vector (canonical scalar bits).
pub type Lanes = SmallVec<[u64; 4]>;

/// A memory region a pointer points into.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// The storage / uniform / push-constant buffer of a global (by global index).
    Buffer(u32),
    /// A workgroup global of the current workgroup.
    Workgroup(u32),
    /// A private global of the current invocation.
    Private(u32),
    /// A function-space `alloca` of the current invocation (by allocation number).
    Function(u32),
    /// A workgroup-space `alloca` of the current workgroup (by allocation number).
    WorkgroupAlloca(u32),
}

/// A pointer: region plus byte offset. `offset == POISON` marks a pointer made by an
/// out-of-bounds `access` under robust access: loads give zero, stores are dropped.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ptr {
    pub region: Region,
    pub offset: u64,
}

pub const POISON: u64 = u64::MAX;

/// A runtime value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// A value not yet defined (never read by a valid module on an executed path).
    Undef,
    /// A scalar's canonical bits.
    S(u64),
    /// A vector's lanes.
    V(Lanes),
    /// A matrix (columns), array (elements) or struct (members).
    C(Vec<Val>),
    /// A pointer.
    P(Ptr),
}

impl Val {
    pub fn bits(&self) -> u64 {
        match self {
            Val::S(b) => *b,
            _ => 0,
        }
    }

    /// Lanes of a scalar (one) or vector.
    pub fn lanes(&self) -> Lanes {
        match self {
            Val::S(b) => smallvec::smallvec![*b],
            Val::V(l) => l.clone(),
            _ => Lanes::new(),
        }
    }

    pub fn ptr(&self) -> Option<Ptr> {
        match self {
            Val::P(p) => Some(*p),
            _ => None,
        }
    }

    pub fn elems(&self) -> &[Val] {
        match self {
            Val::C(v) => v,
            _ => &[],
        }
    }
}
