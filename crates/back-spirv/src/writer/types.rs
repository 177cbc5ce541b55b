//! Types with their layout decorations, constants and global variables.
//!
//! A type is emitted once per layout variant ([`Lay`]): buffers (storage, push constant:
//! `std430`; uniform: `std140`) need `Offset`, `ArrayStride`, `MatrixStride` and
//! `ColMajor` from `oxir_ir::data_layout`, and memory in other spaces uses undecorated
//! types. The decorations are part of a declaration's identity (module `intern`), so a
//! decorated and a plain copy coexist while equal ones are shared. A buffer global's type
//! is a `Block` struct: a copy of its own struct type (so that the struct nested in other
//! buffers stays without `Block`), or a one-member wrapper around a non-struct type
//! ([`GlobalVar::wrapped`]); globals of one type share it.

use super::*;

impl Writer<'_> {
    pub(super) fn scalar_type(&mut self, s: Scalar) -> R<Word> {
        Ok(match s.kind {
            ScalarKind::Bool => self.type_bool(),
            ScalarKind::Sint | ScalarKind::Uint => {
                match s.bits {
                    8 => self.cap(Capability::Int8),
                    16 => self.cap(Capability::Int16),
                    32 => {}
                    64 => self.cap(Capability::Int64),
                    _ => return Err(format!("{}-bit integers", s.bits).into()),
                }
                self.type_int(u32::from(s.bits), u32::from(s.kind == ScalarKind::Sint))
            }
            ScalarKind::Float => {
                if s.bits == 64 {
                    self.cap(Capability::Float64);
                } else if s.bits == 16 {
                    self.cap(Capability::Float16);
                } else if s.bits != 32 {
                    return Err(format!("{}-bit floats", s.bits).into());
                }
                self.type_float(u32::from(s.bits))
            }
        })
    }

    pub(super) fn ty(&mut self, ty: Type) -> R<Word> {
        self.type_lay(ty, Lay::None)
    }

    pub(super) fn type_lay(&mut self, ty: Type, lay: Lay) -> R<Word> {
        if let Some(id) = *self.types[ty].slot(lay) {
            return Ok(id);
        }
        let id = match self.tdata(ty) {
            TypeData::Void => self.type_void(),
            TypeData::Scalar(s) => self.scalar_type(*s)?,
            TypeData::Vector { elem, len } => {
                let e = self.scalar_type(*elem)?;
                self.type_vector(e, u32::from(*len))
            }
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => {
                let e = self.scalar_type(*elem)?;
                let col = self.type_vector(e, u32::from(*rows));
                self.type_matrix(col, u32::from(*columns))
            }
            TypeData::Array { elem, len, .. } => {
                let e = self.type_lay(*elem, lay)?;
                let n = self.const_u32(*len);
                let stride = self.array_stride(ty, lay)?;
                self.type_array(e, n, stride)
            }
            TypeData::RuntimeArray { elem, .. } => {
                let e = self.type_lay(*elem, lay)?;
                let stride = self.array_stride(ty, lay)?;
                self.type_runtime_array(e, stride)
            }
            TypeData::Struct(_) => self.struct_type(ty, lay, false)?,
            TypeData::Pointer { space, pointee } => {
                let p = self.type_lay(*pointee, space_lay(self.m, *space))?;
                self.type_pointer(storage_class(*space), p)
            }
            TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. } => self.image_type(ty)?,
            TypeData::Opaque(_) => return Err(format!("type {}", self.m.types.display(ty)).into()),
        };
        *self.types[ty].slot(lay) = Some(id);
        Ok(id)
    }

    /// The `ArrayStride` of array type `ty` in layout `lay` (`None`: no explicit layout).
    pub(super) fn array_stride(&self, ty: Type, lay: Lay) -> R<Option<u32>> {
        let Some(rules) = lay.rules() else {
            return Ok(None);
        };
        let layout = layout_of(&self.m.types, ty, rules)?;
        Ok(Some(layout.stride.ok_or("array without stride")?))
    }

    /// The struct type `ty` in layout `lay`, with its member layout decorations, and
    /// `Block` when `block`.
    pub(super) fn struct_type(&mut self, ty: Type, lay: Lay, block: bool) -> R<Word> {
        let TypeData::Struct(st) = self.tdata(ty) else {
            return Err("not a struct".into());
        };
        let mut members = Vec::new();
        for m in &st.members {
            members.push(self.type_lay(m.ty, lay)?);
        }
        let mut decorations = Vec::new();
        if let Some(rules) = lay.rules() {
            let layout = layout_of(&self.m.types, ty, rules)?;
            for (i, m) in st.members.iter().enumerate() {
                decorations.extend(self.member_layout(i as u32, m.ty, layout.offsets[i], rules)?);
            }
        }
        if block {
            decorations.push(Deco::on_type(Decoration::Block, &[]));
        }
        Ok(self.type_struct(&members, decorations))
    }

    /// The layout decorations of member `index` (of type `member_ty`, at `offset`).
    pub(super) fn member_layout(
        &self,
        index: u32,
        member_ty: Type,
        offset: u32,
        rules: LayoutRules,
    ) -> R<Vec<Deco>> {
        let mut decorations = vec![Deco::on_member(index, Decoration::Offset, &[offset])];
        // Matrices, also inside arrays, get ColMajor and MatrixStride on the member.
        let mut inner = member_ty;
        loop {
            match self.tdata(inner) {
                TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => inner = *elem,
                TypeData::Matrix { .. } => {
                    let layout = layout_of(&self.m.types, inner, rules)?;
                    let stride = layout.stride.ok_or("matrix without stride")?;
                    decorations.push(Deco::on_member(index, Decoration::ColMajor, &[]));
                    decorations.push(Deco::on_member(index, Decoration::MatrixStride, &[stride]));
                    return Ok(decorations);
                }
                _ => return Ok(decorations),
            }
        }
    }

    /// A workgroup size a pipeline may specialise: an `OpSpecConstantComposite` of
    /// `uvec3` decorated `BuiltIn WorkgroupSize` (which overrides `LocalSize`, still
    /// written with the defaults), each specialisable dimension an `OpSpecConstant`
    /// decorated `SpecId`, the others plain constants.
    pub(super) fn specialised_workgroup_size(
        &mut self,
        size: [u32; 3],
        ids: [Option<u32>; 3],
    ) -> R<Word> {
        let u32_type = self.type_int(32, 0);
        let mut parts = Vec::with_capacity(3);
        for (&n, id) in size.iter().zip(ids) {
            parts.push(match id {
                Some(id) => self.declare_decorated(
                    Op::SpecConstant,
                    Some(u32_type),
                    vec![Operand::LiteralBit32(n)],
                    vec![Deco::on_type(Decoration::SpecId, &[id])],
                ),
                None => self.const_u32(n),
            });
        }
        let vec3 = self.lanes_type(Scalar::U32, 3)?;
        let builtin = Deco {
            member: None,
            decoration: Decoration::BuiltIn,
            operands: vec![Operand::BuiltIn(spirv::BuiltIn::WorkgroupSize)],
        };
        Ok(self.declare_decorated(
            Op::SpecConstantComposite,
            Some(vec3),
            parts.into_iter().map(Operand::IdRef).collect(),
            vec![builtin],
        ))
    }

    pub(super) fn const_u32(&mut self, v: u32) -> Word {
        let t = self.type_int(32, 0);
        self.constant_bit32(t, v)
    }

    /// A constant of scalar/vector type `ty` with every lane `bits`.
    pub(super) fn const_splat(&mut self, ty: Type, bits: u64) -> R<Word> {
        let s = self.scalar_of(ty)?;
        let n = self.lanes(ty);
        self.const_lanes(s, n, bits)
    }

    /// The SPIR-V type of `n` lanes of `s` (a scalar when `n` is 1); for types the oxir
    /// module need not contain.
    pub(super) fn lanes_type(&mut self, s: Scalar, n: u8) -> R<Word> {
        let st = self.scalar_type(s)?;
        Ok(if n == 1 {
            st
        } else {
            self.type_vector(st, u32::from(n))
        })
    }

    /// A constant of `n` lanes of `s`, every lane `bits`.
    pub(super) fn const_lanes(&mut self, s: Scalar, n: u8, bits: u64) -> R<Word> {
        let st = self.scalar_type(s)?;
        let scalar = match s.kind {
            ScalarKind::Bool => self.constant_bool(st, bits != 0),
            ScalarKind::Sint | ScalarKind::Uint | ScalarKind::Float => {
                self.declare(Op::Constant, Some(st), vec![scalar_literal(s, bits)])
            }
        };
        if n == 1 {
            return Ok(scalar);
        }
        let t = self.lanes_type(s, n)?;
        Ok(self.constant_composite(t, &vec![scalar; usize::from(n)]))
    }

    /// `spec_constant DEFAULT, ID`: an `OpSpecConstant` (`OpSpecConstantTrue` /
    /// `False` for bool) decorated `SpecId ID`, one per id, and a copy of it where the
    /// instruction stands.
    pub(super) fn spec_constant(&mut self, f: &Function, c: &Operands) -> R<()> {
        let data = f.dfg.inst(c.inst);
        let (Payload::Indices(ids), Some(&default)) = (&data.payload, c.args.first()) else {
            return Err("`spec_constant` without its id or default".into());
        };
        let (Some(&id), ValueDef::Const(k)) = (ids.first(), f.dfg.value_def(default)) else {
            return Err("`spec_constant` whose default is not a constant".into());
        };
        let konst = self.m.consts.get(k);
        let bits = match konst.kind {
            ConstKind::Scalar(bits) => bits,
            ConstKind::Zero => 0,
            ConstKind::Composite(_) | ConstKind::Undef => {
                return Err("`spec_constant` whose default is not a scalar value".into())
            }
        };
        let s = self.scalar_of(konst.ty)?;
        let st = self.scalar_type(s)?;
        let (op, operands) = match s.kind {
            ScalarKind::Bool if bits != 0 => (Op::SpecConstantTrue, vec![]),
            ScalarKind::Bool => (Op::SpecConstantFalse, vec![]),
            ScalarKind::Sint | ScalarKind::Uint | ScalarKind::Float => {
                (Op::SpecConstant, vec![scalar_literal(s, bits)])
            }
        };
        let spec = self.declare_decorated(
            op,
            Some(st),
            operands,
            vec![Deco::on_type(Decoration::SpecId, &[id])],
        );
        self.op(Op::CopyObject, Some(st), c.rid, vec![Operand::IdRef(spec)])?;
        Ok(())
    }

    pub(super) fn float_bits(&self, ty: Type, x: f64) -> R<u64> {
        let s = self.scalar_of(ty)?;
        Ok(if s.bits == 64 {
            x.to_bits()
        } else if s.bits == 16 {
            u64::from(half_bits(x as f32))
        } else {
            u64::from((x as f32).to_bits())
        })
    }

    pub(super) fn const_float(&mut self, ty: Type, x: f64) -> R<Word> {
        let bits = self.float_bits(ty, x)?;
        self.const_splat(ty, bits)
    }

    pub(super) fn constant(&mut self, c: Const) -> R<Word> {
        if let Some(id) = self.consts[c] {
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
                self.constant_composite(t, &ids)
            }
            ConstKind::Zero => self.constant_null(t),
            ConstKind::Undef => self.undef(t),
        };
        self.consts[c] = Some(id);
        Ok(id)
    }

    pub(super) fn declare_globals(&mut self) -> R<()> {
        let referenced = super::references::referenced_globals(self.m);
        for (g, data) in self.m.globals.iter() {
            if !referenced[g] {
                continue;
            }
            let class = storage_class(data.space);
            let lay = space_lay(self.m, data.space);
            let is_buffer = lay != Lay::None;
            let (var_ty, wrapped) = if is_buffer {
                self.block_type(data.ty, lay)?
            } else {
                (self.type_lay(data.ty, Lay::None)?, false)
            };
            let pt = self.type_pointer(class, var_ty);
            let init = match (data.init, data.space) {
                (Some(c), AddressSpace::Private) => Some(self.constant(c)?),
                _ => None,
            };
            let id = self.b.variable(pt, None, class, init);
            self.debug_name(id, &data.name);
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
            if is_buffer {
                self.narrow_storage(data.ty, data.space);
            }
            if let AddressSpace::Storage(oxir_ir::StorageAccess::Read) = data.space {
                self.b.decorate(id, Decoration::NonWritable, []);
            }
            if let TypeData::StorageTexture { access, .. } = self.tdata(data.ty) {
                match access {
                    oxir_ir::StorageAccess::Read => {
                        self.b.decorate(id, Decoration::NonWritable, []);
                    }
                    oxir_ir::StorageAccess::Write => {
                        self.b.decorate(id, Decoration::NonReadable, []);
                    }
                    oxir_ir::StorageAccess::ReadWrite => {}
                }
            }
            let block_ty = (is_buffer && !wrapped).then_some(var_ty);
            self.globals[g] = Some(GlobalVar {
                id,
                wrapped,
                block_ty,
            });
        }
        Ok(())
    }
}

