//! Value-numbering tables shared by `gvn` and `early-cse`: the key of a pure expression,
//! a scoped table of available expressions, the leader map of replaced values, and the
//! application of replacement decisions.
//!
//! **Expressions** ([`Expr`]) are an instruction's opcode, result type, literal indices
//! ([`oxir_ir::Payload::indices`]) and operands mapped to their leaders. Operands of
//! commutative opcodes ([`oxir_ir::Opcode::is_commutative`]) are ordered, so `add a, b`
//! and `add b, a` are one expression. Which instructions may be keyed at all is the
//! caller's decision (normally [`oxir_ir::effects::is_safe_to_value_number`] and no
//! semantic metadata).
//!
//! [`ExprTable`] is scoped: [`ExprTable::mark`] / [`ExprTable::restore`] undo what a scope
//! added (a dominator-tree subtree for `gvn`, one block for `early-cse`). [`Leaders`] maps
//! a replaced value to the value replacing it, so later keys see through replacements
//! before anything is mutated; [`apply_replacements`] then rewrites the function at once.
//!
//! What it does not do: it never decides that an instruction is safe to merge, never
//! orders anything but two commutative operands, and never mutates a function except in
//! [`apply_replacements`].

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use hashbrown::HashTable;
use oxir_ir::hash::BuildHasher;
use oxir_ir::{Function, Inst, Opcode, Type, Value};
use smallvec::SmallVec;
use std::hash::BuildHasher as _;

/// A pure expression (or invariant load) as the table keys it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Expr {
    opcode: Opcode,
    ty: Type,
    args: SmallVec<[Value; 3]>,
    indices: SmallVec<[u32; 3]>,
}

impl Expr {
    /// The key of `inst` with operands named by `leaders`; `None` when it has no result.
    pub fn of(func: &Function, inst: Inst, leaders: &Leaders) -> Option<Expr> {
        let data = func.dfg.inst(inst);
        let result = func.dfg.inst_result(inst)?;
        let mut args: SmallVec<[Value; 3]> =
            data.args.iter().map(|&v| leaders.get(func, v)).collect();
        if data.opcode.is_commutative() && args.len() == 2 && args[1] < args[0] {
            args.swap(0, 1);
        }
        Some(Expr {
            opcode: data.opcode,
            ty: func.dfg.value_type(result),
            args,
            indices: SmallVec::from_slice(data.payload.indices()),
        })
    }
}

/// Which value replaces which: a replaced value's leader is the earlier equal value.
#[derive(Default)]
pub struct Leaders {
    leader: SecondaryMap<Value, PackedOption<Value>>,
}

impl Leaders {
    /// The value that stands for `v` (alias-resolved): its leader, or `v` itself.
    pub fn get(&self, func: &Function, v: Value) -> Value {
        let v = func.dfg.resolve(v);
        self.leader.get(v).and_then(|l| l.expand()).unwrap_or(v)
    }

    /// Records that `value` is replaced by `by`.
    pub fn set(&mut self, value: Value, by: Value) {
        self.leader[value] = by.into();
    }
}

/// Replacement decisions of a scan: each instruction's result replaced by an earlier
/// value, the instruction removed.
#[derive(Default)]
pub struct Replacements {
    /// The leader of every replaced result.
    pub leaders: Leaders,
    list: Vec<(Inst, Value)>,
}

impl Replacements {
    /// Decides that `inst`'s result is replaced by `by` (nothing for a result-less one).
    pub fn replace(&mut self, func: &Function, inst: Inst, by: Value) {
        if let Some(result) = func.dfg.inst_result(inst) {
            self.leaders.set(result, by);
            self.list.push((inst, by));
        }
    }

    /// How many instructions are to be replaced.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether nothing is to be replaced.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Rewrites `func`: every use of a replaced result reads its replacement, and the
    /// replaced instructions leave the layout.
    pub fn apply(self, func: &mut Function) {
        for (inst, by) in self.list {
            if let Some(result) = func.dfg.inst_result(inst) {
                func.dfg.replace_all_uses(result, by);
            }
            func.remove_inst(inst);
        }
    }
}

/// The available expressions of the current scope and its enclosing ones.
///
/// Entries live in insertion order in `entries` (with their hash); the table indexes them,
/// so a key is stored once and [`ExprTable::restore`] pops entries off the end.
#[derive(Default)]
pub struct ExprTable {
    table: HashTable<u32>,
    entries: Vec<(u64, Expr, Value)>,
}

/// A point to return an [`ExprTable`] to.
#[derive(Copy, Clone)]
pub struct ExprMark(usize);

impl ExprTable {
    /// An empty table with room for `capacity` expressions.
    pub fn with_capacity(capacity: usize) -> Self {
        ExprTable {
            table: HashTable::with_capacity(capacity),
            entries: Vec::with_capacity(capacity),
        }
    }

    fn hash(expr: &Expr) -> u64 {
        BuildHasher::default().hash_one(expr)
    }

    /// The value available for `expr` (whose hash is `hash`), if any.
    fn available(&self, hash: u64, expr: &Expr) -> Option<Value> {
        let entries = &self.entries;
        self.table
            .find(hash, |&i| entries[i as usize].1 == *expr)
            .map(|&i| entries[i as usize].2)
    }

    /// The current scope's start.
    pub fn mark(&self) -> ExprMark {
        ExprMark(self.entries.len())
    }

    /// Forgets every expression inserted since `mark`.
    pub fn restore(&mut self, mark: ExprMark) {
        while self.entries.len() > mark.0 {
            let index = (self.entries.len() - 1) as u32;
            let hash = self.entries[index as usize].0;
            if let Ok(slot) = self.table.find_entry(hash, |&i| i == index) {
                slot.remove();
            }
            self.entries.pop();
        }
    }

    /// Looks `inst` up: returns the earlier value when its expression is available, and
    /// otherwise makes `inst`'s result available (returning `None`).
    pub fn number(&mut self, func: &Function, inst: Inst, leaders: &Leaders) -> Option<Value> {
        let expr = Expr::of(func, inst, leaders)?;
        let result = func.dfg.inst_result(inst)?;
        let hash = Self::hash(&expr);
        if let Some(earlier) = self.available(hash, &expr) {
            return Some(earlier);
        }
        let index = u32::try_from(self.entries.len()).ok()?;
        self.entries.push((hash, expr, result));
        let entries = &self.entries;
        self.table
            .insert_unique(hash, index, |&i| entries[i as usize].0);
        None
    }
}
