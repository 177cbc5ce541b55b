//! # oxir-passes — analyses, the pass pipeline, and transformation passes
//!
//! - [`analysis`]: CFG (executable edges only), reverse post-order, dominator tree with O(1)
//!   `dominates` and dominance frontiers, post-dominator tree with a virtual exit, natural
//!   loops and irreducible cycles, call graph. Computed on demand, never cached across a CFG
//!   change.
//! - [`pipeline`]: `PassPipeline` with single passes, fixed points and sequences, statistics,
//!   tracing (`OXIR_TRACE_PASSES`), verification after every pass (`OXIR_VERIFY_EACH`), IR
//!   dumps (`OXIR_DUMP_DIR`) and a check that each pass's `changed` is true exactly when the
//!   module's text changed.
//! - [`passes`]: one file per pass, each with an info struct of counters, `run_on_function`
//!   and `run_on_module`.
//! - [`registry`]: passes by their kebab-case names (`oxir opt --passes a,b,c`).
//! - [`pipelines`]: the driver pipelines as data (`normalize`, `structurize`).

pub mod analysis;
pub mod const_values;
pub mod loop_transform;
pub mod passes;
pub mod pipeline;
pub mod pipelines;
pub mod registry;
pub mod report;
pub mod util;

pub use pipeline::{
    ModuleShape, PassOutcome, PassPipeline, PipelineError, PipelineErrorKind, Record, Stats,
};
pub use report::{PassInfo, PassReport};
pub use report::{Refusal, RefusalReason, RefusalSite};
