//! # oxir-ir — the oxir intermediate representation
//!
//! One SSA IR for GPU code that holds both structured control flow (`if`, `loop`,
//! `simple_loop`, `switch`, with merge blocks) and plain branches (`br`, `cond_br`,
//! `switch_br`). See `docs/ir.md` for the full list of invariants; [`verifier`] checks
//! exactly that list.
//!
//! ## What a valid module is
//!
//! 1. **Entities exist.** Every type, constant, global, function, block, instruction and
//!    value index a module holds refers to an element of its arena.
//! 2. **Types are well formed** ([`types`]): vectors have 2–4 scalar lanes, matrices 2–4
//!    columns and rows of floats, runtime arrays only at the end of storage buffers, struct
//!    offsets (when explicit) increase and do not overlap.
//! 3. **Constants fit their types** ([`constants`]): scalar bits are canonical; composites
//!    have one element of the right type per member.
//! 4. **Globals** have a sized type, a binding exactly when their space is `storage`,
//!    `uniform` or `handle`, and an initializer only in `private` or `workgroup` space.
//! 5. **Functions**: names are unique; kernels have a non-zero workgroup size and return
//!    nothing; entry-point parameters and results carry stage bindings; callables return at
//!    most one value; an external function has no blocks; a definition has an entry block
//!    whose parameters match the signature.
//! 6. **Blocks** end with exactly one terminator; nothing follows it; no terminator appears
//!    elsewhere.
//! 7. **Instructions** use the payload format their opcode declares, have the operand count
//!    and operand/result types their type rule ([`typing`]) demands.
//! 8. **SSA**: every operand is defined (an instruction result, block parameter, constant or
//!    global) in the same function, and its definition dominates the use. Uses in blocks
//!    unreachable from the entry are not checked for dominance.
//! 9. **Edges** target blocks in the layout and pass one argument of the right type per
//!    target parameter; the entry block is never a branch target.
//! 10. **Structured constructs** ([`instructions::Payload`]): merge, body and update roles
//!     name blocks in the layout; a loop's prepare, body, update and merge are pairwise
//!     distinct; switch labels are canonical for the selector width and distinct; `break`
//!     targets the merge of a loop, simple loop or switch, `continue` a loop's update block
//!     or a simple loop's body.
//! 11. **Options** tighten the rules at pipeline boundaries: terminated blocks (on by
//!     default), reachable blocks, no block parameters, no unstructured control flow (the
//!     `cond_br` ending a loop's prepare block is structured), unique merge blocks, canonical
//!     break/continue targets ([`verifier::VerifierOptions`]).
//!
//! ## Example: building a kernel
//!
//! ```
//! use oxir_ir::builder::FunctionBuilder;
//! use oxir_ir::printer::{print_module, View};
//! use oxir_ir::verifier::{verify_module, VerifierOptions};
//! use oxir_ir::*;
//!
//! let mut module = Module::new();
//! let f32_ty = module.types.f32();
//! let data_ty = module.types.runtime_array(f32_ty);
//! let data = module.add_global(GlobalData {
//!     name: "data".into(),
//!     space: AddressSpace::Storage(StorageAccess::ReadWrite),
//!     ty: data_ty,
//!     init: None,
//!     binding: Some(ResourceBinding { group: 0, binding: 0 }),
//! });
//! let kind = FunctionKind::kernel([64, 1, 1]);
//! let main = FunctionBuilder::create_function(&mut module, "main", kind, Signature::default());
//! let mut b = FunctionBuilder::new(&mut module, main);
//! let entry = b.entry_block().unwrap();
//! b.switch_to_block(entry);
//! let id = b.special(Opcode::DispatchId);
//! let x = b.extract(id, &[0]);
//! let limit = b.uconst(Scalar::U32, 1000);
//! let in_range = b.lt(x, limit);
//! let arms = b.if_(in_range); // creates the then, else and merge blocks
//! b.switch_to_block(arms.then_block);
//! let base = b.global_addr(data);
//! let slot = b.access(base, &[x]);
//! let value = b.load(slot);
//! let doubled = b.add(value, value);
//! b.store(slot, doubled);
//! b.br(arms.merge, &[]);
//! b.switch_to_block(arms.else_block);
//! b.br(arms.merge, &[]);
//! b.switch_to_block(arms.merge);
//! b.ret(&[]);
//!
//! assert!(verify_module(&module, &VerifierOptions::all()).succeeded());
//! let text = print_module(&module, View::Structured);
//! assert!(text.contains("if v"));
//! ```
//!
//! ## Design
//!
//! Entities are dense `u32` indices ([`entities`]); instruction data ([`dfg`]) is kept apart
//! from order ([`layout`]); types and constants are interned; every op is declared once in
//! [`ops`]. SSA uses block parameters, never phi instructions.

// Every public item of the IR is documented; the suite's clippy run turns this into an error.
#![warn(missing_docs)]

pub mod builder;
pub mod constants;
pub mod data_layout;
pub mod dfg;
pub mod dominance;
pub mod effects;
pub mod entities;
pub mod function;
pub mod hash;
pub mod instructions;
pub mod layout;
mod lexer;
pub mod metadata;
pub mod module;
pub mod ops;
pub mod parser;
pub mod printer;
#[cfg(feature = "random")]
pub mod random_modules;
pub mod scalar_semantics;
pub mod ssa_builder;
pub mod texel;
pub mod types;
pub mod typing;
pub mod verifier;

pub use constants::{ConstData, ConstKind};
pub use dfg::{DataFlowGraph, ValueDef};
pub use entities::{Block, Const, Func, Global, Inst, Type, Value};
pub use function::{AbiParam, Builtin, Function, FunctionKind, Signature, StageBinding};
pub use instructions::{BlockCall, InstData, Payload, SwitchTable};
pub use metadata::{Metadata, SourceLocation, SpillKind};
pub use module::{BufferLayouts, GlobalData, Module, ResourceBinding};
pub use ops::{OpFamily, Opcode, SubgroupArith, SubgroupOp, SubgroupScan, TerminatorOp, TextureOp};
pub use types::{AddressSpace, Scalar, ScalarKind, StorageAccess, TypeData};
