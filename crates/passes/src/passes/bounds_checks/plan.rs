//! Deciding, without changing anything, which indices need a check and which memory
//! operations need a guard (the pass refuses before its first mutation).

use super::{BoundsChecksInfo, BoundsPolicy, CheckClass, Policy};
use crate::analysis::dominators::DomTree;
use crate::const_values::scalar_or_vector;
use cranelift_entity::SecondaryMap;
use oxir_ir::constants::ConstStore;
use oxir_ir::function::FunctionKind;
use oxir_ir::types::TypeStore;
use oxir_ir::{
    AddressSpace, Block, Builtin, ConstKind, Func, Function, Inst, InstData, Module, Opcode,
    Payload, Scalar, ScalarKind, StageBinding, TypeData, Value, ValueDef,
};

/// Which entry of [`FunctionPlan::accesses`] plans an `access` instruction (dense, by
/// instruction number).
type AccessIndex = SecondaryMap<Inst, Option<usize>>;

mod texture;

pub(super) use texture::{TextureBound, TexturePlan};

/// How far up the dominator tree conditions are collected (keeps the pass linear).
const MAX_FACT_DEPTH: usize = 256;
/// How deep an `and` tree of conditions is split.
const MAX_AND_DEPTH: usize = 8;

/// What bounds an index.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    /// `N` elements.
    Fixed(u64),
    /// `array_length` of this pointer.
    Runtime(Value),
}

/// The checks of one `access`.
#[derive(Clone, Debug)]
pub(super) struct AccessPlan {
    pub inst: Inst,
    pub class: CheckClass,
    pub policy: Policy,
    /// Operand positions with a fixed bound to clamp (and, under read-zero, to test).
    pub fixed: Vec<(usize, u64)>,
    /// Under `restrict`: the operand position of a runtime-sized index to clamp.
    pub runtime_clamp: Option<usize>,
}

/// How a guarded memory operation is guarded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Form {
    /// `select ok, result, zero` after the operation.
    Select,
    /// The operation moves into a block entered when `ok` holds.
    Branch,
    /// Nothing beyond the clamps (a resource handle load).
    ClampOnly,
}

/// One load, store, atomic or workgroup-uniform load through checked accesses.
#[derive(Clone, Debug)]
pub(super) struct OpPlan {
    pub inst: Inst,
    /// The accesses of the pointer's chain whose fixed tests apply here.
    pub chain: Vec<Inst>,
    /// Runtime-sized indices to test here: the access and the operand position.
    pub runtime: Vec<(Inst, usize)>,
    pub form: Form,
}

/// One `extract_dynamic` / `insert_dynamic` to check.
#[derive(Clone, Debug)]
pub(super) struct ValuePlan {
    pub inst: Inst,
    pub policy: Policy,
    pub index_pos: usize,
    pub len: u64,
}

/// Everything to emit in one function.
#[derive(Clone, Debug, Default)]
pub(super) struct FunctionPlan {
    pub accesses: Vec<AccessPlan>,
    pub ops: Vec<OpPlan>,
    pub values: Vec<ValuePlan>,
    pub textures: Vec<TexturePlan>,
    /// An access whose checked pointer escapes the checks (see [`escaping_access`]): the
    /// pass refuses the module.
    pub escaping: Option<Inst>,
}

impl FunctionPlan {
    pub fn is_empty(&self) -> bool {
        self.accesses.is_empty()
            && self.ops.is_empty()
            && self.values.is_empty()
            && self.textures.is_empty()
    }
}

/// The class of a pointer into `space`.
pub(super) fn class_of(space: AddressSpace) -> CheckClass {
    match space {
        AddressSpace::Storage(_)
        | AddressSpace::Uniform
        | AddressSpace::PushConstant
        | AddressSpace::Handle => CheckClass::Buffers,
        AddressSpace::Function | AddressSpace::Private | AddressSpace::Workgroup => {
            CheckClass::Memory
        }
    }
}

/// The unsigned scalar of an index's width; `None` for non-integers.
pub(super) fn unsigned_of(s: Scalar) -> Option<Scalar> {
    match s.kind {
        ScalarKind::Sint | ScalarKind::Uint => Some(Scalar {
            kind: ScalarKind::Uint,
            bits: s.bits,
        }),
        ScalarKind::Bool | ScalarKind::Float => None,
    }
}

