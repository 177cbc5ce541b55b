//! The executor: dispatch, invocations, frames, memory access and the pre-decoded fast
//! path; [`step`] executes every instruction the fast path does not.

mod step;
mod subgroup;
#[cfg(test)]
mod tests;
mod texture_op;

use crate::error::{ErrorKind, Location, MemoryOp};
use crate::memory::{self, Layouts};
use crate::scalar::{self, lane_op, LaneOp};
use crate::value::{Lanes, Ptr, Region, Val, POISON};
use crate::{Error, Options, OutOfBounds, StageInputs};
use cranelift_entity::SecondaryMap;
use oxir_ir::data_layout::LayoutRules;
use oxir_ir::function::Builtin;
use oxir_ir::types::TypeStore;
use oxir_ir::{
    AddressSpace, Block, BlockCall, ConstKind, Func, Function, Global, Inst, InstData, Module,
    Opcode, Payload, Scalar, StageBinding, Type, TypeData, Value, ValueDef,
};
use smallvec::SmallVec;

/// Pre-decoded per-function data: instruction lists per block and the initial value
/// table (constants and global addresses filled in). The value table stays a `Vec`
/// indexed by value number: the fast forms hold those numbers as `u32`.
#[derive(Clone)]
struct FuncCode {
    blocks: SecondaryMap<Block, Vec<Inst>>,
    template: Vec<Val>,
    /// Per block, per position: the pre-decoded fast form of each instruction.
    block_fast: SecondaryMap<Block, Vec<Fast>>,
    terms: Vec<Term>,
}

/// The pre-decoded form of scalar lane operations: operand and result value indices
/// (aliases resolved) and the operand scalar type, so the common case runs without
/// touching the data-flow graph or the type store.
#[derive(Clone, Copy, Default)]
enum Fast {
    #[default]
    None,
    /// A scalar load; served here from function and private memory.
    Load { p: u32, s: Scalar, size: u8, r: u32 },
    /// A scalar store; served here to function and private memory.
    Store { p: u32, v: u32, size: u8 },
    /// A binary lane operation specialised to its scalar type.
    BinaryFn {
        f: fn(u64, u64) -> u64,
        a: u32,
        b: u32,
        r: u32,
    },
    Binary {
        op: Opcode,
        s: Scalar,
        a: u32,
        b: u32,
        r: u32,
    },
    Unary {
        op: Opcode,
        s: Scalar,
        a: u32,
        r: u32,
    },
    /// `br` / `break` / `continue` / `loop` / `simple_loop` (no condition) or `cond_br` /
    /// `if`: an index into [`FuncCode::terms`].
    Jump(u32),
}

#[derive(Clone)]
struct Edge {
    block: Block,
    /// (parameter, argument) value indices.
    moves: SmallVec<[(u32, u32); 2]>,
    /// No parameter is also an argument: the moves may run one after another.
    sequential: bool,
}

#[derive(Clone)]
struct Term {
    cond: Option<u32>,
    then: Edge,
    otherwise: Option<Edge>,
}

struct Frame {
    func: Func,
    block: Block,
    pos: usize,
    vals: Vec<Val>,
    /// The caller's value receiving the result.
    ret_to: Option<Value>,
    alloca_mark: usize,
}

/// Special-register values of one invocation.
#[derive(Clone, Copy, Default)]
pub(crate) struct Regs {
    pub local_id: [u32; 3],
    pub group_id: [u32; 3],
    pub local_index: u32,
    pub wg_size: [u32; 3],
    pub num_groups: [u32; 3],
}

impl Regs {
    /// The invocation's lane: subgroups are runs of `size` consecutive local indices.
    pub fn subgroup_lane(&self, size: u32) -> u32 {
        self.local_index % size.max(1)
    }

    /// Which subgroup of the workgroup the invocation is in.
    pub fn subgroup_id(&self, size: u32) -> u32 {
        self.local_index / size.max(1)
    }

    /// The workgroup's subgroup count: its invocations over `size`, rounded up (the
    /// last subgroup may be partial).
    pub fn num_subgroups(&self, size: u32) -> u32 {
        let invocations =
            u64::from(self.wg_size[0]) * u64::from(self.wg_size[1]) * u64::from(self.wg_size[2]);
        let count = invocations.div_ceil(u64::from(size.max(1)));
        u32::try_from(count).unwrap_or(u32::MAX)
    }
}

