//! Analyses over one function or module. None is cached: each is computed on demand from
//! the current IR and must be recomputed after any CFG change.

pub mod alias;
pub mod call_graph;
pub mod cfg;
pub mod dominators;
pub mod global_uses;
pub mod loops;
pub mod post_dominators;
