//! The SPIR-V writer (see the crate docs for the plan). Every error here is a preflight gap:
//! the preflight should have refused the module first.

use crate::{opcode_support, Options, Support, TargetEnv};
use oxir_ir::data_layout::{layout_of, LayoutRules};
use oxir_ir::function::FunctionKind;
use oxir_ir::types::{AddressSpace, Scalar, ScalarKind, TypeData};
use oxir_ir::{
    Block, Builtin, Const, ConstKind, Function, Global, Inst, Module, Opcode, Payload, Type, Value,
    ValueDef,
};
use rspirv::dr::{Builder, InsertPoint, Instruction, Operand};
use rspirv::spirv::{self, BuiltIn, Capability, Decoration, GLOp, Op, StorageClass, Word};
use std::collections::{BTreeSet, HashMap};

type R<T> = Result<T, String>;

/// Layout variant of a type: buffers need explicit offsets and strides, other memory none.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Lay {
    None,
    Std430,
    Std140,
}

impl Lay {
    fn rules(self) -> Option<LayoutRules> {
        match self {
            Lay::None => None,
            Lay::Std430 => Some(LayoutRules::Std430),
            Lay::Std140 => Some(LayoutRules::Std140),
        }
    }
}

fn space_lay(space: AddressSpace) -> Lay {
    match space {
        AddressSpace::Storage(_) | AddressSpace::PushConstant => Lay::Std430,
        AddressSpace::Uniform => Lay::Std140,
        _ => Lay::None,
    }
}

fn storage_class(space: AddressSpace) -> StorageClass {
    match space {
        AddressSpace::Function => StorageClass::Function,
        AddressSpace::Private => StorageClass::Private,
        AddressSpace::Workgroup => StorageClass::Workgroup,
        AddressSpace::Storage(_) => StorageClass::StorageBuffer,
        AddressSpace::Uniform => StorageClass::Uniform,
        AddressSpace::PushConstant => StorageClass::PushConstant,
        AddressSpace::Handle => StorageClass::UniformConstant,
    }
}

/// The SPIR-V built-in of a compute-stage oxir built-in.
pub(crate) fn compute_builtin(b: Builtin) -> Option<BuiltIn> {
    Some(match b {
        Builtin::LocalInvocationId => BuiltIn::LocalInvocationId,
        Builtin::LocalInvocationIndex => BuiltIn::LocalInvocationIndex,
        Builtin::GlobalInvocationId => BuiltIn::GlobalInvocationId,
        Builtin::WorkgroupId => BuiltIn::WorkgroupId,
        Builtin::NumWorkgroups => BuiltIn::NumWorkgroups,
        Builtin::SubgroupInvocationId => BuiltIn::SubgroupLocalInvocationId,
        Builtin::SubgroupSize => BuiltIn::SubgroupSize,
        _ => return None,
    })
}

/// How a global became a SPIR-V variable.
#[derive(Copy, Clone)]
struct GlobalVar {
    id: Word,
    /// A buffer whose type is not a struct: wrapped in a `Block` struct of one member.
    wrapped: bool,
}

struct Writer<'a> {
    m: &'a Module,
    options: &'a Options,
    b: Builder,
    caps: BTreeSet<u32>,
    types: HashMap<(Type, Lay), Word>,
    consts: HashMap<Const, Word>,
    u32_consts: HashMap<u32, Word>,
    globals: HashMap<Global, GlobalVar>,
    builtins: HashMap<(BuiltIn, Type), Word>,
    glsl: Option<Word>,
    // Per function:
    values: HashMap<Value, Word>,
    labels: HashMap<Block, Word>,
    exit_labels: HashMap<Block, Word>,
    interface: Vec<Word>,
    cont_values: HashMap<Block, Vec<Word>>,
    temps: HashMap<Inst, Word>,
}

impl<'a> Writer<'a> {
    fn cap(&mut self, c: Capability) {
        self.caps.insert(c as u32);
    }