pub(crate) enum Status {
    Running,
    Barrier(Func, Inst),
    /// Waits at a subgroup op for the other active lanes (see [`subgroup`]).
    Subgroup,
    Done(Vec<Val>),
    Discarded,
}

pub(crate) struct Invocation {
    frames: Vec<Frame>,
    private: Vec<Vec<u8>>,
    allocas: Vec<Vec<u8>>,
    regs: Regs,
    resume_barrier: bool,
    /// The result of the subgroup op the invocation waited at, once resolved.
    subgroup_result: Option<Val>,
    pub(crate) status: Status,
}

#[derive(Default)]
pub(crate) struct Group {
    mem: Vec<Vec<u8>>,
    allocas: Vec<Vec<u8>>,
    /// Allocation number of each workgroup-space `alloca` executed, by function and
    /// instruction.
    alloca_ids: SecondaryMap<Func, SecondaryMap<Inst, Option<u32>>>,
}

pub(crate) struct Machine<'m> {
    pub module: &'m Module,
    funcs: SecondaryMap<Func, Option<FuncCode>>,
    pub layouts: Layouts,
    /// Buffer bytes per global (empty for globals that are not buffers).
    pub buffers: SecondaryMap<Global, Vec<u8>>,
    pub options: Options,
    pub executed: u64,
    /// Bytes of variable memory the current workgroup holds (see
    /// [`Options::max_memory_bytes`]).
    memory_in_use: u64,
    pub stage: StageInputs,
    pub prints: Vec<String>,
    /// Textures and samplers per global (handle globals only).
    pub textures: SecondaryMap<Global, Option<crate::texture::Texture>>,
    pub samplers: SecondaryMap<Global, Option<crate::texture::Sampler>>,
}

fn vec3(v: [u32; 3]) -> Val {
    Val::V(v.iter().map(|&x| u64::from(x)).collect())
}

impl<'m> Machine<'m> {
    pub fn new(module: &'m Module, options: Options) -> Self {
        let mut m = Machine {
            module,
            funcs: SecondaryMap::new(),
            layouts: Layouts::default(),
            buffers: SecondaryMap::with_capacity(module.globals.len()),
            options,
            executed: 0,
            memory_in_use: 0,
            stage: StageInputs::default(),
            prints: Vec::new(),
            textures: SecondaryMap::with_capacity(module.globals.len()),
            samplers: SecondaryMap::with_capacity(module.globals.len()),
        };
        for (func, f) in module.functions.iter() {
            m.funcs[func] = f.is_definition().then(|| m.decode(f));
        }
        m
    }

