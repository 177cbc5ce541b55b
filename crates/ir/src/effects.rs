//! Memory effects: what an instruction may read, write or otherwise observe, derived from
//! the op table's [`EffectClass`] and refined by the address space of the pointer operand.
//!
//! This is the one table CSE, GVN, LICM and DCE consult (summarised in `docs/ir.md`).
//! The rules:
//!
//! | class | scope | reads | writes | volatile |
//! |---|---|---|---|---|
//! | pure (arithmetic, casts, `access`, `alloca`, special registers, queries) | none | – | – | – |
//! | memory read (`load`) | pointer's space | ✓ | – | – |
//! | memory write (`store`) | pointer's space | – | ✓ | – |
//! | atomic | pointer's space | ✓ | ✓ | – |
//! | resource read / write (textures) | global | ✓ / – | – / ✓ | – |
//! | barrier | workgroup (`workgroup_barrier`, `workgroup_uniform_load`) or global (`storage_barrier`) | ✓ | ✓ | ✓ |
//! | call | global | ✓ | ✓ | – |
//! | volatile (`print`, `assert`) | none | – | – | ✓ |
//! | time read (`clock`) | global | ✓ | – | – |
//! | terminator | none | – | – | ✓ |
//!
//! The pointer's space maps to a scope by [`space_scope`]: `function` and `private` are
//! local (per invocation), `workgroup` is shared by a workgroup, and `storage`, `uniform`,
//! `push_constant` and `handle` are global. A pointer operand whose type cannot be read
//! (an index out of range in a malformed function) is treated as global, the conservative
//! answer; no query here panics on a malformed function.
//!
//! A call's `global` scope is conservative: the callee may also touch memory reachable
//! through pointer arguments. Terminators are control flow, never removed or moved by
//! effect-based passes; they are reported volatile so that every predicate says "keep".
//! Convergence (collective operations) is separate from effects: see [`is_convergent`].

use crate::entities::Inst;
use crate::function::Function;
use crate::module::Module;
use crate::ops::{EffectClass, Opcode};
use crate::types::{AddressSpace, TypeData};

/// Which memory an effect may touch, from narrowest to widest.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryScope {
    /// No memory.
    None,
    /// Per-invocation memory: `function` and `private` spaces.
    Local,
    /// Memory shared by a workgroup.
    Workgroup,
    /// Memory visible beyond the workgroup: storage, uniform and push-constant buffers,
    /// and resources (`handle`).
    Global,
}

/// The effect of one instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoryEffects {
    /// Which memory it may touch.
    pub scope: MemoryScope,
    /// It may read memory in `scope`.
    pub reads: bool,
    /// It may write memory in `scope`.
    pub writes: bool,
    /// It has effects beyond memory (ordering, output, control): never removed,
    /// duplicated or reordered with other volatile instructions.
    pub volatile: bool,
}

impl MemoryEffects {
    /// No effect at all.
    pub const PURE: MemoryEffects = MemoryEffects {
        scope: MemoryScope::None,
        reads: false,
        writes: false,
        volatile: false,
    };

    /// Reads and writes in `scope`, not volatile.
    fn read_write(scope: MemoryScope) -> Self {
        MemoryEffects {
            scope,
            reads: true,
            writes: true,
            volatile: false,
        }
    }

    /// Whether the instruction has no effect: it may be removed when unused, hoisted,
    /// sunk and value-numbered (convergence aside).
    pub fn is_pure(&self) -> bool {
        !self.reads && !self.writes && !self.volatile
    }

    /// Whether an unused result makes the instruction dead: it writes nothing and is not
    /// volatile (a load is removable, a store or a call is not).
    pub fn is_removable_if_unused(&self) -> bool {
        !self.writes && !self.volatile
    }
}

/// The scope of memory behind a pointer in `space`.
pub fn space_scope(space: AddressSpace) -> MemoryScope {
    match space {
        AddressSpace::Function | AddressSpace::Private => MemoryScope::Local,
        AddressSpace::Workgroup => MemoryScope::Workgroup,
        AddressSpace::Storage(_)
        | AddressSpace::Uniform
        | AddressSpace::PushConstant
        | AddressSpace::Handle => MemoryScope::Global,
    }
}

