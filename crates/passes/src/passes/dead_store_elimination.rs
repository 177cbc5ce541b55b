//! `dead-store-elimination`: removes stores whose value no one can read, within a block.
//!
//! Two rules, both local to one block (any block: plain or structured functions alike,
//! since the order of instructions inside a block is straight-line in both):
//!
//! 1. **Overwritten stores** (`removed_store_count`): a `store P, x` followed in the same
//!    block by a `store Q, y` where `Q` must alias `P` ([`crate::analysis::alias::alias`]
//!    is `MustAlias`: the same bytes, the same type), with nothing in between that may
//!    read `P`: no load or atomic whose pointer may alias `P`, no call, no barrier
//!    (`workgroup_barrier`, `storage_barrier`, `workgroup_uniform_load`: another
//!    invocation may read what a barrier publishes), and no `print` or `assert` (an
//!    assert may end the invocation before the second store). Texture operations, `clock`
//!    and pure instructions read no buffer memory and do not separate the stores. The
//!    block is scanned backwards, keeping the pointers stored to later in the block and
//!    not read since; only the newest [`STORE_WINDOW`] of them are consulted, so a block
//!    costs O(n · window).
//! 2. **No-op stores** (`removed_noop_store_count`): `v = load P` followed in the same
//!    block by `store Q, v` where `Q` must alias `P`, in the `function` or `private`
//!    address space (memory no other invocation can touch), with no store, atomic, call
//!    or barrier in between that may write `P`. Stores removed by rule 1 do not count as
//!    writes (the net effect of the removed chain is the last store's). Workgroup and
//!    storage memory are left alone: another invocation's write in between would make
//!    the program racy, but the pass does not rely on that.
//!
//! Stores carrying semantic metadata ([`oxir_ir::Metadata::is_annotated`]) are never
//! removed (they still overwrite). Decisions are made on the unchanged function, then
//! the stores are removed at once; a second run finds nothing more.
//!
//! ## What it does not do
//!
//! - It does not look across blocks (a store overwritten in every successor stays) or
//!   remove stores to memory that is never read afterwards (an `alloca` only stored to:
//!   `dce` removes those whole); it does not shorten partially overwritten stores (a
//!   store of a struct followed by stores of all its members stays: a member's pointer
//!   only may-aliases the whole).
//! - It does not remove atomics, texture stores, or stores through a pointer of unknown
//!   provenance that another pointer only may alias.
//!
//! ## Example
//!
//! ```text
//! v1: ptr<function, u32> = access v0, c0      v1: ptr<function, u32> = access v0, c0
//! store v1, c1                          ==>   store v1, c2
//! store v1, c2                                v3: u32 = load v1
//! v3: u32 = load v1
//! store v1, v3
//! ```

use crate::analysis::alias::{alias, AliasResult, PointerPath};
use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::SecondaryMap;
use oxir_ir::ops::EffectClass;
use oxir_ir::types::AddressSpace;
use oxir_ir::{Block, Func, Function, Inst, Module, Value};

pass_info! {
    pass: "dead-store-elimination",
    /// Counters of `dead-store-elimination`.
    pub struct DeadStoreEliminationInfo {
        /// Stores overwritten later in their block before anything could read them.
        removed_store_count,
        /// Stores of the value just loaded from the same function or private memory.
        removed_noop_store_count,
    }
    changed_by: [removed_store_count, removed_noop_store_count]
}

/// Later stores (rule 1) and earlier loads (rule 2) of a block consulted per store.
pub const STORE_WINDOW: usize = 64;

