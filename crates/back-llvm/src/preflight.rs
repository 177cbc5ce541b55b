//! The preflight: everything the writer cannot express for a target is refused here,
//! before anything is written. [`opcode_support`] comes from the writer's exhaustive
//! lowering table; the per-instruction checks refine it by type and target in one
//! exhaustive match over the lowering. `tests/op_sync.rs` keeps this and the writer in
//! sync: every module the preflight accepts must be written and pass `opt -passes=verify`
//! and `llc`, and every refused opcode must be refused by name.
//!
//! Target-dependent refusals: elementary functions without a math library, and subgroup
//! ops on a target without subgroups (or on a value type its warp shuffles do not move).
//!
//! A refusal is [`Error::Unsupported`], located at the function, block and instruction.

use crate::lowering::{lowering, CompositeOp, Lowering, MathOp, MemoryOp};
use crate::target::{MathLibrary, PointerDialect, Subgroups, TargetDesc};
use crate::{Error, Location};
use oxir_ir::types::TypeData;
use oxir_ir::{AddressSpace, ConstKind, Function, FunctionKind, InstData, Module, Type};

/// Whether the writer handles an opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// Written (subject to the per-instruction checks of [`preflight`]).
    Written,
    /// Refused with this reason.
    Refused(&'static str),
}

/// The writer's op table: whether its lowering of `op` writes it or refuses it.
pub fn opcode_support(op: oxir_ir::Opcode) -> Support {
    match lowering(op) {
        Lowering::Refused(why) => Support::Refused(why),
        Lowering::Arith(_)
        | Lowering::Math(_)
        | Lowering::Elementary(_)
        | Lowering::Composite(_)
        | Lowering::Matrix(_)
        | Lowering::Memory(_)
        | Lowering::Register(_)
        | Lowering::Subgroup(_)
        | Lowering::Terminator(_) => Support::Written,
    }
}

/// The most scalar leaves a whole-value load or store may have (each is one instruction).
pub const MAX_LEAVES: u64 = 4096;

fn unsupported(what: String, location: Location) -> Error {
    Error::Unsupported { what, location }
}

/// Refuses `module` when `target` cannot express something in it.
pub fn preflight(module: &Module, target: &TargetDesc) -> Result<(), Error> {
    let top = Location::default();
    if target.pointers == PointerDialect::Typed {
        return Err(unsupported(
            "typed-pointer LLVM (not written yet)".into(),
            top,
        ));
    }
    for (_, g) in module.globals.iter() {
        let bad = match g.space {
            AddressSpace::Handle => {
                Some("textures and samplers (not written for LLVM yet)".to_string())
            }
            AddressSpace::Workgroup => match g.init.map(|c| &module.consts.get(c).kind) {
                Some(ConstKind::Scalar(_) | ConstKind::Composite(_)) => {
                    Some("workgroup variables with a non-zero initializer".into())
                }
                None | Some(ConstKind::Zero | ConstKind::Undef) => None,
            },
            AddressSpace::Function
            | AddressSpace::Private
            | AddressSpace::Storage(_)
            | AddressSpace::Uniform
            | AddressSpace::PushConstant => None,
        };
        let bad = bad.or_else(|| check_type(module, g.ty).err());
        if let Some(what) = bad {
            return Err(unsupported(format!("{what} (global @{})", g.name), top));
        }
    }
    let mut kernels = 0;
    for (_, func) in module.functions.iter() {
        let at = Location {
            function: Some(func.name.clone()),
            block: None,
            instruction: None,
        };
        match func.kind {
            FunctionKind::Kernel {
                workgroup_size: _,
                workgroup_spec_ids,
            } => {
                if workgroup_spec_ids.iter().any(Option::is_some) {
                    return Err(unsupported(
                        "a workgroup size a pipeline specialises (LLVM has no specialization \
                         constants; give the size with --override instead of --spec-constants)"
                            .into(),
                        at,
                    ));
                }
                kernels += 1;
            }
            FunctionKind::Vertex | FunctionKind::Fragment => {
                return Err(unsupported(
                    "vertex and fragment entry points (the LLVM targets compile kernels)".into(),
                    at,
                ))
            }
            FunctionKind::Callable => {
                return Err(unsupported(
                    "callable functions that survive inlining".into(),
                    at,
                ))
            }
            FunctionKind::External => {
                return Err(unsupported(
                    "external functions (not written yet)".into(),
                    at,
                ))
            }
        }
        if !func.signature.params.is_empty() {
            return Err(unsupported(
                "kernel parameters (stage inputs arrive as special registers)".into(),
                at,
            ));
        }
        check_function(module, target, func)?;
    }
    if kernels == 0 {
        return Err(unsupported("a module without kernels".into(), top));
    }
    Ok(())
}

/// Types with no LLVM form here: textures, samplers, opaque types.
fn check_type(module: &Module, ty: Type) -> Result<(), String> {
    let types = &module.types;
    match types.try_get(ty).ok_or("invalid type")? {
        TypeData::Void
        | TypeData::Scalar(_)
        | TypeData::Vector { .. }
        | TypeData::Matrix { .. } => Ok(()),
        TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => {
            check_type(module, *elem)
        }
        TypeData::Pointer { pointee, .. } => check_type(module, *pointee),
        TypeData::Struct(st) => st.members.iter().try_for_each(|m| check_type(module, m.ty)),
        TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => Err(format!("type {}", types.display(ty))),
    }
}