    fn types(&self) -> &'m TypeStore {
        &self.module.types
    }

    fn decode(&mut self, f: &Function) -> FuncCode {
        let mut blocks: SecondaryMap<Block, Vec<Inst>> =
            SecondaryMap::with_capacity(f.dfg.blocks.len());
        for b in f.layout.blocks() {
            blocks[b] = f.layout.block_insts(b).collect();
        }
        let mut template = vec![Val::Undef; f.dfg.values.len()];
        for (v, data) in f.dfg.values.iter() {
            template[v.as_u32() as usize] = match data.def {
                ValueDef::Const(c) => self.const_val(c),
                ValueDef::Global(g) => {
                    let gi = g.as_u32();
                    let region = match self.module.globals[g].space {
                        AddressSpace::Workgroup => Region::Workgroup(gi),
                        AddressSpace::Private | AddressSpace::Function => Region::Private(gi),
                        AddressSpace::Storage(_)
                        | AddressSpace::Uniform
                        | AddressSpace::PushConstant
                        | AddressSpace::Handle => Region::Buffer(gi),
                    };
                    Val::P(Ptr { region, offset: 0 })
                }
                ValueDef::Result(_)
                | ValueDef::Param(..)
                | ValueDef::Alias(_)
                | ValueDef::Detached => Val::Undef,
            };
        }
        let types = &self.module.types;
        let mut fast: SecondaryMap<Inst, Fast> = SecondaryMap::with_capacity(f.dfg.insts.len());
        let mut terms = Vec::new();
        let edge = |e: &BlockCall| {
            let moves: SmallVec<[(u32, u32); 2]> = f
                .dfg
                .block_params(e.block)
                .iter()
                .zip(&e.args)
                .map(|(p, a)| (p.as_u32(), f.dfg.resolve(*a).as_u32()))
                .collect();
            let sequential = moves
                .iter()
                .all(|&(p, _)| moves.iter().all(|&(_, a)| a != p));
            Edge {
                block: e.block,
                moves,
                sequential,
            }
        };
        for b in f.layout.blocks() {
            for inst in f.layout.block_insts(b) {
                let data = f.dfg.inst(inst);
                let term = match &data.payload {
                    Payload::Jump(d) => Some(Term {
                        cond: None,
                        then: edge(d),
                        otherwise: None,
                    }),
                    Payload::Loop { prepare: d, .. } | Payload::SimpleLoop { body: d, .. } => {
                        Some(Term {
                            cond: None,
                            then: edge(d),
                            otherwise: None,
                        })
                    }
                    Payload::CondBranch {
                        then_dest,
                        else_dest,
                    }
                    | Payload::If {
                        then_dest,
                        else_dest,
                        ..
                    } => Some(Term {
                        cond: Some(f.dfg.resolve(data.args[0]).as_u32()),
                        then: edge(then_dest),
                        otherwise: Some(edge(else_dest)),
                    }),
                    Payload::None
                    | Payload::Indices(_)
                    | Payload::Callee(_)
                    | Payload::Message(_)
                    | Payload::SwitchBranch(_)
                    | Payload::Switch { .. } => None,
                };
                if let Some(t) = term {
                    fast[inst] = Fast::Jump(terms.len() as u32);
                    terms.push(t);
                    continue;
                }
                // Scalar loads and stores (function and private memory on the fast path).
                let scalar_of =
                    |v: Value| types.get(f.dfg.value_type(f.dfg.resolve(v))).as_scalar();
                let res = |v: Value| f.dfg.resolve(v).as_u32();
                if data.opcode == Opcode::Store && data.args.len() == 2 {
                    if let Some(s) = scalar_of(data.args[1]) {
                        fast[inst] = Fast::Store {
                            p: res(data.args[0]),
                            v: res(data.args[1]),
                            size: if s.is_bool() { 4 } else { s.bytes() as u8 },
                        };
                    }
                    continue;
                }
                let Some(r) = f.dfg.inst_result(inst) else {
                    continue;
                };
                if data.opcode == Opcode::Load && data.args.len() == 1 {
                    if let Some(s) = scalar_of(r) {
                        fast[inst] = Fast::Load {
                            p: res(data.args[0]),
                            s,
                            size: if s.is_bool() { 4 } else { s.bytes() as u8 },
                            r: r.as_u32(),
                        };
                    }
                    continue;
                }
                fast[inst] = lane_fast(f, types, data, r);
            }
        }
        let mut block_fast = SecondaryMap::new();
        for (b, insts) in blocks.iter() {
            block_fast[b] = insts.iter().map(|&i| fast[i]).collect();
        }
        FuncCode {
            blocks,
            template,
            block_fast,
            terms,
        }
    }

    pub fn const_val(&self, c: oxir_ir::Const) -> Val {
        let data = self.module.consts.get(c);
        match &data.kind {
            ConstKind::Scalar(bits) => Val::S(*bits),
            ConstKind::Composite(elems) => match self.types().get(data.ty) {
                TypeData::Vector { .. } => {
                    Val::V(elems.iter().map(|&e| self.const_val(e).bits()).collect())
                }
                _ => Val::C(elems.iter().map(|&e| self.const_val(e)).collect()),
            },
            ConstKind::Zero | ConstKind::Undef => memory::zero(self.types(), data.ty),
        }
    }

    /// Size in bytes of the region behind a global (runtime arrays: the minimum size).
    pub fn global_size(&mut self, g: Global) -> Result<u64, ErrorKind> {
        let gd = &self.module.globals[g];
        self.layouts
            .size(self.types(), gd.ty, self.module.layout_rules(gd.space))
            .map_err(ErrorKind::Layout)
    }

    /// Counts `bytes` more of the workgroup's variable memory against the budget, before
    /// they are allocated.
    pub(crate) fn reserve(
        &mut self,
        bytes: u64,
        what: impl FnOnce() -> String,
    ) -> Result<usize, ErrorKind> {
        let limit = self.options.max_memory_bytes;
        match self.memory_in_use.checked_add(bytes) {
            Some(total) if total <= limit => {
                self.memory_in_use = total;
                usize::try_from(bytes).map_err(|_| ErrorKind::MemoryLimit {
                    what: what(),
                    bytes,
                    in_use: self.memory_in_use,
                    limit,
                })
            }
            _ => Err(ErrorKind::MemoryLimit {
                what: what(),
                bytes,
                in_use: self.memory_in_use,
                limit,
            }),
        }
    }

    /// Gives back function-variable memory a returning frame held.
    pub(crate) fn release(&mut self, bytes: u64) {
        self.memory_in_use = self.memory_in_use.saturating_sub(bytes);
    }

    /// The zeroed bytes of a private or workgroup global, with its initializer stored
    /// unless it is `zero` / `undef` (which the zeroed bytes already are, without building
    /// the value).
    fn init_region(&mut self, g: Global) -> Result<Vec<u8>, ErrorKind> {
        let gd = &self.module.globals[g];
        let rules = self.module.layout_rules(gd.space);
        let size = self.global_size(g)?;
        let size = self.reserve(size, || format!("{} global @{}", gd.space, gd.name))?;
        let mut bytes = vec![0u8; size];
        let init = gd.init.filter(|&c| {
            !matches!(
                self.module.consts.get(c).kind,
                ConstKind::Zero | ConstKind::Undef
            )
        });
        if let Some(c) = init {
            let v = self.const_val(c);
            memory::store(
                self.types(),
                &mut self.layouts,
                rules,
                gd.ty,
                &v,
                &mut bytes,
                0,
            )
            .map_err(ErrorKind::Layout)?;
        }
        Ok(bytes)
    }

    /// A new workgroup's memory; the previous workgroup's is gone, so the budget starts
    /// from zero.
    pub(crate) fn new_group(&mut self) -> Result<Group, Error> {
        self.memory_in_use = 0;
        let mut group = Group::default();
        for (g, gd) in self.module.globals.iter() {
            group.mem.push(if gd.space == AddressSpace::Workgroup {
                self.init_region(g)?
            } else {
                Vec::new()
            });
        }
        Ok(group)
    }

    pub(crate) fn new_invocation(
        &mut self,
        func: Func,
        regs: Regs,
        args: Vec<Val>,
    ) -> Result<Invocation, Error> {
        let mut private = Vec::new();
        for (g, gd) in self.module.globals.iter() {
            private.push(if gd.space == AddressSpace::Private {
                self.init_region(g)?
            } else {
                Vec::new()
            });
        }
        let mut inv = Invocation {
            frames: Vec::new(),
            private,
            allocas: Vec::new(),
            regs,
            resume_barrier: false,
            subgroup_result: None,
            status: Status::Running,
        };
        self.push_frame(&mut inv, func, &args, None)?;
        Ok(inv)
    }

    /// Values for the bound parameters of an entry point.
    pub(crate) fn entry_args(&self, func: Func, regs: &Regs) -> Result<Vec<Val>, Error> {
        let f = &self.module.functions[func];
        let mut args = Vec::new();
        for (i, p) in f.signature.params.iter().enumerate() {
            let global = |i: usize| regs.group_id[i] * regs.wg_size[i] + regs.local_id[i];
            let v = match p.binding {
                Some(StageBinding::Builtin(b)) => match b {
                    Builtin::LocalInvocationId => vec3(regs.local_id),
                    Builtin::LocalInvocationIndex => Val::S(u64::from(regs.local_index)),
                    Builtin::GlobalInvocationId => vec3([global(0), global(1), global(2)]),
                    Builtin::WorkgroupId => vec3(regs.group_id),
                    Builtin::NumWorkgroups => vec3(regs.num_groups),
                    Builtin::SubgroupSize => Val::S(u64::from(self.options.subgroup_size)),
                    Builtin::SubgroupInvocationId => {
                        Val::S(u64::from(regs.subgroup_lane(self.options.subgroup_size)))
                    }
                    Builtin::SubgroupId => {
                        Val::S(u64::from(regs.subgroup_id(self.options.subgroup_size)))
                    }
                    Builtin::NumSubgroups => {
                        Val::S(u64::from(regs.num_subgroups(self.options.subgroup_size)))
                    }
                    Builtin::Position => Val::V(
                        self.stage
                            .frag_coord
                            .iter()
                            .map(|x| u64::from(x.to_bits()))
                            .collect(),
                    ),
                    Builtin::VertexIndex => Val::S(u64::from(self.stage.vertex_index)),
                    Builtin::InstanceIndex => Val::S(u64::from(self.stage.instance_index)),
                    Builtin::FrontFacing => Val::S(u64::from(self.stage.front_facing)),
                    Builtin::SampleMask => Val::S(u64::from(u32::MAX)),
                    Builtin::BaseInstance
                    | Builtin::BaseVertex
                    | Builtin::FragDepth
                    | Builtin::SampleIndex
                    | Builtin::PrimitiveIndex => memory::zero(self.types(), p.ty),
                },
                Some(StageBinding::Location { .. }) | None => self
                    .stage
                    .locations
                    .get(i)
                    .cloned()
                    .unwrap_or_else(|| memory::zero(self.types(), p.ty)),
            };
            args.push(v);
        }
        Ok(args)
    }

    fn push_frame(
        &mut self,
        inv: &mut Invocation,
        func: Func,
        args: &[Val],
        ret_to: Option<Value>,
    ) -> Result<(), ErrorKind> {
        let f = &self.module.functions[func];
        let code = self.funcs[func]
            .as_ref()
            .ok_or_else(|| ErrorKind::ExternalCall(f.name.clone()))?;
        let entry = f
            .entry_block()
            .ok_or_else(|| ErrorKind::NoBody(f.name.clone()))?;
        let mut vals = code.template.clone();
        for (p, a) in f.dfg.block_params(entry).iter().zip(args) {
            vals[p.as_u32() as usize] = a.clone();
        }
        inv.frames.push(Frame {
            func,
            block: entry,
            pos: 0,
            vals,
            ret_to,
            alloca_mark: inv.allocas.len(),
        });
        Ok(())
    }

    fn located(&self, inv: &Invocation, kind: ErrorKind) -> Error {
        let mut e = Error::new(kind);
        if let Some(fr) = inv.frames.last() {
            let f = &self.module.functions[fr.func];
            let code = self.funcs[fr.func].as_ref();
            let inst = code.and_then(|c| c.blocks[fr.block].get(fr.pos));
            e.location = Some(Location {
                function: f.name.clone(),
                block: fr.block,
                inst: inst.map(|&i| (i, f.dfg.inst(i).opcode)),
            });
        }
        e.invocation = Some(inv.regs.local_index);
        e
    }

    /// Runs `inv` until it finishes, reaches a barrier or fails.
    pub(crate) fn run(&mut self, group: &mut Group, inv: &mut Invocation) -> Result<(), Error> {
        inv.status = Status::Running;
        while matches!(inv.status, Status::Running) {
            if self.executed >= self.options.max_instructions {
                return Err(self.located(
                    inv,
                    ErrorKind::InstructionLimit(self.options.max_instructions),
                ));
            }
            self.executed += 1;
            if self.try_fast(inv) {
                continue;
            }
            if let Err(kind) = self.step(group, inv) {
                return Err(self.located(inv, kind));
            }
        }
        Ok(())
    }

    fn region<'a>(
        buffers: &'a mut SecondaryMap<Global, Vec<u8>>,
        group: &'a mut Group,
        inv: &'a mut Invocation,
        r: Region,
    ) -> &'a mut Vec<u8> {
        match r {
            Region::Buffer(g) => &mut buffers[Global::from_u32(g)],
            Region::Workgroup(g) => &mut group.mem[g as usize],
            Region::Private(g) => &mut inv.private[g as usize],
            Region::Function(i) => &mut inv.allocas[i as usize],
            Region::WorkgroupAlloca(i) => &mut group.allocas[i as usize],
        }
    }

    fn rules_of(&self, r: Region) -> LayoutRules {
        match r {
            Region::Buffer(g) => self
                .module
                .layout_rules(self.module.globals[Global::from_u32(g)].space),
            Region::Workgroup(_)
            | Region::Private(_)
            | Region::Function(_)
            | Region::WorkgroupAlloca(_) => LayoutRules::Std430,
        }
    }

    fn oob(&self, op: MemoryOp, p: Ptr) -> Result<bool, ErrorKind> {
        match self.options.out_of_bounds {
            OutOfBounds::Robust => Ok(false),
            OutOfBounds::Error => Err(ErrorKind::OutOfBounds {
                op,
                offset: if p.offset == POISON {
                    -1
                } else {
                    p.offset as i64
                },
                region: p.region,
            }),
        }
    }

    fn load_ptr(
        &mut self,
        group: &mut Group,
        inv: &mut Invocation,
        p: Ptr,
        ty: Type,
    ) -> Result<Val, ErrorKind> {
        let rules = self.rules_of(p.region);
        let types = self.types();
        let size = self
            .layouts
            .size(types, ty, rules)
            .map_err(ErrorKind::Layout)?;
        let bytes = Self::region(&mut self.buffers, group, inv, p.region);
        if p.offset == POISON || p.offset + size > bytes.len() as u64 {
            self.oob(MemoryOp::Load, p)?;
            return Ok(memory::zero(types, ty));
        }
        memory::load(
            types,
            &mut self.layouts,
            rules,
            ty,
            bytes,
            p.offset as usize,
        )
        .map_err(ErrorKind::Layout)
    }

    fn store_ptr(
        &mut self,
        group: &mut Group,
        inv: &mut Invocation,
        p: Ptr,
        ty: Type,
        v: &Val,
    ) -> Result<(), ErrorKind> {
        let rules = self.rules_of(p.region);
        let types = self.types();
        let size = self
            .layouts
            .size(types, ty, rules)
            .map_err(ErrorKind::Layout)?;
        let bytes = Self::region(&mut self.buffers, group, inv, p.region);
        if p.offset == POISON || p.offset + size > bytes.len() as u64 {
            self.oob(MemoryOp::Store, p)?;
            return Ok(());
        }
        memory::store(
            types,
            &mut self.layouts,
            rules,
            ty,
            v,
            bytes,
            p.offset as usize,
        )
        .map_err(ErrorKind::Layout)
    }

    /// Executes the current instruction when it has a pre-decoded fast form with scalar
    /// operands; `false` when the general path must run it (also when the scalar
    /// semantics refuse the operation: the general path then reports the error).
    #[inline(always)]
    fn try_fast(&self, inv: &mut Invocation) -> bool {
        let Invocation {
            frames,
            allocas,
            private,
            ..
        } = inv;
        let fr = frames.last_mut().unwrap();
        let Some(code) = self.funcs[fr.func].as_ref() else {
            return false;
        };
        let Some(&fast) = code.block_fast[fr.block].get(fr.pos) else {
            return false;
        };
        let local = |p: &Val| -> Option<(u8, usize, usize)> {
            match p {
                Val::P(Ptr {
                    region: Region::Function(i),
                    offset,
                }) if *offset != POISON => Some((0, *i as usize, *offset as usize)),
                Val::P(Ptr {
                    region: Region::Private(i),
                    offset,
                }) if *offset != POISON => Some((1, *i as usize, *offset as usize)),
                _ => None,
            }
        };
        match fast {
            Fast::Load { p, s, size, r } => {
                if let Some((kind, i, off)) = local(&fr.vals[p as usize]) {
                    let bytes = if kind == 0 { &allocas[i] } else { &private[i] };
                    let n = size as usize;
                    if let Some(src) = bytes.get(off..off + n) {
                        let mut raw = [0u8; 8];
                        raw[..n].copy_from_slice(src);
                        let v = scalar::canon(s, u64::from_le_bytes(raw));
                        set_scalar(&mut fr.vals[r as usize], v);
                        fr.pos += 1;
                        return true;
                    }
                }
            }
            Fast::Store { p, v, size } => {
                if let (Some((kind, i, off)), Val::S(x)) =
                    (local(&fr.vals[p as usize]), &fr.vals[v as usize])
                {
                    let bytes = if kind == 0 {
                        &mut allocas[i]
                    } else {
                        &mut private[i]
                    };
                    let n = size as usize;
                    if let Some(dst) = bytes.get_mut(off..off + n) {
                        dst.copy_from_slice(&x.to_le_bytes()[..n]);
                        fr.pos += 1;
                        return true;
                    }
                }
            }
            Fast::Binary { op, s, a, b, r } => {
                if let (Val::S(x), Val::S(y)) = (&fr.vals[a as usize], &fr.vals[b as usize]) {
                    let Ok(v) = scalar::binary(op, s, *x, *y) else {
                        return false;
                    };
                    set_scalar(&mut fr.vals[r as usize], v);
                    fr.pos += 1;
                    return true;
                }
            }
            Fast::BinaryFn { f, a, b, r } => {
                if let (Val::S(x), Val::S(y)) = (&fr.vals[a as usize], &fr.vals[b as usize]) {
                    let v = f(*x, *y);
                    set_scalar(&mut fr.vals[r as usize], v);
                    fr.pos += 1;
                    return true;
                }
            }
            Fast::Unary { op, s, a, r } => {
                if let Val::S(x) = &fr.vals[a as usize] {
                    let Ok(v) = scalar::unary(op, s, *x) else {
                        return false;
                    };
                    set_scalar(&mut fr.vals[r as usize], v);
                    fr.pos += 1;
                    return true;
                }
            }
            Fast::Jump(t) => {
                let term = &code.terms[t as usize];
                let e = match term.cond {
                    Some(c) if fr.vals[c as usize].bits() == 0 => term.otherwise.as_ref().unwrap(),
                    _ => &term.then,
                };
                match e.moves.len() {
                    0 => {}
                    _ if e.sequential => {
                        for &(p, a) in &e.moves {
                            let v = match &fr.vals[a as usize] {
                                Val::S(x) => Val::S(*x),
                                other => other.clone(),
                            };
                            fr.vals[p as usize] = v;
                        }
                    }
                    _ => {
                        let vals: SmallVec<[Val; 4]> = e
                            .moves
                            .iter()
                            .map(|&(_, a)| fr.vals[a as usize].clone())
                            .collect();
                        for (&(p, _), v) in e.moves.iter().zip(vals) {
                            fr.vals[p as usize] = v;
                        }
                    }
                }
                fr.block = e.block;
                fr.pos = 0;
                return true;
            }
            Fast::None => {}
        }
        false
    }
}