/// The effects of `opcode` when the pointer operand's space is unknown: memory reads,
/// writes and atomics are reported global.
pub fn opcode_effects(opcode: Opcode) -> MemoryEffects {
    effects_with_pointer_scope(opcode, MemoryScope::Global)
}

/// The effects of `inst` in `func`, with memory accesses refined by the address space of
/// their pointer operand (operand 0).
pub fn instruction_effects(module: &Module, func: &Function, inst: Inst) -> MemoryEffects {
    let Some(data) = func.dfg.insts.get(inst) else {
        // Not an instruction of this function: assume the worst.
        return MemoryEffects {
            volatile: true,
            ..MemoryEffects::read_write(MemoryScope::Global)
        };
    };
    let scope = match data.opcode.info().effect {
        EffectClass::MemoryRead | EffectClass::MemoryWrite | EffectClass::Atomic => {
            pointer_scope(module, func, data.args.first().copied())
        }
        EffectClass::Pure
        | EffectClass::ResourceRead
        | EffectClass::ResourceWrite
        | EffectClass::Barrier
        | EffectClass::Call
        | EffectClass::Volatile
        | EffectClass::TimeRead
        | EffectClass::Terminator => MemoryScope::Global,
    };
    effects_with_pointer_scope(data.opcode, scope)
}

/// The scope of the memory `ptr` points to; global when unknown.
fn pointer_scope(module: &Module, func: &Function, ptr: Option<crate::Value>) -> MemoryScope {
    let Some(ptr) = ptr.filter(|&v| func.dfg.value_is_valid(v)) else {
        return MemoryScope::Global;
    };
    match module.types.try_get(func.dfg.value_type(ptr)) {
        Some(TypeData::Pointer { space, .. }) => space_scope(*space),
        _ => MemoryScope::Global,
    }
}

/// The effect table; `pointer` is the scope of the pointer operand for memory accesses.
fn effects_with_pointer_scope(opcode: Opcode, pointer: MemoryScope) -> MemoryEffects {
    let only = |scope, reads, writes| MemoryEffects {
        scope,
        reads,
        writes,
        volatile: false,
    };
    match opcode.info().effect {
        EffectClass::Pure => MemoryEffects::PURE,
        EffectClass::MemoryRead => only(pointer, true, false),
        EffectClass::MemoryWrite => only(pointer, false, true),
        EffectClass::Atomic => MemoryEffects::read_write(pointer),
        EffectClass::ResourceRead => only(MemoryScope::Global, true, false),
        EffectClass::ResourceWrite => only(MemoryScope::Global, false, true),
        EffectClass::Barrier => {
            let scope = if opcode == Opcode::StorageBarrier {
                MemoryScope::Global
            } else {
                MemoryScope::Workgroup
            };
            MemoryEffects {
                volatile: true,
                ..MemoryEffects::read_write(scope)
            }
        }
        EffectClass::Call => MemoryEffects::read_write(MemoryScope::Global),
        EffectClass::Volatile | EffectClass::Terminator => MemoryEffects {
            volatile: true,
            ..MemoryEffects::PURE
        },
        EffectClass::TimeRead => only(MemoryScope::Global, true, false),
    }
}

/// Whether `inst` has no effect (see [`MemoryEffects::is_pure`]).
pub fn is_pure(module: &Module, func: &Function, inst: Inst) -> bool {
    instruction_effects(module, func, inst).is_pure()
}

/// Whether `inst` may be deleted when its result is unused
/// (see [`MemoryEffects::is_removable_if_unused`]).
pub fn is_removable_if_unused(module: &Module, func: &Function, inst: Inst) -> bool {
    instruction_effects(module, func, inst).is_removable_if_unused()
}

/// Whether two instances of `inst`'s computation with equal operands may be merged: pure,
/// not convergent, and not an `alloca` (each allocation is distinct memory).
pub fn is_safe_to_value_number(module: &Module, func: &Function, inst: Inst) -> bool {
    let Some(data) = func.dfg.insts.get(inst) else {
        return false;
    };
    data.opcode != Opcode::Alloca
        && !is_convergent(data.opcode)
        && instruction_effects(module, func, inst).is_pure()
}

