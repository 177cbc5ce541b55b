//! `licm`: loop-invariant code motion on plain control-flow graphs.
//!
//! For every natural loop ([`crate::analysis::loops`]), innermost loops first, the
//! instructions whose operands are all defined outside the loop (or were hoisted already)
//! and that are safe to execute once before the loop move to the end of the loop's
//! preheader, in reverse post-order of their blocks (so a hoisted value is placed before
//! its hoisted users). An instruction hoisted into an inner loop's preheader is, in the
//! same run, hoisted further when it is invariant in the enclosing loop too, so one run
//! reaches a fixed point: a second run changes nothing.
//!
//! **What moves, by family.**
//!
//! - *Pure* instructions ([`oxir_ir::effects::is_safe_to_value_number`]: pure, not
//!   convergent, not `alloca`) without semantic metadata: arithmetic, bitwise,
//!   comparisons, elementary and float functions, vector and matrix operations,
//!   conversions, composites, `access`, `array_length`, special registers and texture
//!   queries. None of them can fault: integer `div` and `rem` are total in the IR
//!   (`x / 0 = x`, `x % 0 = 0`, `MIN / -1 = MIN`, see `oxir_ir::scalar_semantics`), float
//!   operations never trap, and shifts take their amount modulo the width. They are
//!   therefore hoisted from any block of the loop, even one a branch guards (they are
//!   speculated: computed once even if the loop body would never have run them), with
//!   one exception: an instruction with a **dynamic index** (`access` with a
//!   non-constant index, `extract_dynamic`, `insert_dynamic`) is hoisted only from a
//!   block that is guaranteed to execute (below), because a back-end may lower it to an
//!   address computation that is undefined out of range.
//! - *Loads* are hoisted when their pointer is invariant, the memory is invariant in the
//!   loop, and the load is guaranteed to execute or safe to speculate:
//!   - memory is invariant when it is uniform, push-constant, handle or read-only
//!     storage memory, or when the loop contains no call, no barrier (for workgroup and
//!     storage memory), and no store or atomic whose pointer may alias the load's
//!     ([`crate::analysis::alias::alias`] is not `NoAlias`); a loop with more than
//!     [`MAX_WRITES`] stores and atomics hoists loads of invariant spaces only;
//!   - a load is guaranteed to execute when its block dominates every block of the loop
//!     with an exit edge (and the loop has one): whenever the preheader runs, the load
//!     runs before the loop is left. A load in a block some branch guards — as the
//!     `bounds-checks` pass guards a runtime-sized access with `cond_br (lt i, len)` —
//!     is not, and hoisting it could read out of range;
//!   - a load is safe to speculate when its pointer is a module global or an `alloca`
//!     followed by constant indices only, each in range of a fixed-size struct, array,
//!     vector or matrix (no runtime-sized array): it always names valid memory. So a
//!     uniform `load @u.scale` in a guarded loop body is hoisted;
//!   - a loop containing a call or a volatile instruction (`print`, `assert`) hoists no
//!     load: the call could write anything, and either could end the invocation before
//!     the load would have run.
//! - *Never moved*: convergent operations (derivatives, implicit-LOD samples, barriers,
//!   `workgroup_uniform_load`), `clock`, `alloca`, stores, atomics, texture reads and
//!   writes, calls, `print`, `assert`, terminators, and any instruction with semantic
//!   metadata ([`oxir_ir::Metadata::is_annotated`]).
//!
//! **Preheaders.** A loop's preheader is the unique predecessor of its header outside
//! the loop whose only successor is the header. A loop without one, whose header is
//! entered from outside by exactly one edge, gets one when it has something to hoist:
//! a new block placed before the header, holding `br header(args)` with that edge's
//! arguments, which the edge now enters without arguments (`created_preheader_count`).
//! A loop with something to hoist but several entering edges is skipped
//! (`skipped_no_preheader_count`).
//!
//! Counters: `hoisted_inst_count` (pure instructions moved; an instruction hoisted out of
//! two nested loops counts twice), `hoisted_load_count`, `created_preheader_count`,
//! `skipped_no_preheader_count`, `skipped_structured_function_count`.
//!
//! ## What it does not do
//!
//! - Structured functions are skipped, unchanged (their loops' roles are not edges).
//! - It does not sink instructions, promote memory to registers across the loop (no
//!   scalar promotion of a stored location), hoist stores, or version loops; it does
//!   not rotate loops, so a `while` loop's body is not guaranteed to execute and its
//!   non-speculatable loads stay.
//! - It does not remove the redundancy it exposes (an instruction equal to one already
//!   in the preheader stays; `gvn` merges them) nor clean up a preheader it emptied
//!   (`simplify-cfg` threads it).
//!
//! ## Example
//!
//! ```text
//! block0(v0: u32, v1: u32):               block0(v0: u32, v1: u32):
//!     br block1(c0)                           v4: u32 = mul v1, v1
//! block1(v2: u32):                            br block1(c0)
//!     v3: bool = lt v2, v0           ==>  block1(v2: u32):
//!     cond_br v3, block2, block3              v3: bool = lt v2, v0
//! block2:                                     cond_br v3, block2, block3
//!     v4: u32 = mul v1, v1                block2:
//!     v5: u32 = add v2, v4                    v5: u32 = add v2, v4
//!     br block1(v5)                           br block1(v5)
//! ```

