//! Order: which blocks a function's body holds and in which order, and which instructions
//! each block holds and in which order. Kept apart from instruction data (the
//! [`crate::dfg::DataFlowGraph`]): moving code re-links these lists and never rebuilds an instruction.
//!
//! Both levels are doubly linked lists stored in dense side tables, so insertion before or
//! after any node, removal and moves are O(1). The first block in order is the entry.

use crate::entities::{Block, Inst};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct BlockNode {
    prev: PackedOption<Block>,
    next: PackedOption<Block>,
    first_inst: PackedOption<Inst>,
    last_inst: PackedOption<Inst>,
    inserted: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct InstNode {
    block: PackedOption<Block>,
    prev: PackedOption<Inst>,
    next: PackedOption<Inst>,
}

/// Block and instruction order of one function.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    blocks: SecondaryMap<Block, BlockNode>,
    insts: SecondaryMap<Inst, InstNode>,
    first_block: PackedOption<Block>,
    last_block: PackedOption<Block>,
    block_count: usize,
}

impl Layout {
    /// An empty layout: no blocks, no placed instructions.
    pub fn new() -> Self {
        Self::default()
    }

    // --- blocks --------------------------------------------------------------------------

    /// The first block in order (the entry); `None` when the layout has no blocks.
    pub fn entry_block(&self) -> Option<Block> {
        self.first_block.expand()
    }

    /// The last block in order; `None` when the layout has no blocks.
    pub fn last_block(&self) -> Option<Block> {
        self.last_block.expand()
    }

    /// Whether `block` is currently in the block order.
    pub fn is_block_inserted(&self, block: Block) -> bool {
        self.blocks.get(block).is_some_and(|n| n.inserted)
    }

    /// Number of blocks in the layout.
    pub fn block_count(&self) -> usize {
        self.block_count
    }

    /// Puts `block` at the end of the order. `block` must not be in the layout already
    /// (checked in debug builds).
    pub fn append_block(&mut self, block: Block) {
        debug_assert!(
            !self.is_block_inserted(block),
            "{block} is already in the layout"
        );
        let node = &mut self.blocks[block];
        node.inserted = true;
        node.prev = self.last_block;
        node.next = None.into();
        match self.last_block.expand() {
            Some(last) => self.blocks[last].next = block.into(),
            None => self.first_block = block.into(),
        }
        self.last_block = block.into();
        self.block_count += 1;
    }

    /// Puts `block` right after `after`. `block` must not be in the layout and `after`
    /// must be (checked in debug builds).
    pub fn insert_block_after(&mut self, block: Block, after: Block) {
        debug_assert!(!self.is_block_inserted(block) && self.is_block_inserted(after));
        let next = self.blocks[after].next;
        {
            let node = &mut self.blocks[block];
            node.inserted = true;
            node.prev = after.into();
            node.next = next;
        }
        self.blocks[after].next = block.into();
        match next.expand() {
            Some(n) => self.blocks[n].prev = block.into(),
            None => self.last_block = block.into(),
        }
        self.block_count += 1;
    }

    /// Puts `block` right before `before` (becoming the entry when `before` was). `block`
    /// must not be in the layout and `before` must be (checked in debug builds).
    pub fn insert_block_before(&mut self, block: Block, before: Block) {
        debug_assert!(!self.is_block_inserted(block) && self.is_block_inserted(before));
        let prev = self.blocks[before].prev;
        {
            let node = &mut self.blocks[block];
            node.inserted = true;
            node.prev = prev;
            node.next = before.into();
        }
        self.blocks[before].prev = block.into();
        match prev.expand() {
            Some(p) => self.blocks[p].next = block.into(),
            None => self.first_block = block.into(),
        }
        self.block_count += 1;
    }

