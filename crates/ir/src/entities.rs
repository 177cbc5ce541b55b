//! Entity references: dense `u32` indices into the arenas of a module or function.
//!
//! Every entity prints as its text-form name (`v12`, `block3`, `inst7`, `c4`), so error
//! messages and the printer agree. Entities are plain copyable indices: they carry no
//! lifetime and no pointer, and an index is meaningful only for the arena that made it.
//! The verifier checks that every index a module holds exists in its arena.

use cranelift_entity::entity_impl;

/// An SSA value: an instruction result, a block parameter, or a function-local reference
/// to a module constant or global.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "v");

/// An instruction in a function's data-flow graph.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A basic block of a function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// A function of a module. Prints by index; the text form names functions `@name`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Func(u32);
entity_impl!(Func, "func");

/// A module-level variable. Prints by index; the text form names globals `@name`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Global(u32);
entity_impl!(Global, "global");

/// An interned type. Equal types are equal indices.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Type(u32);
entity_impl!(Type, "type");

/// An interned constant. Equal constants are equal indices.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Const(u32);
entity_impl!(Const, "c");

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn entities_print_as_their_text_names() {
        assert_eq!(Value::new(12).to_string(), "v12");
        assert_eq!(Block::new(3).to_string(), "block3");
        assert_eq!(Inst::new(0).to_string(), "inst0");
        assert_eq!(Const::new(4).to_string(), "c4");
    }
}
