//! Whether a uniform buffer laid out by std430 (WGSL's layout, `layout uniform std430`)
//! fits Vulkan's *extended alignment* rules, which every Vulkan device accepts in uniform
//! buffers. A layout that does not fit needs the `uniformBufferStandardLayout` device
//! feature (Vulkan 1.2 core, `VK_KHR_uniform_buffer_standard_layout` before), so the
//! preflight admits it only for `--target-env vulkan1.2` and later.
//!
//! The rules checked, on the layout the module declares (offsets, strides and sizes come
//! from the layout engine, never recomputed here):
//! - an array's stride and a matrix's column stride are multiples of 16;
//! - a member whose type is a struct, an array or a matrix starts at a multiple of 16;
//! - the member after a struct-typed member starts at least at that member's offset plus
//!   its size rounded up to 16.
//!
//! Valid WGSL already satisfies all but the matrix rule (WGSL requires 16-byte array
//! strides and struct alignment in uniform buffers), so in practice this finds `matCx2`
//! matrices (8-byte columns) and `f16` matrices.
//!
//! Invariant: the walk is bounded by the layout engine's nesting limit
//! ([`oxir_ir::data_layout::MAX_NESTING`]); a malformed type comes back as the layout
//! engine's error text.

use oxir_ir::data_layout::{layout_of, LayoutRules, MAX_NESTING};
use oxir_ir::types::{TypeData, TypeStore};
use oxir_ir::Type;

/// The first place where `ty` (a uniform buffer's type under `rules`) breaks the extended
/// alignment rules, as a phrase ("`mat2x2<f32>` has column stride 8"), or `None`.
pub(crate) fn extended_alignment_violation(
    types: &TypeStore,
    ty: Type,
    rules: LayoutRules,
) -> Result<Option<String>, String> {
    violation(types, ty, rules, 0)
}

fn violation(
    types: &TypeStore,
    ty: Type,
    rules: LayoutRules,
    depth: u32,
) -> Result<Option<String>, String> {
    if depth > MAX_NESTING {
        return Err(format!("types nested deeper than {MAX_NESTING}"));
    }
    let layout = layout_of(types, ty, rules).map_err(|e| e.to_string())?;
    let shown = || types.display(ty).to_string();
    match types.get(ty) {
        TypeData::Matrix { .. } => Ok(stride_violation(layout.stride, "column stride", &shown)),
        TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => {
            if let Some(v) = stride_violation(layout.stride, "array stride", &shown) {
                return Ok(Some(v));
            }
            violation(types, *elem, rules, depth + 1)
        }
        TypeData::Struct(st) => {
            let mut must_start_at = 0u64;
            for (i, member) in st.members.iter().enumerate() {
                let offset = u64::from(layout.offsets.get(i).copied().unwrap_or(0));
                let needs_16 = matches!(
                    types.get(member.ty),
                    TypeData::Struct(_)
                        | TypeData::Array { .. }
                        | TypeData::RuntimeArray { .. }
                        | TypeData::Matrix { .. }
                );
                if (needs_16 && offset % 16 != 0) || offset < must_start_at {
                    return Ok(Some(format!(
                        "member `{}` of `%{}` is at offset {offset}",
                        member.name, st.name
                    )));
                }
                if let Some(v) = violation(types, member.ty, rules, depth + 1)? {
                    return Ok(Some(v));
                }
                must_start_at = match types.get(member.ty) {
                    TypeData::Struct(_) => {
                        let size = layout_of(types, member.ty, rules).map_err(|e| e.to_string())?;
                        (offset + u64::from(size.size)).div_ceil(16) * 16
                    }
                    TypeData::Void
                    | TypeData::Scalar(_)
                    | TypeData::Vector { .. }
                    | TypeData::Matrix { .. }
                    | TypeData::Array { .. }
                    | TypeData::RuntimeArray { .. }
                    | TypeData::Pointer { .. }
                    | TypeData::Texture { .. }
                    | TypeData::StorageTexture { .. }
                    | TypeData::Sampler { .. }
                    | TypeData::Opaque(_) => 0,
                };
            }
            Ok(None)
        }
        TypeData::Void
        | TypeData::Scalar(_)
        | TypeData::Vector { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => Ok(None),
    }
}

fn stride_violation(stride: Option<u32>, what: &str, shown: &dyn Fn() -> String) -> Option<String> {
    let stride = stride?;
    (stride % 16 != 0).then(|| format!("`{}` has {what} {stride}", shown()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::types::{Scalar, StructMember, StructType};

    fn block(types: &mut TypeStore, members: Vec<(&str, Type)>) -> Type {
        let members = members
            .into_iter()
            .map(|(name, ty)| StructMember {
                name: name.into(),
                ty,
                offset: None,
            })
            .collect();
        types.declare_struct(StructType {
            name: "U".into(),
            members,
            align: None,
        })
    }

    #[test]
    fn mat2x2_columns_8_bytes_apart_break_extended_alignment() {
        let mut types = TypeStore::new();
        let m = types.matrix(Scalar::F32, 2, 2);
        let u = block(&mut types, vec![("m", m)]);
        let found = extended_alignment_violation(&types, u, LayoutRules::Std430).unwrap();
        assert_eq!(found.as_deref(), Some("`mat2x2<f32>` has column stride 8"));
        // std140 puts the columns 16 bytes apart.
        assert_eq!(
            extended_alignment_violation(&types, u, LayoutRules::Std140).unwrap(),
            None
        );
    }

    #[test]
    fn vectors_and_16_byte_matrices_fit() {
        let mut types = TypeStore::new();
        let v = types.vector(Scalar::F32, 4);
        let m = types.matrix(Scalar::F32, 4, 4);
        let s = types.scalar(Scalar::F32);
        let u = block(&mut types, vec![("a", s), ("v", v), ("m", m)]);
        assert_eq!(
            extended_alignment_violation(&types, u, LayoutRules::Std430).unwrap(),
            None
        );
    }

    #[test]
    fn arrays_of_scalars_have_a_4_byte_stride() {
        let mut types = TypeStore::new();
        let s = types.scalar(Scalar::U32);
        let a = types.array(s, 4);
        let u = block(&mut types, vec![("a", a)]);
        let found = extended_alignment_violation(&types, u, LayoutRules::Std430).unwrap();
        assert_eq!(found.as_deref(), Some("`array<u32, 4>` has array stride 4"));
    }

    #[test]
    fn a_member_right_after_a_small_struct_is_too_close() {
        let mut types = TypeStore::new();
        let f = types.scalar(Scalar::F32);
        let inner = types.declare_struct(StructType {
            name: "Inner".into(),
            members: vec![StructMember {
                name: "x".into(),
                ty: f,
                offset: None,
            }],
            align: None,
        });
        let u = block(&mut types, vec![("s", inner), ("after", f)]);
        let found = extended_alignment_violation(&types, u, LayoutRules::Std430).unwrap();
        assert_eq!(
            found.as_deref(),
            Some("member `after` of `%U` is at offset 4")
        );
    }
}
