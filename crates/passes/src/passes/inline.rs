//! `inline`, `inline-all` and inlining of chosen call sites: replace a `call` by a copy of
//! the callee's body.
//!
//! Three entry points share one implementation:
//! - [`run_on_module`] / [`run_on_module_with`] (`inline`): the heuristic. A callee with a
//!   single call site in the module is inlined when it has at most
//!   [`InlineOptions::single_call_site_budget`] instructions (1024); a callee with several
//!   call sites when it has at most [`InlineOptions::multi_call_site_budget`] instructions
//!   (50) and at most [`InlineOptions::max_call_sites`] call sites (3). Sizes count placed instructions, terminators included, after the callee's
//!   own calls were inlined; call sites are counted once, before the run.
//! - [`run_all_on_module`] (`inline-all`): every call that can be inlined, ignoring the
//!   heuristic's budgets but not [`InlineAllOptions::max_function_size`]: before changing
//!   anything it bounds each function's size after inlining (its placed instructions plus,
//!   per call to a definition that is not `no_inline`, signature-constrained or recursive,
//!   the callee's bounded size; saturating), and when one exceeds the limit (default
//!   [`DEFAULT_MAX_INLINED_FUNCTION_SIZE`], or `OXIR_MAX_INLINED_SIZE`) it refuses
//!   (`rejected_over_budget_count`) with the call chain that makes the function large
//!   and leaves the module unchanged: 30 levels of `f(x) = g(x) + g(x)` would otherwise
//!   make 2^30 instructions. The bound may count calls the pass then skips (structured
//!   multi-block callees, calls with semantic metadata), never fewer. Drivers run it
//!   immediately after `destructure-cfg`.
//! - [`inline_call_sites`]: exactly the given `(caller, call)` sites, ignoring budgets.
//!
//! Functions are processed bottom-up over the call graph (callees before callers), so one
//! run inlines transitive calls: when `@a` calls `@b` which calls `@c`, `@c` is first
//! inlined into `@b`, then the grown `@b` into `@a`. Calls copied out of an inlined body are
//! not visited again in the same run. Within one caller, calls are inlined from the last to
//! the first in layout order, so splitting blocks moves each instruction at most once.
//!
//! **Two shapes:**
//! - a *single-block* callee (its entry block ends in `return`) is inlined into any caller,
//!   structured or plain: its instructions are copied before the call, its parameters read
//!   the call's arguments, and the call's result becomes the returned value;
//! - a *multi-block* callee only when both caller and callee are plain (no structured
//!   control flow): the caller's block is split after the call into a continuation block
//!   with one parameter for the result, the callee's blocks are copied between them, the
//!   call becomes `br` to the copied entry, and each `return v` becomes
//!   `br continuation(v)`.
//!
//! Instruction metadata is copied with each instruction (a copied `reg2mem_spill` alloca is
//! a new slot, the metadata's unique new owner). Allocas stay where the callee had them;
//! `hoist-allocas` runs afterwards. The callee itself is kept; `unused-callable-removal`
//! deletes callees nothing calls any more.
//!
//! **Skipped** (counted per call site, the module otherwise unchanged): calls to external
//! declarations, to `no_inline` callees, to `signature_constraint` callees (their
//! signature must stay as it is), calls carrying semantic metadata themselves (a call-site `no_inline`, for
//! example, has no owner after inlining), calls to recursive callees (in a call-graph cycle
//! or calling themselves), and multi-block calls where the caller or the callee is
//! structured. The heuristic counts each callee it finds too large once
//! (`skipped_costly_callable_count`).
//!
//! **Refused**: a malformed call — an invalid callee index, a call to an entry point, the
//! wrong number or types of arguments, a result that does not match the callee's
//! signature, a callee body whose entry parameters do not match its signature or that has
//! an unterminated block, a `return` of the wrong arity or an edge to a block outside its
//! layout, or (for [`inline_call_sites`]) a site that is not a placed `call` — is found
//! before the first mutation; the pass then changes nothing and reports
//! `rejected_malformed_call_count`.
//!
//! What it does not do: no inlining through recursion (even one level), no cost model
//! beyond instruction counts, no removal of the inlined callees, no cleanup of the copied
//! code (the branch into the copy and the continuation block are left for `simplify-cfg`).
//!
//! A multi-block callee into a plain caller:
//! ```text
//! callable @abs(i32) -> i32 {               kernel @k() ... {
//! block0(v0: i32):                          block0:
//!     v1: bool = lt v0, c0                      v3: i32 = load v2
//!     cond_br v1, block1, block2(v0)            br block1
//! block1:                                   block1:
//!     v2: i32 = sub c0, v0                      v10: bool = lt v3, c0
//!     br block2(v2)                             cond_br v10, block2, block3(v3)
//! block2(v3: i32):                          block2:
//!     return v3                                 v11: i32 = sub c0, v3
//! }                                             br block3(v11)
//! kernel @k() ... {                  ==>    block3(v8: i32):
//! block0:                                       br block4(v8)
//!     v3: i32 = load v2                     block4(v9: i32):
//!     v4: i32 = call @abs(v3)                   v5: i32 = add v9, c1
//!     v5: i32 = add v4, c1                      ...
//!     ...
//! ```

mod policy;

pub use policy::KeepOptions;

use crate::analysis::call_graph::CallGraph;
use crate::util::contains_structured_control_flow;
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::{EntityRef, SecondaryMap};
use oxir_ir::{
    Block, BlockCall, Func, Function, Inst, InstData, Module, Opcode, Payload, Value, ValueDef,
};