use crate::analysis::alias::{alias, AliasResult, PathIndex, PointerPath, Root};
use crate::analysis::loops::{Loop, LoopInfo};
use crate::pass_info;
use crate::util::{contains_structured_control_flow, definitions, has_dynamic_index};
use oxir_ir::effects::is_safe_to_value_number;
use oxir_ir::instructions::{BlockCall, InstData, Payload};
use oxir_ir::ops::EffectClass;
use oxir_ir::types::{AddressSpace, StorageAccess};
use oxir_ir::{Block, Func, Function, Inst, Module, Opcode, Type, TypeData, Value};

pass_info! {
    pass: "licm",
    /// Counters of `licm`.
    pub struct LicmInfo {
        /// Pure instructions moved to a preheader (once per loop they leave).
        hoisted_inst_count,
        /// Loads moved to a preheader (once per loop they leave).
        hoisted_load_count,
        /// Preheaders created for loops entered by a single edge.
        created_preheader_count,
        /// Loops with something to hoist but several edges entering the header.
        skipped_no_preheader_count,
        /// Functions left alone because they hold structured control flow.
        skipped_structured_function_count,
    }
    changed_by: [hoisted_inst_count, hoisted_load_count, created_preheader_count]
}

/// Stores and atomics of one loop checked against each load; beyond this many, only
/// loads of memory no invocation writes are hoisted out of the loop.
pub const MAX_WRITES: usize = 64;

/// Runs [`run_on_function`] on every function with a body.
pub fn run_on_module(module: &mut Module) -> LicmInfo {
    let mut info = LicmInfo::default();
    for func in definitions(module) {
        info.accumulate(&run_on_function(module, func));
    }
    info
}

/// Hoists loop-invariant instructions of one function.
pub fn run_on_function(module: &mut Module, func: Func) -> LicmInfo {
    let mut info = LicmInfo::default();
    let Some(f) = module.functions.get(func) else {
        return info;
    };
    if !f.is_definition() || f.entry_block().is_none() {
        return info;
    }
    if contains_structured_control_flow(f) {
        info.skipped_structured_function_count = 1;
        return info;
    }
    let edges = preheaders_to_create(module, f, &mut info);
    let f = &mut module.functions[func];
    for &(term, index, header) in &edges {
        create_preheader(f, term, index, header);
        info.created_preheader_count += 1;
    }
    let loops = LoopInfo::new(&module.functions[func]);
    let order: Vec<Loop> = loops.loops().collect();
    for &lp in order.iter().rev() {
        let Some(preheader) = loops.data(lp).preheader else {
            continue;
        };
        let f = &module.functions[func];
        let facts = LoopFacts::collect(module, f, &loops, lp);
        let blocks = loops_blocks_in_order(&loops, lp);
        for block in blocks {
            let site = Site {
                loops: &loops,
                lp,
                preheader,
            };
            hoist_block(module, func, &site, &facts, block, &mut info);
        }
    }
    info
}

