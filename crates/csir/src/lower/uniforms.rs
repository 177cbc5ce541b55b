//! Uniform blocks as vec4 slots: every leaf (scalar, vector, matrix column) of a
//! uniform global takes one slot, in member order; a global's slots are assigned when
//! the entry point first uses it. Access chains must have constant indices.

use super::{Loc, LowerError, Lowerer, VRec};
use crate::interface::{IfaceType, Uniform};
use crate::record::Op;
use oxir_ir::data_layout::LayoutCache;
use oxir_ir::types::TypeData;
use oxir_ir::{AddressSpace, Global, Type, Value, ValueDef};

impl Lowerer<'_> {
    /// Slots a value of `ty` occupies.
    fn slots_of(&self, ty: Type) -> Result<u32, LowerError> {
        match self.module.types.try_get(ty) {
            Some(TypeData::Scalar(_) | TypeData::Vector { .. }) => Ok(1),
            Some(TypeData::Matrix { columns, .. }) => Ok(u32::from(*columns)),
            Some(TypeData::Array { elem, len, .. }) => {
                Ok(self.slots_of(*elem)?.saturating_mul(*len))
            }
            Some(TypeData::Struct(st)) => {
                let mut n = 0u32;
                for m in &st.members {
                    n = n.saturating_add(self.slots_of(m.ty)?);
                }
                Ok(n)
            }
            Some(_) | None => self.unsupported(format!(
                "uniform members of type {}",
                self.module.types.display(ty)
            )),
        }
    }

    /// The first slot of uniform global `g`, registering its leaves on first use.
    fn uniform_base(&mut self, g: Global) -> Result<u16, LowerError> {
        if let Some(&b) = self.uniform_bases.get(&g) {
            return Ok(b);
        }
        let gd = &self.module.globals[g];
        let n = self.slots_of(gd.ty)?;
        let base = self.next_uniform_slot;
        let end = u32::from(base) + n;
        if end > u32::from(self.limits.uniform_slots) {
            return self.pool("uniform slot", self.limits.uniform_slots);
        }
        let (group, binding) = gd.binding.map(|b| (b.group, b.binding)).unwrap_or((0, 0));
        let mut cache = LayoutCache::new(self.module.layout_rules(AddressSpace::Uniform));
        let mut leaves = Vec::new();
        self.leaves(&mut cache, gd.ty, gd.name.clone(), 0, base, &mut leaves)?;
        for mut u in leaves {
            (u.group, u.binding) = (group, binding);
            self.iface.uniforms.push(u);
        }
        self.next_uniform_slot = end as u16;
        self.uniform_bases.insert(g, base);
        Ok(base)
    }

    fn leaves(
        &self,
        cache: &mut LayoutCache,
        ty: Type,
        name: String,
        offset: u32,
        slot: u16,
        out: &mut Vec<Uniform>,
    ) -> Result<(), LowerError> {
        let layout = cache
            .get(&self.module.types, ty)
            .map_err(|e| LowerError::Internal(e.to_string()))?
            .clone();
        let leaf = |cols: u8, rows: u8, stride: u32| Uniform {
            name: name.clone(),
            ty: IfaceType { cols, rows },
            slot,
            group: 0,
            binding: 0,
            offset,
            column_stride: stride,
        };
        match self.module.types.try_get(ty) {
            Some(TypeData::Scalar(_)) => out.push(leaf(1, 1, 0)),
            Some(TypeData::Vector { len, .. }) => out.push(leaf(1, *len, 0)),
            Some(TypeData::Matrix { columns, rows, .. }) => {
                out.push(leaf(*columns, *rows, layout.stride.unwrap_or(16)))
            }
            Some(TypeData::Array { elem, len, .. }) => {
                let per = self.slots_of(*elem)? as u16;
                let stride = layout.stride.unwrap_or(16);
                for i in 0..*len {
                    let (o, s) = (offset + i * stride, slot + (i as u16) * per);
                    self.leaves(cache, *elem, format!("{name}[{i}]"), o, s, out)?;
                }
            }
            Some(TypeData::Struct(st)) => {
                let mut s = slot;
                for (m, o) in st.members.iter().zip(&layout.offsets) {
                    self.leaves(
                        cache,
                        m.ty,
                        format!("{name}.{}", m.name),
                        offset + o,
                        s,
                        out,
                    )?;
                    s += self.slots_of(m.ty)? as u16;
                }
            }
            Some(_) | None => return self.unsupported("this uniform member type"),
        }
        Ok(())
    }

    /// The global `v` is the address of, if any.
    pub(super) fn global_of(&self, v: Value) -> Option<Global> {
        match self.func.dfg.value_def(self.func.resolve(v)) {
            ValueDef::Global(g) => Some(g),
            ValueDef::Result(_) | ValueDef::Param(..) | ValueDef::Const(_) => None,
            ValueDef::Alias(_) | ValueDef::Detached => None,
        }
    }

    /// A constant integer operand (an access index).
    fn const_index(&self, v: Value) -> Result<u32, LowerError> {
        let ValueDef::Const(c) = self.func.dfg.value_def(self.func.resolve(v)) else {
            return self.unsupported("dynamic indexing into a uniform block");
        };
        match self.module.const_scalar_value(c) {
            Some((_, bits)) => u32::try_from(bits).or_else(|_| self.unsupported("a huge index")),
            None => self.unsupported("a composite access index"),
        }
    }

    /// `access base, indices...` into a uniform block.
    pub(super) fn access(&mut self, args: &[Value]) -> Result<Loc, LowerError> {
        let Some((&base, indices)) = args.split_first() else {
            return Err(LowerError::Internal("access without a base".into()));
        };
        let (mut slot, mut ty) = match self.global_of(base) {
            Some(g) if self.module.globals[g].space == AddressSpace::Uniform => {
                (self.uniform_base(g)?, self.module.globals[g].ty)
            }
            Some(_) | None => return self.unsupported("access chains outside uniform blocks"),
        };
        let mut lane = 0u8;
        // `None` once the chain is inside a vector (a matrix column or a vector leaf).
        let mut vector: Option<u8> = None;
        for &index in indices {
            let i = self.const_index(index)?;
            if let Some(len) = vector {
                if i >= u32::from(len) || lane != 0 {
                    return self.unsupported("this uniform access");
                }
                lane = i as u8;
                vector = Some(1);
                continue;
            }
            match self.module.types.try_get(ty).cloned() {
                Some(TypeData::Struct(st)) if (i as usize) < st.members.len() => {
                    for prior in &st.members[..i as usize] {
                        slot += self.slots_of(prior.ty)? as u16;
                    }
                    ty = st.members[i as usize].ty;
                }
                Some(TypeData::Array { elem, len, .. }) if i < len => {
                    slot += (self.slots_of(elem)? * i) as u16;
                    ty = elem;
                }
                Some(TypeData::Matrix { columns, rows, .. }) if i < u32::from(columns) => {
                    slot += i as u16;
                    vector = Some(rows);
                }
                Some(TypeData::Vector { len, .. }) if i < u32::from(len) => {
                    lane = i as u8;
                    vector = Some(1);
                }
                Some(_) | None => return self.unsupported("this uniform access"),
            }
        }
        Ok(Loc::Uniform { slot, lane })
    }

    /// `load` of a uniform pointer (or of a whole uniform global) into registers.
    pub(super) fn load_uniform(
        &mut self,
        slot: u16,
        lane: u8,
        ty: Type,
    ) -> Result<Loc, LowerError> {
        let shape = self.shape(ty)?;
        let dst = self.fresh(shape.cols);
        let target = if lane == 0 { dst } else { self.fresh(1) };
        self.emit(VRec {
            aux: slot as i16,
            aux2: i16::from(shape.cols),
            ..self.vrec(Op::LoadUni, 4, Some(target), [None; 3])
        })?;
        if lane != 0 {
            self.emit(VRec {
                aux: i16::from(lane),
                ..self.vrec(Op::Swz, 1, Some(dst), [Some(target), None, None])
            })?;
        }
        Ok(Loc::Reg(dst))
    }
}