crate::pass_info! {
    pass: "inline",
    /// Counters of `inline`, `inline-all` and `inline_call_sites`.
    pub struct InlineInfo {
        inlined_call_count,
        skipped_recursive_call_count,
        skipped_structured_call_count,
        skipped_noinline_call_count,
        skipped_constrained_call_count,
        skipped_declaration_call_count,
        /// Calls whose own metadata is semantic (no unique owner once the call is gone).
        skipped_metadata_call_count,
        /// Distinct callees over the heuristic's budget.
        skipped_costly_callable_count,
        rejected_malformed_call_count,
        /// Functions whose size after `inline-all` would exceed
        /// [`InlineAllOptions::max_function_size`] (the run then changes nothing).
        rejected_over_budget_count,
    }
    changed_by: [inlined_call_count]
    failed_by: [rejected_malformed_call_count, rejected_over_budget_count]
}

/// [`InlineAllOptions::max_function_size`] by default.
pub const DEFAULT_MAX_INLINED_FUNCTION_SIZE: u64 = 200_000;

/// The environment variable that sets [`InlineAllOptions::max_function_size`] for
/// [`run_all_on_module`].
pub const MAX_INLINED_SIZE_ENV: &str = "OXIR_MAX_INLINED_SIZE";

/// The limit of `inline-all`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InlineAllOptions {
    /// The most placed instructions a function may have after inlining (bounded before
    /// anything is inlined).
    pub max_function_size: u64,
}

impl Default for InlineAllOptions {
    fn default() -> Self {
        InlineAllOptions {
            max_function_size: DEFAULT_MAX_INLINED_FUNCTION_SIZE,
        }
    }
}

impl InlineAllOptions {
    /// The default, or `OXIR_MAX_INLINED_SIZE` when it is set to a number.
    pub fn from_env() -> Self {
        let max_function_size = std::env::var(MAX_INLINED_SIZE_ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_MAX_INLINED_FUNCTION_SIZE);
        InlineAllOptions { max_function_size }
    }
}

/// Budgets of the heuristic (`inline`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InlineOptions {
    /// Largest callee inlined at its only call site.
    pub single_call_site_budget: usize,
    /// Largest callee inlined when it has several call sites.
    pub multi_call_site_budget: usize,
    /// Most call sites a callee inlined under `multi_call_site_budget` may have.
    pub max_call_sites: usize,
}

impl Default for InlineOptions {
    fn default() -> Self {
        InlineOptions {
            single_call_site_budget: 1024,
            multi_call_site_budget: 50,
            max_call_sites: 3,
        }
    }
}

/// Inlines the calls in `func` under the default budgets (callees are not processed
/// first, so their own calls are copied as calls).
pub fn run_on_function(module: &mut Module, func: Func) -> InlineInfo {
    run(
        module,
        Scope::Function(func),
        Policy::Budgets(InlineOptions::default()),
    )
}

/// The `inline` pass: the heuristic with the default budgets.
pub fn run_on_module(module: &mut Module) -> InlineInfo {
    run_on_module_with(module, &InlineOptions::default())
}

/// The heuristic with the given budgets.
pub fn run_on_module_with(module: &mut Module, options: &InlineOptions) -> InlineInfo {
    run(module, Scope::Module, Policy::Budgets(*options))
}

/// The `inline-all` pass: every call that can be inlined, ignoring the heuristic's budgets,
/// within [`InlineAllOptions::from_env`].
pub fn run_all_on_module(module: &mut Module) -> InlineInfo {
    run_all_on_module_with(module, &InlineAllOptions::from_env())
}

/// `inline-all` with the given limit: refuses, changing nothing, when a function would grow
/// past it (module doc).
pub fn run_all_on_module_with(module: &mut Module, options: &InlineAllOptions) -> InlineInfo {
    if let Some(refused) = refuse_over_budget(module, options, "every call", |_, _| true) {
        return refused;
    }
    run(module, Scope::Module, Policy::All)
}

/// The `inline-when-smaller` pass: the calls logical addressing requires inlined, and the
/// others where inlining is smaller ([`policy`]), within [`InlineAllOptions::from_env`].
pub fn run_when_smaller_on_module(module: &mut Module) -> InlineInfo {
    run_when_smaller_on_module_with(
        module,
        &InlineAllOptions::from_env(),
        &KeepOptions::default(),
    )
}

/// `inline-when-smaller` with the given limit and size model. The limit bounds what the
/// required inlining alone makes (the size model never grows a function by more than the
/// calls it replaces and one copy of each single-site callee).
pub fn run_when_smaller_on_module_with(
    module: &mut Module,
    limits: &InlineAllOptions,
    options: &KeepOptions,
) -> InlineInfo {
    let required = |m: &Module, callee: Func| policy::requires_inlining(m, &m.functions[callee]);
    if let Some(refused) = refuse_over_budget(
        module,
        limits,
        "the calls logical addressing requires",
        required,
    ) {
        return refused;
    }
    run(module, Scope::Module, Policy::KeepWhenSmaller(*options))
}

/// The refusal of a run whose counted inlining (`counts(module, callee)`) would make a
/// function larger than the limit, before anything changes.
fn refuse_over_budget(
    module: &Module,
    options: &InlineAllOptions,
    what: &str,
    counts: impl Fn(&Module, Func) -> bool,
) -> Option<InlineInfo> {
    let (function, size, chain) = over_budget(module, options.max_function_size, counts)?;
    let mut info = InlineInfo::default();
    info.rejected_over_budget_count += 1;
    info.note_refusal(Some(&function), None);
    info.refusal_message = Some(format!(
        "inlining {what} would give @{function} at least {size} instructions, more \
         than the inline-all limit of {} ({MAX_INLINED_SIZE_ENV}, \
         InlineAllOptions::max_function_size); the call chain: {}",
        options.max_function_size,
        chain.join(" -> ")
    ));
    Some(info)
}