/// The header edges `(terminator, edge index, header)` that get a new preheader: the
/// only edge entering a loop's header from outside, for loops with no preheader and
/// something to hoist. Loops with several entering edges are counted as skipped.
fn preheaders_to_create(
    module: &Module,
    f: &Function,
    info: &mut LicmInfo,
) -> Vec<(Inst, usize, Block)> {
    let loops = LoopInfo::new(f);
    let mut out = Vec::new();
    for lp in loops.loops() {
        let data = loops.data(lp);
        if data.preheader.is_some() {
            continue;
        }
        let facts = LoopFacts::collect(module, f, &loops, lp);
        let scan = LoopScan {
            module,
            f,
            loops: &loops,
            lp,
            facts: &facts,
        };
        if !scan.has_candidate() {
            continue;
        }
        let mut preds: Vec<Block> = loops
            .cfg()
            .preds(data.header)
            .filter(|&p| !loops.contains(lp, p) && loops.cfg().is_reachable(p))
            .collect();
        preds.sort_unstable();
        preds.dedup();
        let mut entering = Vec::new();
        for pred in preds {
            let Some(term) = f.terminator(pred) else {
                continue;
            };
            for (index, edge) in f.dfg.inst(term).payload.edges().iter().enumerate() {
                if edge.block == data.header {
                    entering.push((term, index, data.header));
                }
            }
        }
        match entering.as_slice() {
            [one] => out.push(*one),
            _ => info.skipped_no_preheader_count += 1,
        }
    }
    out
}

/// Retargets edge `index` of `term` to a new block placed before `header` that jumps to
/// `header` with the edge's former arguments.
fn create_preheader(f: &mut Function, term: Inst, index: usize, header: Block) {
    let preheader = f.dfg.make_block();
    let mut args = Default::default();
    if let Some(edge) = f
        .dfg
        .inst_mut(term)
        .payload
        .edges_mut()
        .into_iter()
        .nth(index)
    {
        args = std::mem::take(&mut edge.args);
        edge.block = preheader;
    }
    f.layout.insert_block_before(preheader, header);
    let jump = InstData::with_payload(
        Opcode::Br,
        &[],
        Payload::Jump(BlockCall {
            block: header,
            args,
        }),
    );
    let inst = f.dfg.make_inst(jump);
    f.layout.append_inst(inst, preheader);
}

/// The blocks of `lp` in reverse post-order (a block after its dominators).
fn loops_blocks_in_order(loops: &LoopInfo, lp: Loop) -> Vec<Block> {
    let cfg = loops.cfg();
    let mut blocks = loops.data(lp).blocks.clone();
    blocks.sort_by_key(|&b| cfg.number(b).and_then(|n| cfg.rpo_position(n)));
    blocks
}

/// The loop being hoisted out of and where its instructions go.
struct Site<'a> {
    loops: &'a LoopInfo,
    lp: Loop,
    preheader: Block,
}

