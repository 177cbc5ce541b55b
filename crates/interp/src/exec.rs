//! The executor: dispatch, invocations, frames and every instruction.

use crate::memory::{self, Layouts};
use crate::scalar;
use crate::value::{Lanes, Ptr, Region, Val, POISON};
use crate::{Error, Options, OutOfBounds, StageInputs};
use oxir_ir::data_layout::{runtime_array_tail, LayoutRules};
use oxir_ir::function::Builtin;
use oxir_ir::types::TypeStore;
use oxir_ir::{
    AddressSpace, Block, BlockCall, ConstKind, Func, Function, Inst, Module, Opcode, Payload,
    Scalar, ScalarKind, StageBinding, Type, TypeData, Value, ValueDef,
};
use smallvec::SmallVec;
use std::collections::HashMap;

/// Pre-decoded per-function data: instruction lists per block and the initial value
/// table (constants and global addresses filled in).
struct FuncCode {
    blocks: Vec<Vec<Inst>>,
    template: Vec<Val>,
    /// Per block, per position: the pre-decoded fast form of each instruction.
    block_fast: Vec<Vec<Fast>>,
    terms: Vec<Term>,
}

/// The pre-decoded form of scalar lane operations: operand and result value indices
/// (aliases resolved) and the operand scalar type, so the common case runs without
/// touching the data-flow graph or the type store.
#[derive(Clone, Copy)]
enum Fast {
    None,
    /// A scalar load; served here from function and private memory.
    Load {
        p: u32,
        s: Scalar,
        size: u8,
        r: u32,
    },
    /// A scalar store; served here to function and private memory.
    Store {
        p: u32,
        v: u32,
        size: u8,
    },
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

struct Edge {
    block: Block,
    /// (parameter, argument) value indices.
    moves: SmallVec<[(u32, u32); 2]>,
    /// No parameter is also an argument: the moves may run one after another.
    sequential: bool,
}

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

pub(crate) enum Status {
    Running,
    Barrier(Func, Inst),
    Done(Vec<Val>),
    Discarded,
}

pub(crate) struct Invocation {
    frames: Vec<Frame>,
    private: Vec<Vec<u8>>,
    allocas: Vec<Vec<u8>>,
    regs: Regs,
    resume_barrier: bool,
    pub(crate) status: Status,
}

#[derive(Default)]
pub(crate) struct Group {
    mem: Vec<Vec<u8>>,
    allocas: Vec<Vec<u8>>,
    alloca_ids: HashMap<(Func, Inst), u32>,
}

pub(crate) struct Machine<'m> {
    pub module: &'m Module,
    funcs: Vec<Option<FuncCode>>,
    pub layouts: Layouts,
    /// Buffer bytes per global index (empty for globals that are not buffers).
    pub buffers: Vec<Vec<u8>>,
    pub options: Options,
    pub executed: u64,
    pub stage: StageInputs,
    pub prints: Vec<String>,
    /// Textures and samplers per global index (handle globals only).
    pub textures: Vec<Option<crate::texture::Texture>>,
    pub samplers: Vec<Option<crate::texture::Sampler>>,
}

fn space_rules(space: AddressSpace) -> LayoutRules {
    match space {
        AddressSpace::Uniform => LayoutRules::Std140,
        _ => LayoutRules::Std430,
    }
}

fn vec3(v: [u32; 3]) -> Val {
    Val::V(v.iter().map(|&x| u64::from(x)).collect())
}

impl<'m> Machine<'m> {
    pub fn new(module: &'m Module, options: Options) -> Self {
        let mut m = Machine {
            module,
            funcs: Vec::new(),
            layouts: Layouts::default(),
            buffers: vec![Vec::new(); module.globals.len()],
            options,
            executed: 0,
            stage: StageInputs::default(),
            prints: Vec::new(),
            textures: vec![None; module.globals.len()],
            samplers: vec![None; module.globals.len()],
        };
        for (_, f) in module.functions.iter() {
            let code = f.is_definition().then(|| m.decode(f));
            m.funcs.push(code);
        }
        m
    }