/// The first function whose bounded size after inlining exceeds `limit`: its name, the
/// bound, and the chain of calls (each to the callee contributing most) that makes it.
fn over_budget(
    module: &Module,
    limit: u64,
    counts: impl Fn(&Module, Func) -> bool,
) -> Option<(String, u64, Vec<String>)> {
    let graph = CallGraph::new(module);
    let n = module.functions.len();
    let mut size = vec![0u64; n];
    let mut heaviest: Vec<Option<Func>> = vec![None; n];
    for func in graph.bottom_up_order() {
        let f = &module.functions[func];
        let mut total = f.placed_inst_count() as u64;
        let mut best = 0;
        for site in graph.call_sites_in(func) {
            let Some(callee) = module.functions.get(site.callee) else {
                continue;
            };
            let inlinable = callee.is_definition()
                && !callee.metadata.no_inline
                && !callee.metadata.signature_constraint
                && !graph.is_recursive(site.callee)
                && site.callee != func
                && counts(module, site.callee);
            if !inlinable {
                continue;
            }
            let grown = size[site.callee.index()];
            total = total.saturating_add(grown);
            if grown > best {
                best = grown;
                heaviest[func.index()] = Some(site.callee);
            }
        }
        size[func.index()] = total;
        if total > limit {
            let mut chain = vec![format!("@{}", f.name)];
            let mut at = heaviest[func.index()];
            while let Some(next) = at.filter(|_| chain.len() <= n) {
                chain.push(format!("@{}", module.functions[next].name));
                at = heaviest[next.index()];
            }
            return Some((f.name.clone(), total, chain));
        }
    }
    None
}

/// Inlines exactly the given call sites (callers processed bottom-up), ignoring budgets;
/// the other skip rules apply. Unknown or non-call sites make the whole request refused.
pub fn inline_call_sites(module: &mut Module, sites: &[(Func, Inst)]) -> InlineInfo {
    run(module, Scope::Sites(sites), Policy::All)
}

/// Which calls a run considers.
#[derive(Copy, Clone)]
enum Scope<'a> {
    Module,
    Function(Func),
    Sites(&'a [(Func, Inst)]),
}

fn run(module: &mut Module, scope: Scope<'_>, policy: Policy) -> InlineInfo {
    let mut info = InlineInfo::default();
    count_malformed_calls(module, scope, &mut info);
    if info.rejected_malformed_call_count > 0 {
        return info;
    }
    let graph = CallGraph::new(module);
    let mut inliner = Inliner {
        policy,
        graph: &graph,
        callee_is_structured: vec![None; module.functions.len()],
        callee_size: vec![None; module.functions.len()],
        callee_required: vec![None; module.functions.len()],
        counted_costly: vec![false; module.functions.len()],
        info,
    };
    match scope {
        Scope::Module => {
            for caller in graph.bottom_up_order() {
                let sites: Vec<Inst> = graph.call_sites_in(caller).iter().map(|s| s.inst).collect();
                inliner.inline_in(module, caller, &sites);
            }
        }
        Scope::Function(caller) => {
            let sites: Vec<Inst> = graph.call_sites_in(caller).iter().map(|s| s.inst).collect();
            inliner.inline_in(module, caller, &sites);
        }
        Scope::Sites(requested) => {
            // Requested sites per caller, kept in layout order, callers
            // bottom-up; duplicates collapse.
            let mut wanted: SecondaryMap<Func, Vec<Inst>> = SecondaryMap::new();
            for &(caller, inst) in requested {
                wanted[caller].push(inst);
            }
            for caller in graph.bottom_up_order() {
                if wanted[caller].is_empty() {
                    continue;
                }
                let mut marked: SecondaryMap<Inst, bool> = SecondaryMap::new();
                for &inst in &wanted[caller] {
                    marked[inst] = true;
                }
                let sites: Vec<Inst> = graph
                    .call_sites_in(caller)
                    .iter()
                    .map(|s| s.inst)
                    .filter(|&inst| marked[inst])
                    .collect();
                inliner.inline_in(module, caller, &sites);
            }
        }
    }
    inliner.info
}

// --- preflight -------------------------------------------------------------------------

/// Counts the malformed calls in the scope (module doc) in `info`, recording where the
/// first one is; nothing is mutated.
fn count_malformed_calls(module: &Module, scope: Scope<'_>, info: &mut InlineInfo) {
    let mut callee_checked: Vec<Option<bool>> = vec![None; module.functions.len()];
    let mut check_caller = |caller: &Function, info: &mut InlineInfo| {
        for block in caller.layout.blocks() {
            for inst in caller.layout.block_insts(block) {
                if caller.dfg.inst(inst).opcode == Opcode::Call
                    && !call_is_well_formed(module, caller, inst, &mut callee_checked)
                {
                    info.rejected_malformed_call_count += 1;
                    info.note_refusal(Some(&caller.name), Some(block));
                }
            }
        }
    };
    match scope {
        Scope::Module => {
            for func in module.functions.values() {
                check_caller(func, info);
            }
        }
        Scope::Function(caller) => match module.functions.get(caller) {
            Some(func) => check_caller(func, info),
            None => {
                info.rejected_malformed_call_count += 1;
                info.note_refusal(None, None);
            }
        },
        Scope::Sites(sites) => {
            for &(caller, inst) in sites {
                let function = module.functions.get(caller);
                let placed_block = function.and_then(|func| {
                    let is_call =
                        func.dfg.inst_is_valid(inst) && func.dfg.inst(inst).opcode == Opcode::Call;
                    is_call
                        .then(|| func.layout.inst_block(inst))
                        .flatten()
                        .filter(|&b| func.layout.is_block_inserted(b))
                });
                if placed_block.is_none() {
                    info.rejected_malformed_call_count += 1;
                    info.note_refusal(function.map(|f| f.name.as_str()), None);
                }
            }
            let mut callers: Vec<Func> = sites.iter().map(|&(f, _)| f).collect();
            callers.sort_unstable();
            callers.dedup();
            for caller in callers {
                if let Some(func) = module.functions.get(caller) {
                    check_caller(func, info);
                }
            }
        }
    }
}

