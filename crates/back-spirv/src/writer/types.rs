//! Types with their layout decorations, constants and global variables.
//!
//! A type is emitted once per layout variant ([`Lay`]): buffers (storage, push constant:
//! `std430`; uniform: `std140`) need `Offset`, `ArrayStride`, `MatrixStride` and
//! `ColMajor` from `oxir_ir::data_layout`, and memory in other spaces uses undecorated
//! types. Structs are never deduplicated, so a decorated and a plain copy can coexist. A
//! buffer global gets a fresh `Block` struct: its own struct type, or a one-member wrapper
//! around a non-struct type ([`GlobalVar::wrapped`]).

use super::*;

impl Writer<'_> {
    pub(super) fn scalar_type(&mut self, s: Scalar) -> R<Word> {
        Ok(match s.kind {
            ScalarKind::Bool => self.b.type_bool(),
            ScalarKind::Sint | ScalarKind::Uint => {
                match s.bits {
                    8 => self.cap(Capability::Int8),
                    16 => self.cap(Capability::Int16),
                    32 => {}
                    64 => self.cap(Capability::Int64),
                    _ => return Err(format!("{}-bit integers", s.bits).into()),
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
                    return Err(format!("{}-bit floats", s.bits).into());
                }
                self.b.type_float(u32::from(s.bits))
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
            TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. } => self.image_type(ty)?,
            TypeData::Opaque(_) => return Err(format!("type {}", self.m.types.display(ty)).into()),
        };
        *self.types[ty].slot(lay) = Some(id);
        Ok(id)
    }

    pub(super) fn array_stride(&mut self, id: Word, ty: Type, lay: Lay) -> R<()> {
        if let Some(rules) = lay.rules() {
            let layout = layout_of(&self.m.types, ty, rules)?;
            let stride = layout.stride.ok_or("array without stride")?;
            self.b
                .decorate(id, Decoration::ArrayStride, [Operand::LiteralBit32(stride)]);
        }
        Ok(())
    }

    /// A fresh struct type (never deduplicated) with member layout decorations.
    pub(super) fn struct_type(&mut self, ty: Type, lay: Lay) -> R<Word> {
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
            let layout = layout_of(&self.m.types, ty, rules)?;
            for (i, m) in st.members.iter().enumerate() {
                self.member_layout(id, i as u32, m.ty, layout.offsets[i], rules)?;
            }
        }
        Ok(id)
    }

    pub(super) fn member_layout(
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
                    let layout = layout_of(&self.m.types, inner, rules)?;
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

    pub(super) fn const_u32(&mut self, v: u32) -> Word {
        if let Some(&id) = self.u32_consts.get(&v) {
            return id;
        }
        let t = self.b.type_int(32, 0);
        let id = self.b.constant_bit32(t, v);
        self.u32_consts.insert(v, id);
        id
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
            self.b.type_vector(st, u32::from(n))
        })
    }

    /// A constant of `n` lanes of `s`, every lane `bits`.
    pub(super) fn const_lanes(&mut self, s: Scalar, n: u8, bits: u64) -> R<Word> {
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
            // Narrow signed literals are sign-extended to the word, unsigned and float
            // ones zero-extended.
            ScalarKind::Sint if s.bits < 32 => {
                let shift = 64 - u32::from(s.bits);
                self.b
                    .constant_bit32(st, (((bits << shift) as i64) >> shift) as u32)
            }
            _ if s.bits < 32 => {
                let mask = (1u64 << s.bits) - 1;
                self.b.constant_bit32(st, (bits & mask) as u32)
            }
            _ => self.b.constant_bit32(st, bits as u32),
        };
        if n == 1 {
            return Ok(scalar);
        }
        let t = self.lanes_type(s, n)?;
        Ok(self
            .b
            .constant_composite(t, std::iter::repeat_n(scalar, usize::from(n))))
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
        self.consts[c] = Some(id);
        Ok(id)
    }

    pub(super) fn declare_globals(&mut self) -> R<()> {
        for (g, data) in self.m.globals.iter() {
            let class = storage_class(data.space);
            let lay = space_lay(data.space);
            let is_buffer = lay != Lay::None;
            let (var_ty, wrapped) = if is_buffer {
                let (st, wrapped) = if let TypeData::Struct(s) = self.tdata(data.ty) {
                    // A fresh copy of the struct as the Block, so nested uses stay plain.
                    let rules = lay
                        .rules()
                        .ok_or("a buffer global without buffer layout rules")?;
                    let mut members = Vec::new();
                    for m in &s.members {
                        members.push(self.type_lay(m.ty, lay)?);
                    }
                    let id = self.b.id();
                    self.b.type_struct_id(Some(id), members);
                    let layout = layout_of(&self.m.types, data.ty, rules)?;
                    for (i, m) in s.members.iter().enumerate() {
                        self.member_layout(id, i as u32, m.ty, layout.offsets[i], rules)?;
                    }
                    (id, false)
                } else {
                    let rules = lay
                        .rules()
                        .ok_or("a buffer global without buffer layout rules")?;
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
    /// The 8- and 16-bit widths `ty` holds, as (has 8-bit, has 16-bit).
    fn narrow_widths(&self, ty: Type) -> (bool, bool) {
        match self.tdata(ty) {
            TypeData::Scalar(s)
            | TypeData::Vector { elem: s, .. }
            | TypeData::Matrix { elem: s, .. } => (s.bits == 8, s.bits == 16),
            TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem } => {
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