fn max_of(s: Scalar) -> u64 {
    if s.bits >= 64 {
        u64::MAX
    } else {
        (1u64 << s.bits) - 1
    }
}

/// Read-only questions about one function's values.
pub(super) struct Facts<'a> {
    func: &'a Function,
    types: &'a TypeStore,
    consts: &'a ConstStore,
    dom: DomTree,
}

impl<'a> Facts<'a> {
    fn new(func: &'a Function, types: &'a TypeStore, consts: &'a ConstStore) -> Self {
        Facts {
            func,
            types,
            consts,
            dom: DomTree::new(func),
        }
    }

    fn def(&self, v: Value) -> Option<&'a InstData> {
        match self.func.dfg.value_def(v) {
            ValueDef::Result(inst) => Some(self.func.dfg.inst(inst)),
            ValueDef::Param(..)
            | ValueDef::Const(_)
            | ValueDef::Global(_)
            | ValueDef::Alias(_)
            | ValueDef::Detached => None,
        }
    }

    fn scalar(&self, v: Value) -> Option<Scalar> {
        self.types.get(self.func.dfg.value_type(v)).as_scalar()
    }

    /// The value of an integer constant as an unsigned number; `None` for a negative
    /// signed constant or a non-constant.
    fn const_u64(&self, v: Value) -> Option<u64> {
        let ValueDef::Const(c) = self.func.dfg.value_def(v) else {
            return None;
        };
        let s = self.scalar(v)?;
        let bits = match self.consts.try_get(c)?.kind {
            ConstKind::Scalar(bits) => bits,
            ConstKind::Zero => 0,
            ConstKind::Composite(_) | ConstKind::Undef => return None,
        };
        match s.kind {
            ScalarKind::Sint if (bits as i64) < 0 => None,
            ScalarKind::Sint | ScalarKind::Uint => Some(bits),
            ScalarKind::Bool | ScalarKind::Float => None,
        }
    }

    /// The lane scalar of a scalar or vector value.
    fn lane_scalar(&self, v: Value) -> Option<Scalar> {
        scalar_or_vector(self.types, self.func.dfg.value_type(v)).map(|(s, _)| s)
    }

    /// Whether `v` is an unsigned integer scalar or vector.
    fn is_unsigned(&self, v: Value) -> bool {
        self.lane_scalar(v)
            .is_some_and(|s| s.kind == ScalarKind::Uint)
    }

    /// Whether `wide` has `narrow`'s lane kind and at least its width, so that a
    /// `convert` from `narrow` to it keeps every value.
    fn widens(&self, wide: Value, narrow: Value) -> bool {
        match (self.lane_scalar(wide), self.lane_scalar(narrow)) {
            (Some(w), Some(n)) => w.kind == n.kind && w.bits >= n.bits && n.is_integer(),
            (Some(_), None) | (None, Some(_)) | (None, None) => false,
        }
    }

    fn same(&self, a: Value, b: Value) -> bool {
        self.func.dfg.resolve(a) == self.func.dfg.resolve(b)
    }

    /// Whether `idx` is below `n` whatever runs: a constant, an index type too narrow to
    /// reach `n`, or an index clamped by `min`, `and`, `rem` or `clamp`.
    pub fn statically_below(&self, idx: Value, n: u64) -> bool {
        let Some(s) = self.scalar(idx) else {
            return false;
        };
        if let Some(k) = self.const_u64(idx) {
            return k < n;
        }
        if let Some(max) = self.invocation_id_max(idx) {
            return max < n;
        }
        let unsigned = s.kind == ScalarKind::Uint;
        if unsigned && max_of(s) < n {
            return true;
        }
        let Some(data) = self.def(idx) else {
            return false;
        };
        let konst = |i: usize| data.args.get(i).and_then(|&a| self.const_u64(a));
        let either = || konst(0).or(konst(1));
        match data.opcode {
            Opcode::Min if unsigned => either().is_some_and(|k| k < n),
            Opcode::And => either().is_some_and(|k| k < n),
            Opcode::Rem if unsigned => konst(1).is_some_and(|k| k > 0 && k <= n),
            Opcode::Clamp => match (konst(1), konst(2)) {
                (Some(lo), Some(hi)) => lo <= hi && hi < n,
                _ => false,
            },
            // wildcard-ok: every other op gives no static range
            _ => false,
        }
    }

    /// The largest value of a kernel's local invocation index, or of one component of its
    /// local invocation id (`extract` of the built-in parameter or of `thread_id`): one
    /// less than the workgroup size (or its product). `None` for anything else, and for a
    /// size a pipeline may specialise (its default proves nothing).
    fn invocation_id_max(&self, v: Value) -> Option<u64> {
        let FunctionKind::Kernel {
            workgroup_size,
            workgroup_spec_ids,
        } = self.func.kind
        else {
            return None;
        };
        if workgroup_spec_ids.iter().any(Option::is_some) {
            return None;
        }
        let [x, y, z] = workgroup_size.map(u64::from);
        let invocations = x.checked_mul(y)?.checked_mul(z)?;
        let builtin_of = |v: Value| match self.func.dfg.value_def(self.func.dfg.resolve(v)) {
            ValueDef::Param(block, index) if Some(block) == self.func.entry_block() => {
                match self
                    .func
                    .signature
                    .params
                    .get(usize::try_from(index).ok()?)?
                    .binding
                {
                    Some(StageBinding::Builtin(b)) => Some(b),
                    Some(StageBinding::Location { .. }) | None => None,
                }
            }
            ValueDef::Param(..)
            | ValueDef::Result(_)
            | ValueDef::Const(_)
            | ValueDef::Global(_)
            | ValueDef::Alias(_)
            | ValueDef::Detached => None,
        };
        if builtin_of(v) == Some(Builtin::LocalInvocationIndex) {
            return invocations.checked_sub(1);
        }
        let data = self.def(self.func.dfg.resolve(v))?;
        match data.opcode {
            Opcode::LocalInvocationIndex => invocations.checked_sub(1),
            Opcode::Extract => {
                let &[lane] = data.payload.indices() else {
                    return None;
                };
                let of = *data.args.first()?;
                let local_id = builtin_of(of) == Some(Builtin::LocalInvocationId)
                    || self.def(self.func.dfg.resolve(of)).map(|d| d.opcode)
                        == Some(Opcode::ThreadId);
                let size = [x, y, z].get(usize::try_from(lane).ok()?).copied()?;
                local_id.then(|| size.checked_sub(1)).flatten()
            }
            // wildcard-ok: only the invocation-id registers and their lanes have a range here
            _ => None,
        }
    }

    /// Whether `idx` is `min(x, array_length(base) - 1)` (a runtime-sized clamp).
    pub fn runtime_clamped(&self, idx: Value, base: Value) -> bool {
        let Some(data) = self.def(idx).filter(|d| d.opcode == Opcode::Min) else {
            return false;
        };
        data.args.iter().any(|&a| {
            self.def(a).is_some_and(|sub| {
                sub.opcode == Opcode::Sub
                    && sub.args.get(1).and_then(|&k| self.const_u64(k)) == Some(1)
                    && sub
                        .args
                        .first()
                        .is_some_and(|&l| self.is_length_of(l, base))
            })
        })
    }

    fn is_length_of(&self, v: Value, base: Value) -> bool {
        self.def(v).is_some_and(|d| {
            d.opcode == Opcode::ArrayLength && d.args.first().is_some_and(|&b| self.same(b, base))
        })
    }

    /// The conditions known true in `block`: those on the only edge into a block that
    /// dominates it (the then-edge of a `cond_br`), split at `and`.
    pub fn known_at(&self, block: Block) -> Vec<Value> {
        let cfg = self.dom.cfg();
        let mut out = Vec::new();
        let mut cursor = Some(block);
        for _ in 0..MAX_FACT_DEPTH {
            let Some(b) = cursor else { break };
            if cfg.pred_count(b) == 1 {
                if let Some(cond) = cfg.preds(b).next().and_then(|p| self.then_condition(p, b)) {
                    self.split_and(cond, MAX_AND_DEPTH, &mut out);
                }
            }
            cursor = self.dom.idom(b);
        }
        out
    }

    fn then_condition(&self, pred: Block, target: Block) -> Option<Value> {
        let term = self.func.dfg.inst(self.func.terminator(pred)?);
        match &term.payload {
            Payload::CondBranch {
                then_dest,
                else_dest,
            } if term.opcode == Opcode::CondBr
                && then_dest.block == target
                && else_dest.block != target =>
            {
                term.args.first().copied()
            }
            // wildcard-ok: only a cond_br's then-edge carries a known condition
            _ => None,
        }
    }

    fn split_and(&self, cond: Value, depth: usize, out: &mut Vec<Value>) {
        match self.def(cond) {
            Some(d) if d.opcode == Opcode::And && depth > 0 && d.args.len() == 2 => {
                self.split_and(d.args[0], depth - 1, out);
                self.split_and(d.args[1], depth - 1, out);
            }
            Some(_) | None => out.push(cond),
        }
    }

    /// Whether one of `known` says `idx < bound` (compared unsigned).
    pub fn bounded_by(&self, known: &[Value], idx: Value, bound: Bound) -> bool {
        known.iter().any(|&fact| {
            let Some(d) = self.def(fact) else {
                return false;
            };
            let (lhs, rhs) = match (d.opcode, d.args.as_slice()) {
                (Opcode::Lt, [a, b]) => (*a, *b),
                (Opcode::Gt, [b, a]) => (*a, *b),
                // wildcard-ok: other conditions bound nothing
                _ => return false,
            };
            self.is_unsigned_view(lhs, idx)
                && match bound {
                    Bound::Fixed(n) => self.const_u64(rhs).is_some_and(|k| k <= n),
                    Bound::Runtime(base) => self.is_length_of(rhs, base),
                }
        })
    }

    /// `v` is `idx` (unsigned) or `bitcast idx` to an unsigned type.
    fn is_unsigned_view(&self, v: Value, idx: Value) -> bool {
        if self.scalar(v).map(|s| s.kind) != Some(ScalarKind::Uint) {
            return false;
        }
        self.same(v, idx)
            || self.def(v).is_some_and(|d| {
                d.opcode == Opcode::Bitcast && d.args.first().is_some_and(|&x| self.same(x, idx))
            })
    }

    fn in_range(&self, known: &[Value], idx: Value, n: u64) -> bool {
        self.statically_below(idx, n) || self.bounded_by(known, idx, Bound::Fixed(n))
    }

    fn block_of(&self, inst: Inst) -> Option<Block> {
        self.func.layout.inst_block(inst)
    }
}