/// Whether the `call` `inst` of `caller` can be inlined mechanically: its callee exists, is
/// not an entry point, and its signature, arguments, result and body agree.
fn call_is_well_formed(
    module: &Module,
    caller: &Function,
    inst: Inst,
    callee_checked: &mut [Option<bool>],
) -> bool {
    let data = caller.dfg.inst(inst);
    let Payload::Callee(callee) = data.payload else {
        return false;
    };
    let Some(target) = module.functions.get(callee) else {
        return false;
    };
    let signature = &target.signature;
    if target.kind.is_entry_point()
        || signature.returns.len() > 1
        || data.args.len() != signature.params.len()
    {
        return false;
    }
    let arguments_match = data
        .args
        .iter()
        .zip(&signature.params)
        .all(|(&arg, param)| {
            caller.dfg.value_is_valid(arg) && caller.dfg.value_type(arg) == param.ty
        });
    let result_matches = match (caller.dfg.inst_result(inst), signature.returns.first()) {
        (None, None) => true,
        (Some(result), Some(ret)) => caller.dfg.value_type(result) == ret.ty,
        _ => false,
    };
    if !arguments_match || !result_matches {
        return false;
    }
    *callee_checked[callee.index()].get_or_insert_with(|| callee_body_is_well_formed(target))
}

/// A declaration is fine (it is skipped later); a body must have entry parameters matching
/// the signature, terminated blocks, `return`s of the signature's arity and edges to blocks
/// of its layout.
fn callee_body_is_well_formed(callee: &Function) -> bool {
    let Some(entry) = callee
        .layout
        .entry_block()
        .filter(|_| callee.is_definition())
    else {
        return true;
    };
    let params = callee.dfg.block_params(entry);
    let params_match = params.len() == callee.signature.params.len()
        && params
            .iter()
            .zip(&callee.signature.params)
            .all(|(&p, abi)| callee.dfg.value_type(p) == abi.ty);
    params_match
        && callee.layout.blocks().all(|b| match callee.terminator(b) {
            None => false,
            Some(t) => {
                let data = callee.dfg.inst(t);
                let returns_match = data.opcode != Opcode::Return
                    || data.args.len() == callee.signature.returns.len();
                let edges_in_layout = data
                    .payload
                    .edges()
                    .iter()
                    .all(|e| callee.layout.is_block_inserted(e.block));
                returns_match && edges_in_layout
            }
        })
}

// --- the inliner -----------------------------------------------------------------------

/// Which calls a run inlines, among those the skip rules allow.
#[derive(Copy, Clone)]
enum Policy {
    /// Every call (`inline-all`, chosen call sites).
    All,
    /// The heuristic's budgets (`inline`).
    Budgets(InlineOptions),
    /// What logical addressing requires, and otherwise when inlining is smaller
    /// (`inline-when-smaller`, [`policy`]).
    KeepWhenSmaller(KeepOptions),
}

struct Inliner<'g> {
    policy: Policy,
    graph: &'g CallGraph,
    /// Per callee, computed on first use: by then its own inlining is done (bottom-up), and
    /// inlining never changes whether a function is structured.
    callee_is_structured: Vec<Option<bool>>,
    callee_size: Vec<Option<usize>>,
    /// Per callee: whether [`policy::requires_inlining`] holds (computed on first use).
    callee_required: Vec<Option<bool>>,
    counted_costly: Vec<bool>,
    info: InlineInfo,
}

/// What to do with one call.
enum Decision {
    SingleBlock { entry: Block, ret: Inst },
    MultiBlock,
    Skip,
}