    /// Removes `block` from the order. Its instructions stay attached to it, so the block
    /// can be re-inserted elsewhere with its contents. `block` must be in the layout
    /// (checked in debug builds).
    pub fn remove_block(&mut self, block: Block) {
        debug_assert!(self.is_block_inserted(block));
        let (prev, next) = {
            let node = &mut self.blocks[block];
            node.inserted = false;
            (
                std::mem::take(&mut node.prev),
                std::mem::take(&mut node.next),
            )
        };
        match prev.expand() {
            Some(p) => self.blocks[p].next = next,
            None => self.first_block = next,
        }
        match next.expand() {
            Some(n) => self.blocks[n].prev = prev,
            None => self.last_block = prev,
        }
        self.block_count -= 1;
    }

    /// The block after `block` in order; `None` for the last block and for a block not in
    /// the layout.
    pub fn next_block(&self, block: Block) -> Option<Block> {
        self.blocks.get(block).and_then(|n| n.next.expand())
    }

    /// The block before `block` in order; `None` for the entry and for a block not in the
    /// layout.
    pub fn prev_block(&self, block: Block) -> Option<Block> {
        self.blocks.get(block).and_then(|n| n.prev.expand())
    }

    /// Blocks in order.
    pub fn blocks(&self) -> Blocks<'_> {
        Blocks {
            layout: self,
            next: self.first_block.expand(),
        }
    }

    // --- instructions --------------------------------------------------------------------

    /// The first instruction of `block`; `None` when it holds none. A block removed from
    /// the order keeps its instructions.
    pub fn first_inst(&self, block: Block) -> Option<Inst> {
        self.blocks.get(block).and_then(|n| n.first_inst.expand())
    }

    /// The last instruction of `block` (its terminator in a complete body); `None` when it
    /// holds none.
    pub fn last_inst(&self, block: Block) -> Option<Inst> {
        self.blocks.get(block).and_then(|n| n.last_inst.expand())
    }

    /// The block holding `inst`; `None` when `inst` is not placed.
    pub fn inst_block(&self, inst: Inst) -> Option<Block> {
        self.insts.get(inst).and_then(|n| n.block.expand())
    }

    /// The instruction after `inst` in its block; `None` at the block's end or when
    /// `inst` is not placed.
    pub fn next_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts.get(inst).and_then(|n| n.next.expand())
    }

    /// The instruction before `inst` in its block; `None` at the block's start or when
    /// `inst` is not placed.
    pub fn prev_inst(&self, inst: Inst) -> Option<Inst> {
        self.insts.get(inst).and_then(|n| n.prev.expand())
    }

    /// Places `inst` at the end of `block`. `inst` must not be placed already (checked in
    /// debug builds).
    pub fn append_inst(&mut self, inst: Inst, block: Block) {
        debug_assert!(self.inst_block(inst).is_none(), "{inst} is already placed");
        let last = self.blocks[block].last_inst;
        self.insts[inst] = InstNode {
            block: block.into(),
            prev: last,
            next: None.into(),
        };
        match last.expand() {
            Some(l) => self.insts[l].next = inst.into(),
            None => self.blocks[block].first_inst = inst.into(),
        }
        self.blocks[block].last_inst = inst.into();
    }

    /// Places `inst` at the start of `block`. `inst` must not be placed already.
    pub fn prepend_inst(&mut self, inst: Inst, block: Block) {
        match self.first_inst(block) {
            Some(first) => self.insert_inst_before(inst, first),
            None => self.append_inst(inst, block),
        }
    }

    /// Places `inst` right before `before`, in `before`'s block. `inst` must not be placed
    /// already (checked in debug builds); `before` must be placed.
    pub fn insert_inst_before(&mut self, inst: Inst, before: Inst) {
        debug_assert!(self.inst_block(inst).is_none(), "{inst} is already placed");
        let block = self.insts[before].block;
        let prev = self.insts[before].prev;
        self.insts[inst] = InstNode {
            block,
            prev,
            next: before.into(),
        };
        self.insts[before].prev = inst.into();
        match prev.expand() {
            Some(p) => self.insts[p].next = inst.into(),
            None => {
                if let Some(b) = block.expand() {
                    self.blocks[b].first_inst = inst.into();
                }
            }
        }
    }

    /// Places `inst` right after `after`, in `after`'s block. `inst` must not be placed
    /// already.
    ///
    /// # Panics
    /// When `after` is not placed in a block.
    pub fn insert_inst_after(&mut self, inst: Inst, after: Inst) {
        match self.next_inst(after) {
            Some(next) => self.insert_inst_before(inst, next),
            None => {
                let block = self
                    .inst_block(after)
                    .expect("instruction is placed in a block");
                self.append_inst(inst, block);
            }
        }
    }

    /// Unlinks `inst` from its block; does nothing when `inst` is not placed.
    pub fn remove_inst(&mut self, inst: Inst) {
        let InstNode { block, prev, next } = std::mem::take(&mut self.insts[inst]);
        let Some(block) = block.expand() else { return };
        match prev.expand() {
            Some(p) => self.insts[p].next = next,
            None => self.blocks[block].first_inst = next,
        }
        match next.expand() {
            Some(n) => self.insts[n].prev = prev,
            None => self.blocks[block].last_inst = prev,
        }
    }

    /// Instructions of `block`, in order.
    pub fn block_insts(&self, block: Block) -> Insts<'_> {
        Insts {
            layout: self,
            next: self.first_inst(block),
        }
    }

    /// Moves every instruction from `inst` (inclusive) to the end of its block to the end
    /// of `dest`. O(number of moved instructions), for the block parents.
    pub fn split_block_at(&mut self, inst: Inst, dest: Block) {
        let Some(src) = self.inst_block(inst) else {
            return;
        };
        let prev = self.insts[inst].prev;
        let last = self.blocks[src].last_inst;
        match prev.expand() {
            Some(p) => self.insts[p].next = None.into(),
            None => self.blocks[src].first_inst = None.into(),
        }
        self.blocks[src].last_inst = prev;
        let dest_last = self.blocks[dest].last_inst;
        self.insts[inst].prev = dest_last;
        match dest_last.expand() {
            Some(l) => self.insts[l].next = inst.into(),
            None => self.blocks[dest].first_inst = inst.into(),
        }
        self.blocks[dest].last_inst = last;
        let mut cursor = Some(inst);
        while let Some(i) = cursor {
            self.insts[i].block = dest.into();
            cursor = self.insts[i].next.expand();
        }
    }
}

