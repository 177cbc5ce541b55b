//! The interpreter builds every value whole (a `load` of an array is one [`Val`] with an
//! element per array element), so before a run starts the type of every value of every
//! function — instruction results, block parameters, the constants they use (a constant
//! that only initializes a global is zero-filled memory, never a value) — is checked to fit
//! [`crate::Options::max_memory_bytes`] as the interpreter holds it: [`footprint`] counts
//! one `Val` per scalar, vector, matrix column and composite, at `size_of::<Val>()` bytes
//! each. A module holding an absurd value (`let copy = big;` of a 1 GiB private array) is
//! refused with [`ErrorKind::MemoryLimit`] instead of exhausting memory. Linear: each type
//! is measured once (a cache indexed by the dense type number).

use crate::error::ErrorKind;
use crate::value::Val;
use cranelift_entity::EntityRef;
use oxir_ir::types::TypeStore;
use oxir_ir::{Module, Type, TypeData};

/// Bytes one [`Val`] node takes.
const NODE: u64 = std::mem::size_of::<Val>() as u64;

/// What a value of `ty` costs the interpreter, in bytes (saturating; opaque and pointer
/// values are one node).
fn footprint(types: &TypeStore, ty: Type, cache: &mut Vec<Option<u64>>) -> u64 {
    if let Some(Some(known)) = cache.get(ty.index()) {
        return *known;
    }
    let cost = match types.try_get(ty) {
        Some(TypeData::Matrix { columns, .. }) => NODE * (1 + u64::from(*columns)),
        Some(TypeData::Array { elem, len, .. }) => {
            let each = footprint(types, *elem, cache);
            NODE.saturating_add(each.saturating_mul(u64::from(*len)))
        }
        Some(TypeData::Struct(st)) => {
            let members: Vec<Type> = st.members.iter().map(|m| m.ty).collect();
            members.into_iter().fold(NODE, |sum, m| {
                sum.saturating_add(footprint(types, m, cache))
            })
        }
        // A runtime-sized array is never a value (the verifier's rule).
        Some(
            TypeData::Void
            | TypeData::Scalar(_)
            | TypeData::Vector { .. }
            | TypeData::RuntimeArray { .. }
            | TypeData::Pointer { .. }
            | TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. }
            | TypeData::Opaque(_),
        )
        | None => NODE,
    };
    if let Some(slot) = cache.get_mut(ty.index()) {
        *slot = Some(cost);
    }
    cost
}

/// Refuses `module` when a value of it would not fit `limit` bytes (module docs).
pub(crate) fn check(module: &Module, limit: u64) -> Result<(), ErrorKind> {
    let types = &module.types;
    let mut cache = vec![None; types.len()];
    let mut check_type = |ty: Type, what: &dyn Fn() -> String| {
        let bytes = footprint(types, ty, &mut cache);
        match bytes <= limit {
            true => Ok(()),
            false => Err(ErrorKind::MemoryLimit {
                what: format!(
                    "{} (a value of type {}, built whole)",
                    what(),
                    types.display(ty)
                ),
                bytes,
                in_use: 0,
                limit,
            }),
        }
    };
    for (_, f) in module.functions.iter() {
        for (v, data) in f.dfg.values.iter() {
            check_type(data.ty, &|| format!("value {v} of @{}", f.name))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::Scalar;

    #[test]
    fn footprints_count_one_node_per_part() {
        let mut types = TypeStore::default();
        let u32_ty = types.scalar(Scalar::U32);
        let vec4 = types.vector(Scalar::F32, 4);
        let array = types.array(vec4, 10);
        let nested = types.array(array, 3);
        let mut cache = vec![None; types.len()];
        assert_eq!(footprint(&types, u32_ty, &mut cache), NODE);
        assert_eq!(footprint(&types, vec4, &mut cache), NODE);
        assert_eq!(footprint(&types, array, &mut cache), 11 * NODE);
        assert_eq!(footprint(&types, nested, &mut cache), (1 + 3 * 11) * NODE);
        let huge = types.array(nested, u32::MAX);
        let outer = types.array(huge, u32::MAX);
        let mut cache = vec![None; types.len()];
        assert_eq!(footprint(&types, outer, &mut cache), u64::MAX, "saturates");
    }
}
