//! Register and memory forms of oxir types, and constants as LLVM literals.
//!
//! - **Register form** (SSA values): scalars as `i1` (bool), `iN`, `half`, `float`,
//!   `double`; vectors as LLVM vectors `<N x T>`; matrices as `[C x <R x T>]` (columns);
//!   arrays as `[N x T]`; structs as literal structs `{ ... }`; pointers as
//!   `ptr addrspace(N)` with the space from the [`TargetDesc`].
//! - **Memory form** (declarations of workgroup variables, allocas, by-value parameters):
//!   built from `oxir_ir::data_layout` only: bools as integers of their layout size,
//!   vectors as arrays, structs as packed structs `<{ ... }>` with explicit `[N x i8]`
//!   padding before each member and at the end, arrays and matrices with a padded element
//!   when the stride exceeds the element's size. LLVM's size of a memory form therefore
//!   equals oxir's, and no LLVM layout rule is ever consulted: every access is a byte
//!   offset computed by the layout engine (see `writer/memory.rs`).
//!
//! Not handled (the preflight refuses them first): textures, samplers, opaque types.

use crate::target::TargetDesc;
use oxir_ir::data_layout::{layout_of, LayoutRules};
use oxir_ir::types::{Scalar, ScalarKind, TypeData, TypeStore};
use oxir_ir::{Const, ConstKind, Module, Type};
use std::fmt::Write;

/// The LLVM spelling of a scalar in registers.
pub(crate) fn scalar(s: Scalar) -> &'static str {
    match (s.kind, s.bits) {
        (ScalarKind::Bool, _) => "i1",
        (ScalarKind::Float, 16) => "half",
        (ScalarKind::Float, 64) => "double",
        (ScalarKind::Float, _) => "float",
        (ScalarKind::Sint | ScalarKind::Uint, 8) => "i8",
        (ScalarKind::Sint | ScalarKind::Uint, 16) => "i16",
        (ScalarKind::Sint | ScalarKind::Uint, 64) => "i64",
        (ScalarKind::Sint | ScalarKind::Uint, _) => "i32",
    }
}

/// The register form of `ty`.
pub(crate) fn reg(types: &TypeStore, target: &TargetDesc, ty: Type) -> Result<String, String> {
    Ok(match types.try_get(ty).ok_or("invalid type")? {
        TypeData::Void => "void".into(),
        TypeData::Scalar(s) => scalar(*s).into(),
        TypeData::Vector { elem, len } => format!("<{len} x {}>", scalar(*elem)),
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            format!("[{columns} x <{rows} x {}>]", scalar(*elem))
        }
        TypeData::Array { elem, len, .. } => format!("[{len} x {}]", reg(types, target, *elem)?),
        TypeData::RuntimeArray { elem, .. } => format!("[0 x {}]", reg(types, target, *elem)?),
        TypeData::Struct(st) => {
            let members: Result<Vec<String>, String> = st
                .members
                .iter()
                .map(|m| reg(types, target, m.ty))
                .collect();
            format!("{{ {} }}", members?.join(", "))
        }
        TypeData::Pointer { space, .. } => {
            let n = target
                .address_space(*space)
                .ok_or_else(|| format!("pointers into {space}"))?;
            pointer(n)
        }
        TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => return Err(format!("type {}", types.display(ty))),
    })
}

/// An opaque pointer in LLVM address space `n`.
pub(crate) fn pointer(n: u32) -> String {
    if n == 0 {
        "ptr".into()
    } else {
        format!("ptr addrspace({n})")
    }
}

fn padding(out: &mut Vec<String>, bytes: u32) {
    if bytes > 0 {
        out.push(format!("[{bytes} x i8]"));
    }
}

/// The memory form of `ty` under `rules` (see the module docs).
pub(crate) fn mem(types: &TypeStore, ty: Type, rules: LayoutRules) -> Result<String, String> {
    let layout = layout_of(types, ty, rules).map_err(|e| e.to_string())?;
    Ok(match types.try_get(ty).ok_or("invalid type")? {
        TypeData::Scalar(s) if s.kind == ScalarKind::Bool => format!("i{}", layout.size * 8),
        TypeData::Scalar(s) => scalar(*s).into(),
        TypeData::Vector { elem, len } => {
            let lane = types_scalar_mem(*elem, layout.size / u32::from(*len));
            format!("[{len} x {lane}]")
        }
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let column = format!("[{rows} x {}]", scalar(*elem));
            let used = u32::from(*rows) * u32::from(elem.bits / 8);
            strided(
                column,
                used,
                layout.stride.unwrap_or(used),
                u32::from(*columns),
            )
        }
        TypeData::Array { elem, len, .. } => {
            let inner = mem(types, *elem, rules)?;
            let used = layout_of(types, *elem, rules)
                .map_err(|e| e.to_string())?
                .size;
            strided(inner, used, layout.stride.unwrap_or(used), *len)
        }
        TypeData::RuntimeArray { elem, .. } => {
            let inner = mem(types, *elem, rules)?;
            let used = layout_of(types, *elem, rules)
                .map_err(|e| e.to_string())?
                .size;
            strided(inner, used, layout.stride.unwrap_or(used), 0)
        }
        TypeData::Struct(st) => {
            let mut parts = Vec::new();
            let mut end = 0u32;
            for (member, &offset) in st.members.iter().zip(&layout.offsets) {
                padding(&mut parts, offset.saturating_sub(end));
                parts.push(mem(types, member.ty, rules)?);
                let size = layout_of(types, member.ty, rules)
                    .map_err(|e| e.to_string())?
                    .size;
                end = offset + size;
            }
            padding(&mut parts, layout.size.saturating_sub(end));
            format!("<{{ {} }}>", parts.join(", "))
        }
        TypeData::Void
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => return Err(format!("{} in memory", types.display(ty))),
    })
}