impl Writer<'_> {
    /// The `Block` struct of a buffer of type `ty` in layout `lay`, and whether it wraps a
    /// non-struct type in a one-member struct.
    fn block_type(&mut self, ty: Type, lay: Lay) -> R<(Word, bool)> {
        if let TypeData::Struct(_) = self.tdata(ty) {
            return Ok((self.struct_type(ty, lay, true)?, false));
        }
        let rules = lay
            .rules()
            .ok_or("a buffer global without buffer layout rules")?;
        let inner = self.type_lay(ty, lay)?;
        let mut decorations = self.member_layout(0, ty, 0, rules)?;
        decorations.push(Deco::on_type(Decoration::Block, &[]));
        Ok((self.type_struct(&[inner], decorations), true))
    }

    /// The 8- and 16-bit widths `ty` holds, as (has 8-bit, has 16-bit).
    fn narrow_widths(&self, ty: Type) -> (bool, bool) {
        match self.tdata(ty) {
            TypeData::Scalar(s)
            | TypeData::Vector { elem: s, .. }
            | TypeData::Matrix { elem: s, .. } => (s.bits == 8, s.bits == 16),
            TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => {
                self.narrow_widths(*elem)
            }
            TypeData::Struct(st) => st.members.iter().fold((false, false), |acc, m| {
                let w = self.narrow_widths(m.ty);
                (acc.0 || w.0, acc.1 || w.1)
            }),
            _ => (false, false),
        }
    }

    /// The storage capabilities (and, below the SPIR-V version that made them core, the
    /// extensions) for 8- and 16-bit values in a buffer of `space`.
    fn narrow_storage(&mut self, ty: Type, space: AddressSpace) {
        let (w8, w16) = self.narrow_widths(ty);
        let version = self.options.target_env.spirv_version();
        if w8 {
            self.cap(match space {
                AddressSpace::Uniform => Capability::UniformAndStorageBuffer8BitAccess,
                AddressSpace::PushConstant => Capability::StoragePushConstant8,
                AddressSpace::Storage(_)
                | AddressSpace::Function
                | AddressSpace::Private
                | AddressSpace::Workgroup
                | AddressSpace::Handle => Capability::StorageBuffer8BitAccess,
            });
            if version < (1, 5) {
                self.extension("SPV_KHR_8bit_storage");
            }
        }
        if w16 {
            self.cap(match space {
                AddressSpace::Uniform => Capability::UniformAndStorageBuffer16BitAccess,
                AddressSpace::PushConstant => Capability::StoragePushConstant16,
                AddressSpace::Storage(_)
                | AddressSpace::Function
                | AddressSpace::Private
                | AddressSpace::Workgroup
                | AddressSpace::Handle => Capability::StorageBuffer16BitAccess,
            });
            if version < (1, 3) {
                self.extension("SPV_KHR_16bit_storage");
            }
        }
    }
}

/// The literal word(s) of a scalar constant with canonical `bits`: 64-bit scalars take
/// two words; narrower signed ones are sign-extended to the word, unsigned and float ones
/// zero-extended (the SPIR-V rule for literals narrower than a word).
pub(super) fn scalar_literal(s: Scalar, bits: u64) -> Operand {
    if s.bits == 64 {
        return Operand::LiteralBit64(bits);
    }
    if s.bits >= 32 {
        return Operand::LiteralBit32(bits as u32);
    }
    match s.kind {
        ScalarKind::Sint => {
            let shift = 64 - u32::from(s.bits);
            Operand::LiteralBit32((((bits << shift) as i64) >> shift) as u32)
        }
        ScalarKind::Bool | ScalarKind::Uint | ScalarKind::Float => {
            Operand::LiteralBit32((bits & ((1u64 << s.bits) - 1)) as u32)
        }
    }
}
