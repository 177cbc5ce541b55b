//! `local-store-forward`: store-to-load forwarding within one block.
//!
//! In each block, a `load Q` whose pointer must alias ([`crate::analysis::alias::alias`]
//! is `MustAlias`: the same bytes, the same type) the pointer of an earlier `store P, v`
//! of the same block is replaced by `v`, when nothing in between may write `P`: no store
//! or atomic whose pointer may alias it, no call, no barrier. The scan is the shared
//! block-local driver [`crate::analysis::memory_facts::forward_in_blocks`] (the fact table
//! `gvn` uses, with one scope per block); only the newest
//! [`crate::analysis::memory_facts::FACT_WINDOW`] stores of a block are consulted. Loads
//! carrying semantic metadata ([`oxir_ir::Metadata::is_annotated`]) are kept.
//!
//! It needs no CFG analysis, so it works on structured and plain functions alike. Every
//! address space is forwarded (another invocation's write to workgroup or storage memory
//! between a store and a load of the same block, with no barrier, would be a data race).
//! Counter: `removed_load_count`.
//!
//! ## What it does not do
//!
//! - It never removes a store (`dead-store-elimination`, `dce` and `mem2reg` do), never
//!   answers a load with an earlier load (`local-load-elimination`), never looks across
//!   blocks (`gvn` does, along single-predecessor chains).
//! - It does not forward part of a store (a store of a whole struct to a load of one
//!   member: the pointers only may alias) or through pointers of unknown provenance that
//!   are not the same value.
//!
//! ## Example
//!
//! ```text
//! store v1, v0                 store v1, v0
//! v2: u32 = load v1     ==>    v3: u32 = add v0, c1
//! v3: u32 = add v2, c1
//! ```

use crate::analysis::memory_facts::{forward_and_apply, LocalFacts};
use crate::pass_info;
use crate::util::definitions;
use oxir_ir::{Func, Module};

pass_info! {
    pass: "local-store-forward",
    /// Counters of `local-store-forward`.
    pub struct LocalStoreForwardInfo {
        /// Loads replaced by the value an earlier store of the block wrote.
        removed_load_count,
    }
    changed_by: [removed_load_count]
}

/// Runs [`run_on_function`] on every function with a body.
pub fn run_on_module(module: &mut Module) -> LocalStoreForwardInfo {
    let mut info = LocalStoreForwardInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Forwards the block-local stores of one function to their loads.
pub fn run_on_function(module: &mut Module, func: Func) -> LocalStoreForwardInfo {
    LocalStoreForwardInfo {
        removed_load_count: forward_and_apply(module, func, LocalFacts::Stores),
        ..LocalStoreForwardInfo::default()
    }
}
