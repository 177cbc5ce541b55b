//! Metadata on instructions and functions.
//!
//! `name`, `location` and `comment` are presentation only: a pass may drop them freely.
//! The semantic kinds — `no_inline`, `signature_constraint` (functions) and
//! `reg2mem_spill` (instructions, on the allocas `reg2mem` creates) — change what passes
//! may do. A pass that cannot give semantic metadata a unique new owner must leave the
//! instruction alone ([`Metadata::is_annotated`] is the one test for that policy).

/// A source location: file, line and column (1-based; column 0 when unknown).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// The source file's path or name, as the front end reported it.
    pub file: String,
    /// The line, counting from 1.
    pub line: u32,
    /// The column, counting from 1; 0 when unknown.
    pub column: u32,
}

/// Why `reg2mem` created a slot, so `mem2reg` can recover it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpillKind {
    /// The slot replaces a block parameter.
    BlockParam,
    /// The slot carries a value used in another block.
    CrossBlock,
}

impl SpillKind {
    /// The text-form spelling after `reg2mem_spill =`: `block_param` or `cross_block`.
    pub fn name(self) -> &'static str {
        match self {
            SpillKind::BlockParam => "block_param",
            SpillKind::CrossBlock => "cross_block",
        }
    }

    /// Parses the spelling produced by [`SpillKind::name`]; `None` for any other string.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "block_param" => Some(SpillKind::BlockParam),
            "cross_block" => Some(SpillKind::CrossBlock),
            _ => None,
        }
    }
}

/// Metadata of one instruction or function. Empty metadata costs one pointer-sized
/// `Option` in the side table that holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Metadata {
    /// A source-level name for the value or function (`name = "..."`); presentation only.
    pub name: Option<String>,
    /// Where in the source this came from (`loc = "file":line:column`); presentation only.
    pub location: Option<SourceLocation>,
    /// Free-form notes, printed in order (`comment = "..."`, repeatable); presentation only.
    pub comments: Vec<String>,
    /// Function only: never inline calls to this function.
    pub no_inline: bool,
    /// Function only: the signature must not change (dead-arg-elim, inlining).
    pub signature_constraint: bool,
    /// Instruction only: a slot created by `reg2mem`.
    pub reg2mem_spill: Option<SpillKind>,
}

impl Metadata {
    /// Whether no item at all is set; the printer then prints no `[...]` list.
    pub fn is_empty(&self) -> bool {
        *self == Metadata::default()
    }

    /// Whether any semantic (non-presentation) metadata is present.
    pub fn is_annotated(&self) -> bool {
        self.no_inline || self.signature_constraint || self.reg2mem_spill.is_some()
    }
}