/// Runs [`run_on_function`] on every function with a body.
pub fn run_on_module(module: &mut Module) -> DeadStoreEliminationInfo {
    let mut info = DeadStoreEliminationInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Removes dead stores of one function.
pub fn run_on_function(module: &mut Module, func: Func) -> DeadStoreEliminationInfo {
    let mut info = DeadStoreEliminationInfo::default();
    let Some(f) = module.functions.get(func) else {
        return info;
    };
    if !f.is_definition() {
        return info;
    }
    let mut dead = Vec::new();
    let mut overwritten: SecondaryMap<Inst, bool> = SecondaryMap::new();
    for block in f.layout.blocks() {
        let stores = overwritten_stores(module, f, block);
        info.removed_store_count += stores.len() as u64;
        for &inst in &stores {
            overwritten[inst] = true;
        }
        let noop = noop_stores(module, f, block, &overwritten);
        info.removed_noop_store_count += noop.len() as u64;
        dead.extend(stores);
        dead.extend(noop);
    }
    let f = &mut module.functions[func];
    for inst in dead {
        f.remove_inst(inst);
    }
    info
}

/// The operand-0 pointer of `inst`, decomposed.
fn pointer(module: &Module, f: &Function, inst: Inst) -> Option<PointerPath> {
    let &ptr = f.dfg.inst(inst).args.first()?;
    Some(PointerPath::of(module, f, ptr))
}

fn is_annotated(f: &Function, inst: Inst) -> bool {
    f.dfg.metadata(inst).is_some_and(|md| md.is_annotated())
}

/// Rule 1: stores of `block` overwritten later in it before any possible read.
fn overwritten_stores(module: &Module, f: &Function, block: Block) -> Vec<Inst> {
    let mut dead = Vec::new();
    // Pointers stored to later in the block and not possibly read since, oldest first.
    let mut later: Vec<PointerPath> = Vec::new();
    let insts: Vec<Inst> = f.layout.block_insts(block).collect();
    for &inst in insts.iter().rev() {
        match f.dfg.inst(inst).opcode.info().effect {
            EffectClass::MemoryWrite => {
                let Some(ptr) = pointer(module, f, inst) else {
                    continue;
                };
                let start = later.len().saturating_sub(STORE_WINDOW);
                let covered = later[start..]
                    .iter()
                    .any(|p| alias(p, &ptr) == AliasResult::MustAlias);
                if covered && !is_annotated(f, inst) {
                    dead.push(inst);
                } else if !covered {
                    later.push(ptr);
                    forget_oldest(&mut later);
                }
            }
            EffectClass::MemoryRead | EffectClass::Atomic => match pointer(module, f, inst) {
                Some(ptr) => later.retain(|p| alias(p, &ptr) == AliasResult::NoAlias),
                None => later.clear(),
            },
            EffectClass::Call | EffectClass::Barrier | EffectClass::Volatile => later.clear(),
            EffectClass::Pure
            | EffectClass::ResourceRead
            | EffectClass::ResourceWrite
            | EffectClass::TimeRead
            | EffectClass::Terminator => {}
        }
    }
    dead
}

/// Rule 2: stores of `block` (not already `dead`) writing back the value just loaded from
/// the same function or private memory.
fn noop_stores(
    module: &Module,
    f: &Function,
    block: Block,
    dead: &SecondaryMap<Inst, bool>,
) -> Vec<Inst> {
    let mut noop = Vec::new();
    // "The bytes at this pointer hold this value", recorded by loads, oldest first.
    let mut held: Vec<(PointerPath, Value)> = Vec::new();
    for inst in f.layout.block_insts(block) {
        if dead[inst] {
            continue;
        }
        match f.dfg.inst(inst).opcode.info().effect {
            EffectClass::MemoryRead => {
                let (Some(ptr), Some(result)) = (pointer(module, f, inst), f.dfg.inst_result(inst))
                else {
                    continue;
                };
                if is_local(&ptr) && !is_annotated(f, inst) {
                    held.push((ptr, result));
                    forget_oldest(&mut held);
                }
            }
            EffectClass::MemoryWrite => {
                let Some(ptr) = pointer(module, f, inst) else {
                    held.clear();
                    continue;
                };
                let stored = f.dfg.inst(inst).args.get(1).map(|&v| f.dfg.resolve(v));
                let start = held.len().saturating_sub(STORE_WINDOW);
                let same = held[start..].iter().any(|(p, v)| {
                    Some(f.dfg.resolve(*v)) == stored && alias(p, &ptr) == AliasResult::MustAlias
                });
                if same && is_local(&ptr) && !is_annotated(f, inst) {
                    noop.push(inst);
                } else {
                    held.retain(|(p, _)| alias(p, &ptr) == AliasResult::NoAlias);
                }
            }
            EffectClass::Atomic => match pointer(module, f, inst) {
                Some(ptr) => held.retain(|(p, _)| alias(p, &ptr) == AliasResult::NoAlias),
                None => held.clear(),
            },
            EffectClass::Call | EffectClass::Barrier => held.clear(),
            EffectClass::Pure
            | EffectClass::ResourceRead
            | EffectClass::ResourceWrite
            | EffectClass::Volatile
            | EffectClass::TimeRead
            | EffectClass::Terminator => {}
        }
    }
    noop
}

/// Drops the oldest entries of a scan list past twice the window (only the newest
/// [`STORE_WINDOW`] are consulted), so that `retain` stays O(window).
fn forget_oldest<T>(list: &mut Vec<T>) {
    if list.len() > 2 * STORE_WINDOW {
        list.drain(..list.len() - STORE_WINDOW);
    }
}

/// Whether `ptr` points into per-invocation memory (`function` or `private`).
fn is_local(ptr: &PointerPath) -> bool {
    match ptr.space {
        Some(AddressSpace::Function | AddressSpace::Private) => true,
        Some(
            AddressSpace::Workgroup
            | AddressSpace::Storage(_)
            | AddressSpace::Uniform
            | AddressSpace::PushConstant
            | AddressSpace::Handle,
        )
        | None => false,
    }
}