/// Whether `opcode` is a collective operation: never duplicated, sunk into control flow
/// or hoisted out of it.
pub fn is_convergent(opcode: Opcode) -> bool {
    opcode.info().convergent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::FunctionBuilder;
    use crate::function::{AbiParam, FunctionKind, Signature};
    use crate::types::StorageAccess;
    use crate::Value;

    const SPACES: [(AddressSpace, MemoryScope); 5] = [
        (AddressSpace::Function, MemoryScope::Local),
        (AddressSpace::Private, MemoryScope::Local),
        (AddressSpace::Workgroup, MemoryScope::Workgroup),
        (
            AddressSpace::Storage(StorageAccess::ReadWrite),
            MemoryScope::Global,
        ),
        (AddressSpace::Uniform, MemoryScope::Global),
    ];

    /// A callable taking one `ptr<space, u32>` per entry of `SPACES`, plus a `u32`.
    fn setup(m: &mut Module) -> (crate::Func, Vec<Value>, Value) {
        let u32_ty = m.types.u32();
        let mut params: Vec<AbiParam> = SPACES
            .iter()
            .map(|&(space, _)| AbiParam::new(m.types.pointer(space, u32_ty)))
            .collect();
        params.push(AbiParam::new(u32_ty));
        let sig = Signature {
            params,
            returns: vec![],
        };
        let f = FunctionBuilder::create_function(m, "f", FunctionKind::Callable, sig);
        let b = FunctionBuilder::new(m, f);
        let mut values = b.params();
        let x = values.pop().unwrap();
        (f, values, x)
    }

    fn effects_of(b: &FunctionBuilder, inst: Inst) -> MemoryEffects {
        instruction_effects(b.module(), b.function(), inst)
    }

    fn last_inst(b: &FunctionBuilder) -> Inst {
        let f = b.function();
        f.layout.last_inst(f.entry_block().unwrap()).unwrap()
    }

    #[test]
    fn loads_and_stores_take_the_pointer_scope() {
        let mut m = Module::new();
        let (f, ptrs, x) = setup(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        for (&ptr, &(space, scope)) in ptrs.iter().zip(&SPACES) {
            b.load(ptr);
            let load = effects_of(&b, last_inst(&b));
            assert_eq!(
                load,
                MemoryEffects {
                    scope,
                    reads: true,
                    writes: false,
                    volatile: false
                }
            );
            assert!(!load.is_pure() && load.is_removable_if_unused());
            if space.is_writable() {
                let store = b.store(ptr, x);
                let e = effects_of(&b, store);
                assert_eq!(
                    e,
                    MemoryEffects {
                        scope,
                        reads: false,
                        writes: true,
                        volatile: false
                    }
                );
                assert!(!e.is_removable_if_unused());
            }
        }
    }

    #[test]
    fn atomics_read_and_write_their_space() {
        let mut m = Module::new();
        let (f, ptrs, x) = setup(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        for &(i, scope) in &[(2, MemoryScope::Workgroup), (3, MemoryScope::Global)] {
            b.atomic(Opcode::AtomicAdd, ptrs[i], &[x]);
            let inst = last_inst(&b);
            assert_eq!(effects_of(&b, inst), MemoryEffects::read_write(scope));
            assert!(!is_removable_if_unused(b.module(), b.function(), inst));
        }
        assert_eq!(
            opcode_effects(Opcode::AtomicStore),
            MemoryEffects::read_write(MemoryScope::Global)
        );
    }

    #[test]
    fn pure_ops_alloca_and_value_numbering() {
        let mut m = Module::new();
        let (f, _, x) = setup(&mut m);
        let u32_ty = m.types.u32();
        let mut b = FunctionBuilder::new(&mut m, f);
        let sum = b.add(x, x);
        let add = b.function().dfg.value_def(sum);
        let crate::ValueDef::Result(add) = add else {
            panic!("result")
        };
        assert!(effects_of(&b, add).is_pure());
        assert!(is_safe_to_value_number(b.module(), b.function(), add));
        b.alloca(AddressSpace::Function, u32_ty);
        let alloca = last_inst(&b);
        assert!(is_pure(b.module(), b.function(), alloca));
        assert!(is_removable_if_unused(b.module(), b.function(), alloca));
        assert!(!is_safe_to_value_number(b.module(), b.function(), alloca));
        let arr = b.module_mut().types.array(u32_ty, 4);
        let slot = b.alloca(AddressSpace::Function, arr);
        b.access(slot, &[x]);
        assert!(is_pure(b.module(), b.function(), last_inst(&b)));
        b.special(Opcode::ThreadId);
        assert!(is_safe_to_value_number(
            b.module(),
            b.function(),
            last_inst(&b)
        ));
    }

    #[test]
    fn barriers_calls_debug_and_clock() {
        let mut m = Module::new();
        let (f, ptrs, x) = setup(&mut m);
        let mut b = FunctionBuilder::new(&mut m, f);
        let wg = b.workgroup_barrier();
        let e = effects_of(&b, wg);
        assert_eq!(
            e,
            MemoryEffects {
                volatile: true,
                ..MemoryEffects::read_write(MemoryScope::Workgroup)
            }
        );
        assert!(is_convergent(Opcode::WorkgroupBarrier) && !e.is_removable_if_unused());
        let sb = b.storage_barrier();
        assert_eq!(effects_of(&b, sb).scope, MemoryScope::Global);
        b.workgroup_uniform_load(ptrs[2]);
        let e = effects_of(&b, last_inst(&b));
        assert_eq!((e.scope, e.volatile), (MemoryScope::Workgroup, true));

        let call = b.call(f, &[ptrs[0], ptrs[1], ptrs[2], ptrs[3], ptrs[4], x]);
        assert_eq!(call, None);
        let e = effects_of(&b, last_inst(&b));
        assert_eq!(e, MemoryEffects::read_write(MemoryScope::Global));

        let t = b.bconst(true);
        let assert = b.assert(t, "ok");
        let p = b.print("x = {}", &[x]);
        for inst in [assert, p] {
            let e = effects_of(&b, inst);
            assert_eq!(
                e,
                MemoryEffects {
                    volatile: true,
                    ..MemoryEffects::PURE
                }
            );
            assert!(!e.is_pure() && !e.is_removable_if_unused());
        }

        b.clock();
        let clock = last_inst(&b);
        let e = effects_of(&b, clock);
        assert_eq!(
            e,
            MemoryEffects {
                scope: MemoryScope::Global,
                reads: true,
                writes: false,
                volatile: false
            }
        );
        assert!(!e.is_pure() && e.is_removable_if_unused());
        assert!(!is_safe_to_value_number(b.module(), b.function(), clock));

        let ret = b.ret(&[]);
        let e = effects_of(&b, ret);
        assert!(e.volatile && !e.is_removable_if_unused());
    }

    #[test]
    fn resources_and_convergence() {
        assert_eq!(
            opcode_effects(Opcode::TextureSample),
            MemoryEffects {
                scope: MemoryScope::Global,
                reads: true,
                writes: false,
                volatile: false
            }
        );
        assert_eq!(
            opcode_effects(Opcode::TextureStore),
            MemoryEffects {
                scope: MemoryScope::Global,
                reads: false,
                writes: true,
                volatile: false
            }
        );
        assert!(opcode_effects(Opcode::TextureDimensions).is_pure());
        assert!(is_convergent(Opcode::TextureSample) && is_convergent(Opcode::Dpdx));
        assert!(!is_convergent(Opcode::TextureSampleLevel) && !is_convergent(Opcode::Add));
        // A derivative is pure but convergent, so it is not value-numbered.
        assert!(opcode_effects(Opcode::Dpdx).is_pure());
        assert_eq!(space_scope(AddressSpace::PushConstant), MemoryScope::Global);
        assert_eq!(space_scope(AddressSpace::Handle), MemoryScope::Global);
    }

    #[test]
    fn malformed_instructions_are_conservative() {
        let mut m = Module::new();
        let (f, _, _) = setup(&mut m);
        let func = &m.functions[f];
        let e = instruction_effects(&m, func, Inst::from_u32(1000));
        assert!(e.volatile && e.writes && e.scope == MemoryScope::Global);
        assert!(!is_safe_to_value_number(&m, func, Inst::from_u32(1000)));
    }
}
