//! Memory: loads, stores, access chains, array lengths, atomics, barriers and the compute
//! special registers.
//!
//! Buffers use explicitly laid-out types and other memory plain ones: loads and stores of
//! arrays and structs convert between the two variants ([`Writer::relayout`]). Atomics use
//! the `Workgroup` scope on workgroup memory and `Device` elsewhere, with relaxed
//! semantics (barriers order memory). A buffer global whose type is not a struct was wrapped
//! in a one-member `Block` struct, so every use of its pointer goes through member 0.

use super::lowering::AtomicOp;
use super::*;
use rspirv::spirv::MemorySemantics;

impl Writer<'_> {
    /// Writes the memory op `op`.
    pub(super) fn memory(&mut self, f: &Function, c: &Operands, op: MemoryOp) -> R<()> {
        let (rid, rt) = (c.rid, c.rt);
        let (args, a) = (&c.args, &c.a);
        use MemoryOp::*;
        match op {
            // The variable is declared in the function prologue.
            Alloca => {}
            Load | WorkgroupUniformLoad => {
                if op == WorkgroupUniformLoad {
                    self.barrier(spirv::Scope::Workgroup, workgroup_semantics())?;
                }
                let (space, pointee) = self.pointer_space(f, args[0])?;
                let lay = space_lay(self.m, space);
                let lt = self.memory_type(f, args[0], pointee, lay)?;
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
                    self.barrier(spirv::Scope::Workgroup, workgroup_semantics())?;
                }
            }
            Store => {
                let (space, pointee) = self.pointer_space(f, args[0])?;
                let lay = space_lay(self.m, space);
                let st = self.memory_type(f, args[0], pointee, lay)?;
                let v = self.relayout_as(a[1], pointee, Lay::None, lay, Some(st), None)?;
                self.op(Op::Store, None, None, Self::ids(&[a[0], v]))?;
            }
            Access => {
                let base = args[0];
                let mut ops = Vec::new();
                match f.dfg.value_def(base) {
                    ValueDef::Global(g) => {
                        let gv = self.global(g)?;
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
                let gv = self.global(g)?;
                self.mark_global(gv.id);
                self.op(
                    Op::ArrayLength,
                    rt,
                    rid,
                    vec![Operand::IdRef(gv.id), Operand::LiteralBit32(member)],
                )?;
            }
            Atomic(atomic) => self.atomic(f, c, atomic)?,
            WorkgroupBarrier => self.barrier(spirv::Scope::Workgroup, workgroup_semantics())?,
            StorageBarrier => self.barrier(
                spirv::Scope::Device,
                MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::UNIFORM_MEMORY,
            )?,
        }
        Ok(())
    }

    /// Writes an atomic: `Workgroup` scope on workgroup memory, `Device` elsewhere,
    /// relaxed semantics.
    fn atomic(&mut self, f: &Function, c: &Operands, op: AtomicOp) -> R<()> {
        let (rid, rt, a) = (c.rid, c.rt, &c.a);
        let (space, pointee) = self.pointer_space(f, c.args[0])?;
        let s = self.scalar_of(pointee)?;
        if s.bits == 64 {
            self.cap(Capability::Int64Atomics);
        }
        let scope = self.const_u32(if space == AddressSpace::Workgroup {
            spirv::Scope::Workgroup as u32
        } else {
            spirv::Scope::Device as u32
        });
        let sem = self.const_u32(MemorySemantics::RELAXED.bits());
        let signed = s.kind == ScalarKind::Sint;
        let o = match op {
            AtomicOp::Load => Op::AtomicLoad,
            AtomicOp::Store => Op::AtomicStore,
            AtomicOp::Exchange => Op::AtomicExchange,
            AtomicOp::CompareExchange => Op::AtomicCompareExchange,
            AtomicOp::Add => Op::AtomicIAdd,
            AtomicOp::Sub => Op::AtomicISub,
            AtomicOp::And => Op::AtomicAnd,
            AtomicOp::Or => Op::AtomicOr,
            AtomicOp::Xor => Op::AtomicXor,
            AtomicOp::Min if signed => Op::AtomicSMin,
            AtomicOp::Min => Op::AtomicUMin,
            AtomicOp::Max if signed => Op::AtomicSMax,
            AtomicOp::Max => Op::AtomicUMax,
        };
        let mut ops = vec![a[0], scope, sem];
        if op == AtomicOp::CompareExchange {
            // Unequal semantics, then the value, then the comparator.
            ops.push(sem);
            ops.push(a[2]);
            ops.push(a[1]);
        } else {
            ops.extend(&a[1..]);
        }
        self.op(o, rt, rid, Self::ids(&ops))?;
        Ok(())
    }

    /// Writes a special-register read: a built-in input, or the workgroup size constant.
    pub(super) fn register(&mut self, c: &Operands, r: Register) -> R<()> {
        let (rid, rt) = (c.rid, c.rt);
        let ty = c.rty.ok_or("a special register without a result")?;
        use Register::*;
        match r {
            ThreadId | WorkgroupId | DispatchId | LocalInvocationIndex | NumWorkgroups
            | SubgroupInvocationId | SubgroupSize | SubgroupId | NumSubgroups | FragCoord
            | FrontFacing | SampleIndex | PrimitiveId | VertexIndex | InstanceIndex
            | BaseInstance => {
                let (_, bi) = interface::register_builtin(r);
                self.load_builtin(bi, ty, rid)?;
            }
            WorkgroupSize | DispatchSize => {
                let size_ty = rt.ok_or("a special register without a result type")?;
                let size = match self.specialised_size {
                    Some(id) => id,
                    None => {
                        let parts: Vec<Word> = c
                            .workgroup_size
                            .iter()
                            .map(|&x| self.const_u32(x))
                            .collect();
                        self.constant_composite(size_ty, &parts)
                    }
                };
                if r == WorkgroupSize {
                    self.op(Op::CopyObject, rt, rid, vec![Operand::IdRef(size)])?;
                } else {
                    let n = self.load_builtin(BuiltIn::NumWorkgroups, ty, None)?;
                    self.op(Op::IMul, rt, rid, Self::ids(&[n, size]))?;
                }
            }
        }
        Ok(())
    }

    /// The SPIR-V id of an oxir value (emitting an access chain for a wrapped buffer).
    pub(super) fn val(&mut self, f: &Function, v: Value) -> R<Word> {
        let v = f.resolve(v);
        match f.dfg.value_def(v) {
            ValueDef::Result(_) | ValueDef::Param(..) => {
                self.values[v].ok_or_else(|| Bug::from(format!("value {v} has no id")))
            }
            ValueDef::Const(c) => self.constant(c),
            ValueDef::Global(g) => {
                let gv = self.global(g)?;
                self.mark_global(gv.id);
                if gv.wrapped {
                    let pt = self.ty(f.dfg.value_type(v))?;
                    let zero = self.const_u32(0);
                    self.op(Op::AccessChain, Some(pt), None, Self::ids(&[gv.id, zero]))
                } else {
                    Ok(gv.id)
                }
            }
            other => Err(format!("value {v} is {other:?}").into()),
        }
    }

    /// Converts a value of type `ty` between layout variants (arrays and structs differ).
    pub(super) fn relayout(
        &mut self,
        value: Word,
        ty: Type,
        from: Lay,
        to: Lay,
        result: Option<Word>,
    ) -> R<Word> {
        self.relayout_as(value, ty, from, to, None, result)
    }

    /// The SPIR-V type of the memory `ptr` (of oxir pointee `pointee`) points to: a whole
    /// buffer global's own `Block` struct, or the type in the space's layout.
    fn memory_type(&mut self, f: &Function, ptr: Value, pointee: Type, lay: Lay) -> R<Word> {
        if let ValueDef::Global(g) = f.dfg.value_def(f.resolve(ptr)) {
            if let Some(t) = self.global(g)?.block_ty {
                return Ok(t);
            }
        }
        self.type_lay(pointee, lay)
    }

    /// [`Writer::relayout`] into the SPIR-V type `to_ty` when given (a buffer's `Block`).
    pub(super) fn relayout_as(
        &mut self,
        value: Word,
        ty: Type,
        from: Lay,
        to: Lay,
        to_ty: Option<Word>,
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
        let to_ty = match to_ty {
            Some(t) => t,
            None => self.type_lay(ty, to)?,
        };
        if self.options.target_env.spirv_version() >= (1, 4) {
            return self.op(
                Op::CopyLogical,
                Some(to_ty),
                result,
                vec![Operand::IdRef(value)],
            );
        }
        let parts: Vec<Type> = match self.tdata(ty) {
            TypeData::Array { elem, len, .. } => vec![*elem; *len as usize],
            TypeData::Struct(st) => st.members.iter().map(|m| m.ty).collect(),
            _ => return Err(format!("relayout of {}", self.m.types.display(ty)).into()),
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

    pub(super) fn pointer_space(&self, f: &Function, ptr: Value) -> R<(AddressSpace, Type)> {
        match self.tdata(f.dfg.value_type(f.resolve(ptr))) {
            TypeData::Pointer { space, pointee } => Ok((*space, *pointee)),
            _ => Err("expected a pointer".into()),
        }
    }

    /// A control barrier with workgroup execution scope.
    pub(super) fn barrier(&mut self, memory: spirv::Scope, semantics: MemorySemantics) -> R<()> {
        let exec = self.const_u32(spirv::Scope::Workgroup as u32);
        let mem = self.const_u32(memory as u32);
        let sem = self.const_u32(semantics.bits());
        self.op(Op::ControlBarrier, None, None, Self::ids(&[exec, mem, sem]))?;
        Ok(())
    }
}

/// The semantics of a workgroup barrier: acquire-release on workgroup memory.
pub(super) fn workgroup_semantics() -> MemorySemantics {
    MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY
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
