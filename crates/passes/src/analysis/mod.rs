//! Analyses over one function or module. None is cached: each is computed on demand from
//! the current IR and must be recomputed after any CFG change. `value_table` and
//! `memory_facts` are the scoped tables of value numbering and memory facts that `gvn`
//! and the block-local passes fill as they scan.

pub mod alias;
pub mod call_graph;
pub mod cfg;
pub mod dominators;
pub mod global_uses;
pub mod loops;
pub mod memory_facts;
pub mod post_dominators;
pub mod scev;
pub mod uniformity;
pub mod value_table;