/// Scalar leaves of a value of `ty` (saturating).
fn leaves(module: &Module, ty: Type) -> u64 {
    match module.types.try_get(ty) {
        Some(TypeData::Array { elem, len, .. }) => {
            u64::from(*len).saturating_mul(leaves(module, *elem))
        }
        Some(TypeData::Struct(st)) => st
            .members
            .iter()
            .map(|m| leaves(module, m.ty))
            .fold(0, u64::saturating_add),
        Some(TypeData::Matrix { columns, .. }) => u64::from(*columns),
        _ => 1,
    }
}

fn is_scalar_or_vector(module: &Module, ty: Type) -> bool {
    matches!(
        module.types.try_get(ty),
        Some(TypeData::Scalar(_) | TypeData::Vector { .. })
    )
}

fn pointee(module: &Module, ty: Type) -> Option<Type> {
    match module.types.try_get(ty) {
        Some(TypeData::Pointer { pointee, .. }) => Some(*pointee),
        _ => None,
    }
}

fn check_function(module: &Module, target: &TargetDesc, func: &Function) -> Result<(), Error> {
    for block in func.layout.blocks() {
        for &p in func.dfg.block_params(block) {
            if let Err(what) = check_type(module, func.dfg.value_type(p)) {
                let at = Location {
                    function: Some(func.name.clone()),
                    block: Some(block),
                    instruction: None,
                };
                return Err(unsupported(format!("block parameter of {what}"), at));
            }
        }
        for inst in func.layout.block_insts(block) {
            let data = func.dfg.inst(inst);
            if let Err(what) = check_inst(module, target, func, data, inst) {
                let at = Location {
                    function: Some(func.name.clone()),
                    block: Some(block),
                    instruction: Some(inst),
                };
                return Err(unsupported(format!("{}: {what}", data.opcode), at));
            }
        }
    }
    Ok(())
}

fn check_inst(
    module: &Module,
    target: &TargetDesc,
    func: &Function,
    data: &InstData,
    inst: oxir_ir::Inst,
) -> Result<(), String> {
    let arg_ty = |i: usize| {
        data.args
            .get(i)
            .map(|&v| func.dfg.value_type(func.resolve(v)))
    };
    let result_ty = func.dfg.inst_result(inst).map(|v| func.dfg.value_type(v));
    if let Some(ty) = result_ty {
        check_type(module, ty)?;
    }
    match lowering(data.opcode) {
        Lowering::Refused(why) => Err(why.to_string()),
        Lowering::Elementary(_) => match target.math {
            MathLibrary::Libdevice | MathLibrary::Libm => Ok(()),
            MathLibrary::Unavailable => {
                Err("no precise implementation on this target (no math library)".into())
            }
        },
        Lowering::Composite(CompositeOp::ExtractDynamic | CompositeOp::InsertDynamic) => {
            match arg_ty(0) {
                Some(t) if leaves(module, t) > MAX_LEAVES => Err(format!(
                    "a dynamic index into a value of more than {MAX_LEAVES} scalars"
                )),
                _ => Ok(()),
            }
        }
        Lowering::Math(MathOp::Bitcast) => match (arg_ty(0), result_ty) {
            (Some(a), Some(r))
                if is_scalar_or_vector(module, a) && is_scalar_or_vector(module, r) =>
            {
                Ok(())
            }
            _ => Err("bitcast of composites".into()),
        },
        Lowering::Memory(MemoryOp::Load | MemoryOp::Store | MemoryOp::WorkgroupUniformLoad) => {
            let ty = arg_ty(0)
                .and_then(|p| pointee(module, p))
                .ok_or("a non-pointer operand")?;
            if leaves(module, ty) > MAX_LEAVES {
                return Err(format!("a whole value of more than {MAX_LEAVES} scalars"));
            }
            Ok(())
        }
        Lowering::Memory(MemoryOp::Alloca) => match result_ty.and_then(|t| module.types.try_get(t))
        {
            Some(TypeData::Pointer {
                space: AddressSpace::Function,
                ..
            }) => Ok(()),
            _ => Err("workgroup allocas (not written yet)".into()),
        },
        Lowering::Subgroup(_) => match target.subgroups {
            Subgroups::Unavailable => Err(
                "no subgroups on this target (it runs one invocation at a time, so no \
                 invocation can see another's value; use --target ptx or the interpreter)"
                    .into(),
            ),
            Subgroups::Warp32 => {
                data.args
                    .iter()
                    .enumerate()
                    .try_for_each(|(i, _)| match arg_ty(i) {
                        Some(t) if warp_value(module, t) => Ok(()),
                        Some(t) => Err(format!(
                            "operand {i} of type {} (warp shuffles move bool, 32-bit and \
                         16-bit scalars and vectors of them)",
                            module.types.display(t)
                        )),
                        None => Err("a missing operand".into()),
                    })
            }
        },
        Lowering::Arith(_)
        | Lowering::Math(_)
        | Lowering::Composite(_)
        | Lowering::Matrix(_)
        | Lowering::Memory(_)
        | Lowering::Register(_)
        | Lowering::Terminator(_) => Ok(()),
    }
}

/// Whether the writer's warp collectives move values of `ty`: scalars and vectors of
/// bool, 32-bit integers and floats, and 16-bit floats (what the IR's subgroup type rules
/// admit today; anything wider is refused here rather than written wrong).
fn warp_value(module: &Module, ty: Type) -> bool {
    let elem = match module.types.try_get(ty) {
        Some(TypeData::Scalar(s)) => *s,
        Some(TypeData::Vector { elem, .. }) => *elem,
        _ => return false,
    };
    elem.is_bool() || elem.bits == 32 || (elem.is_float() && elem.bits == 16)
}