    fn types(&self) -> &'m TypeStore {
        &self.module.types
    }

    fn decode(&mut self, f: &Function) -> FuncCode {
        let mut blocks = vec![Vec::new(); f.dfg.blocks.len()];
        for b in f.layout.blocks() {
            blocks[b.as_u32() as usize] = f.layout.block_insts(b).collect();
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
                        _ => Region::Buffer(gi),
                    };
                    Val::P(Ptr { region, offset: 0 })
                }
                _ => Val::Undef,
            };
        }
        let types = &self.module.types;
        let mut fast = vec![Fast::None; f.dfg.insts.len()];
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
                    _ => None,
                };
                if let Some(t) = term {
                    fast[inst.as_u32() as usize] = Fast::Jump(terms.len() as u32);
                    terms.push(t);
                    continue;
                }
                // Scalar loads and stores (function and private memory on the fast path).
                let scalar_of =
                    |v: Value| types.get(f.dfg.value_type(f.dfg.resolve(v))).as_scalar();
                let res = |v: Value| f.dfg.resolve(v).as_u32();
                if data.opcode == Opcode::Store && data.args.len() == 2 {
                    if let Some(s) = scalar_of(data.args[1]) {
                        fast[inst.as_u32() as usize] = Fast::Store {
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
                        fast[inst.as_u32() as usize] = Fast::Load {
                            p: res(data.args[0]),
                            s,
                            size: if s.is_bool() { 4 } else { s.bytes() as u8 },
                            r: r.as_u32(),
                        };
                    }
                    continue;
                }
                let idx = |i: usize| f.dfg.resolve(data.args[i]).as_u32();
                let scalar = |i: usize| {
                    types
                        .get(f.dfg.value_type(f.dfg.resolve(data.args[i])))
                        .as_scalar()
                };
                use Opcode::*;
                let info = data.opcode.info();
                let lane_binary = matches!(
                    data.opcode,
                    Add | Sub
                        | Mul
                        | Div
                        | Rem
                        | Min
                        | Max
                        | And
                        | Or
                        | Xor
                        | Shl
                        | Shr
                        | Rotl
                        | Rotr
                        | Eq
                        | Ne
                        | Lt
                        | Le
                        | Gt
                        | Ge
                );
                let lane_unary = matches!(
                    data.opcode,
                    Neg | Abs
                        | Not
                        | CountOnes
                        | CountLeadingZeros
                        | CountTrailingZeros
                        | ReverseBits
                        | Sqrt
                        | Floor
                        | Ceil
                        | Trunc
                        | IsNan
                        | IsInf
                );
                let _ = info;
                if lane_binary && data.args.len() == 2 {
                    if let (Some(s), Some(s1)) = (scalar(0), scalar(1)) {
                        let special = if s == s1 {
                            crate::special::binary(data.opcode, s)
                        } else {
                            None
                        };
                        fast[inst.as_u32() as usize] = match special {
                            Some(f) => Fast::BinaryFn {
                                f,
                                a: idx(0),
                                b: idx(1),
                                r: r.as_u32(),
                            },
                            None => Fast::Binary {
                                op: data.opcode,
                                s,
                                a: idx(0),
                                b: idx(1),
                                r: r.as_u32(),
                            },
                        };
                    }
                } else if lane_unary && data.args.len() == 1 {
                    if let Some(s) = scalar(0) {
                        fast[inst.as_u32() as usize] = Fast::Unary {
                            op: data.opcode,
                            s,
                            a: idx(0),
                            r: r.as_u32(),
                        };
                    }
                }
            }
        }
        let block_fast = blocks
            .iter()
            .map(|b| b.iter().map(|i| fast[i.as_u32() as usize]).collect())
            .collect();
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
    pub fn global_size(&mut self, g: oxir_ir::Global) -> Result<u64, String> {
        let gd = &self.module.globals[g];
        self.layouts
            .size(self.types(), gd.ty, space_rules(gd.space))
    }

    fn init_region(&mut self, g: oxir_ir::Global) -> Result<Vec<u8>, String> {
        let gd = &self.module.globals[g];
        let rules = space_rules(gd.space);
        let size = self.global_size(g)? as usize;
        let mut bytes = vec![0u8; size];
        if let Some(c) = gd.init {
            let v = self.const_val(c);
            memory::store(
                self.types(),
                &mut self.layouts,
                rules,
                gd.ty,
                &v,
                &mut bytes,
                0,
            )?;
        }
        Ok(bytes)
    }

    pub(crate) fn new_group(&mut self) -> Result<Group, Error> {
        let mut group = Group::default();
        for (g, gd) in self.module.globals.iter() {
            group.mem.push(if gd.space == AddressSpace::Workgroup {
                self.init_region(g).map_err(Error::plain)?
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
                self.init_region(g).map_err(Error::plain)?
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
                    Builtin::SubgroupSize => Val::S(32),
                    Builtin::SubgroupInvocationId => Val::S(u64::from(regs.local_index % 32)),
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
                    _ => memory::zero(self.types(), p.ty),
                },
                _ => self
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
    ) -> Result<(), Error> {
        let f = &self.module.functions[func];
        let code = self.funcs[func.as_u32() as usize]
            .as_ref()
            .ok_or_else(|| Error::plain(format!("call of external function @{}", f.name)))?;
        let entry = f
            .entry_block()
            .ok_or_else(|| Error::plain(format!("@{} has no body", f.name)))?;
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

    fn located(&self, inv: &Invocation, message: impl Into<String>) -> Error {
        let mut e = Error::plain(message);
        if let Some(fr) = inv.frames.last() {
            let f = &self.module.functions[fr.func];
            let code = self.funcs[fr.func.as_u32() as usize].as_ref();
            let inst = code.and_then(|c| c.blocks[fr.block.as_u32() as usize].get(fr.pos));
            e.location = Some(match inst {
                Some(i) => format!(
                    "@{}, block{}, inst{} ({})",
                    f.name,
                    fr.block.as_u32(),
                    i.as_u32(),
                    f.dfg.inst(*i).opcode
                ),
                None => format!("@{}, block{}", f.name, fr.block.as_u32()),
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
                    format!(
                        "instruction limit of {} reached (a runaway loop?)",
                        self.options.max_instructions
                    ),
                ));
            }
            self.executed += 1;
            if self.try_fast(inv) {
                continue;
            }
            if let Err(message) = self.step(group, inv) {
                return Err(self.located(inv, message));
            }
        }
        Ok(())
    }

    fn region<'a>(
        buffers: &'a mut [Vec<u8>],
        group: &'a mut Group,
        inv: &'a mut Invocation,
        r: Region,
    ) -> &'a mut Vec<u8> {
        match r {
            Region::Buffer(g) => &mut buffers[g as usize],
            Region::Workgroup(g) => &mut group.mem[g as usize],
            Region::Private(g) => &mut inv.private[g as usize],
            Region::Function(i) => &mut inv.allocas[i as usize],
            Region::WorkgroupAlloca(i) => &mut group.allocas[i as usize],
        }
    }

    fn rules_of(&self, r: Region) -> LayoutRules {
        match r {
            Region::Buffer(g) => {
                space_rules(self.module.globals[oxir_ir::Global::from_u32(g)].space)
            }
            _ => LayoutRules::Std430,
        }
    }

    fn oob(&self, what: &str, p: Ptr) -> Result<bool, String> {
        match self.options.out_of_bounds {
            OutOfBounds::Robust => Ok(false),
            OutOfBounds::Error => Err(format!(
                "out-of-bounds {what} at byte offset {} of {:?}",
                if p.offset == POISON {
                    -1
                } else {
                    p.offset as i64
                },
                p.region
            )),
        }
    }

    fn load_ptr(
        &mut self,
        group: &mut Group,
        inv: &mut Invocation,
        p: Ptr,
        ty: Type,
    ) -> Result<Val, String> {
        let rules = self.rules_of(p.region);
        let types = self.types();
        let size = self.layouts.size(types, ty, rules)?;
        let bytes = Self::region(&mut self.buffers, group, inv, p.region);
        if p.offset == POISON || p.offset + size > bytes.len() as u64 {
            self.oob("load", p)?;
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
    }

    fn store_ptr(
        &mut self,
        group: &mut Group,
        inv: &mut Invocation,
        p: Ptr,
        ty: Type,
        v: &Val,
    ) -> Result<(), String> {
        let rules = self.rules_of(p.region);
        let types = self.types();
        let size = self.layouts.size(types, ty, rules)?;
        let bytes = Self::region(&mut self.buffers, group, inv, p.region);
        if p.offset == POISON || p.offset + size > bytes.len() as u64 {
            self.oob("store", p)?;
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
    }

    /// Executes the current instruction when it has a pre-decoded fast form with scalar
    /// operands; `false` when the general path must run it.
    #[inline(always)]
    fn try_fast(&self, inv: &mut Invocation) -> bool {
        let Invocation {
            frames,
            allocas,
            private,
            ..
        } = inv;
        let fr = frames.last_mut().unwrap();
        let Some(code) = self.funcs[fr.func.as_u32() as usize].as_ref() else {
            return false;
        };
        let Some(&fast) = code.block_fast[fr.block.as_u32() as usize].get(fr.pos) else {
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
                    let v = scalar::binary(op, s, *x, *y).unwrap_or(0);
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
                    let v = scalar::unary(op, s, *x).unwrap_or(0);
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

    /// Executes the instruction at the current position of the top frame.
    fn step(&mut self, group: &mut Group, inv: &mut Invocation) -> Result<(), String> {
        let module: &'m Module = self.module;
        let types = &module.types;
        let fr = inv.frames.last().unwrap();
        let func = fr.func;
        let f: &'m Function = &module.functions[func];
        let code = self.funcs[func.as_u32() as usize].as_ref().unwrap();
        let inst = *code.blocks[fr.block.as_u32() as usize]
            .get(fr.pos)
            .ok_or("fell off the end of a block without a terminator")?;

        let data = f.dfg.inst(inst);
        let op = data.opcode;
        let result = f.dfg.inst_result(inst);
        let get =
            |fr: &Frame, v: Value| -> Val { fr.vals[f.dfg.resolve(v).as_u32() as usize].clone() };
        let argv: smallvec::SmallVec<[Val; 4]> = {
            let fr = inv.frames.last().unwrap();
            data.args.iter().map(|&v| get(fr, v)).collect()
        };
        let arg = |i: usize| argv[i].clone();
        let arg_ty = |i: usize| f.dfg.value_type(f.dfg.resolve(data.args[i]));
        let res_ty = || result.map(|r| f.dfg.value_type(r));
        let elem_of = |ty: Type| -> Scalar {
            match types.get(ty) {
                TypeData::Scalar(s) => *s,
                TypeData::Vector { elem, .. } | TypeData::Matrix { elem, .. } => *elem,
                _ => Scalar::U32,
            }
        };

        // Terminators.
        if op.is_terminator() {
            let target: Option<&BlockCall> = match (&data.payload, op) {
                (Payload::Jump(dest), _) => Some(dest),
                (
                    Payload::CondBranch {
                        then_dest,
                        else_dest,
                    },
                    _,
                )
                | (
                    Payload::If {
                        then_dest,
                        else_dest,
                        ..
                    },
                    _,
                ) => Some(if arg(0).bits() != 0 {
                    then_dest
                } else {
                    else_dest
                }),
                (Payload::SwitchBranch(table), _) | (Payload::Switch { table, .. }, _) => {
                    let sel = arg(0).bits();
                    Some(
                        table
                            .cases
                            .iter()
                            .find(|(label, _)| *label == sel)
                            .map(|(_, d)| d)
                            .unwrap_or(&table.default),
                    )
                }
                (Payload::Loop { prepare, .. }, _) => Some(prepare),
                (Payload::SimpleLoop { body, .. }, _) => Some(body),
                (_, Opcode::Return) => None,
                (_, Opcode::Unreachable) => {
                    let msg = match &data.payload {
                        Payload::Message(m) => m.to_string(),
                        _ => String::new(),
                    };
                    return Err(format!("reached `unreachable` {msg}"));
                }
                (_, Opcode::Discard) => {
                    inv.status = Status::Discarded;
                    return Ok(());
                }
                _ => return Err(format!("malformed terminator {op}")),
            };
            let fr = inv.frames.last_mut().unwrap();
            match target {
                Some(dest) => {
                    if !dest.args.is_empty() {
                        let args: smallvec::SmallVec<[Val; 4]> =
                            dest.args.iter().map(|&v| get(fr, v)).collect();
                        for (p, a) in f.dfg.block_params(dest.block).iter().zip(args) {
                            fr.vals[p.as_u32() as usize] = a;
                        }
                    }
                    fr.block = dest.block;
                    fr.pos = 0;
                }
                None => {
                    let rets: Vec<Val> = data.args.iter().map(|&v| get(fr, v)).collect();
                    let done = inv.frames.pop().unwrap();
                    inv.allocas.truncate(done.alloca_mark);
                    match inv.frames.last_mut() {
                        Some(caller) => {
                            if let (Some(to), Some(v)) = (done.ret_to, rets.into_iter().next()) {
                                caller.vals[to.as_u32() as usize] = v;
                            }
                            caller.pos += 1;
                        }
                        None => inv.status = Status::Done(rets),
                    }
                }
            }
            return Ok(());
        }

        use Opcode::*;
        let value: Option<Val> = match op {
            // --- lane-wise arithmetic -------------------------------------------------------
            Add | Sub | Mul | Div | Rem | Min | Max | And | Or | Xor | Atan2 | Pow | CopySign
            | Step => {
                let s = elem_of(arg_ty(0));
                Some(map2(&arg(0), &arg(1), &|a, b| {
                    scalar::binary(op, s, a, b).unwrap_or(0)
                }))
            }
            Shl | Shr | Rotl | Rotr => {
                let s = elem_of(arg_ty(0));
                Some(map2(&arg(0), &arg(1), &|a, b| {
                    scalar::binary(op, s, a, b).unwrap_or(0)
                }))
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let s = elem_of(arg_ty(0));
                Some(map2(&arg(0), &arg(1), &|a, b| {
                    scalar::binary(op, s, a, b).unwrap_or(0)
                }))
            }
            Clamp | Fma | Smoothstep | Mix => {
                let s = elem_of(arg_ty(0));
                let (a, b, c) = (arg(0).lanes(), arg(1).lanes(), arg(2).lanes());
                let out: Lanes = (0..a.len())
                    .map(|i| scalar::ternary(op, s, a[i], b[i], c[i]).unwrap_or(0))
                    .collect();
                Some(relane(&arg(0), out))
            }
            Neg | Abs | Sign | Not | CountOnes | CountLeadingZeros | CountTrailingZeros
            | ReverseBits | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh | Tanh | Asinh
            | Acosh | Atanh | Exp | Exp2 | Exp10 | Log | Log2 | Log10 | Sqrt | InverseSqrt
            | Ceil | Floor | Fract | Trunc | Round | RoundEven | Saturate | Degrees | Radians
            | IsNan | IsInf | Dpdx | Dpdy | Fwidth | DpdxCoarse | DpdyCoarse | FwidthCoarse
            | DpdxFine | DpdyFine | FwidthFine => {
                let s = elem_of(arg_ty(0));
                Some(map1(&arg(0), &|a| scalar::unary(op, s, a).unwrap_or(0)))
            }
            Select => {
                let c = arg(0);
                match c {
                    Val::V(cl) => {
                        let (a, b) = (arg(1).lanes(), arg(2).lanes());
                        Some(Val::V(
                            (0..cl.len())
                                .map(|i| if cl[i] != 0 { a[i] } else { b[i] })
                                .collect(),
                        ))
                    }
                    _ => Some(if c.bits() != 0 { arg(1) } else { arg(2) }),
                }
            }
            Any | All => {
                let l = arg(0).lanes();
                Some(Val::S(u64::from(if op == Any {
                    l.iter().any(|&x| x != 0)
                } else {
                    l.iter().all(|&x| x != 0)
                })))
            }
            ExtractBits => {
                let s = elem_of(arg_ty(0));
                let (o, c) = (arg(1).bits(), arg(2).bits());
                Some(map1(&arg(0), &|e| scalar::extract_bits(s, e, o, c)))
            }
            InsertBits => {
                let s = elem_of(arg_ty(0));
                let (o, c) = (arg(2).bits(), arg(3).bits());
                Some(map2(&arg(0), &arg(1), &|e, n| {
                    scalar::insert_bits(s, e, n, o, c)
                }))
            }
            // --- vectors and matrices ---------------------------------------------------------
            Dot | Cross | Length | Distance | Normalize | Reflect | FaceForward | ReduceAdd
            | ReduceMul | ReduceMin | ReduceMax | OuterProduct | MatrixTimesMatrix
            | MatrixTimesVector | VectorTimesMatrix | MatrixTimesScalar | Transpose
            | Determinant | Inverse => {
                let s = elem_of(arg_ty(0));
                let args: Vec<Val> = (0..data.args.len()).map(arg).collect();
                Some(crate::linalg::eval(op, s, &args)?)
            }
            // --- conversions and composites ---------------------------------------------------
            Convert => {
                let from = elem_of(arg_ty(0));
                let to = elem_of(res_ty().unwrap());
                Some(map1(&arg(0), &|a| scalar::convert(from, to, a)))
            }
            Bitcast => {
                let from = elem_of(arg_ty(0));
                let rt = res_ty().unwrap();
                let to = elem_of(rt);
                let mut bytes = Vec::new();
                for lane in arg(0).lanes() {
                    bytes.extend_from_slice(&lane.to_le_bytes()[..from.bytes() as usize]);
                }
                let n = to.bytes() as usize;
                let lanes: Lanes = bytes
                    .chunks(n)
                    .map(|c| {
                        let mut raw = [0u8; 8];
                        raw[..n].copy_from_slice(c);
                        scalar::canon(to, u64::from_le_bytes(raw))
                    })
                    .collect();
                Some(match types.get(rt) {
                    TypeData::Vector { .. } => Val::V(lanes),
                    _ => Val::S(lanes[0]),
                })
            }
            Construct => {
                let rt = res_ty().unwrap();
                let parts: Vec<Val> = (0..data.args.len()).map(arg).collect();
                Some(match types.get(rt) {
                    TypeData::Vector { .. } => {
                        Val::V(parts.iter().flat_map(|p| p.lanes()).collect())
                    }
                    _ => Val::C(parts),
                })
            }
            Splat => {
                let rt = res_ty().unwrap();
                let n = match types.get(rt) {
                    TypeData::Vector { len, .. } => usize::from(*len),
                    _ => 1,
                };
                Some(Val::V(Lanes::from_elem(arg(0).bits(), n)))
            }
            Extract | Insert => {
                let Payload::Indices(path) = &data.payload else {
                    return Err("extract without indices".into());
                };
                if op == Extract {
                    let mut v = arg(0);
                    for &i in path.iter() {
                        v = project(&v, i as u64).ok_or("extract index out of range")?;
                    }
                    Some(v)
                } else {
                    let mut v = arg(0);
                    replace(&mut v, path, arg(1)).ok_or("insert index out of range")?;
                    Some(v)
                }
            }
            ExtractDynamic => {
                let idx = arg(1).bits();
                let v = arg(0);
                // Out of range: the zero of the element type (WGSL allows any value).
                Some(match project(&v, idx) {
                    Some(x) => x,
                    None => memory::zero(types, res_ty().unwrap()),
                })
            }
            InsertDynamic => {
                let idx = arg(1).bits();
                let mut v = arg(0);
                let _ =
                    replace(&mut v, &[idx as u32], arg(2)).filter(|_| idx <= u64::from(u32::MAX));
                Some(v)
            }
            Shuffle => {
                let Payload::Indices(lanes) = &data.payload else {
                    return Err("shuffle without indices".into());
                };
                let mut all = arg(0).lanes();
                all.extend(arg(1).lanes());
                Some(Val::V(lanes.iter().map(|&i| all[i as usize]).collect()))
            }
            // --- memory -------------------------------------------------------------------
            Alloca => {
                let rt = res_ty().unwrap();
                let TypeData::Pointer { space, pointee } = types.get(rt) else {
                    return Err("alloca of a non-pointer type".into());
                };
                let size = self.layouts.size(types, *pointee, LayoutRules::Std430)? as usize;
                let region = if *space == AddressSpace::Workgroup {
                    let next = group.allocas.len() as u32;
                    let id = *group.alloca_ids.entry((func, inst)).or_insert(next);
                    if id == next {
                        group.allocas.push(vec![0u8; size]);
                    }
                    Region::WorkgroupAlloca(id)
                } else {
                    inv.allocas.push(vec![0u8; size]);
                    Region::Function(inv.allocas.len() as u32 - 1)
                };
                Some(Val::P(Ptr { region, offset: 0 }))
            }
            Load => {
                let p = arg(0).ptr().ok_or("load through a non-pointer")?;
                let ty = res_ty().unwrap();
                if types.get(ty).is_resource() {
                    // A texture or sampler handle: the pointer names the resource.
                    Some(Val::P(p))
                } else {
                    Some(self.load_ptr(group, inv, p, ty)?)
                }
            }
            Store => {
                let p = arg(0).ptr().ok_or("store through a non-pointer")?;
                let v = arg(1);
                self.store_ptr(group, inv, p, arg_ty(1), &v)?;
                None
            }
            Access => {
                let mut p = arg(0).ptr().ok_or("access through a non-pointer")?;
                let rules = self.rules_of(p.region);
                let TypeData::Pointer { pointee, .. } = types.get(arg_ty(0)) else {
                    return Err("access of a non-pointer".into());
                };
                let mut ty = *pointee;
                for i in 1..data.args.len() {
                    let it = elem_of(arg_ty(i));
                    let raw = arg(i).bits();
                    let idx = if it.is_signed() && (raw as i64) < 0 {
                        u64::MAX
                    } else {
                        raw
                    };
                    let layout = self.layouts.get(types, ty, rules)?;
                    let (next, off, bound) = match types.get(ty) {
                        TypeData::Struct(st) => {
                            let k = idx as usize;
                            let m = st.members.get(k).ok_or("struct member out of range")?;
                            (m.ty, u64::from(layout.offsets[k]), None)
                        }
                        TypeData::Array { elem, len } => (
                            *elem,
                            idx.saturating_mul(u64::from(layout.stride.unwrap_or(0))),
                            Some(u64::from(*len)),
                        ),
                        TypeData::RuntimeArray { elem } => (
                            *elem,
                            idx.saturating_mul(u64::from(layout.stride.unwrap_or(0))),
                            None,
                        ),
                        TypeData::Vector { elem, len } => {
                            let n = if elem.is_bool() {
                                4
                            } else {
                                u64::from(elem.bytes())
                            };
                            let et = types
                                .iter()
                                .find(|(_, d)| **d == TypeData::Scalar(*elem))
                                .map(|(t, _)| t)
                                .ok_or("vector element type not interned")?;
                            (et, idx.saturating_mul(n), Some(u64::from(*len)))
                        }
                        TypeData::Matrix {
                            elem,
                            columns,
                            rows,
                        } => {
                            let et = types
                                .iter()
                                .find(|(_, d)| {
                                    **d == TypeData::Vector {
                                        elem: *elem,
                                        len: *rows,
                                    }
                                })
                                .map(|(t, _)| t)
                                .ok_or("matrix column type not interned")?;
                            (
                                et,
                                idx.saturating_mul(u64::from(layout.stride.unwrap_or(0))),
                                Some(u64::from(*columns)),
                            )
                        }
                        _ => return Err("access into a non-composite".into()),
                    };
                    if p.offset != POISON {
                        if bound.is_some_and(|b| idx >= b) {
                            self.oob("access", p)?;
                            p.offset = POISON;
                        } else {
                            p.offset = p.offset.saturating_add(off);
                        }
                    }
                    ty = next;
                }
                Some(Val::P(p))
            }
            ArrayLength => {
                let p = arg(0).ptr().ok_or("array_length of a non-pointer")?;
                let rules = self.rules_of(p.region);
                let TypeData::Pointer { pointee, .. } = types.get(arg_ty(0)) else {
                    return Err("array_length of a non-pointer".into());
                };
                let (off, stride) = runtime_array_tail(types, *pointee, rules)
                    .map_err(|e| e.to_string())?
                    .ok_or("array_length of a sized type")?;
                let len = Self::region(&mut self.buffers, group, inv, p.region).len() as u64;
                let start = p.offset.saturating_add(u64::from(off));
                Some(Val::S(len.saturating_sub(start) / u64::from(stride.max(1))))
            }
            // --- atomics ------------------------------------------------------------------
            AtomicLoad
            | AtomicStore
            | AtomicExchange
            | AtomicCompareExchange
            | AtomicAdd
            | AtomicSub
            | AtomicAnd
            | AtomicOr
            | AtomicXor
            | AtomicMin
            | AtomicMax => {
                let p = arg(0).ptr().ok_or("atomic through a non-pointer")?;
                let TypeData::Pointer { pointee, .. } = types.get(arg_ty(0)) else {
                    return Err("atomic of a non-pointer".into());
                };
                let ty = *pointee;
                let s = elem_of(ty);
                let old = self.load_ptr(group, inv, p, ty)?.bits();
                let new = match op {
                    AtomicLoad => None,
                    AtomicStore | AtomicExchange => Some(arg(1).bits()),
                    AtomicCompareExchange => (old == arg(1).bits()).then(|| arg(2).bits()),
                    _ => {
                        let bop = match op {
                            AtomicAdd => Add,
                            AtomicSub => Sub,
                            AtomicAnd => And,
                            AtomicOr => Or,
                            AtomicXor => Xor,
                            AtomicMin => Min,
                            _ => Max,
                        };
                        scalar::binary(bop, s, old, arg(1).bits())
                    }
                };
                if let Some(n) = new {
                    self.store_ptr(group, inv, p, ty, &Val::S(n))?;
                }
                (op != AtomicStore).then_some(Val::S(old))
            }
            // --- barriers -----------------------------------------------------------------
            WorkgroupBarrier | StorageBarrier | WorkgroupUniformLoad => {
                if !inv.resume_barrier {
                    inv.resume_barrier = true;
                    inv.status = Status::Barrier(func, inst);
                    // Do not advance: the instruction completes when the group resumes.
                    self.executed -= 1;
                    return Ok(());
                }
                inv.resume_barrier = false;
                if op == WorkgroupUniformLoad {
                    let p = arg(0).ptr().ok_or("load through a non-pointer")?;
                    Some(self.load_ptr(group, inv, p, res_ty().unwrap())?)
                } else {
                    None
                }
            }
            // --- special registers --------------------------------------------------------
            ThreadId => Some(vec3(inv.regs.local_id)),
            WorkgroupId => Some(vec3(inv.regs.group_id)),
            DispatchId => {
                let r = inv.regs;
                Some(vec3(
                    [0, 1, 2].map(|i| r.group_id[i] * r.wg_size[i] + r.local_id[i]),
                ))
            }
            LocalInvocationIndex => Some(Val::S(u64::from(inv.regs.local_index))),
            WorkgroupSize => Some(vec3(inv.regs.wg_size)),
            NumWorkgroups => Some(vec3(inv.regs.num_groups)),
            DispatchSize => {
                let r = inv.regs;
                Some(vec3([0, 1, 2].map(|i| r.num_groups[i] * r.wg_size[i])))
            }
            SubgroupInvocationId => Some(Val::S(u64::from(inv.regs.local_index % 32))),
            SubgroupSize => Some(Val::S(32)),
            FragCoord => Some(Val::V(
                self.stage
                    .frag_coord
                    .iter()
                    .map(|x| u64::from(x.to_bits()))
                    .collect(),
            )),
            FrontFacing => Some(Val::S(u64::from(self.stage.front_facing))),
            VertexIndex => Some(Val::S(u64::from(self.stage.vertex_index))),
            InstanceIndex => Some(Val::S(u64::from(self.stage.instance_index))),
            BaseInstance | SampleIndex | PrimitiveId => Some(Val::S(0)),
            // --- textures -----------------------------------------------------------------
            TextureSample | TextureSampleBias | TextureSampleLevel | TextureSampleGrad
            | TextureSampleCompare | TextureLoad | TextureStore | TextureDimensions
            | TextureNumLevels | TextureNumLayers | TextureNumSamples => {
                let args: Vec<Val> = (0..data.args.len()).map(arg).collect();
                self.texture_op(op, types.get(arg_ty(0)), &args, res_ty(), types)?
            }
            // --- calls and debugging --------------------------------------------------------
            Call => {
                let Payload::Callee(callee) = &data.payload else {
                    return Err("call without callee".into());
                };
                let args: Vec<Val> = (0..data.args.len()).map(arg).collect();
                self.push_frame(inv, *callee, &args, result)
                    .map_err(|e| e.message)?;
                return Ok(());
            }
            Print => {
                let msg = match &data.payload {
                    Payload::Message(m) => m.to_string(),
                    _ => String::new(),
                };
                let vals: Vec<Val> = (0..data.args.len()).map(arg).collect();
                self.prints.push(format!("{msg} {vals:?}"));
                None
            }
            Assert => {
                if arg(0).bits() == 0 {
                    let msg = match &data.payload {
                        Payload::Message(m) => m.to_string(),
                        _ => String::new(),
                    };
                    return Err(format!("assertion failed: {msg}"));
                }
                None
            }
            Clock => Some(Val::S(self.executed)),
            Br | CondBr | SwitchBr | Return | Unreachable | Discard | If | Loop | SimpleLoop
            | Switch | Break | Continue => unreachable!("terminators handled above"),
        };
        let fr = inv.frames.last_mut().unwrap();
        if let (Some(r), Some(v)) = (result, value) {
            fr.vals[r.as_u32() as usize] = v;
        }
        fr.pos += 1;
        Ok(())
    }
}

impl Machine<'_> {
    fn handle(v: &Val) -> Result<usize, String> {
        match v.ptr() {
            Some(Ptr {
                region: Region::Buffer(g),
                ..
            }) => Ok(g as usize),
            _ => Err("texture operand is not a resource".into()),
        }
    }

    fn texture_op(
        &mut self,
        op: Opcode,
        tex_ty: &TypeData,
        args: &[Val],
        res_ty: Option<Type>,
        types: &TypeStore,
    ) -> Result<Option<Val>, String> {
        use crate::texture::{quantize, sample, Texture};
        use oxir_ir::types::{SampledKind, TextureDim};
        let (shape, kind, format) = match tex_ty {
            TypeData::Texture { shape, kind } => (*shape, Some(*kind), None),
            TypeData::StorageTexture { shape, format, .. } => (*shape, None, Some(*format)),
            _ => return Err("texture operation on a non-texture".into()),
        };
        let interpreted = match shape.dim {
            TextureDim::D1 => !shape.multisampled,
            TextureDim::D2 => !(shape.multisampled && shape.arrayed),
            _ => false,
        };
        if !interpreted {
            return Err(format!(
                "unsupported: `{op}` on {}{}{} textures (only 1D, 2D, 2D-array and \
                 multisampled 2D textures are interpreted)",
                if shape.multisampled {
                    "multisampled "
                } else {
                    ""
                },
                if shape.arrayed { "arrayed " } else { "" },
                shape.dim.name()
            ));
        }
        let g = Self::handle(&args[0])?;
        let tex = self.textures[g].get_or_insert_with(|| Texture::new(1, 1, 1));
        let layer_arg = |i: usize| -> i64 {
            if shape.arrayed {
                args[i].bits() as i64
            } else {
                0
            }
        };
        let int_kind = match (kind, format) {
            (Some(SampledKind::Sint), _) => Some(true),
            (Some(SampledKind::Uint), _) => Some(false),
            (_, Some(f)) => match f.channel_kind() {
                ScalarKind::Sint => Some(true),
                ScalarKind::Uint => Some(false),
                _ => None,
            },
            _ => None,
        };
        let to_val = |texel: [u32; 4]| -> Val {
            if kind == Some(SampledKind::Depth) {
                return Val::S(u64::from(texel[0]));
            }
            Val::V(
                texel
                    .iter()
                    .map(|&b| {
                        if int_kind == Some(true) {
                            b as i32 as i64 as u64
                        } else {
                            u64::from(b)
                        }
                    })
                    .collect(),
            )
        };
        let coords = |v: &Val| -> (i64, i64) {
            let l = v.lanes();
            let c = |x: u64| x as i64;
            (c(l[0]), l.get(1).map_or(0, |&y| c(y)))
        };
        let fcoords = |v: &Val| -> (f32, f32) {
            let l = v.lanes();
            (
                f32::from_bits(l[0] as u32),
                l.get(1).map_or(0.0, |&y| f32::from_bits(y as u32)),
            )
        };
        Ok(match op {
            Opcode::TextureSample
            | Opcode::TextureSampleBias
            | Opcode::TextureSampleLevel
            | Opcode::TextureSampleGrad
            | Opcode::TextureSampleCompare => {
                let sampler = self.samplers[Self::handle(&args[1])?].unwrap_or_default();
                let (u, v) = fcoords(&args[2]);
                let texel = sample(tex, &sampler, u, v, layer_arg(3));
                if op == Opcode::TextureSampleCompare {
                    let reference =
                        f32::from_bits(args[3 + usize::from(shape.arrayed)].bits() as u32);
                    let pass = reference <= texel[0];
                    Some(Val::S(u64::from(if pass { 1.0f32 } else { 0.0 }.to_bits())))
                } else {
                    Some(to_val(texel.map(f32::to_bits)))
                }
            }
            Opcode::TextureLoad => {
                let (x, y) = coords(&args[1]);
                // The mip level (sampled textures) or sample index (multisampled ones):
                // level 0 is the only level; either out of range reads zero (module doc of
                // `texture`). Negative i32 values are huge as u32, so out of range too.
                let level_or_sample = args
                    .get(2 + usize::from(shape.arrayed))
                    .map_or(0, |v| i64::from(v.bits() as u32));
                let texel = if shape.multisampled {
                    tex.texel_sample(x, y, layer_arg(2), level_or_sample)
                } else if level_or_sample != 0 {
                    None
                } else {
                    tex.texel(x, y, layer_arg(2))
                };
                Some(to_val(texel.unwrap_or([0; 4])))
            }
            Opcode::TextureStore => {
                let (x, y) = coords(&args[1]);
                let layer = layer_arg(2);
                let value = args[2 + usize::from(shape.arrayed)].lanes();
                let raw = [0, 1, 2, 3].map(|i| value.get(i).copied().unwrap_or(0) as u32);
                let q = quantize(format.ok_or("texture_store on a sampled texture")?, raw);
                tex.store(x, y, layer, q);
                None
            }
            Opcode::TextureDimensions => {
                let rt = res_ty.ok_or("texture_dimensions without a result")?;
                Some(match types.get(rt) {
                    TypeData::Vector { .. } => Val::V(
                        [tex.width, tex.height]
                            .iter()
                            .map(|&x| u64::from(x))
                            .collect(),
                    ),
                    _ => Val::S(u64::from(tex.width)),
                })
            }
            Opcode::TextureNumLevels => Some(Val::S(1)),
            Opcode::TextureNumSamples => Some(Val::S(u64::from(tex.samples))),
            Opcode::TextureNumLayers => Some(Val::S(u64::from(tex.layers))),
            _ => None,
        })
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

/// Lane-wise binary map.
pub(crate) fn map2(a: &Val, b: &Val, f: &dyn Fn(u64, u64) -> u64) -> Val {
    match (a, b) {
        (Val::S(x), Val::S(y)) => Val::S(f(*x, *y)),
        (Val::V(l), Val::V(r)) => Val::V(l.iter().zip(r).map(|(&x, &y)| f(x, y)).collect()),
        (Val::C(l), Val::C(r)) => Val::C(l.iter().zip(r).map(|(x, y)| map2(x, y, f)).collect()),
        (x, _) => x.clone(),
    }
}

fn project(v: &Val, i: u64) -> Option<Val> {
    match v {
        Val::V(l) => l.get(i as usize).map(|&x| Val::S(x)),
        Val::C(e) => e.get(i as usize).cloned(),
        _ => None,
    }
}

fn replace(v: &mut Val, path: &[u32], new: Val) -> Option<()> {
    let Some((&first, rest)) = path.split_first() else {
        *v = new;
        return Some(());
    };
    match v {
        Val::V(l) => {
            *l.get_mut(first as usize)? = new.bits();
            Some(())
        }
        Val::C(e) => replace(e.get_mut(first as usize)?, rest, new),
        _ => None,
    }
}

#[allow(dead_code)]
fn kind_of(s: Scalar) -> ScalarKind {
    s.kind
}