/// The plan of `func`, counting redundant checks into `info`; `None` for a function
/// without a body.
pub(super) fn plan_function(
    module: &mut Module,
    func: Func,
    policy: &BoundsPolicy,
    info: &mut BoundsChecksInfo,
) -> Option<FunctionPlan> {
    intern_element_types(module, func);
    let function = module.functions.get(func)?;
    function.entry_block()?;
    let facts = Facts::new(function, &module.types, &module.consts);
    let mut plan = FunctionPlan::default();
    let mut access_index = AccessIndex::with_default(None);
    let insts: Vec<Inst> = function
        .layout
        .blocks()
        .flat_map(|b| function.layout.block_insts(b))
        .collect();
    for &inst in &insts {
        let data = function.dfg.inst(inst);
        match data.opcode {
            Opcode::Access => {
                if let Some(a) = plan_access(&facts, inst, policy, info) {
                    access_index[inst] = Some(plan.accesses.len());
                    plan.accesses.push(a);
                }
            }
            Opcode::ExtractDynamic | Opcode::InsertDynamic => {
                if let Some(v) = plan_value(&facts, inst, policy, info) {
                    plan.values.push(v);
                }
            }
            Opcode::TextureLoad | Opcode::TextureStore | Opcode::TextureDimensions => {
                if let Some(t) = texture::plan_texture(&facts, inst, policy, info) {
                    plan.textures.push(t);
                }
            }
            // wildcard-ok: memory operations are planned below, other ops have no index
            _ => {}
        }
    }
    for &inst in &insts {
        if let Some(op) = plan_op(&facts, inst, policy, &plan, &access_index, info) {
            plan.ops.push(op);
        }
    }
    plan.escaping = escaping_access(&facts, &insts, policy, &plan, &access_index);
    Some(plan)
}