impl Inliner<'_> {
    /// Inlines the calls `sites` of `caller` (given in layout order) that the rules allow.
    fn inline_in(&mut self, module: &mut Module, caller: Func, sites: &[Inst]) {
        if sites.is_empty() {
            return;
        }
        let caller_is_structured = contains_structured_control_flow(&module.functions[caller]);
        // Last to first: splitting a block at a call then moves only the instructions up to
        // the next call already inlined, so each instruction moves once (no quadratic
        // splitting of a block with many calls).
        for &call in sites.iter().rev() {
            let Payload::Callee(callee) = module.functions[caller].dfg.inst(call).payload else {
                continue;
            };
            match self.decide(module, caller, call, callee, caller_is_structured) {
                Decision::Skip => continue,
                Decision::SingleBlock { entry, ret } => {
                    let [caller_fn, callee_fn] = module
                        .functions
                        .get_disjoint_mut([caller, callee])
                        .expect("recursive calls are skipped, so caller and callee differ");
                    inline_single_block(caller_fn, call, callee_fn, entry, ret);
                }
                Decision::MultiBlock => {
                    let [caller_fn, callee_fn] = module
                        .functions
                        .get_disjoint_mut([caller, callee])
                        .expect("recursive calls are skipped, so caller and callee differ");
                    inline_multi_block(caller_fn, call, callee_fn);
                }
            }
            self.info.inlined_call_count += 1;
        }
    }

    fn decide(
        &mut self,
        module: &Module,
        caller: Func,
        call: Inst,
        callee: Func,
        caller_is_structured: bool,
    ) -> Decision {
        let target = &module.functions[callee];
        let info = &mut self.info;
        let Some(entry) = target
            .layout
            .entry_block()
            .filter(|_| target.is_definition())
        else {
            info.skipped_declaration_call_count += 1;
            return Decision::Skip;
        };
        if target.metadata.no_inline {
            info.skipped_noinline_call_count += 1;
            return Decision::Skip;
        }
        if target.metadata.signature_constraint {
            info.skipped_constrained_call_count += 1;
            return Decision::Skip;
        }
        let call_metadata = module.functions[caller].dfg.metadata(call);
        if call_metadata.is_some_and(|md| md.is_annotated()) {
            info.skipped_metadata_call_count += 1;
            return Decision::Skip;
        }
        if self.graph.is_recursive(callee) || caller == callee {
            info.skipped_recursive_call_count += 1;
            return Decision::Skip;
        }
        let entry_terminator = target.terminator(entry).expect("checked by the preflight");
        let single_block = target.dfg.inst(entry_terminator).opcode == Opcode::Return;
        if !single_block {
            let callee_is_structured = *self.callee_is_structured[callee.index()]
                .get_or_insert_with(|| contains_structured_control_flow(target));
            if caller_is_structured || callee_is_structured {
                self.info.skipped_structured_call_count += 1;
                return Decision::Skip;
            }
        }
        if !self.affordable(module, callee) {
            if !self.counted_costly[callee.index()] {
                self.counted_costly[callee.index()] = true;
                self.info.skipped_costly_callable_count += 1;
            }
            return Decision::Skip;
        }
        if single_block {
            Decision::SingleBlock {
                entry,
                ret: entry_terminator,
            }
        } else {
            Decision::MultiBlock
        }
    }
}

impl Inliner<'_> {
    /// Whether the policy inlines calls to `callee` (the skip rules already passed).
    fn affordable(&mut self, module: &Module, callee: Func) -> bool {
        let target = &module.functions[callee];
        let size =
            *self.callee_size[callee.index()].get_or_insert_with(|| target.placed_inst_count());
        let sites = self.graph.call_site_count(callee);
        match self.policy {
            Policy::All => true,
            Policy::Budgets(budgets) => {
                if sites <= 1 {
                    size <= budgets.single_call_site_budget
                } else {
                    sites <= budgets.max_call_sites && size <= budgets.multi_call_site_budget
                }
            }
            Policy::KeepWhenSmaller(options) => {
                let required = *self.callee_required[callee.index()]
                    .get_or_insert_with(|| policy::requires_inlining(module, target));
                let params = target.signature.params.len();
                required || policy::inlining_is_smaller(size, params, sites, &options)
            }
        }
    }
}

// --- copying a body --------------------------------------------------------------------

/// Callee values to caller values for one inlined call.
struct ValueMap {
    map: Vec<PackedOption<Value>>,
}

impl ValueMap {
    /// A map binding the callee's entry parameters to the call's arguments.
    fn new(caller: &Function, call: Inst, callee: &Function, entry: Block) -> ValueMap {
        let mut map = vec![PackedOption::default(); callee.dfg.values.len()];
        let args = &caller.dfg.inst(call).args;
        for (&param, &arg) in callee.dfg.block_params(entry).iter().zip(args) {
            map[param.index()] = caller.dfg.resolve(arg).into();
        }
        ValueMap { map }
    }

    fn bind(&mut self, callee_value: Value, caller_value: Value) {
        self.map[callee_value.index()] = caller_value.into();
    }

    /// The caller value for callee value `v`: a mapped parameter or result, or the
    /// caller's value for the same constant or global.
    fn get(&self, callee: &Function, caller: &mut Function, v: Value) -> Value {
        let v = callee.dfg.resolve(v);
        if let Some(mapped) = self.map.get(v.index()).and_then(|m| m.expand()) {
            return mapped;
        }
        let ty = callee.dfg.values[v].ty;
        match callee.dfg.values[v].def {
            ValueDef::Const(c) => caller.dfg.const_value(c, ty),
            ValueDef::Global(g) => caller.dfg.global_value(g, ty),
            // Only an invalid callee body (a use of a removed or unplaced definition)
            // gets here; the copy reads an undefined value and the verifier reports it.
            ValueDef::Result(_) | ValueDef::Param(..) | ValueDef::Alias(_) | ValueDef::Detached => {
                caller.dfg.make_detached_value(ty)
            }
        }
    }

    /// A copy of callee instruction `inst`'s data with operands and edge arguments mapped.
    fn map_inst(&self, callee: &Function, caller: &mut Function, inst: Inst) -> InstData {
        let mut data = callee.dfg.inst(inst).clone();
        data.map_values(|v| self.get(callee, caller, v));
        data
    }
}

/// Copies `inst` of `callee` into `caller` (not placed), with a result of the same type
/// bound in `map`, and its metadata. The data is a placeholder for `map_inst` to fill.
fn copy_inst_shell(
    caller: &mut Function,
    callee: &Function,
    inst: Inst,
    map: &mut ValueMap,
) -> Inst {
    let copy = caller
        .dfg
        .make_inst(InstData::new(callee.dfg.inst(inst).opcode, &[]));
    if let Some(result) = callee.dfg.inst_result(inst) {
        let ty = callee.dfg.values[result].ty;
        let new_result = caller.dfg.make_result(copy, ty);
        map.bind(result, new_result);
    }
    if let Some(md) = callee.dfg.metadata(inst) {
        caller.dfg.set_metadata(copy, md.clone());
    }
    copy
}

