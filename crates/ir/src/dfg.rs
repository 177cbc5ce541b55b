//! The data-flow graph of one function: instructions, values, blocks and their
//! parameters — everything except order, which lives in [`crate::layout::Layout`].
//!
//! Values are defined by exactly one of: an instruction result, a block parameter, a
//! module constant, a module global (its address), or an alias of another value.
//! Replacing all uses of a value is O(1): the value becomes an alias, and every reader
//! resolves aliases ([`DataFlowGraph::resolve`]). The printer and verifier see through
//! aliases; [`DataFlowGraph::resolve_all_aliases`] rewrites operands when a pass wants
//! them gone. Alias chains are acyclic: [`DataFlowGraph::replace_all_uses`] refuses to
//! create a cycle.

use crate::entities::{Block, Const, Global, Inst, Type, Value};
use crate::instructions::InstData;
use crate::metadata::Metadata;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};

/// How a value is defined.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// The result of an instruction.
    Result(Inst),
    /// Parameter `index` of a block.
    Param(Block, u32),
    /// A module constant, referenced from this function.
    Const(Const),
    /// The address of a module global (a pointer into the global's address space).
    Global(Global),
    /// Uses of this value read the target instead.
    Alias(Value),
    /// A value with no definition: a number kept free by the parser, or the result of a
    /// removed instruction. Using it is a verifier error.
    Detached,
}

/// One value's entry in the graph.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueData {
    /// The value's type. An alias has the type of its target.
    pub ty: Type,
    /// Where the value comes from.
    pub def: ValueDef,
}

/// One block's entry in the graph; its instructions and position are in the layout.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BlockData {
    /// The block parameters, in order; parameter `i` is defined as
    /// `ValueDef::Param(block, i)`.
    pub params: Vec<Value>,
}

/// The instructions, values and blocks of one function, with each instruction's result
/// and metadata. Entities are never freed: removing an instruction or block takes it out
/// of the layout and leaves its entry here.
#[derive(Clone, Debug, Default)]
pub struct DataFlowGraph {
    /// Every instruction ever created, placed in the layout or not.
    pub insts: PrimaryMap<Inst, InstData>,
    results: SecondaryMap<Inst, PackedOption<Value>>,
    /// Every value ever created, including aliases and detached values.
    pub values: PrimaryMap<Value, ValueData>,
    /// Every block ever created, placed in the layout or not.
    pub blocks: PrimaryMap<Block, BlockData>,
    const_values: SecondaryMap<Const, PackedOption<Value>>,
    global_values: SecondaryMap<Global, PackedOption<Value>>,
    inst_metadata: SecondaryMap<Inst, Option<Box<Metadata>>>,
}

impl DataFlowGraph {
    /// An empty graph.
    pub fn new() -> Self {
        Self::default()
    }

    // --- instructions --------------------------------------------------------------------

    /// Creates an instruction with no result. It is not placed in any block.
    pub fn make_inst(&mut self, data: InstData) -> Inst {
        self.insts.push(data)
    }