/// The fast form of a unary or binary lane operation on scalar operands
/// ([`LaneOp::Unary`], [`LaneOp::Binary`]); `Fast::None` for anything else. Binary
/// operations on u32, i32 and f32 get their specialised function from
/// [`crate::special`].
fn lane_fast(f: &Function, types: &TypeStore, data: &InstData, r: Value) -> Fast {
    let idx = |i: usize| f.dfg.resolve(data.args[i]).as_u32();
    let scalar = |i: usize| {
        types
            .get(f.dfg.value_type(f.dfg.resolve(data.args[i])))
            .as_scalar()
    };
    let op = data.opcode;
    let r = r.as_u32();
    match lane_op(op) {
        Some(LaneOp::Binary(bop)) if data.args.len() == 2 => {
            let (Some(s), Some(s1)) = (scalar(0), scalar(1)) else {
                return Fast::None;
            };
            let (a, b) = (idx(0), idx(1));
            match crate::special::binary(bop, s).filter(|_| s == s1) {
                Some(f) => Fast::BinaryFn { f, a, b, r },
                None => Fast::Binary { op, s, a, b, r },
            }
        }
        Some(LaneOp::Unary(_)) if data.args.len() == 1 => match scalar(0) {
            Some(s) => Fast::Unary {
                op,
                s,
                a: idx(0),
                r,
            },
            None => Fast::None,
        },
        Some(
            LaneOp::Binary(_)
            | LaneOp::Unary(_)
            | LaneOp::Ternary(_)
            | LaneOp::Select
            | LaneOp::BoolReduce { .. }
            | LaneOp::ExtractBits
            | LaneOp::InsertBits
            | LaneOp::Convert
            | LaneOp::Bitcast
            | LaneOp::Ldexp
            | LaneOp::Frexp
            | LaneOp::Modf,
        )
        | None => Fast::None,
    }
}

#[inline(always)]
fn set_scalar(slot: &mut Val, v: u64) {
    match slot {
        Val::S(x) => *x = v,
        other => *other = Val::S(v),
    }
}

fn relane(shape: &Val, lanes: Lanes) -> Val {
    match shape {
        Val::V(_) => Val::V(lanes),
        _ => Val::S(lanes[0]),
    }
}

/// Lane-wise unary map over scalars, vectors and (column-wise) matrices.
pub(crate) fn map1(a: &Val, f: &dyn Fn(u64) -> u64) -> Val {
    match a {
        Val::S(x) => Val::S(f(*x)),
        Val::V(l) => Val::V(l.iter().map(|&x| f(x)).collect()),
        Val::C(cols) => Val::C(cols.iter().map(|c| map1(c, f)).collect()),
        other => other.clone(),
    }
}