/// Makes the call's result read `value` (when both exist) and removes the call.
fn retire_call(caller: &mut Function, call: Inst, value: Option<Value>) {
    if let (Some(result), Some(value)) = (caller.dfg.inst_result(call), value) {
        let replaced = caller.dfg.replace_all_uses(result, value);
        debug_assert!(replaced, "the preflight checked the result type");
    }
    caller.remove_inst(call);
}

/// Copies the single block of `callee` (ending in `ret`) before `call`.
fn inline_single_block(
    caller: &mut Function,
    call: Inst,
    callee: &Function,
    entry: Block,
    ret: Inst,
) {
    let mut map = ValueMap::new(caller, call, callee, entry);
    for inst in callee.layout.block_insts(entry) {
        if inst == ret {
            break;
        }
        // One block in SSA order: every operand is mapped before it is read.
        let data = map.map_inst(callee, caller, inst);
        let copy = copy_inst_shell(caller, callee, inst, &mut map);
        *caller.dfg.inst_mut(copy) = data;
        caller.layout.insert_inst_before(copy, call);
    }
    let returned = callee
        .dfg
        .inst(ret)
        .args
        .first()
        .map(|&v| map.get(callee, caller, v));
    retire_call(caller, call, returned);
}

/// Splits the caller's block after `call` and copies every block of the plain `callee`
/// between the two halves.
fn inline_multi_block(caller: &mut Function, call: Inst, callee: &Function) {
    let entry = callee.layout.entry_block().expect("callee is a definition");
    let block = caller.layout.inst_block(call).expect("the call is placed");

    // Blocks and their parameters first, then every instruction's shell and result, so
    // operands defined later in layout order are mapped when the operands are filled in.
    // Blocks are created in layout order (copies, then the continuation) so their numbers
    // read in order.
    let mut map = ValueMap::new(caller, call, callee, entry);
    let mut block_map: SecondaryMap<Block, PackedOption<Block>> = SecondaryMap::new();
    let mut after = block;
    for callee_block in callee.layout.blocks() {
        let copy = caller.dfg.make_block();
        caller.layout.insert_block_after(copy, after);
        after = copy;
        block_map[callee_block] = copy.into();
        if callee_block != entry {
            for &param in callee.dfg.block_params(callee_block) {
                let ty = callee.dfg.values[param].ty;
                let new_param = caller.dfg.append_block_param(copy, ty);
                map.bind(param, new_param);
            }
        }
    }
    let continuation = caller.dfg.make_block();
    caller.layout.insert_block_after(continuation, after);
    // Nothing follows the call only in an unterminated block (allowed when the verifier
    // runs without `require_terminated_blocks`); the continuation then stays empty too.
    if let Some(rest) = caller.layout.next_inst(call) {
        caller.layout.split_block_at(rest, continuation);
    }
    let result_param = caller.dfg.inst_result(call).map(|r| {
        let ty = caller.dfg.value_type(r);
        caller.dfg.append_block_param(continuation, ty)
    });
    let mut copies: Vec<(Inst, Inst)> = Vec::new();
    for callee_block in callee.layout.blocks() {
        let copy_block = block_map[callee_block].expect("mapped above");
        for inst in callee.layout.block_insts(callee_block) {
            let copy = copy_inst_shell(caller, callee, inst, &mut map);
            caller.layout.append_inst(copy, copy_block);
            copies.push((inst, copy));
        }
    }
    for (inst, copy) in copies {
        let mut data = map.map_inst(callee, caller, inst);
        if data.opcode == Opcode::Return {
            let edge = BlockCall::with_args(continuation, &data.args);
            data = InstData::with_payload(Opcode::Br, &[], Payload::Jump(edge));
        } else {
            for edge in data.payload.edges_mut() {
                edge.block = block_map[edge.block]
                    .expand()
                    .expect("edges target blocks in the callee's layout");
            }
        }
        *caller.dfg.inst_mut(copy) = data;
    }

    retire_call(caller, call, result_param);
    let copied_entry = block_map[entry].expect("mapped above");
    let jump = caller.dfg.make_inst(InstData::with_payload(
        Opcode::Br,
        &[],
        Payload::Jump(BlockCall::new(copied_entry)),
    ));
    caller.layout.append_inst(jump, block);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PassInfo;
    use oxir_ir::parser::parse_module;
    use oxir_ir::printer::{print_module, View};
    use oxir_ir::verifier::{verify_module, VerifierOptions};

    fn parse(text: &str) -> Module {
        parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn assert_verifies(m: &Module) {
        let report = verify_module(m, &VerifierOptions::default());
        assert!(
            report.succeeded(),
            "{report}\n{}",
            print_module(m, View::Flat)
        );
    }

    const TWO_CALLS: &str = "
const c0: f32 = 2.0
callable @double(f32) -> f32 {
block0(v0: f32):
    v1: f32 = mul v0, c0
    return v1
}
kernel @k() workgroup_size(1, 1, 1) {
block0:
    v0: f32 = call @double(c0)
    v1: f32 = call @double(v0)
    return
}
";

    /// `levels` functions, each calling the previous one twice.
    fn doubling(levels: usize) -> String {
        let mut text = String::from(
            "callable @f0(u32) -> u32 {\nblock0(v0: u32):\n    v1: u32 = add v0, v0\n    return v1\n}\n",
        );
        for i in 1..=levels {
            let j = i - 1;
            text.push_str(&format!(
                "callable @f{i}(u32) -> u32 {{\nblock0(v0: u32):\n    v1: u32 = call @f{j}(v0)\n    \
                 v2: u32 = call @f{j}(v0)\n    v3: u32 = add v1, v2\n    return v3\n}}\n"
            ));
        }
        text
    }

    #[test]
    fn inline_all_over_its_size_limit_refuses_untouched_naming_the_chain() {
        // Sizes after inlining: f0 2, f1 8, f2 20, f3 44 instructions.
        let mut m = parse(&doubling(3));
        let before = print_module(&m, View::Flat);
        let info = run_all_on_module_with(
            &mut m,
            &InlineAllOptions {
                max_function_size: 43,
            },
        );
        assert_eq!(info.rejected_over_budget_count, 1);
        assert_eq!(info.inlined_call_count, 0);
        let refusal = info.failure().expect("refused");
        assert_eq!(refusal.location().as_deref(), Some("@f3"));
        let message = refusal.to_string();
        assert!(message.contains("at least 44 instructions"), "{message}");
        assert!(message.contains("@f3 -> @f2 -> @f1 -> @f0"), "{message}");
        assert_eq!(print_module(&m, View::Flat), before);
        // At the limit it inlines everything, and the bound was exact.
        let info = run_all_on_module_with(
            &mut m,
            &InlineAllOptions {
                max_function_size: 44,
            },
        );
        assert_eq!(info.failure(), None);
        assert_eq!(info.inlined_call_count, 6);
        let f3 = m.function_by_name("f3").unwrap();
        assert!(m.functions[f3].placed_inst_count() <= 44);
    }

    #[test]
    fn malformed_call_with_wrong_argument_count_is_refused_untouched() {
        let mut m = parse(TWO_CALLS);
        // Drop the argument of the second call: the verifier would reject this module.
        let k = m.function_by_name("k").unwrap();
        let f = &mut m.functions[k];
        let block = f.entry_block().unwrap();
        let second = f.layout.block_insts(block).nth(1).unwrap();
        f.dfg.inst_mut(second).args.clear();
        let before = print_module(&m, View::Flat);
        for run in [run_on_module, run_all_on_module] {
            let info = run(&mut m);
            assert_eq!(info.rejected_malformed_call_count, 1);
            assert_eq!(info.inlined_call_count, 0);
            assert!(!info.changed());
            let refusal = info.failure().expect("refused");
            assert_eq!(refusal.pass, "inline");
            assert_eq!(refusal.location().as_deref(), Some("@k, block0"));
            assert_eq!(print_module(&m, View::Flat), before);
        }
        let info = inline_call_sites(&mut m, &[(k, second)]);
        assert_eq!(info.rejected_malformed_call_count, 1);
        assert_eq!(print_module(&m, View::Flat), before);
    }

    #[test]
    fn malformed_argument_type_invalid_callee_and_entry_point_callee_are_refused() {
        let mut m = parse(TWO_CALLS);
        let k = m.function_by_name("k").unwrap();
        let block = m.functions[k].entry_block().unwrap();
        let insts: Vec<Inst> = m.functions[k].layout.block_insts(block).collect();
        let before = print_module(&m, View::Flat);
        // An argument of the wrong type (the u32 constant is not an f32).
        let mut wrong_type = m.clone();
        let c = wrong_type.const_u32(7);
        let u32_ty = wrong_type.types.u32();
        let f = &mut wrong_type.functions[k];
        let v = f.dfg.const_value(c, u32_ty);
        f.dfg.inst_mut(insts[0]).args[0] = v;
        assert_eq!(
            run_all_on_module(&mut wrong_type).rejected_malformed_call_count,
            1
        );
        // A callee index past the end, and a call to the kernel itself.
        for callee in [Func::new(99), k] {
            let mut bad = m.clone();
            bad.functions[k].dfg.inst_mut(insts[1]).payload = Payload::Callee(callee);
            let text = print_module(&bad, View::Flat);
            let info = run_all_on_module(&mut bad);
            assert_eq!(info.rejected_malformed_call_count, 1, "{callee}");
            assert_eq!(print_module(&bad, View::Flat), text);
        }
        // A requested site that is not a call.
        let info = inline_call_sites(&mut m, &[(k, insts[2])]);
        assert_eq!(info.rejected_malformed_call_count, 1);
        assert_eq!(print_module(&m, View::Flat), before);
    }

    #[test]
    fn selected_call_sites_only() {
        let mut m = parse(TWO_CALLS);
        let k = m.function_by_name("k").unwrap();
        let block = m.functions[k].entry_block().unwrap();
        let second = m.functions[k].layout.block_insts(block).nth(1).unwrap();
        let info = inline_call_sites(&mut m, &[(k, second), (k, second)]);
        assert_eq!(info.inlined_call_count, 1, "duplicates collapse");
        assert_verifies(&m);
        let text = print_module(&m, View::Flat);
        assert_eq!(text.matches("call @double").count(), 1, "{text}");
    }

    #[test]
    fn budgets_decide_and_count_each_costly_callee_once() {
        let mut m = parse(TWO_CALLS);
        let tight = InlineOptions {
            single_call_site_budget: 1024,
            multi_call_site_budget: 1,
            max_call_sites: 3,
        };
        let info = run_on_module_with(&mut m, &tight);
        assert_eq!(info.inlined_call_count, 0);
        assert_eq!(info.skipped_costly_callable_count, 1);
        let few_sites = InlineOptions {
            max_call_sites: 1,
            ..InlineOptions::default()
        };
        assert_eq!(run_on_module_with(&mut m, &few_sites).inlined_call_count, 0);
        let info = run_on_module(&mut m);
        assert_eq!(info.inlined_call_count, 2);
        assert_verifies(&m);
    }

    #[test]
    fn call_site_semantic_metadata_is_respected() {
        let mut m = parse(&TWO_CALLS.replace(
            "v0: f32 = call @double(c0)",
            "v0: f32 = call @double(c0) [no_inline]",
        ));
        let info = run_all_on_module(&mut m);
        assert_eq!(info.skipped_metadata_call_count, 1);
        assert_eq!(info.inlined_call_count, 1);
        assert_verifies(&m);
    }

    #[test]
    fn multi_block_call_ending_an_unterminated_block() {
        let mut m = parse(
            "
const c0: i32 = 0
callable @sign(i32) -> i32 {
block0(v0: i32):
    v1: bool = lt v0, c0
    cond_br v1, block1, block2
block1:
    return c0
block2:
    return v0
}
kernel @k() workgroup_size(1, 1, 1) {
block0:
    br block1
block1:
    v0: i32 = call @sign(c0)
}
",
        );
        let lenient = VerifierOptions {
            require_terminated_blocks: false,
            ..VerifierOptions::default()
        };
        assert!(verify_module(&m, &lenient).succeeded());
        let info = run_all_on_module(&mut m);
        assert_eq!(info.inlined_call_count, 1);
        let report = verify_module(&m, &lenient);
        assert!(
            report.succeeded(),
            "{report}\n{}",
            print_module(&m, View::Flat)
        );
    }

    #[test]
    fn callee_with_an_edge_outside_its_layout_is_refused() {
        let mut m = parse(
            "
const c0: bool = true
callable @f() {
block0:
    cond_br c0, block1, block2
block1:
    return
block2:
    return
}
kernel @k() workgroup_size(1, 1, 1) {
block0:
    call @f()
    return
}
",
        );
        let f = m.function_by_name("f").unwrap();
        let block2 = Block::new(2);
        m.functions[f].layout.remove_block(block2);
        let before = print_module(&m, View::Flat);
        let info = run_all_on_module(&mut m);
        assert_eq!(info.rejected_malformed_call_count, 1);
        assert_eq!(print_module(&m, View::Flat), before);
    }

    #[test]
    fn run_on_function_inlines_into_that_function_only() {
        let mut m = parse(
            "
callable @id(i32) -> i32 {
block0(v0: i32):
    return v0
}
callable @wrap(i32) -> i32 {
block0(v0: i32):
    v1: i32 = call @id(v0)
    return v1
}
kernel @k() workgroup_size(1, 1, 1) {
block0:
    return
}
",
        );
        let wrap = m.function_by_name("wrap").unwrap();
        let k = m.function_by_name("k").unwrap();
        assert_eq!(run_on_function(&mut m, k).inlined_call_count, 0);
        let info = run_on_function(&mut m, wrap);
        assert_eq!(info.inlined_call_count, 1);
        assert_verifies(&m);
        assert!(!print_module(&m, View::Flat).contains("call @id"));
    }

    /// Runs `pass`, checks that `changed` agrees with the text and that the result verifies.
    fn run_checked<I: PassInfo>(m: &mut Module, pass: fn(&mut Module) -> I, what: &str) -> I {
        let before = print_module(m, View::Flat);
        let info = pass(m);
        let after = print_module(m, View::Flat);
        assert_eq!(
            info.changed(),
            before != after,
            "{what}: changed disagrees\n{before}"
        );
        let report = verify_module(m, &VerifierOptions::default());
        assert!(
            report.succeeded(),
            "{what}:\n{report}\n{before}\n--- after\n{after}"
        );
        info
    }

    #[test]
    fn random_modules_stay_valid_through_the_interprocedural_passes() {
        use crate::passes::{dead_arg_elim, unused_callable_removal};
        use oxir_ir::random_modules::{generate_module, GenConfig};
        let configs = [
            (
                "plain",
                GenConfig {
                    structured: false,
                    ..GenConfig::default()
                },
            ),
            (
                "structured",
                GenConfig {
                    plain: false,
                    ..GenConfig::default()
                },
            ),
            ("mixed", GenConfig::default()),
        ];
        for (name, config) in configs {
            let mut total = InlineInfo::default();
            for seed in 0..40 {
                let what = format!("{name} seed {seed}");
                let original = generate_module(seed, config);
                let mut heuristic = original.clone();
                run_checked(&mut heuristic, run_on_module, &what);
                let mut m = original;
                let info = run_checked(&mut m, run_all_on_module, &what);
                assert_eq!(info.rejected_malformed_call_count, 0);
                total.accumulate(&info);
                if !config.structured {
                    // Plain, non-recursive: every call is inlined.
                    assert_eq!(info.skipped_structured_call_count, 0, "{what}");
                    let text = print_module(&m, View::Flat);
                    let kernel = &text[text.find("kernel @main").unwrap()..];
                    assert!(!kernel.contains("call @"), "{what}\n{text}");
                }
                let again = run_checked(&mut m, run_all_on_module, &what);
                assert!(!again.changed(), "{what}: inline-all is not idempotent");
                run_checked(&mut m, dead_arg_elim::run_on_module, &what);
                run_checked(&mut m, unused_callable_removal::run_on_module, &what);
                assert!(!run_checked(&mut m, dead_arg_elim::run_on_module, &what).changed());
            }
            eprintln!("{name}: {total:?}");
            assert!(
                total.inlined_call_count >= 20,
                "{name}: the generator made few calls"
            );
        }
    }
}