    /// Creates the result value of `inst` with type `ty`.
    pub fn make_result(&mut self, inst: Inst, ty: Type) -> Value {
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Result(inst),
        });
        self.results[inst] = v.into();
        v
    }

    /// Attaches an existing (detached) value as the result of `inst`; used by the parser
    /// to keep the text's value numbers.
    pub fn attach_result(&mut self, inst: Inst, value: Value, ty: Type) {
        self.values[value] = ValueData {
            ty,
            def: ValueDef::Result(inst),
        };
        self.results[inst] = value.into();
    }

    /// The result of `inst`; `None` when it has none (or `inst` is out of range).
    pub fn inst_result(&self, inst: Inst) -> Option<Value> {
        self.results[inst].expand()
    }

    /// The data of `inst`.
    ///
    /// # Panics
    /// When `inst` is out of range; see [`DataFlowGraph::inst_is_valid`].
    pub fn inst(&self, inst: Inst) -> &InstData {
        &self.insts[inst]
    }

    /// Mutable access to the data of `inst`. Panics when `inst` is out of range.
    pub fn inst_mut(&mut self, inst: Inst) -> &mut InstData {
        &mut self.insts[inst]
    }

    /// The number of instructions ever created (placed or not).
    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }

    /// Whether `inst` is an index of this graph.
    pub fn inst_is_valid(&self, inst: Inst) -> bool {
        inst.index() < self.insts.len()
    }

    /// Detaches the result of `inst` (after the instruction was removed from the layout).
    pub fn detach_result(&mut self, inst: Inst) {
        if let Some(v) = self.results[inst].take() {
            self.values[v].def = ValueDef::Detached;
        }
    }

    /// The metadata of `inst`; `None` when it has none.
    pub fn metadata(&self, inst: Inst) -> Option<&Metadata> {
        self.inst_metadata.get(inst).and_then(|m| m.as_deref())
    }

    /// Mutable metadata of `inst`, created empty on first access.
    pub fn metadata_mut(&mut self, inst: Inst) -> &mut Metadata {
        self.inst_metadata[inst].get_or_insert_with(Default::default)
    }

    /// Replaces the metadata of `inst`; empty metadata is stored as none.
    pub fn set_metadata(&mut self, inst: Inst, md: Metadata) {
        self.inst_metadata[inst] = if md.is_empty() {
            None
        } else {
            Some(Box::new(md))
        };
    }

    // --- values --------------------------------------------------------------------------

    /// Creates a value with no definition yet (parser placeholders, builder variables).
    pub fn make_detached_value(&mut self, ty: Type) -> Value {
        self.values.push(ValueData {
            ty,
            def: ValueDef::Detached,
        })
    }

    /// Whether `v` is an index of this graph.
    pub fn value_is_valid(&self, v: Value) -> bool {
        v.index() < self.values.len()
    }

    /// The type of `v` after resolving aliases.
    ///
    /// # Panics
    /// When `v` (or its alias target) is out of range; see [`DataFlowGraph::value_is_valid`].
    pub fn value_type(&self, v: Value) -> Type {
        self.values[self.resolve(v)].ty
    }

    /// The definition of `v` after resolving aliases (never [`ValueDef::Alias`]). Panics
    /// when `v` is out of range.
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[self.resolve(v)].def
    }

    /// Follows aliases to the value that defines `v`. Stops (returning the last value) on
    /// an out-of-range index or after as many steps as there are values, so a corrupted
    /// module cannot make it loop.
    pub fn resolve(&self, mut v: Value) -> Value {
        for _ in 0..=self.values.len() {
            match self.values.get(v).map(|d| d.def) {
                Some(ValueDef::Alias(target)) => v = target,
                _ => return v,
            }
        }
        v
    }

    /// Makes every use of `old` read `new` instead, in O(1) (aliasing). Returns `false`
    /// and changes nothing when that would create an alias cycle or the types differ.
    pub fn replace_all_uses(&mut self, old: Value, new: Value) -> bool {
        let new = self.resolve(new);
        let old = self.resolve(old);
        if old == new || self.values[old].ty != self.values[new].ty {
            return old == new;
        }
        // The value keeps its definition site detached: if it was an instruction result,
        // that instruction now has no result users but still exists.
        if let ValueDef::Result(inst) = self.values[old].def {
            self.results[inst] = PackedOption::default();
            let fresh = self.values.push(ValueData {
                ty: self.values[old].ty,
                def: ValueDef::Result(inst),
            });
            self.results[inst] = fresh.into();
        }
        if let ValueDef::Param(block, index) = self.values[old].def {
            let fresh = self.values.push(ValueData {
                ty: self.values[old].ty,
                def: ValueDef::Param(block, index),
            });
            self.blocks[block].params[index as usize] = fresh;
        }
        self.values[old].def = ValueDef::Alias(new);
        true
    }

    /// Rewrites every operand and edge argument to its alias-resolved value.
    pub fn resolve_all_aliases(&mut self) {
        let resolved: Vec<Value> = self.values.keys().map(|v| self.resolve(v)).collect();
        for data in self.insts.values_mut() {
            data.map_values(|v| resolved.get(v.index()).copied().unwrap_or(v));
        }
    }

    /// The function-local value for module constant `c`, created on first use.
    pub fn const_value(&mut self, c: Const, ty: Type) -> Value {
        if let Some(v) = self.const_values.get(c).and_then(|v| v.expand()) {
            return v;
        }
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Const(c),
        });
        self.const_values[c] = v.into();
        v
    }

    /// The function-local value for the address of global `g` (type `ptr_ty`), created on
    /// first use.
    pub fn global_value(&mut self, g: Global, ptr_ty: Type) -> Value {
        if let Some(v) = self.global_values.get(g).and_then(|v| v.expand()) {
            return v;
        }
        let v = self.values.push(ValueData {
            ty: ptr_ty,
            def: ValueDef::Global(g),
        });
        self.global_values[g] = v.into();
        v
    }

    /// Forgets the cached address value of global `g` and returns it; the value keeps its
    /// definition, and a later [`DataFlowGraph::global_value`] creates a new one. For a pass
    /// that turns the address into something else (a local slot's address, for example).
    pub fn take_global_value(&mut self, g: Global) -> Option<Value> {
        self.global_values.get_mut(g).and_then(PackedOption::take)
    }

    /// Renumbers global addresses after the module's globals were rebuilt: a value defined
    /// as the address of `g` becomes the address of `map(g)`, or detached when `map(g)` is
    /// `None` (the global is gone; no placed instruction may still read it). The cache of
    /// [`DataFlowGraph::global_value`] is renumbered the same way.
    pub fn remap_globals(&mut self, map: impl Fn(Global) -> Option<Global>) {
        for data in self.values.values_mut() {
            if let ValueDef::Global(g) = data.def {
                data.def = map(g).map_or(ValueDef::Detached, ValueDef::Global);
            }
        }
        let old = std::mem::take(&mut self.global_values);
        for (g, v) in old.iter() {
            if let (Some(v), Some(new)) = (v.expand(), map(g)) {
                self.global_values[new] = v.into();
            }
        }
    }

    // --- blocks --------------------------------------------------------------------------

    /// Creates a block with no parameters. It is not placed in the layout.
    pub fn make_block(&mut self) -> Block {
        self.blocks.push(BlockData::default())
    }

    /// Whether `b` is an index of this graph.
    pub fn block_is_valid(&self, b: Block) -> bool {
        b.index() < self.blocks.len()
    }

    /// Adds a parameter of type `ty` after the existing ones and returns it. Callers add
    /// the matching argument to every edge into `block`.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        let index = self.blocks[block].params.len() as u32;
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::Param(block, index),
        });
        self.blocks[block].params.push(v);
        v
    }

    /// Attaches an existing detached value as the next parameter of `block` (parser).
    pub fn attach_block_param(&mut self, block: Block, value: Value, ty: Type) {
        let index = self.blocks[block].params.len() as u32;
        self.values[value] = ValueData {
            ty,
            def: ValueDef::Param(block, index),
        };
        self.blocks[block].params.push(value);
    }

    /// The parameters of `block`, in order. Panics when `block` is out of range.
    pub fn block_params(&self, block: Block) -> &[Value] {
        &self.blocks[block].params
    }

    /// Removes parameter `index` of `block`, renumbering the later ones, and returns the
    /// removed (now detached) value. Callers remove the matching argument of every edge
    /// into `block`. Panics when `index` is out of range.
    pub fn remove_block_param(&mut self, block: Block, index: usize) -> Value {
        let removed = self.blocks[block].params.remove(index);
        self.values[removed].def = ValueDef::Detached;
        for (i, &p) in self.blocks[block].params.iter().enumerate().skip(index) {
            self.values[p].def = ValueDef::Param(block, i as u32);
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{Function, FunctionKind, Signature};
    use crate::instructions::InstData;
    use crate::module::Module;
    use crate::ops::Opcode;
    use crate::printer::{print_module, View};
    use crate::verifier::{verify_module, VerifierOptions};

    /// `callable @f(i32, i32) -> i32 { v2 = add v0, v1; v3 = mul v2, v2; return v3 }`
    fn sample() -> (Module, [Value; 4], [Inst; 3]) {
        let mut m = Module::new();
        let i32_ty = m.types.i32();
        let sig = Signature {
            params: vec![crate::AbiParam::new(i32_ty), crate::AbiParam::new(i32_ty)],
            returns: vec![crate::AbiParam::new(i32_ty)],
        };
        let mut f = Function::new("f", FunctionKind::Callable, sig);
        let b = f.append_new_block();
        let v0 = f.dfg.append_block_param(b, i32_ty);
        let v1 = f.dfg.append_block_param(b, i32_ty);
        let add = f.dfg.make_inst(InstData::new(Opcode::Add, &[v0, v1]));
        let v2 = f.dfg.make_result(add, i32_ty);
        let mul = f.dfg.make_inst(InstData::new(Opcode::Mul, &[v2, v2]));
        let v3 = f.dfg.make_result(mul, i32_ty);
        let ret = f.dfg.make_inst(InstData::new(Opcode::Return, &[v3]));
        for i in [add, mul, ret] {
            f.layout.append_inst(i, b);
        }
        m.add_function(f);
        (m, [v0, v1, v2, v3], [add, mul, ret])
    }

    #[test]
    fn replace_all_uses_is_an_alias_seen_by_readers() {
        let (mut m, [v0, _, v2, _], [add, mul, _]) = sample();
        let f = m.functions.values_mut().next().unwrap();
        assert!(f.dfg.replace_all_uses(v2, v0));
        assert_eq!(f.dfg.resolve(v2), v0);
        // The operands still name v2 until resolved, but every reader sees v0.
        assert_eq!(f.dfg.inst(mul).args.as_slice(), &[v2, v2]);
        let text = print_module(&m, View::Flat);
        assert!(text.contains("= mul v0, v0"), "{text}");
        // The instruction that defined v2 keeps a fresh, unused result.
        let f = m.functions.values_mut().next().unwrap();
        let fresh = f.dfg.inst_result(add).unwrap();
        assert_ne!(fresh, v2);
        f.dfg.resolve_all_aliases();
        assert_eq!(f.dfg.inst(mul).args.as_slice(), &[v0, v0]);
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
    }

    #[test]
    fn replace_all_uses_refuses_cycles_and_type_changes() {
        let (mut m, [v0, v1, v2, v3], _) = sample();
        let f32_ty = m.types.f32();
        let f = m.functions.values_mut().next().unwrap();
        assert!(f.dfg.replace_all_uses(v2, v3));
        // v3 -> v2 would close the cycle v2 -> v3 -> v2: resolved, it is v3 -> v3.
        assert!(f.dfg.replace_all_uses(v3, v2));
        assert_eq!(f.dfg.resolve(v2), v3);
        let other = f.dfg.make_detached_value(f32_ty);
        assert!(!f.dfg.replace_all_uses(v0, other), "types differ");
        assert_eq!(f.dfg.resolve(v0), v0);
        assert_eq!(f.dfg.resolve(v1), v1);
    }

    #[test]
    fn removing_an_instruction_detaches_its_result() {
        let (mut m, [_, _, _, v3], [_, mul, ret]) = sample();
        let f = m.functions.values_mut().next().unwrap();
        f.remove_inst(mul);
        assert_eq!(f.dfg.value_def(v3), ValueDef::Detached);
        let report = verify_module(&m, &VerifierOptions::default());
        assert!(!report.succeeded(), "the return now reads a detached value");
        let f = m.functions.values_mut().next().unwrap();
        // Put it back before the return: valid again.
        f.layout.insert_inst_before(mul, ret);
        f.dfg.attach_result(mul, v3, f.dfg.values[v3].ty);
        assert!(verify_module(&m, &VerifierOptions::default()).succeeded());
    }

    #[test]
    fn global_addresses_are_taken_and_remapped() {
        let mut dfg = DataFlowGraph::new();
        let mut types = crate::types::TypeStore::new();
        let i32_ty = types.i32();
        let ptr = types.pointer(crate::types::AddressSpace::Private, i32_ty);
        let [g0, g1] = [Global::new(0), Global::new(1)];
        let a0 = dfg.global_value(g0, ptr);
        let a1 = dfg.global_value(g1, ptr);
        assert_eq!(dfg.take_global_value(g0), Some(a0));
        assert_eq!(dfg.take_global_value(g0), None);
        assert_eq!(
            dfg.value_def(a0),
            ValueDef::Global(g0),
            "the value keeps its definition"
        );
        let fresh = dfg.global_value(g0, ptr);
        assert_ne!(fresh, a0);
        // Delete g0, move g1 down to index 0.
        dfg.remap_globals(|g| (g == g1).then_some(g0));
        assert_eq!(dfg.value_def(a0), ValueDef::Detached);
        assert_eq!(dfg.value_def(fresh), ValueDef::Detached);
        assert_eq!(dfg.value_def(a1), ValueDef::Global(g0));
        assert_eq!(
            dfg.global_value(g0, ptr),
            a1,
            "the cache follows the renumbering"
        );
    }

    #[test]
    fn block_params_are_renumbered_on_removal() {
        let mut dfg = DataFlowGraph::new();
        let mut types = crate::types::TypeStore::new();
        let i32_ty = types.i32();
        let b = dfg.make_block();
        let p: Vec<Value> = (0..3).map(|_| dfg.append_block_param(b, i32_ty)).collect();
        assert_eq!(dfg.remove_block_param(b, 1), p[1]);
        assert_eq!(dfg.block_params(b), &[p[0], p[2]]);
        assert_eq!(dfg.value_def(p[2]), ValueDef::Param(b, 1));
        assert_eq!(dfg.value_def(p[1]), ValueDef::Detached);
    }
}