/// A bool lane is an integer of its layout size; other lanes are their scalar.
fn types_scalar_mem(elem: Scalar, lane_bytes: u32) -> String {
    if elem.kind == ScalarKind::Bool {
        format!("i{}", lane_bytes.max(1) * 8)
    } else {
        scalar(elem).into()
    }
}

/// `[count x elem]`, with each element padded to `stride` bytes when it uses fewer.
fn strided(elem: String, used: u32, stride: u32, count: u32) -> String {
    if stride > used {
        format!("[{count} x <{{ {elem}, [{} x i8] }}>]", stride - used)
    } else {
        format!("[{count} x {elem}]")
    }
}

/// A float constant's bits as the LLVM hexadecimal literal (`half` as `0xH....`, `float`
/// and `double` as the 64-bit double pattern of the same value, which is exact).
pub(crate) fn float_literal(s: Scalar, bits: u64) -> String {
    match s.bits {
        16 => format!("0xH{:04X}", bits & 0xffff),
        32 => format!(
            "0x{:016X}",
            f64::from(f32::from_bits(bits as u32)).to_bits()
        ),
        _ => format!("0x{bits:016X}"),
    }
}

/// The literal of a scalar constant with canonical `bits`.
pub(crate) fn scalar_literal(s: Scalar, bits: u64) -> String {
    match s.kind {
        ScalarKind::Bool => if bits != 0 { "true" } else { "false" }.into(),
        ScalarKind::Float => float_literal(s, bits),
        ScalarKind::Sint => (bits as i64).to_string(),
        ScalarKind::Uint => {
            // LLVM integer literals are signed; print the two's-complement value.
            let width = u32::from(s.bits);
            let v = if width >= 64 {
                bits as i64
            } else {
                ((bits << (64 - width)) as i64) >> (64 - width)
            };
            v.to_string()
        }
    }
}

/// Constant `c` in register form, as an operand literal (without its type).
pub(crate) fn const_literal(
    module: &Module,
    target: &TargetDesc,
    c: Const,
) -> Result<String, String> {
    let data = module.consts.try_get(c).ok_or("invalid constant")?;
    let types = &module.types;
    match &data.kind {
        ConstKind::Zero => Ok("zeroinitializer".into()),
        ConstKind::Undef => Ok("undef".into()),
        ConstKind::Scalar(bits) => match types.try_get(data.ty) {
            Some(TypeData::Scalar(s)) => Ok(scalar_literal(*s, *bits)),
            _ => Err("scalar constant of a non-scalar type".into()),
        },
        ConstKind::Composite(elements) => {
            let mut out = String::new();
            let (open, close) = match types.try_get(data.ty) {
                Some(TypeData::Vector { .. }) => ("<", ">"),
                Some(TypeData::Struct(_)) => ("{ ", " }"),
                // A matrix is an array of its columns in LLVM.
                Some(TypeData::Array { .. } | TypeData::Matrix { .. }) => ("[", "]"),
                Some(
                    TypeData::Void
                    | TypeData::Scalar(_)
                    | TypeData::RuntimeArray { .. }
                    | TypeData::Pointer { .. }
                    | TypeData::Texture { .. }
                    | TypeData::StorageTexture { .. }
                    | TypeData::Sampler { .. }
                    | TypeData::Opaque(_),
                )
                | None => return Err("composite constant of a non-composite type".into()),
            };
            out.push_str(open);
            for (i, &e) in elements.iter().enumerate() {
                let ety = module.consts.try_get(e).ok_or("invalid constant")?.ty;
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write!(
                    out,
                    "{} {}",
                    reg(types, target, ety)?,
                    const_literal(module, target, e)?
                );
            }
            out.push_str(close);
            Ok(out)
        }
    }
}