/// Element types of vectors and matrices are interned up front, so that the read-only
/// planning can walk `access` chains (interning never changes existing types).
fn intern_element_types(module: &mut Module, func: Func) {
    if module.functions.get(func).is_none() {
        return;
    }
    let mut wanted = Vec::new();
    for (_, data) in module.types.iter() {
        match data {
            TypeData::Vector { elem, .. } => wanted.push(TypeData::Scalar(*elem)),
            TypeData::Matrix { elem, rows, .. } => wanted.push(TypeData::Vector {
                elem: *elem,
                len: *rows,
            }),
            // wildcard-ok: only vectors and matrices have derived element types
            _ => {}
        }
    }
    for data in wanted {
        module.types.intern(data);
    }
}

fn pointee_and_space(facts: &Facts<'_>, ptr: Value) -> Option<(AddressSpace, oxir_ir::Type)> {
    match facts.types.get(facts.func.dfg.value_type(ptr)) {
        TypeData::Pointer { space, pointee } => Some((*space, *pointee)),
        // wildcard-ok: a non-pointer has no pointee
        _ => None,
    }
}

fn find_type(types: &TypeStore, data: &TypeData) -> Option<oxir_ir::Type> {
    types.iter().find(|(_, d)| *d == data).map(|(t, _)| t)
}