/// Moves every hoistable instruction of `block` (in order) to the end of the preheader.
fn hoist_block(
    module: &mut Module,
    func: Func,
    site: &Site,
    facts: &LoopFacts,
    block: Block,
    info: &mut LicmInfo,
) {
    let insts: Vec<Inst> = module.functions[func].layout.block_insts(block).collect();
    for inst in insts {
        let kind = LoopScan {
            module,
            f: &module.functions[func],
            loops: site.loops,
            lp: site.lp,
            facts,
        }
        .hoistable(inst, block);
        let Some(kind) = kind else { continue };
        let f = &mut module.functions[func];
        let Some(term) = f.terminator(site.preheader) else {
            return;
        };
        f.layout.remove_inst(inst);
        f.layout.insert_inst_before(inst, term);
        match kind {
            Hoist::Pure => info.hoisted_inst_count += 1,
            Hoist::Load => info.hoisted_load_count += 1,
        }
    }
}

/// What a hoisted instruction is.
#[derive(Copy, Clone)]
enum Hoist {
    Pure,
    Load,
}

/// What one loop writes and whether it calls or synchronises; hoisting moves only pure
/// instructions and loads, so these stay true while the loop is processed.
#[derive(Default)]
struct LoopFacts {
    /// Pointers of the loop's stores and atomics; `None` when there are too many.
    writes: Option<Vec<PointerPath>>,
    call_or_volatile: bool,
    barrier: bool,
}

impl LoopFacts {
    fn collect(module: &Module, f: &Function, loops: &LoopInfo, lp: Loop) -> Self {
        let mut facts = LoopFacts {
            writes: Some(Vec::new()),
            ..LoopFacts::default()
        };
        for &block in &loops.data(lp).blocks {
            for inst in f.layout.block_insts(block) {
                facts.record(module, f, inst);
            }
        }
        facts
    }

    fn record(&mut self, module: &Module, f: &Function, inst: Inst) {
        let data = f.dfg.inst(inst);
        match data.opcode.info().effect {
            EffectClass::MemoryWrite | EffectClass::Atomic => {
                let path = data.args.first().map(|&p| PointerPath::of(module, f, p));
                match (&mut self.writes, path) {
                    (Some(writes), Some(path)) if writes.len() < MAX_WRITES => writes.push(path),
                    (writes, _) => *writes = None,
                }
            }
            EffectClass::Call | EffectClass::Volatile => self.call_or_volatile = true,
            EffectClass::Barrier => self.barrier = true,
            EffectClass::Pure
            | EffectClass::MemoryRead
            | EffectClass::ResourceRead
            | EffectClass::ResourceWrite
            | EffectClass::TimeRead
            | EffectClass::Terminator => {}
        }
    }
}

/// One loop of a function as placed now, with its facts: the hoisting decisions.
struct LoopScan<'a> {
    module: &'a Module,
    f: &'a Function,
    loops: &'a LoopInfo,
    lp: Loop,
    facts: &'a LoopFacts,
}

