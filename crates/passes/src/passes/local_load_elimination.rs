//! `local-load-elimination`: redundant-load elimination within one block.
//!
//! In each block, a `load Q` whose pointer must alias ([`crate::analysis::alias::alias`]
//! is `MustAlias`) the pointer of an earlier `load P` of the same block, with the same
//! type, is replaced by that earlier load's result, when nothing in between may write
//! `P`: no store or atomic whose pointer may alias it, no call, no barrier. The scan is
//! the shared block-local driver [`crate::analysis::memory_facts::forward_in_blocks`]
//! (the fact table `gvn` uses, with one scope per block); only the newest
//! [`crate::analysis::memory_facts::FACT_WINDOW`] loads of a block are consulted. Loads
//! carrying semantic metadata ([`oxir_ir::Metadata::is_annotated`]) are neither replaced
//! nor used as an answer.
//!
//! It needs no CFG analysis, so it works on structured and plain functions alike. Every
//! address space qualifies (a write by another invocation between two loads of a block,
//! with no barrier in between, would be a data race). Counter: `removed_load_count`.
//!
//! ## What it does not do
//!
//! - It never answers a load with a stored value (`local-store-forward`), even when the
//!   store is what killed the earlier load; it never looks across blocks (`gvn`).
//! - It does not extract a member from an earlier load of the whole object (the pointers
//!   only may alias), and does not remove loads that are merely unused (`dce`).
//!
//! ## Example
//!
//! ```text
//! v2: u32 = load v1            v2: u32 = load v1
//! v3: u32 = load v1     ==>    v4: u32 = add v2, v2
//! v4: u32 = add v2, v3
//! ```

use crate::analysis::memory_facts::{forward_and_apply, LocalFacts};
use crate::pass_info;
use crate::util::definitions;
use oxir_ir::{Func, Module};

pass_info! {
    pass: "local-load-elimination",
    /// Counters of `local-load-elimination`.
    pub struct LocalLoadEliminationInfo {
        /// Loads replaced by the result of an earlier load of the block.
        removed_load_count,
    }
    changed_by: [removed_load_count]
}

/// Runs [`run_on_function`] on every function with a body.
pub fn run_on_module(module: &mut Module) -> LocalLoadEliminationInfo {
    let mut info = LocalLoadEliminationInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Eliminates the block-local redundant loads of one function.
pub fn run_on_function(module: &mut Module, func: Func) -> LocalLoadEliminationInfo {
    LocalLoadEliminationInfo {
        removed_load_count: forward_and_apply(module, func, LocalFacts::Loads),
        ..LocalLoadEliminationInfo::default()
    }
}