fn plan_access(
    facts: &Facts<'_>,
    inst: Inst,
    policy: &BoundsPolicy,
    info: &mut BoundsChecksInfo,
) -> Option<AccessPlan> {
    let data = facts.func.dfg.inst(inst);
    let base = *data.args.first()?;
    let (space, mut ty) = pointee_and_space(facts, base)?;
    let class = class_of(space);
    let pol = policy.get(class);
    if pol == Policy::Unchecked {
        return None;
    }
    let known = facts.known_at(facts.block_of(inst)?);
    let mut plan = AccessPlan {
        inst,
        class,
        policy: pol,
        fixed: Vec::new(),
        runtime_clamp: None,
    };
    for (pos, &idx) in data.args.iter().enumerate().skip(1) {
        let (next, bound) = match facts.types.get(ty) {
            TypeData::Struct(st) => {
                let k = facts.const_u64(idx)?;
                (st.members.get(k as usize)?.ty, None)
            }
            TypeData::Array { elem, len, .. } => (*elem, Some(Bound::Fixed(u64::from(*len)))),
            TypeData::RuntimeArray { elem, .. } => (*elem, Some(Bound::Runtime(base))),
            TypeData::Vector { elem, len } => (
                find_type(facts.types, &TypeData::Scalar(*elem))?,
                Some(Bound::Fixed(u64::from(*len))),
            ),
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => (
                find_type(
                    facts.types,
                    &TypeData::Vector {
                        elem: *elem,
                        len: *rows,
                    },
                )?,
                Some(Bound::Fixed(u64::from(*columns))),
            ),
            // wildcard-ok: the verifier admits no other type under `access`
            _ => return None,
        };
        match bound {
            None => {}
            Some(Bound::Fixed(n)) => {
                if facts.in_range(&known, idx, n) {
                    info.count_redundant(class);
                } else {
                    plan.fixed.push((pos, n));
                }
            }
            Some(Bound::Runtime(base))
                if pol == Policy::Restrict
                    && !facts.runtime_clamped(idx, base)
                    && !facts.bounded_by(&known, idx, Bound::Runtime(base)) =>
            {
                plan.runtime_clamp = Some(pos);
            }
            Some(Bound::Runtime(_)) => {}
        }
        ty = next;
    }
    (!plan.fixed.is_empty() || plan.runtime_clamp.is_some()).then_some(plan)
}

