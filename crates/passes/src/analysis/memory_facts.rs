//! Memory facts shared by `gvn`, `local-store-forward` and `local-load-elimination`:
//! "the bytes at pointer P hold value V", recorded by loads and stores and killed by
//! whatever may write P.
//!
//! [`FactTable::step`] applies one instruction's effect on memory, in program order:
//!
//! | instruction | effect on the table |
//! |---|---|
//! | `store P, v` | kills every fact whose pointer may alias P ([`alias`]), then records "P holds v" when the table records stores |
//! | atomic on P | kills every fact that may alias P |
//! | call, barrier | kills every fact (a callee or another invocation may write anything) |
//! | load | nothing; returned as [`MemoryEvent::Load`] for the caller to look up and record |
//! | anything else | nothing (pure code, texture operations, `print`/`assert`, `clock` write no buffer memory) |
//!
//! A lookup ([`FactTable::lookup`]) answers with the newest live fact whose pointer
//! must alias the query ([`AliasResult::MustAlias`]: the same bytes) with the same type.
//! Only the newest [`FACT_WINDOW`] facts above the table's floor are consulted or
//! killed, so a block of n memory operations costs O(n · window). The table is scoped:
//! [`FactTable::mark`] / [`FactTable::restore`] undo a scope's facts and kills, and
//! [`FactTable::forget_all`] raises the floor (a join, a call).
//!
//! [`forward_in_blocks`] is the block-local driver of the two local passes: one scope
//! per block, nothing carried between blocks.
//!
//! What it does not do: it never decides across blocks by itself (`gvn` chooses which
//! scopes inherit facts), never reasons about partial overlap (a fact about a struct says
//! nothing about a member load), and never mutates a function.

use crate::analysis::alias::{alias, AliasResult, PointerPath};
use crate::analysis::value_table::Replacements;
use oxir_ir::ops::EffectClass;
use oxir_ir::{Func, Function, Inst, Module, Type, Value};

/// Memory facts of a scope consulted per query: the newest ones only.
pub const FACT_WINDOW: usize = 64;

/// What recorded a fact.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FactSource {
    /// A load: the fact's value is the load's own result.
    Load,
    /// A store: the fact's value is the stored value.
    Store,
}

/// "The bytes at `ptr` hold `value`".
struct Fact {
    ptr: PointerPath,
    value: Value,
    ty: Type,
    source: FactSource,
    killed: bool,
}

/// The live memory facts of the current scope.
#[derive(Default)]
pub struct FactTable {
    facts: Vec<Fact>,
    kill_log: Vec<usize>,
    floor: usize,
    /// Whether stores record facts (otherwise they only kill).
    pub record_stores: bool,
}

/// A point to return a [`FactTable`] to.
#[derive(Copy, Clone)]
pub struct FactMark {
    facts_len: usize,
    kills_len: usize,
    floor: usize,
}

/// How an instruction met the table in [`FactTable::step`].
pub enum MemoryEvent {
    /// A pure instruction (the table is unchanged).
    Pure,
    /// A load through `ptr` with result `result` (the table is unchanged).
    Load {
        /// The load's pointer, decomposed.
        ptr: PointerPath,
        /// The load's result.
        result: Value,
    },
    /// Anything else, already applied to the table.
    Other,
}

/// `ptr` decomposed with dynamic indices named by `canonical`; a missing operand (a
/// malformed instruction) becomes an unknown pointer that aliases anything.
pub fn pointer_path(
    module: &Module,
    func: &Function,
    ptr: Option<Value>,
    canonical: &dyn Fn(Value) -> Value,
) -> PointerPath {
    let ptr = ptr.unwrap_or_else(|| Value::from_u32(u32::MAX));
    PointerPath::of_with(module, func, ptr, canonical)
}

impl FactTable {
    /// A table whose stores record facts when `record_stores`.
    pub fn new(record_stores: bool) -> Self {
        FactTable {
            record_stores,
            ..FactTable::default()
        }
    }

    /// The current scope's start.
    pub fn mark(&self) -> FactMark {
        FactMark {
            facts_len: self.facts.len(),
            kills_len: self.kill_log.len(),
            floor: self.floor,
        }
    }

    /// Undoes every fact recorded and killed since `mark`.
    pub fn restore(&mut self, mark: FactMark) {
        for index in self.kill_log.drain(mark.kills_len..) {
            if let Some(fact) = self.facts.get_mut(index) {
                fact.killed = false;
            }
        }
        self.facts.truncate(mark.facts_len);
        self.floor = mark.floor;
    }

    /// Makes every fact recorded so far invisible (until a restore below this point).
    pub fn forget_all(&mut self) {
        self.floor = self.facts.len();
    }

