//! `trace-access`: folds chained `access` instructions into one.
//!
//! `v2 = access v1, j...` where `v1 = access p, i...` becomes `v2 = access p, i..., j...`.
//! In oxir every index of an `access` steps into the type reached so far, starting at the
//! base's pointee (there is no pointer-arithmetic first index), so appending the outer
//! chain's indices to the inner chain's names the same object with the same type and
//! address space; the verifier's rules (constant struct indices, constant indices in
//! range) hold for the concatenation because they held for each part. On SPIR-V this
//! turns two `OpAccessChain`s into one.
//!
//! Every `access` is rewritten to its whole folded chain in one run: chains are finalised
//! inner links first (an explicit stack, so a deep chain does not recurse), each link
//! once. A fold that would give more than [`MAX_ACCESS_INDICES`] indices (SPIR-V's
//! universal limit for `OpAccessChain`) is not made: that link keeps its base, and links
//! above it fold onto it. An `access` with semantic metadata is not rewritten (it may
//! still be folded through). An `access` whose base chain loops back on itself (only
//! possible in unreachable code of a malformed module) is left alone. Counter:
//! `folded_access_count`. Works on structured and plain functions alike.
//!
//! ## What it does not do
//!
//! - It does not remove the inner `access` (`dce` does when it has no other use), and does
//!   not fold through `select`s, block parameters or call results.
//! - It does not fold `extract`/`insert` chains or merge equal chains (`gvn`,
//!   `early-cse`).
//!
//! ## Example
//!
//! ```text
//! v1: ptr<storage(read_write), vec4<f32>> = access @a, v0
//! v2: ptr<storage(read_write), f32> = access v1, c1
//!   ==>
//! v1: ptr<storage(read_write), vec4<f32>> = access @a, v0
//! v2: ptr<storage(read_write), f32> = access @a, v0, c1
//! ```

use crate::pass_info;
use crate::util::definitions;
use cranelift_entity::SecondaryMap;
use oxir_ir::instructions::ValueList;
use oxir_ir::{Func, Function, Inst, Module, Opcode, ValueDef};

pass_info! {
    pass: "trace-access",
    /// Counters of `trace-access`.
    pub struct TraceAccessInfo {
        /// `access` instructions whose base `access` was folded into them.
        folded_access_count,
    }
    changed_by: [folded_access_count]
}

/// The most indices a folded `access` may have (SPIR-V's universal limit on the indices
/// of one `OpAccessChain`).
pub const MAX_ACCESS_INDICES: usize = 255;

/// Runs [`run_on_function`] on every function with a body.
pub fn run_on_module(module: &mut Module) -> TraceAccessInfo {
    let mut info = TraceAccessInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Folds the access chains of one function.
pub fn run_on_function(module: &mut Module, func: Func) -> TraceAccessInfo {
    let Some(f) = module.functions.get_mut(func) else {
        return TraceAccessInfo::default();
    };
    let folds = plan(f);
    let info = TraceAccessInfo {
        folded_access_count: folds.len() as u64,
        ..TraceAccessInfo::default()
    };
    for (inst, args) in folds {
        f.dfg.inst_mut(inst).args = args;
    }
    info
}

/// Where an `access` stands in the planning walk.
#[derive(Clone, Default)]
enum State {
    #[default]
    Unvisited,
    InProgress,
    /// Finalised with these operands (base first).
    Done(ValueList),
}

/// The new operands of every `access` that folds, decided on the unchanged function.
fn plan(f: &Function) -> Vec<(Inst, ValueList)> {
    let mut state: SecondaryMap<Inst, State> = SecondaryMap::new();
    let mut folds = Vec::new();
    let mut stack: Vec<Inst> = Vec::new();
    for block in f.layout.blocks() {
        for inst in f.layout.block_insts(block) {
            if !is_access(f, inst) || !matches!(state[inst], State::Unvisited) {
                continue;
            }
            state[inst] = State::InProgress;
            stack.push(inst);
            while let Some(&top) = stack.last() {
                if let Some(inner) = base_access(f, top) {
                    if matches!(state[inner], State::Unvisited) {
                        state[inner] = State::InProgress;
                        stack.push(inner);
                        continue;
                    }
                }
                stack.pop();
                let args = finalise(f, top, &state);
                if args.as_slice() != f.dfg.inst(top).args.as_slice() {
                    folds.push((top, args.clone()));
                }
                state[top] = State::Done(args);
            }
        }
    }
    folds
}

/// The operands of `inst` once its (finalised) base chain is folded into it.
fn finalise(f: &Function, inst: Inst, state: &SecondaryMap<Inst, State>) -> ValueList {
    let own = &f.dfg.inst(inst).args;
    let annotated = f.dfg.metadata(inst).is_some_and(|md| md.is_annotated());
    let inner = base_access(f, inst).filter(|_| !annotated);
    let Some(State::Done(base_args)) = inner.map(|b| &state[b]) else {
        return own.iter().copied().collect();
    };
    let count = base_args.len() - 1 + own.len() - 1;
    if count > MAX_ACCESS_INDICES {
        return own.iter().copied().collect();
    }
    base_args.iter().chain(&own[1..]).copied().collect()
}

/// Whether `inst` is a well-formed, placed `access` (a base and at least one index).
fn is_access(f: &Function, inst: Inst) -> bool {
    f.dfg.inst_is_valid(inst)
        && {
            let data = f.dfg.inst(inst);
            data.opcode == Opcode::Access && data.args.len() >= 2
        }
        && f.layout.inst_block(inst).is_some()
}

/// The `access` instruction defining `inst`'s base pointer, if it is one.
fn base_access(f: &Function, inst: Inst) -> Option<Inst> {
    let base = f.dfg.resolve(*f.dfg.inst(inst).args.first()?);
    if !f.dfg.value_is_valid(base) {
        return None;
    }
    match f.dfg.value_def(base) {
        ValueDef::Result(def) if is_access(f, def) => Some(def),
        ValueDef::Result(_)
        | ValueDef::Param(..)
        | ValueDef::Const(_)
        | ValueDef::Global(_)
        | ValueDef::Alias(_)
        | ValueDef::Detached => None,
    }
}