    fn tdata(&self, ty: Type) -> &'a TypeData {
        self.m.types.get(ty)
    }

    fn scalar_of(&self, ty: Type) -> R<Scalar> {
        self.tdata(ty)
            .scalar_or_vector_elem()
            .map(|p| p.0)
            .or(match self.tdata(ty) {
                TypeData::Matrix { elem, .. } => Some(*elem),
                _ => None,
            })
            .ok_or_else(|| {
                format!(
                    "expected a scalar or vector, got {}",
                    self.m.types.display(ty)
                )
            })
    }

    fn lanes(&self, ty: Type) -> u8 {
        match self.tdata(ty) {
            TypeData::Vector { len, .. } => *len,
            _ => 1,
        }
    }

    fn scalar_type(&mut self, s: Scalar) -> R<Word> {
        Ok(match s.kind {
            ScalarKind::Bool => self.b.type_bool(),
            ScalarKind::Sint | ScalarKind::Uint => {
                if s.bits == 64 {
                    self.cap(Capability::Int64);
                } else if s.bits != 32 {
                    return Err(format!("{}-bit integers", s.bits));
                }
                self.b
                    .type_int(u32::from(s.bits), u32::from(s.kind == ScalarKind::Sint))
            }
            ScalarKind::Float => {
                if s.bits == 64 {
                    self.cap(Capability::Float64);
                } else if s.bits == 16 {
                    self.cap(Capability::Float16);
                } else if s.bits != 32 {
                    return Err(format!("{}-bit floats", s.bits));
                }
                self.b.type_float(u32::from(s.bits))
            }
        })
    }

    fn ty(&mut self, ty: Type) -> R<Word> {
        self.type_lay(ty, Lay::None)
    }

    fn type_lay(&mut self, ty: Type, lay: Lay) -> R<Word> {
        if let Some(&id) = self.types.get(&(ty, lay)) {
            return Ok(id);
        }
        let id = match self.tdata(ty) {
            TypeData::Void => self.b.type_void(),
            TypeData::Scalar(s) => self.scalar_type(*s)?,
            TypeData::Vector { elem, len } => {
                let e = self.scalar_type(*elem)?;
                self.b.type_vector(e, u32::from(*len))
            }
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => {
                let e = self.scalar_type(*elem)?;
                let col = self.b.type_vector(e, u32::from(*rows));
                self.b.type_matrix(col, u32::from(*columns))
            }
            TypeData::Array { elem, len } => {
                let e = self.type_lay(*elem, lay)?;
                let n = self.const_u32(*len);
                let id = self.b.id();
                self.b.type_array_id(Some(id), e, n);
                self.array_stride(id, ty, lay)?;
                id
            }
            TypeData::RuntimeArray { elem } => {
                let e = self.type_lay(*elem, lay)?;
                let id = self.b.id();
                self.b.type_runtime_array_id(Some(id), e);
                self.array_stride(id, ty, lay)?;
                id
            }
            TypeData::Struct(_) => self.struct_type(ty, lay)?,
            TypeData::Pointer { space, pointee } => {
                let p = self.type_lay(*pointee, space_lay(*space))?;
                self.b.type_pointer(None, storage_class(*space), p)
            }
            other => return Err(format!("type {other:?}")),
        };
        self.types.insert((ty, lay), id);
        Ok(id)
    }

    fn array_stride(&mut self, id: Word, ty: Type, lay: Lay) -> R<()> {
        if let Some(rules) = lay.rules() {
            let layout = layout_of(&self.m.types, ty, rules).map_err(|e| e.to_string())?;
            let stride = layout.stride.ok_or("array without stride")?;
            self.b
                .decorate(id, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
        }
        Ok(())
    }

    /// A fresh struct type (never deduplicated) with member layout decorations.
    fn struct_type(&mut self, ty: Type, lay: Lay) -> R<Word> {
        let TypeData::Struct(st) = self.tdata(ty) else {
            return Err("not a struct".into());
        };
        let mut members = Vec::new();
        for m in &st.members {
            members.push(self.type_lay(m.ty, lay)?);
        }
        let id = self.b.id();
        self.b.type_struct_id(Some(id), members);
        if let Some(rules) = lay.rules() {
            let layout = layout_of(&self.m.types, ty, rules).map_err(|e| e.to_string())?;
            for (i, m) in st.members.iter().enumerate() {
                self.member_layout(id, i as u32, m.ty, layout.offsets[i], rules)?;
            }
        }
        Ok(id)
    }

    fn member_layout(
        &mut self,
        st: Word,
        index: u32,
        member_ty: Type,
        offset: u32,
        rules: LayoutRules,
    ) -> R<()> {
        self.b.member_decorate(
            st,
            index,
            Decoration::Offset,
            [Operand::LiteralBit32(offset)],
        );
        // Matrices, also inside arrays, get ColMajor and MatrixStride on the member.
        let mut inner = member_ty;
        loop {
            match self.tdata(inner) {
                TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem } => inner = *elem,
                TypeData::Matrix { .. } => {
                    let layout =
                        layout_of(&self.m.types, inner, rules).map_err(|e| e.to_string())?;
                    let stride = layout.stride.ok_or("matrix without stride")?;
                    self.b.member_decorate(st, index, Decoration::ColMajor, []);
                    self.b.member_decorate(
                        st,
                        index,
                        Decoration::MatrixStride,
                        [Operand::LiteralBit32(stride)],
                    );
                    return Ok(());
                }
                _ => return Ok(()),
            }
        }
    }

    fn const_u32(&mut self, v: u32) -> Word {
        if let Some(&id) = self.u32_consts.get(&v) {
            return id;
        }
        let t = self.b.type_int(32, 0);
        let id = self.b.constant_bit32(t, v);
        self.u32_consts.insert(v, id);
        id
    }

    /// A constant of scalar/vector type `ty` with every lane `bits`.
    fn const_splat(&mut self, ty: Type, bits: u64) -> R<Word> {
        let s = self.scalar_of(ty)?;
        let st = self.scalar_type(s)?;
        let scalar = match s.kind {
            ScalarKind::Bool => {
                if bits != 0 {
                    self.b.constant_true(st)
                } else {
                    self.b.constant_false(st)
                }
            }
            _ if s.bits == 64 => self.b.constant_bit64(st, bits),
            _ => self.b.constant_bit32(st, bits as u32),
        };
        let n = self.lanes(ty);
        if n == 1 {
            return Ok(scalar);
        }
        let t = self.ty(ty)?;
        Ok(self
            .b
            .constant_composite(t, std::iter::repeat_n(scalar, usize::from(n))))
    }

    fn float_bits(&self, ty: Type, x: f64) -> R<u64> {
        let s = self.scalar_of(ty)?;
        Ok(if s.bits == 64 {
            x.to_bits()
        } else if s.bits == 16 {
            u64::from(half_bits(x as f32))
        } else {
            u64::from((x as f32).to_bits())
        })
    }

    fn const_float(&mut self, ty: Type, x: f64) -> R<Word> {
        let bits = self.float_bits(ty, x)?;
        self.const_splat(ty, bits)
    }

    fn constant(&mut self, c: Const) -> R<Word> {
        if let Some(&id) = self.consts.get(&c) {
            return Ok(id);
        }
        let data = self.m.consts.get(c);
        let t = self.ty(data.ty)?;
        let id = match &data.kind {
            ConstKind::Scalar(bits) => self.const_splat(data.ty, *bits)?,
            ConstKind::Composite(elems) => {
                let mut ids = Vec::new();
                for &e in elems {
                    ids.push(self.constant(e)?);
                }
                self.b.constant_composite(t, ids)
            }
            ConstKind::Zero => self.b.constant_null(t),
            ConstKind::Undef => {
                let id = self.b.id();
                self.b
                    .module_mut()
                    .types_global_values
                    .push(Instruction::new(Op::Undef, Some(t), Some(id), vec![]));
                id
            }
        };
        self.consts.insert(c, id);
        Ok(id)
    }

    fn builtin_var(&mut self, builtin: BuiltIn, ty: Type) -> R<Word> {
        let id = if let Some(&id) = self.builtins.get(&(builtin, ty)) {
            id
        } else {
            if matches!(
                builtin,
                BuiltIn::SubgroupLocalInvocationId | BuiltIn::SubgroupSize
            ) {
                self.cap(Capability::GroupNonUniform);
            }
            let t = self.ty(ty)?;
            let pt = self.b.type_pointer(None, StorageClass::Input, t);
            let id = self.b.id();
            self.b
                .module_mut()
                .types_global_values
                .push(Instruction::new(
                    Op::Variable,
                    Some(pt),
                    Some(id),
                    vec![Operand::StorageClass(StorageClass::Input)],
                ));
            self.b
                .decorate(id, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
            self.builtins.insert((builtin, ty), id);
            id
        };
        if !self.interface.contains(&id) {
            self.interface.push(id);
        }
        Ok(id)
    }

    fn load_builtin(&mut self, builtin: BuiltIn, ty: Type, result: Option<Word>) -> R<Word> {
        let var = self.builtin_var(builtin, ty)?;
        let t = self.ty(ty)?;
        self.op(Op::Load, Some(t), result, vec![Operand::IdRef(var)])
    }

    fn declare_globals(&mut self) -> R<()> {
        for (g, data) in self.m.globals.iter() {
            let class = storage_class(data.space);
            let lay = space_lay(data.space);
            let is_buffer = lay != Lay::None;
            let (var_ty, wrapped) = if is_buffer {
                let (st, wrapped) = if let TypeData::Struct(s) = self.tdata(data.ty) {
                    // A fresh copy of the struct as the Block, so nested uses stay plain.
                    let rules = lay.rules().expect("buffer layout");
                    let mut members = Vec::new();
                    for m in &s.members {
                        members.push(self.type_lay(m.ty, lay)?);
                    }
                    let id = self.b.id();
                    self.b.type_struct_id(Some(id), members);
                    let layout =
                        layout_of(&self.m.types, data.ty, rules).map_err(|e| e.to_string())?;
                    for (i, m) in s.members.iter().enumerate() {
                        self.member_layout(id, i as u32, m.ty, layout.offsets[i], rules)?;
                    }
                    (id, false)
                } else {
                    let rules = lay.rules().expect("buffer layout");
                    let inner = self.type_lay(data.ty, lay)?;
                    let id = self.b.id();
                    self.b.type_struct_id(Some(id), [inner]);
                    self.member_layout(id, 0, data.ty, 0, rules)?;
                    (id, true)
                };
                self.b.decorate(st, Decoration::Block, []);
                (st, wrapped)
            } else {
                (self.type_lay(data.ty, Lay::None)?, false)
            };
            let pt = self.b.type_pointer(None, class, var_ty);
            let init = match (data.init, data.space) {
                (Some(c), AddressSpace::Private) => Some(self.constant(c)?),
                _ => None,
            };
            let id = self.b.variable(pt, None, class, init);
            self.b.name(id, data.name.clone());
            if let Some(binding) = data.binding {
                self.b.decorate(
                    id,
                    Decoration::DescriptorSet,
                    [Operand::LiteralBit32(binding.group)],
                );
                self.b.decorate(
                    id,
                    Decoration::Binding,
                    [Operand::LiteralBit32(binding.binding)],
                );
            }
            if let AddressSpace::Storage(oxir_ir::StorageAccess::Read) = data.space {
                self.b.decorate(id, Decoration::NonWritable, []);
            }
            self.globals.insert(g, GlobalVar { id, wrapped });
        }
        Ok(())
    }

    /// Emits one instruction into the current block.
    fn op(
        &mut self,
        opcode: Op,
        ty: Option<Word>,
        result: Option<Word>,
        operands: Vec<Operand>,
    ) -> R<Word> {
        let id = match ty {
            Some(_) => Some(result.unwrap_or_else(|| self.b.id())),
            None => None,
        };
        let inst = Instruction::new(opcode, ty, id, operands);
        self.b
            .insert_into_block(InsertPoint::End, inst)
            .map_err(|e| e.to_string())?;
        if matches!(
            opcode,
            Op::Branch | Op::BranchConditional | Op::Switch | Op::Return | Op::Unreachable
        ) {
            self.b.select_block(None).map_err(|e| e.to_string())?;
        }
        Ok(id.unwrap_or(0))
    }

    fn ext(&mut self, ty: Word, result: Option<Word>, inst: GLOp, args: &[Word]) -> R<Word> {
        let set = match self.glsl {
            Some(s) => s,
            None => {
                let s = self.b.ext_inst_import("GLSL.std.450");
                self.glsl = Some(s);
                s
            }
        };
        self.b
            .ext_inst(
                ty,
                result,
                set,
                inst as u32,
                args.iter().map(|&a| Operand::IdRef(a)),
            )
            .map_err(|e| e.to_string())
    }

    fn ids(args: &[Word]) -> Vec<Operand> {
        args.iter().map(|&a| Operand::IdRef(a)).collect()
    }

    fn mark_global(&mut self, id: Word) {
        if self.options.target_env.spirv_version() >= (1, 4) && !self.interface.contains(&id) {
            self.interface.push(id);
        }
    }

    /// The SPIR-V id of an oxir value (emitting an access chain for a wrapped buffer).
    fn val(&mut self, f: &Function, v: Value) -> R<Word> {
        let v = f.resolve(v);
        match f.dfg.value_def(v) {
            ValueDef::Result(_) | ValueDef::Param(..) => self
                .values
                .get(&v)
                .copied()
                .ok_or_else(|| format!("value {v} has no id")),
            ValueDef::Const(c) => self.constant(c),
            ValueDef::Global(g) => {
                let gv = self.globals[&g];
                self.mark_global(gv.id);
                if gv.wrapped {
                    let pt = self.ty(f.dfg.value_type(v))?;
                    let zero = self.const_u32(0);
                    self.op(Op::AccessChain, Some(pt), None, Self::ids(&[gv.id, zero]))
                } else {
                    Ok(gv.id)
                }
            }
            other => Err(format!("value {v} is {other:?}")),
        }
    }

    /// Converts a value of type `ty` between layout variants (arrays and structs differ).
    fn relayout(
        &mut self,
        value: Word,
        ty: Type,
        from: Lay,
        to: Lay,
        result: Option<Word>,
    ) -> R<Word> {
        let differs =
            from != to && matches!(self.tdata(ty), TypeData::Array { .. } | TypeData::Struct(_));
        if !differs {
            return match result {
                Some(r) => {
                    let t = self.type_lay(ty, to)?;
                    self.op(
                        Op::CopyObject,
                        Some(t),
                        Some(r),
                        vec![Operand::IdRef(value)],
                    )
                }
                None => Ok(value),
            };
        }
        let to_ty = self.type_lay(ty, to)?;
        if self.options.target_env.spirv_version() >= (1, 4) {
            return self.op(
                Op::CopyLogical,
                Some(to_ty),
                result,
                vec![Operand::IdRef(value)],
            );
        }
        let parts: Vec<Type> = match self.tdata(ty) {
            TypeData::Array { elem, len } => vec![*elem; *len as usize],
            TypeData::Struct(st) => st.members.iter().map(|m| m.ty).collect(),
            _ => unreachable!(),
        };
        let mut ids = Vec::new();
        for (i, part) in parts.into_iter().enumerate() {
            let pt = self.type_lay(part, from)?;
            let e = self.op(
                Op::CompositeExtract,
                Some(pt),
                None,
                vec![Operand::IdRef(value), Operand::LiteralBit32(i as u32)],
            )?;
            ids.push(self.relayout(e, part, from, to, None)?);
        }
        self.op(Op::CompositeConstruct, Some(to_ty), result, Self::ids(&ids))
    }

    fn pointer_space(&self, f: &Function, ptr: Value) -> R<(AddressSpace, Type)> {
        match self.tdata(f.dfg.value_type(f.resolve(ptr))) {
            TypeData::Pointer { space, pointee } => Ok((*space, *pointee)),
            _ => Err("expected a pointer".into()),
        }
    }

    fn write_function(&mut self, f: &Function) -> R<()> {
        let FunctionKind::Kernel { workgroup_size } = f.kind else {
            return Err("not a kernel".into());
        };
        self.values.clear();
        self.labels.clear();
        self.exit_labels.clear();
        self.interface.clear();
        self.cont_values.clear();
        self.temps.clear();
        let entry = f.entry_block().ok_or("kernel without body")?;

        // Roles: loop prepare blocks (header of OpLoopMerge), simple loop bodies.
        let mut prepare_of: HashMap<Block, (Block, Block)> = HashMap::new(); // P -> (M, U)
        let mut simple_body: HashMap<Block, (Block, Block)> = HashMap::new(); // B -> (H, M)
        let mut if_without_merge: HashMap<Block, Word> = HashMap::new();
        for block in f.layout.blocks() {
            self.labels.insert(block, self.b.id());
            if let Some(t) = f.terminator(block) {
                match &f.dfg.inst(t).payload {
                    Payload::Loop {
                        prepare,
                        update,
                        merge,
                        ..
                    } => {
                        prepare_of.insert(prepare.block, (*merge, *update));
                    }
                    Payload::SimpleLoop { body, merge } => {
                        simple_body.insert(body.block, (block, *merge));
                    }
                    Payload::If { merge: None, .. } => {
                        let id = self.b.id();
                        if_without_merge.insert(block, id);
                    }
                    _ => {}
                }
            }
        }
        for block in f.layout.blocks() {
            let l = self.labels[&block];
            self.exit_labels.insert(block, l);
            for &p in f.dfg.block_params(block) {
                let id = self.b.id();
                self.values.insert(p, id);
            }
            for inst in f.layout.block_insts(block) {
                if let Some(r) = f.dfg.inst_result(inst) {
                    let id = self.b.id();
                    self.values.insert(r, id);
                }
            }
        }
        // Synthetic continue blocks of simple loops, and the split-off body content.
        let mut continue_of: HashMap<Block, Word> = HashMap::new();
        let mut body_content: HashMap<Block, Word> = HashMap::new();
        for &b in simple_body.keys() {
            continue_of.insert(b, self.b.id());
            let n = f.dfg.block_params(b).len();
            let ids = (0..n).map(|_| self.b.id()).collect();
            self.cont_values.insert(b, ids);
            let content = self.b.id();
            body_content.insert(b, content);
            self.exit_labels.insert(b, content);
        }
        // Workgroup globals with an initializer: stored by invocation 0 in a prologue.
        let wg_init: Vec<(Global, Const)> = self
            .m
            .globals
            .iter()
            .filter(|(_, g)| g.space == AddressSpace::Workgroup)
            .filter_map(|(id, g)| g.init.map(|c| (id, c)))
            .collect();
        let prologue = if wg_init.is_empty() {
            None
        } else {
            let (z, mz) = (self.b.id(), self.b.id());
            self.exit_labels.insert(entry, mz);
            Some((z, mz))
        };

        // Edge targets as emitted: back edges into a simple loop body go to its continue.
        let target = |from: Block, to: Block| -> Option<Word> {
            match simple_body.get(&to) {
                Some(&(header, _)) if header != from => continue_of.get(&to).copied(),
                _ => None,
            }
        };

        // Predecessors (emitted edges) with their arguments, over every block in the layout.
        let mut preds: HashMap<Block, Vec<(Block, Vec<Value>)>> = HashMap::new();
        let mut cont_preds: HashMap<Block, Vec<(Block, Vec<Value>)>> = HashMap::new();
        for block in f.layout.blocks() {
            let Some(t) = f.terminator(block) else {
                continue;
            };
            let mut seen = Vec::new();
            for e in f.dfg.inst(t).payload.edges() {
                if seen.contains(&e.block) {
                    continue;
                }
                seen.push(e.block);
                let entry = (block, e.args.to_vec());
                if target(block, e.block).is_some() {
                    cont_preds.entry(e.block).or_default().push(entry);
                } else {
                    preds.entry(e.block).or_default().push(entry);
                }
            }
        }

        // Emission order: reverse post-order over emitted edges, then everything else.
        #[derive(Copy, Clone, PartialEq, Eq, Hash)]
        enum Node {
            B(Block),
            C(Block),
        }
        let succs = |n: Node| -> Vec<Node> {
            match n {
                Node::C(b) => vec![Node::B(b)],
                Node::B(block) => f
                    .terminator(block)
                    .map(|t| {
                        f.dfg
                            .inst(t)
                            .payload
                            .edges()
                            .iter()
                            .map(|e| {
                                if target(block, e.block).is_some() {
                                    Node::C(e.block)
                                } else {
                                    Node::B(e.block)
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        };
        let mut order = Vec::new();
        let mut visited = std::collections::HashSet::new();
        let mut stack = vec![(Node::B(entry), 0usize)];
        visited.insert(Node::B(entry));
        while let Some((n, i)) = stack.pop() {
            let s = succs(n);
            if i < s.len() {
                stack.push((n, i + 1));
                if visited.insert(s[i]) {
                    stack.push((s[i], 0));
                }
            } else {
                order.push(n);
            }
        }
        order.reverse();
        for block in f.layout.blocks() {
            if visited.insert(Node::B(block)) {
                order.push(Node::B(block));
            }
        }
        let mut bodies: Vec<Block> = simple_body.keys().copied().collect();
        bodies.sort_by_key(|b| b.as_u32());
        for b in bodies {
            if visited.insert(Node::C(b)) {
                order.push(Node::C(b));
            }
        }

        // The function.
        let void = self.b.type_void();
        let fn_ty = self.b.type_function(void, []);
        let fid = self
            .b
            .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
            .map_err(|e| e.to_string())?;
        let mut first = true;
        for node in order {
            match node {
                Node::C(b) => {
                    self.b
                        .begin_block(Some(continue_of[&b]))
                        .map_err(|e| e.to_string())?;
                    let incoming = cont_preds.get(&b).cloned().unwrap_or_default();
                    let params = f.dfg.block_params(b).to_vec();
                    for (i, &p) in params.iter().enumerate() {
                        let t = self.ty(f.dfg.value_type(p))?;
                        let id = self.cont_values[&b][i];
                        if incoming.is_empty() {
                            self.b
                                .module_mut()
                                .types_global_values
                                .push(Instruction::new(Op::Undef, Some(t), Some(id), vec![]));
                            continue;
                        }
                        let mut pairs = Vec::new();
                        for (pred, args) in &incoming {
                            pairs.push((self.val(f, args[i])?, self.exit_labels[pred]));
                        }
                        self.b.phi(t, Some(id), pairs).map_err(|e| e.to_string())?;
                    }
                    self.op(
                        Op::Branch,
                        None,
                        None,
                        vec![Operand::IdRef(self.labels[&b])],
                    )?;
                }
                Node::B(block) => {
                    self.b
                        .begin_block(Some(self.labels[&block]))
                        .map_err(|e| e.to_string())?;
                    if first {
                        first = false;
                        self.function_prologue(f, entry, workgroup_size)?;
                    }
                    self.phis(f, block, &preds, &continue_of)?;
                    if let Some(&(_, merge)) = simple_body.get(&block) {
                        let cont = continue_of[&block];
                        let merge = self.labels[&merge];
                        self.b
                            .loop_merge(merge, cont, spirv::LoopControl::NONE, [])
                            .map_err(|e| e.to_string())?;
                        let content = body_content[&block];
                        self.op(Op::Branch, None, None, vec![Operand::IdRef(content)])?;
                        self.b
                            .begin_block(Some(content))
                            .map_err(|e| e.to_string())?;
                    }
                    if block == entry {
                        if let Some((z, mz)) = prologue {
                            self.zero_init(&wg_init, z, mz)?;
                        }
                    }
                    for inst in f.layout.block_insts(block) {
                        if f.dfg.inst(inst).opcode.is_terminator() {
                            self.terminator(
                                f,
                                block,
                                inst,
                                &prepare_of,
                                &if_without_merge,
                                &target,
                            )?;
                        } else {
                            self.inst(f, inst, workgroup_size)?;
                        }
                    }
                }
            }
        }
        let mut merges: Vec<Word> = if_without_merge.values().copied().collect();
        merges.sort();
        for m in merges {
            self.b.begin_block(Some(m)).map_err(|e| e.to_string())?;
            self.op(Op::Unreachable, None, None, vec![])?;
        }
        self.b.end_function().map_err(|e| e.to_string())?;
        self.b.entry_point(
            spirv::ExecutionModel::GLCompute,
            fid,
            f.name.clone(),
            self.interface.clone(),
        );
        self.b
            .execution_mode(fid, spirv::ExecutionMode::LocalSize, workgroup_size);
        self.b.name(fid, f.name.clone());
        Ok(())
    }

    fn function_prologue(&mut self, f: &Function, entry: Block, wg: [u32; 3]) -> R<()> {
        let _ = wg;
        // Function-space variables: allocas and temporaries for dynamic composite indexing.
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                let data = f.dfg.inst(inst);
                match data.opcode {
                    Opcode::Alloca => {
                        let r = f.dfg.inst_result(inst).ok_or("alloca without result")?;
                        let ty = f.dfg.value_type(r);
                        let (space, _) = match self.tdata(ty) {
                            TypeData::Pointer { space, pointee } => (*space, *pointee),
                            _ => return Err("alloca of non-pointer".into()),
                        };
                        let pt = self.ty(ty)?;
                        let id = self.values[&r];
                        if space == AddressSpace::Function {
                            let inst = Instruction::new(
                                Op::Variable,
                                Some(pt),
                                Some(id),
                                vec![Operand::StorageClass(StorageClass::Function)],
                            );
                            self.b
                                .insert_into_block(InsertPoint::End, inst)
                                .map_err(|e| e.to_string())?;
                        } else {
                            let inst = Instruction::new(
                                Op::Variable,
                                Some(pt),
                                Some(id),
                                vec![Operand::StorageClass(storage_class(space))],
                            );
                            self.b.module_mut().types_global_values.push(inst);
                            self.mark_global(id);
                        }
                    }
                    Opcode::ExtractDynamic | Opcode::InsertDynamic => {
                        let comp = f.dfg.value_type(f.resolve(data.args[0]));
                        if !matches!(self.tdata(comp), TypeData::Vector { .. }) {
                            let t = self.ty(comp)?;
                            let pt = self.b.type_pointer(None, StorageClass::Function, t);
                            let id = self.b.id();
                            let v = Instruction::new(
                                Op::Variable,
                                Some(pt),
                                Some(id),
                                vec![Operand::StorageClass(StorageClass::Function)],
                            );
                            self.b
                                .insert_into_block(InsertPoint::End, v)
                                .map_err(|e| e.to_string())?;
                            self.temps.insert(inst, id);
                        }
                    }
                    _ => {}
                }
            }
        }
        // Entry parameters: built-in inputs.
        let params = f.dfg.block_params(entry).to_vec();
        for (i, &p) in params.iter().enumerate() {
            let Some(oxir_ir::StageBinding::Builtin(b)) = f.signature.params[i].binding else {
                return Err("kernel parameter without built-in".into());
            };
            let bi = compute_builtin(b).ok_or("built-in")?;
            let id = self.values[&p];
            self.load_builtin(bi, f.dfg.value_type(p), Some(id))?;
        }
        Ok(())
    }

    fn zero_init(&mut self, inits: &[(Global, Const)], z: Word, mz: Word) -> R<()> {
        let u32_ty = self
            .m
            .types
            .iter()
            .find(|(_, t)| **t == TypeData::Scalar(Scalar::U32));
        let u32_ty = u32_ty.map(|(t, _)| t).ok_or("no u32 type in module")?;
        let index = self.load_builtin(BuiltIn::LocalInvocationIndex, u32_ty, None)?;
        let zero = self.const_u32(0);
        let bool_ty = self.b.type_bool();
        let is_first = self.op(Op::IEqual, Some(bool_ty), None, Self::ids(&[index, zero]))?;
        self.b
            .selection_merge(mz, spirv::SelectionControl::NONE)
            .map_err(|e| e.to_string())?;
        self.op(
            Op::BranchConditional,
            None,
            None,
            Self::ids(&[is_first, z, mz]),
        )?;
        self.b.begin_block(Some(z)).map_err(|e| e.to_string())?;
        for &(g, c) in inits {
            let var = self.globals[&g].id;
            self.mark_global(var);
            let value = self.constant(c)?;
            self.op(Op::Store, None, None, Self::ids(&[var, value]))?;
        }
        self.op(Op::Branch, None, None, vec![Operand::IdRef(mz)])?;
        self.b.begin_block(Some(mz)).map_err(|e| e.to_string())?;
        self.barrier(spirv::Scope::Workgroup, 0x8 | 0x100)?;
        Ok(())
    }

    fn barrier(&mut self, memory: spirv::Scope, semantics: u32) -> R<()> {
        let exec = self.const_u32(spirv::Scope::Workgroup as u32);
        let mem = self.const_u32(memory as u32);
        let sem = self.const_u32(semantics);
        self.op(Op::ControlBarrier, None, None, Self::ids(&[exec, mem, sem]))?;
        Ok(())
    }

    fn phis(
        &mut self,
        f: &Function,
        block: Block,
        preds: &HashMap<Block, Vec<(Block, Vec<Value>)>>,
        continue_of: &HashMap<Block, Word>,
    ) -> R<()> {
        let params = f.dfg.block_params(block).to_vec();
        if params.is_empty() {
            return Ok(());
        }
        let incoming = preds.get(&block).cloned().unwrap_or_default();
        for (i, &p) in params.iter().enumerate() {
            let t = self.ty(f.dfg.value_type(p))?;
            let mut pairs = Vec::new();
            for (pred, args) in &incoming {
                pairs.push((self.val(f, args[i])?, self.exit_labels[pred]));
            }
            let id = self.values[&p];
            if let Some(&cont) = continue_of.get(&block) {
                // The continue block's value is known only once it is emitted.
                pairs.push((self.cont_values[&block][i], cont));
            }
            self.b.phi(t, Some(id), pairs).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

impl Writer<'_> {
    fn terminator(
        &mut self,
        f: &Function,
        block: Block,
        inst: Inst,
        prepare_of: &HashMap<Block, (Block, Block)>,
        if_without_merge: &HashMap<Block, Word>,
        target: &dyn Fn(Block, Block) -> Option<Word>,
    ) -> R<()> {
        let data = f.dfg.inst(inst);
        let dest = |this: &Self, to: Block| target(block, to).unwrap_or(this.labels[&to]);
        if let Some(&(merge, update)) = prepare_of.get(&block) {
            let (m, u) = (self.labels[&merge], self.labels[&update]);
            self.b
                .loop_merge(m, u, spirv::LoopControl::NONE, [])
                .map_err(|e| e.to_string())?;
        }
        match (&data.payload, data.opcode) {
            (Payload::Jump(to), _) => {
                let l = dest(self, to.block);
                self.op(Op::Branch, None, None, vec![Operand::IdRef(l)])?;
            }
            (Payload::Loop { prepare, .. }, _) => {
                let l = dest(self, prepare.block);
                self.op(Op::Branch, None, None, vec![Operand::IdRef(l)])?;
            }
            (Payload::SimpleLoop { body, .. }, _) => {
                let l = dest(self, body.block);
                self.op(Op::Branch, None, None, vec![Operand::IdRef(l)])?;
            }
            (
                Payload::CondBranch {
                    then_dest,
                    else_dest,
                },
                _,
            ) => {
                let c = self.val(f, data.args[0])?;
                let (t, e) = (dest(self, then_dest.block), dest(self, else_dest.block));
                self.op(Op::BranchConditional, None, None, Self::ids(&[c, t, e]))?;
            }
            (
                Payload::If {
                    then_dest,
                    else_dest,
                    merge,
                },
                _,
            ) => {
                let c = self.val(f, data.args[0])?;
                let m = match merge {
                    Some(m) => self.labels[m],
                    None => if_without_merge[&block],
                };
                self.b
                    .selection_merge(m, spirv::SelectionControl::NONE)
                    .map_err(|e| e.to_string())?;
                let (t, e) = (dest(self, then_dest.block), dest(self, else_dest.block));
                self.op(Op::BranchConditional, None, None, Self::ids(&[c, t, e]))?;
            }
            (Payload::Switch { table, merge }, _) => {
                let sel = f.resolve(data.args[0]);
                let wide = self.scalar_of(f.dfg.value_type(sel))?.bits == 64;
                let s = self.val(f, sel)?;
                let m = self.labels[merge];
                self.b
                    .selection_merge(m, spirv::SelectionControl::NONE)
                    .map_err(|e| e.to_string())?;
                let mut ops = vec![
                    Operand::IdRef(s),
                    Operand::IdRef(dest(self, table.default.block)),
                ];
                for (label, to) in &table.cases {
                    ops.push(if wide {
                        Operand::LiteralBit64(*label)
                    } else {
                        Operand::LiteralBit32(*label as u32)
                    });
                    ops.push(Operand::IdRef(dest(self, to.block)));
                }
                self.op(Op::Switch, None, None, ops)?;
            }
            (_, Opcode::Return) => {
                self.op(Op::Return, None, None, vec![])?;
            }
            (_, Opcode::Unreachable) => {
                self.op(Op::Unreachable, None, None, vec![])?;
            }
            (_, op) => return Err(format!("terminator `{op}`")),
        }
        Ok(())
    }

    fn inst(&mut self, f: &Function, inst: Inst, wg: [u32; 3]) -> R<()> {
        let data = f.dfg.inst(inst);
        let op = data.opcode;
        if let Support::Refused(why) = opcode_support(op) {
            return Err(format!("{why} (`{op}`)"));
        }
        let result = f.dfg.inst_result(inst);
        let rid = result.map(|r| self.values[&r]);
        let rty_o = result.map(|r| f.dfg.value_type(r));
        let rt = match rty_o {
            Some(t) => Some(self.ty(t)?),
            None => None,
        };
        let args: Vec<Value> = data.args.iter().map(|&a| f.resolve(a)).collect();
        let aty = |i: usize| f.dfg.value_type(args[i]);
        // Operands as ids (pointer operands of wrapped globals become access chains).
        let mut a = Vec::new();
        if !matches!(op, Opcode::Access | Opcode::ArrayLength) {
            for &v in &args {
                a.push(self.val(f, v)?);
            }
        }
        let s0 = if args.is_empty() {
            None
        } else {
            self.scalar_of(aty(0)).ok()
        };
        let kind = s0.map(|s| s.kind);
        let float = kind == Some(ScalarKind::Float);
        let signed = kind == Some(ScalarKind::Sint);
        let boolean = kind == Some(ScalarKind::Bool);
        let rt_ = rt.unwrap_or(0);
        let simple = |this: &mut Self, o: Op| this.op(o, rt, rid, Self::ids(&a));
        use Opcode::*;
        match op {
            Add | Sub if matches!(self.tdata(aty(0)), TypeData::Matrix { .. }) => {
                let TypeData::Matrix {
                    elem,
                    columns,
                    rows,
                } = *self.tdata(aty(0))
                else {
                    unreachable!()
                };
                let e = self.scalar_type(elem)?;
                let col = self.b.type_vector(e, u32::from(rows));
                let mut cols = Vec::new();
                for c in 0..u32::from(columns) {
                    let x = self.op(
                        Op::CompositeExtract,
                        Some(col),
                        None,
                        vec![Operand::IdRef(a[0]), Operand::LiteralBit32(c)],
                    )?;
                    let y = self.op(
                        Op::CompositeExtract,
                        Some(col),
                        None,
                        vec![Operand::IdRef(a[1]), Operand::LiteralBit32(c)],
                    )?;
                    let o = if op == Add { Op::FAdd } else { Op::FSub };
                    cols.push(self.op(o, Some(col), None, Self::ids(&[x, y]))?);
                }
                self.op(Op::CompositeConstruct, rt, rid, Self::ids(&cols))?;
            }
            Add => {
                simple(self, if float { Op::FAdd } else { Op::IAdd })?;
            }
            Sub => {
                simple(self, if float { Op::FSub } else { Op::ISub })?;
            }
            Mul => {
                simple(self, if float { Op::FMul } else { Op::IMul })?;
            }
            Div | Rem if float => {
                simple(self, if op == Div { Op::FDiv } else { Op::FRem })?;
            }
            Div | Rem => {
                // WGSL: x / 0 = x, x % 0 = 0, MIN / -1 = MIN, MIN % -1 = 0: divide by 1.
                let ty = aty(0);
                let bt = self.bool_like(ty)?;
                let zero = self.const_splat(ty, 0)?;
                let one = self.const_splat(ty, 1)?;
                let mut bad = self.op(Op::IEqual, Some(bt), None, Self::ids(&[a[1], zero]))?;
                if signed {
                    let bits = s0.unwrap().bits;
                    let min = self.const_splat(ty, 1u64 << (bits - 1))?;
                    let neg1 = self.const_splat(ty, u64::MAX)?;
                    let is_min = self.op(Op::IEqual, Some(bt), None, Self::ids(&[a[0], min]))?;
                    let is_neg1 = self.op(Op::IEqual, Some(bt), None, Self::ids(&[a[1], neg1]))?;
                    let both = self.op(
                        Op::LogicalAnd,
                        Some(bt),
                        None,
                        Self::ids(&[is_min, is_neg1]),
                    )?;
                    bad = self.op(Op::LogicalOr, Some(bt), None, Self::ids(&[bad, both]))?;
                }
                let d = self.op(Op::Select, Some(rt_), None, Self::ids(&[bad, one, a[1]]))?;
                let o = match (op, signed) {
                    (Div, true) => Op::SDiv,
                    (Div, false) => Op::UDiv,
                    (_, true) => Op::SRem,
                    (_, false) => Op::UMod,
                };
                self.op(o, rt, rid, Self::ids(&[a[0], d]))?;
            }
            Neg => {
                simple(self, if float { Op::FNegate } else { Op::SNegate })?;
            }
            Abs if !float && !signed => {
                self.op(Op::CopyObject, rt, rid, Self::ids(&a))?;
            }
            Abs => {
                self.ext(rt_, rid, if float { GLOp::FAbs } else { GLOp::SAbs }, &a)?;
            }
            Sign => {
                self.ext(rt_, rid, if float { GLOp::FSign } else { GLOp::SSign }, &a)?;
            }
            Min | Max => {
                let g = match (op, kind) {
                    (Min, Some(ScalarKind::Float)) => GLOp::NMin,
                    (Min, Some(ScalarKind::Sint)) => GLOp::SMin,
                    (Min, _) => GLOp::UMin,
                    (_, Some(ScalarKind::Float)) => GLOp::NMax,
                    (_, Some(ScalarKind::Sint)) => GLOp::SMax,
                    _ => GLOp::UMax,
                };
                self.ext(rt_, rid, g, &a)?;
            }
            Clamp => {
                let (mx, mn) = match kind {
                    Some(ScalarKind::Float) => (GLOp::NMax, GLOp::NMin),
                    Some(ScalarKind::Sint) => (GLOp::SMax, GLOp::SMin),
                    _ => (GLOp::UMax, GLOp::UMin),
                };
                let lo = self.ext(rt_, None, mx, &[a[0], a[1]])?;
                self.ext(rt_, rid, mn, &[lo, a[2]])?;
            }
            Select => {
                let mut c = a[0];
                let lanes = self.lanes(aty(1));
                if self.lanes(aty(0)) == 1
                    && lanes > 1
                    && self.options.target_env.spirv_version() < (1, 4)
                {
                    let bt = self.b.type_bool();
                    let bv = self.b.type_vector(bt, u32::from(lanes));
                    c = self.op(
                        Op::CompositeConstruct,
                        Some(bv),
                        None,
                        Self::ids(&vec![c; usize::from(lanes)]),
                    )?;
                }
                self.op(Op::Select, rt, rid, Self::ids(&[c, a[1], a[2]]))?;
            }
            And => {
                simple(
                    self,
                    if boolean {
                        Op::LogicalAnd
                    } else {
                        Op::BitwiseAnd
                    },
                )?;
            }
            Or => {
                simple(
                    self,
                    if boolean {
                        Op::LogicalOr
                    } else {
                        Op::BitwiseOr
                    },
                )?;
            }
            Xor => {
                simple(
                    self,
                    if boolean {
                        Op::LogicalNotEqual
                    } else {
                        Op::BitwiseXor
                    },
                )?;
            }
            Not => {
                simple(self, if boolean { Op::LogicalNot } else { Op::Not })?;
            }
            Shl | Shr | Rotl | Rotr => {
                let bits = u64::from(s0.unwrap().bits);
                let st = aty(1);
                let stid = self.ty(st)?;
                let mask = self.const_splat(st, bits - 1)?;
                let amount = self.op(Op::BitwiseAnd, Some(stid), None, Self::ids(&[a[1], mask]))?;
                match op {
                    Shl => {
                        self.op(Op::ShiftLeftLogical, rt, rid, Self::ids(&[a[0], amount]))?;
                    }
                    Shr => {
                        let o = if signed {
                            Op::ShiftRightArithmetic
                        } else {
                            Op::ShiftRightLogical
                        };
                        self.op(o, rt, rid, Self::ids(&[a[0], amount]))?;
                    }
                    _ => {
                        let w = self.const_splat(st, bits)?;
                        let back = self.op(Op::ISub, Some(stid), None, Self::ids(&[w, amount]))?;
                        let back =
                            self.op(Op::BitwiseAnd, Some(stid), None, Self::ids(&[back, mask]))?;
                        let (l, r) = if op == Rotl {
                            (amount, back)
                        } else {
                            (back, amount)
                        };
                        let x = self.op(Op::ShiftLeftLogical, rt, None, Self::ids(&[a[0], l]))?;
                        let y = self.op(Op::ShiftRightLogical, rt, None, Self::ids(&[a[0], r]))?;
                        self.op(Op::BitwiseOr, rt, rid, Self::ids(&[x, y]))?;
                    }
                }
            }
            CountOnes => {
                simple(self, Op::BitCount)?;
            }
            ReverseBits => {
                simple(self, Op::BitReverse)?;
            }
            CountLeadingZeros => {
                let msb = self.ext(rt_, None, GLOp::FindUMsb, &a)?;
                let k = self.const_splat(aty(0), 31)?;
                self.op(Op::ISub, rt, rid, Self::ids(&[k, msb]))?;
            }
            CountTrailingZeros => {
                let lsb = self.ext(rt_, None, GLOp::FindILsb, &a)?;
                let ut = self
                    .m
                    .types
                    .iter()
                    .find(|(_, t)| match t {
                        TypeData::Scalar(s) => *s == Scalar::U32 && self.lanes(aty(0)) == 1,
                        TypeData::Vector { elem, len } => {
                            *elem == Scalar::U32 && *len == self.lanes(aty(0))
                        }
                        _ => false,
                    })
                    .map(|(t, _)| t);
                let k32 = 32u64;
                match (signed, ut) {
                    (false, _) => {
                        let k = self.const_splat(aty(0), k32)?;
                        self.ext(rt_, rid, GLOp::UMin, &[lsb, k])?;
                    }
                    (true, Some(ut)) => {
                        let utid = self.ty(ut)?;
                        let u =
                            self.op(Op::Bitcast, Some(utid), None, vec![Operand::IdRef(lsb)])?;
                        let k = self.const_splat(ut, k32)?;
                        let m = self.ext(utid, None, GLOp::UMin, &[u, k])?;
                        self.op(Op::Bitcast, rt, rid, vec![Operand::IdRef(m)])?;
                    }
                    (true, None) => {
                        // FindILsb is -1 only for 0: select 32 there.
                        let bt = self.bool_like(aty(0))?;
                        let neg = self.const_splat(aty(0), u64::MAX)?;
                        let k = self.const_splat(aty(0), k32)?;
                        let z = self.op(Op::IEqual, Some(bt), None, Self::ids(&[lsb, neg]))?;
                        self.op(Op::Select, rt, rid, Self::ids(&[z, k, lsb]))?;
                    }
                }
            }
            ExtractBits | InsertBits => {
                // WGSL: o = min(offset, w), c = min(count, w - o).
                let n = if op == ExtractBits { 1 } else { 2 };
                let ut = aty(n);
                let utid = self.ty(ut)?;
                let w = self.const_splat(ut, 32)?;
                let o = self.ext(utid, None, GLOp::UMin, &[a[n], w])?;
                let rest = self.op(Op::ISub, Some(utid), None, Self::ids(&[w, o]))?;
                let c = self.ext(utid, None, GLOp::UMin, &[a[n + 1], rest])?;
                if op == ExtractBits {
                    let o2 = if signed {
                        Op::BitFieldSExtract
                    } else {
                        Op::BitFieldUExtract
                    };
                    self.op(o2, rt, rid, Self::ids(&[a[0], o, c]))?;
                } else {
                    self.op(Op::BitFieldInsert, rt, rid, Self::ids(&[a[0], a[1], o, c]))?;
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let o = match (op, kind) {
                    (Eq, Some(ScalarKind::Bool)) => Op::LogicalEqual,
                    (Ne, Some(ScalarKind::Bool)) => Op::LogicalNotEqual,
                    (Eq, Some(ScalarKind::Float)) => Op::FOrdEqual,
                    (Ne, Some(ScalarKind::Float)) => Op::FUnordNotEqual,
                    (Lt, Some(ScalarKind::Float)) => Op::FOrdLessThan,
                    (Le, Some(ScalarKind::Float)) => Op::FOrdLessThanEqual,
                    (Gt, Some(ScalarKind::Float)) => Op::FOrdGreaterThan,
                    (Ge, Some(ScalarKind::Float)) => Op::FOrdGreaterThanEqual,
                    (Eq, _) => Op::IEqual,
                    (Ne, _) => Op::INotEqual,
                    (Lt, Some(ScalarKind::Sint)) => Op::SLessThan,
                    (Le, Some(ScalarKind::Sint)) => Op::SLessThanEqual,
                    (Gt, Some(ScalarKind::Sint)) => Op::SGreaterThan,
                    (Ge, Some(ScalarKind::Sint)) => Op::SGreaterThanEqual,
                    (Lt, _) => Op::ULessThan,
                    (Le, _) => Op::ULessThanEqual,
                    (Gt, _) => Op::UGreaterThan,
                    _ => Op::UGreaterThanEqual,
                };
                simple(self, o)?;
            }
            IsNan => {
                simple(self, Op::IsNan)?;
            }
            IsInf => {
                simple(self, Op::IsInf)?;
            }
            Any | All if self.lanes(aty(0)) == 1 => {
                self.op(Op::CopyObject, rt, rid, Self::ids(&a))?;
            }
            Any => {
                simple(self, Op::Any)?;
            }
            All => {
                simple(self, Op::All)?;
            }
            Sin | Cos | Tan | Asin | Acos | Atan | Atan2 | Sinh | Cosh | Tanh | Asinh | Acosh
            | Atanh | Exp | Exp2 | Log | Log2 | Pow | Sqrt | InverseSqrt | Ceil | Floor | Fract
            | Trunc | Round | RoundEven | Fma | Step | Smoothstep | Mix | Degrees | Radians
            | Cross | Length | Distance | Normalize | Reflect | FaceForward | Determinant
            | Inverse => {
                let g = match op {
                    Sin => GLOp::Sin,
                    Cos => GLOp::Cos,
                    Tan => GLOp::Tan,
                    Asin => GLOp::Asin,
                    Acos => GLOp::Acos,
                    Atan => GLOp::Atan,
                    Atan2 => GLOp::Atan2,
                    Sinh => GLOp::Sinh,
                    Cosh => GLOp::Cosh,
                    Tanh => GLOp::Tanh,
                    Asinh => GLOp::Asinh,
                    Acosh => GLOp::Acosh,
                    Atanh => GLOp::Atanh,
                    Exp => GLOp::Exp,
                    Exp2 => GLOp::Exp2,
                    Log => GLOp::Log,
                    Log2 => GLOp::Log2,
                    Pow => GLOp::Pow,
                    Sqrt => GLOp::Sqrt,
                    InverseSqrt => GLOp::InverseSqrt,
                    Ceil => GLOp::Ceil,
                    Floor => GLOp::Floor,
                    Fract => GLOp::Fract,
                    Trunc => GLOp::Trunc,
                    Round => GLOp::Round,
                    RoundEven => GLOp::RoundEven,
                    Fma => GLOp::Fma,
                    Step => GLOp::Step,
                    Smoothstep => GLOp::SmoothStep,
                    Mix => GLOp::FMix,
                    Degrees => GLOp::Degrees,
                    Radians => GLOp::Radians,
                    Cross => GLOp::Cross,
                    Length => GLOp::Length,
                    Distance => GLOp::Distance,
                    Normalize => GLOp::Normalize,
                    Reflect => GLOp::Reflect,
                    FaceForward => GLOp::FaceForward,
                    Determinant => GLOp::Determinant,
                    _ => GLOp::MatrixInverse,
                };
                self.ext(rt_, rid, g, &a)?;
            }
            Exp10 => {
                let ten = self.const_float(aty(0), 10.0)?;
                self.ext(rt_, rid, GLOp::Pow, &[ten, a[0]])?;
            }
            Log10 => {
                let l = self.ext(rt_, None, GLOp::Log2, &a)?;
                let k = self.const_float(aty(0), std::f64::consts::LOG10_2)?;
                self.op(Op::FMul, rt, rid, Self::ids(&[l, k]))?;
            }
            Saturate => {
                let z = self.const_float(aty(0), 0.0)?;
                let o = self.const_float(aty(0), 1.0)?;
                self.ext(rt_, rid, GLOp::NClamp, &[a[0], z, o])?;
            }
            CopySign => {
                let bits = u64::from(s0.unwrap().bits);
                let ut = self.uint_like(aty(0))?;
                let utid = self.ty(ut)?;
                let x = self.op(Op::Bitcast, Some(utid), None, vec![Operand::IdRef(a[0])])?;
                let y = self.op(Op::Bitcast, Some(utid), None, vec![Operand::IdRef(a[1])])?;
                let sign = self.const_splat(ut, 1u64 << (bits - 1))?;
                let rest = self.const_splat(
                    ut,
                    (1u64 << (bits - 1)) - 1 | if bits == 64 { 0 } else { 0 },
                )?;
                let x = self.op(Op::BitwiseAnd, Some(utid), None, Self::ids(&[x, rest]))?;
                let y = self.op(Op::BitwiseAnd, Some(utid), None, Self::ids(&[y, sign]))?;
                let r = self.op(Op::BitwiseOr, Some(utid), None, Self::ids(&[x, y]))?;
                self.op(Op::Bitcast, rt, rid, vec![Operand::IdRef(r)])?;
            }
            Dot if float => {
                simple(self, Op::Dot)?;
            }
            Dot | ReduceAdd | ReduceMul | ReduceMin | ReduceMax => {
                let lanes = self.lanes(aty(0));
                let v = if op == Dot {
                    let vt = self.ty(aty(0))?;
                    self.op(Op::IMul, Some(vt), None, Self::ids(&a))?
                } else {
                    a[0]
                };
                let mut acc = self.op(
                    Op::CompositeExtract,
                    rt,
                    None,
                    vec![Operand::IdRef(v), Operand::LiteralBit32(0)],
                )?;
                for i in 1..u32::from(lanes) {
                    let x = self.op(
                        Op::CompositeExtract,
                        rt,
                        None,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(i)],
                    )?;
                    let last = i + 1 == u32::from(lanes);
                    let r = if last { rid } else { None };
                    acc = match (op, kind) {
                        (Dot | ReduceAdd, Some(ScalarKind::Float)) => {
                            self.op(Op::FAdd, rt, r, Self::ids(&[acc, x]))?
                        }
                        (Dot | ReduceAdd, _) => self.op(Op::IAdd, rt, r, Self::ids(&[acc, x]))?,
                        (ReduceMul, Some(ScalarKind::Float)) => {
                            self.op(Op::FMul, rt, r, Self::ids(&[acc, x]))?
                        }
                        (ReduceMul, _) => self.op(Op::IMul, rt, r, Self::ids(&[acc, x]))?,
                        (ReduceMin, Some(ScalarKind::Float)) => {
                            self.ext(rt_, r, GLOp::NMin, &[acc, x])?
                        }
                        (ReduceMin, Some(ScalarKind::Sint)) => {
                            self.ext(rt_, r, GLOp::SMin, &[acc, x])?
                        }
                        (ReduceMin, _) => self.ext(rt_, r, GLOp::UMin, &[acc, x])?,
                        (_, Some(ScalarKind::Float)) => self.ext(rt_, r, GLOp::NMax, &[acc, x])?,
                        (_, Some(ScalarKind::Sint)) => self.ext(rt_, r, GLOp::SMax, &[acc, x])?,
                        _ => self.ext(rt_, r, GLOp::UMax, &[acc, x])?,
                    };
                }
                if lanes < 2 {
                    self.op(Op::CopyObject, rt, rid, vec![Operand::IdRef(acc)])?;
                }
            }
            OuterProduct => {
                simple(self, Op::OuterProduct)?;
            }
            MatrixTimesMatrix => {
                simple(self, Op::MatrixTimesMatrix)?;
            }
            MatrixTimesVector => {
                simple(self, Op::MatrixTimesVector)?;
            }
            VectorTimesMatrix => {
                simple(self, Op::VectorTimesMatrix)?;
            }
            MatrixTimesScalar => {
                simple(self, Op::MatrixTimesScalar)?;
            }
            Transpose => {
                simple(self, Op::Transpose)?;
            }
            Convert => self.convert(aty(0), rty_o.unwrap(), a[0], rid)?,
            Bitcast => {
                simple(self, Op::Bitcast)?;
            }
            Construct => {
                simple(self, Op::CompositeConstruct)?;
            }
            Splat => {
                let n = self.lanes(rty_o.unwrap());
                self.op(
                    Op::CompositeConstruct,
                    rt,
                    rid,
                    Self::ids(&vec![a[0]; usize::from(n)]),
                )?;
            }
            Extract | Insert | Shuffle => {
                let Payload::Indices(ix) = &data.payload else {
                    return Err("indices".into());
                };
                let mut ops = Self::ids(&a);
                ops.extend(ix.iter().map(|&i| Operand::LiteralBit32(i)));
                let o = match op {
                    Extract => Op::CompositeExtract,
                    Insert => Op::CompositeInsert,
                    _ => Op::VectorShuffle,
                };
                if op == Insert {
                    // OpCompositeInsert takes the object first, then the composite.
                    ops.swap(0, 1);
                }
                self.op(o, rt, rid, ops)?;
            }
            ExtractDynamic | InsertDynamic => {
                if let Some(&tmp) = self.temps.get(&inst) {
                    self.op(Op::Store, None, None, Self::ids(&[tmp, a[0]]))?;
                    let comp = aty(0);
                    let elem = match self.tdata(comp) {
                        TypeData::Array { elem, .. } => self.ty(*elem)?,
                        TypeData::Matrix { elem, rows, .. } => {
                            let e = self.scalar_type(*elem)?;
                            self.b.type_vector(e, u32::from(*rows))
                        }
                        _ => return Err("dynamic index".into()),
                    };
                    let pt = self.b.type_pointer(None, StorageClass::Function, elem);
                    let idx = if op == ExtractDynamic { a[1] } else { a[2] };
                    let p = self.op(Op::AccessChain, Some(pt), None, Self::ids(&[tmp, idx]))?;
                    if op == ExtractDynamic {
                        self.op(Op::Load, rt, rid, vec![Operand::IdRef(p)])?;
                    } else {
                        self.op(Op::Store, None, None, Self::ids(&[p, a[1]]))?;
                        self.op(Op::Load, rt, rid, vec![Operand::IdRef(tmp)])?;
                    }
                } else if op == ExtractDynamic {
                    simple(self, Op::VectorExtractDynamic)?;
                } else {
                    self.op(
                        Op::VectorInsertDynamic,
                        rt,
                        rid,
                        Self::ids(&[a[0], a[1], a[2]]),
                    )?;
                }
            }
            Alloca => {}
            Load | WorkgroupUniformLoad => {
                if op == WorkgroupUniformLoad {
                    self.barrier(spirv::Scope::Workgroup, 0x8 | 0x100)?;
                }
                let (space, pointee) = self.pointer_space(f, args[0])?;
                let lay = space_lay(space);
                let lt = self.type_lay(pointee, lay)?;
                if lay == Lay::None
                    || !matches!(
                        self.tdata(pointee),
                        TypeData::Array { .. } | TypeData::Struct(_)
                    )
                {
                    self.op(Op::Load, Some(lt), rid, vec![Operand::IdRef(a[0])])?;
                } else {
                    let v = self.op(Op::Load, Some(lt), None, vec![Operand::IdRef(a[0])])?;
                    self.relayout(v, pointee, lay, Lay::None, rid)?;
                }
                if op == WorkgroupUniformLoad {
                    self.barrier(spirv::Scope::Workgroup, 0x8 | 0x100)?;
                }
            }
            Store => {
                let (space, pointee) = self.pointer_space(f, args[0])?;
                let v = self.relayout(a[1], pointee, Lay::None, space_lay(space), None)?;
                self.op(Op::Store, None, None, Self::ids(&[a[0], v]))?;
            }
            Access => {
                let base = args[0];
                let mut ops = Vec::new();
                match f.dfg.value_def(base) {
                    ValueDef::Global(g) => {
                        let gv = self.globals[&g];
                        self.mark_global(gv.id);
                        ops.push(Operand::IdRef(gv.id));
                        if gv.wrapped {
                            ops.push(Operand::IdRef(self.const_u32(0)));
                        }
                    }
                    _ => ops.push(Operand::IdRef(self.val(f, base)?)),
                }
                for &i in &args[1..] {
                    ops.push(Operand::IdRef(self.val(f, i)?));
                }
                self.op(Op::AccessChain, rt, rid, ops)?;
            }
            ArrayLength => {
                let (g, member) = array_length_base(self.m, f, args[0])
                    .ok_or("array_length of a pointer that is not a buffer's runtime array")?;
                let gv = self.globals[&g];
                self.mark_global(gv.id);
                self.op(
                    Op::ArrayLength,
                    rt,
                    rid,
                    vec![Operand::IdRef(gv.id), Operand::LiteralBit32(member)],
                )?;
            }
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
                let (space, pointee) = self.pointer_space(f, args[0])?;
                let s = self.scalar_of(pointee)?;
                if s.bits == 64 {
                    self.cap(Capability::Int64Atomics);
                }
                let scope = self.const_u32(if space == AddressSpace::Workgroup {
                    spirv::Scope::Workgroup as u32
                } else {
                    spirv::Scope::Device as u32
                });
                let sem = self.const_u32(0);
                let o = match op {
                    AtomicLoad => Op::AtomicLoad,
                    AtomicStore => Op::AtomicStore,
                    AtomicExchange => Op::AtomicExchange,
                    AtomicCompareExchange => Op::AtomicCompareExchange,
                    AtomicAdd => Op::AtomicIAdd,
                    AtomicSub => Op::AtomicISub,
                    AtomicAnd => Op::AtomicAnd,
                    AtomicOr => Op::AtomicOr,
                    AtomicXor => Op::AtomicXor,
                    AtomicMin if s.kind == ScalarKind::Sint => Op::AtomicSMin,
                    AtomicMin => Op::AtomicUMin,
                    AtomicMax if s.kind == ScalarKind::Sint => Op::AtomicSMax,
                    _ => Op::AtomicUMax,
                };
                let mut ops = vec![a[0], scope, sem];
                if op == AtomicCompareExchange {
                    ops.push(sem);
                    ops.push(a[2]);
                    ops.push(a[1]);
                } else {
                    ops.extend(&a[1..]);
                }
                self.op(o, rt, rid, Self::ids(&ops))?;
            }
            WorkgroupBarrier => self.barrier(spirv::Scope::Workgroup, 0x8 | 0x100)?,
            StorageBarrier => self.barrier(spirv::Scope::Device, 0x8 | 0x40)?,
            ThreadId | WorkgroupId | DispatchId | LocalInvocationIndex | NumWorkgroups
            | SubgroupInvocationId | SubgroupSize => {
                let bi = match op {
                    ThreadId => BuiltIn::LocalInvocationId,
                    WorkgroupId => BuiltIn::WorkgroupId,
                    DispatchId => BuiltIn::GlobalInvocationId,
                    LocalInvocationIndex => BuiltIn::LocalInvocationIndex,
                    NumWorkgroups => BuiltIn::NumWorkgroups,
                    SubgroupInvocationId => BuiltIn::SubgroupLocalInvocationId,
                    _ => BuiltIn::SubgroupSize,
                };
                self.load_builtin(bi, rty_o.unwrap(), rid)?;
            }
            WorkgroupSize | DispatchSize => {
                let u = self.b.type_int(32, 0);
                let parts: Vec<Word> = wg.iter().map(|&x| self.const_u32(x)).collect();
                let size = self.b.constant_composite(rt_, parts);
                if op == WorkgroupSize {
                    self.op(Op::CopyObject, rt, rid, vec![Operand::IdRef(size)])?;
                } else {
                    let _ = u;
                    let n = self.load_builtin(BuiltIn::NumWorkgroups, rty_o.unwrap(), None)?;
                    self.op(Op::IMul, rt, rid, Self::ids(&[n, size]))?;
                }
            }
            _ => return Err(format!("op `{op}`")),
        }
        Ok(())
    }

    /// A bool scalar/vector type id with the lanes of `ty`.
    fn bool_like(&mut self, ty: Type) -> R<Word> {
        let b = self.b.type_bool();
        let n = self.lanes(ty);
        Ok(if n == 1 {
            b
        } else {
            self.b.type_vector(b, u32::from(n))
        })
    }

    fn uint_like(&self, ty: Type) -> R<Type> {
        let s = self.scalar_of(ty)?;
        let n = self.lanes(ty);
        let want = Scalar {
            kind: ScalarKind::Uint,
            bits: s.bits,
        };
        self.m
            .types
            .iter()
            .find(|(_, t)| match t {
                TypeData::Scalar(x) => n == 1 && *x == want,
                TypeData::Vector { elem, len } => *elem == want && *len == n,
                _ => false,
            })
            .map(|(t, _)| t)
            .ok_or_else(|| "no matching unsigned type in the module".into())
    }

    fn convert(&mut self, from: Type, to: Type, v: Word, rid: Option<Word>) -> R<()> {
        let fs = self.scalar_of(from)?;
        let ts = self.scalar_of(to)?;
        let rt = self.ty(to)?;
        use ScalarKind::*;
        match (fs.kind, ts.kind) {
            (Bool, Bool) => {
                self.op(Op::CopyObject, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (Bool, _) => {
                let one = if ts.kind == Float {
                    self.const_float(to, 1.0)?
                } else {
                    self.const_splat(to, 1)?
                };
                let zero = self.const_splat(to, 0)?;
                self.op(Op::Select, Some(rt), rid, Self::ids(&[v, one, zero]))?;
            }
            (Float, Bool) => {
                let zero = self.const_splat(from, 0)?;
                self.op(Op::FUnordNotEqual, Some(rt), rid, Self::ids(&[v, zero]))?;
            }
            (_, Bool) => {
                let zero = self.const_splat(from, 0)?;
                self.op(Op::INotEqual, Some(rt), rid, Self::ids(&[v, zero]))?;
            }
            (Float, Float) if fs.bits == ts.bits => {
                self.op(Op::CopyObject, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (Float, Float) => {
                self.op(Op::FConvert, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (Float, _) => {
                // Saturating (WGSL): clamp into the representable range first.
                let bits = u32::from(ts.bits);
                let (lo, hi) = if ts.kind == Sint {
                    (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1))
                } else {
                    (0.0, 2f64.powi(bits as i32))
                };
                // The largest float below `hi`.
                let hi = if fs.bits == 32 {
                    f64::from(f32::from_bits((hi as f32).to_bits() - 1))
                } else {
                    f64::from_bits(hi.to_bits() - 1)
                };
                let ft = self.ty(from)?;
                let lo = self.const_float(from, lo)?;
                let hi = self.const_float(from, hi)?;
                let c = self.ext(ft, None, GLOp::NClamp, &[v, lo, hi])?;
                let o = if ts.kind == Sint {
                    Op::ConvertFToS
                } else {
                    Op::ConvertFToU
                };
                self.op(o, Some(rt), rid, vec![Operand::IdRef(c)])?;
            }
            (Sint, Float) => {
                self.op(Op::ConvertSToF, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (_, Float) => {
                self.op(Op::ConvertUToF, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (_, _) if fs.bits == ts.bits => {
                let o = if fs.kind == ts.kind {
                    Op::CopyObject
                } else {
                    Op::Bitcast
                };
                self.op(o, Some(rt), rid, vec![Operand::IdRef(v)])?;
            }
            (_, _) => {
                // Width change by the source signedness, then reinterpret.
                let mid_s = Scalar {
                    kind: fs.kind,
                    bits: ts.bits,
                };
                let n = self.lanes(from);
                let st = self.scalar_type(mid_s)?;
                let mt = if n == 1 {
                    st
                } else {
                    self.b.type_vector(st, u32::from(n))
                };
                let o = if fs.kind == Sint {
                    Op::SConvert
                } else {
                    Op::UConvert
                };
                if fs.kind == ts.kind {
                    self.op(o, Some(rt), rid, vec![Operand::IdRef(v)])?;
                } else {
                    let w = self.op(o, Some(mt), None, vec![Operand::IdRef(v)])?;
                    self.op(Op::Bitcast, Some(rt), rid, vec![Operand::IdRef(w)])?;
                }
            }
        }
        Ok(())
    }
}

/// The buffer global and member index `array_length ptr` measures: `ptr` is a runtime-array
/// buffer, a struct buffer ending in a runtime array, or `access @buffer, last_member`.
pub(crate) fn array_length_base(m: &Module, f: &Function, ptr: Value) -> Option<(Global, u32)> {
    let ptr = f.resolve(ptr);
    let last_member = |g: Global| match m.types.get(m.globals[g].ty) {
        TypeData::Struct(st) => Some(st.members.len() as u32 - 1),
        TypeData::RuntimeArray { .. } => Some(0),
        _ => None,
    };
    match f.dfg.value_def(ptr) {
        ValueDef::Global(g) => last_member(g).map(|i| (g, i)),
        ValueDef::Result(inst) => {
            let data = f.dfg.inst(inst);
            if data.opcode != Opcode::Access || data.args.len() != 2 {
                return None;
            }
            let ValueDef::Global(g) = f.dfg.value_def(f.resolve(data.args[0])) else {
                return None;
            };
            let TypeData::Struct(st) = m.types.get(m.globals[g].ty) else {
                return None;
            };
            let ValueDef::Const(c) = f.dfg.value_def(f.resolve(data.args[1])) else {
                return None;
            };
            let (_, index) = m.const_scalar_value(c)?;
            (index + 1 == st.members.len() as u64).then_some((g, index as u32))
        }
        _ => None,
    }
}

/// IEEE half bits of `x` (round to nearest even; enough for the constants the writer makes).
fn half_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = b & 0x7f_ffff;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    if exp >= 31 {
        return sign | 0x7c00;
    }
    if exp <= 0 {
        return sign;
    }
    let mut h = (sign as u32) | ((exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1) {
        h += 1;
    }
    h as u16
}

/// Writes a prepared, preflighted module.
pub(crate) fn write(module: &Module, options: &Options) -> R<Vec<u32>> {
    let mut w = Writer {
        m: module,
        options,
        b: Builder::new(),
        caps: BTreeSet::new(),
        types: HashMap::new(),
        consts: HashMap::new(),
        u32_consts: HashMap::new(),
        globals: HashMap::new(),
        builtins: HashMap::new(),
        glsl: None,
        values: HashMap::new(),
        labels: HashMap::new(),
        exit_labels: HashMap::new(),
        interface: Vec::new(),
        cont_values: HashMap::new(),
        temps: HashMap::new(),
    };
    let (major, minor) = options.target_env.spirv_version();
    w.b.set_version(major, minor);
    w.cap(Capability::Shader);
    w.b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    w.declare_globals()?;
    let uses_storage = module
        .globals
        .values()
        .any(|g| matches!(g.space, AddressSpace::Storage(_)));
    if uses_storage && options.target_env == TargetEnv::Vulkan1_0 {
        w.b.extension("SPV_KHR_storage_buffer_storage_class");
    }
    for func in module.functions.values() {
        w.write_function(func)?;
    }
    for c in w.caps.clone() {
        let cap: Capability = Capability::from_u32(c).ok_or("capability")?;
        w.b.capability(cap);
    }
    use rspirv::binary::Assemble;
    Ok(w.b.module().assemble())
}