impl LoopScan<'_> {
    /// Whether some instruction of the loop could be hoisted now.
    fn has_candidate(&self) -> bool {
        self.loops.data(self.lp).blocks.iter().any(|&block| {
            self.f
                .layout
                .block_insts(block)
                .any(|inst| self.hoistable(inst, block).is_some())
        })
    }

    /// Whether `inst` (in `block`) may move to the preheader now, and as what.
    fn hoistable(&self, inst: Inst, block: Block) -> Option<Hoist> {
        let f = self.f;
        if f.dfg.metadata(inst).is_some_and(|md| md.is_annotated()) {
            return None;
        }
        let data = f.dfg.inst(inst);
        if !data.args.iter().all(|&v| self.is_outside(v)) {
            return None;
        }
        match data.opcode.info().effect {
            EffectClass::Pure => {
                let ok = is_safe_to_value_number(self.module, f, inst)
                    && (!has_dynamic_index(f, data) || self.is_guaranteed(block));
                ok.then_some(Hoist::Pure)
            }
            EffectClass::MemoryRead => {
                let ptr = PointerPath::of(self.module, f, *data.args.first()?);
                let ok = !self.facts.call_or_volatile
                    && self.is_invariant_memory(&ptr)
                    && (self.is_guaranteed(block) || self.is_speculatable(&ptr));
                ok.then_some(Hoist::Load)
            }
            EffectClass::MemoryWrite
            | EffectClass::Atomic
            | EffectClass::ResourceRead
            | EffectClass::ResourceWrite
            | EffectClass::Barrier
            | EffectClass::Call
            | EffectClass::Volatile
            | EffectClass::TimeRead
            | EffectClass::Terminator => None,
        }
    }

    /// Whether `v` is defined outside the loop (as its instructions are placed now).
    fn is_outside(&self, v: Value) -> bool {
        self.loops.defines_outside(self.f, self.lp, v)
    }

    /// Whether `block` runs whenever the loop is entered, before the loop is left: it
    /// dominates every block with an exit edge (a loop without exits has none).
    fn is_guaranteed(&self, block: Block) -> bool {
        let data = self.loops.data(self.lp);
        let dom = self.loops.dom_tree();
        !data.exits.is_empty()
            && data
                .exits
                .iter()
                .all(|&(from, _)| dom.dominates(block, from))
    }

    /// Whether no write of the loop (or of another invocation it synchronises with) can
    /// change the memory behind `ptr`.
    fn is_invariant_memory(&self, ptr: &PointerPath) -> bool {
        let Some(space) = ptr.space else {
            return false;
        };
        let shared = match space {
            AddressSpace::Uniform
            | AddressSpace::PushConstant
            | AddressSpace::Handle
            | AddressSpace::Storage(StorageAccess::Read) => return true,
            AddressSpace::Function | AddressSpace::Private => false,
            AddressSpace::Workgroup
            | AddressSpace::Storage(StorageAccess::Write | StorageAccess::ReadWrite) => true,
        };
        if shared && self.facts.barrier {
            return false;
        }
        self.facts
            .writes
            .as_ref()
            .is_some_and(|ws| ws.iter().all(|w| alias(w, ptr) == AliasResult::NoAlias))
    }

    /// Whether `ptr` always names valid memory: an identified root and constant indices,
    /// each in range of a fixed-size composite.
    fn is_speculatable(&self, ptr: &PointerPath) -> bool {
        let mut ty = match ptr.root {
            Root::Global(g) => match self.module.globals.get(g) {
                Some(data) => data.ty,
                None => return false,
            },
            Root::Alloca(a) => match self.alloca_pointee(a) {
                Some(ty) => ty,
                None => return false,
            },
            Root::Unknown(_) => return false,
        };
        let last = ptr.path.len().saturating_sub(1);
        for (position, index) in ptr.path.iter().enumerate() {
            let PathIndex::Const(i) = *index else {
                return false;
            };
            match self.member(ty, i, position == last) {
                Some(next) => ty = next,
                None => return false,
            }
        }
        true
    }

    fn alloca_pointee(&self, alloca: Inst) -> Option<Type> {
        let result = self.f.dfg.inst_result(alloca)?;
        match self.module.types.try_get(self.f.dfg.value_type(result))? {
            TypeData::Pointer { pointee, .. } => Some(*pointee),
            _ => None,
        }
    }

    /// The type of element `i` of `ty` when it is in range. Vector lanes and matrix
    /// columns are only followed as the last index (their element type is not needed).
    fn member(&self, ty: Type, i: u64, last: bool) -> Option<Type> {
        match self.module.types.try_get(ty)? {
            TypeData::Struct(s) => s.members.get(usize::try_from(i).ok()?).map(|m| m.ty),
            TypeData::Array { elem, len, .. } => (i < u64::from(*len)).then_some(*elem),
            TypeData::Vector { len, .. } => (last && i < u64::from(*len)).then_some(ty),
            TypeData::Matrix { columns, .. } => (last && i < u64::from(*columns)).then_some(ty),
            TypeData::Void
            | TypeData::Scalar(_)
            | TypeData::RuntimeArray { .. }
            | TypeData::Pointer { .. }
            | TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. }
            | TypeData::Opaque(_) => None,
        }
    }
}