/// Runtime-sized indices of `access` `inst` (operand positions).
fn runtime_positions(facts: &Facts<'_>, inst: Inst) -> Vec<(usize, Value)> {
    let data = facts.func.dfg.inst(inst);
    let Some(&base) = data.args.first() else {
        return Vec::new();
    };
    let Some((_, pointee)) = pointee_and_space(facts, base) else {
        return Vec::new();
    };
    match facts.types.get(pointee) {
        TypeData::RuntimeArray { .. } if data.args.len() > 1 => vec![(1, base)],
        TypeData::Struct(st) if data.args.len() > 2 => {
            let last = st.members.len().checked_sub(1);
            let runtime_last = st
                .members
                .last()
                .is_some_and(|m| matches!(facts.types.get(m.ty), TypeData::RuntimeArray { .. }));
            match facts.const_u64(data.args[1]) {
                Some(k) if runtime_last && Some(k as usize) == last => vec![(2, base)],
                Some(_) | None => Vec::new(),
            }
        }
        // wildcard-ok: only these two shapes reach a runtime-sized array
        _ => Vec::new(),
    }
}

fn plan_op(
    facts: &Facts<'_>,
    inst: Inst,
    policy: &BoundsPolicy,
    plan: &FunctionPlan,
    access_index: &AccessIndex,
    info: &mut BoundsChecksInfo,
) -> Option<OpPlan> {
    let data = facts.func.dfg.inst(inst);
    let is_memory_op = matches!(
        data.opcode,
        Opcode::Load | Opcode::Store | Opcode::WorkgroupUniformLoad
    ) || data.opcode.is_atomic();
    if !is_memory_op {
        return None;
    }
    let mut chain = Vec::new();
    let mut runtime = Vec::new();
    let mut ptr = *data.args.first()?;
    let known = facts.known_at(facts.block_of(inst)?);
    // Walk the pointer's chain of accesses up to its root.
    for _ in 0..facts.func.dfg.num_insts() {
        let ValueDef::Result(a) = facts.func.dfg.value_def(ptr) else {
            break;
        };
        let adata = facts.func.dfg.inst(a);
        if adata.opcode != Opcode::Access {
            break;
        }
        let base = *adata.args.first()?;
        let (space, _) = pointee_and_space(facts, base)?;
        let cls = class_of(space);
        let pol = policy.get(cls);
        let planned = access_index[a].and_then(|i| plan.accesses.get(i));
        if planned.is_some_and(|p| p.policy == Policy::ReadZeroSkipWrite && !p.fixed.is_empty()) {
            chain.push(a);
        }
        for (pos, rbase) in runtime_positions(facts, a) {
            let Some(&idx) = adata.args.get(pos) else {
                continue;
            };
            if pol == Policy::Unchecked {
                continue;
            }
            if pol == Policy::Restrict && planned.is_none_or(|p| p.runtime_clamp != Some(pos)) {
                // Already clamped (or bounded where the access is): test only if the
                // clamp could be of an empty array.
                if !facts.runtime_clamped(idx, rbase)
                    || facts.bounded_by(&known, idx, Bound::Runtime(rbase))
                {
                    info.count_redundant(cls);
                    continue;
                }
            } else if pol == Policy::ReadZeroSkipWrite
                && facts.bounded_by(&known, idx, Bound::Runtime(rbase))
            {
                info.count_redundant(cls);
                continue;
            }
            runtime.push((a, pos));
        }
        ptr = base;
    }
    if chain.is_empty() && runtime.is_empty() {
        return None;
    }
    let result_is_resource = facts
        .func
        .dfg
        .inst_result(inst)
        .is_some_and(|r| facts.types.get(facts.func.dfg.value_type(r)).is_resource());
    let form = match data.opcode {
        _ if result_is_resource => Form::ClampOnly,
        Opcode::WorkgroupUniformLoad => Form::Select,
        Opcode::Load if runtime.is_empty() => Form::Select,
        // wildcard-ok: stores, atomics and runtime-array loads are branched around
        _ => Form::Branch,
    };
    Some(OpPlan {
        inst,
        chain,
        runtime,
        form,
    })
}