    /// Records "`ptr` holds `value` of type `ty`".
    pub fn record(&mut self, ptr: PointerPath, value: Value, ty: Type, source: FactSource) {
        self.facts.push(Fact {
            ptr,
            value,
            ty,
            source,
            killed: false,
        });
    }

    fn window(&self) -> std::ops::Range<usize> {
        let end = self.facts.len();
        self.floor.max(end.saturating_sub(FACT_WINDOW))..end
    }

    /// The newest live fact that must alias `ptr` with type `ty`: its value and source.
    pub fn lookup(&self, ptr: &PointerPath, ty: Type) -> Option<(Value, FactSource)> {
        self.facts[self.window()].iter().rev().find_map(|fact| {
            (!fact.killed && fact.ty == ty && alias(&fact.ptr, ptr) == AliasResult::MustAlias)
                .then_some((fact.value, fact.source))
        })
    }

    /// Kills every live fact that may alias `ptr`.
    pub fn kill(&mut self, ptr: &PointerPath) {
        for index in self.window() {
            let fact = &mut self.facts[index];
            if !fact.killed && alias(&fact.ptr, ptr) != AliasResult::NoAlias {
                fact.killed = true;
                self.kill_log.push(index);
            }
        }
    }

    /// Applies `inst`'s effect on memory (see the module docs); values and dynamic
    /// indices are named by `canonical`.
    pub fn step(
        &mut self,
        module: &Module,
        func: &Function,
        inst: Inst,
        canonical: &dyn Fn(Value) -> Value,
    ) -> MemoryEvent {
        let data = func.dfg.inst(inst);
        let ptr = || pointer_path(module, func, data.args.first().copied(), canonical);
        match data.opcode.info().effect {
            EffectClass::Pure => return MemoryEvent::Pure,
            EffectClass::MemoryRead => {
                if let Some(result) = func.dfg.inst_result(inst) {
                    return MemoryEvent::Load { ptr: ptr(), result };
                }
            }
            EffectClass::MemoryWrite => {
                let ptr = ptr();
                self.kill(&ptr);
                if let (true, Some(&value)) = (self.record_stores, data.args.get(1)) {
                    let value = canonical(value);
                    let ty = func.dfg.value_type(value);
                    self.record(ptr, value, ty, FactSource::Store);
                }
            }
            EffectClass::Atomic => self.kill(&ptr()),
            EffectClass::Barrier | EffectClass::Call => self.forget_all(),
            EffectClass::ResourceRead
            | EffectClass::ResourceWrite
            | EffectClass::Volatile
            | EffectClass::TimeRead
            | EffectClass::Terminator => {}
        }
        MemoryEvent::Other
    }
}

/// Which facts a block-local scan records and answers loads from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LocalFacts {
    /// Stores: a load reads the value an earlier store wrote.
    Stores,
    /// Loads: a load reads the result of an earlier load.
    Loads,
}

/// The block-local scan of `local-store-forward` and `local-load-elimination`: every
/// load of a block answered by an earlier fact of the same block (of the `kind` chosen),
/// as replacement decisions. Loads carrying semantic metadata are neither answered nor
/// recorded.
pub fn forward_in_blocks(module: &Module, func: &Function, kind: LocalFacts) -> Replacements {
    let mut replacements = Replacements::default();
    let mut table = FactTable::new(kind == LocalFacts::Stores);
    for block in func.layout.blocks() {
        let mark = table.mark();
        for inst in func.layout.block_insts(block) {
            let leaders = &replacements.leaders;
            let event = table.step(module, func, inst, &|v| leaders.get(func, v));
            let MemoryEvent::Load { ptr, result } = event else {
                continue;
            };
            if func.dfg.metadata(inst).is_some_and(|md| md.is_annotated()) {
                continue;
            }
            let ty = func.dfg.value_type(result);
            if let Some((value, _)) = table.lookup(&ptr, ty) {
                replacements.replace(func, inst, value);
            } else if kind == LocalFacts::Loads {
                table.record(ptr, result, ty, FactSource::Load);
            }
        }
        table.restore(mark);
    }
    replacements
}

/// Runs [`forward_in_blocks`] on `func` and applies its decisions; returns how many loads
/// were replaced (0 for a function that does not exist).
pub fn forward_and_apply(module: &mut Module, func: Func, kind: LocalFacts) -> u64 {
    let Some(f) = module.functions.get(func) else {
        return 0;
    };
    let replacements = forward_in_blocks(module, f, kind);
    let count = replacements.len() as u64;
    replacements.apply(&mut module.functions[func]);
    count
}
