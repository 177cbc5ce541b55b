//! The transformation passes, one per file.
//!
//! Every pass file follows one shape:
//! - a module doc saying what the pass does and what it does not do, with a small example;
//! - an info struct declared with [`crate::pass_info!`]: the pass's registered name,
//!   `u64` counters named `…_count` after what they count, `changed_by` (and for passes
//!   that can refuse their input, `failed_by`, with the refused function and block recorded
//!   by `note_refusal`);
//! - `pub fn run_on_function(module: &mut Module, func: Func) -> Info` and
//!   `pub fn run_on_module(module: &mut Module) -> Info`, reporting `changed` exactly when
//!   the IR changed (a module-level pass whose decision spans every function, such as
//!   `dead-global-elim`, has only `run_on_module` and says so in its doc). A pass that can refuse checks the whole function or module before its
//!   first mutation and leaves it untouched when it refuses.

pub mod adce;
pub mod algebraic_simplify;
pub mod bounds_checks;
pub mod const_fold;
pub mod cvp;
pub mod dce;
pub mod dead_arg_elim;
pub mod dead_global_elim;
pub mod dead_store_elimination;
pub mod destructure_cfg;
pub mod div_rem_pairs;
pub mod early_cse;
pub mod gvn;
pub mod hoist_allocas;
pub mod if_conversion;
pub mod indvar_simplify;
pub mod inline;
pub mod jump_threading;
pub mod licm;
pub mod local_load_elimination;
pub mod local_store_forward;
pub mod loop_fusion;
pub mod loop_rotation;
pub mod loop_unroll;
pub mod loop_unswitch;
pub mod mem2reg;
pub mod phi_cleanup;
pub mod private_to_function;
pub mod promote_ref_arg;
pub mod reassociate;
pub mod reg2mem;
pub mod restructure_cfg;
pub mod sccp;
pub mod simplify_cfg;
pub mod simplify_libcalls;
pub mod sroa;
pub mod trace_access;
pub mod unused_callable_removal;