fn plan_value(
    facts: &Facts<'_>,
    inst: Inst,
    policy: &BoundsPolicy,
    info: &mut BoundsChecksInfo,
) -> Option<ValuePlan> {
    let pol = policy.values;
    if pol == Policy::Unchecked {
        return None;
    }
    let data = facts.func.dfg.inst(inst);
    let index_pos = match data.opcode {
        Opcode::ExtractDynamic => 1,
        // wildcard-ok: the caller passes only extract_dynamic and insert_dynamic
        _ => 2,
    };
    let aggregate = facts.func.dfg.value_type(*data.args.first()?);
    let len = match facts.types.get(aggregate) {
        TypeData::Vector { len, .. } => u64::from(*len),
        TypeData::Matrix { columns, .. } => u64::from(*columns),
        TypeData::Array { len, .. } => u64::from(*len),
        // wildcard-ok: the verifier admits no other aggregate
        _ => return None,
    };
    let idx = *data.args.get(index_pos)?;
    let known = facts.known_at(facts.block_of(inst)?);
    if facts.in_range(&known, idx, len) {
        info.count_redundant(CheckClass::Values);
        return None;
    }
    Some(ValuePlan {
        inst,
        policy: pol,
        index_pos,
        len,
    })
}

/// The first `access` whose result is used other than as the pointer of a load, store,
/// atomic, `workgroup_uniform_load`, `array_length` or further `access` — passed through a
/// block parameter or `select`, to a call, or anything else — while its chain needs a
/// guard at the memory operation: a fixed-size index under `read-zero-skip-write` (the
/// test of which the use would not see), or a runtime-sized index under any checking
/// policy (`read-zero-skip-write` tests it at the use; `restrict` clamps it to
/// `array_length - 1`, which is no element when the array is empty). Guards are placed by
/// following a pointer's `access` chain from the memory operation, which cannot see
/// through those uses, so the pass refuses rather than let such an access reach the
/// target unguarded. A fixed-size clamp (`restrict`) is complete at the access and never
/// refused.
fn escaping_access(
    facts: &Facts<'_>,
    insts: &[Inst],
    policy: &BoundsPolicy,
    plan: &FunctionPlan,
    access_index: &AccessIndex,
) -> Option<Inst> {
    let dfg = &facts.func.dfg;
    let mut escaping = std::collections::HashSet::new();
    for &inst in insts {
        let data = dfg.inst(inst);
        let pointer_use = matches!(
            data.opcode,
            Opcode::Load
                | Opcode::Store
                | Opcode::WorkgroupUniformLoad
                | Opcode::ArrayLength
                | Opcode::Access
        ) || data.opcode.is_atomic();
        for (k, v) in data.all_values().enumerate() {
            if !(k == 0 && pointer_use) {
                escaping.insert(dfg.resolve(v));
            }
        }
    }
    insts.iter().copied().find(|&inst| {
        dfg.inst(inst).opcode == Opcode::Access
            && dfg
                .inst_result(inst)
                .is_some_and(|r| escaping.contains(&dfg.resolve(r)))
            && chain_needs_guard(facts, inst, policy, plan, access_index)
    })
}

/// Whether some access of the chain ending in `access` needs a guard at the memory
/// operation (see [`escaping_access`]).
fn chain_needs_guard(
    facts: &Facts<'_>,
    access: Inst,
    policy: &BoundsPolicy,
    plan: &FunctionPlan,
    access_index: &AccessIndex,
) -> bool {
    let mut a = access;
    for _ in 0..facts.func.dfg.num_insts() {
        let data = facts.func.dfg.inst(a);
        if data.opcode != Opcode::Access {
            return false;
        }
        let planned = access_index[a].and_then(|i| plan.accesses.get(i));
        if planned.is_some_and(|p| p.policy == Policy::ReadZeroSkipWrite && !p.fixed.is_empty()) {
            return true;
        }
        let Some(&base) = data.args.first() else {
            return false;
        };
        let checked = pointee_and_space(facts, base)
            .is_some_and(|(space, _)| policy.get(class_of(space)) != Policy::Unchecked);
        if checked && !runtime_positions(facts, a).is_empty() {
            return true;
        }
        let ValueDef::Result(next) = facts.func.dfg.value_def(base) else {
            return false;
        };
        a = next;
    }
    false
}