/// Iterator over blocks in layout order.
pub struct Blocks<'a> {
    layout: &'a Layout,
    next: Option<Block>,
}

impl Iterator for Blocks<'_> {
    type Item = Block;
    fn next(&mut self) -> Option<Block> {
        let b = self.next?;
        self.next = self.layout.next_block(b);
        Some(b)
    }
}

/// Iterator over a block's instructions in order.
pub struct Insts<'a> {
    layout: &'a Layout,
    next: Option<Inst>,
}

impl Iterator for Insts<'_> {
    type Item = Inst;
    fn next(&mut self) -> Option<Inst> {
        let i = self.next?;
        self.next = self.layout.next_inst(i);
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_entity::EntityRef;

    #[test]
    fn insert_remove_and_split() {
        let mut layout = Layout::new();
        let (b0, b1) = (Block::new(0), Block::new(1));
        layout.append_block(b0);
        layout.append_block(b1);
        let i: Vec<Inst> = (0..4).map(Inst::new).collect();
        layout.append_inst(i[0], b0);
        layout.append_inst(i[2], b0);
        layout.insert_inst_before(i[1], i[2]);
        layout.insert_inst_after(i[3], i[2]);
        assert_eq!(layout.block_insts(b0).collect::<Vec<_>>(), i);
        layout.remove_inst(i[1]);
        assert_eq!(
            layout.block_insts(b0).collect::<Vec<_>>(),
            vec![i[0], i[2], i[3]]
        );
        layout.split_block_at(i[2], b1);
        assert_eq!(layout.block_insts(b0).collect::<Vec<_>>(), vec![i[0]]);
        assert_eq!(layout.block_insts(b1).collect::<Vec<_>>(), vec![i[2], i[3]]);
        assert_eq!(layout.inst_block(i[3]), Some(b1));
        layout.remove_block(b0);
        assert_eq!(layout.entry_block(), Some(b1));
        assert_eq!(layout.block_count(), 1);
    }
}
